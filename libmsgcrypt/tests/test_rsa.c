// test_rsa.c: rsa_pub.c, libmsgcrypt's RSA public operation for e = 65537,
// and the RSA encryption of pkenc.c that runs on it. Differentially against
// BoringSSL's RSA_encrypt without padding (a fresh RSA object each time) on
// random odd moduli of 1024 to 16384 bits, whole and odd byte lengths, with
// random messages and the edges 0, 1, n - 2, n - 1 and a first byte equal
// to n's, once per kind of product (BoringSSL's, the AVX-512 IFMA kernel
// where the CPU has it, skipped with a note where not, and the plain C
// radix-2^52 one; the sizes reach every unrolled copy of the kernel and its
// generic loop); messages not below n are refused. The IFMA product is
// also compared with its C specification directly, on factors anywhere
// below 2n (the range the exponentiation feeds it). The per-thread cache is
// checked for hits, for replacement beyond its slots, after clearing, and from
// several threads at once (under ASan its pthread destructor must leave no
// leak). Encryption with generated keys is decrypted by BoringSSL: the
// PKCS #1 v1.5 block is checked byte by byte (random non-zero padding), OAEP
// and the fallback for e = 3 round-trip.
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/digest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "msgcrypt.h"
#include "rsa_pub.h"
#include "rsa_r52_internal.h"

enum { MAX_LEN = MC_RSA_MAX_MODULUS_LEN };

// random_modulus fills `n` (`bits` bits, big-endian, ceil(bits / 8) bytes)
// with a random odd number whose top bit is set.
static size_t random_modulus(uint8_t *n, unsigned bits) {
  size_t len = (bits + 7) / 8;
  ck_assert(RAND_bytes(n, len));
  unsigned top = bits - (unsigned)(len - 1) * 8; // bits in the first byte
  n[0] &= (uint8_t)((1u << top) - 1);
  n[0] |= (uint8_t)(1u << (top - 1));
  n[len - 1] |= 1;
  return len;
}

// reference computes em^65537 mod n with BoringSSL; 1 on success.
static int reference(uint8_t *out, const uint8_t *n, size_t n_len, const uint8_t *em) {
  static const uint8_t f4[3] = {1, 0, 1};
  RSA *rsa = RSA_new();
  BIGNUM *bn = BN_bin2bn(n, n_len, NULL), *be = BN_bin2bn(f4, 3, NULL);
  ck_assert(rsa != NULL && bn != NULL && be != NULL && RSA_set0_key(rsa, bn, be, NULL));
  size_t written = 0;
  int ok = RSA_encrypt(rsa, &written, out, n_len, em, n_len, RSA_NO_PADDING) && written == n_len;
  RSA_free(rsa);
  return ok;
}

// sub_small sets em = n - k for a small k (n's last byte is odd, k <= 255
// keeps the borrow within the number).
static void sub_small(uint8_t *em, const uint8_t *n, size_t len, unsigned k) {
  unsigned borrow = k;
  for (size_t i = len; i-- > 0;) {
    int v = (int)n[i] - (int)borrow;
    borrow = v < 0;
    em[i] = (uint8_t)(v < 0 ? v + 256 : v);
  }
}

static void check_one(const uint8_t *n, size_t len, const uint8_t *em) {
  uint8_t want[MAX_LEN], got[MAX_LEN];
  ck_assert(reference(want, n, len, em));
  memset(got, 0xee, sizeof got);
  ck_assert_int_eq(mc_rsa_public_f4(got, n, len, em), 0);
  ck_assert_mem_eq(got, want, len);
}

static const unsigned sizes[] = {1024, 1025, 2047, 2048, 2056, 3071,
                                 3072, 3080, 4096, 6144, 8192, 16384};
