// avx512.c: the AVX-512 scanner: a body scan of its own (one 64-byte load
// and compares straight into 64-bit opmasks, two blocks a step, the last
// block read with a masked load), line counts and header field ends the
// same way (512-bit compares, a masked load for the last block); line ends
// run the shared algorithm of scan_kernels.h with an AVX2 classifier (see
// below). Built with the avx512 ISA level's flags. It needs only AVX-512 F
// and BW (and the OS's ZMM state), so it asks for the CPU probe's AVX512BW
// bit: Skylake-X and later run it.
#include <immintrin.h>

#include "corvid_cpu.h"
#include "scan_kernels.h"
#include "x86/sbcs_avx512.h"
#include "x86/utf8_avx2.h"

// The body scan is the first pass over every body byte and most of the
// structure parse's time, so it has its own loop rather than the shared one:
// the last block is a masked load (the masked-off lanes read as 0, which is
// neither '\n' nor '-', and never fault), so no block is copied, and two
// blocks are classified per step, the common case (no line start holding a
// '-') costing one test for both.
static size_t avx512_next_dash_line(const uint8_t *buf, size_t len, size_t from, size_t *lfs) {
  const __m512i nl = _mm512_set1_epi8('\n'), dash = _mm512_set1_epi8('-');
  uint64_t carry = 1; // `from` is a line start
  size_t n = 0, pos = from;
  mp_prefetch_ramp(buf, len, from);
  while (len - pos >= 2 * MP_BLOCK) {
    __builtin_prefetch(buf + pos + MP_PREFETCH);
    __builtin_prefetch(buf + pos + MP_PREFETCH + MP_BLOCK);
    __m512i a = _mm512_loadu_si512((const void *)(buf + pos));
    __m512i b = _mm512_loadu_si512((const void *)(buf + pos + MP_BLOCK));
    uint64_t lf0 = _mm512_cmpeq_epi8_mask(a, nl), lf1 = _mm512_cmpeq_epi8_mask(b, nl);
    uint64_t d0 = _mm512_cmpeq_epi8_mask(a, dash), d1 = _mm512_cmpeq_epi8_mask(b, dash);
    uint64_t s0 = (lf0 << 1) | carry, s1 = (lf1 << 1) | (lf0 >> 63);
    if (((d0 & s0) | (d1 & s1)) != 0)
      break; // a possible candidate: the block loop below finds it
    n += (size_t)__builtin_popcountll(lf0) + (size_t)__builtin_popcountll(lf1);
    carry = lf1 >> 63;
    pos += 2 * MP_BLOCK;
  }
  for (; pos < len; pos += MP_BLOCK) {
    size_t rest = len - pos;
    __m512i v;
    uint64_t next_dash = 0;
    if (rest > MP_BLOCK) {
      v = _mm512_loadu_si512((const void *)(buf + pos));
      next_dash = buf[pos + MP_BLOCK] == '-';
    } else {
      uint64_t valid = rest == MP_BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << rest) - 1;
      v = _mm512_maskz_loadu_epi8(valid, (const void *)(buf + pos));
    }
    uint64_t lf = _mm512_cmpeq_epi8_mask(v, nl);
    uint64_t d = _mm512_cmpeq_epi8_mask(v, dash);
    uint64_t starts = (lf << 1) | carry;
    carry = lf >> 63;
    uint64_t cand = d & starts & ((d >> 1) | (next_dash << 63));
    if (cand != 0) {
      *lfs = n + (size_t)__builtin_popcountll(lf & (cand - 1));
      return pos + (size_t)__builtin_ctzll(cand);
    }
    n += (size_t)__builtin_popcountll(lf);
  }
  *lfs = n;
  return len;
}

