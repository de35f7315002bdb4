// qp.c: the scalar quoted-printable codec of RFC 2045 §6.7 (body encoding
// with 76-column lines and soft line breaks, text and binary modes; lenient
// decoding that removes soft breaks and trailing white space) and the RFC
// 2047 "Q" encoding of header words. This file is the specification: the
// decoder is a state machine fed one character at a time, the encoder decides
// each byte from the two bytes after it, and the kernels only take over the
// stretches where that gives the same bytes.
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

static int is_ws(uint8_t c) {
  return c == ' ' || c == '\t';
}

static int put(uint8_t *out, size_t out_cap, size_t *o, const void *p, size_t n) {
  ENC_FAIL_IF(out_cap - *o < n, ENC_ERR_BUFFER_TOO_SMALL);
  memcpy(out + *o, p, n);
  *o += n;
  return 0;
}

// Quoted-printable decoding.

void enc_qpd_init(struct enc_stream_state *st) {
  st->u.qpd.npend = 0;
  st->u.qpd.mode = ENC_QPD_TEXT;
}

size_t enc_qpd_max(const struct enc_stream_state *st, size_t in_len) {
  return enc_add_sat(st->u.qpd.npend, in_len);
}

// flush writes the held-back bytes as they are.
static int flush(struct enc_qpdec_state *q, uint8_t *out, size_t out_cap, size_t *o) {
  ENC_TRY(put(out, out_cap, o, q->pend, q->npend));
  q->npend = 0;
  return 0;
}

static int qpd_char(struct enc_qpdec_state *q, uint8_t *out, size_t out_cap, size_t *o, uint8_t c) {
  for (;;) {
    switch (q->mode) {
    case ENC_QPD_TEXT:
      if (is_ws(c)) {
        if (q->npend < ENC_QP_MAX_SPACE_RUN) {
          q->pend[q->npend++] = c;
          return 0;
        }
        ENC_TRY(flush(q, out, out_cap, o));
        q->mode = ENC_QPD_LONGWS;
        return put(out, out_cap, o, &c, 1);
      }
      if (c == '\r') {
        q->pend[q->npend++] = c;
        q->mode = ENC_QPD_TEXT_CR;
        return 0;
      }
      if (c == '\n') { // trailing white space goes
        q->npend = 0;
        return put(out, out_cap, o, &c, 1);
      }
      ENC_TRY(flush(q, out, out_cap, o));
      if (c == '=') {
        q->pend[q->npend++] = c;
        q->mode = ENC_QPD_EQ;
        return 0;
      }
      return put(out, out_cap, o, &c, 1);
    case ENC_QPD_TEXT_CR:
      if (c == '\n') {
        q->npend = 0;
        q->mode = ENC_QPD_TEXT;
        return put(out, out_cap, o, "\r\n", 2);
      }
      ENC_TRY(flush(q, out, out_cap, o)); // a lone CR: white space before it stays
      q->mode = ENC_QPD_TEXT;
      continue;
    case ENC_QPD_LONGWS:
      if (is_ws(c))
        return put(out, out_cap, o, &c, 1);
      q->mode = ENC_QPD_TEXT;
      continue;
    case ENC_QPD_EQ:
      if (enc_hex_value(c) >= 0) {
        q->pend[q->npend++] = c;
        q->mode = ENC_QPD_EQ_HEX1;
        return 0;
      }
      if (is_ws(c) || c == '\r') {
        q->pend[q->npend++] = c;
        q->mode = c == '\r' ? ENC_QPD_EQ_CR : ENC_QPD_EQ_WS;
        return 0;
      }
      if (c == '\n') { // soft line break
        q->npend = 0;
        q->mode = ENC_QPD_TEXT;
        return 0;
      }
      ENC_TRY(flush(q, out, out_cap, o)); // a literal "="
      q->mode = ENC_QPD_TEXT;
      continue;
    case ENC_QPD_EQ_HEX1: {
      int lo = enc_hex_value(c);
      if (lo >= 0) {
        uint8_t b = (uint8_t)(enc_hex_value(q->pend[1]) << 4 | lo);
        ENC_TRY(put(out, out_cap, o, &b, 1));
        q->npend = 0;
        q->mode = ENC_QPD_TEXT;
        return 0;
      }
      ENC_TRY(flush(q, out, out_cap, o));
      q->mode = ENC_QPD_TEXT;
      continue;
    }
    case ENC_QPD_EQ_WS:
      if (is_ws(c)) {
        if (q->npend <= ENC_QP_MAX_SPACE_RUN) {
          q->pend[q->npend++] = c;
          return 0;
        }
        ENC_TRY(flush(q, out, out_cap, o)); // too long for a soft break
        q->mode = ENC_QPD_LONGWS;
        return put(out, out_cap, o, &c, 1);
      }
      if (c == '\r') {
        q->pend[q->npend++] = c;
        q->mode = ENC_QPD_EQ_CR;
        return 0;
      }
      if (c == '\n') { // soft line break with transport padding
        q->npend = 0;
        q->mode = ENC_QPD_TEXT;
        return 0;
      }
      ENC_TRY(flush(q, out, out_cap, o));
      q->mode = ENC_QPD_TEXT;
      continue;
    default: // ENC_QPD_EQ_CR
      q->mode = ENC_QPD_TEXT;
      if (c == '\n') {
        q->npend = 0;
        return 0;
      }
      ENC_TRY(flush(q, out, out_cap, o));
      continue;
    }
  }
}

