// mldsa_poly.c: the polynomial layer of ML-DSA (FIPS 204 §7): arithmetic
// modulo q = 8380417 with Montgomery reduction, the NTT and its inverse,
// rounding (Power2Round, Decompose, UseHint), the SHAKE-based samplers and
// bit packing of keys and signatures. Everything that may touch a secret is
// written without branches or memory indexes that depend on it; the only
// exceptions are the accept/reject decisions of rejection samplers, which are
// independent of the values they keep (see mc_mldsa_rej_bounded_poly).
#include <string.h>

#include "impl_internal.h"
#include "mldsa_internal.h"

#define Q MC_MLDSA_Q
#define QINV 58728449 // q^-1 mod 2^32
// 2^64 / 256 mod q: the inverse NTT's scaling by 1/256, times the 2^32 that
// its final Montgomery reduction removes and the 2^32 that the pointwise
// products removed before it.
#define INVNTT_F 41978
// −zetas[1] · INVNTT_F · 2^-32 mod q, centred: the last inverse layer's twiddle
// with the scaling folded in (see mc_mldsa_invntt).
#define INVNTT_ZETA 3975713

// zetas[k] = ζ^BitRev8(k) · 2^32 mod q, centred, with ζ = 1753 the 512th root
// of unity of FIPS 204 §7.5 (Appendix B lists the plain powers).
static const int32_t zetas[256] = {
    -4186625, 25847,    -2608894, -518909,  237124,   -777960,  -876248,  466468,   1826347,
    2353451,  -359251,  -2091905, 3119733,  -2884855, 3111497,  2680103,  2725464,  1024112,
    -1079900, 3585928,  -549488,  -1119584, 2619752,  -2108549, -2118186, -3859737, -1399561,
    -3277672, 1757237,  -19422,   4010497,  280005,   2706023,  95776,    3077325,  3530437,
    -1661693, -3592148, -2537516, 3915439,  -3861115, -3043716, 3574422,  -2867647, 3539968,
    -300467,  2348700,  -539299,  -1699267, -1643818, 3505694,  -3821735, 3507263,  -2140649,
    -1600420, 3699596,  811944,   531354,   954230,   3881043,  3900724,  -2556880, 2071892,
    -2797779, -3930395, -1528703, -3677745, -3041255, -1452451, 3475950,  2176455,  -1585221,
    -1257611, 1939314,  -4083598, -1000202, -3190144, -3157330, -3632928, 126922,   3412210,
    -983419,  2147896,  2715295,  -2967645, -3693493, -411027,  -2477047, -671102,  -1228525,
    -22981,   -1308169, -381987,  1349076,  1852771,  -1430430, -3343383, 264944,   508951,
    3097992,  44288,    -1100098, 904516,   3958618,  -3724342, -8578,    1653064,  -3249728,
    2389356,  -210977,  759969,   -1316856, 189548,   -3553272, 3159746,  -1851402, -2409325,
    -177440,  1315589,  1341330,  1285669,  -1584928, -812732,  -1439742, -3019102, -3881060,
    -3628969, 3839961,  2091667,  3407706,  2316500,  3817976,  -3342478, 2244091,  -2446433,
    -3562462, 266997,   2434439,  -1235728, 3513181,  -3520352, -3759364, -1197226, -3193378,
    900702,   1859098,  909542,   819034,   495491,   -1613174, -43260,   -522500,  -655327,
    -3122442, 2031748,  3207046,  -3556995, -525098,  -768622,  -3595838, 342297,   286988,
    -2437823, 4108315,  3437287,  -3342277, 1735879,  203044,   2842341,  2691481,  -2590150,
    1265009,  4055324,  1247620,  2486353,  1595974,  -3767016, 1250494,  2635921,  -3548272,
    -2994039, 1869119,  1903435,  -1050970, -1333058, 1237275,  -3318210, -1430225, -451100,
    1312455,  3306115,  -1962642, -1279661, 1917081,  -2546312, -1374803, 1500165,  777191,
    2235880,  3406031,  -542412,  -2831860, -1671176, -1846953, -2584293, -3724270, 594136,
    -3776993, -2013608, 2432395,  2454455,  -164721,  1957272,  3369112,  185531,   -1207385,
    -3183426, 162844,   1616392,  3014001,  810149,   1652634,  -3694233, -1799107, -3038916,
    3523897,  3866901,  269760,   2213111,  -975884,  1717735,  472078,   -426683,  1723600,
    -1803090, 1910376,  -1667432, -1104333, -260646,  -3833893, -2939036, -2235985, -420899,
    -2286327, 183443,   -976891,  1612842,  -3545687, -554416,  3919660,  -48306,   -1362209,
    3937738,  1400424,  -846154,  1976782,
};

