// encodify.h: libencodify, SIMD Base64, Base32, quoted-printable, IMAP UTF-7 and hex codecs.
//
// libencodify converts between binary data and the text encodings that e-mail
// uses: Base64 (RFC 4648 standard and URL-safe alphabets, strict or RFC 2045
// MIME decoding, optional line wrapping), Base32 and base32hex (RFC 4648),
// quoted-printable (RFC 2045 body encoding and the RFC 2047 "Q" encoding of
// header words), IMAP modified UTF-7 (RFC 3501 §5.1.3, RFC 9051) and hex. It
// depends on the C library only.
//
// Every codec has a plain scalar implementation, which is the specification,
// and the hot paths (Base64 encoding and strict and MIME decoding, Base32,
// quoted-printable) have SSE4.1, AVX2 and NEON kernels (AVX-512 VBMI2 ones
// for Base64 encoding, strict and MIME Base64 decoding and quoted-printable
// decoding on CPUs that have it), and SWAR kernels (64-bit words, any CPU)
// for quoted-printable and Base32 decoding, that produce exactly the same
// bytes and the same errors. One implementation is
// chosen at first use from the CPU's features; see "Implementations" below.
//
// Two ways to call a codec:
//   - one-shot: enc_encode() / enc_decode() or the per-codec wrappers such as
//     enc_base64_decode(), with the output size taken from enc_encode_max_len()
//     or enc_decode_max_len();
//   - streaming: an enc_stream the caller owns, fed in chunks of any size with
//     enc_stream_update() and closed with enc_stream_final(). The concatenated
//     output of all calls is byte for byte the output of the one-shot call on
//     the concatenated input, and an error is reported at the same offset.
//
// Threading: every function is safe to call from any thread at the same time,
// except that one enc_stream must not be used by two threads at once without
// the caller's locking. enc_impl_force() may run concurrently with codec calls
// (each call uses either the old or the new implementation), but it is meant
// for tests and benchmarks.
//
// Ownership: borrowing is the default. Codecs read `in` and write `out`, both
// owned by the caller, and keep no pointer to either after they return. No
// function allocates memory.
//
// Errors: functions return 0 on success and a negative code on failure:
// -errno for OS and resource errors (-1 to -4095), ENC_ERR_* for this
// library's own (ENC_ERR_* codes lie in -10100 to -10199). enc_strerror()
// describes any of them. Decoders report where invalid input starts through an
// optional `size_t *err_off`. On failure `*out_len` is set to 0 and nothing
// written to `out` is part of the result (it may have been overwritten).
//
// Input limits: codecs never read past `in_len` bytes and accept any length;
// the *_max_len functions return SIZE_MAX when the bound does not fit in a
// size_t, and no buffer can be that large, so such input fails with
// ENC_ERR_BUFFER_TOO_SMALL.
#ifndef ENC_ENCODIFY_H
#define ENC_ENCODIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ENC_API __attribute__((visibility("default")))
#define ENC_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define ENC_API
#define ENC_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libencodify alone; it changes only when this library does.
// ENC_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define ENC_VERSION_MAJOR 0
#define ENC_VERSION_MINOR 1
#define ENC_VERSION_PATCH 0
#define ENC_VERSION_STRING "0.1.0"
#define ENC_VERSION_NUMBER (ENC_VERSION_MAJOR * 10000 + ENC_VERSION_MINOR * 100 + ENC_VERSION_PATCH)

// enc_version returns the version of the library loaded at run time, as
// ENC_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
ENC_API unsigned enc_version(void);

// enc_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
ENC_API const char *enc_version_string(void);

// Errors.

enum {
  ENC_ERR_INVALID_ARGUMENT = -10100,
  ENC_ERR_UNSUPPORTED = -10101,
  ENC_ERR_BUFFER_TOO_SMALL = -10102,
  ENC_ERR_INVALID_CHAR = -10103,
  ENC_ERR_BAD_PADDING = -10104,
  ENC_ERR_TRAILING_BITS = -10105,
  ENC_ERR_TRUNCATED = -10106,
  ENC_ERR_NON_CANONICAL = -10107,
  ENC_ERR_INVALID_UTF8 = -10108,
  ENC_ERR_INVALID_UTF16 = -10109,
};

