// qp_encode_x86_internal.h: the quoted-printable body encoder that the x86
// implementations share (sse41.c, avx2.c, avx512.c), written with 128-bit
// SSSE3/SSE4.1 intrinsics so that each file compiles it with its own ISA
// flags. Private, header-only.
//
// Each step takes 16 bytes: it classifies them (literal, escape, line
// break; text mode decides white space and the column limit of each byte
// from the two bytes after it, as enc_qp_encode_step() does), turns every
// byte into its output ("=XY" for an escape) with one shuffle per 4 bytes,
// and works out from a prefix sum of the output lengths whether a byte of
// the first line in the block passes its column limit (75, or 76 before a
// line break). If none does, the whole block goes; otherwise the bytes
// before that one go, then a soft line break, and the next step starts at
// that byte. A line after a break in the block has at most 15 bytes, 45
// characters, so it cannot reach the limit. The output is the scalar
// encoder's byte for byte.
#ifndef ENC_QP_ENCODE_X86_INTERNAL_H
#define ENC_QP_ENCODE_X86_INTERNAL_H

#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels_internal.h"

// ENC_QP_BLOCK_ROOM is the output room each step needs: 16 bytes of 3
// characters, a soft line break, and what the last 16-byte store writes
// past them, with margin.
enum { ENC_QP_BLOCK_ROOM = 96 };

// Row m: the shuffle that keeps, of four dwords laid out as (character or
// `=`, high digit, low digit, -), byte 0 of each literal and bytes 0-2 of
// each escape (bit d of m set: dword d is an escape); 0x80 after them.
static const uint8_t enc_qpe_compact[16][16] __attribute__((aligned(16))) = {
#define R 0x80
    {0, 4, 8, 12, R, R, R, R, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 8, 12, R, R, R, R, R, R, R, R, R, R},
    {0, 4, 5, 6, 8, 12, R, R, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 5, 6, 8, 12, R, R, R, R, R, R, R, R},
    {0, 4, 8, 9, 10, 12, R, R, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 8, 9, 10, 12, R, R, R, R, R, R, R, R},
    {0, 4, 5, 6, 8, 9, 10, 12, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, R, R, R, R, R, R},
    {0, 4, 8, 12, 13, 14, R, R, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 8, 12, 13, 14, R, R, R, R, R, R, R, R},
    {0, 4, 5, 6, 8, 12, 13, 14, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 5, 6, 8, 12, 13, 14, R, R, R, R, R, R},
    {0, 4, 8, 9, 10, 12, 13, 14, R, R, R, R, R, R, R, R},
    {0, 1, 2, 4, 8, 9, 10, 12, 13, 14, R, R, R, R, R, R},
    {0, 4, 5, 6, 8, 9, 10, 12, 13, 14, R, R, R, R, R, R},
    {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, R, R, R, R},
#undef R
};

static inline __m128i enc_qpe_eq(__m128i v, char c) {
  return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

// enc_qpe_put4 writes the output of the four bytes laid out in `g` whose
// escapes are the bits of `m` (0..15) at `out` (16 bytes of room) and
// returns its length.
static inline size_t enc_qpe_put4(char *out, __m128i g, unsigned m) {
  __m128i t = _mm_load_si128((const __m128i *)enc_qpe_compact[m]);
  _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(g, t));
  return 4 + 2 * (size_t)__builtin_popcount(m);
}

