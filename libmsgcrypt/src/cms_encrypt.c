// cms_encrypt.c: the CMS encryption engine's top level (RFC 5652 §6,
// RFC 5083, RFC 5084, RFC 3565): it picks a content-encryption key, encrypts
// the content with AES-CBC into an EnvelopedData or with AES-GCM into an
// AuthEnvelopedData, has cms_recipient_info.c write one RecipientInfo per
// recipient, and wraps the result in a ContentInfo. It also holds the public
// entry points, which turn certificates into cms_recipient values through
// the X.509 reader's hand-off and write into the caller's buffer.
#include <errno.h>
#include <openssl/aes.h>
#include <stdlib.h>
#include <string.h>

#include "cms_internal.h"
#include "msgcrypt_internal.h"
#include "x509_internal.h"

const uint8_t cms_oid_data[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01};
const uint8_t cms_oid_enveloped_data[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x03};
const uint8_t cms_oid_auth_enveloped[11] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
                                            0x01, 0x09, 0x10, 0x01, 0x17};
const uint8_t cms_oid_aes128_gcm[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x06};
const uint8_t cms_oid_aes256_cbc[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a};
const uint8_t cms_oid_aes256_gcm[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2e};

static int is_mlkem(cms_key_type t) {
  return t == CMS_KEY_MLKEM512 || t == CMS_KEY_MLKEM768 || t == CMS_KEY_MLKEM1024;
}

int cms_params_resolve(cms_params *p, const mc_smime_encrypt_options *o, const cms_recipient *rs,
                       size_t num) {
  static const mc_smime_encrypt_options defaults = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  if (o == NULL)
    o = &defaults;
  if (o->version != MC_SMIME_ENCRYPT_OPTIONS_VERSION || o->content > MC_SMIME_CONTENT_AES256_GCM ||
      o->rsa > MC_SMIME_RSA_OAEP_SHA256 || o->rid > MC_SMIME_RID_SKI ||
      o->gcm_tag > MC_SMIME_GCM_TAG12_DEFAULT || o->ec_params > MC_SMIME_EC_PARAMS_NAMED_CURVE ||
      o->protect_headers > MC_HP_GATEWAY)
    return MC_ERR_INVALID_ARGUMENT;
  p->content = o->content;
  if (p->content == MC_SMIME_CONTENT_AUTO) {
    // CBC is what every client reads (docs/smime-clients.md); RFC 9936
    // pairs ML-KEM with authenticated content, and a client that reads
    // ML-KEM reads GCM.
    p->content = MC_SMIME_CONTENT_AES256_CBC;
    for (size_t i = 0; i < num; i++)
      if (is_mlkem(rs[i].type))
        p->content = MC_SMIME_CONTENT_AES256_GCM;
  }
  p->rsa = o->rsa;
  p->rid = o->rid;
  p->gcm_tag = o->gcm_tag;
  p->ec_params = o->ec_params;
  p->protect_headers = o->protect_headers;
  p->cek_len = 32;
  return 0;
}

size_t cms_encrypt_max_len(const cms_recipient *rs, size_t num, size_t in_len) {
  // Headers: at most 10 bytes each, a few dozen of them outside the
  // recipient infos; content: padding or tag, IV or nonce, algorithm.
  size_t total = 256;
  if (in_len > SIZE_MAX - total - 64)
    return SIZE_MAX;
  total += in_len + 64;
  for (size_t i = 0; i < num; i++) {
    size_t n = cms_ri_max_len(&rs[i]);
    if (n > SIZE_MAX - total)
      return SIZE_MAX;
    total += n;
  }
  return total;
}

// encrypt_cbc encrypts `in` with AES-CBC and the PKCS #7 padding of
// RFC 5652 §6.3 into `ct` (in_len rounded up to the next whole block, a full
// block of padding when in_len is a multiple of 16). The whole blocks go
// from `in` straight into the output (a copy first cost a tenth of the time
// of a 1 MiB message); only the padded last block is assembled here.
static int encrypt_cbc(uint8_t *ct, const uint8_t *cek, size_t cek_len, const uint8_t iv_in[16],
                       const uint8_t *in, size_t in_len) {
  size_t whole = in_len - in_len % 16, pad = 16 - in_len % 16;
  uint8_t last[16], iv[16];
  memcpy(iv, iv_in, 16);
  if (in_len > whole)
    memcpy(last, in + whole, in_len - whole);
  memset(last + (in_len - whole), (int)pad, pad);
  AES_KEY key;
  if (AES_set_encrypt_key(cek, (unsigned)(cek_len * 8), &key) != 0)
    return MC_ERR_INVALID_ARGUMENT;
  // AES_cbc_encrypt leaves the chaining value in `iv` for the last block.
  if (whole > 0)
    AES_cbc_encrypt(in, ct, whole, &key, iv, AES_ENCRYPT);
  AES_cbc_encrypt(last, ct + whole, 16, &key, iv, AES_ENCRYPT);
  mc_wipe(&key, sizeof key);
  mc_wipe(last, sizeof last);
  return 0;
}

