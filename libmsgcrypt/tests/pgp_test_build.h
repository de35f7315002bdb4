// pgp_test_build.h: helpers shared by the OpenPGP certificate tests
// (test_pgp_keys.c, test_pgp_key_paths.c): reading the sample files of
// CORVID_VECTORS, packet bodies out of them, key fingerprints, the RFC 9580
// A.4 sample secret key as a signer, and self-signatures made from RFC 9580
// §5.2.4 independently of pgp_sig.c, so that the certificates the tests
// build are checked against a second implementation.
#ifndef MC_PGP_TEST_BUILD_H
#define MC_PGP_TEST_BUILD_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/curve25519.h>
#include <openssl/digest.h>
#include <openssl/nid.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "msgcrypt.h"
#include "pgp_internal.h"

// 2026-01-01, after every sample key and every signature the tests make.
#define NOW ((int64_t)1767225600)
#define T_2023 ((uint32_t)1672531200)
#define T_2025 ((uint32_t)1735689600)

// The hash algorithm IDs of RFC 9580 §9.5 the signatures here use.
#define HASH_SHA1 2
#define HASH_SHA256 8

// A byte string the caller frees with free(p).
struct blob {
  uint8_t *p;
  size_t len;
};

// read_blob reads the file at `path`, up to 1 MiB (every sample is smaller).
static inline struct blob read_blob(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  struct blob b = {malloc(1 << 20), 0};
  ck_assert_ptr_nonnull(b.p);
  b.len = fread(b.p, 1, 1 << 20, f);
  fclose(f);
  return b;
}

// read_vector reads a file below CORVID_VECTORS, where meson.build points
// every test program at the shared sample keys.
static inline struct blob read_vector(const char *rel) {
  const char *dir = getenv("CORVID_VECTORS");
  ck_assert_msg(dir != NULL, "CORVID_VECTORS not set");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return read_blob(path);
}

// dearmor returns the binary packets of an armored file.
static inline struct blob dearmor(const struct blob *a, const char *label) {
  pgp_buf out;
  pgp_buf_init_growable(&out);
  size_t off;
  ck_assert_int_eq(pgp_armor_decode(&out, &off, a->p, a->len, label, 1024), 1);
  ck_assert_int_eq(out.err, 0);
  struct blob b = {out.p, out.len};
  return b;
}

// packet_body copies the body of the first packet tagged `tag` of an
// armored sample file, the key material the tests rebuild certificates
// from; *index (when not NULL) tells which packet of the file it was, so
// that a caller can insist on the first.
static inline struct blob packet_body(const char *file, const char *label, uint8_t tag,
                                      size_t *index) {
  struct blob a = read_vector(file);
  struct blob b = dearmor(&a, label);
  pgp_cur c;
  pgp_cur_init(&c, b.p, b.len);
  pgp_packet p;
  int r;
  for (size_t i = 0; (r = pgp_packet_next(&c, &p, SIZE_MAX)) == 1; i++) {
    if (p.tag != tag)
      continue;
    struct blob k = {malloc(p.body_len), p.body_len};
    ck_assert_ptr_nonnull(k.p);
    memcpy(k.p, p.body, p.body_len);
    if (index != NULL)
      *index = i;
    free(a.p);
    free(b.p);
    return k;
  }
  ck_assert_int_eq(r, 0);
  ck_abort_msg("no packet with tag %d in %s", tag, file);
  return a;
}

// mc_pgp_certs_parse reports its reason only in the diag; parse_ok shows
// it when a certificate the test expects to be good is refused.
static inline mc_pgp_certs *parse_ok(const uint8_t *in, size_t in_len, int64_t now) {
  mc_pgp_certs *certs = NULL;
  mc_pgp_diag diag;
  int r = mc_pgp_certs_parse(&certs, NULL, &diag, in, in_len, now);
  ck_assert_msg(r == 0, "parse: %s: %s", mc_strerror(r), diag.message);
  ck_assert_ptr_nonnull(certs);
  return certs;
}

