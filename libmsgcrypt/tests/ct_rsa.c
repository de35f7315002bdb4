// ct_rsa.c: the constant-time check of libmsgcrypt's RSA encryption (the
// ctgrind technique, as ct_p256.c). It marks the encoded message, all but
// its first byte (0x00 in both PKCS #1 encodings, which rsa_pub.c may look
// at), undefined for Valgrind's memcheck and runs mc_rsa_public_f4: with the
// Montgomery context built in the call and then from the per-thread cache,
// for 2048-, 3072- and 4096-bit moduli; and then the whole encryptions,
// mc_rsa_encrypt_pkcs1 and mc_rsa_encrypt_oaep, with the plaintext (the
// content-encryption key of a CMS message) undefined. Memcheck reports
// every branch or memory index that depends on a secret: the conversion to
// words, BoringSSL's Montgomery products (its bn_mul_mont kernels; memcheck's
// virtual CPU announces no ADX, so they are the mulq ones) and their masked
// final subtraction must show none. All of it runs once per kind of
// product rsa_pub.c has: BoringSSL's, and the radix-2^52 sequence with the
// plain C product (rsa_r52.c), whose conversions, exponentiation and
// masked final subtraction are the ones the AVX-512 IFMA kernel runs
// through. Valgrind 3.19 executes no AVX-512, so the IFMA product itself
// cannot run here: it is rsa_r52.c's arithmetic lane for lane (test_rsa
// checks them equal bit for bit), with loops on the limb count only and no
// branch or index from a lane's value; when a Valgrind that announces IFMA
// runs this, it is checked as well. Only results are marked defined again,
// and they must match BoringSSL's on defined inputs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include <openssl/bn.h>
#include <openssl/rsa.h>

#include "msgcrypt.h"
#include "rsa_pub.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures = 0;

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "ct_rsa: %s\n", what);
    failures++;
  }
}

// fill writes a deterministic pattern; modulus odd with its top bit set.
static void fill(uint8_t *p, size_t n, uint8_t seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(seed + 31 * i + (i >> 5) * 7 + (i * i >> 3));
}

static void check_f4(unsigned bits, uint8_t seed) {
  size_t len = bits / 8;
  uint8_t n[1024], em[1024], want[1024], got[1024];
  fill(n, len, seed);
  n[0] |= 0x80;
  n[len - 1] |= 1;
  fill(em, len, (uint8_t)(seed ^ 0x5a));
  em[0] = 0;
  static const uint8_t f4[3] = {1, 0, 1};
  RSA *rsa = RSA_new();
  BIGNUM *bn = BN_bin2bn(n, len, NULL), *be = BN_bin2bn(f4, 3, NULL);
  size_t w = 0;
  expect(rsa != NULL && bn != NULL && be != NULL && RSA_set0_key(rsa, bn, be, NULL) &&
             RSA_encrypt(rsa, &w, want, len, em, len, RSA_NO_PADDING) && w == len,
         "BoringSSL's reference");
  RSA_free(rsa);
  for (int pass = 0; pass < 2; pass++) { // built in the call, then cached
    if (pass == 0)
      mc_rsa_pub_cache_clear();
    SECRET(em + 1, len - 1);
    int rc = mc_rsa_public_f4(got, n, len, em);
    PUBLIC(em, len);
    PUBLIC(got, len);
    expect(rc == 0 && memcmp(got, want, len) == 0, "mc_rsa_public_f4 differs from BoringSSL");
  }
}

static void check_encrypt(void) {
  uint8_t n[384], out[384], cek[32];
  static const uint8_t f4[3] = {1, 0, 1};
  fill(n, sizeof n, 0x33);
  n[0] |= 0x80;
  n[sizeof n - 1] |= 1;
  fill(cek, sizeof cek, 0x77);
  size_t len = 0;
  SECRET(cek, sizeof cek);
  int rc = mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, sizeof n, f4, 3, cek, sizeof cek);
  PUBLIC(out, sizeof out);
  expect(rc == 0 && len == sizeof n, "mc_rsa_encrypt_pkcs1");
  rc = mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &len, n, sizeof n, f4, 3, NULL, 0, cek,
                           sizeof cek);
  PUBLIC(out, sizeof out);
  expect(rc == 0 && len == sizeof n, "mc_rsa_encrypt_oaep");
}

int main(void) {
  static const int impls[] = {MC_RSA_PUB_IMPL_BORINGSSL, MC_RSA_PUB_IMPL_R52, MC_RSA_PUB_IMPL_IFMA};
  for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
    if (mc_rsa_pub_force_impl(impls[i]) != 0) {
      printf("ct_rsa: products %d not on this (virtual) CPU, skipped\n", impls[i]);
      continue;
    }
    check_f4(2048, 0x11);
    check_f4(3072, 0x22);
    check_f4(4096, 0x44);
    check_f4(8192, 0x55);
    check_encrypt();
    mc_rsa_pub_cache_clear();
    printf("ct_rsa: %s checked\n", mc_rsa_pub_impl_name());
  }
  if (failures == 0)
    printf("ct_rsa: ok\n");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
