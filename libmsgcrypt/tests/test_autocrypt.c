// test_autocrypt.c: the Autocrypt Level 1 header reader. Syntax cases
// written from the specification (attribute order, folding, critical and
// non-critical attributes, prefer-encrypt values, duplicates, limits), then
// real headers made by Sequoia's `sq autocrypt encode-sender` for keys `sq
// key generate` makes during the test (Curve25519 and RSA-3072): the
// decoded keydata must equal what `sq autocrypt decode` reads from the same
// header in a message, its fingerprint that of the generated certificate,
// and the key check must accept it for its address and refuse it for
// another.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "msgcrypt.h"

static uint8_t key[1 << 16];

static int parse(mc_autocrypt_header *h, const char *in) {
  return mc_autocrypt_parse(h, key, sizeof key, NULL, in, strlen(in));
}

START_TEST(syntax_ok) {
  mc_autocrypt_header h;
  // "AAEC" is the Base64 of 00 01 02.
  ck_assert_int_eq(parse(&h, "addr=alice@autocrypt.example; prefer-encrypt=mutual; keydata=AAEC"),
                   0);
  ck_assert_str_eq(h.addr, "alice@autocrypt.example");
  ck_assert_uint_eq(h.addr_len, 23);
  ck_assert_int_eq(h.prefer_encrypt, MC_AUTOCRYPT_PREFER_MUTUAL);
  ck_assert_uint_eq(h.keydata_len, 3);
  ck_assert_mem_eq(key, "\x00\x01\x02", 3);
  // Any order, folded keydata, a trailing ';', non-critical attributes.
  ck_assert_int_eq(parse(&h, "keydata=\r\n AA\r\n\tEC ;_x-extra=1;\r\n addr = Bob@Example.org ;"),
                   0);
  ck_assert_str_eq(h.addr, "Bob@Example.org");
  ck_assert_int_eq(h.prefer_encrypt, MC_AUTOCRYPT_PREFER_NOPREFERENCE);
  ck_assert_uint_eq(h.keydata_len, 3);
  // prefer-encrypt values other than "mutual" mean no preference.
  ck_assert_int_eq(parse(&h, "addr=a@b; prefer-encrypt=nopreference; keydata=AAEC"), 0);
  ck_assert_int_eq(h.prefer_encrypt, MC_AUTOCRYPT_PREFER_NOPREFERENCE);
  ck_assert_int_eq(parse(&h, "addr=a@b; prefer-encrypt=yes-please; keydata=AAEC"), 0);
  ck_assert_int_eq(h.prefer_encrypt, MC_AUTOCRYPT_PREFER_NOPREFERENCE);
}
END_TEST

