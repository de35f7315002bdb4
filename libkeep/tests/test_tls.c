// test_tls.c: libkeep's key file reader and TLS layer without a daemon:
// keys written and read back, every malformed file refused (truncated armour,
// bad base64, an empty block, P-256 keys in both armours, a public
// key where a private one belongs), allowed-client lists with
// comments and limits, a mutual handshake over a socket pair in both
// outcomes (pinned key accepted, other key refused by each side, a client
// revoked by new pins), and the client's refusals before any connection
// (plaintext off loopback, a missing or bad key file).
#include <check.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bytestring.h>
#include <openssl/ec_key.h>
#include <openssl/evp.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/rand.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_tls.h"

static EVP_PKEY *new_key(void) {
  uint8_t seed[32];
  RAND_bytes(seed, sizeof seed);
  EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof seed);
  ck_assert_ptr_nonnull(k);
  return k;
}

static int parse_key(const char *text, EVP_PKEY **out) {
  return keep_tls_key_parse(out, (const uint8_t *)text, strlen(text));
}

static int parse_pins(const char *text, keep_tls_pins **out, bool allow_empty) {
  return keep_tls_pins_parse(out, (const uint8_t *)text, strlen(text), allow_empty);
}

START_TEST(key_round_trip) {
  EVP_PKEY *k = new_key(), *back = NULL;
  char priv[256], pub[256], a[256], b[256];
  ck_assert_int_eq(keep_tls_pem_private(priv, sizeof priv, k), 0);
  ck_assert_int_eq(keep_tls_pem_public(pub, sizeof pub, k), 0);
  ck_assert_int_eq(parse_key(priv, &back), 0);
  ck_assert_int_eq(keep_tls_pem_public(a, sizeof a, back), 0);
  ck_assert_str_eq(a, pub);
  // Text around the block (an operator's note) is ignored.
  snprintf(b, sizeof b, "cluster key, made today\n%s\n", priv);
  EVP_PKEY *again = NULL;
  ck_assert_int_eq(parse_key(b, &again), 0);
  keep_tls_pins *p = NULL;
  ck_assert_int_eq(parse_pins(pub, &p, false), 0);
  ck_assert_uint_eq(p->num, 1);
  // Too small an output buffer is refused rather than cut.
  ck_assert_int_eq(keep_tls_pem_public(a, 40, k), -ENOBUFS);
  keep_tls_pins_free(p);
  keep_tls_key_free(again);
  keep_tls_key_free(back);
  keep_tls_key_free(k);
}
END_TEST

