// x509_verify.c: decides whether an S/MIME certificate can be trusted: it
// verifies certificate and CRL signatures through BoringSSL (RSA PKCS#1
// v1.5 and PSS, ECDSA, Ed25519; Ed448 with our own code), keeps the trust
// store (anchors and CRLs) and searches for a certification path as RFC
// 5280 §6 describes, then judges that path: signatures, validity at the
// caller's time, CA constraints, path length, critical extensions,
// revocation and the leaf's permission to encrypt mail.
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/bn.h>
#include <openssl/curve25519.h>
#include <openssl/digest.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/nid.h>
#include <openssl/rsa.h>

#include "aead_internal.h"
#include "x509_internal.h"

static int nid_of(mc_hash_alg h) {
  switch (h) {
  case MC_HASH_SHA1:
    return NID_sha1;
  case MC_HASH_SHA256:
    return NID_sha256;
  case MC_HASH_SHA384:
    return NID_sha384;
  case MC_HASH_SHA512:
    return NID_sha512;
  }
  return 0;
}

static int verify_rsa(const x509_key *key, const x509_sigalg *alg, const uint8_t *digest,
                      size_t digest_len, const uint8_t *sig, size_t sig_len, size_t max_bits) {
  if ((key->alg != X509_KEY_RSA && key->alg != X509_KEY_RSA_PSS) ||
      (alg->kind == X509_SIG_RSA_PKCS1 && key->alg != X509_KEY_RSA))
    return MC_ERR_BAD_SIGNATURE;
  // Below 1024 bits a signature proves nothing; above the limit it costs
  // too much to check for an attacker's input.
  if (key->bits < 1024 || key->bits > max_bits || sig_len != key->rsa_n.len)
    return MC_ERR_BAD_SIGNATURE;
  int ret = -ENOMEM;
  RSA *rsa = RSA_new();
  BIGNUM *n = BN_bin2bn(key->rsa_n.p, key->rsa_n.len, NULL);
  BIGNUM *e = BN_bin2bn(key->rsa_e.p, key->rsa_e.len, NULL);
  if (rsa != NULL && n != NULL && e != NULL && RSA_set0_key(rsa, n, e, NULL)) {
    n = e = NULL;
    int ok;
    if (alg->kind == X509_SIG_RSA_PKCS1)
      ok = RSA_verify(nid_of(alg->hash), digest, digest_len, sig, sig_len, rsa);
    else
      ok = RSA_verify_pss_mgf1(rsa, digest, digest_len, mc_hash_evp_md(alg->hash),
                               mc_hash_evp_md(alg->mgf1_hash), (int)alg->salt_len, sig, sig_len);
    ret = ok == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  }
  BN_free(n);
  BN_free(e);
  RSA_free(rsa);
  ERR_clear_error();
  return ret;
}

static int verify_ecdsa(const x509_key *key, const uint8_t *digest, size_t digest_len,
                        const uint8_t *sig, size_t sig_len) {
  if (key->alg != X509_KEY_EC)
    return MC_ERR_BAD_SIGNATURE;
  int nid = key->bits == 256   ? NID_X9_62_prime256v1
            : key->bits == 384 ? NID_secp384r1
                               : NID_secp521r1;
  int ret = -ENOMEM;
  EC_KEY *k = EC_KEY_new_by_curve_name(nid);
  EC_POINT *pt = k != NULL ? EC_POINT_new(EC_KEY_get0_group(k)) : NULL;
  if (pt != NULL) {
    if (!EC_POINT_oct2point(EC_KEY_get0_group(k), pt, key->pub.p, key->pub.len, NULL) ||
        !EC_KEY_set_public_key(k, pt))
      ret = MC_ERR_BAD_SIGNATURE;
    else
      // ECDSA_verify parses the DER Ecdsa-Sig-Value strictly itself.
      ret = ECDSA_verify(0, digest, digest_len, sig, sig_len, k) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  }
  EC_POINT_free(pt);
  EC_KEY_free(k);
  ERR_clear_error();
  return ret;
}

