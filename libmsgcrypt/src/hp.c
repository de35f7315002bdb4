// hp.c: header protection for encrypted mail (RFC 9788). From a parsed
// message it builds the two halves an encrypting builder needs: the
// Cryptographic Payload, whose header section carries the Content-* fields
// with hp="cipher", a protected copy of every non-structural field and one
// HP-Outer field for each field left outside (RFC 9788 §2.2), and the outer
// header section that the Header Confidentiality Policy of the mode
// produces (§3.2): hcp_no_confidentiality for at-rest, hcp_shy for gateway
// and hcp_baseline on request. When the policy hides or alters a
// user-facing field, a Legacy Display Element (§4.5) repeats the real value
// at the top of each main body part that is text/plain or text/html (the
// part itself, each branch of a multipart/alternative, the first part of
// any other multipart but signed and encrypted ones), decoding and
// re-encoding Base64 and quoted-printable bodies, and marks the part with
// hp-legacy-display="1". Every header line written is folded to RFC 5322's
// 998 octets, or the call fails when a line has no white space to fold at.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "encodify.h"
#include "hp_internal.h"
#include "msgcrypt_internal.h"

// RFC 5322 §2.1.1: a line is at most 998 characters without its CRLF.
#define HP_MAX_LINE 998
// The most main body parts that receive a Legacy Display Element; it keeps
// mc_hp_max_len a small multiple of the input.
#define HP_MAX_LEGACY_PARTS 4
// Base64 bodies are re-encoded in lines of this many characters (RFC 2045
// §6.8 allows up to 76).
#define HP_B64_LINE 76

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

static void fail(hp_buf *b, int err) {
  if (b->err == 0)
    b->err = err;
}

static int is_wsp(uint8_t c) {
  return c == ' ' || c == '\t';
}

static int str_is(const char *p, size_t len, const char *s) {
  size_t n = strlen(s);
  return p != NULL && len == n && strncasecmp(p, s, n) == 0;
}

