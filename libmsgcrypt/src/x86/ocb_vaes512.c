// ocb_vaes512.c: AES-OCB's whole-block loops with VAES on 512-bit registers:
// four blocks per instruction, thirty-two blocks per iteration, for CPUs with
// AVX-512 (F and BW, with the OS saving the ZMM state) and VAES. Built with
// meson.build's 'vaes512' level and called by ocb.c only when CPUID reports
// all of that; it uses the round keys of ocb_aesni.c's key schedule. The
// shape is that of x86/ocb_vaes.c, twice as wide: the offsets of blocks
// i+1 .. i+32 are Offset_i xor a prefix xor of the L_ntz values, the same for
// every iteration but for the one block whose number is a multiple of 32, so
// an iteration needs one table load indexed by the (public) block number;
// unlike ocb_vaes.c's loop, this one may start at any block number (see
// run_blocks). Fewer than 32 blocks left over take one masked pass of the
// same width (run_group); the associated data's last blocks go to
// x86/ocb_vaes.c. No branch or index depends on a secret.
#include <immintrin.h>
#include <string.h>

#include "aead_internal.h"

enum { LANES = 4, VECS = 8, BLOCKS = LANES * VECS };

// mode of the shared loop: encrypt, decrypt, or hash associated data.
enum { MODE_ENCRYPT, MODE_DECRYPT, MODE_HASH };

static inline __m128i load128(const uint8_t *p) {
  return _mm_loadu_si128((const __m128i *)p);
}

static inline __m512i load512(const uint8_t *p) {
  return _mm512_loadu_si512((const void *)p);
}

static inline void store512(uint8_t *p, __m512i v) {
  _mm512_storeu_si512((void *)p, v);
}

// key broadcasts round key `r` of direction `dir` to the four lanes.
static inline __m512i key(const mc_aes_ocb_ctx *ctx, int dir, unsigned r) {
  return _mm512_broadcast_i32x4(load128(ctx->round_keys[dir][r]));
}

// round_all runs one middle round of AES (decryption's when `dir` is 1) on
// the first `nv` vectors of four blocks.
static inline __attribute__((always_inline)) void round_all(__m512i b[VECS], __m512i kr,
                                                            const int dir, const unsigned nv) {
  for (unsigned k = 0; k < nv; k++)
    b[k] = dir ? _mm512_aesdec_epi128(b[k], kr) : _mm512_aesenc_epi128(b[k], kr);
}

