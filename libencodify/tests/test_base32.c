// test_base32.c: Base32 and base32hex (src/base32.c and every kernel): RFC
// 4648 vectors, padding variants, strict errors and their offsets, every
// length 0..300, every split of the stream to 120, and the implementation under
// test against scalar on random valid and invalid input.
#include "test_util.h"

#define B32 ENC_CODEC_BASE32
#define HEX ENC_FLAG_BASE32HEX
#define S(str) str, sizeof str - 1

static const struct {
  const char *plain, *std, *hex;
} rfc4648[] = {
    {"", "", ""},
    {"f", "MY======", "CO======"},
    {"fo", "MZXQ====", "CPNG===="},
    {"foo", "MZXW6===", "CPNMU==="},
    {"foob", "MZXW6YQ=", "CPNMUOG="},
    {"fooba", "MZXW6YTB", "CPNMUOJ1"},
    {"foobar", "MZXW6YTBOI======", "CPNMUOJ1E8======"},
};

START_TEST(rfc4648_vectors) {
  for (size_t i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
    const char *p = rfc4648[i].plain;
    expect_ok(B32, ENC_ENCODE, 0, 0, p, strlen(p), rfc4648[i].std);
    expect_ok(B32, ENC_ENCODE, HEX, 0, p, strlen(p), rfc4648[i].hex);
    expect_ok(B32, ENC_DECODE, 0, 0, rfc4648[i].std, strlen(rfc4648[i].std), p);
    expect_ok(B32, ENC_DECODE, HEX, 0, rfc4648[i].hex, strlen(rfc4648[i].hex), p);
    char nopad[32];
    size_t n = strcspn(rfc4648[i].std, "=");
    memcpy(nopad, rfc4648[i].std, n);
    nopad[n] = 0;
    expect_ok(B32, ENC_ENCODE, ENC_FLAG_NOPAD, 0, p, strlen(p), nopad);
    expect_ok(B32, ENC_DECODE, ENC_FLAG_NOPAD, 0, nopad, n, p);
  }
}
END_TEST

START_TEST(strict_errors) {
  expect_err(B32, ENC_DECODE, 0, 0, S("my======"), ENC_ERR_INVALID_CHAR, 0);
  expect_err(B32, ENC_DECODE, 0, 0, S("MZXW6YT1"), ENC_ERR_INVALID_CHAR, 7);
  expect_err(B32, ENC_DECODE, HEX, 0, S("CPNMUOJW"), ENC_ERR_INVALID_CHAR, 7);
  expect_err(B32, ENC_DECODE, 0, 0, S("MY====="), ENC_ERR_BAD_PADDING, 7);
  expect_err(B32, ENC_DECODE, 0, 0, S("MY"), ENC_ERR_BAD_PADDING, 2);
  expect_err(B32, ENC_DECODE, 0, 0, S("M======="), ENC_ERR_BAD_PADDING, 1);
  expect_err(B32, ENC_DECODE, 0, 0, S("MZX====="), ENC_ERR_BAD_PADDING, 3);
  expect_err(B32, ENC_DECODE, 0, 0, S("MY======MY======"), ENC_ERR_BAD_PADDING, 8);
  expect_err(B32, ENC_DECODE, 0, 0, S("MY=====A"), ENC_ERR_BAD_PADDING, 7);
  expect_err(B32, ENC_DECODE, 0, 0, S("MZ======"), ENC_ERR_TRAILING_BITS, 1);
  expect_err(B32, ENC_DECODE, 0, 0, S("MZXW6YR="), ENC_ERR_TRAILING_BITS, 6);
  expect_err(B32, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("MZ"), ENC_ERR_TRAILING_BITS, 1);
  expect_err(B32, ENC_DECODE, 0, 0, S("M"), ENC_ERR_TRUNCATED, 1);
  expect_err(B32, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("MZX"), ENC_ERR_TRUNCATED, 3);
  expect_err(B32, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("MZXW6Y"), ENC_ERR_TRUNCATED, 6);
  expect_err(B32, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("MY======"), ENC_ERR_INVALID_CHAR, 2);
  char big[160];
  memset(big, 'A', sizeof big);
  big[131] = '\n';
  expect_err(B32, ENC_DECODE, 0, 0, big, sizeof big, ENC_ERR_INVALID_CHAR, 131);
}
END_TEST

