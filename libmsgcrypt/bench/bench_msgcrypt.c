// bench_msgcrypt.c: operations per second of libmsgcrypt's own algorithms
// (ML-KEM, ML-DSA, X448, Ed448, AES-OCB, the RSA public operation) and of the
// in-process peers they are judged against: BoringSSL's X25519, Ed25519,
// AES-GCM and RSA_encrypt, and, when built
// with them, the pq-crystals reference implementations (peer_pqcrystals.c).
// Out-of-process peers (OpenSSL's `openssl speed`, @noble) have their own
// scripts; run-bench.sh runs everything and prints the tables.
//
// Every record describes ONE operation: `items` is 1, `bytes` the payload of
// that operation (0 for public-key operations) and `ns` its time, so that
// records of different programs share rows in tools/bench-report. A measured
// call loops over several operations (a call should last tens of
// microseconds); the time per call is divided by that count. The calls of a
// row's implementations alternate one by one and each keeps its fastest: a
// machine loaded by other work then disturbs all of them alike.
//
// usage: bench_msgcrypt [--rounds N] [--quick] [FILTER]
//   Each implementation of a row is timed 30 * N calls (N = 5 by default);
//   FILTER keeps the rows whose bench name contains it; --quick times 3 calls
//   (a smoke run). Links the internal library; never a test.
#include <openssl/aead.h>
#include <openssl/bn.h>
#include <openssl/curve25519.h>
#include <openssl/rsa.h>

#include "aead_internal.h"
#include "bench_internal.h"
#include "corvid_bench.h"
#include "mlkem_internal.h"
#include "msgcrypt.h"
#include "rsa_pub.h"

enum { AEAD_SMALL = 1024, AEAD_LARGE = 1 << 20, MSG_LEN = 32, DSA_MSGS = 4, MAX_IMPLS = 6 };

// state holds every buffer an operation may read or write, and `n`, how many
// operations one call runs. Each implementation of a row works on its own
// copy (run_row), so that their calls can alternate.
struct state {
  unsigned n;
  int level;          // 512/768/1024 or 44/65/87, the pq-crystals numbering
  mc_mlkem_level kem; // ours, for `level`
  mc_mldsa_level dsa;
  size_t len; // AEAD payload
  uint8_t seed[64], coins[32], ss[32];
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  size_t sig_len;
  uint8_t msg[MSG_LEN];
  // ML-DSA signing: DSA_MSGS messages, each as FIPS 204's M' (0, the length
  // of an empty context, the message), and the signing randomness.
  uint8_t dsa_msgs[DSA_MSGS][2 + MSG_LEN], rnd[MC_MLDSA_RND_LEN];
  uint8_t x448_sk[56], x448_pk[56], x448_out[56];
  uint8_t ed448_sk[57], ed448_pk[57], ed448_sig[114];
  uint8_t x25519_sk[32], x25519_pk[32], x25519_out[32];
  uint8_t ed25519_sk[64], ed25519_pk[32], ed25519_sig[64];
  uint8_t key[32], nonce[15];
  uint8_t *in, *out; // AEAD_LARGE + 16 bytes each
  const mc_aes_ocb_ctx *ocb, *ocb_ecb, *ocb_aesni;
  const EVP_AEAD_CTX *gcm;
  // RSA public operation: modulus, message (below it), result; the
  // products mc_rsa_public_f4 is forced to use; BoringSSL's key object.
  uint8_t rsa_n[512], rsa_em[512], rsa_out[512];
  size_t rsa_len;
  int rsa_impl;
  RSA *rsa;
};

// Every measured function aborts on a failure: a benchmark of an operation
// that failed would measure an error path.
static void must(int ok) {
  if (!ok) {
    fprintf(stderr, "bench_msgcrypt: an operation failed\n");
    abort();
  }
}

static void mc_kem_keygen(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mlkem_keygen_from_seed(s->kem, s->pk, sizeof s->pk, s->sk, sizeof s->sk, s->seed,
                                   MC_MLKEM_SEED_LEN) == 0);
  corvid_bench_sink(s->pk, sizeof s->pk);
}

