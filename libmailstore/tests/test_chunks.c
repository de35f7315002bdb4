// test_chunks.c: large messages stored in chunks (store format 5) against a
// real store: round trips at and around chunk boundaries with and without a
// dictionary; every range ms_message_read_range can be asked for, at every
// boundary, compared with the whole message, for chunked and single-frame
// blobs; the chunk size setting's bounds; threads sharing one handle for
// range reads; a format 4 store (single frames, written with chunking off)
// upgraded on open; training and recompression over chunked blobs; and
// ms_store_verify catching a damaged chunk table while undamaged chunks
// still read.
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdint.h>

enum { CHUNK = 64 << 10, SMALL_MAILS = 200 };

// big writes a message of exactly len bytes (len >= 200): a header, then
// lines of words drawn by a hash of seed, compressible as mail text is but
// never repeating long runs, so that every chunk is a real zstd frame.
static void big(uint8_t *out, size_t len, unsigned seed) {
  static const char *const words[] = {
      "meeting", "report",   "quarterly", "budget", "release", "schedule", "please",
      "review",  "attached", "thanks",    "update", "project", "deadline", "the",
      "and",     "for",      "with",      "next",   "week",    "regards",  "question"};
  int k = snprintf((char *)out, len,
                   "From: a%u@example.org\r\nTo: b@example.org\r\nSubject: big %u\r\n"
                   "Message-ID: <big.%u@example.org>\r\n\r\n",
                   seed, seed, seed);
  size_t n = (size_t)k;
  uint32_t h = seed * 2654435761u + 1;
  unsigned line = 0;
  while (n < len) {
    h = h * 1103515245u + 12345u;
    char w[40];
    int wl = (h >> 20) % 9 == 0 ? snprintf(w, sizeof w, "\r\n%u: ", line++)
                                : snprintf(w, sizeof w, "%s ", words[(h >> 16) % 21]);
    for (int i = 0; i < wl && n < len; i++)
      out[n++] = (uint8_t)w[i];
  }
}

// train delivers SMALL_MAILS varied small messages and trains a dictionary
// on the store (which then holds the large ones too).
static void train(ms_store *st, uint32_t acct, uint32_t box) {
  uint8_t buf[4096];
  for (unsigned i = 0; i < SMALL_MAILS; i++) {
    size_t len = 400 + (i * 37) % 3000;
    big(buf, len, 1000 + i);
    ck_assert_int_eq(ms_message_append(st, NULL, NULL, acct, box, buf, len, 0, i), 0);
  }
  uint32_t id = 0;
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_ne(id, 0);
}

// read_back checks that message id reads back as data (len bytes), whole.
static void read_back(ms_store *st, uint32_t acct, uint64_t id, const uint8_t *data, size_t len) {
  uint8_t *back = malloc(len);
  size_t got = 0;
  ck_assert_ptr_nonnull(back);
  ck_assert_int_eq(ms_message_read(st, back, len, &got, acct, id), 0);
  ck_assert_uint_eq(got, len);
  ck_assert_mem_eq(back, data, len);
  free(back);
}

// check_ranges reads every (offset, length) pair built from the chunk
// boundaries of message id (data, len bytes) with a buffer of exactly the
// clamped length (and one byte less: MS_ERR_LIMIT with the length needed)
// and compares with data.
static void check_ranges(ms_store *st, uint32_t acct, uint64_t id, const uint8_t *data,
                         size_t len) {
  uint64_t offs[64],
      lens[] = {0, 1, 2, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 3, len, UINT64_MAX};
  size_t no = 0;
  for (uint64_t b = 0; b <= len + CHUNK && no + 3 <= 60; b += CHUNK) {
    if (b)
      offs[no++] = b - 1;
    offs[no++] = b;
    offs[no++] = b + 1;
  }
  offs[no++] = len - 1;
  offs[no++] = len;
  offs[no++] = len + 1;
  offs[no++] = UINT64_MAX;
  uint8_t *out = malloc(len);
  ck_assert_ptr_nonnull(out);
  for (size_t i = 0; i < no; i++) {
    for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
      uint64_t start = offs[i] < len ? offs[i] : len;
      size_t n = (size_t)(len - start < lens[j] ? len - start : lens[j]), got = 99;
      int rc = ms_message_read_range(st, n ? out : NULL, n, &got, acct, id, offs[i], lens[j]);
      ck_assert_msg(rc == 0, "offset %llu length %llu: %d", (unsigned long long)offs[i],
                    (unsigned long long)lens[j], rc);
      ck_assert_uint_eq(got, n);
      if (n) {
        ck_assert_msg(memcmp(out, data + start, n) == 0, "offset %llu length %llu differs",
                      (unsigned long long)offs[i], (unsigned long long)lens[j]);
        ck_assert_int_eq(ms_message_read_range(st, out, n - 1, &got, acct, id, offs[i], lens[j]),
                         MS_ERR_LIMIT);
        ck_assert_uint_eq(got, n);
      }
    }
  }
  free(out);
}

