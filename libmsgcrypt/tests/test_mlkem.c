// test_mlkem.c: ML-KEM-512/768/1024 (FIPS 203) against every official vector
// we have: the NIST ACVP keyGen and encapDecap files (including the
// encapsulation- and decapsulation-key checks), the Wycheproof mlkem_* files,
// the RFC 9935 key files (seed, expanded and both forms, and the four
// inconsistent examples) and the RFC 9936 CMS example's shared secret. It also
// checks the arithmetic exhaustively against the plain definitions (Barrett,
// Montgomery, Compress/Decompress, the zeta table, NTT products against
// schoolbook multiplication), round trips with random keys, implicit
// rejection against J(z || c) computed independently with mc_shake, and the
// API's errors. The per-thread encapsulation-key cache is checked against the
// ACVP encapsulation vectors cold and warm, for hits, round-robin
// replacement, keys that differ from a cached one in one byte, and threads
// (under ASan its pthread destructor must leave no leak).
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "mlkem_internal.h"
#include "msgcrypt.h"
#include "testutil.h"
#include "vecjson.h"

static const mc_mlkem_level levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
static const char *const level_names[] = {"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"};

static mc_mlkem_level level_of(const char *name) {
  for (size_t i = 0; i < 3; i++)
    if (name != NULL && strcmp(name, level_names[i]) == 0)
      return levels[i];
  ck_abort_msg("unknown parameter set %s", name ? name : "(null)");
  return MC_MLKEM_512;
}

// unhex_field decodes the hex member `key` of `obj` (missing = empty).
static uint8_t *unhex_field(const vj_value *obj, const char *key, size_t *len) {
  const char *hex = vj_str(obj, key);
  uint8_t *out = mc_test_unhex(hex != NULL ? hex : "", len);
  ck_assert_msg(out != NULL, "bad hex in %s", key);
  return out;
}

static vj_value *load(const char *rel) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, rel));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  return root;
}

// Arithmetic.

static int mod_q(long x) {
  long r = x % MC_MLKEM_Q;
  return (int)(r < 0 ? r + MC_MLKEM_Q : r);
}

START_TEST(barrett_reduce_every_int16) {
  // Plain comparisons in the loops, one assertion after: Check's assertions
  // are slow under the sanitizers.
  long wrong = 0;
  for (long a = -32768; a <= 32767; a++) {
    int16_t r = mc_mlkem_barrett_reduce((int16_t)a);
    wrong += mod_q(r) != mod_q(a) || r > (MC_MLKEM_Q - 1) / 2 || r < -(MC_MLKEM_Q - 1) / 2;
  }
  ck_assert_int_eq(wrong, 0);
}
END_TEST

START_TEST(montgomery_reduce_range) {
  // 2^16 mod q is 2285; r * 2^16 must equal a mod q.
  const long bound = (long)MC_MLKEM_Q << 15;
  long wrong = 0;
  for (long a = -bound + 1; a < bound; a += 331) {
    int16_t r = mc_mlkem_montgomery_reduce((int32_t)a);
    wrong += mod_q((long)r * 65536) != mod_q(a) || r >= MC_MLKEM_Q || r <= -MC_MLKEM_Q;
  }
  ck_assert_int_eq(wrong, 0);
  int16_t r = mc_mlkem_montgomery_reduce((int32_t)(bound - 1));
  ck_assert_int_eq(mod_q((long)r * 65536), mod_q(bound - 1));
  ck_assert_int_eq(mc_mlkem_caddq(-1), MC_MLKEM_Q - 1);
  ck_assert_int_eq(mc_mlkem_caddq(0), 0);
  ck_assert_int_eq(mc_mlkem_csubq(MC_MLKEM_Q), 0);
  ck_assert_int_eq(mc_mlkem_csubq(4095), 4095 - MC_MLKEM_Q);
  ck_assert_int_eq(mc_mlkem_csubq(MC_MLKEM_Q - 1), MC_MLKEM_Q - 1);
}
END_TEST

// Compress_d and Decompress_d (FIPS 203 eq. 4.7, 4.8) with exact rationals:
// round(a / b) = floor((2a + b) / 2b).
START_TEST(compress_decompress_every_value) {
  static const unsigned ds[] = {1, 4, 5, 10, 11};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    unsigned d = ds[i];
    long wrong = 0;
    for (long x = 0; x < MC_MLKEM_Q; x++) {
      long want = ((2 * (x << d) + MC_MLKEM_Q) / (2 * MC_MLKEM_Q)) % (1L << d);
      wrong += mc_mlkem_compress((uint16_t)x, d) != want;
    }
    for (long y = 0; y < (1L << d); y++) {
      long want = (2 * MC_MLKEM_Q * y + (1L << d)) / (2L << d);
      wrong += mc_mlkem_decompress((uint16_t)y, d) != want;
    }
    ck_assert_msg(wrong == 0, "d = %u: %ld wrong", d, wrong);
  }
}
END_TEST

static unsigned bitrev7(unsigned i) {
  unsigned r = 0;
  for (int b = 0; b < 7; b++)
    r |= ((i >> b) & 1) << (6 - b);
  return r;
}

static long pow_mod(long b, unsigned e) {
  long r = 1;
  while (e--)
    r = r * b % MC_MLKEM_Q;
  return r;
}

START_TEST(zeta_table_matches_definition) {
  for (unsigned i = 0; i < 128; i++) {
    long want = pow_mod(17, bitrev7(i)) * 65536 % MC_MLKEM_Q;
    ck_assert_int_eq(mod_q(mc_mlkem_zetas[i]), want);
    ck_assert_int_le(abs(mc_mlkem_zetas[i]), MC_MLKEM_Q / 2);
  }
}
END_TEST

static void random_poly(mc_mlkem_poly *p, int bound) {
  uint16_t r[MC_MLKEM_N];
  RAND_bytes((uint8_t *)r, sizeof r);
  for (unsigned i = 0; i < MC_MLKEM_N; i++)
    p->coeffs[i] = (int16_t)((int)(r[i] % (2 * bound - 1)) - (bound - 1));
}

// NTT^-1(NTT(a) o NTT(b)) equals a * b in Z_q[X]/(X^256 + 1), the product
// that FIPS 203 §4.3.1 says the NTT computes.
START_TEST(ntt_product_matches_schoolbook) {
  for (int iter = 0; iter < 50; iter++) {
    mc_mlkem_poly a, b, fa, fb, r;
    mc_mlkem_mulcache cache;
    int32_t acc[MC_MLKEM_N] = {0};
    long want[MC_MLKEM_N] = {0};
    random_poly(&a, iter % 2 ? MC_MLKEM_Q : 4);
    random_poly(&b, MC_MLKEM_Q);
    for (int i = 0; i < MC_MLKEM_N; i++)
      for (int j = 0; j < MC_MLKEM_N; j++) {
        long prod = (long)a.coeffs[i] * b.coeffs[j];
        if (i + j < MC_MLKEM_N)
          want[i + j] += prod;
        else
          want[i + j - MC_MLKEM_N] -= prod;
      }
    fa = a;
    fb = b;
    mc_mlkem_ntt(&fa);
    mc_mlkem_ntt(&fb);
    mc_mlkem_mulcache_compute(&cache, &fb);
    mc_mlkem_basemul_acc(acc, &fa, &fb, &cache);
    mc_mlkem_acc_reduce(&r, acc);
    mc_mlkem_invntt(&r);
    for (int i = 0; i < MC_MLKEM_N; i++) {
      ck_assert_int_eq(mod_q(r.coeffs[i]), mod_q(want[i]));
      ck_assert_int_lt(abs(r.coeffs[i]), MC_MLKEM_Q);
    }
    // The inverse undoes the forward transform up to its Montgomery factor.
    r = fa;
    mc_mlkem_invntt(&r);
    for (int i = 0; i < MC_MLKEM_N; i++)
      ck_assert_int_eq(mod_q(r.coeffs[i]), mod_q((long)a.coeffs[i] * 65536));
  }
}
END_TEST

