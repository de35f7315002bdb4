// select.c: what a reader sees of a parsed message: the text body, HTML body
// and attachment lists chosen by RFC 8621 §4.1.4's parseStructure()
// algorithm over the part tree (multipart/alternative preference,
// multipart/related, inline versus attachment by disposition, filename and
// type), each part's filename (Content-Disposition filename or Content-Type
// name), and the short plain-text preview of RFC 8621 built from the text
// body.
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core_internal.h"
#include "encodify.h"

// Media kinds the algorithm tells apart.
enum { KIND_OTHER, KIND_PLAIN, KIND_HTML, KIND_MEDIA };
// Multipart subtypes the algorithm tells apart ("mixed" stands for any other).
enum { MULTI_MIXED, MULTI_ALTERNATIVE, MULTI_RELATED };

static bool str_is(mp_str s, const char *lit) {
  size_t n = strlen(lit);
  return s.p != NULL && s.len == n && memcmp(s.p, lit, n) == 0;
}

static int part_kind(const mp_part *p) {
  if (str_is(p->type, "text"))
    return str_is(p->subtype, "plain")  ? KIND_PLAIN
           : str_is(p->subtype, "html") ? KIND_HTML
                                        : KIND_OTHER;
  if (str_is(p->type, "image") || str_is(p->type, "audio") || str_is(p->type, "video"))
    return KIND_MEDIA;
  return KIND_OTHER;
}

// Scratch for the parameter parsers, sized once for the longest value so that
// one allocation serves every part.
typedef struct pscratch {
  mp_param *params;
  size_t params_cap;
  char *text;
  size_t text_cap;
} pscratch;

static size_t params_cap_for(size_t len) {
  return len / 2 + 1;
}

// scratch_size returns the bytes a pscratch for values up to `len` bytes
// needs, or 0 on overflow.
static size_t scratch_size(size_t len) {
  size_t pc = params_cap_for(len), tc = mp_typed_text_max_len(len);
  if (tc == SIZE_MAX || pc > (SIZE_MAX - tc) / sizeof(mp_param))
    return 0;
  return pc * sizeof(mp_param) + tc;
}

static void scratch_carve(pscratch *s, void *mem, size_t len) {
  s->params = mem;
  s->params_cap = params_cap_for(len);
  s->text = (char *)mem + s->params_cap * sizeof(mp_param);
  s->text_cap = mp_typed_text_max_len(len);
}

// param_lookup parses the value `v` as a Content-Disposition (`disposition`)
// or Content-Type, sets `*is_attachment` (if not NULL) when the disposition
// type is "attachment", and finds parameter `name`: it returns 1 and sets
// `*value` (pointing into the scratch) when present, 0 when absent or the
// value is unparsable.
static int param_lookup(const mp_message *msg, pscratch *s, mp_range v, bool disposition,
                        const char *name, mp_str *value, bool *is_attachment) {
  const char *in = (const char *)msg->data + v.off;
  size_t tl, np;
  unsigned fl = 0;
  int rc;
  if (disposition) {
    mp_content_disposition d;
    rc = mp_content_disposition_parse(&d, s->params, s->params_cap, s->text, s->text_cap, &tl, &fl,
                                      in, v.len);
    np = d.num_params;
    if (rc == 0 && is_attachment != NULL)
      *is_attachment = str_is(d.type, "attachment");
  } else {
    mp_content_type ct;
    rc = mp_content_type_parse(&ct, s->params, s->params_cap, s->text, s->text_cap, &tl, &fl, in,
                               v.len);
    np = ct.num_params;
  }
  if (rc != 0)
    return 0; // the scratch always suffices: only MP_ERR_SYNTAX is left
  const mp_param *p = mp_param_find(s->params, np, name);
  if (p == NULL)
    return 0;
  *value = p->value;
  return 1;
}

static mp_range disposition_value(const mp_message *msg, const mp_part *p) {
  if (p->h_disposition == MP_NO_INDEX || p->h_disposition >= msg->num_headers)
    return (mp_range){0, 0};
  return mp_hdr_at(msg, p->h_disposition)->value;
}

