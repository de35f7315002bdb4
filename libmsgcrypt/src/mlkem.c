// mlkem.c: ML-KEM-512/768/1024 (FIPS 203): key generation from a 64-byte seed
// d || z (KeyGen_internal, Algorithm 16) or from RAND_bytes, encapsulation
// (Encaps_internal, Algorithm 17) with the §7.2 encapsulation-key check,
// decapsulation with implicit rejection (Decaps_internal, Algorithm 18) after
// the §7.3 decapsulation-key check, and the two checks on their own. The
// K-PKE layer (Algorithms 13-15) and the sampling, encoding and NTT routines
// of §4 are written out from the standard. Everything that touches a secret is
// branch-free and indexes memory only by public counters: products use
// Montgomery reduction, sums Barrett reduction, compression a multiplication
// by a reciprocal, and implicit rejection a constant-time compare and select.
// The matrix A-hat is sampled whole, four entries at a time on the four-way
// SHAKE of the implementation table (impl_internal.h), so the deepest call
// (decapsulation at ML-KEM-1024) needs about 23 KiB of stack.
//
// Encapsulation keeps, per thread, what it derives from the last
// MC_MLKEM_ENCAPS_CACHE_SLOTS encapsulation keys it was given (the
// transposed matrix A-hat, the decoded t-hat and H(ek)): mail goes to the
// same recipients again and again, and expanding A-hat is most of an
// encapsulation. Everything cached is a function of the public key alone.
#include <string.h>

#include <openssl/rand.h>

#include "impl_internal.h"
#include "mlkem_internal.h"
#include "thread_cache_internal.h"

// Table 2 of FIPS 203; eta2 is 2 for every level.
typedef struct {
  unsigned k, eta1, du, dv;
} mlkem_params;

static const mlkem_params *params_for(mc_mlkem_level level) {
  static const mlkem_params table[] = {
      [MC_MLKEM_512] = {2, 3, 10, 4},
      [MC_MLKEM_768] = {3, 2, 10, 4},
      [MC_MLKEM_1024] = {4, 2, 11, 5},
  };
  if ((int)level < (int)MC_MLKEM_512 || (int)level > (int)MC_MLKEM_1024)
    return NULL;
  return &table[level];
}

#define ETA2 2
#define POLY_BYTES 384 // ByteEncode_12 of one polynomial
#define SYM_BYTES 32

static size_t pk_len(const mlkem_params *p) {
  return POLY_BYTES * p->k + SYM_BYTES;
}
static size_t sk_len(const mlkem_params *p) {
  return 2 * POLY_BYTES * p->k + 3 * SYM_BYTES;
}
static size_t ct_len(const mlkem_params *p) {
  return 32 * (p->du * p->k + p->dv);
}

// Generated with a short script: 17^BitRev7(i) * 2^16 mod q, centred. The
// tests recompute every entry from its definition.
const int16_t mc_mlkem_zetas[128] = {
    -1044, -758,  -359,  -1517, 1493,  1422,  287,   202,   -171,  622,   1577,  182,   962,
    -1202, -1474, 1468,  573,   -1325, 264,   383,   -829,  1458,  -1602, -130,  -681,  1017,
    732,   608,   -1542, 411,   -205,  -1571, 1223,  652,   -552,  1015,  -1293, 1491,  -282,
    -1544, 516,   -8,    -320,  -666,  -1618, -1162, 126,   1469,  -853,  -90,   -271,  830,
    107,   -1421, -247,  -951,  -398,  961,   -1508, -725,  448,   -1065, 677,   -1275, -1103,
    430,   555,   843,   -1251, 871,   1550,  105,   422,   587,   177,   -235,  -291,  -460,
    1574,  1653,  -246,  778,   1159,  -147,  -777,  1483,  -602,  1119,  -1590, 644,   -872,
    349,   418,   329,   -156,  -75,   817,   1097,  603,   610,   1322,  -1285, -1465, 384,
    -1215, -136,  1218,  -1335, -874,  220,   -1187, -1659, -1185, -1530, -1278, 794,   -1510,
    -854,  -870,  478,   -108,  -308,  996,   991,   958,   -1460, 1522,  1628,
};

// (2^16)^2 / 128 mod q, centred: the final scaling of the inverse NTT (3303 =
// 128^-1 mod q, FIPS 203 Algorithm 10 line 14) with one Montgomery factor to
// cancel the fqmul's 2^-16 and one more to cancel the base-case products'.
#define INVNTT_SCALE 1441

void mc_mlkem_ntt_scalar(mc_mlkem_poly *p) {
  int16_t *f = p->coeffs;
  unsigned i = 1;
  // Each layer adds at most q to the bound on |f|: from (-q, q) the last
  // layer ends below 8q < 2^15, so no reduction is needed before the end.
  for (unsigned len = 128; len >= 2; len >>= 1) {
    for (unsigned start = 0; start < MC_MLKEM_N; start += 2 * len) {
      int16_t zeta = mc_mlkem_zetas[i++];
      for (unsigned j = start; j < start + len; j++) {
        int16_t t = mc_mlkem_fqmul(zeta, f[j + len]);
        f[j + len] = (int16_t)(f[j] - t);
        f[j] = (int16_t)(f[j] + t);
      }
    }
  }
  for (unsigned j = 0; j < MC_MLKEM_N; j++)
    f[j] = mc_mlkem_barrett_reduce(f[j]);
}

