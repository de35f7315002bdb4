// test_utf7imap.c: IMAP modified UTF-7 (src/utf7imap.c): the RFC 3501
// example, `&`, control characters, surrogate pairs, rejection of invalid
// UTF-8 and of every kind of non-canonical input with its offset, round trips
// of random code points and every split of the stream.
#include "test_util.h"

#define U7 ENC_CODEC_UTF7IMAP
#define S(str) str, sizeof str - 1

START_TEST(vectors) {
  expect_ok(U7, ENC_ENCODE, 0, 0,
            S("~peter/mail/\xe5\x8f\xb0\xe5\x8c\x97/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"),
            "~peter/mail/&U,BTFw-/&ZeVnLIqe-");
  expect_ok(U7, ENC_DECODE, 0, 0, S("~peter/mail/&U,BTFw-/&ZeVnLIqe-"),
            "~peter/mail/\xe5\x8f\xb0\xe5\x8c\x97/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("&"), "&-");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("a&b&&"), "a&-b&-&-");
  expect_ok(U7, ENC_DECODE, 0, 0, S("a&-b&-&-"), "a&b&&");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("\xc3\xa9"), "&AOk-");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("\xc3\xa9\xc3\xa9"), "&AOkA6Q-");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("\xc3\xa9&\xc3\xa9"), "&AOk-&-&AOk-");
  expect_ok(U7, ENC_DECODE, 0, 0, S("&AOk-&-&AOk-"), "\xc3\xa9&\xc3\xa9");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("\xf0\x9f\x98\x80"), "&2D3eAA-");
  expect_ok(U7, ENC_DECODE, 0, 0, S("&2D3eAA-"), "\xf0\x9f\x98\x80");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("\x01\x7f\x1f"), "&AAEAfwAf-");
  expect_ok(U7, ENC_ENCODE, 0, 0, S("Entw\xc3\xbc rfe"), "Entw&APw- rfe");
  expect_ok(U7, ENC_ENCODE, 0, 0, S(""), "");
  expect_ok(U7, ENC_DECODE, 0, 0, S("INBOX"), "INBOX");
}
END_TEST

START_TEST(decode_errors) {
  expect_err(U7, ENC_DECODE, 0, 0, S("&AGE-"), ENC_ERR_NON_CANONICAL, 0);      // "a"
  expect_err(U7, ENC_DECODE, 0, 0, S("x&ACY-"), ENC_ERR_NON_CANONICAL, 1);     // "&"
  expect_err(U7, ENC_DECODE, 0, 0, S("&AOk-&AOk-"), ENC_ERR_NON_CANONICAL, 5); // two shifts
  expect_err(U7, ENC_DECODE, 0, 0, S("&AOkA-"), ENC_ERR_NON_CANONICAL, 0);     // excess bits
  expect_err(U7, ENC_DECODE, 0, 0, S("&AOl-"), ENC_ERR_NON_CANONICAL, 0);      // non-zero bits
  expect_err(U7, ENC_DECODE, 0, 0, S("&AA-"), ENC_ERR_NON_CANONICAL, 0);       // no whole unit
  expect_err(U7, ENC_DECODE, 0, 0, S("&AOk"), ENC_ERR_TRUNCATED, 4);
  expect_err(U7, ENC_DECODE, 0, 0, S("ab&"), ENC_ERR_TRUNCATED, 3);
  expect_err(U7, ENC_DECODE, 0, 0, S("&AOk!"), ENC_ERR_INVALID_CHAR, 4);
  expect_err(U7, ENC_DECODE, 0, 0, S("&AO/-"), ENC_ERR_INVALID_CHAR, 3);
  expect_err(U7, ENC_DECODE, 0, 0, S("&!"), ENC_ERR_INVALID_CHAR, 1);
  expect_err(U7, ENC_DECODE, 0, 0, S("\x01"), ENC_ERR_INVALID_CHAR, 0);
  expect_err(U7, ENC_DECODE, 0, 0, S("a\xc3\xa9"), ENC_ERR_INVALID_CHAR, 1);
  expect_err(U7, ENC_DECODE, 0, 0, S("a\r\n"), ENC_ERR_INVALID_CHAR, 1);
  expect_err(U7, ENC_DECODE, 0, 0, S("&2D0-"), ENC_ERR_INVALID_UTF16, 4);    // lone high
  expect_err(U7, ENC_DECODE, 0, 0, S("&3gA-"), ENC_ERR_INVALID_UTF16, 3);    // lone low
  expect_err(U7, ENC_DECODE, 0, 0, S("&2D0AOQ-"), ENC_ERR_INVALID_UTF16, 6); // high, then BMP
}
END_TEST

