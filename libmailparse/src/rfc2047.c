// rfc2047.c: turns header text into UTF-8 for the typed parsers: the text
// builder over the caller's buffer, the RFC 5322 lexical scanner (comments,
// quoted strings, domain literals, atoms, specials) and RFC 2047 encoded
// words (B and Q, adjacent words joined with the white space between them
// dropped per §6.2), decoded where RFC 2047 allows them and, flagged, where
// real mail puts them anyway; plus mp_rfc2047_decode() for whole unstructured
// values. Charset conversion goes through mp_charset_to_utf8() when the
// library has it; UTF-8, US-ASCII and ISO-8859-1 are handled here directly.
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "charclass.h"
#include "encodify.h"
#include "typed_internal.h"

// The longest decoded encoded word we accept. RFC 2047 §2 allows 75
// characters per word; real mail exceeds that, so we take up to a line's
// worth and leave longer ones as literal text (MP_TYPED_ENCWORD_INVALID).
#define MP_RFC2047_MAX_DECODED 1024
#define MP_RFC2047_MAX_CHARSET 64

static const uint8_t replacement[3] = {0xef, 0xbf, 0xbd};

void mp_tb_init(struct mp_tb *tb, char *out, size_t cap) {
  memset(tb, 0, sizeof *tb);
  tb->out = out;
  tb->cap = out == NULL ? 0 : cap;
}

// tb_take makes room for `n` more bytes and returns where they go, or NULL
// (nothing to write, an earlier error, or MP_ERR_BUFFER_TOO_SMALL now).
static char *tb_take(struct mp_tb *tb, size_t n) {
  if (tb->err || n == 0)
    return NULL;
  if (n > tb->cap - tb->len) {
    tb->err = MP_ERR_BUFFER_TOO_SMALL;
    return NULL;
  }
  char *o = tb->out + tb->len;
  tb->len += n;
  return o;
}

void mp_tb_put(struct mp_tb *tb, const void *p, size_t n) {
  char *o = tb_take(tb, n);
  if (o != NULL)
    memcpy(o, p, n);
}

void mp_tb_putc(struct mp_tb *tb, uint8_t b) {
  mp_tb_put(tb, &b, 1);
}

void mp_tb_put_lower(struct mp_tb *tb, const uint8_t *p, size_t n) {
  char *o = tb_take(tb, n);
  for (size_t i = 0; o != NULL && i < n; i++)
    o[i] = (char)mp_lower(p[i]);
}

// utf8_seq returns the length of the valid UTF-8 sequence at the start of
// `p` (RFC 3629 §4: no overlongs, no surrogates, nothing above U+10FFFF), 0
// when it is invalid, or -(prefix length) when `p` ends inside a sequence
// that is valid so far.
static int utf8_seq(const uint8_t *p, size_t n) {
  uint8_t b = p[0];
  if (b == 0)
    return 0; // NUL is valid UTF-8 but would cut a C string: U+FFFD
  if (b < 0x80)
    return 1;
  int need;
  uint8_t lo = 0x80, hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf)
    need = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    need = 3;
    if (b == 0xe0)
      lo = 0xa0;
    if (b == 0xed)
      hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 4;
    if (b == 0xf0)
      lo = 0x90;
    if (b == 0xf4)
      hi = 0x8f;
  } else
    return 0;
  for (int i = 1; i < need; i++) {
    if ((size_t)i >= n)
      return -i;
    uint8_t c = p[i];
    if (i == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xbf))
      return 0;
  }
  return need;
}

// plain_prefix returns how many bytes at the start of `p` are ASCII other
// than NUL, 16 at a time with SSE2 and 8 at a time after that: header text
// is mostly such bytes, and they need neither validation nor replacement.
static size_t plain_prefix(const uint8_t *p, size_t n) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; n - i >= 16; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    unsigned m =
        (unsigned)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128())));
    if (m != 0)
      return i + (size_t)__builtin_ctz(m);
  }
#endif
  for (; n - i >= 8; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    // A byte >= 0x80, or a zero byte (the classic "has zero byte" test).
    if (((w | ((w - 0x0101010101010101ull) & ~w)) & 0x8080808080808080ull) != 0)
      break;
  }
  while (i < n && p[i] != 0 && p[i] < 0x80)
    i++;
  return i;
}

