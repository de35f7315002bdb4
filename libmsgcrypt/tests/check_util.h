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

#endif // MC_CHECK_UTIL_H
