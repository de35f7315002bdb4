// sort.c: IMAP SORT (RFC 5256 section 3, RFC 5957 DISPLAYFROM/DISPLAYTO)
// over the cached summaries, with paging for JMAP Email/query, and the
// mailbox loader sort.c and thread.c share: one snapshot's walk of the
// mailbox's uid records, each joined with its summary, keeping only the
// numbers and the strings the caller's keys need.
#include "index.h"
#include "meta.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int text_casecmp(const char *a, size_t an, const char *b, size_t bn) {
  size_t n = an < bn ? an : bn;
  for (size_t i = 0; i < n; i++) {
    unsigned ca = (unsigned char)a[i], cb = (unsigned char)b[i];
    if (ca >= 'a' && ca <= 'z')
      ca -= 32;
    if (cb >= 'a' && cb <= 'z')
      cb -= 32;
    if (ca != cb)
      return ca < cb ? -1 : 1;
  }
  return an < bn ? -1 : an > bn;
}

void mitems_free(struct mitems *m) {
  free(m->v);
  free(m->arena);
  memset(m, 0, sizeof *m);
}

static int arena_add(struct mitems *m, const char *p, size_t len, uint32_t *off) {
  if (len > UINT32_MAX - m->arena_len)
    return MS_ERR_LIMIT;
  if (m->arena_len + len > m->arena_cap) {
    size_t cap = m->arena_cap ? m->arena_cap : 4096;
    while (cap < m->arena_len + len)
      cap *= 2;
    char *a = realloc(m->arena, cap);
    if (!a)
      return -ENOMEM;
    m->arena = a;
    m->arena_cap = cap;
  }
  *off = (uint32_t)m->arena_len;
  if (len)
    memcpy(m->arena + m->arena_len, p, len);
  m->arena_len += len;
  return 0;
}

// item_fill copies a decoded summary's wanted fields into item i.
static int item_fill(struct mitems *m, struct mitem *it, const struct ms_summary *s,
                     unsigned want) {
  const struct ms_text *f[MF_COUNT] = {&s->from,         &s->to,          &s->cc,
                                       &s->display_from, &s->display_to,  &s->subject,
                                       &s->message_id,   &s->in_reply_to, &s->references};
  it->flags = s->flags;
  it->date = s->date;
  it->internal_date = s->internal_date;
  it->size = s->size;
  for (unsigned i = 0; i < MF_COUNT; i++) {
    it->off[i] = 0;
    it->len[i] = 0;
    if (!(want & (1u << i)) || !f[i]->len)
      continue;
    int rc = arena_add(m, f[i]->p, f[i]->len, &it->off[i]);
    if (rc < 0)
      return rc;
    it->len[i] = (uint32_t)f[i]->len;
  }
  return 0;
}

