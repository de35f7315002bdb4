// analyze.c: the text analyzer, which turns UTF-8 text into the terms the
// index stores: it cuts the text into chunks at ASCII white space, normalises
// each chunk (lower-casing alone for pure ASCII, NFKC with case folding
// through utf8proc otherwise), finds words, compounds, e-mail addresses, URLs,
// numbers and CJK bigrams in the normalised bytes, and adds Snowball stems.
// The rules and their reasons are in ftsearch.h and ANALYSIS.md.
#include <errno.h>
#include <libstemmer.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "analyze_internal.h"
#include "ftsearch.h"
#include "lang_internal.h"

// nbuf is a normalisation buffer: code points, then the same memory as UTF-8
// after re-encoding in place.
struct nbuf {
  int32_t *v;
  size_t cap;
};

// The stem cache remembers the stems of recent short words, direct-mapped
// by a hash of language and word: text repeats its words (Zipf), and
// Snowball costs far more than the rest of the analysis.
#define STEM_CACHE_SLOTS 8192
#define STEM_CACHE_BYTES 22
struct stem_slot {
  uint8_t lang;     // FTS_LANG_* + 1; 0: empty
  uint8_t word_len; // 1..STEM_CACHE_BYTES
  uint8_t stem_len; // 0: the stem is the word itself
  uint8_t word[STEM_CACHE_BYTES];
  uint8_t stem[STEM_CACHE_BYTES];
  uint8_t pad[3];
};

struct fts_analyzer {
  uint32_t flags, max_term_bytes, max_terms;
  bool ascii_fast;
  int last_lang; // FTS_LANG_* of the last call, -1 before the first
  struct sb_stemmer *stemmers[FTS_LANG_COUNT];
  struct nbuf chunk;            // the normalised chunk being segmented
  struct nbuf joined;           // a compound's joined form, normalised again
  uint8_t *term;                // assembly of lower-cased words and compounds (max_term_bytes)
  struct stem_slot *stem_cache; // STEM_CACHE_SLOTS, allocated on first use
};

// run is the state of one fts_analyze call.
struct run {
  fts_analyzer *a;
  struct sb_stemmer *stemmer; // NULL: no stems
  int lang;                   // FTS_LANG_* of the stemmer
  fts_term_fn fn;
  void *ctx;
  uint32_t pos;    // position of the next word
  uint32_t nterms; // terms delivered
  bool lower;      // the bytes are raw ASCII that still need lower-casing
};

enum { C_SEP, C_WORD, C_CJK, C_SEA };

enum {
  J_HYPHEN = 1, // - U+2010 _
  J_APOS = 2,   // ' U+2019
  J_DOT = 4,
  J_COMMA = 8,
  J_AT = 16,
};

#define NORM_OPTS                                                                                  \
  (UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE)

// ascii_tab classifies ASCII bytes (bytes from 0x80 are 0 here).
enum { A_ALNUM = 1, A_ALPHA = 2, A_SPACE = 4, A_JOIN = 8 };
static const uint8_t ascii_tab[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 8, 8, 8, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    8, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 8,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
};

static inline bool is_ascii_space(uint8_t b) {
  return ascii_tab[b] & A_SPACE;
}

static inline bool is_ascii_alnum(uint8_t b) {
  return ascii_tab[b] & A_ALNUM;
}

static inline uint8_t ascii_lower(uint8_t b) {
  return (b >= 'A' && b <= 'Z') ? (uint8_t)(b | 0x20) : b;
}

// is_cjk: the scripts written without spaces between words, indexed as
// bigrams: Hangul Jamo, CJK radicals, iteration marks and Hangzhou numerals,
// Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK ideographs
// (all planes), Hangul syllables, halfwidth Katakana and Hangul, Kana
// supplements.
static bool is_cjk(int32_t c) {
  if (c < 0x1100)
    return false;
  return (c <= 0x11FF) || (c >= 0x2E80 && c <= 0x2FDF) || (c >= 0x3005 && c <= 0x3007) ||
         (c >= 0x3021 && c <= 0x3029) || (c >= 0x3031 && c <= 0x3035) || c == 0x303B ||
         (c >= 0x3040 && c <= 0x318F) || (c >= 0x31A0 && c <= 0x31FF) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
         (c >= 0xA960 && c <= 0xA97F) || (c >= 0xAC00 && c <= 0xD7FF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF66 && c <= 0xFFDC) ||
         (c >= 0x1B000 && c <= 0x1B16F) || (c >= 0x20000 && c <= 0x3FFFF);
}

