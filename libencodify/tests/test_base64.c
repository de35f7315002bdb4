// test_base64.c: Base64 (src/base64.c and every kernel): RFC 4648 vectors,
// both alphabets, padding variants, line wrapping, strict errors and their
// offsets, MIME decoding with line breaks and garbage anywhere, every length
// 0..300 with every split of the stream, every kernel path against
// inaccessible pages at every alignment, the per-codec wrappers against the
// generic calls, and the implementation under test against scalar on random
// valid and invalid input.
#include "encodify_internal.h" // ENC_B64D_LARGE_MIN, enc_impl_current()
#include "test_util.h"

#define B64 ENC_CODEC_BASE64
#define S(str) str, sizeof str - 1

static const char enc_b64_alpha_test[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static const struct {
  const char *plain, *enc, *nopad;
} rfc4648[] = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
};

START_TEST(rfc4648_vectors) {
  for (size_t i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
    const char *p = rfc4648[i].plain, *e = rfc4648[i].enc, *n = rfc4648[i].nopad;
    expect_ok(B64, ENC_ENCODE, 0, 0, p, strlen(p), e);
    expect_ok(B64, ENC_ENCODE, ENC_FLAG_NOPAD, 0, p, strlen(p), n);
    expect_ok(B64, ENC_DECODE, 0, 0, e, strlen(e), p);
    expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, e, strlen(e), p);
    expect_ok(B64, ENC_DECODE, ENC_FLAG_NOPAD, 0, n, strlen(n), p);
    expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, n, strlen(n), p);
    ck_assert_uint_eq(enc_base64_encode_len(0, 0, strlen(p)), strlen(e));
  }
}
END_TEST

START_TEST(url_alphabet) {
  const uint8_t in[] = {0xfb, 0xff, 0xbf, 0xfe};
  expect_ok(B64, ENC_ENCODE, 0, 0, in, 4, "+/+//g==");
  expect_ok(B64, ENC_ENCODE, ENC_FLAG_URL, 0, in, 4, "-_-__g==");
  expect_ok(B64, ENC_ENCODE, ENC_FLAG_URL | ENC_FLAG_NOPAD, 0, in, 4, "-_-__g");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_URL, 0, S("-_-__g=="), "\xfb\xff\xbf\xfe");
  expect_err(B64, ENC_DECODE, ENC_FLAG_URL, 0, S("+/+//g=="), ENC_ERR_INVALID_CHAR, 0);
  expect_err(B64, ENC_DECODE, 0, 0, S("-_-__g=="), ENC_ERR_INVALID_CHAR, 0);
  // MIME skips the other alphabet's characters.
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm-9v"), "foo");
}
END_TEST

START_TEST(wrapping) {
  uint8_t in[120];
  for (int i = 0; i < 120; i++)
    in[i] = (uint8_t)(i * 7);
  struct result r = check_vs_scalar(B64, ENC_ENCODE, 0, 76, in, 114);
  ck_assert_int_eq(r.rc, 0);
  ck_assert_uint_eq(r.len, 76 + 2 + 76); // no CRLF at the very end
  ck_assert_mem_eq(r.data + 76, "\r\n", 2);
  result_free(&r);
  r = check_vs_scalar(B64, ENC_ENCODE, 0, 76, in, 115);
  ck_assert_uint_eq(r.len, 76 + 2 + 76 + 2 + 4);
  result_free(&r);
  expect_ok(B64, ENC_ENCODE, 0, 5, "foobar", 6, "Zm9vY\r\nmFy");
  expect_ok(B64, ENC_ENCODE, 0, 3, "fo", 2, "Zm8\r\n=");
  expect_ok(B64, ENC_ENCODE, 0, 1, "f", 1, "Z\r\ng\r\n=\r\n=");
  expect_ok(B64, ENC_ENCODE, ENC_FLAG_NOPAD, 2, "f", 1, "Zg");
  expect_ok(B64, ENC_ENCODE, 0, 76, "", 0, "");
  ck_assert_uint_eq(enc_base64_encode_len(0, 76, 57), 76);
  ck_assert_uint_eq(enc_base64_encode_len(0, 76, 58), 76 + 2 + 4);
}
END_TEST

START_TEST(strict_errors) {
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9v!mFy"), ENC_ERR_INVALID_CHAR, 4);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9v\r\nYmFy"), ENC_ERR_INVALID_CHAR, 4);
  expect_err(B64, ENC_DECODE, 0, 0, S(" Zm9v"), ENC_ERR_INVALID_CHAR, 0);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9vYmF\x80"), ENC_ERR_INVALID_CHAR, 7);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zg="), ENC_ERR_BAD_PADDING, 3);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zg"), ENC_ERR_BAD_PADDING, 2);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9"), ENC_ERR_BAD_PADDING, 3);
  expect_err(B64, ENC_DECODE, 0, 0, S("Z==="), ENC_ERR_BAD_PADDING, 1);
  expect_err(B64, ENC_DECODE, 0, 0, S("===="), ENC_ERR_BAD_PADDING, 0);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zg=a"), ENC_ERR_BAD_PADDING, 3);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zg==Zg=="), ENC_ERR_BAD_PADDING, 4);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm8=="), ENC_ERR_BAD_PADDING, 4);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zh=="), ENC_ERR_TRAILING_BITS, 1);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9="), ENC_ERR_TRAILING_BITS, 2);
  expect_err(B64, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("Zh"), ENC_ERR_TRAILING_BITS, 1);
  expect_err(B64, ENC_DECODE, 0, 0, S("Z"), ENC_ERR_TRUNCATED, 1);
  expect_err(B64, ENC_DECODE, 0, 0, S("Zm9vY"), ENC_ERR_TRUNCATED, 5);
  expect_err(B64, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("Zg=="), ENC_ERR_INVALID_CHAR, 2);
  expect_err(B64, ENC_DECODE, ENC_FLAG_NOPAD, 0, S("Zm9vY"), ENC_ERR_TRUNCATED, 5);
  // An error far into the input, past what the kernels take in one step.
  char big[200];
  memset(big, 'A', sizeof big);
  big[150] = '*';
  expect_err(B64, ENC_DECODE, 0, 0, big, 200, ENC_ERR_INVALID_CHAR, 150);
  big[150] = 'A';
  big[198] = 'B';
  big[199] = '=';
  expect_err(B64, ENC_DECODE, 0, 0, big, 200, ENC_ERR_TRAILING_BITS, 198);
}
END_TEST

