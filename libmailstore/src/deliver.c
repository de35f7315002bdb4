// deliver.c: ms_messages_deliver and ms_message_append, with the group
// commit behind them.
//
// A delivery is split in two: the expensive, lock-free part (SHA-256 and
// zstd) runs in the calling thread, so that several cores compress at once;
// the LMDB part runs in a committer thread that writes every queued request
// in one transaction, so that one fsync acknowledges them all.

#include "blob.h"
#include "changelog.h"
#include "mailstore.h"
#include "meta.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

// prepared is one message made ready outside any lock: its hash, its
// complete blob record (head and zstd frame), its summary record and its
// thread index keys. blob is NULL for an item that failed its checks (its
// status says why).
struct prepared {
  uint8_t hash[32];
  uint8_t *blob;
  size_t blob_len;
  uint8_t *summary; // summary record (meta.h), parsed here too
  size_t summary_len;
  struct thread_keys tk; // hashed from the summary (thread_index.c)
};

// deliver_req is one ms_messages_deliver call waiting in the queue; it lives
// on the caller's stack until done is set under qlock. Its caller sleeps on
// w alone, so that a commit wakes only the callers it finished and the one
// that is to commit next, not every waiting thread.
struct deliver_req {
  struct ms_delivery *items;
  struct prepared *prep;
  size_t count;
  int small; // few items: a committer waits for such callers (group_commit)
  int taken; // a committer has it: wait for that one to finish it
  int done;
  struct qwaiter *w; // from the store's pool; outlives the request
  struct deliver_req *next;
};

// prepare hashes, parses and compresses one message, with dictionary cd
// (id dict_id) when it is not NULL, in chunks of `chunk` bytes (0: one
// frame), its Base64 bodies stored decoded if xf is non-zero, and makes
// its summary record from the same parse. A message libmailparse refuses
// is stored as it is, without a summary (FORMAT.md "Message summaries").
static int prepare(ZSTD_CCtx *cc, int level, const ZSTD_CDict *cd, uint32_t dict_id, uint32_t chunk,
                   int xf, struct prepared *p, const uint8_t *data, size_t len,
                   int64_t internal_date) {
  SHA256(data, len, p->hash);
  mp_settings set = MP_SETTINGS_INIT;
  mp_message *m = NULL;
  int rc = mp_message_parse(&m, &set, data, len, NULL);
  if (rc == -ENOMEM)
    return rc;
  if (rc < 0)
    m = NULL;
  rc = blob_encode_msg(cc, level, cd, dict_id, chunk, 1, xf ? m : NULL, data, len, &p->blob,
                       &p->blob_len);
  if (rc == 0 && m &&
      summary_build_parsed(&p->summary, &p->summary_len, m, len, internal_date) == -ENOMEM)
    rc = -ENOMEM;
  mp_message_free(m);
  if (rc == 0 && p->summary) {
    // The thread index keys are hashes of the summary's ids and subject:
    // made here, so that the write transaction only looks them up.
    struct ms_summary sum;
    rc = summary_decode(&sum, p->summary, p->summary_len);
    if (rc == 0)
      rc = thread_keys_make(&p->tk, &sum);
  }
  if (rc < 0) {
    // A failed item must not reach the commit (it stores prepared blobs).
    free(p->blob);
    p->blob = NULL;
  }
  return rc;
}

// blob_put_prepared stores p's blob through cursor c (on the blobs DBI), or
// adds a reference to the identical blob already stored. MDB_NOOVERWRITE
// hands back the existing record, so the common case (a new blob) costs one
// tree descent.
static int blob_put_prepared(MDB_cursor *c, const struct prepared *p) {
  MDB_val key = val(p->hash, 32), data = val(p->blob, p->blob_len);
  int r = mdb_cursor_put(c, &key, &data, MDB_NOOVERWRITE);
  if (r != MDB_KEYEXIST)
    return lmdb_err(r);
  struct msr_blob b;
  int rc = msr_blob_decode(&b, data.mv_data, data.mv_size);
  if (rc < 0)
    return rc;
  b.refs++;
  // The put may move the page the old value lives on: copy it out first.
  // The stored encoding stays, whatever dictionary this delivery used.
  size_t total = data.mv_size;
  uint8_t *copy = malloc(total);
  if (!copy)
    return -ENOMEM;
  memcpy(copy, data.mv_data, total);
  msr_blob_encode_head(copy, &b);
  MDB_val nd = val(copy, total);
  rc = lmdb_err(mdb_cursor_put(c, &key, &nd, 0));
  free(copy);
  return rc;
}

