// x509.c: reads X.509 certificates (RFC 5280 §4) and PKCS#7 certificate
// bundles (RFC 5652 §5, certs-only SignedData) into mc_x509_certs: the TBS
// fields, the public key of every algorithm S/MIME uses (RFC 3279, RFC 5480,
// RFC 8410, RFC 9935), the extensions mail needs (subjectAltName,
// keyUsage, extKeyUsage, basicConstraints, key identifiers) and the
// e-mail addresses, with every read bounded and every limit from
// mc_x509_settings. Signatures are checked by x509_verify.c.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x509_internal.h"

#define OID(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

int x509_limits_resolve(x509_limits *out, const mc_x509_settings *s) {
  static const mc_x509_settings zero = MC_X509_SETTINGS_INIT;
  if (s == NULL)
    s = &zero;
  if (s->version != 1)
    return MC_ERR_INVALID_ARGUMENT;
#define PICK(f, d) out->f = s->f ? s->f : (d)
  PICK(max_input_len, MC_X509_DEFAULT_MAX_INPUT_LEN);
  PICK(max_certs, MC_X509_DEFAULT_MAX_CERTS);
  PICK(max_der_depth, MC_X509_DEFAULT_MAX_DER_DEPTH);
  PICK(max_extensions, MC_X509_DEFAULT_MAX_EXTENSIONS);
  PICK(max_addresses, MC_X509_DEFAULT_MAX_ADDRESSES);
  PICK(max_chain_len, MC_X509_DEFAULT_MAX_CHAIN_LEN);
  PICK(max_signature_checks, MC_X509_DEFAULT_MAX_SIGNATURE_CHECKS);
  PICK(max_rsa_bits, MC_X509_DEFAULT_MAX_RSA_BITS);
#undef PICK
  return 0;
}

int x509_name_eq(der_cur a, der_cur b) {
  return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

static int fail(mc_x509_diag *diag, const uint8_t *base, const uint8_t *at, int code,
                const char *msg) {
  if (diag != NULL) {
    diag->code = code;
    diag->offset = (base != NULL && at != NULL && at >= base) ? (size_t)(at - base) : 0;
    snprintf(diag->message, sizeof diag->message, "%s", msg);
  }
  return code;
}

static int hash_from_oid(const der_cur *oid, mc_hash_alg *out) {
  if (der_oid_eq(oid, OID(0x2b, 0x0e, 0x03, 0x02, 0x1a)))
    *out = MC_HASH_SHA1;
  else if (der_oid_eq(oid, OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01)))
    *out = MC_HASH_SHA256;
  else if (der_oid_eq(oid, OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02)))
    *out = MC_HASH_SHA384;
  else if (der_oid_eq(oid, OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03)))
    *out = MC_HASH_SHA512;
  else
    return 0;
  return 1;
}

// A HashAlgorithm inside PSS parameters: OID with absent or NULL params.
static int pss_hash(der_cur alg, mc_hash_alg *out) {
  der_cur oid, null;
  int present;
  if (!der_get_oid(&alg, &oid) || !hash_from_oid(&oid, out) ||
      !der_get_optional(&alg, DER_NULL, &null, &present) || (present && null.len != 0) ||
      alg.len != 0)
    return 0;
  return 1;
}

static int pss_params(x509_sigalg *out, der_cur params) {
  der_cur seq, f, inner;
  int present;
  // RFC 4055 defaults are SHA-1 / MGF1-SHA-1 / 20; certificates name them.
  out->hash = MC_HASH_SHA1;
  out->mgf1_hash = MC_HASH_SHA1;
  out->salt_len = 20;
  if (!der_get(&params, DER_SEQUENCE, &seq) || params.len != 0)
    return 0;
  if (!der_get_optional(&seq, 0xa0, &f, &present))
    return 0;
  if (present && (!der_get(&f, DER_SEQUENCE, &inner) || f.len != 0 || !pss_hash(inner, &out->hash)))
    return 0;
  if (!der_get_optional(&seq, 0xa1, &f, &present))
    return 0;
  if (present) {
    der_cur mgf, oid, h;
    if (!der_get(&f, DER_SEQUENCE, &mgf) || f.len != 0 || !der_get_oid(&mgf, &oid) ||
        !der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08)) ||
        !der_get(&mgf, DER_SEQUENCE, &h) || mgf.len != 0 || !pss_hash(h, &out->mgf1_hash))
      return 0;
  }
  if (!der_get_optional(&seq, 0xa2, &f, &present))
    return 0;
  if (present && (!der_get_small_uint(&f, &out->salt_len) || f.len != 0))
    return 0;
  if (!der_get_optional(&seq, 0xa3, &f, &present))
    return 0;
  uint32_t trailer = 1;
  if (present && (!der_get_small_uint(&f, &trailer) || f.len != 0 || trailer != 1))
    return 0;
  return seq.len == 0;
}

