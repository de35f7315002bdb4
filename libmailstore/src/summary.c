// summary.c: the cached message summary. A delivery parses its message
// once with libmailparse, outside the write lock, into one compact record
// holding what IMAP FETCH ENVELOPE/BODYSTRUCTURE, SORT, THREAD and JMAP
// Email/get would otherwise parse the message again for; the record is
// written by the delivery transaction and read back here, with bounds
// checks, for the public getters, sort.c and thread.c.
#include "meta.h"

#include "mailparse.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The stored flag bits are the public MS_SUMMARY_* bits below STORED.
#define FLAGS_STORED_MASK (MS_SUMMARY_HAS_DATE | MS_SUMMARY_HAS_ATTACHMENT | MS_SUMMARY_REPLY)

// field is one string of the record under construction: borrowed or owned.
struct field {
  const char *p;
  size_t len;
  char *owned;
};

static void field_own(struct field *f, char *p, size_t len) {
  free(f->owned);
  f->owned = p;
  f->p = p;
  f->len = len;
}

// header_value finds the first field `name` of the top-level header.
static int header_value(const mp_message *m, const char *name, const char **p, size_t *len) {
  long i = mp_message_header_find(m, 0, 0, name, strlen(name));
  if (i < 0)
    return 0;
  const mp_header *h = mp_message_header(m, (size_t)i);
  size_t n;
  const uint8_t *d = mp_message_data(m, &n);
  if (!h || h->value.off > n || h->value.len > n - h->value.off)
    return 0;
  *p = (const char *)d + h->value.off;
  *len = h->value.len;
  return 1;
}

// addresses sets *key to the addr-mailbox (local part) of the first
// mailbox of field `name` (RFC 5256 section 2.2) and, when disp is not
// NULL, *disp to its RFC 5957 display name or, without one, its addr-spec.
static int addresses(const mp_message *m, const char *name, struct field *key, struct field *disp) {
  const char *in;
  size_t in_len;
  if (!header_value(m, name, &in, &in_len))
    return 0;
  size_t cap = in_len / 2 + 1, tcap = mp_typed_text_max_len(in_len);
  mp_address *a = malloc(cap * sizeof *a);
  char *text = malloc(tcap);
  if (!a || !text) {
    free(a);
    free(text);
    return -ENOMEM;
  }
  size_t na = 0, tlen = 0;
  unsigned fl = 0;
  int rc = mp_address_list_parse(a, cap, &na, text, tcap, &tlen, &fl, in, in_len);
  if (rc == 0) {
    for (size_t i = 0; i < na; i++) {
      if ((a[i].flags & MP_ADDRESS_GROUP) || (!a[i].local.p && !a[i].name.p))
        continue;
      char *k = malloc(a[i].local.len + 1);
      if (!k) {
        rc = -ENOMEM;
        break;
      }
      if (a[i].local.len)
        memcpy(k, a[i].local.p, a[i].local.len);
      field_own(key, k, a[i].local.len);
      if (disp) {
        // RFC 5957 section 3: the display name when there is a non-empty
        // one, else the address written as addr-spec.
        size_t n = a[i].name.len ? a[i].name.len
                                 : a[i].local.len + (a[i].domain.len ? 1 + a[i].domain.len : 0);
        char *d = malloc(n + 1);
        if (!d) {
          rc = -ENOMEM;
          break;
        }
        if (a[i].name.len) {
          memcpy(d, a[i].name.p, n);
        } else {
          size_t o = 0;
          if (a[i].local.len)
            memcpy(d, a[i].local.p, a[i].local.len);
          o = a[i].local.len;
          if (a[i].domain.len) {
            d[o++] = '@';
            memcpy(d + o, a[i].domain.p, a[i].domain.len);
          }
        }
        field_own(disp, d, n);
      }
      break;
    }
  }
  free(a);
  free(text);
  return rc == -ENOMEM ? rc : 0;
}

