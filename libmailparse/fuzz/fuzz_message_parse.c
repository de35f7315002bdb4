// fuzz_message_parse.c: parses any input and checks the parser's promises:
// no crash, every header and part range inside the input and nested in its
// parent, headers in order and owned by their parts, line counts equal to a
// naive count, decoded sizes within
// mp_part_decode_max_len() and equal to the size query, and a parse that is
// deterministic (a second parse gives the same headers and parts); the IMAP
// BODYSTRUCTURE and ENVELOPE renderings agree with their size queries;
// MP_HEADER_BARE_CR marks exactly the fields with a lone CR; the
// header-only mode indexes exactly the root's fields of the full parse; and
// mp_message_parse_bodies() gives the same parts and hands every leaf, in
// order, exactly the bytes of mp_part_decode() (the libFuzzer build scans
// in stretches of 32 bytes, MP_FEED_STRETCH, so that small inputs cross
// many stretch ends).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "mailparse.h"

// naive_lines is the reference for mp_part.lines.
static uint64_t naive_lines(const uint8_t *b, mp_range r) {
  uint64_t n = 0;
  for (size_t i = 0; i < r.len; i++)
    n += b[r.off + i] == '\n';
  if (r.len > 0 && b[r.off + r.len - 1] != '\n')
    n++;
  return n;
}

// The sink of mp_message_parse_bodies(): all leaves' bytes in one buffer,
// where each part's start and length are noted, and the order checked.
struct body_rec {
  uint8_t *buf;
  size_t len, cap;
  size_t *start, *n;
  int *ended;
  size_t np;
  long open, last;
};

static int rec_data(void *o, const mp_part *p, uint32_t ix, const uint8_t *b, size_t n) {
  struct body_rec *r = o;
  FUZZ_CHECK(ix < r->np && n > 0 && !(p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE)));
  if (r->open < 0) {
    FUZZ_CHECK((long)ix > r->last);
    r->open = ix;
    r->start[ix] = r->len;
  }
  FUZZ_CHECK(r->open == (long)ix);
  if (r->len + n > r->cap) {
    r->cap = (r->len + n) * 2;
    r->buf = realloc(r->buf, r->cap);
    FUZZ_CHECK(r->buf != NULL);
  }
  memcpy(r->buf + r->len, b, n);
  r->len += n;
  r->n[ix] += n;
  return 0;
}

static int rec_end(void *o, const mp_part *p, uint32_t ix) {
  struct body_rec *r = o;
  FUZZ_CHECK(ix < r->np && p != NULL && (r->open < 0 || r->open == (long)ix));
  FUZZ_CHECK((long)ix > r->last);
  r->open = -1;
  r->last = ix;
  r->ended[ix]++;
  return 0;
}

