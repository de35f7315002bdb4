// store.c: the LMDB-backed store itself: the environment and its DBIs, the
// write transactions (retried after growing the map on MDB_MAP_FULL, and
// kept within the room each kind of write may take), the typed loads and
// stores of FORMAT.md's records, opening and closing, reading messages,
// listing a mailbox and its changes, and the statistics. The operations
// live in files of their own: mailboxes.c, deliver.c, batch.c, verify.c,
// collect.c, train.c, squeue.c, with blob.c for the zstd side.
#include "blob.h"
#include "changelog.h"
#include "index.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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
