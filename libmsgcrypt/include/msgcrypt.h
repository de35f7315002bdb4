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

// ML-KEM (FIPS 203).
//
// ML-KEM-512, ML-KEM-768 and ML-KEM-1024, the module-lattice key-encapsulation
// mechanism of FIPS 203. Encapsulating to a recipient's public key (FIPS 203's
// encapsulation key, ek) gives a ciphertext and a 32-byte shared secret; the
// holder of the private key (the decapsulation key, dk) recovers the same
// secret from the ciphertext. Keys and ciphertexts are the byte strings that
// FIPS 203 defines, with the sizes below; every function takes the parameter
// set as an mc_mlkem_level.
//
// A private key also has a 64-byte seed form, d || z, which RFC 9935 (X.509),
// RFC 9936 (CMS) and RFC 9980 (OpenPGP) store instead of the expanded key:
// mc_mlkem_keygen_from_seed expands it to both keys.
//
// libmsgcrypt only ever encrypts to recipients: its mail-facing API never
// decapsulates. mc_mlkem_decaps and the private-key functions exist for tests
// and for callers that hold their own keys.
//
// The functions are thread-safe and write only to the caller's buffers, which
// must not overlap the inputs. Encapsulation keeps a per-thread cache of the
// expansion (matrix, t-hat, H(ek)) of the last 4 public keys it used, keyed
// by the whole key: about 46 KiB, allocated on a thread's first
// encapsulation and freed when the thread exits; results are the same
// without it (when it cannot be allocated, the call works uncached), and a
// hit shows only that this thread used that public key lately. Nothing else
// is allocated and no other state is shared. They run in time independent
// of secret data (seed, private key, encapsulation randomness, shared
// secret) and wipe the secrets they copy before returning.
// Randomness comes from BoringSSL's RAND_bytes, which cannot fail (it aborts
// the process instead). Key generation, encapsulation and decapsulation also
// return MC_ERR_UNSUPPORTED, writing nothing, when MSGCRYPT_IMPL selected the
// "unsupported" implementation (see "Implementations" below).

// mc_mlkem_level names a parameter set of FIPS 203 Table 2: ML-KEM-512
// (security category 1), ML-KEM-768 (category 3) and ML-KEM-1024 (category 5).
typedef enum {
  MC_MLKEM_512 = 1,
  MC_MLKEM_768,
  MC_MLKEM_1024,
} mc_mlkem_level;

// The seed form of a private key, d || z (FIPS 203 Algorithm 16).
#define MC_MLKEM_SEED_LEN 64
#define MC_MLKEM_SHARED_SECRET_LEN 32
// The randomness m of one encapsulation (FIPS 203 Algorithm 17).
#define MC_MLKEM_ENCAPS_ENTROPY_LEN 32

#define MC_MLKEM512_PUBLIC_KEY_LEN 800
#define MC_MLKEM512_PRIVATE_KEY_LEN 1632
#define MC_MLKEM512_CIPHERTEXT_LEN 768
#define MC_MLKEM768_PUBLIC_KEY_LEN 1184
#define MC_MLKEM768_PRIVATE_KEY_LEN 2400
#define MC_MLKEM768_CIPHERTEXT_LEN 1088
#define MC_MLKEM1024_PUBLIC_KEY_LEN 1568
#define MC_MLKEM1024_PRIVATE_KEY_LEN 3168
#define MC_MLKEM1024_CIPHERTEXT_LEN 1568
// The largest sizes of any level, for buffers that take every level.
#define MC_MLKEM_MAX_PUBLIC_KEY_LEN MC_MLKEM1024_PUBLIC_KEY_LEN
#define MC_MLKEM_MAX_PRIVATE_KEY_LEN MC_MLKEM1024_PRIVATE_KEY_LEN
#define MC_MLKEM_MAX_CIPHERTEXT_LEN MC_MLKEM1024_CIPHERTEXT_LEN

// mc_mlkem_public_key_len returns the length of a public key of `level`, or 0
// for an unknown `level`.
MC_API size_t mc_mlkem_public_key_len(mc_mlkem_level level);

// mc_mlkem_private_key_len returns the length of an expanded private key of
// `level`, or 0 for an unknown `level`.
MC_API size_t mc_mlkem_private_key_len(mc_mlkem_level level);

// mc_mlkem_ciphertext_len returns the length of a ciphertext of `level`, or 0
// for an unknown `level`.
MC_API size_t mc_mlkem_ciphertext_len(mc_mlkem_level level);

// mc_mlkem_keygen generates a key pair of `level` from a fresh random seed. It
// writes the public key to `out_public_key` (room for `public_key_cap` bytes,
// at least mc_mlkem_public_key_len(level)) and the expanded private key to
// `out_private_key` (room for `private_key_cap` bytes, at least
// mc_mlkem_private_key_len(level)). If `out_seed` is not NULL it receives the
// MC_MLKEM_SEED_LEN-byte seed, from which mc_mlkem_keygen_from_seed rebuilds
// both keys; RFC 9935 recommends storing the seed. The caller owns the
// private key and seed and should wipe them. It returns 0,
// MC_ERR_INVALID_ARGUMENT for an unknown `level` or a NULL key buffer, or
// MC_ERR_BUFFER_TOO_SMALL; on error nothing is written.
MC_API MC_WARN_UNUSED_RESULT int mc_mlkem_keygen(mc_mlkem_level level, uint8_t *out_public_key,
                                                 size_t public_key_cap, uint8_t *out_private_key,
                                                 size_t private_key_cap, uint8_t *out_seed);

// mc_mlkem_keygen_from_seed derives the key pair of `level` from the
// `seed_len`-byte `seed` d || z: ML-KEM.KeyGen_internal(d, z) of FIPS 203
// (Algorithm 16) with d the first 32 bytes and z the last 32. It expands the
// seed form of a private key (RFC 9935, RFC 9936, RFC 9980) and is the
// deterministic key generation of tests. Outputs as for mc_mlkem_keygen. It
// returns 0, MC_ERR_INVALID_ARGUMENT for an unknown `level` or a NULL
// pointer, MC_ERR_BUFFER_TOO_SMALL, or MC_ERR_BAD_KEY when `seed_len` is not
// MC_MLKEM_SEED_LEN; on error nothing is written.
MC_API MC_WARN_UNUSED_RESULT int
mc_mlkem_keygen_from_seed(mc_mlkem_level level, uint8_t *out_public_key, size_t public_key_cap,
                          uint8_t *out_private_key, size_t private_key_cap, const uint8_t *seed,
                          size_t seed_len);

// mc_mlkem_check_public_key performs the encapsulation-key check of FIPS 203
// §7.2 on the `public_key_len` bytes of `public_key`: the length is that of
// `level` and every coefficient of the encoded vector is below q = 3329 (the
// modulus check). It returns 0 for a valid key, MC_ERR_BAD_KEY for an invalid
// one, or MC_ERR_INVALID_ARGUMENT for an unknown `level` or a NULL key with a
// non-zero length. mc_mlkem_encaps performs the same check itself.
MC_API MC_WARN_UNUSED_RESULT int
mc_mlkem_check_public_key(mc_mlkem_level level, const uint8_t *public_key, size_t public_key_len);

// mc_mlkem_check_private_key performs the decapsulation-key check of FIPS 203
// §7.3 on the `private_key_len` bytes of the expanded `private_key`: the
// length is that of `level` and the hash H(ek) stored in the key matches the
// public key stored in it (the hash check). It does not compare the key with
// a seed or test that it decapsulates. It returns 0 for a valid key,
// MC_ERR_BAD_KEY for an invalid one, or MC_ERR_INVALID_ARGUMENT for an unknown
// `level` or a NULL key with a non-zero length. mc_mlkem_decaps performs the
// same check itself.
MC_API MC_WARN_UNUSED_RESULT int mc_mlkem_check_private_key(mc_mlkem_level level,
                                                            const uint8_t *private_key,
                                                            size_t private_key_len);

// mc_mlkem_encaps encapsulates a fresh shared secret to the `public_key_len`
// bytes of `public_key` (ML-KEM.Encaps of FIPS 203 Algorithm 20, with the
// §7.2 input check). It writes the ciphertext to `out_ciphertext`, which has
// room for `ciphertext_cap` bytes, at least mc_mlkem_ciphertext_len(level),
// and the shared secret to `out_shared_secret`. It returns 0,
// MC_ERR_INVALID_ARGUMENT for an unknown `level` or a NULL pointer,
// MC_ERR_BUFFER_TOO_SMALL, or MC_ERR_BAD_KEY when the public key fails
// mc_mlkem_check_public_key; on error nothing is written.
MC_API MC_WARN_UNUSED_RESULT int
mc_mlkem_encaps(mc_mlkem_level level, uint8_t *out_ciphertext, size_t ciphertext_cap,
                uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN], const uint8_t *public_key,
                size_t public_key_len);

// mc_mlkem_encaps_derand is mc_mlkem_encaps with the caller's randomness
// `entropy`, the m of ML-KEM.Encaps_internal (FIPS 203 Algorithm 17). It is
// for tests: anyone who knows `entropy` knows the shared secret, so it must
// come from a secure random generator and be used once. Outputs and errors as
// for mc_mlkem_encaps (MC_ERR_INVALID_ARGUMENT also for a NULL `entropy`).
MC_API MC_WARN_UNUSED_RESULT int
mc_mlkem_encaps_derand(mc_mlkem_level level, uint8_t *out_ciphertext, size_t ciphertext_cap,
                       uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN],
                       const uint8_t *public_key, size_t public_key_len,
                       const uint8_t entropy[MC_MLKEM_ENCAPS_ENTROPY_LEN]);

// mc_mlkem_decaps recovers the shared secret of the `ciphertext_len`-byte
// `ciphertext` with the `private_key_len`-byte expanded `private_key`
// (ML-KEM.Decaps of FIPS 203 Algorithm 21, with the §7.3 input checks) and
// writes it to `out_shared_secret`. A ciphertext of the right length that
// was not produced for this key is not an error: as FIPS 203 requires, the
// result is then the implicit-rejection value J(z || c), a secret unrelated
// to the sender's, and the time taken does not reveal which case occurred.
// It returns 0, MC_ERR_INVALID_ARGUMENT for an unknown `level` or a NULL
// pointer, MC_ERR_BAD_KEY when the private key fails
// mc_mlkem_check_private_key, or MC_ERR_BAD_CIPHERTEXT when `ciphertext_len`
// is not mc_mlkem_ciphertext_len(level); on error nothing is written. The
// mail-facing API of this library never calls it; it serves tests and
// callers that hold their own keys.
MC_API MC_WARN_UNUSED_RESULT int
mc_mlkem_decaps(mc_mlkem_level level, uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN],
                const uint8_t *private_key, size_t private_key_len, const uint8_t *ciphertext,
                size_t ciphertext_len);

// ML-DSA signatures (FIPS 204).
//
// ML-DSA-44, ML-DSA-65 and ML-DSA-87 (FIPS 204 Table 1) behind one API that
// takes the parameter set as an mc_mldsa_level. Keys and signatures are the
// byte strings of FIPS 204 §7.2: the public key pkEncode(ρ, t1), the private
// key skEncode (the expanded form) and the signature sigEncode(c̃, z, h). A
// private key can also be kept as its 32-byte seed ξ (the form RFC 9980
// OpenPGP keys store) and expanded with mc_mldsa_keygen_from_seed.
//
// libmsgcrypt's mail-facing API (OpenPGP, S/MIME) verifies signatures and
// never holds a private key of a user. The signing functions here serve the
// tests and the project's own DKIM2 signing keys, not users' keys.
//
// Signing is "pure" ML-DSA with a context string of 0 to 255 bytes (§5.2);
// HashML-DSA (§5.4) is not offered. Key generation and signing run in time
// independent of the private key and seed, except for the number of signing
// attempts the rejection loop makes and the positions the samplers reject,
// neither of which says anything about the key (FIPS 204 accepts the former).
//
// Every function is thread-safe and allocates nothing: keys, messages and
// signatures are caller buffers, borrowed for the duration of the call. Stack
// use peaks in signing at about 110 KiB for ML-DSA-87, and at about 85 KiB in
// key generation and verification (the expanded matrix A, 56 KiB, in each).
// Key generation, signing and verification also return MC_ERR_UNSUPPORTED,
// writing nothing, when MSGCRYPT_IMPL selected the "unsupported"
// implementation (see "Implementations" below).

typedef enum {
  MC_MLDSA_44 = 1,
  MC_MLDSA_65,
  MC_MLDSA_87,
} mc_mldsa_level;

#define MC_MLDSA44_PUBLIC_KEY_LEN 1312
#define MC_MLDSA44_PRIVATE_KEY_LEN 2560
#define MC_MLDSA44_SIGNATURE_LEN 2420
#define MC_MLDSA65_PUBLIC_KEY_LEN 1952
#define MC_MLDSA65_PRIVATE_KEY_LEN 4032
#define MC_MLDSA65_SIGNATURE_LEN 3309
#define MC_MLDSA87_PUBLIC_KEY_LEN 2592
#define MC_MLDSA87_PRIVATE_KEY_LEN 4896
#define MC_MLDSA87_SIGNATURE_LEN 4627
// The largest sizes, for buffers that take any level.
#define MC_MLDSA_MAX_PUBLIC_KEY_LEN MC_MLDSA87_PUBLIC_KEY_LEN
#define MC_MLDSA_MAX_PRIVATE_KEY_LEN MC_MLDSA87_PRIVATE_KEY_LEN
#define MC_MLDSA_MAX_SIGNATURE_LEN MC_MLDSA87_SIGNATURE_LEN
// The key-generation seed ξ and the signing randomness rnd.
#define MC_MLDSA_SEED_LEN 32
#define MC_MLDSA_RND_LEN 32
// The longest context string.
#define MC_MLDSA_MAX_CONTEXT_LEN 255

// mc_mldsa_public_key_len returns the public key length of `level`, or 0 for
// an unknown level.
MC_API size_t mc_mldsa_public_key_len(mc_mldsa_level level);

// mc_mldsa_private_key_len returns the (expanded) private key length of
// `level`, or 0 for an unknown level.
MC_API size_t mc_mldsa_private_key_len(mc_mldsa_level level);

// mc_mldsa_signature_len returns the signature length of `level`, or 0 for an
// unknown level.
MC_API size_t mc_mldsa_signature_len(mc_mldsa_level level);

// mc_mldsa_keygen generates a key pair for `level` from a fresh seed taken
// from BoringSSL's RAND_bytes (ML-DSA.KeyGen, FIPS 204 Algorithm 1). It writes
// the public key to `out_public_key` and the private key to
// `out_private_key`, whose capacities `public_key_cap` and `private_key_cap`
// must hold mc_mldsa_public_key_len(level) and mc_mldsa_private_key_len(level)
// bytes. When `out_seed` is not NULL it receives the 32-byte seed ξ, from
// which mc_mldsa_keygen_from_seed recreates the same pair. The caller owns the
// secrets written and should wipe them after use. It returns 0, or
// MC_ERR_INVALID_ARGUMENT for an unknown level or NULL output,
// MC_ERR_BUFFER_TOO_SMALL when a capacity is short (nothing is written), or
// -EIO if the random generator fails.
MC_API MC_WARN_UNUSED_RESULT int mc_mldsa_keygen(mc_mldsa_level level, uint8_t *out_public_key,
                                                 size_t public_key_cap, uint8_t *out_private_key,
                                                 size_t private_key_cap,
                                                 uint8_t out_seed[MC_MLDSA_SEED_LEN]);

