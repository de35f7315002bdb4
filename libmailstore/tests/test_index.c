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

// kw_compared counts keyword ids check_snapshot compared (so that a test
// can tell it compared some).
static size_t kw_compared;

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
  // Keywords as the index answers them (every id fits: at most 64 each).
  struct ms_keyword_entry *ke = malloc((m.total + 1) * sizeof *ke);
  uint32_t *kids = malloc((m.total + 1) * MSI_KEYWORDS * sizeof *kids);
  ck_assert_ptr_nonnull(ke);
  ck_assert_ptr_nonnull(kids);
  size_t nke = 0, nkids = 0;
  int kw_served =
      msi_list_keywords(b, ke, m.total + 1, &nke, kids, (m.total + 1) * MSI_KEYWORDS, &nkids, 0);
  ck_assert_int_ge(kw_served, 0);
  if (kw_served)
    ck_assert_uint_eq(nke, nb);
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
    if (kw_served) {
      ck_assert_uint_eq(ke[i].entry.uid, e[i].uid);
      ck_assert_uint_eq(ke[i].entry.flags, u.flags);
      uint32_t c = 0;
      for (uint32_t id = 0; id < MSR_KEYWORDS_MAX; id++)
        if (u.kw[id / 8] & (1u << (id % 8))) {
          ck_assert_uint_lt(c, ke[i].count);
          ck_assert_uint_eq(kids[ke[i].first + c], id);
          c++;
        }
      ck_assert_uint_eq(c, ke[i].count);
      kw_compared += c;
    }
    i++;
  }
  mdb_cursor_close(cur);
  ck_assert_uint_eq(i, nb);
  free(ke);
  free(kids);
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
    uint32_t r = rnd(&seed) % 12, mb = rnd(&seed) % 2 ? inbox : arch;
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
    else if (r == 9)
      rc = ms_messages_expunge(w, acc, mb, uids, nu);
    else {
      // Keywords: add, remove or replace one or two of a few names.
      static const char *const pool[] = {"$Junk", "work", "later", "\\Flagged", "x1", "x2"};
      const char *names[2] = {pool[rnd(&seed) % 6], pool[rnd(&seed) % 6]};
      size_t lens[2] = {strlen(names[0]), strlen(names[1])};
      rc = ms_keywords_store(w, acc, mb, uids, nu, (int)(1 + rnd(&seed) % 3), names, lens,
                             1 + rnd(&seed) % 2);
    }
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
  // The writer's keyword changes were among what the index matched.
  ck_assert_uint_gt(kw_compared, 0);
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

// kwres collects what the keyword calls answer, word by word, so that two
// runs (index on, index off) can be compared whole.
struct kwres {
  uint32_t w[200000];
  size_t n;
};

static void kw_put(struct kwres *r, uint64_t x) {
  ck_assert_uint_lt(r->n, sizeof r->w / sizeof r->w[0]);
  r->w[r->n++] = (uint32_t)x;
}

// kw_answers runs ms_mailbox_list_keywords over mailbox mb with a grid of
// page sizes, id capacities and starting UIDs, paging to the end, and
// ms_mailbox_keywords with a few capacities, into r.
static void kw_answers(uint32_t mb, struct kwres *r) {
  static struct ms_keyword_entry out[300];
  static uint32_t ids[300 * MSI_KEYWORDS];
  static const size_t caps[] = {1, 3, 300}, id_caps[] = {0, 1, 2, 5, 300 * MSI_KEYWORDS};
  static const uint32_t firsts[] = {0, 2, 17, 100000};
  for (size_t c = 0; c < 3; c++)
    for (size_t ic = 0; ic < 5; ic++)
      for (size_t f = 0; f < 4; f++) {
        uint32_t first = firsts[f];
        for (int page = 0; page < 400; page++) {
          size_t n = 99, ni = 99;
          int rc =
              ms_mailbox_list_keywords(st, out, caps[c], &n, ids, id_caps[ic], &ni, acc, mb, first);
          kw_put(r, (uint32_t)rc);
          kw_put(r, n);
          kw_put(r, ni);
          for (size_t i = 0; i < n; i++) {
            kw_put(r, out[i].entry.uid);
            kw_put(r, out[i].entry.flags);
            kw_put(r, out[i].entry.message_id);
            kw_put(r, out[i].entry.modseq);
            kw_put(r, out[i].first);
            kw_put(r, out[i].count);
          }
          for (size_t i = 0; i < ni; i++)
            kw_put(r, ids[i]);
          if (rc != 0 || n == 0)
            break;
          first = out[n - 1].entry.uid + 1;
        }
      }
  static const size_t mcaps[] = {0, 2, 2000};
  for (size_t c = 0; c < 3; c++) {
    uint32_t got[2000];
    size_t n = 99;
    int rc = ms_mailbox_keywords(st, got, mcaps[c], &n, acc, mb);
    kw_put(r, (uint32_t)rc);
    kw_put(r, n);
    for (size_t i = 0; i < n && i < mcaps[c]; i++)
      kw_put(r, got[i]);
  }
}

