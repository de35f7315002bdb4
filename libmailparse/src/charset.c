// charset.c: conversion of text in any charset a message may declare to
// valid UTF-8. It owns the charset name table (IANA names and aliases, matched
// ignoring case and punctuation), the built-in decoders for the charsets that
// carry almost all mail (UTF-8, Windows-1252 for ASCII and Latin-1 labels,
// UTF-16), tables of glibc's single-byte and double-byte (CJK) decoders, and
// the iconv path for everything else, with descriptors kept per thread so
// that no mutable state is shared between threads but the write-once
// tables. Every path writes through one bounded sink that enforces
// mp_charset_utf8_max_len().
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "charset_internal.h"
#include "core_internal.h"
#include "mailparse.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum cs_kind {
  CS_UNKNOWN,
  CS_UTF8,
  CS_WIN1252,
  CS_UTF16,   // byte order from a BOM, big-endian without one
  CS_UTF16BE, // a leading BOM in this order is dropped
  CS_UTF16LE,
  CS_ICONV,
};

struct cs_entry {
  const char *name;  // IANA preferred MIME name (WHATWG's where it differs)
  uint8_t kind;      // enum cs_kind
  const char *iconv; // glibc's name of the decoder, for CS_ICONV
};

// Entry ids: the index in cs_entries; 0 is the unknown charset.
enum {
  E_UNKNOWN,
  E_UTF8,
  E_1252,
  E_UTF16,
  E_UTF16BE,
  E_UTF16LE,
  E_8859_2,
  E_8859_3,
  E_8859_4,
  E_8859_5,
  E_8859_6,
  E_8859_7,
  E_8859_8,
  E_8859_9,
  E_8859_10,
  E_8859_13,
  E_8859_14,
  E_8859_15,
  E_8859_16,
  E_874,
  E_1250,
  E_1251,
  E_1253,
  E_1254,
  E_1255,
  E_1256,
  E_1257,
  E_1258,
  E_KOI8R,
  E_KOI8U,
  E_KOI8RU,
  E_IBM866,
  E_IBM437,
  E_IBM850,
  E_IBM852,
  E_MAC,
  E_MACCYR,
  E_SJIS,
  E_EUCJP,
  E_2022JP,
  E_EUCKR,
  E_2022KR,
  E_GBK,
  E_GB18030,
  E_BIG5,
  E_EUCTW,
  E_2022CN,
  E_UTF7,
  E_UTF32,
  E_UTF32BE,
  E_UTF32LE,
  E_VISCII,
  E_TCVN,
  E_ARMSCII8,
  E_GEOPS,
  E_PT154,
  E_KOI8T,
  E_CP1125,
  E_COUNT
};

static const struct cs_entry cs_entries[E_COUNT] = {
    [E_UNKNOWN] = {"unknown", CS_UNKNOWN, NULL},
    [E_UTF8] = {"UTF-8", CS_UTF8, NULL},
    [E_1252] = {"windows-1252", CS_WIN1252, NULL},
    [E_UTF16] = {"UTF-16", CS_UTF16, NULL},
    [E_UTF16BE] = {"UTF-16BE", CS_UTF16BE, NULL},
    [E_UTF16LE] = {"UTF-16LE", CS_UTF16LE, NULL},
    [E_8859_2] = {"ISO-8859-2", CS_ICONV, "ISO-8859-2"},
    [E_8859_3] = {"ISO-8859-3", CS_ICONV, "ISO-8859-3"},
    [E_8859_4] = {"ISO-8859-4", CS_ICONV, "ISO-8859-4"},
    [E_8859_5] = {"ISO-8859-5", CS_ICONV, "ISO-8859-5"},
    [E_8859_6] = {"ISO-8859-6", CS_ICONV, "ISO-8859-6"},
    [E_8859_7] = {"ISO-8859-7", CS_ICONV, "ISO-8859-7"},
    [E_8859_8] = {"ISO-8859-8", CS_ICONV, "ISO-8859-8"},
    [E_8859_9] = {"ISO-8859-9", CS_ICONV, "ISO-8859-9"},
    [E_8859_10] = {"ISO-8859-10", CS_ICONV, "ISO-8859-10"},
    [E_8859_13] = {"ISO-8859-13", CS_ICONV, "ISO-8859-13"},
    [E_8859_14] = {"ISO-8859-14", CS_ICONV, "ISO-8859-14"},
    [E_8859_15] = {"ISO-8859-15", CS_ICONV, "ISO-8859-15"},
    [E_8859_16] = {"ISO-8859-16", CS_ICONV, "ISO-8859-16"},
    [E_874] = {"windows-874", CS_ICONV, "CP874"},
    [E_1250] = {"windows-1250", CS_ICONV, "CP1250"},
    [E_1251] = {"windows-1251", CS_ICONV, "CP1251"},
    [E_1253] = {"windows-1253", CS_ICONV, "CP1253"},
    [E_1254] = {"windows-1254", CS_ICONV, "CP1254"},
    [E_1255] = {"windows-1255", CS_ICONV, "CP1255"},
    [E_1256] = {"windows-1256", CS_ICONV, "CP1256"},
    [E_1257] = {"windows-1257", CS_ICONV, "CP1257"},
    [E_1258] = {"windows-1258", CS_ICONV, "CP1258"},
    [E_KOI8R] = {"KOI8-R", CS_ICONV, "KOI8-R"},
    [E_KOI8U] = {"KOI8-U", CS_ICONV, "KOI8-U"},
    [E_KOI8RU] = {"KOI8-RU", CS_ICONV, "KOI8-RU"},
    [E_IBM866] = {"IBM866", CS_ICONV, "IBM866"},
    [E_IBM437] = {"IBM437", CS_ICONV, "CP437"},
    [E_IBM850] = {"IBM850", CS_ICONV, "CP850"},
    [E_IBM852] = {"IBM852", CS_ICONV, "CP852"},
    [E_MAC] = {"macintosh", CS_ICONV, "MACINTOSH"},
    [E_MACCYR] = {"x-mac-cyrillic", CS_ICONV, "MAC-CYRILLIC"},
    [E_SJIS] = {"Shift_JIS", CS_ICONV, "CP932"},
    [E_EUCJP] = {"EUC-JP", CS_ICONV, "EUC-JP-MS"},
    [E_2022JP] = {"ISO-2022-JP", CS_ICONV, "ISO-2022-JP-2"},
    [E_EUCKR] = {"EUC-KR", CS_ICONV, "CP949"},
    [E_2022KR] = {"ISO-2022-KR", CS_ICONV, "ISO-2022-KR"},
    [E_GBK] = {"GBK", CS_ICONV, "GB18030"},
    [E_GB18030] = {"GB18030", CS_ICONV, "GB18030"},
    [E_BIG5] = {"Big5", CS_ICONV, "BIG5-HKSCS"},
    [E_EUCTW] = {"EUC-TW", CS_ICONV, "EUC-TW"},
    [E_2022CN] = {"ISO-2022-CN", CS_ICONV, "ISO-2022-CN"},
    [E_UTF7] = {"UTF-7", CS_ICONV, "UTF-7"},
    [E_UTF32] = {"UTF-32", CS_ICONV, "UTF-32"},
    [E_UTF32BE] = {"UTF-32BE", CS_ICONV, "UTF-32BE"},
    [E_UTF32LE] = {"UTF-32LE", CS_ICONV, "UTF-32LE"},
    [E_VISCII] = {"VISCII", CS_ICONV, "VISCII"},
    [E_TCVN] = {"TCVN5712-1", CS_ICONV, "TCVN5712-1"},
    [E_ARMSCII8] = {"ARMSCII-8", CS_ICONV, "ARMSCII-8"},
    [E_GEOPS] = {"GEORGIAN-PS", CS_ICONV, "GEORGIAN-PS"},
    [E_PT154] = {"PTCP154", CS_ICONV, "PT154"},
    [E_KOI8T] = {"KOI8-T", CS_ICONV, "KOI8-T"},
    [E_CP1125] = {"CP1125", CS_ICONV, "CP1125"},
};

struct cs_alias {
  const char *key; // normalised: lowercase letters and digits only
  uint8_t id;
};

