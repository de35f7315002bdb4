// ocb_aesni.c: AES-OCB's whole-block loops on x86-64 with the AES-NI
// instructions, eight blocks in flight, the offsets folded into AES's first
// and last round keys. Driving BoringSSL's ECB mode costs separate passes over
// the data to mask and unmask it, which keep OCB below BoringSSL's AES-GCM;
// fused here, OCB is faster than GCM (bench/bench_msgcrypt.c). The key schedule
// follows FIPS 197 §5.2 word by word, with SubWord computed by AESKEYGENASSIST
// (no table, so no secret memory index), and the decryption schedule is the
// "equivalent inverse cipher" of §5.3.5 (AESIMC). The instructions are written
// as inline assembly over SSE2 types, so this file needs no ISA flags: it is
// used only when CPUID reports AES-NI, and ocb.c falls back to BoringSSL
// elsewhere. AES-NI and these loops have no data-dependent branch or index.
#include <string.h>

#include "aead_internal.h"

#if defined(__x86_64__)

#include <emmintrin.h>
#include <stdatomic.h>

#include "corvid_cpu.h"

// CPU features come from the shared detection of corvid_cpu.h, as for the
// implementation table (impl.c).
int mc_ocb_aesni_available(void) {
  static atomic_uint_fast32_t cpu_cache;
  return (corvid_cpu_features(&cpu_cache) & CORVID_CPU_AESNI) != 0;
}

// VAES needs the 256-bit AVX state too, which CORVID_CPU_AVX2 implies
// (XGETBV checked); without MC_HAVE_VAES the kernel is not built.
int mc_ocb_vaes_available(void) {
#if defined(MC_HAVE_VAES)
  static atomic_uint_fast32_t cpu_cache;
  const uint32_t need = CORVID_CPU_AESNI | CORVID_CPU_AVX2 | CORVID_CPU_VAES;
  return (corvid_cpu_features(&cpu_cache) & need) == need;
#else
  return 0;
#endif
}

// The 512-bit loops need the ZMM and opmask state as well, which
// CORVID_CPU_AVX512BW implies (AVX-512 F and BW, XGETBV checked).
int mc_ocb_vaes512_available(void) {
#if defined(MC_HAVE_VAES512)
  static atomic_uint_fast32_t cpu_cache;
  const uint32_t need = CORVID_CPU_AESNI | CORVID_CPU_AVX2 | CORVID_CPU_VAES | CORVID_CPU_AVX512BW;
  return (corvid_cpu_features(&cpu_cache) & need) == need;
#else
  return 0;
#endif
}

static inline __m128i aesenc(__m128i x, __m128i k) {
  __asm__("aesenc %1, %0" : "+x"(x) : "x"(k));
  return x;
}

static inline __m128i aesenclast(__m128i x, __m128i k) {
  __asm__("aesenclast %1, %0" : "+x"(x) : "x"(k));
  return x;
}

static inline __m128i aesdec(__m128i x, __m128i k) {
  __asm__("aesdec %1, %0" : "+x"(x) : "x"(k));
  return x;
}

static inline __m128i aesdeclast(__m128i x, __m128i k) {
  __asm__("aesdeclast %1, %0" : "+x"(x) : "x"(k));
  return x;
}

static inline __m128i aesimc(__m128i x) {
  __m128i r;
  __asm__("aesimc %1, %0" : "=x"(r) : "x"(x));
  return r;
}

// sub_word is FIPS 197's SubWord on a word held little-endian (byte 0 of the
// word in bits 0-7). AESKEYGENASSIST with round constant 0 puts
// SubWord(dword 1 of its source) in dword 0 of its result.
static inline uint32_t sub_word(uint32_t w) {
  __m128i x = _mm_set_epi32(0, 0, (int)w, 0), r;
  __asm__("aeskeygenassist $0, %1, %0" : "=x"(r) : "x"(x));
  return (uint32_t)_mm_cvtsi128_si32(r);
}

