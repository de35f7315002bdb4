// test_smime_certs.c: S/MIME certificate reading and validation (der_read.c,
// pem.c, x509.c, x509_verify.c, x509_describe.c). The certificates come from
// the openssl command-line tool, run by tests/smime_certs_gen.sh in a fresh
// directory before the suite starts (RSA, EC P-256/384/521, X25519, X448,
// Ed25519/Ed448 issuers, RSA-PSS and SHA-1 signatures, CRLs, PKCS#7
// bundles), plus the RFC 9935 ML-KEM certificates; openssl's own
// fingerprints, subjects and serials are the reference values. Then the
// negative cases: revoked, expired, not yet valid, wrong key usage, no path,
// self-signed, tampered signature, CA rules, critical extensions, and
// malformed or hostile DER and PEM.
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msgcrypt.h"
#include "x509_internal.h"

static char gen_dir[256];
static int64_t now0; // a minute after the certificates were made

struct blob {
  uint8_t *p;
  size_t len;
};

static struct blob read_path(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  struct blob b = {malloc(1 << 20), 0};
  ck_assert_ptr_nonnull(b.p);
  b.len = fread(b.p, 1, 1 << 20, f);
  fclose(f);
  return b;
}

static struct blob read_gen(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", gen_dir, name);
  return read_path(path);
}

static void read_line(const char *name, char *out, size_t cap) {
  struct blob b = read_gen(name);
  size_t n = b.len;
  while (n > 0 && (b.p[n - 1] == '\n' || b.p[n - 1] == '\r'))
    n--;
  ck_assert_uint_lt(n, cap);
  memcpy(out, b.p, n);
  out[n] = '\0';
  free(b.p);
}

static mc_x509_certs *load(const char *name) {
  struct blob b = read_gen(name);
  mc_x509_certs *c = NULL;
  mc_x509_diag diag;
  int r = mc_x509_certs_parse(&c, NULL, &diag, b.p, b.len);
  ck_assert_msg(r == 0, "%s: %s: %s", name, mc_strerror(r), diag.message);
  free(b.p);
  return c;
}

// add_crl_file gives the generated CRL `name` to trust store t.
static int add_crl_file(mc_x509_trust *t, mc_x509_diag *diag, const char *name) {
  struct blob b = read_gen(name);
  int r = mc_x509_trust_add_crl(t, diag, b.p, b.len);
  free(b.p);
  return r;
}

static mc_x509_trust *trust_with(int with_crls) {
  mc_x509_trust *t = NULL;
  char path[512];
  size_t added = 0;
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  snprintf(path, sizeof path, "%s/anchors", gen_dir);
  int r = mc_x509_trust_add_dir(t, &diag, &added, path);
  ck_assert_msg(r == 0, "add_dir: %s %s", mc_strerror(r), diag.message);
  // root.pem and its hash link are one anchor.
  ck_assert_uint_eq(added, 3);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(t), 3);
  if (with_crls) {
    const char *crls[] = {"int.crl", "root.crl"};
    for (size_t i = 0; i < 2; i++) {
      r = add_crl_file(t, &diag, crls[i]);
      ck_assert_msg(r == 0, "%s: %s", crls[i], diag.message);
    }
  }
  return t;
}

static mc_x509_result verify(const char *leaf, const char *inter, int crls, int64_t now) {
  mc_x509_certs *l = load(leaf);
  mc_x509_certs *i = inter ? load(inter) : NULL;
  mc_x509_trust *t = trust_with(crls);
  mc_x509_result r;
  ck_assert_int_eq(mc_x509_cert_verify(t, &r, mc_x509_certs_get(l, 0), i, now), 0);
  mc_x509_certs_free(l);
  mc_x509_certs_free(i);
  mc_x509_trust_free(t);
  r.anchor = NULL; // freed with the store
  return r;
}