// Four accumulated products with operands at the extremes of their ranges stay
// within the Montgomery reduction's input bound.
START_TEST(accumulation_of_four_extreme_products) {
  mc_mlkem_poly a, b, r;
  mc_mlkem_mulcache cache;
  int32_t acc[MC_MLKEM_N] = {0};
  for (int i = 0; i < MC_MLKEM_N; i++) {
    a.coeffs[i] = MC_MLKEM_Q - 1;
    b.coeffs[i] = (int16_t)(i % 2 ? -(MC_MLKEM_Q - 1) : MC_MLKEM_Q - 1);
  }
  mc_mlkem_mulcache_compute(&cache, &b);
  long want[MC_MLKEM_N] = {0};
  for (int rep = 0; rep < 4; rep++) {
    mc_mlkem_basemul_acc(acc, &a, &b, &cache);
    for (int i = 0; i < MC_MLKEM_N / 2; i++) {
      long gamma = pow_mod(17, 2 * bitrev7((unsigned)i) + 1);
      long a0 = a.coeffs[2 * i], a1 = a.coeffs[2 * i + 1], b0 = b.coeffs[2 * i],
           b1 = b.coeffs[2 * i + 1];
      want[2 * i] += a0 * b0 + mod_q(a1 * b1) * gamma;
      want[2 * i + 1] += a0 * b1 + a1 * b0;
    }
  }
  mc_mlkem_acc_reduce(&r, acc);
  for (int i = 0; i < MC_MLKEM_N; i++) {
    ck_assert_int_lt(abs(r.coeffs[i]), MC_MLKEM_Q);
    ck_assert_int_eq(mod_q((long)r.coeffs[i] * 65536), mod_q(want[i]));
  }
}
END_TEST

// ACVP.

START_TEST(acvp_keygen) {
  vj_value *root = load("acvp/ML-KEM-keyGen-FIPS203/internalProjection.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0;
  for (size_t g = 0; g < groups->count; g++) {
    mc_mlkem_level level = level_of(vj_str(&groups->items[g], "parameterSet"));
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      size_t d_len, z_len, ek_len, dk_len;
      uint8_t *d = unhex_field(tc, "d", &d_len), *z = unhex_field(tc, "z", &z_len);
      uint8_t *ek = unhex_field(tc, "ek", &ek_len), *dk = unhex_field(tc, "dk", &dk_len);
      uint8_t seed[64], pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
      ck_assert_uint_eq(d_len, 32);
      ck_assert_uint_eq(z_len, 32);
      memcpy(seed, d, 32);
      memcpy(seed + 32, z, 32);
      ck_assert_int_eq(mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed, 64), 0);
      ck_assert_uint_eq(ek_len, mc_mlkem_public_key_len(level));
      ck_assert_uint_eq(dk_len, mc_mlkem_private_key_len(level));
      ck_assert_msg(memcmp(pk, ek, ek_len) == 0, "tcId %g: ek", vj_num(tc, "tcId", 0));
      ck_assert_msg(memcmp(sk, dk, dk_len) == 0, "tcId %g: dk", vj_num(tc, "tcId", 0));
      checked++;
      free(d);
      free(z);
      free(ek);
      free(dk);
    }
  }
  ck_assert_uint_eq(checked, 75);
  vj_free(root);
}
END_TEST

START_TEST(acvp_encap_decap) {
  vj_value *root = load("acvp/ML-KEM-encapDecap-FIPS203/internalProjection.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t counts[4] = {0}; // encapsulation, decapsulation, ek check, dk check
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    mc_mlkem_level level = level_of(vj_str(group, "parameterSet"));
    const char *function = vj_str(group, "function");
    const vj_value *tests = vj_get(group, "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      double id = vj_num(tc, "tcId", 0);
      size_t ek_len, dk_len, c_len, k_len, m_len;
      uint8_t *ek = unhex_field(tc, "ek", &ek_len), *dk = unhex_field(tc, "dk", &dk_len);
      uint8_t *c = unhex_field(tc, "c", &c_len), *k = unhex_field(tc, "k", &k_len);
      uint8_t *m = unhex_field(tc, "m", &m_len);
      uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[32];
      if (strcmp(function, "encapsulation") == 0) {
        ck_assert_uint_eq(m_len, 32);
        ck_assert_int_eq(mc_mlkem_encaps_derand(level, ct, sizeof ct, ss, ek, ek_len, m), 0);
        ck_assert_uint_eq(c_len, mc_mlkem_ciphertext_len(level));
        ck_assert_msg(memcmp(ct, c, c_len) == 0, "tcId %g: c", id);
        ck_assert_msg(k_len == 32 && memcmp(ss, k, 32) == 0, "tcId %g: k", id);
        counts[0]++;
      } else if (strcmp(function, "decapsulation") == 0) {
        ck_assert_int_eq(mc_mlkem_decaps(level, ss, dk, dk_len, c, c_len), 0);
        ck_assert_msg(k_len == 32 && memcmp(ss, k, 32) == 0, "tcId %g: k", id);
        counts[1]++;
      } else if (strcmp(function, "encapsulationKeyCheck") == 0) {
        const vj_value *passed = vj_get(tc, "testPassed");
        ck_assert_ptr_nonnull(passed);
        int status = mc_mlkem_check_public_key(level, ek, ek_len);
        ck_assert_msg(status == (passed->boolean ? 0 : MC_ERR_BAD_KEY), "tcId %g: %d", id, status);
        // Encapsulation applies the same check.
        if (!passed->boolean)
          ck_assert_int_eq(mc_mlkem_encaps(level, ct, sizeof ct, ss, ek, ek_len), MC_ERR_BAD_KEY);
        counts[2]++;
      } else if (strcmp(function, "decapsulationKeyCheck") == 0) {
        const vj_value *passed = vj_get(tc, "testPassed");
        ck_assert_ptr_nonnull(passed);
        int status = mc_mlkem_check_private_key(level, dk, dk_len);
        ck_assert_msg(status == (passed->boolean ? 0 : MC_ERR_BAD_KEY), "tcId %g: %d", id, status);
        if (!passed->boolean) {
          memset(ct, 0, sizeof ct);
          ck_assert_int_eq(
              mc_mlkem_decaps(level, ss, dk, dk_len, ct, mc_mlkem_ciphertext_len(level)),
              MC_ERR_BAD_KEY);
        }
        counts[3]++;
      } else {
        ck_abort_msg("unknown function %s", function);
      }
      free(ek);
      free(dk);
      free(c);
      free(k);
      free(m);
    }
  }
  ck_assert_uint_eq(counts[0], 75);
  ck_assert_uint_eq(counts[1], 30);
  ck_assert_uint_eq(counts[2], 30);
  ck_assert_uint_eq(counts[3], 30);
  vj_free(root);
}
END_TEST

// Wycheproof. Each file's groups name the parameter set; "result" is valid,
// invalid or acceptable (acceptable: either outcome, but a success must give
// the listed values).

static const char *const wycheproof_levels[] = {"512", "768", "1024"};

// wycheproof_file loads mlkem_<level><suffix>.json if it exists; Wycheproof
// has no ML-KEM-512 keygen_seed file.
static vj_value *wycheproof_file(size_t level_index, const char *suffix) {
  char rel[128], path[4096];
  snprintf(rel, sizeof rel, "wycheproof/mlkem_%s%s.json", wycheproof_levels[level_index], suffix);
  vj_vectors_path(path, sizeof path, rel);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return NULL;
  fclose(f);
  return load(rel);
}

typedef int (*wycheproof_case_fn)(mc_mlkem_level level, const vj_value *tc);

