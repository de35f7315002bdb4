// store.c: the LMDB-backed store itself: the environment and its DBIs, the
// record encodings of FORMAT.md, and every operation as one write transaction
// that is retried after doubling the map when LMDB reports MDB_MAP_FULL.
#include "mailstore.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

// ERR_MAP_FULL never leaves this file: run_write turns it into a retry.
#define ERR_MAP_FULL (-10499)

struct ms_store {
  MDB_env *env;
  MDB_dbi meta, accounts, names, mailboxes, uids, messages, blobs, vanished;
  struct ms_settings set;
};

static int lmdb_err(int rc) {
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

static int grow(ms_store *s) {
  MDB_envinfo info;
  mdb_env_info(s->env, &info);
  uint64_t cur = info.me_mapsize;
  if (cur >= s->set.max_map_size)
    return -ENOSPC;
  uint64_t next = cur * 2 > s->set.max_map_size ? s->set.max_map_size : cur * 2;
  return lmdb_err(mdb_env_set_mapsize(s->env, (size_t)next));
}

static int txn_begin(ms_store *s, unsigned flags, MDB_txn **t) {
  for (int tries = 0;; tries++) {
    int rc = mdb_txn_begin(s->env, NULL, flags, t);
    // Another process grew the map: adopt its size and try again.
    if (rc == MDB_MAP_RESIZED && tries < 8) {
      mdb_env_set_mapsize(s->env, 0);
      continue;
    }
    return lmdb_err(rc);
  }
}

typedef int (*write_fn)(ms_store *s, MDB_txn *t, void *ctx);

// run_write runs fn in a write transaction; fn must write its outputs only
// through ctx so that a retry after growing the map starts from scratch.
static int run_write(ms_store *s, write_fn fn, void *ctx) {
  for (;;) {
    MDB_txn *t;
    int rc = txn_begin(s, 0, &t);
    if (rc < 0)
      return rc;
    rc = fn(s, t, ctx);
    if (rc < 0) {
      mdb_txn_abort(t);
      if (rc == ERR_MAP_FULL) {
        int g = grow(s);
        if (g < 0)
          return g;
        continue;
      }
      return rc;
    }
    int c = lmdb_err(mdb_txn_commit(t));
    if (c == ERR_MAP_FULL) {
      int g = grow(s);
      if (g < 0)
        return g;
      continue;
    }
    return c < 0 ? c : rc;
  }
}

static MDB_val val(const void *p, size_t n) {
  MDB_val v = {n, (void *)p};
  return v;
}

static int get(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, MDB_val *out) {
  MDB_val key = val(k, kn);
  return lmdb_err(mdb_get(t, d, &key, out));
}

static int put(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, const void *v, size_t vn,
               unsigned flags) {
  MDB_val key = val(k, kn), data = val(v, vn);
  return lmdb_err(mdb_put(t, d, &key, &data, flags));
}

static int del(MDB_txn *t, MDB_dbi d, const void *k, size_t kn) {
  MDB_val key = val(k, kn);
  return lmdb_err(mdb_del(t, d, &key, NULL));
}

// ---- typed loads and stores ----

static int acct_load(ms_store *s, MDB_txn *t, uint32_t id, struct msr_account *a) {
  uint8_t k[4];
  msr_be32(k, id);
  MDB_val v;
  int rc = get(t, s->accounts, k, sizeof k, &v);
  return rc < 0 ? rc : msr_account_decode(a, v.mv_data, v.mv_size);
}

static int acct_store(ms_store *s, MDB_txn *t, uint32_t id, const struct msr_account *a) {
  uint8_t k[4], buf[MSR_ACCOUNT_MAX];
  msr_be32(k, id);
  size_t n = msr_account_encode(buf, a);
  return put(t, s->accounts, k, sizeof k, buf, n, 0);
}

static int mbox_load(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, struct msr_mailbox *m) {
  uint8_t k[8];
  msr_be32(k, acct);
  msr_be32(k + 4, id);
  MDB_val v;
  int rc = get(t, s->mailboxes, k, sizeof k, &v);
  return rc < 0 ? rc : msr_mailbox_decode(m, v.mv_data, v.mv_size);
}

static int mbox_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id,
                      const struct msr_mailbox *m) {
  uint8_t k[8], buf[MSR_MAILBOX_MAX];
  msr_be32(k, acct);
  msr_be32(k + 4, id);
  size_t n = msr_mailbox_encode(buf, m);
  return put(t, s->mailboxes, k, sizeof k, buf, n, 0);
}

