// f448.c: arithmetic in GF(p), p = 2^448 - 2^224 - 1, the field of X448 and
// Ed448. Elements are eight 56-bit limbs in 64-bit words; products use
// unsigned __int128. Writing a = A0 + A1*phi with phi = 2^224, the prime's
// "golden ratio" shape phi^2 = phi + 1 (mod p) turns a product into three
// 4x4-limb products (Karatsuba), 48 word multiplications instead of 64.
// Every function runs in time independent of the values: no branch and no
// memory index depends on them; selections use masks.
#include <string.h>

#include "curve448_internal.h"

#define MASK56 ((uint64_t)0x00ffffffffffffff)

// __extension__: -Wpedantic otherwise objects to the GCC/Clang 128-bit type.
__extension__ typedef unsigned __int128 u128;

void mc_f448_set_u32(mc_f448 *r, uint32_t a) {
  memset(r, 0, sizeof *r);
  r->v[0] = a;
}

void mc_f448_frombytes(mc_f448 *r, const uint8_t in[56]) {
  for (int i = 0; i < 8; i++) {
    uint64_t w = 0;
    for (int j = 6; j >= 0; j--)
      w = w << 8 | in[7 * i + j];
    r->v[i] = w;
  }
}

// weak_reduce carries limbs below 2^60 into limbs below 2^57: the carry out of
// the top limb is worth 2^448 = 2^224 + 1 (mod p), so it re-enters at limbs 0
// and 4.
static inline void weak_reduce(uint64_t v[8]) {
  uint64_t top = v[7] >> 56;
  v[7] &= MASK56;
  v[0] += top;
  v[4] += top;
  for (int i = 0; i < 7; i++) {
    v[i + 1] += v[i] >> 56;
    v[i] &= MASK56;
  }
}

void mc_f448_add(mc_f448 *r, const mc_f448 *a, const mc_f448 *b) {
  for (int i = 0; i < 8; i++)
    r->v[i] = a->v[i] + b->v[i];
  weak_reduce(r->v);
}

// a - b is computed as a + 4p - b so that no limb goes negative for b's limbs
// below 2^58 - 8 (4p's limbs are 2^58 - 4, and 2^58 - 8 at limb 4).
void mc_f448_sub(mc_f448 *r, const mc_f448 *a, const mc_f448 *b) {
  for (int i = 0; i < 8; i++) {
    uint64_t bias = (i == 4) ? ((uint64_t)1 << 58) - 8 : ((uint64_t)1 << 58) - 4;
    r->v[i] = a->v[i] + bias - b->v[i];
  }
  weak_reduce(r->v);
}

// The loose forms skip the carry pass for sums that only feed products (see
// curve448_internal.h for the bounds); the ladder and the point formulas
// spend a sixth of their time in carries otherwise.
void mc_f448_add_loose(mc_f448 *r, const mc_f448 *a, const mc_f448 *b) {
  for (int i = 0; i < 8; i++)
    r->v[i] = a->v[i] + b->v[i];
}

void mc_f448_sub_loose(mc_f448 *r, const mc_f448 *a, const mc_f448 *b) {
  for (int i = 0; i < 8; i++) {
    uint64_t bias = (i == 4) ? ((uint64_t)1 << 58) - 8 : ((uint64_t)1 << 58) - 4;
    r->v[i] = a->v[i] + bias - b->v[i];
  }
}

void mc_f448_neg(mc_f448 *r, const mc_f448 *a) {
  mc_f448 zero;
  mc_f448_set_u32(&zero, 0);
  mc_f448_sub(r, &zero, a);
}

// carry_wide turns eight 128-bit column sums (each below 2^124) into limbs
// below 2^57.
static inline void carry_wide(uint64_t out[8], u128 c[8]) {
  for (int i = 0; i < 7; i++) {
    c[i + 1] += c[i] >> 56;
    c[i] &= MASK56;
  }
  u128 top = c[7] >> 56;
  c[7] &= MASK56;
  c[0] += top;
  c[4] += top;
  c[1] += c[0] >> 56;
  c[0] &= MASK56;
  c[5] += c[4] >> 56;
  c[4] &= MASK56;
  for (int i = 0; i < 8; i++)
    out[i] = (uint64_t)c[i];
}

