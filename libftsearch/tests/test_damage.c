// test_damage.c: a damaged index on disk must give FTS_ERR_CORRUPT, never a
// crash, an out-of-bounds read, a hang or a wrong answer that looks valid. A
// mail server's index lives for years and a torn write or a flipped bit
// reaches the readers' checks only in the field, so each test builds a small
// real index through the public API (positions, BITMAP and ARRAY containers,
// zstd positions, prefixes, a deleted document, two accounts), checks its
// answers, closes it, damages exactly one record through a raw LMDB handle
// of its own (as another program or a torn write would), reopens it and runs
// the searches that read that record. The comment of each test names the
// check that must see its damage; the byte layouts come from FORMAT.md and
// index_internal.h, and each test first asserts that the record has the
// shape it expects, so that a change of encoding fails loudly instead of
// leaving a check untested.
#include <check.h>
#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "corvid_libtest.h"
#include "corvid_test_asan.h"
#define CORVID_TEST_TMP_NAME "fts-damage"
#include "corvid_test_tmp.h"
#include "ftsearch.h"
#include "index_internal.h"

static char path[96];

// ---- the index ----

enum { ZSTD_REPEAT = 600 };

static void add_body(fts_batch *b, uint32_t acct, uint32_t doc, const char *text) {
  fts_doc_field f = {FTS_FIELD_BODY, "en", (const uint8_t *)text, strlen(text)};
  ck_assert_int_eq(fts_batch_add(b, acct, doc, &f, 1), 0);
}

// open_fresh opens a new index in a directory of its own (`path`).
static fts_index *open_fresh(void) {
  char dir[80];
  snprintf(dir, sizeof dir, "%s/t-XXXXXX", corvid_test_root);
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/index", dir);
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, path, NULL), 0);
  return idx;
}

// build writes the index every test starts from, in a directory of its own:
//   alpha {1 2 4 7 9 12} and bravo {1-5 7-13}: BITMAP containers, alpha the
//     rarer; "alpha bravo" holds in 1 2 7 12 (4 has them reversed, 9 apart);
//   charlie {70} (ARRAY) and delta {1-13 70} (BITMAP over two 64-bit words):
//     "charlie delta" holds in 70, delta's 14th entry;
//   foxtrot {3 6}, foxhound {8}: fox* expands to two terms;
//   oscar {20 70}: an ARRAY container of two documents;
//   "zulu yankee" 600 times in 20: positions stored as zstd frames;
//   kilo in 99, deleted in a second batch (a del set);
//   account 2: golf in 100-104, a live set that is one run.
static void build(void) {
  fts_index *idx = open_fresh();
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (uint32_t d = 1; d <= 13; d++) {
    char text[128];
    const char *ab = d == 1 || d == 2 || d == 7 || d == 12 ? "alpha bravo"
                     : d == 4                              ? "bravo alpha"
                     : d == 9                              ? "alpha xray bravo"
                     : d == 6                              ? "xray"
                                                           : "bravo";
    const char *fox = d == 3 || d == 6 ? "foxtrot" : d == 8 ? "foxhound" : "";
    snprintf(text, sizeof text, "%s delta %s filler", ab, fox);
    add_body(b, 1, d, text);
  }
  static char zy[ZSTD_REPEAT * 12 + 6];
  for (size_t i = 0; i < ZSTD_REPEAT; i++)
    memcpy(zy + 12 * i, "zulu yankee ", 12);
  memcpy(zy + 12 * ZSTD_REPEAT, "oscar", 6);
  add_body(b, 1, 20, zy);
  add_body(b, 1, 70, "charlie delta oscar");
  add_body(b, 1, 99, "kilo");
  for (uint32_t d = 100; d <= 104; d++)
    add_body(b, 2, d, "golf");
  ck_assert_int_eq(fts_batch_commit(b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 99), 0);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  fts_index_close(idx);
}

static fts_index *reopen(void) {
  fts_index *idx;
  ck_assert_int_eq(fts_index_open(&idx, path, NULL), 0);
  return idx;
}

// ---- searches ----

static const fts_search_options ranked = {.top_k = 50};

