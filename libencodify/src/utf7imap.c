// utf7imap.c: IMAP modified UTF-7 (RFC 3501 §5.1.3, RFC 9051 §5.1.3), the
// encoding of mailbox names: UTF-8 to modified UTF-7 and back. Encoding
// validates the UTF-8 it is given; decoding accepts only the canonical form
// that the encoder writes, so that two spellings of one name cannot both
// pass. Both are scalar state machines that take one byte at a time.
#include <string.h>

#include "encodify_internal.h"

// Modified Base64: "," instead of "/", no padding.
static const char b64m[65] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

static int b64m_value(uint8_t c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == ',')
    return 63;
  return -1;
}

static int printable(uint32_t c) {
  return c >= 0x20 && c <= 0x7e;
}

static int put(uint8_t *out, size_t out_cap, size_t *o, const void *p, size_t n) {
  ENC_FAIL_IF(out_cap - *o < n, ENC_ERR_BUFFER_TOO_SMALL);
  memcpy(out + *o, p, n);
  *o += n;
  return 0;
}

// Encoding: UTF-8 to modified UTF-7.

void enc_u7e_init(struct enc_stream_state *st) {
  memset(&st->u.u7e, 0, sizeof st->u.u7e);
}

size_t enc_u7e_max(const struct enc_stream_state *st, size_t in_len) {
  // At worst a byte becomes "&" + 3 characters + "-" (a lone control
  // character); closing an open shift takes 2 more.
  return enc_add_sat(enc_mul_sat(enc_add_sat(in_len, st->u.u7e.nu8), 5), 2);
}

// close_shift writes the last bits and the "-" of an open shift into `t`.
static size_t close_shift(struct enc_u7enc_state *e, char *t) {
  size_t n = 0;
  if (!e->in_shift)
    return 0;
  if (e->nbits != 0)
    t[n++] = b64m[(e->bits << (6 - e->nbits)) & 63];
  t[n++] = '-';
  e->in_shift = 0;
  e->nbits = 0;
  e->bits = 0;
  return n;
}

static int encode_cp(struct enc_u7enc_state *e, uint8_t *out, size_t out_cap, size_t *o,
                     uint32_t cp) {
  char t[12];
  size_t n = 0;
  struct enc_u7enc_state next = *e;
  if (printable(cp)) {
    n = close_shift(&next, t);
    t[n++] = (char)cp;
    if (cp == '&')
      t[n++] = '-';
  } else {
    uint16_t units[2];
    size_t nu = 1;
    if (cp >= 0x10000) {
      units[0] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
      units[1] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
      nu = 2;
    } else {
      units[0] = (uint16_t)cp;
    }
    if (!next.in_shift) {
      t[n++] = '&';
      next.in_shift = 1;
    }
    for (size_t u = 0; u < nu; u++) {
      next.bits = next.bits << 16 | units[u];
      next.nbits += 16;
      while (next.nbits >= 6) {
        next.nbits -= 6;
        t[n++] = b64m[(next.bits >> next.nbits) & 63];
      }
      next.bits &= (1u << next.nbits) - 1;
    }
  }
  ENC_TRY(put(out, out_cap, o, t, n));
  *e = next;
  return 0;
}

// utf8_len returns the length of the sequence that lead byte `b` starts, or 0.
static size_t utf8_len(uint8_t b) {
  if (b < 0x80)
    return 1;
  if (b >= 0xC2 && b <= 0xDF)
    return 2;
  if (b >= 0xE0 && b <= 0xEF)
    return 3;
  if (b >= 0xF0 && b <= 0xF4)
    return 4;
  return 0;
}

// utf8_cont_ok tells whether `b` may follow `lead` as byte number `k` (1-3),
// which rules out overlong forms, surrogates and code points past U+10FFFF.
static int utf8_cont_ok(uint8_t lead, size_t k, uint8_t b) {
  if (k == 1) {
    if (lead == 0xE0)
      return b >= 0xA0 && b <= 0xBF;
    if (lead == 0xED)
      return b >= 0x80 && b <= 0x9F;
    if (lead == 0xF0)
      return b >= 0x90 && b <= 0xBF;
    if (lead == 0xF4)
      return b >= 0x80 && b <= 0x8F;
  }
  return b >= 0x80 && b <= 0xBF;
}

int enc_u7e_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                   size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  struct enc_u7enc_state *e = &st->u.u7e;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++) {
    uint8_t b = in[i];
    if (e->nu8 == 0) {
      size_t len = utf8_len(b);
      st->err_off = st->pos + i;
      ENC_FAIL_IF(len == 0, ENC_ERR_INVALID_UTF8);
      if (len == 1) {
        ENC_TRY(encode_cp(e, out, out_cap, &o, b));
        continue;
      }
      e->u8[0] = b;
      e->nu8 = 1;
      e->u8_off = st->pos + i;
      continue;
    }
    st->err_off = e->u8_off;
    ENC_FAIL_IF(!utf8_cont_ok(e->u8[0], e->nu8, b), ENC_ERR_INVALID_UTF8);
    e->u8[e->nu8++] = b;
    size_t len = utf8_len(e->u8[0]);
    if (e->nu8 < len)
      continue;
    uint32_t cp = e->u8[0] & (0x7F >> len);
    for (size_t k = 1; k < len; k++)
      cp = cp << 6 | (e->u8[k] & 0x3F);
    e->nu8 = 0;
    ENC_TRY(encode_cp(e, out, out_cap, &o, cp));
  }
  *written = o;
  return 0;
}

