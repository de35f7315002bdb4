// test_index.c: the packed mailbox index (index.c) against a real store.
// A writer process delivers, copies, moves, expunges and changes flags
// while this process reads two mailboxes through the index, and every read
// is compared with a walk of the LMDB records made in the same read
// transaction; the public calls that use the index (ms_mailbox_list,
// ms_mailbox_changes, ms_mailbox_sort) are compared with the paths that do
// not (an independent walk, the summary-based sort of an explicit UID
// set); the LRU bound evicts and oversized mailboxes bypass the cache.
#include "corvid_libtest.h"
#include "index.h"
#include "store_internal.h"
#include "store_util.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

static char *dir;
static ms_store *st;
static uint32_t acc, inbox, arch;

static void setup(void) {
  dir = tmp_store_dir();
  struct ms_settings set = {.no_sync = 1};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_account_create(st, &acc, "alice", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, acc, "Archive", 7, MS_ROLE_ARCHIVE), 0);
}

static void teardown(void) {
  if (st) {
    struct ms_diag dg;
    ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
    ms_store_close(st);
  }
  rm_store_dir(dir);
}

static uint32_t rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

// add appends message n with a date and size drawn from n (dates repeat,
// so sorts meet ties).
static uint32_t add(uint32_t mb, unsigned n, uint32_t flags) {
  char buf[4096];
  size_t len = make_message(buf, sizeof buf, n, (n * 37) % 2000);
  uint32_t uid;
  ck_assert_int_eq(ms_message_append(st, NULL, &uid, acc, mb, (uint8_t *)buf, len, flags,
                                     1700000000 + (int64_t)((n * 7919) % 50)),
                   0);
  return uid;
}

// add_dated appends message n with a Date field whose order differs from
// the internal dates', and zones, so that DATE and ARRIVAL sorts differ.
static void add_dated(uint32_t mb, unsigned n) {
  char buf[512];
  int len = snprintf(buf, sizeof buf,
                     "From: a@example.org\r\nDate: %u Mar 2024 %02u:00:00 %c0%u00\r\n"
                     "Subject: dated %u\r\n\r\nbody %u\r\n",
                     1 + (n * 13) % 28, (n * 5) % 24, n % 2 ? '+' : '-', n % 6, n, n);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, mb, (uint8_t *)buf, (size_t)len, 0,
                                     1700000000 + (int64_t)n),
                   0);
}

// check_snapshot compares the index of mailbox mb with the records of one
// read transaction, field by field; returns the number of messages.
static size_t check_snapshot(uint32_t mb) {
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(st, MDB_RDONLY, &t), 0);
  struct msr_mailbox m;
  ck_assert_int_eq(mbox_load(st, t, acc, mb, &m), 0);
  struct msi_box *b;
  ck_assert_int_eq(msi_get(st, t, acc, mb, &m, 1, &b), 1);
  size_t nb = 0;
  struct ms_entry *e = malloc((m.total + 1) * sizeof *e);
  ck_assert_ptr_nonnull(e);
  msi_list(b, e, m.total + 1, &nb, 0);
  ck_assert_uint_eq(nb, m.total);
  MDB_cursor *cur;
  ck_assert_int_eq(mdb_cursor_open(t, st->uids, &cur), 0);
  uint8_t k[12];
  uid_key(k, acc, mb, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE;
  size_t i = 0;
  while (mdb_cursor_get(cur, &key, &v, op) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
      break;
    struct msr_uid u;
    ck_assert_int_ge(msr_uid_decode(&u, v.mv_data, v.mv_size), 0);
    ck_assert_uint_lt(i, nb);
    ck_assert_uint_eq(e[i].uid, msr_get_be32((uint8_t *)key.mv_data + 8));
    ck_assert_uint_eq(e[i].flags, u.flags);
    ck_assert_uint_eq(e[i].message_id, u.message);
    ck_assert_uint_eq(e[i].modseq, u.modseq);
    i++;
  }
  mdb_cursor_close(cur);
  ck_assert_uint_eq(i, nb);
  // Changed since: every threshold class against the same entries.
  uint64_t since = m.highest_modseq > 3 ? m.highest_modseq - 3 : 0;
  struct ms_entry *c = malloc((m.total + 1) * sizeof *c);
  ck_assert_ptr_nonnull(c);
  size_t nc = msi_changes(b, c, m.total + 1, since), want = 0;
  for (size_t j = 0; j < nb; j++)
    if (e[j].modseq > since) {
      ck_assert_uint_lt(want, nc);
      ck_assert_uint_eq(c[want].uid, e[j].uid);
      want++;
    }
  ck_assert_uint_eq(nc, want);
  msi_release(st, b);
  txn_abort(st, t);
  free(c);
  free(e);
  return nb;
}

