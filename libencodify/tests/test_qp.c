// test_qp.c: quoted-printable bodies and the RFC 2047 "Q" encoding
// (src/qp.c and every kernel): decoding of escapes in both cases, soft line
// breaks, trailing white space and malformed `=`; encoding with 76-column
// lines, text and binary modes; round trips, every split of the stream,
// every kernel path against inaccessible pages at every alignment, and the
// implementation under test against scalar on random and adversarial input.
#include "test_util.h"

#define QP ENC_CODEC_QP
#define S(str) str, sizeof str - 1

START_TEST(decode_vectors) {
  expect_ok(QP, ENC_DECODE, 0, 0, S("Hello=20World"), "Hello World");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a=3Db=3dc"), "a=b=c");
  expect_ok(QP, ENC_DECODE, 0, 0, S("caf=C3=A9 caf=c3=a9"), "caf\xc3\xa9 caf\xc3\xa9");
  // Soft line breaks.
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc=\r\ndef"), "abcdef");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc=\ndef"), "abcdef");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc= \t \r\ndef"), "abcdef");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc="), "abc");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc=  "), "abc");
  // Trailing white space goes; line breaks stay as they are.
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc  \r\ndef"), "abc\r\ndef");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc \t\ndef \n"), "abc\ndef\n");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc  "), "abc");
  expect_ok(QP, ENC_DECODE, 0, 0, S("abc =20 \r\n"), "abc  \r\n");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a b\tc"), "a b\tc");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a  \rb"), "a  \rb");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a \r\r\n"), "a \r\r\n");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a \r"), "a \r");
  // Malformed "=" stays.
  expect_ok(QP, ENC_DECODE, 0, 0, S("a=4G"), "a=4G");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a=G4"), "a=G4");
  expect_ok(QP, ENC_DECODE, 0, 0, S("a==41"), "a=A");
  expect_ok(QP, ENC_DECODE, 0, 0, S("100%=4"), "100%=4");
  expect_ok(QP, ENC_DECODE, 0, 0, S("=\rX"), "=\rX");
  expect_ok(QP, ENC_DECODE, 0, 0, S("= X"), "= X");
  expect_ok(QP, ENC_DECODE, 0, 0, S("= \r"), "= \r");
  expect_ok(QP, ENC_DECODE, 0, 0, S("=  ="), "=  ");
  expect_ok(QP, ENC_DECODE, 0, 0, S("=\x80"), "=\x80");
  expect_ok(QP, ENC_DECODE, 0, 0, S(""), "");
}
END_TEST

START_TEST(decode_space_runs) {
  static char in[700], want[700];
  for (size_t run = ENC_QP_MAX_SPACE_RUN - 2; run <= ENC_QP_MAX_SPACE_RUN + 2; run++) {
    // Text then a run of spaces then CRLF: removed up to the limit.
    in[0] = 'a';
    memset(in + 1, run % 2 ? ' ' : '\t', run);
    memcpy(in + 1 + run, "\r\nb", 3);
    size_t n = run + 4;
    if (run <= ENC_QP_MAX_SPACE_RUN)
      strcpy(want, "a\r\nb");
    else {
      memcpy(want, in, n);
      want[n] = 0;
    }
    expect_ok(QP, ENC_DECODE, 0, 0, in, n, want);
    uint64_t rng = run;
    check_splits(QP, ENC_DECODE, 0, 0, in, n, &rng);
    // "=" then the run then CRLF: a soft line break up to the limit.
    in[0] = '=';
    if (run <= ENC_QP_MAX_SPACE_RUN)
      strcpy(want, "b");
    else {
      memcpy(want, in, n);
      want[n] = 0;
    }
    expect_ok(QP, ENC_DECODE, 0, 0, in, n, want);
    check_splits(QP, ENC_DECODE, 0, 0, in, n, &rng);
  }
}
END_TEST

