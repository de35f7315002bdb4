// test_crash.c: durability under kill -9: a child process appends messages in
// a loop and reports each acknowledged message through a pipe; the parent
// kills it with SIGKILL at a random moment, 30 times, and after each kill
// checks that the store opens, passes ms_store_verify, holds every
// acknowledged message byte for byte and holds no message that is not a
// complete one of the child's. The second case does the same to a child
// whose threads deliver concurrently, singly and in batches, so that the
// kill lands inside group commits: every acknowledged message is present and
// no batch is present in part.
#include "corvid_libtest.h"
#include "store_util.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

enum { ROUNDS = 30, BODY = 3000 };

struct ack {
  uint64_t id;
  uint32_t n;
  uint32_t pad;
};

static void child(const char *dir, uint32_t acct, uint32_t box, unsigned base, int fd) {
  ms_store *st;
  if (ms_store_open(&st, dir, NULL) != 0)
    _exit(2);
  char buf[4096];
  for (unsigned n = base;; n++) {
    size_t len = make_message(buf, sizeof buf, n, BODY + n % 500);
    struct ack a = {0, n, 0};
    if (ms_message_append(st, &a.id, NULL, acct, box, (uint8_t *)buf, len, 0, n) != 0)
      _exit(3);
    if (write(fd, &a, sizeof a) != (ssize_t)sizeof a)
      _exit(4);
  }
}

static int cmp_uint(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

START_TEST(kill9_during_delivery) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "crash", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  ms_store_close(st);
  srand((unsigned)time(NULL));
  struct ack *acked = NULL;
  size_t nacked = 0, total_kills = 0;
  char buf[4096], back[4096];
  for (unsigned round = 0; round < ROUNDS; round++) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      close(p[0]);
      child(dir, acct, box, round * 1000000u + 1, p[1]);
    }
    close(p[1]);
    struct timespec ts = {0, (long)(rand() % 200) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status), "child exited by itself: %d", WEXITSTATUS(status));
    total_kills++;
    // Collect acknowledgements; a torn last record was never acknowledged.
    for (;;) {
      acked = realloc(acked, (nacked + 64) * sizeof *acked);
      ssize_t r = read(p[0], acked + nacked, 64 * sizeof *acked);
      if (r <= 0)
        break;
      nacked += (size_t)r / sizeof *acked;
      ck_assert_int_eq(r % (ssize_t)sizeof *acked, 0);
    }
    close(p[0]);
    ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
    ck_assert_int_eq(ms_store_verify(st, NULL), 0);
    for (size_t i = 0; i < nacked; i++) {
      size_t len = make_message(buf, sizeof buf, acked[i].n, BODY + acked[i].n % 500), n = 0;
      ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &n, acct, acked[i].id), 0);
      ck_assert_uint_eq(n, len);
      ck_assert_mem_eq(back, buf, len);
    }
    // Every stored message is a complete one of the child's.
    struct ms_mailbox_info mi;
    ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
    ck_assert_uint_ge(mi.total, nacked);
    ck_assert_uint_le(mi.total, nacked + round + 1);
    struct ms_entry e[256];
    size_t got;
    uint32_t from = 1;
    do {
      ck_assert_int_eq(ms_mailbox_list(st, e, 256, &got, acct, box, from), 0);
      for (size_t i = 0; i < got; i++) {
        size_t n = 0;
        ck_assert_int_eq(
            ms_message_read(st, (uint8_t *)back, sizeof back, &n, acct, e[i].message_id), 0);
        unsigned num = 0;
        const char *subj = memmem(back, n, "Subject: test ", 14);
        ck_assert_ptr_nonnull(subj);
        ck_assert_int_eq(sscanf(subj + 14, "%u", &num), 1);
        size_t len = make_message(buf, sizeof buf, num, BODY + num % 500);
        ck_assert_uint_eq(n, len);
        ck_assert_mem_eq(back, buf, len);
        from = e[i].uid + 1;
      }
    } while (got == 256);
    ms_store_close(st);
  }
  ck_assert_uint_eq(total_kills, ROUNDS);
  fprintf(stderr, "# %zu kills, %zu acknowledged messages\n", total_kills, nacked);
  free(acked);
  rm_store_dir(dir);
}
END_TEST

// Group commits under kill -9: GTHREADS threads each deliver batches of 1 to
// BATCH messages; a batch's messages carry consecutive numbers and the same
// batch tag in their bodies, and are acknowledged together after the call
// returns. After each kill: every acknowledged message is present, and for
// every batch tag found, all of that batch's messages are present.
enum { GROUNDS = 12, GTHREADS = 8, BATCH = 6 };

struct gack {
  uint64_t id;
  uint32_t n;
  uint32_t batch_size;
};

struct gchild {
  ms_store *st;
  uint32_t acct, box;
  unsigned base;
  int fd;
};

static pthread_mutex_t ack_lock = PTHREAD_MUTEX_INITIALIZER;

// gmessage builds message n; its size derives from n alone, so the parent
// can rebuild any stored message.
static size_t gmessage(char *buf, size_t cap, unsigned n) {
  return make_message(buf, cap, n, BODY + n % 700);
}

static void *gthread(void *p) {
  struct gchild *c = p;
  static _Thread_local char bufs[BATCH][4096];
  for (unsigned n = c->base;;) {
    // Batch sizes vary from 1 to BATCH, derived from the first number.
    unsigned k = 1 + (n / 7) % BATCH;
    struct ms_delivery d[BATCH];
    for (unsigned j = 0; j < k; j++) {
      size_t len = gmessage(bufs[j], sizeof bufs[j], n + j);
      d[j] = (struct ms_delivery){
          .account = c->acct, .mailbox = c->box, .data = (uint8_t *)bufs[j], .len = len};
    }
    if (ms_messages_deliver(c->st, d, k) != (int)k)
      _exit(3);
    struct gack a[BATCH];
    for (unsigned j = 0; j < k; j++)
      a[j] = (struct gack){d[j].message_id, n + j, k};
    // One write per batch (< PIPE_BUF, so atomic among the threads).
    pthread_mutex_lock(&ack_lock);
    ssize_t w = write(c->fd, a, k * sizeof a[0]);
    pthread_mutex_unlock(&ack_lock);
    if (w != (ssize_t)(k * sizeof a[0]))
      _exit(4);
    n += k;
  }
  return NULL;
}

