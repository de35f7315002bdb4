// index.c: the index file and its writers: opening the LMDB environment and
// its databases, collecting a batch of analysed documents in memory (a hash
// table of terms with their documents and positions), and committing a batch
// in one write transaction that merges the new postings into the stored
// blocks, keeps the per-block sets of live and deleted documents, and purges
// deleted documents' postings (merge).
#include "index_internal.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const field_names[FTS_MAX_FIELDS] = {
    "from",   "to",     "cc",      "bcc",     "subject", "body",    "attachment", "headers",
    "field8", "field9", "field10", "field11", "field12", "field13", "field14",    "field15",
};

const char *fts_field_name(unsigned field) {
  return field < FTS_MAX_FIELDS ? field_names[field] : NULL;
}

int fts_field_lookup(const char *name, size_t name_len) {
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    if (strlen(field_names[f]) == name_len && strncasecmp(field_names[f], name, name_len) == 0)
      return (int)f;
  return -1;
}

int fts_mdb_error(int rc) {
  switch (rc) {
  case 0:
    return 0;
  case MDB_MAP_FULL:
  case MDB_READERS_FULL:
  case MDB_TXN_FULL:
  case MDB_CURSOR_FULL:
  case MDB_PAGE_FULL:
  case MDB_DBS_FULL:
    return FTS_ERR_LIMIT;
  case MDB_CORRUPTED:
  case MDB_PAGE_NOTFOUND:
  case MDB_INVALID:
  case MDB_VERSION_MISMATCH:
  case MDB_INCOMPATIBLE:
  case MDB_BAD_DBI:
    return FTS_ERR_CORRUPT;
  case MDB_NOTFOUND:
    return FTS_ERR_NOTFOUND;
  default:
    return rc > 0 ? -rc : FTS_ERR_CORRUPT;
  }
}

// env_open opens the LMDB environment at `path`. LMDB makes "<path>-lock"
// before it reads the file: when the file then turns out to be missing, a
// directory or not an LMDB file, nobody can use that lock file, and a
// mistyped path or a query against the wrong file must not leave one behind.
// Other failures (a map too small, out of memory) keep it: the file may be a
// working index that another process has open.
static int env_open(MDB_env *env, const char *path, unsigned flags) {
  size_t n = strlen(path);
  char *lock = malloc(n + sizeof "-lock");
  if (lock == NULL)
    return ENOMEM;
  memcpy(lock, path, n);
  memcpy(lock + n, "-lock", sizeof "-lock");
  bool lock_was_there = access(lock, F_OK) == 0;
  int rc = mdb_env_open(env, path, flags, 0644);
  if (rc != 0 && !lock_was_there &&
      (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == ENOENT || rc == EISDIR ||
       rc == ENOTDIR))
    unlink(lock);
  free(lock);
  return rc;
}

int fts_index_open(fts_index **out, const char *path, const fts_index_settings *settings) {
  if (!out || !path)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  fts_index *idx = calloc(1, sizeof *idx);
  if (!idx)
    return -ENOMEM;
  if (settings)
    idx->settings = *settings;
  fts_index_settings *s = &idx->settings;
  if (!s->map_size)
    s->map_size = FTS_DEFAULT_MAP_SIZE;
  if (!s->max_readers)
    s->max_readers = FTS_DEFAULT_MAX_READERS;
  if (!s->max_batch_bytes)
    s->max_batch_bytes = FTS_DEFAULT_MAX_BATCH_BYTES;
  if (!s->max_prefix_terms)
    s->max_prefix_terms = FTS_DEFAULT_MAX_PREFIX_TERMS;
  int rc = fts_analyzer_new(&idx->query_analyzer, &s->analyzer);
  if (rc < 0) {
    free(idx);
    return rc;
  }
  pthread_mutex_init(&idx->query_lock, NULL);
  pthread_mutex_init(&idx->txn_lock, NULL);
  bool ro = s->flags & FTS_INDEX_READ_ONLY;
  unsigned flags = MDB_NOSUBDIR | MDB_NOTLS | (ro ? MDB_RDONLY : 0) |
                   (s->flags & FTS_INDEX_NO_SYNC ? MDB_NOSYNC : 0);
  // Read-only, LMDB would take an empty file for a new environment and fail
  // to write its header (EBADF): an empty file holds no index.
  struct stat fst;
  if (ro && stat(path, &fst) == 0 && S_ISREG(fst.st_mode) && fst.st_size == 0) {
    fts_index_close(idx);
    return FTS_ERR_CORRUPT;
  }
  MDB_txn *txn = NULL;
  if ((rc = mdb_env_create(&idx->env)) != 0 || (rc = mdb_env_set_maxdbs(idx->env, 8)) != 0 ||
      (rc = mdb_env_set_maxreaders(idx->env, s->max_readers)) != 0 ||
      (rc = mdb_env_set_mapsize(idx->env, (size_t)s->map_size)) != 0)
    goto fail;
  if ((rc = env_open(idx->env, path, flags)) != 0 ||
      (rc = mdb_txn_begin(idx->env, NULL, ro ? MDB_RDONLY : 0, &txn)) != 0)
    goto fail;
  // The databases are made together, in the first writable open. A file
  // that already holds any of them must hold them all: creating one that
  // is missing would turn a damaged index into an empty one that answers
  // every search with nothing.
  MDB_dbi main_db;
  MDB_stat st;
  if ((rc = mdb_dbi_open(txn, NULL, 0, &main_db)) != 0 || (rc = mdb_stat(txn, main_db, &st)) != 0)
    goto fail;
  unsigned create = !ro && st.ms_entries == 0 ? MDB_CREATE : 0;
  if ((rc = mdb_dbi_open(txn, "post", create, &idx->post)) != 0 ||
      (rc = mdb_dbi_open(txn, "live", create, &idx->live)) != 0 ||
      (rc = mdb_dbi_open(txn, "del", create, &idx->del)) != 0 ||
      (rc = mdb_dbi_open(txn, "docs", create, &idx->docs)) != 0 ||
      (rc = mdb_dbi_open(txn, "acct", create, &idx->acct)) != 0)
    goto fail;
  rc = mdb_txn_commit(txn);
  txn = NULL;
  if (rc != 0)
    goto fail;
  *out = idx;
  return 0;
fail:
  if (txn)
    mdb_txn_abort(txn);
  int err = rc == MDB_NOTFOUND ? FTS_ERR_CORRUPT : fts_mdb_error(rc);
  fts_index_close(idx);
  return err;
}

void fts_index_close(fts_index *idx) {
  if (!idx)
    return;
  for (size_t i = 0; i < idx->txn_pooled; i++)
    mdb_txn_abort(idx->txn_pool[i]);
  if (idx->env)
    mdb_env_close(idx->env);
  fts_analyzer_free(idx->query_analyzer);
  pthread_mutex_destroy(&idx->query_lock);
  pthread_mutex_destroy(&idx->txn_lock);
  free(idx);
}

