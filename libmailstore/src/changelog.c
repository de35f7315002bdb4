// changelog.c: the per-account change log behind JMAP /changes. Write
// paths log each created, updated or destroyed message and mailbox through
// a writer in their own transaction; the writer keeps the log within the
// retention settings in that same transaction, pruning VANISHED history to
// the same bound, and ms_account_changes folds a range of entries into the
// net changes RFC 8620 section 5.2 asks for.
#include "changelog.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t keep_count(const ms_store *s) {
  return s->set.changes_keep ? s->set.changes_keep : 20000;
}

static int64_t keep_seconds(const ms_store *s) {
  return s->set.changes_keep_seconds ? s->set.changes_keep_seconds : 30 * 86400;
}

static void entry_key(uint8_t k[12], uint32_t acct, uint64_t seq) {
  msr_be32(k, acct);
  msr_be64(k + 4, seq);
}

static int head_load(ms_store *s, MDB_txn *t, uint32_t acct, struct msr_clhead *h) {
  uint8_t k[4];
  msr_be32(k, acct);
  MDB_val v;
  int rc = get(t, s->changes, k, sizeof k, &v);
  if (rc == MS_ERR_NOTFOUND) {
    *h = (struct msr_clhead){.next_seq = 1};
    return 0;
  }
  return rc < 0 ? rc : msr_clhead_decode(h, v.mv_data, v.mv_size);
}

int cl_open(ms_store *s, MDB_txn *t, struct cl_writer *w) {
  w->s = s;
  w->t = t;
  w->nslot = 0;
  w->nseen = 0;
  w->append = 0;
  w->now = (int64_t)time(NULL);
  return lmdb_err(mdb_cursor_open(t, s->changes, &w->c));
}

static int slot_store(struct cl_writer *w, struct cl_slot *sl);

static struct cl_slot *slot_get(struct cl_writer *w, uint32_t acct, int *rc) {
  for (size_t i = 0; i < w->nslot; i++)
    if (w->slot[i].acct == acct)
      return &w->slot[i];
  // Full: write the first slot back; a later entry for its account
  // reloads the head this transaction now holds.
  if (w->nslot == CL_SLOTS) {
    if ((*rc = slot_store(w, &w->slot[0])) < 0)
      return NULL;
    memmove(&w->slot[0], &w->slot[1], (CL_SLOTS - 1) * sizeof w->slot[0]);
    w->nslot--;
  }
  struct msr_clhead h;
  if ((*rc = head_load(w->s, w->t, acct, &h)) < 0)
    return NULL;
  struct cl_slot *sl = &w->slot[w->nslot++];
  *sl = (struct cl_slot){
      .acct = acct, .next_seq = h.next_seq, .floor = h.floor, .vfloor = h.vfloor, .count = h.count};
  return sl;
}

// drop_entries deletes the account's entries with sequence numbers up to
// `through` (all when UINT64_MAX) and stops early, before the first entry
// still wanted, when age_only is set and the entry is recent; it advances
// floor over what it deleted, and vfloor too unless keep_vanished is set.
static int drop_entries(struct cl_writer *w, struct cl_slot *sl, uint64_t through, int age_only,
                        int keep_vanished) {
  uint8_t k[12];
  entry_key(k, sl->acct, sl->floor + 1);
  MDB_val key = val(k, sizeof k), v;
  int r = mdb_cursor_get(w->c, &key, &v, MDB_SET_RANGE);
  int64_t cutoff = w->now - keep_seconds(w->s);
  while (r == 0) {
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 4) != 0)
      break;
    const uint8_t *kb = key.mv_data;
    uint64_t seq = (uint64_t)msr_get_be32(kb + 4) << 32 | msr_get_be32(kb + 8);
    if (seq > through)
      break;
    struct msr_clentry e;
    if (msr_clentry_decode(&e, v.mv_data, v.mv_size) < 0)
      return MS_ERR_CORRUPT;
    if (age_only && e.time >= cutoff)
      break;
    int rc = lmdb_err(mdb_cursor_del(w->c, 0));
    if (rc < 0)
      return rc;
    sl->floor = seq;
    if (!keep_vanished && e.modseq > sl->vfloor)
      sl->vfloor = e.modseq;
    if (sl->count)
      sl->count--;
    // After a delete LMDB's MDB_NEXT yields the entry that followed.
    r = mdb_cursor_get(w->c, &key, &v, MDB_NEXT);
  }
  return r == 0 || r == MDB_NOTFOUND ? 0 : lmdb_err(r);
}

