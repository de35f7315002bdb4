// test_header.c: the header section (header.c): folding, bare LF, obsolete
// syntax, lines without a colon, NUL and 8-bit bytes, long lines, the
// ranges of every field, lookup by name and unfolding.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mailparse.h"

static mp_message *parse(const char *s) {
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, s, strlen(s), NULL), 0);
  ck_assert_ptr_nonnull(m);
  return m;
}

static int range_eq(const char *buf, mp_range r, const char *want) {
  return r.len == strlen(want) && memcmp(buf + r.off, want, r.len) == 0;
}

// Each case: a message, then per indexed field its name, raw value and
// flags; the expected body start.
struct hcase {
  const char *msg;
  size_t n;
  struct {
    const char *name, *value;
    uint32_t flags;
  } h[4];
  const char *body;
};

static const struct hcase cases[] = {
    {"Subject: hi\r\nFrom: a@b\r\n\r\nbody",
     2,
     {{"Subject", " hi", 0}, {"From", " a@b", 0}},
     "body"},
    // Bare LF line ends (RFC 5322 says CRLF; Unix mailboxes use LF).
    {"Subject: hi\nFrom: a@b\n\nbody",
     2,
     {{"Subject", " hi", MP_HEADER_BARE_LF}, {"From", " a@b", MP_HEADER_BARE_LF}},
     "body"},
    // Folding (2.2.3) keeps the raw value with its line breaks.
    {"Subject: a\r\n b\r\n\tc\r\nX: y\r\n\r\n",
     2,
     {{"Subject", " a\r\n b\r\n\tc", 0}, {"X", " y", 0}},
     ""},
    // Obsolete whitespace before the colon (4.5.3 obs-optional).
    {"Subject  : old\r\n\r\nx", 1, {{"Subject", " old", MP_HEADER_NAME_WSP}}, "x"},
    // A line without a colon is kept and flagged, not fatal.
    {"From me\r\nTo: x\r\n\r\nb", 2, {{"", "From me", MP_HEADER_NO_COLON}, {"To", " x", 0}}, "b"},
    // UTF-8 value (RFC 6532) and a NUL byte.
    {"Subject: caf\xc3\xa9\r\n\r\n", 1, {{"Subject", " caf\xc3\xa9", MP_HEADER_8BIT}}, ""},
    // Empty value, colon first.
    {"X:\r\n:y\r\n\r\n", 2, {{"X", "", 0}, {"", "y", 0}}, ""},
    // No empty line: all header, empty body.
    {"A: 1\r\nB: 2", 2, {{"A", " 1", 0}, {"B", " 2", 0}}, ""},
    // Empty message and body only.
    {"", 0, {{0}}, ""},
    {"\r\nonly body", 0, {{0}}, "only body"},
    // A continuation line first: kept as a field, flagged.
    {" lead\r\nA: 1\r\n\r\n",
     2,
     {{"", " lead", MP_HEADER_NO_COLON | MP_HEADER_CONTINUED}, {"A", " 1", 0}},
     ""},
    // Whitespace-only continuation lines (obs-FWS) stay in the field.
    {"A: 1\r\n \r\nB: 2\r\n\r\n", 2, {{"A", " 1\r\n ", 0}, {"B", " 2", 0}}, ""},
    // A bare CR is data, not a line end (RFC 5322 2.3; DIFFERENCES.md
    // "bare-cr"): "B: 2" stays in the value of A, flagged.
    {"A: 1\rB: 2\r\nC: 3\r\n\r\nx", 2, {{"A", " 1\rB: 2", MP_HEADER_BARE_CR}, {"C", " 3", 0}}, "x"},
    // A line starting with lone CRs does not end the header section: its
    // CRs are bytes of the next field (here of its name), and the body
    // starts after the real empty line.
    {"A: 1\r\n\r\rB: 2\r\n\r\nx", 2, {{"A", " 1", 0}, {"\r\rB", " 2", MP_HEADER_BARE_CR}}, "x"},
    {"A: 1\r\n\r\rB 2\r\n\r\nx",
     2,
     {{"A", " 1", 0}, {"", "\r\rB 2", MP_HEADER_NO_COLON | MP_HEADER_BARE_CR}},
     "x"},
    // Old Mac line ends (CR only): one long field, the body after none.
    {"A: 1\rB: 2\r\rbody", 1, {{"A", " 1\rB: 2\r\rbody", MP_HEADER_BARE_CR}}, ""},
};

