// p256_curve.h: the P-256 arithmetic that every kernel shares, included by
// p256.c (the portable kernels) and src/x86/p256_adx.c after each defines
// its own Montgomery product for mc_p256_fe:
//   static inline void fe_mul(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b);
//   static inline void fe_sqr(mc_p256_fe *r, const mc_p256_fe *a);
// with r = a·b·2^-256 mod p, fully reduced, for inputs below p (and,
// optionally, its own fe_add and fe_sub: P256_OWN_ADD_SUB). Including it
// in each translation unit lets the point formulas be compiled with that
// unit's instruction set and the products inlined into them. Nothing here
// branches on or indexes memory with a secret: table entries are chosen by
// scanning every entry with masks, and the additions are the complete
// formulas for a = -3 of Renes, Costello and Batina, "Complete addition
// formulas for prime order elliptic curves" (2016), Algorithms 4, 5 and 6, on
// projective coordinates (X : Y : Z) with the point at infinity (0 : 1 : 0).
#ifndef MC_P256_CURVE_H
#define MC_P256_CURVE_H

#include <string.h>

#include "p256_internal.h"

__extension__ typedef unsigned __int128 p256_u128;

// p = 2^256 - 2^224 + 2^192 + 2^96 - 1, and constants in Montgomery form.
static const mc_p256_fe p256_p = {
    {0xffffffffffffffff, 0x00000000ffffffff, 0x0000000000000000, 0xffffffff00000001}};
static const mc_p256_fe p256_one = {
    {0x0000000000000001, 0xffffffff00000000, 0xffffffffffffffff, 0x00000000fffffffe}};
static const mc_p256_fe p256_r2 = { // 2^512 mod p: converts into Montgomery form
    {0x0000000000000003, 0xfffffffbffffffff, 0xfffffffffffffffe, 0x00000004fffffffd}};
static const mc_p256_fe p256_b = { // the curve's b, SP 800-186 §3.2.1.3
    {0xd89cdf6229c4bddf, 0xacf005cd78843090, 0xe5a220abf7212ed6, 0xdc30061d04874834}};

typedef struct {
  mc_p256_fe x, y, z;
} p256_point;

// p256_barrier hides a mask's value from the optimizer, so that masked
// selections stay selections and are not turned back into branches.
static inline uint64_t p256_barrier(uint64_t x) {
  __asm__("" : "+r"(x));
  return x;
}

// p256_eq_mask is all ones when a == b, else 0 (a, b below 2^32).
static inline uint64_t p256_eq_mask(uint32_t a, uint32_t b) {
  uint64_t x = (uint64_t)(a ^ b);
  return p256_barrier(0 - ((x - 1) >> 63));
}

// The carries below are computed with comparisons on 64-bit words, which
// compilers turn into flag arithmetic (setc, adc, sbb), never branches.

// fe_reduce_once turns s + 2^256·carry, known to be below 2p, into its value
// mod p: it subtracts p and keeps the difference unless that borrowed.
static inline void fe_reduce_once(mc_p256_fe *r, const uint64_t s[4], uint64_t carry) {
  uint64_t d[4], borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t t = s[i] - p256_p.v[i];
    uint64_t b = s[i] < p256_p.v[i];
    d[i] = t - borrow;
    borrow = b | (t < borrow);
  }
  uint64_t keep_s = p256_barrier(0 - (borrow & (carry ^ 1)));
  // The barrier on each word also keeps vectorizers from moving this
  // select through vector registers and the stack, which costs more here.
  for (int i = 0; i < 4; i++)
    r->v[i] = d[i] ^ (p256_barrier(s[i] ^ d[i]) & keep_s);
}

// fe_add and fe_sub: r = a ± b mod p. A kernel may define its own and
// P256_OWN_ADD_SUB before including this file.
#ifndef P256_OWN_ADD_SUB
static inline void fe_add(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b) {
  uint64_t s[4], carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t t = a->v[i] + carry;
    carry = t < carry;
    s[i] = t + b->v[i];
    carry |= s[i] < t;
  }
  fe_reduce_once(r, s, carry);
}

