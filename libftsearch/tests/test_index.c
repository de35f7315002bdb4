// test_index.c: the index on a real LMDB file: documents added in batches
// are found by every query construct (words, stems, phrases, prefixes,
// AND/OR/NOT, fields, filters, ranking), deletions hide documents at once and
// merges purge them, reindexing replaces old text, batches are atomic, block
// edges (documents 65535/65536) hold, accounts stay apart, and the limits
// answer FTS_ERR_LIMIT.
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "fts-index"
#include "fts_test_util.h"
#include "ftsearch.h"
#include "index_internal.h"

static fts_index *small_index(void) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 1, "Invoice for March", "Please pay the attached invoice by Friday.");
  add(b, 1, 2, "Lunch tomorrow", "Shall we have lunch together? The invoices can wait.");
  add(b, 1, 3, "Running late", "I am running late for the meeting, start without me.");
  add(b, 1, 4, "Re: invoice", "The payment was sent yesterday, see the invoice number 4711.");
  add(b, 1, 70000, "Block two", "A document in the second block about lunch and payments.");
  add(b, 2, 1, "Other account", "This invoice belongs to another account entirely.");
  ck_assert_uint_eq(fts_batch_num_docs(b), 6);
  ck_assert_uint_gt(fts_batch_bytes(b), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_uint_eq(fts_batch_num_docs(b), 0);
  fts_batch_free(b);
  return idx;
}

START_TEST(words_stems_and_fields) {
  fts_index *idx = small_index();
  ck_assert_str_eq(search(idx, 1, "invoice"), "1 2 4");  // invoices: stem invoic
  ck_assert_str_eq(search(idx, 1, "INVOICES"), "1 2 4"); // case folded, stem
  ck_assert_str_eq(search(idx, 1, "run"), "3");          // running -> run
  ck_assert_str_eq(search(idx, 1, "lunch"), "2 70000");  // second block
  ck_assert_str_eq(search(idx, 2, "invoice"), "1");      // accounts apart
  ck_assert_str_eq(search(idx, 3, "invoice"), "");       // unknown account
  ck_assert_str_eq(search(idx, 1, "subject:invoice"), "1 4");
  ck_assert_str_eq(search(idx, 1, "body:march"), "");
  ck_assert_str_eq(search(idx, 1, "subject:march"), "1");
  ck_assert_str_eq(search(idx, 1, "nonexistentword"), "");
  fts_search_options o = {.field_mask = 1u << FTS_FIELD_SUBJECT};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "2");
  fts_index_close(idx);
}
END_TEST

START_TEST(boolean_operators) {
  fts_index *idx = small_index();
  ck_assert_str_eq(search(idx, 1, "invoice payment"), "4");
  ck_assert_str_eq(search(idx, 1, "invoice AND payment"), "4");
  ck_assert_str_eq(search(idx, 1, "lunch OR late"), "2 3 70000");
  ck_assert_str_eq(search(idx, 1, "invoice -lunch"), "1 4");
  ck_assert_str_eq(search(idx, 1, "invoice NOT lunch"), "1 4");
  ck_assert_str_eq(search(idx, 1, "NOT invoice"), "3 70000");
  ck_assert_str_eq(search(idx, 1, "(lunch OR late) AND meeting"), "3");
  ck_assert_str_eq(search(idx, 1, "lunch OR late meeting"), "2 3 70000");
  ck_assert_str_eq(search(idx, 1, "subject:(invoice OR lunch)"), "1 2 4");
  ck_assert_str_eq(search(idx, 1, "-(invoice OR lunch)"), "3");
  // Words that analyse to nothing are neutral.
  ck_assert_str_eq(search(idx, 1, "invoice ,,,"), "1 2 4");
  ck_assert_str_eq(search(idx, 1, ",,,"), "");
  fts_index_close(idx);
}
END_TEST

START_TEST(phrases_and_prefixes) {
  fts_index *idx = small_index();
  ck_assert_str_eq(search(idx, 1, "\"attached invoice\""), "1");
  ck_assert_str_eq(search(idx, 1, "\"invoice attached\""), "");
  ck_assert_str_eq(search(idx, 1, "\"running late\""), "3");
  ck_assert_str_eq(search(idx, 1, "\"run late\""), ""); // phrases are exact
  ck_assert_str_eq(search(idx, 1, "\"the invoice\""), "4");
  ck_assert_str_eq(search(idx, 1, "subject:\"running late\""), "3");
  ck_assert_str_eq(search(idx, 1, "body:\"running late\""), "3");
  ck_assert_str_eq(search(idx, 1, "\"late for the meeting\""), "3");
  ck_assert_str_eq(search(idx, 1, "\"Invoice\""), "1 4"); // one word: no stems
  ck_assert_str_eq(search(idx, 1, "invoic*"), "1 2 4");
  ck_assert_str_eq(search(idx, 1, "pay*"), "1 4 70000");
  ck_assert_str_eq(search(idx, 1, "subject:lun*"), "2");
  ck_assert_str_eq(search(idx, 1, "zzz*"), "");
  ck_assert_str_eq(search(idx, 1, "pay* -invoice"), "70000");
  fts_index_close(idx);
}
END_TEST