// run_query returns the search's code; on success the documents as "1 2 3".
static char result_text[512];
static int run_query(fts_index *idx, uint32_t acct, const char *q, const fts_search_options *o) {
  fts_query *query;
  ck_assert_int_eq(fts_query_parse(&query, NULL, q, strlen(q), NULL), 0);
  fts_result *r = NULL;
  int rc = fts_search(idx, &r, acct, query, o);
  result_text[0] = 0;
  if (rc == 0) {
    ck_assert_ptr_nonnull(r);
    size_t at = 0;
    for (size_t i = 0; i < r->num_docs && at < sizeof result_text - 12; i++)
      at += (size_t)snprintf(result_text + at, sizeof result_text - at, "%s%u", i ? " " : "",
                             r->docs[i]);
  } else {
    ck_assert_ptr_null(r);
  }
  if (!o || !o->top_k) {
    // The caller-buffer form collects its documents on its own path.
    uint32_t docs[64];
    size_t n;
    int rc2 = fts_search_into(idx, docs, 64, &n, acct, query, o);
    ck_assert_msg(rc2 == rc, "%s: fts_search %d, fts_search_into %d", q, rc, rc2);
  }
  fts_result_free(r);
  fts_query_free(query);
  return rc;
}

static void expect(fts_index *idx, uint32_t acct, const char *q, const fts_search_options *o,
                   const char *docs) {
  int rc = run_query(idx, acct, q, o);
  ck_assert_msg(rc == 0, "%s: %s", q, fts_strerror(rc));
  if (!o || !o->top_k)
    ck_assert_str_eq(result_text, docs);
  else
    ck_assert_uint_eq(strlen(result_text), strlen(docs)); // ranked: same set, any order
}

static void expect_corrupt(fts_index *idx, uint32_t acct, const char *q,
                           const fts_search_options *o) {
  int rc = run_query(idx, acct, q, o);
  ck_assert_msg(rc == FTS_ERR_CORRUPT, "%s gave %d (%s), result \"%s\"", q, rc, fts_strerror(rc),
                result_text);
}

// ---- raw access to the records ----

struct rec {
  uint8_t key[FTS_KEY_MAX];
  size_t key_len;
  uint8_t v[16384];
  size_t len;
};

static void raw_env(MDB_env **env, MDB_txn **txn, MDB_dbi *dbi, const char *db, unsigned flags) {
  ck_assert_int_eq(mdb_env_create(env), 0);
  ck_assert_int_eq(mdb_env_set_maxdbs(*env, 8), 0);
  ck_assert_int_eq(mdb_env_open(*env, path, MDB_NOSUBDIR | flags, 0644), 0);
  ck_assert_int_eq(mdb_txn_begin(*env, NULL, flags & MDB_RDONLY, txn), 0);
  ck_assert_int_eq(mdb_dbi_open(*txn, db, 0, dbi), 0);
}

// raw_get reads the record of `r->key` in database `db`; it must exist.
static void raw_get(const char *db, struct rec *r) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  raw_env(&env, &txn, &dbi, db, MDB_RDONLY);
  MDB_val k = {r->key_len, r->key}, v;
  ck_assert_int_eq(mdb_get(txn, dbi, &k, &v), 0);
  ck_assert_uint_le(v.mv_size, sizeof r->v);
  memcpy(r->v, v.mv_data, v.mv_size);
  r->len = v.mv_size;
  mdb_txn_abort(txn);
  mdb_env_close(env);
}

