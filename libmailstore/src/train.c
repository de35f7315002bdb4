// train.c: ms_store_train, which trains a zstd dictionary (ZDICT) on a
// sample of the store's own mail, and ms_store_recompress, which rewrites
// older blobs with the newest dictionary (FORMAT.md "Dictionaries").
#include "blob.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zdict.h>
#include <zstd.h>

// TRAIN_SAMPLE_MAX bounds what one message contributes to a training
// sample: headers and the start of the text are what messages share, long
// attachments would only crowd them out. TRAIN_SAMPLE_MIN is the shortest
// body taken: shorter ones hold nothing to learn, and zstd's trainer
// (Debian 12's 1.5.4; zstd issues 3599 and 4499, open upstream) divides by
// zero or reads past its input on samples of a byte or so.
// TRAIN_MIN_SAMPLES is the fewest messages worth training on.
#define TRAIN_SAMPLE_MAX (64u << 10)
#define TRAIN_SAMPLE_MIN 64u
#define TRAIN_MIN_SAMPLES 8

struct train_ctx {
  struct msr_dict d;
  uint32_t id;
};

static int train_tx(ms_store *s, MDB_txn *t, void *p) {
  struct train_ctx *c = p;
  uint32_t last;
  int rc = dict_latest(s, t, &last, NULL);
  if (rc < 0)
    return rc;
  if (last == UINT32_MAX)
    return MS_ERR_LIMIT;
  c->id = last + 1;
  uint8_t k[4];
  msr_be32(k, c->id);
  uint8_t *buf = malloc(MSR_DICT_HEAD + c->d.len);
  if (!buf)
    return -ENOMEM;
  size_t hl = msr_dict_encode_head(buf, &c->d);
  memcpy(buf + hl, c->d.data, c->d.len);
  rc = put(t, s->dicts, k, sizeof k, buf, hl + c->d.len, MDB_APPEND);
  free(buf);
  return rc;
}

