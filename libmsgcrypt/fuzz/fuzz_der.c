// fuzz_der.c: the DER reader (der_read.c) on any bytes. Walking the input
// element by element, every element must lie inside its parent and its
// header and contents must add up to what was consumed; a depth check that
// succeeds must agree with a complete walk; and the typed readers (INTEGER,
// OID, BIT STRING, BOOLEAN, times) either fail without moving the cursor or
// return values that satisfy their documented form.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "der_read.h"

#define MAX_DEPTH 16

static void typed(der_cur c) {
  der_cur before = c, v;
  unsigned u;
  int b;
  int64_t t;
  uint32_t x;
  if (der_get_integer(&c, &v)) {
    FUZZ_CHECK(v.len > 0 && v.p >= before.p && v.p + v.len <= before.p + before.len);
    FUZZ_CHECK(v.len == 1 || v.p[0] != 0);
  } else {
    FUZZ_CHECK(c.p == before.p && c.len == before.len);
  }
  c = before;
  if (der_get_oid(&c, &v)) {
    char text[256];
    if (der_oid_to_text(text, sizeof text, &v))
      FUZZ_CHECK(strlen(text) < sizeof text && text[0] >= '0' && text[0] <= '2');
  } else {
    FUZZ_CHECK(c.p == before.p);
  }
  c = before;
  if (der_get_bit_string(&c, &v, &u))
    FUZZ_CHECK(u <= 7 && (v.len > 0 || u == 0));
  c = before;
  if (der_get_bool(&c, &b))
    FUZZ_CHECK(b == 0 || b == 1);
  c = before;
  if (der_get_time(&c, &t))
    // 1950-01-01 .. 9999-12-31T23:59:59Z
    FUZZ_CHECK(t >= -631152000 && t <= 253402300799);
  else
    FUZZ_CHECK(c.p == before.p);
  c = before;
  if (der_get_small_uint(&c, &x))
    FUZZ_CHECK(c.len < before.len);
}

// Returns 1 when the whole of `c` parses as elements nested at most
// `depth_left` levels.
static int walk(der_cur c, unsigned depth_left) {
  while (c.len > 0) {
    der_cur before = c, inner, whole;
    unsigned tag;
    typed(c);
    if (!der_get_any(&c, &tag, &inner, &whole)) {
      FUZZ_CHECK(c.p == before.p && c.len == before.len);
      return 0;
    }
    FUZZ_CHECK(whole.p == before.p);
    FUZZ_CHECK(whole.len == before.len - c.len);
    FUZZ_CHECK(inner.p + inner.len == whole.p + whole.len);
    FUZZ_CHECK(inner.p > whole.p && inner.p - whole.p <= 6);
    if (tag & DER_CONSTRUCTED) {
      if (depth_left == 0 || !walk(inner, depth_left - 1))
        return 0;
    }
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int ok = walk(der_cur_make(data, size), MAX_DEPTH);
  FUZZ_CHECK(ok == der_check_depth(data, size, MAX_DEPTH));
  return 0;
}
