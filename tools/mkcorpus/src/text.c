// text.c: the words of a message. A body is composed once as a list of
// blocks (greeting, paragraphs of Zipf-drawn sentences, quoted text of the
// message it answers, signature) and rendered twice, as text/plain wrapped
// at 72 columns (optionally format=flowed) and as HTML, so that the two
// halves of a multipart/alternative say the same thing as they do in real
// mail.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

#define WRAP_COLUMNS 72
#define HTML_COLUMNS 76

static struct mkc_block *add_block(struct mkc_body *b, enum mkc_block_kind kind) {
  if (b->num_blocks == b->cap_blocks) {
    b->cap_blocks = b->cap_blocks ? b->cap_blocks * 2 : 32;
    b->blocks = mkc_xrealloc(b->blocks, b->cap_blocks * sizeof *b->blocks);
  }
  struct mkc_block *blk = &b->blocks[b->num_blocks++];
  blk->kind = kind;
  blk->depth = 0;
  mkc_buf_init(&blk->text);
  return blk;
}

static void add_line(struct mkc_body *b, enum mkc_block_kind kind, const char *text) {
  mkc_buf_puts(&add_block(b, kind)->text, text);
}

void mkc_body_cleanup(struct mkc_body *b) {
  for (size_t i = 0; i < b->num_blocks; i++)
    mkc_buf_cleanup(&b->blocks[i].text);
  free(b->blocks);
  b->blocks = NULL;
  b->num_blocks = b->cap_blocks = 0;
}

void mkc_text_words(struct mkc_buf *out, struct mkc_rng *r, enum mkc_lang lang, size_t n,
                    size_t first_rank) {
  bool spaced = mkc_lang(lang)->spaced;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && spaced)
      mkc_buf_putc(out, ' ');
    mkc_buf_puts(out, first_rank ? mkc_word_in_range(lang, r, first_rank) : mkc_word(lang, r));
  }
}

// Things real mail is full of and a tokenizer must cope with: numbers,
// amounts, dates, times, ticket numbers, URLs and addresses.
static void special_token(struct mkc_buf *out, struct mkc_rng *r,
                          const struct mkc_body_spec *spec) {
  static const char *const hosts[] = {"www.example.com", "intranet.example.org", "docs.example.net",
                                      "shop.example"};
  enum mkc_lang lang = spec->lang;
  bool spaced = mkc_lang(lang)->spaced;
  unsigned kind = (unsigned)mkc_rng_below(r, spaced ? 7 : 4);
  // Every token draws the same numbers, in order, whatever it uses.
  int v[3];
  mkc_rng_ints(r, v, 3, (const int[]){1, 9999, 0, 99, 0, 3});
  switch (kind) {
  case 0:
    mkc_buf_printf(out, "%d", v[0] % 2500 + 2);
    break;
  case 1:
    if (lang == MKC_LANG_JA)
      mkc_buf_printf(out, "%d円", v[0] * 50);
    else if (lang == MKC_LANG_ZH)
      mkc_buf_printf(out, "%d元", v[0] * 3);
    else if (lang == MKC_LANG_RU)
      mkc_buf_printf(out, "%d руб.", v[0] * 70);
    else if (lang == MKC_LANG_EN || !spec->euro)
      mkc_buf_printf(out, "%s%d.%02d", lang == MKC_LANG_EN ? "$" : "EUR ", v[0], v[1]);
    else
      mkc_buf_printf(out, "%d,%02d €", v[0], v[1]);
    break;
  case 2:
    mkc_buf_printf(out, "2024-%02d-%02d", v[1] % 12 + 1, v[0] % 28 + 1);
    break;
  case 3:
    mkc_buf_printf(out, "%d:%02d", v[0] % 11 + 8, 15 * v[2]);
    break;
  case 4:
    mkc_buf_printf(out, "%s-%d", v[2] < 2 ? "PROJ" : "OPS", v[0]);
    break;
  case 5:
    mkc_buf_printf(out, "https://%s/%s/%d", hosts[v[2]], v[1] < 50 ? "wiki" : "view", v[0] * 10);
    break;
  default:
    mkc_buf_printf(out, "info%d@example.org", mkc_rng_between(r, 1, 99));
    break;
  }
}

