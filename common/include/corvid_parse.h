// corvid_parse.h: strict parsing of the numbers the command-line tools take.
// Private and header-only (see CONVENTIONS.md §1): never installed, no link
// dependency.
//
// strtoull and strtod alone accept what a person did not mean: leading
// blanks, a sign ("-1" becomes 2^64 - 1), trailing letters ("10k" becomes
// 10), an empty string (0), and atoi() cannot even say that it failed. A
// tool that measures or stores something must refuse those rather than run
// with a number nobody typed.
#ifndef CORVID_PARSE_H
#define CORVID_PARSE_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// corvid_parse_u64 reads `text` as a plain decimal number, digits only,
// between `min` and `max`. Returns 0 and sets *out, or -1 and leaves *out
// alone.
static inline int corvid_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
  if (text == NULL || !isdigit((unsigned char)text[0]))
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return -1;
  *out = (uint64_t)v;
  return 0;
}

// corvid_parse_double reads `text` as a finite decimal number between `min`
// and `max`: digits first (or a point and a digit), no sign, blank or
// trailing text; "1e3" is allowed, hexadecimal ("0x10") is not. Returns 0 and sets *out, or -1 and
// leaves *out alone.
static inline int corvid_parse_double(const char *text, double min, double max, double *out) {
  if (text == NULL ||
      !(isdigit((unsigned char)text[0]) || (text[0] == '.' && isdigit((unsigned char)text[1]))) ||
      strpbrk(text, "xX") != NULL)
    return -1;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

#endif
