// ed448_point.c: the edwards448 group of RFC 8032 §5.2 (x^2 + y^2 = 1 + d x^2
// y^2, d = -39081): point addition and doubling in extended coordinates
// (Hisil, Wong, Carter and Dawson's formulas for a = 1, complete here because
// d is not a square), encoding and strict decoding, and the two scalar
// multiplications: by the base point through a table of its multiples that
// is built once per process and read in full for every digit, and by any
// point with a signed 4-bit window. Scalar multiplications are constant-time:
// digits are recoded arithmetically and table entries chosen with masks.
#include <pthread.h>
#include <string.h>

#include "curve448_internal.h"

// |d| = 39081; d itself is negative, so "d * v" is written as -(39081 * v).
#define D_ABS 39081

// The base point B of RFC 8032 §5.2, coordinates as 56 little-endian bytes.
static const uint8_t BASE_X[56] = {
    0x5e, 0xc0, 0x0c, 0xc7, 0x2b, 0xa8, 0x26, 0x26, 0x8e, 0x93, 0x00, 0x8b, 0xe1, 0x80,
    0x3b, 0x43, 0x11, 0x65, 0xb6, 0x2a, 0xf7, 0x1a, 0xae, 0x12, 0x64, 0xa4, 0xd3, 0xa3,
    0x24, 0xe3, 0x6d, 0xea, 0x67, 0x17, 0x0f, 0x47, 0x70, 0x65, 0x14, 0x9e, 0xda, 0x36,
    0xbf, 0x22, 0xa6, 0x15, 0x1d, 0x22, 0xed, 0x0d, 0xed, 0x6b, 0xc6, 0x70, 0x19, 0x4f,
};
static const uint8_t BASE_Y[56] = {
    0x14, 0xfa, 0x30, 0xf2, 0x5b, 0x79, 0x08, 0x98, 0xad, 0xc8, 0xd7, 0x4e, 0x2c, 0x13,
    0xbd, 0xfd, 0xc4, 0x39, 0x7c, 0xe6, 0x1c, 0xff, 0xd3, 0x3a, 0xd7, 0xc2, 0xa0, 0x05,
    0x1e, 0x9c, 0x78, 0x87, 0x40, 0x98, 0xa3, 0x6c, 0x73, 0x73, 0xea, 0x4b, 0x62, 0xc7,
    0xc9, 0x56, 0x37, 0x20, 0x76, 0x88, 0x24, 0xbc, 0xb6, 0x6e, 0x71, 0x46, 0x3f, 0x69,
};

void mc_ed448_point_identity(mc_ed448_point *p) {
  mc_f448_set_u32(&p->x, 0);
  mc_f448_set_u32(&p->y, 1);
  mc_f448_set_u32(&p->z, 1);
  mc_f448_set_u32(&p->t, 0);
}

static void base_point(mc_ed448_point *p) {
  mc_f448_frombytes(&p->x, BASE_X);
  mc_f448_frombytes(&p->y, BASE_Y);
  mc_f448_set_u32(&p->z, 1);
  mc_f448_mul(&p->t, &p->x, &p->y);
}

// add-2008-hwcd with a = 1: A = X1X2, B = Y1Y2, C = dT1T2, D = Z1Z2,
// E = (X1+Y1)(X2+Y2) - A - B, F = D - C, G = D + C, H = B - A;
// X3 = EF, Y3 = GH, T3 = EH, Z3 = FG.
void mc_ed448_point_add(mc_ed448_point *r, const mc_ed448_point *p, const mc_ed448_point *q) {
  mc_f448 a, b, c, d, e, f, g, h, s1, s2;
  mc_f448_mul(&a, &p->x, &q->x);
  mc_f448_mul(&b, &p->y, &q->y);
  mc_f448_mul(&c, &p->t, &q->t);
  mc_f448_mul_small(&c, &c, D_ABS); // -C
  mc_f448_mul(&d, &p->z, &q->z);
  mc_f448_add_loose(&s1, &p->x, &p->y);
  mc_f448_add_loose(&s2, &q->x, &q->y);
  mc_f448_mul(&e, &s1, &s2);
  mc_f448_sub(&e, &e, &a);
  mc_f448_sub_loose(&e, &e, &b);
  mc_f448_add_loose(&f, &d, &c);
  mc_f448_sub_loose(&g, &d, &c);
  mc_f448_sub_loose(&h, &b, &a);
  mc_f448_mul(&r->x, &e, &f);
  mc_f448_mul(&r->y, &g, &h);
  mc_f448_mul(&r->t, &e, &h);
  mc_f448_mul(&r->z, &f, &g);
}

