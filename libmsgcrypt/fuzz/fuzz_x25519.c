// fuzz_x25519.c: differential fuzzing of X25519 (RFC 7748): the first 32
// bytes are a u-coordinate (a peer's public key, any bytes: top bit set,
// values at or above p, points on the twist or of small order), the next 32,
// when present, a private key. Properties checked:
//   - every implementation the CPU supports (the scalar radix-2^51 ladder,
//     the ADX ladder, and the ADX kernel's table for a peer key used again)
//     and BoringSSL's X25519 give the same result, and
//     BoringSSL refuses exactly the all-zero results;
//   - mc_x25519 returns 0 or BAD_KEY, and BAD_KEY exactly for all zeros;
//   - the fixed-base kernels (edwards25519 table, or the ladder on u = 9) and
//     BoringSSL's X25519_public_from_private agree on the same 32 bytes used
//     as a private key;
//   - a second evaluation order agrees: X25519(a, X25519(b, u)) =
//     X25519(b, X25519(a, u)) for two fixed scalars.
#include <openssl/curve25519.h>
#include <stdint.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "impl_internal.h"
#include "msgcrypt.h"
#include "x25519_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t a[32] = {0x4f, 0x1a, 0x93, 0x07, 0xd2, 0x6c, 0x85, 0xe1, 0x3b, 0x77};
  static const uint8_t b[32] = {0xa8, 0x52, 0x0e, 0x9d, 0x31, 0xc4, 0x6f, 0x28, 0xb5, 0x13};
  static const uint8_t zero[32];
  if (size < 32)
    return 0;
  const uint8_t *u = data;
  const uint8_t *k = size >= 64 ? data + 32 : a;

  uint8_t want[32], got[32], bssl[32];
  mc_x25519_scalarmult_scalar(want, k, u);
  int bssl_ok = X25519(bssl, k, u);
  FUZZ_CHECK(memcmp(bssl, want, 32) == 0 || !bssl_ok);
  FUZZ_CHECK(bssl_ok == (memcmp(want, zero, 32) != 0));
  uint8_t pub_want[32];
  X25519_public_from_private(pub_want, u);
  for (size_t i = 0; i < mc_impl_count(); i++) {
    int sup = 0;
    const char *name = mc_impl_get(i, &sup);
    if (!sup)
      continue;
    FUZZ_CHECK(mc_impl_force(name) == 0);
    const struct mc_impl *im = mc_impl_current();
    im->x25519(got, k, u);
    FUZZ_CHECK(memcmp(got, want, 32) == 0);
    // The same peer again, with other scalars: the x86-64 kernel builds a
    // table of u's multiples on the second use and serves the third from it.
    uint8_t again[32];
    im->x25519(got, a, u);
    mc_x25519_scalarmult_scalar(again, a, u);
    FUZZ_CHECK(memcmp(got, again, 32) == 0);
    im->x25519(got, b, u);
    mc_x25519_scalarmult_scalar(again, b, u);
    FUZZ_CHECK(memcmp(got, again, 32) == 0);
    im->x25519_base(got, u);
    FUZZ_CHECK(memcmp(got, pub_want, 32) == 0);
    int status = mc_x25519(got, k, u);
    FUZZ_CHECK(status == 0 || status == MC_ERR_BAD_KEY);
    FUZZ_CHECK((status == MC_ERR_BAD_KEY) == (memcmp(got, zero, 32) == 0));
    FUZZ_CHECK(memcmp(got, want, 32) == 0);
  }
  FUZZ_CHECK(mc_impl_force(NULL) == 0);

  uint8_t au[32], bu[32], bau[32], abu[32];
  mc_x25519_scalarmult_scalar(au, a, u);
  mc_x25519_scalarmult_scalar(bu, b, u);
  mc_x25519_scalarmult_scalar(bau, b, au);
  mc_x25519_scalarmult_scalar(abu, a, bu);
  FUZZ_CHECK(memcmp(bau, abu, 32) == 0);
  return 0;
}
