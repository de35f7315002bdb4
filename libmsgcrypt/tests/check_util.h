// check_util.h: helpers for libmsgcrypt's Check-based test programs, which
// fail the running test on error (testutil.h holds the ones that return).
#ifndef MC_CHECK_UTIL_H
#define MC_CHECK_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "testutil.h"

// mc_test_unhex_fixed decodes `hex` into exactly `len` bytes of `out`.
static inline void mc_test_unhex_fixed(uint8_t *out, size_t len, const char *hex) {
  size_t n = 0;
  uint8_t *tmp = mc_test_unhex(hex, &n);
  ck_assert_msg(tmp != NULL, "bad hex");
  ck_assert_uint_eq(n, len);
  memcpy(out, tmp, len);
  free(tmp);
}

// mc_test_bytes fills `out` with deterministic pseudo-random bytes:
// SHAKE128 of `label` and the little-endian `counter`.
static inline void mc_test_bytes(uint8_t *out, size_t len, const char *label, uint32_t counter) {
  uint8_t seed[64];
  size_t n = strlen(label);
  ck_assert_uint_lt(n, sizeof seed - 4);
  memcpy(seed, label, n);
  for (int i = 0; i < 4; i++)
    seed[n + i] = (uint8_t)(counter >> (8 * i));
  ck_assert_int_eq(mc_shake(MC_SHAKE128, out, len, seed, n + 4), 0);
}

// mc_test_next_impl forces, in turn, each implementation this CPU supports,
// for tests that run the same checks on every kernel:
//
//   size_t it = 0;
//   for (const char *name; (name = mc_test_next_impl(&it)) != NULL;) { ... }
//
// `*it` starts at 0. When MSGCRYPT_IMPL names one implementation, as in the
// per-implementation suites, only that one runs: the suite without it runs
// them all, so the others would be checked once more for nothing. Past the
// last one the choice goes back to what the library would make by itself,
// so a loop run to its end leaves no implementation forced.
static inline const char *mc_test_next_impl(size_t *it) {
  const char *only = getenv("MSGCRYPT_IMPL");
  if (only != NULL && only[0] == '\0')
    only = NULL;
  while (*it < mc_impl_count()) {
    int supported = 0;
    const char *name = mc_impl_get((*it)++, &supported);
    if (supported && (only == NULL || strcmp(name, only) == 0)) {
      ck_assert_int_eq(mc_impl_force(name), 0);
      return name;
    }
  }
  ck_assert_msg(mc_impl_force(only) == 0, "MSGCRYPT_IMPL=%s: not supported here", only);
  return NULL;
}

#endif // MC_CHECK_UTIL_H