// run_wycheproof runs `fn` on every test of every group; `fn` returns 1 when
// the implementation accepted the input with the listed outputs, 0 when it
// rejected it (and aborts on a wrong output).
static size_t run_wycheproof(const vj_value *root, wycheproof_case_fn fn) {
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0;
  for (size_t g = 0; g < groups->count; g++) {
    mc_mlkem_level level = level_of(vj_str(&groups->items[g], "parameterSet"));
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      const char *result = vj_str(tc, "result");
      int accepted = fn(level, tc);
      if (strcmp(result, "valid") == 0)
        ck_assert_msg(accepted, "tcId %g: valid case rejected", vj_num(tc, "tcId", 0));
      else if (strcmp(result, "invalid") == 0)
        ck_assert_msg(!accepted, "tcId %g: invalid case accepted", vj_num(tc, "tcId", 0));
      else
        ck_assert_str_eq(result, "acceptable");
      checked++;
    }
  }
  ck_assert_uint_eq(checked, (size_t)vj_num(root, "numberOfTests", -1));
  return checked;
}

// mlkem_*_test.json: seed -> keys; decapsulate c to K. An invalid case has a
// malformed seed or ciphertext.
static int wycheproof_decaps_case(mc_mlkem_level level, const vj_value *tc) {
  size_t seed_len, ek_len, c_len, k_len;
  uint8_t *seed = unhex_field(tc, "seed", &seed_len), *ek = unhex_field(tc, "ek", &ek_len);
  uint8_t *c = unhex_field(tc, "c", &c_len), *k = unhex_field(tc, "K", &k_len);
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN], ss[32];
  int accepted = 0;
  int status = mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed, seed_len);
  if (status == 0) {
    if (ek_len > 0)
      ck_assert_msg(ek_len == mc_mlkem_public_key_len(level) && memcmp(pk, ek, ek_len) == 0,
                    "tcId %g: ek", vj_num(tc, "tcId", 0));
    status = mc_mlkem_decaps(level, ss, sk, mc_mlkem_private_key_len(level), c, c_len);
    if (status == 0) {
      ck_assert_msg(k_len == 32 && memcmp(ss, k, 32) == 0, "tcId %g: K", vj_num(tc, "tcId", 0));
      accepted = 1;
    } else {
      ck_assert_int_eq(status, MC_ERR_BAD_CIPHERTEXT);
    }
  } else {
    ck_assert_int_eq(status, MC_ERR_BAD_KEY);
  }
  free(seed);
  free(ek);
  free(c);
  free(k);
  return accepted;
}

// mlkem_*_encaps_test.json: encapsulate to ek with m; an invalid ek has a
// wrong length or a coefficient of q or more.
static int wycheproof_encaps_case(mc_mlkem_level level, const vj_value *tc) {
  size_t ek_len, m_len, c_len, k_len;
  uint8_t *ek = unhex_field(tc, "ek", &ek_len), *m = unhex_field(tc, "m", &m_len);
  uint8_t *c = unhex_field(tc, "c", &c_len), *k = unhex_field(tc, "K", &k_len);
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[32];
  int accepted = 0;
  ck_assert_uint_eq(m_len, 32);
  int status = mc_mlkem_encaps_derand(level, ct, sizeof ct, ss, ek, ek_len, m);
  ck_assert_int_eq(mc_mlkem_check_public_key(level, ek, ek_len), status);
  if (status == 0) {
    ck_assert_msg(c_len == mc_mlkem_ciphertext_len(level) && memcmp(ct, c, c_len) == 0,
                  "tcId %g: c", vj_num(tc, "tcId", 0));
    ck_assert_msg(k_len == 32 && memcmp(ss, k, 32) == 0, "tcId %g: K", vj_num(tc, "tcId", 0));
    accepted = 1;
  } else {
    ck_assert_int_eq(status, MC_ERR_BAD_KEY);
  }
  free(ek);
  free(m);
  free(c);
  free(k);
  return accepted;
}

// mlkem_*_keygen_seed_test.json: seed -> ek, dk.
static int wycheproof_keygen_case(mc_mlkem_level level, const vj_value *tc) {
  size_t seed_len, ek_len, dk_len;
  uint8_t *seed = unhex_field(tc, "seed", &seed_len), *ek = unhex_field(tc, "ek", &ek_len);
  uint8_t *dk = unhex_field(tc, "dk", &dk_len);
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
  int accepted = 0;
  int status = mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed, seed_len);
  if (status == 0) {
    ck_assert_msg(ek_len == mc_mlkem_public_key_len(level) && memcmp(pk, ek, ek_len) == 0,
                  "tcId %g: ek", vj_num(tc, "tcId", 0));
    ck_assert_msg(dk_len == mc_mlkem_private_key_len(level) && memcmp(sk, dk, dk_len) == 0,
                  "tcId %g: dk", vj_num(tc, "tcId", 0));
    ck_assert_int_eq(mc_mlkem_check_private_key(level, sk, dk_len), 0);
    accepted = 1;
  }
  free(seed);
  free(ek);
  free(dk);
  return accepted;
}

START_TEST(wycheproof_all_files) {
  static const struct {
    const char *suffix;
    wycheproof_case_fn fn;
  } kinds[] = {
      {"_test", wycheproof_decaps_case},
      {"_encaps_test", wycheproof_encaps_case},
      {"_keygen_seed_test", wycheproof_keygen_case},
  };
  size_t files = 0, total = 0;
  for (size_t kind = 0; kind < 3; kind++) {
    for (size_t l = 0; l < 3; l++) {
      vj_value *root = wycheproof_file(l, kinds[kind].suffix);
      if (root == NULL) {
        // Only the ML-KEM-512 keygen_seed file is absent from Wycheproof.
        ck_assert_msg(kind == 2 && l == 0, "missing mlkem_%s%s.json", wycheproof_levels[l],
                      kinds[kind].suffix);
        continue;
      }
      total += run_wycheproof(root, kinds[kind].fn);
      files++;
      vj_free(root);
    }
  }
  ck_assert_uint_eq(files, 8);
  // 3 x 193 decapsulation, 261 + 265 + 269 encapsulation, 2 x 100 keygen.
  ck_assert_uint_eq(total, 579 + 795 + 200);
}
END_TEST

// Round trips and implicit rejection.