// kw_served says whether the index carries the keywords of mb now (1), or
// has too many of them for it (0).
static int kw_served(uint32_t mb) {
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(st, MDB_RDONLY, &t), 0);
  struct msr_mailbox m;
  ck_assert_int_eq(mbox_load(st, t, acc, mb, &m), 0);
  struct msi_box *b;
  ck_assert_int_eq(msi_get(st, t, acc, mb, &m, 1, &b), 1);
  struct ms_keyword_entry e;
  uint32_t id[MSI_KEYWORDS];
  size_t n, ni;
  int rc = msi_list_keywords(b, &e, 1, &n, id, MSI_KEYWORDS, &ni, 0);
  msi_release(st, b);
  txn_abort(st, t);
  ck_assert_int_ge(rc, 0);
  return rc;
}

// kw_compare answers the keyword calls for each mailbox of mbs through the
// index and again with it off (a handle whose bound fits no mailbox, so
// every call reads LMDB), and asserts both agree.
static void kw_compare(const uint32_t *mbs, size_t nmb) {
  static struct kwres on, off;
  on.n = off.n = 0;
  struct ms_index_info info;
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  uint64_t before = info.builds + info.hits;
  for (size_t i = 0; i < nmb; i++)
    kw_answers(mbs[i], &on);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_gt(info.builds + info.hits, before);
  ms_store_close(st);
  struct ms_settings none = {.no_sync = 1, .index_max_bytes = 1};
  ck_assert_int_eq(ms_store_open(&st, dir, &none), 0);
  for (size_t i = 0; i < nmb; i++)
    kw_answers(mbs[i], &off);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_eq(info.builds + info.hits, 0);
  ms_store_close(st);
  struct ms_settings set = {.no_sync = 1};
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_uint_eq(on.n, off.n);
  for (size_t i = 0; i < on.n; i++)
    ck_assert_msg(on.w[i] == off.w[i], "word %zu: index %u, LMDB %u", i, on.w[i], off.w[i]);
}

static int kw_store(uint32_t mb, const uint32_t *uids, size_t n, int op, const char *name) {
  const char *names[1] = {name};
  size_t lens[1] = {strlen(name)};
  return ms_keywords_store(st, acc, mb, uids, n, op, names, lens, 1);
}

// Keywords set and cleared are seen through the index at once (each change
// raises HIGHESTMODSEQ, so the array is rebuilt), with every paging rule of
// ms_mailbox_list_keywords, and equal what LMDB answers.
START_TEST(keywords_through_index) {
  uint32_t uids[40];
  for (unsigned i = 0; i < 40; i++)
    uids[i] = add(inbox, i, i % 3 ? 0 : MS_FLAG_SEEN);
  const uint32_t mbs[] = {inbox};
  kw_compare(mbs, 1); // no keywords at all
  // Defined in an order unlike their ids' use: "later" (id 0) goes on
  // messages after "work" (id 1) and "$Junk" (id 2) do.
  ck_assert_int_eq(kw_store(arch, uids, 0, MS_KEYWORDS_ADD, "later"), 0);
  ck_assert_int_eq(kw_store(inbox, uids, 10, MS_KEYWORDS_ADD, "work"), 10);
  ck_assert_int_eq(kw_store(inbox, uids + 5, 10, MS_KEYWORDS_ADD, "$Junk"), 10);
  ck_assert_int_eq(kw_store(inbox, uids + 8, 20, MS_KEYWORDS_ADD, "later"), 20);
  struct ms_keyword_entry e[40];
  uint32_t ids[200];
  size_t n, ni;
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 40, &n, ids, 200, &ni, acc, inbox, 0), 0);
  ck_assert_uint_eq(n, 40);
  ck_assert_uint_eq(ni, 40);
  // UID of message 8: work (1), later (0), $Junk (2), listed by id.
  ck_assert_uint_eq(e[8].count, 3);
  ck_assert_uint_eq(ids[e[8].first], 0);
  ck_assert_uint_eq(ids[e[8].first + 1], 1);
  ck_assert_uint_eq(ids[e[8].first + 2], 2);
  ck_assert_int_eq(kw_served(inbox), 1);
  kw_compare(mbs, 1);
  // Clear, replace, and a system flag among them.
  ck_assert_int_eq(kw_store(inbox, uids, 9, MS_KEYWORDS_REMOVE, "work"), 9);
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 40, &n, ids, 200, &ni, acc, inbox, 0), 0);
  ck_assert_uint_eq(e[0].count, 0);
  ck_assert_uint_eq(e[8].count, 2);
  ck_assert_uint_eq(ids[e[8].first], 0);
  ck_assert_uint_eq(ids[e[8].first + 1], 2);
  ck_assert_int_eq(kw_store(inbox, uids + 8, 1, MS_KEYWORDS_REPLACE, "\\Flagged"), 1);
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 40, &n, ids, 200, &ni, acc, inbox, 0), 0);
  ck_assert_uint_eq(e[8].count, 0);
  ck_assert_uint_eq(e[8].entry.flags & MS_FLAG_FLAGGED, MS_FLAG_FLAGGED);
  kw_compare(mbs, 1);
  // Every message loses "later": it leaves the mailbox's keyword list
  // ("work" stays on message 9, "$Junk" on 5..14).
  ck_assert_int_eq(kw_store(inbox, uids, 40, MS_KEYWORDS_REMOVE, "later"), 19);
  uint32_t got[8];
  ck_assert_int_eq(ms_mailbox_keywords(st, got, 8, &n, acc, inbox), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(got[0], 1);
  ck_assert_uint_eq(got[1], 2);
  kw_compare(mbs, 1);
}
END_TEST

