// base64.c: the scalar Base64 codec of RFC 4648 (standard and URL-safe
// alphabets, optional padding, CRLF line wrapping) and the RFC 2045 MIME
// decoder; this file is the specification that every kernel must match. The
// stream engines here drive the selected implementation's kernels over the
// bulk of the input and handle group boundaries, padding, wrapping and
// errors themselves.
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

const char enc_b64_alpha_std[65] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const char enc_b64_alpha_url[65] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const uint8_t enc_b64_dtab_std[256] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3e, 0xff, 0xff, 0xff, 0x3f,
    0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff,
    0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

const uint8_t enc_b64_dtab_url[256] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3e, 0xff, 0xff,
    0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff,
    0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0xff, 0xff, 0xff, 0xff, 0x3f,
    0xff, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x32, 0x33, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

// Encoding.

// line_breaks returns how many CRLF are written before `chars` more
// characters when the current line holds `col` (breaks are written lazily,
// before the first character of the next line).
static size_t line_breaks(size_t col, size_t chars, size_t wrap) {
  if (wrap == 0 || chars == 0)
    return 0;
  return (col + chars - 1) / wrap;
}

static size_t final_chars(size_t rem, int nopad) {
  if (rem == 0)
    return 0;
  return nopad ? rem + 1 : 4;
}

void enc_b64e_init(struct enc_stream_state *st) {
  memset(&st->u.b64e, 0, sizeof st->u.b64e);
}

size_t enc_b64e_max(const struct enc_stream_state *st, size_t in_len) {
  size_t total = enc_add_sat(st->u.b64e.ncarry, in_len);
  size_t chars = enc_mul_sat(total / 3, 4);
  chars = enc_add_sat(chars, final_chars(total % 3, (st->flags & ENC_FLAG_NOPAD) != 0));
  if (chars == SIZE_MAX)
    return SIZE_MAX;
  size_t col = st->u.b64e.col;
  if (chars > SIZE_MAX - col) // line_breaks() adds them
    return SIZE_MAX;
  return enc_add_sat(chars, enc_mul_sat(2, line_breaks(col, chars, st->wrap)));
}

// put writes `n` characters, inserting CRLF whenever a line is full.
static char *put(struct enc_b64enc_state *e, size_t wrap, char *o, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    if (wrap != 0 && e->col == wrap) {
      *o++ = '\r';
      *o++ = '\n';
      e->col = 0;
    }
    *o++ = s[k];
    e->col++;
  }
  return o;
}

// encode_groups encodes the whole groups in `in` (in_len a multiple of 3) on
// one line: kernel first, scalar for whatever it leaves.
static char *encode_groups(const struct enc_impl *im, char *o, const uint8_t *in, size_t in_len,
                           int url) {
  size_t c = im->b64_encode(o, in, in_len, url);
  c += enc_b64_encode_tail(o + c / 3 * 4, in + c, in_len - c, url);
  return o + c / 3 * 4;
}

// encode_lines writes whole lines of a wrap that is a multiple of 4 while
// they start on a line boundary, each with one kernel call: the kernel gets
// a third more input than the line holds, so that it can stay in its vector
// loop to the line's end, and what it writes past the line is overwritten by
// the line break and the next line (the input left over guarantees both
// follow in this call). Advances `*pos` and returns the new output position.
static char *encode_lines(struct enc_b64enc_state *e, const struct enc_impl *im, char *o,
                          const char *end, size_t wrap, size_t *pos, const uint8_t *in,
                          size_t in_len, int url) {
  if (wrap % 4 != 0) // lines would end inside a group
    return o;
  size_t line_in = wrap / 4 * 3, ahead = line_in + wrap / 4;
  size_t i = *pos;
  // Many lines in one kernel call where the implementation has such a
  // kernel; it writes a CRLF after every line, and the last one is taken
  // back (the next line, or the caller's next break, writes over it).
  if (im->b64_encode_lines != NULL && (e->col == 0 || e->col == wrap)) {
    size_t pre = e->col == wrap ? 2 : 0, room = (size_t)(end - o);
    size_t n = (in_len - i) / line_in;
    if (room > pre && n > (room - pre) / (wrap + 2))
      n = (room - pre) / (wrap + 2);
    if (room > pre && n > 0) {
      if (pre) {
        o[0] = '\r';
        o[1] = '\n';
      }
      size_t done = im->b64_encode_lines(o + pre, in + i, n * line_in, wrap, url);
      if (done > 0) {
        o += pre + done * (wrap + 2) - 2;
        i += done * line_in;
        e->col = wrap;
      }
    }
  }
  while (e->col == 0 || e->col == wrap) {
    size_t pre = e->col == wrap ? 2 : 0;
    if (in_len - i < ahead || (size_t)(end - o) < pre + ahead / 3 * 4)
      break;
    if (pre) {
      o[0] = '\r';
      o[1] = '\n';
      o += 2;
    }
    size_t c = im->b64_encode(o, in + i, ahead, url);
    if (c < line_in)
      enc_b64_encode_tail(o + c / 3 * 4, in + i + c, line_in - c, url);
    o += wrap;
    i += line_in;
    e->col = wrap;
  }
  *pos = i;
  return o;
}

