// rsa_ifma.c: the almost-Montgomery product of rsa_r52_internal.h on
// AVX-512 IFMA, for x86-64 CPUs with AVX-512 F and IFMA (Ice Lake, Zen 4
// and later), compiled with the "ifma" flags of meson.build. It is
// rsa_r52.c's operand-scanning product with eight limbs per 512-bit
// register: each step multiplies all of a and all of n by one broadcast
// limb (vpmadd52luq for the low 52 bits of each product, vpmadd52huq for
// the high ones), takes the reduction factor y from the lowest lane, and
// drops that lane by shifting the whole accumulator one lane down (valignq
// across the registers). Lanes stay unnormalised, exactly as in the scalar
// code, and carries are propagated once at the end. Nothing branches on or
// indexes by the values: the loops run on the limb count only. The common sizes (2048, 3072, 4096,
// 6144 and 8192 bits: 40, 64, 80, 120 and 160 limbs) get their own
// unrolled copies, whose accumulators live in registers (or, past 32 of
// them, in stack slots the compiler chooses); other sizes run the same
// code with the register count a variable, slower.
//
// The step is arranged around the one serial dependency: y of step i+1
// needs lane 0 after step i. Everything that does not need y (the products
// by b_i) is computed off that path, y itself is computed and broadcast in
// the vector unit (a multiply-add by k0 of lane 0, then vpbroadcastq)
// rather than through a general register, and the high halves of the
// products are gathered in separate registers and added after the lanes
// move down, so the path is an addition, two multiply-adds, a broadcast, a
// lane shift and an addition per step.
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "msgcrypt_internal.h"
#include "rsa_r52_internal.h"

#define MAX_BLOCKS (MC_R52_MAX_LIMBS / 8)

// UNROLL asks for the loops over the registers to be unrolled completely
// when their count is a constant, so that the accumulators stay in
// registers (GCC stops at about 16 copies on its own).
#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
// amm_any's copy has a variable count, which cannot unroll: not a fault.
#pragma clang diagnostic ignored "-Wpass-failed"
#elif defined(__GNUC__)
#define UNROLL _Pragma("GCC unroll 32")
#else
#define UNROLL
#endif

// amm_blocks is mc_r52_amm_ifma for `blocks` registers of 8 limbs; inlined
// with a constant `blocks` it unrolls completely.
static inline __attribute__((always_inline)) void amm_blocks(uint64_t *r, const uint64_t *a,
                                                             const uint64_t *b, const uint64_t *n,
                                                             uint64_t k0, size_t blocks) {
  const __m512i zero = _mm512_setzero_si512(), kv = _mm512_set1_epi64((long long)k0);
  __m512i acc[MAX_BLOCKS], w[MAX_BLOCKS];
  UNROLL for (size_t j = 0; j < blocks; j++) {
    acc[j] = zero;
  }
  for (size_t i = 0; i < 8 * blocks; i++) {
    // The products by b_i do not wait for y; the high halves wait in w.
    // Block 0 is on the path to y, so its low halves join with one
    // addition rather than a 4-cycle multiply-add; the other blocks have
    // time for the multiply-add while y is computed.
    __m512i bi = _mm512_set1_epi64((long long)b[i]);
    __m512i a0 = _mm512_loadu_si512(a);
    acc[0] = _mm512_add_epi64(acc[0], _mm512_madd52lo_epu64(zero, a0, bi));
    w[0] = _mm512_madd52hi_epu64(zero, a0, bi);
    UNROLL for (size_t j = 1; j < blocks; j++) {
      __m512i aj = _mm512_loadu_si512(a + 8 * j);
      acc[j] = _mm512_madd52lo_epu64(acc[j], aj, bi);
      w[j] = _mm512_madd52hi_epu64(zero, aj, bi);
    }
    // y = lane 0 · k0 mod 2^52, computed and broadcast in the vector unit.
    __m512i y = _mm512_madd52lo_epu64(zero, acc[0], kv);
    y = _mm512_broadcastq_epi64(_mm512_castsi512_si128(y));
    UNROLL for (size_t j = 0; j < blocks; j++) {
      __m512i nj = _mm512_loadu_si512(n + 8 * j);
      acc[j] = _mm512_madd52lo_epu64(acc[j], nj, y);
      w[j] = _mm512_madd52hi_epu64(w[j], nj, y);
    }
    // Lane 0 is now 0 mod 2^52: its carry goes to the new lane 0, and the
    // high halves, which belong one lane up, land where the lanes move to.
    w[0] = _mm512_add_epi64(w[0], _mm512_maskz_srli_epi64(1, acc[0], 52));
    UNROLL for (size_t j = 0; j + 1 < blocks; j++) {
      acc[j] = _mm512_add_epi64(_mm512_alignr_epi64(acc[j + 1], acc[j], 1), w[j]);
    }
    acc[blocks - 1] =
        _mm512_add_epi64(_mm512_alignr_epi64(zero, acc[blocks - 1], 1), w[blocks - 1]);
  }
  uint64_t t[MC_R52_MAX_LIMBS];
  UNROLL for (size_t j = 0; j < blocks; j++) {
    _mm512_storeu_si512(t + 8 * j, acc[j]);
  }
  uint64_t c = 0;
  for (size_t j = 0; j < 8 * blocks; j++) {
    uint64_t v = t[j] + c;
    r[j] = v & MC_R52_MASK;
    c = v >> 52;
  }
  mc_wipe(t, 8 * blocks * sizeof *t);
}

static void amm_40(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                   uint64_t k0) {
  amm_blocks(r, a, b, n, k0, 5);
}

static void amm_64(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                   uint64_t k0) {
  amm_blocks(r, a, b, n, k0, 8);
}

static void amm_80(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                   uint64_t k0) {
  amm_blocks(r, a, b, n, k0, 10);
}

static void amm_120(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                    uint64_t k0) {
  amm_blocks(r, a, b, n, k0, 15);
}

static void amm_160(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                    uint64_t k0) {
  amm_blocks(r, a, b, n, k0, 20);
}

static void __attribute__((noinline)) amm_any(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                              const uint64_t *n, uint64_t k0, size_t num) {
  amm_blocks(r, a, b, n, k0, num / 8);
}

void mc_r52_amm_ifma(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                     uint64_t k0, size_t num) {
  switch (num) { // public: the modulus's size
  case 40:
    amm_40(r, a, b, n, k0);
    break;
  case 64:
    amm_64(r, a, b, n, k0);
    break;
  case 80:
    amm_80(r, a, b, n, k0);
    break;
  case 120:
    amm_120(r, a, b, n, k0);
    break;
  case 160:
    amm_160(r, a, b, n, k0);
    break;
  default:
    amm_any(r, a, b, n, k0, num);
    break;
  }
}