START_TEST(parse_key_types_against_openssl) {
  static const struct {
    const char *name, *desc;
    unsigned bits;
  } cases[] = {
      {"alice", "S/MIME: RSA-3072", 3072}, {"bob", "S/MIME: EC P-384", 384},
      {"carol", "S/MIME: X25519", 255},    {"dave", "S/MIME: X448", 448},
      {"int", "S/MIME: EC P-256", 256},    {"root", "S/MIME: RSA-2048", 2048},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char file[64], want[512], got[512];
    snprintf(file, sizeof file, "%s.pem", cases[k].name);
    mc_x509_certs *s = load(file);
    ck_assert_uint_eq(mc_x509_certs_count(s), 1);
    const mc_x509_cert *c = mc_x509_certs_get(s, 0);
    ck_assert_ptr_null(mc_x509_certs_get(s, 1));
    size_t n;
    ck_assert_int_eq(mc_x509_cert_describe(c, got, sizeof got, &n), 0);
    ck_assert_str_eq(got, cases[k].desc);
    ck_assert_uint_eq(n, strlen(cases[k].desc));
    unsigned bits;
    mc_x509_cert_key_name(c, &bits);
    ck_assert_uint_eq(bits, cases[k].bits);
    snprintf(file, sizeof file, "%s.fpr", cases[k].name);
    read_line(file, want, sizeof want);
    ck_assert_int_eq(mc_x509_cert_fingerprint_hex(c, got, sizeof got), 0);
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(mc_x509_cert_fingerprint_hex(c, got, 95), MC_ERR_BUFFER_TOO_SMALL);
    // The SHA-1 fingerprint, in openssl's colon-separated form.
    snprintf(file, sizeof file, "%s.fpr1", cases[k].name);
    read_line(file, want, sizeof want);
    const uint8_t *f1 = mc_x509_cert_fingerprint_sha1(c);
    for (size_t i = 0; i < 20; i++)
      snprintf(got + 3 * i, sizeof got - 3 * i, i < 19 ? "%02X:" : "%02X", f1[i]);
    ck_assert_str_eq(got, want);
    snprintf(file, sizeof file, "%s.subject", cases[k].name);
    read_line(file, want, sizeof want);
    ck_assert_int_eq(mc_x509_cert_subject(c, got, sizeof got, &n), 0);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_int_eq(mc_x509_cert_subject(c, got, n, &n), MC_ERR_BUFFER_TOO_SMALL);
    snprintf(file, sizeof file, "%s.serial", cases[k].name);
    read_line(file, want, sizeof want);
    const uint8_t *ser = mc_x509_cert_serial(c, &n);
    char hex[64] = "";
    for (size_t i = 0; i < n; i++)
      snprintf(hex + 2 * i, sizeof hex - 2 * i, "%02X", ser[i]);
    ck_assert_str_eq(hex, want);
    ck_assert_int_eq(mc_x509_cert_can_encrypt(c), 1);
    mc_x509_certs_free(s);
  }
}
END_TEST

START_TEST(fields_of_alice) {
  mc_x509_certs *s = load("alice.der");
  const mc_x509_cert *c = mc_x509_certs_get(s, 0);
  char buf[256];
  size_t n;
  ck_assert_uint_eq(mc_x509_cert_num_addresses(c), 2);
  const char *a = mc_x509_cert_address(c, 0, &n);
  ck_assert_int_eq((int)n, 17);
  ck_assert_int_eq(memcmp(a, "alice@example.org", n), 0);
  a = mc_x509_cert_address(c, 1, &n);
  ck_assert_int_eq(memcmp(a, "alice.legacy@example.org", n), 0);
  ck_assert_ptr_null(mc_x509_cert_address(c, 2, &n));
  unsigned ku, eku;
  ck_assert_int_eq(mc_x509_cert_key_usage(c, &ku), 1);
  ck_assert_uint_eq(ku, MC_X509_KU_KEY_ENCIPHERMENT | MC_X509_KU_DIGITAL_SIGNATURE);
  ck_assert_int_eq(mc_x509_cert_ext_key_usage(c, &eku), 1);
  ck_assert_uint_eq(eku, MC_X509_EKU_EMAIL_PROTECTION);
  ck_assert_int_eq(mc_x509_cert_is_ca(c), 0);
  ck_assert_int_eq(mc_x509_cert_is_self_signed(c), 0);
  ck_assert_int_eq(mc_x509_cert_issuer(c, buf, sizeof buf, &n), 0);
  ck_assert_str_eq(buf, "CN=Corvid Mail CA,O=Corvid Test");
  int64_t nb = mc_x509_cert_not_before(c), na = mc_x509_cert_not_after(c);
  ck_assert(nb <= now0 && nb > now0 - 3600);
  ck_assert_int_eq(na - nb, 365 * 86400);
  // The recipient for the CMS engine.
  cms_recipient r;
  ck_assert_int_eq(x509_cert_recipient(&r, c), 0);
  ck_assert_int_eq(r.type, CMS_KEY_RSA);
  ck_assert_uint_eq(r.rsa_n_len, 384);
  ck_assert_uint_eq(r.rsa_e_len, 3);
  ck_assert_int_eq(memcmp(r.rsa_e, "\x01\x00\x01", 3), 0);
  // Serial 0x80AB01 needs its sign byte back in the INTEGER contents.
  ck_assert_uint_eq(r.serial_len, 4);
  ck_assert_int_eq(memcmp(r.serial, "\x00\x80\xab\x01", 4), 0);
  ck_assert_ptr_nonnull(r.ski);
  ck_assert_uint_eq(r.ski_len, 20);
  mc_x509_certs *is = load("int.pem");
  const mc_x509_cert *ic = mc_x509_certs_get(is, 0);
  ck_assert_uint_eq(r.issuer_der_len, ic->subject.len);
  ck_assert_int_eq(memcmp(r.issuer_der, ic->subject.p, r.issuer_der_len), 0);
  ck_assert_int_eq(mc_x509_cert_is_ca(ic), 1);
  mc_x509_certs_free(is);
  mc_x509_certs_free(s);
}
END_TEST

