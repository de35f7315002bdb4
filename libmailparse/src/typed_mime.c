// typed_mime.c: Content-Type (RFC 2045 §5.1) and Content-Disposition (RFC
// 2183) values with their parameters: media type and subtype lowercased,
// parameter values as tokens or quoted strings, RFC 2231 continuations,
// charsets and languages (sections joined in order before conversion, so a
// character split across sections survives), and the real-world forms:
// RFC 2047 words in values, unquoted values with spaces or specials,
// unescaped backslashes in Windows paths. Values are converted to UTF-8 in
// the caller's text buffer.
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "charclass.h"
#include "typed_internal.h"

// RFC 2231 section numbers above this are ignored (MP_TYPED_JUNK): joining
// sections costs a pass over the value per section.
#define MP_PARAM_MAX_SECTION 255
// Joining RFC 2231 sections takes one pass over the parameters per section;
// a value gets at most this many passes in all, so that hostile input stays
// linear (real values have a few dozen sections at most).
#define MP_PARAM_MAX_PASSES 512

static int is_tspecial(uint8_t b) {
  return mp_is_tspecial(b);
}

static int is_token_char(uint8_t b) {
  return b > 0x20 && b != 0x7f && !is_tspecial(b);
}

static void skip_cfws(struct mp_cur *c) {
  uint8_t b;
  while (mp_cur_peek(c, &b)) {
    if (mp_is_wsp(b)) {
      (void)mp_cur_skip(c, 1);
      continue;
    }
    if (b == '(') {
      unsigned depth = 0;
      while (mp_cur_get_u8(c, &b)) {
        if (b == '\\')
          (void)mp_cur_skip(c, 1);
        else if (b == '(')
          depth++;
        else if (b == ')' && --depth == 0)
          break;
      }
    } else {
      return;
    }
  }
}

// get_token reads the token at the cursor (empty when none) through a local
// index: tokens are most of every Content-Type, and a cursor update per
// byte cost more than the class test.
static size_t get_token(struct mp_cur *c, const uint8_t **p) {
  const uint8_t *s = c->p;
  size_t n = 0, len = c->len;
  while (n < len && is_token_char(s[n]))
    n++;
  *p = s;
  c->p = s + n;
  c->len = len - n;
  return n;
}

// quoted_end returns the offset just past the closing '"' of the quoted
// string whose content starts at `p` (`n` bytes), or `n` when it is not
// closed, and sets `*closed`. A backslash takes the byte after it.
static size_t quoted_end(const uint8_t *p, size_t n, bool *closed) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = p[i++];
    if (b == '"') {
      *closed = true;
      return i;
    }
    if (b == '\\' && i < n)
      i++;
  }
  *closed = false;
  return n;
}

// skip_past_semicolon skips to the next ';' outside quotes (it stays before
// it).
static void skip_to_semicolon(struct mp_cur *c) {
  uint8_t b;
  bool q = false;
  while (mp_cur_peek(c, &b)) {
    if (!q && b == ';')
      return;
    if (b == '"')
      q = !q;
    else if (b == '\\' && q)
      (void)mp_cur_skip(c, 1);
    (void)mp_cur_skip(c, 1);
  }
}

struct rawp {
  const uint8_t *name; // the base name, without RFC 2231 suffixes
  size_t name_len;
  long section; // -1: none
  bool ext;     // ends in '*': charset'lang'%xx
  const uint8_t *val;
  size_t val_len;
  bool quoted;
};

// next_raw reads the next parameter as written; returns 1, or 0 at the end.
static int next_raw(struct mp_cur *c, struct rawp *r, unsigned *flags) {
  uint8_t b;
  for (;;) {
    skip_cfws(c);
    if (!mp_cur_peek(c, &b))
      return 0;
    if (b == ';') {
      (void)mp_cur_skip(c, 1);
      continue;
    }
    memset(r, 0, sizeof *r);
    r->name_len = get_token(c, &r->name);
    skip_cfws(c);
    if (r->name_len == 0 || !mp_cur_peek(c, &b) || b != '=') {
      *flags |= MP_TYPED_JUNK;
      if (r->name_len == 0 && mp_cur_peek(c, &b) && b != ';')
        (void)mp_cur_skip(c, 1);
      skip_to_semicolon(c);
      continue;
    }
    (void)mp_cur_skip(c, 1);
    skip_cfws(c);
    if (mp_cur_peek(c, &b) && b == '"') {
      (void)mp_cur_skip(c, 1);
      r->quoted = true;
      r->val = c->p;
      bool closed;
      size_t q = quoted_end(c->p, c->len, &closed);
      (void)mp_cur_skip(c, q);
      r->val_len = q - (closed ? 1 : 0);
      if (!closed) {
        *flags |= MP_TYPED_UNTERMINATED;
        if (r->val_len > 0 && r->val[r->val_len - 1] == '\\')
          r->val_len--; // never end on half a quoted pair
      }
      skip_cfws(c);
      if (mp_cur_peek(c, &b) && b != ';') {
        *flags |= MP_TYPED_JUNK;
        skip_to_semicolon(c);
      }
    } else {
      const uint8_t *start = c->p;
      r->val_len = get_token(c, &r->val);
      struct mp_cur after = *c;
      skip_cfws(&after);
      if (mp_cur_peek(&after, &b) && b != ';') {
        // An unquoted value with spaces or specials: take it up to ';'.
        *flags |= MP_TYPED_REPAIRED;
        skip_to_semicolon(c);
        r->val = start;
        r->val_len = (size_t)(c->p - start);
        while (r->val_len > 0 && mp_is_wsp(r->val[r->val_len - 1]))
          r->val_len--;
      } else {
        *c = after;
      }
    }
    // RFC 2231 §3-4: name*, name*N, name*N*.
    // Names are a few bytes: a loop, not a call.
    const uint8_t *star = NULL;
    for (size_t k = 0; k < r->name_len; k++)
      if (r->name[k] == '*') {
        star = r->name + k;
        break;
      }
    r->section = -1;
    if (star != NULL) {
      size_t base = (size_t)(star - r->name);
      size_t i = base + 1;
      long sec = -1;
      if (i < r->name_len && mp_is_digit(r->name[i])) {
        sec = 0;
        while (i < r->name_len && mp_is_digit(r->name[i]) && sec <= MP_PARAM_MAX_SECTION)
          sec = sec * 10 + (r->name[i++] - '0');
      }
      bool ext = sec < 0; // "name*": the star itself marks the extension
      if (sec >= 0 && i < r->name_len && r->name[i] == '*') {
        ext = true;
        i++;
      }
      if (i == r->name_len && base > 0 && (sec >= 0 || ext)) {
        if (sec > MP_PARAM_MAX_SECTION) {
          *flags |= MP_TYPED_JUNK;
          continue;
        }
        r->name_len = base;
        r->section = sec;
        r->ext = ext;
      }
    }
    return 1;
  }
}

