// blob.c: the zstd side of the store: the dictionaries blobs are
// compressed with (FORMAT.md "Dictionaries"), the pools of compression and
// decompression contexts, and the encoding and decoding of blob records,
// whole or a range at a time (FORMAT.md "blob record").
#include "blob.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"
#include "transform.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

// Dictionaries are never deleted, so a blob's dictionary id stays valid and
// a CDict or DDict made from a record stays right for as long as the handle
// lives.

int dict_latest(ms_store *s, MDB_txn *t, uint32_t *id, struct msr_dict *d) {
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->dicts, &cur));
  if (rc < 0)
    return rc;
  MDB_val k, v;
  int r = mdb_cursor_get(cur, &k, &v, MDB_LAST);
  mdb_cursor_close(cur);
  *id = 0;
  if (r == MDB_NOTFOUND)
    return 0;
  if (r)
    return lmdb_err(r);
  if (k.mv_size != 4 || msr_get_be32(k.mv_data) == 0)
    return MS_ERR_CORRUPT;
  *id = msr_get_be32(k.mv_data);
  return d ? msr_dict_decode(d, v.mv_data, v.mv_size) : 0;
}

int dict_refresh(ms_store *s) {
  MDB_txn *t;
  int rc = txn_begin(s, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  uint32_t id = 0; // unwritten when dict_latest fails
  struct msr_dict d;
  rc = dict_latest(s, t, &id, &d);
  pthread_mutex_lock(&s->dictlock);
  int have = id <= s->cdict_id;
  pthread_mutex_unlock(&s->dictlock);
  ZSTD_CDict *cd = NULL;
  if (rc == 0 && !have) {
    cd = ZSTD_createCDict(d.data, d.len, s->set.compression_level);
    if (!cd)
      rc = -ENOMEM;
  }
  txn_abort(s, t);
  if (!cd)
    return rc;
  pthread_mutex_lock(&s->dictlock);
  ZSTD_CDict **n = realloc(s->cdicts, (s->ncdicts + 1) * sizeof *n);
  if (n) {
    s->cdicts = n;
    s->cdicts[s->ncdicts++] = cd;
    if (id > s->cdict_id) {
      s->cdict = cd;
      s->cdict_id = id;
    }
  }
  pthread_mutex_unlock(&s->dictlock);
  if (!n) {
    ZSTD_freeCDict(cd);
    return -ENOMEM;
  }
  return 0;
}

const ZSTD_CDict *cdict_current(ms_store *s, uint32_t *id) {
  pthread_mutex_lock(&s->dictlock);
  const ZSTD_CDict *cd = s->cdict;
  *id = s->cdict_id;
  pthread_mutex_unlock(&s->dictlock);
  return cd;
}

static ZSTD_DDict *ddict_find(ms_store *s, uint32_t id) {
  ZSTD_DDict *dd = NULL;
  pthread_mutex_lock(&s->dictlock);
  for (size_t i = 0; i < s->nddicts && !dd; i++)
    if (s->ddicts[i].id == id)
      dd = s->ddicts[i].dd;
  pthread_mutex_unlock(&s->dictlock);
  return dd;
}

// ddict_get returns the DDict of dictionary `id`, made from its record in t
// on first use. MS_ERR_NOTFOUND: no such dictionary.
static int ddict_get(ms_store *s, MDB_txn *t, uint32_t id, ZSTD_DDict **out) {
  if ((*out = ddict_find(s, id)))
    return 0;
  uint8_t k[4];
  msr_be32(k, id);
  MDB_val v;
  int rc = get(t, s->dicts, k, sizeof k, &v);
  struct msr_dict d;
  if (rc < 0 || (rc = msr_dict_decode(&d, v.mv_data, v.mv_size)) < 0)
    return rc;
  ZSTD_DDict *dd = ZSTD_createDDict(d.data, d.len);
  if (!dd)
    return -ENOMEM;
  pthread_mutex_lock(&s->dictlock);
  ZSTD_DDict *other = NULL;
  for (size_t i = 0; i < s->nddicts && !other; i++)
    if (s->ddicts[i].id == id)
      other = s->ddicts[i].dd;
  struct ddict_ent *n = other ? NULL : realloc(s->ddicts, (s->nddicts + 1) * sizeof *n);
  if (n) {
    s->ddicts = n;
    s->ddicts[s->nddicts++] = (struct ddict_ent){id, dd};
  }
  pthread_mutex_unlock(&s->dictlock);
  if (other) {
    ZSTD_freeDDict(dd);
    *out = other;
    return 0;
  }
  if (!n) {
    ZSTD_freeDDict(dd);
    return -ENOMEM;
  }
  *out = dd;
  return 0;
}

// blob_compress writes one zstd frame of in to out, with cd if not NULL.
// Frames made with a dictionary leave out its id (the blob head names it),
// which saves four bytes per message.
static size_t blob_compress(ZSTD_CCtx *cc, int level, const ZSTD_CDict *cd, void *out, size_t cap,
                            const void *in, size_t len) {
  if (!cd)
    return cc ? ZSTD_compressCCtx(cc, out, cap, in, len, level)
              : ZSTD_compress(out, cap, in, len, level);
  if (!cc)
    return (size_t)-1; // an error code to ZSTD_isError
  size_t r;
  ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
  if (!ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level)) &&
      !ZSTD_isError(r = ZSTD_CCtx_setParameter(cc, ZSTD_c_dictIDFlag, 0)) &&
      !ZSTD_isError(r = ZSTD_CCtx_refCDict(cc, cd)))
    r = ZSTD_compress2(cc, out, cap, in, len);
  // Leave the context as ZSTD_compressCCtx expects it: no dictionary.
  ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
  return r;
}

