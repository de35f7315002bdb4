// scan.c: the scalar line scanner, the reference for later SIMD kernels: it
// finds line ends and the line starts that may be boundary delimiters
// ("--" at the start of a line), so the structure parser examines each line
// start once.
#include <string.h>

#include "core_internal.h"

static size_t scalar_line_end(const uint8_t *buf, size_t len, size_t from) {
  if (from >= len)
    return len;
  const uint8_t *lf = memchr(buf + from, '\n', len - from);
  return lf != NULL ? (size_t)(lf - buf) + 1 : len;
}

static size_t scalar_next_dash_line(const uint8_t *buf, size_t len, size_t from) {
  size_t pos = from;
  while (pos < len) {
    if (len - pos >= 2 && buf[pos] == '-' && buf[pos + 1] == '-')
      return pos;
    pos = scalar_line_end(buf, len, pos);
  }
  return len;
}

static const mp_scanner scalar_scanner = {
    .name = "scalar",
    .line_end = scalar_line_end,
    .next_dash_line = scalar_next_dash_line,
};

const mp_scanner *mp_scanner_get(void) {
  return &scalar_scanner;
}

bool mp_ascii_ieq(const uint8_t *a, size_t a_len, const char *b, size_t b_len) {
  if (a_len != b_len)
    return false;
  for (size_t i = 0; i < a_len; i++) {
    uint8_t x = a[i], y = (uint8_t)b[i];
    if (x >= 'A' && x <= 'Z')
      x = (uint8_t)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (uint8_t)(y + 32);
    if (x != y)
      return false;
  }
  return true;
}
