// pkenc.c: the public-key part of the layer over BoringSSL: RSA encryption
// (PKCS#1 v1.5 and OAEP) to a key given as modulus and exponent, ECDH on the
// NIST curves P-256/384/521 (X25519 is libmsgcrypt's own, in x25519.c, and
// so is P-256, in p256.c, which ecdh_p256 below hands over to). For the rest
// BoringSSL does the arithmetic (in constant time); this file validates
// inputs, builds and frees BoringSSL's objects, fixes the output encodings,
// and maps failures to MC_ERR_* with the error queue cleared. RSA with the
// exponent 65537, nearly every key there is, takes rsa_pub.c's public
// operation, which keeps each modulus's Montgomery context per thread; this
// file pads for it (PKCS#1 v1.5 here, OAEP through BoringSSL's encoder).
#include <string.h>

#include <openssl/bn.h>
#include <openssl/digest.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdh.h>
#include <openssl/nid.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "aead_internal.h"
#include "impl_internal.h"
#include "p256_internal.h"
#include "rsa_pub.h"

// strip_zeros skips the leading zero bytes of a big-endian integer.
static void strip_zeros(const uint8_t **p, size_t *len) {
  while (*len > 0 && **p == 0) {
    (*p)++;
    (*len)--;
  }
}

// rsa_key_check makes the checks that libmsgcrypt promises of an RSA public
// key (sizes, an odd exponent of at least 3) and strips leading zero bytes
// from `*n` and `*e`. It returns 0 or MC_ERR_BAD_KEY.
static int rsa_key_check(const uint8_t **n, size_t *n_len, const uint8_t **e, size_t *e_len) {
  strip_zeros(n, n_len);
  strip_zeros(e, e_len);
  MC_FAIL_IF(*n_len == 0 || *n_len > MC_RSA_MAX_MODULUS_LEN || *e_len == 0 || *e_len > 5,
             MC_ERR_BAD_KEY);
  unsigned n_bits = (unsigned)(*n_len - 1) * 8;
  for (uint8_t top = (*n)[0]; top != 0; top >>= 1)
    n_bits++;
  MC_FAIL_IF(n_bits < MC_RSA_MIN_MODULUS_BITS || n_bits > MC_RSA_MAX_MODULUS_BITS, MC_ERR_BAD_KEY);
  MC_FAIL_IF(((*n)[*n_len - 1] & 1) == 0 || ((*e)[*e_len - 1] & 1) == 0, MC_ERR_BAD_KEY);
  MC_FAIL_IF(*e_len == 1 && (*e)[0] < 3, MC_ERR_BAD_KEY);
  MC_FAIL_IF(*e_len == 5 && (*e)[0] > 1, MC_ERR_BAD_KEY); // at most 33 bits
  return 0;
}

// rsa_public_key builds BoringSSL's RSA public key from `n` and `e`, which
// rsa_key_check accepted, leaving BoringSSL to check the rest when it uses
// the key. It sets `*out` and returns 0, or returns -ENOMEM.
static int rsa_public_key(RSA **out, const uint8_t *n, size_t n_len, const uint8_t *e,
                          size_t e_len) {
  *out = NULL;
  RSA *rsa = RSA_new();
  BIGNUM *bn_n = BN_bin2bn(n, n_len, NULL);
  BIGNUM *bn_e = BN_bin2bn(e, e_len, NULL);
  if (rsa == NULL || bn_n == NULL || bn_e == NULL || !RSA_set0_key(rsa, bn_n, bn_e, NULL)) {
    RSA_free(rsa);
    BN_free(bn_n);
    BN_free(bn_e);
    return mc_bssl_fail(-ENOMEM);
  }
  *out = rsa;
  return 0;
}

// rsa_raw_encrypt applies the public RSA operation for (`n`, `e`) to the
// `n_len`-byte encoded message `em` (already padded, below n) and writes
// the `n_len`-byte ciphertext to `out`: rsa_pub.c's for e = 65537,
// BoringSSL's RSA_encrypt without padding for other exponents.
static int rsa_raw_encrypt(uint8_t *out, const uint8_t *n, size_t n_len, const uint8_t *e,
                           size_t e_len, const uint8_t *em) {
  if (mc_rsa_pub_is_f4(e, e_len))
    return mc_rsa_public_f4(out, n, n_len, em);
  RSA *rsa;
  MC_TRY(rsa_public_key(&rsa, n, n_len, e, e_len));
  size_t written = 0;
  int ret = 0;
  if (!RSA_encrypt(rsa, &written, out, n_len, em, n_len, RSA_NO_PADDING) || written != n_len)
    ret = mc_bssl_fail(MC_ERR_BAD_KEY);
  RSA_free(rsa);
  return ret;
}

