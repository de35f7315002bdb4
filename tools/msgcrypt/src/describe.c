// describe.c: `msgcrypt describe FILE [--address ADDR]... [--json]
// [--now SECONDS]`, which reads OpenPGP certificates (armored or binary, one
// or many) with libmsgcrypt and prints, per certificate, the one-line
// description, the fingerprints, user IDs, creation and expiry, every key
// and the warnings with their stable codes, as text or JSON. Input that is
// not a usable certificate makes it print nothing on stdout, explain on
// stderr and exit 1, so that scripts can rely on either.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "msgcrypt_tool.h"

#define DESCRIBE_MAX_ADDRESSES 64

// read_input reads the file `path` whole, or stdin for "-".
static int read_input(const char *path, uint8_t **out, size_t *out_len) {
  if (strcmp(path, "-") == 0)
    return msgcrypt_read_stream(stdin, out, out_len);
  return msgcrypt_read_path(path, out, out_len);
}

static void fmt_date(char out[32], int64_t t) {
  if (t == 0) {
    snprintf(out, 32, "never");
    return;
  }
  time_t tt = (time_t)t;
  struct tm tm;
  if (gmtime_r(&tt, &tm) == NULL || strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(out, 32, "%lld", (long long)t);
}

static void hex(char *out, const uint8_t *in, size_t n) {
  static const char digits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * n] = 0;
}

static void json_string(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == 0x7f)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static const char *sym_name(uint8_t id) {
  static const char *const names[] = {
      "plaintext", "IDEA",   "TripleDES", "CAST5",   "Blowfish",    "reserved",    "reserved",
      "AES128",    "AES192", "AES256",    "Twofish", "Camellia128", "Camellia192", "Camellia256"};
  return id < sizeof names / sizeof names[0] ? names[id] : "unknown";
}

static const char *aead_name(uint8_t id) {
  return id == 1 ? "EAX" : id == 2 ? "OCB" : id == 3 ? "GCM" : "unknown";
}

// print_prefs prints what the key holder's software announces it reads.
static void print_prefs(FILE *f, const mc_pgp_cert *cert, int json) {
  unsigned features = mc_pgp_cert_features(cert);
  const uint8_t *sym, *aead;
  size_t num_sym = mc_pgp_cert_pref_symmetric(cert, &sym);
  size_t num_aead = mc_pgp_cert_pref_aead(cert, &aead);
  if (json) {
    fprintf(f, ",\"features\":[%s%s%s],\"pref_symmetric\":[",
            features & MC_PGP_FEATURE_SEIPDV1 ? "\"SEIPDv1\"" : "",
            (features & MC_PGP_FEATURE_SEIPDV1) && (features & MC_PGP_FEATURE_SEIPDV2) ? "," : "",
            features & MC_PGP_FEATURE_SEIPDV2 ? "\"SEIPDv2\"" : "");
    for (size_t i = 0; i < num_sym; i++)
      fprintf(f, "%s%u", i ? "," : "", sym[i]);
    fprintf(f, "],\"pref_aead\":[");
    for (size_t i = 0; i < num_aead; i++)
      fprintf(f, "%s[%u,%u]", i ? "," : "", aead[2 * i], aead[2 * i + 1]);
    fprintf(f, "]");
    return;
  }
  fprintf(f, "features:%s%s%s\n", features & MC_PGP_FEATURE_SEIPDV1 ? " SEIPDv1" : "",
          features & MC_PGP_FEATURE_SEIPDV2 ? " SEIPDv2" : "",
          features & (MC_PGP_FEATURE_SEIPDV1 | MC_PGP_FEATURE_SEIPDV2) ? "" : " none announced");
  fprintf(f, "preferred ciphers:");
  for (size_t i = 0; i < num_sym; i++)
    fprintf(f, " %s", sym_name(sym[i]));
  for (size_t i = 0; i < num_aead; i++)
    fprintf(f, " %s-%s", sym_name(aead[2 * i]), aead_name(aead[2 * i + 1]));
  fprintf(f, "%s\n", num_sym + num_aead == 0 ? " none announced" : "");
}

