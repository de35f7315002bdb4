// fuzz_block.c: the readers of a posting block (index_internal.h) on
// arbitrary bytes, as a damaged index file would hand them over. A block is
// what every search reads first, from a file that lives for years, so its
// readers must hold on any bytes. Properties:
// - fts_block_parse gives views inside the value only, and n in 1..65536;
// - fts_docs_decode and fts_docs_decode_or agree on whether the container
//   holds n documents; when it does, the documents strictly increase and
//   the bitmap holds exactly them;
// - fts_block_positions reads only the value and reserves no more than a
//   frame of its size can regenerate;
// - a block that decodes whole (n documents, a table of n segments, each a
//   count and that many positions, nothing left over) is encoded again by
//   fts_block_encode, and that block decodes to the same documents and the
//   same segments.
#include <stdint.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "index_internal.h"

static uint16_t docs[FTS_BLOCK_DOCS], docs2[FTS_BLOCK_DOCS];
static uint64_t bitmap[FTS_BITMAP_WORDS];

// segment_ok is true when `seg` is a count, then exactly that many varints.
static int segment_ok(const uint8_t *seg, size_t len) {
  struct fts_cur c = {seg, len};
  uint32_t count, v;
  if (!fts_cur_varint(&c, &count) || count == 0)
    return 0;
  for (uint32_t i = 0; i < count; i++)
    if (!fts_cur_varint(&c, &v))
      return 0;
  return c.len == 0;
}

// segments appends the n segments of the raw position stream to `out`
// (without the table), or returns 0 when the stream does not decode whole.
static int segments(const uint8_t *raw, size_t raw_len, uint32_t n, struct fts_buf *out) {
  struct fts_pos_iter it;
  if (fts_pos_iter_init(&it, raw, raw_len) != 0)
    return 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *seg;
    size_t seg_len;
    if (fts_pos_iter_next(&it, &seg, &seg_len) != 0)
      return 0;
    FUZZ_CHECK(seg >= raw && seg + seg_len <= raw + raw_len);
    if (!segment_ok(seg, seg_len))
      return 0;
    fts_buf_put(out, seg, seg_len);
  }
  return out->err == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct fts_block b;
  if (fts_block_parse(&b, data, size) != 0)
    return 0;
  FUZZ_CHECK(b.n >= 1 && b.n <= FTS_BLOCK_DOCS);
  FUZZ_CHECK(b.docs >= data && b.docs + b.docs_len <= data + size);
  FUZZ_CHECK(b.pos >= data && b.pos + b.pos_len == data + size);

  int rd = fts_docs_decode(b.docs, b.docs_len, docs, b.n);
  memset(bitmap, 0, sizeof bitmap);
  int ro = fts_docs_decode_or(b.docs, b.docs_len, bitmap, b.n);
  FUZZ_CHECK((rd == 0) == (ro == 0));
  if (rd == 0) {
    size_t bits = 0;
    for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
      bits += fts_popcount64(bitmap[w]);
    FUZZ_CHECK(bits == b.n);
    for (uint32_t i = 0; i < b.n; i++) {
      FUZZ_CHECK(i == 0 || docs[i] > docs[i - 1]);
      FUZZ_CHECK(bitmap[docs[i] / 64] >> (docs[i] % 64) & 1);
    }
  }

  struct fts_buf scratch = {0}, segs = {0}, again = {0}, segs2 = {0};
  const uint8_t *raw;
  size_t raw_len;
  if (fts_block_positions(&b, &scratch, &raw, &raw_len) != 0 || rd != 0 ||
      !segments(raw, raw_len, b.n, &segs))
    goto out;
  FUZZ_CHECK(raw_len <= (uint64_t)b.pos_len / 4 * (128u << 10) || b.pos_type == FTS_POS_VARINT);

  // Decoded whole: encode it again and read that back.
  FUZZ_CHECK(fts_block_encode(&again, docs, b.n, segs.p, segs.len) == 0);
  struct fts_block b2;
  FUZZ_CHECK(fts_block_parse(&b2, again.p, again.len) == 0);
  FUZZ_CHECK(b2.n == b.n);
  FUZZ_CHECK(fts_docs_decode(b2.docs, b2.docs_len, docs2, b2.n) == 0);
  FUZZ_CHECK(memcmp(docs, docs2, b.n * sizeof *docs) == 0);
  FUZZ_CHECK(fts_block_positions(&b2, &scratch, &raw, &raw_len) == 0);
  FUZZ_CHECK(segments(raw, raw_len, b2.n, &segs2));
  FUZZ_CHECK(segs2.len == segs.len && memcmp(segs2.p, segs.p, segs.len) == 0);
out:
  fts_buf_free(&scratch);
  fts_buf_free(&segs);
  fts_buf_free(&again);
  fts_buf_free(&segs2);
  return 0;
}