// mc_mldsa_keygen_from_seed derives the key pair of `level` from the 32-byte
// seed ξ `seed` (ML-DSA.KeyGen_internal, Algorithm 6): the same seed always
// gives the same pair. Outputs, capacities and errors are those of
// mc_mldsa_keygen, without -EIO.
MC_API MC_WARN_UNUSED_RESULT int
mc_mldsa_keygen_from_seed(mc_mldsa_level level, uint8_t *out_public_key, size_t public_key_cap,
                          uint8_t *out_private_key, size_t private_key_cap,
                          const uint8_t seed[MC_MLDSA_SEED_LEN]);

// mc_mldsa_sign signs `msg` (`msg_len` bytes, any length) with the private
// key `private_key` of `level` and the context string `context` (0 to 255
// bytes; NULL when `context_len` is 0), in the default hedged mode: ML-DSA.Sign
// (Algorithm 2) with 32 bytes of rnd from RAND_bytes. It writes
// mc_mldsa_signature_len(level) bytes to `out_sig`, whose capacity
// `out_sig_cap` must hold them. It returns 0, or MC_ERR_INVALID_ARGUMENT for
// an unknown level, NULL pointers with non-zero lengths or a context longer
// than 255 bytes, MC_ERR_BAD_KEY when `private_key_len` is not the level's
// private key length or the key is so malformed that signing does not finish
// within 1000 attempts (a valid key needs more with probability below
// 2^-300), MC_ERR_BUFFER_TOO_SMALL, or -EIO if the random generator fails. On
// error nothing is written to `out_sig`.
MC_API MC_WARN_UNUSED_RESULT int mc_mldsa_sign(mc_mldsa_level level, uint8_t *out_sig,
                                               size_t out_sig_cap, const uint8_t *private_key,
                                               size_t private_key_len, const uint8_t *msg,
                                               size_t msg_len, const uint8_t *context,
                                               size_t context_len);

// mc_mldsa_sign_deterministic is mc_mldsa_sign with rnd = 32 zero bytes, the
// deterministic variant of FIPS 204 §3.4: the same key, message and context
// always give the same signature. Hedged signing is preferred where fault
// attacks or weak randomness are a concern; this one serves reproducible
// output and tests. Errors as mc_mldsa_sign, without -EIO.
MC_API MC_WARN_UNUSED_RESULT int
mc_mldsa_sign_deterministic(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                            const uint8_t *private_key, size_t private_key_len, const uint8_t *msg,
                            size_t msg_len, const uint8_t *context, size_t context_len);

// mc_mldsa_sign_internal is ML-DSA.Sign_internal (Algorithm 7): it signs the
// already formatted message `formatted_msg` (M', for pure ML-DSA the bytes
// 0, |ctx|, ctx, then the message) with the given 32 bytes `rnd`. It exists
// for known-answer tests (NIST ACVP) and protocols that define M' themselves;
// everything else should use mc_mldsa_sign. Errors as
// mc_mldsa_sign_deterministic, `formatted_msg` may be NULL when
// `formatted_msg_len` is 0.
MC_API MC_WARN_UNUSED_RESULT int
mc_mldsa_sign_internal(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                       const uint8_t *private_key, size_t private_key_len,
                       const uint8_t *formatted_msg, size_t formatted_msg_len,
                       const uint8_t rnd[MC_MLDSA_RND_LEN]);

// mc_mldsa_verify checks that `sig` (`sig_len` bytes) is a signature of `msg`
// with context string `context` (0 to 255 bytes) under `public_key` of
// `level` (ML-DSA.Verify, Algorithm 3). It returns 0 when the signature is
// valid, MC_ERR_BAD_SIGNATURE when it does not verify or is malformed (wrong
// length, a hint encoding that FIPS 204 Algorithm 21 rejects, z out of range),
// MC_ERR_BAD_KEY when `public_key_len` is not the level's public key length,
// or MC_ERR_INVALID_ARGUMENT for an unknown level, NULL pointers with
// non-zero lengths or a context longer than 255 bytes. Every input is
// untrusted: any bytes give one of these results.
MC_API MC_WARN_UNUSED_RESULT int mc_mldsa_verify(mc_mldsa_level level, const uint8_t *public_key,
                                                 size_t public_key_len, const uint8_t *sig,
                                                 size_t sig_len, const uint8_t *msg, size_t msg_len,
                                                 const uint8_t *context, size_t context_len);

// mc_mldsa_verify_internal is ML-DSA.Verify_internal (Algorithm 8): it checks
// `sig` over the already formatted message `formatted_msg` (M'), the
// counterpart of mc_mldsa_sign_internal. Results as mc_mldsa_verify.
MC_API MC_WARN_UNUSED_RESULT int
mc_mldsa_verify_internal(mc_mldsa_level level, const uint8_t *public_key, size_t public_key_len,
                         const uint8_t *sig, size_t sig_len, const uint8_t *formatted_msg,
                         size_t formatted_msg_len);

// X448 and Ed448 (RFC 7748, RFC 8032).
//
// X448 is the Diffie-Hellman function on curve448 (RFC 7748 §5, §6.2). Ed448
// and Ed448ph are the EdDSA signatures on edwards448 (RFC 8032 §5.2), with a
// context string of up to 255 bytes (empty for plain Ed448). Keys and
// signatures are fixed-size byte strings in the RFCs' encodings; the caller
// checks the length of keys it parses before passing them here.
//
// libmsgcrypt uses these public keys to encrypt and to verify. The private-key
// functions (key generation, mc_x448, signing) exist for tests and for
// callers that hold their own keys; an Ed448 private key is the 57-byte seed
// of RFC 8032 §5.2.5. Generating a key pair from chosen bytes, the
// deterministic variant tests need, is mc_x448_public_key or
// mc_ed448_public_key on those bytes; signing is deterministic.
//
// The functions are thread-safe. They allocate nothing; the only shared state
// is a table of multiples of the base point that the first call needing it
// builds once per process (pthread_once). Outputs must not overlap inputs.
// Private-key operations run in time independent of secret data (private
// keys, secret scalars, signing nonces, shared secrets) and wipe the secret
// copies they make; verification handles public data only. Randomness comes
// from BoringSSL's RAND_bytes, which cannot fail (it aborts the process
// instead).

#define MC_X448_KEY_LEN 56
#define MC_ED448_PUBLIC_KEY_LEN 57
#define MC_ED448_PRIVATE_KEY_LEN 57
#define MC_ED448_SIGNATURE_LEN 114
// The longest context string RFC 8032 allows.
#define MC_ED448_MAX_CONTEXT_LEN 255
// The length of Ed448ph's pre-hash, SHAKE256(M, 64).
#define MC_ED448PH_DIGEST_LEN 64

// mc_x448_keypair generates an X448 key pair: a random MC_X448_KEY_LEN-byte
// private key in `out_private_key` and its public key X448(k, 5) in
// `out_public_key`. The caller owns the private key and should wipe it. It
// returns 0, or MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int mc_x448_keypair(uint8_t out_public_key[MC_X448_KEY_LEN],
                                                 uint8_t out_private_key[MC_X448_KEY_LEN]);

// mc_x448_public_key writes the public key X448(k, 5) of the private key
// `private_key` (any 56 bytes; RFC 7748 §5 clamps them) to `out_public_key`.
// It returns 0, or MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int mc_x448_public_key(uint8_t out_public_key[MC_X448_KEY_LEN],
                                                    const uint8_t private_key[MC_X448_KEY_LEN]);

// mc_x448 computes the shared secret X448(`private_key`, `peer_public_key`)
// of RFC 7748 §5 and writes its MC_X448_KEY_LEN bytes to `out_shared_secret`.
// Any 56-byte peer key is accepted as the RFC specifies (values at or above
// p are reduced, points on the twist are used as given), except that, as RFC
// 7748 §6.2 recommends checking, an all-zero result, which means the peer sent
// a point of small order, is an error. It returns 0, MC_ERR_BAD_KEY for an
// all-zero result (`out_shared_secret` is then all zeros), or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer. The function does not branch on
// the result; the caller's test of the status reveals only whether it was
// zero.
MC_API MC_WARN_UNUSED_RESULT int mc_x448(uint8_t out_shared_secret[MC_X448_KEY_LEN],
                                         const uint8_t private_key[MC_X448_KEY_LEN],
                                         const uint8_t peer_public_key[MC_X448_KEY_LEN]);

// mc_ed448_keypair generates an Ed448 key pair: a random
// MC_ED448_PRIVATE_KEY_LEN-byte private key in `out_private_key` and its
// public key in `out_public_key`. The caller owns the private key and should
// wipe it. It returns 0, or MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448_keypair(uint8_t out_public_key[MC_ED448_PUBLIC_KEY_LEN],
                 uint8_t out_private_key[MC_ED448_PRIVATE_KEY_LEN]);

// mc_ed448_public_key writes the public key A of the 57-byte private key
// `private_key` (RFC 8032 §5.2.5) to `out_public_key`. It returns 0, or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448_public_key(uint8_t out_public_key[MC_ED448_PUBLIC_KEY_LEN],
                    const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN]);

// mc_ed448_check_public_key decodes `public_key` strictly as RFC 8032 §5.2.3
// describes: the y-coordinate is below p, the unused bits 448..454 are zero,
// x is recoverable and the sign bit is not set for x = 0. Points of small
// order are accepted, as the RFC does. It returns 0 for a valid key,
// MC_ERR_BAD_KEY for an invalid one, or MC_ERR_INVALID_ARGUMENT for NULL.
// The verify functions apply the same check.
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448_check_public_key(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN]);

// mc_ed448_sign writes the Ed448 signature (RFC 8032 §5.2.6, phflag 0) of the
// `msg_len` bytes of `msg` under the context `ctx` of `ctx_len` bytes (0 to
// MC_ED448_MAX_CONTEXT_LEN; `ctx` may be NULL when empty) with the 57-byte
// `private_key` to `out_signature`. Signing is deterministic; the public key
// is recomputed from the private key, so a mismatched public key can never
// leak the private one. It returns 0, or MC_ERR_INVALID_ARGUMENT for a NULL
// pointer with a non-zero length, a NULL key or output, or a context longer
// than MC_ED448_MAX_CONTEXT_LEN; on error nothing is written.
MC_API MC_WARN_UNUSED_RESULT int mc_ed448_sign(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                                               const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN],
                                               const uint8_t *msg, size_t msg_len,
                                               const uint8_t *ctx, size_t ctx_len);

// mc_ed448_verify checks the `signature_len`-byte `signature` on the
// `msg_len` bytes of `msg` under the context `ctx` (`ctx_len` bytes, as for
// mc_ed448_sign) with `public_key` (RFC 8032 §5.2.7). It decodes strictly: a
// public key or R that is not the canonical encoding of a point, and S >= L,
// are rejected. It checks the cofactorless equation [S]B = R + [k]A, by
// recomputing R from S, k and A and comparing encodings: every signature an
// RFC 8032 signer makes passes, and so does every valid Wycheproof vector;
// signatures crafted with small-order components, which the cofactored
// check [4][S]B = [4]R + [4][k]A would admit, are rejected. It returns 0 for
// a valid signature, MC_ERR_BAD_SIGNATURE for an invalid one or a length
// other than MC_ED448_SIGNATURE_LEN, MC_ERR_BAD_KEY when `public_key` is not
// a valid point, or MC_ERR_INVALID_ARGUMENT as for mc_ed448_sign.
MC_API MC_WARN_UNUSED_RESULT int mc_ed448_verify(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN],
                                                 const uint8_t *signature, size_t signature_len,
                                                 const uint8_t *msg, size_t msg_len,
                                                 const uint8_t *ctx, size_t ctx_len);

// mc_ed448ph_sign writes the Ed448ph signature (RFC 8032 §5.2.6 with phflag 1
// and the message replaced by SHAKE256(msg, 64)) of `msg` under `ctx`.
// Parameters, results and errors as for mc_ed448_sign.
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448ph_sign(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN], const uint8_t *msg,
                size_t msg_len, const uint8_t *ctx, size_t ctx_len);

// mc_ed448ph_verify checks an Ed448ph signature on `msg` under `ctx`.
// Parameters, results and errors as for mc_ed448_verify.
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448ph_verify(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN], const uint8_t *signature,
                  size_t signature_len, const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                  size_t ctx_len);

// mc_ed448ph_sign_digest is mc_ed448ph_sign for a message already hashed to
// `digest` = SHAKE256(msg, 64), for example incrementally with mc_sha3_init
// (MC_SHAKE256), mc_sha3_update and mc_shake_squeeze. It returns 0, or
// MC_ERR_INVALID_ARGUMENT as for mc_ed448_sign (also for a NULL `digest`).
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448ph_sign_digest(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                       const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN],
                       const uint8_t digest[MC_ED448PH_DIGEST_LEN], const uint8_t *ctx,
                       size_t ctx_len);

// mc_ed448ph_verify_digest is mc_ed448ph_verify for a message already hashed
// to `digest` = SHAKE256(msg, 64). Results and errors as for mc_ed448_verify
// (MC_ERR_INVALID_ARGUMENT also for a NULL `digest`).
MC_API MC_WARN_UNUSED_RESULT int
mc_ed448ph_verify_digest(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN],
                         const uint8_t *signature, size_t signature_len,
                         const uint8_t digest[MC_ED448PH_DIGEST_LEN], const uint8_t *ctx,
                         size_t ctx_len);

// AES-OCB.
//
// OCB authenticated encryption (RFC 7253, "OCB3") over AES-128, AES-192 and
// AES-256, as OpenPGP's v2 SEIPD and v6 SKESK packets use it (RFC 9580
// §5.13.4): a nonce of 1 to 15 bytes (OpenPGP's are 15), a tag of 16 bytes
// (or 12 or 8, RFC 7253's other named parameter sets), and associated data and
// messages of any length up to MC_AES_OCB_MAX_INPUT_LEN each. One call seals
// or opens one whole message (an OpenPGP chunk is one message); there is no
// streaming interface. On x86-64 CPUs with AES-NI, OCB runs its own AES-NI
// loops, eight blocks in flight with the offsets folded into the round keys;
// elsewhere it drives BoringSSL's AES (ARMv8 or constant-time software) in
// batches of blocks through its ECB mode. OCB's own code has no branch or
// memory index that depends on a secret, and open decides and cleans up after
// a wrong tag without one.
//
// A context is a plain struct that the caller allocates (stack or heap) and
// prepares with mc_aes_ocb_init for one key and tag length; mc_aes_ocb_cleanup
// wipes it. With AES-NI the context holds the AES key schedule itself;
// elsewhere it owns BoringSSL's AES state on the heap. Either way a context
// must not be copied, and must be cleaned up. mc_aes_ocb_seal and
// mc_aes_ocb_open do not change a context, but
// BoringSSL does not promise that its cipher state is safe to share between
// threads: use a context from one thread at a time, and distinct contexts
// freely from distinct threads.

