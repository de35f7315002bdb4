// pgp_key.c: OpenPGP certificates. It parses v4 and v6 key packets of every
// algorithm RFC 9580 and RFC 9980 define (and names the ones it cannot use),
// computes fingerprints, splits the packet sequence of one or many
// transferable public keys into certificates (RFC 9580 §10.1), verifies
// their self-signatures with pgp_sig.c, derives validity, flags, user IDs
// and preferences from the signatures that verify, and selects the
// encryption subkeys the engine will encrypt to (pgp_recipient).
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "pgp_internal.h"

// Curve OIDs (RFC 9580 §9.2), without their length octet.
static const struct {
  int curve;
  uint8_t len;
  uint8_t oid[10];
  const char *name;
  unsigned bits;
} pgp_curves[] = {
    {PGP_CURVE_P256, 8, {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}, "P-256", 256},
    {PGP_CURVE_P384, 5, {0x2b, 0x81, 0x04, 0x00, 0x22}, "P-384", 384},
    {PGP_CURVE_P521, 5, {0x2b, 0x81, 0x04, 0x00, 0x23}, "P-521", 521},
    {PGP_CURVE_ED25519_LEGACY,
     9,
     {0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01},
     "Ed25519",
     255},
    {PGP_CURVE_CV25519_LEGACY,
     10,
     {0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01},
     "Curve25519",
     255},
    {PGP_CURVE_BRAINPOOL256,
     9,
     {0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07},
     "brainpoolP256r1",
     256},
    {PGP_CURVE_BRAINPOOL384,
     9,
     {0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0b},
     "brainpoolP384r1",
     384},
    {PGP_CURVE_BRAINPOOL512,
     9,
     {0x2b, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x0d},
     "brainpoolP512r1",
     512},
    {PGP_CURVE_SECP256K1, 5, {0x2b, 0x81, 0x04, 0x00, 0x0a}, "secp256k1", 256},
};

static size_t pgp_nist_field_len(int curve) {
  return curve == PGP_CURVE_P256   ? 32
         : curve == PGP_CURVE_P384 ? 48
         : curve == PGP_CURVE_P521 ? 66
                                   : 0;
}

// pgp_key_read_oid reads the OID field of ECDH, ECDSA and EdDSALegacy keys
// and names the curve.
static int pgp_key_read_oid(pgp_cur *c, pgp_key *k, const char **curve_name) {
  uint8_t len;
  if (!pgp_cur_get_u8(c, &len) || len == 0 || len == 0xff || !pgp_cur_get_bytes(c, &k->oid, len))
    return 0;
  k->oid_len = len;
  k->curve = PGP_CURVE_OTHER;
  *curve_name = "unknown curve";
  for (size_t i = 0; i < sizeof pgp_curves / sizeof pgp_curves[0]; i++)
    if (pgp_curves[i].len == len && memcmp(pgp_curves[i].oid, k->oid, len) == 0) {
      k->curve = pgp_curves[i].curve;
      k->bits = pgp_curves[i].bits;
      *curve_name = pgp_curves[i].name;
    }
  return 1;
}

// pgp_key_read_fixed reads the fixed-size fields of the native and composite
// algorithms: an ECC key of `ecc_len` bytes, then `pq_len` bytes.
static int pgp_key_read_fixed(pgp_cur *c, pgp_key *k, size_t ecc_len, size_t pq_len) {
  if (!pgp_cur_get_bytes(c, &k->ecc_pub, ecc_len))
    return 0;
  k->ecc_pub_len = ecc_len;
  if (pq_len > 0) {
    if (!pgp_cur_get_bytes(c, &k->pq_pub, pq_len))
      return 0;
    k->pq_pub_len = pq_len;
  }
  return 1;
}

static void pgp_key_fingerprint(pgp_key *k) {
  uint8_t hdr[5];
  if (k->version == 4) {
    // v4: SHA-1 of 0x99, a two-octet length and the body (RFC 9580 §5.5.4.2).
    hdr[0] = 0x99;
    hdr[1] = (uint8_t)(k->body_len >> 8);
    hdr[2] = (uint8_t)k->body_len;
    SHA_CTX ctx;
    SHA1_Init(&ctx);
    SHA1_Update(&ctx, hdr, 3);
    SHA1_Update(&ctx, k->body, k->body_len);
    SHA1_Final(k->fpr, &ctx);
    k->fpr_len = 20;
    memcpy(k->key_id, k->fpr + 12, 8);
  } else {
    // v6: SHA-256 of 0x9B, a four-octet length and the body (§5.5.4.3).
    hdr[0] = 0x9b;
    hdr[1] = (uint8_t)(k->body_len >> 24);
    hdr[2] = (uint8_t)(k->body_len >> 16);
    hdr[3] = (uint8_t)(k->body_len >> 8);
    hdr[4] = (uint8_t)k->body_len;
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, hdr, 5);
    SHA256_Update(&ctx, k->body, k->body_len);
    SHA256_Final(k->fpr, &ctx);
    k->fpr_len = 32;
    memcpy(k->key_id, k->fpr, 8);
  }
}

