// test_oom.c: every allocation the store makes may fail, one at a time, and
// each failure leaves an error and a sound store, never a crash, a leak or a
// half-done change (corvid_test_alloc_fault.h).
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_check.h"
#include "corvid_test_alloc_fault.h"
#include "mailstore.h"
#include "store_util.h"

// Each operation is tried with its 1st, 2nd, ... allocation failing until
// one run reaches no armed allocation; this bounds the walk should an
// operation stop allocating deterministically.
#define MAX_STEPS 5000

START_TEST(store_open_each_allocation) {
  char *dir = tmp_store_dir();
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    ms_store *st = NULL;
    alloc_fault_arm(n);
    int rc = ms_store_open(&st, dir, NULL);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "open: %s", ms_strerror(rc));
      verify_ok(st);
      ms_store_close(st);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, open said %s", n, ms_strerror(rc));
    require(st == NULL, "allocation %lu failed, open set a handle", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  rm_store_dir(dir);
}
END_TEST

START_TEST(append_each_allocation) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, NULL, "alice", &acct, &box);
  char buf[2048];
  size_t len = make_message(buf, sizeof buf, 1, 1000);
  unsigned long n;
  uint32_t stored = 0;
  for (n = 1; n < MAX_STEPS; n++) {
    uint64_t id = 0;
    uint32_t uid = 0;
    alloc_fault_arm(n);
    int rc = ms_message_append(st, &id, &uid, acct, box, (const uint8_t *)buf, len, 0, 1);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 0 || (fired && rc == -ENOMEM), "allocation %lu: append said %s", n,
            ms_strerror(rc));
    if (rc == 0)
      stored++;
    struct ms_mailbox_info info;
    require(ms_mailbox_get(st, &info, acct, box) == 0, "mailbox_get");
    require(info.total == stored, "allocation %lu: %u messages, %u appended", n, info.total,
            stored);
    verify_ok(st);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailstore-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, store_open_each_allocation);
  tcase_add_test(tc, append_each_allocation);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