START_TEST(malformed_keys_are_refused) {
  EVP_PKEY *k = new_key(), *out = NULL;
  char priv[256], pub[256], bad[1024];
  ck_assert_int_eq(keep_tls_pem_private(priv, sizeof priv, k), 0);
  ck_assert_int_eq(keep_tls_pem_public(pub, sizeof pub, k), 0);
  ck_assert_int_eq(parse_key("", &out), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(parse_key("-----BEGIN PRIVATE KEY-----\n", &out), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(parse_key("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n", &out),
                   KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      parse_key("-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----\n", &out),
      KEEP_ERR_INVALID_ARGUMENT);
  // A public key is no private key.
  ck_assert_int_eq(parse_key(pub, &out), KEEP_ERR_INVALID_ARGUMENT);
  // Truncated base64: drop four characters of the body.
  snprintf(bad, sizeof bad, "%s", priv);
  char *nl = strchr(bad, '\n');
  memmove(nl + 1, nl + 5, strlen(nl + 5) + 1);
  ck_assert_int_eq(parse_key(bad, &out), KEEP_ERR_INVALID_ARGUMENT);
  // A P-256 key in the same armour.
  EC_KEY *ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
  ck_assert(EC_KEY_generate_key(ec));
  EVP_PKEY *pk = EVP_PKEY_new();
  ck_assert(EVP_PKEY_assign_EC_KEY(pk, ec));
  CBB cbb;
  uint8_t *der;
  size_t der_len;
  ck_assert(CBB_init(&cbb, 128));
  ck_assert(EVP_marshal_private_key(&cbb, pk));
  ck_assert(CBB_finish(&cbb, &der, &der_len));
  char b64[512];
  EVP_EncodeBlock((uint8_t *)b64, der, der_len);
  snprintf(bad, sizeof bad, "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n", b64);
  ck_assert_int_eq(parse_key(bad, &out), KEEP_ERR_INVALID_ARGUMENT);
  OPENSSL_free(der);
  ck_assert(CBB_init(&cbb, 128));
  ck_assert(EVP_marshal_public_key(&cbb, pk));
  ck_assert(CBB_finish(&cbb, &der, &der_len));
  EVP_EncodeBlock((uint8_t *)b64, der, der_len);
  snprintf(bad, sizeof bad, "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n", b64);
  keep_tls_pins *p = NULL;
  ck_assert_int_eq(parse_pins(bad, &p, true), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(p);
  OPENSSL_free(der);
  EVP_PKEY_free(pk);
  // An empty list is an error where a key is required, not for a client list.
  ck_assert_int_eq(parse_pins("# no clients yet\n", &p, false), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(parse_pins("# no clients yet\n", &p, true), 0);
  ck_assert_uint_eq(p->num, 0);
  keep_tls_pins_free(p);
  ck_assert_ptr_null(out);
  keep_tls_key_free(k);
}
END_TEST

START_TEST(client_lists) {
  char text[8192] = "";
  char pub[256];
  EVP_PKEY *keys[20];
  for (int i = 0; i < 20; i++) {
    keys[i] = new_key();
    ck_assert_int_eq(keep_tls_pem_public(pub, sizeof pub, keys[i]), 0);
    strcat(text, "# client\n");
    strcat(text, pub);
  }
  keep_tls_pins *p = NULL;
  ck_assert_int_eq(parse_pins(text, &p, false), 0);
  ck_assert_uint_eq(p->num, 20);
  keep_tls_pins *one = NULL;
  ck_assert_int_eq(keep_tls_pins_of_key(&one, keys[7]), 0);
  ck_assert(memcmp(one->spki[0], p->spki[7], KEEP_TLS_SPKI_LEN) == 0);
  // A block cut off at the end spoils the list.
  strcat(text, "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n");
  keep_tls_pins *q = NULL;
  ck_assert_int_eq(parse_pins(text, &q, true), KEEP_ERR_INVALID_ARGUMENT);
  keep_tls_pins_free(one);
  keep_tls_pins_free(p);
  for (int i = 0; i < 20; i++)
    keep_tls_key_free(keys[i]);
}
END_TEST

// handshake runs both sides over a socket pair until both finish or fail.
static void handshake(keep_tls_ctx *server, keep_tls_ctx *client, int *server_rc, int *client_rc,
                      bool *server_refused) {
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
  keep_tls_conn *s, *c;
  ck_assert_int_eq(keep_tls_wrap_fd(&s, server, sv[0]), 0);
  ck_assert_int_eq(keep_tls_wrap_fd(&c, client, sv[1]), 0);
  int rs = 0, rc = 0;
  for (int i = 0; i < 100 && (rs == 0 || rc == 0); i++) {
    short want;
    if (rc == 0)
      rc = keep_tls_handshake(c, &want);
    if (rs == 0)
      rs = keep_tls_handshake(s, &want);
  }
  // The client finishes first in TLS 1.3; it learns of a refusal by reading.
  if (rc == 1 && rs < 0) {
    uint8_t b[16];
    short want;
    int r = 0;
    for (int i = 0; i < 100 && r == 0; i++)
      r = keep_tls_read(c, &want, b, sizeof b);
    rc = r;
  }
  *server_rc = rs;
  *client_rc = rc;
  *server_refused = keep_tls_conn_key_refused(s);
  // Data flows both ways once both are done.
  if (rs == 1 && rc == 1) {
    short want;
    ck_assert_int_eq(keep_tls_write(c, &want, (const uint8_t *)"ping", 4), 4);
    uint8_t b[8];
    int r = 0;
    for (int i = 0; i < 100 && r == 0; i++)
      r = keep_tls_read(s, &want, b, sizeof b);
    ck_assert_int_eq(r, 4);
    ck_assert(memcmp(b, "ping", 4) == 0);
  }
  keep_tls_conn_free(s);
  keep_tls_conn_free(c);
  close(sv[0]);
  close(sv[1]);
}

START_TEST(pinned_handshakes) {
  EVP_PKEY *cluster = new_key(), *client = new_key(), *other = new_key();
  keep_tls_pins *sp, *cp;
  ck_assert_int_eq(keep_tls_pins_of_key(&sp, client), 0);
  ck_assert_int_eq(keep_tls_pins_of_key(&cp, cluster), 0);
  keep_tls_ctx *server, *cli, *wrong_client, *wrong_pin;
  ck_assert_int_eq(keep_tls_ctx_new(&server, cluster, sp, true), 0);
  ck_assert_int_eq(keep_tls_ctx_new(&cli, client, cp, false), 0);
  ck_assert_int_eq(keep_tls_pins_of_key(&cp, cluster), 0);
  ck_assert_int_eq(keep_tls_ctx_new(&wrong_client, other, cp, false), 0);
  ck_assert_int_eq(keep_tls_pins_of_key(&cp, other), 0);
  ck_assert_int_eq(keep_tls_ctx_new(&wrong_pin, client, cp, false), 0);
  int rs, rc;
  bool refused;
  handshake(server, cli, &rs, &rc, &refused);
  ck_assert_int_eq(rs, 1);
  ck_assert_int_eq(rc, 1);
  handshake(server, wrong_client, &rs, &rc, &refused);
  ck_assert_int_eq(rs, KEEP_ERR_TLS);
  ck_assert(refused);
  ck_assert_int_lt(rc, 0);
  handshake(server, wrong_pin, &rs, &rc, &refused);
  ck_assert_int_eq(rc, KEEP_ERR_TLS);
  ck_assert_int_lt(rs, 0);
  // Swapping the pins revokes: the same client is refused afterwards.
  ck_assert_int_eq(keep_tls_pins_of_key(&sp, other), 0);
  keep_tls_ctx_set_pins(server, sp);
  handshake(server, cli, &rs, &rc, &refused);
  ck_assert_int_eq(rs, KEEP_ERR_TLS);
  ck_assert(refused);
  keep_tls_ctx_free(server);
  keep_tls_ctx_free(cli);
  keep_tls_ctx_free(wrong_client);
  keep_tls_ctx_free(wrong_pin);
  keep_tls_key_free(cluster);
  keep_tls_key_free(client);
  keep_tls_key_free(other);
}
END_TEST

START_TEST(plaintext_stays_on_loopback) {
  // A documentation address (RFC 5737): refused before any packet is sent.
  const char *members[] = {"192.0.2.1:7379"};
  keep_settings s = {.members = members, .num_members = 1, .connect_timeout_ms = 100};
  keep_client *c = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(c);
  // A key file that does not exist, or is not a key, fails keep_client_new.
  keep_tls_settings t = {.key_file = "/nonexistent/keep.key"};
  s.tls = &t;
  ck_assert_int_eq(keep_client_new(&c, &s), -ENOENT);
  t.key_file = "/dev/null";
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  t.key_file = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-tls");
  TCase *tc = tcase_create("tls");
  tcase_add_test(tc, key_round_trip);
  tcase_add_test(tc, malformed_keys_are_refused);
  tcase_add_test(tc, client_lists);
  tcase_add_test(tc, pinned_handshakes);
  tcase_add_test(tc, plaintext_stays_on_loopback);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