static void put_valid_utf8(struct mp_tb *tb, const uint8_t *p, size_t n) {
  size_t i = plain_prefix(p, n), run = 0;
  if (i == n) {
    mp_tb_put(tb, p, n);
    return;
  }
  while (i < n) {
    int k = utf8_seq(p + i, n - i);
    if (k > 0) {
      i += (size_t)k;
      continue;
    }
    mp_tb_put(tb, p + run, i - run);
    mp_tb_put(tb, replacement, 3);
    tb->flags |= MP_TYPED_CHARSET_REPLACED;
    i++;
    run = i;
  }
  mp_tb_put(tb, p + run, n - run);
}

static void flush_carry(struct mp_tb *tb) {
  if (tb->carry_len > 0) {
    size_t n = tb->carry_len;
    tb->carry_len = 0;
    put_valid_utf8(tb, tb->carry, n); // an incomplete sequence: U+FFFD
  }
}

// flush_ws writes the pending white space (never at the start of a string,
// never CR or LF), unless `drop`.
static void flush_ws(struct mp_tb *tb, bool drop) {
  if (tb->ws_len > 0 && !drop && tb->len > tb->mark) {
    for (size_t i = 0; i < tb->ws_len; i++)
      if (tb->ws[i] != '\r' && tb->ws[i] != '\n')
        mp_tb_putc(tb, tb->ws[i]);
  }
  tb->ws = NULL;
  tb->ws_len = 0;
}

void mp_tb_begin(struct mp_tb *tb) {
  tb->mark = tb->len;
  tb->ws = NULL;
  tb->ws_len = 0;
  tb->last_ew = false;
  tb->carry_len = 0;
}

void mp_tb_end(struct mp_tb *tb, const char **out, size_t *out_len) {
  flush_carry(tb);
  tb->ws = NULL;
  tb->ws_len = 0;
  if (tb->err || tb->len == tb->mark) {
    *out = NULL;
    *out_len = 0;
    return;
  }
  *out = tb->out + tb->mark;
  *out_len = tb->len - tb->mark;
}

void mp_tb_space(struct mp_tb *tb) {
  if (tb->ws_len == 0) {
    tb->ws = (const uint8_t *)" ";
    tb->ws_len = 1;
  }
}

// put_raw: header bytes that are not an encoded word.
static void put_raw(struct mp_tb *tb, const uint8_t *p, size_t n) {
  if (n == 0)
    return;
  flush_carry(tb);
  flush_ws(tb, false);
  size_t plain = plain_prefix(p, n);
  if (plain == n) {
    mp_tb_put(tb, p, n);
    tb->last_ew = false;
    return;
  }
  for (size_t i = plain; i < n; i++)
    if (p[i] >= 0x80) {
      tb->flags |= MP_TYPED_8BIT;
      break;
    }
  put_valid_utf8(tb, p, n);
  tb->last_ew = false;
}

void mp_tb_utf8(struct mp_tb *tb, const uint8_t *p, size_t n) {
  put_raw(tb, p, n);
}

enum cs_kind { CS_UTF8, CS_ASCII, CS_LATIN1, CS_OTHER };

static enum cs_kind cs_classify(const uint8_t *cs, size_t n) {
  if (mp_ieq(cs, n, "utf-8") || mp_ieq(cs, n, "utf8"))
    return CS_UTF8;
  if (mp_ieq(cs, n, "us-ascii") || mp_ieq(cs, n, "ascii"))
    return CS_ASCII;
  if (mp_ieq(cs, n, "iso-8859-1") || mp_ieq(cs, n, "latin1") || mp_ieq(cs, n, "iso8859-1") ||
      mp_ieq(cs, n, "l1"))
    return CS_LATIN1;
  return CS_OTHER;
}

