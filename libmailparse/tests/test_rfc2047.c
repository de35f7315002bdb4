// test_rfc2047.c: mp_rfc2047_decode (src/rfc2047.c): the RFC 2047 §8
// examples, RFC 2231 §5 language suffixes, real-world breakages (encoded
// words glued to text, split UTF-8 characters, bad padding, raw 8-bit),
// buffer sizing and argument errors; the plain-text short path and the
// decoded CR/LF check at every offset; and the RFC 5322 tokenizer's inline
// path against the full tokenizer.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_internal.h"

struct vec {
  const char *in;
  const char *out;
  unsigned flags_set;   // flags that must be set
  unsigned flags_clear; // flags that must not be set
};

static const struct vec vectors[] = {
    // RFC 2047 §8, the "encoded-word" display examples (the parentheses are
    // plain text here, so words next to them are glued: a placement repair).
    {"(=?ISO-8859-1?Q?a?=)", "(a)", MP_TYPED_ENCWORD_PLACEMENT, 0},
    {"(=?ISO-8859-1?Q?a?= b)", "(a b)", 0, 0},
    {"(=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=)", "(ab)", 0, 0},
    {"(=?ISO-8859-1?Q?a?=  =?ISO-8859-1?Q?b?=)", "(ab)", 0, 0},
    {"(=?ISO-8859-1?Q?a?=\r\n    =?ISO-8859-1?Q?b?=)", "(ab)", 0, 0},
    {"(=?ISO-8859-1?Q?a_b?=)", "(a b)", 0, 0},
    {"(=?ISO-8859-1?Q?a?= =?ISO-8859-2?Q?_b?=)", "(a b)", 0, 0},
    // RFC 2047 §8, the message header examples.
    {"=?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=\r\n"
     "    =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=",
     "If you can read this you understand the example.", 0, MP_TYPED_ENCWORD_PLACEMENT},
    {"=?ISO-8859-1?Q?Olle_J=E4rmegren?=", "Olle J\xc3\xa4rmegren", 0, 0},
    {"=?ISO-8859-1?Q?Andr=E9?= Pirard", "Andr\xc3\xa9 Pirard", 0, 0},
    {"=?US-ASCII?Q?Keith_Moore?=", "Keith Moore", 0, 0},
    // RFC 2231 §5: a language suffix is ignored.
    {"=?US-ASCII*EN?Q?Keith_Moore?=", "Keith Moore", 0, 0},
    // Plain text: unfolding, trimming, white space kept.
    {"  Hello,\r\n  world  ", "Hello,  world", 0, MP_TYPED_8BIT},
    {"a\tb", "a\tb", 0, 0},
    {"", "", 0, 0},
    // Encoded word next to plain words keeps the space.
    {"Re: =?utf-8?q?caf=C3=A9?= ok", "Re: caf\xc3\xa9 ok", 0, MP_TYPED_ENCWORD_PLACEMENT},
    // Lower-case encoding letters, B and Q.
    {"=?utf-8?b?w6k=?=", "\xc3\xa9", 0, 0},
    // Real world: a UTF-8 character split across two words.
    {"=?UTF-8?B?w6g=?= =?UTF-8?B?w6nDqg==?=", "\xc3\xa8\xc3\xa9\xc3\xaa", 0, 0},
    {"=?UTF-8?Q?=C3?= =?UTF-8?Q?=A9?=", "\xc3\xa9", MP_TYPED_REPAIRED, 0},
    // Real world: encoded words glued together or to text.
    {"=?utf-8?q?a?==?utf-8?q?b?=", "ab", MP_TYPED_ENCWORD_PLACEMENT, 0},
    {"foo=?utf-8?q?bar?=", "foobar", MP_TYPED_ENCWORD_PLACEMENT, 0},
    // Real world: missing Base64 padding.
    {"=?utf-8?B?w6k?=", "\xc3\xa9", MP_TYPED_REPAIRED, 0},
    // Not encoded words: left as they are.
    {"=?utf-8?x?abc?=", "=?utf-8?x?abc?=", 0, 0},
    {"=?utf-8?q?abc", "=?utf-8?q?abc", 0, 0},
    {"=??q?abc?=", "=??q?abc?=", 0, 0},
    {"a =? b ?= c", "a =? b ?= c", 0, 0},
    // Raw 8-bit: UTF-8 passes, other bytes are replaced.
    {"caf\xc3\xa9", "caf\xc3\xa9", MP_TYPED_8BIT, MP_TYPED_CHARSET_REPLACED},
    {"caf\xe9", "caf\xef\xbf\xbd", MP_TYPED_CHARSET_REPLACED, 0},
    // Invalid UTF-8 inside an encoded word.
    {"=?utf-8?q?=FF?=", "\xef\xbf\xbd", MP_TYPED_CHARSET_REPLACED, 0},
    // An incomplete character at the very end.
    {"=?utf-8?q?=C3?=", "\xef\xbf\xbd", MP_TYPED_CHARSET_REPLACED, 0},
    // Decoded CR, LF and NUL would break the line when written out again.
    {"=?utf-8?q?a=0D=0Ab=00c?=",
     "a  b\xef\xbf\xbd"
     "c",
     MP_TYPED_REPAIRED | MP_TYPED_CHARSET_REPLACED, 0},
    {"=?iso-8859-1?q?a=0D=0Ab=00c?=",
     "a  b\xef\xbf\xbd"
     "c",
     MP_TYPED_REPAIRED | MP_TYPED_CHARSET_REPLACED, 0},
    // US-ASCII with 8-bit bytes.
    {"=?us-ascii?q?a=E9?=", "a\xef\xbf\xbd", MP_TYPED_CHARSET_REPLACED, 0},
};