static const size_t sizes[] = {CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 7};
#define NSIZES (sizeof sizes / sizeof sizes[0])

// round_trip stores one message of each size (after a dictionary if
// with_dict) and reads each back whole and by ranges; only messages longer
// than a chunk are chunked.
static void round_trip(int with_dict) {
  struct ms_settings set = {
      .blob_chunk_size = CHUNK, .dict_train_after = UINT32_MAX, .dict_max_size = 16384};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "cora", &acct, &box);
  if (with_dict)
    train(st, acct, box);
  uint8_t *data[NSIZES];
  uint64_t ids[NSIZES];
  for (size_t i = 0; i < NSIZES; i++) {
    data[i] = malloc(sizes[i]);
    ck_assert_ptr_nonnull(data[i]);
    big(data[i], sizes[i], (unsigned)i);
    ck_assert_int_eq(
        ms_message_append(st, &ids[i], NULL, acct, box, data[i], sizes[i], 0, (int64_t)i), 0);
  }
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.chunked_blobs, 3);
  ck_assert_uint_eq(s.chunked_raw, (CHUNK + 1) + 2 * CHUNK + (3 * CHUNK + 7));
  ck_assert_uint_lt(s.chunked_stored, s.chunked_raw / 2);
  ck_assert_uint_eq(s.dict_blobs, with_dict ? NSIZES : 0);
  for (size_t i = 0; i < NSIZES; i++) {
    read_back(st, acct, ids[i], data[i], sizes[i]);
    check_ranges(st, acct, ids[i], data[i], sizes[i]);
  }
  verify_ok(st);
  // A fresh handle (no cached dictionary) reads the same.
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  for (size_t i = 0; i < NSIZES; i++)
    read_back(st, acct, ids[i], data[i], sizes[i]);
  verify_ok(st);
  // Expunge and collect drop chunked blobs as any other.
  uint32_t uids[NSIZES + SMALL_MAILS];
  size_t nu = 0;
  for (uint32_t u = 1; u <= (with_dict ? SMALL_MAILS : 0) + NSIZES; u++)
    uids[nu++] = u;
  ck_assert_int_eq(ms_messages_expunge(st, acct, box, uids, nu), (int)nu);
  ck_assert_int_ge(ms_store_collect(st, 0), (int)nu);
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.blobs, 0);
  verify_ok(st);
  ms_store_close(st);
  for (size_t i = 0; i < NSIZES; i++)
    free(data[i]);
  rm_store_dir(dir);
}

START_TEST(round_trip_plain) {
  round_trip(0);
}
END_TEST

START_TEST(round_trip_dictionary) {
  round_trip(1);
}
END_TEST

