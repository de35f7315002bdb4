// x25519_adx.c: X25519 (RFC 7748) for x86-64 with BMI2 and ADX, the kernels
// of the "adxsha" table entry. Field elements of GF(2^255 - 19) are four
// 64-bit limbs, any value below 2^256 (reduced only on output); products use
// mulx with two independent carry chains (adcx, adox), then fold the high
// half with 2^256 = 38. The variable-base multiplication is §5's ladder with
// masked swaps. The fixed-base one, which every encryption runs for its
// ephemeral key, works on edwards25519: a table of 8 multiples of 256^i·B
// for each of the 32 byte positions, built once on first use, summed over
// the scalar's 64 signed radix-16 digits (entries picked by scanning all 8
// with AVX2 masks, which this level's CPU features include), then mapped to
// curve25519 by u = (1 + y) / (1 - y). That is 64 additions and 4 doublings
// instead of 255 ladder steps. A peer key that comes twice in a row on a
// thread gets such a table too (the recipient of one mail after another);
// others go through the ladder. mc_x25519_pair_adx, for a sender's
// ephemeral key, gives its public key and the shared secret with one field
// inversion for both.
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "x25519_internal.h"

__extension__ typedef unsigned __int128 u128;

typedef struct {
  uint64_t v[4];
} fe;

// fe_mul: r = a·b (mod p), any inputs below 2^256. The 512-bit product is
// formed row by row (rdx = b[i]); the first three limbs go to memory as they
// are final, the other five stay in r8..r12. Then r = lo + 38·hi, with the
// last carry folded once more (38 at most, which cannot carry again).
static inline __attribute__((always_inline)) void fe_mul(fe *r, const fe *a, const fe *b) {
  uint64_t t[3];
  __asm__(
      // row 0: r8..r12 = a·b[0]
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %%r8, %%r9\n\t"
      "mulxq 8(%[a]), %%r13, %%r10\n\t"
      "addq %%r13, %%r9\n\t"
      "mulxq 16(%[a]), %%r13, %%r11\n\t"
      "adcq %%r13, %%r10\n\t"
      "mulxq 24(%[a]), %%r13, %%r12\n\t"
      "adcq %%r13, %%r11\n\t"
      "adcq $0, %%r12\n\t"
      "movq %%r8, 0(%[t])\n\t"
      // row 1: accumulators r9 r10 r11 r12, new r8
      "movq 8(%[b]), %%rdx\n\t"
      "xorq %%r8, %%r8\n\t"
      "mulxq 0(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r9\n\t"
      "adoxq %%rax, %%r10\n\t"
      "mulxq 8(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r10\n\t"
      "adoxq %%rax, %%r11\n\t"
      "mulxq 16(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r11\n\t"
      "adoxq %%rax, %%r12\n\t"
      "mulxq 24(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r12\n\t"
      "adoxq %%rax, %%r8\n\t"
      "adcq $0, %%r8\n\t"
      "movq %%r9, 8(%[t])\n\t"
      // row 2: accumulators r10 r11 r12 r8, new r9
      "movq 16(%[b]), %%rdx\n\t"
      "xorq %%r9, %%r9\n\t"
      "mulxq 0(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r10\n\t"
      "adoxq %%rax, %%r11\n\t"
      "mulxq 8(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r11\n\t"
      "adoxq %%rax, %%r12\n\t"
      "mulxq 16(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r12\n\t"
      "adoxq %%rax, %%r8\n\t"
      "mulxq 24(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r8\n\t"
      "adoxq %%rax, %%r9\n\t"
      "adcq $0, %%r9\n\t"
      "movq %%r10, 16(%[t])\n\t"
      // row 3: accumulators r11 r12 r8 r9, new r10
      "movq 24(%[b]), %%rdx\n\t"
      "xorq %%r10, %%r10\n\t"
      "mulxq 0(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r11\n\t"
      "adoxq %%rax, %%r12\n\t"
      "mulxq 8(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r12\n\t"
      "adoxq %%rax, %%r8\n\t"
      "mulxq 16(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r8\n\t"
      "adoxq %%rax, %%r9\n\t"
      "mulxq 24(%[a]), %%r13, %%rax\n\t"
      "adcxq %%r13, %%r9\n\t"
      "adoxq %%rax, %%r10\n\t"
      "adcq $0, %%r10\n\t"
      // product limbs 3..7: r11 r12 r8 r9 r10; fold 38·(limbs 4..7)
      "movl $38, %%edx\n\t"
      "mulxq %%r12, %%r12, %%r13\n\t"
      "mulxq %%r8, %%r8, %%rax\n\t"
      "addq %%r13, %%r8\n\t"
      "mulxq %%r9, %%r9, %%r13\n\t"
      "adcq %%rax, %%r9\n\t"
      "mulxq %%r10, %%r10, %%rax\n\t"
      "adcq %%r13, %%r10\n\t"
      "adcq $0, %%rax\n\t"
      "addq 0(%[t]), %%r12\n\t"
      "adcq 8(%[t]), %%r8\n\t"
      "adcq 16(%[t]), %%r9\n\t"
      "adcq %%r11, %%r10\n\t"
      "adcq $0, %%rax\n\t"
      "imulq $38, %%rax, %%rax\n\t"
      "addq %%rax, %%r12\n\t"
      "adcq $0, %%r8\n\t"
      "adcq $0, %%r9\n\t"
      "adcq $0, %%r10\n\t"
      "sbbq %%rax, %%rax\n\t"
      "andq $38, %%rax\n\t"
      "addq %%rax, %%r12\n\t"
      "movq %%r12, 0(%[r])\n\t"
      "movq %%r8, 8(%[r])\n\t"
      "movq %%r9, 16(%[r])\n\t"
      "movq %%r10, 24(%[r])\n\t"
      : "=m"(*(uint64_t(*)[4])r->v), "=m"(t)
      : [r] "r"(r->v), [a] "r"(a->v), [b] "r"(b->v), [t] "r"(t), "m"(*(const uint64_t(*)[4])a->v),
        "m"(*(const uint64_t(*)[4])b->v)
      : "rax", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "cc");
}