static void gchild_run(const char *dir, uint32_t acct, uint32_t box, unsigned base, int fd) {
  ms_store *st;
  if (ms_store_open(&st, dir, NULL) != 0)
    _exit(2);
  static struct gchild c[GTHREADS];
  pthread_t th[GTHREADS];
  for (unsigned i = 0; i < GTHREADS; i++) {
    c[i] = (struct gchild){st, acct, box, base + i * 100000u, fd};
    if (pthread_create(&th[i], NULL, gthread, &c[i]) != 0)
      _exit(5);
  }
  for (;;)
    pause();
}

START_TEST(kill9_during_group_commit) {
  char *dir = tmp_store_dir();
  ms_store *st;
  uint32_t acct, box;
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_account_create(st, &acct, "crash", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &box, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  ms_store_close(st);
  srand((unsigned)time(NULL) ^ 0x5a5a);
  struct gack *acked = NULL;
  size_t nacked = 0;
  char buf[4096], back[4096];
  for (unsigned round = 0; round < GROUNDS; round++) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      close(p[0]);
      gchild_run(dir, acct, box, (round + 1) * 10000000u, p[1]);
    }
    close(p[1]);
    // On a slow disk (or under sanitizers) a child may not finish one commit
    // within the window: in the second half of the rounds, while nothing was
    // acknowledged yet, wait for the child's first acknowledgement before
    // the random delay, so that the checks have acknowledged messages to
    // look for.
    if (round >= GROUNDS / 2 && nacked == 0) {
      acked = realloc(acked, 256 * sizeof *acked);
      ssize_t r = read(p[0], acked, 256 * sizeof *acked);
      if (r > 0) {
        ck_assert_int_eq(r % (ssize_t)sizeof *acked, 0);
        nacked = (size_t)r / sizeof *acked;
      }
    }
    struct timespec ts = {0, (long)(20 + rand() % 130) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status), "child exited by itself: %d", WEXITSTATUS(status));
    for (;;) {
      acked = realloc(acked, (nacked + 256) * sizeof *acked);
      ssize_t r = read(p[0], acked + nacked, 256 * sizeof *acked);
      if (r <= 0)
        break;
      ck_assert_int_eq(r % (ssize_t)sizeof *acked, 0);
      nacked += (size_t)r / sizeof *acked;
    }
    close(p[0]);
    ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
    ck_assert_int_eq(ms_store_verify(st, NULL), 0);
    for (size_t i = 0; i < nacked; i++) {
      size_t len = gmessage(buf, sizeof buf, acked[i].n), n = 0;
      ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &n, acct, acked[i].id), 0);
      ck_assert_uint_eq(n, len);
      ck_assert_mem_eq(back, buf, len);
    }
    // Every stored message is complete; collect their numbers to check that
    // every batch is whole.
    struct ms_mailbox_info mi;
    ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
    ck_assert_uint_ge(mi.total, nacked);
    ck_assert_uint_le(mi.total, nacked + (round + 1) * GTHREADS * BATCH);
    unsigned *nums = malloc((mi.total + 1) * sizeof *nums);
    size_t nn = 0;
    struct ms_entry e[256];
    size_t got;
    uint32_t from = 1;
    do {
      ck_assert_int_eq(ms_mailbox_list(st, e, 256, &got, acct, box, from), 0);
      for (size_t i = 0; i < got; i++) {
        size_t n = 0;
        ck_assert_int_eq(
            ms_message_read(st, (uint8_t *)back, sizeof back, &n, acct, e[i].message_id), 0);
        unsigned num = 0;
        const char *subj = memmem(back, n, "Subject: test ", 14);
        ck_assert_ptr_nonnull(subj);
        ck_assert_int_eq(sscanf(subj + 14, "%u", &num), 1);
        size_t len = gmessage(buf, sizeof buf, num);
        ck_assert_uint_eq(n, len);
        ck_assert_mem_eq(back, buf, len);
        ck_assert_uint_lt(nn, mi.total);
        nums[nn++] = num;
        from = e[i].uid + 1;
      }
    } while (got == 256);
    ck_assert_uint_eq(nn, mi.total);
    // Within a thread's stream (one base), batch boundaries are known: the
    // batch starting at n has 1 + (n / 7) % BATCH messages. A stored message
    // must have all of its batch stored.
    qsort(nums, nn, sizeof *nums, cmp_uint);
    for (size_t i = 0; i < nn;) {
      unsigned first = nums[i];
      unsigned k = 1 + (first / 7) % BATCH;
      for (unsigned j = 0; j < k; j++) {
        ck_assert_msg(i + j < nn && nums[i + j] == first + j,
                      "batch at %u (size %u) stored in part", first, k);
      }
      i += k;
    }
    free(nums);
    ms_store_close(st);
  }
  fprintf(stderr, "# %u kills during group commits, %zu acknowledged messages\n", GROUNDS, nacked);
  ck_assert_uint_gt(nacked, 0);
  free(acked);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("crash");
  TCase *tc = tcase_create("crash");
  tcase_set_timeout(tc, 90);
  tcase_add_test(tc, kill9_during_delivery);
  tcase_add_test(tc, kill9_during_group_commit);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