// MC_AES_OCB_TAG_LEN is the tag length OpenPGP uses and the default: 16 bytes.
#define MC_AES_OCB_TAG_LEN 16
#define MC_AES_OCB_MAX_TAG_LEN 16
#define MC_AES_OCB_MIN_NONCE_LEN 1
#define MC_AES_OCB_MAX_NONCE_LEN 15
// MC_AES_OCB_L_COUNT is how many of the key-dependent values L_0, L_1, ... a
// context precomputes; block i of a message uses L_ntz(i), so a message (or
// associated data) may have up to 2^MC_AES_OCB_L_COUNT - 1 whole blocks.
#define MC_AES_OCB_L_COUNT 32
// MC_AES_OCB_MAX_INPUT_LEN is the longest plaintext and the longest associated
// data that one call takes: 2^32 - 1 whole blocks and a partial one, 64 GiB - 1.
#define MC_AES_OCB_MAX_INPUT_LEN ((uint64_t)(((uint64_t)1 << (MC_AES_OCB_L_COUNT + 4)) - 1))

// mc_aes_ocb_ctx is an AES-OCB key prepared for use. Its fields are private.
typedef struct mc_aes_ocb_ctx {
  void *aes_enc;                     // BoringSSL's AES state, encryption (without AES-NI)
  void *aes_dec;                     // BoringSSL's AES state, decryption (without AES-NI)
  uint8_t round_keys[2][15][16];     // AES-NI round keys, encryption and decryption
  uint32_t rounds;                   // AES-NI rounds; 0 when BoringSSL's AES is used
  uint32_t tag_len;                  // bytes; 0 in a context not initialised
  uint8_t l_star[16];                // L_* = AES(K, zeros(128))
  uint8_t l_dollar[16];              // L_$ = double(L_*)
  uint8_t l[MC_AES_OCB_L_COUNT][16]; // L_i = double^(i+1)(L_$)
} mc_aes_ocb_ctx;

// mc_aes_ocb_init prepares `ctx` for the AES key `key` of `key_len` bytes (16,
// 24 or 32) and tags of `tag_len` bytes (16, 12 or 8). It copies what it needs
// from `key`, which the caller may wipe afterwards. It returns 0; or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer, another key or tag length; or
// -ENOMEM when BoringSSL cannot allocate its AES state (never with AES-NI,
// where nothing is allocated). On failure `ctx` is left zeroed, and
// mc_aes_ocb_cleanup on it is a no-op.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_ocb_init(mc_aes_ocb_ctx *ctx, const uint8_t *key,
                                                 size_t key_len, size_t tag_len);

// mc_aes_ocb_cleanup releases the BoringSSL state of `ctx` and wipes it. No-op
// on NULL and on a context that is zeroed or already cleaned up.
MC_API void mc_aes_ocb_cleanup(mc_aes_ocb_ctx *ctx);

// mc_aes_ocb_seal encrypts and authenticates `in_len` bytes of `in` with the
// nonce `nonce` (`nonce_len` bytes, 1 to 15) and the associated data `ad`
// (`ad_len` bytes, authenticated but not encrypted), and writes the ciphertext
// and then the tag, `in_len` + tag length bytes, to `out`, which has room for
// `out_cap` bytes; `*out_len` receives that length. A nonce must never be used
// twice with one key. `out` may be `in` (in-place) but may not otherwise
// overlap it; `in` and `ad` may be NULL when their length is 0. It returns 0;
// or MC_ERR_INVALID_ARGUMENT for a NULL pointer, a context not initialised, a
// nonce length out of range, or `in_len` or `ad_len` above
// MC_AES_OCB_MAX_INPUT_LEN; or MC_ERR_BUFFER_TOO_SMALL when `out_cap` is too
// small. On error nothing is written to `out`.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_ocb_seal(const mc_aes_ocb_ctx *ctx, uint8_t *out,
                                                 size_t out_cap, size_t *out_len,
                                                 const uint8_t *nonce, size_t nonce_len,
                                                 const uint8_t *in, size_t in_len,
                                                 const uint8_t *ad, size_t ad_len);

// mc_aes_ocb_open checks and decrypts `in`, a ciphertext followed by its tag
// (`in_len` bytes), made with the nonce `nonce` (`nonce_len` bytes, 1 to 15)
// and the associated data `ad` (`ad_len` bytes), writes the plaintext, `in_len`
// - tag length bytes, to `out`, which has room for `out_cap` bytes, and sets
// `*out_len` to that length. The tag is compared in constant time, and when it
// does not match the plaintext area of `out` is zeroed and `*out_len` set to 0,
// so that no unauthenticated plaintext is ever released. `out` may be `in` but
// may not otherwise overlap it. It returns 0; or MC_ERR_AUTH_FAILED when the
// tag does not match; or MC_ERR_BAD_CIPHERTEXT when `in_len` is shorter than a
// tag; or MC_ERR_INVALID_ARGUMENT or MC_ERR_BUFFER_TOO_SMALL as for
// mc_aes_ocb_seal (on those, `out` is untouched).
MC_API MC_WARN_UNUSED_RESULT int mc_aes_ocb_open(const mc_aes_ocb_ctx *ctx, uint8_t *out,
                                                 size_t out_cap, size_t *out_len,
                                                 const uint8_t *nonce, size_t nonce_len,
                                                 const uint8_t *in, size_t in_len,
                                                 const uint8_t *ad, size_t ad_len);

// Classical primitives over BoringSSL.
//
// A thin, uniform layer over BoringSSL for the classical algorithms that
// OpenPGP and CMS need, so that the rest of libmsgcrypt never calls BoringSSL
// directly: SHA-1 and SHA-2 digests, HKDF, random bytes, AES-CFB, AES-GCM, AES
// key wrap, RSA encryption (PKCS#1 v1.5 and OAEP) to a public key given as
// numbers, and ECDH on P-384 and P-521. ECDH on P-256 and X25519 sit behind
// the same calls but are libmsgcrypt's own constant-time code (the
// implementation table's kernels), not BoringSSL's.
//
// Every function is a one-shot call that writes to buffers the caller provides
// and keeps no state, so all of them are thread-safe. Symmetric keys are
// passed per call; secrets that pass through local buffers are wiped, and
// those inside BoringSSL's objects are freed by its cleansing free. The
// public-key functions let BoringSSL allocate its internal objects and return
// -ENOMEM when it cannot; the others allocate nothing. BoringSSL's error queue
// is always cleared before returning: failures surface only as the codes
// listed with each function. Big-endian byte strings stand for integers
// (moduli, exponents, scalars), as in OpenPGP's MPIs and in SEC 1.

// mc_hash_alg names a digest of the SHA-1 and SHA-2 families.
typedef enum {
  MC_HASH_SHA1 = 1,
  MC_HASH_SHA256,
  MC_HASH_SHA384,
  MC_HASH_SHA512,
} mc_hash_alg;

#define MC_SHA1_DIGEST_LEN 20
#define MC_SHA256_DIGEST_LEN 32
#define MC_SHA384_DIGEST_LEN 48
#define MC_SHA512_DIGEST_LEN 64
// The largest digest length, for buffers that take any mc_hash_alg digest.
#define MC_HASH_MAX_DIGEST_LEN 64

// mc_hash_digest_len returns the digest length of `alg` in bytes, or 0 for an
// unknown `alg`.
MC_API size_t mc_hash_digest_len(mc_hash_alg alg);

// mc_digest hashes `in_len` bytes of `in` (which may be NULL when `in_len` is
// 0) with `alg`, writes the digest to `out`, which has room for `out_cap`
// bytes, and sets `*out_len` to its length. It returns 0; or
// MC_ERR_INVALID_ARGUMENT for an unknown `alg` or a NULL pointer; or
// MC_ERR_BUFFER_TOO_SMALL when `out_cap` is below the digest length.
MC_API MC_WARN_UNUSED_RESULT int mc_digest(mc_hash_alg alg, uint8_t *out, size_t out_cap,
                                           size_t *out_len, const uint8_t *in, size_t in_len);

// mc_hkdf derives `out_len` bytes into `out` with HKDF (RFC 5869) over HMAC
// with `alg` (SHA-256, SHA-384 or SHA-512) from the input keying material
// `ikm`, the salt `salt` (an empty salt stands for zeros, as RFC 5869 says) and
// the context `info`; each input may be NULL when its length is 0. It returns
// 0; or MC_ERR_UNSUPPORTED for SHA-1; or MC_ERR_INVALID_ARGUMENT for an unknown
// `alg`, a NULL pointer, an `out_len` of 0 or above 255 times the digest
// length (RFC 5869 §2.3).
MC_API MC_WARN_UNUSED_RESULT int mc_hkdf(mc_hash_alg alg, uint8_t *out, size_t out_len,
                                         const uint8_t *ikm, size_t ikm_len, const uint8_t *salt,
                                         size_t salt_len, const uint8_t *info, size_t info_len);

// mc_random_bytes fills `out` with `out_len` bytes from BoringSSL's CSPRNG,
// for session keys, salts, nonces and IVs. It returns 0, or
// MC_ERR_INVALID_ARGUMENT when `out` is NULL and `out_len` is not 0.
MC_API MC_WARN_UNUSED_RESULT int mc_random_bytes(uint8_t *out, size_t out_len);

// AES keys for the functions below are 16, 24 or 32 bytes (AES-128, -192,
// -256); any other length gives MC_ERR_INVALID_ARGUMENT.
#define MC_AES_BLOCK_LEN 16

// mc_aes_cfb_encrypt encrypts `len` bytes of `in` into `out` (`len` bytes) with
// AES in full-block CFB mode (CFB128, NIST SP 800-38A) under `key` and the
// 16-byte `iv`; a last partial block is allowed. This is the mode of OpenPGP's
// v1 SEIPD packets (RFC 9580 §5.13.1), which use an all-zero IV and put their
// own random prefix in the plaintext. `out` may equal `in`. It returns 0, or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer or a bad key length.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_cfb_encrypt(uint8_t *out, const uint8_t *key,
                                                    size_t key_len, const uint8_t *iv,
                                                    const uint8_t *in, size_t len);

// mc_aes_cfb_decrypt reverses mc_aes_cfb_encrypt, with the same arguments and
// errors. CFB has no integrity: authenticate the plaintext by other means.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_cfb_decrypt(uint8_t *out, const uint8_t *key,
                                                    size_t key_len, const uint8_t *iv,
                                                    const uint8_t *in, size_t len);

// AES-GCM takes nonces of any non-zero length; 12 bytes is the standard size
// and the only one to use for new messages. Tags are always 16 bytes.
#define MC_AES_GCM_NONCE_LEN 12
#define MC_AES_GCM_TAG_LEN 16

// mc_aes_gcm_seal encrypts and authenticates `in_len` bytes of `in` with AES-GCM
// (NIST SP 800-38D) under `key`, the nonce `nonce` (`nonce_len` bytes) and the
// associated data `ad`, and writes the ciphertext followed by the 16-byte tag
// to `out`, which has room for `out_cap` bytes; `*out_len` receives `in_len` +
// 16. A nonce must never be used twice with one key. `out` may equal `in`;
// `in` and `ad` may be NULL when their length is 0. It returns 0; or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer, a bad key length or an empty
// nonce; or MC_ERR_BUFFER_TOO_SMALL when `out_cap` is too small.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_gcm_seal(uint8_t *out, size_t out_cap, size_t *out_len,
                                                 const uint8_t *key, size_t key_len,
                                                 const uint8_t *nonce, size_t nonce_len,
                                                 const uint8_t *in, size_t in_len,
                                                 const uint8_t *ad, size_t ad_len);

// mc_aes_gcm_open checks and decrypts `in` (ciphertext followed by its 16-byte
// tag, `in_len` bytes) and writes the plaintext, `in_len` - 16 bytes, to `out`,
// which has room for `out_cap` bytes; `*out_len` receives its length. On a
// wrong tag nothing is released: the plaintext area of `out` is zeroed and
// `*out_len` set to 0. `out` may equal `in`. It returns 0; or
// MC_ERR_AUTH_FAILED for a wrong tag; or MC_ERR_BAD_CIPHERTEXT when `in_len`
// is below 16; or MC_ERR_INVALID_ARGUMENT or MC_ERR_BUFFER_TOO_SMALL as for
// mc_aes_gcm_seal.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_gcm_open(uint8_t *out, size_t out_cap, size_t *out_len,
                                                 const uint8_t *key, size_t key_len,
                                                 const uint8_t *nonce, size_t nonce_len,
                                                 const uint8_t *in, size_t in_len,
                                                 const uint8_t *ad, size_t ad_len);

// AES key wrap (RFC 3394) wraps keys of 16 bytes or more, in multiples of 8
// bytes, into 8 more bytes; the 8-byte single-block case is not supported.
#define MC_AES_KW_OVERHEAD 8
#define MC_AES_KW_MIN_KEY_DATA_LEN 16
// The longest key data wrapped or unwrapped in one call.
#define MC_AES_KW_MAX_KEY_DATA_LEN 65536

// mc_aes_kw_wrap wraps `in_len` bytes of key data `in` under the key-encryption
// key `kek` with RFC 3394's default IV, and writes `in_len` + 8 bytes to `out`,
// which has room for `out_cap` bytes; `*out_len` receives that length. It
// returns 0; or MC_ERR_INVALID_ARGUMENT for a NULL pointer, a bad key length,
// or an `in_len` that is not a multiple of 8 from 16 to
// MC_AES_KW_MAX_KEY_DATA_LEN; or MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_kw_wrap(uint8_t *out, size_t out_cap, size_t *out_len,
                                                const uint8_t *kek, size_t kek_len,
                                                const uint8_t *in, size_t in_len);

// mc_aes_kw_unwrap unwraps `in` (`in_len` bytes) under `kek`, checks RFC 3394's
// integrity value, and writes the `in_len` - 8 bytes of key data to `out`,
// which has room for `out_cap` bytes; `*out_len` receives that length. It
// returns 0; or MC_ERR_AUTH_FAILED when the integrity check fails (then the
// key-data area of `out` is zeroed); or MC_ERR_BAD_CIPHERTEXT when `in_len` is
// not a multiple of 8 from 24 to MC_AES_KW_MAX_KEY_DATA_LEN + 8; or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer or a bad key length; or
// MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_aes_kw_unwrap(uint8_t *out, size_t out_cap, size_t *out_len,
                                                  const uint8_t *kek, size_t kek_len,
                                                  const uint8_t *in, size_t in_len);