// mont_reduce returns a · 2^-32 mod q in (−q, q) for |a| < q · 2^31.
static inline int32_t mont_reduce(int64_t a) {
  int32_t t = (int32_t)(uint32_t)((uint64_t)a * QINV);
  return (int32_t)((a - (int64_t)t * Q) >> 32);
}

void mc_mldsa_ntt_scalar(mc_mldsa_poly *a) {
  // Cooley-Tukey butterflies. With |input| < q each layer adds at most q, so
  // outputs stay below 9q < 2^31 without intermediate reductions.
  unsigned k = 0;
  for (unsigned len = 128; len > 2; len >>= 1) {
    for (unsigned start = 0; start < MC_MLDSA_N; start += 2 * len) {
      int64_t zeta = zetas[++k];
      for (unsigned j = start; j < start + len; j++) {
        int32_t t = mont_reduce(zeta * a->c[j + len]);
        a->c[j + len] = a->c[j] - t;
        a->c[j] = a->c[j] + t;
      }
    }
  }
  // The last two layers (len = 2 with zetas[64..127], len = 1 with
  // zetas[128..255]) four coefficients at a time in registers: the generic
  // loop above would run one or two butterflies per block.
  for (unsigned g = 0; g < MC_MLDSA_N / 4; g++) {
    int32_t *c = &a->c[4 * g];
    int32_t t;
    t = mont_reduce((int64_t)zetas[64 + g] * c[2]);
    c[2] = c[0] - t;
    c[0] = c[0] + t;
    t = mont_reduce((int64_t)zetas[64 + g] * c[3]);
    c[3] = c[1] - t;
    c[1] = c[1] + t;
    t = mont_reduce((int64_t)zetas[128 + 2 * g] * c[1]);
    c[1] = c[0] - t;
    c[0] = c[0] + t;
    t = mont_reduce((int64_t)zetas[129 + 2 * g] * c[3]);
    c[3] = c[2] - t;
    c[2] = c[2] + t;
  }
}

void mc_mldsa_invntt_scalar(mc_mldsa_poly *a) {
  // Gentleman-Sande butterflies. The sums double per layer: with |input| < q
  // they stay below 128q after the seventh layer and below 256q = 2145386752
  // < 2^31 after the eighth.
  // The first two layers (len = 1 with −zetas[255..128], len = 2 with
  // −zetas[127..64]) four coefficients at a time in registers, as in
  // mc_mldsa_ntt.
  for (unsigned g = 0; g < MC_MLDSA_N / 4; g++) {
    int32_t *c = &a->c[4 * g];
    int32_t t;
    t = c[0];
    c[0] = t + c[1];
    c[1] = mont_reduce(-(int64_t)zetas[255 - 2 * g] * (t - c[1]));
    t = c[2];
    c[2] = t + c[3];
    c[3] = mont_reduce(-(int64_t)zetas[254 - 2 * g] * (t - c[3]));
    t = c[0];
    c[0] = t + c[2];
    c[2] = mont_reduce(-(int64_t)zetas[127 - g] * (t - c[2]));
    t = c[1];
    c[1] = t + c[3];
    c[3] = mont_reduce(-(int64_t)zetas[127 - g] * (t - c[3]));
  }
  unsigned k = 64;
  for (unsigned len = 4; len < MC_MLDSA_N / 2; len <<= 1) {
    for (unsigned start = 0; start < MC_MLDSA_N; start += 2 * len) {
      int64_t zeta = -zetas[--k];
      for (unsigned j = start; j < start + len; j++) {
        int32_t t = a->c[j];
        a->c[j] = t + a->c[j + len];
        a->c[j + len] = mont_reduce(zeta * (t - a->c[j + len]));
      }
    }
  }
  // The eighth layer merged with the scaling by INVNTT_F: the upper half
  // takes one Montgomery product by INVNTT_ZETA instead of two, which saves
  // 128 of the 1,280 reductions. |INVNTT_F · 256q| and |INVNTT_ZETA · 256q|
  // are below q · 2^31, as mont_reduce requires.
  for (unsigned j = 0; j < MC_MLDSA_N / 2; j++) {
    int32_t t = a->c[j], u = a->c[j + MC_MLDSA_N / 2];
    a->c[j] = mont_reduce((int64_t)INVNTT_F * (t + u));
    a->c[j + MC_MLDSA_N / 2] = mont_reduce((int64_t)INVNTT_ZETA * (t - u));
  }
}