// Writing a = A0 + A1*phi and b = B0 + B1*phi with 4-limb halves, let
// X = A0*B0, Y = A1*B1 and Z = (A0+A1)*(B0+B1), polynomials in t = 2^56 with
// coefficients X_0..X_6 (and so on). Then, with phi^2 = phi + 1 (mod p),
//   a*b = X + Y + (Z - X)*phi  (mod p),
// and the coefficients j = 4..6 of (Z - X)*phi land at t^8..t^10, which
// reduce as t^8 = phi^2 = phi + 1. Column j and column j + 4 (j = 0..3) of the
// result are therefore
//   c_j     = X_j + Y_j + Z_{j+4} - X_{j+4}
//   c_{j+4} = Z_j - X_j + Y_{j+4} + Z_{j+4}
// (terms with index 7 are zero). Every column is non-negative, so unsigned
// wrap-around in the intermediate sums cancels out. The columns are computed
// in pairs, and the two carry chains (0..3 and 4..7) run alongside, so few
// 128-bit values are live at once; the carries out of columns 3 and 7 then
// enter column 4 (and column 0 for 7, as t^8 = phi + 1).
#define MUL(x, y) ((u128)(x) * (y))

static inline void finish(uint64_t out[8], u128 c0, u128 c4, u128 c1, u128 c5, u128 c2, u128 c6,
                          u128 c3, u128 c7) {
  uint64_t r[8];
  r[0] = (uint64_t)c0 & MASK56;
  r[4] = (uint64_t)c4 & MASK56;
  c1 += c0 >> 56;
  c5 += c4 >> 56;
  r[1] = (uint64_t)c1 & MASK56;
  r[5] = (uint64_t)c5 & MASK56;
  c2 += c1 >> 56;
  c6 += c5 >> 56;
  r[2] = (uint64_t)c2 & MASK56;
  r[6] = (uint64_t)c6 & MASK56;
  c3 += c2 >> 56;
  c7 += c6 >> 56;
  r[3] = (uint64_t)c3 & MASK56;
  r[7] = (uint64_t)c7 & MASK56;
  u128 top3 = c3 >> 56, top7 = c7 >> 56;
  u128 t4 = (u128)r[4] + top3 + top7;
  u128 t0 = (u128)r[0] + top7;
  r[4] = (uint64_t)t4 & MASK56;
  r[5] += (uint64_t)(t4 >> 56);
  r[0] = (uint64_t)t0 & MASK56;
  r[1] += (uint64_t)(t0 >> 56);
  memcpy(out, r, sizeof r);
}

