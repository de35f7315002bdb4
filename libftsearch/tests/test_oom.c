// test_oom.c: every allocation that libftsearch makes may fail, one at a
// time (corvid_test_alloc_fault.h). Each operation is run with its 1st, 2nd,
// ... allocation failing until a run reaches none. A failed call must answer
// -ENOMEM, leave the index, batch or analyzer as it was (the same searches
// give the same hits, the same statistics) and let the next call succeed;
// under ASan it must also leak nothing. Writes start each run from a copy of
// one seeded index file, so that every run meets the same state.
//
// The walks that read the index (commit, merge, the searches) also run
// with each LMDB read failing, once or from the nth on (corvid_test_faults.h):
// such a failure must answer FTS_ERR_CORRUPT, never a result cut short, and
// leave the index as it was. fts_index_account_stats and fts_index_docs_list
// are walked for reads only.
//
// Allocation-free calls are not walked for allocations:
// fts_index_account_stats, fts_index_docs_list and fts_index_file_size (LMDB
// allocates for them, and it is a shared library, so its allocations are not
// counted), fts_language_detect, fts_field_name/lookup and the _free
// functions. For the same reason Snowball stemmers (libstemmer), utf8proc and
// zstd never fail here: only libftsearch's own allocations do.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#include "corvid_test_faults.h"
#define CORVID_TEST_TMP_NAME "fts-oom"
#include "fts_test_util.h"
#include "ftsearch.h"

// The runs of one operation stop at the first that reaches no armed
// allocation; this bounds the walk should an operation never stop
// allocating. The longest walk here, the commit's, takes 160 runs.
#define MAX_STEPS 1000

// What a call that met the failure must return (corvid_test_faults.h).
static int fault_error(enum test_fault kind) {
  return kind == FAULT_ALLOC ? -ENOMEM : FTS_ERR_CORRUPT;
}

// A document id in the second posting block, so that writes and searches
// meet more than one block per term.
#define FAR_DOC (FTS_BLOCK_DOCS + 5u)

struct seed_doc {
  uint32_t account, doc;
  const char *subject, *body;
};

static const struct seed_doc seed_docs[] = {
    {1, 1, "quarterly report", "the quarterly report on running costs is attached"},
    {1, 2, "lunch plans", "running late for lunch, see you at noon"},
    {1, 3, "report draft", "draft of the annual report for review"},
    {1, FAR_DOC, "archive", "old quarterly numbers from the archive"},
    {2, 1, "holiday", "photos from the holiday in the mountains"},
    {2, 2, "report", "the report is late again"},
};

// The queries whose answers stand for an account's content: one of each
// kind the language has.
static const char *const probe_queries[] = {
    "report",  "quarterly report",          "report OR lunch", "report NOT draft",
    "-report", "\"quarterly report\"",      "quart*",          "subject:report",
    "running", "late AND (lunch OR again)", "holiday",         "zahlen",
    "numbers",
};

static void commit_ok(fts_batch *b) {
  int rc = fts_batch_commit(b);
  ck_assert_msg(rc == 0, "commit: %s", fts_strerror(rc));
}

static void seed(fts_index *idx) {
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (size_t i = 0; i < sizeof seed_docs / sizeof seed_docs[0]; i++)
    add(b, seed_docs[i].account, seed_docs[i].doc, seed_docs[i].subject, seed_docs[i].body);
  commit_ok(b);
  fts_batch_free(b);
}

// fingerprint renders what searches and statistics see of accounts 1 to 3,
// so that two states of an index compare as two strings.
static void fingerprint(fts_index *idx, char *out, size_t cap) {
  size_t at = 0;
  out[0] = 0;
  for (uint32_t acct = 1; acct <= 3; acct++) {
    // One fts_search per query: search() would run each three times, and
    // the walks render the index after every run.
    for (size_t i = 0; i < sizeof probe_queries / sizeof probe_queries[0]; i++) {
      fts_query *q = parse(probe_queries[i]);
      fts_result *r;
      int rc = fts_search(idx, &r, acct, q, NULL);
      ck_assert_msg(rc == 0, "%s: %s", probe_queries[i], fts_strerror(rc));
      char docs[256];
      at += (size_t)snprintf(out + at, cap - at, "%u %s: %s\n", acct, probe_queries[i],
                             docs_text(docs, sizeof docs, r->docs, r->num_docs));
      fts_result_free(r);
      fts_query_free(q);
    }
    fts_index_stats st;
    ck_assert_int_eq(fts_index_account_stats(idx, &st, acct), 0);
    at += (size_t)snprintf(out + at, cap - at,
                           "docs %llu deleted %llu blocks %llu postings %llu bytes %llu", //
                           (unsigned long long)st.num_docs, (unsigned long long)st.num_deleted,
                           (unsigned long long)st.num_blocks, (unsigned long long)st.num_postings,
                           (unsigned long long)st.posting_bytes);
    for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
      if (st.field_terms[f])
        at += (size_t)snprintf(out + at, cap - at, " f%u=%llu", f,
                               (unsigned long long)st.field_terms[f]);
    uint32_t docs[16];
    size_t n;
    ck_assert_int_eq(fts_index_docs_list(idx, docs, 16, &n, acct, 0), 0);
    char list[256];
    at += (size_t)snprintf(out + at, cap - at, " list %s\n", docs_text(list, sizeof list, docs, n));
    ck_assert_uint_lt(at, cap);
  }
}

