// transform.c: Base64 bodies stored decoded (FORMAT.md "Transforms"). At
// delivery msx_build finds the Base64 leaf bodies of a parsed message that
// have a regular shape, decodes them strictly into the "stream" the blob's
// zstd frames hold, and keeps a segment only if re-encoding it gives back
// its raw bytes exactly; on read msx_stream_range and msx_expand turn a raw
// range into the stream range it needs and rebuild the raw bytes from it,
// with the same encoder, so reads are byte-exact by construction.
#include "transform.h"

#include "encodify.h"
#include "mailstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// XF_VLINE is the line length a one-line segment (line 0) is cut into for
// range reads and re-encoding: a partial read of it re-encodes from the
// start of the 4,096-character piece it starts in. XF_BATCH is how many
// characters one encoder call writes.
#define XF_VLINE 4096u
#define XF_BATCH 8192u

// geo is a segment's layout: L characters per line (XF_VLINE for one
// line), e line-break bytes, P = L + e raw bytes per line, nchars
// characters on nlines lines, q decoded bytes per full line.
struct geo {
  uint64_t L, e, P, nchars, nlines, q;
};

static void geo_of(const struct msr_xf_seg *s, struct geo *g) {
  g->L = s->line ? s->line : XF_VLINE;
  g->e = s->line ? ((s->flags & MSR_XF_CRLF) ? 2 : 1) : 0;
  g->P = g->L + g->e;
  g->nchars = (s->flags & MSR_XF_NOPAD) ? (4 * s->dec + 2) / 3 : 4 * ((s->dec + 2) / 3);
  g->nlines = (g->nchars + g->L - 1) / g->L;
  g->q = g->L / 4 * 3;
}

static uint64_t min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

// seg_emit writes raw bytes [from, to) of segment s (offsets from its
// start, from < to <= s->enc) to out. dec holds the segment's decoded
// bytes from the start of line from / P on, dec_len of them.
static int seg_emit(const struct msr_xf_seg *s, const struct geo *g, const uint8_t *dec,
                    uint64_t dec_len, uint64_t from, uint64_t to, uint8_t *out) {
  char buf[XF_BATCH];
  const char *eol = g->e == 2 ? "\r\n" : "\n";
  uint32_t flags = (s->flags & MSR_XF_NOPAD) ? ENC_FLAG_NOPAD : 0;
  uint64_t l0 = from / g->P, last = (to - 1) / g->P + 1, per = XF_BATCH / g->L;
  if (last > g->nlines)
    return MS_ERR_CORRUPT;
  for (uint64_t l = l0; l < last; l += per) {
    uint64_t lb = min64(l + per, last);
    uint64_t c0 = l * g->L, c1 = min64(lb * g->L, g->nchars);
    uint64_t d0 = l * g->q, d1 = min64(lb * g->q, s->dec);
    size_t n;
    if (d1 - l0 * g->q > dec_len ||
        enc_base64_encode(flags, 0, buf, sizeof buf, &n, dec + (d0 - l0 * g->q),
                          (size_t)(d1 - d0)) < 0 ||
        n != c1 - c0)
      return MS_ERR_CORRUPT;
    for (uint64_t k = l; k < lb; k++) {
      uint64_t ls = k * g->P, lc = min64(g->L, g->nchars - k * g->L);
      uint64_t ce = ls + lc, le = ce + (k + 1 < g->nlines ? g->e : 0);
      uint64_t a = ls > from ? ls : from, z = min64(le, to);
      if (a < ce && a < z) {
        uint64_t m = min64(z, ce);
        memcpy(out + (a - from), buf + (k * g->L - c0) + (a - ls), (size_t)(m - a));
        a = m;
      }
      for (; a < z; a++)
        out[a - from] = (uint8_t)eol[a - ce];
    }
  }
  return 0;
}

