// ct_aead.c: the constant-time check of AES-OCB (the ctgrind technique). For
// each implementation (the VAES loops, the AES-NI loops and the loops over
// BoringSSL's ECB mode) that the CPU Valgrind emulates has, each key length
// and a range of message lengths, it marks the key and the plaintext undefined
// for Valgrind memcheck, so that memcheck reports any branch or memory index
// that depends on them in key setup, seal, and open of a genuine and of a
// forged ciphertext (whose failure path must be as branch-free as its
// success). Nonces, lengths and associated data are public. Run under
// `valgrind --error-exitcode=1`: it passes when memcheck reports nothing and
// the results are right. Outputs that are public (ciphertexts) or that the
// test compares are marked defined before use, and so is open's return code:
// the library never declassifies anything itself. Valgrind 3.19 neither
// decodes VAES (SIGILL) nor reports it in its emulated CPUID, so under it the
// VAES runs are skipped and the automatic choice is AES-NI: the VAES loops of
// x86/ocb_vaes.c are constant-time by construction instead (the shape of the
// AES-NI loops: branches only on the public block count, the L table indexed
// only by the public block number), and test_ocb.c checks them byte for byte
// against the other two.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "aead_internal.h"
#include "msgcrypt.h"

enum { MAX = 1100 };

static int check(int impl, size_t key_len, size_t len, size_t nonce_len) {
  uint8_t key[32], nonce[15], ad[40], pt[MAX], ct[MAX + 16], back[MAX];
  for (size_t i = 0; i < sizeof key; i++)
    key[i] = (uint8_t)(len + 3 * i);
  for (size_t i = 0; i < sizeof nonce; i++)
    nonce[i] = (uint8_t)(i * 11 + key_len);
  for (size_t i = 0; i < sizeof ad; i++)
    ad[i] = (uint8_t)(i ^ 0x5a);
  for (size_t i = 0; i < len; i++)
    pt[i] = (uint8_t)(i * 7 + 1);
  size_t ad_len = len % sizeof ad;

  mc_aes_ocb_ctx ctx;
  VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
  int rc = mc_aes_ocb_init_impl(&ctx, key, key_len, 16, impl);
  if (rc == MC_ERR_UNSUPPORTED)
    return 1; // not on this (emulated) CPU: the other runs cover it
  if (rc != 0)
    return 0;

  size_t n = 0, m = 0;
  VALGRIND_MAKE_MEM_UNDEFINED(pt, len);
  if (mc_aes_ocb_seal(&ctx, ct, sizeof ct, &n, nonce, nonce_len, pt, len, ad, ad_len) != 0 ||
      n != len + 16) {
    mc_aes_ocb_cleanup(&ctx);
    return 0;
  }
  VALGRIND_MAKE_MEM_DEFINED(ct, n);

  rc = mc_aes_ocb_open(&ctx, back, sizeof back, &m, nonce, nonce_len, ct, n, ad, ad_len);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  VALGRIND_MAKE_MEM_DEFINED(&m, sizeof m);
  VALGRIND_MAKE_MEM_DEFINED(back, len);
  VALGRIND_MAKE_MEM_DEFINED(pt, len);
  int ok = rc == 0 && m == len && memcmp(back, pt, len) == 0;

  // A forged tag: open fails without branching on the comparison, and
  // releases nothing.
  ct[n - 1] ^= 0x20;
  rc = mc_aes_ocb_open(&ctx, back, sizeof back, &m, nonce, nonce_len, ct, n, ad, ad_len);
  VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc);
  VALGRIND_MAKE_MEM_DEFINED(&m, sizeof m);
  VALGRIND_MAKE_MEM_DEFINED(back, len);
  ok = ok && rc == MC_ERR_AUTH_FAILED && m == 0;
  for (size_t i = 0; i < len; i++)
    ok = ok && back[i] == 0;
  mc_aes_ocb_cleanup(&ctx);
  return ok;
}

int main(void) {
  static const int impls[] = {MC_OCB_IMPL_VAES, MC_OCB_IMPL_AESNI, MC_OCB_IMPL_BORINGSSL};
  static const char *const names[] = {"VAES", "AES-NI", "BoringSSL"};
  static const size_t key_lens[] = {16, 24, 32};
  static const size_t lens[] = {0, 1, 15, 16, 17, 100, 128, 129, 1024, 1100};
  int ok = 1;
  for (size_t i = 0; i < 3; i++)
    for (size_t k = 0; k < 3; k++)
      for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        size_t nonce_len = l % 2 ? 12 : 15;
        if (!check(impls[i], key_lens[k], lens[l], nonce_len)) {
          fprintf(stderr, "ct_aead: %s, AES-%zu, %zu bytes: wrong result\n", names[i],
                  key_lens[k] * 8, lens[l]);
          ok = 0;
        }
      }
  printf("ct_aead: AES-NI %s, VAES %s\n", mc_ocb_aesni_available() ? "checked" : "not available",
         mc_ocb_vaes_available() ? "checked" : "not available");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
