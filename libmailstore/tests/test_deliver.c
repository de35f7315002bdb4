// test_deliver.c: delivery through the group-commit queue and the batch API:
// many threads of one process delivering at once (every acknowledged message
// present and byte-exact after reopening, commits shared), several processes
// with threads delivering into one store whose map must grow, per-item
// failures inside a batch that leave the other items stored (a full map
// included), and UID order and blob sharing inside one batch.
#include "corvid_libtest.h"
#include "store_util.h"

#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>

enum { THREADS = 32, PER_THREAD = 40, BODY = 2000 };

struct worker {
  ms_store *st;
  uint32_t acct, box;
  unsigned base;
  uint64_t ids[PER_THREAD];
  uint32_t uids[PER_THREAD];
  int failures;
  pthread_barrier_t *go;
};

// Even workers deliver one message per call; odd ones in batches of four,
// so both paths share the queue.
static void *deliver_worker(void *p) {
  struct worker *w = p;
  pthread_barrier_wait(w->go);
  char buf[4][4096];
  for (unsigned i = 0; i < PER_THREAD;) {
    if (w->base / 1000 % 2 == 0) {
      size_t len = make_message(buf[0], sizeof buf[0], w->base + i, BODY + i);
      if (ms_message_append(w->st, &w->ids[i], &w->uids[i], w->acct, w->box, (uint8_t *)buf[0], len,
                            0, (int64_t)i) != 0)
        w->failures++;
      i++;
      continue;
    }
    struct ms_delivery d[4];
    unsigned k = 0;
    for (; k < 4 && i + k < PER_THREAD; k++) {
      size_t len = make_message(buf[k], sizeof buf[k], w->base + i + k, BODY + i + k);
      d[k] = (struct ms_delivery){.account = w->acct,
                                  .mailbox = w->box,
                                  .data = (uint8_t *)buf[k],
                                  .len = len,
                                  .flags = MS_FLAG_SEEN};
    }
    if (ms_messages_deliver(w->st, d, k) != (int)k)
      w->failures++;
    for (unsigned j = 0; j < k; j++) {
      w->ids[i + j] = d[j].message_id;
      w->uids[i + j] = d[j].uid;
      if (j > 0 && d[j].uid <= d[j - 1].uid)
        w->failures++;
    }
    i += k;
  }
  return NULL;
}

static void check_message(ms_store *st, uint32_t acct, uint64_t id, unsigned n, size_t body) {
  char buf[4096], back[4096];
  size_t len = make_message(buf, sizeof buf, n, body), got = 0;
  ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &got, acct, id), 0);
  ck_assert_uint_eq(got, len);
  ck_assert_mem_eq(back, buf, len);
}

