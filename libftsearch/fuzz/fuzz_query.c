// fuzz_query.c: the query parser on arbitrary bytes, and evaluation of what
// it accepts. Properties: an error's offset lies within the input; an
// accepted query's canonical description parses back to the same
// description; over a small real index, a query and its negation split the
// documents exactly (unless the query has no terms, when both are empty),
// and results are sorted document ids of the index.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corvid_fuzz.h"
#include "ftsearch.h"

enum { NUM_DOCS = 12 };

static const char *const texts[NUM_DOCS] = {
    "the quick brown fox jumps over the lazy dog",
    "invoice for march, please pay by friday",
    "Running late for the meeting: start without me",
    "réunion à Paris demain, l'équipe arrive",
    "東京都の天気は晴れです",
    "alice@example.com sent https://example.org/path?q=1",
    "don't stop believing in e-mail",
    "Zahlung erhalten, vielen Dank für die Rechnung",
    "apple banana cherry apple banana apple",
    "3.14 and 1,000 numbers 42",
    "Встреча перенесена на завтра",
    "",
};

static fts_index *index_once(void) {
  static fts_index *idx;
  if (idx)
    return idx;
  char dir[] = "/tmp/fts-fuzz-query-XXXXXX";
  FUZZ_CHECK(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/index", dir);
  fts_index_settings s = {.flags = FTS_INDEX_NO_SYNC, .max_prefix_terms = 50};
  FUZZ_CHECK(fts_index_open(&idx, path, &s) == 0);
  fts_batch *b;
  FUZZ_CHECK(fts_batch_new(idx, &b) == 0);
  for (uint32_t d = 0; d < NUM_DOCS; d++) {
    fts_doc_field f[2] = {
        {FTS_FIELD_BODY, NULL, (const uint8_t *)texts[d], strlen(texts[d])},
        {FTS_FIELD_SUBJECT, "en", (const uint8_t *)texts[(d + 1) % NUM_DOCS],
         strlen(texts[(d + 1) % NUM_DOCS])},
    };
    FUZZ_CHECK(fts_batch_add(b, 1, d * 20000u, f, 2) == 0); // several blocks
  }
  FUZZ_CHECK(fts_batch_commit(b) == 0);
  fts_batch_free(b);
  // The files are gone when the process ends; the open handle keeps them.
  unlink(path);
  char lock[80];
  snprintf(lock, sizeof lock, "%s-lock", path);
  unlink(lock);
  rmdir(dir);
  return idx;
}

static int search(fts_query *q, fts_result **r) {
  int rc = fts_search(index_once(), r, 1, q, NULL);
  FUZZ_CHECK(rc == 0 || rc == FTS_ERR_LIMIT);
  if (rc == 0)
    for (size_t i = 0; i < (*r)->num_docs; i++) {
      FUZZ_CHECK((*r)->docs[i] % 20000u == 0 && (*r)->docs[i] / 20000u < NUM_DOCS);
      FUZZ_CHECK(i == 0 || (*r)->docs[i] > (*r)->docs[i - 1]);
    }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fts_query_settings qs = {.max_terms = 16};
  fts_query *q;
  size_t off = SIZE_MAX;
  int rc = fts_query_parse(&q, &qs, (const char *)data, size, &off);
  if (rc != 0) {
    FUZZ_CHECK(q == NULL);
    FUZZ_CHECK(rc == FTS_ERR_QUERY_SYNTAX || rc == FTS_ERR_LIMIT);
    FUZZ_CHECK(off <= size);
    return 0;
  }
  size_t len;
  FUZZ_CHECK(fts_query_describe(q, NULL, 0, &len) == FTS_ERR_LIMIT);
  char *d1 = malloc(len + 1), *d2 = malloc(len + 1);
  FUZZ_CHECK(d1 && d2);
  FUZZ_CHECK(fts_query_describe(q, d1, len + 1, &len) == 0 && strlen(d1) == len);
  fts_query *q2;
  // The description may nest one level deeper (explicit parentheses).
  fts_query_settings loose = {.max_len = 1u << 20, .max_depth = 1000, .max_terms = 16};
  FUZZ_CHECK(fts_query_parse(&q2, &loose, d1, len, NULL) == 0);
  size_t len2;
  FUZZ_CHECK(fts_query_describe(q2, d2, len + 1, &len2) == 0);
  FUZZ_CHECK(len2 == len && memcmp(d1, d2, len) == 0);
  fts_query_free(q2);

  // A query and its negation partition the documents.
  size_t nlen = len + 8;
  char *neg = malloc(nlen + 1);
  FUZZ_CHECK(neg != NULL);
  snprintf(neg, nlen + 1, "NOT (%s)", d1);
  fts_query *nq;
  FUZZ_CHECK(fts_query_parse(&nq, &loose, neg, strlen(neg), NULL) == 0);
  fts_result *r = NULL, *nr = NULL;
  if (search(q, &r) == 0 && search(nq, &nr) == 0) {
    if (r->num_docs + nr->num_docs > 0) {
      FUZZ_CHECK(r->num_docs + nr->num_docs == NUM_DOCS);
      size_t i = 0, j = 0;
      while (i < r->num_docs && j < nr->num_docs) {
        FUZZ_CHECK(r->docs[i] != nr->docs[j]);
        if (r->docs[i] < nr->docs[j])
          i++;
        else
          j++;
      }
    }
  }
  fts_result_free(r);
  fts_result_free(nr);
  fts_query_free(nq);
  free(neg);
  free(d1);
  free(d2);
  fts_query_free(q);
  return 0;
}
