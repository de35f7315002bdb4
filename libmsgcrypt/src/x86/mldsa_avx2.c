// mldsa_avx2.c: the ML-DSA polynomial kernels of the "avx2" entry of impl.c
// (NTT, inverse NTT, pointwise products), eight 32-bit coefficients per
// vector. They perform the same butterflies and the same Montgomery
// reductions as the scalar ones in mldsa_poly.c, only eight at a time, so
// their outputs are bit for bit the scalar outputs (test_impl checks this).
// A Montgomery product takes the even and the odd lanes separately through
// the 32x32->64-bit VPMULDQ. The layers whose butterflies pair whole
// vectors (distance 8 and more) use one broadcast twiddle per block; for the
// three layers within a vector, each group of 64 coefficients is transposed
// as an 8x8 matrix so that those butterflies pair whole vectors too, with
// per-lane twiddles from the tables below, and transposed back. No
// data-dependent branch or index.
#include <immintrin.h>

#include "corvid_cpu.h"
#include "impl_internal.h"

#define Q MC_MLDSA_Q
#define QINV 58728449 // q^-1 mod 2^32
// The inverse NTT's last layer with the 1/256 scaling folded in; see
// INVNTT_F and INVNTT_ZETA in mldsa_poly.c, and the same times q^-1 mod 2^32.
#define INVNTT_F 41978
#define INVNTT_F_QINV (-8395782)
#define INVNTT_ZETA 3975713
#define INVNTT_ZETA_QINV 151046689

// Twiddles, generated from mldsa_poly.c's zetas[] (ζ^BitRev8(k) · 2^32 mod
// q, centred). fwd_lanes holds, per group g of 64 coefficients (rows 7g to
// 7g + 6), the lane twiddles of the forward layers of distance 4 (zetas[32 +
// 8g + i] in lane i), 2 (zetas[64 + 16g + 2i], then zetas[64 + 16g + 2i + 1])
// and 1 (zetas[128 + 32g + 4i + m], m = 0..3); inv_lanes the negated
// twiddles the inverse layers of distance 1 (−zetas[255 − (32g + 4i + m)]),
// 2 (−zetas[127 − (16g + 2i)], −zetas[127 − (16g + 2i + 1)]) and 4
// (−zetas[63 − (8g + i)]) use. The *_qinv tables hold each value times
// q^-1 mod 2^32 as a signed 32-bit number, which saves one product per
// reduction.
// zetas[k] for k < 32 (the layers that pair whole vectors), then the
// same times q^-1 mod 2^32 as signed 32-bit values.
static const int32_t zetas_low[32] = {
    -4186625, 25847,    -2608894, -518909,  237124,  -777960,  -876248, 466468,
    1826347,  2353451,  -359251,  -2091905, 3119733, -2884855, 3111497, 2680103,
    2725464,  1024112,  -1079900, 3585928,  -549488, -1119584, 2619752, -2108549,
    -2118186, -3859737, -1399561, -3277672, 1757237, -19422,   4010497, 280005};
static const int32_t zetas_low_qinv[32] = {
    -513,       1830765815, -1929875198, -1927777021, 1640767044,  1477910808,  1612161320,
    1640734244, 308362795,  -1815525077, -1374673747, -1091570561, -1929495947, 515185417,
    -285697463, 625853735,  1727305304,  2082316400,  -1364982364, 858240904,   1806278032,
    222489248,  -346752664, 684667771,   1654287830,  -878576921,  -1257667337, -748618600,
    329347125,  1837364258, -1443016191, -1170414139};
