// test_dict.c: blob compression with trained zstd dictionaries against a real
// store: training on the store's own mail, messages written before and after
// training (and after a second training) reading back byte for byte, also
// from a fresh handle; recompression; statistics; too little mail to train
// on; automatic training once the store holds dict_train_after blobs; a
// dictionary trained by another process adopted at the next delivery;
// ms_store_verify catching a missing dictionary; and kill -9 at random
// moments of training and recompression leaving a consistent store.
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

// mail writes message n: varied but realistic headers and text (names,
// subjects, relays and words drawn from small tables by a hash of n), the
// kind of mail a dictionary learns from.
static size_t mail(char *buf, size_t cap, unsigned n) {
  static const char *const names[] = {"alice", "bob",   "carol", "dave", "erin",
                                      "frank", "grace", "heidi", "ivan", "judy"};
  static const char *const domains[] = {"example.org", "example.com", "mail.example.net",
                                        "lists.example.edu"};
  static const char *const words[] = {
      "meeting", "report",   "quarterly", "budget", "release", "schedule", "please",
      "review",  "attached", "thanks",    "update", "project", "deadline", "the",
      "and",     "for",      "with",      "next",   "week",    "regards",  "question"};
  uint32_t h = n * 2654435761u;
  const char *pick[14];
  static const char *const *tables[14] = {names, domains, domains, names, names,   names, domains,
                                          names, words,   words,   words, domains, names, domains};
  static const size_t sizes[14] = {10, 4, 4, 10, 10, 10, 4, 10, 21, 21, 21, 4, 10, 4};
  for (int i = 0; i < 14; i++) {
    h = h * 1103515245u + 12345u;
    pick[i] = tables[i][(h >> 16) % sizes[i]];
  }
  int k =
      snprintf(buf, cap,
               "Return-Path: <%s@%s>\r\n"
               "Received: from relay%u.%s (relay%u.%s [192.0.2.%u])\r\n"
               "\tby mx.example.org (Corvid) with ESMTPS id %08x\r\n"
               "\tfor <%s@example.org>; Mon, %u Nov 2026 10:%02u:%02u +0000\r\n"
               "From: \"%s\" <%s@%s>\r\nTo: %s@example.org\r\n"
               "Subject: %s %s %s #%u\r\nDate: Mon, %u Nov 2026 10:%02u:%02u +0000\r\n"
               "Message-ID: <%u.%08x@%s>\r\nMIME-Version: 1.0\r\n"
               "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
               pick[0], pick[1], n % 7, pick[2], n % 7, pick[2], n % 250, h, pick[3], 1 + n % 28,
               n % 60, n % 59, pick[4], pick[4], pick[6], pick[5], pick[8], pick[9], pick[10], n,
               1 + n % 28, n % 60, n % 59, n, h, pick[11]);
  size_t len = (size_t)k;
  unsigned nw = 40 + n % 200;
  for (unsigned i = 0; i < nw && len + 32 < cap; i++) {
    h = h * 1103515245u + 12345u;
    const char *w = words[(h >> 16) % 21];
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", w, i % 12 == 11 ? "\r\n" : " ");
  }
  len += (size_t)snprintf(buf + len, cap - len, "\r\n-- \r\n%s\r\n", pick[12]);
  return len;
}

enum { MAIL_CAP = 8192 };

static struct ms_settings settings(uint32_t train_after) {
  return (struct ms_settings){.dict_max_size = 16384, .dict_train_after = train_after};
}

static void deliver_range(ms_store *st, uint32_t acct, uint32_t box, unsigned from, unsigned to,
                          uint64_t *ids) {
  char buf[MAIL_CAP];
  for (unsigned n = from; n < to; n++) {
    size_t len = mail(buf, sizeof buf, n);
    ck_assert_int_eq(ms_message_append(st, &ids[n], NULL, acct, box, (uint8_t *)buf, len, 0, n), 0);
  }
}

static void read_range(ms_store *st, uint32_t acct, unsigned from, unsigned to,
                       const uint64_t *ids) {
  char buf[MAIL_CAP], back[MAIL_CAP];
  for (unsigned n = from; n < to; n++) {
    size_t len = mail(buf, sizeof buf, n), got = 0;
    ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &got, acct, ids[n]), 0);
    ck_assert_uint_eq(got, len);
    ck_assert_mem_eq(back, buf, len);
  }
}

