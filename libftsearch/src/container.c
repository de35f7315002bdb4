// container.c: the compact encodings of posting blocks: the three containers
// for the document offsets of one block (delta varints, bit-packed deltas and
// a bitmap, whichever is smallest for the block) and the block value that
// adds the positions (delta varints, zstd-compressed when that pays), with
// bounded decoders that reject any value not written by the encoder.
#include "index_internal.h"

#include <errno.h>
#include <zstd.h>

// Positions are compressed only from this size on: below it zstd's frame
// header costs more than it saves.
#define POS_ZSTD_MIN 512u
#define POS_ZSTD_LEVEL 1
// The most a zstd frame of `len` bytes can decompress to (RFC 8878 3.1.1.2):
// every block regenerates at most 128 KiB and takes at least 4 bytes of the
// frame (its 3-byte header and, for the smallest, one RLE byte).
#define POS_ZSTD_MAX_OUT(len) ((uint64_t)(len) / 4u * (128u << 10))

static struct fts_encode_stats enc_stats;

void fts_encode_stats_get(struct fts_encode_stats *out) {
  uint64_t *dst = (uint64_t *)out, *src = (uint64_t *)&enc_stats;
  for (size_t i = 0; i < sizeof *out / sizeof(uint64_t); i++)
    dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void stat_add(uint64_t *counter, uint64_t v) {
  __atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

int fts_buf_reserve(struct fts_buf *b, size_t more) {
  if (b->err)
    return b->err;
  if (b->cap - b->len >= more)
    return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < more)
    cap *= 2;
  uint8_t *p = realloc(b->p, cap);
  if (!p)
    return b->err = -ENOMEM;
  b->p = p;
  b->cap = cap;
  return 0;
}

void fts_buf_free(struct fts_buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static size_t varint_len(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static unsigned bit_width(uint32_t v) {
  return v ? 32u - (unsigned)__builtin_clz(v) : 0;
}

void fts_docs_sizes(const uint16_t *docs, size_t n, size_t sizes[3]) {
  size_t array = 1;
  uint32_t max_gap = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t g = i ? (uint32_t)(docs[i] - docs[i - 1] - 1) : docs[0];
    array += varint_len(g);
    if (i && g > max_gap)
      max_gap = g;
  }
  sizes[FTS_CONTAINER_ARRAY] = array;
  sizes[FTS_CONTAINER_PACKED] = n ? 4 + ((n - 1) * bit_width(max_gap) + 7) / 8 : SIZE_MAX;
  sizes[FTS_CONTAINER_BITMAP] = n ? 1 + (size_t)docs[n - 1] / 8 + 1 : SIZE_MAX;
}

size_t fts_docs_encode(uint8_t *out, const uint16_t *docs, size_t n, int force_type) {
  size_t sizes[3];
  fts_docs_sizes(docs, n, sizes);
  int type = FTS_CONTAINER_ARRAY;
  if (force_type >= 0)
    type = force_type;
  else
    for (int t = 1; t < 3; t++)
      if (sizes[t] < sizes[type])
        type = t;
  out[0] = (uint8_t)type;
  size_t len = 1;
  if (type == FTS_CONTAINER_ARRAY) {
    for (size_t i = 0; i < n; i++)
      len += fts_varint_put(out + len, i ? (uint32_t)(docs[i] - docs[i - 1] - 1) : docs[0]);
  } else if (type == FTS_CONTAINER_PACKED) {
    uint32_t max_gap = 0;
    for (size_t i = 1; i < n; i++)
      if ((uint32_t)(docs[i] - docs[i - 1] - 1) > max_gap)
        max_gap = (uint32_t)(docs[i] - docs[i - 1] - 1);
    unsigned w = bit_width(max_gap);
    out[1] = (uint8_t)w;
    out[2] = (uint8_t)(docs[0] & 0xff);
    out[3] = (uint8_t)(docs[0] >> 8);
    len = 4;
    uint64_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 1; i < n; i++) {
      acc |= (uint64_t)(uint32_t)(docs[i] - docs[i - 1] - 1) << bits;
      bits += w;
      while (bits >= 8) {
        out[len++] = (uint8_t)acc;
        acc >>= 8;
        bits -= 8;
      }
    }
    if (bits)
      out[len++] = (uint8_t)acc;
  } else {
    size_t bytes = n ? (size_t)docs[n - 1] / 8 + 1 : 0;
    memset(out + 1, 0, bytes);
    for (size_t i = 0; i < n; i++)
      out[1 + docs[i] / 8] |= (uint8_t)(1u << (docs[i] % 8));
    len = 1 + bytes;
  }
  stat_add(&enc_stats.containers[type], 1);
  stat_add(&enc_stats.container_bytes[type], len);
  return len;
}

// Decoding visits each offset in order; `emit` stores it.
struct sink {
  uint16_t *array;
  uint64_t *bitmap;
};

static inline void sink_put(struct sink *s, size_t i, uint32_t v) {
  if (s->array)
    s->array[i] = (uint16_t)v;
  else
    s->bitmap[v / 64] |= 1ull << (v % 64);
}

static int docs_decode(const uint8_t *in, size_t in_len, struct sink *s, size_t n) {
  struct fts_cur c = {in, in_len};
  uint8_t type;
  if (!fts_cur_u8(&c, &type) || n == 0 || n > FTS_BLOCK_DOCS)
    return FTS_ERR_CORRUPT;
  if (type == FTS_CONTAINER_ARRAY) {
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t g;
      if (!fts_cur_varint(&c, &g))
        return FTS_ERR_CORRUPT;
      uint32_t v = i ? prev + 1 + g : g;
      if (g >= FTS_BLOCK_DOCS || v >= FTS_BLOCK_DOCS)
        return FTS_ERR_CORRUPT;
      sink_put(s, i, v);
      prev = v;
    }
    return c.len == 0 ? 0 : FTS_ERR_CORRUPT;
  }
  if (type == FTS_CONTAINER_PACKED) {
    const uint8_t *h;
    if (!fts_cur_bytes(&c, &h, 3) || h[0] > 16)
      return FTS_ERR_CORRUPT;
    unsigned w = h[0];
    if (c.len != ((n - 1) * w + 7) / 8)
      return FTS_ERR_CORRUPT;
    uint32_t v = (uint32_t)h[1] | (uint32_t)h[2] << 8;
    if (w == 0 && !s->array) {
      // A run of consecutive documents (every live set of a full block).
      uint32_t end = v + (uint32_t)n;
      if (end > FTS_BLOCK_DOCS)
        return FTS_ERR_CORRUPT;
      for (; v < end && v % 64; v++)
        s->bitmap[v / 64] |= 1ull << (v % 64);
      for (; v + 64 <= end; v += 64)
        s->bitmap[v / 64] = ~0ull;
      for (; v < end; v++)
        s->bitmap[v / 64] |= 1ull << (v % 64);
      return 0;
    }
    sink_put(s, 0, v);
    uint64_t acc = 0;
    unsigned bits = 0;
    size_t at = 0;
    uint32_t mask = (1u << w) - 1;
    for (size_t i = 1; i < n; i++) {
      while (bits < w) {
        acc |= (uint64_t)c.p[at++] << bits;
        bits += 8;
      }
      uint32_t g = (uint32_t)acc & mask;
      acc >>= w;
      bits -= w;
      v += 1 + g;
      if (v >= FTS_BLOCK_DOCS)
        return FTS_ERR_CORRUPT;
      sink_put(s, i, v);
    }
    return 0;
  }
  if (type == FTS_CONTAINER_BITMAP) {
    if (c.len == 0 || c.len > FTS_BITMAP_BYTES || c.p[c.len - 1] == 0)
      return FTS_ERR_CORRUPT;
    size_t count = 0;
    if (!s->array) {
      // Word-at-a-time OR: the common case of evaluating a dense term.
      size_t full = c.len / 8;
      for (size_t w = 0; w < full; w++) {
        uint64_t x;
        memcpy(&x, c.p + 8 * w, 8);
        if (x) {
          s->bitmap[w] |= x;
          count += (size_t)fts_popcount64(x);
        }
      }
      for (size_t b = full * 8; b < c.len; b++) {
        s->bitmap[b / 8] |= (uint64_t)c.p[b] << (8 * (b % 8));
        count += (size_t)fts_popcount64(c.p[b]);
      }
      return count == n ? 0 : FTS_ERR_CORRUPT;
    }
    for (size_t b = 0; b < c.len; b++) {
      unsigned x = c.p[b];
      while (x) {
        unsigned bit = (unsigned)__builtin_ctz(x);
        x &= x - 1;
        if (count >= n)
          return FTS_ERR_CORRUPT;
        s->array[count++] = (uint16_t)(b * 8 + bit);
      }
    }
    return count == n ? 0 : FTS_ERR_CORRUPT;
  }
  return FTS_ERR_CORRUPT;
}

