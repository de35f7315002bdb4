// typed_address.c: address lists (RFC 5322 §3.4, obsolete forms of §4.4)
// for From, To, Cc, Bcc, Reply-To, Sender and the Resent-* fields: splits the
// value into mailboxes and groups, decodes display names (phrases with
// quoted strings, comments and RFC 2047 words) to UTF-8, resolves quoted
// local parts, drops obsolete routes, and repairs the broken forms real mail
// carries (unquoted commas in names, missing angle brackets, names in
// comments, trailing garbage), flagging each repair.
#include "typed_internal.h"

// An element is what lies between two top-level delimiters: a mailbox, or
// the display name of a group when it ends with ':'.
struct elem {
  struct mp_cur region; // the element's bytes, without its delimiter
  struct mp_cur rest;   // after the delimiter
  uint8_t delim;        // ',', ';', ':' or 0 at the end
  bool angle;           // has a top-level '<'
  bool at;              // has a top-level '@' outside angle brackets
  size_t words;         // words before any '<'
  bool any;             // has any token but comments
};

static void scan_elem(struct mp_cur c, bool in_group, struct elem *e) {
  struct mp_tok t;
  bool in_angle = false, route = false, first_in_angle = false;
  memset(e, 0, sizeof *e);
  const uint8_t *start = c.p;
  for (;;) {
    mp_tok_next(&c, &t, true);
    if (t.type == MP_TOK_END) {
      mp_cur_init(&e->region, start, (size_t)(c.p - start));
      e->rest = c;
      return;
    }
    if (t.type == MP_TOK_COMMENT)
      continue;
    bool was_first = first_in_angle;
    first_in_angle = false;
    if (t.type == MP_TOK_SPECIAL) {
      uint8_t ch = t.p[0];
      if (in_angle) {
        if (was_first && ch == '@')
          route = true;
        if (ch == '>') {
          in_angle = false;
          continue;
        }
        // Without a route, a comma in angle brackets means the '>' is missing.
        if (!((ch == ',' && !route) || (ch == ';' && in_group))) {
          e->any = true;
          continue;
        }
      }
      if (ch == '<' && !in_angle) {
        in_angle = true;
        first_in_angle = true;
        e->angle = true;
        e->any = true;
        continue;
      }
      if (ch == ',' || ch == ';' || (ch == ':' && !in_group && !e->angle && !e->at)) {
        mp_cur_init(&e->region, start, (size_t)(t.p - start));
        e->delim = ch;
        e->rest = c;
        return;
      }
      if (ch == '@' && !e->angle)
        e->at = true;
      e->any = true;
      continue;
    }
    e->any = true;
    if (!e->angle)
      e->words++;
  }
}

static void render_phrase(struct mp_tb *tb, struct mp_cur r) {
  struct mp_tok t;
  for (;;) {
    mp_tok_next(&r, &t, true);
    if (t.type == MP_TOK_END)
      return;
    if (t.ws_before)
      mp_tb_space(tb);
    if (t.unterminated)
      tb->flags |= MP_TYPED_UNTERMINATED;
    switch (t.type) {
    case MP_TOK_ATOM:
      mp_tb_word(tb, t.p, t.len, true);
      break;
    case MP_TOK_QSTRING:
      mp_tb_qcontent(tb, t.p, t.len);
      break;
    case MP_TOK_COMMENT:
      mp_tb_space(tb);
      break;
    case MP_TOK_SPECIAL:
      tb->flags |= t.p[0] == '.' ? MP_TYPED_OBSOLETE : MP_TYPED_REPAIRED;
      mp_tb_utf8(tb, t.p, 1);
      break;
    default:
      mp_tb_utf8(tb, t.p, t.len);
      break;
    }
  }
}

// put_unquoted appends a quoted string's content with quoted pairs resolved
// and folds removed (local parts are never RFC 2047-decoded, §5 (3)).
static void put_unquoted(struct mp_tb *tb, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\\' && i + 1 < n)
      i++;
    else if (p[i] == '\r' || p[i] == '\n')
      continue;
    mp_tb_utf8(tb, p + i, 1);
  }
}

// render_addr_part appends a local part or a domain (CFWS between its parts
// is dropped, obsolete per §4.4), stopping before `stop` (a special) or
// before a second word that follows a word without a dot between them.
// Returns the cursor where it stopped.
static struct mp_cur render_addr_part(struct mp_tb *tb, struct mp_cur r, uint8_t stop, bool *quoted,
                                      const struct mp_tok **comment_out,
                                      struct mp_tok *comment_store) {
  struct mp_tok t;
  bool prev_word = false;
  for (;;) {
    struct mp_cur before = r;
    mp_tok_next(&r, &t, true);
    if (t.type == MP_TOK_END)
      return before;
    if (t.type == MP_TOK_COMMENT) {
      if (comment_out != NULL && *comment_out == NULL) {
        *comment_store = t;
        *comment_out = comment_store;
      }
      continue;
    }
    if (t.type == MP_TOK_SPECIAL && t.p[0] == stop)
      return before;
    if (t.unterminated)
      tb->flags |= MP_TYPED_UNTERMINATED;
    bool word = t.type != MP_TOK_SPECIAL;
    if (word && prev_word)
      return before;
    if (t.ws_before && tb->len > tb->mark)
      tb->flags |= MP_TYPED_OBSOLETE;
    if (t.type == MP_TOK_QSTRING) {
      if (quoted != NULL)
        *quoted = true;
      put_unquoted(tb, t.p, t.len);
    } else {
      if (t.type == MP_TOK_SPECIAL && t.p[0] != '.')
        return before;
      mp_tb_utf8(tb, t.p, t.len);
    }
    prev_word = word;
  }
}

