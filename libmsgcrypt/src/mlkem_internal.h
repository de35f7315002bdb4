// mlkem_internal.h: the arithmetic of ML-KEM (FIPS 203) shared by src/mlkem.c
// and its tests, never installed. Coefficients of Z_q[X]/(X^256 + 1), q = 3329,
// live in int16_t; products are reduced with Montgomery's method (R = 2^16)
// and sums with Barrett's, so that no step divides or branches on a value.
// The helpers are static inline so that the tests can check them exhaustively
// against the plain definitions.
#ifndef MC_MLKEM_INTERNAL_H
#define MC_MLKEM_INTERNAL_H

#include <stdint.h>

#include "msgcrypt_internal.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MC_MLKEM_HAVE_MEMCHECK 1
#endif
#endif

#define MC_MLKEM_N 256
#define MC_MLKEM_Q 3329
#define MC_MLKEM_MAX_K 4

// q^-1 mod 2^16, as a signed 16-bit value: 3329 * -3327 = 1 mod 2^16.
#define MC_MLKEM_QINV (-3327)
// 2^32 mod q: fqmul(x, MC_MLKEM_R2) turns x * 2^-16 into x.
#define MC_MLKEM_R2 1353

// A polynomial, or its NTT (FIPS 203 §4.3: 128 degree-one residues, in the
// order Algorithm 9 produces them).
typedef struct {
  int16_t coeffs[MC_MLKEM_N];
} mc_mlkem_poly;

// The precomputed products a[2i+1] * gamma_i (gamma_i = zeta^(2 BitRev7(i)+1),
// FIPS 203 Algorithm 11) of an operand that is multiplied by several others.
typedef struct {
  int16_t coeffs[MC_MLKEM_N / 2];
} mc_mlkem_mulcache;

// mc_mlkem_zetas[i] is zeta^BitRev7(i) * 2^16 mod q in (-q/2, q/2), zeta = 17
// (FIPS 203 §4.3, Appendix A), in Montgomery form so that fqmul by it
// multiplies by zeta^BitRev7(i).
extern const int16_t mc_mlkem_zetas[128];

// mc_mlkem_montgomery_reduce returns a * 2^-16 mod q in (-q, q) for
// |a| < q * 2^15.
static inline int16_t mc_mlkem_montgomery_reduce(int32_t a) {
  // t = a * q^-1 mod 2^16, so a - t * q is divisible by 2^16. The casts to
  // int16_t wrap (two's complement on every compiler we build with).
  int16_t t = (int16_t)((int16_t)a * MC_MLKEM_QINV);
  return (int16_t)((a - (int32_t)t * MC_MLKEM_Q) >> 16);
}

// mc_mlkem_fqmul returns a * b * 2^-16 mod q in (-q, q) for |a * b| < q * 2^15.
static inline int16_t mc_mlkem_fqmul(int16_t a, int16_t b) {
  return mc_mlkem_montgomery_reduce((int32_t)a * b);
}

// mc_mlkem_barrett_reduce returns the representative of a mod q in
// [-(q-1)/2, (q-1)/2] for any int16_t a. 20159 = round(2^26 / q).
static inline int16_t mc_mlkem_barrett_reduce(int16_t a) {
  int32_t t = ((int32_t)20159 * a + (1 << 25)) >> 26;
  return (int16_t)(a - t * MC_MLKEM_Q);
}

// mc_mlkem_caddq maps a in (-q, q) to [0, q) without a branch: the sign bit,
// smeared by the arithmetic shift, selects whether q is added.
static inline int16_t mc_mlkem_caddq(int16_t a) {
  return (int16_t)(a + ((a >> 15) & MC_MLKEM_Q));
}

// mc_mlkem_csubq maps a in [0, 2q) to [0, q) without a branch.
static inline int16_t mc_mlkem_csubq(int16_t a) {
  a = (int16_t)(a - MC_MLKEM_Q);
  return (int16_t)(a + ((a >> 15) & MC_MLKEM_Q));
}

