// test_boringssl_layer.c: the thin layer over BoringSSL against official
// vectors: Wycheproof AES-GCM, AES key wrap, HKDF-SHA-256/512, RSA-OAEP (our
// encryptions decrypted by BoringSSL with the vectors' private keys), ECDH on
// P-256/384/521 (through the derandomised entry point with the vectors'
// scalars) and X25519, honouring valid/invalid/acceptable; FIPS 180 digests,
// NIST SP 800-38A CFB128, RFC 3394 key wrap; RFC 9580 Appendix A.11 (HKDF and
// AES-GCM) and A.8 end to end from the armored message in ../shared/vectors
// (X25519, HKDF, AES key wrap, HKDF, AES-OCB: "Hello, world!"); and the
// misuse errors of every function.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/digest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hkdf.h>
#include <openssl/mem.h>
#include <openssl/rsa.h>

#include "msgcrypt.h"
#include "testutil.h"
#include "vecjson.h"

static size_t hex_to(uint8_t *out, size_t cap, const char *hex) {
  size_t len = 0;
  uint8_t *bytes = mc_test_unhex(hex, &len);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_uint_le(len, cap);
  memcpy(out, bytes, len);
  free(bytes);
  return len;
}

// A Wycheproof field decoded from hex: `p` is malloc'd (never NULL).
typedef struct {
  uint8_t *p;
  size_t len;
} blob;

static blob field(const vj_value *obj, const char *key) {
  const char *hex = vj_str(obj, key);
  ck_assert_msg(hex != NULL, "missing field %s", key);
  blob b;
  b.p = mc_test_unhex(hex, &b.len);
  ck_assert_ptr_nonnull(b.p);
  return b;
}

static vj_value *load_vectors(const char *name) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, name));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  return root;
}

// Counts of Wycheproof tests by result, checked against the files' totals.
typedef struct {
  int valid, invalid, acceptable;
} tally;

static void count(tally *t, const char *result) {
  if (strcmp(result, "valid") == 0)
    t->valid++;
  else if (strcmp(result, "invalid") == 0)
    t->invalid++;
  else if (strcmp(result, "acceptable") == 0)
    t->acceptable++;
  else
    ck_abort_msg("unknown result %s", result);
}

// for_each_test calls `fn` on every test of every group of a Wycheproof file.
static void for_each_test(const vj_value *root,
                          void (*fn)(const vj_value *group, const vj_value *test, tally *t),
                          tally *t) {
  const vj_value *groups = vj_get(root, "testGroups");
  ck_assert_ptr_nonnull(groups);
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    ck_assert_ptr_nonnull(tests);
    for (size_t i = 0; i < tests->count; i++)
      fn(&groups->items[g], &tests->items[i], t);
  }
  ck_assert_int_eq(t->valid + t->invalid + t->acceptable, (int)vj_num(root, "numberOfTests", -1));
}

// Digests.

