// pgp_write.c: the byte-level output of the OpenPGP encryption engine:
// new-format packet headers (RFC 9580 §4.2.1), packets of unknown length
// streamed with partial body lengths in fixed pieces (§4.2.1.4), so that a
// message of any size passes through a constant amount of memory, and ASCII
// armor (§6.2) streamed in blocks of 64 lines, with libencodify doing the
// Base64 and the implementation table's kernel the CRC-24.
#include <string.h>

#include "encodify.h"
#include "pgp_encrypt_internal.h"

size_t mc_pgp_header_write(uint8_t out[6], uint8_t tag, size_t body_len) {
  out[0] = (uint8_t)(0xc0 | tag);
  if (body_len < 192) {
    out[1] = (uint8_t)body_len;
    return 2;
  }
  if (body_len < 8384) {
    size_t v = body_len - 192;
    out[1] = (uint8_t)((v >> 8) + 192);
    out[2] = (uint8_t)v;
    return 3;
  }
  out[1] = 0xff;
  out[2] = (uint8_t)(body_len >> 24);
  out[3] = (uint8_t)(body_len >> 16);
  out[4] = (uint8_t)(body_len >> 8);
  out[5] = (uint8_t)body_len;
  return 6;
}

void mc_pgp_partial_init(mc_pgp_partial *p, uint8_t tag, mc_pgp_sink_fn sink, void *opaque) {
  p->tag = tag;
  p->started = 0;
  p->len = 0;
  p->sink = sink;
  p->opaque = opaque;
}

// emit_piece sends one partial piece of MC_PGP_PARTIAL_LEN octets: the
// `buf_len` octets waiting in the buffer, then the rest from `data` (the
// caller's input, or the buffer itself when it is full).
static int emit_piece(mc_pgp_partial *p, size_t buf_len, const uint8_t *data) {
  uint8_t hdr[2];
  size_t n = 0;
  if (!p->started)
    hdr[n++] = (uint8_t)(0xc0 | p->tag);
  hdr[n++] = (uint8_t)(0xe0 | MC_PGP_PARTIAL_LOG2);
  p->started = 1;
  MC_TRY(p->sink(p->opaque, hdr, n));
  if (buf_len > 0)
    MC_TRY(p->sink(p->opaque, p->buf, buf_len));
  if (buf_len < MC_PGP_PARTIAL_LEN)
    MC_TRY(p->sink(p->opaque, data, MC_PGP_PARTIAL_LEN - buf_len));
  p->len = 0;
  return 0;
}

int mc_pgp_partial_write(mc_pgp_partial *p, const uint8_t *in, size_t in_len) {
  while (in_len > 0) {
    // A piece is only sent once more bytes follow it, so that the last
    // piece, which must carry a definite length, is never empty-handed.
    if (p->len == MC_PGP_PARTIAL_LEN)
      MC_TRY(emit_piece(p, p->len, p->buf));
    // A piece that the input completes, with more to follow, goes out from
    // the buffer's head and the input directly: copying the input through
    // `buf` first cost a pass over every message (bench_pgp), and the
    // encrypted data packet's pieces rarely start with an empty buffer (the
    // SEIPD head and the OCB partial blocks leave a few octets in it). The
    // bytes written are the same; only the sink sees more, shorter calls.
    if (in_len > MC_PGP_PARTIAL_LEN - p->len) {
      size_t take = MC_PGP_PARTIAL_LEN - p->len;
      MC_TRY(emit_piece(p, p->len, in));
      in += take;
      in_len -= take;
      continue;
    }
    size_t take = MC_PGP_PARTIAL_LEN - p->len;
    if (take > in_len)
      take = in_len;
    memcpy(p->buf + p->len, in, take);
    p->len += take;
    in += take;
    in_len -= take;
  }
  return 0;
}

int mc_pgp_partial_finish(mc_pgp_partial *p) {
  uint8_t hdr[6];
  size_t n = mc_pgp_header_write(hdr, p->tag, p->len);
  // After partial pieces the tag octet has been sent; only the length stays.
  const uint8_t *h = p->started ? hdr + 1 : hdr;
  size_t h_len = p->started ? n - 1 : n;
  p->started = 1;
  MC_TRY(p->sink(p->opaque, h, h_len));
  MC_TRY(p->sink(p->opaque, p->buf, p->len));
  p->len = 0;
  return 0;
}

static const char armor_begin[] = "-----BEGIN PGP MESSAGE-----\n\n";
static const char armor_end[] = "-----END PGP MESSAGE-----\n";

