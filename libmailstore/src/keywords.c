// keywords.c: IMAP flag-keywords and JMAP Email keywords. Each account
// numbers the keywords it uses in the "keywords" DBI, and each membership
// keeps its set as a bitmap of those ids at the end of its uid record
// (FORMAT.md), so this file only translates names to bits and rewrites uid
// records the way ms_flags_store does, sharing store.c's transactions.
#include "keywords.h"

#include "changelog.h"
#include "index.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// kwtab is one account's keyword table as read in a transaction: names
// point into LMDB's pages and stay valid until the transaction ends.
struct kwtab {
  uint32_t n;
  const char *name[MSR_KEYWORDS_MAX];
  uint16_t len[MSR_KEYWORDS_MAX];
};

static uint32_t max_keywords(const ms_store *s) {
  uint32_t m = s->set.max_keywords;
  return m == 0 ? 256 : m > MSR_KEYWORDS_MAX ? MSR_KEYWORDS_MAX : m;
}

static size_t max_keyword_len(const struct ms_settings *set) {
  uint32_t m = set ? set->max_keyword_len : 0;
  return m == 0 || m > MSR_KEYWORD_LEN_MAX ? MSR_KEYWORD_LEN_MAX : m;
}

static void kw_key(uint8_t k[6], uint32_t acct, uint32_t id) {
  msr_be32(k, acct);
  k[4] = (uint8_t)(id >> 8);
  k[5] = (uint8_t)id;
}

static int name_eq(const char *a, size_t an, const char *b, size_t bn) {
  if (an != bn)
    return 0;
  for (size_t i = 0; i < an; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z')
      x = (unsigned char)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (unsigned char)(y + 32);
    if (x != y)
      return 0;
  }
  return 1;
}

// system_flag maps a '\' name to its MS_FLAG_* bit, 0 if it is none.
static uint32_t system_flag(const char *name, size_t len) {
  static const struct {
    const char *name;
    uint32_t flag;
  } sys[] = {{"\\Seen", MS_FLAG_SEEN},
             {"\\Answered", MS_FLAG_ANSWERED},
             {"\\Flagged", MS_FLAG_FLAGGED},
             {"\\Deleted", MS_FLAG_DELETED},
             {"\\Draft", MS_FLAG_DRAFT}};
  for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
    if (name_eq(name, len, sys[i].name, strlen(sys[i].name)))
      return sys[i].flag;
  return 0;
}

// kwtab_load reads the table of account acct. Ids are the keys' order, so
// a gap or a bad name is corruption.
static int kwtab_load(ms_store *s, MDB_txn *t, uint32_t acct, struct kwtab *tab) {
  tab->n = 0;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->keywords, &cur));
  if (rc < 0)
    return rc;
  uint8_t k[6];
  kw_key(k, acct, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 6 || memcmp(key.mv_data, k, 4) != 0)
      break;
    const uint8_t *kb = key.mv_data;
    uint32_t id = (uint32_t)kb[4] << 8 | kb[5];
    const char *name;
    size_t len;
    if (id != tab->n || id >= MSR_KEYWORDS_MAX ||
        msr_keyword_decode(&name, &len, v.mv_data, v.mv_size) < 0) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    tab->name[id] = name;
    tab->len[id] = (uint16_t)len;
    tab->n++;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(cur);
  return rc;
}

static int kwtab_find(const struct kwtab *tab, const char *name, size_t len) {
  for (uint32_t i = 0; i < tab->n; i++)
    if (name_eq(tab->name[i], tab->len[i], name, len))
      return (int)i;
  return -1;
}

int ms_keyword_check(const char *name, size_t len, const struct ms_settings *settings) {
  if (!name || len == 0)
    return MS_ERR_INVALID_ARGUMENT;
  if (name[0] == '\\')
    return system_flag(name, len) ? 0 : MS_ERR_INVALID_ARGUMENT;
  // Syntax first, so that a long name of bad characters is not called
  // merely too long.
  size_t head = len < MSR_KEYWORD_LEN_MAX ? len : MSR_KEYWORD_LEN_MAX;
  if (!msr_keyword_valid(name, head, MSR_KEYWORD_LEN_MAX))
    return MS_ERR_INVALID_ARGUMENT;
  return len > max_keyword_len(settings) ? MS_ERR_LIMIT : 0;
}

struct kwstore_ctx {
  struct batch_ctx b;
  int op;
  const char *const *names;
  const size_t *lens;
  size_t nnames;
  uint32_t sys; // MS_FLAG_* named
};