static int hexval(uint8_t b) {
  if (mp_is_digit(b))
    return b - '0';
  b = mp_lower(b);
  if (b >= 'a' && b <= 'f')
    return b - 'a' + 10;
  return -1;
}

// put_pct appends %XX-decoded bytes (RFC 2231 §4); a malformed '%' stays.
static void put_pct(struct mp_tb *tb, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int h, l;
    if (p[i] == '%' && i + 2 < n && (h = hexval(p[i + 1])) >= 0 && (l = hexval(p[i + 2])) >= 0) {
      mp_tb_putc(tb, (uint8_t)(h * 16 + l));
      i += 2;
    } else {
      if (p[i] == '%')
        tb->flags |= MP_TYPED_REPAIRED;
      mp_tb_putc(tb, p[i]);
    }
  }
}

// put_quoted_bytes appends a quoted string's bytes with quoted pairs
// resolved, except that a backslash before anything but '"' or '\' stays
// (unescaped Windows paths in filenames) and folds are removed.
static void put_quoted_bytes(struct mp_tb *tb, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\\' && i + 1 < n && (p[i + 1] == '"' || p[i + 1] == '\\'))
      i++;
    else if (p[i] == '\r' || p[i] == '\n')
      continue;
    mp_tb_putc(tb, p[i]);
  }
}

// plain_value tells whether a value is printable ASCII without white
// space, '=' or '\\' (most charsets, boundaries and names): no encoded word,
// quoted pair, fold or byte to check can be in it, so that it is copied as
// it is, which is what mp_tb_text() makes of such bytes.
static bool plain_value(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '=' || p[i] == '\\')
      return false;
  return true;
}

// put_simple_value appends a value without RFC 2231 sections: raw bytes as
// UTF-8 (RFC 6532), RFC 2047 words decoded (real mail puts them here).
static void put_simple_value(struct mp_tb *tb, const struct rawp *r) {
  if (plain_value(r->val, r->val_len)) {
    mp_tb_utf8(tb, r->val, r->val_len); // mp_tb_text() of one word without "="
    return;
  }
  if (!r->quoted) {
    mp_tb_text(tb, r->val, r->val_len, false);
    return;
  }
  size_t s = 0;
  for (size_t i = 0; i < r->val_len; i++) {
    if (r->val[i] == '\\' && i + 1 < r->val_len) {
      if (r->val[i + 1] != '"' && r->val[i + 1] != '\\') {
        tb->flags |= MP_TYPED_REPAIRED;
        i++;
        continue;
      }
      mp_tb_text(tb, r->val + s, i - s, false);
      mp_tb_utf8(tb, r->val + i + 1, 1);
      i++;
      s = i + 1;
    }
  }
  mp_tb_text(tb, r->val + s, r->val_len - s, false);
}

static bool name_eq(const uint8_t *a, size_t a_len, const char *b, size_t b_len) {
  if (a_len != b_len)
    return false;
  for (size_t i = 0; i < a_len; i++)
    if (mp_lower(a[i]) != mp_lower((uint8_t)b[i]))
      return false;
  return true;
}