int x509_sigalg_parse(x509_sigalg *out, der_cur alg) {
  der_cur oid, null;
  int present;
  memset(out, 0, sizeof *out);
  if (!der_get_oid(&alg, &oid))
    return 0;
  static const uint8_t pkcs1[8] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01};
  static const uint8_t ecdsa[7] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03};
  if (oid.len == 9 && memcmp(oid.p, pkcs1, 8) == 0) {
    switch (oid.p[8]) {
    case 0x05:
      out->hash = MC_HASH_SHA1;
      break;
    case 0x0b:
      out->hash = MC_HASH_SHA256;
      break;
    case 0x0c:
      out->hash = MC_HASH_SHA384;
      break;
    case 0x0d:
      out->hash = MC_HASH_SHA512;
      break;
    case 0x0a:
      out->kind = X509_SIG_RSA_PSS;
      return pss_params(out, alg);
    default:
      return 1; // unknown: kept, fails verification
    }
    out->kind = X509_SIG_RSA_PKCS1;
    // RFC 4055 §5: the parameters are NULL; some encoders omit them.
    if (!der_get_optional(&alg, DER_NULL, &null, &present) || (present && null.len != 0))
      return 0;
    return alg.len == 0;
  }
  if (oid.len == 8 && memcmp(oid.p, ecdsa, 7) == 0) {
    switch (oid.p[7]) {
    case 0x02:
      out->hash = MC_HASH_SHA256;
      break;
    case 0x03:
      out->hash = MC_HASH_SHA384;
      break;
    case 0x04:
      out->hash = MC_HASH_SHA512;
      break;
    default:
      return alg.len == 0;
    }
    out->kind = X509_SIG_ECDSA;
    return alg.len == 0; // RFC 5758: parameters absent
  }
  if (der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01))) {
    out->kind = X509_SIG_ECDSA;
    out->hash = MC_HASH_SHA1;
    return alg.len == 0;
  }
  if (der_oid_eq(&oid, OID(0x2b, 0x65, 0x70)) || der_oid_eq(&oid, OID(0x2b, 0x65, 0x71))) {
    out->kind = oid.p[2] == 0x70 ? X509_SIG_ED25519 : X509_SIG_ED448;
    return alg.len == 0; // RFC 8410 §3: parameters absent
  }
  return 1; // unknown algorithm (ML-DSA, ...): parsed, never verifies
}

static unsigned bit_length(der_cur v) {
  if (v.len == 0)
    return 0;
  unsigned b = (unsigned)(v.len - 1) * 8;
  for (unsigned x = v.p[0]; x; x >>= 1)
    b++;
  return b;
}

