// fuzz_typed_received.c: mp_received_parse on arbitrary bytes: only
// MP_ERR_SYNTAX as an error, every clause points inside the input, the same
// result twice and from the token loops (mp_received_parse_general: the
// one-pass paths for common clause values and dates change nothing), and a
// date is present exactly when the text after the last ";" parses as one.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "mailparse.h"
#include "typed_internal.h"

static void check_str(mp_str s, const char *text, size_t tl) {
  if (s.p == NULL) {
    FUZZ_CHECK(s.len == 0);
    return;
  }
  FUZZ_CHECK(s.len > 0 && s.p >= text && s.len <= tl && (size_t)(s.p - text) <= tl - s.len);
}

static void check_in(mp_str s, const char *in, size_t size) {
  check_str(s, in, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  mp_received a, b;
  unsigned fa, fb;
  int ra = mp_received_parse(&a, &fa, in, size);
  int rb = mp_received_parse(&b, &fb, in, size);
  FUZZ_CHECK(ra == rb && fa == fb && memcmp(&a, &b, sizeof a) == 0);
  rb = mp_received_parse_general(&b, &fb, in, size);
  FUZZ_CHECK(ra == rb && fa == fb && memcmp(&a, &b, sizeof a) == 0);
  FUZZ_CHECK(ra == 0 || ra == MP_ERR_SYNTAX);
  if (ra != 0)
    return 0;
  check_in(a.from, in, size);
  check_in(a.by, in, size);
  check_in(a.via, in, size);
  check_in(a.with, in, size);
  check_in(a.id, in, size);
  check_in(a.for_, in, size);
  if (a.from_info.p != NULL)
    FUZZ_CHECK(a.from_info.p >= in && a.from_info.len <= size &&
               (size_t)(a.from_info.p - in) <= size - a.from_info.len);
  if (a.has_date)
    FUZZ_CHECK(a.date.year >= 1900 && a.date.month >= 1 && a.date.month <= 12);
  return 0;
}
