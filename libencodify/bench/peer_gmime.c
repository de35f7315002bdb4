// peer_gmime.c: the GMime peer of bench_encodify. It wraps GMime 3's
// one-shot use of its streaming encoders (g_mime_encoding_*_step and *_close,
// the code behind GMime's encoding filters) for Base64 and quoted-printable,
// so that each call converts a whole buffer with fresh state and no
// allocation. GMime writes its line breaks as bare LF (BENCH_LF_LINES) and
// always wraps Base64 at 76 columns, so it takes part in the wrapped encoding
// benchmark only; its Base64 decoder skips anything outside the alphabet, so
// it takes part in both decoding benchmarks, and in the one fed in pieces. Its QP encoder lets a
// line run to 79 characters now and then (BENCH_LONG_LINES).
#include <stdint.h>

#include <gmime/gmime.h>

#include "bench_internal.h"

static int gmime_init(void) {
  g_mime_init();
  return 0;
}

// gmime_b64_decode_pieces runs the decoder's step function over pieces of
// at most `piece` bytes with one state throughout (one piece: one call).
static int gmime_b64_decode_pieces(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                   size_t in_len, size_t piece) {
  int state = 0;
  guint32 save = 0;
  if (out_cap < in_len / 4 * 3 + 3)
    return 1;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i += piece) {
    size_t n = in_len - i < piece ? in_len - i : piece;
    o += g_mime_encoding_base64_decode_step(in + i, n, out + o, &state, &save);
  }
  *out_len = o;
  return 0;
}

static int gmime_b64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                            size_t in_len) {
  return gmime_b64_decode_pieces(out, out_cap, out_len, in, in_len, SIZE_MAX);
}

static int gmime_b64_decode_4k(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                               size_t in_len) {
  return gmime_b64_decode_pieces(out, out_cap, out_len, in, in_len, BENCH_PIECE);
}

static int gmime_b64_encode_wrap76(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                   size_t in_len) {
  int state = 0;
  guint32 save = 0;
  if (out_cap < GMIME_BASE64_ENCODE_LEN(in_len))
    return 1;
  *out_len = g_mime_encoding_base64_encode_close(in, in_len, out, &state, &save);
  return 0;
}

static int gmime_qp_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                           size_t in_len) {
  int state = -1; // the state g_mime_encoding_init_encode() sets for QP
  guint32 save = 0;
  if (out_cap < GMIME_QP_ENCODE_LEN(in_len))
    return 1;
  *out_len = g_mime_encoding_quoted_encode_close(in, in_len, out, &state, &save);
  return 0;
}

static int gmime_qp_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                           size_t in_len) {
  int state = 0;
  guint32 save = 0;
  if (out_cap < in_len)
    return 1;
  *out_len = g_mime_encoding_quoted_decode_step(in, in_len, out, &state, &save);
  return 0;
}

static const struct bench_op_fn gmime_ops[] = {
    {BENCH_B64_DECODE, gmime_b64_decode, 0},
    {BENCH_B64_DECODE_MIME, gmime_b64_decode, 0},
    {BENCH_B64_DECODE_MIME_4K, gmime_b64_decode_4k, 0},
    {BENCH_B64_ENCODE_WRAP76, gmime_b64_encode_wrap76, BENCH_LF_LINES},
    {BENCH_QP_ENCODE, gmime_qp_encode, BENCH_LF_LINES | BENCH_LONG_LINES},
    {BENCH_QP_ENCODE_BINARY, gmime_qp_encode, BENCH_LF_LINES | BENCH_LONG_LINES},
    {BENCH_QP_DECODE, gmime_qp_decode, 0},
    {0, NULL, 0},
};

const struct bench_codec bench_peer_gmime = {"gmime", gmime_init, gmime_ops};