START_TEST(every_length_round_trip) {
  uint64_t rng = 3;
  uint8_t in[301] = {0};
  for (size_t n = 0; n <= 300; n++) {
    rng_fill(&rng, in, n);
    for (uint32_t fl = 0; fl < 4; fl++) {
      uint32_t flags = (fl & 1 ? HEX : 0) | (fl & 2 ? ENC_FLAG_NOPAD : 0);
      struct result e = check_vs_scalar(B32, ENC_ENCODE, flags, 0, in, n);
      ck_assert_int_eq(e.rc, 0);
      ck_assert_uint_eq(e.len, enc_encode_max_len(B32, flags, 0, n));
      struct result d = check_vs_scalar(B32, ENC_DECODE, flags, 0, e.data, e.len);
      ck_assert_int_eq(d.rc, 0);
      ck_assert_uint_eq(d.len, n);
      ck_assert_mem_eq(d.data, in, n);
      result_free(&d);
      result_free(&e);
    }
  }
}
END_TEST

// Every length 0..120 cut at every offset. The widest Base32 steps are the
// AVX2 ones (also AVX-512's): decoding takes 32 characters (20 bytes) and
// encoding reads 26 bytes and takes 20, so by 120 bytes (192 characters)
// every remainder of a step and of a 5-byte group follows 0 to 5 steps on
// both sides of every cut; longer inputs would add only more steps.
START_TEST(every_split) {
  uint64_t rng = 11 + (uint64_t)_i;
  uint8_t in[121] = {0};
  for (size_t n = (size_t)_i; n <= 120; n += 2) {
    rng_fill(&rng, in, n);
    check_splits(B32, ENC_ENCODE, 0, 0, in, n, &rng);
    check_splits(B32, ENC_ENCODE, HEX | ENC_FLAG_NOPAD, 0, in, n, &rng);
    struct result e = run_oneshot(B32, ENC_ENCODE, 0, 0, in, n);
    check_splits(B32, ENC_DECODE, 0, 0, e.data, e.len, &rng);
    result_free(&e);
  }
}
END_TEST

START_TEST(random_vs_scalar) {
  uint64_t rng = 77;
  static char in[2048];
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567=01a\n";
  for (int k = 0; k < 600; k++) {
    size_t n = rng_below(&rng, k < 300 ? 100 : sizeof in);
    size_t bad_rate = 1 + rng_below(&rng, 300);
    for (size_t i = 0; i < n; i++)
      in[i] = rng_below(&rng, bad_rate) == 0 ? alphabet[rng_below(&rng, sizeof alphabet - 1)]
                                             : alphabet[rng_below(&rng, 32)];
    struct result r = check_vs_scalar(B32, ENC_DECODE, 0, 0, in, n);
    result_free(&r);
    r = check_vs_scalar(B32, ENC_DECODE, HEX | ENC_FLAG_NOPAD, 0, in, n);
    result_free(&r);
    if (k % 50 == 0) {
      check_splits(B32, ENC_DECODE, 0, 0, in, n < 200 ? n : 200, &rng);
    }
  }
}
END_TEST

START_TEST(buffer_sizes) {
  char out[16];
  size_t len;
  ck_assert_int_eq(enc_base32_encode(0, out, 7, &len, "f", 1), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_base32_encode(0, out, 8, &len, "f", 1), 0);
  ck_assert_int_eq(enc_base32_decode(0, out, 0, &len, "MY======", 8, NULL),
                   ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_base32_decode(0, out, 1, &len, "MY======", 8, NULL), 0);
  ck_assert_uint_eq(len, 1);
  ck_assert_uint_eq(enc_decode_max_len(B32, 0, 16), 10);
  ck_assert_int_eq(enc_base32_encode(ENC_FLAG_URL, out, 16, &len, "f", 1),
                   ENC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("base32");
  TCase *tc = tcase_create("base32");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, rfc4648_vectors);
  tcase_add_test(tc, strict_errors);
  // The exhaustive kernel tests: once per implementation, in its forced run
  // (see impl_forced()).
  if (impl_forced()) {
    tcase_add_test(tc, every_length_round_trip);
    tcase_add_loop_test(tc, every_split, 0, 2);
    tcase_add_test(tc, random_vs_scalar);
  }
  tcase_add_test(tc, buffer_sizes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
