// fuzz_qp_decode.c: quoted-printable and RFC 2047 "Q" decoding of arbitrary
// input: every implementation against scalar (the state machine), streaming
// against one-shot, never an error, never longer than the input; and every
// implementation with an output buffer of exactly the decoded length (which
// stops a vector kernel in mid-input) and one byte less (an error).
// Input: option byte, split byte, then the text.
#include "fuzz_util.h"

// check_exact_capacity decodes `in` with each implementation into a heap
// buffer of exactly `want->len` bytes and of one byte less.
static void check_exact_capacity(enc_codec codec, const uint8_t *in, size_t in_len,
                                 const struct fz_result *want) {
  uint8_t *out = malloc(want->len ? want->len : 1);
  FUZZ_CHECK(out != NULL);
  for (size_t i = 0; i < enc_impl_count(); i++) {
    int supported;
    const char *name = enc_impl_get(i, &supported);
    if (!supported)
      continue;
    FUZZ_CHECK(enc_impl_force(name) == 0);
    size_t len = 0;
    FUZZ_CHECK(enc_decode(codec, 0, out, want->len, &len, in, in_len, NULL) == 0);
    FUZZ_CHECK(len == want->len && (len == 0 || memcmp(out, want->data, len) == 0));
    if (want->len > 0)
      FUZZ_CHECK(enc_decode(codec, 0, out, want->len - 1, &len, in, in_len, NULL) ==
                 ENC_ERR_BUFFER_TOO_SMALL);
  }
  FUZZ_CHECK(enc_impl_force(NULL) == 0);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t h[2];
  if (!fz_header(&data, &size, h, 2))
    return 0;
  enc_codec codec = h[0] & 1 ? ENC_CODEC_Q : ENC_CODEC_QP;
  struct fz_result r = fz_all_impls(codec, ENC_DECODE, 0, 0, data, size);
  FUZZ_CHECK(r.rc == 0 && r.len <= size);
  fz_stream(codec, ENC_DECODE, 0, 0, data, size, h[1], &r);
  check_exact_capacity(codec, data, size, &r);
  fz_free(&r);
  return 0;
}
