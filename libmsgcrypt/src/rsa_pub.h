// rsa_pub.h: libmsgcrypt's RSA public operation for the common exponent
// 65537 (rsa_pub.c), private, never installed. pkenc.c pads the message and
// hands the encoded block here; other exponents stay with BoringSSL's
// RSA_encrypt. The Montgomery context of a modulus (R^2 mod n and -n^-1 mod
// 2^64) is built once and kept in a small per-thread cache, so that a
// thread encrypting mail after mail to the same recipients sets it up once.
#ifndef MC_RSA_PUB_H
#define MC_RSA_PUB_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt.h"

// MC_RSA_PUB_CACHE_SLOTS is how many moduli each thread keeps the Montgomery
// context of (round robin). A slot holds a copy of the modulus and
// BoringSSL's BN_MONT_CTX, about 3 * the modulus length in bytes; all of a
// thread's slots are freed when the thread exits.
#define MC_RSA_PUB_CACHE_SLOTS 4

// mc_rsa_pub_is_f4 returns 1 when the big-endian exponent `e` (`e_len`
// bytes, no leading zero bytes) is 65537, the one exponent
// mc_rsa_public_f4 serves, and 0 otherwise.
int mc_rsa_pub_is_f4(const uint8_t *e, size_t e_len);

// mc_rsa_public_f4 writes `em`^65537 mod `n` to `out`, all three `n_len`
// bytes long and big-endian. `n` must already be validated as pkenc.c does
// (no leading zero byte, odd, MC_RSA_MIN_MODULUS_BITS to
// MC_RSA_MAX_MODULUS_BITS bits); `em` is secret (it holds the padded key)
// and must be below `n`. The time taken depends on `n_len`, on whether the
// calling thread's cache already holds `n` and on whether `em`'s first byte
// is below `n`'s (0 in both PKCS #1 encodings; when it is not, `em` and `n`
// are compared in constant time), never otherwise on `em`: the
// Montgomery products are BoringSSL's bn_mul_mont kernels (assembly on
// x86-64 and aarch64), whose final subtraction is a masked select, reached
// with operands of the modulus's full width so that no width-trimming step
// looks at the value. `out` may equal `em`.
//
// It returns 0; MC_ERR_INVALID_ARGUMENT for a NULL pointer, a length out of
// range or `em` not below `n` (compared in constant time); MC_ERR_BAD_KEY
// for a modulus BoringSSL rejects (even); or -ENOMEM. On error `out` holds
// no part of the result. Thread-safe: the cache is per thread.
MC_WARN_UNUSED_RESULT int mc_rsa_public_f4(uint8_t *out, const uint8_t *n, size_t n_len,
                                           const uint8_t *em);

// mc_rsa_pub_cache_clear frees the calling thread's cached Montgomery
// contexts (tests use it to time and check the uncached path). The cache
// refills on the next call.
void mc_rsa_pub_cache_clear(void);

// mc_rsa_pub_cache_hits returns how many calls of the calling thread found
// their modulus in the cache, for tests.
unsigned long mc_rsa_pub_cache_hits(void);

#endif // MC_RSA_PUB_H