static void convert(struct mp_tb *tb, enum cs_kind kind, const uint8_t *cs, size_t cs_len,
                    const uint8_t *p, size_t n) {
  switch (kind) {
  case CS_UTF8:
    put_valid_utf8(tb, p, n);
    return;
  case CS_ASCII:
  case CS_LATIN1:
    // Runs of ASCII (but NUL) are copied whole, 8 bytes a step; each other
    // byte is a two-byte character (ISO-8859-1) or U+FFFD.
    for (size_t i = 0; i < n; i++) {
      size_t run = plain_prefix(p + i, n - i);
      if (run > 0) {
        mp_tb_put(tb, p + i, run);
        i += run;
        if (i == n)
          break;
      }
      if (kind == CS_LATIN1 && p[i] != 0) {
        uint8_t two[2] = {(uint8_t)(0xc0 | (p[i] >> 6)), (uint8_t)(0x80 | (p[i] & 0x3f))};
        mp_tb_put(tb, two, 2);
      } else {
        mp_tb_put(tb, replacement, 3);
        tb->flags |= MP_TYPED_CHARSET_REPLACED;
      }
    }
    return;
  case CS_OTHER:
    break;
  }
  if (tb->err)
    return;
  size_t got = 0;
  unsigned cflags = 0;
  int rc = mp_charset_to_utf8(tb->out + tb->len, tb->cap - tb->len, &got, &cflags, (const char *)cs,
                              cs_len, p, n);
  if (rc == MP_ERR_BUFFER_TOO_SMALL) {
    tb->err = rc;
    return;
  }
  if (rc < 0) {
    tb->flags |= MP_TYPED_CHARSET_UNKNOWN;
    return;
  }
  tb->len += got;
  if (cflags & MP_CHARSET_REPLACED)
    tb->flags |= MP_TYPED_CHARSET_REPLACED;
  if (cflags & MP_CHARSET_UNKNOWN)
    tb->flags |= MP_TYPED_CHARSET_UNKNOWN;
}

void mp_tb_charset(struct mp_tb *tb, const uint8_t *cs, size_t cs_len, const uint8_t *p, size_t n) {
  flush_carry(tb);
  flush_ws(tb, false);
  convert(tb, cs_classify(cs, cs_len), cs, cs_len, p, n);
  tb->last_ew = false;
}

struct ew {
  const uint8_t *cs;
  size_t cs_len;
  uint8_t enc;
  const uint8_t *text;
  size_t text_len;
};

// ew_parse recognises `=?charset[*lang]?B|Q?text?=` at the start of `p` and
// returns its length, or 0. The language of RFC 2231 §5 is dropped. Charset
// and text are printable ASCII but '?' (and '=' in the charset); one index
// walks the word, as every byte is looked at once.
static size_t ew_parse(const uint8_t *p, size_t n, struct ew *w) {
  if (n < 2 || p[0] != '=' || p[1] != '?')
    return 0;
  size_t i = 2, star = SIZE_MAX;
  for (;; i++) {
    if (i == n || p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '=')
      return 0;
    if (p[i] == '?')
      break;
    if (p[i] == '*' && star == SIZE_MAX)
      star = i - 2;
    if (i - 2 >= MP_RFC2047_MAX_CHARSET)
      return 0; // this byte would be one too many
  }
  w->cs = p + 2;
  w->cs_len = star != SIZE_MAX ? star : i - 2;
  // i is at the '?' after the charset: the encoding and a '?' follow.
  if (w->cs_len == 0 || n - i < 3)
    return 0;
  w->enc = mp_lower(p[i + 1]);
  if ((w->enc != 'b' && w->enc != 'q') || p[i + 2] != '?')
    return 0;
  i += 3;
  w->text = p + i;
  for (;; i++) {
    if (i == n || p[i] <= 0x20 || p[i] >= 0x7f)
      return 0;
    if (p[i] == '?')
      break;
  }
  w->text_len = (size_t)(p + i - w->text);
  if (n - i < 2 || p[i + 1] != '=')
    return 0;
  return i + 2;
}

// blank_controls turns each CR, LF and NUL of `p` (`n` bytes) into a space
// and returns whether there was one. Eight bytes at a time: decoded words
// nearly never hold one, and all three are below 0x0E, which a word test
// finds (it can report a byte above a real one too, never miss one; the
// byte loop then decides).
static bool blank_controls(uint8_t *p, size_t n) {
  bool hit = false;
  size_t i = 0;
  for (;; i += 8) {
    size_t end = n - i >= 8 ? i + 8 : n;
    if (end == i + 8) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      if (((w - 0x0E0E0E0E0E0E0E0Eull) & ~w & 0x8080808080808080ull) == 0)
        continue;
    }
    for (size_t k = i; k < end; k++)
      if (p[k] == '\r' || p[k] == '\n' || p[k] == '\0') {
        p[k] = ' ';
        hit = true;
      }
    if (end == n)
      return hit;
  }
}

