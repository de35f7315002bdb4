// test_mailboxes.c: enumerating an account's messages (ms_account_messages):
// an empty account, paging across pages of several sizes, ids left out after
// expunge and destroy, another account's messages never showing, and the
// error codes. ms_account_mailboxes and ms_mailbox_name are covered by
// test_store.c.
#include "corvid_libtest.h"
#include "store_util.h"

static char *dir;
static ms_store *st;
static uint32_t acc, inbox;

static void setup(void) {
  new_store(&dir, &st, NULL, "alice", &acc, &inbox);
}

static void teardown(void) {
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}

// deliver stores n messages into (account, mailbox) in one batch and writes
// their ids to ids (may be NULL) and UIDs to uids (may be NULL).
static void deliver(uint32_t account, uint32_t mailbox, size_t n, uint64_t *ids, uint32_t *uids) {
  struct ms_delivery *items = calloc(n, sizeof *items);
  char *bufs = malloc(n * 256);
  ck_assert_ptr_nonnull(items);
  ck_assert_ptr_nonnull(bufs);
  for (size_t i = 0; i < n; i++) {
    size_t len = make_message(bufs + i * 256, 256, (unsigned)i, 20);
    items[i] = (struct ms_delivery){.account = account,
                                    .mailbox = mailbox,
                                    .internal_date = 1000 + (int64_t)i,
                                    .data = (const uint8_t *)bufs + i * 256,
                                    .len = len};
  }
  ck_assert_int_eq(ms_messages_deliver(st, items, n), (int)n);
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(items[i].status, 0);
    if (ids)
      ids[i] = items[i].message_id;
    if (uids)
      uids[i] = items[i].uid;
  }
  free(bufs);
  free(items);
}

// list_all pages through `account` with pages of `cap` ids, checking that
// every page but the last is full and that ids increase, and returns the
// number of ids written to out (out_cap large enough).
static size_t list_all(uint32_t account, size_t cap, uint64_t *out, size_t out_cap) {
  uint64_t *page = malloc(cap * sizeof *page);
  ck_assert_ptr_nonnull(page);
  size_t total = 0, len;
  uint64_t after = 0;
  for (;;) {
    len = 12345;
    ck_assert_int_eq(ms_account_messages(st, page, cap, &len, account, after), 0);
    ck_assert_uint_le(len, cap);
    for (size_t i = 0; i < len; i++) {
      ck_assert_uint_gt(page[i], after);
      after = page[i];
      ck_assert_uint_lt(total, out_cap);
      out[total++] = page[i];
    }
    if (len < cap)
      break;
  }
  free(page);
  return total;
}

START_TEST(empty_account) {
  uint64_t ids[4] = {0};
  size_t len = 99;
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, acc, 0), 0);
  ck_assert_uint_eq(len, 0);
  // An account created after one with messages still lists nothing.
  deliver(acc, inbox, 3, NULL, NULL);
  uint32_t bob, bin;
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &bin, bob, "INBOX", 5, MS_ROLE_INBOX), 0);
  len = 99;
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, bob, 0), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, acc, 0), 0);
  ck_assert_uint_eq(len, 3);
  // Past the last id, and at the very top of the id space.
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, acc, ids[2]), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, acc, UINT64_MAX), 0);
  ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(paging_across_pages) {
  enum { N = 1000 };
  static uint64_t want[N], got[N + 1];
  deliver(acc, inbox, N, want, NULL);
  for (size_t i = 1; i < N; i++)
    ck_assert_uint_gt(want[i], want[i - 1]);
  // Page sizes that divide N, do not, exceed it, and one id at a time.
  const size_t caps[] = {1, 7, 100, 333, 1000, 1001, 5000};
  for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
    memset(got, 0, sizeof got);
    size_t n = list_all(acc, caps[c], got, N + 1);
    ck_assert_msg(n == N, "cap %zu: %zu ids", caps[c], n);
    ck_assert_int_eq(memcmp(got, want, sizeof want), 0);
  }
  // Starting in the middle, between ids, lists from the next one.
  uint64_t page[5];
  size_t len;
  ck_assert_int_eq(ms_account_messages(st, page, 5, &len, acc, want[499]), 0);
  ck_assert_uint_eq(len, 5);
  ck_assert_uint_eq(page[0], want[500]);
  ck_assert_uint_eq(page[4], want[504]);
}
END_TEST