static void sentence(struct mkc_buf *out, struct mkc_rng *r, const struct mkc_body_spec *spec,
                     size_t n) {
  const struct mkc_lang_data *L = mkc_lang(spec->lang);
  bool question = mkc_rng_chance(r, 0.1);
  bool fancy = spec->typographic || !L->spaced;
  struct mkc_buf s;
  mkc_buf_init(&s);
  bool starts_with_token = false; // URLs and addresses keep their case
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && L->spaced)
      mkc_buf_putc(&s, ' ');
    if (mkc_rng_chance(r, 0.02)) {
      starts_with_token |= i == 0;
      special_token(&s, r, spec);
    } else if (mkc_rng_chance(r, 0.01)) {
      mkc_buf_puts(&s, fancy ? L->quote_open : "\"");
      mkc_buf_puts(&s, mkc_word(spec->lang, r));
      mkc_buf_puts(&s, fancy ? L->quote_close : "\"");
    } else {
      mkc_buf_puts(&s, mkc_word(spec->lang, r));
    }
    if (i + 1 < n && mkc_rng_chance(r, 0.07))
      mkc_buf_puts(&s, L->comma);
    else if (i + 1 < n && L->spaced && spec->typographic && mkc_rng_chance(r, 0.01))
      mkc_buf_puts(&s, " \u2013");
  }
  if (!starts_with_token)
    mkc_capitalize_first(s.data);
  if (question && L->question_open)
    mkc_buf_puts(out, L->question_open);
  mkc_buf_put(out, s.data, s.len);
  mkc_buf_puts(out, question ? L->question_end : L->sentence_end);
  mkc_buf_cleanup(&s);
}

static size_t sentence_length(struct mkc_rng *r) {
  double n = mkc_lognormal(r, 11.0, 0.45);
  return n < 3 ? 3 : n > 40 ? 40 : (size_t)n;
}

static void paragraph(struct mkc_buf *out, struct mkc_rng *r, const struct mkc_body_spec *spec,
                      size_t words) {
  bool spaced = mkc_lang(spec->lang)->spaced;
  while (words > 0) {
    size_t n = sentence_length(r);
    if (n > words)
      n = words;
    if (out->len && spaced)
      mkc_buf_putc(out, ' ');
    sentence(out, r, spec, n);
    words -= n;
  }
}

static void paragraphs(struct mkc_body *b, struct mkc_rng *r, const struct mkc_body_spec *spec,
                       size_t words, enum mkc_block_kind kind, unsigned depth) {
  while (words > 0) {
    double want = mkc_lognormal(r, 45.0, 0.5);
    size_t n = want < 8 ? 8 : (size_t)want;
    if (n > words || words - n < 5)
      n = words;
    struct mkc_block *blk = add_block(b, kind);
    blk->depth = depth;
    paragraph(&blk->text, r, spec, n);
    words -= n;
    if (words > 0)
      add_block(b, kind == MKC_BLOCK_QUOTE ? MKC_BLOCK_QUOTE : MKC_BLOCK_BLANK)->depth = depth;
  }
}

// Expands the language's attribution format (see struct mkc_lang_data).
static void attribution(struct mkc_buf *out, const char *fmt, int64_t date, int tz,
                        const char *name) {
  struct mkc_tm tm;
  mkc_time_split(date + (int64_t)tz * 60, &tm);
  for (const char *p = fmt; *p; p++) {
    if (*p != '%' || !p[1]) {
      mkc_buf_putc(out, *p);
      continue;
    }
    switch (*++p) {
    case 'a':
      mkc_buf_puts(out, mkc_weekday_abbr[tm.weekday]);
      break;
    case 'b':
      mkc_buf_puts(out, mkc_month_abbr[tm.month - 1]);
      break;
    case 'd':
      mkc_buf_printf(out, "%02d", tm.day);
      break;
    case 'm':
      mkc_buf_printf(out, "%02d", tm.month);
      break;
    case 'Y':
      mkc_buf_printf(out, "%04d", tm.year);
      break;
    case 'H':
      mkc_buf_printf(out, "%02d", tm.hour);
      break;
    case 'M':
      mkc_buf_printf(out, "%02d", tm.minute);
      break;
    case 'n':
      mkc_buf_puts(out, name);
      break;
    default:
      mkc_buf_putc(out, *p);
      break;
    }
  }
}

static const char *name_of(const struct mkc_person *p) {
  return p->display[0] ? p->display : p->addr;
}

