// bench_internal.h: what bench_encodify.c, the input generators and every
// adapter (ours and the peers') share. An adapter is a named table of
// operations with one C signature, so that the main loop measures ours and the
// peers alike. The header is also included from C++ (peer_simdutf.cc).
#ifndef ENC_BENCH_INTERNAL_H
#define ENC_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// bench_op names one codec operation. Every implementation of an operation
// turns the same input into the same output (see BENCH_LF_LINES for the one
// allowed difference), which the main loop checks before it times anything.
enum bench_op {
  BENCH_B64_ENCODE,         // binary -> Base64, standard alphabet, padded, one line
  BENCH_B64_ENCODE_WRAP76,  // binary -> Base64 in lines of 76 columns, each ending CRLF
  BENCH_B64URL_ENCODE,      // binary -> Base64url, one line (padding: see bench_encodify.c)
  BENCH_B64_DECODE,         // one line of padded standard Base64 -> binary
  BENCH_B64_DECODE_MIME,    // MIME Base64 (line breaks, other junk skipped) -> binary
  BENCH_B64_DECODE_MIME_4K, // the same fed in 4 KiB pieces through each one's streaming API
  BENCH_B64URL_DECODE,      // one line of Base64url -> binary
  BENCH_QP_ENCODE,          // text (CRLF = line break) -> quoted-printable, lines <= 76
  BENCH_QP_ENCODE_BINARY,   // bytes (CR, LF encoded too) -> quoted-printable, lines <= 76
  BENCH_QP_DECODE,          // quoted-printable -> bytes
  BENCH_Q_ENCODE,           // header text -> RFC 2047 "Q" encoded-text (unstructured)
  BENCH_Q_DECODE,           // RFC 2047 "Q" encoded-text -> bytes
  BENCH_B32_ENCODE,         // binary -> Base32 (RFC 4648, padded)
  BENCH_B32_DECODE,         // Base32 -> binary
  BENCH_HEX_ENCODE,         // binary -> hex
  BENCH_HEX_DECODE,         // hex -> binary
  BENCH_UTF7_ENCODE,        // UTF-8 -> IMAP modified UTF-7 (RFC 3501 5.1.3)
  BENCH_UTF7_DECODE,        // IMAP modified UTF-7 -> UTF-8
  BENCH_OP_COUNT
};

// bench_fn converts `in_len` bytes at `in` into at most `out_cap` bytes at
// `out` and stores the output length in `*out_len`. It returns 0 on success
// and any other value on failure. It must not allocate where the peer's API
// lets it avoid that, and must keep no state between calls.
typedef int (*bench_fn)(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                        size_t in_len);

// BENCH_LF_LINES marks an operation whose line breaks are a bare LF where the
// specification of the operation says CRLF (GMime and simdutf write LF). Its
// output is compared with the expected one after every CR of a CRLF pair is
// dropped from the latter.
#define BENCH_LF_LINES 1u

// BENCH_LONG_LINES marks a quoted-printable encoder known to write some lines
// longer than the 76 characters of RFC 2045 (GMime 3.2 does, by up to 3, where
// an encoded character meets a soft line break). Its output must still decode
// to the input, but the line length is not held against it.
#define BENCH_LONG_LINES 2u

// BENCH_PIECE: the piece of BENCH_B64_DECODE_MIME_4K, what a read() from a
// socket or a file typically returns; it falls inside lines and groups.
#define BENCH_PIECE 4096

struct bench_op_fn {
  int op; // enum bench_op
  bench_fn fn;
  unsigned flags; // BENCH_LF_LINES, BENCH_LONG_LINES or 0
};

// bench_codec is one implementation: ours under a forced kernel, memcpy, or a
// peer. `ops` ends with an entry whose `fn` is NULL. `init`, when not NULL,
// runs once before the first operation and returns 0 on success; a codec whose
// `init` fails is reported on stderr and left out.
struct bench_codec {
  const char *name;
  int (*init)(void);
  const struct bench_op_fn *ops;
};

// The peers; each is defined only when its adapter is built (BENCH_HAVE_*).
extern const struct bench_codec bench_peer_gmime;
extern const struct bench_codec bench_peer_glib;
extern const struct bench_codec bench_peer_libb64;
extern const struct bench_codec bench_peer_boringssl;
extern const struct bench_codec bench_peer_simdutf;
extern const struct bench_codec bench_peer_simdutf_haswell;

