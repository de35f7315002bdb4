// test_x25519.c: libmsgcrypt's X25519 (x25519.c, src/x86/x25519_adx.c)
// against RFC 7748 §5.2 (single vectors, the iterated test after 1 and
// 1,000 iterations, or 1,000,000 when X25519_ITERATIONS says so, as the
// msgcrypt-long suite does) and §6.1 (Alice and Bob), every case of
// Wycheproof's x25519_test.json, and BoringSSL's X25519 on random inputs;
// peer keys used repeatedly, which the x86-64 kernel serves from a table.
// Each kernel of every implementation this CPU supports is compared with the
// scalar one directly, and the fixed-base path with the ladder on u = 9.
#include <check.h>
#include <openssl/curve25519.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "impl_internal.h"
#include "msgcrypt.h"
#include "testutil.h"
#include "vecjson.h"
#include "x25519_internal.h"

// RFC 7748 §5.2, the two single test vectors (scalar, input u, output u).
static const struct {
  const char *scalar, *u, *out;
} rfc7748_single[] = {
    {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
    {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
};

START_TEST(rfc7748_single_vectors) {
  uint8_t k[32], u[32], want[32], got[32];
  mc_test_unhex_fixed(k, 32, rfc7748_single[_i].scalar);
  mc_test_unhex_fixed(u, 32, rfc7748_single[_i].u);
  mc_test_unhex_fixed(want, 32, rfc7748_single[_i].out);
  ck_assert_int_eq(mc_x25519(got, k, u), 0);
  ck_assert_mem_eq(got, want, 32);
  // The second vector's u has its top bit set, which §5 says to ignore.
  mc_x25519_scalarmult_scalar(got, k, u);
  ck_assert_mem_eq(got, want, 32);
}
END_TEST

// RFC 7748 §5.2, the iterated test: k = u = 9, then (k, u) = (X25519(k, u),
// k), with the published values after 1, 1,000 and 1,000,000 iterations.
START_TEST(rfc7748_iterated) {
  static const char after_1[] = "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079";
  static const char after_1000[] =
      "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51";
  static const char after_1000000[] =
      "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424";
  const char *env = getenv("X25519_ITERATIONS");
  unsigned long last = env != NULL && strcmp(env, "1000000") == 0 ? 1000000 : 1000;
  uint8_t k[32] = {9}, u[32] = {9}, out[32], want[32];
  for (unsigned long i = 1; i <= last; i++) {
    ck_assert_int_eq(mc_x25519(out, k, u), 0);
    memcpy(u, k, 32);
    memcpy(k, out, 32);
    if (i == 1 || i == 1000 || i == 1000000) {
      mc_test_unhex_fixed(want, 32, i == 1 ? after_1 : i == 1000 ? after_1000 : after_1000000);
      ck_assert_msg(memcmp(k, want, 32) == 0, "after %lu iterations", i);
    }
  }
}
END_TEST

// RFC 7748 §6.1: Alice's and Bob's key pairs and their shared secret.
START_TEST(rfc7748_diffie_hellman) {
  uint8_t a_priv[32], a_pub[32], b_priv[32], b_pub[32], shared[32], out[32];
  mc_test_unhex_fixed(a_priv, 32,
                      "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  mc_test_unhex_fixed(a_pub, 32,
                      "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  mc_test_unhex_fixed(b_priv, 32,
                      "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
  mc_test_unhex_fixed(b_pub, 32,
                      "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
  mc_test_unhex_fixed(shared, 32,
                      "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
  ck_assert_int_eq(mc_x25519_public_key(out, a_priv), 0);
  ck_assert_mem_eq(out, a_pub, 32);
  ck_assert_int_eq(mc_x25519_public_key(out, b_priv), 0);
  ck_assert_mem_eq(out, b_pub, 32);
  ck_assert_int_eq(mc_x25519(out, a_priv, b_pub), 0);
  ck_assert_mem_eq(out, shared, 32);
  ck_assert_int_eq(mc_x25519(out, b_priv, a_pub), 0);
  ck_assert_mem_eq(out, shared, 32);
}
END_TEST

// Wycheproof x25519_test.json: "valid" cases must give the published secret;
// for "acceptable" ones (small-order, twist and non-canonical public keys)
// mc_x25519 may refuse only an all-zero secret and must match otherwise.
START_TEST(wycheproof_x25519) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, "wycheproof/x25519_test.json"));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0, refused = 0;
  static const uint8_t zero[32];
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
      ck_assert_uint_eq(pub_len, 32);
      ck_assert_uint_eq(priv_len, 32);
      ck_assert_uint_eq(shared_len, 32);
      uint8_t out[32];
      int rc = mc_x25519(out, priv, pub);
      ck_assert_msg(rc == 0 || rc == MC_ERR_BAD_KEY, "tcId %g: rc %d", id, rc);
      if (rc == 0) {
        ck_assert_msg(memcmp(out, shared, 32) == 0, "tcId %g: wrong shared secret", id);
      } else {
        ck_assert_msg(memcmp(shared, zero, 32) == 0, "tcId %g: refused a non-zero secret", id);
        ck_assert_msg(memcmp(out, zero, 32) == 0, "tcId %g: refused but output left", id);
        refused++;
      }
      if (strcmp(result, "valid") == 0)
        ck_assert_msg(rc == 0, "tcId %g: valid case rejected", id);
      else
        ck_assert_str_eq(result, "acceptable");
      // The scalar kernel is the specification for every case.
      uint8_t ref[32];
      mc_x25519_scalarmult_scalar(ref, priv, pub);
      ck_assert_msg(memcmp(ref, shared, 32) == 0, "tcId %g: scalar kernel", id);
      checked++;
      free(pub);
      free(priv);
      free(shared);
    }
  }
  ck_assert_uint_ge(checked, 500);
  ck_assert_uint_ge(refused, 20); // the ZeroSharedSecret cases
  vj_free(root);
}
END_TEST