// describe_is checks the description and, with it, the length reported
// and the refusal of a buffer with no room for the terminator.
static inline void describe_is(const mc_pgp_cert *cert, const char *want) {
  char d[256];
  size_t n;
  ck_assert_int_eq(mc_pgp_cert_describe(cert, d, sizeof d, &n), 0);
  ck_assert_str_eq(d, want);
  ck_assert_uint_eq(n, strlen(want));
  ck_assert_int_eq(mc_pgp_cert_describe(cert, d, n, &n), MC_ERR_BUFFER_TOO_SMALL);
}

// Packet and key encodings, written here from RFC 9580 rather than through
// pgp_write.c or pgp_key.c.

static inline void put_u16(pgp_buf *b, uint32_t v) {
  pgp_buf_put_u8(b, (uint8_t)(v >> 8));
  pgp_buf_put_u8(b, (uint8_t)v);
}

// put_mpi writes `in` as an MPI (RFC 9580 §3.2): no leading zero octets,
// the exact bit count.
static inline void put_mpi(pgp_buf *b, const uint8_t *in, size_t in_len) {
  while (in_len > 0 && in[0] == 0) {
    in++;
    in_len--;
  }
  unsigned top_bits = 0;
  for (unsigned v = in_len > 0 ? in[0] : 0; v != 0; v >>= 1)
    top_bits++;
  put_u16(b, in_len > 0 ? (uint32_t)((in_len - 1) * 8 + top_bits) : 0);
  pgp_buf_put_bytes(b, in, in_len);
}

static inline void put_packet(pgp_buf *out, uint8_t tag, const uint8_t *body, size_t len) {
  pgp_buf_put_header(out, tag, len);
  pgp_buf_put_bytes(out, body, len);
}

// hash_key feeds a key packet body to a signature hash with the prefix of
// its version (RFC 9580 §5.2.4: 0x99 and two octets for v4, 0x9b and four
// for v6).
static inline void hash_key(EVP_MD_CTX *h, const struct blob *k) {
  if (k->p[0] == 4) {
    uint8_t hdr[3] = {0x99, (uint8_t)(k->len >> 8), (uint8_t)k->len};
    EVP_DigestUpdate(h, hdr, 3);
  } else {
    uint8_t hdr[5] = {0x9b, (uint8_t)(k->len >> 24), (uint8_t)(k->len >> 16),
                      (uint8_t)(k->len >> 8), (uint8_t)k->len};
    EVP_DigestUpdate(h, hdr, 5);
  }
  EVP_DigestUpdate(h, k->p, k->len);
}

// key_fingerprint computes a key's fingerprint by RFC 9580 §5.5.4 (SHA-1
// for v4, SHA-256 for v6), to compare with what pgp_key.c reports.
static inline void key_fingerprint(const struct blob *k, uint8_t out[32], size_t *out_len) {
  EVP_MD_CTX *h = EVP_MD_CTX_new();
  ck_assert_ptr_nonnull(h);
  ck_assert(EVP_DigestInit_ex(h, k->p[0] == 4 ? EVP_sha1() : EVP_sha256(), NULL));
  hash_key(h, k);
  unsigned len;
  ck_assert(EVP_DigestFinal_ex(h, out, &len));
  EVP_MD_CTX_free(h);
  *out_len = len;
}

// A primary key whose secret the test holds.
struct signer {
  struct blob key; // the public key packet body
  uint8_t algo;
  uint8_t ed_priv[64]; // Ed25519 seed || public key, BoringSSL's form
  RSA *rsa;            // the secret when algo is PGP_PK_RSA
  uint8_t fpr[32];
  size_t fpr_len;
};

// signer_sample_ed25519 makes the RFC 9580 A.4 sample secret key, a v6
// Ed25519 key, a signer: the one published secret matching a published
// certificate, so that what the tests sign binds to a known fingerprint.
static inline void signer_sample_ed25519(struct signer *s) {
  memset(s, 0, sizeof *s);
  size_t index;
  struct blob sec = packet_body("rfc9580-appendixA/a4_secret.asc", "PRIVATE KEY BLOCK",
                                PGP_TAG_SECRET_KEY, &index);
  ck_assert_uint_eq(index, 0);
  // v6 Ed25519 public part: 42 bytes; then S2K usage 0 and the 32-byte key.
  ck_assert_uint_eq(sec.len, 42 + 1 + 32);
  ck_assert_int_eq(sec.p[42], 0);
  uint8_t pub[32];
  ED25519_keypair_from_seed(pub, s->ed_priv, sec.p + 43);
  ck_assert(memcmp(pub, sec.p + 10, 32) == 0);
  s->key.p = malloc(42);
  ck_assert_ptr_nonnull(s->key.p);
  s->key.len = 42;
  memcpy(s->key.p, sec.p, 42);
  s->algo = PGP_PK_ED25519;
  key_fingerprint(&s->key, s->fpr, &s->fpr_len);
  free(sec.p);
}

