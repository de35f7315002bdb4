// test_mldsa.c: ML-DSA-44/65/87 (FIPS 204) against NIST ACVP key generation,
// signature generation and verification vectors, Wycheproof's verification
// vectors for ML-DSA-65 and -87, and the RFC 9980 sample detached signatures
// (ML-DSA-65+Ed25519 and ML-DSA-87+Ed448, their ML-DSA halves); then the
// properties the vectors do not pin down: round trips with contexts, the
// errors of every entry point, rejection of malformed signatures (hint
// encodings of FIPS 204 Algorithm 21, bit flips, random bytes), and the
// arithmetic (rounding functions exhaustively over [0, q), the NTT against
// schoolbook multiplication).
#include <check.h>
#include <openssl/base64.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mldsa_internal.h"
#include "msgcrypt.h"
#include "testutil.h"
#include "vecjson.h"

static const mc_mldsa_level levels[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};

static mc_mldsa_level level_from_name(const char *name) {
  if (name != NULL && strcmp(name, "ML-DSA-44") == 0)
    return MC_MLDSA_44;
  if (name != NULL && strcmp(name, "ML-DSA-65") == 0)
    return MC_MLDSA_65;
  if (name != NULL && strcmp(name, "ML-DSA-87") == 0)
    return MC_MLDSA_87;
  ck_abort_msg("unknown parameter set %s", name ? name : "(null)");
  return MC_MLDSA_44;
}

static vj_value *load_vectors(const char *rel) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, rel));
  ck_assert_msg(root != NULL, "cannot parse %s", path);
  return root;
}

// unhex decodes the string member `key` of `obj`; a missing member gives an
// empty buffer when `optional`, a failure otherwise.
static uint8_t *unhex(const vj_value *obj, const char *key, size_t *len, int optional) {
  const char *hex = vj_str(obj, key);
  if (hex == NULL) {
    ck_assert_msg(optional, "missing %s", key);
    *len = 0;
    return calloc(1, 1);
  }
  uint8_t *out = mc_test_unhex(hex, len);
  ck_assert_msg(out != NULL, "bad hex in %s", key);
  return out;
}

static int json_true(const vj_value *obj, const char *key) {
  const vj_value *v = vj_get(obj, key);
  ck_assert_msg(v != NULL, "missing %s", key);
  if (v->type == VJ_BOOL)
    return v->boolean;
  ck_assert_int_eq(v->type, VJ_STRING);
  return strcmp(v->string, "True") == 0 || strcmp(v->string, "true") == 0;
}

// ACVP keyGen: every (seed, pk, sk) of the file, through KeyGen_internal.
static const char *const keygen_files[] = {
    "acvp/ML-DSA-keyGen-FIPS204/internalProjection.json",
    "acvp/rustcrypto-ml-dsa/key-gen.json",
};

START_TEST(acvp_keygen) {
  vj_value *root = load_vectors(keygen_files[_i]);
  const vj_value *groups = vj_get(root, "testGroups");
  ck_assert_ptr_nonnull(groups);
  size_t checked = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    mc_mldsa_level level = level_from_name(vj_str(group, "parameterSet"));
    const vj_value *tests = vj_get(group, "tests");
    for (size_t t = 0; t < tests->count; t++) {
      size_t seed_len, pk_len, sk_len;
      uint8_t *seed = unhex(&tests->items[t], "seed", &seed_len, 0);
      uint8_t *want_pk = unhex(&tests->items[t], "pk", &pk_len, 0);
      uint8_t *want_sk = unhex(&tests->items[t], "sk", &sk_len, 0);
      uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
      ck_assert_uint_eq(seed_len, MC_MLDSA_SEED_LEN);
      ck_assert_uint_eq(pk_len, mc_mldsa_public_key_len(level));
      ck_assert_uint_eq(sk_len, mc_mldsa_private_key_len(level));
      ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed), 0);
      ck_assert_msg(memcmp(pk, want_pk, pk_len) == 0, "pk of tcId %s",
                    vj_str(&tests->items[t], "tcId"));
      ck_assert_msg(memcmp(sk, want_sk, sk_len) == 0, "sk of tcId %s",
                    vj_str(&tests->items[t], "tcId"));
      free(seed);
      free(want_pk);
      free(want_sk);
      checked++;
    }
  }
  ck_assert_uint_eq(checked, 75);
  printf("# %s: %zu key pairs checked\n", keygen_files[_i], checked);
  fflush(stdout);
  vj_free(root);
}
END_TEST

// format_message builds M' for a test case: the message itself for the
// internal interface, 0 || |ctx| || ctx || msg for the external (pure) one.
static uint8_t *format_message(const vj_value *group, const vj_value *test, size_t *len) {
  size_t msg_len, ctx_len;
  uint8_t *msg = unhex(test, "message", &msg_len, 0);
  const char *iface = vj_str(group, "signatureInterface");
  if (iface == NULL || strcmp(iface, "internal") == 0) {
    *len = msg_len;
    return msg;
  }
  ck_assert_str_eq(iface, "external");
  uint8_t *ctx = unhex(test, "context", &ctx_len, 1);
  ck_assert_uint_le(ctx_len, 255);
  uint8_t *out = malloc(2 + ctx_len + msg_len + 1);
  out[0] = 0;
  out[1] = (uint8_t)ctx_len;
  memcpy(out + 2, ctx, ctx_len);
  memcpy(out + 2 + ctx_len, msg, msg_len);
  *len = 2 + ctx_len + msg_len;
  free(ctx);
  free(msg);
  return out;
}

// is_prehash says whether a group is HashML-DSA (FIPS 204 §5.4) or passes μ
// directly, neither of which libmsgcrypt offers.
static const char *unsupported_group(const vj_value *group) {
  const char *pre = vj_str(group, "preHash");
  if (pre != NULL && strcmp(pre, "preHash") == 0)
    return "HashML-DSA (pre-hash) is not implemented";
  const vj_value *mu = vj_get(group, "externalMu");
  if (mu != NULL && mu->type == VJ_BOOL && mu->boolean)
    return "external mu is not offered";
  return NULL;
}

