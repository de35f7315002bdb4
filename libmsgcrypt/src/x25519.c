// x25519.c: the X25519 Diffie-Hellman function of RFC 7748 in portable C
// (the "scalar" table entry and the specification the x86-64 kernel is
// tested against) and the public mc_x25519* functions, which run the kernels
// of the implementation table in use. The field is GF(2^255 - 19) in five
// 51-bit limbs with 128-bit products; the ladder is §5's, with masked
// conditional swaps, so that nothing branches on or indexes by a secret.
#include <openssl/rand.h>
#include <string.h>

#include "impl_internal.h"
#include "x25519_internal.h"

__extension__ typedef unsigned __int128 u128;

// An element is v[0] + v[1]·2^51 + ... + v[4]·2^204. After a multiplication,
// squaring or subtraction each limb is below 2^52, after an addition below
// 2^53; products of such limbs (one side times 19) sum far below 2^128.
typedef struct {
  uint64_t v[5];
} fe51;

#define MASK51 ((UINT64_C(1) << 51) - 1)

static void fe_carry(fe51 *r) {
  uint64_t c;
  for (int i = 0; i < 4; i++) {
    c = r->v[i] >> 51;
    r->v[i] &= MASK51;
    r->v[i + 1] += c;
  }
  c = r->v[4] >> 51;
  r->v[4] &= MASK51;
  r->v[0] += 19 * c; // 2^255 = 19 (mod p)
}

static void fe_frombytes(fe51 *r, const uint8_t s[32]) {
  // Bit offsets 0, 51, 102, 153, 204; the mask on the last drops bit 255,
  // which RFC 7748 §5 says to ignore.
  r->v[0] = mc_load_le64(s) & MASK51;
  r->v[1] = (mc_load_le64(s + 6) >> 3) & MASK51;
  r->v[2] = (mc_load_le64(s + 12) >> 6) & MASK51;
  r->v[3] = (mc_load_le64(s + 19) >> 1) & MASK51;
  r->v[4] = (mc_load_le64(s + 24) >> 12) & MASK51;
}

static void fe_tobytes(uint8_t s[32], const fe51 *a) {
  fe51 t = *a;
  fe_carry(&t);
  fe_carry(&t);
  // Now t < 2^255 + 2^13 or so; t >= p exactly when t + 19 reaches 2^255.
  uint64_t q = (t.v[0] + 19) >> 51;
  for (int i = 1; i < 5; i++)
    q = (t.v[i] + q) >> 51;
  t.v[0] += 19 * q;
  for (int i = 0; i < 4; i++) {
    t.v[i + 1] += t.v[i] >> 51;
    t.v[i] &= MASK51;
  }
  t.v[4] &= MASK51; // drops the 2^255 that q·p's subtraction owes
  mc_store_le64(s, t.v[0] | t.v[1] << 51);
  mc_store_le64(s + 8, t.v[1] >> 13 | t.v[2] << 38);
  mc_store_le64(s + 16, t.v[2] >> 26 | t.v[3] << 25);
  mc_store_le64(s + 24, t.v[3] >> 39 | t.v[4] << 12);
}

// fe_add leaves the carries to the multiplication that always follows: in
// the ladder a sum only ever feeds fe_mul or fe_sqr, whose 128-bit sums have
// room for limbs below 2^53.
static void fe_add(fe51 *r, const fe51 *a, const fe51 *b) {
  for (int i = 0; i < 5; i++)
    r->v[i] = a->v[i] + b->v[i];
}

// fe_sub adds 4p before subtracting so that no limb goes negative: each limb
// of 4p is at least 2^53 - 76, above any limb of `b`.
static void fe_sub(fe51 *r, const fe51 *a, const fe51 *b) {
  r->v[0] = a->v[0] + ((UINT64_C(1) << 53) - 76) - b->v[0];
  for (int i = 1; i < 5; i++)
    r->v[i] = a->v[i] + ((UINT64_C(1) << 53) - 4) - b->v[i];
  fe_carry(r);
}

