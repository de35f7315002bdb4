// test_search_queue.c: the search queue against a real store: deliveries
// (single and batched) enqueue their messages in order; copy and move
// enqueue nothing; expunge, move-then-expunge and mailbox delete enqueue a
// removal only for messages they destroy; reading pages in order from any
// position; acknowledgement deletes exactly the entries through a sequence
// number, durably; verify checks the entries; and kill -9 during delivery
// never leaves a stored message without its entry or an entry without its
// message.
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static char *dir;
static ms_store *st;
static uint32_t acc, inbox, arch;

static void setup(void) {
  dir = tmp_store_dir();
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_account_create(st, &acc, "erin", 4, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, acc, "Archive", 7, MS_ROLE_ARCHIVE), 0);
}

static void teardown(void) {
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
  ms_store_close(st);
  rm_store_dir(dir);
}

static uint64_t add(uint32_t box, unsigned n) {
  char buf[2048];
  size_t len = make_message(buf, sizeof buf, n, 200 + n % 50);
  uint64_t id = 0;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acc, box, (uint8_t *)buf, len, 0, n), 0);
  return id;
}

// queue_all reads the whole queue after `after` in pages of 3.
static size_t queue_all(struct ms_search_item *out, size_t cap, uint64_t after) {
  size_t n = 0, got;
  do {
    ck_assert_int_eq(ms_search_queue_read(st, out + n, cap - n < 3 ? cap - n : 3, &got, after), 0);
    for (size_t i = 0; i < got; i++) {
      ck_assert_uint_gt(out[n + i].seq, after);
      after = out[n + i].seq;
    }
    n += got;
  } while (got > 0 && n < cap);
  return n;
}

START_TEST(delivery_enqueues_in_order) {
  uint64_t ids[10];
  for (unsigned i = 0; i < 5; i++)
    ids[i] = add(inbox, i);
  char bufs[5][512];
  struct ms_delivery d[5];
  for (unsigned i = 0; i < 5; i++) {
    size_t len = make_message(bufs[i], sizeof bufs[i], 100 + i, 100);
    d[i] = (struct ms_delivery){
        .account = acc, .mailbox = arch, .data = (uint8_t *)bufs[i], .len = len};
  }
  d[2].flags = 0x100; // invalid: fails alone, enqueues nothing
  ck_assert_int_eq(ms_messages_deliver(st, d, 5), 4);
  struct ms_search_item q[32];
  size_t n = queue_all(q, 32, 0);
  ck_assert_uint_eq(n, 9);
  for (size_t i = 0; i < n; i++) {
    ck_assert_uint_eq(q[i].seq, i + 1);
    ck_assert_uint_eq(q[i].op, MS_SEARCH_INDEX);
    ck_assert_uint_eq(q[i].account, acc);
  }
  for (unsigned i = 0; i < 5; i++)
    ck_assert_uint_eq(q[i].message_id, ids[i]);
  ck_assert_uint_eq(q[5].message_id, d[0].message_id);
  ck_assert_uint_eq(q[6].message_id, d[1].message_id);
  ck_assert_uint_eq(q[7].message_id, d[3].message_id);
  ck_assert_uint_eq(q[8].message_id, d[4].message_id);
  // Paging from the middle, and past the end.
  size_t got;
  ck_assert_int_eq(ms_search_queue_read(st, q, 32, &got, 7), 0);
  ck_assert_uint_eq(got, 2);
  ck_assert_uint_eq(q[0].seq, 8);
  ck_assert_int_eq(ms_search_queue_read(st, q, 32, &got, 9), 0);
  ck_assert_uint_eq(got, 0);
  ck_assert_int_eq(ms_search_queue_read(st, q, 0, &got, 0), 0);
  ck_assert_uint_eq(got, 0);
  ck_assert_int_eq(ms_search_queue_read(st, NULL, 1, &got, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_search_queue_read(NULL, q, 1, &got, 0), MS_ERR_INVALID_ARGUMENT);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.search_queued, 9);
}
END_TEST

START_TEST(acknowledge) {
  for (unsigned i = 0; i < 10; i++)
    add(inbox, i);
  ck_assert_int_eq(ms_search_queue_ack(st, 0), 0);
  ck_assert_int_eq(ms_search_queue_ack(st, 4), 4);
  ck_assert_int_eq(ms_search_queue_ack(st, 4), 0);
  struct ms_search_item q[32];
  size_t n = queue_all(q, 32, 0);
  ck_assert_uint_eq(n, 6);
  ck_assert_uint_eq(q[0].seq, 5);
  // Sequence numbers are never reused, also after the queue empties.
  ck_assert_int_eq(ms_search_queue_ack(st, UINT64_MAX), 6);
  ck_assert_uint_eq(queue_all(q, 32, 0), 0);
  add(inbox, 50);
  ck_assert_uint_eq(queue_all(q, 32, 0), 1);
  ck_assert_uint_eq(q[0].seq, 11);
  ck_assert_int_eq(ms_search_queue_ack(NULL, 1), MS_ERR_INVALID_ARGUMENT);
  // Acknowledgements are durable.
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_uint_eq(queue_all(q, 32, 0), 1);
  ck_assert_uint_eq(q[0].seq, 11);
}
END_TEST