static int spki_parse(x509_key *k, der_cur spki) {
  der_cur alg, oid, bits;
  unsigned unused;
  memset(k, 0, sizeof *k);
  if (!der_get(&spki, DER_SEQUENCE, &alg) || !der_get_bit_string(&spki, &bits, &unused) ||
      spki.len != 0 || unused != 0 || !der_get_oid(&alg, &oid))
    return 0;
  if (der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01)) ||
      der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a))) {
    der_cur rsa = bits, seq, null;
    int present;
    k->alg = oid.p[8] == 0x01 ? X509_KEY_RSA : X509_KEY_RSA_PSS;
    if (k->alg == X509_KEY_RSA &&
        (!der_get_optional(&alg, DER_NULL, &null, &present) || (present && null.len != 0)))
      return 0;
    // RSASSA-PSS keys may carry parameters restricting their use; the
    // signature's own parameters are what verification applies.
    if (!der_get(&rsa, DER_SEQUENCE, &seq) || rsa.len != 0 || !der_get_integer(&seq, &k->rsa_n) ||
        !der_get_integer(&seq, &k->rsa_e) || seq.len != 0)
      return 0;
    k->bits = bit_length(k->rsa_n);
    return 1;
  }
  if (der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01))) {
    der_cur curve;
    size_t coord;
    k->alg = X509_KEY_EC;
    // RFC 5480 §2.1.1: only namedCurve is allowed.
    if (!der_get_oid(&alg, &curve) || alg.len != 0)
      return 0;
    if (der_oid_eq(&curve, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07)))
      k->bits = 256, coord = 32;
    else if (der_oid_eq(&curve, OID(0x2b, 0x81, 0x04, 0x00, 0x22)))
      k->bits = 384, coord = 48;
    else if (der_oid_eq(&curve, OID(0x2b, 0x81, 0x04, 0x00, 0x23)))
      k->bits = 521, coord = 66;
    else {
      k->alg = X509_KEY_UNKNOWN; // Brainpool and others: kept, unusable
      return 1;
    }
    // CMS needs the uncompressed point (RFC 5480 §2.2 makes it mandatory).
    if (bits.len != 1 + 2 * coord || bits.p[0] != 0x04)
      return 0;
    k->pub = bits;
    return 1;
  }
  // Keys that are raw bytes of a fixed length with absent parameters: RFC
  // 8410 §3 (X25519, X448, Ed25519, Ed448), RFC 9935 §4 (ML-KEM, the FIPS
  // 203 encoding) and the ML-DSA identifiers (FIPS 204 encoding).
  static const struct {
    uint8_t oid[9];
    uint8_t oid_len;
    x509_key_alg alg;
    size_t key_len;
    unsigned bits;
  } raw_keys[] = {
      {{0x2b, 0x65, 0x6e}, 3, X509_KEY_X25519, 32, 255},
      {{0x2b, 0x65, 0x6f}, 3, X509_KEY_X448, 56, 448},
      {{0x2b, 0x65, 0x70}, 3, X509_KEY_ED25519, 32, 255},
      {{0x2b, 0x65, 0x71}, 3, X509_KEY_ED448, MC_ED448_PUBLIC_KEY_LEN, 448},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x01},
       9,
       X509_KEY_MLKEM512,
       MC_MLKEM512_PUBLIC_KEY_LEN,
       512},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x02},
       9,
       X509_KEY_MLKEM768,
       MC_MLKEM768_PUBLIC_KEY_LEN,
       768},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x04, 0x03},
       9,
       X509_KEY_MLKEM1024,
       MC_MLKEM1024_PUBLIC_KEY_LEN,
       1024},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x11},
       9,
       X509_KEY_MLDSA44,
       MC_MLDSA44_PUBLIC_KEY_LEN,
       44},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12},
       9,
       X509_KEY_MLDSA65,
       MC_MLDSA65_PUBLIC_KEY_LEN,
       65},
      {{0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x13},
       9,
       X509_KEY_MLDSA87,
       MC_MLDSA87_PUBLIC_KEY_LEN,
       87},
  };
  for (size_t i = 0; i < sizeof raw_keys / sizeof raw_keys[0]; i++) {
    if (!der_oid_eq(&oid, raw_keys[i].oid, raw_keys[i].oid_len))
      continue;
    if (alg.len != 0 || bits.len != raw_keys[i].key_len)
      return 0;
    k->alg = raw_keys[i].alg;
    k->bits = raw_keys[i].bits;
    k->pub = bits;
    return 1;
  }
  k->alg = X509_KEY_UNKNOWN;
  return 1;
}

static int add_address(mc_x509_cert *c, der_cur a, const x509_limits *lim) {
  if (a.len == 0 || a.len > 320)
    return 1; // not an address anybody can match; ignored
  for (size_t i = 0; i < a.len; i++)
    if (a.p[i] <= 0x20 || a.p[i] >= 0x7f)
      return 1;
  for (size_t i = 0; i < c->num_addresses; i++)
    if (c->addresses[i].len == a.len && memcmp(c->addresses[i].p, a.p, a.len) == 0)
      return 1;
  if (c->num_addresses >= lim->max_addresses)
    return 1;
  if ((c->num_addresses & 7) == 0) {
    der_cur *n = realloc(c->addresses, (c->num_addresses + 8) * sizeof *n);
    if (n == NULL)
      return 0;
    c->addresses = n;
  }
  c->addresses[c->num_addresses++] = a;
  return 1;
}

