// test_pgp_key_paths.c: the OpenPGP certificate paths of pgp_key.c that
// test_pgp_keys.c does not reach: key formats a key version forbids (RSA
// above 8192 bits, the legacy Curve25519 and EdDSA formats in v6 keys,
// ML-DSA in v4 keys), SHA-1 self-signatures, user-ID revocations, the choice
// of the primary user ID, the primary key as a recipient, recipients sorted
// newest first, and the packet array growing up to max_packets. Every
// certificate is built here byte by byte (RFC 9580 §5.5.2, RFC 6637) and
// bound by real signatures: v6 ones with the RFC 9580 A.4 sample secret key,
// v4 ones with the same Ed25519 secret as a v4 EdDSALegacy key, or with an
// RSA key generated at start.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/rsa.h>

#include "pgp_test_build.h"

#define T_2024 ((uint32_t)1704067200)
// The RFC 9580 A.3 X25519 subkey's creation time, 2022-11-30.
#define T_SAMPLE_X25519 ((uint32_t)0x63877fe3)

// parse_built parses a certificate this program built, which must hold
// exactly one.
static mc_pgp_certs *parse_built(const pgp_buf *in, int64_t now) {
  ck_assert_int_eq(in->err, 0);
  mc_pgp_certs *certs = parse_ok(in->p, in->len, now);
  ck_assert_uint_eq(mc_pgp_certs_count(certs), 1);
  return certs;
}

// warning_text returns the sentence of the warning `code` about `cert`, or
// NULL when there is none.
static const char *warning_text(const mc_pgp_cert *cert, mc_pgp_warn_code code) {
  static mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t n;
  ck_assert_int_eq(mc_pgp_cert_warnings(cert, w, MC_PGP_MAX_WARNINGS, &n, NULL, 0), 0);
  for (size_t i = 0; i < n; i++)
    if (w[i].code == code)
      return w[i].text;
  return NULL;
}

static void key_info(const mc_pgp_cert *cert, size_t i, mc_pgp_key_info *ki) {
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, i, ki), 0);
}

// Key bodies, written here from RFC 9580 §5.5.2 rather than through
// pgp_key.c.

// key_body wraps algorithm-specific public material into a key packet body
// of `version` (v6 adds the four-octet material length).
static struct blob key_body(uint8_t version, uint32_t created, uint8_t algo, const pgp_buf *mat) {
  ck_assert_int_eq(mat->err, 0);
  pgp_buf b;
  pgp_buf_init_growable(&b);
  pgp_buf_put_u8(&b, version);
  pgp_buf_put_u32(&b, created);
  pgp_buf_put_u8(&b, algo);
  if (version == 6)
    pgp_buf_put_u32(&b, (uint32_t)mat->len);
  pgp_buf_put_bytes(&b, mat->p, mat->len);
  ck_assert_int_eq(b.err, 0);
  struct blob k = {b.p, b.len};
  return k;
}

static const uint8_t OID_ED25519[9] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01};
static const uint8_t OID_CV25519[10] = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01};

// legacy_point writes the OID and the 0x40-prefixed native point of the
// GnuPG legacy Curve25519 formats (RFC 9580 §5.5.5.5, §5.5.5.6).
static void legacy_point(pgp_buf *m, const uint8_t *oid, size_t oid_len, const uint8_t pub[32]) {
  pgp_buf_put_u8(m, (uint8_t)oid_len);
  pgp_buf_put_bytes(m, oid, oid_len);
  uint8_t point[33] = {0x40};
  memcpy(point + 1, pub, 32);
  put_mpi(m, point, 33);
}

// ecdh_cv25519_body: an ECDH key on the legacy Curve25519 OID with KDF
// SHA-256 and AES-128 key wrap (RFC 6637 §9).
static struct blob ecdh_cv25519_body(uint8_t version, uint32_t created) {
  uint8_t pub[32];
  for (int i = 0; i < 32; i++)
    pub[i] = (uint8_t)(0x21 + 3 * i);
  pgp_buf m;
  pgp_buf_init_growable(&m);
  legacy_point(&m, OID_CV25519, sizeof OID_CV25519, pub);
  static const uint8_t kdf[4] = {3, 1, HASH_SHA256, 7};
  pgp_buf_put_bytes(&m, kdf, sizeof kdf);
  struct blob k = key_body(version, created, PGP_PK_ECDH, &m);
  pgp_buf_cleanup(&m);
  return k;
}

