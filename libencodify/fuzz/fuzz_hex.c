// fuzz_hex.c: hex on arbitrary input: decoding with streaming against
// one-shot, accepted input re-encodes to itself up to case, and encoding
// round-trips. Input: option byte, split byte, then the data.
#include <ctype.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  struct fz_result d = fz_oneshot(ENC_CODEC_HEX, ENC_DECODE, 0, 0, data, size);
  fz_stream(ENC_CODEC_HEX, ENC_DECODE, 0, 0, data, size, h[1], &d);
  if (d.rc == 0) {
    struct fz_result e = fz_oneshot(ENC_CODEC_HEX, ENC_ENCODE, 0, 0, d.data, d.len);
    FUZZ_CHECK(e.rc == 0 && e.len == size);
    for (size_t i = 0; i < size; i++)
      FUZZ_CHECK(e.data[i] == tolower(data[i]));
    fz_free(&e);
  }
  fz_free(&d);
  uint32_t flags = h[0] & 1 ? ENC_FLAG_UPPER : 0;
  struct fz_result e = fz_oneshot(ENC_CODEC_HEX, ENC_ENCODE, flags, 0, data, size);
  fz_stream(ENC_CODEC_HEX, ENC_ENCODE, flags, 0, data, size, h[1], &e);
  struct fz_result b = fz_oneshot(ENC_CODEC_HEX, ENC_DECODE, 0, 0, e.data, e.len);
  FUZZ_CHECK(b.rc == 0 && b.len == size && (size == 0 || memcmp(b.data, data, size) == 0));
  fz_free(&b);
  fz_free(&e);
  return 0;
}