START_TEST(recipients_of_ec_and_montgomery_keys) {
  static const struct {
    const char *name;
    cms_key_type type;
    size_t len;
  } cases[] = {{"bob", CMS_KEY_EC_P384, 97},
               {"grace", CMS_KEY_EC_P521, 133},
               {"int", CMS_KEY_EC_P256, 65},
               {"carol", CMS_KEY_X25519, 32},
               {"dave", CMS_KEY_X448, 56}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char file[64];
    snprintf(file, sizeof file, "%s.pem", cases[k].name);
    mc_x509_certs *s = load(file);
    cms_recipient r;
    ck_assert_int_eq(x509_cert_recipient(&r, mc_x509_certs_get(s, 0)), 0);
    ck_assert_int_eq(r.type, cases[k].type);
    ck_assert_uint_eq(r.pub_len, cases[k].len);
    // The key is the tail of openssl's SubjectPublicKeyInfo (.pub file).
    snprintf(file, sizeof file, "%s.pub", cases[k].name);
    struct blob pem = read_gen(file);
    uint8_t *spki;
    size_t spki_len;
    static const char *const labels[] = {"PUBLIC KEY", NULL};
    ck_assert_int_eq(x509_pem_or_der(&spki, &spki_len, pem.p, pem.len, labels), 0);
    ck_assert_uint_ge(spki_len, r.pub_len);
    ck_assert_int_eq(memcmp(spki + spki_len - r.pub_len, r.pub, r.pub_len), 0);
    free(spki);
    free(pem.p);
    mc_x509_certs_free(s);
  }
}
END_TEST

START_TEST(rfc9935_mlkem_certificates) {
  static const char *const levels[] = {"512", "768", "1024"};
  static const size_t lens[] = {800, 1184, 1568};
  static const cms_key_type types[] = {CMS_KEY_MLKEM512, CMS_KEY_MLKEM768, CMS_KEY_MLKEM1024};
  const char *dir = getenv("CORVID_VECTORS");
  ck_assert_ptr_nonnull(dir);
  for (size_t k = 0; k < 3; k++) {
    char path[512], want[64], got[64];
    snprintf(path, sizeof path, "%s/rfc9935-kyber-certificates/ML-KEM-%s.crt", dir, levels[k]);
    struct blob b = read_path(path);
    mc_x509_certs *s = NULL;
    mc_x509_diag diag;
    int r = mc_x509_certs_parse(&s, NULL, &diag, b.p, b.len);
    ck_assert_msg(r == 0, "%s: %s", path, diag.message);
    const mc_x509_cert *c = mc_x509_certs_get(s, 0);
    snprintf(want, sizeof want, "S/MIME: ML-KEM-%s", levels[k]);
    ck_assert_int_eq(mc_x509_cert_describe(c, got, sizeof got, NULL), 0);
    ck_assert_str_eq(got, want);
    cms_recipient rc;
    ck_assert_int_eq(x509_cert_recipient(&rc, c), 0);
    ck_assert_int_eq(rc.type, types[k]);
    ck_assert_uint_eq(rc.pub_len, lens[k]);
    snprintf(path, sizeof path, "%s/rfc9935-kyber-certificates/ML-KEM-%s.pub", dir, levels[k]);
    struct blob pub = read_path(path);
    uint8_t *spki;
    size_t spki_len;
    static const char *const labels[] = {"PUBLIC KEY", NULL};
    ck_assert_int_eq(x509_pem_or_der(&spki, &spki_len, pub.p, pub.len, labels), 0);
    ck_assert_int_eq(memcmp(spki + spki_len - lens[k], rc.pub, lens[k]), 0);
    unsigned ku;
    ck_assert_int_eq(mc_x509_cert_key_usage(c, &ku), 1);
    ck_assert_uint_eq(ku, MC_X509_KU_KEY_ENCIPHERMENT);
    char subj[128];
    ck_assert_int_eq(mc_x509_cert_issuer(c, subj, sizeof subj, NULL), 0);
    ck_assert_str_eq(subj, "CN=LAMPS WG,O=IETF");
    // Signed with ML-DSA-44 by an issuer we do not have: no path, and the
    // few-clients warning.
    mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
    size_t nw;
    ck_assert_int_eq(mc_x509_cert_warnings(c, w, MC_PGP_MAX_WARNINGS, &nw, NULL, NULL,
                                           mc_x509_cert_not_before(c) + 86400, NULL, 0),
                     0);
    ck_assert_uint_eq(nw, 1);
    ck_assert_int_eq(w[0].code, MC_PGP_WARN_LIMITED_SUPPORT);
    ck_assert_str_eq(w[0].name, "limited-support");
    free(spki);
    free(pub.p);
    free(b.p);
    mc_x509_certs_free(s);
  }
}
END_TEST

