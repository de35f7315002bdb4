// scan_kernels.h: the scanning algorithms every kernel shares, written once
// over 64-byte blocks and 64-bit masks (bit i = byte i of the block). An ISA
// file supplies two block classifiers, `eq` (bytes equal to a value) and
// `odd` (bytes that are NUL or >= 0x80, one signed compare on most ISAs),
// and instantiates these always-inline functions with them, so each kernel
// is the same algorithm with its own instructions.
// The block before the end of the buffer is copied into a padded stack
// buffer, so no classifier ever reads outside [buf, buf + len); the padding
// byte belongs to no class the algorithms look for.
#ifndef MP_SCAN_KERNELS_H
#define MP_SCAN_KERNELS_H

#include <stdint.h>
#include <string.h>

#include "charset_internal.h"
#include "core_internal.h"

#define MP_KERNEL static inline __attribute__((always_inline))
#define MP_BLOCK 64
#define MP_PAD 'x'
// MP_PREFETCH: how far ahead of its loads a body scan asks for the bytes.
// The full parse scans a leaf a 16 KiB stretch at a time and decodes each
// stretch before scanning on, so the prefetch must reach across a decode:
// in a microbenchmark over 2,000 cold 160 KiB bodies on Zen 5 (this scan
// loop plus a 16 KiB pass between stretches; thread CPU time, three runs),
// 512 bytes took 25-29 ms, 2 KiB 19-23, 4 KiB 17-21, 8 KiB 17-18, against
// 16-21 ms for reading every byte once; for the scan alone, 512 bytes was
// slower than no prefetch. Prefetches are hints: they never
// fault and read nothing, so they may point past the buffer.
#ifndef MP_PREFETCH
#define MP_PREFETCH 4096
#endif

typedef uint64_t (*mp_eq_fn)(const uint8_t *p, uint8_t c);
typedef uint64_t (*mp_odd_fn)(const uint8_t *p);

// mp_prefetch_ramp asks, on a body scan's entry, for the lines of
// [from, from + MP_PREFETCH) that the steady prefetch of its loop (one
// MP_PREFETCH ahead of each load) never asks for: at a body's start they
// would otherwise come one missed load at a time. Lines already in cache
// (a stretch the previous call's loop prefetched) cost a cycle or so each.
MP_KERNEL void mp_prefetch_ramp(const uint8_t *buf, size_t len, size_t from) {
  size_t end = len - from > MP_PREFETCH ? from + MP_PREFETCH : len;
  for (size_t p = from + MP_BLOCK; p < end; p += MP_BLOCK)
    __builtin_prefetch(buf + p);
}

// mp_block returns 64 readable bytes holding buf[pos..] (pos < len): the
// buffer itself or, near its end, a padded copy in `tmp`; *valid gets a mask
// of the bytes that are real.
MP_KERNEL const uint8_t *mp_block(const uint8_t *buf, size_t len, size_t pos, uint8_t tmp[MP_BLOCK],
                                  uint64_t *valid) {
  size_t n = len - pos;
  if (n >= MP_BLOCK) {
    *valid = ~(uint64_t)0;
    return buf + pos;
  }
  memset(tmp, MP_PAD, MP_BLOCK);
  memcpy(tmp, buf + pos, n);
  *valid = ((uint64_t)1 << n) - 1;
  return tmp;
}

// mp_next_is returns 1 when the byte just after the block at `pos` exists
// and equals `c` (or `c2`): the one byte a block needs from its successor.
MP_KERNEL uint64_t mp_next_is(const uint8_t *buf, size_t len, size_t pos, uint8_t c, uint8_t c2) {
  return len - pos > MP_BLOCK && (buf[pos + MP_BLOCK] == c || buf[pos + MP_BLOCK] == c2);
}

MP_KERNEL size_t mp_k_line_end(const uint8_t *buf, size_t len, size_t from, mp_eq_fn eq) {
  uint8_t tmp[MP_BLOCK];
  for (size_t pos = from; pos < len; pos += MP_BLOCK) {
    uint64_t valid;
    const uint8_t *p = mp_block(buf, len, pos, tmp, &valid);
    uint64_t lf = eq(p, '\n') & valid;
    if (lf != 0)
      return pos + (size_t)__builtin_ctzll(lf) + 1;
  }
  return len;
}

