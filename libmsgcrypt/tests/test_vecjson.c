// test_vecjson.c: the vector reader that the other suites rely on reads every
// Wycheproof file in ../shared/vectors completely: the tests it finds add up to
// the file's own numberOfTests, and malformed JSON is refused.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "vecjson.h"

static const char *const wycheproof_files[] = {
    "wycheproof/x448_test.json",
    "wycheproof/ed448_test.json",
    "wycheproof/aes_wrap_test.json",
    "wycheproof/aes_gcm_test.json",
    "wycheproof/hkdf_sha256_test.json",
    "wycheproof/mlkem_768_test.json",
    "wycheproof/mldsa_65_verify_test.json",
};

START_TEST(wycheproof_counts_add_up) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, wycheproof_files[_i]));
  ck_assert_msg(root != NULL, "cannot parse %s", path);
  double declared = vj_num(root, "numberOfTests", -1);
  const vj_value *groups = vj_get(root, "testGroups");
  ck_assert_ptr_nonnull(groups);
  ck_assert_int_eq(groups->type, VJ_ARRAY);
  size_t found = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    ck_assert_ptr_nonnull(tests);
    found += tests->count;
    for (size_t t = 0; t < tests->count; t++)
      ck_assert_ptr_nonnull(vj_str(&tests->items[t], "result"));
  }
  ck_assert_int_gt(found, 0);
  ck_assert_int_eq((double)found, declared);
  vj_free(root);
}
END_TEST

START_TEST(malformed_json_is_refused) {
  static const char *const bad[] = {"{", "[1,]", "{\"a\" 1}", "\"abc", "[1] 2", "{\"a\":tru}", ""};
  char path[] = "/tmp/vecjson-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_ptr_nonnull(freopen(path, "w", f));
    fputs(bad[i], f);
    fflush(f);
    ck_assert_msg(vj_parse_file(path) == NULL, "accepted: %s", bad[i]);
  }
  ck_assert_ptr_nonnull(freopen(path, "w", f));
  fputs("{\"k\": [1, \"x\\u00e9\\n\", true, null, {\"n\": -2.5e1}]}", f);
  fclose(f);
  vj_value *v = vj_parse_file(path);
  ck_assert_ptr_nonnull(v);
  const vj_value *k = vj_get(v, "k");
  ck_assert_uint_eq(k->count, 5);
  ck_assert_str_eq(k->items[1].string, "x\xc3\xa9\n");
  ck_assert_int_eq(vj_num(&k->items[4], "n", 0), -25);
  vj_free(v);
  remove(path);
}
END_TEST

int main(void) {
  Suite *s = suite_create("vecjson");
  TCase *tc = tcase_create("vecjson");
  tcase_add_loop_test(tc, wycheproof_counts_add_up, 0,
                      sizeof wycheproof_files / sizeof wycheproof_files[0]);
  tcase_add_test(tc, malformed_json_is_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