static int prepared_cmp(const void *a, const void *b) {
  return memcmp((*(const struct prepared *const *)a)->hash,
                (*(const struct prepared *const *)b)->hash, 32);
}

// blobs_put stores the n blobs of a transaction (or adds references) in
// the order of their hashes, after the transaction's other records (the
// thread index entries follow, thread_batch_flush): the blobs table is
// keyed by hash, so in that order neighbouring puts share their descent
// through the tree, and the pages these random puts copy are allocated
// together instead of between the appends' pages, which leaves LMDB
// fewer, longer page runs to write at commit. Sorts list in place.
static int blobs_put(ms_store *s, MDB_txn *t, const struct prepared **list, size_t n) {
  if (n == 0)
    return 0;
  qsort(list, n, sizeof *list, prepared_cmp);
  MDB_cursor *c;
  int rc = lmdb_err(mdb_cursor_open(t, s->blobs, &c));
  if (rc < 0)
    return rc;
  for (size_t i = 0; rc == 0 && i < n; i++)
    rc = blob_put_prepared(c, list[i]);
  mdb_cursor_close(c);
  return rc;
}

// The committer caches the account and mailbox records a batch touches and
// writes each back once at the end.
struct acct_slot {
  uint32_t id;
  int err;   // load error, given to every item of this account
  int dirty; // changed: took a MODSEQ and must be written back
  struct msr_account a;
};

struct mbox_slot {
  uint32_t acct, id;
  int err;
  int dirty;
  struct msr_mailbox m;
};

struct deliver_ctx {
  struct deliver_req *list; // every item of every request, or
  struct deliver_req *one;  // only item one_item of request one
  size_t one_item;
  struct acct_slot *acc;
  struct mbox_slot *mb;
  size_t nacc, nmb;     // slots in use; each array has one slot per item
  uint32_t dict_latest; // the newest dictionary in the file
  int train;            // no dictionary yet and enough blobs to train one
  MDB_cursor *sq;       // the search queue, and its next key
  uint64_t sq_next;
  struct cl_writer cl; // the change log
  // What deliver_one leaves for the end of the transaction, to be written
  // in key order: the blobs of the items stored (room for one per item)
  // and their thread index entries.
  const struct prepared **blobs;
  size_t nblobs;
  struct thread_batch tb;
};

static struct acct_slot *slot_acct(ms_store *s, MDB_txn *t, struct deliver_ctx *c, uint32_t id) {
  for (size_t i = c->nacc; i > 0; i--)
    if (c->acc[i - 1].id == id)
      return &c->acc[i - 1];
  struct acct_slot *sl = &c->acc[c->nacc++];
  sl->id = id;
  sl->dirty = 0;
  sl->err = acct_load(s, t, id, &sl->a);
  return sl;
}

static struct mbox_slot *slot_mbox(ms_store *s, MDB_txn *t, struct deliver_ctx *c, uint32_t acct,
                                   uint32_t id) {
  for (size_t i = c->nmb; i > 0; i--)
    if (c->mb[i - 1].acct == acct && c->mb[i - 1].id == id)
      return &c->mb[i - 1];
  struct mbox_slot *sl = &c->mb[c->nmb++];
  sl->acct = acct;
  sl->id = id;
  sl->dirty = 0;
  sl->err = mbox_load(s, t, acct, id, &sl->m);
  return sl;
}

