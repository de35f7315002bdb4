// fuzz_mlkem_encaps_key.c: any bytes as an ML-KEM public (encapsulation) key.
// The first byte picks the level, the rest is the key. The §7.2 check must
// accept exactly the keys of the right length whose 12-bit coefficients are
// all below q (recomputed here from the definition); an accepted key must
// encapsulate, deterministically for a fixed m, to a ciphertext of the
// level's length, and a refused key must be refused by encapsulation too.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

static int coefficients_below_q(const uint8_t *ek, size_t len) {
  for (size_t i = 0; i + 3 <= len - 32; i += 3) {
    unsigned x = ek[i] | (ek[i + 1] & 0x0fu) << 8, y = ek[i + 1] >> 4 | (unsigned)ek[i + 2] << 4;
    if (x >= 3329 || y >= 3329)
      return 0;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mc_mlkem_level levels[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  if (size < 1)
    return 0;
  mc_mlkem_level level = levels[data[0] % 3];
  const uint8_t *ek = data + 1;
  size_t ek_len = size - 1;
  int want_ok = ek_len == mc_mlkem_public_key_len(level) && coefficients_below_q(ek, ek_len);

  int status = mc_mlkem_check_public_key(level, ek, ek_len);
  if (status != (want_ok ? 0 : MC_ERR_BAD_KEY))
    abort();

  static const uint8_t m[MC_MLKEM_ENCAPS_ENTROPY_LEN] = {0x42};
  uint8_t ct1[MC_MLKEM_MAX_CIPHERTEXT_LEN], ct2[MC_MLKEM_MAX_CIPHERTEXT_LEN];
  uint8_t ss1[MC_MLKEM_SHARED_SECRET_LEN], ss2[MC_MLKEM_SHARED_SECRET_LEN];
  size_t ct_len = mc_mlkem_ciphertext_len(level);
  status = mc_mlkem_encaps_derand(level, ct1, ct_len, ss1, ek, ek_len, m);
  if (status != (want_ok ? 0 : MC_ERR_BAD_KEY))
    abort();
  if (!want_ok)
    return 0;
  if (mc_mlkem_encaps_derand(level, ct2, ct_len, ss2, ek, ek_len, m) != 0 ||
      memcmp(ct1, ct2, ct_len) != 0 || memcmp(ss1, ss2, sizeof ss1) != 0)
    abort();
  // Random encapsulation to the same key works as well.
  if (mc_mlkem_encaps(level, ct2, ct_len, ss2, ek, ek_len) != 0)
    abort();
  return 0;
}