// resolve turns the names into the bitmap want, defining unknown keywords
// for ADD and REPLACE (REMOVE cannot remove what was never defined).
static int resolve(ms_store *s, MDB_txn *t, struct kwstore_ctx *c, struct kwtab *tab,
                   uint8_t want[MSR_KW_BYTES]) {
  memset(want, 0, MSR_KW_BYTES);
  int rc = kwtab_load(s, t, c->b.acct, tab);
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < c->nnames; i++) {
    const char *name = c->names[i];
    size_t len = c->lens[i];
    if (name[0] == '\\')
      continue;
    int id = kwtab_find(tab, name, len);
    if (id < 0) {
      if (c->op == MS_KEYWORDS_REMOVE)
        continue;
      if (tab->n >= max_keywords(s))
        return MS_ERR_LIMIT;
      uint8_t k[6];
      kw_key(k, c->b.acct, tab->n);
      if ((rc = put(t, s->keywords, k, sizeof k, name, len, MDB_NOOVERWRITE)) < 0)
        return rc;
      tab->name[tab->n] = name;
      tab->len[tab->n] = (uint16_t)len;
      id = (int)tab->n++;
    }
    want[id / 8] |= (uint8_t)(1u << (id % 8));
  }
  return 0;
}

static int kwstore_tx(ms_store *s, MDB_txn *t, void *p) {
  struct kwstore_ctx *c = p;
  struct msr_account a;
  struct msr_mailbox m;
  int rc = acct_load(s, t, c->b.acct, &a);
  if (rc < 0 || (rc = mbox_load(s, t, c->b.acct, c->b.src, &m)) < 0)
    return rc;
  struct kwtab *tab = malloc(sizeof *tab);
  if (!tab)
    return -ENOMEM;
  uint8_t want[MSR_KW_BYTES];
  rc = resolve(s, t, c, tab, want);
  free(tab);
  if (rc < 0)
    return rc;
  MDB_cursor *uc;
  if ((rc = lmdb_err(mdb_cursor_open(t, s->uids, &uc))) < 0)
    return rc;
  struct cl_writer w;
  if ((rc = cl_open(s, t, &w)) < 0 || (rc = cl_expect(&w, c->b.acct, c->b.nsel)) < 0) {
    mdb_cursor_close(uc);
    return rc;
  }
  // One MODSEQ for the batch, as ms_flags_store (FORMAT.md "MODSEQ rules").
  uint64_t modseq = a.modseq + 1;
  int changed = 0;
  uint32_t at = 0, unseen = m.unseen;
  for (size_t i = 0; i < c->b.nsel; i++) {
    uint8_t k[12];
    uid_key(k, c->b.acct, c->b.src, c->b.sel[i].uid);
    MDB_val v;
    if ((rc = walk_seek(uc, k, c->b.sel[i].uid, &at, &v)) <= 0) {
      if (rc < 0)
        break;
      continue;
    }
    struct msr_uid u;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
      break;
    uint32_t nf = u.flags;
    uint8_t nk[MSR_KW_BYTES];
    for (size_t j = 0; j < MSR_KW_BYTES; j++) {
      if (c->op == MS_KEYWORDS_ADD)
        nk[j] = u.kw[j] | want[j];
      else if (c->op == MS_KEYWORDS_REMOVE)
        nk[j] = u.kw[j] & (uint8_t)~want[j];
      else
        nk[j] = want[j];
    }
    if (c->op == MS_KEYWORDS_ADD)
      nf |= c->sys;
    else if (c->op == MS_KEYWORDS_REMOVE)
      nf &= ~c->sys;
    else
      nf = c->sys;
    if (nf == u.flags && memcmp(nk, u.kw, MSR_KW_BYTES) == 0)
      continue;
    mbox_count_flags(&m, u.flags, nf);
    u.flags = nf;
    memcpy(u.kw, nk, MSR_KW_BYTES);
    u.kwlen = MSR_KW_BYTES;
    u.modseq = modseq;
    uint8_t buf[MSR_UID_MAX];
    size_t n = msr_uid_encode(buf, &u);
    MDB_val key = val(k, sizeof k), data = val(buf, n);
    if ((rc = lmdb_err(mdb_cursor_put(uc, &key, &data, MDB_CURRENT))) < 0)
      break;
    if ((rc = cl_add(&w, c->b.acct, CL_MESSAGE, CL_UPDATED, u.message, modseq)) < 0)
      break;
    changed++;
  }
  mdb_cursor_close(uc);
  if (rc >= 0 && m.unseen != unseen)
    rc = cl_add(&w, c->b.acct, CL_MAILBOX, CL_COUNTS, c->b.src, modseq);
  int cr = cl_close(&w, rc >= 0);
  if (rc < 0 || (rc = cr) < 0)
    return rc;
  if (changed) {
    a.modseq = modseq;
    m.highest_modseq = modseq;
    if ((rc = mbox_store(s, t, c->b.acct, c->b.src, &m)) < 0 ||
        (rc = acct_store(s, t, c->b.acct, &a)) < 0)
      return rc;
  }
  return changed;
}