START_TEST(syntax_refused) {
  static const struct {
    const char *in;
    int ret;
  } cases[] = {
      {"addr=a@b; type=1; keydata=AAEC", MC_ERR_UNSUPPORTED},  // critical, unknown
      {"addr=a@b; x-new=1; keydata=AAEC", MC_ERR_UNSUPPORTED}, // critical, unknown
      {"addr=a@b", MC_ERR_INVALID_ARGUMENT},                   // no keydata
      {"keydata=AAEC", MC_ERR_INVALID_ARGUMENT},               // no addr
      {"addr=a@b; addr=c@d; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=a@b; keydata=AAEC; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=a@b; prefer-encrypt=mutual; prefer-encrypt=mutual; keydata=AAEC",
       MC_ERR_INVALID_ARGUMENT},
      {"addr=a@b; keydata", MC_ERR_INVALID_ARGUMENT},          // no '='
      {"addr=a@b; =x; keydata=AAEC", MC_ERR_INVALID_ARGUMENT}, // no name
      {"addr=Juliet <j@example.org>; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=ab; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=@b; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=a@; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=a@b@c; keydata=AAEC", MC_ERR_INVALID_ARGUMENT},
      {"addr=a@b; keydata=", MC_ERR_BAD_KEY},
      {"addr=a@b; keydata=AA*C", MC_ERR_BAD_KEY},
      {"addr=a@b; keydata=AAE", MC_ERR_BAD_KEY},
      {"", MC_ERR_INVALID_ARGUMENT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mc_autocrypt_header h;
    memset(&h, 0x55, sizeof h);
    ck_assert_msg(parse(&h, cases[i].in) == cases[i].ret, "case %zu: %s", i, cases[i].in);
    ck_assert_uint_eq(h.addr_len, 0);
    ck_assert_uint_eq(h.keydata_len, 0);
  }
}
END_TEST

START_TEST(limits) {
  mc_autocrypt_header h;
  mc_autocrypt_settings s = MC_AUTOCRYPT_SETTINGS_INIT;
  const char *in = "addr=a@b; keydata=AAECAwQF"; // 6 bytes of keydata
  s.max_keydata_len = 6;
  ck_assert_int_eq(mc_autocrypt_parse(&h, key, sizeof key, &s, in, strlen(in)), 0);
  s.max_keydata_len = 5;
  ck_assert_int_eq(mc_autocrypt_parse(&h, key, sizeof key, &s, in, strlen(in)),
                   MC_ERR_INVALID_ARGUMENT);
  s.max_keydata_len = 0;
  s.max_header_len = strlen(in) - 1;
  ck_assert_int_eq(mc_autocrypt_parse(&h, key, sizeof key, &s, in, strlen(in)),
                   MC_ERR_INVALID_ARGUMENT);
  s.version = 2;
  ck_assert_int_eq(mc_autocrypt_parse(&h, key, sizeof key, &s, in, strlen(in)),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_autocrypt_parse(&h, key, 5, NULL, in, strlen(in)), MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_autocrypt_parse(NULL, key, 5, NULL, in, strlen(in)), MC_ERR_INVALID_ARGUMENT);
  // An address of MC_AUTOCRYPT_MAX_ADDR_LEN bytes passes, one more does not.
  char big[512];
  for (size_t extra = 0; extra < 2; extra++) {
    size_t local = MC_AUTOCRYPT_MAX_ADDR_LEN - 2 + extra;
    memcpy(big, "addr=", 5);
    memset(big + 5, 'x', local);
    memcpy(big + 5 + local, "@y; keydata=AAEC", 17);
    ck_assert_int_eq(parse(&h, big), extra == 0 ? 0 : MC_ERR_INVALID_ARGUMENT);
  }
  // The key check refuses what is not one binary certificate.
  mc_pgp_certs *certs = (mc_pgp_certs *)1;
  ck_assert_int_eq(parse(&h, "addr=a@b; keydata=AAEC"), 0);
  ck_assert_int_eq(mc_autocrypt_key_check(&certs, &h, key, h.keydata_len, 0), MC_ERR_BAD_KEY);
  ck_assert_ptr_null(certs);
  ck_assert_int_eq(mc_autocrypt_key_check(&certs, &h, key, 0, 0), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

// run_capture runs the shell command `cmd` and returns its output in a
// malloc'd buffer (length in `*len`), or NULL when it fails.
static uint8_t *run_capture(const char *cmd, size_t *len) {
  FILE *p = popen(cmd, "r");
  if (p == NULL)
    return NULL;
  size_t cap = 1 << 20, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf != NULL && (r = fread(buf + n, 1, cap - n, p)) > 0)
    n += r;
  int st = pclose(p);
  if (buf == NULL || st != 0 || n == cap) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

START_TEST(sequoia_headers) {
  char dir[] = "/tmp/test_autocrypt.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char *suites[] = {"cv25519", "rsa3k"};
  static const char *prefs[] = {"mutual", "nopreference"};
  char cmd[1024];
  for (size_t i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd,
             "sq key generate --cipher-suite %s --userid 'Juliet <juliet@example.org>' "
             "--export %s/k%zu && sq key extract-cert %s/k%zu > %s/c%zu",
             suites[i], dir, i, dir, i, dir, i);
    ck_assert_int_eq(system(cmd), 0);
    size_t hlen = 0, blen = 0;
    snprintf(cmd, sizeof cmd,
             "sq autocrypt encode-sender --email juliet@example.org --prefer-encrypt %s %s/c%zu",
             prefs[i], dir, i);
    uint8_t *hdr = run_capture(cmd, &hlen);
    // sq's own reading of the header, from a message that carries it.
    snprintf(cmd, sizeof cmd,
             "(printf 'From: juliet@example.org\\n'; sq autocrypt encode-sender --email "
             "juliet@example.org --prefer-encrypt %s %s/c%zu; printf '\\nbody\\n') > %s/m%zu "
             "&& sq autocrypt decode %s/m%zu | sq dearmor",
             prefs[i], dir, i, dir, i, dir, i);
    uint8_t *bin = run_capture(cmd, &blen);
    ck_assert_ptr_nonnull(hdr);
    ck_assert_ptr_nonnull(bin);
    ck_assert_uint_gt(hlen, 11);
    ck_assert_mem_eq(hdr, "Autocrypt: ", 11);
    mc_autocrypt_header h;
    ck_assert_int_eq(
        mc_autocrypt_parse(&h, key, sizeof key, NULL, (const char *)hdr + 11, hlen - 11), 0);
    ck_assert_str_eq(h.addr, "juliet@example.org");
    ck_assert_int_eq(h.prefer_encrypt,
                     i == 0 ? MC_AUTOCRYPT_PREFER_MUTUAL : MC_AUTOCRYPT_PREFER_NOPREFERENCE);
    ck_assert_uint_eq(h.keydata_len, blen);
    ck_assert_mem_eq(key, bin, blen);
    mc_pgp_certs *certs = NULL;
    ck_assert_int_eq(mc_autocrypt_key_check(&certs, &h, key, h.keydata_len, time(NULL)), 0);
    ck_assert_uint_eq(mc_pgp_certs_count(certs), 1);
    size_t full_len = 0;
    snprintf(cmd, sizeof cmd, "sq dearmor %s/c%zu", dir, i);
    uint8_t *full = run_capture(cmd, &full_len);
    ck_assert_ptr_nonnull(full);
    mc_pgp_certs *fc = NULL;
    ck_assert_int_eq(mc_pgp_certs_parse(&fc, NULL, NULL, full, full_len, time(NULL)), 0);
    size_t fl1 = 0, fl2 = 0;
    const uint8_t *f1 = mc_pgp_cert_fingerprint(mc_pgp_certs_get(certs, 0), &fl1);
    const uint8_t *f2 = mc_pgp_cert_fingerprint(mc_pgp_certs_get(fc, 0), &fl2);
    ck_assert_uint_eq(fl1, fl2);
    ck_assert_mem_eq(f1, f2, fl1);
    mc_pgp_certs_free(fc);
    free(full);
    mc_pgp_certs_free(certs);
    // Another address: the key is not for it.
    memcpy(h.addr, "romeo@example.org", 18);
    h.addr_len = 17;
    ck_assert_int_eq(mc_autocrypt_key_check(&certs, &h, key, h.keydata_len, time(NULL)),
                     MC_ERR_BAD_KEY);
    // sq's default addr is the whole user ID, which Level 1 does not allow.
    free(hdr);
    snprintf(cmd, sizeof cmd, "sq autocrypt encode-sender %s/c%zu", dir, i);
    hdr = run_capture(cmd, &hlen);
    ck_assert_ptr_nonnull(hdr);
    ck_assert_int_eq(
        mc_autocrypt_parse(&h, key, sizeof key, NULL, (const char *)hdr + 11, hlen - 11),
        MC_ERR_INVALID_ARGUMENT);
    free(hdr);
    free(bin);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("autocrypt");
  TCase *tc = tcase_create("autocrypt");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, syntax_ok);
  tcase_add_test(tc, syntax_refused);
  tcase_add_test(tc, limits);
  tcase_add_test(tc, sequoia_headers);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