START_TEST(acvp_siggen) {
  vj_value *root = load_vectors("acvp/rustcrypto-ml-dsa/sig-gen.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0, skipped = 0, deterministic = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    const vj_value *tests = vj_get(group, "tests");
    const char *why = unsupported_group(group);
    if (why != NULL) {
      printf("# sigGen group %g skipped (%zu tests): %s\n", vj_num(group, "tgId", 0), tests->count,
             why);
      skipped += tests->count;
      continue;
    }
    mc_mldsa_level level = level_from_name(vj_str(group, "parameterSet"));
    int det = json_true(group, "deterministic");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *test = &tests->items[t];
      size_t sk_len, want_len, m_len, rnd_len;
      uint8_t *sk = unhex(test, "sk", &sk_len, 0);
      uint8_t *want = unhex(test, "signature", &want_len, 0);
      uint8_t *m = format_message(group, test, &m_len);
      uint8_t *rnd = unhex(test, "rnd", &rnd_len, det);
      uint8_t zero[MC_MLDSA_RND_LEN] = {0}, sig[MC_MLDSA_MAX_SIGNATURE_LEN];
      if (det)
        ck_assert_uint_eq(rnd_len, 0);
      else
        ck_assert_uint_eq(rnd_len, MC_MLDSA_RND_LEN);
      ck_assert_uint_eq(want_len, mc_mldsa_signature_len(level));
      ck_assert_int_eq(
          mc_mldsa_sign_internal(level, sig, sizeof sig, sk, sk_len, m, m_len, det ? zero : rnd),
          0);
      ck_assert_msg(memcmp(sig, want, want_len) == 0, "signature of tcId %s", vj_str(test, "tcId"));
      free(sk);
      free(want);
      free(m);
      free(rnd);
      checked++;
      deterministic += det;
    }
  }
  ck_assert_uint_eq(checked + skipped, 60);
  ck_assert_uint_gt(checked, 0);
  printf("# sig-gen.json: %zu signatures checked (%zu deterministic), %zu skipped\n", checked,
         deterministic, skipped);
  fflush(stdout);
  vj_free(root);
}
END_TEST

START_TEST(acvp_sigver) {
  vj_value *root = load_vectors("acvp/rustcrypto-ml-dsa/sig-ver.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0, skipped = 0, valid = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    const vj_value *tests = vj_get(group, "tests");
    const char *why = unsupported_group(group);
    if (why != NULL) {
      printf("# sigVer group %g skipped (%zu tests): %s\n", vj_num(group, "tgId", 0), tests->count,
             why);
      skipped += tests->count;
      continue;
    }
    mc_mldsa_level level = level_from_name(vj_str(group, "parameterSet"));
    size_t pk_len;
    uint8_t *pk = unhex(group, "pk", &pk_len, 0);
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *test = &tests->items[t];
      size_t sig_len, m_len;
      uint8_t *sig = unhex(test, "signature", &sig_len, 0);
      uint8_t *m = format_message(group, test, &m_len);
      int want = json_true(test, "testPassed");
      int got = mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, m, m_len);
      ck_assert_msg(got == (want ? 0 : MC_ERR_BAD_SIGNATURE), "tcId %s (%s): got %d",
                    vj_str(test, "tcId"), vj_str(test, "reason"), got);
      free(sig);
      free(m);
      checked++;
      valid += want;
    }
    free(pk);
  }
  ck_assert_uint_eq(checked + skipped, 45);
  ck_assert_uint_gt(checked, 0);
  printf("# sig-ver.json: %zu verifications checked (%zu valid), %zu skipped\n", checked, valid,
         skipped);
  fflush(stdout);
  vj_free(root);
}
END_TEST

// Wycheproof: every result honoured; "invalid" may be any error code (a bad
// key length is MC_ERR_BAD_KEY, an over-long context MC_ERR_INVALID_ARGUMENT),
// "valid" must be 0.
static const struct {
  const char *file;
  mc_mldsa_level level;
} wycheproof_files[] = {
    {"wycheproof/mldsa_65_verify_test.json", MC_MLDSA_65},
    {"wycheproof/mldsa_87_verify_test.json", MC_MLDSA_87},
};

START_TEST(wycheproof_verify) {
  vj_value *root = load_vectors(wycheproof_files[_i].file);
  mc_mldsa_level level = wycheproof_files[_i].level;
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0, valid = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    size_t pk_len;
    uint8_t *pk = unhex(group, "publicKey", &pk_len, 0);
    const vj_value *tests = vj_get(group, "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *test = &tests->items[t];
      size_t msg_len, ctx_len, sig_len;
      uint8_t *msg = unhex(test, "msg", &msg_len, 0);
      uint8_t *ctx = unhex(test, "ctx", &ctx_len, 1);
      uint8_t *sig = unhex(test, "sig", &sig_len, 0);
      const char *result = vj_str(test, "result");
      int got = mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, msg_len, ctx, ctx_len);
      if (strcmp(result, "valid") == 0) {
        ck_assert_msg(got == 0, "tcId %g (%s): got %d", vj_num(test, "tcId", 0),
                      vj_str(test, "comment"), got);
        valid++;
      } else {
        ck_assert_str_eq(result, "invalid");
        ck_assert_msg(got < 0, "tcId %g (%s) verified", vj_num(test, "tcId", 0),
                      vj_str(test, "comment"));
        if (pk_len == mc_mldsa_public_key_len(level) && ctx_len <= MC_MLDSA_MAX_CONTEXT_LEN)
          ck_assert_int_eq(got, MC_ERR_BAD_SIGNATURE);
      }
      free(msg);
      free(ctx);
      free(sig);
      checked++;
    }
    free(pk);
  }
  ck_assert_int_eq((double)checked, vj_num(root, "numberOfTests", -1));
  printf("# %s: %zu verifications checked (%zu valid)\n", wycheproof_files[_i].file, checked,
         valid);
  fflush(stdout);
  vj_free(root);
}
END_TEST

// RFC 9980 samples. A v6 detached signature (RFC 9580 §5.2.4) over the
// canonical text "Testing\r\n": the ML-DSA half signs the digest of salt ||
// text || the hashed part of the packet || 0x06 0xff || its length, with an
// empty context (RFC 9980 "ML-DSA Signatures"). The public key packet carries
// the EdDSA key then the ML-DSA key; the unencrypted secret key packet ends
// with the 32-byte ML-DSA seed. Only the ML-DSA halves are checked here: the
// composite with EdDSA belongs to the OpenPGP layer.
static const struct {
  const char *sig_file, *pk_file, *sk_file;
  mc_mldsa_level level;
  uint8_t algo; // OpenPGP public-key algorithm ID
  size_t eddsa_pk_len, eddsa_sig_len;
} openpgp_samples[] = {
    {"openpgp-pqc/v6-mldsa-65-sample-signature.asc", "openpgp-pqc/v6-mldsa-65-sample-pk.asc",
     "openpgp-pqc/v6-mldsa-65-sample-sk.asc", MC_MLDSA_65, 30, 32, 64},
    {"openpgp-pqc/v6-mldsa-87-sample-signature.asc", "openpgp-pqc/v6-mldsa-87-sample-pk.asc",
     "openpgp-pqc/v6-mldsa-87-sample-sk.asc", MC_MLDSA_87, 31, 57, 114},
};