START_TEST(threads_share_commits) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct[2], box[4];
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_account_create(st, &acct[0], "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_account_create(st, &acct[1], "b", 1, 0, 0), 0);
  for (int i = 0; i < 4; i++) {
    char name[8];
    snprintf(name, sizeof name, "box%d", i);
    ck_assert_int_eq(ms_mailbox_create(st, &box[i], acct[i / 2], name, 4, 0), 0);
  }
  pthread_barrier_t go;
  pthread_barrier_init(&go, NULL, THREADS);
  static struct worker w[THREADS];
  pthread_t th[THREADS];
  for (unsigned i = 0; i < THREADS; i++) {
    w[i] = (struct worker){
        .st = st, .acct = acct[i % 4 / 2], .box = box[i % 4], .base = i * 1000, .go = &go};
    ck_assert_int_eq(pthread_create(&th[i], NULL, deliver_worker, &w[i]), 0);
  }
  for (unsigned i = 0; i < THREADS; i++)
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  pthread_barrier_destroy(&go);
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_eq(k.delivered, THREADS * PER_THREAD);
  // Callers that arrived together shared commits.
  ck_assert_uint_lt(k.commits, k.delivered);
  ck_assert_uint_gt(k.largest, 4);
  fprintf(stderr, "# %u messages in %llu commits, largest %llu\n", THREADS * PER_THREAD,
          (unsigned long long)k.commits, (unsigned long long)k.largest);
  ms_store_close(st);

  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  for (unsigned i = 0; i < THREADS; i++) {
    ck_assert_int_eq(w[i].failures, 0);
    for (unsigned j = 0; j < PER_THREAD; j++)
      check_message(st, w[i].acct, w[i].ids[j], w[i].base + j, BODY + j);
  }
  // UIDs of each mailbox are dense and each was handed out once.
  for (int b = 0; b < 4; b++) {
    struct ms_mailbox_info mi;
    ck_assert_int_eq(ms_mailbox_get(st, &mi, acct[b / 2], box[b]), 0);
    ck_assert_uint_eq(mi.total, THREADS / 4 * PER_THREAD);
    ck_assert_uint_eq(mi.uidnext, mi.total + 1);
    // Batched deliveries were \Seen; single ones were not.
    ck_assert_uint_eq(mi.unseen, b % 2 == 0 ? mi.total : 0);
  }
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// crowd_worker delivers CROWD_CALLS messages one per call, and between them
// calls that fail as a whole (no item valid), which leave the queue without
// joining it.
enum { CROWD = 160, CROWD_CALLS = 8 };

struct crowd {
  ms_store *st;
  uint32_t acct, box;
  unsigned n;
  int failures;
  pthread_barrier_t *go;
};

static void *crowd_worker(void *p) {
  struct crowd *c = p;
  pthread_barrier_wait(c->go);
  char buf[1024];
  for (unsigned i = 0; i < CROWD_CALLS; i++) {
    size_t len = make_message(buf, sizeof buf, c->n * 100 + i, 300);
    struct ms_delivery bad = {.account = c->acct,
                              .mailbox = c->box,
                              .data = (uint8_t *)buf,
                              .len = len,
                              .flags = 1u << 30};
    if (i % 3 == 1 &&
        (ms_messages_deliver(c->st, &bad, 1) != 0 || bad.status != MS_ERR_INVALID_ARGUMENT))
      c->failures++;
    if (ms_message_append(c->st, NULL, NULL, c->acct, c->box, (uint8_t *)buf, len, 0, 0) != 0)
      c->failures++;
  }
  return NULL;
}

// More callers at once than a committer notes on its stack for waking
// (group_commit), mixed with calls that fail whole: every caller returns,
// and exactly the good messages are stored.
START_TEST(crowd_of_callers) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  struct ms_settings set = {.group_wait_us = 20000};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "in", 2, 0), 0);
  pthread_barrier_t go;
  pthread_barrier_init(&go, NULL, CROWD);
  static struct crowd c[CROWD];
  pthread_t th[CROWD];
  for (unsigned i = 0; i < CROWD; i++) {
    c[i] = (struct crowd){.st = st, .acct = acct, .box = box, .n = i, .go = &go};
    ck_assert_int_eq(pthread_create(&th[i], NULL, crowd_worker, &c[i]), 0);
  }
  for (unsigned i = 0; i < CROWD; i++)
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  pthread_barrier_destroy(&go);
  for (unsigned i = 0; i < CROWD; i++)
    ck_assert_int_eq(c[i].failures, 0);
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_eq(k.delivered, CROWD * CROWD_CALLS);
  fprintf(stderr, "# %u messages in %llu commits, largest %llu\n", CROWD * CROWD_CALLS,
          (unsigned long long)k.commits, (unsigned long long)k.largest);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, CROWD * CROWD_CALLS);
  ck_assert_uint_eq(mi.uidnext, mi.total + 1);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// Several processes, each with several threads, share one store that starts
