// fuzz_qp_roundtrip.c: quoted-printable (text and binary mode) and "Q"
// encoding of arbitrary bytes: every implementation against scalar,
// streaming against one-shot, lines of at most 76 characters, and decoding
// gives the bytes back. Input: option byte, split byte, then the data.
// Option bit 2 makes the data a recipe for text instead of the text itself,
// so that the fuzzer reaches every event of the QP block encoders at every
// column and block offset: each data byte is a run of 0-31 literal bytes
// (its top five bits) followed by one of eight specials (its low three:
// CRLF, LF, a lone CR, space, tab, `=`, a UTF-8 accent, white space before
// CRLF).
#include "fuzz_util.h"

// QP_RECIPE_MAX bounds the data a recipe may hold (each byte makes at most
// 34), so that a long input does not make a huge text.
enum { QP_RECIPE_MAX = 4096 };

// qp_recipe returns the text that `data` describes, in a malloc'd buffer,
// and sets `*len`.
static uint8_t *qp_recipe(const uint8_t *data, size_t size, size_t *len) {
  static const char *const specials[8] = {"\r\n", "\n", "\r", " ", "\t", "=", "\xc3\xa9", " \r\n"};
  if (size > QP_RECIPE_MAX)
    size = QP_RECIPE_MAX;
  uint8_t *t = malloc(size * 34 + 1);
  FUZZ_CHECK(t != NULL);
  size_t n = 0;
  for (size_t i = 0; i < size; i++) {
    size_t run = data[i] >> 3;
    for (size_t k = 0; k < run; k++)
      t[n++] = (uint8_t)('a' + (i + k) % 26);
    const char *s = specials[data[i] & 7];
    size_t sl = strlen(s);
    memcpy(t + n, s, sl);
    n += sl;
  }
  *len = n;
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  uint8_t *text = NULL;
  if (h[0] & 4) {
    text = qp_recipe(data, size, &size);
    data = text;
  }
  enc_codec codec = h[0] & 1 ? ENC_CODEC_Q : ENC_CODEC_QP;
  uint32_t flags =
      codec == ENC_CODEC_QP ? (h[0] & 2 ? ENC_FLAG_BINARY : 0) : (h[0] & 2 ? ENC_FLAG_PHRASE : 0);
  struct fz_result e = fz_all_impls(codec, ENC_ENCODE, flags, 0, data, size);
  FUZZ_CHECK(e.rc == 0);
  fz_stream(codec, ENC_ENCODE, flags, 0, data, size, h[1], &e);
  size_t col = 0;
  for (size_t i = 0; i < e.len; i++) {
    if (e.data[i] == '\n') {
      col = 0;
    } else if (e.data[i] != '\r' || i + 1 == e.len || e.data[i + 1] != '\n') {
      col++;
      FUZZ_CHECK(col <= 76 || codec == ENC_CODEC_Q);
    }
  }
  struct fz_result d = fz_all_impls(codec, ENC_DECODE, 0, 0, e.data, e.len);
  FUZZ_CHECK(d.rc == 0 && d.len == size && (size == 0 || memcmp(d.data, data, size) == 0));
  fz_free(&d);
  fz_free(&e);
  free(text);
  return 0;
}