// dearmor reads an ASCII-armored file and returns its decoded body
// (malloc'd), without the armor headers and the CRC line.
static uint8_t *dearmor(const char *rel, size_t *out_len) {
  char path[4096], line[1024];
  FILE *f = fopen(vj_vectors_path(path, sizeof path, rel), "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t cap = 1 << 16, len = 0;
  char *b64 = malloc(cap);
  int state = 0; // 0 before BEGIN, 1 in headers, 2 in body
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "-----BEGIN", 10) == 0) {
      state = 1;
    } else if (strncmp(line, "-----END", 8) == 0) {
      break;
    } else if (state == 1) {
      if (line[0] == '\0')
        state = 2;
    } else if (state == 2 && line[0] != '=') {
      size_t n = strlen(line);
      ck_assert_uint_lt(len + n, cap);
      memcpy(b64 + len, line, n);
      len += n;
    }
  }
  fclose(f);
  size_t max;
  ck_assert_int_eq(EVP_DecodedLength(&max, len), 1);
  uint8_t *out = malloc(max);
  ck_assert_int_eq(EVP_DecodeBase64(out, out_len, max, (const uint8_t *)b64, len), 1);
  free(b64);
  return out;
}

// first_packet returns the body of the first packet (new-format header, RFC
// 9580 §4.2.1, which is all these files use) and its tag.
static const uint8_t *first_packet(const uint8_t *in, size_t in_len, int *tag, size_t *body_len) {
  ck_assert_uint_ge(in_len, 2);
  ck_assert_int_eq(in[0] & 0xc0, 0xc0);
  *tag = in[0] & 0x3f;
  size_t len, hdr;
  if (in[1] < 192) {
    len = in[1];
    hdr = 2;
  } else if (in[1] < 224) {
    len = ((size_t)(in[1] - 192) << 8) + in[2] + 192;
    hdr = 3;
  } else {
    ck_assert_int_eq(in[1], 255);
    len = (size_t)in[2] << 24 | (size_t)in[3] << 16 | (size_t)in[4] << 8 | in[5];
    hdr = 6;
  }
  ck_assert_uint_le(hdr + len, in_len);
  *body_len = len;
  return in + hdr;
}

static uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

START_TEST(openpgp_sample_signature) {
  mc_mldsa_level level = openpgp_samples[_i].level;
  size_t mldsa_pk_len = mc_mldsa_public_key_len(level);
  size_t mldsa_sig_len = mc_mldsa_signature_len(level);
  size_t der_len, body_len;
  int tag;

  // Public key packet: version 6, creation time, algorithm, material length,
  // EdDSA key, ML-DSA key.
  uint8_t *pk_file = dearmor(openpgp_samples[_i].pk_file, &der_len);
  const uint8_t *key = first_packet(pk_file, der_len, &tag, &body_len);
  ck_assert_int_eq(tag, 6);
  ck_assert_int_eq(key[0], 6);
  ck_assert_int_eq(key[5], openpgp_samples[_i].algo);
  size_t key_packet_len = body_len;
  ck_assert_uint_eq(load_be32(key + 6), openpgp_samples[_i].eddsa_pk_len + mldsa_pk_len);
  const uint8_t *mldsa_pk = key + 10 + openpgp_samples[_i].eddsa_pk_len;
  ck_assert_uint_eq(10 + openpgp_samples[_i].eddsa_pk_len + mldsa_pk_len, body_len);

  // Signature packet: version, type, algorithms, hashed subpackets,
  // unhashed subpackets, left 16 bits of the digest, salt, then the EdDSA
  // and ML-DSA signatures.
  size_t sig_file_len;
  uint8_t *sig_file = dearmor(openpgp_samples[_i].sig_file, &sig_file_len);
  const uint8_t *s = first_packet(sig_file, sig_file_len, &tag, &body_len);
  ck_assert_int_eq(tag, 2);
  ck_assert_int_eq(s[0], 6);
  ck_assert_int_eq(s[1], 0x01); // canonical text document
  ck_assert_int_eq(s[2], openpgp_samples[_i].algo);
  uint8_t hash_algo = s[3];
  size_t hashed_len = load_be32(s + 4);
  size_t pos = 8 + hashed_len;
  pos += 4 + load_be32(s + pos);
  const uint8_t *left16 = s + pos;
  size_t salt_len = s[pos + 2];
  const uint8_t *salt = s + pos + 3;
  pos += 3 + salt_len;
  ck_assert_uint_eq(body_len - pos, openpgp_samples[_i].eddsa_sig_len + mldsa_sig_len);
  const uint8_t *mldsa_sig = s + pos + openpgp_samples[_i].eddsa_sig_len;

  static const uint8_t text[] = "Testing\r\n";
  uint8_t trailer[6] = {0x06, 0xff};
  trailer[2] = (uint8_t)((8 + hashed_len) >> 24);
  trailer[3] = (uint8_t)((8 + hashed_len) >> 16);
  trailer[4] = (uint8_t)((8 + hashed_len) >> 8);
  trailer[5] = (uint8_t)(8 + hashed_len);
  uint8_t digest[64];
  size_t digest_len;
  if (hash_algo == 8) { // SHA2-256
    SHA256_CTX sha;
    SHA256_Init(&sha);
    SHA256_Update(&sha, salt, salt_len);
    SHA256_Update(&sha, text, sizeof text - 1);
    SHA256_Update(&sha, s, 8 + hashed_len);
    SHA256_Update(&sha, trailer, sizeof trailer);
    SHA256_Final(digest, &sha);
    digest_len = 32;
  } else {
    ck_assert_int_eq(hash_algo, 14); // SHA3-512
    mc_sha3_ctx sha;
    ck_assert_int_eq(mc_sha3_init(&sha, MC_SHA3_512), 0);
    ck_assert_int_eq(mc_sha3_update(&sha, salt, salt_len), 0);
    ck_assert_int_eq(mc_sha3_update(&sha, text, sizeof text - 1), 0);
    ck_assert_int_eq(mc_sha3_update(&sha, s, 8 + hashed_len), 0);
    ck_assert_int_eq(mc_sha3_update(&sha, trailer, sizeof trailer), 0);
    ck_assert_int_eq(mc_sha3_final(&sha, digest, sizeof digest, &digest_len), 0);
  }
  // The packet's own check value confirms the digest before ML-DSA sees it.
  ck_assert_mem_eq(digest, left16, 2);
  ck_assert_int_eq(mc_mldsa_verify(level, mldsa_pk, mldsa_pk_len, mldsa_sig, mldsa_sig_len, digest,
                                   digest_len, NULL, 0),
                   0);
  digest[0] ^= 1;
  ck_assert_int_eq(mc_mldsa_verify(level, mldsa_pk, mldsa_pk_len, mldsa_sig, mldsa_sig_len, digest,
                                   digest_len, NULL, 0),
                   MC_ERR_BAD_SIGNATURE);

  // Secret key packet: the public key packet's fields, S2K usage 0, the
  // EdDSA secret, the ML-DSA seed. The seed must give the same public key.
  size_t sk_file_len;
  uint8_t *sk_file = dearmor(openpgp_samples[_i].sk_file, &sk_file_len);
  const uint8_t *sk = first_packet(sk_file, sk_file_len, &tag, &body_len);
  ck_assert_int_eq(tag, 5);
  ck_assert_mem_eq(sk, key, key_packet_len);
  ck_assert_int_eq(sk[key_packet_len], 0);
  ck_assert_uint_eq(body_len,
                    key_packet_len + 1 + openpgp_samples[_i].eddsa_pk_len + MC_MLDSA_SEED_LEN);
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], priv[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, sizeof pk, priv, sizeof priv,
                                             sk + body_len - MC_MLDSA_SEED_LEN),
                   0);
  ck_assert_mem_eq(pk, mldsa_pk, mldsa_pk_len);
  printf("# %s: ML-DSA half verified, seed reproduces the key\n", openpgp_samples[_i].sig_file);
  fflush(stdout);
  free(pk_file);
  free(sig_file);
  free(sk_file);
}
END_TEST

