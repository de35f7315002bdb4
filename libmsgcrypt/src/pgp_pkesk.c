// pgp_pkesk.c: the Public-Key Encrypted Session Key packets (RFC 9580 §5.1)
// that carry one message's session key to one recipient key, as version 3
// (before SEIPDv1) or version 6 (before SEIPDv2): RSA with PKCS#1 v1.5,
// ECDH with the §11.5 KDF and AES key wrap (NIST curves and the legacy
// Curve25519 form), native X25519 and X448 with HKDF (§5.1.6, §5.1.7), and
// the RFC 9980 ML-KEM+ECC composites with their SHA3-256 key combiner. The
// randomised entry point draws every ephemeral value through the caller's
// random function; the *_from_* entry points take those values as inputs so
// that tests can reproduce published intermediate values.
#include <string.h>

#include "pgp_encrypt_internal.h"
#include "x25519_internal.h"

// A bounded output buffer with a sticky overflow flag (CONVENTIONS §5).
struct obuf {
  uint8_t *p;
  size_t cap, len;
  int overflow;
};

static void put(struct obuf *b, const void *in, size_t in_len) {
  if (b->overflow || in_len > b->cap - b->len) {
    b->overflow = 1;
    return;
  }
  memcpy(b->p + b->len, in, in_len);
  b->len += in_len;
}

static void put_u8(struct obuf *b, uint8_t v) {
  put(b, &v, 1);
}

// put_mpi writes `in` as an RFC 9580 §3.2 MPI: the bit count, then the
// octets without leading zeros.
static void put_mpi(struct obuf *b, const uint8_t *in, size_t in_len) {
  while (in_len > 0 && in[0] == 0) {
    in++;
    in_len--;
  }
  size_t bits = in_len * 8;
  if (in_len > 0) {
    for (uint8_t top = in[0]; (top & 0x80) == 0; top <<= 1)
      bits--;
  }
  put_u8(b, (uint8_t)(bits >> 8));
  put_u8(b, (uint8_t)bits);
  put(b, in, in_len);
}

static uint16_t checksum(const uint8_t *sk, size_t sk_len) {
  unsigned sum = 0;
  for (size_t i = 0; i < sk_len; i++)
    sum += sk[i];
  return (uint16_t)sum;
}

// ecc_len gives the public key and ciphertext length of the ECC share of a
// native or composite algorithm, or 0.
static size_t ecc_len(uint8_t algo) {
  switch (algo) {
  case PGP_PK_X25519:
  case PGP_PK_MLKEM768_X25519:
    return MC_X25519_KEY_LEN;
  case PGP_PK_X448:
  case PGP_PK_MLKEM1024_X448:
    return MC_X448_KEY_LEN;
  default:
    return 0;
  }
}

// pkesk_begin writes the fields that come before the algorithm-specific
// part: version, recipient identification and algorithm.
static int pkesk_begin(struct obuf *b, const pgp_recipient *r, int pkesk_version) {
  if (pkesk_version == 6) {
    MC_FAIL_IF(r->fpr_len != 20 && r->fpr_len != 32, MC_ERR_BAD_KEY);
    put_u8(b, 6);
    put_u8(b, (uint8_t)(1 + r->fpr_len));
    put_u8(b, r->version);
    put(b, r->fpr, r->fpr_len);
  } else if (pkesk_version == 3) {
    put_u8(b, 3);
    put(b, r->key_id, 8);
  } else {
    return MC_ERR_INVALID_ARGUMENT;
  }
  put_u8(b, r->algo);
  return 0;
}

// finish_packet prefixes the body in `body` with its packet header in `out`.
static int finish_packet(uint8_t *out, size_t out_cap, size_t *out_len, const struct obuf *body) {
  MC_FAIL_IF(body->overflow, MC_ERR_BUFFER_TOO_SMALL);
  uint8_t hdr[6];
  size_t h = mc_pgp_header_write(hdr, MC_PGP_TAG_PKESK, body->len);
  MC_FAIL_IF(h + body->len > out_cap, MC_ERR_BUFFER_TOO_SMALL);
  memmove(out + h, body->p, body->len);
  memcpy(out, hdr, h);
  *out_len = h + body->len;
  return 0;
}