static void uid_key(uint8_t k[12], uint32_t acct, uint32_t mbox, uint32_t uid) {
  msr_be32(k, acct);
  msr_be32(k + 4, mbox);
  msr_be32(k + 8, uid);
}

static int uid_load(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, uint32_t uid,
                    struct msr_uid *u) {
  uint8_t k[12];
  uid_key(k, acct, mbox, uid);
  MDB_val v;
  int rc = get(t, s->uids, k, sizeof k, &v);
  return rc < 0 ? rc : msr_uid_decode(u, v.mv_data, v.mv_size);
}

static int uid_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, uint32_t uid,
                     const struct msr_uid *u) {
  uint8_t k[12], buf[MSR_UID_LEN];
  uid_key(k, acct, mbox, uid);
  msr_uid_encode(buf, u);
  return put(t, s->uids, k, sizeof k, buf, sizeof buf, 0);
}

static int msg_load(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, struct msr_message *m) {
  uint8_t k[12];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  MDB_val v;
  int rc = get(t, s->messages, k, sizeof k, &v);
  return rc < 0 ? rc : msr_message_decode(m, v.mv_data, v.mv_size);
}

static int msg_store(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id,
                     const struct msr_message *m) {
  uint8_t k[12], buf[MSR_MESSAGE_LEN];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  msr_message_encode(buf, m);
  return put(t, s->messages, k, sizeof k, buf, sizeof buf, 0);
}

// blob_ref adds one reference to the blob of `data`, storing it compressed
// if it is new, and writes its SHA-256 to hash.
static int blob_ref(ms_store *s, MDB_txn *t, uint8_t hash[32], const uint8_t *data, size_t len) {
  SHA256(data, len, hash);
  MDB_val v;
  int rc = get(t, s->blobs, hash, 32, &v);
  if (rc == 0) {
    struct msr_blob b;
    rc = msr_blob_decode(&b, v.mv_data, v.mv_size);
    if (rc < 0)
      return rc;
    uint8_t head[MSR_BLOB_HEAD];
    b.refs++;
    msr_blob_encode_head(head, &b);
    // Rewrite the record with the new count: copy the payload out first since
    // the put may move the page the old value lives on.
    size_t total = v.mv_size;
    uint8_t *copy = malloc(total);
    if (!copy)
      return -ENOMEM;
    memcpy(copy, v.mv_data, total);
    memcpy(copy, head, MSR_BLOB_HEAD);
    rc = put(t, s->blobs, hash, 32, copy, total, 0);
    free(copy);
    return rc;
  }
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  size_t cap = ZSTD_compressBound(len);
  uint8_t *buf = malloc(MSR_BLOB_HEAD + cap);
  if (!buf)
    return -ENOMEM;
  size_t clen = ZSTD_compress(buf + MSR_BLOB_HEAD, cap, data, len, 3);
  if (ZSTD_isError(clen)) {
    free(buf);
    return -EIO;
  }
  struct msr_blob b = {.refs = 1, .raw_len = len, .codec = MSR_CODEC_ZSTD};
  msr_blob_encode_head(buf, &b);
  rc = put(t, s->blobs, hash, 32, buf, MSR_BLOB_HEAD + clen, 0);
  free(buf);
  return rc;
}

static int blob_unref(ms_store *s, MDB_txn *t, const uint8_t hash[32]) {
  MDB_val v;
  int rc = get(t, s->blobs, hash, 32, &v);
  if (rc < 0)
    return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
  struct msr_blob b;
  rc = msr_blob_decode(&b, v.mv_data, v.mv_size);
  if (rc < 0)
    return rc;
  if (b.refs <= 1)
    return del(t, s->blobs, hash, 32);
  b.refs--;
  size_t total = v.mv_size;
  uint8_t *copy = malloc(total);
  if (!copy)
    return -ENOMEM;
  memcpy(copy, v.mv_data, total);
  msr_blob_encode_head(copy, &b);
  rc = put(t, s->blobs, hash, 32, copy, total, 0);
  free(copy);
  return rc;
}

// ---- open, close ----

