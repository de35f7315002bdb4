// test_query.c: the query parser: each construct gives the expected tree
// (through the canonical description, which parses back to itself), syntax
// errors carry the offset of the problem, and the length, depth and term
// limits are enforced.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "corvid_libtest.h"
#include "ftsearch.h"

static const struct {
  const char *in, *out;
} ok_cases[] = {
    {"word", "word"},
    {"  two words ", "(two AND words)"},
    {"a AND b", "(a AND b)"},
    {"a OR b", "(a OR b)"},
    {"a b OR c d", "((a AND b) OR (c AND d))"},
    {"a (b OR c)", "(a AND (b OR c))"},
    {"NOT a", "NOT a"},
    {"-a b", "(NOT a AND b)"},
    {"a -\"x y\"", "(a AND NOT \"x y\")"},
    {"-(a OR b)", "NOT (a OR b)"},
    {"NOT NOT a", "NOT NOT a"},
    {"\"exact phrase here\"", "\"exact phrase here\""},
    {"invoic*", "invoic*"},
    {"subject:hello", "subject:hello"},
    {"Subject:hello", "subject:hello"},
    {"from:\"Alice B\"", "from:\"Alice B\""},
    {"body:pay*", "body:pay*"},
    {"subject:(a OR b) c", "((subject:a OR subject:b) AND c)"},
    {"subject:(a body:b)", "(subject:a AND body:b)"},
    {"http://example.com/x", "http://example.com/x"},
    {"unknown:word", "unknown:word"},
    {"and or not", "(and AND or AND not)"},
    {"-", "-"},
    {"*", "*"},
    {"a*b", "a*b"},
    {"((a))", "a"},
    {"a\t\r\nb", "(a AND b)"},
    {"field15:x", "field15:x"},
    {"\"\"", "\"\""},
    {"x -", "(x AND -)"},
    {"subject:(la -)", "(subject:la AND subject:-)"},
    {"subject:-", "subject:-"},
};

START_TEST(constructs_and_canonical_form) {
  for (size_t i = 0; i < sizeof ok_cases / sizeof ok_cases[0]; i++) {
    fts_query *q;
    size_t off = 99;
    int rc = fts_query_parse(&q, NULL, ok_cases[i].in, strlen(ok_cases[i].in), &off);
    ck_assert_msg(rc == 0, "%s: %d at %zu", ok_cases[i].in, rc, off);
    char out[256];
    size_t len;
    ck_assert_int_eq(fts_query_describe(q, out, sizeof out, &len), 0);
    ck_assert_msg(strcmp(out, ok_cases[i].out) == 0, "%s: got %s", ok_cases[i].in, out);
    ck_assert_uint_eq(len, strlen(out));
    // The description reads back as itself.
    fts_query *q2;
    ck_assert_int_eq(fts_query_parse(&q2, NULL, out, len, NULL), 0);
    char out2[256];
    size_t len2;
    ck_assert_int_eq(fts_query_describe(q2, out2, sizeof out2, &len2), 0);
    ck_assert_str_eq(out2, out);
    // Too small a buffer reports the length needed.
    ck_assert_int_eq(fts_query_describe(q, out, len, &len2), FTS_ERR_LIMIT);
    ck_assert_uint_eq(len2, len);
    fts_query_free(q);
    fts_query_free(q2);
  }
}
END_TEST

