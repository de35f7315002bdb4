// base32.c: the scalar Base32 and base32hex codecs of RFC 4648 §6 and §7
// (upper-case alphabets, optional padding, strict decoding with error
// offsets); this file is the specification that every kernel must match. The
// stream engines drive the selected kernels over whole 5-byte / 8-character
// groups and handle partial groups, padding and errors themselves.
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

const char enc_b32_alpha_std[33] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const char enc_b32_alpha_hex[33] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

const uint8_t enc_b32_dtab_std[256] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff,
    0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

const uint8_t enc_b32_dtab_hex[256] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff,
    0xff, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
    0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

// Characters that `rem` (0-4) final bytes become, without padding.
static const uint8_t partial_chars[5] = {0, 2, 4, 5, 7};
// Bytes that a final group of n characters gives (0 where n is not valid).
static const uint8_t partial_bytes[8] = {0, 0, 1, 0, 2, 3, 0, 4};

// Encoding.

void enc_b32e_init(struct enc_stream_state *st) {
  memset(&st->u.b32e, 0, sizeof st->u.b32e);
}

static size_t final_len(size_t rem, int nopad) {
  if (rem == 0)
    return 0;
  return nopad ? partial_chars[rem] : 8;
}

size_t enc_b32e_max(const struct enc_stream_state *st, size_t in_len) {
  size_t total = enc_add_sat(st->u.b32e.ncarry, in_len);
  return enc_add_sat(enc_mul_sat(total / 5, 8),
                     final_len(total % 5, (st->flags & ENC_FLAG_NOPAD) != 0));
}

int enc_b32e_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_b32enc_state *e = &st->u.b32e;
  int hex = (st->flags & ENC_FLAG_BASE32HEX) != 0;
  size_t total = e->ncarry + in_len;
  ENC_FAIL_IF(total < in_len || total / 5 > SIZE_MAX / 8, ENC_ERR_BUFFER_TOO_SMALL);
  ENC_FAIL_IF(out_cap < total / 5 * 8, ENC_ERR_BUFFER_TOO_SMALL);
  char *o = (char *)out;
  size_t i = 0;
  if (e->ncarry != 0) {
    if (total < 5) {
      memcpy(e->carry + e->ncarry, in, in_len);
      e->ncarry = (uint8_t)total;
      *written = 0;
      return 0;
    }
    uint8_t g[5];
    memcpy(g, e->carry, e->ncarry);
    i = 5 - e->ncarry;
    memcpy(g + e->ncarry, in, i);
    e->ncarry = 0;
    enc_b32_encode_tail(o, g, 5, hex);
    o += 8;
  }
  size_t bytes = (in_len - i) / 5 * 5;
  size_t c = im->b32_encode(o, in + i, bytes, hex);
  c += enc_b32_encode_tail(o + c / 5 * 8, in + i + c, bytes - c, hex);
  o += c / 5 * 8;
  i += c;
  memcpy(e->carry, in + i, in_len - i);
  e->ncarry = (uint8_t)(in_len - i);
  *written = (size_t)(o - (char *)out);
  return 0;
}

int enc_b32e_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_b32enc_state *e = &st->u.b32e;
  const char *abc = (st->flags & ENC_FLAG_BASE32HEX) ? enc_b32_alpha_hex : enc_b32_alpha_std;
  size_t n = final_len(e->ncarry, (st->flags & ENC_FLAG_NOPAD) != 0);
  ENC_FAIL_IF(out_cap < n, ENC_ERR_BUFFER_TOO_SMALL);
  *written = n;
  if (n == 0)
    return 0;
  uint64_t v = 0;
  for (int j = 0; j < 5; j++)
    v = v << 8 | (j < e->ncarry ? e->carry[j] : 0);
  size_t chars = partial_chars[e->ncarry];
  for (size_t j = 0; j < n; j++)
    out[j] = j < chars ? (uint8_t)abc[(v >> (35 - 5 * j)) & 31] : '=';
  e->ncarry = 0;
  return 0;
}

// Decoding.

void enc_b32d_init(struct enc_stream_state *st) {
  memset(&st->u.b32d, 0, sizeof st->u.b32d);
}

size_t enc_b32d_max(const struct enc_stream_state *st, size_t in_len) {
  // With padding, a group may end after fewer characters than t % 8 (e.g.
  // 5 characters and one "="), so take the most any shorter group gives.
  static const uint8_t most_bytes[8] = {0, 0, 1, 1, 2, 3, 3, 4};
  size_t t = enc_add_sat(st->u.b32d.nacc, in_len);
  return t / 8 * 5 + most_bytes[t % 8];
}

