// test_impl.c: libmsgcrypt's implementation table (src/impl.c): listing,
// forcing, MSGCRYPT_IMPL and the "unsupported" singleton; and every
// implementation this CPU supports against scalar, kernel by kernel
// (four-way Keccak, ML-DSA and ML-KEM NTT, inverse NTT and products, the
// four-way samplers) on random and extreme inputs, then whole ML-KEM and ML-DSA
// operations byte for byte.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "impl_internal.h"
#include "mldsa_internal.h"
#include "mlkem_internal.h"
#include "msgcrypt.h"

// A fixed xorshift64* stream: the inputs differ per call but every run of
// the test sees the same ones.
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

// rng_range returns a value in [lo, hi].
static int32_t rng_range(int32_t lo, int32_t hi) {
  return lo + (int32_t)(rng_next() % (uint64_t)((int64_t)hi - lo + 1));
}

// fill_poly sets `a` to coefficients in [lo, hi]: random ones for `kind` 0,
// all `lo` for 1, all `hi` for 2, alternating for 3.
static void fill_poly(mc_mldsa_poly *a, int32_t lo, int32_t hi, int kind) {
  for (unsigned i = 0; i < MC_MLDSA_N; i++) {
    switch (kind) {
    case 0:
      a->c[i] = rng_range(lo, hi);
      break;
    case 1:
      a->c[i] = lo;
      break;
    case 2:
      a->c[i] = hi;
      break;
    default:
      a->c[i] = i % 2 ? lo : hi;
      break;
    }
  }
}

// The supported implementations other than the one under test are compared
// after forcing; each test runs in its own process (Check's fork mode), so
// forcing does not leak between tests.
static size_t num_supported(const char **names, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < mc_impl_count() && n < cap; i++) {
    int sup;
    const char *name = mc_impl_get(i, &sup);
    if (sup)
      names[n++] = name;
  }
  return n;
}

START_TEST(listing) {
  size_t n = mc_impl_count();
  ck_assert_uint_ge(n, 1);
  int sup = 0;
  ck_assert_str_eq(mc_impl_get(n - 1, &sup), "scalar");
  ck_assert_int_eq(sup, 1);
  ck_assert_ptr_null(mc_impl_get(n, &sup));
  ck_assert_ptr_nonnull(mc_impl_get(0, NULL));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      ck_assert_str_ne(mc_impl_get(i, NULL), mc_impl_get(j, NULL));
}
END_TEST

START_TEST(forcing) {
  const char *env = getenv("MSGCRYPT_IMPL");
  if (env != NULL && env[0] != '\0')
    ck_assert_str_eq(mc_impl_name(), env);
  const char *before = mc_impl_name();
  ck_assert_int_eq(mc_impl_force("no-such-implementation"), MC_ERR_UNSUPPORTED);
  ck_assert_str_eq(mc_impl_name(), before);
  uint8_t pk[MC_MLDSA44_PUBLIC_KEY_LEN], sk[MC_MLDSA44_PRIVATE_KEY_LEN], seed[32] = {1};
  for (size_t i = 0; i < mc_impl_count(); i++) {
    int sup;
    const char *name = mc_impl_get(i, &sup);
    ck_assert_int_eq(mc_impl_force(name), sup ? 0 : MC_ERR_UNSUPPORTED);
    if (sup) {
      ck_assert_str_eq(mc_impl_name(), name);
      ck_assert_int_eq(mc_mldsa_keygen_from_seed(MC_MLDSA_44, pk, sizeof pk, sk, sizeof sk, seed),
                       0);
    }
  }
  // NULL returns to the best implementation: the first supported one.
  ck_assert_int_eq(mc_impl_force(NULL), 0);
  const char *names[8];
  ck_assert_uint_ge(num_supported(names, 8), 1);
  ck_assert_str_eq(mc_impl_name(), names[0]);
}
END_TEST