// sub returns the bytes of `outer` from `from` up to `to`.
static struct mp_cur sub(struct mp_cur from, struct mp_cur to) {
  struct mp_cur r;
  mp_cur_init(&r, from.p, (size_t)(to.p - from.p));
  return r;
}

// skip_to consumes tokens up to and including the special `ch`; false when
// it is not there (the cursor is then at the end).
static bool skip_to(struct mp_cur *r, uint8_t ch) {
  struct mp_tok t;
  for (;;) {
    mp_tok_next(r, &t, false);
    if (t.type == MP_TOK_END)
      return false;
    if (t.type == MP_TOK_SPECIAL && t.p[0] == ch)
      return true;
  }
}

// trailer handles what follows an address: comments (the first one becomes
// the display name if there is none) and junk.
static void trailer(struct mp_tb *tb, struct mp_cur r, const struct mp_tok **comment,
                    struct mp_tok *store) {
  struct mp_tok t;
  for (;;) {
    mp_tok_next(&r, &t, true);
    if (t.type == MP_TOK_END)
      return;
    if (t.type == MP_TOK_COMMENT) {
      if (*comment == NULL) {
        *store = t;
        *comment = store;
      }
      continue;
    }
    tb->flags |= MP_TYPED_JUNK;
  }
}

static void parse_mailbox(struct mp_tb *tb, const struct elem *e, mp_address *a) {
  struct mp_cur r = e->region;
  struct mp_tok t, cstore;
  const struct mp_tok *comment = NULL;
  bool quoted = false;
  if (e->angle) {
    // name-addr: [phrase] "<" [route ":"] addr-spec ">"
    struct mp_cur p = r;
    for (;;) {
      struct mp_cur before = p;
      mp_tok_next(&p, &t, true);
      if (t.type == MP_TOK_END || (t.type == MP_TOK_SPECIAL && t.p[0] == '<')) {
        mp_tb_begin(tb);
        render_phrase(tb, sub(r, before));
        mp_tb_end(tb, &a->name.p, &a->name.len);
        break;
      }
    }
    a->flags |= MP_ADDRESS_ANGLE;
    struct mp_cur peek = p;
    mp_tok_next(&peek, &t, true);
    if (t.type == MP_TOK_SPECIAL && t.p[0] == '@') {
      struct mp_cur q = p;
      if (skip_to(&q, ':')) {
        tb->flags |= MP_TYPED_OBSOLETE;
        a->flags |= MP_ADDRESS_ROUTE;
        p = q;
      }
    }
    mp_tb_begin(tb);
    p = render_addr_part(tb, p, '@', &quoted, NULL, NULL);
    mp_tb_end(tb, &a->local.p, &a->local.len);
    peek = p;
    mp_tok_next(&peek, &t, true);
    if (t.type == MP_TOK_SPECIAL && t.p[0] == '@') {
      mp_tb_begin(tb);
      p = render_addr_part(tb, peek, '>', NULL, NULL, NULL);
      mp_tb_end(tb, &a->domain.p, &a->domain.len);
      peek = p;
      mp_tok_next(&peek, &t, true);
    }
    // Anything before '>' that is left is junk.
    while (!(t.type == MP_TOK_END || (t.type == MP_TOK_SPECIAL && t.p[0] == '>'))) {
      tb->flags |= MP_TYPED_JUNK;
      mp_tok_next(&peek, &t, true);
    }
    if (t.type == MP_TOK_END)
      tb->flags |= MP_TYPED_UNTERMINATED;
    trailer(tb, peek, &comment, &cstore);
  } else if (e->at) {
    // addr-spec, maybe after a name whose angle brackets are missing: the
    // local part is the last run of words joined by dots before the '@'.
    struct mp_cur p = r, chain = r;
    bool prev_word = false;
    for (;;) {
      struct mp_cur before = p;
      mp_tok_next(&p, &t, true);
      if (t.type == MP_TOK_END || (t.type == MP_TOK_SPECIAL && t.p[0] == '@'))
        break;
      if (t.type == MP_TOK_COMMENT)
        continue;
      bool word = t.type != MP_TOK_SPECIAL || t.p[0] != '.';
      if (word && prev_word)
        chain = before;
      prev_word = word;
    }
    if (chain.p != r.p) {
      tb->flags |= MP_TYPED_REPAIRED;
      a->flags |= MP_ADDRESS_NO_ANGLE;
      mp_tb_begin(tb);
      render_phrase(tb, sub(r, chain));
      mp_tb_end(tb, &a->name.p, &a->name.len);
    }
    mp_tb_begin(tb);
    p = render_addr_part(tb, chain, '@', &quoted, &comment, &cstore);
    mp_tb_end(tb, &a->local.p, &a->local.len);
    mp_tok_next(&p, &t, true); // the '@'
    mp_tb_begin(tb);
    p = render_addr_part(tb, p, 0, NULL, &comment, &cstore);
    mp_tb_end(tb, &a->domain.p, &a->domain.len);
    trailer(tb, p, &comment, &cstore);
  } else if (e->words <= 1) {
    // A lone word: a local part without a domain ("To: postmaster").
    mp_tb_begin(tb);
    struct mp_cur p = render_addr_part(tb, r, 0, &quoted, &comment, &cstore);
    mp_tb_end(tb, &a->local.p, &a->local.len);
    trailer(tb, p, &comment, &cstore);
  } else {
    // Several words and no address: a name alone.
    tb->flags |= MP_TYPED_REPAIRED;
    mp_tb_begin(tb);
    render_phrase(tb, r);
    mp_tb_end(tb, &a->name.p, &a->name.len);
  }
  if (quoted)
    a->flags |= MP_ADDRESS_QUOTED_LOCAL;
  if (a->name.len == 0 && comment != NULL) {
    mp_tb_begin(tb);
    mp_tb_qcontent(tb, comment->p, comment->len);
    mp_tb_end(tb, &a->name.p, &a->name.len);
    if (a->name.len > 0)
      a->flags |= MP_ADDRESS_NAME_COMMENT;
  }
  if (a->domain.len == 0 && !(e->angle && a->local.len == 0))
    a->flags |= MP_ADDRESS_INCOMPLETE;
}

