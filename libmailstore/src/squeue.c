// squeue.c: the search queue (FORMAT.md "search queue entry"): the entries
// deliveries and expunges append in their own transactions (squeue_next,
// squeue_push), and the reading and acknowledging an indexer does
// (ms_search_queue_read, ms_search_queue_ack).
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <lmdb.h>
#include <stdint.h>

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
