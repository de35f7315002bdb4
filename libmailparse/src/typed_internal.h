// typed_internal.h: private helpers shared by the typed header value parsers
// (typed_*.c, rfc2047.c): the bounded cursor over untrusted bytes, the text
// builder that writes decoded UTF-8 into the caller's text buffer with a
// sticky error, the RFC 5322 lexical scanner (CFWS, quoted strings, atoms,
// specials) and the RFC 2047 hooks the parsers call for words and text.
#ifndef MP_TYPED_INTERNAL_H
#define MP_TYPED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "charclass.h"
#include "mailparse.h"

// Bounded cursor (CONVENTIONS §5). Every accessor returns 1 or 0 and advances
// only on success.
struct mp_cur {
  const uint8_t *p;
  size_t len;
};

static inline void mp_cur_init(struct mp_cur *c, const void *p, size_t len) {
  c->p = (const uint8_t *)p;
  c->len = p == NULL ? 0 : len;
}

static inline int mp_cur_peek(const struct mp_cur *c, uint8_t *out) {
  if (c->len == 0)
    return 0;
  *out = c->p[0];
  return 1;
}

// mp_cur_peek_at reads the byte `i` places ahead without advancing.
static inline int mp_cur_peek_at(const struct mp_cur *c, size_t i, uint8_t *out) {
  if (i >= c->len)
    return 0;
  *out = c->p[i];
  return 1;
}

static inline int mp_cur_get_u8(struct mp_cur *c, uint8_t *out) {
  if (!mp_cur_peek(c, out))
    return 0;
  c->p++;
  c->len--;
  return 1;
}

static inline int mp_cur_skip(struct mp_cur *c, size_t n) {
  if (n > c->len)
    return 0;
  c->p += n;
  c->len -= n;
  return 1;
}

static inline int mp_cur_get_bytes(struct mp_cur *c, size_t n, struct mp_cur *out) {
  if (n > c->len)
    return 0;
  mp_cur_init(out, c->p, n);
  c->p += n;
  c->len -= n;
  return 1;
}

static inline int mp_is_wsp(uint8_t b) {
  return b == ' ' || b == '\t' || b == '\r' || b == '\n';
}

static inline uint8_t mp_lower(uint8_t b) {
  return b >= 'A' && b <= 'Z' ? (uint8_t)(b + 32) : b;
}

static inline int mp_is_digit(uint8_t b) {
  return b >= '0' && b <= '9';
}

static inline int mp_is_alpha(uint8_t b) {
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
}

// mp_ieq compares `a` (any case) with the lower-case ASCII `lc`.
static inline bool mp_ieq(const uint8_t *a, size_t a_len, const char *lc) {
  size_t n = strlen(lc);
  if (a_len != n)
    return false;
  for (size_t i = 0; i < n; i++)
    if (mp_lower(a[i]) != (uint8_t)lc[i])
      return false;
  return true;
}

static inline void mp_cur_skip_wsp(struct mp_cur *c) {
  uint8_t b;
  while (mp_cur_peek(c, &b) && mp_is_wsp(b))
    mp_cur_skip(c, 1);
}

// mp_skip_wsp_at returns the index of the first byte at or after `i` in
// p[0..n) that is not white space: the fast paths' skip where no comment
// can be (typed_address.c, typed_mime.c).
static inline size_t mp_skip_wsp_at(const uint8_t *p, size_t n, size_t i) {
  while (i < n && (mp_charclass[p[i]] & MP_CC_WSP))
    i++;
  return i;
}

// mp_class_run returns the index of the first byte at or after `i` in
// p[0..n) whose class in `tab` is not 0: the fast paths' scan of a run of
// plain bytes, four a step while all four are plain, then one a step
// (typed_received.c).
static inline size_t mp_class_run(const uint8_t tab[256], const uint8_t *p, size_t n, size_t i) {
  while (n - i >= 4 && (tab[p[i]] | tab[p[i + 1]] | tab[p[i + 2]] | tab[p[i + 3]]) == 0)
    i += 4;
  while (i < n && tab[p[i]] == 0)
    i++;
  return i;
}

