// message.c: the MIME structure of a message (RFC 2045, RFC 2046, RFC 2049):
// one forward pass over the buffer that splits header sections from bodies,
// follows multipart boundaries with a stack of the active ones (each
// candidate line start is examined once and matched against the stack, so a
// delimiter of an outer multipart also ends every inner part, as RFC 2046
// 5.1.2 requires), descends into message/rfc822 and message/global, and
// records every part in the message's part records; also the minimal
// Content-Type and Content-Transfer-Encoding readers the structure needs, the
// header-only mode (the top-level field index alone), and IMAP section-number
// addressing.
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charclass.h"
#include "core_internal.h"
#include "feed_internal.h"

typedef struct bentry {
  uint32_t part;    // the multipart this boundary splits
  uint32_t open_ix; // its position in the open stack
  const uint8_t *b; // the boundary value
  size_t blen;
} bentry;

typedef struct oentry {
  uint32_t part;
  uint32_t last_child;
  bool in_preamble; // multipart that has not seen its first delimiter yet
  bool closed;      // multipart whose close delimiter was seen
} oentry;

// A stretch of the buffer whose line feeds the body scan already counted, so
// that count_all_lines() need not read it again.
typedef struct lf_seg {
  size_t start, end, lfs;
} lf_seg;

// MP_TYPED_CT_MAX is the longest Content-Type value handed to the typed
// parser (which needs 4 bytes of text per input byte); longer values, the
// rare ones with more than MP_TYPED_CT_PARAMS parameters, and values met
// after the work budget ran out go to the minimal reader.
#define MP_TYPED_CT_MAX 16384
#define MP_TYPED_CT_PARAMS 64
// The typed parser's text scratch starts in the parser (on the stack): a
// value of up to 256 bytes needs no allocation.
#define MP_TYPED_CT_TEXT0 1024

typedef struct parser {
  mp_message *msg;
  uint32_t max_depth, max_parts, max_headers, max_line_len;
  uint64_t work_left;
  bool work_out;
  bentry *bs;
  size_t nbs, capbs;
  oentry *os;
  size_t nos, capos;
  // Scratch for the typed Content-Type parser, reused from part to part.
  char *text;
  size_t text_cap;
  mp_param *params;
  // Counted stretches, in buffer order (the scan only moves forward).
  lf_seg *segs;
  size_t nsegs, capsegs;
  // mp_message_parse_bodies(): the sink, the leaf body being decoded and the
  // first error of a body's end (close_top() cannot return one).
  const mp_body_sink *sink;
  int feed_rc;
  // Left uninitialized from here on (parse_entry() clears the fields above
  // only). The body feed: parse_entry() sets feed.active false, every read
  // of another field is behind that flag, and mp_feed_begin() sets them all
  // (the stream only for a codec) when it raises it; clearing its 560 bytes
  // on every parse bought nothing.
  mp_feed feed;
  // Inline scratch: the first entries of both stacks and of the counted
  // stretches, so that a message of few parts allocates no scratch (see
  // grow()), and the typed Content-Type parser's text and parameters.
  bentry bs0[4];
  oentry os0[8];
  lf_seg segs0[8];
  char text0[MP_TYPED_CT_TEXT0];
  mp_param params0[MP_TYPED_CT_PARAMS];
} parser;

// With a body feed, a leaf body is scanned in stretches of about this many
// bytes (ending at a line start), each decoded right after its scan while it
// is still in cache. The libFuzzer build makes it tiny, to cross many ends.
#ifndef MP_FEED_STRETCH
#define MP_FEED_STRETCH 16384
#endif

void mp_problem_add(mp_message *msg, uint32_t kind, uint32_t part, size_t offset) {
  msg->problem_mask |= 1u << kind;
  if (msg->num_problems < MP_MAX_PROBLEMS)
    msg->problems[msg->num_problems++] = (mp_problem){kind, part, offset};
}

// grow doubles a parser scratch array of `elem`-byte items when it is full.
// Scratch starts in the parser itself (`inl`) and then lives outside the
// arena (taken from the settings' allocator, the old copy freed at once),
// freed when the parse ends, so that it adds nothing to the parsed
// message's memory.
static int grow(mp_message *msg, void **arr, size_t n, size_t *cap, size_t elem, void *inl) {
  if (n < *cap)
    return 0;
  size_t nc = *cap != 0 ? *cap * 2 : 8;
  if (nc > SIZE_MAX / elem)
    return -ENOMEM;
  void *na = mp_alloc_raw(&msg->arena.a, nc * elem);
  if (na == NULL)
    return -ENOMEM;
  if (n != 0)
    memcpy(na, *arr, n * elem);
  if (*arr != inl)
    mp_free_raw(&msg->arena.a, *arr);
  *arr = na;
  *cap = nc;
  return 0;
}

static bool spend(parser *P, uint64_t units) {
  if (P->work_out)
    return false;
  if (units > P->work_left) {
    P->work_out = true;
    P->work_left = 0;
    mp_problem_add(P->msg, MP_PROBLEM_WORK, MP_NO_INDEX, 0);
    return false;
  }
  P->work_left -= units;
  return true;
}

// match_boundary tests whether the line at `pos` is a delimiter of an active
// boundary, innermost first: "--" boundary ["--"] transport-padding EOL. On a
// match it returns the stack level and sets *is_close and *line_end.
static long match_boundary(parser *P, size_t pos, bool *is_close, size_t *line_end) {
  const uint8_t *b = P->msg->data;
  size_t len = P->msg->len;
  if (P->nbs == 0 || len - pos < 2 || b[pos] != '-' || b[pos + 1] != '-')
    return -1;
  for (size_t k = P->nbs; k-- > 0;) {
    const bentry *e = &P->bs[k];
    if (!spend(P, e->blen + 2))
      return -1;
    if (len - pos - 2 < e->blen || memcmp(b + pos + 2, e->b, e->blen) != 0)
      continue;
    size_t q = pos + 2 + e->blen;
    bool close = false;
    if (len - q >= 2 && b[q] == '-' && b[q + 1] == '-') {
      close = true;
      q += 2;
    }
    while (q < len && (b[q] == ' ' || b[q] == '\t'))
      q++;
    if (q < len && b[q] == '\r' && len - q >= 2 && b[q + 1] == '\n')
      q++;
    if (q < len && b[q] != '\n')
      continue; // more text after the boundary: not this delimiter
    *is_close = close;
    *line_end = q < len ? q + 1 : len;
    return (long)k;
  }
  return -1;
}

