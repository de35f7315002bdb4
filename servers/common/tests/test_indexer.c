// test_indexer.c: the indexing queue (servers/common indexer.c) with a real
// libmailstore store and a real libftsearch index on disk: delivery to
// query (plain, HTML, attachment, header fields), expunge to removal, a
// message expunged before it was indexed, the poison-message rule with its
// retries and failure log, the indexer lock, rebuild, and SIGKILLs of an
// indexer process mid-batch after which the index equals a fresh rebuild;
// a rebuild reaching messages past a long run of destroyed ids.
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
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

// search returns the matching documents as "1 2 3".
static const char *search(fts_index *idx, uint32_t acct, const char *q) {
  static char out[8192];
  fts_query *query;
  ck_assert_int_eq(fts_query_parse(&query, NULL, q, strlen(q), NULL), 0);
  fts_result *r;
  fts_search_options o = {.lang = "en"};
  ck_assert_int_eq(fts_search(idx, &r, acct, query, &o), 0);
  size_t n = 0;
  out[0] = 0;
  for (size_t i = 0; i < r->num_docs && n + 16 < sizeof out; i++)
    n += (size_t)snprintf(out + n, sizeof out - n, "%s%u", i ? " " : "", r->docs[i]);
  fts_result_free(r);
  fts_query_free(query);
  return out;
}

static const char *num(uint64_t v) {
  static char s[4][24];
  static int k;
  k = (k + 1) & 3;
  snprintf(s[k], sizeof s[k], "%llu", (unsigned long long)v);
  return s[k];
}

static const char plain_msg[] = "From: Alice Arbour <alice@example.org>\r\n"
                                "To: bob@example.net\r\n"
                                "Subject: quarterly zebra report\r\n"
                                "Organization: Umbrellacorp Holdings\r\n"
                                "\r\n"
                                "The pelican sings at dawn.\r\n";

static const char html_msg[] = "From: carol@example.org\r\n"
                               "To: bob@example.net\r\n"
                               "Subject: =?UTF-8?Q?caf=C3=A9_invitation?=\r\n"
                               "Content-Type: text/html; charset=utf-8\r\n"
                               "\r\n"
                               "<html><body><p>Hippopotamus <b>dance</b> &amp; "
                               "tango</p></body></html>\r\n";

static const char attach_msg[] = "From: dave@example.org\r\n"
                                 "To: bob@example.net\r\n"
                                 "Subject: notes\r\n"
                                 "MIME-Version: 1.0\r\n"
                                 "Content-Type: multipart/mixed; boundary=\"b1\"\r\n"
                                 "\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "\r\n"
                                 "see the attached file\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain; name=\"minutes.txt\"\r\n"
                                 "Content-Disposition: attachment; filename=\"minutes.txt\"\r\n"
                                 "Content-Transfer-Encoding: base64\r\n"
                                 "\r\n"
                                 "d2FscnVzIGFuZCBjYXJwZW50ZXI=\r\n" // "walrus and carpenter"
                                 "--b1--\r\n";

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

int main(void) {
  Suite *s = suite_create("servers-common-indexer");
  TCase *tc = tcase_create("indexer");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, delivery_to_query_and_expunge_to_removal);
  tcase_add_test(tc, poison_message_is_given_up_after_k_attempts);
  tcase_add_test(tc, sigkill_mid_batch_equals_fresh_rebuild);
  tcase_add_test(tc, failed_commit_is_retried_and_acknowledges_nothing);
  tcase_add_test(tc, rebuild_finds_messages_past_a_long_gap);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