// kwstore_part stores the keywords of ctx (struct kwstore_ctx) on its n
// UIDs from `first`.
static int kwstore_part(ms_store *store, void *ctx, size_t first, size_t n) {
  struct kwstore_ctx c = *(const struct kwstore_ctx *)ctx;
  if (c.b.uids) // an empty batch may come with NULL
    c.b.uids += first;
  c.b.count = n;
  int rc = sel_build(&c.b);
  if (rc < 0)
    return rc;
  rc = run_write_room(store, kwstore_tx, &c, ROOM_CHANGE);
  free(c.b.sel);
  return rc;
}

int ms_keywords_store(ms_store *store, uint32_t account, uint32_t mailbox, const uint32_t *uids,
                      size_t count, int op, const char *const *names, const size_t *name_lens,
                      size_t name_count) {
  int rc = batch_check(store, uids, count);
  if (rc < 0)
    return rc;
  if (op < MS_KEYWORDS_ADD || op > MS_KEYWORDS_REPLACE || (name_count && (!names || !name_lens)))
    return MS_ERR_INVALID_ARGUMENT;
  if (name_count > max_keywords(store) + 5)
    return MS_ERR_LIMIT;
  uint32_t sys = 0;
  for (size_t i = 0; i < name_count; i++) {
    if ((rc = ms_keyword_check(names[i], name_lens[i], &store->set)) < 0)
      return rc;
    sys |= names[i][0] == '\\' ? system_flag(names[i], name_lens[i]) : 0;
  }
  struct kwstore_ctx c = {.b = {.acct = account, .src = mailbox, .uids = uids, .count = count},
                          .op = op,
                          .names = names,
                          .lens = name_lens,
                          .nnames = name_count,
                          .sys = sys};
  return run_in_parts(store, kwstore_part, &c, count);
}

int ms_keyword_find(ms_store *store, uint32_t *out_id, uint32_t account, const char *name,
                    size_t name_len) {
  if (!store || !out_id || !name || name_len == 0)
    return MS_ERR_INVALID_ARGUMENT;
  struct kwtab *tab = malloc(sizeof *tab);
  if (!tab)
    return -ENOMEM;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc == 0) {
    if ((rc = kwtab_load(store, t, account, tab)) == 0) {
      int id = kwtab_find(tab, name, name_len);
      if (id < 0)
        rc = MS_ERR_NOTFOUND;
      else
        *out_id = (uint32_t)id;
    }
    txn_abort(store, t);
  }
  free(tab);
  return rc;
}

int ms_keyword_count(ms_store *store, uint32_t *out_count, uint32_t *out_max, uint32_t account) {
  if (!store || !out_count)
    return MS_ERR_INVALID_ARGUMENT;
  *out_count = 0;
  if (out_max)
    *out_max = max_keywords(store);
  struct kwtab *tab = malloc(sizeof *tab);
  if (!tab)
    return -ENOMEM;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc == 0) {
    struct msr_account a;
    if ((rc = acct_load(store, t, account, &a)) == 0 &&
        (rc = kwtab_load(store, t, account, tab)) == 0)
      *out_count = tab->n;
    txn_abort(store, t);
  }
  free(tab);
  return rc;
}

int ms_keyword_name(ms_store *store, char *out, size_t out_cap, size_t *out_len, uint32_t account,
                    uint32_t id) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (id >= MSR_KEYWORDS_MAX)
    return MS_ERR_NOTFOUND;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  uint8_t k[6];
  kw_key(k, account, id);
  MDB_val v;
  const char *name;
  size_t len;
  if ((rc = get(t, store->keywords, k, sizeof k, &v)) == 0 &&
      (rc = msr_keyword_decode(&name, &len, v.mv_data, v.mv_size)) == 0) {
    *out_len = len;
    if (len > out_cap)
      rc = MS_ERR_LIMIT;
    else
      memcpy(out, name, len);
  }
  txn_abort(store, t);
  return rc;
}

