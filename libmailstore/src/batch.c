// batch.c: the operations on many messages of one mailbox at once:
// ms_flags_store, ms_messages_copy, ms_messages_move and
// ms_messages_expunge, each one write transaction, or several in parts
// when the whole does not fit (run_in_parts).
//
// They work on the selection (struct sel, store_internal.h)
// sorted by UID, so that each record they touch lies next to the previous
// one: cursor lookups stay on the same leaf page, and new keys go in
// increasing order.
#include "changelog.h"
#include "mailstore.h"
#include "meta.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int sel_cmp(const void *a, const void *b) {
  uint32_t x = ((const struct sel *)a)->uid, y = ((const struct sel *)b)->uid;
  return (x > y) - (x < y);
}

// sel_build fills c->sel from c->uids: sorted by UID, a repeated UID kept
// once (its first position). Most callers pass increasing UIDs (IMAP
// sequence sets), which skips the sort.
int sel_build(struct batch_ctx *c) {
  c->nsel = 0;
  c->sel = NULL;
  if (!c->count)
    return 0;
  c->sel = malloc(c->count * sizeof *c->sel);
  if (!c->sel)
    return -ENOMEM;
  int sorted = 1;
  for (size_t i = 0; i < c->count; i++) {
    c->sel[i] = (struct sel){c->uids[i], (uint32_t)i};
    if (i && c->uids[i] <= c->uids[i - 1])
      sorted = 0;
  }
  c->nsel = c->count;
  if (sorted)
    return 0;
  // qsort is not stable: order equal UIDs by position so the first is kept.
  qsort(c->sel, c->nsel, sizeof *c->sel, sel_cmp);
  size_t w = 0;
  for (size_t i = 0; i < c->nsel; i++) {
    if (w && c->sel[w - 1].uid == c->sel[i].uid) {
      if (c->sel[i].idx < c->sel[w - 1].idx)
        c->sel[w - 1].idx = c->sel[i].idx;
      continue;
    }
    c->sel[w++] = c->sel[i];
  }
  c->nsel = w;
  return 0;
}

// seq is a cursor through which a transaction writes increasing keys; when
// the first key lies beyond the DBI's last one, every put is an MDB_APPEND,
// which fills pages to the end instead of splitting them in the middle.
struct seq {
  MDB_cursor *c;
  int mode; // 0 not decided, 1 append, 2 ordinary put
};

static int seq_put(struct seq *q, const void *k, size_t kn, const void *v, size_t vn) {
  MDB_val key = val(k, kn), data = val(v, vn);
  if (q->mode == 0) {
    MDB_val lk, ld;
    int r = mdb_cursor_get(q->c, &lk, &ld, MDB_LAST);
    if (r == MDB_NOTFOUND) {
      q->mode = 1;
    } else if (r != 0) {
      return lmdb_err(r);
    } else {
      size_t n = lk.mv_size < kn ? lk.mv_size : kn;
      int cmp = memcmp(lk.mv_data, k, n);
      q->mode = cmp < 0 || (cmp == 0 && lk.mv_size < kn) ? 1 : 2;
    }
  }
  return lmdb_err(mdb_cursor_put(q->c, &key, &data, q->mode == 1 ? MDB_APPEND : 0));
}

// cursor_seek positions `c` on key k (kn bytes) and decodes nothing: returns
// 1 found (value in *v), 0 absent, < 0 error. A cursor already on the same
// leaf page finds the key without descending from the root.
static int cursor_seek(MDB_cursor *c, const void *k, size_t kn, MDB_val *v) {
  MDB_val key = val(k, kn);
  int r = mdb_cursor_get(c, &key, v, MDB_SET);
  if (r == MDB_NOTFOUND)
    return 0;
  return r ? lmdb_err(r) : 1;
}

// cursors opens the cursors a batch needs; NULL entries are skipped.
static int cursors_open(MDB_txn *t, MDB_cursor **c[], const MDB_dbi *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    *c[i] = NULL;
    int rc = lmdb_err(mdb_cursor_open(t, d[i], c[i]));
    if (rc < 0)
      return rc;
  }
  return 0;
}

