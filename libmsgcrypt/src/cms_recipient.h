// cms_recipient.h: the one structure the X.509 certificate reader hands to
// the CMS encryption engine. The reader (x509*.c) turns a validated
// recipient certificate into a cms_recipient; the engine (cms_*.c) needs
// nothing else, so either side can change its internals without touching
// the other.
#ifndef MC_CMS_RECIPIENT_H
#define MC_CMS_RECIPIENT_H

#include <stddef.h>
#include <stdint.h>

// The public-key types a recipient certificate can carry.
typedef enum cms_key_type {
  CMS_KEY_RSA = 1,
  CMS_KEY_EC_P256,
  CMS_KEY_EC_P384,
  CMS_KEY_EC_P521,
  CMS_KEY_X25519,
  CMS_KEY_X448,
  CMS_KEY_MLKEM512,
  CMS_KEY_MLKEM768,
  CMS_KEY_MLKEM1024,
} cms_key_type;

// cms_recipient describes one recipient certificate. Every pointer borrows
// from the parsed certificate, which must outlive the recipient.
typedef struct cms_recipient {
  cms_key_type type;

  // RSA: big-endian modulus and exponent without leading zero bytes.
  const uint8_t *rsa_n;
  size_t rsa_n_len;
  const uint8_t *rsa_e;
  size_t rsa_e_len;

  // EC: the uncompressed point (0x04 || X || Y); X25519/X448: the raw key;
  // ML-KEM: the encapsulation key (RFC 9935 subjectPublicKey bytes).
  const uint8_t *pub;
  size_t pub_len;

  // Recipient identifiers (RFC 5652 §6.2.1): the DER of the issuer Name
  // and of the serial number's contents (the INTEGER's value bytes), and
  // the subjectKeyIdentifier extension's value (NULL when absent).
  const uint8_t *issuer_der;
  size_t issuer_der_len;
  const uint8_t *serial;
  size_t serial_len;
  const uint8_t *ski;
  size_t ski_len;
} cms_recipient;

#endif // MC_CMS_RECIPIENT_H