int pgp_key_parse(pgp_key *out, const uint8_t *body, size_t body_len) {
  pgp_key k;
  memset(&k, 0, sizeof k);
  pgp_cur c;
  pgp_cur_init(&c, body, body_len);
  uint32_t created, mlen = 0;
  if (!pgp_cur_get_u8(&c, &k.version))
    return MC_ERR_BAD_KEY;
  if (k.version != 4 && k.version != 6)
    return MC_ERR_UNSUPPORTED;
  if (!pgp_cur_get_u32(&c, &created) || !pgp_cur_get_u8(&c, &k.algo))
    return MC_ERR_BAD_KEY;
  if (k.version == 6 && (!pgp_cur_get_u32(&c, &mlen) || mlen != c.len))
    return MC_ERR_BAD_KEY;
  k.created = created;
  k.body = body;
  k.body_len = body_len;
  const char *curve = NULL;
  size_t bits, n;
  const uint8_t *v;
  int ok = 1;
  switch (k.algo) {
  case PGP_PK_RSA:
  case PGP_PK_RSA_ENCRYPT_ONLY:
  case PGP_PK_RSA_SIGN_ONLY:
    ok = pgp_cur_get_mpi(&c, &k.rsa_n, &k.rsa_n_len, NULL) &&
         pgp_cur_get_mpi(&c, &k.rsa_e, &k.rsa_e_len, NULL) && k.rsa_n_len > 0 && k.rsa_e_len > 0;
    if (ok) {
      unsigned top = k.rsa_n[0], nb = 0;
      while (top) {
        nb++;
        top >>= 1;
      }
      k.bits = (unsigned)((k.rsa_n_len - 1) * 8 + nb);
      snprintf(k.name, sizeof k.name, "RSA-%u", k.bits);
      if (k.bits < 2048)
        k.unusable = "RSA keys shorter than 2048 bits are too weak to use";
      else if (k.bits > 8192)
        k.unusable = "RSA keys longer than 8192 bits are not supported";
      else if (k.rsa_e_len > 4 || (k.rsa_e[k.rsa_e_len - 1] & 1) == 0)
        k.unusable = "the RSA public exponent is unusable";
      else if (k.algo == PGP_PK_RSA_SIGN_ONLY)
        k.unusable = "RSA Sign-Only keys are deprecated";
    }
    break;
  case PGP_PK_ELGAMAL:
  case PGP_PK_ELGAMAL_SIGN:
    ok = pgp_cur_get_mpi(&c, &v, &n, &bits) && pgp_cur_get_mpi(&c, &v, &n, NULL) &&
         pgp_cur_get_mpi(&c, &v, &n, NULL);
    k.bits = (unsigned)bits;
    snprintf(k.name, sizeof k.name, "Elgamal-%u", k.bits);
    k.unusable = "Elgamal is obsolete and not supported";
    break;
  case PGP_PK_DSA:
    ok = pgp_cur_get_mpi(&c, &v, &n, &bits) && pgp_cur_get_mpi(&c, &v, &n, NULL) &&
         pgp_cur_get_mpi(&c, &v, &n, NULL) && pgp_cur_get_mpi(&c, &v, &n, NULL);
    k.bits = (unsigned)bits;
    snprintf(k.name, sizeof k.name, "DSA-%u", k.bits);
    k.unusable = "DSA is obsolete and not supported";
    break;
  case PGP_PK_ECDH: {
    uint8_t kdf_len, reserved;
    ok = pgp_key_read_oid(&c, &k, &curve) && pgp_cur_get_mpi(&c, &k.point, &k.point_len, NULL) &&
         pgp_cur_get_u8(&c, &kdf_len) && kdf_len >= 3 && pgp_cur_get_u8(&c, &reserved) &&
         reserved == 1 && pgp_cur_get_u8(&c, &k.kdf_hash) && pgp_cur_get_u8(&c, &k.kdf_cipher) &&
         pgp_cur_skip(&c, (size_t)kdf_len - 3);
    if (!ok)
      break;
    snprintf(k.name, sizeof k.name, "ECDH %s", curve);
    if (k.curve == PGP_CURVE_CV25519_LEGACY) {
      snprintf(k.name, sizeof k.name, "ECDH Curve25519Legacy");
      if (k.point_len != 33 || k.point[0] != 0x40)
        return MC_ERR_BAD_KEY;
      if (k.version == 6)
        k.unusable = "the legacy Curve25519 format is not allowed in v6 keys";
    } else if (pgp_nist_field_len(k.curve) != 0) {
      if (k.point_len != 2 * pgp_nist_field_len(k.curve) + 1 || k.point[0] != 0x04)
        return MC_ERR_BAD_KEY;
    } else {
      k.unusable = "ECDH on this curve is not supported";
    }
    if (k.unusable == NULL &&
        (k.kdf_hash < 8 || k.kdf_hash > 10 || k.kdf_cipher < 7 || k.kdf_cipher > 9))
      k.unusable = "the ECDH key's KDF parameters are not supported";
    break;
  }
  case PGP_PK_ECDSA:
    ok = pgp_key_read_oid(&c, &k, &curve) && pgp_cur_get_mpi(&c, &k.point, &k.point_len, NULL);
    if (!ok)
      break;
    snprintf(k.name, sizeof k.name, "ECDSA %s", curve);
    if (pgp_nist_field_len(k.curve) != 0) {
      if (k.point_len != 2 * pgp_nist_field_len(k.curve) + 1 || k.point[0] != 0x04)
        return MC_ERR_BAD_KEY;
    } else {
      k.unusable = "ECDSA on this curve is not supported";
    }
    break;
  case PGP_PK_EDDSA_LEGACY:
    ok = pgp_key_read_oid(&c, &k, &curve) && pgp_cur_get_mpi(&c, &k.point, &k.point_len, NULL);
    if (!ok)
      break;
    snprintf(k.name, sizeof k.name, "EdDSALegacy %s", curve);
    if (k.curve == PGP_CURVE_ED25519_LEGACY) {
      if (k.point_len != 33 || k.point[0] != 0x40)
        return MC_ERR_BAD_KEY;
      if (k.version == 6)
        k.unusable = "the legacy EdDSA format is not allowed in v6 keys";
    } else {
      k.unusable = "legacy EdDSA on this curve is not supported";
    }
    break;
  case PGP_PK_X25519:
    ok = pgp_key_read_fixed(&c, &k, 32, 0);
    k.bits = 255;
    snprintf(k.name, sizeof k.name, "X25519");
    break;
  case PGP_PK_X448:
    ok = pgp_key_read_fixed(&c, &k, 56, 0);
    k.bits = 448;
    snprintf(k.name, sizeof k.name, "X448");
    break;
  case PGP_PK_ED25519:
    ok = pgp_key_read_fixed(&c, &k, 32, 0);
    k.bits = 255;
    snprintf(k.name, sizeof k.name, "Ed25519");
    break;
  case PGP_PK_ED448:
    ok = pgp_key_read_fixed(&c, &k, 57, 0);
    k.bits = 448;
    snprintf(k.name, sizeof k.name, "Ed448");
    break;
  case PGP_PK_MLDSA65_ED25519:
    ok = pgp_key_read_fixed(&c, &k, 32, MC_MLDSA65_PUBLIC_KEY_LEN);
    k.bits = 192;
    snprintf(k.name, sizeof k.name, "ML-DSA-65+Ed25519");
    if (k.version != 6)
      k.unusable = "ML-DSA keys are only allowed as v6 keys";
    break;
  case PGP_PK_MLDSA87_ED448:
    ok = pgp_key_read_fixed(&c, &k, 57, MC_MLDSA87_PUBLIC_KEY_LEN);
    k.bits = 256;
    snprintf(k.name, sizeof k.name, "ML-DSA-87+Ed448");
    if (k.version != 6)
      k.unusable = "ML-DSA keys are only allowed as v6 keys";
    break;
  case PGP_PK_MLKEM768_X25519:
    ok = pgp_key_read_fixed(&c, &k, 32, MC_MLKEM768_PUBLIC_KEY_LEN);
    k.bits = 192;
    snprintf(k.name, sizeof k.name, "ML-KEM-768+X25519");
    break;
  case PGP_PK_MLKEM1024_X448:
    ok = pgp_key_read_fixed(&c, &k, 56, MC_MLKEM1024_PUBLIC_KEY_LEN);
    k.bits = 256;
    snprintf(k.name, sizeof k.name, "ML-KEM-1024+X448");
    if (k.version != 6)
      k.unusable = "ML-KEM-1024+X448 keys are only allowed as v6 keys";
    break;
  case PGP_PK_SLHDSA_128S:
  case PGP_PK_SLHDSA_128F:
  case PGP_PK_SLHDSA_256S:
    ok = pgp_key_read_fixed(&c, &k, k.algo == PGP_PK_SLHDSA_256S ? 64 : 32, 0);
    snprintf(k.name, sizeof k.name, "SLH-DSA-SHAKE-%s",
             k.algo == PGP_PK_SLHDSA_128S   ? "128s"
             : k.algo == PGP_PK_SLHDSA_128F ? "128f"
                                            : "256s");
    k.unusable = "SLH-DSA signatures are not supported";
    break;
  default:
    // An unknown algorithm: its fields cannot be delimited, so the rest of
    // the body is its material.
    (void)pgp_cur_skip(&c, c.len);
    snprintf(k.name, sizeof k.name, "algorithm %u", k.algo);
    k.unusable = "the public-key algorithm is unknown";
    break;
  }
  if (!ok || c.len != 0)
    return MC_ERR_BAD_KEY;
  pgp_key_fingerprint(&k);
  *out = k;
  return 0;
}

