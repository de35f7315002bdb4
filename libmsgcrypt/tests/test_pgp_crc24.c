// test_pgp_crc24.c: the armor CRC-24 (src/pgp_crc24.c, the tables of
// pgp_crc24_table.c and the x86-64 carry-less multiplication kernel) against
// the bit-by-bit definition of RFC 9580 §6.1, which this file keeps as the
// reference: every table entry, every length 0..300 at every alignment in
// one piece, random splits across streaming calls, long inputs, and every
// implementation of the table this CPU supports. Registered once more per
// implementation (MSGCRYPT_IMPL) like the other table suites.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "impl_internal.h"
#include "msgcrypt.h"
#include "pgp_crc24_internal.h"

// crc24_ref is RFC 9580 §6.1's CRC-24 one bit at a time: generator
// 0x1864CFB (x^24 included), most significant bit first.
static uint32_t crc24_ref(uint32_t crc, const uint8_t *in, size_t in_len) {
  for (size_t i = 0; i < in_len; i++) {
    crc ^= (uint32_t)in[i] << 16;
    for (int b = 0; b < 8; b++) {
      crc <<= 1;
      if (crc & 0x1000000u)
        crc ^= 0x1864cfbu;
    }
  }
  return crc & 0xffffffu;
}

// A fixed xorshift64* stream: every run sees the same inputs.
static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(rng_next() >> 56);
}

typedef uint32_t (*crc_fn)(uint32_t, const uint8_t *, size_t);

// The kernels to compare: the dispatcher, the byte-at-a-time and
// slice-by-8 C code, and the carry-less kernel where the CPU has it (the
// "avx2" entry's, reached through forcing it).
struct kernel {
  const char *name;
  crc_fn fn;
};
static size_t kernels(struct kernel *k) {
  size_t n = 0;
  k[n++] = (struct kernel){"update", mc_pgp_crc24_update};
  k[n++] = (struct kernel){"bytewise", mc_pgp_crc24_bytewise};
  k[n++] = (struct kernel){"scalar", mc_pgp_crc24_scalar};
  for (size_t i = 0; i < mc_impl_count(); i++) {
    int sup = 0;
    const char *name = mc_impl_get(i, &sup);
    if (sup && strcmp(name, "scalar") != 0 && mc_impl_force(name) == 0) {
      k[n++] = (struct kernel){name, mc_impl_current()->crc24};
      break; // every x86-64 entry shares one kernel
    }
  }
  // Back to what MSGCRYPT_IMPL (or the CPU) chose, for "update".
  const char *env = getenv("MSGCRYPT_IMPL");
  ck_assert_int_eq(mc_impl_force(env != NULL && env[0] != '\0' ? env : NULL), 0);
  return n;
}

START_TEST(check_value) {
  struct kernel k[4];
  size_t nk = kernels(k);
  for (size_t j = 0; j < nk; j++) {
    ck_assert_msg(k[j].fn(MC_PGP_CRC24_INIT, (const uint8_t *)"123456789", 9) == 0x21cf02, "%s",
                  k[j].name);
    ck_assert_uint_eq(k[j].fn(MC_PGP_CRC24_INIT, NULL, 0), MC_PGP_CRC24_INIT);
  }
  ck_assert_uint_eq(crc24_ref(MC_PGP_CRC24_INIT, (const uint8_t *)"123456789", 9), 0x21cf02);
}
END_TEST

// Every entry of the eight tables, rebuilt from the bit-by-bit reference:
// table k, entry b is byte b followed by k zero bytes from a zero register.
START_TEST(tables) {
  for (unsigned k = 0; k < 8; k++)
    for (unsigned b = 0; b < 256; b++) {
      uint8_t msg[8] = {(uint8_t)b};
      ck_assert_msg(mc_pgp_crc24_table[k][b] == crc24_ref(0, msg, k + 1) << 8, "table %u[%u]", k,
                    b);
    }
}
END_TEST

// Every length 0..300, at each of 16 alignments, from random registers.
START_TEST(lengths) {
  struct kernel k[4];
  size_t nk = kernels(k);
  uint8_t buf[300 + 16];
  for (size_t len = 0; len <= 300; len++)
    for (size_t align = 0; align < 16; align++) {
      fill(buf, sizeof buf);
      uint32_t init = align == 0 ? MC_PGP_CRC24_INIT : (uint32_t)rng_next() & 0xffffffu;
      uint32_t want = crc24_ref(init, buf + align, len);
      for (size_t j = 0; j < nk; j++)
        ck_assert_msg(k[j].fn(init, buf + align, len) == want, "%s len %zu align %zu", k[j].name,
                      len, align);
    }
}
END_TEST

// The same message fed in random pieces (empty ones included) gives the
// one-piece CRC, for every kernel.
START_TEST(random_splits) {
  struct kernel k[4];
  size_t nk = kernels(k);
  enum { MAX = 20000 };
  uint8_t *buf = malloc(MAX);
  ck_assert_ptr_nonnull(buf);
  for (int round = 0; round < 300; round++) {
    size_t len = (size_t)(rng_next() % (round < 200 ? 700 : MAX));
    fill(buf, len);
    uint32_t want = crc24_ref(MC_PGP_CRC24_INIT, buf, len);
    for (size_t j = 0; j < nk; j++) {
      uint32_t crc = MC_PGP_CRC24_INIT;
      size_t pos = 0;
      while (pos < len) {
        // Pieces of 0..16, 0..200 or 0..5000 bytes.
        static const size_t caps[] = {17, 201, 5001};
        size_t n = (size_t)(rng_next() % caps[rng_next() % 3]);
        if (n > len - pos)
          n = len - pos;
        crc = k[j].fn(crc, n > 0 ? buf + pos : NULL, n);
        pos += n;
      }
      ck_assert_msg(crc == want, "%s round %d len %zu", k[j].name, round, len);
    }
  }
  free(buf);
}
END_TEST

// Long inputs of patterns that stress the folding (all zeros, all ones) and
// random ones.
START_TEST(long_inputs) {
  struct kernel k[4];
  size_t nk = kernels(k);
  enum { LEN = 1 << 18 };
  uint8_t *buf = malloc(LEN);
  ck_assert_ptr_nonnull(buf);
  for (int pattern = 0; pattern < 3; pattern++) {
    if (pattern == 2)
      fill(buf, LEN);
    else
      memset(buf, pattern ? 0xff : 0, LEN);
    size_t lens[] = {LEN, LEN - 1, LEN - 15, LEN - 63, 4096 + 17};
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
      uint32_t want = crc24_ref(MC_PGP_CRC24_INIT, buf, lens[l]);
      for (size_t j = 0; j < nk; j++)
        ck_assert_msg(k[j].fn(MC_PGP_CRC24_INIT, buf, lens[l]) == want, "%s pattern %d len %zu",
                      k[j].name, pattern, lens[l]);
    }
  }
  free(buf);
}
END_TEST

static Suite *crc24_suite(void) {
  Suite *s = suite_create("pgp_crc24");
  TCase *tc = tcase_create("crc24");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, check_value);
  tcase_add_test(tc, tables);
  tcase_add_test(tc, lengths);
  tcase_add_test(tc, random_splits);
  tcase_add_test(tc, long_inputs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(crc24_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