int fts_read_txn_begin(fts_index *idx, MDB_txn **out) {
  MDB_txn *txn = NULL;
  pthread_mutex_lock(&idx->txn_lock);
  if (idx->txn_pooled)
    txn = idx->txn_pool[--idx->txn_pooled];
  pthread_mutex_unlock(&idx->txn_lock);
  if (txn) {
    if (mdb_txn_renew(txn) == 0) {
      *out = txn;
      return 0;
    }
    mdb_txn_abort(txn);
  }
  int rc = mdb_txn_begin(idx->env, NULL, MDB_RDONLY, out);
  if (rc != 0) {
    *out = NULL;
    return fts_mdb_error(rc);
  }
  return 0;
}

void fts_read_txn_end(fts_index *idx, MDB_txn *txn) {
  if (!txn)
    return;
  mdb_txn_reset(txn);
  pthread_mutex_lock(&idx->txn_lock);
  if (idx->txn_pooled < FTS_TXN_POOL) {
    idx->txn_pool[idx->txn_pooled++] = txn;
    txn = NULL;
  }
  pthread_mutex_unlock(&idx->txn_lock);
  if (txn)
    mdb_txn_abort(txn);
}

int64_t fts_index_file_size(fts_index *idx) {
  if (!idx)
    return FTS_ERR_INVALID_ARGUMENT;
  MDB_envinfo info;
  MDB_stat st;
  int rc = mdb_env_info(idx->env, &info);
  if (rc == 0)
    rc = mdb_env_stat(idx->env, &st);
  if (rc != 0)
    return fts_mdb_error(rc);
  return (int64_t)(info.me_last_pgno + 1) * st.ms_psize;
}

// ---- block sets (live and deleted documents of one block) ----

static void set_key(uint8_t key[6], uint32_t account, uint32_t block) {
  fts_put_be32(key, account);
  key[4] = (uint8_t)(block >> 8);
  key[5] = (uint8_t)block;
}

int fts_set_read(MDB_txn *txn, MDB_dbi dbi, uint32_t account, uint32_t block, uint64_t *bitmap,
                 bool *found) {
  uint8_t key[6];
  set_key(key, account, block);
  MDB_val k = {6, key}, v;
  memset(bitmap, 0, FTS_BITMAP_BYTES);
  *found = false;
  int rc = mdb_get(txn, dbi, &k, &v);
  if (rc == MDB_NOTFOUND)
    return 0;
  if (rc != 0)
    return fts_mdb_error(rc);
  struct fts_cur c = {v.mv_data, v.mv_size};
  uint32_t n;
  if (!fts_cur_varint(&c, &n))
    return FTS_ERR_CORRUPT;
  *found = true;
  return fts_docs_decode_or(c.p, c.len, bitmap, n);
}

static size_t bitmap_to_array(const uint64_t *bm, uint16_t *out) {
  size_t n = 0;
  for (size_t w = 0; w < FTS_BITMAP_WORDS; w++) {
    uint64_t x = bm[w];
    while (x) {
      out[n++] = (uint16_t)(w * 64 + (unsigned)__builtin_ctzll(x));
      x &= x - 1;
    }
  }
  return n;
}

static int set_write(MDB_txn *txn, MDB_dbi dbi, uint32_t account, uint32_t block,
                     const uint64_t *bitmap, uint16_t *scratch) {
  uint8_t key[6];
  set_key(key, account, block);
  MDB_val k = {6, key};
  size_t n = bitmap_to_array(bitmap, scratch);
  if (n == 0) {
    int rc = mdb_del(txn, dbi, &k, NULL);
    return rc == MDB_NOTFOUND ? 0 : fts_mdb_error(rc);
  }
  uint8_t *buf = malloc(5 + fts_docs_max_len(n));
  if (!buf)
    return -ENOMEM;
  size_t len = fts_varint_put(buf, (uint32_t)n);
  // Every search reads the live set of each block it touches: large sets
  // are kept as bitmaps, which decode by whole words.
  len += fts_docs_encode(buf + len, scratch, n, n >= 2048 ? FTS_CONTAINER_BITMAP : -1);
  MDB_val v = {len, buf};
  int rc = mdb_put(txn, dbi, &k, &v, 0);
  free(buf);
  return fts_mdb_error(rc);
}

int fts_acct_read(MDB_txn *txn, const struct fts_index *idx, uint32_t account,
                  struct fts_acct_counts *out) {
  uint8_t key[4];
  fts_put_be32(key, account);
  MDB_val k = {4, key}, v;
  memset(out, 0, sizeof *out);
  int rc = mdb_get(txn, idx->acct, &k, &v);
  if (rc == MDB_NOTFOUND)
    return 0;
  if (rc != 0)
    return fts_mdb_error(rc);
  if (v.mv_size != sizeof *out)
    return FTS_ERR_CORRUPT;
  memcpy(out, v.mv_data, sizeof *out);
  return 0;
}

static int acct_write(MDB_txn *txn, const struct fts_index *idx, uint32_t account,
                      const struct fts_acct_counts *c) {
  uint8_t key[4];
  fts_put_be32(key, account);
  MDB_val k = {4, key}, v = {sizeof *c, (void *)c};
  return fts_mdb_error(mdb_put(txn, idx->acct, &k, &v, 0));
}

// ---- batches ----

// A term of the batch: its key (account|field|kind|term|0) in the arena and
// its postings as records [doc, count, positions…] in document order of
// addition.
struct term {
  uint64_t hash;
  uint32_t key_off, key_len;
  uint32_t *rec;
  uint32_t len, cap;
  uint32_t last; // offset of the last record
};

enum { OP_DELETE = 1, OP_ADD = 2 };

struct op {
  uint32_t account, doc;
  uint8_t flags;   // OP_*: OP_DELETE alone, OP_ADD, or both (replace)
  uint8_t dropped; // added, then deleted within the batch
  uint32_t lengths[FTS_MAX_FIELDS];
};

struct lang_use {
  uint32_t account;
  uint8_t entry[FTS_LANG_ENTRY]; // field, code (NUL-padded)
};

struct fts_batch {
  fts_index *idx;
  fts_analyzer *analyzer;
  struct term *terms; // open addressing, power-of-two size
  size_t num_terms, terms_cap;
  struct fts_buf arena; // keys
  struct op *ops;
  size_t num_ops, ops_cap;
  uint32_t *op_slots; // open addressing over ops: index + 1, 0 = empty
  size_t op_slots_cap;
  size_t bytes;
  uint32_t *touched; // term slots that received the current document
  size_t num_touched, touched_cap;
  // The document being analysed.
  uint32_t cur_account, cur_doc, cur_field, cur_words, cur_base, cur_max;
  size_t num_dropped;
  int cur_error;
  // Languages the analyzer stemmed each (account, field) in, for the
  // account's language list (FTS_LANG_KEY); few per batch, kept in a list.
  struct lang_use *langs;
  size_t num_langs, langs_cap;
};

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  while (n >= 8) {
    uint64_t x;
    memcpy(&x, p, 8);
    h = (h ^ x) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  uint64_t x = 0;
  memcpy(&x, p, n);
  h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h;
}