START_TEST(round_trip_random_keys) {
  mc_mlkem_level level = levels[_i];
  for (int iter = 0; iter < 30; iter++) {
    uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN], seed[64];
    uint8_t pk2[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk2[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
    uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss1[32], ss2[32];
    size_t pk_len = mc_mlkem_public_key_len(level), sk_len = mc_mlkem_private_key_len(level);
    size_t ct_len = mc_mlkem_ciphertext_len(level);
    ck_assert_int_eq(mc_mlkem_keygen(level, pk, pk_len, sk, sk_len, seed), 0);
    ck_assert_int_eq(mc_mlkem_check_public_key(level, pk, pk_len), 0);
    ck_assert_int_eq(mc_mlkem_check_private_key(level, sk, sk_len), 0);
    // The expanded key embeds the public key.
    ck_assert_mem_eq(sk + 384 * (pk_len / 384), pk, pk_len);
    ck_assert_int_eq(mc_mlkem_keygen_from_seed(level, pk2, pk_len, sk2, sk_len, seed, 64), 0);
    ck_assert_mem_eq(pk, pk2, pk_len);
    ck_assert_mem_eq(sk, sk2, sk_len);
    ck_assert_int_eq(mc_mlkem_encaps(level, ct, ct_len, ss1, pk, pk_len), 0);
    ck_assert_int_eq(mc_mlkem_decaps(level, ss2, sk, sk_len, ct, ct_len), 0);
    ck_assert_mem_eq(ss1, ss2, 32);
  }
  // Without the seed output, keys are still fresh.
  uint8_t pk_a[MC_MLKEM_MAX_PUBLIC_KEY_LEN], pk_b[MC_MLKEM_MAX_PUBLIC_KEY_LEN];
  uint8_t sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
  ck_assert_int_eq(mc_mlkem_keygen(level, pk_a, sizeof pk_a, sk, sizeof sk, NULL), 0);
  ck_assert_int_eq(mc_mlkem_keygen(level, pk_b, sizeof pk_b, sk, sizeof sk, NULL), 0);
  ck_assert(memcmp(pk_a, pk_b, mc_mlkem_public_key_len(level)) != 0);
}
END_TEST

// A ciphertext changed anywhere decapsulates to J(z || c') = SHAKE256(z || c',
// 32) (FIPS 203 Algorithm 18 lines 7-11), computed here with mc_shake.
START_TEST(implicit_rejection_gives_j_of_z_and_c) {
  mc_mlkem_level level = levels[_i];
  size_t pk_len = mc_mlkem_public_key_len(level), sk_len = mc_mlkem_private_key_len(level);
  size_t ct_len = mc_mlkem_ciphertext_len(level);
  for (int iter = 0; iter < 20; iter++) {
    uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
    uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[32], got[32], want[32];
    uint8_t zc[32 + MC_MLKEM_MAX_CIPHERTEXT_LEN];
    uint32_t pos;
    ck_assert_int_eq(mc_mlkem_keygen(level, pk, pk_len, sk, sk_len, NULL), 0);
    ck_assert_int_eq(mc_mlkem_encaps(level, ct, ct_len, ss, pk, pk_len), 0);
    RAND_bytes((uint8_t *)&pos, sizeof pos);
    // Alternate between the first byte, the last byte and random positions.
    pos = iter == 0 ? 0 : iter == 1 ? (uint32_t)(ct_len - 1) : pos % (uint32_t)ct_len;
    ct[pos] ^= (uint8_t)(1u << (iter % 8));
    ck_assert_int_eq(mc_mlkem_decaps(level, got, sk, sk_len, ct, ct_len), 0);
    memcpy(zc, sk + sk_len - 32, 32);
    memcpy(zc + 32, ct, ct_len);
    ck_assert_int_eq(mc_shake(MC_SHAKE256, want, 32, zc, 32 + ct_len), 0);
    ck_assert_mem_eq(got, want, 32);
    ck_assert(memcmp(got, ss, 32) != 0);
  }
}
END_TEST

// RFC 9935 and RFC 9936 files: a minimal PEM and DER reader.

static uint8_t *read_file(const char *rel, size_t *len) {
  char path[4096];
  FILE *f = fopen(vj_vectors_path(path, sizeof path, rel), "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  uint8_t *buf = malloc(1 << 16);
  ck_assert_ptr_nonnull(buf);
  *len = fread(buf, 1, (1 << 16) - 1, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

// pem_decode returns the base64 body of the first PEM block of a file.
static uint8_t *pem_decode(const char *rel, size_t *out_len) {
  size_t len;
  uint8_t *text = read_file(rel, &len);
  const char *p = strstr((const char *)text, "-----BEGIN ");
  ck_assert_ptr_nonnull(p);
  p = strchr(p, '\n');
  ck_assert_ptr_nonnull(p);
  const char *end = strstr(p, "-----END ");
  ck_assert_ptr_nonnull(end);
  uint8_t *out = malloc(len);
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (; p < end; p++) {
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *hit = *p != 0 ? strchr(alphabet, *p) : NULL;
    if (hit == NULL)
      continue; // newlines and '=' padding
    acc = acc << 6 | (uint32_t)(hit - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  free(text);
  *out_len = n;
  return out;
}

typedef struct {
  const uint8_t *p;
  size_t len;
} der;

// der_next reads one TLV from `d` (definite lengths up to 4 bytes) into `tag`
// and `body`; 0 at the end or on malformed input.
static int der_next(der *d, uint8_t *tag, der *body) {
  if (d->len < 2)
    return 0;
  size_t hdr = 2, n = d->p[1];
  if (n & 0x80) {
    size_t k = n & 0x7f;
    if (k == 0 || k > 4 || d->len < 2 + k)
      return 0;
    n = 0;
    for (size_t i = 0; i < k; i++)
      n = n << 8 | d->p[2 + i];
    hdr += k;
  }
  if (d->len - hdr < n)
    return 0;
  *tag = d->p[0];
  body->p = d->p + hdr;
  body->len = n;
  d->p += hdr + n;
  d->len -= hdr + n;
  return 1;
}

// id-alg-ml-kem-512/768/1024: 2.16.840.1.101.3.4.4.{1,2,3}.
static const uint8_t mlkem_oid_prefix[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04};

static mc_mlkem_level level_of_algid(der algid) {
  uint8_t tag;
  der oid;
  ck_assert(der_next(&algid, &tag, &oid) && tag == 0x06);
  ck_assert_uint_eq(oid.len, 9);
  ck_assert(memcmp(oid.p, mlkem_oid_prefix, 8) == 0);
  ck_assert(oid.p[8] >= 1 && oid.p[8] <= 3);
  return levels[oid.p[8] - 1];
}

typedef struct {
  mc_mlkem_level level;
  der seed, expanded; // len 0 when absent
} private_key_info;

// parse_private_key reads OneAsymmetricKey with the ML-KEM-PrivateKey CHOICE
// of RFC 9935 §6: [0] seed, OCTET STRING expandedKey, or SEQUENCE both.
static private_key_info parse_private_key(const uint8_t *buf, size_t len) {
  private_key_info info = {0};
  der d = {buf, len}, seq, algid, inner, item;
  uint8_t tag;
  ck_assert(der_next(&d, &tag, &seq) && tag == 0x30);
  ck_assert(der_next(&seq, &tag, &item) && tag == 0x02); // version
  ck_assert(der_next(&seq, &tag, &algid) && tag == 0x30);
  info.level = level_of_algid(algid);
  ck_assert(der_next(&seq, &tag, &inner) && tag == 0x04);
  ck_assert(der_next(&inner, &tag, &item));
  if (tag == 0x80) {
    info.seed = item;
  } else if (tag == 0x04) {
    info.expanded = item;
  } else {
    ck_assert_int_eq(tag, 0x30);
    ck_assert(der_next(&item, &tag, &info.seed) && tag == 0x04);
    ck_assert(der_next(&item, &tag, &info.expanded) && tag == 0x04);
  }
  return info;
}

// parse_public_key reads SubjectPublicKeyInfo; the key is the BIT STRING's
// contents after the unused-bits byte.
static der parse_public_key(const uint8_t *buf, size_t len, mc_mlkem_level *level) {
  der d = {buf, len}, seq, algid, bits;
  uint8_t tag;
  ck_assert(der_next(&d, &tag, &seq) && tag == 0x30);
  ck_assert(der_next(&seq, &tag, &algid) && tag == 0x30);
  *level = level_of_algid(algid);
  ck_assert(der_next(&seq, &tag, &bits) && tag == 0x03);
  ck_assert(bits.len > 1 && bits.p[0] == 0);
  return (der){bits.p + 1, bits.len - 1};
}

static const char *const rfc9935_names[] = {"ML-KEM-512", "ML-KEM-768", "ML-KEM-1024"};

// The seed form expands to the expanded form and to the public key in the
// same folder, and the "both" form is consistent (RFC 9935 §6, §8).
START_TEST(rfc9935_key_files) {
  char rel[256];
  size_t len;
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
  snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/%s-seed.priv", rfc9935_names[_i]);
  uint8_t *seed_file = pem_decode(rel, &len);
  private_key_info seed = parse_private_key(seed_file, len);
  ck_assert_int_eq(seed.level, levels[_i]);
  ck_assert_uint_eq(seed.seed.len, 64);
  ck_assert_uint_eq(seed.expanded.len, 0);
  size_t pk_len = mc_mlkem_public_key_len(seed.level),
         sk_len = mc_mlkem_private_key_len(seed.level);
  ck_assert_int_eq(
      mc_mlkem_keygen_from_seed(seed.level, pk, sizeof pk, sk, sizeof sk, seed.seed.p, 64), 0);

  snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/%s-expanded.priv", rfc9935_names[_i]);
  uint8_t *expanded_file = pem_decode(rel, &len);
  private_key_info expanded = parse_private_key(expanded_file, len);
  ck_assert_int_eq(expanded.level, levels[_i]);
  ck_assert_uint_eq(expanded.expanded.len, sk_len);
  ck_assert_mem_eq(expanded.expanded.p, sk, sk_len);
  ck_assert_int_eq(mc_mlkem_check_private_key(expanded.level, expanded.expanded.p, sk_len), 0);

  snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/%s-both.priv", rfc9935_names[_i]);
  uint8_t *both_file = pem_decode(rel, &len);
  private_key_info both = parse_private_key(both_file, len);
  ck_assert_uint_eq(both.seed.len, 64);
  ck_assert_mem_eq(both.seed.p, seed.seed.p, 64);
  ck_assert_uint_eq(both.expanded.len, sk_len);
  ck_assert_mem_eq(both.expanded.p, sk, sk_len);

  snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/%s.pub", rfc9935_names[_i]);
  uint8_t *pub_file = pem_decode(rel, &len);
  mc_mlkem_level pub_level;
  der pub = parse_public_key(pub_file, len, &pub_level);
  ck_assert_int_eq(pub_level, levels[_i]);
  ck_assert_uint_eq(pub.len, pk_len);
  ck_assert_mem_eq(pub.p, pk, pk_len);
  ck_assert_int_eq(mc_mlkem_check_public_key(pub_level, pub.p, pub.len), 0);

  // The certificate carries the same public key.
  snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/%s.crt", rfc9935_names[_i]);
  uint8_t *crt = pem_decode(rel, &len);
  ck_assert_ptr_nonnull(memmem(crt, len, pk, pk_len));
  free(seed_file);
  free(expanded_file);
  free(both_file);
  free(pub_file);
  free(crt);
}
END_TEST

// The four inconsistent ML-KEM-512 keys of RFC 9935 Appendix C: each fails
// the check the RFC names for it.
START_TEST(rfc9935_inconsistent_keys) {
  uint8_t pk[MC_MLKEM512_PUBLIC_KEY_LEN], sk[MC_MLKEM512_PRIVATE_KEY_LEN];
  uint8_t ct[MC_MLKEM512_CIPHERTEXT_LEN], ss1[32], ss2[32];
  size_t len;
  private_key_info key[4];
  uint8_t *files[4];
  for (int i = 0; i < 4; i++) {
    char rel[128];
    snprintf(rel, sizeof rel, "rfc9935-kyber-certificates/bad-ML-KEM-512-%d.priv", i + 1);
    files[i] = pem_decode(rel, &len);
    key[i] = parse_private_key(files[i], len);
    ck_assert_int_eq(key[i].level, MC_MLKEM_512);
    ck_assert_uint_eq(key[i].expanded.len, sizeof sk);
  }
  // 1: seed and expanded key disagree.
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(MC_MLKEM_512, pk, sizeof pk, sk, sizeof sk,
                                             key[0].seed.p, key[0].seed.len),
                   0);
  ck_assert(memcmp(sk, key[0].expanded.p, sizeof sk) != 0);
  // 2: a mutated s_0 under a valid hash passes the §7.3 check but fails a
  // pairwise test: encapsulating to its public key and decapsulating differ.
  const uint8_t *dk2 = key[1].expanded.p;
  ck_assert_int_eq(mc_mlkem_check_private_key(MC_MLKEM_512, dk2, sizeof sk), 0);
  ck_assert_int_eq(mc_mlkem_encaps(MC_MLKEM_512, ct, sizeof ct, ss1, dk2 + 768, sizeof pk), 0);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_512, ss2, dk2, sizeof sk, ct, sizeof ct), 0);
  ck_assert(memcmp(ss1, ss2, 32) != 0);
  // 3: a mutated H(ek) fails the hash check, and decapsulation refuses it.
  ck_assert_int_eq(mc_mlkem_check_private_key(MC_MLKEM_512, key[2].expanded.p, sizeof sk),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_512, ss2, key[2].expanded.p, sizeof sk, ct, sizeof ct),
                   MC_ERR_BAD_KEY);
  // 4: only z differs from the seed's expansion; the pairwise test passes.
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(MC_MLKEM_512, pk, sizeof pk, sk, sizeof sk,
                                             key[3].seed.p, key[3].seed.len),
                   0);
  ck_assert(memcmp(sk, key[3].expanded.p, sizeof sk - 32) == 0);
  ck_assert(memcmp(sk + sizeof sk - 32, key[3].expanded.p + sizeof sk - 32, 32) != 0);
  ck_assert_int_eq(mc_mlkem_check_private_key(MC_MLKEM_512, key[3].expanded.p, sizeof sk), 0);
  for (int i = 0; i < 4; i++)
    free(files[i]);
}
END_TEST

// find_kem_ciphertext walks the DER tree for the KEMRecipientInfo of RFC 9629
// (kem AlgorithmIdentifier id-alg-ml-kem-512 followed by the kemct OCTET
// STRING) and returns the ciphertext.
static int find_kem_ciphertext(der d, der *out) {
  uint8_t tag, prev_tag = 0;
  der body, prev = {0};
  while (der_next(&d, &tag, &body)) {
    if (tag == 0x04 && prev_tag == 0x30 && prev.len == 11 && prev.p[0] == 0x06 && prev.p[1] == 9 &&
        memcmp(prev.p + 2, mlkem_oid_prefix, 8) == 0 && prev.p[10] == 1) {
      *out = body;
      return 1;
    }
    if ((tag & 0x20) && find_kem_ciphertext(body, out)) // constructed
      return 1;
    prev_tag = tag;
    prev = body;
  }
  return 0;
}

// RFC 9936 Appendix A: the recipient's seed-form key decapsulates the
// example's kemct to the listed shared secret.
START_TEST(rfc9936_cms_example) {
  size_t len, cms_len, pub_len;
  uint8_t *key_file = pem_decode("rfc9936-cms-kyber/ML-KEM-512-seed.priv", &len);
  private_key_info key = parse_private_key(key_file, len);
  ck_assert_int_eq(key.level, MC_MLKEM_512);
  uint8_t pk[MC_MLKEM512_PUBLIC_KEY_LEN], sk[MC_MLKEM512_PRIVATE_KEY_LEN], ss[32];
  ck_assert_int_eq(
      mc_mlkem_keygen_from_seed(MC_MLKEM_512, pk, sizeof pk, sk, sizeof sk, key.seed.p, 64), 0);

  uint8_t *pub_file = pem_decode("rfc9936-cms-kyber/ML-KEM-512.pub", &pub_len);
  mc_mlkem_level level;
  der pub = parse_public_key(pub_file, pub_len, &level);
  ck_assert_uint_eq(pub.len, sizeof pk);
  ck_assert_mem_eq(pub.p, pk, sizeof pk);

  uint8_t *cms = pem_decode("rfc9936-cms-kyber/ML-KEM-512.cms", &cms_len);
  der ct;
  ck_assert(find_kem_ciphertext((der){cms, cms_len}, &ct));
  ck_assert_uint_eq(ct.len, MC_MLKEM512_CIPHERTEXT_LEN);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_512, ss, sk, sizeof sk, ct.p, ct.len), 0);

  size_t want_len;
  uint8_t *text = read_file("rfc9936-cms-kyber/shared_secret.txt", &len);
  text[strcspn((char *)text, "\r\n")] = 0;
  uint8_t *want = mc_test_unhex((char *)text, &want_len);
  ck_assert_ptr_nonnull(want);
  ck_assert_uint_eq(want_len, 32);
  ck_assert_mem_eq(ss, want, 32);
  free(key_file);
  free(pub_file);
  free(cms);
  free(text);
  free(want);
}
END_TEST