// Outlook quotes by copying the header of the original under a separator;
// everyone else writes an attribution line and prefixes the text with "> ".
static void quote_parent(struct mkc_body *b, struct mkc_rng *r, const struct mkc_body_spec *spec) {
  const struct mkc_plan *plan = spec->plan;
  const struct mkc_lang_data *L = mkc_lang(spec->lang);
  size_t words = (size_t)(mkc_lognormal(r, 70.0, 0.8) * spec->scale) + 5;
  if (words > MKC_MAX_BODY_WORDS / 2)
    words = MKC_MAX_BODY_WORDS / 2;
  add_line(b, MKC_BLOCK_BLANK, "");
  if (spec->from->mua == MKC_MUA_OUTLOOK) {
    char date[64];
    mkc_format_date(date, sizeof date, plan->parent_date, plan->parent_from.tz_minutes, true);
    add_line(b, MKC_BLOCK_QUOTE_HEAD, L->original_message);
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINE)->text, "%s %s <%s>", L->original_labels[0],
                   name_of(&plan->parent_from), plan->parent_from.addr);
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINE)->text, "%s %s", L->original_labels[1], date);
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINE)->text, "%s %s", L->original_labels[2],
                   name_of(spec->from));
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINE)->text, "%s %s", L->original_labels[3],
                   plan->topic);
    add_line(b, MKC_BLOCK_BLANK, "");
    paragraphs(b, r, spec, words, MKC_BLOCK_PARA, 0);
    return;
  }
  attribution(&add_block(b, MKC_BLOCK_QUOTE_HEAD)->text, L->attribution, plan->parent_date,
              plan->parent_from.tz_minutes, name_of(&plan->parent_from));
  size_t nested = mkc_rng_chance(r, 0.3) ? words / 3 : 0;
  paragraphs(b, r, spec, words - nested, MKC_BLOCK_QUOTE, 1);
  if (nested > 0) {
    add_block(b, MKC_BLOCK_QUOTE)->depth = 1;
    paragraphs(b, r, spec, nested, MKC_BLOCK_QUOTE, 2);
  }
}

static void signature(struct mkc_body *b, struct mkc_rng *r, const struct mkc_person *from) {
  const struct mkc_lang_data *L = mkc_lang(from->lang);
  add_line(b, MKC_BLOCK_SIG_SEP, "-- ");
  add_line(b, MKC_BLOCK_SIG, from->signature);
  if (from->title && from->title[0])
    add_line(b, MKC_BLOCK_SIG, from->title);
  add_line(b, MKC_BLOCK_SIG, L->company);
  int phone[3];
  mkc_rng_ints(r, phone, 3, (const int[]){1, 86, 10, 999, 0, 9999999});
  mkc_buf_printf(&add_block(b, MKC_BLOCK_SIG)->text, "+%d %d %07d", phone[0], phone[1], phone[2]);
}

static void compose_newsletter(struct mkc_body *b, struct mkc_rng *r,
                               const struct mkc_body_spec *spec) {
  size_t sections = (size_t)mkc_rng_between(r, 2, 6);
  size_t per_section = spec->words / sections + 10;
  for (size_t i = 0; i < sections; i++) {
    struct mkc_block *h = add_block(b, MKC_BLOCK_HEADING);
    mkc_text_words(&h->text, r, spec->lang, (size_t)mkc_rng_between(r, 2, 6), 25);
    mkc_capitalize_first(h->text.data);
    paragraphs(b, r, spec, per_section, MKC_BLOCK_PARA, 0);
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINK)->text, "https://%s/n/%d",
                   mkc_person_domain(spec->from), mkc_rng_between(r, 10000, 999999));
  }
  add_line(b, MKC_BLOCK_BLANK, "");
  mkc_buf_printf(&add_block(b, MKC_BLOCK_LINK)->text, "https://%s/unsubscribe?u=%d",
                 mkc_person_domain(spec->from), mkc_rng_between(r, 100000, 9999999));
}