// A candidate is a line start (`from`, or a byte after an LF) holding '-'
// followed by another '-'. The line feeds before it are counted on the way,
// so that line counts need no second pass over the body.
MP_KERNEL size_t mp_k_next_dash_line(const uint8_t *buf, size_t len, size_t from, size_t *lfs,
                                     mp_eq_fn eq) {
  uint8_t tmp[MP_BLOCK];
  uint64_t carry = 1; // `from` is a line start
  size_t n = 0;
  mp_prefetch_ramp(buf, len, from);
  for (size_t pos = from; pos < len; pos += MP_BLOCK) {
    uint64_t valid;
    // Bodies are the bulk of a message and this is the first pass to touch
    // them: asking for the bytes a few blocks ahead hides the memory's
    // latency (a hint only: it never faults and reads nothing).
    __builtin_prefetch(buf + pos + MP_PREFETCH);
    const uint8_t *p = mp_block(buf, len, pos, tmp, &valid);
    uint64_t lf = eq(p, '\n');
    uint64_t dash = eq(p, '-');
    uint64_t starts = (lf << 1) | carry;
    carry = lf >> 63;
    if ((dash & starts) != 0) {
      uint64_t dash1 = (dash >> 1) | (mp_next_is(buf, len, pos, '-', '-') << 63);
      uint64_t cand = starts & dash & dash1 & valid;
      if (cand != 0) {
        *lfs = n + (size_t)__builtin_popcountll(lf & (cand - 1) & valid);
        return pos + (size_t)__builtin_ctzll(cand);
      }
    }
    n += (size_t)__builtin_popcountll(lf & valid);
  }
  *lfs = n;
  return len;
}

// mp_k_dash_block is one block of mp_k_next_dash_line at `pos` (< len), for
// kernels with a faster loop of their own between the blocks that need it:
// `start` is 1 when `pos` is a line start. It returns the candidate's offset
// and in *lfs the line feeds before it in the block, or `len` and in *lfs
// the line feeds of the whole block.
MP_KERNEL size_t mp_k_dash_block(const uint8_t *buf, size_t len, size_t pos, uint64_t start,
                                 size_t *lfs, mp_eq_fn eq) {
  uint8_t tmp[MP_BLOCK];
  uint64_t valid;
  const uint8_t *p = mp_block(buf, len, pos, tmp, &valid);
  uint64_t lf = eq(p, '\n');
  uint64_t dash = eq(p, '-');
  uint64_t starts = (lf << 1) | start;
  if ((dash & starts) != 0) {
    uint64_t dash1 = (dash >> 1) | (mp_next_is(buf, len, pos, '-', '-') << 63);
    uint64_t cand = starts & dash & dash1 & valid;
    if (cand != 0) {
      *lfs = (size_t)__builtin_popcountll(lf & (cand - 1) & valid);
      return pos + (size_t)__builtin_ctzll(cand);
    }
  }
  *lfs = (size_t)__builtin_popcountll(lf & valid);
  return len;
}

// The field ends at the first LF whose next byte is not SP or HT (or does
// not exist). The colon counts only before the first LF. Most blocks of a
// header have no NUL and no 8-bit byte, so one `odd` test stands for both.
MP_KERNEL size_t mp_k_field_end(const uint8_t *buf, size_t len, size_t from, size_t *colon,
                                uint32_t *bits, mp_eq_fn eq, mp_odd_fn odd) {
  uint8_t tmp[MP_BLOCK];
  uint64_t prev_cr = 0; // the byte before `from` does not count
  bool colon_done = false;
  uint32_t acc = 0;
  *colon = len;
  for (size_t pos = from; pos < len; pos += MP_BLOCK) {
    uint64_t valid;
    const uint8_t *p = mp_block(buf, len, pos, tmp, &valid);
    uint64_t lf = eq(p, '\n') & valid;
    uint64_t ws = eq(p, ' ') | eq(p, '\t');
    uint64_t ws1 = (ws >> 1) | (mp_next_is(buf, len, pos, ' ', '\t') << 63);
    uint64_t stop = lf & ~ws1;
    // upto: the bytes that belong to the field in this block.
    uint64_t upto = (stop != 0 ? (stop ^ (stop - 1)) : ~(uint64_t)0) & valid;
    if (!colon_done) {
      uint64_t first_line = lf != 0 ? (lf & (0 - lf)) - 1 : valid;
      uint64_t c = eq(p, ':') & first_line;
      if (c != 0) {
        *colon = pos + (size_t)__builtin_ctzll(c);
        colon_done = true;
      } else if (lf != 0) {
        colon_done = true;
      }
    }
    // CR is looked for in every block (most header blocks hold a line end
    // anyway): one that no LF follows is a bare CR, data rather than a line
    // end (RFC 5322 2.3, DIFFERENCES.md "bare-cr").
    uint64_t cr = eq(p, '\r');
    if ((lf & upto) != 0 && (lf & ~((cr << 1) | prev_cr) & upto) != 0)
      acc |= MP_SCAN_BARE_LF;
    if ((cr & upto) != 0) {
      uint64_t lf1 = (lf >> 1) | (mp_next_is(buf, len, pos, '\n', '\n') << 63);
      if ((cr & ~lf1 & upto) != 0)
        acc |= MP_SCAN_BARE_CR;
    }
    prev_cr = p[MP_BLOCK - 1] == '\r';
    uint64_t o = odd(p) & upto;
    if (o != 0) {
      uint64_t nul = eq(p, 0) & upto;
      if (nul != 0)
        acc |= MP_SCAN_NUL;
      if ((o & ~nul) != 0)
        acc |= MP_SCAN_8BIT;
    }
    if (stop != 0) {
      *bits = acc;
      return pos + (size_t)__builtin_ctzll(stop) + 1;
    }
  }
  *bits = acc;
  return len;
}