START_TEST(encode_vectors) {
  expect_ok(QP, ENC_ENCODE, 0, 0, S("Hello World"), "Hello World");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("a=b"), "a=3Db");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("caf\xc3\xa9"), "caf=C3=A9");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("abc "), "abc=20");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("abc \r\ndef"), "abc=20\r\ndef");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("abc\t\n"), "abc=09\n");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("a  b  \r\n"), "a  b =20\r\n");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("a\rb\r"), "a=0Db=0D");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("a \r"), "a =0D");
  expect_ok(QP, ENC_ENCODE, ENC_FLAG_BINARY, 0, S("a\r\nb \n"), "a=0D=0Ab =0A");
  expect_ok(QP, ENC_ENCODE, ENC_FLAG_BINARY, 0, S("a "), "a=20");
  expect_ok(QP, ENC_ENCODE, 0, 0, S("\x00\x7f"), "=00=7F");
  expect_ok(QP, ENC_ENCODE, 0, 0, S(""), "");
}
END_TEST

static char *repeat(char *p, char c, size_t n) {
  memset(p, c, n);
  return p + n;
}

START_TEST(encode_line_lengths) {
  char in[300], want[400], *w;
  memset(in, 'a', sizeof in);
  // 76 characters fit on a last line; 77 need a soft break after 75.
  w = repeat(want, 'a', 76);
  *w = 0;
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 76, want);
  w = repeat(want, 'a', 75);
  strcpy(w, "=\r\naa");
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 77, want);
  memcpy(in + 76, "\r\n", 2);
  w = repeat(want, 'a', 76);
  strcpy(w, "\r\n");
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 78, want);
  memset(in, 'a', sizeof in);
  // "=XX" is never split.
  in[74] = (char)0xff;
  w = repeat(want, 'a', 74);
  strcpy(w, "=\r\n=FF");
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 75, want);
  in[74] = 'a';
  in[72] = (char)0xff;
  w = repeat(want, 'a', 72);
  strcpy(w, "=FFb");
  in[73] = 'b';
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 74, want);
  in[73] = 'a';
  // 200 bytes: lines of 75 + "=".
  memset(in, 'a', sizeof in);
  w = repeat(want, 'a', 75);
  w = memcpy(w, "=\r\n", 3), w += 3;
  w = repeat(w, 'a', 75);
  w = memcpy(w, "=\r\n", 3), w += 3;
  w = repeat(w, 'a', 50);
  *w = 0;
  expect_ok(QP, ENC_ENCODE, 0, 0, in, 200, want);
}
END_TEST

// check_qp_output asserts the shape of encoder output: lines of at most 76
// characters, only `=` before a soft break, no white space before a hard one.
static void check_qp_output(const uint8_t *p, size_t n, int binary) {
  size_t col = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\n' || (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')) {
      ck_assert_msg(col <= 76, "line of %zu characters", col);
      if (i > 0 && p[i - 1] != '=' && p[i] == '\r')
        ck_assert(!binary);
      size_t end = p[i] == '\r' ? i : i;
      if (end > 0)
        ck_assert_msg(p[end - 1] != ' ' && p[end - 1] != '\t', "white space at a line end");
      if (p[i] == '\r')
        i++;
      col = 0;
      continue;
    }
    ck_assert_msg(((p[i] >= 32 && p[i] <= 126) || p[i] == '\t') && (p[i] != ' ' || i + 1 < n) &&
                      (p[i] != '\t' || i + 1 < n) && p[i] != '\r',
                  "byte 0x%02x at %zu", p[i], i);
    col++;
  }
  ck_assert_msg(col <= 76, "last line of %zu characters", col);
}

