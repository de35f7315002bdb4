// html.c: the two conversions between HTML and plain text that a mail
// server needs: HTML bodies to text for previews and the search index, a
// small one-pass tokenizer that follows the HTML tokenizer's rules where they
// matter for robustness (comments, raw-text elements, attribute quoting,
// character references) and lays out the text by element kind; and plain
// text bodies to an escaped HTML fragment for JMAP. Input is untrusted UTF-8;
// both run in linear time into the caller's buffer and allocate nothing.
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "charset_internal.h"
#include "mailparse.h"

// Bounded writer: refuses (and stays refused) once a write would pass `cap`.
struct hw {
  uint8_t *out;
  size_t cap;
  size_t len;
  bool full;
};

static void hw_put(struct hw *w, const void *p, size_t n) {
  if (w->full)
    return;
  if (n > w->cap - w->len) {
    w->full = true;
    return;
  }
  if (n > 0)
    memcpy(w->out + w->len, p, n);
  w->len += n;
}

static bool is_ws(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static bool is_alpha(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(uint8_t c) {
  return is_alpha(c) || (c >= '0' && c <= '9');
}

static uint8_t to_lower(uint8_t c) {
  return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

// Character references.

struct html_entity {
  const char *name;
  uint16_t cp;
};

// The named references mail actually uses: markup, punctuation, Latin-1 and
// the Windows-1252 extras. Sorted by name (bytewise) for the binary search.
static const struct html_entity html_entities[] = {
    {"AElig", 0x00C6},  {"Aacute", 0x00C1}, {"Acirc", 0x00C2},  {"Agrave", 0x00C0},
    {"Aring", 0x00C5},  {"Atilde", 0x00C3}, {"Auml", 0x00C4},   {"Ccedil", 0x00C7},
    {"Dagger", 0x2021}, {"ETH", 0x00D0},    {"Eacute", 0x00C9}, {"Ecirc", 0x00CA},
    {"Egrave", 0x00C8}, {"Euml", 0x00CB},   {"Iacute", 0x00CD}, {"Icirc", 0x00CE},
    {"Igrave", 0x00CC}, {"Iuml", 0x00CF},   {"Ntilde", 0x00D1}, {"OElig", 0x0152},
    {"Oacute", 0x00D3}, {"Ocirc", 0x00D4},  {"Ograve", 0x00D2}, {"Oslash", 0x00D8},
    {"Otilde", 0x00D5}, {"Ouml", 0x00D6},   {"Prime", 0x2033},  {"Scaron", 0x0160},
    {"THORN", 0x00DE},  {"Uacute", 0x00DA}, {"Ucirc", 0x00DB},  {"Ugrave", 0x00D9},
    {"Uuml", 0x00DC},   {"Yacute", 0x00DD}, {"Yuml", 0x0178},   {"aacute", 0x00E1},
    {"acirc", 0x00E2},  {"acute", 0x00B4},  {"aelig", 0x00E6},  {"agrave", 0x00E0},
    {"amp", 0x0026},    {"apos", 0x0027},   {"aring", 0x00E5},  {"atilde", 0x00E3},
    {"auml", 0x00E4},   {"bdquo", 0x201E},  {"brvbar", 0x00A6}, {"bull", 0x2022},
    {"ccedil", 0x00E7}, {"cedil", 0x00B8},  {"cent", 0x00A2},   {"circ", 0x02C6},
    {"copy", 0x00A9},   {"curren", 0x00A4}, {"dagger", 0x2020}, {"darr", 0x2193},
    {"deg", 0x00B0},    {"divide", 0x00F7}, {"eacute", 0x00E9}, {"ecirc", 0x00EA},
    {"egrave", 0x00E8}, {"emsp", 0x2003},   {"ensp", 0x2002},   {"eth", 0x00F0},
    {"euml", 0x00EB},   {"euro", 0x20AC},   {"fnof", 0x0192},   {"frac12", 0x00BD},
    {"frac14", 0x00BC}, {"frac34", 0x00BE}, {"gt", 0x003E},     {"harr", 0x2194},
    {"hearts", 0x2665}, {"hellip", 0x2026}, {"iacute", 0x00ED}, {"icirc", 0x00EE},
    {"iexcl", 0x00A1},  {"igrave", 0x00EC}, {"iquest", 0x00BF}, {"iuml", 0x00EF},
    {"laquo", 0x00AB},  {"larr", 0x2190},   {"ldquo", 0x201C},  {"lrm", 0x200E},
    {"lsaquo", 0x2039}, {"lsquo", 0x2018},  {"lt", 0x003C},     {"macr", 0x00AF},
    {"mdash", 0x2014},  {"micro", 0x00B5},  {"middot", 0x00B7}, {"nbsp", 0x00A0},
    {"ndash", 0x2013},  {"not", 0x00AC},    {"ntilde", 0x00F1}, {"oacute", 0x00F3},
    {"ocirc", 0x00F4},  {"oelig", 0x0153},  {"ograve", 0x00F2}, {"ordf", 0x00AA},
    {"ordm", 0x00BA},   {"oslash", 0x00F8}, {"otilde", 0x00F5}, {"ouml", 0x00F6},
    {"para", 0x00B6},   {"permil", 0x2030}, {"plusmn", 0x00B1}, {"pound", 0x00A3},
    {"prime", 0x2032},  {"quot", 0x0022},   {"raquo", 0x00BB},  {"rarr", 0x2192},
    {"rdquo", 0x201D},  {"reg", 0x00AE},    {"rlm", 0x200F},    {"rsaquo", 0x203A},
    {"rsquo", 0x2019},  {"sbquo", 0x201A},  {"scaron", 0x0161}, {"sect", 0x00A7},
    {"shy", 0x00AD},    {"sup1", 0x00B9},   {"sup2", 0x00B2},   {"sup3", 0x00B3},
    {"szlig", 0x00DF},  {"thinsp", 0x2009}, {"thorn", 0x00FE},  {"tilde", 0x02DC},
    {"times", 0x00D7},  {"trade", 0x2122},  {"uacute", 0x00FA}, {"uarr", 0x2191},
    {"ucirc", 0x00FB},  {"ugrave", 0x00F9}, {"uml", 0x00A8},    {"uuml", 0x00FC},
    {"yacute", 0x00FD}, {"yen", 0x00A5},    {"yuml", 0x00FF},   {"zwj", 0x200D},
    {"zwnj", 0x200C},
};

static int entity_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const struct html_entity *)elem)->name);
}

