// fts_test_util.h: helpers shared by the index tests: a fresh index file in
// a directory of its own under the program's temporary root, direct LMDB
// access to that file, documents with a subject and a body, searches
// rendered as "1 2 3" for compact asserts (each checked against the
// caller-buffer form fts_search_into), and a text callback for the strict
// substring search. Define CORVID_TEST_TMP_NAME before including it: each
// program names its own temporary root.
#ifndef FTS_TEST_UTIL_H
#define FTS_TEST_UTIL_H

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdb.h>

#include "corvid_test_tmp.h"
#include "ftsearch.h"

// index_dir and index_path are the directory fresh_index_path made last and
// the index file in it, for tests that reopen the index, open it behind the
// library's back or put other files next to it.
static char index_dir[80];
static char index_path[128];

// fresh_index_path makes a directory of its own under corvid_test_root and
// points index_path at a file in it that does not exist yet.
static inline void fresh_index_path(void) {
  snprintf(index_dir, sizeof index_dir, "%s/t-XXXXXX", corvid_test_root);
  ck_assert_ptr_nonnull(mkdtemp(index_dir));
  snprintf(index_path, sizeof index_path, "%s/index", index_dir);
}

// open_fresh opens a new index with settings `s` at a fresh index_path.
static inline fts_index *open_fresh(const fts_index_settings *s) {
  fresh_index_path();
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, index_path, s), 0);
  return idx;
}

// raw_index_env opens the LMDB file at index_path directly, as another
// program (or another build of the library) would, creating it if needed.
static inline MDB_env *raw_index_env(void) {
  MDB_env *env;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  ck_assert_int_eq(mdb_env_set_maxdbs(env, 8), 0);
  ck_assert_int_eq(mdb_env_open(env, index_path, MDB_NOSUBDIR, 0644), 0);
  return env;
}

// add puts document `doc` of account `acct` into the batch, with an English
// subject and body.
static inline void add(fts_batch *b, uint32_t acct, uint32_t doc, const char *subject,
                       const char *body) {
  fts_doc_field f[2] = {
      {FTS_FIELD_SUBJECT, "en", (const uint8_t *)subject, strlen(subject)},
      {FTS_FIELD_BODY, "en", (const uint8_t *)body, strlen(body)},
  };
  ck_assert_int_eq(fts_batch_add(b, acct, doc, f, 2), 0);
}

// parse returns the parsed query `q` (the caller frees it), naming the
// failing offset when the parser refuses it.
static inline fts_query *parse(const char *q) {
  fts_query *query;
  size_t off;
  int rc = fts_query_parse(&query, NULL, q, strlen(q), &off);
  ck_assert_msg(rc == 0, "parse %s: %d at %zu", q, rc, off);
  return query;
}

// docs_text renders `n` ids as "1 2 3" into `out`, for compact asserts.
static inline const char *docs_text(char *out, size_t cap, const uint32_t *docs, size_t n) {
  size_t at = 0;
  out[0] = 0;
  for (size_t i = 0; i < n && at < cap; i++)
    at += (size_t)snprintf(out + at, cap - at, "%s%u", i ? " " : "", docs[i]);
  return out;
}

// result_text holds the answer of the last search_opt, search or substring
// call, for failure messages.
static char result_text[4096];

// search_opt returns the result of `q` as "1 2 3" (ranked: best first). An
// unranked search must give the same through fts_search_into, which must
// also answer FTS_ERR_LIMIT with the full count into a buffer one too small.
// That last check runs without the explain callback, so that an explained
// search_opt explains exactly two searches (fts_search, fts_search_into).
static inline const char *search_opt(fts_index *idx, uint32_t acct, const char *q,
                                     const fts_search_options *o) {
  fts_query *query = parse(q);
  fts_result *r;
  int rc = fts_search(idx, &r, acct, query, o);
  ck_assert_msg(rc == 0, "search %s: %s", q, fts_strerror(rc));
  docs_text(result_text, sizeof result_text, r->docs, r->num_docs);
  if (!o || !o->top_k) {
    uint32_t docs[512];
    size_t n;
    ck_assert_int_eq(fts_search_into(idx, docs, 512, &n, acct, query, o), 0);
    ck_assert_uint_eq(n, r->num_docs);
    if (n)
      ck_assert_mem_eq(docs, r->docs, n * sizeof *docs);
    if (n > 0) {
      const fts_search_options *limit_o = o;
      fts_search_options unexplained;
      if (o && o->explain) {
        unexplained = *o;
        unexplained.explain = NULL;
        limit_o = &unexplained;
      }
      ck_assert_int_eq(fts_search_into(idx, docs, n - 1, &n, acct, query, limit_o), FTS_ERR_LIMIT);
      ck_assert_uint_eq(n, r->num_docs);
    }
  }
  fts_result_free(r);
  fts_query_free(query);
  return result_text;
}

// search is search_opt without options.
static inline const char *search(fts_index *idx, uint32_t acct, const char *q) {
  return search_opt(idx, acct, q, NULL);
}

// texts holds the bodies the strict substring search reads back through
// text_of, by document id.
struct texts {
  const char *body[8];
  int fail_doc; // a document whose text cannot be read (-EIO), or -1
};

// text_of is the substring search's text callback over a struct texts:
// only bodies are known, other fields and documents are absent (1).
static inline int text_of(void *ctx, uint32_t doc, uint32_t field, const uint8_t **text,
                          size_t *len) {
  const struct texts *t = ctx;
  if ((int)doc == t->fail_doc)
    return -EIO;
  if (field != FTS_FIELD_BODY || doc >= 8 || !t->body[doc])
    return 1;
  *text = (const uint8_t *)t->body[doc];
  *len = strlen(t->body[doc]);
  return 0;
}

// substring returns the documents of account 1 whose body holds `needle`
// (strict substring search over `t`) as "1 2 3"; they carry no scores.
static inline const char *substring(fts_index *idx, const char *needle, struct texts *t) {
  fts_search_options o = {.field_mask = 1u << FTS_FIELD_BODY};
  fts_result *r;
  int rc =
      fts_search_substring(idx, &r, 1, (const uint8_t *)needle, strlen(needle), &o, text_of, t);
  ck_assert_msg(rc == 0, "%s: %s", needle, fts_strerror(rc));
  docs_text(result_text, sizeof result_text, r->docs, r->num_docs);
  ck_assert_ptr_null(r->scores);
  fts_result_free(r);
  return result_text;
}

#endif // FTS_TEST_UTIL_H
