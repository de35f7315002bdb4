// fuzz_typed_list.c: mp_list_uris_parse and mp_list_id_parse on arbitrary
// bytes: no error but MP_ERR_SYNTAX (List-Id) with the documented
// capacities, strings inside the text buffer, URIs and ids free of white
// space, the same result twice, and URIs written back in brackets parse to
// themselves.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "mailparse.h"

static void check_str(mp_str s, const char *text, size_t tl) {
  if (s.p == NULL) {
    FUZZ_CHECK(s.len == 0);
    return;
  }
  FUZZ_CHECK(s.len > 0 && s.p >= text && s.len <= tl && (size_t)(s.p - text) <= tl - s.len);
}

static int has_wsp(mp_str s) {
  for (size_t i = 0; i < s.len; i++)
    if (s.p[i] == ' ' || s.p[i] == '\t' || s.p[i] == '\r' || s.p[i] == '\n')
      return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size), ncap = size / 2 + 1;
  char *t1 = malloc(cap), *t2 = malloc(cap);
  mp_str *a = malloc(ncap * sizeof *a), *b = malloc(ncap * sizeof *b);
  FUZZ_CHECK(t1 && t2 && a && b);
  size_t n1, n2, l1, l2;
  unsigned f1, f2;
  FUZZ_CHECK(mp_list_uris_parse(a, ncap, &n1, t1, cap, &l1, &f1, in, size) == 0);
  FUZZ_CHECK(mp_list_uris_parse(b, ncap, &n2, t2, cap, &l2, &f2, in, size) == 0);
  FUZZ_CHECK(n1 == n2 && l1 == l2 && f1 == f2 && memcmp(t1, t2, l1) == 0);
  size_t rl = 0;
  for (size_t i = 0; i < n1; i++) {
    check_str(a[i], t1, l1);
    FUZZ_CHECK(a[i].len > 0 && !has_wsp(a[i]));
    rl += a[i].len + 3;
  }
  char *re = malloc(rl + 1);
  FUZZ_CHECK(re != NULL);
  size_t k = 0, m = 0;
  for (size_t i = 0; i < n1; i++) {
    if (memchr(a[i].p, '>', a[i].len))
      continue; // a bare URI may hold '>'
    re[k++] = '<';
    memcpy(re + k, a[i].p, a[i].len);
    k += a[i].len;
    re[k++] = '>';
    re[k++] = ',';
    b[m++] = a[i];
  }
  size_t n3, l3, c3 = mp_typed_text_max_len(k);
  mp_str *c = malloc((k / 2 + 1) * sizeof *c);
  char *t3 = malloc(c3);
  FUZZ_CHECK(c && t3);
  FUZZ_CHECK(mp_list_uris_parse(c, k / 2 + 1, &n3, t3, c3, &l3, NULL, re, k) == 0 && n3 == m);
  for (size_t i = 0; i < m; i++)
    FUZZ_CHECK(c[i].len == b[i].len && memcmp(c[i].p, b[i].p, b[i].len) == 0);
  mp_list_id li, lj;
  int r1 = mp_list_id_parse(&li, t1, cap, &l1, &f1, in, size);
  int r2 = mp_list_id_parse(&lj, t2, cap, &l2, &f2, in, size);
  FUZZ_CHECK(r1 == r2 && f1 == f2 && (r1 == 0 || r1 == MP_ERR_SYNTAX));
  if (r1 == 0) {
    FUZZ_CHECK(l1 == l2 && memcmp(t1, t2, l1) == 0);
    check_str(li.name, t1, l1);
    check_str(li.id, t1, l1);
    FUZZ_CHECK(li.id.len > 0 && !has_wsp(li.id));
  }
  free(re);
  free(c);
  free(t3);
  free(t1);
  free(t2);
  free(a);
  free(b);
  return 0;
}
