// test_sync.c: a write is reported done only once its commit is durable
// (sync.c). The store runs LMDB with MDB_NOMETASYNC, so LMDB's commit syncs
// the data pages and then writes the meta page without syncing it; the
// store must sync the file after that meta write and before it returns
// success. The test watches every fdatasync of the store's data file (this
// program defines fdatasync, which the dynamic linker prefers to libc's for
// LMDB and the store too) and notes the newest transaction id the file's
// meta pages held when each sync began: once a write returns, a sync that
// began after its commit's meta page was written must have completed.
// LMDB itself is not stubbed: every sync is the real one.
#include "corvid_libtest.h"
#include "store_util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>

// LMDB's meta pages are pages 0 and 1 of data.mdb (4096-byte pages on the
// systems we test on); in each, after the 16-byte page header, the meta
// starts with its magic, and the transaction id is at byte 144 (lmdb.h's
// MDB_meta on LP64: magic, version, address, map size, two 48-byte MDB_db,
// last page, txnid). The magic check makes a different layout fail loudly.
#define META_PAGE 4096
#define META_MAGIC 0xBEEFC0DEu
#define META_TXNID_AT 144

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static dev_t watch_dev;
static ino_t watch_ino;
static int watching;
static uint64_t synced_txnid; // newest txnid a completed sync began after
static uint64_t watched_syncs;

// meta_txnid returns the newest transaction id the meta pages of the data
// file open on fd hold (what the page cache has, written or not).
static uint64_t meta_txnid(int fd) {
  uint64_t best = 0;
  for (int page = 0; page < 2; page++) {
    uint8_t m[META_TXNID_AT + 8];
    ck_assert_int_eq(pread(fd, m, sizeof m, (off_t)page * META_PAGE), (ssize_t)sizeof m);
    uint32_t magic;
    uint64_t txnid;
    memcpy(&magic, m + 16, 4);
    memcpy(&txnid, m + META_TXNID_AT, 8);
    ck_assert_uint_eq(magic, META_MAGIC);
    if (txnid > best)
      best = txnid;
  }
  return best;
}

static int is_watched(int fd) {
  struct stat st;
  pthread_mutex_lock(&watch_lock);
  int w = watching && fstat(fd, &st) == 0 && st.st_dev == watch_dev && st.st_ino == watch_ino;
  pthread_mutex_unlock(&watch_lock);
  return w;
}

// fdatasync wraps the C library's: a successful sync of the watched file
// records the meta txnid it began with.
int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) {
    void *sym = dlsym(RTLD_NEXT, "fdatasync"); // ISO C: no cast to a function pointer
    memcpy(&real, &sym, sizeof real);
  }
  int w = is_watched(fd);
  uint64_t began = w ? meta_txnid(fd) : 0;
  int rc = real(fd);
  if (rc == 0 && w) {
    pthread_mutex_lock(&watch_lock);
    if (began > synced_txnid)
      synced_txnid = began;
    watched_syncs++;
    pthread_mutex_unlock(&watch_lock);
  }
  return rc;
}

static uint64_t synced(void) {
  pthread_mutex_lock(&watch_lock);
  uint64_t v = synced_txnid;
  pthread_mutex_unlock(&watch_lock);
  return v;
}

// watch starts watching dir's data file and returns a descriptor for
// reading its meta pages.
static int watch(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/data.mdb", dir);
  int fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  struct stat st;
  ck_assert_int_eq(fstat(fd, &st), 0);
  pthread_mutex_lock(&watch_lock);
  watch_dev = st.st_dev;
  watch_ino = st.st_ino;
  watching = 1;
  synced_txnid = 0;
  watched_syncs = 0;
  pthread_mutex_unlock(&watch_lock);
  return fd;
}

// Alone, every kind of write (group-commit delivery, run_write appends and
// mailbox changes, a map that grows on the way) returns only after a sync
// that began once the file held its commit's meta page: the newest one.
START_TEST(ack_after_meta_sync) {
  struct ms_settings set = {.initial_map_size = 1u << 20};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "sync", &acct, &box);
  int fd = watch(dir);
  char buf[8192];
  uint64_t x = 88172645463325252u;
  for (unsigned n = 1; n <= 200; n++) {
    // Random letters, so that 200 messages outgrow the 1 MiB map.
    size_t len = make_message(buf, sizeof buf, n, 0);
    for (size_t end = len + 6000 + n * 31 % 2000; len < end; len++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      buf[len] = (char)('A' + x % 58);
    }
    if (n % 3 == 0) {
      ck_assert_int_eq(ms_message_append(st, NULL, NULL, acct, box, (uint8_t *)buf, len, 0, n), 0);
    } else {
      struct ms_delivery d = {.account = acct, .mailbox = box, .data = (uint8_t *)buf, .len = len};
      ck_assert_int_eq(ms_messages_deliver(st, &d, 1), 1);
    }
    uint64_t now = meta_txnid(fd);
    ck_assert_msg(synced() >= now, "write %u returned before txn %llu was synced (%llu)", n,
                  (unsigned long long)now, (unsigned long long)synced());
    if (n % 40 == 0) {
      char name[32];
      uint32_t id;
      int k = snprintf(name, sizeof name, "Box%u", n);
      ck_assert_int_eq(ms_mailbox_create(st, &id, acct, name, (size_t)k, MS_ROLE_NONE), 0);
      ck_assert_uint_ge(synced(), meta_txnid(fd));
    }
  }
  MDB_envinfo info;
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_gt(k.syncs, 0);
  ck_assert_uint_gt(watched_syncs, 0);
  ms_store_close(st);
  // The map grew on the way (1 MiB at first).
  MDB_env *env = raw_env(dir);
  ck_assert_int_eq(mdb_env_info(env, &info), 0);
  ck_assert_uint_gt((uint64_t)(info.me_last_pgno + 1) * META_PAGE, 1u << 20);
  mdb_env_close(env);
  close(fd);
  rm_store_dir(dir);
}
END_TEST

