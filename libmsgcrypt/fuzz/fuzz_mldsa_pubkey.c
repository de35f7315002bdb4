// fuzz_mldsa_pubkey.c: any bytes as an ML-DSA public key. The first byte
// picks the level, the rest is the key. pkDecode (FIPS 204 Algorithm 23) must
// accept exactly the inputs of the level's length, every 10-bit t1 value
// being valid, and encoding the decoded key must give back the input bytes;
// the public verifier must refuse other lengths with MC_ERR_BAD_KEY and take
// the right length to the signature checks.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mldsa_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const mc_mldsa_level levels[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};
  static mc_mldsa_public_key pk;
  static uint8_t out[MC_MLDSA_MAX_PUBLIC_KEY_LEN];
  static const uint8_t sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  if (size < 1)
    return 0;
  mc_mldsa_level level = levels[data[0] % 3];
  const mc_mldsa_params *p = mc_mldsa_params_get(level);
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  int right_length = len == p->public_key_len;

  int status = mc_mldsa_public_key_decode(&pk, p, in, len);
  if (status != (right_length ? 0 : MC_ERR_BAD_KEY))
    abort();
  if (right_length) {
    memset(out, 0, sizeof out);
    mc_mldsa_public_key_encode(out, p, &pk);
    if (memcmp(out, in, len) != 0)
      abort();
    for (unsigned i = 0; i < p->k; i++)
      for (unsigned n = 0; n < MC_MLDSA_N; n++)
        if (pk.t1[i].c[n] < 0 || pk.t1[i].c[n] > 1023)
          abort();
  }
  // An all-zero signature is malformed for every key: c̃ = 0 may pass the
  // decoder, but it cannot match.
  status = mc_mldsa_verify(level, in, len, sig, p->signature_len, data, size, NULL, 0);
  if (status != (right_length ? MC_ERR_BAD_SIGNATURE : MC_ERR_BAD_KEY))
    abort();
  return 0;
}