void mkc_body_compose(struct mkc_body *b, struct mkc_rng *r, const struct mkc_body_spec *spec) {
  const struct mkc_lang_data *L = mkc_lang(spec->lang);
  memset(b, 0, sizeof *b);
  b->lang = spec->lang;
  b->newsletter = spec->newsletter;
  b->mua = spec->from->mua;
  if (spec->newsletter) {
    compose_newsletter(b, r, spec);
    return;
  }
  bool has_quote = spec->plan && spec->plan->has_parent && mkc_rng_chance(r, 0.75);
  // Mutt users answer below the quote; everyone else mostly on top.
  bool bottom_post = has_quote && (spec->from->mua == MKC_MUA_MUTT ? mkc_rng_chance(r, 0.8)
                                                                   : mkc_rng_chance(r, 0.1));
  if (bottom_post) {
    quote_parent(b, r, spec);
    add_line(b, MKC_BLOCK_BLANK, "");
  }
  if (spec->to && mkc_rng_chance(r, 0.85)) {
    mkc_buf_printf(&add_block(b, MKC_BLOCK_LINE)->text,
                   L->greetings[mkc_rng_below(r, L->num_greetings)], spec->to->greet);
    add_line(b, MKC_BLOCK_BLANK, "");
  }
  if (L->opener) {
    add_line(b, MKC_BLOCK_LINE, L->opener);
    add_line(b, MKC_BLOCK_BLANK, "");
  }
  paragraphs(b, r, spec, spec->words, MKC_BLOCK_PARA, 0);
  add_line(b, MKC_BLOCK_BLANK, "");
  add_line(b, MKC_BLOCK_LINE, L->closings[mkc_rng_below(r, L->num_closings)]);
  add_line(b, MKC_BLOCK_LINE, spec->from->greet[0] ? spec->from->greet : spec->from->signature);
  if (mkc_rng_chance(r, 0.35))
    signature(b, r, spec->from);
  if (has_quote && !bottom_post)
    quote_parent(b, r, spec);
}

// Display columns of the UTF-8 character at `s`: East Asian wide characters
// take two, so CJK lines wrap at the same visual width as Latin ones.
static size_t char_columns(const unsigned char *s, size_t *bytes) {
  unsigned c = s[0];
  if (c < 0x80) {
    *bytes = 1;
    return 1;
  }
  *bytes = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  unsigned cp = *bytes == 3 ? ((c & 0x0F) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu) : 0;
  return (cp >= 0x1100 && cp < 0xD7A4) || (cp >= 0xF900 && cp < 0xFFE7) ? 2 : 1;
}

// Characters that may not start a line in Japanese and Chinese (kinsoku).
static bool no_line_start(const char *s) {
  static const char *const marks[] = {"。", "、", "，", "？", "！", "」", "：", "”"};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
    if (strncmp(s, marks[i], strlen(marks[i])) == 0)
      return true;
  return false;
}

// Finds where the line that starts at `start` ends: at the last space that
// keeps it within `width` columns; in scripts without spaces, before the
// character that would overflow; after an overlong word (a URL), at the next
// space, since words are never cut.
static size_t line_end(const char *text, size_t start, size_t len, size_t width, bool spaced) {
  size_t col = 0;
  size_t last_space = 0;
  for (size_t i = start; i < len;) {
    size_t bytes;
    size_t w = char_columns((const unsigned char *)text + i, &bytes);
    if (text[i] == ' ')
      last_space = i;
    if (col + w > width && i > start) {
      if (last_space > start)
        return last_space;
      if (!spaced && (unsigned char)text[i] >= 0x80 && !no_line_start(text + i))
        return i;
      if (spaced) {
        const char *space = memchr(text + i, ' ', len - i);
        return space ? (size_t)(space - text) : len;
      }
    }
    col += w;
    i += bytes;
  }
  return len;
}

void mkc_text_wrap(struct mkc_buf *out, const char *text, size_t len, const char *prefix,
                   size_t width, bool flowed, bool spaced) {
  size_t pos = 0;
  do {
    size_t end = line_end(text, pos, len, width, spaced);
    mkc_buf_puts(out, prefix);
    // RFC 3676 4.4: lines that could be mistaken for quotes or mbox
    // separators are space-stuffed in format=flowed.
    if (flowed && !prefix[0] &&
        (text[pos] == ' ' || text[pos] == '>' ||
         (len - pos >= 5 && memcmp(text + pos, "From ", 5) == 0)))
      mkc_buf_putc(out, ' ');
    mkc_buf_put(out, text + pos, end - pos);
    // A soft break keeps its space at the end of the line in format=flowed.
    if (end < len && flowed && text[end] == ' ')
      mkc_buf_putc(out, ' ');
    mkc_buf_puts(out, "\r\n");
    pos = end;
    if (pos < len && text[pos] == ' ')
      pos++;
  } while (pos < len);
}

