// p256.c: libmsgcrypt's own P-256 ECDH (NIST SP 800-186, SEC 1 §3.3.1):
// the portable kernels, which are the specification the x86-64 ones are
// tested against, with a plain Montgomery product on four 64-bit limbs and
// 128-bit intermediate products; the decoding and validation of peer points
// (SEC 1 §2.3.4 and §3.2.2.1: coordinates below p, on the curve, never the
// point at infinity; compressed points through the square root that p ≡ 3
// mod 4 allows); and mc_p256_ecdh, which pkenc.c calls for every P-256 ECDH
// and which runs the kernels of the implementation table.
#include <string.h>

#include "impl_internal.h"
#include "p256_internal.h"

// fe_mul: Montgomery multiplication, coarsely integrated operand scanning.
// Since p ≡ -1 (mod 2^64), -1/p mod 2^64 is 1 and each round's multiplier
// is simply the lowest limb; adding its multiple of p takes one product
// thanks to p's shape. The result stays below 2p and is reduced once.
static inline void fe_mul(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b);
static inline void fe_sqr(mc_p256_fe *r, const mc_p256_fe *a);

#include "p256_curve.h"

static inline void fe_mul(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b) {
  uint64_t t[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 4; i++) {
    p256_u128 c = 0;
    for (int j = 0; j < 4; j++) {
      c += (p256_u128)a->v[j] * b->v[i] + t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
    c += t[4];
    t[4] = (uint64_t)c;
    t[5] = (uint64_t)(c >> 64);
    // Add m·p for m = t[0] and drop the zero limb: m·p = m·2^256 - m·2^224
    // + m·2^192 + m·2^96 - m, so (t + m·p) / 2^64 is (t >> 64) + m·2^32 +
    // m·(2^64 - 2^32 + 1)·2^128.
    uint64_t m = t[0];
    c = (p256_u128)t[1] + (m << 32);
    t[0] = (uint64_t)c;
    c >>= 64;
    c += (p256_u128)t[2] + (m >> 32);
    t[1] = (uint64_t)c;
    c >>= 64;
    c += (p256_u128)t[3] + (p256_u128)m * p256_p.v[3];
    t[2] = (uint64_t)c;
    c >>= 64;
    c += t[4];
    t[3] = (uint64_t)c;
    t[4] = t[5] + (uint64_t)(c >> 64);
  }
  fe_reduce_once(r, t, t[4]);
}

static inline void fe_sqr(mc_p256_fe *r, const mc_p256_fe *a) {
  fe_mul(r, a, a);
}

void mc_p256_mul_scalar(uint8_t out_x[32], const uint8_t scalar[32],
                        const uint8_t point_xy[MC_P256_XY_LEN]) {
  p256_mul_generic(out_x, scalar, point_xy);
}

void mc_p256_base_scalar(uint8_t out_xy[MC_P256_XY_LEN], const uint8_t scalar[32]) {
  p256_base_generic(out_xy, scalar);
}

// below_p reports whether the 32-byte big-endian `in` is below p (public).
static int below_p(const uint8_t in[32]) {
  uint8_t pb[32];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++)
      pb[8 * (3 - i) + j] = (uint8_t)(p256_p.v[i] >> (56 - 8 * j));
  return memcmp(in, pb, 32) < 0;
}

static int fe_equal(const mc_p256_fe *a, const mc_p256_fe *b) {
  return memcmp(a->v, b->v, sizeof a->v) == 0;
}

// curve_rhs sets r = x^3 - 3x + b.
static void curve_rhs(mc_p256_fe *r, const mc_p256_fe *x) {
  mc_p256_fe t, three_x;
  fe_sqr(&t, x);
  fe_mul(&t, &t, x);
  fe_add(&three_x, x, x);
  fe_add(&three_x, &three_x, x);
  fe_sub(&t, &t, &three_x);
  fe_add(r, &t, &p256_b);
}