START_TEST(unsupported_singleton) {
  // Registered with MSGCRYPT_IMPL=no-such-implementation.
  ck_assert_str_eq(mc_impl_name(), "unsupported");
  uint8_t pk[MC_MLDSA44_PUBLIC_KEY_LEN], sk[MC_MLDSA44_PRIVATE_KEY_LEN];
  uint8_t sig[MC_MLDSA44_SIGNATURE_LEN], seed[32] = {2}, rnd[32] = {0};
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(MC_MLDSA_44, pk, sizeof pk, sk, sizeof sk, seed),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mldsa_keygen(MC_MLDSA_44, pk, sizeof pk, sk, sizeof sk, NULL),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mldsa_sign(MC_MLDSA_44, sig, sizeof sig, sk, sizeof sk, seed, 1, NULL, 0),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(
      mc_mldsa_sign_internal(MC_MLDSA_44, sig, sizeof sig, sk, sizeof sk, seed, 1, rnd),
      MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mldsa_verify(MC_MLDSA_44, pk, sizeof pk, sig, sizeof sig, seed, 1, NULL, 0),
                   MC_ERR_UNSUPPORTED);
  uint8_t ek[MC_MLKEM768_PUBLIC_KEY_LEN], dk[MC_MLKEM768_PRIVATE_KEY_LEN];
  uint8_t ct[MC_MLKEM768_CIPHERTEXT_LEN], ss[MC_MLKEM_SHARED_SECRET_LEN], coins[64] = {3};
  ck_assert_int_eq(
      mc_mlkem_keygen_from_seed(MC_MLKEM_768, ek, sizeof ek, dk, sizeof dk, coins, sizeof coins),
      MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mlkem_keygen(MC_MLKEM_768, ek, sizeof ek, dk, sizeof dk, NULL),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mlkem_encaps_derand(MC_MLKEM_768, ct, sizeof ct, ss, ek, sizeof ek, coins),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mlkem_encaps(MC_MLKEM_768, ct, sizeof ct, ss, ek, sizeof ek),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_768, ss, dk, sizeof dk, ct, sizeof ct),
                   MC_ERR_UNSUPPORTED);
  ck_assert_str_eq(mc_strerror(MC_ERR_UNSUPPORTED), "unsupported algorithm or format");
  // A program can still pick a real one.
  ck_assert_int_eq(mc_impl_force("scalar"), 0);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(MC_MLDSA_44, pk, sizeof pk, sk, sizeof sk, seed), 0);
}
END_TEST

START_TEST(keccak_x4_matches_scalar) {
  const char *names[8];
  size_t n = num_supported(names, 8);
  for (size_t im = 0; im < n; im++) {
    ck_assert_int_eq(mc_impl_force(names[im]), 0);
    for (int trial = 0; trial < 50; trial++) {
      mc_keccak_x4 a, b, orig;
      for (unsigned i = 0; i < 100; i++)
        orig.s[i] = trial == 0 ? 0 : trial == 1 ? ~(uint64_t)0 : rng_next();
      a = orig, b = orig;
      mc_impl_current()->keccak_f1600_x4(&a);
      mc_keccak_f1600_x4_scalar(&b);
      ck_assert_mem_eq(a.s, b.s, sizeof a.s);
      // And each lane against the one-state permutation.
      for (unsigned j = 0; j < 4; j++) {
        uint64_t one[25];
        for (unsigned i = 0; i < 25; i++)
          one[i] = orig.s[4 * i + j];
        mc_keccak_f1600(one);
        for (unsigned i = 0; i < 25; i++)
          ck_assert_uint_eq(one[i], a.s[4 * i + j]);
      }
    }
    // SHAKE through the four-way sponge equals mc_shake for each lane.
    uint8_t in[4][66], out[4][3 * 168], want[3 * 168];
    const uint8_t *inp[4] = {in[0], in[1], in[2], in[3]};
    uint8_t *outp[4] = {out[0], out[1], out[2], out[3]};
    for (unsigned rate = 136; rate <= 168; rate += 32) {
      for (size_t len = 0; len < 66; len += 11) {
        for (unsigned j = 0; j < 4; j++)
          for (size_t i = 0; i < len; i++)
            in[j][i] = (uint8_t)rng_next();
        mc_keccak_x4 st;
        mc_shake_x4_absorb(&st, rate, inp, len);
        // Two blocks, then one more after them.
        mc_shake_x4_squeeze_blocks(&st, rate, outp, 2);
        uint8_t *third[4] = {out[0] + 2 * rate, out[1] + 2 * rate, out[2] + 2 * rate,
                             out[3] + 2 * rate};
        mc_shake_x4_squeeze_blocks(&st, rate, third, 1);
        for (unsigned j = 0; j < 4; j++) {
          ck_assert_int_eq(
              mc_shake(rate == 168 ? MC_SHAKE128 : MC_SHAKE256, want, 3 * rate, in[j], len), 0);
          ck_assert_mem_eq(out[j], want, 3 * rate);
        }
      }
    }
  }
}
END_TEST

