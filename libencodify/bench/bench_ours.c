// bench_ours.c: libencodify as bench_encodify sees it. Each operation is one
// call of the public one-shot API (enc_base64_encode, enc_qp_decode, ...)
// with the flags that make it the operation of bench_internal.h, and the
// implementations are those of enc_impl_get() that this CPU runs, forced in
// turn with enc_impl_force(), so that every kernel is measured, not only the
// one the dispatcher would pick.
#include <stdio.h>

#include "bench_internal.h"
#include "encodify.h"

static int b64_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_base64_encode(0, 0, (char *)out, out_cap, out_len, in, in_len);
}

static int b64_encode_wrap76(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                             size_t in_len) {
  return enc_base64_encode(0, 76, (char *)out, out_cap, out_len, in, in_len);
}

static int b64url_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                         size_t in_len) {
  return enc_base64_encode(ENC_FLAG_URL | ENC_FLAG_NOPAD, 0, (char *)out, out_cap, out_len, in,
                           in_len);
}

static int b64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_base64_decode(0, out, out_cap, out_len, (const char *)in, in_len, NULL);
}

static int b64_decode_mime(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                           size_t in_len) {
  return enc_base64_decode(ENC_FLAG_MIME, out, out_cap, out_len, (const char *)in, in_len, NULL);
}

// enc_stream_update() over BENCH_PIECE pieces, then enc_stream_final().
static int b64_decode_mime_4k(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                              size_t in_len) {
  enc_stream st;
  if (enc_stream_init(&st, ENC_CODEC_BASE64, ENC_DECODE, ENC_FLAG_MIME, 0) != 0)
    return 1;
  size_t o = 0, w;
  for (size_t i = 0; i < in_len; i += BENCH_PIECE) {
    size_t n = in_len - i < BENCH_PIECE ? in_len - i : BENCH_PIECE;
    if (enc_stream_update(&st, out + o, out_cap - o, &w, in + i, n, NULL) != 0)
      return 1;
    o += w;
  }
  if (enc_stream_final(&st, out + o, out_cap - o, &w, NULL) != 0)
    return 1;
  *out_len = o + w;
  return 0;
}

static int b64url_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                         size_t in_len) {
  return enc_base64_decode(ENC_FLAG_URL | ENC_FLAG_NOPAD, out, out_cap, out_len, (const char *)in,
                           in_len, NULL);
}

static int qp_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                     size_t in_len) {
  return enc_qp_encode(0, (char *)out, out_cap, out_len, in, in_len);
}

static int qp_encode_binary(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                            size_t in_len) {
  return enc_qp_encode(ENC_FLAG_BINARY, (char *)out, out_cap, out_len, in, in_len);
}

static int qp_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                     size_t in_len) {
  return enc_qp_decode(out, out_cap, out_len, (const char *)in, in_len);
}

static int q_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                    size_t in_len) {
  return enc_q_encode(0, (char *)out, out_cap, out_len, in, in_len);
}

static int q_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                    size_t in_len) {
  return enc_q_decode(out, out_cap, out_len, (const char *)in, in_len);
}

static int b32_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_base32_encode(0, (char *)out, out_cap, out_len, in, in_len);
}

static int b32_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_base32_decode(0, out, out_cap, out_len, (const char *)in, in_len, NULL);
}

static int hex_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_hex_encode(0, (char *)out, out_cap, out_len, in, in_len);
}

static int hex_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return enc_hex_decode(out, out_cap, out_len, (const char *)in, in_len, NULL);
}

static int utf7_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                       size_t in_len) {
  return enc_utf7imap_encode((char *)out, out_cap, out_len, (const char *)in, in_len, NULL);
}

static int utf7_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                       size_t in_len) {
  return enc_utf7imap_decode((char *)out, out_cap, out_len, (const char *)in, in_len, NULL);
}

const struct bench_op_fn bench_ours_ops[] = {
    {BENCH_B64_ENCODE, b64_encode, 0},
    {BENCH_B64_ENCODE_WRAP76, b64_encode_wrap76, 0},
    {BENCH_B64URL_ENCODE, b64url_encode, 0},
    {BENCH_B64_DECODE, b64_decode, 0},
    {BENCH_B64_DECODE_MIME, b64_decode_mime, 0},
    {BENCH_B64_DECODE_MIME_4K, b64_decode_mime_4k, 0},
    {BENCH_B64URL_DECODE, b64url_decode, 0},
    {BENCH_QP_ENCODE, qp_encode, 0},
    {BENCH_QP_ENCODE_BINARY, qp_encode_binary, 0},
    {BENCH_QP_DECODE, qp_decode, 0},
    {BENCH_Q_ENCODE, q_encode, 0},
    {BENCH_Q_DECODE, q_decode, 0},
    {BENCH_B32_ENCODE, b32_encode, 0},
    {BENCH_B32_DECODE, b32_decode, 0},
    {BENCH_HEX_ENCODE, hex_encode, 0},
    {BENCH_HEX_DECODE, hex_decode, 0},
    {BENCH_UTF7_ENCODE, utf7_encode, 0},
    {BENCH_UTF7_DECODE, utf7_decode, 0},
    {0, NULL, 0},
};

// The implementations this CPU runs, in the library's priority order; filled
// on first use.
#define MAX_IMPLS 16
static struct {
  const char *dispatch_name;
  char name[48];
} impls[MAX_IMPLS];
static size_t num_impls;
static int listed;

static void list_impls(void) {
  if (listed)
    return;
  listed = 1;
  for (size_t i = 0; i < enc_impl_count() && num_impls < MAX_IMPLS; i++) {
    int supported = 0;
    const char *name = enc_impl_get(i, &supported);
    if (name == NULL || !supported)
      continue;
    impls[num_impls].dispatch_name = name;
    snprintf(impls[num_impls].name, sizeof impls[num_impls].name, "encodify-%s", name);
    num_impls++;
  }
}

size_t bench_ours_count(void) {
  list_impls();
  return num_impls;
}

const char *bench_ours_name(size_t i) {
  list_impls();
  return i < num_impls ? impls[i].name : NULL;
}

int bench_ours_select(size_t i) {
  list_impls();
  return i < num_impls ? enc_impl_force(impls[i].dispatch_name) : -1;
}

void bench_ours_select_default(void) {
  // Back to the automatic choice, which cannot fail.
  int rc = enc_impl_force(NULL);
  (void)rc;
}
