// store.c: the LMDB-backed store itself: the environment and its DBIs, the
// write transactions (retried after growing the map on MDB_MAP_FULL, and
// kept within the room each kind of write may take), the typed loads and
// stores of FORMAT.md's records, and the operations on accounts, mailboxes
// and messages that have no file of their own (deliver.c, verify.c,
// blob.c and the feature files keep the rest).
#include "blob.h"
#include "changelog.h"
#include "index.h"
#include "mailstore.h"
#include "meta.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

int lmdb_err(int rc) {
  switch (rc) {
  case 0:
    return 0;
  case MDB_NOTFOUND:
    return MS_ERR_NOTFOUND;
  case MDB_MAP_FULL:
    return ERR_MAP_FULL;
  case MDB_CORRUPTED:
  case MDB_PAGE_NOTFOUND:
  case MDB_INVALID:
  case MDB_VERSION_MISMATCH:
  case MDB_BAD_VALSIZE:
  case MDB_INCOMPATIBLE:
    return MS_ERR_CORRUPT;
  default:
    return rc > 0 ? -rc : -EIO;
  }
}

static uint64_t map_size(ms_store *s) {
  MDB_envinfo info;
  mdb_env_info(s->env, &info);
  return info.me_mapsize;
}

// The map's reserve: its last sixteenth, at least RESERVE_MIN (at most half
// the map) and at most RESERVE_MAX, is kept from the writes that add mail.
// LMDB copies every page a transaction changes, so without it an expunge in
// a map that deliveries filled to the last page would fail with
// MDB_MAP_FULL too, and the store could never be emptied; file systems keep
// blocks back for the same reason. Writes that change mail without adding
// any (ROOM_CHANGE) may use the first half of the reserve, so that moves
// and flag changes work in a full store but cannot take the second half,
// which is left to the writes that remove mail (ROOM_REMOVE). RESERVE_MIN
// covers the pages a one-message expunge copies: the path from root to leaf
// in each table it changes.
#define RESERVE_MIN ((uint64_t)512 << 10)
#define RESERVE_MAX ((uint64_t)1 << 30)

// write_limit is the number of bytes of the map that writes of class `room`
// may fill, rounded down to a 4 KiB page.
static uint64_t write_limit(const ms_store *s, enum write_room room) {
  uint64_t max = s->set.max_map_size;
  uint64_t reserve = max / 16;
  if (reserve < RESERVE_MIN)
    reserve = RESERVE_MIN < max / 2 ? RESERVE_MIN : max / 2;
  if (reserve > RESERVE_MAX)
    reserve = RESERVE_MAX;
  uint64_t keep = room == ROOM_ADD ? reserve : room == ROOM_CHANGE ? reserve / 2 : 0;
  return (max - keep) & ~(uint64_t)4095;
}