// Phrases over every container type: "dense" and "also" are bitmap
// containers (in 4 of 5 documents, gaps of 1 and 3), "mid" bit-packed,
// "rare" an array; the
// words stand in four arrangements, so that a document holding both words
// may or may not hold the phrase. Each phrase is checked against the rule
// the bodies were written by, without a filter, with an array filter and a
// prepared one, before and after deletions.
static bool ph_dense(uint32_t d) {
  return d % 10 != 3 && d % 10 != 4;
}
static bool ph_mid(uint32_t d) {
  return d % 3 == 0;
}
static bool ph_rare(uint32_t d) {
  return d % 97 == 5;
}
static void ph_body(char *out, size_t cap, uint32_t d) {
  unsigned a = (d / 3) % 4;
  static const char *const both[4] = {"x dense mid", "x mid dense", "x dense y mid",
                                      "x mid y dense mid"};
  // "also" (a bitmap too) is in every document with "dense", before it in 6 of 7.
  const char *also = !ph_dense(d) ? "" : d % 7 ? "also dense " : "also x ";
  if (ph_dense(d) && ph_mid(d))
    snprintf(out, cap, "%s%s%s", also, both[a], ph_rare(d) ? " rare" : "");
  else
    snprintf(out, cap, "%sx%s%s%s", also, ph_dense(d) ? " dense" : "", ph_mid(d) ? " mid" : "",
             ph_rare(d) ? " rare" : "");
}
static bool ph_expect(int phrase, uint32_t d) {
  unsigned a = (d / 3) % 4;
  bool both = ph_dense(d) && ph_mid(d);
  switch (phrase) {
  case 0: // "dense mid"
    return both && (a == 0 || a == 3);
  case 1: // "mid dense"
    return both && a == 1;
  case 2: // "mid rare"
    return ph_mid(d) && ph_rare(d) && (!ph_dense(d) || a != 1);
  case 3: // "dense mid rare"
    return both && ph_rare(d) && (a == 0 || a == 3);
  default: // "also dense": two bitmap containers
    return ph_dense(d) && d % 7 != 0;
  }
}

START_TEST(phrases_over_every_container) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  static uint32_t ids[3200];
  size_t num_ids = 0;
  for (uint32_t d = 1; d <= 3000; d++)
    ids[num_ids++] = d;
  for (uint32_t d = 65536; d < 65736; d++)
    ids[num_ids++] = d;
  struct fts_encode_stats before, after;
  fts_encode_stats_get(&before);
  for (size_t i = 0; i < num_ids; i++) {
    char body[96];
    ph_body(body, sizeof body, ids[i]);
    add(b, 1, ids[i], "s", body);
  }
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_encode_stats_get(&after);
  for (int t = FTS_CONTAINER_ARRAY; t <= FTS_CONTAINER_BITMAP; t++)
    ck_assert_uint_gt(after.containers[t], before.containers[t]);
  static uint32_t filter[3200];
  size_t num_filter = 0;
  for (size_t i = 0; i < num_ids; i++)
    if (ids[i] % 5 != 2)
      filter[num_filter++] = ids[i];
  fts_filter *pf;
  ck_assert_int_eq(fts_filter_new(&pf, filter, num_filter), 0);
  static const char *const phrases[5] = {"\"dense mid\"", "\"mid dense\"", "\"mid rare\"",
                                         "\"dense mid rare\"", "\"also dense\""};
  static uint32_t got[3200], want[3200];
  for (int phase = 0; phase < 2; phase++) {
    if (phase == 1) {
      for (size_t i = 0; i < num_ids; i++)
        if (ids[i] % 11 == 0)
          ck_assert_int_eq(fts_batch_delete(b, 1, ids[i]), 0);
      ck_assert_int_eq(fts_batch_commit(b), 0);
    }
    for (int ph = 0; ph < 5; ph++) {
      fts_query *q;
      ck_assert_int_eq(fts_query_parse(&q, NULL, phrases[ph], strlen(phrases[ph]), NULL), 0);
      for (int scope = 0; scope < 3; scope++) {
        size_t num_want = 0, n;
        for (size_t i = 0; i < num_ids; i++)
          if (ph_expect(ph, ids[i]) && !(phase == 1 && ids[i] % 11 == 0) &&
              (scope == 0 || ids[i] % 5 != 2))
            want[num_want++] = ids[i];
        fts_search_options o = {0};
        if (scope == 1) {
          o.filter = filter;
          o.num_filter = num_filter;
        } else if (scope == 2) {
          o.prepared = pf;
        }
        ck_assert_int_eq(fts_search_into(idx, got, 3200, &n, 1, q, &o), 0);
        ck_assert_msg(n == num_want, "%s phase %d scope %d: %zu hits, want %zu", phrases[ph], phase,
                      scope, n, num_want);
        ck_assert_uint_gt(num_want, 0);
        ck_assert_mem_eq(got, want, n * sizeof *got);
      }
      fts_query_free(q);
    }
  }
  fts_filter_free(pf);
  fts_batch_free(b);
  fts_index_close(idx);
}
END_TEST