// pkcs1_pad writes RSAES-PKCS1-v1_5's encoded message (RFC 8017 §7.2.1):
// 0x00 0x02, at least eight random non-zero bytes, 0x00, then `in`, `k`
// bytes in all. A zero byte of the random string is drawn again until it
// is not zero: the time shows how many were, which says nothing about `in`.
static int pkcs1_pad(uint8_t *em, size_t k, const uint8_t *in, size_t in_len) {
  size_t ps_len = k - 3 - in_len;
  em[0] = 0;
  em[1] = 2;
  MC_TRY(mc_random_bytes(em + 2, ps_len));
  for (size_t i = 2; i < 2 + ps_len; i++)
    while (em[i] == 0)
      MC_TRY(mc_random_bytes(em + i, 1));
  em[2 + ps_len] = 0;
  if (in_len > 0)
    memcpy(em + 3 + ps_len, in, in_len);
  return 0;
}

int mc_rsa_encrypt_pkcs1(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *modulus,
                         size_t modulus_len, const uint8_t *exponent, size_t exponent_len,
                         const uint8_t *in, size_t in_len) {
  MC_FAIL_IF(out == NULL || out_len == NULL || modulus == NULL || exponent == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in == NULL && in_len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(rsa_key_check(&modulus, &modulus_len, &exponent, &exponent_len));
  size_t k = modulus_len;
  MC_FAIL_IF(in_len > k - 11, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < k, MC_ERR_BUFFER_TOO_SMALL);
  // The encoded message holds the plaintext: it is wiped.
  uint8_t em[MC_RSA_MAX_MODULUS_LEN];
  int ret = pkcs1_pad(em, k, in, in_len);
  if (ret == 0)
    ret = rsa_raw_encrypt(out, modulus, modulus_len, exponent, exponent_len, em);
  if (ret == 0)
    *out_len = k;
  mc_wipe(em, k);
  return ret;
}

int mc_rsa_encrypt_oaep(mc_hash_alg alg, uint8_t *out, size_t out_cap, size_t *out_len,
                        const uint8_t *modulus, size_t modulus_len, const uint8_t *exponent,
                        size_t exponent_len, const uint8_t *label, size_t label_len,
                        const uint8_t *in, size_t in_len) {
  const EVP_MD *md = mc_hash_evp_md(alg);
  size_t hash_len = mc_hash_digest_len(alg);
  MC_FAIL_IF(md == NULL || out == NULL || out_len == NULL || modulus == NULL || exponent == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((in == NULL && in_len != 0) || (label == NULL && label_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_TRY(rsa_key_check(&modulus, &modulus_len, &exponent, &exponent_len));
  size_t k = modulus_len;
  MC_FAIL_IF(k < 2 * hash_len + 2 || in_len > k - 2 * hash_len - 2, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < k, MC_ERR_BUFFER_TOO_SMALL);
  // The encoded message masks the plaintext with a hash of a random seed:
  // it is as secret as the plaintext and is wiped.
  static const uint8_t empty[1] = {0};
  uint8_t em[MC_RSA_MAX_MODULUS_LEN];
  int ret = 0;
  if (!RSA_padding_add_PKCS1_OAEP_mgf1(em, k, in != NULL ? in : empty, in_len,
                                       label != NULL ? label : empty, label_len, md, md))
    ret = mc_bssl_fail(MC_ERR_INVALID_ARGUMENT);
  else
    ret = rsa_raw_encrypt(out, modulus, modulus_len, exponent, exponent_len, em);
  if (ret == 0)
    *out_len = k;
  mc_wipe(em, k);
  return ret;
}

size_t mc_ec_field_len(mc_ec_curve curve) {
  switch (curve) {
  case MC_EC_P256:
    return MC_EC_P256_FIELD_LEN;
  case MC_EC_P384:
    return MC_EC_P384_FIELD_LEN;
  case MC_EC_P521:
    return MC_EC_P521_FIELD_LEN;
  }
  return 0;
}

size_t mc_ec_point_len(mc_ec_curve curve) {
  size_t field_len = mc_ec_field_len(curve);
  return field_len == 0 ? 0 : 1 + 2 * field_len;
}

static int curve_nid(mc_ec_curve curve) {
  switch (curve) {
  case MC_EC_P256:
    return NID_X9_62_prime256v1;
  case MC_EC_P384:
    return NID_secp384r1;
  case MC_EC_P521:
    return NID_secp521r1;
  }
  return NID_undef;
}

// ecdh_p256 is ecdh for P-256, on libmsgcrypt's own arithmetic (p256.c).
// A random scalar is drawn until it lies in [1, n - 1] (a redraw, which
// shows, has probability 2^-32 and reveals nothing about the kept one); a
// given scalar loses its leading zero bytes first, which time may show, as
// it did with BoringSSL's BN_bin2bn (that path is for tests and static keys
// from the caller).
static int ecdh_p256(uint8_t *out_public, uint8_t *out_shared, const uint8_t *scalar,
                     size_t scalar_len, const uint8_t *peer_public, size_t peer_public_len) {
  MC_TRY(mc_impl_check());
  uint8_t k[MC_P256_SCALAR_LEN];
  if (scalar == NULL) {
    do
      RAND_bytes(k, sizeof k);
    while (!mc_p256_scalar_check(k));
  } else {
    strip_zeros(&scalar, &scalar_len);
    MC_FAIL_IF(scalar_len == 0 || scalar_len > sizeof k, MC_ERR_BAD_KEY);
    memset(k, 0, sizeof k);
    memcpy(k + sizeof k - scalar_len, scalar, scalar_len);
  }
  int ret = mc_p256_ecdh(out_public, out_shared, k, peer_public, peer_public_len);
  mc_wipe(k, sizeof k);
  return ret;
}

// ecdh does both ECDH entry points: with `scalar` NULL the ephemeral key is
// generated, otherwise it is `scalar`.
static int ecdh(mc_ec_curve curve, uint8_t *out_public, size_t out_public_cap, uint8_t *out_shared,
                size_t out_shared_cap, const uint8_t *scalar, size_t scalar_len,
                const uint8_t *peer_public, size_t peer_public_len) {
  size_t field_len = mc_ec_field_len(curve), point_len = mc_ec_point_len(curve);
  MC_FAIL_IF(field_len == 0 || out_public == NULL || out_shared == NULL || peer_public == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_public_cap < point_len || out_shared_cap < field_len, MC_ERR_BUFFER_TOO_SMALL);
  // A compressed or uncompressed point, never the point at infinity (0x00).
  MC_FAIL_IF(peer_public_len != point_len && peer_public_len != 1 + field_len, MC_ERR_BAD_KEY);
  if (curve == MC_EC_P256)
    return ecdh_p256(out_public, out_shared, scalar, scalar_len, peer_public, peer_public_len);

  int ret = 0;
  EC_KEY *key = EC_KEY_new_by_curve_name(curve_nid(curve));
  const EC_GROUP *group = key != NULL ? EC_KEY_get0_group(key) : NULL;
  EC_POINT *peer = group != NULL ? EC_POINT_new(group) : NULL;
  BIGNUM *priv = NULL;
  if (peer == NULL) {
    ret = mc_bssl_fail(-ENOMEM);
    goto done;
  }
  // EC_POINT_oct2point checks that the point lies on the curve.
  if (!EC_POINT_oct2point(group, peer, peer_public, peer_public_len, NULL)) {
    ret = mc_bssl_fail(MC_ERR_BAD_KEY);
    goto done;
  }
  if (scalar == NULL) {
    if (!EC_KEY_generate_key(key)) {
      ret = mc_bssl_fail(-ENOMEM);
      goto done;
    }
  } else {
    priv = BN_bin2bn(scalar, scalar_len, NULL);
    if (priv == NULL) {
      ret = mc_bssl_fail(-ENOMEM);
      goto done;
    }
    if (BN_is_zero(priv) || BN_cmp(priv, EC_GROUP_get0_order(group)) >= 0) {
      ret = MC_ERR_BAD_KEY;
      goto done;
    }
    EC_POINT *pub = EC_POINT_new(group);
    int ok = pub != NULL && EC_POINT_mul(group, pub, priv, NULL, NULL, NULL) &&
             EC_KEY_set_private_key(key, priv) && EC_KEY_set_public_key(key, pub);
    EC_POINT_free(pub);
    if (!ok) {
      ret = mc_bssl_fail(-ENOMEM);
      goto done;
    }
  }
  if (EC_POINT_point2oct(group, EC_KEY_get0_public_key(key), POINT_CONVERSION_UNCOMPRESSED,
                         out_public, point_len, NULL) != point_len ||
      ECDH_compute_key(out_shared, field_len, peer, key, NULL) != (int)field_len) {
    mc_wipe(out_shared, field_len);
    ret = mc_bssl_fail(MC_ERR_BAD_KEY);
  }

done:
  BN_clear_free(priv);
  EC_POINT_free(peer);
  EC_KEY_free(key); // cleanses the private scalar
  return ret;
}

int mc_ecdh_ephemeral(mc_ec_curve curve, uint8_t *out_public, size_t out_public_cap,
                      uint8_t *out_shared, size_t out_shared_cap, const uint8_t *peer_public,
                      size_t peer_public_len) {
  return ecdh(curve, out_public, out_public_cap, out_shared, out_shared_cap, NULL, 0, peer_public,
              peer_public_len);
}

int mc_ecdh_ephemeral_derand(mc_ec_curve curve, uint8_t *out_public, size_t out_public_cap,
                             uint8_t *out_shared, size_t out_shared_cap, const uint8_t *scalar,
                             size_t scalar_len, const uint8_t *peer_public,
                             size_t peer_public_len) {
  MC_FAIL_IF(scalar == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(scalar_len == 0 || scalar_len > 2 * MC_EC_MAX_FIELD_LEN, MC_ERR_BAD_KEY);
  return ecdh(curve, out_public, out_public_cap, out_shared, out_shared_cap, scalar, scalar_len,
              peer_public, peer_public_len);
}
