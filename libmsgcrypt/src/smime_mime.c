// smime_mime.c: wraps a MIME message into an S/MIME 4.0 encrypted message
// (RFC 8551 §3.3): libmailparse indexes the top-level header; the Content-*
// fields and the body form the MIME entity that is encrypted, in canonical
// form (CRLF line breaks, RFC 8551 §3.1.1); the other fields (MIME-Version
// aside) stay in the outer header because transport and clients read them;
// the CMS message goes out as a Base64 application/pkcs7-mime body with
// smime-type enveloped-data or authEnveloped-data.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cms_internal.h"
#include "encodify.h"
#include "hp_internal.h"
#include "mailparse.h"
#include "msgcrypt_internal.h"

static int name_is(const uint8_t *data, const mp_header *h, const char *name) {
  size_t n = strlen(name);
  return h->name.len == n && strncasecmp((const char *)data + h->name.off, name, n) == 0;
}

static int is_content_field(const uint8_t *data, const mp_header *h) {
  return h->name.len >= 8 && strncasecmp((const char *)data + h->name.off, "Content-", 8) == 0;
}

// append_crlf appends `len` bytes of `p` to `w` with every line break made
// CRLF (a lone LF gets its CR; an existing CRLF stays).
static void append_crlf(dw *w, const uint8_t *p, size_t len) {
  size_t start = 0;
  for (size_t i = 0; i < len; i++) {
    if (p[i] == '\n' && (i == 0 || p[i - 1] != '\r')) {
      dw_bytes(w, p + start, i - start);
      dw_bytes(w, (const uint8_t *)"\r\n", 2);
      start = i + 1;
    }
  }
  dw_bytes(w, p + start, len - start);
}

static int put(mc_smime_write_fn write, void *opaque, const void *p, size_t len) {
  if (len == 0)
    return 0;
  int rc = write(opaque, p, len);
  return rc < 0 ? rc : 0;
}