// API contract.

START_TEST(sizes_match_constants) {
  ck_assert_uint_eq(mc_mlkem_public_key_len(MC_MLKEM_512), MC_MLKEM512_PUBLIC_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_private_key_len(MC_MLKEM_512), MC_MLKEM512_PRIVATE_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_ciphertext_len(MC_MLKEM_512), MC_MLKEM512_CIPHERTEXT_LEN);
  ck_assert_uint_eq(mc_mlkem_public_key_len(MC_MLKEM_768), MC_MLKEM768_PUBLIC_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_private_key_len(MC_MLKEM_768), MC_MLKEM768_PRIVATE_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_ciphertext_len(MC_MLKEM_768), MC_MLKEM768_CIPHERTEXT_LEN);
  ck_assert_uint_eq(mc_mlkem_public_key_len(MC_MLKEM_1024), MC_MLKEM1024_PUBLIC_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_private_key_len(MC_MLKEM_1024), MC_MLKEM1024_PRIVATE_KEY_LEN);
  ck_assert_uint_eq(mc_mlkem_ciphertext_len(MC_MLKEM_1024), MC_MLKEM1024_CIPHERTEXT_LEN);
  ck_assert_uint_eq(mc_mlkem_public_key_len((mc_mlkem_level)0), 0);
  ck_assert_uint_eq(mc_mlkem_private_key_len((mc_mlkem_level)4), 0);
  ck_assert_uint_eq(mc_mlkem_ciphertext_len((mc_mlkem_level)-1), 0);
}
END_TEST