START_TEST(fips180_digests) {
  static const struct {
    mc_hash_alg alg;
    const char *msg, *hex;
  } cases[] = {
      {MC_HASH_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {MC_HASH_SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {MC_HASH_SHA384, "abc",
       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c"
       "8"
       "25a7"},
      {MC_HASH_SHA512, "abc",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3f"
       "e"
       "ebbd454d4423643ce80e2a9ac94fa54ca49f"},
      {MC_HASH_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {MC_HASH_SHA256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t out[MC_HASH_MAX_DIGEST_LEN], want[64];
    size_t out_len = 0, want_len = hex_to(want, sizeof want, cases[i].hex);
    const uint8_t *msg = (const uint8_t *)cases[i].msg;
    size_t msg_len = strlen(cases[i].msg);
    ck_assert_int_eq(
        mc_digest(cases[i].alg, out, sizeof out, &out_len, msg_len ? msg : NULL, msg_len), 0);
    ck_assert_uint_eq(out_len, want_len);
    ck_assert_uint_eq(mc_hash_digest_len(cases[i].alg), want_len);
    ck_assert_mem_eq(out, want, want_len);
  }
  uint8_t out[64];
  size_t n;
  ck_assert_int_eq(mc_digest(MC_HASH_SHA256, out, 31, &n, out, 1), MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_digest((mc_hash_alg)0, out, 64, &n, out, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_digest(MC_HASH_SHA256, out, 64, &n, NULL, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_digest(MC_HASH_SHA256, out, 64, NULL, out, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(mc_hash_digest_len((mc_hash_alg)9), 0);
}
END_TEST

// HKDF.

static mc_hash_alg hkdf_alg;

static void hkdf_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  blob ikm = field(test, "ikm"), salt = field(test, "salt"), info = field(test, "info"),
       okm = field(test, "okm");
  size_t size = (size_t)vj_num(test, "size", 0);
  uint8_t *out = malloc(size + 1);
  int rc = mc_hkdf(hkdf_alg, out, size, ikm.p, ikm.len, salt.p, salt.len, info.p, info.len);
  if (strcmp(result, "valid") == 0) {
    ck_assert_msg(rc == 0, "tcId %d", (int)vj_num(test, "tcId", 0));
    ck_assert_uint_eq(size, okm.len);
    ck_assert_mem_eq(out, okm.p, size);
  } else {
    ck_assert_int_eq(rc, MC_ERR_INVALID_ARGUMENT);
  }
  free(out);
  free(ikm.p), free(salt.p), free(info.p), free(okm.p);
}

START_TEST(wycheproof_hkdf) {
  static const struct {
    const char *file;
    mc_hash_alg alg;
    int valid, invalid;
  } files[] = {
      {"wycheproof/hkdf_sha256_test.json", MC_HASH_SHA256, 83, 3},
      {"wycheproof/hkdf_sha512_test.json", MC_HASH_SHA512, 80, 3},
  };
  vj_value *root = load_vectors(files[_i].file);
  tally t = {0};
  hkdf_alg = files[_i].alg;
  for_each_test(root, hkdf_case, &t);
  ck_assert_int_eq(t.valid, files[_i].valid);
  ck_assert_int_eq(t.invalid, files[_i].invalid);
  vj_free(root);
}
END_TEST

START_TEST(hkdf_errors) {
  uint8_t out[255 * 64], ikm[4] = {1, 2, 3, 4};
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA1, out, 16, ikm, 4, NULL, 0, NULL, 0), MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_hkdf((mc_hash_alg)0, out, 16, ikm, 4, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 0, ikm, 4, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 255 * 32 + 1, ikm, 4, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 255 * 32, ikm, 4, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA384, out, 255 * 48, NULL, 0, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 16, NULL, 4, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, NULL, 16, ikm, 4, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
}
END_TEST

// RFC 5869 Appendix A.1-A.3 (HKDF-SHA-256: basic, long inputs, no salt and
// no info), the values typed from the RFC.
START_TEST(rfc5869_hkdf) {
  uint8_t ikm1[22], salt1[13], info1[10], ikm2[80], salt2[80], info2[80];
  memset(ikm1, 0x0b, sizeof ikm1);
  for (int i = 0; i < 80; i++) {
    if (i < 13)
      salt1[i] = (uint8_t)i;
    if (i < 10)
      info1[i] = (uint8_t)(0xf0 + i);
    ikm2[i] = (uint8_t)i;
    salt2[i] = (uint8_t)(0x60 + i);
    info2[i] = (uint8_t)(0xb0 + i);
  }
  static const char okm1[] =
      "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865";
  static const char okm2[] = "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                             "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                             "cc30c58179ec3e87c14c01d5c1f3434f1d87";
  static const char okm3[] =
      "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8";
  uint8_t out[82];
  size_t len = 0;
  uint8_t *want = mc_test_unhex(okm1, &len);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 42, ikm1, 22, salt1, 13, info1, 10), 0);
  ck_assert_mem_eq(out, want, 42);
  free(want);
  want = mc_test_unhex(okm2, &len);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 82, ikm2, 80, salt2, 80, info2, 80), 0);
  ck_assert_mem_eq(out, want, 82);
  free(want);
  want = mc_test_unhex(okm3, &len);
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, out, 42, ikm1, 22, NULL, 0, NULL, 0), 0);
  ck_assert_mem_eq(out, want, 42);
  free(want);
}
END_TEST

// mc_hkdf (HMAC on the SHA-2 block functions) against BoringSSL's HKDF()
// for random inputs: every hash, keys and salts shorter and longer than a
// hash block, outputs of one to several blocks.
START_TEST(hkdf_vs_boringssl) {
  static const mc_hash_alg algs[] = {MC_HASH_SHA256, MC_HASH_SHA384, MC_HASH_SHA512};
  uint64_t x = 0x9e3779b97f4a7c15ull;
  uint8_t ikm[300], salt[300], info[300], a[600], b[600];
  for (int round = 0; round < 3000; round++) {
    for (size_t i = 0; i < sizeof ikm; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      ikm[i] = (uint8_t)(x >> 56);
      salt[i] = (uint8_t)(x >> 48);
      info[i] = (uint8_t)(x >> 40);
    }
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    mc_hash_alg alg = algs[(x >> 60) % 3];
    size_t ikm_len = (x >> 8) % 300, salt_len = (x >> 20) % 300, info_len = (x >> 32) % 300;
    size_t out_len = 1 + (x >> 44) % 600;
    if (round % 4 == 0)
      salt_len = 0; // the PKESKs' case
    const EVP_MD *md = alg == MC_HASH_SHA256   ? EVP_sha256()
                       : alg == MC_HASH_SHA384 ? EVP_sha384()
                                               : EVP_sha512();
    ck_assert_int_eq(mc_hkdf(alg, a, out_len, ikm, ikm_len, salt_len ? salt : NULL, salt_len,
                             info_len ? info : NULL, info_len),
                     0);
    ck_assert_int_eq(HKDF(b, out_len, md, ikm, ikm_len, salt, salt_len, info, info_len), 1);
    ck_assert_msg(memcmp(a, b, out_len) == 0, "round %d alg %d ikm %zu salt %zu info %zu out %zu",
                  round, (int)alg, ikm_len, salt_len, info_len, out_len);
  }
}
END_TEST

// AES-CFB: NIST SP 800-38A Appendix F.3.13 (CFB128-AES128.Encrypt) and
// F.3.17 (CFB128-AES256.Encrypt); the Decrypt examples are the same data.

START_TEST(sp800_38a_cfb128) {
  static const struct {
    const char *key, *ct;
  } cases[] = {
      {"2b7e151628aed2a6abf7158809cf4f3c",
       "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b26751f67a3cbb140b1808cf1"
       "87a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6"},
      {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
       "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407bdf10132415e54b92a13ed0a8"
       "267ae2f975a385741ab9cef82031623d55b1e471"},
  };
  uint8_t key[32], iv[16], pt[64], ct[64], out[64];
  hex_to(iv, sizeof iv, "000102030405060708090a0b0c0d0e0f");
  hex_to(pt, sizeof pt,
         "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fb"
         "c1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
  for (size_t i = 0; i < 2; i++) {
    size_t key_len = hex_to(key, sizeof key, cases[i].key);
    hex_to(ct, sizeof ct, cases[i].ct);
    ck_assert_int_eq(mc_aes_cfb_encrypt(out, key, key_len, iv, pt, 64), 0);
    ck_assert_mem_eq(out, ct, 64);
    ck_assert_int_eq(mc_aes_cfb_decrypt(out, key, key_len, iv, ct, 64), 0);
    ck_assert_mem_eq(out, pt, 64);
    // Any prefix, including partial blocks, encrypts to the prefix; in place too.
    for (size_t len = 0; len <= 64; len++) {
      memcpy(out, pt, len);
      ck_assert_int_eq(mc_aes_cfb_encrypt(out, key, key_len, iv, out, len), 0);
      if (len > 0)
        ck_assert_mem_eq(out, ct, len);
      ck_assert_int_eq(mc_aes_cfb_decrypt(out, key, key_len, iv, out, len), 0);
      if (len > 0)
        ck_assert_mem_eq(out, pt, len);
    }
  }
  ck_assert_int_eq(mc_aes_cfb_encrypt(out, key, 17, iv, pt, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_cfb_encrypt(out, key, 16, NULL, pt, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_cfb_encrypt(NULL, key, 16, iv, pt, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_cfb_decrypt(out, key, 16, iv, NULL, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_cfb_encrypt(NULL, key, 16, iv, NULL, 0), 0);
}
END_TEST

// AES-GCM.

static void gcm_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  int tc = (int)vj_num(test, "tcId", 0);
  blob key = field(test, "key"), iv = field(test, "iv"), aad = field(test, "aad"),
       msg = field(test, "msg"), ct = field(test, "ct"), tag = field(test, "tag");
  size_t sealed_len = ct.len + tag.len, n = 0;
  uint8_t *sealed = malloc(sealed_len + 1), *out = malloc(sealed_len + 1);
  memcpy(sealed, ct.p, ct.len);
  memcpy(sealed + ct.len, tag.p, tag.len);
  int rc = mc_aes_gcm_open(out, sealed_len, &n, key.p, key.len, iv.p, iv.len, sealed, sealed_len,
                           aad.p, aad.len);
  if (strcmp(result, "valid") == 0) {
    ck_assert_msg(rc == 0, "tcId %d: open gives %d", tc, rc);
    ck_assert_uint_eq(n, msg.len);
    if (msg.len > 0)
      ck_assert_mem_eq(out, msg.p, msg.len);
    ck_assert_int_eq(mc_aes_gcm_seal(out, sealed_len, &n, key.p, key.len, iv.p, iv.len, msg.p,
                                     msg.len, aad.p, aad.len),
                     0);
    ck_assert_uint_eq(n, sealed_len);
    ck_assert_mem_eq(out, sealed, sealed_len);
  } else {
    ck_assert_msg(rc != 0, "tcId %d: invalid test opens", tc);
    ck_assert_uint_eq(n, 0);
  }
  free(sealed), free(out);
  free(key.p), free(iv.p), free(aad.p), free(msg.p), free(ct.p), free(tag.p);
}

START_TEST(wycheproof_aes_gcm) {
  vj_value *root = load_vectors("wycheproof/aes_gcm_test.json");
  tally t = {0};
  for_each_test(root, gcm_case, &t);
  ck_assert_int_eq(t.valid, 229);
  ck_assert_int_eq(t.invalid, 87);
  vj_free(root);
}
END_TEST

// RFC 9580 Appendix A.11, "Sample AEAD-GCM Encryption and Decryption": the v6
// SKESK's key from HKDF (A.11.2), its session key by AES-GCM (A.11.1 packet
// bytes), the message key and IV from HKDF with the v2 SEIPD's salt (A.11.3,
// A.11.4), chunk #0 and the final tag.
START_TEST(rfc9580_a11_hkdf_and_gcm) {
  uint8_t ikm[16], info[8], okm[32], want[64], in[64], out[64], salt[32], nonce[12];
  size_t n, info_len, want_len, in_len;
  hex_to(ikm, sizeof ikm, "250281715bba7828ef71ef64c4784753");
  info_len = hex_to(info, sizeof info, "c3060703");
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, okm, 16, ikm, 16, NULL, 0, info, info_len), 0);
  hex_to(want, sizeof want, "7a6f9ab7f99f7ef8dbef841c650800f5");
  ck_assert_mem_eq(okm, want, 16);

  hex_to(nonce, sizeof nonce, "b42e7c483ef4884457cb3726");
  in_len = hex_to(in, sizeof in,
                  "b9b3db9ff776e5f4d9a40952e2447298"   // encrypted session key
                  "851abfff7526df2dd554417579a7799f"); // AEAD tag
  ck_assert_int_eq(
      mc_aes_gcm_open(out, sizeof out, &n, okm, 16, nonce, 12, in, in_len, info, info_len), 0);
  hex_to(want, sizeof want, "1936fc8568980274bb900d8319360c77");
  ck_assert_uint_eq(n, 16);
  ck_assert_mem_eq(out, want, 16);
  memcpy(ikm, out, 16);

  hex_to(salt, sizeof salt, "fcb94490bcb98bbdc9d106c6090266940f72e89edc21b5596b1576b101ed0f9f");
  info_len = hex_to(info, sizeof info, "d202070306");
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, okm, 20, ikm, 16, salt, 32, info, info_len), 0);
  hex_to(want, sizeof want, "ea1438803cb8a47740ce9b54c338778d4d2bdc2b");
  ck_assert_mem_eq(okm, want, 20);

  memset(nonce, 0, sizeof nonce);
  memcpy(nonce, okm + 16, 4);
  in_len = hex_to(in, sizeof in,
                  "fc6fc6d65bbfd24dcd0790966e6d1e85a30053784cb1d8b6a0699ef12155a7b2ad6258531b"
                  "57651fd7777912fa95e35d9b40216f69");
  want_len = hex_to(want, sizeof want,
                    "cb1362000000000048656c6c6f2c20776f726c6421"
                    "d50e1ce2269a9eddef81032172b7ed7c");
  ck_assert_int_eq(
      mc_aes_gcm_open(out, sizeof out, &n, okm, 16, nonce, 12, in, in_len, info, info_len), 0);
  ck_assert_uint_eq(n, want_len);
  ck_assert_mem_eq(out, want, want_len);
  uint8_t final_ad[13];
  nonce[11] = 1;
  hex_to(final_ad, sizeof final_ad,
         "d20207030600000000000000"
         "25");
  ck_assert_int_eq(mc_aes_gcm_seal(out, sizeof out, &n, okm, 16, nonce, 12, NULL, 0, final_ad, 13),
                   0);
  hex_to(want, sizeof want, "a4c248db28ff4331f1632907399e6ff9");
  ck_assert_uint_eq(n, 16);
  ck_assert_mem_eq(out, want, 16);
}
END_TEST

START_TEST(gcm_errors) {
  uint8_t key[32] = {0}, nonce[12] = {0}, buf[64] = {0}, out[64];
  size_t n = 5;
  ck_assert_int_eq(mc_aes_gcm_seal(out, sizeof out, &n, key, 20, nonce, 12, buf, 8, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_gcm_seal(out, sizeof out, &n, key, 16, nonce, 0, buf, 8, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_gcm_seal(out, 23, &n, key, 16, nonce, 12, buf, 8, NULL, 0),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_gcm_seal(out, 24, &n, key, 16, nonce, 12, buf, 8, NULL, 0), 0);
  ck_assert_uint_eq(n, 24);
  ck_assert_int_eq(mc_aes_gcm_open(buf, 7, &n, key, 16, nonce, 12, out, 24, NULL, 0),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_gcm_open(buf, 64, &n, key, 16, nonce, 12, out, 15, NULL, 0),
                   MC_ERR_BAD_CIPHERTEXT);
  out[0] ^= 1;
  memset(buf, 0x77, sizeof buf);
  ck_assert_int_eq(mc_aes_gcm_open(buf, 64, &n, key, 16, nonce, 12, out, 24, NULL, 0),
                   MC_ERR_AUTH_FAILED);
  ck_assert_uint_eq(n, 0);
  for (int i = 0; i < 8; i++)
    ck_assert_uint_eq(buf[i], 0);
  ck_assert_uint_eq(ERR_peek_error(), 0); // the error queue is left empty
  out[0] ^= 1;
  ck_assert_int_eq(mc_aes_gcm_open(buf, 64, &n, key, 16, nonce, 12, out, 24, NULL, 0), 0);
  ck_assert_uint_eq(n, 8);
  // In place, both ways.
  memset(buf, 3, 8);
  ck_assert_int_eq(mc_aes_gcm_seal(buf, 64, &n, key, 32, nonce, 12, buf, 8, NULL, 0), 0);
  ck_assert_int_eq(mc_aes_gcm_open(buf, 64, &n, key, 32, nonce, 12, buf, 24, NULL, 0), 0);
  ck_assert_uint_eq(buf[7], 3);
}
END_TEST

// AES key wrap.

static void kw_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  int tc = (int)vj_num(test, "tcId", 0);
  blob key = field(test, "key"), msg = field(test, "msg"), ct = field(test, "ct");
  size_t cap = msg.len + ct.len + 8, n = 99;
  uint8_t *out = malloc(cap);
  int rc = mc_aes_kw_unwrap(out, cap, &n, key.p, key.len, ct.p, ct.len);
  if (strcmp(result, "valid") == 0) {
    ck_assert_msg(rc == 0, "tcId %d: unwrap gives %d", tc, rc);
    ck_assert_uint_eq(n, msg.len);
    ck_assert_mem_eq(out, msg.p, msg.len);
    ck_assert_int_eq(mc_aes_kw_wrap(out, cap, &n, key.p, key.len, msg.p, msg.len), 0);
    ck_assert_uint_eq(n, ct.len);
    ck_assert_mem_eq(out, ct.p, ct.len);
  } else if (strcmp(result, "invalid") == 0) {
    ck_assert_msg(rc == MC_ERR_AUTH_FAILED || rc == MC_ERR_BAD_CIPHERTEXT,
                  "tcId %d: invalid test unwraps (%d)", tc, rc);
    // An invalid message length cannot be wrapped either.
    if (msg.len % 8 != 0 || msg.len < 16)
      ck_assert_int_eq(mc_aes_kw_wrap(out, cap, &n, key.p, key.len, msg.p, msg.len),
                       MC_ERR_INVALID_ARGUMENT);
  } else {
    // Acceptable: RFC 3394's 8-byte single-block wrap, which we do not offer.
    ck_assert_int_eq(rc, MC_ERR_BAD_CIPHERTEXT);
  }
  free(out);
  free(key.p), free(msg.p), free(ct.p);
}

START_TEST(wycheproof_aes_wrap) {
  vj_value *root = load_vectors("wycheproof/aes_wrap_test.json");
  tally t = {0};
  for_each_test(root, kw_case, &t);
  ck_assert_int_eq(t.valid, 36);
  ck_assert_int_eq(t.invalid, 126);
  ck_assert_int_eq(t.acceptable, 3);
  vj_free(root);
}
END_TEST

// RFC 3394 §4.1 (128-bit KEK, 128-bit key data) and §4.6 (256-bit KEK,
// 256-bit key data).
START_TEST(rfc3394_key_wrap) {
  uint8_t kek[32], data[32], want[40], out[40];
  size_t n, len;
  hex_to(kek, sizeof kek, "000102030405060708090A0B0C0D0E0F");
  len = hex_to(data, sizeof data, "00112233445566778899AABBCCDDEEFF");
  hex_to(want, sizeof want, "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5");
  ck_assert_int_eq(mc_aes_kw_wrap(out, sizeof out, &n, kek, 16, data, len), 0);
  ck_assert_uint_eq(n, 24);
  ck_assert_mem_eq(out, want, 24);
  hex_to(kek, sizeof kek, "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
  len =
      hex_to(data, sizeof data, "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F");
  hex_to(want, sizeof want,
         "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21");
  ck_assert_int_eq(mc_aes_kw_wrap(out, sizeof out, &n, kek, 32, data, len), 0);
  ck_assert_uint_eq(n, 40);
  ck_assert_mem_eq(out, want, 40);
  ck_assert_int_eq(mc_aes_kw_unwrap(out, sizeof out, &n, kek, 32, want, 40), 0);
  ck_assert_uint_eq(n, 32);
  ck_assert_mem_eq(out, data, 32);

  ck_assert_int_eq(mc_aes_kw_wrap(out, 39, &n, kek, 32, data, 32), MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_kw_unwrap(out, 31, &n, kek, 32, want, 40), MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_kw_wrap(out, 40, &n, kek, 31, data, 32), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_kw_wrap(out, 40, &n, kek, 32, data, 8), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_kw_unwrap(out, 40, &n, kek, 32, want, 16), MC_ERR_BAD_CIPHERTEXT);
  ck_assert_int_eq(mc_aes_kw_unwrap(out, 40, &n, kek, 32, want, 39), MC_ERR_BAD_CIPHERTEXT);
  want[39] ^= 1;
  memset(out, 0x11, sizeof out);
  ck_assert_int_eq(mc_aes_kw_unwrap(out, sizeof out, &n, kek, 32, want, 40), MC_ERR_AUTH_FAILED);
  ck_assert_uint_eq(n, 0);
  for (int i = 0; i < 32; i++)
    ck_assert_uint_eq(out[i], 0);
  ck_assert_uint_eq(ERR_peek_error(), 0);
}
END_TEST

// RSA.

// rsa_from_json builds BoringSSL's private key from a Wycheproof "privateKey"
// object, the test's way to decrypt what libmsgcrypt encrypted.
static RSA *rsa_from_json(const vj_value *priv) {
  static const char *const names[] = {"modulus",   "publicExponent", "privateExponent",
                                      "prime1",    "prime2",         "exponent1",
                                      "exponent2", "coefficient"};
  BIGNUM *bn[8];
  for (int i = 0; i < 8; i++) {
    blob b = field(priv, names[i]);
    bn[i] = BN_bin2bn(b.p, b.len, NULL);
    ck_assert_ptr_nonnull(bn[i]);
    free(b.p);
  }
  RSA *rsa = RSA_new();
  ck_assert(RSA_set0_key(rsa, bn[0], bn[1], bn[2]) && RSA_set0_factors(rsa, bn[3], bn[4]) &&
            RSA_set0_crt_params(rsa, bn[5], bn[6], bn[7]));
  return rsa;
}

// rsa_decrypt decrypts with BoringSSL: PKCS#1 v1.5 when `md` is NULL, else
// OAEP with `md` for the hash and MGF1 and the label `label`. It returns the
// plaintext length or -1.
static int rsa_decrypt(RSA *rsa, const EVP_MD *md, const uint8_t *label, size_t label_len,
                       uint8_t *out, size_t out_cap, const uint8_t *in, size_t in_len) {
  EVP_PKEY *pkey = EVP_PKEY_new();
  ck_assert(pkey != NULL && EVP_PKEY_set1_RSA(pkey, rsa));
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
  ck_assert(ctx != NULL && EVP_PKEY_decrypt_init(ctx));
  if (md == NULL) {
    ck_assert(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING));
  } else {
    ck_assert(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) &&
              EVP_PKEY_CTX_set_rsa_oaep_md(ctx, md) && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md));
    if (label_len > 0) {
      uint8_t *copy = OPENSSL_malloc(label_len);
      memcpy(copy, label, label_len);
      ck_assert(EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, copy, label_len));
    }
  }
  size_t n = out_cap;
  int ok = EVP_PKEY_decrypt(ctx, out, &n, in, in_len);
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(pkey);
  ERR_clear_error();
  return ok ? (int)n : -1;
}

