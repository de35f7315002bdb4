// fuzz_tokenize.c: the text analyzer (fts_analyze) and language detection on
// arbitrary bytes. Properties: every term is well-formed UTF-8, non-empty
// and at most max_term_bytes long; positions never decrease and a stem
// carries the position of the word before it; the ASCII fast path and the
// utf8proc path give the same terms; and analysis is idempotent on words:
// each word, analysed alone, comes back first at position 0, and every word
// it yields was among the words of the input. Input: one option byte (accent
// folding, stems, language), one max_term_bytes byte, then the text.
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "ftsearch.h"

struct term {
  uint8_t *bytes;
  size_t len;
  uint32_t position;
  uint8_t kind;
};

struct terms {
  struct term *v;
  size_t n, cap;
  uint32_t max_len;
};

static int collect(void *ctx, const fts_term *t) {
  struct terms *ts = ctx;
  FUZZ_CHECK(t->len > 0 && t->len <= ts->max_len);
  FUZZ_CHECK(corvid_utf8_valid(t->bytes, t->len));
  FUZZ_CHECK(t->kind == FTS_TERM_WORD || t->kind == FTS_TERM_STEM);
  if (ts->n > 0) {
    const struct term *prev = &ts->v[ts->n - 1];
    FUZZ_CHECK(t->position >= prev->position);
    if (t->kind == FTS_TERM_STEM)
      FUZZ_CHECK(prev->kind == FTS_TERM_WORD && prev->position == t->position);
  } else {
    FUZZ_CHECK(t->kind == FTS_TERM_WORD);
  }
  if (ts->n == ts->cap) {
    ts->cap = ts->cap ? ts->cap * 2 : 64;
    ts->v = realloc(ts->v, ts->cap * sizeof *ts->v);
    FUZZ_CHECK(ts->v != NULL);
  }
  struct term *c = &ts->v[ts->n++];
  c->bytes = malloc(t->len);
  FUZZ_CHECK(c->bytes != NULL);
  memcpy(c->bytes, t->bytes, t->len);
  c->len = t->len;
  c->position = t->position;
  c->kind = t->kind;
  return 0;
}

static void terms_free(struct terms *ts) {
  for (size_t i = 0; i < ts->n; i++)
    free(ts->v[i].bytes);
  free(ts->v);
  ts->v = NULL;
  ts->n = ts->cap = 0;
}

static bool has_word(const struct terms *ts, const uint8_t *b, size_t len) {
  for (size_t i = 0; i < ts->n; i++)
    if (ts->v[i].kind == FTS_TERM_WORD && ts->v[i].len == len &&
        memcmp(ts->v[i].bytes, b, len) == 0)
      return true;
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const langs[] = {NULL, "en", "de", "fr", "ru", "fi", "", "ja"};
  if (size < 2)
    return 0;
  uint8_t opt = data[0], max = data[1];
  data += 2;
  size -= 2;
  fts_analyzer_settings s = {
      .flags = (opt & 1 ? FTS_ANALYZE_FOLD_ACCENTS : 0) | (opt & 2 ? FTS_ANALYZE_NO_STEMS : 0),
      .max_term_bytes = max < 128 ? 0 : max - 127u,
      .max_terms = 0xFFFFFFFFu,
  };
  const char *lang = langs[(opt >> 2) & 7];
  fts_analyzer *fast = NULL, *slow = NULL;
  FUZZ_CHECK(fts_analyzer_new(&fast, &s) == 0);
  FUZZ_CHECK(fts_analyzer_new(&slow, &s) == 0);
  fts_analyzer_set_ascii_fast_path(slow, false);
  uint32_t max_len = s.max_term_bytes ? s.max_term_bytes : FTS_ANALYZE_DEFAULT_MAX_TERM_BYTES;
  struct terms a = {.max_len = max_len}, b = {.max_len = max_len};
  FUZZ_CHECK(fts_analyze(fast, lang, data, size, collect, &a) == 0);
  FUZZ_CHECK(fts_analyze(slow, lang, data, size, collect, &b) == 0);
  FUZZ_CHECK(a.n == b.n);
  for (size_t i = 0; i < a.n; i++)
    FUZZ_CHECK(a.v[i].len == b.v[i].len && a.v[i].position == b.v[i].position &&
               a.v[i].kind == b.v[i].kind && memcmp(a.v[i].bytes, b.v[i].bytes, a.v[i].len) == 0);
  // Idempotence on words, with the language the first call used.
  const char *used = fts_analyzer_language(fast);
  for (size_t i = 0; i < a.n; i++) {
    if (a.v[i].kind != FTS_TERM_WORD)
      continue;
    struct terms again = {.max_len = max_len};
    FUZZ_CHECK(fts_analyze(slow, used, a.v[i].bytes, a.v[i].len, collect, &again) == 0);
    FUZZ_CHECK(again.n > 0 && again.v[0].position == 0 && again.v[0].len == a.v[i].len &&
               memcmp(again.v[0].bytes, a.v[i].bytes, a.v[i].len) == 0);
    for (size_t k = 0; k < again.n; k++)
      if (again.v[k].kind == FTS_TERM_WORD)
        FUZZ_CHECK(has_word(&a, again.v[k].bytes, again.v[k].len));
    terms_free(&again);
  }
  char code[4];
  FUZZ_CHECK(fts_language_detect(data, size, code) == 0);
  FUZZ_CHECK(strlen(code) <= 3);
  terms_free(&a);
  terms_free(&b);
  fts_analyzer_free(fast);
  fts_analyzer_free(slow);
  return 0;
}