// raw_put stores `r` back in place of the record.
static void raw_put(const char *db, const struct rec *r) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  raw_env(&env, &txn, &dbi, db, 0);
  MDB_val k = {r->key_len, (void *)r->key}, v = {r->len, (void *)r->v};
  ck_assert_int_eq(mdb_put(txn, dbi, &k, &v, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

static void post_key(struct rec *r, uint32_t acct, const char *word) {
  r->key_len = fts_term_key(r->key, acct, FTS_FIELD_BODY, FTS_TERM_WORD, (const uint8_t *)word,
                            strlen(word));
  r->key[r->key_len++] = 0; // block 0
  r->key[r->key_len++] = 0;
}

static void set_key(struct rec *r, uint32_t acct) {
  fts_put_be32(r->key, acct);
  r->key[4] = r->key[5] = 0; // block 0
  r->key_len = 6;
}

// A posting block's fields, as offsets into its value.
struct layout {
  uint32_t n;
  size_t docs, docs_len;     // the container, type byte first
  size_t pos_type, raw;      // the type byte, the raw length varint
  uint32_t raw_len;          // its value
  size_t pos;                // the stored positions
  size_t table_len;          // VARINT only: the varint table_len,
  uint32_t table_bytes;      // its value,
  size_t table, segs;        // the table and the segments
  size_t entry[16], seg[16]; // per document: its table entry, its segment
};

// read_post reads the posting block of `word` and lays it out; the table's
// entries are single bytes here, which the tests that edit them rely on.
static void read_post(struct rec *r, struct layout *L, uint32_t acct, const char *word) {
  post_key(r, acct, word);
  raw_get("post", r);
  struct fts_block b;
  ck_assert_int_eq(fts_block_parse(&b, r->v, r->len), 0);
  memset(L, 0, sizeof *L);
  L->n = b.n;
  L->docs = (size_t)(b.docs - r->v);
  L->docs_len = b.docs_len;
  L->pos_type = L->docs + L->docs_len;
  L->raw = L->pos_type + 1;
  L->raw_len = b.pos_raw_len;
  L->pos = (size_t)(b.pos - r->v);
  if (b.pos_type != FTS_POS_VARINT)
    return;
  struct fts_cur c = {b.pos, b.pos_len};
  L->table_len = L->pos;
  ck_assert(fts_cur_varint(&c, &L->table_bytes));
  L->table = (size_t)(c.p - r->v);
  L->segs = L->table + L->table_bytes;
  size_t seg = L->segs;
  for (uint32_t i = 0; i < b.n && i < 16; i++) {
    L->entry[i] = L->table + i;
    ck_assert_uint_lt(r->v[L->entry[i]], 0x80);
    L->seg[i] = seg;
    seg += r->v[L->entry[i]];
  }
  ck_assert_uint_eq(L->table_bytes, b.n < 16 ? b.n : L->table_bytes);
}

// patch changes byte `at` of record `r` of database `db` from `was`
// (asserted: the record has the shape the test expects) to `to`, on disk.
static void patch(struct rec *r, const char *db, size_t at, uint8_t was, uint8_t to) {
  ck_assert_uint_lt(at, r->len);
  ck_assert_uint_eq(r->v[at], was);
  r->v[at] = to;
  raw_put(db, r);
}

// ---- the undamaged index ----

// What every damaged test compares against: each search below answers
// correctly before any damage.
START_TEST(undamaged_index_answers) {
  build();
  fts_index *idx = reopen();
  expect(idx, 1, "\"alpha bravo\"", NULL, "1 2 7 12");
  expect(idx, 1, "\"bravo alpha\"", NULL, "4");
  expect(idx, 1, "alpha", NULL, "1 2 4 7 9 12");
  expect(idx, 1, "bravo", NULL, "1 2 3 4 5 7 8 9 10 11 12 13");
  expect(idx, 1, "\"charlie delta\"", NULL, "70");
  expect(idx, 1, "delta", NULL, "1 2 3 4 5 6 7 8 9 10 11 12 13 70");
  expect(idx, 1, "delta", &ranked, "1 2 3 4 5 6 7 8 9 10 11 12 13 70");
  expect(idx, 1, "fox*", NULL, "3 6 8");
  expect(idx, 1, "fox*", &ranked, "3 6 8");
  expect(idx, 1, "\"zulu yankee\"", NULL, "20");
  expect(idx, 1, "\"yankee zulu\"", NULL, "20");
  expect(idx, 1, "oscar", NULL, "20 70");
  expect(idx, 1, "kilo", NULL, "");
  expect(idx, 2, "golf", NULL, "100 101 102 103 104");
  expect(idx, 2, "golf filler", NULL, "");
  fts_index_close(idx);
  // The containers and position encodings the damage tests expect.
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "alpha");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_BITMAP);
  read_post(&r, &L, 1, "delta");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_BITMAP);
  ck_assert_uint_eq(L.n, 14);
  read_post(&r, &L, 1, "charlie");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_ARRAY);
  read_post(&r, &L, 1, "oscar");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_ARRAY);
  read_post(&r, &L, 1, "zulu");
  ck_assert_uint_eq(r.v[L.pos_type], FTS_POS_ZSTD);
}
END_TEST

// ---- posting blocks: the container ----

// A torn write that lost the value's last byte: the stored positions are
// shorter than their declared raw length. fts_block_parse (raw != len) must
// see it in every search that reads the block: the phrase, the sparse word
// path, the bitmap word path (ranked), the prefix expansion.
START_TEST(post_value_truncated) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "foxtrot");
  r.len--;
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"foxtrot filler\"", NULL);
  expect_corrupt(idx, 1, "foxtrot", NULL);
  expect_corrupt(idx, 1, "foxtrot", &ranked);
  expect_corrupt(idx, 1, "fox*", NULL);
  expect_corrupt(idx, 1, "fox*", &ranked);
  expect(idx, 1, "foxhound", NULL, "8"); // its neighbour is intact
  fts_index_close(idx);
}
END_TEST

// The rarer word's BITMAP container holds more live documents than its
// count says (n lowered by one): phrase_field's candidate loop must stop at
// "more documents than the block says" instead of writing past its scratch
// (sized by the count: with alpha the last word of "bravo alpha" the sixth
// candidate would land past its end, which ASan sees; the rank check after
// the loop hides it otherwise); the decoders of the word and prefix
// searches see the count disagree.
START_TEST(phrase_bitmap_more_docs_than_count) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "alpha");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_BITMAP);
  patch(&r, "post", 0, 6, 5);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"alpha bravo\"", NULL);
  expect_corrupt(idx, 1, "\"bravo alpha\"", NULL);
  expect_corrupt(idx, 1, "alpha", NULL);
  expect_corrupt(idx, 1, "alph*", NULL);
  fts_index_close(idx);
}
END_TEST