// fe_sqrt sets r = a^((p + 1)/4), a square root of `a` when there is one:
// (p + 1)/4 = 2^254 - 2^222 + 2^190 + 2^94, so 32 ones, a one 32 places
// lower, another 96 lower, then 94 zeros. The input is public.
static void fe_sqrt(mc_p256_fe *r, const mc_p256_fe *a) {
  mc_p256_fe t, x2, x4, x8, x16, x32;
  fe_sqr(&t, a);
  fe_mul(&x2, &t, a);
  fe_sqr_n(&t, &x2, 2);
  fe_mul(&x4, &t, &x2);
  fe_sqr_n(&t, &x4, 4);
  fe_mul(&x8, &t, &x4);
  fe_sqr_n(&t, &x8, 8);
  fe_mul(&x16, &t, &x8);
  fe_sqr_n(&t, &x16, 16);
  fe_mul(&x32, &t, &x16);
  fe_sqr_n(&t, &x32, 32);
  fe_mul(&t, &t, a);
  fe_sqr_n(&t, &t, 96);
  fe_mul(&t, &t, a);
  fe_sqr_n(r, &t, 94);
}

int mc_p256_point_decode(uint8_t out_xy[MC_P256_XY_LEN], const uint8_t *in, size_t in_len) {
  MC_FAIL_IF(in == NULL || in_len == 0, MC_ERR_BAD_KEY);
  int compressed = in_len == 33 && (in[0] == 0x02 || in[0] == 0x03);
  MC_FAIL_IF(!compressed && !(in_len == 65 && in[0] == 0x04), MC_ERR_BAD_KEY);
  MC_FAIL_IF(!below_p(in + 1), MC_ERR_BAD_KEY);
  mc_p256_fe x, y, rhs, y2;
  fe_from_bytes(&x, in + 1);
  curve_rhs(&rhs, &x);
  if (compressed) {
    fe_sqrt(&y, &rhs);
    uint8_t yb[32];
    fe_to_bytes(yb, &y);
    // SEC 1 §2.3.4: the prefix's low bit is y's; take p - y otherwise
    // (y is nonzero then: x^3 - 3x + b = 0 has no solution on P-256).
    if ((yb[31] & 1) != (in[0] & 1))
      fe_cneg(&y, ~(uint64_t)0);
  } else {
    MC_FAIL_IF(!below_p(in + 33), MC_ERR_BAD_KEY);
    fe_from_bytes(&y, in + 33);
  }
  fe_sqr(&y2, &y);
  MC_FAIL_IF(!fe_equal(&y2, &rhs), MC_ERR_BAD_KEY);
  memcpy(out_xy, in + 1, 32);
  fe_to_bytes(out_xy + 32, &y);
  return 0;
}

int mc_p256_scalar_check(const uint8_t scalar[MC_P256_SCALAR_LEN]) {
  // n, the group order, big-endian.
  static const uint8_t n[32] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
                                0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
  // The borrow of scalar - n says scalar < n; an OR of all bytes says
  // nonzero; neither branches on the scalar.
  uint32_t borrow = 0, any = 0;
  for (int i = 31; i >= 0; i--) {
    borrow = ((uint32_t)scalar[i] - n[i] - borrow) >> 31;
    any |= scalar[i];
  }
  uint32_t nonzero = (0u - any) >> 31;
  return (int)(borrow & nonzero);
}

int mc_p256_ecdh(uint8_t out_public[65], uint8_t out_shared[32],
                 const uint8_t scalar[MC_P256_SCALAR_LEN], const uint8_t *peer, size_t peer_len) {
  uint8_t xy[MC_P256_XY_LEN];
  memset(out_public, 0, 65);
  memset(out_shared, 0, 32);
  MC_TRY(mc_p256_point_decode(xy, peer, peer_len));
  // An out-of-range scalar still runs the kernels (0 gives the point at
  // infinity, whose inverse-based encoding is zeros, harmlessly), and the
  // outputs are cleared with a mask: no branch on the scalar, only the
  // status says whether it was in range.
  uint8_t ok = (uint8_t)mc_p256_scalar_check(scalar);
  uint8_t keep = (uint8_t)(0 - ok);
  const struct mc_impl *im = mc_impl_current();
  out_public[0] = 0x04;
  im->p256_base(out_public + 1, scalar);
  im->p256_mul(out_shared, scalar, xy);
  for (int i = 0; i < 65; i++)
    out_public[i] &= keep;
  for (int i = 0; i < 32; i++)
    out_shared[i] &= keep;
  return -(int)(ok ^ 1) & MC_ERR_BAD_KEY;
}