START_TEST(test_header_cases) {
  const struct hcase *c = &cases[_i];
  mp_message *m = parse(c->msg);
  ck_assert_uint_eq(mp_message_num_headers(m), c->n);
  const mp_part *root = mp_message_part(m, 0);
  ck_assert_uint_eq(root->num_headers, c->n);
  for (size_t i = 0; i < c->n; i++) {
    const mp_header *h = mp_message_header(m, i);
    ck_assert_msg(range_eq(c->msg, h->name, c->h[i].name), "case %d field %zu name", _i, i);
    ck_assert_msg(range_eq(c->msg, h->value, c->h[i].value), "case %d field %zu value", _i, i);
    ck_assert_msg(h->flags == c->h[i].flags, "case %d field %zu flags %x", _i, i, h->flags);
    ck_assert_uint_eq(h->part, 0);
    ck_assert_uint_le(h->field.off + h->field.len, strlen(c->msg));
    ck_assert_uint_le(h->name.off, h->value.off);
  }
  ck_assert_msg(range_eq(c->msg, root->body, c->body), "case %d body", _i);
  ck_assert_uint_eq(root->header.off + root->header.len, root->body.off);
  mp_message_free(m);
}
END_TEST

START_TEST(test_header_nul_and_long_line) {
  char buf[3000];
  memcpy(buf, "A: x\0y\r\nB: ", 11);
  memset(buf + 11, 'z', 1200);
  memcpy(buf + 1211, "\r\n\r\n", 4);
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, buf, 1215, NULL), 0);
  ck_assert_uint_eq(mp_message_num_headers(m), 2);
  ck_assert(mp_message_header(m, 0)->flags & MP_HEADER_NUL);
  ck_assert_uint_eq(mp_message_header(m, 0)->value.len, 4);
  ck_assert(mp_message_header(m, 1)->flags & MP_HEADER_LONG_LINE);
  ck_assert_uint_eq(mp_message_header(m, 1)->value.len, 1201);
  uint32_t pr = mp_message_problems(m);
  ck_assert(pr & (1u << MP_PROBLEM_NUL));
  ck_assert(pr & (1u << MP_PROBLEM_LONG_LINE));
  ck_assert_uint_ge(mp_message_num_problems(m), 2);
  ck_assert_uint_eq(mp_message_problem(m, 0)->offset, 4); // the NUL
  mp_message_free(m);
  // A custom line limit: 1200 bytes are fine with max_line_len 2000.
  mp_settings s = MP_SETTINGS_INIT;
  s.max_line_len = 2000;
  ck_assert_int_eq(mp_message_parse(&m, &s, buf, 1215, NULL), 0);
  ck_assert(!(mp_message_header(m, 1)->flags & MP_HEADER_LONG_LINE));
  mp_message_free(m);
}
END_TEST