int pgp_key_can_encrypt(const pgp_key *key) {
  if (key->unusable != NULL)
    return 0;
  switch (key->algo) {
  case PGP_PK_RSA:
  case PGP_PK_RSA_ENCRYPT_ONLY:
  case PGP_PK_X25519:
  case PGP_PK_X448:
  case PGP_PK_MLKEM768_X25519:
  case PGP_PK_MLKEM1024_X448:
    return 1;
  case PGP_PK_ECDH:
    return key->curve != PGP_CURVE_OTHER;
  default:
    return 0;
  }
}

int pgp_key_can_sign(const pgp_key *key) {
  if (key->unusable != NULL)
    return 0;
  switch (key->algo) {
  case PGP_PK_RSA:
  case PGP_PK_ECDSA:
  case PGP_PK_EDDSA_LEGACY:
  case PGP_PK_ED25519:
  case PGP_PK_ED448:
  case PGP_PK_MLDSA65_ED25519:
  case PGP_PK_MLDSA87_ED448:
    return 1;
  default:
    return 0;
  }
}

// Certificates.

static void pgp_diag_set(mc_pgp_diag *diag, int code, size_t offset, const char *fmt, ...) {
  if (diag == NULL)
    return;
  diag->code = code;
  diag->offset = offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->message, sizeof diag->message, fmt, ap);
  va_end(ap);
}

