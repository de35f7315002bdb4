// fuzz_pkcs7_certs.c: PKCS#7 certificate bundles and CRLs on any bytes. The
// input is wrapped as the `certificates` of a certs-only SignedData, so
// that the fuzzer explores the bundle reader and the certificates inside at
// once; a bundle that parses must hold exactly the certificates found by
// parsing the same elements one by one. The raw input is also offered as a
// CRL to a trust store: it is accepted or refused with a documented code,
// and a certificate checked against an accepted CRL still gets a verdict.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "der_read.h"
#include "msgcrypt.h"

// DER needs minimal lengths: write the shortest form.
static size_t hdr(uint8_t *out, uint8_t tag, size_t len) {
  out[0] = tag;
  if (len < 128) {
    out[1] = (uint8_t)len;
    return 2;
  }
  size_t n = len < 256 ? 1 : len < 65536 ? 2 : len < (1u << 24) ? 3 : 4;
  out[1] = (uint8_t)(0x80 | n);
  for (size_t i = 0; i < n; i++)
    out[2 + i] = (uint8_t)(len >> (8 * (n - 1 - i)));
  return 2 + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The replay driver passes NULL for an empty input; the API refuses NULL.
  static const uint8_t empty[1];
  if (data == NULL)
    data = empty;
  if (size > (1u << 20))
    return 0;
  static const uint8_t oid_sd[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                                   0xf7, 0x0d, 0x01, 0x07, 0x02};
  static const uint8_t head[] = {0x02, 0x01, 0x01, 0x31, 0x00, 0x30, 0x0b, 0x06, 0x09,
                                 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01};
  static const uint8_t tail[] = {0x31, 0x00};
  uint8_t h1[8], h2[8], h3[8], h4[8];
  size_t certs_len = size;
  size_t l4 = hdr(h4, 0xa0, certs_len);
  size_t sd_len = sizeof head + l4 + certs_len + sizeof tail;
  size_t l3 = hdr(h3, 0x30, sd_len);
  size_t l2 = hdr(h2, 0xa0, l3 + sd_len);
  size_t ci_len = sizeof oid_sd + l2 + l3 + sd_len;
  size_t l1 = hdr(h1, 0x30, ci_len);
  size_t total = l1 + ci_len;
  uint8_t *buf = malloc(total);
  FUZZ_CHECK(buf != NULL);
  size_t o = 0;
  memcpy(buf + o, h1, l1), o += l1;
  memcpy(buf + o, oid_sd, sizeof oid_sd), o += sizeof oid_sd;
  memcpy(buf + o, h2, l2), o += l2;
  memcpy(buf + o, h3, l3), o += l3;
  memcpy(buf + o, head, sizeof head), o += sizeof head;
  memcpy(buf + o, h4, l4), o += l4;
  memcpy(buf + o, data, size), o += size;
  memcpy(buf + o, tail, sizeof tail), o += sizeof tail;
  FUZZ_CHECK(o == total);

  mc_x509_certs *bundle = NULL;
  int r = mc_x509_certs_parse(&bundle, NULL, NULL, buf, total);
  FUZZ_CHECK(r == 0 || r == MC_ERR_BAD_KEY || r == -ENOMEM);
  if (r == 0) {
    // The same elements parsed one at a time give the same certificates.
    der_cur c = der_cur_make(data, size);
    size_t k = 0;
    while (c.len > 0) {
      unsigned tag;
      der_cur whole;
      FUZZ_CHECK(der_get_any(&c, &tag, NULL, &whole));
      if (tag != DER_SEQUENCE)
        continue;
      mc_x509_certs *one = NULL;
      FUZZ_CHECK(mc_x509_certs_parse(&one, NULL, NULL, whole.p, whole.len) == 0);
      FUZZ_CHECK(k < mc_x509_certs_count(bundle));
      FUZZ_CHECK(memcmp(mc_x509_cert_fingerprint(mc_x509_certs_get(one, 0)),
                        mc_x509_cert_fingerprint(mc_x509_certs_get(bundle, k)), 32) == 0);
      mc_x509_certs_free(one);
      k++;
    }
    FUZZ_CHECK(k == mc_x509_certs_count(bundle));
  }
  mc_x509_trust *t = NULL;
  FUZZ_CHECK(mc_x509_trust_new(&t, NULL) == 0);
  mc_x509_diag diag;
  r = mc_x509_trust_add_crl(t, &diag, data, size);
  FUZZ_CHECK(r == 0 || r == MC_ERR_BAD_KEY || r == -ENOMEM);
  if (r == 0 && bundle != NULL) {
    mc_x509_result res;
    FUZZ_CHECK(mc_x509_cert_verify(t, &res, mc_x509_certs_get(bundle, 0), bundle, 0) == 0);
    FUZZ_CHECK(res.verdict != MC_X509_OK);
  }
  mc_x509_trust_free(t);
  mc_x509_certs_free(bundle);
  free(buf);
  return 0;
}