// filename_of finds the RFC 8621 "name" of part `p` and whether its
// disposition is "attachment".
static int filename_of(const mp_message *msg, pscratch *s, const mp_part *p, mp_str *name,
                       bool *is_attachment) {
  *is_attachment = false;
  mp_range d = disposition_value(msg, p);
  bool has_disp = p->h_disposition != MP_NO_INDEX && p->h_disposition < msg->num_headers;
  if (has_disp && param_lookup(msg, s, d, true, "filename", name, is_attachment))
    return 1;
  if (p->content_type.len > 0 && param_lookup(msg, s, p->content_type, false, "name", name, NULL))
    return 1;
  return 0;
}

// longest_value returns the longest Content-Type or Content-Disposition value
// among the parts of the subtree at `root` (parts of a subtree are numbered
// contiguously, depth first).
static size_t longest_value(const mp_message *msg, uint32_t root, uint32_t *end) {
  size_t longest = 0;
  uint32_t i = root;
  do {
    const mp_part *p = mp_part_at(msg, i);
    if (p->content_type.len > longest)
      longest = p->content_type.len;
    mp_range d = disposition_value(msg, p);
    if (d.len > longest)
      longest = d.len;
    i++;
  } while (i < msg->num_parts && mp_part_at(msg, i)->depth > mp_part_at(msg, root)->depth);
  *end = i;
  return longest;
}

// A list of part indices; a NULL list pointer is a list that an enclosing
// level of the algorithm has stopped (RFC 8621's null).
typedef struct ilist {
  uint32_t *a;
  size_t n;
} ilist;

typedef struct sel {
  const mp_message *msg;
  pscratch s;
  ilist *att;
} sel;

static void push(ilist *l, uint32_t ix) {
  if (l != NULL)
    l->a[l->n++] = ix;
}

// walk is parseStructure(): `first` and its next siblings (only `first` when
// `single`) are the parts, `mtype` the enclosing multipart's subtype.
static int walk(sel *s, uint32_t first, bool single, int mtype, bool in_alt, ilist *html,
                ilist *text, unsigned depth) {
  if (depth > MP_SELECT_MAX_DEPTH)
    return MP_ERR_LIMIT;
  const mp_message *msg = s->msg;
  // The lengths on entry tell, at the end of an alternative, which of the
  // two lists this subtree added to.
  size_t text_len = text != NULL ? text->n : 0, html_len = html != NULL ? html->n : 0;
  size_t i = 0;
  for (uint32_t ix = first; ix != MP_NO_INDEX && ix < msg->num_parts;
       ix = single ? MP_NO_INDEX : mp_part_at(msg, ix)->next_sibling, i++) {
    const mp_part *p = mp_part_at(msg, ix);
    if (p->flags & MP_PART_MULTIPART) {
      int sub = str_is(p->subtype, "alternative") ? MULTI_ALTERNATIVE
                : str_is(p->subtype, "related")   ? MULTI_RELATED
                                                  : MULTI_MIXED;
      int rc = walk(s, p->first_child, false, sub, in_alt || sub == MULTI_ALTERNATIVE, html, text,
                    depth + 1);
      if (rc != 0)
        return rc;
      continue;
    }
    int kind = part_kind(p);
    bool inl = false;
    if (kind != KIND_OTHER) {
      mp_str name = {NULL, 0};
      bool attachment;
      bool named = filename_of(msg, &s->s, p, &name, &attachment) && name.len > 0;
      // Only the first part of a related multipart is a body; elsewhere a
      // text part with a filename after the first is taken as an attachment.
      inl = !attachment && (i == 0 || (mtype != MULTI_RELATED && (kind == KIND_MEDIA || !named)));
    }
    if (!inl) {
      push(s->att, ix);
      continue;
    }
    if (mtype == MULTI_ALTERNATIVE) {
      push(kind == KIND_PLAIN ? text : kind == KIND_HTML ? html : s->att, ix);
      continue;
    }
    if (in_alt) {
      if (kind == KIND_PLAIN)
        html = NULL;
      if (kind == KIND_HTML)
        text = NULL;
    }
    push(text, ix);
    push(html, ix);
    if ((text == NULL || html == NULL) && kind == KIND_MEDIA)
      push(s->att, ix);
  }
  if (mtype == MULTI_ALTERNATIVE && text != NULL && html != NULL) {
    if (text_len == text->n && html_len != html->n) {
      for (size_t k = html_len; k < html->n; k++)
        push(text, html->a[k]);
    } else if (html_len == html->n && text_len != text->n) {
      for (size_t k = text_len; k < text->n; k++)
        push(html, text->a[k]);
    }
  }
  return 0;
}