// Round trips and the context string.
START_TEST(sign_verify_round_trip) {
  mc_mldsa_level level = levels[_i];
  size_t pk_len = mc_mldsa_public_key_len(level), sk_len = mc_mldsa_private_key_len(level);
  size_t sig_len = mc_mldsa_signature_len(level);
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  uint8_t pk2[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk2[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  uint8_t seed[MC_MLDSA_SEED_LEN], sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  uint8_t sig2[MC_MLDSA_MAX_SIGNATURE_LEN], ctx[256], msg[300];
  ck_assert_int_eq(mc_mldsa_keygen(level, pk, pk_len, sk, sk_len, seed), 0);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk2, pk_len, sk2, sk_len, seed), 0);
  ck_assert_mem_eq(pk, pk2, pk_len);
  ck_assert_mem_eq(sk, sk2, sk_len);
  for (size_t i = 0; i < sizeof ctx; i++)
    ctx[i] = (uint8_t)(i * 7 + 1);
  for (size_t i = 0; i < sizeof msg; i++)
    msg[i] = (uint8_t)(i * 13 + 5);

  static const size_t ctx_lens[] = {0, 1, 17, 255};
  for (size_t c = 0; c < sizeof ctx_lens / sizeof ctx_lens[0]; c++) {
    size_t cl = ctx_lens[c];
    // Hedged: verifies, and (with overwhelming probability) differs per call.
    ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len, msg, sizeof msg, ctx, cl), 0);
    ck_assert_int_eq(mc_mldsa_sign(level, sig2, sig_len, sk, sk_len, msg, sizeof msg, ctx, cl), 0);
    ck_assert_int_ne(memcmp(sig, sig2, sig_len), 0);
    ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, ctx, cl), 0);
    ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig2, sig_len, msg, sizeof msg, ctx, cl),
                     0);
    // Another context, another message or another key: no.
    uint8_t other_ctx[256];
    memcpy(other_ctx, ctx, sizeof ctx);
    other_ctx[0] ^= 1;
    ck_assert_int_eq(
        mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, other_ctx, cl ? cl : 1),
        MC_ERR_BAD_SIGNATURE);
    ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg - 1, ctx, cl),
                     MC_ERR_BAD_SIGNATURE);
    // Deterministic: the same bytes every time, equal to Sign_internal with
    // M' = 0 || |ctx| || ctx || msg and rnd = 0.
    ck_assert_int_eq(
        mc_mldsa_sign_deterministic(level, sig, sig_len, sk, sk_len, msg, sizeof msg, ctx, cl), 0);
    ck_assert_int_eq(
        mc_mldsa_sign_deterministic(level, sig2, sig_len, sk, sk_len, msg, sizeof msg, ctx, cl), 0);
    ck_assert_mem_eq(sig, sig2, sig_len);
    uint8_t formatted[2 + 255 + sizeof msg], zero[MC_MLDSA_RND_LEN] = {0};
    formatted[0] = 0;
    formatted[1] = (uint8_t)cl;
    memcpy(formatted + 2, ctx, cl);
    memcpy(formatted + 2 + cl, msg, sizeof msg);
    ck_assert_int_eq(mc_mldsa_sign_internal(level, sig2, sig_len, sk, sk_len, formatted,
                                            2 + cl + sizeof msg, zero),
                     0);
    ck_assert_mem_eq(sig, sig2, sig_len);
    ck_assert_int_eq(
        mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, formatted, 2 + cl + sizeof msg),
        0);
    ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, ctx, cl), 0);
  }
  // The empty message, with NULL pointers for the empty inputs.
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, 1, NULL, 0),
                   MC_ERR_BAD_SIGNATURE);
  // Another key does not verify it.
  uint8_t seed2[MC_MLDSA_SEED_LEN];
  memcpy(seed2, seed, sizeof seed);
  seed2[31] ^= 0x80;
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk2, pk_len, sk2, sk_len, seed2), 0);
  ck_assert_int_eq(mc_mldsa_verify(level, pk2, pk_len, sig, sig_len, NULL, 0, NULL, 0),
                   MC_ERR_BAD_SIGNATURE);
}
END_TEST