static void cursors_close(MDB_cursor **c[], size_t n) {
  for (size_t i = 0; i < n; i++)
    if (*c[i])
      mdb_cursor_close(*c[i]);
}

// walk_seek finds UID `uid` of the mailbox whose uid keys start with
// prefix, through cursor c; *at is the UID c is on (0: unknown). Called
// with increasing UIDs, it mostly steps to the next record (MDB_NEXT)
// instead of searching, which is what marking a whole mailbox needs.
// Returns 1 found (value in *v), 0 absent, < 0 error.
int walk_seek(MDB_cursor *c, const uint8_t prefix[8], uint32_t uid, uint32_t *at, MDB_val *v) {
  MDB_val k;
  int r;
  if (*at && uid == *at) {
    r = mdb_cursor_get(c, &k, v, MDB_GET_CURRENT);
    return r ? lmdb_err(r) : 1;
  }
  if (*at && uid < *at)
    return 0;
  if (*at) {
    r = mdb_cursor_get(c, &k, v, MDB_NEXT);
    if (r != 0 && r != MDB_NOTFOUND)
      return lmdb_err(r);
    if (r == MDB_NOTFOUND || k.mv_size != 12 || memcmp(k.mv_data, prefix, 8) != 0) {
      *at = 0; // past the mailbox's last record
      return 0;
    }
    *at = msr_get_be32((const uint8_t *)k.mv_data + 8);
    if (*at >= uid)
      return *at == uid;
  }
  uint8_t key[12];
  memcpy(key, prefix, 8);
  msr_be32(key + 8, uid);
  k = val(key, sizeof key);
  r = mdb_cursor_get(c, &k, v, MDB_SET);
  *at = r == 0 ? uid : 0;
  if (r == MDB_NOTFOUND)
    return 0;
  return r ? lmdb_err(r) : 1;
}

static int flags_tx(ms_store *s, MDB_txn *t, void *p) {
  struct batch_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox m;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->src, &m)) < 0)
    return rc;
  MDB_cursor *uc;
  if ((rc = lmdb_err(mdb_cursor_open(t, s->uids, &uc))) < 0)
    return rc;
  // One MODSEQ for the whole batch: RFC 7162 lets messages changed by one
  // operation share a value, and it keeps the account counter compact.
  uint64_t modseq = a.modseq + 1;
  int changed = 0;
  uint32_t at = 0, unseen = m.unseen;
  struct cl_writer w;
  if ((rc = cl_open(s, t, &w)) < 0 || (rc = cl_expect(&w, c->acct, c->nsel)) < 0) {
    mdb_cursor_close(uc);
    return rc;
  }
  for (size_t i = 0; i < c->nsel; i++) {
    uint8_t k[12];
    uid_key(k, c->acct, c->src, c->sel[i].uid);
    MDB_val v;
    if ((rc = walk_seek(uc, k, c->sel[i].uid, &at, &v)) <= 0) {
      if (rc < 0)
        break;
      continue;
    }
    struct msr_uid u;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
      break;
    uint32_t nf = (u.flags | c->add) & ~c->remove;
    if (nf == u.flags)
      continue;
    // Only \Seen moves a count; the size stays, so the message record is
    // not read.
    mbox_count_flags(&m, u.flags, nf);
    u.flags = nf;
    u.modseq = modseq;
    uint8_t buf[MSR_UID_MAX];
    size_t bn = msr_uid_encode(buf, &u);
    MDB_val key = val(k, sizeof k), data = val(buf, bn);
    if ((rc = lmdb_err(mdb_cursor_put(uc, &key, &data, MDB_CURRENT))) < 0 ||
        (rc = cl_add(&w, c->acct, CL_MESSAGE, CL_UPDATED, u.message, modseq)) < 0)
      break;
    changed++;
  }
  mdb_cursor_close(uc);
  if (rc >= 0 && m.unseen != unseen)
    rc = cl_add(&w, c->acct, CL_MAILBOX, CL_COUNTS, c->src, modseq);
  int cr = cl_close(&w, rc >= 0);
  if (rc < 0 || (rc = cr) < 0)
    return rc;
  if (changed) {
    a.modseq = modseq;
    m.highest_modseq = modseq;
    if ((rc = mbox_store(s, t, c->acct, c->src, &m)) < 0 ||
        (rc = acct_store(s, t, c->acct, &a)) < 0)
      return rc;
  }
  return changed;
}