START_TEST(errors_are_reported_and_nothing_written) {
  uint8_t pk[MC_MLKEM768_PUBLIC_KEY_LEN], sk[MC_MLKEM768_PRIVATE_KEY_LEN], seed[64] = {1};
  uint8_t ct[MC_MLKEM768_CIPHERTEXT_LEN], ss[32], m[32] = {2}, untouched[32];
  const mc_mlkem_level L = MC_MLKEM_768, bad = (mc_mlkem_level)7;
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(L, pk, sizeof pk, sk, sizeof sk, seed, 64), 0);

  ck_assert_int_eq(mc_mlkem_keygen(bad, pk, sizeof pk, sk, sizeof sk, NULL),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_keygen(L, NULL, sizeof pk, sk, sizeof sk, NULL),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_keygen(L, pk, sizeof pk - 1, sk, sizeof sk, NULL),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mlkem_keygen(L, pk, sizeof pk, sk, sizeof sk - 1, NULL),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(L, pk, sizeof pk, sk, sizeof sk, NULL, 64),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(L, pk, sizeof pk, sk, sizeof sk, seed, 63),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(L, pk, sizeof pk, sk, sizeof sk, seed, 65),
                   MC_ERR_BAD_KEY);
  // The failed calls left the first key pair in place.
  ck_assert_int_eq(mc_mlkem_check_private_key(L, sk, sizeof sk), 0);
  ck_assert_mem_eq(sk + 1152, pk, sizeof pk);

  ck_assert_int_eq(mc_mlkem_check_public_key(bad, pk, sizeof pk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_check_public_key(L, NULL, 5), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_check_public_key(L, NULL, 0), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_check_public_key(L, pk, sizeof pk - 1), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_check_public_key(MC_MLKEM_512, pk, sizeof pk), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_check_private_key(bad, sk, sizeof sk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_check_private_key(L, sk, sizeof sk + 1), MC_ERR_BAD_KEY);

  memset(untouched, 0xa5, sizeof untouched);
  memcpy(ss, untouched, sizeof ss);
  ck_assert_int_eq(mc_mlkem_encaps(bad, ct, sizeof ct, ss, pk, sizeof pk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_encaps(L, NULL, sizeof ct, ss, pk, sizeof pk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_encaps(L, ct, sizeof ct, NULL, pk, sizeof pk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_encaps(L, ct, sizeof ct - 1, ss, pk, sizeof pk),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mlkem_encaps(L, ct, sizeof ct, ss, pk, sizeof pk + 1), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_encaps(L, ct, sizeof ct, ss, NULL, 0), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_encaps_derand(L, ct, sizeof ct, ss, pk, sizeof pk, NULL),
                   MC_ERR_INVALID_ARGUMENT);
  // A coefficient of 4095 in the first position fails the modulus check.
  uint8_t bad_pk[sizeof pk];
  memcpy(bad_pk, pk, sizeof pk);
  bad_pk[0] = 0xff;
  bad_pk[1] |= 0x0f;
  ck_assert_int_eq(mc_mlkem_check_public_key(L, bad_pk, sizeof bad_pk), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_encaps_derand(L, ct, sizeof ct, ss, bad_pk, sizeof bad_pk, m),
                   MC_ERR_BAD_KEY);
  ck_assert_mem_eq(ss, untouched, sizeof ss);

  ck_assert_int_eq(mc_mlkem_encaps_derand(L, ct, sizeof ct, ss, pk, sizeof pk, m), 0);
  memcpy(ss, untouched, sizeof ss);
  ck_assert_int_eq(mc_mlkem_decaps(bad, ss, sk, sizeof sk, ct, sizeof ct), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_decaps(L, NULL, sk, sizeof sk, ct, sizeof ct), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, NULL, sizeof sk, ct, sizeof ct), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, sk, sizeof sk, NULL, sizeof ct), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, sk, sizeof sk - 1, ct, sizeof ct), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, sk, sizeof sk, ct, sizeof ct - 1), MC_ERR_BAD_CIPHERTEXT);
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, sk, sizeof sk, ct, 0), MC_ERR_BAD_CIPHERTEXT);
  sk[1152 + 5] ^= 1; // the embedded public key no longer matches H(ek)
  ck_assert_int_eq(mc_mlkem_decaps(L, ss, sk, sizeof sk, ct, sizeof ct), MC_ERR_BAD_KEY);
  ck_assert_mem_eq(ss, untouched, sizeof ss);
  ck_assert_str_ne(mc_strerror(MC_ERR_BAD_KEY), "unknown error");
}
END_TEST

// A malformed decapsulation key whose secret vector holds 12-bit values of q
// or more (which the §7.3 checks do not look at) is decoded modulo q, as
// ByteDecode_12 defines: it decapsulates like the reduced key.
START_TEST(unreduced_private_key_decodes_mod_q) {
  uint8_t pk[MC_MLKEM512_PUBLIC_KEY_LEN], sk[MC_MLKEM512_PRIVATE_KEY_LEN], sk2[sizeof sk];
  uint8_t seed[64], ct[MC_MLKEM512_CIPHERTEXT_LEN], ss1[32], ss2[32];
  RAND_bytes(seed, sizeof seed);
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(MC_MLKEM_512, pk, sizeof pk, sk, sizeof sk, seed, 64),
                   0);
  memcpy(sk2, sk, sizeof sk);
  int changed = 0;
  for (size_t i = 0; i < 768; i += 3) {
    unsigned x = sk2[i] | (sk2[i + 1] & 0x0f) << 8;
    if (x + MC_MLKEM_Q <= 4095) {
      x += MC_MLKEM_Q;
      sk2[i] = (uint8_t)x;
      sk2[i + 1] = (uint8_t)((sk2[i + 1] & 0xf0) | x >> 8);
      changed++;
    }
  }
  ck_assert_int_gt(changed, 0);
  ck_assert_int_eq(mc_mlkem_check_private_key(MC_MLKEM_512, sk2, sizeof sk2), 0);
  ck_assert_int_eq(mc_mlkem_encaps(MC_MLKEM_512, ct, sizeof ct, ss1, pk, sizeof pk), 0);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_512, ss2, sk2, sizeof sk2, ct, sizeof ct), 0);
  ck_assert_mem_eq(ss1, ss2, 32);
}
END_TEST

