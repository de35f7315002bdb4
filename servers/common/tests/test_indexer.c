// test_indexer.c: the indexing queue (servers/common indexer.c) with a real
// libmailstore store and a real libftsearch index on disk: delivery to
// query (plain, HTML, attachment, header fields), expunge to removal, a
// message expunged before it was indexed, the poison-message rule with its
// retries and failure log, the indexer lock, rebuild, and SIGKILLs of an
// indexer process mid-batch after which the index equals a fresh rebuild;
// a rebuild reaching messages past a long run of destroyed ids; and the
// error paths an administrator meets: bad arguments, an unusable or held
// lock file, a failure log that cannot be written or rewritten, a damaged
// message body or queue entry, a full index during a rebuild.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "indexer_test_util.h"
#include "mailparse.h"
#include "srv_indexer.h"

#include <lmdb.h>

static char dir[64];
static char store_dir[96], index_path[96], failed_path[96];

static void make_dirs(void) {
  snprintf(dir, sizeof dir, "/tmp/srv-indexer-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(store_dir, sizeof store_dir, "%s/store", dir);
  snprintf(index_path, sizeof index_path, "%s/index", dir);
  snprintf(failed_path, sizeof failed_path, "%s/failed", dir);
  ck_assert_int_eq(mkdir(store_dir, 0700), 0);
}

static void remove_dirs(void) {
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static ms_store *open_store(void) {
  ms_store *st;
  struct ms_settings s = {.dict_train_after = UINT32_MAX};
  ck_assert_int_eq(ms_store_open(&st, store_dir, &s), 0);
  return st;
}

static fts_index *open_index(const char *path, uint32_t max_terms) {
  fts_index *idx;
  fts_index_settings s = {.flags = FTS_INDEX_NO_SYNC};
  s.analyzer.max_terms = max_terms;
  ck_assert_int_eq(fts_index_open(&idx, path, &s), 0);
  return idx;
}

static uint64_t deliver(ms_store *st, uint32_t acct, uint32_t mbox, const char *msg) {
  uint64_t id;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, mbox, (const uint8_t *)msg, strlen(msg),
                                     0, 1700000000),
                   0);
  return id;
}

START_TEST(delivery_to_query_and_expunge_to_removal) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  uint32_t acct, other, inbox, archive, other_inbox;
  ck_assert_int_eq(ms_account_create(st, &acct, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_account_create(st, &other, "eve", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &archive, acct, "Archive", 7, MS_ROLE_ARCHIVE), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &other_inbox, other, "INBOX", 5, MS_ROLE_INBOX), 0);
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  uint64_t b = deliver(st, acct, inbox, html_msg);
  uint64_t c = deliver(st, acct, inbox, attach_msg);
  uint64_t e = deliver(st, other, other_inbox, plain_msg);

  srv_indexer *ix;
  struct srv_indexer_settings s = {.workers = 2, .batch = 2};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 3);
  ck_assert_uint_eq(status.indexed, 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 4);
  ck_assert_uint_eq(rep.indexed, 4);
  ck_assert_uint_eq(rep.failed, 0);

  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  ck_assert_str_eq(search(idx, acct, "from:alice"), num(a));
  ck_assert_str_eq(search(idx, acct, "to:bob"), "1 2 3");
  ck_assert_str_eq(search(idx, acct, "subject:zebra"), num(a));
  ck_assert_str_eq(search(idx, acct, "headers:umbrellacorp"), num(a));
  ck_assert_str_eq(search(idx, acct, "hippopotamus tango"), num(b));
  ck_assert_str_eq(search(idx, acct, "subject:café"), num(b));
  ck_assert_str_eq(search(idx, acct, "html OR body"), ""); // markup is not text
  ck_assert_str_eq(search(idx, acct, "attachment:walrus"), num(c));
  ck_assert_str_eq(search(idx, acct, "attachment:minutes"), num(c));
  ck_assert_str_eq(search(idx, acct, "body:walrus"), "");
  ck_assert_str_eq(search(idx, other, "pelican"), num(e));
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 3);
  ck_assert_uint_eq(status.failed, 0);

  // A copy keeps the message id: nothing queued, still one document.
  uint32_t uid_a = 1;
  ck_assert_int_eq(ms_messages_copy(st, NULL, acct, inbox, archive, &uid_a, 1), 1);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), 0);
  // Expunged from one of two mailboxes: still there; from both: removed.
  ck_assert_int_eq(ms_messages_expunge(st, acct, inbox, &uid_a, 1), 1);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), 0);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  uint32_t uid_arch = 1;
  ck_assert_int_eq(ms_messages_expunge(st, acct, archive, &uid_arch, 1), 1);
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.removed, 1);
  ck_assert_str_eq(search(idx, acct, "pelican"), "");
  ck_assert_str_eq(search(idx, other, "pelican"), num(e));

  // Delivered and expunged before the indexer ran: skipped, then removed.
  uint64_t d = deliver(st, acct, inbox, "Subject: ephemeral narwhal\r\n\r\ngone\r\n");
  uint32_t uid_d = 4;
  ck_assert_int_eq(ms_messages_expunge(st, acct, inbox, &uid_d, 1), 1);
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 2);
  ck_assert_uint_eq(rep.skipped, 1);
  ck_assert_str_eq(search(idx, acct, "narwhal"), "");
  (void)d;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.indexed, 2);

  // A second indexer on the same index is refused while this one lives.
  srv_indexer *ix2;
  ck_assert_int_eq(srv_indexer_new(&ix2, st, idx, index_path, NULL, NULL), 0);
  deliver(st, acct, inbox, plain_msg);
  ck_assert_int_eq(srv_indexer_run_once(ix2, NULL), -EWOULDBLOCK);
  srv_indexer_free(ix);
  ck_assert_int_eq(srv_indexer_run_once(ix2, NULL), 1);
  srv_indexer_free(ix2);
  ck_assert_str_ne(srv_indexer_strerror(MS_ERR_NOTFOUND), srv_indexer_strerror(FTS_ERR_LIMIT));
  ck_assert_str_eq(srv_indexer_strerror(FTS_ERR_LIMIT), fts_strerror(FTS_ERR_LIMIT));

  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A message that fails on its own (more words than the index's analyzer
// takes) is tried max_attempts times, then logged, acknowledged and passed;
// the messages around it are indexed; a rebuild tries it once more.
START_TEST(poison_message_is_given_up_after_k_attempts) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 400);
  uint32_t acct, inbox;
  ck_assert_int_eq(ms_account_create(st, &acct, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  uint64_t first = deliver(st, acct, inbox, "Subject: before\r\n\r\nfirst harmless\r\n");
  size_t cap = 64 + 2000 * 12;
  char *big = malloc(cap);
  size_t n = (size_t)snprintf(big, cap, "Subject: poison\r\n\r\n");
  for (int i = 0; i < 2000; i++)
    n += (size_t)snprintf(big + n, cap - n, "word%d ", i);
  uint64_t poison = deliver(st, acct, inbox, big);
  free(big);
  uint64_t last = deliver(st, acct, inbox, "Subject: after\r\n\r\nlast harmless\r\n");

  srv_indexer *ix;
  struct srv_indexer_settings s = {.workers = 1, .max_attempts = 3, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  // 1st call: "first" acknowledged, held at the poison (attempt 1).
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), 1);
  ck_assert_str_eq(search(idx, acct, "harmless"), "1 3"); // committed, not acknowledged
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 2);
  ck_assert_uint_eq(status.failed, 0);
  // 2nd call: attempts 2 and 3 (the head is retried within the call, as 0
  // would mean an empty queue); the 3rd gives up: both entries acknowledged.
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), 2);
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), 0);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_uint_eq(rep.retries, 2);
  ck_assert_uint_eq(rep.entries, 3);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 2);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, poison);
  ck_assert_int_eq(status.last_error, FTS_ERR_LIMIT);
  ck_assert_str_eq(search(idx, acct, "harmless"), "1 3");
  ck_assert_str_eq(search(idx, acct, "poison"), "");

  // Rebuild: forgets the failure, tries again, logs it again (once).
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), 0);
  ck_assert_uint_eq(rep.indexed, 2);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_str_eq(search(idx, acct, "harmless"), "1 3");
  ck_assert_int_eq(srv_indexer_rebuild(ix, NULL, 77, NULL, NULL), MS_ERR_NOTFOUND);
  (void)first;
  (void)last;
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// ---- kill -9 mid-batch ----

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