// enc_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   ENC_ERR_INVALID_ARGUMENT: invalid argument.
//   ENC_ERR_UNSUPPORTED: operation not supported by the selected implementation.
//   ENC_ERR_BUFFER_TOO_SMALL: output buffer too small.
//   ENC_ERR_INVALID_CHAR: invalid character in the input.
//   ENC_ERR_BAD_PADDING: missing, misplaced or excess padding.
//   ENC_ERR_TRAILING_BITS: non-zero bits after the last encoded byte.
//   ENC_ERR_TRUNCATED: input ends inside an encoded unit.
//   ENC_ERR_NON_CANONICAL: non-canonical encoding.
//   ENC_ERR_INVALID_UTF8: invalid UTF-8.
//   ENC_ERR_INVALID_UTF16: invalid UTF-16 in a modified UTF-7 shift sequence.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
ENC_API const char *enc_strerror(int code);

// Codecs and flags.
//
// A codec is named by an enc_codec and refined by flags (a bitwise OR of
// ENC_FLAG_*; a flag that does not apply to a codec and direction is rejected
// with ENC_ERR_INVALID_ARGUMENT, so a typo never silently changes the output).
//
// ENC_CODEC_BASE64 (RFC 4648 §4, or §5 with ENC_FLAG_URL).
//   Encoding writes `=` padding unless ENC_FLAG_NOPAD is set, and with a
//   `wrap` of N > 0 writes CRLF after every N characters except at the very
//   end (MIME uses 76; empty input gives empty output).
//   Strict decoding (the default) accepts only the alphabet and canonical
//   padding: any other character (including CR, LF and spaces) is
//   ENC_ERR_INVALID_CHAR, wrong, missing or excess padding is
//   ENC_ERR_BAD_PADDING, a lone final character is ENC_ERR_TRUNCATED and
//   non-zero bits after the last byte are ENC_ERR_TRAILING_BITS. With
//   ENC_FLAG_NOPAD the input must not be padded (`=` is an invalid character)
//   and a final group of 2 or 3 characters is accepted.
//   MIME decoding (ENC_FLAG_MIME, RFC 2045 §6.8) never fails on content:
//   characters outside the alphabet are skipped, decoding stops at the first
//   `=`, a final group of 2 or 3 characters gives 1 or 2 bytes, a lone final
//   character and unused trailing bits are dropped.
// ENC_CODEC_BASE32 (RFC 4648 §6, or base32hex §7 with ENC_FLAG_BASE32HEX).
//   Upper-case alphabet; padding and ENC_FLAG_NOPAD as for Base64 (final
//   groups of 2, 4, 5 or 7 characters). Decoding is strict, with the same
//   errors as strict Base64; lower case is an invalid character.
// ENC_CODEC_QP: quoted-printable bodies (RFC 2045 §6.7).
//   Decoding turns `=XX` (upper- or lower-case hex) into a byte, removes soft
//   line breaks (`=`, optional spaces and tabs, then CRLF, LF or the end of
//   the input) and removes spaces and tabs at the end of a line (before CRLF,
//   LF or the end of the input). A `=` that starts neither is kept as a
//   literal `=` and decoding resumes with the next character, as common
//   decoders do. Line breaks are kept as they are (CRLF or LF); a CR not
//   followed by LF is an ordinary character. Runs of more than
//   ENC_QP_MAX_SPACE_RUN spaces and tabs are kept even at the end of a line,
//   so that a stream needs only a fixed state. Decoding never fails on
//   content.
//   Encoding writes printable ASCII except `=` as itself and every other
//   byte as `=XX` (upper-case hex); a space or tab is encoded when it ends a
//   line or the input. Lines are at most 76 characters: a longer line is
//   split with soft line breaks (`=` CRLF) that never split an `=XX`. In text
//   mode (the default) CRLF and LF in the input are line breaks and are
//   copied as they are, and a lone CR is encoded; with ENC_FLAG_BINARY every
//   CR and LF is encoded, so the output's only line breaks are soft ones.
// ENC_CODEC_Q: the "Q" encoding of RFC 2047 §4.2 (the encoded-text only,
//   without the `=?charset?Q?` and `?=` around it).
//   Encoding writes a space as `_`, printable ASCII except `=`, `?` and `_`
//   as itself (§5 (1), for unstructured text) and everything else as `=XX`;
//   with ENC_FLAG_PHRASE only letters, digits and `!*+-/` are written as
//   themselves (§5 (3), for words in a phrase). No line breaks are written.
//   Decoding turns `_` into a space and `=XX` into a byte; a malformed `=`
//   is kept as itself, as for ENC_CODEC_QP. Decoding never fails on content.
// ENC_CODEC_UTF7IMAP: IMAP modified UTF-7 mailbox names (RFC 3501 §5.1.3).
//   Encoding takes UTF-8 (invalid UTF-8, including surrogates and overlong
//   forms, is ENC_ERR_INVALID_UTF8) and writes printable ASCII as itself, `&`
//   as `&-` and every run of other characters as one `&`...`-` sequence of
//   modified Base64 (`+` and `,`) over UTF-16BE.
//   Decoding writes UTF-8 and accepts canonical input only: a character
//   outside printable ASCII is ENC_ERR_INVALID_CHAR (inside a shift, any
//   character but modified Base64 and `-`), a shift not closed with `-`
//   before the end is ENC_ERR_TRUNCATED, and a shift that encodes printable
//   ASCII, has non-zero or excess trailing bits, or directly follows another
//   shift (`&AOk-&AOk-` rather than `&AOkA6Q-`) is ENC_ERR_NON_CANONICAL; an
//   unpaired surrogate is ENC_ERR_INVALID_UTF16.
// ENC_CODEC_HEX: two hex digits per byte, lower case unless ENC_FLAG_UPPER.
//   Decoding accepts either case; anything else is ENC_ERR_INVALID_CHAR and
//   an odd number of digits ENC_ERR_TRUNCATED.