static inline void signer_free(struct signer *s) {
  free(s->key.p);
  RSA_free(s->rsa);
}

// What a signature made by sign_packet says in its hashed area, and how
// it is made. A zero field leaves its subpacket out or takes the default;
// `flags` uses -1 for that, since empty key flags are a subpacket the
// tests need.
struct sig_opts {
  uint32_t created;
  int flags;               // key flags octet, -1: none
  uint32_t key_expires;    // key expiration time subpacket
  uint8_t features;        // features octet
  uint8_t pref_sym;        // a single preferred symmetric algorithm
  int primary_uid;         // a Primary User ID subpacket saying yes
  int critical_unknown;    // an unknown subpacket (100) marked critical
  const uint8_t *embedded; // an embedded signature (back-signature) body
  size_t embedded_len;
  uint8_t hash;              // HASH_SHA1 or HASH_SHA256 (0)
  const uint8_t *priv;       // sign with this Ed25519 key instead
  const uint8_t *issuer_fpr; // name this issuer instead (the signer's length)
  int corrupt;               // flip a bit of the signature material
  int body_only;             // write only the packet body (for embedding)
};

static inline void sub_u32(pgp_buf *o, uint8_t type, uint32_t v) {
  pgp_buf_put_u8(o, 5);
  pgp_buf_put_u8(o, type);
  pgp_buf_put_u32(o, v);
}

static inline void sub_u8(pgp_buf *o, uint8_t type, uint8_t v) {
  pgp_buf_put_u8(o, 2);
  pgp_buf_put_u8(o, type);
  pgp_buf_put_u8(o, v);
}

