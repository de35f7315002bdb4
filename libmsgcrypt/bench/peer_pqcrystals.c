// peer_pqcrystals.c: the adapter between bench_msgcrypt and the authors'
// reference implementations of ML-KEM and ML-DSA (pq-crystals kyber and
// dilithium, ref/ folders), which bench/build-pqcrystals.sh builds outside the
// repository into one static library with a prefix per level. Only a switch
// on the level lives here; the work is all theirs.
#include <pqcrystals/dilithium_api.h>
#include <pqcrystals/kyber_api.h>

#include "bench_internal.h"

int peer_ref_mlkem_keygen(int level, uint8_t *pk, uint8_t *sk, const uint8_t coins[64]) {
  switch (level) {
  case 512:
    return pqcrystals_kyber512_ref_keypair_derand(pk, sk, coins);
  case 768:
    return pqcrystals_kyber768_ref_keypair_derand(pk, sk, coins);
  case 1024:
    return pqcrystals_kyber1024_ref_keypair_derand(pk, sk, coins);
  default:
    return -1;
  }
}

int peer_ref_mlkem_encaps(int level, uint8_t *ct, uint8_t ss[32], const uint8_t *pk,
                          const uint8_t coins[32]) {
  switch (level) {
  case 512:
    return pqcrystals_kyber512_ref_enc_derand(ct, ss, pk, coins);
  case 768:
    return pqcrystals_kyber768_ref_enc_derand(ct, ss, pk, coins);
  case 1024:
    return pqcrystals_kyber1024_ref_enc_derand(ct, ss, pk, coins);
  default:
    return -1;
  }
}

int peer_ref_mlkem_decaps(int level, uint8_t ss[32], const uint8_t *ct, const uint8_t *sk) {
  switch (level) {
  case 512:
    return pqcrystals_kyber512_ref_dec(ss, ct, sk);
  case 768:
    return pqcrystals_kyber768_ref_dec(ss, ct, sk);
  case 1024:
    return pqcrystals_kyber1024_ref_dec(ss, ct, sk);
  default:
    return -1;
  }
}

int peer_ref_mldsa_keygen(int level, uint8_t *pk, uint8_t *sk) {
  switch (level) {
  case 44:
    return pqcrystals_dilithium2_ref_keypair(pk, sk);
  case 65:
    return pqcrystals_dilithium3_ref_keypair(pk, sk);
  case 87:
    return pqcrystals_dilithium5_ref_keypair(pk, sk);
  default:
    return -1;
  }
}

// The entry point that takes the signing randomness is not in their api.h
// (sign.h only, per level): declared here from the interface of sign.c, with
// `pre` the FIPS 204 prefix (0, context length, context).
#define REF_SIGN_INTERNAL(name)                                                                    \
  int name(uint8_t *sig, size_t *sig_len, const uint8_t *msg, size_t msg_len, const uint8_t *pre,  \
           size_t pre_len, const uint8_t rnd[32], const uint8_t *sk)
REF_SIGN_INTERNAL(pqcrystals_dilithium2_ref_signature_internal);
REF_SIGN_INTERNAL(pqcrystals_dilithium3_ref_signature_internal);
REF_SIGN_INTERNAL(pqcrystals_dilithium5_ref_signature_internal);

int peer_ref_mldsa_sign(int level, uint8_t *sig, size_t *sig_len, const uint8_t *msg,
                        size_t msg_len, const uint8_t rnd[32], const uint8_t *sk) {
  static const uint8_t empty_context[2] = {0, 0};
  switch (level) {
  case 44:
    return pqcrystals_dilithium2_ref_signature_internal(sig, sig_len, msg, msg_len, empty_context,
                                                        2, rnd, sk);
  case 65:
    return pqcrystals_dilithium3_ref_signature_internal(sig, sig_len, msg, msg_len, empty_context,
                                                        2, rnd, sk);
  case 87:
    return pqcrystals_dilithium5_ref_signature_internal(sig, sig_len, msg, msg_len, empty_context,
                                                        2, rnd, sk);
  default:
    return -1;
  }
}

int peer_ref_mldsa_verify(int level, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                          size_t msg_len, const uint8_t *pk) {
  switch (level) {
  case 44:
    return pqcrystals_dilithium2_ref_verify(sig, sig_len, msg, msg_len, NULL, 0, pk);
  case 65:
    return pqcrystals_dilithium3_ref_verify(sig, sig_len, msg, msg_len, NULL, 0, pk);
  case 87:
    return pqcrystals_dilithium5_ref_verify(sig, sig_len, msg, msg_len, NULL, 0, pk);
  default:
    return -1;
  }
}
