// fuzz_util.h: helpers for libencodify's libFuzzer harnesses: run a codec
// one-shot with every implementation this CPU supports and trap unless each
// agrees with "scalar" (same code, same error offset, same bytes), and run it
// as a stream cut where the input says, trapping unless that agrees too.
#ifndef ENC_FUZZ_UTIL_H
#define ENC_FUZZ_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encodify.h"

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      __builtin_trap();                                                                            \
  } while (0)

struct fz_result {
  int rc;
  size_t err_off;
  size_t len;
  uint8_t *data;
};

static inline void fz_free(struct fz_result *r) {
  free(r->data);
  r->data = NULL;
}

// fz_oneshot runs one call with an output buffer of exactly max_len bytes.
static inline struct fz_result fz_oneshot(enc_codec codec, enc_direction dir, uint32_t flags,
                                          size_t wrap, const uint8_t *in, size_t in_len) {
  struct fz_result r = {0, SIZE_MAX, 0, NULL};
  size_t cap = dir == ENC_ENCODE ? enc_encode_max_len(codec, flags, wrap, in_len)
                                 : enc_decode_max_len(codec, flags, in_len);
  r.data = malloc(cap ? cap : 1);
  FUZZ_CHECK(r.data != NULL);
  if (dir == ENC_ENCODE)
    r.rc = enc_encode(codec, flags, wrap, r.data, cap, &r.len, in, in_len, &r.err_off);
  else
    r.rc = enc_decode(codec, flags, r.data, cap, &r.len, in, in_len, &r.err_off);
  FUZZ_CHECK(r.len <= cap);
  FUZZ_CHECK(r.rc == 0 || r.len == 0);
  return r;
}

static inline void fz_same(const struct fz_result *a, const struct fz_result *b) {
  FUZZ_CHECK(a->rc == b->rc);
  if (a->rc != 0) {
    FUZZ_CHECK(a->err_off == b->err_off);
    return;
  }
  FUZZ_CHECK(a->len == b->len);
  FUZZ_CHECK(a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

// fz_all_impls runs the call with every supported implementation, checks
// each against scalar and returns the scalar result.
static inline struct fz_result fz_all_impls(enc_codec codec, enc_direction dir, uint32_t flags,
                                            size_t wrap, const uint8_t *in, size_t in_len) {
  FUZZ_CHECK(enc_impl_force("scalar") == 0);
  struct fz_result ref = fz_oneshot(codec, dir, flags, wrap, in, in_len);
  for (size_t i = 0; i < enc_impl_count(); i++) {
    int supported;
    const char *name = enc_impl_get(i, &supported);
    if (!supported || strcmp(name, "scalar") == 0)
      continue;
    FUZZ_CHECK(enc_impl_force(name) == 0);
    struct fz_result r = fz_oneshot(codec, dir, flags, wrap, in, in_len);
    fz_same(&ref, &r);
    fz_free(&r);
  }
  FUZZ_CHECK(enc_impl_force(NULL) == 0);
  return ref;
}

// fz_stream feeds the input in pieces whose lengths come from `seed` (each
// in an exact heap copy) and checks the result against `want`.
static inline void fz_stream(enc_codec codec, enc_direction dir, uint32_t flags, size_t wrap,
                             const uint8_t *in, size_t in_len, uint32_t seed,
                             const struct fz_result *want) {
  enc_stream st;
  FUZZ_CHECK(enc_stream_init(&st, codec, dir, flags, wrap) == 0);
  struct fz_result r = {0, SIZE_MAX, 0, NULL};
  size_t total = enc_stream_max_len(&st, in_len) + 64 * (in_len + 1);
  r.data = malloc(total);
  FUZZ_CHECK(r.data != NULL);
  size_t pos = 0;
  while (r.rc == 0) {
    seed = seed * 1103515245u + 12345u;
    size_t n = (seed >> 16) % 37;
    if (n > in_len - pos)
      n = in_len - pos;
    size_t cap = enc_stream_max_len(&st, n);
    uint8_t *piece = malloc(n ? n : 1), *out = malloc(cap ? cap : 1);
    FUZZ_CHECK(piece != NULL && out != NULL);
    if (n)
      memcpy(piece, in + pos, n);
    size_t w = 0;
    r.rc = enc_stream_update(&st, out, cap, &w, piece, n, &r.err_off);
    FUZZ_CHECK(w <= cap && r.len + w <= total);
    if (r.rc == 0) {
      memcpy(r.data + r.len, out, w);
      r.len += w;
    }
    free(piece);
    free(out);
    pos += n;
    if (pos == in_len)
      break;
  }
  if (r.rc == 0) {
    size_t cap = enc_stream_max_len(&st, 0), w = 0;
    uint8_t *out = malloc(cap ? cap : 1);
    FUZZ_CHECK(out != NULL);
    r.rc = enc_stream_final(&st, out, cap, &w, &r.err_off);
    FUZZ_CHECK(w <= cap && r.len + w <= total);
    if (r.rc == 0) {
      memcpy(r.data + r.len, out, w);
      r.len += w;
    }
    free(out);
  }
  if (r.rc != 0)
    r.len = 0;
  fz_same(want, &r);
  fz_free(&r);
}

// fz_header takes `n` option bytes off the front of the input.
static inline int fz_header(const uint8_t **data, size_t *size, uint8_t *hdr, size_t n) {
  if (*size < n)
    return 0;
  memcpy(hdr, *data, n);
  *data += n;
  *size -= n;
  return 1;
}

#endif // ENC_FUZZ_UTIL_H