// The state of one move, copy or expunge transaction.
struct xfer {
  ms_store *s;
  uint32_t acct;
  struct msr_account a;
  MDB_cursor *uc, *mc; // source uid records, message records
  struct seq van, dst; // vanished entries, destination uid records
  struct seq rel;      // blob release queue
  uint64_t rel_next;
  MDB_cursor *sq; // search queue: a destroyed message's removal
  uint64_t sq_next;
  uint64_t modseq;
  MDB_cursor *sc; // summaries: deleted in id order without root descents
};

// xfer_remove deletes the uid record under x->uc (UID uid of mailbox mbox,
// decoded in *u), recording it as vanished, and updates *m's counts with
// the message's size. With release, the message loses this membership and
// is destroyed when it has no other: its record goes and its blob joins the
// release queue (ms_store_collect drops the blob reference later).
static int xfer_remove(struct xfer *x, uint32_t mbox, struct msr_mailbox *m, uint32_t uid,
                       const struct msr_uid *u, const struct msr_message *msg, int release) {
  int rc = lmdb_err(mdb_cursor_del(x->uc, 0));
  if (rc < 0)
    return rc;
  uint8_t vk[20];
  msr_be32(vk, x->acct);
  msr_be32(vk + 4, mbox);
  msr_be64(vk + 8, x->modseq);
  msr_be32(vk + 16, uid);
  if ((rc = seq_put(&x->van, vk, sizeof vk, "", 0)) < 0)
    return rc;
  mbox_count_sub(m, u->flags, msg->size);
  if (!release)
    return 0;
  if (msg->refs > 1) {
    struct msr_message nm = *msg;
    nm.refs--;
    uint8_t mk[12], buf[MSR_MESSAGE_LEN];
    msr_be32(mk, x->acct);
    msr_be64(mk + 4, u->message);
    msr_message_encode(buf, &nm);
    MDB_val key = val(mk, sizeof mk), data = val(buf, sizeof buf);
    return lmdb_err(mdb_cursor_put(x->mc, &key, &data, MDB_CURRENT));
  }
  if ((rc = lmdb_err(mdb_cursor_del(x->mc, 0))) < 0 ||
      (rc = meta_destroy_at(x->sc, x->acct, u->message)) < 0)
    return rc;
  uint8_t rk[8];
  msr_be64(rk, x->rel_next++);
  if ((rc = seq_put(&x->rel, rk, sizeof rk, msg->blob, 32)) < 0 ||
      (rc = squeue_push(x->sq, &x->sq_next, MS_SEARCH_REMOVE, x->acct, u->message)) < 0)
    return rc;
  x->a.used_bytes -= msg->size;
  x->a.used_messages--;
  return 0;
}

// xfer_message positions x->mc on the message u names and decodes it.
static int xfer_message(struct xfer *x, const struct msr_uid *u, struct msr_message *msg) {
  uint8_t mk[12];
  msr_be32(mk, x->acct);
  msr_be64(mk + 4, u->message);
  MDB_val v;
  int rc = cursor_seek(x->mc, mk, sizeof mk, &v);
  if (rc <= 0)
    return rc == 0 ? MS_ERR_CORRUPT : rc;
  return msr_message_decode(msg, v.mv_data, v.mv_size);
}

enum { XFER_COPY, XFER_MOVE, XFER_EXPUNGE };