size_t mp_message_select_max_len(const mp_message *msg) {
  if (msg == NULL || msg->num_parts > SIZE_MAX / 3)
    return 0;
  return 3 * msg->num_parts;
}

int mp_message_select(const mp_message *msg, mp_selection *out, uint32_t *idx, size_t idx_cap,
                      uint32_t root) {
  if (out != NULL)
    memset(out, 0, sizeof *out);
  if (msg == NULL || out == NULL || root >= msg->num_parts || (idx == NULL && idx_cap > 0) ||
      msg->headers_only)
    return MP_ERR_INVALID_ARGUMENT;
  uint32_t end;
  size_t longest = longest_value(msg, root, &end);
  size_t nparts = end - root;
  size_t ss = scratch_size(longest);
  // One allocation: the parameter scratch, then the three lists, each able to
  // hold every part of the subtree.
  size_t lists = 3 * nparts * sizeof(uint32_t);
  if (ss == 0 || ss > SIZE_MAX - 8 - lists)
    return -ENOMEM;
  ss = (ss + 7) & ~(size_t)7; // the lists after it stay aligned
  unsigned char *mem = mp_alloc_raw(&msg->arena.a, ss + lists);
  if (mem == NULL)
    return -ENOMEM;
  sel s = {.msg = msg};
  scratch_carve(&s.s, mem, longest);
  uint32_t *la = (uint32_t *)(mem + ss);
  ilist text = {la, 0}, html = {la + nparts, 0}, att = {la + 2 * nparts, 0};
  s.att = &att;
  int rc = walk(&s, root, true, MULTI_MIXED, false, &html, &text, 0);
  if (rc == 0 && text.n + html.n + att.n > idx_cap)
    rc = MP_ERR_BUFFER_TOO_SMALL;
  if (rc == 0) {
    // Copied in the order of mp_selection; with idx_cap 0 nothing is needed.
    if (text.n > 0)
      memcpy(idx, text.a, text.n * sizeof *idx);
    if (html.n > 0)
      memcpy(idx + text.n, html.a, html.n * sizeof *idx);
    if (att.n > 0)
      memcpy(idx + text.n + html.n, att.a, att.n * sizeof *idx);
    out->text_body = idx;
    out->num_text_body = text.n;
    out->html_body = idx + text.n;
    out->num_html_body = html.n;
    out->attachments = idx + text.n + html.n;
    out->num_attachments = att.n;
  }
  mp_free_raw(&msg->arena.a, mem);
  return rc;
}