// with a tiny map, so that threads grow it and processes adopt each other's
// growth while delivering.
START_TEST(processes_and_threads) {
  enum { PROCS = 3, PTHREADS = 4 };
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  struct ms_settings tiny = {.initial_map_size = 256 * 1024};
  ck_assert_int_eq(ms_store_open(&st, dir, &tiny), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, 0), 0);
  ms_store_close(st);
  pid_t pids[PROCS];
  for (int p = 0; p < PROCS; p++) {
    pids[p] = fork();
    ck_assert_int_ge(pids[p], 0);
    if (pids[p] == 0) {
      ms_store *cs;
      if (ms_store_open(&cs, dir, &tiny) != 0)
        _exit(2);
      pthread_barrier_t go;
      pthread_barrier_init(&go, NULL, PTHREADS);
      static struct worker w[PTHREADS];
      pthread_t th[PTHREADS];
      for (unsigned i = 0; i < PTHREADS; i++) {
        w[i] = (struct worker){.st = cs,
                               .acct = acct,
                               .box = box,
                               .base = (unsigned)p * 100000u + i * 1000,
                               .go = &go};
        pthread_create(&th[i], NULL, deliver_worker, &w[i]);
      }
      int bad = 0;
      for (unsigned i = 0; i < PTHREADS; i++) {
        pthread_join(th[i], NULL);
        bad += w[i].failures;
      }
      ms_store_close(cs);
      _exit(bad ? 3 : 0);
    }
  }
  for (int p = 0; p < PROCS; p++) {
    int status;
    ck_assert_int_eq(waitpid(pids[p], &status, 0), pids[p]);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
  }
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, PROCS * PTHREADS * PER_THREAD);
  ck_assert_uint_eq(mi.uidnext, mi.total + 1);
  // Every message is one of the children's, complete.
  struct ms_entry e[64];
  size_t got;
  uint32_t from = 1;
  size_t seen = 0;
  do {
    ck_assert_int_eq(ms_mailbox_list(st, e, 64, &got, acct, box, from), 0);
    for (size_t i = 0; i < got; i++) {
      char back[4096];
      size_t n = 0;
      ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &n, acct, e[i].message_id),
                       0);
      unsigned num = 0;
      const char *subj = memmem(back, n, "Subject: test ", 14);
      ck_assert_ptr_nonnull(subj);
      ck_assert_int_eq(sscanf(subj + 14, "%u", &num), 1);
      check_message(st, acct, e[i].message_id, num, BODY + num % 1000);
      from = e[i].uid + 1;
      seen++;
    }
  } while (got == 64);
  ck_assert_uint_eq(seen, mi.total);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