static void print_cert(FILE *f, const mc_pgp_cert *cert, int json, const char *const *addrs,
                       size_t num_addrs, int first) {
  char desc[512], date[32], fpr[MC_PGP_FPR_HEX_LEN];
  size_t desc_len, n;
  if (mc_pgp_cert_describe(cert, desc, sizeof desc, &desc_len) != 0)
    desc[0] = 0;
  if (mc_pgp_cert_fingerprint_hex(cert, fpr, sizeof fpr) != 0)
    fpr[0] = 0;
  mc_pgp_warning warns[MC_PGP_MAX_WARNINGS];
  size_t num_warns = 0;
  if (mc_pgp_cert_warnings(cert, warns, MC_PGP_MAX_WARNINGS, &num_warns, addrs, num_addrs) != 0)
    num_warns = 0;
  if (json) {
    fprintf(f, "%s{\"description\":", first ? "" : ",");
    json_string(f, desc, desc_len);
    fprintf(f,
            ",\"version\":%d,\"fingerprint\":\"%s\",\"created\":%lld,\"expires\":%lld,"
            "\"revoked\":%s,\"user_ids\":[",
            mc_pgp_cert_version(cert), fpr, (long long)mc_pgp_cert_creation_time(cert),
            (long long)mc_pgp_cert_expiration_time(cert),
            mc_pgp_cert_is_revoked(cert) ? "true" : "false");
    for (size_t i = 0; i < mc_pgp_cert_num_user_ids(cert); i++) {
      const char *u = mc_pgp_cert_user_id(cert, i, &n);
      if (i)
        fputc(',', f);
      json_string(f, u, n);
    }
    fprintf(f, "]");
    print_prefs(f, cert, 1);
    fprintf(f, ",\"keys\":[");
    for (size_t i = 0; i < mc_pgp_cert_num_keys(cert); i++) {
      mc_pgp_key_info ki;
      if (mc_pgp_cert_key_info(cert, i, &ki) != 0)
        continue;
      char kf[65];
      hex(kf, ki.fingerprint, ki.fingerprint_len);
      fprintf(f,
              "%s{\"version\":%d,\"algorithm\":%d,\"name\":\"%s\",\"bits\":%u,"
              "\"fingerprint\":\"%s\",\"created\":%lld,\"expires\":%lld,\"flags\":%u,"
              "\"valid\":%s,\"revoked\":%s,\"recipient\":%s",
              i ? "," : "", ki.version, ki.algorithm, ki.name, ki.bits, kf, (long long)ki.created,
              (long long)ki.expires, ki.flags, ki.valid ? "true" : "false",
              ki.revoked ? "true" : "false", ki.recipient ? "true" : "false");
      if (ki.unusable != NULL)
        fprintf(f, ",\"unusable\":\"%s\"", ki.unusable);
      fputc('}', f);
    }
    fprintf(f, "],\"warnings\":[");
    for (size_t i = 0; i < num_warns; i++) {
      fprintf(f, "%s{\"code\":\"%s\",\"number\":%d,\"text\":", i ? "," : "", warns[i].name,
              (int)warns[i].code);
      json_string(f, warns[i].text, strlen(warns[i].text));
      fputc('}', f);
    }
    fprintf(f, "]}");
    return;
  }
  if (!first)
    fputc('\n', f);
  fprintf(f, "%s\nfingerprint: %s\n", desc, fpr);
  for (size_t i = 0; i < mc_pgp_cert_num_user_ids(cert); i++) {
    const char *u = mc_pgp_cert_user_id(cert, i, &n);
    fprintf(f, "user ID: %.*s\n", (int)n, u);
  }
  fmt_date(date, mc_pgp_cert_creation_time(cert));
  fprintf(f, "created: %s\n", date);
  fmt_date(date, mc_pgp_cert_expiration_time(cert));
  fprintf(f, "expires: %s\n", date);
  print_prefs(f, cert, 0);
  for (size_t i = 0; i < mc_pgp_cert_num_keys(cert); i++) {
    mc_pgp_key_info ki;
    if (mc_pgp_cert_key_info(cert, i, &ki) != 0)
      continue;
    char kf[65];
    hex(kf, ki.fingerprint, ki.fingerprint_len);
    fmt_date(date, ki.expires);
    fprintf(f, "%s: v%d %s %s expires %s%s%s%s\n", i == 0 ? "primary key" : "subkey", ki.version,
            ki.name, kf, date, ki.recipient ? " [encrypt to]" : "",
            ki.revoked  ? " [revoked]"
            : !ki.valid ? " [invalid]"
                        : "",
            ki.unusable != NULL ? " [unsupported]" : "");
  }
  for (size_t i = 0; i < num_warns; i++)
    fprintf(f, "warning %s: %s\n", warns[i].name, warns[i].text);
}