// prune_vanished deletes the VANISHED entries of every mailbox of the
// account with MODSEQ <= vfloor: ms_mailbox_changes cannot answer for
// those MODSEQs any more and says so.
static int prune_vanished(struct cl_writer *w, uint32_t acct, uint64_t vfloor) {
  MDB_cursor *c;
  int rc = lmdb_err(mdb_cursor_open(w->t, w->s->vanished, &c));
  if (rc < 0)
    return rc;
  uint8_t k[20] = {0};
  msr_be32(k, acct);
  MDB_val key = val(k, sizeof k), v;
  int r = mdb_cursor_get(c, &key, &v, MDB_SET_RANGE);
  while (r == 0 && rc == 0) {
    const uint8_t *kb = key.mv_data;
    if (key.mv_size != 20 || msr_get_be32(kb) != acct)
      break;
    uint64_t modseq = (uint64_t)msr_get_be32(kb + 8) << 32 | msr_get_be32(kb + 12);
    if (modseq <= vfloor) {
      memcpy(k, kb, sizeof k);
      if ((rc = lmdb_err(mdb_cursor_del(c, 0))) < 0)
        break;
      // Search again from the deleted key, which is now absent.
      key = val(k, sizeof k);
      r = mdb_cursor_get(c, &key, &v, MDB_SET_RANGE);
      continue;
    }
    // Skip the rest of this mailbox: its later entries are newer.
    uint32_t mbox = msr_get_be32(kb + 4);
    if (mbox == UINT32_MAX)
      break;
    memset(k, 0, sizeof k);
    msr_be32(k, acct);
    msr_be32(k + 4, mbox + 1);
    key = val(k, sizeof k);
    r = mdb_cursor_get(c, &key, &v, MDB_SET_RANGE);
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(c);
  return rc;
}

// slot_store applies retention to one account and writes its head.
static int slot_store(struct cl_writer *w, struct cl_slot *sl) {
  // The head's key may lie beyond the entries: decide appending anew.
  w->append = 0;
  uint64_t keep = keep_count(w->s), vfloor = sl->vfloor;
  int rc = 0;
  if (sl->overflow) {
    // This transaction alone changed more than the log keeps: drop every
    // entry; no earlier state can be answered. VANISHED history stays
    // complete (the expunges of this transaction are recorded there as
    // always), so its bound does not move: a large STORE must not cost
    // QRESYNC clients their VANISHED answers.
    rc = drop_entries(w, sl, UINT64_MAX, 0, 1);
    sl->floor = sl->next_seq - 1;
    sl->count = 0;
  } else if (sl->count > keep + keep / 8) {
    rc = drop_entries(w, sl, sl->floor + (sl->count - keep), 0, 0);
  }
  if (rc == 0)
    rc = drop_entries(w, sl, UINT64_MAX, 1, 0);
  if (rc == 0 && sl->vfloor > vfloor)
    rc = prune_vanished(w, sl->acct, sl->vfloor);
  if (rc < 0)
    return rc;
  uint8_t k[4], buf[MSR_CLHEAD_LEN];
  msr_be32(k, sl->acct);
  struct msr_clhead h = {
      .next_seq = sl->next_seq, .floor = sl->floor, .vfloor = sl->vfloor, .count = sl->count};
  msr_clhead_encode(buf, &h);
  return put(w->t, w->s->changes, k, sizeof k, buf, sizeof buf, 0);
}

int cl_add(struct cl_writer *w, uint32_t acct, int kind, int type, uint64_t id, uint64_t modseq) {
  if (type == CL_COUNTS) {
    for (size_t i = 0; i < w->nseen; i++)
      if (w->seen[i].acct == acct && w->seen[i].mbox == id)
        return 0;
    if (w->nseen < CL_SEEN) {
      w->seen[w->nseen].acct = acct;
      w->seen[w->nseen].mbox = (uint32_t)id;
      w->nseen++;
    }
  }
  int rc = 0;
  struct cl_slot *sl = slot_get(w, acct, &rc);
  if (!sl)
    return rc;
  uint64_t seq = sl->next_seq++;
  sl->added++;
  if (sl->overflow)
    return 0;
  if (sl->added > keep_count(w->s)) {
    // Writing the rest would only have it pruned at the end.
    sl->overflow = 1;
    return 0;
  }
  uint8_t k[12], buf[MSR_CLENTRY_LEN];
  entry_key(k, acct, seq);
  struct msr_clentry e = {
      .kind = (uint32_t)kind, .type = (uint32_t)type, .id = id, .modseq = modseq, .time = w->now};
  msr_clentry_encode(buf, &e);
  MDB_val key = val(k, sizeof k), data = val(buf, sizeof buf);
  if (w->append == 0) {
    MDB_val lk, ld;
    int r = mdb_cursor_get(w->c, &lk, &ld, MDB_LAST);
    if (r != 0 && r != MDB_NOTFOUND)
      return lmdb_err(r);
    int cmp = 1; // k against the last key, in LMDB's memcmp order
    if (r == 0) {
      size_t n = lk.mv_size < sizeof k ? lk.mv_size : sizeof k;
      cmp = memcmp(k, lk.mv_data, n);
      if (cmp == 0)
        cmp = sizeof k > lk.mv_size ? 1 : -1;
    }
    w->append = cmp > 0 ? 1 : 2;
  } else if (w->append == 1 && memcmp(k, w->last, sizeof k) <= 0) {
    w->append = 2; // another account's entries came in between
  }
  if ((rc = lmdb_err(mdb_cursor_put(w->c, &key, &data, w->append == 1 ? MDB_APPEND : 0))) < 0)
    return rc;
  memcpy(w->last, k, sizeof k);
  sl->count++;
  return 0;
}

int cl_expect(struct cl_writer *w, uint32_t acct, size_t n) {
  if (n <= keep_count(w->s))
    return 0;
  int rc = 0;
  struct cl_slot *sl = slot_get(w, acct, &rc);
  if (sl)
    sl->overflow = 1;
  return rc;
}

int cl_close(struct cl_writer *w, int ok) {
  int rc = 0;
  for (size_t i = 0; ok && rc == 0 && i < w->nslot; i++)
    rc = slot_store(w, &w->slot[i]);
  mdb_cursor_close(w->c);
  w->c = NULL;
  return rc;
}

int cl_log1(ms_store *s, MDB_txn *t, uint32_t acct, int kind, int type, uint64_t id,
            uint64_t modseq) {
  struct cl_writer w;
  int rc = cl_open(s, t, &w);
  if (rc < 0)
    return rc;
  rc = cl_add(&w, acct, kind, type, id, modseq);
  int cr = cl_close(&w, rc >= 0);
  return rc < 0 ? rc : cr;
}

int cl_vanished_floor(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t *out) {
  struct msr_clhead h;
  int rc = head_load(s, t, acct, &h);
  *out = rc == 0 ? h.vfloor : 0;
  return rc;
}

int ms_account_state(ms_store *store, uint64_t *out, uint32_t account) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  *out = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_account a;
  struct msr_clhead h;
  if ((rc = acct_load(store, t, account, &a)) == 0 && (rc = head_load(store, t, account, &h)) == 0)
    *out = h.next_seq - 1;
  txn_abort(store, t);
  return rc;
}

