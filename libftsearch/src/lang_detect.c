// lang_detect.c: language detection without network or data files: the
// writing system of the letters decides first (Greek, Armenian, Thai, ...),
// then, within a script shared by several languages (Latin, Cyrillic,
// Arabic, Hebrew, Devanagari), frequent-word profiles (lang_model.c) and
// letters that only some languages use. It also owns the table of languages
// the analyzer accepts.
#include <stdbool.h>
#include <string.h>
#include <utf8proc.h>

#include "ftsearch.h"
#include "lang_internal.h"

const struct fts_lang_info fts_langs[FTS_LANG_COUNT] = {
    [FTS_LANG_EN] = {"en", "english"},    [FTS_LANG_DE] = {"de", "german"},
    [FTS_LANG_FR] = {"fr", "french"},     [FTS_LANG_ES] = {"es", "spanish"},
    [FTS_LANG_IT] = {"it", "italian"},    [FTS_LANG_NL] = {"nl", "dutch"},
    [FTS_LANG_PT] = {"pt", "portuguese"}, [FTS_LANG_SV] = {"sv", "swedish"},
    [FTS_LANG_NO] = {"no", "norwegian"},  [FTS_LANG_DA] = {"da", "danish"},
    [FTS_LANG_FI] = {"fi", "finnish"},    [FTS_LANG_RU] = {"ru", "russian"},
    [FTS_LANG_TR] = {"tr", "turkish"},    [FTS_LANG_HU] = {"hu", "hungarian"},
    [FTS_LANG_RO] = {"ro", "romanian"},   [FTS_LANG_CA] = {"ca", "catalan"},
    [FTS_LANG_EU] = {"eu", "basque"},     [FTS_LANG_GA] = {"ga", "irish"},
    [FTS_LANG_ID] = {"id", "indonesian"}, [FTS_LANG_LT] = {"lt", "lithuanian"},
    [FTS_LANG_SR] = {"sr", "serbian"},    [FTS_LANG_EL] = {"el", "greek"},
    [FTS_LANG_HI] = {"hi", "hindi"},      [FTS_LANG_NE] = {"ne", "nepali"},
    [FTS_LANG_AR] = {"ar", "arabic"},     [FTS_LANG_HY] = {"hy", "armenian"},
    [FTS_LANG_TA] = {"ta", "tamil"},      [FTS_LANG_YI] = {"yi", "yiddish"},
    [FTS_LANG_BG] = {"bg", NULL},         [FTS_LANG_UK] = {"uk", NULL},
    [FTS_LANG_PL] = {"pl", NULL},         [FTS_LANG_CS] = {"cs", NULL},
    [FTS_LANG_SK] = {"sk", NULL},         [FTS_LANG_HE] = {"he", NULL},
    [FTS_LANG_FA] = {"fa", NULL},         [FTS_LANG_JA] = {"ja", NULL},
    [FTS_LANG_KO] = {"ko", NULL},         [FTS_LANG_ZH] = {"zh", NULL},
    [FTS_LANG_TH] = {"th", NULL},         [FTS_LANG_KA] = {"ka", NULL},
};

int fts_lang_lookup(const char *code) {
  if (strcmp(code, "nb") == 0 || strcmp(code, "nn") == 0)
    return FTS_LANG_NO;
  for (int i = 0; i < FTS_LANG_COUNT; i++)
    if (strcmp(code, fts_langs[i].code) == 0)
      return i;
  return -1;
}

#define BIT(l) ((uint64_t)1 << (l))

enum {
  S_LATIN,
  S_CYRILLIC,
  S_GREEK,
  S_ARABIC,
  S_HEBREW,
  S_ARMENIAN,
  S_DEVANAGARI,
  S_TAMIL,
  S_HAN,
  S_KANA,
  S_HANGUL,
  S_THAI,
  S_GEORGIAN,
  S_OTHER,
  S_COUNT
};