// free_pages counts the pages on LMDB's free list, which a write reuses
// before it takes pages past the last one in use. A read transaction: LMDB
// lets only those read the free list.
static int free_pages(ms_store *s, uint64_t *out) {
  MDB_txn *t;
  int rc = txn_begin(s, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  MDB_cursor *c;
  *out = 0;
  if ((rc = lmdb_err(mdb_cursor_open(t, 0, &c))) == 0) {
    MDB_val k, v;
    int r;
    while ((r = mdb_cursor_get(c, &k, &v, MDB_NEXT)) == 0) {
      size_t n; // each record is a page list led by its length
      if (v.mv_size < sizeof n) {
        r = MDB_CORRUPTED;
        break;
      }
      memcpy(&n, v.mv_data, sizeof n);
      *out += n;
    }
    if (r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(c);
  }
  txn_abort(s, t);
  return rc;
}

// room_check keeps a write of class `room`, which may fill only *bound_out
// bytes of the map, within them, and on a full disk (tail.c) off the end of
// the written tail, before it starts; *bound_out becomes the lower of the
// two, which the map must not grow past either (grow). While the pages in use end below that
// bound, the map is the bound (grow stops at the limit). Past it, where a
// write further up the classes took the map (or an earlier write of this
// class ended), the map is brought back to the bound, or to the pages in
// use if more, since LMDB cannot map less, and the write may go ahead only
// while the pages in use less the free ones fit the bound: it then reuses
// free pages. It can still overrun by its own size, once. The common case,
// pages in use within the bound, costs one mdb_env_info.
static int room_check(ms_store *s, enum write_room room, uint64_t *bound_out) {
  MDB_envinfo info;
  if (mdb_env_info(s->env, &info) != 0)
    return 0;
  uint64_t bound = *bound_out;
  uint64_t disk_end = atomic_load_explicit(&s->tail_full_end, memory_order_relaxed);
  if (disk_end) {
    uint64_t keep = room == ROOM_ADD ? TAIL_KEEP_ADD : TAIL_KEEP_CHANGE;
    uint64_t disk_bound = disk_end > keep ? disk_end - keep : 0;
    bound = disk_bound < bound ? disk_bound : bound;
  }
  *bound_out = bound;
  uint64_t in_use = ((uint64_t)info.me_last_pgno + 1) * s->psize;
  if (info.me_mapsize > bound) {
    uint64_t target = bound > in_use ? bound : in_use;
    pthread_rwlock_wrlock(&s->maplock);
    if (map_size(s) > target)
      mdb_env_set_mapsize(s->env, (size_t)target);
    pthread_rwlock_unlock(&s->maplock);
  }
  if (in_use <= bound)
    return 0;
  uint64_t nfree;
  int rc = free_pages(s, &nfree);
  if (rc < 0)
    return rc;
  return in_use - nfree * s->psize > bound ? -ENOSPC : 0;
}

// grow doubles the map, up to `limit`, unless another thread already grew it
// beyond `seen`, the size the failed transaction ran with.
static int grow(ms_store *s, uint64_t seen, uint64_t limit) {
  pthread_rwlock_wrlock(&s->maplock);
  uint64_t cur = map_size(s);
  int rc = 0;
  if (cur <= seen) {
    if (cur >= limit) {
      rc = -ENOSPC;
    } else {
      uint64_t next = cur * 2 > limit ? limit : cur * 2;
      rc = lmdb_err(mdb_env_set_mapsize(s->env, (size_t)next));
    }
  }
  pthread_rwlock_unlock(&s->maplock);
  return rc;
}

// txn_begin starts a transaction holding maplock shared until txn_abort or
// txn_commit.
int txn_begin(ms_store *s, unsigned flags, MDB_txn **t) {
  for (int tries = 0;; tries++) {
    pthread_rwlock_rdlock(&s->maplock);
    int rc = mdb_txn_begin(s->env, NULL, flags, t);
    if (rc == 0)
      return 0;
    pthread_rwlock_unlock(&s->maplock);
    // Another process grew the map: adopt its size and try again.
    if (rc == MDB_MAP_RESIZED && tries < 8) {
      pthread_rwlock_wrlock(&s->maplock);
      mdb_env_set_mapsize(s->env, 0);
      pthread_rwlock_unlock(&s->maplock);
      continue;
    }
    return lmdb_err(rc);
  }
}

void txn_abort(ms_store *s, MDB_txn *t) {
  mdb_txn_abort(t);
  pthread_rwlock_unlock(&s->maplock);
}

int txn_commit_nosync(ms_store *s, MDB_txn *t, uint64_t *seq) {
  size_t id = mdb_txn_id(t);
  int rc = lmdb_err(mdb_txn_commit(t));
  MDB_envinfo info;
  // A transaction that changed nothing writes nothing and leaves the last
  // txnid below its own: nothing to sync (opening an existing store).
  if (rc == 0 && (mdb_env_info(s->env, &info) != 0 || info.me_last_txnid >= id)) {
    // Numbered only now that the commit's writes are done: a sync that
    // starts after this covers it (sync.c).
    pthread_mutex_lock(&s->synclock);
    *seq = ++s->commit_seq;
    pthread_mutex_unlock(&s->synclock);
  }
  pthread_rwlock_unlock(&s->maplock);
  return rc;
}

int txn_commit(ms_store *s, MDB_txn *t) {
  uint64_t seq = 0;
  int rc = txn_commit_nosync(s, t, &seq);
  return rc < 0 ? rc : sync_through(s, seq);
}

// run_write_in runs fn in a write transaction that may fill up to
// write_limit(s, room) bytes of the map (less on a full disk: room_check);
// fn must write its outputs only through ctx so that a retry after growing
// the map starts from scratch.
static int run_write_in(ms_store *s, write_fn fn, void *ctx, uint64_t *seq, enum write_room room) {
  for (;;) {
    uint64_t bound = write_limit(s, room);
    int rc = room == ROOM_REMOVE ? 0 : room_check(s, room, &bound);
    if (rc < 0)
      return rc;
    MDB_txn *t;
    if ((rc = txn_begin(s, 0, &t)) < 0)
      return rc;
    uint64_t seen = map_size(s);
    tail_prepare(s);
    rc = fn(s, t, ctx);
    if (rc < 0) {
      txn_abort(s, t);
      if (rc == ERR_MAP_FULL) {
        int g = grow(s, seen, bound);
        if (g < 0)
          return g;
        continue;
      }
      return rc;
    }
    int c = txn_commit_nosync(s, t, seq);
    if (c == ERR_MAP_FULL) {
      int g = grow(s, seen, bound);
      if (g < 0)
        return g;
      continue;
    }
    return c < 0 ? c : rc;
  }
}

int run_write_room(ms_store *s, write_fn fn, void *ctx, enum write_room room) {
  uint64_t seq = 0;
  int rc = run_write_in(s, fn, ctx, &seq, room);
  if (rc < 0)
    return rc;
  int sr = sync_through(s, seq);
  return sr < 0 ? sr : rc;
}

int run_write(ms_store *s, write_fn fn, void *ctx) {
  return run_write_room(s, fn, ctx, ROOM_ADD);
}

int run_write_nosync(ms_store *s, write_fn fn, void *ctx, uint64_t *seq) {
  return run_write_in(s, fn, ctx, seq, ROOM_ADD);
}

int get(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, MDB_val *out) {
  MDB_val key = val(k, kn);
  return lmdb_err(mdb_get(t, d, &key, out));
}

int put(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, const void *v, size_t vn, unsigned flags) {
  MDB_val key = val(k, kn), data = val(v, vn);
  return lmdb_err(mdb_put(t, d, &key, &data, flags));
}

int del(MDB_txn *t, MDB_dbi d, const void *k, size_t kn) {
  MDB_val key = val(k, kn);
  return lmdb_err(mdb_del(t, d, &key, NULL));
}

int queue_next(MDB_cursor *c, uint64_t *next) {
  MDB_val k, v;
  int r = mdb_cursor_get(c, &k, &v, MDB_LAST);
  if (r == MDB_NOTFOUND) {
    *next = 1;
    return 0;
  }
  if (r)
    return lmdb_err(r);
  if (k.mv_size != 8)
    return MS_ERR_CORRUPT;
  const uint8_t *b = k.mv_data;
  *next = ((uint64_t)msr_get_be32(b) << 32 | msr_get_be32(b + 4)) + 1;
  return 0;
}

int squeue_next(ms_store *s, MDB_txn *t, MDB_cursor *c, uint64_t *next) {
  int rc = queue_next(c, next);
  if (rc < 0 || *next != 1)
    return rc;
  MDB_val v;
  MDB_val key = val("squeue_next", 11);
  int r = mdb_get(t, s->meta, &key, &v);
  if (r == MDB_NOTFOUND)
    return 0;
  if (r)
    return lmdb_err(r);
  if (v.mv_size != 8 || msr_get_le64(v.mv_data) == 0)
    return MS_ERR_CORRUPT;
  *next = msr_get_le64(v.mv_data);
  return 0;
}

int squeue_push(MDB_cursor *c, uint64_t *next, uint32_t op, uint32_t acct, uint64_t id) {
  uint8_t k[8], v[MSR_SQUEUE_LEN];
  msr_be64(k, (*next)++);
  struct msr_squeue q = {.op = op, .account = acct, .message = id};
  msr_squeue_encode(v, &q);
  MDB_val key = val(k, sizeof k), data = val(v, sizeof v);
  return lmdb_err(mdb_cursor_put(c, &key, &data, MDB_APPEND));
}

// ---- typed loads and stores ----

int acct_load(ms_store *s, MDB_txn *t, uint32_t id, struct msr_account *a) {
  uint8_t k[4];
  msr_be32(k, id);
  MDB_val v;
  int rc = get(t, s->accounts, k, sizeof k, &v);
  return rc < 0 ? rc : msr_account_decode(a, v.mv_data, v.mv_size);
}

int acct_store(ms_store *s, MDB_txn *t, uint32_t id, const struct msr_account *a) {
  uint8_t k[4], buf[MSR_ACCOUNT_MAX];
  msr_be32(k, id);
  size_t n = msr_account_encode(buf, a);
  return put(t, s->accounts, k, sizeof k, buf, n, 0);
}

int mbox_load(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, struct msr_mailbox *m) {
  uint8_t k[8];
  msr_be32(k, acct);
  msr_be32(k + 4, id);
  MDB_val v;
  int rc = get(t, s->mailboxes, k, sizeof k, &v);
  return rc < 0 ? rc : msr_mailbox_decode(m, v.mv_data, v.mv_size);
}

int mbox_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, const struct msr_mailbox *m) {
  uint8_t k[8], buf[MSR_MAILBOX_MAX];
  msr_be32(k, acct);
  msr_be32(k + 4, id);
  size_t n = msr_mailbox_encode(buf, m);
  return put(t, s->mailboxes, k, sizeof k, buf, n, 0);
}

void uid_key(uint8_t k[12], uint32_t acct, uint32_t mbox, uint32_t uid) {
  msr_be32(k, acct);
  msr_be32(k + 4, mbox);
  msr_be32(k + 8, uid);
}

int uid_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, uint32_t uid,
              const struct msr_uid *u) {
  uint8_t k[12], buf[MSR_UID_MAX];
  uid_key(k, acct, mbox, uid);
  size_t n = msr_uid_encode(buf, u);
  return put(t, s->uids, k, sizeof k, buf, n, 0);
}