static void mc_kem_encaps(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mlkem_encaps_derand(s->kem, s->ct, sizeof s->ct, s->ss, s->pk,
                                mc_mlkem_public_key_len(s->kem), s->coins) == 0);
  corvid_bench_sink(s->ct, sizeof s->ct);
}

// mc_kem_encaps_cold encapsulates as to a key this thread has not used
// lately: the per-thread cache of expanded keys is emptied before each call.
static void mc_kem_encaps_cold(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++) {
    mc_mlkem_encaps_cache_clear();
    must(mc_mlkem_encaps_derand(s->kem, s->ct, sizeof s->ct, s->ss, s->pk,
                                mc_mlkem_public_key_len(s->kem), s->coins) == 0);
  }
  corvid_bench_sink(s->ct, sizeof s->ct);
}

static void mc_kem_decaps(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mlkem_decaps(s->kem, s->ss, s->sk, mc_mlkem_private_key_len(s->kem), s->ct,
                         mc_mlkem_ciphertext_len(s->kem)) == 0);
  corvid_bench_sink(s->ss, sizeof s->ss);
}

static void mc_dsa_keygen(void *p) {
  struct state *s = p;
  uint8_t seed[MC_MLDSA_SEED_LEN];
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mldsa_keygen(s->dsa, s->pk, sizeof s->pk, s->sk, sizeof s->sk, seed) == 0);
  corvid_bench_sink(s->pk, sizeof s->pk);
}

// Signing goes through the entry points that take the randomness: both
// sides then sign the same messages with the same key and the same `rnd`,
// make the same signatures and run the same number of rejection rounds, so
// the rows compare equal work (the public mc_mldsa_sign adds only the
// drawing of `rnd`). Each call signs the DSA_MSGS messages once.
static void mc_dsa_sign(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mldsa_sign_internal(s->dsa, s->sig, sizeof s->sig, s->sk,
                                mc_mldsa_private_key_len(s->dsa), s->dsa_msgs[i % DSA_MSGS],
                                sizeof s->dsa_msgs[0], s->rnd) == 0);
  corvid_bench_sink(s->sig, sizeof s->sig);
}

static void mc_dsa_verify(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_mldsa_verify(s->dsa, s->pk, mc_mldsa_public_key_len(s->dsa), s->sig, s->sig_len, s->msg,
                         sizeof s->msg, NULL, 0) == 0);
}

#ifdef BENCH_HAVE_PQCRYSTALS
static void ref_kem_keygen(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mlkem_keygen(s->level, s->pk, s->sk, s->seed) == 0);
  corvid_bench_sink(s->pk, sizeof s->pk);
}

static void ref_kem_encaps(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mlkem_encaps(s->level, s->ct, s->ss, s->pk, s->coins) == 0);
  corvid_bench_sink(s->ct, sizeof s->ct);
}

static void ref_kem_decaps(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mlkem_decaps(s->level, s->ss, s->ct, s->sk) == 0);
  corvid_bench_sink(s->ss, sizeof s->ss);
}

static void ref_dsa_keygen(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mldsa_keygen(s->level, s->pk, s->sk) == 0);
  corvid_bench_sink(s->pk, sizeof s->pk);
}

static void ref_dsa_sign(void *p) {
  struct state *s = p;
  size_t len = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mldsa_sign(s->level, s->sig, &len, s->dsa_msgs[i % DSA_MSGS] + 2, MSG_LEN, s->rnd,
                             s->sk) == 0);
  corvid_bench_sink(s->sig, len);
}

static void ref_dsa_verify(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(peer_ref_mldsa_verify(s->level, s->sig, s->sig_len, s->msg, sizeof s->msg, s->pk) == 0);
}
#endif

static void mc_x448_derive(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_x448(s->x448_out, s->x448_sk, s->x448_pk) == 0);
  corvid_bench_sink(s->x448_out, sizeof s->x448_out);
}

static void mc_x448_keygen(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_x448_public_key(s->x448_out, s->x448_sk) == 0);
  corvid_bench_sink(s->x448_out, sizeof s->x448_out);
}

