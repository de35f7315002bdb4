// test_smime_cms.c: the CMS encryption engine (der_write.c,
// cms_recipient_info.c, cms_encrypt.c). The DER builder is checked against
// hand-encoded X.690 examples; the RFC 9936 example (ML-KEM-512,
// ../shared/vectors/rfc9936-cms-kyber) is reproduced step by step (shared
// secret by decapsulation with the example's private key, KEK, wrapped CEK)
// and then as the whole AuthEnvelopedData, byte for byte, with the
// example's encapsulation, CEK and nonce fed through the derandomised entry
// point; RSA messages to an openssl-made certificate are read back with
// the DER reader; argument and key errors come last. Decryption by
// independent tools is in diff_smime_cms.py.
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cms_internal.h"
#include "der_read.h"
#include "msgcrypt.h"
#include "testutil.h"
#include "x509_internal.h"

static char tmp_dir[64];

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  uint8_t *p = malloc(1 << 20);
  ck_assert_ptr_nonnull(p);
  *len = fread(p, 1, 1 << 20, f);
  fclose(f);
  return p;
}

static const char *vec_dir(void) {
  const char *d = getenv("CORVID_VECTORS");
  return d != NULL ? d : "../shared/vectors";
}

static uint8_t *read_vec(const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/rfc9936-cms-kyber/%s", vec_dir(), name);
  return read_file(path, len);
}

// read_hex reads a hex file of the example, ignoring line breaks.
static uint8_t *read_hex(const char *name, size_t *len) {
  size_t n;
  uint8_t *raw = read_vec(name, &n);
  char *s = malloc(n + 1);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (isxdigit(raw[i]))
      s[k++] = (char)raw[i];
  s[k] = 0;
  uint8_t *out = mc_test_unhex(s, len);
  ck_assert_ptr_nonnull(out);
  free(s);
  free(raw);
  return out;
}

// unpem decodes the Base64 between the first BEGIN and END lines.
static uint8_t *unpem(const uint8_t *in, size_t in_len, size_t *out_len) {
  const char *alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint8_t *out = malloc(in_len);
  size_t i = 0, o = 0;
  while (i < in_len && in[i] != '\n')
    i++;
  uint32_t acc = 0;
  int bits = 0;
  for (; i < in_len && in[i] != '-'; i++) {
    const char *q = in[i] ? strchr(alpha, in[i]) : NULL;
    if (q == NULL)
      continue;
    acc = acc << 6 | (uint32_t)(q - alpha);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  *out_len = o;
  return out;
}

static void check_dw(const dw *w, const char *hex) {
  size_t n;
  uint8_t *want = mc_test_unhex(hex, &n);
  ck_assert(dw_ok(w));
  ck_assert_uint_eq(w->len, n);
  ck_assert_mem_eq(w->buf, want, n);
  free(want);
}

START_TEST(der_writer_lengths_and_integers) {
  dw w;
  dw_init_growable(&w, 1);
  dw_uint(&w, 0);
  dw_uint(&w, 127);
  dw_uint(&w, 128);
  dw_uint(&w, 256);
  dw_null(&w);
  check_dw(&w, "020100"
               "02017f"
               "02020080"
               "02020100"
               "0500");
  dw_cleanup(&w);

  // Lengths 127, 128, 255, 256 and 65536 in their minimal forms.
  static const size_t lens[] = {0, 127, 128, 255, 256, 65535, 65536};
  static const char *heads[] = {"0400",     "047f",     "048180",    "0481ff",
                                "04820100", "0482ffff", "0483010000"};
  uint8_t *zeros = calloc(1, 65536);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    dw_init_growable(&w, 16);
    size_t m = dw_open(&w, 0x04);
    dw_bytes(&w, zeros, lens[i]);
    dw_close(&w, m);
    size_t hl;
    uint8_t *h = mc_test_unhex(heads[i], &hl);
    ck_assert(dw_ok(&w));
    ck_assert_uint_eq(hl, dw_header_len(lens[i]));
    ck_assert_uint_eq(w.len, hl + lens[i]);
    ck_assert_mem_eq(w.buf, h, hl);
    // The same element written with a known length is identical.
    dw w2;
    dw_init_growable(&w2, 0);
    dw_element(&w2, 0x04, zeros, lens[i]);
    ck_assert_uint_eq(w2.len, w.len);
    ck_assert_mem_eq(w2.buf, w.buf, w.len);
    dw_cleanup(&w2);
    free(h);
    dw_cleanup(&w);
  }
  free(zeros);
}
END_TEST