START_TEST(train_mix_and_recompress) {
  static uint64_t ids[1000];
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box, id = 0;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  deliver_range(st, acct, box, 0, 300, ids);
  struct ms_store_stats s0, s1, s2;
  ck_assert_int_eq(ms_store_stats_get(st, &s0), 0);
  ck_assert_uint_eq(s0.dicts, 0);
  ck_assert_uint_eq(s0.dict_current, 0);
  ck_assert_uint_eq(s0.dict_blobs, 0);
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_eq(id, 1);
  deliver_range(st, acct, box, 300, 600, ids);
  ck_assert_int_eq(ms_store_stats_get(st, &s1), 0);
  ck_assert_uint_eq(s1.dicts, 1);
  ck_assert_uint_eq(s1.dict_current, 1);
  ck_assert_uint_gt(s1.dict_bytes, 0);
  ck_assert_uint_le(s1.dict_bytes, 16384);
  ck_assert_uint_eq(s1.dict_blobs, 300);
  ck_assert_uint_eq(s1.blobs, 600);
  // The same kind of mail compresses better with the dictionary.
  uint64_t plain_per_raw = s0.blob_stored * 1000 / s0.blob_raw;
  uint64_t dict_per_raw = s1.dict_stored * 1000 / s1.dict_raw;
  ck_assert_uint_lt(dict_per_raw, plain_per_raw);
  // Old (no dictionary) and new blobs read back, in this handle and a new one.
  read_range(st, acct, 0, 600, ids);
  verify_ok(st);
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  read_range(st, acct, 0, 600, ids);
  // A second dictionary: new blobs use it, the first one's still read.
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_eq(id, 2);
  deliver_range(st, acct, box, 600, 700, ids);
  ck_assert_int_eq(ms_store_stats_get(st, &s2), 0);
  ck_assert_uint_eq(s2.dicts, 2);
  ck_assert_uint_eq(s2.dict_current, 2);
  ck_assert_uint_eq(s2.dict_blobs, 400);
  read_range(st, acct, 0, 700, ids);
  verify_ok(st);
  // Recompression moves every blob to dictionary 2, in bounded steps.
  int rc, total = 0, calls = 0;
  while ((rc = ms_store_recompress(st, 128)) > 0) {
    ck_assert_int_le(rc, 128);
    total += rc;
    calls++;
  }
  ck_assert_int_eq(rc, 0);
  ck_assert_int_eq(total, 600);
  ck_assert_int_ge(calls, 5);
  ck_assert_int_eq(ms_store_stats_get(st, &s2), 0);
  ck_assert_uint_eq(s2.dict_blobs, 700);
  ck_assert_uint_eq(s2.blob_raw, s2.dict_raw);
  read_range(st, acct, 0, 700, ids);
  verify_ok(st);
  // Expunge and collect still work on dictionary blobs.
  uint32_t uids[50];
  for (uint32_t i = 0; i < 50; i++)
    uids[i] = i + 1;
  ck_assert_int_eq(ms_messages_expunge(st, acct, box, uids, 50), 50);
  ck_assert_int_eq(ms_store_collect(st, 0), 50);
  read_range(st, acct, 50, 700, ids);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// Bodies under 64 bytes are left out of the sample: ten one-byte
// messages are too few to train on (zstd's trainer, given them, died of a
// division by zero), and so are ten of 63 bytes; eight of 64 bytes are
// taken.
START_TEST(tiny_bodies_left_out) {
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box, id = 77;
  new_store(&dir, &st, &set, "emil", &acct, &box);
  for (int i = 0; i < 10; i++) {
    uint8_t byte = (uint8_t)('0' + i);
    ck_assert_int_eq(ms_message_append(st, NULL, NULL, acct, box, &byte, 1, 0, 0), 0);
  }
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  char body[64];
  for (int i = 0; i < 10; i++) {
    memset(body, 'a' + i, 63);
    ck_assert_int_eq(ms_message_append(st, NULL, NULL, acct, box, (uint8_t *)body, 63, 0, 0), 0);
  }
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  ck_assert_uint_eq(id, 77);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 0);
  for (int i = 0; i < 8; i++) {
    int n = snprintf(body, sizeof body, "Subject: %d\r\n\r\n", i);
    memset(body + n, 'k' + i, sizeof body - (size_t)n);
    ck_assert_int_eq(
        ms_message_append(st, NULL, NULL, acct, box, (uint8_t *)body, sizeof body, 0, 0), 0);
  }
  // Debian 12's zstd (1.5.4) makes a dictionary of these eight.
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_eq(id, 1);
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 1);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