// Bad arguments and missing messages give their errors and no bytes.
START_TEST(range_errors) {
  struct ms_settings set = {.blob_chunk_size = CHUNK};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &set, "cora", &acct, &box);
  uint8_t data[CHUNK + 500], out[16];
  big(data, sizeof data, 7);
  uint64_t id;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, data, sizeof data, 0, 0), 0);
  size_t got = 5;
  ck_assert_int_eq(ms_message_read_range(NULL, out, sizeof out, &got, acct, id, 0, 1),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, NULL, acct, id, 0, 1),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_read_range(st, NULL, 1, &got, acct, id, 0, 1),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, &got, acct, id + 1, 0, 1),
                   MS_ERR_NOTFOUND);
  ck_assert_uint_eq(got, 0);
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, &got, acct + 1, id, 0, 1),
                   MS_ERR_NOTFOUND);
  // Across the chunk boundary, 16 bytes; the whole message needs more room.
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, &got, acct, id, CHUNK - 8, 16), 0);
  ck_assert_uint_eq(got, 16);
  ck_assert_mem_eq(out, data + CHUNK - 8, 16);
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, &got, acct, id, 0, UINT64_MAX),
                   MS_ERR_LIMIT);
  ck_assert_uint_eq(got, sizeof data);
  ck_assert_int_eq(ms_message_read(st, out, sizeof out, &got, acct, id), MS_ERR_LIMIT);
  ck_assert_uint_eq(got, sizeof data);
  // Past the end: nothing, successfully, even without a buffer.
  ck_assert_int_eq(ms_message_read_range(st, NULL, 0, &got, acct, id, sizeof data, 10), 0);
  ck_assert_uint_eq(got, 0);
  // The same bytes again share the chunked blob (one more reference, its
  // table kept), which outlives the first message's expunge and collect.
  uint64_t id2;
  ck_assert_int_eq(ms_message_append(st, &id2, NULL, acct, box, data, sizeof data, 0, 1), 0);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.blobs, 1);
  ck_assert_uint_eq(s.chunked_blobs, 1);
  uint32_t first = 1;
  ck_assert_int_eq(ms_messages_expunge(st, acct, box, &first, 1), 1);
  ck_assert_int_eq(ms_store_collect(st, 0), 1);
  ck_assert_int_eq(ms_message_read_range(st, out, sizeof out, &got, acct, id2, CHUNK - 8, 16), 0);
  ck_assert_mem_eq(out, data + CHUNK - 8, 16);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// raw_chunk_size reads the chunk size field of the blob record of the
// only chunked blob (0 if there is none).
static uint32_t raw_chunk_size(const char *dir);

// The setting is clamped to 64 KiB .. 16 MiB, which the record shows.
START_TEST(chunk_size_bounds) {
  static const struct {
    uint32_t set;
    size_t len;
    uint32_t want;
  } cases[] = {{1000, CHUNK + 4096, CHUNK}, {1u << 30, (16u << 20) + 4096, 16u << 20}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ms_settings set = {.blob_chunk_size = cases[i].set};
    char *dir;
    ms_store *st;
    uint32_t acct, box;
    uint64_t id;
    uint8_t *data = malloc(cases[i].len), out[64];
    ck_assert_ptr_nonnull(data);
    big(data, cases[i].len, 90 + (unsigned)i);
    new_store(&dir, &st, &set, "cora", &acct, &box);
    ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, data, cases[i].len, 0, 0), 0);
    size_t got;
    ck_assert_int_eq(
        ms_message_read_range(st, out, sizeof out, &got, acct, id, cases[i].want - 32, 64), 0);
    ck_assert_mem_eq(out, data + cases[i].want - 32, 64);
    ms_store_close(st);
    ck_assert_uint_eq(raw_chunk_size(dir), cases[i].want);
    free(data);
    rm_store_dir(dir);
  }
}
END_TEST

// Threads sharing one handle read ranges of a chunked and a single-frame
// message at once (the handle pools its decompression contexts).
struct reader {
  ms_store *st;
  uint32_t acct;
  uint64_t id[2];
  const uint8_t *data;
  size_t len;
  unsigned seed;
  int bad;
};

static void *read_ranges(void *p) {
  struct reader *r = p;
  uint8_t *out = malloc(2 * CHUNK);
  uint32_t h = r->seed;
  r->bad = !out;
  for (int i = 0; out && i < 60; i++) {
    h = h * 1103515245u + 12345u;
    uint64_t off = h % r->len;
    h = h * 1103515245u + 12345u;
    uint64_t n = h % (2 * CHUNK);
    size_t want = (size_t)(r->len - off < n ? r->len - off : n), got;
    // Ranges end within the shorter message, so both give the same bytes.
    if (ms_message_read_range(r->st, out, 2 * CHUNK, &got, r->acct, r->id[i % 2], off, want) != 0 ||
        got != want || memcmp(out, r->data + off, want) != 0)
      r->bad++;
  }
  free(out);
  return NULL;
}