void mc_mlkem_invntt_scalar(mc_mlkem_poly *p) {
  int16_t *f = p->coeffs;
  unsigned i = 127;
  for (unsigned len = 2; len <= 128; len <<= 1) {
    for (unsigned start = 0; start < MC_MLKEM_N; start += 2 * len) {
      int16_t zeta = mc_mlkem_zetas[i--];
      for (unsigned j = start; j < start + len; j++) {
        int16_t t = f[j];
        // The sum is reduced at once, which keeps every value in (-q, q)
        // at the start of each layer.
        f[j] = mc_mlkem_barrett_reduce((int16_t)(t + f[j + len]));
        f[j + len] = mc_mlkem_fqmul(zeta, (int16_t)(f[j + len] - t));
      }
    }
  }
  for (unsigned j = 0; j < MC_MLKEM_N; j++)
    f[j] = mc_mlkem_fqmul(f[j], INVNTT_SCALE);
}

// The gamma of pair i is zeta^(2 BitRev7(i) + 1); for pairs 2t and 2t+1 it is
// +zeta^BitRev7(64 + t) and its negation, which mc_mlkem_zetas holds already.
void mc_mlkem_mulcache_compute(mc_mlkem_mulcache *cache, const mc_mlkem_poly *b) {
  for (unsigned t = 0; t < 64; t++) {
    int16_t gamma = mc_mlkem_zetas[64 + t];
    cache->coeffs[2 * t] = mc_mlkem_fqmul(b->coeffs[4 * t + 1], gamma);
    cache->coeffs[2 * t + 1] = mc_mlkem_fqmul(b->coeffs[4 * t + 3], (int16_t)-gamma);
  }
}

// BaseCaseMultiply (Algorithm 12) on every pair: c0 = a0 b0 + a1 (b1 gamma),
// c1 = a0 b1 + a1 b0, left unreduced. Each term is below q^2 in magnitude, so
// four accumulated products stay below 8 q^2 < q 2^15, the input bound of the
// Montgomery reduction.
void mc_mlkem_basemul_acc_scalar(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a,
                                 const mc_mlkem_poly *b, const mc_mlkem_mulcache *cache) {
  for (unsigned i = 0; i < MC_MLKEM_N / 2; i++) {
    int32_t a0 = a->coeffs[2 * i], a1 = a->coeffs[2 * i + 1];
    int32_t b0 = b->coeffs[2 * i], b1 = b->coeffs[2 * i + 1];
    acc[2 * i] += a0 * b0 + a1 * (int32_t)cache->coeffs[i];
    acc[2 * i + 1] += a0 * b1 + a1 * b0;
  }
}

void mc_mlkem_acc_reduce_scalar(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]) {
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    r->coeffs[i] = mc_mlkem_montgomery_reduce(acc[i]);
}

// The entry points of the kernels above go through the implementation table
// (impl.c); the scalar versions are the specification the others match.
void mc_mlkem_ntt(mc_mlkem_poly *p) {
  mc_impl_current()->mlkem_ntt(p);
}

void mc_mlkem_invntt(mc_mlkem_poly *p) {
  mc_impl_current()->mlkem_invntt(p);
}

void mc_mlkem_basemul_acc(int32_t acc[MC_MLKEM_N], const mc_mlkem_poly *a, const mc_mlkem_poly *b,
                          const mc_mlkem_mulcache *cache) {
  mc_impl_current()->mlkem_basemul_acc(acc, a, b, cache);
}

void mc_mlkem_acc_reduce(mc_mlkem_poly *r, const int32_t acc[MC_MLKEM_N]) {
  mc_impl_current()->mlkem_acc_reduce(r, acc);
}

// Hash functions of §4.1. The short-input SHAKE sponges of SampleNTT and PRF
// drive the permutation directly; G, H and J use the SHA-3 API.

#define SHAKE128_RATE 168
#define SHAKE256_RATE 136

// sponge_start absorbs `len` < `rate` bytes with the SHAKE padding; the final
// permutation is left to the first sponge_squeeze.
static void sponge_start(uint64_t s[25], unsigned rate, const uint8_t *in, size_t len) {
  uint8_t block[SHAKE128_RATE];
  memset(block, 0, sizeof block);
  memcpy(block, in, len);
  block[len] ^= 0x1f;
  block[rate - 1] ^= 0x80;
  memset(s, 0, 25 * sizeof s[0]);
  for (unsigned i = 0; i < rate / 8; i++)
    s[i] = mc_load_le64(block + 8 * i);
  mc_wipe(block, sizeof block);
}

static void sponge_squeeze(uint64_t s[25], unsigned rate, uint8_t *out, size_t len) {
  uint8_t block[SHAKE128_RATE];
  while (len > 0) {
    mc_keccak_f1600(s);
    for (unsigned i = 0; i < rate / 8; i++)
      mc_store_le64(block + 8 * i, s[i]);
    size_t take = len < rate ? len : rate;
    memcpy(out, block, take);
    out += take;
    len -= take;
  }
  mc_wipe(block, sizeof block);
}

// hash_h is H = SHA3-256, hash_g is G = SHA3-512 of a || b (§4.1).
static void hash_h(uint8_t out[32], const uint8_t *in, size_t len) {
  size_t out_len;
  // Cannot fail: the algorithm is valid and the buffer large enough.
  (void)!mc_sha3(MC_SHA3_256, out, 32, &out_len, in, len);
}

static void hash_g(uint8_t out[64], const uint8_t *a, size_t a_len, const uint8_t *b,
                   size_t b_len) {
  mc_sha3_ctx ctx;
  size_t out_len;
  (void)!mc_sha3_init(&ctx, MC_SHA3_512);
  (void)!mc_sha3_update(&ctx, a, a_len);
  (void)!mc_sha3_update(&ctx, b, b_len);
  (void)!mc_sha3_final(&ctx, out, 64, &out_len);
}

