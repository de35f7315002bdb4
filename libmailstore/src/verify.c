// verify.c: ms_store_verify, the full consistency check, in one read
// transaction: the name entries; every mailbox against its UID records and
// counters; every message against its memberships and its blob; account
// usage; VANISHED entries; every blob's reference count, dictionary and
// content against its SHA-256; the release and search queues and the
// dictionaries; then the keyword tables (keywords.c), the change logs
// (changelog.c) and the summaries and thread index (summary.c).
#include "blob.h"
#include "changelog.h"
#include "keywords.h"
#include "mailstore.h"
#include "meta.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// bad records the first problem verification finds in d (if any) and
// returns MS_ERR_CORRUPT.
__attribute__((format(printf, 2, 3))) static int bad(struct ms_diag *d, const char *fmt, ...) {
  if (d && !d->message[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
  }
  return MS_ERR_CORRUPT;
}

// verify_names checks the name entries: each leads to the account or
// mailbox record it names, which bears that name, and there are as many
// entries as records, so that no record lacks its entry either (two entries
// cannot lead to one record: they would hold the same name, one key).
static int verify_names(ms_store *s, MDB_txn *t, struct ms_diag *d) {
  MDB_cursor *cur;
  MDB_val key, v;
  int r, rc = lmdb_err(mdb_cursor_open(t, s->names, &cur));
  if (rc < 0)
    return rc;
  size_t accounts = 0, mailboxes = 0;
  while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    const uint8_t *k = key.mv_data;
    bool is_account = key.mv_size > 1 && k[0] == 'A';
    bool is_mailbox = key.mv_size > 5 && k[0] == 'M';
    if (v.mv_size != 4 || (!is_account && !is_mailbox)) {
      rc = bad(d, "a name entry does not decode");
      break;
    }
    uint32_t id = msr_get_le32(v.mv_data), acct = 0;
    int lr;
    bool same;
    if (is_account) {
      struct msr_account a;
      lr = acct_load(s, t, id, &a);
      same = lr == 0 && a.name_len == key.mv_size - 1 && memcmp(a.name, k + 1, a.name_len) == 0;
    } else {
      struct msr_mailbox m;
      acct = msr_get_be32(k + 1);
      lr = mbox_load(s, t, acct, id, &m);
      same = lr == 0 && m.name_len == key.mv_size - 5 && memcmp(m.name, k + 5, m.name_len) == 0;
    }
    if (lr < 0 && lr != MS_ERR_NOTFOUND && lr != MS_ERR_CORRUPT) {
      rc = lr;
      break;
    }
    if (!same) {
      rc = is_account
               ? bad(d, "the name entry of account %u leads to no account of that name", id)
               : bad(d, "account %u: the name entry of mailbox %u leads to no mailbox of that name",
                     acct, id);
      break;
    }
    if (is_account)
      accounts++;
    else
      mailboxes++;
  }
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(cur);
  MDB_stat st;
  if (rc == 0 && (rc = lmdb_err(mdb_stat(t, s->accounts, &st))) == 0 && st.ms_entries != accounts)
    rc = bad(d, "%zu account name entries for %zu accounts", accounts, (size_t)st.ms_entries);
  if (rc == 0 && (rc = lmdb_err(mdb_stat(t, s->mailboxes, &st))) == 0 && st.ms_entries != mailboxes)
    rc = bad(d, "%zu mailbox name entries for %zu mailboxes", mailboxes, (size_t)st.ms_entries);
  return rc;
}

