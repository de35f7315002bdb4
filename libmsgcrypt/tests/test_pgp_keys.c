// test_pgp_keys.c: OpenPGP certificate reading (pgp_armor.c, pgp_packet.c,
// pgp_key.c, pgp_sig.c, pgp_describe.c) against the RFC 9580 Appendix A
// and RFC 9980 sample keys: fingerprints, user IDs, verified signatures of
// every sample algorithm, the selected recipients and descriptions; then
// certificates this test signs itself with the RFC 9580 sample secret key
// (post-quantum preference, flags, expiry, revocation, back-signatures, critical
// subpackets, future signatures); and the negative cases: tampered
// signatures and keys, truncation at every length, oversized lengths,
// armor errors, limits, secret keys, messages and garbage.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/curve25519.h>

#include "pgp_test_build.h"

static int parse_err(const uint8_t *in, size_t in_len, const mc_pgp_settings *s, mc_pgp_diag *d) {
  mc_pgp_certs *certs = (mc_pgp_certs *)1;
  int r = mc_pgp_certs_parse(&certs, s, d, in, in_len, NOW);
  ck_assert_int_lt(r, 0);
  ck_assert_ptr_null(certs);
  return r;
}

static int has_warning(const mc_pgp_cert *cert, mc_pgp_warn_code code, const char *addr) {
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t n;
  const char *addrs[1] = {addr};
  ck_assert_int_eq(mc_pgp_cert_warnings(cert, w, MC_PGP_MAX_WARNINGS, &n, addrs, addr ? 1 : 0), 0);
  for (size_t i = 0; i < n; i++) {
    ck_assert_str_eq(w[i].name, mc_pgp_warn_name(w[i].code));
    ck_assert_int_gt((int)strlen(w[i].text), 10);
    if (w[i].code == code)
      return 1;
  }
  return 0;
}

static void hex_is(const uint8_t *p, size_t n, const char *want) {
  char h[65];
  ck_assert_uint_le(n, 32);
  for (size_t i = 0; i < n; i++)
    snprintf(h + 2 * i, 3, "%02x", p[i]);
  ck_assert_str_eq(h, want);
}

// The sample keys of RFC 9580 Appendix A.3 and RFC 9980's test vectors,
// with the fingerprints those documents print.
static const struct sample {
  const char *file;
  int version;
  const char *primary_fpr;
  const char *subkey_fpr;
  int recipient_algo;
  size_t ecc_len, pq_len;
  const char *description;
  int num_uids;
} samples[] = {
    {"rfc9580-appendixA/a3_cert.asc", 6,
     "cb186c4f0609a697e4d52dfa6c722b0c1f1e27c18a56708f6525ec27bad9acc9",
     "12c83f1e706f6308fe151a417743a1f033790e93e9978488d1db378da9930885", PGP_PK_X25519, 32, 0,
     "OpenPGP v6: Ed25519 (encryption subkey X25519)", 0},
    {"openpgp-pqc/v6-eddsa-sample-pk.asc", 6,
     "c789e17d9dbdca7b3c833a3c063feb0353f80ad911fe27868fb0645df803e947",
     "dafe0eebb2675ecfcdc20a23fe89ca5d12e83f527dfa354b6dcf662131a48b9d", PGP_PK_MLKEM768_X25519, 32,
     1184, "OpenPGP v6: Ed25519 (encryption subkey ML-KEM-768+X25519)", 1},
    {"openpgp-pqc/v4-eddsa-sample-pk.asc", 4, "342e5db2de345215cb2c944f7102ffed3b9cf12d",
     "e51dbfea51936988b5428fffa4f95f985ed61a51", PGP_PK_MLKEM768_X25519, 32, 1184,
     "OpenPGP v4: Ed25519 (encryption subkey ML-KEM-768+X25519)", 1},
    {"openpgp-pqc/v6-mldsa-65-sample-pk.asc", 6,
     "a3e2e14b6a493ff930fb27321f125e9a6880338be9fb7da3ae065ea65793242f",
     "7dae8fbce23022607167af72a002e774e0ca379a2d7ae072384e1e8fde3265e4", PGP_PK_MLKEM768_X25519, 32,
     1184, "OpenPGP v6: ML-DSA-65+Ed25519 (encryption subkey ML-KEM-768+X25519)", 1},
    {"openpgp-pqc/v6-mldsa-87-sample-pk.asc", 6,
     "0d7a8be1410cd68eed4845ab487b4b4cfaecd8ebad1a1166a84230499200ee20",
     "65090e147a8116ab7f62ab4ec7aae59d9e6532feb2af230c73cdc869fbc60c8f", PGP_PK_MLKEM1024_X448, 56,
     1568, "OpenPGP v6: ML-DSA-87+Ed448 (encryption subkey ML-KEM-1024+X448)", 1},
};
#define NUM_SAMPLES (sizeof samples / sizeof samples[0])