static bool entity_find(const uint8_t *name, size_t len, uint32_t *cp) {
  char key[16];
  if (len == 0 || len >= sizeof key)
    return false;
  memcpy(key, name, len);
  key[len] = '\0';
  const struct html_entity *e =
      bsearch(key, html_entities, sizeof html_entities / sizeof html_entities[0],
              sizeof html_entities[0], entity_cmp);
  if (e == NULL)
    return false;
  *cp = e->cp;
  return true;
}

// decode_ref decodes the character reference at `p` (p[0] == '&', `n` bytes
// available) into `*cp` and returns how many bytes it spans, or 0 if it is
// not one (the '&' is then literal). In text, the legacy names HTML accepts
// without ';' are decoded too; in attribute values they are not.
static size_t decode_ref(const uint8_t *p, size_t n, uint32_t *cp, bool attr) {
  if (n >= 3 && p[1] == '#') {
    bool hex = p[2] == 'x' || p[2] == 'X';
    size_t i = hex ? 3 : 2, start = i;
    uint32_t v = 0;
    for (; i < n; i++) {
      uint8_t c = p[i];
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (hex && to_lower(c) >= 'a' && to_lower(c) <= 'f')
        d = to_lower(c) - 'a' + 10u;
      else
        break;
      v = v > 0x10FFFF ? v : v * (hex ? 16u : 10u) + d; // saturates past U+10FFFF
    }
    if (i == start)
      return 0;
    if (i < n && p[i] == ';')
      i++;
    if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
      v = MP_UTF8_REPLACEMENT;
    else if (v >= 0x80 && v <= 0x9F)
      v = mp_cp1252_high((uint8_t)v); // HTML reads these as Windows-1252
    *cp = v;
    return i;
  }
  size_t i = 1;
  while (i < n && i <= 32 && is_alnum(p[i]))
    i++;
  if (i < n && p[i] == ';' && entity_find(p + 1, i - 1, cp))
    return i + 1;
  if (attr)
    return 0;
  static const char *const legacy[] = {"amp", "lt", "gt", "quot", "nbsp", "copy", "reg"};
  for (size_t k = 0; k < sizeof legacy / sizeof legacy[0]; k++) {
    size_t l = strlen(legacy[k]);
    if (i - 1 >= l && memcmp(p + 1, legacy[k], l) == 0) {
      if (entity_find(p + 1, l, cp))
        return l + 1;
    }
  }
  return 0;
}