int msg_load(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, struct msr_message *m) {
  uint8_t k[12];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  MDB_val v;
  int rc = get(t, s->messages, k, sizeof k, &v);
  return rc < 0 ? rc : msr_message_decode(m, v.mv_data, v.mv_size);
}

int msg_store(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, const struct msr_message *m) {
  uint8_t k[12], buf[MSR_MESSAGE_LEN];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  msr_message_encode(buf, m);
  return put(t, s->messages, k, sizeof k, buf, sizeof buf, 0);
}

// ---- open, close ----

static int open_dbis(ms_store *s, MDB_txn *t) {
  struct {
    const char *name;
    MDB_dbi *dbi;
  } d[] = {{"meta", &s->meta},           {"accounts", &s->accounts},   {"names", &s->names},
           {"mailboxes", &s->mailboxes}, {"uids", &s->uids},           {"messages", &s->messages},
           {"blobs", &s->blobs},         {"vanished", &s->vanished},   {"release", &s->release},
           {"dicts", &s->dicts},         {"squeue", &s->squeue},       {"keywords", &s->keywords},
           {"changes", &s->changes},     {"summaries", &s->summaries}, {"threads", &s->threads}};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    int rc = lmdb_err(mdb_dbi_open(t, d[i].name, MDB_CREATE, d[i].dbi));
    if (rc < 0)
      return rc;
  }
  MDB_val v;
  int rc = get(t, s->meta, "format", 6, &v);
  if (rc == MS_ERR_NOTFOUND) {
    uint8_t f[4];
    msr_le32(f, MSR_FORMAT_VERSION);
    return put(t, s->meta, "format", 6, f, 4, 0);
  }
  if (rc < 0)
    return rc;
  if (v.mv_size != 4)
    return MS_ERR_CORRUPT;
  uint32_t format = msr_get_le32(v.mv_data);
  // Format 1 lacks the release queue, format 2 the dictionaries and format
  // 3 the keyword table and change log, all empty in such a store (just
  // created above); every older uid record is a valid format 4 one without
  // keywords, and every format 4 or 5 blob a valid format 6 one. Mark it
  // format 6 so that an older library, which cannot read keyword bitmaps,
  // dictionary blobs, chunked or transformed blobs, refuses it from now on.
  if (format >= 1 && format < MSR_FORMAT_VERSION) {
    uint8_t f[4];
    msr_le32(f, MSR_FORMAT_VERSION);
    return put(t, s->meta, "format", 6, f, 4, 0);
  }
  return format == MSR_FORMAT_VERSION ? 0 : MS_ERR_CORRUPT;
}

// store_free releases what ms_store_open set up besides the environment.
static void store_free(ms_store *s) {
  for (int i = 0; i < s->npool; i++)
    ZSTD_freeCCtx(s->pool[i]);
  for (int i = 0; i < s->ndpool; i++)
    ZSTD_freeDCtx(s->dpool[i]);
  for (size_t i = 0; i < s->ncdicts; i++)
    ZSTD_freeCDict(s->cdicts[i]);
  free(s->cdicts);
  for (size_t i = 0; i < s->nddicts; i++)
    ZSTD_freeDDict(s->ddicts[i].dd);
  free(s->ddicts);
  msi_destroy(s->index);
  pthread_mutex_destroy(&s->dictlock);
  pthread_mutex_destroy(&s->poollock);
  for (struct qwaiter *w = s->qfree, *next; w; w = next) {
    next = w->next;
    pthread_cond_destroy(&w->cv);
    free(w);
  }
  pthread_cond_destroy(&s->qarrive);
  pthread_mutex_destroy(&s->qlock);
  pthread_mutex_destroy(&s->synclock);
  pthread_rwlock_destroy(&s->maplock);
  free(s);
}

