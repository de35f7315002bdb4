// fuzz_impl.c: every implementation of the table (impl.c) that this CPU
// supports against scalar, differentially. The first byte picks a kernel;
// the rest fills its inputs, mapped into the ranges its contract allows:
// the four-way Keccak-f[1600] on any state, the ML-DSA NTT (|x| < q),
// inverse NTT (|x| < q), products (NTT-domain inputs below 9q, matrix entries
// in [0, q)), the ML-KEM NTT, inverse NTT, products and reduction, and the
// four-way samplers (ExpandA, ExpandS, ExpandMask) on
// any seed against the one-at-a-time ones. Any difference aborts.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "impl_internal.h"
#include "mldsa_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// take returns the next input byte, or 0 once the input is used up, so every
// input is accepted whatever its length.
static uint8_t take(const uint8_t **p, size_t *n) {
  if (*n == 0)
    return 0;
  (*n)--;
  return *(*p)++;
}

// take_coeff returns a value in [lo, hi] from the next four input bytes;
// the extremes come up often, as they are where bounds fail.
static int32_t take_coeff(const uint8_t **p, size_t *n, int32_t lo, int32_t hi) {
  uint32_t v = take(p, n);
  v |= (uint32_t)take(p, n) << 8 | (uint32_t)take(p, n) << 16 | (uint32_t)take(p, n) << 24;
  if ((v & 0xff) == 0xfe)
    return lo;
  if ((v & 0xff) == 0xff)
    return hi;
  return lo + (int32_t)(v % (uint32_t)((int64_t)hi - lo + 1));
}

static void take_poly(mc_mldsa_poly *a, const uint8_t **p, size_t *n, int32_t lo, int32_t hi) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++)
    a->c[i] = take_coeff(p, n, lo, hi);
}

static void check_same(const void *a, const void *b, size_t len) {
  if (memcmp(a, b, len) != 0)
    abort();
}