START_TEST(mime_decoding) {
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9v\r\nYmFy"), "foobar");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9v\nYmFy\n"), "foobar");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0,
            S(" Z m\t9v!!*Ym\x80"
              "Fy\xff"),
            "foobar");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9vYg==garbage"), "foob");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9vYg=\r\n=\r\n"), "foob");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zg=Zm9v"), "f");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9vY"), "foo");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zm9vYg"), "foob");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("Zh=="), "f");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("=Zm9v"), "");
  expect_ok(B64, ENC_DECODE, ENC_FLAG_MIME, 0, S("\r\n\r\n"), "");
}
END_TEST

static const uint32_t enc_flag_sets[] = {0, ENC_FLAG_URL, ENC_FLAG_NOPAD,
                                         ENC_FLAG_URL | ENC_FLAG_NOPAD};

START_TEST(every_length_round_trip) {
  uint64_t rng = 42;
  uint8_t in[301] = {0};
  for (size_t n = 0; n <= 300; n++) {
    rng_fill(&rng, in, n);
    for (size_t f = 0; f < 4; f++) {
      uint32_t fl = enc_flag_sets[f];
      size_t wrap = n % 3 == 0 ? 0 : n % 3 == 1 ? 76 : 1 + n % 17;
      struct result e = check_vs_scalar(B64, ENC_ENCODE, fl, wrap, in, n);
      ck_assert_int_eq(e.rc, 0);
      ck_assert_uint_eq(e.len, enc_base64_encode_len(fl, wrap, n));
      struct result m =
          check_vs_scalar(B64, ENC_DECODE, (fl & ENC_FLAG_URL) | ENC_FLAG_MIME, 0, e.data, e.len);
      ck_assert_int_eq(m.rc, 0);
      ck_assert_uint_eq(m.len, n);
      ck_assert_mem_eq(m.data, in, n);
      result_free(&m);
      if (wrap == 0) {
        struct result d = check_vs_scalar(B64, ENC_DECODE, fl, 0, e.data, e.len);
        ck_assert_int_eq(d.rc, 0);
        ck_assert_uint_eq(d.len, n);
        ck_assert_mem_eq(d.data, in, n);
        result_free(&d);
      }
      result_free(&e);
    }
  }
}
END_TEST

START_TEST(every_split) {
  uint64_t rng = 7 + (uint64_t)_i;
  uint8_t in[301] = {0};
  // _i selects a slice of the lengths so that the loop runs in parallel tests.
  // Every length 0..300 is cut at every offset for plain encoding and strict
  // decoding (up to 400 characters: the AVX-512 decoder's widest step takes
  // 256 characters and its next 64, so 320..383 characters end in every
  // remainder of the narrow step after a wide one); the other variants take
  // every fifth length.
  for (size_t n = (size_t)_i; n <= 300; n += 4) {
    rng_fill(&rng, in, n);
    check_splits(B64, ENC_ENCODE, 0, 0, in, n, &rng);
    struct result e = run_oneshot(B64, ENC_ENCODE, 0, 0, in, n);
    check_splits(B64, ENC_DECODE, 0, 0, e.data, e.len, &rng);
    result_free(&e);
    if (n % 5 != 0)
      continue;
    check_splits(B64, ENC_ENCODE, ENC_FLAG_NOPAD, 76, in, n, &rng);
    check_splits(B64, ENC_ENCODE, ENC_FLAG_URL, 1 + n % 9, in, n, &rng);
    e = run_oneshot(B64, ENC_ENCODE, 0, 1 + n % 80, in, n);
    check_splits(B64, ENC_DECODE, ENC_FLAG_MIME, 0, e.data, e.len, &rng);
    result_free(&e);
  }
}
END_TEST

START_TEST(split_errors_keep_offsets) {
  uint64_t rng = 99;
  char in[120];
  for (int k = 0; k < 60; k++) {
    size_t n = 1 + rng_below(&rng, sizeof in);
    for (size_t i = 0; i < n; i++)
      in[i] = "ABCDEFGHabcdefgh0123+/"[rng_below(&rng, 22)];
    size_t bad = rng_below(&rng, n);
    in[bad] = "=*\n \x80"[rng_below(&rng, 5)];
    check_splits(B64, ENC_DECODE, 0, 0, in, n, &rng);
    check_splits(B64, ENC_DECODE, ENC_FLAG_NOPAD, 0, in, n, &rng);
    check_splits(B64, ENC_DECODE, ENC_FLAG_MIME, 0, in, n, &rng);
  }
}
END_TEST