ZSTD_DCtx *dctx_take(ms_store *s) {
  ZSTD_DCtx *d = NULL;
  pthread_mutex_lock(&s->poollock);
  if (s->ndpool > 0)
    d = s->dpool[--s->ndpool];
  pthread_mutex_unlock(&s->poollock);
  return d ? d : ZSTD_createDCtx();
}

void dctx_give(ms_store *s, ZSTD_DCtx *d) {
  if (!d)
    return;
  if (ZSTD_sizeof_DCtx(d) <= DCTX_KEEP) {
    pthread_mutex_lock(&s->poollock);
    if (s->ndpool < DCTX_POOL) {
      s->dpool[s->ndpool++] = d;
      d = NULL;
    }
    pthread_mutex_unlock(&s->poollock);
  }
  ZSTD_freeDCtx(d);
}

// blob_encode makes the whole record of a new blob of `in` (len bytes)
// with reference count refs: one frame, or, when len exceeds chunk (0:
// never), one independent frame per chunk behind the table of their end
// offsets (FORMAT.md "blob record"). With nxf segments (codec MSR_CODEC_XF)
// `in` is the stream msx_build made of a raw message of raw_len bytes, and
// the transform table goes before the chunk table; without, raw_len is
// len. *out is malloc'd, *out_len bytes.
static int blob_encode(ZSTD_CCtx *cc, int level, const ZSTD_CDict *cd, uint32_t dict_id,
                       uint32_t chunk, uint64_t refs, const struct msr_xf_seg *xf, size_t nxf,
                       uint64_t raw_len, const uint8_t *in, size_t len, uint8_t **out,
                       size_t *out_len) {
  struct msr_blob b = {.refs = refs,
                       .raw_len = nxf ? raw_len : len,
                       .codec = cd ? MSR_CODEC_ZSTD_DICT : MSR_CODEC_ZSTD,
                       .dict = cd ? dict_id : 0};
  if (nxf)
    b.codec = MSR_CODEC_XF;
  size_t n = 1, per = len;
  if (chunk && len > chunk) {
    if (!nxf)
      b.codec = MSR_CODEC_CHUNKED;
    b.chunk_size = chunk;
    n = (size_t)msr_blob_chunks(len, chunk);
    per = chunk;
  }
  size_t table = n > 1 ? 8 * n : 0, xft = nxf ? MSR_XF_TABLE_MAX(nxf) : 0;
  size_t cap = MSR_BLOB_HEAD_MAX + xft + table + n * ZSTD_compressBound(per);
  uint8_t *buf = malloc(cap);
  if (!buf)
    return -ENOMEM;
  size_t hl = msr_blob_encode_head(buf, &b);
  if (nxf)
    hl += msr_xf_encode(buf + hl, xf, nxf);
  size_t start = hl + table, pos = start;
  for (size_t i = 0; i < n; i++) {
    size_t from = i * per, rl = len - from < per ? len - from : per;
    size_t c = blob_compress(cc, level, cd, buf + pos, cap - pos, in + from, rl);
    if (ZSTD_isError(c)) {
      free(buf);
      return cc ? -EIO : -ENOMEM;
    }
    pos += c;
    if (n > 1)
      msr_le64(buf + hl + 8 * i, pos - start);
  }
  // Give back the unused part of the bound: a delivery holds its blobs
  // until the commit, and a batch of them at full bound size (about twice
  // a compressed message) only makes the heap grow, and fault, again at
  // every batch. Shrinking keeps the block where it is.
  uint8_t *fit = pos < cap ? realloc(buf, pos) : NULL;
  if (fit)
    buf = fit;
  *out = buf;
  *out_len = pos;
  return 0;
}