// eddsa_legacy_body: an EdDSALegacy key on the Ed25519 OID.
static struct blob eddsa_legacy_body(uint8_t version, uint32_t created, const uint8_t pub[32]) {
  pgp_buf m;
  pgp_buf_init_growable(&m);
  legacy_point(&m, OID_ED25519, sizeof OID_ED25519, pub);
  struct blob k = key_body(version, created, PGP_PK_EDDSA_LEGACY, &m);
  pgp_buf_cleanup(&m);
  return k;
}

// rsa_body: an RSA key whose modulus has exactly `bits` bits (a pattern,
// odd; no one holds its factors) and exponent 65537.
static struct blob rsa_body(uint8_t version, uint32_t created, unsigned bits) {
  size_t len = (bits + 7) / 8;
  uint8_t *n = malloc(len);
  ck_assert_ptr_nonnull(n);
  for (size_t i = 0; i < len; i++)
    n[i] = (uint8_t)(0x5a ^ (i * 7));
  unsigned top = bits - (unsigned)(len - 1) * 8;
  n[0] = (uint8_t)((n[0] & ((1u << (top - 1)) - 1)) | (1u << (top - 1)));
  n[len - 1] |= 1;
  static const uint8_t e[3] = {1, 0, 1};
  pgp_buf m;
  pgp_buf_init_growable(&m);
  put_mpi(&m, n, len);
  put_mpi(&m, e, sizeof e);
  struct blob k = key_body(version, created, PGP_PK_RSA, &m);
  pgp_buf_cleanup(&m);
  free(n);
  return k;
}

// x25519_body: an RFC 9580 X25519 key with a public value made from `tag`.
static struct blob x25519_body(uint8_t version, uint32_t created, uint8_t tag) {
  pgp_buf m;
  pgp_buf_init_growable(&m);
  for (int i = 0; i < 32; i++)
    pgp_buf_put_u8(&m, (uint8_t)(tag + 5 * i));
  struct blob k = key_body(version, created, PGP_PK_X25519, &m);
  pgp_buf_cleanup(&m);
  return k;
}

// ML-DSA composite keys: the public material of an RFC 9980 sample
// primary key, as a key of any version.
static const struct mldsa_sample {
  const char *file;
  uint8_t algo;
  size_t material_len;
  const char *name;
} MLDSA65 = {"openpgp-pqc/v6-mldsa-65-sample-pk.asc", PGP_PK_MLDSA65_ED25519,
             32 + MC_MLDSA65_PUBLIC_KEY_LEN, "ML-DSA-65+Ed25519"},
  MLDSA87 = {"openpgp-pqc/v6-mldsa-87-sample-pk.asc", PGP_PK_MLDSA87_ED448,
             57 + MC_MLDSA87_PUBLIC_KEY_LEN, "ML-DSA-87+Ed448"};

static struct blob mldsa_body(const struct mldsa_sample *m, uint8_t version) {
  size_t index;
  struct blob sample = packet_body(m->file, "PUBLIC KEY BLOCK", PGP_TAG_PUBLIC_KEY, &index);
  ck_assert_uint_eq(index, 0);
  ck_assert_int_eq(sample.p[0], 6);
  ck_assert_int_eq(sample.p[5], m->algo);
  ck_assert_uint_eq(sample.len, 10 + m->material_len);
  uint32_t created = (uint32_t)sample.p[1] << 24 | (uint32_t)sample.p[2] << 16 |
                     (uint32_t)sample.p[3] << 8 | sample.p[4];
  pgp_buf mat;
  pgp_buf_init_growable(&mat);
  pgp_buf_put_bytes(&mat, sample.p + 10, sample.len - 10);
  struct blob k = key_body(version, created, m->algo, &mat);
  pgp_buf_cleanup(&mat);
  free(sample.p);
  return k;
}