// is_sea: Southeast Asian scripts written without spaces between words and
// without a dictionary here (Myanmar, Thai, Lao, Khmer), indexed as bigrams
// of letters with their marks.
static bool is_sea(int32_t c) {
  return (c >= 0x0E00 && c <= 0x0EFF) || (c >= 0x1000 && c <= 0x109F) ||
         (c >= 0x1780 && c <= 0x17FF) || (c >= 0xA9E0 && c <= 0xA9FF) ||
         (c >= 0xAA60 && c <= 0xAA7F);
}

static int class_of(int32_t c) {
  if (c < 0x80)
    return is_ascii_alnum((uint8_t)c) ? C_WORD : C_SEP;
  utf8proc_category_t cat = utf8proc_category(c);
  if (cat < UTF8PROC_CATEGORY_LU || cat > UTF8PROC_CATEGORY_NO)
    return C_SEP;
  return is_cjk(c) ? C_CJK : is_sea(c) ? C_SEA : C_WORD;
}

static bool is_mark(int32_t c) {
  utf8proc_category_t cat = utf8proc_category(c);
  return cat >= UTF8PROC_CATEGORY_MN && cat <= UTF8PROC_CATEGORY_ME;
}

static bool is_number_char(int32_t c) {
  if (c < 0x80)
    return c >= '0' && c <= '9';
  utf8proc_category_t cat = utf8proc_category(c);
  return cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO;
}

// dec reads the code point at p[i] of well-formed UTF-8 (the segmenter only
// sees lower-cased ASCII or utf8proc's output); a truncated sequence reads as
// one U+FFFD byte, so a bug can never read past `n`.
static inline size_t dec(const uint8_t *p, size_t n, size_t i, int32_t *cp) {
  uint8_t b = p[i];
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (len == 1 || n - i < len) {
    *cp = 0xFFFD;
    return 1;
  }
  int32_t c = b & (0x7F >> len);
  for (size_t k = 1; k < len; k++)
    c = c << 6 | (p[i + k] & 0x3F);
  *cp = c;
  return len;
}

static int joiner_of(int32_t c) {
  switch (c) {
  case '-':
  case '_':
  case 0x2010:
    return J_HYPHEN;
  case '\'':
  case 0x2019:
    return J_APOS;
  case '.':
    return J_DOT;
  case ',':
    return J_COMMA;
  case '@':
    return J_AT;
  default:
    return 0;
  }
}

static int emit(struct run *r, const uint8_t *b, size_t len, uint32_t pos, uint8_t kind) {
  if (r->nterms >= r->a->max_terms)
    return FTS_ERR_LIMIT;
  r->nterms++;
  fts_term t = {.bytes = b, .len = len, .position = pos, .kind = kind};
  return r->fn(r->ctx, &t);
}