static RSA *current_rsa;
static blob current_n, current_e;

static void oaep_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  int tc = (int)vj_num(test, "tcId", 0);
  blob msg = field(test, "msg"), ct = field(test, "ct"), label = field(test, "label");
  uint8_t out[MC_RSA_MAX_MODULUS_LEN], back[MC_RSA_MAX_MODULUS_LEN];
  int got =
      rsa_decrypt(current_rsa, EVP_sha256(), label.p, label.len, back, sizeof back, ct.p, ct.len);
  if (strcmp(result, "valid") == 0) {
    // The vector decrypts with the harness, and our own encryption of its
    // message and label decrypts back to the message.
    ck_assert_msg(got == (int)msg.len, "tcId %d", tc);
    ck_assert_mem_eq(back, msg.p, msg.len);
    size_t n = 0;
    ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &n, current_n.p,
                                         current_n.len, current_e.p, current_e.len, label.p,
                                         label.len, msg.p, msg.len),
                     0);
    ck_assert_uint_eq(n, ct.len);
    got = rsa_decrypt(current_rsa, EVP_sha256(), label.p, label.len, back, sizeof back, out, n);
    ck_assert_msg(got == (int)msg.len, "tcId %d: our ciphertext does not decrypt", tc);
    ck_assert_mem_eq(back, msg.p, msg.len);
  } else {
    // Decryption-side vectors: they say nothing about encryption, but the
    // harness that judges our ciphertexts must reject them.
    ck_assert_msg(got < 0, "tcId %d: harness accepts an invalid ciphertext", tc);
  }
  free(msg.p), free(ct.p), free(label.p);
}