// signer_ed25519 makes the RFC 9580 A.4 sample key: as itself (v6
// Ed25519) or, with `v4_legacy`, its secret as a v4 EdDSALegacy key
// created in 2023, the form GnuPG writes.
static void signer_ed25519(struct signer *s, int v4_legacy) {
  signer_sample_ed25519(s);
  if (v4_legacy) {
    free(s->key.p);
    s->key = eddsa_legacy_body(4, T_2023, s->ed_priv + 32);
    s->algo = PGP_PK_EDDSA_LEGACY;
    key_fingerprint(&s->key, s->fpr, &s->fpr_len);
  }
}

// signer_rsa makes a v4 RSA-2048 key created in 2023.
static void signer_rsa(struct signer *s) {
  memset(s, 0, sizeof *s);
  s->rsa = RSA_new();
  BIGNUM *e = BN_new();
  ck_assert(s->rsa != NULL && e != NULL && BN_set_word(e, 65537));
  ck_assert(RSA_generate_key_ex(s->rsa, 2048, e, NULL));
  BN_free(e);
  uint8_t n[256], ev[8];
  ck_assert_uint_eq(BN_num_bytes(RSA_get0_n(s->rsa)), sizeof n);
  BN_bn2bin(RSA_get0_n(s->rsa), n);
  size_t e_len = BN_num_bytes(RSA_get0_e(s->rsa));
  ck_assert_uint_le(e_len, sizeof ev);
  BN_bn2bin(RSA_get0_e(s->rsa), ev);
  pgp_buf m;
  pgp_buf_init_growable(&m);
  put_mpi(&m, n, sizeof n);
  put_mpi(&m, ev, e_len);
  s->key = key_body(4, T_2023, PGP_PK_RSA, &m);
  pgp_buf_cleanup(&m);
  s->algo = PGP_PK_RSA;
  key_fingerprint(&s->key, s->fpr, &s->fpr_len);
}

// Certificate builders.

// DK: the v6 primary key's direct-key signature (certify and sign,
// SEIPDv1 and SEIPDv2); UID_V4: a v4 primary key's self-certification with
// the same; ENC: an encryption subkey binding; NO_FLAGS: a binding without
// key flags.
static const struct sig_opts DK = {.created = T_2025, .flags = 0x03, .features = 0x09};
static const struct sig_opts UID_V4 = {.created = T_2025, .flags = 0x03, .features = 0x09};
static const struct sig_opts ENC = {
    .created = T_2025,
    .flags = 0x0c,
};
static const struct sig_opts NO_FLAGS = {
    .created = T_2025,
    .flags = -1,
};

// cert_start writes the primary key and its self-signature: a direct-key
// signature for a v6 key, a certified user ID for a v4 key.
static void cert_start(pgp_buf *out, const struct signer *s) {
  pgp_buf_init_growable(out);
  put_packet(out, PGP_TAG_PUBLIC_KEY, s->key.p, s->key.len);
  if (s->key.p[0] == 6) {
    sign_packet(out, s, PGP_SIG_DIRECT_KEY, NULL, NULL, &DK);
  } else {
    static const char uid[] = "Legacy <legacy@example.com>";
    put_packet(out, PGP_TAG_USER_ID, (const uint8_t *)uid, sizeof uid - 1);
    sign_packet(out, s, PGP_SIG_CERT_POSITIVE, NULL, uid, &UID_V4);
  }
}

static void add_subkey(pgp_buf *out, const struct signer *s, const struct blob *k,
                       const struct sig_opts *o) {
  put_packet(out, PGP_TAG_PUBLIC_SUBKEY, k->p, k->len);
  sign_packet(out, s, PGP_SIG_SUBKEY_BINDING, k, NULL, o);
}

// subkey_cert builds into `out` (clean it up after the certificates) a
// certificate of `s` with the one subkey `k`, bound with `o`, parses it at
// NOW, and describes the subkey in *ki.
static mc_pgp_certs *subkey_cert(pgp_buf *out, const struct signer *s, const struct blob *k,
                                 const struct sig_opts *o, mc_pgp_key_info *ki) {
  cert_start(out, s);
  add_subkey(out, s, k, o);
  mc_pgp_certs *certs = parse_built(out, NOW);
  key_info(mc_pgp_certs_get(certs, 0), 1, ki);
  return certs;
}