enum { NUM_SIZES = sizeof sizes / sizeof sizes[0] };
static const int impls[] = {MC_RSA_PUB_IMPL_BORINGSSL, MC_RSA_PUB_IMPL_IFMA, MC_RSA_PUB_IMPL_R52};
enum { NUM_IMPLS = sizeof impls / sizeof impls[0] };

// use_impl forces the products `impl`; 0 (and a note) when the CPU lacks
// them, so that the caller skips.
static int use_impl(int impl) {
  if (!mc_rsa_pub_impl_supported(impl)) {
    ck_assert_int_eq(mc_rsa_pub_force_impl(impl), MC_ERR_UNSUPPORTED);
    fprintf(stderr, "# skip: no AVX-512 IFMA on this CPU or build\n");
    return 0;
  }
  ck_assert_int_eq(mc_rsa_pub_force_impl(impl), 0);
  return 1;
}

START_TEST(differential_boringssl) {
  unsigned bits = sizes[_i % NUM_SIZES];
  if (!use_impl(impls[_i / NUM_SIZES]))
    return;
  int rounds = bits >= 8192 ? 4 : 12;
  uint8_t n[MAX_LEN], em[MAX_LEN];
  for (int r = 0; r < rounds; r++) {
    size_t len = random_modulus(n, bits);
    // Edges: 0, 1, n - 1, n - 2.
    memset(em, 0, len);
    check_one(n, len, em);
    em[len - 1] = 1;
    check_one(n, len, em);
    sub_small(em, n, len, 1);
    check_one(n, len, em);
    sub_small(em, n, len, 2);
    check_one(n, len, em);
    for (int m = 0; m < 8; m++) {
      ck_assert(RAND_bytes(em, len));
      if (m % 2 == 0) {
        em[0] = 0; // as a padded message
      } else {
        // First byte equal to n's: the full comparison decides.
        em[0] = n[0];
        if (memcmp(em, n, len) >= 0)
          em[1] = 0, em[0] = n[0];
        if (memcmp(em, n, len) >= 0)
          memset(em + 1, 0, len - 1);
        if (memcmp(em, n, len) >= 0)
          em[0] = 0;
      }
      ck_assert(memcmp(em, n, len) < 0);
      check_one(n, len, em);
    }
    // Messages not below n are refused, and `out` is left alone.
    uint8_t out[MAX_LEN];
    memset(out, 0x5c, len);
    ck_assert_int_eq(mc_rsa_public_f4(out, n, len, n), MC_ERR_INVALID_ARGUMENT);
    memcpy(em, n, len);
    em[len - 1] = (uint8_t)(n[len - 1] + 1); // n + 1, unless the byte wraps
    if (em[len - 1] != 0)
      ck_assert_int_eq(mc_rsa_public_f4(out, n, len, em), MC_ERR_INVALID_ARGUMENT);
    memset(em, 0xff, len);
    ck_assert_int_eq(mc_rsa_public_f4(out, n, len, em), MC_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < len; i++)
      ck_assert_uint_eq(out[i], 0x5c);
  }
}
END_TEST

// bn_limbs writes the BIGNUM `b` as `num` 52-bit limbs, bit by bit.
static void bn_limbs(uint64_t *x, size_t num, const BIGNUM *b) {
  for (size_t j = 0; j < num; j++) {
    x[j] = 0;
    for (unsigned k = 0; k < 52; k++)
      x[j] |= (uint64_t)(BN_is_bit_set(b, (int)(52 * j + k)) != 0) << k;
  }
}

// amm_want computes a·b·R^-1 mod n with BoringSSL, as limbs.
static void amm_want(uint64_t *out, const BIGNUM *a, const BIGNUM *b, const BIGNUM *n, size_t num,
                     BN_CTX *ctx) {
  BIGNUM *r = BN_new(), *rinv = BN_new(), *t = BN_new();
  ck_assert(r != NULL && rinv != NULL && t != NULL && BN_set_bit(r, (int)(52 * num)) &&
            BN_mod_inverse(rinv, r, n, ctx) != NULL && BN_mod_mul(t, a, b, n, ctx) &&
            BN_mod_mul(t, t, rinv, n, ctx));
  bn_limbs(out, num, t);
  BN_free(r);
  BN_free(rinv);
  BN_free(t);
}

