// neon.c: the NEON scanner for aarch64: the shared algorithms of
// scan_kernels.h with four 16-byte compares per 64-byte block. NEON has no
// byte movemask, so each compare result keeps one weight bit per byte lane
// and three rounds of pairwise additions pack the 64 lanes into 64 bits.
#include <arm_neon.h>

#include "corvid_cpu.h"
#include "scan_kernels.h"

static inline uint64_t neon_pack(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d) {
  static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t w = vld1q_u8(weights);
  uint8x16_t ab = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
  uint8x16_t cd = vpaddq_u8(vandq_u8(c, w), vandq_u8(d, w));
  uint8x16_t all = vpaddq_u8(ab, cd);
  all = vpaddq_u8(all, all);
  return vgetq_lane_u64(vreinterpretq_u64_u8(all), 0);
}

static inline uint64_t neon_eq(const uint8_t *p, uint8_t c) {
  uint8x16_t v = vdupq_n_u8(c);
  return neon_pack(vceqq_u8(vld1q_u8(p), v), vceqq_u8(vld1q_u8(p + 16), v),
                   vceqq_u8(vld1q_u8(p + 32), v), vceqq_u8(vld1q_u8(p + 48), v));
}

// neon_odd marks NUL and bytes >= 0x80 at once: as signed bytes, those are
// exactly the ones at or below 0.
static inline uint64_t neon_odd(const uint8_t *p) {
  int8x16_t z = vdupq_n_s8(0);
  return neon_pack(vcleq_s8(vld1q_s8((const int8_t *)p), z),
                   vcleq_s8(vld1q_s8((const int8_t *)(p + 16)), z),
                   vcleq_s8(vld1q_s8((const int8_t *)(p + 32)), z),
                   vcleq_s8(vld1q_s8((const int8_t *)(p + 48)), z));
}

static bool neon_utf8_valid(const uint8_t *buf, size_t len) {
  return mp_k_utf8_valid(buf, len, neon_odd);
}

MP_SCANNER_DEFINE(neon, CORVID_CPU_NEON, neon_eq, neon_odd, neon_utf8_valid);