// Walks a Name for legacy emailAddress attributes (PKCS #9).
static int name_addresses(mc_x509_cert *c, der_cur name, const x509_limits *lim, int *nomem) {
  der_cur rdns, set;
  if (!der_get(&name, DER_SEQUENCE, &rdns) || name.len != 0)
    return 0;
  while (rdns.len > 0) {
    if (!der_get(&rdns, DER_SET, &set) || set.len == 0)
      return 0;
    while (set.len > 0) {
      der_cur atv, oid, val;
      unsigned tag;
      if (!der_get(&set, DER_SEQUENCE, &atv) || !der_get_oid(&atv, &oid) ||
          !der_get_any(&atv, &tag, &val, NULL) || atv.len != 0)
        return 0;
      if (der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01)) &&
          tag == DER_IA5_STRING && !add_address(c, val, lim))
        *nomem = 1;
    }
  }
  return 1;
}

// Returns 1, 0 for malformed, -1 for out of memory.
static int extension_parse(mc_x509_cert *c, der_cur oid, int critical, der_cur v,
                           const x509_limits *lim) {
  static const uint8_t ce[2] = {0x55, 0x1d};
  if (oid.len == 3 && memcmp(oid.p, ce, 2) == 0) {
    switch (oid.p[2]) {
    case 14: { // subjectKeyIdentifier
      der_cur id;
      if (!der_get(&v, DER_OCTET_STRING, &id) || v.len != 0)
        return 0;
      c->ski = id;
      return 1;
    }
    case 15: { // keyUsage
      der_cur b;
      unsigned unused;
      if (!der_get_bit_string(&v, &b, &unused) || v.len != 0 || b.len == 0 || b.len > 2)
        return 0;
      c->has_ku = 1;
      c->ku = 0;
      for (unsigned i = 0; i < 9; i++)
        if (i / 8 < b.len && (b.p[i / 8] & (0x80u >> (i % 8))))
          c->ku |= 1u << i;
      return 1;
    }
    case 17: { // subjectAltName
      der_cur names;
      if (!der_get(&v, DER_SEQUENCE, &names) || v.len != 0 || names.len == 0)
        return 0;
      while (names.len > 0) {
        unsigned tag;
        der_cur gn;
        if (!der_get_any(&names, &tag, &gn, NULL))
          return 0;
        if (tag == 0x81 && !add_address(c, gn, lim))
          return -1;
      }
      return 1;
    }
    case 19: { // basicConstraints
      der_cur seq;
      int present, ca = 0;
      der_cur tmp;
      if (!der_get(&v, DER_SEQUENCE, &seq) || v.len != 0)
        return 0;
      if (!der_get_optional(&seq, DER_BOOLEAN, &tmp, &present))
        return 0;
      if (present) {
        der_cur one = der_cur_make(tmp.p - 2, tmp.len + 2);
        // DER: the default FALSE is never encoded.
        if (!der_get_bool(&one, &ca) || !ca)
          return 0;
      }
      c->is_ca = ca;
      unsigned t;
      if (der_peek_tag(&seq, &t)) {
        if (!der_get_small_uint(&seq, &c->path_len))
          return 0;
        c->has_path_len = 1;
      }
      return seq.len == 0;
    }
    case 35: { // authorityKeyIdentifier: only keyIdentifier is read
      der_cur seq, id;
      int present;
      if (!der_get(&v, DER_SEQUENCE, &seq) || v.len != 0 ||
          !der_get_optional(&seq, 0x80, &id, &present))
        return 0;
      if (present)
        c->aki = id;
      return 1;
    }
    case 37: { // extKeyUsage
      der_cur seq;
      if (!der_get(&v, DER_SEQUENCE, &seq) || v.len != 0 || seq.len == 0)
        return 0;
      c->has_eku = 1;
      while (seq.len > 0) {
        der_cur p;
        if (!der_get_oid(&seq, &p))
          return 0;
        if (der_oid_eq(&p, OID(0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x04)))
          c->eku |= MC_X509_EKU_EMAIL_PROTECTION;
        else if (der_oid_eq(&p, OID(0x55, 0x1d, 0x25, 0x00)))
          c->eku |= MC_X509_EKU_ANY;
        else
          c->eku |= MC_X509_EKU_OTHER;
      }
      return 1;
    }
    case 18: // issuerAltName
    case 31: // cRLDistributionPoints: fetching CRLs is the caller's job
    case 32: // certificatePolicies: no policy is required for mail
      return 1;
    default:
      break; // nameConstraints, policy constraints/mappings, ...
    }
  } else if (der_oid_eq(&oid, OID(0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01))) {
    return 1; // authorityInfoAccess
  }
  if (critical)
    c->unknown_critical = 1;
  return 1;
}

