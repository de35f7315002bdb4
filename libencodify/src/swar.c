// swar.c: the SWAR implementation ("SIMD within a register"): kernels that
// work on 64-bit words on every CPU: Base64 and Base32 groups are validated,
// translated and packed eight characters at a time with byte-wise range
// checks and shifts, and quoted-printable kernels find the next special byte
// eight bytes at a time. Little-endian only (meson.build builds it there).
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

// Base64.

// b64_values translates eight characters to sextets; 0 when one is not in
// the alphabet.
static inline int b64_values(uint64_t x, int url, uint64_t *v) {
  if (x & HIGHS)
    return 0;
  unsigned c62 = url ? '-' : '+', c63 = url ? '_' : '/';
  uint64_t up = ge(x, 'A') & ~ge(x, 'Z' + 1);
  uint64_t lo = ge(x, 'a') & ~ge(x, 'z' + 1);
  uint64_t dg = ge(x, '0') & ~ge(x, '9' + 1);
  uint64_t s62 = eq(x, c62), s63 = eq(x, c63);
  if ((up | lo | dg | s62 | s63) != HIGHS)
    return 0;
  uint64_t off = (full(up) & ((256u - 'A') * ONES)) | (full(lo) & ((256u - 'a' + 26) * ONES)) |
                 (full(dg) & ((52u - '0') * ONES)) | (full(s62) & (((62u - c62) & 0xFF) * ONES)) |
                 (full(s63) & (((63u - c63) & 0xFF) * ONES));
  *v = add8(x, off);
  return 1;
}

// b64_pack writes the 6 bytes of eight sextets (first character in the low byte).
static inline void b64_pack(uint8_t *out, uint64_t v) {
  uint64_t t = ((v & 0x003F003F003F003Fu) << 6) | ((v >> 8) & 0x003F003F003F003Fu);
  uint64_t u = ((t & 0x00000FFF00000FFFu) << 12) | ((t >> 16) & 0x00000FFF00000FFFu);
  out[0] = (uint8_t)(u >> 16);
  out[1] = (uint8_t)(u >> 8);
  out[2] = (uint8_t)u;
  out[3] = (uint8_t)(u >> 48);
  out[4] = (uint8_t)(u >> 40);
  out[5] = (uint8_t)(u >> 32);
}

static size_t b64_encode_swar(char *out, const uint8_t *in, size_t in_len, int url) {
  uint64_t o62 = ((url ? '-' : '+') - 62u) & 0xFF, o63 = ((url ? '_' : '/') - 63u) & 0xFF;
  size_t i = 0;
  for (; in_len - i >= 8; i += 6) { // 6 bytes used, 8 loaded
    uint64_t w = __builtin_bswap64(load64(in + i)) >> 16;
    uint64_t x = 0;
    for (int j = 0; j < 8; j++)
      x |= ((w >> (42 - 6 * j)) & 63) << (8 * j);
    uint64_t g26 = full(ge(x, 26)), g52 = full(ge(x, 52));
    uint64_t off = ('A' * ONES & ~g26) | (((('a' - 26u) * ONES) & g26) & ~g52) |
                   ((((256u + '0' - 52) & 0xFF) * ONES) & g52);
    uint64_t e62 = full(eq(x, 62)), e63 = full(eq(x, 63));
    off = (off & ~(e62 | e63)) | (o62 * ONES & e62) | (o63 * ONES & e63);
    store64(out, add8(x, off));
    out += 8;
  }
  return i;
}

static size_t b64_decode_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int url) {
  size_t i = 0, o = 0;
  uint64_t v;
  while (in_len - i >= 8 && out_cap - o >= 6 && b64_values(load64(in + i), url, &v)) {
    b64_pack(out + o, v);
    i += 8;
    o += 6;
  }
  *written = o;
  return i;
}

static size_t b64_decode_mime_swar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                   size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  size_t i = 0, o = 0;
  uint32_t a = *acc, k = *nacc;
  uint64_t v;
  while (i < in_len && out_cap - o >= 6) {
    // Whole words of alphabet characters while no group is open ...
    if (k == 0 && in_len - i >= 8 && b64_values(load64(in + i), url, &v)) {
      b64_pack(out + o, v);
      i += 8;
      o += 6;
      continue;
    }
    // ... and one character at a time around line breaks and garbage.
    uint8_t d = dt[(uint8_t)in[i]];
    if (d == ENC_DTAB_PAD)
      break;
    i++;
    if (d >= 64)
      continue;
    a = a << 6 | d;
    if (++k == 4) {
      out[o] = (uint8_t)(a >> 16);
      out[o + 1] = (uint8_t)(a >> 8);
      out[o + 2] = (uint8_t)a;
      o += 3;
      a = 0;
      k = 0;
    }
  }
  *acc = a;
  *nacc = k;
  *written = o;
  return i;
}

// Base32.

static size_t b32_encode_swar(char *out, const uint8_t *in, size_t in_len, int hex) {
  size_t i = 0;
  for (; in_len - i >= 8; i += 5) { // 5 bytes used, 8 loaded
    uint64_t w = __builtin_bswap64(load64(in + i)) >> 24;
    uint64_t x = 0;
    for (int j = 0; j < 8; j++)
      x |= ((w >> (35 - 5 * j)) & 31) << (8 * j);
    uint64_t off;
    if (hex) {
      uint64_t g10 = full(ge(x, 10));
      off = ('0' * ONES & ~g10) | (('A' - 10u) * ONES & g10);
    } else {
      uint64_t g26 = full(ge(x, 26));
      off = ('A' * ONES & ~g26) | (('2' - 26u) * ONES & g26);
    }
    store64(out, add8(x, off));
    out += 8;
  }
  return i;
}

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
      stop = ((eq(x7, '\r') | eq(x7, '\n')) & ~hi) |
             ((eq(n7, '\r') | eq(n7, '\n')) & ~(next & HIGHS));
    uint64_t brk = ~lit | stop;
    size_t run = (brk & HIGHS) ? (size_t)__builtin_ctzll(brk & HIGHS) / 8 : 8;
    if (run > 0) {
      if (*col >= 75) { // the next character needs a new line
        memcpy(out + o, "=\r\n", 3);
        o += 3;
        *col = 0;
        continue;
      }
      size_t k = run < 75 - *col ? run : 75 - *col;
      store64(out + o, x);
      i += k;
      o += k;
      *col += (uint32_t)k;
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
