// ct_mldsa.c: constant-time check of ML-DSA key generation and signing, run
// under Valgrind memcheck (the ctgrind technique). The seed ξ and then the
// private key and signing randomness are marked undefined; memcheck reports
// any branch or memory index that depends on them. The library itself marks
// defined only what FIPS 204 lets leak or publishes (mldsa.c says which:
// each attempt's rejection decision, the samplers' accept bits, ρ and the
// returned hints). The public outputs are marked defined here before they
// are checked with the verifier. Exit status 0 and no Valgrind report pass.
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "msgcrypt.h"

static int check_level(mc_mldsa_level level) {
  size_t pk_len = mc_mldsa_public_key_len(level), sk_len = mc_mldsa_private_key_len(level);
  size_t sig_len = mc_mldsa_signature_len(level);
  static uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  static uint8_t sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  uint8_t seed[MC_MLDSA_SEED_LEN], rnd[MC_MLDSA_RND_LEN], msg[40], ctx[5] = "mail";
  for (size_t i = 0; i < sizeof seed; i++)
    seed[i] = (uint8_t)(i * 29 + (unsigned)level);

  // Key generation with a secret seed; the public key is public output.
  VALGRIND_MAKE_MEM_UNDEFINED(seed, sizeof seed);
  if (mc_mldsa_keygen_from_seed(level, pk, pk_len, sk, sk_len, seed) != 0)
    return 1;
  VALGRIND_MAKE_MEM_DEFINED(pk, pk_len);

  // Signing with a secret private key and rnd, over several messages so that
  // both accepted and rejected attempts occur.
  for (int m = 0; m < 4; m++) {
    memset(msg, 'a' + m, sizeof msg);
    for (size_t i = 0; i < sizeof rnd; i++)
      rnd[i] = (uint8_t)(i + 3 * (unsigned)m);
    VALGRIND_MAKE_MEM_UNDEFINED(sk, sk_len);
    VALGRIND_MAKE_MEM_UNDEFINED(rnd, sizeof rnd);
    int status;
    if (m % 3 == 0)
      status = mc_mldsa_sign_deterministic(level, sig, sig_len, sk, sk_len, msg, sizeof msg, ctx,
                                           sizeof ctx);
    else if (m % 3 == 1)
      status = mc_mldsa_sign(level, sig, sig_len, sk, sk_len, msg, sizeof msg, ctx, sizeof ctx);
    else
      status = mc_mldsa_sign_internal(level, sig, sig_len, sk, sk_len, msg, sizeof msg, rnd);
    if (status != 0)
      return 1;
    VALGRIND_MAKE_MEM_DEFINED(sig, sig_len);
    status = m % 3 == 2 ? mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, msg, sizeof msg)
                        : mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, ctx,
                                          sizeof ctx);
    if (status != 0)
      return 1;
  }
  return 0;
}

int main(void) {
  static const mc_mldsa_level levels[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
    if (check_level(levels[i]) != 0) {
      fprintf(stderr, "ct_mldsa: level %zu failed\n", i);
      return 1;
    }
  }
  return 0;
}
