// kdf.c: the hash-based part of the layer over BoringSSL: SHA-1 and SHA-2
// one-shot digests, HKDF (RFC 5869) over HMAC on BoringSSL's SHA-2 block
// functions, and random bytes. Each call maps libmsgcrypt's algorithm enum
// to BoringSSL's and its failures to MC_ERR_*.
#include <pthread.h>
#include <string.h>

#include <openssl/digest.h>
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

// The HMAC under HKDF, on BoringSSL's low-level SHA-2 contexts: BoringSSL's
// HKDF() goes through EVP_MD_CTX and HMAC_CTX, whose set-up, heap
// allocations and clean-up cost about as much as the hashing itself for
// the short inputs of a PKESK or a SEIPDv2 message key (bench_pgp
// hkdf-*). These contexts live on the stack and are wiped after use.
typedef struct {
  mc_hash_alg alg;
  union {
    SHA256_CTX s256;
    SHA512_CTX s512;
  } u;
} md_ctx;

static void md_init(md_ctx *c, mc_hash_alg alg) {
  c->alg = alg;
  if (alg == MC_HASH_SHA256)
    SHA256_Init(&c->u.s256);
  else if (alg == MC_HASH_SHA384)
    SHA384_Init(&c->u.s512);
  else
    SHA512_Init(&c->u.s512);
}

static void md_update(md_ctx *c, const uint8_t *in, size_t in_len) {
  if (in_len == 0)
    return;
  if (c->alg == MC_HASH_SHA256)
    SHA256_Update(&c->u.s256, in, in_len);
  else if (c->alg == MC_HASH_SHA384)
    SHA384_Update(&c->u.s512, in, in_len);
  else
    SHA512_Update(&c->u.s512, in, in_len);
}

static void md_final(md_ctx *c, uint8_t *out) {
  if (c->alg == MC_HASH_SHA256)
    SHA256_Final(out, &c->u.s256);
  else if (c->alg == MC_HASH_SHA384)
    SHA384_Final(out, &c->u.s512);
  else
    SHA512_Final(out, &c->u.s512);
}

// hmac_key is HMAC (RFC 2104) keyed: the hash states after the inner and
// outer padded key blocks.
typedef struct {
  md_ctx inner, outer;
  size_t hash_len;
} hmac_key;

enum { MD_MAX_BLOCK = 128 };

// hmac_init keys `h` with `key` (hashed first when longer than a block).
static void hmac_init(hmac_key *h, mc_hash_alg alg, const uint8_t *key, size_t key_len) {
  size_t block = alg == MC_HASH_SHA256 ? 64 : 128;
  uint8_t k0[MD_MAX_BLOCK] = {0};
  h->hash_len = mc_hash_digest_len(alg);
  if (key_len > block) {
    md_init(&h->inner, alg);
    md_update(&h->inner, key, key_len);
    md_final(&h->inner, k0);
  } else if (key_len > 0) {
    memcpy(k0, key, key_len);
  }
  for (size_t i = 0; i < block; i++)
    k0[i] ^= 0x36;
  md_init(&h->inner, alg);
  md_update(&h->inner, k0, block);
  for (size_t i = 0; i < block; i++)
    k0[i] ^= 0x36 ^ 0x5c;
  md_init(&h->outer, alg);
  md_update(&h->outer, k0, block);
  mc_wipe(k0, sizeof k0);
}

// hmac_mac writes HMAC(key of `h`, a || b || c) to `out` (hash_len bytes);
// `h` stays keyed for more messages.
static void hmac_mac(const hmac_key *h, uint8_t *out, const uint8_t *a, size_t a_len,
                     const uint8_t *b, size_t b_len, const uint8_t *c, size_t c_len) {
  md_ctx m = h->inner;
  uint8_t inner[MC_SHA512_DIGEST_LEN];
  md_update(&m, a, a_len);
  md_update(&m, b, b_len);
  md_update(&m, c, c_len);
  md_final(&m, inner);
  m = h->outer;
  md_update(&m, inner, h->hash_len);
  md_final(&m, out);
  mc_wipe(inner, sizeof inner);
  mc_wipe(&m, sizeof m);
}

// HKDF without a salt (the X25519 and X448 PKESKs) extracts with an
// all-zero HMAC key, whose keyed states are the same every time: they are
// computed once per hash, saving two of the seven to nine block
// compressions of such a call.
static hmac_key zero_keys[3]; // SHA-256, SHA-384, SHA-512
static pthread_once_t zero_keys_once = PTHREAD_ONCE_INIT;

static void zero_keys_init(void) {
  hmac_init(&zero_keys[0], MC_HASH_SHA256, NULL, 0);
  hmac_init(&zero_keys[1], MC_HASH_SHA384, NULL, 0);
  hmac_init(&zero_keys[2], MC_HASH_SHA512, NULL, 0);
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
  // Extract (RFC 5869 §2.2): PRK = HMAC(salt, IKM); a missing salt is
  // HashLen zeros, which pads to the same key block as an empty one.
  hmac_key h;
  uint8_t prk[MC_SHA512_DIGEST_LEN], t[MC_SHA512_DIGEST_LEN];
  if (salt_len == 0) {
    pthread_once(&zero_keys_once, zero_keys_init);
    hmac_mac(&zero_keys[alg == MC_HASH_SHA256   ? 0
                        : alg == MC_HASH_SHA384 ? 1
                                                : 2],
             prk, ikm, ikm_len, NULL, 0, NULL, 0);
  } else {
    hmac_init(&h, alg, salt, salt_len);
    hmac_mac(&h, prk, ikm, ikm_len, NULL, 0, NULL, 0);
  }
  // Expand (§2.3): T(i) = HMAC(PRK, T(i-1) || info || i).
  hmac_init(&h, alg, prk, hash_len);
  size_t done = 0, t_len = 0;
  for (uint8_t i = 1; done < out_len; i++) {
    hmac_mac(&h, t, t, t_len, info, info_len, &i, 1);
    t_len = hash_len;
    size_t n = out_len - done < hash_len ? out_len - done : hash_len;
    memcpy(out + done, t, n);
    done += n;
  }
  mc_wipe(&h, sizeof h);
  mc_wipe(prk, sizeof prk);
  mc_wipe(t, sizeof t);
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