// HTML to text.

enum tag_kind {
  T_NONE,   // inline or unknown: no layout
  T_HEADOK, // may appear in <head> without ending it
  T_BLOCK1, // a line of its own
  T_BLOCK2, // a paragraph: a blank line around it
  T_BR,
  T_LI,
  T_UL,
  T_OL,
  T_PRE,
  T_A,
  T_RAW, // raw text: content skipped to the matching end tag
  T_HEAD,
  T_BODY,
  T_CELL,
  T_ROW,
};

struct html_tag {
  const char *name;
  uint8_t kind;
};

// Sorted by name (bytewise) for the binary search.
static const struct html_tag html_tags[] = {
    {"a", T_A},
    {"address", T_BLOCK1},
    {"article", T_BLOCK1},
    {"aside", T_BLOCK1},
    {"base", T_HEADOK},
    {"blockquote", T_BLOCK2},
    {"body", T_BODY},
    {"br", T_BR},
    {"caption", T_BLOCK1},
    {"center", T_BLOCK1},
    {"dd", T_BLOCK1},
    {"details", T_BLOCK1},
    {"dialog", T_BLOCK1},
    {"dir", T_UL},
    {"div", T_BLOCK1},
    {"dl", T_BLOCK2},
    {"dt", T_BLOCK1},
    {"fieldset", T_BLOCK1},
    {"figcaption", T_BLOCK1},
    {"figure", T_BLOCK2},
    {"footer", T_BLOCK1},
    {"form", T_BLOCK1},
    {"h1", T_BLOCK2},
    {"h2", T_BLOCK2},
    {"h3", T_BLOCK2},
    {"h4", T_BLOCK2},
    {"h5", T_BLOCK2},
    {"h6", T_BLOCK2},
    {"head", T_HEAD},
    {"header", T_BLOCK1},
    {"hr", T_BLOCK2},
    {"html", T_HEADOK},
    {"iframe", T_RAW},
    {"legend", T_BLOCK1},
    {"li", T_LI},
    {"link", T_HEADOK},
    {"main", T_BLOCK1},
    {"menu", T_UL},
    {"meta", T_HEADOK},
    {"nav", T_BLOCK1},
    {"noembed", T_RAW},
    {"noframes", T_RAW},
    {"noscript", T_HEADOK},
    {"ol", T_OL},
    {"option", T_BLOCK1},
    {"p", T_BLOCK2},
    {"pre", T_PRE},
    {"script", T_RAW},
    {"section", T_BLOCK1},
    {"style", T_RAW},
    {"summary", T_BLOCK1},
    {"table", T_BLOCK2},
    {"td", T_CELL},
    {"template", T_RAW},
    {"textarea", T_BLOCK1},
    {"th", T_CELL},
    {"title", T_RAW},
    {"tr", T_ROW},
    {"ul", T_UL},
    {"xml", T_HEADOK},
};

static int tag_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const struct html_tag *)elem)->name);
}

#define H2T_MAX_LISTS 16   // nesting tracked for numbering; deeper lists still work
#define H2T_MAX_INDENT 3   // levels of two-space indentation
#define H2T_MAX_NUMBER 999 // ordered list numbers stop growing here
#define H2T_MAX_URL 2048   // longer link targets are left out

struct h2t {
  struct hw w;
  unsigned flags;
  uint8_t nl;      // line breaks owed before the next text (0-2)
  bool sp;         // a space owed before the next text
  bool line_start; // the output ends a line, or a list marker
  bool in_head;
  unsigned pre;        // depth of <pre>
  unsigned list_depth; // depth of <ul>/<ol>
  struct {
    bool ordered;
    unsigned count;
  } lists[H2T_MAX_LISTS];
  const uint8_t *href; // the open link's target, points into the input
  size_t href_len;
  size_t a_start; // output length at the open link's start tag
};

static void need_nl(struct h2t *h, uint8_t k) {
  if (h->w.len > 0 && h->nl < k)
    h->nl = k;
}