int ms_store_open(ms_store **out, const char *dir, const struct ms_settings *settings) {
  if (!out)
    return MS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!dir)
    return MS_ERR_INVALID_ARGUMENT;
  ms_store *s = calloc(1, sizeof *s);
  if (!s)
    return -ENOMEM;
  if (settings)
    s->set = *settings;
  if (!s->set.initial_map_size)
    s->set.initial_map_size = 64u << 20;
  if (!s->set.max_map_size)
    s->set.max_map_size = 1ull << 40;
  if (!s->set.max_message_size)
    s->set.max_message_size = 64u << 20;
  if (!s->set.max_batch)
    s->set.max_batch = 1000000;
  if (!s->set.group_wait_us)
    s->set.group_wait_us = 4000;
  if (s->set.compression_level == 0)
    s->set.compression_level = 3;
  if (s->set.compression_level < ZSTD_minCLevel())
    s->set.compression_level = ZSTD_minCLevel();
  if (s->set.compression_level > ZSTD_maxCLevel())
    s->set.compression_level = ZSTD_maxCLevel();
  if (!s->set.dict_train_after)
    s->set.dict_train_after = 5000;
  if (!s->set.dict_max_size)
    s->set.dict_max_size = 112640;
  if (s->set.dict_max_size > (1u << 20))
    s->set.dict_max_size = 1u << 20;
  if (s->set.dict_max_size < 1024)
    s->set.dict_max_size = 1024;
  // UINT32_MAX keeps every blob one frame (what format 4 wrote).
  if (!s->set.blob_chunk_size)
    s->set.blob_chunk_size = 256u << 10;
  if (s->set.blob_chunk_size != UINT32_MAX && s->set.blob_chunk_size < MSR_CHUNK_MIN)
    s->set.blob_chunk_size = MSR_CHUNK_MIN;
  if (s->set.blob_chunk_size != UINT32_MAX && s->set.blob_chunk_size > MSR_CHUNK_MAX)
    s->set.blob_chunk_size = MSR_CHUNK_MAX;
  if (!s->set.max_name_len || s->set.max_name_len > MSR_NAME_MAX)
    s->set.max_name_len = MSR_NAME_MAX;
  // Deliveries stop short of the map's reserve: no use mapping it at first.
  if (s->set.initial_map_size > write_limit(s, ROOM_ADD))
    s->set.initial_map_size = write_limit(s, ROOM_ADD);
  // Writers first: a map resize must not starve behind a stream of readers.
  pthread_rwlockattr_t ra;
  pthread_rwlockattr_init(&ra);
  pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  int rc = -pthread_rwlock_init(&s->maplock, &ra);
  pthread_rwlockattr_destroy(&ra);
  if (rc < 0) {
    free(s);
    return rc;
  }
  pthread_mutex_init(&s->qlock, NULL);
  pthread_cond_init(&s->qarrive, NULL);
  pthread_mutex_init(&s->poollock, NULL);
  pthread_mutex_init(&s->dictlock, NULL);
  pthread_mutex_init(&s->synclock, NULL);
  if (!s->set.index_max_bytes)
    s->set.index_max_bytes = 64u << 20;
  if (!(s->index = msi_create(s->set.index_max_bytes))) {
    store_free(s);
    return -ENOMEM;
  }
  rc = lmdb_err(mdb_env_create(&s->env));
  if (rc < 0) {
    store_free(s);
    return rc;
  }
  mdb_env_set_maxdbs(s->env, 32);
  mdb_env_set_mapsize(s->env, (size_t)s->set.initial_map_size);
  // A durable store leaves the meta page's sync to sync_through, outside
  // LMDB's write lock (sync.c).
  rc = lmdb_err(
      mdb_env_open(s->env, dir, MDB_NOTLS | (s->set.no_sync ? MDB_NOSYNC : MDB_NOMETASYNC), 0600));
  if (rc == 0) {
    // An existing store may be larger than initial_map_size: adopt its size.
    mdb_env_set_mapsize(s->env, 0);
    MDB_stat es;
    if (mdb_env_stat(s->env, &es) == 0)
      s->psize = es.ms_psize;
    MDB_envinfo info;
    mdb_env_info(s->env, &info);
    if (info.me_mapsize < s->set.initial_map_size)
      mdb_env_set_mapsize(s->env, (size_t)s->set.initial_map_size);
    MDB_txn *t;
    rc = txn_begin(s, 0, &t);
    if (rc == 0) {
      rc = open_dbis(s, t);
      if (rc < 0)
        txn_abort(s, t);
      else
        rc = txn_commit(s, t);
    }
  }
  // A damaged dictionary record must not keep the store from opening:
  // ms_store_verify names it, and new blobs go without a dictionary.
  if (rc == 0 && (rc = dict_refresh(s)) == MS_ERR_CORRUPT)
    rc = 0;
  if (rc < 0) {
    mdb_env_close(s->env);
    store_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

void ms_store_close(ms_store *store) {
  if (!store)
    return;
  mdb_env_close(store->env);
  store_free(store);
}

// ---- accounts ----

struct acct_create_ctx {
  const char *name;
  size_t name_len;
  uint64_t qb, qm;
  uint32_t id;
};

static int acct_create_tx(ms_store *s, MDB_txn *t, void *p) {
  struct acct_create_ctx *c = p;
  uint8_t nk[1 + MSR_NAME_MAX];
  nk[0] = 'A';
  memcpy(nk + 1, c->name, c->name_len);
  MDB_val v;
  int rc = get(t, s->names, nk, 1 + c->name_len, &v);
  if (rc == 0)
    return MS_ERR_EXISTS;
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  uint32_t next = 1;
  rc = get(t, s->meta, "next_account", 12, &v);
  if (rc == 0) {
    if (v.mv_size != 4)
      return MS_ERR_CORRUPT;
    next = msr_get_le32(v.mv_data);
  } else if (rc != MS_ERR_NOTFOUND) {
    return rc;
  }
  if (next == 0)
    return MS_ERR_LIMIT;
  uint8_t b[4];
  msr_le32(b, next + 1);
  if ((rc = put(t, s->meta, "next_account", 12, b, 4, 0)) < 0)
    return rc;
  msr_le32(b, next);
  if ((rc = put(t, s->names, nk, 1 + c->name_len, b, 4, 0)) < 0)
    return rc;
  struct msr_account a = {.quota_bytes = c->qb,
                          .quota_messages = c->qm,
                          .next_message = 1,
                          .next_mailbox = 1,
                          .name_len = (uint16_t)c->name_len};
  memcpy(a.name, c->name, c->name_len);
  c->id = next;
  return acct_store(s, t, next, &a);
}

int ms_account_create(ms_store *store, uint32_t *out_id, const char *name, size_t name_len,
                      uint64_t quota_bytes, uint64_t quota_messages) {
  if (!store || !name || name_len == 0 || name_len > store->set.max_name_len)
    return MS_ERR_INVALID_ARGUMENT;
  struct acct_create_ctx c = {name, name_len, quota_bytes, quota_messages, 0};
  int rc = run_write(store, acct_create_tx, &c);
  if (rc == 0 && out_id)
    *out_id = c.id;
  return rc;
}

int ms_account_get(ms_store *store, struct ms_account_info *out, uint32_t account) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_account a;
  rc = acct_load(store, t, account, &a);
  txn_abort(store, t);
  if (rc < 0)
    return rc;
  *out = (struct ms_account_info){.id = account,
                                  .quota_bytes = a.quota_bytes,
                                  .quota_messages = a.quota_messages,
                                  .used_bytes = a.used_bytes,
                                  .used_messages = a.used_messages,
                                  .highest_modseq = a.modseq};
  return 0;
}

// ---- mailboxes ----

static size_t mbox_name_key(uint8_t *k, uint32_t acct, const char *name, size_t len) {
  k[0] = 'M';
  msr_be32(k + 1, acct);
  memcpy(k + 5, name, len);
  return 5 + len;
}

static int valid_mailbox_name(const char *name, size_t len) {
  if (len == 0 || name[0] == '/' || name[len - 1] == '/')
    return 0;
  for (size_t i = 0; i < len; i++) {
    if (name[i] == 0 || (name[i] == '/' && i + 1 < len && name[i + 1] == '/'))
      return 0;
  }
  return 1;
}

struct mbox_create_ctx {
  uint32_t acct, role, id;
  const char *name;
  size_t len;
};