// emit_ew decodes one encoded word and appends it; returns false (leaving
// the word to be copied literally) when it is too long.
static bool emit_ew(struct mp_tb *tb, const struct ew *w) {
  uint8_t buf[MP_RFC2047_MAX_DECODED + 4];
  size_t max = w->enc == 'b' ? enc_base64_decode_max_len(w->text_len) : w->text_len;
  if (max > MP_RFC2047_MAX_DECODED) {
    tb->flags |= MP_TYPED_ENCWORD_INVALID;
    return false;
  }
  enum cs_kind kind = cs_classify(w->cs, w->cs_len);
  size_t pre = 0;
  if (kind == CS_UTF8 && tb->last_ew && tb->carry_len > 0) {
    memcpy(buf, tb->carry, tb->carry_len);
    pre = tb->carry_len;
    tb->carry_len = 0;
    tb->flags |= MP_TYPED_REPAIRED; // a character split across two words
  } else {
    flush_carry(tb);
  }
  size_t got = 0, off = 0;
  int rc;
  if (w->enc == 'b') {
    rc = enc_base64_decode(0, buf + pre, sizeof buf - pre, &got, (const char *)w->text, w->text_len,
                           &off);
    if (rc != 0) {
      tb->flags |= MP_TYPED_REPAIRED;
      rc = enc_base64_decode(ENC_FLAG_MIME, buf + pre, sizeof buf - pre, &got,
                             (const char *)w->text, w->text_len, &off);
    }
  } else {
    rc = enc_q_decode(buf + pre, sizeof buf - pre, &got, (const char *)w->text, w->text_len);
  }
  if (rc != 0) {
    tb->flags |= MP_TYPED_ENCWORD_INVALID;
    got = 0;
  }
  got += pre;
  flush_ws(tb, tb->last_ew);
  if (kind == CS_UTF8 && got > 0) {
    // Keep an incomplete sequence at the end for the next word.
    size_t start = got > 3 ? got - 3 : 0;
    for (size_t i = start; i < got; i++) {
      int k = utf8_seq(buf + i, got - i);
      if (k < 0 && buf[i] >= 0xc2) {
        tb->carry_len = got - i;
        memcpy(tb->carry, buf + i, tb->carry_len);
        got = i;
        break;
      }
    }
  }
  size_t from = tb->len;
  convert(tb, kind, w->cs, w->cs_len, buf, got);
  // A decoded CR, LF or NUL would let a header value break its line (or a
  // C string) when it is written out again: each becomes a space.
  if (!tb->err && tb->len > from && blank_controls((uint8_t *)tb->out + from, tb->len - from))
    tb->flags |= MP_TYPED_REPAIRED;
  tb->last_ew = true;
  return true;
}

void mp_tb_word(struct mp_tb *tb, const uint8_t *p, size_t n, bool allowed) {
  size_t i = 0, raw = 0;
  // Most words hold no encoded word: without a '=' there is nothing to find.
  if (n < 2 || memchr(p, '=', n - 1) == NULL) {
    put_raw(tb, p, n);
    return;
  }
  while (i + 1 < n) {
    if (p[i] == '=' && p[i + 1] == '?') {
      struct ew w;
      size_t used = ew_parse(p + i, n - i, &w);
      if (used > 0) {
        bool whole = i == 0 && used == n;
        put_raw(tb, p + raw, i - raw);
        if (emit_ew(tb, &w)) {
          if (!whole || !allowed)
            tb->flags |= MP_TYPED_ENCWORD_PLACEMENT;
          i += used;
          raw = i;
          continue;
        }
        raw = i;
      }
    }
    i++;
  }
  put_raw(tb, p + raw, n - raw);
}

void mp_tb_text(struct mp_tb *tb, const uint8_t *p, size_t n, bool allowed) {
  size_t i = 0;
  while (i < n) {
    size_t s = i;
    while (i < n && mp_is_wsp(p[i]))
      i++;
    if (i > s && tb->ws_len == 0) {
      tb->ws = p + s;
      tb->ws_len = i - s;
    }
    s = i;
    while (i < n && !mp_is_wsp(p[i]))
      i++;
    if (i > s)
      mp_tb_word(tb, p + s, i - s, allowed);
  }
}

