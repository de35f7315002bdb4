// json_writer.c: the JSON strings the mailparse command prints, always as
// ASCII (other characters as \u escapes, surrogate pairs above U+FFFF), so
// that any consumer reads them whatever its locale: raw bytes mapped one to
// one onto U+0000-U+00FF, or UTF-8 text with invalid sequences replaced by
// U+FFFD.
#include <stdint.h>
#include <stdio.h>

#include "dump.h"

static void put_cp(FILE *o, uint32_t cp) {
  if (cp == '"' || cp == '\\') {
    fputc('\\', o);
    fputc((int)cp, o);
  } else if (cp >= 0x20 && cp < 0x7f) {
    fputc((int)cp, o);
  } else if (cp < 0x10000) {
    fprintf(o, "\\u%04x", (unsigned)cp);
  } else {
    cp -= 0x10000;
    fprintf(o, "\\u%04x\\u%04x", (unsigned)(0xd800 + (cp >> 10)),
            (unsigned)(0xdc00 + (cp & 0x3ff)));
  }
}

void json_bytes(FILE *o, const void *p, size_t len) {
  const uint8_t *s = p;
  fputc('"', o);
  for (size_t i = 0; i < len; i++)
    put_cp(o, s[i]);
  fputc('"', o);
}

// utf8_next decodes the character at s[0..n) into *cp and returns its length,
// or returns the length of the maximal ill-formed subpart (at least 1) with
// *cp set to U+FFFD (Unicode §3.9, Table 3-7).
static size_t utf8_next(const uint8_t *s, size_t n, uint32_t *cp) {
  uint8_t c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t need;
  uint8_t lo = 0x80, hi = 0xbf;
  uint32_t v;
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
    v = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    v = c & 0x0f;
    if (c == 0xe0)
      lo = 0xa0;
    if (c == 0xed)
      hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    v = c & 0x07;
    if (c == 0xf0)
      lo = 0x90;
    if (c == 0xf4)
      hi = 0x8f;
  } else {
    *cp = 0xfffd;
    return 1;
  }
  size_t i = 1;
  for (; i <= need; i++) {
    if (i >= n || s[i] < lo || s[i] > hi) {
      *cp = 0xfffd;
      return i;
    }
    v = (v << 6) | (s[i] & 0x3f);
    lo = 0x80;
    hi = 0xbf;
  }
  *cp = v;
  return i;
}

void json_utf8(FILE *o, const void *p, size_t len) {
  const uint8_t *s = p;
  fputc('"', o);
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    i += utf8_next(s + i, len - i, &cp);
    put_cp(o, cp);
  }
  fputc('"', o);
}

void json_utf8_or_null(FILE *o, mp_str s) {
  if (s.p == NULL)
    fputs("null", o);
  else
    json_utf8(o, s.p, s.len);
}

void json_key(FILE *o, const char *key, int first) {
  fprintf(o, "%s\"%s\":", first ? "" : ",", key);
}