static void mc_ed448_sign_fn(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_ed448_sign(s->ed448_sig, s->ed448_sk, s->msg, sizeof s->msg, NULL, 0) == 0);
  corvid_bench_sink(s->ed448_sig, sizeof s->ed448_sig);
}

static void mc_ed448_verify_fn(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_ed448_verify(s->ed448_pk, s->ed448_sig, sizeof s->ed448_sig, s->msg, sizeof s->msg,
                         NULL, 0) == 0);
}

static void mc_x25519_derive(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_x25519(s->x25519_out, s->x25519_sk, s->x25519_pk) == 0);
  corvid_bench_sink(s->x25519_out, sizeof s->x25519_out);
}

static void bssl_x25519_derive(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(X25519(s->x25519_out, s->x25519_sk, s->x25519_pk) == 1);
  corvid_bench_sink(s->x25519_out, sizeof s->x25519_out);
}

static void bssl_ed25519_sign(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(ED25519_sign(s->ed25519_sig, s->msg, sizeof s->msg, s->ed25519_sk) == 1);
  corvid_bench_sink(s->ed25519_sig, sizeof s->ed25519_sig);
}

static void bssl_ed25519_verify(void *p) {
  struct state *s = p;
  for (unsigned i = 0; i < s->n; i++)
    must(ED25519_verify(s->msg, sizeof s->msg, s->ed25519_sig, s->ed25519_pk) == 1);
}

// RSA: em^65537 mod n. Ours with the products of s->rsa_impl (forced per
// call, as the columns alternate; the modulus's context is in the
// per-thread cache after the warm-up call, as when a server mails the same
// recipients), BoringSSL's RSA_encrypt without padding on one RSA object
// (its Montgomery context, too, is built on first use and kept).
static void mc_rsa_public(void *p) {
  struct state *s = p;
  must(mc_rsa_pub_force_impl(s->rsa_impl) == 0);
  for (unsigned i = 0; i < s->n; i++)
    must(mc_rsa_public_f4(s->rsa_out, s->rsa_n, s->rsa_len, s->rsa_em) == 0);
  corvid_bench_sink(s->rsa_out, s->rsa_len);
}

static void bssl_rsa_public(void *p) {
  struct state *s = p;
  size_t w = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(RSA_encrypt(s->rsa, &w, s->rsa_out, s->rsa_len, s->rsa_em, s->rsa_len, RSA_NO_PADDING));
  corvid_bench_sink(s->rsa_out, w);
}

static void prep_rsa_ifma(struct state *s) {
  s->rsa_impl = MC_RSA_PUB_IMPL_IFMA;
}

static void prep_rsa_boringssl(struct state *s) {
  s->rsa_impl = MC_RSA_PUB_IMPL_BORINGSSL;
}

// AEAD: 15-byte nonces for OCB (RFC 7253's longest, what OpenPGP uses), 12
// for GCM, 16-byte tags, no associated data. Contexts are set up once,
// outside the timing, except in "mc-gcm": libmsgcrypt's one-shot
// mc_aes_gcm_seal sets its key up in every call.
static void ocb_seal_with(const struct state *s, const mc_aes_ocb_ctx *ctx) {
  size_t n = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_aes_ocb_seal(ctx, s->out, s->len + 16, &n, s->nonce, 15, s->in, s->len, NULL, 0) == 0);
  corvid_bench_sink(s->out, n);
}

static void ocb_open_with(const struct state *s, const mc_aes_ocb_ctx *ctx) {
  size_t n = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_aes_ocb_open(ctx, s->in, s->len, &n, s->nonce, 15, s->out, s->len + 16, NULL, 0) == 0);
  corvid_bench_sink(s->in, n);
}

static void mc_ocb_seal(void *p) {
  struct state *s = p;
  ocb_seal_with(s, s->ocb);
}

static void mc_ocb_open(void *p) {
  struct state *s = p;
  ocb_open_with(s, s->ocb);
}

static void mc_ocb_aesni_seal(void *p) {
  struct state *s = p;
  ocb_seal_with(s, s->ocb_aesni);
}

