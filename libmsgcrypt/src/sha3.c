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

// Rotation offsets (ρ) and lane order (π), walked along the single cycle of
// π starting at lane 1, as FIPS 202 §3.2.2-3.2.3 define them.
static const uint8_t rho_offsets[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                        27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
static const uint8_t pi_lanes[24] = {10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                                     15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};

static inline uint64_t rotl64(uint64_t x, unsigned n) {
  return (x << n) | (x >> ((64 - n) & 63));
}

void mc_keccak_f1600(uint64_t a[25]) {
  for (int round = 0; round < 24; round++) {
    uint64_t c[5];
    for (int x = 0; x < 5; x++)
      c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; x++) {
      uint64_t d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5)
        a[y + x] ^= d;
    }
    uint64_t carry = a[1];
    for (int i = 0; i < 24; i++) {
      uint64_t next = a[pi_lanes[i]];
      a[pi_lanes[i]] = rotl64(carry, rho_offsets[i]);
      carry = next;
    }
    for (int y = 0; y < 25; y += 5) {
      uint64_t row[5];
      memcpy(row, &a[y], sizeof row);
      for (int x = 0; x < 5; x++)
        a[y + x] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
    }
    a[0] ^= round_constants[round];
  }
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
