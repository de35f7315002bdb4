// test_sha3.c: SHA3-224/256/384/512 and SHAKE128/256 against the FIPS 202
// example values that NIST publishes (empty message, "abc", and 200 bytes of
// 0xa3), incremental absorbing and squeezing against one-shot calls, and the
// misuse errors.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "testutil.h"

static const struct {
  mc_sha3_alg alg;
  const char *msg; // "a3x200" stands for 200 bytes of 0xa3
  size_t out_len;
  const char *hex;
} fips202_examples[] = {
    {MC_SHA3_224, "", 28, "6b4e03423667dbb73b6e15454f0eb1abd4597f9a1b078e3f5b5a6bc7"},
    {MC_SHA3_256, "", 32, "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"},
    {MC_SHA3_384, "", 48,
     "0c63a75b845e4f7d01107d852e4c2485c51a50aaaa94fc61995e71bbee983a2ac3713831264adb47fb6bd1e058d5"
     "f004"},
    {MC_SHA3_512, "", 64,
     "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a615b2123af1f5f94c11e3e9402c3a"
     "c558f500199d95b6d3e301758586281dcd26"},
    {MC_SHA3_224, "abc", 28, "e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf"},
    {MC_SHA3_256, "abc", 32, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
    {MC_SHA3_384, "abc", 48,
     "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf22837"
     "6d25"},
    {MC_SHA3_512, "abc", 64,
     "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3"
     "934057340b4cf408d5a56592f8274eec53f0"},
    {MC_SHA3_256, "a3x200", 32, "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787"},
    {MC_SHA3_512, "a3x200", 64,
     "e76dfad22084a8b1467fcf2ffa58361bec7628edf5f3fdc0e4805dc48caeeca81b7c13c30adf52a3659584739a2d"
     "f46be589c51ca1a4a8416df6545a1ce8ba00"},
    {MC_SHAKE128, "", 32, "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"},
    {MC_SHAKE256, "", 64,
     "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762fd75dc4ddd8c0f200cb05019d67b5"
     "92f6fc821c49479ab48640292eacb3b7c4be"},
    {MC_SHAKE128, "a3x200", 32, "131ab8d2b594946b9c81333f9bb6e0ce75c3b93104fa3469d3917457385da037"},
    {MC_SHAKE256, "a3x200", 32, "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d"},
};

static size_t example_message(uint8_t *buf, const char *msg) {
  if (strcmp(msg, "a3x200") == 0) {
    memset(buf, 0xa3, 200);
    return 200;
  }
  size_t n = strlen(msg);
  memcpy(buf, msg, n);
  return n;
}

static int is_shake(mc_sha3_alg alg) {
  return alg == MC_SHAKE128 || alg == MC_SHAKE256;
}

START_TEST(fips202_example_values) {
  uint8_t msg[256], out[64];
  char hex[129];
  size_t msg_len = example_message(msg, fips202_examples[_i].msg);
  size_t out_len = fips202_examples[_i].out_len;
  if (is_shake(fips202_examples[_i].alg)) {
    ck_assert_int_eq(mc_shake(fips202_examples[_i].alg, out, out_len, msg, msg_len), 0);
  } else {
    size_t got = 0;
    ck_assert_int_eq(mc_sha3(fips202_examples[_i].alg, out, sizeof out, &got, msg, msg_len), 0);
    ck_assert_uint_eq(got, out_len);
  }
  mc_test_hex(hex, out, out_len);
  ck_assert_str_eq(hex, fips202_examples[_i].hex);
}
END_TEST

// A message that crosses several rates (72 … 168 bytes) in every algorithm.
static void fill_pattern(uint8_t *buf, size_t len) {
  for (size_t i = 0; i < len; i++)
    buf[i] = (uint8_t)(i * 131 + 7);
}

START_TEST(every_split_matches_one_shot) {
  enum { LEN = 400 };
  static const mc_sha3_alg algs[] = {MC_SHA3_224, MC_SHA3_256, MC_SHA3_384, MC_SHA3_512};
  uint8_t msg[LEN], want[64], got[64];
  fill_pattern(msg, LEN);
  for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
    size_t want_len, got_len;
    ck_assert_int_eq(mc_sha3(algs[a], want, sizeof want, &want_len, msg, LEN), 0);
    for (size_t split = 0; split <= LEN; split++) {
      mc_sha3_ctx ctx;
      ck_assert_int_eq(mc_sha3_init(&ctx, algs[a]), 0);
      ck_assert_int_eq(mc_sha3_update(&ctx, msg, split), 0);
      ck_assert_int_eq(mc_sha3_update(&ctx, msg + split, LEN - split), 0);
      ck_assert_int_eq(mc_sha3_final(&ctx, got, sizeof got, &got_len), 0);
      ck_assert_uint_eq(got_len, want_len);
      ck_assert_mem_eq(got, want, want_len);
    }
  }
}
END_TEST

