// fuzz_typed_subject.c: mp_subject_base on arbitrary bytes: never an
// error with 3 * in_len bytes, output no longer than the decoded value, no
// white space at either end and no runs of it, the same result twice, and
// idempotence: the base subject of a base subject is itself (unless the
// decoded text holds a new "=?", which would decode again).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "mailparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = 3 * size + 1;
  char *a = malloc(cap), *b = malloc(cap), *d = malloc(cap);
  FUZZ_CHECK(a && b && d);
  size_t na, nb, nd;
  unsigned fa, fb;
  FUZZ_CHECK(mp_subject_base(a, cap, &na, &fa, in, size) == 0);
  FUZZ_CHECK(mp_subject_base(b, cap, &nb, &fb, in, size) == 0);
  FUZZ_CHECK(na == nb && fa == fb && memcmp(a, b, na) == 0);
  FUZZ_CHECK(mp_rfc2047_decode(d, cap, &nd, NULL, in, size) == 0 && na <= nd);
  FUZZ_CHECK(na == 0 || (a[0] != ' ' && a[na - 1] != ' '));
  for (size_t i = 0; i < na; i++) {
    FUZZ_CHECK(a[i] != '\t' && a[i] != '\r' && a[i] != '\n');
    FUZZ_CHECK(!(a[i] == ' ' && i + 1 < na && a[i + 1] == ' '));
  }
  int again = 0;
  for (size_t i = 0; i + 1 < na; i++)
    if (a[i] == '=' && a[i + 1] == '?')
      again = 1;
  if (!again) {
    FUZZ_CHECK(mp_subject_base(b, cap, &nb, &fb, a, na) == 0);
    FUZZ_CHECK(nb == na && memcmp(a, b, na) == 0 && !(fb & MP_TYPED_SUBJECT_REPLY));
  }
  free(a);
  free(b);
  free(d);
  return 0;
}