START_TEST(bundles_pkcs7_and_pem_chains) {
  const char *files[] = {"bundle.p7b", "bundle.p7c", "chain.pem"};
  mc_x509_certs *alice = load("alice.pem");
  mc_x509_certs *in = load("int.pem");
  for (size_t k = 0; k < 3; k++) {
    mc_x509_certs *s = load(files[k]);
    ck_assert_uint_eq(mc_x509_certs_count(s), 2);
    int found_alice = 0, found_int = 0;
    for (size_t i = 0; i < 2; i++) {
      const uint8_t *f = mc_x509_cert_fingerprint(mc_x509_certs_get(s, i));
      found_alice |= memcmp(f, mc_x509_cert_fingerprint(mc_x509_certs_get(alice, 0)), 32) == 0;
      found_int |= memcmp(f, mc_x509_cert_fingerprint(mc_x509_certs_get(in, 0)), 32) == 0;
    }
    ck_assert(found_alice && found_int);
    // The bundle serves as the intermediates of a validation.
    mc_x509_trust *t = trust_with(1);
    mc_x509_result r;
    ck_assert_int_eq(mc_x509_cert_verify(t, &r, mc_x509_certs_get(alice, 0), s, now0), 0);
    ck_assert_str_eq(mc_x509_verdict_name(r.verdict), "ok");
    ck_assert_uint_eq(r.chain_len, 3);
    ck_assert_int_eq(r.crl_checked, 1);
    mc_x509_trust_free(t);
    mc_x509_certs_free(s);
  }
  mc_x509_certs_free(alice);
  mc_x509_certs_free(in);
}
END_TEST

START_TEST(valid_paths_every_signature_algorithm) {
  static const struct {
    const char *leaf, *inter;
    size_t chain_len;
    int weak;
  } cases[] = {
      {"alice.pem", "int.pem", 3, 0}, // ECDSA P-256 SHA-256 over RSA PKCS#1
      {"bob.pem", "int.pem", 3, 0},   // (without CRLs bob is fine)
      {"carol.pem", "int.pem", 3, 0}, {"dave.pem", "int.pem", 3, 0},
      {"grace.pem", NULL, 2, 0},     // RSA PKCS#1 SHA-512
      {"pss.pem", NULL, 2, 0},       // RSASSA-PSS SHA-384 salt 32
      {"edleaf.pem", NULL, 2, 0},    // Ed25519
      {"ed448leaf.pem", NULL, 2, 0}, // Ed448
      {"old.pem", NULL, 2, 1},       // SHA-1
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mc_x509_result r = verify(cases[k].leaf, cases[k].inter, 0, now0);
    ck_assert_msg(r.verdict == MC_X509_OK, "%s: %s (problems %#x)", cases[k].leaf,
                  mc_x509_verdict_name(r.verdict), r.problems);
    ck_assert_uint_eq(r.problems, 0);
    ck_assert_uint_eq(r.chain_len, cases[k].chain_len);
    ck_assert_int_eq(r.weak_signature, cases[k].weak);
    ck_assert_int_eq(r.crl_checked, 0);
  }
}
END_TEST

START_TEST(invalid_paths) {
  static const struct {
    const char *leaf, *inter;
    int crls;
    int64_t dt;
    mc_x509_verdict want;
  } cases[] = {
      {"bob.pem", "int.pem", 1, 0, MC_X509_REVOKED},
      {"alice.pem", "int.pem", 1, 400 * 86400, MC_X509_EXPIRED},
      {"alice.pem", "int.pem", 1, -86400, MC_X509_NOT_YET_VALID},
      {"alice.pem", NULL, 1, 0, MC_X509_UNTRUSTED},
      {"erin.pem", "int.pem", 1, 0, MC_X509_WRONG_KEY_USAGE},
      {"frank.pem", "int.pem", 1, 0, MC_X509_WRONG_KEY_USAGE},
      {"deep.pem", "chain_sub.pem", 0, 0, MC_X509_PATH_TOO_LONG},
      {"nc.pem", "ncca.pem", 0, 0, MC_X509_CRITICAL_EXT},
      {"notca.pem", "chain.pem", 0, 0, MC_X509_BAD_CA},
      {"mallory.pem", "other.pem", 0, 0, MC_X509_UNTRUSTED},
      {"self.pem", NULL, 0, 0, MC_X509_SELF_SIGNED},
      {"edroot.pem", NULL, 0, 0, MC_X509_UNSUPPORTED_KEY}, // an anchor, but Ed25519
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mc_x509_result r = verify(cases[k].leaf, cases[k].inter, cases[k].crls, now0 + cases[k].dt);
    ck_assert_msg(r.verdict == cases[k].want, "%s: got %s want %s (problems %#x)", cases[k].leaf,
                  mc_x509_verdict_name(r.verdict), mc_x509_verdict_name(cases[k].want), r.problems);
    ck_assert(r.problems & (1u << cases[k].want));
  }
  // With CRLs alice is checked against both CRLs and stays valid.
  mc_x509_result r = verify("alice.pem", "int.pem", 1, now0);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_int_eq(r.crl_checked, 1);
  // The CRLs are issued for 30 days: after that they no longer vouch for
  // alice, but bob stays revoked.
  r = verify("alice.pem", "int.pem", 1, now0 + 40 * 86400);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_int_eq(r.crl_checked, 0);
  r = verify("bob.pem", "int.pem", 1, now0 + 40 * 86400);
  ck_assert_int_eq(r.verdict, MC_X509_REVOKED);
  // No trust store trusts nothing.
  mc_x509_certs *a = load("alice.pem");
  ck_assert_int_eq(mc_x509_cert_verify(NULL, &r, mc_x509_certs_get(a, 0), NULL, now0), 0);
  ck_assert_int_eq(r.verdict, MC_X509_UNTRUSTED);
  ck_assert_int_eq(mc_x509_cert_verify(NULL, NULL, mc_x509_certs_get(a, 0), NULL, now0),
                   MC_ERR_INVALID_ARGUMENT);
  mc_x509_certs_free(a);
}
END_TEST

