// bench_aead.c: throughput of libmsgcrypt's AES-OCB against BoringSSL's
// AES-GCM (its EVP_AEAD, AES-NI and CLMUL assembly) on the same inputs, 1 KiB
// and 1 MiB messages with AES-128 and AES-256, one JSON object per line
// (corvid_bench.h). OCB runs both of its implementations: "ocb-aesni" (its own
// AES-NI loops, what mc_aes_ocb_init picks on such CPUs) and
// "ocb-boringssl-ecb" (batches through BoringSSL's ECB mode). Contexts are
// prepared once, outside the timing; "ocb-oneshot" adds OCB's key setup to
// every message and "gcm-mc" is libmsgcrypt's one-shot mc_aes_gcm_seal, which
// sets its key up per call too. Links the internal library; never a test.
#include <openssl/aead.h>

#include "aead_internal.h"
#include "corvid_bench.h"
#include "msgcrypt.h"

enum { SMALL = 1024, LARGE = 1 << 20 };

struct job {
  size_t key_len, len, reps;
  uint8_t key[32], nonce[15];
  uint8_t *in, *out;
  mc_aes_ocb_ctx ocb, ocb_ecb;
  EVP_AEAD_CTX gcm;
};

static void run_ocb_seal(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (mc_aes_ocb_seal(&j->ocb, j->out, j->len + 16, &n, j->nonce, 15, j->in, j->len, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->out, n);
}

static void run_ocb_ecb_seal(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (mc_aes_ocb_seal(&j->ocb_ecb, j->out, j->len + 16, &n, j->nonce, 15, j->in, j->len, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->out, n);
}

static void run_ocb_ecb_open(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (mc_aes_ocb_open(&j->ocb_ecb, j->in, j->len, &n, j->nonce, 15, j->out, j->len + 16, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->in, n);
}

static void run_ocb_open(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (mc_aes_ocb_open(&j->ocb, j->in, j->len, &n, j->nonce, 15, j->out, j->len + 16, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->in, n);
}

static void run_ocb_oneshot(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    mc_aes_ocb_ctx ctx;
    if (mc_aes_ocb_init(&ctx, j->key, j->key_len, 16) ||
        mc_aes_ocb_seal(&ctx, j->out, j->len + 16, &n, j->nonce, 15, j->in, j->len, NULL, 0))
      abort();
    mc_aes_ocb_cleanup(&ctx);
  }
  corvid_bench_sink(j->out, n);
}

static void run_gcm_seal(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (!EVP_AEAD_CTX_seal(&j->gcm, j->out, &n, j->len + 16, j->nonce, 12, j->in, j->len, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->out, n);
}

static void run_gcm_open(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (!EVP_AEAD_CTX_open(&j->gcm, j->in, &n, j->len, j->nonce, 12, j->out, j->len + 16, NULL, 0))
      abort();
  }
  corvid_bench_sink(j->in, n);
}

static void run_gcm_mc(void *p) {
  struct job *j = p;
  size_t n;
  for (size_t r = 0; r < j->reps; r++) {
    if (mc_aes_gcm_seal(j->out, j->len + 16, &n, j->key, j->key_len, j->nonce, 12, j->in, j->len,
                        NULL, 0))
      abort();
  }
  corvid_bench_sink(j->out, n);
}

int main(void) {
  static const size_t key_lens[] = {16, 32}, lens[] = {SMALL, LARGE};
  struct job j;
  j.in = malloc(LARGE + 16);
  j.out = malloc(LARGE + 16);
  if (j.in == NULL || j.out == NULL)
    return 1;
  for (size_t i = 0; i < LARGE + 16; i++)
    j.in[i] = (uint8_t)(i * 131);
  for (size_t i = 0; i < sizeof j.key; i++)
    j.key[i] = (uint8_t)(i + 1);
  memset(j.nonce, 7, sizeof j.nonce);
  for (size_t k = 0; k < 2; k++) {
    j.key_len = key_lens[k];
    if (mc_aes_ocb_init(&j.ocb, j.key, j.key_len, 16) ||
        mc_aes_ocb_init_impl(&j.ocb_ecb, j.key, j.key_len, 16, MC_OCB_IMPL_BORINGSSL) ||
        !EVP_AEAD_CTX_init(&j.gcm,
                           j.key_len == 16 ? EVP_aead_aes_128_gcm() : EVP_aead_aes_256_gcm(), j.key,
                           j.key_len, 16, NULL))
      return 1;
    for (size_t l = 0; l < 2; l++) {
      j.len = lens[l];
      j.reps = j.len == SMALL ? 256 : 1;
      char name[64];
      struct corvid_bench_result r;
      const struct {
        const char *op, *impl;
        void (*fn)(void *);
      } runs[] = {
          {"seal", "gcm-boringssl", run_gcm_seal},
          {"seal", mc_ocb_aesni_available() ? "ocb-aesni" : "ocb", run_ocb_seal},
          {"seal", "ocb-boringssl-ecb", run_ocb_ecb_seal},
          {"seal", "ocb-oneshot", run_ocb_oneshot},
          {"seal", "gcm-mc", run_gcm_mc},
          {"open", "gcm-boringssl", run_gcm_open},
          {"open", mc_ocb_aesni_available() ? "ocb-aesni" : "ocb", run_ocb_open},
          {"open", "ocb-boringssl-ecb", run_ocb_ecb_open},
      };
      for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        // Open needs a valid ciphertext of the same algorithm in `out`.
        if (runs[i].fn == run_gcm_open)
          run_gcm_seal(&j);
        if (runs[i].fn == run_ocb_open || runs[i].fn == run_ocb_ecb_open)
          run_ocb_seal(&j);
        snprintf(name, sizeof name, "aes%zu-%s-%zu", j.key_len * 8, runs[i].op, j.len);
        if (corvid_bench_measure(&r, 200, runs[i].fn, &j))
          return 1;
        corvid_bench_emit(stdout, name, runs[i].impl, j.len * j.reps, j.reps, &r);
      }
    }
    mc_aes_ocb_cleanup(&j.ocb);
    mc_aes_ocb_cleanup(&j.ocb_ecb);
    EVP_AEAD_CTX_cleanup(&j.gcm);
  }
  free(j.in);
  free(j.out);
  return 0;
}