static void mc_ocb_aesni_open(void *p) {
  struct state *s = p;
  ocb_open_with(s, s->ocb_aesni);
}

static void mc_ocb_ecb_seal(void *p) {
  struct state *s = p;
  ocb_seal_with(s, s->ocb_ecb);
}

static void mc_ocb_ecb_open(void *p) {
  struct state *s = p;
  ocb_open_with(s, s->ocb_ecb);
}

static void bssl_gcm_seal(void *p) {
  struct state *s = p;
  size_t n = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(EVP_AEAD_CTX_seal(s->gcm, s->out, &n, s->len + 16, s->nonce, 12, s->in, s->len, NULL, 0) ==
         1);
  corvid_bench_sink(s->out, n);
}

static void bssl_gcm_open(void *p) {
  struct state *s = p;
  size_t n = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(EVP_AEAD_CTX_open(s->gcm, s->in, &n, s->len, s->nonce, 12, s->out, s->len + 16, NULL, 0) ==
         1);
  corvid_bench_sink(s->in, n);
}

static void mc_gcm_seal(void *p) {
  struct state *s = p;
  size_t n = 0;
  for (unsigned i = 0; i < s->n; i++)
    must(mc_aes_gcm_seal(s->out, s->len + 16, &n, s->key, 32, s->nonce, 12, s->in, s->len, NULL,
                         0) == 0);
  corvid_bench_sink(s->out, n);
}

// impl is one column of a row: `prepare` (optional) writes the input its
// operation reads (a ciphertext to open, a signature to verify) into the
// implementation's own copy of the state, once, before the timing.
struct impl {
  const char *name;
  void (*fn)(void *);
  void (*prepare)(struct state *);
};

struct options {
  unsigned rounds, reps;
  const char *filter;
};

static struct state *state_clone(const struct state *tmpl) {
  struct state *c = malloc(sizeof *c);
  if (c == NULL)
    abort();
  memcpy(c, tmpl, sizeof *c);
  c->in = malloc(AEAD_LARGE + 16);
  c->out = malloc(AEAD_LARGE + 16);
  if (c->in == NULL || c->out == NULL)
    abort();
  memcpy(c->in, tmpl->in, AEAD_LARGE + 16);
  memcpy(c->out, tmpl->out, AEAD_LARGE + 16);
  return c;
}

static void state_free(struct state *c) {
  free(c->in);
  free(c->out);
  free(c);
}

// run_row times opts->rounds * opts->reps calls of every implementation of
// the row `bench`, alternating them call by call (starting with a different
// one each time), so that a machine loaded by other work slows them alike;
// it emits each one's fastest call divided by `ops` (the operations per
// call) as one operation of `bytes` payload bytes.
static void run_row(const struct options *opts, const struct state *tmpl, const char *bench,
                    uint64_t bytes, unsigned ops, const struct impl *impls, size_t num_impls) {
  struct state *st[MAX_IMPLS];
  uint64_t *samples[MAX_IMPLS];
  unsigned total = opts->rounds * opts->reps;
  if (opts->filter != NULL && strstr(bench, opts->filter) == NULL)
    return;
  if (num_impls > MAX_IMPLS || total == 0 || total > CORVID_BENCH_MAX_REPS)
    abort();
  for (size_t i = 0; i < num_impls; i++) {
    st[i] = state_clone(tmpl);
    st[i]->n = ops;
    samples[i] = malloc(total * sizeof samples[i][0]);
    if (samples[i] == NULL)
      abort();
    if (impls[i].prepare != NULL)
      impls[i].prepare(st[i]);
    impls[i].fn(st[i]); // warm caches and branch predictors
  }
  for (unsigned r = 0; r < total; r++) {
    for (size_t k = 0; k < num_impls; k++) {
      size_t i = (k + r) % num_impls;
      uint64_t start = corvid_bench_now_ns();
      impls[i].fn(st[i]);
      samples[i][r] = corvid_bench_now_ns() - start;
    }
  }
  for (size_t i = 0; i < num_impls; i++) {
    struct corvid_bench_result res;
    corvid_bench_reduce(&res, samples[i], total);
    res.min_ns /= ops;
    res.median_ns /= ops;
    corvid_bench_emit(stdout, bench, impls[i].name, bytes, 1, &res);
    free(samples[i]);
    state_free(st[i]);
  }
  fflush(stdout);
}

