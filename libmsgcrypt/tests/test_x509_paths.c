// test_x509_paths.c: the S/MIME certificate and CRL paths that
// test_smime_certs.c does not reach (x509.c, x509_verify.c,
// x509_describe.c): trust-store limits and directory errors, CRL entry
// extensions in a version 1 CRL, CRLs that must be ignored (issuer without
// cRLSign, bad signature), the choice between several candidate paths,
// max_chain_len, anchors with the right name but the wrong key, the SHA-1
// and PSS signature algorithms, anyExtendedKeyUsage, max_rsa_bits, unique
// identifiers, BMPString/UniversalString/unknown-attribute names, Ed448 and
// ML-DSA key names and address matching.
//
// Every certificate and CRL is built here, at run time, as DER with a small
// builder and signed with Ed25519 (BoringSSL, which libmsgcrypt links), so
// that each malformed input has a well-formed twin that differs only in the
// field under test. All dates are fixed (valid 2020-2040, `now` in 2030):
// the results do not depend on the clock.
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include <openssl/curve25519.h>

#include "msgcrypt.h"

// ---- a DER builder whose buffers live until the end of the test ----

typedef struct der {
  uint8_t *p;
  size_t len;
} der;

static void *arena[4096];
static size_t arena_len;

static void *arena_alloc(size_t n) {
  ck_assert_uint_lt(arena_len, sizeof arena / sizeof arena[0]);
  void *p = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(p);
  arena[arena_len++] = p;
  return p;
}

static void arena_free_all(void) {
  while (arena_len > 0)
    free(arena[--arena_len]);
}

static const der none = {NULL, 0};

static der raw(const void *p, size_t n) {
  der d = {arena_alloc(n), n};
  if (n > 0)
    memcpy(d.p, p, n);
  return d;
}

// cat joins `n` elements.
static der cat(int n, ...) {
  va_list ap;
  size_t total = 0;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    total += va_arg(ap, der).len;
  va_end(ap);
  der out = {arena_alloc(total), 0};
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    der d = va_arg(ap, der);
    if (d.len > 0)
      memcpy(out.p + out.len, d.p, d.len);
    out.len += d.len;
  }
  va_end(ap);
  return out;
}

static der tlv(unsigned tag, der content) {
  uint8_t head[6];
  size_t h = 0, n = content.len;
  head[h++] = (uint8_t)tag;
  if (n < 0x80) {
    head[h++] = (uint8_t)n;
  } else {
    size_t bytes = n > 0xffff ? 3 : n > 0xff ? 2 : 1;
    head[h++] = (uint8_t)(0x80 | bytes);
    for (size_t i = bytes; i-- > 0;)
      head[h++] = (uint8_t)(n >> (8 * i));
  }
  return cat(2, raw(head, h), content);
}

#define SEQ(...) tlv(0x30, cat(__VA_ARGS__))
#define OID(...)                                                                                   \
  tlv(0x06, raw((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})))

static der small_int(unsigned v) {
  uint8_t b[5];
  size_t n = 0;
  if (v >= 0x800000)
    b[n++] = (uint8_t)(v >> 24);
  if (v >= 0x8000)
    b[n++] = (uint8_t)(v >> 16);
  if (v >= 0x80)
    b[n++] = (uint8_t)(v >> 8);
  b[n++] = (uint8_t)v;
  // No value here reaches a byte with its top bit set at the front.
  return tlv(0x02, raw(b, n));
}

static der bits(der content) {
  return tlv(0x03, cat(2, raw("\0", 1), content));
}

static der gtime(const char *text) {
  return tlv(0x18, raw(text, strlen(text)));
}

static der cn_name(const char *cn) {
  return SEQ(1, tlv(0x31, SEQ(2, OID(0x55, 0x04, 0x03), tlv(0x0c, raw(cn, strlen(cn))))));
}

// A Name of one attribute, of any type and string tag.
static der name_of(der oid, unsigned string_tag, der value) {
  return SEQ(1, tlv(0x31, SEQ(2, oid, tlv(string_tag, value))));
}

// ---- keys ----

typedef struct ed_key {
  uint8_t pub[32], priv[64];
} ed_key;

static ed_key ed_key_make(uint8_t seed_byte) {
  ed_key k;
  uint8_t seed[32];
  memset(seed, seed_byte, sizeof seed);
  ED25519_keypair_from_seed(k.pub, k.priv, seed);
  return k;
}

static der ed25519_spki(const ed_key *k) {
  return SEQ(2, SEQ(1, OID(0x2b, 0x65, 0x70)), bits(raw(k->pub, 32)));
}

// An X25519 key CMS can encrypt to; any 32 bytes are a valid key.
static der x25519_spki(uint8_t fill) {
  uint8_t pub[32];
  memset(pub, fill, sizeof pub);
  return SEQ(2, SEQ(1, OID(0x2b, 0x65, 0x6e)), bits(raw(pub, 32)));
}

// A P-256 key: the point is only checked for its form when parsed.
static der p256_spki(void) {
  uint8_t pt[65];
  memset(pt, 0x11, sizeof pt);
  pt[0] = 0x04;
  return SEQ(2,
             SEQ(2, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01),
                 OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07)),
             bits(raw(pt, sizeof pt)));
}

// An RSA key whose modulus has exactly `nbits` bits (a multiple of 8).
static der rsa_spki(size_t nbits) {
  size_t n = nbits / 8;
  uint8_t *m = arena_alloc(n + 1);
  m[0] = 0x00; // sign padding: the top bit of the modulus is set
  memset(m + 1, 0xc5, n);
  der modulus = tlv(0x02, raw(m, n + 1));
  return SEQ(2, SEQ(2, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01), tlv(0x05, none)),
             bits(SEQ(2, modulus, tlv(0x02, raw("\x01\x00\x01", 3)))));
}

// A key of fixed length with absent parameters (RFC 8410, FIPS 204 OIDs).
static der raw_key_spki(der oid, size_t key_len) {
  uint8_t *k = arena_alloc(key_len);
  memset(k, 0x5a, key_len);
  return SEQ(2, SEQ(1, oid), bits(raw(k, key_len)));
}

// ---- signature algorithms ----

static der alg_ed25519(void) {
  return SEQ(1, OID(0x2b, 0x65, 0x70));
}