void mp_tb_qcontent(struct mp_tb *tb, const uint8_t *p, size_t n) {
  size_t s = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '\\' && i + 1 < n) {
      mp_tb_text(tb, p + s, i - s, false);
      if (p[i + 1] == ' ' || p[i + 1] == '\t') {
        flush_ws(tb, false);
        mp_tb_putc(tb, p[i + 1]);
        tb->last_ew = false;
      } else {
        put_raw(tb, p + i + 1, 1);
      }
      i++;
      s = i + 1;
    }
  }
  if (s < n)
    mp_tb_text(tb, p + s, n - s, false);
}

// Lexical scanning (RFC 5322 §3.2).

static int is_special(uint8_t b) {
  return mp_is_special(b);
}

// scan_delimited consumes a comment, quoted string or domain literal whose
// opening byte was already read; it stops after the closing byte or at the
// end (returning false: unterminated).
// delim_find returns the offset of the first byte of `p` (`n` bytes) that is
// a backslash, `open` or `close`, or `n`: 16 bytes a step with SSE2, the
// x86-64 baseline. Comments in Received fields and quoted display names run
// to tens of bytes in which nothing else matters.
static size_t delim_find(const uint8_t *p, size_t n, uint8_t open, uint8_t close) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i bs = _mm_set1_epi8('\\'), o = _mm_set1_epi8((char)open);
  const __m128i cl = _mm_set1_epi8((char)close);
  for (; n - i >= 16; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmpeq_epi8(v, o)),
                               _mm_cmpeq_epi8(v, cl));
    unsigned m = (unsigned)_mm_movemask_epi8(hit);
    if (m != 0)
      return i + (size_t)__builtin_ctz(m);
  }
#endif
  while (i < n && p[i] != '\\' && p[i] != open && p[i] != close)
    i++;
  return i;
}

static bool scan_delimited(struct mp_cur *c, uint8_t open, uint8_t close) {
  unsigned depth = 1;
  uint8_t b;
  for (;;) {
    (void)mp_cur_skip(c, c->len > 0 ? delim_find(c->p, c->len, open, close) : 0);
    if (!mp_cur_get_u8(c, &b))
      break;
    if (b == '\\') {
      (void)mp_cur_skip(c, 1);
    } else if (b == close) {
      if (--depth == 0)
        return true;
    } else if (b == open && open == '(' && depth < MP_TYPED_MAX_COMMENT_DEPTH) {
      depth++;
    }
  }
  return false;
}

void mp_tok_next_full(struct mp_cur *c, struct mp_tok *t, bool comments) {
  uint8_t b;
  memset(t, 0, sizeof *t);
  for (;;) {
    if (!mp_cur_peek(c, &b)) {
      t->type = MP_TOK_END;
      t->p = c->p;
      return;
    }
    if (mp_is_wsp(b)) {
      t->ws_before = true;
      mp_cur_skip_wsp(c);
      continue;
    }
    if (b != '(')
      break;
    (void)mp_cur_skip(c, 1);
    const uint8_t *start = c->p;
    bool closed = scan_delimited(c, '(', ')');
    if (comments) {
      t->type = MP_TOK_COMMENT;
      t->p = start;
      t->len = (size_t)(c->p - start) - (closed ? 1 : 0);
      t->unterminated = !closed;
      return;
    }
    t->ws_before = true;
  }
  const uint8_t *start = c->p;
  if (b == '"' || b == '[') {
    (void)mp_cur_skip(c, 1);
    bool closed = scan_delimited(c, b, b == '"' ? '"' : ']');
    t->unterminated = !closed;
    if (b == '"') {
      t->type = MP_TOK_QSTRING;
      t->p = start + 1;
      t->len = (size_t)(c->p - start) - 1 - (closed ? 1 : 0);
    } else {
      t->type = MP_TOK_DLIT;
      t->p = start;
      t->len = (size_t)(c->p - start);
    }
    return;
  }
  if (is_special(b)) {
    (void)mp_cur_skip(c, 1);
    t->type = MP_TOK_SPECIAL;
    t->p = start;
    t->len = 1;
    return;
  }
  // An atom; an encoded word inside it may hold specials (real mail does
  // not always encode them as §5 (3) asks), so it is taken whole. The bytes
  // of plain atom text are skipped by one table test each.
  for (;;) {
    size_t k = 0;
    while (k < c->len && !(mp_charclass[c->p[k]] & MP_CC_ATOM_END))
      k++;
    (void)mp_cur_skip(c, k);
    if (!mp_cur_peek(c, &b) || b != '=')
      break; // the end, white space, '(' or another special
    struct ew w;
    size_t used = ew_parse(c->p, c->len, &w);
    (void)mp_cur_skip(c, used > 0 ? used : 1); // '=' alone is atom text
  }
  t->type = MP_TOK_ATOM;
  t->p = start;
  t->len = (size_t)(c->p - start);
}