START_TEST(der_writer_fixed_mode_and_sticky_error) {
  uint8_t buf[8];
  dw w;
  dw_init_fixed(&w, buf, sizeof buf);
  size_t m = dw_open(&w, 0x30);
  dw_uint(&w, 5);
  dw_close(&w, m);
  check_dw(&w, "3003020105");
  dw_uint(&w, 0x123456); // 5 bytes: no room for all of them
  ck_assert(!dw_ok(&w));
  ck_assert_int_eq(w.err, DW_ERR_NO_ROOM);
  size_t before = w.len;
  dw_null(&w); // fits, but the error sticks and nothing more is written
  ck_assert_uint_eq(w.len, before);
  ck_assert_ptr_null(dw_reserve(&w, 1));

  // A length that needs a second byte moves the contents, which must fit.
  uint8_t small[130];
  dw_init_fixed(&w, small, sizeof small);
  m = dw_open(&w, 0x30);
  ck_assert_ptr_nonnull(dw_reserve(&w, 128));
  dw_close(&w, m);
  ck_assert_int_eq(w.err, DW_ERR_NO_ROOM);
  dw_init_fixed(&w, small, sizeof small);
  dw_header(&w, 0x1f, 0); // high tag numbers are not written
  ck_assert_int_eq(w.err, DW_ERR_MISUSE);
  dw_init_fixed(&w, small, sizeof small);
  dw_close(&w, 0); // nothing open
  ck_assert_int_eq(w.err, DW_ERR_MISUSE);
}
END_TEST

START_TEST(der_writer_set_of_is_sorted) {
  dw w;
  dw_init_growable(&w, 0);
  size_t m = dw_open(&w, 0x31);
  dw_uint(&w, 0x300);
  dw_uint(&w, 2);
  dw_null(&w);
  dw_uint(&w, 1);
  dw_close_set_of(&w, m);
  // 0500 < 020101 < 020102 < 02020300 by octets.
  check_dw(&w, "310c"
               "020101"
               "020102"
               "02020300"
               "0500");
  dw_cleanup(&w);
}
END_TEST

// The RFC 9936 §... example: Alice encrypts "Hello, world!" to Bob's
// ML-KEM-512 certificate with AES-128-GCM, HKDF-SHA256, AES-128 wrap.
START_TEST(rfc9936_example_steps) {
  size_t ct_len, ss_len, kek_len, ek_len, cek_len, info_len, seed_len;
  uint8_t *ct = read_hex("ciphertext.txt", &ct_len);
  uint8_t *ss = read_hex("shared_secret.txt", &ss_len);
  uint8_t *kek_want = read_hex("kek.txt", &kek_len);
  uint8_t *ek_want = read_hex("encrypted_cek.txt", &ek_len);
  uint8_t *cek = read_hex("cek.txt", &cek_len);
  uint8_t *info_want = read_hex("ori_info.txt", &info_len);
  ck_assert_uint_eq(ct_len, MC_MLKEM512_CIPHERTEXT_LEN);
  ck_assert_uint_eq(ss_len, 32);

  // Bob's private key is the seed form 00 01 .. 3f (ML-KEM-512-seed.priv).
  size_t pem_len, der_len;
  uint8_t *pem = read_vec("ML-KEM-512-seed.priv", &pem_len);
  uint8_t *der = unpem(pem, pem_len, &der_len);
  ck_assert_uint_ge(der_len, 64);
  const uint8_t *seed = der + der_len - 64;
  seed_len = 64;
  for (size_t i = 0; i < 64; i++)
    ck_assert_uint_eq(seed[i], i);
  uint8_t pk[MC_MLKEM512_PUBLIC_KEY_LEN], sk[MC_MLKEM512_PRIVATE_KEY_LEN], got_ss[32];
  ck_assert_int_eq(
      mc_mlkem_keygen_from_seed(MC_MLKEM_512, pk, sizeof pk, sk, sizeof sk, seed, seed_len), 0);
  ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_512, got_ss, sk, sizeof sk, ct, ct_len), 0);
  ck_assert_mem_eq(got_ss, ss, 32);

  static const uint8_t aes128_wrap[9] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x05};
  uint8_t kek[16], info[64], ek[40];
  size_t got_info_len = 0, got_ek_len = 0;
  ck_assert_int_eq(cms_kemri_kek(kek, 16, info, &got_info_len, aes128_wrap, 9, ss), 0);
  ck_assert_uint_eq(got_info_len, info_len);
  ck_assert_mem_eq(info, info_want, info_len);
  ck_assert_uint_eq(kek_len, 16);
  ck_assert_mem_eq(kek, kek_want, 16);
  ck_assert_int_eq(mc_aes_kw_wrap(ek, sizeof ek, &got_ek_len, kek, 16, cek, cek_len), 0);
  ck_assert_uint_eq(got_ek_len, ek_len);
  ck_assert_mem_eq(ek, ek_want, ek_len);

  // The certificate's key is the one the seed expands to.
  size_t cert_len;
  uint8_t *cert_pem = read_vec("ML-KEM-512.pem", &cert_len);
  mc_x509_certs *certs = NULL;
  ck_assert_int_eq(mc_x509_certs_parse(&certs, NULL, NULL, cert_pem, cert_len), 0);
  cms_recipient r;
  ck_assert_int_eq(x509_cert_recipient(&r, mc_x509_certs_get(certs, 0)), 0);
  ck_assert_int_eq(r.type, CMS_KEY_MLKEM512);
  ck_assert_uint_eq(r.pub_len, sizeof pk);
  ck_assert_mem_eq(r.pub, pk, sizeof pk);
  mc_x509_certs_free(certs);
  free(cert_pem);
  free(ct), free(ss), free(kek_want), free(ek_want), free(cek), free(info_want), free(pem),
      free(der);
}
END_TEST

