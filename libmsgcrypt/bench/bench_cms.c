// bench_cms.c: messages per second and MB/s of libmsgcrypt's S/MIME
// encryption (mc_smime_encrypt) to one recipient certificate, 10 KiB and
// 1 MiB messages, and the raw AES-256 it is judged against on the same
// 1 MiB: AES-256-CBC (BoringSSL's AES_cbc_encrypt, key schedule once) and
// AES-256-GCM (BoringSSL's EVP_AEAD, key set up once). OpenSSL's CMS_encrypt,
// the peer, runs in its own process (peer_openssl_cms.c); run-bench.sh runs
// both and goals.py judges them.
//
// Each certificate is parsed once (mc_x509_certs_parse); every message is
// then one mc_smime_encrypt call writing the DER ContentInfo into one
// buffer, with the engine's defaults (AES-256-CBC EnvelopedData, or
// AES-256-GCM AuthEnvelopedData for ML-KEM; issuer and serial) except that
// a NAME ending in "-oaep" selects RSAES-OAEP. The content encryption of
// each row is printed on stderr ("content NAME: cbc"). Records follow
// corvid_bench.h: one message per record, `bytes` its plaintext length.
//
// usage: bench_cms [--rounds N] NAME=CERT_FILE...
//   CERT_FILE is PEM or DER; NAME names the rows (cms-encrypt-NAME).
#include <openssl/aead.h>
#include <openssl/aes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_bench.h"
#include "msgcrypt.h"

enum { SMALL = 10 * 1024, LARGE = 1 << 20 };

struct job {
  const mc_x509_cert *cert;
  mc_smime_encrypt_options opt;
  const uint8_t *in;
  size_t len;
  uint8_t *out;
  size_t out_cap, out_len;
  unsigned n; // messages per measured call
  AES_KEY cbc_key;
  EVP_AEAD_CTX gcm;
  uint8_t iv[16], nonce[12];
};

// A failed call would time an error path: stop instead.
static void must(int status, const char *what) {
  if (status != 0) {
    fprintf(stderr, "bench_cms: %s failed (%d)\n", what, status);
    exit(1);
  }
}

static void encrypt_n(void *ctx) {
  struct job *j = ctx;
  const mc_x509_cert *certs[1] = {j->cert};
  for (unsigned i = 0; i < j->n; i++) {
    must(mc_smime_encrypt(j->out, j->out_cap, &j->out_len, certs, 1, &j->opt, j->in, j->len),
         "mc_smime_encrypt");
    corvid_bench_sink(j->out, j->out_len);
  }
}

// The raw ciphers over the whole input; CBC without padding (1 MiB is whole
// blocks), GCM with its 16-byte tag.
static void cbc_encrypt(void *ctx) {
  struct job *j = ctx;
  uint8_t iv[16];
  memcpy(iv, j->iv, sizeof iv);
  AES_cbc_encrypt(j->in, j->out, j->len, &j->cbc_key, iv, AES_ENCRYPT);
  corvid_bench_sink(j->out, j->len);
}

static void gcm_seal(void *ctx) {
  struct job *j = ctx;
  size_t n = 0;
  must(!EVP_AEAD_CTX_seal(&j->gcm, j->out, &n, j->out_cap, j->nonce, sizeof j->nonce, j->in, j->len,
                          NULL, 0),
       "EVP_AEAD_CTX_seal");
  corvid_bench_sink(j->out, n);
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16;
  uint8_t *p = malloc(cap);
  *len = p ? fread(p, 1, cap, f) : 0;
  fclose(f);
  return p;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

// content_of names the content encryption of the DER ContentInfo `m`: its
// content type OID ends in 7.3 (EnvelopedData, CBC here) or 1.23
// (AuthEnvelopedData, GCM here).
static const char *content_of(const uint8_t *m, size_t len) {
  static const uint8_t auth[] = {0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7,
                                 0x0d, 0x01, 0x09, 0x10, 0x01, 0x17};
  for (size_t o = 0; o + sizeof auth <= len && o < 8; o++)
    if (memcmp(m + o, auth, sizeof auth) == 0)
      return "gcm";
  return "cbc";
}

int main(int argc, char **argv) {
  unsigned rounds = 5;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
    rounds = (unsigned)atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > 20) {
    fprintf(stderr, "usage: bench_cms [--rounds N] NAME=CERT_FILE...\n");
    return 2;
  }
  struct job j = {0};
  uint8_t *msg = malloc(LARGE);
  j.out_cap = LARGE + (64 << 10); // room for the largest RecipientInfo
  j.out = malloc(j.out_cap);
  if (!msg || !j.out)
    return 1;
  for (size_t k = 0; k < LARGE; k++)
    msg[k] = (uint8_t)(k * 131 + 7);
  struct corvid_bench_result r;
  // The raw AES baselines, over the same 1 MiB.
  uint8_t key[32];
  memset(key, 0x42, sizeof key);
  memset(j.iv, 0x17, sizeof j.iv);
  memset(j.nonce, 0x23, sizeof j.nonce);
  must(AES_set_encrypt_key(key, 256, &j.cbc_key), "AES_set_encrypt_key");
  must(!EVP_AEAD_CTX_init(&j.gcm, EVP_aead_aes_256_gcm(), key, sizeof key,
                          EVP_AEAD_DEFAULT_TAG_LENGTH, NULL),
       "EVP_AEAD_CTX_init");
  j.in = msg;
  j.len = LARGE;
  must(corvid_bench_measure(&r, 10 * rounds, cbc_encrypt, &j), "measure");
  corvid_bench_emit(stdout, "cms-raw-aes256", "aes256-cbc", LARGE, 1, &r);
  must(corvid_bench_measure(&r, 10 * rounds, gcm_seal, &j), "measure");
  corvid_bench_emit(stdout, "cms-raw-aes256", "aes256-gcm", LARGE, 1, &r);
  EVP_AEAD_CTX_cleanup(&j.gcm);
  for (; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return 2;
    *eq = '\0';
    size_t len = 0;
    uint8_t *data = read_file(eq + 1, &len);
    mc_x509_certs *certs = NULL;
    if (!data || mc_x509_certs_parse(&certs, NULL, NULL, data, len) != 0) {
      fprintf(stderr, "bench_cms: %s: no certificate in %s\n", argv[i], eq + 1);
      free(data);
      continue;
    }
    j.cert = mc_x509_certs_get(certs, 0);
    j.opt = (mc_smime_encrypt_options)MC_SMIME_ENCRYPT_OPTIONS_INIT;
    if (ends_with(argv[i], "-oaep"))
      j.opt.rsa = MC_SMIME_RSA_OAEP_SHA256;
    static const size_t sizes[] = {SMALL, LARGE};
    for (size_t s = 0; s < 2; s++) {
      j.len = sizes[s];
      j.n = sizes[s] == SMALL ? 4 : 1;
      must(corvid_bench_measure(&r, 10 * rounds, encrypt_n, &j), "measure");
      r.min_ns /= j.n;
      r.median_ns /= j.n;
      char bench[64];
      snprintf(bench, sizeof bench, "cms-encrypt-%s", argv[i]);
      corvid_bench_emit(stdout, bench, "mc", sizes[s], 1, &r);
      if (s == 0)
        fprintf(stderr, "content %s: %s\n", argv[i], content_of(j.out, j.out_len));
    }
    mc_x509_certs_free(certs);
    free(data);
  }
  free(j.out);
  free(msg);
  return 0;
}