// finish_group checks and writes a final group of d->nacc characters whose
// last character is at absolute offset `last`.
static int finish_group(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *o,
                        size_t last) {
  struct enc_b32dec_state *d = &st->u.b32d;
  size_t nbytes = partial_bytes[d->nacc];
  unsigned extra = d->nacc * 5 - (unsigned)nbytes * 8;
  st->err_off = last;
  ENC_FAIL_IF(d->acc & ((1u << extra) - 1), ENC_ERR_TRAILING_BITS);
  ENC_FAIL_IF(out_cap - *o < nbytes, ENC_ERR_BUFFER_TOO_SMALL);
  uint64_t v = d->acc >> extra;
  for (size_t j = 0; j < nbytes; j++)
    out[(*o)++] = (uint8_t)(v >> (8 * (nbytes - 1 - j)));
  return 0;
}

static int strict_char(struct enc_stream_state *st, const uint8_t *dt, uint8_t *out, size_t out_cap,
                       size_t *o, uint8_t c, size_t off) {
  struct enc_b32dec_state *d = &st->u.b32d;
  uint8_t v = dt[c];
  st->err_off = off;
  switch (d->mode) {
  case ENC_B64D_NORMAL:
    if (v < 32) {
      d->acc = d->acc << 5 | v;
      if (++d->nacc == 8) {
        ENC_FAIL_IF(out_cap - *o < 5, ENC_ERR_BUFFER_TOO_SMALL);
        for (int j = 0; j < 5; j++)
          out[(*o)++] = (uint8_t)(d->acc >> (32 - 8 * j));
        d->acc = 0;
        d->nacc = 0;
      }
      return 0;
    }
    ENC_FAIL_IF(v != ENC_DTAB_PAD || (st->flags & ENC_FLAG_NOPAD), ENC_ERR_INVALID_CHAR);
    ENC_FAIL_IF(partial_bytes[d->nacc] == 0, ENC_ERR_BAD_PADDING);
    ENC_TRY(finish_group(st, out, out_cap, o, off - 1));
    d->need = (uint8_t)(7 - d->nacc);
    d->mode = d->need ? ENC_B64D_PADDING : ENC_B64D_DONE;
    d->acc = 0;
    d->nacc = 0;
    return 0;
  case ENC_B64D_PADDING:
    ENC_FAIL_IF(v != ENC_DTAB_PAD, ENC_ERR_BAD_PADDING);
    if (--d->need == 0)
      d->mode = ENC_B64D_DONE;
    return 0;
  default: // data after the padding
    ENC_LOG_ERROR(ENC_ERR_BAD_PADDING);
    return ENC_ERR_BAD_PADDING;
  }
}

int enc_b32d_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_b32dec_state *d = &st->u.b32d;
  int hex = (st->flags & ENC_FLAG_BASE32HEX) != 0;
  const uint8_t *dt = hex ? enc_b32_dtab_hex : enc_b32_dtab_std;
  const char *s = (const char *)in;
  size_t i = 0, o = 0, w;
  for (; i < in_len && (d->nacc != 0 || d->mode != ENC_B64D_NORMAL); i++)
    ENC_TRY(strict_char(st, dt, out, out_cap, &o, in[i], st->pos + i));
  if (i < in_len) {
    i += im->b32_decode(out + o, out_cap - o, &w, s + i, in_len - i, hex);
    o += w;
    i += enc_b32_decode_tail(out + o, out_cap - o, &w, s + i, in_len - i, hex);
    o += w;
  }
  for (; i < in_len; i++)
    ENC_TRY(strict_char(st, dt, out, out_cap, &o, in[i], st->pos + i));
  *written = o;
  return 0;
}

int enc_b32d_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_b32dec_state *d = &st->u.b32d;
  size_t o = 0;
  *written = 0;
  st->err_off = st->pos;
  ENC_FAIL_IF(d->mode == ENC_B64D_PADDING, ENC_ERR_BAD_PADDING);
  if (d->mode == ENC_B64D_NORMAL && d->nacc != 0) {
    ENC_FAIL_IF(partial_bytes[d->nacc] == 0, ENC_ERR_TRUNCATED);
    ENC_FAIL_IF(!(st->flags & ENC_FLAG_NOPAD), ENC_ERR_BAD_PADDING);
    ENC_TRY(finish_group(st, out, out_cap, &o, st->pos - 1));
  }
  *written = o;
  return 0;
}