// msgids writes the ids of field `name` to *f: the first only (one != 0)
// or all, separated by one space (ids holding white space are skipped:
// they are not valid msg-ids and would break the list apart).
static int msgids(const mp_message *m, const char *name, struct field *f, int one) {
  const char *in;
  size_t in_len;
  if (!header_value(m, name, &in, &in_len))
    return 0;
  size_t cap = in_len / 2 + 1, tcap = mp_typed_text_max_len(in_len);
  mp_msgid *ids = malloc(cap * sizeof *ids);
  char *text = malloc(tcap), *out = malloc(tcap + cap);
  if (!ids || !text || !out) {
    free(ids);
    free(text);
    free(out);
    return -ENOMEM;
  }
  size_t n = 0, tlen = 0, o = 0;
  unsigned fl = 0;
  if (mp_msgid_list_parse(ids, cap, &n, text, tcap, &tlen, &fl, in, in_len) == 0) {
    for (size_t i = 0; i < n; i++) {
      const char *p = ids[i].id.p;
      size_t len = ids[i].id.len, j = 0;
      while (j < len && p[j] != ' ' && p[j] != '\t' && p[j] != '\r' && p[j] != '\n')
        j++;
      if (len == 0 || j < len)
        continue;
      if (o)
        out[o++] = ' ';
      memcpy(out + o, p, len);
      o += len;
      if (one)
        break;
    }
  }
  free(ids);
  free(text);
  if (o)
    field_own(f, out, o);
  else
    free(out);
  return 0;
}

// SIZED_GUESS is the first buffer sized_text offers; most ENVELOPE and
// BODYSTRUCTURE strings fit, so the writer usually runs once.
#define SIZED_GUESS 1024

// sized_write runs writer `kind` (0 ENVELOPE, 1 BODYSTRUCTURE) of part 0
// into out (cap bytes; NULL and 0 for a size query).
static int sized_write(const mp_message *m, int kind, char *out, size_t cap, size_t *len) {
  return kind == 0 ? mp_part_envelope(m, 0, out, cap, len)
                   : mp_part_bodystructure(m, 0, 1, out, cap, len);
}

// sized_text runs a libmailparse writer into a buffer of SIZED_GUESS
// bytes, and only when that is too small a second time, after a size
// query, into one of the size it needs. Failures other than memory leave
// the field empty (e.g. MP_ERR_LIMIT for absurdly nested parts).
static int sized_text(const mp_message *m, int kind, struct field *f) {
  size_t len = 0, need = 0;
  char *buf = malloc(SIZED_GUESS);
  if (!buf)
    return -ENOMEM;
  int rc = sized_write(m, kind, buf, SIZED_GUESS, &len);
  if (rc == MP_ERR_BUFFER_TOO_SMALL) {
    free(buf);
    buf = NULL;
    rc = sized_write(m, kind, NULL, 0, &need);
    if (rc == 0 && need > 0 && !(buf = malloc(need)))
      return -ENOMEM;
    if (rc == 0 && need > 0)
      rc = sized_write(m, kind, buf, need, &len);
  }
  if (rc < 0 || len == 0) {
    free(buf);
    return rc == -ENOMEM ? rc : 0;
  }
  field_own(f, buf, len);
  return 0;
}

// subject writes the RFC 5256 base subject and notes a reply marker.
static int subject(const mp_message *m, struct field *f, unsigned *flags) {
  const char *in;
  size_t in_len;
  if (!header_value(m, "Subject", &in, &in_len))
    return 0;
  size_t cap = mp_typed_text_max_len(in_len);
  char *out = malloc(cap);
  if (!out)
    return -ENOMEM;
  size_t len = 0;
  unsigned fl = 0;
  if (mp_subject_base(out, cap, &len, &fl, in, in_len) < 0) {
    free(out);
    return 0;
  }
  if (fl & MP_TYPED_SUBJECT_REPLY)
    *flags |= MS_SUMMARY_REPLY;
  field_own(f, out, len);
  return 0;
}

// body writes the preview and finds attachments (RFC 8621 section 4.1.4).
static int body(const mp_message *m, struct field *f, unsigned *flags) {
  size_t cap = mp_message_select_max_len(m);
  uint32_t *idx = malloc((cap ? cap : 1) * sizeof *idx);
  char *out = malloc(MP_PREVIEW_MAX_LEN);
  if (!idx || !out) {
    free(idx);
    free(out);
    return -ENOMEM;
  }
  mp_selection sel;
  size_t len = 0;
  int rc = mp_message_select(m, &sel, idx, cap, 0);
  if (rc == 0) {
    if (sel.num_attachments)
      *flags |= MS_SUMMARY_HAS_ATTACHMENT;
    rc = mp_message_preview(m, out, MP_PREVIEW_MAX_LEN, &len, &sel);
  }
  free(idx);
  if (rc < 0 || len == 0) {
    free(out);
    return rc == -ENOMEM ? rc : 0;
  }
  field_own(f, out, len);
  return 0;
}

