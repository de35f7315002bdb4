// x448.c: the X448 Diffie-Hellman function of RFC 7748: the Montgomery
// ladder of §5 with masked conditional swaps, key pairs (the public key is
// computed on edwards448 through the fixed-base table and mapped to curve448
// by the 4-isogeny of §4.2, which gives the ladder's result about four times
// faster) and shared secrets, which are refused when all-zero (§6.2).
#include <openssl/rand.h>
#include <string.h>

#include "curve448_internal.h"

// a24 = (156326 - 2) / 4 for curve448 (RFC 7748 §5).
#define A24 39081

static void clamp(uint8_t k[56]) {
  k[0] &= 252;
  k[55] |= 128;
}

#define LADDER_NAME ladder
#define LADDER_FE mc_f448
#define LADDER_BITS 448
#define LADDER_A24 A24
#define LADDER_ADD mc_f448_add_loose
#define LADDER_SUB mc_f448_sub_loose
#define LADDER_MUL mc_f448_mul
#define LADDER_SQR mc_f448_sqr
#define LADDER_MUL_SMALL mc_f448_mul_small
#define LADDER_CSWAP mc_f448_cswap
#define LADDER_INVERT mc_f448_inv
#define LADDER_TOBYTES mc_f448_tobytes
#define LADDER_SET_ONE(r) mc_f448_set_u32(r, 1)
#define LADDER_SET_ZERO(r) mc_f448_set_u32(r, 0)
#include "montgomery_ladder.h"

void mc_x448_scalarmult(uint8_t out[56], const uint8_t scalar[56], const uint8_t u[56]) {
  uint8_t k[56];
  mc_f448 x1;
  memcpy(k, scalar, 56);
  clamp(k);
  mc_f448_frombytes(&x1, u);
  ladder(out, k, &x1);
  mc_wipe(k, sizeof k);
}

int mc_x448_public_key(uint8_t out_public_key[MC_X448_KEY_LEN],
                       const uint8_t private_key[MC_X448_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  // X448(k, 5) is the u-coordinate of [k] times curve448's base point, which
  // is the 4-isogeny's image of edwards448's B; B has prime order L, so
  // [k mod L]B maps to the same point.
  uint8_t k[56], k_mod_l[56];
  mc_ed448_point a;
  memcpy(k, private_key, 56);
  clamp(k);
  mc_sc448_reduce(k_mod_l, k, 56);
  mc_ed448_scalarmult_base(&a, k_mod_l);
  mc_ed448_point_montgomery_u(out_public_key, &a);
  mc_wipe(k, sizeof k);
  mc_wipe(k_mod_l, sizeof k_mod_l);
  mc_wipe(&a, sizeof a);
  return 0;
}

int mc_x448_keypair(uint8_t out_public_key[MC_X448_KEY_LEN],
                    uint8_t out_private_key[MC_X448_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || out_private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  RAND_bytes(out_private_key, MC_X448_KEY_LEN);
  return mc_x448_public_key(out_public_key, out_private_key);
}

int mc_x448(uint8_t out_shared_secret[MC_X448_KEY_LEN], const uint8_t private_key[MC_X448_KEY_LEN],
            const uint8_t peer_public_key[MC_X448_KEY_LEN]) {
  MC_FAIL_IF(out_shared_secret == NULL || private_key == NULL || peer_public_key == NULL,
             MC_ERR_INVALID_ARGUMENT);
  mc_x448_scalarmult(out_shared_secret, private_key, peer_public_key);
  // RFC 7748 §6.2: an all-zero result means the peer sent a point of small
  // order. The status is computed with masks rather than a branch so that
  // the function itself stays free of branches on the secret; whether the
  // result was zero is the caller's to reveal.
  uint32_t acc = 0;
  for (int i = 0; i < MC_X448_KEY_LEN; i++)
    acc |= out_shared_secret[i];
  uint32_t zero = ((acc - 1) >> 8) & 1;
  return -(int)zero & MC_ERR_BAD_KEY;
}