// RSA public keys are given as their modulus n and public exponent e,
// big-endian with leading zero bytes allowed. The modulus has
// MC_RSA_MIN_MODULUS_BITS to MC_RSA_MAX_MODULUS_BITS bits; the exponent is odd,
// at least 3 and at most 33 bits (BoringSSL's bound). A ciphertext is always
// exactly as long as the modulus in bytes, leading zeros included.
#define MC_RSA_MIN_MODULUS_BITS 1024
#define MC_RSA_MAX_MODULUS_BITS 16384
#define MC_RSA_MAX_MODULUS_LEN (MC_RSA_MAX_MODULUS_BITS / 8)

// mc_rsa_encrypt_pkcs1 encrypts `in_len` bytes of `in` to the public key
// (`modulus`, `exponent`) with RSAES-PKCS1-v1_5 (RFC 8017 §7.2; OpenPGP's RSA,
// RFC 9580 §5.1.3, and CMS's rsaEncryption), writes the ciphertext to `out`,
// which has room for `out_cap` bytes, and sets `*out_len` to the modulus length
// in bytes. `in_len` may be at most that length - 11. It returns 0; or
// MC_ERR_BAD_KEY for a modulus or exponent that is out of range or malformed;
// or MC_ERR_INVALID_ARGUMENT for a NULL pointer or a message too long; or
// MC_ERR_BUFFER_TOO_SMALL; or -ENOMEM.
MC_API MC_WARN_UNUSED_RESULT int mc_rsa_encrypt_pkcs1(uint8_t *out, size_t out_cap, size_t *out_len,
                                                      const uint8_t *modulus, size_t modulus_len,
                                                      const uint8_t *exponent, size_t exponent_len,
                                                      const uint8_t *in, size_t in_len);

// mc_rsa_encrypt_oaep encrypts like mc_rsa_encrypt_pkcs1 but with RSAES-OAEP
// (RFC 8017 §7.1; CMS, RFC 8017 and RFC 4055), with `alg` as both the OAEP hash
// and MGF1's hash (SHA-1 for the classic parameters, SHA-256 for RFC 4055's
// recommended ones; SHA-384 and SHA-512 also work) and the label `label`
// (`label_len` bytes, usually empty; NULL when empty). `in_len` may be at most
// the modulus length - 2 * digest length - 2. Errors as for
// mc_rsa_encrypt_pkcs1, plus MC_ERR_INVALID_ARGUMENT for an unknown `alg`.
MC_API MC_WARN_UNUSED_RESULT int mc_rsa_encrypt_oaep(mc_hash_alg alg, uint8_t *out, size_t out_cap,
                                                     size_t *out_len, const uint8_t *modulus,
                                                     size_t modulus_len, const uint8_t *exponent,
                                                     size_t exponent_len, const uint8_t *label,
                                                     size_t label_len, const uint8_t *in,
                                                     size_t in_len);

// mc_ec_curve names a NIST prime curve for ECDH.
typedef enum {
  MC_EC_P256 = 1,
  MC_EC_P384,
  MC_EC_P521,
} mc_ec_curve;

// Lengths of a field element, which is also the length of a private scalar and
// of an ECDH shared secret (the x-coordinate), and of an uncompressed SEC 1
// point (0x04 || x || y), per curve.
#define MC_EC_P256_FIELD_LEN 32
#define MC_EC_P384_FIELD_LEN 48
#define MC_EC_P521_FIELD_LEN 66
#define MC_EC_P256_POINT_LEN 65
#define MC_EC_P384_POINT_LEN 97
#define MC_EC_P521_POINT_LEN 133
#define MC_EC_MAX_FIELD_LEN 66
#define MC_EC_MAX_POINT_LEN 133

// mc_ec_field_len returns the field-element length of `curve` in bytes, or 0
// for an unknown `curve`.
MC_API size_t mc_ec_field_len(mc_ec_curve curve);

// mc_ec_point_len returns the uncompressed point length of `curve` in bytes,
// or 0 for an unknown `curve`.
MC_API size_t mc_ec_point_len(mc_ec_curve curve);

// mc_ecdh_ephemeral does the sender's half of ECDH on `curve` with the
// recipient's public point `peer_public` (`peer_public_len` bytes, SEC 1
// uncompressed or compressed; it must lie on the curve and not be the point at
// infinity): it makes a random ephemeral key pair, writes its public point,
// uncompressed (mc_ec_point_len bytes), to `out_public`, which has room for
// `out_public_cap` bytes, and the shared secret, the x-coordinate of the
// product (mc_ec_field_len bytes), to `out_shared` (room for `out_shared_cap`
// bytes). The ephemeral private key is wiped. It returns 0; or MC_ERR_BAD_KEY
// when `peer_public` is malformed or not on the curve; or
// MC_ERR_INVALID_ARGUMENT for an unknown `curve` or a NULL pointer; or
// MC_ERR_BUFFER_TOO_SMALL; or -ENOMEM. P-256 is libmsgcrypt's own code, with
// the implementation table's kernels (mc_impl_name), constant time in the
// private key; it also returns MC_ERR_UNSUPPORTED when MSGCRYPT_IMPL selected
// the "unsupported" implementation. On x86-64 with ADX each thread keeps its
// last P-256 peer point and, once that point comes twice in a row, a
// 53,248-byte table of its multiples (heap, freed at thread exit), which
// makes each further call with it about three times faster; the time then
// shows whether the public peer point repeated.
MC_API MC_WARN_UNUSED_RESULT int mc_ecdh_ephemeral(mc_ec_curve curve, uint8_t *out_public,
                                                   size_t out_public_cap, uint8_t *out_shared,
                                                   size_t out_shared_cap,
                                                   const uint8_t *peer_public,
                                                   size_t peer_public_len);

// mc_ecdh_ephemeral_derand is mc_ecdh_ephemeral with the ephemeral private
// scalar given in `scalar` (`scalar_len` bytes, big-endian, leading zeros
// allowed, a value from 1 to the group order - 1) instead of drawn at random:
// for tests and known-answer checks only. It also computes a static ECDH
// shared secret when `scalar` is a long-term key. Errors as for
// mc_ecdh_ephemeral, plus MC_ERR_BAD_KEY for a scalar out of range.
MC_API MC_WARN_UNUSED_RESULT int
mc_ecdh_ephemeral_derand(mc_ec_curve curve, uint8_t *out_public, size_t out_public_cap,
                         uint8_t *out_shared, size_t out_shared_cap, const uint8_t *scalar,
                         size_t scalar_len, const uint8_t *peer_public, size_t peer_public_len);

// X25519 (RFC 7748) keys and shared secrets are 32 bytes. The functions
// mirror mc_x448_keypair, mc_x448_public_key and mc_x448. Like ECDH on
// P-256, and unlike the rest of this section, X25519 is libmsgcrypt's own
// code, with the implementation table's kernels (mc_impl_name), constant
// time in the private key. On x86-64 with ADX each thread keeps its last
// peer key and, once that key comes twice in a row, a 24 KiB table of its
// multiples in thread-local storage, which makes further shared secrets
// with it about three times faster (a server encrypting one mail after
// another to the same recipient); the time then shows whether the public
// peer key repeated.
#define MC_X25519_KEY_LEN 32

// mc_x25519_keypair makes a random X25519 key pair: the private key into
// `out_private_key` and its public key into `out_public_key` (32 bytes each).
// The caller owns the private key and should wipe it. It returns 0, or
// MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int mc_x25519_keypair(uint8_t out_public_key[MC_X25519_KEY_LEN],
                                                   uint8_t out_private_key[MC_X25519_KEY_LEN]);

// mc_x25519_public_key writes the public key X25519(k, 9) of the 32-byte
// private key `private_key` (RFC 7748 §5 clamps it) to `out_public_key`. It
// returns 0, or MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int mc_x25519_public_key(uint8_t out_public_key[MC_X25519_KEY_LEN],
                                                      const uint8_t private_key[MC_X25519_KEY_LEN]);

// mc_x25519 computes the shared secret X25519(`private_key`, `peer_public_key`)
// of RFC 7748 §5 into `out_shared_secret`. Any 32-byte peer key is accepted as
// the RFC specifies, except that an all-zero result (the peer sent a point of
// small order; RFC 7748 §6.1's check) is an error. It returns 0; or
// MC_ERR_BAD_KEY for an all-zero result (`out_shared_secret` is then all
// zeros); or MC_ERR_INVALID_ARGUMENT for a NULL pointer.
MC_API MC_WARN_UNUSED_RESULT int mc_x25519(uint8_t out_shared_secret[MC_X25519_KEY_LEN],
                                           const uint8_t private_key[MC_X25519_KEY_LEN],
                                           const uint8_t peer_public_key[MC_X25519_KEY_LEN]);

// Self-tests.
//
// Known-answer tests of every algorithm in this library, for a power-on or
// on-demand check that the code in this process computes what the standards
// say (msgcrypt selftest runs them). Each self-test calls the public entry
// points of one algorithm on inputs from an official source (FIPS 202 and
// FIPS 180 examples, NIST ACVP cases, RFC 7748, 8032, 7253, 5869, 3394, 5903,
// SP 800-38A, the GCM specification, Wycheproof), compares the outputs with
// the published values (large ones through their SHA3-256 digests), and
// checks the failures that must happen: a forged tag or tampered wrapping is
// refused, a flipped signature does not verify, a small-order or off-curve
// peer key is rejected. AES-OCB is tested once per implementation (AES-NI
// loops and BoringSSL's AES), whichever mc_aes_ocb_init would pick.
//
// The self-tests are numbered from 0 to mc_selftest_count() - 1; the order
// and the names are stable within a version. They keep no state and are
// thread-safe. They allocate nothing themselves; the BoringSSL-backed
// algorithms they call (RSA, ECDH, AES-OCB without AES-NI) allocate as those
// functions always do. One run takes a few milliseconds per test and up to
// about 130 KiB of stack (ML-DSA-87 signing).

// mc_selftest_count returns the number of self-tests.
MC_API size_t mc_selftest_count(void);

// mc_selftest_name returns the static name of self-test `i`, the algorithm it
// covers (e.g. "ML-KEM-768", "AES-OCB/AES-NI"), or NULL when `i` is not below
// mc_selftest_count().
MC_API const char *mc_selftest_name(size_t i);

// mc_selftest_detail returns a static, short description of what self-test
// `i` checks (e.g. "keygen, encaps, decaps, implicit rejection"), or NULL
// when `i` is not below mc_selftest_count().
MC_API const char *mc_selftest_detail(size_t i);

// mc_selftest_run runs self-test `i`. It returns 0 when every check passed;
// MC_ERR_SELFTEST when one failed (the algorithm computes a wrong answer and
// must not be used); MC_ERR_UNSUPPORTED when the code path it tests cannot
// run on this CPU (AES-OCB/AES-NI without AES-NI), which is not a failure;
// -ENOMEM when BoringSSL could not allocate; or MC_ERR_INVALID_ARGUMENT when
// `i` is not below mc_selftest_count().
MC_API MC_WARN_UNUSED_RESULT int mc_selftest_run(size_t i);

// mc_selftest_all runs every self-test in order and stops at the first that
// fails. It returns 0 when none failed (MC_ERR_UNSUPPORTED results are
// skipped, not failures), or the failing test's result from mc_selftest_run,
// and then stores its number in `*failed_index` unless `failed_index` is
// NULL.
MC_API MC_WARN_UNUSED_RESULT int mc_selftest_all(size_t *failed_index);

// Implementations.
//
// ML-KEM and ML-DSA run their hot kernels (Keccak-f[1600], four states at a
// time for the samplers; the NTTs, inverse NTTs and products) on one
// implementation chosen once, at first use: the first of mc_impl_get(0),
// mc_impl_get(1), ... that this CPU supports ("avx2", then "scalar" on
// x86-64; "scalar" elsewhere). "scalar" is the specification that every
// other implementation is tested against; all compute the same bytes, and
// all are constant time in the same sense. The environment variable
// MSGCRYPT_IMPL=<name>, read at first use, forces one; a name that is
// unknown or not supported by the CPU selects "unsupported", whose ML-KEM
// and ML-DSA calls (keygen, encapsulation, decapsulation, signing,
// verification) all return MC_ERR_UNSUPPORTED, so that a misconfigured test
// or benchmark fails instead of silently measuring something else. Other
// functions (SHA-3, AES-OCB, X448, Ed448, ...) do not depend on this choice.

// mc_impl_name returns the name of the implementation in use (a static
// string), choosing it first if needed. Thread-safe.
MC_API const char *mc_impl_name(void);

// mc_impl_count returns the number of implementations compiled into this
// library, whether or not the CPU supports them. Thread-safe.
MC_API size_t mc_impl_count(void);

// mc_impl_get returns the name (a static string) of implementation `index`,
// in priority order, or NULL when `index` >= mc_impl_count(). If `supported`
// is not NULL, it is set to 1 when this CPU can run it and 0 otherwise.
// Thread-safe.
MC_API const char *mc_impl_get(size_t index, int *supported);

// mc_impl_force makes `name` the implementation in use, or returns to the
// automatic choice (ignoring MSGCRYPT_IMPL) when `name` is NULL. It returns 0,
// or MC_ERR_UNSUPPORTED when `name` is unknown or the CPU cannot run it; the
// choice is then left unchanged. Thread-safe, but meant for tests and
// benchmarks: calls already running finish on the previous implementation.
MC_API MC_WARN_UNUSED_RESULT int mc_impl_force(const char *name);

// OpenPGP certificates (RFC 9580, RFC 9980).
//
// Reading the public keys of mail recipients: transferable public keys
// (certificates), armored or binary, one or many per input, key versions 4
// and 6. Every self-signature, subkey binding signature, primary-key binding
// back-signature, direct-key signature and revocation made by the primary key
// is verified; a signature that does not verify, uses an unknown critical
// subpacket or lies in the future is ignored, never trusted. From the
// verified signatures come the validity period, revocation, key flags, user
// IDs and announced preferences, and from those the encryption subkeys that
// are valid at the caller's `now`. Where a certificate has both classical and
// post-quantum (ML-KEM) encryption subkeys, only the post-quantum ones are
// selected. Keys in algorithms this library cannot use (Elgamal, DSA,
// Brainpool curves, SLH-DSA, ...) are parsed and reported with the reason.
//
// Supported: RSA (2048-8192 bits for use), ECDH and ECDSA on NIST P-256,
// P-384 and P-521, the legacy Curve25519 ECDH and Ed25519 EdDSA formats of
// GnuPG, X25519, X448, Ed25519, Ed448, ML-KEM-768+X25519, ML-KEM-1024+X448,
// ML-DSA-65+Ed25519 and ML-DSA-87+Ed448; hashes SHA-1 (flagged weak),
// SHA-224/256/384/512 and SHA3-256/512.
//
// A parsed set of certificates, mc_pgp_certs, owns a copy of the decoded
// input, so the caller's buffer may be freed after parsing; everything the
// accessors return points into the set and lives until mc_pgp_certs_free.
// Parsing is thread-safe; a parsed set is immutable, so its accessors may be
// called from several threads at once.

