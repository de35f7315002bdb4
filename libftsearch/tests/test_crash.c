// test_crash.c: durability under kill -9: a child process indexes batches of
// documents (adding, deleting, and merging now and then) and reports each
// committed batch through a pipe; the parent kills it with SIGKILL at a
// random moment, 25 times, and after each kill checks that the index opens
// and answers exactly the documents of the committed batches: those it was
// told about, or those plus the one batch committed just before the kill.
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "fts-crash"
#include "corvid_test_tmp.h"
#include "ftsearch.h"

enum { ROUNDS = 25, BATCH = 40, SPREAD = 37 };

// Document n (1-based) has id n * SPREAD, so batches cross block edges.
static void doc_text(char *out, size_t cap, uint32_t n) {
  snprintf(out, cap,
           "common alpha%u beta%u word%u and some filler text about the weather, "
           "the harbour and invoices for number %u",
           n % 13, n % 7, n, n * 3);
}

// After `batches` committed batches: batch i adds its BATCH documents and
// deletes the documents of batch i - 1 whose number is a multiple of 10.
static bool expected_live(uint32_t n, uint32_t batches) {
  uint32_t batch = (n - 1) / BATCH;
  if (batch >= batches)
    return false;
  return !(n % 10 == 0 && batch + 1 < batches);
}

static int count_batches(fts_index *idx, uint32_t *out) {
  fts_query *q;
  int rc = fts_query_parse(&q, NULL, "common", 6, NULL);
  if (rc)
    return rc;
  fts_result *r;
  rc = fts_search(idx, &r, 1, q, NULL);
  fts_query_free(q);
  if (rc)
    return rc;
  uint32_t max = r->num_docs ? r->docs[r->num_docs - 1] / SPREAD : 0;
  *out = (max + BATCH - 1) / BATCH;
  fts_result_free(r);
  return 0;
}

static void child(const char *path, int fd) {
  fts_index *idx;
  fts_batch *b;
  uint32_t done;
  if (fts_index_open(&idx, path, NULL) != 0 || fts_batch_new(idx, &b) != 0 ||
      count_batches(idx, &done) != 0)
    _exit(2);
  char text[256];
  for (uint32_t i = done;; i++) {
    for (uint32_t n = i * BATCH + 1; n <= (i + 1) * BATCH; n++) {
      doc_text(text, sizeof text, n);
      fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)text, strlen(text)};
      if (fts_batch_add(b, 1, n * SPREAD, &f, 1) != 0)
        _exit(3);
    }
    if (i > 0)
      for (uint32_t n = (i - 1) * BATCH + 1; n <= i * BATCH; n++)
        if (n % 10 == 0 && fts_batch_delete(b, 1, n * SPREAD) != 0)
          _exit(4);
    if (fts_batch_commit(b) != 0)
      _exit(5);
    if (write(fd, &i, sizeof i) != (ssize_t)sizeof i)
      _exit(6);
    if (i % 5 == 4 && fts_index_merge(idx, 1) < 0)
      _exit(7);
  }
}

static void check_index(const char *path, uint32_t batches) {
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, path, NULL), 0);
  static const char *const queries[] = {
      "common", "alpha3", "beta5 alpha1", "\"common alpha7\"", "harbou*", "common -beta2"};
  for (size_t qi = 0; qi < sizeof queries / sizeof queries[0]; qi++) {
    fts_query *q;
    ck_assert_int_eq(fts_query_parse(&q, NULL, queries[qi], strlen(queries[qi]), NULL), 0);
    fts_result *r;
    ck_assert_int_eq(fts_search(idx, &r, 1, q, NULL), 0);
    size_t k = 0;
    for (uint32_t n = 1; n <= batches * BATCH + BATCH; n++) {
      bool match = qi == 0 || qi == 4 ? true
                   : qi == 1          ? n % 13 == 3
                   : qi == 2          ? n % 7 == 5 && n % 13 == 1
                   : qi == 3          ? n % 13 == 7
                                      : n % 7 != 2;
      if (!match || !expected_live(n, batches))
        continue;
      ck_assert_msg(k < r->num_docs && r->docs[k] == n * SPREAD, "%s after %u batches: doc %u",
                    queries[qi], batches, n * SPREAD);
      k++;
    }
    ck_assert_msg(k == r->num_docs, "%s after %u batches: %zu extra", queries[qi], batches,
                  r->num_docs - k);
    fts_result_free(r);
    fts_query_free(q);
  }
  fts_index_close(idx);
}

START_TEST(kill9_during_indexing) {
  char path[96];
  snprintf(path, sizeof path, "%s/index", corvid_test_root);
  srand((unsigned)time(NULL));
  uint32_t acked = 0; // batches acknowledged so far
  for (unsigned round = 0; round < ROUNDS; round++) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      close(p[0]);
      child(path, p[1]);
    }
    close(p[1]);
    struct timespec ts = {0, (long)(rand() % 150) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status), "child exited by itself: %d", WEXITSTATUS(status));
    uint32_t i;
    while (read(p[0], &i, sizeof i) == (ssize_t)sizeof i)
      acked = i + 1;
    close(p[0]);
    // The batch in flight at the kill may have committed unacknowledged.
    fts_index *idx;
    ck_assert_int_eq(fts_index_open(&idx, path, NULL), 0);
    uint32_t committed;
    ck_assert_int_eq(count_batches(idx, &committed), 0);
    fts_index_close(idx);
    ck_assert_msg(committed == acked || committed == acked + 1, "acked %u, index holds %u", acked,
                  committed);
    check_index(path, committed);
    acked = committed;
  }
  ck_assert_uint_gt(acked, 0);
  printf("# %u batches committed across %d kills\n", acked, ROUNDS);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-crash");
  TCase *tc = tcase_create("crash");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, kill9_during_indexing);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