// pgp_sig_current: `sig` was made no later than `now` and has not expired.
static int pgp_sig_current(const pgp_sig *sig, int64_t now) {
  if ((int64_t)sig->created > now)
    return 0;
  return sig->sig_expires == 0 || (int64_t)sig->created + sig->sig_expires > now;
}

// pgp_issued_by_other: the signature names an issuer that is not `key`; it
// is a third-party signature, which key validity does not use.
static int pgp_issued_by_other(const pgp_sig *sig, const pgp_key *key) {
  if (sig->issuer_fpr_len > 0)
    return sig->issuer_fpr_len != key->fpr_len ||
           memcmp(sig->issuer_fpr, key->fpr, key->fpr_len) != 0;
  if (sig->has_issuer_key_id)
    return memcmp(sig->issuer_key_id, key->key_id, 8) != 0;
  return 0;
}

// pgp_cert_check verifies one signature by the primary key; it counts
// failures and SHA-1 and returns 1 when the signature can be trusted.
static int pgp_cert_check(mc_pgp_cert *cert, const pgp_sig *sig, const pgp_key *subkey,
                          const pgp_uid *uid) {
  int r =
      pgp_sig_verify(sig, &cert->primary, &cert->primary, subkey, uid != NULL ? uid->data : NULL,
                     uid != NULL ? uid->len : 0, uid != NULL ? uid->tag : 0);
  if (r != 0) {
    // A signature we cannot check (SLH-DSA, DSA, ...) is not evidence of
    // tampering; it is simply not trusted.
    if (r != MC_ERR_UNSUPPORTED)
      cert->bad_signatures++;
    return 0;
  }
  if (sig->hash_algo == 2)
    cert->weak_signatures++;
  return 1;
}

// pgp_newer: `a` should replace the current best `best` (NULL when none).
static int pgp_newer(const pgp_sig *a, const pgp_sig *best, int have_best) {
  return !have_best || a->created >= best->created;
}

