// sse2.c: the SSE2 scanner: the shared algorithms of scan_kernels.h with
// four 16-byte compares and PMOVMSKB per 64-byte block. SSE2 is part of
// x86-64, so this kernel runs on every x86-64 CPU without AVX2.
#include <emmintrin.h>

#include "corvid_cpu.h"
#include "scan_kernels.h"

static inline uint64_t sse2_eq(const uint8_t *p, uint8_t c) {
  __m128i v = _mm_set1_epi8((char)c);
  uint64_t m = 0;
  for (unsigned i = 0; i < 4; i++) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
    m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, v)) << (16 * i);
  }
  return m;
}

// sse2_odd marks NUL and bytes >= 0x80 at once: as signed bytes, those are
// exactly the ones below 1.
static inline uint64_t sse2_odd(const uint8_t *p) {
  __m128i one = _mm_set1_epi8(1);
  uint64_t m = 0;
  for (unsigned i = 0; i < 4; i++) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
    m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpgt_epi8(one, x)) << (16 * i);
  }
  return m;
}

static bool sse2_utf8_valid(const uint8_t *buf, size_t len) {
  return mp_k_utf8_valid(buf, len, sse2_odd);
}

MP_SCANNER_DEFINE(sse2, CORVID_CPU_SSE2, sse2_eq, sse2_odd, sse2_utf8_valid);