// enc_qpe_step16 encodes bytes from the 16 at `in` (`avail` >= 18 readable
// there) at `out` (ENC_QP_BLOCK_ROOM bytes of room), advances `*o` by what
// it keeps and updates `*col`; it returns the input bytes taken (1..16, or
// 0 when a soft line break at the column limit came first).
static inline size_t enc_qpe_step16(char *out, size_t *o_io, const uint8_t *in, int binary,
                                    uint32_t *col) {
  const __m128i digits = _mm_loadu_si128((const __m128i *)enc_hex_digits_upper);
  const __m128i low4 = _mm_set1_epi8(0x0F);
  size_t o = *o_io;
  uint32_t c = *col;
  __m128i v = _mm_loadu_si128((const __m128i *)in);
  __m128i clamp = _mm_max_epu8(_mm_min_epu8(v, _mm_set1_epi8(126)), _mm_set1_epi8(33));
  __m128i lit = _mm_andnot_si128(enc_qpe_eq(v, '='), _mm_cmpeq_epi8(clamp, v));
  __m128i ws = _mm_or_si128(enc_qpe_eq(v, ' '), enc_qpe_eq(v, '\t'));
  __m128i escv; // bytes written as "=XY"
  unsigned brk = 0, endm = 0;
  if (binary) {
    escv = _mm_cmpeq_epi8(_mm_or_si128(lit, ws), _mm_setzero_si128());
  } else {
    __m128i n = _mm_loadu_si128((const __m128i *)(in + 1));
    __m128i n2 = _mm_loadu_si128((const __m128i *)(in + 2));
    // Bytes before a line break (LF, or CR LF): white space there is
    // escaped, and the limit is column 76 instead of 75.
    __m128i end =
        _mm_or_si128(enc_qpe_eq(n, '\n'), _mm_and_si128(enc_qpe_eq(n, '\r'), enc_qpe_eq(n2, '\n')));
    // Line breaks, which stand for themselves: LF, and CR before LF (a
    // lone CR is escaped). Each starts a new line at column 0.
    __m128i brkv =
        _mm_or_si128(enc_qpe_eq(v, '\n'), _mm_and_si128(enc_qpe_eq(v, '\r'), enc_qpe_eq(n, '\n')));
    __m128i keep = _mm_or_si128(_mm_or_si128(lit, brkv), _mm_andnot_si128(end, ws));
    escv = _mm_cmpeq_epi8(keep, _mm_setzero_si128());
    brk = (unsigned)_mm_movemask_epi8(brkv);
    endm = (unsigned)_mm_movemask_epi8(end);
  }
  unsigned esc = (unsigned)_mm_movemask_epi8(escv);
  // Only the first line of the block (before its first line break) can
  // pass its column limit; the lines after a break in the block are too
  // short to. When the first line ends past column 75, a prefix sum of
  // the output lengths (1 or 3 each, at most 48) finds the first byte
  // that passes its limit.
  unsigned first = (unsigned)__builtin_ctz(brk | 0x10000);
  uint32_t seg = first + 2 * (uint32_t)__builtin_popcount(esc & ((1u << first) - 1));
  unsigned over = 0, m = 16; // bytes kept
  if (c + seg > 75) {
    __m128i p = _mm_sub_epi8(_mm_set1_epi8(1), _mm_add_epi8(escv, escv));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 1));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 2));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 4));
    p = _mm_add_epi8(p, _mm_slli_si128(p, 8));
    int room = 75 - (int)c; // c <= 76
    unsigned o75 = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(p, _mm_set1_epi8((char)room)));
    unsigned o76 = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(p, _mm_set1_epi8((char)(room + 1))));
    over = ((o75 & ~endm) | (o76 & endm)) & ((1u << first) - 1);
    if (over)
      m = (unsigned)__builtin_ctz(over);
  }
  if (esc == 0) { // nothing to expand
    _mm_storeu_si128((__m128i *)(out + o), v);
  } else {
    __m128i hv = _mm_shuffle_epi8(digits, _mm_and_si128(_mm_srli_epi16(v, 4), low4));
    __m128i lv = _mm_shuffle_epi8(digits, _mm_and_si128(v, low4));
    __m128i ch = _mm_blendv_epi8(v, _mm_set1_epi8('='), escv);
    __m128i a = _mm_unpacklo_epi8(ch, hv), b = _mm_unpacklo_epi8(lv, lv);
    size_t q = o;
    q += enc_qpe_put4(out + q, _mm_unpacklo_epi16(a, b), esc & 15);
    q += enc_qpe_put4(out + q, _mm_unpackhi_epi16(a, b), (esc >> 4) & 15);
    if (m > 8) {
      a = _mm_unpackhi_epi8(ch, hv), b = _mm_unpackhi_epi8(lv, lv);
      q += enc_qpe_put4(out + q, _mm_unpacklo_epi16(a, b), (esc >> 8) & 15);
      enc_qpe_put4(out + q, _mm_unpackhi_epi16(a, b), esc >> 12);
    }
  }
  uint32_t len = m + 2 * (uint32_t)__builtin_popcount(esc & ((1u << m) - 1));
  o += len;
  if (over) { // a soft line break before byte m
    memcpy(out + o, "=\r\n", 3);
    o += 3;
    c = 0;
  } else if (brk) { // the column is what follows the last line break
    unsigned last = 31 - (unsigned)__builtin_clz(brk);
    c = len - (last + 1 + 2 * (uint32_t)__builtin_popcount(esc & ((2u << last) - 1)));
  } else {
    c += len;
  }
  *o_io = o;
  *col = c;
  return m;
}

// enc_qp_encode_x86 is the `qp_encode` kernel of enc_impl (see there): it
// takes 16 bytes at a time while 18 remain (16 and their lookahead) and the
// output has ENC_QP_BLOCK_ROOM bytes of room.
static inline size_t enc_qp_encode_x86(char *out, size_t out_cap, size_t *written,
                                       const uint8_t *in, size_t in_len, int binary,
                                       uint32_t *col) {
  size_t i = 0, o = 0;
  while (in_len - i >= 18 && out_cap - o >= ENC_QP_BLOCK_ROOM)
    i += enc_qpe_step16(out, &o, in + i, binary, col);
  *written = o;
  return i;
}

#endif // ENC_QP_ENCODE_X86_INTERNAL_H
