// test_index_errors.c: the index's error paths as an embedder meets them.
// Every public index and batch function refuses NULL handles and bad fields
// with FTS_ERR_INVALID_ARGUMENT; paths that are not index files (a
// directory, junk, an LMDB file of another program, a dangling symlink) are
// refused without being changed; a read-only index refuses writes; a commit
// or merge that does not fit map_size, a batch past max_terms or
// max_batch_bytes and a search past max_readers answer FTS_ERR_LIMIT; and a
// refused, failed, empty or freed batch leaves the index exactly as it was,
// which each test checks by reopening the file and searching it.
#include <check.h>
#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "fts-index-errors"
#include "fts_test_util.h"
#include "ftsearch.h"

static fts_index *open_at(const char *at, const fts_index_settings *s) {
  fts_index *idx = NULL;
  int rc = fts_index_open(&idx, at, s);
  ck_assert_msg(rc == 0, "open %s: %s", at, fts_strerror(rc));
  return idx;
}

static void add_body(fts_batch *b, uint32_t acct, uint32_t doc, const char *text) {
  fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)text, strlen(text)};
  int rc = fts_batch_add(b, acct, doc, &f, 1);
  ck_assert_msg(rc == 0, "add %u/%u: %s", acct, doc, fts_strerror(rc));
}

static void commit_ok(fts_batch *b) {
  int rc = fts_batch_commit(b);
  ck_assert_msg(rc == 0, "commit: %s", fts_strerror(rc));
}

static fts_index_stats stats_of(fts_index *idx, uint32_t acct) {
  fts_index_stats st;
  ck_assert_int_eq(fts_index_account_stats(idx, &st, acct), 0);
  return st;
}

// read_file returns the whole content of `at` (malloc'd) and its size: a
// refused write must leave every byte of the file as it was.
static uint8_t *read_file(const char *at, size_t *len) {
  FILE *fp = fopen(at, "rb");
  ck_assert_ptr_nonnull(fp);
  ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
  long n = ftell(fp);
  ck_assert_int_ge(n, 0);
  rewind(fp);
  uint8_t *p = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(fread(p, 1, (size_t)n, fp), (size_t)n);
  fclose(fp);
  *len = (size_t)n;
  return p;
}

static void assert_file_is(const char *at, const uint8_t *want, size_t want_len) {
  size_t len;
  uint8_t *now = read_file(at, &len);
  ck_assert_uint_eq(len, want_len);
  ck_assert_msg(len == 0 || memcmp(now, want, len) == 0, "%s changed", at);
  free(now);
}

// assert_no_lock_file fails when a refused open left "<at>-lock" behind.
static void assert_no_lock_file(const char *at) {
  char lock[200];
  snprintf(lock, sizeof lock, "%s-lock", at);
  ck_assert_msg(access(lock, F_OK) != 0, "%s left behind", lock);
}

static void write_file(const char *at, const void *p, size_t n) {
  FILE *fp = fopen(at, "wb");
  ck_assert_ptr_nonnull(fp);
  ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
  fclose(fp);
}

// small_index writes docs 1 and 2 of account 1 and doc 1 of account 2 and
// closes the index at `index_path`.
static void small_index(void) {
  fresh_index_path();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 1, "alpha bravo charlie");
  add_body(b, 1, 2, "bravo delta");
  add_body(b, 2, 1, "alpha echo");
  commit_ok(b);
  fts_batch_free(b);
  fts_index_close(idx);
}

static void assert_small_index_intact(fts_index *idx) {
  ck_assert_str_eq(search(idx, 1, "alpha"), "1");
  ck_assert_str_eq(search(idx, 1, "bravo"), "1 2");
  ck_assert_str_eq(search(idx, 1, "\"alpha bravo charlie\""), "1");
  ck_assert_str_eq(search(idx, 2, "alpha echo"), "1");
  fts_index_stats st = stats_of(idx, 1);
  ck_assert_uint_eq(st.num_docs, 2);
  ck_assert_uint_eq(st.num_deleted, 0);
  ck_assert_uint_eq(st.field_terms[FTS_FIELD_BODY], 5);
}

// ---- arguments ----