static der oid_sha(unsigned last) {
  return OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, (uint8_t)last);
}

// RSASSA-PSS with `hash` for both the message and MGF1 (RFC 4055 §3.1).
static der alg_pss(der hash) {
  der mgf1 = SEQ(2, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08), SEQ(1, hash));
  return SEQ(2, OID(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a),
             SEQ(3, tlv(0xa0, SEQ(1, hash)), tlv(0xa1, mgf1), tlv(0xa2, small_int(32))));
}

// ---- extensions ----

static der ext(der oid, int critical, der value) {
  if (critical)
    return SEQ(3, oid, tlv(0x01, raw("\xff", 1)), tlv(0x04, value));
  return SEQ(2, oid, tlv(0x04, value));
}

static der ext_ca(void) {
  return ext(OID(0x55, 0x1d, 0x13), 1, SEQ(1, tlv(0x01, raw("\xff", 1))));
}

// keyUsage with the first byte `ku` (bit 0 is 0x80) and its unused count.
static der ext_ku(uint8_t ku, uint8_t unused) {
  uint8_t b[2] = {unused, ku};
  return ext(OID(0x55, 0x1d, 0x0f), 1, tlv(0x03, raw(b, 2)));
}

#define KU_CERT_SIGN 0x04, 2
#define KU_CERT_AND_CRL_SIGN 0x06, 1

static der ext_eku(der purpose) {
  return ext(OID(0x55, 0x1d, 0x25), 0, SEQ(1, purpose));
}

static der ext_san(const char *addr) {
  return ext(OID(0x55, 0x1d, 0x11), 0, SEQ(1, tlv(0x81, raw(addr, strlen(addr)))));
}

// ---- certificates and CRLs ----

typedef struct cert_spec {
  int version; // 1-3; 0 means 3
  der issuer, subject, spki;
  unsigned serial;
  const char *not_before, *not_after; // GeneralizedTime text; NULL for 2020-2040
  der sigalg;                         // none: Ed25519
  der after_spki;                     // unique identifiers, raw
  der exts;                           // concatenated Extensions; none: no field
  const ed_key *signer;               // NULL: a signature of zeros
} cert_spec;

static der make_cert(const cert_spec *s) {
  int version = s->version ? s->version : 3;
  der sigalg = s->sigalg.p ? s->sigalg : alg_ed25519();
  der ver = version > 1 ? tlv(0xa0, small_int((unsigned)version - 1)) : none;
  der validity = SEQ(2, gtime(s->not_before ? s->not_before : "20200101000000Z"),
                     gtime(s->not_after ? s->not_after : "20400101000000Z"));
  der exts = s->exts.len > 0 ? tlv(0xa3, tlv(0x30, s->exts)) : none;
  der tbs = SEQ(9, ver, small_int(s->serial), sigalg, s->issuer, validity, s->subject, s->spki,
                s->after_spki, exts);
  uint8_t sig[64] = {0};
  if (s->signer != NULL)
    ck_assert_int_eq(ED25519_sign(sig, tbs.p, tbs.len, s->signer->priv), 1);
  return SEQ(3, tbs, sigalg, bits(raw(sig, sizeof sig)));
}

// A self-signed Ed25519 root that may issue certificates and CRLs.
static der make_root(const char *cn, const ed_key *k, unsigned serial) {
  cert_spec s = {.issuer = cn_name(cn),
                 .subject = cn_name(cn),
                 .spki = ed25519_spki(k),
                 .serial = serial,
                 .exts = cat(2, ext_ca(), ext_ku(KU_CERT_AND_CRL_SIGN)),
                 .signer = k};
  return make_cert(&s);
}

// An intermediate CA `cn` with key `k`, issued by `issuer_cn` with `by`.
static der make_ca(const char *cn, const ed_key *k, const char *issuer_cn, const ed_key *by,
                   unsigned serial, const char *not_before, der extra_exts) {
  cert_spec s = {.issuer = cn_name(issuer_cn),
                 .subject = cn_name(cn),
                 .spki = ed25519_spki(k),
                 .serial = serial,
                 .not_before = not_before,
                 .exts = cat(3, ext_ca(), ext_ku(KU_CERT_AND_CRL_SIGN), extra_exts),
                 .signer = by};
  return make_cert(&s);
}

// An X25519 mail leaf issued by `issuer_cn` with `by`.
static der make_leaf(const char *issuer_cn, const ed_key *by, unsigned serial, der exts) {
  cert_spec s = {.issuer = cn_name(issuer_cn),
                 .subject = cn_name("Leaf"),
                 .spki = x25519_spki(0x42),
                 .serial = serial,
                 .exts = exts,
                 .signer = by};
  return make_cert(&s);
}

typedef struct crl_spec {
  int v2;
  der issuer;
  der revoked; // concatenated entries; none: field absent
  der exts;    // concatenated crlExtensions; none: field absent
  const ed_key *signer;
} crl_spec;

static der make_crl(const crl_spec *s) {
  der revoked = s->revoked.len > 0 ? tlv(0x30, s->revoked) : none;
  der exts = s->exts.len > 0 ? tlv(0xa0, tlv(0x30, s->exts)) : none;
  der tbs = SEQ(7, s->v2 ? small_int(1) : none, alg_ed25519(), s->issuer, gtime("20291201000000Z"),
                gtime("20300201000000Z"), revoked, exts);
  uint8_t sig[64] = {0};
  ck_assert_int_eq(ED25519_sign(sig, tbs.p, tbs.len, s->signer->priv), 1);
  return SEQ(3, tbs, alg_ed25519(), bits(raw(sig, sizeof sig)));
}

static der crl_entry(unsigned serial, der entry_exts) {
  der exts = entry_exts.len > 0 ? tlv(0x30, entry_exts) : none;
  return SEQ(3, small_int(serial), gtime("20291215000000Z"), exts);
}

// reasonCode keyCompromise, as `openssl ca -crl_reason` writes it.
static der reason_key_compromise(void) {
  return ext(OID(0x55, 0x1d, 0x15), 0, tlv(0x0a, raw("\x01", 1)));
}

#define NOW ((int64_t)1893456000) // 2030-01-01T00:00:00Z

// ---- helpers around the API ----