static void quote_prefix(char *out, size_t cap, unsigned depth) {
  size_t n = 0;
  for (unsigned i = 0; i < depth && n + 2 < cap; i++)
    out[n++] = '>';
  if (depth)
    out[n++] = ' ';
  out[n] = '\0';
}

void mkc_body_render_plain(const struct mkc_body *b, struct mkc_buf *out, bool flowed) {
  bool spaced = mkc_lang(b->lang)->spaced;
  for (size_t i = 0; i < b->num_blocks; i++) {
    const struct mkc_block *blk = &b->blocks[i];
    char prefix[16];
    switch (blk->kind) {
    case MKC_BLOCK_PARA:
      mkc_text_wrap(out, blk->text.data, blk->text.len, "", WRAP_COLUMNS, flowed, spaced);
      break;
    case MKC_BLOCK_QUOTE:
      quote_prefix(prefix, sizeof prefix, blk->depth);
      if (blk->text.len)
        mkc_text_wrap(out, blk->text.data, blk->text.len, prefix, WRAP_COLUMNS, flowed, spaced);
      else
        mkc_buf_printf(out, "%.*s\r\n", (int)blk->depth, ">>>>>>>>");
      break;
    case MKC_BLOCK_HEADING:
      mkc_buf_put(out, blk->text.data, blk->text.len);
      mkc_buf_puts(out, "\r\n======\r\n");
      break;
    case MKC_BLOCK_QUOTE_HEAD:
      mkc_text_wrap(out, blk->text.data, blk->text.len, "", WRAP_COLUMNS + 4, false, spaced);
      break;
    default:
      mkc_buf_put(out, blk->text.data, blk->text.len);
      mkc_buf_puts(out, "\r\n");
      break;
    }
  }
}

static void html_escape(struct mkc_buf *out, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    switch (s[i]) {
    case '&':
      mkc_buf_puts(out, "&amp;");
      break;
    case '<':
      mkc_buf_puts(out, "&lt;");
      break;
    case '>':
      mkc_buf_puts(out, "&gt;");
      break;
    case '"':
      mkc_buf_puts(out, "&quot;");
      break;
    default:
      mkc_buf_putc(out, s[i]);
      break;
    }
  }
}

static void html_wrapped(struct mkc_buf *out, const char *open, const struct mkc_buf *text,
                         const char *close, bool spaced) {
  struct mkc_buf escaped;
  mkc_buf_init(&escaped);
  html_escape(&escaped, text->data, text->len);
  mkc_buf_puts(out, open);
  mkc_buf_puts(out, "\r\n");
  if (escaped.len)
    mkc_text_wrap(out, escaped.data, escaped.len, "", HTML_COLUMNS, false, spaced);
  mkc_buf_puts(out, close);
  mkc_buf_puts(out, "\r\n");
  mkc_buf_cleanup(&escaped);
}

// How each kind of sender marks up the same blocks. Outlook's Word-generated
// HTML and newsletters' table layouts are several times the size of their
// text, which is much of why real HTML mail is as large as it is.
struct html_style {
  const char *head; // after the charset <meta>
  const char *body_open;
  const char *body_close;
  const char *para_open;
  const char *para_close;
  const char *line_open;
  const char *line_close;
  const char *blank;
  const char *quote_open;
  const char *quote_close;
  const char *heading_open;
  const char *heading_close;
};

static const struct html_style plain_style = {
    .head = "",
    .body_open = "<body>\r\n",
    .body_close = "</body>\r\n",
    .para_open = "<p>",
    .para_close = "</p>",
    .line_open = "<div>",
    .line_close = "</div>",
    .blank = "<div><br></div>\r\n",
    .quote_open = "<blockquote type=\"cite\" style=\"margin: 0 0 0 .8ex; border-left: 1px solid "
                  "#ccc; padding-left: 1ex\">\r\n",
    .quote_close = "</blockquote>\r\n",
    .heading_open = "<h2>",
    .heading_close = "</h2>",
};

