// cms_recipient_info.c: one RecipientInfo of a CMS EnvelopedData or
// AuthEnvelopedData (RFC 5652 §6.2): it encrypts the content-encryption key
// to one recipient and encodes the result. RSA recipients get a
// KeyTransRecipientInfo (PKCS#1 v1.5, or RSAES-OAEP with SHA-256 per RFC
// 8017/4055); ML-KEM recipients get an OtherRecipientInfo carrying a
// KEMRecipientInfo (RFC 9629) with HKDF-SHA256 and AES key wrap as RFC 9936
// specifies; elliptic-curve recipients get a KeyAgreeRecipientInfo with an
// ephemeral key: ECDH on P-256/384/521 with the X9.63 KDF (RFC 5753 §7.2,
// RFC 5008) and X25519/X448 with HKDF (RFC 8418), AES-256 key wrap. Secrets
// live in local buffers wiped before returning.
#include <errno.h>
#include <string.h>

#include "cms_internal.h"
#include "msgcrypt_internal.h"
#include "x25519_internal.h"

static const uint8_t oid_rsa_encryption[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};
static const uint8_t oid_rsaes_oaep[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x07};
static const uint8_t oid_mgf1[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08};
static const uint8_t oid_sha256[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01};
static const uint8_t oid_ori_kem[11] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
                                        0x01, 0x09, 0x10, 0x0d, 0x03};
static const uint8_t oid_hkdf_sha256[11] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
                                            0x01, 0x09, 0x10, 0x03, 0x1c};
static const uint8_t oid_aes128_wrap[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x05};
static const uint8_t oid_aes256_wrap[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2d};
static const uint8_t oid_ec_public_key[7] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t oid_p256[8] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
static const uint8_t oid_p384[5] = {0x2b, 0x81, 0x04, 0x00, 0x22};
static const uint8_t oid_p521[5] = {0x2b, 0x81, 0x04, 0x00, 0x23};
static const uint8_t oid_x25519[3] = {0x2b, 0x65, 0x6e};
static const uint8_t oid_x448[3] = {0x2b, 0x65, 0x6f};
// dhSinglePass-stdDH-sha{256,384,512}kdf-scheme, 1.3.132.1.11.{1,2,3}
// (RFC 5753 §7.1.4); the last byte is filled in.
static const uint8_t oid_stddh_sha_kdf_prefix[5] = {0x2b, 0x81, 0x04, 0x01, 0x0b};
// dhSinglePass-stdDH-hkdf-sha{256,384,512}-scheme,
// 1.2.840.113549.1.9.16.3.{19,20,21} (RFC 8418 §2.1).
static const uint8_t oid_stddh_hkdf_prefix[10] = {0x2a, 0x86, 0x48, 0x86, 0xf7,
                                                  0x0d, 0x01, 0x09, 0x10, 0x03};
// id-alg-ml-kem-512/768/1024 are 2.16.840.1.101.3.4.4.{1,2,3}; the last
// byte is filled in per level.
static const uint8_t oid_mlkem_prefix[8] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04};

// write_rid writes the RecipientIdentifier: the subject key identifier as
// [0] IMPLICIT OCTET STRING, or IssuerAndSerialNumber.
static int write_rid(dw *w, const cms_recipient *r, int use_ski) {
  if (use_ski) {
    if (r->ski == NULL || r->ski_len == 0)
      return MC_ERR_INVALID_ARGUMENT;
    dw_element(w, 0x80, r->ski, r->ski_len);
    return 0;
  }
  if (r->issuer_der == NULL || r->issuer_der_len == 0 || r->serial == NULL || r->serial_len == 0)
    return MC_ERR_INVALID_ARGUMENT;
  size_t m = dw_open(w, 0x30);
  dw_bytes(w, r->issuer_der, r->issuer_der_len);
  dw_integer(w, r->serial, r->serial_len);
  dw_close(w, m);
  return 0;
}

static int is_mlkem(cms_key_type t) {
  return t == CMS_KEY_MLKEM512 || t == CMS_KEY_MLKEM768 || t == CMS_KEY_MLKEM1024;
}