void mc_mldsa_pointwise_scalar(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++)
    out->c[i] = mont_reduce((int64_t)a->c[i] * b->c[i]);
}

void mc_mldsa_pointwise_acc_scalar(mc_mldsa_poly *acc, const mc_mldsa_poly *a,
                                   const mc_mldsa_poly *b) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++)
    acc->c[i] += mont_reduce((int64_t)a->c[i] * b->c[i]);
}

void mc_mldsa_pointwise_sum_scalar(mc_mldsa_poly *out, const mc_mldsa_poly *a,
                                   const mc_mldsa_poly *b, unsigned num) {
  // Lazy reduction: the products of a row of A (entries in [0, q)) with
  // NTT-domain inputs below 9q are below 9q^2 each, so up to seven of them
  // add up below 63q^2 < q · 2^31 and one Montgomery reduction per
  // coefficient suffices (instead of one per product).
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    int64_t acc = 0;
    for (unsigned j = 0; j < num; j++)
      acc += (int64_t)a[j].c[i] * b[j].c[i];
    out->c[i] = mont_reduce(acc);
  }
}

// The entry points of the kernels above go through the implementation table
// (impl.c); the scalar versions are the specification the others match.
void mc_mldsa_ntt(mc_mldsa_poly *a) {
  mc_impl_current()->mldsa_ntt(a);
}

void mc_mldsa_invntt(mc_mldsa_poly *a) {
  mc_impl_current()->mldsa_invntt(a);
}

void mc_mldsa_pointwise(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b) {
  mc_impl_current()->mldsa_pointwise(out, a, b);
}

void mc_mldsa_pointwise_acc(mc_mldsa_poly *acc, const mc_mldsa_poly *a, const mc_mldsa_poly *b) {
  mc_impl_current()->mldsa_pointwise_acc(acc, a, b);
}

void mc_mldsa_pointwise_sum(mc_mldsa_poly *out, const mc_mldsa_poly *a, const mc_mldsa_poly *b,
                            unsigned num) {
  mc_impl_current()->mldsa_pointwise_sum(out, a, b, num);
}

void mc_mldsa_reduce(mc_mldsa_poly *a) {
  // Subtract round(a / 2^23) · q; 2^23 is close to q.
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    int32_t t = (a->c[i] + (1 << 22)) >> 23;
    a->c[i] -= t * Q;
  }
}

void mc_mldsa_freeze(mc_mldsa_poly *a) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++)
    a->c[i] += mc_mldsa_mask_negative(a->c[i]) & Q;
}

void mc_mldsa_center(mc_mldsa_poly *a) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    int32_t x = a->c[i] + (mc_mldsa_mask_negative(a->c[i]) & Q);
    x -= mc_mldsa_mask_negative((Q - 1) / 2 - x) & Q;
    a->c[i] = x;
  }
}

// SHAKE over mc_keccak_f1600 directly: whole-lane absorbing and squeezing
// and no error paths, since every use here is well-formed.

// store_lane writes lane `v` little-endian: one store on little-endian hosts.
static inline void store_lane(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, sizeof v);
#else
  mc_store_le64(p, v);
#endif
}

void mc_mldsa_xof_init(mc_mldsa_xof *x, unsigned rate) {
  memset(x, 0, sizeof *x);
  x->rate = rate;
}

void mc_mldsa_xof_absorb(mc_mldsa_xof *x, const uint8_t *in, size_t len) {
  while (len > 0) {
    if (x->pos == 0 && len >= x->rate) {
      for (unsigned i = 0; i < x->rate / 8; i++)
        x->s[i] ^= mc_load_le64(in + 8 * i);
      mc_keccak_f1600(x->s);
      in += x->rate;
      len -= x->rate;
      continue;
    }
    x->s[x->pos / 8] ^= (uint64_t)*in++ << (8 * (x->pos % 8));
    len--;
    if (++x->pos == x->rate) {
      mc_keccak_f1600(x->s);
      x->pos = 0;
    }
  }
}