#define PRINT_CAP 8192

// close_and_expect closes `idx` and asserts that it printed as `want`, the
// outcome of a walk's run `n` (the nth `fault` failing) once the operation
// succeeded.
static void close_and_expect(fts_index *idx, const char *want, const char *fault, unsigned long n) {
  static char got[PRINT_CAP];
  fingerprint(idx, got, sizeof got);
  fts_index_close(idx);
  require(strcmp(got, want) == 0, "after %s %lu failed:\n%s\nwant:\n%s", fault, n, got, want);
}

// expect_unchanged asserts that `idx` still prints as `before` after run
// `n` failed.
static void expect_unchanged(fts_index *idx, const char *before, const char *fault,
                             unsigned long n) {
  static char got[PRINT_CAP];
  fingerprint(idx, got, sizeof got);
  require(strcmp(got, before) == 0, "%s %lu failed, the index changed:\n%s", fault, n, got);
}

// golden_path is the seeded index file each write run copies; work_path
// the copy it runs on.
static char golden_path[128];
static char work_path[160];

static void copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY);
  ck_assert_int_ge(in, 0);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_ge(out, 0);
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    ck_assert_int_eq(write(out, buf, (size_t)n), n);
  ck_assert_int_eq(n, 0);
  close(in);
  ck_assert_int_eq(close(out), 0);
}

// make_golden seeds a new index file, applies `extra` to it if given and
// remembers its path; the handle is closed, so the file is complete.
static void make_golden(void (*extra)(fts_index *)) {
  fts_index *idx = open_fresh(NULL);
  seed(idx);
  if (extra)
    extra(idx);
  fts_index_close(idx);
  snprintf(golden_path, sizeof golden_path, "%s", index_path);
  snprintf(work_path, sizeof work_path, "%s/work", index_dir);
}

// open_work opens a fresh copy of the golden index.
static fts_index *open_work(void) {
  char lock[180];
  snprintf(lock, sizeof lock, "%s-lock", work_path);
  unlink(lock);
  copy_file(golden_path, work_path);
  fts_index *idx;
  int rc = fts_index_open(&idx, work_path, NULL);
  ck_assert_msg(rc == 0, "open copy: %s", fts_strerror(rc));
  return idx;
}

// ---- analysis ----

// term_log collects the terms of one analysis as "word@pos stem@pos ...".
struct term_log {
  char text[2048];
  size_t len;
};

static int log_term(void *ctx, const fts_term *t) {
  struct term_log *log = ctx;
  int n = snprintf(log->text + log->len, sizeof log->text - log->len, "%.*s%s@%u ", (int)t->len,
                   (const char *)t->bytes, t->kind == FTS_TERM_STEM ? "~" : "", t->position);
  if (n > 0 && (size_t)n < sizeof log->text - log->len)
    log->len += (size_t)n;
  return 0;
}