// fold is the open-addressing index from (kind, id) to a position in the
// caller's output while ms_account_changes merges entries.
struct fold {
  uint32_t *slot; // position + 1, 0 empty
  size_t mask;
};

static size_t fold_hash(uint32_t kind, uint64_t id, size_t mask) {
  uint64_t x = id * 0x9e3779b97f4a7c15ull ^ kind;
  return (size_t)(x ^ x >> 29) & mask;
}

static int changes_tx(ms_store *s, MDB_txn *t, struct ms_change *out, size_t max, size_t *out_len,
                      uint64_t *new_state, int *has_more, uint32_t acct, uint32_t kinds,
                      uint64_t since, struct fold *f) {
  struct msr_account a;
  struct msr_clhead h;
  int rc = acct_load(s, t, acct, &a);
  if (rc < 0 || (rc = head_load(s, t, acct, &h)) < 0)
    return rc;
  uint64_t state = h.next_seq - 1;
  if (since > state)
    return MS_ERR_INVALID_ARGUMENT;
  if (since < h.floor)
    return MS_ERR_EXPIRED;
  *new_state = state;
  MDB_cursor *c;
  if ((rc = lmdb_err(mdb_cursor_open(t, s->changes, &c))) < 0)
    return rc;
  uint8_t k[12];
  entry_key(k, acct, since + 1);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  size_t n = 0;
  while ((r = mdb_cursor_get(c, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 4) != 0)
      break;
    const uint8_t *kb = key.mv_data;
    uint64_t seq = (uint64_t)msr_get_be32(kb + 4) << 32 | msr_get_be32(kb + 8);
    struct msr_clentry e;
    if ((rc = msr_clentry_decode(&e, v.mv_data, v.mv_size)) < 0)
      break;
    if (!(kinds & e.kind))
      continue;
    size_t i = fold_hash(e.kind, e.id, f->mask);
    while (f->slot[i] && (out[f->slot[i] - 1].kind != e.kind || out[f->slot[i] - 1].id != e.id))
      i = (i + 1) & f->mask;
    if (!f->slot[i]) {
      if (n == max) {
        // The entries before this one bring the caller to state seq - 1.
        *new_state = seq - 1;
        *has_more = 1;
        break;
      }
      out[n] = (struct ms_change){e.kind, e.type, e.id};
      f->slot[i] = (uint32_t)++n;
      continue;
    }
    struct ms_change *o = &out[f->slot[i] - 1];
    // Net effect of the earlier type o->type followed by e.type; 0 marks
    // an object created and destroyed within the range.
    if (o->type == 0)
      continue;
    if (e.type == CL_DESTROYED)
      o->type = o->type == CL_CREATED ? 0 : CL_DESTROYED;
    else if (e.type == CL_UPDATED && o->type == CL_COUNTS)
      o->type = CL_UPDATED;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(c);
  if (rc < 0)
    return rc;
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (out[i].type != 0)
      out[w++] = out[i];
  *out_len = w;
  return 0;
}

int ms_account_changes(ms_store *store, struct ms_change *out, size_t out_cap, size_t *out_len,
                       uint64_t *out_new_state, int *out_has_more, uint32_t account, uint32_t kinds,
                       uint64_t since_state, size_t max_changes) {
  if (!store || !out || !out_len || !out_new_state || !out_has_more || out_cap == 0 ||
      max_changes == 0 || !(kinds & (MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX)) ||
      (kinds & ~(uint32_t)(MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX)))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  *out_new_state = since_state;
  *out_has_more = 0;
  size_t max = max_changes < out_cap ? max_changes : out_cap;
  if (max > UINT32_MAX / 4)
    max = UINT32_MAX / 4;
  size_t cap = 16;
  while (cap < max * 2)
    cap *= 2;
  struct fold f = {calloc(cap, sizeof *f.slot), cap - 1};
  if (!f.slot)
    return -ENOMEM;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc == 0) {
    rc = changes_tx(store, t, out, max, out_len, out_new_state, out_has_more, account, kinds,
                    since_state, &f);
    txn_abort(store, t);
  }
  free(f.slot);
  if (rc < 0) {
    *out_len = 0;
    *out_new_state = since_state;
    *out_has_more = 0;
  }
  return rc;
}