void mc_pgp_armor_init(mc_pgp_armor *a, int with_crc, mc_pgp_sink_fn sink, void *opaque) {
  memset(a, 0, sizeof *a);
  a->sink = sink;
  a->opaque = opaque;
  a->with_crc = with_crc != 0;
  a->crc = MC_PGP_CRC24_INIT;
}

size_t mc_pgp_armor_len(size_t in_len, int with_crc) {
  size_t fixed = sizeof armor_begin - 1 + sizeof armor_end - 1 + (with_crc ? 6 : 0);
  if (in_len > (SIZE_MAX - fixed) / 65 * 48)
    return SIZE_MAX;
  size_t chars = in_len / 3 * 4 + (in_len % 3 ? 4 : 0);
  return fixed + chars + (chars + 63) / 64;
}

// armor_lines writes the `in_len` bytes at `in` (1 to MC_PGP_ARMOR_BLOCK_IN)
// as armor lines of 48 bytes each, the last one possibly shorter, in one
// call of the sink. libencodify encodes the whole run without line breaks
// (its wrapped encoder ends lines with CRLF, armor here uses LF) into the
// tail of `text`, and each line then moves down by its index to make room
// for its LF: line k moves from `lines` + 64k to 65k, never past a line not
// yet moved. A constant `in_len` (the full block) lets the compiler inline
// the 64-byte moves.
static inline int armor_lines(mc_pgp_armor *a, const uint8_t *in, size_t in_len) {
  if (a->with_crc)
    a->crc = mc_pgp_crc24_update(a->crc, in, in_len);
  size_t chars = (in_len + 2) / 3 * 4, lines = (chars + 63) / 64, n = 0;
  char *text = a->text;
  if (enc_base64_encode(0, 0, text + lines, chars, &n, in, in_len) != 0 || n != chars)
    return MC_ERR_INVALID_ARGUMENT;
  size_t k = 0;
  for (; (k + 1) * 64 <= chars; k++) {
    char line[64];
    memcpy(line, text + lines + 64 * k, 64);
    memcpy(text + 65 * k, line, 64);
    text[65 * k + 64] = '\n';
  }
  if (k < lines) {
    size_t rest = chars - 64 * k;
    memmove(text + 65 * k, text + lines + 64 * k, rest);
    text[65 * k + rest] = '\n';
  }
  return a->sink(a->opaque, (const uint8_t *)text, chars + lines);
}

int mc_pgp_armor_write(void *armor, const uint8_t *in, size_t in_len) {
  mc_pgp_armor *a = armor;
  if (!a->started) {
    a->started = 1;
    MC_TRY(a->sink(a->opaque, (const uint8_t *)armor_begin, sizeof armor_begin - 1));
  }
  if (in_len == 0)
    return 0;
  if (a->len > 0) {
    size_t take = sizeof a->in - a->len;
    if (take > in_len)
      take = in_len;
    memcpy(a->in + a->len, in, take);
    a->len += take;
    in += take;
    in_len -= take;
    if (a->len < sizeof a->in)
      return 0;
    MC_TRY(armor_lines(a, a->in, sizeof a->in));
    a->len = 0;
  }
  // Whole blocks go from the caller's input straight to the encoder.
  for (; in_len >= MC_PGP_ARMOR_BLOCK_IN;
       in += MC_PGP_ARMOR_BLOCK_IN, in_len -= MC_PGP_ARMOR_BLOCK_IN)
    MC_TRY(armor_lines(a, in, MC_PGP_ARMOR_BLOCK_IN));
  if (in_len > 0)
    memcpy(a->in, in, in_len);
  a->len = in_len; // the buffer was empty here
  return 0;
}

int mc_pgp_armor_finish(mc_pgp_armor *a) {
  MC_TRY(mc_pgp_armor_write(a, NULL, 0));
  if (a->len > 0)
    MC_TRY(armor_lines(a, a->in, a->len));
  a->len = 0;
  if (a->with_crc) {
    uint8_t c[3] = {(uint8_t)(a->crc >> 16), (uint8_t)(a->crc >> 8), (uint8_t)a->crc};
    char text[8];
    size_t n = 0;
    text[0] = '=';
    if (enc_base64_encode(0, 0, text + 1, sizeof text - 2, &n, c, 3) != 0)
      return MC_ERR_INVALID_ARGUMENT;
    text[1 + n] = '\n';
    MC_TRY(a->sink(a->opaque, (const uint8_t *)text, n + 2));
  }
  return a->sink(a->opaque, (const uint8_t *)armor_end, sizeof armor_end - 1);
}