START_TEST(errors_are_reported) {
  mc_mldsa_level level = levels[_i];
  size_t pk_len = mc_mldsa_public_key_len(level), sk_len = mc_mldsa_private_key_len(level);
  size_t sig_len = mc_mldsa_signature_len(level);
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN + 1], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN + 1];
  uint8_t sig[MC_MLDSA_MAX_SIGNATURE_LEN + 1], seed[MC_MLDSA_SEED_LEN] = {1};
  uint8_t rnd[MC_MLDSA_RND_LEN] = {0}, ctx[256] = {0}, msg[3] = "abc";
  const mc_mldsa_level bad_levels[] = {(mc_mldsa_level)0, (mc_mldsa_level)4, (mc_mldsa_level)-1};

  for (size_t b = 0; b < 3; b++) {
    ck_assert_uint_eq(mc_mldsa_public_key_len(bad_levels[b]), 0);
    ck_assert_uint_eq(mc_mldsa_private_key_len(bad_levels[b]), 0);
    ck_assert_uint_eq(mc_mldsa_signature_len(bad_levels[b]), 0);
    ck_assert_int_eq(mc_mldsa_keygen(bad_levels[b], pk, sizeof pk, sk, sizeof sk, NULL),
                     MC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mc_mldsa_keygen_from_seed(bad_levels[b], pk, sizeof pk, sk, sizeof sk, seed),
                     MC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mc_mldsa_sign(bad_levels[b], sig, sizeof sig, sk, sk_len, msg, 3, NULL, 0),
                     MC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mc_mldsa_verify(bad_levels[b], pk, pk_len, sig, sig_len, msg, 3, NULL, 0),
                     MC_ERR_INVALID_ARGUMENT);
  }

  // Key generation: short buffers leave them untouched; NULL outputs.
  memset(pk, 0xaa, sizeof pk);
  memset(sk, 0xaa, sizeof sk);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, pk_len - 1, sk, sk_len, seed),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, pk_len, sk, sk_len - 1, seed),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mldsa_keygen(level, pk, pk_len, sk, sk_len - 1, NULL),
                   MC_ERR_BUFFER_TOO_SMALL);
  for (size_t i = 0; i < sizeof pk; i++)
    ck_assert_int_eq(pk[i], 0xaa);
  for (size_t i = 0; i < sizeof sk; i++)
    ck_assert_int_eq(sk[i], 0xaa);
  ck_assert_int_eq(mc_mldsa_keygen(level, NULL, pk_len, sk, sk_len, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, pk_len, NULL, sk_len, seed),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, pk_len, sk, sk_len, NULL),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, seed), 0);

  // Signing.
  memset(sig, 0xaa, sizeof sig);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len - 1, sk, sk_len, msg, 3, NULL, 0),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len - 1, msg, 3, NULL, 0),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len + 1, msg, 3, NULL, 0),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len, msg, 3, ctx, 256),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_sign_deterministic(level, sig, sig_len, sk, sk_len, msg, 3, NULL, 1),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, sk, sk_len, NULL, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_sign(level, NULL, sig_len, sk, sk_len, msg, 3, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_sign(level, sig, sig_len, NULL, sk_len, msg, 3, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_sign_internal(level, sig, sig_len, sk, sk_len, msg, 3, NULL),
                   MC_ERR_INVALID_ARGUMENT);
  for (size_t i = 0; i < sizeof sig; i++)
    ck_assert_int_eq(sig[i], 0xaa);
  ck_assert_int_eq(mc_mldsa_sign_internal(level, sig, sig_len, sk, sk_len, msg, 3, rnd), 0);
  ck_assert_int_eq(sig[sig_len], 0xaa);

  // Verification.
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, msg, 3), 0);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len - 1, sig, sig_len, msg, 3),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len + 1, sig, sig_len, msg, 3),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, 0, sig, sig_len, msg, 3), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len - 1, msg, 3),
                   MC_ERR_BAD_SIGNATURE);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len + 1, msg, 3),
                   MC_ERR_BAD_SIGNATURE);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, sig, 0, msg, 3),
                   MC_ERR_BAD_SIGNATURE);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, NULL, pk_len, sig, sig_len, msg, 3),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, NULL, sig_len, msg, 3),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, NULL, 3),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, 3, ctx, 256),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, 3, NULL, 2),
                   MC_ERR_INVALID_ARGUMENT);
}
END_TEST

// Malformed signatures: hint encodings that Algorithm 21 rejects, z beyond
// the norm bound, bit flips anywhere, random bytes. None may verify.
START_TEST(malformed_signatures_are_rejected) {
  mc_mldsa_level level = levels[_i];
  const mc_mldsa_params *p = mc_mldsa_params_get(level);
  size_t pk_len = p->public_key_len, sk_len = p->private_key_len, sig_len = p->signature_len;
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  uint8_t seed[MC_MLDSA_SEED_LEN] = {7}, sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  uint8_t bad[MC_MLDSA_MAX_SIGNATURE_LEN], msg[32] = {0};
  ck_assert_int_eq(mc_mldsa_keygen_from_seed(level, pk, pk_len, sk, sk_len, seed), 0);
  // Find a signature with at least two hints in one polynomial, so that the
  // ordering rules can be broken without changing the hint set.
  uint8_t *y = NULL;
  unsigned poly = 0;
  for (int tries = 0; y == NULL && tries < 1000; tries++) {
    msg[0] = (uint8_t)tries;
    msg[1] = (uint8_t)(tries >> 8);
    ck_assert_int_eq(
        mc_mldsa_sign_deterministic(level, sig, sig_len, sk, sk_len, msg, sizeof msg, NULL, 0), 0);
    uint8_t *h = sig + sig_len - p->omega - p->k;
    unsigned prev = 0;
    for (unsigned i = 0; i < p->k && y == NULL; i++) {
      if (h[p->omega + i] - prev >= 2) {
        y = h;
        poly = i;
      }
      prev = h[p->omega + i];
    }
  }
  ck_assert_ptr_nonnull(y);
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, NULL, 0), 0);
  size_t hoff = (size_t)(y - sig);
  unsigned first = poly == 0 ? 0 : y[p->omega + poly - 1];
  unsigned total = y[p->omega + p->k - 1];

