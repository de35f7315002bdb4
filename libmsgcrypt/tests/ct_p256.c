// ct_p256.c: the constant-time check of libmsgcrypt's P-256 (the ctgrind
// technique, as ct_x25519.c). It marks the private scalar undefined for
// Valgrind's memcheck and runs mc_p256_ecdh through the implementation in
// use (meson runs it once per implementation with MSGCRYPT_IMPL), then both
// kernels directly (the variable-base one with a repeated peer, which the
// x86-64 kernel serves from a table, and alone with the peer's point secret);
// only the results are marked defined again. Memcheck reports every branch
// or memory index that depends on a secret: the scalar recoding, the masked
// table scans, the field arithmetic's carries and final subtractions, the
// inversion and the range check must show none. Results must match a run on
// defined inputs. Valgrind's virtual CPU does not announce ADX, so with
// MSGCRYPT_IMPL=adxsha this test calls that entry's kernels directly.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "impl_internal.h"
#include "msgcrypt.h"
#include "p256_internal.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures = 0;

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "ct_p256: %s\n", what);
    failures++;
  }
}

static void fill(uint8_t *p, size_t n, uint8_t seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(seed + 29 * i + (i >> 3));
  p[0] &= 0x7f; // below n
}

typedef struct {
  const char *name;
  void (*mul)(uint8_t out_x[32], const uint8_t scalar[32], const uint8_t point_xy[64]);
  void (*base)(uint8_t out_xy[64], const uint8_t scalar[32]);
  void (*window)(uint8_t out_x[32], const uint8_t scalar[32], const uint8_t point_xy[64]);
} kernels;

static kernels chosen(void) {
  kernels k = {mc_impl_name(), mc_impl_current()->p256_mul, mc_impl_current()->p256_base,
               mc_impl_current()->p256_mul};
#if defined(__x86_64__)
  const char *env = getenv("MSGCRYPT_IMPL");
  if (env != NULL && strcmp(env, "adxsha") == 0)
    k = (kernels){"adxsha, direct", mc_p256_mul_adx, mc_p256_base_adx, mc_p256_mul_window_adx};
#endif
  return k;
}

static void check(uint8_t seed) {
  kernels im = chosen();
  uint8_t k[32], peer_k[32], peer[65], xy[64], pub[65], want_pub[65], shared[32], want_shared[32];
  fill(k, sizeof k, seed);
  fill(peer_k, sizeof peer_k, (uint8_t)(seed + 101));
  peer[0] = 0x04;
  mc_p256_base_scalar(peer + 1, peer_k);
  memcpy(xy, peer + 1, 64);
  want_pub[0] = 0x04;
  mc_p256_base_scalar(want_pub + 1, k);
  mc_p256_mul_scalar(want_shared, k, xy);

  SECRET(k, sizeof k);
  int rc = mc_p256_ecdh(pub, shared, k, peer, sizeof peer);
  // The status says only whether the scalar was in range.
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pub, sizeof pub);
  PUBLIC(shared, sizeof shared);
  expect(rc == 0 && memcmp(pub, want_pub, 65) == 0, "public key");
  expect(memcmp(shared, want_shared, 32) == 0, "shared secret");

  im.base(pub + 1, k);
  PUBLIC(pub, sizeof pub);
  expect(memcmp(pub, want_pub, 65) == 0, "fixed base");
  // The kernel on its own, three times with the same peer: the x86-64 one
  // then answers from a table of the peer's multiples, chosen by the secret
  // scalar's digits with the same masked scans as the base point's.
  for (int use = 0; use < 3; use++) {
    im.mul(shared, k, xy);
    PUBLIC(shared, sizeof shared);
    expect(memcmp(shared, want_shared, 32) == 0, "variable base, repeated peer");
  }
  // The fixed-window multiplication with the point secret as well.
  SECRET(xy, sizeof xy);
  im.window(shared, k, xy);
  PUBLIC(shared, sizeof shared);
  expect(memcmp(shared, want_shared, 32) == 0, "variable base");

  // An out-of-range scalar (n itself) is refused without a branch on it.
  static const uint8_t n[32] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
                                0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
  memcpy(k, n, 32);
  SECRET(k, sizeof k);
  rc = mc_p256_ecdh(pub, shared, k, peer, sizeof peer);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pub, sizeof pub);
  PUBLIC(shared, sizeof shared);
  static const uint8_t zero[65];
  expect(rc == MC_ERR_BAD_KEY && memcmp(pub, zero, 65) == 0 && memcmp(shared, zero, 32) == 0,
         "scalar n refused");
}

int main(void) {
  // Choose the implementation on defined data first.
  (void)mc_impl_current();
  for (uint8_t seed = 0; seed < 3; seed++)
    check((uint8_t)(seed * 53 + 7));
  if (failures != 0) {
    fprintf(stderr, "ct_p256 (%s): %d failures\n", chosen().name, failures);
    return 1;
  }
  printf("ct_p256 (%s): ok\n", chosen().name);
  return 0;
}