static int dw_status(const dw *w) {
  switch (w->err) {
  case DW_ERR_NONE:
    return 0;
  case DW_ERR_NO_ROOM:
    return MC_ERR_BUFFER_TOO_SMALL;
  case DW_ERR_NO_MEMORY:
    return -ENOMEM;
  default:
    return MC_ERR_INVALID_ARGUMENT;
  }
}

// content_alg writes the content-encryption AlgorithmIdentifier to `a`:
// AES-256-CBC with its IV (RFC 3565), or AES-GCM with GCMParameters
// (RFC 5084 §3.2). aes-ICVlen DEFAULT 12: DER leaves a default value out,
// so the 12-byte form has no INTEGER and the 16-byte form spells it out.
static void content_alg(dw *a, const cms_params *p, int gcm, const uint8_t *iv) {
  size_t alg = dw_open(a, 0x30);
  if (!gcm) {
    dw_oid(a, cms_oid_aes256_cbc, sizeof cms_oid_aes256_cbc);
    dw_element(a, 0x04, iv, 16);
  } else {
    if (p->cek_len == 16)
      dw_oid(a, cms_oid_aes128_gcm, sizeof cms_oid_aes128_gcm);
    else
      dw_oid(a, cms_oid_aes256_gcm, sizeof cms_oid_aes256_gcm);
    size_t gp = dw_open(a, 0x30);
    dw_element(a, 0x04, iv, MC_AES_GCM_NONCE_LEN);
    if (p->gcm_tag == MC_SMIME_GCM_TAG16)
      dw_uint(a, 16);
    dw_close(a, gp);
  }
  dw_close(a, alg);
}

// cms_encrypt_recipients writes the RecipientInfos into a small scratch
// builder first. Their length and the content's, which is known in
// advance, give every enclosing element its final length, so the headers go
// out before the content and the content is encrypted in its place once:
// dw_open/dw_close would move it once per enclosing element (four times
// 1 MiB for a 1 MiB message).
int cms_encrypt_recipients(dw *w, const cms_recipient *rs, size_t num, const cms_params *p,
                           const cms_derand *d, const uint8_t *in, size_t in_len) {
  if (num == 0 || num > MC_SMIME_MAX_RECIPIENTS || (p->cek_len != 16 && p->cek_len != 32))
    return MC_ERR_INVALID_ARGUMENT;
  int gcm = p->content == MC_SMIME_CONTENT_AES256_GCM;
  if (!gcm && p->cek_len != 32)
    return MC_ERR_INVALID_ARGUMENT;
  size_t iv_len = gcm ? MC_AES_GCM_NONCE_LEN : 16;
  size_t ct_len = gcm ? in_len : in_len + 16 - in_len % 16;
  size_t tag_len = !gcm ? 0 : p->gcm_tag == MC_SMIME_GCM_TAG16 ? 16 : 12;
  if (in_len > SIZE_MAX - 4096)
    return MC_ERR_INVALID_ARGUMENT;
  uint8_t cek[32], tag[MC_AES_GCM_TAG_LEN], iv[16];
  int rc = 0;
  if (d != NULL && d->cek != NULL)
    memcpy(cek, d->cek, p->cek_len);
  else
    rc = mc_random_bytes(cek, p->cek_len);
  if (d != NULL && d->iv != NULL)
    memcpy(iv, d->iv, iv_len);
  else if (rc == 0 && mc_random_bytes(iv, iv_len) != 0)
    rc = MC_ERR_INVALID_ARGUMENT;
  // RFC 5652 §6.1: version 0 when every RecipientInfo is a version-0 KTRI,
  // 3 with an ori, otherwise 2. AuthEnvelopedData is always 0 (RFC 5083).
  unsigned version = 0;
  for (size_t i = 0; i < num; i++) {
    if (is_mlkem(rs[i].type))
      version = 3;
    else if ((p->rid == MC_SMIME_RID_SKI || rs[i].type != CMS_KEY_RSA) && version < 2)
      version = 2; // a KTRI with a key identifier, or a KARI (version 3)
  }
  dw ris;
  dw_init_growable(&ris, 1024);
  size_t set = dw_open(&ris, 0x31);
  for (size_t i = 0; rc == 0 && i < num; i++)
    rc = cms_ri_write(&ris, &rs[i], p, cek, p->cek_len,
                      d != NULL && d->kem != NULL ? &d->kem[i] : NULL);
  dw_close_set_of(&ris, set);
  if (rc == 0)
    rc = dw_status(&ris);
  uint8_t alg_buf[64];
  dw a;
  dw_init_fixed(&a, alg_buf, sizeof alg_buf);
  content_alg(&a, p, gcm, iv);
  if (rc == 0)
    rc = dw_status(&a);
  if (rc == 0) {
    // Lengths from the inside out: EncryptedContentInfo, the
    // (Auth)EnvelopedData with its mac, the [0] EXPLICIT, the ContentInfo.
    size_t eci_len = 2 + sizeof cms_oid_data + a.len + dw_header_len(ct_len) + ct_len;
    size_t ed_len = 3 + ris.len + dw_header_len(eci_len) + eci_len + (gcm ? 2 + tag_len : 0);
    size_t ex_len = dw_header_len(ed_len) + ed_len;
    size_t ci_len = 2 + (gcm ? sizeof cms_oid_auth_enveloped : sizeof cms_oid_enveloped_data) +
                    dw_header_len(ex_len) + ex_len;
    size_t start = w->len;
    dw_header(w, 0x30, ci_len);
    if (gcm)
      dw_oid(w, cms_oid_auth_enveloped, sizeof cms_oid_auth_enveloped);
    else
      dw_oid(w, cms_oid_enveloped_data, sizeof cms_oid_enveloped_data);
    dw_header(w, 0xa0, ex_len);
    dw_header(w, 0x30, ed_len);
    dw_uint(w, gcm ? 0 : version);
    dw_bytes(w, ris.buf, ris.len);
    dw_header(w, 0x30, eci_len);
    dw_oid(w, cms_oid_data, sizeof cms_oid_data);
    dw_bytes(w, alg_buf, a.len);
    dw_header(w, 0x80, ct_len);
    // GCM seals the tag right after the ciphertext; it leaves the content
    // there and goes into the mac field after the (absent) authAttrs.
    uint8_t *ct = dw_reserve(w, ct_len + (gcm ? MC_AES_GCM_TAG_LEN : 0));
    if (ct != NULL && gcm) {
      size_t n = 0;
      rc = mc_aes_gcm_seal(ct, in_len + MC_AES_GCM_TAG_LEN, &n, cek, p->cek_len, iv, iv_len, in,
                           in_len, NULL, 0);
      if (rc == 0) {
        memcpy(tag, ct + in_len, MC_AES_GCM_TAG_LEN);
        w->len -= MC_AES_GCM_TAG_LEN;
        dw_element(w, 0x04, tag, tag_len);
      }
    } else if (ct != NULL) {
      rc = encrypt_cbc(ct, cek, p->cek_len, iv, in, in_len);
    }
    if (rc == 0)
      rc = dw_status(w);
    if (rc == 0 && w->len - start != dw_header_len(ci_len) + ci_len)
      rc = MC_ERR_INVALID_ARGUMENT; // the lengths above disagree with what was written
  }
  dw_cleanup(&ris);
  mc_wipe(cek, sizeof cek);
  mc_wipe(tag, sizeof tag);
  return rc;
}

