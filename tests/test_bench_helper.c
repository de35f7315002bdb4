// test_bench_helper.c: the benchmark conventions in common/include/
// corvid_bench.h: min/median reduction, repetition bounds, and the JSON line
// format that tools/bench-report parses.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_bench.h"

START_TEST(reduce_odd_and_even_counts) {
  uint64_t odd[] = {50, 10, 30, 20, 40};
  struct corvid_bench_result r;
  corvid_bench_reduce(&r, odd, 5);
  ck_assert_uint_eq(r.min_ns, 10);
  ck_assert_uint_eq(r.median_ns, 30);
  ck_assert_uint_eq(r.reps, 5);

  uint64_t even[] = {7, 1, 9, 3};
  corvid_bench_reduce(&r, even, 4);
  ck_assert_uint_eq(r.min_ns, 1);
  ck_assert_uint_eq(r.median_ns, 5);
}
END_TEST

static void count_calls(void *ctx) {
  (*(unsigned *)ctx)++;
}

START_TEST(measure_calls_warmup_plus_reps_and_bounds_reps) {
  unsigned calls = 0;
  struct corvid_bench_result r;
  ck_assert_int_eq(corvid_bench_measure(&r, 7, count_calls, &calls), 0);
  ck_assert_uint_eq(calls, 8);
  ck_assert_uint_eq(r.reps, 7);
  ck_assert_uint_le(r.min_ns, r.median_ns);
  ck_assert_int_eq(corvid_bench_measure(&r, 0, count_calls, &calls), -1);
  ck_assert_int_eq(corvid_bench_measure(&r, CORVID_BENCH_MAX_REPS + 1, count_calls, &calls), -1);
  ck_assert_uint_eq(calls, 8);
}
END_TEST

START_TEST(clock_is_monotonic) {
  uint64_t a = corvid_bench_now_ns();
  uint64_t b = corvid_bench_now_ns();
  ck_assert_uint_ge(b, a);
  ck_assert_uint_gt(a, 0);
}
END_TEST

START_TEST(emit_writes_one_json_line_with_rates) {
  char buf[512] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  ck_assert_ptr_nonnull(f);
  struct corvid_bench_result r = {.min_ns = 1000000, .median_ns = 1100000, .reps = 9};
  corvid_bench_emit(f, "b64-decode", "avx2", 2000000, 4, &r);
  fclose(f);
  ck_assert_str_eq(buf, "{\"bench\":\"b64-decode\",\"impl\":\"avx2\",\"bytes\":2000000,"
                        "\"items\":4,\"ns\":1000000,\"median_ns\":1100000,\"reps\":9,"
                        "\"mb_per_s\":2000.00,\"items_per_s\":4000.0}\n");
}
END_TEST

int main(void) {
  Suite *s = suite_create("bench_helper");
  TCase *tc = tcase_create("bench_helper");
  tcase_add_test(tc, reduce_odd_and_even_counts);
  tcase_add_test(tc, measure_calls_warmup_plus_reps_and_bounds_reps);
  tcase_add_test(tc, clock_is_monotonic);
  tcase_add_test(tc, emit_writes_one_json_line_with_rates);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