START_TEST(crl_scope_and_entry_extensions) {
  // A CRL that covers only some reasons, or also other issuers' certificates
  // (RFC 5280 §5.2.5), does not say what this model needs: refused.
  static const char *refused[] = {"int_indirect.crl", "int_some_reasons.crl"};
  for (size_t k = 0; k < 2; k++) {
    mc_x509_trust *t;
    ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
    mc_x509_diag diag;
    ck_assert_int_eq(add_crl_file(t, &diag, refused[k]), MC_ERR_BAD_KEY);
    ck_assert_msg(strstr(diag.message, "indirect or partial-reason") != NULL, "%s: %s", refused[k],
                  diag.message);
    mc_x509_trust_free(t);
  }
  // A distribution point with only a name, and an entry with a reason
  // code: read, and bob is revoked by either.
  static const char *read_ok[] = {"int_name_only.crl", "int_reason.crl"};
  mc_x509_certs *bob = load("bob.pem"), *in = load("int.pem"), *alice = load("alice.pem");
  for (size_t k = 0; k < 2; k++) {
    mc_x509_trust *t = trust_with(0);
    mc_x509_diag diag;
    ck_assert_msg(add_crl_file(t, &diag, read_ok[k]) == 0, "%s: %s", read_ok[k], diag.message);
    ck_assert_int_eq(add_crl_file(t, &diag, "root.crl"), 0);
    mc_x509_result r;
    ck_assert_int_eq(mc_x509_cert_verify(t, &r, mc_x509_certs_get(bob, 0), in, now0), 0);
    ck_assert_msg(r.verdict == MC_X509_REVOKED, "%s: %s", read_ok[k],
                  mc_x509_verdict_name(r.verdict));
    ck_assert_int_eq(mc_x509_cert_verify(t, &r, mc_x509_certs_get(alice, 0), in, now0), 0);
    ck_assert_int_eq(r.verdict, MC_X509_OK);
    ck_assert_int_eq(r.crl_checked, 1);
    mc_x509_trust_free(t);
  }
  mc_x509_certs_free(alice);
  mc_x509_certs_free(in);
  mc_x509_certs_free(bob);
  // That reason code marked critical (the CRL signed again by int): an
  // entry extension the reader does not process, critical, refuses the
  // CRL (RFC 5280 5.3), rather than trusting its list of serials.
  mc_x509_trust *t;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  mc_x509_diag diag;
  ck_assert_int_eq(add_crl_file(t, &diag, "int_critical_entry.crl"), MC_ERR_BAD_KEY);
  ck_assert_msg(strstr(diag.message, "unsupported critical CRL entry extension") != NULL, "%s",
                diag.message);
  mc_x509_trust_free(t);
}
END_TEST

START_TEST(tampered_signature_and_key) {
  struct blob b = read_gen("alice.der");
  mc_x509_certs *in = load("int.pem");
  mc_x509_trust *t = trust_with(0);
  // Last byte of the signature, then a byte inside the public key.
  size_t spots[] = {b.len - 1, b.len / 3};
  for (size_t k = 0; k < 2; k++) {
    struct blob m = {malloc(b.len), b.len};
    memcpy(m.p, b.p, b.len);
    m.p[spots[k]] ^= 0x01;
    mc_x509_certs *s = NULL;
    int r = mc_x509_certs_parse(&s, NULL, NULL, m.p, m.len);
    if (r == 0) {
      mc_x509_result res;
      ck_assert_int_eq(mc_x509_cert_verify(t, &res, mc_x509_certs_get(s, 0), in, now0), 0);
      ck_assert_int_eq(res.verdict, MC_X509_BAD_SIGNATURE);
      ck_assert(res.problems & (1u << MC_X509_UNTRUSTED));
    }
    mc_x509_certs_free(s);
    free(m.p);
  }
  mc_x509_trust_free(t);
  mc_x509_certs_free(in);
  free(b.p);
}
END_TEST

static int has_warning(const mc_pgp_warning *w, size_t n, int code) {
  for (size_t i = 0; i < n; i++)
    if ((int)w[i].code == code)
      return 1;
  return 0;
}