// The encapsulation-key cache.

// An ACVP encapsulation case: key, randomness and the expected outputs.
typedef struct {
  mc_mlkem_level level;
  size_t ek_len;
  uint8_t ek[MC_MLKEM_MAX_PUBLIC_KEY_LEN], m[32], c[MC_MLKEM_MAX_CIPHERTEXT_LEN], k[32];
} encaps_case;

// load_encaps_cases returns the ACVP encapsulation cases (75, all levels).
static encaps_case *load_encaps_cases(size_t *count) {
  vj_value *root = load("acvp/ML-KEM-encapDecap-FIPS203/internalProjection.json");
  const vj_value *groups = vj_get(root, "testGroups");
  encaps_case *cases = NULL;
  size_t n = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    if (strcmp(vj_str(group, "function"), "encapsulation") != 0)
      continue;
    mc_mlkem_level level = level_of(vj_str(group, "parameterSet"));
    const vj_value *tests = vj_get(group, "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      size_t ek_len, m_len, c_len, k_len;
      uint8_t *ek = unhex_field(tc, "ek", &ek_len), *m = unhex_field(tc, "m", &m_len);
      uint8_t *c = unhex_field(tc, "c", &c_len), *k = unhex_field(tc, "k", &k_len);
      ck_assert_uint_eq(ek_len, mc_mlkem_public_key_len(level));
      ck_assert_uint_eq(c_len, mc_mlkem_ciphertext_len(level));
      ck_assert(m_len == 32 && k_len == 32);
      cases = realloc(cases, (n + 1) * sizeof *cases);
      ck_assert_ptr_nonnull(cases);
      encaps_case *e = &cases[n++];
      e->level = level;
      e->ek_len = ek_len;
      memcpy(e->ek, ek, ek_len);
      memcpy(e->m, m, 32);
      memcpy(e->c, c, c_len);
      memcpy(e->k, k, 32);
      free(ek);
      free(m);
      free(c);
      free(k);
    }
  }
  vj_free(root);
  ck_assert_uint_eq(n, 75);
  *count = n;
  return cases;
}

// encaps_matches encapsulates case `e` and reports whether the outputs are
// the expected ones.
static int encaps_matches(const encaps_case *e) {
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[32];
  if (mc_mlkem_encaps_derand(e->level, ct, sizeof ct, ss, e->ek, e->ek_len, e->m) != 0)
    return 0;
  return memcmp(ct, e->c, mc_mlkem_ciphertext_len(e->level)) == 0 && memcmp(ss, e->k, 32) == 0;
}

// Every vector cold (cache emptied), then warm (a hit), then all of them in
// a row twice: more keys than slots, so the cache keeps replacing.
START_TEST(encaps_cache_vectors_cold_and_warm) {
  size_t n;
  encaps_case *cases = load_encaps_cases(&n);
  size_t per_level[3] = {0};
  for (size_t i = 0; i < n; i++) {
    mc_mlkem_encaps_cache_clear();
    unsigned long hits = mc_mlkem_encaps_cache_hits();
    ck_assert_msg(encaps_matches(&cases[i]), "case %zu cold", i);
    ck_assert_uint_eq(mc_mlkem_encaps_cache_hits(), hits);
    ck_assert_msg(encaps_matches(&cases[i]), "case %zu warm", i);
    ck_assert_uint_eq(mc_mlkem_encaps_cache_hits(), hits + 1);
    per_level[cases[i].level == MC_MLKEM_512 ? 0 : cases[i].level == MC_MLKEM_768 ? 1 : 2]++;
  }
  ck_assert(per_level[0] > 0 && per_level[1] > 0 && per_level[2] > 0);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(encaps_matches(&cases[i]), "pass %d case %zu", pass, i);
  free(cases);
}
END_TEST

// cold_encaps encapsulates with an empty cache, leaving the cache empty.
static void cold_encaps(mc_mlkem_level level, uint8_t *ct, uint8_t ss[32], const uint8_t *pk,
                        size_t pk_len, const uint8_t m[32]) {
  mc_mlkem_encaps_cache_clear();
  ck_assert_int_eq(
      mc_mlkem_encaps_derand(level, ct, MC_MLKEM_MAX_CIPHERTEXT_LEN, ss, pk, pk_len, m), 0);
  mc_mlkem_encaps_cache_clear();
}

// expect_encaps encapsulates and compares with ct/ss and the hit count.
static void expect_encaps(mc_mlkem_level level, const uint8_t *want_ct, const uint8_t want_ss[32],
                          const uint8_t *pk, size_t pk_len, const uint8_t m[32],
                          unsigned long want_hits) {
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[32];
  ck_assert_int_eq(mc_mlkem_encaps_derand(level, ct, sizeof ct, ss, pk, pk_len, m), 0);
  ck_assert_mem_eq(ct, want_ct, mc_mlkem_ciphertext_len(level));
  ck_assert_mem_eq(ss, want_ss, 32);
  ck_assert_uint_eq(mc_mlkem_encaps_cache_hits(), want_hits);
}

// Round robin over MC_MLKEM_ENCAPS_CACHE_SLOTS (4) slots: five keys fill the
// four slots and evict the first; each later miss evicts the next slot.
START_TEST(encaps_cache_replacement) {
  ck_assert_int_eq(MC_MLKEM_ENCAPS_CACHE_SLOTS, 4);
  const mc_mlkem_level L = MC_MLKEM_768;
  enum { KEYS = 5 };
  static uint8_t pk[KEYS][MC_MLKEM768_PUBLIC_KEY_LEN], ct[KEYS][MC_MLKEM768_CIPHERTEXT_LEN];
  uint8_t sk[MC_MLKEM768_PRIVATE_KEY_LEN], ss[KEYS][32], seed[64], m[32];
  memset(m, 0x3c, sizeof m);
  for (int i = 0; i < KEYS; i++) {
    memset(seed, 0x11 * (i + 1), sizeof seed);
    ck_assert_int_eq(mc_mlkem_keygen_from_seed(L, pk[i], sizeof pk[i], sk, sizeof sk, seed, 64), 0);
    cold_encaps(L, ct[i], ss[i], pk[i], sizeof pk[i], m);
  }
  unsigned long h = mc_mlkem_encaps_cache_hits();
  for (int i = 0; i < KEYS; i++) // slots: 4 1 2 3, next 1
    expect_encaps(L, ct[i], ss[i], pk[i], sizeof pk[i], m, h);
  expect_encaps(L, ct[0], ss[0], pk[0], sizeof pk[0], m, h); // miss: 4 0 2 3, next 2
  expect_encaps(L, ct[2], ss[2], pk[2], sizeof pk[2], m, h + 1);
  expect_encaps(L, ct[3], ss[3], pk[3], sizeof pk[3], m, h + 2);
  expect_encaps(L, ct[4], ss[4], pk[4], sizeof pk[4], m, h + 3);
  expect_encaps(L, ct[0], ss[0], pk[0], sizeof pk[0], m, h + 4);
  expect_encaps(L, ct[1], ss[1], pk[1], sizeof pk[1], m, h + 4); // miss: 4 0 1 3
  expect_encaps(L, ct[1], ss[1], pk[1], sizeof pk[1], m, h + 5);
  expect_encaps(L, ct[2], ss[2], pk[2], sizeof pk[2], m, h + 5); // evicted
  // Clearing empties every slot.
  mc_mlkem_encaps_cache_clear();
  expect_encaps(L, ct[4], ss[4], pk[4], sizeof pk[4], m, h + 5);
}
END_TEST