// The IFMA product against its C specification and against BoringSSL
// (equal mod n; both below 2n), for every limb count class, factors drawn
// below 2n, with the edges 0, 1 and 2n - 1.
START_TEST(ifma_product_matches_c) {
  static const unsigned classes[] = {1024, 2048, 2056, 3072, 3080, 4096, 6144, 8192, 16384};
  if (!use_impl(MC_RSA_PUB_IMPL_IFMA))
    return;
#if defined(__x86_64__) // meson.build builds x86/rsa_ifma.c there
  static mc_r52_mont m;
  uint8_t n[MAX_LEN];
  BN_CTX *ctx = BN_CTX_new();
  BIGNUM *bn = BN_new(), *n2 = BN_new(), *a = BN_new(), *b = BN_new();
  ck_assert(ctx != NULL && bn != NULL && n2 != NULL && a != NULL && b != NULL);
  for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
    size_t len = random_modulus(n, classes[c]);
    ck_assert_int_eq(mc_r52_mont_init(&m, n, len), 0);
    ck_assert(BN_bin2bn(n, len, bn) != NULL && BN_lshift1(n2, bn));
    size_t num = m.num;
    static uint64_t x[MC_R52_MAX_LIMBS], y[MC_R52_MAX_LIMBS], got[MC_R52_MAX_LIMBS],
        ref[MC_R52_MAX_LIMBS], want[MC_R52_MAX_LIMBS];
    for (int r = 0; r < 12; r++) {
      if (r == 0) {
        BN_zero(a);
        ck_assert(BN_one(b));
      } else if (r == 1) {
        ck_assert(BN_sub(a, n2, BN_value_one()) && BN_sub(b, n2, BN_value_one()));
      } else {
        ck_assert(BN_rand_range(a, n2) && BN_rand_range(b, n2));
      }
      bn_limbs(x, num, a);
      bn_limbs(y, num, b);
      mc_r52_amm_ifma(got, x, y, m.n, m.k0, num);
      mc_r52_amm_scalar(ref, x, y, m.n, m.k0, num);
      ck_assert_mem_eq(got, ref, num * sizeof *got);
      // got mod n equals a·b·R^-1 mod n, and got < 2n.
      BIGNUM *g = BN_new();
      ck_assert(g != NULL);
      for (size_t j = num; j-- > 0;)
        ck_assert(BN_lshift(g, g, 52) && BN_add_word(g, got[j]));
      ck_assert(BN_cmp(g, n2) < 0);
      ck_assert(BN_nnmod(g, g, bn, ctx));
      bn_limbs(got, num, g);
      amm_want(want, a, b, bn, num, ctx);
      ck_assert_mem_eq(got, want, num * sizeof *got);
      BN_free(g);
      // In place, as the squarings run.
      bn_limbs(x, num, a);
      bn_limbs(y, num, a);
      mc_r52_amm_ifma(x, x, x, m.n, m.k0, num);
      mc_r52_amm_scalar(y, y, y, m.n, m.k0, num);
      ck_assert_mem_eq(x, y, num * sizeof *x);
    }
  }
  BN_free(bn);
  BN_free(n2);
  BN_free(a);
  BN_free(b);
  BN_CTX_free(ctx);
#endif
}
END_TEST

START_TEST(in_place) {
  uint8_t n[MAX_LEN], em[MAX_LEN], want[MAX_LEN];
  size_t len = random_modulus(n, 3072);
  ck_assert(RAND_bytes(em, len));
  em[0] = 0;
  ck_assert(reference(want, n, len, em));
  ck_assert_int_eq(mc_rsa_public_f4(em, n, len, em), 0);
  ck_assert_mem_eq(em, want, len);
}
END_TEST