// xfer_tx runs a copy, move or expunge of c->sel in one transaction.
static int xfer_tx(ms_store *s, MDB_txn *t, struct batch_ctx *c, int op) {
  struct xfer x = {.s = s, .acct = c->acct};
  struct msr_mailbox src, dst;
  int rc = acct_load(s, t, c->acct, &x.a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->src, &src)) < 0 ||
      (op != XFER_EXPUNGE && (rc = mbox_load(s, t, c->acct, c->dst, &dst)) < 0))
    return rc;
  x.modseq = x.a.modseq + 1;
  struct cl_writer w;
  if ((rc = cl_open(s, t, &w)) < 0 || (rc = cl_expect(&w, c->acct, c->nsel)) < 0)
    return rc;
  MDB_cursor **cs[] = {&x.uc, &x.mc, &x.van.c, &x.dst.c, &x.rel.c, &x.sq, &x.sc};
  const MDB_dbi ds[] = {s->uids,    s->messages, s->vanished, s->uids,
                        s->release, s->squeue,   s->summaries};
  size_t ncs = sizeof cs / sizeof cs[0];
  if ((rc = cursors_open(t, cs, ds, ncs)) < 0) {
    cursors_close(cs, ncs);
    return rc;
  }
  if (op == XFER_EXPUNGE)
    if ((rc = queue_next(x.rel.c, &x.rel_next)) == 0)
      rc = squeue_next(s, t, x.sq, &x.sq_next);
  int n = 0;
  for (size_t i = 0; rc >= 0 && i < c->nsel; i++) {
    uint32_t uid = c->sel[i].uid, idx = c->sel[i].idx;
    if (c->out_uids)
      c->out_uids[idx] = 0;
    uint8_t k[12];
    uid_key(k, c->acct, c->src, uid);
    MDB_val v;
    struct msr_uid u;
    struct msr_message msg;
    if ((rc = cursor_seek(x.uc, k, sizeof k, &v)) <= 0)
      continue;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0 ||
        (rc = xfer_message(&x, &u, &msg)) < 0)
      break;
    if (op == XFER_COPY) {
      msg.refs++;
      uint8_t mk[12], buf[MSR_MESSAGE_LEN];
      msr_be32(mk, c->acct);
      msr_be64(mk + 4, u.message);
      msr_message_encode(buf, &msg);
      MDB_val key = val(mk, sizeof mk), data = val(buf, sizeof buf);
      rc = lmdb_err(mdb_cursor_put(x.mc, &key, &data, MDB_CURRENT));
    } else {
      rc = xfer_remove(&x, c->src, &src, uid, &u, &msg, op == XFER_EXPUNGE);
    }
    // An expunge of the last membership destroys the message; anything
    // else changes its mailboxes.
    if (rc < 0 || (rc = cl_add(&w, c->acct, CL_MESSAGE,
                               op == XFER_EXPUNGE && msg.refs == 1 ? CL_DESTROYED : CL_UPDATED,
                               u.message, x.modseq)) < 0)
      break;
    n++;
    if (op == XFER_EXPUNGE)
      continue;
    if (dst.uidnext == UINT32_MAX) {
      rc = MS_ERR_LIMIT;
      break;
    }
    uint32_t nu = dst.uidnext++;
    u.modseq = x.modseq;
    uint8_t dk[12], buf[MSR_UID_MAX];
    uid_key(dk, c->acct, c->dst, nu);
    size_t bn = msr_uid_encode(buf, &u);
    if ((rc = seq_put(&x.dst, dk, sizeof dk, buf, bn)) < 0)
      break;
    mbox_count_add(&dst, u.flags, msg.size);
    if (c->out_uids)
      c->out_uids[idx] = nu;
  }
  cursors_close(cs, ncs);
  if (rc >= 0 && n && op != XFER_COPY)
    rc = cl_add(&w, c->acct, CL_MAILBOX, CL_COUNTS, c->src, x.modseq);
  if (rc >= 0 && n && op != XFER_EXPUNGE)
    rc = cl_add(&w, c->acct, CL_MAILBOX, CL_COUNTS, c->dst, x.modseq);
  int cr = cl_close(&w, rc >= 0);
  if (rc < 0 || (rc = cr) < 0)
    return rc;
  if (n) {
    x.a.modseq = x.modseq;
    if (op != XFER_COPY) {
      src.highest_modseq = x.modseq;
      if ((rc = mbox_store(s, t, c->acct, c->src, &src)) < 0)
        return rc;
    }
    if (op != XFER_EXPUNGE) {
      dst.highest_modseq = x.modseq;
      if ((rc = mbox_store(s, t, c->acct, c->dst, &dst)) < 0)
        return rc;
    }
    if ((rc = acct_store(s, t, c->acct, &x.a)) < 0)
      return rc;
  }
  return n;
}