static inline void fe_sub(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b) {
  uint64_t d[4], borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t t = a->v[i] - b->v[i];
    uint64_t bo = a->v[i] < b->v[i];
    d[i] = t - borrow;
    borrow = bo | (t < borrow);
  }
  uint64_t mask = p256_barrier(0 - borrow), carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t t = d[i] + carry;
    carry = t < carry;
    r->v[i] = t + (p256_p.v[i] & mask);
    carry |= r->v[i] < t;
  }
}
#endif

// fe_cmov sets r = a when mask is all ones, leaves r when it is 0.
static inline void fe_cmov(mc_p256_fe *r, const mc_p256_fe *a, uint64_t mask) {
  for (int i = 0; i < 4; i++)
    r->v[i] ^= mask & (r->v[i] ^ a->v[i]);
}

// fe_cneg sets r = -r when mask is all ones.
static inline void fe_cneg(mc_p256_fe *r, uint64_t mask) {
  static const mc_p256_fe zero = {{0, 0, 0, 0}};
  mc_p256_fe n;
  fe_sub(&n, &zero, r);
  fe_cmov(r, &n, mask);
}

static inline void fe_sqr_n(mc_p256_fe *r, const mc_p256_fe *a, int n) {
  fe_sqr(r, a);
  for (int i = 1; i < n; i++)
    fe_sqr(r, r);
}

// fe_from_bytes reads 32 big-endian bytes (a value below p) into Montgomery
// form.
static inline void fe_from_bytes(mc_p256_fe *r, const uint8_t in[32]) {
  mc_p256_fe raw;
  for (int i = 0; i < 4; i++) {
    uint64_t w = 0;
    for (int j = 0; j < 8; j++)
      w = (w << 8) | in[8 * (3 - i) + j];
    raw.v[i] = w;
  }
  fe_mul(r, &raw, &p256_r2);
}

// fe_to_bytes writes the value of `a` (out of Montgomery form) big-endian.
static inline void fe_to_bytes(uint8_t out[32], const mc_p256_fe *a) {
  static const mc_p256_fe raw_one = {{1, 0, 0, 0}};
  mc_p256_fe t;
  fe_mul(&t, a, &raw_one);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++)
      out[8 * (3 - i) + j] = (uint8_t)(t.v[i] >> (56 - 8 * j));
}

// fe_inv sets r = a^(p - 2) = 1/a (0 for 0) with a fixed addition chain:
// p - 2 = 0xffffffff 00000001 00000000 00000000 00000000 ffffffff ffffffff
// fffffffd, built from xN = a^(2^N - 1).
static void fe_inv(mc_p256_fe *r, const mc_p256_fe *a) {
  mc_p256_fe x2, x3, x6, x12, x15, x30, x32, t;
  fe_sqr(&t, a);
  fe_mul(&x2, &t, a);
  fe_sqr(&t, &x2);
  fe_mul(&x3, &t, a);
  fe_sqr_n(&t, &x3, 3);
  fe_mul(&x6, &t, &x3);
  fe_sqr_n(&t, &x6, 6);
  fe_mul(&x12, &t, &x6);
  fe_sqr_n(&t, &x12, 3);
  fe_mul(&x15, &t, &x3);
  fe_sqr_n(&t, &x15, 15);
  fe_mul(&x30, &t, &x15);
  fe_sqr_n(&t, &x30, 2);
  fe_mul(&x32, &t, &x2);
  // ffffffff 00000001
  fe_sqr_n(&t, &x32, 32);
  fe_mul(&t, &t, a);
  // 96 zero bits, then ffffffff
  fe_sqr_n(&t, &t, 128);
  fe_mul(&t, &t, &x32);
  // ffffffff
  fe_sqr_n(&t, &t, 32);
  fe_mul(&t, &t, &x32);
  // fffffffd: 30 ones, a zero, a one
  fe_sqr_n(&t, &t, 30);
  fe_mul(&t, &t, &x30);
  fe_sqr_n(&t, &t, 2);
  fe_mul(r, &t, a);
}