START_TEST(cache_hits_and_replacement) {
  enum { KEYS = MC_RSA_PUB_CACHE_SLOTS + 2 };
  static uint8_t n[KEYS][MAX_LEN];
  uint8_t em[512];
  size_t len = 0;
  for (int k = 0; k < KEYS; k++)
    len = random_modulus(n[k], 3072);
  ck_assert(RAND_bytes(em, len));
  em[0] = 0;
  mc_rsa_pub_cache_clear();
  unsigned long h0 = mc_rsa_pub_cache_hits();
  check_one(n[0], len, em);
  ck_assert_uint_eq(mc_rsa_pub_cache_hits(), h0); // first sight: built
  check_one(n[0], len, em);
  ck_assert_uint_eq(mc_rsa_pub_cache_hits(), h0 + 1);
  // More moduli than slots: every answer stays right, and the oldest is
  // replaced (n[0] is built again).
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < KEYS; k++)
      check_one(n[k], len, em);
  unsigned long h1 = mc_rsa_pub_cache_hits();
  check_one(n[KEYS - 1], len, em); // the newest is still there
  ck_assert_uint_eq(mc_rsa_pub_cache_hits(), h1 + 1);
  // A modulus that shares a prefix with a cached one, and one of another
  // length, are not mistaken for it.
  uint8_t other[MAX_LEN];
  memcpy(other, n[KEYS - 1], len);
  other[len - 1] ^= 2;
  check_one(other, len, em);
  size_t len2 = random_modulus(other, 2048);
  check_one(other, len2, em);
  mc_rsa_pub_cache_clear();
  unsigned long h2 = mc_rsa_pub_cache_hits();
  check_one(n[KEYS - 1], len, em);
  ck_assert_uint_eq(mc_rsa_pub_cache_hits(), h2);
}
END_TEST

struct thread_job {
  const uint8_t (*n)[MAX_LEN];
  const uint8_t (*want)[MAX_LEN];
  const uint8_t *em;
  size_t len;
  int bad;
};

static void *thread_main(void *arg) {
  struct thread_job *j = arg;
  uint8_t out[MAX_LEN];
  for (int i = 0; i < 30; i++) {
    int k = i % 3;
    if (mc_rsa_public_f4(out, j->n[k], j->len, j->em) != 0 || memcmp(out, j->want[k], j->len) != 0)
      j->bad++;
  }
  return NULL;
}

START_TEST(threads) {
  static uint8_t n[3][MAX_LEN], want[3][MAX_LEN];
  uint8_t em[MAX_LEN];
  size_t len = 0;
  for (int k = 0; k < 3; k++)
    len = random_modulus(n[k], 2048);
  ck_assert(RAND_bytes(em, len));
  em[0] = 0;
  for (int k = 0; k < 3; k++)
    ck_assert(reference(want[k], n[k], len, em));
  pthread_t t[4];
  struct thread_job jobs[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (struct thread_job){(const uint8_t(*)[MAX_LEN])n, (const uint8_t(*)[MAX_LEN])want, em,
                                  len, 0};
    ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    ck_assert_int_eq(jobs[i].bad, 0);
  }
}
END_TEST