#define VOCAB 400
static char vocab[VOCAB][12];

static void make_vocab(void) {
  static const char *syl[] = {"ka", "lo", "mi", "ne", "tu", "ra", "si", "po",
                              "de", "fa", "gu", "be", "zo", "vi", "qu", "xe"};
  for (int i = 0; i < VOCAB; i++) {
    int k = 2 + (i % 3);
    vocab[i][0] = 0;
    unsigned v = (unsigned)i * 2654435761u;
    for (int j = 0; j < k; j++, v /= 16)
      strcat(vocab[i], syl[v % 16]);
    char suffix[4];
    snprintf(suffix, sizeof suffix, "%c", 'a' + i % 26);
    strcat(vocab[i], suffix);
  }
}

static void deliver_random(ms_store *st, uint32_t acct, uint32_t mbox, int count) {
  struct ms_delivery *d = calloc((size_t)count, sizeof *d);
  char **texts = calloc((size_t)count, sizeof *texts);
  for (int m = 0; m < count; m++) {
    char *t = malloc(8192);
    size_t n = (size_t)snprintf(
        t, 8192, "From: u%u@example.org\r\nTo: v%u@example.net\r\nSubject:", rnd(50), rnd(50));
    for (int w = 0; w < 3; w++)
      n += (size_t)snprintf(t + n, 8192 - n, " %s", vocab[rnd(VOCAB)]);
    n += (size_t)snprintf(t + n, 8192 - n, "\r\n\r\n");
    int words = 20 + (int)rnd(150);
    for (int w = 0; w < words; w++)
      n +=
          (size_t)snprintf(t + n, 8192 - n, "%s%s", vocab[rnd(VOCAB)], w % 12 == 11 ? "\r\n" : " ");
    texts[m] = t;
    d[m] = (struct ms_delivery){.account = acct,
                                .mailbox = mbox,
                                .internal_date = 1700000000,
                                .data = (const uint8_t *)t,
                                .len = n};
  }
  ck_assert_int_eq(ms_messages_deliver(st, d, (size_t)count), count);
  for (int m = 0; m < count; m++)
    free(texts[m]);
  free(texts);
  free(d);
}

static void expunge_random(ms_store *st, uint32_t acct, uint32_t mbox, int count) {
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, mbox), 0);
  for (int i = 0; i < count; i++) {
    uint32_t uid = 1 + rnd(mi.uidnext - 1);
    ck_assert_int_ge(ms_messages_expunge(st, acct, mbox, &uid, 1), 0);
  }
}