static bool pred_is_boundary(void *ctx, size_t off) {
  bool c;
  size_t le;
  return match_boundary(ctx, off, &c, &le) >= 0;
}

// add_seg records that [start, end) holds `lfs` line feeds, extending the
// last stretch when this one continues it.
static int add_seg(parser *P, size_t start, size_t end, size_t lfs) {
  if (start == end)
    return 0;
  if (P->nsegs > 0 && P->segs[P->nsegs - 1].end == start) {
    P->segs[P->nsegs - 1].end = end;
    P->segs[P->nsegs - 1].lfs += lfs;
    return 0;
  }
  int rc = grow(P->msg, (void **)&P->segs, P->nsegs, &P->capsegs, sizeof(lf_seg), P->segs0);
  if (rc != 0)
    return rc;
  P->segs[P->nsegs++] = (lf_seg){start, end, lfs};
  return 0;
}

static uint32_t new_part(parser *P, uint32_t parent, size_t start, int *rc) {
  mp_message *msg = P->msg;
  *rc = 0;
  mp_part *p = mp_part_push(msg);
  if (p == NULL) {
    *rc = -ENOMEM;
    return MP_NO_INDEX;
  }
  uint32_t ix = (uint32_t)(msg->num_parts - 1);
  p->parent = parent;
  p->first_child = p->next_sibling = MP_NO_INDEX;
  p->h_id = p->h_description = p->h_disposition = MP_NO_INDEX;
  p->h_language = p->h_location = p->h_md5 = MP_NO_INDEX;
  p->header.off = start;
  p->body.off = start;
  p->first_header = (uint32_t)msg->num_headers;
  if (parent != MP_NO_INDEX) {
    mp_part *pp = mp_part_at(msg, parent);
    p->depth = pp->depth + 1;
    pp->num_children++;
    oentry *oe = &P->os[P->nos - 1]; // the parent is the innermost open part
    if (oe->last_child == MP_NO_INDEX)
      pp->first_child = ix;
    else
      mp_part_at(msg, oe->last_child)->next_sibling = ix;
    oe->last_child = ix;
  }
  *rc = grow(msg, (void **)&P->os, P->nos, &P->capos, sizeof(oentry), P->os0);
  if (*rc != 0)
    return MP_NO_INDEX;
  P->os[P->nos++] = (oentry){ix, MP_NO_INDEX, false, false};
  return ix;
}

// lf_counter keeps the running count of line feeds from `pos` back to where
// the count started; lf_advance() moves it forward to `target`, taking the
// stretches the body scan counted already (`segs`) whole when they lie
// between `pos` and `target`. Every part's line count is a difference of two
// running counts, at its body's start and end.
typedef struct lf_counter {
  const mp_scanner *sc;
  const uint8_t *data;
  const lf_seg *segs;
  size_t nsegs, si, pos;
  uint64_t lfs;
} lf_counter;

static void lf_advance(lf_counter *c, size_t target) {
  while (c->pos < target) {
    while (c->si < c->nsegs && c->segs[c->si].start < c->pos)
      c->si++;
    if (c->si < c->nsegs && c->segs[c->si].end <= target) {
      const lf_seg *sg = &c->segs[c->si];
      c->lfs += c->sc->count_lf(c->data, sg->start, c->pos) + sg->lfs;
      c->pos = sg->end;
      c->si++;
    } else {
      c->lfs += c->sc->count_lf(c->data, target, c->pos);
      c->pos = target;
    }
  }
}

// Up to this many parts, count_all_lines() keeps its scratch on the stack.
#define MP_LC_STACK 16

// MP_LC_DIRECT marks an open part whose body started before the count's
// position: its lines are counted on their own when it ends.
#define MP_LC_DIRECT UINT64_MAX

// close_lines sets the line count of part `q`, whose body ends at `end`,
// from the running count at its start (`at_start`): a last line without a
// line break counts too.
static void close_lines(lf_counter *c, mp_part *q, size_t end, uint64_t at_start) {
  if (at_start != MP_LC_DIRECT && end >= c->pos) {
    lf_advance(c, end);
    q->lines = c->lfs - at_start;
  } else {
    q->lines = c->sc->count_lf(c->data, end, q->body.off);
  }
  if (q->body.len > 0 && c->data[end - 1] != '\n')
    q->lines++;
}

// count_all_lines sets every part's `lines` in one sweep over the buffer:
// nested bodies overlap, so counting each body on its own would cost the
// nesting depth times the input. Parts are numbered in the order their
// bodies start and a part's body holds its descendants' bodies, so a stack
// of the open parts (the innermost, which ends first, on top) gives the body
// ends in order between the starts, with no sort; each count is a difference
// of the running count, which starts at the first body (the top-level header
// section, outside every body, is not read). Stretches the body scan
// counted already (`segs`) are taken whole. A body start or end that came
// before the count's position (no layout the parser makes) is counted on
// its own, so every count is right whatever the layout.
static int count_all_lines(mp_message *msg, const lf_seg *segs, size_t nsegs) {
  size_t np = msg->num_parts;
  if (np == 0)
    return 0;
  // Scratch on the stack for a few parts, else outside the arena, freed
  // before return.
  uint32_t stk0[MP_LC_STACK];
  uint64_t at0[MP_LC_STACK];
  uint32_t *stk = stk0;
  uint64_t *at = at0;
  if (np > MP_LC_STACK) {
    stk = mp_alloc_raw(&msg->arena.a, np * sizeof *stk);
    at = mp_alloc_raw(&msg->arena.a, np * sizeof *at);
    if (stk == NULL || at == NULL) {
      mp_free_raw(&msg->arena.a, stk);
      mp_free_raw(&msg->arena.a, at);
      return -ENOMEM;
    }
  }
  lf_counter c = {mp_scanner_get(), msg->data, segs, nsegs, 0, mp_part_at(msg, 0)->body.off, 0};
  size_t depth = 0;
  for (size_t i = 0;; i++) {
    size_t next = i < np ? mp_part_at(msg, i)->body.off : SIZE_MAX;
    while (depth > 0) {
      mp_part *q = mp_part_at(msg, stk[depth - 1]);
      size_t end = q->body.off + q->body.len;
      if (end > next)
        break;
      depth--;
      close_lines(&c, q, end, at[depth]);
    }
    if (i == np)
      break;
    stk[depth] = (uint32_t)i;
    if (next >= c.pos) {
      lf_advance(&c, next);
      at[depth++] = c.lfs;
    } else {
      at[depth++] = MP_LC_DIRECT;
    }
  }
  if (stk != stk0) {
    mp_free_raw(&msg->arena.a, stk);
    mp_free_raw(&msg->arena.a, at);
  }
  return 0;
}