// Text builder: appends to the caller's text buffer; the first overflow sets
// `err` (sticky) and later appends do nothing. It also carries the RFC 2047
// state between words: the white space waiting to be written (dropped
// between two adjacent encoded words, §6.2) and an incomplete UTF-8 sequence
// at the end of the last encoded word (joined with the next one when a
// sender split a character across words).
struct mp_tb {
  char *out;
  size_t cap;
  size_t len;
  int err;
  unsigned flags;
  size_t mark;       // start of the string being built
  const uint8_t *ws; // pending white space (CR and LF are never written)
  size_t ws_len;
  bool last_ew;     // the last thing written was an encoded word
  uint8_t carry[4]; // incomplete UTF-8 at the end of the last encoded word
  size_t carry_len;
};

void mp_tb_init(struct mp_tb *tb, char *out, size_t cap);
// mp_tb_begin starts a new string at the current end.
void mp_tb_begin(struct mp_tb *tb);
// mp_tb_end finishes the string (pending white space at the end is dropped)
// and reports where it lies in the buffer; NULL/0 when empty.
void mp_tb_end(struct mp_tb *tb, const char **out, size_t *out_len);
void mp_tb_put(struct mp_tb *tb, const void *p, size_t n);
void mp_tb_putc(struct mp_tb *tb, uint8_t b);
// mp_tb_space makes one space pending (written before the next word unless
// both are encoded words, and never at the start of a string).
void mp_tb_space(struct mp_tb *tb);
// mp_tb_utf8 appends raw header bytes: valid UTF-8 as is (flag
// MP_TYPED_8BIT), anything else as U+FFFD (flag MP_TYPED_CHARSET_REPLACED).
void mp_tb_utf8(struct mp_tb *tb, const uint8_t *p, size_t n);
// mp_tb_word appends one word without white space, decoding encoded words
// in it. `allowed` says RFC 2047 permits an encoded word here when it is the
// whole word; encoded words elsewhere set MP_TYPED_ENCWORD_PLACEMENT.
void mp_tb_word(struct mp_tb *tb, const uint8_t *p, size_t n, bool allowed);
// mp_tb_text appends unstructured text: white space runs are kept (folds
// unfolded), words go through mp_tb_word.
void mp_tb_text(struct mp_tb *tb, const uint8_t *p, size_t n, bool allowed);
// mp_tb_charset appends bytes in `charset` converted to UTF-8.
void mp_tb_charset(struct mp_tb *tb, const uint8_t *cs, size_t cs_len, const uint8_t *p, size_t n);
// mp_tb_put_lower appends `n` bytes with ASCII letters lowercased.
void mp_tb_put_lower(struct mp_tb *tb, const uint8_t *p, size_t n);

// RFC 5322 lexical tokens.
enum mp_tok_type {
  MP_TOK_END = 0,
  MP_TOK_ATOM,    // run of atext and 8-bit bytes (RFC 6532); '.' is a special
  MP_TOK_QSTRING, // p/len: the content between the quotes, still escaped
  MP_TOK_DLIT,    // domain literal, p/len include the brackets
  MP_TOK_SPECIAL, // one of ()<>[]:;@\,." that is not part of another token
  MP_TOK_COMMENT, // p/len: the content of a top-level comment, still escaped
};

struct mp_tok {
  enum mp_tok_type type;
  const uint8_t *p;
  size_t len;
  bool ws_before; // white space or a comment came before it
  bool unterminated;
};

// MP_TYPED_MAX_COMMENT_DEPTH bounds comment nesting; deeper nesting is
// treated as part of the comment text (no recursion is involved, the limit
// only keeps depth counters small).
#define MP_TYPED_MAX_COMMENT_DEPTH 64

// mp_tok_next_full reads the next token; comments are returned as tokens
// only when `comments` is true (otherwise they count as white space). It is
// the whole tokenizer; mp_tok_next below calls it for what it does not do
// inline.
void mp_tok_next_full(struct mp_cur *c, struct mp_tok *t, bool comments);