// hash_j is J(z || c) = SHAKE256(z || c, 32), the implicit-rejection key.
static void hash_j(uint8_t out[32], const uint8_t z[32], const uint8_t *c, size_t c_len) {
  mc_sha3_ctx ctx;
  (void)!mc_sha3_init(&ctx, MC_SHAKE256);
  (void)!mc_sha3_update(&ctx, z, 32);
  (void)!mc_sha3_update(&ctx, c, c_len);
  (void)!mc_shake_squeeze(&ctx, out, 32);
  mc_sha3_cleanup(&ctx);
}

// sample_ntt_fill appends to `a`, which holds `j` coefficients, the SampleNTT
// (Algorithm 7) candidates of `len` bytes of SHAKE128 output (a multiple of
// three) that are below q, and returns the new count: rejection sampling of
// 12-bit values, resumable across blocks. The input is public, so the loop
// may branch on what it reads.
static unsigned sample_ntt_fill(mc_mlkem_poly *a, unsigned j, const uint8_t *buf, size_t len) {
  for (size_t i = 0; i < len && j < MC_MLKEM_N; i += 3) {
    uint16_t d1 = (uint16_t)(buf[i] | (buf[i + 1] & 0x0f) << 8);
    uint16_t d2 = (uint16_t)(buf[i + 1] >> 4 | buf[i + 2] << 4);
    if (d1 < MC_MLKEM_Q)
      a->coeffs[j++] = (int16_t)d1;
    if (d2 < MC_MLKEM_Q && j < MC_MLKEM_N)
      a->coeffs[j++] = (int16_t)d2;
  }
  return j;
}

// gen_matrix sets a[i][j] to A-hat[i][j] = SampleNTT(rho || j || i) for i, j
// < k, or to its transpose (SampleNTT(rho || i || j)) when `transposed`:
// SampleNTT on four seeds at a time. Three SHAKE128 blocks
// give 336 candidates, enough for 256 nearly always; more blocks follow for
// the lanes that need them. rho is public.
static void gen_matrix(mc_mlkem_poly a[][MC_MLKEM_MAX_K], const uint8_t rho[32], unsigned k,
                       int transposed) {
  enum { FIRST_BLOCKS = 3 };
  uint8_t seeds[4][34], buf[4][FIRST_BLOCKS * SHAKE128_RATE];
  const uint8_t *in[4] = {seeds[0], seeds[1], seeds[2], seeds[3]};
  uint8_t *out[4] = {buf[0], buf[1], buf[2], buf[3]};
  mc_mlkem_poly spare;
  mc_keccak_x4 st;
  unsigned total = k * k;
  for (unsigned first = 0; first < total; first += 4) {
    mc_mlkem_poly *poly[4];
    unsigned n[4], lanes = total - first < 4 ? total - first : 4;
    for (unsigned l = 0; l < 4; l++) {
      unsigned e = first + (l < lanes ? l : lanes - 1), i = e / k, j = e % k;
      memcpy(seeds[l], rho, 32);
      seeds[l][32] = (uint8_t)(transposed ? i : j);
      seeds[l][33] = (uint8_t)(transposed ? j : i);
      poly[l] = l < lanes ? &a[i][j] : &spare;
    }
    mc_shake_x4_absorb(&st, SHAKE128_RATE, in, sizeof seeds[0]);
    mc_shake_x4_squeeze_blocks(&st, SHAKE128_RATE, out, FIRST_BLOCKS);
    unsigned short_lanes = 0;
    for (unsigned l = 0; l < lanes; l++) {
      n[l] = sample_ntt_fill(poly[l], 0, buf[l], sizeof buf[l]);
      short_lanes += n[l] < MC_MLKEM_N;
    }
    while (short_lanes > 0) {
      mc_shake_x4_squeeze_blocks(&st, SHAKE128_RATE, out, 1);
      short_lanes = 0;
      for (unsigned l = 0; l < lanes; l++) {
        n[l] = sample_ntt_fill(poly[l], n[l], buf[l], SHAKE128_RATE);
        short_lanes += n[l] < MC_MLKEM_N;
      }
    }
  }
}