static int cert_parse(mc_x509_cert *c, der_cur whole, const x509_limits *lim, mc_x509_diag *diag,
                      const uint8_t *base) {
  der_cur w = whole, seq, tbs_whole, tbs, alg, alg2, f;
  unsigned unused, tag;
  int present;
#define BAD(at, msg) return fail(diag, base, (at), MC_ERR_BAD_KEY, (msg))
  memset(c, 0, sizeof *c);
  c->der = whole;
  if (!der_get(&w, DER_SEQUENCE, &seq))
    BAD(w.p, "certificate is not a DER SEQUENCE");
  if (!der_get_any(&seq, &tag, &tbs, &tbs_whole) || tag != DER_SEQUENCE)
    BAD(seq.p, "tbsCertificate is not a SEQUENCE");
  if (!der_get(&seq, DER_SEQUENCE, &alg))
    BAD(seq.p, "bad signatureAlgorithm");
  if (!der_get_bit_string(&seq, &c->sig, &unused) || unused != 0 || seq.len != 0)
    BAD(seq.p, "bad signatureValue or trailing data in the certificate");
  c->tbs = tbs_whole;
  if (!x509_sigalg_parse(&c->sigalg, alg))
    BAD(alg.p, "malformed signature algorithm parameters");

  c->version = 1;
  if (!der_get_optional(&tbs, 0xa0, &f, &present))
    BAD(tbs.p, "bad version field");
  if (present) {
    uint32_t v;
    // DER: version 1 is the default and is never written explicitly.
    if (!der_get_small_uint(&f, &v) || f.len != 0 || v < 1 || v > 2)
      BAD(f.p, "unsupported certificate version");
    c->version = v + 1;
  }
  if (!der_get_integer(&tbs, &c->serial) || c->serial.len > 20 + 1)
    BAD(tbs.p, "bad serialNumber (negative, non-minimal or longer than 20 bytes)");
  if (!der_get(&tbs, DER_SEQUENCE, &alg2))
    BAD(tbs.p, "bad signature field in tbsCertificate");
  // RFC 5280 §4.1.1.2: both algorithm fields must be identical.
  if (alg2.len != alg.len || memcmp(alg2.p, alg.p, alg.len) != 0)
    BAD(alg2.p, "signature algorithm differs from the one in tbsCertificate");
  der_cur name;
  if (!der_get_any(&tbs, &tag, &name, &c->issuer) || tag != DER_SEQUENCE)
    BAD(tbs.p, "bad issuer Name");
  der_cur validity;
  if (!der_get(&tbs, DER_SEQUENCE, &validity) || !der_get_time(&validity, &c->not_before) ||
      !der_get_time(&validity, &c->not_after) || validity.len != 0)
    BAD(tbs.p, "bad validity (times must be UTCTime or GeneralizedTime in Z with seconds)");
  if (!der_get_any(&tbs, &tag, &name, &c->subject) || tag != DER_SEQUENCE)
    BAD(tbs.p, "bad subject Name");
  der_cur spki_whole, spki_in;
  if (!der_get_any(&tbs, &tag, &spki_in, &spki_whole) || tag != DER_SEQUENCE ||
      !spki_parse(&c->key, spki_in))
    BAD(spki_whole.p, "bad subjectPublicKeyInfo for its algorithm");
  if (c->key.bits > lim->max_rsa_bits &&
      (c->key.alg == X509_KEY_RSA || c->key.alg == X509_KEY_RSA_PSS))
    BAD(spki_whole.p, "RSA modulus larger than max_rsa_bits");
  // issuerUniqueID [1] and subjectUniqueID [2] (v2/v3): skipped.
  for (unsigned t = 0x81; t <= 0x82; t++) {
    if (!der_get_optional(&tbs, t, &f, &present) || (present && c->version < 2))
      BAD(tbs.p, "bad unique identifier");
  }
  if (!der_get_optional(&tbs, 0xa3, &f, &present))
    BAD(tbs.p, "bad extensions field");
  if (present) {
    der_cur exts, oids[MC_X509_DEFAULT_MAX_EXTENSIONS];
    size_t n = 0;
    if (c->version != 3 || !der_get(&f, DER_SEQUENCE, &exts) || f.len != 0 || exts.len == 0)
      BAD(f.p, "extensions in a certificate that is not version 3, or empty");
    size_t max_ext = lim->max_extensions < MC_X509_DEFAULT_MAX_EXTENSIONS
                         ? lim->max_extensions
                         : MC_X509_DEFAULT_MAX_EXTENSIONS;
    while (exts.len > 0) {
      der_cur ext, oid, val;
      int critical = 0;
      if (n >= max_ext)
        BAD(exts.p, "more extensions than max_extensions");
      if (!der_get(&exts, DER_SEQUENCE, &ext) || !der_get_oid(&ext, &oid))
        BAD(exts.p, "malformed extension");
      if (!der_get_optional(&ext, DER_BOOLEAN, &val, &present))
        BAD(ext.p, "malformed extension");
      if (present) {
        der_cur b = der_cur_make(val.p - 2, val.len + 2);
        if (!der_get_bool(&b, &critical) || !critical)
          BAD(val.p, "critical flag FALSE written out (not DER)");
      }
      if (!der_get(&ext, DER_OCTET_STRING, &val) || ext.len != 0)
        BAD(ext.p, "malformed extension value");
      // RFC 5280 §4.2: a certificate must not include an extension twice.
      for (size_t i = 0; i < n; i++)
        if (oids[i].len == oid.len && memcmp(oids[i].p, oid.p, oid.len) == 0)
          BAD(oid.p, "extension present twice");
      oids[n++] = oid;
      int r = extension_parse(c, oid, critical, val, lim);
      if (r < 0)
        return fail(diag, base, oid.p, -ENOMEM, "out of memory");
      if (r == 0)
        BAD(val.p, "malformed extension value");
    }
  }
  if (tbs.len != 0)
    BAD(tbs.p, "trailing data in tbsCertificate");
  int nomem = 0;
  if (!name_addresses(c, c->subject, lim, &nomem))
    BAD(c->subject.p, "malformed subject Name");
  if (nomem)
    return fail(diag, base, NULL, -ENOMEM, "out of memory");
  der_cur chk = c->issuer, rdns;
  if (!der_get(&chk, DER_SEQUENCE, &rdns))
    BAD(c->issuer.p, "malformed issuer Name");
  size_t olen;
  if (mc_digest(MC_HASH_SHA256, c->fpr256, sizeof c->fpr256, &olen, whole.p, whole.len) != 0 ||
      mc_digest(MC_HASH_SHA1, c->fpr1, sizeof c->fpr1, &olen, whole.p, whole.len) != 0)
    return fail(diag, base, NULL, -ENOMEM, "digest failed");
  if (x509_name_eq(c->subject, c->issuer))
    c->self_signed = x509_sig_verify(&c->key, &c->sigalg, c->tbs.p, c->tbs.len, c->sig.p,
                                     c->sig.len, lim->max_rsa_bits) == 0;
#undef BAD
  return 0;
}