START_TEST(batch_items_fail_alone) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box, q, qbox;
  ck_assert_int_eq(ms_store_open(&st, dir, &(struct ms_settings){.max_message_size = 3000}), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, 0), 0);
  ck_assert_int_eq(ms_account_create(st, &q, "q", 1, 0, 2), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &qbox, q, "INBOX", 5, 0), 0);
  static char big[4000];
  char m[8][512];
  size_t len[8];
  for (unsigned i = 0; i < 8; i++)
    len[i] = make_message(m[i], sizeof m[i], i, 100 + i);
  memset(big, 'x', sizeof big);
  struct ms_delivery d[] = {
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[0], .len = len[0]},
      {.account = acct, .mailbox = 999, .data = (uint8_t *)m[1], .len = len[1]},
      {.account = q, .mailbox = qbox, .data = (uint8_t *)m[2], .len = len[2]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[3], .len = len[3], .flags = 1u << 7},
      {.account = q, .mailbox = qbox, .data = (uint8_t *)m[4], .len = len[4]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)big, .len = sizeof big},
      {.account = q, .mailbox = qbox, .data = (uint8_t *)m[5], .len = len[5]}, // over quota
      {.account = 777, .mailbox = box, .data = (uint8_t *)m[6], .len = len[6]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[7], .len = 0},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[7], .len = len[7]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[7], .len = len[7]}, // same bytes
  };
  const int want[] = {0,
                      MS_ERR_NOTFOUND,
                      0,
                      MS_ERR_INVALID_ARGUMENT,
                      0,
                      MS_ERR_LIMIT,
                      MS_ERR_QUOTA,
                      MS_ERR_NOTFOUND,
                      MS_ERR_INVALID_ARGUMENT,
                      0,
                      0};
  size_t n = sizeof d / sizeof d[0];
  ck_assert_int_eq(ms_messages_deliver(st, d, n), 5);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(d[i].status == want[i], "item %zu: %d, want %d", i, d[i].status, want[i]);
  // UIDs follow item order per mailbox, with no gaps for the failed items.
  ck_assert_uint_eq(d[0].uid, 1);
  ck_assert_uint_eq(d[9].uid, 2);
  ck_assert_uint_eq(d[10].uid, 3);
  ck_assert_uint_eq(d[2].uid, 1);
  ck_assert_uint_eq(d[4].uid, 2);
  ck_assert_uint_ne(d[9].message_id, d[10].message_id);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, 3);
  ck_assert_uint_eq(mi.uidnext, 4);
  ck_assert_uint_eq(mi.size, len[0] + 2 * len[7]);
  // All of one call's changes to an account share one MODSEQ.
  struct ms_entry e[4];
  size_t got;
  ck_assert_int_eq(ms_mailbox_list(st, e, 4, &got, acct, box, 1), 0);
  ck_assert_uint_eq(got, 3);
  ck_assert_uint_eq(e[0].modseq, e[2].modseq);
  ck_assert_uint_eq(mi.highest_modseq, e[0].modseq);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, q), 0);
  ck_assert_uint_eq(ai.used_messages, 2);
  // The shared blob survives expunging one of its two messages.
  uint32_t one = 2;
  ck_assert_int_eq(ms_messages_expunge(st, acct, box, &one, 1), 1);
  check_message(st, acct, d[10].message_id, 7, 107);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  // Whole-call errors.
  ck_assert_int_eq(ms_messages_deliver(st, d, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_messages_deliver(st, NULL, 1), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_messages_deliver(NULL, d, 1), MS_ERR_INVALID_ARGUMENT);
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, &(struct ms_settings){.max_batch = 2}), 0);
  ck_assert_int_eq(ms_messages_deliver(st, d, 3), MS_ERR_LIMIT);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A large batch crosses map growth: the transaction is retried from scratch
// and every item is stored exactly once.
START_TEST(big_batch_grows_map) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  ck_assert_int_eq(ms_store_open(&st, dir, &(struct ms_settings){.initial_map_size = 128 * 1024}),
                   0);
  ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, 0), 0);
  enum { N = 2000 };
  static char bufs[N][1200];
  static struct ms_delivery d[N];
  for (unsigned i = 0; i < N; i++) {
    size_t len = make_message(bufs[i], sizeof bufs[i], i, 900 + i % 200);
    d[i] = (struct ms_delivery){
        .account = acct, .mailbox = box, .data = (uint8_t *)bufs[i], .len = len};
  }
  ck_assert_int_eq(ms_messages_deliver(st, d, N), N);
  for (unsigned i = 0; i < N; i++) {
    ck_assert_uint_eq(d[i].uid, i + 1);
    check_message(st, acct, d[i].message_id, i, 900 + i % 200);
  }
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_eq(k.commits, 1);
  ck_assert_uint_eq(k.largest, N);
  ck_assert_int_eq(ms_store_verify(st, NULL), 0);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A store whose map cannot grow any more: a batch that does not fit as a