// close_top closes the innermost open part at offset `end` (or at its body
// start, when the delimiter's line break lies before it) and returns where it
// ended, so that an enclosing part closed next never ends before its child.
static size_t close_top(parser *P, size_t end) {
  oentry *oe = &P->os[--P->nos];
  mp_part *p = mp_part_at(P->msg, oe->part);
  if (end < p->body.off)
    end = p->body.off;
  p->body.len = end - p->body.off;
  if (P->feed.active && P->feed.part == oe->part) {
    int rc = mp_feed_end(&P->feed, P->msg->data, p->body.off, end);
    if (rc != 0 && P->feed_rc == 0)
      P->feed_rc = rc;
  }
  if (p->flags & MP_PART_MULTIPART) {
    if (oe->in_preamble) {
      p->preamble = p->body;
    }
    if (oe->closed) {
      p->epilogue.len = end > p->epilogue.off ? end - p->epilogue.off : 0;
    } else {
      p->flags |= MP_PART_NO_END;
      mp_problem_add(P->msg, MP_PROBLEM_NO_END, oe->part, end);
    }
  }
  return p->body.off + p->body.len;
}

static bool is_tspecial_or_ctl(uint8_t c) {
  return c <= ' ' || c >= 0x7f || mp_is_tspecial(c);
}

static void skip_cfws(mp_cur *c) {
  for (;;) {
    mp_cur_skip_wsp(c);
    uint8_t ch;
    if (!mp_cur_peek(c, &ch) || ch != '(')
      return;
    int depth = 0;
    while (mp_cur_get_u8(c, &ch)) {
      if (ch == '\\') {
        if (!mp_cur_get_u8(c, &ch))
          return;
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')' && --depth == 0) {
        break;
      }
    }
  }
}

static mp_str get_token(mp_cur *c) {
  mp_str s = {(const char *)c->p, 0};
  while (c->len > 0 && !is_tspecial_or_ctl(c->p[0])) {
    c->p++;
    c->len--;
    s.len++;
  }
  if (s.len == 0)
    s.p = NULL;
  return s;
}

// get_value reads a token or a quoted-string; a quoted string with
// backslashes is unescaped into the arena.
static int get_value(mp_message *msg, mp_cur *c, mp_str *out) {
  uint8_t ch;
  if (!mp_cur_peek(c, &ch) || ch != '"') {
    *out = get_token(c);
    return 0;
  }
  mp_cur_get_u8(c, &ch);
  const uint8_t *start = c->p;
  bool esc = false;
  size_t n = 0;
  while (mp_cur_get_u8(c, &ch) && ch != '"') {
    if (ch == '\\' && c->len > 0) {
      esc = true;
      mp_cur_get_u8(c, &ch);
    }
    n++;
  }
  size_t raw = (size_t)(c->p - start);
  if (raw > 0 && start[raw - 1] == '"' && ch == '"')
    raw--;
  if (!esc) {
    *out = (mp_str){(const char *)start, raw};
    return 0;
  }
  char *u = mp_arena_alloc_str(&msg->arena, n + 1);
  if (u == NULL)
    return -ENOMEM;
  size_t j = 0;
  for (size_t i = 0; i < raw && j < n; i++) {
    if (start[i] == '\\' && i + 1 < raw)
      i++;
    u[j++] = (char)start[i];
  }
  *out = (mp_str){u, j};
  return 0;
}

static void trim_str(mp_str *s) {
  while (s->len > 0 && (s->p[s->len - 1] == ' ' || s->p[s->len - 1] == '\t'))
    s->len--;
}

// chunk_ieq compares the `w` (2, 4 or 8) bytes at `a` with those at `lower`
// (lower-case letters, digits and '-'): the case bit 0x20 is or-ed into the
// bytes of `a` only where `lower` has a letter (bit 6 set, which '-' and
// the digits lack), so each byte matches just itself or its capital.
static inline bool chunk_ieq(const uint8_t *a, const char *lower, size_t w) {
  uint64_t want = mp_load_word(lower, w);
  return (mp_load_word(a, w) | ((want >> 1) & 0x2020202020202020u)) == want;
}

// name_ieq is mp_ascii_ieq() for a known name of `len` (2 or more) bytes
// of lower-case letters, digits and '-': a word at a time, the last word
// overlapping the one before, and below 8 bytes two overlapping 4- or
// 2-byte words (a call and a byte loop cost more than the names are long).
static inline bool name_ieq(const uint8_t *a, size_t a_len, const char *lower, size_t len) {
  if (a_len != len)
    return false;
  if (len < 8) {
    size_t w = len >= 4 ? 4 : 2;
    return chunk_ieq(a, lower, w) && chunk_ieq(a + len - w, lower + len - w, w);
  }
  for (size_t i = 0; i + 8 < len; i += 8)
    if (!chunk_ieq(a + i, lower + i, 8))
      return false;
  return chunk_ieq(a + len - 8, lower + len - 8, 8);
}

