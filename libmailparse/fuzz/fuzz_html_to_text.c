// fuzz_html_to_text.c: HTML to text and text to HTML on any bytes, checking
// their promises: with a buffer of the *_max_len() bound they succeed and are
// never truncated, the output is valid UTF-8 within the bound, the same input
// gives the same output, a truncated conversion is a prefix of the full one,
// and text made HTML holds no markup but its own <br> and <div>. Input: a
// flags byte, a truncation byte, then the document.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mailparse.h"

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    if (!(x))                                                                                      \
      abort();                                                                                     \
  } while (0)

// valid_utf8 is the harness's own reading of RFC 3629.
static int valid_utf8(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = p[i];
    size_t len;
    uint32_t cp, min;
    if (b < 0x80) {
      i++;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2, cp = b & 0x1F, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3, cp = b & 0x0F, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4, cp = b & 0x07, min = 0x10000;
    } else {
      return 0;
    }
    if (n - i < len)
      return 0;
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80)
        return 0;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
    i += len;
  }
  return 1;
}

static void check_text_to_html(const uint8_t *data, size_t size, unsigned flags) {
  size_t cap = mp_text_to_html_max_len(size);
  char *out = malloc(cap);
  CHECK(out != NULL);
  size_t len;
  CHECK(mp_text_to_html(out, cap, &len, data, size, flags) == 0);
  CHECK(len <= cap && valid_utf8((const uint8_t *)out, len));
  static const char div[] = "<div style=\"white-space:pre-wrap\">";
  size_t i = 0;
  if (flags & MP_TEXT_HTML_PRE_WRAP) {
    CHECK(len >= sizeof div - 1 + 6 && memcmp(out, div, sizeof div - 1) == 0);
    CHECK(memcmp(out + len - 6, "</div>", 6) == 0);
    i = sizeof div - 1;
    len -= 6;
  }
  for (; i < len; i++) {
    CHECK(out[i] != '"' && out[i] != '\'' && out[i] != '>');
    if (out[i] == '<') {
      CHECK(len - i >= 4 && memcmp(out + i, "<br>", 4) == 0);
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
  CHECK(out != NULL && again != NULL);
  size_t len, len2;
  unsigned oflags, oflags2;
  CHECK(mp_html_to_text(out, cap, &len, &oflags, data, size, flags) == 0);
  CHECK(oflags == 0 && len <= cap && valid_utf8((const uint8_t *)out, len));
  CHECK(mp_html_to_text(again, cap, &len2, &oflags2, data, size, flags) == 0);
  CHECK(len2 == len && oflags2 == oflags && memcmp(again, out, len) == 0);
  // Truncated to a part of the full length: a prefix, flagged, still valid.
  size_t small = len * cut / 256;
  CHECK(mp_html_to_text(again, small, &len2, &oflags2, data, size, flags | MP_HTML_TRUNCATE) == 0);
  CHECK(len2 <= small && memcmp(again, out, len2) == 0);
  CHECK(valid_utf8((const uint8_t *)again, len2));
  CHECK(oflags2 == (small < len ? MP_HTML_TRUNCATED : 0u));
  if (small < len)
    CHECK(mp_html_to_text(again, small, &len2, &oflags2, data, size, flags & ~MP_HTML_TRUNCATE) ==
          MP_ERR_BUFFER_TOO_SMALL);
  free(out);
  free(again);
  check_text_to_html(data, size, data[-2] >> 7);
  return 0;
}