// writer runs in a child process with its own handle: a seeded mix of
// every operation that changes memberships, until `ops` are done.
static void writer(unsigned ops, uint64_t seed) {
  ms_store *w;
  struct ms_settings set = {.no_sync = 1};
  if (ms_store_open(&w, dir, &set) != 0)
    _exit(2);
  unsigned n = 1000;
  for (unsigned i = 0; i < ops; i++) {
    uint32_t r = rnd(&seed) % 10, mb = rnd(&seed) % 2 ? inbox : arch;
    uint32_t other = mb == inbox ? arch : inbox;
    struct ms_entry e[64];
    size_t ne = 0;
    if (ms_mailbox_list(w, e, 64, &ne, acc, mb, rnd(&seed) % 200) != 0)
      _exit(3);
    uint32_t uids[4];
    size_t nu = 0;
    for (size_t j = 0; j < ne && nu < 4; j += 1 + rnd(&seed) % 8)
      uids[nu++] = e[j].uid;
    char buf[2048];
    size_t len = make_message(buf, sizeof buf, n, n % 500);
    int rc = 0;
    if (r < 4 || !nu)
      rc = ms_message_append(w, NULL, NULL, acc, mb, (uint8_t *)buf, len, rnd(&seed) & 0x1f,
                             1700000000 + n++ % 40);
    else if (r < 7)
      rc = ms_flags_store(w, acc, mb, uids, nu, rnd(&seed) & 0x1f, rnd(&seed) & 0x1f);
    else if (r == 7)
      rc = ms_messages_copy(w, NULL, acc, mb, other, uids, nu);
    else if (r == 8)
      rc = ms_messages_move(w, NULL, acc, mb, other, uids, nu);
    else
      rc = ms_messages_expunge(w, acc, mb, uids, nu);
    if (rc < 0)
      _exit(4);
  }
  ms_store_close(w);
  _exit(0);
}

// Two processes: the reader's index always matches its own snapshot.
START_TEST(two_processes) {
  for (unsigned i = 0; i < 50; i++)
    add(i % 2 ? inbox : arch, i, 0);
  ms_store_close(st);
  st = NULL;
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    writer(1500, 12345);
  struct ms_settings set = {.no_sync = 1};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  int status = 0;
  unsigned rounds = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    check_snapshot(inbox);
    check_snapshot(arch);
    rounds++;
    if (done == pid)
      break;
  }
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
  struct ms_index_info info;
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  // The writer's changes were seen: arrays were rebuilt, not just reused.
  ck_assert_uint_gt(info.rebuilds, 0);
  ck_assert_uint_eq(info.mailboxes, 2);
  // Public calls through the index agree with a fresh walk too (now that
  // nothing writes, separate snapshots see the same state).
  size_t n = check_snapshot(inbox);
  struct ms_entry *e = malloc((n + 1) * sizeof *e), *c = malloc((n + 1) * sizeof *c);
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(c);
  size_t ne, nc, nv;
  uint32_t van[1];
  ck_assert_int_eq(ms_mailbox_list(st, e, n + 1, &ne, acc, inbox, 0), 0);
  ck_assert_uint_eq(ne, n);
  uint64_t mid = e[n / 2].modseq;
  int rc = ms_mailbox_changes(st, c, n + 1, &nc, van, 0, &nv, acc, inbox, mid);
  ck_assert(rc == 0 || rc == MS_ERR_LIMIT);
  size_t want = 0;
  for (size_t i = 0; i < n; i++)
    if (e[i].modseq > mid)
      ck_assert_uint_eq(c[want++].uid, e[i].uid);
  ck_assert_uint_eq(nc, want);
  // Paging from a UID in the middle.
  ck_assert_int_eq(ms_mailbox_list(st, c, 5, &nc, acc, inbox, e[n / 2].uid), 0);
  ck_assert_uint_eq(nc, n - n / 2 < 5 ? n - n / 2 : 5);
  ck_assert_uint_eq(c[0].uid, e[n / 2].uid);
  free(e);
  free(c);
  fprintf(stderr, "# %u reader rounds, %llu builds, %llu hits\n", rounds,
          (unsigned long long)info.builds, (unsigned long long)info.hits);
}
END_TEST

