// fuzz_base32_decode.c: Base32 and base32hex decoding of arbitrary input:
// every implementation against scalar, streaming against one-shot, and
// accepted input is canonical. Input: option byte, split byte, then the text.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  uint32_t flags = (h[0] & 1 ? ENC_FLAG_BASE32HEX : 0) | (h[0] & 2 ? ENC_FLAG_NOPAD : 0);
  struct fz_result r = fz_all_impls(ENC_CODEC_BASE32, ENC_DECODE, flags, 0, data, size);
  FUZZ_CHECK(r.rc == 0 || r.err_off <= size);
  fz_stream(ENC_CODEC_BASE32, ENC_DECODE, flags, 0, data, size, h[1], &r);
  if (r.rc == 0) {
    struct fz_result e = fz_oneshot(ENC_CODEC_BASE32, ENC_ENCODE, flags, 0, r.data, r.len);
    FUZZ_CHECK(e.rc == 0 && e.len == size && memcmp(e.data, data, size) == 0);
    fz_free(&e);
  }
  fz_free(&r);
  return 0;
}