START_TEST(mldsa_kernels_match_scalar) {
  const char *names[8];
  size_t n = num_supported(names, 8);
  const int32_t q = MC_MLDSA_Q;
  for (size_t im = 0; im < n; im++) {
    ck_assert_int_eq(mc_impl_force(names[im]), 0);
    for (int trial = 0; trial < 200; trial++) {
      int kind = trial < 4 ? trial : 0;
      mc_mldsa_poly a, b, x, y;
      // NTT: |input| < q.
      fill_poly(&a, -q + 1, q - 1, kind);
      x = a, y = a;
      mc_mldsa_ntt(&x);
      mc_mldsa_ntt_scalar(&y);
      ck_assert_mem_eq(x.c, y.c, sizeof x.c);
      // Inverse NTT: |input| < q.
      fill_poly(&a, -q + 1, q - 1, (kind + 1) % 4);
      x = a, y = a;
      mc_mldsa_invntt(&x);
      mc_mldsa_invntt_scalar(&y);
      ck_assert_mem_eq(x.c, y.c, sizeof x.c);
      // Products: NTT-domain inputs bounded by 9q; sums take a in [0, q).
      fill_poly(&a, -9 * q + 1, 9 * q - 1, kind);
      fill_poly(&b, -9 * q + 1, 9 * q - 1, (kind + 2) % 4);
      mc_mldsa_pointwise(&x, &a, &b);
      mc_mldsa_pointwise_scalar(&y, &a, &b);
      ck_assert_mem_eq(x.c, y.c, sizeof x.c);
      fill_poly(&x, -q + 1, q - 1, 0);
      y = x;
      mc_mldsa_pointwise_acc(&x, &a, &b);
      mc_mldsa_pointwise_acc_scalar(&y, &a, &b);
      ck_assert_mem_eq(x.c, y.c, sizeof x.c);
      mc_mldsa_poly row[MC_MLDSA_MAX_L], vec[MC_MLDSA_MAX_L];
      for (unsigned j = 0; j < MC_MLDSA_MAX_L; j++) {
        fill_poly(&row[j], 0, q - 1, kind);
        fill_poly(&vec[j], -9 * q + 1, 9 * q - 1, (kind + j) % 4);
      }
      for (unsigned num = 1; num <= MC_MLDSA_MAX_L; num++) {
        mc_mldsa_pointwise_sum(&x, row, vec, num);
        mc_mldsa_pointwise_sum_scalar(&y, row, vec, num);
        ck_assert_mem_eq(x.c, y.c, sizeof x.c);
      }
    }
    // Round trip: the product with 1 removes 2^32, which the inverse NTT
    // puts back, so invNTT(NTT(a) ∘ 1) = a mod q.
    mc_mldsa_poly a, x, r;
    fill_poly(&a, -q + 1, q - 1, 0);
    x = a;
    mc_mldsa_ntt(&x);
    for (unsigned i = 0; i < MC_MLDSA_N; i++)
      r.c[i] = 1;
    mc_mldsa_pointwise(&x, &x, &r);
    mc_mldsa_invntt(&x);
    for (unsigned i = 0; i < MC_MLDSA_N; i++)
      ck_assert_int_eq(((x.c[i] - a.c[i]) % q + q) % q, 0);
  }
}
END_TEST

// fill_kem sets `p` to coefficients in [lo, hi] (random for kind 0, the
// extremes or alternating otherwise, as fill_poly).
static void fill_kem(mc_mlkem_poly *p, int32_t lo, int32_t hi, int kind) {
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    p->coeffs[i] = (int16_t)(kind == 0   ? rng_range(lo, hi)
                             : kind == 1 ? lo
                             : kind == 2 ? hi
                                         : (i % 2 ? lo : hi));
}

