// mlkem_avx2.c: the ML-KEM polynomial kernels of the "avx2" entry of impl.c
// (NTT, inverse NTT, base-case products into 32-bit sums, and their
// Montgomery reduction), sixteen 16-bit coefficients per vector. They perform
// the butterflies and reductions of the scalar kernels in mlkem.c, only
// sixteen at a time, so their outputs are bit for bit the scalar outputs
// (test_impl and fuzz_impl check this). A Montgomery product is the high half
// of a·z minus the high half of t·q with t = a·(z·q^-1) mod 2^16, which
// equals the scalar (a·z − t·q) / 2^16 exactly because both products agree
// in their low halves. The layers that pair whole vectors (distance 16 and
// more) use one broadcast twiddle per block; for the three layers within a
// vector, the polynomial is transposed as a 16x16 matrix so that those
// butterflies pair whole vectors too, with per-lane twiddles, and transposed
// back. No data-dependent branch or index.
#include <immintrin.h>

#include "impl_internal.h"

#define Q MC_MLKEM_Q
// INVNTT_SCALE of mlkem.c, and the same times q^-1 mod 2^16.
#define INVNTT_SCALE 1441

// Twiddles, generated from mc_mlkem_zetas (17^BitRev7(i) · 2^16 mod q,
// centred). zetas_low are entries 0..15 for the layers of distance 16 and
// more. In the transposed form (vector j, lane i holds coefficient 16i + j)
// fwd_lanes holds the forward layers' lane twiddles: distance 8
// (zetas[16 + i]), 4 (zetas[32 + 2i + h], h = 0 for vectors 0-3, 1 for
// 8-11) and 2 (zetas[64 + 4i + m] for vectors 4m and 4m + 1); inv_lanes the
// inverse layers': distance 2 (zetas[127 − 4i − m]), 4 (zetas[63 − 2i − h])
// and 8 (zetas[31 − i]). The *_qinv tables hold each times q^-1 mod 2^16.
static const int16_t zetas_low[16] = {-1044, -758, -359, -1517, 1493, 1422,  287,   202,
                                      -171,  622,  1577, 182,   962,  -1202, -1474, 1468};
static const int16_t zetas_low_qinv[16] = {-20,   31498,  14745,  787,   13525, -12402,
                                           28191, -16694, -20907, 27758, -3799, -15690,
                                           10690, 1358,   -11202, 31164};