// deliver_one validates and writes one prepared item. Returns 1 if stored,
// 0 if the item failed on its own (status set), < 0 for a failure of the
// transaction.
static int deliver_one(ms_store *s, MDB_txn *t, struct deliver_ctx *c, struct ms_delivery *d,
                       const struct prepared *p) {
  struct acct_slot *as = slot_acct(s, t, c, d->account);
  struct mbox_slot *ms = as->err ? NULL : slot_mbox(s, t, c, d->account, d->mailbox);
  int err = as->err ? as->err : ms->err;
  if (err == ERR_MAP_FULL)
    return err;
  if (err == 0) {
    struct msr_account *a = &as->a;
    if ((a->quota_bytes && a->used_bytes + d->len > a->quota_bytes) ||
        (a->quota_messages && a->used_messages + 1 > a->quota_messages))
      err = MS_ERR_QUOTA;
    else if (ms->m.uidnext == UINT32_MAX || a->next_message == UINT64_MAX)
      err = MS_ERR_LIMIT;
  }
  if (err) {
    d->status = err;
    return 0;
  }
  c->blobs[c->nblobs++] = p; // stored at the end, blobs_put
  int rc;
  struct msr_account *a = &as->a;
  if (!as->dirty) {
    // One MODSEQ per account per transaction (FORMAT.md "MODSEQ rules").
    a->modseq++;
    as->dirty = 1;
  }
  uint64_t id = a->next_message++;
  a->used_bytes += d->len;
  a->used_messages++;
  uint32_t uid = ms->m.uidnext++;
  ms->m.highest_modseq = a->modseq;
  ms->dirty = 1;
  mbox_count_add(&ms->m, d->flags, d->len);
  struct msr_message msg = {.size = d->len, .internal_date = d->internal_date, .refs = 1};
  memcpy(msg.blob, p->hash, 32);
  if ((rc = meta_deliver(s, t, &c->tb, d->account, id, p->summary, p->summary_len, &p->tk,
                         &msg.thread)) < 0)
    return rc;
  struct msr_uid u = {.message = id, .flags = d->flags, .modseq = a->modseq};
  if ((rc = msg_store(s, t, d->account, id, &msg)) < 0 ||
      (rc = uid_store(s, t, d->account, d->mailbox, uid, &u)) < 0 ||
      (rc = squeue_push(c->sq, &c->sq_next, MS_SEARCH_INDEX, d->account, id)) < 0 ||
      (rc = cl_add(&c->cl, d->account, CL_MESSAGE, CL_CREATED, id, a->modseq)) < 0)
    return rc;
  d->status = 0;
  d->uid = uid;
  d->message_id = id;
  return 1;
}

static int deliver_tx(ms_store *s, MDB_txn *t, void *p) {
  struct deliver_ctx *c = p;
  c->nacc = c->nmb = 0;
  c->nblobs = 0;
  thread_batch_reset(&c->tb);
  int stored = 0, rc = lmdb_err(mdb_cursor_open(t, s->squeue, &c->sq));
  if (rc < 0)
    return rc;
  if ((rc = squeue_next(s, t, c->sq, &c->sq_next)) < 0 || (rc = cl_open(s, t, &c->cl)) < 0) {
    mdb_cursor_close(c->sq);
    return rc;
  }
  for (struct deliver_req *r = c->one ? c->one : c->list; r && rc >= 0;
       r = c->one ? NULL : r->next) {
    size_t i = c->one ? c->one_item : 0, end = c->one ? c->one_item + 1 : r->count;
    for (; i < end && rc >= 0; i++) {
      if (!r->prep[i].blob)
        continue;
      rc = deliver_one(s, t, c, &r->items[i], &r->prep[i]);
      stored += rc > 0;
    }
  }
  if (rc >= 0)
    rc = blobs_put(s, t, c->blobs, c->nblobs);
  if (rc >= 0)
    rc = thread_batch_flush(s, t, &c->tb);
  for (size_t i = 0; rc >= 0 && i < c->nacc; i++)
    if (c->acc[i].dirty)
      rc = acct_store(s, t, c->acc[i].id, &c->acc[i].a);
  for (size_t i = 0; rc >= 0 && i < c->nmb; i++)
    if (c->mb[i].dirty && (rc = mbox_store(s, t, c->mb[i].acct, c->mb[i].id, &c->mb[i].m)) >= 0)
      rc = cl_add(&c->cl, c->mb[i].acct, CL_MAILBOX, CL_COUNTS, c->mb[i].id,
                  c->mb[i].m.highest_modseq);
  int cr = cl_close(&c->cl, rc >= 0);
  if (rc >= 0 && cr < 0)
    rc = cr;
  mdb_cursor_close(c->sq);
  // Two cheap looks that let this process notice a dictionary another
  // process trained, and when to train the first one.
  c->train = 0;
  if (rc >= 0)
    rc = dict_latest(s, t, &c->dict_latest, NULL);
  if (rc >= 0 && c->dict_latest == 0 && s->set.dict_train_after != UINT32_MAX) {
    MDB_stat st;
    if ((rc = lmdb_err(mdb_stat(t, s->blobs, &st))) == 0)
      c->train = st.ms_entries >= s->set.dict_train_after;
  }
  return rc < 0 ? rc : stored;
}

