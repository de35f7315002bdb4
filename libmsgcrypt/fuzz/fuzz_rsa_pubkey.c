// fuzz_rsa_pubkey.c: an RSA public key given as modulus and exponent bytes,
// as OpenPGP and X.509 parsers will hand them over. Whatever the bytes, the
// encryption either refuses the key (or a message too long for it) or yields a
// ciphertext exactly as long as the modulus and numerically below it.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

// Moduli above 4096 bits are legal but too slow to be worth fuzzing.
enum { MAX_MODULUS = 512 };

// below compares two big-endian numbers of the same length.
static int below(const uint8_t *a, const uint8_t *b, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (a[i] != b[i])
      return a[i] < b[i];
  return 0;
}

static void check(int rc, const uint8_t *out, size_t out_len, const uint8_t *modulus,
                  size_t modulus_len) {
  if (rc == MC_ERR_BAD_KEY || rc == MC_ERR_INVALID_ARGUMENT)
    return;
  if (rc != 0)
    abort();
  while (modulus_len > 0 && modulus[0] == 0) // leading zeros are allowed
    modulus++, modulus_len--;
  if (out_len != modulus_len || !below(out, modulus, out_len))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  size_t modulus_len = ((size_t)data[0] << 8 | data[1]) % (MAX_MODULUS + 1);
  if (size - 2 < modulus_len)
    return 0;
  const uint8_t *modulus = data + 2;
  const uint8_t *exponent = modulus + modulus_len;
  size_t exponent_len = size - 2 - modulus_len;
  static const uint8_t message[16] = "session key 123";
  uint8_t out[MAX_MODULUS];
  size_t out_len = 0;
  int rc = mc_rsa_encrypt_pkcs1(out, sizeof out, &out_len, modulus, modulus_len, exponent,
                                exponent_len, message, sizeof message);
  check(rc, out, out_len, modulus, modulus_len);
  rc = mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &out_len, modulus, modulus_len,
                           exponent, exponent_len, NULL, 0, message, sizeof message);
  check(rc, out, out_len, modulus, modulus_len);
  return 0;
}