// fe_sqr: r = a² (mod p). The six cross products a[i]·a[j] (i < j) are
// summed once and doubled, then the four squares added: 10 multiplications
// instead of 16.
static inline __attribute__((always_inline)) void fe_sqr(fe *r, const fe *a) {
  __asm__(
      // cross products into r9..r14 (limbs 1..6)
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq 8(%[a]), %%r9, %%r10\n\t"   // a0a1
      "mulxq 16(%[a]), %%rcx, %%r11\n\t" // a0a2
      "addq %%rcx, %%r10\n\t"
      "mulxq 24(%[a]), %%rcx, %%r12\n\t" // a0a3
      "adcq %%rcx, %%r11\n\t"
      "adcq $0, %%r12\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "xorq %%r13, %%r13\n\t"
      "mulxq 16(%[a]), %%rcx, %%rax\n\t" // a1a2
      "adcxq %%rcx, %%r11\n\t"
      "adoxq %%rax, %%r12\n\t"
      "mulxq 24(%[a]), %%rcx, %%rax\n\t" // a1a3
      "adcxq %%rcx, %%r12\n\t"
      "adoxq %%rax, %%r13\n\t"
      "adcq $0, %%r13\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %%rcx, %%r14\n\t" // a2a3
      "addq %%rcx, %%r13\n\t"
      "adcq $0, %%r14\n\t"
      // double them (limb 7 gets the carry), adding the squares alongside
      "xorq %%r15, %%r15\n\t"
      "adcxq %%r9, %%r9\n\t"
      "adcxq %%r10, %%r10\n\t"
      "adcxq %%r11, %%r11\n\t"
      "adcxq %%r12, %%r12\n\t"
      "adcxq %%r13, %%r13\n\t"
      "adcxq %%r14, %%r14\n\t"
      "adcxq %%r15, %%r15\n\t"
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %%r8, %%rax\n\t" // a0², limb 0 final
      "addq %%rax, %%r9\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %%rcx, %%rax\n\t"
      "adcq %%rcx, %%r10\n\t"
      "adcq %%rax, %%r11\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %%rcx, %%rax\n\t"
      "adcq %%rcx, %%r12\n\t"
      "adcq %%rax, %%r13\n\t"
      "movq 24(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %%rcx, %%rax\n\t"
      "adcq %%rcx, %%r14\n\t"
      "adcq %%rax, %%r15\n\t"
      // limbs 0..7: r8 .. r15; fold 38·(limbs 4..7) into limbs 0..3
      "movl $38, %%edx\n\t"
      "mulxq %%r12, %%r12, %%rcx\n\t"
      "mulxq %%r13, %%r13, %%rax\n\t"
      "addq %%rcx, %%r13\n\t"
      "mulxq %%r14, %%r14, %%rcx\n\t"
      "adcq %%rax, %%r14\n\t"
      "mulxq %%r15, %%r15, %%rax\n\t"
      "adcq %%rcx, %%r15\n\t"
      "adcq $0, %%rax\n\t"
      "addq %%r12, %%r8\n\t"
      "adcq %%r13, %%r9\n\t"
      "adcq %%r14, %%r10\n\t"
      "adcq %%r15, %%r11\n\t"
      "adcq $0, %%rax\n\t"
      "imulq $38, %%rax, %%rax\n\t"
      "addq %%rax, %%r8\n\t"
      "adcq $0, %%r9\n\t"
      "adcq $0, %%r10\n\t"
      "adcq $0, %%r11\n\t"
      "sbbq %%rax, %%rax\n\t"
      "andq $38, %%rax\n\t"
      "addq %%rax, %%r8\n\t"
      "movq %%r8, 0(%[r])\n\t"
      "movq %%r9, 8(%[r])\n\t"
      "movq %%r10, 16(%[r])\n\t"
      "movq %%r11, 24(%[r])\n\t"
      : "=m"(*(uint64_t(*)[4])r->v)
      : [r] "r"(r->v), [a] "r"(a->v), "m"(*(const uint64_t(*)[4])a->v)
      : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc");
}

// fe_add: r = a + b (mod p): a carry out of 2^256 is worth 38; the second
// fold cannot carry, the sum being small by then.
static inline void fe_add(fe *r, const fe *a, const fe *b) {
  unsigned long long x0, x1, x2, x3;
  unsigned char c = _addcarry_u64(0, a->v[0], b->v[0], &x0);
  c = _addcarry_u64(c, a->v[1], b->v[1], &x1);
  c = _addcarry_u64(c, a->v[2], b->v[2], &x2);
  c = _addcarry_u64(c, a->v[3], b->v[3], &x3);
  c = _addcarry_u64(0, x0, ((uint64_t)0 - c) & 38, &x0);
  c = _addcarry_u64(c, x1, 0, &x1);
  c = _addcarry_u64(c, x2, 0, &x2);
  c = _addcarry_u64(c, x3, 0, &x3);
  r->v[0] = x0 + (((uint64_t)0 - c) & 38);
  r->v[1] = x1;
  r->v[2] = x2;
  r->v[3] = x3;
}

// fe_sub: r = a - b (mod p): a borrow out of 2^256 costs 38, likewise twice.
static inline void fe_sub(fe *r, const fe *a, const fe *b) {
  unsigned long long x0, x1, x2, x3;
  unsigned char c = _subborrow_u64(0, a->v[0], b->v[0], &x0);
  c = _subborrow_u64(c, a->v[1], b->v[1], &x1);
  c = _subborrow_u64(c, a->v[2], b->v[2], &x2);
  c = _subborrow_u64(c, a->v[3], b->v[3], &x3);
  c = _subborrow_u64(0, x0, ((uint64_t)0 - c) & 38, &x0);
  c = _subborrow_u64(c, x1, 0, &x1);
  c = _subborrow_u64(c, x2, 0, &x2);
  c = _subborrow_u64(c, x3, 0, &x3);
  r->v[0] = x0 - (((uint64_t)0 - c) & 38);
  r->v[1] = x1;
  r->v[2] = x2;
  r->v[3] = x3;
}

// fe_mul_small: r = a·k (mod p) for k < 2^32.
static inline void fe_mul_small(fe *r, const fe *a, uint64_t k) {
  u128 c = 0;
  uint64_t x[4];
  for (int i = 0; i < 4; i++) {
    c += (u128)a->v[i] * k;
    x[i] = (uint64_t)c;
    c >>= 64;
  }
  // c < 2^32: fold 38·c, then a last carry worth 38 as in fe_add.
  unsigned long long y0, y1, y2, y3;
  unsigned char cf = _addcarry_u64(0, x[0], (uint64_t)c * 38, &y0);
  cf = _addcarry_u64(cf, x[1], 0, &y1);
  cf = _addcarry_u64(cf, x[2], 0, &y2);
  cf = _addcarry_u64(cf, x[3], 0, &y3);
  r->v[0] = y0 + (((uint64_t)0 - cf) & 38);
  r->v[1] = y1;
  r->v[2] = y2;
  r->v[3] = y3;
}

static void fe_sqr_n(fe *r, const fe *a, int n) {
  fe_sqr(r, a);
  for (int i = 1; i < n; i++)
    fe_sqr(r, r);
}

// fe_invert: a^(p-2), the addition chain of x25519.c's fe_invert.
static void fe_invert(fe *r, const fe *a) {
  fe z2, z9, z11, z5_0, z10_0, z20_0, z50_0, z100_0, t;
  fe_sqr(&z2, a);
  fe_sqr_n(&t, &z2, 2);
  fe_mul(&z9, &t, a);
  fe_mul(&z11, &z9, &z2);
  fe_sqr(&t, &z11);
  fe_mul(&z5_0, &t, &z9);
  fe_sqr_n(&t, &z5_0, 5);
  fe_mul(&z10_0, &t, &z5_0);
  fe_sqr_n(&t, &z10_0, 10);
  fe_mul(&z20_0, &t, &z10_0);
  fe_sqr_n(&t, &z20_0, 20);
  fe_mul(&t, &t, &z20_0);
  fe_sqr_n(&t, &t, 10);
  fe_mul(&z50_0, &t, &z10_0);
  fe_sqr_n(&t, &z50_0, 50);
  fe_mul(&z100_0, &t, &z50_0);
  fe_sqr_n(&t, &z100_0, 100);
  fe_mul(&t, &t, &z100_0);
  fe_sqr_n(&t, &t, 50);
  fe_mul(&t, &t, &z50_0);
  fe_sqr_n(&t, &t, 5);
  fe_mul(r, &t, &z11);
}

static void fe_frombytes(fe *r, const uint8_t s[32]) {
  for (int i = 0; i < 4; i++)
    r->v[i] = mc_load_le64(s + 8 * i);
  r->v[3] &= ~(UINT64_C(1) << 63); // RFC 7748 §5: ignore bit 255
}

// fe_tobytes writes the canonical encoding: fold bit 255 (worth 19), then
// subtract p when the value is at least p, i.e. when adding 19 reaches 2^255.
static void fe_tobytes(uint8_t s[32], const fe *a) {
  unsigned long long x0, x1, x2, x3, y0, y1, y2, y3;
  uint64_t top = a->v[3] >> 63;
  unsigned char c = _addcarry_u64(0, a->v[0], 19 * top, &x0);
  c = _addcarry_u64(c, a->v[1], 0, &x1);
  c = _addcarry_u64(c, a->v[2], 0, &x2);
  c = _addcarry_u64(c, a->v[3] & ~(UINT64_C(1) << 63), 0, &x3);
  c = _addcarry_u64(0, x0, 19, &y0);
  c = _addcarry_u64(c, x1, 0, &y1);
  c = _addcarry_u64(c, x2, 0, &y2);
  c = _addcarry_u64(c, x3, 0, &y3);
  uint64_t ge = 0 - (y3 >> 63); // all ones when the value was >= p
  y3 &= ~(UINT64_C(1) << 63);
  mc_store_le64(s, (x0 & ~ge) | (y0 & ge));
  mc_store_le64(s + 8, (x1 & ~ge) | (y1 & ge));
  mc_store_le64(s + 16, (x2 & ~ge) | (y2 & ge));
  mc_store_le64(s + 24, (x3 & ~ge) | (y3 & ge));
}

static inline void fe_cswap(fe *a, fe *b, uint64_t mask) {
  for (int i = 0; i < 4; i++) {
    uint64_t x = mask & (a->v[i] ^ b->v[i]);
    a->v[i] ^= x;
    b->v[i] ^= x;
  }
}

static inline void fe_cmov(fe *r, const fe *a, uint64_t mask) {
  for (int i = 0; i < 4; i++)
    r->v[i] ^= mask & (r->v[i] ^ a->v[i]);
}

static void clamp(uint8_t k[32], const uint8_t scalar[32]) {
  memcpy(k, scalar, 32);
  k[0] &= 248;
  k[31] = (uint8_t)((k[31] & 127) | 64);
}

#define X25519_FE fe
#include "x25519_ladder.h"

void mc_x25519_ladder_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]) {
  uint8_t k[32];
  fe x1;
  clamp(k, scalar);
  fe_frombytes(&x1, u);
  ladder(out, k, &x1);
  mc_wipe(k, sizeof k);
}