// emit_word emits the word p[0..len) at `pos` and its stem when it differs.
static int emit_word(struct run *r, const uint8_t *p, size_t len, uint32_t pos, bool has_letter) {
  if (len == 0 || len > r->a->max_term_bytes)
    return 0;
  const uint8_t *w = p;
  if (r->lower) {
    for (size_t k = 0; k < len; k++)
      r->a->term[k] = ascii_lower(p[k]);
    w = r->a->term;
  }
  int rc = emit(r, w, len, pos, FTS_TERM_WORD);
  if (rc != 0 || !has_letter || r->stemmer == NULL)
    return rc;
  struct stem_slot *slot = NULL;
  if (len <= STEM_CACHE_BYTES && r->a->stem_cache != NULL) {
    uint32_t h = 2166136261u ^ (uint32_t)r->lang;
    for (size_t k = 0; k < len; k++)
      h = (h ^ w[k]) * 16777619u;
    slot = &r->a->stem_cache[(h ^ h >> 15) % STEM_CACHE_SLOTS];
    if (slot->lang == r->lang + 1 && slot->word_len == len && memcmp(slot->word, w, len) == 0) {
      if (slot->stem_len == 0)
        return 0;
      return emit(r, slot->stem, slot->stem_len, pos, FTS_TERM_STEM);
    }
  }
  const sb_symbol *s = sb_stemmer_stem(r->stemmer, w, (int)len);
  if (s == NULL)
    return -ENOMEM;
  int slen = sb_stemmer_length(r->stemmer);
  bool same = slen <= 0 || (size_t)slen > r->a->max_term_bytes ||
              ((size_t)slen == len && memcmp(s, w, len) == 0);
  if (slot != NULL && (same || slen <= STEM_CACHE_BYTES)) {
    slot->lang = (uint8_t)(r->lang + 1);
    slot->word_len = (uint8_t)len;
    memcpy(slot->word, w, len);
    slot->stem_len = same ? 0 : (uint8_t)slen;
    if (!same)
      memcpy(slot->stem, s, (size_t)slen);
  }
  if (same)
    return 0;
  return emit(r, s, (size_t)slen, pos, FTS_TERM_STEM);
}

// emit_parts emits each maximal run of word characters in p[s..e) as a word
// at pos, pos+1, ... and returns through *num_parts how many it found.
static int emit_parts(struct run *r, const uint8_t *p, size_t s, size_t e, uint32_t *num_parts) {
  uint32_t k = 0;
  size_t i = s;
  while (i < e) {
    int32_t c;
    size_t l = dec(p, e, i, &c);
    if (class_of(c) != C_WORD) {
      i += l;
      continue;
    }
    size_t start = i;
    bool letter = false;
    while (i < e) {
      l = dec(p, e, i, &c);
      if (class_of(c) != C_WORD)
        break;
      letter |= !is_number_char(c);
      i += l;
    }
    int rc = emit_word(r, p + start, i - start, r->pos + k, letter);
    if (rc != 0)
      return rc;
    k++;
  }
  *num_parts = k;
  return 0;
}

// assemble writes p[s..e) into the term buffer, lower-cased, with joiners
// written canonically (' and -) or, when !keep_joiners, left out. It returns
// the length, or SIZE_MAX when the result would exceed max_term_bytes.
static size_t assemble(struct run *r, const uint8_t *p, size_t s, size_t e, bool keep_joiners) {
  uint8_t *out = r->a->term;
  size_t max = r->a->max_term_bytes, n = 0;
  for (size_t i = s; i < e;) {
    int32_t c;
    size_t l = dec(p, e, i, &c);
    int j = class_of(c) == C_SEP ? joiner_of(c) : 0;
    if (j != 0 && !keep_joiners) {
      i += l;
      continue;
    }
    if (c == 0x2019 || c == 0x2010) {
      if (n + 1 > max)
        return SIZE_MAX;
      out[n++] = c == 0x2019 ? '\'' : '-';
      i += l;
      continue;
    }
    if (n + l > max)
      return SIZE_MAX;
    for (size_t k = 0; k < l; k++)
      out[n + k] = r->lower ? ascii_lower(p[i + k]) : p[i + k];
    n += l;
    i += l;
  }
  return n;
}

// url_scheme returns the length of "http://", "https://" or "ftp://" at
// p[i], compared without case, or 0.
static size_t url_scheme(const uint8_t *p, size_t n, size_t i) {
  static const char *const schemes[] = {"http://", "https://", "ftp://"};
  for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
    size_t len = strlen(schemes[k]);
    if (n - i < len)
      continue;
    size_t m = 0;
    while (m < len && ascii_lower(p[i + m]) == (uint8_t)schemes[k][m])
      m++;
    if (m == len)
      return len;
  }
  return 0;
}

