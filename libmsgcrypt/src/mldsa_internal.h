// mldsa_internal.h: private declarations shared by the ML-DSA sources
// (mldsa.c, mldsa_poly.c), its tests and its fuzz harnesses; never installed.
// Polynomials have 256 coefficients modulo q = 8380417 (FIPS 204 §2.3).
#ifndef MC_MLDSA_INTERNAL_H
#define MC_MLDSA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt_internal.h"

// MC_MLDSA_DECLASSIFY tells Valgrind memcheck that `len` bytes at `p`, derived
// from secrets, may be treated as public. The constant-time test
// (tests/ct_mldsa.c) marks keys undefined and expects memcheck to see no
// branch or memory index on a secret; the few values the algorithm makes
// public on purpose (see mldsa.c) pass through here. Outside Valgrind the
// client request is a handful of no-op instructions; without the header it
// compiles to nothing.
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MC_MLDSA_DECLASSIFY(p, len) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (len)))
#endif
#endif
#ifndef MC_MLDSA_DECLASSIFY
#define MC_MLDSA_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

#define MC_MLDSA_N 256
#define MC_MLDSA_Q 8380417
#define MC_MLDSA_D 13 // bits dropped from t (FIPS 204 Table 1)
#define MC_MLDSA_MAX_K 8
#define MC_MLDSA_MAX_L 7
#define MC_MLDSA_MAX_OMEGA 80
#define MC_MLDSA_TR_LEN 64
#define MC_MLDSA_MU_LEN 64
#define MC_MLDSA_MAX_CTILDE_LEN 64

typedef struct {
  int32_t c[MC_MLDSA_N];
} mc_mldsa_poly;

// mc_mldsa_params holds one parameter set of FIPS 204 Table 1 and the sizes
// derived from it (Table 2).
typedef struct {
  unsigned k, l;       // rows and columns of A
  unsigned eta;        // bound of the private vectors s1, s2
  unsigned tau;        // number of ±1 coefficients in the challenge c
  unsigned omega;      // maximum number of hint bits
  unsigned ctilde_len; // λ/4 bytes of commitment hash
  unsigned eta_bits;   // bits per coefficient of s1 and s2 in sk
  unsigned z_bits;     // 1 + bitlen(γ1 − 1)
  unsigned w1_bits;    // bitlen((q − 1)/(2γ2) − 1)
  int32_t gamma1, gamma2, beta;
  size_t public_key_len, private_key_len, signature_len;
} mc_mldsa_params;

// mc_mldsa_params_get returns the parameters of `level` (an mc_mldsa_level)
// or NULL when it is not one.
const mc_mldsa_params *mc_mldsa_params_get(int level);

// Arithmetic (mldsa_poly.c). Coefficients are int32_t; the comments give the
// range each function accepts and produces.

// mc_mldsa_ntt transforms `a` (|coefficients| < q) in place into the NTT
// domain (FIPS 204 Algorithm 41), outputs bounded by 9q in absolute value.
void mc_mldsa_ntt(mc_mldsa_poly *a);

// mc_mldsa_invntt applies the inverse NTT (Algorithm 42) to `a`
// (|coefficients| < q), multiplying by the Montgomery factor 2^32 as well so
// that it undoes the 2^-32 of mc_mldsa_pointwise_acc; outputs lie in (−q, q).
void mc_mldsa_invntt(mc_mldsa_poly *a);

// mc_mldsa_pointwise sets `out` = `a` ∘ `b` · 2^-32 mod q for NTT-domain
// inputs bounded by 9q; outputs lie in (−q, q).
void mc_mldsa_pointwise(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b);

// mc_mldsa_pointwise_acc adds `a` ∘ `b` · 2^-32 mod q to `acc`.
void mc_mldsa_pointwise_acc(mc_mldsa_poly *acc, const mc_mldsa_poly *a, const mc_mldsa_poly *b);