// A key of the same length and rho as a cached one but another t-hat, or the
// same t-hat and another rho, must miss and encapsulate under its own value;
// a key failing the modulus check is refused even right after its valid twin.
START_TEST(encaps_cache_similar_key_misses) {
  mc_mlkem_level level = levels[_i];
  size_t pk_len = mc_mlkem_public_key_len(level);
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN], seed[64], m[32];
  uint8_t variant[3][MC_MLKEM_MAX_PUBLIC_KEY_LEN];
  uint8_t ct[4][MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[4][32];
  memset(seed, 0x5a, sizeof seed);
  memset(m, 0xc3, sizeof m);
  ck_assert_int_eq(mc_mlkem_keygen_from_seed(level, pk, pk_len, sk, sizeof sk, seed, 64), 0);
  // variant 0: the first t-hat coefficient x becomes (x + 1) mod q.
  memcpy(variant[0], pk, pk_len);
  unsigned x = (pk[0] | (pk[1] & 0x0fu) << 8) + 1;
  x = x == MC_MLKEM_Q ? 0 : x;
  variant[0][0] = (uint8_t)x;
  variant[0][1] = (uint8_t)((pk[1] & 0xf0) | x >> 8);
  // variant 1: the last byte of rho flipped.
  memcpy(variant[1], pk, pk_len);
  variant[1][pk_len - 1] ^= 0x01;
  // variant 2: the last coefficient of t-hat moved in its low nibble.
  memcpy(variant[2], pk, pk_len);
  unsigned y = (unsigned)(pk[pk_len - 34] >> 4 | pk[pk_len - 33] << 4);
  y = y == 0 ? 1 : y - 1;
  variant[2][pk_len - 34] = (uint8_t)((pk[pk_len - 34] & 0x0f) | (y & 0x0f) << 4);
  variant[2][pk_len - 33] = (uint8_t)(y >> 4);
  cold_encaps(level, ct[0], ss[0], pk, pk_len, m);
  for (int v = 0; v < 3; v++) {
    ck_assert(memcmp(variant[v], pk, pk_len) != 0);
    ck_assert_int_eq(mc_mlkem_check_public_key(level, variant[v], pk_len), 0);
    cold_encaps(level, ct[v + 1], ss[v + 1], variant[v], pk_len, m);
    ck_assert(memcmp(ss[v + 1], ss[0], 32) != 0);
  }
  for (int v = 0; v < 3; v++) {
    mc_mlkem_encaps_cache_clear();
    unsigned long h = mc_mlkem_encaps_cache_hits();
    expect_encaps(level, ct[0], ss[0], pk, pk_len, m, h);
    expect_encaps(level, ct[v + 1], ss[v + 1], variant[v], pk_len, m, h);
    expect_encaps(level, ct[0], ss[0], pk, pk_len, m, h + 1);
    expect_encaps(level, ct[v + 1], ss[v + 1], variant[v], pk_len, m, h + 2);
  }
  // A coefficient of 4095: refused cold, and refused while pk is cached.
  uint8_t bad[MC_MLKEM_MAX_PUBLIC_KEY_LEN], out_ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], out_ss[32];
  memcpy(bad, pk, pk_len);
  bad[0] = 0xff;
  bad[1] |= 0x0f;
  unsigned long h = mc_mlkem_encaps_cache_hits();
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(mc_mlkem_encaps_derand(level, out_ct, sizeof out_ct, out_ss, bad, pk_len, m),
                     MC_ERR_BAD_KEY);
  ck_assert_uint_eq(mc_mlkem_encaps_cache_hits(), h);
}
END_TEST

struct cache_job {
  const encaps_case *cases;
  size_t n;
  int ok;
  unsigned long hits;
};

// cache_thread encapsulates every case twice in a row, then all again: each
// thread has a cache of its own, starting empty.
static void *cache_thread(void *arg) {
  struct cache_job *j = arg;
  j->ok = mc_mlkem_encaps_cache_hits() == 0;
  for (int round = 0; round < 3; round++)
    for (size_t i = 0; i < j->n; i++)
      j->ok &= encaps_matches(&j->cases[i]) && encaps_matches(&j->cases[i]);
  j->hits = mc_mlkem_encaps_cache_hits();
  return NULL;
}

START_TEST(encaps_cache_threads) {
  size_t n;
  encaps_case *cases = load_encaps_cases(&n);
  // This thread's cache must not be seen by the others.
  for (size_t i = 0; i < 4 && i < n; i++)
    ck_assert(encaps_matches(&cases[i]));
  pthread_t t[4];
  struct cache_job jobs[4];
  for (size_t i = 0; i < 4; i++) {
    // Each thread takes a different stretch of the cases, all levels included.
    jobs[i] = (struct cache_job){.cases = cases + 5 * i, .n = n - 5 * i};
    ck_assert_int_eq(pthread_create(&t[i], NULL, cache_thread, &jobs[i]), 0);
  }
  for (size_t i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    ck_assert_msg(jobs[i].ok, "thread %zu", i);
    // Every second call of a pair hits; the 25 keys of each level exceed the
    // slots, so the rounds after the first miss again.
    ck_assert_uint_eq(jobs[i].hits, 3 * jobs[i].n);
  }
  free(cases);
}
END_TEST

int main(void) {
  // A run forced (MSGCRYPT_IMPL, meson.build's per-implementation runs) onto
  // an implementation that this CPU cannot run has nothing to test.
  const char *forced = getenv("MSGCRYPT_IMPL");
  for (size_t i = 0; forced != NULL && i < mc_impl_count(); i++) {
    int sup;
    if (strcmp(mc_impl_get(i, &sup), forced) == 0 && !sup) {
      printf("1..0 # SKIP MSGCRYPT_IMPL=%s: not supported by this CPU\n", forced);
      return EXIT_SUCCESS;
    }
  }
  Suite *s = suite_create("mlkem");
  TCase *arith = tcase_create("arithmetic");
  tcase_set_timeout(arith, 60);
  tcase_add_test(arith, barrett_reduce_every_int16);
  tcase_add_test(arith, montgomery_reduce_range);
  tcase_add_test(arith, compress_decompress_every_value);
  tcase_add_test(arith, zeta_table_matches_definition);
  tcase_add_test(arith, ntt_product_matches_schoolbook);
  tcase_add_test(arith, accumulation_of_four_extreme_products);
  suite_add_tcase(s, arith);

  TCase *vectors = tcase_create("vectors");
  tcase_set_timeout(vectors, 120);
  tcase_add_test(vectors, acvp_keygen);
  tcase_add_test(vectors, acvp_encap_decap);
  tcase_add_test(vectors, wycheproof_all_files);
  tcase_add_loop_test(vectors, rfc9935_key_files, 0, 3);
  tcase_add_test(vectors, rfc9935_inconsistent_keys);
  tcase_add_test(vectors, rfc9936_cms_example);
  suite_add_tcase(s, vectors);

  TCase *props = tcase_create("properties");
  tcase_set_timeout(props, 60);
  tcase_add_loop_test(props, round_trip_random_keys, 0, 3);
  tcase_add_loop_test(props, implicit_rejection_gives_j_of_z_and_c, 0, 3);
  tcase_add_test(props, sizes_match_constants);
  tcase_add_test(props, errors_are_reported_and_nothing_written);
  tcase_add_test(props, unreduced_private_key_decodes_mod_q);
  suite_add_tcase(s, props);

  TCase *cache = tcase_create("encaps-cache");
  tcase_set_timeout(cache, 120);
  tcase_add_test(cache, encaps_cache_vectors_cold_and_warm);
  tcase_add_test(cache, encaps_cache_replacement);
  tcase_add_loop_test(cache, encaps_cache_similar_key_misses, 0, 3);
  tcase_add_test(cache, encaps_cache_threads);
  suite_add_tcase(s, cache);

  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