static void indexer_child(void) {
  ms_store *st;
  fts_index *idx;
  srv_indexer *ix;
  struct srv_indexer_settings s = {.workers = 2, .batch = 64};
  if (ms_store_open(&st, store_dir, NULL) || fts_index_open(&idx, index_path, NULL) ||
      srv_indexer_new(&ix, st, idx, index_path, failed_path, &s))
    _exit(2);
  int rc = srv_indexer_run(ix, NULL, NULL);
  _exit(rc == 0 ? 0 : 3);
}

START_TEST(sigkill_mid_batch_equals_fresh_rebuild) {
  make_dirs();
  make_vocab();
  uint32_t acct, inbox;
  ms_store *st = open_store();
  ck_assert_int_eq(ms_account_create(st, &acct, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  ms_store_close(st);
  int killed = 0, finished = 0;
  int rounds = getenv("SRV_INDEXER_ROUNDS") ? atoi(getenv("SRV_INDEXER_ROUNDS")) : 8;
  for (int round = 0; round < rounds; round++) {
    // The parent changes the store between rounds with no handle open
    // across the fork (an LMDB environment must not cross a fork).
    st = open_store();
    deliver_random(st, acct, inbox, 300);
    expunge_random(st, acct, inbox, 30);
    ms_store_close(st);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
      indexer_child();
    struct timespec ts = {0, (long)(30 + rnd(300)) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    if (WIFSIGNALED(ws))
      killed++;
    else
      ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "indexer child failed: %d", ws);
    finished += WIFEXITED(ws);
  }
  ck_assert_int_gt(killed, 0);

  // Finish the queue, then rebuild the account into a second, fresh index.
  st = open_store();
  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, NULL), 0);
  // The killed indexers got somewhere: part of the queue is acknowledged
  // (else the kills would have tested nothing).
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_lt(status.queued, (uint64_t)rounds * 330);
  ck_assert_uint_gt(status.indexed, 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  char fresh_path[128];
  snprintf(fresh_path, sizeof fresh_path, "%s/fresh", dir);
  fts_index *fresh = open_index(fresh_path, 0);
  srv_indexer *fx;
  ck_assert_int_eq(srv_indexer_new(&fx, st, fresh, fresh_path, NULL, NULL), 0);
  ck_assert_int_eq(srv_indexer_rebuild(fx, NULL, acct, NULL, NULL), 0);

  // Same documents, and the same word counts per field: a document indexed
  // twice, or once too often, would change them.
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, acct), 0);
  fts_index_stats s1, s2;
  ck_assert_int_eq(fts_index_account_stats(idx, &s1, acct), 0);
  ck_assert_int_eq(fts_index_account_stats(fresh, &s2, acct), 0);
  ck_assert_uint_eq(s1.num_docs, ai.used_messages);
  ck_assert_uint_eq(s2.num_docs, ai.used_messages);
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    ck_assert_uint_eq(s1.field_terms[f], s2.field_terms[f]);
  static uint32_t d1[4096], d2[4096];
  size_t n1, n2;
  ck_assert_int_eq(fts_index_docs_list(idx, d1, 4096, &n1, acct, 0), 0);
  ck_assert_int_eq(fts_index_docs_list(fresh, d2, 4096, &n2, acct, 0), 0);
  ck_assert_uint_eq(n1, n2);
  ck_assert_int_eq(memcmp(d1, d2, n1 * sizeof *d1), 0);
  for (size_t i = 0; i < n1; i++) {
    struct ms_message_info mi;
    ck_assert_int_eq(ms_message_get(st, &mi, acct, d1[i]), 0);
  }
  for (int q = 0; q < 60; q++) {
    char query[64];
    if (q % 3 == 2)
      snprintf(query, sizeof query, "%s OR subject:%s", vocab[rnd(VOCAB)], vocab[rnd(VOCAB)]);
    else
      snprintf(query, sizeof query, "%s", vocab[rnd(VOCAB)]);
    static char r1[8192];
    snprintf(r1, sizeof r1, "%s", search(idx, acct, query));
    ck_assert_str_eq(r1, search(fresh, acct, query));
  }
  fprintf(
      stderr, "# %d rounds: %d indexers killed, %d finished; %llu entries left, %llu documents\n",
      rounds, killed, finished, (unsigned long long)status.queued, (unsigned long long)s1.num_docs);
  srv_indexer_free(fx);
  srv_indexer_free(ix);
  fts_index_close(fresh);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A commit that fails (here: the index file is full) is retried with