// Garbage in every position of a MIME body decodes to the same bytes.
START_TEST(mime_garbage_everywhere) {
  static const char garbage[] = "\r\n \t!*.:@\x01\x7f\x80\xc3\xff-_";
  uint8_t plain[48];
  uint64_t rng = 5;
  rng_fill(&rng, plain, sizeof plain);
  char enc[80], dirty[90];
  size_t elen;
  ck_assert_int_eq(enc_base64_encode(0, 0, enc, sizeof enc, &elen, plain, sizeof plain), 0);
  for (size_t pos = 0; pos <= elen; pos++) {
    for (size_t g = 0; g < sizeof garbage - 1; g++) {
      size_t run = 1 + (pos + g) % 5;
      memcpy(dirty, enc, pos);
      memset(dirty + pos, garbage[g], run);
      memcpy(dirty + pos + run, enc + pos, elen - pos);
      struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, elen + run);
      ck_assert_int_eq(r.rc, 0);
      ck_assert_uint_eq(r.len, sizeof plain);
      ck_assert_mem_eq(r.data, plain, sizeof plain);
      result_free(&r);
    }
  }
  // Random garbage sprinkled over a long body, with line lengths 1..1000.
  static uint8_t big[3000];
  static char wrapped[13000], messy[26000];
  rng_fill(&rng, big, sizeof big);
  for (size_t cols = 1; cols <= 1000; cols += (cols < 100 ? 1 : 37)) {
    size_t wl;
    ck_assert_int_eq(
        enc_base64_encode(0, cols, wrapped, sizeof wrapped, &wl, big, sizeof big - cols % 3), 0);
    size_t ml = 0;
    for (size_t i = 0; i < wl; i++) {
      if (wrapped[i] == '\r' && cols % 2) // LF-only line breaks, too
        continue;
      if (rng_below(&rng, 50) == 0)
        messy[ml++] = garbage[rng_below(&rng, sizeof garbage - 3)];
      messy[ml++] = wrapped[i];
    }
    struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, messy, ml);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_eq(r.len, sizeof big - cols % 3);
    ck_assert_mem_eq(r.data, big, r.len);
    result_free(&r);
  }
}
END_TEST

// Wrapped encoding against a reference built from the unwrapped encoding:
// whole lines take a path of their own (one kernel call per line, writing
// past the line), so wraps that are and are not multiples of 4, every
// length around the line boundaries, and streams that start mid-line.
START_TEST(wrap_lines_vs_reference) {
  static const size_t wraps[] = {1, 4, 8, 32, 60, 64, 72, 76, 77, 100, 256, 260};
  static uint8_t plain[1200];
  static char flat[1700], want[5000];
  uint64_t rng = 77;
  rng_fill(&rng, plain, sizeof plain);
  for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
    size_t wrap = wraps[w];
    for (size_t n = 0; n <= sizeof plain; n += n < 240 ? 1 : 1 + rng_below(&rng, 60)) {
      size_t fl, wl = 0;
      ck_assert_int_eq(enc_base64_encode(0, 0, flat, sizeof flat, &fl, plain, n), 0);
      for (size_t i = 0; i < fl; i++) {
        if (i > 0 && i % wrap == 0) {
          want[wl++] = '\r';
          want[wl++] = '\n';
        }
        want[wl++] = flat[i];
      }
      struct result r = check_vs_scalar(B64, ENC_ENCODE, 0, wrap, plain, n);
      ck_assert_int_eq(r.rc, 0);
      ck_assert_msg(r.len == wl && memcmp(r.data, want, wl) == 0, "wrap %zu len %zu", wrap, n);
      result_free(&r);
    }
    check_splits(B64, ENC_ENCODE, 0, wrap, plain, 400, &rng);
  }
}
END_TEST

// b64_lines builds `nlines` lines of `cols` characters from `plain`, each
// ended by `brk`, and returns the length.
static size_t b64_lines(char *dst, const uint8_t *plain, size_t cols, size_t nlines,
                        const char *brk) {
  char flat[2048];
  size_t fl, o = 0;
  ck_assert_int_eq(enc_base64_encode(0, 0, flat, sizeof flat, &fl, plain, cols * nlines / 4 * 3),
                   0);
  for (size_t l = 0; l < nlines; l++) {
    memcpy(dst + o, flat + l * cols, cols);
    o += cols;
    memcpy(dst + o, brk, strlen(brk));
    o += strlen(brk);
  }
  return o;
}

