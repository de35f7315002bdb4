// dump_common.c: the views of a parsed message that both dump forms print,
// each computed with libmailparse's public API into buffers the caller
// frees: IMAP section numbers, a part's decoded size and SHA-256, a text
// part's UTF-8 text, decoded header values, the body selection with its
// preview, and the IMAP ENVELOPE and BODYSTRUCTURE strings.
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

const char *dump_problem_name(uint32_t k) {
  static const char *const names[] = {"no_colon", "nul",         "long_line", "depth",
                                      "parts",    "headers",     "work",      "no_boundary",
                                      "no_end",   "unknown_cte", "no_body",   "bad_content_type"};
  return k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

const char *dump_encoding_name(mp_encoding e) {
  static const char *const names[] = {"7bit",   "8bit",   "binary", "quoted-printable",
                                      "base64", "unknown"};
  return (unsigned)e < 6 ? names[e] : "unknown";
}

void dump_section(const mp_message *m, uint32_t ix, char *out, size_t cap) {
  const mp_part *p = mp_message_part(m, ix);
  if (p->parent == MP_NO_INDEX) {
    snprintf(out, cap, "%s", (p->flags & MP_PART_MULTIPART) ? "" : "1");
    return;
  }
  const mp_part *pp = mp_message_part(m, p->parent);
  dump_section(m, p->parent, out, cap);
  size_t n = strlen(out);
  const char *dot = n > 0 ? "." : "";
  if (pp->flags & MP_PART_MULTIPART) {
    unsigned k = 1;
    for (uint32_t c = pp->first_child; c != ix && c != MP_NO_INDEX;
         c = mp_message_part(m, c)->next_sibling)
      k++;
    snprintf(out + n, cap - n, "%s%u", dot, k);
  } else if (!(p->flags & MP_PART_MULTIPART)) {
    snprintf(out + n, cap - n, "%s1", dot);
  }
}

// decode_part decodes part `ix` into a malloc'ed buffer.
static int decode_part(const mp_message *m, uint32_t ix, uint8_t **out, size_t *out_len) {
  size_t cap = mp_part_decode_max_len(m, ix);
  uint8_t *buf = malloc(cap ? cap : 1);
  if (buf == NULL)
    return -ENOMEM;
  int rc = mp_part_decode(m, ix, buf, cap, out_len);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *out = buf;
  return 0;
}

int dump_digest(const mp_message *m, uint32_t ix, size_t *size, char hex[65]) {
  uint8_t *buf;
  int rc = decode_part(m, ix, &buf, size);
  if (rc != 0)
    return rc;
  uint8_t md[SHA256_DIGEST_LENGTH];
  SHA256(buf, *size, md);
  for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
    snprintf(hex + 2 * i, 3, "%02x", md[i]);
  free(buf);
  return 0;
}

int dump_is_text(const mp_part *p) {
  return !(p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE)) && p->type.len == 4 &&
         memcmp(p->type.p, "text", 4) == 0;
}

int dump_part_text(const mp_message *m, uint32_t ix, char **out, size_t *out_len, unsigned *flags) {
  const mp_part *p = mp_message_part(m, ix);
  uint8_t *raw;
  size_t n;
  int rc = decode_part(m, ix, &raw, &n);
  if (rc != 0)
    return rc;
  size_t cap = mp_charset_utf8_max_len(n);
  char *text = cap == SIZE_MAX ? NULL : malloc(cap ? cap : 1);
  if (text == NULL) {
    free(raw);
    return -ENOMEM;
  }
  const char *cs = p->charset.p != NULL ? p->charset.p : "us-ascii";
  size_t cs_len = p->charset.p != NULL ? p->charset.len : 8;
  rc = mp_charset_to_utf8(text, cap, out_len, flags, cs, cs_len, raw, n);
  free(raw);
  if (rc != 0) {
    free(text);
    return rc;
  }
  *out = text;
  return 0;
}

int dump_header_decoded(const mp_message *m, const mp_header *h, char **out, size_t *out_len) {
  const char *data = (const char *)mp_message_data(m, NULL);
  size_t cap = mp_typed_text_max_len(h->value.len);
  char *buf = cap == SIZE_MAX ? NULL : malloc(cap);
  if (buf == NULL)
    return -ENOMEM;
  unsigned fl = 0;
  int rc = mp_rfc2047_decode(buf, cap, out_len, &fl, data + h->value.off, h->value.len);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *out = buf;
  return 0;
}

int dump_select(const mp_message *m, mp_selection *sel, uint32_t **idx,
                char preview[MP_PREVIEW_MAX_LEN], size_t *preview_len) {
  size_t cap = mp_message_select_max_len(m);
  *idx = malloc(cap * sizeof **idx);
  if (*idx == NULL)
    return -ENOMEM;
  int rc = mp_message_select(m, sel, *idx, cap, 0);
  if (rc == 0)
    rc = mp_message_preview(m, preview, MP_PREVIEW_MAX_LEN, preview_len, sel);
  return rc;
}

int dump_imap(const mp_message *m, int envelope, char **out, size_t *out_len) {
  size_t need = 0;
  int rc = envelope ? mp_part_envelope(m, 0, NULL, 0, &need)
                    : mp_part_bodystructure(m, 0, 1, NULL, 0, &need);
  if (rc != 0)
    return rc;
  char *buf = malloc(need ? need : 1);
  if (buf == NULL)
    return -ENOMEM;
  rc = envelope ? mp_part_envelope(m, 0, buf, need, out_len)
                : mp_part_bodystructure(m, 0, 1, buf, need, out_len);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *out = buf;
  return 0;
}