// arena_copy copies `in` into the arena, in lower case when `lower` is set.
static int arena_copy(mp_message *msg, mp_str *out, mp_str in, bool lower) {
  char *c = mp_arena_alloc_str(&msg->arena, in.len);
  if (c == NULL)
    return -ENOMEM;
  if (lower)
    mp_ascii_lower_copy(c, (const uint8_t *)in.p, in.len);
  else if (in.len > 0)
    memcpy(c, in.p, in.len);
  *out = (mp_str){c, in.len};
  return 0;
}

// read_content_type is the minimal Content-Type reader: type "/" subtype and
// the boundary and charset parameters (first occurrence of each).
static int read_content_type(mp_message *msg, mp_part *p, const mp_header *h) {
  mp_cur c = {msg->data + h->value.off, h->value.len};
  skip_cfws(&c);
  mp_str type = get_token(&c);
  skip_cfws(&c);
  uint8_t ch;
  if (type.p == NULL || !mp_cur_get_u8(&c, &ch) || ch != '/')
    return 1;
  skip_cfws(&c);
  mp_str sub = get_token(&c);
  if (sub.p == NULL)
    return 1;
  if (arena_copy(msg, &p->type, type, true) != 0 || arena_copy(msg, &p->subtype, sub, true) != 0)
    return -ENOMEM;
  for (;;) {
    // Skip to the next ';' (junk between parameters is ignored).
    while (mp_cur_get_u8(&c, &ch) && ch != ';') {
      if (ch == '"') {
        while (mp_cur_get_u8(&c, &ch) && ch != '"')
          if (ch == '\\' && !mp_cur_get_u8(&c, &ch))
            break;
      }
    }
    if (c.len == 0)
      break;
    skip_cfws(&c);
    mp_str attr = get_token(&c);
    skip_cfws(&c);
    if (attr.p == NULL || !mp_cur_peek(&c, &ch) || ch != '=')
      continue;
    mp_cur_get_u8(&c, &ch);
    skip_cfws(&c);
    mp_str val;
    int rc = get_value(msg, &c, &val);
    if (rc != 0)
      return rc;
    if (val.p == NULL)
      continue;
    if (p->boundary.p == NULL && mp_ascii_ieq((const uint8_t *)attr.p, attr.len, "boundary", 8)) {
      trim_str(&val);
      if (val.len > 0)
        p->boundary = val;
    } else if (p->charset.p == NULL &&
               mp_ascii_ieq((const uint8_t *)attr.p, attr.len, "charset", 7)) {
      p->charset = val;
    }
  }
  return 0;
}

// put_str copies `s` to `*d` and moves `*d` past it.
static mp_str put_str(char **d, mp_str s) {
  mp_str r = {*d, s.len};
  if (s.len > 0)
    memcpy(*d, s.p, s.len);
  *d += s.len;
  return r;
}

// typed_content_type reads Content-Type with mp_content_type_parse() (RFC
// 2231 continuations, RFC 2047 words, unquoted values with specials such as
// "boundary=----=_Part_1"), copying what the part keeps into the arena. It
// returns 0, 1 for a value without a usable type, 2 when the minimal reader
// must do it, or -ENOMEM.
static int typed_content_type(parser *P, mp_part *p, const mp_header *h) {
  mp_message *msg = P->msg;
  if (h->value.len > MP_TYPED_CT_MAX || !spend(P, h->value.len))
    return 2;
  size_t need = mp_typed_text_max_len(h->value.len);
  if (need > P->text_cap) {
    size_t cap = P->text_cap ? P->text_cap : MP_TYPED_CT_TEXT0;
    while (cap < need)
      cap *= 2;
    if (P->text != P->text0)
      mp_free_raw(&msg->arena.a, P->text);
    P->text = mp_alloc_raw(&msg->arena.a, cap);
    if (P->text == NULL) {
      P->text_cap = 0;
      return -ENOMEM;
    }
    P->text_cap = cap;
  }
  mp_content_type ct;
  size_t text_len;
  unsigned flags = 0;
  int rc =
      mp_content_type_parse(&ct, P->params, MP_TYPED_CT_PARAMS, P->text, P->text_cap, &text_len,
                            &flags, (const char *)msg->data + h->value.off, h->value.len);
  if (rc == MP_ERR_SYNTAX)
    return 1;
  if (rc != 0)
    return 2;
  // The first "boundary" and "charset", as mp_param_find() finds them, in
  // one pass that compares a name only when its length is right.
  const mp_param *b = NULL, *c = NULL;
  for (size_t i = 0; i < ct.num_params; i++) {
    const mp_param *q = &P->params[i];
    const uint8_t *n = (const uint8_t *)q->name.p;
    if (b == NULL && q->name.len == 8 && name_ieq(n, 8, "boundary", 8))
      b = q;
    else if (c == NULL && q->name.len == 7 && name_ieq(n, 7, "charset", 7))
      c = q;
  }
  mp_str bv = {NULL, 0}, cv = {NULL, 0};
  if (b != NULL && b->value.p != NULL) {
    bv = b->value;
    trim_str(&bv); // as Python's email package does: a boundary cannot end in space
  }
  if (c != NULL && c->value.p != NULL)
    cv = c->value;
  // One arena string holds the four (an allocation each cost more than the
  // copies); the parser has lowercased the type and subtype already.
  char *d = mp_arena_alloc_str(&msg->arena, ct.type.len + ct.subtype.len + bv.len + cv.len);
  if (d == NULL)
    return -ENOMEM;
  p->type = put_str(&d, ct.type);
  p->subtype = put_str(&d, ct.subtype);
  if (bv.len > 0)
    p->boundary = put_str(&d, bv);
  if (cv.p != NULL)
    p->charset = put_str(&d, cv); // set even when empty, as the value was
  return 0;
}

