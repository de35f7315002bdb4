// pgp_write.c: the byte-level output of the OpenPGP encryption engine:
// new-format packet headers (RFC 9580 §4.2.1), packets of unknown length
// streamed with partial body lengths in fixed pieces (§4.2.1.4), so that a
// message of any size passes through a constant amount of memory, and ASCII
// armor (§6.2) streamed line by line, with libencodify doing the Base64.
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

uint32_t mc_pgp_crc24_update(uint32_t crc, const uint8_t *in, size_t in_len) {
  for (size_t i = 0; i < in_len; i++) {
    crc ^= (uint32_t)in[i] << 16;
    for (int b = 0; b < 8; b++) {
      crc <<= 1;
      if (crc & 0x1000000)
        crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

static const char armor_begin[] = "-----BEGIN PGP MESSAGE-----\n\n";
static const char armor_end[] = "-----END PGP MESSAGE-----\n";

void mc_pgp_armor_init(mc_pgp_armor *a, int with_crc, mc_pgp_sink_fn sink, void *opaque) {
  memset(a, 0, sizeof *a);
  a->sink = sink;
  a->opaque = opaque;
  a->with_crc = with_crc != 0;
  a->crc = 0xb704ce;
}

static int armor_line(mc_pgp_armor *a, const uint8_t *in, size_t in_len) {
  char text[66];
  size_t n = 0;
  if (enc_base64_encode(0, 0, text, sizeof text - 1, &n, in, in_len) != 0)
    return MC_ERR_INVALID_ARGUMENT;
  text[n++] = '\n';
  return a->sink(a->opaque, (const uint8_t *)text, n);
}

int mc_pgp_armor_write(void *armor, const uint8_t *in, size_t in_len) {
  mc_pgp_armor *a = armor;
  if (!a->started) {
    a->started = 1;
    MC_TRY(a->sink(a->opaque, (const uint8_t *)armor_begin, sizeof armor_begin - 1));
  }
  if (a->with_crc)
    a->crc = mc_pgp_crc24_update(a->crc, in, in_len);
  while (in_len > 0) {
    size_t take = sizeof a->line - a->len;
    if (take > in_len)
      take = in_len;
    memcpy(a->line + a->len, in, take);
    a->len += take;
    in += take;
    in_len -= take;
    if (a->len == sizeof a->line) {
      MC_TRY(armor_line(a, a->line, a->len));
      a->len = 0;
    }
  }
  return 0;
}

int mc_pgp_armor_finish(mc_pgp_armor *a) {
  MC_TRY(mc_pgp_armor_write(a, NULL, 0));
  if (a->len > 0)
    MC_TRY(armor_line(a, a->line, a->len));
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
