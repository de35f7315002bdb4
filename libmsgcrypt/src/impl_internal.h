// impl_internal.h: libmsgcrypt's table of implementations (CONVENTIONS §6)
// and the four-way SHAKE sponge that runs on it; private, never installed.
// The kernels that dominate ML-KEM and ML-DSA (Keccak-f[1600], the NTTs
// and their products) have a plain C version in the "scalar" entry, which
// is the specification, and faster ones per ISA level in src/x86/. Every
// entry computes bit for bit the same results.
#ifndef MC_IMPL_INTERNAL_H
#define MC_IMPL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cfb_sha1_internal.h"
#include "mldsa_internal.h"
#include "mlkem_internal.h"
#include "msgcrypt_internal.h"
#include "p256_internal.h"
#include "pgp_crc24_internal.h"
#include "x25519_internal.h"

// Four Keccak states side by side, lane-interleaved: s[4 * i + j] is lane i
// (FIPS 202 numbering x + 5y) of state j. The layout lets a 256-bit vector
// hold lane i of all four states, and lets the scalar entry work lane by lane.
typedef struct {
  uint64_t s[25 * 4];
} mc_keccak_x4;

struct mc_impl {
  const char *name;
  uint32_t required; // CORVID_CPU_* bits that must all be present
  // keccak_f1600_x4 applies Keccak-f[1600] to each of the four states.
  void (*keccak_f1600_x4)(mc_keccak_x4 *st);
  // The ML-DSA polynomial kernels, with the contracts of mldsa_internal.h.
  void (*mldsa_ntt)(mc_mldsa_poly *a);
  void (*mldsa_invntt)(mc_mldsa_poly *a);
  void (*mldsa_pointwise)(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b);
  void (*mldsa_pointwise_acc)(mc_mldsa_poly *acc, const mc_mldsa_poly *a, const mc_mldsa_poly *b);
  void (*mldsa_pointwise_sum)(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b,
                              unsigned num);
  // The ML-KEM polynomial kernels, with the contracts of mlkem_internal.h.
  void (*mlkem_ntt)(mc_mlkem_poly *p);
  void (*mlkem_invntt)(mc_mlkem_poly *p);
  void (*mlkem_basemul_acc)(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a, const mc_mlkem_poly *b,
                            const mc_mlkem_mulcache *cache);
  void (*mlkem_acc_reduce)(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]);
  // X25519 (x25519_internal.h): X25519(scalar, u) and X25519(scalar, 9).
  void (*x25519)(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
  void (*x25519_base)(uint8_t out[32], const uint8_t scalar[32]);
  // Both of the above for one scalar (a sender's ephemeral key): the public
  // key and the shared secret with `u`, sharing work between them; NULL
  // where the entry has nothing to share, and the two kernels run in turn.
  void (*x25519_pair)(uint8_t out_pub[32], uint8_t out_shared[32], const uint8_t scalar[32],
                      const uint8_t u[32]);
  // P-256 (p256_internal.h): x(scalar·P) for a validated point P, and
  // scalar·G as x || y.
  void (*p256_mul)(uint8_t out_x[32], const uint8_t scalar[32], const uint8_t point_xy[64]);
  void (*p256_base)(uint8_t out_xy[64], const uint8_t scalar[32]);
  // SEIPDv1's CFB with the SHA-1 MDC, 64-byte blocks (cfb_sha1_internal.h).
  void (*cfb_sha1_blocks)(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t num_blocks);
  // The ASCII armor's CRC-24 (pgp_crc24_internal.h).
  uint32_t (*crc24)(uint32_t crc, const uint8_t *in, size_t in_len);
};

extern const struct mc_impl mc_impl_scalar;
extern const struct mc_impl mc_impl_avx2;   // built only with MC_HAVE_AVX2
extern const struct mc_impl mc_impl_adxsha; // built only with MC_HAVE_ADXSHA

// mc_impl_current returns the implementation in use, choosing it on first
// use (MSGCRYPT_IMPL or the CPU's best). Never NULL; when MSGCRYPT_IMPL names
// something unusable it is the "unsupported" entry, whose kernels are the
// scalar ones so that nothing crashes, and which the public entry points
// refuse through mc_impl_check.
const struct mc_impl *mc_impl_current(void);

// mc_impl_check returns 0, or MC_ERR_UNSUPPORTED when the "unsupported"
// entry is in use. Every public function that runs table kernels calls it
// first.
int mc_impl_check(void);

// The scalar kernels, for the table and for the tests that compare every
// other entry with them.
void mc_keccak_f1600_x4_scalar(mc_keccak_x4 *st);
void mc_mldsa_ntt_scalar(mc_mldsa_poly *a);
void mc_mldsa_invntt_scalar(mc_mldsa_poly *a);
void mc_mldsa_pointwise_scalar(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b);
void mc_mldsa_pointwise_acc_scalar(mc_mldsa_poly *acc, const mc_mldsa_poly *a,
                                   const mc_mldsa_poly *b);
void mc_mldsa_pointwise_sum_scalar(mc_mldsa_poly *out, const mc_mldsa_poly *a,
                                   const mc_mldsa_poly *b, unsigned num);
void mc_mlkem_ntt_scalar(mc_mlkem_poly *p);
void mc_mlkem_invntt_scalar(mc_mlkem_poly *p);
void mc_mlkem_basemul_acc_scalar(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a,
                                 const mc_mlkem_poly *b, const mc_mlkem_mulcache *cache);
void mc_mlkem_acc_reduce_scalar(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]);

// The AVX2 kernels (src/x86/, compiled with the avx2 flags of meson.build).
void mc_keccak_f1600_x4_avx2(mc_keccak_x4 *st);
void mc_mldsa_ntt_avx2(mc_mldsa_poly *a);
void mc_mldsa_invntt_avx2(mc_mldsa_poly *a);
void mc_mldsa_pointwise_avx2(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b);
void mc_mldsa_pointwise_acc_avx2(mc_mldsa_poly *acc, const mc_mldsa_poly *a,
                                 const mc_mldsa_poly *b);
void mc_mldsa_pointwise_sum_avx2(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b,
                                 unsigned num);
void mc_mlkem_ntt_avx2(mc_mlkem_poly *p);
void mc_mlkem_invntt_avx2(mc_mlkem_poly *p);
void mc_mlkem_basemul_acc_avx2(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a,
                               const mc_mlkem_poly *b, const mc_mlkem_mulcache *cache);
void mc_mlkem_acc_reduce_avx2(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]);

// Four SHAKE instances at once (keccak_x4.c), for the samplers that hash
// many short seeds: ExpandA, ExpandS and ExpandMask of ML-DSA, the matrix of
// ML-KEM.

// mc_shake_x4_absorb starts four SHAKE sponges of rate `rate` (168 for
// SHAKE128, 136 for SHAKE256) on the `len`-byte inputs `in[0..3]`, with
// `len` < `rate`, padded; the first permutation is left to the first squeeze.
void mc_shake_x4_absorb(mc_keccak_x4 *st, unsigned rate, const uint8_t *const in[4], size_t len);

// mc_shake_x4_squeeze_blocks permutes the four states `num_blocks` times and
// writes `rate` bytes of each after each permutation: out[j] receives
// `num_blocks` · `rate` bytes of stream j.
void mc_shake_x4_squeeze_blocks(mc_keccak_x4 *st, unsigned rate, uint8_t *const out[4],
                                size_t num_blocks);

#endif // MC_IMPL_INTERNAL_H