START_TEST(decode_vectors) {
  const struct vec *v = &vectors[_i];
  size_t in_len = strlen(v->in);
  size_t cap = mp_typed_text_max_len(in_len);
  char *out = malloc(cap);
  ck_assert_ptr_nonnull(out);
  size_t out_len = 99;
  unsigned flags = 0;
  int rc = mp_rfc2047_decode(out, cap, &out_len, &flags, v->in, in_len);
  ck_assert_int_eq(rc, 0);
  ck_assert_msg(out_len == strlen(v->out) && memcmp(out, v->out, out_len) == 0,
                "case %d: got \"%.*s\", want \"%s\"", _i, (int)out_len, out, v->out);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "case %d: flags %#x lack %#x", _i, flags,
                v->flags_set);
  ck_assert_msg((flags & v->flags_clear) == 0, "case %d: flags %#x have %#x", _i, flags,
                v->flags_clear);
  // 3 * in_len is enough, as documented.
  size_t need = out_len;
  if (need <= 3 * in_len) {
    char *tight = malloc(need ? need : 1);
    size_t tl = 0;
    ck_assert_int_eq(mp_rfc2047_decode(tight, need, &tl, NULL, v->in, in_len), 0);
    ck_assert_uint_eq(tl, out_len);
    ck_assert_mem_eq(tight, out, out_len);
    if (need > 0) {
      tl = 7;
      ck_assert_int_eq(mp_rfc2047_decode(tight, need - 1, &tl, NULL, v->in, in_len),
                       MP_ERR_BUFFER_TOO_SMALL);
      ck_assert_uint_eq(tl, 0);
    }
    free(tight);
  }
  free(out);
}
END_TEST

START_TEST(unknown_charset) {
  char out[64];
  size_t n;
  unsigned flags = 0;
  const char *in = "=?x-no-such-charset?q?ab=FF?=";
  ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, &n, &flags, in, strlen(in)), 0);
  ck_assert_uint_ge(n, 2);
  ck_assert_mem_eq(out, "ab", 2);
  ck_assert(flags & (MP_TYPED_CHARSET_UNKNOWN | MP_TYPED_CHARSET_REPLACED));
}
END_TEST