int enc_u7e_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_u7enc_state *e = &st->u.u7e;
  size_t o = 0;
  char t[2];
  *written = 0;
  st->err_off = e->u8_off;
  ENC_FAIL_IF(e->nu8 != 0, ENC_ERR_INVALID_UTF8);
  struct enc_u7enc_state next = *e;
  size_t n = close_shift(&next, t);
  ENC_TRY(put(out, out_cap, &o, t, n));
  *e = next;
  *written = o;
  return 0;
}

// Decoding: modified UTF-7 to UTF-8.

void enc_u7d_init(struct enc_stream_state *st) {
  memset(&st->u.u7d, 0, sizeof st->u.u7d);
  st->u.u7d.last_close = SIZE_MAX;
}

size_t enc_u7d_max(const struct enc_stream_state *st, size_t in_len) {
  // Each character gives 1 byte (printable ASCII) or 6 bits of UTF-16 (at
  // most 3 bytes of UTF-8 per 16 bits); held bits and a pending high
  // surrogate add a few bytes.
  (void)st;
  return enc_add_sat(enc_add_sat(in_len, in_len / 8 + 1), 8);
}

static int put_utf8(uint8_t *out, size_t out_cap, size_t *o, uint32_t cp) {
  uint8_t t[4];
  size_t n;
  if (cp < 0x80) {
    t[0] = (uint8_t)cp;
    n = 1;
  } else if (cp < 0x800) {
    t[0] = (uint8_t)(0xC0 | cp >> 6);
    t[1] = (uint8_t)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    t[0] = (uint8_t)(0xE0 | cp >> 12);
    t[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    t[2] = (uint8_t)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    t[0] = (uint8_t)(0xF0 | cp >> 18);
    t[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    t[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    t[3] = (uint8_t)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return put(out, out_cap, o, t, n);
}

static int u7d_char(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *o, uint8_t c,
                    size_t off) {
  struct enc_u7dec_state *d = &st->u.u7d;
  st->err_off = off;
  switch (d->mode) {
  case ENC_U7D_DIRECT:
    ENC_FAIL_IF(!printable(c), ENC_ERR_INVALID_CHAR);
    if (c == '&') {
      d->mode = ENC_U7D_AMP;
      d->shift_start = off;
      return 0;
    }
    return put(out, out_cap, o, &c, 1);
  case ENC_U7D_AMP: {
    if (c == '-') {
      d->mode = ENC_U7D_DIRECT;
      return put(out, out_cap, o, "&", 1);
    }
    int v = b64m_value(c);
    ENC_FAIL_IF(v < 0, ENC_ERR_INVALID_CHAR);
    st->err_off = d->shift_start;
    ENC_FAIL_IF(d->last_close == d->shift_start, ENC_ERR_NON_CANONICAL); // "-&" between shifts
    d->mode = ENC_U7D_SHIFT;
    d->bits = (uint32_t)v;
    d->nbits = 6;
    d->high = 0;
    return 0;
  }
  default: { // ENC_U7D_SHIFT
    if (c == '-') {
      ENC_FAIL_IF(d->high != 0, ENC_ERR_INVALID_UTF16);
      st->err_off = d->shift_start;
      ENC_FAIL_IF(d->nbits >= 6 || d->bits != 0, ENC_ERR_NON_CANONICAL);
      d->mode = ENC_U7D_DIRECT;
      d->last_close = off + 1;
      d->nbits = 0;
      return 0;
    }
    int v = b64m_value(c);
    ENC_FAIL_IF(v < 0, ENC_ERR_INVALID_CHAR);
    d->bits = d->bits << 6 | (uint32_t)v;
    d->nbits = (uint8_t)(d->nbits + 6);
    if (d->nbits < 16)
      return 0;
    d->nbits = (uint8_t)(d->nbits - 16);
    uint32_t unit = d->bits >> d->nbits;
    d->bits &= (1u << d->nbits) - 1;
    if (d->high != 0) {
      ENC_FAIL_IF(unit < 0xDC00 || unit > 0xDFFF, ENC_ERR_INVALID_UTF16);
      uint32_t cp = 0x10000 + ((uint32_t)(d->high - 0xD800) << 10) + (unit - 0xDC00);
      d->high = 0;
      return put_utf8(out, out_cap, o, cp);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      d->high = (uint16_t)unit;
      return 0;
    }
    ENC_FAIL_IF(unit >= 0xDC00 && unit <= 0xDFFF, ENC_ERR_INVALID_UTF16);
    st->err_off = d->shift_start;
    ENC_FAIL_IF(printable(unit), ENC_ERR_NON_CANONICAL);
    return put_utf8(out, out_cap, o, unit);
  }
  }
}

int enc_u7d_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                   size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++)
    ENC_TRY(u7d_char(st, out, out_cap, &o, in[i], st->pos + i));
  *written = o;
  return 0;
}

int enc_u7d_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  (void)out;
  (void)out_cap;
  *written = 0;
  st->err_off = st->pos;
  ENC_FAIL_IF(st->u.u7d.mode != ENC_U7D_DIRECT, ENC_ERR_TRUNCATED);
  return 0;
}