int msx_stream_range(const struct msr_blob *b, uint64_t off, uint64_t n, uint64_t *s0,
                     uint64_t *s1) {
  struct msr_xf_iter it;
  struct msr_xf_seg seg;
  uint64_t end = off + n, delta = 0; // raw minus stream offset in literal bytes
  int have0 = 0, r;
  msr_xf_begin(&it, b);
  for (;;) {
    if ((r = msr_xf_next(&it, &seg)) < 0)
      return r;
    uint64_t lit_end = r ? seg.off : b->raw_len;
    if (!have0 && off < lit_end) {
      *s0 = off - delta;
      have0 = 1;
    }
    if (end <= lit_end) {
      *s1 = end - delta;
      return 0;
    }
    if (!r)
      return MS_ERR_CORRUPT;
    struct geo g;
    geo_of(&seg, &g);
    uint64_t send = seg.off + seg.enc;
    if (!have0 && off < send) {
      *s0 = seg.soff + (off - seg.off) / g.P * g.q;
      have0 = 1;
    }
    if (end <= send) {
      *s1 = seg.soff + min64(((end - 1 - seg.off) / g.P + 1) * g.q, seg.dec);
      return 0;
    }
    delta = send - (seg.soff + seg.dec);
  }
}

int msx_expand(const struct msr_blob *b, uint64_t off, uint64_t n, const uint8_t *stream,
               uint64_t s0, uint64_t s1, uint8_t *out) {
  struct msr_xf_iter it;
  struct msr_xf_seg seg;
  uint64_t pos = off, end = off + n, delta = 0;
  msr_xf_begin(&it, b);
  while (pos < end) {
    int r = msr_xf_next(&it, &seg);
    if (r < 0)
      return r;
    uint64_t lit_end = r ? seg.off : b->raw_len;
    if (pos < lit_end) {
      uint64_t m = min64(end, lit_end), sp = pos - delta;
      if (sp < s0 || m - delta > s1)
        return MS_ERR_CORRUPT;
      memcpy(out + (pos - off), stream + (sp - s0), (size_t)(m - pos));
      pos = m;
    }
    if (!r)
      break;
    uint64_t send = seg.off + seg.enc;
    if (pos < end && pos < send) {
      struct geo g;
      geo_of(&seg, &g);
      uint64_t from = pos - seg.off, to = min64(end, send) - seg.off;
      uint64_t ds = seg.soff + from / g.P * g.q;
      if (ds < s0 || ds > s1)
        return MS_ERR_CORRUPT;
      int rc = seg_emit(&seg, &g, stream + (ds - s0), s1 - ds, from, to, out + (pos - off));
      if (rc < 0)
        return rc;
      pos = seg.off + to;
    }
    delta = send - (seg.soff + seg.dec);
  }
  return pos == end ? 0 : MS_ERR_CORRUPT;
}

// ---- finding segments ----

// shape measures the layout of the Base64 text at p (n bytes): without its
// trailing CR and LF bytes (which stay raw), either one line, or lines of
// one length L (a multiple of 4, at most MSR_XF_LINE_MAX) each ended by the
// line break the first one ends with, the last line 1..L characters. It
// looks only at where the line breaks are, not at the characters: the
// strict decoding and the exact re-encoding that follow check every byte
// (a space, a stray CR or a misplaced '=' fails there). Sets s->line,
// s->flags and *enc (the segment's raw length), *nchars. Returns 1 for a
// usable layout, 0 otherwise.
static int shape(const uint8_t *p, size_t n, struct msr_xf_seg *s, size_t *enc, size_t *nchars) {
  size_t c = n;
  while (c && (p[c - 1] == '\r' || p[c - 1] == '\n'))
    c--;
  if (c == 0)
    return 0;
  const uint8_t *lf = memchr(p, '\n', c);
  size_t chars;
  if (!lf) {
    s->line = 0;
    s->flags = 0;
    chars = c;
  } else {
    size_t L = (size_t)(lf - p), e = 1;
    if (L && p[L - 1] == '\r') {
      L--;
      e = 2;
    }
    if (L == 0 || L % 4 || L > MSR_XF_LINE_MAX)
      return 0;
    size_t P = L + e, full = c / P, last = c - full * P;
    // The content ends with a character, so the last line is 1..L long.
    if (last == 0 || last > L)
      return 0;
    const char *eol = e == 2 ? "\r\n" : "\n";
    for (size_t k = 0; k < full; k++)
      if (memcmp(p + k * P + L, eol, e) != 0)
        return 0;
    s->line = (uint32_t)L;
    s->flags = e == 2 ? MSR_XF_CRLF : 0;
    chars = full * L + last;
  }
  if (chars % 4)
    s->flags |= MSR_XF_NOPAD;
  *enc = c;
  *nchars = chars;
  return 1;
}

