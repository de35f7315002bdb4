// utf8_avx2.h: UTF-8 validation with AVX2, shared by the avx2 and avx512
// kernels (both files are built with AVX2). It follows the method of Keiser
// and Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte"
// (Software: Practice and Experience, 2021): every pair of adjacent bytes is
// classified by three 16-entry table lookups (high nibble of the first byte,
// low nibble of the first byte, high nibble of the second), whose AND is
// non-zero exactly when the pair cannot occur in UTF-8; the second and third
// continuation bytes of 3- and 4-byte sequences, which the pair tables see as
// "two continuations in a row", are then checked against the lead bytes two
// and three places back. 64 bytes of ASCII cost one OR and one test.
// Private, header-only; the scalar decoder in scan.c is the specification.
#ifndef MP_UTF8_AVX2_H
#define MP_UTF8_AVX2_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// Error classes of a byte pair (first, second); a pair is ill-formed when
// all three lookups share a bit.
#define MP_U8_TOO_SHORT 0x01   // lead byte, then ASCII or another lead
#define MP_U8_TOO_LONG 0x02    // ASCII, then a continuation byte
#define MP_U8_OVERLONG3 0x04   // E0, then 80..9F
#define MP_U8_TOO_LARGE 0x08   // F4, then 90..BF; or F5..FF, then 90..BF
#define MP_U8_SURROGATE 0x10   // ED, then A0..BF
#define MP_U8_OVERLONG2 0x20   // C0 or C1, then a continuation byte
#define MP_U8_HIGH_OR_OV4 0x40 // F0, then 80..8F; or F5..FF, then 80..8F
#define MP_U8_TWO_CONTS 0x80   // a continuation byte, then another one
// Pairs whose verdict does not depend on the first byte's low nibble.
#define MP_U8_ANY (MP_U8_TOO_SHORT | MP_U8_TOO_LONG | MP_U8_TWO_CONTS)

// MP_U8_TABLE makes a 16-entry lookup table for VPSHUFB, in both lanes.
#define MP_U8_TABLE(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)                                \
  _mm256_setr_epi8((char)(a), (char)(b), (char)(c), (char)(d), (char)(e), (char)(f), (char)(g),    \
                   (char)(h), (char)(i), (char)(j), (char)(k), (char)(l), (char)(m), (char)(n),    \
                   (char)(o), (char)(p), (char)(a), (char)(b), (char)(c), (char)(d), (char)(e),    \
                   (char)(f), (char)(g), (char)(h), (char)(i), (char)(j), (char)(k), (char)(l),    \
                   (char)(m), (char)(n), (char)(o), (char)(p))

// mp_u8_prev returns `cur` shifted towards higher addresses by `k` (1 to 3)
// bytes, the first `k` taken from the end of `prev`: byte i of the result is
// the byte k places before byte i of `cur` in the input.
#define mp_u8_prev(cur, prev, k)                                                                   \
  _mm256_alignr_epi8((cur), _mm256_permute2x128_si256((prev), (cur), 0x21), 16 - (k))