int x509_sig_verify(const x509_key *key, const x509_sigalg *alg, const uint8_t *msg, size_t msg_len,
                    const uint8_t *sig, size_t sig_len, size_t max_rsa_bits) {
  uint8_t digest[MC_HASH_MAX_DIGEST_LEN];
  size_t digest_len = 0;
  switch (alg->kind) {
  case X509_SIG_ED25519:
    if (key->alg != X509_KEY_ED25519 || sig_len != 64)
      return MC_ERR_BAD_SIGNATURE;
    return ED25519_verify(msg, msg_len, sig, key->pub.p) == 1 ? 0 : MC_ERR_BAD_SIGNATURE;
  case X509_SIG_ED448:
    if (key->alg != X509_KEY_ED448)
      return MC_ERR_BAD_SIGNATURE;
    return mc_ed448_verify(key->pub.p, sig, sig_len, msg, msg_len, NULL, 0) == 0
               ? 0
               : MC_ERR_BAD_SIGNATURE;
  case X509_SIG_RSA_PKCS1:
  case X509_SIG_RSA_PSS:
  case X509_SIG_ECDSA: {
    int r = mc_digest(alg->hash, digest, sizeof digest, &digest_len, msg, msg_len);
    if (r != 0)
      return r;
    if (alg->kind == X509_SIG_ECDSA)
      return verify_ecdsa(key, digest, digest_len, sig, sig_len);
    return verify_rsa(key, alg, digest, digest_len, sig, sig_len, max_rsa_bits);
  }
  case X509_SIG_UNKNOWN:
    break;
  }
  return MC_ERR_UNSUPPORTED;
}

// ---- trust store ----

int mc_x509_trust_new(mc_x509_trust **out, const mc_x509_settings *settings) {
  if (out == NULL)
    return MC_ERR_INVALID_ARGUMENT;
  *out = NULL;
  mc_x509_trust *t = calloc(1, sizeof *t);
  if (t == NULL)
    return -ENOMEM;
  if (x509_limits_resolve(&t->lim, settings) != 0) {
    free(t);
    return MC_ERR_INVALID_ARGUMENT;
  }
  *out = t;
  return 0;
}

void mc_x509_trust_free(mc_x509_trust *trust) {
  if (trust == NULL)
    return;
  for (size_t i = 0; i < trust->num_sets; i++)
    mc_x509_certs_free(trust->sets[i]);
  for (size_t i = 0; i < trust->num_crls; i++)
    free(trust->crls[i].buf);
  free(trust->sets);
  free(trust->crls);
  free(trust);
}

size_t mc_x509_trust_num_anchors(const mc_x509_trust *trust) {
  return trust ? trust->num_anchors : 0;
}

static int trust_has(const mc_x509_trust *t, const uint8_t fpr[32]) {
  for (size_t s = 0; s < t->num_sets; s++)
    for (size_t i = 0; i < t->sets[s]->count; i++)
      if (memcmp(t->sets[s]->certs[i].fpr256, fpr, 32) == 0)
        return 1;
  return 0;
}

int mc_x509_trust_add_anchors(mc_x509_trust *trust, mc_x509_diag *diag, const uint8_t *in,
                              size_t in_len) {
  if (trust == NULL || in == NULL)
    return MC_ERR_INVALID_ARGUMENT;
  mc_x509_settings s = MC_X509_SETTINGS_INIT;
  s.max_input_len = trust->lim.max_input_len;
  s.max_certs = trust->lim.max_certs;
  s.max_der_depth = trust->lim.max_der_depth;
  s.max_extensions = trust->lim.max_extensions;
  s.max_addresses = trust->lim.max_addresses;
  s.max_rsa_bits = trust->lim.max_rsa_bits;
  mc_x509_certs *set;
  int r = mc_x509_certs_parse(&set, &s, diag, in, in_len);
  if (r != 0)
    return r;
  // The same root often arrives twice (a file and its hash link): keep one.
  size_t kept = 0;
  for (size_t i = 0; i < set->count; i++) {
    int dup = trust_has(trust, set->certs[i].fpr256);
    for (size_t j = 0; j < kept && !dup; j++)
      dup = memcmp(set->certs[j].fpr256, set->certs[i].fpr256, 32) == 0;
    if (dup) {
      free(set->certs[i].addresses);
      continue;
    }
    set->certs[kept++] = set->certs[i];
  }
  set->count = kept;
  if (kept == 0) {
    mc_x509_certs_free(set);
    return 0;
  }
  if (trust->num_anchors + kept > trust->lim.max_certs) {
    mc_x509_certs_free(set);
    if (diag != NULL) {
      diag->code = MC_ERR_BAD_KEY;
      snprintf(diag->message, sizeof diag->message, "trust store would exceed max_certs");
    }
    return MC_ERR_BAD_KEY;
  }
  mc_x509_certs **n = realloc(trust->sets, (trust->num_sets + 1) * sizeof *n);
  if (n == NULL) {
    mc_x509_certs_free(set);
    return -ENOMEM;
  }
  trust->sets = n;
  trust->sets[trust->num_sets++] = set;
  trust->num_anchors += kept;
  return 0;
}

