// fuzz_mailtext.c: the indexer's message-to-fields glue (mailtext.c, used by
// servers/common's indexing queue and the ftsearch tool) on arbitrary
// messages. Properties: extraction either fails with an error code or gives
// fields of well-formed UTF-8 (fts_doc_field's contract); extracting again
// into the reused buffers, and into fresh ones, gives the same bytes; every
// field analyses (or hits the analyzer's term limit) into terms within the
// term length bound.
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "ftsearch.h"
#include "mailtext.h"

static int check_term(void *ctx, const fts_term *t) {
  (void)ctx;
  FUZZ_CHECK(t->len > 0 && t->len <= FTS_ANALYZE_DEFAULT_MAX_TERM_BYTES);
  FUZZ_CHECK(t->kind == FTS_TERM_WORD || t->kind == FTS_TERM_STEM);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct ftm_text reused;
  static fts_analyzer *an;
  if (!an)
    FUZZ_CHECK(fts_analyzer_new(&an, NULL) == 0);
  int rc = ftm_extract(&reused, data, size);
  FUZZ_CHECK(rc <= 0);
  if (rc != 0)
    return 0;
  fts_doc_field f1[FTS_MAX_FIELDS];
  size_t n1 = ftm_fields(&reused, f1);
  FUZZ_CHECK(n1 <= FTS_MAX_FIELDS);
  for (size_t i = 0; i < n1; i++) {
    FUZZ_CHECK(f1[i].field < FTS_MAX_FIELDS && f1[i].text_len > 0);
    FUZZ_CHECK(i == 0 || f1[i].field > f1[i - 1].field);
    FUZZ_CHECK(corvid_utf8_valid(f1[i].text, f1[i].text_len));
    int arc = fts_analyze(an, f1[i].lang, f1[i].text, f1[i].text_len, check_term, NULL);
    FUZZ_CHECK(arc == 0 || arc == FTS_ERR_LIMIT);
  }
  // The same message again, into fresh buffers: the same fields.
  struct ftm_text fresh = {0};
  FUZZ_CHECK(ftm_extract(&fresh, data, size) == 0);
  fts_doc_field f2[FTS_MAX_FIELDS];
  size_t n2 = ftm_fields(&fresh, f2);
  FUZZ_CHECK(n1 == n2);
  for (size_t i = 0; i < n1; i++)
    FUZZ_CHECK(f1[i].field == f2[i].field && f1[i].text_len == f2[i].text_len &&
               memcmp(f1[i].text, f2[i].text, f1[i].text_len) == 0);
  ftm_free(&fresh);
  return 0;
}
