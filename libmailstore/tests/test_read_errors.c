// test_read_errors.c: the store's walks when LMDB fails a read part way
// through, as it does on a damaged file (MDB_PAGE_NOTFOUND, MDB_CORRUPTED).
// The program is linked with lmdb_fault_link_args: every read of the store
// library, a cursor step or a point read, goes through
// corvid_test_lmdb_fault.h, which fails the nth one. Each walk fails every
// read of one call in turn, until a run reaches none; every failure must end
// the call with MS_ERR_CORRUPT: a walk that stops early must not report
// success (a verification that passes the store, a summarize that looked at
// part of it). ms_store_verify must not blame a failed cursor step on a
// record (a count that "disagrees" because the walk stopped); a failed point
// read may name the record it could not read, which is where the damage is.
// Before the fix, five loops of verify_tx and the one of ms_store_summarize
// ended silently on such an error.
#include "corvid_libtest.h"
#include "store_util.h"

#include "corvid_test_lmdb_fault.h"

// A store with something in every table verify walks: two accounts with
// mail, one without, two mailboxes with shared and own messages, an
// expunge (VANISHED, a blob release) and flags.
static void fill(ms_store *st) {
  uint32_t alice, inbox, bob, bob_inbox, carol, carol_inbox, arch;
  ck_assert_int_eq(ms_account_create(st, &alice, "alice", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, alice, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, alice, "Archive", 7, MS_ROLE_ARCHIVE), 0);
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &bob_inbox, bob, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_account_create(st, &carol, "carol", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &carol_inbox, carol, "INBOX", 5, MS_ROLE_INBOX), 0);
  char text[4][200];
  struct ms_delivery d[4];
  memset(d, 0, sizeof d);
  for (int i = 0; i < 4; i++) {
    int n = snprintf(text[i], sizeof text[i],
                     "From: a%d@example.org\r\nSubject: message %d\r\nMessage-ID: <m%d@x>\r\n\r\n"
                     "body %d\r\n",
                     i, i, i, i);
    d[i] = (struct ms_delivery){.account = i < 3 ? alice : bob,
                                .mailbox = i < 3 ? inbox : bob_inbox,
                                .data = (const uint8_t *)text[i],
                                .len = (size_t)n,
                                .internal_date = 1700000000 + i};
  }
  ck_assert_int_eq(ms_messages_deliver(st, d, 4), 4);
  uint32_t uid = 2, out_uid = 0, one = 1;
  ck_assert_int_eq(ms_messages_copy(st, &out_uid, alice, inbox, arch, &uid, 1), 1);
  ck_assert_int_ge(ms_flags_store(st, alice, inbox, &uid, 1, MS_FLAG_SEEN, 0), 0);
  ck_assert_int_eq(ms_messages_expunge(st, alice, inbox, &one, 1), 1);
  verify_ok(st);
}

static char *dir;
static ms_store *st;

static void setup(void) {
  dir = tmp_store_dir();
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  fill(st);
}

static void teardown(void) {
  ms_store_close(st);
  rm_store_dir(dir);
}

static int verify(struct ms_diag *dg) {
  return ms_store_verify(st, dg);
}

static int summarize(struct ms_diag *dg) {
  (void)dg;
  return ms_store_summarize(st, 0);
}

// call_failing runs `call` with its nth read failing and returns its
// result; *failed says which kind of read failed (none: the call made fewer
// reads).
static int call_failing(int (*call)(struct ms_diag *), unsigned long n, struct ms_diag *dg,
                        enum lmdb_fault_read *failed) {
  lmdb_fault_arm(n, false);
  int rc = call(dg);
  lmdb_fault_disarm();
  *failed = lmdb_fault_first_failed();
  return rc;
}

START_TEST(every_read_error_fails_the_check) {
  unsigned long n = 1, point_reads = 0;
  for (;; n++) {
    struct ms_diag dg;
    enum lmdb_fault_read failed;
    int rc = call_failing(verify, n, &dg, &failed);
    if (failed == LMDB_FAULT_NONE) {
      ck_assert_msg(rc == 0, "verify: %s", dg.message);
      break;
    }
    ck_assert_msg(rc == MS_ERR_CORRUPT, "read %lu failing: verify returned %d (%s)", n, rc,
                  dg.message);
    if (failed == LMDB_FAULT_CURSOR_GET)
      ck_assert_msg(dg.message[0] == '\0', "step %lu failing: blamed on a record: %s", n,
                    dg.message);
    else
      point_reads++;
    ck_assert_int_eq(dg.code, rc);
  }
  // Enough reads to have reached every table's loop and the records they
  // look up.
  ck_assert_uint_gt(n, 30);
  ck_assert_uint_gt(point_reads, 5);
}
END_TEST

// ms_store_summarize walks every message for those without a summary; a
// store whose messages all have one stores nothing, and a read error on
// the way is the call's error, not "nothing to do".
START_TEST(summarize_fails_on_a_read_error) {
  unsigned long n = 1;
  for (;; n++) {
    enum lmdb_fault_read failed;
    int rc = call_failing(summarize, n, NULL, &failed);
    if (failed == LMDB_FAULT_NONE) {
      ck_assert_int_eq(rc, 0);
      break;
    }
    ck_assert_msg(rc == MS_ERR_CORRUPT, "read %lu failing: summarize returned %d", n, rc);
  }
  ck_assert_uint_gt(n, 3); // one read per message and the end
  verify_ok(st);
}
END_TEST

int main(void) {
  Suite *s = suite_create("read_errors");
  TCase *tc = tcase_create("walks");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, every_read_error_fails_the_check);
  tcase_add_test(tc, summarize_fails_on_a_read_error);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