START_TEST(filters_read_only_their_blocks) {
  fts_index *idx = small_index();
  uint32_t filter[] = {2, 3, 70000};
  fts_search_options o = {.filter = filter, .num_filter = 3};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &o), "2 70000");
  ck_assert_str_eq(search_opt(idx, 1, "invoice", &o), "2");
  ck_assert_str_eq(search_opt(idx, 1, "NOT invoice", &o), "3 70000");
  uint32_t only_second[] = {70000, 70001};
  o.filter = only_second;
  o.num_filter = 2;
  ck_assert_str_eq(search_opt(idx, 1, "lunch OR invoice", &o), "70000");
  // A prepared filter answers alike, alone or with an array filter.
  fts_filter *pf;
  ck_assert_int_eq(fts_filter_new(&pf, filter, 3), 0);
  fts_search_options po = {.prepared = pf};
  ck_assert_str_eq(search_opt(idx, 1, "lunch", &po), "2 70000");
  ck_assert_str_eq(search_opt(idx, 1, "NOT invoice", &po), "3 70000");
  po.filter = only_second;
  po.num_filter = 2;
  ck_assert_str_eq(search_opt(idx, 1, "lunch OR invoice", &po), "70000");
  uint32_t none_common[] = {1, 4};
  po.filter = none_common;
  ck_assert_str_eq(search_opt(idx, 1, "invoice OR lunch", &po), "");
  fts_filter_free(pf);
  ck_assert_int_eq(fts_filter_new(&pf, NULL, 0), 0);
  po = (fts_search_options){.prepared = pf};
  ck_assert_str_eq(search_opt(idx, 1, "invoice", &po), "");
  fts_filter_free(pf);
  fts_filter_free(NULL);
  uint32_t unsorted[] = {3, 2};
  ck_assert_int_eq(fts_filter_new(&pf, unsorted, 2), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(pf);
  ck_assert_int_eq(fts_filter_new(NULL, filter, 3), FTS_ERR_INVALID_ARGUMENT);
  o.filter = unsorted;
  fts_query *q;
  ck_assert_int_eq(fts_query_parse(&q, NULL, "lunch", 5, NULL), 0);
  fts_result *r;
  ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(r);
  fts_query_free(q);
  fts_index_close(idx);
}
END_TEST

START_TEST(ranking_orders_by_bm25) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 10, "x", "apple banana cherry date elderberry fig grape");
  add(b, 1, 11, "x", "apple apple apple");
  add(b, 1, 12, "x", "banana only here, and apple once in a longer text with many more words");
  add(b, 1, 13, "x", "nothing relevant");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  fts_search_options o = {.top_k = 2};
  ck_assert_str_eq(search_opt(idx, 1, "apple", &o), "11 10");
  o.top_k = 10;
  ck_assert_str_eq(search_opt(idx, 1, "apple", &o), "11 10 12");
  fts_query *q;
  ck_assert_int_eq(fts_query_parse(&q, NULL, "apple", 5, NULL), 0);
  fts_result *r;
  ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), 0);
  ck_assert_ptr_nonnull(r->scores);
  ck_assert_float_gt(r->scores[0], r->scores[1]);
  ck_assert_float_gt(r->scores[1], r->scores[2]);
  ck_assert_float_gt(r->scores[2], 0);
  fts_result_free(r);
  fts_query_free(q);
  fts_index_close(idx);
}
END_TEST