// Every supported implementation's two kernels, called through the table,
// against the scalar kernels and BoringSSL's X25519, on random scalars and
// random u (top bit and values above p included, since any 32 bytes are
// a valid input).
START_TEST(kernels_match_scalar_and_boringssl) {
  int ran = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    const struct mc_impl *impl = mc_impl_current();
    for (uint32_t i = 0; i < 300; i++) {
      uint8_t k[32], u[32], got[32], want[32], bssl[32];
      mc_test_bytes(k, 32, "x25519 k", i);
      mc_test_bytes(u, 32, "x25519 u", i);
      if (i % 10 == 1)
        memset(u + 1, 0xff, 31); // near 2^256: above p, top bit set
      if (i % 10 == 2) {
        memset(u, 0xff, 32); // 2^255 - 1 once bit 255 is dropped: p + 18
        u[0] = (uint8_t)(0xed + (i / 10) % 19);
        u[31] = 0x7f;
      }
      impl->x25519(got, k, u);
      mc_x25519_scalarmult_scalar(want, k, u);
      ck_assert_msg(memcmp(got, want, 32) == 0, "%s: x25519 case %u", name, i);
      if (X25519(bssl, k, u))
        ck_assert_msg(memcmp(got, bssl, 32) == 0, "%s: BoringSSL case %u", name, i);
      impl->x25519_base(got, k);
      X25519_public_from_private(bssl, k);
      ck_assert_msg(memcmp(got, bssl, 32) == 0, "%s: base case %u", name, i);
      mc_x25519_base_scalar(want, k);
      ck_assert_msg(memcmp(got, want, 32) == 0, "%s: base vs ladder case %u", name, i);
    }
    ran++;
  }
  ck_assert_int_ge(ran, 1);
}
END_TEST