// mp_u8_block_errors returns a vector that is non-zero when the 32 bytes of
// `cur`, read after the 32 bytes of `prev`, hold an ill-formed sequence that
// ends in `cur` (a sequence still open at its end is judged with the next
// block).
static inline __m256i mp_u8_block_errors(__m256i cur, __m256i prev) {
  const __m256i first_high = MP_U8_TABLE(
      // 0..7: ASCII
      MP_U8_TOO_LONG, MP_U8_TOO_LONG, MP_U8_TOO_LONG, MP_U8_TOO_LONG, MP_U8_TOO_LONG,
      MP_U8_TOO_LONG, MP_U8_TOO_LONG, MP_U8_TOO_LONG,
      // 8..B: continuation bytes
      MP_U8_TWO_CONTS, MP_U8_TWO_CONTS, MP_U8_TWO_CONTS, MP_U8_TWO_CONTS,
      // C: 2-byte leads (C0, C1 overlong)
      MP_U8_TOO_SHORT | MP_U8_OVERLONG2,
      // D: 2-byte leads
      MP_U8_TOO_SHORT,
      // E: 3-byte leads
      MP_U8_TOO_SHORT | MP_U8_OVERLONG3 | MP_U8_SURROGATE,
      // F: 4-byte leads and bytes that never occur
      MP_U8_TOO_SHORT | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4);
  const __m256i first_low = MP_U8_TABLE(
      // 0: C0, E0, F0
      MP_U8_ANY | MP_U8_OVERLONG3 | MP_U8_OVERLONG2 | MP_U8_HIGH_OR_OV4,
      // 1: C1
      MP_U8_ANY | MP_U8_OVERLONG2,
      // 2..3
      MP_U8_ANY, MP_U8_ANY,
      // 4: F4
      MP_U8_ANY | MP_U8_TOO_LARGE,
      // 5..C: F5..FC
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      // D: ED (and FD)
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4 | MP_U8_SURROGATE,
      // E..F: FE, FF
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4,
      MP_U8_ANY | MP_U8_TOO_LARGE | MP_U8_HIGH_OR_OV4);
  const __m256i second_high = MP_U8_TABLE(
      // 0..7: ASCII
      MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT,
      MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT,
      // 8: 80..8F
      MP_U8_TOO_LONG | MP_U8_OVERLONG2 | MP_U8_TWO_CONTS | MP_U8_OVERLONG3 | MP_U8_HIGH_OR_OV4,
      // 9: 90..9F
      MP_U8_TOO_LONG | MP_U8_OVERLONG2 | MP_U8_TWO_CONTS | MP_U8_OVERLONG3 | MP_U8_TOO_LARGE,
      // A..B: A0..BF
      MP_U8_TOO_LONG | MP_U8_OVERLONG2 | MP_U8_TWO_CONTS | MP_U8_SURROGATE | MP_U8_TOO_LARGE,
      MP_U8_TOO_LONG | MP_U8_OVERLONG2 | MP_U8_TWO_CONTS | MP_U8_SURROGATE | MP_U8_TOO_LARGE,
      // C..F: leads
      MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT, MP_U8_TOO_SHORT);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i prev1 = mp_u8_prev(cur, prev, 1);
  __m256i pair = _mm256_and_si256(
      _mm256_and_si256(
          _mm256_shuffle_epi8(first_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
          _mm256_shuffle_epi8(first_low, _mm256_and_si256(prev1, nibble))),
      _mm256_shuffle_epi8(second_high, _mm256_and_si256(_mm256_srli_epi16(cur, 4), nibble)));
  // Where the byte two back is E0..FF or three back F0..FF, this byte must
  // be a continuation: exactly the places where TWO_CONTS is expected. A
  // saturating subtract leaves the high bit set only for those lead bytes.
  __m256i third = _mm256_subs_epu8(mp_u8_prev(cur, prev, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
  __m256i fourth =
      _mm256_subs_epu8(mp_u8_prev(cur, prev, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
  __m256i must_cont =
      _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
  return _mm256_xor_si256(must_cont, pair);
}

// mp_u8_open_at_end is non-zero when the block ends inside a sequence: a
// lead of 4 bytes among its last 3, of 3 among its last 2, of 2 last.
static inline __m256i mp_u8_open_at_end(__m256i v) {
  const __m256i max = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                       (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
  return _mm256_subs_epu8(v, max);
}

// mp_utf8_valid_avx2 implements mp_scanner.utf8_valid.
static inline bool mp_utf8_valid_avx2(const uint8_t *buf, size_t len) {
  __m256i prev = _mm256_setzero_si256(), err = _mm256_setzero_si256();
  __m256i open = _mm256_setzero_si256();
  size_t i = 0;
  for (; len - i >= 64; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(buf + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(buf + i + 32));
    if (_mm256_movemask_epi8(_mm256_or_si256(a, b)) == 0) {
      // All ASCII: only a sequence left open by the block before is wrong.
      err = _mm256_or_si256(err, open);
      open = _mm256_setzero_si256();
      prev = b;
      continue;
    }
    err = _mm256_or_si256(err,
                          _mm256_or_si256(mp_u8_block_errors(a, prev), mp_u8_block_errors(b, a)));
    open = mp_u8_open_at_end(b);
    prev = b;
  }
  // The rest (under 64 bytes) is checked in a zeroed copy: the NUL after
  // it ends any sequence still open, so a truncated one is an error there.
  uint8_t tail[64];
  memset(tail, 0, sizeof tail);
  if (len > i)
    memcpy(tail, buf + i, len - i);
  __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)tail);
  __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(tail + 32));
  err =
      _mm256_or_si256(err, _mm256_or_si256(mp_u8_block_errors(a, prev), mp_u8_block_errors(b, a)));
  return _mm256_testz_si256(err, err) != 0;
}

#endif // MP_UTF8_AVX2_H
