// fuzz_typed_rfc2047.c: mp_rfc2047_decode on arbitrary bytes: never an error
// with a buffer of mp_typed_text_max_len(), output at most 3 * input bytes
// and always valid UTF-8 without CR, LF or NUL, the same result twice, and
// with a buffer one byte short exactly MP_ERR_BUFFER_TOO_SMALL and no
// output length.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size);
  char *a = malloc(cap), *b = malloc(cap);
  FUZZ_CHECK(a != NULL && b != NULL);
  size_t na = 0, nb = 0;
  unsigned fa = 0, fb = 0;
  FUZZ_CHECK(mp_rfc2047_decode(a, cap, &na, &fa, in, size) == 0);
  FUZZ_CHECK(na <= 3 * size);
  FUZZ_CHECK(corvid_utf8_valid((const uint8_t *)a, na));
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