int mp_part_filename(const mp_message *msg, uint32_t part, char *out, size_t out_cap,
                     size_t *out_len) {
  if (out_len != NULL)
    *out_len = 0;
  if (msg == NULL || out_len == NULL || part >= msg->num_parts || (out == NULL && out_cap > 0))
    return MP_ERR_INVALID_ARGUMENT;
  const mp_part *p = mp_part_at(msg, part);
  mp_range d = disposition_value(msg, p);
  size_t longest = d.len > p->content_type.len ? d.len : p->content_type.len;
  size_t ss = scratch_size(longest);
  if (ss == 0)
    return -ENOMEM;
  void *mem = mp_alloc_raw(&msg->arena.a, ss);
  if (mem == NULL)
    return -ENOMEM;
  pscratch s;
  scratch_carve(&s, mem, longest);
  mp_str name = {NULL, 0};
  bool attachment;
  int rc = filename_of(msg, &s, p, &name, &attachment);
  if (rc == 1 && out != NULL) {
    if (name.len > out_cap)
      rc = MP_ERR_BUFFER_TOO_SMALL;
    else if (name.len > 0)
      memcpy(out, name.p, name.len);
  }
  if (rc == 1)
    *out_len = name.len;
  mp_free_raw(&msg->arena.a, mem);
  return rc;
}

// Preview.

// pv builds the preview: white space collapsed, at most MP_PREVIEW_MAX_CHARS
// characters.
typedef struct pv {
  char buf[MP_PREVIEW_MAX_LEN];
  size_t len, chars;
  bool space, full;
} pv;

static bool pv_full(const pv *v) {
  return v->full || v->chars >= MP_PREVIEW_MAX_CHARS;
}

// pv_add appends valid UTF-8 text.
static void pv_add(pv *v, const uint8_t *t, size_t n) {
  size_t i = 0;
  while (i < n && !pv_full(v)) {
    uint8_t c = t[i];
    size_t cl = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (cl > n - i)
      break; // cannot happen on valid UTF-8
    // White space, C0 and C1 controls and U+00A0 separate words.
    bool ws = c <= 0x20 || c == 0x7f || (c == 0xc2 && t[i + 1] <= 0xa0);
    if (ws) {
      v->space = v->chars > 0;
    } else {
      if (v->space) {
        // A space as the last character would end the preview with white
        // space: stop one character short instead.
        if (v->chars + 1 >= MP_PREVIEW_MAX_CHARS) {
          v->full = true;
          break;
        }
        v->buf[v->len++] = ' ';
        v->chars++;
        v->space = false;
      }
      memcpy(v->buf + v->len, t + i, cl);
      v->len += cl;
      v->chars++;
    }
    i += cl;
  }
}

// HTML text beyond this many bytes cannot matter: mp_html_to_text() has
// already collapsed its white space, so 256 characters come much sooner.
#define PREVIEW_HTML_TEXT 16384
// PREVIEW_FIRST_READ is the first prefix of a body that a preview reads.
#define PREVIEW_FIRST_READ 2048

// trim_partial drops the end of text converted from a cut input, back to the
// last white space: the cut may have split a character (or, in HTML, a tag
// or reference), and a longer read will see that text whole.
static size_t trim_partial(const uint8_t *t, size_t n) {
  while (n > 0 && t[n - 1] != ' ' && t[n - 1] != '\n' && t[n - 1] != '\t' && t[n - 1] != '\r')
    n--;
  return n;
}