// mp_tok_next is mp_tok_next_full with the common tokens inline: white space,
// atoms without a '=' (no encoded word can start in them) and the specials
// that are one byte. A typed parser reads every byte of a structured value
// through here, a few bytes per token, so a call and a cleared struct per
// token were most of its cost. Comments, quoted strings, domain literals
// and atoms holding a '=' go to the full tokenizer, from their first byte.
static inline void mp_tok_next(struct mp_cur *c, struct mp_tok *t, bool comments) {
  const uint8_t *p = c->p;
  size_t n = c->len, i = 0;
  while (i < n && (mp_charclass[p[i]] & MP_CC_WSP))
    i++;
  t->ws_before = i > 0;
  t->unterminated = false;
  if (i == n) {
    if (n > 0) { // an empty cursor may hold NULL, which takes no offset
      c->p = p + n;
      c->len = 0;
    }
    t->type = MP_TOK_END;
    t->p = c->p;
    t->len = 0;
    return;
  }
  uint8_t cls = mp_charclass[p[i]];
  if (!(cls & MP_CC_ATOM_END)) {
    size_t k = i + 1;
    while (k < n && !(mp_charclass[p[k]] & MP_CC_ATOM_END))
      k++;
    if (k == n || p[k] != '=') {
      t->type = MP_TOK_ATOM;
      t->p = p + i;
      t->len = k - i;
      c->p = p + k;
      c->len = n - k;
      return;
    }
  } else if ((cls & (MP_CC_SPECIAL | MP_CC_OPENER)) == MP_CC_SPECIAL) {
    t->type = MP_TOK_SPECIAL;
    t->p = p + i;
    t->len = 1;
    c->p = p + i + 1;
    c->len = n - i - 1;
    return;
  }
  c->p = p + i;
  c->len = n - i;
  bool ws = i > 0;
  mp_tok_next_full(c, t, comments);
  t->ws_before = t->ws_before || ws;
}

// mp_tb_qcontent appends the content of a quoted string or comment with
// quoted pairs resolved and folds unfolded; encoded words in it are decoded
// with MP_TYPED_ENCWORD_PLACEMENT (real mail puts them there).
void mp_tb_qcontent(struct mp_tb *tb, const uint8_t *p, size_t n);

// mp_text_check validates the caller's text buffer arguments.
static inline int mp_text_args_ok(const char *text, size_t text_cap, size_t *text_len) {
  return text_len != NULL && (text != NULL || text_cap == 0);
}

// mp_typed_mime_parse_general is mp_content_type_parse() (`subtype` set)
// or mp_content_disposition_parse() (`subtype` NULL) without their fast
// path for simple values: the reference the fast path is tested and fuzzed
// against (tests/test_typed_mime.c, fuzz/fuzz_typed_mime.c). Same
// arguments, results and errors as those.
int mp_typed_mime_parse_general(mp_str *type, mp_str *subtype, size_t *num_params, mp_param *params,
                                size_t params_cap, char *text, size_t text_cap, size_t *text_len,
                                unsigned *out_flags, const char *in, size_t in_len);

// mp_address_list_parse_general is mp_address_list_parse() without its fast
// path for the common forms: the reference the fast path is tested and
// fuzzed against (tests/test_typed_address.c, fuzz/fuzz_typed_address.c).
// Same arguments, results and errors.
int mp_address_list_parse_general(mp_address *out, size_t out_cap, size_t *num_out, char *text,
                                  size_t text_cap, size_t *text_len, unsigned *out_flags,
                                  const char *in, size_t in_len);

// mp_date_parse_general is mp_date_parse() without its one-pass path for
// the common form: the reference that path is tested and fuzzed against
// (tests/test_typed_date.c, fuzz/fuzz_typed_date.c). Same arguments,
// results and errors.
int mp_date_parse_general(mp_date *out, unsigned *out_flags, const char *in, size_t in_len);

// mp_msgid_list_parse_general is mp_msgid_list_parse() without its one-pass
// path for the common form: the reference that path is tested and fuzzed
// against (tests/test_typed_msgid.c, fuzz/fuzz_typed_msgid.c). Same
// arguments, results and errors.
int mp_msgid_list_parse_general(mp_msgid *out, size_t out_cap, size_t *num_out, char *text,
                                size_t text_cap, size_t *text_len, unsigned *out_flags,
                                const char *in, size_t in_len);

// mp_received_parse_general is mp_received_parse() without its one-pass
// paths for the common forms of a clause value and of the date: the
// reference they are tested and fuzzed against (tests/test_typed_received.c,
// fuzz/fuzz_typed_received.c). Same arguments, results and errors.
int mp_received_parse_general(mp_received *out, unsigned *out_flags, const char *in, size_t in_len);

#endif // MP_TYPED_INTERNAL_H
