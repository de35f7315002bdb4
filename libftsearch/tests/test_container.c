// test_container.c: the posting encodings: each document container (delta
// varints, bit-packed gaps, bitmap) round-trips at the block's edges (0,
// 65535, single, full, sparse, dense), the encoder picks the smallest, the
// decoders reject values the encoder never writes, and block values carry
// positions intact, raw or zstd-compressed.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "corvid_libtest.h"
#include "index_internal.h"

static uint16_t *gen(size_t *n, unsigned seed, unsigned step_max) {
  uint16_t *d = malloc(FTS_BLOCK_DOCS * sizeof *d);
  srand(seed);
  size_t k = 0;
  for (uint32_t v = (uint32_t)rand() % step_max; v < FTS_BLOCK_DOCS;
       v += 1 + (uint32_t)rand() % step_max)
    d[k++] = (uint16_t)v;
  *n = k;
  return d;
}

static void roundtrip(const uint16_t *docs, size_t n, int type) {
  uint8_t *buf = malloc(fts_docs_max_len(n));
  size_t len = fts_docs_encode(buf, docs, n, type);
  ck_assert_uint_le(len, fts_docs_max_len(n));
  if (type >= 0)
    ck_assert_int_eq(buf[0], type);
  uint16_t *back = malloc((n + 1) * sizeof *back);
  ck_assert_int_eq(fts_docs_decode(buf, len, back, n), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(back[i], docs[i]);
  uint64_t *bm = calloc(FTS_BITMAP_WORDS, 8);
  ck_assert_int_eq(fts_docs_decode_or(buf, len, bm, n), 0);
  size_t count = 0;
  for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
    count += (size_t)__builtin_popcountll(bm[w]);
  ck_assert_uint_eq(count, n);
  for (size_t i = 0; i < n; i++)
    ck_assert(bm[docs[i] / 64] & (1ull << (docs[i] % 64)));
  // A wrong count or a truncated value is corrupt, never a crash.
  // (Packed gaps cannot tell: padding bits may decode as one more gap.)
  if (buf[0] != FTS_CONTAINER_PACKED && n < FTS_BLOCK_DOCS)
    ck_assert_int_eq(fts_docs_decode(buf, len, back, n + 1), FTS_ERR_CORRUPT);
  if (len > 1)
    ck_assert_int_eq(fts_docs_decode(buf, len - 1, back, n), FTS_ERR_CORRUPT);
  free(bm);
  free(back);
  free(buf);
}

START_TEST(each_type_at_block_edges) {
  static const uint16_t edge_sets[][4] = {
      {0, 0, 0, 0}, {65535, 0, 0, 0}, {0, 65535, 0, 0}, {0, 1, 2, 3}, {65532, 65533, 65534, 65535},
  };
  static const size_t edge_n[] = {1, 1, 2, 4, 4};
  for (int type = 0; type < 3; type++)
    for (size_t s = 0; s < sizeof edge_n / sizeof edge_n[0]; s++)
      roundtrip(edge_sets[s], edge_n[s], type);
  uint16_t *all = malloc(FTS_BLOCK_DOCS * sizeof *all);
  for (uint32_t i = 0; i < FTS_BLOCK_DOCS; i++)
    all[i] = (uint16_t)i;
  for (int type = 0; type < 3; type++)
    roundtrip(all, FTS_BLOCK_DOCS, type);
  free(all);
}
END_TEST

START_TEST(random_sets_every_type_and_smallest_chosen) {
  static const unsigned steps[] = {1, 2, 3, 8, 30, 200, 5000, 60000};
  for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
    size_t n;
    uint16_t *d = gen(&n, (unsigned)(s + 1), steps[s]);
    for (int type = 0; type < 3; type++)
      roundtrip(d, n, type);
    size_t sizes[3];
    fts_docs_sizes(d, n, sizes);
    uint8_t *buf = malloc(fts_docs_max_len(n));
    size_t len = fts_docs_encode(buf, d, n, -1);
    ck_assert_uint_eq(len, sizes[buf[0]]);
    for (int type = 0; type < 3; type++)
      ck_assert_uint_le(len, sizes[type]);
    free(buf);
    free(d);
  }
}
END_TEST

START_TEST(dense_sets_pick_bitmap_sparse_pick_deltas) {
  // Many documents with uneven gaps: a bitmap; with even gaps: packed.
  size_t n;
  uint16_t *dense = gen(&n, 7, 2);
  dense[n / 2] = (uint16_t)(dense[n / 2 - 1] + 1);
  for (size_t i = n / 2 + 1; i < n; i++)
    dense[i] = (uint16_t)(dense[i - 1] + 1);
  dense[n / 3] = (uint16_t)(dense[n / 3 - 1] + 1);
  n = n / 2 + 1;
  dense[n - 1] = 65535;
  uint8_t *buf = malloc(fts_docs_max_len(FTS_BLOCK_DOCS));
  fts_docs_encode(buf, dense, n, -1);
  ck_assert_int_eq(buf[0], FTS_CONTAINER_BITMAP);
  uint16_t run[2000];
  for (int i = 0; i < 2000; i++)
    run[i] = (uint16_t)(100 + i);
  fts_docs_encode(buf, run, 2000, -1);
  ck_assert_int_eq(buf[0], FTS_CONTAINER_PACKED);
  ck_assert_uint_eq(fts_docs_encode(buf, run, 2000, -1), 4);
  uint16_t sparse[3] = {5, 40000, 65000};
  fts_docs_encode(buf, sparse, 3, -1);
  ck_assert_int_ne(buf[0], FTS_CONTAINER_BITMAP);
  // Evenly spaced gaps are cheapest bit-packed.
  uint16_t even[1000];
  for (int i = 0; i < 1000; i++)
    even[i] = (uint16_t)(i * 60);
  fts_docs_encode(buf, even, 1000, -1);
  ck_assert_int_eq(buf[0], FTS_CONTAINER_PACKED);
  free(buf);
  free(dense);
}
END_TEST