START_TEST(analyzer_new_each_allocation) {
  fts_analyzer_settings s = {.flags = FTS_ANALYZE_FOLD_ACCENTS};
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    fts_analyzer *a = (fts_analyzer *)&n; // a failed call must clear it
    alloc_fault_arm(n);
    int rc = fts_analyzer_new(&a, &s);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "analyzer_new: %s", fts_strerror(rc));
      struct term_log log = {.len = 0};
      const char *text = "Café running";
      ck_assert_int_eq(fts_analyze(a, "fr", (const uint8_t *)text, strlen(text), log_term, &log),
                       0);
      ck_assert_str_eq(log.text, "cafe@0 caf~@0 running@1 ");
      fts_analyzer_free(a);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, analyzer_new said %s", n, fts_strerror(rc));
    require(a == NULL, "allocation %lu failed, analyzer_new set a handle", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// Text that takes every path of the analyzer that allocates: a stemmer made
// on first use, the stem cache, non-ASCII chunks normalised into the
// scratch buffer, compounds, an address, CJK bigrams.
static const char analyze_text[] = "Don't e-mail alice@example.com about the RUNNING reports; "
                                   "Ærøskøbing's straße, 東京タワー, node.js 3.14";

START_TEST(analyze_each_allocation) {
  static const char *const langs[] = {"en", NULL, "de"};
  for (size_t li = 0; li < sizeof langs / sizeof langs[0]; li++) {
    const char *lang = langs[li];
    struct term_log want = {.len = 0};
    fts_analyzer *a;
    ck_assert_int_eq(fts_analyzer_new(&a, NULL), 0);
    ck_assert_int_eq(
        fts_analyze(a, lang, (const uint8_t *)analyze_text, strlen(analyze_text), log_term, &want),
        0);
    fts_analyzer_free(a);
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      // A new analyzer each run: the stemmer and the buffers it makes on
      // first use are what fails.
      ck_assert_int_eq(fts_analyzer_new(&a, NULL), 0);
      struct term_log got = {.len = 0};
      alloc_fault_arm(n);
      int rc =
          fts_analyze(a, lang, (const uint8_t *)analyze_text, strlen(analyze_text), log_term, &got);
      bool fired = alloc_fault_fired();
      alloc_fault_disarm();
      // The stem cache is optional: the analyzer goes on without it when
      // it cannot be had, and then the analysis is complete.
      require(rc == -ENOMEM || (rc == 0 && strcmp(got.text, want.text) == 0),
              "%s: allocation %lu failed (%d), analyze said %s with %s", lang ? lang : "detect", n,
              fired, fts_strerror(rc), got.text);
      require(rc == 0 || fired, "%s: run %lu failed without a failed allocation",
              lang ? lang : "detect", n);
      // The same analyzer must work on the next call.
      struct term_log again = {.len = 0};
      rc = fts_analyze(a, lang, (const uint8_t *)analyze_text, strlen(analyze_text), log_term,
                       &again);
      require(rc == 0, "%s: after allocation %lu failed, analyze said %s", lang ? lang : "detect",
              n, fts_strerror(rc));
      require(strcmp(again.text, want.text) == 0, "%s: after allocation %lu: %s, want %s",
              lang ? lang : "detect", n, again.text, want.text);
      fts_analyzer_free(a);
      if (!fired)
        break;
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
  }
}
END_TEST

// ---- index and batches ----

START_TEST(index_open_each_allocation) {
  make_golden(NULL);
  char want[PRINT_CAP], got[PRINT_CAP];
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
  fingerprint(idx, want, sizeof want);
  fts_index_close(idx);
  // An existing index, then a new file.
  char new_path[160];
  snprintf(new_path, sizeof new_path, "%s/new", index_dir);
  const char *paths[] = {golden_path, new_path};
  for (int p = 0; p < 2; p++) {
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      idx = (fts_index *)&n; // a failed call must clear it
      alloc_fault_arm(n);
      int rc = fts_index_open(&idx, paths[p], NULL);
      bool fired = alloc_fault_fired();
      alloc_fault_disarm();
      if (!fired) {
        require(rc == 0, "open %s: %s", paths[p], fts_strerror(rc));
        break;
      }
      require(rc == -ENOMEM, "allocation %lu failed, open said %s", n, fts_strerror(rc));
      require(idx == NULL, "allocation %lu failed, open set a handle", n);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
    if (p == 0) { // the file is as it was
      fingerprint(idx, got, sizeof got);
      ck_assert_str_eq(got, want);
    } else { // a new, empty index that takes writes
      fts_batch *b;
      ck_assert_int_eq(fts_batch_new(idx, &b), 0);
      add(b, 1, 7, "fresh", "a fresh index");
      commit_ok(b);
      fts_batch_free(b);
      ck_assert_str_eq(search(idx, 1, "fresh"), "7");
    }
    fts_index_close(idx);
  }
}
END_TEST

START_TEST(batch_new_each_allocation) {
  fts_index *idx = open_fresh(NULL);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    fts_batch *b = (fts_batch *)&n; // a failed call must clear it
    alloc_fault_arm(n);
    int rc = fts_batch_new(idx, &b);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "batch_new: %s", fts_strerror(rc));
      add(b, 1, 1, "works", "the batch works");
      commit_ok(b);
      fts_batch_free(b);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, batch_new said %s", n, fts_strerror(rc));
    require(b == NULL, "allocation %lu failed, batch_new set a handle", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  ck_assert_str_eq(search(idx, 1, "works"), "1");
  fts_index_close(idx);
}
END_TEST

// The document the add walk puts in, with three fields, one of them in a
// language to be detected and one in German; add_other's document goes into
// the same batch.
static const fts_doc_field new_doc_fields[] = {
    {FTS_FIELD_FROM, NULL, (const uint8_t *)"Alice Example <alice@example.com>", 33},
    {FTS_FIELD_SUBJECT, "en", (const uint8_t *)"the quarterly report, again", 27},
    {FTS_FIELD_BODY, "de", (const uint8_t *)"die Zahlen des Berichts sind fertig", 35},
};
#define NEW_DOC 4u

static void add_other(fts_batch *b) {
  add(b, 2, 3, "report numbers", "numbers for the quarterly report");
}

static void add_new_doc(fts_batch *b) {
  int rc = fts_batch_add(b, 1, NEW_DOC, new_doc_fields, 3);
  ck_assert_msg(rc == 0, "add: %s", fts_strerror(rc));
}

// Seeding twice would be slow: the failure-free outcome of one walk is the
// golden copy with the walk's changes committed without arming.
static void expected_after(void (*changes)(fts_batch *), char *out, size_t cap) {
  fts_index *idx = open_work();
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  changes(b);
  commit_ok(b);
  fts_batch_free(b);
  fingerprint(idx, out, cap);
  fts_index_close(idx);
}

static void add_both(fts_batch *b) {
  add_other(b);
  add_new_doc(b);
}

START_TEST(batch_add_each_allocation) {
  make_golden(NULL);
  char before[PRINT_CAP], want[PRINT_CAP];
  fts_index *idx = open_work();
  fingerprint(idx, before, sizeof before);
  fts_index_close(idx);
  expected_after(add_both, want, sizeof want);
  ck_assert_str_ne(want, before);
  // The walked document alone in a new batch (whose analyzer makes its
  // stemmers), then after another document.
  for (int other_first = 0; other_first < 2; other_first++) {
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      idx = open_work();
      fts_batch *b;
      ck_assert_int_eq(fts_batch_new(idx, &b), 0);
      if (other_first)
        add_other(b);
      size_t docs_before = fts_batch_num_docs(b);
      alloc_fault_arm(n);
      int rc = fts_batch_add(b, 1, NEW_DOC, new_doc_fields, 3);
      bool fired = alloc_fault_fired();
      alloc_fault_disarm();
      // A failed stem cache only slows the analysis (analyze_each_allocation).
      require(rc == 0 || (fired && rc == -ENOMEM), "allocation %lu: add said %s", n,
              fts_strerror(rc));
      if (rc != 0) {
        require(fts_batch_num_docs(b) == docs_before, "allocation %lu: %zu documents in batch", n,
                fts_batch_num_docs(b));
        // The same batch takes the retry (a failed growth of its key arena
        // once refused every later add), and the failed add left none of
        // its records (op_insert's failure once kept them, and the retry
        // doubled their positions).
        rc = fts_batch_add(b, 1, NEW_DOC, new_doc_fields, 3);
        require(rc == 0, "after allocation %lu failed, add said %s", n, fts_strerror(rc));
      }
      if (!other_first)
        add_other(b);
      commit_ok(b);
      fts_batch_free(b);
      close_and_expect(idx, want, "allocation", n);
      if (!fired)
        break;
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
  }
}
END_TEST

static void delete_two(fts_batch *b) {
  ck_assert_int_eq(fts_batch_delete(b, 1, 2), 0);
}

START_TEST(batch_delete_each_allocation) {
  make_golden(NULL);
  char before[PRINT_CAP], want[PRINT_CAP], got[PRINT_CAP];
  expected_after(delete_two, want, sizeof want);
  fts_index *idx = open_work();
  fingerprint(idx, before, sizeof before);
  ck_assert_str_ne(want, before);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    fts_batch *b;
    ck_assert_int_eq(fts_batch_new(idx, &b), 0);
    alloc_fault_arm(n);
    int rc = fts_batch_delete(b, 1, 2);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "delete: %s", fts_strerror(rc));
      require(fts_batch_num_docs(b) == 1, "%zu documents in batch", fts_batch_num_docs(b));
      commit_ok(b);
      fts_batch_free(b);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, delete said %s", n, fts_strerror(rc));
    require(fts_batch_num_docs(b) == 0, "allocation %lu: %zu documents in batch", n,
            fts_batch_num_docs(b));
    rc = fts_batch_delete(b, 1, 2);
    require(rc == 0, "after allocation %lu failed, delete said %s", n, fts_strerror(rc));
    require(fts_batch_num_docs(b) == 1, "%zu documents in batch", fts_batch_num_docs(b));
    fts_batch_free(b); // uncommitted: the index keeps the document
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  fingerprint(idx, got, sizeof got);
  ck_assert_str_eq(got, want);
  fts_index_close(idx);
}
END_TEST