// sign_packet appends a signature packet of `type` by `s`, of the signer's
// key version, over its key and `subkey` or `uid` (or neither), computed
// from RFC 9580 §5.2.4 independently of pgp_sig.c.
static inline void sign_packet(pgp_buf *out, const struct signer *s, uint8_t type,
                               const struct blob *subkey, const char *uid,
                               const struct sig_opts *o) {
  uint8_t version = s->key.p[0];
  uint8_t hash = o->hash != 0 ? o->hash : HASH_SHA256;
  pgp_buf hashed;
  pgp_buf_init_growable(&hashed);
  sub_u32(&hashed, 2, o->created);
  if (o->flags >= 0)
    sub_u8(&hashed, 27, (uint8_t)o->flags);
  if (o->key_expires)
    sub_u32(&hashed, 9, o->key_expires);
  if (o->features)
    sub_u8(&hashed, 30, o->features);
  if (o->pref_sym)
    sub_u8(&hashed, 11, o->pref_sym);
  if (o->primary_uid)
    sub_u8(&hashed, 25, 1);
  if (o->critical_unknown)
    sub_u8(&hashed, 0x80 | 100, 1);
  if (o->embedded != NULL) {
    ck_assert_uint_lt(o->embedded_len, 8000);
    size_t n = o->embedded_len + 1;
    if (n < 192) {
      pgp_buf_put_u8(&hashed, (uint8_t)n);
    } else {
      pgp_buf_put_u8(&hashed, (uint8_t)(((n - 192) >> 8) + 192));
      pgp_buf_put_u8(&hashed, (uint8_t)(n - 192));
    }
    pgp_buf_put_u8(&hashed, 32);
    pgp_buf_put_bytes(&hashed, o->embedded, o->embedded_len);
  }
  pgp_buf_put_u8(&hashed, (uint8_t)(2 + s->fpr_len));
  pgp_buf_put_u8(&hashed, 33);
  pgp_buf_put_u8(&hashed, version);
  pgp_buf_put_bytes(&hashed, o->issuer_fpr != NULL ? o->issuer_fpr : s->fpr, s->fpr_len);
  ck_assert_int_eq(hashed.err, 0);

  pgp_buf part;
  pgp_buf_init_growable(&part);
  pgp_buf_put_u8(&part, version);
  pgp_buf_put_u8(&part, type);
  pgp_buf_put_u8(&part, s->algo);
  pgp_buf_put_u8(&part, hash);
  if (version == 6)
    pgp_buf_put_u32(&part, (uint32_t)hashed.len);
  else
    put_u16(&part, (uint32_t)hashed.len);
  pgp_buf_put_bytes(&part, hashed.p, hashed.len);
  ck_assert_int_eq(part.err, 0);

  EVP_MD_CTX *h = EVP_MD_CTX_new();
  ck_assert_ptr_nonnull(h);
  ck_assert(EVP_DigestInit_ex(h, hash == HASH_SHA1 ? EVP_sha1() : EVP_sha256(), NULL));
  uint8_t salt[16];
  for (int i = 0; i < 16; i++)
    salt[i] = (uint8_t)(i * 17 + type);
  if (version == 6)
    EVP_DigestUpdate(h, salt, 16);
  hash_key(h, &s->key);
  if (subkey != NULL)
    hash_key(h, subkey);
  if (uid != NULL) {
    size_t n = strlen(uid);
    uint8_t hdr[5] = {0xb4, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    EVP_DigestUpdate(h, hdr, 5);
    EVP_DigestUpdate(h, uid, n);
  }
  EVP_DigestUpdate(h, part.p, part.len);
  uint8_t trailer[6] = {version,
                        0xff,
                        (uint8_t)(part.len >> 24),
                        (uint8_t)(part.len >> 16),
                        (uint8_t)(part.len >> 8),
                        (uint8_t)part.len};
  EVP_DigestUpdate(h, trailer, 6);
  uint8_t digest[32];
  unsigned digest_len;
  ck_assert(EVP_DigestFinal_ex(h, digest, &digest_len));
  EVP_MD_CTX_free(h);

  pgp_buf material;
  pgp_buf_init_growable(&material);
  if (s->algo == PGP_PK_RSA) {
    uint8_t sig[256];
    unsigned sig_len;
    ck_assert(RSA_sign(hash == HASH_SHA1 ? NID_sha1 : NID_sha256, digest, digest_len, sig, &sig_len,
                       s->rsa));
    if (o->corrupt)
      sig[sig_len - 1] ^= 1;
    put_mpi(&material, sig, sig_len);
  } else {
    uint8_t sig[64];
    ck_assert_int_eq(ED25519_sign(sig, digest, digest_len, o->priv != NULL ? o->priv : s->ed_priv),
                     1);
    if (o->corrupt)
      sig[63] ^= 1;
    if (s->algo == PGP_PK_EDDSA_LEGACY) {
      // R and S as two MPIs (RFC 9580 §5.2.3.3).
      put_mpi(&material, sig, 32);
      put_mpi(&material, sig + 32, 32);
    } else {
      pgp_buf_put_bytes(&material, sig, 64);
    }
  }
  ck_assert_int_eq(material.err, 0);

  size_t body_len = part.len + (version == 6 ? 4 + 2 + 1 + 16 : 2 + 2) + material.len;
  if (!o->body_only)
    pgp_buf_put_header(out, PGP_TAG_SIGNATURE, body_len);
  pgp_buf_put_bytes(out, part.p, part.len);
  if (version == 6) {
    pgp_buf_put_u32(out, 0);
    pgp_buf_put_bytes(out, digest, 2);
    pgp_buf_put_u8(out, 16);
    pgp_buf_put_bytes(out, salt, 16);
  } else {
    put_u16(out, 0);
    pgp_buf_put_bytes(out, digest, 2);
  }
  pgp_buf_put_bytes(out, material.p, material.len);
  pgp_buf_cleanup(&hashed);
  pgp_buf_cleanup(&part);
  pgp_buf_cleanup(&material);
}

#endif