START_TEST(mlkem_kernels_match_scalar) {
  const char *names[8];
  size_t n = num_supported(names, 8);
  const int32_t q = MC_MLKEM_Q;
  for (size_t im = 0; im < n; im++) {
    ck_assert_int_eq(mc_impl_force(names[im]), 0);
    for (int trial = 0; trial < 300; trial++) {
      int kind = trial < 4 ? trial : 0;
      // Inside the contracts, (−q, q); and, since both sides wrap the same
      // 16-bit way, over all of int16 too.
      int32_t lo = trial % 2 ? -32768 : -q + 1, hi = trial % 2 ? 32767 : q - 1;
      mc_mlkem_poly a, b, x, y;
      fill_kem(&a, lo, hi, kind);
      x = a, y = a;
      mc_mlkem_ntt(&x);
      mc_mlkem_ntt_scalar(&y);
      ck_assert_mem_eq(x.coeffs, y.coeffs, sizeof x.coeffs);
      fill_kem(&a, lo, hi, (kind + 1) % 4);
      x = a, y = a;
      mc_mlkem_invntt(&x);
      mc_mlkem_invntt_scalar(&y);
      ck_assert_mem_eq(x.coeffs, y.coeffs, sizeof x.coeffs);
      // Up to four products into the same sums, then the reduction.
      static int32_t acc_x[MC_MLKEM_N], acc_y[MC_MLKEM_N];
      for (unsigned i = 0; i < MC_MLKEM_N; i++)
        acc_x[i] = acc_y[i] = rng_range(-q * q, q * q);
      for (int prod = 0; prod < 4; prod++) {
        mc_mlkem_mulcache cache;
        fill_kem(&a, -q + 1, q - 1, kind);
        fill_kem(&b, -q + 1, q - 1, (kind + prod) % 4);
        mc_mlkem_mulcache_compute(&cache, &b);
        mc_mlkem_basemul_acc(acc_x, &a, &b, &cache);
        mc_mlkem_basemul_acc_scalar(acc_y, &a, &b, &cache);
        ck_assert_mem_eq(acc_x, acc_y, sizeof acc_x);
      }
      mc_mlkem_acc_reduce(&x, acc_x);
      mc_mlkem_acc_reduce_scalar(&y, acc_y);
      ck_assert_mem_eq(x.coeffs, y.coeffs, sizeof x.coeffs);
      // The reduction at the edges of its input range, |acc| < q · 2^15.
      for (unsigned i = 0; i < MC_MLKEM_N; i++)
        acc_x[i] = acc_y[i] = (i % 3 == 0)   ? q * 32768 - 1
                              : (i % 3 == 1) ? -q * 32768 + 1
                                             : rng_range(-q * 32768 + 1, q * 32768 - 1);
      mc_mlkem_acc_reduce(&x, acc_x);
      mc_mlkem_acc_reduce_scalar(&y, acc_y);
      ck_assert_mem_eq(x.coeffs, y.coeffs, sizeof x.coeffs);
    }
  }
}
END_TEST

START_TEST(mldsa_samplers_match_one_at_a_time) {
  const char *names[8];
  size_t n = num_supported(names, 8);
  static mc_mldsa_poly a[MC_MLDSA_MAX_K][MC_MLDSA_MAX_L];
  for (size_t im = 0; im < n; im++) {
    ck_assert_int_eq(mc_impl_force(names[im]), 0);
    for (int level = MC_MLDSA_44; level <= MC_MLDSA_87; level++) {
      const mc_mldsa_params *p = mc_mldsa_params_get(level);
      uint8_t rho[32], rho_prime[64], seed[66];
      for (unsigned i = 0; i < 32; i++)
        rho[i] = (uint8_t)rng_next();
      for (unsigned i = 0; i < 64; i++)
        rho_prime[i] = (uint8_t)rng_next();
      mc_mldsa_expand_a(a, rho, p->k, p->l);
      for (unsigned i = 0; i < p->k; i++) {
        for (unsigned j = 0; j < p->l; j++) {
          mc_mldsa_poly want;
          memcpy(seed, rho, 32);
          seed[32] = (uint8_t)j;
          seed[33] = (uint8_t)i;
          mc_mldsa_rej_ntt_poly(&want, seed);
          ck_assert_mem_eq(a[i][j].c, want.c, sizeof want.c);
        }
      }
      mc_mldsa_poly s1[MC_MLDSA_MAX_L], s2[MC_MLDSA_MAX_K], y[MC_MLDSA_MAX_L];
      mc_mldsa_expand_s(s1, s2, rho_prime, p);
      for (unsigned r = 0; r < p->l + p->k; r++) {
        mc_mldsa_poly want;
        memcpy(seed, rho_prime, 64);
        seed[64] = (uint8_t)r;
        seed[65] = 0;
        mc_mldsa_rej_bounded_poly(&want, seed, p->eta);
        ck_assert_mem_eq(r < p->l ? s1[r].c : s2[r - p->l].c, want.c, sizeof want.c);
      }
      // κ near the 8-bit carry, and far into the 16-bit counter.
      const uint16_t kappas[] = {0, 250, 4995};
      for (unsigned t = 0; t < 3; t++) {
        mc_mldsa_expand_mask_vec(y, rho_prime, kappas[t], p);
        for (unsigned r = 0; r < p->l; r++) {
          mc_mldsa_poly want;
          mc_mldsa_expand_mask(&want, rho_prime, (uint16_t)(kappas[t] + r), p);
          ck_assert_mem_eq(y[r].c, want.c, sizeof want.c);
        }
      }
    }
  }
}
END_TEST