static int wanted_name(const char *name) {
  size_t n = strlen(name);
  if (n > 4 && (strcmp(name + n - 4, ".pem") == 0 || strcmp(name + n - 4, ".crt") == 0))
    return 1;
  return n > 2 && name[n - 2] == '.' && name[n - 1] >= '0' && name[n - 1] <= '9';
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// dir_failed describes in `diag` (if any) why file `name` of a trust
// directory stopped mc_x509_trust_add_dir: `why`, or for an anchor the
// parser refused its own message, after the file name.
static void dir_failed(mc_x509_diag *diag, int ret, const char *name, const char *why) {
  if (diag == NULL)
    return;
  char msg[sizeof diag->message];
  snprintf(msg, sizeof msg, "%s", why != NULL ? why : diag->message);
  diag->code = ret;
  if (why != NULL)
    diag->offset = 0;
  snprintf(diag->message, sizeof diag->message, "%.60s: %.95s", name, msg);
}

int mc_x509_trust_add_dir(mc_x509_trust *trust, mc_x509_diag *diag, size_t *out_added,
                          const char *path) {
  if (out_added != NULL)
    *out_added = 0;
  if (diag != NULL)
    memset(diag, 0, sizeof *diag); // no message of an earlier call survives
  if (trust == NULL || path == NULL)
    return MC_ERR_INVALID_ARGUMENT;
  DIR *d = opendir(path);
  if (d == NULL)
    return -errno;
  // Sorted, so that which copy of a duplicate is kept does not depend on
  // the file system's order.
  char **names = NULL;
  size_t num = 0, cap = 0;
  int ret = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!wanted_name(e->d_name))
      continue;
    if (num == cap) {
      size_t ncap = cap ? cap * 2 : 64;
      char **nn = realloc(names, ncap * sizeof *nn);
      if (nn == NULL) {
        ret = -ENOMEM;
        break;
      }
      names = nn;
      cap = ncap;
    }
    if ((names[num] = strdup(e->d_name)) == NULL) {
      ret = -ENOMEM;
      break;
    }
    num++;
  }
  closedir(d);
  if (num > 0)
    qsort(names, num, sizeof *names, cmp_names);
  size_t before = trust->num_anchors;
  for (size_t i = 0; i < num && ret == 0; i++) {
    char full[4096];
    int n = snprintf(full, sizeof full, "%s/%s", path, names[i]);
    if (n < 0 || (size_t)n >= sizeof full) {
      ret = -ENAMETOOLONG;
      dir_failed(diag, ret, names[i], strerror(ENAMETOOLONG));
      break;
    }
    struct stat st;
    if (stat(full, &st) != 0) {
      ret = -errno;
      dir_failed(diag, ret, names[i], strerror(-ret));
      break;
    }
    if (!S_ISREG(st.st_mode))
      continue;
    if ((size_t)st.st_size > trust->lim.max_input_len) {
      ret = MC_ERR_BAD_KEY;
      dir_failed(diag, ret, names[i], "larger than max_input_len");
      break;
    }
    FILE *f = fopen(full, "rb");
    if (f == NULL) {
      ret = -errno;
      dir_failed(diag, ret, names[i], strerror(-ret));
      break;
    }
    size_t sz = (size_t)st.st_size;
    uint8_t *buf = malloc(sz ? sz : 1);
    size_t got = buf ? fread(buf, 1, sz, f) : 0;
    fclose(f);
    if (buf == NULL) {
      ret = -ENOMEM;
      break;
    }
    if (got != sz) {
      ret = -EIO;
      dir_failed(diag, ret, names[i], "shorter than its size (changed while read?)");
    } else if ((ret = mc_x509_trust_add_anchors(trust, diag, buf, sz)) != 0) {
      dir_failed(diag, ret, names[i], NULL);
    }
    free(buf);
  }
  if (out_added != NULL)
    *out_added = trust->num_anchors - before;
  for (size_t i = 0; i < num; i++)
    free(names[i]);
  free(names);
  return ret;
}

// ---- CRLs (RFC 5280 §5) ----