// Points of edwards25519 (-x² + y² = 1 + d·x²·y²) in extended coordinates
// x = X/Z, y = Y/Z, x·y = T/Z, and table entries in the affine form that
// the mixed addition wants: y + x, y - x and 2d·x·y.
typedef struct {
  fe x, y, z, t;
} ge_ext;

typedef struct {
  fe ypx, ymx, xy2d;
} ge_niels;

// The base point B: y = 4/5 and the x with even least significant bit
// (RFC 8032 §5.1), as little-endian limbs. Its u on curve25519 is 9.
static const fe base_x = {
    {0xc9562d608f25d51a, 0x692cc7609525a7b2, 0xc0a4e231fdd6dc5c, 0x216936d3cd6e53fe}};
static const fe base_y = {
    {0x6666666666666658, 0x6666666666666666, 0x6666666666666666, 0x6666666666666666}};

// A table of multiples of one point P: t[i][j] = (j + 1)·256^i·P, affine.
typedef struct {
  ge_niels t[32][8];
} ge_table;

static ge_table base_table; // of B, built once
static fe d_curve;          // d = -121665 / 121666
static fe d2;               // 2d
static fe sqrt_m1;          // a square root of -1
static pthread_once_t base_once = PTHREAD_ONCE_INIT;

// ge_add: r = p + q on extended coordinates, the a = -1 unified formulas of
// Hisil, Wong, Carter and Dawson (2008); `q_t2d` is q's T times 2d.
static void ge_add(ge_ext *r, const ge_ext *p, const ge_ext *q, const fe *q_t2d) {
  fe a, b, c, dd, e, f, g, h, t;
  fe_sub(&a, &p->y, &p->x);
  fe_sub(&t, &q->y, &q->x);
  fe_mul(&a, &a, &t);
  fe_add(&b, &p->y, &p->x);
  fe_add(&t, &q->y, &q->x);
  fe_mul(&b, &b, &t);
  fe_mul(&c, &p->t, q_t2d);
  fe_mul(&dd, &p->z, &q->z);
  fe_add(&dd, &dd, &dd);
  fe_sub(&e, &b, &a);
  fe_sub(&f, &dd, &c);
  fe_add(&g, &dd, &c);
  fe_add(&h, &b, &a);
  fe_mul(&r->x, &e, &f);
  fe_mul(&r->y, &g, &h);
  fe_mul(&r->t, &e, &h);
  fe_mul(&r->z, &f, &g);
}

