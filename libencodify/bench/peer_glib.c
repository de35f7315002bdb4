// peer_glib.c: the GLib peer of bench_encodify. g_base64_encode() and
// g_base64_decode() allocate their result and call the step functions; this
// adapter calls g_base64_encode_step/_close and g_base64_decode_step into the
// benchmark's buffer instead, which is the same code without the malloc, so
// GLib is measured at its best. With break_lines GLib wraps at 76 columns with
// bare LF (BENCH_LF_LINES); its decoder skips anything outside the alphabet.
#include <stdint.h>

#include <glib.h>

#include "bench_internal.h"

// glib_b64_decode_pieces runs g_base64_decode_step over pieces of at most
// `piece` bytes with one state throughout (one piece: one call).
static int glib_b64_decode_pieces(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                  size_t in_len, size_t piece) {
  gint state = 0;
  guint save = 0;
  if (out_cap < in_len / 4 * 3 + 3)
    return 1;
  size_t o = 0;
  for (size_t i = 0; i < in_len; i += piece) {
    size_t n = in_len - i < piece ? in_len - i : piece;
    o += g_base64_decode_step((const gchar *)in + i, n, out + o, &state, &save);
  }
  *out_len = o;
  return 0;
}

static int glib_b64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                           size_t in_len) {
  return glib_b64_decode_pieces(out, out_cap, out_len, in, in_len, SIZE_MAX);
}

static int glib_b64_decode_4k(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                              size_t in_len) {
  return glib_b64_decode_pieces(out, out_cap, out_len, in, in_len, BENCH_PIECE);
}

static int glib_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                       size_t in_len, gboolean break_lines) {
  gint state = 0, save = 0;
  // The bound of g_base64_encode_step's documentation, plus the close.
  if (out_cap < (in_len / 3 + 1) * 4 + 4 + (in_len / 3 + 1) * 4 / 76 + 1 + 8)
    return 1;
  gsize n = g_base64_encode_step(in, in_len, break_lines, (gchar *)out, &state, &save);
  n += g_base64_encode_close(break_lines, (gchar *)out + n, &state, &save);
  *out_len = n;
  return 0;
}

static int glib_b64_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                           size_t in_len) {
  return glib_encode(out, out_cap, out_len, in, in_len, FALSE);
}

static int glib_b64_encode_wrap76(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                                  size_t in_len) {
  return glib_encode(out, out_cap, out_len, in, in_len, TRUE);
}

static const struct bench_op_fn glib_ops[] = {
    {BENCH_B64_DECODE, glib_b64_decode, 0},
    {BENCH_B64_DECODE_MIME, glib_b64_decode, 0},
    {BENCH_B64_DECODE_MIME_4K, glib_b64_decode_4k, 0},
    {BENCH_B64_ENCODE, glib_b64_encode, 0},
    {BENCH_B64_ENCODE_WRAP76, glib_b64_encode_wrap76, BENCH_LF_LINES},
    {0, NULL, 0},
};

const struct bench_codec bench_peer_glib = {"glib", NULL, glib_ops};