int x509_crl_parse(x509_crl *crl, mc_x509_diag *diag, const uint8_t *der, size_t der_len,
                   const x509_limits *lim) {
  der_cur all = der_cur_make(der, der_len), seq, tbs, alg, alg2, name, f;
  unsigned unused, tag;
  int present;
  memset(crl, 0, sizeof *crl);
#define BAD(msg)                                                                                   \
  do {                                                                                             \
    if (diag != NULL) {                                                                            \
      diag->code = MC_ERR_BAD_KEY;                                                                 \
      snprintf(diag->message, sizeof diag->message, "%s", msg);                                    \
    }                                                                                              \
    return MC_ERR_BAD_KEY;                                                                         \
  } while (0)
  if (!der_check_depth(der, der_len, (unsigned)lim->max_der_depth))
    BAD("CRL is not DER or nests too deeply");
  if (!der_get(&all, DER_SEQUENCE, &seq) || all.len != 0 ||
      !der_get_any(&seq, &tag, &tbs, &crl->tbs) || tag != DER_SEQUENCE ||
      !der_get(&seq, DER_SEQUENCE, &alg) || !der_get_bit_string(&seq, &crl->sig, &unused) ||
      unused != 0 || seq.len != 0)
    BAD("malformed CertificateList");
  if (!x509_sigalg_parse(&crl->sigalg, alg))
    BAD("malformed CRL signature algorithm");
  unsigned t;
  int v2 = 0;
  if (der_peek_tag(&tbs, &t) && t == DER_INTEGER) {
    uint32_t v;
    if (!der_get_small_uint(&tbs, &v) || v != 1)
      BAD("unsupported CRL version");
    v2 = 1;
  }
  if (!der_get(&tbs, DER_SEQUENCE, &alg2) || alg2.len != alg.len ||
      memcmp(alg2.p, alg.p, alg.len) != 0)
    BAD("CRL signature algorithms differ");
  if (!der_get_any(&tbs, &tag, &name, &crl->issuer) || tag != DER_SEQUENCE ||
      !der_get_time(&tbs, &crl->this_update))
    BAD("malformed CRL issuer or thisUpdate");
  if (der_peek_tag(&tbs, &t) && (t == DER_UTC_TIME || t == DER_GENERALIZED_TIME) &&
      !der_get_time(&tbs, &crl->next_update))
    BAD("malformed nextUpdate");
  if (!der_get_optional(&tbs, DER_SEQUENCE, &crl->revoked, &present))
    BAD("malformed revokedCertificates");
  der_cur list = crl->revoked;
  while (list.len > 0) {
    der_cur entry, serial, exts;
    int64_t when;
    if (!der_get(&list, DER_SEQUENCE, &entry) || !der_get_integer(&entry, &serial) ||
        !der_get_time(&entry, &when))
      BAD("malformed revoked certificate entry");
    if (entry.len > 0) {
      if (!v2 || !der_get(&entry, DER_SEQUENCE, &exts) || entry.len != 0)
        BAD("malformed CRL entry extensions");
      while (exts.len > 0) {
        der_cur ext, oid, val;
        int critical = 0;
        if (!der_get(&exts, DER_SEQUENCE, &ext) || !der_get_oid(&ext, &oid) ||
            !der_get_optional(&ext, DER_BOOLEAN, &val, &present))
          BAD("malformed CRL entry extension");
        if (present)
          critical = val.len == 1 && val.p[0] != 0;
        // certificateIssuer (indirect CRLs) changes whose serials follow;
        // we do not support it, so a critical one refuses the CRL.
        if (critical)
          BAD("unsupported critical CRL entry extension");
      }
    }
  }
  if (!der_get_optional(&tbs, 0xa0, &f, &present))
    BAD("malformed crlExtensions");
  if (present) {
    der_cur exts;
    if (!v2 || !der_get(&f, DER_SEQUENCE, &exts) || f.len != 0)
      BAD("malformed crlExtensions");
    while (exts.len > 0) {
      der_cur ext, oid, val, b;
      int critical = 0;
      if (!der_get(&exts, DER_SEQUENCE, &ext) || !der_get_oid(&ext, &oid) ||
          !der_get_optional(&ext, DER_BOOLEAN, &b, &present))
        BAD("malformed CRL extension");
      if (present)
        critical = b.len == 1 && b.p[0] != 0;
      if (!der_get(&ext, DER_OCTET_STRING, &val) || ext.len != 0)
        BAD("malformed CRL extension");
      int known = oid.len == 3 && oid.p[0] == 0x55 && oid.p[1] == 0x1d &&
                  (oid.p[2] == 20 || oid.p[2] == 35 || oid.p[2] == 28 || oid.p[2] == 46);
      if (known && oid.p[2] == 28) {
        // issuingDistributionPoint: onlySomeReasons [3] and indirectCRL [4]
        // change the CRL's scope in ways we do not model.
        der_cur idp;
        if (!der_get(&val, DER_SEQUENCE, &idp))
          BAD("malformed issuingDistributionPoint");
        while (idp.len > 0) {
          unsigned it;
          if (!der_get_any(&idp, &it, NULL, NULL))
            BAD("malformed issuingDistributionPoint");
          if (it == 0x83 || it == 0x84)
            BAD("indirect or partial-reason CRLs are not supported");
        }
      }
      if (critical && !known)
        BAD("unsupported critical CRL extension (delta CRL?)");
    }
  }
  if (tbs.len != 0)
    BAD("trailing data in tbsCertList");
#undef BAD
  return 0;
}