static void add_uid(pgp_buf *out, const struct signer *s, const char *uid,
                    const struct sig_opts *o) {
  put_packet(out, PGP_TAG_USER_ID, (const uint8_t *)uid, strlen(uid));
  if (o != NULL)
    sign_packet(out, s, PGP_SIG_CERT_POSITIVE, NULL, uid, o);
}

// RSA moduli: 8192 bits is the largest this library uses; one bit more
// makes the key unusable.
START_TEST(rsa_longer_than_8192_bits) {
  static const unsigned bits[] = {8192, 8193, 8200};
  struct signer s;
  signer_ed25519(&s, 0);
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
    struct blob k = rsa_body(6, T_2024, bits[i]);
    pgp_buf out;
    mc_pgp_key_info ki;
    mc_pgp_certs *certs = subkey_cert(&out, &s, &k, &ENC, &ki);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    char name[16];
    snprintf(name, sizeof name, "RSA-%u", bits[i]);
    ck_assert_str_eq(ki.name, name);
    ck_assert_uint_eq(ki.bits, bits[i]);
    ck_assert_int_eq(ki.valid, 1);
    ck_assert_uint_eq(ki.flags, 0x0c);
    if (bits[i] == 8192) {
      ck_assert_ptr_null(ki.unusable);
      ck_assert_int_eq(ki.recipient, 1);
      describe_is(cert, "OpenPGP v6: Ed25519 (encryption subkey RSA-8192)");
      const pgp_recipient *rc;
      ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
      ck_assert_int_eq(rc->algo, PGP_PK_RSA);
      ck_assert_uint_eq(rc->rsa_n_len, 1024);
      ck_assert_ptr_null(warning_text(cert, MC_PGP_WARN_UNSUPPORTED));
    } else {
      ck_assert_str_eq(ki.unusable, "RSA keys longer than 8192 bits are not supported");
      ck_assert_int_eq(ki.recipient, 0);
      ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
      describe_is(cert, "OpenPGP v6: Ed25519 (no usable encryption key)");
      char want[160];
      snprintf(want, sizeof want,
               "The subkey %s cannot be used: RSA keys longer than 8192 bits are not supported.",
               name);
      ck_assert_str_eq(warning_text(cert, MC_PGP_WARN_UNSUPPORTED), want);
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
    free(k.p);
  }
  signer_free(&s);
}
END_TEST