int enc_b64e_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_b64enc_state *e = &st->u.b64e;
  int url = (st->flags & ENC_FLAG_URL) != 0;
  size_t wrap = st->wrap;
  size_t total = e->ncarry + in_len;
  if (total < in_len)
    return ENC_ERR_BUFFER_TOO_SMALL;
  size_t chars = total / 3 * 4; // exact output of this call
  if (chars / 4 != total / 3)
    return ENC_ERR_BUFFER_TOO_SMALL;
  size_t need = chars;
  size_t breaks = line_breaks(e->col, chars, wrap);
  if (breaks > (SIZE_MAX - need) / 2)
    return ENC_ERR_BUFFER_TOO_SMALL;
  need += 2 * breaks;
  ENC_FAIL_IF(out_cap < need, ENC_ERR_BUFFER_TOO_SMALL);

  char *o = (char *)out;
  size_t i = 0;
  if (e->ncarry != 0) {
    if (total < 3) {
      memcpy(e->carry + e->ncarry, in, in_len);
      e->ncarry = (uint8_t)total;
      *written = 0;
      return 0;
    }
    uint8_t g[3];
    memcpy(g, e->carry, e->ncarry);
    i = 3 - e->ncarry;
    memcpy(g + e->ncarry, in, i);
    e->ncarry = 0;
    char t[4];
    enc_b64_encode_tail(t, g, 3, url);
    o = put(e, wrap, o, t, 4);
  }
  if (wrap == 0) {
    size_t bytes = (in_len - i) / 3 * 3;
    o = encode_groups(im, o, in + i, bytes, url);
    i += bytes;
  } else {
    o = encode_lines(e, im, o, (char *)out + out_cap, wrap, &i, in, in_len, url);
    while (in_len - i >= 3) {
      if (e->col >= wrap) {
        *o++ = '\r';
        *o++ = '\n';
        e->col = 0;
      }
      size_t q = (wrap - e->col) / 4;
      if (q > (in_len - i) / 3)
        q = (in_len - i) / 3;
      if (q != 0) {
        o = encode_groups(im, o, in + i, q * 3, url);
        i += q * 3;
        e->col += q * 4;
      } else { // a group that straddles the end of the line
        char t[4];
        enc_b64_encode_tail(t, in + i, 3, url);
        o = put(e, wrap, o, t, 4);
        i += 3;
      }
    }
  }
  memcpy(e->carry, in + i, in_len - i);
  e->ncarry = (uint8_t)(in_len - i);
  *written = (size_t)(o - (char *)out);
  return 0;
}

int enc_b64e_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_b64enc_state *e = &st->u.b64e;
  int nopad = (st->flags & ENC_FLAG_NOPAD) != 0;
  const char *abc = (st->flags & ENC_FLAG_URL) ? enc_b64_alpha_url : enc_b64_alpha_std;
  size_t n = final_chars(e->ncarry, nopad);
  size_t need = n + 2 * line_breaks(e->col, n, st->wrap);
  ENC_FAIL_IF(out_cap < need, ENC_ERR_BUFFER_TOO_SMALL);
  *written = 0;
  if (n == 0)
    return 0;
  uint32_t v = (uint32_t)e->carry[0] << 16 | (e->ncarry == 2 ? (uint32_t)e->carry[1] << 8 : 0);
  char t[4] = {abc[v >> 18], abc[(v >> 12) & 63], e->ncarry == 2 ? abc[(v >> 6) & 63] : '=', '='};
  char *o = put(e, st->wrap, (char *)out, t, n);
  e->ncarry = 0;
  *written = (size_t)(o - (char *)out);
  return 0;
}