// is_url_char: RFC 3986 unreserved, reserved and '%', less the quote and
// the angle brackets that delimit URLs in text; non-ASCII letters and digits
// (IRIs) too.
static bool is_url_char(int32_t c) {
  if (c >= 0x80)
    return class_of(c) != C_SEP;
  if (is_ascii_alnum((uint8_t)c))
    return true;
  return c != 0 && strchr("-._~:/?#[]@!$&()*+,;=%", (int)c) != NULL;
}

// do_url handles a URL whose scheme (of length `scheme`) starts at p[i] and
// sets *end past it, or to i when no word follows the scheme (not a URL).
static int do_url(struct run *r, const uint8_t *p, size_t n, size_t i, size_t scheme, size_t *end) {
  size_t j = i + scheme;
  bool has_paren = false;
  while (j < n) {
    int32_t c;
    size_t l = dec(p, n, j, &c);
    if (!is_url_char(c))
      break;
    has_paren |= c == '(';
    j += l;
  }
  // Sentence punctuation after a URL is not part of it.
  while (j > i + scheme && p[j - 1] < 0x80 &&
         (strchr(".,;:!?]'", p[j - 1]) != NULL || (p[j - 1] == ')' && !has_paren)))
    j--;
  bool word = false;
  for (size_t k = i + scheme; k < j && !word;) {
    int32_t c;
    k += dec(p, j, k, &c);
    word = class_of(c) == C_WORD;
  }
  *end = i;
  if (!word)
    return 0;
  *end = j;
  if (j - i <= r->a->max_term_bytes) {
    size_t len = assemble(r, p, i, j, true);
    int rc = emit(r, r->a->term, len, r->pos, FTS_TERM_WORD);
    if (rc != 0)
      return rc;
  }
  uint32_t parts = 0; // left unwritten when emit_parts fails
  int rc = emit_parts(r, p, i + scheme, j, &parts);
  r->pos += parts;
  return rc;
}

static int normalise(const fts_analyzer *a, struct nbuf *b, const uint8_t *in, size_t n,
                     size_t *out_len);

// do_compound handles the word starting at p[i]: a plain word, or words
// joined by single joiners (see ftsearch.h), and sets *end past it.
static int do_compound(struct run *r, const uint8_t *p, size_t n, size_t i, size_t *end) {
  size_t j = i;
  unsigned nseg = 0, joiners = 0;
  bool all_digits = true, letter = false;
  for (;;) {
    bool seg_digits = true;
    while (j < n) {
      int32_t c;
      size_t l = dec(p, n, j, &c);
      if (class_of(c) != C_WORD)
        break;
      if (!(c >= '0' && c <= '9'))
        seg_digits = false;
      letter |= !is_number_char(c);
      j += l;
    }
    nseg++;
    all_digits &= seg_digits;
    if (j >= n)
      break;
    int32_t c, next;
    size_t l = dec(p, n, j, &c);
    int kind = joiner_of(c);
    if (kind == 0 || j + l >= n)
      break;
    dec(p, n, j + l, &next);
    if (class_of(next) != C_WORD)
      break;
    if (kind == J_COMMA && !(seg_digits && next >= '0' && next <= '9'))
      break;
    if (kind == J_AT && (joiners & J_AT))
      break;
    joiners |= (unsigned)kind;
    j += l;
  }
  *end = j;
  uint32_t pos = r->pos;
  if (nseg == 1) {
    r->pos++;
    return emit_word(r, p + i, j - i, pos, letter);
  }
  bool number = all_digits && (joiners & ~(unsigned)(J_DOT | J_COMMA)) == 0;
  size_t len = assemble(r, p, i, j, true);
  if (len != SIZE_MAX) {
    int rc = emit(r, r->a->term, len, pos, FTS_TERM_WORD);
    if (rc != 0)
      return rc;
  }
  if (number) {
    r->pos++;
    return 0;
  }
  if ((joiners & ~(unsigned)(J_HYPHEN | J_APOS)) == 0) {
    // Hyphens and apostrophes are often left out when people type a query
    // ("email", "dont"): the joined form is indexed too.
    len = assemble(r, p, i, j, false);
    const uint8_t *joined = r->a->term;
    bool ascii = true;
    for (size_t k = 0; k < len && len != SIZE_MAX && ascii; k++)
      ascii = joined[k] < 0x80;
    if (len != SIZE_MAX && !ascii) {
      // Joining can make a new composition (a letter meeting the marks
      // after the hyphen, Hangul jamo): normalise the joined form again.
      int rc = normalise(r->a, &r->a->joined, joined, len, &len);
      if (rc != 0)
        return rc;
      joined = (const uint8_t *)r->a->joined.v;
      if (len == 0 || len > r->a->max_term_bytes)
        len = SIZE_MAX;
    }
    if (len != SIZE_MAX) {
      int rc = emit(r, joined, len, pos, FTS_TERM_WORD);
      if (rc != 0)
        return rc;
    }
  }
  uint32_t parts = 0; // left unwritten when emit_parts fails
  int rc = emit_parts(r, p, i, j, &parts);
  r->pos += parts;
  return rc;
}

