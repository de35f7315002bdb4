// ct_curve448.c: the constant-time check of X448 and Ed448 (the ctgrind
// technique). It marks the secrets undefined for Valgrind's memcheck (X448
// private keys, Ed448 private keys and, through them, the secret scalar and
// the signing nonce, plus the scalars given to the internal scalar
// multiplications and scalar arithmetic), runs key generation, X448 and
// signing, and marks only the public results defined again. Memcheck then
// reports every branch or memory index that depends on a secret; the test
// passes when it reports nothing (valgrind --error-exitcode=1) and the
// results match a run on defined inputs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "curve448_internal.h"
#include "msgcrypt.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures = 0;

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "ct_curve448: %s\n", what);
    failures++;
  }
}

static void fill(uint8_t *p, size_t n, uint8_t seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(seed + 29 * i + (i >> 3));
}

static void check_x448(uint8_t seed) {
  uint8_t k[56], peer_k[56], peer[56], pub[56], want_pub[56], shared[56], want_shared[56];
  fill(k, sizeof k, seed);
  fill(peer_k, sizeof peer_k, (uint8_t)(seed + 101));
  expect(mc_x448_public_key(peer, peer_k) == 0, "peer key");
  expect(mc_x448_public_key(want_pub, k) == 0, "reference public key");
  expect(mc_x448(want_shared, k, peer) == 0, "reference shared secret");

  SECRET(k, sizeof k);
  int rc = mc_x448_public_key(pub, k);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pub, sizeof pub);
  expect(rc == 0 && memcmp(pub, want_pub, 56) == 0, "public key");

  rc = mc_x448(shared, k, peer);
  // The status says only whether the secret is zero, which the caller may
  // reveal; the secret itself stays undefined until the comparison.
  PUBLIC(&rc, sizeof rc);
  PUBLIC(shared, sizeof shared);
  expect(rc == 0 && memcmp(shared, want_shared, 56) == 0, "shared secret");

  // The ladder on its own, with the peer's u secret too.
  SECRET(peer, sizeof peer);
  mc_x448_scalarmult(shared, k, peer);
  PUBLIC(shared, sizeof shared);
  expect(memcmp(shared, want_shared, 56) == 0, "ladder");
}

static void check_ed448(uint8_t seed) {
  uint8_t sk[57], pk[57], want_pk[57], sig[114], want_sig[114], msg[77], ctx[9];
  fill(sk, sizeof sk, seed);
  fill(msg, sizeof msg, (uint8_t)(seed + 7));
  fill(ctx, sizeof ctx, (uint8_t)(seed + 13));
  expect(mc_ed448_public_key(want_pk, sk) == 0, "reference public key");
  expect(mc_ed448_sign(want_sig, sk, msg, sizeof msg, ctx, sizeof ctx) == 0, "reference sign");

  SECRET(sk, sizeof sk);
  int rc = mc_ed448_public_key(pk, sk);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(pk, sizeof pk);
  expect(rc == 0 && memcmp(pk, want_pk, 57) == 0, "ed448 public key");

  rc = mc_ed448_sign(sig, sk, msg, sizeof msg, ctx, sizeof ctx);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(sig, sizeof sig);
  expect(rc == 0 && memcmp(sig, want_sig, 114) == 0, "ed448 sign");
  expect(mc_ed448_verify(pk, sig, sizeof sig, msg, sizeof msg, ctx, sizeof ctx) == 0,
         "ed448 verify");

  rc = mc_ed448ph_sign(sig, sk, msg, sizeof msg, ctx, sizeof ctx);
  PUBLIC(&rc, sizeof rc);
  PUBLIC(sig, sizeof sig);
  expect(rc == 0, "ed448ph sign");
  expect(mc_ed448ph_verify(pk, sig, sizeof sig, msg, sizeof msg, ctx, sizeof ctx) == 0,
         "ed448ph verify");
}

// The internal pieces with secret inputs: scalar reduction and multiply-add,
// and both scalar multiplications (the variable-base one is used only for
// public data today, but it is documented constant-time).
static void check_internals(uint8_t seed) {
  uint8_t wide[114], a[56], b[56], c[56], out[56], enc[57];
  fill(wide, sizeof wide, seed);
  SECRET(wide, sizeof wide);
  mc_sc448_reduce(a, wide, sizeof wide);
  mc_sc448_reduce(b, wide + 20, 57);
  mc_sc448_reduce(c, wide + 50, 64);
  mc_sc448_muladd(out, a, b, c);
  PUBLIC(out, sizeof out);

  mc_ed448_point p, q;
  mc_ed448_scalarmult_base(&p, a);
  mc_ed448_scalarmult(&q, &p, b);
  mc_ed448_point_encode(enc, &q);
  PUBLIC(enc, sizeof enc);
  mc_ed448_point_montgomery_u(out, &p);
  PUBLIC(out, sizeof out);
}

int main(void) {
  for (uint8_t seed = 1; seed <= 3; seed++) {
    check_x448(seed);
    check_ed448(seed);
    check_internals(seed);
  }
  if (failures != 0) {
    fprintf(stderr, "ct_curve448: %d failures\n", failures);
    return EXIT_FAILURE;
  }
  printf("ct_curve448: ok\n");
  return EXIT_SUCCESS;
}