static int open_dbis(ms_store *s, MDB_txn *t) {
  struct {
    const char *name;
    MDB_dbi *dbi;
  } d[] = {{"meta", &s->meta},           {"accounts", &s->accounts}, {"names", &s->names},
           {"mailboxes", &s->mailboxes}, {"uids", &s->uids},         {"messages", &s->messages},
           {"blobs", &s->blobs},         {"vanished", &s->vanished}};
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
  if (v.mv_size != 4 || msr_get_le32(v.mv_data) != MSR_FORMAT_VERSION)
    return MS_ERR_CORRUPT;
  return 0;
}

int ms_store_open(ms_store **out, const char *dir, const struct ms_settings *settings) {
  if (!out || !dir)
    return MS_ERR_INVALID_ARGUMENT;
  *out = NULL;
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
  if (!s->set.max_name_len || s->set.max_name_len > MSR_NAME_MAX)
    s->set.max_name_len = MSR_NAME_MAX;
  if (s->set.initial_map_size > s->set.max_map_size)
    s->set.initial_map_size = s->set.max_map_size;
  int rc = lmdb_err(mdb_env_create(&s->env));
  if (rc < 0) {
    free(s);
    return rc;
  }
  mdb_env_set_maxdbs(s->env, 16);
  mdb_env_set_mapsize(s->env, (size_t)s->set.initial_map_size);
  rc = lmdb_err(mdb_env_open(s->env, dir, MDB_NOTLS | (s->set.no_sync ? MDB_NOSYNC : 0), 0600));
  if (rc == 0) {
    // An existing store may be larger than initial_map_size: adopt its size.
    mdb_env_set_mapsize(s->env, 0);
    MDB_envinfo info;
    mdb_env_info(s->env, &info);
    if (info.me_mapsize < s->set.initial_map_size)
      mdb_env_set_mapsize(s->env, (size_t)s->set.initial_map_size);
    MDB_txn *t;
    rc = txn_begin(s, 0, &t);
    if (rc == 0) {
      rc = open_dbis(s, t);
      if (rc < 0)
        mdb_txn_abort(t);
      else
        rc = lmdb_err(mdb_txn_commit(t));
    }
  }
  if (rc < 0) {
    mdb_env_close(s->env);
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}

void ms_store_close(ms_store *store) {
  if (!store)
    return;
  mdb_env_close(store->env);
  free(store);
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
  mdb_txn_abort(t);
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
  return mbox_store(s, t, c->acct, id, &m);
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
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  uint8_t nk[5 + MSR_NAME_MAX];
  size_t nkl = mbox_name_key(nk, account, name, name_len);
  MDB_val v;
  rc = get(t, store->names, nk, nkl, &v);
  if (rc == 0) {
    if (v.mv_size != 4)
      rc = MS_ERR_CORRUPT;
    else
      *out_id = msr_get_le32(v.mv_data);
  }
  mdb_txn_abort(t);
  return rc;
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
  mdb_txn_abort(t);
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

static void mbox_count_add(struct msr_mailbox *m, uint32_t flags, uint64_t size) {
  m->total++;
  if (!(flags & MS_FLAG_SEEN))
    m->unseen++;
  m->size += size;
}

static void mbox_count_sub(struct msr_mailbox *m, uint32_t flags, uint64_t size) {
  m->total--;
  if (!(flags & MS_FLAG_SEEN))
    m->unseen--;
  m->size -= size;
}

struct append_ctx {
  uint32_t acct, mbox, flags;
  const uint8_t *data;
  size_t len;
  int64_t date;
  uint64_t msgid;
  uint32_t uid;
};

static int append_tx(ms_store *s, MDB_txn *t, void *p) {
  struct append_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox m;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->mbox, &m)) < 0)
    return rc;
  if ((a.quota_bytes && a.used_bytes + c->len > a.quota_bytes) ||
      (a.quota_messages && a.used_messages + 1 > a.quota_messages))
    return MS_ERR_QUOTA;
  if (m.uidnext == UINT32_MAX)
    return MS_ERR_LIMIT;
  struct msr_message msg = {.size = c->len, .internal_date = c->date, .refs = 1};
  if ((rc = blob_ref(s, t, msg.blob, c->data, c->len)) < 0)
    return rc;
  uint64_t id = a.next_message++;
  msg.thread = id;
  a.used_bytes += c->len;
  a.used_messages++;
  uint64_t modseq = ++a.modseq;
  uint32_t uid = m.uidnext++;
  m.highest_modseq = modseq;
  mbox_count_add(&m, c->flags, c->len);
  struct msr_uid u = {.message = id, .flags = c->flags, .modseq = modseq};
  if ((rc = msg_store(s, t, c->acct, id, &msg)) < 0 ||
      (rc = uid_store(s, t, c->acct, c->mbox, uid, &u)) < 0 ||
      (rc = mbox_store(s, t, c->acct, c->mbox, &m)) < 0 || (rc = acct_store(s, t, c->acct, &a)) < 0)
    return rc;
  c->msgid = id;
  c->uid = uid;
  return 0;
}