// The commit walk's batch: a new document, a replaced one (its old postings
// are purged first), one in the second block, a deletion in another
// account and a document of a third account in a new language.
static void commit_changes(fts_batch *b) {
  add_new_doc(b);
  add(b, 1, 1, "quarterly report v2", "the revised quarterly numbers");
  add(b, 1, FAR_DOC + 1, "archive too", "more numbers for the archive");
  ck_assert_int_eq(fts_batch_delete(b, 2, 2), 0);
  fts_doc_field f = {FTS_FIELD_BODY, "fr", (const uint8_t *)"les chiffres du rapport", 23};
  ck_assert_int_eq(fts_batch_add(b, 3, 1, &f, 1), 0);
}

START_TEST(batch_commit_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(NULL);
  char before[PRINT_CAP], want[PRINT_CAP];
  expected_after(commit_changes, want, sizeof want);
  fts_index *idx = open_work();
  fingerprint(idx, before, sizeof before);
  fts_index_close(idx);
  ck_assert_str_ne(want, before);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    idx = open_work();
    fts_batch *b;
    ck_assert_int_eq(fts_batch_new(idx, &b), 0);
    commit_changes(b);
    size_t docs_in_batch = fts_batch_num_docs(b);
    test_fault_arm(kind, n);
    int rc = fts_batch_commit(b);
    bool fired = test_fault_disarm(kind);
    require(rc == 0 || (fired && rc == fault_error(kind)), "%s %lu: commit said %s", fault, n,
            fts_strerror(rc));
    if (rc != 0) {
      expect_unchanged(idx, before, fault, n);
      require(fts_batch_num_docs(b) == docs_in_batch, "%s %lu: %zu documents in batch", fault, n,
              fts_batch_num_docs(b));
      rc = fts_batch_commit(b);
      require(rc == 0, "after %s %lu failed, commit said %s", fault, n, fts_strerror(rc));
    }
    require(fts_batch_num_docs(b) == 0, "%s %lu: the committed batch is not empty", fault, n);
    fts_batch_free(b);
    close_and_expect(idx, want, fault, n);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// Deleted documents in both blocks of account 1, whose postings await a
// merge.
static void delete_for_merge(fts_index *idx) {
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 2), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, FAR_DOC), 0);
  commit_ok(b);
  fts_batch_free(b);
}

