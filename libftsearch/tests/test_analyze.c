// test_analyze.c: the text analyzer (src/analyze.c) and language detection
// (src/lang_detect.c, src/lang_model.c): one test per analysis rule with
// every term and position spelled out, invalid UTF-8, limits, accent
// folding, the ASCII fast path against the utf8proc path on random text,
// detection of each language on sentences written for this test, and
// analyzers used from several threads at once.
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "corvid_libtest.h"
#include "corvid_test_asan.h"
#include "corvid_utf8_valid.h"
#include "ftsearch.h"

// A rendering of the terms: "word@pos" for words, "~stem@pos" for stems,
// separated by single spaces.
struct collect {
  char *buf;
  size_t len, cap;
  uint32_t count;
  int stop_after; // >0: return 7 from the callback after this many terms
};

static int collect_fn(void *ctx, const fts_term *t) {
  struct collect *c = ctx;
  if (t->len == 0 || !corvid_utf8_valid(t->bytes, t->len))
    ck_abort_msg("empty or ill-formed term at position %u", t->position);
  size_t need = c->len + t->len + 16;
  if (need > c->cap) {
    c->cap = need * 2;
    c->buf = realloc(c->buf, c->cap);
    if (c->buf == NULL)
      ck_abort_msg("out of memory");
  }
  int w = snprintf(c->buf + c->len, c->cap - c->len, "%s%s%.*s@%u", c->len ? " " : "",
                   t->kind == FTS_TERM_STEM ? "~" : "", (int)t->len, (const char *)t->bytes,
                   t->position);
  c->len += (size_t)w;
  c->count++;
  if (c->stop_after > 0 && c->count == (uint32_t)c->stop_after)
    return 7;
  return 0;
}

// analyze_str runs `a` (or a default analyzer) over `text` with `lang` and
// returns the rendering (malloc'd); *rc gets fts_analyze's status.
static char *analyze_str(fts_analyzer *a, const char *lang, const char *text, size_t len, int *rc) {
  fts_analyzer *own = NULL;
  if (a == NULL) {
    ck_assert_int_eq(fts_analyzer_new(&own, NULL), 0);
    a = own;
  }
  struct collect c = {0};
  c.buf = calloc(1, 1);
  int r = fts_analyze(a, lang, (const uint8_t *)text, len, collect_fn, &c);
  if (rc != NULL)
    *rc = r;
  else
    ck_assert_int_eq(r, 0);
  fts_analyzer_free(own);
  return c.buf;
}

#define EXPECT_LANG(a, lang, text, want)                                                           \
  do {                                                                                             \
    char *got_ = analyze_str((a), (lang), (text), strlen(text), NULL);                             \
    ck_assert_str_eq(got_, (want));                                                                \
    free(got_);                                                                                    \
  } while (0)
#define EXPECT(text, want) EXPECT_LANG(NULL, "en", text, want)

START_TEST(plain_words_and_positions) {
  EXPECT("Hello, World!", "hello@0 world@1");
  EXPECT("  the quick\tbrown\r\nfox  ", "the@0 quick@1 brown@2 fox@3");
  EXPECT("", "");
  EXPECT("... !!! ---", "");
  EXPECT("abc123 42", "abc123@0 42@1");
  // Quotes and other punctuation around words separate them.
  EXPECT("'quoted' \"twice\" (paren) [x]", "quoted@0 ~quot@0 twice@1 paren@2 x@3");
  // Non-letter symbols (emoji, currency, math) separate words too.
  EXPECT("a\xe2\x82\xac"
         "b 5$ x+y=z",
         "a@0 b@1 5@2 x@3 y@4 z@5");
}
END_TEST

START_TEST(english_stems) {
  EXPECT("Running quickly", "running@0 ~run@0 quickly@1 ~quick@1");
  EXPECT("cats and dogs", "cats@0 ~cat@0 and@1 dogs@2 ~dog@2");
  // A stem equal to its word is not repeated; numbers are not stemmed.
  EXPECT("cat 2024", "cat@0 2024@1");
}
END_TEST

START_TEST(unicode_normalisation) {
  // NFKC: the ligature, full-width letters and the decomposed é compose.
  EXPECT_LANG(NULL, "", "\xef\xac\x81ne \xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3 cafe\xcc\x81",
              "fine@0 abc@1 caf\xc3\xa9@2");
  // Full case folding: Straße and STRASSE meet.
  EXPECT_LANG(NULL, "de",
              "STRASSE Stra\xc3\x9f"
              "e",
              "strasse@0 ~strass@0 strasse@1 ~strass@1");
  // Greek capitals fold (to σ, never ς, so both spellings meet).
  EXPECT_LANG(NULL, "el", "\xce\x9f\xce\x94\xce\x9f\xce\xa3 \xce\xbf\xce\xb4\xce\xbf\xcf\x82",
              "\xce\xbf\xce\xb4\xce\xbf\xcf\x83@0 ~\xce\xbf\xce\xb4@0 "
              "\xce\xbf\xce\xb4\xce\xbf\xcf\x83@1 ~\xce\xbf\xce\xb4@1");
  // Default ignorables vanish (soft hyphen, zero-width joiner), NBSP is a
  // space, a circled digit is a digit, a parenthesised one loses its
  // parentheses.
  EXPECT("infor\xc2\xad"
         "mation a\xc2\xa0"
         "b x\xe2\x80\x8dy \xe2\x91\xa0 \xe2\x91\xb5",
         "information@0 ~inform@0 a@1 b@2 xy@3 1@4 2@5");
  // Letters outside Latin keep their script; Cyrillic folds.
  EXPECT_LANG(NULL, "ru", "\xd0\x9c\xd0\x9e\xd0\xa1\xd0\x9a\xd0\x92\xd0\x90",
              "\xd0\xbc\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0@0 "
              "~\xd0\xbc\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2@0");
}
END_TEST