static mc_x509_certs *parse_ok(der d, const mc_x509_settings *s) {
  mc_x509_certs *c = NULL;
  mc_x509_diag diag;
  int r = mc_x509_certs_parse(&c, s, &diag, d.p, d.len);
  ck_assert_msg(r == 0, "%s: %s", mc_strerror(r), diag.message);
  return c;
}

static void parse_fails(der d, const mc_x509_settings *s, const char *want_message) {
  mc_x509_certs *c = NULL;
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_certs_parse(&c, s, &diag, d.p, d.len), MC_ERR_BAD_KEY);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_str_eq(diag.message, want_message);
}

static mc_x509_trust *trust_of(const mc_x509_settings *s, der anchors) {
  mc_x509_trust *t = NULL;
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_new(&t, s), 0);
  int r = mc_x509_trust_add_anchors(t, &diag, anchors.p, anchors.len);
  ck_assert_msg(r == 0, "%s: %s", mc_strerror(r), diag.message);
  return t;
}

static mc_x509_result verify_der(const mc_x509_trust *t, der leaf, der inter) {
  mc_x509_certs *l = parse_ok(leaf, NULL);
  mc_x509_certs *i = inter.len > 0 ? parse_ok(inter, NULL) : NULL;
  mc_x509_result r;
  ck_assert_int_eq(mc_x509_cert_verify(t, &r, mc_x509_certs_get(l, 0), i, NOW), 0);
  mc_x509_certs_free(l);
  mc_x509_certs_free(i);
  r.anchor = NULL;
  return r;
}

static size_t warnings_of(der cert, mc_pgp_warning *w, const char *addr) {
  mc_x509_certs *c = parse_ok(cert, NULL);
  size_t n = 0;
  const char *addrs[1] = {addr};
  ck_assert_int_eq(mc_x509_cert_warnings(mc_x509_certs_get(c, 0), w, MC_PGP_MAX_WARNINGS, &n, NULL,
                                         NULL, NOW, addrs, addr ? 1 : 0),
                   0);
  mc_x509_certs_free(c);
  return n;
}

static int has_warning(const mc_pgp_warning *w, size_t n, int code) {
  for (size_t i = 0; i < n; i++)
    if ((int)w[i].code == code)
      return 1;
  return 0;
}

// ---- trust store ----

START_TEST(trust_new_checks_settings_version) {
  mc_x509_settings s = MC_X509_SETTINGS_INIT;
  mc_x509_trust *t = (mc_x509_trust *)&s; // must be overwritten with NULL
  s.version = 2;
  ck_assert_int_eq(mc_x509_trust_new(&t, &s), MC_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(t);
  s.version = 0;
  ck_assert_int_eq(mc_x509_trust_new(&t, &s), MC_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(t);
  s.version = 1;
  ck_assert_int_eq(mc_x509_trust_new(&t, &s), 0);
  ck_assert_ptr_nonnull(t);
  mc_x509_trust_free(t);
}
END_TEST

START_TEST(anchors_beyond_max_certs_are_refused_whole) {
  ed_key a = ed_key_make(1), b = ed_key_make(2), c = ed_key_make(3);
  mc_x509_settings s = MC_X509_SETTINGS_INIT;
  s.max_certs = 2;
  mc_x509_trust *t = trust_of(&s, make_root("Root A", &a, 1));
  // Two more would make three: neither is added.
  der two = cat(2, make_root("Root B", &b, 2), make_root("Root C", &c, 3));
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_add_anchors(t, &diag, two.p, two.len), MC_ERR_BAD_KEY);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_str_eq(diag.message, "trust store would exceed max_certs");
  ck_assert_uint_eq(mc_x509_trust_num_anchors(t), 1);
  // One more fits; a copy of an anchor already held does not count.
  der one = cat(2, make_root("Root B", &b, 2), make_root("Root A", &a, 1));
  ck_assert_int_eq(mc_x509_trust_add_anchors(t, &diag, one.p, one.len), 0);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(t), 2);
  mc_x509_trust_free(t);
}
END_TEST

static char tmp_root[64];

static void write_file(const char *dir, const char *name, der d) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(d.p, 1, d.len, f), d.len);
  ck_assert_int_eq(fclose(f), 0);
}

// The directory tests work under tmp_root, which an unchecked fixture
// makes and removes in the runner's process, so that it goes away even
// when a test fails halfway. Each test uses its own subdirectory.
static void make_tmp_root(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/x509-paths-XXXXXX");
  if (mkdtemp(tmp_root) == NULL)
    tmp_root[0] = '\0'; // the tests then fail on their first mkdir
}

static void remove_tmp_root(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (tmp_root[0] != '\0' && system(cmd) != 0)
    fprintf(stderr, "cannot remove %s\n", tmp_root);
}

START_TEST(trust_dir_skips_directories_and_reports_bad_files) {
  ed_key a = ed_key_make(1), b = ed_key_make(2);
  char dir[128], sub[160];
  snprintf(dir, sizeof dir, "%s/skip", tmp_root);
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  write_file(dir, "a.pem", make_root("Root A", &a, 1));
  // A directory with a wanted name is not a file of anchors.
  snprintf(sub, sizeof sub, "%s/sub.pem", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  mc_x509_trust *t;
  mc_x509_diag diag;
  size_t added = 99;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, &diag, &added, dir), 0);
  ck_assert_uint_eq(added, 1);
  mc_x509_trust_free(t);
  // A file that holds no certificate: its error, with its name in front;
  // the files before it stay added.
  write_file(dir, "b.crt", make_root("Root B", &b, 2));
  write_file(dir, "c.pem", raw("\x30\x03\x02\x01\x01", 5));
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, &diag, &added, dir), MC_ERR_BAD_KEY);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_str_eq(diag.message, "c.pem: tbsCertificate is not a SEQUENCE");
  ck_assert_uint_eq(added, 2);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(t), 2);
  mc_x509_trust_free(t);
  // A link to nothing cannot be read: -ENOENT, nothing after it.
  char path[256];
  snprintf(path, sizeof path, "%s/c.pem", dir);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(path, sizeof path, "%s/0dangling.0", dir);
  ck_assert_int_eq(symlink("/nonexistent/root.pem", path), 0);
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  // Whatever the caller's diag held before, it now names the file and why.
  memset(&diag, 'x', sizeof diag);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, &diag, &added, dir), -ENOENT);
  ck_assert_uint_eq(added, 0);
  ck_assert_int_eq(diag.code, -ENOENT);
  ck_assert_str_eq(diag.message, "0dangling.0: No such file or directory");
  mc_x509_trust_free(t);
  ck_assert_int_eq(unlink(path), 0);
  // A file larger than max_input_len: named, and the files before it kept.
  mc_x509_settings small = MC_X509_SETTINGS_INIT;
  small.max_input_len = 64;
  ck_assert_int_eq(mc_x509_trust_new(&t, &small), 0);
  memset(&diag, 'x', sizeof diag);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, &diag, &added, dir), MC_ERR_BAD_KEY);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_str_eq(diag.message, "a.pem: larger than max_input_len");
  ck_assert_uint_eq(added, 0);
  mc_x509_trust_free(t);
  // Success leaves an empty diag, not the caller's bytes.
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  memset(&diag, 'x', sizeof diag);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, &diag, &added, dir), 0);
  ck_assert_uint_eq(added, 2);
  ck_assert_int_eq(diag.code, 0);
  ck_assert_str_eq(diag.message, "");
  mc_x509_trust_free(t);
}
END_TEST

