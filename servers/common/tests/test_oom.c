// test_oom.c: servers/common (config.c, indexer.c and the mailtext.c it
// links) with every one of its own allocations failing in turn
// (corvid_test_alloc_fault.h). libmailstore, libftsearch and libmailparse
// are linked shared here, so their allocations neither count nor fail:
// what is walked is this library's error handling only.
//
// Each failed call must return -ENOMEM (with "out of memory" in the
// configuration's diag), hand out no handle, leak nothing (LeakSanitizer in
// the ASan build) and leave the state as it was: for the indexer, the queue
// still holds every entry, the index holds no document and the failure log
// is empty, so that the next run indexes everything once (after a failed
// rebuild, the documents are as they were). The first run that reaches no
// armed allocation must succeed with its whole effect.
//
// The getters and srv_indexer_status_get make no allocation of their own
// (allocation_free_calls checks so): they are not walked.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#include "corvid_test_alloc_fault.h"
#include "indexer_fixture.h"
#include "indexer_test_util.h"
#include "srv_config.h"
#include "srv_indexer.h"

// Every walk below ends after a few dozen steps; the bound only stops a walk
// whose operation would never stop allocating.
#define MAX_STEPS 500

#define NAME "t.conf"

// Temporary directory.

static char dir[64];

static void make_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/srv-oom-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

// Configuration.

// Two sections, a key before them, continued lines, a quoted string and one
// value of every type a getter reads.
static const char config_text[] = "# maild\n"
                                  "hostname = mx.example.org\n"
                                  "[smtpd]\n"
                                  "port = 25\n"
                                  "max_message_size = 50M\n"
                                  "timeout = 5m\n"
                                  "tls = yes\n"
                                  "banner = \"Corvid \\\"ESMTP\\\"\"  # quoted\n"
                                  "relay_domains = example.org, \\\n"
                                  "                example.net\n"
                                  "[imapd]\n"
                                  "port = \\\n"
                                  "  143\n";

// check_config_values asserts every value of config_text through the getters.
static void check_config_values(const srv_config *cfg) {
  const char *s = NULL;
  int64_t i = 0;
  uint64_t u = 0;
  bool b = false;
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_get_string(cfg, "hostname", NULL, &s), 0);
  ck_assert_pstr_eq(s, "mx.example.org");
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 65535, 1, &i, &diag), 0);
  ck_assert_int_eq(i, 25);
  ck_assert_int_eq(srv_config_get_size(cfg, "smtpd.max_message_size", 0, UINT64_MAX, 0, &u, &diag),
                   0);
  ck_assert_uint_eq(u, 50u << 20);
  ck_assert_int_eq(srv_config_get_duration(cfg, "smtpd.timeout", 0, UINT64_MAX, 0, &u, &diag), 0);
  ck_assert_uint_eq(u, 300000);
  ck_assert_int_eq(srv_config_get_bool(cfg, "smtpd.tls", false, &b, &diag), 0);
  ck_assert(b);
  ck_assert_int_eq(srv_config_get_string(cfg, "smtpd.banner", NULL, &s), 0);
  ck_assert_pstr_eq(s, "Corvid \"ESMTP\"");
  srv_config_list it;
  const char *item;
  size_t item_len;
  ck_assert_int_eq(srv_config_get_list(cfg, "smtpd.relay_domains", NULL, &it), 0);
  ck_assert_int_eq(srv_config_list_next(&it, &item, &item_len), 1);
  ck_assert_uint_eq(item_len, 11);
  ck_assert_int_eq(memcmp(item, "example.org", 11), 0);
  ck_assert_int_eq(srv_config_list_next(&it, &item, &item_len), 1);
  ck_assert_uint_eq(item_len, 11);
  ck_assert_int_eq(memcmp(item, "example.net", 11), 0);
  ck_assert_int_eq(srv_config_list_next(&it, &item, &item_len), 0);
  ck_assert_int_eq(srv_config_get_int(cfg, "imapd.port", 1, 65535, 1, &i, &diag), 0);
  ck_assert_int_eq(i, 143);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
}

// A section name of 60 bytes and 24 keys in it: every full key costs the
// arena far more than its line of input, so the arena grows past its first
// size, and the entry table grows past its first 16 entries.
static char *growth_text(size_t *len) {
  static char text[1024];
  size_t n = (size_t)snprintf(text, sizeof text, "[%s]\n",
                              "section_with_a_long_name_0123456789_0123456789_0123456789_ab");
  for (int k = 0; k < 24; k++)
    n += (size_t)snprintf(text + n, sizeof text - n, "k%02d = %d\n", k, k);
  ck_assert_uint_lt(n, sizeof text);
  *len = n;
  return text;
}