static int mbox_create_tx(ms_store *s, MDB_txn *t, void *p) {
  struct mbox_create_ctx *c = p;
  struct msr_account a;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0)
    return rc;
  uint8_t nk[5 + MSR_NAME_MAX];
  size_t nkl = mbox_name_key(nk, c->acct, c->name, c->len);
  MDB_val v;
  rc = get(t, s->names, nk, nkl, &v);
  if (rc == 0)
    return MS_ERR_EXISTS;
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  uint32_t parent = 0;
  const char *slash = NULL;
  for (size_t i = c->len; i > 0; i--) {
    if (c->name[i - 1] == '/') {
      slash = c->name + i - 1;
      break;
    }
  }
  if (slash) {
    uint8_t pk[5 + MSR_NAME_MAX];
    size_t pkl = mbox_name_key(pk, c->acct, c->name, (size_t)(slash - c->name));
    rc = get(t, s->names, pk, pkl, &v);
    if (rc < 0)
      return rc;
    if (v.mv_size != 4)
      return MS_ERR_CORRUPT;
    parent = msr_get_le32(v.mv_data);
  }
  uint32_t id = a.next_mailbox;
  if (id == 0)
    return MS_ERR_LIMIT;
  a.next_mailbox++;
  // UIDVALIDITY must differ from any earlier mailbox of the same name, also
  // one deleted and recreated; the clock gives uniqueness across stores.
  uint32_t now = (uint32_t)time(NULL);
  uint32_t uv = now > a.last_uidvalidity ? now : a.last_uidvalidity + 1;
  if (uv == 0)
    uv = 1;
  a.last_uidvalidity = uv;
  if ((rc = acct_store(s, t, c->acct, &a)) < 0)
    return rc;
  uint8_t b[4];
  msr_le32(b, id);
  if ((rc = put(t, s->names, nk, nkl, b, 4, 0)) < 0)
    return rc;
  struct msr_mailbox m = {.parent = parent,
                          .role = c->role,
                          .subscribed = 0,
                          .uidvalidity = uv,
                          .uidnext = 1,
                          .name_len = (uint16_t)c->len};
  memcpy(m.name, c->name, c->len);
  c->id = id;
  if ((rc = mbox_store(s, t, c->acct, id, &m)) < 0)
    return rc;
  return cl_log1(s, t, c->acct, CL_MAILBOX, CL_CREATED, id, 0);
}

int ms_mailbox_create(ms_store *store, uint32_t *out_id, uint32_t account, const char *name,
                      size_t name_len, uint32_t role) {
  if (!store || !name || name_len > store->set.max_name_len || role > MS_ROLE_MAX ||
      !valid_mailbox_name(name, name_len))
    return MS_ERR_INVALID_ARGUMENT;
  struct mbox_create_ctx c = {account, role, 0, name, name_len};
  int rc = run_write(store, mbox_create_tx, &c);
  if (rc == 0 && out_id)
    *out_id = c.id;
  return rc;
}

// name_lookup reads the 4-byte id that the names table maps `key` to, in a
// read transaction of its own (accounts and mailboxes share the table).
static int name_lookup(ms_store *store, const uint8_t *key, size_t key_len, uint32_t *out_id) {
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  MDB_val v;
  rc = get(t, store->names, key, key_len, &v);
  if (rc == 0) {
    if (v.mv_size != 4)
      rc = MS_ERR_CORRUPT;
    else
      *out_id = msr_get_le32(v.mv_data);
  }
  txn_abort(store, t);
  return rc;
}

int ms_mailbox_find(ms_store *store, uint32_t *out_id, uint32_t account, const char *name,
                    size_t name_len) {
  if (!store || !out_id || !name || name_len == 0 || name_len > MSR_NAME_MAX)
    return MS_ERR_INVALID_ARGUMENT;
  uint8_t nk[5 + MSR_NAME_MAX];
  size_t nkl = mbox_name_key(nk, account, name, name_len);
  return name_lookup(store, nk, nkl, out_id);
}

int ms_mailbox_get(ms_store *store, struct ms_mailbox_info *out, uint32_t account,
                   uint32_t mailbox) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  rc = mbox_load(store, t, account, mailbox, &m);
  txn_abort(store, t);
  if (rc < 0)
    return rc;
  *out = (struct ms_mailbox_info){.id = mailbox,
                                  .parent = m.parent,
                                  .role = m.role,
                                  .subscribed = m.subscribed,
                                  .uidvalidity = m.uidvalidity,
                                  .uidnext = m.uidnext,
                                  .highest_modseq = m.highest_modseq,
                                  .total = m.total,
                                  .unseen = m.unseen,
                                  .size = m.size};
  return 0;
}

// ---- messages ----

void mbox_count_add(struct msr_mailbox *m, uint32_t flags, uint64_t size) {
  m->total++;
  if (!(flags & MS_FLAG_SEEN))
    m->unseen++;
  m->size += size;
}

void mbox_count_sub(struct msr_mailbox *m, uint32_t flags, uint64_t size) {
  m->total--;
  if (!(flags & MS_FLAG_SEEN))
    m->unseen--;
  m->size -= size;
}

uint32_t blob_chunk(const ms_store *s) {
  return s->set.blob_chunk_size == UINT32_MAX ? 0 : s->set.blob_chunk_size;
}

int ms_message_read_range(ms_store *store, uint8_t *out, size_t out_cap, size_t *out_len,
                          uint32_t account, uint64_t message_id, uint64_t offset, uint64_t length) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_message msg;
  rc = msg_load(store, t, account, message_id, &msg);
  MDB_val v;
  if (rc == 0) {
    rc = get(t, store->blobs, msg.blob, 32, &v);
    if (rc == MS_ERR_NOTFOUND)
      rc = MS_ERR_CORRUPT;
  }
  struct msr_blob b;
  if (rc == 0 && (rc = msr_blob_decode(&b, v.mv_data, v.mv_size)) == 0 && b.raw_len != msg.size)
    rc = MS_ERR_CORRUPT;
  // The range is clamped to the message, as IMAP's partial FETCH is: an
  // offset at or past the end gives no bytes.
  uint64_t start = 0, n = 0;
  if (rc == 0) {
    start = offset < b.raw_len ? offset : b.raw_len;
    n = b.raw_len - start < length ? b.raw_len - start : length;
    if (out_cap < n)
      rc = MS_ERR_LIMIT;
  }
  if (rc == 0 && n) {
    ZSTD_DCtx *dc = dctx_take(store);
    rc = dc ? blob_read_range(store, t, dc, &b, &v, start, (size_t)n, out) : -ENOMEM;
    dctx_give(store, dc);
  }
  txn_abort(store, t);
  // The length is reported on success and, for a buffer too small, as the
  // room needed; never for output left partial by an error.
  if (rc == 0 || (rc == MS_ERR_LIMIT && n))
    *out_len = (size_t)n;
  return rc;
}

int ms_message_read(ms_store *store, uint8_t *out, size_t out_cap, size_t *out_len,
                    uint32_t account, uint64_t message_id) {
  return ms_message_read_range(store, out, out_cap, out_len, account, message_id, 0, UINT64_MAX);
}

// ---- listing and changes ----

int ms_mailbox_list(ms_store *store, struct ms_entry *out, size_t out_cap, size_t *out_len,
                    uint32_t account, uint32_t mailbox, uint32_t first_uid) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  MDB_cursor *cur = NULL;
  struct msi_box *ix = NULL;
  if ((rc = mbox_load(store, t, account, mailbox, &m)) == 0 &&
      (rc = msi_get(store, t, account, mailbox, &m, out_cap >= m.total / 8, &ix)) > 0) {
    msi_list(ix, out, out_cap, out_len, first_uid);
    msi_release(store, ix);
    txn_abort(store, t);
    return 0;
  }
  if (rc == 0)
    rc = lmdb_err(mdb_cursor_open(t, store->uids, &cur));
  if (rc == 0) {
    uint8_t k[12];
    uid_key(k, account, mailbox, first_uid);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE;
    size_t n = 0;
    while (n < out_cap && (rc = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
        break;
      out[n++] = (struct ms_entry){msr_get_be32((const uint8_t *)key.mv_data + 8), u.flags,
                                   u.message, u.modseq};
    }
    rc = rc == MDB_NOTFOUND || rc == 0 ? 0 : rc < -10000 ? rc : lmdb_err(rc);
    *out_len = n;
    mdb_cursor_close(cur);
  }
  txn_abort(store, t);
  return rc;
}