static uint64_t hash_doc(uint32_t account, uint32_t doc) {
  uint64_t h = ((uint64_t)account << 32 | doc) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 31);
}

int fts_batch_new(fts_index *idx, fts_batch **out) {
  if (!out)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!idx || (idx->settings.flags & FTS_INDEX_READ_ONLY))
    return FTS_ERR_INVALID_ARGUMENT;
  fts_batch *b = calloc(1, sizeof *b);
  if (!b)
    return -ENOMEM;
  b->idx = idx;
  int rc = fts_analyzer_new(&b->analyzer, &idx->settings.analyzer);
  if (rc < 0) {
    free(b);
    return rc;
  }
  *out = b;
  return 0;
}

static void batch_clear(fts_batch *b) {
  for (size_t i = 0; i < b->terms_cap; i++)
    free(b->terms[i].rec);
  free(b->terms);
  b->terms = NULL;
  b->num_terms = b->terms_cap = 0;
  fts_buf_free(&b->arena);
  free(b->ops);
  b->ops = NULL;
  b->num_ops = b->ops_cap = 0;
  free(b->op_slots);
  b->op_slots = NULL;
  b->op_slots_cap = 0;
  b->bytes = 0;
  b->num_dropped = 0;
  free(b->langs);
  b->langs = NULL;
  b->num_langs = b->langs_cap = 0;
}

void fts_batch_free(fts_batch *b) {
  if (!b)
    return;
  batch_clear(b);
  free(b->touched);
  fts_analyzer_free(b->analyzer);
  free(b);
}

size_t fts_batch_num_docs(const fts_batch *b) {
  return b ? b->num_ops : 0;
}

size_t fts_batch_bytes(const fts_batch *b) {
  return b ? b->bytes : 0;
}

static struct op *op_find(fts_batch *b, uint32_t account, uint32_t doc) {
  if (!b->op_slots_cap)
    return NULL;
  size_t mask = b->op_slots_cap - 1;
  for (size_t i = hash_doc(account, doc) & mask;; i = (i + 1) & mask) {
    uint32_t s = b->op_slots[i];
    if (!s)
      return NULL;
    struct op *o = &b->ops[s - 1];
    if (o->account == account && o->doc == doc)
      return o;
  }
}

static int op_insert(fts_batch *b, uint32_t account, uint32_t doc, struct op **out) {
  if (b->num_ops == b->ops_cap) {
    size_t cap = b->ops_cap ? 2 * b->ops_cap : 256;
    struct op *ops = realloc(b->ops, cap * sizeof *ops);
    if (!ops)
      return -ENOMEM;
    b->ops = ops;
    b->ops_cap = cap;
  }
  if (2 * (b->num_ops + 1) > b->op_slots_cap) {
    size_t cap = b->op_slots_cap ? 2 * b->op_slots_cap : 512;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return -ENOMEM;
    for (size_t i = 0; i < b->num_ops; i++) {
      size_t j = hash_doc(b->ops[i].account, b->ops[i].doc) & (cap - 1);
      while (slots[j])
        j = (j + 1) & (cap - 1);
      slots[j] = (uint32_t)i + 1;
    }
    free(b->op_slots);
    b->op_slots = slots;
    b->op_slots_cap = cap;
  }
  struct op *o = &b->ops[b->num_ops];
  memset(o, 0, sizeof *o);
  o->account = account;
  o->doc = doc;
  size_t j = hash_doc(account, doc) & (b->op_slots_cap - 1);
  while (b->op_slots[j])
    j = (j + 1) & (b->op_slots_cap - 1);
  b->op_slots[j] = (uint32_t)++b->num_ops;
  b->bytes += sizeof *o + 8;
  *out = o;
  return 0;
}

static int terms_grow(fts_batch *b) {
  size_t cap = b->terms_cap ? 2 * b->terms_cap : 4096;
  struct term *t = calloc(cap, sizeof *t);
  if (!t)
    return -ENOMEM;
  for (size_t i = 0; i < b->terms_cap; i++) {
    if (!b->terms[i].key_len)
      continue;
    size_t j = b->terms[i].hash & (cap - 1);
    while (t[j].key_len)
      j = (j + 1) & (cap - 1);
    t[j] = b->terms[i];
  }
  // Slot numbers changed: the current document's touched list is rebuilt.
  b->num_touched = 0;
  for (size_t j = 0; j < cap; j++)
    if (t[j].len && t[j].rec[t[j].last] == b->cur_doc &&
        fts_get_be32(b->arena.p + t[j].key_off) == b->cur_account) {
      if (b->num_touched == b->touched_cap) {
        size_t tc = b->touched_cap ? 2 * b->touched_cap : 1024;
        uint32_t *tt = realloc(b->touched, tc * sizeof *tt);
        if (!tt) {
          free(t);
          return -ENOMEM;
        }
        b->touched = tt;
        b->touched_cap = tc;
      }
      b->touched[b->num_touched++] = (uint32_t)j;
    }
  free(b->terms);
  b->terms = t;
  b->terms_cap = cap;
  b->bytes += cap / 2 * sizeof *t;
  return 0;
}

static int add_term(fts_batch *b, const uint8_t *key, size_t key_len, uint32_t pos) {
  if (4 * (b->num_terms + 1) > 3 * b->terms_cap)
    FTS_TRY(terms_grow(b));
  uint64_t h = hash_bytes(key, key_len);
  size_t mask = b->terms_cap - 1, i = h & mask;
  struct term *t;
  for (;; i = (i + 1) & mask) {
    t = &b->terms[i];
    if (!t->key_len)
      break;
    if (t->hash == h && t->key_len == key_len && memcmp(b->arena.p + t->key_off, key, key_len) == 0)
      break;
  }
  if (!t->key_len) {
    if (b->arena.len > UINT32_MAX - key_len)
      return FTS_ERR_LIMIT;
    size_t off = b->arena.len;
    fts_buf_put(&b->arena, key, key_len);
    FTS_TRY(b->arena.err);
    t->hash = h;
    t->key_off = (uint32_t)off;
    t->key_len = (uint32_t)key_len;
    b->num_terms++;
    b->bytes += key_len + sizeof *t;
  }
  bool same_doc = t->len && t->rec[t->last] == b->cur_doc;
  if (same_doc && t->rec[t->len - 1] == pos && t->rec[t->last + 1] > 0)
    return 0; // the analyzer gave this term twice at one position
  if (t->cap - t->len < 3) {
    uint32_t cap = t->cap ? t->cap * 2 : 4;
    uint32_t *r = realloc(t->rec, cap * sizeof *r);
    if (!r)
      return -ENOMEM;
    b->bytes += (cap - t->cap) * sizeof *r;
    t->rec = r;
    t->cap = cap;
  }
  if (!same_doc) {
    if (b->num_touched == b->touched_cap) {
      size_t tc = b->touched_cap ? 2 * b->touched_cap : 1024;
      uint32_t *tt = realloc(b->touched, tc * sizeof *tt);
      if (!tt)
        return -ENOMEM;
      b->touched = tt;
      b->touched_cap = tc;
    }
    b->touched[b->num_touched++] = (uint32_t)i;
    t->last = t->len;
    t->rec[t->len++] = b->cur_doc;
    t->rec[t->len++] = 0;
  }
  t->rec[t->len++] = pos;
  t->rec[t->last + 1]++;
  return 0;
}