START_TEST(concurrent_range_reads) {
  struct ms_settings chunked = {.blob_chunk_size = CHUNK}, single = {.blob_chunk_size = UINT32_MAX};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  size_t len = 6 * CHUNK + 123;
  uint8_t *data = malloc(len);
  ck_assert_ptr_nonnull(data);
  big(data, len, 50);
  new_store(&dir, &st, &single, "cora", &acct, &box);
  struct reader r[4];
  uint64_t id[2];
  // Identical bytes would share one blob, so the chunked message is the
  // same text one byte shorter.
  ck_assert_int_eq(ms_message_append(st, &id[0], NULL, acct, box, data, len, 0, 0), 0);
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, &chunked), 0);
  ck_assert_int_eq(ms_message_append(st, &id[1], NULL, acct, box, data, len - 1, 0, 1), 0);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.chunked_blobs, 1);
  pthread_t th[4];
  for (unsigned i = 0; i < 4; i++) {
    r[i] = (struct reader){st, acct, {id[0], id[1]}, data, len - 1, 7 + i, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, read_ranges, &r[i]), 0);
  }
  for (unsigned i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_int_eq(r[i].bad, 0);
  }
  ms_store_close(st);
  free(data);
  rm_store_dir(dir);
}
END_TEST

static int raw_format(const char *dir) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "meta", 0, &d), 0);
  MDB_val k = {6, "format"}, v;
  ck_assert_int_eq(mdb_get(t, d, &k, &v), 0);
  ck_assert_uint_eq(v.mv_size, 4);
  int f = ((const uint8_t *)v.mv_data)[0];
  mdb_txn_abort(t);
  mdb_env_close(env);
  return f;
}

// raw_count_codec counts the blob records whose codec byte is `codec`.
static unsigned raw_count_codec(const char *dir, uint8_t codec) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  MDB_cursor *c;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
  ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
  MDB_val k, v;
  unsigned n = 0;
  while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0)
    n += v.mv_size > 17 && ((const uint8_t *)v.mv_data)[17] == codec;
  mdb_cursor_close(c);
  mdb_txn_abort(t);
  mdb_env_close(env);
  return n;
}

// A store written as format 4 did (every blob one frame, chunking off),
// marked format 4, opens with this library: it becomes format 6, its large
// single-frame message reads whole and by ranges, and new large messages
// are chunked next to it. A format this library does not know is refused.
START_TEST(format4_store_opens) {
  struct ms_settings old = {.blob_chunk_size = UINT32_MAX};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &old, "cora", &acct, &box);
  size_t len = 5 * CHUNK + 11;
  uint8_t *a = malloc(len), *b = malloc(len);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  big(a, len, 40);
  big(b, len, 41);
  uint64_t ida, idb;
  ck_assert_int_eq(ms_message_append(st, &ida, NULL, acct, box, a, len, 0, 1), 0);
  ms_store_close(st);
  raw_set_format(dir, 4);
  ck_assert_uint_eq(raw_count_codec(dir, 1), 1);
  struct ms_settings now = {.blob_chunk_size = CHUNK};
  ck_assert_int_eq(ms_store_open(&st, dir, &now), 0);
  ms_store_close(st);
  ck_assert_int_eq(raw_format(dir), 6);
  ck_assert_int_eq(ms_store_open(&st, dir, &now), 0);
  read_back(st, acct, ida, a, len);
  check_ranges(st, acct, ida, a, len);
  ck_assert_int_eq(ms_message_append(st, &idb, NULL, acct, box, b, len, 0, 2), 0);
  read_back(st, acct, idb, b, len);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.blobs, 2);
  ck_assert_uint_eq(s.chunked_blobs, 1);
  verify_ok(st);
  ms_store_close(st);
  ck_assert_uint_eq(raw_count_codec(dir, 3), 1);
  raw_set_format(dir, 7);
  ck_assert_int_eq(ms_store_open(&st, dir, &now), MS_ERR_CORRUPT);
  free(a);
  free(b);
  rm_store_dir(dir);
}
END_TEST