typedef enum enc_codec {
  ENC_CODEC_BASE64 = 1,
  ENC_CODEC_BASE32 = 2,
  ENC_CODEC_QP = 3,
  ENC_CODEC_Q = 4,
  ENC_CODEC_UTF7IMAP = 5,
  ENC_CODEC_HEX = 6,
} enc_codec;

// ENC_FLAG_URL selects the URL-safe Base64 alphabet (`-` and `_`).
#define ENC_FLAG_URL (1u << 0)
// ENC_FLAG_NOPAD: Base64 and Base32 without `=` padding.
#define ENC_FLAG_NOPAD (1u << 1)
// ENC_FLAG_MIME: lenient RFC 2045 Base64 decoding (decoding only).
#define ENC_FLAG_MIME (1u << 2)
// ENC_FLAG_BASE32HEX selects the base32hex alphabet (`0`-`9`, `A`-`V`).
#define ENC_FLAG_BASE32HEX (1u << 3)
// ENC_FLAG_BINARY: quoted-printable encoding that encodes CR and LF too.
#define ENC_FLAG_BINARY (1u << 4)
// ENC_FLAG_PHRASE: "Q" encoding restricted to RFC 2047 §5 (3) phrase words.
#define ENC_FLAG_PHRASE (1u << 5)
// ENC_FLAG_UPPER: upper-case hex digits when encoding hex.
#define ENC_FLAG_UPPER (1u << 6)

// ENC_QP_MAX_SPACE_RUN is the longest run of spaces and tabs that
// quoted-printable decoding removes at the end of a line (see ENC_CODEC_QP).
#define ENC_QP_MAX_SPACE_RUN 256

// ENC_QP_LINE_MAX is the longest line, in characters without the line break,
// that quoted-printable encoding writes (RFC 2045 §6.7 rule 5).
#define ENC_QP_LINE_MAX 76

// One-shot encoding and decoding.

// enc_encode_max_len returns the number of bytes enc_encode() writes at most
// for `in_len` bytes of input with `codec`, `flags` and `wrap`. For Base64,
// Base32 and hex it is the exact output length; for the other codecs an upper
// bound. It returns 0 for arguments enc_encode() rejects and SIZE_MAX when the
// bound does not fit in a size_t. Thread-safe.
ENC_API size_t enc_encode_max_len(enc_codec codec, uint32_t flags, size_t wrap, size_t in_len);

// enc_decode_max_len returns the number of bytes enc_decode() writes at most
// for `in_len` bytes of input with `codec` and `flags` (an upper bound; the
// exact length depends on the content). It returns 0 for arguments
// enc_decode() rejects. Thread-safe.
ENC_API size_t enc_decode_max_len(enc_codec codec, uint32_t flags, size_t in_len);