// MIME decoding of regular lines goes line by line straight from the input;
// every irregularity must hand over to the general path with the same result:
// lines of other lengths, LF-only breaks, a CR without LF, garbage, padding in
// the middle of a line, and input that ends at any offset.
START_TEST(mime_regular_lines) {
  static const size_t col_set[] = {28, 32, 36, 64, 72, 76, 80, 96, 252, 256, 260};
  static const char *const brks[] = {"\r\n", "\n", "\r", "\r\r\n", " \r\n"};
  static uint8_t plain[1600];
  static char body[2200];
  uint64_t rng = 99;
  rng_fill(&rng, plain, sizeof plain);
  for (size_t c = 0; c < sizeof col_set / sizeof col_set[0]; c++) {
    for (size_t b = 0; b < sizeof brks / sizeof brks[0]; b++) {
      size_t cols = col_set[c], nlines = 1800 / (cols + 3);
      size_t len = b64_lines(body, plain, cols, nlines, brks[b]);
      struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, len);
      ck_assert_int_eq(r.rc, 0);
      ck_assert_uint_eq(r.len, cols * nlines / 4 * 3);
      ck_assert_mem_eq(r.data, plain, r.len);
      result_free(&r);
    }
  }
  // 76-column CRLF lines with one disturbance at each place of the third
  // and fourth lines (the AVX2 kernel decodes such lines in pairs, so both
  // halves of a pair and the break between them), then every prefix of a
  // short body.
  static const char *const bad[] = {"!", "=", "==", "\r", "\n", "\r\n", "A", "\x80"};
  size_t len = b64_lines(body, plain, 76, 8, "\r\n");
  static char dirty[800];
  for (size_t pos = 2 * 78; pos <= 4 * 78; pos++) {
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      size_t bl = strlen(bad[k]);
      memcpy(dirty, body, pos);
      memcpy(dirty + pos, bad[k], bl);
      memcpy(dirty + pos + bl, body + pos, len - pos);
      struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, len + bl);
      ck_assert_int_eq(r.rc, 0);
      result_free(&r);
    }
    // A changed character, too: one line of another length.
    memcpy(dirty, body, len);
    dirty[pos] = '\n';
    struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, len);
    result_free(&r);
  }
  for (size_t n = 0; n <= 5 * 78; n++) {
    struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, n);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_eq(r.len, (n - n / 78 * 2 - (n % 78 == 77)) * 3 / 4);
    ck_assert_mem_eq(r.data, plain, r.len);
    result_free(&r);
  }
  check_splits(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, len, &rng);
  // Lines that end in padding, then garbage and more lines.
  len = b64_lines(body, plain, 76, 3, "\r\n");
  memcpy(body + len, "QQ==\r\n", 6);
  len = len + 6 + b64_lines(body + len + 6, plain, 76, 3, "\r\n");
  struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, len);
  ck_assert_int_eq(r.rc, 0);
  ck_assert_uint_eq(r.len, 3 * 57 + 1);
  ck_assert_mem_eq(r.data, plain, 3 * 57);
  result_free(&r);
}
END_TEST

// mime_cap_vs_scalar decodes `in` (MIME) into an output of exactly `cap`
// bytes that ends right before an inaccessible page, with the
// implementation under test and with scalar, and asserts that both agree
// on the code, the length and the bytes.
static void mime_cap_vs_scalar(struct guard_page *gout, uint32_t flags, const char *in, size_t n,
                               size_t cap) {
  const char *name = enc_impl_name();
  uint8_t *out = guard_place(gout, cap, 1, 0);
  static uint8_t want[4096];
  size_t len = 99, wlen = 99;
  int rc = enc_base64_decode(ENC_FLAG_MIME | flags, out, cap, &len, in, n, NULL);
  ck_assert_int_eq(enc_impl_force("scalar"), 0);
  ck_assert_uint_le(cap, sizeof want);
  int wrc = enc_base64_decode(ENC_FLAG_MIME | flags, want, cap, &wlen, in, n, NULL);
  ck_assert_int_eq(enc_impl_force(name), 0);
  ck_assert_msg(rc == wrc, "%s: rc %d vs scalar %d, len %zu cap %zu", name, rc, wrc, n, cap);
  if (rc == 0) {
    ck_assert_uint_eq(len, wlen);
    ck_assert_mem_eq(out, want, len);
  }
}

// Regular lines of every length 4..80 ended by LF or CRLF (the AVX-512
// kernel decodes lines of 4..76 characters, a multiple of 4, in a loop of
// their own, several short lines or two long ones per step, and compresses
// the sextets of other lines and of what follows the lines): the whole
// body with both alphabets, every prefix, each of several bad characters
// (`=` included) in place of the character at every position of the first
// lines, outputs of exactly the size needed and a little less, and blank
// lines before the first, against scalar.
START_TEST(mime_line_shapes) {
  static const char bad[] = {'=', '!', '\n', '\r', 'A', ' ', '\x80'};
  static const char *const brks[] = {"\n", "\r\n"};
  static uint8_t plain[1200];
  static char body[2000], dirty[2000];
  struct guard_page gout;
  guard_init(&gout);
  uint64_t rng = 4711;
  rng_fill(&rng, plain, sizeof plain);
  for (size_t cols = 4; cols <= 80; cols++) {
    for (size_t b = 0; b < 2; b++) {
      // Several steps of the widest kind for every shape, then a part.
      size_t nlines = 420 / (cols + 1 + b) + 2;
      size_t len = b64_lines(body, plain, cols, nlines, brks[b]);
      size_t dec = cols * nlines / 4 * 3;
      for (int url = 0; url < 2; url++) {
        struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME | (url ? ENC_FLAG_URL : 0),
                                          0, body, len);
        ck_assert_int_eq(r.rc, 0);
        if (!url && cols * nlines % 4 == 0) { // else the last line is cut short
          ck_assert_uint_eq(r.len, dec);
          ck_assert_mem_eq(r.data, plain, r.len);
        }
        result_free(&r);
      }
      for (size_t n = 0; n < len; n++) {
        struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, n);
        result_free(&r);
      }
      size_t reach = len < 340 ? len : 340;
      for (size_t pos = 0; pos < reach; pos++) {
        for (size_t k = 0; k < sizeof bad; k++) {
          memcpy(dirty, body, len);
          dirty[pos] = bad[k];
          struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, len);
          result_free(&r);
          if (k < 3 && pos % 3 == 0) // `=`, `!`, LF: with a tight output too
            mime_cap_vs_scalar(&gout, 0, dirty, len, dec - pos % 5);
        }
      }
      // A body that ends in padding and garbage, then tight outputs.
      memcpy(body + len, "QUI=\r\n!", 7);
      for (size_t cut = 0; cut <= 8 && cut <= dec + 2; cut++) {
        mime_cap_vs_scalar(&gout, 0, body, len, dec + 2 - cut);
        mime_cap_vs_scalar(&gout, 0, body, len + 7, dec + 2 - cut);
      }
      if (cols % 16 == 4)
        check_splits(B64, ENC_DECODE, ENC_FLAG_MIME, 0, body, len, &rng);
      // Blank lines before the first (the AVX-512 kernel skips a few).
      static const char *const leads[] = {"\n", "\r\n",       "\n\n", "\r\n\r\n",
                                          "\r", "\n\r\n\n\n", " \n"};
      for (size_t l = 0; l < sizeof leads / sizeof leads[0]; l++) {
        size_t ll = strlen(leads[l]);
        memcpy(dirty, leads[l], ll);
        memcpy(dirty + ll, body, len);
        struct result r = check_vs_scalar(B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, ll + len);
        ck_assert_int_eq(r.rc, 0);
        result_free(&r);
      }
    }
  }
  guard_free(&gout);
}
END_TEST

