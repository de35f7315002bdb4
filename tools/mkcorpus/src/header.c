// header.c: writing header fields the way RFC 5322, 2047 and 2231 want them:
// folded at 78 columns between tokens, non-ASCII text as encoded words of at
// most 75 characters that never split a character, long or non-ASCII
// parameters as RFC 2231 sections, and dates computed without the C library's
// time zone or locale machinery.
#include <stdio.h>
#include <string.h>

#include "mkcorpus_internal.h"

#define EW_MAX 75      // RFC 2047 2: an encoded word is at most 75 characters
#define SECTION_MAX 64 // characters of one RFC 2231 section's value

const char *const mkc_weekday_abbr[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
const char *const mkc_month_abbr[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

void mkc_hdr_begin(struct mkc_hdr *h, struct mkc_buf *out, const char *name) {
  h->out = out;
  h->fold = " ";
  h->at_start = true;
  h->force_break = false;
  mkc_buf_puts(out, name);
  mkc_buf_putc(out, ':');
  h->column = strlen(name) + 1;
}

void mkc_hdr_token(struct mkc_hdr *h, const char *tok, size_t len) {
  // The first token stays on the field name's line: a value that starts with
  // a line break confuses more readers than a long first line does.
  // One column stays free for the ';' or ',' that may be glued on after.
  if (!h->at_start && (h->force_break || h->column + 1 + len + 1 > MKC_HEADER_WIDTH)) {
    mkc_buf_puts(h->out, "\r\n");
    mkc_buf_puts(h->out, h->fold);
    h->column = strlen(h->fold);
  } else {
    mkc_buf_putc(h->out, ' ');
    h->column++;
  }
  mkc_buf_put(h->out, tok, len);
  h->column += len;
  h->at_start = false;
  h->force_break = false;
}

void mkc_hdr_tok(struct mkc_hdr *h, const char *tok) {
  mkc_hdr_token(h, tok, strlen(tok));
}

void mkc_hdr_glue(struct mkc_hdr *h, const char *s) {
  mkc_buf_puts(h->out, s);
  h->column += strlen(s);
}

void mkc_hdr_break(struct mkc_hdr *h) {
  h->force_break = true;
}

void mkc_hdr_words(struct mkc_hdr *h, const char *text) {
  while (*text) {
    while (*text == ' ')
      text++;
    size_t len = strcspn(text, " ");
    if (len)
      mkc_hdr_token(h, text, len);
    text += len;
  }
}

void mkc_hdr_end(struct mkc_hdr *h) {
  mkc_buf_puts(h->out, "\r\n");
}

void mkc_hdr_simple(struct mkc_buf *out, const char *name, const char *value) {
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, name);
  mkc_hdr_words(&h, value);
  mkc_hdr_end(&h);
}

static size_t utf8_char_len(const char *s) {
  unsigned char c = (unsigned char)*s;
  size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  for (size_t i = 1; i < n; i++)
    if (s[i] == '\0')
      return i;
  return n;
}

// RFC 2047 5: in a phrase only letters, digits and "!*+-/" may stay literal;
// unstructured text may also keep harmless punctuation.
static bool q_literal(unsigned char c, enum mkc_ew_context ctx) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return true;
  if (c && strchr("!*+-/", c))
    return true;
  return ctx == MKC_EW_TEXT && c && strchr(".,:;'", c);
}

static void ew_payload(struct mkc_buf *out, const unsigned char *p, size_t n, char enc,
                       enum mkc_ew_context ctx) {
  static const char hex[] = "0123456789ABCDEF";
  if (enc == 'B') {
    mkc_base64(out, p, n, 0);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    if (p[i] == ' ') {
      mkc_buf_putc(out, '_');
    } else if (q_literal(p[i], ctx)) {
      mkc_buf_putc(out, (char)p[i]);
    } else {
      char code[3] = {'=', hex[p[i] >> 4], hex[p[i] & 15]};
      mkc_buf_put(out, code, 3);
    }
  }
}

