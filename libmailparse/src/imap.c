// imap.c: the IMAP views of a parsed message (RFC 3501 7.4.2, RFC 9051
// 7.5.2): BODY and BODYSTRUCTURE of any part and the ENVELOPE of a message,
// rendered as IMAP syntax into a caller buffer (with a size query), from the
// part tree and the typed header parsers (Content-Type and -Disposition
// parameters, address lists).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core_internal.h"

// MP_IMAP_MAX_DEPTH bounds the recursion through nested parts.
#define MP_IMAP_MAX_DEPTH 256

typedef struct bld {
  char *out;
  size_t cap, len;
  const mp_message *msg;
  int err;
} bld;

static void put(bld *b, const void *p, size_t n) {
  if (b->len + n <= b->cap && n > 0)
    memcpy(b->out + b->len, p, n);
  b->len += n;
}

static void puts_(bld *b, const char *s) {
  put(b, s, strlen(s));
}

// nstring writes NIL, a quoted string, or a literal for text that a quoted
// string cannot carry (CR, LF, NUL, 8-bit bytes).
static void nstring(bld *b, const char *p, size_t n) {
  if (p == NULL) {
    puts_(b, "NIL");
    return;
  }
  bool lit = false;
  for (size_t i = 0; i < n && !lit; i++)
    lit = (uint8_t)p[i] < 0x20 || (uint8_t)p[i] >= 0x7f;
  if (lit) {
    char hdr[32];
    int k = snprintf(hdr, sizeof hdr, "{%zu}\r\n", n);
    put(b, hdr, (size_t)k);
    put(b, p, n);
    return;
  }
  put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '"' || p[i] == '\\')
      put(b, "\\", 1);
    put(b, p + i, 1);
  }
  put(b, "\"", 1);
}

static void number(bld *b, uint64_t v) {
  char t[24];
  int k = snprintf(t, sizeof t, "%llu", (unsigned long long)v);
  put(b, t, (size_t)k);
}

// scratch is a buffer from the message's allocator, freed by the caller.
static void *scratch(bld *b, size_t n) {
  void *p = mp_alloc_raw(&b->msg->arena.a, n ? n : 1);
  if (p == NULL)
    b->err = -ENOMEM;
  return p;
}

static void release(bld *b, void *p) {
  mp_free_raw(&b->msg->arena.a, p);
}

// header_nstring writes the unfolded value of header `ix` (NIL if absent).
static void header_nstring(bld *b, uint32_t ix) {
  if (ix == MP_NO_INDEX) {
    puts_(b, "NIL");
    return;
  }
  const mp_header *h = mp_hdr_at(b->msg, ix);
  char *t = scratch(b, h->value.len);
  size_t n = 0;
  if (t == NULL)
    return;
  if (mp_header_unfold(t, h->value.len, &n, (const char *)b->msg->data + h->value.off,
                       h->value.len) == 0)
    nstring(b, t, n);
  else
    puts_(b, "NIL");
  release(b, t);
}

// params writes a parameter list from a Content-Type or -Disposition value;
// `disposition` selects the parser, and then the type is written first as
// ("type" (params)). An unparsable value gives NIL.
static void params(bld *b, const mp_header *h, bool disposition) {
  const char *in = (const char *)b->msg->data + h->value.off;
  size_t in_len = h->value.len, cap = in_len / 2 + 1, tl;
  mp_param *ps = scratch(b, cap * sizeof *ps);
  char *text = scratch(b, mp_typed_text_max_len(in_len));
  if (ps == NULL || text == NULL) {
    release(b, ps);
    release(b, text);
    return;
  }
  size_t np = 0;
  mp_str dtype = {NULL, 0};
  unsigned fl = 0;
  int rc;
  if (disposition) {
    mp_content_disposition d;
    rc = mp_content_disposition_parse(&d, ps, cap, text, mp_typed_text_max_len(in_len), &tl, &fl,
                                      in, in_len);
    np = d.num_params;
    dtype = d.type;
  } else {
    mp_content_type ct;
    rc = mp_content_type_parse(&ct, ps, cap, text, mp_typed_text_max_len(in_len), &tl, &fl, in,
                               in_len);
    np = ct.num_params;
  }
  if (rc != 0) {
    puts_(b, "NIL");
  } else {
    if (disposition) {
      puts_(b, "(");
      nstring(b, dtype.p, dtype.len);
      puts_(b, " ");
    }
    if (np == 0) {
      puts_(b, "NIL");
    } else {
      puts_(b, "(");
      for (size_t i = 0; i < np; i++) {
        if (i > 0)
          puts_(b, " ");
        nstring(b, ps[i].name.p, ps[i].name.len);
        puts_(b, " ");
        nstring(b, ps[i].value.p ? ps[i].value.p : "", ps[i].value.len);
      }
      puts_(b, ")");
    }
    if (disposition)
      puts_(b, ")");
  }
  release(b, ps);
  release(b, text);
}

