// typed_msgid.c: message identifier lists (RFC 5322 §3.6.4 and the obsolete
// §4.5.4 forms) for Message-ID, In-Reply-To, References, Content-ID and
// Resent-Message-ID: each msg-id in angle brackets with CFWS inside removed,
// bare ids without brackets recovered, phrases and junk between ids skipped.
// Lists of plain ids, nearly all of them, take a one-pass path (fast_list)
// with the general parser's results.
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

// parse_general is the whole parser, for any value (arguments checked and
// the counts cleared by the caller): a token at a time.
static int parse_general(mp_msgid *out, size_t out_cap, size_t *num_out, char *text,
                         size_t text_cap, size_t *text_len, unsigned *out_flags, const char *in,
                         size_t in_len) {
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

// The common form, nearly every Message-ID, In-Reply-To and References
// field: msg-ids of printable ASCII without white space, comments, quoted
// strings, domain literals, '=' or specials other than '.' and '@' inside
// the brackets, separated by white space and commas only. The general
// parser takes such a value a token at a time (an id of "a.b@c.d" is seven
// tokens, each copied on its own); fast_list copies each id in one piece
// after one table scan. Anything else (an empty or unclosed id, a comment,
// a bare id, a phrase, a full array or text buffer) goes to the general
// parser from the start, so the results are the same (tests and
// fuzz_typed_msgid compare the two through mp_msgid_list_parse_general()).

// fm_class: FM_ID for a byte of the common form of an id, with FM_AT for
// its '@'; FM_SEP for what may come between ids; 0 for anything else.
#define FM_ID 1
#define FM_AT 2
#define FM_SEP 4
static const uint8_t fm_class[256] = {
    ['!'] = FM_ID,   ['#'] = FM_ID,  ['$'] = FM_ID,         ['%'] = FM_ID,   ['&'] = FM_ID,
    ['\''] = FM_ID,  ['*'] = FM_ID,  ['+'] = FM_ID,         ['-'] = FM_ID,   ['.'] = FM_ID,
    ['/'] = FM_ID,   ['0'] = FM_ID,  ['1'] = FM_ID,         ['2'] = FM_ID,   ['3'] = FM_ID,
    ['4'] = FM_ID,   ['5'] = FM_ID,  ['6'] = FM_ID,         ['7'] = FM_ID,   ['8'] = FM_ID,
    ['9'] = FM_ID,   ['?'] = FM_ID,  ['@'] = FM_ID | FM_AT, ['A'] = FM_ID,   ['B'] = FM_ID,
    ['C'] = FM_ID,   ['D'] = FM_ID,  ['E'] = FM_ID,         ['F'] = FM_ID,   ['G'] = FM_ID,
    ['H'] = FM_ID,   ['I'] = FM_ID,  ['J'] = FM_ID,         ['K'] = FM_ID,   ['L'] = FM_ID,
    ['M'] = FM_ID,   ['N'] = FM_ID,  ['O'] = FM_ID,         ['P'] = FM_ID,   ['Q'] = FM_ID,
    ['R'] = FM_ID,   ['S'] = FM_ID,  ['T'] = FM_ID,         ['U'] = FM_ID,   ['V'] = FM_ID,
    ['W'] = FM_ID,   ['X'] = FM_ID,  ['Y'] = FM_ID,         ['Z'] = FM_ID,   ['^'] = FM_ID,
    ['_'] = FM_ID,   ['`'] = FM_ID,  ['a'] = FM_ID,         ['b'] = FM_ID,   ['c'] = FM_ID,
    ['d'] = FM_ID,   ['e'] = FM_ID,  ['f'] = FM_ID,         ['g'] = FM_ID,   ['h'] = FM_ID,
    ['i'] = FM_ID,   ['j'] = FM_ID,  ['k'] = FM_ID,         ['l'] = FM_ID,   ['m'] = FM_ID,
    ['n'] = FM_ID,   ['o'] = FM_ID,  ['p'] = FM_ID,         ['q'] = FM_ID,   ['r'] = FM_ID,
    ['s'] = FM_ID,   ['t'] = FM_ID,  ['u'] = FM_ID,         ['v'] = FM_ID,   ['w'] = FM_ID,
    ['x'] = FM_ID,   ['y'] = FM_ID,  ['z'] = FM_ID,         ['{'] = FM_ID,   ['|'] = FM_ID,
    ['}'] = FM_ID,   ['~'] = FM_ID,  [' '] = FM_SEP,        ['\t'] = FM_SEP, ['\r'] = FM_SEP,
    ['\n'] = FM_SEP, [','] = FM_SEP,
};

// fast_list is parse_general for the common form (see above): 1 when it
// parsed the value, 0 when the general parser must.
static int fast_list(mp_msgid *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                     size_t *text_len, unsigned *out_flags, const uint8_t *p, size_t n) {
  size_t i = 0, num = 0, len = 0;
  for (;;) {
    while (i < n && fm_class[p[i]] == FM_SEP)
      i++;
    if (i == n)
      break;
    if (p[i] != '<')
      return 0;
    size_t start = ++i;
    unsigned seen = 0, c;
    // Four bytes a step while all four belong to the id, then one a step.
    while (n - i >= 4) {
      unsigned c0 = fm_class[p[i]], c1 = fm_class[p[i + 1]], c2 = fm_class[p[i + 2]],
               c3 = fm_class[p[i + 3]];
      if (!(c0 & c1 & c2 & c3 & FM_ID))
        break;
      seen |= c0 | c1 | c2 | c3;
      i += 4;
    }
    while (i < n && ((c = fm_class[p[i]]) & FM_ID)) {
      seen |= c;
      i++;
    }
    size_t k = i - start;
    if (i == n || p[i] != '>' || k == 0 || num == out_cap || k > text_cap - len)
      return 0;
    memcpy(text + len, p + start, k);
    out[num].id.p = text + len;
    out[num].id.len = k;
    out[num].flags = seen & FM_AT ? 0 : MP_MSGID_NO_AT;
    num++;
    len += k;
    i++; // the '>'
  }
  *num_out = num;
  *text_len = len;
  if (out_flags != NULL)
    *out_flags = 0;
  return 1;
}

// check_args checks the arguments of both entry points and clears the
// counts.
static int check_args(mp_msgid *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                      size_t *text_len, const char *in, size_t in_len) {
  if (num_out == NULL || !mp_text_args_ok(text, text_cap, text_len) ||
      (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *num_out = 0;
  *text_len = 0;
  return 0;
}

int mp_msgid_list_parse(mp_msgid *out, size_t out_cap, size_t *num_out, char *text, size_t text_cap,
                        size_t *text_len, unsigned *out_flags, const char *in, size_t in_len) {
  int rc = check_args(out, out_cap, num_out, text, text_cap, text_len, in, in_len);
  if (rc != 0)
    return rc;
  if (fast_list(out, out_cap, num_out, text, text_cap, text_len, out_flags, (const uint8_t *)in,
                in_len))
    return 0;
  return parse_general(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
}

int mp_msgid_list_parse_general(mp_msgid *out, size_t out_cap, size_t *num_out, char *text,
                                size_t text_cap, size_t *text_len, unsigned *out_flags,
                                const char *in, size_t in_len) {
  int rc = check_args(out, out_cap, num_out, text, text_cap, text_len, in, in_len);
  if (rc != 0)
    return rc;
  return parse_general(out, out_cap, num_out, text, text_cap, text_len, out_flags, in, in_len);
}