// blob_ddict gives the DDict blob b needs (NULL without a dictionary); a
// dictionary that does not exist makes the blob MS_ERR_CORRUPT.
static int blob_ddict(ms_store *s, MDB_txn *t, const struct msr_blob *b, ZSTD_DDict **dd) {
  *dd = NULL;
  if (!b->dict)
    return 0;
  int rc = ddict_get(s, t, b->dict, dd);
  return rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
}

// frame_once decompresses a whole frame (or chunk frame) that must give
// exactly raw bytes into out. A context that ever referenced a dictionary
// would apply it to ZSTD_decompressDCtx, so callers reset dc first.
static int frame_once(ZSTD_DCtx *dc, const ZSTD_DDict *dd, uint8_t *out, size_t raw,
                      const uint8_t *src, size_t srclen) {
  size_t n = dd ? ZSTD_decompress_usingDDict(dc, out, raw, src, srclen, dd)
                : ZSTD_decompressDCtx(dc, out, raw, src, srclen);
  return ZSTD_isError(n) || n != raw ? MS_ERR_CORRUPT : 0;
}

// SKIP_BUF is the scratch a range read decompresses the bytes before its
// offset into, small enough to come from the heap, not a fresh mapping.
#define SKIP_BUF ((size_t)64 << 10)

// frame_range streams the frame at src through dc, dropping its first
// `skip` bytes into scratch (SKIP_BUF bytes) and writing the next `want` to
// out, and stops there: the rest of the frame is never decoded. A frame
// that ends or stalls before is MS_ERR_CORRUPT.
static int frame_range(ZSTD_DCtx *dc, const ZSTD_DDict *dd, const uint8_t *src, size_t srclen,
                       size_t skip, uint8_t *out, size_t want, uint8_t *scratch) {
  ZSTD_DCtx_reset(dc, ZSTD_reset_session_and_parameters);
  if (dd && ZSTD_isError(ZSTD_DCtx_refDDict(dc, dd)))
    return MS_ERR_CORRUPT;
  ZSTD_inBuffer in = {src, srclen, 0};
  while (skip || want) {
    ZSTD_outBuffer o = {out, want, 0};
    if (skip)
      o = (ZSTD_outBuffer){scratch, skip < SKIP_BUF ? skip : SKIP_BUF, 0};
    size_t before = in.pos;
    size_t r = ZSTD_decompressStream(dc, &o, &in);
    if (ZSTD_isError(r))
      return MS_ERR_CORRUPT;
    if (skip) {
      skip -= o.pos;
    } else {
      out += o.pos;
      want -= o.pos;
    }
    if ((skip || want) && (r == 0 || (in.pos == before && o.pos == 0)))
      return MS_ERR_CORRUPT;
  }
  return 0;
}

// frame_fits tells whether the frame at src, about to be decoded only in
// part, is the one its table entry promises: its header's content size is
// raw and, for a chunk (whose blocks are few), it ends exactly at clen. A
// damaged chunk table then fails the read instead of yielding another
// chunk's bytes. A single large frame is not walked: that would touch all
// of its pages.
static int frame_fits(const struct msr_blob *b, const uint8_t *src, size_t clen, size_t raw) {
  unsigned long long size = ZSTD_getFrameContentSize(src, clen);
  if (size == ZSTD_CONTENTSIZE_ERROR || (size != ZSTD_CONTENTSIZE_UNKNOWN && size != raw))
    return 0;
  return b->chunk_size == 0 || ZSTD_findFrameCompressedSize(src, clen) == clen;
}