static const int16_t fwd_lanes[7][16] = {
    {573, -1325, 264, 383, -829, 1458, -1602, -130, -681, 1017, 732, 608, -1542, 411, -205, -1571},
    {1223, -552, -1293, -282, 516, -320, -1618, 126, -853, -271, 107, -247, -398, -1508, 448, 677},
    {652, 1015, 1491, -1544, -8, -666, -1162, 1469, -90, 830, -1421, -951, 961, -725, -1065, -1275},
    {-1103, -1251, 422, -291, -246, -777, -1590, 418, 817, 1322, -1215, -874, -1185, -1510, -108,
     958},
    {430, 871, 587, -460, 778, 1483, 644, 329, 1097, -1285, -136, 220, -1530, -854, -308, -1460},
    {555, 1550, 177, 1574, 1159, -602, -872, -156, 603, -1465, 1218, -1187, -1278, -870, 996, 1522},
    {843, 105, -235, 1653, -147, 1119, 349, -75, 610, 384, -1335, -1659, 794, 478, 991, 1628},
};
static const int16_t fwd_lanes_qinv[7][16] = {
    {-5827, 17363, -26360, -29057, 5571, -1102, 21438, -26242, -28073, 24313, -10532, 8800, 18426,
     8859, 26675, -16163},
    {-5689, 1496, -23565, 20710, -12796, 16064, 9134, -25986, 19883, -15887, -28309, -30199, 13426,
     -29156, 16832, -24155},
    {-6516, 30967, 20179, 25080, 26616, -12442, -650, 27837, -28250, -8898, 9075, 18249, 14017,
     -12757, 4311, -17915},
    {-335, -32227, -27738, -14883, 32010, 29175, -18486, -14430, -31183, -7382, -20927, 24214,
     10335, -22502, 31636, 23998},
    {11182, -14233, 13131, 23092, -32502, -18741, 20100, 19529, 20297, 15355, -6280, -11044, -21498,
     23210, -23860, 7756},
    {-11477, 20494, 945, 6182, 10631, -28762, 17560, -5276, 25435, 24391, 10946, 16989, -7934,
     10906, 28644, -17422},
    {13387, -21655, -4587, 5493, 30317, 12639, 18525, -12619, 2146, -32384, -14903, 14469, -20198,
     -17442, -20257, 23132},
};
static const int16_t inv_lanes[7][16] = {
    {1628, 991, 478, 794, -1659, -1335, 384, 610, -75, 349, 1119, -147, 1653, -235, 105, 843},
    {1522, 996, -870, -1278, -1187, 1218, -1465, 603, -156, -872, -602, 1159, 1574, 177, 1550, 555},
    {-1460, -308, -854, -1530, 220, -136, -1285, 1097, 329, 644, 1483, 778, -460, 587, 871, 430},
    {958, -108, -1510, -1185, -874, -1215, 1322, 817, 418, -1590, -777, -246, -291, 422, -1251,
     -1103},
    {-1275, -1065, -725, 961, -951, -1421, 830, -90, 1469, -1162, -666, -8, -1544, 1491, 1015, 652},
    {677, 448, -1508, -398, -247, 107, -271, -853, 126, -1618, -320, 516, -282, -1293, -552, 1223},
    {-1571, -205, 411, -1542, 608, 732, 1017, -681, -130, -1602, 1458, -829, 383, 264, -1325, 573},
};
static const int16_t inv_lanes_qinv[7][16] = {
    {23132, -20257, -17442, -20198, 14469, -14903, -32384, 2146, -12619, 18525, 12639, 30317, 5493,
     -4587, -21655, 13387},
    {-17422, 28644, 10906, -7934, 16989, 10946, 24391, 25435, -5276, 17560, -28762, 10631, 6182,
     945, 20494, -11477},
    {7756, -23860, 23210, -21498, -11044, -6280, 15355, 20297, 19529, 20100, -18741, -32502, 23092,
     13131, -14233, 11182},
    {23998, 31636, -22502, 10335, 24214, -20927, -7382, -31183, -14430, -18486, 29175, 32010,
     -14883, -27738, -32227, -335},
    {-17915, 4311, -12757, 14017, 18249, 9075, -8898, -28250, 27837, -650, -12442, 26616, 25080,
     20179, 30967, -6516},
    {-24155, 16832, -29156, 13426, -30199, -28309, -15887, 19883, -25986, 9134, 16064, -12796,
     20710, -23565, 1496, -5689},
    {-16163, 26675, 8859, 18426, 8800, -10532, 24313, -28073, -26242, 21438, -1102, 5571, -29057,
     -26360, 17363, -5827},
};
#define INVNTT_SCALE_QINV (-10079)

// fqmul returns b · z · 2^-16 mod q in (−q, q) per lane, zq = z · q^-1 mod
// 2^16 (mc_mlkem_fqmul).
static inline __m256i fqmul(__m256i b, __m256i z, __m256i zq) {
  const __m256i q = _mm256_set1_epi16(Q);
  __m256i t = _mm256_mullo_epi16(b, zq);
  return _mm256_sub_epi16(_mm256_mulhi_epi16(b, z), _mm256_mulhi_epi16(t, q));
}

// barrett is mc_mlkem_barrett_reduce per lane: t = floor((20159·a + 2^25) /
// 2^26), computed as floor((floor(20159·a / 2^16) + 2^9) / 2^10), which is
// the same integer; then a − t·q.
static inline __m256i barrett(__m256i a) {
  const __m256i q = _mm256_set1_epi16(Q);
  __m256i h = _mm256_mulhi_epi16(a, _mm256_set1_epi16(20159));
  __m256i t = _mm256_srai_epi16(_mm256_add_epi16(h, _mm256_set1_epi16(512)), 10);
  return _mm256_sub_epi16(a, _mm256_mullo_epi16(t, q));
}

// transpose8_lanes transposes, within each 128-bit half independently, the
// 8x8 matrix of 16-bit values whose rows are x[0..7].
static inline void transpose8_lanes(__m256i x[8]) {
  __m256i a0 = _mm256_unpacklo_epi16(x[0], x[1]), a1 = _mm256_unpackhi_epi16(x[0], x[1]);
  __m256i a2 = _mm256_unpacklo_epi16(x[2], x[3]), a3 = _mm256_unpackhi_epi16(x[2], x[3]);
  __m256i a4 = _mm256_unpacklo_epi16(x[4], x[5]), a5 = _mm256_unpackhi_epi16(x[4], x[5]);
  __m256i a6 = _mm256_unpacklo_epi16(x[6], x[7]), a7 = _mm256_unpackhi_epi16(x[6], x[7]);
  __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
  __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
  __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
  __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
  x[0] = _mm256_unpacklo_epi64(b0, b4), x[1] = _mm256_unpackhi_epi64(b0, b4);
  x[2] = _mm256_unpacklo_epi64(b1, b5), x[3] = _mm256_unpackhi_epi64(b1, b5);
  x[4] = _mm256_unpacklo_epi64(b2, b6), x[5] = _mm256_unpackhi_epi64(b2, b6);
  x[6] = _mm256_unpacklo_epi64(b3, b7), x[7] = _mm256_unpackhi_epi64(b3, b7);
}