static int on_term(void *ctx, const fts_term *term) {
  fts_batch *b = ctx;
  if (term->len == 0 || term->len > FTS_MAX_TERM_LEN || memchr(term->bytes, 0, term->len))
    return 0;
  uint8_t key[FTS_KEY_MAX];
  size_t klen = fts_term_key(key, b->cur_account, b->cur_field, term->kind, term->bytes, term->len);
  if (term->kind == FTS_TERM_WORD)
    b->cur_words++;
  uint32_t pos = b->cur_base + term->position;
  if (pos < b->cur_base)
    pos = UINT32_MAX; // a field longer than 2^32 words: the tail shares one position
  if (pos > b->cur_max)
    b->cur_max = pos;
  int rc = add_term(b, key, klen, pos);
  if (rc == 0 && b->bytes > b->idx->settings.max_batch_bytes)
    rc = FTS_ERR_LIMIT;
  if (rc < 0)
    b->cur_error = rc;
  return rc;
}

// Drops the current document's records from every term it touched.
static void rollback_doc(fts_batch *b) {
  for (size_t i = 0; i < b->num_touched; i++) {
    struct term *t = &b->terms[b->touched[i]];
    if (t->len && t->rec[t->last] == b->cur_doc) {
      t->len = t->last;
      // The previous record's start is unknown; recompute it by a walk.
      uint32_t at = 0, prev = 0;
      while (at < t->len) {
        prev = at;
        at += 2 + t->rec[at + 1];
      }
      t->last = prev;
    }
  }
  b->num_touched = 0;
  // A failed growth leaves the arena as it was; its error was this
  // document's, and must not refuse the next one.
  b->arena.err = 0;
}

// Notes that `field` of `account` holds text stemmed as `code`.
static int lang_note(fts_batch *b, uint32_t account, uint32_t field, const char *code) {
  uint8_t e[FTS_LANG_ENTRY] = {(uint8_t)field};
  size_t cl = strlen(code);
  if (cl == 0 || cl >= FTS_LANG_ENTRY)
    return 0;
  memcpy(e + 1, code, cl);
  for (size_t i = b->num_langs; i-- > 0;)
    if (b->langs[i].account == account && memcmp(b->langs[i].entry, e, sizeof e) == 0)
      return 0;
  if (b->num_langs == b->langs_cap) {
    size_t cap = b->langs_cap ? 2 * b->langs_cap : 16;
    struct lang_use *p = realloc(b->langs, cap * sizeof *p);
    if (!p)
      return -ENOMEM;
    b->langs = p;
    b->langs_cap = cap;
  }
  b->langs[b->num_langs].account = account;
  memcpy(b->langs[b->num_langs].entry, e, sizeof e);
  b->num_langs++;
  return 0;
}

int fts_batch_add(fts_batch *b, uint32_t account, uint32_t doc, const fts_doc_field *fields,
                  size_t num_fields) {
  if (!b || (!fields && num_fields > 0))
    return FTS_ERR_INVALID_ARGUMENT;
  for (size_t i = 0; i < num_fields; i++)
    if (fields[i].field >= FTS_MAX_FIELDS || (!fields[i].text && fields[i].text_len > 0))
      return FTS_ERR_INVALID_ARGUMENT;
  struct op *o = op_find(b, account, doc);
  if (o && (o->flags & OP_ADD) && !o->dropped)
    return FTS_ERR_INVALID_ARGUMENT;
  if (o && o->dropped) // added, deleted, added again: the old records are dropped
    return FTS_ERR_INVALID_ARGUMENT;
  uint32_t lengths[FTS_MAX_FIELDS] = {0};
  // A field given twice continues after its earlier text, one position
  // apart, so that positions grow and phrases never span the two.
  uint32_t next_base[FTS_MAX_FIELDS] = {0};
  b->cur_account = account;
  b->cur_doc = doc;
  b->num_touched = 0;
  b->cur_error = 0;
  for (size_t i = 0; i < num_fields; i++) {
    b->cur_field = fields[i].field;
    b->cur_words = 0;
    b->cur_base = next_base[fields[i].field];
    b->cur_max = b->cur_base;
    int rc =
        fts_analyze(b->analyzer, fields[i].lang, fields[i].text, fields[i].text_len, on_term, b);
    if (rc != 0) {
      rollback_doc(b);
      return b->cur_error ? b->cur_error : rc < 0 ? rc : FTS_ERR_INVALID_ARGUMENT;
    }
    lengths[fields[i].field] += b->cur_words;
    if (b->cur_words) {
      int lrc = lang_note(b, account, fields[i].field, fts_analyzer_language(b->analyzer));
      if (lrc) {
        rollback_doc(b);
        return lrc;
      }
    }
    if (b->cur_words)
      next_base[fields[i].field] = b->cur_max < UINT32_MAX - 2 ? b->cur_max + 2 : UINT32_MAX;
  }
  if (!o) {
    // Its records are in, so a failure here must take them out again.
    int rc = op_insert(b, account, doc, &o);
    if (rc < 0) {
      rollback_doc(b);
      return rc;
    }
  }
  b->num_touched = 0;
  o->flags |= OP_ADD;
  memcpy(o->lengths, lengths, sizeof lengths);
  return 0;
}

int fts_batch_delete(fts_batch *b, uint32_t account, uint32_t doc) {
  if (!b)
    return FTS_ERR_INVALID_ARGUMENT;
  struct op *o = op_find(b, account, doc);
  if (!o)
    FTS_TRY(op_insert(b, account, doc, &o));
  if ((o->flags & OP_ADD) && !o->dropped) {
    o->dropped = 1;
    b->num_dropped++;
  }
  o->flags |= OP_DELETE;
  return 0;
}

// ---- commit ----

// The live and deleted sets of one block, loaded once per commit.
struct blockset {
  uint32_t account, block;
  bool live_dirty, del_dirty, purge;
  uint64_t live[FTS_BITMAP_WORDS];
  uint64_t del[FTS_BITMAP_WORDS];
};