static mp_encoding read_cte(const mp_message *msg, const mp_header *h, mp_str *name) {
  mp_cur c = {msg->data + h->value.off, h->value.len};
  skip_cfws(&c);
  mp_str t = get_token(&c);
  *name = t;
  if (t.p == NULL)
    return MP_ENCODING_UNKNOWN;
  // The length picks the one candidate name, so that one compare decides.
  const uint8_t *n = (const uint8_t *)t.p;
  switch (t.len) {
  case 4:
    if (name_ieq(n, 4, "7bit", 4))
      return MP_ENCODING_7BIT;
    if (name_ieq(n, 4, "8bit", 4))
      return MP_ENCODING_8BIT;
    break;
  case 6:
    if (name_ieq(n, 6, "base64", 6))
      return MP_ENCODING_BASE64;
    if (name_ieq(n, 6, "binary", 6))
      return MP_ENCODING_BINARY;
    break;
  case 16:
    if (name_ieq(n, 16, "quoted-printable", 16))
      return MP_ENCODING_QP;
    break;
  default:
    break;
  }
  return MP_ENCODING_UNKNOWN;
}

// TYPE_IS and SUBTYPE_IS tell whether the part's type or subtype is the
// literal `name` (lower-case letters and digits) in any case.
#define TYPE_IS(part, name)                                                                        \
  name_ieq((const uint8_t *)(part)->type.p, (part)->type.len, name, sizeof name - 1)
#define SUBTYPE_IS(part, name)                                                                     \
  name_ieq((const uint8_t *)(part)->subtype.p, (part)->subtype.len, name, sizeof name - 1)

// maybe_content tells whether the 8 bytes at `n` may be "Content-" in any
// case: one compare with the ASCII case bit set in all of them. It admits a
// few other bytes too (CR for '-'), so an exact compare must follow.
static inline bool maybe_content(const uint8_t *n) {
  static const char want[8] = {'c', 'o', 'n', 't', 'e', 'n', 't', '-'};
  uint64_t v, w;
  memcpy(&v, n, 8);
  memcpy(&w, want, 8);
  return (v | 0x2020202020202020u) == w;
}

// content_field names the Content-* fields a part records: the first two
// are returned by index_content_fields, the others fill the h_* slots.
enum { CF_TYPE, CF_CTE, CF_ID, CF_DESCRIPTION, CF_DISPOSITION, CF_LANGUAGE, CF_LOCATION, CF_MD5 };

// content_field_kind returns which CF_* field the name `n` (`len` bytes,
// starting with "Content-" in any case) is, or -1. The length and one
// letter choose the only candidate, so that one compare decides, instead
// of one per name.
static int content_field_kind(const uint8_t *n, size_t len) {
  static const char *const names[] = {
      [CF_TYPE] = "content-type",
      [CF_CTE] = "content-transfer-encoding",
      [CF_ID] = "content-id",
      [CF_DESCRIPTION] = "content-description",
      [CF_DISPOSITION] = "content-disposition",
      [CF_LANGUAGE] = "content-language",
      [CF_LOCATION] = "content-location",
      [CF_MD5] = "content-md5",
  };
  int k;
  switch (len) {
  case 10:
    k = CF_ID;
    break;
  case 11:
    k = CF_MD5;
    break;
  case 12:
    k = CF_TYPE;
    break;
  case 16: // content-language, content-location
    k = (n[9] | 0x20) == 'a' ? CF_LANGUAGE : CF_LOCATION;
    break;
  case 19: // content-description, content-disposition
    k = (n[9] | 0x20) == 'e' ? CF_DESCRIPTION : CF_DISPOSITION;
    break;
  case 25:
    k = CF_CTE;
    break;
  default:
    return -1;
  }
  // maybe_content() has matched "Content" in any case, and "-" or a CR:
  // only that byte and the rest of the name are left to compare.
  return n[7] == '-' && name_ieq(n + 8, len - 8, names[k] + 8, len - 8) ? k : -1;
}

// index_content_fields finds the part's Content-* fields: the first
// Content-Type and Content-Transfer-Encoding (returned) and the h_* slots.
static void index_content_fields(const mp_message *msg, mp_part *p, const mp_header **ct_out,
                                 const mp_header **cte_out) {
  const mp_header *ct = NULL, *cte = NULL;
  uint32_t *slots[] = {[CF_ID] = &p->h_id,
                       [CF_DESCRIPTION] = &p->h_description,
                       [CF_DISPOSITION] = &p->h_disposition,
                       [CF_LANGUAGE] = &p->h_language,
                       [CF_LOCATION] = &p->h_location,
                       [CF_MD5] = &p->h_md5};
  for (uint32_t i = p->first_header; i < p->first_header + p->num_headers; i++) {
    const mp_header *h = mp_hdr_at(msg, i);
    const uint8_t *n = msg->data + h->name.off;
    if (h->name.len < 10 || (h->flags & MP_HEADER_NO_COLON) || !maybe_content(n))
      continue;
    int k = content_field_kind(n, h->name.len);
    if (k == CF_TYPE) {
      if (ct == NULL)
        ct = h;
    } else if (k == CF_CTE) {
      if (cte == NULL)
        cte = h;
    } else if (k >= 0 && *slots[k] == MP_NO_INDEX) {
      *slots[k] = i;
    }
  }
  *ct_out = ct;
  *cte_out = cte;
}

static void read_encoding(mp_message *msg, mp_part *p, uint32_t ix, const mp_header *cte) {
  p->encoding = MP_ENCODING_7BIT;
  if (cte != NULL) {
    p->encoding = read_cte(msg, cte, &p->encoding_name);
    if (p->encoding == MP_ENCODING_UNKNOWN) {
      p->flags |= MP_PART_UNKNOWN_CTE;
      mp_problem_add(msg, MP_PROBLEM_UNKNOWN_CTE, ix, cte->field.off);
    }
  }
}