START_TEST(overlong_word_is_literal) {
  size_t n = 2000;
  char *in = malloc(n + 16);
  memcpy(in, "=?utf-8?q?", 10);
  memset(in + 10, 'a', n);
  memcpy(in + 10 + n, "?=", 2);
  size_t in_len = n + 12;
  size_t cap = mp_typed_text_max_len(in_len);
  char *out = malloc(cap);
  size_t got;
  unsigned flags = 0;
  ck_assert_int_eq(mp_rfc2047_decode(out, cap, &got, &flags, in, in_len), 0);
  ck_assert_uint_eq(got, in_len);
  ck_assert_mem_eq(out, in, in_len);
  ck_assert(flags & MP_TYPED_ENCWORD_INVALID);
  free(in);
  free(out);
}
END_TEST

// A charset name of 64 bytes is read (an unknown charset); one of 65 leaves
// the word literal, as does every truncation of a word and a word with a
// control byte, a space or DEL in its charset or text.
START_TEST(word_edges_are_literal) {
  char in[128], out[512];
  size_t n;
  unsigned flags;
  for (size_t cs = 63; cs <= 65; cs++) {
    memcpy(in, "=?", 2);
    memset(in + 2, 'x', cs);
    memcpy(in + 2 + cs, "?q?ab?=", 7);
    size_t len = cs + 9;
    flags = 0;
    ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, &n, &flags, in, len), 0);
    if (cs <= 64)
      ck_assert_msg(n == 2 && memcmp(out, "ab", 2) == 0 && (flags & MP_TYPED_CHARSET_UNKNOWN),
                    "charset of %zu bytes", cs);
    else
      ck_assert_msg(n == len && memcmp(out, in, len) == 0 && flags == 0, "charset of %zu bytes",
                    cs);
  }
  static const char *const words[] = {
      "=?utf-8?q?caf=C3=A9?=", "=?ISO-8859-1*fr?B?Y2Fm6Q==?=", "=?us-ascii?Q?a_b?="};
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    size_t len = strlen(words[w]);
    for (size_t k = 1; k <= len; k++) {
      flags = 0;
      ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, &n, &flags, words[w], k), 0);
      if (k < len)
        ck_assert_msg(n == k && memcmp(out, words[w], k) == 0, "%.*s", (int)k, words[w]);
      else
        ck_assert_msg(n > 0 && n < len && flags == 0, "%s", words[w]);
    }
    static const char bad[] = {'\x01', '\x7f', '\x20', '\x80'};
    for (size_t k = 2; k + 2 < len; k++)
      for (size_t b = 0; b < sizeof bad; b++) {
        memcpy(in, words[w], len);
        if (in[k] == '?')
          continue;
        in[k] = bad[b];
        flags = 0;
        ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, &n, &flags, in, len), 0);
        ck_assert_msg(!(flags & MP_TYPED_ENCWORD_PLACEMENT) && n >= len - 2,
                      "byte %zu of %s as %02x decoded", k, words[w], (unsigned char)bad[b]);
      }
  }
}
END_TEST

START_TEST(arguments) {
  char out[8];
  size_t n;
  ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, NULL, NULL, "a", 1), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_rfc2047_decode(NULL, 8, &n, NULL, "a", 1), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_rfc2047_decode(out, sizeof out, &n, NULL, NULL, 1), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_rfc2047_decode(NULL, 0, &n, NULL, NULL, 0), 0);
  ck_assert_uint_eq(n, 0);
  ck_assert_uint_eq(mp_typed_text_max_len(SIZE_MAX), SIZE_MAX);
}
END_TEST

// The tokenizer (rfc2047.c): mp_tok_next, the inline path for plain atoms,
// specials and white space, must give exactly the tokens of
// mp_tok_next_full, the whole tokenizer, with the cursor in the same place,
// on text made of the bytes that steer it (comments, quotes, literals,
// escapes, encoded words, folds and 8-bit bytes), both with comments as
// tokens and as white space.
static uint64_t tok_rng = 0x2545F4914F6CDD1Du;

