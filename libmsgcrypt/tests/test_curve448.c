// test_curve448.c: X448 and Ed448 against their official vectors: RFC 7748
// §5.2 (single and iterated X448 values) and §6.2 (the Alice and Bob
// exchange), RFC 8032 §7.4 (Ed448, with and without context) and §7.5
// (Ed448ph), and every case of Wycheproof's x448_test.json and
// ed448_test.json (valid, invalid and acceptable results honoured). Property
// tests cover what the vectors cannot reach: the two X448 public-key paths
// (ladder and edwards448 table) agree, strict decoding refuses every
// non-canonical encoding, contexts and pre-hashes separate signatures, and the
// field, scalar and group helpers meet their contracts at the edges.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "curve448_internal.h"
#include "msgcrypt.h"
#include "testutil.h"
#include "vecjson.h"

static vj_value *load(const char *rel) {
  char path[4096];
  vj_value *root = vj_parse_file(vj_vectors_path(path, sizeof path, rel));
  ck_assert_msg(root != NULL, "cannot read %s", path);
  return root;
}

// X448: RFC 7748.

// RFC 7748 §5.2, the two single test vectors (scalar, input u, output u).
static const struct {
  const char *scalar, *u, *out;
} rfc7748_x448[] = {
    {"3d262fddf9ec8e88495266fea19a34d28882acef045104d0d1aae121"
     "700a779c984c24f8cdd78fbff44943eba368f54b29259a4f1c600ad3",
     "06fce640fa3487bfda5f6cf2d5263f8aad88334cbd07437f020f08f9"
     "814dc031ddbdc38c19c6da2583fa5429db94ada18aa7a7fb4ef8a086",
     "ce3e4ff95a60dc6697da1db1d85e6afbdf79b50a2412d7546d5f239f"
     "e14fbaadeb445fc66a01b0779d98223961111e21766282f73dd96b6f"},
    {"203d494428b8399352665ddca42f9de8fef600908e0d461cb021f8c5"
     "38345dd77c3e4806e25f46d3315c44e0a5b4371282dd2c8d5be3095f",
     "0fbcc2f993cd56d3305b0b7d9e55d4c1a8fb5dbb52f8e9a1e9b6201b"
     "165d015894e56c4d3570bee52fe205e28a78b91cdfbde71ce8d157db",
     "884a02576239ff7a2f2f63b2db6a9ff37047ac13568e1e30fe63c4a7"
     "ad1b3ee3a5700df34321d62077e63633c575c1c954514e99da7c179d"},
};

START_TEST(rfc7748_x448_single) {
  uint8_t k[56], u[56], want[56], got[56];
  mc_test_unhex_fixed(k, 56, rfc7748_x448[_i].scalar);
  mc_test_unhex_fixed(u, 56, rfc7748_x448[_i].u);
  mc_test_unhex_fixed(want, 56, rfc7748_x448[_i].out);
  ck_assert_int_eq(mc_x448(got, k, u), 0);
  ck_assert_mem_eq(got, want, 56);
}
END_TEST

// RFC 7748 §5.2, the iterated test: k = u = 5; then repeatedly
// (k, u) = (X448(k, u), k). The values after 1 and 1,000 iterations; the
// 1,000,000-iteration value is in test_curve448_long.c.
START_TEST(rfc7748_x448_iterated) {
  uint8_t k[56] = {5}, u[56] = {5}, out[56], want1[56], want1000[56];
  mc_test_unhex_fixed(want1, 56,
                      "3f482c8a9f19b01e6c46ee9711d9dc14fd4bf67af30765c2ae2b846a"
                      "4d23a8cd0db897086239492caf350b51f833868b9bc2b3bca9cf4113");
  mc_test_unhex_fixed(want1000, 56,
                      "aa3b4749d55b9daf1e5b00288826c467274ce3ebbdd5c17b975e09d4"
                      "af6c67cf10d087202db88286e2b79fceea3ec353ef54faa26e219f38");
  for (int i = 1; i <= 1000; i++) {
    mc_x448_scalarmult(out, k, u);
    memcpy(u, k, 56);
    memcpy(k, out, 56);
    if (i == 1)
      ck_assert_mem_eq(k, want1, 56);
  }
  ck_assert_mem_eq(k, want1000, 56);
}
END_TEST

// RFC 7748 §6.2: Alice's and Bob's key pairs and their shared secret.
START_TEST(rfc7748_x448_diffie_hellman) {
  uint8_t a[56], a_pub[56], b[56], b_pub[56], k[56], got[56];
  mc_test_unhex_fixed(a, 56,
                      "9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28d"
                      "d9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b");
  mc_test_unhex_fixed(a_pub, 56,
                      "9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c"
                      "22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0");
  mc_test_unhex_fixed(b, 56,
                      "1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d"
                      "6927c120bb5ee8972b0d3e21374c9c921b09d1b0366f10b65173992d");
  mc_test_unhex_fixed(b_pub, 56,
                      "3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b430"
                      "27d8b972fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609");
  mc_test_unhex_fixed(k, 56,
                      "07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282b"
                      "b60c0b56fd2464c335543936521c24403085d59a449a5037514a879d");
  ck_assert_int_eq(mc_x448_public_key(got, a), 0);
  ck_assert_mem_eq(got, a_pub, 56);
  ck_assert_int_eq(mc_x448_public_key(got, b), 0);
  ck_assert_mem_eq(got, b_pub, 56);
  ck_assert_int_eq(mc_x448(got, a, b_pub), 0);
  ck_assert_mem_eq(got, k, 56);
  ck_assert_int_eq(mc_x448(got, b, a_pub), 0);
  ck_assert_mem_eq(got, k, 56);
}
END_TEST

// The public key computed on edwards448 (table, 4-isogeny) equals the
// ladder's X448(k, 5), including scalars whose clamped value is a multiple of
// L (4L: both give u = 0) and the extreme byte patterns.
START_TEST(x448_public_key_paths_agree) {
  static const uint8_t five[56] = {5};
  uint8_t k[56], edw[56], ladder[56];
  for (uint32_t i = 0; i < 200; i++) {
    if (i == 0)
      memset(k, 0, 56);
    else if (i == 1)
      memset(k, 0xff, 56);
    else if (i == 2)
      mc_test_unhex_fixed(k, 56,
                          "cc1361ad4a0ae38d543d1637ca09b38540da58bb266d3b11a78f28f3"
                          "fdffffffffffffffffffffffffffffffffffffffffffffffffffffff");
    else
      mc_test_bytes(k, 56, "x448 key", i);
    ck_assert_int_eq(mc_x448_public_key(edw, k), 0);
    mc_x448_scalarmult(ladder, k, five);
    ck_assert_mem_eq(edw, ladder, 56);
    if (i == 2) {
      static const uint8_t zero[56];
      ck_assert_mem_eq(edw, zero, 56);
    }
  }
}
END_TEST

