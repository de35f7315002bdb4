// typed_list.c: mailing list fields: the angle-bracketed URI lists of RFC
// 2369 (List-Help, -Unsubscribe, -Subscribe, -Post, -Owner, -Archive; with
// comments, folding white space inside URIs removed, and "List-Post: NO")
// and RFC 2919 List-Id (an optional phrase and the list identifier).
#include "typed_internal.h"

// copy_bracketed copies the bytes up to '>' (consumed) without white space
// (RFC 2369 §2: folding inside a URI is ignored), runs at a time so that
// UTF-8 stays whole; false when there is no '>'.
static bool copy_bracketed(struct mp_tb *tb, struct mp_cur *c) {
  for (;;) {
    size_t i = 0;
    while (i < c->len && c->p[i] != '>' && !mp_is_wsp(c->p[i]))
      i++;
    mp_tb_utf8(tb, c->p, i);
    (void)mp_cur_skip(c, i);
    uint8_t b;
    if (!mp_cur_get_u8(c, &b))
      return false;
    if (b == '>')
      return true;
  }
}

int mp_list_uris_parse(mp_str *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                       size_t *text_len, unsigned *out_flags, const char *in, size_t in_len) {
  if (num_out == NULL || !mp_text_args_ok(text, text_cap, text_len) ||
      (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *num_out = 0;
  *text_len = 0;
  struct mp_tb tb;
  mp_tb_init(&tb, text, text_cap);
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  size_t n = 0, words = 0;
  bool no = false;
  int rc = 0;
  uint8_t b;
  while (rc == 0 && mp_cur_peek(&c, &b)) {
    if (mp_is_wsp(b) || b == ',') {
      (void)mp_cur_skip(&c, 1);
      continue;
    }
    if (b == '(') {
      struct mp_tok t;
      mp_tok_next(&c, &t, true); // the comment
      continue;
    }
    mp_str uri;
    mp_tb_begin(&tb);
    if (b == '<') {
      // RFC 2369 §2: white space inside the brackets is ignored.
      (void)mp_cur_skip(&c, 1);
      bool closed = copy_bracketed(&tb, &c);
      if (!closed)
        tb.flags |= MP_TYPED_UNTERMINATED;
    } else {
      // A bare word: a URI without brackets if it has a scheme, else junk
      // (or the "NO" of List-Post, RFC 2369 §3.4).
      const uint8_t *start = c.p;
      while (mp_cur_peek(&c, &b) && !mp_is_wsp(b) && b != ',' && b != '<' && b != '(')
        (void)mp_cur_skip(&c, 1);
      size_t len = (size_t)(c.p - start);
      words++;
      if (mp_ieq(start, len, "no")) {
        no = true;
        continue;
      }
      if (memchr(start, ':', len) == NULL) {
        tb.flags |= MP_TYPED_JUNK;
        continue;
      }
      tb.flags |= MP_TYPED_REPAIRED;
      mp_tb_utf8(&tb, start, len);
    }
    mp_tb_end(&tb, &uri.p, &uri.len);
    if (uri.len == 0) {
      tb.flags |= MP_TYPED_JUNK;
      continue;
    }
    if (n >= out_cap) {
      rc = MP_ERR_LIMIT;
      break;
    }
    out[n++] = uri;
  }
  if (no && n == 0 && words == 1)
    tb.flags |= MP_TYPED_LIST_NO;
  else if (no)
    tb.flags |= MP_TYPED_JUNK;
  if (rc == 0 && tb.err)
    rc = tb.err;
  if (out_flags != NULL)
    *out_flags = tb.flags;
  if (rc != 0)
    return rc;
  *num_out = n;
  *text_len = tb.len;
  return 0;
}

int mp_list_id_parse(mp_list_id *out, char *text, size_t text_cap, size_t *text_len,
                     unsigned *out_flags, const char *in, size_t in_len) {
  if (out == NULL || !mp_text_args_ok(text, text_cap, text_len) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  *text_len = 0;
  struct mp_tb tb;
  mp_tb_init(&tb, text, text_cap);
  struct mp_cur c, start;
  mp_cur_init(&c, in, in_len);
  start = c;
  struct mp_tok t;
  struct mp_cur before;
  for (;;) {
    before = c;
    mp_tok_next(&c, &t, false);
    if (t.type == MP_TOK_END || (t.type == MP_TOK_SPECIAL && t.p[0] == '<'))
      break;
  }
  if (t.type == MP_TOK_SPECIAL) {
    // phrase "<" list-id ">" (RFC 2919 §2): the phrase is a display name.
    struct mp_cur phrase;
    mp_cur_init(&phrase, start.p, (size_t)(before.p - start.p));
    struct mp_tok w;
    mp_tb_begin(&tb);
    for (;;) {
      mp_tok_next(&phrase, &w, false);
      if (w.type == MP_TOK_END)
        break;
      if (w.ws_before)
        mp_tb_space(&tb);
      if (w.type == MP_TOK_QSTRING)
        mp_tb_qcontent(&tb, w.p, w.len);
      else if (w.type == MP_TOK_ATOM)
        mp_tb_word(&tb, w.p, w.len, true);
      else
        mp_tb_utf8(&tb, w.p, w.len);
    }
    mp_tb_end(&tb, &out->name.p, &out->name.len);
    mp_tb_begin(&tb);
    bool closed = copy_bracketed(&tb, &c);
    if (!closed)
      tb.flags |= MP_TYPED_UNTERMINATED;
    mp_tb_end(&tb, &out->id.p, &out->id.len);
    mp_tok_next(&c, &t, false);
    if (t.type != MP_TOK_END)
      tb.flags |= MP_TYPED_JUNK;
  } else {
    // No brackets: a lone dot-atom is taken as the id.
    c = start;
    mp_tb_begin(&tb);
    bool ok = true, first = true;
    for (;;) {
      mp_tok_next(&c, &t, false);
      if (t.type == MP_TOK_END)
        break;
      if ((t.ws_before && !first) ||
          !(t.type == MP_TOK_ATOM || (t.type == MP_TOK_SPECIAL && t.p[0] == '.')))
        ok = false;
      first = false;
      mp_tb_utf8(&tb, t.p, t.len);
    }
    mp_tb_end(&tb, &out->id.p, &out->id.len);
    tb.flags |= MP_TYPED_REPAIRED;
    if (!ok) {
      out->id.p = NULL;
      out->id.len = 0;
    }
  }
  if (out_flags != NULL)
    *out_flags = tb.flags;
  if (tb.err) {
    memset(out, 0, sizeof *out);
    return tb.err;
  }
  if (out->id.len == 0) {
    memset(out, 0, sizeof *out);
    return MP_ERR_SYNTAX;
  }
  *text_len = tb.len;
  return 0;
}