// transpose16 transposes the 16x16 matrix of 16-bit values whose rows are
// r[0..15]; it is its own inverse. Seen as 8x8 blocks [A B; C D], row j < 8
// of the result is [Aᵀ row j, Cᵀ row j] and row 8 + j is [Bᵀ row j, Dᵀ row
// j]: pairing the halves first leaves in-lane 8x8 transposes.
static inline void transpose16(__m256i r[16]) {
  __m256i x[8], y[8];
  for (unsigned i = 0; i < 8; i++) {
    x[i] = _mm256_permute2x128_si256(r[i], r[8 + i], 0x20);
    y[i] = _mm256_permute2x128_si256(r[i], r[8 + i], 0x31);
  }
  transpose8_lanes(x);
  transpose8_lanes(y);
  for (unsigned i = 0; i < 8; i++) {
    r[i] = x[i];
    r[8 + i] = y[i];
  }
}

static inline __m256i load_row(const int16_t row[16]) {
  return _mm256_loadu_si256((const __m256i *)(const void *)row);
}

// Forward butterfly: (a, b) <- (a + z·b, a − z·b).
static inline void ct_butterfly(__m256i *a, __m256i *b, __m256i z, __m256i zq) {
  __m256i t = fqmul(*b, z, zq);
  *b = _mm256_sub_epi16(*a, t);
  *a = _mm256_add_epi16(*a, t);
}

// Inverse butterfly: (a, b) <- (barrett(a + b), z·(b − a)).
static inline void gs_butterfly(__m256i *a, __m256i *b, __m256i z, __m256i zq) {
  __m256i t = *a;
  *a = barrett(_mm256_add_epi16(t, *b));
  *b = fqmul(_mm256_sub_epi16(*b, t), z, zq);
}

void mc_mlkem_ntt_avx2(mc_mlkem_poly *p) {
  __m256i *v = (__m256i *)(void *)p->coeffs;
  __m256i r[16];
  for (unsigned j = 0; j < 16; j++)
    r[j] = _mm256_loadu_si256(v + j);
  // Distances 128 down to 16 coefficients (8 down to 1 vectors), zetas[1..15].
  unsigned k = 1;
  for (unsigned dist = 8; dist >= 1; dist >>= 1) {
    for (unsigned start = 0; start < 16; start += 2 * dist, k++) {
      __m256i z = _mm256_set1_epi16(zetas_low[k]), zq = _mm256_set1_epi16(zetas_low_qinv[k]);
      for (unsigned j = start; j < start + dist; j++)
        ct_butterfly(&r[j], &r[j + dist], z, zq);
    }
  }
  // Distances 8, 4 and 2 in the transposed form.
  transpose16(r);
  __m256i z = load_row(fwd_lanes[0]), zq = load_row(fwd_lanes_qinv[0]);
  for (unsigned j = 0; j < 8; j++)
    ct_butterfly(&r[j], &r[j + 8], z, zq);
  for (unsigned h = 0; h < 2; h++) {
    z = load_row(fwd_lanes[1 + h]), zq = load_row(fwd_lanes_qinv[1 + h]);
    for (unsigned j = 8 * h; j < 8 * h + 4; j++)
      ct_butterfly(&r[j], &r[j + 4], z, zq);
  }
  for (unsigned m = 0; m < 4; m++) {
    z = load_row(fwd_lanes[3 + m]), zq = load_row(fwd_lanes_qinv[3 + m]);
    ct_butterfly(&r[4 * m], &r[4 * m + 2], z, zq);
    ct_butterfly(&r[4 * m + 1], &r[4 * m + 3], z, zq);
  }
  transpose16(r);
  for (unsigned j = 0; j < 16; j++)
    _mm256_storeu_si256(v + j, barrett(r[j]));
}