// backoff, then returned; nothing is acknowledged, and once the index has
// room every message is indexed.
START_TEST(failed_commit_is_retried_and_acknowledges_nothing) {
  make_dirs();
  make_vocab();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  ck_assert_int_eq(ms_account_create(st, &acct, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  deliver_random(st, acct, inbox, 400);
  fts_index *idx;
  fts_index_settings small = {.flags = FTS_INDEX_NO_SYNC, .map_size = 64u << 10};
  ck_assert_int_eq(fts_index_open(&idx, index_path, &small), 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.batch = 400, .max_attempts = 3, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  int rc = srv_indexer_run_once(ix, &rep);
  ck_assert_msg(rc == FTS_ERR_LIMIT, "run_once: %d %s", rc, srv_indexer_strerror(rc));
  ck_assert_uint_eq(rep.retries, 2);
  ck_assert_uint_eq(rep.entries, 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 400);
  ck_assert_uint_eq(status.indexed, 0);
  ck_assert_uint_eq(status.failed, 0);
  srv_indexer_free(ix);
  fts_index_close(idx);
  idx = open_index(index_path, 0);
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  ck_assert_int_eq(srv_indexer_run(ix, NULL, NULL), 0);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 400);
  // The margin that makes the first attempt fail: twice the small map.
  ck_assert_int_gt(fts_index_file_size(idx), 128 << 10);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// skip_message_ids advances the next message id of account `acct` of the
// (closed) store by `skip`, as `skip` deliveries each destroyed again would
// have, by editing its account record (FORMAT.md: u64 LE at offset 41)
// directly.
static void skip_message_ids(uint32_t acct, uint64_t skip) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  ck_assert_int_eq(mdb_env_set_maxdbs(env, 32), 0);
  ck_assert_int_eq(mdb_env_open(env, store_dir, 0, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "accounts", 0, &d), 0);
  uint8_t k[4] = {(uint8_t)(acct >> 24), (uint8_t)(acct >> 16), (uint8_t)(acct >> 8),
                  (uint8_t)acct};
  MDB_val key = {4, k}, v;
  ck_assert_int_eq(mdb_get(t, d, &key, &v), 0);
  ck_assert_uint_ge(v.mv_size, 49);
  uint8_t rec[2048];
  ck_assert_uint_le(v.mv_size, sizeof rec);
  memcpy(rec, v.mv_data, v.mv_size);
  uint64_t next = 0;
  for (int i = 7; i >= 0; i--)
    next = next << 8 | rec[41 + i];
  next += skip;
  for (int i = 0; i < 8; i++)
    rec[41 + i] = (uint8_t)(next >> (8 * i));
  MDB_val nv = {v.mv_size, rec};
  ck_assert_int_eq(mdb_put(t, d, &key, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
}

// Ids are never reused, so an account that once held millions of messages
// has long runs of free ids. The rebuild lists the account's ids instead of
// probing them one by one, so it reaches messages past a gap longer than
// the 2^22 free ids after which the former probe gave up.
START_TEST(rebuild_finds_messages_past_a_long_gap) {
  make_dirs();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  ck_assert_int_eq(ms_account_create(st, &acct, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  uint64_t b = deliver(st, acct, inbox, html_msg);
  ms_store_close(st);
  const uint64_t gap = (1u << 22) + 1000;
  skip_message_ids(acct, gap);
  st = open_store();
  uint64_t c = deliver(st, acct, inbox, attach_msg);
  ck_assert_uint_gt(c, b + gap);
  uint64_t d = deliver(st, acct, inbox, plain_msg);
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);

  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, NULL), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), 0);
  ck_assert_uint_eq(rep.indexed, 4);
  ck_assert_uint_eq(rep.failed, 0);
  static char want[64];
  snprintf(want, sizeof want, "%s %s", num(a), num(d));
  ck_assert_str_eq(search(idx, acct, "pelican"), want);
  ck_assert_str_eq(search(idx, acct, "hippopotamus"), num(b));
  ck_assert_str_eq(search(idx, acct, "attachment:walrus"), num(c));
  fts_index_stats fs;
  ck_assert_int_eq(fts_index_account_stats(idx, &fs, acct), 0);
  ck_assert_uint_eq(fs.num_docs, 4);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// ---- error paths ----

// store_record_get copies the value of `key` in DBI `dbi` of the (closed)
// store to out and returns its length; store_record_put overwrites it. The
// tests use them to damage a store the way a bad disk or a stray tool would
// (FORMAT.md gives the layouts).
static size_t store_record_get(const char *dbi, const uint8_t *key, size_t key_len, uint8_t *out,
                               size_t cap) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  ck_assert_int_eq(mdb_env_set_maxdbs(env, 32), 0);
  ck_assert_int_eq(mdb_env_open(env, store_dir, MDB_RDONLY, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, dbi, 0, &d), 0);
  MDB_val k = {key_len, (void *)key}, v;
  ck_assert_int_eq(mdb_get(t, d, &k, &v), 0);
  ck_assert_uint_le(v.mv_size, cap);
  memcpy(out, v.mv_data, v.mv_size);
  mdb_txn_abort(t);
  mdb_env_close(env);
  return v.mv_size;
}

static void store_record_put(const char *dbi, const uint8_t *key, size_t key_len,
                             const uint8_t *val, size_t len) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  ck_assert_int_eq(mdb_env_set_maxdbs(env, 32), 0);
  ck_assert_int_eq(mdb_env_open(env, store_dir, 0, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, dbi, 0, &d), 0);
  MDB_val k = {key_len, (void *)key}, v = {len, (void *)val};
  ck_assert_int_eq(mdb_put(t, d, &k, &v, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
}

static void put_be(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

// damage_message_body breaks the zstd frame of the blob of message
// `message_id` (its magic number) and leaves the records around it intact,
// so that the message is listed and sized but its bytes cannot be read.
static void damage_message_body(uint32_t acct, uint64_t message_id) {
  uint8_t key[12], msg[64], blob[4096];
  put_be(key, acct, 4);
  put_be(key + 4, message_id, 8);
  ck_assert_uint_eq(store_record_get("messages", key, sizeof key, msg, sizeof msg), 61);
  size_t len = store_record_get("blobs", msg + 29, 32, blob, sizeof blob);
  ck_assert_uint_gt(len, 22);
  ck_assert_uint_eq(blob[17], 1); // codec 1: the frame starts at offset 18
  memset(blob + 18, 0, 4);
  store_record_put("blobs", msg + 29, 32, blob, len);
}

// queued counts the store's queue entries without going through the
// indexer, so it can be checked while the indexer itself fails.
static uint64_t queued(ms_store *st) {
  struct ms_search_item items[64];
  size_t n = 0;
  ck_assert_int_eq(ms_search_queue_read(st, items, 64, &n, 0), 0);
  return n;
}

static void make_account(ms_store *st, uint32_t *acct, uint32_t *inbox, const char *name) {
  ck_assert_int_eq(ms_account_create(st, acct, name, strlen(name), 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, inbox, *acct, "INBOX", 5, MS_ROLE_INBOX), 0);
}

// deliver_poison delivers a message with more words than an index opened
// with max_terms 400 takes: it fails on its own (FTS_ERR_LIMIT) every time.
static uint64_t deliver_poison(ms_store *st, uint32_t acct, uint32_t mbox) {
  size_t cap = 64 + 2000 * 12;
  char *big = malloc(cap);
  ck_assert_ptr_nonnull(big);
  size_t n = (size_t)snprintf(big, cap, "Subject: poison\r\n\r\n");
  for (int i = 0; i < 2000; i++)
    n += (size_t)snprintf(big + n, cap - n, "word%d ", i);
  uint64_t id = deliver(st, acct, mbox, big);
  free(big);
  return id;
}

START_TEST(bad_arguments_and_settings_are_refused) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix = NULL;
  ck_assert_int_eq(srv_indexer_new(NULL, st, idx, index_path, NULL, NULL),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_new(&ix, NULL, idx, index_path, NULL, NULL),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_new(&ix, st, NULL, index_path, NULL, NULL),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, NULL, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(ix);
  // The bounds are inclusive: one above is refused, the bound itself works.
  struct srv_indexer_settings too_many = {.workers = SRV_INDEXER_MAX_WORKERS + 1};
  struct srv_indexer_settings too_big = {.batch = SRV_INDEXER_MAX_BATCH + 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, NULL, &too_many),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, NULL, &too_big),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(ix);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  struct srv_indexer_settings widest = {.workers = SRV_INDEXER_MAX_WORKERS,
                                        .batch = SRV_INDEXER_MAX_BATCH};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, NULL, &widest), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), 1);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));

  ck_assert_int_eq(srv_indexer_run_once(NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_run(NULL, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_rebuild(NULL, NULL, acct, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(NULL, &status, acct), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_indexer_status_get(ix, NULL, acct), SRV_ERR_INVALID_ARGUMENT);
  srv_indexer_free(ix);
  srv_indexer_free(NULL);

  // A read-only index cannot take batches: refused up front rather than at
  // the first commit. (fts_batch_new's code comes through.)
  fts_index_close(idx);
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  ck_assert_int_eq(fts_index_open(&idx, index_path, &ro), 0);
  ix = NULL;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, NULL, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(ix);

  // Every library's codes are described by that library.
  ck_assert_str_eq(srv_indexer_strerror(MP_ERR_SYNTAX), mp_strerror(MP_ERR_SYNTAX));
  ck_assert_str_eq(srv_indexer_strerror(MS_ERR_CORRUPT), ms_strerror(MS_ERR_CORRUPT));
  ck_assert_str_eq(srv_indexer_strerror(SRV_ERR_LIMIT), srv_strerror(SRV_ERR_LIMIT));
  ck_assert_str_eq(srv_indexer_strerror(-EWOULDBLOCK), srv_strerror(-EWOULDBLOCK));
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// The lock file "<index>.indexer" cannot be created (a directory, or a
// dangling link into a missing directory, in its place) or is held by
// someone else: run and rebuild return the error, touch nothing, and work
// once the obstacle is gone.
START_TEST(unusable_or_held_lock_file_refuses_run_and_rebuild) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  char lock_path[128], missing[128];
  snprintf(lock_path, sizeof lock_path, "%s.indexer", index_path);
  snprintf(missing, sizeof missing, "%s/missing/lock", dir);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, NULL), 0);

  ck_assert_int_eq(mkdir(lock_path, 0700), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), -EISDIR);
  ck_assert_int_eq(srv_indexer_run(ix, NULL, NULL), -EISDIR);
  ck_assert_int_eq(srv_indexer_rebuild(ix, NULL, acct, NULL, NULL), -EISDIR);
  ck_assert_int_eq(rmdir(lock_path), 0);
  ck_assert_int_eq(symlink(missing, lock_path), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), -ENOENT);
  ck_assert_int_eq(unlink(lock_path), 0);

  // Another indexer (here: another open file description) holds the lock.
  int held = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ck_assert_int_ge(held, 0);
  ck_assert_int_eq(flock(held, LOCK_EX | LOCK_NB), 0);
  ck_assert_int_eq(srv_indexer_run_once(ix, NULL), -EWOULDBLOCK);
  ck_assert_int_eq(srv_indexer_rebuild(ix, NULL, acct, NULL, NULL), -EWOULDBLOCK);
  // Status takes no lock: it works beside a running indexer.
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 1);
  ck_assert_uint_eq(status.indexed, 0);
  close(held);

  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), 1);
  ck_assert_uint_eq(rep.indexed, 1);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// Documents are 32-bit: a message whose id went past 2^32 (an account