// emit_sections joins the RFC 2231 sections of the parameter named like
// `first`, in section order (the first occurrence of a number wins). Each
// section costs a pass over the parameters, so `*budget` bounds the passes
// of the whole value; when it runs out the rest is dropped (flagged).
static void emit_sections(struct mp_tb *tb, struct mp_cur params, const struct rawp *first,
                          mp_param *p, unsigned *budget) {
  struct rawp r, best_r;
  struct mp_cur c;
  unsigned junk = 0;
  p->flags |= MP_PARAM_CONTINUED;
  const uint8_t *cs = NULL;
  size_t cs_len = 0;
  size_t stage = tb->len;
  bool any_ext = false;
  long prev = -1;
  for (;;) {
    long best = MP_PARAM_MAX_SECTION + 1;
    if (*budget == 0) {
      p->flags |= MP_PARAM_SECTION_GAP;
      tb->flags |= MP_TYPED_JUNK;
      break;
    }
    --*budget;
    c = params;
    while (next_raw(&c, &r, &junk))
      if (r.section > prev && r.section < best &&
          name_eq(r.name, r.name_len, (const char *)first->name, first->name_len)) {
        best = r.section;
        best_r = r;
      }
    if (best > MP_PARAM_MAX_SECTION)
      break;
    if (best != prev + 1) {
      p->flags |= MP_PARAM_SECTION_GAP;
      tb->flags |= MP_TYPED_REPAIRED;
    }
    prev = best;
    r = best_r;
    const uint8_t *v = r.val;
    size_t n = r.val_len;
    if (r.ext) {
      any_ext = true;
      if (best == 0) {
        // charset'language'value
        const uint8_t *q1 = memchr(v, '\'', n);
        const uint8_t *q2 = q1 ? memchr(q1 + 1, '\'', (size_t)(v + n - q1 - 1)) : NULL;
        if (q2 != NULL) {
          cs = v;
          cs_len = (size_t)(q1 - v);
          p->language.p = (const char *)q1 + 1; // copied to the text buffer below
          p->language.len = (size_t)(q2 - q1 - 1);
          n -= (size_t)(q2 + 1 - v);
          v = q2 + 1;
        } else {
          tb->flags |= MP_TYPED_REPAIRED;
        }
      }
      put_pct(tb, v, n);
    } else if (r.quoted) {
      put_quoted_bytes(tb, v, n);
    } else {
      mp_tb_put(tb, v, n);
    }
  }
  if (tb->err)
    return;
  size_t n = tb->len - stage;
  // Convert from the far end of the buffer back to the stage: the input
  // (n bytes) and the output (at most 3n + 3) must not overlap.
  if (tb->cap - stage < 4 * n + 3) {
    tb->err = MP_ERR_BUFFER_TOO_SMALL;
    return;
  }
  uint8_t *src = (uint8_t *)tb->out + tb->cap - n;
  memmove(src, tb->out + stage, n);
  tb->len = stage;
  size_t cap = tb->cap;
  tb->cap -= n;
  if (any_ext)
    p->flags |= MP_PARAM_EXTENDED;
  const char *lang = p->language.p;
  size_t lang_len = p->language.len;
  if (cs_len > 0) {
    mp_tb_begin(tb);
    mp_tb_put(tb, cs, cs_len);
    mp_tb_end(tb, &p->charset.p, &p->charset.len);
  }
  if (lang_len > 0) {
    mp_tb_begin(tb);
    mp_tb_put(tb, lang, lang_len);
    mp_tb_end(tb, &p->language.p, &p->language.len);
  } else {
    p->language.p = NULL;
  }
  mp_tb_begin(tb);
  if (cs_len > 0)
    mp_tb_charset(tb, cs, cs_len, src, n);
  else
    mp_tb_utf8(tb, src, n);
  mp_tb_end(tb, &p->value.p, &p->value.len);
  tb->cap = cap;
}

// emit_extended handles a single "name*=charset'lang'%xx" parameter.
static void emit_extended(struct mp_tb *tb, const struct rawp *r, mp_param *p) {
  const uint8_t *v = r->val;
  size_t n = r->val_len;
  const uint8_t *q1 = memchr(v, '\'', n);
  const uint8_t *q2 = q1 ? memchr(q1 + 1, '\'', (size_t)(v + n - q1 - 1)) : NULL;
  const uint8_t *cs = NULL;
  size_t cs_len = 0;
  p->flags |= MP_PARAM_EXTENDED;
  if (q2 != NULL) {
    cs = v;
    cs_len = (size_t)(q1 - v);
    if (cs_len > 0) {
      mp_tb_begin(tb);
      mp_tb_put(tb, cs, cs_len);
      mp_tb_end(tb, &p->charset.p, &p->charset.len);
    }
    if (q2 > q1 + 1) {
      mp_tb_begin(tb);
      mp_tb_put(tb, q1 + 1, (size_t)(q2 - q1 - 1));
      mp_tb_end(tb, &p->language.p, &p->language.len);
    }
    n -= (size_t)(q2 + 1 - v);
    v = q2 + 1;
  } else {
    tb->flags |= MP_TYPED_REPAIRED;
  }
  // Decode into the stage, move it to the far end, convert back.
  size_t stage = tb->len;
  put_pct(tb, v, n);
  if (tb->err)
    return;
  size_t m = tb->len - stage;
  if (tb->cap - stage < 4 * m + 3) {
    tb->err = MP_ERR_BUFFER_TOO_SMALL;
    return;
  }
  uint8_t *src = (uint8_t *)tb->out + tb->cap - m;
  memmove(src, tb->out + stage, m);
  tb->len = stage;
  size_t cap = tb->cap;
  tb->cap -= m;
  mp_tb_begin(tb);
  if (cs_len > 0)
    mp_tb_charset(tb, cs, cs_len, src, m);
  else
    mp_tb_utf8(tb, src, m);
  mp_tb_end(tb, &p->value.p, &p->value.len);
  tb->cap = cap;
}