START_TEST(encode_errors) {
  expect_err(U7, ENC_ENCODE, 0, 0, S("\xff"), ENC_ERR_INVALID_UTF8, 0);
  expect_err(U7, ENC_ENCODE, 0, 0, S("ab\x80"), ENC_ERR_INVALID_UTF8, 2);
  expect_err(U7, ENC_ENCODE, 0, 0, S("a\xc3"), ENC_ERR_INVALID_UTF8, 1);
  expect_err(U7, ENC_ENCODE, 0, 0, S("a\xc3z"), ENC_ERR_INVALID_UTF8, 1);
  expect_err(U7, ENC_ENCODE, 0, 0, S("\xed\xa0\x80"), ENC_ERR_INVALID_UTF8, 0);
  expect_err(U7, ENC_ENCODE, 0, 0, S("\xc0\xaf"), ENC_ERR_INVALID_UTF8, 0);
  expect_err(U7, ENC_ENCODE, 0, 0, S("\xe0\x80\xaf"), ENC_ERR_INVALID_UTF8, 0);
  expect_err(U7, ENC_ENCODE, 0, 0, S("\xf4\x90\x80\x80"), ENC_ERR_INVALID_UTF8, 0);
  expect_err(U7, ENC_ENCODE, 0, 0, S("xx\xf0\x9f\x98"), ENC_ERR_INVALID_UTF8, 2);
}
END_TEST

static size_t put_utf8(uint8_t *p, uint32_t cp) {
  if (cp < 0x80) {
    p[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    p[0] = (uint8_t)(0xC0 | cp >> 6);
    p[1] = (uint8_t)(0x80 | (cp & 63));
    return 2;
  }
  if (cp < 0x10000) {
    p[0] = (uint8_t)(0xE0 | cp >> 12);
    p[1] = (uint8_t)(0x80 | ((cp >> 6) & 63));
    p[2] = (uint8_t)(0x80 | (cp & 63));
    return 3;
  }
  p[0] = (uint8_t)(0xF0 | cp >> 18);
  p[1] = (uint8_t)(0x80 | ((cp >> 12) & 63));
  p[2] = (uint8_t)(0x80 | ((cp >> 6) & 63));
  p[3] = (uint8_t)(0x80 | (cp & 63));
  return 4;
}

START_TEST(round_trips) {
  uint64_t rng = 17;
  static uint8_t in[1200];
  for (int k = 0; k < 400; k++) {
    size_t n = 0, want = rng_below(&rng, 60);
    for (size_t j = 0; j < want; j++) {
      uint32_t cp;
      switch (rng_below(&rng, 5)) {
      case 0:
        cp = 0x20 + (uint32_t)rng_below(&rng, 0x5f);
        break;
      case 1:
        cp = (uint32_t)rng_below(&rng, 0x80);
        break;
      case 2:
        cp = 0x80 + (uint32_t)rng_below(&rng, 0x780);
        break;
      case 3:
        cp = 0x800 + (uint32_t)rng_below(&rng, 0xF800);
        if (cp >= 0xD800 && cp < 0xE000)
          cp = '&';
        break;
      default:
        cp = 0x10000 + (uint32_t)rng_below(&rng, 0x100000);
      }
      n += put_utf8(in + n, cp);
    }
    struct result e = check_vs_scalar(U7, ENC_ENCODE, 0, 0, in, n);
    ck_assert_int_eq(e.rc, 0);
    struct result d = check_vs_scalar(U7, ENC_DECODE, 0, 0, e.data, e.len);
    ck_assert_msg(d.rc == 0, "%s at %zu in %s", enc_strerror(d.rc), d.err_off, e.data);
    ck_assert_uint_eq(d.len, n);
    ck_assert_mem_eq(d.data, in, n);
    check_splits(U7, ENC_ENCODE, 0, 0, in, n, &rng);
    check_splits(U7, ENC_DECODE, 0, 0, e.data, e.len, &rng);
    // Damage one character: the decoder fails or gives valid output, the
    // same way whole and in pieces.
    if (e.len > 0) {
      e.data[rng_below(&rng, e.len)] = (uint8_t) "&-A,+!a\x80"[rng_below(&rng, 8)];
      check_splits(U7, ENC_DECODE, 0, 0, e.data, e.len, &rng);
    }
    result_free(&d);
    result_free(&e);
  }
}
END_TEST

START_TEST(buffer_sizes) {
  char out[16];
  size_t len;
  ck_assert_int_eq(enc_utf7imap_encode(out, 4, &len, "\xc3\xa9", 2, NULL),
                   ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_utf7imap_encode(out, 5, &len, "\xc3\xa9", 2, NULL), 0);
  ck_assert_int_eq(enc_utf7imap_decode(out, 1, &len, "&AOk-", 5, NULL), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_utf7imap_decode(out, 2, &len, "&AOk-", 5, NULL), 0);
  ck_assert_int_eq(enc_encode(U7, ENC_FLAG_UPPER, 0, out, 16, &len, "a", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("utf7imap");
  TCase *tc = tcase_create("utf7imap");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, vectors);
  tcase_add_test(tc, decode_errors);
  tcase_add_test(tc, encode_errors);
  tcase_add_test(tc, round_trips);
  tcase_add_test(tc, buffer_sizes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