size_t cms_ri_max_len(const cms_recipient *r) {
  size_t id = r->issuer_der_len + r->serial_len + r->ski_len + 32;
  if (r->issuer_der_len > SIZE_MAX / 4 || r->serial_len > SIZE_MAX / 4 || r->ski_len > SIZE_MAX / 4)
    return SIZE_MAX;
  if (r->type == CMS_KEY_RSA)
    return id + (r->rsa_n_len > MC_RSA_MAX_MODULUS_LEN ? MC_RSA_MAX_MODULUS_LEN : r->rsa_n_len) +
           128;
  if (is_mlkem(r->type))
    return id + MC_MLKEM_MAX_CIPHERTEXT_LEN + 160;
  return id + MC_EC_MAX_POINT_LEN + 192;
}

// write_ktri encrypts the CEK with RSA and writes a KeyTransRecipientInfo.
static int write_ktri(dw *w, const cms_recipient *r, const cms_params *p, const uint8_t *cek,
                      size_t cek_len) {
  uint8_t ek[MC_RSA_MAX_MODULUS_LEN];
  size_t ek_len = 0;
  int rc;
  if (p->rsa == MC_SMIME_RSA_OAEP_SHA256)
    rc = mc_rsa_encrypt_oaep(MC_HASH_SHA256, ek, sizeof ek, &ek_len, r->rsa_n, r->rsa_n_len,
                             r->rsa_e, r->rsa_e_len, NULL, 0, cek, cek_len);
  else
    rc = mc_rsa_encrypt_pkcs1(ek, sizeof ek, &ek_len, r->rsa_n, r->rsa_n_len, r->rsa_e,
                              r->rsa_e_len, cek, cek_len);
  if (rc == MC_ERR_INVALID_ARGUMENT)
    rc = MC_ERR_BAD_KEY; // a CEK too long for the modulus means a tiny key
  if (rc != 0)
    return rc;
  int use_ski = p->rid == MC_SMIME_RID_SKI;
  size_t m = dw_open(w, 0x30);
  dw_uint(w, use_ski ? 2 : 0); // RFC 5652 §6.2.1: 0 with issuerAndSerialNumber
  rc = write_rid(w, r, use_ski);
  if (rc == 0) {
    size_t alg = dw_open(w, 0x30);
    if (p->rsa == MC_SMIME_RSA_OAEP_SHA256) {
      // RSAES-OAEP-params (RFC 4055 §4.1): SHA-256 and MGF1-SHA-256 are
      // spelled out because the defaults are SHA-1; pSourceFunc stays the
      // default empty label.
      dw_oid(w, oid_rsaes_oaep, sizeof oid_rsaes_oaep);
      size_t params = dw_open(w, 0x30);
      size_t h = dw_open(w, 0xa0);
      size_t ha = dw_open(w, 0x30);
      dw_oid(w, oid_sha256, sizeof oid_sha256);
      dw_null(w);
      dw_close(w, ha);
      dw_close(w, h);
      size_t g = dw_open(w, 0xa1);
      size_t ga = dw_open(w, 0x30);
      dw_oid(w, oid_mgf1, sizeof oid_mgf1);
      size_t gh = dw_open(w, 0x30);
      dw_oid(w, oid_sha256, sizeof oid_sha256);
      dw_null(w);
      dw_close(w, gh);
      dw_close(w, ga);
      dw_close(w, g);
      dw_close(w, params);
    } else {
      dw_oid(w, oid_rsa_encryption, sizeof oid_rsa_encryption);
      dw_null(w);
    }
    dw_close(w, alg);
    dw_element(w, 0x04, ek, ek_len);
    dw_close(w, m);
  }
  mc_wipe(ek, sizeof ek);
  return rc;
}

int cms_kemri_kek(uint8_t *kek, size_t kek_len, uint8_t *info_out, size_t *info_len,
                  const uint8_t *wrap_oid, size_t wrap_oid_len,
                  const uint8_t ss[MC_MLKEM_SHARED_SECRET_LEN]) {
  uint8_t info[64];
  dw w;
  dw_init_fixed(&w, info, sizeof info);
  size_t m = dw_open(&w, 0x30);
  size_t a = dw_open(&w, 0x30);
  dw_oid(&w, wrap_oid, wrap_oid_len);
  dw_close(&w, a);
  dw_uint(&w, kek_len);
  dw_close(&w, m);
  if (!dw_ok(&w))
    return MC_ERR_INVALID_ARGUMENT;
  if (info_out != NULL) {
    memcpy(info_out, info, w.len);
    *info_len = w.len;
  }
  // RFC 9629 §5 with RFC 9936 §3: the salt is the empty string.
  return mc_hkdf(MC_HASH_SHA256, kek, kek_len, ss, MC_MLKEM_SHARED_SECRET_LEN, NULL, 0, info,
                 w.len);
}