int msx_build(const mp_message *m, const uint8_t *data, size_t len, struct msr_xf_seg **segs,
              size_t *nseg, uint8_t **stream, size_t *stream_len) {
  *segs = NULL;
  *nseg = 0;
  *stream = NULL;
  *stream_len = 0;
  size_t parts = mp_message_num_parts(m), raw_done = 0, spos = 0, prev_end = 0;
  struct msr_xf_seg *sv = NULL;
  uint8_t *st = NULL, *tmp = NULL;
  size_t tmp_cap = 0;
  int rc = 0;
  for (size_t i = 0; i < parts && *nseg < MSR_XF_MAX_SEGMENTS; i++) {
    const mp_part *p = mp_message_part(m, i);
    if (!p || p->encoding != MP_ENCODING_BASE64 ||
        (p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE)) || p->body.len < MSX_MIN_ENCODED ||
        p->body.off < prev_end || p->body.off > len || p->body.len > len - p->body.off)
      continue;
    struct msr_xf_seg s = {0};
    size_t enc, nchars;
    const uint8_t *body = data + p->body.off;
    if (!shape(body, p->body.len, &s, &enc, &nchars) || enc < MSX_MIN_ENCODED)
      continue;
    if (!st) {
      st = malloc(len);
      sv = malloc(MSR_XF_MAX_SEGMENTS * sizeof *sv);
      if (!st || !sv) {
        rc = -ENOMEM;
        break;
      }
    }
    if (tmp_cap < enc) {
      free(tmp);
      tmp_cap = enc;
      if (!(tmp = malloc(tmp_cap))) {
        rc = -ENOMEM;
        break;
      }
    }
    // Literal bytes up to the segment; if the segment fails below they are
    // simply followed by its raw bytes.
    memcpy(st + spos, data + raw_done, p->body.off - raw_done);
    spos += p->body.off - raw_done;
    raw_done = p->body.off;
    // Gather the characters without line breaks and decode them strictly:
    // non-canonical padding or trailing bits fail here.
    size_t L = s.line ? s.line : nchars, P = L + (s.line ? ((s.flags & MSR_XF_CRLF) ? 2 : 1) : 0);
    for (size_t c = 0, r = 0; c < nchars; c += L, r += P)
      memcpy(tmp + c, body + r, nchars - c < L ? nchars - c : L);
    size_t dec;
    if (enc_base64_decode((s.flags & MSR_XF_NOPAD) ? ENC_FLAG_NOPAD : 0, st + spos, len - spos,
                          &dec, (const char *)tmp, nchars, NULL) < 0 ||
        dec == 0)
      continue;
    s.dec = dec;
    s.gap = p->body.off - prev_end;
    s.off = p->body.off;
    s.soff = spos;
    s.enc = msr_xf_enc_len(s.dec, s.line, s.flags);
    if (s.enc != enc || (s.line && s.enc <= s.line))
      continue;
    // Re-encode exactly as a read will, and keep the segment only if that
    // gives back the raw bytes.
    struct geo g;
    geo_of(&s, &g);
    if (seg_emit(&s, &g, st + spos, dec, 0, enc, tmp) < 0 || memcmp(tmp, body, enc) != 0)
      continue;
    sv[(*nseg)++] = s;
    spos += dec;
    raw_done = prev_end = p->body.off + enc;
  }
  free(tmp);
  if (rc == 0 && *nseg) {
    memcpy(st + spos, data + raw_done, len - raw_done);
    *segs = sv;
    *stream = st;
    *stream_len = spos + (len - raw_done);
    return 0;
  }
  *nseg = 0;
  free(sv);
  free(st);
  return rc;
}