static void oaep_group(const vj_value *root, tally *t) {
  const vj_value *groups = vj_get(root, "testGroups");
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *priv = vj_get(&groups->items[g], "privateKey");
    ck_assert_ptr_nonnull(priv);
    current_rsa = rsa_from_json(priv);
    current_n = field(priv, "modulus");
    current_e = field(priv, "publicExponent");
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    for (size_t i = 0; i < tests->count; i++)
      oaep_case(&groups->items[g], &tests->items[i], t);

    // PKCS#1 v1.5 and OAEP with SHA-1 (and SHA-512), which no vector file
    // covers, round-trip through BoringSSL's decryption with the same key.
    uint8_t msg[64], out[MC_RSA_MAX_MODULUS_LEN], back[MC_RSA_MAX_MODULUS_LEN];
    size_t n;
    for (size_t len = 0; len <= sizeof msg; len += 16) {
      memset(msg, (int)len, len);
      ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &n, current_n.p, current_n.len,
                                            current_e.p, current_e.len, msg, len),
                       0);
      ck_assert_int_eq(rsa_decrypt(current_rsa, NULL, NULL, 0, back, sizeof back, out, n),
                       (int)len);
      ck_assert_mem_eq(back, msg, len);
      static const uint8_t label[3] = {'a', 'b', 'c'};
      ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA1, out, sizeof out, &n, current_n.p,
                                           current_n.len, current_e.p, current_e.len, NULL, 0, msg,
                                           len),
                       0);
      ck_assert_int_eq(rsa_decrypt(current_rsa, EVP_sha1(), NULL, 0, back, sizeof back, out, n),
                       (int)len);
      ck_assert_mem_eq(back, msg, len);
      ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA512, out, sizeof out, &n, current_n.p,
                                           current_n.len, current_e.p, current_e.len, label, 3, msg,
                                           len),
                       0);
      ck_assert_int_eq(rsa_decrypt(current_rsa, EVP_sha512(), label, 3, back, sizeof back, out, n),
                       (int)len);
      ck_assert_mem_eq(back, msg, len);
    }
    // Message length limits: k - 11 for PKCS#1 v1.5, k - 2 hLen - 2 for OAEP.
    size_t k = RSA_size(current_rsa);
    uint8_t big[MC_RSA_MAX_MODULUS_LEN] = {0};
    ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &n, current_n.p, current_n.len,
                                          current_e.p, current_e.len, big, k - 11),
                     0);
    ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &n, current_n.p, current_n.len,
                                          current_e.p, current_e.len, big, k - 10),
                     MC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &n, current_n.p,
                                         current_n.len, current_e.p, current_e.len, NULL, 0, big,
                                         k - 66),
                     0);
    ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &n, current_n.p,
                                         current_n.len, current_e.p, current_e.len, NULL, 0, big,
                                         k - 65),
                     MC_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, k - 1, &n, current_n.p, current_n.len, current_e.p,
                                          current_e.len, big, 16),
                     MC_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(ERR_peek_error(), 0);
    RSA_free(current_rsa);
    free(current_n.p), free(current_e.p);
  }
}

