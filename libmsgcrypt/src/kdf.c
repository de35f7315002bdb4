// kdf.c: the hash-based part of the layer over BoringSSL: SHA-1 and SHA-2
// one-shot digests, HKDF (RFC 5869) and random bytes. Each call maps
// libmsgcrypt's algorithm enum to BoringSSL's and its failures to MC_ERR_*.
#include <string.h>

#include <openssl/digest.h>
#include <openssl/hkdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "aead_internal.h"

size_t mc_hash_digest_len(mc_hash_alg alg) {
  switch (alg) {
  case MC_HASH_SHA1:
    return MC_SHA1_DIGEST_LEN;
  case MC_HASH_SHA256:
    return MC_SHA256_DIGEST_LEN;
  case MC_HASH_SHA384:
    return MC_SHA384_DIGEST_LEN;
  case MC_HASH_SHA512:
    return MC_SHA512_DIGEST_LEN;
  }
  return 0;
}

const EVP_MD *mc_hash_evp_md(mc_hash_alg alg) {
  switch (alg) {
  case MC_HASH_SHA1:
    return EVP_sha1();
  case MC_HASH_SHA256:
    return EVP_sha256();
  case MC_HASH_SHA384:
    return EVP_sha384();
  case MC_HASH_SHA512:
    return EVP_sha512();
  }
  return NULL;
}

int mc_digest(mc_hash_alg alg, uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
              size_t in_len) {
  size_t len = mc_hash_digest_len(alg);
  MC_FAIL_IF(len == 0 || out == NULL || out_len == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in == NULL && in_len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < len, MC_ERR_BUFFER_TOO_SMALL);
  // The one-shot functions hash a NULL input of length 0 correctly, but an
  // empty input is passed as a valid pointer to keep BoringSSL's contract.
  static const uint8_t empty[1] = {0};
  if (in == NULL)
    in = empty;
  switch (alg) {
  case MC_HASH_SHA1:
    SHA1(in, in_len, out);
    break;
  case MC_HASH_SHA256:
    SHA256(in, in_len, out);
    break;
  case MC_HASH_SHA384:
    SHA384(in, in_len, out);
    break;
  case MC_HASH_SHA512:
    SHA512(in, in_len, out);
    break;
  }
  *out_len = len;
  return 0;
}

int mc_hkdf(mc_hash_alg alg, uint8_t *out, size_t out_len, const uint8_t *ikm, size_t ikm_len,
            const uint8_t *salt, size_t salt_len, const uint8_t *info, size_t info_len) {
  size_t hash_len = mc_hash_digest_len(alg);
  MC_FAIL_IF(hash_len == 0 || out == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(alg == MC_HASH_SHA1, MC_ERR_UNSUPPORTED);
  MC_FAIL_IF((ikm == NULL && ikm_len != 0) || (salt == NULL && salt_len != 0) ||
                 (info == NULL && info_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_len == 0 || out_len > 255 * hash_len, MC_ERR_INVALID_ARGUMENT);
  static const uint8_t empty[1] = {0};
  if (!HKDF(out, out_len, mc_hash_evp_md(alg), ikm != NULL ? ikm : empty, ikm_len,
            salt != NULL ? salt : empty, salt_len, info != NULL ? info : empty, info_len)) {
    mc_wipe(out, out_len);
    return mc_bssl_fail(MC_ERR_INVALID_ARGUMENT);
  }
  return 0;
}

int mc_random_bytes(uint8_t *out, size_t out_len) {
  MC_FAIL_IF(out == NULL && out_len != 0, MC_ERR_INVALID_ARGUMENT);
  if (out_len == 0)
    return 0;
  // BoringSSL's RAND_bytes aborts rather than return weak output, and always
  // returns 1.
  RAND_bytes(out, out_len);
  return 0;
}