void mc_ocb_aesni_set_key(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len) {
  // FIPS 197 §5.2, KeyExpansion: Nk key words, Nr = Nk + 6 rounds,
  // 4 * (Nr + 1) words of schedule.
  uint32_t w[60];
  unsigned nk = (unsigned)key_len / 4, nr = nk + 6;
  uint32_t rcon = 1;
  memcpy(w, key, key_len);
  for (unsigned i = nk; i < 4 * (nr + 1); i++) {
    uint32_t t = w[i - 1];
    if (i % nk == 0) {
      // RotWord on a little-endian word is a right rotation by 8 bits.
      t = sub_word(t >> 8 | t << 24) ^ rcon;
      rcon = (rcon << 1) ^ (0x11b & (0u - (rcon >> 7)));
    } else if (nk > 6 && i % nk == 4) {
      t = sub_word(t);
    }
    w[i] = w[i - nk] ^ t;
  }
  memcpy(ctx->round_keys[0], w, 16 * (nr + 1));
  // §5.3.5: the equivalent inverse cipher uses the round keys in reverse,
  // InvMixColumns applied to all but the first and last.
  memcpy(ctx->round_keys[1][0], ctx->round_keys[0][nr], 16);
  for (unsigned r = 1; r < nr; r++) {
    __m128i k = _mm_loadu_si128((const __m128i *)ctx->round_keys[0][nr - r]);
    _mm_storeu_si128((__m128i *)ctx->round_keys[1][r], aesimc(k));
  }
  memcpy(ctx->round_keys[1][nr], ctx->round_keys[0][0], 16);
  ctx->rounds = nr; // ocb.c may add MC_OCB_ROUNDS_VAES
  mc_wipe(w, sizeof w);
}

static inline __m128i load(const uint8_t *p) {
  return _mm_loadu_si128((const __m128i *)p);
}

static inline void store(uint8_t *p, __m128i v) {
  _mm_storeu_si128((__m128i *)p, v);
}

static inline __m128i rk(const mc_aes_ocb_ctx *ctx, int dir, unsigned r) {
  return load(ctx->round_keys[dir][r]);
}

void mc_ocb_aesni_encrypt_block(const mc_aes_ocb_ctx *ctx, uint8_t out[16], const uint8_t in[16]) {
  unsigned nr = mc_ocb_rounds(ctx);
  __m128i b = _mm_xor_si128(load(in), rk(ctx, 0, 0));
  for (unsigned r = 1; r < nr; r++)
    b = aesenc(b, rk(ctx, 0, r));
  store(out, aesenclast(b, rk(ctx, 0, nr)));
}

// The three whole-block loops share one shape: the offsets of the next eight
// blocks, Offset_i = Offset_{i-1} xor L_ntz(i); each block xor its offset xor
// the first round key; the middle rounds on all eight; the last round with
// the last round key xor the offset, which xors the offset into the output
// for free. Blocks left over (fewer than eight) go one at a time.

#define MC_FOR8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

// next_offset advances `offset` to block number `i` (1-based).
static inline __m128i next_offset(const mc_aes_ocb_ctx *ctx, __m128i offset, uint64_t i) {
  return _mm_xor_si128(offset, load(ctx->l[__builtin_ctzll(i)]));
}

