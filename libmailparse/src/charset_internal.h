// charset_internal.h: UTF-8 helpers shared by the charset converters and the
// HTML/text converters: decoding one character with the Unicode "maximal
// subpart" rule and encoding one code point. Private, header-only.
#ifndef MP_CHARSET_INTERNAL_H
#define MP_CHARSET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mailparse.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MP_UTF8_REPLACEMENT 0xFFFDu

// mp_utf8_decode_one decodes the character at the start of `p` (`n` >= 1
// bytes) into `*cp` and returns how many bytes it took (1 to 4). An
// ill-formed sequence gives U+FFFD for its maximal subpart (Unicode §3.9,
// Table 3-7): the lead byte plus every following byte that could still
// continue it, so a truncated "E2 82" is one U+FFFD, while "C0 80" (overlong),
// "ED A0 80" (surrogate) and "F4 90 80 80" (above U+10FFFF) give one U+FFFD
// per byte. `*bad` is set to 1 for ill-formed input and left alone otherwise.
static inline size_t mp_utf8_decode_one(const uint8_t *p, size_t n, uint32_t *cp, int *bad) {
  uint8_t b0 = p[0];
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t need;
  uint32_t c;
  uint8_t lo = 0x80, hi = 0xBF; // the valid range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    c = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    c = b0 & 0x0Fu;
    if (b0 == 0xE0)
      lo = 0xA0; // below: overlong
    else if (b0 == 0xED)
      hi = 0x9F; // above: UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    c = b0 & 0x07u;
    if (b0 == 0xF0)
      lo = 0x90; // below: overlong
    else if (b0 == 0xF4)
      hi = 0x8F; // above: beyond U+10FFFF
  } else {
    // 80-BF (a stray continuation), C0-C1 (always overlong), F5-FF.
    *cp = MP_UTF8_REPLACEMENT;
    *bad = 1;
    return 1;
  }
  size_t i = 1;
  for (; i <= need; i++) {
    if (i >= n || p[i] < lo || p[i] > hi) {
      *cp = MP_UTF8_REPLACEMENT;
      *bad = 1;
      return i;
    }
    c = (c << 6) | (p[i] & 0x3Fu);
    lo = 0x80;
    hi = 0xBF;
  }
  *cp = c;
  return i;
}

// mp_utf8_encode_one writes code point `cp` (any value; surrogates and values
// above U+10FFFF become U+FFFD) to `out`, which has room for 4 bytes, and
// returns the number of bytes written.
static inline size_t mp_utf8_encode_one(uint8_t out[4], uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (uint8_t)(0xC0 | (cp >> 6));
    out[1] = (uint8_t)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    cp = MP_UTF8_REPLACEMENT;
  if (cp < 0x10000) {
    out[0] = (uint8_t)(0xE0 | (cp >> 12));
    out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | (cp >> 18));
  out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (cp & 0x3F));
  return 4;
}

// mp_ascii_prefix_len returns how many bytes at the start of `p` (`n` bytes)
// are ASCII, testing 16 bytes at a time with SSE2 (the x86-64 baseline) and
// 8 at a time (SWAR) otherwise: text in mail is mostly ASCII, and runs of it
// are copied without decoding. The first non-ASCII byte of a block is found
// from its mask, not by a byte loop (a run of 8-bit text ends every few
// bytes).
static inline size_t mp_ascii_prefix_len(const uint8_t *p, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  while (n - i >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    unsigned m = (unsigned)_mm_movemask_epi8(v);
    if (m != 0)
      return i + (size_t)__builtin_ctz(m);
    i += 16;
  }
#endif
  while (n - i >= 8) {
    uint64_t w;
    __builtin_memcpy(&w, p + i, 8);
    uint64_t h = w & 0x8080808080808080ull;
    if (h != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      return i + (size_t)(__builtin_ctzll(h) >> 3);
#else
      break;
#endif
    }
    i += 8;
  }
  while (i < n && p[i] < 0x80)
    i++;
  return i;
}

// mp_cp1252_high returns the code point of byte `b` (0x80-0xFF) in
// Windows-1252. The five bytes Windows leaves undefined (81, 8D, 8F, 90, 9D)
// map to the C1 control of the same value, as in the WHATWG index, so that no
// byte is an error; HTML numeric references in 0x80-0x9F use the same table.
static inline uint32_t mp_cp1252_high(uint8_t b) {
  static const uint16_t c1[32] = {
      0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
      0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
  };
  return b >= 0xA0 || b < 0x80 ? b : c1[b - 0x80];
}