enum {
  F_ENVELOPE,
  F_BODYSTRUCTURE,
  F_FROM,
  F_TO,
  F_CC,
  F_DISPLAY_FROM,
  F_DISPLAY_TO,
  F_SUBJECT,
  F_MESSAGE_ID,
  F_IN_REPLY_TO,
  F_REFERENCES,
  F_PREVIEW,
};

int summary_build(uint8_t **out, size_t *out_len, const uint8_t *data, size_t len,
                  int64_t internal_date) {
  *out = NULL;
  *out_len = 0;
  mp_settings set = MP_SETTINGS_INIT;
  mp_message *m = NULL;
  int rc = mp_message_parse(&m, &set, data, len, NULL);
  if (rc < 0)
    return rc == -ENOMEM ? rc : -EIO;
  rc = summary_build_parsed(out, out_len, m, len, internal_date);
  mp_message_free(m);
  return rc;
}

int summary_build_parsed(uint8_t **out, size_t *out_len, const mp_message *m, size_t len,
                         int64_t internal_date) {
  *out = NULL;
  *out_len = 0;
  int rc = 0;
  struct field f[SUMMARY_FIELDS];
  memset(f, 0, sizeof f);
  unsigned flags = 0;
  int64_t date = internal_date;
  int32_t offset = 0;
  const char *dv;
  size_t dl;
  if (header_value(m, "Date", &dv, &dl)) {
    mp_date d;
    unsigned df = 0;
    // RFC 5256 section 2.2: a Date that cannot be parsed counts as absent.
    if (mp_date_parse(&d, &df, dv, dl) == 0) {
      date = d.time;
      offset = d.offset;
      flags |= MS_SUMMARY_HAS_DATE;
    }
  }
  if ((rc = sized_text(m, 0, &f[F_ENVELOPE])) == 0 &&
      (rc = sized_text(m, 1, &f[F_BODYSTRUCTURE])) == 0 &&
      (rc = addresses(m, "From", &f[F_FROM], &f[F_DISPLAY_FROM])) == 0 &&
      (rc = addresses(m, "To", &f[F_TO], &f[F_DISPLAY_TO])) == 0 &&
      (rc = addresses(m, "Cc", &f[F_CC], NULL)) == 0 &&
      (rc = subject(m, &f[F_SUBJECT], &flags)) == 0 &&
      (rc = msgids(m, "Message-ID", &f[F_MESSAGE_ID], 1)) == 0 &&
      (rc = msgids(m, "In-Reply-To", &f[F_IN_REPLY_TO], 1)) == 0 &&
      (rc = msgids(m, "References", &f[F_REFERENCES], 0)) == 0)
    rc = body(m, &f[F_PREVIEW], &flags);
  size_t total = SUMMARY_HEAD;
  for (unsigned i = 0; i < SUMMARY_FIELDS; i++) {
    // A field cannot exceed a u32 length; the message size limit keeps
    // every real one far below.
    if (f[i].len > UINT32_MAX - total)
      f[i].len = 0;
    total += f[i].len;
  }
  uint8_t *r = rc == 0 ? malloc(total) : NULL;
  if (rc == 0 && !r)
    rc = -ENOMEM;
  if (r) {
    r[0] = SUMMARY_VERSION;
    r[1] = (uint8_t)flags;
    r[2] = (uint8_t)((uint16_t)(int16_t)offset);
    r[3] = (uint8_t)((uint16_t)(int16_t)offset >> 8);
    msr_le64(r + 4, (uint64_t)date);
    msr_le64(r + 12, (uint64_t)internal_date);
    msr_le64(r + 20, len);
    size_t o = SUMMARY_HEAD;
    for (unsigned i = 0; i < SUMMARY_FIELDS; i++) {
      msr_le32(r + 28 + 4 * i, (uint32_t)f[i].len);
      if (f[i].len)
        memcpy(r + o, f[i].p, f[i].len);
      o += f[i].len;
    }
    *out = r;
    *out_len = total;
  }
  for (unsigned i = 0; i < SUMMARY_FIELDS; i++)
    free(f[i].owned);
  return rc;
}

