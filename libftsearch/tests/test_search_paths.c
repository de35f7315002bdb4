// test_search_paths.c: the paths of search.c that the other programs leave
// out, each on a real index file: fts_search_into with ranking (the order
// and the FTS_ERR_LIMIT of fts_search's result), a query language the
// analyzer refuses, a language in the account's list that this build cannot
// stem, searches of an account without documents, filters whose blocks the
// postings skip (sparse path, prefixes, ranking, a prepared filter with an
// array), ranking over documents outside the result, explanations of
// operators, field lists and prefixes, and the strict substring search's
// fallbacks (invalid UTF-8, a needle word too short to narrow) and its
// text callback's error.
#include <check.h>
#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "fts-search-paths"
#include "fts_test_util.h"
#include "ftsearch.h"
#include "index_internal.h"

static void commit_and_free(fts_batch *b) {
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
}

// search_code returns fts_search's code for `q` (and checks that a failed
// search leaves *out NULL).
static int search_code(fts_index *idx, uint32_t acct, const char *q, const fts_search_options *o) {
  fts_query *query = parse(q);
  fts_result *r = (fts_result *)&r; // not NULL: the search must clear it
  int rc = fts_search(idx, &r, acct, query, o);
  if (rc != 0)
    ck_assert_ptr_null(r);
  fts_result_free(r);
  fts_query_free(query);
  return rc;
}

// ---- fts_search_into with ranking ----

static fts_index *ranking_index(void) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 10, "x", "apple banana cherry date elderberry fig grape");
  add(b, 1, 11, "x", "apple apple apple");
  add(b, 1, 12, "x", "banana only here, and apple once in a longer text with many more words");
  add(b, 1, 13, "x", "nothing relevant");
  add(b, 1, 14, "x", "banana banana");
  commit_and_free(b);
  return idx;
}