static const struct html_style outlook_style = {
    .head = "<meta name=\"Generator\" content=\"Microsoft Word 15 (filtered medium)\">\r\n"
            "<style><!--\r\n"
            "/* Font Definitions */\r\n"
            "@font-face\r\n\t{font-family:\"Cambria Math\";\r\n\tpanose-1:2 4 5 3 5 4 6 3 2 4;}\r\n"
            "@font-face\r\n\t{font-family:Calibri;\r\n\tpanose-1:2 15 5 2 2 2 4 3 2 4;}\r\n"
            "/* Style Definitions */\r\n"
            "p.MsoNormal, li.MsoNormal, div.MsoNormal\r\n"
            "\t{margin:0cm;\r\n\tfont-size:11.0pt;\r\n\tfont-family:\"Calibri\",sans-serif;}\r\n"
            "a:link, span.MsoHyperlink\r\n"
            "\t{mso-style-priority:99;\r\n\tcolor:#0563C1;\r\n\ttext-decoration:underline;}\r\n"
            "span.EmailStyle19\r\n"
            "\t{mso-style-type:personal-reply;\r\n\tfont-family:\"Calibri\",sans-serif;\r\n"
            "\tcolor:windowtext;}\r\n"
            ".MsoChpDefault\r\n\t{mso-style-type:export-only;\r\n\tfont-size:10.0pt;}\r\n"
            "@page WordSection1\r\n"
            "\t{size:612.0pt 792.0pt;\r\n\tmargin:72.0pt 72.0pt 72.0pt 72.0pt;}\r\n"
            "div.WordSection1\r\n\t{page:WordSection1;}\r\n"
            "--></style>\r\n",
    .body_open = "<body lang=\"EN-US\" link=\"#0563C1\" vlink=\"#954F72\" "
                 "style=\"word-wrap:break-word\">\r\n<div class=\"WordSection1\">\r\n",
    .body_close = "</div>\r\n</body>\r\n",
    .para_open = "<p class=\"MsoNormal\">",
    .para_close = "<o:p></o:p></p>",
    .line_open = "<p class=\"MsoNormal\">",
    .line_close = "<o:p></o:p></p>",
    .blank = "<p class=\"MsoNormal\"><o:p>&nbsp;</o:p></p>\r\n",
    .quote_open = "<div style=\"border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm "
                  "0cm\">\r\n",
    .quote_close = "</div>\r\n",
    .heading_open = "<p class=\"MsoNormal\"><b>",
    .heading_close = "</b><o:p></o:p></p>",
};

static const struct html_style gmail_style = {
    .head = "",
    .body_open = "<body>\r\n<div dir=\"ltr\">\r\n",
    .body_close = "</div>\r\n</body>\r\n",
    .para_open = "<div>",
    .para_close = "</div><div><br></div>",
    .line_open = "<div>",
    .line_close = "</div>",
    .blank = "<div><br></div>\r\n",
    .quote_open = "<div class=\"gmail_quote\"><blockquote class=\"gmail_quote\" style=\"margin:0px "
                  "0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex\">\r\n",
    .quote_close = "</blockquote></div>\r\n",
    .heading_open = "<div><b>",
    .heading_close = "</b></div>",
};

static const struct html_style newsletter_style = {
    .head = "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">\r\n"
            "<style type=\"text/css\">\r\n"
            "body { margin: 0; padding: 0; background-color: #f4f4f4; }\r\n"
            "table { border-collapse: collapse; }\r\n"
            "td.section { padding: 8px 32px; font-family: Georgia, serif; font-size: 16px; "
            "line-height: 1.6; color: #333333; }\r\n"
            "td.title { padding: 24px 32px 8px 32px; font-family: Helvetica, Arial, sans-serif; "
            "font-size: 22px; color: #111111; }\r\n"
            "a.button { display: inline-block; background-color: #0066cc; color: #ffffff; "
            "padding: 10px 18px; border-radius: 4px; text-decoration: none; }\r\n"
            "@media only screen and (max-width: 620px) { table.main { width: 100% !important; } "
            "}\r\n"
            "</style>\r\n",
    .body_open = "<body>\r\n<table class=\"main\" width=\"600\" cellpadding=\"0\" "
                 "cellspacing=\"0\" border=\"0\" align=\"center\" bgcolor=\"#ffffff\">\r\n"
                 "<tr><td style=\"padding: 20px 32px; background-color: #20232a;\">"
                 "<img src=\"https://cdn.example.net/newsletter/logo.png\" width=\"180\" "
                 "height=\"40\" alt=\"\" style=\"display: block; border: 0;\"></td></tr>\r\n",
    .body_close = "<tr><td class=\"section\" style=\"font-size: 12px; color: #888888;\">"
                  "You receive this newsletter because you subscribed to it.<br>\r\n"
                  "Example Street 1, 12345 Example City</td></tr>\r\n</table>\r\n</body>\r\n",
    .para_open = "<tr><td class=\"section\">",
    .para_close = "</td></tr>",
    .line_open = "<tr><td class=\"section\">",
    .line_close = "</td></tr>",
    .blank = "<tr><td height=\"16\" style=\"font-size: 0; line-height: 0;\">&nbsp;</td></tr>\r\n",
    .quote_open = "",
    .quote_close = "",
    .heading_open = "<tr><td class=\"title\">",
    .heading_close = "</td></tr>",
};