// ge_madd: r = p + q for an affine table entry q (7 multiplications).
static void ge_madd(ge_ext *r, const ge_ext *p, const ge_niels *q) {
  fe a, b, c, dd, e, f, g, h;
  fe_sub(&a, &p->y, &p->x);
  fe_mul(&a, &a, &q->ymx);
  fe_add(&b, &p->y, &p->x);
  fe_mul(&b, &b, &q->ypx);
  fe_mul(&c, &p->t, &q->xy2d);
  fe_add(&dd, &p->z, &p->z);
  fe_sub(&e, &b, &a);
  fe_sub(&f, &dd, &c);
  fe_add(&g, &dd, &c);
  fe_add(&h, &b, &a);
  fe_mul(&r->x, &e, &f);
  fe_mul(&r->y, &g, &h);
  fe_mul(&r->t, &e, &h);
  fe_mul(&r->z, &f, &g);
}

// ge_dbl: r = 2p (the matching doubling formulas for a = -1).
static void ge_dbl(ge_ext *r, const ge_ext *p) {
  fe a, b, c, e, f, g, h, s;
  fe_sqr(&a, &p->x);
  fe_sqr(&b, &p->y);
  fe_sqr(&c, &p->z);
  fe_add(&c, &c, &c);
  fe_add(&h, &a, &b);
  fe_add(&s, &p->x, &p->y);
  fe_sqr(&s, &s);
  fe_sub(&e, &h, &s);
  fe_sub(&g, &a, &b);
  fe_add(&f, &c, &g);
  fe_mul(&r->x, &e, &f);
  fe_mul(&r->y, &g, &h);
  fe_mul(&r->t, &e, &h);
  fe_mul(&r->z, &f, &g);
}