// Names and aliases from the IANA character-sets registry, the WHATWG
// Encoding Standard's labels and misspellings seen in real mail, normalised.
// Sorted by key (bytewise) for the binary search; a test checks that every
// key finds its own entry, which fails if the order breaks.
static const struct cs_alias cs_aliases[] = {
    {"ansix341968", E_1252},
    {"ansix341986", E_1252},
    {"arabic", E_8859_6},
    {"armscii8", E_ARMSCII8},
    {"ascii", E_1252},
    {"asmo708", E_8859_6},
    {"big5", E_BIG5},
    {"big5hkscs", E_BIG5},
    {"chinese", E_GBK},
    {"cnbig5", E_BIG5},
    {"cp1125", E_CP1125},
    {"cp1250", E_1250},
    {"cp1251", E_1251},
    {"cp1252", E_1252},
    {"cp1253", E_1253},
    {"cp1254", E_1254},
    {"cp1255", E_1255},
    {"cp1256", E_1256},
    {"cp1257", E_1257},
    {"cp1258", E_1258},
    {"cp154", E_PT154},
    {"cp367", E_1252},
    {"cp437", E_IBM437},
    {"cp819", E_1252},
    {"cp850", E_IBM850},
    {"cp852", E_IBM852},
    {"cp866", E_IBM866},
    {"cp874", E_874},
    {"cp932", E_SJIS},
    {"cp936", E_GBK},
    {"cp949", E_EUCKR},
    {"cp950", E_BIG5},
    {"csascii", E_1252},
    {"csbig5", E_BIG5},
    {"cseuckr", E_EUCKR},
    {"cseucpkdfmtjapanese", E_EUCJP},
    {"csgb2312", E_GBK},
    {"csibm866", E_IBM866},
    {"csiso2022jp", E_2022JP},
    {"csiso2022kr", E_2022KR},
    {"csiso58gb231280", E_GBK},
    {"csiso88596e", E_8859_6},
    {"csiso88596i", E_8859_6},
    {"csiso88598e", E_8859_8},
    {"csiso88598i", E_8859_8},
    {"csisolatin1", E_1252},
    {"csisolatin2", E_8859_2},
    {"csisolatin3", E_8859_3},
    {"csisolatin4", E_8859_4},
    {"csisolatin5", E_8859_9},
    {"csisolatin6", E_8859_10},
    {"csisolatin9", E_8859_15},
    {"csisolatinarabic", E_8859_6},
    {"csisolatincyrillic", E_8859_5},
    {"csisolatingreek", E_8859_7},
    {"csisolatinhebrew", E_8859_8},
    {"cskoi8r", E_KOI8R},
    {"csksc56011987", E_EUCKR},
    {"csmacintosh", E_MAC},
    {"csptcp154", E_PT154},
    {"csshiftjis", E_SJIS},
    {"csunicode11utf7", E_UTF7},
    {"csutf16", E_UTF16},
    {"csutf16be", E_UTF16BE},
    {"csutf16le", E_UTF16LE},
    {"csutf32", E_UTF32},
    {"csutf32be", E_UTF32BE},
    {"csutf32le", E_UTF32LE},
    {"csutf7", E_UTF7},
    {"csutf8", E_UTF8},
    {"cyrillic", E_8859_5},
    {"cyrillicasian", E_PT154},
    {"dos866", E_IBM866},
    {"ecma114", E_8859_6},
    {"ecma118", E_8859_7},
    {"elot928", E_8859_7},
    {"euccn", E_GBK},
    {"eucjp", E_EUCJP},
    {"euckr", E_EUCKR},
    {"euctw", E_EUCTW},
    {"gb18030", E_GB18030},
    {"gb2312", E_GBK},
    {"gb231280", E_GBK},
    {"gbk", E_GBK},
    {"georgianps", E_GEOPS},
    {"greek", E_8859_7},
    {"greek8", E_8859_7},
    {"hebrew", E_8859_8},
    {"ibm367", E_1252},
    {"ibm437", E_IBM437},
    {"ibm819", E_1252},
    {"ibm850", E_IBM850},
    {"ibm852", E_IBM852},
    {"ibm866", E_IBM866},
    {"iso10646ucs2", E_UTF16},
    {"iso2022cn", E_2022CN},
    {"iso2022jp", E_2022JP},
    {"iso2022jp1", E_2022JP},
    {"iso2022jp2", E_2022JP},
    {"iso2022kr", E_2022KR},
    {"iso646irv1991", E_1252},
    {"iso646us", E_1252},
    {"iso88591", E_1252},
    {"iso885910", E_8859_10},
    {"iso8859101992", E_8859_10},
    {"iso885911", E_874},
    {"iso885911987", E_1252},
    {"iso885913", E_8859_13},
    {"iso885914", E_8859_14},
    {"iso8859141998", E_8859_14},
    {"iso885915", E_8859_15},
    {"iso885916", E_8859_16},
    {"iso8859162001", E_8859_16},
    {"iso88592", E_8859_2},
    {"iso885921987", E_8859_2},
    {"iso88593", E_8859_3},
    {"iso885931988", E_8859_3},
    {"iso88594", E_8859_4},
    {"iso885941988", E_8859_4},
    {"iso88595", E_8859_5},
    {"iso885951988", E_8859_5},
    {"iso88596", E_8859_6},
    {"iso885961987", E_8859_6},
    {"iso88596e", E_8859_6},
    {"iso88596i", E_8859_6},
    {"iso88597", E_8859_7},
    {"iso885971987", E_8859_7},
    {"iso88598", E_8859_8},
    {"iso885981988", E_8859_8},
    {"iso88598e", E_8859_8},
    {"iso88598i", E_8859_8},
    {"iso88599", E_8859_9},
    {"iso885991989", E_8859_9},
    {"isoceltic", E_8859_14},
    {"isoir100", E_1252},
    {"isoir101", E_8859_2},
    {"isoir109", E_8859_3},
    {"isoir110", E_8859_4},
    {"isoir126", E_8859_7},
    {"isoir127", E_8859_6},
    {"isoir138", E_8859_8},
    {"isoir144", E_8859_5},
    {"isoir148", E_8859_9},
    {"isoir149", E_EUCKR},
    {"isoir157", E_8859_10},
    {"isoir199", E_8859_14},
    {"isoir226", E_8859_16},
    {"isoir58", E_GBK},
    {"isoir6", E_1252},
    {"koi", E_KOI8R},
    {"koi8", E_KOI8R},
    {"koi8r", E_KOI8R},
    {"koi8ru", E_KOI8RU},
    {"koi8t", E_KOI8T},
    {"koi8u", E_KOI8U},
    {"korean", E_EUCKR},
    {"ksc5601", E_EUCKR},
    {"ksc56011987", E_EUCKR},
    {"ksc56011989", E_EUCKR},
    {"l1", E_1252},
    {"l10", E_8859_16},
    {"l2", E_8859_2},
    {"l3", E_8859_3},
    {"l4", E_8859_4},
    {"l5", E_8859_9},
    {"l6", E_8859_10},
    {"l8", E_8859_14},
    {"l9", E_8859_15},
    {"latin1", E_1252},
    {"latin10", E_8859_16},
    {"latin2", E_8859_2},
    {"latin3", E_8859_3},
    {"latin4", E_8859_4},
    {"latin5", E_8859_9},
    {"latin6", E_8859_10},
    {"latin7", E_8859_13},
    {"latin8", E_8859_14},
    {"latin9", E_8859_15},
    {"mac", E_MAC},
    {"maccyrillic", E_MACCYR},
    {"macintosh", E_MAC},
    {"macroman", E_MAC},
    {"ms932", E_SJIS},
    {"ms936", E_GBK},
    {"ms949", E_EUCKR},
    {"mskanji", E_SJIS},
    {"pt154", E_PT154},
    {"ptcp154", E_PT154},
    {"shiftjis", E_SJIS},
    {"sjis", E_SJIS},
    {"tcvn", E_TCVN},
    {"tcvn57121", E_TCVN},
    {"tis620", E_874},
    {"ucs2", E_UTF16},
    {"unicode", E_UTF16},
    {"unicode11utf7", E_UTF7},
    {"unicode11utf8", E_UTF8},
    {"unicode20utf8", E_UTF8},
    {"unicodefeff", E_UTF16},
    {"unicodefffe", E_UTF16LE},
    {"us", E_1252},
    {"usascii", E_1252},
    {"utf16", E_UTF16},
    {"utf16be", E_UTF16BE},
    {"utf16le", E_UTF16LE},
    {"utf32", E_UTF32},
    {"utf32be", E_UTF32BE},
    {"utf32le", E_UTF32LE},
    {"utf7", E_UTF7},
    {"utf8", E_UTF8},
    {"viscii", E_VISCII},
    {"visual", E_8859_8},
    {"windows1250", E_1250},
    {"windows1251", E_1251},
    {"windows1252", E_1252},
    {"windows1253", E_1253},
    {"windows1254", E_1254},
    {"windows1255", E_1255},
    {"windows1256", E_1256},
    {"windows1257", E_1257},
    {"windows1258", E_1258},
    {"windows31j", E_SJIS},
    {"windows874", E_874},
    {"windows936", E_GBK},
    {"windows949", E_EUCKR},
    {"xcp1250", E_1250},
    {"xcp1251", E_1251},
    {"xcp1252", E_1252},
    {"xcp1253", E_1253},
    {"xcp1254", E_1254},
    {"xcp1255", E_1255},
    {"xcp1256", E_1256},
    {"xcp1257", E_1257},
    {"xcp1258", E_1258},
    {"xeuccn", E_GBK},
    {"xeucjp", E_EUCJP},
    {"xeuctw", E_EUCTW},
    {"xgbk", E_GBK},
    {"xmaccyrillic", E_MACCYR},
    {"xmacroman", E_MAC},
    {"xmacukrainian", E_MACCYR},
    {"xsjis", E_SJIS},
    {"xunicode20utf8", E_UTF8},
    {"xuserdefined", E_1252},
    {"xxbig5", E_BIG5},
};

// The sink every decoder writes to. With `out` NULL it only counts, which
// lets a caller with a small buffer learn the exact length before anything is
// written. `limit` is mp_charset_utf8_max_len(in_len); output that would pass
// it is dropped (only possible through iconv) and flagged.
struct cs_sink {
  uint8_t *out;
  size_t cap;
  size_t len;
  size_t limit;
  unsigned flags;
  bool stopped; // the limit was reached: everything after is dropped
  bool overflow;
};