// run_blocks is the loop of mc_ocb_vaes512_crypt and mc_ocb_vaes512_hash,
// inlined once per mode so that `mode` is a constant in each copy. `done` is
// the number of blocks of the message before `in`, any number: with
// d = done mod 32, the blocks i+1 .. i+32 of every iteration (i = done plus a
// multiple of 32) have ntz(i + j) = ntz(d + j), fixed, except the one block,
// j* = 32 - d (32 when d = 0), whose number is a multiple of 32 and whose
// L_ntz changes from one iteration to the next: it is added, as `extra`, to
// the lanes of blocks j* .. 32 under a mask. So a stream resumed mid-way
// (every few KiB with the encryptor API) runs at full width from its first
// block. It returns the number of blocks it did (a multiple of 32);
// offset_io and sum_io advance.
static inline __attribute__((always_inline)) size_t
run_blocks(const mc_aes_ocb_ctx *ctx, const int mode, uint8_t *out, const uint8_t *in,
           size_t num_blocks, uint64_t done, uint8_t offset_io[16], uint8_t sum_io[16]) {
  const int dir = mode == MODE_DECRYPT ? 1 : 0;
  const unsigned nr = mc_ocb_rounds(ctx);
  if (num_blocks < BLOCKS)
    return 0;
  const unsigned d = (unsigned)(done % BLOCKS), jstar = BLOCKS - d;
  // prefix[j] = the xor of L_ntz(d+t) for t = 1..j, t != j*, j = 0..32; d+t
  // is below 64 and, but for t = j*, not 32.
  // The running xor stays in a register: read back from the array, each
  // step would wait for the store before it (per call, which a stream makes
  // every 8 KiB).
  __m128i prefix[BLOCKS + 1], acc = _mm_setzero_si128();
  prefix[0] = acc;
  for (unsigned j = 1; j <= BLOCKS; j++) {
    if (j != jstar)
      acc = _mm_xor_si128(acc, load128(ctx->l[__builtin_ctz(d + j)]));
    prefix[j] = acc;
  }
  // first[k] and last[k]: the offsets of vector k's blocks (j = 4k+1 ..
  // 4k+4) relative to Offset_i, without `extra`, xor the first and the last
  // round key; em[k] selects the 64-bit lanes of its blocks j >= j*.
  const __m512i k0 = key(ctx, dir, 0), kn = key(ctx, dir, nr);
  __m512i first[VECS], last[VECS];
  __mmask8 em[VECS];
  for (unsigned k = 0; k < VECS; k++) {
    __m512i rel = _mm512_castsi128_si512(prefix[LANES * k + 1]);
    rel = _mm512_inserti32x4(rel, prefix[LANES * k + 2], 1);
    rel = _mm512_inserti32x4(rel, prefix[LANES * k + 3], 2);
    rel = _mm512_inserti32x4(rel, prefix[LANES * k + 4], 3);
    first[k] = _mm512_xor_si512(rel, k0);
    last[k] = _mm512_xor_si512(rel, kn);
    unsigned m = 0;
    for (unsigned l = 0; l < LANES; l++)
      if (LANES * k + l + 1 >= jstar)
        m |= 3u << (2 * l);
    em[k] = (__mmask8)m;
  }
  const size_t total = num_blocks / BLOCKS * BLOCKS;
  __m512i offset = _mm512_broadcast_i32x4(load128(offset_io));
  __m512i sum = _mm512_setzero_si512();
  for (size_t i = 0; i < total; i += BLOCKS) {
    const uint8_t *src = in + 16 * i;
    uint8_t *dst = mode == MODE_HASH ? NULL : out + 16 * i;
    // L_ntz(i+j*), block i+j* being a multiple of 32, in every lane.
    __m512i extra = _mm512_broadcast_i32x4(load128(ctx->l[__builtin_ctzll(done + i + jstar)]));
    __m512i b[VECS];
    for (unsigned k = 0; k < VECS; k++) {
      __m512i x = load512(src + 64 * k);
      if (mode == MODE_ENCRYPT)
        sum = _mm512_xor_si512(sum, x);
      __m512i o = _mm512_xor_si512(offset, first[k]);
      o = _mm512_mask_xor_epi64(o, em[k], o, extra);
      b[k] = _mm512_xor_si512(x, o);
    }
    // The middle rounds, unrolled (9, 11 or 13), as in ocb_vaes.c.
    for (unsigned r = 1; r < 10; r++)
      round_all(b, key(ctx, dir, r), dir, VECS);
    if (nr > 10) {
      round_all(b, key(ctx, dir, 10), dir, VECS);
      round_all(b, key(ctx, dir, 11), dir, VECS);
      if (nr > 12) {
        round_all(b, key(ctx, dir, 12), dir, VECS);
        round_all(b, key(ctx, dir, 13), dir, VECS);
      }
    }
    for (unsigned k = 0; k < VECS; k++) {
      if (mode == MODE_HASH) {
        sum = _mm512_xor_si512(sum, _mm512_aesenclast_epi128(b[k], kn));
        continue;
      }
      // The last round key xor the block's offset unmasks the output.
      __m512i o = _mm512_xor_si512(offset, last[k]);
      o = _mm512_mask_xor_epi64(o, em[k], o, extra);
      __m512i y = dir ? _mm512_aesdeclast_epi128(b[k], o) : _mm512_aesenclast_epi128(b[k], o);
      store512(dst + 64 * k, y);
      if (mode == MODE_DECRYPT)
        sum = _mm512_xor_si512(sum, y);
    }
    // Offset_{i+32} = Offset_i xor prefix[32] xor L_ntz(i+j*): the fourth
    // lane of the last vector's offset (j = 32 >= j*), broadcast to all four.
    __m512i next = _mm512_xor_si512(_mm512_xor_si512(offset, first[VECS - 1]), extra);
    next = _mm512_xor_si512(next, k0);
    offset = _mm512_shuffle_i64x2(next, next, 0xff);
  }
  _mm_storeu_si128((__m128i *)offset_io, _mm512_castsi512_si128(offset));
  __m256i s2 = _mm256_xor_si256(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
  __m128i s = _mm_xor_si128(_mm256_castsi256_si128(s2), _mm256_extracti128_si256(s2, 1));
  _mm_storeu_si128((__m128i *)sum_io, _mm_xor_si128(load128(sum_io), s));
  // The offsets relative to Offset_i derive from the key.
  memset(prefix, 0, sizeof prefix);
  memset(first, 0, sizeof first);
  memset(last, 0, sizeof last);
  __asm__ volatile("" : : "r"(prefix), "r"(first), "r"(last) : "memory");
  return total;
}

// run_group encrypts or decrypts `n` (1 .. 4 * `nv`) blocks numbered from
// `done` + 1, whatever `done` is: the offsets come one by one from the L
// table (a chain of xors, public indices), and the blocks go through one pass
// of `nv` (4 or 8) 512-bit AES pipelines, loaded and stored under masks so
// that no byte beyond the `n` blocks is touched. It serves the fewer than 32
// blocks after run_blocks' last iteration, where the 128-bit loops cost
// several times more per block (a streamed message meets such ends every few
// KiB: bench_pgp, the encryptor API). offset_io and checksum_io advance.
static inline __attribute__((always_inline)) void
run_group(const mc_aes_ocb_ctx *ctx, const int encrypt, const unsigned nv, uint8_t *out,
          const uint8_t *in, size_t n, uint64_t done, uint8_t offset_io[16],
          uint8_t checksum_io[16]) {
  const int dir = encrypt ? 0 : 1;
  const unsigned nr = mc_ocb_rounds(ctx);
  __m128i offs[BLOCKS];
  __m128i off = load128(offset_io);
  for (size_t j = 0; j < LANES * nv; j++) {
    if (j < n)
      off = _mm_xor_si128(off, load128(ctx->l[__builtin_ctzll(done + j + 1)]));
    offs[j] = off; // lanes past `n` are masked out below
  }
  const __m512i k0 = key(ctx, dir, 0), kn = key(ctx, dir, nr);
  __m512i b[VECS], sum = _mm512_setzero_si512();
  __mmask8 mask[VECS];
  for (unsigned k = 0; k < nv; k++) {
    // Two 64-bit lanes per block; vectors wholly past `n` get an empty mask.
    size_t first = LANES * (size_t)k;
    size_t c = n > first ? (n - first < LANES ? n - first : LANES) : 0;
    mask[k] = (__mmask8)((1u << (2 * c)) - 1);
    __m512i x = _mm512_maskz_loadu_epi64(mask[k], in + 64 * k);
    if (encrypt)
      sum = _mm512_xor_si512(sum, x);
    b[k] = _mm512_xor_si512(x, _mm512_xor_si512(load512((const uint8_t *)offs + 64 * k), k0));
  }
  for (unsigned r = 1; r < 10; r++)
    round_all(b, key(ctx, dir, r), dir, nv);
  if (nr > 10) {
    round_all(b, key(ctx, dir, 10), dir, nv);
    round_all(b, key(ctx, dir, 11), dir, nv);
    if (nr > 12) {
      round_all(b, key(ctx, dir, 12), dir, nv);
      round_all(b, key(ctx, dir, 13), dir, nv);
    }
  }
  for (unsigned k = 0; k < nv; k++) {
    __m512i o = _mm512_xor_si512(load512((const uint8_t *)offs + 64 * k), kn);
    __m512i y = dir ? _mm512_aesdeclast_epi128(b[k], o) : _mm512_aesenclast_epi128(b[k], o);
    _mm512_mask_storeu_epi64(out + 64 * k, mask[k], y);
    if (!encrypt)
      sum = _mm512_xor_si512(sum, _mm512_maskz_mov_epi64(mask[k], y));
  }
  _mm_storeu_si128((__m128i *)offset_io, off);
  __m256i s2 = _mm256_xor_si256(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
  __m128i s = _mm_xor_si128(_mm256_castsi256_si128(s2), _mm256_extracti128_si256(s2, 1));
  _mm_storeu_si128((__m128i *)checksum_io, _mm_xor_si128(load128(checksum_io), s));
  // The offsets are key material.
  memset(offs, 0, sizeof offs);
  __asm__ volatile("" : : "r"(offs) : "memory");
}

// group dispatches run_group with `encrypt` and the number of vectors
// constants in each copy: up to 16 blocks take half the pass.
static void group(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in, size_t n,
                  uint64_t done, uint8_t offset_io[16], uint8_t checksum_io[16]) {
  if (encrypt && n <= BLOCKS / 2)
    run_group(ctx, 1, VECS / 2, out, in, n, done, offset_io, checksum_io);
  else if (encrypt)
    run_group(ctx, 1, VECS, out, in, n, done, offset_io, checksum_io);
  else if (n <= BLOCKS / 2)
    run_group(ctx, 0, VECS / 2, out, in, n, done, offset_io, checksum_io);
  else
    run_group(ctx, 0, VECS, out, in, n, done, offset_io, checksum_io);
}

void mc_ocb_vaes512_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                          size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                          uint8_t checksum_io[16]) {
  // A block or two (a streamed block completed from the OCB state) cost
  // less one at a time than a whole 32-block pass.
  if (num_blocks < 3) {
    mc_ocb_aesni_crypt(ctx, encrypt, out, in, num_blocks, done, offset_io, checksum_io);
    return;
  }
  size_t n = encrypt
                 ? run_blocks(ctx, MODE_ENCRYPT, out, in, num_blocks, done, offset_io, checksum_io)
                 : run_blocks(ctx, MODE_DECRYPT, out, in, num_blocks, done, offset_io, checksum_io);
  // The fewer than 32 blocks left take one masked pass; then, leaving
  // 512-bit code for 128/256-bit code, the upper halves are cleared.
  if (n < num_blocks)
    group(ctx, encrypt, out + 16 * n, in + 16 * n, num_blocks - n, done + n, offset_io,
          checksum_io);
  _mm256_zeroupper();
}

void mc_ocb_vaes512_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                         uint8_t offset_io[16], uint8_t sum_io[16]) {
  size_t done = run_blocks(ctx, MODE_HASH, NULL, ad, num_blocks, 0, offset_io, sum_io);
  _mm256_zeroupper();
  if (done == num_blocks)
    return; // also keeps a NULL `ad` of length 0 out of pointer arithmetic
  // mc_ocb_vaes_hash numbers the blocks it gets from 1, where they are
  // blocks done+1 .. of `ad`: with `done` a multiple of 32 and fewer than 32
  // left, ntz(done + j) = ntz(j) for each of them, so its offsets are right.
  mc_ocb_vaes_hash(ctx, ad + 16 * done, num_blocks - done, offset_io, sum_io);
}
