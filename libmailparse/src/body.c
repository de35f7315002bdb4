// body.c: decoding of one part's body by its Content-Transfer-Encoding
// through libencodify (lenient MIME Base64 and quoted-printable): lazily,
// into a caller buffer, with a bound and an exact size query that needs no
// buffer; or fed piece by piece by the structure scan to a caller's sink
// (mp_message_parse_bodies()), with the same output.
#include <string.h>

#include "core_internal.h"
#include "encodify.h"
#include "feed_internal.h"

static int map_enc_err(int rc) {
  if (rc == ENC_ERR_BUFFER_TOO_SMALL)
    return MP_ERR_BUFFER_TOO_SMALL;
  return MP_ERR_ENCODING;
}

size_t mp_part_decode_max_len(const mp_message *msg, uint32_t part) {
  if (msg == NULL || part >= msg->num_parts)
    return 0;
  const mp_part *p = mp_part_at(msg, part);
  if (p->flags & MP_PART_MULTIPART)
    return p->body.len;
  switch (p->encoding) {
  case MP_ENCODING_BASE64:
    return enc_base64_decode_max_len(p->body.len);
  case MP_ENCODING_QP:
    return enc_decode_max_len(ENC_CODEC_QP, 0, p->body.len);
  default:
    return p->body.len;
  }
}

// exact_size streams the body through the decoder into a small stack buffer
// and counts the output, so a size query needs no allocation.
static int exact_size(enc_codec codec, uint32_t flags, const uint8_t *in, size_t in_len,
                      size_t *out_len) {
  enc_stream st;
  int rc = enc_stream_init(&st, codec, ENC_DECODE, flags, 0);
  if (rc != 0)
    return MP_ERR_ENCODING;
  uint8_t tmp[4096];
  size_t total = 0, n;
  // Quoted-printable output never exceeds its input, Base64 is 3/4 of it,
  // and the stream holds back at most a few bytes: 3072-byte chunks fit.
  const size_t chunk = 3072;
  for (size_t off = 0; off < in_len; off += chunk) {
    size_t take = in_len - off < chunk ? in_len - off : chunk;
    rc = enc_stream_update(&st, tmp, sizeof tmp, &n, in + off, take, NULL);
    if (rc != 0)
      return map_enc_err(rc);
    total += n;
  }
  rc = enc_stream_final(&st, tmp, sizeof tmp, &n, NULL);
  if (rc != 0)
    return map_enc_err(rc);
  *out_len = total + n;
  return 0;
}

int mp_part_decode(const mp_message *msg, uint32_t part, void *out, size_t out_cap,
                   size_t *out_len) {
  if (out_len != NULL)
    *out_len = 0;
  if (msg == NULL || out_len == NULL || part >= msg->num_parts || (out == NULL && out_cap > 0))
    return MP_ERR_INVALID_ARGUMENT;
  const mp_part *p = mp_part_at(msg, part);
  const uint8_t *in = msg->data + p->body.off;
  size_t in_len = p->body.len;
  enc_codec codec = 0;
  uint32_t flags = 0;
  if (!(p->flags & MP_PART_MULTIPART)) {
    if (p->encoding == MP_ENCODING_BASE64) {
      codec = ENC_CODEC_BASE64;
      flags = ENC_FLAG_MIME;
    } else if (p->encoding == MP_ENCODING_QP) {
      codec = ENC_CODEC_QP;
    }
  }
  if (out == NULL) {
    if (codec == 0) {
      *out_len = in_len;
      return 0;
    }
    return exact_size(codec, flags, in, in_len, out_len);
  }
  if (codec == 0) {
    if (out_cap < in_len)
      return MP_ERR_BUFFER_TOO_SMALL;
    if (in_len > 0)
      memcpy(out, in, in_len);
    *out_len = in_len;
    return 0;
  }
  size_t n = 0;
  int rc = enc_decode(codec, flags, out, out_cap, &n, in, in_len, NULL);
  if (rc != 0)
    return map_enc_err(rc);
  *out_len = n;
  return 0;
}

// The piece decoded at once: small enough that its output fits in a stack
// buffer and stays in L1/L2 for the sink, large enough that the per-call
// cost vanishes. A piece ends after a line feed when it can, so that a
// Base64 body of whole lines starts every piece on a group boundary, where
// libencodify's vector kernel applies (a split elsewhere is still correct).
#define MP_FEED_PIECE 16384

int mp_feed_begin(mp_feed *f, const mp_body_sink *sink, const mp_part *rec, uint32_t part,
                  size_t off) {
  mp_encoding enc = rec->encoding;
  f->sink = sink;
  f->rec = rec;
  f->part = part;
  f->pos = off;
  f->active = true;
  f->codec = 0;
  uint32_t flags = 0;
  if (enc == MP_ENCODING_BASE64) {
    f->codec = ENC_CODEC_BASE64;
    flags = ENC_FLAG_MIME;
  } else if (enc == MP_ENCODING_QP) {
    f->codec = ENC_CODEC_QP;
  }
  if (f->codec != 0 && enc_stream_init(&f->st, (enc_codec)f->codec, ENC_DECODE, flags, 0) != 0)
    return MP_ERR_ENCODING;
  return 0;
}

int mp_feed_bytes(mp_feed *f, const uint8_t *data, size_t upto) {
  if (!f->active || f->codec == 0)
    return 0;
  uint8_t out[MP_FEED_PIECE + 64];
  while (f->pos < upto) {
    size_t n = upto - f->pos;
    if (n > MP_FEED_PIECE) {
      n = MP_FEED_PIECE;
      const uint8_t *lf = memrchr(data + f->pos + n / 2, '\n', n - n / 2);
      if (lf != NULL)
        n = (size_t)(lf - (data + f->pos)) + 1;
    }
    size_t w = 0;
    // Base64 writes 3/4 of its input and QP no more than its input, plus
    // the few bytes a stream holds back: `out` always has room.
    if (enc_stream_update(&f->st, out, sizeof out, &w, data + f->pos, n, NULL) != 0)
      return MP_ERR_ENCODING;
    f->pos += n;
    if (w > 0) {
      int rc = f->sink->data(f->sink->opaque, f->rec, f->part, out, w);
      if (rc != 0)
        return rc;
    }
  }
  return 0;
}

int mp_feed_end(mp_feed *f, const uint8_t *data, size_t off, size_t end) {
  if (!f->active)
    return 0;
  f->active = false;
  int rc = 0;
  if (f->codec == 0) {
    if (end > off)
      rc = f->sink->data(f->sink->opaque, f->rec, f->part, data + off, end - off);
  } else {
    f->active = true;
    rc = mp_feed_bytes(f, data, end);
    f->active = false;
    uint8_t out[64];
    size_t w = 0;
    if (rc == 0 && enc_stream_final(&f->st, out, sizeof out, &w, NULL) != 0)
      rc = MP_ERR_ENCODING;
    if (rc == 0 && w > 0)
      rc = f->sink->data(f->sink->opaque, f->rec, f->part, out, w);
  }
  if (rc == 0 && f->sink->end != NULL)
    rc = f->sink->end(f->sink->opaque, f->rec, f->part);
  return rc;
}