int ms_mailbox_changes(ms_store *store, struct ms_entry *out, size_t out_cap, size_t *out_len,
                       uint32_t *vanished, size_t vanished_cap, size_t *vanished_len,
                       uint32_t account, uint32_t mailbox, uint64_t since) {
  if (!store || !out_len || !vanished_len || (!out && out_cap) || (!vanished && vanished_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = *vanished_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  if ((rc = mbox_load(store, t, account, mailbox, &m)) < 0) {
    txn_abort(store, t);
    return rc;
  }
  MDB_cursor *cur;
  size_t n = 0;
  struct msi_box *ix = NULL;
  if ((rc = msi_get(store, t, account, mailbox, &m, 1, &ix)) > 0) {
    n = msi_changes(ix, out, out_cap, since);
    msi_release(store, ix);
    rc = 0;
  } else if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, store->uids, &cur))) == 0) {
    uint8_t k[12];
    uid_key(k, account, mailbox, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
        break;
      if (u.modseq <= since)
        continue;
      if (n < out_cap)
        out[n] = (struct ms_entry){msr_get_be32((const uint8_t *)key.mv_data + 8), u.flags,
                                   u.message, u.modseq};
      n++;
    }
    if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  size_t vn = 0;
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, store->vanished, &cur))) == 0) {
    uint8_t k[20];
    msr_be32(k, account);
    msr_be32(k + 4, mailbox);
    msr_be64(k + 8, since + 1);
    msr_be32(k + 16, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 20 || memcmp(key.mv_data, k, 8) != 0)
        break;
      if (vn < vanished_cap)
        vanished[vn] = msr_get_be32((const uint8_t *)key.mv_data + 16);
      vn++;
    }
    if (r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  // VANISHED history up to the change log's MODSEQ bound may be pruned:
  // say so rather than answer with a partial set.
  uint64_t vfloor = 0;
  if (rc == 0)
    rc = cl_vanished_floor(store, t, account, &vfloor);
  txn_abort(store, t);
  *out_len = n;
  *vanished_len = vn;
  if (rc == 0 && (n > out_cap || vn > vanished_cap))
    rc = MS_ERR_LIMIT;
  if (rc == 0 && since < vfloor)
    rc = MS_ERR_EXPIRED;
  return rc;
}

// ---- lookups and statistics ----

int ms_account_find(ms_store *store, uint32_t *out_id, const char *name, size_t name_len) {
  if (!store || !out_id || !name || name_len == 0 || name_len > MSR_NAME_MAX)
    return MS_ERR_INVALID_ARGUMENT;
  uint8_t nk[1 + MSR_NAME_MAX];
  nk[0] = 'A';
  memcpy(nk + 1, name, name_len);
  return name_lookup(store, nk, 1 + name_len, out_id);
}

// message_record loads message `message_id`'s record in a read transaction
// of its own, for the getters that need nothing else.
static int message_record(ms_store *store, uint32_t account, uint64_t message_id,
                          struct msr_message *m) {
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  rc = msg_load(store, t, account, message_id, m);
  txn_abort(store, t);
  return rc;
}

int ms_message_get(ms_store *store, struct ms_message_info *out, uint32_t account,
                   uint64_t message_id) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  struct msr_message m;
  int rc = message_record(store, account, message_id, &m);
  if (rc < 0)
    return rc;
  *out = (struct ms_message_info){.size = m.size,
                                  .internal_date = m.internal_date,
                                  .memberships = m.refs,
                                  .thread_id = m.thread};
  return 0;
}

int ms_message_digest(ms_store *store, uint8_t out[32], uint32_t account, uint64_t message_id) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  struct msr_message m;
  int rc = message_record(store, account, message_id, &m);
  if (rc < 0)
    return rc;
  memcpy(out, m.blob, 32);
  return 0;
}

static int stats_tx(ms_store *s, MDB_txn *t, struct ms_store_stats *o) {
  MDB_stat st;
  struct {
    MDB_dbi d;
    uint64_t *n;
  } counts[] = {{s->accounts, &o->accounts}, {s->mailboxes, &o->mailboxes},
                {s->messages, &o->messages}, {s->uids, &o->memberships},
                {s->blobs, &o->blobs},       {s->release, &o->released},
                {s->dicts, &o->dicts},       {s->squeue, &o->search_queued}};
  uint64_t pages = 0;
  // Every table, LMDB's main one (dbi 1, the tables' names) included.
  MDB_dbi all[] = {1,           s->meta,    s->accounts,  s->names,   s->mailboxes, s->uids,
                   s->messages, s->blobs,   s->vanished,  s->release, s->dicts,     s->squeue,
                   s->keywords, s->changes, s->summaries, s->threads};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    int rc = lmdb_err(mdb_stat(t, all[i], &st));
    if (rc < 0)
      return rc;
    pages += st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
  }
  o->map_used = pages * st.ms_psize;
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    int rc = lmdb_err(mdb_stat(t, counts[i].d, &st));
    if (rc < 0)
      return rc;
    *counts[i].n = st.ms_entries;
  }
  MDB_cursor *cur;
  MDB_val key, v;
  int r, rc = lmdb_err(mdb_cursor_open(t, s->accounts, &cur));
  if (rc < 0)
    return rc;
  while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_account a;
    if ((rc = msr_account_decode(&a, v.mv_data, v.mv_size)) < 0)
      break;
    o->bytes += a.used_bytes;
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (rc < 0 || (rc = lmdb_err(mdb_cursor_open(t, s->blobs, &cur))) < 0)
    return rc;
  while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_blob b;
    if ((rc = msr_blob_decode(&b, v.mv_data, v.mv_size)) < 0)
      break;
    o->blob_raw += b.raw_len;
    o->blob_stored += v.mv_size;
    if (b.chunk_size) {
      o->chunked_blobs++;
      o->chunked_raw += b.raw_len;
      o->chunked_stored += v.mv_size;
    }
    if (b.codec == MSR_CODEC_XF) {
      struct msr_xf_iter it;
      struct msr_xf_seg seg;
      o->xf_blobs++;
      o->xf_raw += b.raw_len;
      o->xf_stored += v.mv_size;
      msr_xf_begin(&it, &b);
      while ((rc = msr_xf_next(&it, &seg)) == 1) {
        o->xf_segments++;
        o->xf_encoded += seg.enc;
        o->xf_decoded += seg.dec;
      }
      if (rc < 0)
        break;
    }
    if (b.dict) {
      o->dict_blobs++;
      o->dict_raw += b.raw_len;
      o->dict_stored += v.mv_size;
    }
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (rc < 0 || (rc = lmdb_err(mdb_cursor_open(t, s->dicts, &cur))) < 0)
    return rc;
  while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_dict dr;
    if (key.mv_size != 4 || (rc = msr_dict_decode(&dr, v.mv_data, v.mv_size)) < 0) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    o->dict_bytes += dr.len;
    o->dict_current = msr_get_be32(key.mv_data);
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  return rc;
}