// dbl-2008-hwcd with a = 1: A = X^2, B = Y^2, C = 2Z^2, E = (X+Y)^2 - A - B,
// G = A + B, F = G - C, H = A - B; X3 = EF, Y3 = GH, T3 = EH, Z3 = FG. The
// input's T is not read, so with_t = 0 skips T3 for a doubling that feeds
// another doubling.
static void point_double(mc_ed448_point *r, const mc_ed448_point *p, int with_t) {
  mc_f448 a, b, c, e, f, g, h;
  mc_f448_sqr(&a, &p->x);
  mc_f448_sqr(&b, &p->y);
  mc_f448_sqr(&c, &p->z);
  mc_f448_add(&c, &c, &c);
  mc_f448_add_loose(&e, &p->x, &p->y);
  mc_f448_sqr(&e, &e);
  mc_f448_sub(&e, &e, &a);
  mc_f448_sub_loose(&e, &e, &b);
  mc_f448_add_loose(&g, &a, &b);
  mc_f448_sub_loose(&f, &g, &c);
  mc_f448_sub_loose(&h, &a, &b);
  mc_f448_mul(&r->x, &e, &f);
  mc_f448_mul(&r->y, &g, &h);
  if (with_t)
    mc_f448_mul(&r->t, &e, &h);
  mc_f448_mul(&r->z, &f, &g);
}

void mc_ed448_point_double(mc_ed448_point *r, const mc_ed448_point *p) {
  point_double(r, p, 1);
}

void mc_ed448_point_neg(mc_ed448_point *r, const mc_ed448_point *p) {
  mc_f448_neg(&r->x, &p->x);
  r->y = p->y;
  r->z = p->z;
  mc_f448_neg(&r->t, &p->t);
}

void mc_ed448_point_encode(uint8_t out[57], const mc_ed448_point *p) {
  mc_f448 zinv, x, y;
  mc_f448_inv(&zinv, &p->z);
  mc_f448_mul(&x, &p->x, &zinv);
  mc_f448_mul(&y, &p->y, &zinv);
  mc_f448_tobytes(out, &y);
  out[56] = (uint8_t)(mc_f448_is_negative(&x) << 7);
}

void mc_ed448_point_montgomery_u(uint8_t out[56], const mc_ed448_point *p) {
  mc_f448 xinv, u;
  mc_f448_inv(&xinv, &p->x);
  mc_f448_mul(&u, &p->y, &xinv);
  mc_f448_sqr(&u, &u);
  mc_f448_tobytes(out, &u);
}