// Appends one encoded word for utf8[0..len) to `out`; false if unconvertible.
static bool encode_word(struct mkc_buf *out, const char *utf8, size_t len, enum mkc_charset cs,
                        char enc, enum mkc_ew_context ctx, bool upper) {
  struct mkc_buf bytes;
  mkc_buf_init(&bytes);
  bool ok = mkc_charset_convert(cs, utf8, len, &bytes);
  if (ok) {
    mkc_buf_printf(out, "=?%s?%c?", mkc_charset_label(cs, upper), enc);
    ew_payload(out, (const unsigned char *)bytes.data, bytes.len, enc, ctx);
    mkc_buf_puts(out, "?=");
  }
  mkc_buf_cleanup(&bytes);
  return ok;
}

// Splits `utf8` into the fewest encoded words of at most EW_MAX characters
// (the first at most `first_max`), cutting only between characters so each
// word decodes on its own. The words go to `words`, NUL-separated.
static bool encode_words(struct mkc_buf *words, const char *utf8, enum mkc_charset cs, char enc,
                         enum mkc_ew_context ctx, bool upper, size_t first_max) {
  struct mkc_buf word;
  mkc_buf_init(&word);
  size_t total = strlen(utf8);
  size_t start = 0;
  bool ok = true;
  while (ok && start < total) {
    size_t end = start + utf8_char_len(utf8 + start);
    word.len = 0;
    ok = encode_word(&word, utf8 + start, end - start, cs, enc, ctx, upper);
    while (ok && end < total) {
      size_t next = end + utf8_char_len(utf8 + end);
      struct mkc_buf longer;
      mkc_buf_init(&longer);
      ok = encode_word(&longer, utf8 + start, next - start, cs, enc, ctx, upper);
      bool fits = ok && longer.len <= (words->len == 0 ? first_max : EW_MAX);
      if (fits) {
        mkc_buf_cleanup(&word);
        word = longer;
        end = next;
      } else {
        mkc_buf_cleanup(&longer);
        break;
      }
    }
    if (ok) {
      mkc_buf_put(words, word.data, word.len);
      mkc_buf_putc(words, '\0');
    }
    start = end;
  }
  mkc_buf_cleanup(&word);
  return ok;
}

bool mkc_hdr_encoded(struct mkc_hdr *h, const char *utf8, enum mkc_charset cs, char enc,
                     enum mkc_ew_context ctx, bool upper) {
  // The first word shares the field name's line, which cannot be folded
  // before it; it gets what is left of that line. Not in a phrase, though:
  // Python (3.11) keeps the space between two encoded words of a display
  // name, against RFC 2047 6.2, so a name stays in one word when it can.
  size_t first_max = EW_MAX;
  if (ctx == MKC_EW_TEXT && h->at_start && h->column + 1 + 24 <= MKC_HEADER_WIDTH &&
      MKC_HEADER_WIDTH - h->column - 1 < EW_MAX)
    first_max = MKC_HEADER_WIDTH - h->column - 1;
  struct mkc_buf words;
  mkc_buf_init(&words);
  bool ok = encode_words(&words, utf8, cs, enc, ctx, upper, first_max);
  for (size_t pos = 0; ok && pos < words.len;) {
    size_t len = strlen(words.data + pos);
    mkc_hdr_token(h, words.data + pos, len);
    pos += len + 1;
  }
  mkc_buf_cleanup(&words);
  return ok;
}

// The longest run of whole ASCII words at the start of `s`, so "Re: " and
// "[list] " stay readable in front of the encoded words, as mail programs
// write them. Returns the length up to (not including) the separating space.
static size_t ascii_lead(const char *s) {
  size_t lead = 0;
  for (size_t i = 0; s[i] && (unsigned char)s[i] < 0x80; i++)
    if (s[i] == ' ')
      lead = i;
  return lead;
}

enum mkc_charset mkc_hdr_text(struct mkc_hdr *h, const char *utf8, enum mkc_charset cs, char enc,
                              enum mkc_ew_context ctx, bool upper) {
  if (mkc_is_ascii(utf8, strlen(utf8))) {
    mkc_hdr_words(h, utf8);
    return MKC_CS_COUNT;
  }
  // In a phrase the lead could hold specials such as the comma of
  // "Dubois, Élodie"; display names are encoded whole.
  size_t lead = ctx == MKC_EW_TEXT ? ascii_lead(utf8) : 0;
  if (lead > 0) {
    char plain[MKC_SUBJECT_MAX];
    mkc_copy_str(plain, lead + 1 < sizeof plain ? lead + 1 : sizeof plain, utf8);
    mkc_hdr_words(h, plain);
    utf8 += lead + 1;
  }
  if (cs != MKC_CS_US_ASCII && mkc_hdr_encoded(h, utf8, cs, enc, ctx, upper))
    return cs;
  mkc_hdr_encoded(h, utf8, MKC_CS_UTF_8, enc, ctx, upper);
  return MKC_CS_UTF_8;
}