// GnuPG's legacy ECDH Curve25519 format is a recipient in a v4 key; RFC
// 9580 §5.5.5.6 forbids it in a v6 key.
START_TEST(legacy_curve25519_in_v6_key) {
  for (int version = 4; version <= 6; version += 2) {
    struct signer s;
    signer_ed25519(&s, version == 4);
    struct blob k = ecdh_cv25519_body((uint8_t)version, T_2024);
    pgp_buf out;
    mc_pgp_key_info ki;
    mc_pgp_certs *certs = subkey_cert(&out, &s, &k, &ENC, &ki);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    ck_assert_int_eq(ki.version, version);
    ck_assert_str_eq(ki.name, "ECDH Curve25519Legacy");
    ck_assert_uint_eq(ki.bits, 255);
    ck_assert_int_eq(ki.valid, 1);
    if (version == 4) {
      ck_assert_ptr_null(ki.unusable);
      ck_assert_int_eq(ki.recipient, 1);
      describe_is(cert,
                  "OpenPGP v4: EdDSALegacy Ed25519 (encryption subkey ECDH Curve25519Legacy)");
      const pgp_recipient *rc;
      ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
      ck_assert_int_eq(rc->algo, PGP_PK_ECDH);
      ck_assert_uint_eq(rc->ecdh_point_len, 33);
      ck_assert_int_eq(rc->ecdh_kdf_hash, HASH_SHA256);
      ck_assert_int_eq(rc->ecdh_kdf_cipher, 7);
    } else {
      ck_assert_str_eq(ki.unusable, "the legacy Curve25519 format is not allowed in v6 keys");
      ck_assert_int_eq(ki.recipient, 0);
      ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
      describe_is(cert, "OpenPGP v6: Ed25519 (no usable encryption key)");
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
    free(k.p);
    signer_free(&s);
  }
}
END_TEST

// Likewise the legacy EdDSA format: usable in a v4 key, not in a v6 key
// (RFC 9580 §5.5.5.5).
START_TEST(legacy_eddsa_in_v6_key) {
  uint8_t pub[32], priv[64], seed[32];
  for (int i = 0; i < 32; i++)
    seed[i] = (uint8_t)(0x80 + i);
  ED25519_keypair_from_seed(pub, priv, seed);
  for (int version = 4; version <= 6; version += 2) {
    struct signer s;
    signer_ed25519(&s, version == 4);
    struct blob k = eddsa_legacy_body((uint8_t)version, T_2024, pub);
    pgp_buf out;
    mc_pgp_key_info ki;
    mc_pgp_certs *certs = subkey_cert(&out, &s, &k, &NO_FLAGS, &ki);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    ck_assert_int_eq(ki.version, version);
    ck_assert_int_eq(ki.algorithm, PGP_PK_EDDSA_LEGACY);
    ck_assert_str_eq(ki.name, "EdDSALegacy Ed25519");
    ck_assert_int_eq(ki.valid, 1);
    ck_assert_int_eq(ki.recipient, 0);
    if (version == 4) {
      ck_assert_ptr_null(ki.unusable);
      ck_assert_ptr_null(warning_text(cert, MC_PGP_WARN_UNSUPPORTED));
    } else {
      ck_assert_str_eq(ki.unusable, "the legacy EdDSA format is not allowed in v6 keys");
      ck_assert_str_eq(warning_text(cert, MC_PGP_WARN_UNSUPPORTED),
                       "The subkey EdDSALegacy Ed25519 cannot be used: the legacy EdDSA format "
                       "is not allowed in v6 keys.");
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
    free(k.p);
    signer_free(&s);
  }
}
END_TEST

// ML-DSA composite keys exist only as v6 keys (RFC 9980); the same
// material in a v4 subkey is unusable.
START_TEST(mldsa_in_v4_key) {
  const struct mldsa_sample *m = _i == 0 ? &MLDSA65 : &MLDSA87;
  for (int version = 4; version <= 6; version += 2) {
    struct signer s;
    signer_ed25519(&s, version == 4);
    struct blob k = mldsa_body(m, (uint8_t)version);
    pgp_buf out;
    mc_pgp_key_info ki;
    mc_pgp_certs *certs = subkey_cert(&out, &s, &k, &NO_FLAGS, &ki);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    ck_assert_int_eq(ki.version, version);
    ck_assert_int_eq(ki.algorithm, m->algo);
    ck_assert_str_eq(ki.name, m->name);
    ck_assert_int_eq(ki.valid, 1);
    if (version == 6) {
      ck_assert_ptr_null(ki.unusable);
      ck_assert_ptr_null(warning_text(cert, MC_PGP_WARN_UNSUPPORTED));
    } else {
      ck_assert_str_eq(ki.unusable, "ML-DSA keys are only allowed as v6 keys");
      char want[160];
      snprintf(want, sizeof want,
               "The subkey %s cannot be used: ML-DSA keys are only allowed as v6 keys.", m->name);
      ck_assert_str_eq(warning_text(cert, MC_PGP_WARN_UNSUPPORTED), want);
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
    free(k.p);
    signer_free(&s);
  }
}
END_TEST

// SHA-1 self-signatures that verify are trusted but counted as weak;
// one that does not verify is not counted.
START_TEST(sha1_signatures_counted) {
  struct signer s;
  signer_ed25519(&s, 1);
  struct sig_opts sha1 = UID_V4, sha1_bad = UID_V4;
  sha1.hash = HASH_SHA1;
  sha1_bad.hash = HASH_SHA1;
  sha1_bad.corrupt = 1;
  // 0: SHA-256 only; 1: one SHA-1 user ID; 2: two; 3: a SHA-1 one that
  // does not verify.
  for (int mode = 0; mode < 4; mode++) {
    pgp_buf out;
    cert_start(&out, &s);
    if (mode >= 1)
      add_uid(&out, &s, "Second <second@example.com>", mode == 3 ? &sha1_bad : &sha1);
    if (mode == 2)
      add_uid(&out, &s, "Third <third@example.com>", &sha1);
    mc_pgp_certs *certs = parse_built(&out, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    static const size_t want_uids[4] = {1, 2, 3, 1};
    ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), want_uids[mode]);
    const char *weak = warning_text(cert, MC_PGP_WARN_WEAK_ALGORITHM);
    if (mode == 1)
      ck_assert_str_eq(weak, "1 of the key's self-signatures use SHA-1, which is obsolete.");
    else if (mode == 2)
      ck_assert_str_eq(weak, "2 of the key's self-signatures use SHA-1, which is obsolete.");
    else
      ck_assert_ptr_null(weak);
    if (mode == 3)
      ck_assert_str_eq(warning_text(cert, MC_PGP_WARN_BAD_SIGNATURE),
                       "1 signature on the key did not verify and was ignored.");
    else
      ck_assert_ptr_null(warning_text(cert, MC_PGP_WARN_BAD_SIGNATURE));
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
  }
  signer_free(&s);
}
END_TEST

static int has_user_id(const mc_pgp_cert *cert, size_t i, const char *want) {
  size_t n;
  const char *u = mc_pgp_cert_user_id(cert, i, &n);
  return u != NULL && n == strlen(want) && memcmp(u, want, n) == 0;
}

// A user-ID revocation by the primary key removes that user ID from the
// moment it was made; a revocation that does not verify changes nothing.
START_TEST(user_id_revocation) {
  struct signer s;
  signer_ed25519(&s, 0);
  const char *alice = "Alice <alice@example.com>", *bob = "Bob <bob@example.com>";
  struct sig_opts cert_opts = {
      .created = T_2025,
      .flags = -1,
  };
  struct sig_opts rev = {
      .created = T_2025 + 1000,
      .flags = -1,
  };
  struct sig_opts rev_bad = rev;
  rev_bad.corrupt = 1;
  // 0: no revocation; 1: Alice revoked; 2: the revocation does not verify.
  for (int mode = 0; mode < 3; mode++) {
    pgp_buf out;
    cert_start(&out, &s);
    add_uid(&out, &s, alice, &cert_opts);
    if (mode > 0)
      sign_packet(&out, &s, PGP_SIG_CERT_REVOCATION, NULL, alice, mode == 1 ? &rev : &rev_bad);
    add_uid(&out, &s, bob, &cert_opts);
    mc_pgp_certs *certs = parse_built(&out, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    if (mode == 1) {
      ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), 1);
      ck_assert(has_user_id(cert, 0, bob));
    } else {
      ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), 2);
      ck_assert(has_user_id(cert, 0, alice));
      ck_assert(has_user_id(cert, 1, bob));
    }
    ck_assert_int_eq(warning_text(cert, MC_PGP_WARN_BAD_SIGNATURE) != NULL, mode == 2);
    // Revoking a user ID is not revoking the key.
    ck_assert_int_eq(mc_pgp_cert_is_revoked(cert), 0);
    ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
    mc_pgp_certs_free(certs);
    if (mode == 1) {
      // Judged before the revocation was made, Alice is still valid.
      certs = parse_built(&out, (int64_t)T_2025 + 999);
      cert = mc_pgp_certs_get(certs, 0);
      ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), 2);
      ck_assert(has_user_id(cert, 0, alice));
      mc_pgp_certs_free(certs);
      certs = parse_built(&out, (int64_t)T_2025 + 1000);
      ck_assert_uint_eq(mc_pgp_cert_num_user_ids(mc_pgp_certs_get(certs, 0)), 1);
      mc_pgp_certs_free(certs);
    }
    pgp_buf_cleanup(&out);
  }
  signer_free(&s);
}
END_TEST