int ms_message_append(ms_store *store, uint64_t *out_message_id, uint32_t *out_uid,
                      uint32_t account, uint32_t mailbox, const uint8_t *data, size_t len,
                      uint32_t flags, int64_t internal_date) {
  if (!store || !data || len == 0 || (flags & ~(uint32_t)MS_FLAG_ALL))
    return MS_ERR_INVALID_ARGUMENT;
  if (len > store->set.max_message_size)
    return MS_ERR_LIMIT;
  struct append_ctx c = {account, mailbox, flags, data, len, internal_date, 0, 0};
  int rc = run_write(store, append_tx, &c);
  if (rc == 0) {
    if (out_message_id)
      *out_message_id = c.msgid;
    if (out_uid)
      *out_uid = c.uid;
  }
  return rc;
}

int ms_message_read(ms_store *store, uint8_t *out, size_t out_cap, size_t *out_len,
                    uint32_t account, uint64_t message_id) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
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
  if (rc == 0)
    rc = msr_blob_decode(&b, v.mv_data, v.mv_size);
  if (rc == 0) {
    *out_len = (size_t)b.raw_len;
    if (b.raw_len != msg.size) {
      rc = MS_ERR_CORRUPT;
    } else if (out_cap < b.raw_len) {
      rc = MS_ERR_LIMIT;
    } else {
      size_t n = ZSTD_decompress(out, out_cap, (const uint8_t *)v.mv_data + MSR_BLOB_HEAD,
                                 v.mv_size - MSR_BLOB_HEAD);
      if (ZSTD_isError(n) || n != b.raw_len)
        rc = MS_ERR_CORRUPT;
    }
  }
  mdb_txn_abort(t);
  return rc;
}

struct batch_ctx {
  uint32_t acct, src, dst, add, remove;
  const uint32_t *uids;
  size_t count;
  uint32_t *out_uids;
  int done;
};

static int flags_tx(ms_store *s, MDB_txn *t, void *p) {
  struct batch_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox m;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->src, &m)) < 0)
    return rc;
  // One MODSEQ for the whole batch: RFC 7162 lets messages changed by one
  // operation share a value, and it keeps the account counter compact.
  uint64_t modseq = a.modseq + 1;
  int changed = 0;
  for (size_t i = 0; i < c->count; i++) {
    struct msr_uid u;
    rc = uid_load(s, t, c->acct, c->src, c->uids[i], &u);
    if (rc == MS_ERR_NOTFOUND)
      continue;
    if (rc < 0)
      return rc;
    uint32_t nf = (u.flags | c->add) & ~c->remove;
    if (nf == u.flags)
      continue;
    struct msr_message msg;
    if ((rc = msg_load(s, t, c->acct, u.message, &msg)) < 0)
      return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
    mbox_count_sub(&m, u.flags, msg.size);
    mbox_count_add(&m, nf, msg.size);
    u.flags = nf;
    u.modseq = modseq;
    if ((rc = uid_store(s, t, c->acct, c->src, c->uids[i], &u)) < 0)
      return rc;
    changed++;
  }
  if (changed) {
    a.modseq = modseq;
    m.highest_modseq = modseq;
    if ((rc = mbox_store(s, t, c->acct, c->src, &m)) < 0 ||
        (rc = acct_store(s, t, c->acct, &a)) < 0)
      return rc;
  }
  c->done = changed;
  return changed;
}