void mc_mldsa_xof_finish(mc_mldsa_xof *x) {
  // SHAKE's domain bits 1111 and the first padding bit, then pad10*1's last.
  x->s[x->pos / 8] ^= (uint64_t)0x1f << (8 * (x->pos % 8));
  x->s[(x->rate - 1) / 8] ^= (uint64_t)0x80 << (8 * ((x->rate - 1) % 8));
  mc_keccak_f1600(x->s);
  x->pos = 0;
}

void mc_mldsa_xof_squeeze(mc_mldsa_xof *x, uint8_t *out, size_t len) {
  while (len > 0) {
    if (x->pos == x->rate) {
      mc_keccak_f1600(x->s);
      x->pos = 0;
    }
    if (x->pos == 0 && len >= x->rate) {
      for (unsigned i = 0; i < x->rate / 8; i++)
        store_lane(out + 8 * i, x->s[i]);
      out += x->rate;
      len -= x->rate;
      x->pos = x->rate;
      continue;
    }
    *out++ = (uint8_t)(x->s[x->pos / 8] >> (8 * (x->pos % 8)));
    x->pos++;
    len--;
  }
}

void mc_mldsa_shake256(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len) {
  mc_mldsa_xof x;
  mc_mldsa_xof_init(&x, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&x, in, in_len);
  mc_mldsa_xof_finish(&x);
  mc_mldsa_xof_squeeze(&x, out, out_len);
  mc_wipe(&x, sizeof x);
}

void mc_mldsa_rej_ntt_poly(mc_mldsa_poly *a, const uint8_t seed[34]) {
  // Five SHAKE128 blocks give 280 candidates, enough for 256 but with
  // probability about 2^-30; more blocks follow when they are not.
  uint8_t buf[5 * MC_MLDSA_SHAKE128_RATE];
  mc_mldsa_xof x;
  mc_mldsa_xof_init(&x, MC_MLDSA_SHAKE128_RATE);
  mc_mldsa_xof_absorb(&x, seed, 34);
  mc_mldsa_xof_finish(&x);
  mc_mldsa_xof_squeeze(&x, buf, sizeof buf);
  size_t pos = 0, len = sizeof buf;
  unsigned n = 0;
  while (n < MC_MLDSA_N) {
    if (pos == len) {
      mc_mldsa_xof_squeeze(&x, buf, MC_MLDSA_SHAKE128_RATE);
      pos = 0;
      len = MC_MLDSA_SHAKE128_RATE;
    }
    // CoeffFromThreeBytes (Algorithm 14): 23 bits, kept when below q.
    uint32_t v = buf[pos] | (uint32_t)buf[pos + 1] << 8 | (uint32_t)(buf[pos + 2] & 0x7f) << 16;
    pos += 3;
    if (v < Q)
      a->c[n++] = (int32_t)v;
  }
}

// rej_eta_block appends to `a`, which holds `n` coefficients, those that
// CoeffFromHalfByte (Algorithm 15) accepts from the 272 half-bytes of one
// SHAKE256 block, and returns the new count. The block and every coefficient
// are secret. Whether a half-byte is rejected is not: it depends only on that
// half-byte, which is discarded, and the stream is indistinguishable from
// independent uniform half-bytes, so the accepted ones are uniform whatever
// was rejected around them. The accept bits alone are therefore declassified
// (a block at a time, to keep the Valgrind client requests few), and with
// them the position of the next coefficient.
static unsigned rej_eta_block(mc_mldsa_poly *a, unsigned n,
                              const uint8_t buf[MC_MLDSA_SHAKE256_RATE], unsigned eta) {
  uint8_t accept[2 * MC_MLDSA_SHAKE256_RATE];
  int32_t value[2 * MC_MLDSA_SHAKE256_RATE];
  for (size_t i = 0; i < sizeof accept; i++) {
    uint32_t b = (uint32_t)(buf[i / 2] >> (4 * (i % 2))) & 15;
    // For η = 2, 2 − (b mod 5) with b mod 5 as b − 5·floor(b·205/1024),
    // exact for b < 15.
    if (eta == 2) {
      accept[i] = (uint8_t)mc_mldsa_less_than(b, 15);
      value[i] = 2 - (int32_t)(b - 5 * ((b * 205) >> 10));
    } else {
      accept[i] = (uint8_t)mc_mldsa_less_than(b, 9);
      value[i] = 4 - (int32_t)b;
    }
  }
  MC_MLDSA_DECLASSIFY(accept, sizeof accept);
  for (size_t i = 0; i < sizeof accept && n < MC_MLDSA_N; i++) {
    if (accept[i])
      a->c[n++] = value[i];
  }
  mc_wipe(value, sizeof value);
  return n;
}