typedef struct mc_pgp_certs mc_pgp_certs;
typedef struct mc_pgp_cert mc_pgp_cert;

// Default limits, each used where the field of mc_pgp_settings is 0.
#define MC_PGP_DEFAULT_MAX_INPUT_LEN ((size_t)16 << 20)
#define MC_PGP_DEFAULT_MAX_PACKET_LEN ((size_t)1 << 20)
#define MC_PGP_DEFAULT_MAX_PACKETS 16384
#define MC_PGP_DEFAULT_MAX_CERTS 256
#define MC_PGP_DEFAULT_MAX_USER_IDS 64
#define MC_PGP_DEFAULT_MAX_SUBKEYS 64
#define MC_PGP_DEFAULT_MAX_SIGNATURES 4096
#define MC_PGP_DEFAULT_MAX_ARMOR_LINE_LEN 1024

// mc_pgp_settings carries the limits of mc_pgp_certs_parse; 0 in any field
// means its MC_PGP_DEFAULT_* value. Start from MC_PGP_SETTINGS_INIT.
typedef struct mc_pgp_settings {
  uint32_t version;          // 1
  size_t max_input_len;      // bytes of input, armored or binary
  size_t max_packet_len;     // body of one packet
  size_t max_packets;        // packets in the whole input
  size_t max_certs;          // certificates in the input
  size_t max_user_ids;       // user IDs and attributes per certificate
  size_t max_subkeys;        // subkeys per certificate
  size_t max_signatures;     // signature packets per certificate
  size_t max_armor_line_len; // one line of ASCII armor, without its end
} mc_pgp_settings;

#define MC_PGP_SETTINGS_INIT                                                                       \
  { 1, 0, 0, 0, 0, 0, 0, 0, 0 }

// mc_pgp_diag receives the reason a parse failed: the error code, the byte
// offset in the (decoded) input where it was found and a NUL-terminated
// sentence.
typedef struct mc_pgp_diag {
  int code;
  size_t offset;
  char message[160];
} mc_pgp_diag;

// mc_pgp_certs_parse reads every certificate of `in` (`in_len` bytes): ASCII
// armor (one or more "PGP PUBLIC KEY BLOCK"s; the CRC-24, when present, must
// match; text around the blocks is ignored) or binary packets: input whose
// first byte has its top bit set is binary. A Public-Key packet starts each
// certificate. Marker, Trust, Padding and
// unknown non-critical packets (type IDs 40-63) are skipped, as RFC 9580
// §4.3 requires; so are user attributes, subkeys of unknown version and
// signatures of unknown version. Validity is judged at `now` (seconds since
// the epoch), which tests fix. `settings` may be NULL for the defaults;
// `diag` may be NULL. On success `*out` receives a new set, which the caller
// frees with mc_pgp_certs_free; it holds at least one certificate, though
// some may have no usable encryption subkey (see mc_pgp_cert_num_recipients).
// It returns 0; or MC_ERR_BAD_KEY for input that is not a certificate
// (garbage, a bad armor checksum, a truncated packet, an oversized length,
// a packet sequence that does not start with a public key, an unknown
// critical packet, a key that cannot be parsed) or that exceeds a limit;
// or MC_ERR_UNSUPPORTED for a secret key or a certificate whose primary key
// has an unknown version; or MC_ERR_INVALID_ARGUMENT for NULL `out` or `in`
// or a settings version other than 1; or -ENOMEM.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_certs_parse(mc_pgp_certs **out,
                                                    const mc_pgp_settings *settings,
                                                    mc_pgp_diag *diag, const uint8_t *in,
                                                    size_t in_len, int64_t now);

// mc_pgp_certs_free frees `certs` and everything it owns. No-op on NULL.
MC_API void mc_pgp_certs_free(mc_pgp_certs *certs);

// mc_pgp_certs_count returns the number of certificates in `certs`.
MC_API size_t mc_pgp_certs_count(const mc_pgp_certs *certs);

// mc_pgp_certs_get returns certificate `i` of `certs` (in input order),
// borrowed from `certs`, or NULL when `i` is out of range.
MC_API const mc_pgp_cert *mc_pgp_certs_get(const mc_pgp_certs *certs, size_t i);

// mc_pgp_cert_version returns the primary key's version, 4 or 6.
MC_API int mc_pgp_cert_version(const mc_pgp_cert *cert);

// mc_pgp_cert_fingerprint returns the primary key's fingerprint (20 bytes
// SHA-1 for v4, 32 bytes SHA-256 for v6) and stores its length in `*out_len`.
MC_API const uint8_t *mc_pgp_cert_fingerprint(const mc_pgp_cert *cert, size_t *out_len);

// MC_PGP_FPR_HEX_LEN is room for any fingerprint in hex with its NUL.
#define MC_PGP_FPR_HEX_LEN 65

// mc_pgp_cert_fingerprint_hex writes the fingerprint in upper-case hex (40
// or 64 digits, the form GnuPG and RFC 9580 print) and a NUL to `out`,
// which has room for `out_cap` bytes. It returns 0 or
// MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_cert_fingerprint_hex(const mc_pgp_cert *cert, char *out,
                                                             size_t out_cap);

// mc_pgp_cert_creation_time returns the primary key's creation time.
MC_API int64_t mc_pgp_cert_creation_time(const mc_pgp_cert *cert);

// mc_pgp_cert_expiration_time returns when the certificate expires by its
// verified self-signatures (seconds since the epoch), or 0 when it does not.
MC_API int64_t mc_pgp_cert_expiration_time(const mc_pgp_cert *cert);

// mc_pgp_cert_is_revoked returns 1 when a verified revocation of the primary
// key exists, else 0.
MC_API int mc_pgp_cert_is_revoked(const mc_pgp_cert *cert);

// mc_pgp_cert_num_user_ids returns how many user IDs of `cert` carry a
// verified, unrevoked self-certification valid at `now`.
MC_API size_t mc_pgp_cert_num_user_ids(const mc_pgp_cert *cert);

// mc_pgp_cert_user_id returns the `i`-th such user ID (UTF-8 as the key
// holds it, not NUL-terminated) and stores its length in `*out_len`, or
// returns NULL when `i` is out of range.
MC_API const char *mc_pgp_cert_user_id(const mc_pgp_cert *cert, size_t i, size_t *out_len);

// mc_pgp_cert_num_recipients returns the number of encryption subkeys
// selected for encryption at `now`: valid (bound, unexpired, unrevoked, of
// a valid primary key), flagged for encryption and of a supported
// algorithm; post-quantum ones only when there are any. 0 means the
// certificate cannot receive mail.
MC_API size_t mc_pgp_cert_num_recipients(const mc_pgp_cert *cert);

// MC_PGP_FEATURE_SEIPDV1 and MC_PGP_FEATURE_SEIPDV2 are the bits of the
// Features subpacket (RFC 9580 §5.2.3.32) for the two encrypted-data
// formats a key holder's software can read.
#define MC_PGP_FEATURE_SEIPDV1 0x01u
#define MC_PGP_FEATURE_SEIPDV2 0x08u

// mc_pgp_cert_features returns the first octet of the Features subpacket
// of the certificate's verified self-signatures (the direct-key signature
// for v6, the primary user ID's for v4, each falling back to the other), or
// 0 when none announces features.
MC_API unsigned mc_pgp_cert_features(const mc_pgp_cert *cert);

// mc_pgp_cert_pref_symmetric points `*out` at the preferred symmetric
// algorithms (RFC 9580 §9.3 IDs, most preferred first) from the same
// signatures and returns their number (at most 16), or 0 and NULL when
// none are announced. The array lives as long as the set.
MC_API size_t mc_pgp_cert_pref_symmetric(const mc_pgp_cert *cert, const uint8_t **out);

// mc_pgp_cert_pref_aead points `*out` at the preferred AEAD ciphersuites
// (pairs of symmetric ID and AEAD ID, RFC 9580 §5.2.3.15) and returns the
// number of pairs (at most 16), or 0 and NULL when none are announced.
MC_API size_t mc_pgp_cert_pref_aead(const mc_pgp_cert *cert, const uint8_t **out);

// mc_pgp_cert_describe writes a one-line plain description, such as
// "OpenPGP v6: ML-KEM-1024+X448" or "OpenPGP v4: RSA-4096 (encryption subkey
// RSA-4096)", with a NUL to `out` (room for `out_cap` bytes) and its length
// without the NUL to `*out_len`. It returns 0 or MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_cert_describe(const mc_pgp_cert *cert, char *out,
                                                      size_t out_cap, size_t *out_len);

// Warnings about a certificate. The numbers and names are stable.
typedef enum {
  MC_PGP_WARN_EXPIRES_SOON = 1,    // "expires-soon": within 14 days of `now`
  MC_PGP_WARN_EXPIRED = 2,         // "expired"
  MC_PGP_WARN_REVOKED = 3,         // "revoked"
  MC_PGP_WARN_RSA_SHORT = 4,       // "rsa-short": RSA below 3072 bits
  MC_PGP_WARN_NO_ADDRESS = 5,      // "no-address-match"
  MC_PGP_WARN_LIMITED_SUPPORT = 6, // "limited-support": v6 or post-quantum
  MC_PGP_WARN_NO_ENCRYPTION = 7,   // "no-encryption-key"
  MC_PGP_WARN_WEAK_ALGORITHM = 8,  // "weak-algorithm": SHA-1, RSA < 2048, ...
  MC_PGP_WARN_UNSUPPORTED = 9,     // "unsupported-algorithm": parsed, unusable
  MC_PGP_WARN_BAD_SIGNATURE = 10,  // "bad-signature": ignored signatures
} mc_pgp_warn_code;

// The most warnings one certificate can produce.
#define MC_PGP_MAX_WARNINGS 16

// mc_pgp_warning is one warning: its code, its static name and a sentence
// for people that names the particular key, algorithm or date.
typedef struct mc_pgp_warning {
  mc_pgp_warn_code code;
  const char *name;
  char text[200];
} mc_pgp_warning;

// mc_pgp_warn_name returns the stable static name of `code` ("expired",
// ...), or "unknown".
MC_API const char *mc_pgp_warn_name(mc_pgp_warn_code code);

// mc_pgp_cert_warnings writes the warnings about `cert` to `out` (room for
// `out_cap`, MC_PGP_MAX_WARNINGS is always enough) and their number to
// `*out_len`. The dates are judged at the `now` given to mc_pgp_certs_parse.
// When `num_addresses` is not 0, MC_PGP_WARN_NO_ADDRESS is reported unless
// a valid user ID holds one of the `addresses` (compared without regard to
// ASCII case, inside <...> or as the whole user ID). It returns 0, or
// MC_ERR_BUFFER_TOO_SMALL (then `*out_len` is the number needed), or
// MC_ERR_INVALID_ARGUMENT for NULL pointers.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_cert_warnings(const mc_pgp_cert *cert, mc_pgp_warning *out,
                                                      size_t out_cap, size_t *out_len,
                                                      const char *const *addresses,
                                                      size_t num_addresses);

// mc_pgp_cert_num_keys returns the number of keys in `cert`, the primary key
// first, then every subkey in input order.
MC_API size_t mc_pgp_cert_num_keys(const mc_pgp_cert *cert);

// mc_pgp_key_info describes one key of a certificate.
typedef struct mc_pgp_key_info {
  int version;          // 4 or 6
  int algorithm;        // RFC 9580/9980 public-key algorithm ID
  unsigned bits;        // RSA modulus size, else the curve's size
  const char *name;     // "RSA-4096", "ECDH P-256", "ML-KEM-768+X25519"
  const char *unusable; // static reason the algorithm cannot be used, or NULL
  uint8_t fingerprint[32];
  size_t fingerprint_len;
  int64_t created;
  int64_t expires; // 0: never (for subkeys: by the binding signature)
  unsigned flags;  // key flags of the verified binding (first octet)
  int valid;       // 1 when bound by a verified signature, unexpired
                   // and unrevoked at `now`
  int revoked;
  int recipient; // 1 when selected for encryption
} mc_pgp_key_info;

// mc_pgp_cert_key_info fills `*out` for key `i` of `cert` (0 is the primary
// key). `name` lives as long as the set; `unusable` is static. It returns 0, or
// MC_ERR_INVALID_ARGUMENT when `i` is out of range.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_cert_key_info(const mc_pgp_cert *cert, size_t i,
                                                      mc_pgp_key_info *out);

// OpenPGP encryption.
//
// Encrypts a message to the public keys of its recipients as an OpenPGP
// message (RFC 9580, RFC 9980): one Public-Key Encrypted Session Key packet
// per recipient key, then the plaintext as a Literal Data packet inside a
// Symmetrically Encrypted and Integrity Protected Data packet, without
// compression. The format follows what the keys announce: SEIPDv2 (AEAD in
// chunks, with v6 PKESKs) only when every key's Features announce it, with
// AES-OCB unless every key ranks AES-GCM above OCB in its AEAD ciphersuite
// preferences; otherwise SEIPDv1 (AES-CFB with a SHA-1 MDC, v3 PKESKs).
// The cipher is AES-256 when every key accepts it, otherwise the strongest
// AES that all accept (AES-128 being accepted by every key), and always
// AES-256 when any recipient is post-quantum. Key types: RSA (PKCS#1 v1.5),
// ECDH on P-256, P-384, P-521 and the legacy Curve25519 form, X25519, X448,
// ML-KEM-768+X25519 and ML-KEM-1024+X448.
//
// The encryptor streams: it writes its output through the caller's write
// callback as input arrives and holds a fixed amount of memory (about 300
// KiB) whatever the message length. Packets of unknown length use partial
// body lengths. Session keys, key-encryption keys and shared secrets are
// wiped once used. An encryptor is not thread-safe; distinct encryptors may
// run in distinct threads.

// mc_pgp_write_fn receives `len` bytes of output at `data` (valid during
// the call only). It returns 0, or a negative value that stops the
// encryptor, which then returns that value.
typedef int (*mc_pgp_write_fn)(void *opaque, const uint8_t *data, size_t len);

// MC_PGP_ARMOR: write ASCII armor ("-----BEGIN PGP MESSAGE-----", 64
// columns) instead of binary packets. The CRC-24 line that RFC 9580 §6.2
// advises against is written for SEIPDv1 messages only, because GnuPG 2.2,
// their typical reader, misreads some armor without it.
#define MC_PGP_ARMOR 0x1u

// Formats for mc_pgp_encrypt_options.format. MC_PGP_FORMAT_AUTO chooses
// from the keys as described above; the others force a format (for tests
// and for callers who know their recipients' software) but keep the cipher
// choice.
enum {
  MC_PGP_FORMAT_AUTO = 0,
  MC_PGP_FORMAT_SEIPDV1 = 1,
  MC_PGP_FORMAT_SEIPDV2_OCB = 2,
  MC_PGP_FORMAT_SEIPDV2_GCM = 3,
};

