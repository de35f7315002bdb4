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

MP_SCANNER_DEFINE(avx2,
                  CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 | CORVID_CPU_LZCNT |
                      CORVID_CPU_POPCNT,
                  avx2_eq, avx2_odd, mp_utf8_valid_avx2);