// enc_b64e_flat is enc_b64e_update() and enc_b64e_final() on a fresh state
// without a wrap, fused: the one-shot call's path. The input is known whole,
// so the kernel takes every complete group and the final group is written
// directly; for 64 bytes of input that saves more time than the kernel takes.
int enc_b64e_flat(const struct enc_impl *im, uint32_t flags, uint8_t *out, size_t out_cap,
                  size_t *written, const uint8_t *in, size_t in_len) {
  int url = (flags & ENC_FLAG_URL) != 0;
  size_t groups = in_len / 3, rem = in_len % 3;
  ENC_FAIL_IF(groups > (SIZE_MAX - 4) / 4, ENC_ERR_BUFFER_TOO_SMALL);
  size_t need = groups * 4 + final_chars(rem, (flags & ENC_FLAG_NOPAD) != 0);
  ENC_FAIL_IF(out_cap < need, ENC_ERR_BUFFER_TOO_SMALL);
  char *o = (char *)out;
  size_t bytes = groups * 3;
  // The kernel gets the whole input: it encodes whole groups only, and the
  // byte or two after them let it use a full-width load for the last block.
  size_t c = im->b64_encode(o, in, in_len, url);
  c += enc_b64_encode_tail(o + c / 3 * 4, in + c, bytes - c, url);
  if (rem != 0) {
    const char *abc = url ? enc_b64_alpha_url : enc_b64_alpha_std;
    uint32_t v = (uint32_t)in[bytes] << 16 | (rem == 2 ? (uint32_t)in[bytes + 1] << 8 : 0);
    char *t = o + groups * 4;
    t[0] = abc[v >> 18];
    t[1] = abc[(v >> 12) & 63];
    if (rem == 2)
      t[2] = abc[(v >> 6) & 63];
    if (!(flags & ENC_FLAG_NOPAD)) {
      if (rem == 1)
        t[2] = '=';
      t[3] = '=';
    }
  }
  *written = need;
  return 0;
}

// enc_b64e_wrap_flat is enc_b64e_flat() for a wrap that is a multiple of 4
// (so that every line is whole groups): the same output as the engine, whose
// lines are the character stream cut every `wrap` characters with a CRLF
// between them. The implementation's line kernel writes every line that a
// CRLF follows; the last line and the final group are written directly, so
// that a short input costs few calls.
int enc_b64e_wrap_flat(const struct enc_impl *im, uint32_t flags, size_t wrap, uint8_t *out,
                       size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  int url = (flags & ENC_FLAG_URL) != 0, nopad = (flags & ENC_FLAG_NOPAD) != 0;
  size_t groups = in_len / 3, rem = in_len % 3;
  ENC_FAIL_IF(groups > (SIZE_MAX - 4) / 4, ENC_ERR_BUFFER_TOO_SMALL);
  size_t chars = groups * 4 + final_chars(rem, nopad);
  size_t breaks = line_breaks(0, chars, wrap);
  ENC_FAIL_IF(breaks > (SIZE_MAX - chars) / 2, ENC_ERR_BUFFER_TOO_SMALL);
  size_t need = chars + 2 * breaks;
  ENC_FAIL_IF(out_cap < need, ENC_ERR_BUFFER_TOO_SMALL);
  size_t line_in = wrap / 4 * 3;
  // Whole lines with a CRLF after them: every line but the last one.
  size_t lines = in_len == 0 ? 0 : (in_len - 1) / line_in;
  char *o = (char *)out;
  size_t i = 0;
  if (lines > 0 && im->b64_encode_lines != NULL) {
    size_t done = im->b64_encode_lines(o, in, lines * line_in, wrap, url);
    o += done * (wrap + 2);
    i = done * line_in;
  }
  // Without a line kernel, one call per line, which gets 16 bytes more
  // input than the line holds (one 128-bit load) so that a kernel that
  // loads past its last group can stay in its vector loop to the line's
  // end; what it writes past the line lies inside the output, and the CRLF
  // and the rest of the output overwrite it.
  const char *end = (const char *)out + need;
  for (; i < lines * line_in; i += line_in) {
    size_t ahead = line_in + 16;
    if (ahead > in_len - i || (size_t)(end - o) < ahead / 3 * 4)
      ahead = line_in;
    size_t c = im->b64_encode(o, in + i, ahead, url);
    if (c < line_in)
      enc_b64_encode_tail(o + c / 3 * 4, in + i + c, line_in - c, url);
    o[wrap] = '\r';
    o[wrap + 1] = '\n';
    o += wrap + 2;
  }
  size_t last = in_len - i, bytes = last - last % 3;
  size_t c = im->b64_encode(o, in + i, last, url);
  c += enc_b64_encode_tail(o + c / 3 * 4, in + i + c, bytes - c, url);
  o += bytes / 3 * 4;
  if (rem != 0) {
    const char *abc = url ? enc_b64_alpha_url : enc_b64_alpha_std;
    uint32_t v = (uint32_t)in[in_len - rem] << 16 | (rem == 2 ? (uint32_t)in[in_len - 1] << 8 : 0);
    *o++ = abc[v >> 18];
    *o++ = abc[(v >> 12) & 63];
    if (rem == 2)
      *o++ = abc[(v >> 6) & 63];
    if (!nopad) {
      if (rem == 1)
        *o++ = '=';
      *o++ = '=';
    }
  }
  *written = (size_t)(o - (char *)out);
  return 0;
}