void mc_mldsa_rej_bounded_poly(mc_mldsa_poly *a, const uint8_t seed[66], unsigned eta) {
  uint8_t buf[MC_MLDSA_SHAKE256_RATE];
  mc_mldsa_xof x;
  mc_mldsa_xof_init(&x, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&x, seed, 66);
  mc_mldsa_xof_finish(&x);
  unsigned n = 0;
  while (n < MC_MLDSA_N) {
    mc_mldsa_xof_squeeze(&x, buf, sizeof buf);
    n = rej_eta_block(a, n, buf, eta);
  }
  mc_wipe(buf, sizeof buf);
  mc_wipe(&x, sizeof x);
}

// positions[k] = k, so that the masked loop of mc_mldsa_sample_in_ball works
// on bytes only, which compilers vectorize.
static const uint8_t positions[MC_MLDSA_N] = {
#define P4(k) k, k + 1, k + 2, k + 3
#define P16(k) P4(k), P4(k + 4), P4(k + 8), P4(k + 12)
#define P64(k) P16(k), P16(k + 16), P16(k + 32), P16(k + 48)
    P64(0),
    P64(64),
    P64(128),
    P64(192),
#undef P64
#undef P16
#undef P4
};

void mc_mldsa_sample_in_ball(mc_mldsa_poly *c, const uint8_t *seed, size_t seed_len, unsigned tau) {
  // Each step moves c_j to position i and sets c_j = ±1, where j is secret
  // in rejected signing attempts. Instead of indexing by j, every position
  // below i is read and rewritten under an equality mask (a byte loop that
  // compilers vectorize; secret shift counts would do too, but Valgrind
  // cannot tell those from leaks). As in rej_bounded_poly, only the decision
  // to reject a byte j > i is declassified.
  uint8_t buf[MC_MLDSA_SHAKE256_RATE], coef[MC_MLDSA_N] = {0}; // 0, 1 or 0xff (−1)
  mc_mldsa_xof x;
  mc_mldsa_xof_init(&x, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&x, seed, seed_len);
  mc_mldsa_xof_finish(&x);
  mc_mldsa_xof_squeeze(&x, buf, sizeof buf);
  uint64_t signs = mc_load_le64(buf);
  size_t pos = 8;
  for (uint32_t i = MC_MLDSA_N - tau; i < MC_MLDSA_N; i++) {
    uint32_t j;
    for (;;) {
      if (pos == sizeof buf) {
        mc_mldsa_xof_squeeze(&x, buf, sizeof buf);
        pos = 0;
      }
      j = buf[pos++];
      uint32_t accept = mc_mldsa_less_than(i, j) ^ 1;
      MC_MLDSA_DECLASSIFY(&accept, sizeof accept);
      if (accept)
        break;
    }
    // ±1 as 1 or 0xff, from the next sign bit.
    uint8_t sign = (uint8_t)(1 | (0 - (uint8_t)(signs & 1)));
    signs >>= 1;
    uint8_t old = 0, jb = (uint8_t)j;
    // Positions above i are zero and never equal j, so the loop may run over
    // all 256 (a fixed count that compilers vectorize whole).
    for (uint32_t k = 0; k < MC_MLDSA_N; k++) {
      // 0xff where k = j: a byte compare, which compilers turn into a
      // vector compare or a flag-setting instruction, never a branch (the
      // constant-time test checks the generated code).
      uint8_t here = (uint8_t)(0 - (uint8_t)(positions[k] == jb));
      old |= coef[k] & here;
      coef[k] = (uint8_t)((coef[k] & ~here) | (sign & here));
    }
    // Position i receives the old c_j, or keeps the sign when j = i.
    uint8_t same = (uint8_t)(0 - mc_mldsa_is_zero(i ^ j));
    coef[i] = (uint8_t)((old & ~same) | (sign & same));
  }
  for (unsigned k = 0; k < MC_MLDSA_N; k++)
    c->c[k] = (int8_t)coef[k];
  mc_wipe(buf, sizeof buf);
  mc_wipe(&x, sizeof x);
  mc_wipe(&signs, sizeof signs);
  mc_wipe(coef, sizeof coef);
}