typedef struct dir_outcome {
  int ret;
  size_t added, anchors;
} dir_outcome;

// drop_file_override makes this process subject to file modes: it drops
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, with which root reads any file.
// The user stays the same, so a coverage build can still write its counts.
static int drop_file_override(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct caps[2];
  if (syscall(SYS_capget, &head, caps) != 0)
    return 0;
  uint32_t mask = ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
  caps[0].effective &= mask;
  caps[0].permitted &= mask;
  caps[0].inheritable &= mask;
  return syscall(SYS_capset, &head, caps) == 0;
}

// add_dir_without_override runs mc_x509_trust_add_dir(dir) in a child
// process that file modes apply to.
static dir_outcome add_dir_without_override(const char *dir) {
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  fflush(NULL); // nothing buffered gets written twice
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dir_outcome o = {1, 0, 0};
    mc_x509_trust *t = NULL;
    if (drop_file_override() && mc_x509_trust_new(&t, NULL) == 0) {
      o.ret = mc_x509_trust_add_dir(t, NULL, &o.added, dir);
      o.anchors = mc_x509_trust_num_anchors(t);
    }
    mc_x509_trust_free(t);
    // exit, not _exit: a coverage build writes its counts at exit.
    exit(write(fds[1], &o, sizeof o) == (ssize_t)sizeof o ? 0 : 1);
  }
  close(fds[1]);
  dir_outcome o = {0, 0, 0};
  ck_assert_int_eq(read(fds[0], &o, sizeof o), (ssize_t)sizeof o);
  close(fds[0]);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return o;
}

START_TEST(trust_dir_unreadable_file) {
  ed_key a = ed_key_make(1), b = ed_key_make(2);
  char dir[128], path[160];
  snprintf(dir, sizeof dir, "%s/unreadable", tmp_root);
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  write_file(dir, "a.pem", make_root("Root A", &a, 1));
  write_file(dir, "b.pem", make_root("Root B", &b, 2));
  snprintf(path, sizeof path, "%s/b.pem", dir);
  dir_outcome o = add_dir_without_override(dir);
  ck_assert_int_eq(o.ret, 0);
  ck_assert_uint_eq(o.added, 2);
  // b.pem unreadable: -EACCES, and a.pem, read before it, stays added.
  ck_assert_int_eq(chmod(path, 0), 0);
  o = add_dir_without_override(dir);
  ck_assert_int_eq(o.ret, -EACCES);
  ck_assert_uint_eq(o.added, 1);
  ck_assert_uint_eq(o.anchors, 1);
}
END_TEST

START_TEST(trust_dir_path_too_long) {
  ed_key a = ed_key_make(1);
  // A directory about 4000 bytes deep, which opendir reaches; its path and
  // a long file name together exceed the 4096 bytes of a path.
  char dir[4096];
  size_t n = (size_t)snprintf(dir, sizeof dir, "%s/deep", tmp_root);
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  char component[200];
  memset(component, 'd', sizeof component - 1);
  component[sizeof component - 1] = '\0';
  while (n < 3900) {
    n += (size_t)snprintf(dir + n, sizeof dir - n, "/%s", component);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
  }
  char name[240];
  memset(name, 'f', sizeof name);
  memcpy(name + sizeof name - 5, ".pem", 5);
  // The same file with a short name is read.
  write_file(dir, "a.pem", make_root("Root A", &a, 1));
  mc_x509_trust *t;
  size_t added;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, NULL, &added, dir), 0);
  ck_assert_uint_eq(added, 1);
  mc_x509_trust_free(t);
  ck_assert_int_eq(chdir(dir), 0); // the full path is too long for open(2) too
  write_file(".", name, make_root("Root A", &a, 1));
  ck_assert_int_eq(chdir("/"), 0);
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, NULL, &added, dir), -ENAMETOOLONG);
  mc_x509_trust_free(t);
}
END_TEST

// ---- CRLs ----

static void crl_refused(der crl, const char *want_message) {
  mc_x509_trust *t;
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_crl(t, &diag, crl.p, crl.len), MC_ERR_BAD_KEY);
  ck_assert_int_eq(diag.code, MC_ERR_BAD_KEY);
  ck_assert_str_eq(diag.message, want_message);
  mc_x509_trust_free(t);
}

static void crl_accepted(der crl) {
  mc_x509_trust *t;
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  int r = mc_x509_trust_add_crl(t, &diag, crl.p, crl.len);
  ck_assert_msg(r == 0, "%s: %s", mc_strerror(r), diag.message);
  mc_x509_trust_free(t);
}