// S/MIME certificates: `msgcrypt describe --cert FILE [--trust DIR|FILE]
// [--crl FILE]...`. The certificates of FILE that are not CAs are described
// (all of them when every one is a CA); the others in FILE serve as
// intermediates when the path to a root of DIR is searched.

#define DESCRIBE_MAX_CRLS 64

static void print_x509(FILE *f, const mc_x509_cert *cert, const mc_x509_result *res, int checked,
                       const mc_pgp_warning *warns, size_t num_warns, int json, int first) {
  char desc[64], fpr[MC_X509_FPR_HEX_LEN], subject[1024], issuer[1024], nb[32], na[32];
  size_t n, serial_len;
  if (mc_x509_cert_describe(cert, desc, sizeof desc, NULL) != 0)
    desc[0] = 0;
  if (mc_x509_cert_fingerprint_hex(cert, fpr, sizeof fpr) != 0)
    fpr[0] = 0;
  if (mc_x509_cert_subject(cert, subject, sizeof subject, NULL) != 0)
    snprintf(subject, sizeof subject, "(unreadable)");
  if (mc_x509_cert_issuer(cert, issuer, sizeof issuer, NULL) != 0)
    snprintf(issuer, sizeof issuer, "(unreadable)");
  const uint8_t *serial = mc_x509_cert_serial(cert, &serial_len);
  char serial_hex[2 * 21 + 1] = "";
  hex(serial_hex, serial, serial_len > 21 ? 21 : serial_len);
  fmt_date(nb, mc_x509_cert_not_before(cert));
  fmt_date(na, mc_x509_cert_not_after(cert));
  if (json) {
    fprintf(f, "%s{\"description\":", first ? "" : ",");
    json_string(f, desc, strlen(desc));
    fprintf(f, ",\"fingerprint_sha256\":\"%s\",\"subject\":", fpr);
    json_string(f, subject, strlen(subject));
    fprintf(f, ",\"issuer\":");
    json_string(f, issuer, strlen(issuer));
    fprintf(f, ",\"serial\":\"%s\",\"not_before\":%lld,\"not_after\":%lld,\"addresses\":[",
            serial_hex, (long long)mc_x509_cert_not_before(cert),
            (long long)mc_x509_cert_not_after(cert));
    for (size_t i = 0; i < mc_x509_cert_num_addresses(cert); i++) {
      const char *a = mc_x509_cert_address(cert, i, &n);
      if (i)
        fputc(',', f);
      json_string(f, a, n);
    }
    fprintf(f, "]");
    if (checked)
      fprintf(f, ",\"verdict\":\"%s\",\"chain_length\":%zu,\"crl_checked\":%s",
              mc_x509_verdict_name(res->verdict), res->chain_len,
              res->crl_checked ? "true" : "false");
    fprintf(f, ",\"warnings\":[");
    for (size_t i = 0; i < num_warns; i++) {
      fprintf(f, "%s{\"code\":\"%s\",\"number\":%d,\"text\":", i ? "," : "", warns[i].name,
              (int)warns[i].code);
      json_string(f, warns[i].text, strlen(warns[i].text));
      fputc('}', f);
    }
    fprintf(f, "]}");
    return;
  }
  if (!first)
    fputc('\n', f);
  fprintf(f, "%s\nfingerprint: %s\nsubject: %s\nissuer: %s\nserial: %s\n", desc, fpr, subject,
          issuer, serial_hex);
  for (size_t i = 0; i < mc_x509_cert_num_addresses(cert); i++) {
    const char *a = mc_x509_cert_address(cert, i, &n);
    fprintf(f, "address: %.*s\n", (int)n, a);
  }
  fprintf(f, "valid: %s to %s\n", nb, na);
  if (checked)
    fprintf(f, "chain: %s (%zu certificates%s)\n", mc_x509_verdict_name(res->verdict),
            res->chain_len, res->crl_checked ? ", CRLs checked" : "");
  for (size_t i = 0; i < num_warns; i++)
    fprintf(f, "warning %s: %s\n", warns[i].name, warns[i].text);
}