// A flipped bit in the rarer word's BITMAP container adds document 14,
// which is not live: the candidates stay within the count, but the bits
// counted disagree with it (rank != n after the candidate loop); the prefix
// expansion's decoder (fts_docs_decode_or) must count them too, as the live
// set would hide the extra document.
START_TEST(phrase_bitmap_extra_bit) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "alpha");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_BITMAP);
  ck_assert_uint_eq(L.docs_len, 3); // type, documents 0-7, 8-15
  ck_assert_uint_eq(r.v[L.docs + 2] & 0x40, 0);
  r.v[L.docs + 2] |= 0x40;
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"alpha bravo\"", NULL);
  expect_corrupt(idx, 1, "alpha", NULL);
  expect_corrupt(idx, 1, "alph*", NULL);
  fts_index_close(idx);
}
END_TEST

// The further word of a phrase (delta, BITMAP over two 64-bit words) says 12
// documents but holds 13 below its candidate 70: phrase_field's rank check
// for further bitmap words (rank > n) must see it before the rank is used as
// an index into the segment table.
START_TEST(phrase_further_bitmap_rank_past_count) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_BITMAP);
  patch(&r, "post", 0, 14, 12);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  expect_corrupt(idx, 1, "delta", NULL);
  expect_corrupt(idx, 1, "delta", &ranked);
  fts_index_close(idx);
}
END_TEST

// An ARRAY container's count raised far beyond its entries (1 -> 3000, over
// the sparse path's limit): the sparse path hands the word to the bitmap
// path, whose decoder must find the entries missing; the phrase's decoder
// and the ranked search's too.
START_TEST(array_count_beyond_entries) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "charlie");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_ARRAY);
  ck_assert_uint_eq(r.v[0], 1);
  // 3000 takes two varint bytes: the value is rebuilt around it.
  struct rec d = r;
  d.v[0] = 0x80 | (3000 & 0x7f);
  d.v[1] = 3000 >> 7;
  memcpy(d.v + 2, r.v + 1, r.len - 1);
  d.len = r.len + 1;
  raw_put("post", &d);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "charlie", NULL);
  expect_corrupt(idx, 1, "charlie", &ranked);
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  fts_index_close(idx);
}
END_TEST

// An ARRAY container's count lowered (oscar: 2 -> 1): the decoder would stop
// after document 20 and drop 70 unless it insists that the container ends
// with the last entry.
START_TEST(array_count_below_entries) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "oscar");
  ck_assert_uint_eq(r.v[L.docs], FTS_CONTAINER_ARRAY);
  patch(&r, "post", 0, 2, 1);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "oscar", NULL);
  expect_corrupt(idx, 1, "oscar", &ranked);
  expect_corrupt(idx, 1, "osc*", NULL);
  fts_index_close(idx);
}
END_TEST

// ---- posting blocks: the segment table and the positions ----

// The entries before the candidate's (delta's 14th) overwritten with 0xff
// from the 10th on: a varint of five bytes whose last has bits past 32, so
// table_skip must fail while skipping to the candidate instead of taking
// some other document's segment for it.
START_TEST(table_entry_not_a_varint) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  for (size_t i = 9; i < 14; i++) {
    ck_assert_uint_eq(r.v[L.entry[i]], 2);
    r.v[L.entry[i]] = 0xff;
  }
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  expect_corrupt(idx, 1, "delta", &ranked); // fts_pos_iter_next
  fts_index_close(idx);
}
END_TEST

// The segment table's length lowered by one: table_skip reaches the
// candidate's entry exactly at the table's end, and reading the entry
// itself must fail.
START_TEST(table_ends_at_candidate) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  patch(&r, "post", L.table_len, 14, 13);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  fts_index_close(idx);
}
END_TEST

// The candidate's table entry zeroed: a segment holds at least its count,
// so sl == 0 is damage, not an empty document.
START_TEST(segment_length_zero) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  patch(&r, "post", L.entry[13], 2, 0);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  expect_corrupt(idx, 1, "delta", &ranked);
  fts_index_close(idx);
}
END_TEST

// The candidate's table entry points past the end of the segments
// (sl > left - skip): its positions would be read beyond the value.
START_TEST(segment_length_past_end) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  patch(&r, "post", L.entry[13], 2, 0x7f);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  expect_corrupt(idx, 1, "delta", &ranked);
  fts_index_close(idx);
}
END_TEST