START_TEST(round_trips) {
  uint64_t rng = 21;
  static uint8_t in[3000];
  static const uint8_t textish[] = "abcdefghij  \t\t\r\n\n\r==.\xc3\xa9\xff\x00";
  for (size_t k = 0; k < 300; k++) {
    size_t n = k < 200 ? k : rng_below(&rng, sizeof in);
    int mode = (int)rng_below(&rng, 3);
    for (size_t i = 0; i < n; i++)
      in[i] = mode == 0   ? (uint8_t)rng_next(&rng)
              : mode == 1 ? textish[rng_below(&rng, sizeof textish - 1)]
                          : (uint8_t)(rng_below(&rng, 20) ? 'x' : ' ');
    for (int binary = 0; binary < 2; binary++) {
      uint32_t fl = binary ? ENC_FLAG_BINARY : 0;
      struct result e = check_vs_scalar(QP, ENC_ENCODE, fl, 0, in, n);
      ck_assert_int_eq(e.rc, 0);
      check_qp_output(e.data, e.len, binary);
      struct result d = check_vs_scalar(QP, ENC_DECODE, 0, 0, e.data, e.len);
      ck_assert_int_eq(d.rc, 0);
      ck_assert_uint_eq(d.len, n);
      ck_assert_mem_eq(d.data, in, n);
      if (k < 120 || k % 20 == 0) {
        check_splits(QP, ENC_ENCODE, fl, 0, in, n < 400 ? n : 400, &rng);
        check_splits(QP, ENC_DECODE, 0, 0, e.data, e.len < 400 ? e.len : 400, &rng);
      }
      result_free(&d);
      result_free(&e);
    }
  }
}
END_TEST

// Adversarial decoder input: everything that can interact with a `=`, a run
// of spaces or a line break, in random order.
START_TEST(adversarial_decode) {
  uint64_t rng = 33;
  static char in[2000];
  static const char pieces[] = "==  \t\t\r\n\r\nAaFf09Gg_xyz\x80";
  for (int k = 0; k < 800; k++) {
    size_t n = rng_below(&rng, k < 600 ? 64 : sizeof in);
    size_t plain_rate = rng_below(&rng, 8);
    for (size_t i = 0; i < n; i++)
      in[i] = rng_below(&rng, 8) < plain_rate ? 'p' : pieces[rng_below(&rng, sizeof pieces - 1)];
    struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, n);
    ck_assert_int_eq(r.rc, 0);
    ck_assert_uint_le(r.len, n);
    result_free(&r);
    if (k < 100)
      check_splits(QP, ENC_DECODE, 0, 0, in, n, &rng);
    r = check_vs_scalar(ENC_CODEC_Q, ENC_DECODE, 0, 0, in, n);
    result_free(&r);
  }
}
END_TEST

// The vector decoder takes escapes and soft line breaks inside 32-byte
// blocks and carries the ones that straddle a block into the next: put each
// special sequence at every offset of a plain run (so at every place of a
// block and across its end), alone and twice in a row, and cut the input at
// every length.
START_TEST(specials_at_every_offset) {
  static const char *const specials[] = {
      "=41",  "=c3=A9",   "=\r\n",  "=\n",    "=\r",       "=4",        "=4g",
      "==41", "= \r\n",   " \r\n",  "\t\n",   " =20",      "=\r\r\n",   "=20\r\n",
      "  x",  "=3D=\r\n", " \x01x", "\t\x1f", " \x0b\r\n", "  \x1f\r\n"};
  static char in[200];
  for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
    size_t sl = strlen(specials[k]);
    for (size_t pos = 0; pos < 100; pos++) {
      memset(in, 'p', sizeof in);
      memcpy(in + pos, specials[k], sl);
      memcpy(in + pos + sl + pos % 3, specials[k], sl);
      struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, 140);
      ck_assert_int_eq(r.rc, 0);
      result_free(&r);
    }
    memset(in, 'p', sizeof in);
    for (size_t pos = 0; pos + sl <= sizeof in; pos += 29)
      memcpy(in + pos, specials[k], sl);
    for (size_t n = 0; n <= sizeof in; n++) {
      struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, n);
      ck_assert_int_eq(r.rc, 0);
      result_free(&r);
    }
  }
  // Known output: escapes across the block boundaries of a long line.
  static char want[200];
  size_t il = 0, wl = 0;
  for (int j = 0; j < 40; j++) {
    if (j % 3 == 0) {
      memcpy(in + il, "=C3=A9", 6);
      il += 6;
      want[wl++] = (char)0xC3;
      want[wl++] = (char)0xA9;
    } else if (j % 3 == 1) {
      memcpy(in + il, "ab=\r\n", 5);
      il += 5;
      want[wl++] = 'a';
      want[wl++] = 'b';
    } else {
      in[il++] = 'z';
      want[wl++] = 'z';
    }
  }
  struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, il);
  ck_assert_int_eq(r.rc, 0);
  ck_assert_uint_eq(r.len, wl);
  ck_assert_mem_eq(r.data, want, wl);
  result_free(&r);
  uint64_t rng = 8;
  check_splits(QP, ENC_DECODE, 0, 0, in, il, &rng);
}
END_TEST

