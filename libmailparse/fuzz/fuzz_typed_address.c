// fuzz_typed_address.c: mp_address_list_parse on arbitrary bytes: with the
// documented capacities (in_len / 2 + 1 entries, mp_typed_text_max_len()
// text) it never fails; every string lies inside the text buffer, group
// indices point back to group entries, the result is the same twice, and a
// text buffer of exactly the used length gives the same entries; the
// result (fast path for the common forms) is the general parser's
// (mp_address_list_parse_general), string for string at the same offsets.
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

// same_str checks that a string of each run lies at the same offset of its
// text buffer with the same length.
static void same_str(mp_str a, const char *ta, mp_str b, const char *tb) {
  FUZZ_CHECK(a.len == b.len && (a.p == NULL) == (b.p == NULL));
  if (a.p != NULL)
    FUZZ_CHECK(a.p - ta == b.p - tb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size), num_cap = size / 2 + 1;
  char *t1 = malloc(cap), *t2 = malloc(cap);
  mp_address *a1 = malloc(num_cap * sizeof *a1), *a2 = malloc(num_cap * sizeof *a2);
  FUZZ_CHECK(t1 && t2 && a1 && a2);
  size_t n1, n2, l1, l2;
  unsigned f1, f2;
  FUZZ_CHECK(mp_address_list_parse(a1, num_cap, &n1, t1, cap, &l1, &f1, in, size) == 0);
  FUZZ_CHECK(n1 <= num_cap && l1 <= 3 * size);
  for (size_t i = 0; i < n1; i++) {
    check_str(a1[i].name, t1, l1);
    check_str(a1[i].local, t1, l1);
    check_str(a1[i].domain, t1, l1);
    if (a1[i].group != MP_NO_INDEX) {
      FUZZ_CHECK(a1[i].group < i && (a1[a1[i].group].flags & MP_ADDRESS_GROUP));
      FUZZ_CHECK(!(a1[i].flags & MP_ADDRESS_GROUP));
    }
  }
  FUZZ_CHECK(mp_address_list_parse_general(a2, num_cap, &n2, t2, cap, &l2, &f2, in, size) == 0);
  FUZZ_CHECK(n1 == n2 && l1 == l2 && f1 == f2 && memcmp(t1, t2, l1) == 0);
  for (size_t i = 0; i < n1; i++) {
    FUZZ_CHECK(a1[i].flags == a2[i].flags && a1[i].group == a2[i].group);
    same_str(a1[i].name, t1, a2[i].name, t2);
    same_str(a1[i].local, t1, a2[i].local, t2);
    same_str(a1[i].domain, t1, a2[i].domain, t2);
  }
  FUZZ_CHECK(mp_address_list_parse(a2, num_cap, &n2, t2, l1, &l2, &f2, in, size) == 0);
  FUZZ_CHECK(n1 == n2 && l1 == l2 && f1 == f2 && memcmp(t1, t2, l1) == 0);
  for (size_t i = 0; i < n1; i++) {
    FUZZ_CHECK(a1[i].flags == a2[i].flags && a1[i].group == a2[i].group);
    FUZZ_CHECK(a1[i].name.len == a2[i].name.len && a1[i].local.len == a2[i].local.len &&
               a1[i].domain.len == a2[i].domain.len);
  }
  if (n1 > 0)
    FUZZ_CHECK(mp_address_list_parse(a2, n1 - 1, &n2, t2, cap, &l2, NULL, in, size) ==
                   MP_ERR_LIMIT &&
               n2 == 0);
  free(t1);
  free(t2);
  free(a1);
  free(a2);
  return 0;
}