START_TEST(crl_entry_extensions_need_version_2) {
  ed_key root = ed_key_make(1);
  crl_spec s = {.v2 = 1,
                .issuer = cn_name("Root"),
                .revoked = cat(2, crl_entry(5, none), crl_entry(6, reason_key_compromise())),
                .signer = &root};
  crl_accepted(make_crl(&s));
  // RFC 5280 §5.1.2.6: entry extensions exist only in version 2 CRLs.
  s.v2 = 0;
  crl_refused(make_crl(&s), "malformed CRL entry extensions");
  // Without extensions a version 1 CRL is fine.
  s.revoked = cat(2, crl_entry(5, none), crl_entry(6, none));
  crl_accepted(make_crl(&s));
  // Something other than one Extensions SEQUENCE after the date.
  s.v2 = 1;
  s.revoked =
      SEQ(4, small_int(6), gtime("20291215000000Z"), SEQ(1, reason_key_compromise()), small_int(7));
  crl_refused(make_crl(&s), "malformed CRL entry extensions");
  s.revoked = SEQ(3, small_int(6), gtime("20291215000000Z"), small_int(7));
  crl_refused(make_crl(&s), "malformed CRL entry extensions");
}
END_TEST

// One CA (with or without cRLSign) under a root, its leaf (serial 9), and
// its CRL revoking serial 9, signed by `crl_signer`.
static mc_x509_result revocation_case(int ca_may_sign_crls, const ed_key *crl_signer) {
  ed_key root = ed_key_make(1), ca = ed_key_make(2);
  der ku = ca_may_sign_crls ? ext_ku(KU_CERT_AND_CRL_SIGN) : ext_ku(KU_CERT_SIGN);
  cert_spec cs = {.issuer = cn_name("Root"),
                  .subject = cn_name("CA"),
                  .spki = ed25519_spki(&ca),
                  .serial = 2,
                  .exts = cat(2, ext_ca(), ku),
                  .signer = &root};
  der ca_cert = make_cert(&cs);
  mc_x509_trust *t = trust_of(NULL, make_root("Root", &root, 1));
  crl_spec s = {.v2 = 1,
                .issuer = cn_name("CA"),
                .revoked = crl_entry(9, none),
                .signer = crl_signer ? crl_signer : &ca};
  der crl = make_crl(&s);
  mc_x509_diag diag;
  ck_assert_int_eq(mc_x509_trust_add_crl(t, &diag, crl.p, crl.len), 0);
  mc_x509_result r = verify_der(t, make_leaf("CA", &ca, 9, none), ca_cert);
  mc_x509_trust_free(t);
  return r;
}

START_TEST(crl_of_issuer_without_crl_sign_is_ignored) {
  mc_x509_result r = revocation_case(1, NULL);
  ck_assert_int_eq(r.verdict, MC_X509_REVOKED);
  ck_assert_uint_eq(r.problems, 1u << MC_X509_REVOKED);
  ck_assert_int_eq(r.crl_checked, 0); // the root's certificate of CA has no CRL
  r = revocation_case(0, NULL);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_uint_eq(r.problems, 0);
  ck_assert_uint_eq(r.chain_len, 3);
}
END_TEST

START_TEST(crl_with_bad_signature_is_ignored) {
  ed_key other = ed_key_make(7);
  mc_x509_result r = revocation_case(1, &other);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_uint_eq(r.problems, 0);
  ck_assert_uint_eq(r.chain_len, 3);
}
END_TEST

START_TEST(crl_covers_leaf_directly_under_anchor) {
  // The well-formed twin of the cases above, one level down: a CRL of the
  // anchor itself, correctly signed, covers and revokes its leaf.
  ed_key root = ed_key_make(1);
  mc_x509_trust *t = trust_of(NULL, make_root("Root", &root, 1));
  crl_spec s = {.v2 = 1, .issuer = cn_name("Root"), .revoked = crl_entry(8, none), .signer = &root};
  der crl = make_crl(&s);
  ck_assert_int_eq(mc_x509_trust_add_crl(t, NULL, crl.p, crl.len), 0);
  mc_x509_result r = verify_der(t, make_leaf("Root", &root, 9, none), none);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_int_eq(r.crl_checked, 1);
  r = verify_der(t, make_leaf("Root", &root, 8, none), none);
  ck_assert_int_eq(r.verdict, MC_X509_REVOKED);
  mc_x509_trust_free(t);
}
END_TEST

// ---- path search ----

START_TEST(best_path_is_the_one_with_fewest_problems) {
  ed_key root = ed_key_make(1), ca = ed_key_make(2);
  mc_x509_trust *t = trust_of(NULL, make_root("Root", &root, 1));
  der leaf = make_leaf("CA", &ca, 9, none);
  // Three certificates of the same CA key: not yet valid and with an unknown
  // critical extension (two problems), expired (one), fine (none).
  der unknown_critical = ext(OID(0x2a, 0x03, 0x04), 1, tlv(0x05, none));
  der two_problems = make_ca("CA", &ca, "Root", &root, 2, "20350101000000Z", unknown_critical);
  cert_spec es = {.issuer = cn_name("Root"),
                  .subject = cn_name("CA"),
                  .spki = ed25519_spki(&ca),
                  .serial = 3,
                  .not_after = "20250101000000Z",
                  .exts = cat(2, ext_ca(), ext_ku(KU_CERT_AND_CRL_SIGN)),
                  .signer = &root};
  der one_problem = make_cert(&es);
  der fine = make_ca("CA", &ca, "Root", &root, 4, NULL, none);
  mc_x509_result r = verify_der(t, leaf, cat(2, two_problems, one_problem));
  ck_assert_int_eq(r.verdict, MC_X509_EXPIRED);
  ck_assert_uint_eq(r.problems, 1u << MC_X509_EXPIRED);
  r = verify_der(t, leaf, cat(2, one_problem, two_problems));
  ck_assert_int_eq(r.verdict, MC_X509_EXPIRED);
  ck_assert_uint_eq(r.problems, 1u << MC_X509_EXPIRED);
  r = verify_der(t, leaf, two_problems);
  ck_assert_int_eq(r.verdict, MC_X509_CRITICAL_EXT);
  ck_assert_uint_eq(r.problems, (1u << MC_X509_CRITICAL_EXT) | (1u << MC_X509_NOT_YET_VALID));
  // A path without problems ends the search, wherever it is.
  r = verify_der(t, leaf, cat(3, two_problems, one_problem, fine));
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_uint_eq(r.chain_len, 3);
  mc_x509_trust_free(t);
}
END_TEST