static int inside(mp_range r, size_t len) {
  return r.off <= len && r.len <= len - r.off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mp_settings s = MP_SETTINGS_INIT;
  // The first byte picks small limits half of the time, to reach them.
  if (size > 0 && (data[0] & 1)) {
    s.max_depth = 1 + (data[0] >> 5);
    s.max_parts = 2 + ((data[0] >> 1) & 15);
    s.max_headers = 1 + (data[0] >> 4);
    s.max_line_len = 8;
    // Half of those also get a work budget of at most about 1 KiB, from the
    // second byte, so that it runs out: boundary matching stops
    // (MP_PROBLEM_WORK) and later Content-Type values go to the minimal
    // reader, which the default budget never leaves to inputs this small.
    if (size > 1 && (data[0] & 2))
      s.max_work = 1 + (uint64_t)data[1] * 4;
  }
  mp_message *m = NULL, *m2 = NULL;
  FUZZ_CHECK(mp_message_parse(&m, &s, data, size, NULL) == 0);
  FUZZ_CHECK(mp_message_parse(&m2, &s, data, size, NULL) == 0);
  size_t nh = mp_message_num_headers(m), np = mp_message_num_parts(m);
  FUZZ_CHECK(np >= 1 && nh == mp_message_num_headers(m2) && np == mp_message_num_parts(m2));
  FUZZ_CHECK(mp_message_problems(m) == mp_message_problems(m2));
  size_t prev_end = 0;
  for (size_t i = 0; i < nh; i++) {
    const mp_header *h = mp_message_header(m, i);
    FUZZ_CHECK(memcmp(h, mp_message_header(m2, i), sizeof *h) == 0);
    FUZZ_CHECK(inside(h->field, size) && inside(h->name, size) && inside(h->value, size));
    FUZZ_CHECK(h->field.off >= prev_end);
    prev_end = h->field.off + h->field.len;
    FUZZ_CHECK(h->name.off >= h->field.off && h->value.off + h->value.len <= prev_end);
    FUZZ_CHECK(h->part < np);
    const mp_part *p = mp_message_part(m, h->part);
    FUZZ_CHECK(i >= p->first_header && i < (size_t)p->first_header + p->num_headers);
    FUZZ_CHECK(h->field.off >= p->header.off && prev_end <= p->header.off + p->header.len);
    // MP_HEADER_BARE_CR: exactly the fields holding a CR that no LF follows.
    int bare_cr = 0;
    for (size_t k = h->field.off; k < prev_end; k++)
      if (data[k] == '\r' && (k + 1 >= size || data[k + 1] != '\n'))
        bare_cr = 1;
    FUZZ_CHECK(bare_cr == !!(h->flags & MP_HEADER_BARE_CR));
    char *buf = malloc(h->value.len + 1);
    size_t n;
    FUZZ_CHECK(mp_header_unfold(buf, h->value.len, &n, (const char *)data + h->value.off,
                                h->value.len) == 0);
    FUZZ_CHECK(n <= h->value.len);
    free(buf);
  }
  for (size_t i = 0; i < np; i++) {
    const mp_part *p = mp_message_part(m, i);
    const mp_part *q = mp_message_part(m2, i);
    FUZZ_CHECK(memcmp(&p->header, &q->header, sizeof p->header) == 0);
    FUZZ_CHECK(memcmp(&p->body, &q->body, sizeof p->body) == 0 && p->flags == q->flags);
    FUZZ_CHECK(p->lines == q->lines && p->encoding == q->encoding);
    FUZZ_CHECK(inside(p->header, size) && inside(p->body, size));
    FUZZ_CHECK(p->header.off + p->header.len == p->body.off);
    FUZZ_CHECK(p->lines == naive_lines(data, p->body));
    FUZZ_CHECK(inside(p->preamble, size) && inside(p->epilogue, size));
    if (p->parent != MP_NO_INDEX) {
      FUZZ_CHECK(p->parent < i);
      const mp_part *pp = mp_message_part(m, p->parent);
      FUZZ_CHECK(p->depth == pp->depth + 1);
      FUZZ_CHECK(p->header.off >= pp->body.off);
      FUZZ_CHECK(p->body.off + p->body.len <= pp->body.off + pp->body.len);
    } else {
      FUZZ_CHECK(i == 0);
    }
    size_t cap = mp_part_decode_max_len(m, (uint32_t)i), qn = 0, n = 0;
    FUZZ_CHECK(mp_part_decode(m, (uint32_t)i, NULL, 0, &qn) == 0);
    FUZZ_CHECK(qn <= cap);
    uint8_t *out = malloc(cap ? cap : 1);
    FUZZ_CHECK(mp_part_decode(m, (uint32_t)i, out, cap, &n) == 0);
    FUZZ_CHECK(n == qn);
    free(out);
  }
  // Bodies decoded during the parse: the same parts, the same bytes.
  {
    struct body_rec r = {.np = np, .open = -1, .last = -1};
    r.start = calloc(np, sizeof *r.start);
    r.n = calloc(np, sizeof *r.n);
    r.ended = calloc(np, sizeof *r.ended);
    FUZZ_CHECK(r.start != NULL && r.n != NULL && r.ended != NULL);
    mp_body_sink sink = {rec_data, rec_end, &r};
    mp_message *mb = NULL;
    FUZZ_CHECK(mp_message_parse_bodies(&mb, &s, data, size, &sink, NULL) == 0);
    FUZZ_CHECK(mp_message_num_parts(mb) == np && mp_message_num_headers(mb) == nh);
    FUZZ_CHECK(mp_message_problems(mb) == mp_message_problems(m) && r.open < 0);
    for (size_t i = 0; i < np; i++) {
      const mp_part *p = mp_message_part(m, i), *q = mp_message_part(mb, i);
      FUZZ_CHECK(memcmp(&p->body, &q->body, sizeof p->body) == 0 && p->flags == q->flags);
      FUZZ_CHECK(p->lines == q->lines);
      if (p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE)) {
        FUZZ_CHECK(r.ended[i] == 0 && r.n[i] == 0);
        continue;
      }
      FUZZ_CHECK(r.ended[i] == 1);
      size_t cap = mp_part_decode_max_len(m, (uint32_t)i), n = 0;
      uint8_t *out = malloc(cap ? cap : 1);
      FUZZ_CHECK(mp_part_decode(m, (uint32_t)i, out, cap, &n) == 0);
      FUZZ_CHECK(n == r.n[i] && (n == 0 || memcmp(out, r.buf + r.start[i], n) == 0));
      free(out);
    }
    mp_message_free(mb);
    free(r.buf);
    free(r.start);
    free(r.n);
    free(r.ended);
  }
  // IMAP views: the size query matches the rendering, for every part.
  for (size_t i = 0; i < np; i++) {
    for (int mode = 0; mode < 3; mode++) {
      size_t need = 0, n = 0;
      int rc = mode == 2 ? mp_part_envelope(m, (uint32_t)i, NULL, 0, &need)
                         : mp_part_bodystructure(m, (uint32_t)i, mode, NULL, 0, &need);
      FUZZ_CHECK(rc == 0);
      char *out = malloc(need ? need : 1);
      rc = mode == 2 ? mp_part_envelope(m, (uint32_t)i, out, need, &n)
                     : mp_part_bodystructure(m, (uint32_t)i, mode, out, need, &n);
      FUZZ_CHECK(rc == 0 && n == need);
      free(out);
    }
  }
  // Section numbers: "1", "1.1", "2" either fail cleanly or name a part.
  static const char *secs[] = {"1", "1.1", "2", "1.2.1", ""};
  for (size_t k = 0; k < 5; k++) {
    uint32_t ix;
    int rc = mp_message_part_by_section(m, &ix, secs[k], strlen(secs[k]));
    FUZZ_CHECK(rc == MP_ERR_SYNTAX || (rc == 0 && ix < np));
  }
  // The header-only mode indexes exactly the root's fields of the full parse.
  mp_message *m3 = NULL;
  FUZZ_CHECK(mp_message_parse_headers(&m3, &s, data, size, NULL) == 0);
  const mp_part *root = mp_message_part(m, 0), *hroot = mp_message_part(m3, 0);
  FUZZ_CHECK(mp_message_num_parts(m3) == 1 && mp_message_num_headers(m3) == root->num_headers);
  FUZZ_CHECK(hroot->num_headers == root->num_headers && hroot->first_header == 0);
  for (size_t i = 0; i < root->num_headers; i++)
    FUZZ_CHECK(memcmp(mp_message_header(m3, i), mp_message_header(m, i), sizeof(mp_header)) == 0);
  FUZZ_CHECK(memcmp(&hroot->header, &root->header, sizeof root->header) == 0);
  FUZZ_CHECK(hroot->body.off == root->body.off && hroot->body.off + hroot->body.len == size);
  FUZZ_CHECK((hroot->flags & MP_PART_HEADERS_ONLY) && !(root->flags & MP_PART_HEADERS_ONLY));
  FUZZ_CHECK((hroot->flags & MP_PART_NO_BODY) == (root->flags & MP_PART_NO_BODY));
  FUZZ_CHECK(hroot->encoding == root->encoding && hroot->h_id == root->h_id &&
             hroot->h_disposition == root->h_disposition);
  FUZZ_CHECK(memcmp(&hroot->content_type, &root->content_type, sizeof root->content_type) == 0);
  FUZZ_CHECK(hroot->type.p == NULL && hroot->lines == 0);
  FUZZ_CHECK((mp_message_problems(m3) & ~mp_message_problems(m)) == 0);
  mp_message_free(m3);
  mp_message_free(m);
  mp_message_free(m2);
  return 0;
}
