// test_charset.c: charset conversion to UTF-8 (src/charset.c): name matching
// and aliases, the built-in Windows-1252/Latin-1 tables byte by byte against
// the C library's iconv, UTF-8 validation (every overlong, surrogate and
// out-of-range class, and exhaustively over short sequences against an
// independent validator), UTF-16 byte orders, iconv charsets on known text,
// iconv output of every UTF-8 length, single-byte charsets' tables against
// glibc's own conversion, the double-byte charsets' cached entries against
// the iconv path (every pair, and random text), unknown
// charsets, the output bound on adversarial input, buffer handling and use
// from several threads.
#include <check.h>
#include <iconv.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charset_internal.h"
#include "core_internal.h"
#include "corvid_libtest.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

// conv converts with a buffer of exactly the bound and checks the invariants
// every call must keep; it returns the output in a static buffer. It also
// converts into a buffer of exactly the output's length, which takes the
// measuring pass and the decoders' buffered paths (the table decoder writes
// straight into a buffer of the bound), and checks both agree.
static char conv_buf[1 << 20];
static char conv_exact[1 << 20];
static size_t conv_len;
static unsigned conv_flags;

static const char *conv(const char *cs, const void *in, size_t in_len) {
  // Plain ifs, not ck_assert: Check reports every assertion's location to
  // its parent process, which would dominate the exhaustive loops.
  size_t cap = mp_charset_utf8_max_len(in_len);
  if (cap > sizeof conv_buf - 1)
    ck_abort_msg("input too long for the test buffer");
  int rc = mp_charset_to_utf8(conv_buf, cap, &conv_len, &conv_flags, cs, strlen(cs), in, in_len);
  if (rc != 0 || conv_len > cap || !corvid_utf8_valid((const uint8_t *)conv_buf, conv_len))
    ck_abort_msg("%s: rc %d, %zu of %zu bytes, or invalid UTF-8", cs, rc, conv_len, cap);
  size_t exact_len;
  unsigned exact_flags;
  rc = mp_charset_to_utf8(conv_exact, conv_len, &exact_len, &exact_flags, cs, strlen(cs), in,
                          in_len);
  if (rc != 0 || exact_len != conv_len || exact_flags != conv_flags ||
      memcmp(conv_exact, conv_buf, conv_len) != 0)
    ck_abort_msg("%s: rc %d, a buffer of the exact length gives other output", cs, rc);
  conv_buf[conv_len] = '\0';
  return conv_buf;
}

// Names.

START_TEST(max_len_is_three_per_byte_plus_three) {
  ck_assert_uint_eq(mp_charset_utf8_max_len(0), 3);
  ck_assert_uint_eq(mp_charset_utf8_max_len(1), 6);
  ck_assert_uint_eq(mp_charset_utf8_max_len(1000), 3003);
  ck_assert_uint_eq(mp_charset_utf8_max_len((SIZE_MAX - 3) / 3), (SIZE_MAX - 3) / 3 * 3 + 3);
  ck_assert_uint_eq(mp_charset_utf8_max_len((SIZE_MAX - 3) / 3 + 1), SIZE_MAX);
  ck_assert_uint_eq(mp_charset_utf8_max_len(SIZE_MAX), SIZE_MAX);
}
END_TEST

START_TEST(every_alias_finds_its_entry) {
  size_t n = mp_charset_alias_count();
  ck_assert_uint_gt(n, 200);
  for (size_t i = 0; i < n; i++) {
    int id;
    const char *key = mp_charset_alias_get(i, &id);
    ck_assert_ptr_nonnull(key);
    ck_assert_int_gt(id, 0);
    ck_assert_msg(mp_charset_lookup(key, strlen(key)) == id, "alias %s", key);
    if (i > 0) {
      int prev_id;
      ck_assert_msg(strcmp(mp_charset_alias_get(i - 1, &prev_id), key) < 0, "order at %s", key);
    }
  }
  int id;
  ck_assert_ptr_null(mp_charset_alias_get(n, &id));
}
END_TEST

static const struct {
  const char *label;
  const char *canonical;
} names[] = {
    {"UTF-8", "UTF-8"},
    {"utf8", "UTF-8"},
    {"UTF_8", "UTF-8"},
    {"  \"Utf-8\" ", "UTF-8"},
    {"unicode-1-1-utf-8", "UTF-8"},
    {"us-ascii", "windows-1252"},
    {"US-ASCII*en", "windows-1252"},
    {"ANSI_X3.4-1968", "windows-1252"},
    {"ISO-8859-1", "windows-1252"},
    {"iso_8859-1:1987", "windows-1252"},
    {"latin1", "windows-1252"},
    {"l1", "windows-1252"},
    {"cp1252", "windows-1252"},
    {"x-cp1252", "windows-1252"},
    {"ISO-8859-15", "ISO-8859-15"},
    {"latin-9", "ISO-8859-15"},
    {"iso-8859-8-i", "ISO-8859-8"},
    {"UTF-16", "UTF-16"},
    {"utf-16le", "UTF-16LE"},
    {"UTF-16BE", "UTF-16BE"},
    {"ks_c_5601-1987", "EUC-KR"},
    {"euc-kr", "EUC-KR"},
    {"x-sjis", "Shift_JIS"},
    {"shift-jis", "Shift_JIS"},
    {"Windows-31J", "Shift_JIS"},
    {"GB2312", "GBK"},
    {"gb_2312-80", "GBK"},
    {"gb18030", "GB18030"},
    {"big5", "Big5"},
    {"big5-hkscs", "Big5"},
    {"iso-2022-jp", "ISO-2022-JP"},
    {"csISO2022JP", "ISO-2022-JP"},
    {"koi8-r", "KOI8-R"},
    {"KOI8-U", "KOI8-U"},
    {"windows-1251", "windows-1251"},
    {"tis-620", "windows-874"},
    {"x-mac-roman", "macintosh"},
    {"utf-7", "UTF-7"},
};

START_TEST(labels_match_ignoring_case_and_punctuation) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    int id = mp_charset_lookup(names[i].label, strlen(names[i].label));
    ck_assert_msg(id > 0, "%s unknown", names[i].label);
    ck_assert_str_eq(mp_charset_name(id), names[i].canonical);
  }
}
END_TEST