START_TEST(sample_keys) {
  const struct sample *s = &samples[_i];
  struct blob a = read_vector(s->file);
  mc_pgp_certs *certs = parse_ok(a.p, a.len, NOW);
  ck_assert_uint_eq(mc_pgp_certs_count(certs), 1);
  ck_assert_ptr_null(mc_pgp_certs_get(certs, 1));
  const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
  ck_assert_int_eq(mc_pgp_cert_version(cert), s->version);
  size_t fl;
  const uint8_t *fpr = mc_pgp_cert_fingerprint(cert, &fl);
  ck_assert_uint_eq(fl, s->version == 4 ? 20 : 32);
  hex_is(fpr, fl, s->primary_fpr);
  char fh[MC_PGP_FPR_HEX_LEN];
  ck_assert_int_eq(mc_pgp_cert_fingerprint_hex(cert, fh, sizeof fh), 0);
  ck_assert_uint_eq(strlen(fh), 2 * fl);
  ck_assert_int_eq(mc_pgp_cert_fingerprint_hex(cert, fh, 2 * fl), MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_pgp_cert_is_revoked(cert), 0);
  ck_assert_int_eq(mc_pgp_cert_expiration_time(cert), 0);
  ck_assert_uint_eq(mc_pgp_cert_num_user_ids(cert), (size_t)s->num_uids);
  if (s->num_uids) {
    size_t ul;
    const char *u = mc_pgp_cert_user_id(cert, 0, &ul);
    ck_assert_uint_eq(ul, strlen("PQC user (Test Key) <pqc-test-key@example.com>"));
    ck_assert(memcmp(u, "PQC user (Test Key) <pqc-test-key@example.com>", ul) == 0);
    ck_assert_ptr_null(mc_pgp_cert_user_id(cert, 1, &ul));
  }
  describe_is(cert, s->description);

  // The engine's view: one recipient, the subkey, with its key material.
  const pgp_recipient *rc;
  ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 1);
  ck_assert_int_eq(rc->algo, s->recipient_algo);
  ck_assert_int_eq(rc->version, s->version);
  hex_is(rc->fpr, rc->fpr_len, s->subkey_fpr);
  ck_assert(memcmp(rc->key_id, s->version == 4 ? rc->fpr + 12 : rc->fpr, 8) == 0);
  ck_assert_uint_eq(rc->ecc_pub_len, s->ecc_len);
  ck_assert_uint_eq(rc->mlkem_pub_len, s->pq_len);
  ck_assert_ptr_nonnull(rc->ecc_pub);
  // Every sample announces SEIPDv1 and, but for the v4 one, SEIPDv2 with
  // AES-256 preferred first.
  ck_assert(rc->features & PGP_FEATURE_SEIPDV1);
  ck_assert_uint_eq(mc_pgp_cert_features(cert), rc->features);
  const uint8_t *prefs;
  ck_assert_uint_eq(mc_pgp_cert_pref_symmetric(cert, &prefs), rc->num_pref_sym);
  ck_assert(memcmp(prefs, rc->pref_sym, rc->num_pref_sym) == 0);
  if (_i == 0) {
    // RFC 9580 A.3: AES-256 then AES-128; AES-256/OCB then AES-128/OCB;
    // SEIPDv1 and SEIPDv2.
    static const uint8_t sym[2] = {9, 7}, aead[4] = {9, 2, 7, 2};
    ck_assert_uint_eq(mc_pgp_cert_features(cert), 0x09);
    ck_assert_uint_eq(mc_pgp_cert_pref_symmetric(cert, &prefs), 2);
    ck_assert(memcmp(prefs, sym, 2) == 0);
    ck_assert_uint_eq(mc_pgp_cert_pref_aead(cert, &prefs), 2);
    ck_assert(memcmp(prefs, aead, 4) == 0);
  }
  ck_assert_uint_gt(rc->num_pref_sym, 0);
  if (s->version == 6) {
    ck_assert(rc->features & PGP_FEATURE_SEIPDV2);
  }

  mc_pgp_key_info ki;
  ck_assert_uint_eq(mc_pgp_cert_num_keys(cert), 2);
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 1, &ki), 0);
  ck_assert_int_eq(ki.valid, 1);
  ck_assert_int_eq(ki.recipient, 1);
  ck_assert(ki.flags & (PGP_KF_ENCRYPT_COMMS | PGP_KF_ENCRYPT_STORAGE));
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 0, &ki), 0);
  ck_assert_int_eq(ki.valid, 1);
  ck_assert_int_eq(ki.recipient, 0);
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 2, &ki), MC_ERR_INVALID_ARGUMENT);

  // Warnings: v6 or post-quantum means few clients; nothing else.
  ck_assert(has_warning(cert, MC_PGP_WARN_LIMITED_SUPPORT, NULL));
  ck_assert(!has_warning(cert, MC_PGP_WARN_BAD_SIGNATURE, NULL));
  ck_assert(!has_warning(cert, MC_PGP_WARN_NO_ENCRYPTION, NULL));
  if (s->num_uids) {
    ck_assert(!has_warning(cert, MC_PGP_WARN_NO_ADDRESS, "PQC-Test-Key@example.COM"));
    ck_assert(has_warning(cert, MC_PGP_WARN_NO_ADDRESS, "other@example.com"));
  } else {
    ck_assert(has_warning(cert, MC_PGP_WARN_NO_ADDRESS, "pqc-test-key@example.com"));
  }
  mc_pgp_certs_free(certs);

  // The same packets in binary give the same certificate.
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  certs = parse_ok(b.p, b.len, NOW);
  fpr = mc_pgp_cert_fingerprint(mc_pgp_certs_get(certs, 0), &fl);
  hex_is(fpr, fl, s->primary_fpr);
  mc_pgp_certs_free(certs);

  // Before the key existed, none of its signatures counts.
  certs = parse_ok(b.p, b.len, 1000);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert(has_warning(cert, MC_PGP_WARN_NO_ENCRYPTION, NULL));
  mc_pgp_certs_free(certs);
  free(a.p);
  free(b.p);
}
END_TEST

