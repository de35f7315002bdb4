// mailboxes.c: enumerating an account's mailboxes (and reading their names)
// and its messages, what a per-account export, an IMAP LIST or a search
// index rebuild needs; read-only walks of the names, mailboxes and messages
// DBIs (FORMAT.md).
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <string.h>

int ms_account_mailboxes(ms_store *store, uint32_t *out, size_t out_cap, size_t *out_len,
                         uint32_t account) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_account a;
  MDB_cursor *cur = NULL;
  size_t n = 0;
  if ((rc = acct_load(store, t, account, &a)) == 0 &&
      (rc = lmdb_err(mdb_cursor_open(t, store->names, &cur))) == 0) {
    uint8_t k[5];
    k[0] = 'M';
    msr_be32(k + 1, account);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size <= sizeof k || memcmp(key.mv_data, k, sizeof k) != 0)
        break;
      if (v.mv_size != 4) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      if (n < out_cap)
        out[n] = msr_get_le32(v.mv_data);
      n++;
    }
    if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  txn_abort(store, t);
  *out_len = n;
  if (rc == 0 && n > out_cap)
    rc = MS_ERR_LIMIT;
  return rc;
}

int ms_mailbox_name(ms_store *store, char *out, size_t out_cap, size_t *out_len, uint32_t account,
                    uint32_t mailbox) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  if ((rc = mbox_load(store, t, account, mailbox, &m)) == 0) {
    *out_len = m.name_len;
    if (m.name_len > out_cap)
      rc = MS_ERR_LIMIT;
    else
      memcpy(out, m.name, m.name_len);
  }
  txn_abort(store, t);
  return rc;
}

int ms_account_messages(ms_store *store, uint64_t *out, size_t out_cap, size_t *out_len,
                        uint32_t account, uint64_t after) {
  if (out_len)
    *out_len = 0;
  if (!store || !out || !out_len || out_cap == 0)
    return MS_ERR_INVALID_ARGUMENT;
  if (after == UINT64_MAX)
    return 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_account a;
  MDB_cursor *cur = NULL;
  size_t n = 0;
  if ((rc = acct_load(store, t, account, &a)) == 0 &&
      (rc = lmdb_err(mdb_cursor_open(t, store->messages, &cur))) == 0) {
    // Keys are account u32 BE, id u64 BE: the account's messages are one
    // contiguous range, starting right past `after`.
    uint8_t k[12];
    msr_be32(k, account);
    msr_be64(k + 4, after + 1);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r = 0;
    while (n < out_cap && (r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != sizeof k) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      if (memcmp(key.mv_data, k, 4) != 0)
        break;
      const uint8_t *p = (const uint8_t *)key.mv_data + 4;
      out[n++] = (uint64_t)msr_get_be32(p) << 32 | msr_get_be32(p + 4);
    }
    if (rc == 0 && n < out_cap && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  txn_abort(store, t);
  if (rc == 0)
    *out_len = n;
  return rc;
}
