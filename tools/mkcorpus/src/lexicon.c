// lexicon.c: each language's vocabulary of MKC_LEXICON_SIZE words ranked for
// a Zipf law, P(rank r) proportional to r^-1.07. The hand-written common
// words take the top ranks; the long tail that real mail has (names, jargon,
// typos) is made of pseudo-words built from the language's syllables, so the
// term statistics a search index sees have both a head and a tail.
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

static const struct mkc_lang_data *const languages[MKC_LANG_COUNT] = {
    &mkc_lang_en, &mkc_lang_de, &mkc_lang_fr, &mkc_lang_es,
    &mkc_lang_ru, &mkc_lang_ja, &mkc_lang_zh,
};

struct lexicon {
  const char *words[MKC_LEXICON_SIZE];
  char *arena; // the pseudo-words, NUL-separated
};

static struct lexicon *lexicons[MKC_LANG_COUNT];
static struct mkc_cdf zipf;

const struct mkc_lang_data *mkc_lang(enum mkc_lang lang) {
  return languages[lang];
}

// Every word must exist in every charset its language is written in, or the
// text of a message could not be declared honestly; a failure here is a bug
// in a lang_*.c table.
static void check_charsets(const struct mkc_lang_data *L, const char *const *words, size_t n) {
  struct mkc_buf scratch;
  mkc_buf_init(&scratch);
  for (int cs = 0; cs < MKC_CS_COUNT; cs++) {
    if (!L->charset_weights[cs] || cs == MKC_CS_US_ASCII)
      continue;
    for (size_t i = 0; i < n; i++) {
      scratch.len = 0;
      if (!mkc_charset_convert((enum mkc_charset)cs, words[i], strlen(words[i]), &scratch))
        mkc_die("%s word \"%s\" has no %s form", L->label, words[i],
                mkc_charset_name((enum mkc_charset)cs));
    }
  }
  mkc_buf_cleanup(&scratch);
}

// Pseudo-word number j: the digits of j + S in base S (S syllables), so every
// number gets a distinct word of at least two syllables.
static void pseudo_word(struct mkc_buf *out, const struct mkc_lang_data *L, size_t j) {
  size_t s = L->num_syllables;
  size_t digits[8];
  size_t n = 0;
  for (size_t v = j + s; v > 0 && n < 8; v /= s)
    digits[n++] = v % s;
  while (n > 0)
    mkc_buf_puts(out, L->syllables[digits[--n]]);
}

static struct lexicon *build(const struct mkc_lang_data *L) {
  check_charsets(L, L->words, L->num_words);
  check_charsets(L, L->syllables, L->num_syllables);
  struct lexicon *lx = mkc_xcalloc(1, sizeof *lx);
  size_t hand = L->num_words < MKC_LEXICON_SIZE ? L->num_words : MKC_LEXICON_SIZE;
  size_t offsets[MKC_LEXICON_SIZE];
  struct mkc_buf arena;
  mkc_buf_init(&arena);
  for (size_t rank = hand; rank < MKC_LEXICON_SIZE; rank++) {
    offsets[rank] = arena.len;
    pseudo_word(&arena, L, rank - hand);
    mkc_buf_putc(&arena, '\0');
  }
  lx->arena = arena.data; // owned by the lexicon from here on
  for (size_t rank = 0; rank < MKC_LEXICON_SIZE; rank++)
    lx->words[rank] = rank < hand ? L->words[rank] : lx->arena + offsets[rank];
  return lx;
}

void mkc_lexicon_init(void) {
  if (zipf.cum)
    return;
  mkc_cdf_power_law(&zipf, MKC_LEXICON_SIZE, MKC_ZIPF_EXPONENT);
  for (int lang = 0; lang < MKC_LANG_COUNT; lang++)
    lexicons[lang] = build(languages[lang]);
}

void mkc_lexicon_cleanup(void) {
  for (int lang = 0; lang < MKC_LANG_COUNT; lang++) {
    if (lexicons[lang])
      free(lexicons[lang]->arena);
    free(lexicons[lang]);
    lexicons[lang] = NULL;
  }
  mkc_cdf_cleanup(&zipf);
}

const char *mkc_word(enum mkc_lang lang, struct mkc_rng *r) {
  return lexicons[lang]->words[mkc_cdf_sample(&zipf, r)];
}

const char *mkc_word_in_range(enum mkc_lang lang, struct mkc_rng *r, size_t first) {
  return lexicons[lang]->words[mkc_cdf_sample_from(&zipf, r, first)];
}

// Upper-cases the first letter for the scripts that have case: ASCII,
// Latin-1 letters (U+00E0-U+00FE) and basic Cyrillic with ё.
void mkc_capitalize_first(char *s) {
  unsigned char *p = (unsigned char *)s;
  if (p[0] >= 'a' && p[0] <= 'z') {
    p[0] = (unsigned char)(p[0] - 32);
  } else if (p[0] == 0xC3 && p[1] >= 0xA0 && p[1] <= 0xBE && p[1] != 0xB7) {
    p[1] = (unsigned char)(p[1] - 0x20);
  } else if (p[0] == 0xD0 && p[1] >= 0xB0 && p[1] <= 0xBF) {
    p[1] = (unsigned char)(p[1] - 0x20); // а-п -> А-П
  } else if (p[0] == 0xD1 && p[1] >= 0x80 && p[1] <= 0x8F) {
    p[0] = 0xD0; // р-я -> Р-Я
    p[1] = (unsigned char)(p[1] + 0x20);
  } else if (p[0] == 0xD1 && p[1] == 0x91) {
    p[0] = 0xD0; // ё -> Ё
    p[1] = 0x81;
  }
}