// write_kemri encapsulates to the ML-KEM key and writes an ori [4] holding
// a KEMRecipientInfo.
static int write_kemri(dw *w, const cms_recipient *r, const cms_params *p, const uint8_t *cek,
                       size_t cek_len, const cms_kem_fixed *fixed) {
  mc_mlkem_level level = r->type == CMS_KEY_MLKEM512   ? MC_MLKEM_512
                         : r->type == CMS_KEY_MLKEM768 ? MC_MLKEM_768
                                                       : MC_MLKEM_1024;
  // RFC 9936 §3: ML-KEM-512 MUST support AES-128 wrap, the others AES-256
  // wrap; those are what any implementation reads.
  const uint8_t *wrap_oid = level == MC_MLKEM_512 ? oid_aes128_wrap : oid_aes256_wrap;
  size_t kek_len = level == MC_MLKEM_512 ? 16 : 32;
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[MC_MLKEM_SHARED_SECRET_LEN], kek[32];
  uint8_t ek[32 + MC_AES_KW_OVERHEAD];
  size_t ct_len = mc_mlkem_ciphertext_len(level), ek_len = 0;
  int rc = 0;
  if (fixed != NULL && fixed->ct != NULL) {
    if (fixed->ct_len != ct_len || fixed->ss == NULL)
      return MC_ERR_INVALID_ARGUMENT;
    memcpy(ct, fixed->ct, ct_len);
    memcpy(ss, fixed->ss, sizeof ss);
  } else {
    if (r->pub == NULL || r->pub_len != mc_mlkem_public_key_len(level))
      return MC_ERR_BAD_KEY;
    rc = mc_mlkem_encaps(level, ct, sizeof ct, ss, r->pub, r->pub_len);
  }
  if (rc == 0)
    rc = cms_kemri_kek(kek, kek_len, NULL, NULL, wrap_oid, 9, ss);
  if (rc == 0)
    rc = mc_aes_kw_wrap(ek, sizeof ek, &ek_len, kek, kek_len, cek, cek_len);
  if (rc == 0) {
    int use_ski = p->rid == MC_SMIME_RID_SKI ||
                  (p->rid == MC_SMIME_RID_AUTO && r->ski != NULL && r->ski_len > 0);
    size_t ori = dw_open(w, 0xa4);
    dw_oid(w, oid_ori_kem, sizeof oid_ori_kem);
    size_t m = dw_open(w, 0x30);
    dw_uint(w, 0); // RFC 9629 §3: version is always 0
    rc = write_rid(w, r, use_ski);
    size_t kem = dw_open(w, 0x30);
    uint8_t oid[9];
    memcpy(oid, oid_mlkem_prefix, 8);
    oid[8] = (uint8_t)(level == MC_MLKEM_512 ? 1 : level == MC_MLKEM_768 ? 2 : 3);
    dw_oid(w, oid, sizeof oid);
    dw_close(w, kem);
    dw_element(w, 0x04, ct, ct_len);
    size_t kdf = dw_open(w, 0x30);
    dw_oid(w, oid_hkdf_sha256, sizeof oid_hkdf_sha256);
    dw_close(w, kdf);
    dw_uint(w, kek_len);
    size_t wrap = dw_open(w, 0x30);
    dw_oid(w, wrap_oid, 9);
    dw_close(w, wrap);
    dw_element(w, 0x04, ek, ek_len);
    dw_close(w, m);
    dw_close(w, ori);
  }
  mc_wipe(ss, sizeof ss);
  mc_wipe(kek, sizeof kek);
  return rc;
}

// shared_info writes the DER ECC-CMS-SharedInfo (RFC 5753 §7.2) for AES-256
// wrap and a 256-bit key, without entityUInfo (no ukm is sent).
static size_t shared_info(uint8_t out[32]) {
  dw w;
  dw_init_fixed(&w, out, 32);
  size_t m = dw_open(&w, 0x30);
  size_t a = dw_open(&w, 0x30);
  dw_oid(&w, oid_aes256_wrap, sizeof oid_aes256_wrap);
  dw_close(&w, a);
  size_t supp = dw_open(&w, 0xa2);
  static const uint8_t bits[4] = {0, 0, 1, 0}; // 256, big-endian
  dw_element(&w, 0x04, bits, 4);
  dw_close(&w, supp);
  dw_close(&w, m);
  return dw_ok(&w) ? w.len : 0;
}