static void sink_bytes(struct cs_sink *s, const uint8_t *p, size_t n) {
  if (s->stopped)
    return;
  if (n > s->limit - s->len) {
    s->stopped = true;
    s->flags |= MP_CHARSET_REPLACED;
    return;
  }
  if (s->out != NULL) {
    if (n > s->cap - s->len) {
      s->overflow = true; // cannot happen after the counting pass
      s->stopped = true;
      return;
    }
    memcpy(s->out + s->len, p, n);
  }
  s->len += n;
}

static void sink_cp(struct cs_sink *s, uint32_t cp) {
  uint8_t buf[4];
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    s->flags |= MP_CHARSET_REPLACED;
  sink_bytes(s, buf, mp_utf8_encode_one(buf, cp));
}

static void sink_bad(struct cs_sink *s) {
  s->flags |= MP_CHARSET_REPLACED;
  static const uint8_t fffd[3] = {0xEF, 0xBF, 0xBD};
  sink_bytes(s, fffd, 3);
}

static void decode_utf16(struct cs_sink *s, const uint8_t *in, size_t n, enum cs_kind kind) {
  bool be = kind != CS_UTF16LE;
  size_t i = 0;
  if (n >= 2) {
    if (in[0] == 0xFE && in[1] == 0xFF && kind != CS_UTF16LE) {
      i = 2;
    } else if (in[0] == 0xFF && in[1] == 0xFE && kind != CS_UTF16BE) {
      i = 2;
      be = false;
    }
  }
  while (n - i >= 2 && !s->stopped) {
    uint32_t u = be ? (uint32_t)in[i] << 8 | in[i + 1] : (uint32_t)in[i + 1] << 8 | in[i];
    i += 2;
    if (u >= 0xD800 && u <= 0xDBFF && n - i >= 2) {
      uint32_t l = be ? (uint32_t)in[i] << 8 | in[i + 1] : (uint32_t)in[i + 1] << 8 | in[i];
      if (l >= 0xDC00 && l <= 0xDFFF) {
        i += 2;
        sink_cp(s, 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00));
        continue;
      }
    }
    if (u >= 0xD800 && u <= 0xDFFF)
      sink_bad(s); // a lone surrogate; the unit after it is decoded anew
    else
      sink_cp(s, u);
  }
  if (i < n)
    sink_bad(s); // an odd final byte
}

static void decode_unknown(struct cs_sink *s, const uint8_t *in, size_t n) {
  s->flags |= MP_CHARSET_UNKNOWN;
  size_t i = 0;
  while (i < n && !s->stopped) {
    size_t a = mp_ascii_prefix_len(in + i, n - i);
    sink_bytes(s, in + i, a);
    i += a;
    if (i < n) {
      sink_bad(s);
      i++;
    }
  }
}

// sink_ucs4_slow encodes iconv's code points one at a time, checking each
// against the sink's bound: what comes before a character that would pass
// it goes out, and the sink stops at it, as if each had been written alone.
static void sink_ucs4_slow(struct cs_sink *s, const uint8_t *p, size_t n) {
  uint8_t buf[1024];
  size_t b = 0;
  for (size_t k = 0; k + 4 <= n; k += 4) {
    if (b + 4 > sizeof buf) {
      sink_bytes(s, buf, b);
      b = 0;
    }
    uint32_t cp = (uint32_t)p[k] | (uint32_t)p[k + 1] << 8 | (uint32_t)p[k + 2] << 16 |
                  (uint32_t)p[k + 3] << 24;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      s->flags |= MP_CHARSET_REPLACED;
    size_t w = mp_utf8_encode_one(buf + b, cp);
    if (w > s->limit - s->len - b) {
      sink_bytes(s, buf, b);
      sink_bytes(s, buf + b, w);
      return;
    }
    b += w;
  }
  sink_bytes(s, buf, b);
}