// Random mostly-valid input: the implementation under test agrees with scalar
// on output, error code and offset.
START_TEST(random_vs_scalar) {
  uint64_t rng = 1234;
  static char in[4096];
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=\r\n \x80";
  for (int k = 0; k < 400; k++) {
    size_t n = rng_below(&rng, k < 200 ? 200 : sizeof in);
    size_t bad_rate = 1 + rng_below(&rng, 400);
    for (size_t i = 0; i < n; i++)
      in[i] = rng_below(&rng, bad_rate) == 0 ? alphabet[rng_below(&rng, sizeof alphabet - 1)]
                                             : alphabet[rng_below(&rng, 64)];
    for (size_t f = 0; f < 4; f++) {
      uint32_t fl = f == 0 ? 0 : f == 1 ? ENC_FLAG_URL : f == 2 ? ENC_FLAG_MIME : ENC_FLAG_NOPAD;
      struct result r = check_vs_scalar(B64, ENC_DECODE, fl, 0, in, n);
      result_free(&r);
    }
  }
}
END_TEST

// Every kernel path at every length 0..300 and every alignment, with the
// input and the exactly sized output against inaccessible pages: plain,
// URL-safe and unpadded encoding, 76-column and other wraps, strict decoding
// of valid and cut input, and MIME decoding of wrapped lines with and
// without garbage.
START_TEST(guard_pages) {
  struct guard_page gin, gout;
  guard_init(&gin);
  guard_init(&gout);
  uint64_t rng = 4242;
  static uint8_t plain[301];
  static char enc[600], dirty[700];
  rng_fill(&rng, plain, sizeof plain);
  size_t el;
  ck_assert_int_eq(enc_base64_encode(0, 76, enc, sizeof enc, &el, plain, sizeof plain), 0);
  for (size_t n = _i; n <= 300; n += 3) {
    check_guarded(&gin, &gout, B64, ENC_ENCODE, 0, 0, plain, n);
    check_guarded(&gin, &gout, B64, ENC_ENCODE, ENC_FLAG_URL | ENC_FLAG_NOPAD, 0, plain, n);
    check_guarded(&gin, &gout, B64, ENC_ENCODE, 0, 76, plain, n);
    check_guarded(&gin, &gout, B64, ENC_ENCODE, 0, n % 2 ? 64 : 40, plain, n);
    size_t fl;
    char flat[420];
    ck_assert_int_eq(enc_base64_encode(0, 0, flat, sizeof flat, &fl, plain, n), 0);
    check_guarded(&gin, &gout, B64, ENC_DECODE, 0, 0, flat, fl);
    check_guarded(&gin, &gout, B64, ENC_DECODE, 0, 0, flat, n < fl ? n : fl);
    check_guarded(&gin, &gout, B64, ENC_DECODE, ENC_FLAG_MIME, 0, enc, n);
    size_t dl = 0;
    for (size_t k = 0; k < n; k++) {
      if (rng_below(&rng, 40) == 0)
        dirty[dl++] = " !\r\n="[rng_below(&rng, 5)];
      dirty[dl++] = enc[k];
    }
    check_guarded(&gin, &gout, B64, ENC_DECODE, ENC_FLAG_MIME, 0, dirty, dl);
  }
  guard_free(&gin);
  guard_free(&gout);
}
END_TEST

