// pgp_sig.c: OpenPGP signature packets (RFC 9580 §5.2) for key validity:
// parsing v4 and v6 signatures and the subpackets that key validity uses,
// computing the hash over the key and user-ID data a signature type covers,
// and verifying it with RSA PKCS#1 v1.5, ECDSA on the NIST curves, legacy
// EdDSA, Ed25519, Ed448 and the ML-DSA composites of RFC 9980. BoringSSL
// provides RSA, ECDSA, Ed25519 and SHA-1/SHA-2; this library provides
// SHA-3, Ed448 and ML-DSA.
#include <errno.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/curve25519.h>
#include <openssl/digest.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/nid.h>
#include <openssl/rsa.h>

#include "pgp_internal.h"

// Hash algorithm IDs (RFC 9580 §9.5).
enum {
  PGP_HASH_SHA1 = 2,
  PGP_HASH_SHA256 = 8,
  PGP_HASH_SHA384 = 9,
  PGP_HASH_SHA512 = 10,
  PGP_HASH_SHA224 = 11,
  PGP_HASH_SHA3_256 = 12,
  PGP_HASH_SHA3_512 = 14,
};

// pgp_subpacket_known lists the subpacket types RFC 9580 §5.2.3.7 defines;
// a critical subpacket of any other type makes the signature invalid.
static int pgp_subpacket_known(uint8_t type) {
  switch (type) {
  case 2:
  case 3:
  case 4:
  case 5:
  case 6:
  case 7:
  case 9:
  case 11:
  case 12:
  case 16:
  case 21:
  case 22:
  case 23:
  case 24:
  case 25:
  case 26:
  case 27:
  case 28:
  case 29:
  case 30:
  case 31:
  case 32:
  case 33:
  case 35:
  case 37:
  case 38:
  case 39:
    return 1;
  default:
    return 0;
  }
}

