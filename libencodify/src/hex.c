// hex.c: the hex codec, two digits per byte (lower or upper case when
// encoding, either case when decoding, strict). Scalar only: hex is not on a
// hot path of mail processing.
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

void enc_hexe_init(struct enc_stream_state *st) {
  (void)st;
}

size_t enc_hexe_max(const struct enc_stream_state *st, size_t in_len) {
  (void)st;
  return enc_mul_sat(in_len, 2);
}

int enc_hexe_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  const char *digits = (st->flags & ENC_FLAG_UPPER) ? enc_hex_digits_upper : enc_hex_digits_lower;
  ENC_FAIL_IF(in_len > SIZE_MAX / 2 || out_cap < in_len * 2, ENC_ERR_BUFFER_TOO_SMALL);
  for (size_t i = 0; i < in_len; i++) {
    out[2 * i] = (uint8_t)digits[in[i] >> 4];
    out[2 * i + 1] = (uint8_t)digits[in[i] & 15];
  }
  *written = in_len * 2;
  return 0;
}

int enc_hexe_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  (void)st;
  (void)out;
  (void)out_cap;
  *written = 0;
  return 0;
}

void enc_hexd_init(struct enc_stream_state *st) {
  memset(&st->u.hexd, 0, sizeof st->u.hexd);
}

size_t enc_hexd_max(const struct enc_stream_state *st, size_t in_len) {
  return enc_add_sat(in_len, st->u.hexd.have) / 2;
}

int enc_hexd_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  struct enc_hexdec_state *h = &st->u.hexd;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++) {
    int v = enc_hex_value(in[i]);
    st->err_off = st->pos + i;
    ENC_FAIL_IF(v < 0, ENC_ERR_INVALID_CHAR);
    if (!h->have) {
      h->hi = (uint8_t)v;
      h->have = 1;
      continue;
    }
    ENC_FAIL_IF(o >= out_cap, ENC_ERR_BUFFER_TOO_SMALL);
    out[o++] = (uint8_t)(h->hi << 4 | v);
    h->have = 0;
  }
  *written = o;
  return 0;
}

int enc_hexd_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  (void)out;
  (void)out_cap;
  *written = 0;
  st->err_off = st->pos;
  ENC_FAIL_IF(st->u.hexd.have, ENC_ERR_TRUNCATED);
  return 0;
}