// that has seen four billion deliveries) fails on its own with
// SRV_ERR_LIMIT, is logged and passed, and never takes the document of the
// message its id would truncate to.
START_TEST(message_id_beyond_32_bits_is_given_up) {
  make_dirs();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg); // id 1
  ms_store_close(st);
  skip_message_ids(acct, UINT32_MAX); // the next id is 2^32 + 1: 1 when truncated
  st = open_store();
  uint64_t big = deliver(st, acct, inbox, "Subject: overflow\r\n\r\nnarwhal\r\n");
  ck_assert_uint_gt(big, UINT32_MAX);
  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.max_attempts = 2, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 2);
  ck_assert_uint_eq(rep.indexed, 1);
  ck_assert_uint_eq(rep.failed, 1);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 1);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, big);
  ck_assert_int_eq(status.last_error, SRV_ERR_LIMIT);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  ck_assert_str_eq(search(idx, acct, "narwhal"), "");

  // A rebuild gives its verdict after one try, and logs it once again.
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), 0);
  ck_assert_uint_eq(rep.indexed, 1);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_int_eq(status.last_error, SRV_ERR_LIMIT);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// Without a failure log the given-up messages are only counted, for all
// accounts together, and no error code is kept.
START_TEST(without_failure_log_failures_are_counted_in_memory) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 400);
  uint32_t bob, bob_inbox, eve, eve_inbox;
  make_account(st, &bob, &bob_inbox, "bob");
  make_account(st, &eve, &eve_inbox, "eve");
  deliver_poison(st, bob, bob_inbox);
  uint64_t a = deliver(st, bob, bob_inbox, plain_msg);
  deliver_poison(st, eve, eve_inbox);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.workers = 1, .max_attempts = 1, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, NULL, &s), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 3);
  ck_assert_uint_eq(rep.failed, 2);
  ck_assert_uint_eq(rep.indexed, 1);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, bob), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 1);
  ck_assert_uint_eq(status.failed, 2);
  ck_assert_uint_eq(status.last_failed_message, 0);
  ck_assert_int_eq(status.last_error, 0);
  ck_assert_str_eq(search(idx, bob, "pelican"), num(a));
  ck_assert_int_eq(access(failed_path, F_OK), -1); // nothing written anywhere
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A failure log that cannot be written: a directory in its place (not
// transient: returned at once) or a full disk (/dev/full: transient,
// retried). Either way the given-up message is not acknowledged, nor are the
// entries before it, and once the log can be written it is logged once.
START_TEST(unwritable_failure_log_keeps_the_message_queued) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 400);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  uint64_t poison = deliver_poison(st, acct, inbox);
  ck_assert_int_eq(mkdir(failed_path, 0700), 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.max_attempts = 1, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), -EISDIR);
  ck_assert_uint_eq(rep.entries, 0);
  ck_assert_uint_eq(rep.failed, 0);
  ck_assert_uint_eq(queued(st), 2);
  ck_assert_int_eq(rmdir(failed_path), 0);
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 2);
  ck_assert_uint_eq(rep.failed, 1);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, poison);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  srv_indexer_free(ix);

  // A full disk under the log.
  ck_assert_msg(access("/dev/full", W_OK) == 0, "this case needs /dev/full");
  char full_log[128];
  snprintf(full_log, sizeof full_log, "%s/full-log", dir);
  ck_assert_int_eq(symlink("/dev/full", full_log), 0);
  uint64_t poison2 = deliver_poison(st, acct, inbox);
  struct srv_indexer_settings s2 = {.max_attempts = 2, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, full_log, &s2), 0);
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), -ENOSPC);
  ck_assert_uint_eq(rep.entries, 0);
  ck_assert_uint_eq(rep.failed, 0);
  ck_assert_uint_gt(rep.retries, 0);
  ck_assert_uint_eq(queued(st), 1);
  srv_indexer_free(ix);
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s2), 0);
  ck_assert_int_eq(srv_indexer_run(ix, NULL, NULL), 0);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.failed, 2);
  ck_assert_uint_eq(status.last_failed_message, poison2);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