// put_ids writes the ids of bitmap kw (up to cap) and returns their number.
static size_t put_ids(uint32_t *out, size_t cap, const uint8_t kw[MSR_KW_BYTES]) {
  size_t n = 0;
  for (uint32_t byte = 0; byte < MSR_KW_BYTES; byte++) {
    if (!kw[byte])
      continue;
    for (uint32_t bit = 0; bit < 8; bit++) {
      if (kw[byte] & (1u << bit)) {
        if (n < cap)
          out[n] = byte * 8 + bit;
        n++;
      }
    }
  }
  return n;
}

int ms_keywords_get(ms_store *store, uint32_t *out, size_t out_cap, size_t *out_len,
                    uint32_t *out_flags, uint32_t account, uint32_t mailbox, uint32_t uid) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  uint8_t k[12];
  uid_key(k, account, mailbox, uid);
  MDB_val v;
  struct msr_uid u;
  if ((rc = get(t, store->uids, k, sizeof k, &v)) == 0 &&
      (rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) == 0) {
    *out_len = put_ids(out, out_cap, u.kw);
    if (out_flags)
      *out_flags = u.flags;
    if (*out_len > out_cap)
      rc = MS_ERR_LIMIT;
  }
  txn_abort(store, t);
  return rc;
}

int ms_mailbox_keywords(ms_store *store, uint32_t *out, size_t out_cap, size_t *out_len,
                        uint32_t account, uint32_t mailbox) {
  if (!store || !out_len || (!out && out_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  MDB_cursor *cur = NULL;
  uint8_t any[MSR_KW_BYTES] = {0};
  struct msi_box *ix = NULL;
  if ((rc = mbox_load(store, t, account, mailbox, &m)) == 0 &&
      (rc = msi_get(store, t, account, mailbox, &m, 1, &ix)) > 0) {
    // The packed index has the mailbox's keyword table, unless it uses
    // more keywords than the index carries.
    rc = msi_mailbox_keywords(ix, out, out_cap, out_len);
    msi_release(store, ix);
    if (rc > 0) {
      txn_abort(store, t);
      return *out_len > out_cap ? MS_ERR_LIMIT : 0;
    }
  }
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, store->uids, &cur))) == 0) {
    uint8_t k[12];
    uid_key(k, account, mailbox, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      // Only the bitmap matters: skip the full decode for records without
      // one, most of them in a typical mailbox.
      if (v.mv_size < MSR_UID_LEN || v.mv_size > MSR_UID_MAX) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      const uint8_t *b = (const uint8_t *)v.mv_data + MSR_UID_LEN;
      for (size_t i = 0; i < v.mv_size - MSR_UID_LEN; i++)
        any[i] |= b[i];
    }
    if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  txn_abort(store, t);
  if (rc == 0) {
    *out_len = put_ids(out, out_cap, any);
    if (*out_len > out_cap)
      rc = MS_ERR_LIMIT;
  }
  return rc;
}