static int describe_smime(const char *cert_path, const char *trust_dir, const char *const *crls,
                          size_t num_crls, const char *const *addrs, size_t num_addrs, int json,
                          int64_t now) {
  uint8_t *in = NULL;
  size_t in_len = 0;
  int r = read_input(cert_path, &in, &in_len);
  if (r != 0) {
    fprintf(stderr, "msgcrypt: %s: %s\n", cert_path, mc_strerror(r));
    return 1;
  }
  mc_x509_certs *certs = NULL;
  mc_x509_diag diag;
  r = mc_x509_certs_parse(&certs, NULL, &diag, in, in_len);
  free(in);
  if (r != 0) {
    fprintf(stderr, "msgcrypt: %s: not an X.509 certificate or PKCS#7 bundle: %s (at byte %zu)\n",
            cert_path, diag.message, diag.offset);
    return 1;
  }
  mc_x509_trust *trust = NULL;
  int status = 1;
  if (trust_dir != NULL || num_crls > 0) {
    if (mc_x509_trust_new(&trust, NULL) != 0) {
      fprintf(stderr, "msgcrypt: out of memory\n");
      goto out;
    }
  }
  if (trust_dir != NULL) {
    // A directory (a file per anchor, hashed links) or one file of
    // concatenated PEM certificates, as `trust extract --format=pem-bundle`
    // writes (SMIME-TRUST.md).
    struct stat st;
    memset(&diag, 0, sizeof diag);
    if (stat(trust_dir, &st) != 0) {
      r = -errno;
    } else if (S_ISDIR(st.st_mode)) {
      r = mc_x509_trust_add_dir(trust, &diag, NULL, trust_dir);
    } else {
      uint8_t *anchors = NULL;
      size_t anchors_len = 0;
      r = read_input(trust_dir, &anchors, &anchors_len);
      if (r == 0)
        r = mc_x509_trust_add_anchors(trust, &diag, anchors, anchors_len);
      free(anchors);
    }
    if (r != 0) {
      fprintf(stderr, "msgcrypt: %s: %s%s%s\n", trust_dir, mc_strerror(r),
              diag.message[0] ? ": " : "", diag.message);
      goto out;
    }
  }
  for (size_t i = 0; i < num_crls; i++) {
    uint8_t *crl = NULL;
    size_t crl_len = 0;
    r = read_input(crls[i], &crl, &crl_len);
    if (r == 0) {
      memset(&diag, 0, sizeof diag);
      r = mc_x509_trust_add_crl(trust, &diag, crl, crl_len);
      free(crl);
    }
    if (r != 0) {
      fprintf(stderr, "msgcrypt: %s: not a usable CRL: %s\n", crls[i],
              diag.message[0] ? diag.message : mc_strerror(r));
      goto out;
    }
  }
  size_t count = mc_x509_certs_count(certs), leaves = 0;
  for (size_t i = 0; i < count; i++)
    leaves += !mc_x509_cert_is_ca(mc_x509_certs_get(certs, i));
  // Every described certificate must be able to receive mail (as for
  // OpenPGP keys, and as encrypt-mime requires of a leaf); otherwise say
  // why and print nothing. A file of CA certificates only (a trust bundle)
  // is described for what it is: its key usage is for signing certificates.
  int bad = 0;
  for (size_t i = 0; i < count; i++) {
    const mc_x509_cert *c = mc_x509_certs_get(certs, i);
    if (leaves > 0 && mc_x509_cert_is_ca(c))
      continue;
    if (mc_x509_cert_can_encrypt(c)) {
      if (!mc_x509_cert_is_ca(c) && msgcrypt_refuse_x509(cert_path, i, c, now) < 0)
        bad = 1;
      continue;
    }
    char d[64];
    if (mc_x509_cert_describe(c, d, sizeof d, NULL) != 0)
      d[0] = 0;
    fprintf(stderr, "msgcrypt: %s: certificate %zu (%s) has no key mail can be encrypted to\n",
            cert_path, i + 1, d);
    bad = 1;
  }
  if (bad)
    goto out;
  if (json)
    printf("{\"certificates\":[");
  int first = 1;
  for (size_t i = 0; i < count; i++) {
    const mc_x509_cert *c = mc_x509_certs_get(certs, i);
    if (leaves > 0 && mc_x509_cert_is_ca(c))
      continue;
    mc_x509_result res;
    memset(&res, 0, sizeof res);
    if (trust != NULL && mc_x509_cert_verify(trust, &res, c, certs, now) != 0) {
      fprintf(stderr, "msgcrypt: out of memory\n");
      goto out;
    }
    mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
    size_t nw = 0;
    if (mc_x509_cert_warnings(c, w, MC_PGP_MAX_WARNINGS, &nw, trust, certs, now, addrs,
                              num_addrs) != 0)
      nw = 0;
    print_x509(stdout, c, &res, trust != NULL, w, nw, json, first);
    first = 0;
  }
  if (json)
    printf("]}\n");
  if (fflush(stdout) != 0) {
    perror("msgcrypt: stdout");
    goto out;
  }
  status = 0;
out:
  mc_x509_trust_free(trust);
  mc_x509_certs_free(certs);
  return status;
}