static void certs_free_items(mc_x509_cert *certs, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(certs[i].addresses);
}

static int push_cert(mc_x509_certs *set, size_t *cap, der_cur whole, const x509_limits *lim,
                     mc_x509_diag *diag) {
  if (set->count >= lim->max_certs)
    return fail(diag, set->buf, whole.p, MC_ERR_BAD_KEY, "more certificates than max_certs");
  if (set->count == *cap) {
    size_t ncap = *cap ? *cap * 2 : 4;
    mc_x509_cert *n = realloc(set->certs, ncap * sizeof *n);
    if (n == NULL)
      return -ENOMEM;
    set->certs = n;
    *cap = ncap;
  }
  int r = cert_parse(&set->certs[set->count], whole, lim, diag, set->buf);
  if (r != 0) {
    free(set->certs[set->count].addresses);
    return r;
  }
  set->count++;
  return 0;
}

// A certs-only SignedData (RFC 5652 §5.1): only the certificates are read.
static int pkcs7_parse(mc_x509_certs *set, size_t *cap, der_cur ci, const x509_limits *lim,
                       mc_x509_diag *diag) {
  der_cur oid, f, sd, x;
  int present;
  if (!der_get_oid(&ci, &oid) ||
      !der_oid_eq(&oid, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02)))
    return fail(diag, set->buf, ci.p, MC_ERR_BAD_KEY, "PKCS#7 content is not signedData");
  if (!der_get(&ci, 0xa0, &f) || ci.len != 0 || !der_get(&f, DER_SEQUENCE, &sd) || f.len != 0)
    return fail(diag, set->buf, ci.p, MC_ERR_BAD_KEY, "malformed PKCS#7 ContentInfo");
  uint32_t version;
  if (!der_get_small_uint(&sd, &version) || !der_get(&sd, DER_SET, &x) ||
      !der_get(&sd, DER_SEQUENCE, &x) || !der_get_optional(&sd, 0xa0, &f, &present))
    return fail(diag, set->buf, sd.p, MC_ERR_BAD_KEY, "malformed SignedData");
  size_t before = set->count;
  if (present) {
    while (f.len > 0) {
      unsigned tag;
      der_cur whole;
      der_cur peek = f;
      if (!der_get_any(&peek, &tag, NULL, &whole))
        return fail(diag, set->buf, f.p, MC_ERR_BAD_KEY, "malformed certificate choice");
      if (tag == DER_SEQUENCE) {
        int r = push_cert(set, cap, whole, lim, diag);
        if (r != 0)
          return r;
      }
      f = peek;
    }
  }
  // crls [1] and signerInfos follow; a bundle needs neither to be read.
  if (!der_get_optional(&sd, 0xa1, &x, &present) || !der_get(&sd, DER_SET, &x) || sd.len != 0)
    return fail(diag, set->buf, sd.p, MC_ERR_BAD_KEY, "malformed SignedData");
  if (set->count == before)
    return fail(diag, set->buf, sd.p, MC_ERR_BAD_KEY, "PKCS#7 bundle holds no certificate");
  return 0;
}