// The one-shot strict decoder finishes a final group of 2 to 4 characters
// itself when it is a valid padded (or, unpadded, a valid short) group and
// leaves everything else to the character decoder; the stream, which always
// uses that decoder, is the reference. Every ending of up to 4 characters
// drawn from valid, padding, URL-only and invalid characters, after whole
// groups that end inside, at and past the kernels' blocks, with every flag
// that changes the rules; valid results also at an exactly sized and a one
// byte short output.
START_TEST(final_group_vs_stream) {
  static const char chars[] = "AQg-=*";
  static const size_t prefixes[] = {0, 4, 60, 64, 84, 188, 252, 256};
  static const uint32_t flags[] = {0, ENC_FLAG_NOPAD, ENC_FLAG_URL, ENC_FLAG_URL | ENC_FLAG_NOPAD};
  uint64_t rng = 2718;
  static char in[310];
  static uint8_t out[300];
  for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++) {
    size_t g = prefixes[p];
    for (size_t i = 0; i < g; i++)
      in[i] = enc_b64_alpha_test[rng_below(&rng, 64)];
    // Endings of 0..4 characters: e counts them in base 6, one length at a time.
    for (size_t len = 0; len <= 4; len++) {
      size_t num = 1;
      for (size_t k = 0; k < len; k++)
        num *= sizeof chars - 1;
      for (size_t e = 0; e < num; e++) {
        size_t v = e;
        for (size_t k = 0; k < len; k++, v /= sizeof chars - 1)
          in[g + k] = chars[v % (sizeof chars - 1)];
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
          struct result whole = run_oneshot(B64, ENC_DECODE, flags[f], 0, in, g + len);
          struct result ref = run_stream(B64, ENC_DECODE, flags[f], 0, in, g + len, NULL, 0);
          same_result(&whole, &ref, "one-shot vs stream");
          if (whole.rc == 0) {
            size_t w = 7;
            ck_assert_int_eq(enc_base64_decode(flags[f], out, whole.len, &w, in, g + len, NULL), 0);
            ck_assert_uint_eq(w, whole.len);
            ck_assert_mem_eq(out, whole.data, w);
            if (whole.len > 0)
              ck_assert_int_eq(
                  enc_base64_decode(flags[f], out, whole.len - 1, &w, in, g + len, NULL),
                  ENC_ERR_BUFFER_TOO_SMALL);
          }
          result_free(&whole);
          result_free(&ref);
        }
      }
    }
  }
}
END_TEST

// One character outside the alphabet at every position of a long input:
// the kernels' four-block, one-block and masked paths all stop at it, with
// the error offset and output of scalar.
START_TEST(long_input_error_everywhere) {
  uint64_t rng = 1618;
  static char in[1100];
  for (size_t i = 0; i < sizeof in; i++)
    in[i] = enc_b64_alpha_test[rng_below(&rng, 64)];
  for (size_t pos = 0; pos < sizeof in; pos++) {
    char keep = in[pos];
    in[pos] = pos % 3 == 0 ? '*' : pos % 3 == 1 ? '=' : '\x80';
    struct result r = check_vs_scalar(B64, ENC_DECODE, 0, 0, in, sizeof in);
    ck_assert_int_ne(r.rc, 0);
    result_free(&r);
    in[pos] = keep;
  }
  // And the valid input at every length around the four-block steps.
  for (size_t n = 240; n <= sizeof in; n += 4) {
    struct result r = check_vs_scalar(B64, ENC_DECODE, 0, 0, in, n);
    ck_assert_int_eq(r.rc, 0);
    result_free(&r);
  }
}
END_TEST

// decode_at decodes `in` (placed by dup_exact_at() at `in_align`) into an
// output buffer of `out_cap` bytes placed at `out_align` (both past a
// 64-byte boundary) with the implementation in use.
static struct result decode_at(uint32_t flags, const char *in, size_t in_len, size_t in_align,
                               size_t out_cap, size_t out_align) {
  struct result r = {0, SIZE_MAX, 0, NULL};
  char *inp = dup_exact_at(in, in_len, in_align);
  uint8_t *out = dup_exact_at(NULL, out_cap, out_align);
  r.rc = enc_base64_decode(flags, out, out_cap, &r.len, inp, in_len, &r.err_off);
  ck_assert_uint_le(r.len, out_cap);
  r.data = malloc(r.len + 1);
  ck_assert_ptr_nonnull(r.data);
  memcpy(r.data, out, r.len);
  r.data[r.len] = 0;
  free_exact_at(inp, in_align);
  free_exact_at(out, out_align);
  return r;
}

// scalar_decode is decode_at() with the scalar implementation, the reference.
static struct result scalar_decode(uint32_t flags, const char *in, size_t in_len, size_t out_cap) {
  const char *name = enc_impl_name();
  ck_assert_int_eq(enc_impl_force("scalar"), 0);
  struct result r = decode_at(flags, in, in_len, 0, out_cap, 0);
  ck_assert_int_eq(enc_impl_force(name), 0);
  return r;
}

