// pgp_mime.c: wraps a MIME message into PGP/MIME (RFC 3156 §4). libmailparse
// indexes the top-level header; the Content-* fields and the body form the
// MIME entity that is encrypted, the other fields (MIME-Version aside) stay
// in the outer header because transport and clients read them, and the
// armored OpenPGP message streams straight from the encryptor into the
// second part of the multipart/encrypted.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hp_internal.h"
#include "mailparse.h"
#include "pgp_encrypt_internal.h"
#include "pgp_internal.h"

static int name_is(const uint8_t *data, const mp_header *h, const char *name) {
  size_t n = strlen(name);
  return h->name.len == n && strncasecmp((const char *)data + h->name.off, name, n) == 0;
}

static int name_has_prefix(const uint8_t *data, const mp_header *h, const char *prefix) {
  size_t n = strlen(prefix);
  return h->name.len >= n && strncasecmp((const char *)data + h->name.off, prefix, n) == 0;
}

static int ends_with_newline(const uint8_t *data, const mp_header *h) {
  return h->field.len > 0 && data[h->field.off + h->field.len - 1] == '\n';
}

struct mime_out {
  mc_pgp_write_fn write;
  void *opaque;
};

static int put(const struct mime_out *o, const void *p, size_t len) {
  if (len == 0)
    return 0;
  int ret = o->write(o->opaque, p, len);
  return ret < 0 ? ret : 0;
}

static int puts_(const struct mime_out *o, const char *s) {
  return put(o, s, strlen(s));
}

// check_header refuses input that is not a message: no header field, or a
// top-level header with a line without a colon or a NUL byte.
static int check_header(const mp_message *msg) {
  const mp_part *root = mp_message_part(msg, 0);
  MC_FAIL_IF(root == NULL || root->num_headers == 0, MC_ERR_INVALID_ARGUMENT);
  for (size_t i = 0; i < mp_message_num_problems(msg); i++) {
    const mp_problem *p = mp_message_problem(msg, i);
    if (p->part == 0 && p->offset < root->header.off + root->header.len &&
        (p->kind == MP_PROBLEM_NO_COLON || p->kind == MP_PROBLEM_NUL))
      return MC_ERR_INVALID_ARGUMENT;
  }
  return 0;
}

// With header protection (`hp_outer` and `hp_inner` non-NULL, from
// mc_hp_build) those replace the outer fields and the encrypted entity.
static int write_message(const mp_message *msg, const pgp_recipient *rcpts, size_t num_rcpts,
                         const mc_pgp_encrypt_params *params, const struct mime_out *o,
                         const hp_buf *hp_outer, const hp_buf *hp_inner) {
  size_t data_len = 0;
  const uint8_t *data = mp_message_data(msg, &data_len);
  const mp_part *root = mp_message_part(msg, 0);
  const mp_header *first = mp_message_header(msg, root->first_header);
  const char *nl = first->field.len >= 2 && data[first->field.off + first->field.len - 2] == '\r'
                       ? "\r\n"
                       : "\n";
  // A random boundary: no armor line ("-----BEGIN ...", Base64) can start
  // with "--" followed by it.
  uint8_t rnd[12];
  char boundary[48];
  MC_TRY(mc_random_bytes(rnd, sizeof rnd));
  static const char hex[] = "0123456789abcdef";
  memcpy(boundary, "=_corvid-pgp-", 13);
  for (size_t i = 0; i < sizeof rnd; i++) {
    boundary[13 + 2 * i] = hex[rnd[i] >> 4];
    boundary[14 + 2 * i] = hex[rnd[i] & 15];
  }
  boundary[13 + 2 * sizeof rnd] = 0;

  // The encryptor writes its PKESKs when created, so it comes after the
  // outer header; mc_pgp_mime_encrypt_rcpts has checked the keys already.
  mc_pgp_encrypt_params p = *params;
  p.armor = 1;
  mc_pgp_encryptor *e = NULL;
  int ret = 0;
  int has_type = 0;
  if (hp_outer != NULL)
    ret = put(o, hp_outer->p, hp_outer->len);
  for (uint32_t i = 0; hp_outer == NULL && i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (name_has_prefix(data, h, "Content-")) {
      has_type |= name_is(data, h, "Content-Type");
      continue;
    }
    if (name_is(data, h, "MIME-Version"))
      continue;
    if (ret == 0)
      ret = put(o, data + h->field.off, h->field.len);
    // The last field of a message without a body may lack its line break.
    if (ret == 0 && !ends_with_newline(data, h))
      ret = puts_(o, nl);
  }
  if (ret == 0)
    ret = puts_(o, "MIME-Version: 1.0");
  if (ret == 0)
    ret = puts_(o, nl);
  const char *parts[] = {
      "Content-Type: multipart/encrypted; protocol=\"application/pgp-encrypted\";",
      nl,
      "\tboundary=\"",
      boundary,
      "\"",
      nl,
      nl,
      "This is an OpenPGP/MIME encrypted message (RFC 3156).",
      nl,
      "--",
      boundary,
      nl,
      "Content-Type: application/pgp-encrypted",
      nl,
      "Content-Description: PGP/MIME version identification",
      nl,
      nl,
      "Version: 1",
      nl,
      nl,
      "--",
      boundary,
      nl,
      "Content-Type: application/octet-stream; name=\"encrypted.asc\"",
      nl,
      "Content-Description: OpenPGP encrypted message",
      nl,
      "Content-Disposition: inline; filename=\"encrypted.asc\"",
      nl,
      nl};
  for (size_t i = 0; ret == 0 && i < sizeof parts / sizeof parts[0]; i++)
    ret = puts_(o, parts[i]);
  if (ret == 0)
    ret = mc_pgp_encryptor_new_rcpts(&e, rcpts, num_rcpts, &p, o->write, o->opaque);
  if (ret == 0 && hp_inner != NULL)
    ret = mc_pgp_encryptor_update(e, hp_inner->p, hp_inner->len);
  // The MIME entity: the content fields, a default type, the body.
  for (uint32_t i = 0; ret == 0 && hp_inner == NULL && i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (name_has_prefix(data, h, "Content-")) {
      ret = mc_pgp_encryptor_update(e, data + h->field.off, h->field.len);
      if (ret == 0 && !ends_with_newline(data, h))
        ret = mc_pgp_encryptor_update(e, (const uint8_t *)nl, strlen(nl));
    }
  }
  if (ret == 0 && hp_inner == NULL && !has_type) {
    static const char dflt[] = "Content-Type: text/plain; charset=us-ascii";
    ret = mc_pgp_encryptor_update(e, (const uint8_t *)dflt, sizeof dflt - 1);
    if (ret == 0)
      ret = mc_pgp_encryptor_update(e, (const uint8_t *)nl, strlen(nl));
  }
  if (ret == 0 && hp_inner == NULL)
    ret = mc_pgp_encryptor_update(e, (const uint8_t *)nl, strlen(nl));
  if (ret == 0 && hp_inner == NULL && (root->flags & MP_PART_NO_BODY) == 0)
    ret = mc_pgp_encryptor_update(e, data + root->body.off, root->body.len);
  if (ret == 0)
    ret = mc_pgp_encryptor_final(e);
  mc_pgp_encryptor_free(e);
  if (ret == 0)
    ret = puts_(o, nl);
  const char *tail[] = {"--", boundary, "--", nl};
  for (size_t i = 0; ret == 0 && i < sizeof tail / sizeof tail[0]; i++)
    ret = puts_(o, tail[i]);
  return ret;
}

