// cfb_sha1_shani.c: the "adxsha" entry's CFB-with-SHA-1 kernel
// (cfb_sha1_internal.h). CFB encryption is a serial chain: each AES call
// needs the previous ciphertext block, so AES-NI sits mostly idle waiting on
// its own latency. SHA-1 of the same 64 bytes (the SHA-NI round and message
// schedule instructions, FIPS 180-4 §6.1.2) is independent of that chain, so
// one loop issues both and the out-of-order core runs SHA-1 in the gaps.
#include <immintrin.h>

#include "cfb_sha1_internal.h"

static inline __attribute__((always_inline)) __m128i aes_block(const __m128i *rk,
                                                               const unsigned rounds, __m128i x) {
  x = _mm_xor_si128(x, rk[0]);
  for (unsigned r = 1; r < rounds; r++)
    x = _mm_aesenc_si128(x, rk[r]);
  return _mm_aesenclast_si128(x, rk[rounds]);
}

// SHA-1 rounds 4g .. 4g+3 with function `f` (0 to 3 for rounds 0-19, 20-39,
// 40-59, 60-79): sha1nexte derives E from the ABCD of four rounds earlier
// and adds the schedule words; the first group adds them to the saved E.
#define SHA_GROUP(g, f)                                                                            \
  do {                                                                                             \
    __m128i e_ = (g) == 0 ? _mm_add_epi32(e0, w[0]) : _mm_sha1nexte_epu32(prev, w[g]);             \
    prev = abcd;                                                                                   \
    abcd = _mm_sha1rnds4_epu32(abcd, e_, f);                                                       \
  } while (0)

// W[16g .. 16g+3] from the four groups before it: W[t] = rotl1(W[t-3] ^
// W[t-8] ^ W[t-14] ^ W[t-16]), which sha1msg1 and sha1msg2 split in two.
#define SCHEDULE(g)                                                                                \
  w[g] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(w[(g)-4], w[(g)-3]), w[(g)-2]),       \
                            w[(g)-1])

#define CFB_BLOCK(j)                                                                               \
  do {                                                                                             \
    iv = _mm_xor_si128(aes_block(rk, rounds, iv), p[j]);                                           \
    _mm_storeu_si128((__m128i *)(out + 16 * (j)), iv);                                             \
  } while (0)

static inline __attribute__((always_inline)) void
blocks(mc_cfb_sha1 *c, const unsigned rounds, uint8_t *out, const uint8_t *in, size_t num_blocks) {
  __m128i rk[15];
  for (unsigned r = 0; r <= rounds; r++)
    rk[r] = _mm_loadu_si128((const __m128i *)c->rk[r]);
  const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  // ABCD with A in the top lane, E in the top lane of its own vector.
  __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)c->h), 0x1b);
  __m128i e0 = _mm_set_epi32((int)c->h[4], 0, 0, 0);
  __m128i iv = _mm_loadu_si128((const __m128i *)c->iv);
  for (size_t b = 0; b < num_blocks; b++, in += 64, out += 64) {
    __m128i p[4], w[20], prev = abcd;
    const __m128i abcd_save = abcd, e_save = e0;
    // Every load before the first store: `out` may be `in`.
    for (int j = 0; j < 4; j++) {
      p[j] = _mm_loadu_si128((const __m128i *)(in + 16 * j));
      w[j] = _mm_shuffle_epi8(p[j], bswap);
    }
    SHA_GROUP(0, 0);
    SHA_GROUP(1, 0);
    SHA_GROUP(2, 0);
    CFB_BLOCK(0);
    SHA_GROUP(3, 0);
    SCHEDULE(4);
    SHA_GROUP(4, 0);
    SCHEDULE(5);
    SHA_GROUP(5, 1);
    SCHEDULE(6);
    SHA_GROUP(6, 1);
    CFB_BLOCK(1);
    SCHEDULE(7);
    SHA_GROUP(7, 1);
    SCHEDULE(8);
    SHA_GROUP(8, 1);
    SCHEDULE(9);
    SHA_GROUP(9, 1);
    SCHEDULE(10);
    SHA_GROUP(10, 2);
    CFB_BLOCK(2);
    SCHEDULE(11);
    SHA_GROUP(11, 2);
    SCHEDULE(12);
    SHA_GROUP(12, 2);
    SCHEDULE(13);
    SHA_GROUP(13, 2);
    SCHEDULE(14);
    SHA_GROUP(14, 2);
    CFB_BLOCK(3);
    SCHEDULE(15);
    SHA_GROUP(15, 3);
    SCHEDULE(16);
    SHA_GROUP(16, 3);
    SCHEDULE(17);
    SHA_GROUP(17, 3);
    SCHEDULE(18);
    SHA_GROUP(18, 3);
    SCHEDULE(19);
    SHA_GROUP(19, 3);
    e0 = _mm_sha1nexte_epu32(prev, e_save);
    abcd = _mm_add_epi32(abcd, abcd_save);
  }
  _mm_storeu_si128((__m128i *)c->iv, iv);
  abcd = _mm_shuffle_epi32(abcd, 0x1b);
  _mm_storeu_si128((__m128i *)c->h, abcd);
  c->h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

void mc_cfb_sha1_blocks_shani(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t num_blocks) {
  // A constant round count lets the compiler unroll the AES rounds.
  if (c->rounds == 14)
    blocks(c, 14, out, in, num_blocks);
  else if (c->rounds == 12)
    blocks(c, 12, out, in, num_blocks);
  else
    blocks(c, 10, out, in, num_blocks);
}