// More than 64 distinct keywords in a mailbox: its keyword calls read LMDB
// (and stay right) while another mailbox of the account, using a few ids
// above 64, is still answered from the index; once enough messages go, the
// first is answered from the index again.
START_TEST(keywords_over_64) {
  uint32_t uids[80], auids[5];
  for (unsigned i = 0; i < 80; i++)
    uids[i] = add(inbox, i, 0);
  for (unsigned i = 0; i < 5; i++)
    auids[i] = add(arch, 100 + i, 0);
  for (unsigned k = 0; k < 70; k++) {
    char name[16];
    snprintf(name, sizeof name, "kw%u", k);
    // kw<k> on messages k and k + 10 (when there).
    uint32_t two[2] = {uids[k], uids[k + 10]};
    ck_assert_int_eq(kw_store(inbox, two, 2, MS_KEYWORDS_ADD, name), 2);
  }
  ck_assert_int_eq(kw_store(arch, auids, 3, MS_KEYWORDS_ADD, "kw69"), 3);
  ck_assert_int_eq(kw_store(arch, auids + 2, 3, MS_KEYWORDS_ADD, "kw66"), 3);
  ck_assert_int_eq(kw_served(inbox), 0);
  ck_assert_int_eq(kw_served(arch), 1);
  // Flags, UIDs and dates still come from the index.
  ck_assert_uint_eq(check_snapshot(inbox), 80);
  const uint32_t mbs[] = {inbox, arch};
  kw_compare(mbs, 2);
  uint32_t got[80];
  size_t n;
  ck_assert_int_eq(ms_mailbox_keywords(st, got, 80, &n, acc, inbox), 0);
  ck_assert_uint_eq(n, 70);
  ck_assert_int_eq(ms_mailbox_keywords(st, got, 80, &n, acc, arch), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(got[0], 66);
  ck_assert_uint_eq(got[1], 69);
  // Expunge messages 0..5 and 10..15: kw0..kw5 go, 64 keywords remain.
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids, 6), 6);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids + 10, 6), 6);
  ck_assert_int_eq(kw_served(inbox), 1);
  ck_assert_int_eq(ms_mailbox_keywords(st, got, 80, &n, acc, inbox), 0);
  ck_assert_uint_eq(n, 64);
  ck_assert_uint_eq(got[0], 6);
  ck_assert_uint_eq(got[63], 69);
  ck_assert_uint_eq(check_snapshot(inbox), 68);
  kw_compare(mbs, 2);
}
END_TEST