void mc_f448_mul(mc_f448 *r, const mc_f448 *a, const mc_f448 *b) {
  const uint64_t a0 = a->v[0], a1 = a->v[1], a2 = a->v[2], a3 = a->v[3];
  const uint64_t a4 = a->v[4], a5 = a->v[5], a6 = a->v[6], a7 = a->v[7];
  const uint64_t b0 = b->v[0], b1 = b->v[1], b2 = b->v[2], b3 = b->v[3];
  const uint64_t b4 = b->v[4], b5 = b->v[5], b6 = b->v[6], b7 = b->v[7];
  const uint64_t s0 = a0 + a4, s1 = a1 + a5, s2 = a2 + a6, s3 = a3 + a7;
  const uint64_t t0 = b0 + b4, t1 = b1 + b5, t2 = b2 + b6, t3 = b3 + b7;
  u128 x, z, c0, c1, c2, c3, c4, c5, c6, c7;

  x = MUL(a0, b0);
  z = MUL(s1, t3) + MUL(s2, t2) + MUL(s3, t1);
  c0 = x + MUL(a4, b4) + z - (MUL(a1, b3) + MUL(a2, b2) + MUL(a3, b1));
  c4 = MUL(s0, t0) - x + MUL(a5, b7) + MUL(a6, b6) + MUL(a7, b5) + z;

  x = MUL(a0, b1) + MUL(a1, b0);
  z = MUL(s2, t3) + MUL(s3, t2);
  c1 = x + MUL(a4, b5) + MUL(a5, b4) + z - (MUL(a2, b3) + MUL(a3, b2));
  c5 = MUL(s0, t1) + MUL(s1, t0) - x + MUL(a6, b7) + MUL(a7, b6) + z;

  x = MUL(a0, b2) + MUL(a1, b1) + MUL(a2, b0);
  z = MUL(s3, t3);
  c2 = x + MUL(a4, b6) + MUL(a5, b5) + MUL(a6, b4) + z - MUL(a3, b3);
  c6 = MUL(s0, t2) + MUL(s1, t1) + MUL(s2, t0) - x + MUL(a7, b7) + z;

  x = MUL(a0, b3) + MUL(a1, b2) + MUL(a2, b1) + MUL(a3, b0);
  c3 = x + MUL(a4, b7) + MUL(a5, b6) + MUL(a6, b5) + MUL(a7, b4);
  c7 = MUL(s0, t3) + MUL(s1, t2) + MUL(s2, t1) + MUL(s3, t0) - x;

  finish(r->v, c0, c4, c1, c5, c2, c6, c3, c7);
}

void mc_f448_sqr(mc_f448 *r, const mc_f448 *a) {
  const uint64_t a0 = a->v[0], a1 = a->v[1], a2 = a->v[2], a3 = a->v[3];
  const uint64_t a4 = a->v[4], a5 = a->v[5], a6 = a->v[6], a7 = a->v[7];
  const uint64_t s0 = a0 + a4, s1 = a1 + a5, s2 = a2 + a6, s3 = a3 + a7;
  u128 x, z, c0, c1, c2, c3, c4, c5, c6, c7;

  x = MUL(a0, a0);
  z = MUL(2 * s1, s3) + MUL(s2, s2);
  c0 = x + MUL(a4, a4) + z - (MUL(2 * a1, a3) + MUL(a2, a2));
  c4 = MUL(s0, s0) - x + MUL(2 * a5, a7) + MUL(a6, a6) + z;

  x = MUL(2 * a0, a1);
  z = MUL(2 * s2, s3);
  c1 = x + MUL(2 * a4, a5) + z - MUL(2 * a2, a3);
  c5 = MUL(2 * s0, s1) - x + MUL(2 * a6, a7) + z;

  x = MUL(2 * a0, a2) + MUL(a1, a1);
  z = MUL(s3, s3);
  c2 = x + MUL(2 * a4, a6) + MUL(a5, a5) + z - MUL(a3, a3);
  c6 = MUL(2 * s0, s2) + MUL(s1, s1) - x + MUL(a7, a7) + z;

  x = MUL(2 * a0, a3) + MUL(2 * a1, a2);
  c3 = x + MUL(2 * a4, a7) + MUL(2 * a5, a6);
  c7 = MUL(2 * s0, s3) + MUL(2 * s1, s2) - x;

  finish(r->v, c0, c4, c1, c5, c2, c6, c3, c7);
}

void mc_f448_mul_small(mc_f448 *r, const mc_f448 *a, uint32_t b) {
  u128 c[8];
  for (int i = 0; i < 8; i++)
    c[i] = (u128)a->v[i] * b;
  carry_wide(r->v, c);
}

static void sqr_n(mc_f448 *r, const mc_f448 *a, int n) {
  mc_f448_sqr(r, a);
  for (int i = 1; i < n; i++)
    mc_f448_sqr(r, r);
}

