// fuzz_x448.c: any 56 bytes as an X448 u-coordinate (the peer's public key),
// with the next 56 bytes, when present, as the private key. Properties checked:
//   - mc_x448 returns 0 or BAD_KEY, and BAD_KEY exactly for an all-zero
//     result;
//   - a second evaluation order agrees: X448(a, X448(b, u)) =
//     X448(b, X448(a, u)) for two fixed scalars, on the curve and its twist;
//   - a u at or above p gives the same result as u - p (RFC 7748 §5: decode,
//     then reduce);
//   - the same 56 bytes as a private key: the public key computed on
//     edwards448 (table and 4-isogeny) equals the ladder's X448(k, 5).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve448_internal.h"
#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// ge_p reports u >= p = 2^448 - 2^224 - 1 for a little-endian u, and then sets
// `reduced` to u - p.
static int ge_p(const uint8_t u[56], uint8_t reduced[56]) {
  uint8_t p[56];
  memset(p, 0xff, sizeof p);
  p[28] = 0xfe;
  int borrow = 0;
  for (int i = 0; i < 56; i++) {
    int d = u[i] - p[i] - borrow;
    borrow = d < 0;
    reduced[i] = (uint8_t)d;
  }
  return !borrow;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t five[56] = {5};
  static const uint8_t a[56] = {0x1c, 0x30, 0x6a, 0x7a, 0xc2, 0xa0, 0xe2, 0xe0, 0x99, 0x0b};
  static const uint8_t b[56] = {0x9a, 0x8f, 0x49, 0x25, 0xd1, 0x51, 0x9f, 0x57, 0x75, 0xcf};
  if (size < 56)
    return 0;
  const uint8_t *u = data;
  const uint8_t *k = size >= 112 ? data + 56 : a;

  uint8_t out[56], zero[56] = {0};
  int status = mc_x448(out, k, u);
  if (status != 0 && status != MC_ERR_BAD_KEY)
    abort();
  if ((status == MC_ERR_BAD_KEY) != (memcmp(out, zero, 56) == 0))
    abort();

  uint8_t au[56], bu[56], bau[56], abu[56];
  mc_x448_scalarmult(au, a, u);
  mc_x448_scalarmult(bu, b, u);
  mc_x448_scalarmult(bau, b, au);
  mc_x448_scalarmult(abu, a, bu);
  if (memcmp(bau, abu, 56) != 0)
    abort();

  uint8_t reduced[56], again[56];
  if (ge_p(u, reduced)) {
    mc_x448_scalarmult(again, k, reduced);
    if (memcmp(again, out, 56) != 0)
      abort();
  }

  uint8_t pub[56], ladder[56];
  if (mc_x448_public_key(pub, u) != 0)
    abort();
  mc_x448_scalarmult(ladder, u, five);
  if (memcmp(pub, ladder, 56) != 0)
    abort();
  return 0;
}