// An entry before the candidate is too long: the sum skipped to reach the
// candidate's segment lies past the segments (skip > left).
START_TEST(segment_skip_past_end) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  patch(&r, "post", L.entry[0], 2, 0x7f);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  fts_index_close(idx);
}
END_TEST

// The anchor's segment (charlie's, the first of two equally short ones)
// says two positions but holds one: pos_decode runs out of gaps.
START_TEST(positions_count_exceeds_segment) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "charlie");
  ck_assert_uint_eq(r.v[L.entry[0]], 2);
  patch(&r, "post", L.seg[0], 1, 2);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  fts_index_close(idx);
}
END_TEST

// The further word's segment (delta in document 70) says zero positions:
// pos_decode must refuse a count of zero for the second word as for the
// anchor.
START_TEST(positions_count_zero) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "delta");
  patch(&r, "post", L.seg[13], 1, 0);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"charlie delta\"", NULL);
  fts_index_close(idx);
}
END_TEST

// A segment whose term frequency is not a varint (both bytes with the
// continuation bit): the ranked search reads every segment's count, and
// must not read it past the segment.
START_TEST(segment_count_not_a_varint) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "foxtrot");
  ck_assert_uint_eq(r.v[L.entry[1]], 2);
  r.v[L.seg[1]] = 0xff;
  r.v[L.seg[1] + 1] = 0xff;
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "foxtrot", &ranked);
  expect_corrupt(idx, 1, "fox*", &ranked); // score_prefix
  fts_index_close(idx);
}
END_TEST

// The table's length varint says more than the whole position stream:
// fts_pos_iter_init must not take a table that runs off the value.
START_TEST(table_longer_than_positions) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "foxhound");
  patch(&r, "post", L.table_len, 1, 0x7f);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"foxhound filler\"", NULL);
  expect_corrupt(idx, 1, "foxhound", &ranked);
  expect_corrupt(idx, 1, "fox*", &ranked);
  fts_index_close(idx);
}
END_TEST

// zstd positions whose declared raw length is one more than the frame
// holds: fts_block_positions must check the decompressed size.
START_TEST(zstd_raw_length_disagrees) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "zulu");
  ck_assert_uint_eq(r.v[L.pos_type], FTS_POS_ZSTD);
  ck_assert_uint_eq(L.pos - L.raw, 2); // a two-byte varint
  ck_assert_uint_ne(r.v[L.raw] & 0x7f, 0x7f);
  r.v[L.raw]++;
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"zulu yankee\"", NULL);
  expect_corrupt(idx, 1, "\"yankee zulu\"", NULL);
  expect_corrupt(idx, 1, "zulu", &ranked);
  fts_index_close(idx);
}
END_TEST

// The reader's address space, in bytes, from /proc/self/status (VmSize).
static size_t address_space_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  ck_assert_ptr_nonnull(f);
  char line[256];
  size_t kib = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %zu kB", &kib) == 1)
      break;
  fclose(f);
  ck_assert_uint_gt(kib, 0);
  return kib << 10;
}

// search_limited searches `q` for account 1 in a child process whose address
// space is limited to what it uses plus 1 GiB once the index is open, and
// returns the child's verdict: 0 FTS_ERR_CORRUPT, 2 -ENOMEM (something
// reserved a damaged length first), 3 anything else. ASan reserves far
// more address space than that at start, so its build runs unlimited.
static int search_limited(const char *q) {
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    fts_index *idx;
    fts_query *query;
    fts_result *res = NULL;
    if (fts_index_open(&idx, path, NULL) != 0 ||
        fts_query_parse(&query, NULL, q, strlen(q), NULL) != 0)
      _exit(100);
    if (!CORVID_UNDER_ASAN) {
      struct rlimit lim = {address_space_now() + ((size_t)1 << 30), RLIM_INFINITY};
      if (setrlimit(RLIMIT_AS, &lim) != 0)
        _exit(101);
    }
    int rc = fts_search(idx, &res, 1, query, NULL);
    _exit(rc == FTS_ERR_CORRUPT && res == NULL ? 0 : rc == -ENOMEM ? 2 : 3);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "child status %#x", status);
  return WEXITSTATUS(status);
}

// expect_refused_before_reserve stores `r` as the block of "zulu", whose
// raw length now says 4 GiB - 1, and checks that a search refuses it before
// reserving that much (search_limited).
static void expect_refused_before_reserve(const struct rec *r) {
  raw_put("post", r);
  struct fts_block b;
  ck_assert_int_eq(fts_block_parse(&b, r->v, r->len), 0);
  ck_assert_uint_eq(b.pos_raw_len, UINT32_MAX);
  int verdict = search_limited("\"zulu yankee\"");
  ck_assert_msg(verdict == 0, "verdict %d (2: the raw length was reserved first)", verdict);
}

