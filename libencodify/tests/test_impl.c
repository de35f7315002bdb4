// test_impl.c: the implementation table and its run-time choice
// (src/impl.c, src/cpu.c): listing, forcing, ENCODIFY_IMPL, and the
// "unsupported" singleton that an unknown ENCODIFY_IMPL selects.
#include "test_util.h"

START_TEST(listing) {
  size_t n = enc_impl_count();
  ck_assert_uint_ge(n, 1);
  int sup = 0;
  ck_assert_str_eq(enc_impl_get(n - 1, &sup), "scalar");
  ck_assert_int_eq(sup, 1);
  ck_assert_ptr_null(enc_impl_get(n, &sup));
  ck_assert_ptr_nonnull(enc_impl_get(0, NULL));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      ck_assert_str_ne(enc_impl_get(i, NULL), enc_impl_get(j, NULL));
}
END_TEST

START_TEST(forcing) {
  const char *env = getenv("ENCODIFY_IMPL");
  if (env != NULL && env[0] != '\0')
    ck_assert_str_eq(enc_impl_name(), env);
  ck_assert_int_eq(enc_impl_force("no-such-implementation"), ENC_ERR_UNSUPPORTED);
  const char *before = enc_impl_name();
  ck_assert_int_eq(enc_impl_force("no-such-implementation"), ENC_ERR_UNSUPPORTED);
  ck_assert_str_eq(enc_impl_name(), before);
  for (size_t i = 0; i < enc_impl_count(); i++) {
    int sup;
    const char *name = enc_impl_get(i, &sup);
    ck_assert_int_eq(enc_impl_force(name), sup ? 0 : ENC_ERR_UNSUPPORTED);
    if (sup) {
      ck_assert_str_eq(enc_impl_name(), name);
      char out[8];
      size_t len;
      ck_assert_int_eq(enc_base64_encode(0, 0, out, sizeof out, &len, "foo", 3), 0);
      ck_assert_mem_eq(out, "Zm9v", 4);
    }
  }
  // NULL returns to the best implementation: the first supported one.
  ck_assert_int_eq(enc_impl_force(NULL), 0);
  for (size_t i = 0; i < enc_impl_count(); i++) {
    int sup;
    const char *name = enc_impl_get(i, &sup);
    if (sup) {
      ck_assert_str_eq(enc_impl_name(), name);
      break;
    }
  }
}
END_TEST

START_TEST(unsupported_singleton) {
  // Registered with ENCODIFY_IMPL=no-such-implementation.
  ck_assert_str_eq(enc_impl_name(), "unsupported");
  char out[16];
  size_t len = 5;
  ck_assert_int_eq(enc_base64_encode(0, 0, out, sizeof out, &len, "foo", 3), ENC_ERR_UNSUPPORTED);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(enc_hex_decode(out, sizeof out, &len, "00", 2, NULL), ENC_ERR_UNSUPPORTED);
  enc_stream st;
  ck_assert_int_eq(enc_stream_init(&st, ENC_CODEC_QP, ENC_DECODE, 0, 0), 0);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "a", 1, NULL),
                   ENC_ERR_UNSUPPORTED);
  ck_assert_int_eq(enc_stream_final(&st, out, sizeof out, &len, NULL), ENC_ERR_UNSUPPORTED);
  ck_assert_str_eq(enc_strerror(ENC_ERR_UNSUPPORTED),
                   "operation not supported by the selected implementation");
  // A program can still pick a real one.
  ck_assert_int_eq(enc_impl_force("scalar"), 0);
  ck_assert_int_eq(enc_base64_encode(0, 0, out, sizeof out, &len, "foo", 3), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("impl");
  TCase *tc = tcase_create("impl");
  if (strcmp(enc_impl_name(), "unsupported") == 0) {
    const char *env = getenv("ENCODIFY_IMPL");
    // A real implementation this CPU lacks: nothing to test here.
    for (size_t i = 0; env != NULL && i < enc_impl_count(); i++)
      if (strcmp(enc_impl_get(i, NULL), env) == 0) {
        printf("1..0 # SKIP implementation %s not supported here\n", env);
        suite_add_tcase(s, tc);
        srunner_free(srunner_create(s)); // frees the suite and the case
        return 0;
      }
    tcase_add_test(tc, unsupported_singleton);
  } else {
    tcase_add_test(tc, listing);
    tcase_add_test(tc, forcing);
  }
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