static size_t read_file(const char *path, char *out, size_t cap) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(out, 1, cap, f);
  ck_assert_int_eq(ferror(f), 0);
  fclose(f);
  return n;
}

// A rebuild first drops the account's lines from the failure log by writing
// "<log>.tmp" and renaming it over the log. When that fails (a full disk
// under the copy, a directory where the log should be) the rebuild stops
// before indexing anything, the log keeps every line and no copy is left.
// Status counts only well-formed lines of its account.
START_TEST(failure_log_that_cannot_be_rewritten_stops_rebuild) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  deliver(st, acct, inbox, plain_msg);
  // Other accounts' lines, enough to overflow a stdio buffer, and garbage.
  static char log[16384];
  size_t len = 0;
  for (int i = 1; i <= 400; i++)
    len += (size_t)snprintf(log + len, sizeof log - len, "%u %d -10501\n", acct + 1, i);
  len += (size_t)snprintf(log + len, sizeof log - len, "not a line of the log\n");
  len += (size_t)snprintf(log + len, sizeof log - len, "%u 77 -10502\n", acct);
  FILE *f = fopen(failed_path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(log, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, NULL), 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, 77);
  ck_assert_int_eq(status.last_error, -10502);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct + 1), 0);
  ck_assert_uint_eq(status.failed, 400);
  ck_assert_uint_eq(status.last_failed_message, 400);

  ck_assert_msg(access("/dev/full", W_OK) == 0, "this case needs /dev/full");
  char tmp_path[128];
  snprintf(tmp_path, sizeof tmp_path, "%s.tmp", failed_path);
  ck_assert_int_eq(symlink("/dev/full", tmp_path), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), -EIO);
  ck_assert_uint_eq(rep.indexed, 0);
  struct stat sb;
  ck_assert_int_eq(lstat(tmp_path, &sb), -1);
  static char after[16384];
  ck_assert_uint_eq(read_file(failed_path, after, sizeof after), len);
  ck_assert_int_eq(memcmp(after, log, len), 0);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.indexed, 0);

  char aside[128];
  snprintf(aside, sizeof aside, "%s/failed-aside", dir);
  ck_assert_int_eq(rename(failed_path, aside), 0);
  ck_assert_int_eq(mkdir(failed_path, 0700), 0);
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), -EISDIR);
  ck_assert_uint_eq(rep.indexed, 0);
  ck_assert_int_eq(lstat(tmp_path, &sb), -1);
  ck_assert_int_eq(rmdir(failed_path), 0);
  ck_assert_int_eq(rename(aside, failed_path), 0);

  // Unblocked: the rebuild indexes, and the account's line is gone.
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), 0);
  ck_assert_uint_eq(rep.indexed, 1);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 0);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct + 1), 0);
  ck_assert_uint_eq(status.failed, 400);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A message whose stored body cannot be read (damaged blob) fails on its