// body_buf points the body builder past the room a header may need.
static struct obuf body_buf(uint8_t *out, size_t out_cap) {
  struct obuf b = {out, out_cap, 0, 0};
  if (out_cap < 6) {
    b.overflow = 1;
    return b;
  }
  b.p = out + 6;
  b.cap = out_cap - 6;
  return b;
}

int mc_pgp_kek_native(uint8_t *out, size_t *out_len, uint8_t algo, const uint8_t *eph_pub,
                      const uint8_t *rcpt_pub, const uint8_t *shared) {
  static const char info25519[] = "OpenPGP X25519";
  static const char info448[] = "OpenPGP X448";
  uint8_t ikm[3 * MC_X448_KEY_LEN];
  size_t n = ecc_len(algo);
  MC_FAIL_IF(n == 0 || algo > PGP_PK_X448, MC_ERR_UNSUPPORTED);
  memcpy(ikm, eph_pub, n);
  memcpy(ikm + n, rcpt_pub, n);
  memcpy(ikm + 2 * n, shared, n);
  int ret;
  if (algo == PGP_PK_X25519) {
    *out_len = 16;
    ret = mc_hkdf(MC_HASH_SHA256, out, 16, ikm, 3 * n, NULL, 0, (const uint8_t *)info25519,
                  sizeof info25519 - 1);
  } else {
    *out_len = 32;
    ret = mc_hkdf(MC_HASH_SHA512, out, 32, ikm, 3 * n, NULL, 0, (const uint8_t *)info448,
                  sizeof info448 - 1);
  }
  mc_wipe(ikm, sizeof ikm);
  return ret;
}

int mc_pgp_kem_combine(uint8_t out[32], const uint8_t mlkem_ss[32], const uint8_t *ecdh_ss,
                       const uint8_t *ecdh_ct, const uint8_t *ecdh_pub, size_t ecc_n,
                       uint8_t algo) {
  static const char dom_sep[] = "OpenPGPCompositeKDFv1";
  mc_sha3_ctx h;
  size_t len = 0;
  uint8_t tail[2] = {algo, (uint8_t)(sizeof dom_sep - 1)};
  int ret = mc_sha3_init(&h, MC_SHA3_256);
  if (ret == 0)
    ret = mc_sha3_update(&h, mlkem_ss, 32);
  if (ret == 0)
    ret = mc_sha3_update(&h, ecdh_ss, ecc_n);
  if (ret == 0)
    ret = mc_sha3_update(&h, ecdh_ct, ecc_n);
  if (ret == 0)
    ret = mc_sha3_update(&h, ecdh_pub, ecc_n);
  if (ret == 0)
    ret = mc_sha3_update(&h, tail, 1);
  if (ret == 0)
    ret = mc_sha3_update(&h, (const uint8_t *)dom_sep, sizeof dom_sep - 1);
  if (ret == 0)
    ret = mc_sha3_update(&h, tail + 1, 1);
  if (ret == 0)
    ret = mc_sha3_final(&h, out, 32, &len);
  mc_sha3_cleanup(&h);
  return ret;
}

// put_wrapped writes the size octet, the cleartext cipher octet of a v3
// packet and the session key wrapped under `kek`: the tail of the native
// and composite algorithms.
static int put_wrapped(struct obuf *b, int pkesk_version, uint8_t sym, const uint8_t *kek,
                       size_t kek_len, const uint8_t *sk, size_t sk_len) {
  uint8_t wrapped[MC_PGP_MAX_SESSION_KEY_LEN + MC_AES_KW_OVERHEAD];
  size_t w_len = 0;
  MC_TRY(mc_aes_kw_wrap(wrapped, sizeof wrapped, &w_len, kek, kek_len, sk, sk_len));
  put_u8(b, (uint8_t)(w_len + (pkesk_version == 3)));
  if (pkesk_version == 3)
    put_u8(b, sym);
  put(b, wrapped, w_len);
  return 0;
}