START_TEST(max_chain_len_counts_anchor_and_intermediates) {
  ed_key root = ed_key_make(1), ca = ed_key_make(2);
  der root_cert = make_root("Root", &root, 1);
  der ca_cert = make_ca("CA", &ca, "Root", &root, 2, NULL, none);
  der direct = make_leaf("Root", &root, 8, none), below = make_leaf("CA", &ca, 9, none);
  static const struct {
    size_t max_chain_len;
    int via_ca;
    size_t chain_len; // 0: too long
  } cases[] = {
      {1, 0, 0}, {2, 0, 2}, {2, 1, 0}, {3, 1, 3}, {0, 1, 3}, // 0: the default (8)
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    mc_x509_settings s = MC_X509_SETTINGS_INIT;
    s.max_chain_len = cases[k].max_chain_len;
    mc_x509_trust *t = trust_of(&s, root_cert);
    mc_x509_result r =
        verify_der(t, cases[k].via_ca ? below : direct, cases[k].via_ca ? ca_cert : none);
    if (cases[k].chain_len == 0) {
      ck_assert_msg(r.verdict == MC_X509_UNTRUSTED, "case %zu: %s", k,
                    mc_x509_verdict_name(r.verdict));
      ck_assert_uint_eq(r.problems, (1u << MC_X509_UNTRUSTED) | (1u << MC_X509_PATH_TOO_LONG));
      ck_assert_uint_eq(r.chain_len, 0);
    } else {
      ck_assert_msg(r.verdict == MC_X509_OK, "case %zu: %s", k, mc_x509_verdict_name(r.verdict));
      ck_assert_uint_eq(r.chain_len, cases[k].chain_len);
    }
    mc_x509_trust_free(t);
  }
  // The length is judged before the signature: an intermediate too far
  // from any anchor costs no signature check, so its wrong key is no
  // bad signature.
  ed_key stranger = ed_key_make(5);
  der wrong_ca = make_ca("CA", &stranger, "Root", &root, 3, NULL, none);
  for (size_t max_chain_len = 2; max_chain_len <= 3; max_chain_len++) {
    mc_x509_settings s = MC_X509_SETTINGS_INIT;
    s.max_chain_len = max_chain_len;
    mc_x509_trust *t = trust_of(&s, root_cert);
    mc_x509_result r = verify_der(t, below, wrong_ca);
    unsigned why = max_chain_len == 2 ? MC_X509_PATH_TOO_LONG : MC_X509_BAD_SIGNATURE;
    ck_assert_uint_eq(r.problems, (1u << MC_X509_UNTRUSTED) | (1u << why));
    mc_x509_trust_free(t);
  }
}
END_TEST

START_TEST(anchor_with_the_right_name_and_wrong_key) {
  ed_key root = ed_key_make(1), impostor = ed_key_make(6);
  der leaf = make_leaf("Root", &root, 9, none);
  mc_x509_trust *t = trust_of(NULL, make_root("Root", &impostor, 1));
  mc_x509_result r = verify_der(t, leaf, none);
  ck_assert_int_eq(r.verdict, MC_X509_BAD_SIGNATURE);
  ck_assert_uint_eq(r.problems, (1u << MC_X509_BAD_SIGNATURE) | (1u << MC_X509_UNTRUSTED));
  ck_assert_ptr_null(r.anchor);
  // With the right anchor added after the wrong one, the leaf is valid.
  der right = make_root("Root", &root, 2);
  ck_assert_int_eq(mc_x509_trust_add_anchors(t, NULL, right.p, right.len), 0);
  r = verify_der(t, leaf, none);
  ck_assert_int_eq(r.verdict, MC_X509_OK);
  ck_assert_uint_eq(r.problems, 0);
  ck_assert_uint_eq(r.chain_len, 2);
  mc_x509_trust_free(t);
}
END_TEST

// ---- certificate fields ----

static der leaf_with_sigalg(der sigalg) {
  cert_spec s = {.issuer = cn_name("Some CA"),
                 .subject = cn_name("Leaf"),
                 .spki = p256_spki(),
                 .serial = 9,
                 .sigalg = sigalg};
  return make_cert(&s);
}

START_TEST(sha1_in_pss_and_ecdsa_is_weak) {
  static const char weak_text[] = "a signature on the certificate's path uses SHA-1";
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  // RSASSA-PSS with SHA-1 named explicitly, and ecdsa-with-SHA1.
  der weak[] = {alg_pss(OID(0x2b, 0x0e, 0x03, 0x02, 0x1a)),
                SEQ(1, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01))};
  for (size_t k = 0; k < 2; k++) {
    size_t n = warnings_of(leaf_with_sigalg(weak[k]), w, NULL);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(w[0].code, MC_PGP_WARN_WEAK_ALGORITHM);
    ck_assert_str_eq(w[0].text, weak_text);
  }
  // SHA-256 and SHA-512 in PSS, ecdsa-with-SHA256: no warning.
  der strong[] = {alg_pss(oid_sha(1)), alg_pss(oid_sha(3)),
                  SEQ(1, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02))};
  for (size_t k = 0; k < 3; k++)
    ck_assert_uint_eq(warnings_of(leaf_with_sigalg(strong[k]), w, NULL), 0);
  // SHA-224 is no PSS hash we accept; ECDSA parameters must be absent.
  parse_fails(leaf_with_sigalg(alg_pss(oid_sha(4))), NULL,
              "malformed signature algorithm parameters");
  parse_fails(
      leaf_with_sigalg(SEQ(2, OID(0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x01), tlv(0x05, none))),
      NULL, "malformed signature algorithm parameters");
}
END_TEST

START_TEST(any_extended_key_usage_allows_mail) {
  ed_key root = ed_key_make(1);
  mc_x509_trust *t = trust_of(NULL, make_root("Root", &root, 1));
  static const struct {
    uint8_t oid[8];
    size_t oid_len;
    unsigned eku;
    mc_x509_verdict verdict;
  } cases[] = {
      {{0x55, 0x1d, 0x25, 0x00}, 4, MC_X509_EKU_ANY, MC_X509_OK},
      {{0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x04},
       8,
       MC_X509_EKU_EMAIL_PROTECTION,
       MC_X509_OK},
      {{0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01},
       8,
       MC_X509_EKU_OTHER,
       MC_X509_WRONG_KEY_USAGE},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    der leaf = make_leaf("Root", &root, 9, ext_eku(tlv(0x06, raw(cases[k].oid, cases[k].oid_len))));
    mc_x509_certs *c = parse_ok(leaf, NULL);
    unsigned eku = 0;
    ck_assert_int_eq(mc_x509_cert_ext_key_usage(mc_x509_certs_get(c, 0), &eku), 1);
    ck_assert_uint_eq(eku, cases[k].eku);
    mc_x509_certs_free(c);
    mc_x509_result r = verify_der(t, leaf, none);
    ck_assert_msg(r.verdict == cases[k].verdict, "case %zu: %s", k,
                  mc_x509_verdict_name(r.verdict));
  }
  mc_x509_trust_free(t);
}
END_TEST