// The ranked caller-buffer form gives fts_search's documents in its order
// (best first, not ascending), cut to top_k; a buffer too small answers
// FTS_ERR_LIMIT with the count it needs, an exact one succeeds.
START_TEST(search_into_ranked_agrees_with_search) {
  fts_index *idx = ranking_index();
  static const struct {
    const char *q;
    uint32_t top_k;
    const char *want;
  } cases[] = {
      {"apple", 10, "11 10 12"},
      {"apple", 2, "11 10"},
      {"banana", 10,
       "14 10 12"}, // apple adds as word and as its stem appl (SEARCH.md), banana is its
      // own stem: 12 (both words, long) passes 14 (banana twice, short).
      {"apple OR banana", 10, "11 10 12 14"},
      {"apple OR banana", 3, "11 10 12"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fts_search_options o = {.top_k = cases[i].top_k};
    fts_query *q = parse(cases[i].q);
    fts_result *r;
    ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), 0);
    char got[128];
    ck_assert_msg(strcmp(docs_text(got, sizeof got, r->docs, r->num_docs), cases[i].want) == 0,
                  "%s top %u: fts_search gave '%s', want '%s'", cases[i].q, cases[i].top_k, got,
                  cases[i].want);
    for (size_t k = 1; k < r->num_docs; k++)
      ck_assert_float_gt(r->scores[k - 1], r->scores[k]);

    uint32_t docs[8] = {0};
    size_t n = 99;
    ck_assert_int_eq(fts_search_into(idx, docs, 8, &n, 1, q, &o), 0);
    ck_assert_msg(strcmp(docs_text(got, sizeof got, docs, n), cases[i].want) == 0,
                  "%s top %u: fts_search_into gave '%s', want '%s'", cases[i].q, cases[i].top_k,
                  got, cases[i].want);

    n = 99;
    ck_assert_int_eq(fts_search_into(idx, docs, r->num_docs, &n, 1, q, &o), 0);
    ck_assert_uint_eq(n, r->num_docs);
    ck_assert_mem_eq(docs, r->docs, n * sizeof *docs);

    uint32_t small[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    n = 0;
    ck_assert_int_eq(fts_search_into(idx, small, r->num_docs - 1, &n, 1, q, &o), FTS_ERR_LIMIT);
    ck_assert_uint_eq(n, r->num_docs);
    n = 0;
    ck_assert_int_eq(fts_search_into(idx, NULL, 0, &n, 1, q, &o), FTS_ERR_LIMIT);
    ck_assert_uint_eq(n, r->num_docs);
    fts_result_free(r);
    fts_query_free(q);
  }
  // Nothing ranked: no room needed at all.
  fts_search_options o = {.top_k = 5};
  fts_query *q = parse("kiwi");
  size_t n = 99;
  ck_assert_int_eq(fts_search_into(idx, NULL, 0, &n, 1, q, &o), 0);
  ck_assert_uint_eq(n, 0);
  // fts_search's refusals reach the caller, with nothing counted.
  n = 99;
  ck_assert_int_eq(fts_search_into(NULL, NULL, 0, &n, 1, q, &o), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(n, 0);
  n = 99;
  ck_assert_int_eq(fts_search_into(idx, NULL, 0, &n, 1, NULL, &o), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(n, 0);
  fts_query_free(q);
  fts_index_close(idx);
}
END_TEST

// ---- languages ----

// A query language the analyzer does not know is refused by every entry
// point that analyses the query, with nothing returned.
START_TEST(unknown_query_language_is_unsupported) {
  fts_index *idx = ranking_index();
  fts_search_options o = {.lang = "zz"};
  ck_assert_int_eq(search_code(idx, 1, "apple", &o), FTS_ERR_UNSUPPORTED);
  ck_assert_int_eq(search_code(idx, 1, "\"apple banana\"", &o), FTS_ERR_UNSUPPORTED);
  ck_assert_int_eq(search_code(idx, 1, "app*", &o), FTS_ERR_UNSUPPORTED);
  o.top_k = 3;
  ck_assert_int_eq(search_code(idx, 1, "apple", &o), FTS_ERR_UNSUPPORTED);
  o.top_k = 0;
  fts_query *q = parse("apple");
  uint32_t docs[8];
  size_t n = 99;
  ck_assert_int_eq(fts_search_into(idx, docs, 8, &n, 1, q, &o), FTS_ERR_UNSUPPORTED);
  ck_assert_uint_eq(n, 0);
  fts_query_free(q);
  fts_result *r = (fts_result *)&r;
  ck_assert_int_eq(fts_search_substring(idx, &r, 1, (const uint8_t *)"apple", 5, &o, NULL, NULL),
                   FTS_ERR_INVALID_ARGUMENT); // no text callback
  ck_assert_ptr_null(r);
  // A known language still answers.
  o.lang = "en";
  ck_assert_str_eq(search_opt(idx, 1, "apple", &o), "10 11 12");
  fts_index_close(idx);
}
END_TEST

static int no_text(void *ctx, uint32_t doc, uint32_t field, const uint8_t **text, size_t *len) {
  (void)ctx;
  (void)doc;
  (void)field;
  (void)text;
  (void)len;
  return 1;
}

START_TEST(unknown_language_refuses_substring_search) {
  fts_index *idx = ranking_index();
  fts_search_options o = {.lang = "zz"};
  fts_result *r = (fts_result *)&r;
  ck_assert_int_eq(fts_search_substring(idx, &r, 1, (const uint8_t *)"apple", 5, &o, no_text, NULL),
                   FTS_ERR_UNSUPPORTED);
  ck_assert_ptr_null(r);
  fts_index_close(idx);
}
END_TEST

// An index written by a build with a stemmer this one lacks lists that
// language for its field (here "qq", put into the account's language list
// as such a build would). A one-word query stems in the languages it can and
// skips the other: the word itself, and its English stem, still match.
START_TEST(language_the_build_cannot_stem_is_skipped) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 1, "walking", "the dogs were running");
  add(b, 1, 2, "other", "a cat sat");
  commit_and_free(b);
  fts_index_close(idx);

  MDB_env *env = raw_index_env();
  MDB_txn *txn;
  MDB_dbi dbi;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
  ck_assert_int_eq(mdb_dbi_open(txn, "acct", 0, &dbi), 0);
  uint8_t key[5];
  fts_put_be32(key, 1);
  key[4] = FTS_LANG_KEY;
  MDB_val k = {sizeof key, key}, v;
  ck_assert_int_eq(mdb_get(txn, dbi, &k, &v), 0);
  // The list as this build wrote it: English for both fields.
  static const uint8_t written[] = {FTS_FIELD_SUBJECT, 'e', 'n', 0, FTS_FIELD_BODY, 'e', 'n', 0};
  ck_assert_uint_eq(v.mv_size, sizeof written);
  ck_assert_mem_eq(v.mv_data, written, sizeof written);
  static const uint8_t list[] = {FTS_FIELD_SUBJECT, 'e', 'n', 0, FTS_FIELD_SUBJECT, 'q', 'q', 0,
                                 FTS_FIELD_BODY,    'e', 'n', 0, FTS_FIELD_BODY,    'q', 'q', 0};
  MDB_val nv = {sizeof list, (void *)list};
  ck_assert_int_eq(mdb_put(txn, dbi, &k, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(txn), 0);
  mdb_env_close(env);

  ck_assert_int_eq(fts_index_open(&idx, index_path, NULL), 0);
  ck_assert_str_eq(search_opt(idx, 1, "running", NULL), "1");
  ck_assert_str_eq(search_opt(idx, 1, "run", NULL), "1"); // the English stem
  ck_assert_str_eq(search_opt(idx, 1, "dog", NULL), "1");
  ck_assert_str_eq(search_opt(idx, 1, "body:walk", NULL), "");
  ck_assert_str_eq(search_opt(idx, 1, "subject:walk", NULL), "1");
  ck_assert_str_eq(search_opt(idx, 1, "cat", NULL), "2");
  fts_index_close(idx);
}
END_TEST

// ---- an account without documents ----

// Every kind of query over an account that has no documents (the bitmap
// path, with no target block at all) answers nothing, without error.
START_TEST(account_without_documents_matches_nothing) {
  fts_index *idx = ranking_index();
  static const char *const queries[] = {"\"apple banana\"", "apple banana", "NOT apple", "app*",
                                        "apple OR -banana"};
  for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
    ck_assert_msg(strcmp(search_opt(idx, 7, queries[i], NULL), "") == 0, "%s gave '%s'", queries[i],
                  result_text);
  fts_search_options ranked = {.top_k = 5};
  ck_assert_str_eq(search_opt(idx, 7, "apple", &ranked), "");
  // The same queries still answer in the account that has documents.
  ck_assert_str_eq(search_opt(idx, 1, "NOT apple", NULL), "13 14");
  fts_index_close(idx);
}
END_TEST

// ---- filters over several blocks ----

// lunch is in documents 2 and 4464 (block 0), 70000 (block 1) and 140000
// (block 2); meeting in 2 and 140000. Nothing lives in block 3. Account 2
// holds 70001 (lunch) only. 4464 and
// 70000 share their offset in their blocks, so that a posting counted in
// the wrong block would show.
static fts_index *blocks_index(void) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 2, "lunch", "lunch before the meeting");
  add(b, 1, 4464, "x", "lunch alone");
  add(b, 1, 4, "x", "nothing to eat");
  add(b, 1, 70000, "x", "lunch in the second block");
  add(b, 1, 140000, "x", "lunch and meeting in the third block, lunch again");
  add(b, 2, 70001, "x", "lunch in another account");
  commit_and_free(b);
  return idx;
}