// language writes Content-Language as a list of tags (RFC 3282), or NIL.
static void language(bld *b, uint32_t ix) {
  if (ix == MP_NO_INDEX) {
    puts_(b, "NIL");
    return;
  }
  const mp_header *h = mp_hdr_at(b->msg, ix);
  const char *v = (const char *)b->msg->data + h->value.off;
  size_t n = h->value.len, i = 0, count = 0;
  size_t mark = b->len;
  puts_(b, "(");
  while (i < n) {
    while (i < n && (v[i] == ',' || v[i] == ' ' || v[i] == '\t' || v[i] == '\r' || v[i] == '\n'))
      i++;
    size_t s = i;
    while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t' && v[i] != '\r' && v[i] != '\n')
      i++;
    if (i > s) {
      if (count++ > 0)
        puts_(b, " ");
      nstring(b, v + s, i - s);
    }
  }
  puts_(b, ")");
  if (count == 0) {
    b->len = mark;
    puts_(b, "NIL");
  }
}

static void address_list(bld *b, uint32_t part, const char *name, const char *fallback) {
  long ix = mp_message_header_find(b->msg, part, 0, name, strlen(name));
  if (ix < 0 && fallback != NULL)
    ix = mp_message_header_find(b->msg, part, 0, fallback, strlen(fallback));
  if (ix < 0) {
    puts_(b, "NIL");
    return;
  }
  const mp_header *h = mp_hdr_at(b->msg, ix);
  const char *in = (const char *)b->msg->data + h->value.off;
  size_t cap = h->value.len / 2 + 1, tcap = mp_typed_text_max_len(h->value.len), na = 0, tl;
  mp_address *as = scratch(b, cap * sizeof *as);
  char *text = scratch(b, tcap);
  unsigned fl = 0;
  if (as == NULL || text == NULL ||
      mp_address_list_parse(as, cap, &na, text, tcap, &tl, &fl, in, h->value.len) != 0 || na == 0) {
    if (b->err == 0)
      puts_(b, "NIL");
    release(b, as);
    release(b, text);
    return;
  }
  puts_(b, "(");
  uint32_t open_group = MP_NO_INDEX;
  for (size_t i = 0; i < na; i++) {
    const mp_address *a = &as[i];
    if (open_group != MP_NO_INDEX && a->group != open_group) {
      puts_(b, "(NIL NIL NIL NIL)");
      open_group = MP_NO_INDEX;
    }
    puts_(b, "(");
    if (a->flags & MP_ADDRESS_GROUP) {
      puts_(b, "NIL NIL ");
      nstring(b, a->name.p ? a->name.p : "", a->name.len);
      puts_(b, " NIL)");
      open_group = (uint32_t)i;
      continue;
    }
    nstring(b, a->name.p, a->name.len);
    puts_(b, " NIL ");
    nstring(b, a->local.p ? a->local.p : "", a->local.len);
    puts_(b, " ");
    nstring(b, a->domain.p, a->domain.len);
    puts_(b, ")");
  }
  if (open_group != MP_NO_INDEX)
    puts_(b, "(NIL NIL NIL NIL)");
  puts_(b, ")");
  release(b, as);
  release(b, text);
}

static uint32_t find(const mp_message *msg, uint32_t part, const char *name) {
  long ix = mp_message_header_find(msg, part, 0, name, strlen(name));
  return ix < 0 ? MP_NO_INDEX : (uint32_t)ix;
}

static void envelope(bld *b, uint32_t part) {
  puts_(b, "(");
  header_nstring(b, find(b->msg, part, "Date"));
  puts_(b, " ");
  header_nstring(b, find(b->msg, part, "Subject"));
  puts_(b, " ");
  address_list(b, part, "From", NULL);
  puts_(b, " ");
  address_list(b, part, "Sender", "From");
  puts_(b, " ");
  address_list(b, part, "Reply-To", "From");
  static const char *const rest[] = {"To", "Cc", "Bcc"};
  for (int i = 0; i < 3; i++) {
    puts_(b, " ");
    address_list(b, part, rest[i], NULL);
  }
  puts_(b, " ");
  header_nstring(b, find(b->msg, part, "In-Reply-To"));
  puts_(b, " ");
  header_nstring(b, find(b->msg, part, "Message-ID"));
  puts_(b, ")");
}

static void quoted_upper(bld *b, mp_str s) {
  char t[64];
  if (s.len >= sizeof t) {
    nstring(b, s.p, s.len);
    return;
  }
  for (size_t i = 0; i < s.len; i++)
    t[i] = (char)(s.p[i] >= 'a' && s.p[i] <= 'z' ? s.p[i] - 32 : s.p[i]);
  nstring(b, t, s.len);
}