// mc_mlkem_compress is Compress_d (FIPS 203 eq. 4.7) for x in [0, q) and
// 1 <= d <= 11: round(2^d x / q) mod 2^d. Since q is odd the quotient is
// never a half, so the rounding is floor((2^d x + (q-1)/2) / q). The
// division is a multiplication by ceil(2^35 / q) and a shift, exact for
// numerators below 2^23 (the tests check every x and d): a hardware divide
// would take data-dependent time (the KyberSlash timing leaks).
static inline uint16_t mc_mlkem_compress(uint16_t x, unsigned d) {
  uint64_t n = ((uint64_t)x << d) + (MC_MLKEM_Q - 1) / 2;
  return (uint16_t)(((n * 10321340u) >> 35) & ((1u << d) - 1));
}

// mc_mlkem_decompress is Decompress_d (FIPS 203 eq. 4.8) for y < 2^d:
// round(q y / 2^d), rounding halves up, which is exact in integers.
static inline uint16_t mc_mlkem_decompress(uint16_t y, unsigned d) {
  return (uint16_t)(((uint32_t)y * MC_MLKEM_Q + (1u << (d - 1))) >> d);
}

// mc_mlkem_ntt replaces `p` by its NTT (FIPS 203 Algorithm 9). Input
// coefficients must lie in (-q, q); outputs are Barrett-reduced.
void mc_mlkem_ntt(mc_mlkem_poly *p);

// mc_mlkem_invntt replaces `p` by NTT^-1(p) * 2^16 (FIPS 203 Algorithm 10 and
// one Montgomery factor), which undoes the 2^-16 that the base-case products
// leave. Inputs in (-q, q); outputs in (-q, q).
void mc_mlkem_invntt(mc_mlkem_poly *p);

// mc_mlkem_mulcache_compute fills `cache` for the operand `b` of later products.
void mc_mlkem_mulcache_compute(mc_mlkem_mulcache *cache, const mc_mlkem_poly *b);

// mc_mlkem_basemul_acc adds the NTT-domain product a ∘ b (FIPS 203 Algorithm
// 11, not yet reduced) to the 32-bit accumulators `acc`. `cache` belongs to
// `b`. Coefficients of `a` and `b` must lie in (-q, q); up to four products
// may be accumulated before mc_mlkem_acc_reduce.
void mc_mlkem_basemul_acc(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a, const mc_mlkem_poly *b,
                          const mc_mlkem_mulcache *cache);

// mc_mlkem_acc_reduce writes acc * 2^-16 mod q, in (-q, q), to `r`.
void mc_mlkem_acc_reduce(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]);

// mc_mlkem_ct_declassify tells Valgrind memcheck that `len` bytes at `p`,
// computed from secrets, are public by design (a public key's seed rho, a
// key check's verdict), so that the constant-time test (tests/ct_mlkem.c,
// which marks secrets undefined) does not report the branches taken on them.
// Outside Valgrind the client request is a few instructions that do nothing.
static inline void mc_mlkem_ct_declassify(const void *p, size_t len) {
#ifdef MC_MLKEM_HAVE_MEMCHECK
  (void)VALGRIND_MAKE_MEM_DEFINED(p, len);
#else
  (void)p;
  (void)len;
#endif
}

// mc_mlkem_value_barrier_u32 hides `x` from the optimiser, so that a mask
// computed from secrets stays a mask instead of becoming a branch.
static inline uint32_t mc_mlkem_value_barrier_u32(uint32_t x) {
  __asm__("" : "+r"(x));
  return x;
}

// Encapsulation caches, per thread, the expansion (A-hat transposed, t-hat,
// H(ek)) of the last MC_MLKEM_ENCAPS_CACHE_SLOTS encapsulation keys it was
// given, keyed by the whole key, replaced round robin and freed when the
// thread exits. Results are identical with and without it.
#define MC_MLKEM_ENCAPS_CACHE_SLOTS 4

// mc_mlkem_encaps_cache_clear empties the calling thread's cache (tests and
// benchmarks measure cold encapsulations with it). It cannot fail.
void mc_mlkem_encaps_cache_clear(void);

// mc_mlkem_encaps_cache_hits returns how many encapsulations of the calling
// thread found their key in its cache (0 before the first one).
unsigned long mc_mlkem_encaps_cache_hits(void);

#endif // MC_MLKEM_INTERNAL_H