// analyse_headers fills the part's MIME fields from its header fields.
static int analyse_headers(parser *P, uint32_t ix) {
  mp_message *msg = P->msg;
  mp_part *p = mp_part_at(msg, ix);
  const mp_header *ct, *cte;
  index_content_fields(msg, p, &ct, &cte);
  int bad = 1;
  if (ct != NULL) {
    p->content_type = ct->value;
    bad = typed_content_type(P, p, ct);
    if (bad == 2)
      bad = read_content_type(msg, p, ct);
    if (bad < 0)
      return bad;
    if (bad)
      mp_problem_add(msg, MP_PROBLEM_BAD_CTYPE, ix, ct->field.off);
  }
  if (bad) {
    p->type = p->subtype = p->boundary = p->charset = (mp_str){NULL, 0};
    p->flags |= MP_PART_DEFAULT_TYPE;
    const mp_part *parent = p->parent != MP_NO_INDEX ? mp_part_at(msg, p->parent) : NULL;
    // RFC 2046 5.1.5: in a digest the default is message/rfc822.
    if (parent != NULL && (parent->flags & MP_PART_MULTIPART) && TYPE_IS(parent, "multipart") &&
        SUBTYPE_IS(parent, "digest"))
      p->type = (mp_str){"message", 7}, p->subtype = (mp_str){"rfc822", 6};
    else
      p->type = (mp_str){"text", 4}, p->subtype = (mp_str){"plain", 5};
  }
  read_encoding(msg, p, ix, cte);
  return 0;
}

// parse_headers_only is the header-only mode: the top-level header section
// is indexed (one kernel call per field finds its end, its colon and its
// byte classes) and nothing else is read: no Content-Type value is parsed
// and the body is not scanned.
static int parse_headers_only(parser *P) {
  mp_message *msg = P->msg;
  int rc;
  (void)new_part(P, MP_NO_INDEX, 0, &rc);
  if (rc != 0)
    return rc;
  mp_hdr_ctx hc = {msg, P->max_headers, P->max_line_len, NULL, NULL};
  size_t body_off;
  bool found;
  rc = mp_header_section_parse(&hc, 0, 0, msg->len, &body_off, &found);
  if (rc != 0)
    return rc;
  mp_part *p = mp_part_at(msg, 0);
  p->flags |= MP_PART_HEADERS_ONLY;
  p->num_headers = (uint32_t)msg->num_headers;
  p->header.len = body_off;
  p->body = (mp_range){body_off, msg->len - body_off};
  if (!found) {
    p->flags |= MP_PART_NO_BODY;
    if (body_off < msg->len || p->num_headers > 0)
      mp_problem_add(msg, MP_PROBLEM_NO_BODY, 0, body_off);
  }
  const mp_header *ct, *cte;
  index_content_fields(msg, p, &ct, &cte);
  if (ct != NULL)
    p->content_type = ct->value;
  read_encoding(msg, p, 0, cte);
  return 0;
}