static void body(bld *b, uint32_t ix, bool ext, unsigned depth) {
  const mp_message *msg = b->msg;
  const mp_part *p = mp_part_at(msg, ix);
  if (depth > MP_IMAP_MAX_DEPTH) {
    b->err = MP_ERR_LIMIT;
    return;
  }
  const mp_header *ct = NULL;
  long cti = mp_message_header_find(msg, ix, 0, "Content-Type", 12);
  if (cti >= 0 && !(p->flags & MP_PART_DEFAULT_TYPE))
    ct = mp_hdr_at(msg, cti);
  puts_(b, "(");
  if (p->flags & MP_PART_MULTIPART) {
    if (p->first_child == MP_NO_INDEX) // RFC 3501 needs one body at least
      puts_(b, "(\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7BIT\" 0 0)");
    for (uint32_t c = p->first_child; c != MP_NO_INDEX; c = mp_part_at(msg, c)->next_sibling)
      body(b, c, ext, depth + 1);
    puts_(b, " ");
    nstring(b, p->subtype.p, p->subtype.len);
    if (ext) {
      puts_(b, " ");
      if (ct != NULL)
        params(b, ct, false);
      else
        puts_(b, "NIL");
      puts_(b, " ");
      if (p->h_disposition != MP_NO_INDEX)
        params(b, mp_hdr_at(msg, p->h_disposition), true);
      else
        puts_(b, "NIL");
      puts_(b, " ");
      language(b, p->h_language);
      puts_(b, " ");
      header_nstring(b, p->h_location);
    }
    puts_(b, ")");
    return;
  }
  nstring(b, p->type.p, p->type.len);
  puts_(b, " ");
  nstring(b, p->subtype.p, p->subtype.len);
  puts_(b, " ");
  if (ct != NULL)
    params(b, ct, false);
  else if (mp_ascii_ieq((const uint8_t *)p->type.p, p->type.len, "text", 4))
    puts_(b, "(\"charset\" \"us-ascii\")");
  else
    puts_(b, "NIL");
  puts_(b, " ");
  header_nstring(b, p->h_id);
  puts_(b, " ");
  header_nstring(b, p->h_description);
  puts_(b, " ");
  if (p->encoding_name.p != NULL)
    quoted_upper(b, p->encoding_name);
  else
    puts_(b, "\"7BIT\"");
  puts_(b, " ");
  number(b, p->body.len);
  if ((p->flags & MP_PART_MESSAGE) && p->first_child != MP_NO_INDEX) {
    puts_(b, " ");
    envelope(b, p->first_child);
    puts_(b, " ");
    body(b, p->first_child, ext, depth + 1);
    puts_(b, " ");
    number(b, p->lines);
  } else if (mp_ascii_ieq((const uint8_t *)p->type.p, p->type.len, "text", 4)) {
    puts_(b, " ");
    number(b, p->lines);
  }
  if (ext) {
    puts_(b, " ");
    header_nstring(b, p->h_md5);
    puts_(b, " ");
    if (p->h_disposition != MP_NO_INDEX)
      params(b, mp_hdr_at(msg, p->h_disposition), true);
    else
      puts_(b, "NIL");
    puts_(b, " ");
    language(b, p->h_language);
    puts_(b, " ");
    header_nstring(b, p->h_location);
  }
  puts_(b, ")");
}

static int finish(bld *b, size_t *out_len, bool query) {
  if (b->err != 0)
    return b->err;
  if (!query && b->len > b->cap)
    return MP_ERR_BUFFER_TOO_SMALL;
  *out_len = b->len;
  return 0;
}

int mp_part_bodystructure(const mp_message *msg, uint32_t part, int extended, char *out,
                          size_t out_cap, size_t *out_len) {
  if (out_len != NULL)
    *out_len = 0;
  if (msg == NULL || out_len == NULL || part >= msg->num_parts || (out == NULL && out_cap > 0) ||
      msg->headers_only)
    return MP_ERR_INVALID_ARGUMENT;
  bld b = {out, out_cap, 0, msg, 0};
  body(&b, part, extended != 0, 0);
  return finish(&b, out_len, out == NULL);
}

int mp_part_envelope(const mp_message *msg, uint32_t part, char *out, size_t out_cap,
                     size_t *out_len) {
  if (out_len != NULL)
    *out_len = 0;
  if (msg == NULL || out_len == NULL || part >= msg->num_parts || (out == NULL && out_cap > 0))
    return MP_ERR_INVALID_ARGUMENT;
  bld b = {out, out_cap, 0, msg, 0};
  envelope(&b, part);
  return finish(&b, out_len, out == NULL);
}
