// cpu.c: detects, once, the CPU features that libencodify's kernels need
// (CONVENTIONS §6). On x86-64 it asks CPUID and checks with XGETBV that the
// operating system saves the YMM state before it reports AVX2 (and the
// opmask and ZMM state before it reports AVX-512); features the
// compiler was told to assume (e.g. -mavx2) collapse to constants. aarch64
// always has NEON (Advanced SIMD is part of the base architecture).
#include <stdatomic.h>

#include "encodify_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint32_t detect(void) {
  uint32_t f = 0;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return 0;
  if (c & (1u << 9))
    f |= ENC_CPU_SSSE3;
  if (c & (1u << 19))
    f |= ENC_CPU_SSE41;
  if (c & (1u << 23))
    f |= ENC_CPU_POPCNT;
  int os_avx = 0, os_avx512 = 0;
  if ((c & (1u << 27)) && (c & (1u << 28))) { // OSXSAVE and AVX
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    os_avx = (lo & 6) == 6;          // XMM and YMM state enabled by the OS
    os_avx512 = (lo & 0xE6) == 0xE6; // and the opmask and ZMM state too
  }
  if ((unsigned)__get_cpuid_max(0, NULL) >= 7u) {
    __cpuid_count(7, 0, a, b, c, d);
    if ((b & (1u << 5)) && os_avx)
      f |= ENC_CPU_AVX2;
    // AVX-512 F (EBX 16), BW (EBX 30), VBMI (ECX 1) and VBMI2 (ECX 6).
    if ((b & (1u << 16)) && (b & (1u << 30)) && (c & (1u << 1)) && (c & (1u << 6)) && os_avx512)
      f |= ENC_CPU_AVX512VBMI2;
    if (b & (1u << 3))
      f |= ENC_CPU_BMI1;
    if (b & (1u << 8))
      f |= ENC_CPU_BMI2;
  }
  if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000001u) {
    __cpuid(0x80000001u, a, b, c, d);
    if (c & (1u << 5))
      f |= ENC_CPU_LZCNT;
  }
  return f;
}
#elif defined(__aarch64__)
static uint32_t detect(void) {
  return ENC_CPU_NEON;
}
#else
static uint32_t detect(void) {
  return 0;
}
#endif

// Bits the compiler may assume for the whole library (BoringSSL's
// CRYPTO_is_AVX2_capable idea): no run-time check needed for them.
static const uint32_t assumed = 0
#if defined(__AVX2__)
                                | ENC_CPU_AVX2
#endif
#if defined(__SSE4_1__)
                                | ENC_CPU_SSE41
#endif
#if defined(__SSSE3__)
                                | ENC_CPU_SSSE3
#endif
    ;

uint32_t enc_cpu_features(void) {
  // 0 is never a valid cache value: bit 31 marks "detected".
  static atomic_uint_fast32_t cache;
  uint32_t f = (uint32_t)atomic_load_explicit(&cache, memory_order_relaxed);
  if (f == 0) {
    f = (detect() | assumed) | 0x80000000u;
    atomic_store_explicit(&cache, f, memory_order_relaxed);
  }
  return f & 0x7fffffffu;
}