#define EXPECT_BAD()                                                                               \
  ck_assert_int_eq(mc_mldsa_verify(level, pk, pk_len, bad, sig_len, msg, sizeof msg, NULL, 0),     \
                   MC_ERR_BAD_SIGNATURE)

  // Two hint positions of one polynomial swapped (not increasing).
  memcpy(bad, sig, sig_len);
  bad[hoff + first] = sig[hoff + first + 1];
  bad[hoff + first + 1] = sig[hoff + first];
  EXPECT_BAD();
  // A position repeated.
  memcpy(bad, sig, sig_len);
  bad[hoff + first + 1] = sig[hoff + first];
  EXPECT_BAD();
  // Non-zero padding after the last hint (when there is room for one).
  if (total < p->omega) {
    memcpy(bad, sig, sig_len);
    bad[hoff + p->omega - 1] = 1;
    EXPECT_BAD();
  }
  // A count above ω, and counts that decrease.
  memcpy(bad, sig, sig_len);
  bad[hoff + p->omega + p->k - 1] = (uint8_t)(p->omega + 1);
  EXPECT_BAD();
  memcpy(bad, sig, sig_len);
  bad[hoff + p->omega + poly] = (uint8_t)(first - (first > 0));
  if (poly > 0 || first > 0)
    EXPECT_BAD();
  // z[0][0] = −γ1 + 1 and z[0][0] = γ1 (the extremes BitUnpack can give),
  // both beyond γ1 − β: packed as γ1 − z in z_bits bits at the start of z.
  for (int extreme = 0; extreme < 2; extreme++) {
    memcpy(bad, sig, sig_len);
    uint32_t v = extreme ? 0 : (uint32_t)(2 * p->gamma1 - 1);
    size_t zoff = p->ctilde_len;
    bad[zoff] = (uint8_t)v;
    bad[zoff + 1] = (uint8_t)(v >> 8);
    bad[zoff + 2] = (uint8_t)((bad[zoff + 2] & ~((1u << (p->z_bits - 16)) - 1)) | (v >> 16));
    EXPECT_BAD();
  }
  // Every 31st bit flipped, one at a time: c̃, z and the hints.
  for (size_t bit = 0; bit < 8 * sig_len; bit += 31) {
    memcpy(bad, sig, sig_len);
    bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    EXPECT_BAD();
  }
  // Random signatures.
  for (int i = 0; i < 50; i++) {
    RAND_bytes(bad, sig_len);
    EXPECT_BAD();
  }
#undef EXPECT_BAD
}
END_TEST

// A private key of random bytes (coefficients of s1, s2 and t0 outside their
// ranges) is trusted as documented: signing finishes without reading out of
// bounds or overflowing (the sanitizer build checks that) and gives a
// signature of the right length or MC_ERR_BAD_KEY.
START_TEST(random_private_keys_sign_safely) {
  mc_mldsa_level level = levels[_i];
  size_t sk_len = mc_mldsa_private_key_len(level), sig_len = mc_mldsa_signature_len(level);
  uint8_t sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN], sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  for (int round = 0; round < 3; round++) {
    RAND_bytes(sk, sk_len);
    if (round == 1)
      memset(sk + 128, 0xff, sk_len - 128); // s1, s2 at −5 or −11, t0 at −4095
    int status = mc_mldsa_sign_deterministic(level, sig, sig_len, sk, sk_len, sk, 32, NULL, 0);
    ck_assert(status == 0 || status == MC_ERR_BAD_KEY);
  }
}
END_TEST

// HintBitUnpack's rules, on hand-made encodings for ML-DSA-44 (ω = 80, k = 4).
START_TEST(hint_unpack_rules) {
  const mc_mldsa_params *p = mc_mldsa_params_get(MC_MLDSA_44);
  static mc_mldsa_signature sig;
  uint8_t enc[MC_MLDSA44_SIGNATURE_LEN] = {0};
  uint8_t *y = enc + p->signature_len - p->omega - p->k;
  // No hints at all.
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), 0);
  // Hints {3, 9} in polynomial 1, {0} in polynomial 3.
  y[0] = 3;
  y[1] = 9;
  y[2] = 0;
  y[80] = 0;
  y[81] = 2;
  y[82] = 2;
  y[83] = 3;
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), 0);
  ck_assert_int_eq(sig.h[1][3] + sig.h[1][9] + sig.h[3][0], 3);
  uint8_t re[MC_MLDSA44_SIGNATURE_LEN];
  mc_mldsa_signature_encode(re, p, &sig);
  ck_assert_mem_eq(re, enc, p->signature_len);
  // Index 0 after 9 in the next polynomial is fine; within one it is not.
  y[81] = 3;
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), MC_ERR_BAD_SIGNATURE);
  y[81] = 2;
  y[82] = 1; // count decreases
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), MC_ERR_BAD_SIGNATURE);
  y[82] = 2;
  y[83] = 81; // above ω
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), MC_ERR_BAD_SIGNATURE);
  y[83] = 3;
  y[79] = 1; // padding not zero
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), MC_ERR_BAD_SIGNATURE);
  y[79] = 0;
  y[1] = 3; // repeated index
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), MC_ERR_BAD_SIGNATURE);
  y[1] = 9;
  // All ω hints used: the maximum is accepted.
  for (unsigned i = 0; i < 80; i++)
    y[i] = (uint8_t)(i < 64 ? i * 4 : (i - 64) * 16);
  y[80] = 64;
  y[81] = 64;
  y[82] = 80;
  y[83] = 80;
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len), 0);
  mc_mldsa_signature_encode(re, p, &sig);
  ck_assert_mem_eq(re, enc, p->signature_len);
  ck_assert_int_eq(mc_mldsa_signature_decode(&sig, p, enc, p->signature_len - 1),
                   MC_ERR_BAD_SIGNATURE);
}
END_TEST

// The rounding functions against FIPS 204 Algorithms 35, 36 and 40 written
// with divisions and branches, for every r in [0, q).
static void spec_decompose(int32_t *r1, int32_t *r0, int32_t r, int32_t gamma2) {
  int32_t a = 2 * gamma2;
  int32_t m = r % a;
  if (m > gamma2)
    m -= a;
  if (r - m == MC_MLDSA_Q - 1) {
    *r1 = 0;
    *r0 = m - 1;
  } else {
    *r1 = (r - m) / a;
    *r0 = m;
  }
}