static bool is_token_char(unsigned char c) {
  return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?=", c);
}

void mkc_hdr_param(struct mkc_hdr *h, const char *name, const char *value, bool quote) {
  for (const char *p = value; *p && !quote; p++)
    quote = !is_token_char((unsigned char)*p);
  struct mkc_buf tok;
  mkc_buf_init(&tok);
  mkc_buf_printf(&tok, quote ? "%s=\"" : "%s=", name);
  for (const char *p = value; *p; p++) {
    if (*p == '"' || *p == '\\')
      mkc_buf_putc(&tok, '\\');
    mkc_buf_putc(&tok, *p);
  }
  if (quote)
    mkc_buf_putc(&tok, '"');
  mkc_hdr_glue(h, ";");
  mkc_hdr_token(h, tok.data, tok.len);
  mkc_buf_cleanup(&tok);
}

// RFC 2231 attribute-char, minus the punctuation some readers mishandle.
static bool pct_literal(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

// Percent-encodes `bytes`, recording after which output positions a section
// may end: only between characters of the original text, so that every
// section decodes on its own (Python decodes them one by one).
static void pct_encode(struct mkc_buf *out, const char *bytes, size_t len, bool utf8) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)bytes[i];
    if (pct_literal(c)) {
      mkc_buf_putc(out, (char)c);
    } else {
      char code[3] = {'%', hex[c >> 4], hex[c & 15]};
      mkc_buf_put(out, code, 3);
    }
    bool boundary = !utf8 || i + 1 == len || ((unsigned char)bytes[i + 1] & 0xC0) != 0x80;
    if (boundary)
      mkc_buf_putc(out, '\x01'); // marker, removed when sections are cut
  }
}

static void param_sections_ascii(struct mkc_hdr *h, const char *name, const char *value) {
  size_t len = strlen(value);
  unsigned section = 0;
  for (size_t pos = 0; pos < len; section++) {
    size_t n = len - pos < SECTION_MAX - 4 ? len - pos : SECTION_MAX - 4;
    struct mkc_buf tok;
    mkc_buf_init(&tok);
    mkc_buf_printf(&tok, "%s*%u=\"", name, section);
    for (size_t i = 0; i < n; i++) {
      if (value[pos + i] == '"' || value[pos + i] == '\\')
        mkc_buf_putc(&tok, '\\');
      mkc_buf_putc(&tok, value[pos + i]);
    }
    mkc_buf_putc(&tok, '"');
    mkc_hdr_glue(h, ";");
    mkc_hdr_token(h, tok.data, tok.len);
    mkc_buf_cleanup(&tok);
    pos += n;
  }
}

static void param_sections_extended(struct mkc_hdr *h, const char *name, const char *marked,
                                    size_t marked_len, const char *initial) {
  unsigned section = 0;
  size_t pos = 0;
  while (pos < marked_len) {
    struct mkc_buf tok;
    mkc_buf_init(&tok);
    mkc_buf_printf(&tok, "%s*%u*=%s", name, section, section == 0 ? initial : "");
    // Section 0 also carries charset'language', so its value gets less room.
    size_t room = section == 0 ? SECTION_MAX - strlen(initial) : SECTION_MAX;
    size_t cut = pos; // end of the last whole character that fits
    size_t chars = 0;
    for (size_t i = pos; i < marked_len; i++) {
      if (marked[i] == '\x01') {
        cut = i + 1;
        continue;
      }
      if (++chars > room && cut > pos)
        break;
    }
    if (cut == pos)
      cut = marked_len;
    for (size_t i = pos; i < cut; i++)
      if (marked[i] != '\x01')
        mkc_buf_putc(&tok, marked[i]);
    mkc_hdr_glue(h, ";");
    mkc_hdr_token(h, tok.data, tok.len);
    mkc_buf_cleanup(&tok);
    pos = cut;
    section++;
  }
}