static int parse(parser *P) {
  mp_message *msg = P->msg;
  const mp_scanner *sc = mp_scanner_get();
  const uint8_t *b = msg->data;
  size_t len = msg->len;
  int rc;
  uint32_t cur = new_part(P, MP_NO_INDEX, 0, &rc);
  if (rc != 0)
    return rc;
  size_t pos = 0;
  bool in_headers = true;
  for (;;) {
    if (P->feed_rc != 0)
      return P->feed_rc;
    if (in_headers) {
      mp_hdr_ctx hc = {msg, P->max_headers, P->max_line_len, P->nbs ? pred_is_boundary : NULL, P};
      size_t body_off;
      bool found;
      rc = mp_header_section_parse(&hc, cur, pos, len, &body_off, &found);
      if (rc != 0)
        return rc;
      mp_part *p = mp_part_at(msg, cur);
      p->num_headers = (uint32_t)(msg->num_headers - p->first_header);
      p->header.len = body_off - pos;
      p->body.off = body_off;
      if (!found) {
        p->flags |= MP_PART_NO_BODY;
        if (body_off < len || p->num_headers > 0)
          mp_problem_add(msg, MP_PROBLEM_NO_BODY, cur, body_off);
      }
      rc = analyse_headers(P, cur);
      if (rc != 0)
        return rc;
      p = mp_part_at(msg, cur);
      pos = body_off;
      in_headers = false;
      bool container = false;
      if (TYPE_IS(p, "multipart")) {
        if (p->boundary.p == NULL) {
          p->flags |= MP_PART_NO_BOUNDARY;
          mp_problem_add(msg, MP_PROBLEM_NO_BOUNDARY, cur, p->header.off);
        } else {
          container = true;
        }
      } else if (TYPE_IS(p, "message") && (SUBTYPE_IS(p, "rfc822") || SUBTYPE_IS(p, "global")) &&
                 (p->encoding == MP_ENCODING_7BIT || p->encoding == MP_ENCODING_8BIT ||
                  p->encoding == MP_ENCODING_BINARY)) {
        container = true;
      }
      if (container && p->depth >= P->max_depth) {
        p->flags |= MP_PART_TOO_DEEP;
        mp_problem_add(msg, MP_PROBLEM_DEPTH, cur, body_off);
        container = false;
      }
      if (container && msg->num_parts >= P->max_parts) {
        p->flags |= MP_PART_TOO_DEEP;
        mp_problem_add(msg, MP_PROBLEM_PARTS, cur, body_off);
        container = false;
      }
      if (container && TYPE_IS(p, "multipart")) {
        p->flags |= MP_PART_MULTIPART;
        p->preamble.off = body_off;
        P->os[P->nos - 1].in_preamble = true;
        rc = grow(msg, (void **)&P->bs, P->nbs, &P->capbs, sizeof(bentry), P->bs0);
        if (rc != 0)
          return rc;
        P->bs[P->nbs++] =
            (bentry){cur, (uint32_t)(P->nos - 1), (const uint8_t *)p->boundary.p, p->boundary.len};
      } else if (container) {
        p->flags |= MP_PART_MESSAGE;
        cur = new_part(P, cur, body_off, &rc);
        if (rc != 0)
          return rc;
        in_headers = true;
      } else if (P->sink != NULL) {
        rc = mp_feed_begin(&P->feed, P->sink, p, cur, body_off);
        if (rc != 0)
          return rc;
      }
      continue;
    }
    // Body: scan candidate lines against the boundary stack.
    size_t cand = len;
    long level = -1;
    bool is_close = false;
    size_t le = len;
    while (P->nbs > 0 && !P->work_out && pos < len) {
      size_t lfs;
      // A leaf being decoded is scanned a stretch at a time, up to a line
      // start, so that no delimiter line straddles the stretch's end. The
      // stretch is scanned first and then cut back to its last line start,
      // found in bytes the scan has just brought into cache: looking for
      // the line end past the stretch first touched memory 16 KiB ahead of
      // the scan, a cache and TLB miss per stretch that cost about as much
      // as scanning the stretch.
      size_t limit = len;
      bool stretch = P->feed.active && P->feed.codec != 0 && len - pos > MP_FEED_STRETCH;
      if (stretch)
        limit = pos + MP_FEED_STRETCH;
      cand = sc->next_dash_line(b, limit, pos, &lfs);
      if (stretch && cand >= limit) {
        const uint8_t *lf = memrchr(b + pos, '\n', limit - pos);
        if (lf != NULL) {
          // Its last line starts after this LF, the last one counted.
          limit = (size_t)(lf - b) + 1;
        } else {
          // One line longer than the stretch, and not a candidate: it
          // runs to its end, the only LF in it.
          limit = sc->line_end(b, len, limit);
          lfs = b[limit - 1] == '\n';
        }
        cand = limit;
      }
      rc = add_seg(P, pos, cand, lfs);
      if (rc != 0)
        return rc;
      if (cand >= limit && limit < len) {
        // No delimiter up to `limit`: decode the stretch now. A delimiter
        // may start at `limit`, taking the line break before it, so
        // quoted-printable keeps that break for later (Base64 skips it).
        size_t upto = limit - 1;
        if (upto > 0 && b[upto - 1] == '\r')
          upto--;
        rc = mp_feed_bytes(&P->feed, b, P->feed.codec == ENC_CODEC_QP ? upto : limit);
        if (rc != 0)
          return rc;
        pos = limit;
        continue;
      }
      if (cand >= len)
        break;
      level = match_boundary(P, cand, &is_close, &le);
      if (level >= 0)
        break;
      pos = sc->line_end(b, len, cand);
      rc = add_seg(P, cand, pos, b[pos - 1] == '\n');
      if (rc != 0)
        return rc;
      cand = len;
    }
    if (level < 0) {
      while (P->nos > 0)
        (void)close_top(P, len);
      if (P->feed_rc != 0)
        return P->feed_rc;
      return count_all_lines(msg, P->segs, P->nsegs);
    }
    bentry be = P->bs[level];
    // The line break before a delimiter belongs to the delimiter.
    size_t cut = cand;
    if (cut > 0 && b[cut - 1] == '\n') {
      cut--;
      if (cut > 0 && b[cut - 1] == '\r')
        cut--;
    }
    // The counted stretch ends where the body does, so that the line count
    // can take it whole.
    if (P->nsegs > 0 && P->segs[P->nsegs - 1].end == cand && P->segs[P->nsegs - 1].start <= cut) {
      P->segs[P->nsegs - 1].end = cut;
      P->segs[P->nsegs - 1].lfs -= cand != cut && b[cand - 1] == '\n';
    }
    if (!is_close && msg->num_parts >= P->max_parts) {
      // No room for another part: the delimiter stays in the current body.
      mp_problem_add(msg, MP_PROBLEM_PARTS, be.part, cand);
      rc = add_seg(P, cand, le, b[le - 1] == '\n');
      if (rc != 0)
        return rc;
      pos = le;
      continue;
    }
    P->nbs = (size_t)level + 1;
    size_t end = cut;
    while (P->nos > be.open_ix + 1)
      end = close_top(P, end);
    oentry *oe = &P->os[be.open_ix];
    mp_part *m = mp_part_at(msg, be.part);
    if (oe->in_preamble) {
      m->preamble.len = cut > m->preamble.off ? cut - m->preamble.off : 0;
      oe->in_preamble = false;
    }
    if (is_close) {
      oe->closed = true;
      m->epilogue.off = le;
      P->nbs = (size_t)level;
      pos = le;
    } else {
      cur = new_part(P, be.part, le, &rc);
      if (rc != 0)
        return rc;
      pos = le;
      in_headers = true;
    }
  }
}

static int parse_entry(mp_message **out, const mp_settings *settings, const void *in, size_t in_len,
                       mp_diag *diag, bool headers_only, const mp_body_sink *sink) {
  if (diag != NULL)
    memset(diag, 0, sizeof *diag);
  if (out != NULL)
    *out = NULL;
  mp_settings def = MP_SETTINGS_INIT;
  const mp_settings *s = settings != NULL ? settings : &def;
  const char *why = NULL;
  if (out == NULL)
    why = "out is NULL";
  else if (in == NULL && in_len > 0)
    why = "in is NULL";
  else if (s->version != MP_SETTINGS_VERSION)
    why = "unknown settings version";
  else if ((s->allocator.alloc == NULL) != (s->allocator.free == NULL))
    why = "allocator needs both alloc and free";
  if (why != NULL) {
    if (diag != NULL) {
      diag->code = MP_ERR_INVALID_ARGUMENT;
      snprintf(diag->message, sizeof diag->message, "%s", why);
    }
    return MP_ERR_INVALID_ARGUMENT;
  }
  if (mp_scanner_get() == &mp_scanner_unsupported) {
    if (diag != NULL) {
      diag->code = MP_ERR_UNSUPPORTED;
      snprintf(diag->message, sizeof diag->message,
               "MAILPARSE_IMPL names no usable implementation");
    }
    return MP_ERR_UNSUPPORTED;
  }
  mp_message *msg = mp_alloc_raw(&s->allocator, sizeof *msg);
  if (msg == NULL)
    goto nomem;
  mp_zero(msg, offsetof(mp_message, problems));
  mp_records_init(msg);
  msg->arena.a = s->allocator;
  msg->data = in != NULL ? in : (const uint8_t *)"";
  msg->len = in_len;
  parser P;
  mp_zero(&P, offsetof(parser, feed));
  P.msg = msg;
  P.sink = sink;
  P.feed.active = false;
  P.bs = P.bs0;
  P.capbs = sizeof P.bs0 / sizeof P.bs0[0];
  P.os = P.os0;
  P.capos = sizeof P.os0 / sizeof P.os0[0];
  P.text = P.text0;
  P.text_cap = sizeof P.text0;
  P.params = P.params0;
  P.segs = P.segs0;
  P.capsegs = sizeof P.segs0 / sizeof P.segs0[0];
  P.max_depth = s->max_depth ? s->max_depth : MP_DEFAULT_MAX_DEPTH;
  P.max_parts = s->max_parts ? s->max_parts : MP_DEFAULT_MAX_PARTS;
  P.max_headers = s->max_headers ? s->max_headers : MP_DEFAULT_MAX_HEADERS;
  P.max_line_len = s->max_line_len ? s->max_line_len : MP_DEFAULT_MAX_LINE_LEN;
  if (s->max_work != 0)
    P.work_left = s->max_work;
  else if (in_len > (UINT64_MAX - (1u << 20)) / MP_DEFAULT_WORK_PER_BYTE)
    P.work_left = UINT64_MAX;
  else
    P.work_left = (uint64_t)in_len * MP_DEFAULT_WORK_PER_BYTE + (1u << 20);
  msg->headers_only = headers_only;
  int rc = headers_only ? parse_headers_only(&P) : parse(&P);
  if (P.bs != P.bs0)
    mp_free_raw(&s->allocator, P.bs);
  if (P.os != P.os0)
    mp_free_raw(&s->allocator, P.os);
  if (P.segs != P.segs0)
    mp_free_raw(&s->allocator, P.segs);
  if (P.text != P.text0)
    mp_free_raw(&s->allocator, P.text);
  if (rc != 0) {
    mp_message_free(msg);
    if (rc == -ENOMEM)
      goto nomem;
    if (diag != NULL)
      diag->code = rc;
    return rc;
  }
  *out = msg;
  return 0;
nomem:
  if (diag != NULL) {
    diag->code = -ENOMEM;
    snprintf(diag->message, sizeof diag->message, "out of memory");
  }
  return -ENOMEM;
}