static const int32_t fwd_lanes[28][8] = {
    {2706023, 95776, 3077325, 3530437, -1661693, -3592148, -2537516, 3915439},
    {-3930395, -3677745, -1452451, 2176455, -1257611, -4083598, -3190144, -3632928},
    {-1528703, -3041255, 3475950, -1585221, 1939314, -1000202, -3157330, 126922},
    {2091667, -3342478, 266997, -3520352, 900702, 495491, -655327, -3556995},
    {3407706, 2244091, 2434439, -3759364, 1859098, -1613174, -3122442, -525098},
    {2316500, -2446433, -1235728, -1197226, 909542, -43260, 2031748, -768622},
    {3817976, -3562462, 3513181, -3193378, 819034, -522500, 3207046, -3595838},
    {-3861115, -3043716, 3574422, -2867647, 3539968, -300467, 2348700, -539299},
    {3412210, 2147896, -2967645, -411027, -671102, -22981, -381987, 1852771},
    {-983419, 2715295, -3693493, -2477047, -1228525, -1308169, 1349076, -1430430},
    {342297, 3437287, 2842341, 4055324, -3767016, -2994039, -1333058, -451100},
    {286988, -3342277, 2691481, 1247620, 1250494, 1869119, 1237275, 1312455},
    {-2437823, 1735879, -2590150, 2486353, 2635921, 1903435, -3318210, 3306115},
    {4108315, 203044, 1265009, 1595974, -3548272, -1050970, -1430225, -1962642},
    {-1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596},
    {-3343383, 508951, 44288, 904516, -3724342, 1653064, 2389356, 759969},
    {264944, 3097992, -1100098, 3958618, -8578, -3249728, -210977, -1316856},
    {-1279661, 1500165, -542412, -2584293, -2013608, 1957272, -3183426, 810149},
    {1917081, 777191, -2831860, -3724270, 2432395, 3369112, 162844, 1652634},
    {-2546312, 2235880, -1671176, 594136, 2454455, 185531, 1616392, -3694233},
    {-1374803, 3406031, -1846953, -3776993, -164721, -1207385, 3014001, -1799107},
    {811944, 531354, 954230, 3881043, 3900724, -2556880, 2071892, -2797779},
    {189548, 3159746, -2409325, 1315589, 1285669, -812732, -3019102, -3628969},
    {-3553272, -1851402, -177440, 1341330, -1584928, -1439742, -3881060, 3839961},
    {-3038916, 2213111, -426683, -1667432, -2939036, 183443, -554416, 3937738},
    {3523897, -975884, 1723600, -1104333, -2235985, -976891, 3919660, 1400424},
    {3866901, 1717735, -1803090, -260646, -420899, 1612842, -48306, -846154},
    {269760, 472078, 1910376, -3833893, -2286327, -3545687, -1362209, 1976782},
};
static const int32_t fwd_lanes_qinv[28][8] = {
    {-1846138265, -1631226336, -1404529459, 1838055109, 1594295555, -1076973524, -1898723372,
     -594436433},
    {-1574918427, 1350681039, -2143979939, 1599739335, -1285853323, -993005454, -1440787840,
     568627424},
    {-654783359, -1974159335, 1651689966, 140455867, -1039411342, 1955560694, 1529189038,
     -2131021878},
    {-898413, -1363460238, -605900043, 2027833504, 14253662, 1014493059, 863641633, 1819892093},
    {991903578, 912367099, -44694137, 1176904444, -421552614, -818371958, 1747917558, -325927722},
    {1363007700, 30313375, -326425360, 1683520342, -517299994, 2027935492, -1372618620, 128353682},
    {746144248, -1420958686, 2032221021, 1904936414, 1257750362, 1926727420, 1931587462,
     1258381762},
    {-202001019, -475984260, -561427818, 1797021249, -1061813248, 2059733581, -1661512036,
     -1104976547},
    {-783134478, -588790216, 289871779, -1262003603, 2135294594, -1018755525, -889861155,
     1665705315},
    {-247357819, 1518161567, -86965173, 1708872713, 1787797779, 1638590967, -120646188,
     -1669960606},
    {2124962073, -1223601433, -1920467227, -1637785316, -1536588520, 694382729, 235104446,
     -1045062172},
    {908452108, 1851023419, -1176751719, -1354528380, -72690498, -314284737, 985022747, 963438279},
    {-1123881663, 137583815, -635454918, -642772911, 45766801, 671509323, -2070602178, 419615363},
    {885133339, 1629985060, 1967222129, 6363718, -1287922800, 1136965286, 1779436847, 1116720494},
    {-1750224323, -901666090, 418987550, 1831915353, -1925356481, 992097815, 879957084, 2024403852},
    {1321868265, 1225434135, -1784632064, 666258756, 675310538, -1555941048, -1999506068,
     -1499481951},
    {-916321552, 1155548552, 2143745726, 1210558298, -1261461890, -318346816, 628664287,
     -1729304568},
    {831969619, -300448763, 756955444, -260312805, 1554794072, 1339088280, -2040058690, -853476187},
    {-1078959975, 604552167, -1021949428, 608791570, 173440395, -2126092136, -1316619236,
     -1039370342},
    {1216882040, -270590488, -1276805128, 371462360, -1357098057, -384158533, 827959816,
     -596344473},
    {1042326957, 1405999311, 713994583, 940195359, -1542497137, 2061661095, -883155599, 1726753853},
    {1484874664, -1636082790, -285388938, -1983539117, -1495136972, -950076368, -1714807468,
     -952438995},
    {-695180180, -1375177022, 1777179795, 334803717, -178766299, -518252220, 1957047970,
     1146323031},
    {1422575624, 1424130038, -1185330464, 235321234, 168022240, 1206536194, 985155484, -894060583},
    {-2047270596, -1723816713, -1591599803, -440824168, 1119856484, 1544891539, 155290192,
     -973777462},
    {6087993, -110126092, 565464272, -1758099917, -1600929361, 879867909, -1809756372, 400711272},
    {702390549, -279505433, -260424530, -71875110, -1208667171, -1499603926, 2036925262,
     -540420426},
    {-1547952704, 394851342, 283780712, 776003547, 1123958025, 201262505, 1934038751, 374860238},
};
static const int32_t inv_lanes[28][8] = {
    {-1976782, 1362209, 3545687, 2286327, 3833893, -1910376, -472078, -269760},
    {846154, 48306, -1612842, 420899, 260646, 1803090, -1717735, -3866901},
    {-1400424, -3919660, 976891, 2235985, 1104333, -1723600, 975884, -3523897},
    {-3937738, 554416, -183443, 2939036, 1667432, 426683, -2213111, 3038916},
    {-3839961, 3881060, 1439742, 1584928, -1341330, 177440, 1851402, 3553272},
    {3628969, 3019102, 812732, -1285669, -1315589, 2409325, -3159746, -189548},
    {2797779, -2071892, 2556880, -3900724, -3881043, -954230, -531354, -811944},
    {1799107, -3014001, 1207385, 164721, 3776993, 1846953, -3406031, 1374803},
    {3694233, -1616392, -185531, -2454455, -594136, 1671176, -2235880, 2546312},
    {-1652634, -162844, -3369112, -2432395, 3724270, 2831860, -777191, -1917081},
    {-810149, 3183426, -1957272, 2013608, 2584293, 542412, -1500165, 1279661},
    {1316856, 210977, 3249728, 8578, -3958618, 1100098, -3097992, -264944},
    {-759969, -2389356, -1653064, 3724342, -904516, -44288, -508951, 3343383},
    {-3699596, 1600420, 2140649, -3507263, 3821735, -3505694, 1643818, 1699267},
    {1962642, 1430225, 1050970, 3548272, -1595974, -1265009, -203044, -4108315},
    {-3306115, 3318210, -1903435, -2635921, -2486353, 2590150, -1735879, 2437823},
    {-1312455, -1237275, -1869119, -1250494, -1247620, -2691481, 3342277, -286988},
    {451100, 1333058, 2994039, 3767016, -4055324, -2842341, -3437287, -342297},
    {1430430, -1349076, 1308169, 1228525, 2477047, 3693493, -2715295, 983419},
    {-1852771, 381987, 22981, 671102, 411027, 2967645, -2147896, -3412210},
    {539299, -2348700, 300467, -3539968, 2867647, -3574422, 3043716, 3861115},
    {3595838, -3207046, 522500, -819034, 3193378, -3513181, 3562462, -3817976},
    {768622, -2031748, 43260, -909542, 1197226, 1235728, 2446433, -2316500},
    {525098, 3122442, 1613174, -1859098, 3759364, -2434439, -2244091, -3407706},
    {3556995, 655327, -495491, -900702, 3520352, -266997, 3342478, -2091667},
    {-126922, 3157330, 1000202, -1939314, 1585221, -3475950, 3041255, 1528703},
    {3632928, 3190144, 4083598, 1257611, -2176455, 1452451, 3677745, 3930395},
    {-3915439, 2537516, 3592148, 1661693, -3530437, -3077325, -95776, -2706023},
};
static const int32_t inv_lanes_qinv[28][8] = {
    {-374860238, -1934038751, -201262505, -1123958025, -776003547, -283780712, -394851342,
     1547952704},
    {540420426, -2036925262, 1499603926, 1208667171, 71875110, 260424530, 279505433, -702390549},
    {-400711272, 1809756372, -879867909, 1600929361, 1758099917, -565464272, 110126092, -6087993},
    {973777462, -155290192, -1544891539, -1119856484, 440824168, 1591599803, 1723816713,
     2047270596},
    {894060583, -985155484, -1206536194, -168022240, -235321234, 1185330464, -1424130038,
     -1422575624},
    {-1146323031, -1957047970, 518252220, 178766299, -334803717, -1777179795, 1375177022,
     695180180},
    {952438995, 1714807468, 950076368, 1495136972, 1983539117, 285388938, 1636082790, -1484874664},
    {-1726753853, 883155599, -2061661095, 1542497137, -940195359, -713994583, -1405999311,
     -1042326957},
    {596344473, -827959816, 384158533, 1357098057, -371462360, 1276805128, 270590488, -1216882040},
    {1039370342, 1316619236, 2126092136, -173440395, -608791570, 1021949428, -604552167,
     1078959975},
    {853476187, 2040058690, -1339088280, -1554794072, 260312805, -756955444, 300448763, -831969619},
    {1729304568, -628664287, 318346816, 1261461890, -1210558298, -2143745726, -1155548552,
     916321552},
    {1499481951, 1999506068, 1555941048, -675310538, -666258756, 1784632064, -1225434135,
     -1321868265},
    {-2024403852, -879957084, -992097815, 1925356481, -1831915353, -418987550, 901666090,
     1750224323},
    {-1116720494, -1779436847, -1136965286, 1287922800, -6363718, -1967222129, -1629985060,
     -885133339},
    {-419615363, 2070602178, -671509323, -45766801, 642772911, 635454918, -137583815, 1123881663},
    {-963438279, -985022747, 314284737, 72690498, 1354528380, 1176751719, -1851023419, -908452108},
    {1045062172, -235104446, -694382729, 1536588520, 1637785316, 1920467227, 1223601433,
     -2124962073},
    {1669960606, 120646188, -1638590967, -1787797779, -1708872713, 86965173, -1518161567,
     247357819},
    {-1665705315, 889861155, 1018755525, -2135294594, 1262003603, -289871779, 588790216, 783134478},
    {1104976547, 1661512036, -2059733581, 1061813248, -1797021249, 561427818, 475984260, 202001019},
    {-1258381762, -1931587462, -1926727420, -1257750362, -1904936414, -2032221021, 1420958686,
     -746144248},
    {-128353682, 1372618620, -2027935492, 517299994, -1683520342, 326425360, -30313375,
     -1363007700},
    {325927722, -1747917558, 818371958, 421552614, -1176904444, 44694137, -912367099, -991903578},
    {-1819892093, -863641633, -1014493059, -14253662, -2027833504, 605900043, 1363460238, 898413},
    {2131021878, -1529189038, -1955560694, 1039411342, -140455867, -1651689966, 1974159335,
     654783359},
    {-568627424, 1440787840, 993005454, 1285853323, -1599739335, 2143979939, -1350681039,
     1574918427},
    {594436433, 1898723372, 1076973524, -1594295555, -1838055109, 1404529459, 1631226336,
     1846138265},
};