static uint64_t tok_rnd(void) {
  tok_rng ^= tok_rng << 13;
  tok_rng ^= tok_rng >> 7;
  tok_rng ^= tok_rng << 17;
  return tok_rng;
}

START_TEST(tokenizer_inline_matches_full) {
  static const char *const pieces[] = {
      "a",
      "word",
      "x.y",
      " ",
      "\t",
      "\r\n ",
      "(",
      ")",
      "(c (n) x)",
      "\"",
      "\"q\"",
      "\\",
      "\\\"",
      "[",
      "]",
      "[1.2.3.4]",
      "<",
      ">",
      "@",
      ",",
      ";",
      ":",
      ".",
      "=",
      "=?",
      "?=",
      "=?utf-8?q?a;b?=",
      "==",
      "\xC3\xA9",
      "\xFF",
      "=?x?b?QQ==?=",
      "a=b",
      "?",
      "/",
  };
  enum { NP = sizeof pieces / sizeof pieces[0] };
  char buf[256];
  size_t tokens = 0;
  for (int it = 0; it < 20000; it++) {
    size_t n = 0, want = tok_rnd() % 60;
    while (n < want) {
      const char *p = pieces[tok_rnd() % NP];
      size_t k = strlen(p);
      memcpy(buf + n, p, k);
      n += k;
    }
    for (int comments = 0; comments < 2; comments++) {
      struct mp_cur a, b;
      mp_cur_init(&a, buf, n);
      mp_cur_init(&b, buf, n);
      for (;;) {
        struct mp_tok ta, tb;
        mp_tok_next(&a, &ta, comments != 0);
        mp_tok_next_full(&b, &tb, comments != 0);
        ck_assert_msg(ta.type == tb.type && ta.p == tb.p && ta.len == tb.len &&
                          ta.ws_before == tb.ws_before && ta.unterminated == tb.unterminated &&
                          a.p == b.p && a.len == b.len,
                      "input %.*s: token at %td differs", (int)n, buf,
                      (const char *)tb.p - (const char *)buf);
        tokens++;
        if (ta.type == MP_TOK_END)
          break;
      }
    }
  }
  ck_assert_uint_gt(tokens, 100000);
}
END_TEST

// Comments, quoted strings and domain literals end where a byte-at-a-time
// reading of RFC 5322 §3.2 ends them (a backslash quotes the next byte,
// comments nest up to MP_TYPED_MAX_COMMENT_DEPTH); the tokenizer finds the
// bytes that matter 16 at a time, so long ones with those bytes at every
// offset are compared with this reference.
static size_t delimited_end(const uint8_t *p, size_t n, bool *closed) {
  uint8_t open = p[0], close = open == '(' ? ')' : open == '[' ? ']' : '"';
  unsigned depth = 1;
  for (size_t i = 1; i < n; i++) {
    if (p[i] == '\\')
      i++;
    else if (p[i] == close && --depth == 0) {
      *closed = true;
      return i + 1;
    } else if (p[i] == open && open == '(' && depth < MP_TYPED_MAX_COMMENT_DEPTH)
      depth++;
  }
  *closed = false;
  return n;
}

START_TEST(delimited_tokens_end_right) {
  static const char fill[] = "ab ()\\\"[]xyz.,;  \t";
  uint8_t buf[120];
  for (int it = 0; it < 20000; it++) {
    size_t n = 1 + tok_rnd() % sizeof buf;
    buf[0] = "(\"["[it % 3];
    for (size_t i = 1; i < n; i++)
      buf[i] = tok_rnd() % 4 == 0 ? (uint8_t)fill[tok_rnd() % (sizeof fill - 1)] : 'w';
    bool closed;
    size_t end = delimited_end(buf, n, &closed);
    struct mp_cur c;
    mp_cur_init(&c, buf, n);
    struct mp_tok t;
    mp_tok_next_full(&c, &t, true);
    ck_assert_msg((size_t)(c.p - buf) == end && t.unterminated == !closed, "%.*s: %td, want %zu",
                  (int)n, buf, c.p - buf, end);
  }
}
END_TEST