// fe_canon reduces `a` to its canonical value, so that table entries are
// stored in one form and values can be compared.
static void fe_canon(fe *r, const fe *a) {
  uint8_t s[32];
  fe_tobytes(s, a);
  fe_frombytes(r, s);
}

static int fe_equal(const fe *a, const fe *b) { // variable time: public values only
  uint8_t x[32], y[32];
  fe_tobytes(x, a);
  fe_tobytes(y, b);
  return memcmp(x, y, 32) == 0;
}

// fe_pow_vartime sets r = a^e for a public exponent `e` (little-endian).
static void fe_pow_vartime(fe *r, const fe *a, const uint8_t e[32]) {
  fe acc = {{1, 0, 0, 0}};
  for (int i = 255; i >= 0; i--) {
    fe_sqr(&acc, &acc);
    if ((e[i >> 3] >> (i & 7)) & 1)
      fe_mul(&acc, &acc, a);
  }
  *r = acc;
}

// table_fill sets `tb` from the extended point `p`: the projective
// multiples first, then one batch inversion of all their Z (Montgomery's
// trick), then the affine Niels form. `pts` and `prefix` are scratch space
// for 256 points and 256 elements. Public data only.
static void table_fill(ge_table *tb, const ge_ext *p, ge_ext *pts, fe *prefix) {
  ge_ext base = *p;
  fe t;
  for (int i = 0; i < 32; i++) {
    fe base_t2d;
    fe_mul(&base_t2d, &base.t, &d2);
    pts[8 * i] = base;
    for (int j = 1; j < 8; j++)
      ge_add(&pts[8 * i + j], &pts[8 * i + j - 1], &base, &base_t2d);
    for (int j = 0; j < 8; j++)
      ge_dbl(&base, &base);
  }
  prefix[0] = pts[0].z;
  for (int n = 1; n < 256; n++)
    fe_mul(&prefix[n], &prefix[n - 1], &pts[n].z);
  fe inv;
  fe_invert(&inv, &prefix[255]);
  for (int n = 255; n >= 0; n--) {
    fe zinv, x, y;
    if (n > 0) {
      fe_mul(&zinv, &inv, &prefix[n - 1]);
      fe_mul(&inv, &inv, &pts[n].z);
    } else {
      zinv = inv;
    }
    fe_mul(&x, &pts[n].x, &zinv);
    fe_mul(&y, &pts[n].y, &zinv);
    ge_niels *q = &tb->t[n / 8][n % 8];
    fe_add(&t, &y, &x);
    fe_canon(&q->ypx, &t);
    fe_sub(&t, &y, &x);
    fe_canon(&q->ymx, &t);
    fe_mul(&t, &x, &y);
    fe_mul(&t, &t, &d2);
    fe_canon(&q->xy2d, &t);
  }
}