START_TEST(rfc9936_example_whole_message) {
  size_t ct_len, ss_len, cek_len, want_pem_len, want_len, cert_len;
  uint8_t *ct = read_hex("ciphertext.txt", &ct_len);
  uint8_t *ss = read_hex("shared_secret.txt", &ss_len);
  uint8_t *cek = read_hex("cek.txt", &cek_len);
  uint8_t *want_pem = read_vec("ML-KEM-512.cms", &want_pem_len);
  uint8_t *want = unpem(want_pem, want_pem_len, &want_len);
  uint8_t *cert_pem = read_vec("ML-KEM-512.pem", &cert_len);
  mc_x509_certs *certs = NULL;
  ck_assert_int_eq(mc_x509_certs_parse(&certs, NULL, NULL, cert_pem, cert_len), 0);
  cms_recipient r;
  ck_assert_int_eq(x509_cert_recipient(&r, mc_x509_certs_get(certs, 0)), 0);
  size_t keyid_len;
  uint8_t *keyid = read_hex("ML-KEM-512.keyid", &keyid_len);
  ck_assert_uint_eq(r.ski_len, keyid_len);
  ck_assert_mem_eq(r.ski, keyid, keyid_len);

  // The nonce is the one in the example's GCMParameters.
  static const uint8_t nonce[12] = {0x5c, 0xa5, 0x74, 0x68, 0xb8, 0x1b,
                                    0xf0, 0x3b, 0x8d, 0xa7, 0x18, 0x6c};
  cms_kem_fixed kem = {ct, ct_len, ss};
  cms_derand d = {cek, nonce, &kem};
  cms_params p;
  ck_assert_int_eq(cms_params_resolve(&p, NULL, &r, 1), 0);
  ck_assert_uint_eq(p.content, MC_SMIME_CONTENT_AES256_GCM);
  p.cek_len = 16; // the example uses AES-128-GCM
  static const uint8_t msg[] = "Hello, world!";
  dw w;
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, &d, msg, 13), 0);
  ck_assert_uint_eq(w.len, want_len);
  ck_assert_mem_eq(w.buf, want, want_len);
  ck_assert_uint_le(w.len, cms_encrypt_max_len(&r, 1, 13));
  dw_cleanup(&w);

  // A fresh encapsulation to the same certificate through the public API
  // has the same shape: the example's length plus the 16 more key bytes
  // that AES-256 wraps, and the same content type.
  const mc_x509_cert *c = mc_x509_certs_get(certs, 0);
  size_t cap = mc_smime_encrypt_max_len(&c, 1, 13), out_len;
  uint8_t *out = malloc(cap);
  ck_assert_int_eq(mc_smime_encrypt(out, cap, &out_len, &c, 1, NULL, msg, 13), 0);
  ck_assert_uint_eq(out_len, want_len + 16); // AES-256: 16 more key bytes wrapped
  ck_assert_mem_eq(out + 4, want + 4, 13);
  free(out);
  mc_x509_certs_free(certs);
  free(ct), free(ss), free(cek), free(want_pem), free(want), free(cert_pem), free(keyid);
}
END_TEST