// commit_all writes every item of `list`: all in one transaction, or, if
// that transaction fails, each item in a transaction of its own so that the
// item at fault fails alone. Adds to the counters in *k. The commits are
// not durable yet: it sets *seq for sync_through (group_commit).
static void commit_all(ms_store *s, struct deliver_req *list, struct ms_store_counters *k,
                       uint64_t *seq) {
  size_t n = 0;
  for (struct deliver_req *r = list; r; r = r->next)
    n += r->count;
  struct deliver_ctx c = {.list = list};
  c.acc = malloc(n * sizeof *c.acc);
  c.mb = malloc(n * sizeof *c.mb);
  c.blobs = malloc(n * sizeof *c.blobs);
  int rc = c.acc && c.mb && c.blobs ? run_write_nosync(s, deliver_tx, &c, seq) : -ENOMEM;
  if (rc >= 0) {
    pthread_mutex_lock(&s->dictlock);
    s->dict_seen = c.dict_latest;
    s->train_due = c.train;
    pthread_mutex_unlock(&s->dictlock);
    k->commits++;
    k->delivered += (uint64_t)rc;
    if ((uint64_t)rc > k->largest)
      k->largest = (uint64_t)rc;
  } else {
    struct acct_slot a1;
    struct mbox_slot m1;
    const struct prepared *b1;
    c.acc = c.acc ? c.acc : &a1;
    c.mb = c.mb ? c.mb : &m1;
    c.blobs = c.blobs ? c.blobs : &b1;
    for (struct deliver_req *r = list; r; r = r->next) {
      for (size_t i = 0; i < r->count; i++) {
        if (!r->prep[i].blob)
          continue;
        c.one = r;
        c.one_item = i;
        int one = run_write_nosync(s, deliver_tx, &c, seq);
        if (one < 0) {
          r->items[i].status = one;
        } else {
          k->commits++;
          k->delivered += (uint64_t)one;
          if (k->largest == 0)
            k->largest = 1;
        }
      }
    }
    if (c.acc == &a1)
      c.acc = NULL;
    if (c.mb == &m1)
      c.mb = NULL;
    if (c.blobs == &b1)
      c.blobs = NULL;
  }
  free(c.acc);
  free(c.mb);
  free(c.blobs);
  thread_batch_free(&c.tb);
}

// GROUP_SMALL is the most items a call may have for a committer to wait for
// it. A bigger batch already shares its commit among its own items, and
// takes long to compress: waiting for it would idle the committer's core and
// then make both callers wait for the same fsync, where committing now lets
// one caller's fsync overlap the other's compression.
#define GROUP_SMALL 8

// leader_due tells whether the committer waiting on qarrive may stop
// waiting (under qlock): no small caller still compressing, and at least as
// many small requests queued as the previous commit took. Arrivals signal
// it only then, so that a waiting committer wakes once, not once per caller.
static int leader_due(const ms_store *s) {
  return s->leader_wait && s->preparing <= 0 && s->queued >= s->last_reqs;
}

// queue_enter takes a waiter from the store's pool (or makes one) for a
// call that is about to prepare its messages, and counts a small call as
// preparing. Returns NULL when out of memory, having counted nothing.
static struct qwaiter *queue_enter(ms_store *s, int small) {
  pthread_mutex_lock(&s->qlock);
  struct qwaiter *w = s->qfree;
  if (w)
    s->qfree = w->next;
  if (w && small)
    s->preparing++;
  pthread_mutex_unlock(&s->qlock);
  if (w)
    return w;
  if (!(w = malloc(sizeof *w)))
    return NULL;
  if (pthread_cond_init(&w->cv, NULL) != 0) {
    free(w);
    return NULL;
  }
  if (small) {
    pthread_mutex_lock(&s->qlock);
    s->preparing++;
    pthread_mutex_unlock(&s->qlock);
  }
  return w;
}

// queue_leave gives waiter w back to the pool for a call that queued
// nothing (group_commit gives it back otherwise); a small one also stops
// counting as preparing.
static void queue_leave(ms_store *s, struct qwaiter *w, int small) {
  pthread_mutex_lock(&s->qlock);
  w->next = s->qfree;
  s->qfree = w;
  int wake = 0;
  if (small) {
    s->preparing--;
    wake = leader_due(s);
  }
  pthread_mutex_unlock(&s->qlock);
  if (wake)
    pthread_cond_signal(&s->qarrive);
}

// WAKE_STACK is how many waiters a committer notes on its stack for waking
// after it lets go of qlock; it allocates room for more.
#define WAKE_STACK 64