// Decoding.

void enc_b64d_init(struct enc_stream_state *st) {
  memset(&st->u.b64d, 0, sizeof st->u.b64d);
}

size_t enc_b64d_max(const struct enc_stream_state *st, size_t in_len) {
  size_t t = enc_add_sat(st->u.b64d.nacc, in_len);
  return t / 4 * 3 + (t % 4) * 3 / 4;
}

// emit_partial writes the bytes of an unfinished group of `k` sextets (2 or 3
// give 1 or 2 bytes; 0 or 1 give none), dropping the unused low bits.
static int emit_partial(uint8_t *out, size_t out_cap, size_t *o, uint32_t acc, uint32_t k) {
  size_t n = k >= 2 ? k - 1 : 0;
  ENC_FAIL_IF(out_cap - *o < n, ENC_ERR_BUFFER_TOO_SMALL);
  if (k == 2) {
    out[(*o)++] = (uint8_t)(acc >> 4);
  } else if (k == 3) {
    out[(*o)++] = (uint8_t)(acc >> 10);
    out[(*o)++] = (uint8_t)(acc >> 2);
  }
  return 0;
}

static int emit_group(uint8_t *out, size_t out_cap, size_t *o, uint32_t acc) {
  ENC_FAIL_IF(out_cap - *o < 3, ENC_ERR_BUFFER_TOO_SMALL);
  out[*o] = (uint8_t)(acc >> 16);
  out[*o + 1] = (uint8_t)(acc >> 8);
  out[*o + 2] = (uint8_t)acc;
  *o += 3;
  return 0;
}

// strict_char is the RFC 4648 decoder, one character at absolute offset `off`.
static int strict_char(struct enc_stream_state *st, const uint8_t *dt, uint8_t *out, size_t out_cap,
                       size_t *o, uint8_t c, size_t off) {
  struct enc_b64dec_state *d = &st->u.b64d;
  uint8_t v = dt[c];
  st->err_off = off;
  switch (d->mode) {
  case ENC_B64D_NORMAL:
    if (v < 64) {
      d->acc = d->acc << 6 | v;
      if (++d->nacc == 4) {
        ENC_TRY(emit_group(out, out_cap, o, d->acc));
        d->acc = 0;
        d->nacc = 0;
      }
      return 0;
    }
    ENC_FAIL_IF(v != ENC_DTAB_PAD || (st->flags & ENC_FLAG_NOPAD), ENC_ERR_INVALID_CHAR);
    ENC_FAIL_IF(d->nacc < 2, ENC_ERR_BAD_PADDING);
    st->err_off = off - 1;
    ENC_FAIL_IF(d->acc & (d->nacc == 2 ? 0xF : 0x3), ENC_ERR_TRAILING_BITS);
    ENC_TRY(emit_partial(out, out_cap, o, d->acc, d->nacc));
    d->need = (uint8_t)(3 - d->nacc);
    d->mode = d->need ? ENC_B64D_PADDING : ENC_B64D_DONE;
    d->acc = 0;
    d->nacc = 0;
    return 0;
  case ENC_B64D_PADDING:
    ENC_FAIL_IF(v != ENC_DTAB_PAD, ENC_ERR_BAD_PADDING);
    if (--d->need == 0)
      d->mode = ENC_B64D_DONE;
    return 0;
  default: // data after the padding
    ENC_LOG_ERROR(ENC_ERR_BAD_PADDING);
    return ENC_ERR_BAD_PADDING;
  }
}

