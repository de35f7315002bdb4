// test_return.c: a member that comes back without restarting (here from a
// SIGSTOP, as after a partition: same incarnation, its old copy of its
// slots still in memory) takes its slots back from the members that served
// them meanwhile, against three real keepd members on loopback. While it
// is stopped the others take its slots over and the test overwrites,
// deletes and creates keys there, increments counters and takes a lock;
// after SIGCONT every answer the returning member gives for those keys is
// BUSY, MOVED or the interim owner's latest value, never its own stale
// copy, and once it settles it serves exactly what the interim owners
// held: counters continue from their latest value, deleted keys stay
// deleted, and the lock is still held by its holder, with its lease.
// Two pauses: one shorter than the 1 s quorum window (its confirmations
// have not lapsed yet when it resumes) and one longer.
#include <sched.h>

#include "corvid_libtest.h"
#include "keepd_cluster_harness.h"

#define BACK 2 // the member that is stopped and comes back
#define KEYS 60
#define MAX_WAIT_NS 5000000000ull
#define LEASE_MS 3000u // of the lock taken on the interim owner

// return_key writes the i-th key of `prefix` owned by BACK with every
// member live, and by member i % 2 without it.
static void return_key(char *out, size_t cap, const char *prefix, int i) {
  char p[64];
  snprintf(p, sizeof p, "%s%d", prefix, i);
  key_owned(out, cap, p, BACK, BACK, i % 2);
}

