// blob.h: what the store's other files call in blob.c: the dictionaries,
// the context pools and the encoding and decoding of blob records.
#ifndef MS_BLOB_H
#define MS_BLOB_H

#include "store_internal.h"
#include "store_records.h"

#include "mailparse.h"
#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#define dict_latest mss_dict_latest
#define dict_refresh mss_dict_refresh
#define cdict_current mss_cdict_current
#define dctx_take mss_dctx_take
#define dctx_give mss_dctx_give
#define stream_read_range mss_stream_read_range
#define blob_read_range mss_blob_read_range
#define cctx_take mss_cctx_take
#define cctx_give mss_cctx_give
#define blob_encode_msg mss_blob_encode_msg
#define blob_decompress mss_blob_decompress

// dict_latest finds the newest dictionary: *id (0 if there is none) and, if
// d is not NULL, its decoded record, pointing into the transaction's pages.
int dict_latest(ms_store *s, MDB_txn *t, uint32_t *id, struct msr_dict *d);

// dict_refresh makes the newest dictionary in the file the one this handle
// compresses with, if it is newer than the one it has.
int dict_refresh(ms_store *s);

// cdict_current returns the CDict new blobs use (NULL if none) and its id.
const ZSTD_CDict *cdict_current(ms_store *s, uint32_t *id);

// dctx_take hands out a pooled decompression context (or a new one):
// reads are frequent, and a context's first use allocates its tables.
ZSTD_DCtx *dctx_take(ms_store *s);

// dctx_give returns d to the pool, or frees it when the pool is full or d
// grew past DCTX_KEEP; NULL is ignored.
void dctx_give(ms_store *s, ZSTD_DCtx *d);

// stream_read_range writes stream bytes [off, off + n) of blob b (decoded
// from v; the range lies within stream_len, which is raw_len but for a
// transformed blob) to out through dc. Of a chunked blob it decodes only
// the chunks the range touches, of a single frame only up to the range's
// end; whole frames are checked to give exactly their length.
int stream_read_range(ms_store *s, MDB_txn *t, ZSTD_DCtx *dc, const struct msr_blob *b,
                      const MDB_val *v, uint64_t off, size_t n, uint8_t *out);

// blob_read_range writes raw bytes [off, off + n) of blob b (decoded from
// v; the range lies within raw_len) to out through dc. Of a transformed
// blob it reads the stream bytes the range needs (the literal bytes, and
// the decoded bytes of every Base64 line it touches) into a buffer of
// their size and re-encodes from there; other blobs are their stream.
int blob_read_range(ms_store *s, MDB_txn *t, ZSTD_DCtx *dc, const struct msr_blob *b,
                    const MDB_val *v, uint64_t off, size_t n, uint8_t *out);

// cctx_take hands out a pooled compression context (or a new one, NULL
// when out of memory); cctx_give returns it, or frees it when the pool is
// full. NULL is ignored.
ZSTD_CCtx *cctx_take(ms_store *s);
void cctx_give(ms_store *s, ZSTD_CCtx *c);

// blob_encode_msg is blob_encode for message `in` (len bytes), parsed as m:
// with Base64 bodies stored decoded (msx_build) when m is not NULL and it
// finds any, else as it is.
int blob_encode_msg(ZSTD_CCtx *cc, int level, const ZSTD_CDict *cd, uint32_t dict_id,
                    uint32_t chunk, uint64_t refs, const mp_message *m, const uint8_t *in,
                    size_t len, uint8_t **out, size_t *out_len);

// blob_decompress decompresses the whole blob b (decoded from v) into out
// (raw_len bytes), with the dictionary it names; a frame that does not give
// exactly its length, or a missing dictionary, is MS_ERR_CORRUPT.
int blob_decompress(ms_store *s, MDB_txn *t, const struct msr_blob *b, const MDB_val *v,
                    uint8_t *out);

#endif // MS_BLOB_H
