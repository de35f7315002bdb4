// fuzz_html_to_text.c: HTML to text and text to HTML on any bytes, checking
// their promises: with a buffer of the *_max_len() bound they succeed and are
// never truncated, the output is valid UTF-8 within the bound, the same input
// gives the same output, a truncated conversion is a prefix of the full one,
// and text made HTML holds no markup but its own <br> and <div>. Input: a
// flags byte, a truncation byte, then the document.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

static void check_text_to_html(const uint8_t *data, size_t size, unsigned flags) {
  size_t cap = mp_text_to_html_max_len(size);
  char *out = malloc(cap);
  FUZZ_CHECK(out != NULL);
  size_t len;
  FUZZ_CHECK(mp_text_to_html(out, cap, &len, data, size, flags) == 0);
  FUZZ_CHECK(len <= cap && corvid_utf8_valid((const uint8_t *)out, len));
  static const char div[] = "<div style=\"white-space:pre-wrap\">";
  size_t i = 0;
  if (flags & MP_TEXT_HTML_PRE_WRAP) {
    FUZZ_CHECK(len >= sizeof div - 1 + 6 && memcmp(out, div, sizeof div - 1) == 0);
    FUZZ_CHECK(memcmp(out + len - 6, "</div>", 6) == 0);
    i = sizeof div - 1;
    len -= 6;
  }
  for (; i < len; i++) {
    FUZZ_CHECK(out[i] != '"' && out[i] != '\'' && out[i] != '>');
    if (out[i] == '<') {
      FUZZ_CHECK(len - i >= 4 && memcmp(out + i, "<br>", 4) == 0);
      i += 3;
    }
  }
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  unsigned flags = data[0] & (MP_HTML_LINK_URLS | MP_HTML_TRUNCATE);
  uint8_t cut = data[1];
  data += 2;
  size -= 2;
  size_t cap = mp_html_to_text_max_len(size);
  char *out = malloc(cap), *again = malloc(cap);
  FUZZ_CHECK(out != NULL && again != NULL);
  size_t len, len2;
  unsigned oflags, oflags2;
  FUZZ_CHECK(mp_html_to_text(out, cap, &len, &oflags, data, size, flags) == 0);
  FUZZ_CHECK(oflags == 0 && len <= cap && corvid_utf8_valid((const uint8_t *)out, len));
  FUZZ_CHECK(mp_html_to_text(again, cap, &len2, &oflags2, data, size, flags) == 0);
  FUZZ_CHECK(len2 == len && oflags2 == oflags && memcmp(again, out, len) == 0);
  // Truncated to a part of the full length: a prefix, flagged, still valid.
  size_t small = len * cut / 256;
  FUZZ_CHECK(mp_html_to_text(again, small, &len2, &oflags2, data, size, flags | MP_HTML_TRUNCATE) ==
             0);
  FUZZ_CHECK(len2 <= small && memcmp(again, out, len2) == 0);
  FUZZ_CHECK(corvid_utf8_valid((const uint8_t *)again, len2));
  FUZZ_CHECK(oflags2 == (small < len ? MP_HTML_TRUNCATED : 0u));
  if (small < len)
    FUZZ_CHECK(mp_html_to_text(again, small, &len2, &oflags2, data, size,
                               flags & ~MP_HTML_TRUNCATE) == MP_ERR_BUFFER_TOO_SMALL);
  free(out);
  free(again);
  check_text_to_html(data, size, data[-2] >> 7);
  return 0;
}
