// peer_boringssl.c: the BoringSSL peer of bench_encodify. EVP_EncodeBlock and
// EVP_DecodeBase64 are BoringSSL's one-shot, constant-time Base64 for a single
// line; EVP_DecodeBase64 rejects line breaks, so the MIME-wrapped benchmark
// uses the streaming EVP_DecodeUpdate/EVP_DecodeFinal, which skips them (its
// encoder wraps at 64 columns, which matches nothing we measure).
#include <limits.h>

#include <openssl/base64.h>

#include "bench_internal.h"

static int boringssl_b64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                size_t in_len) {
  return EVP_DecodeBase64(out, out_len, out_cap, in, in_len) == 1 ? 0 : 1;
}

static int boringssl_b64_decode_mime(uint8_t *out, size_t out_cap, size_t *out_len,
                                     const uint8_t *in, size_t in_len) {
  EVP_ENCODE_CTX ctx;
  int n = 0, tail = 0;
  if (in_len > INT_MAX || out_cap < in_len / 4 * 3 + 3)
    return 1;
  EVP_DecodeInit(&ctx);
  if (EVP_DecodeUpdate(&ctx, out, &n, in, in_len) < 0 || EVP_DecodeFinal(&ctx, out + n, &tail) < 0)
    return 1;
  *out_len = (size_t)n + (size_t)tail;
  return 0;
}

// EVP_DecodeUpdate over BENCH_PIECE pieces, one context throughout.
static int boringssl_b64_decode_mime_4k(uint8_t *out, size_t out_cap, size_t *out_len,
                                        const uint8_t *in, size_t in_len) {
  EVP_ENCODE_CTX ctx;
  int n = 0;
  if (out_cap < in_len / 4 * 3 + 3)
    return 1;
  EVP_DecodeInit(&ctx);
  size_t o = 0;
  for (size_t i = 0; i < in_len; i += BENCH_PIECE) {
    size_t k = in_len - i < BENCH_PIECE ? in_len - i : BENCH_PIECE;
    if (EVP_DecodeUpdate(&ctx, out + o, &n, in + i, k) < 0)
      return 1;
    o += (size_t)n;
  }
  if (EVP_DecodeFinal(&ctx, out + o, &n) < 0)
    return 1;
  *out_len = o + (size_t)n;
  return 0;
}

static int boringssl_b64_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                size_t in_len) {
  size_t need;
  // EVP_EncodedLength counts the NUL that EVP_EncodeBlock writes.
  if (!EVP_EncodedLength(&need, in_len) || out_cap < need)
    return 1;
  *out_len = EVP_EncodeBlock(out, in, in_len);
  return 0;
}

static const struct bench_op_fn boringssl_ops[] = {
    {BENCH_B64_DECODE, boringssl_b64_decode, 0},
    {BENCH_B64_DECODE_MIME, boringssl_b64_decode_mime, 0},
    {BENCH_B64_DECODE_MIME_4K, boringssl_b64_decode_mime_4k, 0},
    {BENCH_B64_ENCODE, boringssl_b64_encode, 0},
    {0, NULL, 0},
};

const struct bench_codec bench_peer_boringssl = {"boringssl", NULL, boringssl_ops};