START_TEST(warnings_share_the_openpgp_codes) {
  static const struct {
    const char *leaf;
    int64_t dt;
    const char *addr;
    int want[4];
  } cases[] = {
      {"alice.pem", 0, "ALICE@example.org", {0}},
      {"alice.pem", 355 * 86400, NULL, {MC_PGP_WARN_EXPIRES_SOON, MC_X509_WARN_NO_REVOCATION}},
      {"alice.pem", 366 * 86400, NULL, {MC_PGP_WARN_EXPIRED, MC_X509_WARN_NO_REVOCATION}},
      {"alice.pem", 0, "bob@example.org", {MC_PGP_WARN_NO_ADDRESS}},
      {"bob.pem", 0, NULL, {MC_PGP_WARN_REVOKED}},
      {"carol.pem", 0, NULL, {MC_PGP_WARN_LIMITED_SUPPORT}},
      {"erin.pem", 0, NULL, {MC_PGP_WARN_RSA_SHORT, MC_X509_WARN_KEY_USAGE}},
      {"self.pem", 0, NULL, {MC_PGP_WARN_RSA_SHORT, MC_X509_WARN_SELF_SIGNED}},
      {"mallory.pem", 0, NULL, {MC_PGP_WARN_RSA_SHORT, MC_X509_WARN_UNTRUSTED}},
      {"edroot.pem", 0, NULL, {MC_PGP_WARN_NO_ENCRYPTION, MC_X509_WARN_NO_REVOCATION + 100}},
      {"old.pem", 0, NULL, {MC_PGP_WARN_RSA_SHORT, MC_PGP_WARN_WEAK_ALGORITHM}},
  };
  mc_x509_certs *in = load("int.pem");
  mc_x509_trust *t = trust_with(1);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mc_x509_certs *s = load(cases[k].leaf);
    mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
    size_t n;
    const char *addrs[1] = {cases[k].addr};
    int r = mc_x509_cert_warnings(mc_x509_certs_get(s, 0), w, MC_PGP_MAX_WARNINGS, &n, t, in,
                                  now0 + cases[k].dt, addrs, cases[k].addr ? 1 : 0);
    ck_assert_int_eq(r, 0);
    size_t want_n = 0;
    for (size_t i = 0; i < 4 && cases[k].want[i]; i++) {
      if (cases[k].want[i] > 100)
        continue; // listed as absent
      want_n++;
      ck_assert_msg(has_warning(w, n, cases[k].want[i]), "%s: no %s", cases[k].leaf,
                    mc_x509_warn_name(cases[k].want[i]));
    }
    for (size_t i = 0; i < n; i++)
      ck_assert_str_eq(w[i].name, mc_x509_warn_name(w[i].code));
    ck_assert_msg(n == want_n, "%s: %zu warnings, first %s", cases[k].leaf, n, n ? w[0].name : "-");
    if (n > 0) {
      size_t need;
      ck_assert_int_eq(mc_x509_cert_warnings(mc_x509_certs_get(s, 0), w, 0, &need, t, in,
                                             now0 + cases[k].dt, addrs, cases[k].addr ? 1 : 0),
                       MC_ERR_BUFFER_TOO_SMALL);
      ck_assert_uint_eq(need, n);
    }
    mc_x509_certs_free(s);
  }
  // One code space: the OpenPGP names for the shared codes.
  ck_assert_str_eq(mc_x509_warn_name(MC_PGP_WARN_REVOKED), mc_pgp_warn_name(MC_PGP_WARN_REVOKED));
  ck_assert_str_eq(mc_x509_warn_name(MC_X509_WARN_UNTRUSTED), "untrusted-chain");
  ck_assert_int_eq(MC_X509_WARN_SELF_SIGNED, MC_PGP_WARN_BAD_SIGNATURE + 1);
  ck_assert_str_eq(mc_x509_warn_name(999), "unknown");
  mc_x509_trust_free(t);
  mc_x509_certs_free(in);
}
END_TEST

static int parse_rc(const uint8_t *p, size_t n, const mc_x509_settings *s) {
  mc_x509_certs *c = NULL;
  mc_x509_diag diag;
  int r = mc_x509_certs_parse(&c, s, &diag, p, n);
  if (r == 0)
    ck_assert_ptr_nonnull(c);
  else
    ck_assert_ptr_null(c);
  mc_x509_certs_free(c);
  return r;
}

START_TEST(truncation_at_every_length) {
  struct blob b = read_gen("alice.der");
  for (size_t n = 0; n < b.len; n++)
    ck_assert_int_eq(parse_rc(b.p, n, NULL), n == 0 ? MC_ERR_BAD_KEY : MC_ERR_BAD_KEY);
  ck_assert_int_eq(parse_rc(b.p, b.len, NULL), 0);
  // Trailing garbage after the certificate.
  uint8_t *x = malloc(b.len + 1);
  memcpy(x, b.p, b.len);
  x[b.len] = 0;
  ck_assert_int_eq(parse_rc(x, b.len + 1, NULL), MC_ERR_BAD_KEY);
  free(x);
  free(b.p);
}
END_TEST