// add_random appends a message whose From, To, Cc and Subject are drawn
// from pools made to meet every case of the string sort keys: equal keys,
// keys equal in their first 8 bytes, case differences, prefixes of each
// other, empty and missing fields, groups, display names, "Re:"/"Fwd:"
// and list tags (base subject), UTF-8.
static uint32_t add_random(uint32_t mb, uint64_t *seed) {
  static const char *const addr[] = {
      "alice@example.org",
      "Alice@Example.org",
      "alice@example.org.uk",
      "alice@exa",
      "al@x",
      "AL@X",
      "bob@example.net",
      "\"Bob Smith\" <bob@example.net>",
      "Zed <zed@example.com>",
      "=?UTF-8?Q?Andr=C3=A9?= <andre@example.fr>",
      "longlonglongprefix1@example.org",
      "longlonglongprefix2@example.org",
      "LONGLONGLONGPREFIX1@example.org",
      "undisclosed-recipients:;",
      "group: member@example.org;",
      "carol@example.org, alice@example.org",
      "a@b",
      "A@b",
  };
  static const char *const subj[] = {
      "Quarterly report",
      "quarterly REPORT",
      "Re: Quarterly report",
      "Fwd: quarterly report",
      "RE: re: Quarterly report",
      "[list] Quarterly report (fwd)",
      "Quarterly reports",
      "Quarterly",
      "",
      "caf\xc3\xa9",
      "Caf\xc3\xa9 menu",
      "Re:",
      "a",
      "A",
      "ab",
      "Meeting tomorrow at nine",
      "Meeting tomorrow at ten",
      "meeting TOMORROW at nine",
  };
  const size_t na = sizeof addr / sizeof addr[0], ns = sizeof subj / sizeof subj[0];
  char buf[1024];
  size_t len = 0;
  uint32_t r = rnd(seed);
  if (r % 8)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "From: %s\r\n", addr[rnd(seed) % na]);
  if (r % 7)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "To: %s\r\n", addr[rnd(seed) % na]);
  if (r % 3 == 0)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "Cc: %s\r\n", addr[rnd(seed) % na]);
  if (r % 11)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "Subject: %s\r\n", subj[rnd(seed) % ns]);
  len += (size_t)snprintf(buf + len, sizeof buf - len, "Date: %u Mar 2024 10:00:00 +0000\r\n",
                          1 + rnd(seed) % 5);
  len += (size_t)snprintf(buf + len, sizeof buf - len, "\r\nbody %u\r\n", rnd(seed) % 1000);
  uint32_t uid;
  ck_assert_int_eq(ms_message_append(st, NULL, &uid, acc, mb, (uint8_t *)buf, len, 0,
                                     1700000000 + (int64_t)(rnd(seed) % 20)),
                   0);
  return uid;
}

// sort_compare sorts mailbox mb by keys through the index (all messages)
// and through sort.c's summary path (the same messages named by UID), and
// asserts the same UIDs at every position.
static void sort_compare(uint32_t mb, const uint32_t *keys, size_t nk, size_t offset, size_t cap) {
  size_t total = 0, na, nb, ta, tb;
  ck_assert_int_eq(ms_mailbox_sort(st, NULL, 0, &na, &total, acc, mb, NULL, 0, NULL, 0, 0), 0);
  uint32_t *all = malloc((total + 1) * sizeof *all), *a = malloc((total + 1) * sizeof *a),
           *b = malloc((total + 1) * sizeof *b);
  ck_assert(all && a && b);
  ck_assert_int_eq(ms_mailbox_sort(st, all, total, &na, NULL, acc, mb, NULL, 0, NULL, 0, 0), 0);
  ck_assert_uint_eq(na, total);
  if (cap > total)
    cap = total;
  ck_assert_int_eq(ms_mailbox_sort(st, a, cap, &na, &ta, acc, mb, NULL, 0, keys, nk, offset), 0);
  ck_assert_int_eq(ms_mailbox_sort(st, b, cap, &nb, &tb, acc, mb, all, total, keys, nk, offset), 0);
  ck_assert_uint_eq(ta, total);
  ck_assert_uint_eq(tb, total);
  ck_assert_uint_eq(na, nb);
  for (size_t i = 0; i < na; i++)
    ck_assert_msg(a[i] == b[i], "keys %u/%zu, position %zu: %u vs %u", keys[0], nk, offset + i,
                  a[i], b[i]);
  free(all);
  free(a);
  free(b);
}