// The sparse path reads only the filter's blocks: a filter block without
// live documents is passed over, and a posting block between two filter
// blocks is skipped.
START_TEST(sparse_filter_skips_blocks) {
  fts_index *idx = blocks_index();
  ck_assert_str_eq(search_opt(idx, 1, "lunch", NULL), "2 4464 70000 140000");
  const uint32_t ends[] = {2, 140000};
  fts_search_options o = {.filter = ends, .num_filter = 2};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "2 140000");
  const uint32_t empty_block[] = {2, 200000, 200001};
  o = (fts_search_options){.filter = empty_block, .num_filter = 3};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "2");
  const uint32_t only_empty[] = {200000};
  o = (fts_search_options){.filter = only_empty, .num_filter = 1};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "");
  // Account 2 has nothing in block 0: the filter's next block still counts.
  const uint32_t empty_first[] = {2, 70001};
  o = (fts_search_options){.filter = empty_first, .num_filter = 2};
  ck_assert_str_eq(search_opt(idx, 2, "lunch", &o), "70001");
  fts_index_close(idx);
}
END_TEST

// A prefix expanded under a filter ignores its postings in other blocks.
START_TEST(prefix_filter_skips_blocks) {
  fts_index *idx = blocks_index();
  ck_assert_str_eq(search_opt(idx, 1, "lun*", NULL), "2 4464 70000 140000");
  const uint32_t first[] = {2};
  fts_search_options o = {.filter = first, .num_filter = 1};
  ck_assert_str_eq(search_opt(idx, 1, "lun*", &o), "2");
  const uint32_t second[] = {4, 70000};
  o = (fts_search_options){.filter = second, .num_filter = 2};
  ck_assert_str_eq(search_opt(idx, 1, "lun*", &o), "70000");
  const uint32_t last[] = {140000};
  o = (fts_search_options){.filter = last, .num_filter = 1};
  ck_assert_str_eq(search_opt(idx, 1, "lun*", &o), "140000");
  fts_index_close(idx);
}
END_TEST