// Inputs that cross ENC_B64D_LARGE_MIN, where the AVX-512 kernel switches to
// aligned loads and non-temporal stores: valid input with every offset of input and output in
// a cache line that the kernel handles differently, a character outside the
// alphabet in its scalar head, in its loop before and past the threshold and
// in the last lines that the ordinary loops finish, an output buffer one
// byte short, and a stream whose big piece starts at an odd offset; output,
// error code and offset always as scalar's.
START_TEST(large_input_vs_scalar) {
  // Only kernels with a path of their own past the threshold (the flag in
  // their table entry) need these cases; on the others they would repeat
  // long_input_error_everywhere at 4 MiB and add minutes to every
  // per-implementation run under ASan.
  if (!enc_impl_current()->b64_decode_has_large)
    return;
  // A last group of two characters and padding; past the threshold by some
  // lines and not a whole number of steps.
  const size_t plain_len = ENC_B64D_LARGE_MIN / 4 * 3 + 3 * 1000 + 1;
  uint64_t rng = 31337;
  uint8_t *plain = malloc(plain_len);
  ck_assert_ptr_nonnull(plain);
  rng_fill(&rng, plain, plain_len);
  size_t cap = enc_base64_encode_len(0, 0, plain_len), n;
  char *in = malloc(cap);
  ck_assert_ptr_nonnull(in);
  ck_assert_int_eq(enc_base64_encode(0, 0, in, cap, &n, plain, plain_len), 0);
  ck_assert_uint_ge(n, ENC_B64D_LARGE_MIN);
  size_t out_cap = enc_base64_decode_max_len(n);
  static const size_t aligns[][2] = {{0, 0},  {1, 16},  {2, 37}, {3, 63},
                                     {21, 5}, {63, 48}, {48, 32}};
  for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
    struct result r = decode_at(0, in, n, aligns[a][0], out_cap, aligns[a][1]);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_eq(r.len, plain_len);
    ck_assert_mem_eq(r.data, plain, plain_len);
    result_free(&r);
  }
  // The URL alphabet, and an output buffer one byte short.
  for (size_t k = 0; k < n; k++)
    in[k] = in[k] == '+' ? '-' : in[k] == '/' ? '_' : in[k];
  struct result r = decode_at(ENC_FLAG_URL, in, n, 5, out_cap, 9);
  ck_assert_int_eq(r.rc, 0);
  ck_assert_mem_eq(r.data, plain, plain_len);
  result_free(&r);
  struct result ref = scalar_decode(ENC_FLAG_URL, in, n, plain_len - 1);
  ck_assert_int_ne(ref.rc, 0);
  r = decode_at(ENC_FLAG_URL, in, n, 7, plain_len - 1, 0);
  same_result(&ref, &r, "large input, short output");
  result_free(&r);
  result_free(&ref);
  // Errors: the standard alphabet again ('-' is outside it).
  ck_assert_int_eq(enc_base64_encode(0, 0, in, cap, &n, plain, plain_len), 0);
  const size_t where[] = {
      0,       17,      301,  4 * 79 + 2, 70001, ENC_B64D_LARGE_MIN - 1, ENC_B64D_LARGE_MIN + 1234,
      n - 700, n - 330, n - 6};
  static const char bad[] = {'*', '=', '\x80', '-', '\0'};
  for (size_t w = 0; w < sizeof where / sizeof where[0]; w++) {
    char keep = in[where[w]];
    in[where[w]] = bad[w % sizeof bad];
    ref = scalar_decode(0, in, n, out_cap);
    ck_assert_int_ne(ref.rc, 0);
    if (bad[w % sizeof bad] != '=') // a misplaced `=` is reported where padding goes wrong
      ck_assert_uint_eq(ref.err_off, where[w]);
    for (size_t a = 0; a < 2; a++) {
      r = decode_at(0, in, n, aligns[w % 7][a % 2] + a, out_cap, aligns[(w + a) % 7][1]);
      same_result(&ref, &r, "large input with an error");
      result_free(&r);
    }
    result_free(&ref);
    in[where[w]] = keep;
  }
  // A stream whose second piece (all but 1 + 4 characters) crosses the
  // threshold from an odd offset.
  static const size_t cuts[] = {1, 5};
  r = run_stream(B64, ENC_DECODE, 0, 0, in, n, cuts, 2);
  ck_assert_int_eq(r.rc, 0);
  ck_assert_uint_eq(r.len, plain_len);
  ck_assert_mem_eq(r.data, plain, plain_len);
  result_free(&r);
  free(in);
  free(plain);
}
END_TEST

// enc_base64_encode() and enc_base64_decode() take their common cases
// straight to the fused paths; they must answer exactly as enc_encode() and
// enc_decode() do, on valid and invalid input, with every flag combination
// (valid or not), and with short and exact output buffers.
START_TEST(wrappers_match_generic) {
  uint64_t rng = 31337;
  static uint8_t plain[300];
  static char text[420];
  static uint8_t a[600], b[600];
  static const char noise[] = "=!\r\n -_+/A";
  for (size_t n = 0; n <= 300; n++) {
    rng_fill(&rng, plain, n);
    for (uint32_t fl = 0; fl < 16; fl++) {
      size_t wrap = fl & 8 ? 76 : 0;
      size_t cap = enc_base64_encode_len(fl & 7, wrap, n);
      size_t caps[2] = {cap, cap ? cap - 1 : 0};
      for (size_t c = 0; c < 2; c++) {
        size_t la = 7, lb = 7;
        int ra = enc_base64_encode(fl & 7, wrap, (char *)a, caps[c], &la, plain, n);
        int rb = enc_encode(B64, fl & 7, wrap, b, caps[c], &lb, plain, n, NULL);
        ck_assert_int_eq(ra, rb);
        ck_assert_uint_eq(la, lb);
        ck_assert_mem_eq(a, b, la);
      }
    }
    size_t tl;
    ck_assert_int_eq(enc_base64_encode(0, 0, text, sizeof text, &tl, plain, n), 0);
    if (tl > 0 && rng_below(&rng, 2))
      text[rng_below(&rng, tl)] = noise[rng_below(&rng, sizeof noise - 1)];
    for (uint32_t fl = 0; fl < 8; fl++) {
      size_t cap = enc_base64_decode_max_len(tl);
      size_t caps[2] = {cap, n ? n - 1 : 0};
      for (size_t c = 0; c < 2; c++) {
        size_t la = 7, lb = 7, ea = 99, eb = 99;
        int ra = enc_base64_decode(fl, a, caps[c], &la, text, tl, &ea);
        int rb = enc_decode(B64, fl, b, caps[c], &lb, text, tl, &eb);
        ck_assert_int_eq(ra, rb);
        ck_assert_uint_eq(ea, eb);
        ck_assert_uint_eq(la, lb);
        ck_assert_mem_eq(a, b, la);
      }
    }
  }
}
END_TEST