// point_add: r = a + b (RCB Algorithm 4), complete: any inputs, including
// the point at infinity and a == b. r may alias a or b.
static void point_add(p256_point *r, const p256_point *a, const p256_point *b) {
  mc_p256_fe t0, t1, t2, t3, t4, x3, y3, z3;
  fe_mul(&t0, &a->x, &b->x);
  fe_mul(&t1, &a->y, &b->y);
  fe_mul(&t2, &a->z, &b->z);
  fe_add(&t3, &a->x, &a->y);
  fe_add(&t4, &b->x, &b->y);
  fe_mul(&t3, &t3, &t4);
  fe_add(&t4, &t0, &t1);
  fe_sub(&t3, &t3, &t4);
  fe_add(&t4, &a->y, &a->z);
  fe_add(&x3, &b->y, &b->z);
  fe_mul(&t4, &t4, &x3);
  fe_add(&x3, &t1, &t2);
  fe_sub(&t4, &t4, &x3);
  fe_add(&x3, &a->x, &a->z);
  fe_add(&y3, &b->x, &b->z);
  fe_mul(&x3, &x3, &y3);
  fe_add(&y3, &t0, &t2);
  fe_sub(&y3, &x3, &y3);
  fe_mul(&z3, &p256_b, &t2);
  fe_sub(&x3, &y3, &z3);
  fe_add(&z3, &x3, &x3);
  fe_add(&x3, &x3, &z3);
  fe_sub(&z3, &t1, &x3);
  fe_add(&x3, &t1, &x3);
  fe_mul(&y3, &p256_b, &y3);
  fe_add(&t1, &t2, &t2);
  fe_add(&t2, &t1, &t2);
  fe_sub(&y3, &y3, &t2);
  fe_sub(&y3, &y3, &t0);
  fe_add(&t1, &y3, &y3);
  fe_add(&y3, &t1, &y3);
  fe_add(&t1, &t0, &t0);
  fe_add(&t0, &t1, &t0);
  fe_sub(&t0, &t0, &t2);
  fe_mul(&t1, &t4, &y3);
  fe_mul(&t2, &t0, &y3);
  fe_mul(&y3, &x3, &z3);
  fe_add(&y3, &y3, &t2);
  fe_mul(&x3, &t3, &x3);
  fe_sub(&x3, &x3, &t1);
  fe_mul(&z3, &t4, &z3);
  fe_mul(&t1, &t3, &t0);
  fe_add(&z3, &z3, &t1);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

// point_add_affine: r = a + (bx, by) (RCB Algorithm 5), complete for any `a`
// and an affine point (bx, by) on the curve, which cannot be the point at
// infinity. r may alias a.
static void point_add_affine(p256_point *r, const p256_point *a, const mc_p256_affine *b) {
  mc_p256_fe t0, t1, t2, t3, t4, x3, y3, z3;
  fe_mul(&t0, &a->x, &b->x);
  fe_mul(&t1, &a->y, &b->y);
  fe_add(&t3, &b->x, &b->y);
  fe_add(&t4, &a->x, &a->y);
  fe_mul(&t3, &t3, &t4);
  fe_add(&t4, &t0, &t1);
  fe_sub(&t3, &t3, &t4);
  fe_mul(&t4, &b->y, &a->z);
  fe_add(&t4, &t4, &a->y);
  fe_mul(&y3, &b->x, &a->z);
  fe_add(&y3, &y3, &a->x);
  fe_mul(&z3, &p256_b, &a->z);
  fe_sub(&x3, &y3, &z3);
  fe_add(&z3, &x3, &x3);
  fe_add(&x3, &x3, &z3);
  fe_sub(&z3, &t1, &x3);
  fe_add(&x3, &t1, &x3);
  fe_mul(&y3, &p256_b, &y3);
  fe_add(&t1, &a->z, &a->z);
  fe_add(&t2, &t1, &a->z);
  fe_sub(&y3, &y3, &t2);
  fe_sub(&y3, &y3, &t0);
  fe_add(&t1, &y3, &y3);
  fe_add(&y3, &t1, &y3);
  fe_add(&t1, &t0, &t0);
  fe_add(&t0, &t1, &t0);
  fe_sub(&t0, &t0, &t2);
  fe_mul(&t1, &t4, &y3);
  fe_mul(&t2, &t0, &y3);
  fe_mul(&y3, &x3, &z3);
  fe_add(&y3, &y3, &t2);
  fe_mul(&x3, &t3, &x3);
  fe_sub(&x3, &x3, &t1);
  fe_mul(&z3, &t4, &z3);
  fe_mul(&t1, &t3, &t0);
  fe_add(&z3, &z3, &t1);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

// point_double: r = 2a (RCB Algorithm 6), complete. r may alias a.
static void point_double(p256_point *r, const p256_point *a) {
  mc_p256_fe t0, t1, t2, t3, x3, y3, z3;
  fe_sqr(&t0, &a->x);
  fe_sqr(&t1, &a->y);
  fe_sqr(&t2, &a->z);
  fe_mul(&t3, &a->x, &a->y);
  fe_add(&t3, &t3, &t3);
  fe_mul(&z3, &a->x, &a->z);
  fe_add(&z3, &z3, &z3);
  fe_mul(&y3, &p256_b, &t2);
  fe_sub(&y3, &y3, &z3);
  fe_add(&x3, &y3, &y3);
  fe_add(&y3, &x3, &y3);
  fe_sub(&x3, &t1, &y3);
  fe_add(&y3, &t1, &y3);
  fe_mul(&y3, &x3, &y3);
  fe_mul(&x3, &x3, &t3);
  fe_add(&t3, &t2, &t2);
  fe_add(&t2, &t2, &t3);
  fe_mul(&z3, &p256_b, &z3);
  fe_sub(&z3, &z3, &t2);
  fe_sub(&z3, &z3, &t0);
  fe_add(&t3, &z3, &z3);
  fe_add(&z3, &z3, &t3);
  fe_add(&t3, &t0, &t0);
  fe_add(&t0, &t3, &t0);
  fe_sub(&t0, &t0, &t2);
  fe_mul(&t0, &t0, &z3);
  fe_add(&y3, &y3, &t0);
  fe_mul(&t0, &a->y, &a->z);
  fe_add(&t0, &t0, &t0);
  fe_mul(&z3, &t0, &z3);
  fe_sub(&x3, &x3, &z3);
  fe_mul(&z3, &t0, &t1);
  fe_add(&z3, &z3, &z3);
  fe_add(&z3, &z3, &z3);
  r->x = x3;
  r->y = y3;
  r->z = z3;
}

// scalar_recode splits the 32-byte big-endian scalar (below 2^256) into 52
// signed radix-32 digits d[i] in [-15, 16], sum d[i]·32^i = scalar, stored
// as magnitude and sign mask: each 5-bit window plus the previous carry, with
// 32 taken off (and carried) when that is above 16. No branch depends on it.
static void scalar_recode(uint8_t mag[MC_P256_WINDOWS], uint64_t neg[MC_P256_WINDOWS],
                          const uint8_t scalar[32]) {
  uint64_t k[4];
  for (int i = 0; i < 4; i++) {
    uint64_t w = 0;
    for (int j = 0; j < 8; j++)
      w = (w << 8) | scalar[8 * (3 - i) + j];
    k[i] = w;
  }
  uint32_t carry = 0;
  for (int i = 0; i < MC_P256_WINDOWS; i++) {
    unsigned bit = 5 * (unsigned)i, limb = bit / 64, off = bit % 64;
    uint64_t w = k[limb] >> off;
    if (off > 59 && limb < 3)
      w |= k[limb + 1] << (64 - off);
    uint32_t t = (uint32_t)(w & 31) + carry; // 0..32
    uint32_t over = ((16u - t) >> 31) & 1;   // t > 16
    uint32_t d = t - 32 * over;              // as a signed value: t or t - 32
    uint32_t sign = d >> 31;
    uint32_t m = (d ^ (0u - sign)) + sign; // |d|
    mag[i] = (uint8_t)m;
    neg[i] = p256_barrier(0 - (uint64_t)sign);
    carry = over;
  }
  mc_wipe(k, sizeof k);
}

// select_point sets r to table[idx - 1], or to the point at infinity when
// idx is 0, reading all 16 entries.
static void select_point(p256_point *r, const p256_point table[16], uint32_t idx) {
  memset(r, 0, sizeof *r);
  r->y = p256_one;
  for (uint32_t j = 0; j < 16; j++) {
    uint64_t mask = p256_eq_mask(j + 1, idx);
    fe_cmov(&r->x, &table[j].x, mask);
    fe_cmov(&r->y, &table[j].y, mask);
    fe_cmov(&r->z, &table[j].z, mask);
  }
}

// select_affine sets r to table[idx - 1], or to (0, 0) when idx is 0,
// reading all 16 entries.
static void select_affine(mc_p256_affine *r, const mc_p256_affine table[16], uint32_t idx) {
  memset(r, 0, sizeof *r);
  for (uint32_t j = 0; j < 16; j++) {
    uint64_t mask = p256_eq_mask(j + 1, idx);
    fe_cmov(&r->x, &table[j].x, mask);
    fe_cmov(&r->y, &table[j].y, mask);
  }
}

// p256_mul_generic: out_x = x(scalar·P), fixed windows of five bits from the
// top: 255 doublings and 52 additions of a multiple from the table 1P..16P.
static void p256_mul_generic(uint8_t out_x[32], const uint8_t scalar[32],
                             const uint8_t point_xy[64]) {
  p256_point table[16], acc, t;
  uint8_t mag[MC_P256_WINDOWS];
  uint64_t neg[MC_P256_WINDOWS];
  fe_from_bytes(&table[0].x, point_xy);
  fe_from_bytes(&table[0].y, point_xy + 32);
  table[0].z = p256_one;
  point_double(&table[1], &table[0]);
  for (int j = 2; j < 16; j++)
    point_add(&table[j], &table[j - 1], &table[0]);
  scalar_recode(mag, neg, scalar);
  select_point(&acc, table, mag[MC_P256_WINDOWS - 1]);
  fe_cneg(&acc.y, neg[MC_P256_WINDOWS - 1]);
  for (int i = MC_P256_WINDOWS - 2; i >= 0; i--) {
    for (int d = 0; d < 5; d++)
      point_double(&acc, &acc);
    select_point(&t, table, mag[i]);
    fe_cneg(&t.y, neg[i]);
    point_add(&acc, &acc, &t);
  }
  mc_p256_fe zinv, x;
  fe_inv(&zinv, &acc.z);
  fe_mul(&x, &acc.x, &zinv);
  fe_to_bytes(out_x, &x);
  mc_wipe(table, sizeof table);
  mc_wipe(&acc, sizeof acc);
  mc_wipe(&t, sizeof t);
  mc_wipe(mag, sizeof mag);
  mc_wipe(neg, sizeof neg);
  mc_wipe(&x, sizeof x);
}

// p256_comb_generic: out_x (and out_y, when not NULL) = scalar·B for a
// table of B's multiples laid out as mc_p256_base_table (entry [i][j] =
// (j + 1)·32^i·B, affine): the sum over the 52 windows of the entry for
// |d_i|, negated when d_i < 0. A zero digit computes the sum with a dummy
// entry and keeps the old value, so every window costs the same.
static void p256_comb_generic(uint8_t out_x[32], uint8_t *out_y,
                              const mc_p256_affine table[MC_P256_WINDOWS][MC_P256_WINDOW_ENTRIES],
                              const uint8_t scalar[32]) {
  p256_point acc, sum;
  mc_p256_affine e;
  uint8_t mag[MC_P256_WINDOWS];
  uint64_t neg[MC_P256_WINDOWS];
  scalar_recode(mag, neg, scalar);
  memset(&acc, 0, sizeof acc);
  acc.y = p256_one;
  for (int i = 0; i < MC_P256_WINDOWS; i++) {
    select_affine(&e, table[i], mag[i]);
    fe_cneg(&e.y, neg[i]);
    point_add_affine(&sum, &acc, &e);
    uint64_t keep = p256_eq_mask(mag[i], 0);
    fe_cmov(&sum.x, &acc.x, keep);
    fe_cmov(&sum.y, &acc.y, keep);
    fe_cmov(&sum.z, &acc.z, keep);
    acc = sum;
  }
  mc_p256_fe zinv, x, y;
  fe_inv(&zinv, &acc.z);
  fe_mul(&x, &acc.x, &zinv);
  fe_to_bytes(out_x, &x);
  if (out_y != NULL) {
    fe_mul(&y, &acc.y, &zinv);
    fe_to_bytes(out_y, &y);
    mc_wipe(&y, sizeof y);
  }
  mc_wipe(&acc, sizeof acc);
  mc_wipe(&sum, sizeof sum);
  mc_wipe(&e, sizeof e);
  mc_wipe(mag, sizeof mag);
  mc_wipe(neg, sizeof neg);
  mc_wipe(&x, sizeof x);
}

// p256_base_generic: out_xy = scalar·G with the fixed-base table.
static void p256_base_generic(uint8_t out_xy[64], const uint8_t scalar[32]) {
  p256_comb_generic(out_xy, out_xy + 32, mc_p256_base_table, scalar);
}

// p256_table_build fills `table` for the public point `point_xy` as
// mc_p256_base_table is for G: per window 15 additions and one doubling on
// projective points in `scratch` (MC_P256_WINDOWS · MC_P256_WINDOW_ENTRIES
// of them), then one shared inversion of all the Z coordinates (Montgomery's
// trick, with the products kept in `table`'s x fields meanwhile). No entry
// is the point at infinity: (j + 1)·32^i has no factor n.
static inline void p256_table_build(mc_p256_affine table[MC_P256_WINDOWS][MC_P256_WINDOW_ENTRIES],
                                    p256_point *scratch, const uint8_t point_xy[64]) {
  enum { NUM = MC_P256_WINDOWS * MC_P256_WINDOW_ENTRIES };
  p256_point base;
  fe_from_bytes(&base.x, point_xy);
  fe_from_bytes(&base.y, point_xy + 32);
  base.z = p256_one;
  for (int i = 0; i < MC_P256_WINDOWS; i++) {
    p256_point *w = scratch + i * MC_P256_WINDOW_ENTRIES;
    w[0] = base;
    for (int j = 1; j < MC_P256_WINDOW_ENTRIES; j++)
      point_add(&w[j], &w[j - 1], &base);
    point_double(&base, &w[MC_P256_WINDOW_ENTRIES - 1]);
  }
  mc_p256_affine *flat = &table[0][0];
  // flat[k].x = z_0 · ... · z_k, then one inversion, then back to front.
  flat[0].x = scratch[0].z;
  for (int k = 1; k < NUM; k++)
    fe_mul(&flat[k].x, &flat[k - 1].x, &scratch[k].z);
  mc_p256_fe inv, zinv;
  fe_inv(&inv, &flat[NUM - 1].x);
  for (int k = NUM - 1; k >= 0; k--) {
    if (k > 0) {
      fe_mul(&zinv, &inv, &flat[k - 1].x);
      fe_mul(&inv, &inv, &scratch[k].z);
    } else {
      zinv = inv;
    }
    fe_mul(&flat[k].x, &scratch[k].x, &zinv);
    fe_mul(&flat[k].y, &scratch[k].y, &zinv);
  }
}

#endif // MC_P256_CURVE_H
