// mailboxes.c: accounts and their mailboxes: creating, finding and reading
// them, renaming and deleting mailboxes (with their hierarchy, FORMAT.md
// "Rename and delete"), subscribing, and enumerating an account's mailboxes
// (and their names) and messages, what a per-account export, an IMAP LIST or
// a search index rebuild needs.
#include "changelog.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ---- accounts ----

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

int ms_account_find(ms_store *store, uint32_t *out_id, const char *name, size_t name_len) {
  if (!store || !out_id || !name || name_len == 0 || name_len > MSR_NAME_MAX)
    return MS_ERR_INVALID_ARGUMENT;
  uint8_t nk[1 + MSR_NAME_MAX];
  nk[0] = 'A';
  memcpy(nk + 1, name, name_len);
  return name_lookup(store, nk, 1 + name_len, out_id);
}

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

// ---- enumeration ----

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
