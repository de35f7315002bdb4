// peer_simdutf.cc: the simdutf peer of bench_encodify, the fastest Base64 we
// know of. simdutf::base64_to_binary skips ASCII white space, so it decodes
// both the MIME-wrapped and the unwrapped input; binary_to_base64 encodes one
// line and binary_to_base64_with_lines wraps at 76 columns with a bare LF and
// no break after the last line. Two codecs are defined: "simdutf" uses the
// kernel simdutf picks for this CPU (AVX-512 where present), and
// "simdutf-haswell" forces its AVX2 kernel, the same ISA level as our best,
// when the CPU has it. Built only when simdutf is found (see meson.build).
#include <simdutf.h>

#include "bench_internal.h"

namespace {

// haswell returns simdutf's AVX2 kernel, or NULL when simdutf has none. The
// templates below call it when `Haswell` is true and simdutf's own dispatch
// otherwise.
const simdutf::implementation *haswell() {
  static const simdutf::implementation *impl = simdutf::get_available_implementations()["haswell"];
  return impl;
}

template <bool Haswell>
int decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len,
           simdutf::base64_options options) {
  const char *text = reinterpret_cast<const char *>(in);
  if (out_cap < simdutf::maximal_binary_length_from_base64(text, in_len))
    return 1;
  char *bin = reinterpret_cast<char *>(out);
  simdutf::result r;
  if constexpr (Haswell)
    r = haswell()->base64_to_binary(text, in_len, bin, options);
  else
    r = simdutf::base64_to_binary(text, in_len, bin, options);
  if (r.error != simdutf::error_code::SUCCESS)
    return 1;
  *out_len = r.count;
  return 0;
}

template <bool Haswell>
int b64_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len) {
  return decode<Haswell>(out, out_cap, out_len, in, in_len, simdutf::base64_default);
}

template <bool Haswell>
int b64url_decode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len) {
  return decode<Haswell>(out, out_cap, out_len, in, in_len, simdutf::base64_url);
}

template <bool Haswell>
int encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len,
           simdutf::base64_options options, size_t wrap) {
  const char *bin = reinterpret_cast<const char *>(in);
  char *text = reinterpret_cast<char *>(out);
  size_t need = wrap ? simdutf::base64_length_from_binary_with_lines(in_len, options, wrap)
                     : simdutf::base64_length_from_binary(in_len, options);
  if (out_cap < need)
    return 1;
  if constexpr (Haswell) {
    *out_len = wrap ? haswell()->binary_to_base64_with_lines(bin, in_len, text, wrap, options)
                    : haswell()->binary_to_base64(bin, in_len, text, options);
  } else {
    *out_len = wrap ? simdutf::binary_to_base64_with_lines(bin, in_len, text, wrap, options)
                    : simdutf::binary_to_base64(bin, in_len, text, options);
  }
  return 0;
}

template <bool Haswell>
int b64_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len) {
  return encode<Haswell>(out, out_cap, out_len, in, in_len, simdutf::base64_default, 0);
}

template <bool Haswell>
int b64url_encode(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len) {
  return encode<Haswell>(out, out_cap, out_len, in, in_len, simdutf::base64_url, 0);
}

template <bool Haswell>
int b64_encode_wrap76(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                      size_t in_len) {
  return encode<Haswell>(out, out_cap, out_len, in, in_len, simdutf::base64_default, 76);
}

template <bool Haswell> struct ops {
  static constexpr bench_op_fn table[] = {
      {BENCH_B64_DECODE, b64_decode<Haswell>, 0},
      {BENCH_B64_DECODE_MIME, b64_decode<Haswell>, 0},
      {BENCH_B64URL_DECODE, b64url_decode<Haswell>, 0},
      {BENCH_B64_ENCODE, b64_encode<Haswell>, 0},
      {BENCH_B64URL_ENCODE, b64url_encode<Haswell>, 0},
      {BENCH_B64_ENCODE_WRAP76, b64_encode_wrap76<Haswell>, BENCH_LF_LINES},
      {0, nullptr, 0},
  };
};

int haswell_init() {
  return haswell() != nullptr && haswell()->supported_by_runtime_system() ? 0 : 1;
}

} // namespace

extern "C" const bench_codec bench_peer_simdutf = {"simdutf", nullptr, ops<false>::table};
extern "C" const bench_codec bench_peer_simdutf_haswell = {"simdutf-haswell", haswell_init,
                                                           ops<true>::table};