// group_commit queues `req` and returns when a committer (this thread or
// another) has durably written it. The first thread to find no committer at
// work becomes one; it waits (at most group_wait_us, and no longer than the
// previous commit took) for small callers that are still compressing and
// for as many small requests as the previous commit took (the callers it
// woke are usually about to return with their next message), then takes
// the whole queue. Requests that arrive while it commits wait for the next
// committer, so the queue fills during each fsync; when it is done it wakes
// the oldest waiting caller, which commits next, then syncs (sync.c) while
// that one builds its transaction, and only then wakes the callers it
// served: none of them returns before its messages are durable. It
// signals them after letting go of qlock (their waiters are pooled, see
// struct qwaiter), so that a woken caller does not at once block on the
// lock its waker still holds.
static void group_commit(ms_store *s, struct deliver_req *req) {
  pthread_mutex_lock(&s->qlock);
  req->next = NULL;
  if (s->qtail)
    s->qtail->next = req;
  else
    s->qhead = req;
  s->qtail = req;
  if (req->small) {
    s->preparing--;
    s->queued++;
  }
  if (leader_due(s))
    pthread_cond_signal(&s->qarrive);
  while (!req->done) {
    if (s->committing || req->taken) {
      pthread_cond_wait(&req->w->cv, &s->qlock);
      continue;
    }
    s->committing = 1;
    if (s->preparing > 0 || s->queued < s->last_reqs) {
      // Wait no longer than the previous commit took: on a disk that
      // syncs fast, committing sooner serves the late callers sooner too.
      uint64_t wait = (uint64_t)s->set.group_wait_us * 1000u;
      if (s->last_commit_ns && s->last_commit_ns < wait)
        wait = s->last_commit_ns;
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      uint64_t ns = (uint64_t)until.tv_nsec + wait;
      until.tv_sec += (time_t)(ns / 1000000000u);
      until.tv_nsec = (long)(ns % 1000000000u);
      s->leader_wait = 1;
      while ((s->preparing > 0 || s->queued < s->last_reqs) &&
             pthread_cond_timedwait(&s->qarrive, &s->qlock, &until) == 0) {
      }
      s->leader_wait = 0;
    }
    struct deliver_req *list = s->qhead;
    for (struct deliver_req *r = list; r; r = r->next)
      r->taken = 1;
    s->qhead = s->qtail = NULL;
    s->last_reqs = s->queued;
    s->queued = 0;
    pthread_mutex_unlock(&s->qlock);
    // The requests in list stay until this thread sets done: note their
    // waiters now, outside the lock.
    size_t nreq = 0;
    for (struct deliver_req *r = list; r; r = r->next)
      nreq++;
    struct qwaiter *stack[WAKE_STACK], **wake = stack;
    if (nreq > WAKE_STACK && !(wake = malloc(nreq * sizeof *wake)))
      wake = NULL; // then signal under the lock, as a last resort
    size_t nwake = 0;
    if (wake)
      for (struct deliver_req *r = list; r; r = r->next)
        if (r != req)
          wake[nwake++] = r->w;
    struct ms_store_counters k = {0};
    struct timespec t0, t1;
    uint64_t seq = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    commit_all(s, list, &k, &seq);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_mutex_lock(&s->qlock);
    s->last_commit_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
                        (uint64_t)t0.tv_nsec;
    s->counters.commits += k.commits;
    s->counters.delivered += k.delivered;
    if (k.largest > s->counters.largest)
      s->counters.largest = k.largest;
    s->committing = 0;
    // The oldest request that arrived during this commit commits next,
    // while this thread syncs.
    struct qwaiter *lead = s->qhead ? s->qhead->w : NULL;
    pthread_mutex_unlock(&s->qlock);
    if (lead)
      pthread_cond_signal(&lead->cv);
    int sr = sync_through(s, seq);
    if (sr < 0) // stored, but not known to be durable: not a success
      for (struct deliver_req *r = list; r; r = r->next)
        for (size_t i = 0; i < r->count; i++)
          if (r->prep[i].blob && r->items[i].status == 0)
            r->items[i].status = sr;
    pthread_mutex_lock(&s->qlock);
    // Read next before done: a waiter may return and free its request
    // (not before this thread lets go of qlock).
    for (struct deliver_req *r = list, *next; r; r = next) {
      next = r->next;
      r->done = 1;
      if (!wake && r != req)
        pthread_cond_signal(&r->w->cv);
    }
    pthread_mutex_unlock(&s->qlock);
    for (size_t i = 0; i < nwake; i++)
      pthread_cond_signal(&wake[i]->cv);
    if (wake != stack)
      free(wake);
    pthread_mutex_lock(&s->qlock);
  }
  // Back to the pool; a late signal to it is harmless (struct qwaiter).
  req->w->next = s->qfree;
  s->qfree = req->w;
  pthread_mutex_unlock(&s->qlock);
}