// crypt_blocks is the loop of mc_ocb_aesni_crypt, inlined once per direction
// so that `encrypt` is a constant in each copy. The offsets xor the last round
// key wait in `last_o`, on the stack: with the eight blocks, the round key,
// the running offset and checksum they would not fit in the 16 registers.
static inline __attribute__((always_inline)) void
crypt_blocks(const mc_aes_ocb_ctx *ctx, const int encrypt, uint8_t *out, const uint8_t *in,
             size_t num_blocks, uint64_t done, uint8_t offset_io[16], uint8_t checksum_io[16]) {
  const int dir = encrypt ? 0 : 1;
  const unsigned nr = mc_ocb_rounds(ctx);
  const __m128i first = rk(ctx, dir, 0), last = rk(ctx, dir, nr);
  __m128i offset = load(offset_io), sum = load(checksum_io), last_o[8];
  size_t i = 0;
  // One block at a time up to a block number that is a multiple of 8, so
  // that the eight-block loop below sees its fixed pattern of ntz values.
#define MC_ONE_BLOCK()                                                                             \
  do {                                                                                             \
    offset = next_offset(ctx, offset, done + i + 1);                                               \
    __m128i b = load(in + 16 * i);                                                                 \
    if (encrypt)                                                                                   \
      sum = _mm_xor_si128(sum, b);                                                                 \
    b = _mm_xor_si128(b, _mm_xor_si128(offset, first));                                            \
    for (unsigned r = 1; r < nr; r++)                                                              \
      b = encrypt ? aesenc(b, rk(ctx, dir, r)) : aesdec(b, rk(ctx, dir, r));                       \
    b = encrypt ? aesenclast(b, _mm_xor_si128(last, offset))                                       \
                : aesdeclast(b, _mm_xor_si128(last, offset));                                      \
    if (!encrypt)                                                                                  \
      sum = _mm_xor_si128(sum, b);                                                                 \
    store(out + 16 * i, b);                                                                        \
  } while (0)
  for (; i < num_blocks && (done + i) % 8 != 0; i++)
    MC_ONE_BLOCK();
  for (; i + 8 <= num_blocks; i += 8) {
    const uint8_t *src = in + 16 * i;
    uint8_t *dst = out + 16 * i;
    // Blocks done+i+1 .. done+i+8, done+i a multiple of 8: ntz is 0, 1, 0, 2,
    // 0, 1, 0, ntz(done+i+8).
#define MC_PREP(j, ntz)                                                                            \
  offset = _mm_xor_si128(offset, load(ctx->l[ntz]));                                               \
  last_o[j] = _mm_xor_si128(last, offset);                                                         \
  __m128i b##j = load(src + 16 * (j));                                                             \
  if (encrypt)                                                                                     \
    sum = _mm_xor_si128(sum, b##j);                                                                \
  b##j = _mm_xor_si128(b##j, _mm_xor_si128(offset, first));
    MC_PREP(0, 0)
    MC_PREP(1, 1)
    MC_PREP(2, 0)
    MC_PREP(3, 2)
    MC_PREP(4, 0)
    MC_PREP(5, 1)
    MC_PREP(6, 0)
    MC_PREP(7, __builtin_ctzll(done + i + 8))
#undef MC_PREP
    // The middle rounds, unrolled: 9, 11 or 13 of them.
#define MC_ROUND1(j) b##j = encrypt ? aesenc(b##j, k) : aesdec(b##j, k);
#define MC_ROUND(r)                                                                                \
  do {                                                                                             \
    __m128i k = rk(ctx, dir, r);                                                                   \
    MC_FOR8(MC_ROUND1)                                                                             \
  } while (0)
    MC_ROUND(1);
    MC_ROUND(2);
    MC_ROUND(3);
    MC_ROUND(4);
    MC_ROUND(5);
    MC_ROUND(6);
    MC_ROUND(7);
    MC_ROUND(8);
    MC_ROUND(9);
    if (nr > 10) {
      MC_ROUND(10);
      MC_ROUND(11);
      if (nr > 12) {
        MC_ROUND(12);
        MC_ROUND(13);
      }
    }
#undef MC_ROUND
#undef MC_ROUND1
#define MC_LAST(j)                                                                                 \
  b##j = encrypt ? aesenclast(b##j, last_o[j]) : aesdeclast(b##j, last_o[j]);                      \
  store(dst + 16 * (j), b##j);                                                                     \
  if (!encrypt)                                                                                    \
    sum = _mm_xor_si128(sum, b##j);
    MC_FOR8(MC_LAST)
#undef MC_LAST
  }
  for (; i < num_blocks; i++)
    MC_ONE_BLOCK();
#undef MC_ONE_BLOCK
  store(offset_io, offset);
  store(checksum_io, sum);
  // The stack copies of the offsets are key material.
  memset(last_o, 0, sizeof last_o);
  __asm__ volatile("" : : "r"(last_o) : "memory");
}

void mc_ocb_aesni_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                        size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                        uint8_t checksum_io[16]) {
  if (encrypt)
    crypt_blocks(ctx, 1, out, in, num_blocks, done, offset_io, checksum_io);
  else
    crypt_blocks(ctx, 0, out, in, num_blocks, done, offset_io, checksum_io);
}

void mc_ocb_aesni_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                       uint8_t offset_io[16], uint8_t sum_io[16]) {
  const unsigned nr = mc_ocb_rounds(ctx);
  const __m128i first = rk(ctx, 0, 0), last = rk(ctx, 0, nr);
  __m128i offset = load(offset_io), sum = load(sum_io);
  size_t i = 0;
  for (; i + 8 <= num_blocks; i += 8) {
    const uint8_t *src = ad + 16 * i;
#define MC_PREP(j, ntz)                                                                            \
  offset = _mm_xor_si128(offset, load(ctx->l[ntz]));                                               \
  __m128i b##j = _mm_xor_si128(load(src + 16 * (j)), _mm_xor_si128(offset, first));
    MC_PREP(0, 0)
    MC_PREP(1, 1)
    MC_PREP(2, 0)
    MC_PREP(3, 2)
    MC_PREP(4, 0)
    MC_PREP(5, 1)
    MC_PREP(6, 0)
    MC_PREP(7, __builtin_ctzll(i + 8))
#undef MC_PREP
#define MC_ROUND1(j) b##j = aesenc(b##j, k);
#define MC_ROUND(r)                                                                                \
  do {                                                                                             \
    __m128i k = rk(ctx, 0, r);                                                                     \
    MC_FOR8(MC_ROUND1)                                                                             \
  } while (0)
    MC_ROUND(1);
    MC_ROUND(2);
    MC_ROUND(3);
    MC_ROUND(4);
    MC_ROUND(5);
    MC_ROUND(6);
    MC_ROUND(7);
    MC_ROUND(8);
    MC_ROUND(9);
    if (nr > 10) {
      MC_ROUND(10);
      MC_ROUND(11);
      if (nr > 12) {
        MC_ROUND(12);
        MC_ROUND(13);
      }
    }
#undef MC_ROUND
#undef MC_ROUND1
#define MC_LAST(j) sum = _mm_xor_si128(sum, aesenclast(b##j, last));
    MC_FOR8(MC_LAST)
#undef MC_LAST
  }
  for (; i < num_blocks; i++) {
    offset = next_offset(ctx, offset, i + 1);
    __m128i b = _mm_xor_si128(load(ad + 16 * i), _mm_xor_si128(offset, first));
    for (unsigned r = 1; r < nr; r++)
      b = aesenc(b, rk(ctx, 0, r));
    sum = _mm_xor_si128(sum, aesenclast(b, last));
  }
  store(offset_io, offset);
  store(sum_io, sum);
}

#else // !__x86_64__: ocb.c uses BoringSSL's ECB mode; these are never called.

int mc_ocb_aesni_available(void) {
  return 0;
}

int mc_ocb_vaes_available(void) {
  return 0;
}

int mc_ocb_vaes512_available(void) {
  return 0;
}

void mc_ocb_aesni_set_key(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len) {
  (void)ctx, (void)key, (void)key_len;
}

void mc_ocb_aesni_encrypt_block(const mc_aes_ocb_ctx *ctx, uint8_t out[16], const uint8_t in[16]) {
  (void)ctx, (void)out, (void)in;
}

void mc_ocb_aesni_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                        size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                        uint8_t checksum_io[16]) {
  (void)ctx, (void)encrypt, (void)out, (void)in, (void)num_blocks, (void)done, (void)offset_io,
      (void)checksum_io;
}