// A v4 key's metadata comes from its primary user ID: the one whose
// certification says so, else the first valid one.
START_TEST(primary_user_id_choice) {
  struct signer s;
  signer_ed25519(&s, 1);
  // 0: neither flagged; 1: the second flagged; 2: both flagged; 3: the
  // first flagged.
  for (int mode = 0; mode < 4; mode++) {
    struct sig_opts first = {
        .created = T_2025, .flags = 0x03, .key_expires = 5 * 365 * 86400, .features = 0x01};
    struct sig_opts second = {.created = T_2025, .flags = 0x01, .features = 0x09};
    first.primary_uid = mode == 2 || mode == 3;
    second.primary_uid = mode == 1 || mode == 2;
    pgp_buf out;
    pgp_buf_init_growable(&out);
    put_packet(&out, PGP_TAG_PUBLIC_KEY, s.key.p, s.key.len);
    add_uid(&out, &s, "First <first@example.com>", &first);
    add_uid(&out, &s, "Second <second@example.com>", &second);
    mc_pgp_certs *certs = parse_built(&out, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), 2);
    mc_pgp_key_info ki;
    key_info(cert, 0, &ki);
    if (mode == 1) {
      ck_assert_uint_eq(mc_pgp_cert_features(cert), 0x09);
      ck_assert_uint_eq(ki.flags, 0x01);
      ck_assert_int_eq(mc_pgp_cert_expiration_time(cert), 0);
    } else {
      ck_assert_uint_eq(mc_pgp_cert_features(cert), 0x01);
      ck_assert_uint_eq(ki.flags, 0x03);
      ck_assert_int_eq(mc_pgp_cert_expiration_time(cert), (int64_t)T_2023 + 5 * 365 * 86400);
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
  }
  signer_free(&s);
}
END_TEST