START_TEST(delete_merge_and_reindex) {
  fts_index *idx = small_index();
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 1), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 999), 0); // not indexed: nothing
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_str_eq(search(idx, 1, "invoice"), "2 4");
  ck_assert_str_eq(search(idx, 1, "NOT lunch"), "3 4");
  fts_index_stats st;
  ck_assert_int_eq(fts_index_account_stats(idx, &st, 1), 0);
  ck_assert_uint_eq(st.num_docs, 4);
  ck_assert_uint_eq(st.num_deleted, 1);
  ck_assert_uint_eq(st.num_blocks, 2);
  uint64_t before = st.posting_bytes;
  ck_assert_int_ge(fts_index_merge(idx, 1), 1);
  ck_assert_int_eq(fts_index_account_stats(idx, &st, 1), 0);
  ck_assert_uint_eq(st.num_deleted, 0);
  ck_assert_uint_lt(st.posting_bytes, before);
  ck_assert_int_eq(fts_index_merge(idx, 1), 0);
  ck_assert_str_eq(search(idx, 1, "invoice"), "2 4");
  ck_assert_str_eq(search(idx, 1, "march"), "");
  // Reindexing: the new text replaces the old one, with no trace of it.
  add(b, 1, 4, "Holiday plans", "We travel to the mountains in June.");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_str_eq(search(idx, 1, "invoice"), "2");
  ck_assert_str_eq(search(idx, 1, "mountains"), "4");
  ck_assert_str_eq(search(idx, 1, "4711"), "");
  // Re-adding a deleted, unmerged document purges the stale postings.
  ck_assert_int_eq(fts_batch_delete(b, 1, 3), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  add(b, 1, 3, "Again", "A fresh text about cheese.");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_str_eq(search(idx, 1, "meeting"), "");
  ck_assert_str_eq(search(idx, 1, "cheese"), "3");
  // Add then delete in one batch: nothing; delete then add: a replacement.
  add(b, 1, 50, "Ephemeral", "A text that never lands.");
  ck_assert_int_eq(fts_batch_delete(b, 1, 50), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 2), 0);
  add(b, 1, 2, "Replaced", "Completely different words now.");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_str_eq(search(idx, 1, "ephemeral"), "");
  ck_assert_str_eq(search(idx, 1, "lunch"), "70000");
  ck_assert_str_eq(search(idx, 1, "different"), "2");
  ck_assert_int_eq(fts_index_account_stats(idx, &st, 1), 0);
  ck_assert_uint_eq(st.num_docs, 4); // 2, 3, 4, 70000
  // Adding one document twice in a batch is refused.
  add(b, 1, 60, "One", "first");
  fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)"second", 6};
  ck_assert_int_eq(fts_batch_add(b, 1, 60, &f, 1), FTS_ERR_INVALID_ARGUMENT);
  fts_batch_free(b); // uncommitted: dropped
  ck_assert_str_eq(search(idx, 1, "first"), "");
  fts_index_close(idx);
}
END_TEST

START_TEST(block_edges_and_persistence) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  uint32_t docs[] = {0, 65535, 65536, 131071, 4000000000u, UINT32_MAX};
  for (size_t i = 0; i < 6; i++)
    add(b, 7, docs[i], "edge", i % 2 ? "odd text" : "even text");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  fts_index_close(idx);
  ck_assert_int_eq(fts_index_open(&idx, index_path, NULL), 0);
  ck_assert_str_eq(search(idx, 7, "edge"), "0 65535 65536 131071 4000000000 4294967295");
  ck_assert_str_eq(search(idx, 7, "odd"), "65535 131071 4294967295");
  ck_assert_str_eq(search(idx, 7, "\"even text\""), "0 65536 4000000000");
  fts_index_close(idx);
  fts_index_settings ro = {.flags = FTS_INDEX_READ_ONLY};
  ck_assert_int_eq(fts_index_open(&idx, index_path, &ro), 0);
  ck_assert_str_eq(search(idx, 7, "even"), "0 65536 4000000000");
  ck_assert_int_eq(fts_batch_new(idx, &b), FTS_ERR_INVALID_ARGUMENT);
  fts_index_close(idx);
}
END_TEST