int mc_x509_trust_add_crl(mc_x509_trust *trust, mc_x509_diag *diag, const uint8_t *in,
                          size_t in_len) {
  static const char *const labels[] = {"X509 CRL", NULL};
  if (diag != NULL)
    memset(diag, 0, sizeof *diag);
  if (trust == NULL || in == NULL)
    return MC_ERR_INVALID_ARGUMENT;
  if (in_len > trust->lim.max_input_len)
    return MC_ERR_BAD_KEY;
  uint8_t *der;
  size_t der_len;
  int r = x509_pem_or_der(&der, &der_len, in, in_len, labels);
  if (r != 0)
    return r;
  x509_crl crl;
  r = x509_crl_parse(&crl, diag, der, der_len, &trust->lim);
  if (r != 0) {
    free(der);
    return r;
  }
  x509_crl *n = realloc(trust->crls, (trust->num_crls + 1) * sizeof *n);
  if (n == NULL) {
    free(der);
    return -ENOMEM;
  }
  crl.buf = der;
  trust->crls = n;
  trust->crls[trust->num_crls++] = crl;
  return 0;
}

// ---- path validation ----

#define MAX_PATH 32

typedef struct vctx {
  const mc_x509_trust *trust;
  const mc_x509_certs *inter;
  int64_t now;
  size_t checks, max_checks, max_chain;
  size_t max_rsa_bits;
  const mc_x509_cert *path[MAX_PATH];
  size_t len;
  unsigned extra; // problems met during the search (bad signature, too long)
  int have_best;
  mc_x509_result best;
} vctx;

static int popcount(unsigned x) {
  int n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}

static const mc_x509_verdict severity[] = {
    MC_X509_REVOKED,       MC_X509_BAD_SIGNATURE,   MC_X509_SELF_SIGNED,     MC_X509_UNTRUSTED,
    MC_X509_BAD_CA,        MC_X509_PATH_TOO_LONG,   MC_X509_CRITICAL_EXT,    MC_X509_EXPIRED,
    MC_X509_NOT_YET_VALID, MC_X509_WRONG_KEY_USAGE, MC_X509_UNSUPPORTED_KEY,
};

mc_x509_verdict x509_verdict_of(unsigned problems) {
  for (size_t i = 0; i < sizeof severity / sizeof severity[0]; i++)
    if (problems & (1u << severity[i]))
      return severity[i];
  return MC_X509_OK;
}

static int sig_ok(vctx *v, const mc_x509_cert *child, const x509_key *issuer_key) {
  if (v->checks >= v->max_checks)
    return 0;
  v->checks++;
  return x509_sig_verify(issuer_key, &child->sigalg, child->tbs.p, child->tbs.len, child->sig.p,
                         child->sig.len, v->max_rsa_bits) == 0;
}

// Problems of one certificate on its own: dates and critical extensions.
static unsigned own_problems(const mc_x509_cert *c, int64_t now) {
  unsigned p = 0;
  if (now > c->not_after)
    p |= 1u << MC_X509_EXPIRED;
  if (now < c->not_before)
    p |= 1u << MC_X509_NOT_YET_VALID;
  if (c->unknown_critical)
    p |= 1u << MC_X509_CRITICAL_EXT;
  return p;
}