void msgcrypt_report_unusable(const char *path, const mc_pgp_cert *cert) {
  char fpr[MC_PGP_FPR_HEX_LEN];
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t nw = 0;
  if (mc_pgp_cert_fingerprint_hex(cert, fpr, sizeof fpr) != 0)
    fpr[0] = 0;
  if (mc_pgp_cert_warnings(cert, w, MC_PGP_MAX_WARNINGS, &nw, NULL, 0) != 0)
    nw = 0;
  fprintf(stderr, "msgcrypt: %s: key %s has no usable encryption subkey\n", path, fpr);
  for (size_t j = 0; j < nw; j++)
    fprintf(stderr, "msgcrypt:   %s: %s\n", w[j].name, w[j].text);
}

int msgcrypt_refuse_x509(const char *path, size_t index, const mc_x509_cert *c, int64_t now) {
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t nw = 0;
  if (mc_x509_cert_warnings(c, w, MC_PGP_MAX_WARNINGS, &nw, NULL, NULL, now, NULL, 0) != 0) {
    fprintf(stderr, "msgcrypt: %s: certificate %zu cannot be checked\n", path, index + 1);
    return -1;
  }
  for (size_t j = 0; j < nw; j++) {
    if ((int)w[j].code == MC_X509_WARN_KEY_USAGE || w[j].code == MC_PGP_WARN_EXPIRED ||
        (int)w[j].code == MC_X509_WARN_NOT_YET_VALID) {
      fprintf(stderr, "msgcrypt: %s: certificate %zu cannot be encrypted to: %s: %s\n", path,
              index + 1, w[j].name, w[j].text);
      return -1;
    }
  }
  return 0;
}