START_TEST(unknown_names) {
  static const char *const unknown[] = {"", "utf-9", "x-unknown", "*utf-8", "---", "utf-8x"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    ck_assert_int_eq(mp_charset_lookup(unknown[i], strlen(unknown[i])), MP_CHARSET_ID_UNKNOWN);
  ck_assert_int_eq(mp_charset_lookup(NULL, 0), MP_CHARSET_ID_UNKNOWN);
  // Too long, although it normalises to a known name.
  char longname[MP_CHARSET_MAX_NAME_LEN + 2];
  memset(longname, '-', sizeof longname);
  memcpy(longname, "utf8", 4);
  ck_assert_int_eq(mp_charset_lookup(longname, MP_CHARSET_MAX_NAME_LEN), 1);
  ck_assert_int_eq(mp_charset_lookup(longname, MP_CHARSET_MAX_NAME_LEN + 1), 0);
  // A NUL inside the name is punctuation, not an end.
  ck_assert_int_gt(mp_charset_lookup("utf\0"
                                     "8",
                                     5),
                   0);
  ck_assert_str_eq(mp_charset_name(0), "unknown");
  ck_assert_str_eq(mp_charset_name(-1), "unknown");
  ck_assert_str_eq(mp_charset_name(100000), "unknown");
}
END_TEST

// mp_charset_lookup's first step (common spellings of common labels matched
// as they are) against the general lookup it stands in for: every common
// spelling in every mix of case, with each byte replaced by every byte, cut
// short, lengthened, with a language suffix, and random names.
static void check_lookup(const char *name, size_t len) {
  int got = mp_charset_lookup(name, len), want = mp_charset_lookup_general(name, len);
  if (got != want)
    ck_abort_msg("\"%.*s\" (%zu bytes): %d, general lookup %d", (int)len, name, len, got, want);
}

START_TEST(lookup_first_step_matches_general) {
  static const char *const spellings[] = {
      "us-ascii",       "utf-8",          "iso-8859-1", "windows-1252", "iso-8859-15",
      "ansi_x3.4-1968", "ansi-x3.4-1968", "utf8",       "gb2312",       "iso-2022-jp",
      "koi8-r",         "windows-1251",   "shift_jis",  "iso-8859-2",   "big5",
      "euc-kr",         "utf-16",         "latin1",     "iso-8859-8-i", "x-sjis",
  };
  char buf[32];
  for (size_t s = 0; s < sizeof spellings / sizeof spellings[0]; s++) {
    size_t len = strlen(spellings[s]);
    ck_assert_int_gt(mp_charset_lookup(spellings[s], len), 0);
    for (unsigned mask = 0; mask < (1u << len); mask++) {
      for (size_t i = 0; i < len; i++) {
        char c = spellings[s][i];
        buf[i] = (mask >> i & 1) && c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
      }
      check_lookup(buf, len);
    }
    for (size_t i = 0; i < len; i++) {
      for (unsigned v = 0; v < 256; v++) {
        memcpy(buf, spellings[s], len);
        buf[i] = (char)v;
        check_lookup(buf, len);
        buf[len] = (char)v; // one byte more
        check_lookup(buf, len + 1);
      }
      check_lookup(spellings[s], i); // cut short
      check_lookup(spellings[s] + i, len - i);
    }
    memcpy(buf, spellings[s], len);
    memcpy(buf + len, "*en", 3);
    check_lookup(buf, len + 3);
  }
  static const char alphabet[] =
      "abcdefghijklmnopqrstuvwxyzAISOUTFW0123456789-_.*: \"\x7f\xc0\xe0@`";
  uint32_t x = 12345;
  for (unsigned r = 0; r < 200000; r++) {
    x = x * 1103515245u + 12345u;
    size_t len = 1 + (x >> 16) % 20;
    for (size_t i = 0; i < len; i++) {
      x = x * 1103515245u + 12345u;
      buf[i] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
    }
    check_lookup(buf, len);
  }
}
END_TEST

// Windows-1252 and Latin-1, byte by byte against iconv.

static size_t iconv_one(const char *cs, uint8_t b, char *out, size_t cap) {
  iconv_t cd = iconv_open("UTF-8", cs);
  ck_assert(cd != (iconv_t)-1);
  char *ip = (char *)&b, *op = out;
  size_t il = 1, ol = cap;
  size_t r = iconv(cd, &ip, &il, &op, &ol);
  iconv_close(cd);
  return r == (size_t)-1 ? 0 : cap - ol;
}

static void check_1252_table(const char *label) {
  for (unsigned b = 0; b < 256; b++) {
    uint8_t in = (uint8_t)b;
    char want[8];
    size_t wl = iconv_one("CP1252", in, want, sizeof want);
    if (wl == 0) {
      // The five bytes Windows leaves undefined decode as the C1 control.
      ck_assert_msg(b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D, "%02x", b);
      want[0] = (char)0xC2;
      want[1] = (char)b;
      wl = 2;
    }
    const char *got = conv(label, &in, 1);
    ck_assert_msg(conv_len == wl && memcmp(got, want, wl) == 0, "%s byte %02x", label, b);
    ck_assert_uint_eq(conv_flags, 0);
    if (b < 0x80 || b >= 0xA0) {
      // Outside 0x80-0x9F this is ISO-8859-1 exactly.
      wl = iconv_one("ISO-8859-1", in, want, sizeof want);
      ck_assert_msg(conv_len == wl && memcmp(got, want, wl) == 0, "latin1 %02x", b);
    }
  }
  // All bytes twice over in one call, through the ASCII-run and block paths:
  // the output is the concatenation of the single-byte outputs.
  static char want_all[2 * 256 * 3];
  size_t want_len = 0;
  for (unsigned r = 0; r < 2; r++) {
    for (unsigned b = 0; b < 256; b++) {
      uint8_t in = (uint8_t)b;
      conv(label, &in, 1);
      memcpy(want_all + want_len, conv_buf, conv_len);
      want_len += conv_len;
    }
  }
  uint8_t all[512];
  for (unsigned b = 0; b < 512; b++)
    all[b] = (uint8_t)b;
  const char *got = conv(label, all, sizeof all);
  ck_assert_uint_eq(conv_len, want_len);
  ck_assert_mem_eq(got, want_all, want_len);
  ck_assert_uint_eq(conv_flags, 0);
}

START_TEST(windows1252_table_matches_iconv) {
  check_1252_table("windows-1252");
  check_1252_table("ISO-8859-1");
  check_1252_table("us-ascii");
}
END_TEST

// ascii_as_iconv_sees_it converts `in` from `name` with the C library's
// iconv; it returns the output length, or -1 when iconv cannot open `name`.
static long ascii_as_iconv_sees_it(char *out, size_t cap, const char *name, const char *in,
                                   size_t n) {
  iconv_t cd = iconv_open("UTF-8", name);
  if (cd == (iconv_t)-1)
    return -1;
  char *ip = (char *)in, *op = out;
  size_t il = n, ol = cap;
  size_t r = iconv(cd, &ip, &il, &op, &ol);
  iconv_close(cd);
  return r == (size_t)-1 ? -1 : (long)(cap - ol);
}

START_TEST(ascii_fast_path_matches_iconv) {
  // Printable ASCII, tab and line breaks (longer than the 64-byte SIMD step,
  // with a tail) convert to themselves in every charset but UTF-16/32 and
  // UTF-7, exactly as iconv converts them; a C0 control or DEL somewhere
  // takes the full conversion, which still agrees with iconv.
  char text[300];
  size_t n = 0;
  for (int c = 0x20; c < 0x7F; c++)
    text[n++] = (char)c;
  for (; n < 290; n++)
    text[n] = "Line\tof mail\r\n"[n % 15];
  static const char ctl_at[] = {1, 0x1B, 0x7F};
  char iconv_out[4096];
  int checked = 0;
  for (int id = 1; mp_charset_name(id)[0] != 'u' || strcmp(mp_charset_name(id), "unknown") != 0;
       id++) {
    const char *name = mp_charset_name(id);
    bool wide = strncmp(name, "UTF-16", 6) == 0 || strncmp(name, "UTF-32", 6) == 0;
    if (wide || strcmp(name, "UTF-7") == 0)
      continue;
    // The library reads these labels as their supersets (see mailparse.h).
    static const char *const superset[][2] = {
        {"Shift_JIS", "CP932"},  {"EUC-JP", "EUC-JP-MS"}, {"EUC-KR", "CP949"},
        {"GBK", "GB18030"},      {"Big5", "BIG5-HKSCS"},  {"ISO-2022-JP", "ISO-2022-JP-2"},
        {"windows-874", "CP874"}};
    const char *iname = name;
    for (size_t k = 0; k < sizeof superset / sizeof superset[0]; k++)
      if (strcmp(name, superset[k][0]) == 0)
        iname = superset[k][1];
    long want = ascii_as_iconv_sees_it(iconv_out, sizeof iconv_out, iname, text, n);
    if (want < 0)
      continue; // a name glibc spells otherwise: the full path is tested elsewhere
    const char *got = conv(name, text, n);
    ck_assert_msg(conv_len == n && memcmp(got, text, n) == 0 && conv_flags == 0, "%s", name);
    ck_assert_msg((size_t)want == n && memcmp(iconv_out, text, n) == 0, "%s: iconv", name);
    checked++;
    for (size_t k = 0; k < sizeof ctl_at; k++) {
      if (strncmp(name, "ISO-2022", 8) == 0 && ctl_at[k] == 0x1B)
        continue; // ESC opens a designation there
      char with[300];
      memcpy(with, text, n);
      with[130] = ctl_at[k];
      want = ascii_as_iconv_sees_it(iconv_out, sizeof iconv_out, iname, with, n);
      got = conv(name, with, n);
      if (want >= 0 && conv_flags == 0)
        ck_assert_msg(conv_len == (size_t)want && memcmp(got, iconv_out, conv_len) == 0,
                      "%s with control %d", name, ctl_at[k]);
    }
  }
  ck_assert_int_gt(checked, 30);
  // UTF-7 is not ASCII-transparent: "+" opens Base64 (RFC 2152's example).
  const char *u7 = conv("UTF-7", "A+ImIDkQ.", 9);
  ck_assert_str_eq(u7, "A\xe2\x89\xa2\xce\x91.");
  // UTF-8 and Windows-1252 keep every ASCII byte, controls included.
  static const char ctl[] =
      "a\x01\x7f\x1b"
      "0123456789012345678901234567890123456789012345678901234567890123456789";
  ck_assert_mem_eq(conv("utf-8", ctl, sizeof ctl - 1), ctl, sizeof ctl - 1);
  ck_assert_mem_eq(conv("us-ascii", ctl, sizeof ctl - 1), ctl, sizeof ctl - 1);
  // The fast path honours a small buffer too.
  size_t len = 7;
  unsigned fl = 9;
  char small[8];
  ck_assert_int_eq(mp_charset_to_utf8(small, 4, &len, &fl, "utf-8", 5, (const uint8_t *)"hello", 5),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(len, 0);
}
END_TEST

// UTF-8.

static const struct {
  const char *name;
  const char *in;
  const char *out;
  unsigned flags;
} utf8_cases[] = {
    {"ascii", "plain text", "plain text", 0},
    {"U+0080", "\xc2\x80", "\xc2\x80", 0},
    {"U+07FF", "\xdf\xbf", "\xdf\xbf", 0},
    {"U+0800", "\xe0\xa0\x80", "\xe0\xa0\x80", 0},
    {"U+D7FF", "\xed\x9f\xbf", "\xed\x9f\xbf", 0},
    {"U+E000", "\xee\x80\x80", "\xee\x80\x80", 0},
    {"U+FFFF", "\xef\xbf\xbf", "\xef\xbf\xbf", 0},
    {"U+10000", "\xf0\x90\x80\x80", "\xf0\x90\x80\x80", 0},
    {"U+10FFFF", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", 0},
    {"overlong 2 C0", "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"overlong 2 C1", "\xc1\xbf", "\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"overlong 3", "\xe0\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"overlong 3 top", "\xe0\x9f\xbf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"overlong 4", "\xf0\x80\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"overlong 4 top", "\xf0\x8f\xbf\xbf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"high surrogate", "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"low surrogate", "\xed\xbf\xbf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"CESU pair", "\xed\xa0\xbd\xed\xb8\x80",
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"above U+10FFFF", "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"F5 lead", "\xf5\x80", "\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"FE FF", "\xfe\xff", "\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"5-byte form", "\xf8\x88\x80\x80\x80",
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 1},
    {"stray continuation", "a\x80z", "a\xef\xbf\xbdz", 1},
    {"truncated 3 at end", "a\xe2\x82", "a\xef\xbf\xbd", 1},
    {"truncated 3 then ascii", "\xe2\x82z", "\xef\xbf\xbdz", 1},
    {"truncated 4 at end", "\xf0\x9f\x98", "\xef\xbf\xbd", 1},
    {"truncated 4 then valid", "\xf0\x9f\xc3\xa9", "\xef\xbf\xbd\xc3\xa9", 1},
    {"lead then lead", "\xc3\xc3\xa9", "\xef\xbf\xbd\xc3\xa9", 1},
    {"BOM dropped", "\xef\xbb\xbfhi", "hi", 0},
    {"BOM inside kept", "h\xef\xbb\xbfi", "h\xef\xbb\xbfi", 0},
    {"NUL kept", "a\0b", "a\0b", 0},
    {"long ascii then bad", "0123456789abcdef0123456789\xff",
     "0123456789abcdef0123456789\xef\xbf\xbd", 1},
};

START_TEST(utf8_validation_table) {
  for (size_t i = 0; i < sizeof utf8_cases / sizeof utf8_cases[0]; i++) {
    size_t n = strlen(utf8_cases[i].in), want = strlen(utf8_cases[i].out);
    if (strcmp(utf8_cases[i].name, "NUL kept") == 0)
      n = want = 3;
    const char *got = conv("UTF-8", utf8_cases[i].in, n);
    ck_assert_msg(conv_len == want && memcmp(got, utf8_cases[i].out, want) == 0, "%s",
                  utf8_cases[i].name);
    ck_assert_msg(conv_flags == utf8_cases[i].flags, "%s flags", utf8_cases[i].name);
  }
}
END_TEST

// Every sequence of up to three bytes (the third byte over a sample) and
// four-byte sequences over every lead and second byte: valid input comes out
// unchanged and unflagged, invalid input flagged, output always valid.
START_TEST(utf8_exhaustive_short_sequences) {
  uint8_t in[4];
  for (unsigned a = 0; a < 256; a++) {
    for (unsigned b = 0; b < 256; b++) {
      in[0] = (uint8_t)a;
      in[1] = (uint8_t)b;
      for (unsigned len = 2; len <= 4; len++) {
        unsigned cs[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xe0, 0xff};
        for (size_t k = 0; k < (len == 2 ? 1 : sizeof cs / sizeof cs[0]); k++) {
          in[2] = (uint8_t)cs[k];
          in[3] = (uint8_t)cs[(k + 3) % (sizeof cs / sizeof cs[0])];
          if (len == 4)
            in[3] = 0x80 + (uint8_t)(k & 0x3f);
          const char *got = conv("utf-8", in, len);
          bool ok = corvid_utf8_valid(in, len);
          bool bom = len >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF;
          if (ok && !bom && (conv_len != len || memcmp(got, in, len) != 0 || conv_flags != 0))
            ck_abort_msg("valid %02x %02x %02x changed", a, b, in[2]);
          if (!ok && conv_flags != MP_CHARSET_REPLACED)
            ck_abort_msg("invalid %02x %02x %02x not flagged", a, b, in[2]);
        }
      }
    }
  }
}
END_TEST

// ref_utf8 is the specification of decoding text labelled UTF-8: a leading
// BOM dropped, then mp_utf8_decode_one() character by character, each
// ill-formed piece U+FFFD. It returns the length written to `out` (3 bytes
// a byte of room) and sets *flags.
static size_t ref_utf8(uint8_t *out, unsigned *flags, const uint8_t *in, size_t n) {
  size_t i = 0, b = 0;
  *flags = 0;
  if (n >= 3 && in[0] == 0xEF && in[1] == 0xBB && in[2] == 0xBF)
    i = 3;
  while (i < n) {
    uint32_t cp;
    int bad = 0;
    size_t k = mp_utf8_decode_one(in + i, n - i, &cp, &bad);
    if (bad) {
      memcpy(out + b, "\xef\xbf\xbd", 3);
      b += 3;
      *flags = MP_CHARSET_REPLACED;
    } else {
      memcpy(out + b, in + i, k);
      b += k;
    }
    i += k;
  }
  return b;
}

static void check_utf8_ref(const uint8_t *in, size_t n, const char *what, size_t at) {
  static uint8_t want[3 * 4096 + 3];
  unsigned want_flags;
  if (n > 4096)
    ck_abort_msg("input too long");
  size_t want_len = ref_utf8(want, &want_flags, in, n);
  // From a heap block of exactly the input's length, so that the sanitizer
  // build catches a read past its end.
  uint8_t *exact = malloc(n > 0 ? n : 1);
  ck_assert_ptr_nonnull(exact);
  if (n > 0)
    memcpy(exact, in, n);
  conv("utf-8", exact, n); // also into a buffer of the exact length
  free(exact);
  if (conv_len != want_len || conv_flags != want_flags || memcmp(conv_buf, want, want_len) != 0)
    ck_abort_msg("%s at %zu (%zu bytes): %zu bytes, flags %u; specification %zu, %u", what, at, n,
                 conv_len, conv_flags, want_len, want_flags);
}

// Text that fails the UTF-8 check against the specification (ref_utf8):
// every short piece of the bytes that matter to Table 3-7, at every offset
// in ASCII and in valid multi-byte text (so at every place of the block
// decoder's steps, their look-ahead, its ASCII runs and its tail), then
// random text of several mixes, at lengths on both sides of the blocks.
START_TEST(utf8_repair_matches_specification) {
  static const uint8_t sig[] = {0x00, 'a',  0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
                                0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf3, 0xf4, 0xf5, 0xff};
  const size_t ns = sizeof sig;
  static uint8_t buf[4096];
  for (size_t fill = 0; fill < 2; fill++) {
    for (size_t a = 0; a < ns; a++) {
      for (size_t b2 = 0; b2 < ns; b2++) {
        for (size_t c = 0; c < ns; c += 3) {
          uint8_t piece[4] = {sig[a], sig[b2], sig[c], sig[(a + c) % ns]};
          for (size_t at = 0; at < 100; at += (a + b2) % 7 + 1) {
            size_t n = 160 + at % 40;
            for (size_t k = 0; k < n; k++)
              buf[k] = fill == 0 ? (uint8_t)('a' + k % 26) : "\xc3\xa9\xe2\x82\xac"[k % 5];
            memcpy(buf + at, piece, 4);
            check_utf8_ref(buf, n, "piece", at);
          }
        }
      }
    }
  }
  // ASCII runs of every length up to 420 with a cut-short character (a
  // lead and two of its three continuations) 60 to 99 bytes before their
  // end: the block decoder's 64-byte ASCII loop must never leave fewer bytes
  // than a step reads (libFuzzer found such a run that left 97, and a
  // piece at the step's last byte whose continuations it then took made
  // the step read 1 to 3 bytes past the input).
  for (size_t n = 100; n < 420; n++) {
    for (size_t back = 60; back < 100; back++) {
      for (size_t k = 0; k < n; k++)
        buf[k] = (uint8_t)('a' + k % 26);
      memcpy(buf + n - back, "\xf1\xa0\x80", 3);
      check_utf8_ref(buf, n, "after ASCII", n - back);
    }
  }
  // Random text: uniform bytes (noise), ASCII with 8-bit bytes sprinkled
  // in, the bytes above mixed with valid characters.
  uint32_t x = 2024;
  for (unsigned r = 0; r < 6000; r++) {
    x = x * 1103515245u + 12345u;
    size_t n = (x >> 8) % 700;
    unsigned mix = r % 3;
    for (size_t k = 0; k < n;) {
      x = x * 1103515245u + 12345u;
      unsigned v = x >> 16;
      if (mix == 0) {
        buf[k++] = (uint8_t)v;
      } else if (mix == 1) {
        buf[k++] = v % 23 == 0 ? (uint8_t)(0x80 | v >> 8) : (uint8_t)('a' + v % 26);
      } else if (v % 4 == 0 && n - k >= 4) {
        static const uint8_t chars[] = {0xf0, 0x9f, 0x98, 0x80, 0xe2, 0x82, 0xac, 0xc3, 0xa9};
        memcpy(buf + k, chars + v % 5, 4);
        k += 4;
      } else {
        buf[k++] = sig[v % ns];
      }
    }
    check_utf8_ref(buf, n, "random", r);
  }
}
END_TEST

// UTF-16.

static const struct {
  const char *label;
  const char *in;
  size_t in_len;
  const char *out;
  unsigned flags;
} utf16_cases[] = {
    {"UTF-16", "\xfe\xff\x00h\x00i", 6, "hi", 0},
    {"UTF-16", "\xff\xfeh\x00i\x00", 6, "hi", 0},
    {"UTF-16", "\x00h\x00i", 4, "hi", 0}, // no BOM: big-endian (RFC 2781)
    {"UTF-16", "\x00h\x00", 3, "h\xef\xbf\xbd", 1},
    {"UTF-16", "\xd8\x3d\xde\x00", 4, "\xf0\x9f\x98\x80", 0},
    {"UTF-16", "\xd8\x3d", 2, "\xef\xbf\xbd", 1},
    {"UTF-16", "\xd8\x3d\x00\x41", 4,
     "\xef\xbf\xbd"
     "A",
     1},
    {"UTF-16", "\xde\x00\x00\x41", 4,
     "\xef\xbf\xbd"
     "A",
     1},
    {"UTF-16", "\xd8\x3d\xd8\x3d\xde\x00", 6, "\xef\xbf\xbd\xf0\x9f\x98\x80", 1},
    {"UTF-16", "\x20\xac\x00\xe9", 4, "\xe2\x82\xac\xc3\xa9", 0},
    {"UTF-16", "\xfe", 1, "\xef\xbf\xbd", 1},
    {"UTF-16LE", "\xff\xfeh\x00", 4, "h", 0},
    {"UTF-16LE", "h\x00i\x00", 4, "hi", 0},
    {"UTF-16LE", "\x3d\xd8\x00\xde", 4, "\xf0\x9f\x98\x80", 0},
    {"UTF-16LE", "\xfe\xff", 2, "\xef\xbf\xbe", 0}, // U+FFFE: not a BOM in this order
    {"UTF-16BE", "\xfe\xff\x00h", 4, "h", 0},
    {"UTF-16BE", "\xff\xfe\x00h", 4, "\xef\xbf\xbeh", 0}, // U+FFFE kept
    {"UTF-16BE", "\x00h\x00i\x00", 5, "hi\xef\xbf\xbd", 1},
};

START_TEST(utf16_byte_orders) {
  for (size_t i = 0; i < sizeof utf16_cases / sizeof utf16_cases[0]; i++) {
    const char *got = conv(utf16_cases[i].label, utf16_cases[i].in, utf16_cases[i].in_len);
    ck_assert_msg(strcmp(got, utf16_cases[i].out) == 0, "case %zu", i);
    ck_assert_msg(conv_flags == utf16_cases[i].flags, "case %zu flags", i);
  }
}
END_TEST

// iconv charsets: inputs written from each encoding's tables and checked
// with Python's codecs when this test was written.

static const struct {
  const char *label;
  const char *in;
  const char *out;
} iconv_cases[] = {
    {"ISO-2022-JP",
     "\x1b\x24\x42\x24\x33\x24\x73\x24\x4b\x24\x41\x24\x4f\x21\x22\x40\x24\x33\x26\x1b\x28\x42",
     "こんにちは、世界"},
    {"ISO-2022-JP", "\x1b(I\x31\x1b(B", "ｱ"}, // half-width katakana
    {"Shift_JIS", "\x93\xfa\x96\x7b\x8c\xea\x83\x65\x83\x4c\x83\x58\x83\x67", "日本語テキスト"},
    {"x-sjis", "\x87\x40", "①"},
    {"EUC-JP", "\xc6\xfc\xcb\xdc\xb8\xec", "日本語"},
    {"GB2312", "\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7", "你好，世界"},
    {"GB2312", "\xd6\xd0\xce\xc4\xbe\x8e\xb4\x61", "中文編碼"}, // GBK bytes in GB2312 mail
    {"GB18030", "\xa2\xe3\x81\x30\x81\x30\x94\x39\xfc\x36", "€\xc2\x80\xf0\x9f\x98\x80"},
    {"Big5", "\xa4\xa4\xa4\xe5", "中文"},
    {"EUC-KR", "\xc7\xd1\xb1\xb9\xbe\xee", "한국어"},
    {"ks_c_5601-1987", "\x8c\x63\xb9\xe6\xb0\xa2\xc7\xcf", "똠방각하"},
    {"KOI8-R", "\xf0\xd2\xc9\xd7\xc5\xd4\x2c\x20\xcd\xc9\xd2", "Привет, мир"},
    {"KOI8-U", "\xbd\xc1\xce\xcf\xcb", "Ґанок"},
    {"windows-1251", "\xc7\xe4\xf0\xe0\xe2\xf1\xf2\xe2\xf3\xe9\xf2\xe5", "Здравствуйте"},
    {"windows-1250", "\x50\xf8\xed\x6c\x69\x9a\x20\x9e\x6c\x75\x9d\x6f\x75\xe8\x6b\xfd",
     "Příliš žluťoučký"},
    {"ISO-8859-2", "\xa3\xf3\x64\xbc", "Łódź"},
    {"ISO-8859-5", "\xbc\xde\xe1\xda\xd2\xd0", "Москва"},
    {"ISO-8859-7", "\xca\xe1\xeb\xe7\xec\xdd\xf1\xe1", "Καλημέρα"},
    {"ISO-8859-15", "\xa4\x20\xbd\x20\xbe", "€ œ Ÿ"},
    {"windows-1256", "\xe3\xd1\xcd\xc8\xc7", "مرحبا"},
    {"TIS-620", "\xc0\xd2\xc9\xd2\xe4\xb7\xc2", "ภาษาไทย"},
    {"ISO-2022-KR", "\x1b\x24\x29\x43\x0e\x47\x51\x31\x39\x3e\x6e\x0f", "한국어"},
    {"UTF-7", "\x48\x69\x20\x4d\x6f\x6d\x20\x2d\x2b\x4a\x6a\x6f\x2d\x2d\x21", "Hi Mom -☺-!"},
    {"IBM866", "\x8f\xe0\xa8\xa2\xa5\xe2", "Привет"},
    {"macintosh", "\x63\x61\x66\x8e\x20\xaa", "café ™"},
};

START_TEST(iconv_charsets_known_text) {
  for (size_t i = 0; i < sizeof iconv_cases / sizeof iconv_cases[0]; i++) {
    const char *got = conv(iconv_cases[i].label, iconv_cases[i].in, strlen(iconv_cases[i].in));
    ck_assert_msg(strcmp(got, iconv_cases[i].out) == 0, "%s: got %s", iconv_cases[i].label, got);
    ck_assert_msg(conv_flags == 0, "%s flags %u", iconv_cases[i].label, conv_flags);
  }
  // UTF-32 holds NUL bytes, so it cannot go through the table's strings.
  const char *got = conv("UTF-32LE", "\x61\x00\x00\x00\x00\xf6\x01\x00", 8);
  ck_assert_str_eq(got, "a\xf0\x9f\x98\x80");
}
END_TEST

static const struct {
  const char *label;
  const char *in;
  const char *out;
} iconv_errors[] = {
    {"Shift_JIS", "a\x82", "a\xef\xbf\xbd"},      // incomplete at the end
    {"Shift_JIS", "\xa0z", "\xef\xbf\xbdz"},      // unassigned single byte
    {"Shift_JIS", "\x85\x40z", "\xef\xbf\xbd@z"}, // unassigned lead: skip one byte
    {"EUC-KR", "\xc7\xd1\xc7", "\xed\x95\x9c\xef\xbf\xbd"},
    {"GB18030", "\x80z", "\xef\xbf\xbdz"},
    {"Big5", "a\xa4", "a\xef\xbf\xbd"},
    {"ISO-2022-JP", "\x1b$B\x24", "\xef\xbf\xbd"}, // cut inside a character
    {"UTF-7", "a+\x80-b", "a\xef\xbf\xbd-b"},
};

START_TEST(iconv_errors_become_replacement) {
  for (size_t i = 0; i < sizeof iconv_errors / sizeof iconv_errors[0]; i++) {
    const char *got = conv(iconv_errors[i].label, iconv_errors[i].in, strlen(iconv_errors[i].in));
    ck_assert_msg(conv_flags == MP_CHARSET_REPLACED, "%s case %zu flags %u", iconv_errors[i].label,
                  i, conv_flags);
    ck_assert_msg(strcmp(got, iconv_errors[i].out) == 0, "%s case %zu: %s", iconv_errors[i].label,
                  i, got);
  }
  // Decoders that hold a character back release it at the end: Hebrew
  // alef + qamats compose to U+FB2F, and a lone base letter is not lost.
  ck_assert_str_eq(conv("windows-1255", "\xe0\xc8", 2), "\xef\xac\xaf");
  ck_assert_str_eq(conv("windows-1255", "\xe0", 1), "\xd7\x90");
  ck_assert_str_eq(conv("windows-1258", "a\xcc", 2), "\xc3\xa0");
  // glibc's CP949 takes "A2 E8" without output and reports an error at
  // the byte after it, or after the end: one U+FFFD, nothing read beyond.
  ck_assert_str_eq(conv("EUC-KR", "\xa2\xe8", 2), "\xef\xbf\xbd");
  ck_assert_str_eq(conv("EUC-KR", "x\xa2\xe8y", 4), "x\xef\xbf\xbd");
  ck_assert_uint_eq(conv_flags, MP_CHARSET_REPLACED);
}
END_TEST

// Single-byte charsets decode by tables read out of glibc byte by byte
// (charset_sbcs.c). The reference here is glibc converting the whole input
// in one pass to UTF-8 (an unmapped byte: U+FFFD, skipped), which also
// shows that no byte depends on its neighbours. Every byte value occurs, in
// runs of ASCII of every length around them; the composing windows-1255
// and windows-1258 must keep their iconv path and still agree.
static size_t glibc_single_pass(char *out, size_t cap, const char *name, const uint8_t *in,
                                size_t n, bool *replaced) {
  iconv_t cd = iconv_open("UTF-8", name);
  ck_assert_msg(cd != (iconv_t)-1, "%s", name);
  char *ip = (char *)(uintptr_t)in, *op = out;
  size_t il = n, ol = cap;
  *replaced = false;
  while (il > 0) {
    if (iconv(cd, &ip, &il, &op, &ol) != (size_t)-1)
      break;
    ck_assert_msg(ol >= 3, "%s: output buffer", name);
    memcpy(op, "\xEF\xBF\xBD", 3);
    op += 3;
    ol -= 3;
    ip++;
    il--;
    *replaced = true;
  }
  (void)iconv(cd, NULL, NULL, &op, &ol);
  iconv_close(cd);
  return cap - ol;
}

// iconv's output re-encoded: random text of characters of every UTF-8
// length (GB18030 maps all of Unicode, the supplementary planes in 4 bytes),
// long enough for many iconv pieces and output blocks, against glibc's own
// conversion to UTF-8; conv() also takes the measuring pass and the local
// block.
static uint32_t lcg(uint32_t *s);

// Every high byte with every byte after it, and a third byte that is ASCII,
// a lead or a digit (a GB18030 four-byte form), in each double-byte
// charset: the cached entries against decode_iconv.
START_TEST(double_byte_every_pair_matches_iconv) {
  static const char *const names[] = {"GB18030", "Shift_JIS", "EUC-KR", "EUC-JP"};
  static const uint8_t third[] = {0x41, 0xA1, 0x30};
  char got[32], ref[32];
  for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
    int id = mp_charset_lookup(names[c], strlen(names[c]));
    size_t bad = 0;
    for (unsigned lead = 0x80; lead < 0x100; lead++)
      for (unsigned second = 0; second < 0x100; second++)
        for (size_t k = 0; k <= sizeof third; k++) {
          const uint8_t in[3] = {(uint8_t)lead, (uint8_t)second, k < sizeof third ? third[k] : 0};
          size_t n = k < sizeof third ? 3 : 2, gl, rl;
          unsigned gf, rf;
          if (mp_charset_to_utf8_id(got, sizeof got, &gl, &gf, id, in, n) != 0 ||
              mp_charset_iconv_ref(ref, sizeof ref, &rl, &rf, id, in, n) != 0 || gl != rl ||
              gf != rf || memcmp(got, ref, gl) != 0)
            bad++;
        }
    ck_assert_msg(bad == 0, "%s: %zu inputs differ", names[c], bad);
  }
}
END_TEST

// The double-byte charsets decode by entries cached from glibc: on text
// of valid characters, random bytes, lead bytes with any second byte, and
// cut anywhere, the output and flags must be iconv's (decode_iconv, the
// tables skipped), in a buffer of the bound and of the exact length.
START_TEST(double_byte_tables_match_iconv) {
  static const char *const names[] = {"GBK", "GB18030", "Shift_JIS", "EUC-KR", "EUC-JP"};
  static uint8_t in[8192];
  static char ref[3 * sizeof in + 3];
  uint32_t seed = 777;
  for (size_t c = 0; c < sizeof names / sizeof names[0]; c++) {
    int id = mp_charset_lookup(names[c], strlen(names[c]));
    iconv_t to = iconv_open(names[c], "UTF-8");
    ck_assert(to != (iconv_t)-1);
    for (int round = 0; round < 60; round++) {
      size_t n = 0, want = (lcg(&seed) << 8 | lcg(&seed)) % 3000 + 1;
      int mix = round % 4; // 0: valid text; 1: some noise; 2: much noise; 3: pairs
      while (n + 8 < want) {
        uint32_t r = lcg(&seed);
        if ((mix == 1 && r < 16) || (mix == 2 && r < 128)) {
          in[n++] = (uint8_t)lcg(&seed);
        } else if (mix == 3) {
          in[n++] = (uint8_t)(0x80 | lcg(&seed));
          in[n++] = (uint8_t)lcg(&seed);
        } else {
          uint32_t cp =
              r < 64 ? 0x20 + lcg(&seed) % 0x5F : 0x3000 + (lcg(&seed) << 8 | lcg(&seed)) % 0x7000;
          uint8_t u8[4];
          char *ip = (char *)u8, *op = (char *)in + n;
          size_t il = mp_utf8_encode_one(u8, cp), ol = sizeof in - n;
          (void)iconv(to, NULL, NULL, NULL, NULL);
          if (iconv(to, &ip, &il, &op, &ol) != (size_t)-1 && il == 0)
            n = sizeof in - ol;
        }
      }
      for (size_t cut = n; cut + 3 >= n && cut > 0; cut--) {
        size_t ref_len;
        unsigned ref_flags;
        ck_assert_int_eq(mp_charset_iconv_ref(ref, sizeof ref, &ref_len, &ref_flags, id, in, cut),
                         0);
        const char *got = conv(names[c], in, cut);
        ck_assert_msg(conv_len == ref_len && memcmp(got, ref, ref_len) == 0 &&
                          conv_flags == ref_flags,
                      "%s round %d cut %zu: %zu vs %zu bytes, flags %u vs %u", names[c], round, cut,
                      conv_len, ref_len, conv_flags, ref_flags);
      }
    }
    iconv_close(to);
  }
}
END_TEST

START_TEST(iconv_output_every_length_matches_iconv) {
  static char gb[65536], want[65536];
  iconv_t to = iconv_open("GB18030", "UTF-8");
  iconv_t from = iconv_open("UTF-8", "GB18030");
  ck_assert(to != (iconv_t)-1 && from != (iconv_t)-1);
  uint32_t seed = 4242;
  for (int round = 0; round < 24; round++) {
    size_t g = 0, nchars = (lcg(&seed) << 4 | lcg(&seed)) % 6000 + 1;
    for (size_t k = 0; k < nchars; k++) {
      uint32_t r = lcg(&seed) << 16 | lcg(&seed) << 8 | lcg(&seed), cp;
      switch (lcg(&seed) % 4) {
      case 0:
        cp = 0x20 + r % 0x5F;
        break;
      case 1:
        cp = 0x80 + r % 0x780;
        break;
      case 2:
        cp = 0x800 + r % 0xF800;
        break;
      default:
        cp = 0x10000 + r % 0x100000;
        break;
      }
      if (cp >= 0xD800 && cp <= 0xDFFF)
        cp = 0x4E2D;
      uint8_t u8[4];
      char *ip = (char *)u8, *op = gb + g;
      size_t il = mp_utf8_encode_one(u8, cp), ol = sizeof gb - g;
      (void)iconv(to, NULL, NULL, NULL, NULL);
      if (iconv(to, &ip, &il, &op, &ol) != (size_t)-1 && il == 0)
        g = sizeof gb - ol; // characters GB18030 lacks are left out
    }
    char *ip = gb, *op = want;
    size_t il = g, ol = sizeof want;
    (void)iconv(from, NULL, NULL, NULL, NULL);
    ck_assert(iconv(from, &ip, &il, &op, &ol) != (size_t)-1 && il == 0);
    size_t want_len = sizeof want - ol;
    const char *got = conv("GB18030", gb, g);
    ck_assert_msg(conv_len == want_len && memcmp(got, want, want_len) == 0 && conv_flags == 0,
                  "round %d: %zu bytes in, %zu out, want %zu", round, g, conv_len, want_len);
  }
  iconv_close(to);
  iconv_close(from);
}
END_TEST

// The single-byte charsets that glibc decodes and the converter builds a
// table for, and last the two composing ones (CP1255, CP1258), which it
// refuses as tables (NUM_SBCS_TABLES leaves them out).
static const char *const sbcs_names[] = {
    "ISO-8859-2",  "ISO-8859-3",  "ISO-8859-4",  "ISO-8859-5",  "ISO-8859-6",   "ISO-8859-7",
    "ISO-8859-8",  "ISO-8859-9",  "ISO-8859-10", "ISO-8859-13", "ISO-8859-14",  "ISO-8859-15",
    "ISO-8859-16", "CP874",       "CP1250",      "CP1251",      "CP1253",       "CP1254",
    "CP1256",      "CP1257",      "KOI8-R",      "KOI8-U",      "KOI8-RU",      "IBM866",
    "CP437",       "CP850",       "CP852",       "MACINTOSH",   "MAC-CYRILLIC", "VISCII",
    "ARMSCII-8",   "GEORGIAN-PS", "PT154",       "KOI8-T",      "CP1125",       "CP1255",
    "CP1258",
};
enum {
  NUM_SBCS_NAMES = sizeof sbcs_names / sizeof sbcs_names[0],
  NUM_SBCS_TABLES = NUM_SBCS_NAMES - 2
};

START_TEST(single_byte_tables_match_iconv) {
  const char *const *names = sbcs_names;
  static uint8_t in[4096];
  static char want[4 * sizeof in];
  size_t n = 0;
  for (unsigned b = 0; b < 256; b++) {
    for (unsigned k = 0; k < b % 11; k++)
      in[n++] = (uint8_t)("plain text"[k % 10]);
    in[n++] = (uint8_t)b;
    in[n++] = (uint8_t)(255 - b);
  }
  static struct mp_sbcs table;
  for (size_t i = 0; i < NUM_SBCS_NAMES; i++) {
    // The composing ones are refused as tables; all others are tables.
    bool composing = strcmp(names[i], "CP1255") == 0 || strcmp(names[i], "CP1258") == 0;
    ck_assert_msg(mp_sbcs_build(&table, names[i]) == !composing, "%s", names[i]);
    bool replaced;
    size_t want_len = glibc_single_pass(want, sizeof want, names[i], in, n, &replaced);
    const char *got = conv(names[i], in, n);
    ck_assert_msg(conv_len == want_len && memcmp(got, want, want_len) == 0, "%s differs", names[i]);
    ck_assert_msg(conv_flags == (replaced ? MP_CHARSET_REPLACED : 0u), "%s flags %u", names[i],
                  conv_flags);
    // Every length of a prefix, for the 8-byte ASCII steps and the tail.
    for (size_t len = 0; len < 80; len++) {
      want_len = glibc_single_pass(want, sizeof want, names[i], in + 300, len, &replaced);
      got = conv(names[i], in + 300, len);
      ck_assert_msg(conv_len == want_len && memcmp(got, want, want_len) == 0, "%s len %zu",
                    names[i], len);
    }
  }
}
END_TEST

// ASCII runs of every length from 0 to 40 between 8-bit bytes, so that the
// table decoder's 16-byte blocks end on, before and after an 8-bit byte and
// its output block fills and is handed on at every offset, for the built-in
// Windows-1252 table (iconv's CP1252 leaves five bytes unmapped, so the
// 8-bit bytes here avoid them) and a table made from glibc.
START_TEST(ascii_runs_between_8bit_bytes) {
  static const char *const names[] = {"windows-1252", "ISO-8859-2"};
  static uint8_t in[8192];
  static char want[4 * sizeof in];
  size_t n = 0;
  for (unsigned rep = 0; rep < 4; rep++)
    for (unsigned run = 0; run <= 40; run++) {
      for (unsigned k = 0; k < run; k++)
        in[n++] = (uint8_t)("Latin text, "[(k + rep) % 12]);
      in[n++] = (uint8_t)(0xC0 + (run + rep) % 0x40);
    }
  ck_assert_uint_lt(n, sizeof in);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *glibc = i == 0 ? "CP1252" : names[i];
    bool replaced;
    // Every start, so that each run meets a block edge at every offset.
    for (size_t off = 0; off < 17; off++) {
      size_t want_len = glibc_single_pass(want, sizeof want, glibc, in + off, n - off, &replaced);
      const char *got = conv(names[i], in + off, n - off);
      ck_assert_msg(conv_len == want_len && memcmp(got, want, want_len) == 0, "%s offset %zu",
                    names[i], off);
      ck_assert_uint_eq(conv_flags, 0);
    }
  }
}
END_TEST

// 8-bit and ASCII bytes closely mixed, as in Big5 or KOI8 text labelled
// us-ascii or Latin-1: the table decoder looks ASCII bytes up too until 8 of
// them come in a row. Random text at several densities of 8-bit bytes and
// lengths of ASCII runs, from every start within a block, against glibc,
// for the built-in Windows-1252 table (avoiding the five bytes iconv's
// CP1252 leaves unmapped), glibc tables with unmapped bytes (ISO-8859-3,
// CP874) and one whose bytes below 0x80 are not all ASCII (VISCII). The
// input passes the decoder's 340-byte slices of the buffered path (conv
// checks that path too) many times over.
START_TEST(dense_8bit_between_ascii) {
  static const char *const names[][2] = {
      {"windows-1252", "CP1252"}, {"ISO-8859-3", "ISO-8859-3"}, {"CP874", "CP874"},
      {"VISCII", "VISCII"},       {"KOI8-R", "KOI8-R"},
  };
  static uint8_t in[4000];
  static char want[4 * sizeof in];
  uint32_t seed = 12345;
  for (size_t ni = 0; ni < sizeof names / sizeof names[0]; ni++)
    for (unsigned density = 1; density <= 15; density += 2) {
      // density / 16 of the bytes are 8-bit; ASCII runs up to 12 bytes.
      for (size_t i = 0; i < sizeof in; i++) {
        seed = seed * 1103515245u + 12345u;
        uint8_t r = (uint8_t)(seed >> 16);
        if ((r & 15) < density) {
          uint8_t b = (uint8_t)(0x80 | (seed >> 24));
          if (ni == 0 && (b == 0x81 || b == 0x8D || b == 0x8F || b == 0x90 || b == 0x9D))
            b = 0xE9;
          in[i] = b;
        } else {
          size_t run = (seed >> 24) % 13;
          for (size_t k = 0; k < run && i < sizeof in; k++, i++)
            in[i] = (uint8_t)("Big5 as ASCII"[k]);
          i--;
        }
      }
      bool replaced;
      for (size_t off = 0; off < 17; off++) {
        size_t n = sizeof in - off * 37;
        size_t want_len =
            glibc_single_pass(want, sizeof want, names[ni][1], in + off, n, &replaced);
        const char *got = conv(names[ni][0], in + off, n);
        ck_assert_msg(conv_len == want_len && memcmp(got, want, want_len) == 0,
                      "%s density %u offset %zu", names[ni][0], density, off);
        ck_assert_uint_eq(conv_flags, replaced ? MP_CHARSET_REPLACED : 0u);
      }
    }
}
END_TEST

// kernel_agrees decodes `in` by table `t` with kernel `sc`'s block loop and
// with the portable one (charset.c's specification) and tells whether
// output, length and flags agree. The input and both outputs are heap
// blocks of exactly n and 3 * n + 1 bytes, so that under ASan a read or
// write past them fails.
static bool kernel_agrees(const mp_scanner *sc, const struct mp_sbcs *t, const uint8_t *in,
                          size_t n) {
  size_t room = 3 * n + 1;
  uint8_t *src = malloc(n > 0 ? n : 1), *ref = malloc(room), *got = malloc(room);
  if (src == NULL || ref == NULL || got == NULL)
    ck_abort_msg("out of memory");
  memcpy(src, in, n);
  unsigned ref_flags = 0, got_flags = 0;
  size_t ref_len = mp_sbcs_run_with(ref, &ref_flags, t, src, n, NULL);
  size_t got_len = mp_sbcs_run_with(got, &got_flags, t, src, n, sc);
  bool ok = ref_len == got_len && ref_flags == got_flags && ref_len <= room &&
            memcmp(ref, got, ref_len) == 0;
  free(src);
  free(ref);
  free(got);
  return ok;
}

// Every kernel with a block loop of its own for the single-byte table
// decoder (the avx512 one) against the portable loop, whatever
// MAILPARSE_IMPL selects, for the built-in Windows-1252 table and every
// table made from glibc: every byte value in every lane of two 64-byte
// blocks amid ASCII and amid a mix of ASCII and 8-bit bytes, and every
// length from 0 to 300 at densities of 8-bit bytes around the kernel's
// switches (8 and 32 of 64), from two starts.
START_TEST(kernels_match_portable_table_loop) {
  const char *const *names = sbcs_names;
  static struct mp_sbcs tables[1 + NUM_SBCS_TABLES];
  size_t num_tables = 1;
  tables[0].ascii = true;
  for (unsigned b = 0; b < 256; b++)
    mp_sbcs_set(&tables[0], b, true, mp_cp1252_high((uint8_t)b));
  for (size_t i = 0; i < NUM_SBCS_TABLES; i++) {
    ck_assert_msg(mp_sbcs_build(&tables[num_tables], names[i]), "%s", names[i]);
    num_tables++;
  }
  static const unsigned densities[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 48, 64};
  uint8_t in[512];
  uint32_t seed = 777;
  size_t kernels = 0;
  bool sup;
  const mp_scanner *sc;
  for (size_t si = 0; (sc = mp_scanner_at(si, &sup)) != NULL; si++) {
    if (!sup || sc->sbcs_blocks == NULL)
      continue;
    kernels++;
    for (size_t ti = 0; ti < num_tables; ti++) {
      const struct mp_sbcs *t = &tables[ti];
      // Amid ASCII, and amid ASCII and 8-bit bytes mixed (every other byte
      // 0xE9, a 2-byte character in most tables).
      for (unsigned fill = 0; fill < 2; fill++)
        for (unsigned c = 0; c < 256; c++)
          for (size_t lane = 0; lane < 64; lane++) {
            for (size_t k = 0; k < 200; k++)
              in[k] = fill == 1 && k % 2 == 1 ? 0xE9 : (uint8_t)((k * 37 + 11) & 0x7F);
            in[lane] = (uint8_t)c;
            in[127 - lane] = (uint8_t)c; // the other lanes of the second block
            if (!kernel_agrees(sc, t, in, 200))
              ck_abort_msg("%s table %zu: byte %02x in lane %zu, fill %u", sc->name, ti, c, lane,
                           fill);
          }
      // About densities[di] of each 64 bytes are 8-bit: any (latin1 0), or
      // 0xA0-0xFF only (latin1 1: 2-byte characters in every Latin table).
      for (unsigned latin1 = 0; latin1 < 2; latin1++)
        for (size_t di = 0; di < sizeof densities / sizeof densities[0]; di++)
          for (size_t len = 0; len <= 300; len++) {
            for (size_t k = 0; k < len + 1; k++) {
              seed = seed * 1103515245u + 12345u;
              bool high = ((seed >> 10) & 63) < densities[di];
              in[k] = (uint8_t)((high ? 0x80 : 0) | ((seed >> 17) & 0x7F));
              if (high && latin1 == 1 && in[k] < 0xA0)
                in[k] |= 0x20;
            }
            for (size_t off = 0; off < 2; off++)
              if (!kernel_agrees(sc, t, in + off, len))
                ck_abort_msg("%s table %zu: density %u length %zu offset %zu, latin1 %u", sc->name,
                             ti, densities[di], len, off, latin1);
          }
    }
  }
  fprintf(stderr, "# table decoder kernels checked: %zu\n", kernels);
}
END_TEST

// Descriptors are reused within a thread: each conversion must start in the
// initial shift state with nothing held back from the previous one.
START_TEST(reused_descriptors_start_fresh) {
  // ISO-2022-JP left in JIS X 0208 mode ("\x1b$B" then one character).
  ck_assert_str_eq(conv("ISO-2022-JP", "\x1b$B\x24\x33", 5), "\xe3\x81\x93");
  ck_assert_str_eq(conv("ISO-2022-JP", "\x24\x33", 2), "$3");
  // The same after a conversion that stopped early for want of room.
  char small[2];
  size_t small_len;
  unsigned small_flags;
  ck_assert_int_eq(mp_charset_to_utf8(small, sizeof small, &small_len, &small_flags, "ISO-2022-JP",
                                      11, (const uint8_t *)"\x1b$B\x24\x33\x24\x73", 7),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_str_eq(conv("ISO-2022-JP", "\x24\x33", 2), "$3");
  // windows-1255 holding a base letter back for a combining mark.
  ck_assert_str_eq(conv("windows-1255", "\xe0", 1), "\xd7\x90");
  ck_assert_str_eq(conv("windows-1255", "\xc8", 1), "\xd6\xb8");
  // More charsets than a thread keeps descriptors for, twice over.
  for (int round = 0; round < 2; round++) {
    for (size_t i = 0; i < sizeof iconv_cases / sizeof iconv_cases[0]; i++) {
      const char *got = conv(iconv_cases[i].label, iconv_cases[i].in, strlen(iconv_cases[i].in));
      ck_assert_msg(strcmp(got, iconv_cases[i].out) == 0, "%s round %d: got %s",
                    iconv_cases[i].label, round, got);
    }
  }
}
END_TEST

START_TEST(unknown_charset_keeps_ascii) {
  const char *got = conv("x-klingon", "a\xff b\xc3\xa9", 6);
  ck_assert_str_eq(got, "a\xef\xbf\xbd b\xef\xbf\xbd\xef\xbf\xbd");
  ck_assert_uint_eq(conv_flags, MP_CHARSET_UNKNOWN | MP_CHARSET_REPLACED);
  got = conv("x-klingon", "plain", 5);
  ck_assert_str_eq(got, "plain");
  ck_assert_uint_eq(conv_flags, MP_CHARSET_UNKNOWN);
  got = conv("", "", 0);
  ck_assert_uint_eq(conv_len, 0);
  ck_assert_uint_eq(conv_flags, MP_CHARSET_UNKNOWN);
  got = conv("utf-8", "", 0);
  ck_assert_uint_eq(conv_flags, 0);
  // An id never issued converts as unknown.
  char out[16];
  size_t len;
  unsigned flags;
  ck_assert_int_eq(
      mp_charset_to_utf8_id(out, sizeof out, &len, &flags, 9999, (const uint8_t *)"x\x80", 2), 0);
  ck_assert_uint_eq(len, 4);
  ck_assert_uint_eq(flags, MP_CHARSET_UNKNOWN | MP_CHARSET_REPLACED);
  ck_assert_int_eq(
      mp_charset_to_utf8_id(out, sizeof out, &len, &flags, -5, (const uint8_t *)"x", 1), 0);
  ck_assert_uint_eq(flags, MP_CHARSET_UNKNOWN);
}
END_TEST

// The bound, on input built to expand as much as possible, in every charset.

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 24;
}

START_TEST(bound_holds_for_every_charset) {
  static uint8_t in[4096];
  for (int id = 1; strcmp(mp_charset_name(id), "unknown") != 0; id++) {
    for (int pattern = 0; pattern < 6; pattern++) {
      uint32_t seed = (uint32_t)id * 7919u + (uint32_t)pattern;
      for (size_t i = 0; i < sizeof in; i++) {
        switch (pattern) {
        case 0:
          in[i] = (uint8_t)lcg(&seed);
          break;
        case 1:
          in[i] = 0x80 + (uint8_t)(i & 0x7f);
          break;
        case 2:
          in[i] = 0xff;
          break;
        case 3:
          in[i] = "\x1b$B\x0e\x0f+-\x81\x30"[i % 10];
          break;
        case 4:
          in[i] = (uint8_t)(0xa1 + lcg(&seed) % 0x5e);
          break;
        default:
          in[i] = (uint8_t)(i % 3 == 0 ? 0xd8 : lcg(&seed));
          break;
        }
      }
      for (size_t len = 0; len <= sizeof in; len = len * 2 + 1) {
        size_t cap = mp_charset_utf8_max_len(len);
        size_t out_len;
        unsigned flags;
        int rc = mp_charset_to_utf8_id(conv_buf, cap, &out_len, &flags, id, in, len);
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_le(out_len, cap);
        ck_assert_msg(corvid_utf8_valid((uint8_t *)conv_buf, out_len), "%s pattern %d",
                      mp_charset_name(id), pattern);
        // Deterministic, and the same through the measuring path.
        static char again[sizeof conv_buf];
        size_t again_len;
        unsigned again_flags;
        rc = mp_charset_to_utf8_id(again, out_len, &again_len, &again_flags, id, in, len);
        ck_assert_int_eq(rc, 0);
        ck_assert(again_len == out_len && again_flags == flags &&
                  memcmp(again, conv_buf, out_len) == 0);
      }
    }
  }
}
END_TEST

START_TEST(small_buffer_writes_nothing) {
  static const char *const labels[] = {"utf-8", "windows-1252", "utf-16", "shift_jis", "x-none"};
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
    const uint8_t in[] = "\x82\xa0\xc3\xa9xyz\x93\xfa";
    conv(labels[i], in, sizeof in - 1);
    size_t need = conv_len;
    char out[64];
    memset(out, 0xAA, sizeof out);
    size_t len = 99;
    unsigned flags = 99;
    ck_assert_int_eq(mp_charset_to_utf8(out, need - 1, &len, &flags, labels[i], strlen(labels[i]),
                                        in, sizeof in - 1),
                     MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(len, 0);
    for (size_t k = 0; k < sizeof out; k++)
      ck_assert_uint_eq((uint8_t)out[k], 0xAA);
    ck_assert_int_eq(mp_charset_to_utf8(out, need, &len, &flags, labels[i], strlen(labels[i]), in,
                                        sizeof in - 1),
                     0);
    ck_assert_uint_eq(len, need);
    ck_assert_mem_eq(out, conv_buf, need);
  }
}
END_TEST

START_TEST(invalid_arguments) {
  char out[8];
  size_t len;
  unsigned flags;
  const uint8_t *in = (const uint8_t *)"a";
  ck_assert_int_eq(mp_charset_to_utf8(out, 8, NULL, &flags, "utf-8", 5, in, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_charset_to_utf8(out, 8, &len, NULL, "utf-8", 5, in, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_charset_to_utf8(NULL, 8, &len, &flags, "utf-8", 5, in, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_charset_to_utf8(out, 8, &len, &flags, "utf-8", 5, NULL, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_charset_to_utf8(out, 8, &len, &flags, NULL, 5, in, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_charset_to_utf8(NULL, 0, &len, &flags, "utf-8", 5, NULL, 0), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(mp_charset_to_utf8(NULL, 0, &len, &flags, "utf-8", 5, in, 1),
                   MP_ERR_BUFFER_TOO_SMALL);
}
END_TEST

// Threads: each thread keeps its own iconv descriptors, so concurrent
// conversions agree with a single-threaded run; every thread walks through
// all the charsets from a different start, so descriptors are also evicted
// and reopened while the others convert.

#define NUM_ICONV_CASES (sizeof iconv_cases / sizeof iconv_cases[0])

struct thread_job {
  size_t first;
  int failures;
};

static void *thread_main(void *arg) {
  struct thread_job *job = arg;
  char out[256];
  for (size_t r = 0; r < 20 * NUM_ICONV_CASES; r++) {
    size_t c = (job->first + r) % NUM_ICONV_CASES;
    const char *label = iconv_cases[c].label, *in = iconv_cases[c].in;
    const char *want = iconv_cases[c].out;
    size_t len;
    unsigned flags;
    int rc = mp_charset_to_utf8(out, sizeof out, &len, &flags, label, strlen(label),
                                (const uint8_t *)in, strlen(in));
    if (rc != 0 || len != strlen(want) || memcmp(out, want, len) != 0)
      job->failures++;
  }
  return NULL;
}

START_TEST(concurrent_conversions_agree) {
  struct thread_job jobs[4];
  pthread_t th[4];
  for (int t = 0; t < 4; t++) {
    jobs[t] = (struct thread_job){(size_t)t * 5 % NUM_ICONV_CASES, 0};
    ck_assert_int_eq(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
  }
  for (int t = 0; t < 4; t++) {
    pthread_join(th[t], NULL);
    ck_assert_int_eq(jobs[t].failures, 0);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("charset");
  TCase *tc = tcase_create("charset");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, max_len_is_three_per_byte_plus_three);
  tcase_add_test(tc, every_alias_finds_its_entry);
  tcase_add_test(tc, labels_match_ignoring_case_and_punctuation);
  tcase_add_test(tc, unknown_names);
  tcase_add_test(tc, lookup_first_step_matches_general);
  tcase_add_test(tc, windows1252_table_matches_iconv);
  tcase_add_test(tc, ascii_fast_path_matches_iconv);
  tcase_add_test(tc, utf8_validation_table);
  tcase_add_test(tc, utf8_exhaustive_short_sequences);
  tcase_add_test(tc, utf8_repair_matches_specification);
  tcase_add_test(tc, utf16_byte_orders);
  tcase_add_test(tc, iconv_charsets_known_text);
  tcase_add_test(tc, iconv_errors_become_replacement);
  tcase_add_test(tc, iconv_output_every_length_matches_iconv);
  tcase_add_test(tc, double_byte_tables_match_iconv);
  tcase_add_test(tc, double_byte_every_pair_matches_iconv);
  tcase_add_test(tc, single_byte_tables_match_iconv);
  tcase_add_test(tc, ascii_runs_between_8bit_bytes);
  tcase_add_test(tc, dense_8bit_between_ascii);
  tcase_add_test(tc, kernels_match_portable_table_loop);
  tcase_add_test(tc, reused_descriptors_start_fresh);
  tcase_add_test(tc, unknown_charset_keeps_ascii);
  tcase_add_test(tc, bound_holds_for_every_charset);
  tcase_add_test(tc, small_buffer_writes_nothing);
  tcase_add_test(tc, invalid_arguments);
  tcase_add_test(tc, concurrent_conversions_agree);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
