// test_p256.c: libmsgcrypt's P-256 (p256.c, src/x86/p256_adx.c) against
// every case of Wycheproof's ecdh_secp256r1_ecpoint_test.json (valid,
// acceptable and invalid, once per implementation this CPU supports) and
// against BoringSSL's EC_POINT_mul: both kernels of every implementation on
// random and edge scalars and points, every entry of the fixed-base table,
// point decoding (compressed too) and refusals, the scalar range check, and
// mc_ecdh_ephemeral's random keys checked by BoringSSL's ECDH on the other
// side.
#include <check.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdh.h>
#include <openssl/nid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "impl_internal.h"
#include "msgcrypt.h"
#include "p256_internal.h"
#include "testutil.h"
#include "vecjson.h"

static const uint8_t order_be[32] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};

static const EC_GROUP *group(void) {
  static EC_GROUP *g;
  if (g == NULL)
    g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  ck_assert_ptr_nonnull(g);
  return g;
}

// bssl_mul sets out (65 bytes, uncompressed) = k·P with BoringSSL, P = G
// when `point` is NULL, else the 65-byte uncompressed `point`.
static void bssl_mul(uint8_t out[65], const uint8_t k[32], const uint8_t *point) {
  const EC_GROUP *g = group();
  BIGNUM *bk = BN_bin2bn(k, 32, NULL);
  EC_POINT *r = EC_POINT_new(g), *p = EC_POINT_new(g);
  ck_assert(bk != NULL && r != NULL && p != NULL);
  if (point == NULL) {
    ck_assert(EC_POINT_mul(g, r, bk, NULL, NULL, NULL));
  } else {
    ck_assert(EC_POINT_oct2point(g, p, point, 65, NULL));
    ck_assert(EC_POINT_mul(g, r, NULL, p, bk, NULL));
  }
  ck_assert_uint_eq(EC_POINT_point2oct(g, r, POINT_CONVERSION_UNCOMPRESSED, out, 65, NULL), 65);
  EC_POINT_free(r);
  EC_POINT_free(p);
  BN_free(bk);
}

// random_scalar: a pseudo-random scalar from 1 to n - 1, with some cases at
// the edges (1, n - 1, few or many bits, digits of 16 or -15 everywhere).
static void random_scalar(uint8_t k[32], const char *label, uint32_t i) {
  mc_test_bytes(k, 32, label, i);
  switch (i % 16) {
  case 1:
    memset(k, 0, 32);
    k[31] = (uint8_t)(1 + i / 16 % 40);
    break;
  case 2:
    memcpy(k, order_be, 32);
    k[31] = (uint8_t)(k[31] - 1 - i / 16 % 20);
    break;
  case 3:
    memset(k, 0, 16); // a 128-bit scalar
    break;
  case 4:
    memset(k, 0x84, 32); // ...10000100 repeating: many windows of 16
    break;
  case 5:
    memset(k, 0xff, 4);
    memset(k + 4, 0, 4); // just below n's top words
    break;
  default:
    break;
  }
  if (!mc_p256_scalar_check(k))
    k[0] = 0x7f; // the rare draw at or above n
  ck_assert(mc_p256_scalar_check(k));
}