int cl_verify(ms_store *s, MDB_txn *t, struct ms_diag *d) {
  MDB_cursor *c;
  int rc = lmdb_err(mdb_cursor_open(t, s->changes, &c));
  if (rc < 0)
    return rc;
  MDB_val key, v;
  int r;
  struct msr_clhead h = {0};
  uint32_t acct = 0;
  uint64_t seen = 0, last = 0;
  int have = 0;
  const char *why = NULL;
  while ((r = mdb_cursor_get(c, &key, &v, MDB_NEXT)) == 0) {
    const uint8_t *kb = key.mv_data;
    if (key.mv_size == 4) {
      if (have && seen != h.count) {
        why = "kept entries do not match the head's count";
        break;
      }
      acct = msr_get_be32(kb);
      struct msr_account a;
      if (msr_clhead_decode(&h, v.mv_data, v.mv_size) < 0 || acct_load(s, t, acct, &a) < 0) {
        why = "a head record does not decode or has no account";
        break;
      }
      have = 1;
      seen = 0;
      last = h.floor;
      continue;
    }
    struct msr_clentry e;
    if (key.mv_size != 12 || !have || msr_get_be32(kb) != acct ||
        msr_clentry_decode(&e, v.mv_data, v.mv_size) < 0) {
      // Named for the account its key names, not the head before it.
      if (key.mv_size >= 4)
        acct = msr_get_be32(kb);
      why = "an entry does not decode or has no head";
      break;
    }
    uint64_t seq = (uint64_t)msr_get_be32(kb + 4) << 32 | msr_get_be32(kb + 8);
    if (seq <= last || seq >= h.next_seq) {
      why = "an entry lies outside its head's range";
      break;
    }
    last = seq;
    seen++;
  }
  if (!why && have && r == MDB_NOTFOUND && seen != h.count)
    why = "kept entries do not match the head's count";
  mdb_cursor_close(c);
  if (why) {
    if (d)
      snprintf(d->message, sizeof d->message, "change log of account %u: %s", acct, why);
    return MS_ERR_CORRUPT;
  }
  return r == MDB_NOTFOUND || r == 0 ? 0 : lmdb_err(r);
}