// RETRY retries `expr` on BUSY and MOVED answers (a member that has not
// taken the slot yet), at most MAX_WAIT_NS.
#define RETRY(expr)                                                                                \
  do {                                                                                             \
    uint64_t t0_ = keepd_test_now_ns();                                                            \
    int rc_;                                                                                       \
    while ((rc_ = (expr)) == KEEP_ERR_BUSY || rc_ == KEEP_ERR_MOVED) {                             \
      ck_assert_msg(keepd_test_now_ns() - t0_ < MAX_WAIT_NS, "never served: %s",                   \
                    keep_strerror(rc_));                                                           \
      keepd_sleep_ms(10);                                                                          \
    }                                                                                              \
    ck_assert_msg(rc_ == 0, "%s: %s", #expr, keep_strerror(rc_));                                  \
  } while (0)

// del_absent deletes `key`, which the interim owner does not hold (it took
// the slot over without BACK's keys): NOT_FOUND is what it answers.
static int del_absent(keep_client *c, const char *key) {
  int rc = keep_del(c, key, strlen(key));
  return rc == KEEP_ERR_NOT_FOUND ? 0 : rc;
}

static void old_value(char *out, size_t cap, int i) {
  snprintf(out, cap, i % 3 ? "old-%d" : "an old value long enough to live out of line %d", i);
}

static void new_value(char *out, size_t cap, int i) {
  snprintf(out, cap, i % 3 ? "new-%d" : "a new value long enough to live out of line %d", i);
}

// Keys i % 5 == 4 are deleted on the interim owner; i % 5 == 3 exist only
// there (created while BACK is stopped); the others are overwritten.
enum { KIND_OVERWRITTEN, KIND_DELETED, KIND_CREATED };

static int kind_of(int i) {
  return i % 5 == 4 ? KIND_DELETED : i % 5 == 3 ? KIND_CREATED : KIND_OVERWRITTEN;
}

// check_answer fails on anything but what the interim owner holds (or BUSY
// and MOVED, when `settling`); returns true when it was served.
static bool check_answer(int rc, const char *got, size_t len, int i, bool settling) {
  char key[96], val[96];
  return_key(key, sizeof key, "ret", i);
  if (settling && (rc == KEEP_ERR_BUSY || rc == KEEP_ERR_MOVED))
    return false;
  if (kind_of(i) == KIND_DELETED) {
    char old[96];
    old_value(old, sizeof old, i);
    ck_assert_msg(rc == KEEP_ERR_NOT_FOUND, "%s, deleted meanwhile: %s%s%.*s", key,
                  keep_strerror(rc), rc == 0 ? ", stale value " : "", rc == 0 ? (int)len : 0, got);
    return true;
  }
  new_value(val, sizeof val, i);
  ck_assert_msg(rc == 0, "%s: %s", key, keep_strerror(rc));
  ck_assert_msg(len == strlen(val) && memcmp(got, val, len) == 0, "%s: stale value %.*s", key,
                (int)len, got);
  return true;
}

static void stop_and_return(unsigned pause_ms) {
  struct cluster cl;
  // A short quarantine, so that the lock can be taken on the interim
  // owner soon after it took the slot over.
  cluster_start(&cl, "300");
  keep_client *c = client_for(&cl, cl.addrs, ids, N);
  wait_ready(c);
  keep_client *to_back = single(&cl, BACK), *interim[2] = {single(&cl, 0), single(&cl, 1)};
  char key[96], val[96], got[256];
  size_t len;
  int64_t n;
  // Before: BACK holds the old values and counters (BUSY is retried: a
  // member on this loaded machine may miss a beat).
  for (int i = 0; i < KEYS; i++) {
    if (kind_of(i) == KIND_CREATED)
      continue;
    return_key(key, sizeof key, "ret", i);
    old_value(val, sizeof val, i);
    RETRY(keep_set(to_back, key, strlen(key), val, strlen(val), 0));
  }
  char ctr_key[96], new_ctr_key[96], lock_key[96];
  return_key(ctr_key, sizeof ctr_key, "retctr", 0);
  return_key(new_ctr_key, sizeof new_ctr_key, "retnewctr", 1);
  return_key(lock_key, sizeof lock_key, "retlock", 0);
  RETRY(keep_incr(to_back, &n, ctr_key, strlen(ctr_key), 100, 0));
  ck_assert_int_eq(n, 100);

  // Stopped: the others take its slots over (the first write waits for
  // them); then the writes it misses.
  uint64_t t_stop = keepd_test_now_ns();
  ck_assert_int_eq(kill(cl.p[BACK].pid, SIGSTOP), 0);
  for (int i = 0; i < KEYS; i++) {
    keep_client *to = interim[i % 2];
    return_key(key, sizeof key, "ret", i);
    new_value(val, sizeof val, i);
    if (kind_of(i) == KIND_DELETED)
      RETRY(del_absent(to, key));
    else
      RETRY(keep_set(to, key, strlen(key), val, strlen(val), 0));
  }
  // BACK's counter was 100; the interim owner starts it afresh.
  for (int k = 0; k < 3; k++)
    RETRY(keep_incr(interim[0], &n, ctr_key, strlen(ctr_key), 1, 0));
  ck_assert_int_eq(n, 3);
  for (int k = 0; k < 7; k++)
    RETRY(keep_incr(interim[1], &n, new_ctr_key, strlen(new_ctr_key), 1, 0));
  ck_assert_int_eq(n, 7);
  uint64_t dl, t0 = keepd_test_now_ns();
  int rc;
  while ((rc = keep_lock(interim[0], &dl, lock_key, strlen(lock_key), "h1", 2, LEASE_MS)) ==
             KEEP_ERR_NOT_YET ||
         rc == KEEP_ERR_BUSY || rc == KEEP_ERR_MOVED) {
    ck_assert_msg(keepd_test_now_ns() - t0 < MAX_WAIT_NS, "lock never granted");
    keepd_sleep_ms(20);
  }
  ck_assert_int_eq(rc, 0);
  uint64_t t_lock = keepd_test_now_ns();
  uint64_t paused = keepd_test_now_ns() - t_stop;
  if (paused < pause_ms * 1000000ull)
    keepd_sleep_ms((unsigned)((pause_ms * 1000000ull - paused) / 1000000u));
  paused = keepd_test_now_ns() - t_stop;

  // Back. Every answer for its keys is BUSY, MOVED or the latest value,
  // from the first request on, until all are served.
  ck_assert_int_eq(kill(cl.p[BACK].pid, SIGCONT), 0);
  uint64_t t_cont = keepd_test_now_ns();
  bool served[KEYS] = {false};
  unsigned left = KEYS, busy = 0, rounds = 0;
  while (left > 0) {
    ck_assert_msg(keepd_test_now_ns() - t_cont < MAX_WAIT_NS, "%u keys never served", left);
    for (int i = 0; i < KEYS; i++) {
      if (served[i])
        continue;
      return_key(key, sizeof key, "ret", i);
      rc = keep_get(to_back, got, sizeof got, &len, key, strlen(key));
      if (check_answer(rc, got, len, i, true)) {
        served[i] = true;
        left--;
      } else {
        busy++;
      }
    }
    rounds++;
  }
  fprintf(stderr, "# paused %.0f ms: all keys served %.1f ms after SIGCONT (%u BUSY/MOVED)\n",
          paused / 1e6, (keepd_test_now_ns() - t_cont) / 1e6, busy);
  // Settled: every key holds the interim owner's latest value, on BACK
  // and through a cluster client.
  for (int i = 0; i < KEYS; i++) {
    return_key(key, sizeof key, "ret", i);
    rc = keep_get(to_back, got, sizeof got, &len, key, strlen(key));
    check_answer(rc, got, len, i, false);
    rc = keep_get(c, got, sizeof got, &len, key, strlen(key));
    check_answer(rc, got, len, i, false);
  }
  // Counters go on from the interim owner's value, never from BACK's 100.
  RETRY(keep_incr(to_back, &n, ctr_key, strlen(ctr_key), 1, 0));
  ck_assert_int_eq(n, 4);
  RETRY(keep_incr(to_back, &n, new_ctr_key, strlen(new_ctr_key), 1, 0));
  ck_assert_int_eq(n, 8);
  // The lock is held by its holder, with its lease: another holder can
  // neither take nor release it until the lease ends, and takes it after.
  rc = keep_lock(to_back, &dl, lock_key, strlen(lock_key), "h2", 2, 1000);
  ck_assert_msg(rc == KEEP_ERR_EXISTS, "lock taken by another holder: %s", keep_strerror(rc));
  rc = keep_unlock(to_back, lock_key, strlen(lock_key), "h2", 2);
  ck_assert_msg(rc == KEEP_ERR_EXISTS, "another holder's unlock: %s", keep_strerror(rc));
  uint64_t since = keepd_test_now_ns() - t_lock;
  ck_assert_uint_lt(since, (LEASE_MS - 300) * 1000000ull);
  keepd_sleep_ms((unsigned)((LEASE_MS - 200) - since / 1000000u));
  rc = keep_lock(to_back, &dl, lock_key, strlen(lock_key), "h2", 2, 1000);
  ck_assert_msg(rc == KEEP_ERR_EXISTS, "lease ended early: %s", keep_strerror(rc));
  keepd_sleep_ms(400);
  RETRY(keep_lock(to_back, &dl, lock_key, strlen(lock_key), "h2", 2, 1000));
  keep_client_free(interim[0]);
  keep_client_free(interim[1]);
  keep_client_free(to_back);
  keep_client_free(c);
  cluster_stop(&cl);
}

// Shorter than the quorum window: its confirmations still look fresh when
// it resumes, though the others moved on 225 ms after it stopped.
START_TEST(test_sigstop_short_pulls_keys_back) {
  stop_and_return(700);
}
END_TEST

START_TEST(test_sigstop_long_pulls_keys_back) {
  stop_and_return(1500);
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s KEEPD\n", argv[0]);
    return 2;
  }
  keepd_bin = argv[1];
  cluster_max_lease = "10000";
  // A network namespace of its own when allowed: the ports this suite
  // picks cannot then collide with those of suites running beside it.
  if (unshare(CLONE_NEWNET) == 0 && system("ip link set lo up") != 0) {
    printf("Bail out! no loopback in the new network namespace\n");
    return 1;
  }
  Suite *s = suite_create("keepd-return");
  TCase *tc = tcase_create("return");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_sigstop_short_pulls_keys_back);
  tcase_add_test(tc, test_sigstop_long_pulls_keys_back);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