// Training samples chunked blobs (their first chunk) and recompression
// moves chunked and large single-frame blobs alike to the dictionary, cut
// in chunks as new blobs are.
START_TEST(train_and_recompress_chunked) {
  struct ms_settings off = {
      .blob_chunk_size = UINT32_MAX, .dict_train_after = UINT32_MAX, .dict_max_size = 16384};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, &off, "cora", &acct, &box);
  size_t len = 4 * CHUNK + 3;
  uint8_t *m[3];
  uint64_t id[3];
  for (int i = 0; i < 3; i++) {
    m[i] = malloc(len);
    ck_assert_ptr_nonnull(m[i]);
    big(m[i], len, 60 + (unsigned)i);
  }
  // One large blob as a single frame, then two chunked ones.
  ck_assert_int_eq(ms_message_append(st, &id[0], NULL, acct, box, m[0], len, 0, 0), 0);
  ms_store_close(st);
  struct ms_settings on = off;
  on.blob_chunk_size = CHUNK;
  ck_assert_int_eq(ms_store_open(&st, dir, &on), 0);
  for (int i = 1; i < 3; i++)
    ck_assert_int_eq(ms_message_append(st, &id[i], NULL, acct, box, m[i], len, 0, i), 0);
  train(st, acct, box);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.chunked_blobs, 2);
  ck_assert_uint_eq(s.dict_blobs, 0);
  int n, total = 0;
  while ((n = ms_store_recompress(st, 50)) > 0)
    total += n;
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(total, SMALL_MAILS + 3);
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.chunked_blobs, 3);
  ck_assert_uint_eq(s.dict_blobs, SMALL_MAILS + 3);
  ck_assert_uint_eq(s.chunked_raw, 3 * len);
  for (int i = 0; i < 3; i++) {
    read_back(st, acct, id[i], m[i], len);
    check_ranges(st, acct, id[i], m[i], len);
  }
  verify_ok(st);
  ms_store_close(st);
  for (int i = 0; i < 3; i++)
    free(m[i]);
  rm_store_dir(dir);
}
END_TEST

static uint32_t raw_chunk_size(const char *dir) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  MDB_cursor *c;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
  ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
  MDB_val k, v;
  uint32_t size = 0;
  while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    const uint8_t *p = v.mv_data;
    if (v.mv_size > 26 && p[17] == 3)
      size = (uint32_t)p[22] | (uint32_t)p[23] << 8 | (uint32_t)p[24] << 16 | (uint32_t)p[25] << 24;
  }
  mdb_cursor_close(c);
  mdb_txn_abort(t);
  mdb_env_close(env);
  return size;
}

// raw_patch_chunked rewrites the (only) chunked blob record: fn edits a
// copy of its value (n bytes).
static void raw_patch_chunked(const char *dir, void (*fn)(uint8_t *v, size_t n)) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  MDB_cursor *c;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
  ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
  MDB_val k, v;
  uint8_t key[32], *copy = NULL;
  size_t n = 0;
  while (!copy && mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    if (v.mv_size > 26 && ((const uint8_t *)v.mv_data)[17] == 3) {
      memcpy(key, k.mv_data, 32);
      n = v.mv_size;
      copy = malloc(n);
      ck_assert_ptr_nonnull(copy);
      memcpy(copy, v.mv_data, n);
    }
  }
  mdb_cursor_close(c);
  ck_assert_ptr_nonnull(copy);
  fn(copy, n);
  MDB_val nk = {32, key}, nv = {n, copy};
  ck_assert_int_eq(mdb_put(t, d, &nk, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
  free(copy);
}

static uint64_t le64(const uint8_t *p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--)
    x = x << 8 | p[i];
  return x;
}