// peer_key writes to `u` the public key of Wycheproof test `t` of `tests`
// (curve, twist, small-order and non-canonical keys alike), or past the
// file's tests a random key on the curve, drawn under `label`.
static void peer_key(uint8_t u[32], const vj_value *tests, size_t t, const char *label) {
  if (t < tests->count) {
    size_t n = 0;
    uint8_t *p = mc_test_unhex(vj_str(&tests->items[t], "public"), &n);
    ck_assert(p != NULL && n == 32);
    memcpy(u, p, 32);
    free(p);
  } else {
    uint8_t k[32];
    mc_test_bytes(k, 32, label, (uint32_t)t);
    mc_x25519_base_scalar(u, k);
  }
}

// A peer key used again and again (the kernels may keep a table for it):
// every use, with a new scalar each time, must still match the scalar
// ladder, for keys on the curve, on its twist, of small order, non-canonical
// (every public key of Wycheproof's x25519_test.json) and random keys.
START_TEST(repeated_peers_match_scalar) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, "wycheproof/x25519_test.json"));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  const vj_value *tests = vj_get(&vj_get(root, "testGroups")->items[0], "tests");
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    const struct mc_impl *impl = mc_impl_current();
    for (size_t t = 0; t < tests->count + 20; t++) {
      uint8_t u[32], k[32], got[32], want[32];
      peer_key(u, tests, t, "x25519 peer");
      for (uint32_t use = 0; use < 4; use++) {
        mc_test_bytes(k, 32, "x25519 repeated", (uint32_t)(4 * t + use));
        impl->x25519(got, k, u);
        mc_x25519_scalarmult_scalar(want, k, u);
        ck_assert_msg(memcmp(got, want, 32) == 0, "%s: peer %zu, use %u", name, t, use);
      }
    }
  }
  vj_free(root);
}
END_TEST