static unsigned leaf_problems(const mc_x509_cert *c) {
  unsigned p = 0;
  cms_recipient r;
  if (x509_cert_recipient(&r, c) != 0)
    return 1u << MC_X509_UNSUPPORTED_KEY;
  if (c->has_ku) {
    unsigned need = (c->key.alg == X509_KEY_RSA || c->key.alg >= X509_KEY_MLKEM512)
                        ? MC_X509_KU_KEY_ENCIPHERMENT
                        : MC_X509_KU_KEY_AGREEMENT;
    if (!(c->ku & need))
      p |= 1u << MC_X509_WRONG_KEY_USAGE;
  }
  if (c->has_eku && !(c->eku & (MC_X509_EKU_EMAIL_PROTECTION | MC_X509_EKU_ANY)))
    p |= 1u << MC_X509_WRONG_KEY_USAGE;
  return p;
}

static int crl_covers(vctx *v, const mc_x509_cert *c, const mc_x509_cert *issuer, int *revoked) {
  int covered = 0;
  for (size_t i = 0; i < v->trust->num_crls; i++) {
    const x509_crl *crl = &v->trust->crls[i];
    if (!x509_name_eq(crl->issuer, c->issuer))
      continue;
    if (issuer->has_ku && !(issuer->ku & MC_X509_KU_CRL_SIGN))
      continue;
    if (x509_sig_verify(&issuer->key, &crl->sigalg, crl->tbs.p, crl->tbs.len, crl->sig.p,
                        crl->sig.len, v->max_rsa_bits) != 0)
      continue;
    // A CRL past its nextUpdate still revokes, but no longer vouches for
    // the certificates it does not list.
    if (crl->next_update == 0 || v->now <= crl->next_update)
      covered = 1;
    der_cur list = crl->revoked;
    while (list.len > 0) {
      der_cur entry, serial;
      int64_t when;
      // Checked when the CRL was added.
      if (!der_get(&list, DER_SEQUENCE, &entry) || !der_get_integer(&entry, &serial) ||
          !der_get_time(&entry, &when))
        break;
      if (serial.len == c->serial.len && memcmp(serial.p, c->serial.p, serial.len) == 0 &&
          when <= v->now)
        *revoked = 1;
    }
  }
  return covered;
}

// Judges path[0..len-1] ending at `anchor` (which may be path[len-1]
// itself when the leaf is an anchor).
static void judge(vctx *v, const mc_x509_cert *anchor) {
  mc_x509_result r;
  memset(&r, 0, sizeof r);
  unsigned p = leaf_problems(v->path[0]) | v->extra;
  p &= ~((1u << MC_X509_BAD_SIGNATURE) | (1u << MC_X509_PATH_TOO_LONG));
  size_t n = v->len;
  int anchor_in_path = n > 0 && v->path[n - 1] == anchor;
  size_t non_anchor = anchor_in_path ? n - 1 : n;
  int all_covered = non_anchor > 0;
  for (size_t i = 0; i < non_anchor; i++) {
    const mc_x509_cert *c = v->path[i];
    const mc_x509_cert *issuer = i + 1 < n ? v->path[i + 1] : anchor;
    p |= own_problems(c, v->now);
    if (c->sigalg.hash == MC_HASH_SHA1 &&
        (c->sigalg.kind == X509_SIG_RSA_PKCS1 || c->sigalg.kind == X509_SIG_ECDSA ||
         c->sigalg.kind == X509_SIG_RSA_PSS))
      r.weak_signature = 1;
    // The issuer must be allowed to issue certificates (RFC 5280 §6.1.4):
    // anchors of version 1 and 2 carry no extensions and are let through.
    if (issuer->version == 3 || issuer != anchor) {
      if (!issuer->is_ca || (issuer->has_ku && !(issuer->ku & MC_X509_KU_KEY_CERT_SIGN)))
        p |= 1u << MC_X509_BAD_CA;
    }
    // pathLenConstraint counts the non-self-issued intermediates below.
    if (issuer->has_path_len) {
      size_t below = 0;
      for (size_t j = 1; j <= i; j++)
        if (!x509_name_eq(v->path[j]->subject, v->path[j]->issuer))
          below++;
      if (below > issuer->path_len)
        p |= 1u << MC_X509_PATH_TOO_LONG;
    }
    int revoked = 0;
    if (!crl_covers(v, c, issuer, &revoked))
      all_covered = 0;
    if (revoked)
      p |= 1u << MC_X509_REVOKED;
  }
  r.problems = p;
  r.verdict = x509_verdict_of(p);
  r.chain_len = anchor_in_path ? n : n + 1;
  r.crl_checked = all_covered;
  r.anchor = anchor;
  if (!v->have_best || popcount(p) < popcount(v->best.problems)) {
    v->best = r;
    v->have_best = 1;
  }
}

