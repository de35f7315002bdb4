// test_rfc2047.c: mp_rfc2047_decode (src/rfc2047.c): the RFC 2047 §8
// examples, RFC 2231 §5 language suffixes, real-world breakages (encoded
// words glued to text, split UTF-8 characters, bad padding, raw 8-bit),
// buffer sizing and argument errors.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

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

int main(void) {
  Suite *s = suite_create("rfc2047");
  TCase *tc = tcase_create("decode");
  tcase_add_loop_test(tc, decode_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, unknown_charset);
  tcase_add_test(tc, overlong_word_is_literal);
  tcase_add_test(tc, arguments);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
