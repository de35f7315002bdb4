// peer_openssl_cms.c: OpenSSL 3.0's CMS encryption (Debian libssl-dev),
// measured like bench_cms.c measures ours, in a process of its own: OpenSSL's
// libcrypto and the BoringSSL that libmsgcrypt links export the same symbol
// names, so the two never share a process, and this file is compiled against
// OpenSSL's headers only (bench/meson.build gives it no BoringSSL include
// directory).
//
// Each certificate is read once into an X509 object; every message is one
// CMS_encrypt over a memory BIO with AES-256-CBC and CMS_BINARY (the
// content as given, no MIME canonicalisation), then i2d_CMS_ContentInfo to
// DER, which is what bench_cms's mc_smime_encrypt produces. A NAME ending in
// "-oaep" builds the message with CMS_PARTIAL, sets RSAES-OAEP with SHA-256
// and MGF1-SHA-256 on the recipient's key context and finishes with
// CMS_final. A certificate OpenSSL 3.0 cannot encrypt to (X25519: no
// RFC 8418 support; ML-KEM: unknown key type) is reported on stderr and
// skipped.
//
// usage: peer_openssl_cms [--rounds N] NAME=CERT_FILE...
//   prints one JSON line per (NAME, size) with impl "openssl" (corvid_bench.h).
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_bench.h"

enum { SMALL = 10 * 1024, LARGE = 1 << 20 };

struct job {
  X509 *cert;
  STACK_OF(X509) * certs;
  int oaep;
  const uint8_t *in;
  size_t len;
  unsigned n; // messages per measured call
  int ok;
};

// one_message encrypts one message; it returns the DER length, or 0.
static size_t one_message(struct job *j) {
  BIO *in = BIO_new_mem_buf(j->in, (int)j->len);
  CMS_ContentInfo *cms = NULL;
  if (in == NULL)
    return 0;
  if (!j->oaep) {
    cms = CMS_encrypt(j->certs, in, EVP_aes_256_cbc(), CMS_BINARY);
  } else {
    cms = CMS_encrypt(NULL, NULL, EVP_aes_256_cbc(), CMS_BINARY | CMS_PARTIAL);
    CMS_RecipientInfo *ri =
        cms != NULL ? CMS_add1_recipient_cert(cms, j->cert, CMS_KEY_PARAM) : NULL;
    EVP_PKEY_CTX *pctx = ri != NULL ? CMS_RecipientInfo_get0_pkey_ctx(ri) : NULL;
    if (pctx == NULL || EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_OAEP_PADDING) <= 0 ||
        EVP_PKEY_CTX_set_rsa_oaep_md(pctx, EVP_sha256()) <= 0 ||
        EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) <= 0 ||
        !CMS_final(cms, in, NULL, CMS_BINARY)) {
      CMS_ContentInfo_free(cms);
      cms = NULL;
    }
  }
  size_t n = 0;
  if (cms != NULL) {
    uint8_t *der = NULL;
    int len = i2d_CMS_ContentInfo(cms, &der);
    if (len > 0) {
      corvid_bench_sink(der, (size_t)len);
      n = (size_t)len;
    }
    OPENSSL_free(der);
  }
  CMS_ContentInfo_free(cms);
  BIO_free(in);
  return n;
}

static void encrypt_n(void *ctx) {
  struct job *j = ctx;
  for (unsigned i = 0; i < j->n; i++)
    if (one_message(j) == 0)
      j->ok = 0;
}

static X509 *read_cert(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
  if (x == NULL) {
    rewind(f);
    x = d2i_X509_fp(f, NULL);
  }
  fclose(f);
  return x;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

int main(int argc, char **argv) {
  unsigned rounds = 5;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
    rounds = (unsigned)atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > 20) {
    fprintf(stderr, "usage: peer_openssl_cms [--rounds N] NAME=CERT_FILE...\n");
    return 2;
  }
  uint8_t *msg = malloc(LARGE);
  if (msg == NULL)
    return 1;
  for (size_t k = 0; k < LARGE; k++)
    msg[k] = (uint8_t)(k * 131 + 7);
  fprintf(stderr, "peer_openssl_cms: %s\n", OpenSSL_version(OPENSSL_VERSION));
  for (; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (eq == NULL)
      return 2;
    *eq = '\0';
    struct job j = {0};
    j.cert = read_cert(eq + 1);
    j.certs = sk_X509_new_null();
    j.oaep = ends_with(argv[i], "-oaep");
    j.in = msg;
    j.len = SMALL;
    j.n = 1;
    if (j.cert == NULL || j.certs == NULL || !sk_X509_push(j.certs, j.cert) ||
        one_message(&j) == 0) {
      unsigned long e = ERR_peek_last_error();
      fprintf(stderr, "peer_openssl_cms: %s: OpenSSL cannot encrypt to %s (%s)\n", argv[i], eq + 1,
              e ? ERR_reason_error_string(e) : "no certificate");
      ERR_clear_error();
      sk_X509_free(j.certs);
      X509_free(j.cert);
      continue;
    }
    static const size_t sizes[] = {SMALL, LARGE};
    for (size_t s = 0; s < 2; s++) {
      struct corvid_bench_result r;
      j.len = sizes[s];
      j.n = sizes[s] == SMALL ? 4 : 1;
      j.ok = 1;
      if (corvid_bench_measure(&r, 10 * rounds, encrypt_n, &j) != 0 || !j.ok) {
        fprintf(stderr, "peer_openssl_cms: %s: encryption failed\n", argv[i]);
        return 1;
      }
      r.min_ns /= j.n;
      r.median_ns /= j.n;
      char bench[64];
      snprintf(bench, sizeof bench, "cms-encrypt-%s", argv[i]);
      corvid_bench_emit(stdout, bench, "openssl", sizes[s], 1, &r);
    }
    sk_X509_free(j.certs);
    X509_free(j.cert);
  }
  free(msg);
  return 0;
}