// RFC 8032 §5.2.3, steps 1-4.
int mc_ed448_point_decode(mc_ed448_point *p, const uint8_t in[57]) {
  uint8_t canon[56];
  mc_f448 y, y2, u, u2, u3, u5, v, v3, w, x, check, one;
  if ((in[56] & 0x7f) != 0)
    return -1; // bits 448..454 belong to no y below p
  mc_f448_frombytes(&y, in);
  mc_f448_tobytes(canon, &y);
  if (memcmp(canon, in, 56) != 0)
    return -1; // y >= p
  int x_0 = in[56] >> 7;

  // x^2 = (y^2 - 1) / (d y^2 - 1) = u / v; the candidate root is
  // x = u^3 v (u^5 v^3)^((p-3)/4).
  mc_f448_set_u32(&one, 1);
  mc_f448_sqr(&y2, &y);
  mc_f448_sub(&u, &y2, &one);
  mc_f448_mul_small(&v, &y2, D_ABS);
  mc_f448_neg(&v, &v);
  mc_f448_sub(&v, &v, &one);
  mc_f448_sqr(&u2, &u);
  mc_f448_mul(&u3, &u2, &u);
  mc_f448_mul(&u5, &u3, &u2);
  mc_f448_sqr(&v3, &v);
  mc_f448_mul(&v3, &v3, &v);
  mc_f448_mul(&x, &u3, &v);
  mc_f448_mul(&w, &u5, &v3);
  mc_f448_pow_p34(&w, &w);
  mc_f448_mul(&x, &x, &w);
  // Step 3: v x^2 must equal u.
  mc_f448_sqr(&check, &x);
  mc_f448_mul(&check, &check, &v);
  mc_f448_sub(&check, &check, &u);
  if (!mc_f448_is_zero(&check))
    return -1;
  // Step 4: x = 0 with sign bit 1 is not an encoding; otherwise pick the root
  // whose low bit is x_0.
  if (mc_f448_is_zero(&x) && x_0)
    return -1;
  if ((int)mc_f448_is_negative(&x) != x_0)
    mc_f448_neg(&x, &x);
  p->x = x;
  p->y = y;
  mc_f448_set_u32(&p->z, 1);
  mc_f448_mul(&p->t, &x, &y);
  return 0;
}

int mc_ed448_point_equal(const mc_ed448_point *p, const mc_ed448_point *q) {
  mc_f448 a, b;
  mc_f448_mul(&a, &p->x, &q->z);
  mc_f448_mul(&b, &q->x, &p->z);
  mc_f448_sub(&a, &a, &b);
  uint64_t eq = mc_f448_is_zero(&a);
  mc_f448_mul(&a, &p->y, &q->z);
  mc_f448_mul(&b, &q->y, &p->z);
  mc_f448_sub(&a, &a, &b);
  eq &= mc_f448_is_zero(&a);
  return (int)(eq & 1);
}

// Scalars as 112 signed radix-16 digits in [-8, 8): k = sum e[i] 16^i. Each
// carry is computed arithmetically from the digit, never by a branch. k
// below 2^446 leaves a top digit of at most 4.
static void recode_signed4(int8_t e[112], const uint8_t k[56]) {
  for (int i = 0; i < 56; i++) {
    e[2 * i] = (int8_t)(k[i] & 15);
    e[2 * i + 1] = (int8_t)(k[i] >> 4);
  }
  int8_t carry = 0;
  for (int i = 0; i < 111; i++) {
    e[i] = (int8_t)(e[i] + carry);
    carry = (int8_t)((e[i] + 8) >> 4);
    e[i] = (int8_t)(e[i] - (carry << 4));
  }
  e[111] = (int8_t)(e[111] + carry);
}

// eq_mask returns all-ones when a == b (both below 2^31), else 0.
static inline uint64_t eq_mask(uint32_t a, uint32_t b) {
  return 0 - (uint64_t)(((uint32_t)(a ^ b) - 1u) >> 31);
}

// An affine multiple of B with a precomputed product: (x, y, k = 39081 x y),
// so that T1 * k = -d T1 x y in a mixed addition.
typedef struct {
  mc_f448 x, y, k;
} affine_entry;

// base_table[j][m] = (m + 1) * 256^j * B for j < 56, m < 8: digit i of a
// scalar multiplies 16^i B, which is 256^(i/2) B for even i and 16 times that
// for odd i. base_odd[j] = (2j + 1) * B for j < 32 serves the variable-time
// double scalar multiplication of verification.
#define BASE_ODD 32
static affine_entry base_table[56][8];
static affine_entry base_odd[BASE_ODD];
static pthread_once_t base_table_once = PTHREAD_ONCE_INIT;

