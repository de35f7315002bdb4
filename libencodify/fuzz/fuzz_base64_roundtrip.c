// fuzz_base64_roundtrip.c: Base64 encoding of arbitrary bytes with any
// alphabet, padding and wrap, every implementation against scalar and
// streaming against one-shot; then decoding (strict without wrap, MIME with
// it) must give the bytes back. Input: option byte, wrap byte, split byte,
// then the data.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[3];
  if (!fz_header(&data, &size, h, 3))
    return 0;
  uint32_t flags = (h[0] & 1 ? ENC_FLAG_URL : 0) | (h[0] & 2 ? ENC_FLAG_NOPAD : 0);
  size_t wrap = h[0] & 4 ? (h[1] == 0 ? 76 : h[1]) : 0;
  struct fz_result e = fz_all_impls(ENC_CODEC_BASE64, ENC_ENCODE, flags, wrap, data, size);
  FUZZ_CHECK(e.rc == 0 && e.len == enc_base64_encode_len(flags, wrap, size));
  fz_stream(ENC_CODEC_BASE64, ENC_ENCODE, flags, wrap, data, size, h[2], &e);
  uint32_t dflags = wrap ? (flags & ENC_FLAG_URL) | ENC_FLAG_MIME : flags;
  struct fz_result d = fz_all_impls(ENC_CODEC_BASE64, ENC_DECODE, dflags, 0, e.data, e.len);
  FUZZ_CHECK(d.rc == 0 && d.len == size && (size == 0 || memcmp(d.data, data, size) == 0));
  fz_free(&d);
  fz_free(&e);
  return 0;
}
