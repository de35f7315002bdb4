// fuzz_x509.c: certificate import (mc_x509_certs_parse) on any bytes, DER or
// PEM. Either it fails with a documented code, no set and a NUL-terminated
// message, or every certificate is consistent: its DER lies inside the set
// and hashes to its fingerprint, re-parsing that DER alone gives the same
// certificate, names and descriptions fit their buffers, the CMS recipient
// borrows only from the certificate, and validation against the set
// itself (as anchors and as intermediates) returns a known verdict within
// its limits.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "msgcrypt.h"
#include "x509_internal.h"

static int inside(const uint8_t *p, size_t n, const uint8_t *base, size_t len) {
  return n == 0 || (p >= base && p + n <= base + len);
}

static void check_cert(const mc_x509_cert *c, const mc_x509_certs *set, int64_t now) {
  size_t len, n;
  const uint8_t *der = mc_x509_cert_der(c, &len);
  uint8_t digest[32];
  FUZZ_CHECK(mc_digest(MC_HASH_SHA256, digest, sizeof digest, &n, der, len) == 0);
  FUZZ_CHECK(memcmp(digest, mc_x509_cert_fingerprint(c), 32) == 0);
  mc_x509_certs *again = NULL;
  FUZZ_CHECK(mc_x509_certs_parse(&again, NULL, NULL, der, len) == 0);
  FUZZ_CHECK(mc_x509_certs_count(again) == 1);
  FUZZ_CHECK(memcmp(mc_x509_cert_fingerprint(mc_x509_certs_get(again, 0)), digest, 32) == 0);
  mc_x509_certs_free(again);
  char text[512];
  int r = mc_x509_cert_subject(c, text, sizeof text, &n);
  FUZZ_CHECK(r == 0 || r == MC_ERR_BUFFER_TOO_SMALL || r == MC_ERR_BAD_KEY);
  if (r == 0)
    FUZZ_CHECK(strlen(text) == n);
  r = mc_x509_cert_issuer(c, text, sizeof text, &n);
  FUZZ_CHECK(r == 0 || r == MC_ERR_BUFFER_TOO_SMALL || r == MC_ERR_BAD_KEY);
  FUZZ_CHECK(mc_x509_cert_describe(c, text, sizeof text, &n) == 0 && strlen(text) == n);
  FUZZ_CHECK(mc_x509_cert_fingerprint_hex(c, text, sizeof text) == 0 && strlen(text) == 95);
  for (size_t i = 0; i < mc_x509_cert_num_addresses(c); i++) {
    const char *a = mc_x509_cert_address(c, i, &n);
    FUZZ_CHECK(a != NULL && n > 0 && inside((const uint8_t *)a, n, der, len));
  }
  const uint8_t *serial = mc_x509_cert_serial(c, &n);
  FUZZ_CHECK(n > 0 && inside(serial, n, der, len));
  cms_recipient rc;
  if (x509_cert_recipient(&rc, c) == 0) {
    FUZZ_CHECK(mc_x509_cert_can_encrypt(c) == 1);
    FUZZ_CHECK(inside(rc.issuer_der, rc.issuer_der_len, der, len));
    FUZZ_CHECK(inside(rc.serial, rc.serial_len, der, len));
    FUZZ_CHECK(inside(rc.ski, rc.ski_len, der, len));
    FUZZ_CHECK(inside(rc.pub, rc.pub_len, der, len));
    FUZZ_CHECK(inside(rc.rsa_n, rc.rsa_n_len, der, len));
    FUZZ_CHECK(rc.type != CMS_KEY_RSA || (rc.rsa_n_len > 0 && rc.rsa_e_len > 0));
  }
  mc_x509_result res;
  FUZZ_CHECK(mc_x509_cert_verify(NULL, &res, c, set, now) == 0);
  FUZZ_CHECK(res.verdict != MC_X509_OK && res.anchor == NULL);
  FUZZ_CHECK(res.problems & ((1u << MC_X509_UNTRUSTED) | (1u << MC_X509_SELF_SIGNED)));
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t nw;
  const char *addr = "a@example.org";
  FUZZ_CHECK(mc_x509_cert_warnings(c, w, MC_PGP_MAX_WARNINGS, &nw, NULL, set, now, &addr, 1) == 0);
  FUZZ_CHECK(nw <= MC_PGP_MAX_WARNINGS);
  for (size_t i = 0; i < nw; i++)
    FUZZ_CHECK(strcmp(w[i].name, "unknown") != 0 && strlen(w[i].text) < sizeof w[i].text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The replay driver passes NULL for an empty input; the API refuses NULL.
  static const uint8_t empty[1];
  if (data == NULL)
    data = empty;
  // The first 4 bytes pick the validation time (seconds since 2000 + 0..2^32).
  int64_t now = 946684800;
  if (size >= 4) {
    now += (int64_t)((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | data[2] << 8 | data[3]);
  }
  mc_x509_certs *set = NULL;
  mc_x509_diag diag;
  memset(&diag, 0xaa, sizeof diag);
  int r = mc_x509_certs_parse(&set, NULL, &diag, data, size);
  if (r != 0) {
    FUZZ_CHECK(set == NULL);
    FUZZ_CHECK(r == MC_ERR_BAD_KEY || r == -ENOMEM);
    FUZZ_CHECK(memchr(diag.message, '\0', sizeof diag.message) != NULL);
    return 0;
  }
  size_t count = mc_x509_certs_count(set);
  FUZZ_CHECK(count >= 1 && count <= MC_X509_DEFAULT_MAX_CERTS);
  for (size_t i = 0; i < count && i < 8; i++)
    check_cert(mc_x509_certs_get(set, i), set, now);
  // The set as its own trust store: any verdict, but a known one, and an
  // anchor that belongs to the store.
  mc_x509_trust *t = NULL;
  FUZZ_CHECK(mc_x509_trust_new(&t, NULL) == 0);
  if (mc_x509_trust_add_anchors(t, NULL, data, size) == 0) {
    FUZZ_CHECK(mc_x509_trust_num_anchors(t) >= 1 && mc_x509_trust_num_anchors(t) <= count);
    for (size_t i = 0; i < count && i < 8; i++) {
      mc_x509_result res;
      FUZZ_CHECK(mc_x509_cert_verify(t, &res, mc_x509_certs_get(set, i), set, now) == 0);
      FUZZ_CHECK(strcmp(mc_x509_verdict_name(res.verdict), "unknown") != 0);
      FUZZ_CHECK(res.chain_len <= MC_X509_DEFAULT_MAX_CHAIN_LEN);
      // Each certificate is itself an anchor, so it is trusted as it stands.
      FUZZ_CHECK(res.anchor != NULL && res.chain_len == 1);
      FUZZ_CHECK(!(res.problems & ((1u << MC_X509_UNTRUSTED) | (1u << MC_X509_SELF_SIGNED))));
    }
  }
  mc_x509_trust_free(t);
  mc_x509_certs_free(set);
  return 0;
}