int fts_docs_decode(const uint8_t *in, size_t in_len, uint16_t *out, size_t n) {
  struct sink s = {out, NULL};
  return docs_decode(in, in_len, &s, n);
}

int fts_docs_decode_or(const uint8_t *in, size_t in_len, uint64_t *bitmap, size_t n) {
  struct sink s = {NULL, bitmap};
  return docs_decode(in, in_len, &s, n);
}

int fts_block_parse(struct fts_block *b, const uint8_t *v, size_t len) {
  struct fts_cur c = {v, len};
  uint32_t n, docs_len, raw;
  if (!fts_cur_varint(&c, &n) || n == 0 || n > FTS_BLOCK_DOCS || !fts_cur_varint(&c, &docs_len) ||
      !fts_cur_bytes(&c, &b->docs, docs_len) || !fts_cur_u8(&c, &b->pos_type) ||
      b->pos_type > FTS_POS_ZSTD || !fts_cur_varint(&c, &raw))
    return FTS_ERR_CORRUPT;
  b->n = n;
  b->docs_len = docs_len;
  b->pos_raw_len = raw;
  b->pos = c.p;
  b->pos_len = c.len;
  if (b->pos_type == FTS_POS_VARINT && raw != c.len)
    return FTS_ERR_CORRUPT;
  return 0;
}