// mc_pgp_encrypt_options configures an encryption. Start from
// MC_PGP_ENCRYPT_OPTIONS_INIT. `filename` (at most 255 bytes, NULL for
// none) goes into the Literal Data packet; the caller keeps it alive for
// the constructor's duration only.
typedef struct mc_pgp_encrypt_options {
  uint32_t version; // MC_PGP_ENCRYPT_OPTIONS_VERSION
  uint32_t flags;   // MC_PGP_ARMOR
  uint32_t format;  // MC_PGP_FORMAT_*
  const char *filename;
} mc_pgp_encrypt_options;

#define MC_PGP_ENCRYPT_OPTIONS_VERSION 1
#define MC_PGP_ENCRYPT_OPTIONS_INIT                                                                \
  { MC_PGP_ENCRYPT_OPTIONS_VERSION, 0, MC_PGP_FORMAT_AUTO, NULL }

// mc_pgp_encryptor is one message being encrypted.
typedef struct mc_pgp_encryptor mc_pgp_encryptor;

// The most recipient keys (encryption subkeys, summed over certificates)
// one message may go to.
#define MC_PGP_MAX_RECIPIENT_KEYS 1000

// mc_pgp_encryptor_new starts a message to `num_certs` certificates
// (`certs`, from mc_pgp_certs_get): one PKESK for every encryption key that
// mc_pgp_certs_parse selected in each. The certificates are read during the
// call only. `options` may be NULL for MC_PGP_ENCRYPT_OPTIONS_INIT. Output
// goes to `write` (with `opaque`), which runs from this call on: the PKESKs
// are written before it returns. On success `*out` is a new encryptor to
// release with mc_pgp_encryptor_free; on failure it is NULL and nothing has
// been written. It returns 0; MC_ERR_INVALID_ARGUMENT for a NULL pointer,
// no certificates, more than MC_PGP_MAX_RECIPIENT_KEYS keys, options of
// another version or with unknown flags, an unknown format or a file name
// over 255 bytes; MC_ERR_BAD_KEY for a certificate without a usable
// encryption key or a key whose material is unusable (e.g. an RSA modulus
// out of range); MC_ERR_UNSUPPORTED for a key algorithm, curve or KDF
// parameter the engine does not implement; the callback's negative value;
// or -ENOMEM. Thread-safe for distinct encryptors.
MC_API MC_WARN_UNUSED_RESULT int
mc_pgp_encryptor_new(mc_pgp_encryptor **out, const mc_pgp_cert *const *certs, size_t num_certs,
                     const mc_pgp_encrypt_options *options, mc_pgp_write_fn write, void *opaque);

// mc_pgp_encryptor_update encrypts the next `in_len` bytes of plaintext
// `in` (NULL when `in_len` is 0), writing whatever output is ready through
// the write callback. It returns 0; MC_ERR_INVALID_ARGUMENT for a NULL `e`,
// a NULL `in` with a non-zero length, or an encryptor already finished; the
// callback's negative value; or -ENOMEM. After an error the encryptor only
// returns that error again; free it.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_encryptor_update(mc_pgp_encryptor *e, const uint8_t *in,
                                                         size_t in_len);

// mc_pgp_encryptor_final ends the message: it seals the last chunk, writes
// the final tag or MDC and the armor tail. It returns 0, or an error as for
// mc_pgp_encryptor_update. Only after it returns 0 is the output a message.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_encryptor_final(mc_pgp_encryptor *e);

// mc_pgp_encryptor_free wipes and frees `e`, finished or not. No-op on NULL.
MC_API void mc_pgp_encryptor_free(mc_pgp_encryptor *e);

// mc_pgp_encrypt_max_len returns an upper bound of the output length of a
// message of `in_len` bytes to `num_keys` recipient keys with `flags`
// (MC_PGP_ARMOR), or SIZE_MAX when it would overflow. Thread-safe.
MC_API size_t mc_pgp_encrypt_max_len(size_t num_keys, size_t in_len, uint32_t flags);

// mc_pgp_encrypt encrypts the `in_len` bytes of `in` to `certs` in one call
// and writes the whole message to `out` (room for `out_cap` bytes, for
// instance mc_pgp_encrypt_max_len of the number of keys); `*out_len`
// receives its length. Errors as for mc_pgp_encryptor_new, plus
// MC_ERR_BUFFER_TOO_SMALL; on error `*out_len` is 0 and `out` holds no
// usable output. Thread-safe. A message below 4 GiB is written in one pass
// straight into `out`, with definite packet lengths; with MC_PGP_ARMOR the
// binary message is written to the end of `out` and armored in place, so
// a buffer of exactly the armored length is enough. `out` must not
// overlap `in`.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_encrypt(uint8_t *out, size_t out_cap, size_t *out_len,
                                                const mc_pgp_cert *const *certs, size_t num_certs,
                                                const mc_pgp_encrypt_options *options,
                                                const uint8_t *in, size_t in_len);

// mc_pgp_mime_encrypt turns the RFC 5322/MIME message `in` (`in_len`
// bytes) into a PGP/MIME message (RFC 3156 §4) to `certs`, written through
// `write`: the header fields that are not Content-* or MIME-Version (From,
// To, Subject, Date, Message-ID, Received, ...) stay outside, as transport
// and mail clients need them; the Content-* fields and the body become the
// encrypted MIME entity (with "Content-Type: text/plain; charset=us-ascii"
// added when the message has none), armored in the second part of a
// multipart/encrypted with a random boundary. Line breaks follow the
// input's first header line (CRLF or LF). `options` as for
// mc_pgp_encryptor_new; the output is always armored. It returns 0; errors
// as for mc_pgp_encryptor_new, plus MC_ERR_INVALID_ARGUMENT when `in` has no
// header field, a header line without a colon or a NUL byte in its header.
// Nothing is written when the input or a key is refused. Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_pgp_mime_encrypt(const mc_pgp_cert *const *certs,
                                                     size_t num_certs,
                                                     const mc_pgp_encrypt_options *options,
                                                     const uint8_t *in, size_t in_len,
                                                     mc_pgp_write_fn write, void *opaque);

// S/MIME certificates (RFC 5280, RFC 8551, RFC 8410, RFC 9935).
//
// Reading the X.509 certificates of mail recipients and deciding whether
// they can be trusted: certificates in DER or PEM ("CERTIFICATE" blocks),
// one or many per input, and certificate bundles in PKCS#7 SignedData
// (.p7b/.p7c, DER or PEM "PKCS7"). Public keys: RSA, EC P-256/384/521,
// X25519, X448 and ML-KEM-512/768/1024 for encryption; Ed25519, Ed448,
// RSASSA-PSS and ML-DSA keys are read too (as issuers) but cannot receive
// mail. Everything is parsed by libmsgcrypt's own bounded DER reader; DER
// is enforced strictly (minimal lengths, no indefinite length), so the bytes
// hashed for a signature are the bytes that were signed.
//
// Validation (mc_x509_cert_verify) follows RFC 5280 §6 for the parts mail
// needs: a path from the certificate through the caller's intermediates to
// a trust anchor of an mc_x509_trust, each signature verified (RSA PKCS#1
// v1.5 and PSS, ECDSA P-256/384/521, Ed25519, Ed448; SHA-1 accepted with a
// warning), validity at the caller's `now`, CA basic constraints and path
// length, keyCertSign, unknown critical extensions (name and policy
// constraints included) refused, and revocation by the CRLs the caller
// added. The library never fetches anything.
//
// Trust anchors are files of PEM certificates. Corvid's e-mail roots are
// Mozilla's: exported from the NSS built-in token with
// `trust extract --format=pem-directory-hash --filter=ca-anchors
// --purpose=email DIR` (p11-kit with libnss3's libnssckbi.so); see
// libmsgcrypt/SMIME-TRUST.md for the refresh procedure. An administrator
// adds private CAs by dropping PEM files into the same directory.
//
// A parsed set, mc_x509_certs, owns a copy of the decoded DER, so the
// caller's buffer may be freed after parsing; everything its accessors
// return lives until mc_x509_certs_free. Parsing is thread-safe and a set is
// immutable. An mc_x509_trust is filled by one thread; once filled, any
// number of threads may verify against it.

typedef struct mc_x509_certs mc_x509_certs;
typedef struct mc_x509_cert mc_x509_cert;
typedef struct mc_x509_trust mc_x509_trust;

// Default limits, each used where the field of mc_x509_settings is 0.
#define MC_X509_DEFAULT_MAX_INPUT_LEN ((size_t)16 << 20)
#define MC_X509_DEFAULT_MAX_CERTS 1024
#define MC_X509_DEFAULT_MAX_DER_DEPTH 24
#define MC_X509_DEFAULT_MAX_EXTENSIONS 64
#define MC_X509_DEFAULT_MAX_ADDRESSES 64
#define MC_X509_DEFAULT_MAX_CHAIN_LEN 8
#define MC_X509_DEFAULT_MAX_SIGNATURE_CHECKS 64
#define MC_X509_DEFAULT_MAX_RSA_BITS 16384

// mc_x509_settings carries the limits of the S/MIME certificate functions;
// 0 in any field means its MC_X509_DEFAULT_* value. Start from
// MC_X509_SETTINGS_INIT.
typedef struct mc_x509_settings {
  uint32_t version;            // 1
  size_t max_input_len;        // bytes of one input, PEM or DER
  size_t max_certs;            // certificates in one input (or trust store)
  size_t max_der_depth;        // nesting of constructed DER elements
  size_t max_extensions;       // extensions per certificate
  size_t max_addresses;        // e-mail addresses kept per certificate
  size_t max_chain_len;        // certificates in a path, anchor included
  size_t max_signature_checks; // signature verifications per validation
  size_t max_rsa_bits;         // largest RSA modulus accepted
} mc_x509_settings;

#define MC_X509_SETTINGS_INIT                                                                      \
  { 1, 0, 0, 0, 0, 0, 0, 0, 0 }

// mc_x509_diag receives the reason a parse failed: the error code, the
// byte offset in the decoded DER where it was found and a sentence.
typedef struct mc_x509_diag {
  int code;
  size_t offset;
  char message[160];
} mc_x509_diag;

// mc_x509_certs_parse reads every certificate of `in` (`in_len` bytes): PEM
// (any number of "CERTIFICATE", "X509 CERTIFICATE" and "PKCS7" blocks; text
// between blocks is ignored) or DER (one or more concatenated Certificates
// or PKCS#7 ContentInfos of type signedData, whose `certificates` field is
// read; other certificate choices are skipped), detected from the input.
// `settings` and `diag` may be NULL. On success `*out` receives a new set of
// at least one certificate, freed with mc_x509_certs_free. It returns 0; or
// MC_ERR_BAD_KEY for input that is not a certificate or bundle (bad PEM or
// Base64, malformed or non-minimal DER, nesting deeper than max_der_depth,
// a certificate version other than 1-3, a bad time, duplicate extensions,
// an empty bundle) or that exceeds a limit; or MC_ERR_INVALID_ARGUMENT for
// NULL `out` or `in` or a settings version other than 1; or -ENOMEM.
// Certificates with public keys of unknown algorithms are kept (they
// describe as "unknown key"). Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_certs_parse(mc_x509_certs **out,
                                                     const mc_x509_settings *settings,
                                                     mc_x509_diag *diag, const uint8_t *in,
                                                     size_t in_len);

// mc_x509_certs_free frees `certs` and everything it owns. No-op on NULL.
MC_API void mc_x509_certs_free(mc_x509_certs *certs);

// mc_x509_certs_count returns the number of certificates in `certs`.
MC_API size_t mc_x509_certs_count(const mc_x509_certs *certs);

// mc_x509_certs_get returns certificate `i` of `certs` (input order),
// borrowed from `certs`, or NULL when `i` is out of range.
MC_API const mc_x509_cert *mc_x509_certs_get(const mc_x509_certs *certs, size_t i);

// mc_x509_cert_der returns the certificate's DER encoding and stores its
// length in `*out_len`.
MC_API const uint8_t *mc_x509_cert_der(const mc_x509_cert *cert, size_t *out_len);

// MC_X509_FPR_LEN is the length of a SHA-256 fingerprint; MC_X509_FPR_HEX_LEN
// is room for it in hex with colons and a NUL.
#define MC_X509_FPR_LEN 32
#define MC_X509_FPR_HEX_LEN 96

// mc_x509_cert_fingerprint returns the SHA-256 of the certificate's DER
// (MC_X509_FPR_LEN bytes), which `openssl x509 -fingerprint -sha256` shows.
MC_API const uint8_t *mc_x509_cert_fingerprint(const mc_x509_cert *cert);

// mc_x509_cert_fingerprint_sha1 returns the SHA-1 of the DER (20 bytes),
// the fingerprint older clients display.
MC_API const uint8_t *mc_x509_cert_fingerprint_sha1(const mc_x509_cert *cert);

// mc_x509_cert_fingerprint_hex writes the SHA-256 fingerprint as upper-case
// hex pairs joined by colons, with a NUL, to `out` (room for `out_cap`). It
// returns 0 or MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_fingerprint_hex(const mc_x509_cert *cert, char *out,
                                                              size_t out_cap);

// mc_x509_cert_subject and mc_x509_cert_issuer write the subject or issuer
// Name as RFC 4514 text ("CN=Alice,O=Example,C=DE": most specific first,
// special characters escaped, unknown attributes as OID=#hex, control and
// non-UTF-8 bytes as \XX) with a NUL to `out` (room for `out_cap`), and its
// length without the NUL to `*out_len` (may be NULL). They return 0; or
// MC_ERR_BUFFER_TOO_SMALL; or MC_ERR_BAD_KEY for a Name that cannot be
// read (it was checked only for DER well-formedness when parsed).
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_subject(const mc_x509_cert *cert, char *out,
                                                      size_t out_cap, size_t *out_len);
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_issuer(const mc_x509_cert *cert, char *out,
                                                     size_t out_cap, size_t *out_len);

// mc_x509_cert_serial returns the serial number's value bytes (big-endian,
// without sign padding) and stores their number in `*out_len`.
MC_API const uint8_t *mc_x509_cert_serial(const mc_x509_cert *cert, size_t *out_len);

// mc_x509_cert_not_before and mc_x509_cert_not_after return the validity
// period in seconds since the epoch.
MC_API int64_t mc_x509_cert_not_before(const mc_x509_cert *cert);
MC_API int64_t mc_x509_cert_not_after(const mc_x509_cert *cert);

// mc_x509_cert_num_addresses returns the number of e-mail addresses of the
// certificate: subjectAltName rfc822Names first, then the legacy subject
// emailAddress attributes not already listed (at most max_addresses).
MC_API size_t mc_x509_cert_num_addresses(const mc_x509_cert *cert);

// mc_x509_cert_address returns address `i` (ASCII, not NUL-terminated,
// borrowed from the set) and stores its length in `*out_len`, or returns
// NULL when `i` is out of range.
MC_API const char *mc_x509_cert_address(const mc_x509_cert *cert, size_t i, size_t *out_len);

