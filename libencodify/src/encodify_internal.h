// encodify_internal.h: libencodify's private declarations: the stream state
// behind the public enc_stream, the implementation table that the CPU
// dispatch chooses from, the per-codec engines that encodify.c calls, and the
// error macros. Never installed.
#ifndef ENC_ENCODIFY_INTERNAL_H
#define ENC_ENCODIFY_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "corvid_cpu.h"
#include "encodify.h"

// Error macros (CONVENTIONS §3). With -DENC_DEBUG they say where an error
// was raised; a normal build never prints.
#ifdef ENC_DEBUG
#include <stdio.h>
#define ENC_LOG_ERROR(code)                                                                        \
  fprintf(stderr, "encodify: %s:%d: %s\n", __FILE__, __LINE__, enc_strerror(code))
#else
#define ENC_LOG_ERROR(code) ((void)0)
#endif
#define ENC_FAIL_IF(cond, code)                                                                    \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ENC_LOG_ERROR(code);                                                                         \
      return (code);                                                                               \
    }                                                                                              \
  } while (0)
#define ENC_TRY(expr)                                                                              \
  do {                                                                                             \
    int enc_try_rc_ = (expr);                                                                      \
    if (enc_try_rc_ < 0)                                                                           \
      return enc_try_rc_;                                                                          \
  } while (0)

// CPU features (src/cpu.c), as bits of enc_impl.required: the shared
// detector's bits (common/include/corvid_cpu.h) under this library's names.
enum {
  ENC_CPU_SSSE3 = CORVID_CPU_SSSE3,
  ENC_CPU_SSE41 = CORVID_CPU_SSE41,
  ENC_CPU_AVX2 = CORVID_CPU_AVX2, // AVX2 with OS support for the YMM state
  ENC_CPU_BMI1 = CORVID_CPU_BMI1,
  ENC_CPU_BMI2 = CORVID_CPU_BMI2,
  ENC_CPU_LZCNT = CORVID_CPU_LZCNT,
  ENC_CPU_POPCNT = CORVID_CPU_POPCNT,
  ENC_CPU_NEON = CORVID_CPU_NEON,
  // AVX-512 F, BW, VBMI and VBMI2 with OS support for the opmask and ZMM
  // state
  ENC_CPU_AVX512VBMI2 = CORVID_CPU_AVX512VBMI2,
};

// enc_cpu_features returns the ENC_CPU_* bits of this machine, detected once.
uint32_t enc_cpu_features(void);

// An implementation: kernels in priority order (CONVENTIONS §6). Every kernel
// processes a prefix of its input that the engine could also have processed
// with the scalar code, writes exactly what the scalar code would write for
// it, never reads past `in_len` or writes past `out_cap`, and returns the
// number of input bytes consumed; the engine finishes the rest.
struct enc_impl {
  const char *name;
  uint32_t required; // ENC_CPU_* bits that must all be present
  // Non-zero when b64_decode takes a path of its own for inputs of at
  // least ENC_B64D_LARGE_MIN characters, which the tests then cross.
  uint8_t b64_decode_has_large;
  // Base64: whole groups of 3 bytes; writes consumed / 3 * 4 characters
  // (`out` has room for them all).
  size_t (*b64_encode)(char *out, const uint8_t *in, size_t in_len, int url);
  // Base64 wrapped, optional (NULL, or may return 0 for any `wrap`): whole
  // lines of wrap / 4 * 3 bytes (`wrap` a multiple of 4), each written as
  // its `wrap` characters and a CRLF (`out` has room for all the lines
  // `in_len` holds); returns the number of lines.
  size_t (*b64_encode_lines)(char *out, const uint8_t *in, size_t in_len, size_t wrap, int url);
  // Base64 strict: whole groups of 4 alphabet characters.
  size_t (*b64_decode)(uint8_t *out, size_t out_cap, size_t *written, const char *in, size_t in_len,
                       int url);
  // Base64 MIME: starts with an empty group, skips non-alphabet characters,
  // stops before `=`; the 0-3 characters of an unfinished group are returned
  // in `*acc` (6 bits each) and `*nacc`.
  size_t (*b64_decode_mime)(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                            size_t in_len, int url, uint32_t *acc, uint32_t *nacc);
  // Base32: whole groups of 5 bytes; writes consumed / 5 * 8 characters.
  size_t (*b32_encode)(char *out, const uint8_t *in, size_t in_len, int hex);
  // Base32 strict: whole groups of 8 alphabet characters.
  size_t (*b32_decode)(uint8_t *out, size_t out_cap, size_t *written, const char *in, size_t in_len,
                       int hex);
  // Quoted-printable decoding from a clean state (nothing held back).
  size_t (*qp_decode)(uint8_t *out, size_t out_cap, size_t *written, const char *in, size_t in_len);
  // Quoted-printable encoding with a known next byte for every byte it
  // takes; `*col` is the output column.
  size_t (*qp_encode)(char *out, size_t out_cap, size_t *written, const uint8_t *in, size_t in_len,
                      int binary, uint32_t *col);
};