// enc_encode encodes the `in_len` bytes at `in` with `codec` into `out`, which
// has room for `out_cap` bytes, and sets `*out_len` to the number written. No
// NUL terminator is written. `wrap` is the Base64 line length (0 for one
// line) and must be 0 for the other codecs. `in` may be NULL when `in_len` is
// 0; `out` and `in` must not overlap. If `err_off` is not NULL, it receives
// the input offset of an ENC_ERR_INVALID_UTF8 error.
//
// It returns 0 on success or:
//   ENC_ERR_INVALID_ARGUMENT: unknown codec, a flag or `wrap` that does not
//     apply, or a NULL pointer where one is needed.
//   ENC_ERR_BUFFER_TOO_SMALL: `out_cap` is less than the output (for Base64,
//     Base32 and hex: less than enc_encode_max_len()).
//   ENC_ERR_INVALID_UTF8: ENC_CODEC_UTF7IMAP input is not valid UTF-8.
//   ENC_ERR_UNSUPPORTED: ENCODIFY_IMPL named an implementation this machine
//     does not have.
// Thread-safe; allocates nothing.
ENC_API ENC_WARN_UNUSED_RESULT int enc_encode(enc_codec codec, uint32_t flags, size_t wrap,
                                              void *out, size_t out_cap, size_t *out_len,
                                              const void *in, size_t in_len, size_t *err_off);

// enc_decode decodes the `in_len` bytes at `in` with `codec` into `out`, which
// has room for `out_cap` bytes, and sets `*out_len` to the number written
// (enc_decode_max_len() is always enough; a smaller buffer that fits the
// output works too). `in` may be NULL when `in_len` is 0; `out` and `in` must
// not overlap. If `err_off` is not NULL, an input error stores there the
// offset of the first byte that is wrong (the input length when the input
// ends too early); it is left alone otherwise.
//
// It returns 0 on success or:
//   ENC_ERR_INVALID_ARGUMENT: unknown codec, a flag that does not apply, or a
//     NULL pointer where one is needed.
//   ENC_ERR_BUFFER_TOO_SMALL: the output does not fit in `out_cap` bytes.
//   ENC_ERR_INVALID_CHAR, ENC_ERR_BAD_PADDING, ENC_ERR_TRAILING_BITS,
//     ENC_ERR_TRUNCATED, ENC_ERR_NON_CANONICAL, ENC_ERR_INVALID_UTF16: the
//     input is not valid for the codec (see "Codecs and flags").
//   ENC_ERR_UNSUPPORTED: as for enc_encode().
// Thread-safe; allocates nothing.
ENC_API ENC_WARN_UNUSED_RESULT int enc_decode(enc_codec codec, uint32_t flags, void *out,
                                              size_t out_cap, size_t *out_len, const void *in,
                                              size_t in_len, size_t *err_off);

// Per-codec wrappers.
//
// Each is enc_encode() or enc_decode() with its codec filled in, with the
// same arguments, ownership, errors and thread-safety; they exist so that
// calls read naturally and text is typed as char.

// enc_base64_encode is enc_encode(ENC_CODEC_BASE64, `flags`, `wrap`, ...):
// `flags` may hold ENC_FLAG_URL and ENC_FLAG_NOPAD.
ENC_API ENC_WARN_UNUSED_RESULT int enc_base64_encode(uint32_t flags, size_t wrap, char *out,
                                                     size_t out_cap, size_t *out_len,
                                                     const void *in, size_t in_len);

// enc_base64_encode_len returns the exact length enc_base64_encode() writes
// (enc_encode_max_len() for ENC_CODEC_BASE64).
ENC_API size_t enc_base64_encode_len(uint32_t flags, size_t wrap, size_t in_len);

// enc_base64_decode is enc_decode(ENC_CODEC_BASE64, `flags`, ...): `flags` may
// hold ENC_FLAG_URL, ENC_FLAG_NOPAD and ENC_FLAG_MIME.
ENC_API ENC_WARN_UNUSED_RESULT int enc_base64_decode(uint32_t flags, void *out, size_t out_cap,
                                                     size_t *out_len, const char *in, size_t in_len,
                                                     size_t *err_off);

// enc_base64_decode_max_len returns enc_decode_max_len() for ENC_CODEC_BASE64:
// 3 bytes for every 4 characters, rounded up.
ENC_API size_t enc_base64_decode_max_len(size_t in_len);