static const struct html_style *style_of(const struct mkc_body *b) {
  if (b->newsletter)
    return &newsletter_style;
  if (b->mua == MKC_MUA_OUTLOOK)
    return &outlook_style;
  if (b->mua == MKC_MUA_GMAIL)
    return &gmail_style;
  return &plain_style;
}

static void html_head(struct mkc_buf *out, const char *charset_label, const struct html_style *st,
                      bool outlook) {
  mkc_buf_puts(out, outlook ? "<html xmlns:v=\"urn:schemas-microsoft-com:vml\" "
                              "xmlns:o=\"urn:schemas-microsoft-com:office:office\">\r\n"
                            : "<!DOCTYPE html>\r\n<html>\r\n");
  mkc_buf_puts(out, "<head>\r\n");
  mkc_buf_printf(out, "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=%s\">\r\n",
                 charset_label);
  mkc_buf_puts(out, st->head);
  mkc_buf_puts(out, "</head>\r\n");
  mkc_buf_puts(out, st->body_open);
}

static void html_images(struct mkc_buf *out, const char *const *cids, size_t n) {
  for (size_t i = 0; i < n; i++)
    mkc_buf_printf(out, "<div><img src=\"cid:%s\" alt=\"image%zu\" width=\"%zu\"></div>\r\n",
                   cids[i], i + 1, 120 + 40 * i);
}

static void html_block(struct mkc_buf *out, const struct mkc_block *blk, bool *in_quote,
                       const struct html_style *st, bool spaced) {
  bool quote = blk->kind == MKC_BLOCK_QUOTE;
  if (quote && !*in_quote)
    mkc_buf_puts(out, st->quote_open);
  if (!quote && *in_quote)
    mkc_buf_puts(out, st->quote_close);
  *in_quote = quote;
  switch (blk->kind) {
  case MKC_BLOCK_BLANK:
    mkc_buf_puts(out, st->blank);
    break;
  case MKC_BLOCK_PARA:
  case MKC_BLOCK_QUOTE:
    if (blk->text.len)
      html_wrapped(out, st->para_open, &blk->text, st->para_close, spaced);
    break;
  case MKC_BLOCK_HEADING:
    html_wrapped(out, st->heading_open, &blk->text, st->heading_close, spaced);
    break;
  case MKC_BLOCK_LINK:
    mkc_buf_printf(out, "%s<a class=\"button\" href=\"", st->line_open);
    html_escape(out, blk->text.data, blk->text.len);
    mkc_buf_printf(out, "\">&raquo;</a>%s\r\n", st->line_close);
    break;
  case MKC_BLOCK_SIG_SEP:
    mkc_buf_printf(out, "%s-- %s\r\n", st->line_open, st->line_close);
    break;
  default:
    html_wrapped(out, st->line_open, &blk->text, st->line_close, spaced);
    break;
  }
}

void mkc_body_render_html(const struct mkc_body *b, struct mkc_buf *out, const char *charset_label,
                          const char *const *image_cids, size_t num_images) {
  const struct html_style *st = style_of(b);
  bool spaced = mkc_lang(b->lang)->spaced;
  html_head(out, charset_label, st, st == &outlook_style);
  bool in_quote = false;
  bool images_done = num_images == 0;
  for (size_t i = 0; i < b->num_blocks; i++) {
    // Images go where people paste them: before the signature and quote.
    bool tail = b->blocks[i].kind == MKC_BLOCK_SIG_SEP || b->blocks[i].kind == MKC_BLOCK_QUOTE_HEAD;
    if (!images_done && tail) {
      html_images(out, image_cids, num_images);
      images_done = true;
    }
    html_block(out, &b->blocks[i], &in_quote, st, spaced);
  }
  if (in_quote)
    mkc_buf_puts(out, st->quote_close);
  if (!images_done)
    html_images(out, image_cids, num_images);
  mkc_buf_puts(out, st->body_close);
  mkc_buf_puts(out, "</html>\r\n");
}