// snapshot_ok is check_snapshot's comparison without assertions, for
// threads (Check's assertions belong to the test's own thread): the index
// against the uid records of the same transaction. Returns 1 if equal, 2
// if the mailbox is beyond the cache's bound (nothing to compare).
static int snapshot_ok(uint32_t mb) {
  MDB_txn *t;
  if (txn_begin(st, MDB_RDONLY, &t) < 0)
    return 0;
  struct msr_mailbox m;
  struct msi_box *b = NULL;
  int ok = mbox_load(st, t, acc, mb, &m) == 0 ? msi_get(st, t, acc, mb, &m, 1, &b) : -1;
  if (ok == 0) {
    txn_abort(st, t);
    return 2;
  }
  ok = ok == 1;
  struct ms_entry *e = ok ? malloc((m.total + 1) * sizeof *e) : NULL;
  size_t nb = 0, i = 0;
  MDB_cursor *cur = NULL;
  ok = ok && e && mdb_cursor_open(t, st->uids, &cur) == 0;
  if (ok) {
    msi_list(b, e, m.total + 1, &nb, 0);
    uint8_t k[12];
    uid_key(k, acc, mb, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE;
    while (ok && mdb_cursor_get(cur, &key, &v, op) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      ok = msr_uid_decode(&u, v.mv_data, v.mv_size) >= 0 && i < nb &&
           e[i].uid == msr_get_be32((uint8_t *)key.mv_data + 8) && e[i].flags == u.flags &&
           e[i].modseq == u.modseq && e[i].message_id == u.message;
      i++;
    }
    ok = ok && i == nb;
  }
  if (cur)
    mdb_cursor_close(cur);
  msi_release(st, b);
  txn_abort(st, t);
  free(e);
  return ok;
}

static atomic_int writer_done;
static unsigned served[4];

static void *reader_thread(void *arg) {
  uintptr_t bad = 0, id = (uintptr_t)arg;
  uint64_t seed = id;
  while (!writer_done) {
    uint32_t mb = rnd(&seed) % 2 ? inbox : arch, key = MS_SORT_ARRIVAL, out[4];
    size_t n;
    int r = snapshot_ok(mb);
    bad += r == 0;
    served[id - 1] += r == 1;
    bad += ms_mailbox_sort(st, out, 4, &n, NULL, acc, mb, NULL, 0, &key, 1, 0) != 0;
  }
  return (void *)bad;
}

// Threads of one process share the arrays while another process writes:
// every answer still matches its own snapshot (run under ASan, this also
// checks the references that keep arrays alive outside the cache's lock).
START_TEST(threads) {
  for (unsigned i = 0; i < 50; i++)
    add(i % 2 ? inbox : arch, i, 0);
  ms_store_close(st);
  st = NULL;
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    writer(800, 777);
  // Room for about one mailbox: the threads evict each other's arrays.
  struct ms_settings set = {.no_sync = 1, .index_max_bytes = 200 * sizeof(struct msi_ent)};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  writer_done = 0;
  pthread_t th[4];
  for (uintptr_t i = 0; i < 4; i++)
    ck_assert_int_eq(pthread_create(&th[i], NULL, reader_thread, (void *)(i + 1)), 0);
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  writer_done = 1;
  uintptr_t bad = 0;
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(th[i], &r);
    bad += (uintptr_t)r;
  }
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status %d", status);
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_gt(served[0] + served[1] + served[2] + served[3], 0);
  struct ms_index_info info;
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  fprintf(stderr, "# threads: %u compared, %llu builds, %llu evictions\n",
          served[0] + served[1] + served[2] + served[3], (unsigned long long)info.builds,
          (unsigned long long)info.evictions);
}
END_TEST

