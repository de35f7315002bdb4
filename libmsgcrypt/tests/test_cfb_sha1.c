// test_cfb_sha1.c: SEIPDv1's one-pass CFB with SHA-1 (cfb_sha1.c and the
// table's cfb_sha1_blocks kernels) against BoringSSL's AES-CFB and SHA-1
// used separately, as pgp_seipd.c's streaming path uses them: for every
// implementation the CPU supports, every AES key size, random lengths around
// the 16- and 64-byte block edges, input given in random pieces, in place
// and out of place, the output must be byte for byte CFB(data || SHA-1(data)).
#include <check.h>
#include <openssl/aes.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "impl_internal.h"
#include "msgcrypt.h"

// reference: CFB from a zero IV over data || SHA-1(data), as two BoringSSL
// calls that know nothing of each other.
static void reference(uint8_t *out, const uint8_t *key, size_t key_len, const uint8_t *in,
                      size_t len) {
  uint8_t *pt = malloc(len + 20);
  memcpy(pt, in, len);
  SHA1(in, len, pt + len);
  AES_KEY aes;
  uint8_t iv[16] = {0};
  int num = 0;
  ck_assert_int_eq(AES_set_encrypt_key(key, (unsigned)key_len * 8, &aes), 0);
  AES_cfb128_encrypt(pt, out, len + 20, &aes, iv, &num, AES_ENCRYPT);
  free(pt);
}

START_TEST(matches_separate_cfb_and_sha1) {
  static const size_t key_lens[] = {16, 24, 32};
  int ran = 0;
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    for (uint32_t i = 0; i < 240; i++) {
      uint8_t key[32], r[8];
      size_t key_len = key_lens[i % 3];
      mc_test_bytes(key, 32, "cfb-sha1 key", i);
      mc_test_bytes(r, sizeof r, "cfb-sha1 len", i);
      size_t len = i < 140 ? i : (size_t)(r[0] | r[1] << 8) % 20000;
      uint8_t *in = malloc(len + 1), *want = malloc(len + 20), *got = malloc(len + 20);
      mc_test_bytes(in, len + 1, "cfb-sha1 data", i);
      reference(want, key, key_len, in, len);
      int in_place = i % 2;
      if (in_place)
        memcpy(got, in, len);
      mc_cfb_sha1 c;
      mc_cfb_sha1_start(&c, got, key, key_len);
      size_t pos = 0, step = 1 + r[2] % 97;
      while (pos < len) {
        size_t take = step > len - pos ? len - pos : step;
        mc_cfb_sha1_update(&c, (in_place ? got : in) + pos, take);
        pos += take;
        step = step * 5 % 4099 + r[3] % 7;
      }
      mc_cfb_sha1_final(&c);
      ck_assert_msg(memcmp(got, want, len + 20) == 0, "%s: case %u, length %zu", name, i, len);
      free(in);
      free(want);
      free(got);
    }
    ran++;
  }
  ck_assert_int_ge(ran, 1);
}
END_TEST

// The kernels directly: every supported one agrees with the scalar one on
// long runs of whole blocks, state carried across calls.
START_TEST(kernels_match_scalar) {
  enum { N = 64 * 300 };
  uint8_t *in = malloc(N), *a = malloc(N), *b = malloc(N), key[32];
  mc_test_bytes(in, N, "cfb-sha1 kernel", 0);
  mc_test_bytes(key, 32, "cfb-sha1 kernel key", 0);
  size_t it = 0;
  for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) {
    mc_cfb_sha1 x, y;
    mc_cfb_sha1_start(&x, a, key, 32);
    mc_cfb_sha1_start(&y, b, key, 32);
    mc_impl_current()->cfb_sha1_blocks(&x, a, in, 7);
    mc_impl_current()->cfb_sha1_blocks(&x, a + 7 * 64, in + 7 * 64, N / 64 - 7);
    mc_cfb_sha1_blocks_scalar(&y, b, in, N / 64);
    ck_assert_msg(memcmp(a, b, N) == 0, "%s: ciphertext", name);
    ck_assert_msg(memcmp(x.h, y.h, sizeof x.h) == 0, "%s: SHA-1 state", name);
    ck_assert_msg(memcmp(x.iv, y.iv, sizeof x.iv) == 0, "%s: CFB register", name);
  }
  free(in);
  free(a);
  free(b);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cfb_sha1");
  TCase *tc = tcase_create("cfb_sha1");
  tcase_add_test(tc, matches_separate_cfb_and_sha1);
  tcase_add_test(tc, kernels_match_scalar);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