START_TEST(wycheproof_rsa_oaep) {
  static const char *const files[] = {
      "wycheproof/rsa_oaep_2048_sha256_mgf1sha256_test.json",
      "wycheproof/rsa_oaep_3072_sha256_mgf1sha256_test.json",
      "wycheproof/rsa_oaep_4096_sha256_mgf1sha256_test.json",
  };
  vj_value *root = load_vectors(files[_i]);
  tally t = {0};
  oaep_group(root, &t);
  ck_assert_int_eq(t.valid + t.invalid, (int)vj_num(root, "numberOfTests", -1));
  ck_assert_int_eq(t.valid, 18);
  ck_assert_int_eq(t.invalid, 19);
  vj_free(root);
}
END_TEST

START_TEST(rsa_key_errors) {
  uint8_t n[256], e[5] = {0, 1, 0, 0, 1}, out[512], msg[16] = {0};
  size_t len;
  memset(n, 0xc5, sizeof n); // an odd 2048-bit number
  // Leading zeros of the exponent are allowed; n need not be a real modulus
  // for the public operation.
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e, 5, msg, 16), 0);
  ck_assert_uint_eq(len, 256);
  n[255] = 0xc4; // even
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e, 5, msg, 16),
                   MC_ERR_BAD_KEY);
  n[255] = 0xc5;
  static const uint8_t e1[1] = {1}, e2[1] = {2}, e34[5] = {2, 0, 0, 0, 1}, e3[1] = {3};
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e1, 1, msg, 16),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e2, 1, msg, 16),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e34, 5, msg, 16),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e3, 1, msg, 16), 0);
  // 1023 bits is too small.
  uint8_t small[128];
  memset(small, 0x55, sizeof small);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, small, 128, e3, 1, msg, 16),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(
      mc_rsa_encrypt_oaep((mc_hash_alg)0, out, sizeof out, &len, n, 256, e3, 1, NULL, 0, msg, 16),
      MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, 256, e3, 0, msg, 16),
                   MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(NULL, sizeof out, &len, n, 256, e3, 1, msg, 16),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(ERR_peek_error(), 0);
}
END_TEST