void mc_mldsa_expand_mask(mc_mldsa_poly *y, const uint8_t rho2[64], uint16_t index,
                          const mc_mldsa_params *p) {
  uint8_t seed[66], buf[32 * 20];
  memcpy(seed, rho2, 64);
  seed[64] = (uint8_t)index;
  seed[65] = (uint8_t)(index >> 8);
  mc_mldsa_shake256(buf, 32 * p->z_bits, seed, sizeof seed);
  mc_mldsa_unpack(y, buf, p->z_bits, 1, p->gamma1);
  mc_wipe(seed, sizeof seed);
  mc_wipe(buf, sizeof buf);
}

// The samplers four polynomials at a time, on four SHAKE instances driven
// together (mc_shake_x4_*, one four-way permutation per block). They produce
// exactly what the one-at-a-time samplers above produce; a group with fewer
// than four polynomials fills the idle lanes with copies of its last seed
// and discards their output.

// rej_ntt_fill appends to `a`, which holds `n` coefficients, the
// CoeffFromThreeBytes candidates (Algorithm 14) of `len` bytes (a multiple of
// three) that are below q, and returns the new count. Public input.
static unsigned rej_ntt_fill(mc_mldsa_poly *a, unsigned n, const uint8_t *buf, size_t len) {
  for (size_t pos = 0; pos < len && n < MC_MLDSA_N; pos += 3) {
    uint32_t v = buf[pos] | (uint32_t)buf[pos + 1] << 8 | (uint32_t)(buf[pos + 2] & 0x7f) << 16;
    if (v < Q)
      a->c[n++] = (int32_t)v;
  }
  return n;
}

void mc_mldsa_expand_a(mc_mldsa_poly a[][MC_MLDSA_MAX_L], const uint8_t rho[32], unsigned k,
                       unsigned l) {
  // Five SHAKE128 blocks give 280 candidates per entry, enough for 256
  // except with probability about 2^-30; more blocks follow when not.
  enum { FIRST_BLOCKS = 5 };
  uint8_t seeds[4][34], buf[4][FIRST_BLOCKS * MC_MLDSA_SHAKE128_RATE];
  const uint8_t *in[4] = {seeds[0], seeds[1], seeds[2], seeds[3]};
  uint8_t *out[4] = {buf[0], buf[1], buf[2], buf[3]};
  mc_mldsa_poly spare;
  mc_keccak_x4 st;
  unsigned total = k * l;
  for (unsigned first = 0; first < total; first += 4) {
    mc_mldsa_poly *poly[4];
    unsigned n[4], lanes = total - first < 4 ? total - first : 4;
    for (unsigned j = 0; j < 4; j++) {
      unsigned e = first + (j < lanes ? j : lanes - 1), row = e / l, col = e % l;
      memcpy(seeds[j], rho, 32);
      seeds[j][32] = (uint8_t)col;
      seeds[j][33] = (uint8_t)row;
      poly[j] = j < lanes ? &a[row][col] : &spare;
    }
    mc_shake_x4_absorb(&st, MC_MLDSA_SHAKE128_RATE, in, 34);
    mc_shake_x4_squeeze_blocks(&st, MC_MLDSA_SHAKE128_RATE, out, FIRST_BLOCKS);
    unsigned short_lanes = 0;
    for (unsigned j = 0; j < lanes; j++) {
      n[j] = rej_ntt_fill(poly[j], 0, buf[j], sizeof buf[j]);
      short_lanes += n[j] < MC_MLDSA_N;
    }
    while (short_lanes > 0) {
      mc_shake_x4_squeeze_blocks(&st, MC_MLDSA_SHAKE128_RATE, out, 1);
      short_lanes = 0;
      for (unsigned j = 0; j < lanes; j++) {
        n[j] = rej_ntt_fill(poly[j], n[j], buf[j], MC_MLDSA_SHAKE128_RATE);
        short_lanes += n[j] < MC_MLDSA_N;
      }
    }
  }
}

