// collect.c: ms_store_collect, which drops the blob references that
// expunges queued for release (FORMAT.md "Expunge and the release queue"),
// and the counted blob references it shares with verify.c.
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---- counted blob references ----

static int ref_cmp(const void *a, const void *b) {
  return memcmp(((const struct ref *)a)->key, ((const struct ref *)b)->key, 32);
}

int refs_add(struct refs *r, const uint8_t *key, size_t len) {
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

void refs_collapse(struct refs *r) {
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

// ---- collecting released blobs ----

struct collect_ctx {
  size_t max;
  struct refs r;
};

static int collect_tx(ms_store *s, MDB_txn *t, void *p) {
  struct collect_ctx *c = p;
  c->r.n = 0;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->release, &cur));
  if (rc < 0)
    return rc;
  MDB_val key, v;
  int r = 0;
  size_t n = 0;
  while (n < c->max && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    if (key.mv_size != 8 || v.mv_size != 32) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    if ((rc = refs_add(&c->r, v.mv_data, 32)) < 0)
      break;
    n++;
  }
  if (rc == 0 && n < c->max && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  // Drop the queue entries just read: they are the first n.
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if ((r = mdb_cursor_get(cur, &key, &v, MDB_FIRST)) != 0 || (r = mdb_cursor_del(cur, 0)) != 0)
      rc = lmdb_err(r);
  }
  mdb_cursor_close(cur);
  if (rc < 0)
    return rc;
  // Release in hash order, so the blob pages are visited in key order.
  refs_collapse(&c->r);
  for (size_t i = 0; rc == 0 && i < c->r.n; i++) {
    MDB_val bv;
    rc = get(t, s->blobs, c->r.v[i].key, 32, &bv);
    if (rc < 0) {
      rc = rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
      break;
    }
    struct msr_blob b;
    if ((rc = msr_blob_decode(&b, bv.mv_data, bv.mv_size)) < 0)
      break;
    if (b.refs < c->r.v[i].count) {
      rc = MS_ERR_CORRUPT;
    } else if (b.refs == c->r.v[i].count) {
      rc = del(t, s->blobs, c->r.v[i].key, 32);
    } else {
      b.refs -= c->r.v[i].count;
      // The put may move the page the old value lives on: copy it first.
      uint8_t *copy = malloc(bv.mv_size);
      if (!copy) {
        rc = -ENOMEM;
        break;
      }
      memcpy(copy, bv.mv_data, bv.mv_size);
      msr_blob_encode_head(copy, &b);
      rc = put(t, s->blobs, c->r.v[i].key, 32, copy, bv.mv_size, 0);
      free(copy);
    }
  }
  return rc < 0 ? rc : (int)n;
}

// collect_budget is what ms_store_collect may still drop, over its parts.
struct collect_budget {
  size_t left;
};

// collect_part drops the next n queued references, fewer if the budget
// ends first.
static int collect_part(ms_store *store, void *ctx, size_t first, size_t n) {
  (void)first;
  struct collect_budget *b = ctx;
  struct collect_ctx c = {.max = n < b->left ? n : b->left};
  if (c.max == 0)
    return 0;
  int rc = run_write_room(store, collect_tx, &c, ROOM_REMOVE);
  free(c.r.v);
  if (rc > 0)
    b->left -= (size_t)rc;
  return rc;
}

int ms_store_collect(ms_store *store, size_t max_items) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  struct collect_budget b = {.left = max_items ? max_items : 65536};
  if (b.left > 1000000)
    b.left = 1000000;
  return run_in_parts(store, collect_part, &b, SIZE_MAX);
}
