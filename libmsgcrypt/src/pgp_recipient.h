// pgp_recipient.h: the one structure the OpenPGP key reader hands to the
// OpenPGP encryption engine. The key reader (pgp_key*.c) turns a verified
// certificate's chosen encryption subkey into a pgp_recipient; the engine
// (pgp_encrypt*.c) needs nothing else, so either side can change its
// internals without touching the other.
#ifndef MC_PGP_RECIPIENT_H
#define MC_PGP_RECIPIENT_H

#include <stddef.h>
#include <stdint.h>

// RFC 9580 §9.1 and RFC 9980 public-key algorithm identifiers that can
// receive a session key.
enum {
  PGP_PK_RSA = 1,
  PGP_PK_RSA_ENCRYPT_ONLY = 2,
  PGP_PK_ECDH = 18,
  PGP_PK_X25519 = 25,
  PGP_PK_X448 = 26,
  PGP_PK_MLKEM768_X25519 = 35,
  PGP_PK_MLKEM1024_X448 = 36,
};

// RFC 9580 §5.2.3.25 Features bits (first octet).
#define PGP_FEATURE_SEIPDV1 0x01u
#define PGP_FEATURE_SEIPDV2 0x08u

// The most preferences kept from one key's signature.
#define PGP_MAX_PREFS 16

// pgp_recipient describes one encryption-capable (sub)key. Every pointer
// borrows from the parsed certificate, which must outlive the recipient.
typedef struct pgp_recipient {
  uint8_t version; // key packet version: 4 or 6
  uint8_t algo;    // PGP_PK_*
  uint8_t fpr[32]; // fingerprint of the encryption subkey (20 bytes for v4)
  size_t fpr_len;
  uint8_t key_id[8]; // v4: last 8 fingerprint bytes; v6: first 8

  // RSA (1, 2): big-endian integers without leading zero bytes.
  const uint8_t *rsa_n;
  size_t rsa_n_len;
  const uint8_t *rsa_e;
  size_t rsa_e_len;

  // ECDH (18): the curve OID's bytes (no length octet), the point as the
  // MPI holds it (0x04 || X || Y for NIST curves, 0x40 || X for the legacy
  // Curve25519 form) and the KDF parameters (hash and key-wrap cipher ids).
  const uint8_t *ecdh_oid;
  size_t ecdh_oid_len;
  const uint8_t *ecdh_point;
  size_t ecdh_point_len;
  uint8_t ecdh_kdf_hash;
  uint8_t ecdh_kdf_cipher;

  // X25519/X448 (25, 26): the native public key; for the ML-KEM
  // composites (35, 36) the ECC share of the key.
  const uint8_t *ecc_pub;
  size_t ecc_pub_len;
  // ML-KEM composites (35, 36): the ML-KEM encapsulation key.
  const uint8_t *mlkem_pub;
  size_t mlkem_pub_len;

  // What the certificate announces (from its valid self-signatures): the
  // Features octet, the preferred symmetric algorithms (RFC 9580 §9.3 ids,
  // most preferred first) and the preferred AEAD ciphersuites (pairs of
  // symmetric id, AEAD id).
  uint8_t features;
  uint8_t pref_sym[PGP_MAX_PREFS];
  size_t num_pref_sym;
  uint8_t pref_aead[2 * PGP_MAX_PREFS];
  size_t num_pref_aead; // number of pairs
} pgp_recipient;

#endif // MC_PGP_RECIPIENT_H
