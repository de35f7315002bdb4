// peer_libb64.c: the libb64 peer of bench_encodify (Debian's libb64, the
// classic public-domain step decoder). Its decoder skips anything outside the
// alphabet, so it takes part in the Base64 decoding benchmarks. Its encoder
// always breaks lines after 72 characters with a bare LF, which matches none
// of our encoding operations, so it is not measured for encoding.
#include <limits.h>

#include <b64/cdecode.h>

#include "bench_internal.h"

static int libb64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                         size_t in_len) {
  base64_decodestate state;
  if (in_len > INT_MAX || out_cap < in_len / 4 * 3 + 3)
    return 1;
  base64_init_decodestate(&state);
  int n = base64_decode_block((const char *)in, (int)in_len, (char *)out, &state);
  if (n < 0)
    return 1;
  *out_len = (size_t)n;
  return 0;
}

// base64_decode_block over BENCH_PIECE pieces, one state throughout.
static int libb64_decode_4k(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                            size_t in_len) {
  base64_decodestate state;
  if (out_cap < in_len / 4 * 3 + 3)
    return 1;
  base64_init_decodestate(&state);
  size_t o = 0;
  for (size_t i = 0; i < in_len; i += BENCH_PIECE) {
    int k = (int)(in_len - i < BENCH_PIECE ? in_len - i : BENCH_PIECE);
    int n = base64_decode_block((const char *)in + i, k, (char *)out + o, &state);
    if (n < 0)
      return 1;
    o += (size_t)n;
  }
  *out_len = o;
  return 0;
}

static const struct bench_op_fn libb64_ops[] = {
    {BENCH_B64_DECODE, libb64_decode, 0},
    {BENCH_B64_DECODE_MIME, libb64_decode, 0},
    {BENCH_B64_DECODE_MIME_4K, libb64_decode_4k, 0},
    {0, NULL, 0},
};

const struct bench_codec bench_peer_libb64 = {"libb64", NULL, libb64_ops};