// Bare CR in the structure: a delimiter line must end in LF or CRLF, and
// line counts count line feeds only.
START_TEST(test_bare_cr_structure) {
  static const char msg[] = "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
                            "--b\r\n\r\none\rtwo\r\n--b\rnot a delimiter\r\n"
                            "--b\r\n\r\nthree\r\n--b--\r\n";
  mp_message *m = parse(msg);
  ck_assert_uint_eq(mp_message_num_parts(m), 3);
  const mp_part *p1 = mp_message_part(m, 1);
  ck_assert(range_eq(msg, p1->body, "one\rtwo\r\n--b\rnot a delimiter"));
  ck_assert_uint_eq(p1->lines, 2);
  ck_assert(range_eq(msg, mp_message_part(m, 2)->body, "three"));
  mp_message_free(m);
  // The same through the header-only mode: the flag is the same.
  mp_message *h = NULL;
  static const char hdr[] = "Subject: a\rb\r\n\r\n";
  ck_assert_int_eq(mp_message_parse_headers(&h, NULL, hdr, sizeof hdr - 1, NULL), 0);
  ck_assert_uint_eq(mp_message_num_headers(h), 1);
  ck_assert_uint_eq(mp_message_header(h, 0)->flags, MP_HEADER_BARE_CR);
  mp_message_free(h);
}
END_TEST

START_TEST(test_header_max_headers) {
  const char *msg = "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\nbody";
  mp_settings s = MP_SETTINGS_INIT;
  s.max_headers = 2;
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, &s, msg, strlen(msg), NULL), 0);
  ck_assert_uint_eq(mp_message_num_headers(m), 2);
  ck_assert(mp_message_problems(m) & (1u << MP_PROBLEM_HEADERS));
  ck_assert(range_eq(msg, mp_message_part(m, 0)->body, "body"));
  mp_message_free(m);
}
END_TEST

START_TEST(test_header_find) {
  const char *msg = "Received: a\r\nSUBJECT: s\r\nreceived: b\r\nX: 1\r\n\r\n";
  mp_message *m = parse(msg);
  ck_assert_int_eq(mp_message_header_find(m, 0, 0, "subject", 7), 1);
  ck_assert_int_eq(mp_message_header_find(m, 0, 0, "Received", 8), 0);
  ck_assert_int_eq(mp_message_header_find(m, 0, 1, "Received", 8), 2);
  ck_assert_int_eq(mp_message_header_find(m, 0, 3, "Received", 8), -1);
  ck_assert_int_eq(mp_message_header_find(m, 0, 0, "Receive", 7), -1);
  ck_assert_int_eq(mp_message_header_find(m, 1, 0, "X", 1), -1); // no part 1
  mp_message_free(m);
}
END_TEST

static const struct {
  const char *in, *out;
} unfold_cases[] = {
    {" a\r\n b", "a b"},       {" a\n\tb", "a\tb"},
    {"  plain  ", "plain"},    {"", ""},
    {" x\r\n \r\n y", "x  y"}, {"a\rb", "a\rb"},
    {"\r\n folded", "folded"}, {"caf\xc3\xa9", "caf\xc3\xa9"},
};

START_TEST(test_header_unfold) {
  char out[64];
  size_t n = 99;
  const char *in = unfold_cases[_i].in, *want = unfold_cases[_i].out;
  ck_assert_int_eq(mp_header_unfold(out, sizeof out, &n, in, strlen(in)), 0);
  ck_assert_uint_eq(n, strlen(want));
  ck_assert(memcmp(out, want, n) == 0);
  if (n > 0) {
    ck_assert_int_eq(mp_header_unfold(out, n - 1, &n, in, strlen(in)), MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n, 0);
  }
}
END_TEST

START_TEST(test_header_unfold_args) {
  size_t n;
  char o[4];
  ck_assert_int_eq(mp_header_unfold(o, 4, NULL, "a", 1), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_header_unfold(o, 4, &n, NULL, 1), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_header_unfold(NULL, 4, &n, "a", 1), MP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("header");
  TCase *tc = tcase_create("header");
  tcase_add_loop_test(tc, test_header_cases, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, test_header_nul_and_long_line);
  tcase_add_test(tc, test_header_max_headers);
  tcase_add_test(tc, test_bare_cr_structure);
  tcase_add_test(tc, test_header_find);
  tcase_add_loop_test(tc, test_header_unfold, 0,
                      (int)(sizeof unfold_cases / sizeof unfold_cases[0]));
  tcase_add_test(tc, test_header_unfold_args);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
