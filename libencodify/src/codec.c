// codec.c: the public codec entry points: argument checks, the choice of the
// per-codec engine for a codec and direction, the stream API on top of the
// engines, and the one-shot calls, which drive the same engine over a state
// on the stack (one update, then final) so that one-shot and streaming
// output can never differ.
#include <string.h>

#include "encodify_internal.h"

struct engine {
  void (*init)(struct enc_stream_state *st);
  size_t (*max)(const struct enc_stream_state *st, size_t in_len);
  int (*update)(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                size_t out_cap, size_t *written, const uint8_t *in, size_t in_len);
  int (*final)(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written);
  uint32_t flags; // the flags that apply
  int wrap;       // whether `wrap` applies
};

#define ENGINE(prefix, flags, wrap)                                                                \
  { prefix##_init, prefix##_max, prefix##_update, prefix##_final, (flags), (wrap) }

// engines[codec - 1][dir - 1]
static const struct engine engines[6][2] = {
    {ENGINE(enc_b64e, ENC_FLAG_URL | ENC_FLAG_NOPAD, 1),
     ENGINE(enc_b64d, ENC_FLAG_URL | ENC_FLAG_NOPAD | ENC_FLAG_MIME, 0)},
    {ENGINE(enc_b32e, ENC_FLAG_BASE32HEX | ENC_FLAG_NOPAD, 0),
     ENGINE(enc_b32d, ENC_FLAG_BASE32HEX | ENC_FLAG_NOPAD, 0)},
    {ENGINE(enc_qpe, ENC_FLAG_BINARY, 0), ENGINE(enc_qpd, 0, 0)},
    {ENGINE(enc_qe, ENC_FLAG_PHRASE, 0), ENGINE(enc_qd, 0, 0)},
    {ENGINE(enc_u7e, 0, 0), ENGINE(enc_u7d, 0, 0)},
    {ENGINE(enc_hexe, ENC_FLAG_UPPER, 0), ENGINE(enc_hexd, 0, 0)},
};

static const struct engine *find_engine(int codec, int dir, uint32_t flags, size_t wrap) {
  if (codec < ENC_CODEC_BASE64 || codec > ENC_CODEC_HEX || (dir != ENC_ENCODE && dir != ENC_DECODE))
    return NULL;
  const struct engine *e = &engines[codec - 1][dir - 1];
  if ((flags & ~e->flags) != 0 || (wrap != 0 && !e->wrap))
    return NULL;
  if ((flags & ENC_FLAG_MIME) && (flags & ENC_FLAG_NOPAD))
    return NULL;
  return e;
}

static struct enc_stream_state *state(enc_stream *st) {
  return (struct enc_stream_state *)(void *)st;
}

static const struct enc_stream_state *cstate(const enc_stream *st) {
  return (const struct enc_stream_state *)(const void *)st;
}

static const struct engine *engine_of(const struct enc_stream_state *s) {
  return &engines[s->codec - 1][s->dir - 1];
}

int enc_stream_init(enc_stream *st, enc_codec codec, enc_direction dir, uint32_t flags,
                    size_t wrap) {
  ENC_FAIL_IF(st == NULL, ENC_ERR_INVALID_ARGUMENT);
  memset(st, 0, sizeof *st);
  const struct engine *e = find_engine((int)codec, (int)dir, flags, wrap);
  ENC_FAIL_IF(e == NULL, ENC_ERR_INVALID_ARGUMENT);
  struct enc_stream_state *s = state(st);
  s->codec = (uint8_t)codec;
  s->dir = (uint8_t)dir;
  s->flags = flags;
  s->wrap = wrap;
  e->init(s);
  s->magic = ENC_STREAM_MAGIC;
  return 0;
}

size_t enc_stream_max_len(const enc_stream *st, size_t in_len) {
  if (st == NULL)
    return 0;
  const struct enc_stream_state *s = cstate(st);
  if (s->magic != ENC_STREAM_MAGIC || s->err != 0 || s->finished)
    return 0;
  return engine_of(s)->max(s, in_len);
}

// check is the common prologue of update and final.
static int check(struct enc_stream_state *s, void **out, size_t out_cap, size_t *out_len,
                 size_t *err_off, uint8_t *dummy) {
  ENC_FAIL_IF(out_len == NULL, ENC_ERR_INVALID_ARGUMENT);
  *out_len = 0;
  ENC_FAIL_IF(s == NULL || s->magic != ENC_STREAM_MAGIC || s->finished, ENC_ERR_INVALID_ARGUMENT);
  if (s->err != 0) {
    if (err_off != NULL && s->err != ENC_ERR_BUFFER_TOO_SMALL && s->err != ENC_ERR_UNSUPPORTED)
      *err_off = s->err_off;
    return s->err;
  }
  if (*out == NULL) {
    ENC_FAIL_IF(out_cap != 0, ENC_ERR_INVALID_ARGUMENT);
    *out = dummy; // never written: the capacity is 0
  }
  return 0;
}

// fail makes an error sticky and reports its offset for input errors.
static int fail(struct enc_stream_state *s, int rc, size_t *out_len, size_t *err_off) {
  s->err = rc;
  *out_len = 0;
  if (err_off != NULL && rc != ENC_ERR_BUFFER_TOO_SMALL && rc != ENC_ERR_UNSUPPORTED &&
      rc != ENC_ERR_INVALID_ARGUMENT)
    *err_off = s->err_off;
  return rc;
}

static int stream_update(struct enc_stream_state *s, const struct enc_impl *im, void *out,
                         size_t out_cap, size_t *out_len, const void *in, size_t in_len,
                         size_t *err_off) {
  uint8_t dummy[1];
  ENC_TRY(check(s, &out, out_cap, out_len, err_off, dummy));
  if (in == NULL) {
    ENC_FAIL_IF(in_len != 0, ENC_ERR_INVALID_ARGUMENT);
    in = dummy;
  }
  if (im == &enc_impl_unsupported)
    return fail(s, ENC_ERR_UNSUPPORTED, out_len, err_off);
  size_t w = 0;
  int rc = engine_of(s)->update(s, im, out, out_cap, &w, in, in_len);
  if (rc < 0)
    return fail(s, rc, out_len, err_off);
  s->pos += in_len;
  *out_len = w;
  return 0;
}

static int stream_final(struct enc_stream_state *s, const struct enc_impl *im, void *out,
                        size_t out_cap, size_t *out_len, size_t *err_off) {
  uint8_t dummy[1];
  ENC_TRY(check(s, &out, out_cap, out_len, err_off, dummy));
  if (im == &enc_impl_unsupported)
    return fail(s, ENC_ERR_UNSUPPORTED, out_len, err_off);
  size_t w = 0;
  int rc = engine_of(s)->final(s, out, out_cap, &w);
  if (rc < 0)
    return fail(s, rc, out_len, err_off);
  s->finished = 1;
  *out_len = w;
  return 0;
}

int enc_stream_update(enc_stream *st, void *out, size_t out_cap, size_t *out_len, const void *in,
                      size_t in_len, size_t *err_off) {
  return stream_update(st == NULL ? NULL : state(st), enc_impl_current(), out, out_cap, out_len, in,
                       in_len, err_off);
}

int enc_stream_final(enc_stream *st, void *out, size_t out_cap, size_t *out_len, size_t *err_off) {
  return stream_final(st == NULL ? NULL : state(st), enc_impl_current(), out, out_cap, out_len,
                      err_off);
}

void enc_stream_cleanup(enc_stream *st) {
  if (st != NULL)
    memset(st, 0, sizeof *st);
}

// One-shot calls.

// oneshot drives the engine exactly as a stream of one update and a final
// would (same state, same offsets, same error rules), without the stream
// API's per-call checks, which matter at small sizes.
static int oneshot(int codec, int dir, uint32_t flags, size_t wrap, void *out, size_t out_cap,
                   size_t *out_len, const void *in, size_t in_len, size_t *err_off) {
  ENC_FAIL_IF(out_len == NULL, ENC_ERR_INVALID_ARGUMENT);
  *out_len = 0;
  const struct engine *e = find_engine(codec, dir, flags, wrap);
  ENC_FAIL_IF(e == NULL, ENC_ERR_INVALID_ARGUMENT);
  ENC_FAIL_IF(out == NULL && out_cap != 0, ENC_ERR_INVALID_ARGUMENT);
  ENC_FAIL_IF(in == NULL && in_len != 0, ENC_ERR_INVALID_ARGUMENT);
  const struct enc_impl *im = enc_impl_current();
  if (im == &enc_impl_unsupported) {
    ENC_LOG_ERROR(ENC_ERR_UNSUPPORTED);
    return ENC_ERR_UNSUPPORTED;
  }
  uint8_t dummy[1];
  if (out == NULL)
    out = dummy; // never written: the capacity is 0
  if (in == NULL)
    in = dummy;
  if (codec == ENC_CODEC_BASE64 && dir == ENC_ENCODE && wrap % 4 == 0) {
    size_t w = 0;
    if (wrap == 0)
      ENC_TRY(enc_b64e_flat(im, flags, out, out_cap, &w, in, in_len));
    else
      ENC_TRY(enc_b64e_wrap_flat(im, flags, wrap, out, out_cap, &w, in, in_len));
    *out_len = w;
    return 0;
  }
  // Not a memset of the state: at 64 bytes of input it costs more than the
  // codec (a `rep stos` of the whole union). Every engine's init sets what
  // its engine reads (the held-back bytes of the QP and Q decoders are read
  // only below their count, which init clears).
  struct enc_stream_state s;
  s.magic = ENC_STREAM_MAGIC;
  s.codec = (uint8_t)codec;
  s.dir = (uint8_t)dir;
  s.finished = 0;
  s.flags = flags;
  s.err = 0;
  s.err_off = 0;
  s.wrap = wrap;
  s.pos = 0;
  e->init(&s);
  size_t a = 0, b = 0;
  int rc;
  if (codec == ENC_CODEC_BASE64 && dir == ENC_DECODE && !(flags & ENC_FLAG_MIME)) { // strict
    rc = enc_b64d_flat(&s, im, out, out_cap, &a, in, in_len);
  } else {
    rc = e->update(&s, im, out, out_cap, &a, in, in_len);
    if (rc == 0) {
      s.pos = in_len;
      rc = e->final(&s, (uint8_t *)out + a, out_cap - a, &b);
    }
  }
  if (rc < 0) {
    if (err_off != NULL && rc != ENC_ERR_BUFFER_TOO_SMALL && rc != ENC_ERR_UNSUPPORTED &&
        rc != ENC_ERR_INVALID_ARGUMENT)
      *err_off = s.err_off;
    return rc;
  }
  *out_len = a + b;
  return 0;
}

size_t enc_encode_max_len(enc_codec codec, uint32_t flags, size_t wrap, size_t in_len) {
  enc_stream st;
  if (enc_stream_init(&st, codec, ENC_ENCODE, flags, wrap) != 0)
    return 0;
  return enc_stream_max_len(&st, in_len);
}

size_t enc_decode_max_len(enc_codec codec, uint32_t flags, size_t in_len) {
  enc_stream st;
  if (enc_stream_init(&st, codec, ENC_DECODE, flags, 0) != 0)
    return 0;
  return enc_stream_max_len(&st, in_len);
}

int enc_encode(enc_codec codec, uint32_t flags, size_t wrap, void *out, size_t out_cap,
               size_t *out_len, const void *in, size_t in_len, size_t *err_off) {
  return oneshot((int)codec, ENC_ENCODE, flags, wrap, out, out_cap, out_len, in, in_len, err_off);
}

int enc_decode(enc_codec codec, uint32_t flags, void *out, size_t out_cap, size_t *out_len,
               const void *in, size_t in_len, size_t *err_off) {
  return oneshot((int)codec, ENC_DECODE, flags, 0, out, out_cap, out_len, in, in_len, err_off);
}

// Per-codec wrappers.

// The Base64 wrappers take the common case (no wrap, or a wrap of whole
// groups; no MIME; buffers given) straight to the fused paths: at 64 bytes
// of input the generic argument checks and state set-up of oneshot() cost a
// tenth of the call, and the stream engine's line handling more.
// Everything else, and every argument error, goes through oneshot() (called
// directly, not through the exported enc_encode(), whose call from inside
// the shared object goes through the PLT).
int enc_base64_encode(uint32_t flags, size_t wrap, char *out, size_t out_cap, size_t *out_len,
                      const void *in, size_t in_len) {
  if (wrap % 4 == 0 && (flags & ~(ENC_FLAG_URL | ENC_FLAG_NOPAD)) == 0 && out_len != NULL &&
      out != NULL && in != NULL) {
    const struct enc_impl *im = enc_impl_current();
    if (im != &enc_impl_unsupported) {
      *out_len = 0;
      if (wrap == 0)
        return enc_b64e_flat(im, flags, (uint8_t *)out, out_cap, out_len, in, in_len);
      return enc_b64e_wrap_flat(im, flags, wrap, (uint8_t *)out, out_cap, out_len, in, in_len);
    }
  }
  return oneshot(ENC_CODEC_BASE64, ENC_ENCODE, flags, wrap, out, out_cap, out_len, in, in_len,
                 NULL);
}

size_t enc_base64_encode_len(uint32_t flags, size_t wrap, size_t in_len) {
  return enc_encode_max_len(ENC_CODEC_BASE64, flags, wrap, in_len);
}

int enc_base64_decode(uint32_t flags, void *out, size_t out_cap, size_t *out_len, const char *in,
                      size_t in_len, size_t *err_off) {
  if ((flags & ~(ENC_FLAG_URL | ENC_FLAG_NOPAD)) == 0 && out_len != NULL && out != NULL &&
      in != NULL) {
    const struct enc_impl *im = enc_impl_current();
    if (im != &enc_impl_unsupported) {
      *out_len = 0;
      struct enc_stream_state s;
      s.flags = flags;
      s.err_off = 0;
      s.pos = 0;
      enc_b64d_init(&s);
      size_t w = 0;
      int rc = enc_b64d_flat(&s, im, out, out_cap, &w, (const uint8_t *)in, in_len);
      if (rc < 0) {
        if (err_off != NULL && rc != ENC_ERR_BUFFER_TOO_SMALL)
          *err_off = s.err_off;
        return rc;
      }
      *out_len = w;
      return 0;
    }
  }
  return oneshot(ENC_CODEC_BASE64, ENC_DECODE, flags, 0, out, out_cap, out_len, in, in_len,
                 err_off);
}

// enc_base64_decode_max_len is what enc_b64d_max() reports for a fresh
// stream, worked out directly: setting up a stream state to ask it cost 190
// instructions, about as much as decoding a short encoded word.
size_t enc_base64_decode_max_len(size_t in_len) {
  return in_len / 4 * 3 + (in_len % 4) * 3 / 4;
}

int enc_base32_encode(uint32_t flags, char *out, size_t out_cap, size_t *out_len, const void *in,
                      size_t in_len) {
  return enc_encode(ENC_CODEC_BASE32, flags, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_base32_decode(uint32_t flags, void *out, size_t out_cap, size_t *out_len, const char *in,
                      size_t in_len, size_t *err_off) {
  return enc_decode(ENC_CODEC_BASE32, flags, out, out_cap, out_len, in, in_len, err_off);
}

int enc_qp_encode(uint32_t flags, char *out, size_t out_cap, size_t *out_len, const void *in,
                  size_t in_len) {
  return enc_encode(ENC_CODEC_QP, flags, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_qp_decode(void *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len) {
  return enc_decode(ENC_CODEC_QP, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_q_encode(uint32_t flags, char *out, size_t out_cap, size_t *out_len, const void *in,
                 size_t in_len) {
  return enc_encode(ENC_CODEC_Q, flags, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_q_decode(void *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len) {
  return enc_decode(ENC_CODEC_Q, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_utf7imap_encode(char *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len,
                        size_t *err_off) {
  return enc_encode(ENC_CODEC_UTF7IMAP, 0, 0, out, out_cap, out_len, in, in_len, err_off);
}

int enc_utf7imap_decode(char *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len,
                        size_t *err_off) {
  return enc_decode(ENC_CODEC_UTF7IMAP, 0, out, out_cap, out_len, in, in_len, err_off);
}

int enc_hex_encode(uint32_t flags, char *out, size_t out_cap, size_t *out_len, const void *in,
                   size_t in_len) {
  return enc_encode(ENC_CODEC_HEX, flags, 0, out, out_cap, out_len, in, in_len, NULL);
}

int enc_hex_decode(void *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len,
                   size_t *err_off) {
  return enc_decode(ENC_CODEC_HEX, 0, out, out_cap, out_len, in, in_len, err_off);
}