int enc_qpd_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                   size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_qpdec_state *q = &st->u.qpd;
  size_t i = 0, o = 0, w;
  while (i < in_len) {
    if (q->mode == ENC_QPD_TEXT && q->npend == 0) {
      i += im->qp_decode(out + o, out_cap - o, &w, (const char *)in + i, in_len - i);
      o += w;
      i += enc_qp_decode_tail(out + o, out_cap - o, &w, (const char *)in + i, in_len - i);
      o += w;
      if (i == in_len)
        break;
    }
    ENC_TRY(qpd_char(q, out, out_cap, &o, in[i]));
    i++;
  }
  *written = o;
  return 0;
}

int enc_qpd_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_qpdec_state *q = &st->u.qpd;
  size_t o = 0;
  switch (q->mode) {
  case ENC_QPD_TEXT_CR: // white space and a lone CR
  case ENC_QPD_EQ_HEX1: // "=X"
  case ENC_QPD_EQ_CR:   // "=", white space and a lone CR
    ENC_TRY(flush(q, out, out_cap, &o));
    break;
  default: // trailing white space, or a soft line break at the end
    q->npend = 0;
    break;
  }
  q->mode = ENC_QPD_TEXT;
  *written = o;
  return 0;
}

// Quoted-printable encoding.

void enc_qpe_init(struct enc_stream_state *st) {
  memset(&st->u.qpe, 0, sizeof st->u.qpe);
}

size_t enc_qpe_max(const struct enc_stream_state *st, size_t in_len) {
  // Every byte becomes at most 3 characters, and a soft line break (3 more)
  // follows at least 73 characters.
  size_t chars = enc_mul_sat(enc_add_sat(in_len, st->u.qpe.nhold), 3);
  return enc_add_sat(chars, enc_mul_sat(enc_add_sat(chars / 73, 1), 3));
}

// step_exact encodes one unit with an exact capacity check.
static int step_exact(struct enc_qpenc_state *e, int binary, uint8_t *out, size_t out_cap,
                      size_t *o, const uint8_t *in, size_t avail, size_t *used) {
  char t[6];
  size_t tl;
  uint32_t col = e->col;
  size_t u = enc_qp_encode_step(t, &tl, in, avail, binary, &col);
  ENC_TRY(put(out, out_cap, o, t, tl));
  e->col = col;
  *used = u;
  return 0;
}