int mc_pgp_pkesk_native_from_shared(uint8_t *out, size_t out_cap, size_t *out_len,
                                    const pgp_recipient *r, int pkesk_version, uint8_t sym,
                                    const uint8_t *sk, size_t sk_len, const uint8_t *eph_pub,
                                    const uint8_t *shared) {
  MC_FAIL_IF(r->algo != PGP_PK_X25519 && r->algo != PGP_PK_X448, MC_ERR_UNSUPPORTED);
  size_t n = ecc_len(r->algo);
  MC_FAIL_IF(r->ecc_pub == NULL || r->ecc_pub_len != n, MC_ERR_BAD_KEY);
  MC_FAIL_IF(mc_pgp_sym_key_len(sym) != sk_len, MC_ERR_INVALID_ARGUMENT);
  struct obuf b = body_buf(out, out_cap);
  MC_TRY(pkesk_begin(&b, r, pkesk_version));
  uint8_t kek[32];
  size_t kek_len = 0;
  int ret = mc_pgp_kek_native(kek, &kek_len, r->algo, eph_pub, r->ecc_pub, shared);
  if (ret == 0) {
    put(&b, eph_pub, n);
    ret = put_wrapped(&b, pkesk_version, sym, kek, kek_len, sk, sk_len);
  }
  mc_wipe(kek, sizeof kek);
  MC_TRY(ret);
  return finish_packet(out, out_cap, out_len, &b);
}

int mc_pgp_pkesk_composite_from_shares(uint8_t *out, size_t out_cap, size_t *out_len,
                                       const pgp_recipient *r, int pkesk_version, uint8_t sym,
                                       const uint8_t *sk, size_t sk_len, const uint8_t *ecdh_ct,
                                       const uint8_t *ecdh_ss, const uint8_t *mlkem_ct,
                                       const uint8_t mlkem_ss[32]) {
  MC_FAIL_IF(r->algo != PGP_PK_MLKEM768_X25519 && r->algo != PGP_PK_MLKEM1024_X448,
             MC_ERR_UNSUPPORTED);
  size_t n = ecc_len(r->algo);
  mc_mlkem_level level = r->algo == PGP_PK_MLKEM768_X25519 ? MC_MLKEM_768 : MC_MLKEM_1024;
  MC_FAIL_IF(r->ecc_pub == NULL || r->ecc_pub_len != n, MC_ERR_BAD_KEY);
  MC_FAIL_IF(mc_pgp_sym_key_len(sym) != sk_len, MC_ERR_INVALID_ARGUMENT);
  struct obuf b = body_buf(out, out_cap);
  MC_TRY(pkesk_begin(&b, r, pkesk_version));
  uint8_t kek[32];
  int ret = mc_pgp_kem_combine(kek, mlkem_ss, ecdh_ss, ecdh_ct, r->ecc_pub, n, r->algo);
  if (ret == 0) {
    put(&b, ecdh_ct, n);
    put(&b, mlkem_ct, mc_mlkem_ciphertext_len(level));
    ret = put_wrapped(&b, pkesk_version, sym, kek, sizeof kek, sk, sk_len);
  }
  mc_wipe(kek, sizeof kek);
  MC_TRY(ret);
  return finish_packet(out, out_cap, out_len, &b);
}

// ecc_keypair draws an ephemeral X25519/X448 key and computes the shared
// point with the recipient's key.
static int ecc_ephemeral(uint8_t algo, uint8_t *eph_pub, uint8_t *shared, const uint8_t *rcpt_pub,
                         mc_pgp_rand_fn rnd, void *rnd_opaque) {
  uint8_t secret[MC_X448_KEY_LEN];
  size_t n = ecc_len(algo);
  int ret = rnd(rnd_opaque, secret, n);
  if (ret == 0 && n == MC_X25519_KEY_LEN) {
    ret = mc_x25519_ephemeral(eph_pub, shared, secret, rcpt_pub);
  } else if (ret == 0) {
    ret = mc_x448_public_key(eph_pub, secret);
    if (ret == 0)
      ret = mc_x448(shared, secret, rcpt_pub);
  }
  mc_wipe(secret, sizeof secret);
  return ret;
}