// sort_both compares the index's whole-mailbox sort with the summary-based
// sort of the same UIDs given explicitly.
static void sort_both(uint32_t mb, const uint32_t *keys, size_t nk, size_t offset) {
  uint32_t all[400], a[400], b[400];
  struct ms_entry e[400];
  size_t ne, na, nb, ta, tb;
  ck_assert_int_eq(ms_mailbox_list(st, e, 400, &ne, acc, mb, 0), 0);
  for (size_t i = 0; i < ne; i++)
    all[i] = e[i].uid;
  ck_assert_int_eq(ms_mailbox_sort(st, a, 400, &na, &ta, acc, mb, NULL, 0, keys, nk, offset), 0);
  ck_assert_int_eq(ms_mailbox_sort(st, b, 400, &nb, &tb, acc, mb, all, ne, keys, nk, offset), 0);
  ck_assert_uint_eq(ta, ne);
  ck_assert_uint_eq(tb, ne);
  ck_assert_uint_eq(na, nb);
  for (size_t i = 0; i < na; i++)
    ck_assert_msg(a[i] == b[i], "position %zu: %u vs %u", i, a[i], b[i]);
}

START_TEST(sorts) {
  for (unsigned i = 0; i < 300; i++)
    add(inbox, i, 0);
  uint32_t x[] = {2, 9, 40};
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, x, 3), 3);
  struct ms_index_info before, after;
  ck_assert_int_eq(ms_store_index_info(st, &before), 0);
  static const uint32_t k1[] = {MS_SORT_ARRIVAL}, k2[] = {MS_SORT_ARRIVAL | MS_SORT_REVERSE},
                        k3[] = {MS_SORT_SIZE}, k4[] = {MS_SORT_SIZE | MS_SORT_REVERSE},
                        k5[] = {MS_SORT_ARRIVAL | MS_SORT_REVERSE, MS_SORT_SIZE};
  for (unsigned i = 0; i < 60; i++)
    add_dated(inbox, i);
  static const uint32_t k6[] = {MS_SORT_DATE},
                        k7[] = {MS_SORT_DATE | MS_SORT_REVERSE, MS_SORT_SIZE};
  sort_both(inbox, k6, 1, 0);
  sort_both(inbox, k7, 2, 3);
  sort_both(inbox, k6, 1, 0);
  sort_both(inbox, k1, 1, 0);
  sort_both(inbox, k2, 1, 0);
  sort_both(inbox, k3, 1, 0);
  sort_both(inbox, k4, 1, 17);
  sort_both(inbox, k5, 2, 290);
  // Repeated single-key sorts answer from the order kept with the array,
  // and a change (new array) starts over: still the same results.
  sort_both(inbox, k1, 1, 0);
  sort_both(inbox, k1, 1, 5);
  uint32_t u = 7;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, MS_FLAG_SEEN, 0), 1);
  add(inbox, 5000, 0);
  sort_both(inbox, k4, 1, 0);
  sort_both(inbox, k4, 1, 0);
  sort_both(inbox, k1, 1, 0);
  ck_assert_int_eq(ms_store_index_info(st, &after), 0);
  ck_assert_uint_gt(after.hits, before.hits);
  // The first arrival is one of the earliest internal dates.
  uint32_t out[1];
  size_t n;
  ck_assert_int_eq(ms_mailbox_sort(st, out, 1, &n, NULL, acc, inbox, NULL, 0, k1, 1, 0), 0);
  struct ms_entry e[1];
  ck_assert_int_eq(ms_mailbox_list(st, e, 1, &n, acc, inbox, out[0]), 0);
  struct ms_message_info mi;
  ck_assert_int_eq(ms_message_get(st, &mi, acc, e[0].message_id), 0);
  ck_assert_int_eq(mi.internal_date, 1700000000);
  // A message without a stored summary, as an older library left it: the
  // next array cannot sort by sent date, DATE sorts take the summary path
  // and still agree; ARRIVAL still comes from the array.
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(st, 0, &t), 0);
  uint8_t k[12];
  msr_be32(k, acc);
  msr_be64(k + 4, e[0].message_id);
  ck_assert_int_eq(del(t, st->summaries, k, sizeof k), 0);
  ck_assert_int_eq(txn_commit(st, t), 0);
  u = e[0].uid;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, MS_FLAG_FLAGGED, 0), 1);
  sort_both(inbox, k1, 1, 0);
  sort_both(inbox, k6, 1, 0);
  sort_both(inbox, k7, 2, 0);
  ck_assert_int_eq(ms_store_summarize(st, 100), 1);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, 0, MS_FLAG_FLAGGED), 1);
  sort_both(inbox, k6, 1, 0);
}
END_TEST