START_TEST(wycheproof_ecpoint) {
  char path[4096];
  vj_value *root = vj_parse_file(
      vj_vectors_path(path, sizeof path, "wycheproof/ecdh_secp256r1_ecpoint_test.json"));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  const vj_value *groups = vj_get(root, "testGroups");
  int ran = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    size_t valid = 0, refused = 0;
    for (size_t g = 0; g < groups->count; g++) {
      const vj_value *tests = vj_get(&groups->items[g], "tests");
      for (size_t t = 0; t < tests->count; t++) {
        const vj_value *tc = &tests->items[t];
        double id = vj_num(tc, "tcId", 0);
        const char *result = vj_str(tc, "result");
        size_t pub_len = 0, priv_len = 0, shared_len = 0;
        uint8_t *pub = mc_test_unhex(vj_str(tc, "public"), &pub_len);
        uint8_t *priv = mc_test_unhex(vj_str(tc, "private"), &priv_len);
        uint8_t *shared = mc_test_unhex(vj_str(tc, "shared"), &shared_len);
        ck_assert(pub != NULL && priv != NULL && shared != NULL);
        uint8_t out_pub[65], out_shared[32], want_pub[65], k[32];
        int rc = mc_ecdh_ephemeral_derand(MC_EC_P256, out_pub, sizeof out_pub, out_shared,
                                          sizeof out_shared, priv, priv_len, pub, pub_len);
        if (strcmp(result, "invalid") == 0) {
          ck_assert_msg(rc == MC_ERR_BAD_KEY, "%s tcId %g: invalid case gave %d", name, id, rc);
          refused++;
        } else {
          // "acceptable" is the compressed point, which SEC 1 allows and
          // mc_ecdh_ephemeral documents.
          ck_assert_msg(rc == 0, "%s tcId %g: %s case gave %d", name, id, result, rc);
          ck_assert_uint_eq(shared_len, 32);
          ck_assert_msg(memcmp(out_shared, shared, 32) == 0, "%s tcId %g: shared", name, id);
          // Private keys come with leading zeros dropped or added.
          size_t n = priv_len < 32 ? priv_len : 32;
          memset(k, 0, 32);
          memcpy(k + 32 - n, priv + priv_len - n, n);
          bssl_mul(want_pub, k, NULL);
          ck_assert_msg(memcmp(out_pub, want_pub, 65) == 0, "%s tcId %g: public", name, id);
          valid++;
        }
        free(pub);
        free(priv);
        free(shared);
      }
    }
    ck_assert_uint_eq(valid, 331);
    ck_assert_uint_eq(refused, 24);
    ran++;
  }
  ck_assert_int_ge(ran, 1);
  vj_free(root);
}
END_TEST

// Both kernels of every supported implementation against BoringSSL on
// random scalars and random points (themselves random multiples of G), and
// against the scalar kernels.
START_TEST(kernels_match_boringssl) {
  int ran = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    const struct mc_impl *impl = mc_impl_current();
    for (uint32_t i = 0; i < 200; i++) {
      uint8_t k[32], pk[32], point[65], xy[64], want[65], got_x[32], got_xy[64], ref[64];
      random_scalar(k, "p256 k", i);
      random_scalar(pk, "p256 peer", i);
      bssl_mul(point, pk, NULL);
      ck_assert_int_eq(mc_p256_point_decode(xy, point, 65), 0);
      ck_assert_mem_eq(xy, point + 1, 64);
      impl->p256_mul(got_x, k, xy);
      bssl_mul(want, k, point);
      ck_assert_msg(memcmp(got_x, want + 1, 32) == 0, "%s: mul case %u", name, i);
      mc_p256_mul_scalar(ref, k, xy);
      ck_assert_msg(memcmp(got_x, ref, 32) == 0, "%s: mul vs scalar case %u", name, i);
      impl->p256_base(got_xy, k);
      bssl_mul(want, k, NULL);
      ck_assert_msg(memcmp(got_xy, want + 1, 64) == 0, "%s: base case %u", name, i);
      mc_p256_base_scalar(ref, k);
      ck_assert_msg(memcmp(got_xy, ref, 64) == 0, "%s: base vs scalar case %u", name, i);
    }
    ran++;
  }
  ck_assert_int_ge(ran, 1);
}
END_TEST

// The multiplication's intermediate sums hit the special cases of
// incomplete formulas when P is G and the scalar is small or close to n:
// k·G through the variable-base kernel, for k = 1..40 and n - 40..n - 1.
START_TEST(mul_small_multiples_of_g) {
  static const uint8_t one[32] = {[31] = 1};
  uint8_t g[65];
  bssl_mul(g, one, NULL);
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    const struct mc_impl *impl = mc_impl_current();
    for (int i = 0; i < 80; i++) {
      uint8_t k[32], want[65], got[32], got_xy[64];
      if (i < 40) {
        memset(k, 0, 32);
        k[31] = (uint8_t)(i + 1);
      } else {
        memcpy(k, order_be, 32);
        k[31] = (uint8_t)(k[31] - (i - 39));
      }
      impl->p256_mul(got, k, g + 1);
      bssl_mul(want, k, NULL);
      ck_assert_msg(memcmp(got, want + 1, 32) == 0, "%s: k case %d", name, i);
      impl->p256_base(got_xy, k);
      ck_assert_msg(memcmp(got_xy, want + 1, 64) == 0, "%s: base k case %d", name, i);
    }
  }
}
END_TEST