void mkc_hdr_param_2231(struct mkc_hdr *h, const char *name, const char *utf8, enum mkc_charset cs,
                        const char *lang) {
  size_t len = strlen(utf8);
  if (mkc_is_ascii(utf8, len)) {
    if (strlen(name) + len + 3 <= SECTION_MAX + 8)
      mkc_hdr_param(h, name, utf8, true);
    else
      param_sections_ascii(h, name, utf8);
    return;
  }
  struct mkc_buf bytes, marked, initial;
  mkc_buf_init(&bytes);
  mkc_buf_init(&marked);
  mkc_buf_init(&initial);
  if (!mkc_charset_convert(cs, utf8, len, &bytes)) {
    cs = MKC_CS_UTF_8;
    mkc_buf_put(&bytes, utf8, len);
  }
  pct_encode(&marked, bytes.data, bytes.len, cs == MKC_CS_UTF_8);
  mkc_buf_printf(&initial, "%s'%s'", mkc_charset_name(cs), lang ? lang : "");
  size_t encoded_len = 0;
  for (size_t i = 0; i < marked.len; i++)
    encoded_len += marked.data[i] != '\x01';
  if (strlen(name) + 2 + initial.len + encoded_len <= SECTION_MAX + 8) {
    struct mkc_buf tok;
    mkc_buf_init(&tok);
    mkc_buf_printf(&tok, "%s*=%s", name, mkc_buf_cstr(&initial));
    for (size_t i = 0; i < marked.len; i++)
      if (marked.data[i] != '\x01')
        mkc_buf_putc(&tok, marked.data[i]);
    mkc_hdr_glue(h, ";");
    mkc_hdr_token(h, tok.data, tok.len);
    mkc_buf_cleanup(&tok);
  } else {
    param_sections_extended(h, name, marked.data, marked.len, mkc_buf_cstr(&initial));
  }
  mkc_buf_cleanup(&bytes);
  mkc_buf_cleanup(&marked);
  mkc_buf_cleanup(&initial);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

void mkc_time_split(int64_t t, struct mkc_tm *out) {
  int64_t days = floor_div(t, 86400);
  int64_t secs = t - days * 86400;
  out->hour = (int)(secs / 3600);
  out->minute = (int)(secs / 60 % 60);
  out->second = (int)(secs % 60);
  out->weekday = (int)((days % 7 + 11) % 7); // 1970-01-01 was a Thursday
  // Proleptic Gregorian civil date from a day count (eras of 400 years).
  int64_t z = days + 719468;
  int64_t era = floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  out->day = (int)(doy - (153 * mp + 2) / 5 + 1);
  out->month = (int)(mp < 10 ? mp + 3 : mp - 9);
  out->year = (int)(yoe + era * 400 + (out->month <= 2));
}

void mkc_format_date(char *out, size_t cap, int64_t utc, int tz_minutes, bool pad_day) {
  struct mkc_tm tm;
  mkc_time_split(utc + (int64_t)tz_minutes * 60, &tm);
  int offset = tz_minutes < 0 ? -tz_minutes : tz_minutes;
  snprintf(out, cap,
           pad_day ? "%s, %02d %s %04d %02d:%02d:%02d %c%02d%02d"
                   : "%s, %d %s %04d %02d:%02d:%02d %c%02d%02d",
           mkc_weekday_abbr[tm.weekday], tm.day, mkc_month_abbr[tm.month - 1], tm.year, tm.hour,
           tm.minute, tm.second, tz_minutes < 0 ? '-' : '+', offset / 60, offset % 60);
}

void mkc_format_asctime(char *out, size_t cap, int64_t utc) {
  struct mkc_tm tm;
  mkc_time_split(utc, &tm);
  snprintf(out, cap, "%s %s %2d %02d:%02d:%02d %04d", mkc_weekday_abbr[tm.weekday],
           mkc_month_abbr[tm.month - 1], tm.day, tm.hour, tm.minute, tm.second, tm.year);
}
