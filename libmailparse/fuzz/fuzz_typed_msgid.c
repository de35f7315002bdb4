// fuzz_typed_msgid.c: mp_msgid_list_parse on arbitrary bytes: never an
// error with the documented capacities, ids inside the text buffer and free
// of white space, the same result twice and from the general parser
// (mp_msgid_list_parse_general: the one-pass path for the common form
// changes nothing, id for id at the same offsets), and re-parsing the ids
// written back in angle brackets gives the same ids.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size), ncap = size / 2 + 1;
  char *t1 = malloc(cap), *t2 = malloc(cap);
  mp_msgid *a = malloc(ncap * sizeof *a), *b = malloc(ncap * sizeof *b);
  FUZZ_CHECK(t1 && t2 && a && b);
  size_t n1, n2, l1, l2;
  unsigned f1, f2;
  FUZZ_CHECK(mp_msgid_list_parse(a, ncap, &n1, t1, cap, &l1, &f1, in, size) == 0);
  FUZZ_CHECK(mp_msgid_list_parse(b, ncap, &n2, t2, cap, &l2, &f2, in, size) == 0);
  FUZZ_CHECK(n1 == n2 && l1 == l2 && f1 == f2 && memcmp(t1, t2, l1) == 0 && l1 <= size + 2);
  FUZZ_CHECK(mp_msgid_list_parse_general(b, ncap, &n2, t2, cap, &l2, &f2, in, size) == 0);
  FUZZ_CHECK(n1 == n2 && l1 == l2 && f1 == f2 && memcmp(t1, t2, l1) == 0);
  for (size_t i = 0; i < n1; i++)
    FUZZ_CHECK(a[i].id.len == b[i].id.len && a[i].id.p - t1 == b[i].id.p - t2 &&
               a[i].flags == b[i].flags);
  size_t rl = 0;
  for (size_t i = 0; i < n1; i++) {
    check_str(a[i].id, t1, l1);
    FUZZ_CHECK(a[i].id.len > 0);
    rl += a[i].id.len + 3;
  }
  // Ids without quoted strings, comments or brackets inside come back as
  // they are when written as "<id> <id> ...".
  char *re = malloc(rl + 1);
  FUZZ_CHECK(re != NULL);
  size_t k = 0, m = 0;
  for (size_t i = 0; i < n1; i++) {
    if (memchr(a[i].id.p, '"', a[i].id.len) || memchr(a[i].id.p, '(', a[i].id.len) ||
        memchr(a[i].id.p, '<', a[i].id.len) || memchr(a[i].id.p, '>', a[i].id.len) ||
        memchr(a[i].id.p, '\\', a[i].id.len) || memchr(a[i].id.p, ')', a[i].id.len) ||
        memchr(a[i].id.p, '[', a[i].id.len) || memchr(a[i].id.p, ']', a[i].id.len))
      continue;
    re[k++] = '<';
    memcpy(re + k, a[i].id.p, a[i].id.len);
    k += a[i].id.len;
    re[k++] = '>';
    re[k++] = ' ';
    b[m++] = a[i];
  }
  size_t n3, l3;
  mp_msgid *c = malloc((k / 2 + 1) * sizeof *c);
  char *t3 = malloc(mp_typed_text_max_len(k));
  FUZZ_CHECK(c && t3);
  FUZZ_CHECK(
      mp_msgid_list_parse(c, k / 2 + 1, &n3, t3, mp_typed_text_max_len(k), &l3, NULL, re, k) == 0);
  FUZZ_CHECK(n3 == m);
  for (size_t i = 0; i < m; i++)
    FUZZ_CHECK(c[i].id.len == b[i].id.len && memcmp(c[i].id.p, b[i].id.p, b[i].id.len) == 0);
  free(re);
  free(c);
  free(t3);
  free(t1);
  free(t2);
  free(a);
  free(b);
  return 0;
}