static int uid_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int mitems_load(ms_store *s, struct mitems *out, uint32_t acct, uint32_t mbox, unsigned want,
                const uint32_t *uids, size_t uid_count) {
  memset(out, 0, sizeof *out);
  // A selection is walked in UID order, each UID found by a search.
  uint32_t *sel = NULL;
  size_t nsel = 0;
  if (uids) {
    if (uid_count > s->set.max_batch)
      return MS_ERR_LIMIT;
    sel = malloc((uid_count ? uid_count : 1) * sizeof *sel);
    if (!sel)
      return -ENOMEM;
    memcpy(sel, uids, uid_count * sizeof *sel);
    qsort(sel, uid_count, sizeof *sel, uid_cmp);
    for (size_t i = 0; i < uid_count; i++)
      if (nsel == 0 || sel[nsel - 1] != sel[i])
        sel[nsel++] = sel[i];
  }
  MDB_txn *t;
  int rc = txn_begin(s, MDB_RDONLY, &t);
  if (rc < 0) {
    free(sel);
    return rc;
  }
  struct msr_mailbox mb;
  MDB_cursor *cur = NULL;
  uint64_t *missing = NULL; // message ids without a summary, by item index
  size_t nmissing = 0;
  MDB_cursor *sc = NULL;
  if ((rc = mbox_load(s, t, acct, mbox, &mb)) == 0 &&
      (rc = lmdb_err(mdb_cursor_open(t, s->summaries, &sc))) == 0)
    rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur));
  if (rc == 0) {
    // The mailbox record's count sizes the array; a damaged count only
    // costs reallocations.
    size_t cap = uids && nsel < mb.total ? nsel : mb.total;
    cap = cap ? cap : 16;
    out->v = malloc(cap * sizeof *out->v);
    missing = malloc(cap * sizeof *missing);
    if (!out->v || !missing)
      rc = -ENOMEM;
    uint8_t k[12], ks[12];
    uid_key(k, acct, mbox, 0);
    MDB_val key = val(k, sizeof k), v;
    int op = MDB_SET_RANGE;
    size_t si = 0;
    while (rc == 0) {
      if (uids) {
        if (si == nsel) {
          rc = MDB_NOTFOUND;
          break;
        }
        uid_key(ks, acct, mbox, sel[si++]);
        key = val(ks, sizeof ks);
        if ((rc = mdb_cursor_get(cur, &key, &v, MDB_SET_KEY)) == MDB_NOTFOUND) {
          rc = 0;
          continue;
        }
        if (rc)
          break;
      } else {
        if ((rc = mdb_cursor_get(cur, &key, &v, op)) != 0)
          break;
        op = MDB_NEXT;
        if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
          break;
      }
      struct msr_uid u;
      if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
        break;
      if (out->n == cap) {
        cap *= 2;
        struct mitem *nv = realloc(out->v, cap * sizeof *nv);
        uint64_t *nm = nv ? realloc(missing, cap * sizeof *nm) : NULL;
        if (nv)
          out->v = nv;
        if (nm)
          missing = nm;
        if (!nv || !nm) {
          rc = -ENOMEM;
          break;
        }
      }
      struct mitem *it = &out->v[out->n];
      memset(it, 0, sizeof *it);
      it->uid = msr_get_be32((const uint8_t *)key.mv_data + 8);
      MDB_val sv;
      struct ms_summary sum;
      if ((rc = summary_seek(sc, acct, u.message, &sv)) < 0)
        break;
      if (rc == 0) {
        // Summarised after the snapshot ends: its message id, kept in
        // place of the (not yet known) size.
        it->size = u.message;
        it->flags = UINT32_MAX;
        missing[nmissing++] = out->n;
      } else if ((rc = summary_decode(&sum, sv.mv_data, sv.mv_size)) < 0 ||
                 (rc = item_fill(out, it, &sum, want)) < 0) {
        break;
      }
      rc = 0;
      out->n++;
    }
    if (rc == MDB_NOTFOUND)
      rc = 0;
    else if (rc > 0 || rc <= -30000)
      rc = lmdb_err(rc);
    mdb_cursor_close(cur);
  }
  if (sc)
    mdb_cursor_close(sc);
  txn_abort(s, t);
  free(sel);
  // Messages from an older library: read and parse each one now. A message
  // expunged since the snapshot is dropped from the list.
  size_t w = 0, next = 0;
  for (size_t i = 0; rc == 0 && i < out->n; i++) {
    struct mitem *it = &out->v[i];
    if (next < nmissing && missing[next] == i) {
      next++;
      uint8_t *rec = NULL;
      size_t len = 0;
      struct ms_summary sum;
      rc = summarize_message(s, &rec, &len, acct, it->size);
      if (rc == 0 && (rc = summary_decode(&sum, rec, len)) == 0)
        rc = item_fill(out, it, &sum, want);
      free(rec);
      if (rc == MS_ERR_NOTFOUND) {
        rc = 0;
        continue;
      }
    }
    out->v[w++] = *it;
  }
  if (rc == 0)
    out->n = w;
  free(missing);
  if (rc < 0)
    mitems_free(out);
  return rc;
}

// ---- SORT ----

struct sort_ctx {
  const struct mitems *m;
  const uint32_t *keys;
  size_t nkeys;
};

static int cmp_num(int64_t a, int64_t b) {
  return a < b ? -1 : a > b;
}

static int cmp_field(const struct mitems *m, const struct mitem *a, const struct mitem *b,
                     unsigned f) {
  return text_casecmp(m->arena + a->off[f], a->len[f], m->arena + b->off[f], b->len[f]);
}

