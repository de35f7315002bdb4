// fuzz_qp_decode.c: quoted-printable and RFC 2047 "Q" decoding of arbitrary
// input: every implementation against scalar (the state machine), streaming
// against one-shot, never an error, never longer than the input.
// Input: option byte, split byte, then the text.
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  enc_codec codec = h[0] & 1 ? ENC_CODEC_Q : ENC_CODEC_QP;
  struct fz_result r = fz_all_impls(codec, ENC_DECODE, 0, 0, data, size);
  FUZZ_CHECK(r.rc == 0 && r.len <= size);
  fz_stream(codec, ENC_DECODE, 0, 0, data, size, h[1], &r);
  fz_free(&r);
  return 0;
}
