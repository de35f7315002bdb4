// fuzz_utf7imap.c: IMAP modified UTF-7 on arbitrary input, both ways:
// decoding and encoding with streaming against one-shot; whatever decodes
// encodes back to the same text (only canonical input is accepted), and
// whatever encodes decodes back to the same UTF-8. Input: split byte, data.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[1];
  if (!fz_header(&data, &size, h, 1))
    return 0;
  struct fz_result d = fz_oneshot(ENC_CODEC_UTF7IMAP, ENC_DECODE, 0, 0, data, size);
  fz_stream(ENC_CODEC_UTF7IMAP, ENC_DECODE, 0, 0, data, size, h[0], &d);
  if (d.rc == 0) {
    struct fz_result e = fz_oneshot(ENC_CODEC_UTF7IMAP, ENC_ENCODE, 0, 0, d.data, d.len);
    FUZZ_CHECK(e.rc == 0 && e.len == size && memcmp(e.data, data, size) == 0);
    fz_free(&e);
  }
  fz_free(&d);
  struct fz_result e = fz_oneshot(ENC_CODEC_UTF7IMAP, ENC_ENCODE, 0, 0, data, size);
  fz_stream(ENC_CODEC_UTF7IMAP, ENC_ENCODE, 0, 0, data, size, h[0] ^ 0x5a, &e);
  if (e.rc == 0) {
    struct fz_result b = fz_oneshot(ENC_CODEC_UTF7IMAP, ENC_DECODE, 0, 0, e.data, e.len);
    FUZZ_CHECK(b.rc == 0 && b.len == size && (size == 0 || memcmp(b.data, data, size) == 0));
    fz_free(&b);
  }
  fz_free(&e);
  return 0;
}