// make_rsa_cert has openssl create an RSA-2048 certificate (with a subject
// key identifier, as openssl adds by default) and parses it.
static mc_x509_certs *make_rsa_cert(void) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "openssl req -x509 -newkey rsa:2048 -nodes -keyout %s/k.pem -out %s/c.pem "
           "-subj /CN=bob -days 2 -set_serial 0x80ff >/dev/null 2>&1",
           tmp_dir, tmp_dir);
  ck_assert_int_eq(system(cmd), 0);
  char path[256];
  snprintf(path, sizeof path, "%s/c.pem", tmp_dir);
  size_t len;
  uint8_t *pem = read_file(path, &len);
  mc_x509_certs *certs = NULL;
  ck_assert_int_eq(mc_x509_certs_parse(&certs, NULL, NULL, pem, len), 0);
  free(pem);
  return certs;
}

START_TEST(rsa_structure_read_back) {
  mc_x509_certs *certs = make_rsa_cert();
  const mc_x509_cert *c = mc_x509_certs_get(certs, 0);
  cms_recipient r;
  ck_assert_int_eq(x509_cert_recipient(&r, c), 0);
  static const uint8_t msg[] = "0123456789abcdef"; // 16 bytes: a whole padding block
  for (int oaep = 0; oaep < 2; oaep++) {
    for (int ski = 0; ski < 2; ski++) {
      mc_smime_encrypt_options o = MC_SMIME_ENCRYPT_OPTIONS_INIT;
      o.rsa = oaep ? MC_SMIME_RSA_OAEP_SHA256 : MC_SMIME_RSA_PKCS1;
      o.rid = ski ? MC_SMIME_RID_SKI : MC_SMIME_RID_AUTO;
      size_t cap = mc_smime_encrypt_max_len(&c, 1, 16), len;
      uint8_t *out = malloc(cap);
      ck_assert_int_eq(mc_smime_encrypt(out, cap, &len, &c, 1, &o, msg, 16), 0);
      der_cur top = der_cur_make(out, len), ci, oid, ex, ed, set, ktri, rid, alg, ek, eci;
      uint32_t v;
      ck_assert(der_get(&top, DER_SEQUENCE, &ci) && top.len == 0);
      ck_assert(der_get_oid(&ci, &oid) && oid.len == 9 &&
                memcmp(oid.p, cms_oid_enveloped_data, 9) == 0);
      ck_assert(der_get(&ci, 0xa0, &ex) && der_get(&ex, DER_SEQUENCE, &ed) && ex.len == 0);
      ck_assert(der_get_small_uint(&ed, &v));
      ck_assert_uint_eq(v, ski ? 2 : 0);
      ck_assert(der_get(&ed, DER_SET, &set) && der_get(&set, DER_SEQUENCE, &ktri) && set.len == 0);
      ck_assert(der_get_small_uint(&ktri, &v));
      ck_assert_uint_eq(v, ski ? 2 : 0);
      if (ski) {
        ck_assert(der_get(&ktri, 0x80, &rid));
        ck_assert_uint_eq(rid.len, r.ski_len);
        ck_assert_mem_eq(rid.p, r.ski, r.ski_len);
      } else {
        der_cur issuer, serial;
        ck_assert(der_get(&ktri, DER_SEQUENCE, &rid));
        ck_assert(der_get_any(&rid, NULL, &issuer, &issuer));
        ck_assert_uint_eq(issuer.len, r.issuer_der_len);
        ck_assert_mem_eq(issuer.p, r.issuer_der, r.issuer_der_len);
        ck_assert(der_get(&rid, DER_INTEGER, &serial) && rid.len == 0);
        ck_assert_uint_eq(serial.len, 3); // 0x80ff needs its sign byte
        ck_assert_mem_eq(serial.p, "\x00\x80\xff", 3);
      }
      ck_assert(der_get(&ktri, DER_SEQUENCE, &alg) && der_get_oid(&alg, &oid));
      ck_assert_uint_eq(oid.p[8], oaep ? 7 : 1);
      ck_assert(der_get(&ktri, DER_OCTET_STRING, &ek) && ktri.len == 0);
      ck_assert_uint_eq(ek.len, 256);
      ck_assert(der_get(&ed, DER_SEQUENCE, &eci) && ed.len == 0);
      ck_assert(der_get_oid(&eci, &oid) && der_get(&eci, DER_SEQUENCE, &alg));
      der_cur ct, iv;
      ck_assert(der_get_oid(&alg, &oid) && memcmp(oid.p, cms_oid_aes256_cbc, 9) == 0);
      ck_assert(der_get(&alg, DER_OCTET_STRING, &iv) && iv.len == 16 && alg.len == 0);
      ck_assert(der_get(&eci, 0x80, &ct) && eci.len == 0);
      ck_assert_uint_eq(ct.len, 32);
      free(out);
    }
  }
  mc_x509_certs_free(certs);
}
END_TEST

