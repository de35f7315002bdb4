// index_internal.h: private declarations shared by the index, query and
// search modules of libftsearch: the on-disk encodings (varints, document
// containers, posting blocks, LMDB keys) and the parsed query tree.
#ifndef FTS_INDEX_INTERNAL_H
#define FTS_INDEX_INTERNAL_H

#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftsearch.h"

#define FTS_TRY(expr)                                                                              \
  do {                                                                                             \
    int fts_try_rc_ = (expr);                                                                      \
    if (fts_try_rc_ < 0)                                                                           \
      return fts_try_rc_;                                                                          \
  } while (0)

// A block bitmap covers FTS_BLOCK_DOCS documents.
#define FTS_BITMAP_WORDS (FTS_BLOCK_DOCS / 64u)
#define FTS_BITMAP_BYTES (FTS_BLOCK_DOCS / 8u)

// The longest term the dictionary keeps; longer terms are skipped (LMDB keys
// are at most 511 bytes and the analyzer's default is 64).
#define FTS_MAX_TERM_LEN 255u

// Posting key: account (4, big-endian) | field (1) | kind (1) | term | 0x00 |
// block (2, big-endian). Terms never contain NUL, so a term sorts before
// every longer term it prefixes, and a prefix range is one cursor walk.
#define FTS_KEY_HEAD 6u
#define FTS_KEY_MAX (FTS_KEY_HEAD + FTS_MAX_TERM_LEN + 3u)

// fts_popcount64 counts set bits without needing the POPCNT instruction
// (the library is built for baseline x86-64, where __builtin_popcountll is
// a libgcc call); callers skip zero words first.
static inline unsigned fts_popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

// ---- bounded reader and growable writer ----

struct fts_cur {
  const uint8_t *p;
  size_t len;
};

static inline int fts_cur_varint(struct fts_cur *c, uint32_t *out) {
  uint32_t v = 0;
  for (unsigned shift = 0, i = 0; i < 5; i++, shift += 7) {
    if (i >= c->len)
      return 0;
    uint8_t b = c->p[i];
    if (i == 4 && b > 0x0f)
      return 0;
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      c->p += i + 1;
      c->len -= i + 1;
      *out = v;
      return 1;
    }
  }
  return 0;
}

static inline int fts_cur_u8(struct fts_cur *c, uint8_t *out) {
  if (c->len < 1)
    return 0;
  *out = c->p[0];
  c->p++;
  c->len--;
  return 1;
}

static inline int fts_cur_bytes(struct fts_cur *c, const uint8_t **out, size_t n) {
  if (c->len < n)
    return 0;
  *out = c->p;
  c->p += n;
  c->len -= n;
  return 1;
}