static void fe_mul(fe51 *r, const fe51 *a, const fe51 *b) {
  const uint64_t *x = a->v, *y = b->v;
  uint64_t y1 = 19 * y[1], y2 = 19 * y[2], y3 = 19 * y[3], y4 = 19 * y[4];
  u128 t0 =
      (u128)x[0] * y[0] + (u128)x[1] * y4 + (u128)x[2] * y3 + (u128)x[3] * y2 + (u128)x[4] * y1;
  u128 t1 =
      (u128)x[0] * y[1] + (u128)x[1] * y[0] + (u128)x[2] * y4 + (u128)x[3] * y3 + (u128)x[4] * y2;
  u128 t2 =
      (u128)x[0] * y[2] + (u128)x[1] * y[1] + (u128)x[2] * y[0] + (u128)x[3] * y4 + (u128)x[4] * y3;
  u128 t3 = (u128)x[0] * y[3] + (u128)x[1] * y[2] + (u128)x[2] * y[1] + (u128)x[3] * y[0] +
            (u128)x[4] * y4;
  u128 t4 = (u128)x[0] * y[4] + (u128)x[1] * y[3] + (u128)x[2] * y[2] + (u128)x[3] * y[1] +
            (u128)x[4] * y[0];
  t1 += (uint64_t)(t0 >> 51);
  t2 += (uint64_t)(t1 >> 51);
  t3 += (uint64_t)(t2 >> 51);
  t4 += (uint64_t)(t3 >> 51);
  uint64_t c = (uint64_t)(t4 >> 51);
  r->v[0] = ((uint64_t)t0 & MASK51) + 19 * c;
  r->v[1] = (uint64_t)t1 & MASK51;
  r->v[2] = (uint64_t)t2 & MASK51;
  r->v[3] = (uint64_t)t3 & MASK51;
  r->v[4] = (uint64_t)t4 & MASK51;
  fe_carry(r);
}

// fe_sqr: fe_mul with the symmetric products formed once and doubled.
static void fe_sqr(fe51 *r, const fe51 *a) {
  const uint64_t *x = a->v;
  uint64_t d0 = 2 * x[0], d1 = 2 * x[1], d2 = 2 * x[2], d3 = 2 * x[3];
  uint64_t x3_19 = 19 * x[3], x4_19 = 19 * x[4];
  u128 t0 = (u128)x[0] * x[0] + (u128)d1 * x4_19 + (u128)d2 * x3_19;
  u128 t1 = (u128)d0 * x[1] + (u128)d2 * x4_19 + (u128)x[3] * x3_19;
  u128 t2 = (u128)d0 * x[2] + (u128)x[1] * x[1] + (u128)d3 * x4_19;
  u128 t3 = (u128)d0 * x[3] + (u128)d1 * x[2] + (u128)x[4] * x4_19;
  u128 t4 = (u128)d0 * x[4] + (u128)d1 * x[3] + (u128)x[2] * x[2];
  t1 += (uint64_t)(t0 >> 51);
  t2 += (uint64_t)(t1 >> 51);
  t3 += (uint64_t)(t2 >> 51);
  t4 += (uint64_t)(t3 >> 51);
  uint64_t c = (uint64_t)(t4 >> 51);
  r->v[0] = ((uint64_t)t0 & MASK51) + 19 * c;
  r->v[1] = (uint64_t)t1 & MASK51;
  r->v[2] = (uint64_t)t2 & MASK51;
  r->v[3] = (uint64_t)t3 & MASK51;
  r->v[4] = (uint64_t)t4 & MASK51;
  fe_carry(r);
}

static void fe_mul_small(fe51 *r, const fe51 *a, uint32_t k) {
  u128 c = 0;
  for (int i = 0; i < 5; i++) {
    c += (u128)a->v[i] * k;
    r->v[i] = (uint64_t)c & MASK51;
    c >>= 51;
  }
  r->v[0] += 19 * (uint64_t)c;
  fe_carry(r);
}

static void fe_sqr_n(fe51 *r, const fe51 *a, int n) {
  fe_sqr(r, a);
  for (int i = 1; i < n; i++)
    fe_sqr(r, r);
}

// fe_invert computes a^(p-2) = 1/a (0 for 0) with the usual addition chain
// for p - 2 = 2^255 - 21: 254 squarings and 11 multiplications.
static void fe_invert(fe51 *r, const fe51 *a) {
  fe51 z2, z9, z11, z5_0, z10_0, z20_0, z50_0, z100_0, t;
  fe_sqr(&z2, a);            // 2
  fe_sqr_n(&t, &z2, 2);      // 8
  fe_mul(&z9, &t, a);        // 9
  fe_mul(&z11, &z9, &z2);    // 11
  fe_sqr(&t, &z11);          // 22
  fe_mul(&z5_0, &t, &z9);    // 2^5 - 1
  fe_sqr_n(&t, &z5_0, 5);    // 2^10 - 2^5
  fe_mul(&z10_0, &t, &z5_0); // 2^10 - 1
  fe_sqr_n(&t, &z10_0, 10);
  fe_mul(&z20_0, &t, &z10_0); // 2^20 - 1
  fe_sqr_n(&t, &z20_0, 20);
  fe_mul(&t, &t, &z20_0); // 2^40 - 1
  fe_sqr_n(&t, &t, 10);
  fe_mul(&z50_0, &t, &z10_0); // 2^50 - 1
  fe_sqr_n(&t, &z50_0, 50);
  fe_mul(&z100_0, &t, &z50_0); // 2^100 - 1
  fe_sqr_n(&t, &z100_0, 100);
  fe_mul(&t, &t, &z100_0); // 2^200 - 1
  fe_sqr_n(&t, &t, 50);
  fe_mul(&t, &t, &z50_0); // 2^250 - 1
  fe_sqr_n(&t, &t, 5);    // 2^255 - 2^5
  fe_mul(r, &t, &z11);    // 2^255 - 21
}