static const char *const cert_labels[] = {"CERTIFICATE", "X509 CERTIFICATE", "PKCS7", NULL};

int mc_x509_certs_parse(mc_x509_certs **out, const mc_x509_settings *settings, mc_x509_diag *diag,
                        const uint8_t *in, size_t in_len) {
  x509_limits lim;
  if (diag != NULL)
    memset(diag, 0, sizeof *diag);
  if (out == NULL || in == NULL)
    return fail(diag, NULL, NULL, MC_ERR_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  if (x509_limits_resolve(&lim, settings) != 0)
    return fail(diag, NULL, NULL, MC_ERR_INVALID_ARGUMENT, "settings version is not 1");
  if (in_len > lim.max_input_len)
    return fail(diag, NULL, NULL, MC_ERR_BAD_KEY, "input longer than max_input_len");
  mc_x509_certs *set = calloc(1, sizeof *set);
  if (set == NULL)
    return -ENOMEM;
  size_t cap = 0;
  int r = x509_pem_or_der(&set->buf, &set->buf_len, in, in_len, cert_labels);
  if (r != 0) {
    fail(diag, NULL, NULL, r, r == -ENOMEM ? "out of memory" : "malformed PEM");
    goto err;
  }
  if (set->buf_len == 0 ||
      !der_check_depth(set->buf, set->buf_len,
                       (unsigned)(lim.max_der_depth > 64 ? 64 : lim.max_der_depth))) {
    r = fail(diag, NULL, NULL, MC_ERR_BAD_KEY,
             "not DER: malformed element, trailing data or nesting beyond max_der_depth");
    goto err;
  }
  der_cur all = der_cur_make(set->buf, set->buf_len);
  while (all.len > 0) {
    der_cur whole, inner;
    unsigned tag, first;
    if (!der_get_any(&all, &tag, &inner, &whole) || tag != DER_SEQUENCE) {
      r = fail(diag, set->buf, whole.p, MC_ERR_BAD_KEY, "top-level element is not a SEQUENCE");
      goto err;
    }
    if (der_peek_tag(&inner, &first) && first == DER_OID)
      r = pkcs7_parse(set, &cap, inner, &lim, diag);
    else
      r = push_cert(set, &cap, whole, &lim, diag);
    if (r != 0)
      goto err;
  }
  *out = set;
  return 0;
err:
  mc_x509_certs_free(set);
  return r;
}

void mc_x509_certs_free(mc_x509_certs *certs) {
  if (certs == NULL)
    return;
  certs_free_items(certs->certs, certs->count);
  free(certs->certs);
  free(certs->buf);
  free(certs);
}

size_t mc_x509_certs_count(const mc_x509_certs *certs) {
  return certs ? certs->count : 0;
}

const mc_x509_cert *mc_x509_certs_get(const mc_x509_certs *certs, size_t i) {
  return certs != NULL && i < certs->count ? &certs->certs[i] : NULL;
}

const uint8_t *mc_x509_cert_der(const mc_x509_cert *cert, size_t *out_len) {
  *out_len = cert->der.len;
  return cert->der.p;
}

const uint8_t *mc_x509_cert_fingerprint(const mc_x509_cert *cert) {
  return cert->fpr256;
}

const uint8_t *mc_x509_cert_fingerprint_sha1(const mc_x509_cert *cert) {
  return cert->fpr1;
}

int mc_x509_cert_fingerprint_hex(const mc_x509_cert *cert, char *out, size_t out_cap) {
  static const char hex[] = "0123456789ABCDEF";
  if (out_cap < 32 * 3)
    return MC_ERR_BUFFER_TOO_SMALL;
  for (size_t i = 0; i < 32; i++) {
    out[i * 3] = hex[cert->fpr256[i] >> 4];
    out[i * 3 + 1] = hex[cert->fpr256[i] & 15];
    out[i * 3 + 2] = i == 31 ? '\0' : ':';
  }
  return 0;
}

const uint8_t *mc_x509_cert_serial(const mc_x509_cert *cert, size_t *out_len) {
  *out_len = cert->serial.len;
  return cert->serial.p;
}

int64_t mc_x509_cert_not_before(const mc_x509_cert *cert) {
  return cert->not_before;
}
int64_t mc_x509_cert_not_after(const mc_x509_cert *cert) {
  return cert->not_after;
}

size_t mc_x509_cert_num_addresses(const mc_x509_cert *cert) {
  return cert->num_addresses;
}

const char *mc_x509_cert_address(const mc_x509_cert *cert, size_t i, size_t *out_len) {
  if (i >= cert->num_addresses)
    return NULL;
  *out_len = cert->addresses[i].len;
  return (const char *)cert->addresses[i].p;
}

int mc_x509_cert_key_usage(const mc_x509_cert *cert, unsigned *out) {
  *out = cert->has_ku ? cert->ku : 0;
  return cert->has_ku;
}

int mc_x509_cert_ext_key_usage(const mc_x509_cert *cert, unsigned *out) {
  *out = cert->has_eku ? cert->eku : 0;
  return cert->has_eku;
}

int mc_x509_cert_is_ca(const mc_x509_cert *cert) {
  return cert->is_ca;
}

int mc_x509_cert_is_self_signed(const mc_x509_cert *cert) {
  return cert->self_signed;
}

int mc_x509_cert_can_encrypt(const mc_x509_cert *cert) {
  cms_recipient r;
  return x509_cert_recipient(&r, cert) == 0;
}

int x509_cert_recipient(cms_recipient *out, const mc_x509_cert *cert) {
  memset(out, 0, sizeof *out);
  const x509_key *k = &cert->key;
  switch (k->alg) {
  case X509_KEY_RSA:
    out->type = CMS_KEY_RSA;
    out->rsa_n = k->rsa_n.p;
    out->rsa_n_len = k->rsa_n.len;
    out->rsa_e = k->rsa_e.p;
    out->rsa_e_len = k->rsa_e.len;
    break;
  case X509_KEY_EC:
    out->type = k->bits == 256   ? CMS_KEY_EC_P256
                : k->bits == 384 ? CMS_KEY_EC_P384
                                 : CMS_KEY_EC_P521;
    break;
  case X509_KEY_X25519:
    out->type = CMS_KEY_X25519;
    break;
  case X509_KEY_X448:
    out->type = CMS_KEY_X448;
    break;
  case X509_KEY_MLKEM512:
    out->type = CMS_KEY_MLKEM512;
    break;
  case X509_KEY_MLKEM768:
    out->type = CMS_KEY_MLKEM768;
    break;
  case X509_KEY_MLKEM1024:
    out->type = CMS_KEY_MLKEM1024;
    break;
  default:
    return MC_ERR_UNSUPPORTED;
  }
  if (k->alg != X509_KEY_RSA) {
    out->pub = k->pub.p;
    out->pub_len = k->pub.len;
  }
  out->issuer_der = cert->issuer.p;
  out->issuer_der_len = cert->issuer.len;
  // The engine writes the INTEGER back: hand it the content bytes with the
  // sign padding that der_get_integer removed.
  int pad = (cert->serial.p[0] & 0x80u) != 0;
  out->serial = cert->serial.p - pad;
  out->serial_len = cert->serial.len + (size_t)pad;
  if (cert->ski.len > 0) {
    out->ski = cert->ski.p;
    out->ski_len = cert->ski.len;
  }
  return 0;
}