static int pkesk_native(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                        int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len,
                        mc_pgp_rand_fn rnd, void *rnd_opaque) {
  size_t n = ecc_len(r->algo);
  MC_FAIL_IF(r->ecc_pub == NULL || r->ecc_pub_len != n, MC_ERR_BAD_KEY);
  uint8_t eph[MC_X448_KEY_LEN], shared[MC_X448_KEY_LEN];
  int ret = ecc_ephemeral(r->algo, eph, shared, r->ecc_pub, rnd, rnd_opaque);
  if (ret == 0)
    ret = mc_pgp_pkesk_native_from_shared(out, out_cap, out_len, r, pkesk_version, sym, sk, sk_len,
                                          eph, shared);
  mc_wipe(shared, sizeof shared);
  return ret;
}

static int pkesk_composite(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                           int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len,
                           mc_pgp_rand_fn rnd, void *rnd_opaque) {
  size_t n = ecc_len(r->algo);
  mc_mlkem_level level = r->algo == PGP_PK_MLKEM768_X25519 ? MC_MLKEM_768 : MC_MLKEM_1024;
  MC_FAIL_IF(r->ecc_pub == NULL || r->ecc_pub_len != n, MC_ERR_BAD_KEY);
  MC_FAIL_IF(r->mlkem_pub == NULL || r->mlkem_pub_len != mc_mlkem_public_key_len(level),
             MC_ERR_BAD_KEY);
  uint8_t eph[MC_X448_KEY_LEN], shared[MC_X448_KEY_LEN];
  uint8_t m[MC_MLKEM_ENCAPS_ENTROPY_LEN], mlkem_ss[MC_MLKEM_SHARED_SECRET_LEN];
  uint8_t mlkem_ct[MC_MLKEM_MAX_CIPHERTEXT_LEN];
  int ret = ecc_ephemeral(r->algo, eph, shared, r->ecc_pub, rnd, rnd_opaque);
  if (ret == 0)
    ret = rnd(rnd_opaque, m, sizeof m);
  if (ret == 0)
    ret = mc_mlkem_encaps_derand(level, mlkem_ct, sizeof mlkem_ct, mlkem_ss, r->mlkem_pub,
                                 r->mlkem_pub_len, m);
  if (ret == 0)
    ret = mc_pgp_pkesk_composite_from_shares(out, out_cap, out_len, r, pkesk_version, sym, sk,
                                             sk_len, eph, shared, mlkem_ct, mlkem_ss);
  mc_wipe(shared, sizeof shared);
  mc_wipe(m, sizeof m);
  mc_wipe(mlkem_ss, sizeof mlkem_ss);
  return ret;
}

// session_key_block builds the checksummed session key of RSA and ECDH:
// (v3: cipher octet) || key || 2-octet checksum.
static size_t session_key_block(uint8_t *out, int pkesk_version, uint8_t sym, const uint8_t *sk,
                                size_t sk_len) {
  size_t n = 0;
  if (pkesk_version == 3)
    out[n++] = sym;
  memcpy(out + n, sk, sk_len);
  n += sk_len;
  uint16_t c = checksum(sk, sk_len);
  out[n++] = (uint8_t)(c >> 8);
  out[n++] = (uint8_t)c;
  return n;
}