// check_exact_capacity decodes `in` into a heap buffer of exactly the
// decoded length (so that ASan sees any write past it) and one byte less,
// and asserts that the first gives scalar's bytes and the second fails.
// Output that runs short stops a kernel in mid-input, where a sequence
// may straddle the last block.
static void check_exact_capacity(const char *in, size_t n, const struct result *want) {
  uint8_t *out = malloc(want->len ? want->len : 1);
  ck_assert_ptr_nonnull(out);
  size_t len = 0;
  ck_assert_int_eq(enc_qp_decode(out, want->len, &len, in, n), 0);
  ck_assert_uint_eq(len, want->len);
  ck_assert_mem_eq(out, want->data, len);
  if (want->len > 0)
    ck_assert_int_eq(enc_qp_decode(out, want->len - 1, &len, in, n), ENC_ERR_BUFFER_TOO_SMALL);
  free(out);
}

// The AVX-512 decoder takes 64 bytes at a time and the others 32, 16 or 8:
// every sequence that a kernel treats specially (escapes, soft breaks, a
// lone or split CR LF, malformed `=`, white space before a break) at every
// offset of the first three 64-byte blocks, so that each one starts at
// every place of a block and straddles each block end in every way; runs of
// white space of every length ending at every offset around a block end;
// and each case with an output buffer of exactly the decoded length.
START_TEST(block_boundaries) {
  static const char *const seqs[] = {
      "=41",     "=e9",  "=\r\n", "=\n",    "=\r",   "=\rX",   "=\r=41", "=4",
      "=4 \r\n", "=A\n", "==41",  "= \r\n", "=\t\n", "= X",    "=",      "\r\n",
      "\r",      "\n",   " \r\n", "\t\n",   " =41",  "=3D=\n", "=\x80",  "\x80=",
  };
  static char in[256];
  uint64_t rng = 64;
  for (size_t k = 0; k < sizeof seqs / sizeof seqs[0]; k++) {
    size_t sl = strlen(seqs[k]);
    for (size_t pos = 0; pos + sl <= 196; pos++) {
      memset(in, 'p', sizeof in);
      memcpy(in + pos, seqs[k], sl);
      // The same sequence once more two blocks on, after the first has
      // left its classes to the block that follows it.
      memcpy(in + pos + 60, seqs[k], sl);
      struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, sizeof in);
      ck_assert_int_eq(r.rc, 0);
      check_exact_capacity(in, sizeof in, &r);
      result_free(&r);
      // Cut right after the sequence: it may end the input.
      r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, pos + sl);
      ck_assert_int_eq(r.rc, 0);
      result_free(&r);
      // Every cut of the input once the sequence is at offsets 0, 48, 96
      // and 144: the cuts put it at every place of the piece after them;
      // in the piece before, those offsets take every multiple of 16 in a
      // 64-byte block (AVX-512), of 32 (AVX2) and of 16 (SSE4.1), as every
      // 16th offset did, in 4 runs rather than 12.
      if (pos % 48 == 0)
        check_splits(QP, ENC_DECODE, 0, 0, in, sizeof in, &rng);
    }
  }
  // White space runs: 1..12 spaces and tabs ending at offsets 50..140, then
  // a line break, a soft break or text.
  static const char *const after[] = {"\r\nx", "\nx", "=\r\nx", "x", "\r", "\x01x"};
  for (size_t a = 0; a < sizeof after / sizeof after[0]; a++) {
    for (size_t run = 1; run <= 12; run++) {
      for (size_t end = 50; end <= 140; end++) {
        memset(in, 'p', sizeof in);
        for (size_t j = end - run; j < end; j++)
          in[j] = (j + run) % 3 ? ' ' : '\t';
        memcpy(in + end, after[a], strlen(after[a]));
        struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, in, sizeof in);
        ck_assert_int_eq(r.rc, 0);
        check_exact_capacity(in, sizeof in, &r);
        result_free(&r);
      }
    }
  }
  // Escapes and soft breaks back to back over many blocks, at a random
  // offset each time, with exact output buffers.
  static char text[2048];
  static const char *const dense[] = {"=C3=A9", "=\r\n", "=\n", "ab", "=3d", " ", "=\r", "=4"};
  for (int t = 0; t < 200; t++) {
    size_t tl = rng_below(&rng, 64);
    memset(text, 'q', tl);
    while (tl < sizeof text - 8) {
      const char *d = dense[rng_below(&rng, sizeof dense / sizeof dense[0])];
      memcpy(text + tl, d, strlen(d));
      tl += strlen(d);
    }
    struct result r = check_vs_scalar(QP, ENC_DECODE, 0, 0, text, tl);
    ck_assert_int_eq(r.rc, 0);
    check_exact_capacity(text, tl, &r);
    result_free(&r);
  }
}
END_TEST