START_TEST(limits_and_arguments) {
  fts_index_settings s = {.max_prefix_terms = 3, .max_batch_bytes = 200000};
  fts_index *idx = open_fresh(&s);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 1, "x", "alpha alps alpine altitude");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_query *q;
  ck_assert_int_eq(fts_query_parse(&q, NULL, "al*", 3, NULL), 0);
  fts_result *r;
  ck_assert_int_eq(fts_search(idx, &r, 1, q, NULL), FTS_ERR_LIMIT);
  fts_query_free(q);
  ck_assert_str_eq(search(idx, 1, "alp*"), "1");
  // A phrase of FTS_MAX_PHRASE_WORDS words is searched, one more is refused.
  char phrase[1024] = "\"";
  for (unsigned i = 0; i < FTS_MAX_PHRASE_WORDS; i++)
    strcat(phrase, "alpha ");
  strcat(phrase, "\"");
  ck_assert_str_eq(search(idx, 1, phrase), "");
  phrase[strlen(phrase) - 1] = 0;
  strcat(phrase, "alps\"");
  ck_assert_int_eq(fts_query_parse(&q, NULL, phrase, strlen(phrase), NULL), 0);
  ck_assert_int_eq(fts_search(idx, &r, 1, q, NULL), FTS_ERR_LIMIT);
  ck_assert_ptr_null(r);
  fts_query_free(q);
  ck_assert_str_eq(search(idx, 1, "\"alps alpine\""), "1");
  // A batch past max_batch_bytes refuses the document and keeps the rest.
  char *big = malloc(400000);
  for (size_t i = 0; i < 400000; i++)
    big[i] = (i % 7 == 6) ? ' ' : (char)('a' + (i * 131 / 7) % 26);
  fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)big, 400000};
  add(b, 1, 2, "y", "kept words");
  ck_assert_int_eq(fts_batch_add(b, 1, 3, &f, 1), FTS_ERR_LIMIT);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_str_eq(search(idx, 1, "kept"), "2");
  free(big);
  fts_doc_field bad = {FTS_MAX_FIELDS, NULL, (const uint8_t *)"x", 1};
  ck_assert_int_eq(fts_batch_add(b, 1, 9, &bad, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_add(NULL, 1, 9, &bad, 1), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_batch_commit(NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_index_open(NULL, index_path, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_search(idx, NULL, 1, NULL, NULL), FTS_ERR_INVALID_ARGUMENT);
  fts_batch_free(b);
  fts_batch_free(NULL);
  fts_index_close(idx);
  fts_index_close(NULL);
  ck_assert_str_eq(fts_field_name(FTS_FIELD_ATTACHMENT), "attachment");
  ck_assert_ptr_null(fts_field_name(16));
  ck_assert_int_eq(fts_field_lookup("Subject", 7), FTS_FIELD_SUBJECT);
  ck_assert_int_eq(fts_field_lookup("subjec", 6), -1);
  // Not an index file.
  char junk[160];
  snprintf(junk, sizeof junk, "%s.junk", index_path);
  FILE *fp = fopen(junk, "w");
  for (int i = 0; i < 5000; i++)
    fputs("not lmdb ", fp);
  fclose(fp);
  ck_assert_int_eq(fts_index_open(&idx, junk, NULL), FTS_ERR_CORRUPT);
}
END_TEST

START_TEST(substring_search) {
  fts_index *idx = open_fresh(NULL);
  struct texts t = {{NULL, "The quarterly Report is attached", "report-card for Émile",
                     "reporting late: quarterly", "nothing here", "ÉMILE wrote a REPORT"},
                    -1};
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t d = 1; d < 6; d++)
    add(b, 1, d, "", t.body[d]);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  static const struct {
    const char *needle, *want;
  } cases[] = {
      {"report", "1 2 3 5"}, {"Report is", "1"}, {"ort is att", ""},   {"quarterly", "1 3"},
      {"card for é", "2"},   {"émile", "2 5"},   {"late: quart", "3"}, {"", "1 2 3 4 5"},
      {"rly report", ""},    {"xyz", ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *got = substring(idx, cases[i].needle, &t);
    ck_assert_msg(strcmp(got, cases[i].want) == 0, "%s: got '%s' want '%s'", cases[i].needle, got,
                  cases[i].want);
  }
  fts_index_close(idx);
}
END_TEST

// docs_list pages through exactly the live documents of one account, across
// blocks, without those of neighbouring accounts or deleted ones.
START_TEST(docs_list_pages_live_documents) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  const uint32_t docs[] = {1, 2, 7, 65535, 65536, 200000, 4000000000u};
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    add(b, 5, docs[i], "list", "paging test");
  add(b, 4, 3, "other", "account below");
  add(b, 6, 1, "other", "account above");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 5, 7), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  const uint32_t want[] = {1, 2, 65535, 65536, 200000, 4000000000u};
  uint32_t got[8], page[2];
  size_t n = 0, len;
  uint32_t next = 0;
  do {
    ck_assert_int_eq(fts_index_docs_list(idx, page, 2, &len, 5, next), 0);
    for (size_t i = 0; i < len; i++) {
      ck_assert_uint_lt(n, 8);
      got[n++] = page[i];
      next = page[i] + 1;
    }
  } while (len == 2 && next != 0);
  ck_assert_uint_eq(n, 6);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(got[i], want[i]);
  ck_assert_int_eq(fts_index_docs_list(idx, page, 2, &len, 9, 0), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(fts_index_docs_list(idx, NULL, 2, &len, 5, 0), FTS_ERR_INVALID_ARGUMENT);
  fts_index_close(idx);
}
END_TEST

// Query language against document language: a one-word query is stemmed
// in each language its account's searched fields were stemmed in, so that
// an inflected German, French or Spanish word finds the base form in a
// document of that language, which the English stems (what a one-word query
// is detected as) never reach.
START_TEST(one_word_queries_use_the_documents_languages) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  static const char *texts[] = {
      "Gestern war ich mit meinem Hund im Haus, und das Buch lag auf dem Tisch unter dem "
      "Baum. Wir sind nicht zu Hause geblieben, weil das Wetter so schön war.",
      "Le cheval de mon père est dans le jardin avec le journal du matin. Nous avons mangé "
      "une pomme et nous sommes partis à la plage avec les enfants.",
      "Nosotros hablamos con los vecinos y escribimos una carta para la familia. El perro "
      "está en la casa y los niños juegan en el parque todos los días.",
      "The quick brown fox jumped over the lazy dog while we were walking along the river "
      "with our friends in the afternoon.",
  };
  for (uint32_t d = 0; d < 4; d++) {
    fts_doc_field f = {FTS_FIELD_BODY, NULL, (const uint8_t *)texts[d], strlen(texts[d])};
    ck_assert_int_eq(fts_batch_add(b, 1, d + 1, &f, 1), 0);
  }
  // Account 2: the German text, stemmed as English by the caller's choice.
  fts_doc_field en = {FTS_FIELD_BODY, "en", (const uint8_t *)texts[0], strlen(texts[0])};
  ck_assert_int_eq(fts_batch_add(b, 2, 1, &en, 1), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  static const struct {
    const char *query, *match;
  } cases[] = {
      {"Häusern", "1"},  {"Büchern", "1"},  {"Bäume", "1"},       {"chevaux", "2"},
      {"journaux", "2"}, {"hablaron", "3"}, {"escribieron", "3"}, {"jumping", "4"},
  };
  fts_search_options as_en = {.lang = "en"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_msg(strcmp(search(idx, 1, cases[i].query), cases[i].match) == 0, "%s: %s",
                  cases[i].query, result_text);
    // The same query stemmed as English only finds the English document.
    const char *want_en = strcmp(cases[i].match, "4") == 0 ? "4" : "";
    ck_assert_msg(strcmp(search_opt(idx, 1, cases[i].query, &as_en), want_en) == 0, "%s en: %s",
                  cases[i].query, result_text);
  }
  // Every one-word leaf of a larger query, under AND, OR, NOT and a field,
  // and ranked searches, are stemmed per language alike.
  ck_assert_str_eq(search(idx, 1, "Häusern Bäume"), "1");
  ck_assert_str_eq(search(idx, 1, "Häusern OR chevaux OR hablaron"), "1 2 3");
  ck_assert_str_eq(search(idx, 1, "body:Büchern"), "1");
  ck_assert_str_eq(search(idx, 1, "Hund -Häusern"), "");
  ck_assert_str_eq(search(idx, 1, "(Hund OR cheval) -journaux"), "1");
  fts_search_options ranked = {.top_k = 2};
  ck_assert_str_eq(search_opt(idx, 1, "Häusern OR jumping", &ranked), "1 4");
  // Stems reach only fields (and accounts) stemmed in that language.
  fts_search_options subject = {.field_mask = 1u << FTS_FIELD_SUBJECT};
  ck_assert_str_eq(search_opt(idx, 1, "Häusern", &subject), "");
  ck_assert_str_eq(search(idx, 2, "Häusern"), "");
  ck_assert_str_eq(search(idx, 2, "Haus"), "1");
  // Phrases and prefixes are as written, in every language.
  ck_assert_str_eq(search(idx, 1, "\"journaux\""), "");
  ck_assert_str_eq(search(idx, 1, "\"le cheval\""), "2");
  ck_assert_str_eq(search(idx, 1, "chev*"), "2");
  // The list survives reopening.
  fts_index_close(idx);
  ck_assert_int_eq(fts_index_open(&idx, index_path, NULL), 0);
  ck_assert_str_eq(search(idx, 1, "hablaron"), "3");
  fts_index_close(idx);
}
END_TEST

// A prefix ranks as the OR of its expansions: every word beginning with it
// adds its own BM25 weight, so more occurrences in a shorter text rank
// higher, and a prefix with one expansion scores as that word.
START_TEST(ranking_scores_prefix_expansions) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 20, "x", "banana");
  add(b, 1, 21, "x", "bandana bandana bandana bandana");
  add(b, 1, 22, "x", "band of many words here making this text very long indeed");
  add(b, 1, 23, "x", "nothing relevant");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  fts_search_options o = {.top_k = 10};
  ck_assert_str_eq(search_opt(idx, 1, "ban*", &o), "21 20 22");
  o.top_k = 1;
  ck_assert_str_eq(search_opt(idx, 1, "ban*", &o), "21");
  float score[2];
  const char *qs[2] = {"banan*", "banana"};
  for (int i = 0; i < 2; i++) {
    fts_query *q;
    ck_assert_int_eq(fts_query_parse(&q, NULL, qs[i], strlen(qs[i]), NULL), 0);
    fts_result *r;
    o.top_k = 10;
    ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), 0);
    ck_assert_uint_eq(r->num_docs, 1);
    ck_assert_uint_eq(r->docs[0], 20);
    ck_assert_ptr_nonnull(r->scores);
    ck_assert_float_gt(r->scores[0], 0);
    score[i] = r->scores[0];
    fts_result_free(r);
    fts_query_free(q);
  }
  ck_assert_float_eq_tol(score[0], score[1], 1e-6);
  // Ranked or not, a prefix matches the same documents.
  ck_assert_str_eq(search(idx, 1, "ban*"), "20 21 22");
  fts_index_close(idx);
}
END_TEST