// Plain text (no NUL, 8-bit byte or "=?") takes a short path in
// mp_rfc2047_decode: it must give what the text builder gives, byte for
// byte and with the same flags, for every mix of words, white space, folds
// and stray CR and LF, and fail the same way with a buffer one byte short.
// builder_text is what the general text builder makes of unstructured
// text `in`: the reference for the plain-text fast path. It returns the
// length written to `want` and its flags in *flags.
static size_t builder_text(char *want, size_t cap, unsigned *flags, const char *in, size_t n) {
  struct mp_tb tb;
  mp_tb_init(&tb, want, cap);
  mp_tb_begin(&tb);
  mp_tb_text(&tb, (const uint8_t *)in, n, true);
  const char *w;
  size_t wn;
  mp_tb_end(&tb, &w, &wn);
  ck_assert_int_eq(tb.err, 0);
  ck_assert(wn == 0 || w == want); // NULL when empty
  *flags = tb.flags;
  return wn;
}

START_TEST(plain_text_matches_builder) {
  static const char *const pieces[] = {"a",  "Word", " ",   "  ", "\t", "\r\n ", "\r\n\t", "\r",
                                       "\n", "=",    "a=b", "?",  "=x", "x=",    "(c)",    "\"q\""};
  enum { NP = sizeof pieces / sizeof pieces[0] };
  char in[200], want[1024], got[1024];
  size_t nonempty = 0;
  for (int it = 0; it < 20000; it++) {
    size_t n = 0, len = tok_rnd() % 40;
    while (n < len) {
      const char *p = pieces[tok_rnd() % NP];
      size_t k = strlen(p);
      memcpy(in + n, p, k);
      n += k;
    }
    if (n > 0 && in[n - 1] == '=') // "=" then "?" would be an encoded word
      in[n - 1] = 'z';
    unsigned want_flags;
    size_t wn = builder_text(want, sizeof want, &want_flags, in, n);
    size_t gn = 99;
    unsigned flags = 99;
    ck_assert_int_eq(mp_rfc2047_decode(got, sizeof got, &gn, &flags, in, n), 0);
    ck_assert_msg(gn == wn && (wn == 0 || memcmp(got, want, wn) == 0), "input %.*s", (int)n, in);
    ck_assert_uint_eq(flags, want_flags);
    if (wn > 0) {
      nonempty++;
      ck_assert_int_eq(mp_rfc2047_decode(got, wn - 1, &gn, &flags, in, n), MP_ERR_BUFFER_TOO_SMALL);
      ck_assert_uint_eq(gn, 0);
    }
  }
  ck_assert_uint_gt(nonempty, 10000);
}
END_TEST

// The plain-text check reads 16 bytes a step: a "=?", an 8-bit byte, a NUL
// or an encoded word at every offset around the block edges (a '=' last in
// a block with its '?' first in the next one too) must give what the text
// builder gives.
START_TEST(plain_check_at_every_offset) {
  static const struct {
    const char *p;
    size_t n;
  } specials[] = {{"=?", 2}, {"\xe9", 1}, {"\0", 1}, {"\xc3\xa9", 2}, {"=?utf-8?q?Z?=", 13}};
  char in[128], want[1024], got[1024];
  for (size_t sp = 0; sp < sizeof specials / sizeof specials[0]; sp++)
    for (size_t lead = 0; lead < 40; lead++)
      for (size_t tail = 0; tail < 20; tail++) {
        size_t n = 0;
        for (size_t k = 0; k < lead; k++)
          in[n++] = (char)('a' + k % 26);
        memcpy(in + n, specials[sp].p, specials[sp].n);
        n += specials[sp].n;
        for (size_t k = 0; k < tail; k++)
          in[n++] = k % 7 == 3 ? '=' : 'x';
        unsigned want_flags;
        size_t wn = builder_text(want, sizeof want, &want_flags, in, n);
        size_t gn = 0;
        unsigned flags = 0;
        ck_assert_int_eq(mp_rfc2047_decode(got, sizeof got, &gn, &flags, in, n), 0);
        ck_assert_msg(gn == wn && memcmp(got, want, wn) == 0 && flags == want_flags,
                      "special %zu, lead %zu, tail %zu", sp, lead, tail);
      }
}
END_TEST