// Preparations: each writes what the row's operation reads with the
// implementation that will read it (ours and the reference share formats,
// but each decapsulates its own ciphertext so that no row depends on both).
static void prep_mc_kem(struct state *s) {
  must(mc_mlkem_keygen_from_seed(s->kem, s->pk, sizeof s->pk, s->sk, sizeof s->sk, s->seed,
                                 MC_MLKEM_SEED_LEN) == 0);
  must(mc_mlkem_encaps_derand(s->kem, s->ct, sizeof s->ct, s->ss, s->pk,
                              mc_mlkem_public_key_len(s->kem), s->coins) == 0);
}

#ifdef BENCH_HAVE_PQCRYSTALS
static void prep_ref_kem(struct state *s) {
  must(peer_ref_mlkem_keygen(s->level, s->pk, s->sk, s->seed) == 0);
  must(peer_ref_mlkem_encaps(s->level, s->ct, s->ss, s->pk, s->coins) == 0);
}
#endif

static void prep_ocb(struct state *s) {
  mc_ocb_seal(s);
}

static void prep_gcm(struct state *s) {
  bssl_gcm_seal(s);
}

static void bench_mlkem(const struct options *opts, struct state *s) {
  static const int levels[] = {512, 768, 1024};
  static const mc_mlkem_level ours[] = {MC_MLKEM_512, MC_MLKEM_768, MC_MLKEM_1024};
  for (size_t l = 0; l < 3; l++) {
    const struct impl keygen[] = {
        {"mc", mc_kem_keygen, NULL},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_kem_keygen, NULL},
#endif
    };
    const struct impl encaps[] = {
        {"mc", mc_kem_encaps, prep_mc_kem},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_kem_encaps, prep_ref_kem},
#endif
    };
    // A new recipient each time: ours without its cache of expanded keys.
    const struct impl encaps_cold[] = {
        {"mc", mc_kem_encaps_cold, prep_mc_kem},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_kem_encaps, prep_ref_kem},
#endif
    };
    const struct impl decaps[] = {
        {"mc", mc_kem_decaps, prep_mc_kem},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_kem_decaps, prep_ref_kem},
#endif
    };
    char name[64];
    s->level = levels[l];
    s->kem = ours[l];
    snprintf(name, sizeof name, "mlkem%d-keygen", s->level);
    run_row(opts, s, name, 0, 4, keygen, sizeof keygen / sizeof keygen[0]);
    snprintf(name, sizeof name, "mlkem%d-encaps", s->level);
    run_row(opts, s, name, 0, 4, encaps, sizeof encaps / sizeof encaps[0]);
    snprintf(name, sizeof name, "mlkem%d-encaps-newkey", s->level);
    run_row(opts, s, name, 0, 4, encaps_cold, sizeof encaps_cold / sizeof encaps_cold[0]);
    snprintf(name, sizeof name, "mlkem%d-decaps", s->level);
    run_row(opts, s, name, 0, 4, decaps, sizeof decaps / sizeof decaps[0]);
  }
}