// expunge_one removes `uid` from mailbox m (caller stores m), recording it as
// vanished at `modseq`; with release, a message left in no mailbox is
// destroyed. Returns 1 if removed, 0 if the UID was absent.
static int expunge_one(ms_store *s, MDB_txn *t, uint32_t acct, struct msr_account *a, uint32_t mbox,
                       struct msr_mailbox *m, uint32_t uid, uint64_t modseq, int release,
                       struct msr_uid *out) {
  struct msr_uid u;
  int rc = uid_load(s, t, acct, mbox, uid, &u);
  if (rc == MS_ERR_NOTFOUND)
    return 0;
  if (rc < 0)
    return rc;
  struct msr_message msg;
  if ((rc = msg_load(s, t, acct, u.message, &msg)) < 0)
    return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
  uint8_t k[12];
  uid_key(k, acct, mbox, uid);
  if ((rc = del(t, s->uids, k, sizeof k)) < 0)
    return rc;
  uint8_t vk[20];
  msr_be32(vk, acct);
  msr_be32(vk + 4, mbox);
  msr_be64(vk + 8, modseq);
  msr_be32(vk + 16, uid);
  if ((rc = put(t, s->vanished, vk, sizeof vk, "", 0, 0)) < 0)
    return rc;
  mbox_count_sub(m, u.flags, msg.size);
  if (out)
    *out = u;
  if (!release)
    return 1;
  if (msg.refs > 1) {
    msg.refs--;
    rc = msg_store(s, t, acct, u.message, &msg);
    return rc < 0 ? rc : 1;
  }
  uint8_t mk[12];
  msr_be32(mk, acct);
  msr_be64(mk + 4, u.message);
  if ((rc = del(t, s->messages, mk, sizeof mk)) < 0 || (rc = blob_unref(s, t, msg.blob)) < 0)
    return rc;
  a->used_bytes -= msg.size;
  a->used_messages--;
  return 1;
}

static int copy_move_tx(ms_store *s, MDB_txn *t, void *p, int move) {
  struct batch_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox src, dst;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->src, &src)) < 0 ||
      (rc = mbox_load(s, t, c->acct, c->dst, &dst)) < 0)
    return rc;
  uint64_t modseq = a.modseq + 1;
  int n = 0;
  for (size_t i = 0; i < c->count; i++) {
    if (c->out_uids)
      c->out_uids[i] = 0;
    struct msr_uid u;
    if (move) {
      rc = expunge_one(s, t, c->acct, &a, c->src, &src, c->uids[i], modseq, 0, &u);
    } else {
      rc = uid_load(s, t, c->acct, c->src, c->uids[i], &u);
      if (rc == MS_ERR_NOTFOUND)
        rc = 0;
      else if (rc == 0)
        rc = 1;
    }
    if (rc < 0)
      return rc;
    if (rc == 0)
      continue;
    struct msr_message msg;
    if ((rc = msg_load(s, t, c->acct, u.message, &msg)) < 0)
      return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
    if (!move) {
      msg.refs++;
      if ((rc = msg_store(s, t, c->acct, u.message, &msg)) < 0)
        return rc;
    }
    if (dst.uidnext == UINT32_MAX)
      return MS_ERR_LIMIT;
    uint32_t nu = dst.uidnext++;
    u.modseq = modseq;
    if ((rc = uid_store(s, t, c->acct, c->dst, nu, &u)) < 0)
      return rc;
    mbox_count_add(&dst, u.flags, msg.size);
    if (c->out_uids)
      c->out_uids[i] = nu;
    n++;
  }
  if (n) {
    a.modseq = modseq;
    dst.highest_modseq = modseq;
    if (move)
      src.highest_modseq = modseq;
    if ((move && (rc = mbox_store(s, t, c->acct, c->src, &src)) < 0) ||
        (rc = mbox_store(s, t, c->acct, c->dst, &dst)) < 0 ||
        (rc = acct_store(s, t, c->acct, &a)) < 0)
      return rc;
  }
  return n;
}

static int copy_tx(ms_store *s, MDB_txn *t, void *p) {
  return copy_move_tx(s, t, p, 0);
}

static int move_tx(ms_store *s, MDB_txn *t, void *p) {
  return copy_move_tx(s, t, p, 1);
}