// ucs4_to_utf8 encodes the `num_cp` code points at `p` (UCS-4LE) into `o`,
// which has room for 4 bytes each, and returns the bytes written, adding
// MP_CHARSET_REPLACED to *flags for a surrogate or a value above U+10FFFF
// (written as U+FFFD, as mp_utf8_encode_one does). One 4-byte load per code
// point and the three lengths of the BMP tested inline: iconv's output is
// mostly CJK, 3 bytes each.
static size_t ucs4_to_utf8(uint8_t *o, unsigned *flags, const uint8_t *p, size_t num_cp) {
  size_t b = 0;
  for (size_t k = 0; k < num_cp; k++) {
    uint32_t cp;
    memcpy(&cp, p + 4 * k, 4);
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    cp = (uint32_t)p[4 * k] | (uint32_t)p[4 * k + 1] << 8 | (uint32_t)p[4 * k + 2] << 16 |
         (uint32_t)p[4 * k + 3] << 24;
#endif
    if (cp < 0x80) {
      o[b++] = (uint8_t)cp;
    } else if (cp < 0x800) {
      o[b] = (uint8_t)(0xC0 | (cp >> 6));
      o[b + 1] = (uint8_t)(0x80 | (cp & 0x3F));
      b += 2;
    } else if (cp < 0x10000 && (cp & 0xF800) != 0xD800) {
      o[b] = (uint8_t)(0xE0 | (cp >> 12));
      o[b + 1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
      o[b + 2] = (uint8_t)(0x80 | (cp & 0x3F));
      b += 3;
    } else {
      if (cp > 0x10FFFF || cp < 0x10000)
        *flags |= MP_CHARSET_REPLACED; // a surrogate, or beyond Unicode
      b += mp_utf8_encode_one(o + b, cp);
    }
  }
  return b;
}

// sink_ucs4 re-encodes iconv's code points a block at a time. A block whose
// worst case (4 bytes a code point) stays inside the sink's bound cannot
// stop the sink, so it is encoded with no check per character, straight
// into the caller's buffer when it has the room (else into a local block);
// only near the bound does sink_ucs4_slow take the rest.
static void sink_ucs4(struct cs_sink *s, const uint8_t *p, size_t n) {
  uint8_t buf[1024];
  size_t num_cp = n / 4, k = 0;
  while (k < num_cp && !s->stopped) {
    size_t take = num_cp - k;
    if (take > sizeof buf / 4)
      take = sizeof buf / 4;
    if (take > (s->limit - s->len) / 4) {
      sink_ucs4_slow(s, p + 4 * k, 4 * (num_cp - k));
      return;
    }
    if (s->out != NULL && s->cap - s->len >= 4 * take) {
      s->len += ucs4_to_utf8(s->out + s->len, &s->flags, p + 4 * k, take);
    } else {
      size_t b = ucs4_to_utf8(buf, &s->flags, p + 4 * k, take);
      sink_bytes(s, buf, b);
    }
    k += take;
  }
}

// decode_iconv converts through glibc into UCS-4LE and re-encodes each code
// point itself, so that whatever iconv emits is checked (surrogates, values
// above U+10FFFF) and counted against the bound. The input goes in pieces of
// ICONV_PIECE bytes with an output chunk that always holds a piece's
// characters: glibc's multi-step conversions redo work from the start of the
// input whenever the output fills (E2BIG), which made large inputs with a
// small output buffer ten times slower. A piece that ends inside a character
// (EINVAL before the real end) resumes with that character. An invalid or
// unmappable byte (EILSEQ) becomes U+FFFD and is skipped; an incomplete
// sequence at the end becomes one U+FFFD.
#define ICONV_PIECE 256

// Opening a descriptor makes glibc load the converter module and closing it
// unloads it again, which cost more than converting a short part; so each
// thread keeps its ICONV_CACHE_SLOTS most recently used descriptors, resets
// one before every use, and closes them when the thread ends (a pthread key
// destructor). The thread-local pointer keeps the cache reachable for leak
// checkers in the main thread, whose key destructors never run.
#define ICONV_CACHE_SLOTS 4

struct iconv_cache {
  const char *name[ICONV_CACHE_SLOTS]; // cs_entries' static names, compared by address
  iconv_t cd[ICONV_CACHE_SLOTS];
  unsigned next; // the slot to replace next, round robin
};

static pthread_key_t iconv_key;
static pthread_once_t iconv_key_once = PTHREAD_ONCE_INIT;
static bool iconv_key_ready;
static _Thread_local struct iconv_cache *iconv_tls;

static void iconv_cache_free(void *p) {
  struct iconv_cache *c = p;
  for (size_t i = 0; i < ICONV_CACHE_SLOTS; i++) {
    if (c->name[i] != NULL)
      iconv_close(c->cd[i]);
  }
  free(c);
}

static void iconv_key_create(void) {
  iconv_key_ready = pthread_key_create(&iconv_key, iconv_cache_free) == 0;
}

// iconv_cache_get returns this thread's cache, creating it on first use, or
// NULL when it cannot (then every call opens and closes its descriptor).
static struct iconv_cache *iconv_cache_get(void) {
  if (iconv_tls != NULL)
    return iconv_tls;
  if (pthread_once(&iconv_key_once, iconv_key_create) != 0 || !iconv_key_ready)
    return NULL;
  struct iconv_cache *c = calloc(1, sizeof *c);
  if (c == NULL)
    return NULL;
  if (pthread_setspecific(iconv_key, c) != 0) {
    free(c);
    return NULL;
  }
  iconv_tls = c;
  return c;
}

// iconv_acquire returns a descriptor from `name` to UCS-4LE in its initial
// state, or (iconv_t)-1; `*owned` says whether iconv_release must close it.
static iconv_t iconv_acquire(const char *name, bool *owned) {
  struct iconv_cache *c = iconv_cache_get();
  *owned = c == NULL;
  if (c != NULL) {
    for (size_t i = 0; i < ICONV_CACHE_SLOTS; i++) {
      if (c->name[i] == name) {
        (void)iconv(c->cd[i], NULL, NULL, NULL, NULL);
        return c->cd[i];
      }
    }
  }
  iconv_t cd = iconv_open("UCS-4LE", name);
  if (cd == (iconv_t)-1 || c == NULL)
    return cd;
  unsigned slot = c->next;
  c->next = (slot + 1) % ICONV_CACHE_SLOTS;
  if (c->name[slot] != NULL)
    iconv_close(c->cd[slot]);
  c->name[slot] = name;
  c->cd[slot] = cd;
  return cd;
}

static void iconv_release(iconv_t cd, bool owned) {
  if (owned)
    iconv_close(cd);
}

static void decode_iconv(struct cs_sink *s, const char *name, const uint8_t *in, size_t n) {
  bool owned;
  iconv_t cd = iconv_acquire(name, &owned);
  if (cd == (iconv_t)-1) {
    decode_unknown(s, in, n);
    return;
  }
  char *ip = (char *)(uintptr_t)in; // iconv's prototype lacks const; it only reads
  size_t il = n, piece_max = ICONV_PIECE;
  uint8_t chunk[ICONV_PIECE * 16];
  while (il > 0 && !s->stopped) {
    size_t piece = il < piece_max ? il : piece_max, left = piece;
    char *op = (char *)chunk;
    size_t ol = sizeof chunk;
    size_t r = iconv(cd, &ip, &left, &op, &ol);
    int e = errno;
    size_t used = piece - left;
    il -= used;
    sink_ucs4(s, chunk, sizeof chunk - ol);
    if (r != (size_t)-1 || e == E2BIG) {
      piece_max = ICONV_PIECE;
      continue;
    }
    if (e == EINVAL && left < il) {
      // The piece, not the input, ended inside a character; a character
      // longer than a whole piece gets a larger piece.
      if (used == 0)
        piece_max *= 2;
      continue;
    }
    sink_bad(s);
    if (e == EINVAL || il == 0)
      break; // incomplete at the end of the input; or an error reported
             // after the last byte (glibc's CP949 does so for "A2 E8"), with
             // nothing left to skip
    ip++;    // EILSEQ (or anything unexpected): skip one byte, always progress
    il--;
  }
  // Decoders that hold a character back to combine it with the next one
  // (windows-1255, windows-1258, TCVN) release it here.
  char *op = (char *)chunk;
  size_t ol = sizeof chunk;
  if (!s->stopped && iconv(cd, NULL, NULL, &op, &ol) != (size_t)-1)
    sink_ucs4(s, chunk, sizeof chunk - ol);
  iconv_release(cd, owned);
}

// Single-byte charsets decode by table (charset_sbcs.c). The tables are
// built on first use of each charset, under a lock, and never change after
// their state is published; a charset whose decoder turns out not to be a
// stateless single-byte one stays on iconv.
enum { SBCS_UNTRIED, SBCS_READY, SBCS_NONE };
static struct mp_sbcs sbcs_tables[E_COUNT];
static _Atomic uint8_t sbcs_state[E_COUNT];
static pthread_mutex_t sbcs_lock = PTHREAD_MUTEX_INITIALIZER;

// single_byte marks the charsets worth a table: one byte per character and
// no state in glibc. windows-1255, windows-1258 and TCVN hold base letters
// back to combine them, and mp_sbcs_build would refuse them anyway.
static const bool single_byte[E_COUNT] = {
    [E_8859_2] = true,  [E_8859_3] = true,  [E_8859_4] = true,   [E_8859_5] = true,
    [E_8859_6] = true,  [E_8859_7] = true,  [E_8859_8] = true,   [E_8859_9] = true,
    [E_8859_10] = true, [E_8859_13] = true, [E_8859_14] = true,  [E_8859_15] = true,
    [E_8859_16] = true, [E_874] = true,     [E_1250] = true,     [E_1251] = true,
    [E_1253] = true,    [E_1254] = true,    [E_1256] = true,     [E_1257] = true,
    [E_KOI8R] = true,   [E_KOI8U] = true,   [E_KOI8RU] = true,   [E_IBM866] = true,
    [E_IBM437] = true,  [E_IBM850] = true,  [E_IBM852] = true,   [E_MAC] = true,
    [E_MACCYR] = true,  [E_VISCII] = true,  [E_ARMSCII8] = true, [E_GEOPS] = true,
    [E_PT154] = true,   [E_KOI8T] = true,   [E_CP1125] = true,
};

static const struct mp_sbcs *sbcs_get(int id) {
  if (!single_byte[id])
    return NULL;
  uint8_t st = atomic_load_explicit(&sbcs_state[id], memory_order_acquire);
  if (st == SBCS_UNTRIED) {
    if (pthread_mutex_lock(&sbcs_lock) != 0)
      return NULL;
    st = atomic_load_explicit(&sbcs_state[id], memory_order_relaxed);
    if (st == SBCS_UNTRIED) {
      st = mp_sbcs_build(&sbcs_tables[id], cs_entries[id].iconv) ? SBCS_READY : SBCS_NONE;
      atomic_store_explicit(&sbcs_state[id], st, memory_order_release);
    }
    (void)pthread_mutex_unlock(&sbcs_lock);
  }
  return st == SBCS_READY ? &sbcs_tables[id] : NULL;
}

// ascii_block copies the next 16 bytes of `in` (8 without SSE2, or on a
// tail of 8 to 15 bytes) to `out` and returns how many of them, from the
// first, are ASCII; 0 when fewer than 8 bytes are left. `out` needs room for
// 16 bytes; only the returned count of them is meaningful.
static inline size_t ascii_block(uint8_t *out, const uint8_t *in, size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)in);
    _mm_storeu_si128((__m128i *)(void *)out, v);
    unsigned m = (unsigned)_mm_movemask_epi8(v);
    return m != 0 ? (size_t)__builtin_ctz(m) : 16;
  }
#endif
  if (n < 8)
    return 0;
  uint64_t w;
  memcpy(&w, in, 8);
  memcpy(out, in, 8);
  uint64_t h = w & 0x8080808080808080ull;
  if (h == 0)
    return 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return (size_t)__builtin_ctzll(h) >> 3;
#else
  return 0; // the byte loop takes them
#endif
}

// ascii8 tells whether the 8 bytes at `in` (of `n` left) are all ASCII;
// false when fewer than 8 are left.
static inline bool ascii8(const uint8_t *in, size_t n) {
  if (n < 8)
    return false;
  uint64_t w;
  memcpy(&w, in, 8);
  return (w & 0x8080808080808080ull) == 0;
}

#if defined(__SSE2__)
// u8_leads sets, for the 16 bytes of `v` followed by those of `after`, the
// masks of the leads (C2-F4), of those of three and four bytes, and of the
// leads whose next byte is outside their range for a second byte (Table
// 3-7: E0 needs A0-BF, ED 80-9F, F0 90-BF, F4 80-8F; a byte that is no
// continuation at all fails anyway). Signed compares: 80-FF are negative,
// so x > c for c in C0-FF holds for c+1-FF and for ASCII.
static inline void u8_leads(uint32_t m[4], __m128i v, __m128i after) {
  __m128i lead = _mm_andnot_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)0xF4)),
                                  _mm_cmpgt_epi8(v, _mm_set1_epi8((char)0xC1)));
  __m128i next = _mm_or_si128(_mm_srli_si128(v, 1), _mm_slli_si128(after, 15));
  __m128i below_a0 = _mm_cmplt_epi8(next, _mm_set1_epi8((char)0xA0));
  __m128i below_90 = _mm_cmplt_epi8(next, _mm_set1_epi8((char)0x90));
  __m128i off = _mm_or_si128(
      _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE0)), below_a0),
                   _mm_andnot_si128(below_a0, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xED)))),
      _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xF0)), below_90),
                   _mm_andnot_si128(below_90, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xF4)))));
  m[0] = (uint32_t)_mm_movemask_epi8(lead);
  m[1] = (uint32_t)_mm_movemask_epi8(
      _mm_and_si128(lead, _mm_cmpgt_epi8(v, _mm_set1_epi8((char)0xDF))));
  m[2] = (uint32_t)_mm_movemask_epi8(
      _mm_and_si128(lead, _mm_cmpgt_epi8(v, _mm_set1_epi8((char)0xEF))));
  m[3] = (uint32_t)_mm_movemask_epi8(off);
}

// u8_copy32 copies 32 bytes from `in` to `o`.
static inline void u8_copy32(uint8_t *o, const uint8_t *in) {
  __m128i a = _mm_loadu_si128((const __m128i *)(const void *)in);
  __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(in + 16));
  _mm_storeu_si128((__m128i *)(void *)o, a);
  _mm_storeu_si128((__m128i *)(void *)(o + 16), b);
}