static void put_le64(uint8_t *p, uint64_t x) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(x >> (8 * i));
}

// Chunk 0 of a four-chunk blob ends one byte late: its frame gains a byte,
// chunk 1's loses its first.
static void shift_first_end(uint8_t *v, size_t n) {
  (void)n;
  put_le64(v + 26, le64(v + 26) + 1);
}

// Chunk 1 ends where chunk 0 does: an empty frame.
static void empty_second(uint8_t *v, size_t n) {
  (void)n;
  put_le64(v + 34, le64(v + 26));
}

// The last end offset no longer matches the payload.
static void bad_last(uint8_t *v, size_t n) {
  (void)n;
  put_le64(v + 26 + 8 * 3, le64(v + 26 + 8 * 3) - 1);
}

// The chunk size no longer matches the table.
static void bad_chunk_size(uint8_t *v, size_t n) {
  (void)n;
  v[22] = 0;
  v[23] = 0;
  v[24] = 0x20; // 2 MiB: a one-chunk blob, which is never chunked
}

START_TEST(verify_catches_chunk_table) {
  void (*damage[])(uint8_t *, size_t) = {shift_first_end, empty_second, bad_last, bad_chunk_size};
  size_t len = 4 * CHUNK - 5;
  uint8_t *data = malloc(len), *out = malloc(len);
  ck_assert_ptr_nonnull(data);
  ck_assert_ptr_nonnull(out);
  big(data, len, 77);
  for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
    struct ms_settings set = {.blob_chunk_size = CHUNK};
    char *dir;
    ms_store *st;
    uint32_t acct, box;
    uint64_t id;
    new_store(&dir, &st, &set, "cora", &acct, &box);
    ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, data, len, 0, 0), 0);
    verify_ok(st);
    size_t got = 7;
    ck_assert_int_eq(ms_message_read_range(st, out, len, &got, acct, id, 2 * CHUNK + 9, CHUNK), 0);
    ck_assert_mem_eq(out, data + 2 * CHUNK + 9, CHUNK);
    ms_store_close(st);
    raw_patch_chunked(dir, damage[i]);
    ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
    struct ms_diag dg;
    ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
    ck_assert_msg(strstr(dg.message, "blob") != NULL, "diag: %s", dg.message);
    got = 7;
    ck_assert_int_eq(ms_message_read(st, out, len, &got, acct, id), MS_ERR_CORRUPT);
    ck_assert_uint_eq(got, 0);
    ck_assert_int_eq(ms_message_read_range(st, out, len, &got, acct, id, 0, CHUNK + 10),
                     MS_ERR_CORRUPT);
    if (damage[i] == shift_first_end || damage[i] == empty_second) {
      // The last chunk has its own frame and entries and still reads;
      // chunk 2 starts where the damaged entry 1 says, so it reads only
      // when that entry is intact, and never as another chunk's bytes.
      ck_assert_int_eq(ms_message_read_range(st, out, len, &got, acct, id, 3 * CHUNK + 9, 100), 0);
      ck_assert_uint_eq(got, 100);
      ck_assert_mem_eq(out, data + 3 * CHUNK + 9, 100);
      int want = damage[i] == shift_first_end ? 0 : MS_ERR_CORRUPT;
      ck_assert_int_eq(ms_message_read_range(st, out, len, &got, acct, id, 2 * CHUNK + 9, 100),
                       want);
      if (want == 0)
        ck_assert_mem_eq(out, data + 2 * CHUNK + 9, 100);
    }
    ms_store_close(st);
    rm_store_dir(dir);
  }
  free(data);
  free(out);
}
END_TEST

int main(void) {
  Suite *s = suite_create("chunks");
  TCase *tc = tcase_create("chunks");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, round_trip_plain);
  tcase_add_test(tc, round_trip_dictionary);
  tcase_add_test(tc, range_errors);
  tcase_add_test(tc, chunk_size_bounds);
  tcase_add_test(tc, concurrent_range_reads);
  tcase_add_test(tc, format4_store_opens);
  tcase_add_test(tc, train_and_recompress_chunked);
  tcase_add_test(tc, verify_catches_chunk_table);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