START_TEST(too_few_samples) {
  static uint64_t ids[8];
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box, id = 77;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  deliver_range(st, acct, box, 0, 5, ids);
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  ck_assert_uint_eq(id, 77);
  ck_assert_int_eq(ms_store_train(NULL, &id, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_store_recompress(NULL, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_store_recompress(st, 0), 0); // no dictionary: nothing to do
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 0);
  read_range(st, acct, 0, 5, ids);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// The first dictionary is trained by the store itself once it holds
// dict_train_after blobs; a batch delivery that crosses the mark triggers it.
START_TEST(automatic_training) {
  static uint64_t ids[400];
  struct ms_settings set = settings(200);
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  deliver_range(st, acct, box, 0, 199, ids);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 0);
  static char bufs[4][MAIL_CAP];
  struct ms_delivery d[4];
  for (unsigned i = 0; i < 4; i++) {
    size_t len = mail(bufs[i], MAIL_CAP, 199 + i);
    d[i] = (struct ms_delivery){
        .account = acct, .mailbox = box, .data = (uint8_t *)bufs[i], .len = len};
  }
  ck_assert_int_eq(ms_messages_deliver(st, d, 4), 4);
  for (unsigned i = 0; i < 4; i++)
    ids[199 + i] = d[i].message_id;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 1);
  ck_assert_uint_eq(s.dict_blobs, 0);
  deliver_range(st, acct, box, 203, 260, ids);
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 1); // trained once only
  ck_assert_uint_eq(s.dict_blobs, 57);
  read_range(st, acct, 0, 260, ids);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A dictionary trained by another process is adopted by this one at its
// next delivery commit, and the delivery after that uses it.
START_TEST(other_process_dictionary) {
  static uint64_t ids[300];
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  deliver_range(st, acct, box, 0, 200, ids);
  int go[2], ready[2];
  ck_assert_int_eq(pipe(go), 0);
  ck_assert_int_eq(pipe(ready), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    // The child trains while the parent holds the store open.
    char c;
    if (read(go[0], &c, 1) != 1)
      _exit(2);
    ms_store *cs;
    uint32_t id;
    if (ms_store_open(&cs, dir, &set) != 0 || ms_store_train(cs, &id, 0) != 0 || id != 1)
      _exit(3);
    ms_store_close(cs);
    _exit(write(ready[1], "x", 1) == 1 ? 0 : 4);
  }
  ck_assert_int_eq(write(go[1], "x", 1), 1);
  char c;
  ck_assert_int_eq(read(ready[0], &c, 1), 1);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  deliver_range(st, acct, box, 200, 202, ids);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 1);
  ck_assert_uint_eq(s.dict_blobs, 1);
  read_range(st, acct, 0, 202, ids);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
  close(go[0]);
  close(go[1]);
  close(ready[0]);
  close(ready[1]);
}
END_TEST

// raw_dict takes dictionary 1 out of the store (saving it in *saved) or puts
// it back, through LMDB directly while the store is closed.
static void raw_dict(const char *dir, MDB_val *saved, int remove) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 16);
  ck_assert_int_eq(mdb_env_open(env, dir, 0, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "dicts", 0, &d), 0);
  uint8_t k[4] = {0, 0, 0, 1};
  MDB_val key = {4, k}, v;
  if (remove) {
    ck_assert_int_eq(mdb_get(t, d, &key, &v), 0);
    saved->mv_size = v.mv_size;
    saved->mv_data = malloc(v.mv_size);
    memcpy(saved->mv_data, v.mv_data, v.mv_size);
    ck_assert_int_eq(mdb_del(t, d, &key, NULL), 0);
  } else {
    ck_assert_int_eq(mdb_put(t, d, &key, saved, 0), 0);
    free(saved->mv_data);
  }
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
}