START_TEST(rounding_matches_spec_everywhere) {
  static const int32_t gammas[] = {(MC_MLDSA_Q - 1) / 88, (MC_MLDSA_Q - 1) / 32};
  for (int g = 0; g < 2; g++) {
    int32_t gamma2 = gammas[g], m = (MC_MLDSA_Q - 1) / (2 * gamma2);
    for (int32_t r = 0; r < MC_MLDSA_Q; r++) {
      int32_t r1, r0, w1, w0;
      mc_mldsa_decompose(&r1, &r0, r, gamma2);
      spec_decompose(&w1, &w0, r, gamma2);
      if (r1 != w1 || r0 != w0)
        ck_abort_msg("decompose(%d, %d) = (%d, %d), want (%d, %d)", r, gamma2, r1, r0, w1, w0);
      int32_t h1 = w1;
      if (w0 > 0)
        h1 = (w1 + 1) % m;
      else
        h1 = (w1 - 1 + m) % m;
      if (mc_mldsa_use_hint(0, r, gamma2) != w1 || mc_mldsa_use_hint(1, r, gamma2) != h1)
        ck_abort_msg("use_hint(·, %d, %d)", r, gamma2);
    }
  }
  for (int32_t r = 0; r < MC_MLDSA_Q; r++) {
    int32_t r1, r0, m = r % 8192;
    if (m > 4096)
      m -= 8192;
    mc_mldsa_power2round(&r1, &r0, r);
    if (r0 != m || r1 != (r - m) / 8192)
      ck_abort_msg("power2round(%d)", r);
  }
}
END_TEST

// The NTT: products through it equal schoolbook products in Z_q[X]/(X^256+1).
static int32_t mod_q(int64_t x) {
  x %= MC_MLDSA_Q;
  return (int32_t)(x < 0 ? x + MC_MLDSA_Q : x);
}

START_TEST(ntt_product_matches_schoolbook) {
  static mc_mldsa_poly a, b, prod;
  static int64_t want[MC_MLDSA_N];
  for (int round = 0; round < 20; round++) {
    uint32_t rnd[2 * MC_MLDSA_N];
    RAND_bytes((uint8_t *)rnd, sizeof rnd);
    for (int i = 0; i < MC_MLDSA_N; i++) {
      // Full-range coefficients in (−q, q) in some rounds, small in others.
      int32_t bound = round % 2 ? MC_MLDSA_Q - 1 : 1 << 19;
      a.c[i] = (int32_t)(rnd[i] % (2 * (uint32_t)bound + 1)) - bound;
      b.c[i] = (int32_t)(rnd[MC_MLDSA_N + i] % (2 * (uint32_t)bound + 1)) - bound;
    }
    memset(want, 0, sizeof want);
    for (int i = 0; i < MC_MLDSA_N; i++)
      for (int j = 0; j < MC_MLDSA_N; j++) {
        int64_t t = (int64_t)mod_q(a.c[i]) * mod_q(b.c[j]) % MC_MLDSA_Q;
        if (i + j < MC_MLDSA_N)
          want[i + j] += t;
        else
          want[i + j - MC_MLDSA_N] -= t;
      }
    mc_mldsa_ntt(&a);
    mc_mldsa_ntt(&b);
    mc_mldsa_pointwise(&prod, &a, &b);
    mc_mldsa_invntt(&prod);
    for (int i = 0; i < MC_MLDSA_N; i++) {
      ck_assert_int_gt(prod.c[i], -MC_MLDSA_Q);
      ck_assert_int_lt(prod.c[i], MC_MLDSA_Q);
      ck_assert_int_eq(mod_q(prod.c[i]), mod_q(want[i]));
    }
  }
}
END_TEST

// The signer's shortcut: c·s1 and c·s2 from one inverse NTT of
// c ∘ NTT(s1 + 2^11 · s2), split by mc_mldsa_pair_split, equal the two
// products computed on their own, for every coefficient range a private key
// can encode (also malformed ones: [−5, 2] for η = 2, [−11, 4] for η = 4),
// including the extremes that maximise |c·s|.
START_TEST(paired_products_split_exactly) {
  static mc_mldsa_poly c, s1, s2, packed, alone1, alone2;
  for (size_t l = 0; l < 3; l++) {
    const mc_mldsa_params *p = mc_mldsa_params_get(levels[l]);
    int32_t lo = (int32_t)p->eta - ((1 << p->eta_bits) - 1), hi = (int32_t)p->eta;
    for (int round = 0; round < 40; round++) {
      uint8_t seed[64], rnd[2 * MC_MLDSA_N];
      RAND_bytes(seed, sizeof seed);
      RAND_bytes(rnd, sizeof rnd);
      mc_mldsa_sample_in_ball(&c, seed, p->ctilde_len, p->tau);
      for (int i = 0; i < MC_MLDSA_N; i++) {
        uint32_t span = (uint32_t)(hi - lo + 1);
        s1.c[i] = lo + (int32_t)(rnd[i] % span);
        s2.c[i] = lo + (int32_t)(rnd[MC_MLDSA_N + i] % span);
        if (round == 0) // all at the most negative value
          s1.c[i] = s2.c[i] = lo;
        else if (round == 1) // s1 as large as it goes, s2 most negative
          s1.c[i] = hi, s2.c[i] = lo;
        // c·s1 or c·s2 reaches ±τ · |lo| where the signs of c line up.
        if (round == 2)
          s1.c[i] = s2.c[i] = lo * (c.c[(MC_MLDSA_N - i) % MC_MLDSA_N] < 0 ? -1 : 1);
      }
      for (int i = 0; i < MC_MLDSA_N; i++)
        packed.c[i] = s1.c[i] + s2.c[i] * (1 << MC_MLDSA_PAIR_SHIFT);
      mc_mldsa_poly c_hat = c;
      mc_mldsa_ntt(&c_hat);
      mc_mldsa_ntt(&packed);
      mc_mldsa_ntt(&s1);
      mc_mldsa_ntt(&s2);
      mc_mldsa_pointwise(&packed, &c_hat, &packed);
      mc_mldsa_pointwise(&alone1, &c_hat, &s1);
      mc_mldsa_pointwise(&alone2, &c_hat, &s2);
      mc_mldsa_invntt(&packed);
      mc_mldsa_invntt(&alone1);
      mc_mldsa_invntt(&alone2);
      mc_mldsa_center(&packed);
      mc_mldsa_center(&alone1);
      mc_mldsa_center(&alone2);
      for (int i = 0; i < MC_MLDSA_N; i++) {
        int32_t got1, got2;
        mc_mldsa_pair_split(&got1, &got2, packed.c[i]);
        ck_assert_int_eq(got1, alone1.c[i]);
        ck_assert_int_eq(got2, alone2.c[i]);
        ck_assert_int_le(abs(alone1.c[i]), (int)p->tau * -lo);
      }
      if (round == 2) // the bound is (nearly) reached
        ck_assert_int_ge(abs(alone1.c[0]), ((int)p->tau - 2) * -lo);
    }
  }
}
END_TEST