START_TEST(buffer_sizes) {
  char out[16];
  uint8_t dec[16];
  size_t len = 99;
  ck_assert_int_eq(enc_base64_encode(0, 0, out, 7, &len, "foob", 4), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(enc_base64_encode(0, 0, out, 8, &len, "foob", 4), 0);
  ck_assert_uint_eq(len, 8);
  // Decoding needs room for the output only, not for the bound.
  ck_assert_uint_eq(enc_base64_decode_max_len(8), 6);
  ck_assert_int_eq(enc_base64_decode(0, dec, 4, &len, "Zm9vYg==", 8, NULL), 0);
  ck_assert_uint_eq(len, 4);
  ck_assert_int_eq(enc_base64_decode(0, dec, 3, &len, "Zm9vYg==", 8, NULL),
                   ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_base64_decode(ENC_FLAG_MIME, dec, 3, &len, "Zm9vYg", 6, NULL),
                   ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_base64_decode(ENC_FLAG_MIME, dec, 4, &len, "Zm9vYg", 6, NULL), 0);
  ck_assert_int_eq(enc_base64_decode(0, NULL, 0, &len, "", 0, NULL), 0);
  ck_assert_int_eq(enc_base64_decode(0, NULL, 0, &len, NULL, 0, NULL), 0);
  ck_assert_uint_eq(enc_base64_encode_len(0, 0, SIZE_MAX), SIZE_MAX);
  ck_assert_uint_eq(enc_base64_encode_len(0, 76, SIZE_MAX / 4 * 3), SIZE_MAX);
  ck_assert_int_eq(enc_base64_encode(0, 0, out, sizeof out, &len, "x", SIZE_MAX),
                   ENC_ERR_BUFFER_TOO_SMALL);
}
END_TEST

START_TEST(bad_arguments) {
  char out[16];
  size_t len;
  ck_assert_int_eq(enc_base64_encode(ENC_FLAG_MIME, 0, out, 16, &len, "f", 1),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_base64_decode(ENC_FLAG_MIME | ENC_FLAG_NOPAD, out, 16, &len, "Zg", 2, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_decode(ENC_CODEC_BASE64, ENC_FLAG_BINARY, out, 16, &len, "Zg", 2, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_base64_encode(0, 0, out, 16, NULL, "f", 1), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_base64_encode(0, 0, NULL, 16, &len, "f", 1), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_base64_encode(0, 0, out, 16, &len, NULL, 1), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_encode((enc_codec)0, 0, 0, out, 16, &len, "f", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_encode((enc_codec)99, 0, 0, out, 16, &len, "f", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(enc_encode_max_len(ENC_CODEC_BASE64, ENC_FLAG_MIME, 0, 10), 0);
}
END_TEST

START_TEST(stream_rules) {
  enc_stream st;
  uint8_t out[64];
  size_t len, off = 77;
  ck_assert_int_eq(enc_stream_init(&st, B64, ENC_DECODE, 0, 0), 0);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "Zm9v", 4, &off), 0);
  ck_assert_uint_eq(len, 3);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "Zm*v", 4, &off),
                   ENC_ERR_INVALID_CHAR);
  ck_assert_uint_eq(off, 6);
  off = 0;
  // Sticky.
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "Zm9v", 4, &off),
                   ENC_ERR_INVALID_CHAR);
  ck_assert_uint_eq(off, 6);
  ck_assert_int_eq(enc_stream_final(&st, out, sizeof out, &len, &off), ENC_ERR_INVALID_CHAR);
  ck_assert_uint_eq(enc_stream_max_len(&st, 10), 0);
  // Finished streams refuse more input.
  ck_assert_int_eq(enc_stream_init(&st, B64, ENC_ENCODE, 0, 0), 0);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "f", 1, NULL), 0);
  ck_assert_uint_eq(enc_stream_max_len(&st, 0), 4);
  ck_assert_int_eq(enc_stream_final(&st, out, sizeof out, &len, NULL), 0);
  ck_assert_mem_eq(out, "Zg==", 4);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "f", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  enc_stream_cleanup(&st);
  enc_stream_cleanup(NULL);
  ck_assert_int_eq(enc_stream_update(&st, out, sizeof out, &len, "f", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_stream_init(&st, B64, ENC_DECODE, 0, 76), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_stream_init(&st, B64, (enc_direction)3, 0, 0), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_stream_init(NULL, B64, ENC_ENCODE, 0, 0), ENC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("base64");
  TCase *tc = tcase_create("base64");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, rfc4648_vectors);
  tcase_add_test(tc, url_alphabet);
  tcase_add_test(tc, wrapping);
  tcase_add_test(tc, strict_errors);
  tcase_add_test(tc, mime_decoding);
  // The exhaustive kernel tests: once per implementation, in its forced run
  // (see impl_forced()).
  if (impl_forced()) {
    tcase_add_test(tc, every_length_round_trip);
    tcase_add_loop_test(tc, every_split, 0, 4);
    tcase_add_test(tc, split_errors_keep_offsets);
    tcase_add_test(tc, mime_garbage_everywhere);
    tcase_add_test(tc, wrap_lines_vs_reference);
    tcase_add_test(tc, mime_regular_lines);
    tcase_add_test(tc, mime_line_shapes);
    tcase_add_test(tc, random_vs_scalar);
    tcase_add_loop_test(tc, guard_pages, 0, 3);
    tcase_add_test(tc, wrappers_match_generic);
    tcase_add_test(tc, final_group_vs_stream);
    tcase_add_test(tc, long_input_error_everywhere);
    tcase_add_test(tc, large_input_vs_scalar);
  }
  tcase_add_test(tc, buffer_sizes);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, stream_rules);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
