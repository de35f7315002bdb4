// index.c: the packed per-mailbox index. For each recently used mailbox it
// keeps one array, in UID order, of what flag fetches, CONDSTORE/QRESYNC
// resynchronisation and numeric sorts need (UID, flags, message id, MODSEQ,
// internal and sent dates, size, thread id), so that those read a few megabytes of
// contiguous memory instead of one LMDB record (and one message record) per
// message. An array is stamped with the mailbox record's UIDVALIDITY and
// HIGHESTMODSEQ: every write to a mailbox's memberships (delivery, copy,
// move, expunge, flag and keyword changes) gives it a new HIGHESTMODSEQ
// from the account's counter in the same transaction (RFC 7162 requires it
// of expunges too), so a reader comparing the stamp read in its own
// snapshot with the array's knows whether the array is that snapshot's,
// whichever process wrote. Arrays are immutable once built and shared by
// reference; the cache keeps the most recently used ones within a byte
// bound.
#include "index.h"
#include "meta.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct msi_box {
  struct msi_box *prev, *next; // LRU list, most recent first; both NULL once evicted
  uint32_t acct, mbox, uidvalidity;
  uint64_t modseq; // the mailbox's HIGHESTMODSEQ when built
  int no_dates;    // some message had no stored summary: date is not its sent date
  int refs;        // holders, plus one while cached
  size_t n;
  struct msi_ent *v;
  // The order of the first single-key sort, kept because IMAP and JMAP
  // clients repeat the same sort (newest first); set once under the
  // cache's lock and never replaced while the array lives, because
  // readers use it outside the lock.
  uint32_t *order;
  uint32_t order_key;
};

struct msi_cache {
  pthread_mutex_t lock;
  struct msi_box *head, *tail;
  uint64_t bytes, max_bytes;
  struct ms_index_info info;
};

static uint64_t box_bytes(const struct msi_box *b) {
  return sizeof *b + b->n * sizeof *b->v + (b->order ? b->n * sizeof *b->order : 0);
}

struct msi_cache *msi_create(uint64_t max_bytes) {
  struct msi_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  pthread_mutex_init(&c->lock, NULL);
  c->max_bytes = max_bytes;
  return c;
}

static void box_free(struct msi_box *b) {
  free(b->order);
  free(b->v);
  free(b);
}

static void unlink_box(struct msi_cache *c, struct msi_box *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    c->head = b->next;
  if (b->next)
    b->next->prev = b->prev;
  else
    c->tail = b->prev;
  b->prev = b->next = NULL;
  c->bytes -= box_bytes(b);
  c->info.mailboxes--;
}