// Every kernel path at every length 0..300 and every alignment, with the
// input and the exactly sized output against inaccessible pages: decoding
// of text full of escapes, soft breaks and white space, and encoding of text
// and of binary.
START_TEST(guard_pages) {
  struct guard_page gin, gout;
  guard_init(&gin);
  guard_init(&gout);
  uint64_t rng = 5151 + (uint64_t)_i;
  static char text[301];
  static const char *const words[] = {"=C3=A9", "=\r\n", " \r\n", "word", "  ",   "\t",
                                      "=4",     "\r\n",  "x=3Dy", "=\n",  "\xe9", " \x01"};
  for (size_t n = _i; n <= 300; n += 3) {
    size_t tl = 0;
    while (tl < n) {
      const char *w = words[rng_below(&rng, sizeof words / sizeof words[0])];
      size_t wl = strlen(w) < n - tl ? strlen(w) : n - tl;
      memcpy(text + tl, w, wl);
      tl += wl;
    }
    check_guarded(&gin, &gout, QP, ENC_DECODE, 0, 0, text, n);
    check_guarded(&gin, &gout, QP, ENC_ENCODE, 0, 0, text, n);
    check_guarded(&gin, &gout, QP, ENC_ENCODE, ENC_FLAG_BINARY, 0, text, n);
  }
  guard_free(&gin);
  guard_free(&gout);
}
END_TEST

// Encoder differential: every implementation this CPU supports against
// scalar, one-shot and as streams cut into random pieces, on inputs built to
// reach each event of the block encoders at every place of a block: literal
// runs that meet column 75 at every offset, escapes straddling the column
// limit, CR, LF and CRLF (split or not) at block ends, white space before
// line breaks, lone CRs, `=`, and random bytes and text of many lengths.

// qpe_gen fills `in` with `n` bytes of kind `kind` (0..5).
static void qpe_gen(uint8_t *in, size_t n, int kind, uint64_t *rng) {
  static const uint8_t alpha[] = "abc  \t\r\n\r\n=~!.\x7f\x80\xc3\xa9\xff\x00";
  static const char *const pieces[] = {"\r\n", " \r\n",    "\t\n",        "\n",   "\r",
                                       "=",    "\xc3\xa9", "  ",          "word", "\r\r\n",
                                       " ",    "x \r",     "\xff\xfe\xfd"};
  size_t i = 0;
  switch (kind) {
  case 0: // random bytes
    rng_fill(rng, in, n);
    return;
  case 1: // a small alphabet of everything special
    for (; i < n; i++)
      in[i] = alpha[rng_below(rng, sizeof alpha - 1)];
    return;
  case 2: // long literal runs between rare specials
  case 3: // lines of 60..90 columns, sometimes with trailing white space
    while (i < n) {
      size_t run = kind == 2 ? rng_below(rng, 200) : 60 + rng_below(rng, 31);
      for (size_t k = 0; k < run && i < n; k++)
        in[i++] = (uint8_t)('A' + rng_below(rng, 26));
      const char *p = kind == 3 && rng_below(rng, 3) ? (rng_below(rng, 2) ? " \r\n" : "\r\n")
                                                     : pieces[rng_below(rng, 13)];
      for (size_t k = 0; p[k] != 0 && i < n; k++)
        in[i++] = (uint8_t)p[k];
    }
    return;
  case 4: // text with accents, like the benchmark's
    while (i < n) {
      const char *p = rng_below(rng, 8) == 0 ? pieces[rng_below(rng, 13)] : "lorem ";
      for (size_t k = 0; p[k] != 0 && i < n; k++)
        in[i++] = (uint8_t)p[k];
    }
    return;
  default: // one special at every offset of a literal background
    memset(in, 'q', n);
    if (n > 0) {
      const char *p = pieces[rng_below(rng, 13)];
      size_t at = rng_below(rng, n);
      for (size_t k = 0; p[k] != 0 && at + k < n; k++)
        in[at + k] = (uint8_t)p[k];
    }
    return;
  }
}