// mc_mldsa_pointwise_sum sets `out` = Σ_j `a`[j] ∘ `b`[j] · 2^-32 mod q over
// j < `num` (at most MC_MLDSA_MAX_L), for `a` in [0, q) (matrix entries)
// and `b` bounded by 9q; outputs lie in (−q, q).
void mc_mldsa_pointwise_sum(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b,
                            unsigned num);

// mc_mldsa_reduce maps coefficients below 2^31 − 2^22 in absolute value into
// [−6283009, 6283008], which is within (−q, q).
void mc_mldsa_reduce(mc_mldsa_poly *a);

// mc_mldsa_freeze maps coefficients in (−q, q) to [0, q).
void mc_mldsa_freeze(mc_mldsa_poly *a);

// mc_mldsa_center maps coefficients in (−q, q) to the centred representative
// in [−(q−1)/2, (q−1)/2].
void mc_mldsa_center(mc_mldsa_poly *a);

// Branch-free helpers, inline because they run per coefficient. Signed right
// shifts are arithmetic and narrowing conversions wrap on every compiler we
// support (GCC and Clang document both).

// mc_mldsa_mask_negative returns all ones when x < 0, else 0.
static inline int32_t mc_mldsa_mask_negative(int32_t x) {
  return x >> 31;
}

// mc_mldsa_is_zero returns 1 when x == 0, else 0.
static inline uint32_t mc_mldsa_is_zero(uint32_t x) {
  return (~x & (x - 1)) >> 31;
}

// mc_mldsa_less_than returns 1 when a < b, for a and b below 2^31.
static inline uint32_t mc_mldsa_less_than(uint32_t a, uint32_t b) {
  return (a - b) >> 31;
}

// mc_mldsa_decompose splits r in [0, q) into r1 and r0 (Algorithm 36) for
// γ2 = `gamma2`, (q − 1)/88 or (q − 1)/32.
static inline void mc_mldsa_decompose(int32_t *r1, int32_t *r0, int32_t r, int32_t gamma2) {
  // r1 = floor((r + γ2 − 1) / 2γ2) puts r0 = r − 2γ2·r1 in (−γ2, γ2]. The
  // division is a multiplication by a rounded-up reciprocal, exact for every
  // numerator below q + γ2 (checked exhaustively by test_mldsa).
  uint64_t num = (uint64_t)(uint32_t)(r + gamma2 - 1);
  int32_t m, hi;
  if (gamma2 == (MC_MLDSA_Q - 1) / 88) {
    hi = (int32_t)((num * 2886403) >> 39);
    m = 44;
  } else {
    hi = (int32_t)((num * 8396809) >> 42);
    m = 16;
  }
  int32_t lo = r - hi * 2 * gamma2;
  // r − r0 = q − 1 happens exactly when hi = m: then r1 = 0, r0 = r0 − 1.
  int32_t top = -(int32_t)mc_mldsa_is_zero((uint32_t)(hi ^ m));
  *r1 = hi & ~top;
  *r0 = lo + top;
}

// Two products c·s1[i] and c·s2[i] come out of one inverse NTT (mldsa.c,
// sign_attempt): the signer multiplies c by s1[i] + 2^11 · s2[i] and splits
// the centred result v = c·s1[i] + 2^11 · c·s2[i] again. Every coefficient of
// c·s is a sum of τ terms ±s_j, so |c·s| ≤ τ · max|s_j|; the private key
// encoding bounds |s_j| by 5 (η = 2, three bits) or 11 (η = 4, four bits),
// even for a malformed key, so |c·s| ≤ max(39·5, 49·11, 60·5) = 539 < 2^10.
// Then |v| ≤ 539 · (1 + 2^11) < (q − 1)/2, so v is exact after centring,
// and the low part lies in [−2^10, 2^10), so rounding v / 2^11 recovers the
// high part.
#define MC_MLDSA_PAIR_SHIFT 11