static int expunge_tx(ms_store *s, MDB_txn *t, void *p) {
  struct batch_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox m;
  int rc = acct_load(s, t, c->acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->acct, c->src, &m)) < 0)
    return rc;
  uint64_t modseq = a.modseq + 1;
  const uint32_t *uids = c->uids;
  size_t count = c->count;
  uint32_t *found = NULL;
  if (!uids) {
    // Collect first: deleting under an open cursor would disturb it.
    size_t cap = 0;
    count = 0;
    MDB_cursor *cur;
    if ((rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur))) < 0)
      return rc;
    uint8_t k[12];
    uid_key(k, c->acct, c->src, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE;
    while ((rc = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
        break;
      if (!(u.flags & MS_FLAG_DELETED))
        continue;
      if (count == cap) {
        cap = cap ? cap * 2 : 256;
        uint32_t *nf = realloc(found, cap * sizeof *found);
        if (!nf) {
          rc = -ENOMEM;
          break;
        }
        found = nf;
      }
      found[count++] = msr_get_be32((const uint8_t *)key.mv_data + 8);
    }
    mdb_cursor_close(cur);
    rc = rc == MDB_NOTFOUND ? 0 : lmdb_err(rc);
    if (rc < 0) {
      free(found);
      return rc;
    }
    uids = found;
  }
  int n = 0;
  for (size_t i = 0; i < count; i++) {
    rc = expunge_one(s, t, c->acct, &a, c->src, &m, uids[i], modseq, 1, NULL);
    if (rc < 0) {
      free(found);
      return rc;
    }
    n += rc;
  }
  free(found);
  if (n) {
    a.modseq = modseq;
    m.highest_modseq = modseq;
    if ((rc = mbox_store(s, t, c->acct, c->src, &m)) < 0 ||
        (rc = acct_store(s, t, c->acct, &a)) < 0)
      return rc;
  }
  return n;
}

static int batch_check(ms_store *s, const uint32_t *uids, size_t count) {
  if (!s || (!uids && count))
    return MS_ERR_INVALID_ARGUMENT;
  if (count > s->set.max_batch || count > INT32_MAX)
    return MS_ERR_LIMIT;
  return 0;
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
  return run_write(store, flags_tx, &c);
}

// transfer runs a copy or a move (`tx`) of `count` messages from `src` to
// `dst` in one write transaction, after the checks both share.
static int transfer(ms_store *store, write_fn tx, uint32_t *out_uids, uint32_t account,
                    uint32_t src, uint32_t dst, const uint32_t *uids, size_t count) {
  int rc = batch_check(store, uids, count);
  if (rc < 0)
    return rc;
  if (src == dst)
    return MS_ERR_INVALID_ARGUMENT;
  struct batch_ctx c = {
      .acct = account, .src = src, .dst = dst, .uids = uids, .count = count, .out_uids = out_uids};
  return run_write(store, tx, &c);
}

int ms_messages_copy(ms_store *store, uint32_t *out_uids, uint32_t account, uint32_t src,
                     uint32_t dst, const uint32_t *uids, size_t count) {
  return transfer(store, copy_tx, out_uids, account, src, dst, uids, count);
}

int ms_messages_move(ms_store *store, uint32_t *out_uids, uint32_t account, uint32_t src,
                     uint32_t dst, const uint32_t *uids, size_t count) {
  return transfer(store, move_tx, out_uids, account, src, dst, uids, count);
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
  return run_write(store, expunge_tx, &c);
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
  if ((rc = mbox_load(store, t, account, mailbox, &m)) == 0)
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
  mdb_txn_abort(t);
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
    mdb_txn_abort(t);
    return rc;
  }
  MDB_cursor *cur;
  size_t n = 0;
  if ((rc = lmdb_err(mdb_cursor_open(t, store->uids, &cur))) == 0) {
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
  mdb_txn_abort(t);
  *out_len = n;
  *vanished_len = vn;
  if (rc == 0 && (n > out_cap || vn > vanished_cap))
    rc = MS_ERR_LIMIT;
  return rc;
}

// ---- verification ----

struct ref {
  uint8_t key[32];
  uint32_t count;
};

static int ref_cmp(const void *a, const void *b) {
  return memcmp(((const struct ref *)a)->key, ((const struct ref *)b)->key, 32);
}

struct refs {
  struct ref *v;
  size_t n, cap;
};

static int refs_add(struct refs *r, const uint8_t *key, size_t len) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 1024;
    struct ref *nv = realloc(r->v, cap * sizeof *nv);
    if (!nv)
      return -ENOMEM;
    r->v = nv;
    r->cap = cap;
  }
  memset(r->v[r->n].key, 0, 32);
  memcpy(r->v[r->n].key, key, len);
  r->v[r->n].count = 1;
  r->n++;
  return 0;
}

