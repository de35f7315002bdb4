// rsa_pub.h: libmsgcrypt's RSA public operation for the common exponent
// 65537 (rsa_pub.c), private, never installed. pkenc.c pads the message and
// hands the encoded block here; other exponents stay with BoringSSL's
// RSA_encrypt. The Montgomery context of a modulus (R^2 mod n and -n^-1 mod
// 2^64, or mod 2^52 for the radix-2^52 products) is built once and kept in
// a small per-thread cache, so that a thread encrypting mail after mail to
// the same recipients sets it up once.
#ifndef MC_RSA_PUB_H
#define MC_RSA_PUB_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt.h"

// MC_RSA_PUB_CACHE_SLOTS is how many moduli each thread keeps the Montgomery
// context of (round robin). A slot holds a copy of the modulus and the
// context of the products in use: BoringSSL's BN_MONT_CTX (about 2 * the
// modulus length in bytes) or the radix-2^52 one (a fixed 5 KiB); all of a
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
// are compared in constant time), never otherwise on `em`. The Montgomery
// products are those of mc_rsa_pub_impl_name: "ifma" (x86/rsa_ifma.c, AVX-512
// IFMA, radix 2^52, unnormalised lanes and one masked final subtraction),
// "boringssl" (its bn_mul_mont kernels, assembly on x86-64 and aarch64,
// whose final subtraction is a masked select, reached with operands of the
// modulus's full width so that no width-trimming step looks at the value)
// or "r52" (rsa_r52.c, the plain C specification of "ifma"). `out` may
// equal `em`.
//
// It returns 0; MC_ERR_INVALID_ARGUMENT for a NULL pointer, a length out of
// range or `em` not below `n` (compared in constant time); MC_ERR_BAD_KEY
// for a modulus BoringSSL rejects (even); MC_ERR_UNSUPPORTED when
// MSGCRYPT_RSA_IMPL names products this CPU lacks or none at all; or
// -ENOMEM. On error `out` holds no part of the result. Thread-safe: the
// cache is per thread.
MC_WARN_UNUSED_RESULT int mc_rsa_public_f4(uint8_t *out, const uint8_t *n, size_t n_len,
                                           const uint8_t *em);

// The products mc_rsa_public_f4 can use. AUTO is the best the CPU runs:
// IFMA where corvid_cpu.h reports CORVID_CPU_AVX512IFMA (and the build has
// the kernel, MC_HAVE_IFMA), else BORINGSSL. R52 is the portable C of the
// IFMA kernel's arithmetic, slow, for tests (Valgrind runs it; it runs no
// AVX-512).
enum {
  MC_RSA_PUB_IMPL_AUTO = -1,
  MC_RSA_PUB_IMPL_BORINGSSL = 0,
  MC_RSA_PUB_IMPL_IFMA = 1,
  MC_RSA_PUB_IMPL_R52 = 2,
};

// mc_rsa_pub_impl_supported returns 1 when this CPU and build run the
// products `impl` (MC_RSA_PUB_IMPL_*, not AUTO), else 0.
int mc_rsa_pub_impl_supported(int impl);

// mc_rsa_pub_force_impl makes every later mc_rsa_public_f4 of the process
// use the products `impl` (AUTO: the CPU's best again), for tests and
// benchmarks; the environment variable MSGCRYPT_RSA_IMPL=boringssl|ifma|r52
// does the same from the first call on. It returns 0, or
// MC_ERR_UNSUPPORTED when the CPU or build lacks them (nothing changes).
// Not meant to race with encryptions in other threads.
MC_WARN_UNUSED_RESULT int mc_rsa_pub_force_impl(int impl);

// mc_rsa_pub_impl_name returns "boringssl", "ifma", "r52", or "unsupported"
// when MSGCRYPT_RSA_IMPL names products that cannot run; static strings.
const char *mc_rsa_pub_impl_name(void);

// mc_rsa_pub_cache_clear frees the calling thread's cached Montgomery
// contexts (tests use it to time and check the uncached path). The cache
// refills on the next call.
void mc_rsa_pub_cache_clear(void);

// mc_rsa_pub_cache_hits returns how many calls of the calling thread found
// their modulus in the cache, for tests.
unsigned long mc_rsa_pub_cache_hits(void);

#endif // MC_RSA_PUB_H