// (p-3)/4 = 2^446 - 2^222 - 1 is 223 one bits, a zero, then 222 one bits.
// The chain builds a^(2^k - 1) for k = 1, 2, 3, 6, 12, 24, 30, 48, 96, 192,
// 222, 223 and ends with a^((2^223 - 1) * 2^223 + 2^222 - 1).
void mc_f448_pow_p34(mc_f448 *r, const mc_f448 *a) {
  mc_f448 x2, x3, x6, x12, x24, x30, x48, x96, x192, x222, x223, t;
  mc_f448_sqr(&t, a);
  mc_f448_mul(&x2, &t, a);
  mc_f448_sqr(&t, &x2);
  mc_f448_mul(&x3, &t, a);
  sqr_n(&t, &x3, 3);
  mc_f448_mul(&x6, &t, &x3);
  sqr_n(&t, &x6, 6);
  mc_f448_mul(&x12, &t, &x6);
  sqr_n(&t, &x12, 12);
  mc_f448_mul(&x24, &t, &x12);
  sqr_n(&t, &x24, 6);
  mc_f448_mul(&x30, &t, &x6);
  sqr_n(&t, &x24, 24);
  mc_f448_mul(&x48, &t, &x24);
  sqr_n(&t, &x48, 48);
  mc_f448_mul(&x96, &t, &x48);
  sqr_n(&t, &x96, 96);
  mc_f448_mul(&x192, &t, &x96);
  sqr_n(&t, &x192, 30);
  mc_f448_mul(&x222, &t, &x30);
  mc_f448_sqr(&t, &x222);
  mc_f448_mul(&x223, &t, a);
  sqr_n(&t, &x223, 223);
  mc_f448_mul(r, &t, &x222);
}

// p - 2 = 4 * (p-3)/4 + 1.
void mc_f448_inv(mc_f448 *r, const mc_f448 *a) {
  mc_f448 t;
  mc_f448_pow_p34(&t, a);
  mc_f448_sqr(&t, &t);
  mc_f448_sqr(&t, &t);
  mc_f448_mul(r, &t, a);
}

// canonical sets out to the representative in [0, p) of a. After one carry
// pass the value is below 2p, so one masked subtraction of p finishes.
static void canonical(uint64_t out[8], const mc_f448 *a) {
  uint64_t v[8], s[8];
  memcpy(v, a->v, sizeof v);
  weak_reduce(v);
  // s = v - p, limb by limb with borrows; p's limbs are 2^56 - 1 except
  // limb 4, which is 2^56 - 2.
  uint64_t borrow = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t pi = (i == 4) ? MASK56 - 1 : MASK56;
    uint64_t d = v[i] - pi - borrow;
    borrow = d >> 63;
    s[i] = d & MASK56;
  }
  // A final borrow means v < p: add p back (masked), dropping the carry out.
  uint64_t keep = 0 - borrow;
  uint64_t carry = 0;
  for (int i = 0; i < 8; i++) {
    uint64_t pi = (i == 4) ? MASK56 - 1 : MASK56;
    uint64_t d = s[i] + (pi & keep) + carry;
    carry = d >> 56;
    out[i] = d & MASK56;
  }
}

void mc_f448_tobytes(uint8_t out[56], const mc_f448 *a) {
  uint64_t v[8];
  canonical(v, a);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 7; j++)
      out[7 * i + j] = (uint8_t)(v[i] >> (8 * j));
}

uint64_t mc_f448_is_zero(const mc_f448 *a) {
  uint64_t v[8], acc = 0;
  canonical(v, a);
  for (int i = 0; i < 8; i++)
    acc |= v[i];
  // acc < 2^56, so acc - 1 has its top bit set exactly when acc == 0.
  return 0 - ((acc - 1) >> 63);
}

uint64_t mc_f448_is_negative(const mc_f448 *a) {
  uint64_t v[8];
  canonical(v, a);
  return v[0] & 1;
}

void mc_f448_cswap(mc_f448 *a, mc_f448 *b, uint64_t mask) {
  for (int i = 0; i < 8; i++) {
    uint64_t t = mask & (a->v[i] ^ b->v[i]);
    a->v[i] ^= t;
    b->v[i] ^= t;
  }
}

void mc_f448_cmov(mc_f448 *r, const mc_f448 *a, uint64_t mask) {
  for (int i = 0; i < 8; i++)
    r->v[i] ^= mask & (r->v[i] ^ a->v[i]);
}