START_TEST(null_handles_and_bad_fields_are_refused) {
  small_index();
  fts_index *idx = open_at(index_path, NULL);
  fts_index *not_opened = (fts_index *)&idx; // must be overwritten with NULL
  ck_assert_int_eq(fts_index_open(&not_opened, NULL, NULL), FTS_ERR_INVALID_ARGUMENT);
  // Analyzer settings are checked before any file is made.
  char other[160];
  snprintf(other, sizeof other, "%s/never", index_dir);
  fts_index_settings too_long = {.analyzer.max_term_bytes = FTS_ANALYZE_MAX_TERM_BYTES + 1};
  fts_index_settings bad_flags = {.analyzer.flags = 0x80000000u};
  ck_assert_int_eq(fts_index_open(&not_opened, other, &too_long), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(not_opened);
  ck_assert_int_eq(fts_index_open(&not_opened, other, &bad_flags), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(access(other, F_OK), -1);

  fts_batch *b = (fts_batch *)&idx;
  ck_assert_int_eq(fts_batch_new(NULL, &b), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(b);
  ck_assert_int_eq(fts_batch_new(idx, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 3, "foxtrot");
  const uint8_t *text = (const uint8_t *)"golf";
  fts_doc_field bad_field = {FTS_MAX_FIELDS, "en", text, 4};
  fts_doc_field null_text = {FTS_FIELD_BODY, "en", NULL, 4};
  fts_doc_field good_then_bad[2] = {{FTS_FIELD_BODY, "en", text, 4}, bad_field};
  ck_assert_int_eq(fts_batch_add(b, 1, 4, &bad_field, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_add(b, 1, 4, &null_text, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_add(b, 1, 4, good_then_bad, 2), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_add(b, 1, 4, NULL, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_add(NULL, 1, 4, good_then_bad, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_delete(NULL, 1, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_commit(NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(fts_batch_num_docs(NULL), 0);
  ck_assert_uint_eq(fts_batch_bytes(NULL), 0);
  ck_assert_uint_eq(fts_batch_num_docs(b), 1); // only foxtrot's document
  // No fields at all is a document without text, not an error.
  ck_assert_int_eq(fts_batch_add(b, 1, 5, NULL, 0), 0);

  ck_assert_int_eq(fts_index_merge(NULL, 1), FTS_ERR_INVALID_ARGUMENT);
  fts_index_stats st;
  ck_assert_int_eq(fts_index_account_stats(NULL, &st, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_index_account_stats(idx, NULL, 1), FTS_ERR_INVALID_ARGUMENT);
  uint32_t docs[4];
  size_t n = 99;
  ck_assert_int_eq(fts_index_docs_list(NULL, docs, 4, &n, 1, 0), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_index_docs_list(idx, docs, 4, NULL, 1, 0), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_index_docs_list(idx, NULL, 4, &n, 1, 0), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_index_docs_list(idx, NULL, 0, &n, 1, 0), 0);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(fts_index_file_size(NULL), FTS_ERR_INVALID_ARGUMENT);

  // The refused calls left nothing behind: the commit writes foxtrot's
  // document and the empty one, and golf is nowhere.
  commit_ok(b);
  fts_batch_free(b);
  fts_index_close(idx);
  idx = open_at(index_path, NULL);
  ck_assert_str_eq(search(idx, 1, "foxtrot"), "3");
  ck_assert_str_eq(search(idx, 1, "golf"), "");
  ck_assert_int_eq(fts_index_docs_list(idx, docs, 4, &n, 1, 0), 0);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(docs[3], 5);
  ck_assert_uint_eq(stats_of(idx, 1).field_terms[FTS_FIELD_BODY], 5 + 1);
  fts_index_close(idx);
}
END_TEST

START_TEST(document_added_twice_in_one_batch_is_refused) {
  small_index();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 7, "hotel india");
  fts_doc_field again = {FTS_FIELD_BODY, "en", (const uint8_t *)"juliett", 7};
  ck_assert_int_eq(fts_batch_add(b, 1, 7, &again, 1), FTS_ERR_INVALID_ARGUMENT);
  // Added, deleted, added again: refused too, and the deletion stands.
  add_body(b, 1, 8, "kilo");
  ck_assert_int_eq(fts_batch_delete(b, 1, 8), 0);
  ck_assert_int_eq(fts_batch_add(b, 1, 8, &again, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(fts_batch_num_docs(b), 2);
  commit_ok(b);
  fts_batch_free(b);
  ck_assert_str_eq(search(idx, 1, "hotel india"), "7");
  ck_assert_str_eq(search(idx, 1, "juliett"), "");
  ck_assert_str_eq(search(idx, 1, "kilo"), "");
  ck_assert_uint_eq(stats_of(idx, 1).num_docs, 3);
  fts_index_close(idx);
}
END_TEST

// A document refused half-way (its second field's language is unknown) is
// rolled back from terms that earlier documents of the batch share, whose
// records and positions stay whole.
START_TEST(refused_document_leaves_the_batch_whole) {
  fresh_index_path();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 1, "alpha bravo charlie");
  add_body(b, 1, 3, "bravo alpha");
  const char *body = "alpha bravo delta";
  fts_doc_field f[2] = {
      {FTS_FIELD_BODY, "en", (const uint8_t *)body, strlen(body)},
      {FTS_FIELD_SUBJECT, "xx", (const uint8_t *)"echo", 4},
  };
  ck_assert_int_eq(fts_batch_add(b, 1, 2, f, 2), FTS_ERR_UNSUPPORTED);
  ck_assert_uint_eq(fts_batch_num_docs(b), 2);
  // Refused, so not in the batch: it may be added again.
  add_body(b, 1, 2, "foxtrot");
  commit_ok(b);
  fts_batch_free(b);
  fts_index_close(idx);
  idx = open_at(index_path, NULL);
  ck_assert_str_eq(search(idx, 1, "alpha"), "1 3");
  ck_assert_str_eq(search(idx, 1, "\"alpha bravo\""), "1");
  ck_assert_str_eq(search(idx, 1, "\"bravo alpha\""), "3");
  ck_assert_str_eq(search(idx, 1, "delta"), "");
  ck_assert_str_eq(search(idx, 1, "echo"), "");
  ck_assert_str_eq(search(idx, 1, "foxtrot"), "2");
  fts_index_stats st = stats_of(idx, 1);
  ck_assert_uint_eq(st.num_docs, 3);
  ck_assert_uint_eq(st.field_terms[FTS_FIELD_BODY], 3 + 2 + 1);
  ck_assert_uint_eq(st.field_terms[FTS_FIELD_SUBJECT], 0);
  fts_index_close(idx);
}
END_TEST

// words_text writes `n` distinct words "wNNNNN" starting at `first`.
static char *words_text(unsigned first, unsigned n) {
  char *t = malloc((size_t)n * 8 + 1);
  ck_assert_ptr_nonnull(t);
  size_t at = 0;
  t[0] = 0;
  for (unsigned i = 0; i < n; i++)
    at += (size_t)sprintf(t + at, "w%05u ", first + i);
  return t;
}

START_TEST(batch_limits_refuse_only_the_offending_document) {
  // max_terms counts the terms of one field.
  fresh_index_path();
  fts_index_settings few_terms = {.analyzer = {.max_terms = 20, .flags = FTS_ANALYZE_NO_STEMS}};
  fts_index *idx = open_at(index_path, &few_terms);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  char *twenty = words_text(0, 20), *many = words_text(100, 21);
  add_body(b, 1, 1, twenty);
  fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)many, strlen(many)};
  ck_assert_int_eq(fts_batch_add(b, 1, 2, &f, 1), FTS_ERR_LIMIT);
  ck_assert_uint_eq(fts_batch_num_docs(b), 1);
  commit_ok(b);
  fts_batch_free(b);
  ck_assert_str_eq(search(idx, 1, "w00019"), "1");
  ck_assert_str_eq(search(idx, 1, "w00100"), "");
  ck_assert_str_eq(search(idx, 1, "w001*"), "");
  ck_assert_uint_eq(stats_of(idx, 1).num_docs, 1);
  fts_index_close(idx);
  free(twenty);
  free(many);

  // max_batch_bytes: the refused document's terms stay out; committing what
  // the batch holds makes room again.
  fresh_index_path();
  fts_index_settings few_bytes = {.max_batch_bytes = 400000};
  idx = open_at(index_path, &few_bytes);
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 1, "kept before");
  char *huge = words_text(0, 20000);
  fts_doc_field h = {FTS_FIELD_BODY, "en", (const uint8_t *)huge, strlen(huge)};
  ck_assert_int_eq(fts_batch_add(b, 1, 2, &h, 1), FTS_ERR_LIMIT);
  ck_assert_uint_eq(fts_batch_num_docs(b), 1);
  commit_ok(b);
  add_body(b, 1, 3, "kept after");
  commit_ok(b);
  fts_batch_free(b);
  fts_index_close(idx);
  free(huge);
  idx = open_at(index_path, NULL);
  ck_assert_str_eq(search(idx, 1, "kept"), "1 3");
  ck_assert_str_eq(search(idx, 1, "w00000"), "");
  ck_assert_str_eq(search(idx, 1, "w0*"), "");
  ck_assert_uint_eq(stats_of(idx, 1).num_docs, 2);
  fts_index_close(idx);
}
END_TEST

// A document larger than max_batch_bytes is refused; what its analysis
// took stays counted until the next commit, which must release it even
// though the batch holds no document, so that the batch recovers.
START_TEST(oversized_document_does_not_poison_the_batch) {
  fresh_index_path();
  fts_index_settings few_bytes = {.max_batch_bytes = 400000};
  fts_index *idx = open_at(index_path, &few_bytes);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  char *huge = words_text(0, 20000);
  fts_doc_field h = {FTS_FIELD_BODY, "en", (const uint8_t *)huge, strlen(huge)};
  ck_assert_int_eq(fts_batch_add(b, 1, 2, &h, 1), FTS_ERR_LIMIT);
  free(huge);
  ck_assert_uint_eq(fts_batch_num_docs(b), 0);
  commit_ok(b);
  add_body(b, 1, 3, "small");
  commit_ok(b);
  ck_assert_str_eq(search(idx, 1, "small"), "3");
  fts_batch_free(b);
  fts_index_close(idx);
}
END_TEST

// A search leaves its read transaction in the handle's pool, holding its
// reader slot; fts_index_account_stats and fts_index_docs_list must take
// that one rather than a slot of their own, or with max_readers = 1 they
// answer FTS_ERR_LIMIT after any search though nothing reads concurrently.
START_TEST(idle_pooled_reader_does_not_count_against_max_readers) {
  small_index();
  char lock[160];
  snprintf(lock, sizeof lock, "%s-lock", index_path);
  ck_assert_int_eq(unlink(lock), 0);
  fts_index_settings one_reader = {.max_readers = 1};
  fts_index *idx = open_at(index_path, &one_reader);
  ck_assert_str_eq(search(idx, 1, "alpha"), "1");
  fts_index_stats st;
  ck_assert_int_eq(fts_index_account_stats(idx, &st, 1), 0);
  uint32_t docs[4];
  size_t n;
  ck_assert_int_eq(fts_index_docs_list(idx, docs, 4, &n, 1, 0), 0);
  fts_index_close(idx);
}
END_TEST

// LMDB takes an empty file for a new environment and, read-only, fails to
// write its header with EBADF; the header documents FTS_ERR_CORRUPT for a
// file that is not an index.
START_TEST(empty_file_read_only_is_not_an_index) {
  fresh_index_path();
  write_file(index_path, "", 0);
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, index_path, &ro), FTS_ERR_CORRUPT);
}
END_TEST

// ---- files that are not an index ----

START_TEST(paths_that_are_not_an_index_are_refused_unchanged) {
  fresh_index_path();
  fts_index *idx = (fts_index *)&idx;
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  // A directory.
  ck_assert_int_eq(fts_index_open(&idx, index_dir, NULL), -EISDIR);
  ck_assert_ptr_null(idx);
  assert_no_lock_file(index_dir);
  // Junk shorter than a page, and longer.
  char junk[160];
  snprintf(junk, sizeof junk, "%s/junk", index_dir);
  const char *short_junk = "From: not an index\r\n\r\nhello\r\n";
  write_file(junk, short_junk, strlen(short_junk));
  ck_assert_int_eq(fts_index_open(&idx, junk, NULL), FTS_ERR_CORRUPT);
  ck_assert_int_eq(fts_index_open(&idx, junk, &ro), FTS_ERR_CORRUPT);
  assert_file_is(junk, (const uint8_t *)short_junk, strlen(short_junk));
  assert_no_lock_file(junk);
  size_t long_len = 3 * 65536;
  uint8_t *long_junk = malloc(long_len);
  for (size_t i = 0; i < long_len; i++)
    long_junk[i] = (uint8_t)(i * 2654435761u >> 13);
  write_file(junk, long_junk, long_len);
  ck_assert_int_eq(fts_index_open(&idx, junk, NULL), FTS_ERR_CORRUPT);
  ck_assert_ptr_null(idx);
  assert_file_is(junk, long_junk, long_len);
  assert_no_lock_file(junk);
  free(long_junk);
  // A missing file is not created read-only; a dangling symlink into a
  // missing directory cannot be created at all.
  ck_assert_int_eq(fts_index_open(&idx, index_path, &ro), -ENOENT);
  ck_assert_int_eq(access(index_path, F_OK), -1);
  assert_no_lock_file(index_path);
  char link[160];
  snprintf(link, sizeof link, "%s/link", index_dir);
  ck_assert_int_eq(symlink("no-such-dir/index", link), 0);
  ck_assert_int_eq(fts_index_open(&idx, link, &ro), -ENOENT);
  ck_assert_int_eq(fts_index_open(&idx, link, NULL), -ENOENT);
  ck_assert_ptr_null(idx);
  assert_no_lock_file(link);
  // An empty file is not an index when read-only; writable, it becomes one.
  char empty[160];
  snprintf(empty, sizeof empty, "%s/empty", index_dir);
  write_file(empty, "", 0);
  ck_assert_int_eq(fts_index_open(&idx, empty, &ro), FTS_ERR_CORRUPT);
  ck_assert_ptr_null(idx);
  assert_file_is(empty, NULL, 0);
  idx = open_at(empty, NULL);
  ck_assert_str_eq(search(idx, 1, "alpha"), "");
  fts_index_close(idx);
}
END_TEST

// An LMDB file of another program (here one named database, "post", and
// none of the others) is not taken for an index, and its missing databases
// are not created.
START_TEST(lmdb_file_without_the_index_databases_is_corrupt) {
  fresh_index_path();
  MDB_env *env = raw_index_env();
  MDB_txn *txn;
  MDB_dbi dbi;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
  ck_assert_int_eq(mdb_dbi_open(txn, "post", MDB_CREATE, &dbi), 0);
  ck_assert_int_eq(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  size_t before_len;
  uint8_t *before = read_file(index_path, &before_len);

  fts_index *idx = (fts_index *)&idx;
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  ck_assert_int_eq(fts_index_open(&idx, index_path, NULL), FTS_ERR_CORRUPT);
  ck_assert_ptr_null(idx);
  ck_assert_int_eq(fts_index_open(&idx, index_path, &ro), FTS_ERR_CORRUPT);
  assert_file_is(index_path, before, before_len);
  free(before);
}
END_TEST

// ---- read-only ----

START_TEST(read_only_index_refuses_writes) {
  small_index();
  size_t before_len;
  uint8_t *before = read_file(index_path, &before_len);
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  fts_index *idx = open_at(index_path, &ro);
  fts_batch *b = (fts_batch *)&idx;
  ck_assert_int_eq(fts_batch_new(idx, &b), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(b);
  ck_assert_int_eq(fts_index_merge(idx, 1), FTS_ERR_INVALID_ARGUMENT);
  // Reading works as ever.
  assert_small_index_intact(idx);
  ck_assert_int_gt(fts_index_file_size(idx), 0);
  fts_index_close(idx);
  assert_file_is(index_path, before, before_len);
  free(before);
}
END_TEST

// ---- map size ----

// reopen_full reopens `index_path` with a map no larger than the pages it uses
// (LMDB raises a smaller map_size to that), so that a commit needing more
// pages than its free list holds fails.
static fts_index *reopen_full(void) {
  fts_index *idx = open_at(index_path, NULL);
  int64_t used = fts_index_file_size(idx);
  ck_assert_int_gt(used, 0);
  fts_index_close(idx);
  fts_index_settings tight = {.map_size = (uint64_t)used};
  return open_at(index_path, &tight);
}

START_TEST(commit_past_map_size_leaves_index_as_before) {
  small_index();
  fts_index *idx = reopen_full();
  fts_index_stats before = stats_of(idx, 1);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  char *text = words_text(0, 5000);
  add_body(b, 1, 9, text);
  add_body(b, 1, 1, "replaced text"); // a reindex, purged first
  ck_assert_int_eq(fts_batch_delete(b, 1, 2), 0);
  ck_assert_int_eq(fts_batch_delete(b, 2, 1), 0);
  free(text);
  ck_assert_uint_eq(fts_batch_num_docs(b), 4);
  size_t bytes = fts_batch_bytes(b);
  ck_assert_int_eq(fts_batch_commit(b), FTS_ERR_LIMIT);
  // The batch is unchanged and the index too, in this handle and on disk.
  ck_assert_uint_eq(fts_batch_num_docs(b), 4);
  ck_assert_uint_eq(fts_batch_bytes(b), bytes);
  fts_index_stats after = stats_of(idx, 1);
  ck_assert_mem_eq(&after, &before, sizeof before);
  assert_small_index_intact(idx);
  ck_assert_str_eq(search(idx, 1, "w00000"), "");
  ck_assert_str_eq(search(idx, 1, "replaced"), "");
  fts_batch_free(b);
  fts_index_close(idx);
  idx = open_at(index_path, NULL);
  assert_small_index_intact(idx);
  ck_assert_str_eq(search(idx, 1, "w04999"), "");
  fts_index_close(idx);
}
END_TEST

START_TEST(merge_past_map_size_leaves_index_as_before) {
  // Many documents over a shared vocabulary, half of them deleted: the
  // merge rewrites every posting block, more pages than the free list has.
  fresh_index_path();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (unsigned d = 0; d < 400; d++) {
    char *text = words_text(d % 50, 300);
    add_body(b, 1, d, text);
    free(text);
  }
  commit_ok(b);
  for (unsigned d = 0; d < 400; d += 2)
    ck_assert_int_eq(fts_batch_delete(b, 1, d), 0);
  commit_ok(b);
  fts_batch_free(b);
  fts_index_stats before = stats_of(idx, 1);
  ck_assert_uint_eq(before.num_docs, 200);
  ck_assert_uint_eq(before.num_deleted, 200);
  fts_index_close(idx);

  idx = reopen_full();
  ck_assert_int_eq(fts_index_merge(idx, 1), FTS_ERR_LIMIT);
  fts_index_stats after = stats_of(idx, 1);
  ck_assert_mem_eq(&after, &before, sizeof before);
  ck_assert_str_eq(search(idx, 1, "w00001"), "1 51 101 151 201 251 301 351");
  fts_index_close(idx);
  // With room the same merge succeeds and purges the deletions.
  idx = open_at(index_path, NULL);
  ck_assert_int_gt(fts_index_merge(idx, 1), 0);
  after = stats_of(idx, 1);
  ck_assert_uint_eq(after.num_docs, 200);
  ck_assert_uint_eq(after.num_deleted, 0);
  // w00000 was only in deleted documents: its posting block is gone.
  ck_assert_uint_lt(after.num_postings, before.num_postings);
  fts_index_close(idx);
}
END_TEST

// ---- readers ----

struct nested {
  fts_index *idx;
  int stats_rc, list_rc, search_rc;
  unsigned calls;
};

// search_while_reading runs, inside a substring search's read transaction,
// the calls that each need a reader slot of their own.
static int search_while_reading(void *ctx, uint32_t doc, uint32_t field, const uint8_t **text,
                                size_t *text_len) {
  struct nested *n = ctx;
  (void)doc;
  if (field != FTS_FIELD_BODY)
    return 1;
  if (n->calls++ == 0) {
    fts_index_stats st;
    n->stats_rc = fts_index_account_stats(n->idx, &st, 1);
    uint32_t docs[4];
    size_t len;
    n->list_rc = fts_index_docs_list(n->idx, docs, 4, &len, 1, 0);
    fts_query *q;
    ck_assert_int_eq(fts_query_parse(&q, NULL, "bravo", 5, NULL), 0);
    fts_result *r = NULL;
    n->search_rc = fts_search(n->idx, &r, 1, q, NULL);
    fts_result_free(r);
    fts_query_free(q);
  }
  *text = (const uint8_t *)"bravo";
  *text_len = 5;
  return 0;
}

START_TEST(max_readers_limits_concurrent_reads) {
  small_index();
  fts_index_settings one_reader = {.max_readers = 1};
  // The lock file keeps the reader table of its first opener.
  char lock[160];
  snprintf(lock, sizeof lock, "%s-lock", index_path);
  ck_assert_int_eq(unlink(lock), 0);
  fts_index *idx = open_at(index_path, &one_reader);
  struct nested n = {.idx = idx};
  fts_result *r;
  ck_assert_int_eq(
      fts_search_substring(idx, &r, 1, (const uint8_t *)"bravo", 5, NULL, search_while_reading, &n),
      0);
  ck_assert_uint_eq(r->num_docs, 2);
  fts_result_free(r);
  ck_assert_uint_eq(n.calls, 2);
  ck_assert_int_eq(n.stats_rc, FTS_ERR_LIMIT);
  ck_assert_int_eq(n.list_rc, FTS_ERR_LIMIT);
  ck_assert_int_eq(n.search_rc, FTS_ERR_LIMIT);
  fts_index_close(idx);
  // With the default table the same nesting works.
  ck_assert_int_eq(unlink(lock), 0);
  idx = open_at(index_path, NULL);
  n = (struct nested){.idx = idx};
  ck_assert_int_eq(
      fts_search_substring(idx, &r, 1, (const uint8_t *)"bravo", 5, NULL, search_while_reading, &n),
      0);
  fts_result_free(r);
  ck_assert_int_eq(n.stats_rc, 0);
  ck_assert_int_eq(n.list_rc, 0);
  ck_assert_int_eq(n.search_rc, 0);
  assert_small_index_intact(idx);
  fts_index_close(idx);
}
END_TEST

// ---- batches that change nothing ----

START_TEST(deleting_documents_that_do_not_exist_changes_nothing) {
  small_index();
  fts_index *idx = open_at(index_path, NULL);
  fts_index_stats before1 = stats_of(idx, 1), before2 = stats_of(idx, 2);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 99), 0);    // same block
  ck_assert_int_eq(fts_batch_delete(b, 1, 70000), 0); // another block
  ck_assert_int_eq(fts_batch_delete(b, 2, 2), 0);     // doc 2 is account 1's
  ck_assert_int_eq(fts_batch_delete(b, 3, 1), 0);     // no such account
  ck_assert_int_eq(fts_batch_delete(b, UINT32_MAX, UINT32_MAX), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 99), 0); // twice
  ck_assert_uint_eq(fts_batch_num_docs(b), 5);
  commit_ok(b);
  fts_batch_free(b);
  fts_index_close(idx);
  idx = open_at(index_path, NULL);
  assert_small_index_intact(idx);
  fts_index_stats after1 = stats_of(idx, 1), after2 = stats_of(idx, 2), after3 = stats_of(idx, 3);
  ck_assert_mem_eq(&after1, &before1, sizeof before1);
  ck_assert_mem_eq(&after2, &before2, sizeof before2);
  ck_assert_uint_eq(after3.num_docs + after3.num_deleted + after3.num_blocks, 0);
  ck_assert_int_eq(fts_index_merge(idx, 1), 0);
  ck_assert_int_eq(fts_index_merge(idx, 3), 0);
  fts_index_close(idx);
}
END_TEST

START_TEST(empty_and_freed_batches_write_nothing) {
  small_index();
  size_t before_len;
  uint8_t *before = read_file(index_path, &before_len);
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  // An empty batch commits to nothing, also twice.
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_uint_eq(fts_batch_num_docs(b), 0);
  fts_batch_free(b);
  // A batch freed uncommitted, with additions, a reindex and deletions.
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add_body(b, 1, 5, "zulu");
  add_body(b, 1, 1, "yankee");
  ck_assert_int_eq(fts_batch_delete(b, 1, 2), 0);
  ck_assert_int_eq(fts_batch_delete(b, 2, 1), 0);
  fts_batch_free(b);
  assert_small_index_intact(idx);
  fts_index_close(idx);
  assert_file_is(index_path, before, before_len);
  idx = open_at(index_path, NULL);
  assert_small_index_intact(idx);
  ck_assert_str_eq(search(idx, 1, "zulu OR yankee"), "");
  fts_index_close(idx);
  free(before);
}
END_TEST

// ---- edges that must not be refused ----

START_TEST(largest_ids_and_unordered_documents_round_trip) {
  fresh_index_path();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  // Out of order within one block, and the last document of the last block.
  add_body(b, UINT32_MAX, 40, "lima mike");
  add_body(b, UINT32_MAX, 3, "lima");
  add_body(b, UINT32_MAX, UINT32_MAX, "lima november");
  add_body(b, UINT32_MAX, 0, "lima mike");
  commit_ok(b);
  ck_assert_str_eq(search(idx, UINT32_MAX, "lima"), "0 3 40 4294967295");
  ck_assert_str_eq(search(idx, UINT32_MAX, "mike"), "0 40");
  ck_assert_str_eq(search(idx, UINT32_MAX, "november"), "4294967295");
  ck_assert_str_eq(search(idx, 0, "lima"), "");
  uint32_t docs[8];
  size_t n;
  ck_assert_int_eq(fts_index_docs_list(idx, docs, 8, &n, UINT32_MAX, 4), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(docs[1], UINT32_MAX);
  ck_assert_int_eq(fts_batch_delete(b, UINT32_MAX, UINT32_MAX), 0);
  commit_ok(b);
  // The block of lima, november and its stem novemb.
  ck_assert_int_eq(fts_index_merge(idx, UINT32_MAX), 3);
  ck_assert_str_eq(search(idx, UINT32_MAX, "lima"), "0 3 40");
  fts_index_stats st = stats_of(idx, UINT32_MAX);
  ck_assert_uint_eq(st.num_docs, 3);
  ck_assert_uint_eq(st.num_deleted, 0);
  ck_assert_uint_eq(st.num_blocks, 1);
  fts_batch_free(b);
  fts_index_close(idx);
}
END_TEST

// Reindexing documents of more accounts than the commit's list of accounts
// to purge holds (64) must still purge every old text.
START_TEST(reindex_in_many_accounts_purges_every_old_text) {
  fresh_index_path();
  fts_index *idx = open_at(index_path, NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t a = 0; a < 70; a++)
    add_body(b, a, 1, "oscar papa");
  commit_ok(b);
  for (uint32_t a = 0; a < 70; a++)
    add_body(b, a, 1, "quebec");
  commit_ok(b);
  fts_batch_free(b);
  for (uint32_t a = 0; a < 70; a++) {
    ck_assert_msg(strcmp(search(idx, a, "oscar"), "") == 0, "account %u: %s", a, result_text);
    ck_assert_str_eq(search(idx, a, "quebec"), "1");
    fts_index_stats st = stats_of(idx, a);
    ck_assert_uint_eq(st.num_docs, 1);
    ck_assert_uint_eq(st.num_deleted, 0);
    ck_assert_uint_eq(st.field_terms[FTS_FIELD_BODY], 1);
  }
  fts_index_close(idx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-index-errors");
  TCase *tc = tcase_create("index-errors");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, null_handles_and_bad_fields_are_refused);
  tcase_add_test(tc, document_added_twice_in_one_batch_is_refused);
  tcase_add_test(tc, refused_document_leaves_the_batch_whole);
  tcase_add_test(tc, batch_limits_refuse_only_the_offending_document);
  tcase_add_test(tc, paths_that_are_not_an_index_are_refused_unchanged);
  tcase_add_test(tc, lmdb_file_without_the_index_databases_is_corrupt);
  tcase_add_test(tc, read_only_index_refuses_writes);
  tcase_add_test(tc, commit_past_map_size_leaves_index_as_before);
  tcase_add_test(tc, merge_past_map_size_leaves_index_as_before);
  tcase_add_test(tc, max_readers_limits_concurrent_reads);
  tcase_add_test(tc, deleting_documents_that_do_not_exist_changes_nothing);
  tcase_add_test(tc, empty_and_freed_batches_write_nothing);
  tcase_add_test(tc, largest_ids_and_unordered_documents_round_trip);
  tcase_add_test(tc, reindex_in_many_accounts_purges_every_old_text);
  tcase_add_test(tc, oversized_document_does_not_poison_the_batch);
  tcase_add_test(tc, idle_pooled_reader_does_not_count_against_max_readers);
  tcase_add_test(tc, empty_file_read_only_is_not_an_index);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