int stream_read_range(ms_store *s, MDB_txn *t, ZSTD_DCtx *dc, const struct msr_blob *b,
                      const MDB_val *v, uint64_t off, size_t n, uint8_t *out) {
  ZSTD_DDict *dd;
  int rc = blob_ddict(s, t, b, &dd);
  if (rc < 0 || n == 0)
    return rc;
  ZSTD_DCtx_reset(dc, ZSTD_reset_session_and_parameters);
  const uint8_t *base = v->mv_data;
  uint64_t per = b->chunk_size ? b->chunk_size : b->stream_len, end = off + n;
  uint8_t *scratch = NULL;
  for (uint64_t i = off / per; rc == 0 && i * per < end; i++) {
    size_t at, clen, raw;
    if ((rc = msr_blob_chunk(b, v->mv_size, i, &at, &clen, &raw)) < 0)
      break;
    uint64_t first = i * per;
    size_t skip = off > first ? (size_t)(off - first) : 0;
    size_t want = (size_t)(end < first + raw ? end - first : raw) - skip;
    if (skip == 0 && want == raw) {
      rc = frame_once(dc, dd, out, raw, base + at, clen);
    } else if (!frame_fits(b, base + at, clen, raw)) {
      rc = MS_ERR_CORRUPT;
    } else if (skip && !scratch && !(scratch = malloc(SKIP_BUF))) {
      rc = -ENOMEM;
    } else {
      rc = frame_range(dc, dd, base + at, clen, skip, out, want, scratch);
      ZSTD_DCtx_reset(dc, ZSTD_reset_session_and_parameters);
    }
    out += want;
  }
  free(scratch);
  return rc;
}

int blob_read_range(ms_store *s, MDB_txn *t, ZSTD_DCtx *dc, const struct msr_blob *b,
                    const MDB_val *v, uint64_t off, size_t n, uint8_t *out) {
  if (b->codec != MSR_CODEC_XF || n == 0)
    return stream_read_range(s, t, dc, b, v, off, n, out);
  uint64_t s0, s1;
  int rc = msx_stream_range(b, off, n, &s0, &s1);
  if (rc < 0)
    return rc;
  if (s1 < s0 || s1 > b->stream_len)
    return MS_ERR_CORRUPT;
  uint8_t *tmp = malloc(s1 > s0 ? (size_t)(s1 - s0) : 1);
  if (!tmp)
    return -ENOMEM;
  rc = stream_read_range(s, t, dc, b, v, s0, (size_t)(s1 - s0), tmp);
  if (rc == 0)
    rc = msx_expand(b, off, n, tmp, s0, s1, out);
  free(tmp);
  return rc;
}

int blob_decompress(ms_store *s, MDB_txn *t, const struct msr_blob *b, const MDB_val *v,
                    uint8_t *out) {
  ZSTD_DCtx *dc = dctx_take(s);
  if (!dc)
    return -ENOMEM;
  int rc = blob_read_range(s, t, dc, b, v, 0, (size_t)b->raw_len, out);
  dctx_give(s, dc);
  return rc;
}

// ---- compression contexts and encoding ----

ZSTD_CCtx *cctx_take(ms_store *s) {
  ZSTD_CCtx *c = NULL;
  pthread_mutex_lock(&s->poollock);
  if (s->npool > 0)
    c = s->pool[--s->npool];
  pthread_mutex_unlock(&s->poollock);
  return c ? c : ZSTD_createCCtx();
}

void cctx_give(ms_store *s, ZSTD_CCtx *c) {
  if (!c)
    return;
  pthread_mutex_lock(&s->poollock);
  if (s->npool < CCTX_POOL) {
    s->pool[s->npool++] = c;
    c = NULL;
  }
  pthread_mutex_unlock(&s->poollock);
  ZSTD_freeCCtx(c);
}

int blob_encode_msg(ZSTD_CCtx *cc, int level, const ZSTD_CDict *cd, uint32_t dict_id,
                    uint32_t chunk, uint64_t refs, const mp_message *m, const uint8_t *in,
                    size_t len, uint8_t **out, size_t *out_len) {
  struct msr_xf_seg *xf = NULL;
  size_t nxf = 0, sl = 0;
  uint8_t *st = NULL;
  int rc = m ? msx_build(m, in, len, &xf, &nxf, &st, &sl) : 0;
  if (rc == 0)
    rc =
        nxf ? blob_encode(cc, level, cd, dict_id, chunk, refs, xf, nxf, len, st, sl, out, out_len)
            : blob_encode(cc, level, cd, dict_id, chunk, refs, NULL, 0, len, in, len, out, out_len);
  free(xf);
  free(st);
  return rc;
}