int fts_block_positions(const struct fts_block *b, struct fts_buf *scratch, const uint8_t **out,
                        size_t *out_len) {
  if (b->pos_type == FTS_POS_VARINT) {
    *out = b->pos;
    *out_len = b->pos_len;
    return 0;
  }
  // The raw length is allocated before decompressing: a damaged one must
  // not reserve up to 4 GiB. fts_block_encode's frames record their content
  // size, so the two lengths must agree (an error code never equals it),
  // and no frame of pos_len bytes can hold more than POS_ZSTD_MAX_OUT says,
  // whatever its header claims.
  if (ZSTD_getFrameContentSize(b->pos, b->pos_len) != b->pos_raw_len ||
      b->pos_raw_len > POS_ZSTD_MAX_OUT(b->pos_len))
    return FTS_ERR_CORRUPT;
  scratch->len = 0;
  FTS_TRY(fts_buf_reserve(scratch, b->pos_raw_len));
  size_t r = ZSTD_decompress(scratch->p, b->pos_raw_len, b->pos, b->pos_len);
  if (ZSTD_isError(r) || r != b->pos_raw_len)
    return FTS_ERR_CORRUPT;
  *out = scratch->p;
  *out_len = r;
  return 0;
}

static int block_encode_raw(struct fts_buf *out, const uint16_t *docs, size_t n, const uint8_t *pos,
                            size_t pos_len);

int fts_block_encode(struct fts_buf *out, const uint16_t *docs, size_t n, const uint8_t *segs,
                     size_t segs_len) {
  // The table of segment lengths goes first.
  struct fts_buf raw = {0};
  uint8_t *table = malloc(5 * n + 5);
  if (!table)
    return -ENOMEM;
  size_t tl = 0;
  struct fts_cur c = {segs, segs_len};
  for (size_t i = 0; i < n; i++) {
    const uint8_t *start = c.p;
    uint32_t count, p;
    if (!fts_cur_varint(&c, &count) || count == 0 || count > c.len) {
      free(table);
      return FTS_ERR_CORRUPT;
    }
    for (uint32_t k = 0; k < count; k++)
      if (!fts_cur_varint(&c, &p)) {
        free(table);
        return FTS_ERR_CORRUPT;
      }
    tl += fts_varint_put(table + tl, (uint32_t)(c.p - start));
  }
  if (c.len != 0 || segs_len > UINT32_MAX / 2) {
    free(table);
    return c.len ? FTS_ERR_CORRUPT : FTS_ERR_LIMIT;
  }
  fts_buf_varint(&raw, (uint32_t)tl);
  fts_buf_put(&raw, table, tl);
  fts_buf_put(&raw, segs, segs_len);
  free(table);
  if (raw.err)
    return raw.err;
  int rc = block_encode_raw(out, docs, n, raw.p, raw.len);
  fts_buf_free(&raw);
  return rc;
}

static int block_encode_raw(struct fts_buf *out, const uint16_t *docs, size_t n, const uint8_t *pos,
                            size_t pos_len) {
  FTS_TRY(fts_buf_reserve(out, 15 + fts_docs_max_len(n) + ZSTD_compressBound(pos_len)));
  fts_buf_varint(out, (uint32_t)n);
  // The container length precedes it: encode after a maximal varint gap.
  size_t at = out->len;
  uint8_t *tmp = out->p + at + 3;
  size_t clen = fts_docs_encode(tmp, docs, n, -1);
  size_t vl = fts_varint_put(out->p + at, (uint32_t)clen);
  memmove(out->p + at + vl, tmp, clen);
  out->len = at + vl + clen;
  if (pos_len >= POS_ZSTD_MIN) {
    uint8_t *dst = out->p + out->len + 6;
    size_t cap = out->cap - out->len - 6;
    size_t z = ZSTD_compress(dst, cap, pos, pos_len, POS_ZSTD_LEVEL);
    // zstd only when it halves the positions: decompressing costs every
    // phrase and ranked query (bench: on mkcorpus mail zstd saved 4.5% of
    // the index file and cost 35-40% of phrase time; FORMAT.md).
    if (!ZSTD_isError(z) && z < pos_len / 2) {
      uint8_t head[6];
      head[0] = FTS_POS_ZSTD;
      size_t hl = 1 + fts_varint_put(head + 1, (uint32_t)pos_len);
      memmove(out->p + out->len + hl, dst, z);
      memcpy(out->p + out->len, head, hl);
      out->len += hl + z;
      stat_add(&enc_stats.pos_zstd, 1);
      stat_add(&enc_stats.pos_raw_bytes, pos_len);
      stat_add(&enc_stats.pos_stored_bytes, z);
      return 0;
    }
  }
  out->p[out->len++] = FTS_POS_VARINT;
  fts_buf_varint(out, (uint32_t)pos_len);
  fts_buf_put(out, pos, pos_len);
  stat_add(&enc_stats.pos_varint, 1);
  stat_add(&enc_stats.pos_raw_bytes, pos_len);
  stat_add(&enc_stats.pos_stored_bytes, pos_len);
  return out->err;
}