// Key usage bits (RFC 5280 §4.2.1.3), as mc_x509_cert_key_usage returns.
#define MC_X509_KU_DIGITAL_SIGNATURE 0x001u
#define MC_X509_KU_NON_REPUDIATION 0x002u
#define MC_X509_KU_KEY_ENCIPHERMENT 0x004u
#define MC_X509_KU_DATA_ENCIPHERMENT 0x008u
#define MC_X509_KU_KEY_AGREEMENT 0x010u
#define MC_X509_KU_KEY_CERT_SIGN 0x020u
#define MC_X509_KU_CRL_SIGN 0x040u
#define MC_X509_KU_ENCIPHER_ONLY 0x080u
#define MC_X509_KU_DECIPHER_ONLY 0x100u

// mc_x509_cert_key_usage stores the keyUsage bits in `*out` and returns 1,
// or stores 0 and returns 0 when the extension is absent (any use allowed).
MC_API int mc_x509_cert_key_usage(const mc_x509_cert *cert, unsigned *out);

// Extended key usage bits, as mc_x509_cert_ext_key_usage returns.
#define MC_X509_EKU_EMAIL_PROTECTION 0x1u // id-kp-emailProtection
#define MC_X509_EKU_ANY 0x2u              // anyExtendedKeyUsage
#define MC_X509_EKU_OTHER 0x4u            // any other purpose

// mc_x509_cert_ext_key_usage stores the purposes of extKeyUsage in `*out`
// and returns 1, or stores 0 and returns 0 when the extension is absent.
MC_API int mc_x509_cert_ext_key_usage(const mc_x509_cert *cert, unsigned *out);

// mc_x509_cert_is_ca returns 1 when basicConstraints says cA, else 0.
MC_API int mc_x509_cert_is_ca(const mc_x509_cert *cert);

// mc_x509_cert_is_self_signed returns 1 when subject and issuer are equal
// and the certificate's signature verifies with its own key, else 0.
MC_API int mc_x509_cert_is_self_signed(const mc_x509_cert *cert);

// mc_x509_cert_key_name returns the public key's static name ("RSA-3072",
// "EC P-256", "X25519", "X448", "ML-KEM-768", "Ed25519", "ML-DSA-44",
// "RSASSA-PSS-2048", "unknown key"), and its size in bits (modulus or
// curve; the ML-KEM/ML-DSA parameter number) in `*out_bits` (may be NULL).
MC_API const char *mc_x509_cert_key_name(const mc_x509_cert *cert, unsigned *out_bits);

// mc_x509_cert_can_encrypt returns 1 when the key is of a type CMS can
// encrypt to (RSA, EC P-256/384/521, X25519, X448, ML-KEM), else 0. It does
// not look at key usage or validity (mc_x509_cert_verify does).
MC_API int mc_x509_cert_can_encrypt(const mc_x509_cert *cert);

// mc_x509_cert_describe writes a one-line description, such as
// "S/MIME: RSA-3072" or "S/MIME: ML-KEM-768", with a NUL to `out` (room for
// `out_cap`) and its length to `*out_len` (may be NULL). It returns 0 or
// MC_ERR_BUFFER_TOO_SMALL.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_describe(const mc_x509_cert *cert, char *out,
                                                       size_t out_cap, size_t *out_len);

// mc_x509_trust_new creates an empty trust store with the limits of
// `settings` (NULL for the defaults) in `*out`, freed with
// mc_x509_trust_free. It returns 0; or MC_ERR_INVALID_ARGUMENT for NULL
// `out` or a settings version other than 1; or -ENOMEM.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_trust_new(mc_x509_trust **out,
                                                   const mc_x509_settings *settings);

// mc_x509_trust_free frees `trust`. No-op on NULL.
MC_API void mc_x509_trust_free(mc_x509_trust *trust);

// mc_x509_trust_add_anchors adds every certificate of `in` (any form
// mc_x509_certs_parse reads) as a trust anchor: its name and key are
// trusted, its own signature and dates are not looked at. Errors as for
// mc_x509_certs_parse, plus MC_ERR_BAD_KEY when the store would hold more
// than max_certs anchors; on error nothing is added. Not thread-safe
// against other calls on the same `trust`.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_trust_add_anchors(mc_x509_trust *trust, mc_x509_diag *diag,
                                                           const uint8_t *in, size_t in_len);

// mc_x509_trust_add_dir adds every regular file in directory `path` whose
// name ends in ".pem", ".crt" or ".0"-".9" (the hashed links of
// `trust extract --format=pem-directory-hash` and c_rehash) as anchors,
// once per distinct certificate. It stores the number of certificates
// added in `*out_added` (may be NULL). It returns 0; or -errno when the
// directory or a file cannot be read; or MC_ERR_BAD_KEY for a file larger
// than max_input_len; or the first error of mc_x509_trust_add_anchors.
// `diag` (may be NULL) is cleared first; a failing file is named in it with
// the reason ("NAME: ..."). Anchors of the files read before an error stay
// added. Not thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_trust_add_dir(mc_x509_trust *trust, mc_x509_diag *diag,
                                                       size_t *out_added, const char *path);

// mc_x509_trust_add_crl adds a certificate revocation list (RFC 5280 §5,
// DER or PEM "X509 CRL"). Its signature is checked when a path uses it:
// a CRL applies to the certificates of the issuer whose name it carries
// and whose key verifies it. It returns 0; or MC_ERR_BAD_KEY for malformed
// input, a CRL version other than 1-2 or an unknown critical CRL extension
// (delta CRLs and indirect CRLs are refused that way); or
// MC_ERR_INVALID_ARGUMENT; or -ENOMEM. Not thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_trust_add_crl(mc_x509_trust *trust, mc_x509_diag *diag,
                                                       const uint8_t *in, size_t in_len);

// mc_x509_trust_num_anchors returns the number of anchors in `trust`.
MC_API size_t mc_x509_trust_num_anchors(const mc_x509_trust *trust);

// Verdicts of mc_x509_cert_verify; `problems` holds one bit (1 << verdict)
// for every problem found, the verdict is the most serious one.
typedef enum {
  MC_X509_OK = 0,
  MC_X509_UNTRUSTED = 1,        // no path to a trust anchor
  MC_X509_SELF_SIGNED = 2,      // self-signed and not an anchor
  MC_X509_BAD_SIGNATURE = 3,    // a signature on the path does not verify
  MC_X509_REVOKED = 4,          // listed in a CRL of its issuer
  MC_X509_EXPIRED = 5,          // a certificate on the path has expired
  MC_X509_NOT_YET_VALID = 6,    // a certificate on the path is not yet valid
  MC_X509_BAD_CA = 7,           // an issuer is not a CA or may not sign
  MC_X509_PATH_TOO_LONG = 8,    // pathLenConstraint or max_chain_len
  MC_X509_CRITICAL_EXT = 9,     // an unknown critical extension
  MC_X509_WRONG_KEY_USAGE = 10, // leaf may not encrypt mail (KU or EKU)
  MC_X509_UNSUPPORTED_KEY = 11, // leaf key is not one CMS can encrypt to
} mc_x509_verdict;

// mc_x509_result is the outcome of mc_x509_cert_verify.
typedef struct mc_x509_result {
  mc_x509_verdict verdict;
  unsigned problems;          // bit (1 << v) for every verdict v found
  size_t chain_len;           // certificates in the best path found, anchor included
  int weak_signature;         // 1 when a signature on the path uses SHA-1
  int crl_checked;            // 1 when every non-anchor certificate was covered by a
                              // CRL current at `now` (a stale CRL still revokes)
  const mc_x509_cert *anchor; // the anchor reached, or NULL
} mc_x509_result;

// mc_x509_verdict_name returns the stable static name of `v` ("ok",
// "untrusted", "self-signed", "bad-signature", "revoked", "expired",
// "not-yet-valid", "bad-ca", "path-too-long", "critical-extension",
// "wrong-key-usage", "unsupported-key"), or "unknown".
MC_API const char *mc_x509_verdict_name(mc_x509_verdict v);

// mc_x509_cert_verify validates `cert` for encrypting mail at `now`
// (seconds since the epoch): it searches, depth first, for a path through
// the certificates of `intermediates` (may be NULL) to an anchor of `trust`
// (may be NULL: then nothing is trusted) whose signatures verify, and
// judges the best path found (see mc_x509_verdict). The leaf must have a
// key CMS can encrypt to, keyEncipherment (RSA, ML-KEM) or keyAgreement
// (EC, X25519, X448) when keyUsage is present, and emailProtection or
// anyExtendedKeyUsage when extKeyUsage is present. A certificate equal to
// an anchor is trusted as it stands. The search stops after
// max_signature_checks signature verifications and max_chain_len
// certificates. It fills `*out` and returns 0 whatever the verdict; or
// MC_ERR_INVALID_ARGUMENT for NULL `out` or `cert`; or -ENOMEM. `out->anchor`
// borrows from `trust`. Thread-safe for concurrent calls on one `trust`.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_verify(const mc_x509_trust *trust,
                                                     mc_x509_result *out, const mc_x509_cert *cert,
                                                     const mc_x509_certs *intermediates,
                                                     int64_t now);

// Warnings about an S/MIME certificate share one code space with the
// OpenPGP warnings (mc_pgp_warn_code): the same condition has the same code
// and name in both (MC_PGP_WARN_EXPIRES_SOON, _EXPIRED, _REVOKED,
// _RSA_SHORT, _NO_ADDRESS, _LIMITED_SUPPORT for ML-KEM, X25519 and X448,
// _NO_ENCRYPTION for a key CMS cannot encrypt to, _WEAK_ALGORITHM for SHA-1
// signatures or RSA below 2048 bits). The codes only S/MIME has continue
// after the last OpenPGP one:
typedef enum {
  MC_X509_WARN_SELF_SIGNED = 11,   // "self-signed": not issued by a CA
  MC_X509_WARN_UNTRUSTED = 12,     // "untrusted-chain": no valid path to a trusted root
  MC_X509_WARN_KEY_USAGE = 13,     // "wrong-key-usage": KU/EKU forbid mail encryption
  MC_X509_WARN_NOT_YET_VALID = 14, // "not-yet-valid"
  MC_X509_WARN_NO_REVOCATION = 15, // "no-revocation-info": no CRL covered the path
} mc_x509_warn_code;

// mc_x509_warn_name returns the stable static name of any warning code of
// the shared space (OpenPGP's and S/MIME's), or "unknown".
MC_API const char *mc_x509_warn_name(int code);

// mc_x509_cert_warnings writes the warnings about `cert` to `out` (room for
// `out_cap`; MC_PGP_MAX_WARNINGS is always enough; each warning's `code`
// holds a value of the shared space) and their number to `*out_len`.
// Validation is that of mc_x509_cert_verify with the same `trust`,
// `intermediates` and `now`; when `trust` is NULL the chain is not judged
// (no untrusted-chain, self-signed or no-revocation-info warnings), only
// the certificate itself. When `num_addresses` is not 0,
// MC_PGP_WARN_NO_ADDRESS is reported unless one of the certificate's
// addresses equals one of `addresses` (ASCII case-insensitive). It returns
// 0; or MC_ERR_BUFFER_TOO_SMALL (then `*out_len` is the number needed); or
// MC_ERR_INVALID_ARGUMENT for NULL pointers; or -ENOMEM. Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_x509_cert_warnings(const mc_x509_cert *cert,
                                                       mc_pgp_warning *out, size_t out_cap,
                                                       size_t *out_len, const mc_x509_trust *trust,
                                                       const mc_x509_certs *intermediates,
                                                       int64_t now, const char *const *addresses,
                                                       size_t num_addresses);

// S/MIME encryption (RFC 5652, RFC 5083, RFC 8551, RFC 9629, RFC 9936).
//
// Encrypts content to recipient certificates (from mc_x509_certs_parse) as
// a CMS ContentInfo in DER: EnvelopedData with AES-256-CBC, or
// AuthEnvelopedData with AES-256-GCM (RFC 5084). One RecipientInfo per
// certificate: KeyTransRecipientInfo for RSA (PKCS#1 v1.5, or RSAES-OAEP
// with SHA-256 and MGF1-SHA-256, RFC 8017/4055) and KEMRecipientInfo
// (RFC 9629) for ML-KEM-512/768/1024 with HKDF-SHA256 and AES key wrap
// (AES-128 wrap for ML-KEM-512, AES-256 wrap otherwise, as RFC 9936
// requires), and KeyAgreeRecipientInfo with an ephemeral key for
// elliptic-curve certificates: ECDH on P-256/384/521 with the X9.63 KDF
// over SHA-256/384/512 (RFC 5753, RFC 5008) and X25519 (HKDF-SHA256) or
// X448 (HKDF-SHA512) per RFC 8418, each with AES-256 key wrap. The
// certificates are not validated here: run mc_x509_cert_verify first.
// mc_smime_encrypt works in the caller's buffer and allocates only a small
// array of recipients (and, with several recipients, a copy of their
// RecipientInfos to sort them as DER's SET OF requires); the whole content
// is one call, there is no streaming form yet. docs/smime-clients.md lists what
// each mainstream client reads and why the defaults are what they are.
// Content-encryption keys, key-encryption keys and shared secrets are wiped
// once used. Every function is thread-safe.

// Content encryption for mc_smime_encrypt_options.content.
// MC_SMIME_CONTENT_AUTO: AES-256-CBC EnvelopedData, which every client
// reads, unless a recipient is ML-KEM (then AES-256-GCM, as RFC 9936 asks).
enum {
  MC_SMIME_CONTENT_AUTO = 0,
  MC_SMIME_CONTENT_AES256_CBC = 1,
  MC_SMIME_CONTENT_AES256_GCM = 2,
};

// RSA key transport for mc_smime_encrypt_options.rsa. The default,
// PKCS#1 v1.5, is the only one every client decrypts.
enum {
  MC_SMIME_RSA_PKCS1 = 0,
  MC_SMIME_RSA_OAEP_SHA256 = 1,
};

// Recipient identifiers for mc_smime_encrypt_options.rid. AUTO: issuer
// and serial number for RSA and elliptic curves (read by all), subject key
// identifier for ML-KEM when the certificate has one. SKI is a
// subjectKeyIdentifier in a KTRI or KEMRI and an rKeyId in a KARI.
enum {
  MC_SMIME_RID_AUTO = 0,
  MC_SMIME_RID_ISSUER_SERIAL = 1,
  MC_SMIME_RID_SKI = 2,
};

// GCM tag encoding for mc_smime_encrypt_options.gcm_tag (a compatibility
// switch of docs/smime-clients.md): MC_SMIME_GCM_TAG16 writes a 16-byte
// tag with aes-ICVlen 16 spelled out in GCMParameters (what OpenSSL 3.0
// needs); MC_SMIME_GCM_TAG12_DEFAULT writes a 12-byte tag and leaves
// aes-ICVlen out, its DEFAULT (what gpgsm 2.2 needs).
enum {
  MC_SMIME_GCM_TAG16 = 0,
  MC_SMIME_GCM_TAG12_DEFAULT = 1,
};

