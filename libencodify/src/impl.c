// impl.c: the table of implementations and the run-time choice among them
// (CONVENTIONS §6): the first entry whose CPU features are all present, or
// the one ENCODIFY_IMPL names, chosen once and kept in an atomic pointer;
// plus the scalar implementation (the specification, built from the shared
// loops in kernels_internal.h) and the "unsupported" singleton.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

// The scalar kernels are the shared loops themselves.
static size_t b64_encode_scalar(char *out, const uint8_t *in, size_t in_len, int url) {
  return enc_b64_encode_tail(out, in, in_len, url);
}
static size_t b64_decode_scalar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int url) {
  return enc_b64_decode_tail(out, out_cap, written, in, in_len, url);
}
static size_t b64_decode_mime_scalar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                     size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  return enc_b64_decode_mime_tail(out, out_cap, written, in, in_len, url, acc, nacc);
}
static size_t b32_encode_scalar(char *out, const uint8_t *in, size_t in_len, int hex) {
  return enc_b32_encode_tail(out, in, in_len, hex);
}
static size_t b32_decode_scalar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int hex) {
  return enc_b32_decode_tail(out, out_cap, written, in, in_len, hex);
}
static size_t qp_decode_scalar(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len) {
  return enc_qp_decode_tail(out, out_cap, written, in, in_len);
}
static size_t qp_encode_scalar(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                               size_t in_len, int binary, uint32_t *col) {
  return enc_qp_encode_tail(out, out_cap, written, in, in_len, binary, col);
}

const struct enc_impl enc_impl_scalar = {
    .name = "scalar",
    .required = 0,
    .b64_encode = b64_encode_scalar,
    .b64_decode = b64_decode_scalar,
    .b64_decode_mime = b64_decode_mime_scalar,
    .b32_encode = b32_encode_scalar,
    .b32_decode = b32_decode_scalar,
    .qp_decode = qp_decode_scalar,
    .qp_encode = qp_encode_scalar,
};

// The codec entry points check for this one before they use any kernel.
const struct enc_impl enc_impl_unsupported = {
    .name = "unsupported",
    .required = 0,
    .b64_encode = b64_encode_scalar,
    .b64_decode = b64_decode_scalar,
    .b64_decode_mime = b64_decode_mime_scalar,
    .b32_encode = b32_encode_scalar,
    .b32_decode = b32_decode_scalar,
    .qp_decode = qp_decode_scalar,
    .qp_encode = qp_encode_scalar,
};

// Priority order; scalar is last and always runs.
static const struct enc_impl *const impls[] = {
#if ENC_HAVE_AVX512
    &enc_impl_avx512,
#endif
#if ENC_HAVE_AVX2
    &enc_impl_avx2,
#endif
#if ENC_HAVE_SSE41
    &enc_impl_sse41,
#endif
#if ENC_HAVE_NEON
    &enc_impl_neon,
#endif
#if ENC_HAVE_SWAR
    &enc_impl_swar,
#endif
    &enc_impl_scalar,
};
enum { NUM_IMPLS = sizeof impls / sizeof impls[0] };

_Atomic(const struct enc_impl *) enc_impl_chosen;

static int supported(const struct enc_impl *im) {
  return (im->required & ~enc_cpu_features()) == 0;
}

static const struct enc_impl *best(void) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (supported(impls[i]))
      return impls[i];
  return &enc_impl_scalar;
}

static const struct enc_impl *by_name(const char *name) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (strcmp(impls[i]->name, name) == 0)
      return supported(impls[i]) ? impls[i] : NULL;
  return NULL;
}

const struct enc_impl *enc_impl_choose(void) {
  const struct enc_impl *im;
  const char *env = getenv("ENCODIFY_IMPL");
  if (env != NULL && env[0] != '\0') {
    im = by_name(env);
    if (im == NULL)
      im = &enc_impl_unsupported;
  } else {
    im = best();
  }
  const struct enc_impl *expected = NULL;
  // Another thread may have chosen first; both choices are the same.
  if (!atomic_compare_exchange_strong(&enc_impl_chosen, &expected, im))
    im = expected;
  return im;
}

const char *enc_impl_name(void) {
  return enc_impl_current()->name;
}

size_t enc_impl_count(void) {
  return NUM_IMPLS;
}

const char *enc_impl_get(size_t index, int *is_supported) {
  if (index >= NUM_IMPLS)
    return NULL;
  if (is_supported != NULL)
    *is_supported = supported(impls[index]);
  return impls[index]->name;
}

int enc_impl_force(const char *name) {
  const struct enc_impl *im = name == NULL ? best() : by_name(name);
  ENC_FAIL_IF(im == NULL, ENC_ERR_UNSUPPORTED);
  atomic_store_explicit(&enc_impl_chosen, im, memory_order_release);
  return 0;
}
