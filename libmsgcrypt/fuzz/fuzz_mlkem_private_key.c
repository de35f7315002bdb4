// fuzz_mlkem_private_key.c: any bytes as an ML-KEM private key, expanded or
// in seed form. Byte 0 picks the level and the form:
//  - expanded (bit 7 clear): the §7.3 check must accept exactly the keys of
//    the right length whose stored H(ek) is SHA3-256 of the stored ek
//    (recomputed here); an accepted key must decapsulate a fixed ciphertext
//    without error, twice to the same secret.
//  - seed (bit 7 set): expansion must succeed exactly for 64 bytes, and the
//    expanded key must pass the §7.3 check and embed the public key.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mc_mlkem_level levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  if (size < 1)
    return 0;
  mc_mlkem_level level = levels[(data[0] & 0x7f) % 3];
  const uint8_t *in = data + 1;
  size_t in_len = size - 1;
  size_t pk_len = mc_mlkem_public_key_len(level), sk_len = mc_mlkem_private_key_len(level);
  size_t ct_len = mc_mlkem_ciphertext_len(level);

  if (data[0] & 0x80) {
    uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
    int status = mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, in, in_len);
    if (status != (in_len == MC_MLKEM_SEED_LEN ? 0 : MC_ERR_BAD_KEY))
      abort();
    if (status == 0 && (mc_mlkem_check_private_key(level, sk, sk_len) != 0 ||
                        mc_mlkem_check_public_key(level, pk, pk_len) != 0 ||
                        memcmp(sk + sk_len - 64 - pk_len, pk, pk_len) != 0))
      abort();
    return 0;
  }

  int want_ok = 0;
  if (in_len == sk_len) {
    const uint8_t *ek = in + sk_len - 64 - pk_len;
    uint8_t h[MC_SHA3_256_DIGEST_LEN];
    size_t h_len;
    if (mc_sha3(MC_SHA3_256, h, sizeof h, &h_len, ek, pk_len) != 0)
      abort();
    want_ok = memcmp(h, ek + pk_len, 32) == 0;
  }
  int status = mc_mlkem_check_private_key(level, in, in_len);
  if (status != (want_ok ? 0 : MC_ERR_BAD_KEY))
    abort();
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss1[32], ss2[32];
  memset(ct, 0x5a, sizeof ct);
  status = mc_mlkem_decaps(level, ss1, in, in_len, ct, ct_len);
  if (status != (want_ok ? 0 : MC_ERR_BAD_KEY))
    abort();
  if (want_ok &&
      (mc_mlkem_decaps(level, ss2, in, in_len, ct, ct_len) != 0 || memcmp(ss1, ss2, 32) != 0))
    abort();
  return 0;
}
