// test_hp.c: header protection (RFC 9788) through mc_hp_protect and the
// PGP/MIME builder: for each mode, the exact outer header section and
// Cryptographic Payload of a message built from the field values of RFC
// 9788's examples (Alice, Bob, "Handling the Jones contract"); the Legacy
// Display Element only when a user-facing field is hidden and the body is
// plain text; LF input; buffer bounds and refused input.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "msgcrypt.h"

static const char msg_crlf[] = "From: Alice <alice@example.net>\r\n"
                               "To: Bob <bob@example.net>\r\n"
                               "Cc: Carol <carol@example.net>\r\n"
                               "Subject: Handling the Jones contract\r\n"
                               "Comments: internal\r\n"
                               "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                               "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                               "MIME-Version: 1.0\r\n"
                               "Content-Type: text/plain; charset=\"us-ascii\"\r\n"
                               "\r\n"
                               "Please review.\r\n";

typedef struct {
  char outer[4096];
  size_t outer_len;
  char inner[4096];
  size_t inner_len;
} split;

static int run(split *s, uint32_t mode, const char *in) {
  memset(s, 0, sizeof *s);
  int ret =
      mc_hp_protect((uint8_t *)s->outer, sizeof s->outer - 1, &s->outer_len, (uint8_t *)s->inner,
                    sizeof s->inner - 1, &s->inner_len, mode, (const uint8_t *)in, strlen(in));
  s->outer[s->outer_len] = 0;
  s->inner[s->inner_len] = 0;
  return ret;
}

START_TEST(at_rest_exact) {
  split s;
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, msg_crlf), 0);
  ck_assert_str_eq(s.outer, "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n");
  // hcp_no_confidentiality hides nothing: no Legacy Display Element.
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=\"us-ascii\"; hp=\"cipher\"\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "HP-Outer: From: Alice <alice@example.net>\r\n"
                            "HP-Outer: To: Bob <bob@example.net>\r\n"
                            "HP-Outer: Cc: Carol <carol@example.net>\r\n"
                            "HP-Outer: Subject: Handling the Jones contract\r\n"
                            "HP-Outer: Comments: internal\r\n"
                            "HP-Outer: Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "HP-Outer: Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "\r\n"
                            "Please review.\r\n");
}
END_TEST

START_TEST(gateway_exact) {
  split s;
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, msg_crlf), 0);
  // hcp_baseline: Subject obscured, Comments dropped, the rest kept.
  ck_assert_str_eq(s.outer, "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: [...]\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n");
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=\"us-ascii\"; "
                            "hp-legacy-display=\"1\"; hp=\"cipher\"\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "HP-Outer: From: Alice <alice@example.net>\r\n"
                            "HP-Outer: To: Bob <bob@example.net>\r\n"
                            "HP-Outer: Cc: Carol <carol@example.net>\r\n"
                            "HP-Outer: Subject: [...]\r\n"
                            "HP-Outer: Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "HP-Outer: Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "\r\n"
                            "Please review.\r\n");
}
END_TEST

// A multipart body gets no Legacy Display Element (the text would need a
// part of its own); an encoded word stays encoded in the protected copy and
// becomes UTF-8 only in a legacy display whose charset allows it.
START_TEST(gateway_multipart_and_lf) {
  split s;
  static const char mp[] = "From: a@example.org\n"
                           "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                           "Content-Type: multipart/mixed; boundary=b\n"
                           "\n"
                           "--b\n\nx\n--b--\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, mp), 0);
  ck_assert_str_eq(s.outer, "From: a@example.org\nSubject: [...]\n");
  ck_assert_str_eq(s.inner, "Content-Type: multipart/mixed; boundary=b; hp=\"cipher\"\n"
                            "From: a@example.org\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "HP-Outer: From: a@example.org\n"
                            "HP-Outer: Subject: [...]\n"
                            "\n"
                            "--b\n\nx\n--b--\n");
  static const char utf[] = "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "Content-Type: text/plain; charset=utf-8\n\nbody\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, utf), 0);
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\nSubject: Caf\xc3\xa9\n\nbody\n"));
  // us-ascii body: the legacy line keeps the encoded word.
  static const char ascii[] = "Subject: =?utf-8?q?Caf=C3=A9?=\n\nbody\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, ascii), 0);
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=us-ascii; "
                            "hp-legacy-display=\"1\"; hp=\"cipher\"\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "HP-Outer: Subject: [...]\n"
                            "\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "\n"
                            "body\n");
  // Base64 body: no legacy display either.
  static const char b64[] = "Subject: s\nContent-Transfer-Encoding: base64\n\naGk=\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, b64), 0);
  ck_assert_ptr_null(strstr(s.inner, "hp-legacy-display"));
}
END_TEST