void mc_mldsa_expand_s(mc_mldsa_poly *s1, mc_mldsa_poly *s2, const uint8_t rho_prime[64],
                       const mc_mldsa_params *p) {
  // s1 takes indices 0..l-1 and s2 l..l+k-1 (Algorithm 33). Secret seeds
  // and output; only the accept bits are made public (rej_eta_block).
  uint8_t seeds[4][66], buf[4][MC_MLDSA_SHAKE256_RATE];
  const uint8_t *in[4] = {seeds[0], seeds[1], seeds[2], seeds[3]};
  uint8_t *out[4] = {buf[0], buf[1], buf[2], buf[3]};
  mc_mldsa_poly spare;
  mc_keccak_x4 st;
  unsigned total = p->l + p->k;
  for (unsigned first = 0; first < total; first += 4) {
    mc_mldsa_poly *poly[4];
    unsigned n[4] = {0, 0, 0, 0}, lanes = total - first < 4 ? total - first : 4;
    for (unsigned j = 0; j < 4; j++) {
      unsigned r = first + (j < lanes ? j : lanes - 1);
      memcpy(seeds[j], rho_prime, 64);
      seeds[j][64] = (uint8_t)r;
      seeds[j][65] = 0;
      poly[j] = j >= lanes ? &spare : r < p->l ? &s1[r] : &s2[r - p->l];
    }
    mc_shake_x4_absorb(&st, MC_MLDSA_SHAKE256_RATE, in, sizeof seeds[0]);
    unsigned short_lanes = lanes;
    while (short_lanes > 0) {
      mc_shake_x4_squeeze_blocks(&st, MC_MLDSA_SHAKE256_RATE, out, 1);
      short_lanes = 0;
      for (unsigned j = 0; j < lanes; j++) {
        if (n[j] < MC_MLDSA_N)
          n[j] = rej_eta_block(poly[j], n[j], buf[j], p->eta);
        short_lanes += n[j] < MC_MLDSA_N;
      }
    }
  }
  mc_wipe(seeds, sizeof seeds);
  mc_wipe(buf, sizeof buf);
  mc_wipe(&st, sizeof st);
  mc_wipe(&spare, sizeof spare);
}

void mc_mldsa_expand_mask_vec(mc_mldsa_poly *y, const uint8_t rho2[64], uint16_t kappa,
                              const mc_mldsa_params *p) {
  // 32 · z_bits ≤ 640 bytes per polynomial: five SHAKE256 blocks.
  enum { BLOCKS = (32 * 20 + MC_MLDSA_SHAKE256_RATE - 1) / MC_MLDSA_SHAKE256_RATE };
  uint8_t seeds[4][66], buf[4][BLOCKS * MC_MLDSA_SHAKE256_RATE];
  const uint8_t *in[4] = {seeds[0], seeds[1], seeds[2], seeds[3]};
  uint8_t *out[4] = {buf[0], buf[1], buf[2], buf[3]};
  mc_keccak_x4 st;
  size_t blocks = (32 * p->z_bits + MC_MLDSA_SHAKE256_RATE - 1) / MC_MLDSA_SHAKE256_RATE;
  for (unsigned first = 0; first < p->l; first += 4) {
    unsigned lanes = p->l - first < 4 ? p->l - first : 4;
    for (unsigned j = 0; j < 4; j++) {
      uint16_t index = (uint16_t)(kappa + first + (j < lanes ? j : lanes - 1));
      memcpy(seeds[j], rho2, 64);
      seeds[j][64] = (uint8_t)index;
      seeds[j][65] = (uint8_t)(index >> 8);
    }
    mc_shake_x4_absorb(&st, MC_MLDSA_SHAKE256_RATE, in, sizeof seeds[0]);
    mc_shake_x4_squeeze_blocks(&st, MC_MLDSA_SHAKE256_RATE, out, blocks);
    for (unsigned j = 0; j < lanes; j++)
      mc_mldsa_unpack(&y[first + j], buf[j], p->z_bits, 1, p->gamma1);
  }
  mc_wipe(seeds, sizeof seeds);
  mc_wipe(buf, sizeof buf);
  mc_wipe(&st, sizeof st);
}

void mc_mldsa_pack(uint8_t *out, const mc_mldsa_poly *a, unsigned bits, int negate,
                   int32_t offset) {
  uint64_t acc = 0;
  unsigned have = 0;
  uint32_t mask = (1u << bits) - 1;
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    uint32_t v = negate ? (uint32_t)(offset - a->c[i]) : (uint32_t)a->c[i];
    acc |= (uint64_t)(v & mask) << have;
    have += bits;
    while (have >= 8) {
      *out++ = (uint8_t)acc;
      acc >>= 8;
      have -= 8;
    }
  }
}