// utf8_fix_blocks decodes text that failed the UTF-8 check 32 bytes a step
// while 100 are left (a step reads up to 99 bytes: the last piece may end 3
// bytes past its 32, and 64 bytes are copied from there), writing at `o` + *w
// (room for 3 bytes a byte of input after what is written), and returns the
// input consumed, which ends where a character starts; it sets *bad's low bit
// when it wrote U+FFFD. A step classifies its 32 bytes and the 3 after them at
// once, as bit masks, by what mp_utf8_decode_one() does from the step's first
// byte on: a byte that is not a continuation (80-BF) always starts a character;
// a continuation byte belongs to the lead up to three bytes before it when
// every byte between them continues that lead (the second in the lead's range),
// else it is a piece of its own. The pieces that are not whole characters
// (continuations on their own, C0, C1, F5-FF, and leads cut short with what
// continues them) each become U+FFFD; everything else is copied as it is, 32
// bytes a store pair. No branch per character: text that fails the check is
// mostly noise (a body decoded with the wrong transfer encoding) or another
// charset, whose byte classes the branch predictor cannot guess, while text
// with a rare bad byte is copied a block a step. Leads are needed in the 32
// bytes only: one after them takes no byte that a character begun in them
// takes.
static size_t utf8_fix_blocks(uint8_t *o, size_t *w, unsigned *bad, const uint8_t *in, size_t n) {
  static const uint8_t fffd[4] = {0xEF, 0xBF, 0xBD, 0};
  const __m128i c0 = _mm_set1_epi8((char)0xC0);
  size_t i = 0, b = *w;
  unsigned ill = 0;
  while (n - i >= 100) {
    // Runs of ASCII go 64 bytes a step (any block with an 8-bit byte ends
    // such a run), while a step's 100 bytes remain after the block.
    for (; n - i >= 64 + 100; i += 64, b += 64) {
      __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
      __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 16));
      __m128i a2 = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 32));
      __m128i a3 = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 48));
      if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3))) != 0)
        break;
      _mm_storeu_si128((__m128i *)(void *)(o + b), a0);
      _mm_storeu_si128((__m128i *)(void *)(o + b + 16), a1);
      _mm_storeu_si128((__m128i *)(void *)(o + b + 32), a2);
      _mm_storeu_si128((__m128i *)(void *)(o + b + 48), a3);
    }
    __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
    __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 16));
    uint64_t high = (uint64_t)_mm_movemask_epi8(v0) | (uint64_t)_mm_movemask_epi8(v1) << 16;
    if (high == 0) {
      _mm_storeu_si128((__m128i *)(void *)(o + b), v0);
      _mm_storeu_si128((__m128i *)(void *)(o + b + 16), v1);
      i += 32;
      b += 32;
      continue;
    }
    if ((high & (high - 1)) == 0 && high < 1u << 31) {
      // One 8-bit byte between ASCII ones (a stray Latin-1 letter) is a
      // piece on its own, whatever it is.
      size_t p = (size_t)__builtin_ctzll(high);
      u8_copy32(o + b, in + i);
      memcpy(o + b + p, fffd, 4);
      u8_copy32(o + b + p + 3, in + i + p + 1);
      ill = 1;
      i += 32;
      b += 34;
      continue;
    }
    __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 32));
    uint64_t cont = (uint64_t)_mm_movemask_epi8(_mm_cmplt_epi8(v0, c0)) |
                    (uint64_t)_mm_movemask_epi8(_mm_cmplt_epi8(v1, c0)) << 16 |
                    (uint64_t)_mm_movemask_epi8(_mm_cmplt_epi8(v2, c0)) << 32;
    uint32_t m0[4], m1[4];
    u8_leads(m0, v0, v1);
    u8_leads(m1, v1, v2);
    uint64_t lead = m0[0] | (uint64_t)m1[0] << 16, lead3 = m0[1] | (uint64_t)m1[1] << 16;
    uint64_t lead4 = m0[2] | (uint64_t)m1[2] << 16, off = m0[3] | (uint64_t)m1[3] << 16;
    // okN: a lead whose next N bytes continue it.
    uint64_t ok1 = lead & (cont >> 1) & ~off;
    uint64_t ok2 = ok1 & lead3 & (cont >> 2);
    uint64_t ok3 = ok2 & lead4 & (cont >> 3);
    uint64_t whole = (ok1 & ~lead3) | (ok2 & ~lead4) | ok3;
    uint64_t taken = ok1 << 1 | ok2 << 2 | ok3 << 3; // bytes a lead before them takes
    uint64_t pieces = ~taken & (cont | (high & ~cont & ~lead) | (lead & ~whole)) & 0xFFFFFFFFu;
    size_t end = 32 + (size_t)__builtin_ctzll(~(taken >> 32)); // the next start
    size_t q = 0;                                              // copied up to here
    ill |= pieces != 0;
    while (pieces != 0) {
      size_t p = (size_t)__builtin_ctzll(pieces);
      u8_copy32(o + b, in + i + q);
      b += p - q;
      memcpy(o + b, fffd, 4);
      b += 3;
      q = p + 1 + (size_t)__builtin_ctzll(~(taken >> (p + 1)));
      pieces &= pieces - 1;
    }
    // The rest, up to 35 bytes.
    u8_copy32(o + b, in + i + q);
    u8_copy32(o + b + 32, in + i + q + 32);
    b += end - q;
    i += end;
  }
  *w = b;
  *bad |= ill;
  return i;
}
#endif

// decode_utf8 handles text that failed the validity check: runs of ASCII and of
// well-formed characters are copied, every ill-formed sequence becomes U+FFFD.
// With SSE2, utf8_fix_blocks takes all but the last 68 to 99 bytes when the
// output has room; the loop, the rest. Short pieces gather in a local block, so
// that text with many bad bytes (a body decoded from a wrong transfer encoding
// is noise) costs a few stores per byte, not a sink call per byte; the sink's
// bound is never reached here (at most 3 output bytes per input byte).
static void decode_utf8(struct cs_sink *s, const uint8_t *in, size_t n) {
  static const uint8_t fffd[3] = {0xEF, 0xBF, 0xBD};
  uint8_t buf[1024];
  size_t b = 0, i = 0;
  if (n >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF)
    i = 3; // a byte order mark says nothing to a reader
#if defined(__SSE2__)
  // Straight into the caller's buffer when it has room for the bound, as it
  // has in the usual case; not the measuring pass nor a buffer of the exact
  // length, which take the loop below for all of it.
  if (s->out != NULL && !s->stopped && s->cap - s->len >= 3 && n <= (s->cap - s->len - 3) / 3 &&
      s->limit - s->len >= 3 && n <= (s->limit - s->len - 3) / 3) {
    unsigned bad = 0;
    i += utf8_fix_blocks(s->out, &s->len, &bad, in + i, n - i);
    if (bad)
      s->flags |= MP_CHARSET_REPLACED;
  }
#endif
  while (i < n) {
    size_t a = mp_ascii_prefix_len(in + i, n - i);
    if (a > 0) {
      if (a > sizeof buf / 4) {
        // A long run goes out as it is, after what the block holds.
        sink_bytes(s, buf, b);
        b = 0;
        sink_bytes(s, in + i, a);
      } else {
        if (b + a > sizeof buf) {
          sink_bytes(s, buf, b);
          b = 0;
        }
        memcpy(buf + b, in + i, a);
        b += a;
      }
      i += a;
      if (i >= n)
        break;
    }
    // One character, or one ill-formed sequence (4 bytes of room at most).
    uint32_t cp;
    int bad = 0;
    size_t k = mp_utf8_decode_one(in + i, n - i, &cp, &bad);
    if (b + 4 > sizeof buf) {
      sink_bytes(s, buf, b);
      b = 0;
    }
    if (bad) {
      s->flags |= MP_CHARSET_REPLACED;
      memcpy(buf + b, fffd, 3);
      b += 3;
    } else {
      memcpy(buf + b, in + i, k);
      b += k;
    }
    i += k;
  }
  sink_bytes(s, buf, b);
}

#if defined(__SSE2__)
// count16 counts the set bits of a 16-bit mask by two lookups of a byte's
// count (without the POPCNT instruction __builtin_popcount is a library
// call, and the bit-parallel count costs four times as many instructions).
#define POP2(n) n, n + 1, n + 1, n + 2
#define POP4(n) POP2(n), POP2(n + 1), POP2(n + 1), POP2(n + 2)
#define POP6(n) POP4(n), POP4(n + 1), POP4(n + 1), POP4(n + 2)
static const uint8_t pop8[256] = {POP6(0), POP6(1), POP6(1), POP6(2)};
#undef POP2
#undef POP4
#undef POP6

static inline unsigned count16(unsigned m) {
  return (unsigned)pop8[m & 0xFFu] + pop8[m >> 8];
}