// parse_params fills `params` from the parameter list at `c`.
static int parse_params(struct mp_tb *tb, mp_param *params, size_t params_cap, size_t *num,
                        struct mp_cur c) {
  struct mp_cur all = c;
  struct rawp r;
  size_t n = 0;
  unsigned budget = MP_PARAM_MAX_PASSES;
  while (next_raw(&c, &r, &tb->flags)) {
    size_t seen = SIZE_MAX;
    for (size_t i = 0; i < n && seen == SIZE_MAX; i++)
      if (name_eq(r.name, r.name_len, params[i].name.p, params[i].name.len))
        seen = i;
    if (seen != SIZE_MAX) {
      // A later RFC 2231 section (already joined) or a duplicate (the
      // first one wins).
      if (r.section < 0 || !(params[seen].flags & MP_PARAM_CONTINUED))
        tb->flags |= MP_TYPED_REPAIRED;
      continue;
    }
    if (n >= params_cap)
      return MP_ERR_LIMIT;
    mp_param *p = &params[n++];
    memset(p, 0, sizeof *p);
    mp_tb_begin(tb);
    mp_tb_put_lower(tb, r.name, r.name_len);
    mp_tb_end(tb, &p->name.p, &p->name.len);
    if (tb->err)
      return tb->err;
    if (r.section >= 0) {
      emit_sections(tb, all, &r, p, &budget);
    } else if (r.ext) {
      emit_extended(tb, &r, p);
    } else {
      unsigned before = tb->flags;
      tb->flags &= ~(unsigned)MP_TYPED_ENCWORD_PLACEMENT;
      mp_tb_begin(tb);
      put_simple_value(tb, &r);
      mp_tb_end(tb, &p->value.p, &p->value.len);
      if (tb->flags & MP_TYPED_ENCWORD_PLACEMENT)
        p->flags |= MP_PARAM_ENCWORD;
      tb->flags |= before;
    }
    if (tb->err)
      return tb->err;
  }
  *num = n;
  return 0;
}

// Fast path. Most Content-Type and Content-Disposition values are
// `type/subtype` and a few `name=value` or `name="value"` parameters of
// plain printable ASCII, for which the general parser's passes (cursor per
// byte, RFC 2231 name split, RFC 2047 checks, text builder per string) are
// most of the cost. fast_common reads exactly that form in one pass and
// gives up on anything else (comments, RFC 2231 names, quoted pairs, white
// space, '=' or 8-bit bytes in a value, empty values, a full parameter
// array, a text buffer shorter than the value, junk), and parse_common then
// runs the general parser from the start. Where it succeeds its results are
// the general parser's, byte for byte, flags included: none, or
// MP_TYPED_REPAIRED for a repeated parameter name (tests/test_typed_mime.c
// compares the two on generated values).

enum {
  FAST_TOKEN = 1, // an ASCII token character (RFC 2045 §5.1)
  FAST_QVAL = 2,  // a byte the fast path copies from a quoted value: printable
                  // ASCII, SP and HT, but '"', '=' (an encoded word) and '\\'
  FAST_NAME = 4,  // a token character of a parameter name the fast path
                  // takes: all but '*' (RFC 2231 sections and charsets)
};

#if !defined(__SSE2__)
// fast_class holds the FAST_* classes of every byte, one lookup per byte
// of the value (the range tests and the tspecial lookup were three): the
// byte loops without SSE2, and the sets the SSE2 range tests stand for.
static const uint8_t fast_class[256] = {
#define FAST_Q(c) [c] = FAST_QVAL
#define FAST_TQ(c) [c] = FAST_TOKEN | FAST_QVAL | FAST_NAME
    FAST_Q(' '),  FAST_Q('\t'),  FAST_Q('('),
    FAST_Q(')'),  FAST_Q('<'),   FAST_Q('>'),
    FAST_Q('@'),  FAST_Q(','),   FAST_Q(';'),
    FAST_Q(':'),  FAST_Q('/'),   FAST_Q('['),
    FAST_Q(']'),  FAST_Q('?'),   FAST_TQ('!'),
    FAST_TQ('#'), FAST_TQ('$'),  FAST_TQ('%'),
    FAST_TQ('&'), FAST_TQ('\''), ['*'] = FAST_TOKEN | FAST_QVAL,
    FAST_TQ('+'), FAST_TQ('-'),  FAST_TQ('.'),
    FAST_TQ('^'), FAST_TQ('_'),  FAST_TQ('`'),
    FAST_TQ('{'), FAST_TQ('|'),  FAST_TQ('}'),
    FAST_TQ('~'), FAST_TQ('0'),  FAST_TQ('1'),
    FAST_TQ('2'), FAST_TQ('3'),  FAST_TQ('4'),
    FAST_TQ('5'), FAST_TQ('6'),  FAST_TQ('7'),
    FAST_TQ('8'), FAST_TQ('9'),  FAST_TQ('A'),
    FAST_TQ('B'), FAST_TQ('C'),  FAST_TQ('D'),
    FAST_TQ('E'), FAST_TQ('F'),  FAST_TQ('G'),
    FAST_TQ('H'), FAST_TQ('I'),  FAST_TQ('J'),
    FAST_TQ('K'), FAST_TQ('L'),  FAST_TQ('M'),
    FAST_TQ('N'), FAST_TQ('O'),  FAST_TQ('P'),
    FAST_TQ('Q'), FAST_TQ('R'),  FAST_TQ('S'),
    FAST_TQ('T'), FAST_TQ('U'),  FAST_TQ('V'),
    FAST_TQ('W'), FAST_TQ('X'),  FAST_TQ('Y'),
    FAST_TQ('Z'), FAST_TQ('a'),  FAST_TQ('b'),
    FAST_TQ('c'), FAST_TQ('d'),  FAST_TQ('e'),
    FAST_TQ('f'), FAST_TQ('g'),  FAST_TQ('h'),
    FAST_TQ('i'), FAST_TQ('j'),  FAST_TQ('k'),
    FAST_TQ('l'), FAST_TQ('m'),  FAST_TQ('n'),
    FAST_TQ('o'), FAST_TQ('p'),  FAST_TQ('q'),
    FAST_TQ('r'), FAST_TQ('s'),  FAST_TQ('t'),
    FAST_TQ('u'), FAST_TQ('v'),  FAST_TQ('w'),
    FAST_TQ('x'), FAST_TQ('y'),  FAST_TQ('z'),
#undef FAST_Q
#undef FAST_TQ
};
#endif