// Line ends use the AVX2 classifier (this file is built with AVX2 too). The
// header field scan classifies each block six ways and a field is usually
// one or two blocks: with the shared loop, which reads each class from a
// padded copy of the last block, header-only parsing of mkcorpus ran about
// 15% slower with 512-bit classifiers than with 256-bit ones; the field
// scan below reads each block once, by a masked load at the end, into six
// 512-bit compares, and header-only parsing of the real set runs about 2.5%
// faster than with the AVX2 classifiers (24 alternating pairs). The UTF-8
// check is the AVX2 one (x86/utf8_avx2.h).
static inline uint64_t ymm_eq(const uint8_t *p, uint8_t c) {
  __m256i v = _mm256_set1_epi8((char)c);
  __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
  __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
  uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v));
  uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v));
  return lo | (uint64_t)hi << 32;
}

static size_t avx512_line_end(const uint8_t *buf, size_t len, size_t from) {
  return mp_k_line_end(buf, len, from, ymm_eq);
}

// avx512_field_end_general is every field the shortcut below does not take:
// mp_k_field_end's algorithm, with each block read once, by a masked load
// at the buffer's end (the masked-off lanes read as 0 and never fault; every
// class but NUL leaves them out by itself, and NUL bytes count only within
// `upto`, which holds real bytes alone), and classified by 512-bit compares
// into opmasks. It is a function of its own, never inlined, so that the
// shortcut is a leaf that saves no registers: inlined, the shared loop's
// padded block and five callee-saved registers made every call pay a
// prologue and an epilogue that perf put at a fifth of the kernel's time.
__attribute__((noinline)) static size_t avx512_field_end_general(const uint8_t *buf, size_t len,
                                                                 size_t from, size_t *colon,
                                                                 uint32_t *bits) {
  const __m512i nl = _mm512_set1_epi8('\n'), cr_v = _mm512_set1_epi8('\r');
  const __m512i sp = _mm512_set1_epi8(' '), ht = _mm512_set1_epi8('\t');
  const __m512i col = _mm512_set1_epi8(':'), one = _mm512_set1_epi8(1);
  uint64_t prev_cr = 0; // the byte before `from` does not count
  bool colon_done = false;
  uint32_t acc = 0;
  *colon = len;
  for (size_t pos = from; pos < len; pos += MP_BLOCK) {
    size_t rest = len - pos;
    uint64_t valid = rest >= MP_BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << rest) - 1;
    __m512i v = _mm512_maskz_loadu_epi8(valid, (const void *)(buf + pos));
    // The one byte a block needs from its successor, when there is one.
    uint8_t nx = rest > MP_BLOCK ? buf[pos + MP_BLOCK] : 0;
    uint64_t lf = _mm512_cmpeq_epi8_mask(v, nl);
    uint64_t ws = _mm512_cmpeq_epi8_mask(v, sp) | _mm512_cmpeq_epi8_mask(v, ht);
    uint64_t ws1 = (ws >> 1) | ((uint64_t)(nx == ' ' || nx == '\t') << 63);
    uint64_t stop = lf & ~ws1;
    // upto: the bytes that belong to the field in this block.
    uint64_t upto = (stop != 0 ? (stop ^ (stop - 1)) : ~(uint64_t)0) & valid;
    if (!colon_done) {
      uint64_t first_line = lf != 0 ? (lf & (0 - lf)) - 1 : valid;
      uint64_t c = _mm512_cmpeq_epi8_mask(v, col) & first_line;
      if (c != 0) {
        *colon = pos + (size_t)__builtin_ctzll(c);
        colon_done = true;
      } else if (lf != 0) {
        colon_done = true;
      }
    }
    uint64_t cr = _mm512_cmpeq_epi8_mask(v, cr_v);
    if ((lf & upto) != 0 && (lf & ~((cr << 1) | prev_cr) & upto) != 0)
      acc |= MP_SCAN_BARE_LF;
    if ((cr & upto) != 0) {
      uint64_t lf1 = (lf >> 1) | ((uint64_t)(nx == '\n') << 63);
      if ((cr & ~lf1 & upto) != 0)
        acc |= MP_SCAN_BARE_CR;
    }
    prev_cr = cr >> 63;
    uint64_t o = _mm512_cmplt_epi8_mask(v, one) & upto;
    if (o != 0) {
      uint64_t nul = _mm512_cmpeq_epi8_mask(v, _mm512_setzero_si512()) & upto;
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

// avx512_field_end takes the field most headers are made of, one line
// ending in CRLF (or a bare LF) inside the 64 bytes at `from`, not followed
// by SP or HT, with no other CR and no NUL or 8-bit byte, from one 64-byte
// load and four compares into opmasks (the AVX2 kernel's shortcut, with
// 512-bit compares: one load and no VPMOVMSKB); any other field, and a line
// end at the block's last byte, takes avx512_field_end_general().
static size_t avx512_field_end(const uint8_t *buf, size_t len, size_t from, size_t *colon,
                               uint32_t *bits) {
  if (len - from >= MP_BLOCK) {
    const uint8_t *p = buf + from;
    __m512i v = _mm512_loadu_si512((const void *)p);
    uint64_t lf = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n'));
    if (lf != 0) {
      unsigned i = (unsigned)__builtin_ctzll(lf);
      // i in 1..62: the CR before it and the byte after it are in the block.
      if (i - 1u < MP_BLOCK - 2u && p[i + 1] != ' ' && p[i + 1] != '\t') {
        uint64_t before = ((uint64_t)1 << i) - 1; // the bytes of the line before its LF
        uint64_t cr = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r')) & before;
        // NUL and bytes >= 0x80 at once: as signed bytes, those below 1.
        uint64_t odd = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(1));
        // CRLF, or a bare LF (most mail stored on Unix) and no CR at all.
        if ((cr == (uint64_t)1 << (i - 1) || cr == 0) && (odd & before) == 0) {
          uint64_t c = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':')) & before;
          *colon = c != 0 ? from + (size_t)__builtin_ctzll(c) : len;
          *bits = cr != 0 ? 0 : MP_SCAN_BARE_LF;
          return from + i + 1;
        }
      }
    }
  }
  return avx512_field_end_general(buf, len, from, colon, bits);
}

