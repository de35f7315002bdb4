// typed_msgid.c: message identifier lists (RFC 5322 §3.6.4 and the obsolete
// §4.5.4 forms) for Message-ID, In-Reply-To, References, Content-ID and
// Resent-Message-ID: each msg-id in angle brackets with CFWS inside removed,
// bare ids without brackets recovered, phrases and junk between ids skipped.
#include "typed_internal.h"

// put_token copies a token as written (a quoted string with its quotes).
static void put_token(struct mp_tb *tb, const struct mp_tok *t) {
  if (t->type == MP_TOK_QSTRING) {
    mp_tb_putc(tb, '"');
    mp_tb_put(tb, t->p, t->len);
    if (!t->unterminated)
      mp_tb_putc(tb, '"');
  } else {
    mp_tb_put(tb, t->p, t->len);
  }
}

int mp_msgid_list_parse(mp_msgid *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
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
  struct mp_tok t;
  size_t n = 0;
  int rc = 0;
  mp_tok_next(&c, &t, false);
  while (t.type != MP_TOK_END && rc == 0) {
    uint32_t flags = 0;
    bool at = false;
    if (t.type == MP_TOK_SPECIAL && t.p[0] == '<') {
      mp_tb_begin(&tb);
      bool first = true;
      for (;;) {
        mp_tok_next(&c, &t, false);
        if (t.type == MP_TOK_END) {
          tb.flags |= MP_TYPED_UNTERMINATED;
          break;
        }
        if (t.type == MP_TOK_SPECIAL && (t.p[0] == '>' || t.p[0] == '<'))
          break;
        if (t.ws_before && !first)
          tb.flags |= MP_TYPED_OBSOLETE; // CFWS inside a msg-id (§4.5.4)
        if (t.type == MP_TOK_QSTRING || t.type == MP_TOK_DLIT)
          tb.flags |= MP_TYPED_OBSOLETE;
        if (t.type == MP_TOK_SPECIAL && t.p[0] == '@')
          at = true;
        put_token(&tb, &t);
        first = false;
      }
      bool reopen = t.type == MP_TOK_SPECIAL && t.p[0] == '<';
      if (reopen)
        tb.flags |= MP_TYPED_UNTERMINATED;
      mp_str id;
      mp_tb_end(&tb, &id.p, &id.len);
      if (!reopen && t.type != MP_TOK_END)
        mp_tok_next(&c, &t, false);
      if (id.len == 0) {
        tb.flags |= MP_TYPED_JUNK;
        continue;
      }
      if (!at)
        flags |= MP_MSGID_NO_AT;
      if (n >= out_cap) {
        rc = MP_ERR_LIMIT;
        break;
      }
      out[n].id = id;
      out[n].flags = flags;
      n++;
      continue;
    }
    if (t.type == MP_TOK_ATOM) {
      // A bare id ("local@domain" without brackets), or a phrase word.
      struct mp_cur look = c;
      struct mp_tok u = t;
      bool has_at = false;
      size_t words = 0;
      for (;;) {
        struct mp_cur before = look;
        struct mp_tok v;
        mp_tok_next(&look, &v, false);
        if (v.ws_before || v.type == MP_TOK_END || v.type == MP_TOK_COMMENT ||
            !(v.type == MP_TOK_ATOM || v.type == MP_TOK_DLIT ||
              (v.type == MP_TOK_SPECIAL && (v.p[0] == '.' || v.p[0] == '@')))) {
          look = before;
          break;
        }
        if (v.type == MP_TOK_SPECIAL && v.p[0] == '@')
          has_at = true;
        words++;
      }
      if (has_at) {
        mp_tb_begin(&tb);
        put_token(&tb, &u);
        struct mp_cur q = c;
        for (size_t i = 0; i < words; i++) {
          mp_tok_next(&q, &u, false);
          put_token(&tb, &u);
        }
        c = look;
        mp_str id;
        mp_tb_end(&tb, &id.p, &id.len);
        tb.flags |= MP_TYPED_REPAIRED;
        if (n >= out_cap) {
          rc = MP_ERR_LIMIT;
          break;
        }
        out[n].id = id;
        out[n].flags = MP_MSGID_NO_ANGLE;
        n++;
        mp_tok_next(&c, &t, false);
        continue;
      }
      tb.flags |= MP_TYPED_OBSOLETE; // a phrase (obs-in-reply-to, obs-references)
      c = look;                      // skip the glued tokens too: each is looked at once
    } else if (t.type == MP_TOK_QSTRING) {
      tb.flags |= MP_TYPED_OBSOLETE;
    } else if (!(t.type == MP_TOK_SPECIAL && t.p[0] == ',')) {
      tb.flags |= MP_TYPED_JUNK;
    }
    mp_tok_next(&c, &t, false);
  }
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