void msi_destroy(struct msi_cache *c) {
  if (!c)
    return;
  while (c->head) {
    struct msi_box *b = c->head;
    unlink_box(c, b);
    box_free(b);
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

// drop_ref releases one reference; the caller holds the lock.
static void drop_ref(struct msi_box *b) {
  if (--b->refs == 0)
    box_free(b);
}

void msi_release(ms_store *s, struct msi_box *b) {
  if (!b)
    return;
  pthread_mutex_lock(&s->index->lock);
  drop_ref(b);
  pthread_mutex_unlock(&s->index->lock);
}

// find returns the cached box of (acct, mbox), moved to the front; the
// caller holds the lock.
static struct msi_box *find(struct msi_cache *c, uint32_t acct, uint32_t mbox) {
  for (struct msi_box *b = c->head; b; b = b->next)
    if (b->acct == acct && b->mbox == mbox) {
      if (b != c->head) {
        uint64_t n = box_bytes(b);
        unlink_box(c, b);
        c->bytes += n;
        c->info.mailboxes++;
        b->next = c->head;
        c->head->prev = b;
        c->head = b;
      }
      return b;
    }
  return NULL;
}

// build reads mailbox (acct, mbox) from t into b->v, taking the message
// fields of ids that old (may be NULL) already holds from it: a message's
// size, date and thread never change, so after a flag change or a delivery
// only the memberships are read again.
static int build(ms_store *s, MDB_txn *t, struct msi_box *b, const struct msi_box *old,
                 size_t cap) {
  b->v = malloc((cap ? cap : 1) * sizeof *b->v);
  if (!b->v)
    return -ENOMEM;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur));
  if (rc < 0)
    return rc;
  uint8_t k[12];
  uid_key(k, b->acct, b->mbox, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  size_t n = 0, oi = 0;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
      break;
    struct msr_uid u;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
      break;
    if (n == cap) {
      // The mailbox record's count was low (only a damaged one is): grow.
      cap = cap ? 2 * cap : 64;
      struct msi_ent *nv = realloc(b->v, cap * sizeof *nv);
      if (!nv) {
        rc = -ENOMEM;
        break;
      }
      b->v = nv;
    }
    struct msi_ent *e = &b->v[n];
    e->uid = msr_get_be32((const uint8_t *)key.mv_data + 8);
    e->flags = u.flags;
    e->message = u.message;
    e->modseq = u.modseq;
    while (old && oi < old->n && old->v[oi].uid < e->uid)
      oi++;
    if (old && !old->no_dates && oi < old->n && old->v[oi].uid == e->uid &&
        old->v[oi].message == u.message) {
      e->idate = old->v[oi].idate;
      e->date = old->v[oi].date;
      e->thread = old->v[oi].thread;
      e->size = old->v[oi].size;
    } else {
      uint8_t mk[12];
      msr_be32(mk, b->acct);
      msr_be64(mk + 4, u.message);
      MDB_val mv;
      struct msr_message msg;
      if ((rc = get(t, s->messages, mk, sizeof mk, &mv)) < 0 ||
          (rc = msr_message_decode(&msg, mv.mv_data, mv.mv_size)) < 0) {
        // A membership without its message is damage, not absence.
        rc = rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
        break;
      }
      e->idate = msg.internal_date;
      e->thread = msg.thread;
      e->size = msg.size > UINT32_MAX ? UINT32_MAX : (uint32_t)msg.size;
      // The sent date comes from the summary; a message without a stored
      // one (written before summaries existed) marks the array unfit for
      // date sorts rather than costing a parse here.
      MDB_val sv;
      struct ms_summary sum;
      int found = rc = summary_load(s, t, b->acct, u.message, &sv);
      if (rc < 0 || (found && (rc = summary_decode(&sum, sv.mv_data, sv.mv_size)) < 0))
        break;
      if (found) {
        e->date = sum.date;
      } else {
        e->date = msg.internal_date;
        b->no_dates = 1;
      }
      rc = 0;
    }
    n++;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(cur);
  b->n = n;
  return rc;
}

int msi_get(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, const struct msr_mailbox *m,
            int may_build, struct msi_box **out) {
  struct msi_cache *c = s->index;
  *out = NULL;
  uint64_t need = sizeof(struct msi_box) + (uint64_t)m->total * sizeof(struct msi_ent);
  if (need > c->max_bytes)
    return 0;
  pthread_mutex_lock(&c->lock);
  struct msi_box *old = find(c, acct, mbox);
  if (old && old->uidvalidity == m->uidvalidity && old->modseq == m->highest_modseq) {
    old->refs++;
    c->info.hits++;
    pthread_mutex_unlock(&c->lock);
    *out = old;
    return 1;
  }
  if (!may_build) {
    pthread_mutex_unlock(&c->lock);
    return 0;
  }
  // Keep the old array alive while building outside the lock, so that
  // other mailboxes' readers are not held up by this one's build.
  if (old && old->uidvalidity == m->uidvalidity)
    old->refs++;
  else
    old = NULL;
  pthread_mutex_unlock(&c->lock);

  struct msi_box *b = calloc(1, sizeof *b);
  int rc = b ? 0 : -ENOMEM;
  if (b) {
    b->acct = acct;
    b->mbox = mbox;
    b->uidvalidity = m->uidvalidity;
    b->modseq = m->highest_modseq;
    b->refs = 2; // the cache's and the caller's
    rc = build(s, t, b, old, m->total);
  }
  pthread_mutex_lock(&c->lock);
  if (old)
    drop_ref(old);
  if (rc < 0) {
    pthread_mutex_unlock(&c->lock);
    if (b)
      box_free(b);
    return rc;
  }
  c->info.builds++;
  if (old)
    c->info.rebuilds++;
  // Another thread may have cached this mailbox meanwhile; the newer
  // HIGHESTMODSEQ wins (an older snapshot's reader keeps its own copy).
  struct msi_box *cur = find(c, acct, mbox);
  int keep = !cur || cur->uidvalidity != b->uidvalidity || cur->modseq < b->modseq;
  if (keep) {
    if (cur) {
      unlink_box(c, cur);
      drop_ref(cur);
    }
    b->next = c->head;
    if (c->head)
      c->head->prev = b;
    c->head = b;
    if (!c->tail)
      c->tail = b;
    c->bytes += box_bytes(b);
    c->info.mailboxes++;
    while (c->bytes > c->max_bytes && c->tail && c->tail != b) {
      struct msi_box *e = c->tail;
      unlink_box(c, e);
      c->info.evictions++;
      drop_ref(e);
    }
  } else {
    b->refs = 1; // only the caller's
  }
  c->info.bytes = c->bytes;
  pthread_mutex_unlock(&c->lock);
  *out = b;
  return 1;
}

void msi_list(const struct msi_box *b, struct ms_entry *out, size_t out_cap, size_t *out_len,
              uint32_t first_uid) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->v[mid].uid < first_uid)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t n = 0;
  for (size_t i = lo; i < b->n && n < out_cap; i++, n++)
    out[n] = (struct ms_entry){b->v[i].uid, b->v[i].flags, b->v[i].message, b->v[i].modseq};
  *out_len = n;
}