static int mime_char(struct enc_b64dec_state *d, const uint8_t *dt, uint8_t *out, size_t out_cap,
                     size_t *o, uint8_t c) {
  uint8_t v = dt[c];
  if (v < 64) {
    d->acc = d->acc << 6 | v;
    if (++d->nacc == 4) {
      ENC_TRY(emit_group(out, out_cap, o, d->acc));
      d->acc = 0;
      d->nacc = 0;
    }
  } else if (v == ENC_DTAB_PAD) {
    ENC_TRY(emit_partial(out, out_cap, o, d->acc, d->nacc));
    d->acc = 0;
    d->nacc = 0;
    d->mode = ENC_B64D_DONE;
  }
  return 0;
}

int enc_b64d_update(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                    size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  struct enc_b64dec_state *d = &st->u.b64d;
  int url = (st->flags & ENC_FLAG_URL) != 0;
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  const char *s = (const char *)in;
  size_t i = 0, o = 0, w;
  if (st->flags & ENC_FLAG_MIME) {
    if (d->mode == ENC_B64D_DONE) {
      *written = 0;
      return 0;
    }
    // The kernel takes the line shape from its first line and needs a
    // group boundary. An input split inside a line would start it on a
    // fragment and send everything to its general loop, about 3x slower,
    // and one split inside a group would leave it all to the scalar loop;
    // so the rest of that line (when its line feed is near) and of that
    // group are decoded here first, a character at a time.
    size_t upto = 0;
    if (d->mid_line) {
      const uint8_t *lf = memchr(in, '\n', in_len < 128 ? in_len : 128);
      if (lf != NULL)
        upto = (size_t)(lf - in) + 1;
    }
    for (; i < in_len && (i < upto || d->nacc != 0) && d->mode != ENC_B64D_DONE; i++)
      ENC_TRY(mime_char(d, dt, out, out_cap, &o, in[i]));
    if (d->mode == ENC_B64D_DONE) { // a `=` ended the data
      *written = o;
      return 0;
    }
    if (i < in_len && d->nacc == 0) {
      i += im->b64_decode_mime(out + o, out_cap - o, &w, s + i, in_len - i, url, &d->acc, &d->nacc);
      o += w;
    }
    i += enc_b64_decode_mime_tail(out + o, out_cap - o, &w, s + i, in_len - i, url, &d->acc,
                                  &d->nacc);
    o += w;
    for (; i < in_len && d->mode != ENC_B64D_DONE; i++)
      ENC_TRY(mime_char(d, dt, out, out_cap, &o, in[i]));
    if (in_len > 0)
      d->mid_line = in[in_len - 1] != '\n';
    *written = o;
    return 0;
  }
  for (; i < in_len && (d->nacc != 0 || d->mode != ENC_B64D_NORMAL); i++)
    ENC_TRY(strict_char(st, dt, out, out_cap, &o, in[i], st->pos + i));
  if (i < in_len) {
    size_t c = im->b64_decode(out + o, out_cap - o, &w, s + i, in_len - i, url);
    i += c;
    o += w;
    c = enc_b64_decode_tail(out + o, out_cap - o, &w, s + i, in_len - i, url);
    i += c;
    o += w;
  }
  for (; i < in_len; i++)
    ENC_TRY(strict_char(st, dt, out, out_cap, &o, in[i], st->pos + i));
  *written = o;
  return 0;
}