static inline size_t fts_varint_put(uint8_t *out, uint32_t v) {
  size_t i = 0;
  while (v >= 0x80) {
    out[i++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[i++] = (uint8_t)v;
  return i;
}

struct fts_buf {
  uint8_t *p;
  size_t len, cap;
  int err; // sticky: -ENOMEM once an allocation failed
};

int fts_buf_reserve(struct fts_buf *b, size_t more);
void fts_buf_free(struct fts_buf *b);

static inline void fts_buf_varint(struct fts_buf *b, uint32_t v) {
  if (fts_buf_reserve(b, 5) == 0)
    b->len += fts_varint_put(b->p + b->len, v);
}

static inline void fts_buf_put(struct fts_buf *b, const void *p, size_t n) {
  if (n > 0 && fts_buf_reserve(b, n) == 0) {
    memcpy(b->p + b->len, p, n);
    b->len += n;
  }
}

// ---- document containers (sorted, distinct offsets 0 … 65535 in a block) ----

enum {
  FTS_CONTAINER_ARRAY = 0,  // first offset, then gaps - 1, as varints
  FTS_CONTAINER_PACKED = 1, // bit width, first offset (2 bytes LE), gaps - 1 packed LSB first
  FTS_CONTAINER_BITMAP = 2, // bitmap bytes up to the highest set bit
};

// fts_docs_max_len bounds what fts_docs_encode writes for `n` offsets.
static inline size_t fts_docs_max_len(size_t n) {
  size_t a = 1 + 3 * n;
  return a > 1 + FTS_BITMAP_BYTES ? a : 1 + FTS_BITMAP_BYTES;
}

// fts_docs_size returns the sizes each container would take for `docs`.
void fts_docs_sizes(const uint16_t *docs, size_t n, size_t sizes[3]);
// fts_docs_encode writes the smallest container (type byte first) for the `n`
// sorted distinct `docs` into `out` (fts_docs_max_len(n) bytes) and returns
// its length; `force_type` >= 0 forces a type (tests).
size_t fts_docs_encode(uint8_t *out, const uint16_t *docs, size_t n, int force_type);
// fts_docs_decode writes the `n` offsets of the container at `in` into
// `out` (room for `n`); fts_docs_decode_or ORs them into a block bitmap.
// Both return 0 or FTS_ERR_CORRUPT (also when the container does not hold
// exactly `n` strictly increasing offsets).
int fts_docs_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t n);
int fts_docs_decode_or(const uint8_t *in, size_t in_len, uint64_t *bitmap, size_t n);

// ---- posting blocks ----
//
// value: varint n | varint docs_len | container | u8 pos_type | varint
// pos_raw_len | positions (raw, or one zstd frame of them). The raw
// positions are a table of segment lengths, then per document in order:
// varint count, first position, then gaps between positions.

enum { FTS_POS_VARINT = 0, FTS_POS_ZSTD = 1 };

struct fts_block {
  uint32_t n;
  const uint8_t *docs;
  size_t docs_len;
  uint8_t pos_type;
  uint32_t pos_raw_len;
  const uint8_t *pos;
  size_t pos_len;
};

// The raw position stream is varint table_len | table | segments: the table
// holds each document's segment length (varint), the segment its count,
// first position and gaps, so that a reader skips a document with one
// varint instead of decoding its positions.
struct fts_pos_iter {
  struct fts_cur table;
  struct fts_cur segs;
};

static inline int fts_pos_iter_init(struct fts_pos_iter *it, const uint8_t *raw, size_t len) {
  struct fts_cur c = {raw, len};
  uint32_t tl;
  const uint8_t *t;
  if (!fts_cur_varint(&c, &tl) || !fts_cur_bytes(&c, &t, tl))
    return FTS_ERR_CORRUPT;
  it->table = (struct fts_cur){t, tl};
  it->segs = c;
  return 0;
}

// fts_pos_iter_next gives the next document's segment (count first).
static inline int fts_pos_iter_next(struct fts_pos_iter *it, const uint8_t **seg, size_t *seg_len) {
  uint32_t sl;
  if (!fts_cur_varint(&it->table, &sl) || sl == 0 || !fts_cur_bytes(&it->segs, seg, sl))
    return FTS_ERR_CORRUPT;
  *seg_len = sl;
  return 0;
}

int fts_block_parse(struct fts_block *b, const uint8_t *v, size_t len);
// fts_block_positions gives the raw position stream of `b`: in place, or
// decompressed into `scratch` (grown as needed).
int fts_block_positions(const struct fts_block *b, struct fts_buf *scratch, const uint8_t **out,
                        size_t *out_len);
// fts_block_encode appends one block value to `out`: `n` documents `docs`,
// and their positions `pos` (`pos_len` bytes: the n segments one after the
// other, without the table, which the encoder adds).
int fts_block_encode(struct fts_buf *out, const uint16_t *docs, size_t n, const uint8_t *pos,
                     size_t pos_len);

// Counters of the encodings chosen, for the benchmark's report.
struct fts_encode_stats {
  uint64_t containers[3], container_bytes[3];
  uint64_t pos_varint, pos_zstd, pos_raw_bytes, pos_stored_bytes;
};
void fts_encode_stats_get(struct fts_encode_stats *out);

// ---- keys ----

static inline void fts_put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline uint32_t fts_get_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// fts_term_key writes account|field|kind|term|0 into `out` (FTS_KEY_MAX) and
// returns its length (the block number follows).
static inline size_t fts_term_key(uint8_t *out, uint32_t account, unsigned field, unsigned kind,
                                  const uint8_t *term, size_t term_len) {
  fts_put_be32(out, account);
  out[4] = (uint8_t)field;
  out[5] = (uint8_t)kind;
  memcpy(out + FTS_KEY_HEAD, term, term_len);
  out[FTS_KEY_HEAD + term_len] = 0;
  return FTS_KEY_HEAD + term_len + 1;
}

// ---- the index handle ----

// Read transactions an index keeps reset between searches (each holds one
// of max_readers reader slots, without pinning any snapshot).
#define FTS_TXN_POOL 4u

struct fts_index {
  MDB_env *env;
  MDB_dbi post; // posting blocks
  MDB_dbi live; // account|block -> container of live documents
  MDB_dbi del;  // account|block -> container of deleted, unpurged documents
  MDB_dbi docs; // account|doc -> per-field word counts
  MDB_dbi acct; // account -> counters
  fts_index_settings settings;
  fts_analyzer *query_analyzer; // guarded by query_lock
  pthread_mutex_t query_lock;
  // Reset read transactions kept for the next searches (guarded by
  // txn_lock): renewing one skips the reader-table lock and the allocation
  // that mdb_txn_begin costs every search.
  MDB_txn *txn_pool[FTS_TXN_POOL];
  size_t txn_pooled;
  pthread_mutex_t txn_lock;
};

int fts_mdb_error(int rc);

// fts_read_txn_begin starts a read transaction on `idx` in `*out` (a pooled
// one renewed when there is one); fts_read_txn_end ends it, keeping it reset
// in the pool while there is room. Returns 0 or an error of fts_mdb_error.
int fts_read_txn_begin(fts_index *idx, MDB_txn **out);
void fts_read_txn_end(fts_index *idx, MDB_txn *txn);

// Reads the live (or deleted) set of one block into `bitmap`; 0 if absent.
int fts_set_read(MDB_txn *txn, MDB_dbi dbi, uint32_t account, uint32_t block, uint64_t *bitmap,
                 bool *found);

// Per-account counters in the acct database.
struct fts_acct_counts {
  uint64_t num_docs;
  uint64_t num_deleted;
  uint64_t field_terms[FTS_MAX_FIELDS];
};
int fts_acct_read(MDB_txn *txn, const struct fts_index *idx, uint32_t account,
                  struct fts_acct_counts *out);

// The languages an account's fields were stemmed in: key account (4) ·
// FTS_LANG_KEY in the acct database, value sorted entries of field (1) and
// ISO 639 code (3, NUL-padded). Queries stem a word once per language of
// the fields they search, instead of guessing the language of a short query.
#define FTS_LANG_KEY 'L'
#define FTS_LANG_ENTRY 4
#define FTS_LANG_MAX 512 // (field, language) pairs kept per account
int fts_langs_read(MDB_txn *txn, const struct fts_index *idx, uint32_t account, uint8_t *out,
                   size_t *out_len);

// ---- parsed queries ----

enum fts_qnode_type {
  FTS_Q_AND,
  FTS_Q_OR,
  FTS_Q_NOT,
  FTS_Q_WORD,
  FTS_Q_PHRASE,
  FTS_Q_PREFIX,
};

struct fts_qnode {
  uint8_t type;
  uint16_t fields; // field mask given by field:, 0 = the search's default
  uint32_t text;   // offset of the text in fts_query.text (leaves)
  uint32_t len;    // its length
  uint32_t first;  // first child (AND/OR/NOT), UINT32_MAX if none
  uint32_t next;   // next sibling
};

struct fts_query {
  struct fts_qnode *nodes;
  size_t num_nodes;
  uint32_t root;
  char *text; // leaf texts, copied
};

#endif // FTS_INDEX_INTERNAL_H
