// fuzz_qp_roundtrip.c: quoted-printable (text and binary mode) and "Q"
// encoding of arbitrary bytes: every implementation against scalar,
// streaming against one-shot, lines of at most 76 characters, and decoding
// gives the bytes back. Input: option byte, split byte, then the data.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
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
  return 0;
}