// avx512_count_lf counts line feeds two blocks a step and reads the last
// part block with a masked load (masked-off lanes read as 0 and never
// fault), as the body scan does. The shared loop copied that block into a
// padded stack buffer and read it back with one 64-byte load, which no
// store forwards to: most calls count a part's header section or a short
// body of a few hundred bytes, and perf put a third of this function's
// samples on the compare of the copied block.
static size_t avx512_count_lf(const uint8_t *buf, size_t len, size_t from) {
  const __m512i nl = _mm512_set1_epi8('\n');
  size_t n = 0, pos = from;
  while (len - pos >= 2 * MP_BLOCK) {
    __m512i a = _mm512_loadu_si512((const void *)(buf + pos));
    __m512i b = _mm512_loadu_si512((const void *)(buf + pos + MP_BLOCK));
    n += (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(a, nl)) +
         (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(b, nl));
    pos += 2 * MP_BLOCK;
  }
  for (; pos < len; pos += MP_BLOCK) {
    size_t rest = len - pos;
    uint64_t valid = rest >= MP_BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << rest) - 1;
    __m512i v = _mm512_maskz_loadu_epi8(valid, (const void *)(buf + pos));
    n += (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(v, nl));
  }
  return n;
}

const mp_scanner mp_scanner_avx512 = {
    .name = "avx512",
    .required = CORVID_CPU_AVX512BW | CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 |
                CORVID_CPU_LZCNT | CORVID_CPU_POPCNT,
    .line_end = avx512_line_end,
    .next_dash_line = avx512_next_dash_line,
    .field_end = avx512_field_end,
    .count_lf = avx512_count_lf,
    .utf8_valid = mp_utf8_valid_avx2,
    .sbcs_blocks = mp_sbcs_blocks_avx512,
};
