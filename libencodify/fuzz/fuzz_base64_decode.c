// fuzz_base64_decode.c: Base64 decoding of arbitrary input (strict and MIME,
// both alphabets, with and without padding): every implementation against
// scalar (same bytes, same error and offset) and streaming against one-shot;
// in MIME mode also the text cut into regular lines. Input: one option byte,
// one stream-split byte (also the lines' length and break), then the text.
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
  if (flags & ENC_FLAG_MIME) {
    // The text again as regular lines of 4..80 characters ended by LF or
    // CRLF (from the split byte), the shape that the line kernels decode
    // (AVX-512: up to 76 characters, a multiple of 4).
    size_t cols = 4 + h[1] % 77, brk = h[1] & 0x80 ? 2 : 1;
    size_t n = size + (size / cols + 1) * brk, o = 0;
    uint8_t *lines = malloc(n ? n : 1);
    FUZZ_CHECK(lines != NULL);
    for (size_t i = 0; i < size; i += cols) {
      size_t k = size - i < cols ? size - i : cols;
      memcpy(lines + o, data + i, k);
      o += k;
      memcpy(lines + o, &"\r\n"[2 - brk], brk);
      o += brk;
    }
    struct fz_result l = fz_all_impls(ENC_CODEC_BASE64, ENC_DECODE, flags, 0, lines, o);
    FUZZ_CHECK(l.rc == 0);
    fz_free(&l);
    free(lines);
  }
  return 0;
}