static int verify_tx(ms_store *s, MDB_txn *t, struct ms_diag *d) {
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
      rc = bad(d, "a mailbox record does not decode");
      break;
    }
    uint32_t acct = msr_get_be32(key.mv_data), mb = msr_get_be32((uint8_t *)key.mv_data + 4);
    if ((rc = acct_load(s, t, acct, &a)) < 0) {
      rc = rc == MS_ERR_NOTFOUND || rc == MS_ERR_CORRUPT
               ? bad(d, "account %u of mailbox %u is missing or does not decode", acct, mb)
               : rc;
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
      uint32_t uid = msr_get_be32((uint8_t *)uk.mv_data + 8);
      if (msr_uid_decode(&u, uv.mv_data, uv.mv_size) < 0) {
        rc = bad(d, "account %u mailbox %u UID %u: record does not decode", acct, mb, uid);
        break;
      }
      if (msg_load(s, t, acct, u.message, &msg) < 0) {
        rc = bad(d, "account %u mailbox %u UID %u: message %llu missing or damaged", acct, mb, uid,
                 (unsigned long long)u.message);
        break;
      }
      if (u.modseq > m.highest_modseq || u.modseq > a.modseq) {
        rc = bad(d, "account %u mailbox %u UID %u: MODSEQ above the mailbox's or account's", acct,
                 mb, uid);
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
    // A read error is the store's failure, not a count that disagrees.
    if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    if (rc == 0 && (total != m.total || unseen != m.unseen || size != m.size))
      rc = bad(d,
               "account %u mailbox %u: counts say %u messages, %u unseen, %llu bytes; "
               "its UIDs hold %u, %u, %llu",
               acct, mb, m.total, m.unseen, (unsigned long long)m.size, total, unseen,
               (unsigned long long)size);
    if (rc == 0 && ((total && last >= m.uidnext) || m.highest_modseq > a.modseq))
      rc = bad(d, "account %u mailbox %u: UID at or above UIDNEXT, or MODSEQ above the account's",
               acct, mb);
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(uc);
  mdb_cursor_close(cur);
  // Every membership must belong to some mailbox.
  MDB_stat st;
  if (rc == 0 && (rc = lmdb_err(mdb_stat(t, s->uids, &st))) == 0 && st.ms_entries != n_uids_seen)
    rc = bad(d, "%llu UID records belong to no mailbox",
             (unsigned long long)(st.ms_entries - n_uids_seen));
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
      if (r != 0 && r != MDB_NOTFOUND) {
        rc = lmdb_err(r); // before the usage check, which would see a partial count
        break;
      }
      uint32_t acct = r == 0 && key.mv_size == 12 ? msr_get_be32(key.mv_data) : 0;
      if (have && (r != 0 || acct != cur_acct)) {
        struct msr_account a;
        if (acct_load(s, t, cur_acct, &a) < 0 || a.used_bytes != bytes ||
            a.used_messages != count) {
          rc = bad(d, "account %u: usage disagrees with its messages (%llu messages, %llu bytes)",
                   cur_acct, (unsigned long long)count, (unsigned long long)bytes);
          break;
        }
        bytes = count = 0;
      }
      if (r != 0)
        break; // MDB_NOTFOUND: the end
      struct msr_message msg;
      if (key.mv_size != 12 || msr_message_decode(&msg, v.mv_data, v.mv_size) < 0) {
        rc = bad(d, "a message record of account %u does not decode", acct);
        break;
      }
      uint8_t k32[32] = {0};
      memcpy(k32, key.mv_data, 12);
      if (mi >= members.n || memcmp(members.v[mi].key, k32, 32) != 0 ||
          members.v[mi].count != msg.refs) {
        const uint8_t *kb = key.mv_data;
        unsigned long long id =
            (unsigned long long)msr_get_be32(kb + 4) << 32 | msr_get_be32(kb + 8);
        rc = bad(d, "account %u message %llu: %u mailbox entries recorded, another number found",
                 acct, id, msg.refs);
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
      rc = bad(d, "a UID record names a message that does not exist");
    // Accounts with no messages must show no usage (the walk above checked
    // the others): an account's messages are the keys that start with its id.
    MDB_cursor *mc = NULL;
    if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->messages, &mc))) == 0 &&
        (rc = lmdb_err(mdb_cursor_open(t, s->accounts, &cur))) == 0) {
      while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
        struct msr_account a;
        if (key.mv_size != 4 || msr_account_decode(&a, v.mv_data, v.mv_size) < 0) {
          rc = bad(d, "an account record does not decode");
          break;
        }
        MDB_val mk = {4, key.mv_data}, mv;
        int mr = mdb_cursor_get(mc, &mk, &mv, MDB_SET_RANGE);
        bool has_messages = mr == 0 && mk.mv_size == 12 && memcmp(mk.mv_data, key.mv_data, 4) == 0;
        if (mr != 0 && mr != MDB_NOTFOUND) {
          rc = lmdb_err(mr);
          break;
        }
        if (!has_messages && (a.used_messages != 0 || a.used_bytes != 0)) {
          rc = bad(d, "account %u: usage disagrees with its messages (0 messages, 0 bytes)",
                   msr_get_be32(key.mv_data));
          break;
        }
      }
      if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
        rc = lmdb_err(r);
      mdb_cursor_close(cur);
    }
    if (mc != NULL)
      mdb_cursor_close(mc);
  }
  if (rc == 0)
    rc = verify_names(s, t, d);
  // VANISHED entries belong to live mailboxes and lie within their MODSEQ.
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->vanished, &cur))) == 0) {
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      struct msr_mailbox m;
      const uint8_t *k = key.mv_data;
      if (key.mv_size != 20 || v.mv_size != 0 ||
          mbox_load(s, t, msr_get_be32(k), msr_get_be32(k + 4), &m) < 0 ||
          ((uint64_t)msr_get_be32(k + 8) << 32 | msr_get_be32(k + 12)) > m.highest_modseq ||
          msr_get_be32(k + 16) >= m.uidnext) {
        rc = bad(d, "a VANISHED entry names no live mailbox or lies beyond its MODSEQ or UIDNEXT");
        break;
      }
    }
    if (rc == 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  // Blobs released by expunges but not yet collected still hold their
  // references.
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->release, &cur))) == 0) {
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      if (key.mv_size != 8 || v.mv_size != 32) {
        rc = bad(d, "a release queue entry is malformed");
        break;
      }
      if ((rc = refs_add(&blobrefs, v.mv_data, 32)) < 0)
        break;
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
      char hex[17] = "?";
      if (key.mv_size == 32)
        for (int i = 0; i < 8; i++)
          snprintf(hex + 2 * i, 3, "%02x", ((const uint8_t *)key.mv_data)[i]);
      if (key.mv_size != 32 || msr_blob_decode(&b, v.mv_data, v.mv_size) < 0) {
        rc = bad(d, "blob %s...: record does not decode", hex);
        break;
      }
      if (bi >= blobrefs.n || memcmp(blobrefs.v[bi].key, key.mv_data, 32) != 0 ||
          blobrefs.v[bi].count != b.refs) {
        rc = bad(d, "blob %s...: reference count %llu disagrees with the messages naming it", hex,
                 (unsigned long long)b.refs);
        break;
      }
      bi++;
      if (b.dict) {
        uint8_t dk[4];
        MDB_val dv;
        msr_be32(dk, b.dict);
        if ((rc = get(t, s->dicts, dk, sizeof dk, &dv)) < 0) {
          rc = rc == MS_ERR_NOTFOUND
                   ? bad(d, "blob %s...: names dictionary %u, which does not exist", hex, b.dict)
                   : rc;
          break;
        }
      }
      uint8_t *raw = malloc(b.raw_len ? (size_t)b.raw_len : 1);
      if (!raw) {
        rc = -ENOMEM;
        break;
      }
      rc = blob_decompress(s, t, &b, &v, raw);
      uint8_t h[32];
      if (rc == 0)
        SHA256(raw, (size_t)b.raw_len, h);
      free(raw);
      if (rc == -ENOMEM)
        break;
      if (rc < 0 || memcmp(h, key.mv_data, 32) != 0) {
        rc = bad(d, "blob %s...: content damaged (does not decompress to its SHA-256)", hex);
        break;
      }
    }
    if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    if (rc == 0 && bi != blobrefs.n)
      rc = bad(d, "a message names a blob that does not exist");
    mdb_cursor_close(cur);
  }
  // Search queue entries decode and name messages their account has
  // handed out (the message itself may be gone: a removal follows).
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->squeue, &cur))) == 0) {
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      struct msr_squeue q;
      struct msr_account a;
      if (key.mv_size != 8 || msr_squeue_decode(&q, v.mv_data, v.mv_size) < 0 ||
          acct_load(s, t, q.account, &a) < 0 || q.message >= a.next_message) {
        rc = bad(d, "a search queue entry is malformed or names no message of its account");
        break;
      }
    }
    if (rc == 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  // Dictionaries: ids from 1, records that decode.
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, s->dicts, &cur))) == 0) {
    while ((r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
      struct msr_dict dr;
      if (key.mv_size != 4 || msr_get_be32(key.mv_data) == 0 ||
          msr_dict_decode(&dr, v.mv_data, v.mv_size) < 0) {
        rc = bad(d, "a dictionary record is malformed");
        break;
      }
    }
    if (rc == 0 && r != MDB_NOTFOUND)
      rc = lmdb_err(r);
    mdb_cursor_close(cur);
  }
  free(members.v);
  free(blobrefs.v);
  return rc;
}

int ms_store_verify(ms_store *store, struct ms_diag *diag) {
  if (diag)
    *diag = (struct ms_diag){0};
  if (!store) {
    if (diag)
      diag->code = MS_ERR_INVALID_ARGUMENT;
    return MS_ERR_INVALID_ARGUMENT;
  }
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0) {
    if (diag)
      diag->code = rc;
    return rc;
  }
  rc = verify_tx(store, t, diag);
  if (rc == 0)
    rc = kw_verify(store, t, diag);
  if (rc == 0)
    rc = cl_verify(store, t, diag);
  if (rc == 0)
    rc = meta_verify(store, t, diag);
  txn_abort(store, t);
  if (diag)
    diag->code = rc;
  return rc;
}