// reduce_pair finishes Montgomery reductions of 64-bit values: `even` holds
// those of lanes 0, 2, 4, 6 and `odd` those of lanes 1, 3, 5, 7. Each lane
// becomes (x − t·q) / 2^32 with t = (int32_t)(x · q^-1 mod 2^32), as
// mc_mldsa_poly's mont_reduce computes it; x − t·q has zero low half, so the
// result is its high half.
static inline __m256i reduce_pair(__m256i even, __m256i odd) {
  const __m256i q = _mm256_set1_epi32(Q), qinv = _mm256_set1_epi32(QINV);
  __m256i te = _mm256_mul_epi32(_mm256_mul_epi32(even, qinv), q);
  __m256i to = _mm256_mul_epi32(_mm256_mul_epi32(odd, qinv), q);
  even = _mm256_srli_epi64(_mm256_sub_epi64(even, te), 32);
  odd = _mm256_sub_epi64(odd, to);
  return _mm256_blend_epi32(even, odd, 0xaa);
}

// mul_twiddle returns a · z · 2^-32 mod q per lane, with zq = z · q^-1 mod
// 2^32 precomputed: t comes from one product instead of two.
static inline __m256i mul_twiddle(__m256i a, __m256i z, __m256i zq) {
  const __m256i q = _mm256_set1_epi32(Q);
  __m256i a_odd = _mm256_shuffle_epi32(a, 0xf5);
  __m256i z_odd = _mm256_shuffle_epi32(z, 0xf5), zq_odd = _mm256_shuffle_epi32(zq, 0xf5);
  __m256i pe = _mm256_mul_epi32(a, z), po = _mm256_mul_epi32(a_odd, z_odd);
  __m256i te = _mm256_mul_epi32(_mm256_mul_epi32(a, zq), q);
  __m256i to = _mm256_mul_epi32(_mm256_mul_epi32(a_odd, zq_odd), q);
  pe = _mm256_srli_epi64(_mm256_sub_epi64(pe, te), 32);
  po = _mm256_sub_epi64(po, to);
  return _mm256_blend_epi32(pe, po, 0xaa);
}