// sbcs_blocks decodes 16-byte blocks of `in` by a table that keeps ASCII as
// is, while 32 bytes are left, writing at `o` + *b; it returns the input
// consumed. A block of ASCII is one store. In a block with 8-bit bytes, one
// to eight of them (Latin text) are looked up one by one, each ASCII gap
// before them stored with one 16-byte load and store from the gap's start
// (which is why 32 bytes must be left); more than eight (Cyrillic, Greek,
// Big5 sent as Latin-1) and all 16 bytes are looked up. Stores end at most
// 16 bytes after 3 times the input consumed, inside 3 * n.
static size_t sbcs_blocks(uint8_t *o, size_t *b, unsigned *bad, const struct mp_sbcs *t,
                          const uint8_t *in, size_t n) {
  size_t i = 0, w = *b;
  unsigned acc = 0; // in a register, not through *bad
  for (; n - i >= 32; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
    unsigned m = (unsigned)_mm_movemask_epi8(v);
    if (m == 0) {
      _mm_storeu_si128((__m128i *)(void *)(o + w), v);
      w += 16;
    } else if (count16(m) > 8) {
      for (size_t k = 0; k < 16; k++)
        w += mp_sbcs_put(o + w, &acc, t->u8, t->len, in[i + k]);
    } else {
      size_t q = i;
      do {
        size_t p = i + (size_t)__builtin_ctz(m);
        _mm_storeu_si128((__m128i *)(void *)(o + w),
                         _mm_loadu_si128((const __m128i *)(const void *)(in + q)));
        w += p - q;
        w += mp_sbcs_put(o + w, &acc, t->u8, t->len, in[p]);
        q = p + 1;
        m &= m - 1;
      } while (m != 0);
      _mm_storeu_si128((__m128i *)(void *)(o + w),
                       _mm_loadu_si128((const __m128i *)(const void *)(in + q)));
      w += i + 16 - q;
    }
  }
  *b = w;
  *bad |= acc;
  return i;
}
#endif

// sbcs_run decodes `in` by table `t` into `o` and returns the bytes written,
// adding MP_CHARSET_REPLACED to *flags for an unmapped byte. `o` needs room
// for 3 * n + 1 bytes: the output is at most 3 bytes a byte, a mapped
// character is stored as its 4 bytes of room, and the 16-byte stores of
// ASCII are made only where enough input is left to keep them inside 3 * n.
// A kernel's block loop (`sc`'s sbcs_blocks, when it has one) goes first,
// then with SSE2 sbcs_blocks takes all but the last 16 to 31 bytes.
//
// Otherwise, and for that tail, when the table keeps ASCII as is, runs of
// it are stored a block at a time and the output grows by the block's
// ASCII prefix. From an 8-bit byte on, bytes go by lookup, ASCII ones too,
// until 8 ASCII bytes in a row come: text in another script mislabelled as
// ASCII or Latin-1 mixes 8-bit and ASCII bytes closely (Big5's second bytes
// are often ASCII letters).
static size_t sbcs_run(uint8_t *o, unsigned *flags, const struct mp_sbcs *t, const uint8_t *in,
                       size_t n, const mp_scanner *sc) {
  const bool ascii = t->ascii;
  size_t b = 0, i = 0;
  unsigned bad = 0;
  if (ascii && sc != NULL && sc->sbcs_blocks != NULL)
    i = sc->sbcs_blocks(o, &b, &bad, t->u8, t->len, in, n);
#if defined(__SSE2__)
  if (ascii)
    i += sbcs_blocks(o, &b, &bad, t, in + i, n - i);
#endif
  while (i < n) {
    if (ascii) {
      size_t a;
      do {
        a = ascii_block(o + b, in + i, n - i);
        b += a;
        i += a;
        // A whole block of ASCII: the next one. Otherwise in[i] is the
        // 8-bit byte that ended the block (or a byte of a short tail).
      } while (a != 0 && i < n && in[i] < 0x80);
      if (i == n)
        break;
    }
    do
      b += mp_sbcs_put(o + b, &bad, t->u8, t->len, in[i++]);
    while (i < n && (!ascii || in[i] >= 0x80 || !ascii8(in + i, n - i)));
  }
  if (bad & MP_SBCS_UNMAPPED)
    *flags |= MP_CHARSET_REPLACED;
  return b;
}

// decode_sbcs writes straight into the caller's buffer when it has room for
// sbcs_run's bound (the usual case: a buffer of mp_charset_utf8_max_len()),
// and otherwise (the measuring pass, or a buffer of the exact length)
// through a local block, a slice of input at a time.
static void decode_sbcs(struct cs_sink *s, const struct mp_sbcs *t, const uint8_t *in, size_t n) {
  const mp_scanner *sc = mp_scanner_get();
  if (s->out != NULL && !s->stopped && s->cap - s->len > 0 && n <= (s->cap - s->len - 1) / 3 &&
      n <= (s->limit - s->len) / 3) {
    s->len += sbcs_run(s->out + s->len, &s->flags, t, in, n, sc);
    return;
  }
  uint8_t buf[1024];
  const size_t slice = (sizeof buf - 1) / 3;
  for (size_t i = 0; i < n; i += slice) {
    size_t k = n - i < slice ? n - i : slice;
    unsigned flags = 0;
    size_t len = sbcs_run(buf, &flags, t, in + i, k, sc);
    s->flags |= flags;
    sink_bytes(s, buf, len);
  }
}

// Windows-1252 (also what US-ASCII and ISO-8859-1 labels get) goes through
// the same table decoder, with a table made once from mp_cp1252_high():
// Latin text has an accented letter every few bytes, and a lookup of its
// ready UTF-8 form costs less than mapping and encoding it each time.
static struct mp_sbcs cp1252_table;
static pthread_once_t cp1252_once = PTHREAD_ONCE_INIT;

static void cp1252_build(void) {
  cp1252_table.ascii = true;
  for (unsigned b = 0; b < 256; b++)
    mp_sbcs_set(&cp1252_table, b, true, mp_cp1252_high((uint8_t)b));
}

static void decode_1252(struct cs_sink *s, const uint8_t *in, size_t n) {
  if (pthread_once(&cp1252_once, cp1252_build) != 0) {
    // Never in practice; decode byte by byte rather than fail.
    for (size_t i = 0; i < n; i++)
      sink_cp(s, mp_cp1252_high(in[i]));
    return;
  }
  decode_sbcs(s, &cp1252_table, in, n);
}

// The entries hold UTF-8 bytes in memory order, so the double-byte path is
// built for little-endian machines only; elsewhere iconv decodes these
// charsets (decode() below).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// Double-byte charsets (GB18030, CP932, CP949, EUC-JP-MS) decode by
// entries cached from glibc's own decoder, one per byte and one per lead
// and second byte, each asked of glibc the first time it is met: CJK text
// uses a few thousand characters, and a lookup costs a few instructions
// against iconv's per-call set-up and the UCS-4 round trip. The decoders
// chosen are stateless, so converting a text equals converting its
// characters one after the other, and an entry records exactly what
// decode_iconv does at that position: a character (both bytes consumed), an
// error (U+FFFD, one byte skipped), or DB_DEFER (sequences of three or four
// bytes, characters outside the BMP, anything unexpected), from which
// decode_iconv converts the rest of the text. Checked against decode_iconv
// on every pair with a byte after it and on random text (test_charset.c,
// fuzz_charset.c).
//
// An entry is one 32-bit word: the UTF-8 bytes in the low 24 bits (memory
// order), the length in bits 24-25 and the kind above. 0 means not asked
// yet. Entries are written once with the value glibc gives and read
// relaxed: two threads filling one write the same word.
#define DB_LEN(e) (((e) >> 24) & 3u)
#define DB_CHAR 0x04000000u  // a character: the bytes and length
#define DB_LEAD 0x08000000u  // (single bytes) starts a two-byte character
#define DB_BAD 0x10000000u   // an error: U+FFFD, skip one byte
#define DB_DEFER 0x20000000u // let iconv convert from here
enum { DB_ASCII_SAME = 1, DB_ASCII_OTHER = 2 };

struct dbcs {
  _Atomic uint8_t ascii; // 0: not asked yet; DB_ASCII_SAME: bytes below 0x80
                         // are themselves; DB_ASCII_OTHER: not all are
  _Atomic uint32_t one[256];
  _Atomic uint32_t two[128][256]; // [lead - 0x80][second byte]
};

static struct dbcs dbcs_tables[4];
static const int8_t dbcs_slot[E_COUNT] = {
    [E_GBK] = 1, [E_GB18030] = 1, [E_SJIS] = 2, [E_EUCKR] = 3, [E_EUCJP] = 4,
};

// db_ask converts `in` (1 or 2 bytes) alone with `cd` (reset first) and
// returns its entry: DB_CHAR for one BMP character from all of it with
// nothing held back, DB_LEAD for a lone high byte glibc calls incomplete,
// DB_BAD for an error at the first byte, else DB_DEFER.
static uint32_t db_ask(iconv_t cd, const uint8_t *in, size_t n) {
  (void)iconv(cd, NULL, NULL, NULL, NULL);
  char *ip = (char *)(uintptr_t)in;
  uint8_t out[16];
  char *op = (char *)out;
  size_t il = n, ol = sizeof out;
  size_t r = iconv(cd, &ip, &il, &op, &ol);
  if (r == (size_t)-1) {
    if (il != n || ol != sizeof out)
      return DB_DEFER;
    if (errno == EILSEQ)
      return DB_BAD;
    return errno == EINVAL && n == 1 && in[0] >= 0x80 ? DB_LEAD : DB_DEFER;
  }
  if (il != 0 || sizeof out - ol != 4 || iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1 ||
      sizeof out - ol != 4)
    return DB_DEFER;
  uint32_t cp =
      (uint32_t)out[0] | (uint32_t)out[1] << 8 | (uint32_t)out[2] << 16 | (uint32_t)out[3] << 24;
  if (cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return DB_DEFER;
  uint8_t u[4] = {0};
  size_t len = mp_utf8_encode_one(u, cp);
  return DB_CHAR | (uint32_t)len << 24 | (uint32_t)u[0] | (uint32_t)u[1] << 8 |
         (uint32_t)u[2] << 16;
}

// db_ascii tells whether the decoder behind `cd` maps every byte below 0x80
// to itself, converting all 128 at once.
static bool db_ascii(iconv_t cd) {
  uint8_t in[128], out[4 * 128 + 16];
  for (unsigned k = 0; k < 128; k++)
    in[k] = (uint8_t)k;
  (void)iconv(cd, NULL, NULL, NULL, NULL);
  char *ip = (char *)in, *op = (char *)out;
  size_t il = sizeof in, ol = sizeof out;
  if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 || il != 0 || sizeof out - ol != 4 * 128)
    return false;
  for (unsigned k = 0; k < 128; k++)
    if (out[4 * k] != k || out[4 * k + 1] != 0 || out[4 * k + 2] != 0 || out[4 * k + 3] != 0)
      return false;
  return true;
}