MP_KERNEL size_t mp_k_count_lf(const uint8_t *buf, size_t len, size_t from, mp_eq_fn eq) {
  uint8_t tmp[MP_BLOCK];
  size_t n = 0;
  for (size_t pos = from; pos < len; pos += MP_BLOCK) {
    uint64_t valid;
    const uint8_t *p = mp_block(buf, len, pos, tmp, &valid);
    n += (size_t)__builtin_popcountll(eq(p, '\n') & valid);
  }
  return n;
}

// mp_k_utf8_valid is the UTF-8 check of kernels without a vector table
// lookup: blocks without NUL or 8-bit bytes are skipped by one classifier
// call, and each run of 8-bit bytes is decoded by the scalar decoder (a NUL
// that stopped the skip decodes as itself). Latin text, a few accented
// letters in ASCII, costs little more than the skip.
MP_KERNEL bool mp_k_utf8_valid(const uint8_t *buf, size_t len, mp_odd_fn odd) {
  size_t i = 0;
  while (i < len) {
    if (len - i >= MP_BLOCK) {
      uint64_t m = odd(buf + i);
      if (m == 0) {
        i += MP_BLOCK;
        continue;
      }
      i += (size_t)__builtin_ctzll(m);
    }
    do {
      uint32_t cp;
      int bad = 0;
      i += mp_utf8_decode_one(buf + i, len - i, &cp, &bad);
      if (bad)
        return false;
    } while (i < len && buf[i] >= 0x80);
  }
  return true;
}

// MP_SCANNER_DEFINE defines the functions and the table of one kernel from
// its two classifiers and its UTF-8 check (mp_k_utf8_valid over `odd` where
// the ISA has nothing better); MP_SCANNER_DEFINE_WITH takes the kernel's own
// next_dash_line and field_end functions (`ndl`, `fe`) instead of the
// shared ones.
#define MP_SCANNER_DEFINE(isa, req, eq, odd, utf8)                                                 \
  static size_t isa##_next_dash_line(const uint8_t *buf, size_t len, size_t from, size_t *lfs) {   \
    return mp_k_next_dash_line(buf, len, from, lfs, eq);                                           \
  }                                                                                                \
  static size_t isa##_field_end(const uint8_t *buf, size_t len, size_t from, size_t *colon,        \
                                uint32_t *bits) {                                                  \
    return mp_k_field_end(buf, len, from, colon, bits, eq, odd);                                   \
  }                                                                                                \
  MP_SCANNER_DEFINE_WITH(isa, req, eq, odd, utf8, isa##_next_dash_line, isa##_field_end)

#define MP_SCANNER_DEFINE_WITH(isa, req, eq, odd, utf8, ndl, fe)                                   \
  static size_t isa##_line_end(const uint8_t *buf, size_t len, size_t from) {                      \
    return mp_k_line_end(buf, len, from, eq);                                                      \
  }                                                                                                \
  static size_t isa##_count_lf(const uint8_t *buf, size_t len, size_t from) {                      \
    return mp_k_count_lf(buf, len, from, eq);                                                      \
  }                                                                                                \
  const mp_scanner mp_scanner_##isa = {                                                            \
      .name = #isa,                                                                                \
      .required = (req),                                                                           \
      .line_end = isa##_line_end,                                                                  \
      .next_dash_line = (ndl),                                                                     \
      .field_end = (fe),                                                                           \
      .count_lf = isa##_count_lf,                                                                  \
      .utf8_valid = (utf8),                                                                        \
  }

#endif // MP_SCAN_KERNELS_H