static int pkesk_rsa(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                     int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len) {
  MC_FAIL_IF(r->rsa_n == NULL || r->rsa_e == NULL, MC_ERR_BAD_KEY);
  uint8_t m[1 + MC_PGP_MAX_SESSION_KEY_LEN + 2];
  uint8_t c[MC_RSA_MAX_MODULUS_LEN];
  size_t m_len = session_key_block(m, pkesk_version, sym, sk, sk_len), c_len = 0;
  int ret = mc_rsa_encrypt_pkcs1(c, sizeof c, &c_len, r->rsa_n, r->rsa_n_len, r->rsa_e,
                                 r->rsa_e_len, m, m_len);
  mc_wipe(m, sizeof m);
  MC_TRY(ret);
  struct obuf b = body_buf(out, out_cap);
  MC_TRY(pkesk_begin(&b, r, pkesk_version));
  put_mpi(&b, c, c_len);
  return finish_packet(out, out_cap, out_len, &b);
}

static const uint8_t oid_p256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
static const uint8_t oid_p384[] = {0x2b, 0x81, 0x04, 0x00, 0x22};
static const uint8_t oid_p521[] = {0x2b, 0x81, 0x04, 0x00, 0x23};
static const uint8_t oid_cv25519[] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01};

static int oid_is(const pgp_recipient *r, const uint8_t *oid, size_t oid_len) {
  return r->ecdh_oid_len == oid_len && memcmp(r->ecdh_oid, oid, oid_len) == 0;
}

int mc_pgp_ecdh_kdf(uint8_t *out, size_t kek_len, const pgp_recipient *r, const uint8_t *zz,
                    size_t zz_len) {
  static const char anon[] = "Anonymous Sender    ";
  mc_hash_alg alg;
  switch (r->ecdh_kdf_hash) {
  case 8:
    alg = MC_HASH_SHA256;
    break;
  case 9:
    alg = MC_HASH_SHA384;
    break;
  case 10:
    alg = MC_HASH_SHA512;
    break;
  default:
    return MC_ERR_UNSUPPORTED;
  }
  MC_FAIL_IF(r->ecdh_oid_len == 0 || r->ecdh_oid_len > 32 || zz_len > MC_EC_MAX_FIELD_LEN,
             MC_ERR_BAD_KEY);
  uint8_t buf[4 + MC_EC_MAX_FIELD_LEN + 1 + 32 + 5 + 20 + 32];
  struct obuf b = {buf, sizeof buf, 0, 0};
  static const uint8_t counter[4] = {0, 0, 0, 1};
  put(&b, counter, 4);
  put(&b, zz, zz_len);
  put_u8(&b, (uint8_t)r->ecdh_oid_len);
  put(&b, r->ecdh_oid, r->ecdh_oid_len);
  put_u8(&b, PGP_PK_ECDH);
  put_u8(&b, 3);
  put_u8(&b, 1);
  put_u8(&b, r->ecdh_kdf_hash);
  put_u8(&b, r->ecdh_kdf_cipher);
  put(&b, anon, sizeof anon - 1);
  put(&b, r->fpr, r->fpr_len);
  uint8_t digest[MC_HASH_MAX_DIGEST_LEN];
  size_t d_len = 0;
  int ret = b.overflow ? MC_ERR_BAD_KEY : mc_digest(alg, digest, sizeof digest, &d_len, buf, b.len);
  if (ret == 0 && kek_len > d_len)
    ret = MC_ERR_UNSUPPORTED;
  if (ret == 0)
    memcpy(out, digest, kek_len);
  mc_wipe(buf, sizeof buf);
  mc_wipe(digest, sizeof digest);
  return ret;
}

