// fuzz_pgp_mime.c: any bytes as the MIME message that mc_pgp_mime_encrypt
// wraps into PGP/MIME for a fixed X25519 recipient. Properties: the call
// returns 0 or MC_ERR_INVALID_ARGUMENT; a refused input writes nothing; an
// accepted one gives a message that libmailparse reads as a
// multipart/encrypted with exactly the two RFC 3156 parts and no problem,
// whose top-level header keeps every field of the input except the
// Content-* and MIME-Version ones (plus its own MIME-Version and
// Content-Type), and whose second part is one armored OpenPGP message.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mailparse.h"
#include "pgp_encrypt_internal.h"

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

static size_t kept_fields(const mp_message *msg) {
  size_t data_len = 0, n = 0;
  const uint8_t *d = mp_message_data(msg, &data_len);
  const mp_part *root = mp_message_part(msg, 0);
  for (uint32_t i = 0; i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    const char *name = (const char *)d + h->name.off;
    int content = h->name.len >= 8 && strncasecmp(name, "Content-", 8) == 0;
    int version = h->name.len == 12 && strncasecmp(name, "MIME-Version", 12) == 0;
    n += !content && !version;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t secret[32] = {1, 2, 3};
  uint8_t pub[32];
  if (mc_x25519_public_key(pub, secret) != 0)
    abort();
  pgp_recipient r;
  memset(&r, 0, sizeof r);
  r.version = 6;
  r.algo = PGP_PK_X25519;
  r.fpr_len = 32;
  r.ecc_pub = pub;
  r.ecc_pub_len = 32;
  r.features = PGP_FEATURE_SEIPDV1 | PGP_FEATURE_SEIPDV2;
  mc_pgp_encrypt_params p = {0, 0, NULL, NULL, NULL};
  struct sink out = {NULL, 0, 0};
  int ret = mc_pgp_mime_encrypt_rcpts(&r, 1, &p, data, size, collect, &out);
  if (ret != 0) {
    if (ret != MC_ERR_INVALID_ARGUMENT || out.len != 0)
      abort();
    free(out.p);
    return 0;
  }
  mp_message *in = NULL, *msg = NULL;
  if (mp_message_parse(&in, NULL, data, size, NULL) != 0 ||
      mp_message_parse(&msg, NULL, out.p, out.len, NULL) != 0)
    abort();
  const mp_part *root = mp_message_part(msg, 0);
  if (root->num_children != 2 || (root->flags & MP_PART_MULTIPART) == 0 || root->subtype.len != 9 ||
      memcmp(root->subtype.p, "encrypted", 9) != 0)
    abort();
  if (root->num_headers != kept_fields(in) + 2)
    abort();
  const mp_part *ver = mp_message_part(msg, root->first_child);
  const mp_part *enc = mp_message_part(msg, ver->next_sibling);
  const char *body = (const char *)out.p + enc->body.off;
  static const char begin[] = "-----BEGIN PGP MESSAGE-----";
  if (enc->num_children != 0 || enc->body.len < sizeof begin ||
      memcmp(body, begin, sizeof begin - 1) != 0 ||
      memmem(body + 1, enc->body.len - 1, begin, sizeof begin - 1) != NULL)
    abort();
  mp_message_free(in);
  mp_message_free(msg);
  free(out.p);
  return 0;
}