START_TEST(errors_and_bounds) {
  split s;
  ck_assert_int_eq(run(&s, 0, msg_crlf), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, 3, msg_crlf), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, "no header line\n\nbody"), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, ""), MC_ERR_INVALID_ARGUMENT);
  size_t ol = 1, il = 1;
  uint8_t small[16];
  ck_assert_int_eq(mc_hp_protect(small, sizeof small, &ol, small, sizeof small, &il, MC_HP_AT_REST,
                                 (const uint8_t *)msg_crlf, strlen(msg_crlf)),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(ol, 0);
  ck_assert_uint_eq(il, 0);
  ck_assert_int_eq(mc_hp_protect(NULL, 0, NULL, NULL, 0, &il, MC_HP_AT_REST,
                                 (const uint8_t *)msg_crlf, strlen(msg_crlf)),
                   MC_ERR_INVALID_ARGUMENT);
  // mc_hp_max_len holds for both outputs of the densest inputs.
  static const char *dense[] = {
      "a:\nb:\nc:\nd:", "Subject:=?utf-8?q?=C3=A9=C3=A9=C3=A9?=", msg_crlf};
  for (size_t i = 0; i < sizeof dense / sizeof dense[0]; i++) {
    ck_assert_int_eq(run(&s, MC_HP_GATEWAY, dense[i]), 0);
    ck_assert_uint_le(s.outer_len, mc_hp_max_len(strlen(dense[i])));
    ck_assert_uint_le(s.inner_len, mc_hp_max_len(strlen(dense[i])));
  }
  ck_assert_uint_eq(mc_hp_max_len(SIZE_MAX), SIZE_MAX);
  // A last field ending in a bare CR (found by fuzz_hp) still ends with a
  // line break outside and inside.
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, "From: a@b\nSubject: s\r"), 0);
  ck_assert_str_eq(s.outer, "From: a@b\nSubject: s\n");
  ck_assert_ptr_nonnull(strstr(s.inner, "\nHP-Outer: Subject: s\n\n"));
}
END_TEST

static int collect(void *opaque, const uint8_t *data, size_t len) {
  FILE *f = opaque;
  return fwrite(data, 1, len, f) == len ? 0 : -1;
}

// The PGP/MIME builder writes the outer header of the mode and refuses the
// two flags together; the plain encryptor refuses them.
START_TEST(pgp_mime_outer) {
  char *buf = NULL;
  size_t len = 0;
  // RFC 9580's sample v6 certificate (Appendix A.3) from the shared vectors.
  char path[4096];
  const char *dir = getenv("CORVID_VECTORS");
  ck_assert_ptr_nonnull(dir);
  snprintf(path, sizeof path, "%s/rfc9580-appendixA/a3_cert.asc", dir);
  FILE *keyf = fopen(path, "rb");
  ck_assert_ptr_nonnull(keyf);
  static uint8_t key[1 << 16];
  size_t klen = fread(key, 1, sizeof key, keyf);
  fclose(keyf);
  mc_pgp_certs *certs = NULL;
  ck_assert_int_eq(mc_pgp_certs_parse(&certs, NULL, NULL, key, klen, 1700000000), 0);
  const mc_pgp_cert *c = mc_pgp_certs_get(certs, 0);
  mc_pgp_encrypt_options opt = MC_PGP_ENCRYPT_OPTIONS_INIT;
  opt.flags = MC_PGP_PROTECT_HEADERS_GATEWAY;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(
      mc_pgp_mime_encrypt(&c, 1, &opt, (const uint8_t *)msg_crlf, strlen(msg_crlf), collect, f), 0);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\r\nSubject: [...]\r\nDate: "));
  ck_assert_ptr_null(strstr(buf, "Jones"));
  ck_assert_ptr_null(strstr(buf, "Comments:"));
  free(buf);
  opt.flags = MC_PGP_PROTECT_HEADERS_GATEWAY | MC_PGP_PROTECT_HEADERS_AT_REST;
  f = open_memstream(&buf, &len);
  ck_assert_int_eq(
      mc_pgp_mime_encrypt(&c, 1, &opt, (const uint8_t *)msg_crlf, strlen(msg_crlf), collect, f),
      MC_ERR_INVALID_ARGUMENT);
  fclose(f);
  ck_assert_uint_eq(len, 0);
  free(buf);
  opt.flags = MC_PGP_PROTECT_HEADERS_AT_REST;
  uint8_t out[4096];
  size_t out_len = 0;
  ck_assert_int_eq(mc_pgp_encrypt(out, sizeof out, &out_len, &c, 1, &opt, out, 0),
                   MC_ERR_INVALID_ARGUMENT);
  mc_pgp_certs_free(certs);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hp");
  TCase *tc = tcase_create("hp");
  tcase_add_test(tc, at_rest_exact);
  tcase_add_test(tc, gateway_exact);
  tcase_add_test(tc, gateway_multipart_and_lf);
  tcase_add_test(tc, errors_and_bounds);
  tcase_add_test(tc, pgp_mime_outer);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