// own: retried max_attempts times, then logged and skipped while the
// messages around it are indexed; holding the queue for it would stop
// indexing for every account. Rebuild logs it again; once it is expunged
// nothing is left to fail.
START_TEST(damaged_message_body_is_given_up) {
  make_dirs();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  uint64_t b = deliver(st, acct, inbox, html_msg);
  uint64_t c = deliver(st, acct, inbox, "Subject: last\r\n\r\nwalrus\r\n");
  ms_store_close(st);
  damage_message_body(acct, b);
  st = open_store();
  uint8_t buf[4096];
  size_t blen;
  ck_assert_int_eq(ms_message_read(st, buf, sizeof buf, &blen, acct, b), MS_ERR_CORRUPT);
  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.max_attempts = 3, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 3);
  ck_assert_uint_eq(rep.indexed, 2);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_uint_eq(rep.retries, 2);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.queued, 0);
  ck_assert_uint_eq(status.indexed, 2);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, b);
  ck_assert_int_eq(status.last_error, MS_ERR_CORRUPT);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  ck_assert_str_eq(search(idx, acct, "walrus"), num(c));
  ck_assert_int_eq(access(failed_path, F_OK), 0);

  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, NULL, NULL), 0);
  ck_assert_uint_eq(rep.indexed, 2);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.failed, 1);
  ck_assert_uint_eq(status.last_failed_message, b);

  uint32_t uid_b = 2;
  ck_assert_int_eq(ms_messages_expunge(st, acct, inbox, &uid_b, 1), 1);
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 1); // the removal
  ck_assert_uint_eq(rep.failed, 0);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  ck_assert_str_eq(search(idx, acct, "walrus"), num(c));
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A queue entry that does not decode (an unknown operation) stops the
// indexer with MS_ERR_CORRUPT instead of being skipped; status reports the
// same. Repaired, the entry is applied: it was never dropped.
START_TEST(damaged_queue_entry_is_reported_not_skipped) {
  make_dirs();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  uint64_t a = deliver(st, acct, inbox, plain_msg);
  uint64_t b = deliver(st, acct, inbox, html_msg);
  ms_store_close(st);
  uint8_t seq1[8], entry[64];
  put_be(seq1, 1, 8);
  ck_assert_uint_eq(store_record_get("squeue", seq1, sizeof seq1, entry, sizeof entry), 13);
  ck_assert_uint_eq(entry[0], MS_SEARCH_INDEX);
  entry[0] = 9;
  store_record_put("squeue", seq1, sizeof seq1, entry, 13);
  st = open_store();
  fts_index *idx = open_index(index_path, 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.max_attempts = 2, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_run_once(ix, &rep), MS_ERR_CORRUPT);
  ck_assert_uint_eq(rep.entries, 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), MS_ERR_CORRUPT);
  fts_index_stats fs;
  ck_assert_int_eq(fts_index_account_stats(idx, &fs, acct), 0);
  ck_assert_uint_eq(fs.num_docs, 0);
  srv_indexer_free(ix);
  ms_store_close(st);

  entry[0] = MS_SEARCH_INDEX;
  store_record_put("squeue", seq1, sizeof seq1, entry, 13);
  st = open_store();
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  memset(&rep, 0, sizeof rep);
  ck_assert_int_eq(srv_indexer_run(ix, &rep, NULL), 0);
  ck_assert_uint_eq(rep.entries, 2);
  ck_assert_uint_eq(rep.indexed, 2);
  ck_assert_str_eq(search(idx, acct, "pelican"), num(a));
  ck_assert_str_eq(search(idx, acct, "hippopotamus"), num(b));
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A rebuild into an index that fills up mid-rebuild: the failed commit is
// retried with backoff, then returned; no message is blamed for it.
START_TEST(rebuild_into_a_full_index_is_retried_then_returned) {
  make_dirs();
  make_vocab();
  ms_store *st = open_store();
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  deliver_random(st, acct, inbox, 400);
  fts_index *idx;
  fts_index_settings small = {.flags = FTS_INDEX_NO_SYNC, .map_size = 64u << 10};
  ck_assert_int_eq(fts_index_open(&idx, index_path, &small), 0);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.batch = 400, .max_attempts = 3, .backoff_ms = 1};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  struct srv_indexer_report rep = {0};
  int rc = srv_indexer_rebuild(ix, &rep, acct, NULL, NULL);
  ck_assert_msg(rc == FTS_ERR_LIMIT, "rebuild: %d %s", rc, srv_indexer_strerror(rc));
  ck_assert_uint_eq(rep.retries, 2);
  ck_assert_uint_eq(rep.indexed, 0);
  ck_assert_uint_eq(rep.failed, 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), 0);
  ck_assert_uint_eq(status.indexed, 0);
  ck_assert_uint_eq(status.failed, 0);
  ck_assert_uint_eq(status.queued, 400);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

