// typed_received.c: Received fields (RFC 5321 §4.4, RFC 5322 §3.6.7): the
// from/by/via/with/id/for clauses (the first word of each, zero-copy), the
// comment after the from clause (TCP-info) and the date-time after the last
// top-level ';'. Real Received fields vary wildly, so anything else is
// skipped and flagged. Clause values of the common forms are read in one
// pass (plain_run), with the token loop's results.
#include "typed_internal.h"
#include "zero_internal.h"

// rv_class sorts the bytes for plain_run(): 0 for those of a plain value
// (what the tokenizer reads as atoms (MP_CC_ATOM_END clear), '.' and '@'),
// RV_END for those that end value_span()'s run of tokens (white space, ';',
// '<', '('), RV_OTHER for the other specials and '='.
#define RV_END 1
#define RV_OTHER 2
static const uint8_t rv_class[256] = {
    [' '] = RV_END,    ['\t'] = RV_END,  ['\r'] = RV_END,  ['\n'] = RV_END,
    [';'] = RV_END,    ['<'] = RV_END,   ['('] = RV_END,   [')'] = RV_OTHER,
    ['>'] = RV_OTHER,  ['['] = RV_OTHER, [']'] = RV_OTHER, [':'] = RV_OTHER,
    ['\\'] = RV_OTHER, [','] = RV_OTHER, ['"'] = RV_OTHER, ['='] = RV_OTHER,
};

// plain_run reads the common forms of a clause value: a run of atom bytes,
// dots and '@' ("mail.example.com", "ESMTPS", "4A1B2C") that ends the input
// or is followed by white space, ';', '<' or '(', as value_span()'s loop
// would end it, or such a run in angle brackets ("<x@example.net>"), after
// white space. That loop reads these a token at a time ("mail", ".",
// "example", ...); this reads them with one table lookup a byte. It returns
// false, leaving `c` alone, for anything else (a quoted string, a domain
// literal, an encoded word, other specials, a comment first, an angle-addr
// with anything else in it), which value_span()'s loop then reads.
static bool plain_run(struct mp_cur *c, mp_str *out) {
  const uint8_t *p = c->p;
  size_t n = c->len, i = mp_skip_wsp_at(p, n, 0);
  bool angle = i < n && p[i] == '<';
  size_t start = i + angle;
  i = mp_class_run(rv_class, p, n, start);
  if (i == start)
    return false;
  if (angle) {
    if (i == n || p[i] != '>')
      return false;
    out->p = (const char *)p + start;
    out->len = i - start;
    (void)mp_cur_skip(c, i + 1);
    return true;
  }
  if (i < n && rv_class[p[i]] != RV_END)
    return false;
  out->p = (const char *)p + start;
  out->len = i - start;
  (void)mp_cur_skip(c, i);
  return true;
}

// value_span reads a clause value at `c`: an angle-addr (returned without
// its brackets), a domain literal, or a run of atoms and specials with no
// white space between them. `fast` lets plain_run() take the common form.
static bool value_span(struct mp_cur *c, mp_str *out, bool fast) {
  if (fast && plain_run(c, out))
    return true;
  struct mp_cur look = *c;
  struct mp_tok t;
  mp_tok_next(&look, &t, false);
  if (t.type == MP_TOK_END || t.type == MP_TOK_COMMENT)
    return false;
  if (t.type == MP_TOK_SPECIAL && t.p[0] == '<') {
    const uint8_t *start = look.p;
    for (;;) {
      struct mp_cur before = look;
      mp_tok_next(&look, &t, false);
      if (t.type == MP_TOK_END || (t.type == MP_TOK_SPECIAL && t.p[0] == '>')) {
        const uint8_t *end = t.type == MP_TOK_END ? before.p : t.p;
        if (end == start)
          return false; // "<>" or a lone '<' at the end
        out->p = (const char *)start;
        out->len = (size_t)(end - start);
        *c = look;
        return true;
      }
    }
  }
  if (t.type == MP_TOK_SPECIAL && t.p[0] == ';')
    return false;
  const uint8_t *start = t.p;
  const uint8_t *end = t.p + t.len;
  if (t.type == MP_TOK_QSTRING) {
    start--; // the opening quote
    end += t.unterminated ? 0 : 1;
  }
  for (;;) {
    struct mp_cur before = look;
    mp_tok_next(&look, &t, false);
    if (t.type == MP_TOK_END || t.ws_before || t.type == MP_TOK_QSTRING ||
        (t.type == MP_TOK_SPECIAL && (t.p[0] == ';' || t.p[0] == '<' || t.p[0] == '('))) {
      look = before;
      break;
    }
    end = t.p + t.len;
  }
  out->p = (const char *)start;
  out->len = (size_t)(end - start);
  *c = look;
  return true;
}