// ECDH.

static mc_ec_curve current_curve;

static void ecdh_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  int tc = (int)vj_num(test, "tcId", 0);
  blob pub = field(test, "public"), priv = field(test, "private"), shared = field(test, "shared");
  uint8_t out_pub[MC_EC_MAX_POINT_LEN], out_shared[MC_EC_MAX_FIELD_LEN];
  int rc = mc_ecdh_ephemeral_derand(current_curve, out_pub, sizeof out_pub, out_shared,
                                    sizeof out_shared, priv.p, priv.len, pub.p, pub.len);
  size_t field_len = mc_ec_field_len(current_curve);
  if (strcmp(result, "valid") == 0 || (strcmp(result, "acceptable") == 0 && rc == 0)) {
    ck_assert_msg(rc == 0, "tcId %d: %d", tc, rc);
    ck_assert_uint_eq(shared.len, field_len);
    ck_assert_mem_eq(out_shared, shared.p, field_len);
    ck_assert_uint_eq(out_pub[0], 4);
  } else {
    ck_assert_msg(rc == MC_ERR_BAD_KEY, "tcId %d: %s test gives %d", tc, result, rc);
  }
  free(pub.p), free(priv.p), free(shared.p);
}

START_TEST(wycheproof_ecdh) {
  static const struct {
    const char *file;
    mc_ec_curve curve;
    int valid, invalid, acceptable;
  } files[] = {
      {"wycheproof/ecdh_secp256r1_ecpoint_test.json", MC_EC_P256, 330, 24, 1},
      {"wycheproof/ecdh_secp384r1_ecpoint_test.json", MC_EC_P384, 771, 18, 1},
      {"wycheproof/ecdh_secp521r1_ecpoint_test.json", MC_EC_P521, 632, 28, 1},
  };
  vj_value *root = load_vectors(files[_i].file);
  tally t = {0};
  current_curve = files[_i].curve;
  for_each_test(root, ecdh_case, &t);
  ck_assert_int_eq(t.valid, files[_i].valid);
  ck_assert_int_eq(t.invalid, files[_i].invalid);
  ck_assert_int_eq(t.acceptable, files[_i].acceptable);
  ck_assert_uint_eq(ERR_peek_error(), 0);
  vj_free(root);
}
END_TEST

// A random ephemeral key agrees with the recipient's computation; scalar 1
// gives the generator; the errors. The recipient's key pair is made with the
// derandomised call from a scalar and the first valid Wycheproof point.
START_TEST(ecdh_round_trip_and_errors) {
  static const struct {
    const char *file;
    mc_ec_curve curve;
  } files[] = {
      {"wycheproof/ecdh_secp256r1_ecpoint_test.json", MC_EC_P256},
      {"wycheproof/ecdh_secp384r1_ecpoint_test.json", MC_EC_P384},
      {"wycheproof/ecdh_secp521r1_ecpoint_test.json", MC_EC_P521},
  };
  mc_ec_curve curve = files[_i].curve;
  size_t fl = mc_ec_field_len(curve), pl = mc_ec_point_len(curve);
  ck_assert_uint_eq(pl, 2 * fl + 1);
  vj_value *root = load_vectors(files[_i].file);
  const vj_value *test = &vj_get(&vj_get(root, "testGroups")->items[0], "tests")->items[0];
  blob point = field(test, "public");
  ck_assert_uint_eq(point.len, pl);

  uint8_t d[8] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf1};
  uint8_t recipient[MC_EC_MAX_POINT_LEN], eph[MC_EC_MAX_POINT_LEN], s1[MC_EC_MAX_FIELD_LEN],
      s2[MC_EC_MAX_FIELD_LEN], g[MC_EC_MAX_POINT_LEN];
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(curve, recipient, sizeof recipient, s1, sizeof s1, d,
                                            sizeof d, point.p, point.len),
                   0);
  for (int round = 0; round < 4; round++) {
    ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl, s1, fl, recipient, pl), 0);
    ck_assert_uint_eq(eph[0], 4);
    ck_assert_int_eq(
        mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, d, sizeof d, eph, pl), 0);
    ck_assert_mem_eq(g, recipient, pl); // the public output is [d]G again
    ck_assert_mem_eq(s1, s2, fl);
  }
  // The compressed form of a point is accepted too: 02/03 by the parity of y.
  uint8_t compressed[1 + MC_EC_MAX_FIELD_LEN];
  compressed[0] = (uint8_t)(2 | (recipient[pl - 1] & 1));
  memcpy(compressed + 1, recipient + 1, fl);
  ck_assert_int_eq(
      mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, d, sizeof d, compressed, fl + 1),
      0);
  // Scalar 1 gives the generator.
  static const uint8_t one[1] = {1};
  ck_assert_int_eq(
      mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, one, 1, point.p, point.len), 0);
  ck_assert_mem_eq(s2, point.p + 1, fl); // [1]P's x-coordinate
  if (curve == MC_EC_P256) {
    uint8_t want[65];
    hex_to(want, sizeof want,
           "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
           "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5");
    ck_assert_mem_eq(g, want, 65);
    // Scalars 0, n and above n are refused; n - 1 is fine.
    uint8_t n[32];
    hex_to(n, sizeof n, "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
    ck_assert_int_eq(
        mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, n, 32, point.p, point.len),
        MC_ERR_BAD_KEY);
    n[31]--;
    ck_assert_int_eq(
        mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, n, 32, point.p, point.len), 0);
    uint8_t zero[32] = {0};
    ck_assert_int_eq(
        mc_ecdh_ephemeral_derand(curve, g, sizeof g, s2, sizeof s2, zero, 32, point.p, point.len),
        MC_ERR_BAD_KEY);
  }
  // Malformed peers: off the curve, wrong lengths, the point at infinity.
  recipient[pl - 1] ^= 1;
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl, s1, fl, recipient, pl), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl, s1, fl, recipient, pl - 1), MC_ERR_BAD_KEY);
  static const uint8_t infinity[1] = {0};
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl, s1, fl, infinity, 1), MC_ERR_BAD_KEY);
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl - 1, s1, fl, point.p, pl),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, eph, pl, s1, fl - 1, point.p, pl),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_ecdh_ephemeral((mc_ec_curve)0, eph, pl, s1, fl, point.p, pl),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ecdh_ephemeral(curve, NULL, pl, s1, fl, point.p, pl),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(curve, eph, pl, s1, fl, NULL, 1, point.p, point.len),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(mc_ec_field_len((mc_ec_curve)7), 0);
  ck_assert_uint_eq(mc_ec_point_len((mc_ec_curve)7), 0);
  ck_assert_uint_eq(ERR_peek_error(), 0);
  free(point.p);
  vj_free(root);
}
END_TEST

