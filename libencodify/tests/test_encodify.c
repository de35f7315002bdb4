// test_encodify.c: libencodify's version and error reporting: the header
// macros, enc_version() and the installed pkg-config file agree, and every
// error code has its own description; and the Base64 decode bound of the
// one-shot call against the stream engine's.
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_pcfile.h"
#include "encodify.h"

static const char *pc_path;

START_TEST(version_macros_match_runtime) {
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", ENC_VERSION_MAJOR, ENC_VERSION_MINOR,
           ENC_VERSION_PATCH);
  ck_assert_str_eq(expect, ENC_VERSION_STRING);
  ck_assert_str_eq(enc_version_string(), ENC_VERSION_STRING);
  ck_assert_uint_eq(enc_version(), ENC_VERSION_NUMBER);
  ck_assert_uint_eq(enc_version(),
                    ENC_VERSION_MAJOR * 10000u + ENC_VERSION_MINOR * 100u + ENC_VERSION_PATCH);
}
END_TEST

START_TEST(version_matches_pkgconfig_file) {
  char pc_version[64];
  ck_assert_msg(pc_path != NULL, "usage: test_encodify PATH-TO-encodify.pc");
  ck_assert_msg(corvid_pc_version(pc_path, pc_version, sizeof pc_version), "no Version: line in %s",
                pc_path);
  ck_assert_str_eq(pc_version, ENC_VERSION_STRING);
}
END_TEST

static const struct {
  int code;
  const char *text;
} own_errors[] = {
    {ENC_ERR_INVALID_ARGUMENT, "invalid argument"},
    {ENC_ERR_UNSUPPORTED, "operation not supported by the selected implementation"},
    {ENC_ERR_BUFFER_TOO_SMALL, "output buffer too small"},
    {ENC_ERR_INVALID_CHAR, "invalid character in the input"},
    {ENC_ERR_BAD_PADDING, "missing, misplaced or excess padding"},
    {ENC_ERR_TRAILING_BITS, "non-zero bits after the last encoded byte"},
    {ENC_ERR_TRUNCATED, "input ends inside an encoded unit"},
    {ENC_ERR_NON_CANONICAL, "non-canonical encoding"},
    {ENC_ERR_INVALID_UTF8, "invalid UTF-8"},
    {ENC_ERR_INVALID_UTF16, "invalid UTF-16 in a modified UTF-7 shift sequence"},
};

START_TEST(own_error_codes_have_own_text) {
  size_t n = sizeof own_errors / sizeof own_errors[0];
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_le(own_errors[i].code, -10100);
    ck_assert_int_ge(own_errors[i].code, -10199);
    ck_assert_str_eq(enc_strerror(own_errors[i].code), own_errors[i].text);
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(own_errors[i].code, own_errors[j].code);
  }
}
END_TEST

START_TEST(strerror_covers_success_errno_and_unknown) {
  ck_assert_str_eq(enc_strerror(0), "success");
  ck_assert_str_eq(enc_strerror(-ENOMEM), "Cannot allocate memory");
  ck_assert_str_eq(enc_strerror(-EINVAL), "Invalid argument");
  ck_assert_str_eq(enc_strerror(1), "unknown error");
  ck_assert_str_eq(enc_strerror(-10199), "unknown error");
  ck_assert_str_eq(enc_strerror(-10099), "unknown error");
  ck_assert_str_eq(enc_strerror(-10200), "unknown error");
}
END_TEST

// enc_base64_decode_max_len() works the bound out directly; it must be what
// a fresh decoding stream reports, for every length class and at the top
// of the range.
START_TEST(base64_decode_bound_matches_stream) {
  for (size_t n = 0; n < 4096; n++)
    ck_assert_uint_eq(enc_base64_decode_max_len(n), enc_decode_max_len(ENC_CODEC_BASE64, 0, n));
  for (size_t d = 0; d < 16; d++) {
    size_t n = SIZE_MAX - d;
    ck_assert_uint_eq(enc_base64_decode_max_len(n), enc_decode_max_len(ENC_CODEC_BASE64, 0, n));
    enc_stream st;
    ck_assert_int_eq(enc_stream_init(&st, ENC_CODEC_BASE64, ENC_DECODE, ENC_FLAG_MIME, 0), 0);
    ck_assert_uint_eq(enc_base64_decode_max_len(n), enc_stream_max_len(&st, n));
  }
}
END_TEST

int main(int argc, char **argv) {
  pc_path = argc > 1 ? argv[1] : NULL;
  Suite *s = suite_create("encodify");
  TCase *tc = tcase_create("version_and_errors");
  tcase_add_test(tc, version_macros_match_runtime);
  tcase_add_test(tc, version_matches_pkgconfig_file);
  tcase_add_test(tc, own_error_codes_have_own_text);
  tcase_add_test(tc, strerror_covers_success_errno_and_unknown);
  tcase_add_test(tc, base64_decode_bound_matches_stream);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