START_TEST(rsa_modulus_above_max_rsa_bits) {
  mc_x509_settings s = MC_X509_SETTINGS_INIT;
  s.max_rsa_bits = 2048;
  cert_spec cs = {.issuer = cn_name("Some CA"),
                  .subject = cn_name("Leaf"),
                  .spki = rsa_spki(2048),
                  .serial = 9};
  mc_x509_certs *c = parse_ok(make_cert(&cs), &s);
  unsigned got_bits = 0;
  ck_assert_str_eq(mc_x509_cert_key_name(mc_x509_certs_get(c, 0), &got_bits), "RSA-2048");
  ck_assert_uint_eq(got_bits, 2048);
  mc_x509_certs_free(c);
  cs.spki = rsa_spki(2056);
  parse_fails(make_cert(&cs), &s, "RSA modulus larger than max_rsa_bits");
  mc_x509_certs_free(parse_ok(make_cert(&cs), NULL)); // the default allows it
}
END_TEST

START_TEST(unique_identifiers_need_version_2) {
  cert_spec cs = {.version = 2,
                  .issuer = cn_name("Some CA"),
                  .subject = cn_name("Leaf"),
                  .spki = x25519_spki(1),
                  .serial = 9,
                  .after_spki = tlv(0x81, raw("\x00\x01\x02", 3))};
  mc_x509_certs_free(parse_ok(make_cert(&cs), NULL));
  cs.after_spki = tlv(0x82, raw("\x00\x01\x02", 3));
  mc_x509_certs_free(parse_ok(make_cert(&cs), NULL));
  cs.version = 1;
  parse_fails(make_cert(&cs), NULL, "bad unique identifier");
  cs.after_spki = tlv(0x81, raw("\x00\x01\x02", 3));
  parse_fails(make_cert(&cs), NULL, "bad unique identifier");
  cs.after_spki = none;
  mc_x509_certs_free(parse_ok(make_cert(&cs), NULL));
}
END_TEST

static int subject_text(der subject, char *out, size_t cap) {
  cert_spec cs = {
      .issuer = cn_name("Some CA"), .subject = subject, .spki = x25519_spki(1), .serial = 9};
  mc_x509_certs *c = parse_ok(make_cert(&cs), NULL);
  size_t n = 0;
  int r = mc_x509_cert_subject(mc_x509_certs_get(c, 0), out, cap, &n);
  if (r == 0)
    ck_assert_uint_eq(n, strlen(out));
  mc_x509_certs_free(c);
  return r;
}

START_TEST(names_in_bmp_and_universal_strings) {
  static char out[4096], want[4096];
  // 400 euro signs (3 UTF-8 bytes each) in a BMPString: more than the
  // converter's 1024-byte block.
  uint8_t bmp[800];
  for (size_t i = 0; i < 400; i++)
    bmp[2 * i] = 0x20, bmp[2 * i + 1] = 0xac;
  ck_assert_int_eq(
      subject_text(name_of(OID(0x55, 0x04, 0x03), 0x1e, raw(bmp, sizeof bmp)), out, sizeof out), 0);
  size_t n = (size_t)snprintf(want, sizeof want, "CN=");
  for (size_t i = 0; i < 400; i++)
    n += (size_t)snprintf(want + n, sizeof want - n, "\xe2\x82\xac");
  ck_assert_str_eq(out, want);
  // Short of the block: the same text.
  ck_assert_int_eq(
      subject_text(name_of(OID(0x55, 0x04, 0x03), 0x1e, raw(bmp, 200)), out, sizeof out), 0);
  ck_assert_uint_eq(strlen(out), 3 + 100 * 3);
  ck_assert_int_eq(memcmp(out, want, strlen(out)), 0);
  // A UniversalString outside the BMP (U+1F600) and inside it (U+00E9).
  static const uint8_t ucs4[] = {0, 1, 0xf6, 0x00, 0, 0, 0, 0xe9, 0, 0x10, 0xff, 0xfd};
  ck_assert_int_eq(
      subject_text(name_of(OID(0x55, 0x04, 0x03), 0x1c, raw(ucs4, sizeof ucs4)), out, sizeof out),
      0);
  ck_assert_str_eq(out, "CN=\xf0\x9f\x98\x80\xc3\xa9\xf4\x8f\xbf\xbd");
  // Past U+10FFFF: not text.
  static const uint8_t too_big[] = {0, 0x11, 0, 0};
  ck_assert_int_eq(
      subject_text(name_of(OID(0x55, 0x04, 0x03), 0x1c, raw(too_big, 4)), out, sizeof out),
      MC_ERR_BAD_KEY);
}
END_TEST

START_TEST(unknown_attribute_whose_oid_has_no_short_text) {
  char out[512];
  // 1.2.3 is written as OID=#hex of the whole value.
  ck_assert_int_eq(subject_text(name_of(OID(0x2a, 0x03), 0x0c, raw("x", 1)), out, sizeof out), 0);
  ck_assert_str_eq(out, "1.2.3=#0C0178");
  // 60 arcs of 127: about 240 characters of dotted text, beyond the
  // 128 bytes the writer allows for one OID.
  uint8_t arcs[61];
  arcs[0] = 0x2a;
  memset(arcs + 1, 0x7f, 60);
  ck_assert_int_eq(
      subject_text(name_of(tlv(0x06, raw(arcs, sizeof arcs)), 0x0c, raw("x", 1)), out, sizeof out),
      MC_ERR_BAD_KEY);
  // 20 arcs (about 80 characters) fit.
  ck_assert_int_eq(
      subject_text(name_of(tlv(0x06, raw(arcs, 21)), 0x0c, raw("x", 1)), out, sizeof out), 0);
  ck_assert_str_eq(out + strlen(out) - 8, "=#0C0178");
  ck_assert_int_eq(strncmp(out, "1.2.127.127.", 12), 0);
}
END_TEST