START_TEST(byte_at_a_time_matches_one_shot) {
  enum { LEN = 1000 };
  uint8_t msg[LEN], want[64], got[64];
  size_t want_len, got_len;
  fill_pattern(msg, LEN);
  ck_assert_int_eq(mc_sha3(MC_SHA3_512, want, sizeof want, &want_len, msg, LEN), 0);
  mc_sha3_ctx ctx;
  ck_assert_int_eq(mc_sha3_init(&ctx, MC_SHA3_512), 0);
  for (size_t i = 0; i < LEN; i++)
    ck_assert_int_eq(mc_sha3_update(&ctx, msg + i, 1), 0);
  ck_assert_int_eq(mc_sha3_final(&ctx, got, sizeof got, &got_len), 0);
  ck_assert_mem_eq(got, want, want_len);
}
END_TEST

START_TEST(shake_squeeze_in_pieces_matches_one_shot) {
  enum { OUT = 1000 };
  static const mc_sha3_alg algs[] = {MC_SHAKE128, MC_SHAKE256};
  uint8_t msg[300], want[OUT], got[OUT];
  fill_pattern(msg, sizeof msg);
  for (size_t a = 0; a < 2; a++) {
    ck_assert_int_eq(mc_shake(algs[a], want, OUT, msg, sizeof msg), 0);
    for (size_t piece = 1; piece <= 200; piece += 13) {
      mc_sha3_ctx ctx;
      ck_assert_int_eq(mc_sha3_init(&ctx, algs[a]), 0);
      ck_assert_int_eq(mc_sha3_update(&ctx, msg, 100), 0);
      ck_assert_int_eq(mc_sha3_update(&ctx, msg + 100, sizeof msg - 100), 0);
      for (size_t off = 0; off < OUT; off += piece) {
        size_t n = OUT - off < piece ? OUT - off : piece;
        ck_assert_int_eq(mc_shake_squeeze(&ctx, got + off, n), 0);
      }
      mc_sha3_cleanup(&ctx);
      ck_assert_mem_eq(got, want, OUT);
    }
  }
}
END_TEST

START_TEST(misuse_is_reported) {
  mc_sha3_ctx ctx;
  uint8_t out[64];
  size_t out_len;
  ck_assert_int_eq(mc_sha3_init(&ctx, (mc_sha3_alg)0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_sha3_init(&ctx, (mc_sha3_alg)99), MC_ERR_INVALID_ARGUMENT);

  ck_assert_int_eq(mc_sha3_init(&ctx, MC_SHA3_256), 0);
  ck_assert_int_eq(mc_sha3_final(&ctx, out, 31, &out_len), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_shake_squeeze(&ctx, out, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_sha3_update(&ctx, NULL, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_sha3_update(&ctx, NULL, 0), 0);
  ck_assert_int_eq(mc_sha3_final(&ctx, out, 32, &out_len), 0);
  // final wipes the context: it cannot be used again without init.
  ck_assert_int_eq(mc_sha3_update(&ctx, out, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_sha3_final(&ctx, out, 64, &out_len), MC_ERR_INVALID_ARGUMENT);

  ck_assert_int_eq(mc_sha3_init(&ctx, MC_SHAKE128), 0);
  ck_assert_int_eq(mc_sha3_final(&ctx, out, 64, &out_len), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_shake_squeeze(&ctx, out, 8), 0);
  ck_assert_int_eq(mc_sha3_update(&ctx, out, 1), MC_ERR_INVALID_ARGUMENT);
  mc_sha3_cleanup(&ctx);
  mc_sha3_cleanup(NULL);

  ck_assert_int_eq(mc_sha3(MC_SHAKE256, out, 64, &out_len, out, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_shake(MC_SHA3_256, out, 64, out, 1), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sha3");
  TCase *tc = tcase_create("sha3");
  tcase_add_loop_test(tc, fips202_example_values, 0,
                      sizeof fips202_examples / sizeof fips202_examples[0]);
  tcase_add_test(tc, every_split_matches_one_shot);
  tcase_add_test(tc, byte_at_a_time_matches_one_shot);
  tcase_add_test(tc, shake_squeeze_in_pieces_matches_one_shot);
  tcase_add_test(tc, misuse_is_reported);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