static void recipient_is(const pgp_recipient *rc, const struct blob *k) {
  uint8_t fpr[32];
  size_t fpr_len;
  key_fingerprint(k, fpr, &fpr_len);
  ck_assert_uint_eq(rc->fpr_len, fpr_len);
  ck_assert(memcmp(rc->fpr, fpr, fpr_len) == 0);
  ck_assert_int_eq(rc->algo, k->p[5]);
}

// An RSA primary key flagged for encryption is itself a recipient, after
// any newer encryption subkey.
START_TEST(primary_key_recipient) {
  struct signer s;
  signer_rsa(&s);
  struct blob sub = x25519_body(4, T_2025, 0x31);
  struct sig_opts certify_only = UID_V4;
  struct sig_opts all_uses = UID_V4;
  all_uses.flags = 0x0f;
  // 0: flagged for encryption, with a subkey; 1: without; 2: not flagged.
  for (int mode = 0; mode < 3; mode++) {
    pgp_buf out;
    pgp_buf_init_growable(&out);
    put_packet(&out, PGP_TAG_PUBLIC_KEY, s.key.p, s.key.len);
    add_uid(&out, &s, "Rsa <rsa@example.com>", mode == 2 ? &certify_only : &all_uses);
    if (mode != 1)
      add_subkey(&out, &s, &sub, &ENC);
    mc_pgp_certs *certs = parse_built(&out, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    mc_pgp_key_info ki;
    key_info(cert, 0, &ki);
    ck_assert_str_eq(ki.name, "RSA-2048");
    ck_assert_int_eq(ki.valid, 1);
    ck_assert_int_eq(ki.recipient, mode != 2);
    const pgp_recipient *rc;
    size_t n = pgp_cert_recipients(cert, &rc);
    if (mode == 0) {
      ck_assert_uint_eq(n, 2);
      recipient_is(&rc[0], &sub);
      recipient_is(&rc[1], &s.key);
      ck_assert_uint_eq(rc[1].rsa_n_len, 256);
      ck_assert_uint_eq(rc[1].features, 0x09);
      describe_is(cert, "OpenPGP v4: RSA-2048 (encryption subkey X25519)");
    } else if (mode == 1) {
      ck_assert_uint_eq(n, 1);
      recipient_is(&rc[0], &s.key);
      describe_is(cert, "OpenPGP v4: RSA-2048");
      ck_assert_ptr_null(warning_text(cert, MC_PGP_WARN_NO_ENCRYPTION));
    } else {
      ck_assert_uint_eq(n, 1);
      recipient_is(&rc[0], &sub);
    }
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
  }
  free(sub.p);
  signer_free(&s);
}
END_TEST

// Several encryption subkeys: the newest is used first, whatever their
// order in the certificate; keys of the same age keep that order.
START_TEST(recipients_newest_first) {
  struct signer s;
  signer_ed25519(&s, 0);
  struct blob old = x25519_body(6, T_SAMPLE_X25519, 0x41);
  struct blob mid = x25519_body(6, T_2024, 0x42);
  struct blob new = x25519_body(6, T_2025, 0x43);
  struct blob twin = x25519_body(6, T_2025, 0x44);
  const struct blob *orders[][3] = {
      {&old, &new, &mid}, {&new, &mid, &old}, {&mid, &old, &new}, {&twin, &new, &old}};
  const struct blob *want[][3] = {
      {&new, &mid, &old}, {&new, &mid, &old}, {&new, &mid, &old}, {&twin, &new, &old}};
  for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++) {
    pgp_buf out;
    cert_start(&out, &s);
    for (int i = 0; i < 3; i++)
      add_subkey(&out, &s, orders[t][i], &ENC);
    mc_pgp_certs *certs = parse_built(&out, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    const pgp_recipient *rc;
    ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 3);
    for (int i = 0; i < 3; i++)
      recipient_is(&rc[i], want[t][i]);
    describe_is(cert, "OpenPGP v6: Ed25519 (encryption subkeys X25519, X25519, X25519)");
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&out);
  }
  free(old.p);
  free(mid.p);
  free(new.p);
  free(twin.p);
  signer_free(&s);
}
END_TEST

