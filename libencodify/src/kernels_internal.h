// kernels_internal.h: the scalar loops that every implementation shares:
// the scalar implementation's kernels are exactly these, and each SWAR and
// SIMD kernel hands its head and tail (what its vectors cannot cover) to them,
// so that every implementation writes the same bytes (CONVENTIONS §1). Also
// the alphabets and decoding tables. Private, header-only functions.
#ifndef ENC_KERNELS_INTERNAL_H
#define ENC_KERNELS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "encodify.h"

// Alphabets (64 or 32 characters and a NUL) and decoding tables: the value of
// each character, 0xFE for `=` and 0xFF for anything else (base64.c, base32.c).
extern const char enc_b64_alpha_std[65];
extern const char enc_b64_alpha_url[65];
extern const uint8_t enc_b64_dtab_std[256];
extern const uint8_t enc_b64_dtab_url[256];
extern const char enc_b32_alpha_std[33];
extern const char enc_b32_alpha_hex[33];
extern const uint8_t enc_b32_dtab_std[256];
extern const uint8_t enc_b32_dtab_hex[256];

enum { ENC_DTAB_PAD = 0xFE, ENC_DTAB_BAD = 0xFF };

// Row m: the positions of the set bits of m, then 0x80 (compress_table.c).
extern const uint8_t enc_compress8[256][8];

static const char enc_hex_digits_upper[] = "0123456789ABCDEF";
static const char enc_hex_digits_lower[] = "0123456789abcdef";