int enc_b64d_final(struct enc_stream_state *st, uint8_t *out, size_t out_cap, size_t *written) {
  struct enc_b64dec_state *d = &st->u.b64d;
  size_t o = 0;
  *written = 0;
  if (st->flags & ENC_FLAG_MIME) {
    if (d->mode != ENC_B64D_DONE)
      ENC_TRY(emit_partial(out, out_cap, &o, d->acc, d->nacc));
    *written = o;
    return 0;
  }
  st->err_off = st->pos;
  if (d->mode == ENC_B64D_PADDING)
    return ENC_ERR_BAD_PADDING;
  if (d->mode == ENC_B64D_NORMAL && d->nacc != 0) {
    ENC_FAIL_IF(d->nacc == 1, ENC_ERR_TRUNCATED);
    ENC_FAIL_IF(!(st->flags & ENC_FLAG_NOPAD), ENC_ERR_BAD_PADDING);
    st->err_off = st->pos - 1;
    ENC_FAIL_IF(d->acc & (d->nacc == 2 ? 0xF : 0x3), ENC_ERR_TRAILING_BITS);
    ENC_TRY(emit_partial(out, out_cap, &o, d->acc, d->nacc));
  }
  *written = o;
  return 0;
}

// finish_group decodes `n` characters that end a strict input right after
// whole groups, when they are the usual final group: "xx==" or "xxx="
// (or, under ENC_FLAG_NOPAD, "xx" or "xxx") with zero trailing bits and room
// in the output. It returns 1 when it wrote them, and 0, having written
// nothing, for anything else, which the character decoder then takes (and
// reports with its offset). A short input's end thus costs a few loads, not
// a pass through the stream state machine and the final call.
static inline int finish_group(uint32_t flags, uint8_t *out, size_t out_cap, size_t *o,
                               const char *in, size_t n, int url) {
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  size_t k; // sextets in the group
  if (flags & ENC_FLAG_NOPAD) {
    if (n != 2 && n != 3)
      return 0;
    k = n;
  } else {
    if (n != 4 || in[3] != '=')
      return 0;
    k = in[2] == '=' ? 2 : 3;
  }
  uint32_t a = dt[(uint8_t)in[0]], b = dt[(uint8_t)in[1]];
  uint32_t c = k == 3 ? dt[(uint8_t)in[2]] : 0;
  if ((a | b | c) & 0xC0 || out_cap - *o < k - 1)
    return 0;
  uint32_t v = a << 18 | b << 12 | c << 6;
  if (v & (k == 2 ? 0xFFFF : 0xFF)) // trailing bits
    return 0;
  out[*o] = (uint8_t)(v >> 16);
  if (k == 3)
    out[*o + 1] = (uint8_t)(v >> 8);
  *o += k - 1;
  return 1;
}

// enc_b64d_flat is enc_b64d_update() and enc_b64d_final() on a fresh strict
// (not MIME) state `st`, fused for the one-shot call: the kernel and the
// group loop take the bulk, and the padding and any error go through the
// same character-by-character decoder as in a stream.
int enc_b64d_flat(struct enc_stream_state *st, const struct enc_impl *im, uint8_t *out,
                  size_t out_cap, size_t *written, const uint8_t *in, size_t in_len) {
  int url = (st->flags & ENC_FLAG_URL) != 0;
  const char *s = (const char *)in;
  size_t w, o;
  size_t i = im->b64_decode(out, out_cap, &o, s, in_len, url);
  // Most kernels stop only at the final group (or the end): then the tail
  // loop would find nothing to do, at the cost of its loads.
  if (in_len - i <= 4 &&
      (i == in_len || finish_group(st->flags, out, out_cap, &o, s + i, in_len - i, url))) {
    *written = o;
    return 0;
  }
  i += enc_b64_decode_tail(out + o, out_cap - o, &w, s + i, in_len - i, url);
  o += w;
  if (i == in_len || finish_group(st->flags, out, out_cap, &o, s + i, in_len - i, url)) {
    *written = o;
    return 0;
  }
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  for (; i < in_len; i++)
    ENC_TRY(strict_char(st, dt, out, out_cap, &o, in[i], i));
  st->pos = in_len;
  ENC_TRY(enc_b64d_final(st, out + o, out_cap - o, &w));
  *written = o + w;
  return 0;
}
