// ocb_vaes.c: AES-OCB's whole-block loops with VAES, the AES instructions on
// 256-bit registers: two blocks per instruction, sixteen blocks per iteration,
// which keeps both AES units of the CPU busy where the 128-bit loops of
// ocb_aesni.c leave them waiting. Built with -mavx2 -mvaes (meson.build's
// 'vaes' level) and called by ocb.c only when CPUID reports AVX2, VAES and
// AES-NI; it uses the round keys that ocb_aesni.c's key schedule wrote. The
// offsets of blocks i+1 .. i+16 (i a multiple of 16) are Offset_i xor a prefix
// xor of L_ntz(1) .. L_ntz(j), the same for every iteration except the
// sixteenth, which adds L_ntz(i+16): so an iteration needs one table load
// indexed by the (public) block number, and the rest are registers. The
// blocks before the first multiple of 16 (a stream resumed mid-chunk) and
// fewer than sixteen left over go to ocb_aesni.c's loops. No branch or index depends on a secret.
#include <immintrin.h>
#include <string.h>

#include "aead_internal.h"

enum { PAIRS = 8, BLOCKS = 2 * PAIRS };

// mode of the shared loop: encrypt, decrypt, or hash associated data.
enum { MODE_ENCRYPT, MODE_DECRYPT, MODE_HASH };

static inline __m128i load128(const uint8_t *p) {
  return _mm_loadu_si128((const __m128i *)p);
}

static inline __m256i load256(const uint8_t *p) {
  return _mm256_loadu_si256((const __m256i *)p);
}

static inline void store256(uint8_t *p, __m256i v) {
  _mm256_storeu_si256((__m256i *)p, v);
}

// key broadcasts round key `r` of direction `dir` to both lanes.
static inline __m256i key(const mc_aes_ocb_ctx *ctx, int dir, unsigned r) {
  return _mm256_broadcastsi128_si256(load128(ctx->round_keys[dir][r]));
}

// round_all runs one middle round of AES (decryption's when `dir` is 1) on
// the sixteen blocks.
static inline __attribute__((always_inline)) void round_all(__m256i b[PAIRS], __m256i kr,
                                                            const int dir) {
  for (unsigned k = 0; k < PAIRS; k++)
    b[k] = dir ? _mm256_aesdec_epi128(b[k], kr) : _mm256_aesenc_epi128(b[k], kr);
}