// A prepared filter with an array filter whose first ids lie in blocks
// before the prepared filter's: the intersection, whatever the order of
// the blocks.
START_TEST(prepared_and_array_filter_intersect) {
  fts_index *idx = blocks_index();
  const uint32_t pdocs[] = {70000, 140000};
  fts_filter *pf;
  ck_assert_int_eq(fts_filter_new(&pf, pdocs, 2), 0);
  const uint32_t arr[] = {2, 4464, 140000};
  fts_search_options o = {.prepared = pf, .filter = arr, .num_filter = 3};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "140000");
  ck_assert_str_eq(search_opt(idx, 1, "lun*", &o), "140000");
  const uint32_t before[] = {2, 4464};
  o.filter = before;
  o.num_filter = 2;
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "");
  fts_filter_free(pf);
  fts_index_close(idx);
}
END_TEST

// Ranking reads a term's postings in every block for its document
// frequency, but scores only result documents: blocks outside the filter,
// documents outside the filter in a target block, and documents holding
// the term but not the rest of the query add nothing. Scores therefore
// equal those of the same documents ranked without the filter.
START_TEST(ranking_scores_only_result_documents) {
  fts_index *idx = blocks_index();
  fts_search_options o = {.top_k = 10};
  // 2 has lunch in its subject too, where it is rare.
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "2 4464 140000 70000");
  ck_assert_str_eq(search_opt(idx, 1, "lunch meeting", &o), "2 140000");

  fts_query *q = parse("lunch");
  fts_result *all, *one;
  ck_assert_int_eq(fts_search(idx, &all, 1, q, &o), 0);
  ck_assert_uint_eq(all->num_docs, 4);
  static const uint32_t singles[] = {4464, 140000};
  for (size_t i = 0; i < 2; i++) {
    o.filter = &singles[i];
    o.num_filter = 1;
    ck_assert_int_eq(fts_search(idx, &one, 1, q, &o), 0);
    ck_assert_uint_eq(one->num_docs, 1);
    ck_assert_uint_eq(one->docs[0], singles[i]);
    ck_assert_uint_eq(all->docs[i + 1], singles[i]);
    ck_assert_float_eq(one->scores[0], all->scores[i + 1]);
    fts_result_free(one);
  }
  fts_result_free(all);
  fts_query_free(q);

  // 4464 holds lunch but not meeting: it is no result and takes no score.
  o = (fts_search_options){.top_k = 10};
  q = parse("lunch meeting");
  ck_assert_int_eq(fts_search(idx, &all, 1, q, &o), 0);
  ck_assert_uint_eq(all->num_docs, 2);
  ck_assert_float_gt(all->scores[0], all->scores[1]);
  ck_assert_float_gt(all->scores[1], 0);
  // Each result's score is the sum of its words' (BM25 adds per term).
  const char *const words[] = {"lunch", "meeting"};
  float sum[2] = {0, 0};
  for (size_t w = 0; w < 2; w++) {
    fts_query *wq = parse(words[w]);
    ck_assert_int_eq(fts_search(idx, &one, 1, wq, &o), 0);
    for (size_t i = 0; i < 2; i++)
      for (size_t k = 0; k < one->num_docs; k++)
        if (one->docs[k] == all->docs[i])
          sum[i] += one->scores[k];
    fts_result_free(one);
    fts_query_free(wq);
  }
  ck_assert_float_eq_tol(all->scores[0], sum[0], 1e-5);
  ck_assert_float_eq_tol(all->scores[1], sum[1], 1e-5);
  fts_result_free(all);
  fts_query_free(q);
  fts_index_close(idx);
}
END_TEST