// setup_dsa gives both sides one key pair (ours, from a fixed seed, so that
// the sign rows do the same work from one run to the next), the messages,
// the randomness and the signature that the verify rows check. With the
// reference linked, it checks that both sides sign alike, which the sign
// rows rely on.
static void setup_dsa(struct state *s) {
  for (size_t i = 0; i < DSA_MSGS; i++) {
    s->dsa_msgs[i][0] = 0;
    s->dsa_msgs[i][1] = 0;
    memset(s->dsa_msgs[i] + 2, (int)(0x6d + i), MSG_LEN);
  }
  memset(s->rnd, 0x5a, sizeof s->rnd);
  uint8_t seed[MC_MLDSA_SEED_LEN] = {1};
  must(mc_mldsa_keygen_from_seed(s->dsa, s->pk, sizeof s->pk, s->sk, sizeof s->sk, seed) == 0);
  must(mc_mldsa_sign_internal(s->dsa, s->sig, sizeof s->sig, s->sk,
                              mc_mldsa_private_key_len(s->dsa), s->dsa_msgs[0],
                              sizeof s->dsa_msgs[0], s->rnd) == 0);
  s->sig_len = mc_mldsa_signature_len(s->dsa);
  memcpy(s->msg, s->dsa_msgs[0] + 2, MSG_LEN);
#ifdef BENCH_HAVE_PQCRYSTALS
  uint8_t ref_sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  size_t ref_len = 0;
  must(peer_ref_mldsa_sign(s->level, ref_sig, &ref_len, s->dsa_msgs[0] + 2, MSG_LEN, s->rnd,
                           s->sk) == 0);
  if (ref_len != s->sig_len || memcmp(ref_sig, s->sig, ref_len) != 0)
    fprintf(stderr, "bench_msgcrypt: ML-DSA-%d: ours and the reference sign differently\n",
            s->level);
#endif
}

static void bench_mldsa(const struct options *opts, struct state *s) {
  static const int levels[] = {44, 65, 87};
  static const mc_mldsa_level ours[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};
  for (size_t l = 0; l < 3; l++) {
    const struct impl keygen[] = {
        {"mc", mc_dsa_keygen, NULL},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_dsa_keygen, NULL},
#endif
    };
    const struct impl sign[] = {
        {"mc", mc_dsa_sign, NULL},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_dsa_sign, NULL},
#endif
    };
    const struct impl verify[] = {
        {"mc", mc_dsa_verify, NULL},
#ifdef BENCH_HAVE_PQCRYSTALS
        {"ref", ref_dsa_verify, NULL},
#endif
    };
    char name[64];
    s->level = levels[l];
    s->dsa = ours[l];
    setup_dsa(s);
    snprintf(name, sizeof name, "mldsa%d-keygen", s->level);
    run_row(opts, s, name, 0, 2, keygen, sizeof keygen / sizeof keygen[0]);
    snprintf(name, sizeof name, "mldsa%d-sign", s->level);
    run_row(opts, s, name, 0, DSA_MSGS, sign, sizeof sign / sizeof sign[0]);
    snprintf(name, sizeof name, "mldsa%d-verify", s->level);
    run_row(opts, s, name, 0, 2, verify, sizeof verify / sizeof verify[0]);
  }
}

static void bench_curves(const struct options *opts, struct state *s) {
  static const struct impl x448_derive[] = {{"mc", mc_x448_derive, NULL}};
  static const struct impl x448_keygen[] = {{"mc", mc_x448_keygen, NULL}};
  static const struct impl ed448_sign[] = {{"mc", mc_ed448_sign_fn, NULL}};
  static const struct impl ed448_verify[] = {{"mc", mc_ed448_verify_fn, NULL}};
  static const struct impl x25519_derive[] = {{"mc", mc_x25519_derive, NULL},
                                              {"boringssl", bssl_x25519_derive, NULL}};
  static const struct impl ed25519_sign[] = {{"boringssl", bssl_ed25519_sign, NULL}};
  static const struct impl ed25519_verify[] = {{"boringssl", bssl_ed25519_verify, NULL}};
  for (size_t i = 0; i < sizeof s->x448_sk; i++)
    s->x448_sk[i] = (uint8_t)(i * 7 + 3);
  for (size_t i = 0; i < sizeof s->ed448_sk; i++)
    s->ed448_sk[i] = (uint8_t)(i * 5 + 1);
  for (size_t i = 0; i < sizeof s->x25519_sk; i++)
    s->x25519_sk[i] = (uint8_t)(i * 3 + 2);
  uint8_t ed25519_seed[32] = {9};
  must(mc_x448_public_key(s->x448_pk, s->x448_sk) == 0);
  must(mc_ed448_public_key(s->ed448_pk, s->ed448_sk) == 0);
  must(mc_ed448_sign(s->ed448_sig, s->ed448_sk, s->msg, sizeof s->msg, NULL, 0) == 0);
  X25519_public_from_private(s->x25519_pk, s->x25519_sk);
  ED25519_keypair_from_seed(s->ed25519_pk, s->ed25519_sk, ed25519_seed);
  must(ED25519_sign(s->ed25519_sig, s->msg, sizeof s->msg, s->ed25519_sk) == 1);
  run_row(opts, s, "x448-derive", 0, 1, x448_derive, 1);
  run_row(opts, s, "x448-keygen", 0, 1, x448_keygen, 1);
  run_row(opts, s, "ed448-sign", 0, 1, ed448_sign, 1);
  run_row(opts, s, "ed448-verify", 0, 1, ed448_verify, 1);
  run_row(opts, s, "x25519-derive", 0, 2, x25519_derive, 2);
  run_row(opts, s, "ed25519-sign", 0, 2, ed25519_sign, 1);
  run_row(opts, s, "ed25519-verify", 0, 2, ed25519_verify, 1);
}