START_TEST(apostrophes) {
  // Whole, joined, then the parts: "don't" and "dont" and "don" all find it.
  EXPECT("I don't know", "i@0 don't@1 dont@1 don@1 t@2 know@3");
  // French elision: "homme" alone finds "l'homme".
  EXPECT_LANG(NULL, "fr", "l'homme", "l'homme@0 lhomme@0 l@0 homme@1 ~homm@1");
  // U+2019 is written as '.
  EXPECT("it\xe2\x80\x99s", "it's@0 its@0 it@0 s@1");
  // Not between letters: a quote.
  EXPECT("'tis rock'n'roll' x'", "tis@0 rock'n'roll@1 rocknroll@1 rock@1 n@2 roll@3 x@4");
}
END_TEST

START_TEST(hyphens) {
  EXPECT("e-mail", "e-mail@0 email@0 e@0 mail@1");
  EXPECT("state-of-the-art design",
         "state-of-the-art@0 stateoftheart@0 state@0 of@1 the@2 art@3 design@4");
  // A doubled, leading or trailing hyphen is a separator; so is the dash.
  EXPECT("a--b pre- -x c\xe2\x80\x94"
         "d",
         "a@0 b@1 pre@2 x@3 c@4 d@5");
  // Underscore and U+2010 HYPHEN join like the hyphen (written -).
  EXPECT("snake_case x\xe2\x80\x90y", "snake_case@0 snakecase@0 snake@0 case@1 x-y@2 xy@2 x@2 y@3");
  // Digits: dates are compounds.
  EXPECT("2024-01-15", "2024-01-15@0 20240115@0 2024@0 01@1 15@2");
}
END_TEST

START_TEST(numbers) {
  EXPECT("pi is 3.14", "pi@0 is@1 3.14@2");
  EXPECT("1,000,000 people", "1,000,000@0 people@1 ~peopl@1");
  EXPECT("v1.2.3 1.2.3", "v1.2.3@0 v1@0 2@1 3@2 1.2.3@3");
  // A comma joins digits only; a colon never joins.
  EXPECT("a,b 1,b 10:30 end.", "a@0 b@1 1@2 b@3 10@4 30@5 end@6");
}
END_TEST

START_TEST(dotted_words) {
  EXPECT("node.js e.g. U.S.A.", "node.js@0 node@0 js@1 e.g@2 e@2 g@3 u.s.a@4 u@4 s@5 a@6");
  EXPECT("www.example.org", "www.example.org@0 www@0 example@1 ~exampl@1 org@2");
  EXPECT("end. Next", "end@0 next@1");
}
END_TEST

START_TEST(email_addresses) {
  EXPECT("Mail alice@example.com.",
         "mail@0 alice@example.com@1 alice@1 ~alic@1 example@2 ~exampl@2 com@3");
  EXPECT("<Bob.Smith@mail.example-corp.org>",
         "bob.smith@mail.example-corp.org@0 bob@0 smith@1 mail@2 example@3 ~exampl@3 corp@4 "
         "org@5");
  // One @ per address; a second one starts a new token.
  EXPECT("a@b@c", "a@b@0 a@0 b@1 c@2");
  EXPECT("@home me@ x", "home@0 me@1 x@2");
}
END_TEST

START_TEST(urls) {
  EXPECT("See https://www.Example.com/Foo-bar?x=1.",
         "see@0 https://www.example.com/foo-bar?x=1@1 www@1 example@2 ~exampl@2 com@3 foo@4 "
         "bar@5 x@6 1@7");
  EXPECT("(see http://example.com/a)",
         "see@0 http://example.com/a@1 example@1 ~exampl@1 com@2 a@3");
  EXPECT("ftp://files.example.net/pub/x.tar.gz, then",
         "ftp://files.example.net/pub/x.tar.gz@0 files@0 ~file@0 example@1 ~exampl@1 net@2 pub@3 "
         "x@4 tar@5 gz@6 then@7");
  // No word after the scheme: not a URL.
  EXPECT("http:// x", "http@0 x@1");
  EXPECT("HTTP://X.ORG", "http://x.org@0 x@0 org@1");
}
END_TEST

START_TEST(cjk_bigrams) {
  // 日本語のテキスト: overlapping bigrams, one position each.
  EXPECT("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
         "\xe6\x97\xa5\xe6\x9c\xac@0 \xe6\x9c\xac\xe8\xaa\x9e@1");
  // A lone character is a unigram; Latin words around keep counting.
  EXPECT("abc \xe4\xb8\xad def", "abc@0 \xe4\xb8\xad@1 def@2");
  EXPECT("abc\xe6\x97\xa5\xe6\x9c\xac"
         "def",
         "abc@0 \xe6\x97\xa5\xe6\x9c\xac@1 def@2");
  // Hangul and Katakana; half-width Katakana is normalised to full width.
  EXPECT("\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4 \xef\xbd\xb6\xef\xbe\x80",
         "\xed\x95\x9c\xea\xb5\xad@0 \xea\xb5\xad\xec\x96\xb4@1 \xe3\x82\xab\xe3\x82\xbf@2");
  // CJK punctuation (、。) separates runs.
  EXPECT("\xe4\xb8\xad\xe3\x80\x82\xe6\x96\x87", "\xe4\xb8\xad@0 \xe6\x96\x87@1");
}
END_TEST

// Thai, Lao, Khmer and Myanmar: bigrams of letters with their marks.
START_TEST(southeast_asian_bigrams) {
  // กิน ข้าว: ก+ิ and ข+้ keep their vowel sign and tone mark.
  EXPECT_LANG(NULL, "th",
              "\xe0\xb8\x81\xe0\xb8\xb4\xe0\xb8\x99 "
              "\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\xa7",
              "\xe0\xb8\x81\xe0\xb8\xb4\xe0\xb8\x99@0 "
              "\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xb2@1 \xe0\xb8\xb2\xe0\xb8\xa7@2");
  // A lone letter; Latin next to Thai; Thai and Han are separate runs.
  EXPECT_LANG(NULL, "th",
              "\xe0\xb8\x81 abc\xe0\xb8\x81\xe0\xb8\x82"
              "def",
              "\xe0\xb8\x81@0 abc@1 \xe0\xb8\x81\xe0\xb8\x82@2 def@3");
  EXPECT_LANG(NULL, "th", "\xe0\xb8\x81\xe4\xb8\xad", "\xe0\xb8\x81@0 \xe4\xb8\xad@1");
  // SARA AM decomposes under NFKC (U+0E4D U+0E32): the mark stays with ก.
  EXPECT_LANG(NULL, "th", "\xe0\xb8\x81\xe0\xb8\xb3", "\xe0\xb8\x81\xe0\xb9\x8d\xe0\xb8\xb2@0");
}
END_TEST

