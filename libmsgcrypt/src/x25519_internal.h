// x25519_internal.h: libmsgcrypt's own X25519 (RFC 7748), private: the two
// kernels every implementation-table entry provides (a variable-base scalar
// multiplication and the fixed-base one for public keys), the portable
// radix-2^51 versions that are the specification, and the x86-64 versions
// on four 64-bit limbs (src/x86/x25519_adx.c). Every kernel clamps the
// scalar itself, runs in time independent of the scalar and of `u`, and
// writes the canonical 32-byte u-coordinate. Their time depends on nothing
// secret; mc_x25519_scalarmult_adx's depends on whether the public `u`
// repeats.
#ifndef MC_X25519_INTERNAL_H
#define MC_X25519_INTERNAL_H

#include <stdint.h>

#include "msgcrypt_internal.h"

// mc_x25519_scalarmult_scalar computes X25519(`scalar`, `u`) with the
// Montgomery ladder of RFC 7748 §5: `scalar` is clamped, the top bit of `u`
// is ignored and a non-canonical `u` is reduced, as §5 requires.
void mc_x25519_scalarmult_scalar(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);

// mc_x25519_base_scalar computes X25519(`scalar`, 9), the public key of
// `scalar`. The portable version is the ladder on u = 9.
void mc_x25519_base_scalar(uint8_t out[32], const uint8_t scalar[32]);

// mc_x25519_ephemeral does what mc_x25519_public_key(`out_public_key`,
// `private_key`) then mc_x25519(`out_shared_secret`, `private_key`,
// `peer_public_key`) do, for a sender's ephemeral key: the kernels of the
// implementation in use, through its x25519_pair kernel where it has one
// (the "adxsha" entry's computes both results with one field inversion when
// the peer key repeats: mc_x25519_pair_adx).
// Returns 0, MC_ERR_INVALID_ARGUMENT on a NULL pointer, or MC_ERR_BAD_KEY
// when the shared secret is all zeros (a peer point of small order; the
// public key is still written). Thread-safe; time independent of
// `private_key`.
MC_WARN_UNUSED_RESULT int mc_x25519_ephemeral(uint8_t out_public_key[32],
                                              uint8_t out_shared_secret[32],
                                              const uint8_t private_key[32],
                                              const uint8_t peer_public_key[32]);

// The x86-64 kernels (BMI2 mulx and ADX adcx/adox on 4 x 64-bit limbs). The
// fixed-base one adds entries of a table of multiples of edwards25519's base
// point (RFC 7748 §4.1: birationally equivalent to curve25519, u = 9 maps to
// y = 4/5), chosen with constant-time scans, and maps the sum to u.
// mc_x25519_scalarmult_adx keeps the last peer key of each thread and, when
// the same key comes again, a table of its multiples (24 KiB of thread-local
// storage), used like the base point's: time independent of the scalar, but
// not of whether `u` repeats (`u` is a public key). mc_x25519_ladder_adx is
// the ladder alone, independent of `u` too.
void mc_x25519_scalarmult_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
void mc_x25519_ladder_adx(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
void mc_x25519_base_adx(uint8_t out[32], const uint8_t scalar[32]);
// mc_x25519_pair_adx writes both X25519(`scalar`, 9) to `out_pub` and
// X25519(`scalar`, `u`) to `out_shared` (what mc_x25519_base_adx and
// mc_x25519_scalarmult_adx give). When `u` has a table on this thread, the
// two results share one field inversion.
void mc_x25519_pair_adx(uint8_t out_pub[32], uint8_t out_shared[32], const uint8_t scalar[32],
                        const uint8_t u[32]);

// mc_x25519_select_check compares the AVX2 table scan of the fixed-base
// multiplication with its scalar specification on every row of the base
// point's table and every digit in [-8, 8] and returns the number of
// mismatches (0 when they agree). For tests, on a CPU with the "adxsha"
// entry's features only.
int mc_x25519_select_check(void);

#endif // MC_X25519_INTERNAL_H