void mc_mldsa_unpack(mc_mldsa_poly *a, const uint8_t *in, unsigned bits, int negate,
                     int32_t offset) {
  uint64_t acc = 0;
  unsigned have = 0;
  uint32_t mask = (1u << bits) - 1;
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    while (have < bits) {
      acc |= (uint64_t)*in++ << have;
      have += 8;
    }
    int32_t v = (int32_t)(acc & mask);
    acc >>= bits;
    have -= bits;
    a->c[i] = negate ? offset - v : v;
  }
}

int mc_mldsa_public_key_decode(mc_mldsa_public_key *pk, const mc_mldsa_params *p, const uint8_t *in,
                               size_t in_len) {
  MC_FAIL_IF(in_len != p->public_key_len, MC_ERR_BAD_KEY);
  // Every 10-bit value is a valid t1 coefficient: only the length can be
  // wrong.
  memcpy(pk->rho, in, 32);
  for (unsigned i = 0; i < p->k; i++)
    mc_mldsa_unpack(&pk->t1[i], in + 32 + 320 * i, 10, 0, 0);
  return 0;
}

void mc_mldsa_public_key_encode(uint8_t *out, const mc_mldsa_params *p,
                                const mc_mldsa_public_key *pk) {
  memcpy(out, pk->rho, 32);
  for (unsigned i = 0; i < p->k; i++)
    mc_mldsa_pack(out + 32 + 320 * i, &pk->t1[i], 10, 0, 0);
}

int mc_mldsa_signature_decode(mc_mldsa_signature *sig, const mc_mldsa_params *p, const uint8_t *in,
                              size_t in_len) {
  MC_FAIL_IF(in_len != p->signature_len, MC_ERR_BAD_SIGNATURE);
  memcpy(sig->ctilde, in, p->ctilde_len);
  in += p->ctilde_len;
  // BitUnpack(·, γ1 − 1, γ1) maps every bit pattern into [−γ1 + 1, γ1]; the
  // verifier's norm check rejects the large ones.
  for (unsigned i = 0; i < p->l; i++) {
    mc_mldsa_unpack(&sig->z[i], in, p->z_bits, 1, p->gamma1);
    in += 32 * p->z_bits;
  }
  // HintBitUnpack (Algorithm 21): in[0..ω) lists the hint positions, in[ω + i]
  // is the running count after polynomial i. Exactly one encoding per hint
  // vector is accepted (strong unforgeability depends on it).
  memset(sig->h, 0, sizeof sig->h);
  unsigned index = 0;
  for (unsigned i = 0; i < p->k; i++) {
    unsigned end = in[p->omega + i];
    MC_FAIL_IF(end < index || end > p->omega, MC_ERR_BAD_SIGNATURE);
    for (unsigned first = index; index < end; index++) {
      MC_FAIL_IF(index > first && in[index - 1] >= in[index], MC_ERR_BAD_SIGNATURE);
      sig->h[i][in[index]] = 1;
    }
  }
  for (; index < p->omega; index++)
    MC_FAIL_IF(in[index] != 0, MC_ERR_BAD_SIGNATURE);
  return 0;
}

void mc_mldsa_signature_encode(uint8_t *out, const mc_mldsa_params *p,
                               const mc_mldsa_signature *sig) {
  memcpy(out, sig->ctilde, p->ctilde_len);
  out += p->ctilde_len;
  for (unsigned i = 0; i < p->l; i++) {
    mc_mldsa_pack(out, &sig->z[i], p->z_bits, 1, p->gamma1);
    out += 32 * p->z_bits;
  }
  // HintBitPack (Algorithm 20). The hints are part of the signature, public
  // by now; the signer has checked there are at most ω of them.
  memset(out, 0, p->omega + p->k);
  unsigned index = 0;
  for (unsigned i = 0; i < p->k; i++) {
    for (unsigned j = 0; j < MC_MLDSA_N; j++) {
      if (sig->h[i][j] && index < p->omega)
        out[index++] = (uint8_t)j;
    }
    out[p->omega + i] = (uint8_t)index;
  }
}
