// ct_pgp_encrypt.c: the constant-time check of the OpenPGP encryption
// engine's secret paths (the ctgrind technique). It marks undefined for
// Valgrind memcheck the session key, the ECDH and ML-KEM key shares, the
// ECDH shared secret of the legacy KDF and the plaintext, then runs the
// X25519 and X448 KEK derivation and key wrap (PKESK v3 and v6), the RFC
// 9980 combiner and wrap for both composites, the RFC 9580 ECDH KDF, and
// SEIPD v1 (CFB + MDC), v2 OCB and v2 GCM over messages that span several
// chunks and partial pieces. Memcheck reports any branch or memory index
// that depends on them. Lengths, public keys, salts and the output (which
// is ciphertext) are public: the output is marked defined as it arrives,
// and the library itself never declassifies anything. The ephemeral key
// generation is left out: its status tells whether the shared point is
// zero, which RFC 7748 makes the caller test.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "pgp_encrypt_internal.h"

static int public_out(void *opaque, const uint8_t *data, size_t len) {
  size_t *total = opaque;
  VALGRIND_MAKE_MEM_DEFINED(data, len);
  *total += len;
  return 0;
}

static int to_packet(void *opaque, const uint8_t *data, size_t len) {
  return mc_pgp_partial_write(opaque, data, len);
}

// salt_or_prefix gives the SEIPD its public salt (v2) or its random prefix
// (v1, secret: it is encrypted and hashed).
static int salt_or_prefix(void *opaque, uint8_t *out, size_t len) {
  (void)opaque;
  for (size_t i = 0; i < len; i++)
    out[i] = (uint8_t)(i * 29 + 7);
  if (len == MC_AES_BLOCK_LEN)
    VALGRIND_MAKE_MEM_UNDEFINED(out, len);
  return 0;
}

static int check_pkesk(void) {
  static uint8_t mlkem_pub[MC_MLKEM_MAX_PUBLIC_KEY_LEN], mlkem_ct[MC_MLKEM_MAX_CIPHERTEXT_LEN];
  uint8_t ecc_pub[56], eph[56], shared[56], mlkem_ss[32], sk[32];
  static uint8_t out[MC_PGP_PKESK_MAX_LEN];
  for (size_t i = 0; i < sizeof ecc_pub; i++) {
    ecc_pub[i] = (uint8_t)(i + 1);
    eph[i] = (uint8_t)(i * 3);
    shared[i] = (uint8_t)(i * 5 + 2);
  }
  memset(mlkem_pub, 0x21, sizeof mlkem_pub);
  memset(mlkem_ct, 0x43, sizeof mlkem_ct);
  static const uint8_t algos[] = {PGP_PK_X25519, PGP_PK_X448, PGP_PK_MLKEM768_X25519,
                                  PGP_PK_MLKEM1024_X448};
  for (size_t a = 0; a < sizeof algos; a++) {
    for (int version = 3; version <= 6; version += 3) {
      for (uint8_t sym = MC_PGP_SYM_AES128; sym <= MC_PGP_SYM_AES256; sym++) {
        pgp_recipient r;
        memset(&r, 0, sizeof r);
        r.version = 6;
        r.algo = algos[a];
        r.fpr_len = 32;
        r.ecc_pub = ecc_pub;
        r.ecc_pub_len = algos[a] == PGP_PK_X448 || algos[a] == PGP_PK_MLKEM1024_X448 ? 56 : 32;
        r.mlkem_pub = mlkem_pub;
        r.mlkem_pub_len = algos[a] == PGP_PK_MLKEM768_X25519 ? 1184 : 1568;
        size_t sk_len = mc_pgp_sym_key_len(sym), out_len = 0;
        for (size_t i = 0; i < sk_len; i++)
          sk[i] = (uint8_t)(i * 9 + sym);
        for (size_t i = 0; i < sizeof mlkem_ss; i++)
          mlkem_ss[i] = (uint8_t)(i * 13);
        VALGRIND_MAKE_MEM_UNDEFINED(sk, sizeof sk);
        VALGRIND_MAKE_MEM_UNDEFINED(shared, sizeof shared);
        VALGRIND_MAKE_MEM_UNDEFINED(mlkem_ss, sizeof mlkem_ss);
        int rc =
            algos[a] <= PGP_PK_X448
                ? mc_pgp_pkesk_native_from_shared(out, sizeof out, &out_len, &r, version, sym, sk,
                                                  sk_len, eph, shared)
                : mc_pgp_pkesk_composite_from_shares(out, sizeof out, &out_len, &r, version, sym,
                                                     sk, sk_len, eph, shared, mlkem_ct, mlkem_ss);
        VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
        VALGRIND_MAKE_MEM_DEFINED(out, out_len);
        if (rc != 0 || out_len < 40)
          return 0;
      }
    }
  }
  // The ECDH KDF of RFC 9580 §11.5 over a secret shared secret.
  static const uint8_t oid[] = {0x2b, 0x81, 0x04, 0x00, 0x22};
  pgp_recipient r;
  memset(&r, 0, sizeof r);
  r.version = 4;
  r.algo = PGP_PK_ECDH;
  r.fpr_len = 20;
  r.ecdh_oid = oid;
  r.ecdh_oid_len = sizeof oid;
  r.ecdh_kdf_hash = 9;
  r.ecdh_kdf_cipher = 9;
  uint8_t zz[48], kek[32];
  memset(zz, 0x77, sizeof zz);
  VALGRIND_MAKE_MEM_UNDEFINED(zz, sizeof zz);
  int rc = mc_pgp_ecdh_kdf(kek, 32, &r, zz, sizeof zz);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  return rc == 0;
}

static int check_seipd(void) {
  enum { LEN = 70000 };
  static uint8_t pt[LEN];
  static const mc_pgp_format formats[] = {
      {1, MC_PGP_SYM_AES256, 0, 0},
      {1, MC_PGP_SYM_AES128, 0, 0},
      {2, MC_PGP_SYM_AES256, MC_PGP_AEAD_OCB, 8}, // 16 KiB chunks: several of them
      {2, MC_PGP_SYM_AES192, MC_PGP_AEAD_GCM, 8},
  };
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    uint8_t sk[32];
    for (size_t i = 0; i < sizeof sk; i++)
      sk[i] = (uint8_t)(i * 17 + f);
    for (size_t i = 0; i < LEN; i++)
      pt[i] = (uint8_t)(i * 7);
    VALGRIND_MAKE_MEM_UNDEFINED(sk, sizeof sk);
    VALGRIND_MAKE_MEM_UNDEFINED(pt, sizeof pt);
    size_t total = 0;
    mc_pgp_partial pkt;
    mc_pgp_partial_init(&pkt, MC_PGP_TAG_SEIPD, public_out, &total);
    mc_pgp_seipd *s = NULL;
    size_t sk_len = mc_pgp_sym_key_len(formats[f].sym);
    int rc = mc_pgp_seipd_new(&s, &formats[f], sk, sk_len, salt_or_prefix, NULL, to_packet, &pkt);
    for (size_t pos = 0, step = 1; rc == 0 && pos < LEN; pos += step, step = step * 2 + 3)
      rc = mc_pgp_seipd_write(s, pt + pos, step < LEN - pos ? step : LEN - pos);
    if (rc == 0)
      rc = mc_pgp_seipd_finish(s);
    if (rc == 0)
      rc = mc_pgp_partial_finish(&pkt);
    mc_pgp_seipd_free(s);
    VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
    if (rc != 0 || total < LEN)
      return 0;
  }
  return 1;
}

int main(void) {
  int ok = check_pkesk() && check_seipd();
  printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