static int script_of(int32_t c) {
  if (c < 0x250)
    return S_LATIN;
  if (c >= 0x1E00 && c <= 0x1EFF)
    return S_LATIN;
  if (c >= 0x370 && c <= 0x3FF)
    return S_GREEK;
  if (c >= 0x1F00 && c <= 0x1FFF)
    return S_GREEK;
  if (c >= 0x400 && c <= 0x52F)
    return S_CYRILLIC;
  if (c >= 0x530 && c <= 0x58F)
    return S_ARMENIAN;
  if (c >= 0x590 && c <= 0x5FF)
    return S_HEBREW;
  if ((c >= 0x600 && c <= 0x6FF) || (c >= 0x750 && c <= 0x77F) || (c >= 0xFB50 && c <= 0xFEFF))
    return S_ARABIC;
  if (c >= 0x900 && c <= 0x97F)
    return S_DEVANAGARI;
  if (c >= 0xB80 && c <= 0xBFF)
    return S_TAMIL;
  if (c >= 0xE00 && c <= 0xE7F)
    return S_THAI;
  if (c >= 0x10A0 && c <= 0x10FF)
    return S_GEORGIAN;
  if ((c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F) || (c >= 0xAC00 && c <= 0xD7AF))
    return S_HANGUL;
  if ((c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) || (c >= 0xFF66 && c <= 0xFF9F))
    return S_KANA;
  if ((c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
      (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3FFFF))
    return S_HAN;
  return S_OTHER;
}

// Languages that each script may be written in, as candidates for the word
// model.
static const uint64_t latin_langs =
    BIT(FTS_LANG_EN) | BIT(FTS_LANG_DE) | BIT(FTS_LANG_FR) | BIT(FTS_LANG_ES) | BIT(FTS_LANG_IT) |
    BIT(FTS_LANG_NL) | BIT(FTS_LANG_PT) | BIT(FTS_LANG_SV) | BIT(FTS_LANG_NO) | BIT(FTS_LANG_DA) |
    BIT(FTS_LANG_FI) | BIT(FTS_LANG_TR) | BIT(FTS_LANG_HU) | BIT(FTS_LANG_RO) | BIT(FTS_LANG_CA) |
    BIT(FTS_LANG_EU) | BIT(FTS_LANG_GA) | BIT(FTS_LANG_ID) | BIT(FTS_LANG_LT) | BIT(FTS_LANG_SR) |
    BIT(FTS_LANG_PL) | BIT(FTS_LANG_CS) | BIT(FTS_LANG_SK);
static const uint64_t cyrillic_langs =
    BIT(FTS_LANG_RU) | BIT(FTS_LANG_SR) | BIT(FTS_LANG_BG) | BIT(FTS_LANG_UK);
static const uint64_t arabic_langs = BIT(FTS_LANG_AR) | BIT(FTS_LANG_FA);
static const uint64_t hebrew_langs = BIT(FTS_LANG_HE) | BIT(FTS_LANG_YI);
static const uint64_t devanagari_langs = BIT(FTS_LANG_HI) | BIT(FTS_LANG_NE);

// Letters (lower case) that only some languages of their script use; each
// occurrence is weak evidence for them.
static const struct {
  int32_t c;
  uint64_t langs;
} letters[] = {
    {0x00DF, BIT(FTS_LANG_DE)},                                                          // ß
    {0x00E4, BIT(FTS_LANG_DE) | BIT(FTS_LANG_SV) | BIT(FTS_LANG_FI) | BIT(FTS_LANG_SK)}, // ä
    {0x00F6, BIT(FTS_LANG_DE) | BIT(FTS_LANG_SV) | BIT(FTS_LANG_FI) | BIT(FTS_LANG_HU) |
                 BIT(FTS_LANG_TR)},                                                      // ö
    {0x00FC, BIT(FTS_LANG_DE) | BIT(FTS_LANG_HU) | BIT(FTS_LANG_TR)},                    // ü
    {0x00E5, BIT(FTS_LANG_SV) | BIT(FTS_LANG_NO) | BIT(FTS_LANG_DA)},                    // å
    {0x00E6, BIT(FTS_LANG_NO) | BIT(FTS_LANG_DA)},                                       // æ
    {0x00F8, BIT(FTS_LANG_NO) | BIT(FTS_LANG_DA)},                                       // ø
    {0x00F1, BIT(FTS_LANG_ES) | BIT(FTS_LANG_EU)},                                       // ñ
    {0x00E3, BIT(FTS_LANG_PT)},                                                          // ã
    {0x00F5, BIT(FTS_LANG_PT)},                                                          // õ
    {0x00E7, BIT(FTS_LANG_FR) | BIT(FTS_LANG_PT) | BIT(FTS_LANG_CA) | BIT(FTS_LANG_TR)}, // ç
    {0x011F, BIT(FTS_LANG_TR)},                                                          // ğ
    {0x015F, BIT(FTS_LANG_TR)},                                                          // ş
    {0x0131, BIT(FTS_LANG_TR)},                                                          // ı
    {0x0151, BIT(FTS_LANG_HU)},                                                          // ő
    {0x0171, BIT(FTS_LANG_HU)},                                                          // ű
    {0x021B, BIT(FTS_LANG_RO)},                                                          // ț
    {0x0163, BIT(FTS_LANG_RO)},                                                          // ţ
    {0x0219, BIT(FTS_LANG_RO)},                                                          // ș
    {0x0103, BIT(FTS_LANG_RO)},                                                          // ă
    {0x00EE, BIT(FTS_LANG_RO) | BIT(FTS_LANG_FR)},                                       // î
    {0x00E2, BIT(FTS_LANG_RO) | BIT(FTS_LANG_FR) | BIT(FTS_LANG_PT)},                    // â
    {0x0105, BIT(FTS_LANG_PL) | BIT(FTS_LANG_LT)},                                       // ą
    {0x0119, BIT(FTS_LANG_PL) | BIT(FTS_LANG_LT)},                                       // ę
    {0x0142, BIT(FTS_LANG_PL)},                                                          // ł
    {0x0144, BIT(FTS_LANG_PL)},                                                          // ń
    {0x015B, BIT(FTS_LANG_PL)},                                                          // ś
    {0x017A, BIT(FTS_LANG_PL)},                                                          // ź
    {0x017C, BIT(FTS_LANG_PL)},                                                          // ż
    {0x0159, BIT(FTS_LANG_CS)},                                                          // ř
    {0x016F, BIT(FTS_LANG_CS)},                                                          // ů
    {0x011B, BIT(FTS_LANG_CS)},                                                          // ě
    {0x013E, BIT(FTS_LANG_SK)},                                                          // ľ
    {0x013A, BIT(FTS_LANG_SK)},                                                          // ĺ
    {0x0155, BIT(FTS_LANG_SK)},                                                          // ŕ
    {0x010D, BIT(FTS_LANG_CS) | BIT(FTS_LANG_SK) | BIT(FTS_LANG_LT) | BIT(FTS_LANG_SR)}, // č
    {0x0161, BIT(FTS_LANG_CS) | BIT(FTS_LANG_SK) | BIT(FTS_LANG_LT) | BIT(FTS_LANG_SR)}, // š
    {0x017E, BIT(FTS_LANG_CS) | BIT(FTS_LANG_SK) | BIT(FTS_LANG_LT) | BIT(FTS_LANG_SR)}, // ž
    {0x0117, BIT(FTS_LANG_LT)},                                                          // ė
    {0x0173, BIT(FTS_LANG_LT)},                                                          // ų
    {0x012F, BIT(FTS_LANG_LT)},                                                          // į
    {0x016B, BIT(FTS_LANG_LT)},                                                          // ū
    {0x0107, BIT(FTS_LANG_SR) | BIT(FTS_LANG_PL)},                                       // ć
    {0x0111, BIT(FTS_LANG_SR)},                                                          // đ
    {0x00E0, BIT(FTS_LANG_FR) | BIT(FTS_LANG_IT) | BIT(FTS_LANG_CA) | BIT(FTS_LANG_PT)}, // à
    {0x00E8, BIT(FTS_LANG_FR) | BIT(FTS_LANG_IT) | BIT(FTS_LANG_CA)},                    // è
    {0x00EC, BIT(FTS_LANG_IT)},                                                          // ì
    {0x00F2, BIT(FTS_LANG_IT) | BIT(FTS_LANG_CA)},                                       // ò
    {0x00F9, BIT(FTS_LANG_IT) | BIT(FTS_LANG_FR)},                                       // ù
    {0x00EA, BIT(FTS_LANG_FR) | BIT(FTS_LANG_PT)},                                       // ê
    {0x00FB, BIT(FTS_LANG_FR)},                                                          // û
    {0x0153, BIT(FTS_LANG_FR)},                                                          // œ
    {0x00EB, BIT(FTS_LANG_FR) | BIT(FTS_LANG_NL)},                                       // ë
    {0x00EF, BIT(FTS_LANG_FR) | BIT(FTS_LANG_CA) | BIT(FTS_LANG_NL)},                    // ï
    {0x00FD, BIT(FTS_LANG_CS) | BIT(FTS_LANG_SK)},                                       // ý
    {0x0457, BIT(FTS_LANG_UK)},                                                          // ї
    {0x0454, BIT(FTS_LANG_UK)},                                                          // є
    {0x0456, BIT(FTS_LANG_UK)},                                                          // і
    {0x0491, BIT(FTS_LANG_UK)},                                                          // ґ
    {0x0458, BIT(FTS_LANG_SR)},                                                          // ј
    {0x0459, BIT(FTS_LANG_SR)},                                                          // љ
    {0x045A, BIT(FTS_LANG_SR)},                                                          // њ
    {0x045B, BIT(FTS_LANG_SR)},                                                          // ћ
    {0x0452, BIT(FTS_LANG_SR)},                                                          // ђ
    {0x045F, BIT(FTS_LANG_SR)},                                                          // џ
    {0x044B, BIT(FTS_LANG_RU)},                                                          // ы
    {0x044D, BIT(FTS_LANG_RU)},                                                          // э
    {0x0451, BIT(FTS_LANG_RU)},                                                          // ё
    {0x044A, BIT(FTS_LANG_RU) | BIT(FTS_LANG_BG)},                                       // ъ
    {0x067E, BIT(FTS_LANG_FA)},                                                          // پ
    {0x0686, BIT(FTS_LANG_FA)},                                                          // چ
    {0x0698, BIT(FTS_LANG_FA)},                                                          // ژ
    {0x06AF, BIT(FTS_LANG_FA)},                                                          // گ
    {0x06CC, BIT(FTS_LANG_FA)},                                                          // ی
    {0x06A9, BIT(FTS_LANG_FA)},                                                          // ک
    {0x0629, BIT(FTS_LANG_AR)},                                                          // ة
    {0x0649, BIT(FTS_LANG_AR)},                                                          // ى
    {0x05F0, BIT(FTS_LANG_YI)},                                                          // װ
    {0x05F1, BIT(FTS_LANG_YI)},                                                          // ױ
    {0x05F2, BIT(FTS_LANG_YI)},                                                          // ײ
    {0x05B7, BIT(FTS_LANG_YI)}, // patah (pointed alef in Yiddish spelling)
    {0x05B8, BIT(FTS_LANG_YI)}, // qamats
};

#define WORD_WEIGHT 240
#define LETTER_WEIGHT 40
#define MAX_WORD_BYTES 32

static void add_evidence(uint32_t score[FTS_LANG_COUNT], uint64_t langs, uint32_t weight) {
  if (langs == 0)
    return;
  uint32_t share = weight / (uint32_t)__builtin_popcountll(langs);
  for (; langs != 0; langs &= langs - 1)
    score[__builtin_ctzll(langs)] += share;
}

static int32_t read_cp(const uint8_t *p, size_t n, size_t *i) {
  uint8_t b = p[*i];
  size_t len = b < 0x80             ? 1
               : (b & 0xE0) == 0xC0 ? 2
               : (b & 0xF0) == 0xE0 ? 3
               : (b & 0xF8) == 0xF0 ? 4
                                    : 0;
  if (len == 0 || n - *i < len) {
    (*i)++;
    return 0xFFFD;
  }
  int32_t c = len == 1 ? b : b & (0x7F >> len);
  for (size_t k = 1; k < len; k++) {
    if ((p[*i + k] & 0xC0) != 0x80) {
      (*i)++;
      return 0xFFFD;
    }
    c = c << 6 | (p[*i + k] & 0x3F);
  }
  *i += len;
  return c > 0x10FFFF ? 0xFFFD : c;
}

static size_t put_utf8(uint8_t *out, int32_t c) {
  if (c < 0x80) {
    out[0] = (uint8_t)c;
    return 1;
  } else if (c < 0x800) {
    out[0] = (uint8_t)(0xC0 | c >> 6);
    out[1] = (uint8_t)(0x80 | (c & 0x3F));
    return 2;
  } else if (c < 0x10000) {
    out[0] = (uint8_t)(0xE0 | c >> 12);
    out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (uint8_t)(0xF0 | c >> 18);
  out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (uint8_t)(0x80 | (c & 0x3F));
  return 4;
}

static int best_of(const uint32_t score[FTS_LANG_COUNT], uint64_t candidates, int fallback) {
  int best = -1;
  for (int l = 0; l < FTS_LANG_COUNT; l++)
    if ((candidates & BIT(l)) && score[l] > 0 && (best < 0 || score[l] > score[best]))
      best = l;
  return best >= 0 ? best : fallback;
}

// latin_settled says that the text so far is Latin script and one language
// leads the next by three to one on at least 40 frequent words' worth.
static bool latin_settled(const uint32_t scripts[S_COUNT], const uint32_t score[FTS_LANG_COUNT]) {
  uint32_t others = 0;
  for (int s = 0; s < S_COUNT; s++)
    if (s != S_LATIN)
      others += scripts[s];
  if (others * 20 > scripts[S_LATIN])
    return false;
  uint32_t best = 0, second = 0;
  for (int l = 0; l < FTS_LANG_COUNT; l++) {
    if (!(latin_langs & BIT(l)))
      continue;
    if (score[l] > best) {
      second = best;
      best = score[l];
    } else if (score[l] > second) {
      second = score[l];
    }
  }
  return best >= 40 * WORD_WEIGHT && best >= 3 * second;
}

// end_word scores the word collected so far, if any, and starts a new one.
static void end_word(uint32_t score[FTS_LANG_COUNT], const uint8_t *word, size_t *wlen,
                     bool *too_long, unsigned *words) {
  if (*wlen == 0)
    return;
  (*words)++;
  if (!*too_long)
    add_evidence(score, fts_lang_word_mask(word, *wlen), WORD_WEIGHT);
  *wlen = 0;
  *too_long = false;
}

int fts_lang_detect_index(const uint8_t *text, size_t text_len) {
  size_t n = text_len < FTS_LANG_DETECT_BYTES ? text_len : FTS_LANG_DETECT_BYTES;
  uint32_t scripts[S_COUNT] = {0};
  uint32_t score[FTS_LANG_COUNT] = {0};
  uint8_t word[MAX_WORD_BYTES + 4];
  size_t wlen = 0;
  bool wtoo_long = false;
  unsigned words = 0;
  size_t i = 0, next_check = 2048;
  // One pass: count letters per script, score letters, and score each word
  // (a run of letters and marks, lower-cased) against the word model.
  for (;;) {
    bool at_end = i >= n;
    if (!at_end && text[i] < 0x80) {
      // ASCII without utf8proc: a Latin letter or a separator.
      uint8_t b = text[i++];
      if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') {
        scripts[S_LATIN]++;
        if (wlen + 1 <= MAX_WORD_BYTES)
          word[wlen++] = b | 0x20;
        else
          wtoo_long = true;
        continue;
      }
      end_word(score, word, &wlen, &wtoo_long, &words);
      if (i >= next_check) {
        // Long Latin text that already has a clear winner needs no more.
        next_check = i + 1024;
        if (latin_settled(scripts, score))
          break;
      }
      continue;
    }
    int32_t c = at_end ? 0 : read_cp(text, n, &i);
    utf8proc_category_t cat = at_end ? UTF8PROC_CATEGORY_CN : utf8proc_category(c);
    bool letter = cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO;
    bool mark = cat >= UTF8PROC_CATEGORY_MN && cat <= UTF8PROC_CATEGORY_ME;
    if (letter || (mark && wlen > 0)) {
      int32_t lc = utf8proc_tolower(c);
      if (letter) {
        scripts[script_of(lc)]++;
        if (lc >= 0xDF)
          for (size_t k = 0; k < sizeof letters / sizeof letters[0]; k++)
            if (letters[k].c == lc) {
              add_evidence(score, letters[k].langs, LETTER_WEIGHT);
              break;
            }
      }
      if (wlen + 4 <= MAX_WORD_BYTES)
        wlen += put_utf8(word + wlen, lc);
      else
        wtoo_long = true;
      continue;
    }
    end_word(score, word, &wlen, &wtoo_long, &words);
    if (at_end)
      break;
  }
  // Han, Kana and Hangul count together, four times: a CJK character carries
  // about as much text as a word of four or five Latin letters.
  uint32_t total = 0, cjk = 4 * (scripts[S_HAN] + scripts[S_KANA] + scripts[S_HANGUL]);
  int dom = S_HAN;
  for (int s = 0; s < S_COUNT; s++) {
    total += scripts[s];
    if (s != S_HAN && s != S_KANA && s != S_HANGUL &&
        scripts[s] > (dom == S_HAN ? cjk : scripts[dom]))
      dom = s;
  }
  if (total < 4)
    return -1;
  switch (dom) {
  case S_HAN:
  case S_KANA:
  case S_HANGUL: {
    uint32_t han = scripts[S_HAN], kana = scripts[S_KANA], hangul = scripts[S_HANGUL];
    if (hangul >= kana && hangul * 2 >= han)
      return FTS_LANG_KO;
    if (kana * 10 >= han + kana)
      return FTS_LANG_JA;
    return FTS_LANG_ZH;
  }
  case S_GREEK:
    return FTS_LANG_EL;
  case S_ARMENIAN:
    return FTS_LANG_HY;
  case S_TAMIL:
    return FTS_LANG_TA;
  case S_THAI:
    return FTS_LANG_TH;
  case S_GEORGIAN:
    return FTS_LANG_KA;
  case S_CYRILLIC:
    return best_of(score, cyrillic_langs, FTS_LANG_RU);
  case S_ARABIC:
    return best_of(score, arabic_langs, FTS_LANG_AR);
  case S_HEBREW:
    return best_of(score, hebrew_langs, FTS_LANG_HE);
  case S_DEVANAGARI:
    return best_of(score, devanagari_langs, FTS_LANG_HI);
  case S_LATIN:
    if (words < 3)
      return -1;
    return best_of(score, latin_langs, -1);
  default:
    return -1;
  }
}

int fts_language_detect(const uint8_t *text, size_t text_len, char out[4]) {
  if (out == NULL || (text == NULL && text_len != 0))
    return FTS_ERR_INVALID_ARGUMENT;
  int l = text_len ? fts_lang_detect_index(text, text_len) : -1;
  memset(out, 0, 4);
  if (l >= 0)
    memcpy(out, fts_langs[l].code, strlen(fts_langs[l].code));
  return 0;
}