struct commit {
  fts_batch *b;
  fts_index *idx;
  MDB_txn *txn;
  struct blockset **sets;
  size_t num_sets, sets_cap, last_set;
  uint16_t *scratch16; // FTS_BLOCK_DOCS offsets
  struct fts_buf val, pos, pos_scratch;
  // Accounts touched, with their counters.
  struct acct_entry {
    uint32_t account;
    struct fts_acct_counts c;
  } * accts;
  size_t num_accts;
};

static int get_set(struct commit *c, uint32_t account, uint32_t block, struct blockset **out) {
  if (c->last_set < c->num_sets && c->sets[c->last_set]->account == account &&
      c->sets[c->last_set]->block == block) {
    *out = c->sets[c->last_set];
    return 0;
  }
  for (size_t i = 0; i < c->num_sets; i++)
    if (c->sets[i]->account == account && c->sets[i]->block == block) {
      c->last_set = i;
      *out = c->sets[i];
      return 0;
    }
  if (c->num_sets == c->sets_cap) {
    size_t cap = c->sets_cap ? 2 * c->sets_cap : 16;
    struct blockset **s = realloc(c->sets, cap * sizeof *s);
    if (!s)
      return -ENOMEM;
    c->sets = s;
    c->sets_cap = cap;
  }
  struct blockset *s = calloc(1, sizeof *s);
  if (!s)
    return -ENOMEM;
  c->sets[c->num_sets] = s;
  c->last_set = c->num_sets++;
  s->account = account;
  s->block = block;
  bool found;
  FTS_TRY(fts_set_read(c->txn, c->idx->live, account, block, s->live, &found));
  FTS_TRY(fts_set_read(c->txn, c->idx->del, account, block, s->del, &found));
  *out = s;
  return 0;
}

static int get_acct(struct commit *c, uint32_t account, struct fts_acct_counts **out) {
  for (size_t i = 0; i < c->num_accts; i++)
    if (c->accts[i].account == account) {
      *out = &c->accts[i].c;
      return 0;
    }
  struct acct_entry *a = realloc(c->accts, (c->num_accts + 1) * sizeof *a);
  if (!a)
    return -ENOMEM;
  c->accts = a;
  a[c->num_accts].account = account;
  FTS_TRY(fts_acct_read(c->txn, c->idx, account, &a[c->num_accts].c));
  *out = &a[c->num_accts++].c;
  return 0;
}

static void doc_key(uint8_t key[8], uint32_t account, uint32_t doc) {
  fts_put_be32(key, account);
  fts_put_be32(key + 4, doc);
}

// Removes a live document: from the live set, into the deleted set, its
// lengths out of the account's counters.
static int unindex_doc(struct commit *c, uint32_t account, uint32_t doc) {
  struct blockset *s;
  FTS_TRY(get_set(c, account, doc / FTS_BLOCK_DOCS, &s));
  uint32_t off = doc % FTS_BLOCK_DOCS;
  uint64_t bit = 1ull << (off % 64);
  if (!(s->live[off / 64] & bit))
    return 0;
  s->live[off / 64] &= ~bit;
  s->del[off / 64] |= bit;
  s->live_dirty = s->del_dirty = true;
  struct fts_acct_counts *a;
  FTS_TRY(get_acct(c, account, &a));
  a->num_docs--;
  a->num_deleted++;
  uint8_t key[8];
  doc_key(key, account, doc);
  MDB_val k = {8, key}, v;
  int rc = mdb_get(c->txn, c->idx->docs, &k, &v);
  if (rc == 0) {
    struct fts_cur cur = {v.mv_data, v.mv_size};
    uint32_t f, n;
    while (cur.len) {
      if (!fts_cur_varint(&cur, &f) || !fts_cur_varint(&cur, &n) || f >= FTS_MAX_FIELDS)
        return FTS_ERR_CORRUPT;
      a->field_terms[f] -= a->field_terms[f] >= n ? n : a->field_terms[f];
    }
    rc = mdb_del(c->txn, c->idx->docs, &k, NULL);
  }
  return rc == MDB_NOTFOUND ? 0 : fts_mdb_error(rc);
}

// Rewrites every posting block of the sets marked `purge` without the
// documents in their deleted sets, walking the account's postings once.
static int purge_blocks(struct commit *c, uint32_t account, int *num_rewritten) {
  MDB_cursor *cur;
  int rc = mdb_cursor_open(c->txn, c->idx->post, &cur);
  if (rc != 0)
    return fts_mdb_error(rc);
  uint8_t prefix[4];
  fts_put_be32(prefix, account);
  MDB_val k = {4, prefix}, v;
  int err = 0;
  uint16_t *docs = c->scratch16;
  uint16_t *kept = malloc(FTS_BLOCK_DOCS * sizeof *kept);
  uint64_t *purge_map = calloc(FTS_BITMAP_WORDS, sizeof *purge_map);
  for (size_t i = 0; purge_map && i < c->num_sets; i++)
    if (c->sets[i]->account == account && c->sets[i]->purge)
      purge_map[c->sets[i]->block / 64] |= 1ull << (c->sets[i]->block % 64);
  if (!kept || !purge_map) {
    free(kept);
    free(purge_map);
    mdb_cursor_close(cur);
    return -ENOMEM;
  }
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size < FTS_KEY_HEAD + 3 || memcmp(k.mv_data, prefix, 4) != 0)
      break;
    if (k.mv_size > FTS_KEY_MAX) {
      err = FTS_ERR_CORRUPT;
      break;
    }
    const uint8_t *kp = k.mv_data;
    uint32_t block = (uint32_t)kp[k.mv_size - 2] << 8 | kp[k.mv_size - 1];
    if (!(purge_map[block / 64] & (1ull << (block % 64))))
      continue;
    struct blockset *s = NULL;
    for (size_t i = 0; i < c->num_sets && !s; i++)
      if (c->sets[i]->account == account && c->sets[i]->block == block && c->sets[i]->purge)
        s = c->sets[i];
    if (!s)
      continue;
    struct fts_block blk;
    const uint8_t *pos;
    size_t pos_len;
    if ((err = fts_block_parse(&blk, v.mv_data, v.mv_size)) < 0 ||
        (err = fts_docs_decode(blk.docs, blk.docs_len, docs, blk.n)) < 0 ||
        (err = fts_block_positions(&blk, &c->pos_scratch, &pos, &pos_len)) < 0)
      break;
    struct fts_pos_iter pc;
    if ((err = fts_pos_iter_init(&pc, pos, pos_len)) < 0)
      break;
    size_t nk = 0;
    c->pos.len = 0;
    for (uint32_t i = 0; i < blk.n; i++) {
      const uint8_t *seg;
      size_t seg_len;
      if ((err = fts_pos_iter_next(&pc, &seg, &seg_len)) < 0)
        break;
      if (s->del[docs[i] / 64] & (1ull << (docs[i] % 64)))
        continue;
      kept[nk++] = docs[i];
      fts_buf_put(&c->pos, seg, seg_len);
    }
    if (err < 0 || (err = c->pos.err) < 0)
      break;
    if (nk == blk.n)
      continue;
    (*num_rewritten)++;
    if (nk == 0) {
      rc = mdb_cursor_del(cur, 0);
    } else {
      c->val.len = 0;
      if ((err = fts_block_encode(&c->val, kept, nk, c->pos.p, c->pos.len)) < 0)
        break;
      // The key points into the page that the put rewrites: copy it.
      uint8_t key[FTS_KEY_MAX];
      memcpy(key, k.mv_data, k.mv_size);
      MDB_val kk = {k.mv_size, key}, nv = {c->val.len, c->val.p};
      rc = mdb_cursor_put(cur, &kk, &nv, MDB_CURRENT);
    }
    if (rc != 0) {
      err = fts_mdb_error(rc);
      break;
    }
  }
  if (!err && rc != 0 && rc != MDB_NOTFOUND)
    err = fts_mdb_error(rc);
  free(kept);
  free(purge_map);
  mdb_cursor_close(cur);
  if (err < 0)
    return err;
  struct fts_acct_counts *a;
  FTS_TRY(get_acct(c, account, &a));
  for (size_t i = 0; i < c->num_sets; i++) {
    struct blockset *s = c->sets[i];
    if (s->account != account || !s->purge)
      continue;
    for (size_t w = 0; w < FTS_BITMAP_WORDS; w++) {
      uint64_t n = (uint64_t)fts_popcount64(s->del[w]);
      a->num_deleted -= a->num_deleted >= n ? n : a->num_deleted;
      s->del[w] = 0;
    }
    s->del_dirty = true;
    s->purge = false;
  }
  return 0;
}