// The ephemeral EC key's AlgorithmIdentifier in a KeyAgreeRecipientInfo
// (mc_smime_encrypt_options.ec_params; the elliptic-curve compatibility
// switch of docs/smime-clients.md): MC_SMIME_EC_PARAMS_ABSENT leaves the
// id-ecPublicKey parameters out, as RFC 5753 §7.1.2 advises;
// MC_SMIME_EC_PARAMS_NAMED_CURVE writes the curve's OID there, the other
// encoding RFC 5753 allows.
enum {
  MC_SMIME_EC_PARAMS_ABSENT = 0,
  MC_SMIME_EC_PARAMS_NAMED_CURVE = 1,
};

// mc_smime_encrypt_options configures an encryption; start from
// MC_SMIME_ENCRYPT_OPTIONS_INIT.
typedef struct mc_smime_encrypt_options {
  uint32_t version;   // MC_SMIME_ENCRYPT_OPTIONS_VERSION
  uint32_t content;   // MC_SMIME_CONTENT_*
  uint32_t rsa;       // MC_SMIME_RSA_*
  uint32_t rid;       // MC_SMIME_RID_*
  uint32_t gcm_tag;   // MC_SMIME_GCM_*
  uint32_t ec_params; // MC_SMIME_EC_PARAMS_*
  // RFC 9788 header protection for mc_smime_mime_encrypt: MC_HP_NONE (0),
  // MC_HP_AT_REST or MC_HP_GATEWAY (see "Header protection" below);
  // mc_smime_encrypt, which has no header to protect, requires MC_HP_NONE.
  uint32_t protect_headers;
} mc_smime_encrypt_options;

#define MC_SMIME_ENCRYPT_OPTIONS_VERSION 1
#define MC_SMIME_ENCRYPT_OPTIONS_INIT                                                              \
  { MC_SMIME_ENCRYPT_OPTIONS_VERSION, 0, 0, 0, 0, 0, 0 }

// The most recipient certificates of one message.
#define MC_SMIME_MAX_RECIPIENTS 1000

// mc_smime_encrypt_max_len returns an upper bound of the length of
// mc_smime_encrypt's output for `num_certs` certificates `certs` and
// `in_len` bytes of content, or SIZE_MAX on overflow or a NULL pointer.
// Thread-safe.
MC_API size_t mc_smime_encrypt_max_len(const mc_x509_cert *const *certs, size_t num_certs,
                                       size_t in_len);

// mc_smime_encrypt encrypts the `in_len` bytes of `in` (NULL when 0) to
// the `num_certs` certificates `certs` (read during the call only) and
// writes the DER ContentInfo to `out`, which has room for `out_cap` bytes
// (mc_smime_encrypt_max_len is enough); `*out_len` receives its length.
// `options` may be NULL for MC_SMIME_ENCRYPT_OPTIONS_INIT. Key types
// without a RecipientInfo here: Ed25519, Ed448, RSA-PSS-only keys. It
// returns 0;
// or MC_ERR_INVALID_ARGUMENT for a NULL pointer, no certificates, more
// than MC_SMIME_MAX_RECIPIENTS, options of another version or with an
// unknown value, or MC_SMIME_RID_SKI for a certificate without a subject
// key identifier; or MC_ERR_UNSUPPORTED for a key type the engine does
// not encrypt to; or MC_ERR_BAD_KEY
// for unusable key material (an RSA modulus out of range, a malformed
// ML-KEM key, an EC point not on its curve, an X25519/X448 key of small
// order); or MC_ERR_BUFFER_TOO_SMALL; or -ENOMEM. On error `*out_len`
// is 0 and whatever was written to `out` is wiped. Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_smime_encrypt(uint8_t *out, size_t out_cap, size_t *out_len,
                                                  const mc_x509_cert *const *certs,
                                                  size_t num_certs,
                                                  const mc_smime_encrypt_options *options,
                                                  const uint8_t *in, size_t in_len);

// mc_smime_write_fn receives `len` bytes of output at `data` (valid during
// the call only). It returns 0, or a negative value that stops the writer,
// which then returns that value.
typedef int (*mc_smime_write_fn)(void *opaque, const uint8_t *data, size_t len);

// mc_smime_mime_encrypt turns the RFC 5322/MIME message `in` (`in_len`
// bytes) into an S/MIME 4.0 encrypted message (RFC 8551 §3.3) to `certs`,
// written through `write`: the header fields that are not Content-* or
// MIME-Version stay outside; the Content-* fields and the body, with every
// line break made CRLF (RFC 8551 §3.1.1 canonical form; "Content-Type:
// text/plain; charset=us-ascii" added when the message has none), are
// encrypted with mc_smime_encrypt and `options` and sent as an
// application/pkcs7-mime body (smime-type=enveloped-data, or
// authEnveloped-data for GCM; name smime.p7m; Base64 in 76-column lines).
// Outer line breaks follow the input's first header line (CRLF or LF).
// With options->protect_headers MC_HP_AT_REST or MC_HP_GATEWAY the outer
// fields and the encrypted entity are mc_hp_protect's instead (RFC 9788:
// the protected header inside, hp="cipher", HP-Outer). It
// returns 0; errors as for mc_smime_encrypt, plus MC_ERR_INVALID_ARGUMENT
// when `in` has no header field, a header line without a colon or a NUL
// byte in its header; or the callback's negative value. Nothing is written
// when the input or a key is refused. Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_smime_mime_encrypt(const mc_x509_cert *const *certs,
                                                       size_t num_certs,
                                                       const mc_smime_encrypt_options *options,
                                                       const uint8_t *in, size_t in_len,
                                                       mc_smime_write_fn write, void *opaque);

// Header protection (RFC 9788) and Autocrypt (Level 1).
//
// Header protection moves the message's header fields into the encrypted
// part: the Cryptographic Payload's header section carries the Content-*
// fields with the parameter hp="cipher", a copy of every other top-level
// field (From, To, Cc, Reply-To, Subject, Date, Message-ID, References, ...)
// and one "HP-Outer:" field for each field that stays outside, so that a
// reader can tell what the transport saw. What stays outside is the Header
// Confidentiality Policy (HCP, RFC 9788 §3.2) of the mode:
//   MC_HP_AT_REST: hcp_no_confidentiality: every field stays readable
//     outside, Subject included; for mail that is encrypted for storage,
//     where search and threading read the outer header.
//   MC_HP_GATEWAY: hcp_shy, the RFC's policy that keeps the least outside
//     while the message can still be delivered and threaded: the outer
//     Subject becomes "[...]", Comments and Keywords are dropped, From keeps
//     only its addresses ("<alice@example.net>", no display name) and Date
//     is given in UTC ("+0000", the sender's time zone hidden); To, Cc,
//     Message-ID, In-Reply-To, References and the rest stay. A From whose
//     addresses cannot be written back without quoting, and a Date that
//     cannot be read, are left as they are.
//   MC_HP_BASELINE: hcp_baseline, the RFC's default policy: Subject
//     becomes "[...]", Comments and Keywords are dropped, the rest stays.
//     Only mc_hp_protect takes it; the PGP/MIME and S/MIME builders offer
//     the two modes above.
// When the policy hides or alters a user-facing field (Subject, From, To,
// Cc, Date, Reply-To, Comments, Keywords), a Legacy Display Element (RFC
// 9788 §4.5) repeats the real values ("Name: value" lines, RFC 2047 words
// decoded when the part's charset is UTF-8) in each main body part: the
// body itself when it is text/plain or text/html, each branch of a
// multipart/alternative, the first part of any other multipart (not
// multipart/signed or multipart/encrypted, whose bytes must not change, and
// nothing inside message/*), at most 4 parts, never an attachment. In
// text/plain the lines and an empty line come first; in text/html a
// <div class="header-protection-legacy-display"><pre>...</pre></div>
// follows the <body> tag (or starts the document), with &, < and > escaped.
// Base64 and quoted-printable bodies are decoded, given the element and
// encoded again (Base64 in 76-character lines); a body that does not decode
// goes without. Each such part's Content-Type gains hp-legacy-display="1".
// Every header line written (protected copies, HP-Outer fields, outer
// fields, a Content-Type with the new parameters) is folded before white
// space so that no line passes RFC 5322's 998 octets; a line that cannot
// be folded so is an error. MIME-Version is written by the builder, never
// copied.
enum {
  MC_HP_NONE = 0,
  MC_HP_AT_REST = 1,
  MC_HP_GATEWAY = 2,
  MC_HP_BASELINE = 3,
};

// Flags of mc_pgp_encrypt_options.flags for mc_pgp_mime_encrypt: protect
// the header (at most one of the two). mc_pgp_encryptor_new and
// mc_pgp_encrypt refuse them with MC_ERR_INVALID_ARGUMENT.
#define MC_PGP_PROTECT_HEADERS_AT_REST 0x2u
#define MC_PGP_PROTECT_HEADERS_GATEWAY 0x4u

// mc_hp_max_len returns a bound on each output of mc_hp_protect for an
// input of `in_len` bytes (96 * `in_len` + 4096), or SIZE_MAX on overflow.
// Thread-safe.
MC_API size_t mc_hp_max_len(size_t in_len);

// mc_hp_protect prepares the RFC 5322/MIME message `in` (`in_len` bytes)
// for encryption with header protection in `mode` (MC_HP_AT_REST,
// MC_HP_GATEWAY or MC_HP_BASELINE): `outer` (room for `outer_cap` bytes)
// receives the outer header fields, each ending with the input's line
// break, without MIME-Version and Content-* (the encrypting builder adds
// its own); `inner` (room for `inner_cap`) receives the Cryptographic
// Payload, the MIME entity to encrypt: its header section, an empty line
// and the body (with any Legacy Display Element). Line breaks follow the
// input's first header line. `*outer_len` and `*inner_len` receive the
// lengths. The PGP/MIME builder calls it through MC_PGP_PROTECT_HEADERS_*;
// an S/MIME builder encrypts `inner` and writes `outer` above its own
// Content-Type. It returns 0; or MC_ERR_UNSUPPORTED when the top-level
// Content-Type already has an hp or hp-legacy-display parameter (the
// message is protected already; a second, conflicting parameter is never
// written, and the caller should encrypt the payload as it is); or
// MC_ERR_INVALID_ARGUMENT for a NULL length pointer, a NULL buffer with a
// non-zero capacity, an unknown mode, input without a header field or with
// a header line without a colon or with a NUL byte, or a header line that
// would pass 998 octets with no white space to fold it at; or
// MC_ERR_BUFFER_TOO_SMALL (mc_hp_max_len is always enough); or -ENOMEM. On
// error both lengths are 0. Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_hp_protect(uint8_t *outer, size_t outer_cap, size_t *outer_len,
                                               uint8_t *inner, size_t inner_cap, size_t *inner_len,
                                               uint32_t mode, const uint8_t *in, size_t in_len);

// Autocrypt (Level 1, https://autocrypt.org/level1.html): the value of an
// "Autocrypt:" header field is `;`-separated attributes name=value with
// folding white space allowed: addr (one address, mandatory), keydata (the
// Base64 of a binary OpenPGP certificate, mandatory, white space inside
// ignored), prefer-encrypt (optional; "mutual", any other value means no
// preference). Unknown names starting with `_` are ignored; any other
// unknown name invalidates the header, as the specification requires.

// Default limits, each used where the field of mc_autocrypt_settings is 0:
// the header value, and the decoded keydata (the specification asks
// senders to stay under 10 KiB of Base64).
#define MC_AUTOCRYPT_DEFAULT_MAX_HEADER_LEN ((size_t)64 << 10)
#define MC_AUTOCRYPT_DEFAULT_MAX_KEYDATA_LEN ((size_t)32 << 10)
// The longest addr accepted (RFC 5321's path limit less the brackets).
#define MC_AUTOCRYPT_MAX_ADDR_LEN 254

// mc_autocrypt_settings carries the limits of mc_autocrypt_parse; start
// from MC_AUTOCRYPT_SETTINGS_INIT.
typedef struct mc_autocrypt_settings {
  uint32_t version;       // 1
  size_t max_header_len;  // bytes of the header value
  size_t max_keydata_len; // bytes of decoded keydata
} mc_autocrypt_settings;

#define MC_AUTOCRYPT_SETTINGS_INIT                                                                 \
  { 1, 0, 0 }

// Values of mc_autocrypt_header.prefer_encrypt.
enum {
  MC_AUTOCRYPT_PREFER_NOPREFERENCE = 0,
  MC_AUTOCRYPT_PREFER_MUTUAL = 1,
};

// mc_autocrypt_header is a parsed header: `addr` as written (NUL-ended,
// `addr_len` bytes; compare it without regard to case), the preference,
// and the length of the keydata written to the caller's buffer.
typedef struct mc_autocrypt_header {
  char addr[MC_AUTOCRYPT_MAX_ADDR_LEN + 1];
  size_t addr_len;
  int prefer_encrypt;
  size_t keydata_len;
} mc_autocrypt_header;

// mc_autocrypt_parse reads the header value `in` (`in_len` bytes, without
// the "Autocrypt:" name, folds allowed) into `*out` and decodes keydata
// into `key` (room for `key_cap` bytes; the decoded keydata limit is always
// enough). `settings` may be NULL for the defaults. It returns 0; or
// MC_ERR_UNSUPPORTED for an unknown critical attribute; or
// MC_ERR_INVALID_ARGUMENT for NULL pointers, a settings version other than
// 1, a value over the header limit, an attribute without `=`, a repeated
// attribute, a missing or malformed addr, a missing keydata or keydata
// over its limit; or MC_ERR_BAD_KEY for keydata that is empty or not
// strict Base64; or MC_ERR_BUFFER_TOO_SMALL; or -ENOMEM. On error `*out` is
// zeroed. It does not judge the key: see mc_autocrypt_key_check.
// Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_autocrypt_parse(mc_autocrypt_header *out, uint8_t *key,
                                                    size_t key_cap,
                                                    const mc_autocrypt_settings *settings,
                                                    const char *in, size_t in_len);

// mc_autocrypt_key_check reads the keydata `key` (`key_len` bytes, from
// mc_autocrypt_parse with `header`) with mc_pgp_certs_parse at `now` (its
// default limits) and accepts it only as exactly one binary certificate
// with at least one encryption key selected at `now` and a valid user ID
// that is `header->addr` or contains "<addr>" (ASCII case ignored). On
// success `*out` receives the certificate set, freed with
// mc_pgp_certs_free; on error it is NULL. It returns 0; MC_ERR_BAD_KEY
// (armor, several certificates, no usable encryption key, no matching user
// ID, or as mc_pgp_certs_parse); MC_ERR_UNSUPPORTED as mc_pgp_certs_parse;
// MC_ERR_INVALID_ARGUMENT for NULL pointers or empty keydata; or -ENOMEM.
// Thread-safe.
MC_API MC_WARN_UNUSED_RESULT int mc_autocrypt_key_check(mc_pgp_certs **out,
                                                        const mc_autocrypt_header *header,
                                                        const uint8_t *key, size_t key_len,
                                                        int64_t now);

#ifdef __cplusplus
}
#endif

#endif // MC_MSGCRYPT_H
