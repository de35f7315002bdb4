// test_curve448_long.c: the long form of RFC 7748 §5.2's iterated X448 test,
// 1,000,000 iterations of (k, u) = (X448(k, u), k) from k = u = 5, checked
// against the RFC's values after 1, 1,000 and 1,000,000 iterations. It takes
// minutes, so it is registered in the suite msgcrypt-long, apart from the
// module suite (test_curve448.c runs the first 1,000 iterations).
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "curve448_internal.h"
#include "testutil.h"

// RFC 7748 §5.2, X448 iterated test values.
START_TEST(rfc7748_x448_million_iterations) {
  uint8_t k[56] = {5}, u[56] = {5}, out[56], want1[56], want1000[56], want1000000[56];
  mc_test_unhex_fixed(want1, 56,
                      "3f482c8a9f19b01e6c46ee9711d9dc14fd4bf67af30765c2ae2b846a"
                      "4d23a8cd0db897086239492caf350b51f833868b9bc2b3bca9cf4113");
  mc_test_unhex_fixed(want1000, 56,
                      "aa3b4749d55b9daf1e5b00288826c467274ce3ebbdd5c17b975e09d4"
                      "af6c67cf10d087202db88286e2b79fceea3ec353ef54faa26e219f38");
  mc_test_unhex_fixed(want1000000, 56,
                      "077f453681caca3693198420bbe515cae0002472519b3e67661a7e89"
                      "cab94695c8f4bcd66e61b9b9c946da8d524de3d69bd9d9d66b997e37");
  for (long i = 1; i <= 1000000; i++) {
    mc_x448_scalarmult(out, k, u);
    memcpy(u, k, 56);
    memcpy(k, out, 56);
    if (i == 1)
      ck_assert_mem_eq(k, want1, 56);
    else if (i == 1000)
      ck_assert_mem_eq(k, want1000, 56);
  }
  ck_assert_mem_eq(k, want1000000, 56);
}
END_TEST

int main(void) {
  Suite *s = suite_create("curve448-long");
  TCase *tc = tcase_create("x448");
  tcase_add_test(tc, rfc7748_x448_million_iterations);
  tcase_set_timeout(tc, 3600);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