START_TEST(hostile_der) {
  // Indefinite length, non-minimal lengths, a high tag number.
  static const uint8_t indef[] = {0x30, 0x80, 0x02, 0x01, 0x01, 0x00, 0x00};
  static const uint8_t nonmin1[] = {0x30, 0x81, 0x03, 0x02, 0x01, 0x01};
  static const uint8_t nonmin2[] = {0x30, 0x82, 0x00, 0x03, 0x02, 0x01, 0x01};
  static const uint8_t huge[] = {0x30, 0x84, 0xff, 0xff, 0xff, 0xff};
  static const uint8_t hightag[] = {0x3f, 0x81, 0x01, 0x00};
  ck_assert_int_eq(parse_rc(indef, sizeof indef, NULL), MC_ERR_BAD_KEY);
  ck_assert_int_eq(parse_rc(nonmin1, sizeof nonmin1, NULL), MC_ERR_BAD_KEY);
  ck_assert_int_eq(parse_rc(nonmin2, sizeof nonmin2, NULL), MC_ERR_BAD_KEY);
  ck_assert_int_eq(parse_rc(huge, sizeof huge, NULL), MC_ERR_BAD_KEY);
  ck_assert_int_eq(parse_rc(hightag, sizeof hightag, NULL), MC_ERR_BAD_KEY);
  // 10,000 nested SEQUENCEs stop at max_der_depth without deep recursion.
  size_t depth = 10000, n = 0;
  uint8_t *deep = malloc(depth * 6);
  for (size_t i = 0; i < depth; i++) {
    size_t rest = (depth - i - 1) * 6;
    deep[n++] = 0x30;
    deep[n++] = 0x84;
    deep[n++] = (uint8_t)(rest >> 24);
    deep[n++] = (uint8_t)(rest >> 16);
    deep[n++] = (uint8_t)(rest >> 8);
    deep[n++] = (uint8_t)rest;
  }
  ck_assert_int_eq(parse_rc(deep, n, NULL), MC_ERR_BAD_KEY);
  free(deep);
  // Limits and arguments.
  mc_x509_settings s = MC_X509_SETTINGS_INIT;
  struct blob chain = read_gen("chain.pem");
  ck_assert_int_eq(parse_rc(chain.p, chain.len, &s), 0);
  s.max_certs = 1;
  ck_assert_int_eq(parse_rc(chain.p, chain.len, &s), MC_ERR_BAD_KEY);
  s.max_certs = 0;
  s.max_input_len = chain.len - 1;
  ck_assert_int_eq(parse_rc(chain.p, chain.len, &s), MC_ERR_BAD_KEY);
  s.max_input_len = 0;
  s.max_der_depth = 3;
  ck_assert_int_eq(parse_rc(chain.p, chain.len, &s), MC_ERR_BAD_KEY);
  s.max_der_depth = 0;
  s.version = 2;
  ck_assert_int_eq(parse_rc(chain.p, chain.len, &s), MC_ERR_INVALID_ARGUMENT);
  mc_x509_certs *c;
  ck_assert_int_eq(mc_x509_certs_parse(NULL, NULL, NULL, chain.p, chain.len),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x509_certs_parse(&c, NULL, NULL, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  // PEM damage: bad Base64, END label mismatch, no block at all.
  char *pem = malloc(chain.len + 1);
  memcpy(pem, chain.p, chain.len);
  pem[chain.len] = '\0';
  char *body = strstr(pem, "-----\n") + 6;
  char save = body[10];
  body[10] = '*';
  ck_assert_int_eq(parse_rc((uint8_t *)pem, chain.len, NULL), MC_ERR_BAD_KEY);
  body[10] = save;
  char *end = strstr(pem, "-----END CERTIFICATE");
  end[9] = 'X';
  ck_assert_int_eq(parse_rc((uint8_t *)pem, chain.len, NULL), MC_ERR_BAD_KEY);
  static const char junk[] = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
  ck_assert_int_eq(parse_rc((const uint8_t *)junk, strlen(junk), NULL), MC_ERR_BAD_KEY);
  free(pem);
  free(chain.p);
  // A CRL that is not one, and a certificate given as a CRL.
  mc_x509_trust *t;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  struct blob a = read_gen("alice.der");
  ck_assert_int_eq(mc_x509_trust_add_crl(t, NULL, a.p, a.len), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_x509_trust_add_crl(t, NULL, indef, sizeof indef), MC_ERR_BAD_KEY);
  size_t added;
  ck_assert_int_eq(mc_x509_trust_add_dir(t, NULL, &added, "/nonexistent-dir"), -ENOENT);
  mc_x509_trust_free(t);
  free(a.p);
}
END_TEST

START_TEST(der_reader_units) {
  static const struct {
    const char *text;
    uint8_t tag;
    int64_t want; // -1: rejected
  } times[] = {
      {"500101000000Z", DER_UTC_TIME, -631152000},
      {"491231235959Z", DER_UTC_TIME, 2524607999},
      {"20000229120000Z", DER_GENERALIZED_TIME, 951825600},
      {"19000229120000Z", DER_GENERALIZED_TIME, -1},
      {"20230229120000Z", DER_GENERALIZED_TIME, -1},
      {"20231301000000Z", DER_GENERALIZED_TIME, -1},
      {"2023010100000Z", DER_GENERALIZED_TIME, -1},
      {"20230101000000+0100", DER_GENERALIZED_TIME, -1},
      {"230101000000", DER_UTC_TIME, -1},
      {"2301010000Z", DER_UTC_TIME, -1},
      {"20230101000060Z", DER_GENERALIZED_TIME, -1},
  };
  for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
    uint8_t buf[32];
    size_t n = strlen(times[k].text);
    buf[0] = times[k].tag;
    buf[1] = (uint8_t)n;
    memcpy(buf + 2, times[k].text, n);
    der_cur c = der_cur_make(buf, n + 2);
    int64_t t = 0;
    int ok = der_get_time(&c, &t);
    ck_assert_msg(ok == (times[k].want != -1), "%s", times[k].text);
    if (ok)
      ck_assert_int_eq(t, times[k].want);
    else
      ck_assert_uint_eq(c.len, n + 2); // not advanced
  }
  static const uint8_t ints[][5] = {
      {0x02, 0x01, 0x00}, {0x02, 0x02, 0x00, 0x80}, {0x02, 0x02, 0x00, 0x7f}, {0x02, 0x01, 0x80},
      {0x02, 0x00},       {0x02, 0x02, 0xff, 0x80}};
  static const int int_ok[] = {1, 1, 0, 0, 0, 0};
  for (size_t k = 0; k < 6; k++) {
    der_cur c = der_cur_make(ints[k], (size_t)ints[k][1] + 2), v;
    ck_assert_int_eq(der_get_integer(&c, &v), int_ok[k]);
  }
  static const uint8_t oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b};
  der_cur c = der_cur_make(oid, sizeof oid), v;
  char text[64];
  ck_assert_int_eq(der_get_oid(&c, &v), 1);
  ck_assert_int_eq(der_oid_to_text(text, sizeof text, &v), 1);
  ck_assert_str_eq(text, "1.2.840.113549.1.1.11");
  ck_assert_int_eq(der_oid_to_text(text, 8, &v), 0);
  static const uint8_t badoid[] = {0x06, 0x02, 0x80, 0x01};
  c = der_cur_make(badoid, sizeof badoid);
  ck_assert_int_eq(der_get_oid(&c, &v), 0);
  static const uint8_t bits[] = {0x03, 0x02, 0x01, 0x01}; // unused bit set
  c = der_cur_make(bits, sizeof bits);
  unsigned unused;
  ck_assert_int_eq(der_get_bit_string(&c, &v, &unused), 0);
  static const uint8_t boolbad[] = {0x01, 0x01, 0x01};
  int bv;
  c = der_cur_make(boolbad, sizeof boolbad);
  ck_assert_int_eq(der_get_bool(&c, &bv), 0);
}
END_TEST