// run_blocks is the loop of mc_ocb_vaes_crypt and mc_ocb_vaes_hash, inlined
// once per mode so that `mode` is a constant in each copy. `done`, a
// multiple of 16, is the number of blocks of the message before `in`. It
// returns the number of blocks it did (a multiple of 16); offset_io and
// sum_io advance.
static inline __attribute__((always_inline)) size_t
run_blocks(const mc_aes_ocb_ctx *ctx, const int mode, uint8_t *out, const uint8_t *in,
           size_t num_blocks, uint64_t done, uint8_t offset_io[16], uint8_t sum_io[16]) {
  const int dir = mode == MODE_DECRYPT ? 1 : 0;
  const unsigned nr = mc_ocb_rounds(ctx);
  if (num_blocks < BLOCKS)
    return 0;
  // prefix[j] = L_ntz(1) xor ... xor L_ntz(j), j = 0..15.
  __m128i prefix[BLOCKS];
  prefix[0] = _mm_setzero_si128();
  for (unsigned j = 1; j < BLOCKS; j++)
    prefix[j] = _mm_xor_si128(prefix[j - 1], load128(ctx->l[__builtin_ctz(j)]));
  // first[k] and last[k]: the offsets of pair k relative to Offset_i, xor the
  // first and the last round key; the last pair's second lane lacks
  // L_ntz(i+16), added in the loop.
  const __m256i k0 = key(ctx, dir, 0), kn = key(ctx, dir, nr);
  __m256i first[PAIRS], last[PAIRS];
  for (unsigned k = 0; k < PAIRS; k++) {
    __m128i hi = k + 1 < PAIRS ? prefix[2 * k + 2] : prefix[BLOCKS - 1];
    __m256i rel = _mm256_setr_m128i(prefix[2 * k + 1], hi);
    first[k] = _mm256_xor_si256(rel, k0);
    last[k] = _mm256_xor_si256(rel, kn);
  }
  const size_t total = num_blocks / BLOCKS * BLOCKS;
  __m256i offset = _mm256_broadcastsi128_si256(load128(offset_io));
  __m256i sum = _mm256_setzero_si256();
  for (size_t i = 0; i < total; i += BLOCKS) {
    const uint8_t *src = in + 16 * i;
    uint8_t *dst = mode == MODE_HASH ? NULL : out + 16 * i;
    // L_ntz(i+16) into the second lane of the last pair only.
    __m256i extra =
        _mm256_setr_m128i(_mm_setzero_si128(), load128(ctx->l[__builtin_ctzll(done + i + BLOCKS)]));
    __m256i b[PAIRS];
    for (unsigned k = 0; k < PAIRS; k++) {
      __m256i x = load256(src + 32 * k);
      if (mode == MODE_ENCRYPT)
        sum = _mm256_xor_si256(sum, x);
      __m256i o = _mm256_xor_si256(offset, first[k]);
      if (k == PAIRS - 1)
        o = _mm256_xor_si256(o, extra);
      b[k] = _mm256_xor_si256(x, o);
    }
    // The middle rounds, unrolled (9, 11 or 13): a loop over them costs
    // register copies that the AES units wait for.
    for (unsigned r = 1; r < 10; r++)
      round_all(b, key(ctx, dir, r), dir);
    if (nr > 10) {
      round_all(b, key(ctx, dir, 10), dir);
      round_all(b, key(ctx, dir, 11), dir);
      if (nr > 12) {
        round_all(b, key(ctx, dir, 12), dir);
        round_all(b, key(ctx, dir, 13), dir);
      }
    }
    for (unsigned k = 0; k < PAIRS; k++) {
      if (mode == MODE_HASH) {
        sum = _mm256_xor_si256(sum, _mm256_aesenclast_epi128(b[k], kn));
        continue;
      }
      // The last round key xor the block's offset unmasks the output.
      __m256i o = _mm256_xor_si256(offset, last[k]);
      if (k == PAIRS - 1)
        o = _mm256_xor_si256(o, extra);
      __m256i y = dir ? _mm256_aesdeclast_epi128(b[k], o) : _mm256_aesenclast_epi128(b[k], o);
      store256(dst + 32 * k, y);
      if (mode == MODE_DECRYPT)
        sum = _mm256_xor_si256(sum, y);
    }
    // Offset_{i+16} = Offset_i xor prefix[15] xor L_ntz(i+16), in both lanes.
    __m256i next = _mm256_xor_si256(_mm256_xor_si256(offset, first[PAIRS - 1]), extra);
    next = _mm256_xor_si256(next, k0);
    offset = _mm256_permute2x128_si256(next, next, 0x11);
  }
  _mm_storeu_si128((__m128i *)offset_io, _mm256_castsi256_si128(offset));
  __m128i s = _mm_xor_si128(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  _mm_storeu_si128((__m128i *)sum_io, _mm_xor_si128(load128(sum_io), s));
  // The offsets relative to Offset_i derive from the key.
  memset(prefix, 0, sizeof prefix);
  memset(first, 0, sizeof first);
  memset(last, 0, sizeof last);
  __asm__ volatile("" : : "r"(prefix), "r"(first), "r"(last) : "memory");
  return total;
}

void mc_ocb_vaes_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                       size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                       uint8_t checksum_io[16]) {
  // The loop's offsets relative to Offset_i hold for i a multiple of 16: the
  // blocks before the next such number go to ocb_aesni.c's loops.
  size_t head = (size_t)((16 - done % 16) % 16);
  if (head > num_blocks)
    head = num_blocks;
  if (head > 0) {
    mc_ocb_aesni_crypt(ctx, encrypt, out, in, head, done, offset_io, checksum_io);
    if (head == num_blocks)
      return;
    out += 16 * head;
    in += 16 * head;
    num_blocks -= head;
    done += head;
  }
  size_t n = encrypt
                 ? run_blocks(ctx, MODE_ENCRYPT, out, in, num_blocks, done, offset_io, checksum_io)
                 : run_blocks(ctx, MODE_DECRYPT, out, in, num_blocks, done, offset_io, checksum_io);
  // Leaving 128-bit code after 256-bit code: clear the upper halves first.
  _mm256_zeroupper();
  if (n == num_blocks)
    return; // also keeps NULL buffers of empty inputs out of pointer arithmetic
  mc_ocb_aesni_crypt(ctx, encrypt, out + 16 * n, in + 16 * n, num_blocks - n, done + n, offset_io,
                     checksum_io);
}

void mc_ocb_vaes_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                      uint8_t offset_io[16], uint8_t sum_io[16]) {
  size_t done = run_blocks(ctx, MODE_HASH, NULL, ad, num_blocks, 0, offset_io, sum_io);
  _mm256_zeroupper();
  if (done == num_blocks)
    return; // also keeps a NULL `ad` of length 0 out of pointer arithmetic
  mc_ocb_aesni_hash(ctx, ad + 16 * done, num_blocks - done, offset_io, sum_io);
}