int mp_message_parse(mp_message **out, const mp_settings *settings, const void *in, size_t in_len,
                     mp_diag *diag) {
  return parse_entry(out, settings, in, in_len, diag, false, NULL);
}

int mp_message_parse_bodies(mp_message **out, const mp_settings *settings, const void *in,
                            size_t in_len, const mp_body_sink *sink, mp_diag *diag) {
  if (sink == NULL || sink->data == NULL) {
    if (out != NULL)
      *out = NULL;
    if (diag != NULL) {
      memset(diag, 0, sizeof *diag);
      diag->code = MP_ERR_INVALID_ARGUMENT;
      snprintf(diag->message, sizeof diag->message, "sink or sink->data is NULL");
    }
    return MP_ERR_INVALID_ARGUMENT;
  }
  return parse_entry(out, settings, in, in_len, diag, false, sink);
}

int mp_message_parse_headers(mp_message **out, const mp_settings *settings, const void *in,
                             size_t in_len, mp_diag *diag) {
  return parse_entry(out, settings, in, in_len, diag, true, NULL);
}

void mp_message_free(mp_message *msg) {
  if (msg == NULL)
    return;
  mp_allocator a = msg->arena.a;
  mp_records_free(msg);
  mp_arena_release(&msg->arena);
  mp_free_raw(&a, msg);
}

const uint8_t *mp_message_data(const mp_message *msg, size_t *len) {
  if (len != NULL)
    *len = msg != NULL ? msg->len : 0;
  return msg != NULL ? msg->data : NULL;
}

size_t mp_message_num_parts(const mp_message *msg) {
  return msg != NULL ? msg->num_parts : 0;
}

const mp_part *mp_message_part(const mp_message *msg, size_t i) {
  if (msg == NULL || i >= msg->num_parts)
    return NULL;
  return mp_part_at(msg, i);
}

uint32_t mp_message_problems(const mp_message *msg) {
  return msg != NULL ? msg->problem_mask : 0;
}

size_t mp_message_num_problems(const mp_message *msg) {
  return msg != NULL ? msg->num_problems : 0;
}

const mp_problem *mp_message_problem(const mp_message *msg, size_t i) {
  if (msg == NULL || i >= msg->num_problems)
    return NULL;
  return &msg->problems[i];
}

int mp_message_part_by_section(const mp_message *msg, uint32_t *out_part, const char *section,
                               size_t section_len) {
  if (msg == NULL || out_part == NULL || (section == NULL && section_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  mp_cur c = {(const uint8_t *)section, section_len};
  uint32_t cur = 0; // a message-level node: its body is what numbers address
  bool first = true;
  while (c.len > 0) {
    if (!first) {
      uint8_t dot;
      if (!mp_cur_get_u8(&c, &dot) || dot != '.')
        return MP_ERR_SYNTAX;
      // After a message/rfc822 part, numbers address the encapsulated message.
      const mp_part *p = mp_part_at(msg, cur);
      if (p->flags & MP_PART_MESSAGE)
        cur = p->first_child;
      else if (!(p->flags & MP_PART_MULTIPART))
        return MP_ERR_SYNTAX;
    }
    first = false;
    uint64_t n = 0;
    size_t digits = 0;
    uint8_t ch;
    while (mp_cur_peek(&c, &ch) && ch >= '0' && ch <= '9') {
      mp_cur_get_u8(&c, &ch);
      if (n > UINT32_MAX)
        return MP_ERR_SYNTAX;
      n = n * 10 + (ch - '0');
      digits++;
    }
    if (digits == 0 || n == 0 || (digits > 1 && c.p[-(long)digits] == '0'))
      return MP_ERR_SYNTAX;
    const mp_part *p = mp_part_at(msg, cur);
    if (p->flags & MP_PART_MULTIPART) {
      uint32_t ch_ix = p->first_child;
      for (uint64_t i = 1; i < n && ch_ix != MP_NO_INDEX; i++)
        ch_ix = mp_part_at(msg, ch_ix)->next_sibling;
      if (ch_ix == MP_NO_INDEX)
        return MP_ERR_SYNTAX;
      cur = ch_ix;
    } else if (n != 1) {
      return MP_ERR_SYNTAX;
    }
  }
  *out_part = cur;
  return 0;
}