// pgp_cert_build turns the packets of one certificate, packets[0] being its
// primary key, into `cert`. It returns 0 or a negative error (with `diag`).
static int pgp_cert_build(mc_pgp_cert *cert, const pgp_packet *packets, size_t num_packets,
                          const mc_pgp_settings *s, mc_pgp_diag *diag, int64_t now) {
  int r = pgp_key_parse(&cert->primary, packets[0].body, packets[0].body_len);
  if (r != 0) {
    pgp_diag_set(diag, r, packets[0].offset,
                 r == MC_ERR_UNSUPPORTED ? "public key of unsupported version %u"
                                         : "malformed public key packet",
                 packets[0].body_len > 0 ? packets[0].body[0] : 0);
    return r;
  }
  cert->now = now;
  cert->primary_uid = SIZE_MAX;
  size_t n_uid = 0, n_sub = 0, n_sig = 0;
  for (size_t i = 1; i < num_packets; i++) {
    n_uid += packets[i].tag == PGP_TAG_USER_ID || packets[i].tag == PGP_TAG_USER_ATTRIBUTE;
    n_sub += packets[i].tag == PGP_TAG_PUBLIC_SUBKEY;
    n_sig += packets[i].tag == PGP_TAG_SIGNATURE;
  }
  if (n_uid > s->max_user_ids || n_sub > s->max_subkeys || n_sig > s->max_signatures) {
    pgp_diag_set(diag, MC_ERR_BAD_KEY, packets[0].offset,
                 "certificate exceeds a limit: %zu user IDs, %zu subkeys, %zu signatures", n_uid,
                 n_sub, n_sig);
    return MC_ERR_BAD_KEY;
  }
  cert->uids = calloc(n_uid + 1, sizeof *cert->uids);
  cert->valid_uids = calloc(n_uid + 1, sizeof *cert->valid_uids);
  cert->subkeys = calloc(n_sub + 1, sizeof *cert->subkeys);
  cert->recipients = calloc(n_sub + 1, sizeof *cert->recipients);
  if (cert->uids == NULL || cert->valid_uids == NULL || cert->subkeys == NULL ||
      cert->recipients == NULL)
    return -ENOMEM;

  // Walk the sequence: signatures belong to the last key, user ID or subkey
  // before them.
  pgp_sig dk, sig;
  int have_dk = 0;
  pgp_uid *cur_uid = NULL;
  pgp_subkey *cur_sub = NULL;
  for (size_t i = 1; i < num_packets; i++) {
    const pgp_packet *p = &packets[i];
    if (p->tag == PGP_TAG_USER_ID || p->tag == PGP_TAG_USER_ATTRIBUTE) {
      cur_uid = &cert->uids[cert->num_uids++];
      cur_uid->data = p->body;
      cur_uid->len = p->body_len;
      cur_uid->tag = p->tag;
      cur_sub = NULL;
      continue;
    }
    if (p->tag == PGP_TAG_PUBLIC_SUBKEY) {
      cur_uid = NULL;
      cur_sub = &cert->subkeys[cert->num_subkeys];
      r = pgp_key_parse(&cur_sub->key, p->body, p->body_len);
      if (r == MC_ERR_UNSUPPORTED) {
        // A subkey of unknown version is skipped with its signatures.
        memset(cur_sub, 0, sizeof *cur_sub);
        cur_sub = NULL;
        cert->skipped_packets++;
        continue;
      }
      if (r != 0) {
        pgp_diag_set(diag, r, p->offset, "malformed public subkey packet");
        return r;
      }
      cert->num_subkeys++;
      continue;
    }
    if (p->tag != PGP_TAG_SIGNATURE)
      continue;
    r = pgp_sig_parse(&sig, p->body, p->body_len);
    if (r == MC_ERR_UNSUPPORTED) {
      cert->skipped_packets++;
      continue;
    }
    if (r != 0) {
      cert->bad_signatures++;
      continue;
    }
    if (pgp_issued_by_other(&sig, &cert->primary))
      continue;
    if (cur_sub != NULL) {
      if (sig.type == PGP_SIG_SUBKEY_REVOCATION) {
        if (pgp_cert_check(cert, &sig, &cur_sub->key, NULL) && (int64_t)sig.created <= now)
          cur_sub->revoked = 1;
      } else if (sig.type == PGP_SIG_SUBKEY_BINDING) {
        if (!pgp_cert_check(cert, &sig, &cur_sub->key, NULL) || !pgp_sig_current(&sig, now))
          continue;
        if (sig.embedded != NULL) {
          // A back-signature, where present, must verify (RFC 9580
          // §5.2.3.34); without one the subkey may not sign.
          pgp_sig back;
          if (pgp_sig_parse(&back, sig.embedded, sig.embedded_len) != 0 ||
              back.type != PGP_SIG_PRIMARY_BINDING ||
              pgp_sig_verify(&back, &cur_sub->key, &cert->primary, &cur_sub->key, NULL, 0, 0) !=
                  0) {
            cert->bad_signatures++;
            continue;
          }
        } else if (sig.has_key_flags && (sig.key_flags & PGP_KF_SIGN)) {
          sig.key_flags &= (uint8_t)~PGP_KF_SIGN;
        }
        if (pgp_newer(&sig, &cur_sub->sig, cur_sub->bound)) {
          cur_sub->sig = sig;
          cur_sub->bound = 1;
        }
      }
    } else if (cur_uid != NULL) {
      if (sig.type == PGP_SIG_CERT_REVOCATION) {
        if (pgp_cert_check(cert, &sig, NULL, cur_uid) && (int64_t)sig.created <= now)
          cur_uid->revoked = 1;
      } else if (sig.type >= PGP_SIG_CERT_GENERIC && sig.type <= PGP_SIG_CERT_POSITIVE) {
        if (pgp_cert_check(cert, &sig, NULL, cur_uid) && pgp_sig_current(&sig, now) &&
            pgp_newer(&sig, &cur_uid->sig, cur_uid->certified)) {
          cur_uid->sig = sig;
          cur_uid->certified = 1;
        }
      }
    } else {
      if (sig.type == PGP_SIG_KEY_REVOCATION) {
        if (pgp_cert_check(cert, &sig, NULL, NULL) && (int64_t)sig.created <= now)
          cert->revoked = 1;
      } else if (sig.type == PGP_SIG_DIRECT_KEY) {
        if (pgp_cert_check(cert, &sig, NULL, NULL) && pgp_sig_current(&sig, now) &&
            pgp_newer(&sig, &dk, have_dk)) {
          dk = sig;
          have_dk = 1;
        }
      }
    }
  }

  // User IDs: the valid ones, and the primary one (flagged, else the first).
  for (size_t i = 0; i < cert->num_uids; i++) {
    pgp_uid *u = &cert->uids[i];
    if (!u->certified || u->revoked || u->tag != PGP_TAG_USER_ID)
      continue;
    cert->valid_uids[cert->num_valid_uids++] = i;
    if (cert->primary_uid == SIZE_MAX ||
        (u->sig.primary_uid && !cert->uids[cert->primary_uid].sig.primary_uid))
      cert->primary_uid = i;
  }
  const pgp_sig *uid_sig =
      cert->primary_uid != SIZE_MAX ? &cert->uids[cert->primary_uid].sig : NULL;
  cert->certified = have_dk || uid_sig != NULL;

  // Metadata of the primary key: a v6 key keeps it in its direct-key
  // signature (RFC 9580 §5.2.3.10), a v4 key usually on its primary user
  // ID; each falls back to the other.
  const pgp_sig *first = cert->primary.version == 6 ? (have_dk ? &dk : NULL) : uid_sig;
  const pgp_sig *second = cert->primary.version == 6 ? uid_sig : (have_dk ? &dk : NULL);
  const pgp_sig *order[2] = {first, second};
  uint32_t key_expires = 0;
  int have_exp = 0, have_flags = 0, have_sym = 0, have_aead = 0, have_feat = 0;
  for (int j = 0; j < 2; j++) {
    const pgp_sig *g = order[j];
    if (g == NULL)
      continue;
    if (!have_exp && g->key_expires != 0) {
      key_expires = g->key_expires;
      have_exp = 1;
    }
    if (!have_flags && g->has_key_flags) {
      cert->flags = g->key_flags;
      cert->has_flags = have_flags = 1;
    }
    if (!have_sym && g->has_pref_sym) {
      memcpy(cert->pref_sym, g->pref_sym, g->num_pref_sym);
      cert->num_pref_sym = g->num_pref_sym;
      have_sym = 1;
    }
    if (!have_aead && g->has_pref_aead) {
      memcpy(cert->pref_aead, g->pref_aead, 2 * g->num_pref_aead);
      cert->num_pref_aead = g->num_pref_aead;
      have_aead = 1;
    }
    if (!have_feat && g->has_features) {
      cert->features = g->features;
      have_feat = 1;
    }
  }
  // A key-expiration subpacket of 0 means "never"; so does none at all.
  (void)have_exp;
  cert->expires = key_expires ? (int64_t)cert->primary.created + key_expires : 0;
  int primary_valid =
      cert->certified && !cert->revoked && (cert->expires == 0 || now < cert->expires);

  // Subkeys.
  for (size_t i = 0; i < cert->num_subkeys; i++) {
    pgp_subkey *k = &cert->subkeys[i];
    if (!k->bound)
      continue;
    k->expires = k->sig.key_expires ? (int64_t)k->key.created + k->sig.key_expires : 0;
    k->has_flags = k->sig.has_key_flags;
    k->flags = k->sig.key_flags;
    k->valid = primary_valid && !k->revoked && (k->expires == 0 || now < k->expires) &&
               (int64_t)k->key.created <= now;
  }

  // Encryption keys: flagged for encryption (or, without flags, of an
  // encryption-only algorithm) and of a supported algorithm.
  const uint8_t enc = PGP_KF_ENCRYPT_COMMS | PGP_KF_ENCRYPT_STORAGE;
  int any_pq = 0;
  for (size_t i = 0; i < cert->num_subkeys; i++) {
    pgp_subkey *k = &cert->subkeys[i];
    k->recipient = k->valid && pgp_key_can_encrypt(&k->key) &&
                   (k->has_flags ? (k->flags & enc) != 0 : k->key.algo != PGP_PK_RSA);
    any_pq |= k->recipient &&
              (k->key.algo == PGP_PK_MLKEM768_X25519 || k->key.algo == PGP_PK_MLKEM1024_X448);
  }
  cert->primary_recipient = primary_valid && pgp_key_can_encrypt(&cert->primary) &&
                            cert->has_flags && (cert->flags & enc) != 0;
  if (any_pq) {
    // RFC 9980 §"Encrypting to Traditional and PQ(/T) Keys": with a
    // post-quantum subkey present, the classical ones are not used.
    cert->primary_recipient = 0;
    for (size_t i = 0; i < cert->num_subkeys; i++) {
      pgp_subkey *k = &cert->subkeys[i];
      if (k->key.algo != PGP_PK_MLKEM768_X25519 && k->key.algo != PGP_PK_MLKEM1024_X448)
        k->recipient = 0;
    }
  }
  // Recipients, newest key first.
  const pgp_key **chosen = calloc(n_sub + 1, sizeof *chosen);
  if (chosen == NULL)
    return -ENOMEM;
  size_t n_chosen = 0;
  if (cert->primary_recipient)
    chosen[n_chosen++] = &cert->primary;
  for (size_t i = 0; i < cert->num_subkeys; i++)
    if (cert->subkeys[i].recipient)
      chosen[n_chosen++] = &cert->subkeys[i].key;
  for (size_t i = 1; i < n_chosen; i++)
    for (size_t j = i; j > 0 && chosen[j]->created > chosen[j - 1]->created; j--) {
      const pgp_key *t = chosen[j];
      chosen[j] = chosen[j - 1];
      chosen[j - 1] = t;
    }
  for (size_t i = 0; i < n_chosen; i++) {
    const pgp_key *k = chosen[i];
    pgp_recipient *rc = &cert->recipients[cert->num_recipients++];
    rc->version = k->version;
    rc->algo = k->algo;
    memcpy(rc->fpr, k->fpr, k->fpr_len);
    rc->fpr_len = k->fpr_len;
    memcpy(rc->key_id, k->key_id, 8);
    rc->rsa_n = k->rsa_n;
    rc->rsa_n_len = k->rsa_n_len;
    rc->rsa_e = k->rsa_e;
    rc->rsa_e_len = k->rsa_e_len;
    rc->ecdh_oid = k->oid;
    rc->ecdh_oid_len = k->oid_len;
    rc->ecdh_point = k->point;
    rc->ecdh_point_len = k->point_len;
    rc->ecdh_kdf_hash = k->kdf_hash;
    rc->ecdh_kdf_cipher = k->kdf_cipher;
    rc->ecc_pub = k->ecc_pub;
    rc->ecc_pub_len = k->ecc_pub_len;
    rc->mlkem_pub = k->pq_pub;
    rc->mlkem_pub_len = k->pq_pub_len;
    rc->features = cert->features;
    memcpy(rc->pref_sym, cert->pref_sym, cert->num_pref_sym);
    rc->num_pref_sym = cert->num_pref_sym;
    memcpy(rc->pref_aead, cert->pref_aead, 2 * cert->num_pref_aead);
    rc->num_pref_aead = cert->num_pref_aead;
  }
  free(chosen);
  return 0;
}

