// fuzz_smime_mime.c: any bytes as the MIME message that cms_mime_encrypt
// (the core of mc_smime_mime_encrypt) wraps into S/MIME 4.0 for a fixed
// X25519 recipient, with the options taken from the first input byte.
// Properties: the call returns 0 or MC_ERR_INVALID_ARGUMENT; a refused
// input writes nothing; an accepted one gives a message that libmailparse
// reads as one application/pkcs7-mime part without problems, whose
// smime-type matches the options, and whose Base64 body decodes to exactly
// one DER ContentInfo (checked with der_read.h) of the matching content
// type, no longer than cms_encrypt_max_len allows.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cms_internal.h"
#include "der_read.h"
#include "encodify.h"
#include "mailparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
  uint8_t *p;
  size_t len, cap;
};

static int collect(void *opaque, const uint8_t *d, size_t len) {
  struct sink *s = opaque;
  if (s->len + len > s->cap) {
    s->cap = 2 * (s->len + len) + 1024;
    s->p = realloc(s->p, s->cap);
    if (s->p == NULL)
      abort();
  }
  memcpy(s->p + s->len, d, len);
  s->len += len;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  mc_smime_encrypt_options o = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  o.content = (data[0] & 1) ? MC_SMIME_CONTENT_AES256_GCM : MC_SMIME_CONTENT_AES256_CBC;
  o.gcm_tag = (data[0] >> 1) & 1;
  data++, size--;
  // X25519's base point 9 as the recipient key: a valid public key.
  static uint8_t pub[32] = {9};
  static const uint8_t issuer[] = {0x30, 0x00};
  static const uint8_t serial[] = {0x01};
  cms_recipient r = {.type = CMS_KEY_X25519,
                     .pub = pub,
                     .pub_len = 32,
                     .issuer_der = issuer,
                     .issuer_der_len = sizeof issuer,
                     .serial = serial,
                     .serial_len = 1};
  struct sink s = {0};
  int rc = cms_mime_encrypt(&r, 1, &o, data, size, collect, &s);
  if (rc != 0) {
    if (rc != MC_ERR_INVALID_ARGUMENT || s.len != 0)
      abort();
    free(s.p);
    return 0;
  }
  mp_message *msg = NULL;
  if (mp_message_parse(&msg, NULL, s.p, s.len, NULL) != 0)
    abort();
  const mp_part *root = mp_message_part(msg, 0);
  size_t out_len;
  const uint8_t *out = mp_message_data(msg, &out_len);
  int gcm = o.content == MC_SMIME_CONTENT_AES256_GCM;
  const char *want = gcm ? "authEnveloped-data" : "enveloped-data";
  if (root == NULL || mp_message_num_parts(msg) != 1 || root->type.len != 11 ||
      strncasecmp(root->type.p, "application", 11) != 0 || root->subtype.len != 10 ||
      strncasecmp(root->subtype.p, "pkcs7-mime", 10) != 0 ||
      memmem(out + root->header.off, root->header.len, want, strlen(want)) == NULL)
    abort();
  uint8_t *der = malloc(root->body.len + 1);
  size_t der_len = 0;
  if (der == NULL ||
      enc_base64_decode(ENC_FLAG_MIME, der, root->body.len + 1, &der_len,
                        (const char *)out + root->body.off, root->body.len, NULL) != 0)
    abort();
  der_cur c = der_cur_make(der, der_len), ci, oid;
  if (!der_get(&c, DER_SEQUENCE, &ci) || c.len != 0 || !der_get_oid(&ci, &oid) ||
      oid.len != (gcm ? 11u : 9u) ||
      memcmp(oid.p, gcm ? cms_oid_auth_enveloped : cms_oid_enveloped_data, oid.len) != 0)
    abort();
  // The inner entity is at most twice the input (CRLF) plus a default
  // Content-Type line.
  if (der_len > cms_encrypt_max_len(&r, 1, 2 * size + 64))
    abort();
  free(der);
  mp_message_free(msg);
  free(s.p);
  return 0;
}
