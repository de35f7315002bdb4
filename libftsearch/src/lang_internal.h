// lang_internal.h: the languages libftsearch knows (ISO 639-1 code, Snowball
// module or none), shared by the analyzer, which picks stemmers, and the
// language detector, which scores them. Private to libftsearch.
#ifndef FTS_LANG_INTERNAL_H
#define FTS_LANG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

// FTS_LANG_* index fts_langs[]; the order is the detector's tie-break order
// (English first, the default when unsure).
enum {
  FTS_LANG_EN,
  FTS_LANG_DE,
  FTS_LANG_FR,
  FTS_LANG_ES,
  FTS_LANG_IT,
  FTS_LANG_NL,
  FTS_LANG_PT,
  FTS_LANG_SV,
  FTS_LANG_NO,
  FTS_LANG_DA,
  FTS_LANG_FI,
  FTS_LANG_RU,
  FTS_LANG_TR,
  FTS_LANG_HU,
  FTS_LANG_RO,
  FTS_LANG_CA,
  FTS_LANG_EU,
  FTS_LANG_GA,
  FTS_LANG_ID,
  FTS_LANG_LT,
  FTS_LANG_SR,
  FTS_LANG_EL,
  FTS_LANG_HI,
  FTS_LANG_NE,
  FTS_LANG_AR,
  FTS_LANG_HY,
  FTS_LANG_TA,
  FTS_LANG_YI,
  // Detected, analysed without stems.
  FTS_LANG_BG,
  FTS_LANG_UK,
  FTS_LANG_PL,
  FTS_LANG_CS,
  FTS_LANG_SK,
  FTS_LANG_HE,
  FTS_LANG_FA,
  FTS_LANG_JA,
  FTS_LANG_KO,
  FTS_LANG_ZH,
  FTS_LANG_TH,
  FTS_LANG_KA,
  FTS_LANG_COUNT
};

struct fts_lang_info {
  char code[4];         // ISO 639-1
  const char *snowball; // libstemmer algorithm name, NULL: no stemmer
};

extern const struct fts_lang_info fts_langs[FTS_LANG_COUNT];

// fts_lang_lookup returns the FTS_LANG_* index of ISO 639-1 `code` (aliases
// nb and nn give Norwegian), or -1.
int fts_lang_lookup(const char *code);

// fts_lang_detect_index returns the FTS_LANG_* index of the language of
// `text` (first FTS_LANG_DETECT_BYTES), or -1 when it cannot tell.
#define FTS_LANG_DETECT_BYTES 16384u
int fts_lang_detect_index(const uint8_t *text, size_t text_len);

// The word model (lang_model.c): fts_lang_word_mask returns the set of
// languages (bit i = FTS_LANG_* i) for which `word` (lower-case UTF-8) is
// among the most frequent words, 0 if none.
uint64_t fts_lang_word_mask(const uint8_t *word, size_t len);

#endif // FTS_LANG_INTERNAL_H
