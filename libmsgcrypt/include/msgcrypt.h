// msgcrypt.h: libmsgcrypt, OpenPGP and S/MIME encryption for public keys of recipients.
//
// libmsgcrypt encrypts mail for its recipients' public keys with OpenPGP
// (RFC 9580, RFC 9980) and S/MIME (CMS, RFC 9629/9936). It only ever holds
// public keys and never decrypts user mail. It uses BoringSSL for the classical
// primitives, libencodify for armor and libmailparse for the messages it wraps.
//
// Threading: unless a function's comment says otherwise, every function is
// safe to call from any thread; handles are not shared between threads
// without the caller's locking.
//
// Ownership: borrowing is the default. A function takes ownership only where
// its comment says so; pointers it returns are non-owning unless the function
// is named *_new or *_dup.
//
// Errors: functions return 0 (or a count) on success and a negative code on
// failure: -errno for OS and resource errors (-1 to -4095), MC_ERR_* for this
// library's own (MC_ERR_* codes lie in -10300 to -10399).
// mc_strerror() describes any of them.
#ifndef MC_MSGCRYPT_H
#define MC_MSGCRYPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MC_API __attribute__((visibility("default")))
#define MC_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define MC_API
#define MC_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libmsgcrypt alone; it changes only when this library does.
// MC_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define MC_VERSION_MAJOR 0
#define MC_VERSION_MINOR 1
#define MC_VERSION_PATCH 0
#define MC_VERSION_STRING "0.1.0"
#define MC_VERSION_NUMBER (MC_VERSION_MAJOR * 10000 + MC_VERSION_MINOR * 100 + MC_VERSION_PATCH)

// mc_version returns the version of the library loaded at run time, as
// MC_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
MC_API unsigned mc_version(void);

// mc_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
MC_API const char *mc_version_string(void);

// Errors.

enum {
  MC_ERR_INVALID_ARGUMENT = -10300,
  MC_ERR_UNSUPPORTED = -10301,
  MC_ERR_BAD_KEY = -10302,
  MC_ERR_BAD_SIGNATURE = -10303,
  MC_ERR_AUTH_FAILED = -10304,
  MC_ERR_BUFFER_TOO_SMALL = -10305,
  MC_ERR_BAD_CIPHERTEXT = -10306,
  MC_ERR_SELFTEST = -10307,
};

// mc_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MC_ERR_INVALID_ARGUMENT: invalid argument.
//   MC_ERR_UNSUPPORTED: unsupported algorithm or format.
//   MC_ERR_BAD_KEY: key is malformed or unusable.
//   MC_ERR_BAD_SIGNATURE: signature is malformed or does not verify.
//   MC_ERR_AUTH_FAILED: authentication tag does not match.
//   MC_ERR_BUFFER_TOO_SMALL: output buffer too small.
//   MC_ERR_BAD_CIPHERTEXT: ciphertext is malformed.
//   MC_ERR_SELFTEST: a known-answer self-test failed.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MC_API const char *mc_strerror(int code);

// SHA-3 and SHAKE (FIPS 202).
//
// Keccak-f[1600] hashes with an incremental API. A context is a plain struct
// that the caller owns (stack or heap); it holds no pointers and may be copied
// to fork a computation. Contexts are not thread-safe; distinct contexts may be
// used from distinct threads. Functions on a context never fail when given a
// context in the state their comment names; misuse (absorbing after squeezing,
// an unknown algorithm) is caught by the return codes below.

#define MC_SHA3_224_DIGEST_LEN 28
#define MC_SHA3_256_DIGEST_LEN 32
#define MC_SHA3_384_DIGEST_LEN 48
#define MC_SHA3_512_DIGEST_LEN 64
// The largest digest length, for buffers that take any SHA-3 digest.
#define MC_SHA3_MAX_DIGEST_LEN 64

typedef enum {
  MC_SHA3_224 = 1,
  MC_SHA3_256,
  MC_SHA3_384,
  MC_SHA3_512,
  MC_SHAKE128,
  MC_SHAKE256,
} mc_sha3_alg;

// mc_sha3_ctx is the state of one SHA-3 or SHAKE computation. Its fields are
// private: use the functions below.
typedef struct mc_sha3_ctx {
  uint64_t state[25];
  uint32_t rate;      // bytes absorbed or squeezed per permutation
  uint32_t pos;       // position within the current block
  uint8_t domain_pad; // 0x06 for SHA-3, 0x1f for SHAKE
  uint8_t squeezing;  // 1 once absorbing has finished
  uint8_t digest_len; // fixed output length of SHA3-*, 0 for SHAKE
  uint8_t alg;        // an mc_sha3_alg
} mc_sha3_ctx;

// mc_sha3_init prepares `ctx` for `alg`. It returns 0, or
// MC_ERR_INVALID_ARGUMENT for an unknown `alg`.
MC_API MC_WARN_UNUSED_RESULT int mc_sha3_init(mc_sha3_ctx *ctx, mc_sha3_alg alg);

// mc_sha3_update absorbs `in_len` bytes of `in` (which may be NULL when
// `in_len` is 0). It returns 0, or MC_ERR_INVALID_ARGUMENT when `ctx` has
// already produced output.
MC_API MC_WARN_UNUSED_RESULT int mc_sha3_update(mc_sha3_ctx *ctx, const uint8_t *in, size_t in_len);

// mc_sha3_final writes the digest of a SHA3-* context to `out`, which must
// have room for `out_cap` bytes, at least the algorithm's digest length, and
// sets `*out_len` to that length. The context is wiped afterwards. It returns
// 0, or MC_ERR_INVALID_ARGUMENT for a SHAKE context, a context that has
// already produced output, or a too-small `out_cap`.
MC_API MC_WARN_UNUSED_RESULT int mc_sha3_final(mc_sha3_ctx *ctx, uint8_t *out, size_t out_cap,
                                               size_t *out_len);

// mc_shake_squeeze writes the next `out_len` bytes of a SHAKE context's output
// stream to `out`. The first call ends absorbing; later calls continue the
// stream, so squeezing 10 then 20 bytes gives the same 30 bytes as squeezing
// 30 at once. It returns 0, or MC_ERR_INVALID_ARGUMENT for a SHA3-* context.
MC_API MC_WARN_UNUSED_RESULT int mc_shake_squeeze(mc_sha3_ctx *ctx, uint8_t *out, size_t out_len);

// mc_sha3_cleanup wipes `ctx`. Call it on a context abandoned before
// mc_sha3_final (for example, one that absorbed secrets). No-op on NULL.
MC_API void mc_sha3_cleanup(mc_sha3_ctx *ctx);

// mc_sha3 hashes `in` with the SHA3-* algorithm `alg` in one call; see
// mc_sha3_final for `out`, `out_cap`, `out_len` and the errors.
MC_API MC_WARN_UNUSED_RESULT int mc_sha3(mc_sha3_alg alg, uint8_t *out, size_t out_cap,
                                         size_t *out_len, const uint8_t *in, size_t in_len);

// mc_shake computes `out_len` bytes of SHAKE128 or SHAKE256 (`alg`) of `in` in
// one call. It returns 0, or MC_ERR_INVALID_ARGUMENT when `alg` is not SHAKE.
MC_API MC_WARN_UNUSED_RESULT int mc_shake(mc_sha3_alg alg, uint8_t *out, size_t out_len,
                                          const uint8_t *in, size_t in_len);

// @@mlkem@@

// @@mldsa@@

// @@curve448@@

// @@aead@@

#ifdef __cplusplus
}
#endif

#endif // MC_MSGCRYPT_H