// mc_mldsa_pointwise_sum (one reduction per coefficient) agrees modulo q
// with reducing every product, for up to seven products of matrix entries in
// [0, q) and NTT outputs at their 9q bound.
START_TEST(pointwise_sum_matches_acc) {
  static mc_mldsa_poly a[MC_MLDSA_MAX_L], b[MC_MLDSA_MAX_L], sum, acc;
  for (int round = 0; round < 20; round++) {
    uint32_t rnd[2 * MC_MLDSA_N];
    for (int j = 0; j < MC_MLDSA_MAX_L; j++) {
      RAND_bytes((uint8_t *)rnd, sizeof rnd);
      for (int i = 0; i < MC_MLDSA_N; i++) {
        a[j].c[i] = round == 0 ? MC_MLDSA_Q - 1 : (int32_t)(rnd[i] % MC_MLDSA_Q);
        int32_t bound = 9 * MC_MLDSA_Q - 1;
        b[j].c[i] = round == 0 ? (i % 2 ? bound : -bound)
                               : (int32_t)(rnd[MC_MLDSA_N + i] % (2 * (uint32_t)bound + 1)) - bound;
      }
    }
    for (unsigned num = 1; num <= MC_MLDSA_MAX_L; num++) {
      mc_mldsa_pointwise_sum(&sum, a, b, num);
      memset(&acc, 0, sizeof acc);
      for (unsigned j = 0; j < num; j++)
        mc_mldsa_pointwise_acc(&acc, &a[j], &b[j]);
      for (int i = 0; i < MC_MLDSA_N; i++) {
        ck_assert_int_gt(sum.c[i], -MC_MLDSA_Q);
        ck_assert_int_lt(sum.c[i], MC_MLDSA_Q);
        ck_assert_int_eq(mod_q(sum.c[i]), mod_q(acc.c[i]));
      }
    }
  }
}
END_TEST

// SampleInBall gives exactly τ coefficients ±1 and zeros elsewhere.
START_TEST(sample_in_ball_shape) {
  for (size_t l = 0; l < 3; l++) {
    const mc_mldsa_params *p = mc_mldsa_params_get(levels[l]);
    for (int round = 0; round < 200; round++) {
      uint8_t seed[64];
      mc_mldsa_poly c;
      RAND_bytes(seed, sizeof seed);
      mc_mldsa_sample_in_ball(&c, seed, p->ctilde_len, p->tau);
      unsigned nonzero = 0;
      for (int i = 0; i < MC_MLDSA_N; i++) {
        ck_assert(c.c[i] == 0 || c.c[i] == 1 || c.c[i] == -1);
        nonzero += c.c[i] != 0;
      }
      ck_assert_uint_eq(nonzero, p->tau);
    }
  }
}
END_TEST

START_TEST(public_key_decode_round_trip) {
  for (size_t l = 0; l < 3; l++) {
    const mc_mldsa_params *p = mc_mldsa_params_get(levels[l]);
    static mc_mldsa_public_key pk;
    uint8_t in[MC_MLDSA_MAX_PUBLIC_KEY_LEN], out[MC_MLDSA_MAX_PUBLIC_KEY_LEN];
    for (int round = 0; round < 20; round++) {
      RAND_bytes(in, sizeof in);
      ck_assert_int_eq(mc_mldsa_public_key_decode(&pk, p, in, p->public_key_len), 0);
      mc_mldsa_public_key_encode(out, p, &pk);
      ck_assert_mem_eq(in, out, p->public_key_len);
    }
    ck_assert_int_eq(mc_mldsa_public_key_decode(&pk, p, in, p->public_key_len - 1), MC_ERR_BAD_KEY);
  }
}
END_TEST

int main(void) {
  // A run forced (MSGCRYPT_IMPL, meson.build's per-implementation runs) onto
  // an implementation that this CPU cannot run has nothing to test.
  const char *forced = getenv("MSGCRYPT_IMPL");
  for (size_t i = 0; forced != NULL && i < mc_impl_count(); i++) {
    int sup;
    if (strcmp(mc_impl_get(i, &sup), forced) == 0 && !sup) {
      printf("1..0 # SKIP MSGCRYPT_IMPL=%s: not supported by this CPU\n", forced);
      return EXIT_SUCCESS;
    }
  }
  Suite *s = suite_create("mldsa");
  TCase *vectors = tcase_create("vectors");
  tcase_set_timeout(vectors, 120);
  tcase_add_loop_test(vectors, acvp_keygen, 0, 2);
  tcase_add_test(vectors, acvp_siggen);
  tcase_add_test(vectors, acvp_sigver);
  tcase_add_loop_test(vectors, wycheproof_verify, 0, 2);
  tcase_add_loop_test(vectors, openpgp_sample_signature, 0, 2);
  suite_add_tcase(s, vectors);
  TCase *props = tcase_create("properties");
  tcase_set_timeout(props, 120);
  tcase_add_loop_test(props, sign_verify_round_trip, 0, 3);
  tcase_add_loop_test(props, errors_are_reported, 0, 3);
  tcase_add_loop_test(props, malformed_signatures_are_rejected, 0, 3);
  tcase_add_loop_test(props, random_private_keys_sign_safely, 0, 3);
  tcase_add_test(props, hint_unpack_rules);
  tcase_add_test(props, rounding_matches_spec_everywhere);
  tcase_add_test(props, ntt_product_matches_schoolbook);
  tcase_add_test(props, sample_in_ball_shape);
  tcase_add_test(props, paired_products_split_exactly);
  tcase_add_test(props, pointwise_sum_matches_acc);
  tcase_add_test(props, public_key_decode_round_trip);
  suite_add_tcase(s, props);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