// Builds the tables with projective sums, then converts all their points to
// affine form with one inversion (Montgomery's batch trick). Public data:
// the time of this function does not matter.
static void build_base_table(void) {
  enum { N = 56 * 8 + BASE_ODD };
  static mc_f448 z[N], prefix[N];
  static mc_ed448_point pts[N];
  mc_ed448_point b, q, b2;
  base_point(&b);
  mc_ed448_point_double(&b2, &b);
  pts[56 * 8] = b;
  for (int j = 1; j < BASE_ODD; j++)
    mc_ed448_point_add(&pts[56 * 8 + j], &pts[56 * 8 + j - 1], &b2);
  for (int j = 0; j < 56; j++) {
    q = b;
    for (int m = 0; m < 8; m++) {
      pts[8 * j + m] = q;
      mc_ed448_point_add(&q, &q, &b);
    }
    for (int s = 0; s < 8; s++)
      mc_ed448_point_double(&b, &b);
  }
  for (int i = 0; i < N; i++)
    z[i] = pts[i].z;
  prefix[0] = z[0];
  for (int i = 1; i < N; i++)
    mc_f448_mul(&prefix[i], &prefix[i - 1], &z[i]);
  mc_f448 inv, zinv;
  mc_f448_inv(&inv, &prefix[N - 1]);
  for (int i = N - 1; i >= 0; i--) {
    if (i > 0) {
      mc_f448_mul(&zinv, &inv, &prefix[i - 1]);
      mc_f448_mul(&inv, &inv, &z[i]);
    } else {
      zinv = inv;
    }
    affine_entry *ent = i < 56 * 8 ? &base_table[i / 8][i % 8] : &base_odd[i - 56 * 8];
    mc_f448_mul(&ent->x, &pts[i].x, &zinv);
    mc_f448_mul(&ent->y, &pts[i].y, &zinv);
    mc_f448_mul(&ent->k, &ent->x, &ent->y);
    mc_f448_mul_small(&ent->k, &ent->k, D_ABS);
  }
}

// select_base sets r = digit * 256^j * B, reading all eight entries of row j.
static void select_base(affine_entry *r, int j, int8_t digit) {
  uint32_t neg = (uint32_t)(int32_t)digit >> 31;
  uint32_t abs = (uint32_t)(((int32_t)digit ^ -(int32_t)neg) + (int32_t)neg);
  mc_f448_set_u32(&r->x, 0);
  mc_f448_set_u32(&r->y, 1);
  mc_f448_set_u32(&r->k, 0);
  for (uint32_t m = 0; m < 8; m++) {
    uint64_t mask = eq_mask(abs, m + 1);
    mc_f448_cmov(&r->x, &base_table[j][m].x, mask);
    mc_f448_cmov(&r->y, &base_table[j][m].y, mask);
    mc_f448_cmov(&r->k, &base_table[j][m].k, mask);
  }
  mc_f448 nx, nk;
  mc_f448_neg(&nx, &r->x);
  mc_f448_neg(&nk, &r->k);
  mc_f448_cmov(&r->x, &nx, 0 - (uint64_t)neg);
  mc_f448_cmov(&r->k, &nk, 0 - (uint64_t)neg);
}

// Mixed addition r = p + q for an affine q: the full formulas with Z2 = 1 and
// C = d T1 x2 y2 = -(T1 * q->k).
static void add_affine(mc_ed448_point *r, const mc_ed448_point *p, const affine_entry *q) {
  mc_f448 a, b, c, e, f, g, h, s1, s2;
  mc_f448_mul(&a, &p->x, &q->x);
  mc_f448_mul(&b, &p->y, &q->y);
  mc_f448_mul(&c, &p->t, &q->k); // -C
  mc_f448_add_loose(&s1, &p->x, &p->y);
  mc_f448_add_loose(&s2, &q->x, &q->y);
  mc_f448_mul(&e, &s1, &s2);
  mc_f448_sub(&e, &e, &a);
  mc_f448_sub_loose(&e, &e, &b);
  mc_f448_add_loose(&f, &p->z, &c);
  mc_f448_sub_loose(&g, &p->z, &c);
  mc_f448_sub_loose(&h, &b, &a);
  mc_f448_mul(&r->x, &e, &f);
  mc_f448_mul(&r->y, &g, &h);
  mc_f448_mul(&r->t, &e, &h);
  mc_f448_mul(&r->z, &f, &g);
}

