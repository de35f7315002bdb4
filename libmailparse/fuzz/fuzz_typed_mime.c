// fuzz_typed_mime.c: mp_content_type_parse and mp_content_disposition_parse
// on arbitrary bytes: with in_len / 2 + 1 parameters and a text buffer of
// mp_typed_text_max_len() the only error is MP_ERR_SYNTAX; every string lies
// inside the text buffer; type and names are lowercase and distinct;
// mp_param_find finds each parameter; the result (fast path for simple
// values) is the general parser's (mp_typed_mime_parse_general), byte for
// byte and string for string at the same offsets.
// Input: one selector byte (Content-Type or -Disposition), then the value.
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

static void check_lower(mp_str s) {
  for (size_t i = 0; i < s.len; i++)
    FUZZ_CHECK(!(s.p[i] >= 'A' && s.p[i] <= 'Z'));
}

// same_str checks that a string of each run lies at the same offset of its
// text buffer with the same length.
static void same_str(mp_str a, const char *ta, mp_str b, const char *tb) {
  FUZZ_CHECK(a.len == b.len && (a.p == NULL) == (b.p == NULL));
  if (a.p != NULL)
    FUZZ_CHECK(a.p - ta == b.p - tb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  int disp = data[0] & 1;
  const char *in = (const char *)data + 1;
  size--;
  size_t cap = mp_typed_text_max_len(size), pcap = size / 2 + 1;
  char *t1 = malloc(cap), *t2 = malloc(cap);
  mp_param *p1 = malloc(pcap * sizeof *p1), *p2 = malloc(pcap * sizeof *p2);
  FUZZ_CHECK(t1 && t2 && p1 && p2);
  // Different bytes in the two buffers: a byte that one parser leaves
  // unwritten cannot match by chance.
  memset(t1, 0xa5, cap);
  memset(t2, 0x5a, cap);
  mp_content_type c1, c2;
  size_t l1, l2;
  unsigned f1, f2;
  int r1, r2;
  if (disp) {
    mp_content_disposition d1, d2;
    r1 = mp_content_disposition_parse(&d1, p1, pcap, t1, cap, &l1, &f1, in, size);
    (void)d2;
    c1.type = d1.type;
    c1.subtype = (mp_str){NULL, 0};
    c1.num_params = d1.num_params;
    c2.subtype = (mp_str){NULL, 0};
    r2 = mp_typed_mime_parse_general(&c2.type, NULL, &c2.num_params, p2, pcap, t2, cap, &l2, &f2,
                                     in, size);
  } else {
    r1 = mp_content_type_parse(&c1, p1, pcap, t1, cap, &l1, &f1, in, size);
    r2 = mp_typed_mime_parse_general(&c2.type, &c2.subtype, &c2.num_params, p2, pcap, t2, cap, &l2,
                                     &f2, in, size);
  }
  FUZZ_CHECK(r1 == 0 || r1 == MP_ERR_SYNTAX);
  FUZZ_CHECK(r1 == r2 && f1 == f2 && l1 == l2 && c1.num_params == c2.num_params);
  FUZZ_CHECK(memcmp(t1, t2, l1) == 0);
  if (r1 == 0) {
    same_str(c1.type, t1, c2.type, t2);
    same_str(c1.subtype, t1, c2.subtype, t2);
    for (size_t i = 0; i < c1.num_params; i++) {
      same_str(p1[i].name, t1, p2[i].name, t2);
      same_str(p1[i].value, t1, p2[i].value, t2);
      same_str(p1[i].charset, t1, p2[i].charset, t2);
      same_str(p1[i].language, t1, p2[i].language, t2);
      FUZZ_CHECK(p1[i].flags == p2[i].flags);
    }
    FUZZ_CHECK(l1 <= cap && c1.num_params <= pcap && c1.type.len > 0);
    check_str(c1.type, t1, l1);
    check_lower(c1.type);
    check_str(c1.subtype, t1, l1);
    check_lower(c1.subtype);
    for (size_t i = 0; i < c1.num_params; i++) {
      check_str(p1[i].name, t1, l1);
      check_str(p1[i].value, t1, l1);
      check_str(p1[i].charset, t1, l1);
      check_str(p1[i].language, t1, l1);
      check_lower(p1[i].name);
      FUZZ_CHECK(p1[i].name.len > 0);
      char name[64];
      if (p1[i].name.len < sizeof name && memchr(p1[i].name.p, 0, p1[i].name.len) == NULL) {
        memcpy(name, p1[i].name.p, p1[i].name.len);
        name[p1[i].name.len] = 0;
        FUZZ_CHECK(mp_param_find(p1, c1.num_params, name) == &p1[i]);
      }
    }
  }
  free(t1);
  free(t2);
  free(p1);
  free(p2);
  return 0;
}
