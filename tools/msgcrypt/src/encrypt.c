// encrypt.c: `msgcrypt encrypt --key FILE... [--armor] [--format FMT]`,
// which encrypts stdin to every certificate in the key files as an OpenPGP
// message, streaming it to stdout in constant memory, and `msgcrypt
// encrypt-mime --key FILE... [--protect-headers at-rest|gateway]`, which
// turns the MIME message on stdin into a PGP/MIME message, with RFC 9788
// header protection when asked, or, with `--cert FILE...` instead of
// `--key`, into an S/MIME 4.0 message for X.509 certificates (header
// protection too). Unusable keys or a stdin that is not a message make it
// explain on stderr, write nothing on stdout and exit 1. `encrypt` streams:
// a stdin that fails to read part way leaves on stdout a message without
// its final packet and tag, which no decryptor accepts, and exits 1.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msgcrypt_tool.h"

#define ENCRYPT_MAX_KEY_FILES 64

// A keyring holds OpenPGP certificates (--key) or X.509 certificates
// (--cert); one message goes to one kind only.
struct keyring {
  mc_pgp_certs *sets[ENCRYPT_MAX_KEY_FILES];
  size_t num_sets;
  const mc_pgp_cert **certs;
  size_t num_certs;
  mc_x509_certs *x509_sets[ENCRYPT_MAX_KEY_FILES];
  size_t num_x509_sets;
  const mc_x509_cert **x509;
  size_t num_x509;
  mc_smime_encrypt_options smime;
};

static void keyring_free(struct keyring *k) {
  for (size_t i = 0; i < k->num_sets; i++)
    mc_pgp_certs_free(k->sets[i]);
  free(k->certs);
  for (size_t i = 0; i < k->num_x509_sets; i++)
    mc_x509_certs_free(k->x509_sets[i]);
  free(k->x509);
}

// read_file reads all of `path` into a new buffer; it prints why not.
static int read_file(const char *path, uint8_t **data, size_t *len) {
  int ret = msgcrypt_read_path(path, data, len);
  if (ret < 0) {
    fprintf(stderr, "msgcrypt: %s: %s\n", path, mc_strerror(ret));
    return -1;
  }
  return 0;
}

// load_cert reads the X.509 certificates of `path` into `k`, keeping the
// ones that are not CAs (a file may carry its chain). It prints why not.
static int load_cert(struct keyring *k, const char *path) {
  if (k->num_x509_sets == ENCRYPT_MAX_KEY_FILES) {
    fprintf(stderr, "msgcrypt: more than %d certificate files\n", ENCRYPT_MAX_KEY_FILES);
    return -1;
  }
  uint8_t *data = NULL;
  size_t len = 0;
  if (read_file(path, &data, &len) < 0)
    return -1;
  mc_x509_diag diag;
  memset(&diag, 0, sizeof diag);
  mc_x509_certs *set = NULL;
  int ret = mc_x509_certs_parse(&set, NULL, &diag, data, len);
  free(data);
  if (ret < 0) {
    fprintf(stderr, "msgcrypt: %s: not a certificate: %s\n", path,
            diag.message[0] ? diag.message : mc_strerror(ret));
    return -1;
  }
  size_t n = mc_x509_certs_count(set);
  const mc_x509_cert **certs = realloc(k->x509, (k->num_x509 + n) * sizeof *certs);
  if (certs == NULL) {
    mc_x509_certs_free(set);
    fprintf(stderr, "msgcrypt: out of memory\n");
    return -1;
  }
  k->x509 = certs;
  k->x509_sets[k->num_x509_sets++] = set;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    const mc_x509_cert *c = mc_x509_certs_get(set, i);
    if (mc_x509_cert_is_ca(c))
      continue;
    if (!mc_x509_cert_can_encrypt(c)) {
      fprintf(stderr, "msgcrypt: %s: certificate %zu has no key mail can be encrypted to\n", path,
              i + 1);
      return -1;
    }
    if (msgcrypt_refuse_x509(path, i, c, (int64_t)time(NULL)) < 0)
      return -1;
    k->x509[k->num_x509++] = c;
    kept++;
  }
  if (kept == 0) {
    fprintf(stderr, "msgcrypt: %s: only CA certificates\n", path);
    return -1;
  }
  return 0;
}