static int cmp_term_ptr(const void *x, const void *y, void *arena) {
  const struct term *a = *(const struct term *const *)x, *b = *(const struct term *const *)y;
  const uint8_t *base = arena;
  size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
  int r = memcmp(base + a->key_off, base + b->key_off, n);
  return r ? r : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

struct rec_ref {
  uint32_t doc, off;
};

static int cmp_rec_ref(const void *x, const void *y) {
  const struct rec_ref *a = x, *b = y;
  return (a->doc > b->doc) - (a->doc < b->doc);
}

static void pos_encode(struct fts_buf *out, const uint32_t *rec) {
  uint32_t count = rec[1];
  fts_buf_varint(out, count);
  uint32_t prev = 0;
  for (uint32_t i = 0; i < count; i++) {
    fts_buf_varint(out, rec[2 + i] - prev);
    prev = rec[2 + i];
  }
}

// Merges the new records `refs[0..n)` (one block, sorted by doc) of term `t`
// into the stored block under `key`.
static int merge_block(struct commit *c, const struct term *t, uint8_t *key, size_t key_len,
                       const struct rec_ref *refs, size_t n) {
  MDB_val k = {key_len, key}, v;
  int rc = mdb_get(c->txn, c->idx->post, &k, &v);
  struct fts_block blk = {0};
  const uint8_t *old_pos = NULL;
  size_t old_pos_len = 0;
  uint16_t *old = c->scratch16;
  if (rc == 0) {
    FTS_TRY(fts_block_parse(&blk, v.mv_data, v.mv_size));
    FTS_TRY(fts_docs_decode(blk.docs, blk.docs_len, old, blk.n));
    FTS_TRY(fts_block_positions(&blk, &c->pos_scratch, &old_pos, &old_pos_len));
  } else if (rc != MDB_NOTFOUND) {
    return fts_mdb_error(rc);
  }
  uint16_t *merged = malloc(((size_t)blk.n + n) * sizeof *merged);
  if (!merged)
    return -ENOMEM;
  c->pos.len = 0;
  struct fts_pos_iter pc = {{NULL, 0}, {NULL, 0}};
  size_t i = 0, j = 0, m = 0;
  int err = blk.n ? fts_pos_iter_init(&pc, old_pos, old_pos_len) : 0;
  if (err) {
    free(merged);
    return err;
  }
  while (i < blk.n || j < n) {
    uint32_t od = i < blk.n ? old[i] : UINT32_MAX;
    uint32_t nd = j < n ? refs[j].doc % FTS_BLOCK_DOCS : UINT32_MAX;
    if (od < nd) {
      const uint8_t *seg;
      size_t seg_len;
      if ((err = fts_pos_iter_next(&pc, &seg, &seg_len)) < 0)
        break;
      fts_buf_put(&c->pos, seg, seg_len);
      merged[m++] = (uint16_t)od;
      i++;
    } else {
      if (od == nd) { // stale (purged before, so only after corruption): the new text wins
        const uint8_t *seg;
        size_t seg_len;
        if ((err = fts_pos_iter_next(&pc, &seg, &seg_len)) < 0)
          break;
        i++;
      }
      pos_encode(&c->pos, t->rec + refs[j].off);
      merged[m++] = (uint16_t)nd;
      j++;
    }
  }
  if (!err)
    err = c->pos.err;
  if (!err) {
    c->val.len = 0;
    err = fts_block_encode(&c->val, merged, m, c->pos.p, c->pos.len);
  }
  free(merged);
  if (err < 0)
    return err;
  MDB_val nv = {c->val.len, c->val.p};
  return fts_mdb_error(mdb_put(c->txn, c->idx->post, &k, &nv, 0));
}

static int langs_merge(struct commit *c, const fts_batch *b, uint32_t account);

static int commit_run(struct commit *c) {
  fts_batch *b = c->b;
  // 1. Deletions and replacements take documents out of the live sets.
  for (size_t i = 0; i < b->num_ops; i++)
    FTS_TRY(unindex_doc(c, b->ops[i].account, b->ops[i].doc));
  // 2. Blocks about to receive a document whose old postings remain are
  //    purged first, so that old and new text never mix.
  uint32_t purge_accts[64];
  size_t num_purge_accts = 0;
  bool many_accts = false;
  for (size_t i = 0; i < b->num_ops; i++) {
    struct op *o = &b->ops[i];
    if (!(o->flags & OP_ADD) || o->dropped)
      continue;
    struct blockset *s;
    FTS_TRY(get_set(c, o->account, o->doc / FTS_BLOCK_DOCS, &s));
    uint32_t off = o->doc % FTS_BLOCK_DOCS;
    if (!(s->del[off / 64] & (1ull << (off % 64))) || s->purge)
      continue;
    s->purge = true;
    size_t k = 0;
    while (k < num_purge_accts && purge_accts[k] != o->account)
      k++;
    if (k == num_purge_accts) {
      if (num_purge_accts < 64)
        purge_accts[num_purge_accts++] = o->account;
      else
        many_accts = true;
    }
  }
  if (many_accts) // rare: more accounts than the list holds; walk per set
    for (size_t i = 0; i < c->num_sets; i++)
      if (c->sets[i]->purge) {
        int n = 0;
        FTS_TRY(purge_blocks(c, c->sets[i]->account, &n));
      }
  for (size_t k = 0; k < num_purge_accts; k++) {
    int n = 0;
    FTS_TRY(purge_blocks(c, purge_accts[k], &n));
  }
  // 3. The new postings, term by term in key order, block by block.
  struct term **sorted = malloc((b->num_terms + 1) * sizeof *sorted);
  if (!sorted)
    return -ENOMEM;
  size_t nt = 0;
  for (size_t i = 0; i < b->terms_cap; i++)
    if (b->terms[i].len)
      sorted[nt++] = &b->terms[i];
  qsort_r(sorted, nt, sizeof *sorted, cmp_term_ptr, b->arena.p);
  struct rec_ref *refs = NULL;
  size_t refs_cap = 0;
  int err = 0;
  for (size_t ti = 0; ti < nt && !err; ti++) {
    struct term *t = sorted[ti];
    size_t n = 0;
    bool ordered = true;
    for (uint32_t at = 0; at < t->len; at += 2 + t->rec[at + 1]) {
      if (n == refs_cap) {
        size_t cap = refs_cap ? 2 * refs_cap : 1024;
        struct rec_ref *r = realloc(refs, cap * sizeof *r);
        if (!r) {
          err = -ENOMEM;
          break;
        }
        refs = r;
        refs_cap = cap;
      }
      uint32_t account = fts_get_be32(b->arena.p + t->key_off);
      if (b->num_dropped) {
        struct op *o = op_find(b, account, t->rec[at]);
        if (o && o->dropped)
          continue;
      }
      refs[n].doc = t->rec[at];
      refs[n].off = at;
      if (n && refs[n - 1].doc > refs[n].doc)
        ordered = false;
      n++;
    }
    if (err)
      break;
    if (!ordered)
      qsort(refs, n, sizeof *refs, cmp_rec_ref);
    uint8_t key[FTS_KEY_MAX];
    memcpy(key, b->arena.p + t->key_off, t->key_len);
    for (size_t s = 0; s < n && !err;) {
      uint32_t block = refs[s].doc / FTS_BLOCK_DOCS;
      size_t e = s;
      while (e < n && refs[e].doc / FTS_BLOCK_DOCS == block)
        e++;
      key[t->key_len] = (uint8_t)(block >> 8);
      key[t->key_len + 1] = (uint8_t)block;
      err = merge_block(c, t, key, t->key_len + 2, refs + s, e - s);
      s = e;
    }
  }
  free(refs);
  free(sorted);
  FTS_TRY(err);
  // 4. The added documents become live, with their lengths.
  for (size_t i = 0; i < b->num_ops; i++) {
    struct op *o = &b->ops[i];
    if (!(o->flags & OP_ADD) || o->dropped)
      continue;
    struct blockset *s;
    FTS_TRY(get_set(c, o->account, o->doc / FTS_BLOCK_DOCS, &s));
    uint32_t off = o->doc % FTS_BLOCK_DOCS;
    s->live[off / 64] |= 1ull << (off % 64);
    s->live_dirty = true;
    struct fts_acct_counts *a;
    FTS_TRY(get_acct(c, o->account, &a));
    a->num_docs++;
    uint8_t val[FTS_MAX_FIELDS * 6];
    size_t vl = 0;
    for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
      if (o->lengths[f]) {
        vl += fts_varint_put(val + vl, f);
        vl += fts_varint_put(val + vl, o->lengths[f]);
        a->field_terms[f] += o->lengths[f];
      }
    uint8_t key[8];
    doc_key(key, o->account, o->doc);
    MDB_val k = {8, key}, v = {vl, val};
    FTS_TRY(fts_mdb_error(mdb_put(c->txn, c->idx->docs, &k, &v, 0)));
  }
  // 5. Sets and counters.
  for (size_t i = 0; i < c->num_sets; i++) {
    struct blockset *s = c->sets[i];
    if (s->live_dirty)
      FTS_TRY(set_write(c->txn, c->idx->live, s->account, s->block, s->live, c->scratch16));
    if (s->del_dirty)
      FTS_TRY(set_write(c->txn, c->idx->del, s->account, s->block, s->del, c->scratch16));
  }
  for (size_t i = 0; i < c->num_accts; i++)
    FTS_TRY(acct_write(c->txn, c->idx, c->accts[i].account, &c->accts[i].c));
  // 6. The languages of the accounts' fields, merged into their lists.
  for (size_t i = 0; i < b->num_langs; i++) {
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
      first = b->langs[j].account != b->langs[i].account;
    if (first)
      FTS_TRY(langs_merge(c, b, b->langs[i].account));
  }
  return 0;
}

static int cmp_lang_entry(const void *a, const void *b) {
  return memcmp(a, b, FTS_LANG_ENTRY);
}

int fts_langs_read(MDB_txn *txn, const fts_index *idx, uint32_t account, uint8_t *out,
                   size_t *out_len) {
  uint8_t key[5];
  fts_put_be32(key, account);
  key[4] = FTS_LANG_KEY;
  MDB_val k = {5, key}, v;
  *out_len = 0;
  int rc = mdb_get(txn, idx->acct, &k, &v);
  if (rc == MDB_NOTFOUND)
    return 0;
  if (rc != 0)
    return fts_mdb_error(rc);
  if (v.mv_size % FTS_LANG_ENTRY != 0 || v.mv_size > FTS_LANG_MAX * FTS_LANG_ENTRY)
    return FTS_ERR_CORRUPT;
  memcpy(out, v.mv_data, v.mv_size);
  *out_len = v.mv_size / FTS_LANG_ENTRY;
  return 0;
}

// Adds the batch's (field, language) pairs of `account` to its stored list.
static int langs_merge(struct commit *c, const fts_batch *b, uint32_t account) {
  _Static_assert(FTS_LANG_MAX * FTS_LANG_ENTRY <= 4096, "language list size");
  uint8_t list[FTS_LANG_MAX * FTS_LANG_ENTRY];
  size_t n;
  FTS_TRY(fts_langs_read(c->txn, c->idx, account, list, &n));
  size_t old_n = n;
  for (size_t i = 0; i < b->num_langs && n < FTS_LANG_MAX; i++) {
    if (b->langs[i].account != account)
      continue;
    bool have = false;
    for (size_t j = 0; j < n && !have; j++)
      have = memcmp(list + j * FTS_LANG_ENTRY, b->langs[i].entry, FTS_LANG_ENTRY) == 0;
    if (!have)
      memcpy(list + n++ * FTS_LANG_ENTRY, b->langs[i].entry, FTS_LANG_ENTRY);
  }
  if (n == old_n)
    return 0;
  qsort(list, n, FTS_LANG_ENTRY, cmp_lang_entry);
  uint8_t key[5];
  fts_put_be32(key, account);
  key[4] = FTS_LANG_KEY;
  MDB_val k = {5, key}, v = {n * FTS_LANG_ENTRY, list};
  return fts_mdb_error(mdb_put(c->txn, c->idx->acct, &k, &v, 0));
}

static void commit_cleanup(struct commit *c) {
  for (size_t i = 0; i < c->num_sets; i++)
    free(c->sets[i]);
  free(c->sets);
  free(c->accts);
  free(c->scratch16);
  fts_buf_free(&c->val);
  fts_buf_free(&c->pos);
  fts_buf_free(&c->pos_scratch);
}

static int commit_begin(struct commit *c, fts_index *idx) {
  memset(c, 0, sizeof *c);
  c->idx = idx;
  c->scratch16 = malloc(FTS_BLOCK_DOCS * sizeof *c->scratch16);
  if (!c->scratch16)
    return -ENOMEM;
  int rc = mdb_txn_begin(idx->env, NULL, 0, &c->txn);
  return fts_mdb_error(rc);
}

static int commit_end(struct commit *c, int err) {
  if (c->txn) {
    if (err < 0)
      mdb_txn_abort(c->txn);
    else {
      int rc = mdb_txn_commit(c->txn);
      if (rc != 0)
        err = fts_mdb_error(rc);
    }
  }
  commit_cleanup(c);
  return err;
}

int fts_batch_commit(fts_batch *b) {
  if (!b)
    return FTS_ERR_INVALID_ARGUMENT;
  if (b->num_ops == 0) {
    batch_clear(b); // what refused documents' analysis left behind
    return 0;
  }
  struct commit c;
  int err = commit_begin(&c, b->idx);
  c.b = b;
  if (err == 0)
    err = commit_run(&c);
  err = commit_end(&c, err);
  if (err == 0)
    batch_clear(b);
  return err;
}

int fts_index_merge(fts_index *idx, uint32_t account) {
  if (!idx || (idx->settings.flags & FTS_INDEX_READ_ONLY))
    return FTS_ERR_INVALID_ARGUMENT;
  struct commit c;
  int err = commit_begin(&c, idx);
  int rewritten = 0;
  if (err == 0) {
    // Every block with a deleted set is purged.
    MDB_cursor *cur = NULL;
    int rc = mdb_cursor_open(c.txn, idx->del, &cur);
    if (rc != 0)
      err = fts_mdb_error(rc);
    uint8_t prefix[4];
    fts_put_be32(prefix, account);
    MDB_val k = {4, prefix}, v;
    for (rc = err ? MDB_NOTFOUND : mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && err == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      if (k.mv_size != 6 || memcmp(k.mv_data, prefix, 4) != 0)
        break;
      const uint8_t *kp = k.mv_data;
      struct blockset *s;
      err = get_set(&c, account, (uint32_t)kp[4] << 8 | kp[5], &s);
      if (err == 0)
        s->purge = true;
    }
    if (err == 0 && rc != 0 && rc != MDB_NOTFOUND)
      err = fts_mdb_error(rc);
    if (cur)
      mdb_cursor_close(cur);
    if (err == 0 && c.num_sets > 0)
      err = purge_blocks(&c, account, &rewritten);
    for (size_t i = 0; err == 0 && i < c.num_sets; i++)
      if (c.sets[i]->del_dirty)
        err = set_write(c.txn, idx->del, account, c.sets[i]->block, c.sets[i]->del, c.scratch16);
    for (size_t i = 0; err == 0 && i < c.num_accts; i++)
      err = acct_write(c.txn, idx, c.accts[i].account, &c.accts[i].c);
  }
  err = commit_end(&c, err);
  return err < 0 ? err : rewritten;
}

int fts_index_account_stats(fts_index *idx, fts_index_stats *out, uint32_t account) {
  if (!idx || !out)
    return FTS_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  // The handle's pooled read transaction: a new one would take another
  // reader slot while the pooled one keeps its own (max_readers).
  MDB_txn *txn;
  FTS_TRY(fts_read_txn_begin(idx, &txn));
  int rc;
  struct fts_acct_counts a;
  int err = fts_acct_read(txn, idx, account, &a);
  if (err == 0) {
    out->num_docs = a.num_docs;
    out->num_deleted = a.num_deleted;
    memcpy(out->field_terms, a.field_terms, sizeof a.field_terms);
  }
  uint8_t prefix[4];
  fts_put_be32(prefix, account);
  MDB_dbi dbis[2] = {idx->live, idx->post};
  for (int d = 0; d < 2 && err == 0; d++) {
    MDB_cursor *cur;
    if ((rc = mdb_cursor_open(txn, dbis[d], &cur)) != 0) {
      err = fts_mdb_error(rc);
      break;
    }
    MDB_val k = {4, prefix}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      if (k.mv_size < 4 || memcmp(k.mv_data, prefix, 4) != 0)
        break;
      if (d == 0) {
        out->num_blocks++;
      } else {
        out->num_postings++;
        out->posting_bytes += v.mv_size;
      }
    }
    if (rc != 0 && rc != MDB_NOTFOUND)
      err = fts_mdb_error(rc);
    mdb_cursor_close(cur);
  }
  fts_read_txn_end(idx, txn);
  return err;
}