struct progress_log {
  int calls;
  uint64_t done, total;
  int stop_with; // returned from the first call
};

static int progress_record(void *ctx, uint64_t done, uint64_t total) {
  struct progress_log *p = ctx;
  p->calls++;
  p->done = done;
  p->total = total;
  return p->stop_with;
}

// An index that holds documents of messages the store no longer has (the
// store restored from an older backup, or removals never applied): the
// rebuild deletes them, in batches, before reindexing. Progress is
// reported, and a nonzero return from the callback stops the rebuild.
START_TEST(rebuild_deletes_documents_the_store_lost_and_reports_progress) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  for (int i = 0; i < 3; i++)
    deliver(st, acct, inbox, plain_msg);
  uint64_t d = deliver(st, acct, inbox, html_msg);
  uint64_t e = deliver(st, acct, inbox, attach_msg);
  srv_indexer *ix;
  struct srv_indexer_settings s = {.workers = 1, .batch = 2};
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, &s), 0);
  ck_assert_int_eq(srv_indexer_run(ix, NULL, NULL), 0);
  ck_assert_str_eq(search(idx, acct, "pelican"), "1 2 3");
  // Destroyed, their removals queued but not yet applied.
  uint32_t uids[3] = {1, 2, 3};
  ck_assert_int_eq(ms_messages_expunge(st, acct, inbox, uids, 3), 3);
  struct progress_log p = {0};
  struct srv_indexer_report rep = {0};
  ck_assert_int_eq(srv_indexer_rebuild(ix, &rep, acct, progress_record, &p), 0);
  ck_assert_uint_eq(rep.removed, 3);
  ck_assert_uint_eq(rep.indexed, 2);
  ck_assert_str_eq(search(idx, acct, "pelican"), "");
  ck_assert_str_eq(search(idx, acct, "hippopotamus"), num(d));
  ck_assert_str_eq(search(idx, acct, "attachment:walrus"), num(e));
  ck_assert_int_ge(p.calls, 1);
  ck_assert_uint_eq(p.done, 2);
  ck_assert_uint_eq(p.total, 2);

  struct progress_log stop = {.stop_with = 42};
  ck_assert_int_eq(srv_indexer_rebuild(ix, NULL, acct, progress_record, &stop), 42);
  ck_assert_int_eq(stop.calls, 1);
  // The queued removals are applied again, harmlessly.
  ck_assert_int_eq(srv_indexer_run(ix, NULL, NULL), 0);
  fts_index_stats fs;
  ck_assert_int_eq(fts_index_account_stats(idx, &fs, acct), 0);
  ck_assert_uint_eq(fs.num_docs, 2);
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

// A failure log that cannot be read (a directory in its place: fopen
// succeeds, the first read fails with EISDIR) is an error for status, not
// an empty log; rebuild, which rewrites the log without the account's
// lines, must not replace it with a copy cut at the failed read.
START_TEST(unreadable_failure_log_is_an_error_not_an_empty_log) {
  make_dirs();
  ms_store *st = open_store();
  fts_index *idx = open_index(index_path, 0);
  uint32_t acct, inbox;
  make_account(st, &acct, &inbox, "bob");
  ck_assert_int_eq(mkdir(failed_path, 0700), 0);
  srv_indexer *ix;
  ck_assert_int_eq(srv_indexer_new(&ix, st, idx, index_path, failed_path, NULL), 0);
  struct srv_indexer_status status;
  ck_assert_int_eq(srv_indexer_status_get(ix, &status, acct), -EISDIR);
  struct srv_indexer_report report = {0};
  ck_assert_int_eq(srv_indexer_rebuild(ix, &report, acct, NULL, NULL), -EISDIR);
  struct stat sb;
  ck_assert_int_eq(stat(failed_path, &sb), 0);
  ck_assert(S_ISDIR(sb.st_mode));
  srv_indexer_free(ix);
  fts_index_close(idx);
  ms_store_close(st);
  remove_dirs();
}
END_TEST

int main(void) {
  Suite *s = suite_create("servers-common-indexer");
  TCase *tc = tcase_create("indexer");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, delivery_to_query_and_expunge_to_removal);
  tcase_add_test(tc, poison_message_is_given_up_after_k_attempts);
  tcase_add_test(tc, sigkill_mid_batch_equals_fresh_rebuild);
  tcase_add_test(tc, failed_commit_is_retried_and_acknowledges_nothing);
  tcase_add_test(tc, rebuild_finds_messages_past_a_long_gap);
  tcase_add_test(tc, bad_arguments_and_settings_are_refused);
  tcase_add_test(tc, unusable_or_held_lock_file_refuses_run_and_rebuild);
  tcase_add_test(tc, message_id_beyond_32_bits_is_given_up);
  tcase_add_test(tc, without_failure_log_failures_are_counted_in_memory);
  tcase_add_test(tc, unwritable_failure_log_keeps_the_message_queued);
  tcase_add_test(tc, failure_log_that_cannot_be_rewritten_stops_rebuild);
  tcase_add_test(tc, damaged_message_body_is_given_up);
  tcase_add_test(tc, damaged_queue_entry_is_reported_not_skipped);
  tcase_add_test(tc, rebuild_into_a_full_index_is_retried_then_returned);
  tcase_add_test(tc, rebuild_deletes_documents_the_store_lost_and_reports_progress);
  tcase_add_test(tc, unreadable_failure_log_is_an_error_not_an_empty_log);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