// The choice of products: names, forcing, refusal of what cannot run.
START_TEST(impl_choice) {
  ck_assert(mc_rsa_pub_impl_supported(MC_RSA_PUB_IMPL_BORINGSSL));
  ck_assert(mc_rsa_pub_impl_supported(MC_RSA_PUB_IMPL_R52));
  ck_assert(!mc_rsa_pub_impl_supported(7));
  ck_assert_int_eq(mc_rsa_pub_force_impl(7), MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(mc_rsa_pub_force_impl(MC_RSA_PUB_IMPL_R52), 0);
  ck_assert_str_eq(mc_rsa_pub_impl_name(), "r52");
  ck_assert_int_eq(mc_rsa_pub_force_impl(MC_RSA_PUB_IMPL_BORINGSSL), 0);
  ck_assert_str_eq(mc_rsa_pub_impl_name(), "boringssl");
  ck_assert_int_eq(mc_rsa_pub_force_impl(MC_RSA_PUB_IMPL_AUTO), 0);
  ck_assert_str_eq(mc_rsa_pub_impl_name(),
                   mc_rsa_pub_impl_supported(MC_RSA_PUB_IMPL_IFMA) ? "ifma" : "boringssl");
  // One modulus through every products in turn, the cache shared.
  uint8_t n[MAX_LEN], em[MAX_LEN];
  size_t len = random_modulus(n, 3072);
  ck_assert(RAND_bytes(em, len));
  em[0] = 0;
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (mc_rsa_pub_impl_supported(impls[i])) {
      ck_assert_int_eq(mc_rsa_pub_force_impl(impls[i]), 0);
      check_one(n, len, em);
    }
}
END_TEST

START_TEST(f4_errors) {
  uint8_t n[MAX_LEN], em[MAX_LEN] = {0}, out[MAX_LEN];
  size_t len = random_modulus(n, 2048);
  ck_assert_int_eq(mc_rsa_public_f4(NULL, n, len, em), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_rsa_public_f4(out, NULL, len, em), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_rsa_public_f4(out, n, len, NULL), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_rsa_public_f4(out, n, 127, em), MC_ERR_INVALID_ARGUMENT); // < 1024 bits
  ck_assert_int_eq(mc_rsa_public_f4(out, n, MAX_LEN + 1, em), MC_ERR_INVALID_ARGUMENT);
  uint8_t z[MAX_LEN];
  memcpy(z, n, len);
  z[0] = 0; // a leading zero byte: not a validated modulus
  ck_assert_int_eq(mc_rsa_public_f4(out, z, len, em), MC_ERR_INVALID_ARGUMENT);
  memcpy(z, n, len);
  z[len - 1] &= 0xfe; // even
  ck_assert_int_eq(mc_rsa_public_f4(out, z, len, em), MC_ERR_BAD_KEY);
  static const uint8_t f4[3] = {1, 0, 1}, f4z[4] = {0, 1, 0, 1}, three[1] = {3},
                       big[5] = {1, 0, 0, 0, 1};
  ck_assert(mc_rsa_pub_is_f4(f4, 3));
  ck_assert(!mc_rsa_pub_is_f4(f4z, 4)); // callers strip zeros first
  ck_assert(!mc_rsa_pub_is_f4(three, 1));
  ck_assert(!mc_rsa_pub_is_f4(big, 5));
  ck_assert(!mc_rsa_pub_is_f4(NULL, 3));
}
END_TEST

// key makes an RSA key with public exponent `e` and returns its n and e.
static RSA *key(unsigned bits, unsigned e, uint8_t *n, size_t *n_len, uint8_t *eb, size_t *e_len) {
  RSA *rsa = RSA_new();
  BIGNUM *be = BN_new();
  ck_assert(rsa != NULL && be != NULL && BN_set_word(be, e));
  ck_assert(RSA_generate_key_ex(rsa, (int)bits, be, NULL));
  BN_free(be);
  *n_len = BN_bn2bin(RSA_get0_n(rsa), n);
  *e_len = BN_bn2bin(RSA_get0_e(rsa), eb);
  return rsa;
}

START_TEST(pkcs1_block_and_round_trip) {
  unsigned e = _i == 0 ? 65537 : 3; // 3 takes BoringSSL's path
  uint8_t n[512], eb[8], out[512], block[512], msg[512];
  size_t n_len, e_len, len;
  RSA *rsa = key(2048, e, n, &n_len, eb, &e_len);
  ck_assert_int_eq(mc_rsa_pub_is_f4(eb, e_len), e == 65537);
  for (size_t m_len = 0; m_len <= n_len - 11; m_len += m_len < 40 ? 1 : 23) {
    ck_assert(RAND_bytes(msg, m_len + 1));
    ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, n_len, eb, e_len, msg, m_len),
                     0);
    ck_assert_uint_eq(len, n_len);
    size_t got = 0;
    ck_assert(RSA_decrypt(rsa, &got, block, sizeof block, out, len, RSA_NO_PADDING));
    ck_assert_uint_eq(got, n_len);
    // 0x00 0x02 PS 0x00 M with PS non-zero and n_len - 3 - m_len long.
    size_t ps = n_len - 3 - m_len;
    ck_assert_uint_eq(block[0], 0);
    ck_assert_uint_eq(block[1], 2);
    for (size_t i = 0; i < ps; i++)
      ck_assert_uint_ne(block[2 + i], 0);
    ck_assert_uint_eq(block[2 + ps], 0);
    ck_assert_mem_eq(block + 3 + ps, msg, m_len);
    ck_assert(RSA_decrypt(rsa, &got, block, sizeof block, out, len, RSA_PKCS1_PADDING));
    ck_assert_uint_eq(got, m_len);
  }
  // Two encryptions of one message differ (fresh padding).
  uint8_t out2[512];
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, n_len, eb, e_len, msg, 32), 0);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out2, sizeof out2, &len, n, n_len, eb, e_len, msg, 32), 0);
  ck_assert(memcmp(out, out2, len) != 0);
  // Too long a message, too small a buffer.
  ck_assert_int_eq(
      mc_rsa_encrypt_pkcs1(out, sizeof out, &len, n, n_len, eb, e_len, msg, n_len - 10),
      MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_rsa_encrypt_pkcs1(out, n_len - 1, &len, n, n_len, eb, e_len, msg, 32),
                   MC_ERR_BUFFER_TOO_SMALL);
  RSA_free(rsa);
}
END_TEST