int summary_decode(struct ms_summary *out, const uint8_t *p, size_t n) {
  if (n < SUMMARY_HEAD || p[0] != SUMMARY_VERSION || (p[1] & ~FLAGS_STORED_MASK))
    return MS_ERR_CORRUPT;
  int16_t off = (int16_t)(uint16_t)(p[2] | p[3] << 8);
  // Zones lie within a day of UTC (RFC 5322 allows +-99:59).
  if (off < -6000 || off > 6000)
    return MS_ERR_CORRUPT;
  memset(out, 0, sizeof *out);
  out->flags = p[1];
  out->date_offset = off;
  out->date = (int64_t)msr_get_le64(p + 4);
  out->internal_date = (int64_t)msr_get_le64(p + 12);
  out->size = msr_get_le64(p + 20);
  struct ms_text *t[SUMMARY_FIELDS] = {
      &out->envelope,   &out->bodystructure, &out->from,       &out->to,
      &out->cc,         &out->display_from,  &out->display_to, &out->subject,
      &out->message_id, &out->in_reply_to,   &out->references, &out->preview};
  size_t o = SUMMARY_HEAD;
  for (unsigned i = 0; i < SUMMARY_FIELDS; i++) {
    size_t len = msr_get_le32(p + 28 + 4 * i);
    if (len > n - o)
      return MS_ERR_CORRUPT;
    t[i]->p = len ? (const char *)p + o : NULL;
    t[i]->len = len;
    o += len;
  }
  return o == n ? 0 : MS_ERR_CORRUPT;
}

int summary_load(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, MDB_val *v) {
  uint8_t k[12];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  int rc = get(t, s->summaries, k, sizeof k, v);
  if (rc == MS_ERR_NOTFOUND)
    return 0;
  return rc < 0 ? rc : 1;
}

// Callers ask for summaries mostly in key order (UIDs in delivery order,
// the message table's walk), so the cursor's next record is usually the
// one wanted: a step, where a search would descend the tree. After a miss
// the cursor is unpositioned and the next step restarts from the first
// record, so that call searches.
int summary_seek(MDB_cursor *c, uint32_t acct, uint64_t id, MDB_val *v) {
  uint8_t k[12];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  MDB_val key;
  int rc = mdb_cursor_get(c, &key, v, MDB_NEXT);
  if (rc == 0 && key.mv_size == 12 && memcmp(key.mv_data, k, 12) == 0)
    return 1;
  if (rc != 0 && rc != MDB_NOTFOUND) // a damaged page: not a miss to search past
    return lmdb_err(rc);
  key = val(k, sizeof k);
  rc = mdb_cursor_get(c, &key, v, MDB_SET_KEY);
  if (rc == MDB_NOTFOUND)
    return 0;
  return rc ? lmdb_err(rc) : 1;
}

int meta_deliver(ms_store *s, MDB_txn *t, struct thread_batch *b, uint32_t acct, uint64_t id,
                 const uint8_t *sum, size_t sum_len, const struct thread_keys *keys,
                 uint64_t *thread) {
  *thread = id;
  if (!sum)
    return 0;
  uint8_t k[12];
  msr_be32(k, acct);
  msr_be64(k + 4, id);
  // Message ids of an account only grow: appending keeps the table's pages
  // full and the write at the right edge of the tree.
  MDB_val key = val(k, sizeof k), data = val(sum, sum_len);
  int rc = mdb_put(t, s->summaries, &key, &data, MDB_APPEND);
  if (rc == MDB_KEYEXIST)
    rc = mdb_put(t, s->summaries, &key, &data, 0);
  rc = lmdb_err(rc);
  if (rc < 0)
    return rc;
  return thread_assign(s, t, b, acct, id, keys, thread);
}

int meta_destroy_at(MDB_cursor *c, uint32_t acct, uint64_t id) {
  MDB_val v;
  int rc = summary_seek(c, acct, id, &v);
  if (rc <= 0)
    return rc;
  return lmdb_err(mdb_cursor_del(c, 0));
}