// pv_prefix adds the text of the first `limit` decoded bytes (about) of part
// `p` to the preview and sets `*cut` when the body goes on beyond them.
static int pv_prefix(const mp_message *msg, pv *v, const mp_part *p, int kind, size_t limit,
                     bool *cut) {
  // Read a prefix of the raw body, cut at a line break so that no Base64
  // quantum or quoted-printable escape is split.
  const uint8_t *raw = msg->data + p->body.off;
  size_t raw_len = p->body.len;
  enc_codec codec = 0;
  uint32_t flags = 0;
  if (p->encoding == MP_ENCODING_BASE64) {
    codec = ENC_CODEC_BASE64;
    flags = ENC_FLAG_MIME;
  } else if (p->encoding == MP_ENCODING_QP) {
    codec = ENC_CODEC_QP;
  }
  size_t raw_max = codec == ENC_CODEC_BASE64 ? limit / 3 * 4 + limit / 32 : limit;
  *cut = raw_len > raw_max;
  if (*cut) {
    size_t c = raw_max;
    while (c > 0 && raw[c - 1] != '\n')
      c--;
    raw_len = c > 0 ? c : raw_max;
  }
  size_t dcap = codec != 0 ? enc_decode_max_len(codec, flags, raw_len) : raw_len;
  size_t ucap = mp_charset_utf8_max_len(dcap < limit ? dcap : limit);
  size_t hcap = kind == KIND_HTML ? PREVIEW_HTML_TEXT : 0;
  unsigned char *mem = mp_alloc_raw(&msg->arena.a, (dcap ? dcap : 1) + ucap + hcap);
  if (mem == NULL)
    return -ENOMEM;
  unsigned char *dec = mem, *utf = mem + (dcap ? dcap : 1), *htm = utf + ucap;
  size_t dn = 0, un = 0, hn = 0;
  unsigned fl = 0;
  int rc = 0;
  if (codec != 0) {
    if (enc_decode(codec, flags, dec, dcap, &dn, raw, raw_len, NULL) != 0)
      rc = MP_ERR_ENCODING;
  } else {
    if (raw_len > 0)
      memcpy(dec, raw, raw_len);
    dn = raw_len;
  }
  if (dn > limit) {
    dn = limit;
    *cut = true;
  }
  const char *cs = p->charset.p != NULL ? p->charset.p : "us-ascii";
  size_t cs_len = p->charset.p != NULL ? p->charset.len : 8;
  if (rc == 0)
    rc = mp_charset_to_utf8((char *)utf, ucap, &un, &fl, cs, cs_len, dec, dn);
  const unsigned char *text = utf;
  size_t tn = un;
  if (rc == 0 && kind == KIND_HTML) {
    rc = mp_html_to_text((char *)htm, hcap, &hn, &fl, utf, un, MP_HTML_TRUNCATE);
    text = htm;
    tn = hn;
  }
  if (rc == 0) {
    if (*cut)
      tn = trim_partial(text, tn);
    if (v->len > 0)
      v->space = true;
    pv_add(v, text, tn);
  }
  mp_free_raw(&msg->arena.a, mem);
  return rc;
}

// pv_part adds the text of part `ix` to the preview. It reads a short prefix
// first and a four times longer one while the preview is not full, so that
// the work follows what the preview needs, not the size of the body.
static int pv_part(const mp_message *msg, pv *v, uint32_t ix) {
  const mp_part *p = mp_part_at(msg, ix);
  int kind = part_kind(p);
  if ((kind != KIND_PLAIN && kind != KIND_HTML) || (p->flags & MP_PART_MULTIPART))
    return 0;
  pv before = *v;
  for (size_t limit = PREVIEW_FIRST_READ;; limit *= 4) {
    if (limit > MP_PREVIEW_MAX_INPUT)
      limit = MP_PREVIEW_MAX_INPUT;
    bool cut = false;
    int rc = pv_prefix(msg, v, p, kind, limit, &cut);
    if (rc != 0 || pv_full(v) || !cut || limit == MP_PREVIEW_MAX_INPUT)
      return rc;
    *v = before;
  }
}

int mp_message_preview(const mp_message *msg, char *out, size_t out_cap, size_t *out_len,
                       const mp_selection *sel) {
  if (out_len != NULL)
    *out_len = 0;
  if (msg == NULL || sel == NULL || out_len == NULL || (out == NULL && out_cap > 0) ||
      (sel->text_body == NULL && sel->num_text_body > 0))
    return MP_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < sel->num_text_body; i++)
    if (sel->text_body[i] >= msg->num_parts)
      return MP_ERR_INVALID_ARGUMENT;
  pv v;
  v.len = v.chars = 0;
  v.space = v.full = false;
  for (size_t i = 0; i < sel->num_text_body && !pv_full(&v); i++) {
    int rc = pv_part(msg, &v, sel->text_body[i]);
    if (rc != 0)
      return rc;
  }
  if (v.len > out_cap)
    return MP_ERR_BUFFER_TOO_SMALL;
  if (v.len > 0)
    memcpy(out, v.buf, v.len);
  *out_len = v.len;
  return 0;
}