START_TEST(index_merge_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(delete_for_merge);
  char before[PRINT_CAP], want[PRINT_CAP];
  fts_index *idx = open_work();
  fingerprint(idx, before, sizeof before);
  int rewritten = fts_index_merge(idx, 1);
  ck_assert_int_gt(rewritten, 1);
  fingerprint(idx, want, sizeof want);
  fts_index_close(idx);
  ck_assert_str_ne(want, before);
  ck_assert_ptr_nonnull(strstr(want, "1 running: 1\n"));
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    idx = open_work();
    test_fault_arm(kind, n);
    int rc = fts_index_merge(idx, 1);
    bool fired = test_fault_disarm(kind);
    require(rc == rewritten || (fired && rc == fault_error(kind)), "%s %lu: merge said %s", fault,
            n, fts_strerror(rc));
    if (rc < 0) {
      expect_unchanged(idx, before, fault, n);
      rc = fts_index_merge(idx, 1);
      require(rc == rewritten, "after %s %lu failed, merge said %d", fault, n, rc);
    }
    close_and_expect(idx, want, fault, n);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// ---- queries and searches ----

static const char *const parse_queries[] = {
    "report",
    "quarterly report OR (lunch NOT noon)",
    "\"quarterly report\" subject:quart* -draft",
    "body:(running late) OR from:\"alice example\"",
};

START_TEST(query_parse_each_allocation) {
  for (size_t qi = 0; qi < sizeof parse_queries / sizeof parse_queries[0]; qi++) {
    const char *text = parse_queries[qi];
    char want[512], got[512];
    size_t len;
    fts_query *q = parse(text);
    ck_assert_int_eq(fts_query_describe(q, want, sizeof want, &len), 0);
    fts_query_free(q);
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      q = (fts_query *)&n; // a failed call must clear it
      alloc_fault_arm(n);
      int rc = fts_query_parse(&q, NULL, text, strlen(text), NULL);
      bool fired = alloc_fault_fired();
      alloc_fault_disarm();
      if (!fired) {
        require(rc == 0, "%s: parse said %s", text, fts_strerror(rc));
        break;
      }
      require(rc == -ENOMEM, "%s: allocation %lu failed, parse said %s", text, n, fts_strerror(rc));
      require(q == NULL, "%s: allocation %lu failed, parse set a query", text, n);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
    ck_assert_int_eq(fts_query_describe(q, got, sizeof got, &len), 0);
    ck_assert_str_eq(got, want);
    // Describing builds the text in a buffer of its own.
    unsigned long m;
    for (m = 1; m < MAX_STEPS; m++) {
      alloc_fault_arm(m);
      int rc = fts_query_describe(q, got, sizeof got, &len);
      bool fired = alloc_fault_fired();
      alloc_fault_disarm();
      if (!fired) {
        require(rc == 0 && strcmp(got, want) == 0, "%s: describe said %s: %s", text,
                fts_strerror(rc), got);
        break;
      }
      require(rc == -ENOMEM, "%s: allocation %lu failed, describe said %s", text, m,
              fts_strerror(rc));
    }
    ck_assert_uint_gt(m, 1);
    ck_assert_uint_lt(m, MAX_STEPS);
    fts_query_free(q);
  }
}
END_TEST

// One search of the walk: a query of account `account` with options of a
// kind.
enum opt_kind { PLAIN, BODY_ONLY, ENGLISH, FILTERED, PREPARED, RANKED, EXPLAINED };

struct search_case {
  uint32_t account;
  const char *query;
  enum opt_kind kind;
};

static const struct search_case search_cases[] = {
    {1, "report", PLAIN},
    {1, "running", PLAIN},
    {1, "quarterly report", PLAIN},
    {1, "report OR lunch", PLAIN},
    {1, "report NOT draft", PLAIN},
    {1, "-report", PLAIN},
    {1, "\"quarterly report\"", PLAIN},
    {1, "quart*", PLAIN},
    {1, "subject:(report OR archive)", PLAIN},
    {2, "report OR holiday", PLAIN},
    {1, "report", BODY_ONLY},
    {1, "running costs", ENGLISH},
    {1, "quarterly OR lunch", FILTERED},
    {1, "quarterly OR lunch", PREPARED},
    {1, "report", FILTERED}, // one word: the sparse path reads the filter's blocks
    {1, "report", PREPARED},
    {1, "report OR quart*", RANKED},
    {1, "\"quarterly report\" OR quart*", EXPLAINED},
};

static void count_line(void *ctx, const char *line) {
  (void)line;
  ++*(unsigned *)ctx;
}

static const uint32_t filter_docs[] = {1, 2, FAR_DOC};

// options_for fills `o` for `kind`; `prepared` is a filter of filter_docs.
static void options_for(fts_search_options *o, enum opt_kind kind, const fts_filter *prepared,
                        unsigned *lines) {
  memset(o, 0, sizeof *o);
  switch (kind) {
  case PLAIN:
    break;
  case BODY_ONLY:
    o->field_mask = 1u << FTS_FIELD_BODY;
    break;
  case ENGLISH:
    o->lang = "en";
    break;
  case FILTERED:
    o->filter = filter_docs;
    o->num_filter = 3;
    break;
  case PREPARED:
    o->prepared = prepared;
    break;
  case RANKED:
    o->top_k = 3;
    break;
  case EXPLAINED:
    o->explain = count_line;
    o->explain_ctx = lines;
    break;
  }
}

// result_line renders a result with its scores, if any.
static void result_line(const fts_result *r, char *out, size_t cap) {
  size_t at = 0;
  out[0] = 0;
  for (size_t i = 0; i < r->num_docs && at < cap; i++) {
    if (r->scores)
      at += (size_t)snprintf(out + at, cap - at, "%u:%.4f ", r->docs[i], (double)r->scores[i]);
    else
      at += (size_t)snprintf(out + at, cap - at, "%u ", r->docs[i]);
  }
}

START_TEST(search_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(NULL);
  fts_filter *prepared;
  ck_assert_int_eq(fts_filter_new(&prepared, filter_docs, 3), 0);
  for (size_t ci = 0; ci < sizeof search_cases / sizeof search_cases[0]; ci++) {
    const struct search_case *c = &search_cases[ci];
    // A new handle per query, so that the query analyzer's stemmer is made
    // (and may fail) again.
    fts_index *idx;
    ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
    fts_search_options o;
    unsigned lines = 0;
    options_for(&o, c->kind, prepared, &lines);
    fts_query *q = parse(c->query);
    char want[512], got[512];
    fts_result *r;
    ck_assert_int_eq(fts_search(idx, &r, c->account, q, &o), 0);
    ck_assert_uint_gt(r->num_docs, 0);
    result_line(r, want, sizeof want);
    fts_result_free(r);
    fts_index_close(idx);
    ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      r = (fts_result *)&n; // a failed call must clear it
      test_fault_arm(kind, n);
      int rc = fts_search(idx, &r, c->account, q, &o);
      bool fired = test_fault_disarm(kind);
      if (!fired) {
        require(rc == 0, "%s: search said %s", c->query, fts_strerror(rc));
        result_line(r, got, sizeof got);
        fts_result_free(r);
        require(strcmp(got, want) == 0, "%s: %s, want %s", c->query, got, want);
        break;
      }
      require(rc == fault_error(kind), "%s (%d): %s %lu failed, search said %s", c->query, c->kind,
              fault, n, fts_strerror(rc));
      require(r == NULL, "%s: %s %lu failed, search set a result", c->query, fault, n);
      rc = fts_search(idx, &r, c->account, q, &o);
      require(rc == 0, "%s: after %s %lu failed, search said %s", c->query, fault, n,
              fts_strerror(rc));
      result_line(r, got, sizeof got);
      fts_result_free(r);
      require(strcmp(got, want) == 0, "%s: after %s %lu failed: %s, want %s", c->query, fault, n,
              got, want);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
    fts_query_free(q);
    fts_index_close(idx);
  }
  fts_filter_free(prepared);
}
END_TEST

START_TEST(search_into_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(NULL);
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
  static const char *const queries[] = {"\"quarterly report\" OR lunch", "quart* NOT draft"};
  for (size_t qi = 0; qi < 2; qi++) {
    char want[64];
    snprintf(want, sizeof want, "%s", search(idx, 1, queries[qi]));
    fts_query *q = parse(queries[qi]);
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      uint32_t docs[8];
      size_t len = 99;
      test_fault_arm(kind, n);
      int rc = fts_search_into(idx, docs, 8, &len, 1, q, NULL);
      bool fired = test_fault_disarm(kind);
      char got[64];
      if (!fired) {
        require(rc == 0, "%s: search_into said %s", queries[qi], fts_strerror(rc));
        docs_text(got, sizeof got, docs, len);
        require(strcmp(got, want) == 0, "%s: %s, want %s", queries[qi], got, want);
        break;
      }
      require(rc == fault_error(kind), "%s: %s %lu failed, search_into said %s", queries[qi], fault,
              n, fts_strerror(rc));
      require(strcmp(search(idx, 1, queries[qi]), want) == 0, "%s: after %s %lu failed: %s",
              queries[qi], fault, n, result_text);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
    fts_query_free(q);
  }
  fts_index_close(idx);
}
END_TEST

START_TEST(search_substring_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(NULL);
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
  struct texts t = {.fail_doc = -1};
  for (size_t i = 0; i < sizeof seed_docs / sizeof seed_docs[0]; i++)
    if (seed_docs[i].account == 1 && seed_docs[i].doc < 8)
      t.body[seed_docs[i].doc] = seed_docs[i].body;
  // Words that narrow the candidates; a needle inside words; one without
  // words, checked against every document.
  static const char *const needles[] = {"Quarterly Rep", "unning", "re", ", "};
  for (size_t ni = 0; ni < sizeof needles / sizeof needles[0]; ni++) {
    const char *needle = needles[ni];
    char want[64];
    snprintf(want, sizeof want, "%s", substring(idx, needle, &t));
    fts_search_options o = {.field_mask = 1u << FTS_FIELD_BODY};
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      fts_result *r = (fts_result *)&n; // a failed call must clear it
      test_fault_arm(kind, n);
      int rc = fts_search_substring(idx, &r, 1, (const uint8_t *)needle, strlen(needle), &o,
                                    text_of, &t);
      bool fired = test_fault_disarm(kind);
      if (!fired) {
        require(rc == 0, "%s: substring said %s", needle, fts_strerror(rc));
        char got[64];
        docs_text(got, sizeof got, r->docs, r->num_docs);
        fts_result_free(r);
        require(strcmp(got, want) == 0, "%s: %s, want %s", needle, got, want);
        break;
      }
      require(rc == fault_error(kind), "'%s': %s %lu failed, substring said %s", needle, fault, n,
              fts_strerror(rc));
      require(r == NULL, "%s: %s %lu failed, substring set a result", needle, fault, n);
      require(strcmp(substring(idx, needle, &t), want) == 0, "%s: after %s %lu failed: %s", needle,
              fault, n, result_text);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
  }
  fts_index_close(idx);
}
END_TEST

START_TEST(filter_new_each_allocation) {
  make_golden(NULL);
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
  unsigned long n;
  fts_filter *f = NULL;
  for (n = 1; n < MAX_STEPS; n++) {
    f = (fts_filter *)&n; // a failed call must clear it
    alloc_fault_arm(n);
    int rc = fts_filter_new(&f, filter_docs, 3);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "filter_new: %s", fts_strerror(rc));
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, filter_new said %s", n, fts_strerror(rc));
    require(f == NULL, "allocation %lu failed, filter_new set a filter", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  fts_search_options o = {.prepared = f};
  ck_assert_str_eq(search_opt(idx, 1, "quarterly OR lunch OR draft", &o), "1 2 65541");
  fts_filter_free(f);
  fts_index_close(idx);
}
END_TEST

// fts_index_account_stats and fts_index_docs_list allocate nothing of
// their own (the header comment), but walk the account's records: each
// read failing must give FTS_ERR_CORRUPT, never counts or a list cut short.
static void stats_line(fts_index *idx, char *out, size_t cap, int *rc) {
  fts_index_stats st;
  if ((*rc = fts_index_account_stats(idx, &st, 1)) != 0)
    return;
  snprintf(out, cap, "%llu %llu %llu %llu %llu %llu", (unsigned long long)st.num_docs,
           (unsigned long long)st.num_deleted, (unsigned long long)st.num_blocks,
           (unsigned long long)st.num_postings, (unsigned long long)st.posting_bytes,
           (unsigned long long)st.field_terms[FTS_FIELD_BODY]);
}

static void list_line(fts_index *idx, char *out, size_t cap, int *rc) {
  uint32_t docs[16];
  size_t n;
  if ((*rc = fts_index_docs_list(idx, docs, 16, &n, 1, 0)) == 0)
    docs_text(out, cap, docs, n);
}

START_TEST(stats_and_list_each_read) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  make_golden(delete_for_merge);
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, golden_path, NULL), 0);
  void (*const calls[])(fts_index *, char *, size_t, int *) = {stats_line, list_line};
  for (size_t ci = 0; ci < 2; ci++) {
    char want[256], got[256];
    int rc;
    calls[ci](idx, want, sizeof want, &rc);
    ck_assert_int_eq(rc, 0);
    unsigned long n;
    for (n = 1; n < MAX_STEPS; n++) {
      test_fault_arm(kind, n);
      calls[ci](idx, got, sizeof got, &rc);
      bool fired = test_fault_disarm(kind);
      if (!fired) {
        require(rc == 0 && strcmp(got, want) == 0, "call %zu: %s, want %s", ci, got, want);
        break;
      }
      require(rc == FTS_ERR_CORRUPT, "call %zu: %s %lu failed, the call said %s", ci, fault, n,
              fts_strerror(rc));
      calls[ci](idx, got, sizeof got, &rc);
      require(rc == 0 && strcmp(got, want) == 0, "call %zu: after %s %lu failed: %s", ci, fault, n,
              got);
    }
    ck_assert_uint_gt(n, 1);
    ck_assert_uint_lt(n, MAX_STEPS);
  }
  fts_index_close(idx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, analyzer_new_each_allocation);
  tcase_add_test(tc, analyze_each_allocation);
  tcase_add_test(tc, index_open_each_allocation);
  tcase_add_test(tc, batch_new_each_allocation);
  tcase_add_test(tc, batch_add_each_allocation);
  tcase_add_test(tc, batch_delete_each_allocation);
  tcase_add_loop_test(tc, batch_commit_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, index_merge_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_test(tc, query_parse_each_allocation);
  tcase_add_loop_test(tc, search_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, search_into_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, search_substring_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_test(tc, filter_new_each_allocation);
  tcase_add_loop_test(tc, stats_and_list_each_read, FAULT_READ, FAULT_KINDS);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
