// fuzz_typed_date.c: mp_date_parse on arbitrary bytes: no crash or
// overflow (UBSan), the same result twice, the general loop's result
// (mp_date_parse_general: the one-pass path for the common form changes
// nothing), and every accepted date has its fields in range and a time
// consistent with them: formatting the result in RFC 5322 form and parsing
// that again gives the same time and offset.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "mailparse.h"
#include "typed_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  mp_date a, b;
  unsigned fa, fb;
  int ra = mp_date_parse(&a, &fa, (const char *)data, size);
  int rb = mp_date_parse(&b, &fb, (const char *)data, size);
  FUZZ_CHECK(ra == rb && fa == fb && memcmp(&a, &b, sizeof a) == 0);
  rb = mp_date_parse_general(&b, &fb, (const char *)data, size);
  FUZZ_CHECK(ra == rb && fa == fb && memcmp(&a, &b, sizeof a) == 0);
  FUZZ_CHECK(ra == 0 || ra == MP_ERR_SYNTAX);
  if (ra != 0)
    return 0;
  FUZZ_CHECK(a.year >= 1900 && a.year <= 9999 && a.month >= 1 && a.month <= 12);
  FUZZ_CHECK(a.day >= 1 && a.day <= 31 && a.hour >= 0 && a.hour <= 23);
  FUZZ_CHECK(a.minute >= 0 && a.minute <= 59 && a.second >= 0 && a.second <= 60);
  int off = a.offset < 0 ? -a.offset : a.offset;
  char buf[64];
  int n =
      snprintf(buf, sizeof buf, "%d %s %d %02d:%02d:%02d %c%02d%02d", a.day, mon[a.month - 1],
               a.year, a.hour, a.minute, a.second,
               a.offset < 0 || (a.flags & MP_DATE_ZONE_UNKNOWN) ? '-' : '+', off / 60, off % 60);
  FUZZ_CHECK(n > 0 && (size_t)n < sizeof buf);
  FUZZ_CHECK(mp_date_parse(&b, &fb, buf, (size_t)n) == 0);
  FUZZ_CHECK(b.time == a.time && b.offset == a.offset);
  FUZZ_CHECK(fb == 0);
  return 0;
}