// copy_out copies record r (n bytes) to the caller's buffer and decodes it
// there, so that the result outlives any transaction.
static int copy_out(struct ms_summary *out, uint8_t *buf, size_t buf_cap, size_t *buf_len,
                    const uint8_t *r, size_t n, uint32_t extra_flags) {
  *buf_len = n;
  if (n > buf_cap || !buf)
    return MS_ERR_LIMIT;
  memcpy(buf, r, n);
  int rc = summary_decode(out, buf, n);
  if (rc == 0)
    out->flags |= extra_flags;
  return rc;
}

int ms_summary_make(struct ms_summary *out, uint8_t *buf, size_t buf_cap, size_t *buf_len,
                    const uint8_t *data, size_t len, int64_t internal_date) {
  if (!out || !buf_len || (!data && len) || (!buf && buf_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *buf_len = 0;
  uint8_t *r;
  size_t n;
  int rc = summary_build(&r, &n, data, len, internal_date);
  if (rc < 0)
    return rc == -EIO ? MS_ERR_INVALID_ARGUMENT : rc;
  rc = copy_out(out, buf, buf_cap, buf_len, r, n, 0);
  free(r);
  return rc;
}

int summarize_message(ms_store *s, uint8_t **rec, size_t *rec_len, uint32_t acct, uint64_t id) {
  struct ms_message_info info;
  int rc = ms_message_get(s, &info, acct, id);
  if (rc < 0)
    return rc;
  size_t cap = (size_t)info.size, len = 0;
  uint8_t *data = malloc(cap ? cap : 1);
  if (!data)
    return -ENOMEM;
  rc = ms_message_read(s, data, cap, &len, acct, id);
  if (rc == 0)
    rc = summary_build(rec, rec_len, data, len, info.internal_date);
  free(data);
  return rc == -EIO ? MS_ERR_CORRUPT : rc;
}

int ms_message_summary_get(ms_store *store, struct ms_summary *out, uint8_t *buf, size_t buf_cap,
                           size_t *buf_len, uint32_t account, uint64_t message_id) {
  if (!store || !out || !buf_len || (!buf && buf_cap))
    return MS_ERR_INVALID_ARGUMENT;
  *buf_len = 0;
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  MDB_val v;
  int found = rc = summary_load(store, t, account, message_id, &v);
  if (rc > 0)
    rc = copy_out(out, buf, buf_cap, buf_len, v.mv_data, v.mv_size, MS_SUMMARY_STORED);
  txn_abort(store, t);
  if (found != 0)
    return rc;
  // Stored by an older library: summarise now (FORMAT.md).
  uint8_t *r;
  size_t n;
  if ((rc = summarize_message(store, &r, &n, account, message_id)) < 0)
    return rc;
  rc = copy_out(out, buf, buf_cap, buf_len, r, n, 0);
  free(r);
  return rc;
}

// ---- ms_store_summarize ----

struct pending {
  uint32_t acct;
  uint64_t id;
  uint8_t *rec;
  size_t len;
};

struct summarize_ctx {
  struct pending *p;
  size_t n;
};

static int summarize_tx(ms_store *s, MDB_txn *t, void *p) {
  struct summarize_ctx *c = p;
  int stored = 0;
  for (size_t i = 0; i < c->n; i++) {
    if (!c->p[i].rec)
      continue;
    uint8_t k[12];
    msr_be32(k, c->p[i].acct);
    msr_be64(k + 4, c->p[i].id);
    MDB_val v;
    // Skip a message destroyed, or summarised by another caller, since the
    // snapshot the list came from.
    int rc = get(t, s->messages, k, sizeof k, &v);
    if (rc == MS_ERR_NOTFOUND)
      continue;
    if (rc < 0 || (rc = summary_load(s, t, c->p[i].acct, c->p[i].id, &v)) < 0)
      return rc;
    if (rc == 1)
      continue;
    if ((rc = put(t, s->summaries, k, sizeof k, c->p[i].rec, c->p[i].len, 0)) < 0)
      return rc;
    stored++;
  }
  return stored;
}

int ms_store_summarize(ms_store *store, size_t max_items) {
  if (!store || max_items > 65536)
    return MS_ERR_INVALID_ARGUMENT;
  if (max_items == 0)
    max_items = 1024;
  struct summarize_ctx c = {.p = calloc(max_items, sizeof *c.p)};
  if (!c.p)
    return -ENOMEM;
  // Find messages without a summary in one snapshot; parse outside any
  // transaction; store in one write transaction.
  MDB_txn *t;
  int rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc == 0) {
    MDB_cursor *cur = NULL, *sc = NULL;
    rc = lmdb_err(mdb_cursor_open(t, store->summaries, &sc));
    if (rc == 0)
      rc = lmdb_err(mdb_cursor_open(t, store->messages, &cur));
    if (rc == 0) {
      MDB_val k, v;
      int r;
      for (r = mdb_cursor_get(cur, &k, &v, MDB_FIRST); r == 0 && c.n < max_items;
           r = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 12) {
          rc = MS_ERR_CORRUPT;
          break;
        }
        uint32_t acct = msr_get_be32(k.mv_data);
        uint64_t id = (uint64_t)msr_get_be32((uint8_t *)k.mv_data + 4) << 32 |
                      msr_get_be32((uint8_t *)k.mv_data + 8);
        MDB_val sv;
        if ((rc = summary_seek(sc, acct, id, &sv)) < 0)
          break;
        if (rc == 0) {
          c.p[c.n].acct = acct;
          c.p[c.n++].id = id;
        }
        rc = 0;
      }
      // A read error must not pass for the end of the messages.
      if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
        rc = lmdb_err(r);
      mdb_cursor_close(cur);
    }
    if (sc)
      mdb_cursor_close(sc);
    txn_abort(store, t);
  }
  for (size_t i = 0; rc == 0 && i < c.n; i++) {
    rc = summarize_message(store, &c.p[i].rec, &c.p[i].len, c.p[i].acct, c.p[i].id);
    if (rc == MS_ERR_NOTFOUND)
      rc = 0;
  }
  if (rc == 0 && c.n)
    rc = run_write(store, summarize_tx, &c);
  for (size_t i = 0; i < c.n; i++)
    free(c.p[i].rec);
  free(c.p);
  return rc;
}