static void pgp_cert_cleanup(mc_pgp_cert *cert) {
  free(cert->uids);
  free(cert->valid_uids);
  free(cert->subkeys);
  free(cert->recipients);
}

void mc_pgp_certs_free(mc_pgp_certs *certs) {
  if (certs == NULL)
    return;
  for (size_t i = 0; i < certs->num_certs; i++)
    pgp_cert_cleanup(&certs->certs[i]);
  free(certs->certs);
  free(certs->data);
  free(certs);
}

static const char *pgp_tag_name(uint8_t tag) {
  switch (tag) {
  case PGP_TAG_PKESK:
    return "public-key encrypted session key";
  case 3:
    return "symmetric-key encrypted session key";
  case 4:
    return "one-pass signature";
  case 8:
    return "compressed data";
  case 9:
    return "symmetrically encrypted data";
  case PGP_TAG_LITERAL:
    return "literal data";
  case PGP_TAG_SEIPD:
    return "encrypted data";
  default:
    return "unknown critical";
  }
}

int mc_pgp_certs_parse(mc_pgp_certs **out, const mc_pgp_settings *settings, mc_pgp_diag *diag,
                       const uint8_t *in, size_t in_len, int64_t now) {
  if (diag != NULL)
    memset(diag, 0, sizeof *diag);
  if (out != NULL)
    *out = NULL;
  if (out == NULL || (in == NULL && in_len > 0) || (settings != NULL && settings->version != 1)) {
    pgp_diag_set(diag, MC_ERR_INVALID_ARGUMENT, 0, "invalid argument");
    return MC_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  mc_pgp_settings s = MC_PGP_SETTINGS_INIT;
  if (settings != NULL)
    s = *settings;
#define PGP_DEFAULT(field, value)                                                                  \
  if (s.field == 0)                                                                                \
  s.field = (value)
  PGP_DEFAULT(max_input_len, MC_PGP_DEFAULT_MAX_INPUT_LEN);
  PGP_DEFAULT(max_packet_len, MC_PGP_DEFAULT_MAX_PACKET_LEN);
  PGP_DEFAULT(max_packets, MC_PGP_DEFAULT_MAX_PACKETS);
  PGP_DEFAULT(max_certs, MC_PGP_DEFAULT_MAX_CERTS);
  PGP_DEFAULT(max_user_ids, MC_PGP_DEFAULT_MAX_USER_IDS);
  PGP_DEFAULT(max_subkeys, MC_PGP_DEFAULT_MAX_SUBKEYS);
  PGP_DEFAULT(max_signatures, MC_PGP_DEFAULT_MAX_SIGNATURES);
  PGP_DEFAULT(max_armor_line_len, MC_PGP_DEFAULT_MAX_ARMOR_LINE_LEN);
#undef PGP_DEFAULT
  if (in_len > s.max_input_len) {
    pgp_diag_set(diag, MC_ERR_BAD_KEY, 0, "input of %zu bytes exceeds the limit of %zu", in_len,
                 s.max_input_len);
    return MC_ERR_BAD_KEY;
  }
  if (in_len == 0) {
    pgp_diag_set(diag, MC_ERR_BAD_KEY, 0, "empty input");
    return MC_ERR_BAD_KEY;
  }

  mc_pgp_certs *set = calloc(1, sizeof *set);
  if (set == NULL)
    return -ENOMEM;
  pgp_packet *packets = NULL;
  int r;
  pgp_buf data;
  pgp_buf_init_growable(&data);
  // Binary packets start with a byte whose top bit is set; anything else
  // is text, which may carry armor after other lines (a pasted mail, say).
  if ((in[0] & 0x80) == 0 && memmem(in, in_len, "-----BEGIN PGP ", 15) != NULL) {
    size_t err_off;
    r = pgp_armor_decode(&data, &err_off, in, in_len, "PUBLIC KEY BLOCK", s.max_armor_line_len);
    if (r < 0) {
      pgp_diag_set(diag, r, err_off,
                   "malformed ASCII armor (bad line, character, length or checksum)");
      goto fail;
    }
    if (r == 0) {
      int secret = pgp_armor_decode(&data, &err_off, in, in_len, "PRIVATE KEY BLOCK",
                                    s.max_armor_line_len) > 0;
      r = secret ? MC_ERR_UNSUPPORTED : MC_ERR_BAD_KEY;
      pgp_diag_set(diag, r, 0,
                   secret ? "a secret key was given: only public keys are accepted"
                          : "the armored input holds no PGP PUBLIC KEY BLOCK");
      goto fail;
    }
  } else {
    pgp_buf_put_bytes(&data, in, in_len);
  }
  if (data.err) {
    r = data.err;
    goto fail;
  }
  set->data = data.p;
  set->data_len = data.len;
  data.p = NULL;

  // Frame every packet first; then split into certificates.
  packets = calloc(s.max_packets < 4096 ? s.max_packets : 4096, sizeof *packets);
  size_t packets_cap = s.max_packets < 4096 ? s.max_packets : 4096, num_packets = 0;
  if (packets == NULL) {
    r = -ENOMEM;
    goto fail;
  }
  pgp_cur c;
  pgp_cur_init(&c, set->data, set->data_len);
  size_t num_certs = 0;
  for (;;) {
    pgp_packet p;
    size_t off = set->data_len - c.len;
    r = pgp_packet_next(&c, &p, s.max_packet_len);
    if (r == 0)
      break;
    if (r < 0) {
      pgp_diag_set(diag, r, off,
                   off == 0 && (set->data[0] & 0x80) == 0
                       ? "not an OpenPGP key: neither ASCII armor nor OpenPGP packets"
                       : "malformed, truncated or oversized packet at offset %zu",
                   off);
      goto fail;
    }
    p.offset = off;
    switch (p.tag) {
    case PGP_TAG_PUBLIC_KEY:
      if (++num_certs > s.max_certs) {
        r = MC_ERR_BAD_KEY;
        pgp_diag_set(diag, r, off, "more than %zu certificates", s.max_certs);
        goto fail;
      }
      break;
    case PGP_TAG_SIGNATURE:
    case PGP_TAG_USER_ID:
    case PGP_TAG_USER_ATTRIBUTE:
    case PGP_TAG_PUBLIC_SUBKEY:
      if (num_certs == 0) {
        r = MC_ERR_BAD_KEY;
        pgp_diag_set(diag, r, off, "the packets do not start with a public key");
        goto fail;
      }
      break;
    case PGP_TAG_MARKER:
    case PGP_TAG_TRUST:
    case PGP_TAG_PADDING:
      continue;
    case PGP_TAG_SECRET_KEY:
    case PGP_TAG_SECRET_SUBKEY:
      r = MC_ERR_UNSUPPORTED;
      pgp_diag_set(diag, r, off, "a secret key was given: only public keys are accepted");
      goto fail;
    default:
      if (p.tag >= 40)
        continue; // non-critical: ignored (RFC 9580 §4.3)
      r = MC_ERR_BAD_KEY;
      pgp_diag_set(diag, r, off, "not a certificate: found a %s packet (type %u)",
                   pgp_tag_name(p.tag), p.tag);
      goto fail;
    }
    if (num_packets == s.max_packets) {
      r = MC_ERR_BAD_KEY;
      pgp_diag_set(diag, r, off, "more than %zu packets", s.max_packets);
      goto fail;
    }
    if (num_packets == packets_cap) {
      size_t cap = packets_cap * 2 > s.max_packets ? s.max_packets : packets_cap * 2;
      pgp_packet *np = realloc(packets, cap * sizeof *packets);
      if (np == NULL) {
        r = -ENOMEM;
        goto fail;
      }
      packets = np;
      packets_cap = cap;
    }
    packets[num_packets++] = p;
  }
  if (num_certs == 0) {
    r = MC_ERR_BAD_KEY;
    pgp_diag_set(diag, r, 0, "no public key in the input");
    goto fail;
  }
  set->certs = calloc(num_certs, sizeof *set->certs);
  if (set->certs == NULL) {
    r = -ENOMEM;
    goto fail;
  }
  int unsupported = 0;
  for (size_t i = 0; i < num_packets;) {
    size_t j = i + 1;
    while (j < num_packets && packets[j].tag != PGP_TAG_PUBLIC_KEY)
      j++;
    mc_pgp_cert *cert = &set->certs[set->num_certs];
    r = pgp_cert_build(cert, packets + i, j - i, &s, diag, now);
    if (r == MC_ERR_UNSUPPORTED) {
      // A certificate of an unknown key version is skipped; others may follow.
      pgp_cert_cleanup(cert);
      memset(cert, 0, sizeof *cert);
      unsupported++;
    } else if (r != 0) {
      pgp_cert_cleanup(cert);
      goto fail;
    } else {
      set->num_certs++;
    }
    i = j;
  }
  if (set->num_certs == 0) {
    r = MC_ERR_UNSUPPORTED;
    goto fail;
  }
  if (diag != NULL && unsupported == 0)
    memset(diag, 0, sizeof *diag);
  free(packets);
  *out = set;
  return 0;
fail:
  pgp_buf_cleanup(&data);
  free(packets);
  mc_pgp_certs_free(set);
  if (diag != NULL && diag->code == 0)
    pgp_diag_set(diag, r, 0, "%s", mc_strerror(r));
  return r;
}

size_t mc_pgp_certs_count(const mc_pgp_certs *certs) {
  return certs != NULL ? certs->num_certs : 0;
}

const mc_pgp_cert *mc_pgp_certs_get(const mc_pgp_certs *certs, size_t i) {
  return certs != NULL && i < certs->num_certs ? &certs->certs[i] : NULL;
}

int mc_pgp_cert_version(const mc_pgp_cert *cert) {
  return cert->primary.version;
}

const uint8_t *mc_pgp_cert_fingerprint(const mc_pgp_cert *cert, size_t *out_len) {
  *out_len = cert->primary.fpr_len;
  return cert->primary.fpr;
}

int mc_pgp_cert_fingerprint_hex(const mc_pgp_cert *cert, char *out, size_t out_cap) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = cert->primary.fpr_len;
  if (out == NULL || out_cap < 2 * n + 1)
    return MC_ERR_BUFFER_TOO_SMALL;
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = hex[cert->primary.fpr[i] >> 4];
    out[2 * i + 1] = hex[cert->primary.fpr[i] & 15];
  }
  out[2 * n] = 0;
  return 0;
}

int64_t mc_pgp_cert_creation_time(const mc_pgp_cert *cert) {
  return cert->primary.created;
}

int64_t mc_pgp_cert_expiration_time(const mc_pgp_cert *cert) {
  return cert->expires;
}

int mc_pgp_cert_is_revoked(const mc_pgp_cert *cert) {
  return cert->revoked;
}

size_t mc_pgp_cert_num_user_ids(const mc_pgp_cert *cert) {
  return cert->num_valid_uids;
}

const char *mc_pgp_cert_user_id(const mc_pgp_cert *cert, size_t i, size_t *out_len) {
  if (i >= cert->num_valid_uids)
    return NULL;
  const pgp_uid *u = &cert->uids[cert->valid_uids[i]];
  *out_len = u->len;
  return (const char *)u->data;
}

size_t mc_pgp_cert_num_recipients(const mc_pgp_cert *cert) {
  return cert->num_recipients;
}

size_t pgp_cert_recipients(const mc_pgp_cert *cert, const pgp_recipient **out) {
  *out = cert->recipients;
  return cert->num_recipients;
}