// run_kernel runs kernel `which` on the current implementation and on
// scalar (or the one-at-a-time sampler) and compares.
static void run_kernel(unsigned which, const uint8_t *in, size_t len) {
  static mc_mldsa_poly a, b, x, y, row[MC_MLDSA_MAX_L], vec[MC_MLDSA_MAX_L];
  static mc_mldsa_poly mat[MC_MLDSA_MAX_K][MC_MLDSA_MAX_L], s1[MC_MLDSA_MAX_L];
  static mc_mldsa_poly s2[MC_MLDSA_MAX_K];
  const int32_t q = MC_MLDSA_Q;
  const struct mc_impl *im = mc_impl_current();
  switch (which) {
  case 0: {
    mc_keccak_x4 s, t;
    for (unsigned i = 0; i < 100; i++)
      for (unsigned k = 0; k < 8; k++)
        s.s[i] = s.s[i] << 8 | take(&in, &len);
    t = s;
    im->keccak_f1600_x4(&s);
    mc_keccak_f1600_x4_scalar(&t);
    check_same(s.s, t.s, sizeof s.s);
    break;
  }
  case 1:
    take_poly(&a, &in, &len, -q + 1, q - 1);
    x = a, y = a;
    im->mldsa_ntt(&x);
    mc_mldsa_ntt_scalar(&y);
    check_same(x.c, y.c, sizeof x.c);
    break;
  case 2:
    take_poly(&a, &in, &len, -q + 1, q - 1);
    x = a, y = a;
    im->mldsa_invntt(&x);
    mc_mldsa_invntt_scalar(&y);
    check_same(x.c, y.c, sizeof x.c);
    break;
  case 3:
    take_poly(&a, &in, &len, -9 * q + 1, 9 * q - 1);
    take_poly(&b, &in, &len, -9 * q + 1, 9 * q - 1);
    im->mldsa_pointwise(&x, &a, &b);
    mc_mldsa_pointwise_scalar(&y, &a, &b);
    check_same(x.c, y.c, sizeof x.c);
    take_poly(&x, &in, &len, -q + 1, q - 1);
    y = x;
    im->mldsa_pointwise_acc(&x, &a, &b);
    mc_mldsa_pointwise_acc_scalar(&y, &a, &b);
    check_same(x.c, y.c, sizeof x.c);
    break;
  case 4: {
    unsigned num = 1 + take(&in, &len) % MC_MLDSA_MAX_L;
    for (unsigned j = 0; j < num; j++) {
      take_poly(&row[j], &in, &len, 0, q - 1);
      take_poly(&vec[j], &in, &len, -9 * q + 1, 9 * q - 1);
    }
    im->mldsa_pointwise_sum(&x, row, vec, num);
    mc_mldsa_pointwise_sum_scalar(&y, row, vec, num);
    check_same(x.c, y.c, sizeof x.c);
    break;
  }
  case 5: {
    // ML-KEM: NTT and inverse NTT on any 16-bit input (both sides wrap the
    // same way), products of inputs in (−q, q) and their reduction.
    static mc_mlkem_poly ka, kb, kx, ky;
    static int32_t acc_x[MC_MLKEM_N], acc_y[MC_MLKEM_N];
    static mc_mlkem_mulcache cache;
    const int32_t kq = MC_MLKEM_Q;
    for (unsigned i = 0; i < MC_MLKEM_N; i++)
      ka.coeffs[i] = (int16_t)take_coeff(&in, &len, -32768, 32767);
    kx = ka, ky = ka;
    im->mlkem_ntt(&kx);
    mc_mlkem_ntt_scalar(&ky);
    check_same(kx.coeffs, ky.coeffs, sizeof kx.coeffs);
    kx = ka, ky = ka;
    im->mlkem_invntt(&kx);
    mc_mlkem_invntt_scalar(&ky);
    check_same(kx.coeffs, ky.coeffs, sizeof kx.coeffs);
    memset(acc_x, 0, sizeof acc_x);
    memset(acc_y, 0, sizeof acc_y);
    unsigned num = 1 + take(&in, &len) % 4;
    for (unsigned t = 0; t < num; t++) {
      for (unsigned i = 0; i < MC_MLKEM_N; i++) {
        ka.coeffs[i] = (int16_t)take_coeff(&in, &len, -kq + 1, kq - 1);
        kb.coeffs[i] = (int16_t)take_coeff(&in, &len, -kq + 1, kq - 1);
      }
      mc_mlkem_mulcache_compute(&cache, &kb);
      im->mlkem_basemul_acc(acc_x, &ka, &kb, &cache);
      mc_mlkem_basemul_acc_scalar(acc_y, &ka, &kb, &cache);
      check_same(acc_x, acc_y, sizeof acc_x);
    }
    im->mlkem_acc_reduce(&kx, acc_x);
    mc_mlkem_acc_reduce_scalar(&ky, acc_y);
    check_same(kx.coeffs, ky.coeffs, sizeof kx.coeffs);
    break;
  }
  default: {
    // The four-way samplers against the one-at-a-time ones, at a level
    // from the input; seeds are the input bytes (zero-padded).
    const mc_mldsa_params *p = mc_mldsa_params_get(MC_MLDSA_44 + take(&in, &len) % 3);
    uint8_t rho[32], rho2[64], seed[66];
    for (unsigned i = 0; i < sizeof rho; i++)
      rho[i] = take(&in, &len);
    for (unsigned i = 0; i < sizeof rho2; i++)
      rho2[i] = take(&in, &len);
    uint16_t kappa = (uint16_t)(take(&in, &len) | take(&in, &len) << 8);
    mc_mldsa_expand_a(mat, rho, p->k, p->l);
    for (unsigned i = 0; i < p->k; i++) {
      for (unsigned j = 0; j < p->l; j++) {
        memcpy(seed, rho, 32);
        seed[32] = (uint8_t)j;
        seed[33] = (uint8_t)i;
        mc_mldsa_rej_ntt_poly(&y, seed);
        check_same(mat[i][j].c, y.c, sizeof y.c);
      }
    }
    mc_mldsa_expand_s(s1, s2, rho2, p);
    for (unsigned r = 0; r < p->l + p->k; r++) {
      memcpy(seed, rho2, 64);
      seed[64] = (uint8_t)r;
      seed[65] = 0;
      mc_mldsa_rej_bounded_poly(&y, seed, p->eta);
      check_same(r < p->l ? s1[r].c : s2[r - p->l].c, y.c, sizeof y.c);
    }
    mc_mldsa_expand_mask_vec(row, rho2, kappa, p);
    for (unsigned r = 0; r < p->l; r++) {
      mc_mldsa_expand_mask(&y, rho2, (uint16_t)(kappa + r), p);
      check_same(row[r].c, y.c, sizeof y.c);
    }
    break;
  }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned which = data[0] % 7;
  for (size_t i = 0; i < mc_impl_count(); i++) {
    int sup;
    const char *name = mc_impl_get(i, &sup);
    if (!sup)
      continue;
    if (mc_impl_force(name) != 0 || strcmp(mc_impl_name(), name) != 0)
      abort();
    run_kernel(which, data + 1, size - 1);
  }
  return 0;
}
