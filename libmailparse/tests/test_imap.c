// test_imap.c: the IMAP views (imap.c): BODY and BODYSTRUCTURE of single
// and multipart messages, message/rfc822 with its ENVELOPE, defaults, NIL for
// an unparsable disposition and an empty language list, the depth limit,
// literals for 8-bit strings, groups, and the size query.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mailparse.h"

static char *render(const char *msg, uint32_t part, int mode) {
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, strlen(msg), NULL), 0);
  size_t need = 0, n = 0;
  int rc = mode == 2 ? mp_part_envelope(m, part, NULL, 0, &need)
                     : mp_part_bodystructure(m, part, mode, NULL, 0, &need);
  ck_assert_int_eq(rc, 0);
  char *out = malloc(need + 1);
  if (need > 0) {
    rc = mode == 2 ? mp_part_envelope(m, part, out, need - 1, &n)
                   : mp_part_bodystructure(m, part, mode, out, need - 1, &n);
    ck_assert_int_eq(rc, MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n, 0);
  }
  rc = mode == 2 ? mp_part_envelope(m, part, out, need, &n)
                 : mp_part_bodystructure(m, part, mode, out, need, &n);
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(n, need);
  out[n] = 0;
  mp_message_free(m);
  return out;
}

static const struct {
  const char *msg;
  uint32_t part;
  int mode; // 0 BODY, 1 BODYSTRUCTURE, 2 ENVELOPE
  const char *want;
} cases[] = {
    {"Subject: x\r\n\r\nhello\r\nworld\r\n", 0, 0,
     "(\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7BIT\" 14 2)"},
    {"Content-Type: TEXT/HTML; Charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n"
     "Content-ID: <a@b>\r\nContent-Description: the\r\n desc\r\n"
     "Content-Disposition: inline; filename=\"a b.html\"\r\nContent-Language: en, de\r\n"
     "Content-Location: http://x/\r\nContent-MD5: Q==\r\n\r\nPGI+\r\n",
     0, 1,
     "(\"text\" \"html\" (\"charset\" \"UTF-8\") \"<a@b>\" \"the desc\" \"BASE64\" 6 1 \"Q==\" "
     "(\"inline\" (\"filename\" \"a b.html\")) (\"en\" \"de\") \"http://x/\")"},
    {"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nA\r\n--b\r\n"
     "Content-Type: application/pdf; name=x.pdf\r\n\r\nPDF\r\n--b--\r\n",
     0, 0,
     "((\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7BIT\" 1 1)"
     "(\"application\" \"pdf\" (\"name\" \"x.pdf\") NIL NIL \"7BIT\" 3) \"mixed\")"},
    {"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nA\r\n--b--\r\n", 0, 1,
     "((\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7BIT\" 1 1 NIL NIL NIL NIL) "
     "\"mixed\" (\"boundary\" \"b\") NIL NIL NIL)"},
    {"Content-Type: message/rfc822\r\n\r\nFrom: Ann <ann@x.org>\r\nSubject: in\r\n\r\nbody\r\n", 0,
     0,
     "(\"message\" \"rfc822\" NIL NIL NIL \"7BIT\" 44 (NIL \"in\" ((\"Ann\" NIL \"ann\" "
     "\"x.org\")) ((\"Ann\" NIL \"ann\" \"x.org\")) ((\"Ann\" NIL \"ann\" \"x.org\")) NIL NIL "
     "NIL NIL NIL) (\"text\" \"plain\" (\"charset\" \"us-ascii\") NIL NIL \"7BIT\" 6 1) 4)"},
    {"Date: Mon, 1 Jan 2024 10:00:00 +0000\r\nSubject: caf\xc3\xa9 \"q\"\r\n"
     "From: a@x\r\nSender: s@x\r\nTo: team: b@x, c@y;, d@z\r\nMessage-ID: <m@x>\r\n"
     "In-Reply-To: <p@x>\r\n\r\n",
     0, 2,
     "(\"Mon, 1 Jan 2024 10:00:00 +0000\" {9}\r\ncaf\xc3\xa9 \"q\" ((NIL NIL \"a\" \"x\")) "
     "((NIL NIL \"s\" \"x\")) ((NIL NIL \"a\" \"x\")) ((NIL NIL \"team\" NIL)(NIL NIL \"b\" "
     "\"x\")(NIL NIL \"c\" \"y\")(NIL NIL NIL NIL)(NIL NIL \"d\" \"z\")) NIL NIL \"<p@x>\" "
     "\"<m@x>\")"},
    // A Content-Disposition that does not parse and a Content-Language of
    // no tags are NIL, not empty lists (RFC 3501's body-fld-dsp and
    // body-fld-lang); a Content-Type without parameters has NIL parameters.
    {"Content-Type: text/plain\r\nContent-Disposition: ;\r\nContent-Language: , ,\r\n\r\nhi\r\n", 0,
     1, "(\"text\" \"plain\" NIL NIL NIL \"7BIT\" 4 1 NIL NIL NIL NIL)"},
};

START_TEST(test_imap_cases) {
  char *got = render(cases[_i].msg, cases[_i].part, cases[_i].mode);
  ck_assert_msg(strcmp(got, cases[_i].want) == 0, "case %d:\n got %s\nwant %s", _i, got,
                cases[_i].want);
  free(got);
}
END_TEST

START_TEST(test_imap_args) {
  mp_message *m = NULL;
  size_t n;
  ck_assert_int_eq(mp_message_parse(&m, NULL, "x", 1, NULL), 0);
  ck_assert_int_eq(mp_part_bodystructure(m, 1, 1, NULL, 0, &n), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_part_bodystructure(NULL, 0, 1, NULL, 0, &n), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_part_envelope(m, 0, NULL, 5, &n), MP_ERR_INVALID_ARGUMENT);
  mp_message_free(m);
}
END_TEST

// Parts nested deeper than BODYSTRUCTURE recurses (256) are MP_ERR_LIMIT, for
// a caller whose parser settings allow them; 256 levels are written.
static char *nested(unsigned levels) {
  size_t cap = (size_t)levels * 80 + 64, n = 0;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  for (unsigned i = 0; i < levels; i++)
    n += (size_t)snprintf(msg + n, cap - n,
                          "Content-Type: multipart/mixed; boundary=b%u\r\n\r\n--b%u\r\n", i, i);
  n += (size_t)snprintf(msg + n, cap - n, "\r\ninnermost\r\n");
  return msg;
}

START_TEST(test_imap_depth_limit) {
  mp_settings deep = MP_SETTINGS_INIT;
  deep.max_depth = 1000;
  for (unsigned levels = 255; levels <= 258; levels++) {
    char *msg = nested(levels);
    mp_message *m = NULL;
    ck_assert_int_eq(mp_message_parse(&m, &deep, msg, strlen(msg), NULL), 0);
    size_t n = 0;
    int rc = mp_part_bodystructure(m, 0, 1, NULL, 0, &n);
    if (levels <= 256) // the root is depth 0, the innermost text part `levels`
      ck_assert_msg(rc == 0 && n > 0, "%u levels: %d", levels, rc);
    else
      ck_assert_int_eq(rc, MP_ERR_LIMIT);
    mp_message_free(m);
    free(msg);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("imap");
  TCase *tc = tcase_create("imap");
  tcase_add_loop_test(tc, test_imap_cases, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, test_imap_args);
  tcase_add_test(tc, test_imap_depth_limit);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