int ms_mailbox_list_keywords(ms_store *store, struct ms_keyword_entry *out, size_t out_cap,
                             size_t *out_len, uint32_t *ids, size_t ids_cap, size_t *ids_len,
                             uint32_t account, uint32_t mailbox, uint32_t first_uid) {
  if (!store || !out_len || !ids_len || (!out && out_cap) || (!ids && ids_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = *ids_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  MDB_cursor *cur = NULL;
  size_t n = 0, ni = 0;
  struct msi_box *ix = NULL;
  // The packed index answers as for ms_mailbox_list (a page of at least an
  // eighth of the mailbox may build it), unless the mailbox uses more
  // keywords than the index carries.
  if ((rc = mbox_load(store, t, account, mailbox, &m)) == 0 &&
      (rc = msi_get(store, t, account, mailbox, &m, out_cap >= m.total / 8, &ix)) > 0) {
    rc = msi_list_keywords(ix, out, out_cap, out_len, ids, ids_cap, ids_len, first_uid);
    msi_release(store, ix);
    if (rc != 0) {
      txn_abort(store, t);
      return rc < 0 ? rc : 0;
    }
  }
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, store->uids, &cur))) == 0) {
    uint8_t k[12];
    uid_key(k, account, mailbox, first_uid);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE, r;
    while (n < out_cap && (r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
      op = MDB_NEXT;
      if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
        break;
      struct msr_uid u;
      if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
        break;
      size_t cnt = put_ids(NULL, 0, u.kw);
      if (cnt > ids_cap - ni) {
        if (n == 0)
          rc = MS_ERR_LIMIT;
        break;
      }
      put_ids(ids + ni, cnt, u.kw);
      out[n++] = (struct ms_keyword_entry){
          {msr_get_be32((const uint8_t *)key.mv_data + 8), u.flags, u.message, u.modseq},
          (uint32_t)ni,
          (uint32_t)cnt};
      ni += cnt;
    }
    if (rc == 0 && n < out_cap && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  txn_abort(store, t);
  *out_len = n;
  *ids_len = ni;
  return rc;
}

// verify_tables checks every keyword table: ids from 0 without gaps, valid
// names, none twice, and an account that exists. `tab` is scratch space.
static int verify_tables(ms_store *s, MDB_txn *t, struct ms_diag *d, struct kwtab *tab) {
  MDB_cursor *kc = NULL;
  int rc = lmdb_err(mdb_cursor_open(t, s->keywords, &kc));
  if (rc < 0)
    return rc;
  MDB_val key, v;
  int r, have = 0;
  uint32_t loaded = 0;
  tab->n = 0;
  const char *why = NULL;
  while ((r = mdb_cursor_get(kc, &key, &v, MDB_NEXT)) == 0) {
    const uint8_t *kb = key.mv_data;
    if (key.mv_size != 6) {
      // Named for the account its prefix names (0 for a key too short).
      loaded = key.mv_size >= 4 ? msr_get_be32(kb) : 0;
      why = "has a key of the wrong length";
      break;
    }
    uint32_t acct = msr_get_be32(kb), id = (uint32_t)kb[4] << 8 | kb[5];
    if (!have || acct != loaded) {
      struct msr_account a;
      loaded = acct;
      have = 1;
      tab->n = 0;
      if ((rc = acct_load(s, t, acct, &a)) < 0) {
        if (rc == MS_ERR_NOTFOUND) // else a read error, the store's failure
          why = "belongs to no account";
        break;
      }
    }
    const char *name;
    size_t len;
    if (id != tab->n || id >= MSR_KEYWORDS_MAX) {
      why = "has a gap in its ids";
      break;
    }
    if (msr_keyword_decode(&name, &len, v.mv_data, v.mv_size) < 0) {
      why = "has a name that is not an atom";
      break;
    }
    for (uint32_t j = 0; j < tab->n && !why; j++)
      if (name_eq(tab->name[j], tab->len[j], name, len))
        why = "has a name twice";
    if (why)
      break;
    tab->name[tab->n] = name;
    tab->len[tab->n] = (uint16_t)len;
    tab->n++;
  }
  if (why) {
    rc = MS_ERR_CORRUPT;
    if (d)
      snprintf(d->message, sizeof d->message, "the keyword table of account %u %s", loaded, why);
  } else if (rc == 0 && r != MDB_NOTFOUND) {
    rc = lmdb_err(r);
  }
  mdb_cursor_close(kc);
  return rc;
}

// verify_uids checks that every uid record decodes and names only keywords
// its account's table defines. The tables passed verify_tables in the same
// transaction, so a table that fails to load here failed to be read.
static int verify_uids(ms_store *s, MDB_txn *t, struct ms_diag *d, struct kwtab *tab) {
  MDB_cursor *cur = NULL;
  int rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur));
  if (rc < 0)
    return rc;
  uint32_t loaded = 0;
  int have = 0;
  MDB_val key, v;
  int r = 0;
  while (rc == 0 && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_uid u;
    if (key.mv_size != 12 || msr_uid_decode(&u, v.mv_data, v.mv_size) < 0) {
      rc = MS_ERR_CORRUPT;
      if (d)
        snprintf(d->message, sizeof d->message, "a uid record does not decode");
      break;
    }
    uint32_t acct = msr_get_be32(key.mv_data);
    if (!have || acct != loaded) {
      if ((rc = kwtab_load(s, t, acct, tab)) < 0)
        break;
      loaded = acct;
      have = 1;
    }
    uint32_t ids[MSR_KEYWORDS_MAX];
    size_t n = put_ids(ids, MSR_KEYWORDS_MAX, u.kw);
    if (n && ids[n - 1] >= tab->n) {
      rc = MS_ERR_CORRUPT;
      if (d)
        snprintf(d->message, sizeof d->message,
                 "UID %u of mailbox %u of account %u has undefined keyword %u",
                 msr_get_be32((const uint8_t *)key.mv_data + 8),
                 msr_get_be32((const uint8_t *)key.mv_data + 4), acct, ids[n - 1]);
    }
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(cur);
  return rc;
}

int kw_verify(ms_store *s, MDB_txn *t, struct ms_diag *d) {
  struct kwtab *tab = malloc(sizeof *tab);
  if (!tab)
    return -ENOMEM;
  // The tables first: damage in one is then named for what it is, not as
  // a table the uid walk could not load.
  int rc = verify_tables(s, t, d, tab);
  if (rc == 0)
    rc = verify_uids(s, t, d, tab);
  free(tab);
  return rc;
}