// enc_base32_encode is enc_encode(ENC_CODEC_BASE32, `flags`, 0, ...): `flags`
// may hold ENC_FLAG_BASE32HEX and ENC_FLAG_NOPAD.
ENC_API ENC_WARN_UNUSED_RESULT int enc_base32_encode(uint32_t flags, char *out, size_t out_cap,
                                                     size_t *out_len, const void *in,
                                                     size_t in_len);

// enc_base32_decode is enc_decode(ENC_CODEC_BASE32, `flags`, ...).
ENC_API ENC_WARN_UNUSED_RESULT int enc_base32_decode(uint32_t flags, void *out, size_t out_cap,
                                                     size_t *out_len, const char *in, size_t in_len,
                                                     size_t *err_off);

// enc_qp_encode is enc_encode(ENC_CODEC_QP, `flags`, 0, ...): `flags` may hold
// ENC_FLAG_BINARY.
ENC_API ENC_WARN_UNUSED_RESULT int enc_qp_encode(uint32_t flags, char *out, size_t out_cap,
                                                 size_t *out_len, const void *in, size_t in_len);

// enc_qp_decode is enc_decode(ENC_CODEC_QP, 0, ...).
ENC_API ENC_WARN_UNUSED_RESULT int enc_qp_decode(void *out, size_t out_cap, size_t *out_len,
                                                 const char *in, size_t in_len);

// enc_q_encode is enc_encode(ENC_CODEC_Q, `flags`, 0, ...): `flags` may hold
// ENC_FLAG_PHRASE.
ENC_API ENC_WARN_UNUSED_RESULT int enc_q_encode(uint32_t flags, char *out, size_t out_cap,
                                                size_t *out_len, const void *in, size_t in_len);

// enc_q_decode is enc_decode(ENC_CODEC_Q, 0, ...).
ENC_API ENC_WARN_UNUSED_RESULT int enc_q_decode(void *out, size_t out_cap, size_t *out_len,
                                                const char *in, size_t in_len);

// enc_utf7imap_encode is enc_encode(ENC_CODEC_UTF7IMAP, 0, 0, ...): UTF-8 in,
// modified UTF-7 out.
ENC_API ENC_WARN_UNUSED_RESULT int enc_utf7imap_encode(char *out, size_t out_cap, size_t *out_len,
                                                       const char *in, size_t in_len,
                                                       size_t *err_off);

// enc_utf7imap_decode is enc_decode(ENC_CODEC_UTF7IMAP, 0, ...): modified
// UTF-7 in, UTF-8 out.
ENC_API ENC_WARN_UNUSED_RESULT int enc_utf7imap_decode(char *out, size_t out_cap, size_t *out_len,
                                                       const char *in, size_t in_len,
                                                       size_t *err_off);

// enc_hex_encode is enc_encode(ENC_CODEC_HEX, `flags`, 0, ...): `flags` may
// hold ENC_FLAG_UPPER.
ENC_API ENC_WARN_UNUSED_RESULT int enc_hex_encode(uint32_t flags, char *out, size_t out_cap,
                                                  size_t *out_len, const void *in, size_t in_len);

// enc_hex_decode is enc_decode(ENC_CODEC_HEX, 0, ...).
ENC_API ENC_WARN_UNUSED_RESULT int enc_hex_decode(void *out, size_t out_cap, size_t *out_len,
                                                  const char *in, size_t in_len, size_t *err_off);

// Streaming.
//
// An enc_stream is a codec state that the caller allocates (on the stack, in
// a struct, anywhere) and sets up with enc_stream_init(). Input can then be
// fed in chunks of any size, even one byte or none, and the concatenated
// output is exactly that of the one-shot call on the whole input. Only a few
// bytes are held back between calls (for example up to two input bytes of an
// incomplete Base64 group, or trailing spaces that may turn out to end a
// quoted-printable line), and enc_stream_final() writes what they become.
// Error offsets count from the start of the stream. After an error the
// stream is failed: every later call returns the same code until the stream
// is set up again. The struct may be copied to fork a stream.

// enc_stream is the caller-owned state of a streaming codec. Its content is
// private; its size is part of the ABI.
typedef struct enc_stream {
  uint64_t opaque_[64];
} enc_stream;

// Directions for enc_stream_init().
typedef enum enc_direction {
  ENC_ENCODE = 1,
  ENC_DECODE = 2,
} enc_direction;