// pgp_sig_subpackets reads one subpacket area; `hashed` selects whether
// its content may be trusted (only the issuer and the self-authenticating
// embedded signature are taken from the unhashed area).
static int pgp_sig_subpackets(pgp_sig *s, const uint8_t *area, size_t area_len, int hashed) {
  pgp_cur c;
  pgp_cur_init(&c, area, area_len);
  while (c.len > 0) {
    uint8_t l0, l1, type;
    uint32_t len;
    if (!pgp_cur_get_u8(&c, &l0))
      return 0;
    if (l0 < 192) {
      len = l0;
    } else if (l0 < 255) {
      if (!pgp_cur_get_u8(&c, &l1))
        return 0;
      len = ((uint32_t)(l0 - 192) << 8) + l1 + 192;
    } else if (!pgp_cur_get_u32(&c, &len)) {
      return 0;
    }
    const uint8_t *v;
    if (len == 0 || !pgp_cur_get_u8(&c, &type) || !pgp_cur_get_bytes(&c, &v, len - 1))
      return 0;
    size_t n = len - 1;
    int critical = type & 0x80;
    type &= 0x7f;
    if (hashed && critical && (!pgp_subpacket_known(type) || type == 20))
      s->unknown_critical = 1; // includes critical notations: we know none
    if (type == 16 && n == 8) {
      memcpy(s->issuer_key_id, v, 8);
      s->has_issuer_key_id = 1;
    } else if (type == 33 && n >= 1 && (n - 1 == 20 || n - 1 == 32)) {
      memcpy(s->issuer_fpr, v + 1, n - 1);
      s->issuer_fpr_len = n - 1;
    } else if (type == 32) {
      s->embedded = v;
      s->embedded_len = n;
    }
    if (!hashed)
      continue;
    switch (type) {
    case 2:
      if (n != 4)
        return 0;
      s->created = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
      s->has_created = 1;
      break;
    case 3:
    case 9:
      if (n != 4)
        return 0;
      *(type == 3 ? &s->sig_expires : &s->key_expires) =
          (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
      break;
    case 11:
      s->num_pref_sym = n < PGP_MAX_PREFS ? n : PGP_MAX_PREFS;
      memcpy(s->pref_sym, v, s->num_pref_sym);
      s->has_pref_sym = 1;
      break;
    case 39:
      s->num_pref_aead = n / 2 < PGP_MAX_PREFS ? n / 2 : PGP_MAX_PREFS;
      memcpy(s->pref_aead, v, 2 * s->num_pref_aead);
      s->has_pref_aead = 1;
      break;
    case 25:
      s->primary_uid = n >= 1 && v[0] != 0;
      break;
    case 27:
      s->key_flags = n >= 1 ? v[0] : 0;
      s->has_key_flags = 1;
      break;
    case 30:
      s->features = n >= 1 ? v[0] : 0;
      s->has_features = 1;
      break;
    case 29:
      s->revocation_reason = n >= 1 ? v[0] : 0;
      break;
    default:
      break;
    }
  }
  return 1;
}

static size_t pgp_v6_salt_len(uint8_t hash_algo) {
  switch (hash_algo) {
  case PGP_HASH_SHA256:
  case PGP_HASH_SHA224:
  case PGP_HASH_SHA3_256:
    return 16;
  case PGP_HASH_SHA384:
    return 24;
  case PGP_HASH_SHA512:
  case PGP_HASH_SHA3_512:
    return 32;
  default:
    return 0;
  }
}

int pgp_sig_parse(pgp_sig *out, const uint8_t *body, size_t body_len) {
  pgp_sig s;
  memset(&s, 0, sizeof s);
  pgp_cur c;
  pgp_cur_init(&c, body, body_len);
  const uint8_t *hashed, *unhashed, *left;
  uint32_t hashed_len, unhashed_len;
  if (!pgp_cur_get_u8(&c, &s.version))
    return MC_ERR_BAD_SIGNATURE;
  if (s.version != 4 && s.version != 6)
    return MC_ERR_UNSUPPORTED;
  int v6 = s.version == 6;
  if (!pgp_cur_get_u8(&c, &s.type) || !pgp_cur_get_u8(&c, &s.pk_algo) ||
      !pgp_cur_get_u8(&c, &s.hash_algo) ||
      !(v6 ? pgp_cur_get_u32(&c, &hashed_len) : pgp_cur_get_u16(&c, &hashed_len)) ||
      !pgp_cur_get_bytes(&c, &hashed, hashed_len))
    return MC_ERR_BAD_SIGNATURE;
  s.hashed_part = body;
  s.hashed_part_len = (size_t)(c.p - body);
  uint8_t salt_len = 0;
  if (!(v6 ? pgp_cur_get_u32(&c, &unhashed_len) : pgp_cur_get_u16(&c, &unhashed_len)) ||
      !pgp_cur_get_bytes(&c, &unhashed, unhashed_len) || !pgp_cur_get_bytes(&c, &left, 2) ||
      (v6 && (!pgp_cur_get_u8(&c, &salt_len) || !pgp_cur_get_bytes(&c, &s.salt, salt_len))))
    return MC_ERR_BAD_SIGNATURE;
  s.salt_len = salt_len;
  memcpy(s.left16, left, 2);
  s.material = c.p;
  s.material_len = c.len;
  if (!pgp_sig_subpackets(&s, hashed, hashed_len, 1) ||
      !pgp_sig_subpackets(&s, unhashed, unhashed_len, 0))
    return MC_ERR_BAD_SIGNATURE;
  *out = s;
  return 0;
}

// pgp_hash is a running digest of any algorithm a signature may name.
typedef struct pgp_hash {
  int sha3;
  EVP_MD_CTX md;
  mc_sha3_ctx s3;
} pgp_hash;

static int pgp_hash_init(pgp_hash *h, uint8_t algo) {
  const EVP_MD *md = NULL;
  h->sha3 = 0;
  EVP_MD_CTX_init(&h->md);
  switch (algo) {
  case PGP_HASH_SHA1:
    md = EVP_sha1();
    break;
  case PGP_HASH_SHA224:
    md = EVP_sha224();
    break;
  case PGP_HASH_SHA256:
    md = EVP_sha256();
    break;
  case PGP_HASH_SHA384:
    md = EVP_sha384();
    break;
  case PGP_HASH_SHA512:
    md = EVP_sha512();
    break;
  case PGP_HASH_SHA3_256:
  case PGP_HASH_SHA3_512:
    h->sha3 = 1;
    return mc_sha3_init(&h->s3, algo == PGP_HASH_SHA3_256 ? MC_SHA3_256 : MC_SHA3_512) == 0
               ? 0
               : MC_ERR_UNSUPPORTED;
  default:
    return MC_ERR_UNSUPPORTED;
  }
  return EVP_DigestInit_ex(&h->md, md, NULL) == 1 ? 0 : -ENOMEM;
}

static void pgp_hash_update(pgp_hash *h, const uint8_t *in, size_t in_len) {
  if (h->sha3) {
    // Cannot fail: the context is absorbing until pgp_hash_final.
    if (mc_sha3_update(&h->s3, in, in_len) != 0)
      return;
  } else
    EVP_DigestUpdate(&h->md, in, in_len);
}

static size_t pgp_hash_final(pgp_hash *h, uint8_t out[64]) {
  size_t n = 0;
  if (h->sha3) {
    if (mc_sha3_final(&h->s3, out, 64, &n) != 0)
      n = 0;
  } else {
    unsigned u = 0;
    if (EVP_DigestFinal_ex(&h->md, out, &u) != 1)
      u = 0;
    n = u;
  }
  EVP_MD_CTX_cleanup(&h->md);
  return n;
}

static void pgp_hash_key(pgp_hash *h, const pgp_key *k) {
  uint8_t hdr[5];
  if (k->version == 4) {
    hdr[0] = 0x99;
    hdr[1] = (uint8_t)(k->body_len >> 8);
    hdr[2] = (uint8_t)k->body_len;
    pgp_hash_update(h, hdr, 3);
  } else {
    hdr[0] = 0x9b;
    hdr[1] = (uint8_t)(k->body_len >> 24);
    hdr[2] = (uint8_t)(k->body_len >> 16);
    hdr[3] = (uint8_t)(k->body_len >> 8);
    hdr[4] = (uint8_t)k->body_len;
    pgp_hash_update(h, hdr, 5);
  }
  pgp_hash_update(h, k->body, k->body_len);
}

// pgp_pad_copy copies the big-endian `in` right-aligned into `out_len`
// bytes of `out`; it fails when `in` is longer.
static int pgp_pad_copy(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len) {
  if (in_len > out_len)
    return 0;
  memset(out, 0, out_len - in_len);
  memcpy(out + out_len - in_len, in, in_len);
  return 1;
}

static int pgp_verify_rsa(const pgp_key *k, uint8_t hash_algo, const uint8_t *digest,
                          size_t digest_len, pgp_cur *m) {
  const uint8_t *s;
  size_t s_len;
  int nid;
  switch (hash_algo) {
  case PGP_HASH_SHA1:
    nid = NID_sha1;
    break;
  case PGP_HASH_SHA224:
    nid = NID_sha224;
    break;
  case PGP_HASH_SHA256:
    nid = NID_sha256;
    break;
  case PGP_HASH_SHA384:
    nid = NID_sha384;
    break;
  case PGP_HASH_SHA512:
    nid = NID_sha512;
    break;
  default:
    return MC_ERR_UNSUPPORTED;
  }
  if (!pgp_cur_get_mpi(m, &s, &s_len, NULL) || m->len != 0 || s_len > k->rsa_n_len)
    return MC_ERR_BAD_SIGNATURE;
  uint8_t sig[1024];
  if (k->rsa_n_len > sizeof sig || !pgp_pad_copy(sig, k->rsa_n_len, s, s_len))
    return MC_ERR_BAD_SIGNATURE;
  int ret = -ENOMEM;
  RSA *rsa = RSA_new();
  BIGNUM *n = BN_bin2bn(k->rsa_n, k->rsa_n_len, NULL);
  BIGNUM *e = BN_bin2bn(k->rsa_e, k->rsa_e_len, NULL);
  if (rsa != NULL && n != NULL && e != NULL && RSA_set0_key(rsa, n, e, NULL)) {
    n = e = NULL; // owned by rsa now
    ret =
        RSA_verify(nid, digest, digest_len, sig, k->rsa_n_len, rsa) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  }
  BN_free(n);
  BN_free(e);
  RSA_free(rsa);
  ERR_clear_error();
  return ret;
}

static int pgp_verify_ecdsa(const pgp_key *k, const uint8_t *digest, size_t digest_len,
                            pgp_cur *m) {
  const uint8_t *r, *s;
  size_t r_len, s_len;
  if (!pgp_cur_get_mpi(m, &r, &r_len, NULL) || !pgp_cur_get_mpi(m, &s, &s_len, NULL) || m->len != 0)
    return MC_ERR_BAD_SIGNATURE;
  int nid = k->curve == PGP_CURVE_P256   ? NID_X9_62_prime256v1
            : k->curve == PGP_CURVE_P384 ? NID_secp384r1
                                         : NID_secp521r1;
  int ret = -ENOMEM;
  EC_KEY *key = EC_KEY_new_by_curve_name(nid);
  EC_POINT *pt = key != NULL ? EC_POINT_new(EC_KEY_get0_group(key)) : NULL;
  ECDSA_SIG *sig = ECDSA_SIG_new();
  BIGNUM *br = BN_bin2bn(r, r_len, NULL), *bs = BN_bin2bn(s, s_len, NULL);
  if (pt != NULL && sig != NULL && br != NULL && bs != NULL) {
    if (!EC_POINT_oct2point(EC_KEY_get0_group(key), pt, k->point, k->point_len, NULL) ||
        !EC_KEY_set_public_key(key, pt)) {
      ret = MC_ERR_BAD_SIGNATURE;
    } else if (ECDSA_SIG_set0(sig, br, bs)) {
      br = bs = NULL;
      ret = ECDSA_do_verify(digest, digest_len, sig, key) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
    }
  }
  BN_free(br);
  BN_free(bs);
  ECDSA_SIG_free(sig);
  EC_POINT_free(pt);
  EC_KEY_free(key);
  ERR_clear_error();
  return ret;
}

static int pgp_verify_material(const pgp_key *k, uint8_t hash_algo, const uint8_t *digest,
                               size_t digest_len, const uint8_t *material, size_t material_len) {
  pgp_cur m;
  pgp_cur_init(&m, material, material_len);
  switch (k->algo) {
  case PGP_PK_RSA:
    return pgp_verify_rsa(k, hash_algo, digest, digest_len, &m);
  case PGP_PK_ECDSA:
    return pgp_verify_ecdsa(k, digest, digest_len, &m);
  case PGP_PK_EDDSA_LEGACY: {
    // Legacy EdDSA: the native R and S, each as an MPI (RFC 9580 §5.2.3.3).
    const uint8_t *r, *s;
    size_t r_len, s_len;
    uint8_t sig[64];
    if (!pgp_cur_get_mpi(&m, &r, &r_len, NULL) || !pgp_cur_get_mpi(&m, &s, &s_len, NULL) ||
        m.len != 0 || !pgp_pad_copy(sig, 32, r, r_len) || !pgp_pad_copy(sig + 32, 32, s, s_len))
      return MC_ERR_BAD_SIGNATURE;
    return ED25519_verify(digest, digest_len, sig, k->point + 1) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  }
  case PGP_PK_ED25519:
    if (material_len != 64 || digest_len < 32)
      return MC_ERR_BAD_SIGNATURE;
    return ED25519_verify(digest, digest_len, material, k->ecc_pub) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  case PGP_PK_ED448:
    if (material_len != MC_ED448_SIGNATURE_LEN || digest_len < 64)
      return MC_ERR_BAD_SIGNATURE;
    return mc_ed448_verify(k->ecc_pub, material, material_len, digest, digest_len, NULL, 0) == 0
               ? 0
               : MC_ERR_BAD_SIGNATURE;
  case PGP_PK_MLDSA65_ED25519:
    // RFC 9980: both the EdDSA and the ML-DSA signature over the digest
    // must verify.
    if (material_len != 64 + MC_MLDSA65_SIGNATURE_LEN || digest_len < 32)
      return MC_ERR_BAD_SIGNATURE;
    if (ED25519_verify(digest, digest_len, material, k->ecc_pub) != 1)
      return MC_ERR_BAD_SIGNATURE;
    return mc_mldsa_verify(MC_MLDSA_65, k->pq_pub, k->pq_pub_len, material + 64,
                           MC_MLDSA65_SIGNATURE_LEN, digest, digest_len, NULL, 0) == 0
               ? 0
               : MC_ERR_BAD_SIGNATURE;
  case PGP_PK_MLDSA87_ED448:
    if (material_len != MC_ED448_SIGNATURE_LEN + MC_MLDSA87_SIGNATURE_LEN || digest_len < 32)
      return MC_ERR_BAD_SIGNATURE;
    if (mc_ed448_verify(k->ecc_pub, material, MC_ED448_SIGNATURE_LEN, digest, digest_len, NULL,
                        0) != 0)
      return MC_ERR_BAD_SIGNATURE;
    return mc_mldsa_verify(MC_MLDSA_87, k->pq_pub, k->pq_pub_len, material + MC_ED448_SIGNATURE_LEN,
                           MC_MLDSA87_SIGNATURE_LEN, digest, digest_len, NULL, 0) == 0
               ? 0
               : MC_ERR_BAD_SIGNATURE;
  default:
    return MC_ERR_UNSUPPORTED;
  }
}

int pgp_sig_verify(const pgp_sig *sig, const pgp_key *signer, const pgp_key *primary,
                   const pgp_key *subkey, const uint8_t *uid, size_t uid_len, uint8_t uid_tag) {
  if (sig->unknown_critical || !sig->has_created || sig->version != signer->version ||
      sig->pk_algo != signer->algo)
    return MC_ERR_BAD_SIGNATURE;
  if (!pgp_key_can_sign(signer))
    return MC_ERR_UNSUPPORTED;
  if (sig->version == 6 && sig->salt_len != pgp_v6_salt_len(sig->hash_algo))
    return MC_ERR_BAD_SIGNATURE;
  // RFC 9980: no SHA-1 on binding signatures over its algorithms.
  if (sig->hash_algo == PGP_HASH_SHA1 &&
      (signer->algo >= PGP_PK_MLDSA65_ED25519 ||
       (subkey != NULL && subkey->algo >= PGP_PK_MLDSA65_ED25519)))
    return MC_ERR_BAD_SIGNATURE;

  pgp_hash h;
  int r = pgp_hash_init(&h, sig->hash_algo);
  if (r != 0)
    return r;
  if (sig->version == 6)
    pgp_hash_update(&h, sig->salt, sig->salt_len);
  switch (sig->type) {
  case PGP_SIG_SUBKEY_BINDING:
  case PGP_SIG_PRIMARY_BINDING:
  case PGP_SIG_SUBKEY_REVOCATION:
    if (subkey == NULL)
      goto bad;
    pgp_hash_key(&h, primary);
    pgp_hash_key(&h, subkey);
    break;
  case PGP_SIG_DIRECT_KEY:
  case PGP_SIG_KEY_REVOCATION:
    pgp_hash_key(&h, primary);
    break;
  case 0x10:
  case 0x11:
  case 0x12:
  case 0x13:
  case PGP_SIG_CERT_REVOCATION: {
    if (uid == NULL && uid_len > 0)
      goto bad;
    pgp_hash_key(&h, primary);
    uint8_t hdr[5] = {uid_tag == PGP_TAG_USER_ATTRIBUTE ? 0xd1 : 0xb4, (uint8_t)(uid_len >> 24),
                      (uint8_t)(uid_len >> 16), (uint8_t)(uid_len >> 8), (uint8_t)uid_len};
    pgp_hash_update(&h, hdr, 5);
    pgp_hash_update(&h, uid, uid_len);
    break;
  }
  default:
    goto bad;
  }
  pgp_hash_update(&h, sig->hashed_part, sig->hashed_part_len);
  uint8_t trailer[6] = {sig->version,
                        0xff,
                        (uint8_t)(sig->hashed_part_len >> 24),
                        (uint8_t)(sig->hashed_part_len >> 16),
                        (uint8_t)(sig->hashed_part_len >> 8),
                        (uint8_t)sig->hashed_part_len};
  pgp_hash_update(&h, trailer, 6);
  uint8_t digest[64];
  size_t digest_len = pgp_hash_final(&h, digest);
  if (digest_len == 0)
    return -ENOMEM;
  if (memcmp(digest, sig->left16, 2) != 0)
    return MC_ERR_BAD_SIGNATURE;
  return pgp_verify_material(signer, sig->hash_algo, digest, digest_len, sig->material,
                             sig->material_len);
bad:
  (void)pgp_hash_final(&h, digest);
  return MC_ERR_BAD_SIGNATURE;
}