static void base_build(void) {
  fe one = {{1, 0, 0, 0}}, zero = {{0, 0, 0, 0}}, d;
  fe_mul_small(&d, &one, 121666);
  fe_invert(&d, &d);
  fe_mul_small(&d, &d, 121665);
  fe_sub(&d, &zero, &d);
  fe_canon(&d_curve, &d);
  fe_add(&d2, &d, &d);
  fe_canon(&d2, &d2);
  // sqrt(-1) = 2^((p - 1) / 4), (p - 1) / 4 = 2^253 - 5.
  uint8_t e[32];
  memset(e, 0xff, sizeof e);
  e[0] = 0xfb;
  e[31] = 0x1f;
  fe two = {{2, 0, 0, 0}};
  fe_pow_vartime(&sqrt_m1, &two, e);
  fe_canon(&sqrt_m1, &sqrt_m1);
  static ge_ext pts[256];
  static fe prefix[256];
  ge_ext b = {base_x, base_y, one, one};
  fe_mul(&b.t, &base_x, &base_y);
  table_fill(&base_table, &b, pts, prefix);
}

// ge_from_u finds a point of edwards25519 whose image on curve25519 has the
// u-coordinate `u_bytes` (RFC 7748 §4.1: y = (u - 1) / (u + 1), x from the
// curve equation; either sign of x serves, u being the same for P and -P).
// It returns 0 when there is none: u = -1, or u on the quadratic twist. `u`
// is public (a peer's key).
static int ge_from_u(ge_ext *p, const uint8_t u_bytes[32]) {
  fe one = {{1, 0, 0, 0}}, zero = {{0, 0, 0, 0}}, u, num, den, y, y2, x2, x, chk;
  fe_frombytes(&u, u_bytes);
  fe_add(&den, &u, &one);
  if (fe_equal(&den, &zero))
    return 0;
  fe_sub(&num, &u, &one);
  fe_invert(&den, &den);
  fe_mul(&y, &num, &den);
  // x² = (y² - 1) / (d·y² + 1); d·y² + 1 is never 0, -1/d not being a square.
  fe_sqr(&y2, &y);
  fe_sub(&num, &y2, &one);
  fe_mul(&den, &d_curve, &y2);
  fe_add(&den, &den, &one);
  fe_invert(&den, &den);
  fe_mul(&x2, &num, &den);
  // x = x2^((p + 3) / 8), (p + 3) / 8 = 2^252 - 2; then x² = ±x2.
  uint8_t e[32];
  memset(e, 0xff, sizeof e);
  e[0] = 0xfe;
  e[31] = 0x0f;
  fe_pow_vartime(&x, &x2, e);
  fe_sqr(&chk, &x);
  if (!fe_equal(&chk, &x2)) {
    fe_mul(&x, &x, &sqrt_m1);
    fe_sqr(&chk, &x);
    if (!fe_equal(&chk, &x2))
      return 0; // on the twist
  }
  p->x = x;
  p->y = y;
  p->z = one;
  fe_mul(&p->t, &x, &y);
  return 1;
}

// select_entry sets `q` to digit·256^i·P from P's table, for a digit in
// [-8, 8], reading all eight entries of row i whatever the digit. An entry
// is three field elements, 96 bytes, three AVX2 registers: each is ANDed
// with an all-ones or all-zero mask from a vector compare and ORed into the
// result, so the scan is 24 loads and no branch or secret-dependent address
// (the scalar masked moves it replaces cost about four times as much). A
// negative digit then swaps y + x with y - x by a masked blend and negates
// 2d·x·y, again with masks.
static void select_entry(ge_niels *q, const ge_table *tb, int i, int8_t digit) {
  uint64_t neg = (uint64_t)((uint8_t)digit >> 7);
  uint64_t abs = (uint64_t)(uint8_t)(digit - (int8_t)((-(int8_t)neg & digit) * 2));
  const __m256i vabs = _mm256_set1_epi64x((long long)abs);
  // The neutral element (x = 0, y = 1: y + x = y - x = 1, 2d·x·y = 0) when
  // the digit is 0.
  const __m256i one = _mm256_setr_epi64x(1, 0, 0, 0);
  __m256i zmask = _mm256_cmpeq_epi64(vabs, _mm256_setzero_si256());
  __m256i ypx = _mm256_and_si256(zmask, one);
  __m256i ymx = ypx;
  __m256i xy2d = _mm256_setzero_si256();
  const ge_niels *row = tb->t[i];
  for (int j = 0; j < 8; j++) {
    __m256i mask = _mm256_cmpeq_epi64(vabs, _mm256_set1_epi64x(j + 1));
    ypx = _mm256_or_si256(
        ypx, _mm256_and_si256(mask, _mm256_loadu_si256((const __m256i *)row[j].ypx.v)));
    ymx = _mm256_or_si256(
        ymx, _mm256_and_si256(mask, _mm256_loadu_si256((const __m256i *)row[j].ymx.v)));
    xy2d = _mm256_or_si256(
        xy2d, _mm256_and_si256(mask, _mm256_loadu_si256((const __m256i *)row[j].xy2d.v)));
  }
  // -(x, y) = (-x, y): y + x and y - x trade places, 2d·x·y changes sign.
  __m256i nmask = _mm256_set1_epi64x(-(long long)neg);
  _mm256_storeu_si256((__m256i *)q->ypx.v, _mm256_blendv_epi8(ypx, ymx, nmask));
  _mm256_storeu_si256((__m256i *)q->ymx.v, _mm256_blendv_epi8(ymx, ypx, nmask));
  _mm256_storeu_si256((__m256i *)q->xy2d.v, xy2d);
  fe minus;
  fe_sub(&minus, &(fe){{0, 0, 0, 0}}, &q->xy2d);
  fe_cmov(&q->xy2d, &minus, 0 - neg);
}