START_TEST(errors) {
  mc_x509_certs *certs = make_rsa_cert();
  const mc_x509_cert *c = mc_x509_certs_get(certs, 0);
  uint8_t out[4096];
  size_t len = 99;
  mc_smime_encrypt_options o = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  ck_assert_int_eq(mc_smime_encrypt(out, sizeof out, &len, &c, 0, NULL, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(mc_smime_encrypt(NULL, sizeof out, &len, &c, 1, NULL, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_smime_encrypt(out, sizeof out, &len, &c, 1, NULL, NULL, 5),
                   MC_ERR_INVALID_ARGUMENT);
  o.version = 2;
  ck_assert_int_eq(mc_smime_encrypt(out, sizeof out, &len, &c, 1, &o, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  o.version = MC_SMIME_ENCRYPT_OPTIONS_VERSION;
  o.content = 3;
  ck_assert_int_eq(mc_smime_encrypt(out, sizeof out, &len, &c, 1, &o, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  // Every output capacity below the needed length fails cleanly.
  size_t need;
  ck_assert_int_eq(mc_smime_encrypt(out, sizeof out, &need, &c, 1, NULL, NULL, 0), 0);
  for (size_t cap = 0; cap < need; cap += 7) {
    ck_assert_int_eq(mc_smime_encrypt(out, cap, &len, &c, 1, NULL, NULL, 0),
                     MC_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(len, 0);
  }
  ck_assert_int_eq(mc_smime_encrypt(out, need, &len, &c, 1, NULL, NULL, 0), 0);

  // A recipient without a subject key identifier cannot be named by one;
  // a tiny RSA modulus, unusable key material and a key type without a
  // RecipientInfo are refused.
  cms_recipient r;
  ck_assert_int_eq(x509_cert_recipient(&r, c), 0);
  cms_params p = {.content = MC_SMIME_CONTENT_AES256_CBC, .rid = MC_SMIME_RID_SKI, .cek_len = 32};
  r.ski = NULL;
  r.ski_len = 0;
  dw w;
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, NULL, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  dw_cleanup(&w);
  ck_assert_int_eq(x509_cert_recipient(&r, c), 0);
  r.rsa_n_len = 32;
  p.rid = 0;
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, NULL, NULL, 0), MC_ERR_BAD_KEY);
  dw_cleanup(&w);
  r.type = (cms_key_type)0;
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, NULL, NULL, 0), MC_ERR_UNSUPPORTED);
  dw_cleanup(&w);
  r.type = CMS_KEY_X448; // an RSA recipient's fields: no 56-byte key
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, NULL, NULL, 0), MC_ERR_BAD_KEY);
  dw_cleanup(&w);
  r.type = CMS_KEY_MLKEM768;
  r.pub_len = 5;
  dw_init_growable(&w, 0);
  ck_assert_int_eq(cms_encrypt_recipients(&w, &r, 1, &p, NULL, NULL, 0), MC_ERR_BAD_KEY);
  dw_cleanup(&w);
  mc_x509_certs_free(certs);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("smime_cms");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, der_writer_lengths_and_integers);
  tcase_add_test(tc, der_writer_fixed_mode_and_sticky_error);
  tcase_add_test(tc, der_writer_set_of_is_sorted);
  tcase_add_test(tc, rfc9936_example_steps);
  tcase_add_test(tc, rfc9936_example_whole_message);
  tcase_add_test(tc, rsa_structure_read_back);
  tcase_add_test(tc, errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  snprintf(tmp_dir, sizeof tmp_dir, "/tmp/smime-cms-test-XXXXXX");
  if (mkdtemp(tmp_dir) == NULL) {
    printf("Bail out! no temporary directory\n");
    return 1;
  }
  SRunner *sr = srunner_create(suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_dir);
  if (system(cmd) != 0)
    failed++;
  return failed == 0 ? 0 : 1;
}