// ---- verification ----

int meta_verify(ms_store *s, MDB_txn *t, struct ms_diag *d) {
  MDB_cursor *cur = NULL;
  int rc = lmdb_err(mdb_cursor_open(t, s->summaries, &cur));
  MDB_val key, v;
  int r = 0;
  while (rc == 0 && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct ms_summary sum;
    if (key.mv_size != 12 || summary_decode(&sum, v.mv_data, v.mv_size) < 0) {
      rc = MS_ERR_CORRUPT;
      if (d)
        snprintf(d->message, sizeof d->message, "a summary record does not decode");
      break;
    }
    // A summary whose message is gone is an orphan an older library left
    // (FORMAT.md); one whose message exists must describe it.
    uint32_t acct = msr_get_be32(key.mv_data);
    uint64_t id = (uint64_t)msr_get_be32((const uint8_t *)key.mv_data + 4) << 32 |
                  msr_get_be32((const uint8_t *)key.mv_data + 8);
    MDB_val mv;
    struct msr_message m;
    int g = get(t, s->messages, key.mv_data, 12, &mv);
    if (g == MS_ERR_NOTFOUND)
      continue;
    if (g < 0) {
      rc = g;
      break;
    }
    if (msr_message_decode(&m, mv.mv_data, mv.mv_size) < 0 || m.size != sum.size ||
        m.internal_date != sum.internal_date) {
      rc = MS_ERR_CORRUPT;
      if (d)
        snprintf(d->message, sizeof d->message,
                 "the summary of message %llu of account %u does not match its message",
                 (unsigned long long)id, acct);
      break;
    }
  }
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (cur)
    mdb_cursor_close(cur);
  if (rc < 0)
    return rc;
  rc = lmdb_err(mdb_cursor_open(t, s->threads, &cur));
  while (rc == 0 && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    const uint8_t *k = key.mv_data;
    if (key.mv_size != 21 || (k[4] != 'I' && k[4] != 'S') || v.mv_size != 8 ||
        msr_get_le64(v.mv_data) == 0) {
      rc = MS_ERR_CORRUPT;
      if (d)
        snprintf(d->message, sizeof d->message, "a thread index entry is malformed");
      break;
    }
  }
  if (rc == 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (cur)
    mdb_cursor_close(cur);
  return rc;
}