// enc_hex_value returns the value of hex digit `c` (either case) or -1.
static inline int enc_hex_value(uint8_t c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

// Base64.

static inline size_t enc_b64_encode_tail(char *out, const uint8_t *in, size_t in_len, int url) {
  const char *abc = url ? enc_b64_alpha_url : enc_b64_alpha_std;
  size_t i = 0;
  for (; in_len - i >= 3; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[0] = abc[v >> 18];
    out[1] = abc[(v >> 12) & 63];
    out[2] = abc[(v >> 6) & 63];
    out[3] = abc[v & 63];
    out += 4;
  }
  return i;
}

static inline size_t enc_b64_decode_tail(uint8_t *out, size_t out_cap, size_t *written,
                                         const char *in, size_t in_len, int url) {
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  size_t i = 0, o = 0;
  while (in_len - i >= 4 && out_cap - o >= 3) {
    uint32_t a = dt[(uint8_t)in[i]], b = dt[(uint8_t)in[i + 1]];
    uint32_t c = dt[(uint8_t)in[i + 2]], d = dt[(uint8_t)in[i + 3]];
    if ((a | b | c | d) & 0xC0)
      break;
    uint32_t v = a << 18 | b << 12 | c << 6 | d;
    out[o] = (uint8_t)(v >> 16);
    out[o + 1] = (uint8_t)(v >> 8);
    out[o + 2] = (uint8_t)v;
    i += 4;
    o += 3;
  }
  *written = o;
  return i;
}

static inline size_t enc_b64_decode_mime_tail(uint8_t *out, size_t out_cap, size_t *written,
                                              const char *in, size_t in_len, int url, uint32_t *acc,
                                              uint32_t *nacc) {
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  uint32_t a = *acc, k = *nacc;
  size_t i = 0, o = 0;
  for (; i < in_len; i++) {
    uint8_t v = dt[(uint8_t)in[i]];
    if (v < 64) {
      if (k == 3) {
        if (out_cap - o < 3)
          break;
        a = a << 6 | v;
        out[o] = (uint8_t)(a >> 16);
        out[o + 1] = (uint8_t)(a >> 8);
        out[o + 2] = (uint8_t)a;
        o += 3;
        a = 0;
        k = 0;
      } else {
        a = a << 6 | v;
        k++;
      }
    } else if (v == ENC_DTAB_PAD) {
      break;
    }
  }
  *acc = a;
  *nacc = k;
  *written = o;
  return i;
}

// Base32.

static inline size_t enc_b32_encode_tail(char *out, const uint8_t *in, size_t in_len, int hex) {
  const char *abc = hex ? enc_b32_alpha_hex : enc_b32_alpha_std;
  size_t i = 0;
  for (; in_len - i >= 5; i += 5) {
    uint64_t v = (uint64_t)in[i] << 32 | (uint64_t)in[i + 1] << 24 | (uint64_t)in[i + 2] << 16 |
                 (uint64_t)in[i + 3] << 8 | in[i + 4];
    for (int j = 0; j < 8; j++)
      out[j] = abc[(v >> (35 - 5 * j)) & 31];
    out += 8;
  }
  return i;
}

static inline size_t enc_b32_decode_tail(uint8_t *out, size_t out_cap, size_t *written,
                                         const char *in, size_t in_len, int hex) {
  const uint8_t *dt = hex ? enc_b32_dtab_hex : enc_b32_dtab_std;
  size_t i = 0, o = 0;
  while (in_len - i >= 8 && out_cap - o >= 5) {
    uint64_t v = 0;
    uint32_t bad = 0;
    for (int j = 0; j < 8; j++) {
      uint32_t d = dt[(uint8_t)in[i + j]];
      bad |= d;
      v = v << 5 | (d & 31);
    }
    if (bad & 0xE0)
      break;
    for (int j = 0; j < 5; j++)
      out[o + j] = (uint8_t)(v >> (32 - 8 * j));
    i += 8;
    o += 5;
  }
  *written = o;
  return i;
}

// Quoted-printable.

// enc_qp_decode_tail copies bytes that a clean decoder state passes through
// unchanged and decodes complete `=XX`; it stops before a `=` that needs more
// thought and before a space or tab that may start trailing white space.
static inline size_t enc_qp_decode_tail(uint8_t *out, size_t out_cap, size_t *written,
                                        const char *in, size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  size_t i = 0, o = 0;
  while (i < in_len && o < out_cap) {
    uint8_t c = p[i];
    if (c == '=') {
      int hi, lo;
      if (in_len - i < 3 || (hi = enc_hex_value(p[i + 1])) < 0 ||
          (lo = enc_hex_value(p[i + 2])) < 0)
        break;
      out[o++] = (uint8_t)(hi << 4 | lo);
      i += 3;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (in_len - i < 2)
        break;
      uint8_t d = p[i + 1];
      if (d == ' ' || d == '\t' || d == '\r' || d == '\n')
        break;
    }
    out[o++] = c;
    i++;
  }
  *written = o;
  return i;
}

// enc_qp_decode_special decides, without the state machine, what a clean
// decoder does with the special byte at `p` (a `=`, or a space or tab
// followed by white space or a line break) when the bytes that decide it are
// all among the `avail` at `p`: it returns the input bytes consumed and sets
// `*written` (at most `out_left`), or returns 0 to leave the case to the
// state machine. SIMD and SWAR kernels use it; the scalar kernel does not, so
// that the tests compare it with the state machine.
static inline size_t enc_qp_decode_special(uint8_t *out, size_t out_left, size_t *written,
                                           const uint8_t *p, size_t avail) {
  *written = 0;
  if (p[0] == '=') {
    if (avail >= 2 && p[1] == '\n')
      return 2; // soft line break
    if (avail < 3)
      return 0;
    if (p[1] == '\r' && p[2] == '\n')
      return 3;
    int hi = enc_hex_value(p[1]), lo = enc_hex_value(p[2]);
    if (hi < 0 || lo < 0 || out_left < 1)
      return 0;
    out[0] = (uint8_t)(hi << 4 | lo);
    *written = 1;
    return 3;
  }
  size_t run = 0;
  while (run < avail && run <= ENC_QP_MAX_SPACE_RUN && (p[run] == ' ' || p[run] == '\t'))
    run++;
  if (run > ENC_QP_MAX_SPACE_RUN || avail - run < 2)
    return 0;
  uint8_t c = p[run];
  if (c == '\n' || (c == '\r' && p[run + 1] == '\n'))
    return run; // trailing white space: dropped
  if (out_left < run)
    return 0;
  memcpy(out, p, run); // white space inside a line: kept
  *written = run;
  return run;
}

// enc_qp_literal_run applies the 76-column rule to a run of `run` (>= 1)
// bytes that every kernel found can be copied literally: at the limit it
// writes a soft line break ("=\r\n") to `out`, sets `*out_used` to 3 and
// returns 0; otherwise it returns how many of the bytes fit on the line (the
// caller copies them with its own vector or word store), sets `*out_used` to
// that count and advances `*col`.
static inline size_t enc_qp_literal_run(char *out, size_t *out_used, size_t run, uint32_t *col) {
  if (*col >= 75) {
    memcpy(out, "=\r\n", 3);
    *out_used = 3;
    *col = 0;
    return 0;
  }
  size_t k = run < 75 - *col ? run : 75 - *col;
  *col += (uint32_t)k;
  *out_used = k;
  return k;
}

// enc_qp_encode_step encodes the byte at `in` (with `avail` >= 1 bytes from
// there, the end of the input after them when `avail` < 3) into `out` (room
// for 6), sets `*written` and returns the input bytes used (2 for a CRLF).
static inline size_t enc_qp_encode_step(char *out, size_t *written, const uint8_t *in, size_t avail,
                                        int binary, uint32_t *col) {
  uint8_t b = in[0];
  if (!binary) {
    if (b == '\n') {
      out[0] = '\n';
      *written = 1;
      *col = 0;
      return 1;
    }
    if (b == '\r' && avail >= 2 && in[1] == '\n') {
      out[0] = '\r';
      out[1] = '\n';
      *written = 2;
      *col = 0;
      return 2;
    }
  }
  int end;
  if (avail < 2)
    end = 1;
  else if (binary)
    end = 0;
  else
    end = in[1] == '\n' || (in[1] == '\r' && avail >= 3 && in[2] == '\n');
  int literal = (b >= 33 && b <= 126 && b != '=') || ((b == ' ' || b == '\t') && !end);
  uint32_t len = literal ? 1 : 3;
  uint32_t limit = end ? 76 : 75;
  size_t t = 0;
  if (*col + len > limit) {
    out[t++] = '=';
    out[t++] = '\r';
    out[t++] = '\n';
    *col = 0;
  }
  if (literal) {
    out[t++] = (char)b;
  } else {
    out[t++] = '=';
    out[t++] = enc_hex_digits_upper[b >> 4];
    out[t++] = enc_hex_digits_upper[b & 15];
  }
  *col += len;
  *written = t;
  return 1;
}

// enc_qp_encode_tail encodes the bytes that have two bytes of lookahead.
static inline size_t enc_qp_encode_tail(char *out, size_t out_cap, size_t *written,
                                        const uint8_t *in, size_t in_len, int binary,
                                        uint32_t *col) {
  size_t i = 0, o = 0;
  while (in_len - i > 2 && out_cap - o >= 6) {
    size_t w;
    i += enc_qp_encode_step(out + o, &w, in + i, in_len - i, binary, col);
    o += w;
  }
  *written = o;
  return i;
}

#endif // ENC_KERNELS_INTERNAL_H