// load_key reads every certificate of `path` into `k`; it prints why not.
static int load_key(struct keyring *k, const char *path) {
  if (k->num_sets == ENCRYPT_MAX_KEY_FILES) {
    fprintf(stderr, "msgcrypt: more than %d key files\n", ENCRYPT_MAX_KEY_FILES);
    return -1;
  }
  uint8_t *data = NULL;
  size_t len = 0;
  if (read_file(path, &data, &len) < 0)
    return -1;
  mc_pgp_diag diag;
  memset(&diag, 0, sizeof diag);
  mc_pgp_certs *set = NULL;
  int ret = mc_pgp_certs_parse(&set, NULL, &diag, data, len, (int64_t)time(NULL));
  free(data);
  if (ret < 0) {
    fprintf(stderr, "msgcrypt: %s: not a usable certificate: %s\n", path,
            diag.message[0] ? diag.message : mc_strerror(ret));
    return -1;
  }
  size_t n = mc_pgp_certs_count(set);
  const mc_pgp_cert **certs = realloc(k->certs, (k->num_certs + n) * sizeof *certs);
  if (certs == NULL) {
    mc_pgp_certs_free(set);
    fprintf(stderr, "msgcrypt: out of memory\n");
    return -1;
  }
  k->certs = certs;
  k->sets[k->num_sets++] = set;
  for (size_t i = 0; i < n; i++) {
    const mc_pgp_cert *cert = mc_pgp_certs_get(set, i);
    if (mc_pgp_cert_num_recipients(cert) == 0) {
      // Named here, with the reasons, rather than as one failure of the
      // whole recipient list later.
      msgcrypt_report_unusable(path, cert);
      return -1;
    }
    k->certs[k->num_certs++] = cert;
  }
  return 0;
}

// stdout_error is the error of a failed write or flush of stdout (ENOSPC on
// a full disk, EPIPE, ...), EIO when the C library left none.
static int stdout_error(void) {
  return errno != 0 ? -errno : -EIO;
}

static int write_stdout(void *opaque, const uint8_t *data, size_t len) {
  (void)opaque;
  errno = 0;
  return fwrite(data, 1, len, stdout) == len ? 0 : stdout_error();
}

// parse_args reads the shared options; `armor_ok` says whether --armor and
// --format apply. It returns EXIT_OK or EXIT_USAGE.
static int parse_args(int argc, char **argv, int armor_ok, struct keyring *k,
                      mc_pgp_encrypt_options *opt) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
      if (load_key(k, argv[++i]) < 0)
        return EXIT_FAILED;
    } else if (!armor_ok && strcmp(argv[i], "--cert") == 0 && i + 1 < argc) {
      if (load_cert(k, argv[++i]) < 0)
        return EXIT_FAILED;
    } else if (!armor_ok && strcmp(argv[i], "--content") == 0 && i + 1 < argc) {
      const char *c = argv[++i];
      if (strcmp(c, "cbc") == 0)
        k->smime.content = MC_SMIME_CONTENT_AES256_CBC;
      else if (strcmp(c, "gcm") == 0)
        k->smime.content = MC_SMIME_CONTENT_AES256_GCM;
      else {
        fprintf(stderr, "msgcrypt: unknown S/MIME content encryption %s (cbc, gcm)\n", c);
        return EXIT_USAGE;
      }
    } else if (!armor_ok && strcmp(argv[i], "--rsa") == 0 && i + 1 < argc) {
      const char *r = argv[++i];
      if (strcmp(r, "pkcs1") == 0)
        k->smime.rsa = MC_SMIME_RSA_PKCS1;
      else if (strcmp(r, "oaep") == 0)
        k->smime.rsa = MC_SMIME_RSA_OAEP_SHA256;
      else {
        fprintf(stderr, "msgcrypt: unknown RSA key transport %s (pkcs1, oaep)\n", r);
        return EXIT_USAGE;
      }
    } else if (armor_ok && strcmp(argv[i], "--armor") == 0) {
      opt->flags |= MC_PGP_ARMOR;
    } else if (!armor_ok && strcmp(argv[i], "--protect-headers") == 0 && i + 1 < argc) {
      const char *m = argv[++i];
      opt->flags &= ~(MC_PGP_PROTECT_HEADERS_AT_REST | MC_PGP_PROTECT_HEADERS_GATEWAY);
      if (strcmp(m, "at-rest") == 0)
        opt->flags |= MC_PGP_PROTECT_HEADERS_AT_REST;
      else if (strcmp(m, "gateway") == 0)
        opt->flags |= MC_PGP_PROTECT_HEADERS_GATEWAY;
      else {
        fprintf(stderr, "msgcrypt: unknown header protection %s (at-rest, gateway)\n", m);
        return EXIT_USAGE;
      }
    } else if (armor_ok && strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
      const char *f = argv[++i];
      if (strcmp(f, "auto") == 0)
        opt->format = MC_PGP_FORMAT_AUTO;
      else if (strcmp(f, "v1") == 0)
        opt->format = MC_PGP_FORMAT_SEIPDV1;
      else if (strcmp(f, "ocb") == 0)
        opt->format = MC_PGP_FORMAT_SEIPDV2_OCB;
      else if (strcmp(f, "gcm") == 0)
        opt->format = MC_PGP_FORMAT_SEIPDV2_GCM;
      else {
        fprintf(stderr, "msgcrypt: unknown format %s (auto, v1, ocb, gcm)\n", f);
        return EXIT_USAGE;
      }
    } else {
      if (armor_ok)
        fprintf(stderr,
                "usage: msgcrypt %s --key FILE... [--armor] [--format auto|v1|ocb|gcm] "
                "< IN > OUT\n",
                argv[0]);
      else
        fprintf(stderr,
                "usage: msgcrypt %s --key FILE... [--protect-headers at-rest|gateway] < IN > OUT\n"
                "       msgcrypt %s --cert FILE... [--content cbc|gcm] [--rsa pkcs1|oaep]\n"
                "                [--protect-headers at-rest|gateway] < IN > OUT\n",
                argv[0], argv[0]);
      return EXIT_USAGE;
    }
  }
  if (k->num_certs == 0 && k->num_x509 == 0) {
    fprintf(stderr, "msgcrypt: %s needs at least one --key FILE%s\n", argv[0],
            armor_ok ? "" : " or --cert FILE");
    return EXIT_USAGE;
  }
  if (k->num_certs > 0 && k->num_x509 > 0) {
    fprintf(stderr, "msgcrypt: %s takes OpenPGP keys or X.509 certificates, not both\n", argv[0]);
    return EXIT_USAGE;
  }
  if (k->num_x509 > 0) {
    // The OpenPGP flags say which mode was asked for; S/MIME takes it as an
    // option value.
    if (opt->flags & MC_PGP_PROTECT_HEADERS_AT_REST)
      k->smime.protect_headers = MC_HP_AT_REST;
    else if (opt->flags & MC_PGP_PROTECT_HEADERS_GATEWAY)
      k->smime.protect_headers = MC_HP_GATEWAY;
  }
  return EXIT_OK;
}