static int copy_tx(ms_store *s, MDB_txn *t, void *p) {
  return xfer_tx(s, t, p, XFER_COPY);
}

static int move_tx(ms_store *s, MDB_txn *t, void *p) {
  return xfer_tx(s, t, p, XFER_MOVE);
}

int expunge_tx(ms_store *s, MDB_txn *t, void *p) {
  struct batch_ctx *c = p;
  if (c->uids)
    return xfer_tx(s, t, c, XFER_EXPUNGE);
  struct batch_ctx d = *c;
  size_t cap = 0;
  d.sel = NULL;
  d.nsel = 0;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur));
  if (rc < 0)
    return rc;
  uint8_t k[12];
  uid_key(k, c->acct, c->src, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
      break;
    struct msr_uid u;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
      break;
    if (!c->every && !(u.flags & MS_FLAG_DELETED))
      continue;
    if (c->limit && d.nsel == c->limit)
      break;
    if (d.nsel == cap) {
      cap = cap ? cap * 2 : 256;
      struct sel *ns = realloc(d.sel, cap * sizeof *ns);
      if (!ns) {
        rc = -ENOMEM;
        break;
      }
      d.sel = ns;
    }
    d.sel[d.nsel] = (struct sel){msr_get_be32((const uint8_t *)key.mv_data + 8), (uint32_t)d.nsel};
    d.nsel++;
  }
  mdb_cursor_close(cur);
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (rc == 0)
    rc = xfer_tx(s, t, &d, XFER_EXPUNGE);
  free(d.sel);
  return rc;
}

int batch_check(ms_store *s, const uint32_t *uids, size_t count) {
  if (!s || (!uids && count))
    return MS_ERR_INVALID_ARGUMENT;
  if (count > s->set.max_batch || count > INT32_MAX)
    return MS_ERR_LIMIT;
  return 0;
}

// PART_FIRST is the first part run_in_parts tries after an open-ended
// operation did not fit as a whole.
#define PART_FIRST 4096

int run_in_parts(ms_store *store, part_fn run, void *ctx, size_t count) {
  if (count == 0)
    return run(store, ctx, 0, 0);
  size_t part = count, done = 0;
  int total = 0;
  while (done < count) {
    size_t n = count - done < part ? count - done : part;
    int rc = run(store, ctx, done, n);
    if (rc == -ENOSPC && n > 1) {
      part = n == SIZE_MAX ? PART_FIRST : n / 2;
      continue;
    }
    if (rc < 0)
      return total ? total : rc;
    total += rc;
    done += n;
    if (count == SIZE_MAX && (size_t)rc < n)
      break;
  }
  return total;
}

// batch_run runs the batch c (its selection built here) with tx as one
// write of class `room`.
static int batch_run(ms_store *store, write_fn tx, struct batch_ctx *c, enum write_room room) {
  int rc = sel_build(c);
  if (rc < 0)
    return rc;
  rc = run_write_room(store, tx, c, room);
  free(c->sel);
  return rc;
}

// flags_part changes the flags of the n UIDs of ctx (struct batch_ctx) from
// `first`.
static int flags_part(ms_store *store, void *ctx, size_t first, size_t n) {
  const struct batch_ctx *p = ctx;
  struct batch_ctx c = {.acct = p->acct,
                        .src = p->src,
                        .add = p->add,
                        .remove = p->remove,
                        .uids = p->uids ? p->uids + first : NULL,
                        .count = n};
  return batch_run(store, flags_tx, &c, ROOM_CHANGE);
}