// unit_end returns the end of the bigram unit at p[i] of class `cls`: one
// CJK character, or a Southeast Asian letter with the marks that follow it
// (vowel signs and tone marks belong to their consonant).
static size_t unit_end(const uint8_t *p, size_t n, size_t i, int cls) {
  int32_t c;
  size_t j = i + dec(p, n, i, &c);
  while (cls == C_SEA && j < n) {
    size_t l = dec(p, n, j, &c);
    if (class_of(c) != C_SEA || !is_mark(c))
      break;
    j += l;
  }
  return j;
}

// do_bigrams emits the overlapping bigrams of the run of class `cls` (C_CJK
// or C_SEA) at p[i], or the lone unit, and sets *end past the run.
static int do_bigrams(struct run *r, const uint8_t *p, size_t n, size_t i, int cls, size_t *end) {
  size_t prev = i, j = unit_end(p, n, i, cls);
  bool single = true;
  while (j < n) {
    int32_t c;
    dec(p, n, j, &c);
    if (class_of(c) != cls)
      break;
    size_t k = unit_end(p, n, j, cls);
    single = false;
    if (k - prev <= r->a->max_term_bytes) {
      int rc = emit(r, p + prev, k - prev, r->pos, FTS_TERM_WORD);
      if (rc != 0) {
        *end = k;
        return rc;
      }
    }
    r->pos++;
    prev = j;
    j = k;
  }
  *end = j;
  if (!single)
    return 0;
  int rc = j - i <= r->a->max_term_bytes ? emit(r, p + i, j - i, r->pos, FTS_TERM_WORD) : 0;
  r->pos++;
  return rc;
}

// segment finds the terms of one chunk of normalised (or, with r->lower, raw
// ASCII) bytes.
static int segment(struct run *r, const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    // Fast path: an ASCII word followed by white space or punctuation that
    // joins nothing (the common case in most text) is a plain word.
    if (p[i] < 0x80) {
      uint8_t t = ascii_tab[p[i]];
      if (!(t & A_ALNUM)) {
        i++;
        continue;
      }
      size_t j = i + 1;
      while (j < n && (ascii_tab[p[j]] & A_ALNUM))
        t |= ascii_tab[p[j++]];
      if (j == n || (p[j] < 0x80 && !(ascii_tab[p[j]] & A_JOIN) && p[j] != ':')) {
        int rc = emit_word(r, p + i, j - i, r->pos++, t & A_ALPHA);
        if (rc != 0)
          return rc;
        i = j;
        continue;
      }
    }
    int32_t c;
    size_t l = dec(p, n, i, &c);
    int cls = class_of(c);
    if (cls == C_SEP) {
      i += l;
      continue;
    }
    size_t end = i;
    int rc = 0;
    if (cls == C_CJK || cls == C_SEA) {
      rc = do_bigrams(r, p, n, i, cls, &end);
    } else {
      size_t scheme = (c | 0x20) == 'h' || (c | 0x20) == 'f' ? url_scheme(p, n, i) : 0;
      if (scheme != 0)
        rc = do_url(r, p, n, i, scheme, &end); // end stays i: not a URL after all
      if (rc == 0 && end == i)
        rc = do_compound(r, p, n, i, &end);
    }
    if (rc != 0)
      return rc;
    i = end;
  }
  return 0;
}