// transpose8 transposes the 8x8 matrix of 32-bit values whose rows are
// r[0..7]; it is its own inverse.
static inline void transpose8(__m256i r[8]) {
  __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
  __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
  __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
  __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
  __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
  __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
  r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
  r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
  r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
  r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
  r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
  r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
  r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
  r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

static inline __m256i load_row(const int32_t row[8]) {
  return _mm256_loadu_si256((const __m256i *)(const void *)row);
}

// Cooley-Tukey butterfly: (a, b) <- (a + z·b, a − z·b).
static inline void ct_butterfly(__m256i *a, __m256i *b, __m256i z, __m256i zq) {
  __m256i t = mul_twiddle(*b, z, zq);
  *b = _mm256_sub_epi32(*a, t);
  *a = _mm256_add_epi32(*a, t);
}

// Gentleman-Sande butterfly: (a, b) <- (a + b, z·(a − b)).
static inline void gs_butterfly(__m256i *a, __m256i *b, __m256i z, __m256i zq) {
  __m256i t = *a;
  *a = _mm256_add_epi32(t, *b);
  *b = mul_twiddle(_mm256_sub_epi32(t, *b), z, zq);
}

void mc_mldsa_ntt_avx2(mc_mldsa_poly *a) {
  __m256i *v = (__m256i *)(void *)a->c;
  __m256i r[8];
  // Layers of distance 128 down to 8 coefficients (16 down to 1 vectors),
  // zetas[1..31], as in the scalar loop.
  unsigned k = 1;
  for (unsigned dist = 16; dist >= 1; dist >>= 1) {
    for (unsigned start = 0; start < 32; start += 2 * dist, k++) {
      __m256i z = _mm256_set1_epi32(zetas_low[k]), zq = _mm256_set1_epi32(zetas_low_qinv[k]);
      for (unsigned j = start; j < start + dist; j++) {
        __m256i x = _mm256_loadu_si256(v + j), y = _mm256_loadu_si256(v + j + dist);
        ct_butterfly(&x, &y, z, zq);
        _mm256_storeu_si256(v + j, x);
        _mm256_storeu_si256(v + j + dist, y);
      }
    }
  }
  // Distances 4, 2 and 1 on each transposed group: r[j] lane i holds
  // coefficient 64g + 8i + j.
  for (unsigned g = 0; g < 4; g++) {
    const int32_t(*zr)[8] = &fwd_lanes[7 * g], (*zqr)[8] = &fwd_lanes_qinv[7 * g];
    for (unsigned j = 0; j < 8; j++)
      r[j] = _mm256_loadu_si256(v + 8 * g + j);
    transpose8(r);
    __m256i z = load_row(zr[0]), zq = load_row(zqr[0]);
    for (unsigned j = 0; j < 4; j++)
      ct_butterfly(&r[j], &r[j + 4], z, zq);
    z = load_row(zr[1]), zq = load_row(zqr[1]);
    ct_butterfly(&r[0], &r[2], z, zq);
    ct_butterfly(&r[1], &r[3], z, zq);
    z = load_row(zr[2]), zq = load_row(zqr[2]);
    ct_butterfly(&r[4], &r[6], z, zq);
    ct_butterfly(&r[5], &r[7], z, zq);
    for (unsigned m = 0; m < 4; m++)
      ct_butterfly(&r[2 * m], &r[2 * m + 1], load_row(zr[3 + m]), load_row(zqr[3 + m]));
    transpose8(r);
    for (unsigned j = 0; j < 8; j++)
      _mm256_storeu_si256(v + 8 * g + j, r[j]);
  }
}

void mc_mldsa_invntt_avx2(mc_mldsa_poly *a) {
  __m256i *v = (__m256i *)(void *)a->c;
  __m256i r[8];
  // Distances 1, 2 and 4 on each transposed group.
  for (unsigned g = 0; g < 4; g++) {
    const int32_t(*zr)[8] = &inv_lanes[7 * g], (*zqr)[8] = &inv_lanes_qinv[7 * g];
    for (unsigned j = 0; j < 8; j++)
      r[j] = _mm256_loadu_si256(v + 8 * g + j);
    transpose8(r);
    for (unsigned m = 0; m < 4; m++)
      gs_butterfly(&r[2 * m], &r[2 * m + 1], load_row(zr[m]), load_row(zqr[m]));
    __m256i z = load_row(zr[4]), zq = load_row(zqr[4]);
    gs_butterfly(&r[0], &r[2], z, zq);
    gs_butterfly(&r[1], &r[3], z, zq);
    z = load_row(zr[5]), zq = load_row(zqr[5]);
    gs_butterfly(&r[4], &r[6], z, zq);
    gs_butterfly(&r[5], &r[7], z, zq);
    z = load_row(zr[6]), zq = load_row(zqr[6]);
    for (unsigned j = 0; j < 4; j++)
      gs_butterfly(&r[j], &r[j + 4], z, zq);
    transpose8(r);
    for (unsigned j = 0; j < 8; j++)
      _mm256_storeu_si256(v + 8 * g + j, r[j]);
  }
  // Distances 8 to 64 coefficients with −zetas[31..2], as in the scalar loop.
  unsigned k = 32;
  for (unsigned dist = 1; dist < 16; dist <<= 1) {
    for (unsigned start = 0; start < 32; start += 2 * dist) {
      k--;
      __m256i z = _mm256_set1_epi32(-zetas_low[k]);
      __m256i zq = _mm256_set1_epi32((int32_t)(0u - (uint32_t)zetas_low_qinv[k]));
      for (unsigned j = start; j < start + dist; j++) {
        __m256i x = _mm256_loadu_si256(v + j), y = _mm256_loadu_si256(v + j + dist);
        gs_butterfly(&x, &y, z, zq);
        _mm256_storeu_si256(v + j, x);
        _mm256_storeu_si256(v + j + dist, y);
      }
    }
  }
  // The last layer merged with the scaling (see mc_mldsa_invntt_scalar).
  const __m256i f = _mm256_set1_epi32(INVNTT_F), fq = _mm256_set1_epi32(INVNTT_F_QINV);
  const __m256i zl = _mm256_set1_epi32(INVNTT_ZETA), zlq = _mm256_set1_epi32(INVNTT_ZETA_QINV);
  for (unsigned j = 0; j < 16; j++) {
    __m256i t = _mm256_loadu_si256(v + j), u = _mm256_loadu_si256(v + j + 16);
    _mm256_storeu_si256(v + j, mul_twiddle(_mm256_add_epi32(t, u), f, fq));
    _mm256_storeu_si256(v + j + 16, mul_twiddle(_mm256_sub_epi32(t, u), zl, zlq));
  }
}

// products returns the 64-bit products of a and b: lanes 0, 2, 4, 6 in
// *even, lanes 1, 3, 5, 7 in *odd.
static inline void products(__m256i *even, __m256i *odd, __m256i a, __m256i b) {
  *even = _mm256_mul_epi32(a, b);
  *odd = _mm256_mul_epi32(_mm256_shuffle_epi32(a, 0xf5), _mm256_shuffle_epi32(b, 0xf5));
}

void mc_mldsa_pointwise_avx2(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b) {
  const __m256i *va = (const __m256i *)(const void *)a->c;
  const __m256i *vb = (const __m256i *)(const void *)b->c;
  __m256i *vo = (__m256i *)(void *)out->c;
  for (unsigned i = 0; i < 32; i++) {
    __m256i e, o;
    products(&e, &o, _mm256_loadu_si256(va + i), _mm256_loadu_si256(vb + i));
    _mm256_storeu_si256(vo + i, reduce_pair(e, o));
  }
}

void mc_mldsa_pointwise_acc_avx2(mc_mldsa_poly *acc, const mc_mldsa_poly *a,
                                 const mc_mldsa_poly *b) {
  const __m256i *va = (const __m256i *)(const void *)a->c;
  const __m256i *vb = (const __m256i *)(const void *)b->c;
  __m256i *vo = (__m256i *)(void *)acc->c;
  for (unsigned i = 0; i < 32; i++) {
    __m256i e, o;
    products(&e, &o, _mm256_loadu_si256(va + i), _mm256_loadu_si256(vb + i));
    _mm256_storeu_si256(vo + i, _mm256_add_epi32(_mm256_loadu_si256(vo + i), reduce_pair(e, o)));
  }
}

void mc_mldsa_pointwise_sum_avx2(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b,
                                 unsigned num) {
  // The lazy sum of the scalar version: at most seven products below 9q^2
  // each, one reduction per coefficient.
  __m256i *vo = (__m256i *)(void *)out->c;
  for (unsigned i = 0; i < 32; i++) {
    __m256i se = _mm256_setzero_si256(), so = _mm256_setzero_si256();
    for (unsigned j = 0; j < num; j++) {
      __m256i e, o;
      products(&e, &o, _mm256_loadu_si256((const __m256i *)(const void *)a[j].c + i),
               _mm256_loadu_si256((const __m256i *)(const void *)b[j].c + i));
      se = _mm256_add_epi64(se, e);
      so = _mm256_add_epi64(so, o);
    }
    _mm256_storeu_si256(vo + i, reduce_pair(se, so));
  }
}

const struct mc_impl mc_impl_avx2 = {
    .name = "avx2",
    .required =
        CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 | CORVID_CPU_LZCNT | CORVID_CPU_POPCNT,
    .keccak_f1600_x4 = mc_keccak_f1600_x4_avx2,
    .mldsa_ntt = mc_mldsa_ntt_avx2,
    .mldsa_invntt = mc_mldsa_invntt_avx2,
    .mldsa_pointwise = mc_mldsa_pointwise_avx2,
    .mldsa_pointwise_acc = mc_mldsa_pointwise_acc_avx2,
    .mldsa_pointwise_sum = mc_mldsa_pointwise_sum_avx2,
};