START_TEST(decoders_reject_foreign_values) {
  uint16_t back[16];
  uint64_t bm[FTS_BITMAP_WORDS];
  const uint8_t unknown_type[] = {7, 1};
  ck_assert_int_eq(fts_docs_decode(unknown_type, 2, back, 1), FTS_ERR_CORRUPT);
  const uint8_t descending[] = {FTS_CONTAINER_ARRAY, 0xff, 0xff, 0x03,
                                0x05}; // 65535, then past the end
  ck_assert_int_eq(fts_docs_decode(descending, sizeof descending, back, 2), FTS_ERR_CORRUPT);
  const uint8_t bitmap_zero_tail[] = {FTS_CONTAINER_BITMAP, 1, 0};
  ck_assert_int_eq(fts_docs_decode_or(bitmap_zero_tail, 3, bm, 1), FTS_ERR_CORRUPT);
  const uint8_t packed_wide[] = {FTS_CONTAINER_PACKED, 17, 0, 0, 0, 0, 0};
  ck_assert_int_eq(fts_docs_decode(packed_wide, sizeof packed_wide, back, 2), FTS_ERR_CORRUPT);
  const uint8_t packed_overflow[] = {FTS_CONTAINER_PACKED, 16, 0xff, 0xff, 0, 0};
  ck_assert_int_eq(fts_docs_decode(packed_overflow, sizeof packed_overflow, back, 2),
                   FTS_ERR_CORRUPT);
  ck_assert_int_eq(fts_docs_decode(unknown_type, 0, back, 1), FTS_ERR_CORRUPT);
  ck_assert_int_eq(fts_docs_decode(unknown_type, 2, back, 0), FTS_ERR_CORRUPT);
}
END_TEST

static void block_roundtrip(size_t n, uint32_t positions_per_doc, int expect_zstd) {
  uint16_t *docs = malloc(n * sizeof *docs);
  struct fts_buf pos = {0}, val = {0}, scratch = {0};
  for (size_t i = 0; i < n; i++) {
    docs[i] = (uint16_t)(i * (FTS_BLOCK_DOCS / n));
    fts_buf_varint(&pos, positions_per_doc);
    for (uint32_t p = 0; p < positions_per_doc; p++)
      fts_buf_varint(&pos, p ? 3 + (uint32_t)(i % 5) : (uint32_t)i);
  }
  ck_assert_int_eq(fts_block_encode(&val, docs, n, pos.p, pos.len), 0);
  struct fts_block b;
  ck_assert_int_eq(fts_block_parse(&b, val.p, val.len), 0);
  ck_assert_uint_eq(b.n, n);
  if (expect_zstd >= 0)
    ck_assert_int_eq(b.pos_type, expect_zstd ? FTS_POS_ZSTD : FTS_POS_VARINT);
  const uint8_t *raw;
  size_t raw_len;
  ck_assert_int_eq(fts_block_positions(&b, &scratch, &raw, &raw_len), 0);
  // The segments, one per document, give back the positions.
  struct fts_pos_iter it;
  ck_assert_int_eq(fts_pos_iter_init(&it, raw, raw_len), 0);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *seg;
    size_t seg_len;
    ck_assert_int_eq(fts_pos_iter_next(&it, &seg, &seg_len), 0);
    ck_assert_uint_le(at + seg_len, pos.len);
    ck_assert_mem_eq(seg, pos.p + at, seg_len);
    at += seg_len;
  }
  ck_assert_uint_eq(at, pos.len);
  ck_assert_uint_eq(it.segs.len, 0);
  const uint8_t *extra;
  size_t extra_len;
  ck_assert_int_eq(fts_pos_iter_next(&it, &extra, &extra_len), FTS_ERR_CORRUPT);
  uint16_t *back = malloc(n * sizeof *back);
  ck_assert_int_eq(fts_docs_decode(b.docs, b.docs_len, back, b.n), 0);
  ck_assert_mem_eq(back, docs, n * sizeof *docs);
  // Every truncation is rejected or yields positions that differ, never reads out of bounds.
  for (size_t cut = 0; cut < val.len; cut += 1 + val.len / 64) {
    struct fts_block t;
    if (fts_block_parse(&t, val.p, cut) == 0 && t.pos_type == FTS_POS_ZSTD)
      ck_assert_int_ne(fts_block_positions(&t, &scratch, &raw, &raw_len), 0);
  }
  free(back);
  free(docs);
  fts_buf_free(&pos);
  fts_buf_free(&val);
  fts_buf_free(&scratch);
}

START_TEST(blocks_carry_positions) {
  block_roundtrip(1, 1, 0);
  block_roundtrip(3, 2, 0);
  block_roundtrip(4096, 20, 1); // repetitive gaps: zstd halves them
  block_roundtrip(FTS_BLOCK_DOCS, 1, -1);
  // Segments that do not parse are refused.
  struct fts_buf val = {0};
  const uint16_t one = 7;
  const uint8_t bad[] = {3, 1};
  ck_assert_int_eq(fts_block_encode(&val, &one, 1, bad, sizeof bad), FTS_ERR_CORRUPT);
  fts_buf_free(&val);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ftsearch-container");
  TCase *tc = tcase_create("container");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, each_type_at_block_edges);
  tcase_add_test(tc, random_sets_every_type_and_smallest_chosen);
  tcase_add_test(tc, dense_sets_pick_bitmap_sparse_pick_deltas);
  tcase_add_test(tc, decoders_reject_foreign_values);
  tcase_add_test(tc, blocks_carry_positions);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