int ms_flags_store(ms_store *store, uint32_t account, uint32_t mailbox, const uint32_t *uids,
                   size_t count, uint32_t add, uint32_t remove) {
  int rc = batch_check(store, uids, count);
  if (rc < 0)
    return rc;
  if ((add | remove) & ~(uint32_t)MS_FLAG_ALL)
    return MS_ERR_INVALID_ARGUMENT;
  struct batch_ctx c = {
      .acct = account, .src = mailbox, .add = add, .remove = remove, .uids = uids, .count = count};
  return run_in_parts(store, flags_part, &c, count);
}

// transfer runs a copy or a move (`tx`) of `count` messages from `src` to
// `dst` in one write transaction, after the checks both share. A copy adds
// mail; a move only changes it (write_room).
static int transfer(ms_store *store, write_fn tx, uint32_t *out_uids, uint32_t account,
                    uint32_t src, uint32_t dst, const uint32_t *uids, size_t count) {
  int rc = batch_check(store, uids, count);
  if (rc < 0)
    return rc;
  if (src == dst)
    return MS_ERR_INVALID_ARGUMENT;
  struct batch_ctx c = {
      .acct = account, .src = src, .dst = dst, .uids = uids, .count = count, .out_uids = out_uids};
  // A repeated UID is transferred once; its other positions report 0.
  if (out_uids && count)
    memset(out_uids, 0, count * sizeof *out_uids);
  rc = batch_run(store, tx, &c, tx == move_tx ? ROOM_CHANGE : ROOM_ADD);
  // The transaction wrote new UIDs as it went; rolled back, they name
  // nothing.
  if (rc < 0 && out_uids && count)
    memset(out_uids, 0, count * sizeof *out_uids);
  return rc;
}

int ms_messages_copy(ms_store *store, uint32_t *out_uids, uint32_t account, uint32_t src,
                     uint32_t dst, const uint32_t *uids, size_t count) {
  return transfer(store, copy_tx, out_uids, account, src, dst, uids, count);
}

// move_part moves the n UIDs of ctx (struct batch_ctx) from `first`.
static int move_part(ms_store *store, void *ctx, size_t first, size_t n) {
  const struct batch_ctx *c = ctx;
  // An empty batch may come with NULL arrays: no offset applies to those.
  return transfer(store, move_tx, c->out_uids ? c->out_uids + first : NULL, c->acct, c->src, c->dst,
                  c->uids ? c->uids + first : NULL, n);
}

int ms_messages_move(ms_store *store, uint32_t *out_uids, uint32_t account, uint32_t src,
                     uint32_t dst, const uint32_t *uids, size_t count) {
  // RFC 6851 3.3 lets a move stop partway, each message moved or left.
  struct batch_ctx c = {
      .acct = account, .src = src, .dst = dst, .uids = uids, .count = count, .out_uids = out_uids};
  return run_in_parts(store, move_part, &c, count);
}

int expunge_part(ms_store *store, void *ctx, size_t first, size_t n) {
  const struct batch_ctx *p = ctx;
  struct batch_ctx c = {.acct = p->acct, .src = p->src, .every = p->every};
  if (p->uids) {
    c.uids = p->uids + first;
    c.count = n;
  } else {
    c.limit = n;
  }
  return batch_run(store, expunge_tx, &c, ROOM_REMOVE);
}

int ms_messages_expunge(ms_store *store, uint32_t account, uint32_t mailbox, const uint32_t *uids,
                        size_t count) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  if (uids) {
    int rc = batch_check(store, uids, count);
    if (rc < 0)
      return rc;
  }
  struct batch_ctx c = {.acct = account, .src = mailbox, .uids = uids, .count = count};
  return run_in_parts(store, expunge_part, &c, uids ? count : SIZE_MAX);
}