// qpe_all_impls compares every supported implementation with scalar on
// `in`, one-shot and with the stream cut at random places.
static void qpe_all_impls(const uint8_t *in, size_t n, uint32_t flags, uint64_t *rng) {
  const char *chosen = enc_impl_name();
  ck_assert_int_eq(enc_impl_force("scalar"), 0);
  struct result want = run_oneshot(QP, ENC_ENCODE, flags, 0, in, n);
  ck_assert_int_eq(want.rc, 0);
  for (size_t k = 0; k < enc_impl_count(); k++) {
    int ok = 0;
    const char *name = enc_impl_get(k, &ok);
    if (!ok)
      continue;
    ck_assert_int_eq(enc_impl_force(name), 0);
    struct result r = run_oneshot(QP, ENC_ENCODE, flags, 0, in, n);
    char what[96];
    snprintf(what, sizeof what, "%s vs scalar, flags %u len %zu", name, flags, n);
    same_result(&want, &r, what);
    result_free(&r);
    size_t cuts[8];
    size_t nc = 1 + rng_below(rng, 8);
    for (size_t j = 0; j < nc; j++) // ascending cuts, some pieces tiny or empty
      cuts[j] = (j ? cuts[j - 1] : 0) + rng_below(rng, j % 2 ? 5 : n / 4 + 1);
    for (size_t j = 0; j < nc; j++)
      if (cuts[j] > n)
        cuts[j] = n;
    r = run_stream(QP, ENC_ENCODE, flags, 0, in, n, cuts, nc);
    snprintf(what, sizeof what, "%s stream vs scalar, flags %u len %zu", name, flags, n);
    same_result(&want, &r, what);
    result_free(&r);
  }
  ck_assert_int_eq(enc_impl_force(chosen), 0);
  result_free(&want);
}

START_TEST(encode_differential) {
  uint64_t rng = 0x51e5;
  static uint8_t in[24000];
  for (int kind = 0; kind < 6; kind++) {
    for (size_t n = 0; n <= 400; n++) {
      qpe_gen(in, n, kind, &rng);
      qpe_all_impls(in, n, 0, &rng);
      qpe_all_impls(in, n, ENC_FLAG_BINARY, &rng);
    }
    for (int t = 0; t < 40; t++) {
      size_t n = t < 4 ? sizeof in : 400 + rng_below(&rng, 8000);
      qpe_gen(in, n, kind, &rng);
      qpe_all_impls(in, n, 0, &rng);
      qpe_all_impls(in, n, ENC_FLAG_BINARY, &rng);
    }
  }
  // A line break after 0..80 literals, so that the next line starts at
  // every offset of a block, then a special at many offsets after it.
  static const char *const ends[] = {"\r\n", "\n", " \r\n", "\xc3\xa9", "=", "\r", " \n", "\t"};
  for (size_t lead = 0; lead <= 80; lead++) {
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++) {
      for (size_t at = lead % 4; at < 140; at += 3 + (lead % 5)) {
        memset(in, 'z', 200);
        memset(in, 'y', lead); // the column where the block starts
        memcpy(in + lead, "\r\n", 2);
        memcpy(in + lead + 2 + at, ends[e], strlen(ends[e]));
        qpe_all_impls(in, 200, 0, &rng);
        if (at % 4 == 0)
          qpe_all_impls(in, 200, ENC_FLAG_BINARY, &rng);
      }
    }
  }
}
END_TEST