// whole is written again item by item, so only the item that cannot fit
// fails (-ENOSPC) and every other item is stored, durably, with UIDs in
// item order and no gap. The store stays consistent and usable, and a
// later delivery that fits still succeeds.
START_TEST(full_map_fails_the_item_alone) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  const struct ms_settings set = {.initial_map_size = 1u << 20, .max_map_size = 1u << 20};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, 0), 0);
  // Incompressible: 1.5 MiB of random bytes cannot fit in a 1 MiB map.
  enum { BIG = 3u << 19 };
  static char big[BIG];
  int head = snprintf(big, sizeof big, "Subject: big\r\n\r\n");
  random_bytes(big + head, sizeof big - (size_t)head, 0x9e3779b97f4a7c15u);
  char m[3][512];
  size_t len[3];
  for (unsigned i = 0; i < 3; i++)
    len[i] = make_message(m[i], sizeof m[i], i, 200 + i);
  struct ms_delivery d[] = {
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[0], .len = len[0]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)big, .len = sizeof big},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[1], .len = len[1]},
      {.account = acct, .mailbox = box, .data = (uint8_t *)m[2], .len = len[2]},
  };
  ck_assert_int_eq(ms_messages_deliver(st, d, 4), 3);
  ck_assert_int_eq(d[1].status, -ENOSPC);
  const unsigned small[3] = {0, 2, 3};
  for (unsigned k = 0; k < 3; k++) {
    ck_assert_int_eq(d[small[k]].status, 0);
    ck_assert_uint_eq(d[small[k]].uid, k + 1);
    check_message(st, acct, d[small[k]].message_id, k, 200 + k);
  }
  // The same message alone fails the same way and changes nothing.
  uint32_t uid = 0;
  ck_assert_int_eq(ms_message_append(st, NULL, &uid, acct, box, (uint8_t *)big, sizeof big, 0, 0),
                   -ENOSPC);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, 3);
  ck_assert_uint_eq(mi.uidnext, 4);
  ck_assert_uint_eq(mi.size, len[0] + len[1] + len[2]);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, acct), 0);
  ck_assert_uint_eq(ai.used_messages, 3);
  ck_assert_uint_eq(ai.used_bytes, len[0] + len[1] + len[2]);
  verify_ok(st);
  ms_store_close(st);

  // Durable: all three are there after reopening, and the store takes more.
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  for (unsigned k = 0; k < 3; k++)
    check_message(st, acct, d[small[k]].message_id, k, 200 + k);
  char more[512];
  size_t more_len = make_message(more, sizeof more, 3, 203);
  uint64_t id = 0;
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acct, box, (uint8_t *)more, more_len, 0, 0), 0);
  ck_assert_uint_eq(uid, 4);
  check_message(st, acct, id, 3, 203);
  verify_ok(st);
  ms_store_close(st);
  struct stat sb;
  char path[4200];
  snprintf(path, sizeof path, "%s/data.mdb", dir);
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_le(sb.st_size, 1 << 20);
  rm_store_dir(dir);
}
END_TEST

// Any zstd level (ms_settings.compression_level, clamped to zstd's range)
// stores messages that read back byte for byte; a store written at one
// level is read and extended at another.
START_TEST(compression_levels) {
  char *dir = tmp_store_dir();
  const int levels[] = {1, -5, 19, 1000, -1000000};
  uint32_t acct = 0, box = 0;
  uint64_t ids[5];
  for (int l = 0; l < 5; l++) {
    ms_store *st;
    ck_assert_int_eq(ms_store_open(&st, dir, &(struct ms_settings){.compression_level = levels[l]}),
                     0);
    if (l == 0) {
      ck_assert_int_eq(ms_account_create(st, &acct, "a", 1, 0, 0), 0);
      ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, 0), 0);
    }
    char buf[4096];
    size_t len = make_message(buf, sizeof buf, (unsigned)l, 3000);
    ck_assert_int_eq(ms_message_append(st, &ids[l], NULL, acct, box, (uint8_t *)buf, len, 0, 0), 0);
    for (int k = 0; k <= l; k++)
      check_message(st, acct, ids[k], (unsigned)k, 3000);
    ck_assert_int_eq(ms_store_verify(st, NULL), 0);
    ms_store_close(st);
  }
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("deliver");
  TCase *tc = tcase_create("deliver");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, threads_share_commits);
  tcase_add_test(tc, crowd_of_callers);
  tcase_add_test(tc, processes_and_threads);
  tcase_add_test(tc, batch_items_fail_alone);
  tcase_add_test(tc, big_batch_grows_map);
  tcase_add_test(tc, full_map_fails_the_item_alone);
  tcase_add_test(tc, compression_levels);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