#if defined(__SSE2__)
// fast_range16 marks the bytes of `v` in `lo`..`hi`: shifted so that `lo`
// lands on -128, the range is one signed compare (SSE2 has no unsigned one).
static inline __m128i fast_range16(__m128i v, char lo, char hi) {
  __m128i x = _mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - lo)));
  return _mm_cmplt_epi8(x, _mm_set1_epi8((char)(-128 + (hi - lo + 1))));
}

// fast_stop16 returns the mask of the bytes of `v` outside FAST_TOKEN (or
// outside FAST_NAME when `name`): fast_class's sets as range tests, namely
// printable ASCII but the tspecials '"' ( ) , / : ; < = > ? @ [ \ ] (and
// '*' for a name). tests/test_typed_mime.c sweeps every byte value through
// every lane against the general parser.
static inline unsigned fast_stop16(__m128i v, bool name) {
  __m128i ok = fast_range16(v, 0x21, 0x7e);
  __m128i sp = _mm_or_si128(fast_range16(v, '(', ')'), fast_range16(v, ':', '@'));
  sp = _mm_or_si128(sp, fast_range16(v, '[', ']'));
  sp = _mm_or_si128(sp, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8(','))));
  sp = _mm_or_si128(sp, _mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
  if (name)
    sp = _mm_or_si128(sp, _mm_cmpeq_epi8(v, _mm_set1_epi8('*')));
  return ~(unsigned)_mm_movemask_epi8(_mm_andnot_si128(sp, ok)) & 0xffffu;
}
#endif

// fast_src is the value as fast_common reads it: in place, with every byte
// at or past `len` read as 0 (in no class, so that it ends every run). A
// copy with zero padding cost more than the parse of a short value: the
// call to memcpy, and 16-byte loads that straddle its stores and the pad's
// wait for them to reach the cache instead of being forwarded.
struct fast_src {
  const uint8_t *p;
  size_t len;
#if defined(__SSE2__)
  __m128i tail;   // the value's last 16 bytes, or a shorter value zero-padded
  size_t tail_at; // the offset of tail's first byte: len - 16, or 0
  // A value shorter than FAST_SMALL is classified whole (fast_src_classify):
  // bit i is set when byte i ends a run of FAST_TOKEN, FAST_NAME or
  // FAST_QVAL bytes, and every bit from `len` on is set.
  uint64_t stop_tok, stop_name, stop_qval;
#endif
};

// FAST_SMALL bounds the values classified whole: one 64-bit mask per class.
enum { FAST_SMALL = 64 };

// fast_src_init sets `s` up to read the `len` bytes at `p`, reading none
// past them: a value shorter than 16 bytes is put together in a register
// from overlapping 8-, 4- or 1-byte loads.
static inline void fast_src_init(struct fast_src *s, const uint8_t *p, size_t len) {
  s->p = p;
  s->len = len;
#if defined(__SSE2__)
  s->stop_tok = s->stop_name = s->stop_qval = 0; // set by fast_src_classify
  if (len >= 16) {
    s->tail = _mm_loadu_si128((const __m128i *)(const void *)(p + len - 16));
    s->tail_at = len - 16;
    return;
  }
  uint64_t lo = 0, hi = 0;
  if (len >= 8) {
    memcpy(&lo, p, 8);
    memcpy(&hi, p + len - 8, 8);
    hi = len > 8 ? hi >> (8 * (16 - len)) : 0; // bytes 8.. of the value
  } else if (len >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + len - 4, 4);
    lo = a | ((uint64_t)b >> (8 * (8 - len))) << 32;
  } else {
    for (size_t k = 0; k < len; k++)
      lo |= (uint64_t)p[k] << (8 * k);
  }
  s->tail = _mm_set_epi64x((long long)hi, (long long)lo);
  s->tail_at = 0;
#endif
}

// fast_at returns the byte at `i`, 0 past the value.
static inline uint8_t fast_at(const struct fast_src *s, size_t i) {
  return i < s->len ? s->p[i] : 0;
}

#if defined(__SSE2__)
// fast_shift16 shifts `v` down by `n` bytes (0 to 16), zeros coming in:
// SSE2 shifts whole registers by constant byte counts only, so the halves
// shift by bit counts (a count of 64 or more, or a negative one, read as
// unsigned, gives 0).
static inline __m128i fast_shift16(__m128i v, size_t n) {
  int b = (int)(8 * n);
  __m128i hi = _mm_srli_si128(v, 8);
  __m128i r = _mm_srl_epi64(v, _mm_cvtsi32_si128(b));
  r = _mm_or_si128(r, _mm_sll_epi64(hi, _mm_cvtsi32_si128(64 - b)));
  return _mm_or_si128(r, _mm_srl_epi64(hi, _mm_cvtsi32_si128(b - 64)));
}