// zstd positions whose raw length says 4 GiB - 1 (a five-byte varint in
// place of the real two): fts_block_positions must refuse it against the
// frame's content size before reserving that much.
START_TEST(zstd_raw_length_huge) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "zulu");
  ck_assert_uint_eq(r.v[L.pos_type], FTS_POS_ZSTD);
  ck_assert_uint_eq(L.pos - L.raw, 2);
  ck_assert_uint_le(r.len + 3, sizeof r.v);
  memmove(r.v + L.raw + 5, r.v + L.pos, r.len - L.pos);
  memcpy(r.v + L.raw, "\xff\xff\xff\xff\x0f", 5);
  r.len += 3;
  expect_refused_before_reserve(&r);
}
END_TEST

// The same length of 4 GiB - 1 in both the raw length and the frame header
// (rewritten with a four-byte Frame_Content_Size, RFC 8878 3.1.1.1), so that
// they agree: the frame's few hundred bytes cannot hold that much, and
// fts_block_positions must see it before reserving it.
START_TEST(zstd_frame_claims_4_gib) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "zulu");
  ck_assert_uint_eq(r.v[L.pos_type], FTS_POS_ZSTD);
  ck_assert_uint_eq(L.pos - L.raw, 2);
  // The old frame header: magic (4), descriptor, window descriptor unless
  // single-segment, dictionary id, content size.
  const uint8_t *frame = r.v + L.pos;
  ck_assert_mem_eq(frame, "\x28\xb5\x2f\xfd", 4);
  uint8_t fhd = frame[4];
  static const size_t did_len[4] = {0, 1, 2, 4};
  unsigned single = fhd >> 5 & 1, fcs_flag = fhd >> 6;
  size_t fcs_len = fcs_flag == 0 ? single : fcs_flag == 1 ? 2 : fcs_flag == 2 ? 4 : 8;
  size_t old_head = 5 + !single + did_len[fhd & 3] + fcs_len;
  uint8_t head[16];
  memcpy(head, frame, 4);
  head[4] = (uint8_t)(2u << 6 | 1u << 5 | (fhd & 0x04)); // 4-byte size, single segment
  memcpy(head + 5, "\xff\xff\xff\xff", 4);
  size_t new_head = 9;
  struct rec out = r;
  size_t at = L.raw;
  memcpy(out.v + at, "\xff\xff\xff\xff\x0f", 5);
  at += 5;
  memcpy(out.v + at, head, new_head);
  at += new_head;
  size_t blocks = r.len - L.pos - old_head;
  ck_assert_uint_le(at + blocks, sizeof out.v);
  memcpy(out.v + at, frame + old_head, blocks);
  out.len = at + blocks;
  struct fts_block b;
  ck_assert_int_eq(fts_block_parse(&b, out.v, out.len), 0);
  ck_assert_uint_eq(ZSTD_getFrameContentSize(b.pos, b.pos_len), UINT32_MAX);
  expect_refused_before_reserve(&out);
}
END_TEST

// A zstd frame cut short by a torn write (the value's last byte lost): the
// decompressor must report an error, not read past the value.
START_TEST(zstd_frame_truncated) {
  build();
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "yankee");
  ck_assert_uint_eq(r.v[L.pos_type], FTS_POS_ZSTD);
  r.len--;
  raw_put("post", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "\"zulu yankee\"", NULL);
  expect_corrupt(idx, 1, "yankee", &ranked);
  fts_index_close(idx);
}
END_TEST

// ---- live sets ----

// The account's live set (a BITMAP: documents 1-99) with its last byte
// zeroed: the sparse path's target_add, load_targets (bitmap path) and
// fts_set_read (a filtered search) must all refuse a bitmap whose last byte
// is zero.
START_TEST(live_bitmap_tail_zeroed) {
  build();
  struct rec r;
  set_key(&r, 1);
  raw_get("live", &r);
  size_t nl = r.v[0] < 0x80 ? 1 : 2;
  ck_assert_uint_eq(r.v[nl], FTS_CONTAINER_BITMAP);
  ck_assert_uint_ne(r.v[r.len - 1], 0);
  r.v[r.len - 1] = 0;
  raw_put("live", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "alpha", NULL);
  expect_corrupt(idx, 1, "\"alpha bravo\"", NULL);
  static const uint32_t filter[] = {1, 2, 3};
  fts_search_options o = {.filter = filter, .num_filter = 3};
  expect_corrupt(idx, 1, "\"alpha bravo\"", &o);
  fts_index_close(idx);
}
END_TEST