START_TEST(other_accounts_never_show) {
  // Accounts before and after alice's in key order, delivered interleaved.
  uint32_t zed, zin, bob, bin;
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &bin, bob, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_account_create(st, &zed, "zed", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &zin, zed, "INBOX", 5, MS_ROLE_INBOX), 0);
  uint64_t a_ids[30], b_ids[20], z_ids[10], got[64];
  for (int r = 0; r < 10; r++) {
    deliver(acc, inbox, 3, a_ids + 3 * r, NULL);
    deliver(bob, bin, 2, b_ids + 2 * r, NULL);
    deliver(zed, zin, 1, z_ids + r, NULL);
  }
  ck_assert_uint_eq(list_all(acc, 4, got, 64), 30);
  ck_assert_int_eq(memcmp(got, a_ids, sizeof a_ids), 0);
  ck_assert_uint_eq(list_all(bob, 3, got, 64), 20);
  ck_assert_int_eq(memcmp(got, b_ids, sizeof b_ids), 0);
  ck_assert_uint_eq(list_all(zed, 64, got, 64), 10);
  ck_assert_int_eq(memcmp(got, z_ids, sizeof z_ids), 0);
}
END_TEST

START_TEST(expunge_and_destroy) {
  enum { N = 3000 };
  static uint64_t ids[N], got[N];
  static uint32_t uids[N];
  deliver(acc, inbox, N, ids, uids);
  uint32_t arch;
  ck_assert_int_eq(ms_mailbox_create(st, &arch, acc, "Archive", 7, MS_ROLE_ARCHIVE), 0);
  // Copy 10..19 elsewhere, then expunge 5..2994 from INBOX: the copies keep
  // their messages (expunged, not destroyed); every other one is destroyed,
  // a long gap of free ids.
  ck_assert_int_eq(ms_messages_copy(st, NULL, acc, inbox, arch, uids + 10, 10), 10);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids + 5, N - 10), N - 10);
  size_t n = list_all(acc, 4, got, N);
  ck_assert_uint_eq(n, 20);
  for (size_t i = 0; i < 5; i++)
    ck_assert_uint_eq(got[i], ids[i]);
  for (size_t i = 0; i < 10; i++)
    ck_assert_uint_eq(got[5 + i], ids[10 + i]);
  for (size_t i = 0; i < 5; i++)
    ck_assert_uint_eq(got[15 + i], ids[N - 5 + i]);
  // Every listed id is a message; one page crosses the whole gap.
  for (size_t i = 0; i < n; i++) {
    struct ms_message_info mi;
    ck_assert_int_eq(ms_message_get(st, &mi, acc, got[i]), 0);
  }
  uint64_t page[8];
  size_t len;
  ck_assert_int_eq(ms_account_messages(st, page, 8, &len, acc, ids[19]), 0);
  ck_assert_uint_eq(len, 5);
  ck_assert_uint_eq(page[0], ids[N - 5]);
  // Deleting the mailboxes destroys the rest; new deliveries get new ids.
  ck_assert_int_eq(ms_mailbox_delete(st, acc, arch), 0);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids, 5), 5);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids + N - 5, 5), 5);
  ck_assert_uint_eq(list_all(acc, 4, got, N), 0);
  uint64_t fresh[2];
  deliver(acc, inbox, 2, fresh, NULL);
  ck_assert_uint_gt(fresh[0], ids[N - 1]);
  ck_assert_uint_eq(list_all(acc, 1, got, N), 2);
  ck_assert_uint_eq(got[0], fresh[0]);
  ck_assert_uint_eq(got[1], fresh[1]);
}
END_TEST

START_TEST(errors) {
  uint64_t ids[4];
  size_t len = 7;
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, 99, 0), MS_ERR_NOTFOUND);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_account_messages(st, ids, 4, &len, 0, 0), MS_ERR_NOTFOUND);
  len = 7;
  ck_assert_int_eq(ms_account_messages(NULL, ids, 4, &len, acc, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_account_messages(st, NULL, 4, &len, acc, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_messages(st, ids, 0, &len, acc, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_messages(st, ids, 4, NULL, acc, 0), MS_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailboxes");
  TCase *tc = tcase_create("account_messages");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, empty_account);
  tcase_add_test(tc, paging_across_pages);
  tcase_add_test(tc, other_accounts_never_show);
  tcase_add_test(tc, expunge_and_destroy);
  tcase_add_test(tc, errors);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