static void check_growth_values(const srv_config *cfg) {
  for (int k = 0; k < 24; k++) {
    char key[96];
    int64_t v = -1;
    snprintf(key, sizeof key, "section_with_a_long_name_0123456789_0123456789_0123456789_ab.k%02d",
             k);
    ck_assert_int_eq(srv_config_get_int(cfg, key, 0, 100, 0, &v, NULL), 0);
    ck_assert_int_eq(v, k);
  }
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
}

// is_oom_diag says whether `diag` is the out-of-memory report of `file`.
static bool is_oom_diag(const srv_config_diag *diag, const char *file) {
  const char *tail = ": out of memory";
  size_t mlen = strlen(diag->message), tlen = strlen(tail);
  return diag->code == -ENOMEM && strcmp(diag->file, file) == 0 &&
         strncmp(diag->message, file, strlen(file)) == 0 && mlen >= tlen &&
         strcmp(diag->message + mlen - tlen, tail) == 0;
}

// walk_config fails each allocation of srv_config_load(path) in turn, or
// with `path` NULL of srv_config_parse(text) named NAME, calling
// `before_each` and `after_each` (either may be NULL) around each call, and
// returns the number of the run that reached none; that run's configuration
// goes to `check_values`.
static unsigned long walk_config(const char *path, const char *text, size_t len,
                                 void (*before_each)(void), void (*after_each)(void),
                                 void (*check_values)(const srv_config *)) {
  const char *what = path != NULL ? "load" : "parse";
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    srv_config *cfg = (srv_config *)&cfg;
    srv_config_diag diag;
    memset(&diag, 0, sizeof diag);
    if (before_each)
      before_each();
    alloc_fault_arm(n);
    int rc = path != NULL ? srv_config_load(&cfg, path, &diag)
                          : srv_config_parse(&cfg, text, len, NAME, &diag);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (after_each)
      after_each();
    if (!fired) {
      require(rc == 0, "%s: %s", what, diag.message);
      check_values(cfg);
      srv_config_free(cfg);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, %s said %d (%s)", n, what, rc, diag.message);
    require(cfg == NULL, "allocation %lu failed, %s set a handle", n, what);
    require(is_oom_diag(&diag, path != NULL ? path : NAME),
            "allocation %lu: diag code %d, message '%s'", n, diag.code, diag.message);
  }
  return n;
}

