// hp.c: header protection for encrypted mail (RFC 9788). From the top-level
// header section of a message it builds the two halves an encrypting
// builder needs: the Cryptographic Payload, whose header section carries
// the Content-* fields with hp="cipher", a protected copy of every
// non-structural field and one HP-Outer field for each field left outside
// (RFC 9788 §2.2), and the outer header section that the Header
// Confidentiality Policy of the mode produces: hcp_no_confidentiality for
// at-rest (every field stays readable) and hcp_baseline for gateway
// (Subject becomes "[...]", Comments and Keywords are dropped). When the
// policy hides a user-facing field, RFC 9788 §4.5 asks for a Legacy Display
// Element: the hidden fields are repeated at the top of a text/plain body
// that is not transfer-encoded, marked with hp-legacy-display="1".
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hp_internal.h"
#include "msgcrypt_internal.h"

void mc_hp_buf_free(hp_buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

static void put(hp_buf *b, const void *p, size_t len) {
  if (b->err != 0 || len == 0)
    return;
  if (len > SIZE_MAX / 2 - b->len) {
    b->err = -ENOMEM;
    return;
  }
  if (b->len + len > b->cap) {
    size_t cap = b->cap < 256 ? 256 : b->cap;
    while (cap < b->len + len)
      cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (q == NULL) {
      b->err = -ENOMEM;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->len, p, len);
  b->len += len;
}

static void puts_(hp_buf *b, const char *s) {
  put(b, s, strlen(s));
}

static int name_is(const uint8_t *data, const mp_header *h, const char *name) {
  size_t n = strlen(name);
  return h->name.len == n && strncasecmp((const char *)data + h->name.off, name, n) == 0;
}

static int is_content_field(const uint8_t *data, const mp_header *h) {
  return h->name.len >= 8 && strncasecmp((const char *)data + h->name.off, "Content-", 8) == 0;
}

// field_len_without_eol is the length of the field without its final line
// break (CRLF or LF), if it has one.
static size_t field_len_without_eol(const uint8_t *data, const mp_header *h) {
  size_t n = h->field.len;
  if (n > 0 && data[h->field.off + n - 1] == '\n')
    n--;
  if (n > 0 && data[h->field.off + n - 1] == '\r')
    n--;
  return n;
}

// put_field copies the field verbatim, supplying the line break the last
// field of a body-less message may lack.
static void put_field(hp_buf *b, const uint8_t *data, const mp_header *h, const char *nl) {
  if (h->field.len > 0 && data[h->field.off + h->field.len - 1] == '\n') {
    put(b, data + h->field.off, h->field.len);
  } else {
    // A last field without LF (a bare CR included) gets the message's.
    put(b, data + h->field.off, field_len_without_eol(data, h));
    puts_(b, nl);
  }
}

// The header confidentiality policy of `mode` for one field: 0 keeps it as
// it is, 1 replaces the value with "[...]", -1 removes it from the outer
// header (RFC 9788 §3.2: hcp_no_confidentiality and hcp_baseline).
static int hcp(uint32_t mode, const uint8_t *data, const mp_header *h) {
  if (mode != MC_HP_GATEWAY)
    return 0;
  if (name_is(data, h, "Subject"))
    return 1;
  if (name_is(data, h, "Comments") || name_is(data, h, "Keywords"))
    return -1;
  return 0;
}

// put_legacy_line writes "Name: value" for the hidden user-facing field
// `h`: its value decoded from RFC 2047 when the body's charset can carry
// the result, else unfolded as it stands.
static void put_legacy_line(hp_buf *b, const uint8_t *data, const mp_header *h, int utf8_ok,
                            const char *nl) {
  const char *v = (const char *)data + h->value.off;
  size_t vlen = h->value.len;
  size_t cap = mp_typed_text_max_len(vlen);
  char *dec = cap == SIZE_MAX ? NULL : malloc(cap);
  if (dec == NULL) {
    b->err = b->err != 0 ? b->err : -ENOMEM;
    return;
  }
  size_t dlen = 0;
  unsigned flags = 0;
  int ok = mp_rfc2047_decode(dec, cap, &dlen, &flags, v, vlen) == 0;
  int ascii = 1;
  for (size_t i = 0; ok && i < dlen; i++)
    ascii &= (unsigned char)dec[i] < 0x80;
  put(b, data + h->name.off, h->name.len);
  puts_(b, ": ");
  if (ok && (ascii || utf8_ok)) {
    put(b, dec, dlen);
  } else {
    // Unfold: drop CR and LF, keep the white space that follows them.
    size_t start = 0;
    while (start < vlen && (v[start] == ' ' || v[start] == '\t'))
      start++;
    for (size_t i = start; i < vlen; i++)
      if (v[i] != '\r' && v[i] != '\n')
        put(b, v + i, 1);
  }
  puts_(b, nl);
  free(dec);
}

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

int mc_hp_build(hp_buf *outer, hp_buf *inner, uint32_t mode, const mp_message *msg) {
  MC_FAIL_IF(mode != MC_HP_AT_REST && mode != MC_HP_GATEWAY, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(check_header(msg));
  size_t data_len = 0;
  const uint8_t *data = mp_message_data(msg, &data_len);
  const mp_part *root = mp_message_part(msg, 0);
  const mp_header *first = mp_message_header(msg, root->first_header);
  const char *nl = first->field.len >= 2 && data[first->field.off + first->field.len - 2] == '\r'
                       ? "\r\n"
                       : "\n";

  // A Legacy Display Element is due when the policy hides a user-facing
  // field; it goes into a single text/plain body whose bytes are the text
  // (no Base64 or quoted-printable to re-encode).
  int hides = 0;
  for (uint32_t i = 0; i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    hides |= !is_content_field(data, h) && hcp(mode, data, h) != 0 &&
             (name_is(data, h, "Subject") || name_is(data, h, "Keywords") ||
              name_is(data, h, "Comments"));
  }
  int is_text_plain = root->num_children == 0 &&
                      (root->type.len == 0 ||
                       (root->type.len == 4 && strncasecmp(root->type.p, "text", 4) == 0 &&
                        root->subtype.len == 5 && strncasecmp(root->subtype.p, "plain", 5) == 0));
  int identity = root->encoding == MP_ENCODING_7BIT || root->encoding == MP_ENCODING_8BIT ||
                 root->encoding == MP_ENCODING_BINARY;
  int legacy = hides && is_text_plain && identity;
  int utf8_ok = root->charset.len == 5 && strncasecmp(root->charset.p, "utf-8", 5) == 0;

  // The Cryptographic Payload's header section: Content-* first, with the
  // hp parameter on Content-Type (RFC 9788 §2.1.1).
  int has_type = 0;
  for (uint32_t i = 0; i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (!is_content_field(data, h))
      continue;
    if (name_is(data, h, "Content-Type") && !has_type) {
      has_type = 1;
      put(inner, data + h->field.off, field_len_without_eol(data, h));
      puts_(inner, legacy ? "; hp-legacy-display=\"1\"; hp=\"cipher\"" : "; hp=\"cipher\"");
      puts_(inner, nl);
    } else {
      put_field(inner, data, h, nl);
    }
  }
  if (!has_type) {
    puts_(inner, "Content-Type: text/plain; charset=us-ascii");
    puts_(inner, legacy ? "; hp-legacy-display=\"1\"; hp=\"cipher\"" : "; hp=\"cipher\"");
    puts_(inner, nl);
  }
  // The protected copies, then what the outside shows of each.
  for (uint32_t i = 0; i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (!is_content_field(data, h) && !name_is(data, h, "MIME-Version"))
      put_field(inner, data, h, nl);
  }
  for (uint32_t i = 0; i < root->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (is_content_field(data, h) || name_is(data, h, "MIME-Version"))
      continue;
    int act = hcp(mode, data, h);
    if (act < 0)
      continue;
    if (act == 0) {
      put_field(outer, data, h, nl);
      puts_(inner, "HP-Outer: ");
      put_field(inner, data, h, nl);
    } else {
      put(outer, data + h->name.off, h->name.len);
      puts_(outer, ": [...]");
      puts_(outer, nl);
      puts_(inner, "HP-Outer: ");
      put(inner, data + h->name.off, h->name.len);
      puts_(inner, ": [...]");
      puts_(inner, nl);
    }
  }
  puts_(inner, nl);
  if (legacy) {
    for (uint32_t i = 0; i < root->num_headers; i++) {
      const mp_header *h = mp_message_header(msg, root->first_header + i);
      if (!is_content_field(data, h) && hcp(mode, data, h) != 0 &&
          (name_is(data, h, "Subject") || name_is(data, h, "Keywords") ||
           name_is(data, h, "Comments")))
        put_legacy_line(inner, data, h, utf8_ok, nl);
    }
    puts_(inner, nl);
  }
  if ((root->flags & MP_PART_NO_BODY) == 0)
    put(inner, data + root->body.off, root->body.len);
  if (outer->err != 0)
    return outer->err;
  return inner->err;
}

// The public entry point works on caller buffers; the engine's growable
// output is copied once, which is cheap next to the encryption around it.
int mc_hp_protect(uint8_t *outer, size_t outer_cap, size_t *outer_len, uint8_t *inner,
                  size_t inner_cap, size_t *inner_len, uint32_t mode, const uint8_t *in,
                  size_t in_len) {
  MC_FAIL_IF(outer_len == NULL || inner_len == NULL, MC_ERR_INVALID_ARGUMENT);
  *outer_len = 0;
  *inner_len = 0;
  MC_FAIL_IF((outer == NULL && outer_cap > 0) || (inner == NULL && inner_cap > 0) ||
                 (in == NULL && in_len > 0),
             MC_ERR_INVALID_ARGUMENT);
  mp_message *msg = NULL;
  int ret = mp_message_parse(&msg, NULL, in, in_len, NULL);
  if (ret != 0)
    return ret == -ENOMEM ? -ENOMEM : MC_ERR_INVALID_ARGUMENT;
  hp_buf o = {0}, i = {0};
  ret = mc_hp_build(&o, &i, mode, msg);
  mp_message_free(msg);
  if (ret == 0 && (o.len > outer_cap || i.len > inner_cap))
    ret = MC_ERR_BUFFER_TOO_SMALL;
  if (ret == 0) {
    if (o.len > 0)
      memcpy(outer, o.p, o.len);
    if (i.len > 0)
      memcpy(inner, i.p, i.len);
    *outer_len = o.len;
    *inner_len = i.len;
  }
  mc_hp_buf_free(&o);
  mc_hp_buf_free(&i);
  return ret;
}

size_t mc_hp_max_len(size_t in_len) {
  // Every field may appear twice inside (protected copy and HP-Outer with
  // its 10-byte prefix and a supplied line break), plus a legacy display
  // line decoding to at most 3 bytes per input byte, plus fixed text.
  if (in_len > (SIZE_MAX - 256) / 8)
    return SIZE_MAX;
  return 8 * in_len + 256;
}
