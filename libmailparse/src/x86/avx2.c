// avx2.c: the AVX2 scanner: the shared algorithms of scan_kernels.h with two
// 32-byte compares and VPMOVMSKB per 64-byte block, and the table-lookup
// UTF-8 check of x86/utf8_avx2.h; built with the avx2 ISA level's flags (BMI
// and LZCNT turn the mask arithmetic into single instructions) and chosen
// only when the CPU and the OS support AVX2.
#include <immintrin.h>

#include "corvid_cpu.h"
#include "scan_kernels.h"
#include "x86/utf8_avx2.h"

static inline uint64_t avx2_eq(const uint8_t *p, uint8_t c) {
  __m256i v = _mm256_set1_epi8((char)c);
  __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
  __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
  uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v));
  uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v));
  return lo | (uint64_t)hi << 32;
}

// avx2_odd marks NUL and bytes >= 0x80 at once: as signed bytes, those are
// exactly the ones below 1.
static inline uint64_t avx2_odd(const uint8_t *p) {
  __m256i one = _mm256_set1_epi8(1);
  __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
  __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
  return (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, a)) |
         (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, b)) << 32;
}

// avx2_hsum_bytes returns the sum of the 32 byte lanes of `acc`.
static inline size_t avx2_hsum_bytes(__m256i acc) {
  __m256i s = _mm256_sad_epu8(acc, _mm256_setzero_si256());
  __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  return (size_t)_mm_cvtsi128_si64(t) + (size_t)_mm_extract_epi64(t, 1);
}

// avx2_next_dash_line is mp_k_next_dash_line with a faster loop for the
// bulk of a body: the shared block (mp_k_dash_block) takes the first block
// (`from` is a line start whatever precedes it), the last, partial one, and
// any block where a '-' follows a LF; every other block costs one VPTEST of
// ('-' here) AND (LF one byte before, an unaligned load at pos - 1, inside
// the buffer since pos > from) and two VPSUBB that count its line feeds in
// byte lanes, summed (VPSADBW) every 127 blocks before a lane can overflow,
// instead of two movemasks and a popcount per block.
static size_t avx2_next_dash_line(const uint8_t *buf, size_t len, size_t from, size_t *lfs) {
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i dash = _mm256_set1_epi8('-');
  size_t n = 0, k, pos = from;
  mp_prefetch_ramp(buf, len, from);
  while (pos < len) {
    size_t c = mp_k_dash_block(buf, len, pos, pos == from || buf[pos - 1] == '\n', &k, avx2_eq);
    n += k;
    if (c < len) {
      *lfs = n;
      return c;
    }
    pos += MP_BLOCK;
    __m256i acc = _mm256_setzero_si256();
    unsigned steps = 0;
    while (pos < len && len - pos >= MP_BLOCK) {
      __builtin_prefetch(buf + pos + MP_PREFETCH);
      const uint8_t *p = buf + pos;
      __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
      __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
      __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)(p - 1));
      __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 31));
      __m256i c0 = _mm256_and_si256(_mm256_cmpeq_epi8(b0, nl), _mm256_cmpeq_epi8(a0, dash));
      __m256i c1 = _mm256_and_si256(_mm256_cmpeq_epi8(b1, nl), _mm256_cmpeq_epi8(a1, dash));
      __m256i cc = _mm256_or_si256(c0, c1);
      if (!_mm256_testz_si256(cc, cc))
        break; // the shared block decides
      acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(a0, nl));
      acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(a1, nl));
      pos += MP_BLOCK;
      if (++steps == 127) {
        n += avx2_hsum_bytes(acc);
        acc = _mm256_setzero_si256();
        steps = 0;
      }
    }
    n += avx2_hsum_bytes(acc);
  }
  *lfs = n;
  return len;
}

// avx2_mask returns the 64-bit mask of the bytes of the block (a0, a1)
// equal to those of `v`.
static inline uint64_t avx2_mask(__m256i a0, __m256i a1, __m256i v) {
  return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a0, v)) |
         (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a1, v)) << 32;
}

// avx2_field_end_general is every field the shortcut below does not take,
// never inlined, so that the shortcut is a leaf that saves no registers and
// aligns no stack (see avx512_field_end_general).
__attribute__((noinline)) static size_t
avx2_field_end_general(const uint8_t *buf, size_t len, size_t from, size_t *colon, uint32_t *bits) {
  return mp_k_field_end(buf, len, from, colon, bits, avx2_eq, avx2_odd);
}

// avx2_field_end is mp_k_field_end with a shortcut for the field most
// headers are made of: one line ending in CRLF (or a bare LF) inside the 64
// bytes at `from`, not followed by SP or HT, with no other CR and no NUL or
// 8-bit byte. Those need four masks (LF, CR, colon, NUL-or-8-bit); any
// other field, and a line end at the block's last byte, takes the shared
// code.
static size_t avx2_field_end(const uint8_t *buf, size_t len, size_t from, size_t *colon,
                             uint32_t *bits) {
  if (len - from >= MP_BLOCK) {
    const uint8_t *p = buf + from;
    __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    uint64_t lf = avx2_mask(a0, a1, _mm256_set1_epi8('\n'));
    if (lf != 0) {
      unsigned i = (unsigned)__builtin_ctzll(lf);
      // i in 1..62: the CR before it and the byte after it are in the block.
      if (i - 1u < MP_BLOCK - 2u && p[i + 1] != ' ' && p[i + 1] != '\t') {
        uint64_t before = ((uint64_t)1 << i) - 1; // the bytes of the line before its LF
        uint64_t cr = avx2_mask(a0, a1, _mm256_set1_epi8('\r')) & before;
        __m256i one = _mm256_set1_epi8(1);
        uint64_t odd = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, a0)) |
                       (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(one, a1)) << 32;
        // CRLF, or a bare LF (most mail stored on Unix) and no CR at all.
        if ((cr == (uint64_t)1 << (i - 1) || cr == 0) && (odd & before) == 0) {
          uint64_t c = avx2_mask(a0, a1, _mm256_set1_epi8(':')) & before;
          *colon = c != 0 ? from + (size_t)__builtin_ctzll(c) : len;
          *bits = cr != 0 ? 0 : MP_SCAN_BARE_LF;
          return from + i + 1;
        }
      }
    }
  }
  return avx2_field_end_general(buf, len, from, colon, bits);
}

MP_SCANNER_DEFINE_WITH(avx2,
                       CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 | CORVID_CPU_LZCNT |
                           CORVID_CPU_POPCNT,
                       avx2_eq, avx2_odd, mp_utf8_valid_avx2, avx2_next_dash_line, avx2_field_end);