void mc_ocb_aesni_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                       uint8_t offset_io[16], uint8_t sum_io[16]) {
  (void)ctx, (void)ad, (void)num_blocks, (void)offset_io, (void)sum_io;
}

#endif

// Where meson.build did not build the VAES loops (x86/ocb_vaes.c,
// x86/ocb_vaes512.c: every machine but x86-64), their availability checks
// above return 0 and ocb.c never calls them; these definitions only let ocb.c
// name them without a preprocessor guard at every call.
#if !defined(MC_HAVE_VAES)
void mc_ocb_vaes_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                       size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                       uint8_t checksum_io[16]) {
  (void)ctx, (void)encrypt, (void)out, (void)in, (void)num_blocks, (void)done, (void)offset_io,
      (void)checksum_io;
}

void mc_ocb_vaes_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                      uint8_t offset_io[16], uint8_t sum_io[16]) {
  (void)ctx, (void)ad, (void)num_blocks, (void)offset_io, (void)sum_io;
}
#endif

#if !defined(MC_HAVE_VAES512)
void mc_ocb_vaes512_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                          size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                          uint8_t checksum_io[16]) {
  (void)ctx, (void)encrypt, (void)out, (void)in, (void)num_blocks, (void)done, (void)offset_io,
      (void)checksum_io;
}

void mc_ocb_vaes512_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                         uint8_t offset_io[16], uint8_t sum_io[16]) {
  (void)ctx, (void)ad, (void)num_blocks, (void)offset_io, (void)sum_io;
}
#endif