int cms_recipients_of(cms_recipient **out, const mc_x509_cert *const *certs, size_t num) {
  *out = NULL;
  if (certs == NULL || num == 0 || num > MC_SMIME_MAX_RECIPIENTS)
    return MC_ERR_INVALID_ARGUMENT;
  cms_recipient *rs = calloc(num, sizeof *rs);
  if (rs == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < num; i++) {
    int rc = certs[i] == NULL ? MC_ERR_INVALID_ARGUMENT : x509_cert_recipient(&rs[i], certs[i]);
    if (rc != 0) {
      free(rs);
      return rc;
    }
  }
  *out = rs;
  return 0;
}

size_t mc_smime_encrypt_max_len(const mc_x509_cert *const *certs, size_t num_certs, size_t in_len) {
  cms_recipient *rs;
  if (cms_recipients_of(&rs, certs, num_certs) != 0)
    return SIZE_MAX;
  size_t n = cms_encrypt_max_len(rs, num_certs, in_len);
  free(rs);
  return n;
}

int mc_smime_encrypt(uint8_t *out, size_t out_cap, size_t *out_len,
                     const mc_x509_cert *const *certs, size_t num_certs,
                     const mc_smime_encrypt_options *options, const uint8_t *in, size_t in_len) {
  if (out_len != NULL)
    *out_len = 0;
  if (out == NULL || out_len == NULL || (in == NULL && in_len > 0))
    return MC_ERR_INVALID_ARGUMENT;
  cms_recipient *rs;
  int rc = cms_recipients_of(&rs, certs, num_certs);
  if (rc != 0)
    return rc;
  cms_params p;
  rc = cms_params_resolve(&p, options, rs, num_certs);
  if (rc == 0 && p.protect_headers != MC_HP_NONE)
    rc = MC_ERR_INVALID_ARGUMENT; // no header here to protect
  dw w;
  dw_init_fixed(&w, out, out_cap);
  if (rc == 0)
    rc = cms_encrypt_recipients(&w, rs, num_certs, &p, NULL, in, in_len);
  if (rc == 0)
    *out_len = w.len;
  else
    mc_wipe(out, w.len);
  free(rs);
  return rc;
}