// ds_class marks the bytes date_start() stops at: 1 for those that open a
// token in which a ';' does not count, 2 for ';'.
static const uint8_t ds_class[256] = {['('] = 1, ['"'] = 1, ['['] = 1, ['='] = 1, [';'] = 2};

// date_start returns where the date-time begins: after the last top-level
// ';' from `c` on, `date` (just past the first one) when there is no other.
// What follows the first ';' is only searched for another, so it is read
// with a table lookup a byte rather than as tokens; comments, quoted
// strings, domain literals and encoded words, where a ';' does not count,
// are still skipped whole by the tokenizer, exactly as the clause loop
// would skip them.
static const uint8_t *date_start(struct mp_cur c, const uint8_t *date) {
  for (;;) {
    size_t i = mp_class_run(ds_class, c.p, c.len, 0);
    if (i == c.len)
      return date;
    (void)mp_cur_skip(&c, i);
    if (c.p[0] == ';') {
      (void)mp_cur_skip(&c, 1);
      date = c.p;
      continue;
    }
    struct mp_tok t;
    mp_tok_next_full(&c, &t, true);
  }
}

// word_is compares `p` (any case) with the lower-case letters `lc`: OR-ing
// 0x20 folds an ASCII letter to lower case and maps no other byte onto one.
static bool word_is(const uint8_t *p, const char *lc, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((p[i] | 0x20) != (uint8_t)lc[i])
      return false;
  return true;
}

// clause_index returns the slot of a clause keyword (0 from, 1 by, 2 via,
// 3 with, 4 id, 5 for) or 6 for any other word; every atom of the field is
// asked, so the length picks the candidates.
static size_t clause_index(const uint8_t *p, size_t n) {
  switch (n) {
  case 2:
    return word_is(p, "by", 2) ? 1 : word_is(p, "id", 2) ? 4 : 6;
  case 3:
    return word_is(p, "via", 3) ? 2 : word_is(p, "for", 3) ? 5 : 6;
  case 4:
    return word_is(p, "from", 4) ? 0 : word_is(p, "with", 4) ? 3 : 6;
  default:
    return 6;
  }
}

// parse reads the whole field; `fast` takes the one-pass paths for the
// common forms of a clause value (plain_run()) and of the date
// (mp_date_parse()), which give the results of the token loops they spare.
static int parse(mp_received *out, unsigned *out_flags, const char *in, size_t in_len, bool fast) {
  if (out == NULL || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  mp_zero(out, sizeof *out);
  unsigned flags = 0;
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  struct mp_tok t;
  const uint8_t *date = NULL;
  bool any = false;
  for (;;) {
    mp_tok_next(&c, &t, true);
    if (t.type == MP_TOK_END)
      break;
    if (t.type == MP_TOK_SPECIAL && t.p[0] == ';') {
      date = date_start(c, c.p);
      break;
    }
    if (t.type != MP_TOK_ATOM) {
      if (t.type != MP_TOK_COMMENT)
        flags |= MP_TYPED_JUNK;
      continue;
    }
    mp_str *slots[] = {&out->from, &out->by, &out->via, &out->with, &out->id, &out->for_};
    size_t k = clause_index(t.p, t.len);
    if (k == 6) {
      flags |= MP_TYPED_JUNK;
      continue;
    }
    mp_str v;
    if (!value_span(&c, &v, fast)) {
      flags |= MP_TYPED_JUNK;
      continue;
    }
    any = true;
    if (slots[k]->p != NULL) {
      flags |= MP_TYPED_REPAIRED; // a repeated clause: the first one counts
      continue;
    }
    *slots[k] = v;
    if (k == 0) {
      // TCP-info: "from name (helo [addr])".
      struct mp_cur look = c;
      mp_tok_next(&look, &t, true);
      if (t.type == MP_TOK_COMMENT) {
        out->from_info.p = (const char *)t.p;
        out->from_info.len = t.len;
        c = look;
      }
    }
  }
  if (date != NULL) {
    unsigned dflags = 0;
    size_t date_len = (size_t)((const uint8_t *)in + in_len - date);
    int rc = fast ? mp_date_parse(&out->date, &dflags, (const char *)date, date_len)
                  : mp_date_parse_general(&out->date, &dflags, (const char *)date, date_len);
    if (rc == 0) {
      out->has_date = 1;
      flags |= dflags;
    } else {
      flags |= MP_TYPED_JUNK;
    }
  }
  if (out_flags != NULL)
    *out_flags = flags;
  if (!any && !out->has_date) {
    mp_zero(out, sizeof *out);
    return MP_ERR_SYNTAX;
  }
  return 0;
}

int mp_received_parse(mp_received *out, unsigned *out_flags, const char *in, size_t in_len) {
  return parse(out, out_flags, in, in_len, true);
}

int mp_received_parse_general(mp_received *out, unsigned *out_flags, const char *in,
                              size_t in_len) {
  return parse(out, out_flags, in, in_len, false);
}