// SLH-DSA certificates parse, but their signatures cannot be checked, so
// nothing in them is trusted.
START_TEST(slhdsa_unusable) {
  static const char *const files[] = {"openpgp-pqc/v6-slhdsa-128s-sample-pk.asc",
                                      "openpgp-pqc/v6-slhdsa-128f-sample-pk.asc",
                                      "openpgp-pqc/v6-slhdsa-256s-sample-pk.asc"};
  struct blob a = read_vector(files[_i]);
  mc_pgp_certs *certs = parse_ok(a.p, a.len, NOW);
  const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert(has_warning(cert, MC_PGP_WARN_UNSUPPORTED, NULL));
  ck_assert(has_warning(cert, MC_PGP_WARN_NO_ENCRYPTION, NULL));
  ck_assert(!has_warning(cert, MC_PGP_WARN_BAD_SIGNATURE, NULL));
  mc_pgp_key_info ki;
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 0, &ki), 0);
  ck_assert_ptr_nonnull(ki.unusable);
  ck_assert(strncmp(ki.name, "SLH-DSA-SHAKE-", 14) == 0);
  mc_pgp_certs_free(certs);
  free(a.p);
}
END_TEST

// Many certificates per input: armored blocks one after another, and
// binary packets concatenated.
START_TEST(many_certs) {
  struct blob all = {malloc(1 << 21), 0};
  pgp_buf bin;
  pgp_buf_init_growable(&bin);
  for (size_t i = 0; i < NUM_SAMPLES; i++) {
    struct blob a = read_vector(samples[i].file);
    memcpy(all.p + all.len, a.p, a.len);
    all.len += a.len;
    all.p[all.len++] = '\n';
    struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
    pgp_buf_put_bytes(&bin, b.p, b.len);
    free(a.p);
    free(b.p);
  }
  for (int binary = 0; binary < 2; binary++) {
    mc_pgp_certs *certs = binary ? parse_ok(bin.p, bin.len, NOW) : parse_ok(all.p, all.len, NOW);
    ck_assert_uint_eq(mc_pgp_certs_count(certs), NUM_SAMPLES);
    for (size_t i = 0; i < NUM_SAMPLES; i++) {
      size_t fl;
      const mc_pgp_cert *cert = mc_pgp_certs_get(certs, i);
      const uint8_t *fpr = mc_pgp_cert_fingerprint(cert, &fl);
      hex_is(fpr, fl, samples[i].primary_fpr);
      ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 1);
    }
    mc_pgp_certs_free(certs);
  }
  // The limit on certificates holds.
  mc_pgp_settings s = MC_PGP_SETTINGS_INIT;
  s.max_certs = 2;
  mc_pgp_diag d;
  ck_assert_int_eq(parse_err(bin.p, bin.len, &s, &d), MC_ERR_BAD_KEY);
  ck_assert_int_eq(d.code, MC_ERR_BAD_KEY);
  ck_assert_ptr_nonnull(strstr(d.message, "certificates"));
  pgp_buf_cleanup(&bin);
  free(all.p);
}
END_TEST

// packet_spans lists where each packet of `b` starts and where its body
// starts, and returns their number.
static size_t packet_spans(const struct blob *b, size_t *starts, size_t *bodies, uint8_t *tags,
                           size_t cap) {
  pgp_cur c;
  pgp_cur_init(&c, b->p, b->len);
  pgp_packet p;
  size_t n = 0;
  while (n < cap) {
    size_t off = b->len - c.len;
    int r = pgp_packet_next(&c, &p, SIZE_MAX);
    ck_assert_int_ge(r, 0);
    if (r == 0)
      break;
    starts[n] = off;
    bodies[n] = (size_t)(p.body - b->p);
    tags[n] = p.tag;
    n++;
  }
  starts[n] = b->len;
  return n;
}