// next_cp decodes one code point of untrusted UTF-8 at in[*i] and advances;
// an ill-formed sequence (RFC 3629: bad lead or continuation byte, overlong,
// surrogate, above U+10FFFF, truncated) reads as U+FFFD and consumes one byte.
static int32_t next_cp(const uint8_t *in, size_t n, size_t *i) {
  uint8_t b = in[*i];
  size_t len;
  int32_t c, min;
  if (b < 0x80) {
    (*i)++;
    return b;
  } else if ((b & 0xE0) == 0xC0) {
    len = 2, c = b & 0x1F, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3, c = b & 0x0F, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4, c = b & 0x07, min = 0x10000;
  } else {
    (*i)++;
    return 0xFFFD;
  }
  if (n - *i < len) {
    (*i)++;
    return 0xFFFD;
  }
  for (size_t k = 1; k < len; k++) {
    uint8_t cb = in[*i + k];
    if ((cb & 0xC0) != 0x80) {
      (*i)++;
      return 0xFFFD;
    }
    c = c << 6 | (cb & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
    (*i)++;
    return 0xFFFD;
  }
  *i += len;
  return c;
}

static int grow_u32(struct nbuf *b, size_t need) {
  if (need <= b->cap)
    return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap *= 2;
  int32_t *nb = realloc(b->v, cap * sizeof *nb);
  if (nb == NULL)
    return -ENOMEM;
  b->v = nb;
  b->cap = cap;
  return 0;
}

static inline int ccc_of(int32_t c) {
  return c < 0x300 ? 0 : utf8proc_get_property(c)->combining_class;
}

// fold_letter gives in out[] the ASCII letters that accent folding puts for
// the case-folded letter `c` that has no canonical decomposition (so that
// STRIPMARK leaves it alone), and returns their number, or 0 when `c` is
// not such a letter: ø → o, æ → ae, œ → oe, þ → th, ł → l, đ and ð → d,
// ħ → h, ŧ → t. (ß needs nothing here: full case folding makes it ss.)
static int fold_letter(int32_t c, int32_t out[2]) {
  switch (c) {
  case 0xF8: // ø
    out[0] = 'o';
    return 1;
  case 0xE6: // æ
    out[0] = 'a', out[1] = 'e';
    return 2;
  case 0x153: // œ
    out[0] = 'o', out[1] = 'e';
    return 2;
  case 0xFE: // þ
    out[0] = 't', out[1] = 'h';
    return 2;
  case 0x142: // ł
    out[0] = 'l';
    return 1;
  case 0x111: // đ
  case 0xF0:  // ð
    out[0] = 'd';
    return 1;
  case 0x127: // ħ
    out[0] = 'h';
    return 1;
  case 0x167: // ŧ
    out[0] = 't';
    return 1;
  default:
    return 0;
  }
}

// normalise maps in[0..n) to NFKC with case folding (and, for
// FTS_ANALYZE_FOLD_ACCENTS, without marks and with fold_letter's letters
// folded) into `b`, re-encoded as UTF-8 in place, and sets *out_len to its
// length in bytes. It decomposes one code point at a time so that
// ill-formed input is replaced first and runs of combining marks are
// capped (the canonical reordering below is then bounded).
static int normalise(const fts_analyzer *a, struct nbuf *b, const uint8_t *in, size_t n,
                     size_t *out_len) {
  utf8proc_option_t opts = NORM_OPTS;
  if (a->flags & FTS_ANALYZE_FOLD_ACCENTS)
    opts |= UTF8PROC_STRIPMARK;
  size_t w = 0, i = 0;
  int marks = 0;
  while (i < n) {
    int32_t c = next_cp(in, n, &i);
    if (c < 0x80) {
      if (w + 1 > b->cap && grow_u32(b, w + 1) != 0)
        return -ENOMEM;
      b->v[w++] = ascii_lower((uint8_t)c);
      marks = 0;
      continue;
    }
    if (grow_u32(b, w + 64) != 0)
      return -ENOMEM;
    int bound = 0;
    utf8proc_ssize_t got =
        utf8proc_decompose_char(c, b->v + w, (utf8proc_ssize_t)(b->cap - w), opts, &bound);
    if (got < 0)
      return FTS_ERR_INVALID_ARGUMENT; // cannot happen: valid scalar value, valid options
    if ((size_t)got > b->cap - w) {
      if (grow_u32(b, w + (size_t)got) != 0)
        return -ENOMEM;
      got = utf8proc_decompose_char(c, b->v + w, (utf8proc_ssize_t)(b->cap - w), opts, &bound);
    }
    // Folding may write two letters for one: it reads the decomposition
    // from a copy (at most 18 code points; `b` has room for 64 past `w`).
    const int32_t *src = b->v + w;
    int32_t copy[32];
    bool fold = (a->flags & FTS_ANALYZE_FOLD_ACCENTS) && got <= 32;
    if (fold) {
      memcpy(copy, src, (size_t)got * sizeof *copy);
      src = copy;
    }
    for (utf8proc_ssize_t k = 0; k < got; k++) {
      int32_t d = src[k], f[2];
      int cc = ccc_of(d), nf;
      if (cc == 0) {
        marks = 0;
        if (fold && (nf = fold_letter(d, f)) > 0) {
          for (int j = 0; j < nf; j++)
            b->v[w++] = f[j];
          continue;
        }
        b->v[w++] = d;
        continue;
      }
      if (marks >= FTS_ANALYZE_MAX_MARKS)
        continue;
      marks++;
      // Canonical ordering: a stable insertion among at most 30 marks.
      size_t at = w;
      while (at > 0) {
        int pc = ccc_of(b->v[at - 1]);
        if (pc <= cc)
          break;
        b->v[at] = b->v[at - 1];
        at--;
      }
      b->v[at] = d;
      w++;
    }
  }
  if (w == 0) {
    *out_len = 0;
    return 0;
  }
  utf8proc_ssize_t bytes = utf8proc_reencode(b->v, (utf8proc_ssize_t)w, opts);
  if (bytes < 0)
    return FTS_ERR_INVALID_ARGUMENT; // cannot happen: code points come from utf8proc
  *out_len = (size_t)bytes;
  return 0;
}

// chunk_end returns where the chunk that starts at text[i] ends: at ASCII
// white space, or after at most FTS_ANALYZE_MAX_CHUNK bytes, cut between two
// ASCII bytes when one of the last 256 positions allows it (nothing composes
// across that cut), else at a character boundary. *ascii says whether the
// chunk is pure ASCII.
static size_t chunk_end(const uint8_t *text, size_t n, size_t i, bool *ascii) {
  size_t limit = n - i > FTS_ANALYZE_MAX_CHUNK ? i + FTS_ANALYZE_MAX_CHUNK : n;
  bool all = true;
  size_t j = i;
  while (j < limit && !is_ascii_space(text[j])) {
    all &= text[j] < 0x80;
    j++;
  }
  if (j == limit && limit < n && !is_ascii_space(text[j])) {
    size_t k = j;
    while (k > j - 256 && !(text[k - 1] < 0x80 && text[k] < 0x80))
      k--;
    if (k == j - 256) {
      k = j;
      while (k > i + 1 && (text[k] & 0xC0) == 0x80)
        k--;
    }
    j = k;
    all = true;
    for (size_t m = i; m < j && all; m++)
      all = text[m] < 0x80;
  }
  *ascii = all;
  return j;
}

int fts_analyzer_new(fts_analyzer **out, const fts_analyzer_settings *settings) {
  if (out == NULL)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  fts_analyzer_settings s = {0};
  if (settings != NULL)
    s = *settings;
  if ((s.flags & ~(FTS_ANALYZE_FOLD_ACCENTS | FTS_ANALYZE_NO_STEMS)) != 0 ||
      s.max_term_bytes > FTS_ANALYZE_MAX_TERM_BYTES)
    return FTS_ERR_INVALID_ARGUMENT;
  fts_analyzer *a = calloc(1, sizeof *a);
  if (a == NULL)
    return -ENOMEM;
  a->flags = s.flags;
  a->max_term_bytes = s.max_term_bytes ? s.max_term_bytes : FTS_ANALYZE_DEFAULT_MAX_TERM_BYTES;
  a->max_terms = s.max_terms ? s.max_terms : FTS_ANALYZE_DEFAULT_MAX_TERMS;
  a->ascii_fast = true;
  a->last_lang = -1;
  a->term = malloc(a->max_term_bytes);
  if (a->term == NULL) {
    free(a);
    return -ENOMEM;
  }
  *out = a;
  return 0;
}

void fts_analyzer_free(fts_analyzer *a) {
  if (a == NULL)
    return;
  for (size_t i = 0; i < FTS_LANG_COUNT; i++)
    if (a->stemmers[i] != NULL)
      sb_stemmer_delete(a->stemmers[i]);
  free(a->chunk.v);
  free(a->joined.v);
  free(a->term);
  free(a->stem_cache);
  free(a);
}

void fts_analyzer_set_ascii_fast_path(fts_analyzer *a, bool on) {
  a->ascii_fast = on;
}

const char *fts_analyzer_language(const fts_analyzer *a) {
  if (a == NULL || a->last_lang < 0)
    return "";
  return fts_langs[a->last_lang].code;
}

int fts_analyze(fts_analyzer *a, const char *lang, const uint8_t *text, size_t text_len,
                fts_term_fn fn, void *ctx) {
  if (a == NULL || fn == NULL || (text == NULL && text_len != 0))
    return FTS_ERR_INVALID_ARGUMENT;
  if (text_len > UINT32_MAX)
    return FTS_ERR_LIMIT; // positions are 32-bit; each takes at least a byte
  int li;
  if (lang == NULL) {
    li = text_len ? fts_lang_detect_index(text, text_len) : -1;
    if (li < 0)
      li = FTS_LANG_EN;
  } else if (lang[0] == '\0') {
    li = FTS_LANG_EN;
  } else if ((li = fts_lang_lookup(lang)) < 0) {
    return FTS_ERR_UNSUPPORTED;
  }
  a->last_lang = li;
  struct run r = {.a = a, .fn = fn, .ctx = ctx};
  if (!(a->flags & FTS_ANALYZE_NO_STEMS) && fts_langs[li].snowball != NULL) {
    if (a->stemmers[li] == NULL) {
      a->stemmers[li] = sb_stemmer_new(fts_langs[li].snowball, "UTF_8");
      if (a->stemmers[li] == NULL)
        return -ENOMEM; // every name in fts_langs is a libstemmer algorithm
    }
    r.stemmer = a->stemmers[li];
    r.lang = li;
    if (a->stem_cache == NULL)
      a->stem_cache = calloc(STEM_CACHE_SLOTS, sizeof *a->stem_cache); // NULL: no cache
  }
  size_t i = 0;
  while (i < text_len) {
    if (is_ascii_space(text[i])) {
      i++;
      continue;
    }
    bool ascii;
    size_t j = chunk_end(text, text_len, i, &ascii);
    int rc;
    if (ascii && a->ascii_fast) {
      r.lower = true;
      rc = segment(&r, text + i, j - i);
    } else {
      size_t len;
      rc = normalise(a, &a->chunk, text + i, j - i, &len);
      r.lower = false;
      if (rc == 0)
        rc = segment(&r, (const uint8_t *)a->chunk.v, len);
    }
    if (rc != 0)
      return rc;
    i = j;
  }
  return 0;
}