// With concurrent writers (threads grouped into commits, or other
// processes), the txn that stored a caller's messages is newer than the one
// the file held before the call: a sync that began after it must be done.
struct writer {
  ms_store *st;
  uint32_t acct, box;
  int fd;
  unsigned base, rounds;
  int bad;
};

static void *write_some(void *p) {
  struct writer *w = p;
  static _Thread_local char bufs[3][8192];
  for (unsigned r = 0; r < w->rounds; r++) {
    unsigned k = 1 + r % 3;
    struct ms_delivery d[3];
    for (unsigned j = 0; j < k; j++) {
      unsigned n = w->base + r * 3 + j;
      size_t len = make_message(bufs[j], sizeof bufs[j], n, 3000 + n % 2000);
      d[j] = (struct ms_delivery){
          .account = w->acct, .mailbox = w->box, .data = (uint8_t *)bufs[j], .len = len};
    }
    uint64_t before = meta_txnid(w->fd);
    if (ms_messages_deliver(w->st, d, k) != (int)k || synced() <= before)
      w->bad++;
  }
  return NULL;
}

START_TEST(ack_after_meta_sync_threads) {
  enum { THREADS = 4 };
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, NULL, "sync", &acct, &box);
  int fd = watch(dir);
  struct writer w[THREADS];
  pthread_t th[THREADS];
  for (unsigned i = 0; i < THREADS; i++) {
    w[i] = (struct writer){st, acct, box, fd, 1000 * (i + 1), 40, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, write_some, &w[i]), 0);
  }
  for (unsigned i = 0; i < THREADS; i++) {
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_int_eq(w[i].bad, 0);
  }
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_eq(k.delivered, THREADS * 79); // 40 calls of 1, 2, 3, 1, ... messages
  ck_assert_uint_gt(k.syncs, 0);
  verify_ok(st);
  ms_store_close(st);
  close(fd);
  rm_store_dir(dir);
}
END_TEST

START_TEST(ack_after_meta_sync_processes) {
  enum { PROCS = 3 };
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, NULL, "sync", &acct, &box);
  ms_store_close(st);
  pid_t pid[PROCS];
  for (unsigned i = 0; i < PROCS; i++) {
    pid[i] = fork();
    ck_assert_int_ge(pid[i], 0);
    if (pid[i] == 0) {
      int fd = watch(dir);
      if (ms_store_open(&st, dir, NULL) != 0)
        _exit(2);
      struct writer w = {st, acct, box, fd, 10000 * (i + 1), 30, 0};
      write_some(&w);
      ms_store_close(st);
      _exit(w.bad ? 3 : 0);
    }
  }
  for (unsigned i = 0; i < PROCS; i++) {
    int status;
    ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %u: status %d", i, status);
  }
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  verify_ok(st);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, PROCS * 60); // 30 calls of 1, 2, 3, 1, ... messages
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A no_sync store (bulk import) syncs nothing, as before.
START_TEST(no_sync_store_never_syncs) {
  struct ms_settings set = {.no_sync = 1};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "sync", &acct, &box);
  int fd = watch(dir);
  char buf[4096];
  for (unsigned n = 1; n <= 10; n++) {
    size_t len = make_message(buf, sizeof buf, n, 2000);
    struct ms_delivery d = {.account = acct, .mailbox = box, .data = (uint8_t *)buf, .len = len};
    ck_assert_int_eq(ms_messages_deliver(st, &d, 1), 1);
  }
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(st, &k), 0);
  ck_assert_uint_eq(k.syncs, 0);
  ck_assert_uint_eq(watched_syncs, 0);
  ms_store_close(st);
  close(fd);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sync");
  TCase *tc = tcase_create("sync");
  tcase_set_timeout(tc, 90);
  tcase_add_test(tc, ack_after_meta_sync);
  tcase_add_test(tc, ack_after_meta_sync_threads);
  tcase_add_test(tc, ack_after_meta_sync_processes);
  tcase_add_test(tc, no_sync_store_never_syncs);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
