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

// parse_general is the whole parser, for any value (arguments checked and
// outputs cleared by the caller).
static int parse_general(mp_address *out, size_t out_cap, size_t *num_out, char *text,
                         size_t text_cap, size_t *text_len, unsigned *out_flags, const char *in,
                         size_t in_len) {
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

// Fast path. Most address fields in mail are a comma list of `addr@dom`,
// `<addr@dom>`, `Name <addr@dom>` and `"Quoted Name" <addr@dom>` in
// printable ASCII, for which the general parser's passes (every element
// tokenized by scan_elem, then again by parse_mailbox and each render_*
// call, each string through the text builder) are most of the cost.
// fast_list reads those forms in one pass, with a comment after the
// address ("x@y (Name)"), and gives up on anything else: other comments,
// groups, routes, quoted local parts, domain literals, RFC 2047 words,
// 8-bit and control bytes outside a display name or that comment, white
// space inside angle brackets or around '@', "Name addr@dom" without
// brackets, empty list elements, a full entry array or text buffer. The
// general parser then runs from the start. A display name of atoms, dots
// and plain quoted strings is copied by fa_phrase; any other one (encoded
// words, 8-bit bytes, quoted pairs) is tokenized and written by
// render_phrase, the general parser's own code, as is the name taken from
// a comment. Where it succeeds its results are the general parser's, byte
// for byte (tests/test_typed_address.c compares the two on generated
// values, fuzz/fuzz_typed_address.c on every input).

enum {
  FA_ATEXT = 1, // RFC 5322 atext in ASCII, but '=' (a possible encoded word)
  FA_QTEXT = 2, // copied as is from a quoted name: printable ASCII, SP and
                // HT, but '"', '\\' and '='
};

// fa_class holds the FA_* classes of every byte, one lookup per byte.
static const uint8_t fa_class[256] = {
#define FA_Q(c) [c] = FA_QTEXT
#define FA_AQ(c) [c] = FA_ATEXT | FA_QTEXT
    FA_Q(' '),  FA_Q('\t'), FA_Q('('),   FA_Q(')'),  FA_Q('<'),  FA_Q('>'),  FA_Q('@'),  FA_Q(','),
    FA_Q(';'),  FA_Q(':'),  FA_Q('.'),   FA_Q('['),  FA_Q(']'),  FA_AQ('!'), FA_AQ('#'), FA_AQ('$'),
    FA_AQ('%'), FA_AQ('&'), FA_AQ('\''), FA_AQ('*'), FA_AQ('+'), FA_AQ('-'), FA_AQ('/'), FA_AQ('?'),
    FA_AQ('^'), FA_AQ('_'), FA_AQ('`'),  FA_AQ('{'), FA_AQ('|'), FA_AQ('}'), FA_AQ('~'), FA_AQ('0'),
    FA_AQ('1'), FA_AQ('2'), FA_AQ('3'),  FA_AQ('4'), FA_AQ('5'), FA_AQ('6'), FA_AQ('7'), FA_AQ('8'),
    FA_AQ('9'), FA_AQ('A'), FA_AQ('B'),  FA_AQ('C'), FA_AQ('D'), FA_AQ('E'), FA_AQ('F'), FA_AQ('G'),
    FA_AQ('H'), FA_AQ('I'), FA_AQ('J'),  FA_AQ('K'), FA_AQ('L'), FA_AQ('M'), FA_AQ('N'), FA_AQ('O'),
    FA_AQ('P'), FA_AQ('Q'), FA_AQ('R'),  FA_AQ('S'), FA_AQ('T'), FA_AQ('U'), FA_AQ('V'), FA_AQ('W'),
    FA_AQ('X'), FA_AQ('Y'), FA_AQ('Z'),  FA_AQ('a'), FA_AQ('b'), FA_AQ('c'), FA_AQ('d'), FA_AQ('e'),
    FA_AQ('f'), FA_AQ('g'), FA_AQ('h'),  FA_AQ('i'), FA_AQ('j'), FA_AQ('k'), FA_AQ('l'), FA_AQ('m'),
    FA_AQ('n'), FA_AQ('o'), FA_AQ('p'),  FA_AQ('q'), FA_AQ('r'), FA_AQ('s'), FA_AQ('t'), FA_AQ('u'),
    FA_AQ('v'), FA_AQ('w'), FA_AQ('x'),  FA_AQ('y'), FA_AQ('z'),
#undef FA_Q
#undef FA_AQ
};

// fa_run returns the end of the run of bytes of class `cls` from `i`; a '='
// not followed by '?' belongs to the run (the tokenizer and mp_tb_word()
// take it as text), "=?" ends it.
static size_t fa_run(const uint8_t *p, size_t n, size_t i, uint8_t cls) {
  for (;;) {
    while (i < n && (fa_class[p[i]] & cls))
      i++;
    if (i < n && p[i] == '=' && (i + 1 == n || p[i + 1] != '?')) {
      i++;
      continue;
    }
    return i;
  }
}

// fa_dot_atom returns the end of the dot-atom (atoms joined by single dots)
// at `i`, or `i` when there is none or it ends with a dot.
static size_t fa_dot_atom(const uint8_t *p, size_t n, size_t i) {
  size_t k = i;
  for (;;) {
    size_t e = fa_run(p, n, k, FA_ATEXT);
    if (e == k)
      return i;
    if (e == n || p[e] != '.')
      return e;
    k = e + 1;
  }
}

// fa_put copies `n` bytes to the text buffer at `*len`; false when they do
// not fit.
static bool fa_put(char *text, size_t text_cap, size_t *len, const uint8_t *p, size_t n) {
  if (n > text_cap - *len)
    return false;
  memcpy(text + *len, p, n);
  *len += n;
  return true;
}

// fa_addr reads `local@domain` at `*i` (both dot-atoms, nothing between
// them) into `a`; false when it is not there or does not fit.
static bool fa_addr(mp_address *a, char *text, size_t text_cap, size_t *len, const uint8_t *p,
                    size_t n, size_t *i) {
  size_t s = *i, e = fa_dot_atom(p, n, s);
  if (e == s || e == n || p[e] != '@')
    return false;
  a->local.p = text + *len;
  a->local.len = e - s;
  if (!fa_put(text, text_cap, len, p + s, e - s))
    return false;
  s = e + 1;
  e = fa_dot_atom(p, n, s);
  if (e == s)
    return false;
  a->domain.p = text + *len;
  a->domain.len = e - s;
  if (!fa_put(text, text_cap, len, p + s, e - s))
    return false;
  *i = e;
  return true;
}

// fa_phrase reads a display name of atoms, dots and quoted strings up to
// the '<' at `*i`, as render_phrase() writes it: one space for any white
// space between tokens (none at the start), quoted content as it is.
// Returns false on anything else, or when it does not fit.
static bool fa_phrase(mp_address *a, char *text, size_t text_cap, size_t *len, unsigned *flags,
                      const uint8_t *p, size_t n, size_t *i) {
  size_t k = *i, start = *len;
  bool space = false;
  for (;;) {
    size_t w = mp_skip_wsp_at(p, n, k);
    space = space || w > k;
    k = w;
    if (k == n)
      return false;
    const uint8_t *tok = p + k;
    size_t tn;
    if (p[k] == '<') {
      break;
    } else if (p[k] == '"') {
      size_t e = fa_run(p, n, k + 1, FA_QTEXT);
      if (e == n || p[e] != '"')
        return false; // not closed, or a byte the general parser must see
      tok = p + k + 1;
      tn = e - k - 1;
      // White space at either end of a quoted name is not copied as is.
      if (tn > 0 && (mp_charclass[tok[0]] & MP_CC_WSP || mp_charclass[tok[tn - 1]] & MP_CC_WSP))
        return false;
      k = e + 1;
    } else if (p[k] == '.') {
      *flags |= MP_TYPED_OBSOLETE; // "Joe Q. Public" (obs-phrase)
      tn = 1;
      k++;
    } else {
      size_t e = fa_run(p, n, k, FA_ATEXT);
      if (e == k)
        return false;
      tn = e - k;
      k = e;
    }
    if (tn == 0)
      continue; // "": nothing written, a pending space stays pending
    if (space && *len > start && !fa_put(text, text_cap, len, (const uint8_t *)" ", 1))
      return false;
    space = false;
    if (!fa_put(text, text_cap, len, tok, tn))
      return false;
  }
  if (*len > start) {
    a->name.p = text + start;
    a->name.len = *len - start;
  }
  *i = k;
  return true;
}

// fa_phrase_tok reads the display name before the '<' when fa_phrase
// cannot (encoded words, 8-bit bytes, quoted pairs): the element from `el`
// is tokenized as scan_elem and parse_mailbox do and the name is written by
// render_phrase, as the general parser writes it. Only atoms, quoted
// strings and dots may come before the '<'; `*i` is then at the '<'.
static bool fa_phrase_tok(mp_address *a, char *text, size_t text_cap, size_t *len, unsigned *flags,
                          const uint8_t *p, size_t n, size_t el, size_t *i) {
  struct mp_cur r, c;
  struct mp_tok t;
  mp_cur_init(&r, p + el, n - el);
  c = r;
  for (;;) {
    struct mp_cur before = c;
    mp_tok_next(&c, &t, true);
    if (t.unterminated || t.type == MP_TOK_END || t.type == MP_TOK_COMMENT || t.type == MP_TOK_DLIT)
      return false;
    if (t.type == MP_TOK_SPECIAL) {
      if (t.p[0] == '<') {
        struct mp_tb tb;
        mp_tb_init(&tb, text, text_cap);
        tb.len = *len;
        mp_tb_begin(&tb);
        render_phrase(&tb, sub(r, before));
        mp_tb_end(&tb, &a->name.p, &a->name.len);
        if (tb.err)
          return false;
        *len = tb.len;
        *flags |= tb.flags;
        *i = (size_t)(t.p - p);
        return true;
      }
      if (t.p[0] != '.')
        return false;
    }
  }
}

// fa_comment reads the comment at `*i` (a '(' is there) as trailer() and
// render_addr_part() read one after an address; when the entry has no name,
// its content becomes the name as parse_mailbox writes it. False when it is
// not closed or its content does not fit.
static bool fa_comment(mp_address *a, char *text, size_t text_cap, size_t *len, unsigned *flags,
                       const uint8_t *p, size_t n, size_t *i) {
  struct mp_cur c;
  struct mp_tok t;
  mp_cur_init(&c, p + *i, n - *i);
  mp_tok_next(&c, &t, true);
  if (t.type != MP_TOK_COMMENT || t.unterminated)
    return false;
  *i = (size_t)(c.p - p);
  if (a->name.len > 0)
    return true;
  struct mp_tb tb;
  mp_tb_init(&tb, text, text_cap);
  tb.len = *len;
  mp_tb_begin(&tb);
  mp_tb_qcontent(&tb, t.p, t.len);
  mp_tb_end(&tb, &a->name.p, &a->name.len);
  if (tb.err)
    return false;
  *len = tb.len;
  *flags |= tb.flags;
  if (a->name.len > 0)
    a->flags |= MP_ADDRESS_NAME_COMMENT;
  return true;
}

// fast_list is parse_general for the common forms (see above): 1 when it
// parsed the value, 0 when the general parser must.
static int fast_list(mp_address *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                     size_t *text_len, unsigned *out_flags, const uint8_t *p, size_t n) {
  if (text == NULL || p == NULL)
    return 0;
  size_t i = 0, len = 0, num = 0;
  unsigned flags = 0;
  for (;;) {
    size_t el = i;
    i = mp_skip_wsp_at(p, n, i);
    if (i == n || num == out_cap)
      return 0; // an empty element, or a full array: the general parser's
    mp_address *a = &out[num];
    memset(a, 0, sizeof *a);
    a->group = MP_NO_INDEX;
    size_t e = fa_dot_atom(p, n, i);
    if (e > i && e < n && p[e] == '@') {
      // addr-spec
      if (!fa_addr(a, text, text_cap, &len, p, n, &i))
        return 0;
    } else {
      // [phrase] "<" addr-spec ">"
      size_t len0 = len;
      unsigned flags0 = flags;
      if (!fa_phrase(a, text, text_cap, &len, &flags, p, n, &i)) {
        len = len0;
        flags = flags0;
        a->name = (mp_str){NULL, 0};
        if (!fa_phrase_tok(a, text, text_cap, &len, &flags, p, n, el, &i))
          return 0;
      }
      i++; // the '<'
      if (!fa_addr(a, text, text_cap, &len, p, n, &i) || i == n || p[i] != '>')
        return 0;
      i++;
      a->flags = MP_ADDRESS_ANGLE;
    }
    i = mp_skip_wsp_at(p, n, i);
    if (i < n && p[i] == '(') {
      // "x@y (Name)", "<x@y> (Name)", "Name <x@y> (comment)"
      if (!fa_comment(a, text, text_cap, &len, &flags, p, n, &i))
        return 0;
      i = mp_skip_wsp_at(p, n, i);
    }
    num++;
    if (i == n)
      break;
    if (p[i] != ',')
      return 0;
    i++;
  }
  *num_out = num;
  *text_len = len;
  if (out_flags != NULL)
    *out_flags = flags;
  return 1;
}

// check_args validates the arguments and clears the outputs, for both
// entries.
static int check_args(mp_address *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                      size_t *text_len, unsigned *out_flags, const char *in, size_t in_len) {
  if (num_out == NULL || !mp_text_args_ok(text, text_cap, text_len) ||
      (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *num_out = 0;
  *text_len = 0;
  if (out_flags != NULL)
    *out_flags = 0;
  return 0;
}

int mp_address_list_parse(mp_address *out, size_t out_cap, size_t *num_out, char *text,
                          size_t text_cap, size_t *text_len, unsigned *out_flags, const char *in,
                          size_t in_len) {
  int rc = check_args(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
  if (rc != 0)
    return rc;
  if (fast_list(out, out_cap, num_out, text, text_cap, text_len, out_flags, (const uint8_t *)in,
                in_len))
    return 0;
  return parse_general(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
}

int mp_address_list_parse_general(mp_address *out, size_t out_cap, size_t *num_out, char *text,
                                  size_t text_cap, size_t *text_len, unsigned *out_flags,
                                  const char *in, size_t in_len) {
  int rc = check_args(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
  if (rc != 0)
    return rc;
  return parse_general(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
}