int fts_index_docs_list(fts_index *idx, uint32_t *out, size_t out_cap, size_t *out_len,
                        uint32_t account, uint32_t first_doc) {
  if (!idx || !out_len || (!out && out_cap))
    return FTS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *txn;
  FTS_TRY(fts_read_txn_begin(idx, &txn)); // pooled, as in fts_index_account_stats
  MDB_cursor *cur;
  int rc = mdb_cursor_open(txn, idx->docs, &cur);
  if (rc != 0) {
    fts_read_txn_end(idx, txn);
    return fts_mdb_error(rc);
  }
  // The docs database holds one key per live document, in document order
  // within the account: a range walk pages through them without decoding
  // any live set.
  uint8_t start[8];
  fts_put_be32(start, account);
  fts_put_be32(start + 4, first_doc);
  MDB_val k = {8, start}, v;
  size_t n = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && n < out_cap;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size != 8 || fts_get_be32(k.mv_data) != account)
      break;
    out[n++] = fts_get_be32((const uint8_t *)k.mv_data + 4);
  }
  int err = rc == 0 || rc == MDB_NOTFOUND ? 0 : fts_mdb_error(rc);
  mdb_cursor_close(cur);
  fts_read_txn_end(idx, txn);
  *out_len = n;
  return err;
}
