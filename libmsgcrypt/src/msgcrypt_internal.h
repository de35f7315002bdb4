// msgcrypt_internal.h: declarations shared by libmsgcrypt's source files and
// its tests, never installed. Everything here carries the mc_ prefix so that a
// static link cannot collide with another library.
#ifndef MC_MSGCRYPT_INTERNAL_H
#define MC_MSGCRYPT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt.h"

// MC_FAIL_IF returns `code` from the current function when `cond` holds.
#define MC_FAIL_IF(cond, code)                                                                     \
  do {                                                                                             \
    if (cond)                                                                                      \
      return (code);                                                                               \
  } while (0)

// MC_TRY returns from the current function with the status of `expr` when it
// is negative.
#define MC_TRY(expr)                                                                               \
  do {                                                                                             \
    int mc_try_status_ = (expr);                                                                   \
    if (mc_try_status_ < 0)                                                                        \
      return mc_try_status_;                                                                       \
  } while (0)

// mc_wipe overwrites `len` bytes at `p` with zeros in a way the compiler may
// not remove, for secrets about to go out of scope or be freed.
void mc_wipe(void *p, size_t len);

// mc_keccak_f1600 applies the Keccak-f[1600] permutation (FIPS 202 §3.3) to
// `state`, lanes in little-endian order as FIPS 202 numbers them (x + 5y).
void mc_keccak_f1600(uint64_t state[25]);

static inline uint64_t mc_load_le64(const uint8_t *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
         (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static inline void mc_store_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

#endif // MC_MSGCRYPT_INTERNAL_H