// decode_dbcs decodes `in` by table `t`, asking glibc's decoder `name` for
// entries not known yet; output gathers in a local block. The inner loop
// takes what the entries already know (ASCII runs, characters of one and
// two bytes); the rest (an entry to ask for, an error, a deferred sequence,
// a lead byte at the end) goes by the outer one.
static void decode_dbcs(struct cs_sink *s, struct dbcs *t, const char *name, const uint8_t *in,
                        size_t n) {
  static const uint8_t fffd[3] = {0xEF, 0xBF, 0xBD};
  uint8_t buf[1024];
  size_t b = 0, i = 0;
  iconv_t cd = (iconv_t)-1;
  bool owned = false;
  uint8_t ascii = atomic_load_explicit(&t->ascii, memory_order_relaxed);
  if (ascii == 0) {
    if ((cd = iconv_acquire(name, &owned)) == (iconv_t)-1) {
      decode_iconv(s, name, in, n); // which decides what to do without a decoder
      return;
    }
    ascii = db_ascii(cd) ? DB_ASCII_SAME : DB_ASCII_OTHER;
    atomic_store_explicit(&t->ascii, ascii, memory_order_relaxed);
  }
  const bool same = ascii == DB_ASCII_SAME;
  while (i < n && !s->stopped) {
    uint32_t e;
    for (;;) {
      if (b > sizeof buf - 4) {
        sink_bytes(s, buf, b);
        b = 0;
      }
      if (i == n)
        break;
      const uint8_t c = in[i];
      if (c < 0x80 && same) {
        // A run of ASCII (markup, Latin words, spaces between CJK phrases)
        // is copied, not looked up byte by byte.
        size_t a = mp_ascii_prefix_len(in + i, n - i);
        if (a > sizeof buf - 4 - b) {
          sink_bytes(s, buf, b);
          b = 0;
          sink_bytes(s, in + i, a);
        } else {
          memcpy(buf + b, in + i, a);
          b += a;
        }
        i += a;
        continue;
      }
      e = atomic_load_explicit(&t->one[c], memory_order_relaxed);
      if (e & DB_CHAR) {
        memcpy(buf + b, &e, 4); // little-endian: the low 3 bytes
        b += DB_LEN(e);
        i++;
        continue;
      }
      if (!(e & DB_LEAD) || n - i < 2)
        break;
      e = atomic_load_explicit(&t->two[c - 0x80][in[i + 1]], memory_order_relaxed);
      if (!(e & DB_CHAR))
        break;
      memcpy(buf + b, &e, 4);
      b += DB_LEN(e);
      i += 2;
    }
    if (i == n)
      break;
    // The slow step, at in[i]: ask for what is not known, then act on it.
    const uint8_t *p = in + i;
    e = atomic_load_explicit(&t->one[p[0]], memory_order_relaxed);
    if ((e == 0 || (e & DB_LEAD)) && cd == (iconv_t)-1 &&
        (cd = iconv_acquire(name, &owned)) == (iconv_t)-1) {
      e = DB_DEFER; // decode_iconv decides what to do without a decoder
    } else if (e == 0 || (e & DB_LEAD)) {
      if (e == 0) {
        e = db_ask(cd, p, 1);
        atomic_store_explicit(&t->one[p[0]], e, memory_order_relaxed);
      }
      if ((e & DB_LEAD) && n - i < 2) {
        e = DB_DEFER; // at the end: iconv reports it incomplete
      } else if (e & DB_LEAD) {
        _Atomic uint32_t *pe = &t->two[p[0] - 0x80][p[1]];
        e = atomic_load_explicit(pe, memory_order_relaxed);
        if (e == 0) {
          e = db_ask(cd, p, 2);
          atomic_store_explicit(pe, e, memory_order_relaxed);
        }
        if (e & DB_CHAR) {
          memcpy(buf + b, &e, 4);
          b += DB_LEN(e);
          i += 2;
          continue;
        }
      }
    }
    if (e & DB_CHAR) {
      memcpy(buf + b, &e, 4);
      b += DB_LEN(e);
      i++;
    } else if (e & DB_BAD) {
      memcpy(buf + b, fffd, 3);
      b += 3;
      s->flags |= MP_CHARSET_REPLACED;
      i++;
    } else {
      // From here iconv converts the rest, exactly as decode_iconv would
      // have from the start: glibc's CP949 consumes some pairs without
      // output and then misreads the next byte, so what follows a deferred
      // sequence is not always what the entries say.
      sink_bytes(s, buf, b);
      if (cd != (iconv_t)-1)
        iconv_release(cd, owned);
      decode_iconv(s, name, p, n - i);
      return;
    }
  }
  if (b > 0) // empty input: buf was never written
    sink_bytes(s, buf, b);
  if (cd != (iconv_t)-1)
    iconv_release(cd, owned);
}
#endif // little-endian: the double-byte entries

static void decode(struct cs_sink *s, int id, const uint8_t *in, size_t n) {
  const struct cs_entry *e = &cs_entries[id];
  if (e->kind == CS_ICONV) {
    const struct mp_sbcs *t = sbcs_get(id);
    if (t != NULL) {
      decode_sbcs(s, t, in, n);
      return;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (dbcs_slot[id] != 0) {
      decode_dbcs(s, &dbcs_tables[dbcs_slot[id] - 1], e->iconv, in, n);
      return;
    }
#endif
  }
  switch ((enum cs_kind)e->kind) {
  case CS_UTF8:
    decode_utf8(s, in, n);
    break;
  case CS_WIN1252:
    decode_1252(s, in, n);
    break;
  case CS_UTF16:
  case CS_UTF16BE:
  case CS_UTF16LE:
    decode_utf16(s, in, n, (enum cs_kind)e->kind);
    break;
  case CS_ICONV:
    decode_iconv(s, e->iconv, in, n);
    break;
  case CS_UNKNOWN:
  default:
    decode_unknown(s, in, n);
    break;
  }
}

size_t mp_charset_utf8_max_len(size_t in_len) {
  if (in_len > (SIZE_MAX - 3) / 3)
    return SIZE_MAX;
  return 3 * in_len + 3;
}

static int alias_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const struct cs_alias *)elem)->key);
}

int mp_charset_lookup_general(const char *name, size_t name_len) {
  if (name == NULL || name_len == 0 || name_len > MP_CHARSET_MAX_NAME_LEN)
    return MP_CHARSET_ID_UNKNOWN;
  char key[MP_CHARSET_MAX_NAME_LEN + 1];
  size_t k = 0;
  for (size_t i = 0; i < name_len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c == '*')
      break; // RFC 2231 language suffix
    if (c >= 'A' && c <= 'Z')
      key[k++] = (char)(c + ('a' - 'A'));
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      key[k++] = (char)c;
  }
  key[k] = '\0';
  if (k == 0)
    return MP_CHARSET_ID_UNKNOWN;
  // The labels on nearly all real mail, before the binary search (which
  // cost about 300 instructions a lookup); every_alias_finds_its_entry in
  // the tests checks that these give the table's ids.
  // Keys are zero-padded arrays, so that k + 1 bytes (with key's NUL)
  // compare exactly.
  static const struct {
    char key[12];
    uint8_t id;
  } common[] = {
      {"utf8", E_UTF8},        {"usascii", E_1252},      {"iso88591", E_1252},
      {"windows1252", E_1252}, {"iso885915", E_8859_15},
  };
  if (k < sizeof common[0].key)
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
      if (memcmp(key, common[i].key, k + 1) == 0)
        return common[i].id;
  const struct cs_alias *a = bsearch(key, cs_aliases, sizeof cs_aliases / sizeof cs_aliases[0],
                                     sizeof cs_aliases[0], alias_cmp);
  return a != NULL ? a->id : MP_CHARSET_ID_UNKNOWN;
}

