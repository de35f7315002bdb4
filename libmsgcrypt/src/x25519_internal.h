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

#endif // MC_X25519_INTERNAL_H
