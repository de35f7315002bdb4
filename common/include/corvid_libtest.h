// corvid_libtest.h: the Check suite that every library runs on its version
// and error API, written once. A library's tests/test_<lib>.c describes the
// library in a corvid_lib_info and calls corvid_libtest_main(). Test-only,
// private and header-only.
#ifndef CORVID_LIBTEST_H
#define CORVID_LIBTEST_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_pcfile.h"

struct corvid_lib_error {
  int code;
  const char *text;
};

struct corvid_lib_info {
  const char *name;           // "encodify": names the suite and the .pc file
  int major, minor, patch;    // the XX_VERSION_MAJOR/MINOR/PATCH macros
  const char *version_string; // XX_VERSION_STRING
  unsigned version_number;    // XX_VERSION_NUMBER
  unsigned (*version)(void);  // xx_version
  const char *(*version_string_fn)(void);
  const char *(*strerror)(int);
  int block_top; // the library's error block is block_top … block_top - 99
  const struct corvid_lib_error *errors;
  size_t num_errors;
};

// CORVID_LIB_INFO fills the version fields of a corvid_lib_info from a
// library's macro prefix and function prefix, e.g. CORVID_LIB_INFO(ENC, enc).
#define CORVID_LIB_INFO(P, p)                                                                      \
  .major = P##_VERSION_MAJOR, .minor = P##_VERSION_MINOR, .patch = P##_VERSION_PATCH,              \
  .version_string = P##_VERSION_STRING, .version_number = P##_VERSION_NUMBER,                      \
  .version = p##_version, .version_string_fn = p##_version_string, .strerror = p##_strerror

static const struct corvid_lib_info *corvid_libtest_info;
static const char *corvid_libtest_pc_path;

START_TEST(corvid_version_macros_match_runtime) {
  const struct corvid_lib_info *lib = corvid_libtest_info;
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", lib->major, lib->minor, lib->patch);
  ck_assert_str_eq(expect, lib->version_string);
  ck_assert_str_eq(lib->version_string_fn(), lib->version_string);
  ck_assert_uint_eq(lib->version(), lib->version_number);
  ck_assert_uint_eq(lib->version(), (unsigned)(lib->major * 10000 + lib->minor * 100 + lib->patch));
}
END_TEST

START_TEST(corvid_version_matches_pkgconfig_file) {
  char pc_version[64];
  const char *path = corvid_libtest_pc_path;
  ck_assert_msg(path != NULL, "usage: test_%s PATH-TO-%s.pc", corvid_libtest_info->name,
                corvid_libtest_info->name);
  ck_assert_msg(corvid_pc_version(path, pc_version, sizeof pc_version), "no Version: line in %s",
                path);
  ck_assert_str_eq(pc_version, corvid_libtest_info->version_string);
}
END_TEST

START_TEST(corvid_own_error_codes_have_own_text) {
  const struct corvid_lib_info *lib = corvid_libtest_info;
  for (size_t i = 0; i < lib->num_errors; i++) {
    ck_assert_int_le(lib->errors[i].code, lib->block_top);
    ck_assert_int_ge(lib->errors[i].code, lib->block_top - 99);
    ck_assert_str_eq(lib->strerror(lib->errors[i].code), lib->errors[i].text);
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(lib->errors[i].code, lib->errors[j].code);
  }
}
END_TEST

START_TEST(corvid_strerror_covers_success_errno_and_unknown) {
  const struct corvid_lib_info *lib = corvid_libtest_info;
  ck_assert_str_eq(lib->strerror(0), "success");
  ck_assert_str_eq(lib->strerror(-ENOMEM), "Cannot allocate memory");
  ck_assert_str_eq(lib->strerror(-EINVAL), "Invalid argument");
  ck_assert_str_eq(lib->strerror(1), "unknown error");
  ck_assert_str_eq(lib->strerror(lib->block_top - 99), "unknown error");
  ck_assert_str_eq(lib->strerror(lib->block_top + 1), "unknown error");
  ck_assert_str_eq(lib->strerror(lib->block_top - 100), "unknown error");
}
END_TEST

// corvid_check_run runs `s` with TAP output on stdout (for meson's tap
// protocol) and returns the process exit status.
static inline int corvid_check_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

// corvid_libtest_main runs the version and error checks for `lib`; argv[1]
// is the path of the library's generated .pc file.
static inline int corvid_libtest_main(const struct corvid_lib_info *lib, int argc, char **argv) {
  corvid_libtest_info = lib;
  corvid_libtest_pc_path = argc > 1 ? argv[1] : NULL;
  Suite *s = suite_create(lib->name);
  TCase *tc = tcase_create("version_and_errors");
  tcase_add_test(tc, corvid_version_macros_match_runtime);
  tcase_add_test(tc, corvid_version_matches_pkgconfig_file);
  tcase_add_test(tc, corvid_own_error_codes_have_own_text);
  tcase_add_test(tc, corvid_strerror_covers_success_errno_and_unknown);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}

#endif // CORVID_LIBTEST_H
