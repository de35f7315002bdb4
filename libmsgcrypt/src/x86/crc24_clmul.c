// crc24_clmul.c: the CRC-24 of OpenPGP's ASCII armor (RFC 9580 §6.1) by
// carry-less multiplication (PCLMULQDQ), for the "avx2" and "adxsha"
// entries of the implementation table (compiled with the avx2 level's flags,
// which include -mpclmul).
//
// A CRC is the message polynomial M(x)·x^24 mod P(x), with the initial
// register XORed into the first 24 bits of the message. Only M mod P
// matters, so the bulk of the message is folded into 128-bit accumulators:
// an accumulator A = H·x^64 + L moved 512 bits further along is congruent to
// H·(x^576 mod P) + L·(x^512 mod P), two 64×24-bit products that fit in 128
// bits, and the next block is XORed in. Four accumulators run side by side
// over 64-byte strides, then fold into one (by x^128), which takes the
// remaining 16-byte blocks. The 16 bytes of that accumulator, followed by the
// last bytes of the message, are congruent to the whole message, so the
// portable slice-by-8 code finishes from a zero register: no Barrett step.
// Registers hold the message most significant byte first (a byte swap on
// load), so bit i of a register is the coefficient of x^i.
#include <immintrin.h>

#include "pgp_crc24_internal.h"

// x^k mod P for the folding distances 576, 512 (four blocks) and 192, 128
// (one block); P = x^24 + 0x864CFB. The tests compare every length 0..300
// and random splits with the bit-by-bit definition.
#define K576 0xb937a7u
#define K512 0x7db43eu
#define K192 0xb22b31u
#define K128 0x6243dau

// fold returns a register congruent to `a`·x^(distance) + `b`, where `k`
// holds x^(distance+64) mod P in its high half and x^distance mod P in its
// low half.
static inline __m128i fold(__m128i a, __m128i k, __m128i b) {
  __m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
  __m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
  return _mm_xor_si128(_mm_xor_si128(hi, lo), b);
}

uint32_t mc_pgp_crc24_clmul(uint32_t crc, const uint8_t *in, size_t in_len) {
  if (in_len < 64)
    return mc_pgp_crc24_scalar(crc, in, in_len);
  const __m128i swap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i k4 = _mm_set_epi64x(K576, K512);
  const __m128i k1 = _mm_set_epi64x(K192, K128);
  const __m128i *p = (const __m128i *)in;
  __m128i x0 = _mm_shuffle_epi8(_mm_loadu_si128(p), swap);
  __m128i x1 = _mm_shuffle_epi8(_mm_loadu_si128(p + 1), swap);
  __m128i x2 = _mm_shuffle_epi8(_mm_loadu_si128(p + 2), swap);
  __m128i x3 = _mm_shuffle_epi8(_mm_loadu_si128(p + 3), swap);
  // The register enters as the message's first 24 bits (x^127 .. x^104).
  x0 = _mm_xor_si128(x0, _mm_set_epi64x((long long)((uint64_t)(crc & 0xffffffu) << 40), 0));
  size_t i = 64;
  for (; in_len - i >= 64; i += 64) {
    p = (const __m128i *)(in + i);
    x0 = fold(x0, k4, _mm_shuffle_epi8(_mm_loadu_si128(p), swap));
    x1 = fold(x1, k4, _mm_shuffle_epi8(_mm_loadu_si128(p + 1), swap));
    x2 = fold(x2, k4, _mm_shuffle_epi8(_mm_loadu_si128(p + 2), swap));
    x3 = fold(x3, k4, _mm_shuffle_epi8(_mm_loadu_si128(p + 3), swap));
  }
  __m128i acc = fold(fold(fold(x0, k1, x1), k1, x2), k1, x3);
  for (; in_len - i >= 16; i += 16)
    acc = fold(acc, k1, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(in + i)), swap));
  uint8_t head[16];
  _mm_storeu_si128((__m128i *)head, _mm_shuffle_epi8(acc, swap));
  uint32_t r = mc_pgp_crc24_scalar(0, head, sizeof head);
  return mc_pgp_crc24_scalar(r, in + i, in_len - i);
}