// enc_stream_init sets up `st` to encode or decode (`dir`) with `codec`,
// `flags` and `wrap` as enc_encode() and enc_decode() take them. It returns 0
// or ENC_ERR_INVALID_ARGUMENT (NULL `st`, unknown codec or direction, a flag
// or `wrap` that does not apply); `st` is then not usable. The stream borrows
// nothing; it needs no cleanup, but enc_stream_cleanup() is provided for
// symmetry.
ENC_API ENC_WARN_UNUSED_RESULT int enc_stream_init(enc_stream *st, enc_codec codec,
                                                   enc_direction dir, uint32_t flags, size_t wrap);

// enc_stream_max_len returns the most bytes that enc_stream_update() with
// `in_len` bytes followed by enc_stream_final() can write together, given
// what `st` holds now; it therefore bounds each of the two calls. For
// Base64, Base32 and hex encoding it is exact. It returns 0 for a failed or
// finished stream and SIZE_MAX when the bound does not fit in a size_t.
ENC_API size_t enc_stream_max_len(const enc_stream *st, size_t in_len);

// enc_stream_update feeds the `in_len` bytes at `in` to `st`, writes what can
// be produced so far to `out` (room for `out_cap` bytes) and sets `*out_len`.
// `in` may be NULL when `in_len` is 0. It returns 0 or the errors of
// enc_encode() or enc_decode() for the stream's codec, with `*err_off`
// counted from the start of the stream; ENC_ERR_INVALID_ARGUMENT also for a
// NULL pointer or a stream that is not set up or already finished.
// `out_cap` >= enc_stream_max_len(`st`, `in_len`) is always enough.
ENC_API ENC_WARN_UNUSED_RESULT int enc_stream_update(enc_stream *st, void *out, size_t out_cap,
                                                     size_t *out_len, const void *in, size_t in_len,
                                                     size_t *err_off);

// enc_stream_final ends the input of `st`, writes what the held-back bytes
// become (for example Base64 padding) and sets `*out_len`. It returns 0 or
// the errors of enc_stream_update() (for example ENC_ERR_TRUNCATED when a
// decoder's input ends inside a group, with `*err_off` the stream's length).
// After success the stream is finished: only enc_stream_init() and
// enc_stream_cleanup() may follow.
ENC_API ENC_WARN_UNUSED_RESULT int enc_stream_final(enc_stream *st, void *out, size_t out_cap,
                                                    size_t *out_len, size_t *err_off);

// enc_stream_cleanup clears `st`; it is a no-op on NULL.
ENC_API void enc_stream_cleanup(enc_stream *st);

// Implementations.
//
// The codecs run on one implementation chosen once, at first use: the first
// of enc_impl_get(0), enc_impl_get(1), ... that this CPU supports (for
// example "avx512", "avx2", "sse41", "swar", "scalar" on x86-64; "neon", "swar",
// "scalar" on aarch64). "scalar" is the specification that every other
// implementation is tested and fuzzed against; all produce the same bytes and
// the same errors. The environment variable ENCODIFY_IMPL=<name>, read at
// first use, forces one; a name that is unknown or not supported by the CPU
// selects "unsupported", whose codec calls all return ENC_ERR_UNSUPPORTED, so
// that a misconfigured test or benchmark fails instead of silently measuring
// something else.

// enc_impl_name returns the name of the implementation in use (a static
// string), choosing it first if needed. Thread-safe.
ENC_API const char *enc_impl_name(void);

// enc_impl_count returns the number of implementations compiled into this
// library, whether or not the CPU supports them. Thread-safe.
ENC_API size_t enc_impl_count(void);

// enc_impl_get returns the name (a static string) of implementation `index`,
// in priority order, or NULL when `index` >= enc_impl_count(). If `supported`
// is not NULL, it is set to 1 when this CPU can run it and 0 otherwise.
// Thread-safe.
ENC_API const char *enc_impl_get(size_t index, int *supported);

// enc_impl_force makes `name` the implementation in use, or returns to the
// automatic choice (ignoring ENCODIFY_IMPL) when `name` is NULL. It returns
// 0, or ENC_ERR_UNSUPPORTED when `name` is unknown or the CPU cannot run it;
// the choice is then left unchanged. Thread-safe, but meant for tests and
// benchmarks: calls already running finish on the previous implementation.
ENC_API ENC_WARN_UNUSED_RESULT int enc_impl_force(const char *name);

#ifdef __cplusplus
}
#endif

#endif // ENC_ENCODIFY_H
