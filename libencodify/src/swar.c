// swar.c: the SWAR implementation ("SIMD within a register"): kernels that
// work on 64-bit words on every CPU. Quoted-printable kernels find the next
// special byte eight bytes at a time, and Base32 decoding validates,
// translates and packs eight characters per word with byte-wise range checks
// and shifts; where word-wide arithmetic loses to the scalar table lookups
// (Base64, Base32 encoding) this implementation keeps the scalar loops.
// Little-endian only (meson.build builds it there).
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

static inline uint64_t load64(const void *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline void store64(void *p, uint64_t v) {
  memcpy(p, &v, 8);
}

// For words whose bytes are all below 0x80: the high bit of each byte set
// where that byte is >= n (1 <= n <= 128), or == c.
static inline uint64_t ge(uint64_t x, unsigned n) {
  return (x + (0x80u - n) * ONES) & HIGHS;
}

static inline uint64_t eq(uint64_t x, unsigned c) {
  uint64_t t = x ^ (c * ONES);
  return ~(t + 0x7F * ONES) & HIGHS;
}

// full turns high bits into whole-byte masks.
static inline uint64_t full(uint64_t m) {
  return (m >> 7) * 0xFF;
}

// add8 adds byte by byte, modulo 256.
static inline uint64_t add8(uint64_t a, uint64_t b) {
  return ((a & ~HIGHS) + (b & ~HIGHS)) ^ ((a ^ b) & HIGHS);
}

// Base64 and Base32 encoding: the scalar table-driven loops. Byte-wise
// arithmetic on 64-bit words measured about half as fast as their table
// lookups (x86-64, 2024), so SWAR does not replace them.

static size_t b64_encode_swar(char *out, const uint8_t *in, size_t in_len, int url) {
  return enc_b64_encode_tail(out, in, in_len, url);
}

static size_t b64_decode_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int url) {
  return enc_b64_decode_tail(out, out_cap, written, in, in_len, url);
}

static size_t b64_decode_mime_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                   size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  return enc_b64_decode_mime_tail(out, out_cap, written, in, in_len, url, acc, nacc);
}

static size_t b32_encode_swar(char *out, const uint8_t *in, size_t in_len, int hex) {
  return enc_b32_encode_tail(out, in, in_len, hex);
}

// Base32 decoding: eight characters validated, translated and packed in one word.

static size_t b32_decode_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int hex) {
  size_t i = 0, o = 0;
  while (in_len - i >= 8 && out_cap - o >= 5) {
    uint64_t x = load64(in + i);
    if (x & HIGHS)
      break;
    uint64_t m1, m2, off;
    if (hex) {
      m1 = ge(x, '0') & ~ge(x, '9' + 1);
      m2 = ge(x, 'A') & ~ge(x, 'V' + 1);
      off = (full(m1) & ((256u - '0') * ONES)) | (full(m2) & ((256u - 'A' + 10) * ONES));
    } else {
      m1 = ge(x, 'A') & ~ge(x, 'Z' + 1);
      m2 = ge(x, '2') & ~ge(x, '7' + 1);
      off = (full(m1) & ((256u - 'A') * ONES)) | (full(m2) & ((256u - '2' + 26) * ONES));
    }
    if ((m1 | m2) != HIGHS)
      break;
    uint64_t v = add8(x, off);
    uint64_t t = ((v & 0x001F001F001F001Fu) << 5) | ((v >> 8) & 0x001F001F001F001Fu);
    uint64_t u = ((t & 0x000003FF000003FFu) << 10) | ((t >> 16) & 0x000003FF000003FFu);
    uint64_t g = ((u & 0xFFFFF) << 20) | (u >> 32);
    for (int j = 0; j < 5; j++)
      out[o + j] = (uint8_t)(g >> (32 - 8 * j));
    i += 8;
    o += 5;
  }
  *written = o;
  return i;
}

// Quoted-printable.

// qp_dec_stops marks `=`, and spaces and tabs followed by a space, tab, CR or
// LF (the high bit of each such byte); `next` is the word one byte later.
static inline uint64_t qp_dec_stops(uint64_t x, uint64_t next) {
  uint64_t hi = x & HIGHS, nhi = next & HIGHS;
  uint64_t x7 = x & ~HIGHS, n7 = next & ~HIGHS;
  uint64_t ws = (eq(x7, ' ') | eq(x7, '\t')) & ~hi;
  uint64_t nws = (eq(n7, ' ') | eq(n7, '\t') | eq(n7, '\r') | eq(n7, '\n')) & ~nhi;
  return (eq(x7, '=') & ~hi) | (ws & nws);
}

static size_t qp_decode_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                             size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  size_t i = 0, o = 0, w;
  while (in_len - i >= 9 && out_cap - o >= 8) {
    uint64_t x = load64(p + i);
    uint64_t stops = qp_dec_stops(x, load64(p + i + 1));
    store64(out + o, x);
    if (stops == 0) {
      i += 8;
      o += 8;
      continue;
    }
    size_t k = (size_t)__builtin_ctzll(stops) / 8;
    i += k;
    o += k;
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  *written = o;
  return i;
}

static size_t qp_encode_swar(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                             size_t in_len, int binary, uint32_t *col) {
  size_t i = 0, o = 0, w;
  while (in_len - i >= 10 && out_cap - o >= 8) {
    uint64_t x = load64(in + i), next = load64(in + i + 1);
    uint64_t hi = x & HIGHS, x7 = x & ~HIGHS, n7 = next & ~HIGHS;
    // Literal: 33..126 except "=", or a space or tab not followed by a
    // line break; a byte that is a line break or precedes one stops the run.
    uint64_t lit = (ge(x7, 33) & ~ge(x7, 127) & ~eq(x7, '=')) | eq(x7, ' ') | eq(x7, '\t');
    lit &= ~hi;
    uint64_t stop = 0;
    if (!binary)
      stop =
          ((eq(x7, '\r') | eq(x7, '\n')) & ~hi) | ((eq(n7, '\r') | eq(n7, '\n')) & ~(next & HIGHS));
    uint64_t brk = ~lit | stop;
    size_t run = (brk & HIGHS) ? (size_t)__builtin_ctzll(brk & HIGHS) / 8 : 8;
    if (run > 0) {
      size_t used, k = enc_qp_literal_run(out + o, &used, run, col);
      if (k > 0)
        store64(out + o, x);
      i += k;
      o += used;
      continue;
    }
    // One unit the scalar rules decide (escapes, line breaks, their neighbours).
    i += enc_qp_encode_step(out + o, &w, in + i, in_len - i, binary, col);
    o += w;
  }
  *written = o;
  return i;
}

const struct enc_impl enc_impl_swar = {
    .name = "swar",
    .required = 0,
    .b64_encode = b64_encode_swar,
    .b64_decode = b64_decode_swar,
    .b64_decode_mime = b64_decode_mime_swar,
    .b32_encode = b32_encode_swar,
    .b32_decode = b32_decode_swar,
    .qp_decode = qp_decode_swar,
    .qp_encode = qp_encode_swar,
};