static int discard(void *opaque, const uint8_t *data, size_t len) {
  (void)opaque;
  (void)data;
  (void)len;
  return 0;
}

static int mime_encrypt(const pgp_recipient *rcpts, size_t num_rcpts,
                        const mc_pgp_encrypt_params *params, uint32_t hp_mode, const uint8_t *in,
                        size_t in_len, mc_pgp_write_fn write, void *opaque) {
  MC_FAIL_IF(rcpts == NULL || num_rcpts == 0 || params == NULL || write == NULL ||
                 (in == NULL && in_len > 0),
             MC_ERR_INVALID_ARGUMENT);
  // Check every key before the first byte of output: a throwaway encryptor
  // builds all the PKESKs (and fails on a key it cannot use).
  mc_pgp_encryptor *probe = NULL;
  MC_TRY(mc_pgp_encryptor_new_rcpts(&probe, rcpts, num_rcpts, params, discard, NULL));
  mc_pgp_encryptor_free(probe);
  mp_message *msg = NULL;
  int ret = mp_message_parse(&msg, NULL, in, in_len, NULL);
  if (ret != 0)
    return ret == -ENOMEM ? -ENOMEM : MC_ERR_INVALID_ARGUMENT;
  ret = check_header(msg);
  struct mime_out o = {write, opaque};
  hp_buf hp_outer = {0}, hp_inner = {0};
  if (ret == 0 && hp_mode != MC_HP_NONE)
    ret = mc_hp_build(&hp_outer, &hp_inner, hp_mode, msg);
  if (ret == 0)
    ret = write_message(msg, rcpts, num_rcpts, params, &o, hp_mode != MC_HP_NONE ? &hp_outer : NULL,
                        hp_mode != MC_HP_NONE ? &hp_inner : NULL);
  mc_hp_buf_free(&hp_outer);
  mc_hp_buf_free(&hp_inner);
  mp_message_free(msg);
  return ret;
}

int mc_pgp_mime_encrypt_rcpts(const pgp_recipient *rcpts, size_t num_rcpts,
                              const mc_pgp_encrypt_params *params, const uint8_t *in, size_t in_len,
                              mc_pgp_write_fn write, void *opaque) {
  return mime_encrypt(rcpts, num_rcpts, params, MC_HP_NONE, in, in_len, write, opaque);
}

int mc_pgp_mime_encrypt(const mc_pgp_cert *const *certs, size_t num_certs,
                        const mc_pgp_encrypt_options *options, const uint8_t *in, size_t in_len,
                        mc_pgp_write_fn write, void *opaque) {
  // The header-protection flags (RFC 9788) belong to this builder only.
  const uint32_t hp_flags = MC_PGP_PROTECT_HEADERS_AT_REST | MC_PGP_PROTECT_HEADERS_GATEWAY;
  mc_pgp_encrypt_options opt = MC_PGP_ENCRYPT_OPTIONS_INIT;
  if (options != NULL)
    opt = *options;
  uint32_t hp = opt.flags & hp_flags;
  MC_FAIL_IF(hp == hp_flags, MC_ERR_INVALID_ARGUMENT);
  opt.flags &= ~hp_flags;
  mc_pgp_encrypt_params p;
  MC_TRY(mc_pgp_params_from_options(&p, options != NULL ? &opt : NULL));
  pgp_recipient *rcpts = NULL;
  size_t num = 0;
  MC_TRY(mc_pgp_rcpts_from_certs(&rcpts, &num, certs, num_certs));
  uint32_t mode = hp == MC_PGP_PROTECT_HEADERS_AT_REST   ? MC_HP_AT_REST
                  : hp == MC_PGP_PROTECT_HEADERS_GATEWAY ? MC_HP_GATEWAY
                                                         : MC_HP_NONE;
  int ret = mime_encrypt(rcpts, num, &p, mode, in, in_len, write, opaque);
  free(rcpts);
  return ret;
}
