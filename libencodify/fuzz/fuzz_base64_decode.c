// fuzz_base64_decode.c: Base64 decoding of arbitrary input (strict and MIME,
// both alphabets, with and without padding): every implementation against
// scalar (same bytes, same error and offset) and streaming against one-shot.
// Input: one option byte, one stream-split byte, then the text.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  uint32_t flags = (h[0] & 1 ? ENC_FLAG_URL : 0) | ((h[0] >> 1) % 3 == 1   ? ENC_FLAG_NOPAD
                                                    : (h[0] >> 1) % 3 == 2 ? ENC_FLAG_MIME
                                                                           : 0);
  struct fz_result r = fz_all_impls(ENC_CODEC_BASE64, ENC_DECODE, flags, 0, data, size);
  FUZZ_CHECK(r.rc == 0 || !(flags & ENC_FLAG_MIME));
  FUZZ_CHECK(r.rc == 0 || r.err_off <= size);
  fz_stream(ENC_CODEC_BASE64, ENC_DECODE, flags, 0, data, size, h[1], &r);
  if (r.rc == 0 && !(flags & ENC_FLAG_MIME)) {
    // Strict decoding accepts only the canonical form: encoding gives the input back.
    struct fz_result e = fz_oneshot(ENC_CODEC_BASE64, ENC_ENCODE, flags, 0, r.data, r.len);
    FUZZ_CHECK(e.rc == 0 && e.len == size && memcmp(e.data, data, size) == 0);
    fz_free(&e);
  }
  fz_free(&r);
  return 0;
}
