// ct_x25519.c: the constant-time check of X25519 (the ctgrind technique, as
// ct_curve448.c). It marks the private keys undefined for Valgrind's
// memcheck, runs public-key derivation and shared-secret computation through
// the implementation in use (meson runs it once per implementation with
// MSGCRYPT_IMPL) and both kernels directly, with the peer's u secret too,
// and marks only the results defined again. Memcheck reports every branch
// or memory index that depends on a secret: the fixed-base table scans, the
// ladder's swaps and the final reduction must show none. The results must
// also match a run on defined inputs. Valgrind's virtual CPU does not
// announce ADX, so the table never picks "adxsha" under it; with
// MSGCRYPT_IMPL=adxsha this test calls those kernels directly instead
// (Valgrind runs the instructions, it only leaves them out of CPUID).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "impl_internal.h"
#include "msgcrypt.h"
#include "x25519_internal.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures = 0;

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "ct_x25519: %s\n", what);
    failures++;
  }
}

static void fill(uint8_t *p, size_t n, uint8_t seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(seed + 29 * i + (i >> 3));
}

typedef struct {
  const char *name;
  void (*x25519)(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
  void (*x25519_base)(uint8_t out[32], const uint8_t scalar[32]);
  void (*ladder)(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32]);
  // Both results with one shared inversion, where the entry has it.
  void (*pair)(uint8_t pub[32], uint8_t shared[32], const uint8_t scalar[32], const uint8_t u[32]);
} kernels;

static kernels chosen(void) {
  kernels k = {mc_impl_name(), mc_impl_current()->x25519, mc_impl_current()->x25519_base,
               mc_impl_current()->x25519, NULL};
#if defined(__x86_64__)
  const char *env = getenv("MSGCRYPT_IMPL");
  if (env != NULL && strcmp(env, "adxsha") == 0)
    k = (kernels){"adxsha, direct", mc_x25519_scalarmult_adx, mc_x25519_base_adx,
                  mc_x25519_ladder_adx, mc_x25519_pair_adx};
#endif
  return k;
}

static void check(uint8_t seed) {
  kernels im = chosen();
  uint8_t k[32], peer_k[32], peer[32], pub[32], want_pub[32], shared[32], want_shared[32];
  fill(k, sizeof k, seed);
  fill(peer_k, sizeof peer_k, (uint8_t)(seed + 101));
  expect(mc_x25519_public_key(peer, peer_k) == 0, "peer key");
  mc_x25519_base_scalar(want_pub, k);
  mc_x25519_scalarmult_scalar(want_shared, k, peer);

  SECRET(k, sizeof k);
  int rc = mc_x25519_public_key(pub, k);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pub, sizeof pub);
  expect(rc == 0 && memcmp(pub, want_pub, 32) == 0, "public key");

  rc = mc_x25519(shared, k, peer);
  // The status says only whether the secret is zero, which the caller may
  // reveal; the secret itself stays undefined until the comparison.
  PUBLIC(&rc, sizeof rc);
  PUBLIC(shared, sizeof shared);
  expect(rc == 0 && memcmp(shared, want_shared, 32) == 0, "shared secret");

  // The kernel on its own, three times with the same peer: the x86-64 one
  // then answers from a table of the peer's multiples, chosen by the secret
  // scalar's digits with the same masked scans as the base point's.
  for (int use = 0; use < 3; use++) {
    im.x25519(shared, k, peer);
    PUBLIC(shared, sizeof shared);
    expect(memcmp(shared, want_shared, 32) == 0, "shared secret, repeated peer");
  }
  // The ephemeral key and the shared secret together, through the public
  // entry point and (adxsha) the pair kernel, whose masked fix-up of a zero
  // denominator must not depend on the secret either.
  rc = mc_x25519_ephemeral(pub, shared, k, peer);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pub, sizeof pub);
  PUBLIC(shared, sizeof shared);
  expect(rc == 0 && memcmp(pub, want_pub, 32) == 0 && memcmp(shared, want_shared, 32) == 0,
         "ephemeral");
  if (im.pair != NULL) {
    for (int use = 0; use < 2; use++) {
      im.pair(pub, shared, k, peer);
      PUBLIC(pub, sizeof pub);
      PUBLIC(shared, sizeof shared);
      expect(memcmp(pub, want_pub, 32) == 0 && memcmp(shared, want_shared, 32) == 0,
             "pair, repeated peer");
    }
  }
  // The ladder, with the peer's u secret as well.
  SECRET(peer, sizeof peer);
  im.ladder(shared, k, peer);
  PUBLIC(shared, sizeof shared);
  expect(memcmp(shared, want_shared, 32) == 0, "ladder");
  im.x25519_base(pub, k);
  PUBLIC(pub, sizeof pub);
  expect(memcmp(pub, want_pub, 32) == 0, "fixed base");
}

int main(void) {
  // Choose the implementation (and build the fixed-base table) on defined
  // data first: neither depends on a secret.
  uint8_t warm[32] = {1};
  if (mc_x25519_public_key(warm, warm) != 0)
    return 1;
  chosen().x25519_base(warm, warm);
  for (uint8_t seed = 0; seed < 4; seed++)
    check((uint8_t)(seed * 53 + 7));
  if (failures != 0) {
    fprintf(stderr, "ct_x25519 (%s): %d failures\n", chosen().name, failures);
    return 1;
  }
  printf("ct_x25519 (%s): ok\n", chosen().name);
  return 0;
}
