// test_selftest.c: the known-answer self-tests (selftest.c): every one passes
// on this machine, the table is well formed, every single check of every
// self-test is able to fail (through the internal hook that corrupts one
// expected value), and the self-tests run concurrently from several threads.
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aead_internal.h"
#include "msgcrypt.h"
#include "selftest_internal.h"

// is_aesni_test says whether self-test `i` is the one that needs AES-NI.
static int is_aesni_test(size_t i) {
  return strcmp(mc_selftest_name(i), "AES-OCB/AES-NI") == 0;
}

START_TEST(every_selftest_passes) {
  for (size_t i = 0; i < mc_selftest_count(); i++) {
    int ret = mc_selftest_run(i);
    if (is_aesni_test(i) && !mc_ocb_aesni_available())
      ck_assert_int_eq(ret, MC_ERR_UNSUPPORTED);
    else
      ck_assert_msg(ret == 0, "%s: %s", mc_selftest_name(i), mc_strerror(ret));
  }
  size_t failed = 12345;
  ck_assert_int_eq(mc_selftest_all(&failed), 0);
  ck_assert_uint_eq(failed, 12345);
  ck_assert_int_eq(mc_selftest_all(NULL), 0);
}
END_TEST

START_TEST(table_covers_every_algorithm) {
  static const char *const want[] = {
      "SHA3-224",       "SHA3-256",          "SHA3-384",   "SHA3-512",    "SHAKE128",
      "SHAKE256",       "ML-KEM-512",        "ML-KEM-768", "ML-KEM-1024", "ML-DSA-44",
      "ML-DSA-65",      "ML-DSA-87",         "X448",       "Ed448",       "Ed448ph",
      "AES-OCB/AES-NI", "AES-OCB/BoringSSL", "SHA-1",      "SHA-256",     "SHA-384",
      "SHA-512",        "HKDF-SHA256",       "AES-CFB",    "AES-GCM",     "AES-KW",
      "RSA encryption", "ECDH P-256",        "ECDH P-384", "ECDH P-521",  "X25519",
  };
  size_t n = mc_selftest_count();
  ck_assert_uint_eq(n, sizeof want / sizeof want[0]);
  for (size_t i = 0; i < n; i++) {
    ck_assert_str_eq(mc_selftest_name(i), want[i]);
    ck_assert_ptr_nonnull(mc_selftest_detail(i));
    ck_assert_uint_gt(strlen(mc_selftest_detail(i)), 0);
  }
  ck_assert_ptr_null(mc_selftest_name(n));
  ck_assert_ptr_null(mc_selftest_detail(n));
  ck_assert_ptr_null(mc_selftest_name((size_t)-1));
  ck_assert_int_eq(mc_selftest_run(n), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_selftest_run((size_t)-1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(mc_strerror(MC_ERR_SELFTEST), "a known-answer self-test failed");
}
END_TEST

// Each self-test, with check k corrupted for every k it runs, must fail with
// MC_ERR_SELFTEST at that check: no check is dead code, and a wrong answer at
// any point is caught. Run for each self-test (a loop test, _i).
START_TEST(every_check_can_fail) {
  size_t i = (size_t)_i;
  unsigned num_checks = 0;
  int ret = mc_selftest_run_checked(i, MC_SELFTEST_NO_CORRUPTION, &num_checks);
  if (is_aesni_test(i) && !mc_ocb_aesni_available()) {
    ck_assert_int_eq(ret, MC_ERR_UNSUPPORTED);
    return;
  }
  ck_assert_int_eq(ret, 0);
  // The smallest self-test (HKDF) makes two checks: status and value.
  ck_assert_msg(num_checks >= 2, "%s: only %u checks", mc_selftest_name(i), num_checks);
  for (unsigned k = 0; k < num_checks; k++) {
    unsigned ran = 0;
    ret = mc_selftest_run_checked(i, k, &ran);
    ck_assert_msg(ret == MC_ERR_SELFTEST, "%s: check %u corrupted gives %d", mc_selftest_name(i), k,
                  ret);
    ck_assert_uint_eq(ran, k + 1); // it stopped at the corrupted check
  }
  // A corruption index past the last check changes nothing.
  ck_assert_int_eq(mc_selftest_run_checked(i, num_checks, NULL), 0);
}
END_TEST

// Checks that the tests compare what they claim: a few self-tests have a
// known minimum of checks (each output of the chain is compared).
START_TEST(chained_tests_check_every_step) {
  for (size_t i = 0; i < mc_selftest_count(); i++) {
    const char *name = mc_selftest_name(i);
    unsigned n = 0;
    if (mc_selftest_run_checked(i, MC_SELFTEST_NO_CORRUPTION, &n) != 0)
      continue;
    if (strncmp(name, "ML-KEM-", 7) == 0)
      ck_assert_uint_eq(n, 10); // 4 statuses (keygen, encaps, decaps x2) + 6 values
    else if (strncmp(name, "ML-DSA-", 7) == 0)
      ck_assert_uint_eq(n, 8); // keygen, pk, sk, sign, sig, 3 verifications
  }
}
END_TEST

static void *run_all(void *arg) {
  (void)arg;
  size_t failed = 0;
  for (int round = 0; round < 3; round++)
    if (mc_selftest_all(&failed) != 0)
      return (void *)1;
  return NULL;
}

START_TEST(selftests_run_concurrently) {
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(pthread_create(&threads[i], NULL, run_all, NULL), 0);
  for (int i = 0; i < 4; i++) {
    void *res = (void *)1;
    ck_assert_int_eq(pthread_join(threads[i], &res), 0);
    ck_assert_ptr_null(res);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("selftest");
  TCase *tc = tcase_create("selftest");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_selftest_passes);
  tcase_add_test(tc, table_covers_every_algorithm);
  tcase_add_loop_test(tc, every_check_can_fail, 0, (int)mc_selftest_count());
  tcase_add_test(tc, chained_tests_check_every_step);
  tcase_add_test(tc, selftests_run_concurrently);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