START_TEST(invalid_utf8) {
  static const struct {
    const char *in;
    size_t len;
    const char *want;
  } cases[] = {
      {"\xff"
       "abc",
       4, "abc@0"},
      {"ab\xff"
       "cd",
       5, "ab@0 cd@1"},
      {"ab\xc3", 3, "ab@0"},                // truncated at the end
      {"x\xc0\xafy", 4, "x@0 y@1"},         // overlong '/'
      {"x\xed\xa0\x80y", 5, "x@0 y@1"},     // surrogate
      {"x\xf4\x90\x80\x80y", 6, "x@0 y@1"}, // above U+10FFFF
      {"caf\xc3\xa9\x80"
       "x",
       7, "caf\xc3\xa9@0 x@1"}, // stray continuation byte
      {"a\0b", 3, "a@0 b@1"},   // NUL is a separator
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *got = analyze_str(NULL, "en", cases[i].in, cases[i].len, NULL);
    ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: got '%s' want '%s'", i, got,
                  cases[i].want);
    free(got);
  }
}
END_TEST

static fts_analyzer *new_analyzer(uint32_t flags, uint32_t max_term_bytes, uint32_t max_terms) {
  fts_analyzer_settings s = {
      .flags = flags, .max_term_bytes = max_term_bytes, .max_terms = max_terms};
  fts_analyzer *a = NULL;
  ck_assert_int_eq(fts_analyzer_new(&a, &s), 0);
  ck_assert_ptr_nonnull(a);
  return a;
}

START_TEST(term_length_limit) {
  fts_analyzer *a = new_analyzer(FTS_ANALYZE_NO_STEMS, 8, 0);
  // 8 bytes are kept, 9 are dropped but keep their position.
  EXPECT_LANG(a, "en", "abcdefgh abcdefghi x", "abcdefgh@0 x@2");
  // The limit counts normalised bytes: é is two.
  EXPECT_LANG(a, "en",
              "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
              "e",
              "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9@0");
  // A compound too long as a whole still gives its parts.
  EXPECT_LANG(a, "en", "alpha-beta-gamma", "alpha@0 beta@1 gamma@2");
  EXPECT_LANG(a, "en", "ab-cd", "ab-cd@0 abcd@0 ab@0 cd@1");
  EXPECT_LANG(a, "en", "http://example.com/a", "example@0 com@1 a@2");
  fts_analyzer_free(a);
  // The default is 64.
  char word[66];
  memset(word, 'a', 65);
  word[65] = 0;
  EXPECT(word, "");
  word[64] = 0;
  char want[80];
  snprintf(want, sizeof want, "%s@0", word);
  EXPECT(word, want);
}
END_TEST

START_TEST(term_count_limit) {
  fts_analyzer *a = new_analyzer(0, 0, 5);
  int rc;
  char *got = analyze_str(a, "en", "one two three four", 18, &rc);
  ck_assert_int_eq(rc, 0);
  free(got);
  // Exactly five terms are delivered, then FTS_ERR_LIMIT.
  got = analyze_str(a, "en", "one two cats dogs six", 21, &rc);
  ck_assert_int_eq(rc, FTS_ERR_LIMIT);
  ck_assert_str_eq(got, "one@0 two@1 cats@2 ~cat@2 dogs@3");
  free(got);
  fts_analyzer_free(a);
}
END_TEST

START_TEST(callback_stops) {
  fts_analyzer *a = new_analyzer(0, 0, 0);
  struct collect c = {.buf = calloc(1, 1), .stop_after = 2};
  ck_assert_int_eq(fts_analyze(a, "en", (const uint8_t *)"a b c d", 7, collect_fn, &c), 7);
  ck_assert_str_eq(c.buf, "a@0 b@1");
  free(c.buf);
  fts_analyzer_free(a);
}
END_TEST