int mp_address_list_parse(mp_address *out, size_t out_cap, size_t *num_out, char *text,
                          size_t text_cap, size_t *text_len, unsigned *out_flags, const char *in,
                          size_t in_len) {
  if (num_out == NULL || !mp_text_args_ok(text, text_cap, text_len) ||
      (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *num_out = 0;
  *text_len = 0;
  if (out_flags != NULL)
    *out_flags = 0;
  struct mp_tb tb;
  mp_tb_init(&tb, text, text_cap);
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  size_t n = 0;
  uint32_t group = MP_NO_INDEX;
  int rc = 0;
  for (;;) {
    struct elem e;
    scan_elem(c, group != MP_NO_INDEX, &e);
    if (e.delim == ':' && e.region.len == 0) {
      // A ':' with nothing before it names no group: junk. Skipping it also
      // keeps every entry at two or more input bytes, which the documented
      // bound (in_len / 2 + 1 entries) counts on; as groups, "::::" made
      // one entry per byte.
      tb.flags |= MP_TYPED_JUNK;
      c = e.rest;
      continue;
    }
    if (e.delim == ':') {
      if (n >= out_cap) {
        rc = MP_ERR_LIMIT;
        break;
      }
      mp_address *a = &out[n];
      memset(a, 0, sizeof *a);
      a->flags = MP_ADDRESS_GROUP;
      a->group = MP_NO_INDEX;
      mp_tb_begin(&tb);
      render_phrase(&tb, e.region);
      mp_tb_end(&tb, &a->name.p, &a->name.len);
      group = (uint32_t)n++;
      c = e.rest;
      continue;
    }
    // "Last, First <addr>": a name cut by an unquoted comma is joined to
    // the next element when that one is a name with an address in angle
    // brackets.
    if (e.delim == ',' && e.any && !e.angle && !e.at && e.words >= 1) {
      struct elem e2;
      scan_elem(e.rest, group != MP_NO_INDEX, &e2);
      if (e2.angle && e2.words >= 1 && e2.delim != ':') {
        tb.flags |= MP_TYPED_REPAIRED;
        mp_cur_init(&e.region, e.region.p, (size_t)(e2.region.p + e2.region.len - e.region.p));
        e.angle = true;
        e.delim = e2.delim;
        e.rest = e2.rest;
      }
    }
    if (e.any) {
      if (n >= out_cap) {
        rc = MP_ERR_LIMIT;
        break;
      }
      mp_address *a = &out[n++];
      memset(a, 0, sizeof *a);
      a->group = group;
      parse_mailbox(&tb, &e, a);
    } else if (e.delim == ',') {
      tb.flags |= MP_TYPED_OBSOLETE; // an empty list element (obs-addr-list)
    }
    if (e.delim == ';') {
      if (group == MP_NO_INDEX)
        tb.flags |= MP_TYPED_JUNK;
      group = MP_NO_INDEX;
      // A ',' right after the group's ';' is the list separator.
      struct mp_cur q = e.rest;
      struct mp_tok t;
      mp_tok_next(&q, &t, false);
      if (t.type == MP_TOK_SPECIAL && t.p[0] == ',')
        e.rest = q;
    }
    if (e.delim == 0)
      break;
    c = e.rest;
  }
  if (rc == 0 && group != MP_NO_INDEX)
    tb.flags |= MP_TYPED_UNTERMINATED;
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