// fast_load16 returns the 16 bytes at `pos` (at most `len`), zeros past the
// value.
static inline __m128i fast_load16(const struct fast_src *s, size_t pos) {
  if (pos + 16 <= s->len)
    return _mm_loadu_si128((const __m128i *)(const void *)(s->p + pos));
  return fast_shift16(s->tail, pos - s->tail_at);
}
#endif

// fast_copy copies the run of bytes of class `cls` (FAST_TOKEN or
// FAST_NAME) at `pos` to `o` (lowercased when `lower`) in the same pass
// that finds its end, and returns its length. `o` has 16 bytes of room past
// the run: with SSE2 the copy goes 16 bytes a step, however short the run,
// and may write up to 15 bytes past it; the byte loop is the reference
// without SSE2.
static inline size_t fast_copy(char *o, const struct fast_src *s, size_t pos, uint8_t cls,
                               bool lower) {
  size_t i = 0;
#if defined(__SSE2__)
  bool name = cls == FAST_NAME;
  if (s->len < FAST_SMALL) {
    // The run's end is a count of zeros in the value's mask, so that the
    // next run's start does not wait for this run's bytes to be classified.
    size_t n = (size_t)__builtin_ctzll((name ? s->stop_name : s->stop_tok) >> pos);
    for (; i < n; i += 16) {
      __m128i v = fast_load16(s, pos + i);
      if (lower)
        v = _mm_add_epi8(v, _mm_and_si128(fast_range16(v, 'A', 'Z'), _mm_set1_epi8(0x20)));
      _mm_storeu_si128((__m128i *)(void *)(o + i), v);
    }
    return n;
  }
  for (;; i += 16) {
    __m128i v = fast_load16(s, pos + i);
    if (lower)
      v = _mm_add_epi8(v, _mm_and_si128(fast_range16(v, 'A', 'Z'), _mm_set1_epi8(0x20)));
    _mm_storeu_si128((__m128i *)(void *)(o + i), v);
    unsigned stop = fast_stop16(v, name); // lowercasing keeps a letter in the class
    if (stop != 0)
      return i + (size_t)__builtin_ctz(stop);
  }
#else
  const uint8_t *p = s->p + pos;
  size_t n = s->len - pos;
  while (i < n && (fast_class[p[i]] & cls)) {
    o[i] = (char)(lower ? mp_lower(p[i]) : p[i]);
    i++;
  }
  return i;
#endif
}

#if defined(__SSE2__)
// fast_qstop16 returns the mask of the bytes of `v` outside FAST_QVAL: a
// byte below SP but HT, DEL or above (signed: negative), '"', '=' or '\\'.
static inline unsigned fast_qstop16(__m128i v) {
  const __m128i sp = _mm_set1_epi8(' '), del = _mm_set1_epi8(0x7f);
  const __m128i ht = _mm_set1_epi8('\t'), dq = _mm_set1_epi8('"');
  const __m128i eq = _mm_set1_epi8('='), bs = _mm_set1_epi8('\\');
  __m128i bad = _mm_andnot_si128(_mm_cmpeq_epi8(v, ht), _mm_cmpgt_epi8(sp, v));
  bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, del));
  bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(v, dq), _mm_cmpeq_epi8(v, eq)));
  bad = _mm_or_si128(bad, _mm_cmpeq_epi8(v, bs));
  return (unsigned)_mm_movemask_epi8(bad);
}

// fast_src_classify fills the stop masks of a value shorter than
// FAST_SMALL, 16 bytes a step. The steps do not depend on one another, so
// they overlap, where a scan per run waited for the run before it to end
// (about 25 cycles a run: load, compares, mask, count).
static inline void fast_src_classify(struct fast_src *s) {
  uint64_t past = ~(uint64_t)0 << s->len;
  uint64_t tok = past, name = past, qval = past;
  for (size_t j = 0; j < s->len; j += 16) {
    __m128i v = fast_load16(s, j);
    unsigned t = fast_stop16(v, false);
    unsigned star = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('*')));
    tok |= (uint64_t)t << j;
    name |= (uint64_t)(t | star) << j;
    qval |= (uint64_t)fast_qstop16(v) << j;
  }
  s->stop_tok = tok;
  s->stop_name = name;
  s->stop_qval = qval;
}
#endif

// fast_qcopy copies the run of FAST_QVAL bytes at `pos` (the end of the
// value ends it) and the byte that ends it to `o`, in the same pass that
// finds its end, and returns the run's length: fast_common copies on after
// a '=' that starts no encoded word. `o` has 16 bytes of room past the run:
// with SSE2 the copy goes 16 bytes a step and may write up to 15 bytes past
// the ending byte (a second pass to copy cost more than the few bytes of a
// value); the byte loop is the reference without SSE2.
static inline size_t fast_qcopy(char *o, const struct fast_src *s, size_t pos) {
  size_t i = 0;
#if defined(__SSE2__)
  if (s->len < FAST_SMALL) {
    size_t n = (size_t)__builtin_ctzll(s->stop_qval >> pos);
    for (; i <= n; i += 16) // `<=`: the ending byte too
      _mm_storeu_si128((__m128i *)(void *)(o + i), fast_load16(s, pos + i));
    return n;
  }
  for (;; i += 16) {
    __m128i v = fast_load16(s, pos + i);
    _mm_storeu_si128((__m128i *)(void *)(o + i), v);
    unsigned m = fast_qstop16(v);
    if (m != 0)
      return i + (size_t)__builtin_ctz(m);
  }
#else
  while (pos + i < s->len && (fast_class[s->p[pos + i]] & FAST_QVAL)) {
    o[i] = (char)s->p[pos + i];
    i++;
  }
  if (pos + i < s->len)
    o[i] = (char)s->p[pos + i]; // the byte that ends the run, as above
  return i;
#endif
}