// Decoded CR and LF become spaces at any offset of a long word, found 8
// bytes at a time (a decoded NUL is already U+FFFD by then); other control
// bytes stay, with no repair flagged.
START_TEST(decoded_controls_at_every_offset) {
  static const char *const ctl[] = {"=0D", "=0A"};
  char in[256], want[128], got[256];
  for (size_t c = 0; c < 2; c++)
    for (size_t lead = 0; lead < 24; lead++)
      for (size_t tail = 0; tail < 12; tail++) {
        size_t n = 0, wn = 0;
        memcpy(in, "=?utf-8?q?", 10);
        n = 10;
        for (size_t k = 0; k < lead; k++) {
          in[n++] = (char)('a' + k % 26);
          want[wn++] = (char)('a' + k % 26);
        }
        memcpy(in + n, ctl[c], 3);
        n += 3;
        want[wn++] = ' ';
        for (size_t k = 0; k < tail; k++) {
          in[n++] = 'b';
          want[wn++] = 'b';
        }
        memcpy(in + n, "?=", 2);
        n += 2;
        size_t gn = 0;
        unsigned flags = 0;
        ck_assert_int_eq(mp_rfc2047_decode(got, sizeof got, &gn, &flags, in, n), 0);
        ck_assert_msg(gn == wn && memcmp(got, want, wn) == 0 && (flags & MP_TYPED_REPAIRED),
                      "ctl %zu, lead %zu, tail %zu: %.*s", c, lead, tail, (int)gn, got);
      }
  // Bytes just above and around them (the word test's false hits) stay.
  static const char in2[] = "=?utf-8?q?=01=09=0B=0C=0E=0F=10=1Fabcdefgh=0E=0D=0E?=";
  static const char want2[] = "\x01\x09\x0b\x0c\x0e\x0f\x10\x1f"
                              "abcdefgh\x0e \x0e";
  size_t gn = 0;
  unsigned flags = 0;
  ck_assert_int_eq(mp_rfc2047_decode(got, sizeof got, &gn, &flags, in2, sizeof in2 - 1), 0);
  ck_assert_msg(gn == sizeof want2 - 1 && memcmp(got, want2, gn) == 0, "%.*s", (int)gn, got);
  ck_assert_uint_ne(flags & MP_TYPED_REPAIRED, 0);
  static const char in3[] = "=?utf-8?q?=01=09=0B=0C=0E=0F=10=1Fabcdefgh=0E?=";
  ck_assert_int_eq(mp_rfc2047_decode(got, sizeof got, &gn, &flags, in3, sizeof in3 - 1), 0);
  ck_assert_uint_eq(gn, 17);
  ck_assert_uint_eq(flags & MP_TYPED_REPAIRED, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rfc2047");
  TCase *tc = tcase_create("decode");
  tcase_add_loop_test(tc, decode_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, unknown_charset);
  tcase_add_test(tc, overlong_word_is_literal);
  tcase_add_test(tc, word_edges_are_literal);
  tcase_add_test(tc, arguments);
  tcase_add_test(tc, tokenizer_inline_matches_full);
  tcase_add_test(tc, plain_text_matches_builder);
  tcase_add_test(tc, plain_check_at_every_offset);
  tcase_add_test(tc, decoded_controls_at_every_offset);
  tcase_add_test(tc, delimited_tokens_end_right);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