// Tampering with any signature over the encryption subkey, or with the
// subkey itself, leaves no recipient; tampering with user-ID
// certifications loses the user ID.
START_TEST(tampered) {
  struct blob a = read_vector(samples[_i].file);
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  size_t starts[64], bodies[64];
  uint8_t tags[64];
  size_t n = packet_spans(&b, starts, bodies, tags, 63);
  int subkey_seen = 0, tested = 0;
  for (size_t i = 0; i < n; i++) {
    subkey_seen |= tags[i] == PGP_TAG_PUBLIC_SUBKEY;
    int target = tags[i] == PGP_TAG_PUBLIC_SUBKEY || (subkey_seen && tags[i] == PGP_TAG_SIGNATURE);
    if (!target)
      continue;
    // Flip a bit in the last byte (signature material or key material) and
    // in the creation-time area near the start of the body.
    size_t where[2] = {starts[i + 1] - 1, bodies[i] + 6};
    for (int k = 0; k < 2; k++) {
      b.p[where[k]] ^= 0x01;
      mc_pgp_certs *certs = NULL;
      int r = mc_pgp_certs_parse(&certs, NULL, NULL, b.p, b.len, NOW);
      if (r == 0) {
        const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
        ck_assert_msg(mc_pgp_cert_num_recipients(cert) == 0, "packet %zu byte %zu", i, where[k]);
        ck_assert(has_warning(cert, MC_PGP_WARN_NO_ENCRYPTION, NULL));
        if (tags[i] == PGP_TAG_SIGNATURE && k == 0)
          ck_assert(has_warning(cert, MC_PGP_WARN_BAD_SIGNATURE, NULL));
        mc_pgp_certs_free(certs);
      } else {
        ck_assert_int_eq(r, MC_ERR_BAD_KEY); // the flip made the key malformed
      }
      b.p[where[k]] ^= 0x01;
      tested++;
    }
  }
  ck_assert_int_ge(tested, 4);
  // Untampered again: one recipient.
  mc_pgp_certs *certs = parse_ok(b.p, b.len, NOW);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(mc_pgp_certs_get(certs, 0)), 1);
  mc_pgp_certs_free(certs);
  free(a.p);
  free(b.p);
}
END_TEST

// Cutting the input anywhere inside a packet is an error; cutting between
// packets gives a smaller certificate or none.
START_TEST(truncated) {
  struct blob a = read_vector(samples[_i].file);
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  size_t starts[64], bodies[64];
  uint8_t tags[64];
  size_t n = packet_spans(&b, starts, bodies, tags, 63);
  size_t step = b.len > 4000 ? 7 : 1;
  for (size_t len = 1; len < b.len; len += step) {
    int boundary = 0;
    for (size_t i = 0; i <= n; i++)
      boundary |= starts[i] == len;
    mc_pgp_certs *certs = NULL;
    mc_pgp_diag d;
    int r = mc_pgp_certs_parse(&certs, NULL, &d, b.p, len, NOW);
    if (!boundary) {
      ck_assert_msg(r == MC_ERR_BAD_KEY, "len %zu: %d", len, r);
      ck_assert_ptr_nonnull(strstr(d.message, "truncated"));
    } else {
      ck_assert_int_eq(r, 0);
      mc_pgp_certs_free(certs);
    }
  }
  free(a.p);
  free(b.p);
}
END_TEST

START_TEST(oversized_lengths) {
  struct blob a = read_vector(samples[0].file);
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  // Rewrite the first packet's header with a five-octet length far beyond
  // the input.
  size_t starts[64], bodies[64];
  uint8_t tags[64];
  packet_spans(&b, starts, bodies, tags, 63);
  uint8_t *p = malloc(b.len + 8);
  p[0] = 0xc6;
  p[1] = 0xff;
  p[2] = 0x7f;
  p[3] = p[4] = p[5] = 0xff;
  memcpy(p + 6, b.p + bodies[0], b.len - bodies[0]);
  mc_pgp_diag d;
  ck_assert_int_eq(parse_err(p, 6 + b.len - bodies[0], NULL, &d), MC_ERR_BAD_KEY);
  ck_assert_uint_eq(d.offset, 0);
  // A partial body length never frames a key.
  p[1] = 0xe1;
  ck_assert_int_eq(parse_err(p, 6 + b.len - bodies[0], NULL, &d), MC_ERR_BAD_KEY);
  free(p);
  // Limits: a packet longer than max_packet_len, more packets than
  // max_packets, more signatures than max_signatures, too long input.
  mc_pgp_settings s = MC_PGP_SETTINGS_INIT;
  s.max_packet_len = 40;
  ck_assert_int_eq(parse_err(b.p, b.len, &s, &d), MC_ERR_BAD_KEY);
  s = (mc_pgp_settings)MC_PGP_SETTINGS_INIT;
  s.max_packets = 2;
  ck_assert_int_eq(parse_err(b.p, b.len, &s, &d), MC_ERR_BAD_KEY);
  ck_assert_ptr_nonnull(strstr(d.message, "packets"));
  s = (mc_pgp_settings)MC_PGP_SETTINGS_INIT;
  s.max_signatures = 1;
  ck_assert_int_eq(parse_err(b.p, b.len, &s, &d), MC_ERR_BAD_KEY);
  s = (mc_pgp_settings)MC_PGP_SETTINGS_INIT;
  s.max_input_len = b.len - 1;
  ck_assert_int_eq(parse_err(b.p, b.len, &s, &d), MC_ERR_BAD_KEY);
  s = (mc_pgp_settings)MC_PGP_SETTINGS_INIT;
  s.version = 2;
  ck_assert_int_eq(parse_err(b.p, b.len, &s, &d), MC_ERR_INVALID_ARGUMENT);
  s = (mc_pgp_settings)MC_PGP_SETTINGS_INIT;
  s.max_armor_line_len = 20;
  ck_assert_int_eq(parse_err(a.p, a.len, &s, &d), MC_ERR_BAD_KEY);
  free(a.p);
  free(b.p);
}
END_TEST

