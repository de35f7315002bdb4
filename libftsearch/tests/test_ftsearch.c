// test_ftsearch.c: libftsearch's version and error reporting: the header
// macros, fts_version() and the installed pkg-config file agree, and every
// error code has its own description.
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_pcfile.h"
#include "ftsearch.h"

static const char *pc_path;

START_TEST(version_macros_match_runtime) {
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", FTS_VERSION_MAJOR, FTS_VERSION_MINOR,
           FTS_VERSION_PATCH);
  ck_assert_str_eq(expect, FTS_VERSION_STRING);
  ck_assert_str_eq(fts_version_string(), FTS_VERSION_STRING);
  ck_assert_uint_eq(fts_version(), FTS_VERSION_NUMBER);
  ck_assert_uint_eq(fts_version(),
                    FTS_VERSION_MAJOR * 10000u + FTS_VERSION_MINOR * 100u + FTS_VERSION_PATCH);
}
END_TEST

START_TEST(version_matches_pkgconfig_file) {
  char pc_version[64];
  ck_assert_msg(pc_path != NULL, "usage: test_ftsearch PATH-TO-ftsearch.pc");
  ck_assert_msg(corvid_pc_version(pc_path, pc_version, sizeof pc_version), "no Version: line in %s",
                pc_path);
  ck_assert_str_eq(pc_version, FTS_VERSION_STRING);
}
END_TEST

static const struct {
  int code;
  const char *text;
} own_errors[] = {
    {FTS_ERR_INVALID_ARGUMENT, "invalid argument"},
    {FTS_ERR_NOTFOUND, "no such document"},
    {FTS_ERR_QUERY_SYNTAX, "malformed query"},
};

START_TEST(own_error_codes_have_own_text) {
  size_t n = sizeof own_errors / sizeof own_errors[0];
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_le(own_errors[i].code, -10500);
    ck_assert_int_ge(own_errors[i].code, -10599);
    ck_assert_str_eq(fts_strerror(own_errors[i].code), own_errors[i].text);
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(own_errors[i].code, own_errors[j].code);
  }
}
END_TEST

START_TEST(strerror_covers_success_errno_and_unknown) {
  ck_assert_str_eq(fts_strerror(0), "success");
  ck_assert_str_eq(fts_strerror(-ENOMEM), "Cannot allocate memory");
  ck_assert_str_eq(fts_strerror(-EINVAL), "Invalid argument");
  ck_assert_str_eq(fts_strerror(1), "unknown error");
  ck_assert_str_eq(fts_strerror(-10599), "unknown error");
  ck_assert_str_eq(fts_strerror(-10499), "unknown error");
  ck_assert_str_eq(fts_strerror(-10600), "unknown error");
}
END_TEST

int main(int argc, char **argv) {
  pc_path = argc > 1 ? argv[1] : NULL;
  Suite *s = suite_create("ftsearch");
  TCase *tc = tcase_create("version_and_errors");
  tcase_add_test(tc, version_macros_match_runtime);
  tcase_add_test(tc, version_matches_pkgconfig_file);
  tcase_add_test(tc, own_error_codes_have_own_text);
  tcase_add_test(tc, strerror_covers_success_errno_and_unknown);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