int cms_mime_encrypt(const cms_recipient *rs, size_t num, const mc_smime_encrypt_options *options,
                     const uint8_t *in, size_t in_len, mc_smime_write_fn write, void *opaque) {
  if (rs == NULL || num == 0 || write == NULL || (in == NULL && in_len > 0))
    return MC_ERR_INVALID_ARGUMENT;
  cms_params params;
  int rc = cms_params_resolve(&params, options, rs, num);
  if (rc != 0)
    return rc;
  mp_message *msg = NULL;
  rc = mp_message_parse(&msg, NULL, in, in_len, NULL);
  if (rc != 0)
    return rc == -ENOMEM ? -ENOMEM : MC_ERR_INVALID_ARGUMENT;
  size_t data_len = 0;
  const uint8_t *data = mp_message_data(msg, &data_len);
  const mp_part *root = mp_message_part(msg, 0);
  rc = root == NULL || root->num_headers == 0 ? MC_ERR_INVALID_ARGUMENT : 0;
  for (size_t i = 0; rc == 0 && i < mp_message_num_problems(msg); i++) {
    const mp_problem *p = mp_message_problem(msg, i);
    if (p->part == 0 && p->offset < root->header.off + root->header.len &&
        (p->kind == MP_PROBLEM_NO_COLON || p->kind == MP_PROBLEM_NUL))
      rc = MC_ERR_INVALID_ARGUMENT;
  }
  dw inner, outer, cmsw;
  dw_init_growable(&inner, in_len + 256);
  dw_init_growable(&outer, 1024);
  char *b64 = NULL;
  dw_init_growable(&cmsw, in_len + 4096);
  const char *nl = "\n";
  hp_buf hp_outer = {0}, hp_inner = {0};
  if (rc == 0 && params.protect_headers != MC_HP_NONE) {
    // RFC 9788: mc_hp_build makes both the outer fields and the whole
    // Cryptographic Payload; the payload still goes in canonical form.
    rc = mc_hp_build(&hp_outer, &hp_inner, params.protect_headers, msg);
    if (rc == 0) {
      const mp_header *first = mp_message_header(msg, root->first_header);
      if (first->field.len >= 2 && data[first->field.off + first->field.len - 2] == '\r')
        nl = "\r\n";
      dw_bytes(&outer, hp_outer.p, hp_outer.len);
      append_crlf(&inner, hp_inner.p, hp_inner.len);
      rc = dw_ok(&inner) && dw_ok(&outer) ? 0 : -ENOMEM;
    }
  } else if (rc == 0) {
    const mp_header *first = mp_message_header(msg, root->first_header);
    if (first->field.len >= 2 && data[first->field.off + first->field.len - 2] == '\r')
      nl = "\r\n";
    int has_type = 0;
    for (uint32_t i = 0; i < root->num_headers; i++) {
      const mp_header *h = mp_message_header(msg, root->first_header + i);
      const uint8_t *f = data + h->field.off;
      int ends_nl = h->field.len > 0 && f[h->field.len - 1] == '\n';
      if (is_content_field(data, h)) {
        has_type |= name_is(data, h, "Content-Type");
        append_crlf(&inner, f, h->field.len);
        if (!ends_nl)
          dw_bytes(&inner, (const uint8_t *)"\r\n", 2);
      } else if (!name_is(data, h, "MIME-Version")) {
        dw_bytes(&outer, f, h->field.len);
        if (!ends_nl)
          dw_bytes(&outer, (const uint8_t *)nl, strlen(nl));
      }
    }
    if (!has_type) {
      static const char ct[] = "Content-Type: text/plain; charset=us-ascii\r\n";
      dw_bytes(&inner, (const uint8_t *)ct, sizeof ct - 1);
    }
    dw_bytes(&inner, (const uint8_t *)"\r\n", 2);
    append_crlf(&inner, data + root->body.off, root->body.len);
    rc = dw_ok(&inner) && dw_ok(&outer) ? 0 : -ENOMEM;
  }
  // The whole CMS message is built before the first byte goes out, so a
  // refused key writes nothing.
  size_t cms_len = 0, b64_len = 0;
  uint32_t smime_gcm = 0;
  if (rc == 0)
    rc = cms_encrypt_recipients(&cmsw, rs, num, &params, NULL, inner.buf, inner.len);
  const uint8_t *cms = cmsw.buf;
  cms_len = cmsw.len;
  if (rc == 0) {
    smime_gcm = params.content == MC_SMIME_CONTENT_AES256_GCM;
    size_t cap = enc_base64_encode_len(0, 0, cms_len);
    b64 = malloc(cap + 1);
    rc = b64 == NULL ? -ENOMEM
                     : (enc_base64_encode(0, 0, b64, cap, &b64_len, cms, cms_len) == 0
                            ? 0
                            : MC_ERR_INVALID_ARGUMENT);
  }
  if (rc == 0)
    rc = put(write, opaque, outer.buf, outer.len);
  if (rc == 0) {
    const char *parts[] = {
        "MIME-Version: 1.0",
        nl,
        smime_gcm ? "Content-Type: application/pkcs7-mime; smime-type=authEnveloped-data;"
                  : "Content-Type: application/pkcs7-mime; smime-type=enveloped-data;",
        nl,
        "\tname=\"smime.p7m\"",
        nl,
        "Content-Disposition: attachment; filename=\"smime.p7m\"",
        nl,
        "Content-Transfer-Encoding: base64",
        nl,
        nl,
    };
    for (size_t i = 0; rc == 0 && i < sizeof parts / sizeof parts[0]; i++)
      rc = put(write, opaque, parts[i], strlen(parts[i]));
  }
  // RFC 2045 §6.8: lines of at most 76 characters.
  for (size_t off = 0; rc == 0 && off < b64_len; off += 76) {
    size_t n = b64_len - off < 76 ? b64_len - off : 76;
    rc = put(write, opaque, b64 + off, n);
    if (rc == 0)
      rc = put(write, opaque, nl, strlen(nl));
  }
  free(b64);
  dw_cleanup(&cmsw);
  dw_cleanup(&inner);
  dw_cleanup(&outer);
  mc_hp_buf_free(&hp_outer);
  mc_hp_buf_free(&hp_inner);
  mp_message_free(msg);
  return rc;
}

int mc_smime_mime_encrypt(const mc_x509_cert *const *certs, size_t num_certs,
                          const mc_smime_encrypt_options *options, const uint8_t *in, size_t in_len,
                          mc_smime_write_fn write, void *opaque) {
  cms_recipient *rs = NULL;
  int rc = cms_recipients_of(&rs, certs, num_certs);
  if (rc == 0)
    rc = cms_mime_encrypt(rs, num_certs, options, in, in_len, write, opaque);
  free(rs);
  return rc;
}
