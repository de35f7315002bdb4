// testutil.h: helpers shared by libmsgcrypt's test programs: hex decoding of
// vectors and the location of ../shared/vectors.
#ifndef MC_TESTUTIL_H
#define MC_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int mc_test_hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// mc_test_unhex decodes the hex string `hex` into a new malloc'd buffer and
// sets `*out_len`; returns NULL on odd length or a non-hex character.
static inline uint8_t *mc_test_unhex(const char *hex, size_t *out_len) {
  size_t n = strlen(hex);
  if (n % 2 != 0)
    return NULL;
  uint8_t *out = malloc(n / 2 + 1);
  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < n / 2; i++) {
    int hi = mc_test_hexval(hex[2 * i]), lo = mc_test_hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(out);
      return NULL;
    }
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  *out_len = n / 2;
  return out;
}

// mc_test_hex writes `len` bytes of `in` as lowercase hex into `out`, which
// must hold 2 * len + 1 bytes.
static inline void mc_test_hex(char *out, const uint8_t *in, size_t len) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * len] = '\0';
}

#endif // MC_TESTUTIL_H