START_TEST(removals) {
  uint64_t ids[6];
  for (unsigned i = 0; i < 6; i++)
    ids[i] = add(inbox, i);
  ck_assert_int_eq(ms_search_queue_ack(st, UINT64_MAX), 6);
  // Copy and move keep message ids: nothing to index or remove.
  uint32_t uids[2] = {1, 2}, out[2];
  ck_assert_int_eq(ms_messages_copy(st, out, acc, inbox, arch, uids, 2), 2);
  uint32_t three = 3;
  ck_assert_int_eq(ms_messages_move(st, out, acc, inbox, arch, &three, 1), 1);
  struct ms_search_item q[32];
  ck_assert_uint_eq(queue_all(q, 32, 0), 0);
  // Expunging UID 1 from INBOX leaves its copy in Archive: no removal.
  // UID 4 is in INBOX only: its removal is queued.
  uint32_t ex[2] = {1, 4};
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, ex, 2), 2);
  size_t n = queue_all(q, 32, 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(q[0].op, MS_SEARCH_REMOVE);
  ck_assert_uint_eq(q[0].message_id, ids[3]);
  // Deleting Archive destroys message 1 (now in no mailbox) and message 3
  // (moved there); message 2 lives on in INBOX.
  ck_assert_int_eq(ms_mailbox_delete(st, acc, arch), 0);
  n = queue_all(q, 32, 0);
  ck_assert_uint_eq(n, 3);
  ck_assert_uint_eq(q[1].op, MS_SEARCH_REMOVE);
  ck_assert_uint_eq(q[2].op, MS_SEARCH_REMOVE);
  uint64_t a = q[1].message_id, b = q[2].message_id;
  ck_assert((a == ids[0] && b == ids[2]) || (a == ids[2] && b == ids[0]));
  // Expunge of \Deleted messages goes the same way.
  uint32_t five = 5;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &five, 1, MS_FLAG_DELETED, 0), 1);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, NULL, 0), 1);
  n = queue_all(q, 32, 0);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(q[3].message_id, ids[4]);
  ck_assert_uint_eq(q[3].op, MS_SEARCH_REMOVE);
}
END_TEST

// verify notices a queue entry that names a message id its account never
// handed out (written behind the library's back).
START_TEST(verify_checks_entries) {
  add(inbox, 1);
  ms_store_close(st);
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 16);
  ck_assert_int_eq(mdb_env_open(env, dir, 0, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "squeue", 0, &d), 0);
  uint8_t k[8] = {0, 0, 0, 0, 0, 0, 0, 9};
  uint8_t v[13] = {MS_SEARCH_INDEX, (uint8_t)acc, 0, 0, 0, 99};
  MDB_val key = {8, k}, data = {13, v};
  ck_assert_int_eq(mdb_put(t, d, &key, &data, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  struct ms_diag dg;
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_ptr_nonnull(strstr(dg.message, "search queue"));
  // Acknowledging it repairs the store for teardown's verify.
  ck_assert_int_eq(ms_search_queue_ack(st, 9), 2);
}
END_TEST

// A child delivers singly and in batches until killed; after each kill the
// queue holds exactly one INDEX entry per stored message (no ack runs), so
// no message is stored without its entry and no entry survives without its
// message.
START_TEST(kill9_enqueue_atomic) {
  enum { ROUNDS = 12 };
  ms_store_close(st);
  srand((unsigned)time(NULL));
  for (unsigned round = 0; round < ROUNDS; round++) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      ms_store *cs;
      if (ms_store_open(&cs, dir, NULL) != 0)
        _exit(2);
      static char bufs[8][1024];
      for (unsigned n = round * 1000000u + 1;; n += 8) {
        struct ms_delivery d[8];
        size_t k = 1 + n % 8;
        for (size_t i = 0; i < k; i++) {
          size_t len = make_message(bufs[i], sizeof bufs[i], n + (unsigned)i, 300);
          d[i] = (struct ms_delivery){
              .account = acc, .mailbox = inbox, .data = (uint8_t *)bufs[i], .len = len};
        }
        if (ms_messages_deliver(cs, d, k) != (int)k)
          _exit(3);
      }
    }
    struct timespec ts = {0, (long)(rand() % 150) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status));
    ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
    struct ms_diag dg;
    ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
    struct ms_mailbox_info mi;
    ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
    struct ms_store_stats s;
    ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
    ck_assert_uint_eq(s.search_queued, mi.total);
    ck_assert_uint_eq(s.messages, mi.total);
    // Entry i names the message listed at position i (both in id order).
    static struct ms_entry e[1 << 16];
    static struct ms_search_item q[1 << 16];
    size_t ne, nq;
    ck_assert_uint_lt(mi.total, 1 << 16);
    ck_assert_int_eq(ms_mailbox_list(st, e, 1 << 16, &ne, acc, inbox, 1), 0);
    ck_assert_int_eq(ms_search_queue_read(st, q, 1 << 16, &nq, 0), 0);
    ck_assert_uint_eq(ne, nq);
    for (size_t i = 0; i < ne; i++) {
      ck_assert_uint_eq(q[i].op, MS_SEARCH_INDEX);
      ck_assert_uint_eq(q[i].message_id, e[i].message_id);
    }
    if (round + 1 < ROUNDS)
      ms_store_close(st);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("search_queue");
  TCase *tc = tcase_create("search_queue");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, delivery_enqueues_in_order);
  tcase_add_test(tc, acknowledge);
  tcase_add_test(tc, removals);
  tcase_add_test(tc, verify_checks_entries);
  tcase_add_test(tc, kill9_enqueue_atomic);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