// cbd_decode is SamplePolyCBD_eta (Algorithm 8) of the 64·eta bytes `buf`,
// and sample_cbd that of PRF_eta(seed, nonce) =
// SHAKE256(seed || nonce, 64 eta) (§4.1), eta in {2, 3}. Each coefficient is
// the difference of two eta-bit popcounts, taken with masks and adds.
static void cbd_decode(mc_mlkem_poly *p, const uint8_t *buf, unsigned eta) {
  if (eta == 2) {
    for (unsigned i = 0; i < MC_MLKEM_N / 8; i++) {
      uint32_t w = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
                   (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
      // Each 2-bit field now holds the number of ones in its bit pair.
      uint32_t t = (w & 0x55555555u) + ((w >> 1) & 0x55555555u);
      for (unsigned j = 0; j < 8; j++) {
        int16_t x = (int16_t)((t >> (4 * j)) & 3), y = (int16_t)((t >> (4 * j + 2)) & 3);
        p->coeffs[8 * i + j] = (int16_t)(x - y);
      }
    }
  } else {
    for (unsigned i = 0; i < MC_MLKEM_N / 4; i++) {
      uint32_t w =
          (uint32_t)buf[3 * i] | (uint32_t)buf[3 * i + 1] << 8 | (uint32_t)buf[3 * i + 2] << 16;
      uint32_t t = (w & 0x249249u) + ((w >> 1) & 0x249249u) + ((w >> 2) & 0x249249u);
      for (unsigned j = 0; j < 4; j++) {
        int16_t x = (int16_t)((t >> (6 * j)) & 7), y = (int16_t)((t >> (6 * j + 3)) & 7);
        p->coeffs[4 * i + j] = (int16_t)(x - y);
      }
    }
  }
}

static void sample_cbd(mc_mlkem_poly *p, const uint8_t seed[32], uint8_t nonce, unsigned eta) {
  uint8_t in[33], buf[64 * 3];
  uint64_t s[25];
  memcpy(in, seed, 32);
  in[32] = nonce;
  sponge_start(s, SHAKE256_RATE, in, sizeof in);
  sponge_squeeze(s, SHAKE256_RATE, buf, 64 * eta);
  cbd_decode(p, buf, eta);
  mc_wipe(in, sizeof in);
  mc_wipe(buf, sizeof buf);
  mc_wipe(s, sizeof s);
}

// sample_cbd_vec sets out[i] = SamplePolyCBD_eta[i](PRF(seed, nonce + i))
// for i < num, four at a time on the four-way SHAKE; a last group of one
// takes the one-state sponge, which costs less than four lanes. The seed and
// outputs are secret; nothing branches on them.
static void sample_cbd_vec(mc_mlkem_poly *const out[], const unsigned eta[], unsigned num,
                           const uint8_t seed[32], uint8_t nonce) {
  // 64 · 3 bytes fit in two SHAKE256 blocks, 64 · 2 in one.
  uint8_t in[4][33], buf[4][2 * SHAKE256_RATE];
  const uint8_t *inp[4] = {in[0], in[1], in[2], in[3]};
  uint8_t *outp[4] = {buf[0], buf[1], buf[2], buf[3]};
  mc_keccak_x4 st;
  for (unsigned first = 0; first < num; first += 4) {
    unsigned lanes = num - first < 4 ? num - first : 4, max_eta = 0;
    if (lanes == 1) {
      sample_cbd(out[first], seed, (uint8_t)(nonce + first), eta[first]);
      break;
    }
    for (unsigned l = 0; l < 4; l++) {
      unsigned i = first + (l < lanes ? l : lanes - 1);
      memcpy(in[l], seed, 32);
      in[l][32] = (uint8_t)(nonce + i);
      max_eta = eta[i] > max_eta ? eta[i] : max_eta;
    }
    mc_shake_x4_absorb(&st, SHAKE256_RATE, inp, sizeof in[0]);
    mc_shake_x4_squeeze_blocks(&st, SHAKE256_RATE, outp, max_eta == 2 ? 1 : 2);
    for (unsigned l = 0; l < lanes; l++)
      cbd_decode(out[first + l], buf[l], eta[first + l]);
  }
  mc_wipe(in, sizeof in);
  mc_wipe(buf, sizeof buf);
  mc_wipe(&st, sizeof st);
}

// poly_encode is ByteEncode_d (Algorithm 5) of coefficients in [0, 2^d).
static void poly_encode(uint8_t *out, const mc_mlkem_poly *p, unsigned d) {
  uint32_t acc = 0;
  unsigned bits = 0;
  for (unsigned i = 0; i < MC_MLKEM_N; i++) {
    acc |= (uint32_t)(uint16_t)p->coeffs[i] << bits;
    bits += d;
    while (bits >= 8) {
      *out++ = (uint8_t)acc;
      acc >>= 8;
      bits -= 8;
    }
  }
}

// poly_decode is ByteDecode_d (Algorithm 6) for d < 12: values in [0, 2^d).
static void poly_decode(mc_mlkem_poly *p, const uint8_t *in, unsigned d) {
  uint32_t acc = 0, mask = (1u << d) - 1;
  unsigned bits = 0;
  for (unsigned i = 0; i < MC_MLKEM_N; i++) {
    while (bits < d) {
      acc |= (uint32_t)*in++ << bits;
      bits += 8;
    }
    p->coeffs[i] = (int16_t)(acc & mask);
    acc >>= d;
    bits -= d;
  }
}

// poly_decode12 is ByteDecode_12, which FIPS 203 defines modulo q: values
// 3329..4095 of a malformed key are reduced, branch-free, not rejected.
static void poly_decode12(mc_mlkem_poly *p, const uint8_t *in) {
  for (unsigned i = 0; i < MC_MLKEM_N / 2; i++) {
    const uint8_t *b = in + 3 * i;
    p->coeffs[2 * i] = mc_mlkem_csubq((int16_t)(b[0] | (b[1] & 0x0f) << 8));
    p->coeffs[2 * i + 1] = mc_mlkem_csubq((int16_t)(b[1] >> 4 | b[2] << 4));
  }
}

// poly_encode12 is ByteEncode_12 of a polynomial reduced to [0, q).
static void poly_encode12(uint8_t *out, const mc_mlkem_poly *p) {
  for (unsigned i = 0; i < MC_MLKEM_N / 2; i++) {
    uint16_t x = (uint16_t)p->coeffs[2 * i], y = (uint16_t)p->coeffs[2 * i + 1];
    out[3 * i] = (uint8_t)x;
    out[3 * i + 1] = (uint8_t)(x >> 8 | y << 4);
    out[3 * i + 2] = (uint8_t)(y >> 4);
  }
}

// poly_canonical maps every coefficient to [0, q).
static void poly_canonical(mc_mlkem_poly *p) {
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    p->coeffs[i] = mc_mlkem_caddq(mc_mlkem_barrett_reduce(p->coeffs[i]));
}

static void poly_compress_encode(uint8_t *out, mc_mlkem_poly *p, unsigned d) {
  poly_canonical(p);
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    p->coeffs[i] = (int16_t)mc_mlkem_compress((uint16_t)p->coeffs[i], d);
  poly_encode(out, p, d);
}

static void poly_decode_decompress(mc_mlkem_poly *p, const uint8_t *in, unsigned d) {
  poly_decode(p, in, d);
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    p->coeffs[i] = (int16_t)mc_mlkem_decompress((uint16_t)p->coeffs[i], d);
}

static void poly_add(mc_mlkem_poly *r, const mc_mlkem_poly *a) {
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    r->coeffs[i] = (int16_t)(r->coeffs[i] + a->coeffs[i]);
}

// K-PKE.KeyGen (Algorithm 13) and ML-KEM.KeyGen_internal (Algorithm 16).
static void keygen_internal(const mlkem_params *p, uint8_t *ek, uint8_t *dk, const uint8_t d[32],
                            const uint8_t z[32]) {
  const unsigned k = p->k;
  uint8_t rho_sigma[64], k_byte = (uint8_t)k;
  mc_mlkem_poly s[MC_MLKEM_MAX_K], t, e[MC_MLKEM_MAX_K], a[MC_MLKEM_MAX_K][MC_MLKEM_MAX_K];
  mc_mlkem_mulcache s_cache[MC_MLKEM_MAX_K];
  int32_t acc[MC_MLKEM_N];
  mc_mlkem_poly *noise[2 * MC_MLKEM_MAX_K];
  unsigned noise_eta[2 * MC_MLKEM_MAX_K];

  hash_g(rho_sigma, d, 32, &k_byte, 1);
  const uint8_t *rho = rho_sigma, *sigma = rho_sigma + 32;
  // rho becomes part of the public key: SampleNTT may branch on it.
  mc_mlkem_ct_declassify(rho, 32);
  gen_matrix(a, rho, k, 0);

  // s[i] takes PRF nonce i and e[i] nonce k + i.
  for (unsigned i = 0; i < k; i++) {
    noise[i] = &s[i], noise[k + i] = &e[i];
    noise_eta[i] = noise_eta[k + i] = p->eta1;
  }
  sample_cbd_vec(noise, noise_eta, 2 * k, sigma, 0);
  for (unsigned i = 0; i < k; i++) {
    mc_mlkem_ntt(&s[i]);
    mc_mlkem_mulcache_compute(&s_cache[i], &s[i]);
  }
  for (unsigned i = 0; i < k; i++) {
    // t-hat[i] = sum_j A-hat[i][j] o s-hat[j] + e-hat[i], A-hat[i][j] from
    // rho || j || i.
    memset(acc, 0, sizeof acc);
    for (unsigned j = 0; j < k; j++)
      mc_mlkem_basemul_acc(acc, &a[i][j], &s[j], &s_cache[j]);
    mc_mlkem_acc_reduce(&t, acc);
    for (unsigned c = 0; c < MC_MLKEM_N; c++)
      t.coeffs[c] = mc_mlkem_fqmul(t.coeffs[c], MC_MLKEM_R2);
    mc_mlkem_ntt(&e[i]);
    poly_add(&t, &e[i]);
    poly_canonical(&t);
    poly_encode12(ek + POLY_BYTES * i, &t);
  }
  memcpy(ek + POLY_BYTES * k, rho, 32);

  for (unsigned i = 0; i < k; i++) {
    poly_canonical(&s[i]);
    poly_encode12(dk + POLY_BYTES * i, &s[i]);
  }
  uint8_t *dk_ek = dk + POLY_BYTES * k;
  memcpy(dk_ek, ek, pk_len(p));
  hash_h(dk_ek + pk_len(p), ek, pk_len(p));
  memcpy(dk_ek + pk_len(p) + 32, z, 32);

  mc_wipe(rho_sigma, sizeof rho_sigma);
  mc_wipe(s, sizeof s);
  mc_wipe(s_cache, sizeof s_cache);
  mc_wipe(&e, sizeof e);
  mc_wipe(&t, sizeof t);
  mc_wipe(acc, sizeof acc);
}

// What encryption needs of an encapsulation key ek, all of it public: H(ek)
// (for Encaps_internal), the transposed matrix at[i][j] = A-hat[j][i] =
// SampleNTT(rho || i || j) and t-hat = ByteDecode_12(ek) (modulo q, as
// ByteDecode_12 defines; encapsulation checks the key beforehand,
// decapsulation does not need to). Entries beyond k are unused.
typedef struct {
  uint8_t h[32];
  mc_mlkem_poly at[MC_MLKEM_MAX_K][MC_MLKEM_MAX_K];
  mc_mlkem_poly t[MC_MLKEM_MAX_K];
} ek_expanded;

// ek_expand fills `x` from `ek`; H(ek) only when `with_hash`.
static void ek_expand(const mlkem_params *p, ek_expanded *x, const uint8_t *ek, int with_hash) {
  const unsigned k = p->k;
  if (with_hash)
    hash_h(x->h, ek, pk_len(p));
  gen_matrix(x->at, ek + POLY_BYTES * k, k, 1);
  for (unsigned j = 0; j < k; j++)
    poly_decode12(&x->t[j], ek + POLY_BYTES * j);
}

// K-PKE.Encrypt (Algorithm 14) of the 32-byte message `m` under the expanded
// key `x` with randomness `r`.
static void pke_encrypt(const mlkem_params *p, uint8_t *c, const ek_expanded *x,
                        const uint8_t m[32], const uint8_t r[32]) {
  const unsigned k = p->k;
  mc_mlkem_poly y[MC_MLKEM_MAX_K], a, e[MC_MLKEM_MAX_K + 1];
  mc_mlkem_mulcache y_cache[MC_MLKEM_MAX_K];
  int32_t acc[MC_MLKEM_N];
  mc_mlkem_poly *noise[2 * MC_MLKEM_MAX_K + 1];
  unsigned noise_eta[2 * MC_MLKEM_MAX_K + 1];

  // y[i] takes PRF nonce i, e1[i] = e[i] nonce k + i and e2 = e[k] nonce 2k.
  for (unsigned i = 0; i < k; i++) {
    noise[i] = &y[i], noise_eta[i] = p->eta1;
    noise[k + i] = &e[i], noise_eta[k + i] = ETA2;
  }
  noise[2 * k] = &e[k], noise_eta[2 * k] = ETA2;
  sample_cbd_vec(noise, noise_eta, 2 * k + 1, r, 0);
  for (unsigned i = 0; i < k; i++) {
    mc_mlkem_ntt(&y[i]);
    mc_mlkem_mulcache_compute(&y_cache[i], &y[i]);
  }
  // u[i] = NTT^-1(sum_j A-hat[j][i] o y-hat[j]) + e1[i].
  for (unsigned i = 0; i < k; i++) {
    memset(acc, 0, sizeof acc);
    for (unsigned j = 0; j < k; j++)
      mc_mlkem_basemul_acc(acc, &x->at[i][j], &y[j], &y_cache[j]);
    mc_mlkem_acc_reduce(&a, acc);
    mc_mlkem_invntt(&a);
    poly_add(&a, &e[i]);
    poly_compress_encode(c + 32 * p->du * i, &a, p->du);
  }
  // v = NTT^-1(t-hat^T o y-hat) + e2 + Decompress_1(m).
  memset(acc, 0, sizeof acc);
  for (unsigned j = 0; j < k; j++)
    mc_mlkem_basemul_acc(acc, &x->t[j], &y[j], &y_cache[j]);
  mc_mlkem_acc_reduce(&a, acc);
  mc_mlkem_invntt(&a);
  poly_add(&a, &e[k]);
  for (unsigned i = 0; i < MC_MLKEM_N; i++) {
    // Decompress_1(bit) is 0 or round(q/2) = 1665, chosen by a mask.
    int16_t bit = (int16_t)((m[i / 8] >> (i % 8)) & 1);
    a.coeffs[i] = (int16_t)(mc_mlkem_barrett_reduce(a.coeffs[i]) + (-bit & 1665));
  }
  poly_compress_encode(c + 32 * p->du * k, &a, p->dv);

  mc_wipe(y, sizeof y);
  mc_wipe(y_cache, sizeof y_cache);
  mc_wipe(&a, sizeof a);
  mc_wipe(&e, sizeof e);
  mc_wipe(acc, sizeof acc);
}

// K-PKE.Decrypt (Algorithm 15): m = Compress_1(v' - NTT^-1(s-hat^T o NTT(u'))).
static void pke_decrypt(const mlkem_params *p, uint8_t m[32], const uint8_t *dk_pke,
                        const uint8_t *c) {
  const unsigned k = p->k;
  mc_mlkem_poly u, s;
  mc_mlkem_mulcache u_cache;
  int32_t acc[MC_MLKEM_N];

  memset(acc, 0, sizeof acc);
  for (unsigned i = 0; i < k; i++) {
    poly_decode_decompress(&u, c + 32 * p->du * i, p->du);
    mc_mlkem_ntt(&u);
    mc_mlkem_mulcache_compute(&u_cache, &u);
    poly_decode12(&s, dk_pke + POLY_BYTES * i);
    mc_mlkem_basemul_acc(acc, &s, &u, &u_cache);
  }
  mc_mlkem_acc_reduce(&s, acc);
  mc_mlkem_invntt(&s);
  poly_decode_decompress(&u, c + 32 * p->du * k, p->dv);
  memset(m, 0, 32);
  for (unsigned i = 0; i < MC_MLKEM_N; i++) {
    int16_t w = mc_mlkem_caddq(mc_mlkem_barrett_reduce((int16_t)(u.coeffs[i] - s.coeffs[i])));
    m[i / 8] |= (uint8_t)(mc_mlkem_compress((uint16_t)w, 1) << (i % 8));
  }
  mc_wipe(&u, sizeof u);
  mc_wipe(&s, sizeof s);
  mc_wipe(&u_cache, sizeof u_cache);
  mc_wipe(acc, sizeof acc);
}

// ML-KEM.Encaps_internal (Algorithm 17): (K, r) = G(m || H(ek)), on the
// expanded key `x`.
static void encaps_internal(const mlkem_params *p, uint8_t *c, uint8_t ss[32], const ek_expanded *x,
                            const uint8_t m[32]) {
  uint8_t kr[64];
  hash_g(kr, m, 32, x->h, 32);
  pke_encrypt(p, c, x, m, kr + 32);
  memcpy(ss, kr, 32);
  mc_wipe(kr, sizeof kr);
}

// The per-thread encapsulation-key cache. A slot holds one key's bytes and
// their expansion; slots are replaced round robin. About 12 KiB a slot.
typedef struct {
  size_t ek_len; // 0: empty. The three levels' key lengths differ.
  uint8_t ek[MC_MLKEM_MAX_PUBLIC_KEY_LEN];
  ek_expanded x;
} ek_slot;

typedef struct {
  ek_slot slot[MC_MLKEM_ENCAPS_CACHE_SLOTS];
  unsigned next; // the slot replaced next
  unsigned long hits;
} ek_cache;

static const mc_thread_cache_kind cache_kind = {sizeof(ek_cache), NULL, NULL};

// cache_get returns the calling thread's cache, making it when needed, or
// NULL when it cannot (encapsulation then works uncached).
static ek_cache *cache_get(void) {
  return mc_thread_cache_get(MC_THREAD_CACHE_MLKEM_ENCAPS, &cache_kind);
}

void mc_mlkem_encaps_cache_clear(void) {
  ek_cache *c = mc_thread_cache_peek(MC_THREAD_CACHE_MLKEM_ENCAPS);
  if (c == NULL)
    return;
  for (size_t i = 0; i < MC_MLKEM_ENCAPS_CACHE_SLOTS; i++)
    c->slot[i].ek_len = 0;
  c->next = 0;
}

unsigned long mc_mlkem_encaps_cache_hits(void) {
  const ek_cache *c = mc_thread_cache_peek(MC_THREAD_CACHE_MLKEM_ENCAPS);
  return c != NULL ? c->hits : 0;
}

// cache_find returns the slot of `c` that holds the `len`-byte key `ek`, or
// NULL. The key is public, so memcmp may stop at the first difference.
static const ek_expanded *cache_find(ek_cache *c, const uint8_t *ek, size_t len) {
  for (size_t i = 0; i < MC_MLKEM_ENCAPS_CACHE_SLOTS; i++) {
    const ek_slot *s = &c->slot[i];
    if (s->ek_len == len && memcmp(s->ek, ek, len) == 0) {
      c->hits++;
      return &s->x;
    }
  }
  return NULL;
}

// cache_insert expands the checked key `ek` into the next slot of `c`.
static const ek_expanded *cache_insert(ek_cache *c, const mlkem_params *p, const uint8_t *ek) {
  ek_slot *s = &c->slot[c->next];
  c->next = (c->next + 1) % MC_MLKEM_ENCAPS_CACHE_SLOTS;
  s->ek_len = 0;
  ek_expand(p, &s->x, ek, 1);
  memcpy(s->ek, ek, pk_len(p));
  s->ek_len = pk_len(p);
  return &s->x;
}

// ML-KEM.Decaps_internal (Algorithm 18) with implicit rejection: the result
// is K' when re-encryption reproduces `c` and J(z || c) otherwise, chosen by
// a mask so that neither the comparison nor the choice branches.
static void decaps_internal(const mlkem_params *p, uint8_t ss[32], const uint8_t *dk,
                            const uint8_t *c) {
  const unsigned k = p->k;
  const uint8_t *ek = dk + POLY_BYTES * k, *h = ek + pk_len(p), *z = h + 32;
  uint8_t m[32], kr[64], reject[32], c2[MC_MLKEM1024_CIPHERTEXT_LEN];
  size_t clen = ct_len(p);
  ek_expanded x;

  pke_decrypt(p, m, dk, c);
  hash_g(kr, m, 32, h, 32);
  ek_expand(p, &x, ek, 0);
  pke_encrypt(p, c2, &x, m, kr + 32);
  hash_j(reject, z, c, clen);

  uint32_t diff = 0;
  for (size_t i = 0; i < clen; i++)
    diff |= (uint32_t)(c[i] ^ c2[i]);
  // mask is all ones when c == c2: (diff - 1) borrows into bit 31 only
  // for diff == 0.
  uint32_t mask = mc_mlkem_value_barrier_u32((uint32_t)0 - ((diff - 1) >> 31));
  for (size_t i = 0; i < 32; i++)
    ss[i] = (uint8_t)(reject[i] ^ (mask & (uint32_t)(kr[i] ^ reject[i])));

  mc_wipe(m, sizeof m);
  mc_wipe(kr, sizeof kr);
  mc_wipe(reject, sizeof reject);
  mc_wipe(c2, sizeof c2);
}

// The §7.2 modulus check: every 12-bit value of the t-hat encoding is below
// q, i.e. ByteEncode_12(ByteDecode_12(ek)) = ek. The key is public.
static int ek_modulus_ok(const mlkem_params *p, const uint8_t *ek) {
  for (size_t i = 0; i < POLY_BYTES * p->k; i += 3) {
    uint16_t x = (uint16_t)(ek[i] | (ek[i + 1] & 0x0f) << 8);
    uint16_t y = (uint16_t)(ek[i + 1] >> 4 | ek[i + 2] << 4);
    if (x >= MC_MLKEM_Q || y >= MC_MLKEM_Q)
      return 0;
  }
  return 1;
}

// The §7.3 hash check: the H(ek) stored in dk matches the ek stored there.
// Both are public parts of the key, so the comparison need not be
// constant-time; they are declassified for the constant-time test, which
// marks the whole decapsulation key secret.
static int dk_hash_ok(const mlkem_params *p, const uint8_t *dk) {
  const uint8_t *ek = dk + POLY_BYTES * p->k;
  uint8_t h[32];
  mc_mlkem_ct_declassify(ek, pk_len(p) + 32);
  hash_h(h, ek, pk_len(p));
  return memcmp(h, ek + pk_len(p), 32) == 0;
}

size_t mc_mlkem_public_key_len(mc_mlkem_level level) {
  const mlkem_params *p = params_for(level);
  return p == NULL ? 0 : pk_len(p);
}

size_t mc_mlkem_private_key_len(mc_mlkem_level level) {
  const mlkem_params *p = params_for(level);
  return p == NULL ? 0 : sk_len(p);
}

size_t mc_mlkem_ciphertext_len(mc_mlkem_level level) {
  const mlkem_params *p = params_for(level);
  return p == NULL ? 0 : ct_len(p);
}

int mc_mlkem_keygen_from_seed(mc_mlkem_level level, uint8_t *out_public_key, size_t public_key_cap,
                              uint8_t *out_private_key, size_t private_key_cap, const uint8_t *seed,
                              size_t seed_len) {
  MC_TRY(mc_impl_check());
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || out_public_key == NULL || out_private_key == NULL || seed == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(public_key_cap < pk_len(p) || private_key_cap < sk_len(p), MC_ERR_BUFFER_TOO_SMALL);
  MC_FAIL_IF(seed_len != MC_MLKEM_SEED_LEN, MC_ERR_BAD_KEY);
  keygen_internal(p, out_public_key, out_private_key, seed, seed + 32);
  return 0;
}

int mc_mlkem_keygen(mc_mlkem_level level, uint8_t *out_public_key, size_t public_key_cap,
                    uint8_t *out_private_key, size_t private_key_cap, uint8_t *out_seed) {
  MC_TRY(mc_impl_check());
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || out_public_key == NULL || out_private_key == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(public_key_cap < pk_len(p) || private_key_cap < sk_len(p), MC_ERR_BUFFER_TOO_SMALL);
  uint8_t seed[MC_MLKEM_SEED_LEN];
  // BoringSSL's RAND_bytes cannot fail: it aborts the process rather than
  // return short output.
  RAND_bytes(seed, sizeof seed);
  keygen_internal(p, out_public_key, out_private_key, seed, seed + 32);
  if (out_seed != NULL)
    memcpy(out_seed, seed, sizeof seed);
  mc_wipe(seed, sizeof seed);
  return 0;
}

int mc_mlkem_check_public_key(mc_mlkem_level level, const uint8_t *public_key,
                              size_t public_key_len) {
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || (public_key == NULL && public_key_len != 0), MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(public_key_len != pk_len(p) || !ek_modulus_ok(p, public_key), MC_ERR_BAD_KEY);
  return 0;
}

int mc_mlkem_check_private_key(mc_mlkem_level level, const uint8_t *private_key,
                               size_t private_key_len) {
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || (private_key == NULL && private_key_len != 0), MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(private_key_len != sk_len(p) || !dk_hash_ok(p, private_key), MC_ERR_BAD_KEY);
  return 0;
}

int mc_mlkem_encaps_derand(mc_mlkem_level level, uint8_t *out_ciphertext, size_t ciphertext_cap,
                           uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN],
                           const uint8_t *public_key, size_t public_key_len,
                           const uint8_t entropy[MC_MLKEM_ENCAPS_ENTROPY_LEN]) {
  MC_TRY(mc_impl_check());
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || out_ciphertext == NULL || out_shared_secret == NULL || entropy == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(ciphertext_cap < ct_len(p), MC_ERR_BUFFER_TOO_SMALL);
  MC_FAIL_IF(public_key == NULL && public_key_len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(public_key_len != pk_len(p), MC_ERR_BAD_KEY);
  ek_cache *cache = cache_get();
  // A cached key passed the modulus check when it was inserted.
  const ek_expanded *x = cache != NULL ? cache_find(cache, public_key, public_key_len) : NULL;
  if (x != NULL) {
    encaps_internal(p, out_ciphertext, out_shared_secret, x, entropy);
    return 0;
  }
  MC_FAIL_IF(!ek_modulus_ok(p, public_key), MC_ERR_BAD_KEY);
  if (cache != NULL) {
    encaps_internal(p, out_ciphertext, out_shared_secret, cache_insert(cache, p, public_key),
                    entropy);
    return 0;
  }
  ek_expanded local;
  ek_expand(p, &local, public_key, 1);
  encaps_internal(p, out_ciphertext, out_shared_secret, &local, entropy);
  return 0;
}

int mc_mlkem_encaps(mc_mlkem_level level, uint8_t *out_ciphertext, size_t ciphertext_cap,
                    uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN],
                    const uint8_t *public_key, size_t public_key_len) {
  uint8_t m[MC_MLKEM_ENCAPS_ENTROPY_LEN];
  RAND_bytes(m, sizeof m);
  int status = mc_mlkem_encaps_derand(level, out_ciphertext, ciphertext_cap, out_shared_secret,
                                      public_key, public_key_len, m);
  mc_wipe(m, sizeof m);
  return status;
}

int mc_mlkem_decaps(mc_mlkem_level level, uint8_t out_shared_secret[MC_MLKEM_SHARED_SECRET_LEN],
                    const uint8_t *private_key, size_t private_key_len, const uint8_t *ciphertext,
                    size_t ciphertext_len) {
  MC_TRY(mc_impl_check());
  const mlkem_params *p = params_for(level);
  MC_FAIL_IF(p == NULL || out_shared_secret == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((private_key == NULL && private_key_len != 0) ||
                 (ciphertext == NULL && ciphertext_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_TRY(mc_mlkem_check_private_key(level, private_key, private_key_len));
  MC_FAIL_IF(ciphertext_len != ct_len(p), MC_ERR_BAD_CIPHERTEXT);
  decaps_internal(p, out_shared_secret, private_key, ciphertext);
  return 0;
}