START_TEST(parse_each_allocation) {
  unsigned long n =
      walk_config(NULL, config_text, strlen(config_text), NULL, NULL, check_config_values);
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

START_TEST(parse_growing_arena_and_entries_each_allocation) {
  size_t len;
  const char *text = growth_text(&len);
  unsigned long n = walk_config(NULL, text, len, NULL, NULL, check_growth_values);
  // calloc, calloc, malloc, the arena's first realloc, the entry table, and
  // at least one more realloc each of arena and entries.
  ck_assert_uint_gt(n, 7);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

START_TEST(load_each_allocation) {
  make_dir();
  char path[128];
  snprintf(path, sizeof path, "%s/maild.conf", dir);
  write_file(path, config_text, strlen(config_text));
  unsigned long n = walk_config(path, NULL, 0, NULL, NULL, check_config_values);
  ck_assert_uint_gt(n, 2); // the read buffer, then the parser's
  ck_assert_uint_lt(n, MAX_STEPS);
  remove_dir();
}
END_TEST

// A FIFO has no size to trust: load reads it into a buffer of 4096 bytes
// that it doubles, so a text longer than that reaches the realloc.
static char fifo_path[128];
static char fifo_text[6000];
static size_t fifo_len;
static pthread_t fifo_writer;

static void *write_fifo(void *arg) {
  (void)arg;
  int fd = open(fifo_path, O_WRONLY | O_CLOEXEC); // waits for load's open
  if (fd < 0)
    return NULL;
  size_t off = 0;
  while (off < fifo_len) {
    ssize_t w = write(fd, fifo_text + off, fifo_len - off);
    if (w <= 0)
      break; // EPIPE: load gave up before reading it all
    off += (size_t)w;
  }
  close(fd);
  return NULL;
}

static void start_fifo_writer(void) {
  ck_assert_int_eq(pthread_create(&fifo_writer, NULL, write_fifo, NULL), 0);
}

static void join_fifo_writer(void) {
  ck_assert_int_eq(pthread_join(fifo_writer, NULL), 0);
}

START_TEST(load_fifo_each_allocation) {
  // The writer must see EPIPE, not die of SIGPIPE, when load gives up early.
  signal(SIGPIPE, SIG_IGN);
  make_dir();
  snprintf(fifo_path, sizeof fifo_path, "%s/maild.fifo", dir);
  ck_assert_int_eq(mkfifo(fifo_path, 0600), 0);
  // 5000 bytes of comments before the configuration.
  fifo_len = 0;
  for (int k = 0; k < 50; k++) {
    memset(fifo_text + fifo_len, '#', 99);
    fifo_text[fifo_len + 99] = '\n';
    fifo_len += 100;
  }
  memcpy(fifo_text + fifo_len, config_text, strlen(config_text));
  fifo_len += strlen(config_text);
  unsigned long n =
      walk_config(fifo_path, NULL, 0, start_fifo_writer, join_fifo_writer, check_config_values);
  ck_assert_uint_gt(n, 3); // the read buffer, its realloc, then the parser's
  ck_assert_uint_lt(n, MAX_STEPS);
  remove_dir();
}
END_TEST

// Indexer.

START_TEST(indexer_new_each_allocation) {
  struct fixture fx;
  fixture_open(&fx, false);
  struct srv_indexer_settings s = {.workers = 3, .batch = 8};
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    srv_indexer *ix = (srv_indexer *)&ix;
    alloc_fault_arm(n);
    int rc = srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &s);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "new: %s", srv_indexer_strerror(rc));
      check_nothing_indexed(&fx, ix, 3, n);
      struct srv_indexer_report rep = {0};
      ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
      ck_assert_uint_eq(rep.indexed, 3);
      check_all_indexed(&fx, ix);
      srv_indexer_free(ix);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, new said %s", n, srv_indexer_strerror(rc));
    require(ix == NULL, "allocation %lu failed, new set a handle", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  fixture_close(&fx);
}
END_TEST

// One attempt per call: a failed allocation is the call's error, not
// retried. A fresh indexer per run, so that each run allocates its buffers
// from nothing (a handle keeps them grown) and every allocation is reached.
START_TEST(run_once_each_allocation) {
  struct fixture fx;
  fixture_open(&fx, true);
  struct srv_indexer_settings s = {
      .workers = 1, // one thread: the allocations come in the same order every run
      .batch = 16,
      .max_attempts = 1,
      .backoff_ms = 1,
      .max_message_size = SMALL_MAX_MESSAGE,
  };
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    srv_indexer *ix;
    ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &s), 0);
    struct srv_indexer_report rep = {0};
    alloc_fault_arm(n);
    int rc = srv_indexer_run_once(ix, &rep);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 4, "run_once said %d (%s)", rc, srv_indexer_strerror(rc));
      ck_assert_uint_eq(rep.entries, 4);
      ck_assert_uint_eq(rep.indexed, 3);
      ck_assert_uint_eq(rep.failed, 1);
      check_all_indexed(&fx, ix);
      srv_indexer_free(ix);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, run_once said %d (%s)", n, rc,
            srv_indexer_strerror(rc));
    require(rep.entries == 0 && rep.indexed == 0 && rep.failed == 0,
            "allocation %lu: the report counts work that was undone", n);
    check_nothing_indexed(&fx, ix, 4, n);
    srv_indexer_free(ix);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  fixture_close(&fx);
}
END_TEST

// With two attempts, one failed allocation is retried within the call on
// the same handle, and the call does its whole work. The queue is
// acknowledged by each run, so each run gets a fresh store and index.
START_TEST(run_once_retries_each_allocation) {
  struct srv_indexer_settings s = {.workers = 1, .batch = 16, .max_attempts = 2, .backoff_ms = 1};
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct fixture fx;
    fixture_open(&fx, false);
    srv_indexer *ix;
    ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &s), 0);
    struct srv_indexer_report rep = {0};
    alloc_fault_arm(n);
    int rc = srv_indexer_run_once(ix, &rep);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 3, "allocation %lu%s: run_once said %d (%s)", n, fired ? " failed" : "", rc,
            srv_indexer_strerror(rc));
    require(rep.indexed == 3 && rep.retries == (fired ? 1u : 0u),
            "allocation %lu: %llu indexed, %llu retries", n, (unsigned long long)rep.indexed,
            (unsigned long long)rep.retries);
    check_all_indexed(&fx, ix);
    srv_indexer_free(ix);
    fixture_close(&fx);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// A rebuild of an indexed account: one attempt per call, a fresh indexer
