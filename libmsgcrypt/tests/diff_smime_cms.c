// diff_smime_cms.c: the encrypting side of diff_smime_cms.py. It reads
// content on stdin, encrypts it with mc_smime_encrypt to the certificates
// named on the command line (PEM or DER, parsed by mc_x509_certs_parse)
// with the options given as flags, and writes the DER ContentInfo to
// stdout, for openssl cms and tests/cms_decrypt_ref.py to decrypt.
// With --mime the input is a MIME message and the output comes from
// mc_smime_mime_encrypt.
// With --hp-at-rest or --hp-gateway (and --mime) the header is protected
// (RFC 9788).
// Usage: diff_smime_cms [--mime] [--cbc|--gcm] [--oaep] [--ski|--issuer] [--tag12] [--ec-named]
//        [--hp-at-rest|--hp-gateway] CERT...
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

static int to_stdout(void *opaque, const uint8_t *data, size_t len) {
  (void)opaque;
  return fwrite(data, 1, len, stdout) == len ? 0 : -5;
}

static uint8_t *slurp(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *p = malloc(cap);
  for (;;) {
    if (p == NULL)
      return NULL;
    n += fread(p + n, 1, cap - n, f);
    if (n < cap)
      break;
    cap *= 2;
    p = realloc(p, cap);
  }
  *len = n;
  return p;
}

int main(int argc, char **argv) {
  mc_smime_encrypt_options o = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  int mime = 0;
  mc_x509_certs *sets[64];
  const mc_x509_cert *certs[64];
  size_t num = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--cbc") == 0)
      o.content = MC_SMIME_CONTENT_AES256_CBC;
    else if (strcmp(a, "--gcm") == 0)
      o.content = MC_SMIME_CONTENT_AES256_GCM;
    else if (strcmp(a, "--oaep") == 0)
      o.rsa = MC_SMIME_RSA_OAEP_SHA256;
    else if (strcmp(a, "--ski") == 0)
      o.rid = MC_SMIME_RID_SKI;
    else if (strcmp(a, "--issuer") == 0)
      o.rid = MC_SMIME_RID_ISSUER_SERIAL;
    else if (strcmp(a, "--mime") == 0)
      mime = 1;
    else if (strcmp(a, "--ec-named") == 0)
      o.ec_params = MC_SMIME_EC_PARAMS_NAMED_CURVE;
    else if (strcmp(a, "--tag12") == 0)
      o.gcm_tag = MC_SMIME_GCM_TAG12_DEFAULT;
    else if (strcmp(a, "--hp-at-rest") == 0)
      o.protect_headers = MC_HP_AT_REST;
    else if (strcmp(a, "--hp-gateway") == 0)
      o.protect_headers = MC_HP_GATEWAY;
    else if (num < 64) {
      FILE *f = fopen(a, "rb");
      size_t len;
      uint8_t *p = f != NULL ? slurp(f, &len) : NULL;
      if (f != NULL)
        fclose(f);
      mc_x509_diag diag = {0};
      if (p == NULL || mc_x509_certs_parse(&sets[num], NULL, &diag, p, len) != 0) {
        fprintf(stderr, "diff_smime_cms: cannot read %s: %s\n", a, diag.message);
        return 2;
      }
      free(p);
      certs[num] = mc_x509_certs_get(sets[num], 0);
      num++;
    }
  }
  size_t in_len;
  uint8_t *in = slurp(stdin, &in_len);
  if (mime) {
    int rc = mc_smime_mime_encrypt(certs, num, &o, in, in_len, to_stdout, NULL);
    if (rc != 0)
      fprintf(stderr, "diff_smime_cms: %s\n", mc_strerror(rc));
    for (size_t i = 0; i < num; i++)
      mc_x509_certs_free(sets[i]);
    free(in);
    return rc != 0;
  }
  size_t cap = mc_smime_encrypt_max_len(certs, num, in_len), out_len;
  uint8_t *out = cap != SIZE_MAX ? malloc(cap) : NULL;
  int rc = out != NULL ? mc_smime_encrypt(out, cap, &out_len, certs, num, &o, in, in_len) : -12;
  if (rc == 0)
    fwrite(out, 1, out_len, stdout);
  else
    fprintf(stderr, "diff_smime_cms: %s\n", mc_strerror(rc));
  for (size_t i = 0; i < num; i++)
    mc_x509_certs_free(sets[i]);
  free(in);
  free(out);
  return rc != 0;
}