// A peer point used several times in a row, as a server encrypting to one
// recipient does: the x86-64 kernel then answers from a table of the
// point's multiples. Points alternate and repeat; every answer must equal
// the scalar kernel's, and the fixed-window kernel alone must too.
START_TEST(repeated_peers) {
  int ran = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    const struct mc_impl *impl = mc_impl_current();
    static const unsigned pattern[] = {0, 0, 0, 1, 1, 0, 0, 2, 2, 2, 2, 1, 1, 1, 0};
    uint8_t points[3][65];
    for (uint32_t p = 0; p < 3; p++) {
      uint8_t pk[32];
      random_scalar(pk, "p256 repeated peer", p + 16 * 7);
      bssl_mul(points[p], pk, NULL);
    }
    for (uint32_t i = 0; i < sizeof pattern / sizeof pattern[0]; i++) {
      uint8_t k[32], got[32], want[32];
      random_scalar(k, "p256 repeated k", i);
      impl->p256_mul(got, k, points[pattern[i]] + 1);
      mc_p256_mul_scalar(want, k, points[pattern[i]] + 1);
      ck_assert_msg(memcmp(got, want, 32) == 0, "%s: repeated peer case %u", name, i);
#if defined(__x86_64__)
      if (strcmp(name, "adxsha") == 0) {
        mc_p256_mul_window_adx(got, k, points[pattern[i]] + 1);
        ck_assert_msg(memcmp(got, want, 32) == 0, "%s: window kernel case %u", name, i);
      }
#endif
    }
    ran++;
  }
  ck_assert_int_ge(ran, 1);
}
END_TEST

// Threads that each use one peer point several times build their own
// tables; every answer must equal the scalar kernel's, and each thread's
// table is freed when it exits (LeakSanitizer checks that in the ASan
// build).
struct peer_job {
  uint8_t point[65];
  uint32_t seed;
  int mismatches;
};

static void *peer_thread(void *arg) {
  struct peer_job *job = arg;
  const struct mc_impl *impl = mc_impl_current();
  for (uint32_t i = 0; i < 5; i++) {
    uint8_t k[32], got[32], want[32];
    random_scalar(k, "p256 thread k", job->seed * 8 + i);
    impl->p256_mul(got, k, job->point + 1);
    mc_p256_mul_scalar(want, k, job->point + 1);
    job->mismatches += memcmp(got, want, 32) != 0;
  }
  return NULL;
}

START_TEST(repeated_peers_in_threads) {
  struct peer_job jobs[3];
  pthread_t t[3];
  for (uint32_t j = 0; j < 3; j++) {
    uint8_t pk[32];
    random_scalar(pk, "p256 thread peer", j);
    bssl_mul(jobs[j].point, pk, NULL);
    jobs[j].seed = j;
    jobs[j].mismatches = 0;
    ck_assert_int_eq(pthread_create(&t[j], NULL, peer_thread, &jobs[j]), 0);
  }
  for (uint32_t j = 0; j < 3; j++) {
    ck_assert_int_eq(pthread_join(t[j], NULL), 0);
    ck_assert_msg(jobs[j].mismatches == 0, "thread %u: %d wrong answers", j, jobs[j].mismatches);
  }
}
END_TEST

// Every entry of the fixed-base table is (j + 1)·2^(5i)·G in Montgomery
// form, recomputed with BoringSSL.
START_TEST(base_table_entries) {
  const EC_GROUP *g = group();
  BN_CTX *ctx = BN_CTX_new();
  BIGNUM *k = BN_new(), *x = BN_new(), *y = BN_new(), *p = BN_new();
  EC_POINT *pt = EC_POINT_new(g);
  ck_assert(ctx != NULL && k != NULL && x != NULL && y != NULL && p != NULL && pt != NULL);
  ck_assert(EC_GROUP_get_curve_GFp(g, p, NULL, NULL, ctx));
  for (int i = 0; i < MC_P256_WINDOWS; i++) {
    for (int j = 0; j < MC_P256_WINDOW_ENTRIES; j++) {
      ck_assert(BN_set_word(k, (BN_ULONG)(j + 1)));
      ck_assert(BN_lshift(k, k, 5 * i));
      ck_assert(EC_POINT_mul(g, pt, k, NULL, NULL, ctx));
      ck_assert(EC_POINT_get_affine_coordinates_GFp(g, pt, x, y, ctx));
      const mc_p256_fe *coord[2] = {&mc_p256_base_table[i][j].x, &mc_p256_base_table[i][j].y};
      BIGNUM *want[2] = {x, y};
      for (int c = 0; c < 2; c++) {
        uint8_t be[32], got[32];
        ck_assert(BN_lshift(want[c], want[c], 256));
        ck_assert(BN_nnmod(want[c], want[c], p, ctx));
        ck_assert(BN_bn2bin_padded(be, 32, want[c]));
        for (int l = 0; l < 4; l++)
          for (int b = 0; b < 8; b++)
            got[8 * (3 - l) + b] = (uint8_t)(coord[c]->v[l] >> (56 - 8 * b));
        ck_assert_msg(memcmp(be, got, 32) == 0, "table entry [%d][%d] coordinate %d", i, j, c);
      }
    }
  }
  EC_POINT_free(pt);
  BN_free(k);
  BN_free(x);
  BN_free(y);
  BN_free(p);
  BN_CTX_free(ctx);
}
END_TEST