// flush writes the breaks or the space owed before text.
static void flush(struct h2t *h) {
  if (h->nl > 0) {
    hw_put(&h->w, "\n\n", h->nl);
    h->line_start = true;
  } else if (h->sp && h->w.len > 0 && !h->line_start) {
    hw_put(&h->w, " ", 1);
  }
  h->nl = 0;
  h->sp = false;
}

static void text_bytes(struct h2t *h, const void *p, size_t n) {
  flush(h);
  hw_put(&h->w, p, n);
  h->line_start = false;
}

static bool is_invisible(uint32_t cp) {
  return cp == 0x00AD || cp == 0x034F || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 ||
         cp == 0xFEFF;
}

static void text_cp(struct h2t *h, uint32_t cp) {
  if (h->in_head)
    return;
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\f' || cp == '\r' || cp == 0xA0) {
    if (h->pre == 0) {
      h->sp = true;
    } else if (cp == '\n') {
      flush(h);
      hw_put(&h->w, "\n", 1);
      h->line_start = true;
    } else if (cp != '\r') { // CR LF and lone CR arrive here as LF
      text_bytes(h, cp == '\t' ? "\t" : " ", 1);
    }
    return;
  }
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || is_invisible(cp))
    return;
  uint8_t buf[4];
  text_bytes(h, buf, mp_utf8_encode_one(buf, cp));
}

static void list_marker(struct h2t *h) {
  need_nl(h, 1);
  flush(h);
  char buf[2 * H2T_MAX_INDENT + 8];
  size_t n = 0;
  unsigned depth = h->list_depth;
  for (unsigned k = 1; k < depth && k <= H2T_MAX_INDENT; k++) {
    buf[n++] = ' ';
    buf[n++] = ' ';
  }
  if (depth > 0 && depth <= H2T_MAX_LISTS && h->lists[depth - 1].ordered) {
    unsigned v = h->lists[depth - 1].count;
    if (v < H2T_MAX_NUMBER)
      h->lists[depth - 1].count = ++v;
    char digits[4];
    size_t d = 0;
    do {
      digits[d++] = (char)('0' + v % 10);
      v /= 10;
    } while (v > 0);
    while (d > 0)
      buf[n++] = digits[--d];
    buf[n++] = '.';
    buf[n++] = ' ';
  } else {
    memcpy(buf + n, "\xE2\x80\xA2 ", 4); // U+2022 BULLET
    n += 4;
  }
  hw_put(&h->w, buf, n);
  h->line_start = true; // no space between the marker and the text
}

// link_end appends " <url>" for the link that ends, unless its text already
// says it.
static void link_end(struct h2t *h) {
  const uint8_t *u = h->href;
  size_t n = h->href_len;
  h->href = NULL;
  if (u == NULL || n > H2T_MAX_URL || h->w.full)
    return;
  uint8_t url[H2T_MAX_URL * 4];
  size_t len = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t k = 0;
    if (u[i] == '&')
      k = decode_ref(u + i, n - i, &cp, true);
    if (k == 0) {
      int bad = 0;
      k = mp_utf8_decode_one(u + i, n - i, &cp, &bad);
    }
    i += k;
    if (cp <= 0x20 || cp == 0x7F) // browsers strip these from URLs
      continue;
    len += mp_utf8_encode_one(url + len, cp);
  }
  if (len == 0 || url[0] == '#' || (len >= 11 && memcmp(url, "javascript:", 11) == 0))
    return;
  const uint8_t *cmp = url;
  size_t cmp_len = len;
  if (len >= 7 && memcmp(url, "mailto:", 7) == 0) {
    cmp += 7;
    cmp_len -= 7;
  }
  // The link's text as written so far, without the breaks or space before it.
  size_t t = h->a_start;
  while (t < h->w.len && (h->w.out[t] == ' ' || h->w.out[t] == '\n'))
    t++;
  size_t tl = h->w.len - t;
  if (tl > 0 && ((tl == len && memcmp(h->w.out + t, url, len) == 0) ||
                 (tl == cmp_len && memcmp(h->w.out + t, cmp, cmp_len) == 0)))
    return;
  text_bytes(h, tl > 0 ? " <" : "<", tl > 0 ? 2 : 1);
  hw_put(&h->w, url, len);
  hw_put(&h->w, ">", 1);
}