// Marker, Padding, Trust and unknown non-critical packets are skipped; an
// unknown critical packet rejects the sequence (RFC 9580 §4.3).
START_TEST(unknown_packets) {
  struct blob a = read_vector(samples[1].file);
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  size_t starts[64], bodies[64];
  uint8_t tags[64];
  size_t n = packet_spans(&b, starts, bodies, tags, 63);
  static const uint8_t extra_tags[] = {
      PGP_TAG_MARKER, PGP_TAG_PADDING, PGP_TAG_TRUST, 40, 63, 30, 39};
  for (size_t t = 0; t < sizeof extra_tags; t++) {
    for (size_t at = 1; at <= n; at++) {
      pgp_buf o;
      pgp_buf_init_growable(&o);
      pgp_buf_put_bytes(&o, b.p, starts[at]);
      pgp_buf_put_header(&o, extra_tags[t], 3);
      pgp_buf_put_bytes(&o, (const uint8_t *)"PGP", 3);
      pgp_buf_put_bytes(&o, b.p + starts[at], b.len - starts[at]);
      ck_assert_int_eq(o.err, 0);
      mc_pgp_certs *certs = NULL;
      int r = mc_pgp_certs_parse(&certs, NULL, NULL, o.p, o.len, NOW);
      if (extra_tags[t] >= 40 || extra_tags[t] == PGP_TAG_MARKER ||
          extra_tags[t] == PGP_TAG_PADDING || extra_tags[t] == PGP_TAG_TRUST) {
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(mc_pgp_cert_num_recipients(mc_pgp_certs_get(certs, 0)), 1);
        mc_pgp_certs_free(certs);
      } else {
        ck_assert_int_eq(r, MC_ERR_BAD_KEY);
      }
      pgp_buf_cleanup(&o);
    }
  }
  free(a.p);
  free(b.p);
}
END_TEST

START_TEST(not_a_certificate) {
  mc_pgp_diag d;
  mc_pgp_certs *certs = NULL;
  // Secret keys are refused, armored or binary.
  struct blob a = read_vector("rfc9580-appendixA/a4_secret.asc");
  ck_assert_int_eq(parse_err(a.p, a.len, NULL, &d), MC_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(d.message, "secret key"));
  struct blob b = dearmor(&a, "PRIVATE KEY BLOCK");
  ck_assert_int_eq(parse_err(b.p, b.len, NULL, &d), MC_ERR_UNSUPPORTED);
  free(a.p);
  free(b.p);
  // A message is not a key.
  a = read_vector("rfc9580-appendixA/a8_encrypted.asc");
  ck_assert_int_eq(parse_err(a.p, a.len, NULL, &d), MC_ERR_BAD_KEY);
  b = dearmor(&a, "MESSAGE");
  ck_assert_int_eq(parse_err(b.p, b.len, NULL, &d), MC_ERR_BAD_KEY);
  ck_assert_ptr_nonnull(strstr(d.message, "not a certificate"));
  free(a.p);
  free(b.p);
  // Garbage, text, empty input, NULL arguments.
  static const char text[] = "hello, this is not a key\n";
  ck_assert_int_eq(parse_err((const uint8_t *)text, sizeof text - 1, NULL, &d), MC_ERR_BAD_KEY);
  ck_assert_ptr_nonnull(strstr(d.message, "not an OpenPGP key"));
  ck_assert_int_eq(parse_err((const uint8_t *)"", 0, NULL, &d), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_pgp_certs_parse(NULL, NULL, NULL, (const uint8_t *)text, 3, NOW),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_pgp_certs_parse(&certs, NULL, NULL, NULL, 3, NOW), MC_ERR_INVALID_ARGUMENT);
  // A signature before any key.
  static const uint8_t sig_first[] = {0xc2, 0x01, 0x04};
  ck_assert_int_eq(parse_err(sig_first, sizeof sig_first, NULL, &d), MC_ERR_BAD_KEY);
  mc_pgp_certs_free(NULL);
}
END_TEST