int ms_store_train(ms_store *store, uint32_t *out_id, size_t max_samples) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  if (!max_samples)
    max_samples = 4096;
  if (max_samples > 100000)
    max_samples = 100000;
  size_t budget = (size_t)store->set.dict_max_size * 100;
  uint8_t *samples = malloc(budget);
  size_t *sizes = malloc(max_samples * sizeof *sizes);
  ZSTD_DCtx *dc = ZSTD_createDCtx();
  int rc = samples && sizes && dc ? 0 : -ENOMEM;
  size_t n = 0, used = 0;
  MDB_txn *t = NULL;
  MDB_cursor *cur = NULL;
  if (rc == 0)
    rc = txn_begin(store, MDB_RDONLY, &t);
  if (rc == 0 && (rc = lmdb_err(mdb_cursor_open(t, store->blobs, &cur))) < 0)
    cur = NULL;
  // Blob keys are SHA-256 hashes, so the first blobs in key order are a
  // random sample of the store's mail.
  MDB_val key, v;
  int r = 0;
  while (rc == 0 && n < max_samples && used < budget &&
         (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_blob b;
    if ((rc = msr_blob_decode(&b, v.mv_data, v.mv_size)) < 0)
      break;
    if (b.stream_len < TRAIN_SAMPLE_MIN)
      continue;
    // The dictionary serves what the frames hold, so the sample is the
    // start of the stream (a transformed blob's Base64 bodies decoded).
    size_t take = b.stream_len < TRAIN_SAMPLE_MAX ? (size_t)b.stream_len : TRAIN_SAMPLE_MAX;
    if (take > budget - used)
      take = budget - used;
    // Only the start is read: of a chunked blob, its first chunk.
    if ((rc = stream_read_range(store, t, dc, &b, &v, 0, take, samples + used)) < 0)
      break;
    sizes[n++] = take;
    used += take;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  if (cur)
    mdb_cursor_close(cur);
  if (t)
    txn_abort(store, t);
  ZSTD_freeDCtx(dc);
  uint8_t *dict = NULL;
  size_t dlen = 0;
  if (rc == 0 && n < TRAIN_MIN_SAMPLES)
    rc = MS_ERR_SAMPLES;
  if (rc == 0 && !(dict = malloc(store->set.dict_max_size)))
    rc = -ENOMEM;
  if (rc == 0) {
    // The trainer's own parameter search (fastCover) at its defaults; it
    // prints nothing at notification level 0.
    dlen = ZDICT_trainFromBuffer(dict, store->set.dict_max_size, samples, sizes, (unsigned)n);
    if (ZDICT_isError(dlen))
      rc = MS_ERR_SAMPLES;
  }
  free(samples);
  free(sizes);
  struct train_ctx c = {.d = {.samples = (uint32_t)n,
                              .sample_bytes = used,
                              .created = (int64_t)time(NULL),
                              .data = dict,
                              .len = dlen}};
  if (rc == 0)
    rc = run_write(store, train_tx, &c);
  free(dict);
  // The dictionary is stored; making it current here is an optimisation
  // (the next delivery commit would notice it too), so it cannot fail the
  // call.
  if (rc == 0) {
    (void)dict_refresh(store);
    if (out_id)
      *out_id = c.id;
  }
  return rc;
}

struct recompress_ctx {
  size_t max;
  int level, xf;
  uint32_t chunk;
  const ZSTD_CDict *cd;
  uint32_t id;
  ZSTD_CCtx *cc;
  uint8_t (*keys)[32];
};

// recompress_one re-encodes blob k with the current dictionary, cut in
// chunks as a new blob would be, keeping its key and reference count.
static int recompress_one(ms_store *s, MDB_txn *t, struct recompress_ctx *c, const uint8_t *k) {
  MDB_val v;
  struct msr_blob b;
  int rc = get(t, s->blobs, k, 32, &v);
  if (rc < 0 || (rc = msr_blob_decode(&b, v.mv_data, v.mv_size)) < 0)
    return rc;
  uint8_t *raw = malloc((size_t)b.raw_len), *out = NULL;
  size_t out_len = 0;
  rc = raw ? blob_decompress(s, t, &b, &v, raw) : -ENOMEM;
  mp_message *m = NULL;
  if (rc == 0 && c->xf) {
    mp_settings set = MP_SETTINGS_INIT;
    if ((rc = mp_message_parse(&m, &set, raw, (size_t)b.raw_len, NULL)) < 0) {
      m = NULL;
      rc = rc == -ENOMEM ? rc : 0;
    }
  }
  if (rc == 0)
    rc = blob_encode_msg(c->cc, c->level, c->cd, c->id, c->chunk, b.refs, m, raw, (size_t)b.raw_len,
                         &out, &out_len);
  mp_message_free(m);
  if (rc == 0)
    rc = put(t, s->blobs, k, 32, out, out_len, 0);
  free(raw);
  free(out);
  return rc;
}

static int recompress_tx(ms_store *s, MDB_txn *t, void *p) {
  struct recompress_ctx *c = p;
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->blobs, &cur));
  if (rc < 0)
    return rc;
  // Choose first, then rewrite: a put may move the pages a cursor is on.
  MDB_val key, v;
  int r;
  size_t n = 0;
  while (n < c->max && (r = mdb_cursor_get(cur, &key, &v, MDB_NEXT)) == 0) {
    struct msr_blob b;
    if (key.mv_size != 32 || (rc = msr_blob_decode(&b, v.mv_data, v.mv_size)) < 0) {
      rc = MS_ERR_CORRUPT;
      break;
    }
    if (b.dict == c->id)
      continue;
    memcpy(c->keys[n++], key.mv_data, 32);
  }
  mdb_cursor_close(cur);
  if (rc == 0 && n < c->max && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  for (size_t i = 0; rc == 0 && i < n; i++)
    rc = recompress_one(s, t, c, c->keys[i]);
  return rc < 0 ? rc : (int)n;
}

int ms_store_recompress(ms_store *store, size_t max_items) {
  if (!store)
    return MS_ERR_INVALID_ARGUMENT;
  // Adopt a dictionary another process trained since this handle looked.
  int rc = dict_refresh(store);
  if (rc < 0)
    return rc;
  struct recompress_ctx c = {.max = max_items ? max_items : 1024,
                             .level = store->set.compression_level,
                             .xf = !store->set.no_transform,
                             .chunk = blob_chunk(store)};
  if (c.max > 65536)
    c.max = 65536;
  c.cd = cdict_current(store, &c.id);
  if (!c.cd)
    return 0;
  c.keys = malloc(c.max * sizeof *c.keys);
  c.cc = cctx_take(store);
  rc = c.keys && c.cc ? run_write(store, recompress_tx, &c) : -ENOMEM;
  cctx_give(store, c.cc);
  free(c.keys);
  return rc;
}