// random_sorts compares rounds of random key lists (1..3 keys of all nine,
// string keys more often, each maybe reversed) and offsets.
static void random_sorts(uint32_t mb, uint64_t *seed, unsigned rounds) {
  static const uint32_t strs[] = {MS_SORT_FROM,    MS_SORT_TO,          MS_SORT_CC,
                                  MS_SORT_SUBJECT, MS_SORT_DISPLAYFROM, MS_SORT_DISPLAYTO};
  for (unsigned r = 0; r < rounds; r++) {
    uint32_t keys[3];
    size_t nk = 1 + rnd(seed) % 3;
    for (size_t i = 0; i < nk; i++) {
      uint32_t x = rnd(seed);
      keys[i] = x % 3 ? strs[(x >> 4) % 6] : 1 + (x >> 4) % 9;
      if ((x >> 12) % 2)
        keys[i] |= MS_SORT_REVERSE;
    }
    size_t offset = rnd(seed) % 4 ? 0 : rnd(seed) % 50;
    size_t cap = rnd(seed) % 4 ? SIZE_MAX : 1 + rnd(seed) % 60;
    sort_compare(mb, keys, nk, offset, cap);
  }
}

// String sort keys (FROM, TO, CC, SUBJECT, DISPLAYFROM, DISPLAYTO) from
// the index's key columns give sort.c's order on random mailboxes: when
// the columns are first made, after a flag change, deliveries and
// expunges (columns carried to the rebuilt array, new messages' keys read
// from their summaries), in a second mailbox, and when a message without a
// stored summary sends the sort back to sort.c.
START_TEST(string_sorts_randomized) {
  uint64_t seed = 4242;
  uint32_t uids[600];
  size_t n = 0;
  for (unsigned i = 0; i < 500; i++)
    uids[n++] = add_random(inbox, &seed);
  for (unsigned i = 0; i < 120; i++)
    add_random(arch, &seed);
  static const uint32_t by_subject[] = {MS_SORT_SUBJECT}, by_from[] = {MS_SORT_FROM},
                        by_cc_rev[] = {MS_SORT_CC | MS_SORT_REVERSE, MS_SORT_DATE};
  struct ms_index_info info;
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  uint64_t uses = info.builds + info.hits;
  sort_compare(inbox, by_subject, 1, 0, SIZE_MAX);
  // That sort was the index's (sort_compare's other calls never are).
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_eq(info.builds + info.hits, uses + 1);
  sort_compare(inbox, by_from, 1, 0, SIZE_MAX);
  sort_compare(inbox, by_cc_rev, 2, 0, SIZE_MAX);
  random_sorts(inbox, &seed, 60);
  random_sorts(arch, &seed, 30);
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  uint64_t bytes = info.bytes;
  for (unsigned round = 0; round < 4; round++) {
    // A flag change, a few deliveries and an expunge: new arrays each time.
    uint32_t u = uids[rnd(&seed) % n];
    ck_assert_int_ge(ms_flags_store(st, acc, inbox, &u, 1, MS_FLAG_SEEN, 0), 0);
    random_sorts(inbox, &seed, 5);
    for (unsigned i = 0; i < 20 && n < 600; i++)
      uids[n++] = add_random(inbox, &seed);
    random_sorts(inbox, &seed, 10);
    uint32_t x[5];
    for (size_t i = 0; i < 5; i++)
      x[i] = uids[rnd(&seed) % n];
    ck_assert_int_ge(ms_messages_expunge(st, acc, inbox, x, 5), 0);
    random_sorts(inbox, &seed, 10);
  }
  // The columns were kept with the arrays (the index grew past the
  // numbers alone).
  ck_assert_int_eq(ms_store_index_info(st, &info), 0);
  ck_assert_uint_gt(info.bytes, bytes / 2);
  // A message without a stored summary: string sorts go to sort.c (which
  // summarises it from its bytes) and still agree.
  struct ms_entry e[1];
  size_t ne;
  ck_assert_int_eq(ms_mailbox_list(st, e, 1, &ne, acc, inbox, 0), 0);
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(st, 0, &t), 0);
  uint8_t k[12];
  msr_be32(k, acc);
  msr_be64(k + 4, e[0].message_id);
  ck_assert_int_eq(del(t, st->summaries, k, sizeof k), 0);
  ck_assert_int_eq(txn_commit(st, t), 0);
  uint32_t u = e[0].uid;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, MS_FLAG_FLAGGED, 0), 1);
  sort_compare(inbox, by_subject, 1, 0, SIZE_MAX);
  random_sorts(inbox, &seed, 10);
  ck_assert_int_eq(ms_store_summarize(st, 100), 1);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, 0, MS_FLAG_FLAGGED), 1);
  random_sorts(inbox, &seed, 10);
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
  tcase_add_test(tc, keywords_through_index);
  tcase_add_test(tc, keywords_over_64);
  tcase_add_test(tc, string_sorts_randomized);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