// The implementation in use, or NULL before the first use (src/impl.c).
extern _Atomic(const struct enc_impl *) enc_impl_chosen;
// enc_impl_choose makes the first-use choice and returns it (never NULL).
const struct enc_impl *enc_impl_choose(void);

// enc_impl_current returns the implementation in use (never NULL). Inline,
// so that a codec call pays one load for its dispatch, not a function call:
// at 64 bytes of input that is a visible part of the cost.
static inline const struct enc_impl *enc_impl_current(void) {
  const struct enc_impl *im = atomic_load_explicit(&enc_impl_chosen, memory_order_acquire);
  return im != NULL ? im : enc_impl_choose();
}
// The scalar implementation, the specification.
extern const struct enc_impl enc_impl_scalar;
// The singleton that ENCODIFY_IMPL selects for an unknown name.
extern const struct enc_impl enc_impl_unsupported;
// The other implementations, each built only where meson.build defines its
// ENC_HAVE_<NAME> (src/swar/, src/x86/, src/arm/).
extern const struct enc_impl enc_impl_swar;
extern const struct enc_impl enc_impl_sse41;
extern const struct enc_impl enc_impl_avx2;
extern const struct enc_impl enc_impl_neon;
extern const struct enc_impl enc_impl_avx512;

// The AVX2 line encoder (src/x86/avx2.c); AVX-512 has its own since the VBMI
// 76-column kernel.
size_t enc_b64_encode_lines_avx2(char *out, const uint8_t *in, size_t in_len, size_t wrap, int url);
// The AVX2 kernels that the AVX-512 implementation shares (src/x86/avx2.c).
size_t enc_b64_decode_mime_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int url, uint32_t *acc, uint32_t *nacc);
size_t enc_b32_encode_avx2(char *out, const uint8_t *in, size_t in_len, int hex);
size_t enc_b32_decode_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                           size_t in_len, int hex);
size_t enc_qp_decode_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                          size_t in_len);
size_t enc_qp_encode_avx2(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                          size_t in_len, int binary, uint32_t *col);
// The AVX-512 quoted-printable decoder at every length, without the hand-off
// of short inputs to enc_qp_decode_avx2() that enc_impl_avx512 makes
// (src/x86/avx512.c); bench/bench_qp_crossover.c measures where that
// hand-off should be.
size_t enc_qp_decode_avx512_blocks(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                   size_t in_len);
// ENC_B64D_LARGE_MIN: strict Base64 inputs of at least this many characters
// take the AVX-512 kernel's path for data out of the caches (aligned loads,
// non-temporal stores; src/x86/avx512.c says why and where the number comes
// from). Here so that tests/test_base64.c can cross it.
enum { ENC_B64D_LARGE_MIN = 4u << 20 };

// Stream state behind enc_stream.

enum { ENC_STREAM_MAGIC = 0x656e6373u }; // "encs"

struct enc_b64enc_state {
  uint8_t carry[2];
  uint8_t ncarry;
  size_t col; // characters on the current output line (wrap only)
};

enum { ENC_B64D_NORMAL, ENC_B64D_PADDING, ENC_B64D_DONE };

struct enc_b64dec_state {
  uint32_t acc;     // sextets of the current group
  uint32_t nacc;    // how many
  uint8_t mode;     // ENC_B64D_*
  uint8_t need;     // `=` still expected in ENC_B64D_PADDING
  uint8_t mid_line; // MIME: the input so far ends inside a line
};

struct enc_b32enc_state {
  uint8_t carry[4];
  uint8_t ncarry;
};

struct enc_b32dec_state {
  uint64_t acc;
  uint32_t nacc;
  uint8_t mode;
  uint8_t need;
};

enum {
  ENC_QPD_TEXT,    // pend: spaces and tabs seen at the end of the input so far
  ENC_QPD_TEXT_CR, // pend: spaces and tabs, then CR
  ENC_QPD_LONGWS,  // inside a run of spaces longer than ENC_QP_MAX_SPACE_RUN
  ENC_QPD_EQ,      // pend: "="
  ENC_QPD_EQ_HEX1, // pend: "=" and one hex digit
  ENC_QPD_EQ_WS,   // pend: "=", then spaces and tabs
  ENC_QPD_EQ_CR,   // pend: "=", spaces and tabs, CR
};