// One-word searches whose documents are few per block take a sparse path
// (document ids, no block bitmaps); dense words and explained searches take
// the bitmap path. Both must agree with the documents' contents over a full
// block (its live set a run), holes (live set a bitmap or bit-packed), a
// second block, array and prepared filters.
static bool deleted_doc(uint32_t d, int phase) {
  if (phase == 0)
    return false;
  if (d < 65536)
    return d % 10 == 0 || (d >= 1000 && d < 1100);
  return d % 3 == 0;
}

static bool has_word(uint32_t d, int w) {
  uint32_t o = d % 65536;
  return w == 0 || (w == 1 && d % 7 == 0) || (w == 2 && o % 500 == 3);
}

static int explained;
static void count_explain(void *ctx, const char *line) {
  (void)ctx;
  (void)line;
  explained++;
}

START_TEST(sparse_and_bitmap_paths_agree) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  uint32_t ids[3100];
  size_t num_ids = 0;
  for (uint32_t d = 1; d <= 3000; d++)
    ids[num_ids++] = d;
  for (uint32_t d = 65536; d < 65636; d++)
    ids[num_ids++] = d;
  for (size_t i = 0; i < num_ids; i++) {
    char body[64];
    uint32_t d = ids[i];
    snprintf(body, sizeof body, "alpha%s%s filler", has_word(d, 1) ? " beta" : "",
             has_word(d, 2) ? " gamma" : "");
    add(b, 1, d, "x", body);
  }
  ck_assert_int_eq(fts_batch_commit(b), 0);
  uint32_t filter[3100];
  size_t num_filter = 0;
  for (size_t i = 0; i < num_ids; i++)
    if (ids[i] % 3 == 1)
      filter[num_filter++] = ids[i];
  fts_filter *pf;
  ck_assert_int_eq(fts_filter_new(&pf, filter, num_filter), 0);
  static const char *const words[3] = {"alpha", "beta", "gamma"};
  for (int phase = 0; phase < 2; phase++) {
    if (phase == 1) {
      for (size_t i = 0; i < num_ids; i++)
        if (deleted_doc(ids[i], 1))
          ck_assert_int_eq(fts_batch_delete(b, 1, ids[i]), 0);
      ck_assert_int_eq(fts_batch_commit(b), 0);
    }
    for (int w = 0; w < 3; w++) {
      fts_query *q;
      ck_assert_int_eq(fts_query_parse(&q, NULL, words[w], strlen(words[w]), NULL), 0);
      for (int scope = 0; scope < 3; scope++) {
        uint32_t want[3100];
        size_t num_want = 0;
        for (size_t i = 0; i < num_ids; i++)
          if (has_word(ids[i], w) && !deleted_doc(ids[i], phase) && (scope == 0 || ids[i] % 3 == 1))
            want[num_want++] = ids[i];
        ck_assert_uint_gt(num_want, 0);
        for (int explain = 0; explain < 2; explain++) {
          fts_search_options o = {0};
          if (scope == 1) {
            o.filter = filter;
            o.num_filter = num_filter;
          } else if (scope == 2) {
            o.prepared = pf;
          }
          if (explain)
            o.explain = count_explain;
          explained = 0;
          fts_result *r;
          ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), 0);
          ck_assert_int_eq(explained > 0, explain);
          ck_assert_msg(r->num_docs == num_want, "%s phase %d scope %d explain %d: %zu, want %zu",
                        words[w], phase, scope, explain, r->num_docs, num_want);
          ck_assert_mem_eq(r->docs, want, num_want * sizeof *want);
          fts_result_free(r);
          uint32_t into[3100];
          size_t n;
          ck_assert_int_eq(fts_search_into(idx, into, 3100, &n, 1, q, &o), 0);
          ck_assert_uint_eq(n, num_want);
          ck_assert_mem_eq(into, want, num_want * sizeof *want);
        }
      }
      fts_query_free(q);
    }
  }
  // An unsorted or repeating filter is refused wherever the fault lies.
  fts_query *q;
  ck_assert_int_eq(fts_query_parse(&q, NULL, "beta", 4, NULL), 0);
  for (size_t at = 1; at < 40; at += 3) {
    uint32_t bad[40];
    for (size_t i = 0; i < 40; i++)
      bad[i] = (uint32_t)(10 * i + 7);
    bad[at] = at % 2 ? bad[at - 1] : bad[at - 1] - 1;
    fts_search_options o = {.filter = bad, .num_filter = 40};
    fts_result *r;
    ck_assert_int_eq(fts_search(idx, &r, 1, q, &o), FTS_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(r);
  }
  fts_query_free(q);
  fts_filter_free(pf);
  fts_batch_free(b);
  fts_index_close(idx);
}
END_TEST