static int pkesk_ecdh(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                      int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len,
                      mc_pgp_rand_fn rnd, void *rnd_opaque) {
  MC_FAIL_IF(r->ecdh_oid == NULL || r->ecdh_point == NULL, MC_ERR_BAD_KEY);
  size_t kek_len = mc_pgp_sym_key_len(r->ecdh_kdf_cipher);
  MC_FAIL_IF(kek_len == 0, MC_ERR_UNSUPPORTED);
  uint8_t eph[MC_EC_MAX_POINT_LEN], zz[MC_EC_MAX_FIELD_LEN];
  size_t eph_len = 0, zz_len = 0;
  int ret = 0;
  if (oid_is(r, oid_cv25519, sizeof oid_cv25519)) {
    // Legacy form: the point is 0x40 || u, the shared secret X25519's output.
    MC_FAIL_IF(r->ecdh_point_len != 33 || r->ecdh_point[0] != 0x40, MC_ERR_BAD_KEY);
    uint8_t secret[MC_X25519_KEY_LEN];
    ret = rnd(rnd_opaque, secret, sizeof secret);
    if (ret == 0)
      ret = mc_x25519_ephemeral(eph + 1, zz, secret, r->ecdh_point + 1);
    mc_wipe(secret, sizeof secret);
    eph[0] = 0x40;
    eph_len = 33;
    zz_len = 32;
  } else {
    mc_ec_curve curve;
    if (oid_is(r, oid_p256, sizeof oid_p256))
      curve = MC_EC_P256;
    else if (oid_is(r, oid_p384, sizeof oid_p384))
      curve = MC_EC_P384;
    else if (oid_is(r, oid_p521, sizeof oid_p521))
      curve = MC_EC_P521;
    else
      return MC_ERR_UNSUPPORTED;
    eph_len = mc_ec_point_len(curve);
    zz_len = mc_ec_field_len(curve);
    ret =
        mc_ecdh_ephemeral(curve, eph, sizeof eph, zz, sizeof zz, r->ecdh_point, r->ecdh_point_len);
  }
  uint8_t kek[32];
  uint8_t m[1 + MC_PGP_MAX_SESSION_KEY_LEN + 2 + 8];
  uint8_t wrapped[sizeof m + MC_AES_KW_OVERHEAD];
  size_t w_len = 0;
  if (ret == 0)
    ret = mc_pgp_ecdh_kdf(kek, kek_len, r, zz, zz_len);
  if (ret == 0) {
    // PKCS#5 padding to a multiple of 8 octets (RFC 9580 §11.5).
    size_t m_len = session_key_block(m, pkesk_version, sym, sk, sk_len);
    size_t pad = 8 - m_len % 8;
    memset(m + m_len, (int)pad, pad);
    ret = mc_aes_kw_wrap(wrapped, sizeof wrapped, &w_len, kek, kek_len, m, m_len + pad);
  }
  mc_wipe(zz, sizeof zz);
  mc_wipe(kek, sizeof kek);
  mc_wipe(m, sizeof m);
  MC_TRY(ret);
  struct obuf b = body_buf(out, out_cap);
  MC_TRY(pkesk_begin(&b, r, pkesk_version));
  put_mpi(&b, eph, eph_len);
  put_u8(&b, (uint8_t)w_len);
  put(&b, wrapped, w_len);
  return finish_packet(out, out_cap, out_len, &b);
}

int mc_pgp_pkesk_write(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                       int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len,
                       mc_pgp_rand_fn rnd, void *rnd_opaque) {
  MC_FAIL_IF(out == NULL || out_len == NULL || r == NULL || sk == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(mc_pgp_sym_key_len(sym) != sk_len, MC_ERR_INVALID_ARGUMENT);
  if (rnd == NULL)
    rnd = mc_pgp_rand_default;
  switch (r->algo) {
  case PGP_PK_RSA:
  case PGP_PK_RSA_ENCRYPT_ONLY:
    return pkesk_rsa(out, out_cap, out_len, r, pkesk_version, sym, sk, sk_len);
  case PGP_PK_ECDH:
    return pkesk_ecdh(out, out_cap, out_len, r, pkesk_version, sym, sk, sk_len, rnd, rnd_opaque);
  case PGP_PK_X25519:
  case PGP_PK_X448:
    return pkesk_native(out, out_cap, out_len, r, pkesk_version, sym, sk, sk_len, rnd, rnd_opaque);
  case PGP_PK_MLKEM768_X25519:
  case PGP_PK_MLKEM1024_X448:
    return pkesk_composite(out, out_cap, out_len, r, pkesk_version, sym, sk, sk_len, rnd,
                           rnd_opaque);
  default:
    return MC_ERR_UNSUPPORTED;
  }
}