START_TEST(oaep_round_trip) {
  unsigned e = _i == 0 ? 65537 : 3;
  uint8_t n[512], eb[8], out[512], back[512], msg[64];
  size_t n_len, e_len, len, got;
  RSA *rsa = key(3072, e, n, &n_len, eb, &e_len);
  EVP_PKEY *pkey = EVP_PKEY_new();
  ck_assert(pkey != NULL && EVP_PKEY_set1_RSA(pkey, rsa));
  for (int i = 0; i < 8; i++) {
    ck_assert(RAND_bytes(msg, sizeof msg));
    ck_assert_int_eq(mc_rsa_encrypt_oaep(MC_HASH_SHA256, out, sizeof out, &len, n, n_len, eb, e_len,
                                         NULL, 0, msg, 32),
                     0);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
    ck_assert(ctx != NULL && EVP_PKEY_decrypt_init(ctx) &&
              EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) &&
              EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) &&
              EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()));
    got = sizeof back;
    ck_assert(EVP_PKEY_decrypt(ctx, back, &got, out, len));
    ck_assert_uint_eq(got, 32);
    ck_assert_mem_eq(back, msg, 32);
    EVP_PKEY_CTX_free(ctx);
  }
  EVP_PKEY_free(pkey);
  RSA_free(rsa);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rsa");
  TCase *tc = tcase_create("rsa");
  tcase_set_timeout(tc, 240);
  tcase_add_loop_test(tc, differential_boringssl, 0, NUM_SIZES * NUM_IMPLS);
  tcase_add_test(tc, ifma_product_matches_c);
  tcase_add_test(tc, impl_choice);
  tcase_add_test(tc, in_place);
  tcase_add_test(tc, cache_hits_and_replacement);
  tcase_add_test(tc, threads);
  tcase_add_test(tc, f4_errors);
  tcase_add_loop_test(tc, pkcs1_block_and_round_trip, 0, 2);
  tcase_add_loop_test(tc, oaep_round_trip, 0, 2);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