// skip_raw returns where the end tag of raw-text element `name` starts at or
// after `i` (its '<'), or `n` if it never does.
static size_t skip_raw(const uint8_t *in, size_t n, size_t i, const char *name) {
  size_t nl = strlen(name);
  while (i < n) {
    const uint8_t *lt = memchr(in + i, '<', n - i);
    if (lt == NULL)
      return n;
    size_t k = (size_t)(lt - in);
    if (n - k >= nl + 2 && in[k + 1] == '/') {
      size_t m = 0;
      while (m < nl && to_lower(in[k + 2 + m]) == (uint8_t)name[m])
        m++;
      if (m == nl && (k + 2 + nl == n || is_ws(in[k + 2 + nl]) || in[k + 2 + nl] == '/' ||
                      in[k + 2 + nl] == '>'))
        return k;
    }
    i = k + 1;
  }
  return n;
}

// find_gt returns the index just past the next '>' at or after `i`, or `n`.
static size_t find_gt(const uint8_t *in, size_t n, size_t i) {
  if (i >= n)
    return n;
  const uint8_t *gt = memchr(in + i, '>', n - i);
  return gt == NULL ? n : (size_t)(gt - in) + 1;
}

// comment_end returns the index just past the "-->" that closes the comment
// whose "<!--" starts at `i`, or `n` for an unterminated one. "<!-->" and
// "<!--->" are empty comments, as in HTML.
static size_t comment_end(const uint8_t *in, size_t n, size_t i) {
  size_t j = i + 4;
  while (j < n) {
    const uint8_t *gt = memchr(in + j, '>', n - j);
    if (gt == NULL)
      return n;
    size_t k = (size_t)(gt - in);
    if (k >= i + 4 && in[k - 1] == '-' && in[k - 2] == '-')
      return k + 1;
    j = k + 1;
  }
  return n;
}

static void on_tag(struct h2t *h, const struct html_tag *t, bool end, const uint8_t *href,
                   size_t href_len) {
  enum tag_kind kind = t != NULL ? (enum tag_kind)t->kind : T_NONE;
  if (h->in_head && !end && kind != T_HEADOK && kind != T_RAW && kind != T_HEAD)
    h->in_head = false;
  switch (kind) {
  case T_HEAD:
    if (!end && h->w.len == 0)
      h->in_head = true;
    else if (end)
      h->in_head = false;
    break;
  case T_BODY:
    h->in_head = false;
    break;
  case T_BLOCK1:
  case T_ROW:
    need_nl(h, 1);
    break;
  case T_BLOCK2:
    need_nl(h, 2);
    break;
  case T_BR:
    if (h->w.len > 0 && h->nl < 2)
      h->nl++;
    break;
  case T_CELL:
    if (!end)
      h->sp = true;
    break;
  case T_LI:
    if (!end)
      list_marker(h);
    else
      need_nl(h, 1);
    break;
  case T_UL:
  case T_OL:
    if (!end) {
      need_nl(h, h->list_depth == 0 ? 2 : 1);
      if (h->list_depth < H2T_MAX_LISTS) {
        h->lists[h->list_depth].ordered = kind == T_OL;
        h->lists[h->list_depth].count = 0;
      }
      if (h->list_depth < UINT32_MAX)
        h->list_depth++;
    } else {
      if (h->list_depth > 0)
        h->list_depth--;
      need_nl(h, h->list_depth == 0 ? 2 : 1);
    }
    break;
  case T_PRE:
    need_nl(h, 2);
    if (!end && h->pre < UINT32_MAX)
      h->pre++;
    else if (end && h->pre > 0)
      h->pre--;
    break;
  case T_A:
    if (!(h->flags & MP_HTML_LINK_URLS))
      break;
    if (h->href != NULL)
      link_end(h); // an <a> inside an <a> ends the first, as in HTML
    if (!end && href != NULL) {
      h->href = href;
      h->href_len = href_len;
      h->a_start = h->w.len;
    }
    break;
  default:
    break;
  }
}