// mc_x25519_ephemeral, under every supported implementation, against the
// scalar kernels for the same peer keys as above, each used four times (the
// "adxsha" entry then shares one inversion between the two results): the
// public key always, the shared secret and MC_ERR_BAD_KEY exactly when it
// is all zeros (small-order peers, whose fraction has a zero denominator).
START_TEST(ephemeral_matches_separate) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, "wycheproof/x25519_test.json"));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  const vj_value *tests = vj_get(&vj_get(root, "testGroups")->items[0], "tests");
  static const uint8_t zero[32];
  int zeros = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    for (size_t t = 0; t < tests->count + 20; t++) {
      uint8_t u[32], k[32], pub[32], shared[32], want_pub[32], want_shared[32];
      peer_key(u, tests, t, "x25519 eph peer");
      for (uint32_t use = 0; use < 4; use++) {
        mc_test_bytes(k, 32, "x25519 ephemeral", (uint32_t)(4 * t + use));
        int rc = mc_x25519_ephemeral(pub, shared, k, u);
        mc_x25519_base_scalar(want_pub, k);
        mc_x25519_scalarmult_scalar(want_shared, k, u);
        int want_rc = memcmp(want_shared, zero, 32) == 0 ? MC_ERR_BAD_KEY : 0;
        zeros += want_rc != 0;
        ck_assert_msg(rc == want_rc, "%s: peer %zu, use %u: status %d", name, t, use, rc);
        ck_assert_msg(memcmp(pub, want_pub, 32) == 0, "%s: peer %zu, use %u: public key", name, t,
                      use);
        ck_assert_msg(memcmp(shared, want_shared, 32) == 0, "%s: peer %zu, use %u: shared", name, t,
                      use);
      }
    }
  }
  ck_assert_int_gt(zeros, 0); // the small-order peers were among them
  uint8_t k[32] = {1}, u[32] = {9}, out[32];
  ck_assert_int_eq(mc_x25519_ephemeral(NULL, out, k, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_ephemeral(out, NULL, k, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_ephemeral(out, out, NULL, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_ephemeral(out, out, k, NULL), MC_ERR_INVALID_ARGUMENT);
  vj_free(root);
}
END_TEST

// Scalars at the edges of clamping: all zeros, all ones, a single bit; the
// fixed-base digits then reach their extremes (-8 and 8).
START_TEST(base_edge_scalars) {
  static const uint8_t patterns[] = {0x00, 0xff, 0x88, 0x77, 0x80, 0x08, 0xf8, 0x8f};
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    for (size_t p = 0; p < sizeof patterns; p++) {
      uint8_t k[32], got[32], want[32];
      memset(k, patterns[p], 32);
      mc_impl_current()->x25519_base(got, k);
      X25519_public_from_private(want, k);
      ck_assert_msg(memcmp(got, want, 32) == 0, "%s: pattern %02x", name, patterns[p]);
    }
  }
}
END_TEST

START_TEST(exchange_agrees) {
  for (int i = 0; i < 20; i++) {
    uint8_t a_pub[32], a_priv[32], b_pub[32], b_priv[32], s1[32], s2[32];
    ck_assert_int_eq(mc_x25519_keypair(a_pub, a_priv), 0);
    ck_assert_int_eq(mc_x25519_keypair(b_pub, b_priv), 0);
    ck_assert_int_eq(mc_x25519(s1, a_priv, b_pub), 0);
    ck_assert_int_eq(mc_x25519(s2, b_priv, a_pub), 0);
    ck_assert_mem_eq(s1, s2, 32);
    ck_assert_mem_ne(a_pub, b_pub, 32);
  }
}
END_TEST

START_TEST(small_order_refused) {
  uint8_t k[32], u[32] = {0}, out[32];
  static const uint8_t zero[32];
  mc_test_bytes(k, 32, "x25519 small", 0);
  ck_assert_int_eq(mc_x25519(out, k, u), MC_ERR_BAD_KEY);
  ck_assert_mem_eq(out, zero, 32);
  u[0] = 1; // u = 1 has order 4
  ck_assert_int_eq(mc_x25519(out, k, u), MC_ERR_BAD_KEY);
  ck_assert_mem_eq(out, zero, 32);
  memset(u, 0xff, 32); // p + 1, a non-canonical encoding of u = 1
  u[0] = 0xee;
  u[31] = 0x7f;
  ck_assert_int_eq(mc_x25519(out, k, u), MC_ERR_BAD_KEY);
}
END_TEST

// The "adxsha" kernels pick table entries with an AVX2 compare-and-mask
// scan; every (row, digit) must give what the 64-bit masked moves give.
START_TEST(vector_scan_matches_scalar) {
#ifdef __x86_64__
  for (size_t im = 0; im < mc_impl_count(); im++) {
    int sup = 0;
    const char *name = mc_impl_get(im, &sup);
    if (sup && strcmp(name, "adxsha") == 0)
      ck_assert_int_eq(mc_x25519_select_check(), 0);
  }
#endif
}
END_TEST

START_TEST(argument_errors) {
  uint8_t k[32] = {1}, u[32] = {9}, out[32];
  ck_assert_int_eq(mc_x25519(NULL, k, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519(out, NULL, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519(out, k, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_public_key(NULL, k), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_public_key(out, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_keypair(NULL, k), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_keypair(out, NULL), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("x25519");
  TCase *tc = tcase_create("x25519");
  tcase_add_loop_test(tc, rfc7748_single_vectors, 0,
                      sizeof rfc7748_single / sizeof rfc7748_single[0]);
  tcase_add_test(tc, rfc7748_iterated);
  tcase_add_test(tc, rfc7748_diffie_hellman);
  tcase_add_test(tc, wycheproof_x25519);
  tcase_add_test(tc, kernels_match_scalar_and_boringssl);
  tcase_add_test(tc, repeated_peers_match_scalar);
  tcase_add_test(tc, base_edge_scalars);
  tcase_add_test(tc, exchange_agrees);
  tcase_add_test(tc, small_order_refused);
  tcase_add_test(tc, vector_scan_matches_scalar);
  tcase_add_test(tc, ephemeral_matches_separate);
  tcase_add_test(tc, argument_errors);
  // The 1,000,000-iteration run (msgcrypt-long) takes minutes.
  const char *env = getenv("X25519_ITERATIONS");
  tcase_set_timeout(tc, env != NULL ? 3600 : 120);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