START_TEST(x448_exchange_agrees) {
  uint8_t a[56], b[56], a_pub[56], b_pub[56], ab[56], ba[56];
  for (uint32_t i = 0; i < 20; i++) {
    mc_test_bytes(a, 56, "x448 a", i);
    mc_test_bytes(b, 56, "x448 b", i);
    ck_assert_int_eq(mc_x448_public_key(a_pub, a), 0);
    ck_assert_int_eq(mc_x448_public_key(b_pub, b), 0);
    ck_assert_int_eq(mc_x448(ab, a, b_pub), 0);
    ck_assert_int_eq(mc_x448(ba, b, a_pub), 0);
    ck_assert_mem_eq(ab, ba, 56);
  }
  ck_assert_int_eq(mc_x448_keypair(a_pub, a), 0);
  ck_assert_int_eq(mc_x448_keypair(b_pub, b), 0);
  ck_assert_mem_ne(a, b, 56);
  ck_assert_int_eq(mc_x448(ab, a, b_pub), 0);
  ck_assert_int_eq(mc_x448(ba, b, a_pub), 0);
  ck_assert_mem_eq(ab, ba, 56);
}
END_TEST

// Points of small order give an all-zero secret, which mc_x448 refuses: u = 0,
// u = 1, u = p - 1 (order 2 on curve448 and its twist), and non-canonical
// encodings of 0 and 1 (p and p + 1).
START_TEST(x448_small_order_refused) {
  static const uint8_t zero[56];
  uint8_t k[56], peers[5][56], out[56];
  memset(peers, 0, sizeof peers);
  peers[1][0] = 1;
  mc_test_unhex_fixed(peers[2], 56, // p - 1
                      "feffffffffffffffffffffffffffffffffffffffffffffffffffffff"
                      "feffffffffffffffffffffffffffffffffffffffffffffffffffffff");
  mc_test_unhex_fixed(peers[3], 56, // p
                      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
                      "feffffffffffffffffffffffffffffffffffffffffffffffffffffff");
  mc_test_unhex_fixed(peers[4], 56, // p + 1
                      "00000000000000000000000000000000000000000000000000000000"
                      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
  for (int i = 0; i < 5; i++) {
    mc_test_bytes(k, 56, "x448 small", (uint32_t)i);
    memset(out, 0xaa, sizeof out);
    ck_assert_int_eq(mc_x448(out, k, peers[i]), MC_ERR_BAD_KEY);
    ck_assert_mem_eq(out, zero, 56);
  }
}
END_TEST

START_TEST(x448_argument_errors) {
  uint8_t k[56] = {1}, u[56] = {5}, out[56];
  ck_assert_int_eq(mc_x448(NULL, k, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448(out, NULL, u), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448(out, k, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448_public_key(NULL, k), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448_public_key(out, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448_keypair(NULL, k), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_x448_keypair(out, NULL), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

// Wycheproof x448_test.json. Keys of the wrong length cannot reach the
// fixed-size API: the caller's length check rejects them, as "invalid"
// requires. For "acceptable" cases mc_x448 may refuse only an all-zero
// secret; whatever it accepts must match.
START_TEST(wycheproof_x448) {
  vj_value *root = load("wycheproof/x448_test.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0, accepted = 0;
  static const uint8_t zero[56];
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *tests = vj_get(&groups->items[g], "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      double id = vj_num(tc, "tcId", 0);
      const char *result = vj_str(tc, "result");
      size_t pub_len = 0, priv_len = 0, shared_len = 0;
      uint8_t *pub = mc_test_unhex(vj_str(tc, "public"), &pub_len);
      uint8_t *priv = mc_test_unhex(vj_str(tc, "private"), &priv_len);
      uint8_t *shared = mc_test_unhex(vj_str(tc, "shared"), &shared_len);
      ck_assert(pub != NULL && priv != NULL && shared != NULL);
      int ok = 0;
      if (pub_len == MC_X448_KEY_LEN && priv_len == MC_X448_KEY_LEN) {
        uint8_t out[56];
        int rc = mc_x448(out, priv, pub);
        ck_assert_msg(rc == 0 || rc == MC_ERR_BAD_KEY, "tcId %g: rc %d", id, rc);
        ok = rc == 0;
        ck_assert_uint_eq(shared_len, 56);
        if (ok)
          ck_assert_msg(memcmp(out, shared, 56) == 0, "tcId %g: wrong shared secret", id);
        else
          ck_assert_msg(memcmp(shared, zero, 56) == 0, "tcId %g: refused a non-zero secret", id);
      }
      if (strcmp(result, "valid") == 0)
        ck_assert_msg(ok, "tcId %g: valid case rejected", id);
      else if (strcmp(result, "invalid") == 0)
        ck_assert_msg(!ok, "tcId %g: invalid case accepted", id);
      else
        ck_assert_str_eq(result, "acceptable");
      accepted += (size_t)ok;
      checked++;
      free(pub);
      free(priv);
      free(shared);
    }
  }
  ck_assert_uint_eq(checked, (size_t)vj_num(root, "numberOfTests", -1));
  ck_assert_uint_eq(checked, 510);
  // 12 keys of 57 bytes and 11 all-zero secrets are refused.
  ck_assert_uint_eq(accepted, 510 - 12 - 11);
  vj_free(root);
}
END_TEST

// Ed448: RFC 8032.

// RFC 8032 §7.4 (Ed448: blank, 1 octet, 1 octet with context "foo", 11, 12,
// 13, 64, 256 and 1023 octets) and §7.5 (Ed448ph: "abc" without and with
// context "foo"): private key, public key, message, context, signature.
static const struct {
  const char *name;
  int prehash;
  const char *sk, *pk, *msg, *ctx, *sig;
} rfc8032_ed448[] = {
    {"Blank", 0,
     "6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3"
     "528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b",
     "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778"
     "edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180",
     "", "",
     "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f"
     "2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a"
     "9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4db"
     "b61149f05a7363268c71d95808ff2e652600"},
    {"1 octet", 0,
     "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463a"
     "fbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e",
     "43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c086"
     "6aea01eb00742802b8438ea4cb82169c235160627b4c3a9480",
     "03", "",
     "26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f435"
     "2541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cb"
     "cee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0f"
     "f3348ab21aa4adafd1d234441cf807c03a00"},
    {"1 octet (with context)", 0,
     "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463a"
     "fbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e",
     "43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c086"
     "6aea01eb00742802b8438ea4cb82169c235160627b4c3a9480",
     "03", "666f6f",
     "d4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2"
     "151f7647f11d8ca2ae279fb842d607217fce6e042f6815ea000c85741de5c8da"
     "1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d54d0d"
     "5428407e85dcbc98a49155c13764e66c3c00"},
    {"11 octets", 0,
     "cd23d24f714274e744343237b93290f511f6425f98e64459ff203e8985083ffd"
     "f60500553abc0e05cd02184bdb89c4ccd67e187951267eb328",
     "dcea9e78f35a1bf3499a831b10b86c90aac01cd84b67a0109b55a36e9328b1e3"
     "65fce161d71ce7131a543ea4cb5f7e9f1d8b00696447001400",
     "0c3e544074ec63b0265e0c", "",
     "1f0a8888ce25e8d458a21130879b840a9089d999aaba039eaf3e3afa090a09d3"
     "89dba82c4ff2ae8ac5cdfb7c55e94d5d961a29fe0109941e00b8dbdeea6d3b05"
     "1068df7254c0cdc129cbe62db2dc957dbb47b51fd3f213fb8698f064774250a5"
     "028961c9bf8ffd973fe5d5c206492b140e00"},
    {"12 octets", 0,
     "258cdd4ada32ed9c9ff54e63756ae582fb8fab2ac721f2c8e676a72768513d93"
     "9f63dddb55609133f29adf86ec9929dccb52c1c5fd2ff7e21b",
     "3ba16da0c6f2cc1f30187740756f5e798d6bc5fc015d7c63cc9510ee3fd44adc"
     "24d8e968b6e46e6f94d19b945361726bd75e149ef09817f580",
     "64a65f3cdedcdd66811e2915", "",
     "7eeeab7c4e50fb799b418ee5e3197ff6bf15d43a14c34389b59dd1a7b1b85b4a"
     "e90438aca634bea45e3a2695f1270f07fdcdf7c62b8efeaf00b45c2c96ba457e"
     "b1a8bf075a3db28e5c24f6b923ed4ad747c3c9e03c7079efb87cb110d3a99861"
     "e72003cbae6d6b8b827e4e6c143064ff3c00"},
    {"13 octets", 0,
     "7ef4e84544236752fbb56b8f31a23a10e42814f5f55ca037cdcc11c64c9a3b29"
     "49c1bb60700314611732a6c2fea98eebc0266a11a93970100e",
     "b3da079b0aa493a5772029f0467baebee5a8112d9d3a22532361da294f7bb381"
     "5c5dc59e176b4d9f381ca0938e13c6c07b174be65dfa578e80",
     "64a65f3cdedcdd66811e2915e7", "",
     "6a12066f55331b6c22acd5d5bfc5d71228fbda80ae8dec26bdd306743c5027cb"
     "4890810c162c027468675ecf645a83176c0d7323a2ccde2d80efe5a1268e8aca"
     "1d6fbc194d3f77c44986eb4ab4177919ad8bec33eb47bbb5fc6e28196fd1caf5"
     "6b4e7e0ba5519234d047155ac727a1053100"},
    {"64 octets", 0,
     "d65df341ad13e008567688baedda8e9dcdc17dc024974ea5b4227b6530e339bf"
     "f21f99e68ca6968f3cca6dfe0fb9f4fab4fa135d5542ea3f01",
     "df9705f58edbab802c7f8363cfe5560ab1c6132c20a9f1dd163483a26f8ac53a"
     "39d6808bf4a1dfbd261b099bb03b3fb50906cb28bd8a081f00",
     "bd0f6a3747cd561bdddf4640a332461a4a30a12a434cd0bf40d766d9c6d458e5"
     "512204a30c17d1f50b5079631f64eb3112182da3005835461113718d1a5ef944",
     "",
     "554bc2480860b49eab8532d2a533b7d578ef473eeb58c98bb2d0e1ce488a98b1"
     "8dfde9b9b90775e67f47d4a1c3482058efc9f40d2ca033a0801b63d45b3b722e"
     "f552bad3b4ccb667da350192b61c508cf7b6b5adadc2c8d9a446ef003fb05cba"
     "5f30e88e36ec2703b349ca229c2670833900"},
    {"256 octets", 0,
     "2ec5fe3c17045abdb136a5e6a913e32ab75ae68b53d2fc149b77e504132d3756"
     "9b7e766ba74a19bd6162343a21c8590aa9cebca9014c636df5",
     "79756f014dcfe2079f5dd9e718be4171e2ef2486a08f25186f6bff43a9936b9b"
     "fe12402b08ae65798a3d81e22e9ec80e7690862ef3d4ed3a00",
     "15777532b0bdd0d1389f636c5f6b9ba734c90af572877e2d272dd078aa1e567c"
     "fa80e12928bb542330e8409f3174504107ecd5efac61ae7504dabe2a602ede89"
     "e5cca6257a7c77e27a702b3ae39fc769fc54f2395ae6a1178cab4738e543072f"
     "c1c177fe71e92e25bf03e4ecb72f47b64d0465aaea4c7fad372536c8ba516a60"
     "39c3c2a39f0e4d832be432dfa9a706a6e5c7e19f397964ca4258002f7c0541b5"
     "90316dbc5622b6b2a6fe7a4abffd96105eca76ea7b98816af0748c10df048ce0"
     "12d901015a51f189f3888145c03650aa23ce894c3bd889e030d565071c59f409"
     "a9981b51878fd6fc110624dcbcde0bf7a69ccce38fabdf86f3bef6044819de11",
     "",
     "c650ddbb0601c19ca11439e1640dd931f43c518ea5bea70d3dcde5f4191fe53f"
     "00cf966546b72bcc7d58be2b9badef28743954e3a44a23f880e8d4f1cfce2d7a"
     "61452d26da05896f0a50da66a239a8a188b6d825b3305ad77b73fbac0836ecc6"
     "0987fd08527c1a8e80d5823e65cafe2a3d00"},
    {"1023 octets", 0,
     "872d093780f5d3730df7c212664b37b8a0f24f56810daa8382cd4fa3f77634ec"
     "44dc54f1c2ed9bea86fafb7632d8be199ea165f5ad55dd9ce8",
     "a81b2e8a70a5ac94ffdbcc9badfc3feb0801f258578bb114ad44ece1ec0e799d"
     "a08effb81c5d685c0c56f64eecaef8cdf11cc38737838cf400",
     "6ddf802e1aae4986935f7f981ba3f0351d6273c0a0c22c9c0e8339168e675412"
     "a3debfaf435ed651558007db4384b650fcc07e3b586a27a4f7a00ac8a6fec2cd"
     "86ae4bf1570c41e6a40c931db27b2faa15a8cedd52cff7362c4e6e23daec0fbc"
     "3a79b6806e316efcc7b68119bf46bc76a26067a53f296dafdbdc11c77f7777e9"
     "72660cf4b6a9b369a6665f02e0cc9b6edfad136b4fabe723d2813db3136cfde9"
     "b6d044322fee2947952e031b73ab5c603349b307bdc27bc6cb8b8bbd7bd32321"
     "9b8033a581b59eadebb09b3c4f3d2277d4f0343624acc817804728b25ab79717"
     "2b4c5c21a22f9c7839d64300232eb66e53f31c723fa37fe387c7d3e50bdf9813"
     "a30e5bb12cf4cd930c40cfb4e1fc622592a49588794494d56d24ea4b40c89fc0"
     "596cc9ebb961c8cb10adde976a5d602b1c3f85b9b9a001ed3c6a4d3b1437f520"
     "96cd1956d042a597d561a596ecd3d1735a8d570ea0ec27225a2c4aaff26306d1"
     "526c1af3ca6d9cf5a2c98f47e1c46db9a33234cfd4d81f2c98538a09ebe76998"
     "d0d8fd25997c7d255c6d66ece6fa56f11144950f027795e653008f4bd7ca2dee"
     "85d8e90f3dc315130ce2a00375a318c7c3d97be2c8ce5b6db41a6254ff264fa6"
     "155baee3b0773c0f497c573f19bb4f4240281f0b1f4f7be857a4e59d416c06b4"
     "c50fa09e1810ddc6b1467baeac5a3668d11b6ecaa901440016f389f80acc4db9"
     "77025e7f5924388c7e340a732e554440e76570f8dd71b7d640b3450d1fd5f041"
     "0a18f9a3494f707c717b79b4bf75c98400b096b21653b5d217cf3565c9597456"
     "f70703497a078763829bc01bb1cbc8fa04eadc9a6e3f6699587a9e75c94e5bab"
     "0036e0b2e711392cff0047d0d6b05bd2a588bc109718954259f1d86678a579a3"
     "120f19cfb2963f177aeb70f2d4844826262e51b80271272068ef5b3856fa8535"
     "aa2a88b2d41f2a0e2fda7624c2850272ac4a2f561f8f2f7a318bfd5caf969614"
     "9e4ac824ad3460538fdc25421beec2cc6818162d06bbed0c40a387192349db67"
     "a118bada6cd5ab0140ee273204f628aad1c135f770279a651e24d8c14d75a605"
     "9d76b96a6fd857def5e0b354b27ab937a5815d16b5fae407ff18222c6d1ed263"
     "be68c95f32d908bd895cd76207ae726487567f9a67dad79abec316f683b17f2d"
     "02bf07e0ac8b5bc6162cf94697b3c27cd1fea49b27f23ba2901871962506520c"
     "392da8b6ad0d99f7013fbc06c2c17a569500c8a7696481c1cd33e9b14e40b82e"
     "79a5f5db82571ba97bae3ad3e0479515bb0e2b0f3bfcd1fd33034efc6245eddd"
     "7ee2086ddae2600d8ca73e214e8c2b0bdb2b047c6a464a562ed77b73d2d841c4"
     "b34973551257713b753632efba348169abc90a68f42611a40126d7cb21b58695"
     "568186f7e569d2ff0f9e745d0487dd2eb997cafc5abf9dd102e62ff66cba87",
     "",
     "e301345a41a39a4d72fff8df69c98075a0cc082b802fc9b2b6bc503f926b65bd"
     "df7f4c8f1cb49f6396afc8a70abe6d8aef0db478d4c6b2970076c6a0484fe76d"
     "76b3a97625d79f1ce240e7c576750d295528286f719b413de9ada3e8eb78ed57"
     "3603ce30d8bb761785dc30dbc320869e1a00"},
    {"TEST abc", 1,
     "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42"
     "ef7822e0d5104127dc05d6dbefde69e3ab2cec7c867c6e2c49",
     "259b71c19f83ef77a7abd26524cbdb3161b590a48f7d17de3ee0ba9c52beb743"
     "c09428a131d6b1b57303d90d8132c276d5ed3d5d01c0f53880",
     "616263", "",
     "822f6901f7480f3d5f562c592994d9693602875614483256505600bbc281ae38"
     "1f54d6bce2ea911574932f52a4e6cadd78769375ec3ffd1b801a0d9b3f4030cd"
     "433964b6457ea39476511214f97469b57dd32dbc560a9a94d00bff07620464a3"
     "ad203df7dc7ce360c3cd3696d9d9fab90f00"},
    {"TEST abc (with context)", 1,
     "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42"
     "ef7822e0d5104127dc05d6dbefde69e3ab2cec7c867c6e2c49",
     "259b71c19f83ef77a7abd26524cbdb3161b590a48f7d17de3ee0ba9c52beb743"
     "c09428a131d6b1b57303d90d8132c276d5ed3d5d01c0f53880",
     "616263", "666f6f",
     "c32299d46ec8ff02b54540982814dce9a05812f81962b649d528095916a2aa48"
     "1065b1580423ef927ecf0af5888f90da0f6a9a85ad5dc3f280d91224ba9911a3"
     "653d00e484e2ce232521481c8658df304bb7745a73514cdb9bf3e15784ab7128"
     "4f8d0704a608c54a6b62d97beb511d132100"},
};

static uint8_t *unhex_any(const char *hex, size_t *len) {
  uint8_t *out = mc_test_unhex(hex, len);
  ck_assert_msg(out != NULL, "bad hex");
  return out;
}

START_TEST(rfc8032_vectors) {
  uint8_t sk[57], pk[57], want_sig[114], got_pk[57], sig[114];
  size_t msg_len = 0, ctx_len = 0;
  mc_test_unhex_fixed(sk, 57, rfc8032_ed448[_i].sk);
  mc_test_unhex_fixed(pk, 57, rfc8032_ed448[_i].pk);
  mc_test_unhex_fixed(want_sig, 114, rfc8032_ed448[_i].sig);
  uint8_t *msg = unhex_any(rfc8032_ed448[_i].msg, &msg_len);
  uint8_t *ctx = unhex_any(rfc8032_ed448[_i].ctx, &ctx_len);
  ck_assert_int_eq(mc_ed448_public_key(got_pk, sk), 0);
  ck_assert_mem_eq(got_pk, pk, 57);
  ck_assert_int_eq(mc_ed448_check_public_key(pk), 0);
  if (rfc8032_ed448[_i].prehash) {
    uint8_t digest[64];
    ck_assert_int_eq(mc_ed448ph_sign(sig, sk, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_mem_eq(sig, want_sig, 114);
    ck_assert_int_eq(mc_ed448ph_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_int_eq(mc_shake(MC_SHAKE256, digest, 64, msg, msg_len), 0);
    ck_assert_int_eq(mc_ed448ph_sign_digest(sig, sk, digest, ctx, ctx_len), 0);
    ck_assert_mem_eq(sig, want_sig, 114);
    ck_assert_int_eq(mc_ed448ph_verify_digest(pk, sig, 114, digest, ctx, ctx_len), 0);
    // The same bytes are not a pure Ed448 signature.
    ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len),
                     MC_ERR_BAD_SIGNATURE);
  } else {
    ck_assert_int_eq(mc_ed448_sign(sig, sk, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_mem_eq(sig, want_sig, 114);
    ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_int_eq(mc_ed448ph_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len),
                     MC_ERR_BAD_SIGNATURE);
  }
  // Any flipped bit of the signature, a changed message or context fails.
  for (size_t bit = 0; bit < 114 * 8; bit += 37) {
    uint8_t bad[114];
    memcpy(bad, want_sig, 114);
    bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    int rc = rfc8032_ed448[_i].prehash ? mc_ed448ph_verify(pk, bad, 114, msg, msg_len, ctx, ctx_len)
                                       : mc_ed448_verify(pk, bad, 114, msg, msg_len, ctx, ctx_len);
    ck_assert_int_eq(rc, MC_ERR_BAD_SIGNATURE);
  }
  uint8_t other_ctx[3] = {'b', 'a', 'r'};
  int rc = rfc8032_ed448[_i].prehash
               ? mc_ed448ph_verify(pk, want_sig, 114, msg, msg_len, other_ctx, 3)
               : mc_ed448_verify(pk, want_sig, 114, msg, msg_len, other_ctx, 3);
  ck_assert_int_eq(rc, MC_ERR_BAD_SIGNATURE);
  free(msg);
  free(ctx);
}
END_TEST

// Wycheproof ed448_test.json: every case, through mc_ed448_verify with the
// signature's real length.
START_TEST(wycheproof_ed448) {
  vj_value *root = load("wycheproof/ed448_test.json");
  const vj_value *groups = vj_get(root, "testGroups");
  size_t checked = 0;
  for (size_t g = 0; g < groups->count; g++) {
    const vj_value *group = &groups->items[g];
    uint8_t pk[57];
    mc_test_unhex_fixed(pk, 57, vj_str(vj_get(group, "publicKey"), "pk"));
    const vj_value *tests = vj_get(group, "tests");
    for (size_t t = 0; t < tests->count; t++) {
      const vj_value *tc = &tests->items[t];
      double id = vj_num(tc, "tcId", 0);
      const char *result = vj_str(tc, "result");
      size_t msg_len = 0, sig_len = 0;
      uint8_t *msg = unhex_any(vj_str(tc, "msg"), &msg_len);
      uint8_t *sig = unhex_any(vj_str(tc, "sig"), &sig_len);
      int rc = mc_ed448_verify(pk, sig, sig_len, msg, msg_len, NULL, 0);
      ck_assert_msg(rc == 0 || rc == MC_ERR_BAD_SIGNATURE || rc == MC_ERR_BAD_KEY, "tcId %g: rc %d",
                    id, rc);
      if (strcmp(result, "valid") == 0)
        ck_assert_msg(rc == 0, "tcId %g: valid case rejected (%d)", id, rc);
      else if (strcmp(result, "invalid") == 0)
        ck_assert_msg(rc != 0, "tcId %g: invalid case accepted", id);
      else
        ck_assert_str_eq(result, "acceptable");
      checked++;
      free(msg);
      free(sig);
    }
  }
  ck_assert_uint_eq(checked, (size_t)vj_num(root, "numberOfTests", -1));
  ck_assert_uint_eq(checked, 87);
  vj_free(root);
}
END_TEST

// Sign and verify across message and context lengths (0..255), with contexts
// and the pre-hash flag separating the signatures.
START_TEST(ed448_round_trips) {
  uint8_t sk[57], pk[57], msg[300], ctx[255], sig[114], sig2[114];
  for (uint32_t i = 0; i < 24; i++) {
    size_t msg_len = (i * 37) % sizeof msg, ctx_len = (i * 53) % 256;
    mc_test_bytes(sk, 57, "ed448 sk", i);
    mc_test_bytes(msg, msg_len + 1, "ed448 msg", i);
    mc_test_bytes(ctx, sizeof ctx, "ed448 ctx", i);
    ck_assert_int_eq(mc_ed448_public_key(pk, sk), 0);
    ck_assert_int_eq(mc_ed448_sign(sig, sk, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_uint_eq(sig[113], 0);
    // Deterministic.
    ck_assert_int_eq(mc_ed448_sign(sig2, sk, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_mem_eq(sig, sig2, 114);
    // A context of different length or content, the pre-hash variant, a
    // changed message, or the wrong length all fail.
    if (ctx_len > 0) {
      ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len - 1),
                       MC_ERR_BAD_SIGNATURE);
      ctx[0] ^= 1;
      ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len),
                       MC_ERR_BAD_SIGNATURE);
      ctx[0] ^= 1;
    }
    ck_assert_int_eq(mc_ed448ph_verify(pk, sig, 114, msg, msg_len, ctx, ctx_len),
                     MC_ERR_BAD_SIGNATURE);
    ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, msg_len + 1, ctx, ctx_len),
                     MC_ERR_BAD_SIGNATURE);
    ck_assert_int_eq(mc_ed448_verify(pk, sig, 113, msg, msg_len, ctx, ctx_len),
                     MC_ERR_BAD_SIGNATURE);
    ck_assert_int_eq(mc_ed448ph_sign(sig2, sk, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_int_eq(mc_ed448ph_verify(pk, sig2, 114, msg, msg_len, ctx, ctx_len), 0);
    ck_assert_mem_ne(sig, sig2, 114);
  }
  ck_assert_int_eq(mc_ed448_keypair(pk, sk), 0);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, msg, 10, NULL, 0), 0);
  ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, msg, 10, NULL, 0), 0);
}
END_TEST

START_TEST(ed448_argument_errors) {
  uint8_t sk[57] = {1}, pk[57], sig[114], ctx[256] = {0}, digest[64] = {0};
  ck_assert_int_eq(mc_ed448_public_key(pk, sk), 0);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, NULL, 1, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, NULL, 0, NULL, 1), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, NULL, 0, ctx, 256), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_sign(NULL, sk, NULL, 0, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_sign(sig, NULL, NULL, 0, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_sign(sig, sk, NULL, 0, ctx, 255), 0);
  ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, NULL, 0, ctx, 255), 0);
  ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, NULL, 0, ctx, 256), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_verify(NULL, sig, 114, NULL, 0, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_verify(pk, NULL, 114, NULL, 0, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_verify(pk, NULL, 0, NULL, 0, NULL, 0), MC_ERR_BAD_SIGNATURE);
  ck_assert_int_eq(mc_ed448_verify(pk, sig, 114, NULL, 1, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448ph_sign(sig, sk, NULL, 0, ctx, 256), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448ph_verify(pk, sig, 114, NULL, 0, ctx, 256), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448ph_sign_digest(sig, sk, NULL, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448ph_sign_digest(sig, sk, digest, ctx, 256), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448ph_verify_digest(pk, sig, 114, NULL, NULL, 0), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_keypair(NULL, sk), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_public_key(pk, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_ed448_check_public_key(NULL), MC_ERR_INVALID_ARGUMENT);
}
END_TEST

// Strict decoding (RFC 8032 §5.2.3): y >= p, unused bits 448..454, x = 0 with
// the sign bit, and y with no matching x are refused; the identity and the
// point of order 2 are accepted, as the RFC accepts every point.
START_TEST(ed448_strict_decoding) {
  uint8_t enc[57], sig[114], sk[57] = {3};
  memset(enc, 0, sizeof enc);
  enc[0] = 1; // y = 1, x = 0: the identity
  ck_assert_int_eq(mc_ed448_check_public_key(enc), 0);
  enc[56] = 0x80; // the same with the sign bit: "negative zero"
  ck_assert_int_eq(mc_ed448_check_public_key(enc), MC_ERR_BAD_KEY);
  // y = p - 1 = -1, x = 0: the point of order 2.
  mc_test_unhex_fixed(enc, 57,
                      "fefffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
                      "ffffffffffffffffffffffffffffffffffffffffffffffffffffff00");
  ck_assert_int_eq(mc_ed448_check_public_key(enc), 0);
  // y = p and y = p + 1: non-canonical encodings of 0 and 1.
  mc_test_unhex_fixed(enc, 57,
                      "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
                      "ffffffffffffffffffffffffffffffffffffffffffffffffffffff00");
  ck_assert_int_eq(mc_ed448_check_public_key(enc), MC_ERR_BAD_KEY);
  memset(enc, 0, 28); // p + 1 = 2^448 - 2^224: the low 28 bytes are zero
  ck_assert_int_eq(mc_ed448_check_public_key(enc), MC_ERR_BAD_KEY);
  // Unused bits of a valid key.
  ck_assert_int_eq(mc_ed448_public_key(enc, sk), 0);
  ck_assert_int_eq(mc_ed448_check_public_key(enc), 0);
  for (int b = 0; b < 7; b++) {
    enc[56] ^= (uint8_t)(1u << b);
    ck_assert_int_eq(mc_ed448_check_public_key(enc), MC_ERR_BAD_KEY);
    ck_assert_int_eq(mc_ed448_verify(enc, sig, 114, NULL, 0, NULL, 0), MC_ERR_BAD_KEY);
    enc[56] ^= (uint8_t)(1u << b);
  }
  // Half of all y have no x; count refusals over many y to be sure both
  // outcomes occur and every accepted encoding re-encodes to itself.
  int refused = 0, accepted = 0;
  for (uint32_t i = 0; i < 200; i++) {
    mc_ed448_point p;
    mc_test_bytes(enc, 56, "ed448 y", i);
    enc[55] &= 0x7f; // stay below p
    enc[56] = (uint8_t)((i & 1) << 7);
    if (mc_ed448_point_decode(&p, enc) != 0) {
      refused++;
      continue;
    }
    accepted++;
    uint8_t again[57];
    mc_ed448_point_encode(again, &p);
    ck_assert_mem_eq(again, enc, 57);
  }
  ck_assert_int_gt(refused, 50);
  ck_assert_int_gt(accepted, 50);
}
END_TEST

// Internals.

static void f448_from_hex(mc_f448 *r, const char *hex) {
  uint8_t b[56];
  mc_test_unhex_fixed(b, 56, hex);
  mc_f448_frombytes(r, b);
}

// Canonical encoding at the edges: p - 1, p, p + 1, 2^448 - 1; inverses and
// square roots of pseudo-random elements.
START_TEST(field_edges) {
  static const char *p_minus_1 = "feffffffffffffffffffffffffffffffffffffffffffffffffffffff"
                                 "feffffffffffffffffffffffffffffffffffffffffffffffffffffff";
  uint8_t out[56], want[56];
  mc_f448 a, b, c;
  f448_from_hex(&a, p_minus_1);
  mc_f448_tobytes(out, &a);
  mc_test_unhex_fixed(want, 56, p_minus_1);
  ck_assert_mem_eq(out, want, 56);
  ck_assert_uint_eq(mc_f448_is_zero(&a), 0);
  mc_f448_set_u32(&b, 1);
  mc_f448_add(&c, &a, &b); // p ≡ 0
  ck_assert_uint_eq(mc_f448_is_zero(&c), ~(uint64_t)0);
  mc_f448_tobytes(out, &c);
  memset(want, 0, 56);
  ck_assert_mem_eq(out, want, 56);
  memset(want, 0xff, 56); // 2^448 - 1 ≡ 2^224
  mc_f448_frombytes(&a, want);
  mc_f448_tobytes(out, &a);
  memset(want, 0, 56);
  want[28] = 1;
  ck_assert_mem_eq(out, want, 56);
  // -1 * -1 = 1 and (p - 1) + (p - 1) = p - 2.
  f448_from_hex(&a, p_minus_1);
  mc_f448_mul(&c, &a, &a);
  mc_f448_tobytes(out, &c);
  memset(want, 0, 56);
  want[0] = 1;
  ck_assert_mem_eq(out, want, 56);
  // Products at the documented input bound: every limb 2^59 - 1 gives the
  // same residue as its carried form.
  mc_f448 big, zero, red, m1, m2;
  for (int i = 0; i < 8; i++)
    big.v[i] = ((uint64_t)1 << 59) - 1;
  mc_f448_set_u32(&zero, 0);
  mc_f448_add(&red, &big, &zero);
  uint8_t e1[56], e2[56];
  mc_f448_mul(&m1, &big, &big);
  mc_f448_mul(&m2, &red, &red);
  mc_f448_tobytes(e1, &m1);
  mc_f448_tobytes(e2, &m2);
  ck_assert_mem_eq(e1, e2, 56);
  mc_f448_sqr(&m1, &big);
  mc_f448_tobytes(e1, &m1);
  ck_assert_mem_eq(e1, e2, 56);
  mc_f448_mul_small(&m1, &big, 39081);
  mc_f448_mul_small(&m2, &red, 39081);
  mc_f448_tobytes(e1, &m1);
  mc_f448_tobytes(e2, &m2);
  ck_assert_mem_eq(e1, e2, 56);
  for (uint32_t i = 0; i < 50; i++) {
    uint8_t bytes[56];
    mc_test_bytes(bytes, 56, "f448", i);
    mc_f448_frombytes(&a, bytes);
    mc_f448_inv(&b, &a);
    mc_f448_mul(&c, &a, &b);
    mc_f448_tobytes(out, &c);
    memset(want, 0, 56);
    want[0] = 1;
    ck_assert_mem_eq(out, want, 56);
    // (a^2)^((p+1)/4) = ±a, since p ≡ 3 (mod 4): a^((p+1)/4) = a * a^((p-3)/4).
    mc_f448 sq, r, neg;
    mc_f448_sqr(&sq, &a);
    mc_f448_pow_p34(&r, &sq);
    mc_f448_mul(&r, &r, &sq);
    mc_f448_sub(&c, &r, &a);
    mc_f448_neg(&neg, &a);
    mc_f448_sub(&b, &r, &neg);
    ck_assert_uint_eq(mc_f448_is_zero(&c) | mc_f448_is_zero(&b), ~(uint64_t)0);
    // sqr agrees with mul, sub with add of the negation, loose with strict.
    mc_f448_mul(&b, &a, &a);
    mc_f448_sub(&c, &sq, &b);
    ck_assert_uint_eq(mc_f448_is_zero(&c), ~(uint64_t)0);
    mc_f448 l1, l2;
    mc_f448_add_loose(&l1, &a, &sq);
    mc_f448_sub_loose(&l2, &l1, &a);
    mc_f448_mul(&l1, &l1, &l2);
    mc_f448_add(&b, &a, &sq);
    mc_f448_mul(&b, &b, &sq);
    mc_f448_sub(&c, &l1, &b);
    ck_assert_uint_eq(mc_f448_is_zero(&c), ~(uint64_t)0);
  }
}
END_TEST

// Scalars mod L: reduction of 2^912 - 1 (value computed independently),
// L and L + 1, the canonical check, and multiply-add identities.
START_TEST(scalar_edges) {
  static const char *l_hex = "f34458ab92c27823558fc58d72c26c219036d6ae49db4ec4e923ca7c"
                             "ffffffffffffffffffffffffffffffffffffffffffffffffffffff3f";
  uint8_t in[114], out[56], want[56], l[57] = {0}, lm1[56], zero[56] = {0}, one[56] = {1};
  memset(in, 0xff, sizeof in);
  mc_sc448_reduce(out, in, sizeof in);
  mc_test_unhex_fixed(want, 56,
                      "81dee731a93f88112e1dad8707160f80293ea637fb19e320c5b624bb"
                      "85c972cf17ae447cc4a34bc19c1aaf70d0e4b7bc522029b723f83929");
  ck_assert_mem_eq(out, want, 56);
  mc_test_unhex_fixed(l, 56, l_hex);
  mc_sc448_reduce(out, l, 56);
  ck_assert_mem_eq(out, zero, 56);
  ck_assert_int_eq(mc_sc448_is_canonical(l), 0);
  memcpy(lm1, l, 56);
  lm1[0]--;
  ck_assert_int_eq(mc_sc448_is_canonical((uint8_t[57]){0}), 1);
  uint8_t lm1_57[57] = {0};
  memcpy(lm1_57, lm1, 56);
  ck_assert_int_eq(mc_sc448_is_canonical(lm1_57), 1);
  lm1_57[56] = 1;
  ck_assert_int_eq(mc_sc448_is_canonical(lm1_57), 0);
  l[0]++;
  mc_sc448_reduce(out, l, 57);
  ck_assert_mem_eq(out, one, 56);
  // (L-1)(L-1) + (L-1) = (L-1)L ≡ 0 and (L-1)(L-1) + 0 = 1.
  mc_sc448_muladd(out, lm1, lm1, lm1);
  ck_assert_mem_eq(out, zero, 56);
  mc_sc448_muladd(out, lm1, lm1, zero);
  ck_assert_mem_eq(out, one, 56);
  // a * 1 + b = a + b, compared with reduction of the plain sum.
  for (uint32_t i = 0; i < 20; i++) {
    uint8_t a[56], b[56], sum[57];
    mc_test_bytes(in, 114, "sc448", i);
    mc_sc448_reduce(a, in, 57);
    mc_sc448_reduce(b, in + 57, 57);
    mc_sc448_muladd(out, a, one, b);
    unsigned carry = 0;
    for (int j = 0; j < 56; j++) {
      carry += (unsigned)a[j] + b[j];
      sum[j] = (uint8_t)carry;
      carry >>= 8;
    }
    sum[56] = (uint8_t)carry;
    mc_sc448_reduce(want, sum, 57);
    ck_assert_mem_eq(out, want, 56);
  }
}
END_TEST

// The fixed-base table agrees with the generic constant-time ladder, [L]B is
// the identity, and [a]B + [b]B = [a + b]B.
START_TEST(group_scalar_mults_agree) {
  mc_ed448_point base, p, q, r;
  uint8_t k[56], enc1[57], enc2[57];
  static const char *base_hex = "14fa30f25b790898adc8d74e2c13bdfdc4397ce61cffd33ad7c2a0051e"
                                "9c78874098a36c7373ea4b62c7c9563720768824bcb66e71463f6900";
  mc_test_unhex_fixed(enc1, 57, base_hex);
  ck_assert_int_eq(mc_ed448_point_decode(&base, enc1), 0);
  for (uint32_t i = 0; i < 12; i++) {
    uint8_t wide[114];
    mc_test_bytes(wide, 114, "ed448 k", i);
    mc_sc448_reduce(k, wide, 114);
    mc_ed448_scalarmult_base(&p, k);
    mc_ed448_scalarmult(&q, &base, k);
    ck_assert_int_eq(mc_ed448_point_equal(&p, &q), 1);
    mc_ed448_point_encode(enc1, &p);
    mc_ed448_point_encode(enc2, &q);
    ck_assert_mem_eq(enc1, enc2, 57);
    ck_assert_int_eq(mc_ed448_point_decode(&r, enc1), 0);
    ck_assert_int_eq(mc_ed448_point_equal(&r, &p), 1);
    // [k]B + [k]B = [2k]B = 2 * [k]B.
    uint8_t two[56] = {2}, zero[56] = {0}, k2[56];
    mc_sc448_muladd(k2, k, two, zero);
    mc_ed448_scalarmult_base(&q, k2);
    mc_ed448_point_add(&r, &p, &p);
    ck_assert_int_eq(mc_ed448_point_equal(&r, &q), 1);
    mc_ed448_point_double(&r, &p);
    ck_assert_int_eq(mc_ed448_point_equal(&r, &q), 1);
  }
  mc_test_unhex_fixed(k, 56,
                      "f34458ab92c27823558fc58d72c26c219036d6ae49db4ec4e923ca7c"
                      "ffffffffffffffffffffffffffffffffffffffffffffffffffffff3f");
  mc_ed448_scalarmult_base(&p, k);
  mc_ed448_point_identity(&q);
  ck_assert_int_eq(mc_ed448_point_equal(&p, &q), 1);
  mc_ed448_scalarmult(&p, &base, k);
  ck_assert_int_eq(mc_ed448_point_equal(&p, &q), 1);
}
END_TEST

// The variable-time [a]P + [b]B of verification against the constant-time
// pieces, with scalars at the edges: 0, 1, L - 1, 2^446 - 1, and runs of
// ones that stress the NAF carries.
START_TEST(double_scalarmult_agrees) {
  mc_ed448_point pt, want, got, t;
  uint8_t a[56], b[56], wide[114];
  for (uint32_t i = 0; i < 40; i++) {
    mc_test_bytes(wide, 114, "ed448 dsm", i);
    mc_sc448_reduce(a, wide, 57);
    mc_sc448_reduce(b, wide + 57, 57);
    uint8_t *edge = (i & 1) ? a : b;
    switch (i / 2 % 6) {
    case 0:
      memset(edge, 0, 56);
      break;
    case 1:
      memset(edge, 0, 56);
      edge[0] = 1;
      break;
    case 2:
      mc_test_unhex_fixed(edge, 56,
                          "f24458ab92c27823558fc58d72c26c219036d6ae49db4ec4e923ca7c"
                          "ffffffffffffffffffffffffffffffffffffffffffffffffffffff3f");
      break;
    case 3:
      memset(edge, 0xff, 56);
      edge[55] = 0x3f;
      break;
    case 4:
      memset(edge, 0x7f, 56);
      edge[55] = 0x3f;
      break;
    default:
      break;
    }
    mc_sc448_reduce(wide, wide + 30, 57); // a pseudo-random point [w]B
    mc_ed448_scalarmult_base(&pt, wide);
    mc_ed448_double_scalarmult_vartime(&got, a, &pt, b);
    mc_ed448_scalarmult(&want, &pt, a);
    mc_ed448_scalarmult_base(&t, b);
    mc_ed448_point_add(&want, &want, &t);
    ck_assert_msg(mc_ed448_point_equal(&got, &want) == 1, "case %u", i);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("curve448");
  TCase *x = tcase_create("x448");
  tcase_add_loop_test(x, rfc7748_x448_single, 0, sizeof rfc7748_x448 / sizeof rfc7748_x448[0]);
  tcase_add_test(x, rfc7748_x448_iterated);
  tcase_add_test(x, rfc7748_x448_diffie_hellman);
  tcase_add_test(x, x448_public_key_paths_agree);
  tcase_add_test(x, x448_exchange_agrees);
  tcase_add_test(x, x448_small_order_refused);
  tcase_add_test(x, x448_argument_errors);
  tcase_add_test(x, wycheproof_x448);
  tcase_set_timeout(x, 120);
  suite_add_tcase(s, x);
  TCase *ed = tcase_create("ed448");
  tcase_add_loop_test(ed, rfc8032_vectors, 0, sizeof rfc8032_ed448 / sizeof rfc8032_ed448[0]);
  tcase_add_test(ed, wycheproof_ed448);
  tcase_add_test(ed, ed448_round_trips);
  tcase_add_test(ed, ed448_argument_errors);
  tcase_add_test(ed, ed448_strict_decoding);
  tcase_set_timeout(ed, 120);
  suite_add_tcase(s, ed);
  TCase *in = tcase_create("internals");
  tcase_add_test(in, field_edges);
  tcase_add_test(in, scalar_edges);
  tcase_add_test(in, group_scalar_mults_agree);
  tcase_add_test(in, double_scalarmult_agrees);
  suite_add_tcase(s, in);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