// on_lt handles the markup that starts with the '<' at `i` and returns where
// the text resumes.
static size_t on_lt(struct h2t *h, const uint8_t *in, size_t n, size_t i) {
  size_t j = i + 1;
  if (j >= n) {
    text_cp(h, '<');
    return n;
  }
  bool end = false;
  if (in[j] == '!') {
    if (n - i >= 4 && in[i + 2] == '-' && in[i + 3] == '-')
      return comment_end(in, n, i);
    return find_gt(in, n, i + 2); // <!DOCTYPE ...>, <![CDATA[ ...]]> in HTML
  }
  if (in[j] == '?')
    return find_gt(in, n, i + 2);
  if (in[j] == '/') {
    end = true;
    j++;
    if (j >= n) {
      text_cp(h, '<');
      text_cp(h, '/');
      return n;
    }
    if (in[j] == '>')
      return j + 1;
    if (!is_alpha(in[j]))
      return find_gt(in, n, j); // a bogus comment
  } else if (!is_alpha(in[j])) {
    text_cp(h, '<');
    return i + 1;
  }
  // The element name, lower-cased; a long one is no element we know.
  char name[16];
  size_t nlen = 0, k = j;
  bool colon = false;
  while (k < n && !is_ws(in[k]) && in[k] != '/' && in[k] != '>') {
    if (nlen < sizeof name - 1)
      name[nlen] = (char)to_lower(in[k]);
    colon |= in[k] == ':';
    nlen++;
    k++;
  }
  const struct html_tag *t = NULL;
  static const struct html_tag office = {"", T_HEADOK};
  if (colon) {
    t = &office; // <o:p>, <v:shape>: Office markup, no layout of its own
  } else if (nlen < sizeof name) {
    name[nlen] = '\0';
    t = bsearch(name, html_tags, sizeof html_tags / sizeof html_tags[0], sizeof html_tags[0],
                tag_cmp);
  }
  // Attributes: names, then values unquoted, in single or in double quotes.
  const uint8_t *href = NULL;
  size_t href_len = 0;
  for (;;) {
    while (k < n && (is_ws(in[k]) || in[k] == '/'))
      k++;
    if (k >= n)
      return n; // an unterminated tag at the end is dropped
    if (in[k] == '>') {
      k++;
      break;
    }
    size_t a0 = k++;
    while (k < n && !is_ws(in[k]) && in[k] != '/' && in[k] != '>' && in[k] != '=')
      k++;
    size_t a1 = k;
    while (k < n && is_ws(in[k]))
      k++;
    if (k >= n || in[k] != '=')
      continue;
    k++;
    while (k < n && is_ws(in[k]))
      k++;
    if (k >= n)
      return n;
    size_t v0, v1;
    if (in[k] == '"' || in[k] == '\'') {
      const uint8_t *q = memchr(in + k + 1, in[k], n - k - 1);
      if (q == NULL)
        return n;
      v0 = k + 1;
      v1 = (size_t)(q - in);
      k = v1 + 1;
    } else {
      v0 = k;
      while (k < n && !is_ws(in[k]) && in[k] != '>')
        k++;
      v1 = k;
    }
    if (a1 - a0 == 4 && to_lower(in[a0]) == 'h' && to_lower(in[a0 + 1]) == 'r' &&
        to_lower(in[a0 + 2]) == 'e' && to_lower(in[a0 + 3]) == 'f' && href == NULL) {
      href = in + v0;
      href_len = v1 - v0;
    }
  }
  on_tag(h, t, end, href, href_len);
  if (!end && t != NULL && t->kind == T_RAW)
    return skip_raw(in, n, k, t->name);
  return k;
}

size_t mp_html_to_text_max_len(size_t in_len) {
  if (in_len > (SIZE_MAX - 4) / 4)
    return SIZE_MAX;
  return 4 * in_len + 4;
}