static int name_is(const uint8_t *data, const mp_header *h, const char *name) {
  return str_is((const char *)data + h->name.off, h->name.len, name);
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

// put_folded_line writes one physical line `s` whose first `used` octets
// are already written, inserting a line break before white space wherever
// the line would pass 998 octets (RFC 5322 §2.2.3: unfolding removes
// exactly the breaks added here). A line without such white space fails
// the buffer with MC_ERR_INVALID_ARGUMENT rather than leaving it too long,
// unless `hard` (text for display, not a header field): then it is cut
// between two UTF-8 characters.
static void put_folded_line(hp_buf *b, const char *nl, size_t used, const uint8_t *s, size_t len,
                            int hard) {
  size_t start = 0;
  while (len - start + used > HP_MAX_LINE) {
    size_t limit = start + (HP_MAX_LINE - used);
    size_t cut = 0;
    for (size_t j = limit; j > start; j--) {
      if (!is_wsp(s[j]))
        continue;
      // The piece before the break must hold more than white space.
      for (size_t k = start; k < j && cut == 0; k++)
        if (!is_wsp(s[k]))
          cut = j;
      break;
    }
    if (cut == 0 && hard) {
      cut = limit;
      while (cut > start + 1 && (s[cut] & 0xC0) == 0x80)
        cut--;
    }
    if (cut == 0) {
      // Breaking at white space further on would leave a piece that is
      // still too long.
      fail(b, MC_ERR_INVALID_ARGUMENT);
      return;
    }
    put(b, s + start, cut - start);
    puts_(b, nl);
    start = cut;
    used = 0;
  }
  put(b, s + start, len - start);
}

// put_folded writes the header field text `s` (name, colon, value, folds,
// no final line break) after `used` octets already on the line, folding
// every physical line that is too long and keeping the others' bytes.
static void put_folded(hp_buf *b, const char *nl, size_t used, const uint8_t *s, size_t len) {
  size_t pos = 0;
  while (pos < len) {
    const uint8_t *lf = memchr(s + pos, '\n', len - pos);
    size_t end = lf == NULL ? len : (size_t)(lf - s);
    size_t text_end = end > pos && s[end - 1] == '\r' ? end - 1 : end;
    put_folded_line(b, nl, used, s + pos, text_end - pos, 0);
    used = 0;
    if (lf == NULL)
      break;
    put(b, s + text_end, end + 1 - text_end);
    pos = end + 1;
  }
}

// put_field copies the field, folded where needed, and ends it with a line
// break (the message's one when the last field of a body-less message
// lacks it, a bare CR included).
static void put_field(hp_buf *b, const uint8_t *data, const mp_header *h, const char *nl,
                      const char *prefix) {
  puts_(b, prefix);
  put_folded(b, nl, strlen(prefix), data + h->field.off, field_len_without_eol(data, h));
  puts_(b, nl);
}

// put_named writes "Name: value" (the policy's replacement value).
static void put_named(hp_buf *b, const uint8_t *data, const mp_header *h, const hp_buf *value,
                      const char *nl, const char *prefix) {
  hp_buf t = {0};
  put(&t, data + h->name.off, h->name.len);
  puts_(&t, ": ");
  put(&t, value->p, value->len);
  if (t.err != 0)
    fail(b, t.err);
  puts_(b, prefix);
  put_folded(b, nl, strlen(prefix), t.p, t.len);
  puts_(b, nl);
  mc_hp_buf_free(&t);
}

// shy_from writes the addr-spec of every mailbox of the From value in angle
// brackets, without display names (RFC 9788 §3.2.3). It returns 1 when
// that changes the value, 0 to keep it (no display name, or a value whose
// addresses cannot be written back safely), or a negative error.
static int shy_from(hp_buf *out, const char *v, size_t vlen) {
  size_t cap = vlen / 2 + 1, tcap = mp_typed_text_max_len(vlen), n = 0, tlen = 0;
  if (tcap == SIZE_MAX)
    return -ENOMEM;
  mp_address *a = calloc(cap, sizeof *a);
  char *text = malloc(tcap);
  int ret = 0;
  unsigned flags = 0;
  if (a == NULL || text == NULL) {
    ret = -ENOMEM;
  } else if (mp_address_list_parse(a, cap, &n, text, tcap, &tlen, &flags, v, vlen) == 0 && n > 0) {
    int named = 0, ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
      named |= a[i].name.len > 0;
      ok = a[i].local.len > 0 && a[i].domain.len > 0;
      // Only dot-atom local parts and domains go back without quoting.
      for (size_t k = 0; ok && k < a[i].local.len; k++) {
        unsigned char c = (unsigned char)a[i].local.p[k];
        ok = c > 32 && c < 127 && strchr("()<>[]:;@\\,\"", c) == NULL;
      }
      for (size_t k = 0; ok && k < a[i].domain.len; k++) {
        unsigned char c = (unsigned char)a[i].domain.p[k];
        ok = c > 32 && c < 127 && strchr("()<>:;@\\,\"", c) == NULL;
      }
    }
    if (ok && named) {
      for (size_t i = 0; i < n; i++) {
        puts_(out, i == 0 ? "<" : ", <");
        put(out, a[i].local.p, a[i].local.len);
        puts_(out, "@");
        put(out, a[i].domain.p, a[i].domain.len);
        puts_(out, ">");
      }
      ret = out->err != 0 ? out->err : 1;
    }
  }
  free(a);
  free(text);
  return ret;
}

// shy_date writes the Date value converted to UTC (RFC 9788 §3.2.3: the
// sender's time zone is not revealed). Returns 1 when the value changes, 0
// to keep it (already UTC, or not a date that can be read).
static int shy_date(hp_buf *out, const char *v, size_t vlen) {
  static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  mp_date d;
  unsigned flags = 0;
  if (mp_date_parse(&d, &flags, v, vlen) != 0)
    return 0;
  time_t t = (time_t)d.time;
  struct tm tm;
  if ((int64_t)t != d.time || gmtime_r(&t, &tm) == NULL || tm.tm_wday < 0 || tm.tm_wday > 6 ||
      tm.tm_mon < 0 || tm.tm_mon > 11)
    return 0;
  char s[64];
  int n =
      snprintf(s, sizeof s, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday], tm.tm_mday,
               months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (n <= 0 || (size_t)n >= sizeof s)
    return 0;
  // An unchanged value (ignoring surrounding white space) stays verbatim.
  size_t a = 0, z = vlen;
  while (a < z && (is_wsp((uint8_t)v[a]) || v[a] == '\r' || v[a] == '\n'))
    a++;
  while (z > a && (is_wsp((uint8_t)v[z - 1]) || v[z - 1] == '\r' || v[z - 1] == '\n'))
    z--;
  if (z - a == (size_t)n && memcmp(v + a, s, (size_t)n) == 0)
    return 0;
  put(out, s, (size_t)n);
  return out->err != 0 ? out->err : 1;
}