static int item_cmp(const struct sort_ctx *c, const struct mitem *a, const struct mitem *b) {
  for (size_t i = 0; i < c->nkeys; i++) {
    int r = 0;
    switch (c->keys[i] & ~(uint32_t)MS_SORT_REVERSE) {
    case MS_SORT_ARRIVAL:
      r = cmp_num(a->internal_date, b->internal_date);
      break;
    case MS_SORT_DATE:
      r = cmp_num(a->date, b->date);
      break;
    case MS_SORT_SIZE:
      r = a->size < b->size ? -1 : a->size > b->size;
      break;
    case MS_SORT_FROM:
      r = cmp_field(c->m, a, b, MF_FROM);
      break;
    case MS_SORT_TO:
      r = cmp_field(c->m, a, b, MF_TO);
      break;
    case MS_SORT_CC:
      r = cmp_field(c->m, a, b, MF_CC);
      break;
    case MS_SORT_SUBJECT:
      r = cmp_field(c->m, a, b, MF_SUBJECT);
      break;
    case MS_SORT_DISPLAYFROM:
      r = cmp_field(c->m, a, b, MF_DISPLAY_FROM);
      break;
    case MS_SORT_DISPLAYTO:
      r = cmp_field(c->m, a, b, MF_DISPLAY_TO);
      break;
    }
    if (r)
      return (c->keys[i] & MS_SORT_REVERSE) ? -r : r;
  }
  return 0;
}

static int item_cmp_indices(const void *ctx, uint32_t x, uint32_t y) {
  const struct sort_ctx *c = ctx;
  return item_cmp(c, &c->m->v[x], &c->m->v[y]);
}

int ms_mailbox_sort(ms_store *store, uint32_t *out, size_t out_cap, size_t *out_len,
                    size_t *out_total, uint32_t account, uint32_t mailbox, const uint32_t *uids,
                    size_t uid_count, const uint32_t *keys, size_t key_count, size_t offset) {
  if (!store || !out_len || (!out && out_cap) || (!keys && key_count) ||
      key_count > MS_SORT_MAX_KEYS)
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (out_total)
    *out_total = 0;
  unsigned want = 0;
  for (size_t i = 0; i < key_count; i++) {
    uint32_t k = keys[i] & ~(uint32_t)MS_SORT_REVERSE;
    static const unsigned field[] = {
        [MS_SORT_FROM] = 1u << MF_FROM,
        [MS_SORT_TO] = 1u << MF_TO,
        [MS_SORT_CC] = 1u << MF_CC,
        [MS_SORT_SUBJECT] = 1u << MF_SUBJECT,
        [MS_SORT_DISPLAYFROM] = 1u << MF_DISPLAY_FROM,
        [MS_SORT_DISPLAYTO] = 1u << MF_DISPLAY_TO,
    };
    if (k < MS_SORT_ARRIVAL || k > MS_SORT_DISPLAYTO || (keys[i] & ~(uint32_t)0x1ff))
      return MS_ERR_INVALID_ARGUMENT;
    want |= field[k];
  }
  // Whole-mailbox sorts: the packed index holds the numeric keys and
  // columns of the string keys (index.c), giving this file's order.
  int rc = uids ? 0
                : msi_sort(store, out, out_cap, out_len, out_total, account, mailbox, keys,
                           key_count, offset);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  struct mitems m;
  rc = mitems_load(store, &m, account, mailbox, want, uids, uid_count);
  if (rc < 0)
    return rc;
  if (m.n > UINT32_MAX) {
    mitems_free(&m);
    return MS_ERR_LIMIT;
  }
  uint32_t *idx = malloc((m.n ? m.n : 1) * 2 * sizeof *idx);
  if (!idx) {
    mitems_free(&m);
    return -ENOMEM;
  }
  for (size_t i = 0; i < m.n; i++)
    idx[i] = (uint32_t)i;
  struct sort_ctx c = {.m = &m, .keys = keys, .nkeys = key_count};
  if (key_count)
    meta_sort_indices(idx, idx + m.n, m.n, item_cmp_indices, &c);
  size_t n = 0;
  for (size_t i = offset; i < m.n && n < out_cap; i++)
    out[n++] = m.v[idx[i]].uid;
  *out_len = n;
  if (out_total)
    *out_total = m.n;
  free(idx);
  mitems_free(&m);
  return 0;
}
