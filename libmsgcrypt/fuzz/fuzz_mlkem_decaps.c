// fuzz_mlkem_decaps.c: any bytes as an ML-KEM ciphertext against a fixed key
// of each level. Byte 0 picks the level and the mode:
//  - raw (bit 7 clear): the rest is the ciphertext. A ciphertext of the wrong
//    length must be refused with MC_ERR_BAD_CIPHERTEXT; one of the right
//    length must decapsulate to the implicit-rejection secret J(z || c) =
//    SHAKE256(z || c, 32), recomputed here with mc_shake. (Forging a valid
//    ciphertext for a key whose private part the input never sees would be a
//    break of ML-KEM; the comparison that decides is constant-time code that
//    gives the fuzzer no comparison hints.)
//  - tamper (bit 7 set): bytes 1..32 are an encapsulation's m, the rest is
//    XORed into the resulting ciphertext. Decapsulation must give the
//    encapsulated secret when the XOR changed nothing and J(z || c') when it
//    changed something.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

typedef struct {
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
} fixed_key;

static const fixed_key *key_for(int index, mc_mlkem_level level) {
  static fixed_key keys[3];
  static int ready[3];
  if (!ready[index]) {
    uint8_t seed[MC_MLKEM_SEED_LEN];
    for (size_t i = 0; i < sizeof seed; i++)
      seed[i] = (uint8_t)(i * 29 + index);
    if (mc_mlkem_keygen_from_seed(level, keys[index].pk, sizeof keys[index].pk, keys[index].sk,
                                  sizeof keys[index].sk, seed, sizeof seed) != 0)
      abort();
    ready[index] = 1;
  }
  return &keys[index];
}

static void rejection_secret(uint8_t out[32], const uint8_t *sk, size_t sk_len, const uint8_t *ct,
                             size_t ct_len) {
  uint8_t zc[32 + MC_MLKEM_MAX_CIPHERTEXT_LEN];
  memcpy(zc, sk + sk_len - 32, 32);
  memcpy(zc + 32, ct, ct_len);
  if (mc_shake(MC_SHAKE256, out, 32, zc, 32 + ct_len) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mc_mlkem_level levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  if (size < 1)
    return 0;
  int index = (data[0] & 0x7f) % 3;
  mc_mlkem_level level = levels[index];
  const fixed_key *key = key_for(index, level);
  size_t pk_len = mc_mlkem_public_key_len(level), sk_len = mc_mlkem_private_key_len(level);
  size_t ct_len = mc_mlkem_ciphertext_len(level);
  uint8_t ss[MC_MLKEM_SHARED_SECRET_LEN], want[MC_MLKEM_SHARED_SECRET_LEN];

  if (!(data[0] & 0x80)) {
    const uint8_t *ct = data + 1;
    size_t len = size - 1;
    int status = mc_mlkem_decaps(level, ss, key->sk, sk_len, ct, len);
    if (len != ct_len) {
      if (status != MC_ERR_BAD_CIPHERTEXT)
        abort();
      return 0;
    }
    if (status != 0)
      abort();
    rejection_secret(want, key->sk, sk_len, ct, len);
    if (memcmp(ss, want, sizeof ss) != 0)
      abort();
    return 0;
  }

  if (size < 1 + MC_MLKEM_ENCAPS_ENTROPY_LEN)
    return 0;
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss_enc[MC_MLKEM_SHARED_SECRET_LEN];
  if (mc_mlkem_encaps_derand(level, ct, sizeof ct, ss_enc, key->pk, pk_len, data + 1) != 0)
    abort();
  const uint8_t *tweak = data + 1 + MC_MLKEM_ENCAPS_ENTROPY_LEN;
  size_t tweak_len = size - 1 - MC_MLKEM_ENCAPS_ENTROPY_LEN;
  int changed = 0;
  for (size_t i = 0; i < tweak_len && i < ct_len; i++) {
    ct[i] ^= tweak[i];
    changed |= tweak[i] != 0;
  }
  if (mc_mlkem_decaps(level, ss, key->sk, sk_len, ct, ct_len) != 0)
    abort();
  if (changed)
    rejection_secret(want, key->sk, sk_len, ct, ct_len);
  else
    memcpy(want, ss_enc, sizeof want);
  if (memcmp(ss, want, sizeof ss) != 0)
    abort();
  return 0;
}
