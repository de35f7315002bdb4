// test_hex.c: the hex codec (src/hex.c): both cases, strict decoding errors
// and offsets, every length with every split of the stream.
#include "test_util.h"

#define HX ENC_CODEC_HEX
#define S(str) str, sizeof str - 1

START_TEST(vectors) {
  expect_ok(HX, ENC_ENCODE, 0, 0, S("\x01\xab\xff\x00"), "01abff00");
  expect_ok(HX, ENC_ENCODE, ENC_FLAG_UPPER, 0, S("\x01\xab\xff\x00"), "01ABFF00");
  expect_ok(HX, ENC_ENCODE, 0, 0, S(""), "");
  expect_ok(HX, ENC_DECODE, 0, 0, S("666f6F"), "foo");
  expect_err(HX, ENC_DECODE, 0, 0, S("0g"), ENC_ERR_INVALID_CHAR, 1);
  expect_err(HX, ENC_DECODE, 0, 0, S("01 2"), ENC_ERR_INVALID_CHAR, 2);
  expect_err(HX, ENC_DECODE, 0, 0, S("012"), ENC_ERR_TRUNCATED, 3);
  char out[4];
  size_t len;
  ck_assert_int_eq(enc_hex_encode(0, out, 3, &len, "ab", 2), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_hex_decode(out, 1, &len, "6162", 4, NULL), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_hex_decode(out, 2, &len, "6162", 4, NULL), 0);
  ck_assert_int_eq(enc_hex_encode(ENC_FLAG_MIME, out, 4, &len, "a", 1), ENC_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(every_length_and_split) {
  uint64_t rng = 9;
  uint8_t in[301] = {0};
  for (size_t n = 0; n <= 300; n += 3) {
    rng_fill(&rng, in, n);
    struct result e = check_vs_scalar(HX, ENC_ENCODE, n % 2 ? ENC_FLAG_UPPER : 0, 0, in, n);
    ck_assert_uint_eq(e.len, 2 * n);
    struct result d = check_vs_scalar(HX, ENC_DECODE, 0, 0, e.data, e.len);
    ck_assert_int_eq(d.rc, 0);
    ck_assert_mem_eq(d.data, in, n);
    if (n < 120) {
      check_splits(HX, ENC_ENCODE, 0, 0, in, n, &rng);
      check_splits(HX, ENC_DECODE, 0, 0, e.data, e.len, &rng);
    }
    result_free(&d);
    result_free(&e);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("hex");
  TCase *tc = tcase_create("hex");
  tcase_add_test(tc, vectors);
  tcase_add_test(tc, every_length_and_split);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