// hcp applies the Header Confidentiality Policy of `mode` to one field
// (RFC 9788 §3.2): 0 keeps it as it is, 1 replaces its value with `*repl`,
// -1 removes it from the outer header; negative errors below -1 pass on.
//   hcp_no_confidentiality (MC_HP_AT_REST): everything kept.
//   hcp_baseline (MC_HP_BASELINE): Subject becomes "[...]", Comments and
//     Keywords are removed.
//   hcp_shy (MC_HP_GATEWAY): hcp_baseline, and From loses its display
//     names, Date is given in UTC.
static int hcp(hp_buf *repl, uint32_t mode, const uint8_t *data, const mp_header *h) {
  if (mode == MC_HP_AT_REST)
    return 0;
  if (name_is(data, h, "Subject")) {
    puts_(repl, "[...]");
    return repl->err != 0 ? repl->err : 1;
  }
  if (name_is(data, h, "Comments") || name_is(data, h, "Keywords"))
    return -1;
  if (mode != MC_HP_GATEWAY)
    return 0;
  const char *v = (const char *)data + h->value.off;
  if (name_is(data, h, "From"))
    return shy_from(repl, v, h->value.len);
  if (name_is(data, h, "Date"))
    return shy_date(repl, v, h->value.len);
  return 0;
}

