// fuzz_aes_kw_unwrap.c: any bytes as RFC 3394 wrapped key data, and as a
// tampering of a genuine wrapping. Byte 0 chooses the key-encryption key's
// length (16, 24, 32) and the mode; the KEK follows, then the rest:
//  - raw (bit 7 clear): the rest is the wrapped key. Unwrapping must never
//    crash; a length that is not a multiple of 8 from 24 up gives
//    MC_ERR_BAD_CIPHERTEXT, a failed integrity check MC_ERR_AUTH_FAILED with
//    a zeroed output, and a success must wrap back to exactly the input.
//  - tamper (bit 7 set): the first multiple of 8 bytes (at least 16) of the
//    rest's first half is key data, wrapped under the KEK; the second half is
//    XORed into the wrapping, and unwrapping must succeed exactly when that
//    changed nothing.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  static const size_t kek_lens[3] = {16, 24, 32};
  size_t kek_len = kek_lens[data[0] % 3];
  int tamper = data[0] >> 7;
  if (size < 1 + kek_len)
    return 0;
  const uint8_t *kek = data + 1, *rest = kek + kek_len;
  size_t rest_len = size - 1 - kek_len, n = 777, m;
  if (rest_len > MC_AES_KW_MAX_KEY_DATA_LEN)
    return 0;
  uint8_t *out = malloc(rest_len + 8), *again = malloc(rest_len + 8);
  if (out == NULL || again == NULL)
    abort();

  if (!tamper) {
    memset(out, 0x5a, rest_len + 8);
    int rc = mc_aes_kw_unwrap(out, rest_len + 8, &n, kek, kek_len, rest, rest_len);
    if (rest_len < 24 || rest_len % 8 != 0) {
      if (rc != MC_ERR_BAD_CIPHERTEXT)
        abort();
    } else if (rc == 0) {
      if (n != rest_len - 8 || mc_aes_kw_wrap(again, rest_len + 8, &m, kek, kek_len, out, n) != 0 ||
          m != rest_len || memcmp(again, rest, rest_len) != 0)
        abort();
    } else {
      if (rc != MC_ERR_AUTH_FAILED || n != 0)
        abort();
      for (size_t i = 0; i < rest_len - 8; i++)
        if (out[i] != 0)
          abort();
    }
  } else {
    size_t half = rest_len / 2, key_len = half - half % 8;
    if (key_len >= 16) {
      const uint8_t *mask = rest + half;
      size_t mask_len = rest_len - half;
      if (mc_aes_kw_wrap(out, rest_len + 8, &n, kek, kek_len, rest, key_len) != 0 ||
          n != key_len + 8)
        abort();
      int changed = 0;
      for (size_t i = 0; i < mask_len && i < n; i++) {
        out[i] ^= mask[i];
        changed |= mask[i];
      }
      int rc = mc_aes_kw_unwrap(again, rest_len + 8, &m, kek, kek_len, out, n);
      if (changed ? rc != MC_ERR_AUTH_FAILED
                  : (rc != 0 || m != key_len || memcmp(again, rest, key_len) != 0))
        abort();
    }
  }
  free(out);
  free(again);
  return 0;
}