// fast_skip_wsp returns the index of the first byte at or after `i` that
// is not white space (folds included), at most the value's length.
static inline size_t fast_skip_wsp(const struct fast_src *s, size_t i) {
  while (i < s->len && (mp_charclass[s->p[i]] & MP_CC_WSP))
    i++;
  return i;
}

// fast_next moves `*i` past white space and returns the byte there (0 at
// the end). After a token the next byte is rarely white space: a byte
// outside 1..SP needs no table lookup and no loop.
static inline uint8_t fast_next(const struct fast_src *s, size_t *i) {
  uint8_t b = fast_at(s, *i);
  if ((uint8_t)(b - 1) < 0x20) {
    *i = fast_skip_wsp(s, *i);
    b = fast_at(s, *i);
  }
  return b;
}

// FAST_MAX is the longest value the fast path takes (a few in a thousand
// real Content-Type values are longer; they take the general parser).
enum { FAST_MAX = 512, FAST_PAD = 16 };

// fast_common is parse_common for the simple form (see above): 1 when it
// parsed the value, 0 when the general parser must. `subtype` NULL reads a
// Content-Disposition. It reads `in` in place through fast_src, 16 bytes a
// step. Every string it writes is a distinct piece of `in`, in order, so a
// text buffer of `in_len` bytes holds them all and the steps write at most
// FAST_PAD bytes past one; with a smaller buffer it leaves the value to the
// general parser, and no write needs a check. Inlined into its one caller:
// a call with ten arguments was a sixth of the cost of a simple value.
static inline __attribute__((always_inline)) int
fast_common(mp_str *type, mp_str *subtype, size_t *num_params, mp_param *params, size_t params_cap,
            char *text, size_t text_cap, size_t *text_len, unsigned *flags, const uint8_t *in,
            size_t in_len) {
  if (text == NULL || in == NULL || in_len > FAST_MAX || text_cap < in_len + FAST_PAD)
    return 0;
  struct fast_src s;
  fast_src_init(&s, in, in_len);
#if defined(__SSE2__)
  if (in_len < FAST_SMALL)
    fast_src_classify(&s);
#endif
  size_t i = fast_skip_wsp(&s, 0), len = 0, n;
  n = fast_copy(text, &s, i, FAST_TOKEN, true);
  if (n == 0)
    return 0;
  *type = (mp_str){text, n};
  len = n;
  i += n;
  if (subtype != NULL) {
    if (fast_next(&s, &i) != '/')
      return 0;
    i++;
    (void)fast_next(&s, &i);
    n = fast_copy(text + len, &s, i, FAST_TOKEN, true);
    if (n == 0)
      return 0;
    *subtype = (mp_str){text + len, n};
    len += n;
    i += n;
  }
  // "type/subtype junk; ..." is flagged by the general parser.
  if (fast_next(&s, &i) != ';' && i < in_len)
    return 0;
  size_t np = 0;
  unsigned fl = 0;
  for (;;) {
    // White space and ';' between parameters, as next_raw skips them.
    while (i < in_len && ((mp_charclass[in[i]] & MP_CC_WSP) || in[i] == ';'))
      i++;
    if (i == in_len)
      break;
    if (np == params_cap)
      return 0;
    char *name = text + len;
    n = fast_copy(name, &s, i, FAST_NAME, true);
    if (n == 0)
      return 0;
    bool dup = false;
    for (size_t k = 0; k < np && !dup; k++)
      dup = params[k].name.len == n && memcmp(params[k].name.p, name, n) == 0; // both lowercased
    i += n;
    if (fast_next(&s, &i) != '=') // '*' right after the name ends up here too
      return 0;
    i++;
    size_t vn;
    if (fast_next(&s, &i) == '"') {
      size_t v0 = i + 1, k = 0, rest = in_len - v0;
      char *o = text + len + n;
      for (;;) {
        k += fast_qcopy(o + k, &s, v0 + k); // the value's end ends the run by `rest`
        // A '=' that cannot start an encoded word ("----=_Part_1") is
        // copied as it is by mp_tb_word().
        if (k + 1 < rest && in[v0 + k] == '=' && in[v0 + k + 1] != '?') {
          k++;
          continue;
        }
        break;
      }
      if (k == rest || in[v0 + k] != '"')
        return 0; // not closed, or a byte the general parser must see
      // Inner white space is copied by mp_tb_text(); at either end it is not.
      if (k > 0 && (mp_charclass[in[v0]] & MP_CC_WSP || mp_charclass[in[v0 + k - 1]] & MP_CC_WSP))
        return 0;
      vn = k;
      i += k + 2;
    } else {
      vn = fast_copy(text + len + n, &s, i, FAST_TOKEN, false);
      i += vn;
    }
    if (vn == 0)
      return 0;
    if (fast_next(&s, &i) != ';' && i < in_len)
      return 0;
    if (dup) {
      // A repeated name ("name=a.pdf; name=a.pdf", a few in a hundred real
      // values): the first one wins, as in parse_params, and this one's
      // name and value, copied to the text past `len`, are written over.
      fl |= MP_TYPED_REPAIRED;
      continue;
    }
    mp_param *p = &params[np];
    memset(p, 0, sizeof *p);
    p->name = (mp_str){name, n};
    p->value = (mp_str){text + len + n, vn};
    len += n + vn;
    np++;
  }
  *num_params = np;
  *text_len = len;
  if (flags != NULL)
    *flags = fl;
  return 1;
}