// More packets than the first allocation (4096) are kept, up to
// max_packets; one more is refused where it starts.
START_TEST(packet_array_grows_to_max_packets) {
  struct signer s;
  signer_ed25519(&s, 0);
  enum { MAX_PACKETS = 5000 };
  mc_pgp_settings settings = MC_PGP_SETTINGS_INIT;
  settings.max_packets = MAX_PACKETS;
  settings.max_user_ids = MAX_PACKETS;
  // The primary key, 4998 user IDs and the certification of the last one.
  pgp_buf out;
  pgp_buf_init_growable(&out);
  put_packet(&out, PGP_TAG_PUBLIC_KEY, s.key.p, s.key.len);
  char uid[16];
  for (int i = 0; i < MAX_PACKETS - 2; i++) {
    snprintf(uid, sizeof uid, "u%04d", i);
    add_uid(&out, &s, uid, i == MAX_PACKETS - 3 ? &UID_V4 : NULL);
  }
  ck_assert_int_eq(out.err, 0);
  mc_pgp_certs *certs = NULL;
  mc_pgp_diag diag;
  ck_assert_int_eq(mc_pgp_certs_parse(&certs, &settings, &diag, out.p, out.len, NOW), 0);
  const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), 1);
  ck_assert(has_user_id(cert, 0, uid));
  ck_assert_uint_eq(mc_pgp_cert_features(cert), 0x09);
  mc_pgp_certs_free(certs);

  // One user ID more is packet 5001.
  size_t extra_at = out.len;
  add_uid(&out, &s, "extra", NULL);
  certs = (mc_pgp_certs *)1;
  ck_assert_int_eq(mc_pgp_certs_parse(&certs, &settings, &diag, out.p, out.len, NOW),
                   MC_ERR_BAD_KEY);
  ck_assert_ptr_null(certs);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_uint_eq(diag.offset, extra_at);
  ck_assert_str_eq(diag.message, "more than 5000 packets");
  pgp_buf_cleanup(&out);
  signer_free(&s);
}
END_TEST

static Suite *pgp_key_paths_suite(void) {
  Suite *s = suite_create("pgp_key_paths");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, rsa_longer_than_8192_bits);
  tcase_add_test(tc, legacy_curve25519_in_v6_key);
  tcase_add_test(tc, legacy_eddsa_in_v6_key);
  tcase_add_loop_test(tc, mldsa_in_v4_key, 0, 2);
  tcase_add_test(tc, sha1_signatures_counted);
  tcase_add_test(tc, user_id_revocation);
  tcase_add_test(tc, primary_user_id_choice);
  tcase_add_test(tc, primary_key_recipient);
  tcase_add_test(tc, recipients_newest_first);
  tcase_add_test(tc, packet_array_grows_to_max_packets);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pgp_key_paths_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