void mc_ed448_scalarmult_base(mc_ed448_point *r, const uint8_t k[56]) {
  int8_t e[112];
  affine_entry sel;
  mc_ed448_point acc;
  pthread_once(&base_table_once, build_base_table);
  recode_signed4(e, k);
  mc_ed448_point_identity(&acc);
  for (int j = 0; j < 56; j++) {
    select_base(&sel, j, e[2 * j + 1]);
    add_affine(&acc, &acc, &sel);
  }
  point_double(&acc, &acc, 0);
  point_double(&acc, &acc, 0);
  point_double(&acc, &acc, 0);
  point_double(&acc, &acc, 1);
  for (int j = 0; j < 56; j++) {
    select_base(&sel, j, e[2 * j]);
    add_affine(&acc, &acc, &sel);
  }
  *r = acc;
  mc_wipe(e, sizeof e);
  mc_wipe(&sel, sizeof sel);
  mc_wipe(&acc, sizeof acc);
}

// select_point sets r = digit * P from table[m] = (m + 1) * P, reading all
// eight entries.
static void select_point(mc_ed448_point *r, const mc_ed448_point table[8], int8_t digit) {
  uint32_t neg = (uint32_t)(int32_t)digit >> 31;
  uint32_t abs = (uint32_t)(((int32_t)digit ^ -(int32_t)neg) + (int32_t)neg);
  mc_ed448_point_identity(r);
  for (uint32_t m = 0; m < 8; m++) {
    uint64_t mask = eq_mask(abs, m + 1);
    mc_f448_cmov(&r->x, &table[m].x, mask);
    mc_f448_cmov(&r->y, &table[m].y, mask);
    mc_f448_cmov(&r->z, &table[m].z, mask);
    mc_f448_cmov(&r->t, &table[m].t, mask);
  }
  mc_ed448_point n;
  mc_ed448_point_neg(&n, r);
  mc_f448_cmov(&r->x, &n.x, 0 - (uint64_t)neg);
  mc_f448_cmov(&r->t, &n.t, 0 - (uint64_t)neg);
}

void mc_ed448_scalarmult(mc_ed448_point *r, const mc_ed448_point *p, const uint8_t k[56]) {
  int8_t e[112];
  mc_ed448_point table[8], acc, sel;
  recode_signed4(e, k);
  table[0] = *p;
  for (int m = 1; m < 8; m++)
    mc_ed448_point_add(&table[m], &table[m - 1], p);
  select_point(&acc, table, e[111]);
  for (int i = 110; i >= 0; i--) {
    point_double(&acc, &acc, 0);
    point_double(&acc, &acc, 0);
    point_double(&acc, &acc, 0);
    point_double(&acc, &acc, 1);
    select_point(&sel, table, e[i]);
    mc_ed448_point_add(&acc, &acc, &sel);
  }
  *r = acc;
  mc_wipe(e, sizeof e);
  mc_wipe(table, sizeof table);
  mc_wipe(&sel, sizeof sel);
  mc_wipe(&acc, sizeof acc);
}

// Variable-time scalar multiplication for verification (public data only).

// wnaf writes the width-w non-adjacent form of the 56-byte k < 2^446 to
// naf[0..447]: odd digits in (-2^(w-1), 2^(w-1)) or 0, at most one non-zero
// digit in any w consecutive ones, k = sum naf[i] 2^i. It returns the index of
// the highest non-zero digit, or -1 for k = 0.
static int wnaf(int8_t naf[448], const uint8_t k[56], int w) {
  uint64_t x[8] = {0};
  for (int i = 0; i < 56; i++)
    x[i / 8] |= (uint64_t)k[i] << (8 * (i % 8));
  const int64_t full = (int64_t)1 << w, half = full >> 1;
  int top = -1;
  memset(naf, 0, 448);
  for (int i = 0; i < 448; i++) {
    if (x[0] & 1) {
      int64_t d = (int64_t)(x[0] & (uint64_t)(full - 1));
      if (d >= half)
        d -= full;
      naf[i] = (int8_t)d;
      top = i;
      // x -= d: the low w bits become zero, and a negative d carries upwards.
      uint64_t sub = (uint64_t)d, borrow = 0;
      for (int j = 0; j < 8; j++) {
        uint64_t s = j == 0 ? sub : (d < 0 ? ~(uint64_t)0 : 0);
        uint64_t r = x[j] - s - borrow;
        borrow = (x[j] < s) || (x[j] - s < borrow);
        x[j] = r;
      }
    }
    for (int j = 0; j < 7; j++)
      x[j] = x[j] >> 1 | x[j + 1] << 63;
    x[7] >>= 1;
  }
  return top;
}