int ms_store_stats_get(ms_store *store, struct ms_store_stats *out) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct ms_store_stats o = {0};
  rc = stats_tx(store, t, &o);
  txn_abort(store, t);
  if (rc == 0)
    *out = o;
  return rc;
}

// ---- rename and delete ----

struct name_ent {
  uint32_t id;
  uint16_t len;
  char name[MSR_NAME_MAX];
};

// collect_children lists the mailboxes whose names start with prefix + '/'.
static int collect_children(ms_store *s, MDB_txn *t, uint32_t acct, const char *prefix, size_t plen,
                            struct name_ent **out, size_t *n) {
  *out = NULL;
  *n = 0;
  uint8_t k[5 + MSR_NAME_MAX + 1];
  size_t kl = mbox_name_key(k, acct, prefix, plen);
  k[kl++] = '/';
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->names, &cur));
  if (rc < 0)
    return rc;
  MDB_val key = val(k, kl), v;
  int op = MDB_SET_RANGE, r;
  size_t cap = 0;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size < kl || memcmp(key.mv_data, k, kl) != 0)
      break;
    if (v.mv_size != 4 || key.mv_size - 5 > MSR_NAME_MAX) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      struct name_ent *ne = realloc(*out, cap * sizeof *ne);
      if (!ne) {
        rc = -ENOMEM;
        break;
      }
      *out = ne;
    }
    struct name_ent *e = &(*out)[(*n)++];
    e->id = msr_get_le32(v.mv_data);
    e->len = (uint16_t)(key.mv_size - 5);
    memcpy(e->name, (const uint8_t *)key.mv_data + 5, e->len);
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (rc < 0) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return rc;
}

struct rename_ctx {
  uint32_t acct, mbox;
  const char *name;
  size_t len;
  size_t max_len;
};

static int rename_one(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, const char *old,
                      size_t olen, const char *nw, size_t nlen, int set_parent, uint32_t parent) {
  uint8_t k[5 + MSR_NAME_MAX];
  struct msr_mailbox m;
  int rc = mbox_load(s, t, acct, id, &m);
  if (rc < 0)
    return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
  size_t kl = mbox_name_key(k, acct, old, olen);
  if ((rc = del(t, s->names, k, kl)) < 0)
    return rc;
  kl = mbox_name_key(k, acct, nw, nlen);
  uint8_t b[4];
  msr_le32(b, id);
  if ((rc = put(t, s->names, k, kl, b, 4, MDB_NOOVERWRITE)) < 0)
    return rc == lmdb_err(MDB_KEYEXIST) ? MS_ERR_EXISTS : rc;
  memcpy(m.name, nw, nlen);
  m.name_len = (uint16_t)nlen;
  if (set_parent)
    m.parent = parent;
  return mbox_store(s, t, acct, id, &m);
}

static int rename_tx(ms_store *s, MDB_txn *t, void *p) {
  struct rename_ctx *c = p;
  struct msr_mailbox m;
  int rc = mbox_load(s, t, c->acct, c->mbox, &m);
  if (rc < 0)
    return rc;
  if (m.name_len == c->len && memcmp(m.name, c->name, c->len) == 0)
    return 0;
  // The new name may not lie inside the mailbox's own subtree.
  if (c->len > m.name_len && memcmp(c->name, m.name, m.name_len) == 0 && c->name[m.name_len] == '/')
    return MS_ERR_INVALID_ARGUMENT;
  uint8_t k[5 + MSR_NAME_MAX];
  MDB_val v;
  rc = get(t, s->names, k, mbox_name_key(k, c->acct, c->name, c->len), &v);
  if (rc == 0)
    return MS_ERR_EXISTS;
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  uint32_t parent = 0;
  for (size_t i = c->len; i > 0; i--) {
    if (c->name[i - 1] == '/') {
      rc = get(t, s->names, k, mbox_name_key(k, c->acct, c->name, i - 1), &v);
      if (rc < 0)
        return rc;
      if (v.mv_size != 4)
        return MS_ERR_CORRUPT;
      parent = msr_get_le32(v.mv_data);
      break;
    }
  }
  struct name_ent *kids;
  size_t nk;
  char oldname[MSR_NAME_MAX];
  size_t olen = m.name_len;
  memcpy(oldname, m.name, olen);
  if ((rc = collect_children(s, t, c->acct, oldname, olen, &kids, &nk)) < 0)
    return rc;
  rc = rename_one(s, t, c->acct, c->mbox, oldname, olen, c->name, c->len, 1, parent);
  for (size_t i = 0; rc >= 0 && i < nk; i++) {
    char nn[MSR_NAME_MAX];
    size_t tail = kids[i].len - olen;
    if (c->len + tail > c->max_len) {
      rc = MS_ERR_LIMIT;
      break;
    }
    memcpy(nn, c->name, c->len);
    memcpy(nn + c->len, kids[i].name + olen, tail);
    rc = rename_one(s, t, c->acct, kids[i].id, kids[i].name, kids[i].len, nn, c->len + tail, 0, 0);
  }
  free(kids);
  // JMAP names a mailbox by its last level under its parent: descendants
  // keep both, so only the renamed mailbox changes.
  return rc < 0 ? rc : cl_log1(s, t, c->acct, CL_MAILBOX, CL_UPDATED, c->mbox, 0);
}

int ms_mailbox_rename(ms_store *store, uint32_t account, uint32_t mailbox, const char *name,
                      size_t name_len) {
  if (!store || !name || name_len > store->set.max_name_len || !valid_mailbox_name(name, name_len))
    return MS_ERR_INVALID_ARGUMENT;
  struct rename_ctx c = {account, mailbox, name, name_len, store->set.max_name_len};
  return run_write_room(store, rename_tx, &c, ROOM_CHANGE);
}

struct delete_ctx {
  uint32_t acct, mbox;
};