// ---- explanations ----

struct lines {
  char text[8][256];
  size_t n;
};

static void keep_line(void *ctx, const char *line) {
  struct lines *l = ctx;
  if (l->n < 8)
    snprintf(l->text[l->n], sizeof l->text[0], "%s", line);
  l->n++;
}

// An explained search describes each leaf (operators are no leaves): its
// fields by name when it searches only some, a prefix with the number of
// terms it expanded to, and the blocks it read.
START_TEST(explain_describes_fields_and_prefixes) {
  fts_index *idx = blocks_index();
  struct lines l = {0};
  fts_search_options o = {.explain = keep_line, .explain_ctx = &l};
  ck_assert_str_eq(search_opt(idx, 1, "(meet* OR nothing) AND subject:lunch", &o), "2");
  // search_opt searches twice (fts_search, fts_search_into): 4 lines each.
  ck_assert_uint_eq(l.n, 8);
  ck_assert_str_eq(l.text[0],
                   "prefix \"meet\" in all fields: word:meet* expanded to 1 terms, 2 documents");
  ck_assert_str_eq(l.text[1], "word \"nothing\" in all fields: word:nothing | stem:noth | "
                              "word:noth, 1 documents");
  ck_assert_str_eq(l.text[2], "word \"lunch\" in subject: word:lunch | stem:lunch, 1 documents");
  ck_assert_str_eq(l.text[3], "3 blocks read, 1 documents");
  ck_assert_str_eq(l.text[4], l.text[0]);

  l.n = 0;
  o.field_mask = 1u << FTS_FIELD_SUBJECT | 1u << FTS_FIELD_BODY;
  ck_assert_str_eq(search_opt(idx, 1, "lun*", &o), "2 4464 70000 140000");
  ck_assert_uint_eq(l.n, 4);
  // lunch in two fields: two expansions, one per field's dictionary.
  ck_assert_str_eq(l.text[0],
                   "prefix \"lun\" in subject,body: word:lun* expanded to 2 terms, 4 documents");
  ck_assert_str_eq(l.text[1], "3 blocks read, 4 documents");
  fts_index_close(idx);
}
END_TEST

// ---- strict substring search ----