START_TEST(verify_checks_dictionaries) {
  static uint64_t ids[300];
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box, id;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  deliver_range(st, acct, box, 0, 200, ids);
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  deliver_range(st, acct, box, 200, 210, ids);
  verify_ok(st);
  ms_store_close(st);
  MDB_val saved;
  raw_dict(dir, &saved, 1);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  struct ms_diag dg;
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_msg(strstr(dg.message, "names dictionary 1, which does not exist") != NULL, "%s",
                dg.message);
  char back[MAIL_CAP];
  size_t got;
  ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &got, acct, ids[205]),
                   MS_ERR_CORRUPT);
  read_range(st, acct, 0, 200, ids); // blobs without a dictionary are unaffected
  ms_store_close(st);
  // A damaged dictionary record (unknown version) still lets the store
  // open, so that verify can name the problem.
  MDB_val damaged = {saved.mv_size, malloc(saved.mv_size)};
  memcpy(damaged.mv_data, saved.mv_data, saved.mv_size);
  ((uint8_t *)damaged.mv_data)[0] = 9;
  raw_dict(dir, &damaged, 0);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &got, acct, ids[205]),
                   MS_ERR_CORRUPT);
  ms_store_close(st);
  raw_dict(dir, &saved, 0);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  verify_ok(st);
  read_range(st, acct, 0, 210, ids);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// kill -9 at a random moment while a child delivers, trains and recompresses
// in a loop: the store always opens, passes verify and holds every
// acknowledged message; a dictionary is either wholly there or absent.
START_TEST(kill9_during_training) {
  enum { ROUNDS = 8 };
  struct ms_settings set = settings(UINT32_MAX);
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "dora", &acct, &box);
  static uint64_t ids[200];
  deliver_range(st, acct, box, 0, 100, ids);
  ms_store_close(st);
  srand((unsigned)time(NULL));
  struct ack {
    uint64_t id;
    uint32_t n, pad;
  } *acked = NULL;
  size_t nacked = 0;
  unsigned trained_max = 0;
  for (unsigned round = 0; round < ROUNDS; round++) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      close(p[0]);
      ms_store *cs;
      if (ms_store_open(&cs, dir, &set) != 0)
        _exit(2);
      char buf[MAIL_CAP];
      for (unsigned n = 1000 + round * 100000;; n++) {
        struct ack a = {0, n, 0};
        size_t len = mail(buf, sizeof buf, n);
        if (ms_message_append(cs, &a.id, NULL, acct, box, (uint8_t *)buf, len, 0, n) != 0 ||
            write(p[1], &a, sizeof a) != (ssize_t)sizeof a)
          _exit(3);
        if (n % 10 == 0) {
          uint32_t id;
          if (ms_store_train(cs, &id, 0) != 0)
            _exit(4);
          int r;
          while ((r = ms_store_recompress(cs, 64)) > 0) {
          }
          if (r < 0)
            _exit(5);
        }
      }
    }
    close(p[1]);
    struct timespec ts = {0, (long)(50 + rand() % 700) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status), "child exited by itself: %d", WEXITSTATUS(status));
    for (;;) {
      acked = realloc(acked, (nacked + 64) * sizeof *acked);
      ssize_t r = read(p[0], acked + nacked, 64 * sizeof *acked);
      if (r <= 0)
        break;
      nacked += (size_t)r / sizeof *acked;
    }
    close(p[0]);
    ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
    verify_ok(st);
    read_range(st, acct, 0, 100, ids);
    char buf[MAIL_CAP], back[MAIL_CAP];
    for (size_t i = 0; i < nacked; i++) {
      size_t len = mail(buf, sizeof buf, acked[i].n), got = 0;
      ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &got, acct, acked[i].id),
                       0);
      ck_assert_uint_eq(got, len);
      ck_assert_mem_eq(back, buf, len);
    }
    struct ms_store_stats s;
    ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
    ck_assert_uint_ge(s.dicts, trained_max);
    trained_max = (unsigned)s.dicts;
    ms_store_close(st);
  }
  fprintf(stderr, "# %u kills, %zu acknowledged messages, %u dictionaries\n", ROUNDS, nacked,
          trained_max);
  free(acked);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("dict");
  TCase *tc = tcase_create("dict");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, train_mix_and_recompress);
  tcase_add_test(tc, too_few_samples);
  tcase_add_test(tc, tiny_bodies_left_out);
  tcase_add_test(tc, automatic_training);
  tcase_add_test(tc, other_process_dictionary);
  tcase_add_test(tc, verify_checks_dictionaries);
  tcase_add_test(tc, kill9_during_training);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