// fe_cswap swaps `a` and `b` when `mask` is all ones, leaves them when 0.
static void fe_cswap(fe51 *a, fe51 *b, uint64_t mask) {
  for (int i = 0; i < 5; i++) {
    uint64_t x = mask & (a->v[i] ^ b->v[i]);
    a->v[i] ^= x;
    b->v[i] ^= x;
  }
}

#define X25519_FE fe51
#include "x25519_ladder.h"

void mc_x25519_scalarmult_scalar(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]) {
  uint8_t k[32];
  fe51 x1;
  memcpy(k, scalar, 32);
  k[0] &= 248;
  k[31] = (uint8_t)((k[31] & 127) | 64);
  fe_frombytes(&x1, u);
  ladder(out, k, &x1);
  mc_wipe(k, sizeof k);
}

void mc_x25519_base_scalar(uint8_t out[32], const uint8_t scalar[32]) {
  static const uint8_t nine[32] = {9};
  mc_x25519_scalarmult_scalar(out, scalar, nine);
}

int mc_x25519_public_key(uint8_t out_public_key[MC_X25519_KEY_LEN],
                         const uint8_t private_key[MC_X25519_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  mc_impl_current()->x25519_base(out_public_key, private_key);
  return 0;
}

int mc_x25519_keypair(uint8_t out_public_key[MC_X25519_KEY_LEN],
                      uint8_t out_private_key[MC_X25519_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || out_private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  RAND_bytes(out_private_key, MC_X25519_KEY_LEN);
  return mc_x25519_public_key(out_public_key, out_private_key);
}

int mc_x25519(uint8_t out_shared_secret[MC_X25519_KEY_LEN],
              const uint8_t private_key[MC_X25519_KEY_LEN],
              const uint8_t peer_public_key[MC_X25519_KEY_LEN]) {
  MC_FAIL_IF(out_shared_secret == NULL || private_key == NULL || peer_public_key == NULL,
             MC_ERR_INVALID_ARGUMENT);
  mc_impl_current()->x25519(out_shared_secret, private_key, peer_public_key);
  // RFC 7748 §6.1: an all-zero result means the peer sent a point of small
  // order. Masks rather than a branch keep this function free of branches
  // on the secret; whether the result was zero is the caller's to reveal.
  uint32_t acc = 0;
  for (int i = 0; i < MC_X25519_KEY_LEN; i++)
    acc |= out_shared_secret[i];
  uint32_t zero = ((acc - 1) >> 8) & 1;
  return -(int)zero & MC_ERR_BAD_KEY;
}

int mc_x25519_ephemeral(uint8_t out_public_key[MC_X25519_KEY_LEN],
                        uint8_t out_shared_secret[MC_X25519_KEY_LEN],
                        const uint8_t private_key[MC_X25519_KEY_LEN],
                        const uint8_t peer_public_key[MC_X25519_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || out_shared_secret == NULL || private_key == NULL ||
                 peer_public_key == NULL,
             MC_ERR_INVALID_ARGUMENT);
  const struct mc_impl *impl = mc_impl_current();
  if (impl->x25519_pair != NULL) {
    impl->x25519_pair(out_public_key, out_shared_secret, private_key, peer_public_key);
  } else {
    impl->x25519_base(out_public_key, private_key);
    impl->x25519(out_shared_secret, private_key, peer_public_key);
  }
  // As in mc_x25519: all zeros means a peer point of small order.
  uint32_t acc = 0;
  for (int i = 0; i < MC_X25519_KEY_LEN; i++)
    acc |= out_shared_secret[i];
  uint32_t zero = ((acc - 1) >> 8) & 1;
  return -(int)zero & MC_ERR_BAD_KEY;
}