// select_entry_ref is the scan select_entry replaced, one 64-bit masked move
// per limb; kept as the specification that mc_x25519_select_check compares
// the vector scan with.
static void select_entry_ref(ge_niels *q, const ge_table *tb, int i, int8_t digit) {
  uint64_t neg = (uint64_t)((uint8_t)digit >> 7);
  uint64_t abs = (uint64_t)(uint8_t)(digit - (int8_t)((-(int8_t)neg & digit) * 2));
  memset(q, 0, sizeof *q);
  q->ypx.v[0] = 1; // the neutral element: x = 0, y = 1
  q->ymx.v[0] = 1;
  for (uint64_t j = 0; j < 8; j++) {
    uint64_t eq = ((abs ^ (j + 1)) - 1) >> 63; // 1 when abs == j + 1
    uint64_t mask = 0 - eq;
    fe_cmov(&q->ypx, &tb->t[i][j].ypx, mask);
    fe_cmov(&q->ymx, &tb->t[i][j].ymx, mask);
    fe_cmov(&q->xy2d, &tb->t[i][j].xy2d, mask);
  }
  fe_cswap(&q->ypx, &q->ymx, 0 - neg);
  fe minus;
  fe_sub(&minus, &(fe){{0, 0, 0, 0}}, &q->xy2d);
  fe_cmov(&q->xy2d, &minus, 0 - neg);
}

// table_sum computes `scalar`·P for the P of table `tb` as the fraction
// u = `num` / `den` (table_mult then writes X25519(`scalar`, u(P))): the
// clamped scalar's 64 signed radix-16 digits select one entry per digit
// (odd digits, times 16 by four doublings, then even digits), and the sum
// maps to u = (1 + y) / (1 - y) = (Z + Y) / (Z - Y). When the sum is the
// neutral element (P of small order), Z - Y = 0 inverts to 0 and u = 0, as
// the ladder gives.
static void table_sum(fe *num, fe *den, const ge_table *tb, const uint8_t scalar[32]) {
  uint8_t k[32];
  int8_t e[64];
  clamp(k, scalar);
  // k = sum e[i]·16^i with e[i] in [-8, 8); the clamped k is below 2^255,
  // so the last digit takes the final carry and stays <= 8.
  for (int i = 0; i < 32; i++) {
    e[2 * i] = (int8_t)(k[i] & 15);
    e[2 * i + 1] = (int8_t)(k[i] >> 4);
  }
  int8_t carry = 0;
  for (int i = 0; i < 63; i++) {
    e[i] = (int8_t)(e[i] + carry);
    carry = (int8_t)((e[i] + 8) >> 4);
    e[i] = (int8_t)(e[i] - carry * 16);
  }
  e[63] = (int8_t)(e[63] + carry);
  ge_ext h = {{{0}}, {{1}}, {{1}}, {{0}}};
  ge_niels q;
  for (int i = 1; i < 64; i += 2) {
    select_entry(&q, tb, i / 2, e[i]);
    ge_madd(&h, &h, &q);
  }
  for (int i = 0; i < 4; i++)
    ge_dbl(&h, &h);
  for (int i = 0; i < 64; i += 2) {
    select_entry(&q, tb, i / 2, e[i]);
    ge_madd(&h, &h, &q);
  }
  fe_add(num, &h.z, &h.y);
  fe_sub(den, &h.z, &h.y);
  mc_wipe(k, sizeof k);
  mc_wipe(e, sizeof e);
  mc_wipe(&h, sizeof h);
  mc_wipe(&q, sizeof q);
}

static void table_mult(uint8_t out[32], const ge_table *tb, const uint8_t scalar[32]) {
  fe num, den;
  table_sum(&num, &den, tb, scalar);
  fe_invert(&den, &den);
  fe_mul(&num, &num, &den);
  fe_tobytes(out, &num);
  mc_wipe(&num, sizeof num);
  mc_wipe(&den, sizeof den);
}

void mc_x25519_base_adx(uint8_t out[32], const uint8_t scalar[32]) {
  (void)pthread_once(&base_once, base_build);
  table_mult(out, &base_table, scalar);
}

