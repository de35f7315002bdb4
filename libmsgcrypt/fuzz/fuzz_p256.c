// fuzz_p256.c: differential fuzzing of libmsgcrypt's P-256 against
// BoringSSL. Input: a 32-byte scalar (big-endian), then an encoded point
// (any bytes: 0x04 || x || y, 0x02/0x03 || x, or anything else); shorter
// inputs are a point with a fixed scalar. Properties checked:
//   - mc_p256_point_decode accepts a 33- or 65-byte encoding exactly when
//     BoringSSL's EC_POINT_oct2point does, with the same coordinates, and
//     refuses every other length and the point at infinity;
//   - for an accepted point and a scalar from 1 to n - 1, every supported
//     implementation's variable-base and fixed-base kernels equal
//     BoringSSL's EC_POINT_mul, also when the same point comes three times
//     in a row (the x86-64 kernel's per-thread table), and so does
//     mc_ecdh_ephemeral_derand;
//   - a scalar of 0 or at least n is refused with zeroed outputs.
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/nid.h>
#include <stdint.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "impl_internal.h"
#include "msgcrypt.h"
#include "p256_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static EC_GROUP *group;

// bssl_mul writes k·P (P = G when `p` is NULL) uncompressed to out.
static void bssl_mul(uint8_t out[65], const uint8_t k[32], const EC_POINT *p) {
  BIGNUM *bk = BN_bin2bn(k, 32, NULL);
  EC_POINT *r = EC_POINT_new(group);
  FUZZ_CHECK(bk != NULL && r != NULL);
  if (p == NULL)
    FUZZ_CHECK(EC_POINT_mul(group, r, bk, NULL, NULL, NULL));
  else
    FUZZ_CHECK(EC_POINT_mul(group, r, NULL, p, bk, NULL));
  FUZZ_CHECK(EC_POINT_point2oct(group, r, POINT_CONVERSION_UNCOMPRESSED, out, 65, NULL) == 65);
  EC_POINT_free(r);
  BN_free(bk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t fixed_k[32] = {0x3c, 0x91, 0x5e, 0x07, 0xa2, 0x6d, 0xf8, 0x14,
                                      0x8b, 0x27, 0xc6, 0x50, 0x1f, 0xe9, 0x73, 0x0a};
  static const uint8_t zero[65];
  if (group == NULL)
    group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  FUZZ_CHECK(group != NULL);
  const uint8_t *k = fixed_k, *pt = data;
  size_t pt_len = size;
  if (size >= 33) {
    k = data;
    pt = data + 32;
    pt_len = size - 32;
  }

  uint8_t xy[64];
  int rc = mc_p256_point_decode(xy, pt, pt_len);
  FUZZ_CHECK(rc == 0 || rc == MC_ERR_BAD_KEY);
  EC_POINT *p = EC_POINT_new(group);
  FUZZ_CHECK(p != NULL);
  int bssl_ok = (pt_len == 33 || pt_len == 65) && pt[0] != 0 &&
                EC_POINT_oct2point(group, p, pt, pt_len, NULL);
  FUZZ_CHECK((rc == 0) == (bssl_ok != 0));
  if (rc != 0) {
    EC_POINT_free(p);
    return 0;
  }
  uint8_t enc[65];
  FUZZ_CHECK(EC_POINT_point2oct(group, p, POINT_CONVERSION_UNCOMPRESSED, enc, 65, NULL) == 65);
  FUZZ_CHECK(memcmp(enc + 1, xy, 64) == 0);

  uint8_t pub[65], shared[32];
  int in_range = mc_p256_scalar_check(k);
  rc = mc_ecdh_ephemeral_derand(MC_EC_P256, pub, sizeof pub, shared, sizeof shared, k, 32, pt,
                                pt_len);
  if (!in_range) {
    FUZZ_CHECK(rc == MC_ERR_BAD_KEY);
    FUZZ_CHECK(mc_p256_ecdh(pub, shared, k, pt, pt_len) == MC_ERR_BAD_KEY);
    FUZZ_CHECK(memcmp(pub, zero, 65) == 0 && memcmp(shared, zero, 32) == 0);
    EC_POINT_free(p);
    return 0;
  }
  uint8_t want_shared[65], want_pub[65];
  bssl_mul(want_shared, k, p);
  bssl_mul(want_pub, k, NULL);
  FUZZ_CHECK(rc == 0);
  FUZZ_CHECK(memcmp(pub, want_pub, 65) == 0 && memcmp(shared, want_shared + 1, 32) == 0);
  for (size_t i = 0; i < mc_impl_count(); i++) {
    int sup = 0;
    const char *name = mc_impl_get(i, &sup);
    if (!sup)
      continue;
    FUZZ_CHECK(mc_impl_force(name) == 0);
    const struct mc_impl *im = mc_impl_current();
    uint8_t got[64];
    // Three times: the x86-64 kernel builds a table for a repeated peer.
    for (int use = 0; use < 3; use++) {
      im->p256_mul(got, k, xy);
      FUZZ_CHECK(memcmp(got, want_shared + 1, 32) == 0);
    }
    im->p256_base(got, k);
    FUZZ_CHECK(memcmp(got, want_pub + 1, 64) == 0);
  }
  FUZZ_CHECK(mc_impl_force(NULL) == 0);
  EC_POINT_free(p);
  return 0;
}