int msgcrypt_cmd_describe(int argc, char **argv) {
  const char *path = NULL;
  const char *addrs[DESCRIBE_MAX_ADDRESSES];
  size_t num_addrs = 0;
  int json = 0;
  int64_t now = (int64_t)time(NULL);
  const char *cert_path = NULL, *trust_dir = NULL, *crls[DESCRIBE_MAX_CRLS];
  size_t num_crls = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--address") == 0 && i + 1 < argc) {
      if (num_addrs == DESCRIBE_MAX_ADDRESSES) {
        fprintf(stderr, "msgcrypt: describe: at most %d addresses\n", DESCRIBE_MAX_ADDRESSES);
        return 2;
      }
      addrs[num_addrs++] = argv[++i];
    } else if (strcmp(argv[i], "--now") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      now = strtoll(argv[++i], &end, 10);
      if (end == argv[i] || *end != 0 || errno != 0) {
        fprintf(stderr, "msgcrypt: describe: --now takes seconds since the epoch\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--cert") == 0 && i + 1 < argc && cert_path == NULL) {
      cert_path = argv[++i];
    } else if (strcmp(argv[i], "--trust") == 0 && i + 1 < argc && trust_dir == NULL) {
      trust_dir = argv[++i];
    } else if (strcmp(argv[i], "--crl") == 0 && i + 1 < argc) {
      if (num_crls == DESCRIBE_MAX_CRLS) {
        fprintf(stderr, "msgcrypt: describe: at most %d CRLs\n", DESCRIBE_MAX_CRLS);
        return 2;
      }
      crls[num_crls++] = argv[++i];
    } else if (path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
      path = argv[i];
    } else {
      fprintf(stderr, "usage: msgcrypt describe FILE [--address ADDR]... [--json] "
                      "[--now SECONDS]\n"
                      "       msgcrypt describe --cert FILE [--trust DIR|FILE] [--crl FILE]... "
                      "[--address ADDR]... [--json] [--now SECONDS]\n");
      return 2;
    }
  }
  if (cert_path != NULL && path == NULL)
    return describe_smime(cert_path, trust_dir, crls, num_crls, addrs, num_addrs, json, now);
  if (path == NULL || cert_path != NULL || trust_dir != NULL || num_crls > 0) {
    fprintf(stderr, "usage: msgcrypt describe FILE [--address ADDR]... [--json] "
                    "[--now SECONDS]\n"
                    "       msgcrypt describe --cert FILE [--trust DIR|FILE] [--crl FILE]... "
                    "[--address ADDR]... [--json] [--now SECONDS]\n");
    return 2;
  }
  uint8_t *in = NULL;
  size_t in_len = 0;
  int r = read_input(path, &in, &in_len);
  if (r != 0) {
    fprintf(stderr, "msgcrypt: %s: %s\n", path, mc_strerror(r));
    return 1;
  }
  mc_pgp_certs *certs = NULL;
  mc_pgp_diag diag;
  r = mc_pgp_certs_parse(&certs, NULL, &diag, in, in_len, now);
  free(in);
  if (r != 0) {
    fprintf(stderr, "msgcrypt: %s: not a usable OpenPGP key: %s (at byte %zu)\n", path,
            diag.message, diag.offset);
    return 1;
  }
  // Every certificate must be able to receive mail; otherwise say why and
  // print nothing.
  int bad = 0;
  for (size_t i = 0; i < mc_pgp_certs_count(certs); i++) {
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, i);
    if (mc_pgp_cert_num_recipients(cert) > 0)
      continue;
    msgcrypt_report_unusable(path, cert);
    bad = 1;
  }
  if (bad) {
    mc_pgp_certs_free(certs);
    return 1;
  }
  if (json)
    printf("{\"certificates\":[");
  for (size_t i = 0; i < mc_pgp_certs_count(certs); i++)
    print_cert(stdout, mc_pgp_certs_get(certs, i), json, addrs, num_addrs, i == 0);
  if (json)
    printf("]}\n");
  mc_pgp_certs_free(certs);
  if (fflush(stdout) != 0) {
    perror("msgcrypt: stdout");
    return 1;
  }
  return 0;
}