START_TEST(bad_arguments) {
  fts_analyzer *a = NULL;
  fts_analyzer_settings s = {.flags = 0x100};
  ck_assert_int_eq(fts_analyzer_new(NULL, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_analyzer_new(&a, &s), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(a);
  s = (fts_analyzer_settings){.max_term_bytes = FTS_ANALYZE_MAX_TERM_BYTES + 1};
  ck_assert_int_eq(fts_analyzer_new(&a, &s), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_analyzer_new(&a, NULL), 0);
  struct collect c = {.buf = calloc(1, 1)};
  ck_assert_int_eq(fts_analyze(NULL, "en", (const uint8_t *)"x", 1, collect_fn, &c),
                   FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_analyze(a, "en", (const uint8_t *)"x", 1, NULL, &c),
                   FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_analyze(a, "en", NULL, 1, collect_fn, &c), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_analyze(a, "en", NULL, 0, collect_fn, &c), 0);
  ck_assert_int_eq(fts_analyze(a, "xx", (const uint8_t *)"x", 1, collect_fn, &c),
                   FTS_ERR_UNSUPPORTED);
  ck_assert_int_eq(fts_analyze(a, "english", (const uint8_t *)"x", 1, collect_fn, &c),
                   FTS_ERR_UNSUPPORTED);
  ck_assert_str_eq(c.buf, "");
  char out[4] = "zz";
  ck_assert_int_eq(fts_language_detect(NULL, 1, out), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_language_detect((const uint8_t *)"x", 1, NULL), FTS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(fts_language_detect(NULL, 0, out), 0);
  ck_assert_str_eq(out, "");
  free(c.buf);
  fts_analyzer_free(a);
  fts_analyzer_free(NULL);
}
END_TEST

START_TEST(accent_folding) {
  fts_analyzer *a = new_analyzer(FTS_ANALYZE_FOLD_ACCENTS | FTS_ANALYZE_NO_STEMS, 0, 0);
  EXPECT_LANG(a, "fr", "caf\xc3\xa9 Caf\xc3\x89 cafe\xcc\x81 cafe", "cafe@0 cafe@1 cafe@2 cafe@3");
  EXPECT_LANG(a, "es", "ni\xc3\xb1o na\xc3\xafve \xc3\xa8\xc3\xa9\xc3\xaa", "nino@0 naive@1 eee@2");
  // Letters without a canonical decomposition, one at a time, lower and
  // upper case: ø æ œ þ ł đ ð ħ ŧ, and ß (by full case folding); then
  // inside longer words and with a mark (ǿ is ø with an acute).
  EXPECT_LANG(a, "da", "\xc3\xb8l \xc3\x98L", "ol@0 ol@1");
  EXPECT_LANG(a, "da",
              "\xc3\xa6"
              "ble \xc3\x86"
              "BLE",
              "aeble@0 aeble@1");
  EXPECT_LANG(a, "fr", "c\xc5\x93ur C\xc5\x92UR", "coeur@0 coeur@1");
  EXPECT_LANG(a, "en", "\xc3\xbeing \xc3\x9eING", "thing@0 thing@1");
  EXPECT_LANG(a, "pl",
              "\xc5\x82\xc3\xb3"
              "d\xc5\xba \xc5\x81\xc3\x93"
              "D\xc5\xb9",
              "lodz@0 lodz@1");
  EXPECT_LANG(a, "en",
              "\xc4\x91"
              "ak \xc4\x90"
              "AK",
              "dak@0 dak@1");
  EXPECT_LANG(a, "en", "ve\xc3\xb0ur VE\xc3\x90UR", "vedur@0 vedur@1");
  EXPECT_LANG(a, "en", "\xc4\xa7ob\xc5\xbc \xc4\xa6OB\xc5\xbb", "hobz@0 hobz@1");
  EXPECT_LANG(a, "en",
              "\xc5\xa7"
              "ak \xc5\xa6"
              "AK",
              "tak@0 tak@1");
  EXPECT_LANG(a, "de",
              "stra\xc3\x9f"
              "e STRA\xe1\xba\x9e"
              "E",
              "strasse@0 strasse@1");
  EXPECT_LANG(a, "da",
              "s\xc3\xb8ster k\xc7\xbf"
              "benhavn",
              "soster@0 kobenhavn@1");
  fts_analyzer_free(a);
  // Without the flag accents stay, and so do these letters.
  a = new_analyzer(FTS_ANALYZE_NO_STEMS, 0, 0);
  EXPECT_LANG(a, "fr", "caf\xc3\xa9 cafe", "caf\xc3\xa9@0 cafe@1");
  EXPECT_LANG(a, "da",
              "\xc3\x98l \xc3\xa6"
              "ble",
              "\xc3\xb8l@0 \xc3\xa6"
              "ble@1");
  fts_analyzer_free(a);
}
END_TEST

START_TEST(no_stems_flag) {
  fts_analyzer *a = new_analyzer(FTS_ANALYZE_NO_STEMS, 0, 0);
  EXPECT_LANG(a, "en", "running cats", "running@0 cats@1");
  fts_analyzer_free(a);
}
END_TEST

START_TEST(languages_and_stemmers) {
  fts_analyzer *a = new_analyzer(0, 0, 0);
  ck_assert_str_eq(fts_analyzer_language(a), "");
  EXPECT_LANG(a, "de", "Kinder", "kinder@0 ~kind@0");
  ck_assert_str_eq(fts_analyzer_language(a), "de");
  EXPECT_LANG(a, "fr", "continuellement", "continuellement@0 ~continuel@0");
  EXPECT_LANG(a, "nb", "hus husene", "hus@0 husene@1 ~hus@1");
  ck_assert_str_eq(fts_analyzer_language(a), "no");
  // "" is English; a language without a stemmer gives words only.
  EXPECT_LANG(a, "", "cats", "cats@0 ~cat@0");
  ck_assert_str_eq(fts_analyzer_language(a), "en");
  EXPECT_LANG(a, "pl", "koty", "koty@0");
  // NULL detects: German text gets German stems.
  EXPECT_LANG(a, NULL, "Die Kinder spielen heute im Garten",
              "die@0 kinder@1 ~kind@1 spielen@2 ~spiel@2 heute@3 ~heut@3 im@4 garten@5 ~gart@5");
  ck_assert_str_eq(fts_analyzer_language(a), "de");
  // Too short to tell: English.
  EXPECT_LANG(a, NULL, "cats", "cats@0 ~cat@0");
  ck_assert_str_eq(fts_analyzer_language(a), "en");
  // Every Snowball language named in the header has a working stemmer.
  static const char *const snowball[] = {"ar", "ca", "da", "de", "el", "en", "es", "eu", "fi", "fr",
                                         "ga", "hi", "hu", "hy", "id", "it", "lt", "ne", "nl", "no",
                                         "nn", "pt", "ro", "ru", "sr", "sv", "ta", "tr", "yi"};
  for (size_t i = 0; i < sizeof snowball / sizeof snowball[0]; i++) {
    int rc;
    char *got = analyze_str(a, snowball[i], "word", 4, &rc);
    ck_assert_msg(rc == 0, "%s: %d", snowball[i], rc);
    free(got);
  }
  fts_analyzer_free(a);
}
END_TEST

START_TEST(stream_safe_marks) {
  // A letter with 100 combining marks keeps 30 of them (each 2 bytes).
  size_t n = 1 + 100 * 2;
  char *text = malloc(n);
  text[0] = 'x';
  for (size_t i = 0; i < 100; i++)
    memcpy(text + 1 + 2 * i, "\xcc\x80", 2); // U+0300 COMBINING GRAVE
  fts_analyzer *a = new_analyzer(FTS_ANALYZE_NO_STEMS, 4096, 0);
  char *got = analyze_str(a, "en", text, n, NULL);
  // "x" + 30 marks, NFKC composes x+grave? No: x has no precomposed form.
  ck_assert_uint_eq(strlen(got), 1 + 30 * 2 + 2);
  free(got);
  fts_analyzer_free(a);
  free(text);
}
END_TEST

static int count_fn(void *ctx, const fts_term *t) {
  (void)t;
  (*(uint64_t *)ctx)++;
  return 0;
}

// Hostile input in several shapes; quadratic work on 2 MiB would exceed the
// test's timeout by far.
START_TEST(linear_work_on_hostile_input) {
  static const char *const patterns[] = {
      "a-", "a@", "a.", "1,", "\xcc\x80", "\xe0\xbd\xb3", "http://a", "\xe6\x97\xa5", "a'", "\xff"};
  size_t n = 2u << 20;
  char *text = malloc(n);
  fts_analyzer *a = new_analyzer(0, 0, 0xFFFFFFFFu);
  for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
    size_t pl = strlen(patterns[k]);
    for (size_t i = 0; i < n; i++)
      text[i] = patterns[k][i % pl];
    uint64_t count = 0;
    int rc = fts_analyze(a, "en", (const uint8_t *)text, n, count_fn, &count);
    ck_assert_msg(rc == 0, "pattern %zu: %d", k, rc);
    // U+FFFD alone gives no term, nor does a number or a run of marks
    // (U+0F73 is two) longer than a term.
    bool none = patterns[k][0] == (char)0xff || patterns[k][0] == '1' || k == 5;
    ck_assert_msg(none || count > 0, "pattern %zu: no term", k);
  }
  fts_analyzer_free(a);
  free(text);
}
END_TEST

// Idempotence over every code point: each one, alone and in four contexts
// (after a letter, between letters, after a hyphen, after a CJK character),
// gives words that, analysed again, come back first at position 0 and give
// nothing that was not there. _i selects accent folding.
struct small_terms {
  uint8_t bytes[16][80];
  size_t len[16];
  uint32_t pos[16];
  int n;
};

static int small_fn(void *ctx, const fts_term *t) {
  struct small_terms *s = ctx;
  if (s->n == 16 || t->len > 80)
    return 1; // more or longer terms than one code point can give
  memcpy(s->bytes[s->n], t->bytes, t->len);
  s->len[s->n] = t->len;
  s->pos[s->n] = t->position;
  s->n++;
  return 0;
}

static size_t put_utf8(uint8_t *o, uint32_t c) {
  if (c < 0x80) {
    o[0] = (uint8_t)c;
    return 1;
  } else if (c < 0x800) {
    o[0] = (uint8_t)(0xC0 | c >> 6);
    o[1] = (uint8_t)(0x80 | (c & 63));
    return 2;
  } else if (c < 0x10000) {
    o[0] = (uint8_t)(0xE0 | c >> 12);
    o[1] = (uint8_t)(0x80 | ((c >> 6) & 63));
    o[2] = (uint8_t)(0x80 | (c & 63));
    return 3;
  }
  o[0] = (uint8_t)(0xF0 | c >> 18);
  o[1] = (uint8_t)(0x80 | ((c >> 12) & 63));
  o[2] = (uint8_t)(0x80 | ((c >> 6) & 63));
  o[3] = (uint8_t)(0x80 | (c & 63));
  return 4;
}

// Sanitizer builds take every fifth code point, to stay quick.
#define CODE_POINT_STEP (CORVID_UNDER_ASAN ? 5 : 1)

START_TEST(every_code_point_idempotent) {
  static const char *const ctx[][2] = {
      {"", ""}, {"a", ""}, {"a", "b"}, {"x-", "y"}, {"\xe4\xb8\xad", ""}};
  fts_analyzer *a = new_analyzer(FTS_ANALYZE_NO_STEMS | (_i ? FTS_ANALYZE_FOLD_ACCENTS : 0), 0, 0);
  for (uint32_t c = 0x80; c < 0x110000; c += CODE_POINT_STEP) {
    if (c >= 0xD800 && c < 0xE000)
      continue;
    for (size_t k = 0; k < sizeof ctx / sizeof ctx[0]; k++) {
      uint8_t in[16];
      size_t n = strlen(ctx[k][0]);
      memcpy(in, ctx[k][0], n);
      n += put_utf8(in + n, c);
      memcpy(in + n, ctx[k][1], strlen(ctx[k][1]));
      n += strlen(ctx[k][1]);
      // Plain ifs, not ck_assert: Check reports every passed assertion to
      // its parent process, and there are millions here.
      struct small_terms first = {0};
      if (fts_analyze(a, "en", in, n, small_fn, &first) != 0)
        ck_abort_msg("U+%04X in context %zu: analysis failed", (unsigned)c, k);
      for (int i = 0; i < first.n; i++) {
        struct small_terms again = {0};
        if (fts_analyze(a, "en", first.bytes[i], first.len[i], small_fn, &again) != 0 ||
            again.n == 0 || again.pos[0] != 0 || again.len[0] != first.len[i] ||
            memcmp(again.bytes[0], first.bytes[i], first.len[i]) != 0)
          ck_abort_msg("U+%04X in context %zu: term %d changes when analysed again", (unsigned)c, k,
                       i);
        for (int j = 0; j < again.n; j++) {
          bool found = false;
          for (int m = 0; m < first.n && !found; m++)
            found = first.len[m] == again.len[j] &&
                    memcmp(first.bytes[m], again.bytes[j], again.len[j]) == 0;
          if (!found)
            ck_abort_msg("U+%04X in context %zu: new term when analysed again", (unsigned)c, k);
        }
      }
    }
  }
  fts_analyzer_free(a);
}
END_TEST

// xorshift64: a small deterministic generator for the differential tests.
static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

// The ASCII fast path must give byte for byte what utf8proc gives: random
// ASCII text built from letters of both cases, digits, every joiner, URL
// pieces, white space and controls.
START_TEST(ascii_fast_path_matches_utf8proc) {
  static const char *const pieces[] = {
      "a",    "B",    "z",    "Q",  "0",  "9",       "-",        "_",       "'",
      ".",    ",",    "@",    ":",  "/",  "?",       "=",        "&",       "(",
      ")",    " ",    "\t",   "\n", "\r", "http://", "HTTPS://", "ftp://",  "www.",
      ".com", "\x01", "\x7f", "!",  "\"", "%",       "~",        "Running", "cats"};
  fts_analyzer *fast = new_analyzer(0, 16, 0), *slow = new_analyzer(0, 16, 0);
  fts_analyzer_set_ascii_fast_path(slow, false);
  uint64_t seed = 0x9E3779B97F4A7C15u;
  char text[256];
  for (int iter = 0; iter < 10000; iter++) {
    size_t n = 0, want = rnd(&seed) % 64;
    while (n < want) {
      const char *p = pieces[rnd(&seed) % (sizeof pieces / sizeof pieces[0])];
      size_t pl = strlen(p);
      memcpy(text + n, p, pl);
      n += pl;
    }
    char *f = analyze_str(fast, "en", text, n, NULL);
    char *s = analyze_str(slow, "en", text, n, NULL);
    ck_assert_msg(strcmp(f, s) == 0, "text '%.*s': fast '%s' utf8proc '%s'", (int)n, text, f, s);
    free(f);
    free(s);
  }
  fts_analyzer_free(fast);
  fts_analyzer_free(slow);
}
END_TEST

// Each sentence was written for this test in its language.
static const struct {
  const char *lang, *text;
} sentences[] = {
    {"en", "The weather was lovely yesterday, so we went for a long walk along the river and had "
           "lunch at a small cafe. I will send you the report tomorrow morning because I did not "
           "have time to finish it today."},
    {"de",
     "Gestern war das Wetter sehr schön, deshalb sind wir lange am Fluss spazieren gegangen "
     "und haben in einem kleinen Café gegessen. Ich schicke dir den Bericht morgen früh, weil "
     "ich heute keine Zeit hatte, ihn fertig zu machen."},
    {"fr",
     "Hier, il faisait très beau, alors nous avons fait une longue promenade le long de la "
     "rivière et nous avons déjeuné dans un petit café. Je t'enverrai le rapport demain matin "
     "parce que je n'ai pas eu le temps de le terminer aujourd'hui."},
    {"es",
     "Ayer hizo muy buen tiempo, así que dimos un largo paseo por el río y comimos en una "
     "pequeña cafetería. Te enviaré el informe mañana por la mañana porque hoy no tuve tiempo "
     "de terminarlo."},
    {"it",
     "Ieri il tempo era bellissimo, così abbiamo fatto una lunga passeggiata lungo il fiume e "
     "abbiamo pranzato in un piccolo bar. Ti manderò il rapporto domani mattina perché oggi "
     "non ho avuto il tempo di finirlo."},
    {"nl", "Gisteren was het prachtig weer, dus hebben we een lange wandeling langs de rivier "
           "gemaakt en in een klein café geluncht. Ik stuur je het verslag morgenochtend, omdat ik "
           "vandaag geen tijd had om het af te maken."},
    {"pt", "Ontem o tempo estava ótimo, então fizemos uma longa caminhada ao longo do rio e "
           "almoçamos num pequeno café. Vou te enviar o relatório amanhã de manhã porque hoje não "
           "tive tempo de terminá-lo."},
    {"sv", "Igår var vädret underbart, så vi tog en lång promenad längs ån och åt lunch på ett "
           "litet kafé. Jag skickar rapporten till dig i morgon bitti eftersom jag inte hann bli "
           "klar med den i dag."},
    {"no", "I går var været nydelig, så vi tok en lang tur langs elva og spiste lunsj på en liten "
           "kafé. Jeg sender deg rapporten i morgen tidlig, fordi jeg ikke rakk å gjøre den ferdig "
           "i dag."},
    {"da",
     "I går var vejret dejligt, så vi gik en lang tur langs åen og spiste frokost på en lille "
     "café. Jeg sender dig rapporten i morgen tidlig, fordi jeg ikke nåede at gøre den færdig "
     "i dag."},
    {"fi", "Eilen sää oli todella kaunis, joten teimme pitkän kävelyn joen varrella ja söimme "
           "lounasta pienessä kahvilassa. Lähetän sinulle raportin huomenna aamulla, koska minulla "
           "ei ollut tänään aikaa saada sitä valmiiksi."},
    {"ru", "Вчера была прекрасная погода, поэтому мы долго гуляли вдоль реки и пообедали в "
           "маленьком кафе. Я пришлю тебе отчёт завтра утром, потому что сегодня у меня не было "
           "времени его закончить."},
    {"tr", "Dün hava çok güzeldi, bu yüzden nehir boyunca uzun bir yürüyüş yaptık ve küçük bir "
           "kafede öğle yemeği yedik. Raporu sana yarın sabah göndereceğim çünkü bugün bitirmeye "
           "vaktim olmadı."},
    {"hu", "Tegnap nagyon szép idő volt, ezért hosszan sétáltunk a folyó mentén, és egy kis "
           "kávézóban ebédeltünk. Holnap reggel elküldöm neked a jelentést, mert ma nem volt időm "
           "befejezni."},
    {"ro",
     "Ieri vremea a fost foarte frumoasă, așa că am făcut o plimbare lungă de-a lungul "
     "râului și am luat prânzul la o cafenea mică. Îți trimit raportul mâine dimineață pentru "
     "că azi nu am avut timp să-l termin."},
    {"ca", "Ahir va fer molt bon temps, així que vam fer una llarga passejada pel riu i vam dinar "
           "en una cafeteria petita. T'enviaré l'informe demà al matí perquè avui no he tingut "
           "temps d'acabar-lo."},
    {"eu", "Atzo eguraldi oso ona egin zuen, eta horregatik ibaiaren ondoan ibilaldi luze bat egin "
           "genuen eta kafetegi txiki batean bazkaldu genuen. Txostena bihar goizean bidaliko "
           "dizut, gaur ez baitut denborarik izan amaitzeko."},
    {"ga", "Bhí an aimsir go hálainn inné, agus mar sin chuamar ar shiúlóid fhada cois na habhann "
           "agus d'itheamar lón i gcaifé beag. Seolfaidh mé an tuarascáil chugat maidin amárach "
           "mar ní raibh am agam í a chríochnú inniu."},
    {"id", "Kemarin cuacanya sangat indah, jadi kami berjalan-jalan di sepanjang sungai dan makan "
           "siang di sebuah kafe kecil. Saya akan mengirimkan laporan itu kepadamu besok pagi "
           "karena hari ini saya tidak sempat menyelesaikannya."},
    {"lt", "Vakar oras buvo labai gražus, todėl mes ilgai vaikščiojome palei upę ir pietavome "
           "mažoje kavinėje. Ataskaitą tau atsiųsiu rytoj ryte, nes šiandien neturėjau laiko jos "
           "baigti."},
    {"sr", "Јуче је време било веома лепо, па смо дуго шетали поред реке и ручали у једном малом "
           "кафићу. Послаћу ти извештај сутра ујутру, јер данас нисам имао времена да га завршим."},
    {"el", "Χθες ο καιρός ήταν υπέροχος, οπότε κάναμε μια μεγάλη βόλτα δίπλα στο ποτάμι και "
           "φάγαμε σε ένα μικρό καφέ."},
    {"hi", "कल मौसम बहुत अच्छा था, इसलिए हम नदी के किनारे लंबी सैर पर गए और एक छोटे कैफे में "
           "खाना खाया। मैं आपको रिपोर्ट कल सुबह भेजूंगा क्योंकि आज मेरे पास समय नहीं था।"},
    {"ne", "हिजो मौसम धेरै राम्रो थियो, त्यसैले हामी नदीको किनारमा लामो हिँडाइमा गयौं र एउटा "
           "सानो क्याफेमा खाना खायौं। म तपाईंलाई भोलि बिहान प्रतिवेदन पठाउँछु किनभने आज मसँग "
           "समय थिएन।"},
    {"ar", "كان الطقس جميلا جدا أمس، لذلك تمشينا طويلا على ضفة النهر وتناولنا الغداء في مقهى "
           "صغير. سأرسل لك التقرير صباح الغد لأنه لم يكن لدي وقت لإنهائه اليوم."},
    {"hy", "Երեկ եղանակը շատ լավն էր, այդ պատճառով մենք երկար զբոսնեցինք գետի ափով։"},
    {"ta", "நேற்று வானிலை மிகவும் நன்றாக இருந்தது, அதனால் நாங்கள் ஆற்றங்கரையில் நீண்ட நடை "
           "சென்றோம்."},
    {"yi", "נעכטן איז דאָס וועטער געווען זייער שיין, און מיר זענען לאַנג געגאַנגען שפּאַצירן "
           "לענג־אויס דעם טייך."},
    {"bg", "Вчера времето беше много хубаво, затова се разходихме дълго покрай реката и "
           "обядвахме в едно малко кафене."},
    {"uk", "Вчора була чудова погода, тому ми довго гуляли вздовж річки і пообідали в маленькому "
           "кафе."},
    {"pl", "Wczoraj pogoda była piękna, więc poszliśmy na długi spacer wzdłuż rzeki i zjedliśmy "
           "obiad w małej kawiarni. Wyślę ci raport jutro rano, bo dzisiaj nie miałem czasu go "
           "skończyć."},
    {"cs", "Včera bylo krásné počasí, takže jsme se dlouho procházeli podél řeky a obědvali jsme v "
           "malé kavárně. Pošlu ti zprávu zítra ráno, protože jsem dnes neměl čas ji dokončit."},
    {"sk", "Včera bolo krásne počasie, takže sme sa dlho prechádzali popri rieke a obedovali sme v "
           "malej kaviarni. Pošlem ti správu zajtra ráno, pretože som dnes nemal čas ju dokončiť."},
    {"he", "אתמול מזג האוויר היה נפלא, אז טיילנו לאורך הנהר ואכלנו ארוחת צהריים בבית קפה קטן."},
    {"fa", "دیروز هوا خیلی خوب بود، برای همین در کنار رودخانه قدم زدیم و در یک کافه کوچک ناهار "
           "خوردیم."},
    {"ja",
     "昨日はとても良い天気だったので、川沿いを長く散歩して、小さなカフェで昼ご飯を食べました。"},
    {"ko", "어제는 날씨가 아주 좋아서 강을 따라 오래 산책하고 작은 카페에서 점심을 먹었습니다."},
    {"zh", "昨天天气很好，所以我们沿着河边散步了很久，然后在一家小咖啡馆吃了午饭。"},
    {"th", "เมื่อวานอากาศดีมาก เราจึงเดินเล่นริมแม่น้ำเป็นเวลานาน"},
    {"ka", "გუშინ ამინდი ძალიან კარგი იყო, ამიტომ მდინარის გასწვრივ დიდხანს ვისეირნეთ."},
};

START_TEST(language_detection) {
  const char *lang = sentences[_i].lang, *text = sentences[_i].text;
  char out[4] = "zz";
  ck_assert_int_eq(fts_language_detect((const uint8_t *)text, strlen(text), out), 0);
  ck_assert_msg(strcmp(out, lang) == 0, "%s detected as '%s'", lang, out);
}
END_TEST

START_TEST(language_detection_first_sentence) {
  const char *lang = sentences[_i].lang, *text = sentences[_i].text;
  // Up to the end of the first sentence (". " or the Devanagari danda).
  const char *end = strstr(text, ". ");
  const char *danda = strstr(text, "\xe0\xa5\xa4");
  if (danda != NULL && (end == NULL || danda < end))
    end = danda;
  size_t n = end ? (size_t)(end - text) : strlen(text);
  char out[4];
  ck_assert_int_eq(fts_language_detect((const uint8_t *)text, n, out), 0);
  ck_assert_msg(strcmp(out, lang) == 0, "%s detected as '%s' on '%.*s'", lang, out, (int)n, text);
}
END_TEST

// Long text: 40 copies of both sentences (8 KiB and more) of each language
// with a Latin alphabet, where detection may stop reading early.
START_TEST(language_detection_long_text) {
  const char *lang = sentences[_i].lang, *text = sentences[_i].text;
  size_t len = strlen(text);
  char *big = malloc(40 * (len + 1));
  ck_assert_ptr_nonnull(big);
  for (int k = 0; k < 40; k++) {
    memcpy(big + k * (len + 1), text, len);
    big[k * (len + 1) + len] = '\n';
  }
  char out[4];
  ck_assert_int_eq(fts_language_detect((const uint8_t *)big, 40 * (len + 1), out), 0);
  ck_assert_msg(strcmp(out, lang) == 0, "%s detected as '%s'", lang, out);
  free(big);
}
END_TEST

// Mail mixes scripts: the language of the body wins over a signature.
START_TEST(language_detection_mixed_scripts) {
  static const struct {
    const char *lang, *text;
  } cases[] = {
      {"ja", "明日の会議は十時からです。よろしくお願いします。\n-- \nJohn Smith, Sales Director, "
             "Acme Widgets Inc."},
      {"zh", "明天的会议十点开始，请准时参加。\n-- \nJohn Smith, Sales Director, Acme Widgets"},
      {"ru", "Привет! Встреча завтра в десять утра, не опаздывай.\n-- \nIvan Petrov, Acme Widgets "
             "Inc."},
      {"de", "Hallo Anna, das Treffen ist morgen um zehn Uhr. Viele Grüße\n-- \nBoris Иванов"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[4];
    ck_assert_int_eq(
        fts_language_detect((const uint8_t *)cases[i].text, strlen(cases[i].text), out), 0);
    ck_assert_msg(strcmp(out, cases[i].lang) == 0, "case %zu: '%s', want %s", i, out,
                  cases[i].lang);
  }
}
END_TEST

START_TEST(language_detection_too_short) {
  static const char *const texts[] = {"", "ok", "Hi Bob", "12345 67890", "!!! ???", "x y"};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    char out[4] = "zz";
    ck_assert_int_eq(fts_language_detect((const uint8_t *)texts[i], strlen(texts[i]), out), 0);
    ck_assert_msg(out[0] == 0, "'%s' detected as '%s'", texts[i], out);
  }
}
END_TEST

// Thread-safety statement: analyzers are independent; several threads, each
// with its own analyzer, get exactly what one thread gets, and
// fts_language_detect may run anywhere at once.
struct thread_job {
  const char *text;
  char *result;
  char lang[4];
};

static void *thread_main(void *arg) {
  struct thread_job *job = arg;
  fts_analyzer *a = NULL;
  if (fts_analyzer_new(&a, NULL) != 0)
    return NULL;
  for (int i = 0; i < 50; i++) {
    struct collect c = {.buf = calloc(1, 1)};
    if (fts_analyze(a, NULL, (const uint8_t *)job->text, strlen(job->text), collect_fn, &c) != 0 ||
        fts_language_detect((const uint8_t *)job->text, strlen(job->text), job->lang) != 0) {
      free(c.buf);
      break;
    }
    free(job->result);
    job->result = c.buf;
  }
  fts_analyzer_free(a);
  return NULL;
}

START_TEST(threads_with_own_analyzers) {
  enum { N = 6 };
  pthread_t t[N];
  struct thread_job jobs[N] = {0};
  for (int i = 0; i < N; i++) {
    jobs[i].text = sentences[i % 3].text;
    ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
  }
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < N; i++) {
    char *want = analyze_str(NULL, NULL, jobs[i].text, strlen(jobs[i].text), NULL);
    ck_assert_ptr_nonnull(jobs[i].result);
    ck_assert_str_eq(jobs[i].result, want);
    ck_assert_str_eq(jobs[i].lang, sentences[i % 3].lang);
    free(want);
    free(jobs[i].result);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("analyze");
  TCase *tc = tcase_create("analyze");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, plain_words_and_positions);
  tcase_add_test(tc, english_stems);
  tcase_add_test(tc, unicode_normalisation);
  tcase_add_test(tc, apostrophes);
  tcase_add_test(tc, hyphens);
  tcase_add_test(tc, numbers);
  tcase_add_test(tc, dotted_words);
  tcase_add_test(tc, email_addresses);
  tcase_add_test(tc, urls);
  tcase_add_test(tc, cjk_bigrams);
  tcase_add_test(tc, southeast_asian_bigrams);
  tcase_add_test(tc, invalid_utf8);
  tcase_add_test(tc, term_length_limit);
  tcase_add_test(tc, term_count_limit);
  tcase_add_test(tc, callback_stops);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, accent_folding);
  tcase_add_test(tc, no_stems_flag);
  tcase_add_test(tc, languages_and_stemmers);
  tcase_add_test(tc, stream_safe_marks);
  tcase_add_test(tc, linear_work_on_hostile_input);
  tcase_add_test(tc, ascii_fast_path_matches_utf8proc);
  tcase_add_loop_test(tc, every_code_point_idempotent, 0, 2);
  int num_sentences = (int)(sizeof sentences / sizeof sentences[0]);
  tcase_add_loop_test(tc, language_detection, 0, num_sentences);
  tcase_add_loop_test(tc, language_detection_first_sentence, 0, num_sentences);
  tcase_add_loop_test(tc, language_detection_long_text, 0, num_sentences);
  tcase_add_test(tc, language_detection_mixed_scripts);
  tcase_add_test(tc, language_detection_too_short);
  tcase_add_test(tc, threads_with_own_analyzers);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