// A live set torn down to nothing (an empty value): its count varint is
// missing, for the sparse path, load_targets and fts_set_read alike.
START_TEST(live_set_empty) {
  build();
  struct rec r;
  set_key(&r, 1);
  raw_get("live", &r);
  r.len = 0;
  raw_put("live", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "alpha", NULL);
  expect_corrupt(idx, 1, "delta", &ranked);
  static const uint32_t filter[] = {70};
  fts_search_options o = {.filter = filter, .num_filter = 1};
  expect_corrupt(idx, 1, "\"charlie delta\"", &o);
  fts_index_close(idx);
}
END_TEST

// Account 2's live set is one run (PACKED, width 0: 100-104); its first
// document moved to 65534 puts the run past the block's end: target_add's
// range check on the sparse path, the decoder's on the bitmap path.
START_TEST(live_run_past_block_end) {
  build();
  struct rec r;
  set_key(&r, 2);
  raw_get("live", &r);
  ck_assert_uint_eq(r.len, 5);
  ck_assert_uint_eq(r.v[0], 5);
  ck_assert_uint_eq(r.v[1], FTS_CONTAINER_PACKED);
  ck_assert_uint_eq(r.v[2], 0);
  ck_assert_uint_eq(r.v[3] | r.v[4] << 8, 100);
  r.v[3] = 0xfe;
  r.v[4] = 0xff;
  raw_put("live", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 2, "golf", NULL);
  expect_corrupt(idx, 2, "golf", &ranked);
  fts_index_close(idx);
}
END_TEST

// ---- the acct database ----

// The account's counters torn to half their size: fts_acct_read's size
// check, which every search passes through first.
START_TEST(account_counters_torn) {
  build();
  struct rec r;
  fts_put_be32(r.key, 1);
  r.key_len = 4;
  raw_get("acct", &r);
  ck_assert_uint_eq(r.len, sizeof(struct fts_acct_counts));
  r.len /= 2;
  raw_put("acct", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "alpha", NULL);
  expect_corrupt(idx, 1, "\"alpha bravo\"", NULL);
  expect_corrupt(idx, 1, "fox*", &ranked);
  expect(idx, 2, "golf", NULL, "100 101 102 103 104"); // another account's
  fts_index_close(idx);
}
END_TEST

// The account's language list cut to a partial entry: fts_langs_read's
// size check, reached by a one-word query without a language (which stems
// the word in the fields' languages); a phrase never reads the list.
START_TEST(language_list_torn) {
  build();
  struct rec r;
  fts_put_be32(r.key, 1);
  r.key[4] = FTS_LANG_KEY;
  r.key_len = 5;
  raw_get("acct", &r);
  ck_assert_uint_eq(r.len % FTS_LANG_ENTRY, 0);
  r.len--;
  raw_put("acct", &r);
  fts_index *idx = reopen();
  expect_corrupt(idx, 1, "alpha", NULL);
  expect(idx, 1, "\"alpha bravo\"", NULL, "1 2 7 12");
  fts_index_close(idx);
}
END_TEST

// ---- writes over damage ----

// A deleted set torn to nothing: fts_index_merge reads it (fts_set_read's
// count varint) and must fail without changing the index.
START_TEST(deleted_set_empty_stops_merge) {
  build();
  struct rec r;
  set_key(&r, 1);
  raw_get("del", &r);
  r.len = 0;
  raw_put("del", &r);
  fts_index *idx = reopen();
  ck_assert_int_eq(fts_index_merge(idx, 1), FTS_ERR_CORRUPT);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 70), 0);
  ck_assert_int_eq(fts_batch_commit(b), FTS_ERR_CORRUPT);
  fts_batch_free(b);
  expect(idx, 1, "\"charlie delta\"", NULL, "70");
  fts_index_close(idx);
}
END_TEST

// A document's length record (docs database) cut inside a varint: deleting
// the document reads it to correct the account's word counts
// (unindex_doc), and the commit must fail and leave the document indexed.
START_TEST(document_lengths_torn_stop_delete) {
  build();
  struct rec r;
  fts_put_be32(r.key, 1);
  fts_put_be32(r.key + 4, 20);
  r.key_len = 8;
  raw_get("docs", &r);
  ck_assert_uint_eq(r.len, 3); // field 5, 1201 words (two bytes)
  r.len = 2;
  raw_put("docs", &r);
  fts_index *idx = reopen();
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  ck_assert_int_eq(fts_batch_delete(b, 1, 20), 0);
  ck_assert_int_eq(fts_batch_commit(b), FTS_ERR_CORRUPT);
  fts_batch_free(b);
  expect(idx, 1, "\"zulu yankee\"", NULL, "20");
  fts_index_close(idx);
}
END_TEST

