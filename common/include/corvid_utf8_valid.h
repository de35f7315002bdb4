// corvid_utf8_valid.h: private, header-only UTF-8 well-formedness check for
// tests and fuzz harnesses. It is deliberately the tests' own reading of
// RFC 3629 (decode by the lead byte's length, then reject overlong forms,
// surrogates and values above U+10FFFF), independent of any library's
// validator, so that it can catch their mistakes.
#ifndef CORVID_UTF8_VALID_H
#define CORVID_UTF8_VALID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool corvid_utf8_valid(const uint8_t *p, size_t n) {
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
      return false;
    }
    if (n - i < len)
      return false;
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80)
        return false;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

#endif // CORVID_UTF8_VALID_H