// X25519.

static void x25519_case(const vj_value *group, const vj_value *test, tally *t) {
  (void)group;
  const char *result = vj_str(test, "result");
  count(t, result);
  int tc = (int)vj_num(test, "tcId", 0);
  blob pub = field(test, "public"), priv = field(test, "private"), shared = field(test, "shared");
  ck_assert(pub.len == 32 && priv.len == 32 && shared.len == 32);
  uint8_t out[32];
  static const uint8_t zeros[32] = {0};
  int rc = mc_x25519(out, priv.p, pub.p);
  if (rc == 0) {
    ck_assert_msg(strcmp(result, "invalid") != 0, "tcId %d", tc);
    ck_assert_mem_eq(out, shared.p, 32);
  } else {
    // Only the all-zero result (RFC 7748 §6.1) is refused, and only where
    // Wycheproof allows it.
    ck_assert_int_eq(rc, MC_ERR_BAD_KEY);
    ck_assert_msg(strcmp(result, "valid") != 0, "tcId %d: valid test refused", tc);
    ck_assert_mem_eq(shared.p, zeros, 32);
    ck_assert_mem_eq(out, zeros, 32);
  }
  free(pub.p), free(priv.p), free(shared.p);
}

START_TEST(wycheproof_x25519) {
  vj_value *root = load_vectors("wycheproof/x25519_test.json");
  tally t = {0};
  for_each_test(root, x25519_case, &t);
  ck_assert_int_eq(t.valid, 264);
  ck_assert_int_eq(t.acceptable, 254);
  vj_free(root);
}
END_TEST

