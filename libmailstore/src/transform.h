// transform.h: Base64 bodies stored decoded (store format 6, codec
// MSR_CODEC_XF, FORMAT.md "Transforms"): finding the segments of a parsed
// message at delivery, and rebuilding raw bytes from the stored stream on
// read. Private to the library.
#ifndef MS_TRANSFORM_H
#define MS_TRANSFORM_H

#include "mailparse.h"
#include "store_records.h"

#include <stddef.h>
#include <stdint.h>

#define msx_build mss_msx_build
#define msx_stream_range mss_msx_stream_range
#define msx_expand mss_msx_expand

// MSX_MIN_ENCODED is the shortest Base64 body (raw bytes) worth a segment:
// a shorter one saves less than its table entry costs.
#define MSX_MIN_ENCODED 64u

// msx_build finds, in message `data` (len bytes) parsed as m, every Base64
// leaf body in a regular shape (see struct msr_xf_seg) that decodes
// strictly and whose re-encoding by msx_expand gives back exactly its raw
// bytes, at most MSR_XF_MAX_SEGMENTS of them. On success with segments it
// sets *segs (malloc'd, *nseg entries in raw order, derived fields set) and
// *stream (malloc'd, *stream_len bytes: data with each segment replaced by
// its decoded bytes); with none, *nseg is 0 and both pointers NULL. Returns
// 0 or -ENOMEM. Thread-safe; reads nothing past `len`.
int msx_build(const mp_message *m, const uint8_t *data, size_t len, struct msr_xf_seg **segs,
              size_t *nseg, uint8_t **stream, size_t *stream_len);

// msx_stream_range gives the stream range [*s0, *s1) that raw bytes
// [off, off + n) of transformed blob b need (n > 0, within raw_len): the
// literal bytes themselves and, of a segment, the decoded bytes of every
// line the range touches. Returns 0, or MS_ERR_CORRUPT if the table cannot
// be walked.
int msx_stream_range(const struct msr_blob *b, uint64_t off, uint64_t n, uint64_t *s0,
                     uint64_t *s1);

// msx_expand writes raw bytes [off, off + n) of transformed blob b to out
// from `stream`, which holds stream bytes [s0, s1) as msx_stream_range
// gave them. Returns 0, or MS_ERR_CORRUPT if the table cannot be walked or
// would need a stream byte outside [s0, s1).
int msx_expand(const struct msr_blob *b, uint64_t off, uint64_t n, const uint8_t *stream,
               uint64_t s0, uint64_t s1, uint8_t *out);

#endif // MS_TRANSFORM_H