// Armor: round trip through pgp_armor_encode, with and without CRC; a
// wrong CRC, a bad character or a missing end line fail.
START_TEST(armor) {
  struct blob a = read_vector(samples[3].file);
  struct blob b = dearmor(&a, "PUBLIC KEY BLOCK");
  for (int crc = 0; crc < 2; crc++) {
    pgp_buf o;
    pgp_buf_init_growable(&o);
    pgp_armor_encode(&o, "PUBLIC KEY BLOCK", b.p, b.len, crc);
    ck_assert_int_eq(o.err, 0);
    mc_pgp_certs *certs = parse_ok(o.p, o.len, NOW);
    ck_assert_uint_eq(mc_pgp_cert_num_recipients(mc_pgp_certs_get(certs, 0)), 1);
    mc_pgp_certs_free(certs);
    mc_pgp_diag d;
    if (crc) {
      // The checksum line is "=XXXX" just before the end line.
      uint8_t *eq = (uint8_t *)strstr((char *)o.p, "\n=") + 2;
      *eq = *eq == 'A' ? 'B' : 'A';
      ck_assert_int_eq(parse_err(o.p, o.len, NULL, &d), MC_ERR_BAD_KEY);
      ck_assert_ptr_nonnull(strstr(d.message, "armor"));
      *eq = *eq == 'A' ? 'B' : 'A';
    }
    uint8_t *mid = o.p + o.len / 2;
    uint8_t save = *mid;
    *mid = '*';
    ck_assert_int_eq(parse_err(o.p, o.len, NULL, &d), MC_ERR_BAD_KEY);
    *mid = save;
    uint8_t *end = (uint8_t *)strstr((char *)o.p, "-----END");
    ck_assert_int_eq(parse_err(o.p, (size_t)(end - o.p), NULL, &d), MC_ERR_BAD_KEY);
    pgp_buf_cleanup(&o);
  }
  // With an armor header and CRLF line ends.
  pgp_buf o;
  pgp_buf_init_growable(&o);
  pgp_armor_encode(&o, "PUBLIC KEY BLOCK", b.p, b.len, 1);
  pgp_buf crlf;
  pgp_buf_init_growable(&crlf);
  for (size_t i = 0; i < o.len; i++) {
    if (o.p[i] == '\n')
      pgp_buf_put_u8(&crlf, '\r');
    pgp_buf_put_u8(&crlf, o.p[i]);
    if (i == 36) // after "-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
      pgp_buf_put_bytes(&crlf, (const uint8_t *)"Comment: test\r\n", 15);
  }
  mc_pgp_certs *certs = parse_ok(crlf.p, crlf.len, NOW);
  mc_pgp_certs_free(certs);
  // After other text, as in a pasted mail.
  pgp_buf pasted;
  pgp_buf_init_growable(&pasted);
  pgp_buf_put_bytes(&pasted, (const uint8_t *)"Hi, here is my key:\n\n", 21);
  pgp_buf_put_bytes(&pasted, o.p, o.len);
  pgp_buf_put_bytes(&pasted, (const uint8_t *)"\nBye\n", 5);
  certs = parse_ok(pasted.p, pasted.len, NOW);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(mc_pgp_certs_get(certs, 0)), 1);
  mc_pgp_certs_free(certs);
  pgp_buf_cleanup(&pasted);
  ck_assert_uint_eq(pgp_crc24((const uint8_t *)"", 0), 0xb704ce);
  pgp_buf_cleanup(&o);
  pgp_buf_cleanup(&crlf);
  free(a.p);
  free(b.p);
}
END_TEST

// Certificates signed here with the RFC 9580 A.4 sample secret key
// (Ed25519, v6): the sample's public key, its X25519 subkey and the ML-KEM
// subkey of an RFC 9980 sample, bound by signatures this test makes.

// subkey_body finds the first subkey packet of a sample file.
static struct blob subkey_body(const char *file) {
  return packet_body(file, "PUBLIC KEY BLOCK", PGP_TAG_PUBLIC_SUBKEY, NULL);
}

struct built {
  struct blob x25519, mlkem;
  struct signer s;
  pgp_buf out;
};

// build_start writes the sample primary key and its direct-key signature
// `dk`, which always announces SEIPDv1 and SEIPDv2 and prefers AES-256, as
// the samples do.
static void build_start(struct built *b, const struct sig_opts *dk) {
  signer_sample_ed25519(&b->s);
  b->x25519 = subkey_body("rfc9580-appendixA/a3_cert.asc");
  b->mlkem = subkey_body("openpgp-pqc/v6-eddsa-sample-pk.asc");
  pgp_buf_init_growable(&b->out);
  put_packet(&b->out, PGP_TAG_PUBLIC_KEY, b->s.key.p, b->s.key.len);
  struct sig_opts o = *dk;
  o.features = 0x09;
  o.pref_sym = 9;
  sign_packet(&b->out, &b->s, PGP_SIG_DIRECT_KEY, NULL, NULL, &o);
}

static void build_subkey(struct built *b, const struct blob *k, const struct sig_opts *o) {
  put_packet(&b->out, PGP_TAG_PUBLIC_SUBKEY, k->p, k->len);
  if (o != NULL)
    sign_packet(&b->out, &b->s, PGP_SIG_SUBKEY_BINDING, k, NULL, o);
}

static void build_free(struct built *b) {
  free(b->x25519.p);
  free(b->mlkem.p);
  pgp_buf_cleanup(&b->out);
  signer_free(&b->s);
}

static const struct sig_opts DK = {.created = T_2025, .flags = 0x03};
static const struct sig_opts ENC = {.created = T_2025, .flags = 0x0c};