START_TEST(x25519_round_trip_and_errors) {
  uint8_t a_pub[32], a_priv[32], b_pub[32], b_priv[32], s1[32], s2[32], p[32];
  ck_assert_int_eq(mc_x25519_keypair(a_pub, a_priv), 0);
  ck_assert_int_eq(mc_x25519_keypair(b_pub, b_priv), 0);
  ck_assert_int_eq(mc_x25519_public_key(p, a_priv), 0);
  ck_assert_mem_eq(p, a_pub, 32);
  ck_assert_int_eq(mc_x25519(s1, a_priv, b_pub), 0);
  ck_assert_int_eq(mc_x25519(s2, b_priv, a_pub), 0);
  ck_assert_mem_eq(s1, s2, 32);
  ck_assert_int_eq(mc_x25519_keypair(NULL, a_priv), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519_public_key(p, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x25519(s1, a_priv, NULL), MC_ERR_INVALID_ARGUMENT);
  static const uint8_t zero_point[32] = {0};
  ck_assert_int_eq(mc_x25519(s1, a_priv, zero_point), MC_ERR_BAD_KEY);
}
END_TEST

// RFC 9580 Appendix A.8 end to end.

// unarmor decodes the Base64 body of an ASCII-armored file (RFC 9580 §6.2)
// into `out` and returns its length.
static size_t unarmor(uint8_t *out, size_t cap, const char *text) {
  const char *body = strstr(text, "\n\n");
  ck_assert_ptr_nonnull(body);
  const char *end = strstr(body, "-----END");
  ck_assert_ptr_nonnull(end);
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (const char *p = body; p < end && *p != '='; p++) {
    const char *digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *d = *p ? strchr(digits, *p) : NULL;
    if (d == NULL)
      continue; // line breaks
    acc = acc << 6 | (uint32_t)(d - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      ck_assert_uint_lt(n, cap);
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  return n;
}

START_TEST(rfc9580_a8_end_to_end) {
  char path[4096], text[4096];
  FILE *f = fopen(vj_vectors_path(path, sizeof path, "rfc9580-appendixA/a8_encrypted.asc"), "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t text_len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[text_len] = '\0';
  uint8_t msg[512];
  size_t len = unarmor(msg, sizeof msg, text);

  // Two OpenPGP packets with one-octet lengths (RFC 9580 §4.2.1): a v6 PKESK
  // (type 1) and a v2 SEIPD (type 18).
  ck_assert_uint_eq(msg[0], 0xc0 | 1);
  size_t pkesk_len = msg[1];
  const uint8_t *pkesk = msg + 2;
  ck_assert_uint_lt(pkesk_len, 192);
  ck_assert_uint_eq(msg[2 + pkesk_len], 0xc0 | 18);
  size_t seipd_len = msg[3 + pkesk_len];
  const uint8_t *seipd = msg + 4 + pkesk_len;
  ck_assert_uint_eq(4 + pkesk_len + seipd_len, len);

  // PKESK v6 (§5.1.2): version, length of (key version + fingerprint), key
  // version 6, 32-byte fingerprint, algorithm 25 (X25519), then (§5.1.6) the
  // 32-byte ephemeral key, a length octet and the wrapped session key.
  ck_assert_uint_eq(pkesk[0], 6);
  ck_assert_uint_eq(pkesk[1], 33);
  ck_assert_uint_eq(pkesk[35], 25);
  const uint8_t *ephemeral = pkesk + 36;
  size_t esk_len = pkesk[68];
  const uint8_t *esk = pkesk + 69;
  ck_assert_uint_eq(69 + esk_len, pkesk_len);

  // The recipient's X25519 key (A.4's secret subkey, given in A.8.2).
  uint8_t priv[32], pub[32], shared[32], want[32];
  hex_to(priv, sizeof priv, "4d600a4f794d44775c57a26e0feefed558e9afffd6ad0d582d57fb2ba2dcedb8");
  ck_assert_int_eq(mc_x25519_public_key(pub, priv), 0);
  hex_to(want, sizeof want, "8693248367f9e5015db922f8f48095dda784987f2d5985b12fbad16caf5e4435");
  ck_assert_mem_eq(pub, want, 32);
  ck_assert_int_eq(mc_x25519(shared, priv, ephemeral), 0);
  hex_to(want, sizeof want, "67e30e69cdc7bab2a2680d78aca46a2f8b6e2ae44d398bdc6f92c5ad4a492514");
  ck_assert_mem_eq(shared, want, 32);

  // §5.1.6: KEK = HKDF-SHA256(ephemeral || recipient || shared, "OpenPGP
  // X25519"), 16 bytes for AES-128; the session key is AES-key-wrapped.
  uint8_t ikm[96], kek[16], session_key[32];
  memcpy(ikm, ephemeral, 32);
  memcpy(ikm + 32, pub, 32);
  memcpy(ikm + 64, shared, 32);
  ck_assert_int_eq(
      mc_hkdf(MC_HASH_SHA256, kek, 16, ikm, 96, NULL, 0, (const uint8_t *)"OpenPGP X25519", 14), 0);
  hex_to(want, sizeof want, "f66dadcff64592239b254539b64ff607");
  ck_assert_mem_eq(kek, want, 16);
  size_t sk_len;
  ck_assert_int_eq(
      mc_aes_kw_unwrap(session_key, sizeof session_key, &sk_len, kek, 16, esk, esk_len), 0);
  hex_to(want, sizeof want, "dd708f6fa1ed65114d68d2343e7c2f1d");
  ck_assert_uint_eq(sk_len, 16);
  ck_assert_mem_eq(session_key, want, 16);

  // SEIPD v2 (§5.13.2): version 2, cipher 7 (AES-128), AEAD 2 (OCB), chunk
  // size octet, 32-byte salt, then one chunk with its tag and the final tag.
  ck_assert_uint_eq(seipd[0], 2);
  ck_assert_uint_eq(seipd[1], 7);
  ck_assert_uint_eq(seipd[2], 2);
  uint8_t info[5] = {0xd2, seipd[0], seipd[1], seipd[2], seipd[3]}, okm[23];
  ck_assert_int_eq(mc_hkdf(MC_HASH_SHA256, okm, 23, session_key, 16, seipd + 4, 32, info, 5), 0);
  const uint8_t *chunk = seipd + 36;
  size_t chunk_len = seipd_len - 36 - 16; // the chunk with its tag, before the final tag
  mc_aes_ocb_ctx ocb;
  ck_assert_int_eq(mc_aes_ocb_init(&ocb, okm, 16, MC_AES_OCB_TAG_LEN), 0);
  uint8_t nonce[15] = {0}, plain[128];
  memcpy(nonce, okm + 16, 7);
  size_t plain_len;
  ck_assert_int_eq(
      mc_aes_ocb_open(&ocb, plain, sizeof plain, &plain_len, nonce, 15, chunk, chunk_len, info, 5),
      0);
  // A Literal Data packet (type 11) holding "Hello, world!", then padding.
  ck_assert_uint_eq(plain[0], 0xc0 | 11);
  ck_assert_mem_eq(plain + 8, "Hello, world!", 13);
  uint8_t final_ad[13] = {0xd2, seipd[0], seipd[1], seipd[2], seipd[3]};
  final_ad[12] = (uint8_t)plain_len;
  nonce[14] = 1;
  size_t n;
  ck_assert_int_eq(mc_aes_ocb_open(&ocb, plain, sizeof plain, &n, nonce, 15, chunk + chunk_len, 16,
                                   final_ad, 13),
                   0);
  mc_aes_ocb_cleanup(&ocb);
}
END_TEST

START_TEST(random_bytes) {
  uint8_t a[64] = {0}, b[64] = {0};
  static const uint8_t zeros[64] = {0};
  ck_assert_int_eq(mc_random_bytes(a, sizeof a), 0);
  ck_assert_int_eq(mc_random_bytes(b, sizeof b), 0);
  ck_assert(memcmp(a, zeros, 64) != 0 && memcmp(a, b, 64) != 0);
  ck_assert_int_eq(mc_random_bytes(NULL, 0), 0);
  ck_assert_int_eq(mc_random_bytes(NULL, 1), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("boringssl_layer");
  TCase *tc = tcase_create("vectors");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fips180_digests);
  tcase_add_loop_test(tc, wycheproof_hkdf, 0, 2);
  tcase_add_test(tc, hkdf_errors);
  tcase_add_test(tc, rfc5869_hkdf);
  tcase_add_test(tc, hkdf_vs_boringssl);
  tcase_add_test(tc, sp800_38a_cfb128);
  tcase_add_test(tc, wycheproof_aes_gcm);
  tcase_add_test(tc, rfc9580_a11_hkdf_and_gcm);
  tcase_add_test(tc, gcm_errors);
  tcase_add_test(tc, wycheproof_aes_wrap);
  tcase_add_test(tc, rfc3394_key_wrap);
  tcase_add_loop_test(tc, wycheproof_rsa_oaep, 0, 3);
  tcase_add_test(tc, rsa_key_errors);
  tcase_add_loop_test(tc, wycheproof_ecdh, 0, 3);
  tcase_add_loop_test(tc, ecdh_round_trip_and_errors, 0, 3);
  tcase_add_test(tc, wycheproof_x25519);
  tcase_add_test(tc, x25519_round_trip_and_errors);
  tcase_add_test(tc, rfc9580_a8_end_to_end);
  tcase_add_test(tc, random_bytes);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
