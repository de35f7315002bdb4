// fuzz_tls_keys.c: libFuzzer harness for the key file reader. The same bytes
// are read as a private key file and as an allowed-clients list. A private
// key that is accepted must be Ed25519 and survive writing and reading back
// with the same public key; an accepted list must hold only keys that write
// back to PEM and read back to the same bytes; a refusal must leave no
// output behind and use only the documented codes.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "corvid_fuzz.h"
#include "keep.h"
#include "keep_tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  EVP_PKEY *k = (EVP_PKEY *)1;
  int rc = keep_tls_key_parse(&k, data, size);
  FUZZ_CHECK(rc == 0 || rc == KEEP_ERR_INVALID_ARGUMENT || rc == -ENOMEM);
  FUZZ_CHECK((rc == 0) == (k != NULL));
  if (rc == 0) {
    FUZZ_CHECK(EVP_PKEY_id(k) == EVP_PKEY_ED25519);
    char priv[256], pub[256], pub2[256];
    FUZZ_CHECK(keep_tls_pem_private(priv, sizeof priv, k) == 0);
    FUZZ_CHECK(keep_tls_pem_public(pub, sizeof pub, k) == 0);
    EVP_PKEY *back = NULL;
    FUZZ_CHECK(keep_tls_key_parse(&back, (const uint8_t *)priv, strlen(priv)) == 0);
    FUZZ_CHECK(keep_tls_pem_public(pub2, sizeof pub2, back) == 0);
    FUZZ_CHECK(strcmp(pub, pub2) == 0);
    keep_tls_key_free(back);
    keep_tls_key_free(k);
  }
  keep_tls_pins *p = (keep_tls_pins *)1;
  rc = keep_tls_pins_parse(&p, data, size, true);
  FUZZ_CHECK(rc == 0 || rc == KEEP_ERR_INVALID_ARGUMENT || rc == -ENOMEM);
  FUZZ_CHECK((rc == 0) == (p != NULL));
  if (rc == 0) {
    FUZZ_CHECK(p->num <= KEEP_TLS_MAX_PINS);
    for (size_t i = 0; i < p->num && i < 4; i++) {
      // Each pin is a DER SPKI: armour it and read it back.
      char text[256];
      size_t b64_len;
      FUZZ_CHECK(EVP_EncodedLength(&b64_len, KEEP_TLS_SPKI_LEN) && b64_len < 100);
      memcpy(text, "-----BEGIN PUBLIC KEY-----\n", 27);
      EVP_EncodeBlock((uint8_t *)text + 27, p->spki[i], KEEP_TLS_SPKI_LEN);
      strcat(text, "\n-----END PUBLIC KEY-----\n");
      keep_tls_pins *q = NULL;
      FUZZ_CHECK(keep_tls_pins_parse(&q, (const uint8_t *)text, strlen(text), false) == 0);
      FUZZ_CHECK(q->num == 1 && memcmp(q->spki[0], p->spki[i], KEEP_TLS_SPKI_LEN) == 0);
      keep_tls_pins_free(q);
    }
    keep_tls_pins_free(p);
  }
  return 0;
}
