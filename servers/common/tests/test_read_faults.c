// test_read_faults.c: the indexer (indexer.c) with each LMDB read of the
// store and of the index failing in turn, as a damaged page does
// (corvid_test_lmdb_fault.h). Unlike test_oom.c, this program links
// libmailstore and libftsearch statically (their _internal libraries), so
// that their reads reach the wrappers: the queue's, the messages', the
// commit's and the acknowledgement's.
//
// What must hold is that a read error never loses a message. A read that
// fails once costs a retry: after the run that met it and one more run,
// every message is indexed and none is in the failure log. A read that
// keeps failing may condemn the messages whose reads it fails (a damaged
// message goes to the failure log, srv_indexer.h), but every message ends
// either indexed or in that log, and the queue empty.
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#include "corvid_test_lmdb_fault.h"
#include "indexer_fixture.h"
#include "indexer_test_util.h"
#include "srv_indexer.h"

// The walks end after about 75 reads; the bound only stops one whose
// operation would never stop reading.
#define MAX_STEPS 2000

static const struct srv_indexer_settings settings = {
    .workers = 1, // one thread: the reads come in the same order every run
    .batch = 16,
    .max_attempts = 2,
    .backoff_ms = 1,
    .backoff_max_ms = 1,
};

START_TEST(run_once_each_read) {
  bool stays = _i != 0;
  const char *fault = stays ? "lasting read" : "read";
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct fixture fx;
    fixture_open(&fx, false);
    srv_indexer *ix;
    ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &settings),
                     0);
    struct srv_indexer_report rep = {0};
    lmdb_fault_arm(n, stays);
    int rc = srv_indexer_run_once(ix, &rep);
    bool fired = lmdb_fault_disarm();
    if (!fired) {
      require(rc == 3, "unarmed run_once said %d (%s)", rc, srv_indexer_strerror(rc));
      check_all_indexed(&fx, ix);
      srv_indexer_free(ix);
      fixture_close(&fx);
      break;
    }
    require(rc >= 0 || rc == MS_ERR_CORRUPT || rc == FTS_ERR_CORRUPT,
            "%s %lu failed, run_once said %d (%s)", fault, n, rc, srv_indexer_strerror(rc));
    rc = srv_indexer_run(ix, &rep, NULL);
    require(rc == 0, "after %s %lu failed, run said %d (%s)", fault, n, rc,
            srv_indexer_strerror(rc));
    struct srv_indexer_status st;
    ck_assert_int_eq(srv_indexer_status_get(ix, &st, fx.account), 0);
    require(st.queued == 0, "%s %lu: %llu entries still queued", fault, n,
            (unsigned long long)st.queued);
    if (!stays) {
      require(st.failed == 0, "%s %lu failed once, yet %llu messages were condemned", fault, n,
              (unsigned long long)st.failed);
      check_all_indexed(&fx, ix);
    } else {
      require(st.indexed + st.failed == 3, "%s %lu: %llu indexed and %llu failed of 3", fault, n,
              (unsigned long long)st.indexed, (unsigned long long)st.failed);
    }
    srv_indexer_free(ix);
    fixture_close(&fx);
  }
  ck_assert_uint_gt(n, 10);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// logged says whether the failure log names message `id` of `account`.
static bool logged(uint32_t account, uint64_t id) {
  FILE *f = fopen(failed_path, "r");
  if (!f)
    return false;
  unsigned long a;
  unsigned long long m;
  int status;
  bool found = false;
  while (!found && fscanf(f, "%lu %llu %d", &a, &m, &status) == 3)
    found = a == account && m == id;
  fclose(f);
  return found;
}

// searchable_or_logged asserts that each of the fixture's messages is
// found by its own words or named in the failure log.
static void searchable_or_logged(struct fixture *fx, const char *fault, unsigned long n) {
  const struct {
    uint64_t id;
    const char *query;
  } probe[] = {{fx->plain, "pelican"}, {fx->html, "hippopotamus"}, {fx->attach, "walrus"}};
  for (size_t i = 0; i < 3; i++)
    require(strcmp(search(fx->index, fx->account, probe[i].query), num(probe[i].id)) == 0 ||
                logged(fx->account, probe[i].id),
            "%s %lu: message %llu neither searchable nor logged", fault, n,
            (unsigned long long)probe[i].id);
}

// A rebuild of an indexed account. A rebuild takes one try per message as
// the verdict (srv_indexer.h), so a read error there may put a message in
// the failure log even when it fails once (its document, if any, stays).
// So: after a failed rebuild the documents are as they were; after one that
// went through, every message is searchable or logged; and a rebuild
// without faults brings every message back and empties the log.
START_TEST(rebuild_each_read) {
  bool stays = _i != 0;
  const char *fault = stays ? "lasting read" : "read";
  struct fixture fx;
  fixture_open(&fx, false);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &settings), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), 3);
  check_all_indexed(&fx, ix);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct srv_indexer_report rep = {0};
    lmdb_fault_arm(n, stays);
    int rc = srv_indexer_rebuild(ix, &rep, fx.account, NULL, NULL);
    bool fired = lmdb_fault_disarm();
    if (!fired) {
      require(rc == 0, "unarmed rebuild said %d (%s)", rc, srv_indexer_strerror(rc));
      check_all_indexed(&fx, ix);
      break;
    }
    require(rc == 0 || rc == MS_ERR_CORRUPT || rc == FTS_ERR_CORRUPT,
            "%s %lu failed, rebuild said %d (%s)", fault, n, rc, srv_indexer_strerror(rc));
    if (rc != 0)
      check_documents(&fx, ix);
    else
      searchable_or_logged(&fx, fault, n);
    rc = srv_indexer_rebuild(ix, &rep, fx.account, NULL, NULL);
    require(rc == 0, "after %s %lu failed, rebuild said %d (%s)", fault, n, rc,
            srv_indexer_strerror(rc));
    check_all_indexed(&fx, ix);
  }
  ck_assert_uint_gt(n, 10);
  ck_assert_uint_lt(n, MAX_STEPS);
  srv_indexer_free(ix);
  fixture_close(&fx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("servers-common-read-faults");
  TCase *tc = tcase_create("indexer");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, run_once_each_read, 0, 2);
  tcase_add_loop_test(tc, rebuild_each_read, 0, 2);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