static void bench_aead(const struct options *opts, struct state *s) {
  static const size_t lens[] = {AEAD_SMALL, AEAD_LARGE};
  // The automatic choice is named after its loops; with VAES, the AES-NI
  // loops get a column of their own (the last, absent otherwise).
  const int vaes = mc_ocb_vaes_available();
  const char *ocb_name = mc_ocb_vaes512_available() ? "mc-ocb-vaes512"
                         : vaes                     ? "mc-ocb-vaes"
                         : mc_ocb_aesni_available() ? "mc-ocb-aesni"
                                                    : "mc-ocb";
  const struct impl seal[] = {
      {"boringssl-gcm", bssl_gcm_seal, NULL},          {ocb_name, mc_ocb_seal, NULL},
      {"mc-ocb-boringssl-ecb", mc_ocb_ecb_seal, NULL}, {"mc-gcm-oneshot", mc_gcm_seal, NULL},
      {"mc-ocb-aesni", mc_ocb_aesni_seal, NULL},
  };
  const struct impl open[] = {
      {"boringssl-gcm", bssl_gcm_open, prep_gcm},
      {ocb_name, mc_ocb_open, prep_ocb},
      {"mc-ocb-boringssl-ecb", mc_ocb_ecb_open, prep_ocb},
      {"mc-ocb-aesni", mc_ocb_aesni_open, prep_ocb},
  };
  const size_t n_seal = sizeof seal / sizeof seal[0] - (vaes ? 0 : 1);
  const size_t n_open = sizeof open / sizeof open[0] - (vaes ? 0 : 1);
  for (size_t i = 0; i < sizeof s->key; i++)
    s->key[i] = (uint8_t)(i + 1);
  memset(s->nonce, 7, sizeof s->nonce);
  for (size_t i = 0; i < AEAD_LARGE + 16; i++)
    s->in[i] = (uint8_t)(i * 131);
  mc_aes_ocb_ctx ocb, ocb_ecb, ocb_aesni;
  EVP_AEAD_CTX gcm;
  must(mc_aes_ocb_init(&ocb, s->key, 32, 16) == 0);
  must(mc_aes_ocb_init_impl(&ocb_ecb, s->key, 32, 16, MC_OCB_IMPL_BORINGSSL) == 0);
  must(mc_aes_ocb_init_impl(&ocb_aesni, s->key, 32, 16,
                            vaes ? MC_OCB_IMPL_AESNI : MC_OCB_IMPL_AUTO) == 0);
  must(EVP_AEAD_CTX_init(&gcm, EVP_aead_aes_256_gcm(), s->key, 32, 16, NULL) == 1);
  s->ocb = &ocb;
  s->ocb_ecb = &ocb_ecb;
  s->ocb_aesni = &ocb_aesni;
  s->gcm = &gcm;
  for (size_t l = 0; l < 2; l++) {
    s->len = lens[l];
    unsigned ops = s->len == AEAD_SMALL ? 64 : 1;
    run_row(opts, s, "aes256-aead-seal", s->len, ops, seal, n_seal);
    run_row(opts, s, "aes256-aead-open", s->len, ops, open, n_open);
  }
  mc_aes_ocb_cleanup(&ocb);
  mc_aes_ocb_cleanup(&ocb_ecb);
  mc_aes_ocb_cleanup(&ocb_aesni);
  EVP_AEAD_CTX_cleanup(&gcm);
  s->ocb = s->ocb_ecb = s->ocb_aesni = NULL;
  s->gcm = NULL;
}