// mc_mldsa_pair_split sets *hi = round(v / 2^11) and *lo = v − 2^11 · hi, for
// v = lo + 2^11 · hi with lo in [−2^10, 2^10). No branches.
static inline void mc_mldsa_pair_split(int32_t *lo, int32_t *hi, int32_t v) {
  int32_t h = (v + (1 << (MC_MLDSA_PAIR_SHIFT - 1))) >> MC_MLDSA_PAIR_SHIFT;
  *hi = h;
  *lo = v - h * (1 << MC_MLDSA_PAIR_SHIFT);
}

// mc_mldsa_power2round splits r in [0, q) into r1, r0 (Algorithm 35).
static inline void mc_mldsa_power2round(int32_t *r1, int32_t *r0, int32_t r) {
  int32_t hi = (r + (1 << (MC_MLDSA_D - 1)) - 1) >> MC_MLDSA_D;
  *r1 = hi;
  *r0 = r - (hi << MC_MLDSA_D);
}

// mc_mldsa_use_hint returns UseHint(h, r) (Algorithm 40) for r in [0, q) and h
// in {0, 1}.
static inline int32_t mc_mldsa_use_hint(int32_t h, int32_t r, int32_t gamma2) {
  int32_t r1, r0;
  mc_mldsa_decompose(&r1, &r0, r, gamma2);
  int32_t m = gamma2 == (MC_MLDSA_Q - 1) / 88 ? 44 : 16; // (q − 1)/(2γ2)
  // With the hint, step up when r0 > 0 and down otherwise, modulo m.
  int32_t up = (int32_t)((uint32_t)-r0 >> 31);
  r1 += h * (2 * up - 1);
  r1 += mc_mldsa_mask_negative(r1) & m;
  r1 &= ~(-(int32_t)mc_mldsa_is_zero((uint32_t)(r1 ^ m)));
  return r1;
}

// SHAKE128/256 as ML-DSA uses it (FIPS 204 §3.7): absorb everything, finish,
// then squeeze. A thin sponge over mc_keccak_f1600 that moves whole lanes.
#define MC_MLDSA_SHAKE128_RATE 168
#define MC_MLDSA_SHAKE256_RATE 136

typedef struct {
  uint64_t s[25];
  unsigned rate, pos;
} mc_mldsa_xof;

void mc_mldsa_xof_init(mc_mldsa_xof *x, unsigned rate);
void mc_mldsa_xof_absorb(mc_mldsa_xof *x, const uint8_t *in, size_t len);
void mc_mldsa_xof_finish(mc_mldsa_xof *x);
void mc_mldsa_xof_squeeze(mc_mldsa_xof *x, uint8_t *out, size_t len);

// mc_mldsa_shake256 writes `out_len` bytes of SHAKE256(`in`) (H in FIPS 204).
void mc_mldsa_shake256(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len);

// Sampling (FIPS 204 §7.3).

// mc_mldsa_rej_ntt_poly samples a uniform NTT-domain polynomial from
// SHAKE128(`seed`), the 34-byte ρ || s || r (Algorithm 30). Public input.
void mc_mldsa_rej_ntt_poly(mc_mldsa_poly *a, const uint8_t seed[34]);

// mc_mldsa_rej_bounded_poly samples coefficients in [−η, η] from
// SHAKE256(`seed`), the 66-byte ρ' || r (Algorithm 31). Secret input.
void mc_mldsa_rej_bounded_poly(mc_mldsa_poly *a, const uint8_t seed[66], unsigned eta);

// mc_mldsa_sample_in_ball sets `c` to the challenge polynomial with τ
// coefficients ±1 derived from `seed` (Algorithm 29). Secret input in
// rejected signing iterations, so it indexes nothing by its value.
void mc_mldsa_sample_in_ball(mc_mldsa_poly *c, const uint8_t *seed, size_t seed_len, unsigned tau);