int mp_html_to_text(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags,
                    const uint8_t *in, size_t in_len, unsigned flags) {
  if (out_len == NULL || out_flags == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  *out_flags = 0;
  if ((out == NULL && out_cap != 0) || (in == NULL && in_len != 0) ||
      (flags & ~(MP_HTML_LINK_URLS | MP_HTML_TRUNCATE)) != 0)
    return MP_ERR_INVALID_ARGUMENT;
  size_t bound = mp_html_to_text_max_len(in_len);
  struct h2t h = {.w = {(uint8_t *)out, out_cap < bound ? out_cap : bound, 0, false},
                  .flags = flags};
  size_t i = 0;
  while (i < in_len && !h.w.full) {
    uint8_t c = in[i];
    if (c == '<') {
      i = on_lt(&h, in, in_len, i);
    } else if (c == '&') {
      uint32_t cp = '&';
      size_t k = decode_ref(in + i, in_len - i, &cp, false);
      text_cp(&h, cp);
      i += k > 0 ? k : 1;
    } else if (c > 0x20 && c < 0x7F) {
      // A run of visible ASCII other than markup is copied as it is.
      size_t j = i + 1;
      while (j < in_len && in[j] > 0x20 && in[j] < 0x7F && in[j] != '<' && in[j] != '&')
        j++;
      if (!h.in_head)
        text_bytes(&h, in + i, j - i);
      i = j;
    } else if (c == '\r') {
      text_cp(&h, '\n');
      i += i + 1 < in_len && in[i + 1] == '\n' ? 2 : 1;
    } else {
      uint32_t cp;
      int bad = 0;
      i += mp_utf8_decode_one(in + i, in_len - i, &cp, &bad);
      text_cp(&h, cp);
    }
  }
  if (h.href != NULL && !h.w.full)
    link_end(&h); // a link still open at the end
  if (h.w.full) {
    if (!(flags & MP_HTML_TRUNCATE) && out_cap < bound)
      return MP_ERR_BUFFER_TOO_SMALL;
    *out_flags = MP_HTML_TRUNCATED;
  }
  *out_len = h.w.len;
  return 0;
}

// Text to HTML.

size_t mp_text_to_html_max_len(size_t in_len) {
  if (in_len > (SIZE_MAX - 40) / 6)
    return SIZE_MAX;
  return 6 * in_len + 40;
}

int mp_text_to_html(char *out, size_t out_cap, size_t *out_len, const uint8_t *in, size_t in_len,
                    unsigned flags) {
  static const char div_open[] = "<div style=\"white-space:pre-wrap\">";
  static const char div_close[] = "</div>";
  if (out_len == NULL)
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if ((out == NULL && out_cap != 0) || (in == NULL && in_len != 0) ||
      (flags & ~MP_TEXT_HTML_PRE_WRAP) != 0)
    return MP_ERR_INVALID_ARGUMENT;
  bool pre = flags & MP_TEXT_HTML_PRE_WRAP;
  struct hw w = {(uint8_t *)out, out_cap, 0, false};
  if (pre)
    hw_put(&w, div_open, sizeof div_open - 1);
  bool space_before = true; // at a line start, a space must not collapse
  size_t i = 0;
  while (i < in_len && !w.full) {
    size_t j = i;
    while (j < in_len && in[j] > 0x20 && in[j] < 0x7F && in[j] != '&' && in[j] != '<' &&
           in[j] != '>' && in[j] != '"' && in[j] != '\'')
      j++;
    if (j > i) {
      hw_put(&w, in + i, j - i);
      space_before = false;
      i = j;
      continue;
    }
    uint8_t c = in[i];
    const char *esc = NULL;
    switch (c) {
    case '&':
      esc = "&amp;";
      break;
    case '<':
      esc = "&lt;";
      break;
    case '>':
      esc = "&gt;";
      break;
    case '"':
      esc = "&quot;";
      break;
    case '\'':
      esc = "&#39;";
      break;
    case '\r':
    case '\n':
      esc = pre ? "\n" : "<br>\n";
      if (c == '\r' && i + 1 < in_len && in[i + 1] == '\n')
        i++;
      hw_put(&w, esc, strlen(esc));
      space_before = true;
      i++;
      continue;
    case ' ':
      esc = !pre && space_before ? "&nbsp;" : " ";
      hw_put(&w, esc, strlen(esc));
      space_before = true;
      i++;
      continue;
    default:
      break;
    }
    space_before = false;
    if (esc != NULL) {
      hw_put(&w, esc, strlen(esc));
      i++;
      continue;
    }
    uint32_t cp;
    int bad = 0;
    i += mp_utf8_decode_one(in + i, in_len - i, &cp, &bad);
    if (cp == 0)
      cp = MP_UTF8_REPLACEMENT;
    else if ((cp < 0x20 && cp != '\t') || cp == 0x7F)
      continue;
    uint8_t buf[4];
    hw_put(&w, buf, mp_utf8_encode_one(buf, cp));
  }
  if (pre)
    hw_put(&w, div_close, sizeof div_close - 1);
  if (w.full)
    return MP_ERR_BUFFER_TOO_SMALL;
  *out_len = w.len;
  return 0;
}