int msgcrypt_cmd_encrypt(int argc, char **argv) {
  struct keyring k;
  memset(&k, 0, sizeof k);
  mc_pgp_encrypt_options opt = MC_PGP_ENCRYPT_OPTIONS_INIT;
  int status = parse_args(argc, argv, 1, &k, &opt);
  mc_pgp_encryptor *e = NULL;
  if (status == EXIT_OK) {
    int ret = mc_pgp_encryptor_new(&e, k.certs, k.num_certs, &opt, write_stdout, NULL);
    if (ret < 0) {
      fprintf(stderr, "msgcrypt: cannot encrypt to these keys: %s\n", mc_strerror(ret));
      status = EXIT_FAILED;
    }
  }
  static uint8_t buf[1 << 16];
  while (status == EXIT_OK) {
    errno = 0;
    size_t n = fread(buf, 1, sizeof buf, stdin);
    int read_errno = errno;
    int ret = mc_pgp_encryptor_update(e, buf, n);
    if (ret == 0 && n < sizeof buf) {
      if (ferror(stdin)) {
        fprintf(stderr, "msgcrypt: stdin: %s\n", strerror(read_errno != 0 ? read_errno : EIO));
        status = EXIT_FAILED;
        break;
      }
      if (feof(stdin)) {
        ret = mc_pgp_encryptor_final(e);
        errno = 0;
        if (ret == 0 && fflush(stdout) != 0)
          ret = stdout_error();
        if (ret < 0) {
          fprintf(stderr, "msgcrypt: %s\n", mc_strerror(ret));
          status = EXIT_FAILED;
        }
        break;
      }
    }
    if (ret < 0) {
      fprintf(stderr, "msgcrypt: %s\n", mc_strerror(ret));
      status = EXIT_FAILED;
    }
  }
  mc_pgp_encryptor_free(e);
  keyring_free(&k);
  return status;
}

int msgcrypt_cmd_encrypt_mime(int argc, char **argv) {
  struct keyring k;
  memset(&k, 0, sizeof k);
  k.smime = (mc_smime_encrypt_options)MC_SMIME_ENCRYPT_OPTIONS_INIT;
  mc_pgp_encrypt_options opt = MC_PGP_ENCRYPT_OPTIONS_INIT;
  int status = parse_args(argc, argv, 0, &k, &opt);
  uint8_t *in = NULL;
  size_t in_len = 0;
  if (status == EXIT_OK) {
    int ret = msgcrypt_read_stream(stdin, &in, &in_len);
    if (ret < 0) {
      fprintf(stderr, "msgcrypt: stdin: %s\n", mc_strerror(ret));
      status = EXIT_FAILED;
    }
  }
  if (status == EXIT_OK) {
    int ret =
        k.num_x509 > 0
            ? mc_smime_mime_encrypt(k.x509, k.num_x509, &k.smime, in, in_len, write_stdout, NULL)
            : mc_pgp_mime_encrypt(k.certs, k.num_certs, &opt, in, in_len, write_stdout, NULL);
    errno = 0;
    if (ret == 0 && fflush(stdout) != 0)
      ret = stdout_error();
    if (ret == MC_ERR_INVALID_ARGUMENT) {
      fprintf(stderr, "msgcrypt: stdin is not a MIME message (no header fields, or a "
                      "malformed header line)\n");
      status = EXIT_FAILED;
    } else if (ret < 0) {
      fprintf(stderr, "msgcrypt: cannot encrypt: %s\n", mc_strerror(ret));
      status = EXIT_FAILED;
    }
  }
  free(in);
  keyring_free(&k);
  return status;
}