// mc_mldsa_expand_mask sets `y` to polynomial number `index` (κ + r) of
// ExpandMask(ρ'') (Algorithm 34), coefficients in [−γ1 + 1, γ1].
void mc_mldsa_expand_mask(mc_mldsa_poly *y, const uint8_t rho2[64], uint16_t index,
                          const mc_mldsa_params *p);

// mc_mldsa_expand_a sets a[i][j] = Â[i][j] for i < `k`, j < `l` (ExpandA,
// Algorithm 32): the same polynomials as mc_mldsa_rej_ntt_poly on ρ || j || i,
// four at a time. Public input.
void mc_mldsa_expand_a(mc_mldsa_poly a[][MC_MLDSA_MAX_L], const uint8_t rho[32], unsigned k,
                       unsigned l);

// mc_mldsa_expand_s sets s1[0..l) and s2[0..k) (ExpandS, Algorithm 33): the
// same polynomials as mc_mldsa_rej_bounded_poly on ρ' || r || 0, four at a
// time. Secret input.
void mc_mldsa_expand_s(mc_mldsa_poly *s1, mc_mldsa_poly *s2, const uint8_t rho_prime[64],
                       const mc_mldsa_params *p);

// mc_mldsa_expand_mask_vec sets y[0..l) to ExpandMask(ρ'', κ) (Algorithm 34):
// y[r] is mc_mldsa_expand_mask of index κ + r, four at a time. Secret input.
void mc_mldsa_expand_mask_vec(mc_mldsa_poly *y, const uint8_t rho2[64], uint16_t kappa,
                              const mc_mldsa_params *p);

// Bit packing (§7.1). mc_mldsa_pack writes the 256 values `offset` − a[i]
// (when `negate`) or a[i] (otherwise), each in [0, 2^bits), as 32·bits bytes
// (SimpleBitPack / BitPack); mc_mldsa_unpack is its inverse.
void mc_mldsa_pack(uint8_t *out, const mc_mldsa_poly *a, unsigned bits, int negate, int32_t offset);
void mc_mldsa_unpack(mc_mldsa_poly *a, const uint8_t *in, unsigned bits, int negate,
                     int32_t offset);

// Encodings of keys and signatures (§7.2).

typedef struct {
  uint8_t rho[32];
  mc_mldsa_poly t1[MC_MLDSA_MAX_K];
} mc_mldsa_public_key;

// mc_mldsa_public_key_decode parses `in` (pkDecode). It returns 0, or
// MC_ERR_BAD_KEY when `in_len` is not the public key length of `p`.
int mc_mldsa_public_key_decode(mc_mldsa_public_key *pk, const mc_mldsa_params *p, const uint8_t *in,
                               size_t in_len);

// mc_mldsa_public_key_encode writes p->public_key_len bytes (pkEncode).
void mc_mldsa_public_key_encode(uint8_t *out, const mc_mldsa_params *p,
                                const mc_mldsa_public_key *pk);

typedef struct {
  uint8_t ctilde[MC_MLDSA_MAX_CTILDE_LEN];
  mc_mldsa_poly z[MC_MLDSA_MAX_L];
  uint8_t h[MC_MLDSA_MAX_K][MC_MLDSA_N]; // 0 or 1
} mc_mldsa_signature;

// mc_mldsa_signature_decode parses `in` (sigDecode with HintBitUnpack,
// Algorithm 21). It returns 0, or MC_ERR_BAD_SIGNATURE for a wrong length or
// a hint encoding that Algorithm 21 rejects (indices not strictly increasing
// within a polynomial, counts decreasing or above ω, non-zero padding).
int mc_mldsa_signature_decode(mc_mldsa_signature *sig, const mc_mldsa_params *p, const uint8_t *in,
                              size_t in_len);

// mc_mldsa_signature_encode writes p->signature_len bytes (sigEncode). The
// hint vector must have at most ω ones.
void mc_mldsa_signature_encode(uint8_t *out, const mc_mldsa_params *p,
                               const mc_mldsa_signature *sig);

#endif // MC_MLDSA_INTERNAL_H