size_t msi_changes(const struct msi_box *b, struct ms_entry *out, size_t out_cap, uint64_t since) {
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    if (b->v[i].modseq <= since)
      continue;
    if (n < out_cap)
      out[n] = (struct ms_entry){b->v[i].uid, b->v[i].flags, b->v[i].message, b->v[i].modseq};
    n++;
  }
  return n;
}

struct sort_ctx {
  const struct msi_ent *v;
  const uint32_t *keys;
  size_t nkeys;
};

static int ent_cmp(const struct sort_ctx *c, uint32_t x, uint32_t y) {
  const struct msi_ent *a = &c->v[x], *b = &c->v[y];
  for (size_t i = 0; i < c->nkeys; i++) {
    int r;
    uint32_t k = c->keys[i] & ~(uint32_t)MS_SORT_REVERSE;
    if (k == MS_SORT_ARRIVAL)
      r = (a->idate > b->idate) - (a->idate < b->idate);
    else if (k == MS_SORT_DATE)
      r = (a->date > b->date) - (a->date < b->date);
    else
      r = (a->size > b->size) - (a->size < b->size);
    if (r)
      return (c->keys[i] & MS_SORT_REVERSE) ? -r : r;
  }
  // Equal on every key: UID order, whatever MS_SORT_REVERSE says (RFC 5256).
  return (x > y) - (x < y);
}

static int ent_cmp_indices(const void *c, uint32_t x, uint32_t y) {
  return ent_cmp(c, x, y);
}

int msi_sort(ms_store *s, uint32_t *out, size_t out_cap, size_t *out_len, size_t *out_total,
             uint32_t acct, uint32_t mbox, const uint32_t *keys, size_t key_count, size_t offset) {
  if (!key_count)
    return 0;
  int dates = 0;
  for (size_t i = 0; i < key_count; i++) {
    uint32_t k = keys[i] & ~(uint32_t)MS_SORT_REVERSE;
    if (k != MS_SORT_ARRIVAL && k != MS_SORT_SIZE && k != MS_SORT_DATE)
      return 0;
    dates |= k == MS_SORT_DATE;
  }
  MDB_txn *t;
  int rc = txn_begin(s, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  struct msi_box *b = NULL;
  if ((rc = mbox_load(s, t, acct, mbox, &m)) == 0)
    rc = msi_get(s, t, acct, mbox, &m, 1, &b);
  txn_abort(s, t);
  if (rc <= 0)
    return rc;
  if (dates && b->no_dates) {
    msi_release(s, b);
    return 0;
  }
  if (b->n > UINT32_MAX) {
    msi_release(s, b);
    return MS_ERR_LIMIT;
  }
  struct msi_cache *cc = s->index;
  pthread_mutex_lock(&cc->lock);
  const uint32_t *order = key_count == 1 && b->order && b->order_key == keys[0] ? b->order : NULL;
  pthread_mutex_unlock(&cc->lock);
  uint32_t *idx = NULL;
  if (!order) {
    if (!(idx = malloc((b->n ? b->n : 1) * 2 * sizeof *idx))) {
      msi_release(s, b);
      return -ENOMEM;
    }
    for (size_t i = 0; i < b->n; i++)
      idx[i] = (uint32_t)i;
    struct sort_ctx c = {b->v, keys, key_count};
    meta_sort_indices(idx, idx + b->n, b->n, ent_cmp_indices, &c);
    order = idx;
  }
  size_t n = 0;
  for (size_t i = offset; i < b->n && n < out_cap; i++)
    out[n++] = b->v[order[i]].uid;
  *out_len = n;
  if (out_total)
    *out_total = b->n;
  if (idx && key_count == 1) {
    // Keep this order with the array if it has none and the bound allows.
    pthread_mutex_lock(&cc->lock);
    int cached = cc->head == b || b->prev || b->next;
    uint64_t more = b->n * sizeof *idx;
    if (!b->order && cached && cc->bytes + more <= cc->max_bytes) {
      uint32_t *kept = realloc(idx, (b->n ? b->n : 1) * sizeof *idx);
      b->order = kept ? kept : idx;
      b->order_key = keys[0];
      cc->bytes += more;
      cc->info.bytes = cc->bytes;
      idx = NULL;
    }
    pthread_mutex_unlock(&cc->lock);
  }
  free(idx);
  msi_release(s, b);
  return 1;
}

int ms_store_index_info(ms_store *store, struct ms_index_info *out) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  pthread_mutex_lock(&store->index->lock);
  *out = store->index->info;
  out->bytes = store->index->bytes;
  pthread_mutex_unlock(&store->index->lock);
  return 0;
}