struct enc_qpdec_state {
  uint16_t npend;
  uint8_t mode;
  uint8_t pend[ENC_QP_MAX_SPACE_RUN + 3];
};

struct enc_qpenc_state {
  uint8_t hold[2]; // input bytes waiting for their lookahead
  uint8_t nhold;
  uint32_t col;
};

struct enc_qdec_state {
  uint8_t pend[2];
  uint8_t npend;
};

struct enc_u7enc_state {
  uint8_t u8[4]; // an unfinished UTF-8 sequence
  uint8_t nu8;
  uint8_t in_shift;
  uint8_t nbits;
  uint32_t bits;
  size_t u8_off; // offset of its lead byte
};

enum { ENC_U7D_DIRECT, ENC_U7D_AMP, ENC_U7D_SHIFT };

struct enc_u7dec_state {
  uint8_t mode;
  uint8_t nbits;
  uint16_t high; // pending high surrogate, or 0
  uint32_t bits;
  size_t shift_start; // offset of the `&` of the current shift
  size_t last_close;  // offset just after the `-` that closed the last shift, or SIZE_MAX
};

struct enc_hexdec_state {
  uint8_t hi;
  uint8_t have;
};

struct enc_stream_state {
  uint32_t magic;
  uint8_t codec;    // enc_codec
  uint8_t dir;      // enc_direction
  uint8_t finished; // enc_stream_final succeeded
  uint32_t flags;
  int err;        // sticky error, 0 if none
  size_t err_off; // its offset
  size_t wrap;
  size_t pos; // input bytes consumed before this call
  union {
    struct enc_b64enc_state b64e;
    struct enc_b64dec_state b64d;
    struct enc_b32enc_state b32e;
    struct enc_b32dec_state b32d;
    struct enc_qpdec_state qpd;
    struct enc_qpenc_state qpe;
    struct enc_qdec_state qd;
    struct enc_u7enc_state u7e;
    struct enc_u7dec_state u7d;
    struct enc_hexdec_state hexd;
  } u;
};

_Static_assert(sizeof(struct enc_stream_state) <= sizeof(enc_stream),
               "enc_stream is too small for the private state");

// Per-codec engines. Each init sets up the union member (the caller has set
// the common fields). update and final write at most `out_cap` bytes to
// `out`, set `*written`, and on an input error store the absolute offset in
// `st->err_off`. max returns the bound that enc_stream_max_len() reports.
#define ENC_ENGINE(prefix)                                                                         \
  void prefix##_init(struct enc_stream_state *st);                                                 \
  size_t prefix##_max(const struct enc_stream_state *st, size_t in_len);                           \
  int prefix##_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,        \
                      size_t out_cap, size_t *written, const uint8_t *in, size_t in_len);          \
  int prefix##_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written);

ENC_ENGINE(enc_b64e)
ENC_ENGINE(enc_b64d)
ENC_ENGINE(enc_b32e)
ENC_ENGINE(enc_b32d)
ENC_ENGINE(enc_qpe)
ENC_ENGINE(enc_qpd)
ENC_ENGINE(enc_qe)
ENC_ENGINE(enc_qd)
ENC_ENGINE(enc_u7e)
ENC_ENGINE(enc_u7d)
ENC_ENGINE(enc_hexe)
ENC_ENGINE(enc_hexd)

#undef ENC_ENGINE

// Fused one-shot paths for unwrapped Base64 (src/base64.c): the same output,
// errors and offsets as init, update and final of the engines above. The
// decoder takes a state that enc_b64d_init() has set up, for the offsets.
int enc_b64e_flat(const struct enc_impl *im, uint32_t flags, uint8_t *out, size_t out_cap,
                  size_t *written, const uint8_t *in, size_t in_len);
int enc_b64d_flat(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                  size_t out_cap, size_t *written, const uint8_t *in, size_t in_len);
// The same as the encoder's flat path, for a `wrap` that is a multiple of 4.
int enc_b64e_wrap_flat(const struct enc_impl *im, uint32_t flags, size_t wrap, uint8_t *out,
                       size_t out_cap, size_t *written, const uint8_t *in, size_t in_len);

// Saturating size arithmetic for the *_max functions.
static inline size_t enc_add_sat(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}
static inline size_t enc_mul_sat(size_t a, size_t b) {
  return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

#endif // ENC_ENCODIFY_INTERNAL_H
