// test_crash.c: durability under kill -9: a child process appends messages in
// a loop and reports each acknowledged message through a pipe; the parent
// kills it with SIGKILL at a random moment, 30 times, and after each kill
// checks that the store opens, passes ms_store_verify, holds every
// acknowledged message byte for byte and holds no message that is not a
// complete one of the child's.
#include "corvid_libtest.h"
#include "store_util.h"

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
    ck_assert_int_eq(ms_store_verify(st), 0);
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

int main(void) {
  Suite *s = suite_create("crash");
  TCase *tc = tcase_create("crash");
  tcase_set_timeout(tc, 90);
  tcase_add_test(tc, kill9_during_delivery);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