// A small bound: least recently used arrays go, oversized mailboxes are
// read from LMDB each time, and answers stay right.
START_TEST(bounded) {
  ms_store_close(st);
  struct ms_settings set = {.no_sync = 1, .index_max_bytes = 200 * sizeof(struct msi_ent)};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  uint32_t mbs[4];
  for (unsigned i = 0; i < 4; i++) {
    char name[8];
    snprintf(name, sizeof name, "m%u", i);
    ck_assert_int_eq(ms_mailbox_create(st, &mbs[i], acc, name, 2, MS_ROLE_NONE), 0);
    for (unsigned j = 0; j < 60; j++)
      add(mbs[i], i * 100 + j, j % 3);
  }
  for (unsigned j = 0; j < 250; j++)
    add(inbox, j, 0);
  for (unsigned r = 0; r < 3; r++)
    for (unsigned i = 0; i < 4; i++)
      ck_assert_uint_eq(check_snapshot(mbs[i]), 60);
  struct ms_index_info info;
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_gt(info.evictions, 0);
  ck_assert_uint_le(info.bytes, 200 * sizeof(struct msi_ent));
  ck_assert_uint_le(info.mailboxes, 3);
  // INBOX (250 messages) does not fit: listed from LMDB, never cached.
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(st, MDB_RDONLY, &t), 0);
  struct msr_mailbox m;
  ck_assert_int_eq(mbox_load(st, t, acc, inbox, &m), 0);
  struct msi_box *b;
  ck_assert_int_eq(msi_get(st, t, acc, inbox, &m, 1, &b), 0);
  txn_abort(st, t);
  struct ms_entry e[300];
  size_t n;
  uint64_t builds = info.builds;
  ck_assert_int_eq(ms_mailbox_list(st, e, 300, &n, acc, inbox, 0), 0);
  ck_assert_uint_eq(n, 250);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_eq(info.builds, builds);
  // A flag change is seen at once through the cached array.
  uint32_t u = e[0].uid;
  ck_assert_int_eq(ms_mailbox_list(st, e, 1, &n, acc, mbs[3], 0), 0);
  u = e[0].uid;
  ck_assert_int_eq(ms_flags_store(st, acc, mbs[3], &u, 1, MS_FLAG_FLAGGED, 0), 1);
  ck_assert_int_eq(ms_mailbox_list(st, e, 1, &n, acc, mbs[3], 0), 0);
  ck_assert_uint_eq(e[0].flags & MS_FLAG_FLAGGED, MS_FLAG_FLAGGED);
  // A small page after a change reads LMDB instead of rebuilding; a whole
  // fetch rebuilds and sees the change too.
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  builds = info.builds;
  ck_assert_int_eq(ms_flags_store(st, acc, mbs[3], &u, 1, 0, MS_FLAG_FLAGGED), 1);
  ck_assert_int_eq(ms_mailbox_list(st, e, 1, &n, acc, mbs[3], 0), 0);
  ck_assert_uint_eq(e[0].flags & MS_FLAG_FLAGGED, 0);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_eq(info.builds, builds);
  ck_assert_int_eq(ms_mailbox_list(st, e, 300, &n, acc, mbs[3], 0), 0);
  ck_assert_uint_eq(n, 60);
  ck_assert_uint_eq(e[0].flags & MS_FLAG_FLAGGED, 0);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_eq(info.builds, builds + 1);
}
END_TEST

int main(void) {
  Suite *s = suite_create("index");
  TCase *tc = tcase_create("index");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, two_processes);
  tcase_add_test(tc, sorts);
  tcase_add_test(tc, bounded);
  tcase_add_test(tc, threads);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