// The user-facing fields (RFC 9788 §1.1.2) that a Legacy Display Element
// repeats when the policy hides or alters them.
static int is_user_facing(const uint8_t *data, const mp_header *h) {
  static const char *const names[] = {"Subject", "From",     "To",       "Cc",
                                      "Date",    "Reply-To", "Comments", "Keywords"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (name_is(data, h, names[i]))
      return 1;
  return 0;
}

// put_legacy_line writes "Name: value" for the hidden user-facing field
// `h`: its value decoded from RFC 2047 when the part's charset can carry
// the result, else unfolded as it stands.
static void put_legacy_line(hp_buf *out, const uint8_t *data, const mp_header *h, int utf8_ok,
                            int wrap, const char *nl) {
  hp_buf line = {0}, *b = &line;
  const char *v = (const char *)data + h->value.off;
  size_t vlen = h->value.len;
  size_t cap = mp_typed_text_max_len(vlen);
  char *dec = cap == SIZE_MAX ? NULL : malloc(cap);
  if (dec == NULL) {
    fail(out, -ENOMEM);
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
    while (start < vlen && is_wsp((uint8_t)v[start]))
      start++;
    for (size_t i = start; i < vlen; i++)
      if (v[i] != '\r' && v[i] != '\n')
        put(b, v + i, 1);
  }
  free(dec);
  // A body that is not transfer-encoded keeps RFC 5322's line limit too.
  if (line.err != 0)
    fail(out, line.err);
  else if (wrap)
    put_folded_line(out, nl, 0, line.p, line.len, 1);
  else
    put(out, line.p, line.len);
  puts_(out, nl);
  mc_hp_buf_free(&line);
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

// find_header returns the first field of `part` named `name`, or NULL.
static const mp_header *find_header(const mp_message *msg, const mp_part *p, const uint8_t *data,
                                    const char *name) {
  for (uint32_t i = 0; i < p->num_headers; i++) {
    const mp_header *h = mp_message_header(msg, p->first_header + i);
    if (h != NULL && name_is(data, h, name))
      return h;
  }
  return NULL;
}

// ct_has_param tells whether the Content-Type field `h` carries parameter
// `name`: 1 yes, 0 no, or a negative error.
static int ct_has_param(const uint8_t *data, const mp_header *h, const char *name) {
  size_t vlen = h->value.len, cap = vlen / 2 + 1, tcap = mp_typed_text_max_len(vlen), tlen = 0;
  if (tcap == SIZE_MAX)
    return -ENOMEM;
  mp_param *params = calloc(cap, sizeof *params);
  char *text = malloc(tcap);
  int ret = -ENOMEM;
  if (params != NULL && text != NULL) {
    mp_content_type ct;
    unsigned flags = 0;
    ret = 0;
    if (mp_content_type_parse(&ct, params, cap, text, tcap, &tlen, &flags,
                              (const char *)data + h->value.off, vlen) == 0)
      ret = mp_param_find(params, ct.num_params, name) != NULL;
  }
  free(params);
  free(text);
  return ret;
}

// add_targets collects the main body parts under `idx` that can carry a
// Legacy Display Element (RFC 9788 §4.5.2): a text/plain or text/html leaf
// that is not an attachment, each branch of a multipart/alternative, the
// first part of any other multipart. multipart/signed and
// multipart/encrypted are left alone (their bytes are covered by a
// signature or are not text), and so is anything inside a message/*.
static void add_targets(const mp_message *msg, const uint8_t *data, uint32_t idx, uint32_t *out,
                        size_t *n) {
  const mp_part *p = mp_message_part(msg, idx);
  if (p == NULL || *n >= HP_MAX_LEGACY_PARTS || (p->flags & MP_PART_MESSAGE) != 0)
    return;
  if ((p->flags & MP_PART_MULTIPART) != 0) {
    if (p->num_children == 0 || str_is(p->subtype.p, p->subtype.len, "signed") ||
        str_is(p->subtype.p, p->subtype.len, "encrypted"))
      return;
    uint32_t c = p->first_child;
    if (str_is(p->subtype.p, p->subtype.len, "alternative")) {
      for (uint32_t i = 0; i < p->num_children && c != MP_NO_INDEX; i++) {
        add_targets(msg, data, c, out, n);
        const mp_part *cp = mp_message_part(msg, c);
        c = cp == NULL ? MP_NO_INDEX : cp->next_sibling;
      }
    } else {
      add_targets(msg, data, c, out, n);
    }
    return;
  }
  if (p->num_children != 0 || (p->flags & (MP_PART_NO_BODY | MP_PART_UNKNOWN_CTE)) != 0)
    return;
  int text = p->type.len == 0 || str_is(p->type.p, p->type.len, "text");
  int plain = p->type.len == 0 || str_is(p->subtype.p, p->subtype.len, "plain");
  int html = !plain && str_is(p->subtype.p, p->subtype.len, "html");
  if (!text || (!plain && !html))
    return;
  if (p->h_disposition != MP_NO_INDEX) {
    const mp_header *h = mp_message_header(msg, p->h_disposition);
    const char *v = h == NULL ? NULL : (const char *)data + h->value.off;
    size_t k = 0;
    while (h != NULL && k < h->value.len && is_wsp((uint8_t)v[k]))
      k++;
    if (h != NULL && h->value.len - k >= 10 && strncasecmp(v + k, "attachment", 10) == 0)
      return;
  }
  if (p->encoding == MP_ENCODING_UNKNOWN)
    return;
  out[(*n)++] = idx;
}

// find_body_tag returns the offset just after the ">" of the first <body>
// start tag in `s`, or 0 when there is none.
static size_t find_body_tag(const uint8_t *s, size_t len) {
  for (size_t i = 0; i + 5 < len; i++) {
    if (s[i] != '<' || strncasecmp((const char *)s + i + 1, "body", 4) != 0)
      continue;
    uint8_t c = s[i + 5];
    if (c != '>' && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '/')
      continue;
    const uint8_t *gt = memchr(s + i + 5, '>', len - i - 5);
    return gt == NULL ? 0 : (size_t)(gt - s) + 1;
  }
  return 0;
}

// put_html_escaped writes `s` with the characters HTML gives meaning to
// as character references.
static void put_html_escaped(hp_buf *b, const uint8_t *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    switch (s[i]) {
    case '&':
      puts_(b, "&amp;");
      break;
    case '<':
      puts_(b, "&lt;");
      break;
    case '>':
      puts_(b, "&gt;");
      break;
    default:
      put(b, s + i, 1);
    }
  }
}

// legacy_body builds in `out` the body of part `idx` (still in its
// transfer encoding) with the Legacy Display Element `lines` (the "Name:
// value" lines, each ending with `nl`) in front: a block of text and an
// empty line for text/plain (§4.5.3.1), a <div
// class="header-protection-legacy-display"> right after <body> for
// text/html (§4.5.3.2). Base64 and quoted-printable bodies are decoded and
// encoded again. Returns 1 when done, 0 when the body cannot be decoded
// (the part goes without), or a negative error.
static int legacy_body(hp_buf *out, const mp_message *msg, const uint8_t *data, uint32_t idx,
                       const mp_header *const *hidden, size_t num_hidden, const char *nl) {
  const mp_part *p = mp_message_part(msg, idx);
  const char *raw = (const char *)data + p->body.off;
  size_t raw_len = p->body.len;
  uint8_t *dec = NULL;
  size_t dec_len = raw_len;
  const uint8_t *text = (const uint8_t *)raw;
  if (p->encoding == MP_ENCODING_BASE64 || p->encoding == MP_ENCODING_QP) {
    dec = malloc(raw_len + 1);
    if (dec == NULL)
      return -ENOMEM;
    int r = p->encoding == MP_ENCODING_BASE64
                ? enc_base64_decode(ENC_FLAG_MIME, dec, raw_len + 1, &dec_len, raw, raw_len, NULL)
                : enc_qp_decode(dec, raw_len + 1, &dec_len, raw, raw_len);
    if (r != 0) {
      free(dec);
      return 0;
    }
    text = dec;
  }
  int utf8_ok =
      str_is(p->charset.p, p->charset.len, "utf-8") || str_is(p->charset.p, p->charset.len, "utf8");
  hp_buf lines = {0}, plain = {0};
  for (size_t i = 0; i < num_hidden; i++)
    put_legacy_line(&lines, data, hidden[i], utf8_ok,
                    p->encoding != MP_ENCODING_BASE64 && p->encoding != MP_ENCODING_QP, nl);
  int html = p->type.len != 0 && str_is(p->subtype.p, p->subtype.len, "html");
  if (!html) {
    put(&plain, lines.p, lines.len);
    puts_(&plain, nl);
    put(&plain, text, dec_len);
  } else {
    size_t at = find_body_tag(text, dec_len);
    put(&plain, text, at);
    if (at > 0)
      puts_(&plain, nl);
    puts_(&plain, "<div class=\"header-protection-legacy-display\">");
    puts_(&plain, nl);
    puts_(&plain, "<pre>");
    // The last line's break would show as an empty line inside <pre>.
    put_html_escaped(&plain, lines.p, lines.len > strlen(nl) ? lines.len - strlen(nl) : 0);
    puts_(&plain, "</pre>");
    puts_(&plain, nl);
    puts_(&plain, "</div>");
    if (at == 0)
      puts_(&plain, nl);
    put(&plain, text + at, dec_len - at);
  }
  int ret = lines.err != 0 ? lines.err : plain.err;
  if (ret == 0 && p->encoding == MP_ENCODING_BASE64) {
    size_t elen = enc_base64_encode_len(0, 0, plain.len);
    char *enc = elen == SIZE_MAX ? NULL : malloc(elen + 1);
    if (enc == NULL || enc_base64_encode(0, 0, enc, elen + 1, &elen, plain.p, plain.len) != 0) {
      ret = -ENOMEM;
    } else {
      for (size_t i = 0; i < elen; i += HP_B64_LINE) {
        size_t n = elen - i < HP_B64_LINE ? elen - i : HP_B64_LINE;
        put(out, enc + i, n);
        if (i + n < elen)
          puts_(out, nl);
      }
      // The break before a boundary belongs to the delimiter: keep what
      // the body had.
      if (raw_len > 0 && raw[raw_len - 1] == '\n')
        puts_(out, nl);
    }
    free(enc);
  } else if (ret == 0 && p->encoding == MP_ENCODING_QP) {
    // Quoted-printable grows at most threefold plus a soft break per line.
    size_t cap = plain.len > (SIZE_MAX - 16) / 4 ? 0 : plain.len * 4 + 16;
    char *enc = cap == 0 ? NULL : malloc(cap);
    size_t elen = 0;
    if (enc == NULL || enc_qp_encode(0, enc, cap, &elen, plain.p, plain.len) != 0)
      ret = -ENOMEM;
    else
      put(out, enc, elen);
    free(enc);
  } else if (ret == 0) {
    put(out, plain.p, plain.len);
  }
  mc_hp_buf_free(&lines);
  mc_hp_buf_free(&plain);
  free(dec);
  if (ret == 0)
    ret = out->err;
  return ret == 0 ? 1 : ret;
}

// put_content_type writes the Content-Type field `h` (or a text/plain one
// when `h` is NULL) with `extra` parameters appended, folded.
static void put_content_type(hp_buf *b, const uint8_t *data, const mp_header *h, const char *extra,
                             const char *nl) {
  hp_buf t = {0};
  if (h != NULL)
    put(&t, data + h->field.off, field_len_without_eol(data, h));
  else
    puts_(&t, "Content-Type: text/plain; charset=us-ascii");
  puts_(&t, extra);
  if (t.err != 0)
    fail(b, t.err);
  put_folded(b, nl, 0, t.p, t.len);
  puts_(b, nl);
  mc_hp_buf_free(&t);
}

int mc_hp_build(hp_buf *outer, hp_buf *inner, uint32_t mode, const mp_message *msg) {
  MC_FAIL_IF(mode != MC_HP_AT_REST && mode != MC_HP_GATEWAY && mode != MC_HP_BASELINE,
             MC_ERR_INVALID_ARGUMENT);
  MC_TRY(check_header(msg));
  size_t data_len = 0;
  const uint8_t *data = mp_message_data(msg, &data_len);
  const mp_part *root = mp_message_part(msg, 0);
  const mp_header *first = mp_message_header(msg, root->first_header);
  const char *nl = first->field.len >= 2 && data[first->field.off + first->field.len - 2] == '\r'
                       ? "\r\n"
                       : "\n";
  // A payload that already says hp= (or carries a legacy display) is
  // protected already: a second, conflicting parameter would leave the
  // reader to guess which layer's HP-Outer fields to trust (RFC 9788 §2.1.1
  // allows one hp parameter, on the Cryptographic Payload's root).
  const mp_header *root_ct = find_header(msg, root, data, "Content-Type");
  if (root_ct != NULL) {
    int a = ct_has_param(data, root_ct, "hp");
    int b = a < 0 ? a : ct_has_param(data, root_ct, "hp-legacy-display");
    MC_TRY(a < 0 ? a : b < 0 ? b : 0);
    MC_FAIL_IF(a == 1 || b == 1, MC_ERR_UNSUPPORTED);
  }

  // The policy's verdict on every field, and the user-facing fields it
  // hides or alters, which the Legacy Display Element repeats.
  size_t nh = root->num_headers;
  int *act = calloc(nh, sizeof *act);
  hp_buf *repl = calloc(nh, sizeof *repl);
  const mp_header **hidden = calloc(nh, sizeof *hidden);
  hp_buf bodies[HP_MAX_LEGACY_PARTS];
  memset(bodies, 0, sizeof bodies);
  uint32_t targets[HP_MAX_LEGACY_PARTS];
  int done[HP_MAX_LEGACY_PARTS] = {0};
  size_t num_targets = 0, num_hidden = 0;
  int ret = act == NULL || repl == NULL || hidden == NULL ? -ENOMEM : 0;
  for (uint32_t i = 0; ret == 0 && i < nh; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (is_content_field(data, h) || name_is(data, h, "MIME-Version"))
      continue;
    act[i] = hcp(&repl[i], mode, data, h);
    if (act[i] < -1)
      ret = act[i];
    else if (act[i] != 0 && is_user_facing(data, h))
      hidden[num_hidden++] = h;
  }
  if (ret == 0 && num_hidden > 0)
    add_targets(msg, data, 0, targets, &num_targets);
  int root_legacy = 0;
  for (size_t t = 0; ret == 0 && t < num_targets; t++) {
    const mp_part *p = mp_message_part(msg, targets[t]);
    const mp_header *ct = find_header(msg, p, data, "Content-Type");
    int has = ct == NULL || targets[t] == 0 ? 0 : ct_has_param(data, ct, "hp-legacy-display");
    if (has < 0)
      ret = has;
    else if (has == 0)
      ret = legacy_body(&bodies[t], msg, data, targets[t], hidden, num_hidden, nl);
    done[t] = ret == 1;
    root_legacy |= done[t] && targets[t] == 0;
    ret = ret < 0 ? ret : 0;
  }

  // The Cryptographic Payload's header section: Content-* first, with the
  // hp parameter on Content-Type (RFC 9788 §2.1.1).
  const char *params = root_legacy ? "; hp-legacy-display=\"1\"; hp=\"cipher\"" : "; hp=\"cipher\"";
  for (uint32_t i = 0; ret == 0 && i < nh; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (h == root_ct)
      put_content_type(inner, data, h, params, nl);
    else if (is_content_field(data, h))
      put_field(inner, data, h, nl, "");
  }
  if (root_ct == NULL)
    put_content_type(inner, data, NULL, params, nl);
  // The protected copies, then what the outside shows of each.
  for (uint32_t i = 0; ret == 0 && i < nh; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (!is_content_field(data, h) && !name_is(data, h, "MIME-Version"))
      put_field(inner, data, h, nl, "");
  }
  for (uint32_t i = 0; ret == 0 && i < nh; i++) {
    const mp_header *h = mp_message_header(msg, root->first_header + i);
    if (is_content_field(data, h) || name_is(data, h, "MIME-Version") || act[i] < 0)
      continue;
    if (act[i] == 0) {
      put_field(outer, data, h, nl, "");
      put_field(inner, data, h, nl, "HP-Outer: ");
    } else {
      put_named(outer, data, h, &repl[i], nl, "");
      put_named(inner, data, h, &repl[i], nl, "HP-Outer: ");
    }
  }
  puts_(inner, nl);
  // The body, with each main body part that got a Legacy Display Element
  // spliced in: its Content-Type marked, its body replaced.
  if (ret == 0 && root_legacy) {
    put(inner, bodies[0].p, bodies[0].len);
  } else if (ret == 0 && (root->flags & MP_PART_NO_BODY) == 0) {
    size_t cur = root->body.off, end = root->body.off + root->body.len;
    for (size_t t = 0; t < num_targets; t++) {
      if (!done[t])
        continue;
      const mp_part *p = mp_message_part(msg, targets[t]);
      const mp_header *ct = find_header(msg, p, data, "Content-Type");
      size_t at = ct != NULL ? ct->field.off : p->header.off;
      if (at < cur || p->body.off < at)
        continue; // not in document order: leave the part as it is
      put(inner, data + cur, at - cur);
      put_content_type(inner, data, ct, "; hp-legacy-display=\"1\"", nl);
      cur = ct != NULL ? ct->field.off + ct->field.len : at;
      put(inner, data + cur, p->body.off - cur);
      put(inner, bodies[t].p, bodies[t].len);
      cur = p->body.off + p->body.len;
    }
    if (cur <= end)
      put(inner, data + cur, end - cur);
  }
  for (uint32_t i = 0; repl != NULL && i < nh; i++)
    mc_hp_buf_free(&repl[i]);
  for (size_t t = 0; t < HP_MAX_LEGACY_PARTS; t++)
    mc_hp_buf_free(&bodies[t]);
  free(act);
  free(repl);
  free(hidden);
  if (ret != 0)
    return ret;
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
  // Header fields appear up to three times (protected copy, HP-Outer with
  // its prefix, outer) with fold breaks; each of at most
  // HP_MAX_LEGACY_PARTS legacy displays repeats decoded values (RFC 2047
  // decoding to UTF-8 grows at most 3x), HTML-escaped (5x) and Base64
  // encoded again (4/3 plus line breaks); a re-encoded body grows by at
  // most 3x (quoted-printable) plus soft breaks.
  if (in_len > (SIZE_MAX - 4096) / 96)
    return SIZE_MAX;
  return 96 * in_len + 4096;
}