// Invalid UTF-8 on either side is compared lower-cased byte by byte (ASCII
// letters only), so it matches itself in any ASCII case but never a valid
// text that normalises differently.
START_TEST(substring_invalid_utf8_folds_ascii) {
  fts_index *idx = open_fresh(NULL);
  struct texts t = {
      {NULL, "CAF\xff au lait", "caf\xff noir", "café crème", "CAFE\xff", "Caf\xfe latte"}, -1};
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t d = 1; d < 6; d++)
    add(b, 1, d, "", t.body[d]);
  commit_and_free(b);
  ck_assert_str_eq(substring(idx, "caf\xff", &t), "1 2");
  ck_assert_str_eq(substring(idx, "CaF\xff A", &t), "1");
  ck_assert_str_eq(substring(idx, "caf", &t), "1 2 3 4 5");
  ck_assert_str_eq(substring(idx, "café", &t), "3");
  ck_assert_str_eq(substring(idx, "\xfe lat", &t), "5");
  fts_index_close(idx);
}
END_TEST

// A needle word whose prefix expands beyond max_prefix_terms does not narrow
// the candidates (where fts_search refuses the prefix): every document is
// checked, and the other words still narrow.
START_TEST(substring_word_too_short_to_narrow) {
  fts_index_settings s = {.max_prefix_terms = 2};
  fts_index *idx = open_fresh(&s);
  struct texts t = {{NULL, "report due", "repair shop", "rest area", "nothing here", "re: due"},
                    -1};
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t d = 1; d < 6; d++)
    add(b, 1, d, "", t.body[d]);
  commit_and_free(b);
  fts_search_options o = {.field_mask = 1u << FTS_FIELD_BODY};
  ck_assert_int_eq(search_code(idx, 1, "re*", &o), FTS_ERR_LIMIT);
  // Unnarrowed, the check is a plain substring one: "here" holds it too.
  ck_assert_str_eq(substring(idx, "re", &t), "1 2 3 4 5");
  ck_assert_str_eq(substring(idx, "RE", &t), "1 2 3 4 5");
  ck_assert_str_eq(substring(idx, "re ", &t), "");
  ck_assert_str_eq(substring(idx, "re:", &t), "5");
  ck_assert_str_eq(substring(idx, "re due", &t), "");
  ck_assert_str_eq(substring(idx, "due", &t), "1 5");
  fts_index_close(idx);
}
END_TEST

// The text callback's error stops the search and is its answer.
START_TEST(substring_text_error_is_returned) {
  fts_index *idx = open_fresh(NULL);
  struct texts t = {{NULL, "alpha one", "alpha two", "alpha three"}, 2};
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t d = 1; d < 4; d++)
    add(b, 1, d, "", t.body[d]);
  commit_and_free(b);
  fts_search_options o = {.field_mask = 1u << FTS_FIELD_BODY};
  fts_result *r = (fts_result *)&r;
  ck_assert_int_eq(fts_search_substring(idx, &r, 1, (const uint8_t *)"alpha", 5, &o, text_of, &t),
                   -EIO);
  ck_assert_ptr_null(r);
  t.fail_doc = -1;
  ck_assert_str_eq(substring(idx, "alpha", &t), "1 2 3");
  ck_assert_str_eq(substring(idx, "alpha t", &t), "2 3");
  fts_index_close(idx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-search-paths");
  TCase *tc = tcase_create("search-paths");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, search_into_ranked_agrees_with_search);
  tcase_add_test(tc, unknown_query_language_is_unsupported);
  tcase_add_test(tc, unknown_language_refuses_substring_search);
  tcase_add_test(tc, language_the_build_cannot_stem_is_skipped);
  tcase_add_test(tc, account_without_documents_matches_nothing);
  tcase_add_test(tc, sparse_filter_skips_blocks);
  tcase_add_test(tc, prefix_filter_skips_blocks);
  tcase_add_test(tc, prepared_and_array_filter_intersect);
  tcase_add_test(tc, ranking_scores_only_result_documents);
  tcase_add_test(tc, explain_describes_fields_and_prefixes);
  tcase_add_test(tc, substring_invalid_utf8_folds_ascii);
  tcase_add_test(tc, substring_word_too_short_to_narrow);
  tcase_add_test(tc, substring_text_error_is_returned);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