// Decoding: compressed points agree with BoringSSL's; malformed encodings,
// coordinates at or above p and points off the curve are refused.
START_TEST(point_decoding) {
  const EC_GROUP *g = group();
  for (uint32_t i = 0; i < 100; i++) {
    uint8_t k[32], point[65], comp[33], xy[64];
    random_scalar(k, "p256 decode", i);
    bssl_mul(point, k, NULL);
    EC_POINT *pt = EC_POINT_new(g);
    ck_assert(pt != NULL && EC_POINT_oct2point(g, pt, point, 65, NULL));
    ck_assert_uint_eq(EC_POINT_point2oct(g, pt, POINT_CONVERSION_COMPRESSED, comp, 33, NULL), 33);
    EC_POINT_free(pt);
    ck_assert_int_eq(mc_p256_point_decode(xy, comp, 33), 0);
    ck_assert_mem_eq(xy, point + 1, 64);
    comp[0] ^= 1; // the other y
    ck_assert_int_eq(mc_p256_point_decode(xy, comp, 33), 0);
    ck_assert_mem_eq(xy, point + 1, 32);
    ck_assert(memcmp(xy + 32, point + 33, 32) != 0);
    // Off the curve: y changed in its last bit.
    point[64] ^= 1;
    ck_assert_int_eq(mc_p256_point_decode(xy, point, 65), MC_ERR_BAD_KEY);
    point[64] ^= 1;
    // Wrong prefixes and lengths.
    point[0] = 0x06 | (point[64] & 1); // hybrid form
    ck_assert_int_eq(mc_p256_point_decode(xy, point, 65), MC_ERR_BAD_KEY);
    point[0] = 0x04;
    ck_assert_int_eq(mc_p256_point_decode(xy, point, 64), MC_ERR_BAD_KEY);
    ck_assert_int_eq(mc_p256_point_decode(xy, point, 33), MC_ERR_BAD_KEY);
    comp[0] = 0x04;
    ck_assert_int_eq(mc_p256_point_decode(xy, comp, 33), MC_ERR_BAD_KEY);
  }
  // The point at infinity, and coordinates p and above (x = p is x = 0 mod
  // p, which is on the curve: y^2 = b has a root).
  static const uint8_t infinity[1] = {0};
  uint8_t xy[64], enc[65];
  ck_assert_int_eq(mc_p256_point_decode(xy, infinity, 1), MC_ERR_BAD_KEY);
  uint8_t p_be[32];
  size_t p_len = 0;
  uint8_t *p_hex =
      mc_test_unhex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", &p_len);
  ck_assert(p_hex != NULL && p_len == 32);
  memcpy(p_be, p_hex, 32);
  free(p_hex);
  uint8_t comp0[33] = {0x02};
  ck_assert_int_eq(mc_p256_point_decode(xy, comp0, 33), 0); // x = 0 is on the curve
  enc[0] = 0x04;
  memcpy(enc + 1, xy, 64);
  ck_assert_int_eq(mc_p256_point_decode(xy, enc, 65), 0);
  memcpy(enc + 1, p_be, 32); // the same point with x written as p
  ck_assert_int_eq(mc_p256_point_decode(xy, enc, 65), MC_ERR_BAD_KEY);
  uint8_t compp[33] = {0x02};
  memcpy(compp + 1, p_be, 32);
  ck_assert_int_eq(mc_p256_point_decode(xy, compp, 33), MC_ERR_BAD_KEY);
  // y written as y + p, when y + p is below 2^256.
  ck_assert_int_eq(mc_p256_point_decode(xy, comp0, 33), 0);
  BIGNUM *y = BN_bin2bn(xy + 32, 32, NULL), *p = BN_bin2bn(p_be, 32, NULL);
  ck_assert(y != NULL && p != NULL && BN_add(y, y, p));
  if (BN_num_bytes(y) <= 32) {
    memset(enc + 1, 0, 32);
    ck_assert(BN_bn2bin_padded(enc + 33, 32, y));
    ck_assert_int_eq(mc_p256_point_decode(xy, enc, 65), MC_ERR_BAD_KEY);
  }
  BN_free(y);
  BN_free(p);
}
END_TEST