START_TEST(q_vectors) {
  expect_ok(ENC_CODEC_Q, ENC_ENCODE, 0, 0, S("Hello World"), "Hello_World");
  expect_ok(ENC_CODEC_Q, ENC_ENCODE, 0, 0, S("a=b?c_d"), "a=3Db=3Fc=5Fd");
  expect_ok(ENC_CODEC_Q, ENC_ENCODE, 0, 0, S("a.b(c)\t\r\n"), "a.b(c)=09=0D=0A");
  expect_ok(ENC_CODEC_Q, ENC_ENCODE, ENC_FLAG_PHRASE, 0, S("a.b(c)!*+-/\""),
            "a=2Eb=28c=29!*+-/=22");
  expect_ok(ENC_CODEC_Q, ENC_ENCODE, ENC_FLAG_PHRASE, 0, S("caf\xc3\xa9 x"), "caf=C3=A9_x");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("Hello_World"), "Hello World");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("caf=C3=a9"), "caf\xc3\xa9");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("a=4"), "a=4");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("a="), "a=");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("a=4g=5F"), "a=4g_");
  expect_ok(ENC_CODEC_Q, ENC_DECODE, 0, 0, S("a==5F"), "a=_");
  uint64_t rng = 8;
  uint8_t in[200];
  for (size_t n = 0; n < 200; n += 7) {
    rng_fill(&rng, in, n);
    for (int phrase = 0; phrase < 2; phrase++) {
      struct result e =
          check_vs_scalar(ENC_CODEC_Q, ENC_ENCODE, phrase ? ENC_FLAG_PHRASE : 0, 0, in, n);
      for (size_t i = 0; i < e.len; i++)
        ck_assert(e.data[i] > 32 && e.data[i] < 127 && e.data[i] != '?');
      struct result d = check_vs_scalar(ENC_CODEC_Q, ENC_DECODE, 0, 0, e.data, e.len);
      ck_assert_uint_eq(d.len, n);
      ck_assert_mem_eq(d.data, in, n);
      check_splits(ENC_CODEC_Q, ENC_ENCODE, 0, 0, in, n, &rng);
      check_splits(ENC_CODEC_Q, ENC_DECODE, 0, 0, e.data, e.len, &rng);
      result_free(&d);
      result_free(&e);
    }
  }
}
END_TEST

START_TEST(buffer_sizes) {
  char out[16];
  size_t len;
  ck_assert_int_eq(enc_qp_decode(out, 2, &len, "a=41b", 5), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_qp_decode(out, 3, &len, "a=41b", 5), 0);
  ck_assert_int_eq(enc_qp_encode(0, out, 3, &len, "a\xff", 2), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_qp_encode(0, out, 4, &len, "a\xff", 2), 0);
  ck_assert_int_eq(enc_q_encode(0, out, 3, &len, "a\xff", 2), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_q_decode(out, 1, &len, "a_", 2), ENC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(enc_qp_encode(ENC_FLAG_PHRASE, out, 16, &len, "a", 1), ENC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(enc_decode(QP, ENC_FLAG_BINARY, out, 16, &len, "a", 1, NULL),
                   ENC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("qp");
  TCase *tc = tcase_create("qp");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, decode_vectors);
  tcase_add_test(tc, decode_space_runs);
  tcase_add_test(tc, encode_vectors);
  tcase_add_test(tc, encode_line_lengths);
  // The exhaustive kernel tests: once per implementation, in its forced run;
  // encode_differential compares every implementation itself, and the Q
  // codec (q_vectors) has no kernels: both once, in the automatic run (see
  // impl_forced()).
  if (impl_forced()) {
    tcase_add_test(tc, round_trips);
    tcase_add_test(tc, adversarial_decode);
    tcase_add_test(tc, specials_at_every_offset);
    tcase_add_test(tc, block_boundaries);
    tcase_add_loop_test(tc, guard_pages, 0, 3);
  } else {
    tcase_add_test(tc, encode_differential);
    tcase_add_test(tc, q_vectors);
  }
  tcase_add_test(tc, buffer_sizes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