int enc_qpe_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                   size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_qpenc_state *e = &st->u.qpe;
  int binary = (st->flags & ENC_FLAG_BINARY) != 0;
  size_t o = 0, i = 0, used, w;
  if (e->nhold != 0) { // bytes from the last call, now with their lookahead
    uint8_t t[4];
    size_t nh = e->nhold, take = in_len < 2 ? in_len : 2, tl = nh + take, k = 0;
    memcpy(t, e->hold, nh);
    memcpy(t + nh, in, take);
    while (k < nh && tl - k > 2) {
      ENC_TRY(step_exact(e, binary, out, out_cap, &o, t + k, tl - k, &used));
      k += used;
    }
    if (k < nh) { // still too little lookahead: hold everything
      memcpy(e->hold, t + k, tl - k);
      e->nhold = (uint8_t)(tl - k);
      *written = o;
      return 0;
    }
    i = k - nh;
    e->nhold = 0;
  }
  if (in_len - i > 2) {
    i += im->qp_encode((char *)out + o, out_cap - o, &w, in + i, in_len - i, binary, &e->col);
    o += w;
    i += enc_qp_encode_tail((char *)out + o, out_cap - o, &w, in + i, in_len - i, binary, &e->col);
    o += w;
  }
  while (in_len - i > 2) {
    ENC_TRY(step_exact(e, binary, out, out_cap, &o, in + i, in_len - i, &used));
    i += used;
  }
  memcpy(e->hold, in + i, in_len - i);
  e->nhold = (uint8_t)(in_len - i);
  *written = o;
  return 0;
}

int enc_qpe_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_qpenc_state *e = &st->u.qpe;
  int binary = (st->flags & ENC_FLAG_BINARY) != 0;
  size_t o = 0, k = 0, used;
  while (k < e->nhold) {
    ENC_TRY(step_exact(e, binary, out, out_cap, &o, e->hold + k, e->nhold - k, &used));
    k += used;
  }
  e->nhold = 0;
  *written = o;
  return 0;
}

// RFC 2047 "Q" encoding.

// q_literal tells whether `c` may stand for itself in an encoded word.
static int q_literal(uint8_t c, int phrase) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
    return 1;
  if (phrase)
    return c == '!' || c == '*' || c == '+' || c == '-' || c == '/';
  return c >= 33 && c <= 126 && c != '=' && c != '?' && c != '_';
}

void enc_qe_init(struct enc_stream_state *st) {
  (void)st;
}

size_t enc_qe_max(const struct enc_stream_state *st, size_t in_len) {
  (void)st;
  return enc_mul_sat(in_len, 3);
}

int enc_qe_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                  size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  int phrase = (st->flags & ENC_FLAG_PHRASE) != 0;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++) {
    uint8_t c = in[i];
    if (c == ' ') {
      ENC_TRY(put(out, out_cap, &o, "_", 1));
    } else if (q_literal(c, phrase)) {
      ENC_TRY(put(out, out_cap, &o, &c, 1));
    } else {
      char t[3] = {'=', enc_hex_digits_upper[c >> 4], enc_hex_digits_upper[c & 15]};
      ENC_TRY(put(out, out_cap, &o, t, 3));
    }
  }
  *written = o;
  return 0;
}

int enc_qe_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  (void)st;
  (void)out;
  (void)out_cap;
  *written = 0;
  return 0;
}

void enc_qd_init(struct enc_stream_state *st) {
  st->u.qd.npend = 0;
}

size_t enc_qd_max(const struct enc_stream_state *st, size_t in_len) {
  return enc_add_sat(st->u.qd.npend, in_len);
}

int enc_qd_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                  size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  (void)im;
  struct enc_qdec_state *q = &st->u.qd;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++) {
    uint8_t c = in[i];
    if (q->npend != 0) {
      int v = enc_hex_value(c);
      if (v >= 0 && q->npend == 1) {
        q->pend[q->npend++] = c;
        continue;
      }
      if (v >= 0) {
        uint8_t b = (uint8_t)(enc_hex_value(q->pend[1]) << 4 | v);
        ENC_TRY(put(out, out_cap, &o, &b, 1));
        q->npend = 0;
        continue;
      }
      ENC_TRY(put(out, out_cap, &o, q->pend, q->npend)); // a malformed "=" stays
      q->npend = 0;
    }
    if (c == '=') {
      q->pend[q->npend++] = c;
    } else {
      uint8_t b = c == '_' ? ' ' : c;
      ENC_TRY(put(out, out_cap, &o, &b, 1));
    }
  }
  *written = o;
  return 0;
}

int enc_qd_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_qdec_state *q = &st->u.qd;
  size_t o = 0;
  ENC_TRY(put(out, out_cap, &o, q->pend, q->npend));
  q->npend = 0;
  *written = o;
  return 0;
}