// x963_kdf derives 32 bytes with the ANSI X9.63 KDF of SEC 1 §3.6.1:
// Hash(Z || counter || SharedInfo), counter from 1, truncated.
static int x963_kdf(uint8_t kek[32], mc_hash_alg h, const uint8_t *z, size_t z_len,
                    const uint8_t *info, size_t info_len) {
  uint8_t buf[MC_EC_MAX_FIELD_LEN + 4 + 32], d[MC_HASH_MAX_DIGEST_LEN];
  size_t n = 0, d_len;
  memcpy(buf, z, z_len);
  memcpy(buf + z_len + 4, info, info_len);
  // Every digest here is at least 32 bytes: one block of output is enough.
  buf[z_len] = 0, buf[z_len + 1] = 0, buf[z_len + 2] = 0, buf[z_len + 3] = 1;
  n = z_len + 4 + info_len;
  int rc = mc_digest(h, d, sizeof d, &d_len, buf, n);
  if (rc == 0)
    memcpy(kek, d, 32);
  mc_wipe(buf, sizeof buf);
  mc_wipe(d, sizeof d);
  return rc;
}

// write_kari does ephemeral-static key agreement with the recipient's key
// and writes a KeyAgreeRecipientInfo with one RecipientEncryptedKey.
static int write_kari(dw *w, const cms_recipient *r, const cms_params *p, const uint8_t *cek,
                      size_t cek_len) {
  uint8_t eph[MC_EC_MAX_POINT_LEN], z[MC_EC_MAX_FIELD_LEN], priv[MC_X448_KEY_LEN];
  uint8_t info[32], kek[32], ek[32 + MC_AES_KW_OVERHEAD];
  size_t eph_len = 0, z_len = 0, ek_len = 0, info_len = shared_info(info);
  const uint8_t *curve_oid = NULL;
  size_t curve_oid_len = 0;
  uint8_t kdf_last;
  mc_hash_alg h;
  int rc = 0, montgomery = r->type == CMS_KEY_X25519 || r->type == CMS_KEY_X448;
  if (r->type == CMS_KEY_X25519) {
    if (r->pub == NULL || r->pub_len != MC_X25519_KEY_LEN)
      return MC_ERR_BAD_KEY;
    eph_len = z_len = MC_X25519_KEY_LEN;
    rc = mc_random_bytes(priv, MC_X25519_KEY_LEN);
    if (rc == 0)
      rc = mc_x25519_ephemeral(eph, z, priv, r->pub);
    h = MC_HASH_SHA256, kdf_last = 19; // RFC 8418 §2.1 pairs X25519 with SHA-256
  } else if (r->type == CMS_KEY_X448) {
    if (r->pub == NULL || r->pub_len != MC_X448_KEY_LEN)
      return MC_ERR_BAD_KEY;
    eph_len = z_len = MC_X448_KEY_LEN;
    rc = mc_x448_keypair(eph, priv);
    if (rc == 0)
      rc = mc_x448(z, priv, r->pub);
    h = MC_HASH_SHA512, kdf_last = 21; // and X448 with SHA-512
  } else {
    mc_ec_curve c = r->type == CMS_KEY_EC_P256   ? MC_EC_P256
                    : r->type == CMS_KEY_EC_P384 ? MC_EC_P384
                                                 : MC_EC_P521;
    // The hash matches the curve's strength (RFC 5008 Suite B pairs).
    h = c == MC_EC_P256 ? MC_HASH_SHA256 : c == MC_EC_P384 ? MC_HASH_SHA384 : MC_HASH_SHA512;
    kdf_last = c == MC_EC_P256 ? 1 : c == MC_EC_P384 ? 2 : 3;
    curve_oid = c == MC_EC_P256 ? oid_p256 : c == MC_EC_P384 ? oid_p384 : oid_p521;
    curve_oid_len = c == MC_EC_P256 ? sizeof oid_p256 : sizeof oid_p384;
    eph_len = mc_ec_point_len(c);
    z_len = mc_ec_field_len(c);
    rc = mc_ecdh_ephemeral(c, eph, sizeof eph, z, sizeof z, r->pub, r->pub_len);
    if (rc == MC_ERR_INVALID_ARGUMENT)
      rc = MC_ERR_BAD_KEY;
  }
  mc_wipe(priv, sizeof priv);
  if (rc == 0 && info_len == 0)
    rc = MC_ERR_INVALID_ARGUMENT;
  if (rc == 0) {
    if (montgomery)
      rc = mc_hkdf(h, kek, sizeof kek, z, z_len, NULL, 0, info, info_len);
    else
      rc = x963_kdf(kek, h, z, z_len, info, info_len);
  }
  if (rc == 0)
    rc = mc_aes_kw_wrap(ek, sizeof ek, &ek_len, kek, sizeof kek, cek, cek_len);
  if (rc == 0) {
    // kari [1] IMPLICIT in the RecipientInfo CHOICE (the CMS module's
    // tags are implicit).
    size_t m = dw_open(w, 0xa1);
    dw_uint(w, 3); // RFC 5652 §6.2.2: always 3
    size_t orig = dw_open(w, 0xa0);
    size_t okey = dw_open(w, 0xa1); // originatorKey [1] IMPLICIT OriginatorPublicKey
    size_t alg = dw_open(w, 0x30);
    if (montgomery) {
      dw_oid(w, r->type == CMS_KEY_X25519 ? oid_x25519 : oid_x448, 3);
    } else {
      dw_oid(w, oid_ec_public_key, sizeof oid_ec_public_key);
      // RFC 5753 §7.1.2 lets the parameters be absent or ECParameters;
      // the compatibility switch names the curve for readers that want it.
      if (p->ec_params == MC_SMIME_EC_PARAMS_NAMED_CURVE)
        dw_oid(w, curve_oid, curve_oid_len);
    }
    dw_close(w, alg);
    dw_header(w, 0x03, eph_len + 1);
    uint8_t zero = 0;
    dw_bytes(w, &zero, 1);
    dw_bytes(w, eph, eph_len);
    dw_close(w, okey);
    dw_close(w, orig);
    size_t kea = dw_open(w, 0x30);
    uint8_t kdf_oid[11];
    size_t kdf_oid_len;
    if (montgomery) {
      memcpy(kdf_oid, oid_stddh_hkdf_prefix, 10);
      kdf_oid[10] = kdf_last;
      kdf_oid_len = 11;
    } else {
      memcpy(kdf_oid, oid_stddh_sha_kdf_prefix, 5);
      kdf_oid[5] = kdf_last;
      kdf_oid_len = 6;
    }
    dw_oid(w, kdf_oid, kdf_oid_len);
    size_t wrap = dw_open(w, 0x30);
    dw_oid(w, oid_aes256_wrap, sizeof oid_aes256_wrap);
    dw_close(w, wrap);
    dw_close(w, kea);
    size_t reks = dw_open(w, 0x30);
    size_t rek = dw_open(w, 0x30);
    if (p->rid == MC_SMIME_RID_SKI) {
      if (r->ski == NULL || r->ski_len == 0) {
        rc = MC_ERR_INVALID_ARGUMENT;
      } else {
        size_t rkid = dw_open(w, 0xa0); // rKeyId [0] IMPLICIT RecipientKeyIdentifier
        dw_element(w, 0x04, r->ski, r->ski_len);
        dw_close(w, rkid);
      }
    } else {
      rc = write_rid(w, r, 0);
    }
    dw_element(w, 0x04, ek, ek_len);
    dw_close(w, rek);
    dw_close(w, reks);
    dw_close(w, m);
  }
  mc_wipe(z, sizeof z);
  mc_wipe(kek, sizeof kek);
  return rc;
}

int cms_ri_write(dw *w, const cms_recipient *r, const cms_params *p, const uint8_t *cek,
                 size_t cek_len, const cms_kem_fixed *kem) {
  if (r->type == CMS_KEY_RSA)
    return write_ktri(w, r, p, cek, cek_len);
  if (is_mlkem(r->type))
    return write_kemri(w, r, p, cek, cek_len, kem);
  if (r->type >= CMS_KEY_EC_P256 && r->type <= CMS_KEY_X448)
    return write_kari(w, r, p, cek, cek_len);
  return MC_ERR_UNSUPPORTED;
}