// Searches reuse reset read transactions (a small pool per index): each new
// search must still see every commit made before it began, also with
// several threads searching at once.
struct searcher {
  fts_index *idx;
  fts_query *q;
  int failures;
};

static void *search_loop(void *arg) {
  struct searcher *s = arg;
  for (int i = 0; i < 300; i++) {
    fts_result *r;
    if (fts_search(s->idx, &r, 1, s->q, NULL) != 0 || r->num_docs != 1 || r->docs[0] != 1)
      s->failures++;
    fts_result_free(r);
  }
  return NULL;
}

START_TEST(pooled_transactions_see_commits) {
  fts_index *idx = open_fresh(NULL);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  add(b, 1, 1, "x", "steady word");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  char q[32];
  for (uint32_t i = 2; i < 14; i++) {
    snprintf(q, sizeof q, "kiwi%u", i);
    ck_assert_str_eq(search(idx, 1, q), "");
    char body[32];
    snprintf(body, sizeof body, "kiwi%u", i);
    add(b, 1, i, "x", body);
    ck_assert_int_eq(fts_batch_commit(b), 0);
    char want[16];
    snprintf(want, sizeof want, "%u", i);
    ck_assert_str_eq(search(idx, 1, q), want);
  }
  struct searcher s[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    s[i] = (struct searcher){idx, NULL, 0};
    ck_assert_int_eq(fts_query_parse(&s[i].q, NULL, "steady", 6, NULL), 0);
    ck_assert_int_eq(pthread_create(&th[i], NULL, search_loop, &s[i]), 0);
  }
  for (uint32_t i = 100; i < 140; i++) { // commits while they search
    add(b, 1, i, "x", "other text");
    ck_assert_int_eq(fts_batch_commit(b), 0);
  }
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_int_eq(s[i].failures, 0);
    fts_query_free(s[i].q);
  }
  char all[256];
  size_t at = 0;
  for (uint32_t i = 100; i < 140; i++)
    at += (size_t)snprintf(all + at, sizeof all - at, "%s%u", i > 100 ? " " : "", i);
  ck_assert_str_eq(search(idx, 1, "other"), all);
  fts_batch_free(b);
  fts_index_close(idx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-index");
  TCase *tc = tcase_create("index");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, words_stems_and_fields);
  tcase_add_test(tc, boolean_operators);
  tcase_add_test(tc, phrases_and_prefixes);
  tcase_add_test(tc, phrases_over_every_container);
  tcase_add_test(tc, filters_read_only_their_blocks);
  tcase_add_test(tc, ranking_orders_by_bm25);
  tcase_add_test(tc, ranking_scores_prefix_expansions);
  tcase_add_test(tc, sparse_and_bitmap_paths_agree);
  tcase_add_test(tc, pooled_transactions_see_commits);
  tcase_add_test(tc, delete_merge_and_reindex);
  tcase_add_test(tc, block_edges_and_persistence);
  tcase_add_test(tc, limits_and_arguments);
  tcase_add_test(tc, substring_search);
  tcase_add_test(tc, docs_list_pages_live_documents);
  tcase_add_test(tc, one_word_queries_use_the_documents_languages);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