void mc_mlkem_invntt_avx2(mc_mlkem_poly *p) {
  __m256i *v = (__m256i *)(void *)p->coeffs;
  __m256i r[16];
  for (unsigned j = 0; j < 16; j++)
    r[j] = _mm256_loadu_si256(v + j);
  // Distances 2, 4 and 8 in the transposed form.
  transpose16(r);
  __m256i z, zq;
  for (unsigned m = 0; m < 4; m++) {
    z = load_row(inv_lanes[m]), zq = load_row(inv_lanes_qinv[m]);
    gs_butterfly(&r[4 * m], &r[4 * m + 2], z, zq);
    gs_butterfly(&r[4 * m + 1], &r[4 * m + 3], z, zq);
  }
  for (unsigned h = 0; h < 2; h++) {
    z = load_row(inv_lanes[4 + h]), zq = load_row(inv_lanes_qinv[4 + h]);
    for (unsigned j = 8 * h; j < 8 * h + 4; j++)
      gs_butterfly(&r[j], &r[j + 4], z, zq);
  }
  z = load_row(inv_lanes[6]), zq = load_row(inv_lanes_qinv[6]);
  for (unsigned j = 0; j < 8; j++)
    gs_butterfly(&r[j], &r[j + 8], z, zq);
  transpose16(r);
  // Distances 16 to 128 coefficients with zetas[15..1], as in the scalar loop.
  unsigned k = 16;
  for (unsigned dist = 1; dist <= 8; dist <<= 1) {
    for (unsigned start = 0; start < 16; start += 2 * dist) {
      k--;
      z = _mm256_set1_epi16(zetas_low[k]), zq = _mm256_set1_epi16(zetas_low_qinv[k]);
      for (unsigned j = start; j < start + dist; j++)
        gs_butterfly(&r[j], &r[j + dist], z, zq);
    }
  }
  z = _mm256_set1_epi16(INVNTT_SCALE), zq = _mm256_set1_epi16(INVNTT_SCALE_QINV);
  for (unsigned j = 0; j < 16; j++)
    _mm256_storeu_si256(v + j, fqmul(r[j], z, zq));
}

void mc_mlkem_basemul_acc_avx2(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a,
                               const mc_mlkem_poly *b, const mc_mlkem_mulcache *cache) {
  // Per pair i: acc[2i] += a0·b0 + a1·cache[i], acc[2i + 1] += a0·b1 + a1·b0,
  // each a VPMADDWD of (a0, a1) with (b0, cache[i]) or (b1, b0).
  const __m256i *va = (const __m256i *)(const void *)a->coeffs;
  const __m256i *vb = (const __m256i *)(const void *)b->coeffs;
  __m256i *vacc = (__m256i *)(void *)acc;
  for (unsigned blk = 0; blk < 16; blk++) {
    __m256i x = _mm256_loadu_si256(va + blk), y = _mm256_loadu_si256(vb + blk);
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(cache->coeffs + 8 * blk));
    __m256i c_high = _mm256_slli_epi32(_mm256_cvtepi16_epi32(c), 16);
    __m256i y_even = _mm256_blend_epi16(y, c_high, 0xaa);
    __m256i y_swap = _mm256_or_si256(_mm256_slli_epi32(y, 16), _mm256_srli_epi32(y, 16));
    __m256i even = _mm256_madd_epi16(x, y_even), odd = _mm256_madd_epi16(x, y_swap);
    __m256i lo = _mm256_unpacklo_epi32(even, odd), hi = _mm256_unpackhi_epi32(even, odd);
    __m256i out0 = _mm256_permute2x128_si256(lo, hi, 0x20);
    __m256i out1 = _mm256_permute2x128_si256(lo, hi, 0x31);
    _mm256_storeu_si256(vacc + 2 * blk, _mm256_add_epi32(_mm256_loadu_si256(vacc + 2 * blk), out0));
    _mm256_storeu_si256(vacc + 2 * blk + 1,
                        _mm256_add_epi32(_mm256_loadu_si256(vacc + 2 * blk + 1), out1));
  }
}

// mont32 is mc_mlkem_montgomery_reduce on eight 32-bit lanes: t is the
// sign-extended low half of a·q^-1, then (a − t·q) / 2^16.
static inline __m256i mont32(__m256i a) {
  __m256i t = _mm256_mullo_epi32(a, _mm256_set1_epi32(MC_MLKEM_QINV));
  t = _mm256_srai_epi32(_mm256_slli_epi32(t, 16), 16);
  return _mm256_srai_epi32(_mm256_sub_epi32(a, _mm256_mullo_epi32(t, _mm256_set1_epi32(Q))), 16);
}

void mc_mlkem_acc_reduce_avx2(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]) {
  const __m256i *vacc = (const __m256i *)(const void *)acc;
  __m256i *v = (__m256i *)(void *)r->coeffs;
  for (unsigned blk = 0; blk < 16; blk++) {
    __m256i x0 = mont32(_mm256_loadu_si256(vacc + 2 * blk));
    __m256i x1 = mont32(_mm256_loadu_si256(vacc + 2 * blk + 1));
    // The results lie in (−q, q), so the saturating pack is exact; it
    // interleaves 128-bit halves, which the permutation puts back in order.
    __m256i packed = _mm256_packs_epi32(x0, x1);
    _mm256_storeu_si256(v + blk, _mm256_permute4x64_epi64(packed, 0xd8));
  }
}
