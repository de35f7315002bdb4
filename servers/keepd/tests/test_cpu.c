// test_cpu.c: keepd's CPU budget: the cgroup file parsers on the shapes the
// kernel writes, and the budget read from this very process agreeing with
// sched_getaffinity.
#include <check.h>
#include <sched.h>

#include "corvid_libtest.h"
#include "keepd.h"

START_TEST(cpu_lists_parse) {
  uint64_t set[16];
  ck_assert_int_eq(keepd_parse_cpu_list("0-3\n", set), 4);
  ck_assert_uint_eq(set[0], 0xf);
  ck_assert_int_eq(keepd_parse_cpu_list("0,2,64-65", set), 4);
  ck_assert_uint_eq(set[0], 0x5);
  ck_assert_uint_eq(set[1], 0x3);
  ck_assert_int_eq(keepd_parse_cpu_list("", set), 0);
  ck_assert_int_eq(keepd_parse_cpu_list("3-1", set), -1);
  ck_assert_int_eq(keepd_parse_cpu_list("a", set), -1);
  ck_assert_int_eq(keepd_parse_cpu_list("1-", set), -1);
  ck_assert_int_eq(keepd_parse_cpu_list("5000", set), -1);
}
END_TEST

START_TEST(cpu_max_parses) {
  ck_assert_int_eq(keepd_parse_cpu_max("max 100000\n"), 0);
  ck_assert_int_eq(keepd_parse_cpu_max("100000 100000\n"), 1);
  ck_assert_int_eq(keepd_parse_cpu_max("150000 100000\n"), 2);
  ck_assert_int_eq(keepd_parse_cpu_max("50000 100000"), 1);
  ck_assert_int_eq(keepd_parse_cpu_max("x"), -1);
  ck_assert_int_eq(keepd_parse_cpu_max("100000"), -1);
}
END_TEST

START_TEST(budget_within_affinity) {
  keepd_cpu_budget b;
  keepd_cpu_budget_read(&b);
  cpu_set_t aff;
  ck_assert_int_eq(sched_getaffinity(0, sizeof aff, &aff), 0);
  ck_assert_uint_ge(b.budget, 1);
  ck_assert_uint_le(b.cpus, (unsigned)CPU_COUNT(&aff));
  ck_assert_uint_le(b.budget, b.cpus);
  for (unsigned i = 0; i < b.budget; i++)
    ck_assert(CPU_ISSET(b.cpu_list[i], &aff));
  ck_assert_ptr_nonnull(b.source);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keepd-cpu");
  TCase *tc = tcase_create("cpu");
  tcase_add_test(tc, cpu_lists_parse);
  tcase_add_test(tc, cpu_max_parses);
  tcase_add_test(tc, budget_within_affinity);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