START_TEST(scalar_range) {
  uint8_t k[32];
  memset(k, 0, 32);
  ck_assert_int_eq(mc_p256_scalar_check(k), 0);
  k[31] = 1;
  ck_assert_int_eq(mc_p256_scalar_check(k), 1);
  memcpy(k, order_be, 32);
  ck_assert_int_eq(mc_p256_scalar_check(k), 0);
  k[31]--;
  ck_assert_int_eq(mc_p256_scalar_check(k), 1);
  memset(k, 0xff, 32);
  ck_assert_int_eq(mc_p256_scalar_check(k), 0);
  // Through the public entry point: 0, n, and n with a leading zero byte.
  static const uint8_t one[32] = {[31] = 1};
  uint8_t g[65], pub[65], shared[32], k33[33] = {0};
  bssl_mul(g, one, NULL);
  memset(k, 0, 32);
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, 65, shared, 32, k, 32, g, 65),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, 65, shared, 32, order_be, 32, g, 65),
                   MC_ERR_BAD_KEY);
  memcpy(k33 + 1, order_be, 32);
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, 65, shared, 32, k33, 33, g, 65),
                   MC_ERR_BAD_KEY);
  k33[32]--;
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, 65, shared, 32, k33, 33, g, 65), 0);
  // A short scalar is a number with leading zeros: 2 as one byte.
  uint8_t two = 2, want[65];
  uint8_t k2[32] = {[31] = 2};
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, 65, shared, 32, &two, 1, g, 65), 0);
  bssl_mul(want, k2, NULL);
  ck_assert_mem_eq(pub, want, 65);
  ck_assert_mem_eq(shared, want + 1, 32);
}
END_TEST

// mc_ecdh_ephemeral with random keys: BoringSSL's ECDH with the recipient's
// private key and our ephemeral public key finds the same secret.
START_TEST(ephemeral_agrees_with_boringssl) {
  for (uint32_t i = 0; i < 50; i++) {
    EC_KEY *rcpt = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    ck_assert(rcpt != NULL && EC_KEY_generate_key(rcpt));
    uint8_t rcpt_pub[65], eph[65], shared[32], want[32];
    ck_assert_uint_eq(
        EC_POINT_point2oct(group(), EC_KEY_get0_public_key(rcpt),
                           i % 2 ? POINT_CONVERSION_COMPRESSED : POINT_CONVERSION_UNCOMPRESSED,
                           rcpt_pub, sizeof rcpt_pub, NULL),
        i % 2 ? 33u : 65u);
    ck_assert_int_eq(mc_ecdh_ephemeral(MC_EC_P256, eph, sizeof eph, shared, sizeof shared, rcpt_pub,
                                       i % 2 ? 33 : 65),
                     0);
    EC_POINT *e = EC_POINT_new(group());
    ck_assert(e != NULL && EC_POINT_oct2point(group(), e, eph, 65, NULL));
    ck_assert_int_eq(ECDH_compute_key(want, 32, e, rcpt, NULL), 32);
    ck_assert_mem_eq(shared, want, 32);
    EC_POINT_free(e);
    EC_KEY_free(rcpt);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("p256");
  TCase *tc = tcase_create("p256");
  tcase_add_test(tc, wycheproof_ecpoint);
  tcase_add_test(tc, kernels_match_boringssl);
  tcase_add_test(tc, mul_small_multiples_of_g);
  tcase_add_test(tc, repeated_peers);
  tcase_add_test(tc, repeated_peers_in_threads);
  tcase_add_test(tc, base_table_entries);
  tcase_add_test(tc, point_decoding);
  tcase_add_test(tc, scalar_range);
  tcase_add_test(tc, ephemeral_agrees_with_boringssl);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