// The labels on nearly all mail, spelt as mail spells them, which
// mp_charset_lookup() finds without normalising the name or searching the
// table (both cost more than the rest of converting a short part).
static const struct {
  uint8_t len;
  uint8_t id;
  char name[15];
} common_names[] = {
    {8, E_1252, "us-ascii"},
    {5, E_UTF8, "utf-8"},
    {10, E_1252, "iso-8859-1"},
    {12, E_1252, "windows-1252"},
    {11, E_8859_15, "iso-8859-15"},
    {14, E_1252, "ansi_x3.4-1968"},
    {14, E_1252, "ansi-x3.4-1968"},
    {4, E_UTF8, "utf8"},
    {6, E_GBK, "gb2312"},
    {11, E_2022JP, "iso-2022-jp"},
    {6, E_KOI8R, "koi8-r"},
    {12, E_1251, "windows-1251"},
    {9, E_SJIS, "shift_jis"},
    {10, E_8859_2, "iso-8859-2"},
    {4, E_BIG5, "big5"},
    {6, E_EUCKR, "euc-kr"},
};

// fold_name makes every byte with bit 6 set (letters among them) as if it
// had bit 5 set too: 'A' and 'a' become one byte, as do '_' and DEL, '@'
// and '`', and two bytes of 0xC0-0xFF. Bytes made equal are always the
// same letter or both punctuation, which the general lookup drops; so a
// name whose folded bytes equal a common name's has that name's id.
static inline uint64_t fold_name(uint64_t w) {
  return w | ((w >> 1) & 0x2020202020202020ull);
}

// name_key loads a name of 4 to 16 bytes as two words: its first and last
// 4 bytes below 8 bytes, its first and last 8 otherwise (overlapping: with
// the length they are the whole name), folded.
static inline void name_key(uint64_t key[2], const char *p, size_t len) {
  if (len < 8) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + len - 4, 4);
    key[0] = fold_name(a);
    key[1] = fold_name(b);
  } else {
    memcpy(&key[0], p, 8);
    memcpy(&key[1], p + len - 8, 8);
    key[0] = fold_name(key[0]);
    key[1] = fold_name(key[1]);
  }
}

int mp_charset_lookup(const char *name, size_t name_len) {
  if (name != NULL && name_len >= 4 && name_len <= 16) {
    uint64_t key[2], want[2];
    name_key(key, name, name_len);
    for (size_t i = 0; i < sizeof common_names / sizeof common_names[0]; i++) {
      if (common_names[i].len != name_len)
        continue;
      name_key(want, common_names[i].name, name_len);
      if (key[0] == want[0] && key[1] == want[1])
        return common_names[i].id;
    }
  }
  return mp_charset_lookup_general(name, name_len);
}

const char *mp_charset_name(int id) {
  if (id <= 0 || id >= E_COUNT)
    return cs_entries[E_UNKNOWN].name;
  return cs_entries[id].name;
}

// text_is_plain_ascii tells whether every byte of `in` is below 0x80 (when
// `printable` is false) or is printable ASCII, tab, LF or CR (when it is
// true), 64 bytes a step with SSE2 (the x86-64 baseline) and 8 at a time
// elsewhere. Pure ASCII is most of the text in mail, and it is already UTF-8.
static bool text_is_plain_ascii(const uint8_t *in, size_t n, bool printable) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i hi = _mm_set1_epi8((char)0x80);
  // Signed compares: bytes >= 0x80 are negative, so "below 0x20" (as signed)
  // catches the C0 controls and every 8-bit byte at once; DEL is 0x7F.
  const __m128i sp = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
  const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; n - i >= 64; i += 64) {
    __m128i bad = _mm_setzero_si128();
    for (int k = 0; k < 4; k++) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(in + i + 16 * k));
      if (!printable) {
        bad = _mm_or_si128(bad, _mm_and_si128(v, hi));
        continue;
      }
      __m128i low = _mm_cmplt_epi8(v, sp);
      __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf)),
                                _mm_cmpeq_epi8(v, cr));
      bad = _mm_or_si128(bad, _mm_or_si128(_mm_andnot_si128(ws, low), _mm_cmpeq_epi8(v, del)));
    }
    if (_mm_movemask_epi8(bad) != 0)
      return false;
  }
#endif
  if (!printable) {
    for (; n - i >= 8; i += 8) {
      uint64_t w;
      memcpy(&w, in + i, 8);
      if (w & 0x8080808080808080ull)
        return false;
    }
  }
  for (; i < n; i++) {
    uint8_t c = in[i];
    if (c >= 0x80 ||
        (printable && (c == 0x7F || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))))
      return false;
  }
  return true;
}

// ascii_identity tells whether text of only printable ASCII, tab and line
// breaks converts to itself from charset `id` (and, for UTF-8 and
// Windows-1252, any ASCII at all). Not for UTF-16/32 (other code units),
// UTF-7 ('+' opens an encoded run) or an unknown charset (it is flagged).
// Every other charset in the table is ASCII in that range: the ISO-2022
// forms start in ASCII and change only at ESC, SO or SI, which are controls.
static int ascii_identity(int id) {
  const struct cs_entry *e = &cs_entries[id];
  if (e->kind == CS_UTF8 || e->kind == CS_WIN1252)
    return 2; // every ASCII byte, controls and NUL included
  if (e->kind != CS_ICONV || id == E_UTF7 || id == E_UTF32 || id == E_UTF32BE || id == E_UTF32LE)
    return 0;
  return 1;
}

int mp_charset_to_utf8_id(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags,
                          int charset_id, const uint8_t *in, size_t in_len) {
  if (out_len == NULL || out_flags == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  *out_flags = 0;
  if ((out == NULL && out_cap != 0) || (in == NULL && in_len != 0))
    return MP_ERR_INVALID_ARGUMENT;
  if (charset_id < 0 || charset_id >= E_COUNT)
    charset_id = E_UNKNOWN;
  struct cs_sink s = {.limit = mp_charset_utf8_max_len(in_len)};
  if (in_len == 0) {
    if (charset_id == E_UNKNOWN)
      *out_flags = MP_CHARSET_UNKNOWN;
    return 0;
  }
  if (cs_entries[charset_id].kind == CS_UTF8) {
    // Well-formed text, nearly all UTF-8 in mail, converts to itself: one
    // vector check and one copy instead of a decode per character.
    size_t bom = in_len >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF ? 3 : 0;
    if (mp_scanner_get()->utf8_valid(in + bom, in_len - bom)) {
      if (out_cap < in_len - bom)
        return MP_ERR_BUFFER_TOO_SMALL;
      if (in_len > bom)
        memcpy(out, in + bom, in_len - bom);
      *out_len = in_len - bom;
      return 0;
    }
  }
  int ident = ascii_identity(charset_id);
  if (ident != 0 && text_is_plain_ascii(in, in_len, ident == 1)) {
    if (out_cap < in_len)
      return MP_ERR_BUFFER_TOO_SMALL;
    memcpy(out, in, in_len);
    *out_len = in_len;
    return 0;
  }
  if (out_cap < s.limit) {
    // Measure first, so that a buffer that is too small stays untouched.
    decode(&s, charset_id, in, in_len);
    if (s.len > out_cap)
      return MP_ERR_BUFFER_TOO_SMALL;
    s = (struct cs_sink){.limit = s.limit};
  }
  s.out = (uint8_t *)out;
  s.cap = out_cap;
  decode(&s, charset_id, in, in_len);
  if (s.overflow)
    return MP_ERR_BUFFER_TOO_SMALL; // iconv disagreed with itself; report nothing
  *out_len = s.len;
  *out_flags = s.flags;
  return 0;
}

int mp_charset_to_utf8(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags,
                       const char *charset, size_t charset_len, const uint8_t *in, size_t in_len) {
  if (charset == NULL && charset_len != 0)
    return MP_ERR_INVALID_ARGUMENT;
  return mp_charset_to_utf8_id(out, out_cap, out_len, out_flags,
                               mp_charset_lookup(charset, charset_len), in, in_len);
}

size_t mp_charset_alias_count(void) {
  return sizeof cs_aliases / sizeof cs_aliases[0];
}

const char *mp_charset_alias_get(size_t i, int *id) {
  if (i >= mp_charset_alias_count())
    return NULL;
  *id = cs_aliases[i].id;
  return cs_aliases[i].key;
}

int mp_charset_iconv_ref(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags, int id,
                         const uint8_t *in, size_t in_len) {
  if (id < 0 || id >= E_COUNT || cs_entries[id].kind != CS_ICONV || out_len == NULL ||
      out_flags == NULL || out_cap < mp_charset_utf8_max_len(in_len))
    return MP_ERR_INVALID_ARGUMENT;
  struct cs_sink s = {
      .out = (uint8_t *)out, .cap = out_cap, .limit = mp_charset_utf8_max_len(in_len)};
  decode_iconv(&s, cs_entries[id].iconv, in, in_len); // decode()'s CS_ICONV case, tables skipped
  *out_len = s.len;
  *out_flags = s.flags;
  return s.overflow ? MP_ERR_BUFFER_TOO_SMALL : 0;
}

const struct mp_sbcs *mp_sbcs_table(int id) {
  if (id < 0 || id >= E_COUNT)
    return NULL;
  if (cs_entries[id].kind == CS_WIN1252)
    return pthread_once(&cp1252_once, cp1252_build) == 0 ? &cp1252_table : NULL;
  return cs_entries[id].kind == CS_ICONV ? sbcs_get(id) : NULL;
}

size_t mp_sbcs_run_with(uint8_t *out, unsigned *flags, const struct mp_sbcs *t, const uint8_t *in,
                        size_t in_len, const struct mp_scanner *sc) {
  return sbcs_run(out, flags, t, in, in_len, sc);
}