START_TEST(pq_preferred) {
  struct built b;
  build_start(&b, &DK);
  build_subkey(&b, &b.x25519, &ENC);
  build_subkey(&b, &b.mlkem, &ENC);
  mc_pgp_certs *certs = parse_ok(b.out.p, b.out.len, NOW);
  const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
  size_t fl;
  const uint8_t *fpr = mc_pgp_cert_fingerprint(cert, &fl);
  hex_is(fpr, fl, samples[0].primary_fpr);
  const pgp_recipient *rc;
  ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
  ck_assert_int_eq(rc->algo, PGP_PK_MLKEM768_X25519);
  ck_assert_int_eq(rc->features, 0x09);
  ck_assert_uint_eq(rc->num_pref_sym, 1);
  describe_is(cert, "OpenPGP v6: Ed25519 (encryption subkey ML-KEM-768+X25519)");
  mc_pgp_key_info ki;
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 1, &ki), 0);
  ck_assert_int_eq(ki.valid, 1);
  ck_assert_int_eq(ki.recipient, 0);
  mc_pgp_certs_free(certs);

  // Without the ML-KEM subkey the classical one is used.
  build_free(&b);
  build_start(&b, &DK);
  build_subkey(&b, &b.x25519, &ENC);
  build_subkey(&b, &b.mlkem, NULL); // unbound
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
  ck_assert_int_eq(rc->algo, PGP_PK_X25519);
  mc_pgp_certs_free(certs);
  build_free(&b);
}
END_TEST

START_TEST(flags_expiry_revocation) {
  struct built b;
  mc_pgp_certs *certs;
  const mc_pgp_cert *cert;

  // A subkey flagged only for signing is no recipient.
  struct sig_opts sign_only = {.created = T_2025, .flags = 0x02};
  build_start(&b, &DK);
  build_subkey(&b, &b.x25519, &sign_only);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert(has_warning(cert, MC_PGP_WARN_NO_ENCRYPTION, NULL));
  ck_assert(!has_warning(cert, MC_PGP_WARN_BAD_SIGNATURE, NULL));
  mc_pgp_certs_free(certs);
  build_free(&b);

  // A subkey expiring 10 days after NOW: "expires-soon"; after it: none,
  // "expired".
  uint32_t x_created = 0x63877fe3; // the A.3 X25519 subkey's creation time
  struct sig_opts expiring = {
      .created = T_2025, .flags = 0x0c, .key_expires = (uint32_t)(NOW + 10 * 86400) - x_created};
  build_start(&b, &DK);
  build_subkey(&b, &b.x25519, &expiring);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 1);
  ck_assert(has_warning(cert, MC_PGP_WARN_EXPIRES_SOON, NULL));
  ck_assert(!has_warning(cert, MC_PGP_WARN_EXPIRED, NULL));
  mc_pgp_certs_free(certs);
  certs = parse_ok(b.out.p, b.out.len, NOW + 20 * 86400);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert(has_warning(cert, MC_PGP_WARN_EXPIRED, NULL));
  mc_pgp_certs_free(certs);
  certs = parse_ok(b.out.p, b.out.len, NOW - 30 * 86400);
  ck_assert(!has_warning(mc_pgp_certs_get(certs, 0), MC_PGP_WARN_EXPIRES_SOON, NULL));
  mc_pgp_certs_free(certs);
  build_free(&b);

  // The primary key expiring by its direct-key signature.
  struct sig_opts dk_exp = {
      .created = T_2025, .flags = 0x03, .key_expires = (uint32_t)(NOW - 86400) - 0x63877fe3};
  build_start(&b, &dk_exp);
  build_subkey(&b, &b.x25519, &ENC);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert_int_eq(mc_pgp_cert_expiration_time(cert), NOW - 86400);
  ck_assert(has_warning(cert, MC_PGP_WARN_EXPIRED, NULL));
  mc_pgp_certs_free(certs);
  build_free(&b);

  // A key revocation by the primary key.
  build_start(&b, &DK);
  struct sig_opts rev = {.created = T_2025 + 1, .flags = -1};
  sign_packet(&b.out, &b.s, PGP_SIG_KEY_REVOCATION, NULL, NULL, &rev);
  build_subkey(&b, &b.x25519, &ENC);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_int_eq(mc_pgp_cert_is_revoked(cert), 1);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  ck_assert(has_warning(cert, MC_PGP_WARN_REVOKED, NULL));
  mc_pgp_certs_free(certs);
  build_free(&b);

  // A subkey revocation removes that subkey only.
  build_start(&b, &DK);
  build_subkey(&b, &b.mlkem, &ENC);
  sign_packet(&b.out, &b.s, PGP_SIG_SUBKEY_REVOCATION, &b.mlkem, NULL, &rev);
  build_subkey(&b, &b.x25519, &ENC);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  const pgp_recipient *rc;
  ck_assert_uint_eq(pgp_cert_recipients(cert, &rc), 1);
  ck_assert_int_eq(rc->algo, PGP_PK_X25519);
  mc_pgp_key_info ki;
  ck_assert_int_eq(mc_pgp_cert_key_info(cert, 1, &ki), 0);
  ck_assert_int_eq(ki.revoked, 1);
  mc_pgp_certs_free(certs);
  build_free(&b);

  // A binding with an unknown critical subpacket, or made in the future, is
  // not trusted.
  struct sig_opts critical = {.created = T_2025, .flags = 0x0c, .critical_unknown = 1};
  struct sig_opts future = {.created = (uint32_t)NOW + 86400, .flags = 0x0c};
  const struct sig_opts *bad[2] = {&critical, &future};
  for (int i = 0; i < 2; i++) {
    build_start(&b, &DK);
    build_subkey(&b, &b.x25519, bad[i]);
    certs = parse_ok(b.out.p, b.out.len, NOW);
    cert = mc_pgp_certs_get(certs, 0);
    ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
    mc_pgp_certs_free(certs);
    build_free(&b);
  }
  // Without any self-signature on the primary key nothing is valid.
  build_start(&b, &future);
  build_subkey(&b, &b.x25519, &ENC);
  certs = parse_ok(b.out.p, b.out.len, NOW);
  cert = mc_pgp_certs_get(certs, 0);
  ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 0);
  mc_pgp_certs_free(certs);
  build_free(&b);
}
END_TEST