// refs_collapse sorts and merges equal keys, summing their counts.
static void refs_collapse(struct refs *r) {
  if (r->n == 0)
    return;
  qsort(r->v, r->n, sizeof r->v[0], ref_cmp);
  size_t w = 0;
  for (size_t i = 1; i < r->n; i++) {
    if (memcmp(r->v[i].key, r->v[w].key, 32) == 0)
      r->v[w].count += r->v[i].count;
    else
      r->v[++w] = r->v[i];
  }
  r->n = w + 1;
}

static int verify_tx(ms_store *s, MDB_txn *t) {
  struct refs members = {0}, blobrefs = {0};
  MDB_cursor *cur = NULL;
  MDB_val key, v;
  int r, rc = 0;
  // Pass 1: mailboxes against their memberships.
  if ((rc = lmdb_err(mdb_cursor_open(t, s->mailboxes, &cur))) < 0)
    return rc;
  MDB_cursor *uc = NULL;
  if ((rc = lmdb_err(mdb_cursor_open(t, s->uids, &uc))) < 0) {
    mdb_cursor_close(cur);
    return rc;
  }
  size_t n_uids_seen = 0;
  while (rc == 0 && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_mailbox m;
    struct msr_account a;
    if (key.mv_size != 8 || msr_mailbox_decode(&m, v.mv_data, v.mv_size) < 0) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    uint32_t acct = msr_get_be32(key.mv_data), mb = msr_get_be32((uint8_t *)key.mv_data + 4);
    if ((rc = acct_load(s, t, acct, &a)) < 0) {
      rc = rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
      break;
    }
    uint8_t k[12];
    uid_key(k, acct, mb, 0);
    MDB_val uk = val(k, 12), uv;
    int op = MDB_SET_RANGE;
    uint32_t total = 0, unseen = 0, last = 0;
    uint64_t size = 0;
    while ((r = mdb_cursor_get(uc, &uk, &uv, op)) == 0) {
      op = MDB_NEXT;
      if (uk.mv_size != 12 || memcmp(uk.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      struct msr_message msg;
      if (msr_uid_decode(&u, uv.mv_data, uv.mv_size) < 0 ||
          msg_load(s, t, acct, u.message, &msg) < 0 || u.modseq > m.highest_modseq ||
          u.modseq > a.modseq) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      last = msr_get_be32((uint8_t *)uk.mv_data + 8);
      total++;
      unseen += !(u.flags & MS_FLAG_SEEN);
      size += msg.size;
      uint8_t mk[12];
      msr_be32(mk, acct);
      msr_be64(mk + 4, u.message);
      if ((rc = refs_add(&members, mk, 12)) < 0)
        break;
      n_uids_seen++;
    }
    if (rc == 0 && (total != m.total || unseen != m.unseen || size != m.size ||
                    (total && last >= m.uidnext) || m.highest_modseq > a.modseq))
      rc = MS_ERR_CORRUPT;
  }
  mdb_cursor_close(uc);
  mdb_cursor_close(cur);
  // Every membership must belong to some mailbox.
  MDB_stat st;
  if (rc == 0 && (rc = lmdb_err(mdb_stat(t, s->uids, &st))) == 0 && st.ms_entries != n_uids_seen)
    rc = MS_ERR_CORRUPT;
  // Pass 2: messages against membership counts, accounts' usage, blob refs.
  if (rc == 0) {
    refs_collapse(&members);
    rc = lmdb_err(mdb_cursor_open(t, s->messages, &cur));
  }
  if (rc == 0) {
    size_t mi = 0;
    uint32_t cur_acct = 0;
    uint64_t bytes = 0, count = 0;
    int have = 0;
    for (;;) {
      r = mdb_cursor_get(cur, &key, &v, MDB_NEXT);
      uint32_t acct = r == 0 && key.mv_size == 12 ? msr_get_be32(key.mv_data) : 0;
      if (have && (r != 0 || acct != cur_acct)) {
        struct msr_account a;
        if (acct_load(s, t, cur_acct, &a) < 0 || a.used_bytes != bytes ||
            a.used_messages != count) {
          rc = MS_ERR_CORRUPT;
          break;
        }
        bytes = count = 0;
      }
      if (r != 0) {
        rc = r == MDB_NOTFOUND ? 0 : lmdb_err(r);
        break;
      }
      struct msr_message msg;
      if (key.mv_size != 12 || msr_message_decode(&msg, v.mv_data, v.mv_size) < 0) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      uint8_t k32[32] = {0};
      memcpy(k32, key.mv_data, 12);
      if (mi >= members.n || memcmp(members.v[mi].key, k32, 32) != 0 ||
          members.v[mi].count != msg.refs) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      mi++;
      have = 1;
      cur_acct = acct;
      bytes += msg.size;
      count++;
      if ((rc = refs_add(&blobrefs, msg.blob, 32)) < 0)
        break;
    }
    mdb_cursor_close(cur);
    if (rc == 0 && mi != members.n)
      rc = MS_ERR_CORRUPT;
    // Accounts with no messages must show no usage.
    if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->accounts, &cur))) == 0) {
      while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
        struct msr_account a;
        if (key.mv_size != 4 || msr_account_decode(&a, v.mv_data, v.mv_size) < 0) {
          rc = MS_ERR_CORRUPT;
          break;
        }
        (void)a;
      }
      mdb_cursor_close(cur);
    }
  }
  // VANISHED entries belong to live mailboxes and lie within their MODSEQ.
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->vanished, &cur))) == 0) {
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      struct msr_mailbox m;
      const uint8_t *k = key.mv_data;
      if (key.mv_size != 20 || v.mv_size != 0 ||
          mbox_load(s, t, msr_get_be32(k), msr_get_be32(k + 4), &m) < 0 ||
          ((uint64_t)msr_get_be32(k + 8) << 32 | msr_get_be32(k + 12)) > m.highest_modseq ||
          msr_get_be32(k + 16) >= m.uidnext) {
        rc = MS_ERR_CORRUPT;
        break;
      }
    }
    if (rc == 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  // Pass 3: blobs against reference counts, content against hash.
  if (rc == 0) {
    refs_collapse(&blobrefs);
    rc = lmdb_err(mdb_cursor_open(t, s->blobs, &cur));
  }
  if (rc == 0) {
    size_t bi = 0;
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      struct msr_blob b;
      if (key.mv_size != 32 || msr_blob_decode(&b, v.mv_data, v.mv_size) < 0 || bi >= blobrefs.n ||
          memcmp(blobrefs.v[bi].key, key.mv_data, 32) != 0 || blobrefs.v[bi].count != b.refs) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      bi++;
      uint8_t *raw = malloc(b.raw_len ? (size_t)b.raw_len : 1);
      if (!raw) {
        rc = -ENOMEM;
        break;
      }
      size_t n = ZSTD_decompress(raw, (size_t)b.raw_len, (uint8_t *)v.mv_data + MSR_BLOB_HEAD,
                                 v.mv_size - MSR_BLOB_HEAD);
      uint8_t h[32];
      if (!ZSTD_isError(n) && n == b.raw_len)
        SHA256(raw, n, h);
      free(raw);
      if (ZSTD_isError(n) || n != b.raw_len || memcmp(h, key.mv_data, 32) != 0) {
        rc = MS_ERR_CORRUPT;
        break;
      }
    }
    if (rc == 0 && bi != blobrefs.n)
      rc = MS_ERR_CORRUPT;
    mdb_cursor_close(cur);
  }
  free(members.v);
  free(blobrefs.v);
  return rc;
}

int ms_store_verify(ms_store *store) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  rc = verify_tx(store, t);
  mdb_txn_abort(t);
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
  return rc < 0 ? rc : 0;
}

int ms_mailbox_rename(ms_store *store, uint32_t account, uint32_t mailbox, const char *name,
                      size_t name_len) {
  if (!store || !name || name_len > store->set.max_name_len || !valid_mailbox_name(name, name_len))
    return MS_ERR_INVALID_ARGUMENT;
  struct rename_ctx c = {account, mailbox, name, name_len, store->set.max_name_len};
  return run_write(store, rename_tx, &c);
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
    rc = expunge_tx(s, t, &bc);
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
  return 0;
}

int ms_mailbox_delete(ms_store *store, uint32_t account, uint32_t mailbox) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct delete_ctx c = {account, mailbox};
  return run_write(store, delete_tx, &c);
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
  return mbox_store(s, t, c->acct, c->mbox, &m);
}

int ms_mailbox_subscribe(ms_store *store, uint32_t account, uint32_t mailbox, int subscribed) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct subscribe_ctx c = {account, mailbox, subscribed != 0};
  return run_write(store, subscribe_tx, &c);
}