// dict_after_delivery adopts a dictionary another process trained, and
// trains the store's first one when a commit found it due: in the calling
// thread, after its delivery is durable, once per handle at a time.
static void dict_after_delivery(ms_store *s) {
  pthread_mutex_lock(&s->dictlock);
  int refresh = s->dict_seen > s->cdict_id;
  int train = s->train_due && !refresh && s->cdict_id == 0 && !s->training && !s->train_off;
  if (train) {
    s->training = 1;
    s->train_due = 0;
  }
  pthread_mutex_unlock(&s->dictlock);
  if (refresh && dict_refresh(s) < 0)
    return; // the next delivery tries again; blobs stay readable meanwhile
  if (!train)
    return;
  int rc = ms_store_train(s, NULL, 0);
  pthread_mutex_lock(&s->dictlock);
  s->training = 0;
  // A failure (too little to learn from, no space) is not retried by this
  // handle: the store works without a dictionary, and ms_store_train can
  // still be called.
  if (rc < 0)
    s->train_off = 1;
  pthread_mutex_unlock(&s->dictlock);
}

int ms_messages_deliver(ms_store *store, struct ms_delivery *items, size_t count) {
  if (!store || !items || count == 0)
    return MS_ERR_INVALID_ARGUMENT;
  if (count > store->set.max_batch || count > INT32_MAX)
    return MS_ERR_LIMIT;
  struct prepared *prep = calloc(count, sizeof *prep);
  if (!prep)
    return -ENOMEM;
  int small = count <= GROUP_SMALL;
  struct qwaiter *w = queue_enter(store, small);
  if (!w) {
    free(prep);
    return -ENOMEM;
  }
  uint32_t dict_id;
  const ZSTD_CDict *cd = cdict_current(store, &dict_id);
  ZSTD_CCtx *cc = cctx_take(store);
  size_t ready = 0;
  for (size_t i = 0; i < count; i++) {
    struct ms_delivery *d = &items[i];
    d->uid = 0;
    d->message_id = 0;
    if (!d->data || d->len == 0 || (d->flags & ~(uint32_t)MS_FLAG_ALL))
      d->status = MS_ERR_INVALID_ARGUMENT;
    else if (d->len > store->set.max_message_size)
      d->status = MS_ERR_LIMIT;
    else
      d->status = prepare(cc, store->set.compression_level, cd, dict_id, blob_chunk(store),
                          !store->set.no_transform, &prep[i], d->data, d->len, d->internal_date);
    ready += d->status == 0;
  }
  cctx_give(store, cc);
  if (ready) {
    struct deliver_req req = {.items = items, .prep = prep, .count = count, .small = small, .w = w};
    group_commit(store, &req);
  } else {
    queue_leave(store, w, small);
  }
  int stored = 0;
  for (size_t i = 0; i < count; i++) {
    stored += items[i].status == 0;
    free(prep[i].blob);
    free(prep[i].summary);
    thread_keys_free(&prep[i].tk);
  }
  free(prep);
  if (ready)
    dict_after_delivery(store);
  return stored;
}

int ms_store_counters_get(ms_store *store, struct ms_store_counters *out) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  pthread_mutex_lock(&store->qlock);
  *out = store->counters;
  pthread_mutex_unlock(&store->qlock);
  pthread_mutex_lock(&store->synclock);
  out->syncs = store->syncs;
  pthread_mutex_unlock(&store->synclock);
  return 0;
}

int ms_message_append(ms_store *store, uint64_t *out_message_id, uint32_t *out_uid,
                      uint32_t account, uint32_t mailbox, const uint8_t *data, size_t len,
                      uint32_t flags, int64_t internal_date) {
  struct ms_delivery d = {.account = account,
                          .mailbox = mailbox,
                          .flags = flags,
                          .internal_date = internal_date,
                          .data = data,
                          .len = len};
  int rc = ms_messages_deliver(store, &d, 1);
  if (rc < 0)
    return rc;
  if (d.status < 0)
    return d.status;
  if (out_message_id)
    *out_message_id = d.message_id;
  if (out_uid)
    *out_uid = d.uid;
  return 0;
}