static int delete_tx(ms_store *s, MDB_txn *t, void *p) {
  struct delete_ctx *c = p;
  struct msr_mailbox m;
  int rc = mbox_load(s, t, c->acct, c->mbox, &m);
  if (rc < 0)
    return rc;
  struct name_ent *kids;
  size_t nk;
  if ((rc = collect_children(s, t, c->acct, m.name, m.name_len, &kids, &nk)) < 0)
    return rc;
  free(kids);
  if (nk)
    return MS_ERR_EXISTS;
  // Expunge every message through the normal path so that message and blob
  // references and the account's usage stay exact.
  struct batch_ctx bc = {.acct = c->acct, .src = c->mbox};
  MDB_cursor *cur;
  if ((rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur))) < 0)
    return rc;
  uint8_t k[12];
  uid_key(k, c->acct, c->mbox, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  uint32_t *uids = NULL;
  size_t n = 0, cap = 0;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
      break;
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      uint32_t *nu = realloc(uids, cap * sizeof *uids);
      if (!nu) {
        rc = -ENOMEM;
        break;
      }
      uids = nu;
    }
    uids[n++] = msr_get_be32((const uint8_t *)key.mv_data + 8);
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (rc == 0 && n) {
    bc.uids = uids;
    bc.count = n;
    if ((rc = sel_build(&bc)) == 0)
      rc = expunge_tx(s, t, &bc);
    free(bc.sel);
  }
  free(uids);
  if (rc < 0)
    return rc;
  // Drop the mailbox's VANISHED history with it: its UIDVALIDITY is gone.
  if ((rc = lmdb_err(mdb_cursor_open(t, s->vanished, &cur))) < 0)
    return rc;
  uint8_t vk[20] = {0};
  msr_be32(vk, c->acct);
  msr_be32(vk + 4, c->mbox);
  key = val(vk, sizeof vk);
  op = MDB_SET_RANGE;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT; // after a delete LMDB does not advance on MDB_NEXT
    if (key.mv_size != 20 || memcmp(key.mv_data, vk, 8) != 0)
      break;
    if ((r = mdb_cursor_del(cur, 0)) != 0)
      break;
  }
  mdb_cursor_close(cur);
  if (r != 0 && r != MDB_NOTFOUND)
    return lmdb_err(r);
  uint8_t nk2[5 + MSR_NAME_MAX];
  uint8_t mk[8];
  msr_be32(mk, c->acct);
  msr_be32(mk + 4, c->mbox);
  if ((rc = del(t, s->names, nk2, mbox_name_key(nk2, c->acct, m.name, m.name_len))) < 0 ||
      (rc = del(t, s->mailboxes, mk, sizeof mk)) < 0)
    return rc;
  return cl_log1(s, t, c->acct, CL_MAILBOX, CL_DESTROYED, c->mbox, 0);
}

int ms_mailbox_delete(ms_store *store, uint32_t account, uint32_t mailbox) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct delete_ctx c = {account, mailbox};
  int rc = run_write_room(store, delete_tx, &c, ROOM_REMOVE);
  if (rc != -ENOSPC)
    return rc;
  // Too large for one transaction in a full map: empty the mailbox in
  // parts, then delete it empty.
  struct batch_ctx every = {.acct = account, .src = mailbox, .every = 1};
  if ((rc = run_in_parts(store, expunge_part, &every, SIZE_MAX)) < 0)
    return rc;
  return run_write_room(store, delete_tx, &c, ROOM_REMOVE);
}

struct subscribe_ctx {
  uint32_t acct, mbox, on;
};

static int subscribe_tx(ms_store *s, MDB_txn *t, void *p) {
  struct subscribe_ctx *c = p;
  struct msr_mailbox m;
  int rc = mbox_load(s, t, c->acct, c->mbox, &m);
  if (rc < 0 || m.subscribed == c->on)
    return rc;
  m.subscribed = c->on;
  if ((rc = mbox_store(s, t, c->acct, c->mbox, &m)) < 0)
    return rc;
  return cl_log1(s, t, c->acct, CL_MAILBOX, CL_UPDATED, c->mbox, 0);
}

int ms_mailbox_subscribe(ms_store *store, uint32_t account, uint32_t mailbox, int subscribed) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct subscribe_ctx c = {account, mailbox, subscribed != 0};
  return run_write_room(store, subscribe_tx, &c, ROOM_CHANGE);
}

// ---- search queue ----

int ms_search_queue_read(ms_store *store, struct ms_search_item *out, size_t out_cap,
                         size_t *out_len, uint64_t after_seq) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (after_seq == UINT64_MAX || out_cap == 0)
    return 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  MDB_cursor *cur;
  if ((rc = lmdb_err(mdb_cursor_open(t, store->squeue, &cur))) == 0) {
    uint8_t k[8];
    msr_be64(k, after_seq + 1);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    size_t n = 0;
    while (n < out_cap && (r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      struct msr_squeue q;
      if (key.mv_size != 8 || (rc = msr_squeue_decode(&q, v.mv_data, v.mv_size)) < 0) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      const uint8_t *kb = key.mv_data;
      out[n++] =
          (struct ms_search_item){.seq = (uint64_t)msr_get_be32(kb) << 32 | msr_get_be32(kb + 4),
                                  .op = q.op,
                                  .account = q.account,
                                  .message_id = q.message};
    }
    if (rc == 0 && n < out_cap && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
    if (rc == 0)
      *out_len = n;
  }
  txn_abort(store, t);
  return rc;
}

struct ack_ctx {
  uint64_t through;
};

static int ack_tx(ms_store *s, MDB_txn *t, void *p) {
  struct ack_ctx *c = p;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->squeue, &cur));
  if (rc < 0)
    return rc;
  MDB_val key, v;
  int n = 0, r;
  uint64_t next;
  if ((rc = queue_next(cur, &next)) < 0) {
    mdb_cursor_close(cur);
    return rc;
  }
  // The acknowledged entries are the queue's first ones: delete from the
  // head.
  while (n < 1000000 && (r = mdb_cursor_get(cur, &key, &v, MDB_FIRST)) == 0) {
    if (key.mv_size != 8) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    const uint8_t *kb = key.mv_data;
    if (((uint64_t)msr_get_be32(kb) << 32 | msr_get_be32(kb + 4)) > c->through)
      break;
    if ((rc = lmdb_err(mdb_cursor_del(cur, 0))) < 0)
      break;
    n++;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  int empty = 0;
  if (rc == 0 && n > 0) {
    r = mdb_cursor_get(cur, &key, &v, MDB_FIRST);
    if (r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    empty = r == MDB_NOTFOUND;
  }
  mdb_cursor_close(cur);
  // Emptied: remember where numbering goes on.
  if (rc == 0 && empty) {
    uint8_t b[8];
    msr_le64(b, next);
    rc = put(t, s->meta, "squeue_next", 11, b, sizeof b, 0);
  }
  return rc < 0 ? rc : n;
}

int ms_search_queue_ack(ms_store *store, uint64_t through_seq) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct ack_ctx c = {through_seq};
  return run_write_room(store, ack_tx, &c, ROOM_REMOVE);
}