START_TEST(key_names_of_ed448_and_mldsa) {
  static const struct {
    uint8_t last;
    size_t key_len;
    const char *name, *desc;
    unsigned bits;
  } mldsa[] = {
      {0x11, MC_MLDSA44_PUBLIC_KEY_LEN, "ML-DSA-44", "S/MIME: ML-DSA-44", 44},
      {0x12, MC_MLDSA65_PUBLIC_KEY_LEN, "ML-DSA-65", "S/MIME: ML-DSA-65", 65},
      {0x13, MC_MLDSA87_PUBLIC_KEY_LEN, "ML-DSA-87", "S/MIME: ML-DSA-87", 87},
  };
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  for (size_t k = 0; k < 4; k++) {
    der spki;
    const char *name, *desc;
    unsigned want_bits;
    if (k < 3) {
      spki = raw_key_spki(OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, mldsa[k].last),
                          mldsa[k].key_len);
      name = mldsa[k].name, desc = mldsa[k].desc, want_bits = mldsa[k].bits;
    } else {
      spki = raw_key_spki(OID(0x2b, 0x65, 0x71), MC_ED448_PUBLIC_KEY_LEN);
      name = "Ed448", desc = "S/MIME: Ed448", want_bits = 448;
    }
    cert_spec cs = {
        .issuer = cn_name("Some CA"), .subject = cn_name("Leaf"), .spki = spki, .serial = 9};
    der cert = make_cert(&cs);
    mc_x509_certs *c = parse_ok(cert, NULL);
    unsigned bits_out = 0;
    char line[64];
    ck_assert_str_eq(mc_x509_cert_key_name(mc_x509_certs_get(c, 0), &bits_out), name);
    ck_assert_uint_eq(bits_out, want_bits);
    ck_assert_int_eq(mc_x509_cert_describe(mc_x509_certs_get(c, 0), line, sizeof line, NULL), 0);
    ck_assert_str_eq(line, desc);
    ck_assert_int_eq(mc_x509_cert_can_encrypt(mc_x509_certs_get(c, 0)), 0);
    mc_x509_certs_free(c);
    // A signature key: the warning names it.
    size_t n = warnings_of(cert, w, NULL);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(w[0].code, MC_PGP_WARN_NO_ENCRYPTION);
    char text[128];
    snprintf(text, sizeof text, "a %s key cannot receive encrypted mail", name);
    ck_assert_str_eq(w[0].text, text);
    // One byte short: not that key.
    cs.spki = k < 3
                  ? raw_key_spki(OID(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, mldsa[k].last),
                                 mldsa[k].key_len - 1)
                  : raw_key_spki(OID(0x2b, 0x65, 0x71), MC_ED448_PUBLIC_KEY_LEN - 1);
    parse_fails(make_cert(&cs), NULL, "bad subjectPublicKeyInfo for its algorithm");
  }
}
END_TEST

START_TEST(address_match_ignores_case_on_both_sides) {
  cert_spec cs = {.issuer = cn_name("Some CA"),
                  .subject = cn_name("Leaf"),
                  .spki = x25519_spki(1),
                  .serial = 9,
                  .exts = ext_san("Carol.Q@Example.ORG")};
  der cert = make_cert(&cs);
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  static const char *const same[] = {"carol.q@example.org", "CAROL.Q@EXAMPLE.ORG",
                                     "Carol.Q@Example.ORG"};
  for (size_t k = 0; k < 3; k++) {
    size_t n = warnings_of(cert, w, same[k]);
    ck_assert_msg(!has_warning(w, n, MC_PGP_WARN_NO_ADDRESS), "%s", same[k]);
    ck_assert(has_warning(w, n, MC_PGP_WARN_LIMITED_SUPPORT)); // X25519
  }
  static const char *const other[] = {"carol.r@example.org", "carol.q@example.or",
                                      "carol.q@example.org.", "carol{q@example.org"};
  for (size_t k = 0; k < 4; k++) {
    size_t n = warnings_of(cert, w, other[k]);
    ck_assert_msg(has_warning(w, n, MC_PGP_WARN_NO_ADDRESS), "%s", other[k]);
  }
}
END_TEST

static Suite *x509_paths_suite(void) {
  Suite *s = suite_create("x509_paths");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 20);
  tcase_add_checked_fixture(tc, NULL, arena_free_all);
  tcase_add_unchecked_fixture(tc, make_tmp_root, remove_tmp_root);
  tcase_add_test(tc, trust_new_checks_settings_version);
  tcase_add_test(tc, anchors_beyond_max_certs_are_refused_whole);
  tcase_add_test(tc, trust_dir_skips_directories_and_reports_bad_files);
  tcase_add_test(tc, trust_dir_unreadable_file);
  tcase_add_test(tc, trust_dir_path_too_long);
  tcase_add_test(tc, crl_entry_extensions_need_version_2);
  tcase_add_test(tc, crl_of_issuer_without_crl_sign_is_ignored);
  tcase_add_test(tc, crl_with_bad_signature_is_ignored);
  tcase_add_test(tc, crl_covers_leaf_directly_under_anchor);
  tcase_add_test(tc, best_path_is_the_one_with_fewest_problems);
  tcase_add_test(tc, max_chain_len_counts_anchor_and_intermediates);
  tcase_add_test(tc, anchor_with_the_right_name_and_wrong_key);
  tcase_add_test(tc, sha1_in_pss_and_ecdsa_is_weak);
  tcase_add_test(tc, any_extended_key_usage_allows_mail);
  tcase_add_test(tc, rsa_modulus_above_max_rsa_bits);
  tcase_add_test(tc, unique_identifiers_need_version_2);
  tcase_add_test(tc, names_in_bmp_and_universal_strings);
  tcase_add_test(tc, unknown_attribute_whose_oid_has_no_short_text);
  tcase_add_test(tc, key_names_of_ed448_and_mldsa);
  tcase_add_test(tc, address_match_ignores_case_on_both_sides);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(x509_paths_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