// parse_common parses a Content-Type (`subtype` set) or a
// Content-Disposition (`subtype` NULL) for the public calls: the fast path
// when `fast` and the value is simple, else the general parser.
static int parse_common(mp_str *type, mp_str *subtype, size_t *num_params, mp_param *params,
                        size_t params_cap, char *text, size_t text_cap, size_t *text_len,
                        unsigned *out_flags, const char *in, size_t in_len, bool fast) {
  if (num_params == NULL || !mp_text_args_ok(text, text_cap, text_len) ||
      (params == NULL && params_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *text_len = 0;
  *num_params = 0;
  if (out_flags != NULL)
    *out_flags = 0;
  if (fast && fast_common(type, subtype, num_params, params, params_cap, text, text_cap, text_len,
                          out_flags, (const uint8_t *)in, in_len))
    return 0;
  *num_params = 0;
  struct mp_tb tb;
  mp_tb_init(&tb, text, text_cap);
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  const uint8_t *p;
  uint8_t b;
  skip_cfws(&c);
  size_t n = get_token(&c, &p);
  int rc = 0;
  if (n == 0) {
    rc = MP_ERR_SYNTAX;
  } else {
    mp_tb_begin(&tb);
    mp_tb_put_lower(&tb, p, n);
    mp_tb_end(&tb, &type->p, &type->len);
    if (subtype != NULL) {
      skip_cfws(&c);
      if (!mp_cur_get_u8(&c, &b) || b != '/') {
        rc = MP_ERR_SYNTAX;
      } else {
        skip_cfws(&c);
        n = get_token(&c, &p);
        if (n == 0) {
          rc = MP_ERR_SYNTAX;
        } else {
          mp_tb_begin(&tb);
          mp_tb_put_lower(&tb, p, n);
          mp_tb_end(&tb, &subtype->p, &subtype->len);
        }
      }
    }
  }
  if (rc == 0) {
    skip_cfws(&c);
    if (mp_cur_peek(&c, &b) && b != ';') {
      tb.flags |= MP_TYPED_JUNK; // "text/plain garbage; charset=..."
      skip_to_semicolon(&c);
    }
    rc = tb.err ? tb.err : parse_params(&tb, params, params_cap, num_params, c);
  }
  if (rc == 0 && tb.err)
    rc = tb.err;
  if (out_flags != NULL)
    *out_flags = tb.flags;
  if (rc != 0) {
    *num_params = 0;
    type->p = NULL;
    type->len = 0;
    if (subtype != NULL) {
      subtype->p = NULL;
      subtype->len = 0;
    }
    return rc;
  }
  *text_len = tb.len;
  return 0;
}

int mp_content_type_parse(mp_content_type *out, mp_param *params, size_t params_cap, char *text,
                          size_t text_cap, size_t *text_len, unsigned *out_flags, const char *in,
                          size_t in_len) {
  if (out == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  return parse_common(&out->type, &out->subtype, &out->num_params, params, params_cap, text,
                      text_cap, text_len, out_flags, in, in_len, true);
}

int mp_content_disposition_parse(mp_content_disposition *out, mp_param *params, size_t params_cap,
                                 char *text, size_t text_cap, size_t *text_len, unsigned *out_flags,
                                 const char *in, size_t in_len) {
  if (out == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  return parse_common(&out->type, NULL, &out->num_params, params, params_cap, text, text_cap,
                      text_len, out_flags, in, in_len, true);
}

int mp_typed_mime_parse_general(mp_str *type, mp_str *subtype, size_t *num_params, mp_param *params,
                                size_t params_cap, char *text, size_t text_cap, size_t *text_len,
                                unsigned *out_flags, const char *in, size_t in_len) {
  if (type == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  *type = (mp_str){NULL, 0};
  if (subtype != NULL)
    *subtype = (mp_str){NULL, 0};
  return parse_common(type, subtype, num_params, params, params_cap, text, text_cap, text_len,
                      out_flags, in, in_len, false);
}

// mp_param_find walks `name` alongside each parameter's name instead of
// measuring it first: the structure parser asks every Content-Type for
// "boundary" and "charset", and most parameters differ in their first byte.
// A name matches when it ends (its NUL) exactly where the parameter's does.
const mp_param *mp_param_find(const mp_param *params, size_t num_params, const char *name) {
  if (params == NULL || name == NULL)
    return NULL;
  const uint8_t *b = (const uint8_t *)name;
  for (size_t i = 0; i < num_params; i++) {
    const uint8_t *a = (const uint8_t *)params[i].name.p;
    size_t n = params[i].name.len, k = 0;
    // Equal bytes, the common case (both names lower case), skip the fold.
    while (k < n && b[k] != 0 && (a[k] == b[k] || mp_lower(a[k]) == mp_lower(b[k])))
      k++;
    if (k == n && b[k] == 0)
      return &params[i];
  }
  return NULL;
}