// build_docs writes an index of its own holding `texts` as the bodies of
// documents 1, 2, ... of account 1.
static void build_docs(const char *const *texts, size_t n) {
  fts_index *idx = open_fresh();
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  for (size_t i = 0; i < n; i++)
    add_body(b, 1, (uint32_t)i + 1, texts[i]);
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  fts_index_close(idx);
}

// Document 1's segment of india says one position but holds two ("india
// xray india juliet"). pos_decode did not check that the segment was used
// up, so the second position, the one "india juliet" needs, was dropped
// and the phrase search answered nothing with no error.
START_TEST(positions_count_below_segment) {
  const char *const texts[] = {"india xray india juliet", "juliet india"};
  build_docs(texts, 2);
  fts_index *idx = reopen();
  expect(idx, 1, "\"india juliet\"", NULL, "1");
  fts_index_close(idx);
  struct rec r;
  struct layout L;
  read_post(&r, &L, 1, "india");
  patch(&r, "post", L.seg[0], 2, 1);
  idx = reopen();
  expect_corrupt(idx, 1, "\"india juliet\"", NULL);
  fts_index_close(idx);
}
END_TEST

// Document 20's length record cut mid-varint: ranking read it as a length
// of 0 and ranked with it, silently (BM25 weighs by length); it must refuse
// the record as unindex_doc does. Unranked searches do not read lengths.
START_TEST(document_lengths_torn_stop_ranking) {
  build();
  fts_index *idx = reopen();
  expect(idx, 1, "zulu", &ranked, "20");
  fts_index_close(idx);
  struct rec r;
  fts_put_be32(r.key, 1);
  fts_put_be32(r.key + 4, 20);
  r.key_len = 8;
  raw_get("docs", &r);
  ck_assert_uint_eq(r.len, 3);
  r.len = 2;
  raw_put("docs", &r);
  idx = reopen();
  expect_corrupt(idx, 1, "zulu", &ranked);
  expect(idx, 1, "\"zulu yankee\"", NULL, "20");
  fts_index_close(idx);
}
END_TEST

// ---- the file ----

// A file whose "post" database is gone: no open may create it (a writable
// open used to, leaving an empty index), and both must report the file as
// damaged (fts_index_open's MDB_NOTFOUND).
START_TEST(postings_database_missing) {
  build();
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  raw_env(&env, &txn, &dbi, "post", 0);
  ck_assert_int_eq(mdb_drop(txn, dbi, 1), 0);
  ck_assert_int_eq(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  fts_index *idx;
  fts_index_settings s = {.flags = FTS_INDEX_READ_ONLY};
  ck_assert_int_eq(fts_index_open(&idx, path, &s), FTS_ERR_CORRUPT);
  ck_assert_ptr_null(idx);
  // A writable open must not make the missing database anew: the index
  // would then be empty and answer every search with nothing, no error.
  ck_assert_int_eq(fts_index_open(&idx, path, NULL), FTS_ERR_CORRUPT);
  ck_assert_ptr_null(idx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-damage");
  TCase *tc = tcase_create("damage");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, undamaged_index_answers);
  tcase_add_test(tc, post_value_truncated);
  tcase_add_test(tc, phrase_bitmap_more_docs_than_count);
  tcase_add_test(tc, phrase_bitmap_extra_bit);
  tcase_add_test(tc, phrase_further_bitmap_rank_past_count);
  tcase_add_test(tc, array_count_beyond_entries);
  tcase_add_test(tc, array_count_below_entries);
  tcase_add_test(tc, table_entry_not_a_varint);
  tcase_add_test(tc, table_ends_at_candidate);
  tcase_add_test(tc, segment_length_zero);
  tcase_add_test(tc, segment_length_past_end);
  tcase_add_test(tc, segment_skip_past_end);
  tcase_add_test(tc, positions_count_exceeds_segment);
  tcase_add_test(tc, positions_count_zero);
  tcase_add_test(tc, segment_count_not_a_varint);
  tcase_add_test(tc, table_longer_than_positions);
  tcase_add_test(tc, zstd_raw_length_disagrees);
  tcase_add_test(tc, zstd_raw_length_huge);
  tcase_add_test(tc, zstd_frame_claims_4_gib);
  tcase_add_test(tc, zstd_frame_truncated);
  tcase_add_test(tc, live_bitmap_tail_zeroed);
  tcase_add_test(tc, live_set_empty);
  tcase_add_test(tc, live_run_past_block_end);
  tcase_add_test(tc, account_counters_torn);
  tcase_add_test(tc, language_list_torn);
  tcase_add_test(tc, deleted_set_empty_stops_merge);
  tcase_add_test(tc, document_lengths_torn_stop_delete);
  tcase_add_test(tc, positions_count_below_segment);
  tcase_add_test(tc, document_lengths_torn_stop_ranking);
  tcase_add_test(tc, postings_database_missing);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