// per run. A failed rebuild leaves the documents as they were (nothing of
// it is committed) and the queue empty. It may have forgotten the account's
// failures already, as a rebuild does first (srv_indexer.h); the rebuild
// that succeeds records the oversized message again.
START_TEST(rebuild_each_allocation) {
  struct fixture fx;
  fixture_open(&fx, true);
  struct srv_indexer_settings s = {
      .workers = 1,
      .batch = 16,
      .max_attempts = 1,
      .backoff_ms = 1,
      .max_message_size = SMALL_MAX_MESSAGE,
  };
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &s), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), 4);
  check_all_indexed(&fx, ix);
  srv_indexer_free(ix);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, &s), 0);
    struct srv_indexer_report rep = {0};
    alloc_fault_arm(n);
    int rc = srv_indexer_rebuild(ix, &rep, fx.account, NULL, NULL);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "rebuild said %d (%s)", rc, srv_indexer_strerror(rc));
      ck_assert_uint_eq(rep.indexed, 3);
      ck_assert_uint_eq(rep.failed, 1);
      check_all_indexed(&fx, ix);
      srv_indexer_free(ix);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, rebuild said %d (%s)", n, rc,
            srv_indexer_strerror(rc));
    check_documents(&fx, ix);
    struct srv_indexer_status st;
    ck_assert_int_eq(srv_indexer_status_get(ix, &st, fx.account), 0);
    require(st.failed <= 1, "allocation %lu: %llu failures logged", n,
            (unsigned long long)st.failed);
    srv_indexer_free(ix);
  }
  ck_assert_uint_gt(n, 2); // the failure log's temporary name, then the messages'
  ck_assert_uint_lt(n, MAX_STEPS);
  fixture_close(&fx);
}
END_TEST

// The calls that are not walked make no allocation of their own.
START_TEST(allocation_free_calls) {
  struct fixture fx;
  fixture_open(&fx, false);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, fx.store, fx.index, index_path, failed_path, NULL), 0);
  write_file(failed_path, "1 99 -10701\n", 12);
  struct srv_indexer_status st;
  alloc_fault_arm(0);
  int rc = srv_indexer_status_get(ix, &st, fx.account);
  unsigned long count = alloc_fault_count();
  alloc_fault_disarm();
  ck_assert_int_eq(rc, 0);
  ck_assert_uint_eq(st.failed, 1);
  ck_assert_uint_eq(count, 0);
  srv_indexer_free(ix);
  fixture_close(&fx);

  // The getters, every one, with no assertion (Check may allocate) until
  // the count is read.
  srv_config *cfg;
  ck_assert_int_eq(srv_config_parse(&cfg, config_text, strlen(config_text), NAME, NULL), 0);
  const char *str;
  int64_t i;
  uint64_t u;
  bool b;
  srv_config_list it;
  const char *item;
  size_t item_len;
  srv_config_diag diag;
  alloc_fault_arm(0);
  // One statement each: the calls' order matters (unused counts last).
  int rcs[10], k = 0;
  rcs[k++] = srv_config_get_string(cfg, "hostname", NULL, &str);
  rcs[k++] = srv_config_get_int(cfg, "smtpd.port", 1, 65535, 1, &i, &diag);
  rcs[k++] = srv_config_get_size(cfg, "smtpd.max_message_size", 0, UINT64_MAX, 0, &u, &diag);
  rcs[k++] = srv_config_get_duration(cfg, "smtpd.timeout", 0, UINT64_MAX, 0, &u, &diag);
  rcs[k++] = srv_config_get_bool(cfg, "smtpd.tls", false, &b, &diag);
  rcs[k++] = srv_config_get_list(cfg, "smtpd.relay_domains", NULL, &it);
  rcs[k++] = srv_config_list_next(&it, &item, &item_len) - 1;
  rcs[k++] = srv_config_get_int(cfg, "smtpd.port", 1, 2, 1, &i, &diag) - SRV_ERR_CONFIG_RANGE;
  rcs[k++] = srv_config_reject(cfg, "smtpd.tls", &diag, "no") - SRV_ERR_CONFIG_VALUE;
  rcs[k++] = srv_config_unused(cfg, NULL, NULL) - 2; // banner, imapd.port
  count = alloc_fault_count();
  alloc_fault_disarm();
  for (int j = 0; j < k; j++)
    ck_assert_msg(rcs[j] == 0, "call %d: %d", j, rcs[j]);
  ck_assert_uint_eq(count, 0);
  srv_config_free(cfg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("servers-common-oom");
  TCase *tc = tcase_create("config");
  tcase_add_test(tc, parse_each_allocation);
  tcase_add_test(tc, parse_growing_arena_and_entries_each_allocation);
  tcase_add_test(tc, load_each_allocation);
  tcase_add_test(tc, load_fifo_each_allocation);
  suite_add_tcase(s, tc);
  tc = tcase_create("indexer");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, indexer_new_each_allocation);
  tcase_add_test(tc, run_once_each_allocation);
  tcase_add_test(tc, run_once_retries_each_allocation);
  tcase_add_test(tc, rebuild_each_allocation);
  tcase_add_test(tc, allocation_free_calls);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
