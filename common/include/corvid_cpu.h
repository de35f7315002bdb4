// corvid_cpu.h: private, header-only CPU feature detection shared by the
// libraries' dispatch tables (CONVENTIONS §6). Each library keeps its own
// cache and its own table; this header only answers "what does this CPU do".
// On x86-64 it asks CPUID and checks with XGETBV that the operating system
// saves the YMM state before it reports AVX2; features the compiler was told
// to assume (e.g. -mavx2) collapse to constants. aarch64 always has NEON
// (Advanced SIMD is part of the base architecture).
#ifndef CORVID_CPU_H
#define CORVID_CPU_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CORVID_CPU_SSE2 (1u << 0)
#define CORVID_CPU_SSSE3 (1u << 1)
#define CORVID_CPU_SSE41 (1u << 2)
#define CORVID_CPU_POPCNT (1u << 3)
#define CORVID_CPU_AVX2 (1u << 4)
#define CORVID_CPU_BMI1 (1u << 5)
#define CORVID_CPU_BMI2 (1u << 6)
#define CORVID_CPU_LZCNT (1u << 7)
#define CORVID_CPU_AESNI (1u << 8)
#define CORVID_CPU_PCLMUL (1u << 9)
#define CORVID_CPU_VAES (1u << 10)       // VAES on YMM registers (needs AVX2's OS support)
#define CORVID_CPU_VPCLMULQDQ (1u << 11) // VPCLMULQDQ on YMM registers (likewise)
// AVX-512 F, BW, VBMI and VBMI2 together, with OS support for the opmask
// and ZMM state (Ice Lake and later): the level libencodify's avx512 needs.
#define CORVID_CPU_AVX512VBMI2 (1u << 12)
#define CORVID_CPU_ADX (1u << 13) // adcx/adox
#define CORVID_CPU_SHA (1u << 14) // SHA-NI (SHA-1 and SHA-256 rounds on XMM registers)
// AVX-512 F and BW with OS support for the opmask and ZMM state (Skylake-X
// and later): enough for byte compares into masks and word permutes, all
// that libmailparse's avx512 scanner uses, so it need not wait for VBMI2.
#define CORVID_CPU_AVX512BW (1u << 15)
#define CORVID_CPU_NEON (1u << 16)
// AVX-512 F, VL and IFMA (52-bit multiply-add) with OS support for the
// opmask and ZMM state (Ice Lake, Zen 4 and later): libmsgcrypt's RSA
// public operation in radix 2^52.
#define CORVID_CPU_AVX512IFMA (1u << 17)

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static inline uint32_t corvid_cpu_probe(void) {
  uint32_t f = 0;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return 0;
  if (d & (1u << 26))
    f |= CORVID_CPU_SSE2;
  if (c & (1u << 1))
    f |= CORVID_CPU_PCLMUL;
  if (c & (1u << 9))
    f |= CORVID_CPU_SSSE3;
  if (c & (1u << 19))
    f |= CORVID_CPU_SSE41;
  if (c & (1u << 23))
    f |= CORVID_CPU_POPCNT;
  if (c & (1u << 25))
    f |= CORVID_CPU_AESNI;
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
      f |= CORVID_CPU_AVX2;
    if (b & (1u << 3))
      f |= CORVID_CPU_BMI1;
    if (b & (1u << 8))
      f |= CORVID_CPU_BMI2;
    // Leaf 7 ECX: VAES (bit 9), VPCLMULQDQ (bit 10); their 256-bit forms
    // need the YMM state, as AVX2 does.
    if ((c & (1u << 9)) && os_avx)
      f |= CORVID_CPU_VAES;
    if ((c & (1u << 10)) && os_avx)
      f |= CORVID_CPU_VPCLMULQDQ;
    // ADX (EBX 19) and SHA (EBX 29): plain and SSE instructions, no OS state.
    if (b & (1u << 19))
      f |= CORVID_CPU_ADX;
    if (b & (1u << 29))
      f |= CORVID_CPU_SHA;
    // AVX-512 F (EBX 16), BW (EBX 30), VBMI (ECX 1) and VBMI2 (ECX 6).
    if ((b & (1u << 16)) && (b & (1u << 30)) && os_avx512)
      f |= CORVID_CPU_AVX512BW;
    if ((b & (1u << 16)) && (b & (1u << 30)) && (c & (1u << 1)) && (c & (1u << 6)) && os_avx512)
      f |= CORVID_CPU_AVX512VBMI2;
    // AVX-512 IFMA (EBX 21) and VL (EBX 31), with F and the ZMM state.
    if ((b & (1u << 16)) && (b & (1u << 21)) && (b & (1u << 31)) && os_avx512)
      f |= CORVID_CPU_AVX512IFMA;
  }
  if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000001u) {
    __cpuid(0x80000001u, a, b, c, d);
    if (c & (1u << 5))
      f |= CORVID_CPU_LZCNT;
  }
  return f;
}
#elif defined(__aarch64__)
static inline uint32_t corvid_cpu_probe(void) {
  return CORVID_CPU_NEON;
}
#else
static inline uint32_t corvid_cpu_probe(void) {
  return 0;
}
#endif

// Bits the compiler may assume for the whole translation unit (BoringSSL's
// CRYPTO_is_AVX2_capable idea): no run-time check needed for them.
#define CORVID_CPU_ASSUMED                                                                         \
  (0u | (CORVID_CPU_ASSUMED_SSE2_) | (CORVID_CPU_ASSUMED_AVX2_) | (CORVID_CPU_ASSUMED_SSE41_) |    \
   (CORVID_CPU_ASSUMED_SSSE3_))
#if defined(__SSE2__)
#define CORVID_CPU_ASSUMED_SSE2_ CORVID_CPU_SSE2
#else
#define CORVID_CPU_ASSUMED_SSE2_ 0u
#endif
#if defined(__AVX2__)
#define CORVID_CPU_ASSUMED_AVX2_ CORVID_CPU_AVX2
#else
#define CORVID_CPU_ASSUMED_AVX2_ 0u
#endif
#if defined(__SSE4_1__)
#define CORVID_CPU_ASSUMED_SSE41_ CORVID_CPU_SSE41
#else
#define CORVID_CPU_ASSUMED_SSE41_ 0u
#endif
#if defined(__SSSE3__)
#define CORVID_CPU_ASSUMED_SSSE3_ CORVID_CPU_SSSE3
#else
#define CORVID_CPU_ASSUMED_SSSE3_ 0u
#endif

// corvid_cpu_features returns the CORVID_CPU_* bits of this CPU, detected
// once per cache: each library passes its own static `cache` (zero at
// start). Bit 31 marks a filled cache, so 0 is never a cached value; races
// only repeat the same detection.
static inline uint32_t corvid_cpu_features(atomic_uint_fast32_t *cache) {
  uint32_t f = (uint32_t)atomic_load_explicit(cache, memory_order_relaxed);
  if (f == 0) {
    f = (corvid_cpu_probe() | CORVID_CPU_ASSUMED) | 0x80000000u;
    atomic_store_explicit(cache, f, memory_order_relaxed);
  }
  return f & 0x7fffffffu;
}

#endif // CORVID_CPU_H
