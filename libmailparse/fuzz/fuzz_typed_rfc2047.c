// fuzz_typed_rfc2047.c: mp_rfc2047_decode on arbitrary bytes: never an error
// with a buffer of mp_typed_text_max_len(), output at most 3 * input bytes
// and always valid UTF-8 without CR, LF or NUL, the same result twice, and
// with a buffer one byte short exactly MP_ERR_BUFFER_TOO_SMALL and no
// output length.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mailparse.h"

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      __builtin_trap();                                                                            \
  } while (0)

// valid_utf8 checks RFC 3629 well-formedness.
static int valid_utf8(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = p[i];
    size_t need;
    uint8_t lo = 0x80, hi = 0xbf;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf)
      need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      lo = b == 0xe0 ? 0xa0 : 0x80;
      hi = b == 0xed ? 0x9f : 0xbf;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      lo = b == 0xf0 ? 0x90 : 0x80;
      hi = b == 0xf4 ? 0x8f : 0xbf;
    } else
      return 0;
    if (n - i - 1 < need)
      return 0;
    for (size_t k = 1; k <= need; k++) {
      uint8_t c = p[i + k];
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xbf))
        return 0;
    }
    i += need + 1;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size);
  char *a = malloc(cap), *b = malloc(cap);
  FUZZ_CHECK(a != NULL && b != NULL);
  size_t na = 0, nb = 0;
  unsigned fa = 0, fb = 0;
  FUZZ_CHECK(mp_rfc2047_decode(a, cap, &na, &fa, in, size) == 0);
  FUZZ_CHECK(na <= 3 * size);
  FUZZ_CHECK(valid_utf8((const uint8_t *)a, na));
  FUZZ_CHECK(mp_rfc2047_decode(b, cap, &nb, &fb, in, size) == 0);
  FUZZ_CHECK(na == nb && fa == fb && memcmp(a, b, na) == 0);
  // No CR, LF or NUL anywhere (folds are unfolded, decoded ones replaced).
  FUZZ_CHECK(na == 0 || (memchr(a, '\r', na) == NULL && memchr(a, '\n', na) == NULL &&
                         memchr(a, 0, na) == NULL));
  if (na > 0) {
    nb = 5;
    FUZZ_CHECK(mp_rfc2047_decode(b, na - 1, &nb, NULL, in, size) == MP_ERR_BUFFER_TOO_SMALL);
    FUZZ_CHECK(nb == 0);
    FUZZ_CHECK(mp_rfc2047_decode(b, na, &nb, NULL, in, size) == 0 && nb == na);
    FUZZ_CHECK(memcmp(a, b, na) == 0);
  }
  free(a);
  free(b);
  return 0;
}