size_t mp_typed_text_max_len(size_t in_len) {
  if (in_len > (SIZE_MAX - 64) / 4)
    return SIZE_MAX;
  return 4 * in_len + 64;
}

// plain_text tells whether unstructured text holds nothing to decode or
// replace: no NUL, no 8-bit byte and no "=?". Most header text in mail is
// like that, and its decoding is then only the unfolding below.
static bool plain_text(const uint8_t *p, size_t n) {
  if (n == 0)
    return true; // `p` may be NULL, which even a zero offset must not touch
#if defined(__SSE2__)
  // One pass, 16 bytes a step, while a byte after the block is left to
  // pair with its last '=': a byte that is not plain ASCII or a "=?" ends
  // it. (Before, plain_prefix() and then a memchr() per '=' read the text
  // twice, and URLs in Subject lines hold many '='.)
  const __m128i eq = _mm_set1_epi8('='), qm = _mm_set1_epi8('?'), zero = _mm_setzero_si128();
  size_t i = 0;
  for (; n - i >= 17; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
    __m128i pair = _mm_and_si128(_mm_cmpeq_epi8(v, eq), _mm_cmpeq_epi8(next, qm));
    __m128i bad = _mm_or_si128(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero)), pair);
    if (_mm_movemask_epi8(bad) != 0)
      return false;
  }
  p += i; // 1 to 16 bytes are left
  n -= i;
#endif
  if (plain_prefix(p, n) != n)
    return false;
  for (const uint8_t *q = p; (q = memchr(q, '=', n - (size_t)(q - p))) != NULL; q++)
    if ((size_t)(q - p) + 1 < n && q[1] == '?')
      return false;
  return true;
}

// unfold_plain writes what mp_tb_text() makes of plain text: white space
// at both ends dropped, CR and LF dropped, everything else as it is.
static int unfold_plain(char *out, size_t out_cap, size_t *out_len, const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n && mp_is_wsp(p[i]))
    i++;
  while (n > i && mp_is_wsp(p[n - 1]))
    n--;
  size_t k = 0;
  while (i < n) {
    const uint8_t *lf = memchr(p + i, '\n', n - i);
    size_t end = lf != NULL ? (size_t)(lf - p) : n, run = end - i;
    // The CR of a CRLF fold ends the run too; a CR elsewhere is dropped
    // the same way.
    const uint8_t *cr = memchr(p + i, '\r', run);
    if (cr != NULL) {
      end = (size_t)(cr - p);
      run = end - i;
    }
    if (run > out_cap - k)
      return MP_ERR_BUFFER_TOO_SMALL;
    if (run > 0)
      memcpy(out + k, p + i, run);
    k += run;
    i = end + 1;
  }
  *out_len = k;
  return 0;
}

int mp_rfc2047_decode(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags,
                      const char *in, size_t in_len) {
  if (out_len == NULL || (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (plain_text((const uint8_t *)in, in_len)) {
    if (out_flags != NULL)
      *out_flags = 0;
    return unfold_plain(out, out_cap, out_len, (const uint8_t *)in, in_len);
  }
  struct mp_tb tb;
  mp_tb_init(&tb, out, out_cap);
  mp_tb_begin(&tb);
  mp_tb_text(&tb, (const uint8_t *)in, in_len, true);
  const char *s;
  size_t n;
  mp_tb_end(&tb, &s, &n);
  if (out_flags != NULL)
    *out_flags = tb.flags;
  if (tb.err)
    return tb.err;
  *out_len = n;
  return 0;
}