// A multiple of a variable point ready for addition: (X, Y, Z, k = 39081 T).
typedef struct {
  mc_f448 x, y, z, k;
} cached_point;

static void to_cached(cached_point *c, const mc_ed448_point *p) {
  c->x = p->x;
  c->y = p->y;
  c->z = p->z;
  mc_f448_mul_small(&c->k, &p->t, D_ABS);
}

// add_cached sets r = p + q, or p - q when neg is set (-q = (-X, Y, Z, -T)).
static void add_cached(mc_ed448_point *r, const mc_ed448_point *p, const cached_point *q, int neg) {
  mc_f448 a, b, c, d, e, f, g, h, s1, s2, qx, qk;
  qx = q->x;
  qk = q->k;
  if (neg) {
    mc_f448_neg(&qx, &qx);
    mc_f448_neg(&qk, &qk);
  }
  mc_f448_mul(&a, &p->x, &qx);
  mc_f448_mul(&b, &p->y, &q->y);
  mc_f448_mul(&c, &p->t, &qk); // -C
  mc_f448_mul(&d, &p->z, &q->z);
  mc_f448_add_loose(&s1, &p->x, &p->y);
  mc_f448_add_loose(&s2, &qx, &q->y);
  mc_f448_mul(&e, &s1, &s2);
  mc_f448_sub(&e, &e, &a);
  mc_f448_sub_loose(&e, &e, &b);
  mc_f448_add_loose(&f, &d, &c);
  mc_f448_sub_loose(&g, &d, &c);
  mc_f448_sub_loose(&h, &b, &a);
  mc_f448_mul(&r->x, &e, &f);
  mc_f448_mul(&r->y, &g, &h);
  mc_f448_mul(&r->t, &e, &h);
  mc_f448_mul(&r->z, &f, &g);
}

static void add_base_odd(mc_ed448_point *r, const mc_ed448_point *p, int digit) {
  affine_entry e = base_odd[(digit < 0 ? -digit : digit) / 2];
  if (digit < 0) {
    mc_f448_neg(&e.x, &e.x);
    mc_f448_neg(&e.k, &e.k);
  }
  add_affine(r, p, &e);
}

// Window widths: 5 for the variable point (8 odd multiples computed per
// call), 7 for B (the 32 odd multiples in base_odd).
#define WINDOW_P 5
#define WINDOW_B 7

void mc_ed448_double_scalarmult_vartime(mc_ed448_point *r, const uint8_t a[56],
                                        const mc_ed448_point *p, const uint8_t b[56]) {
  int8_t naf_a[448], naf_b[448];
  cached_point odd[1 << (WINDOW_P - 2)];
  mc_ed448_point p2, t, acc;
  pthread_once(&base_table_once, build_base_table);
  int top_a = wnaf(naf_a, a, WINDOW_P), top_b = wnaf(naf_b, b, WINDOW_B);
  // odd[j] = (2j + 1) * p.
  mc_ed448_point_double(&p2, p);
  t = *p;
  to_cached(&odd[0], &t);
  for (int j = 1; j < (1 << (WINDOW_P - 2)); j++) {
    add_cached(&t, &p2, &odd[j - 1], 0);
    to_cached(&odd[j], &t);
  }
  mc_ed448_point_identity(&acc);
  int top = top_a > top_b ? top_a : top_b;
  for (int i = top; i >= 0; i--) {
    point_double(&acc, &acc, naf_a[i] != 0 || naf_b[i] != 0);
    if (naf_a[i] != 0)
      add_cached(&acc, &acc, &odd[(naf_a[i] < 0 ? -naf_a[i] : naf_a[i]) / 2], naf_a[i] < 0);
    if (naf_b[i] != 0)
      add_base_odd(&acc, &acc, naf_b[i]);
  }
  *r = acc;
}