static const struct {
  const char *in;
  int code;
  size_t off;
} bad_cases[] = {
    {"", FTS_ERR_QUERY_SYNTAX, 0},
    {"   ", FTS_ERR_QUERY_SYNTAX, 3},
    {"(a", FTS_ERR_QUERY_SYNTAX, 0},
    {"a)", FTS_ERR_QUERY_SYNTAX, 1},
    {"a \"b c", FTS_ERR_QUERY_SYNTAX, 2},
    {"a OR", FTS_ERR_QUERY_SYNTAX, 4},
    {"OR a", FTS_ERR_QUERY_SYNTAX, 0},
    {"a AND", FTS_ERR_QUERY_SYNTAX, 5},
    {"a AND OR b", FTS_ERR_QUERY_SYNTAX, 6},
    {"NOT", FTS_ERR_QUERY_SYNTAX, 3},
    {"subject:", FTS_ERR_QUERY_SYNTAX, 8},
    {"subject: x", FTS_ERR_QUERY_SYNTAX, 8},
    {"subject:-x", FTS_ERR_QUERY_SYNTAX, 8},
    {"()", FTS_ERR_QUERY_SYNTAX, 1},
    {"a (b OR ) c", FTS_ERR_QUERY_SYNTAX, 8},
};

START_TEST(syntax_errors_carry_offsets) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    fts_query *q = (fts_query *)1;
    size_t off = 999;
    int rc = fts_query_parse(&q, NULL, bad_cases[i].in, strlen(bad_cases[i].in), &off);
    ck_assert_msg(rc == bad_cases[i].code && off == bad_cases[i].off, "'%s': %d at %zu",
                  bad_cases[i].in, rc, off);
    ck_assert_ptr_null(q);
  }
  fts_query *q;
  ck_assert_int_eq(fts_query_parse(NULL, NULL, "a", 1, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_query_parse(&q, NULL, NULL, 1, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_query_describe(NULL, NULL, 0, NULL), FTS_ERR_INVALID_ARGUMENT);
  fts_query_free(NULL);
}
END_TEST

START_TEST(limits) {
  fts_query_settings s = {.max_len = 10, .max_depth = 3, .max_terms = 4};
  fts_query *q;
  size_t off;
  ck_assert_int_eq(fts_query_parse(&q, &s, "0123456789", 10, &off), 0);
  fts_query_free(q);
  ck_assert_int_eq(fts_query_parse(&q, &s, "0123456789a", 11, &off), FTS_ERR_LIMIT);
  ck_assert_uint_eq(off, 10);
  ck_assert_int_eq(fts_query_parse(&q, &s, "(((a)))", 7, &off), 0);
  fts_query_free(q);
  ck_assert_int_eq(fts_query_parse(&q, &s, "((((a))))", 9, &off), FTS_ERR_LIMIT);
  ck_assert_uint_eq(off, 3);
  ck_assert_int_eq(fts_query_parse(&q, &s, "--(-a)", 6, &off), FTS_ERR_LIMIT);
  ck_assert_int_eq(fts_query_parse(&q, &s, "a b c d", 7, &off), 0);
  fts_query_free(q);
  ck_assert_int_eq(fts_query_parse(&q, &s, "a b c d e", 9, &off), FTS_ERR_LIMIT);
  ck_assert_uint_eq(off, 8);
  // Defaults: deep nesting stops at FTS_DEFAULT_MAX_QUERY_DEPTH, not the stack.
  char deep[2 * 4000 + 2];
  memset(deep, '(', 2000);
  deep[2000] = 'a';
  memset(deep + 2001, ')', 2000);
  ck_assert_int_eq(fts_query_parse(&q, NULL, deep, 4001, &off), FTS_ERR_LIMIT);
  ck_assert_uint_eq(off, FTS_DEFAULT_MAX_QUERY_DEPTH);
  memset(deep, '-', 4000);
  deep[4000] = 'a';
  ck_assert_int_eq(fts_query_parse(&q, NULL, deep, 4001, &off), FTS_ERR_LIMIT);
  ck_assert_int_eq(fts_query_parse(&q, NULL, deep, FTS_DEFAULT_MAX_QUERY_LEN + 1, &off),
                   FTS_ERR_LIMIT);
  ck_assert_uint_eq(off, FTS_DEFAULT_MAX_QUERY_LEN);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-query");
  TCase *tc = tcase_create("query");
  tcase_add_test(tc, constructs_and_canonical_form);
  tcase_add_test(tc, syntax_errors_carry_offsets);
  tcase_add_test(tc, limits);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