// mc_x25519_select_check compares the vector scan with the scalar one on
// every row of the base point's table and every digit from -8 to 8; it
// returns the number of (row, digit) pairs on which they differ.
int mc_x25519_select_check(void) {
  (void)pthread_once(&base_once, base_build);
  int bad = 0;
  for (int i = 0; i < 32; i++) {
    for (int d = -8; d <= 8; d++) {
      ge_niels got, want;
      select_entry(&got, &base_table, i, (int8_t)d);
      select_entry_ref(&want, &base_table, i, (int8_t)d);
      bad += memcmp(&got, &want, sizeof got) != 0;
    }
  }
  return bad;
}

// The last peer key of this thread, and its table once the same key came
// twice in a row: a server encrypting mail to a user uses that user's key
// again and again, and a table makes each X25519 with it cost about what a
// public key costs. One-off keys keep the ladder (building a table costs
// about two ladders). `state`: 0 empty, 1 seen once, 2 table ready, 3 no
// table possible (the key is on the twist, or u = -1).
static _Thread_local struct {
  uint8_t u[32];
  int state;
  ge_table tb;
} peer_cache;

// peer_table returns the table of the peer key `u` when this thread has
// one or builds it now (`u` came twice in a row), else NULL (a new key, or
// one with no table); it keeps `u` as this thread's last peer key.
static const ge_table *peer_table(const uint8_t u[32]) {
  if (peer_cache.state != 0 && memcmp(peer_cache.u, u, 32) == 0) {
    if (peer_cache.state == 1) {
      (void)pthread_once(&base_once, base_build);
      ge_ext p;
      ge_ext *pts = malloc(256 * sizeof *pts);
      fe *prefix = malloc(256 * sizeof *prefix);
      // Without the memory the key stays "seen once", and its next use
      // tries again; only a key that has no table is given up on.
      if (pts != NULL && prefix != NULL) {
        peer_cache.state = 3;
        if (ge_from_u(&p, u)) {
          table_fill(&peer_cache.tb, &p, pts, prefix);
          peer_cache.state = 2;
        }
      }
      free(pts);
      free(prefix);
    }
    return peer_cache.state == 2 ? &peer_cache.tb : NULL;
  }
  memcpy(peer_cache.u, u, 32);
  peer_cache.state = 1;
  return NULL;
}

void mc_x25519_scalarmult_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]) {
  const ge_table *tb = peer_table(u);
  if (tb != NULL)
    table_mult(out, tb, scalar);
  else
    mc_x25519_ladder_adx(out, scalar, u);
}

// fe_iszero_mask returns all ones when `a` is 0 mod p, else 0, without a
// branch.
static uint64_t fe_iszero_mask(const fe *a) {
  uint8_t s[32];
  fe_tobytes(s, a);
  uint64_t acc = 0;
  for (int i = 0; i < 32; i++)
    acc |= s[i];
  return 0 - ((acc - 1) >> 63);
}

void mc_x25519_pair_adx(uint8_t out_pub[32], uint8_t out_shared[32], const uint8_t scalar[32],
                        const uint8_t u[32]) {
  (void)pthread_once(&base_once, base_build);
  const ge_table *tb = peer_table(u);
  if (tb == NULL) {
    table_mult(out_pub, &base_table, scalar);
    mc_x25519_ladder_adx(out_shared, scalar, u);
    return;
  }
  // Both results as fractions, then Montgomery's trick: with
  // inv = 1 / (den1·den2), u1 = num1·den2·inv and u2 = num2·den1·inv, one
  // inversion and four multiplications instead of two inversions. den1 is
  // never 0 (B has prime order and the clamped scalar is not a multiple of
  // it); den2 is 0 when the peer's point has small order (the sum is then
  // the neutral element and X25519 gives 0): it becomes 1 and num2 0, by
  // masks, so that the public key still comes out right.
  struct {
    fe num1, den1, num2, den2, prod, inv, t;
  } v;
  const fe one = {{1, 0, 0, 0}}, zero = {{0, 0, 0, 0}};
  table_sum(&v.num1, &v.den1, &base_table, scalar);
  table_sum(&v.num2, &v.den2, tb, scalar);
  uint64_t z = fe_iszero_mask(&v.den2);
  fe_cmov(&v.den2, &one, z);
  fe_cmov(&v.num2, &zero, z);
  fe_mul(&v.prod, &v.den1, &v.den2);
  fe_invert(&v.inv, &v.prod);
  fe_mul(&v.t, &v.inv, &v.den2); // 1 / den1
  fe_mul(&v.t, &v.t, &v.num1);
  fe_tobytes(out_pub, &v.t);
  fe_mul(&v.t, &v.inv, &v.den1); // 1 / den2
  fe_mul(&v.t, &v.t, &v.num2);
  fe_tobytes(out_shared, &v.t);
  mc_wipe(&v, sizeof v);
}
