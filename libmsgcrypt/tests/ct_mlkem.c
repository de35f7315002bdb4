// ct_mlkem.c: the constant-time check of ML-KEM (the ctgrind technique). For
// each level it marks the secrets undefined for Valgrind memcheck (the seed
// d || z for key generation, the randomness m for encapsulation, the whole
// expanded private key for decapsulation of a valid and of a tampered
// ciphertext), so that memcheck reports every branch and memory index that
// depends on them. Run under `valgrind --error-exitcode=1`: it passes when
// memcheck reports nothing and the decapsulated secrets are right. Outputs
// that are public (keys, ciphertexts) or that the test compares are marked
// defined before use; the library itself declassifies only rho and the
// public key embedded in the private key. Encapsulation runs twice on each
// key: cold, and warm from the per-thread key cache (which holds only what the
// public key determines), and both must give the same outputs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "msgcrypt.h"

static int check_level(mc_mlkem_level level, unsigned char fill) {
  uint8_t seed[MC_MLKEM_SEED_LEN], m[MC_MLKEM_ENCAPS_ENTROPY_LEN];
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss_enc[32], ss_dec[32], ss_bad[32];
  uint8_t ct_warm[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss_warm[32];
  size_t pk_len = mc_mlkem_public_key_len(level), sk_len = mc_mlkem_private_key_len(level);
  size_t ct_len = mc_mlkem_ciphertext_len(level);
  for (size_t i = 0; i < sizeof seed; i++)
    seed[i] = (uint8_t)(fill + 7 * i);
  for (size_t i = 0; i < sizeof m; i++)
    m[i] = (uint8_t)(fill ^ (13 * i));

  VALGRIND_MAKE_MEM_UNDEFINED(seed, sizeof seed);
  if (mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed, sizeof seed) != 0)
    return 0;
  VALGRIND_MAKE_MEM_DEFINED(pk, pk_len);

  VALGRIND_MAKE_MEM_UNDEFINED(m, sizeof m);
  if (mc_mlkem_encaps_derand(level, ct, sizeof ct, ss_enc, pk, pk_len, m) != 0)
    return 0;
  VALGRIND_MAKE_MEM_DEFINED(ct, ct_len);
  if (mc_mlkem_encaps_derand(level, ct_warm, sizeof ct_warm, ss_warm, pk, pk_len, m) != 0)
    return 0;
  VALGRIND_MAKE_MEM_DEFINED(ct_warm, ct_len);
  VALGRIND_MAKE_MEM_DEFINED(ss_warm, sizeof ss_warm);
  if (memcmp(ct, ct_warm, ct_len) != 0)
    return 0;

  VALGRIND_MAKE_MEM_UNDEFINED(sk, sk_len);
  if (mc_mlkem_decaps(level, ss_dec, sk, sk_len, ct, ct_len) != 0)
    return 0;
  // Implicit rejection takes the same path: a tampered ciphertext.
  ct[ct_len / 2] ^= 0x10;
  if (mc_mlkem_decaps(level, ss_bad, sk, sk_len, ct, ct_len) != 0)
    return 0;

  VALGRIND_MAKE_MEM_DEFINED(ss_enc, sizeof ss_enc);
  VALGRIND_MAKE_MEM_DEFINED(ss_dec, sizeof ss_dec);
  VALGRIND_MAKE_MEM_DEFINED(ss_bad, sizeof ss_bad);
  return memcmp(ss_enc, ss_dec, 32) == 0 && memcmp(ss_enc, ss_warm, 32) == 0 &&
         memcmp(ss_enc, ss_bad, 32) != 0;
}

int main(void) {
  static const mc_mlkem_level levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  int ok = 1;
  for (size_t i = 0; i < 3; i++) {
    for (unsigned char fill = 0; fill < 2; fill++) {
      if (!check_level(levels[i], (unsigned char)(fill * 0x5b + 1))) {
        fprintf(stderr, "ct_mlkem: level %d gave a wrong result\n", (int)levels[i]);
        ok = 0;
      }
    }
  }
  if (ok)
    printf("ct_mlkem: keygen, encaps, decaps and implicit rejection ran on undefined secrets\n");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