// A signing subkey made here: its binding keeps the signing flag only
// with a back-signature that verifies; a back-signature that does not
// verify makes the binding untrusted.
START_TEST(back_signatures) {
  struct built b;
  uint8_t sub_pub[32], sub_priv[64], seed[32];
  for (int i = 0; i < 32; i++)
    seed[i] = (uint8_t)(i + 1);
  ED25519_keypair_from_seed(sub_pub, sub_priv, seed);
  // A v6 Ed25519 subkey body (RFC 9580 §5.5.2.3).
  uint8_t body[42] = {6, 0x67, 0x74, 0x85, 0x80, PGP_PK_ED25519, 0, 0, 0, 32};
  memcpy(body + 10, sub_pub, 32);
  struct blob sub = {body, sizeof body};
  uint8_t sub_fpr[32];
  size_t sub_fpr_len;
  key_fingerprint(&sub, sub_fpr, &sub_fpr_len);
  ck_assert_uint_eq(sub_fpr_len, 32);

  for (int mode = 0; mode < 3; mode++) {
    // mode 0: valid back-signature; 1: none; 2: made by the wrong key.
    build_start(&b, &DK);
    pgp_buf back;
    pgp_buf_init_growable(&back);
    struct sig_opts bo = {.created = T_2025,
                          .flags = -1,
                          .priv = mode == 0 ? sub_priv : b.s.ed_priv,
                          .issuer_fpr = mode == 0 ? sub_fpr : b.s.fpr,
                          .body_only = 1};
    sign_packet(&back, &b.s, PGP_SIG_PRIMARY_BINDING, &sub, NULL, &bo);
    struct sig_opts bind = {.created = T_2025,
                            .flags = PGP_KF_SIGN,
                            .embedded = mode == 1 ? NULL : back.p,
                            .embedded_len = mode == 1 ? 0 : back.len};
    build_subkey(&b, &sub, &bind);
    build_subkey(&b, &b.x25519, &ENC);
    mc_pgp_certs *certs = parse_ok(b.out.p, b.out.len, NOW);
    const mc_pgp_cert *cert = mc_pgp_certs_get(certs, 0);
    mc_pgp_key_info ki;
    ck_assert_int_eq(mc_pgp_cert_key_info(cert, 1, &ki), 0);
    ck_assert(ki.fingerprint_len == 32 && memcmp(ki.fingerprint, sub_fpr, 32) == 0);
    ck_assert_int_eq(ki.valid, mode != 2);
    ck_assert_uint_eq(ki.flags, mode == 0 ? PGP_KF_SIGN : 0);
    ck_assert_int_eq(has_warning(cert, MC_PGP_WARN_BAD_SIGNATURE, NULL), mode == 2);
    ck_assert_uint_eq(mc_pgp_cert_num_recipients(cert), 1);
    mc_pgp_certs_free(certs);
    pgp_buf_cleanup(&back);
    build_free(&b);
  }
}
END_TEST

static Suite *pgp_keys_suite(void) {
  Suite *s = suite_create("pgp_keys");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, sample_keys, 0, NUM_SAMPLES);
  tcase_add_loop_test(tc, slhdsa_unusable, 0, 3);
  tcase_add_test(tc, many_certs);
  tcase_add_loop_test(tc, tampered, 0, NUM_SAMPLES);
  tcase_add_loop_test(tc, truncated, 0, NUM_SAMPLES);
  tcase_add_test(tc, oversized_lengths);
  tcase_add_test(tc, unknown_packets);
  tcase_add_test(tc, not_a_certificate);
  tcase_add_test(tc, armor);
  tcase_add_test(tc, pq_preferred);
  tcase_add_test(tc, flags_expiry_revocation);
  tcase_add_test(tc, back_signatures);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(pgp_keys_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