// bench_rsa times the RSA public operation (e = 65537) for 2048-, 3072- and
// 4096-bit moduli: fixed odd patterns with the top bit set, and a message
// starting with 0 as both PKCS #1 encodings do. "mc-ifma" runs only where
// the CPU has AVX-512 IFMA; "mc-boringssl" is our sequence over BoringSSL's
// bn_mul_mont, the products used before the IFMA kernel.
static void bench_rsa(const struct options *opts, struct state *s) {
  static const unsigned bits[] = {2048, 3072, 4096};
  const struct impl impls[] = {
      {"boringssl", bssl_rsa_public, NULL},
      {"mc-boringssl", mc_rsa_public, prep_rsa_boringssl},
      {"mc-ifma", mc_rsa_public, prep_rsa_ifma},
  };
  size_t num = mc_rsa_pub_impl_supported(MC_RSA_PUB_IMPL_IFMA) ? 3 : 2;
  static const uint8_t f4[3] = {1, 0, 1};
  for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
    s->rsa_len = bits[b] / 8;
    for (size_t i = 0; i < s->rsa_len; i++) {
      s->rsa_n[i] = (uint8_t)(i * 97 + 13 + (i >> 3));
      s->rsa_em[i] = (uint8_t)(i * 59 + 7);
    }
    s->rsa_n[0] |= 0x80;
    s->rsa_n[s->rsa_len - 1] |= 1;
    s->rsa_em[0] = 0;
    s->rsa = RSA_new();
    BIGNUM *n = BN_bin2bn(s->rsa_n, s->rsa_len, NULL), *e = BN_bin2bn(f4, 3, NULL);
    must(s->rsa != NULL && n != NULL && e != NULL && RSA_set0_key(s->rsa, n, e, NULL));
    char name[32];
    snprintf(name, sizeof name, "rsa%u-public", bits[b]);
    run_row(opts, s, name, 0, 1, impls, num);
    RSA_free(s->rsa);
    s->rsa = NULL;
  }
  must(mc_rsa_pub_force_impl(MC_RSA_PUB_IMPL_AUTO) == 0);
}

int main(int argc, char **argv) {
  struct options opts = {5, 30, NULL};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      opts.rounds = (unsigned)strtoul(argv[++i], NULL, 10);
      if (opts.rounds == 0 || opts.rounds > CORVID_BENCH_MAX_REPS / 30)
        opts.rounds = 5;
    } else if (strcmp(argv[i], "--quick") == 0) {
      opts.rounds = 1;
      opts.reps = 3;
    } else if (argv[i][0] != '-') {
      opts.filter = argv[i];
    } else {
      fprintf(stderr, "usage: bench_msgcrypt [--rounds N] [--quick] [FILTER]\n");
      return 2;
    }
  }
  struct state *s = calloc(1, sizeof *s);
  if (s == NULL)
    return 1;
  s->in = malloc(AEAD_LARGE + 16);
  s->out = malloc(AEAD_LARGE + 16);
  if (s->in == NULL || s->out == NULL)
    return 1;
  for (size_t i = 0; i < sizeof s->seed; i++)
    s->seed[i] = (uint8_t)(i * 13 + 5);
  memset(s->coins, 0x42, sizeof s->coins);
  memset(s->msg, 0x6d, sizeof s->msg);
  bench_mlkem(&opts, s);
  bench_mldsa(&opts, s);
  bench_curves(&opts, s);
  bench_aead(&opts, s);
  bench_rsa(&opts, s);
  free(s->in);
  free(s->out);
  free(s);
  return 0;
}