// Whole operations: every supported implementation makes the same keys,
// signatures, ciphertexts and shared secrets as scalar.
START_TEST(operations_match_scalar) {
  const char *names[8];
  size_t n = num_supported(names, 8);
  static const mc_mldsa_level dsa_levels[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};
  static const mc_mlkem_level kem_levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  static uint8_t pk[2][MC_MLDSA87_PUBLIC_KEY_LEN], sk[2][MC_MLDSA87_PRIVATE_KEY_LEN];
  static uint8_t sig[2][MC_MLDSA87_SIGNATURE_LEN];
  static uint8_t ek[2][MC_MLKEM1024_PUBLIC_KEY_LEN], dk[2][MC_MLKEM1024_PRIVATE_KEY_LEN];
  static uint8_t ct[2][MC_MLKEM1024_CIPHERTEXT_LEN], ss[2][32], ss2[2][32];
  for (size_t im = 0; im + 1 < n; im++) {
    for (int round = 0; round < 3; round++) {
      uint8_t seed[64], rnd[32], msg[100];
      for (unsigned i = 0; i < sizeof seed; i++)
        seed[i] = (uint8_t)rng_next();
      for (unsigned i = 0; i < sizeof rnd; i++)
        rnd[i] = (uint8_t)rng_next();
      for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)rng_next();
      for (unsigned l = 0; l < 3; l++) {
        mc_mldsa_level level = dsa_levels[l];
        size_t pkl = mc_mldsa_public_key_len(level), skl = mc_mldsa_private_key_len(level);
        size_t sgl = mc_mldsa_signature_len(level);
        for (int side = 0; side < 2; side++) {
          ck_assert_int_eq(mc_impl_force(side == 0 ? names[im] : "scalar"), 0);
          ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk[side], pkl, sk[side], skl, seed), 0);
          ck_assert_int_eq(
              mc_mldsa_sign_internal(level, sig[side], sgl, sk[side], skl, msg, sizeof msg, rnd),
              0);
          ck_assert_int_eq(
              mc_mldsa_verify_internal(level, pk[side], pkl, sig[side], sgl, msg, sizeof msg), 0);
          // A flipped message bit must fail on every implementation.
          msg[round] ^= 1;
          ck_assert_int_eq(
              mc_mldsa_verify_internal(level, pk[side], pkl, sig[side], sgl, msg, sizeof msg),
              MC_ERR_BAD_SIGNATURE);
          msg[round] ^= 1;
        }
        ck_assert_mem_eq(pk[0], pk[1], pkl);
        ck_assert_mem_eq(sk[0], sk[1], skl);
        ck_assert_mem_eq(sig[0], sig[1], sgl);
      }
      for (unsigned l = 0; l < 3; l++) {
        mc_mlkem_level level = kem_levels[l];
        size_t ekl = mc_mlkem_public_key_len(level), dkl = mc_mlkem_private_key_len(level);
        size_t ctl = mc_mlkem_ciphertext_len(level);
        for (int side = 0; side < 2; side++) {
          ck_assert_int_eq(mc_impl_force(side == 0 ? names[im] : "scalar"), 0);
          ck_assert_int_eq(
              mc_mlkem_keygen_from_seed(level, ek[side], ekl, dk[side], dkl, seed, sizeof seed), 0);
          ck_assert_int_eq(
              mc_mlkem_encaps_derand(level, ct[side], ctl, ss[side], ek[side], ekl, rnd), 0);
          ck_assert_int_eq(mc_mlkem_decaps(level, ss2[side], dk[side], dkl, ct[side], ctl), 0);
          ck_assert_mem_eq(ss[side], ss2[side], 32);
        }
        ck_assert_mem_eq(ek[0], ek[1], ekl);
        ck_assert_mem_eq(dk[0], dk[1], dkl);
        ck_assert_mem_eq(ct[0], ct[1], ctl);
        ck_assert_mem_eq(ss[0], ss[1], 32);
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("impl");
  TCase *tc = tcase_create("impl");
  tcase_set_timeout(tc, 120);
  if (strcmp(mc_impl_name(), "unsupported") == 0) {
    tcase_add_test(tc, unsupported_singleton);
  } else {
    tcase_add_test(tc, listing);
    tcase_add_test(tc, forcing);
    tcase_add_test(tc, keccak_x4_matches_scalar);
    tcase_add_test(tc, mldsa_kernels_match_scalar);
    tcase_add_test(tc, mldsa_samplers_match_one_at_a_time);
    tcase_add_test(tc, mlkem_kernels_match_scalar);
    tcase_add_test(tc, operations_match_scalar);
  }
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