// Ours (bench_ours.c): one table of operations calling the public API, and
// the implementations of the dispatch table to force in turn.
extern const struct bench_op_fn bench_ours_ops[];

// bench_ours_count returns how many of our implementations this CPU runs.
size_t bench_ours_count(void);

// bench_ours_name returns the name under which the `i`-th is reported,
// "encodify-" and its dispatch name.
const char *bench_ours_name(size_t i);

// bench_ours_select forces the `i`-th implementation for the calls that
// follow and returns 0, or non-zero when it cannot be forced.
int bench_ours_select(size_t i);

// bench_ours_select_default returns to the implementation chosen for the CPU.
void bench_ours_select_default(void);

// Deterministic inputs (bench_inputs.c). Every generator writes exactly
// `len` bytes and gives the same bytes for the same `seed` on every machine.

// bench_gen_random fills `buf` with uniformly random bytes.
void bench_gen_random(uint8_t *buf, size_t len, uint64_t seed);

// bench_gen_text writes realistic mail body text: mostly ASCII prose in
// English, French, German and Spanish with accented words (UTF-8, and in some
// paragraphs Latin-1), lines ending CRLF, some long unwrapped paragraphs, an
// occasional '=', tab and trailing space. The end may cut a line or a UTF-8
// sequence.
void bench_gen_text(uint8_t *buf, size_t len, uint64_t seed);

// bench_gen_mailboxes writes valid UTF-8 mailbox names, in many scripts and
// with '&', joined by '/'; the end never cuts a UTF-8 sequence.
void bench_gen_mailboxes(uint8_t *buf, size_t len, uint64_t seed);

// Reference encoders and decoders, plain and slow: they make the inputs of
// the decoding benchmarks and the expected outputs of the encoding ones.
// Each returns the output length; `out` must hold bench_ref_max_len(in_len).
size_t bench_ref_max_len(size_t in_len);

// bench_ref_b64_encode writes Base64 with the standard alphabet, or the URL
// one when `url`; '=' padding when `pad`; and, when `wrap` > 0, a CRLF after
// every `wrap` characters and after the last line.
size_t bench_ref_b64_encode(uint8_t *out, const uint8_t *in, size_t in_len, int url, int pad,
                            size_t wrap);

// bench_ref_qp_encode writes quoted-printable (RFC 2045 6.7) with soft line
// breaks "=\r\n" that keep every line within 76 characters. When `binary`, CR
// and LF are encoded too; otherwise each CRLF of the input is a hard line
// break and a lone CR or LF is encoded.
size_t bench_ref_qp_encode(uint8_t *out, const uint8_t *in, size_t in_len, int binary);

// bench_ref_qp_decode decodes quoted-printable as written by any encoder
// (soft breaks "=\r\n" or "=\n", upper- or lowercase hex). It returns
// (size_t)-1 on an '=' that starts neither and, when `max_line` > 0, on a line
// longer than `max_line` characters, so that it also checks an encoder.
size_t bench_ref_qp_decode(uint8_t *out, const uint8_t *in, size_t in_len, size_t max_line);

// bench_ref_q_encode writes the RFC 2047 "Q" encoding for unstructured text:
// space as '_', printable ASCII but '=', '?' and '_' as itself, the rest =XX.
size_t bench_ref_q_encode(uint8_t *out, const uint8_t *in, size_t in_len);

// bench_ref_b32_encode writes RFC 4648 Base32 with '=' padding.
size_t bench_ref_b32_encode(uint8_t *out, const uint8_t *in, size_t in_len);

// bench_ref_hex_encode writes two hex digits per byte, uppercase when `upper`.
size_t bench_ref_hex_encode(uint8_t *out, const uint8_t *in, size_t in_len, int upper);

// bench_ref_utf7_encode converts valid UTF-8 into IMAP modified UTF-7.
size_t bench_ref_utf7_encode(uint8_t *out, const uint8_t *in, size_t in_len);

#ifdef __cplusplus
}
#endif

#endif // ENC_BENCH_INTERNAL_H
