// fuzz_base32_roundtrip.c: Base32 and base32hex encoding of arbitrary bytes,
// every implementation against scalar, streaming against one-shot, and
// decoding gives the bytes back. Input: option byte, split byte, then data.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  uint32_t flags = (h[0] & 1 ? ENC_FLAG_BASE32HEX : 0) | (h[0] & 2 ? ENC_FLAG_NOPAD : 0);
  struct fz_result e = fz_all_impls(ENC_CODEC_BASE32, ENC_ENCODE, flags, 0, data, size);
  FUZZ_CHECK(e.rc == 0);
  fz_stream(ENC_CODEC_BASE32, ENC_ENCODE, flags, 0, data, size, h[1], &e);
  struct fz_result d = fz_all_impls(ENC_CODEC_BASE32, ENC_DECODE, flags, 0, e.data, e.len);
  FUZZ_CHECK(d.rc == 0 && d.len == size && (size == 0 || memcmp(d.data, data, size) == 0));
  fz_free(&d);
  fz_free(&e);
  return 0;
}