static Suite *smime_certs_suite(void) {
  Suite *s = suite_create("smime_certs");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, parse_key_types_against_openssl);
  tcase_add_test(tc, fields_of_alice);
  tcase_add_test(tc, recipients_of_ec_and_montgomery_keys);
  tcase_add_test(tc, rfc9935_mlkem_certificates);
  tcase_add_test(tc, bundles_pkcs7_and_pem_chains);
  tcase_add_test(tc, valid_paths_every_signature_algorithm);
  tcase_add_test(tc, invalid_paths);
  tcase_add_test(tc, crl_scope_and_entry_extensions);
  tcase_add_test(tc, tampered_signature_and_key);
  tcase_add_test(tc, warnings_share_the_openpgp_codes);
  tcase_add_test(tc, truncation_at_every_length);
  tcase_add_test(tc, hostile_der);
  tcase_add_test(tc, der_reader_units);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  // The generator script sits next to this file; meson runs tests from the
  // build directory, which the compiler's path for __FILE__ is relative to.
  // CORVID_SMIME_GEN overrides it.
  char gen_buf[1024];
  const char *gen = getenv("CORVID_SMIME_GEN");
  if (gen == NULL) {
    const char *slash = strrchr(__FILE__, '/');
    size_t dir_len = slash ? (size_t)(slash - __FILE__) + 1 : 0;
    snprintf(gen_buf, sizeof gen_buf, "%.*ssmime_certs_gen.sh", (int)dir_len, __FILE__);
    gen = gen_buf;
  }
  char tmpl[] = "/tmp/smime-certs-XXXXXX";
  if (access(gen, R_OK) != 0 || mkdtemp(tmpl) == NULL) {
    printf("Bail out! cannot read %s (set CORVID_SMIME_GEN) or no temporary directory\n", gen);
    return 1;
  }
  snprintf(gen_dir, sizeof gen_dir, "%s/c", tmpl);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "sh '%s' '%s' >'%s/gen.log' 2>&1", gen, gen_dir, tmpl);
  if (system(cmd) != 0) {
    printf("Bail out! %s failed; see %s/gen.log\n", gen, tmpl);
    return 1;
  }
  now0 = (int64_t)time(NULL) + 60;
  SRunner *sr = srunner_create(smime_certs_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  if (system(cmd) != 0)
    failed++;
  return failed == 0 ? 0 : 1;
}
