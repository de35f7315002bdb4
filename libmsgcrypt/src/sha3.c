// sha3.c: SHA3-224/256/384/512 and SHAKE128/256 (FIPS 202), the sponge over
// Keccak-f[1600]. ML-KEM, ML-DSA and Ed448 build on it. The code is
// data-independent in time: it branches only on lengths, never on contents.
#include <string.h>

#include "msgcrypt_internal.h"

static const uint64_t round_constants[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

static inline uint64_t rotl64(uint64_t x, unsigned n) {
  return (x << n) | (x >> ((64 - n) & 63));
}

// The permutation keeps the 25 lanes in local variables, lane x + 5y in
// a<x + 5y>, and writes each round's steps out lane by lane: the compiler then
// holds most lanes in registers, which is several times faster than loops over
// the state array and index tables (ML-KEM and ML-DSA spend most of their time
// here). θ adds column parities; ρ rotates lane (x, y) by its FIPS 202 §3.2.2
// offset and π moves it to (y, 2x + 3y), together into the b lanes; χ
// combines each row; ι adds the round constant.
void mc_keccak_f1600(uint64_t s[25]) {
  uint64_t a00 = s[0], a01 = s[1], a02 = s[2], a03 = s[3], a04 = s[4];
  uint64_t a05 = s[5], a06 = s[6], a07 = s[7], a08 = s[8], a09 = s[9];
  uint64_t a10 = s[10], a11 = s[11], a12 = s[12], a13 = s[13], a14 = s[14];
  uint64_t a15 = s[15], a16 = s[16], a17 = s[17], a18 = s[18], a19 = s[19];
  uint64_t a20 = s[20], a21 = s[21], a22 = s[22], a23 = s[23], a24 = s[24];
  for (int round = 0; round < 24; round++) {
    // θ
    uint64_t c0 = a00 ^ a05 ^ a10 ^ a15 ^ a20, c1 = a01 ^ a06 ^ a11 ^ a16 ^ a21;
    uint64_t c2 = a02 ^ a07 ^ a12 ^ a17 ^ a22, c3 = a03 ^ a08 ^ a13 ^ a18 ^ a23;
    uint64_t c4 = a04 ^ a09 ^ a14 ^ a19 ^ a24;
    uint64_t d0 = c4 ^ rotl64(c1, 1), d1 = c0 ^ rotl64(c2, 1), d2 = c1 ^ rotl64(c3, 1);
    uint64_t d3 = c2 ^ rotl64(c4, 1), d4 = c3 ^ rotl64(c0, 1);
    // ρ and π: b[y + 5((2x + 3y) mod 5)] = rot(a[x + 5y] ^ d[x], r[x][y]).
    uint64_t b00 = a00 ^ d0, b01 = rotl64(a06 ^ d1, 44), b02 = rotl64(a12 ^ d2, 43);
    uint64_t b03 = rotl64(a18 ^ d3, 21), b04 = rotl64(a24 ^ d4, 14);
    uint64_t b05 = rotl64(a03 ^ d3, 28), b06 = rotl64(a09 ^ d4, 20), b07 = rotl64(a10 ^ d0, 3);
    uint64_t b08 = rotl64(a16 ^ d1, 45), b09 = rotl64(a22 ^ d2, 61);
    uint64_t b10 = rotl64(a01 ^ d1, 1), b11 = rotl64(a07 ^ d2, 6), b12 = rotl64(a13 ^ d3, 25);
    uint64_t b13 = rotl64(a19 ^ d4, 8), b14 = rotl64(a20 ^ d0, 18);
    uint64_t b15 = rotl64(a04 ^ d4, 27), b16 = rotl64(a05 ^ d0, 36), b17 = rotl64(a11 ^ d1, 10);
    uint64_t b18 = rotl64(a17 ^ d2, 15), b19 = rotl64(a23 ^ d3, 56);
    uint64_t b20 = rotl64(a02 ^ d2, 62), b21 = rotl64(a08 ^ d3, 55), b22 = rotl64(a14 ^ d4, 39);
    uint64_t b23 = rotl64(a15 ^ d0, 41), b24 = rotl64(a21 ^ d1, 2);
    // χ and ι
    a00 = b00 ^ (~b01 & b02) ^ round_constants[round];
    a01 = b01 ^ (~b02 & b03);
    a02 = b02 ^ (~b03 & b04);
    a03 = b03 ^ (~b04 & b00);
    a04 = b04 ^ (~b00 & b01);
    a05 = b05 ^ (~b06 & b07);
    a06 = b06 ^ (~b07 & b08);
    a07 = b07 ^ (~b08 & b09);
    a08 = b08 ^ (~b09 & b05);
    a09 = b09 ^ (~b05 & b06);
    a10 = b10 ^ (~b11 & b12);
    a11 = b11 ^ (~b12 & b13);
    a12 = b12 ^ (~b13 & b14);
    a13 = b13 ^ (~b14 & b10);
    a14 = b14 ^ (~b10 & b11);
    a15 = b15 ^ (~b16 & b17);
    a16 = b16 ^ (~b17 & b18);
    a17 = b17 ^ (~b18 & b19);
    a18 = b18 ^ (~b19 & b15);
    a19 = b19 ^ (~b15 & b16);
    a20 = b20 ^ (~b21 & b22);
    a21 = b21 ^ (~b22 & b23);
    a22 = b22 ^ (~b23 & b24);
    a23 = b23 ^ (~b24 & b20);
    a24 = b24 ^ (~b20 & b21);
  }
  s[0] = a00, s[1] = a01, s[2] = a02, s[3] = a03, s[4] = a04;
  s[5] = a05, s[6] = a06, s[7] = a07, s[8] = a08, s[9] = a09;
  s[10] = a10, s[11] = a11, s[12] = a12, s[13] = a13, s[14] = a14;
  s[15] = a15, s[16] = a16, s[17] = a17, s[18] = a18, s[19] = a19;
  s[20] = a20, s[21] = a21, s[22] = a22, s[23] = a23, s[24] = a24;
}

int mc_sha3_init(mc_sha3_ctx *ctx, mc_sha3_alg alg) {
  // Capacity is twice the security level; rate = 200 - capacity bytes.
  static const struct {
    uint8_t rate, digest_len, pad;
  } params[] = {
      [MC_SHA3_224] = {144, 28, 0x06}, [MC_SHA3_256] = {136, 32, 0x06},
      [MC_SHA3_384] = {104, 48, 0x06}, [MC_SHA3_512] = {72, 64, 0x06},
      [MC_SHAKE128] = {168, 0, 0x1f},  [MC_SHAKE256] = {136, 0, 0x1f},
  };
  MC_FAIL_IF(ctx == NULL || alg < MC_SHA3_224 || alg > MC_SHAKE256, MC_ERR_INVALID_ARGUMENT);
  memset(ctx, 0, sizeof *ctx);
  ctx->rate = params[alg].rate;
  ctx->digest_len = params[alg].digest_len;
  ctx->domain_pad = params[alg].pad;
  ctx->alg = (uint8_t)alg;
  return 0;
}

// xor_into_state adds `len` bytes at byte offset `pos` of the state's lanes.
static void xor_into_state(uint64_t state[25], size_t pos, const uint8_t *in, size_t len) {
  for (size_t i = 0; i < len; i++, pos++)
    state[pos / 8] ^= (uint64_t)in[i] << (8 * (pos % 8));
}

int mc_sha3_update(mc_sha3_ctx *ctx, const uint8_t *in, size_t in_len) {
  MC_FAIL_IF(ctx == NULL || ctx->rate == 0 || ctx->squeezing, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in == NULL && in_len != 0, MC_ERR_INVALID_ARGUMENT);
  if (ctx->pos != 0 && in_len > 0) {
    size_t take = ctx->rate - ctx->pos < in_len ? ctx->rate - ctx->pos : in_len;
    xor_into_state(ctx->state, ctx->pos, in, take);
    ctx->pos += (uint32_t)take;
    in += take;
    in_len -= take;
    if (ctx->pos == ctx->rate) {
      mc_keccak_f1600(ctx->state);
      ctx->pos = 0;
    }
  }
  // Whole blocks go in a lane at a time.
  while (in_len >= ctx->rate) {
    for (size_t i = 0; i < ctx->rate / 8; i++)
      ctx->state[i] ^= mc_load_le64(in + 8 * i);
    mc_keccak_f1600(ctx->state);
    in += ctx->rate;
    in_len -= ctx->rate;
  }
  if (in_len > 0) {
    xor_into_state(ctx->state, 0, in, in_len);
    ctx->pos = (uint32_t)in_len;
  }
  return 0;
}

// finish_absorbing applies the domain separation bits and pad10*1.
static void finish_absorbing(mc_sha3_ctx *ctx) {
  uint8_t pad = ctx->domain_pad;
  xor_into_state(ctx->state, ctx->pos, &pad, 1);
  uint8_t last = 0x80;
  xor_into_state(ctx->state, ctx->rate - 1, &last, 1);
  mc_keccak_f1600(ctx->state);
  ctx->pos = 0;
  ctx->squeezing = 1;
}

static void squeeze(mc_sha3_ctx *ctx, uint8_t *out, size_t out_len) {
  while (out_len > 0) {
    if (ctx->pos == ctx->rate) {
      mc_keccak_f1600(ctx->state);
      ctx->pos = 0;
    }
    size_t take = ctx->rate - ctx->pos < out_len ? ctx->rate - ctx->pos : out_len;
    for (size_t i = 0; i < take; i++, ctx->pos++)
      out[i] = (uint8_t)(ctx->state[ctx->pos / 8] >> (8 * (ctx->pos % 8)));
    out += take;
    out_len -= take;
  }
}

int mc_sha3_final(mc_sha3_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len) {
  MC_FAIL_IF(ctx == NULL || ctx->digest_len == 0 || ctx->squeezing, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out == NULL || out_len == NULL || out_cap < ctx->digest_len, MC_ERR_INVALID_ARGUMENT);
  size_t len = ctx->digest_len;
  finish_absorbing(ctx);
  squeeze(ctx, out, len);
  *out_len = len;
  mc_sha3_cleanup(ctx);
  return 0;
}

int mc_shake_squeeze(mc_sha3_ctx *ctx, uint8_t *out, size_t out_len) {
  MC_FAIL_IF(ctx == NULL || ctx->rate == 0 || ctx->digest_len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out == NULL && out_len != 0, MC_ERR_INVALID_ARGUMENT);
  if (!ctx->squeezing)
    finish_absorbing(ctx);
  squeeze(ctx, out, out_len);
  return 0;
}

void mc_sha3_cleanup(mc_sha3_ctx *ctx) {
  mc_wipe(ctx, sizeof *ctx);
}

int mc_sha3(mc_sha3_alg alg, uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
            size_t in_len) {
  mc_sha3_ctx ctx;
  MC_FAIL_IF(alg == MC_SHAKE128 || alg == MC_SHAKE256, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(mc_sha3_init(&ctx, alg));
  int status = mc_sha3_update(&ctx, in, in_len);
  if (status == 0)
    status = mc_sha3_final(&ctx, out, out_cap, out_len);
  mc_sha3_cleanup(&ctx);
  return status;
}

int mc_shake(mc_sha3_alg alg, uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len) {
  mc_sha3_ctx ctx;
  MC_FAIL_IF(alg != MC_SHAKE128 && alg != MC_SHAKE256, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(mc_sha3_init(&ctx, alg));
  int status = mc_sha3_update(&ctx, in, in_len);
  if (status == 0)
    status = mc_shake_squeeze(&ctx, out, out_len);
  mc_sha3_cleanup(&ctx);
  return status;
}