// A single-byte charset as a table: the UTF-8 form of every byte in the
// low bytes of `u8[b]` (memory order, so that one 4-byte store writes it)
// and its length in `len[b]`. A byte the charset leaves unmapped holds
// U+FFFD with MP_SBCS_UNMAPPED added to its length, so that the decoder
// stores every byte the same way, without a branch, and ORs the lengths to
// learn whether to flag a replacement. `ascii` says bytes below 0x80 are
// themselves, so runs of them can be copied.
#define MP_SBCS_UNMAPPED 0x80u
struct mp_sbcs {
  bool ascii;
  uint8_t len[256];
  uint32_t u8[256];
};

// mp_sbcs_set makes byte `b` of table `t` code point `cp` (BMP), or an
// unmapped byte when `mapped` is false.
static inline void mp_sbcs_set(struct mp_sbcs *t, unsigned b, bool mapped, uint32_t cp) {
  uint8_t u[4] = {0};
  size_t n = mp_utf8_encode_one(u, mapped ? cp : MP_UTF8_REPLACEMENT);
  __builtin_memcpy(&t->u8[b], u, 4);
  t->len[b] = (uint8_t)(n | (mapped ? 0 : MP_SBCS_UNMAPPED));
}

// mp_sbcs_put writes the UTF-8 form of byte `c` by a table's `u8` and `lens`
// (struct mp_sbcs's u8 and len) at `o` (4 bytes of room) and returns its
// length: U+FFFD for a byte the table leaves unmapped (what decode_iconv
// makes of EILSEQ), noted by ORing its length entry into *bad
// (MP_SBCS_UNMAPPED). No branch: Latin text has an 8-bit byte every few
// bytes, and text in another script sent as Latin-1 nothing else. Shared by
// charset.c's loops and the kernels' (x86/sbcs_avx512.h).
static inline size_t mp_sbcs_put(uint8_t *o, unsigned *bad, const uint32_t *u8, const uint8_t *lens,
                                 uint8_t c) {
  unsigned len = lens[c];
  __builtin_memcpy(o, &u8[c], 4);
  *bad |= len;
  return len & 7u;
}

// mp_sbcs_build fills `t` from glibc's decoder `iconv_name` (charset_sbcs.c)
// and returns true, or false when that decoder is not a stateless single-
// byte one (or cannot be opened); it opens and closes its own descriptor.
bool mp_sbcs_build(struct mp_sbcs *t, const char *iconv_name);

// mp_sbcs_run_with decodes `in` by table `t` as the converter does into
// `out` (room for 3 * in_len + 1 bytes) and returns the bytes written,
// adding MP_CHARSET_REPLACED to *flags for an unmapped byte; it takes the
// block loop of kernel `sc` (core_internal.h), or the portable one when `sc`
// is NULL, so that the tests and the fuzzer can check every kernel against
// the portable loop. Internal, hidden.
struct mp_scanner;
size_t mp_sbcs_run_with(uint8_t *out, unsigned *flags, const struct mp_sbcs *t, const uint8_t *in,
                        size_t in_len, const struct mp_scanner *sc);

// mp_sbcs_table returns the table the converter decodes charset `id` by, or
// NULL when it decodes that charset otherwise. Internal, hidden.
const struct mp_sbcs *mp_sbcs_table(int id);

// mp_charset_alias_count and mp_charset_alias_get expose charset.c's alias
// table (normalised key and entry id) to the tests; internal symbols, hidden
// from the shared object.
size_t mp_charset_alias_count(void);
const char *mp_charset_alias_get(size_t i, int *id);

// mp_charset_lookup_general is mp_charset_lookup() without its first step
// (common spellings of common labels matched as they are): the name
// normalised and searched in the alias table, the reference the tests and
// the fuzzer check that step against. Internal, hidden.
int mp_charset_lookup_general(const char *name, size_t name_len);

// mp_charset_iconv_ref converts `in` from charset `id` like
// mp_charset_to_utf8_id() into `out` (at least mp_charset_utf8_max_len()
// bytes), but for a charset that goes to iconv it always takes iconv, its
// single- and double-byte tables skipped: the reference the tests and
// fuzzers check the tables against. MP_ERR_INVALID_ARGUMENT for a charset
// iconv does not convert, or a smaller buffer. Internal, hidden.
MP_WARN_UNUSED_RESULT int mp_charset_iconv_ref(char *out, size_t out_cap, size_t *out_len,
                                               unsigned *out_flags, int id, const uint8_t *in,
                                               size_t in_len);

#endif // MP_CHARSET_INTERNAL_H