static int is_anchor(const mc_x509_trust *t, const mc_x509_cert *c, const mc_x509_cert **out) {
  for (size_t s = 0; t != NULL && s < t->num_sets; s++)
    for (size_t i = 0; i < t->sets[s]->count; i++)
      if (memcmp(t->sets[s]->certs[i].fpr256, c->fpr256, 32) == 0) {
        *out = &t->sets[s]->certs[i];
        return 1;
      }
  return 0;
}

// Depth-first search; returns 1 once a path without problems is found.
static int search(vctx *v) {
  const mc_x509_cert *c = v->path[v->len - 1];
  const mc_x509_trust *t = v->trust;
  for (size_t s = 0; t != NULL && s < t->num_sets; s++) {
    for (size_t i = 0; i < t->sets[s]->count; i++) {
      const mc_x509_cert *a = &t->sets[s]->certs[i];
      if (!x509_name_eq(a->subject, c->issuer))
        continue;
      if (v->len + 1 > v->max_chain) {
        v->extra |= 1u << MC_X509_PATH_TOO_LONG;
        continue;
      }
      if (!sig_ok(v, c, &a->key)) {
        v->extra |= 1u << MC_X509_BAD_SIGNATURE;
        continue;
      }
      judge(v, a);
      if (v->best.verdict == MC_X509_OK)
        return 1;
    }
  }
  if (v->inter == NULL)
    return 0;
  for (size_t i = 0; i < v->inter->count; i++) {
    const mc_x509_cert *x = &v->inter->certs[i];
    if (!x509_name_eq(x->subject, c->issuer))
      continue;
    int loop = 0;
    for (size_t j = 0; j < v->len; j++)
      loop |= memcmp(v->path[j]->fpr256, x->fpr256, 32) == 0;
    if (loop)
      continue;
    if (v->len + 2 > v->max_chain || v->len >= MAX_PATH) {
      v->extra |= 1u << MC_X509_PATH_TOO_LONG;
      continue;
    }
    if (!sig_ok(v, c, &x->key)) {
      v->extra |= 1u << MC_X509_BAD_SIGNATURE;
      continue;
    }
    v->path[v->len++] = x;
    int done = search(v);
    v->len--;
    if (done)
      return 1;
  }
  return 0;
}

int mc_x509_cert_verify(const mc_x509_trust *trust, mc_x509_result *out, const mc_x509_cert *cert,
                        const mc_x509_certs *intermediates, int64_t now) {
  if (out == NULL || cert == NULL)
    return MC_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  vctx v;
  memset(&v, 0, sizeof v);
  x509_limits lim;
  if (trust != NULL)
    lim = trust->lim;
  else if (x509_limits_resolve(&lim, NULL) != 0)
    return MC_ERR_INVALID_ARGUMENT;
  v.trust = trust;
  v.inter = intermediates;
  v.now = now;
  v.max_checks = lim.max_signature_checks;
  v.max_chain = lim.max_chain_len < MAX_PATH ? lim.max_chain_len : MAX_PATH;
  v.max_rsa_bits = lim.max_rsa_bits;
  v.path[0] = cert;
  v.len = 1;
  const mc_x509_cert *a;
  if (is_anchor(trust, cert, &a)) {
    // Trusted as it stands: no issuer to check, but its dates and use still
    // count.
    mc_x509_result r;
    memset(&r, 0, sizeof r);
    r.problems = leaf_problems(cert) | own_problems(cert, now);
    r.verdict = x509_verdict_of(r.problems);
    r.chain_len = 1;
    r.anchor = a;
    *out = r;
    return 0;
  }
  search(&v);
  if (v.have_best) {
    *out = v.best;
    return 0;
  }
  unsigned p = leaf_problems(cert) | own_problems(cert, now) | v.extra;
  p |= 1u << (cert->self_signed ? MC_X509_SELF_SIGNED : MC_X509_UNTRUSTED);
  out->problems = p;
  out->verdict = x509_verdict_of(p);
  out->chain_len = 0;
  return 0;
}
