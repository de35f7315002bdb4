// mldsa.c: ML-DSA key generation, signing and verification (FIPS 204
// Algorithms 1-8) for the three parameter sets, on the polynomial layer of
// mldsa_poly.c. Key generation and signing keep every secret out of branches
// and memory indexes; what they make public on purpose is the rejection
// decision of each signing attempt (so the attempt count leaks, which FIPS
// 204 accepts; the reasons for a rejection do not: all four checks are
// computed every time and folded into one bit), the accept bits of the
// rejection samplers, ρ (part of the public key) and the hint vector of the
// signature being returned. The constant-time test (tests/ct_mldsa.c) checks
// this under Valgrind.
#include <errno.h>
#include <string.h>

#include <openssl/rand.h>

#include "impl_internal.h"
#include "mldsa_internal.h"

// Signing gives up after this many attempts. Each attempt is rejected with
// probability about 0.8 (ML-DSA-65 needs 5.1 attempts on average), so a valid
// key needs more than 1000 with probability below 2^-300 (FIPS 204 Appendix C
// allows such a bound); a malformed private key can make every attempt fail.
// The bound also keeps the 16-bit ExpandMask counter κ + r from wrapping.
#define MAX_SIGN_ATTEMPTS 1000

static const mc_mldsa_params params[] = {
    [MC_MLDSA_44] =
        {
            .k = 4,
            .l = 4,
            .eta = 2,
            .tau = 39,
            .omega = 80,
            .ctilde_len = 32,
            .eta_bits = 3,
            .z_bits = 18,
            .w1_bits = 6,
            .gamma1 = 1 << 17,
            .gamma2 = (MC_MLDSA_Q - 1) / 88,
            .beta = 78,
            .public_key_len = MC_MLDSA44_PUBLIC_KEY_LEN,
            .private_key_len = MC_MLDSA44_PRIVATE_KEY_LEN,
            .signature_len = MC_MLDSA44_SIGNATURE_LEN,
        },
    [MC_MLDSA_65] =
        {
            .k = 6,
            .l = 5,
            .eta = 4,
            .tau = 49,
            .omega = 55,
            .ctilde_len = 48,
            .eta_bits = 4,
            .z_bits = 20,
            .w1_bits = 4,
            .gamma1 = 1 << 19,
            .gamma2 = (MC_MLDSA_Q - 1) / 32,
            .beta = 196,
            .public_key_len = MC_MLDSA65_PUBLIC_KEY_LEN,
            .private_key_len = MC_MLDSA65_PRIVATE_KEY_LEN,
            .signature_len = MC_MLDSA65_SIGNATURE_LEN,
        },
    [MC_MLDSA_87] =
        {
            .k = 8,
            .l = 7,
            .eta = 2,
            .tau = 60,
            .omega = 75,
            .ctilde_len = 64,
            .eta_bits = 3,
            .z_bits = 20,
            .w1_bits = 4,
            .gamma1 = 1 << 19,
            .gamma2 = (MC_MLDSA_Q - 1) / 32,
            .beta = 120,
            .public_key_len = MC_MLDSA87_PUBLIC_KEY_LEN,
            .private_key_len = MC_MLDSA87_PRIVATE_KEY_LEN,
            .signature_len = MC_MLDSA87_SIGNATURE_LEN,
        },
};

const mc_mldsa_params *mc_mldsa_params_get(int level) {
  if (level < MC_MLDSA_44 || level > MC_MLDSA_87)
    return NULL;
  return &params[level];
}

size_t mc_mldsa_public_key_len(mc_mldsa_level level) {
  const mc_mldsa_params *p = mc_mldsa_params_get((int)level);
  return p ? p->public_key_len : 0;
}

size_t mc_mldsa_private_key_len(mc_mldsa_level level) {
  const mc_mldsa_params *p = mc_mldsa_params_get((int)level);
  return p ? p->private_key_len : 0;
}

size_t mc_mldsa_signature_len(mc_mldsa_level level) {
  const mc_mldsa_params *p = mc_mldsa_params_get((int)level);
  return p ? p->signature_len : 0;
}

// Bytes of one packed private-key polynomial of s1/s2 and of t0.
static size_t eta_poly_len(const mc_mldsa_params *p) {
  return 32 * p->eta_bits;
}
#define T0_POLY_LEN (32 * MC_MLDSA_D)

// Key generation (Algorithm 6).

struct keygen_state {
  uint8_t seeds[128]; // ρ (32) || ρ' (64) || K (32)
  mc_mldsa_poly s1[MC_MLDSA_MAX_L], s1_hat[MC_MLDSA_MAX_L], s2[MC_MLDSA_MAX_K];
  mc_mldsa_poly t, t1, t0;
};

static void keygen_internal(const mc_mldsa_params *p, uint8_t *pk, uint8_t *sk,
                            const uint8_t xi[MC_MLDSA_SEED_LEN]) {
  struct keygen_state st;
  // Â is public (derived from ρ), so it stays out of the wiped state.
  mc_mldsa_poly a[MC_MLDSA_MAX_K][MC_MLDSA_MAX_L];
  uint8_t in[MC_MLDSA_SEED_LEN + 2];
  memcpy(in, xi, MC_MLDSA_SEED_LEN);
  in[MC_MLDSA_SEED_LEN] = (uint8_t)p->k;
  in[MC_MLDSA_SEED_LEN + 1] = (uint8_t)p->l;
  mc_mldsa_shake256(st.seeds, sizeof st.seeds, in, sizeof in);
  mc_wipe(in, sizeof in);
  const uint8_t *rho = st.seeds, *rho_prime = st.seeds + 32, *key = st.seeds + 96;
  // ρ is published in the public key; ExpandA branches on it.
  MC_MLDSA_DECLASSIFY(st.seeds, 32);

  // ExpandS (Algorithm 33): s1 from indices 0..l-1, s2 from l..l+k-1.
  mc_mldsa_expand_s(st.s1, st.s2, rho_prime, p);
  mc_mldsa_expand_a(a, rho, p->k, p->l);
  for (unsigned j = 0; j < p->l; j++) {
    st.s1_hat[j] = st.s1[j];
    mc_mldsa_ntt(&st.s1_hat[j]);
  }

  // The private key's fixed fields and s1, s2; t0 follows row by row.
  uint8_t *sk_s1 = sk + 128, *sk_s2 = sk_s1 + p->l * eta_poly_len(p);
  uint8_t *sk_t0 = sk_s2 + p->k * eta_poly_len(p);
  memcpy(sk, rho, 32);
  memcpy(sk + 32, key, 32);
  for (unsigned j = 0; j < p->l; j++)
    mc_mldsa_pack(sk_s1 + j * eta_poly_len(p), &st.s1[j], p->eta_bits, 1, (int32_t)p->eta);
  for (unsigned i = 0; i < p->k; i++)
    mc_mldsa_pack(sk_s2 + i * eta_poly_len(p), &st.s2[i], p->eta_bits, 1, (int32_t)p->eta);

  // t = A·s1 + s2, one row at a time, split by Power2Round into t1 (public
  // key) and t0 (private key).
  memcpy(pk, rho, 32);
  for (unsigned i = 0; i < p->k; i++) {
    mc_mldsa_pointwise_sum(&st.t, a[i], st.s1_hat, p->l);
    mc_mldsa_invntt(&st.t);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      st.t.c[n] += st.s2[i].c[n];
    mc_mldsa_reduce(&st.t);
    mc_mldsa_freeze(&st.t);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      mc_mldsa_power2round(&st.t1.c[n], &st.t0.c[n], st.t.c[n]);
    mc_mldsa_pack(pk + 32 + 320 * i, &st.t1, 10, 0, 0);
    mc_mldsa_pack(sk_t0 + i * T0_POLY_LEN, &st.t0, MC_MLDSA_D, 1, 1 << (MC_MLDSA_D - 1));
  }
  // tr = H(pk, 64).
  mc_mldsa_shake256(sk + 64, MC_MLDSA_TR_LEN, pk, p->public_key_len);
  mc_wipe(&st, sizeof st);
}

// Signing (Algorithm 7).

struct sign_state {
  uint8_t rho[32], key[32], tr[MC_MLDSA_TR_LEN], mu[MC_MLDSA_MU_LEN], rho2[64];
  // NTT domain, computed once per signature: s12[i] = NTT(s1[i] + 2^11 ·
  // s2[i]) with s1[i] = 0 for i ≥ l (see MC_MLDSA_PAIR_SHIFT), and NTT(t0).
  mc_mldsa_poly s12[MC_MLDSA_MAX_K], t0[MC_MLDSA_MAX_K];
  mc_mldsa_poly a[MC_MLDSA_MAX_K][MC_MLDSA_MAX_L];
  mc_mldsa_poly y[MC_MLDSA_MAX_L], w[MC_MLDSA_MAX_K], c, tmp, cs1, cs2, ct0;
  uint8_t w1[MC_MLDSA_MAX_K * 32 * 6];
  mc_mldsa_signature sig;
  mc_mldsa_xof xof;
};

// abs_at_least returns 1 when |x| >= bound (bound > 0), without branches.
static inline uint32_t abs_at_least(int32_t x, int32_t bound) {
  int32_t sign = x >> 31;
  int32_t abs = (x ^ sign) - sign;
  return (uint32_t)(bound - 1 - abs) >> 31;
}

// mod_q maps x in (−q, 2q) to [0, q).
static inline int32_t mod_q(int32_t x) {
  x += (x >> 31) & MC_MLDSA_Q;
  x -= ~((x - MC_MLDSA_Q) >> 31) & MC_MLDSA_Q;
  return x;
}

// Cost of an attempt. The reference implementation stops an attempt at the
// first failed check, skipping c·s2 and c·t0 when z fails; that makes which
// check failed (and so something about s1 against s2 and t0) visible in the
// timing. We keep computing every check, and pay for it with less work per
// product instead: c·s1[i] and c·s2[i] share one inverse NTT
// (MC_MLDSA_PAIR_SHIFT), so an attempt takes 3k inverse NTTs (w, c·s, c·t0)
// rather than l + 3k, and A·y reduces once per coefficient rather than once
// per product (mc_mldsa_pointwise_sum). NTT(s1 + 2^11 · s2), NTT(t0) and Â
// are computed once per signature, in sign_internal.
//
// sign_attempt runs one iteration of the rejection loop with counter κ =
// `kappa`, leaving the candidate in st->sig, and returns 1 when it must be
// rejected. Nothing here branches on a secret; the caller declassifies the
// returned decision only.
static uint32_t sign_attempt(const mc_mldsa_params *p, struct sign_state *st, unsigned kappa) {
  // y = ExpandMask(ρ'', κ); w = A·y.
  mc_mldsa_expand_mask_vec(st->y, st->rho2, (uint16_t)kappa, p);
  for (unsigned r = 0; r < p->l; r++) {
    st->sig.z[r] = st->y[r];
    mc_mldsa_ntt(&st->sig.z[r]);
  }
  size_t w1_row = 32 * p->w1_bits;
  for (unsigned i = 0; i < p->k; i++) {
    mc_mldsa_pointwise_sum(&st->w[i], st->a[i], st->sig.z, p->l);
    mc_mldsa_invntt(&st->w[i]);
    mc_mldsa_freeze(&st->w[i]);
    // w1 = HighBits(w), packed for the commitment hash.
    for (unsigned n = 0; n < MC_MLDSA_N; n++) {
      int32_t r0;
      mc_mldsa_decompose(&st->tmp.c[n], &r0, st->w[i].c[n], p->gamma2);
    }
    mc_mldsa_pack(st->w1 + i * w1_row, &st->tmp, p->w1_bits, 0, 0);
  }
  // c̃ = H(μ || w1Encode(w1)); c = SampleInBall(c̃).
  mc_mldsa_xof_init(&st->xof, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&st->xof, st->mu, sizeof st->mu);
  mc_mldsa_xof_absorb(&st->xof, st->w1, p->k * w1_row);
  mc_mldsa_xof_finish(&st->xof);
  mc_mldsa_xof_squeeze(&st->xof, st->sig.ctilde, p->ctilde_len);
  mc_mldsa_sample_in_ball(&st->c, st->sig.ctilde, p->ctilde_len, p->tau);
  mc_mldsa_ntt(&st->c);

  // Row i gives c·s1[i] (for i < l) and c·s2[i] from one product with
  // s12[i] and one inverse NTT, then c·t0[i] from a second: k + k inverse
  // NTTs per attempt instead of l + 2k. The split is exact for every
  // encodable private key (MC_MLDSA_PAIR_SHIFT), so the candidate is the one
  // FIPS 204 defines.
  uint32_t reject = 0, hints = 0;
  for (unsigned i = 0; i < p->k; i++) {
    mc_mldsa_pointwise(&st->tmp, &st->c, &st->s12[i]);
    mc_mldsa_invntt(&st->tmp);
    mc_mldsa_center(&st->tmp);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      mc_mldsa_pair_split(&st->cs1.c[n], &st->cs2.c[n], st->tmp.c[n]);
    mc_mldsa_pointwise(&st->ct0, &st->c, &st->t0[i]);
    mc_mldsa_invntt(&st->ct0);
    mc_mldsa_center(&st->ct0);
    // z = y + c·s1, rejected when ||z||∞ ≥ γ1 − β.
    if (i < p->l) {
      for (unsigned n = 0; n < MC_MLDSA_N; n++) {
        st->sig.z[i].c[n] = st->y[i].c[n] + st->cs1.c[n];
        reject |= abs_at_least(st->sig.z[i].c[n], p->gamma1 - p->beta);
      }
    }
    // r0 = LowBits(w − c·s2), rejected when ||r0||∞ ≥ γ2 − β; the hint
    // h = MakeHint(−c·t0, w − c·s2 + c·t0) marks where adding c·t0 changes
    // the high bits, rejected when ||c·t0||∞ ≥ γ2 or h has more than ω ones.
    for (unsigned n = 0; n < MC_MLDSA_N; n++) {
      int32_t r = mod_q(st->w[i].c[n] - st->cs2.c[n]);
      int32_t r1, r0, v1, v0;
      mc_mldsa_decompose(&r1, &r0, r, p->gamma2);
      reject |= abs_at_least(r0, p->gamma2 - p->beta);
      reject |= abs_at_least(st->ct0.c[n], p->gamma2);
      mc_mldsa_decompose(&v1, &v0, mod_q(r + st->ct0.c[n]), p->gamma2);
      uint32_t h = 1 ^ (uint32_t)((((uint32_t)(r1 ^ v1)) - 1) >> 31);
      st->sig.h[i][n] = (uint8_t)h;
      hints += h;
    }
  }
  reject |= (uint32_t)((int32_t)p->omega - (int32_t)hints) >> 31;
  return reject;
}

// sign_internal signs M' = `prefix` || `msg` (the prefix carries the pure
// ML-DSA domain separator and context, or nothing for Sign_internal). The
// private key length has been checked.
static int sign_internal(const mc_mldsa_params *p, uint8_t *out_sig, const uint8_t *sk,
                         const uint8_t *prefix, size_t prefix_len, const uint8_t *msg,
                         size_t msg_len, const uint8_t rnd[MC_MLDSA_RND_LEN]) {
  struct sign_state st;
  // skDecode (Algorithm 25). s1 and s2 are taken as encoded, even outside
  // [−η, η]: the private key is trusted, and a malformed one only yields
  // signatures that do not verify or, at worst, MC_ERR_BAD_KEY below.
  memcpy(st.rho, sk, 32);
  memcpy(st.key, sk + 32, 32);
  memcpy(st.tr, sk + 64, MC_MLDSA_TR_LEN);
  // ρ is the public key's; ExpandA branches on it.
  MC_MLDSA_DECLASSIFY(st.rho, sizeof st.rho);
  // NTT(s1 + 2^11 · s2) and NTT(t0), once for all attempts.
  const uint8_t *sk_s1 = sk + 128, *sk_s2 = sk_s1 + p->l * eta_poly_len(p);
  for (unsigned i = 0; i < p->k; i++) {
    mc_mldsa_unpack(&st.s12[i], sk_s2 + i * eta_poly_len(p), p->eta_bits, 1, (int32_t)p->eta);
    memset(&st.tmp, 0, sizeof st.tmp);
    if (i < p->l)
      mc_mldsa_unpack(&st.tmp, sk_s1 + i * eta_poly_len(p), p->eta_bits, 1, (int32_t)p->eta);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      st.s12[i].c[n] = st.tmp.c[n] + st.s12[i].c[n] * (1 << MC_MLDSA_PAIR_SHIFT);
    mc_mldsa_ntt(&st.s12[i]);
  }
  const uint8_t *in = sk_s2 + p->k * eta_poly_len(p);
  for (unsigned i = 0; i < p->k; i++, in += T0_POLY_LEN) {
    mc_mldsa_unpack(&st.t0[i], in, MC_MLDSA_D, 1, 1 << (MC_MLDSA_D - 1));
    mc_mldsa_ntt(&st.t0[i]);
  }
  mc_mldsa_expand_a(st.a, st.rho, p->k, p->l);

  // μ = H(tr || M', 64); ρ'' = H(K || rnd || μ, 64).
  mc_mldsa_xof_init(&st.xof, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&st.xof, st.tr, sizeof st.tr);
  mc_mldsa_xof_absorb(&st.xof, prefix, prefix_len);
  mc_mldsa_xof_absorb(&st.xof, msg, msg_len);
  mc_mldsa_xof_finish(&st.xof);
  mc_mldsa_xof_squeeze(&st.xof, st.mu, sizeof st.mu);
  mc_mldsa_xof_init(&st.xof, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&st.xof, st.key, sizeof st.key);
  mc_mldsa_xof_absorb(&st.xof, rnd, MC_MLDSA_RND_LEN);
  mc_mldsa_xof_absorb(&st.xof, st.mu, sizeof st.mu);
  mc_mldsa_xof_finish(&st.xof);
  mc_mldsa_xof_squeeze(&st.xof, st.rho2, sizeof st.rho2);

  int status = MC_ERR_BAD_KEY;
  for (unsigned attempt = 0; attempt < MAX_SIGN_ATTEMPTS; attempt++) {
    uint32_t reject = sign_attempt(p, &st, attempt * p->l);
    // The one value made public per attempt: whether it was rejected.
    MC_MLDSA_DECLASSIFY(&reject, sizeof reject);
    if (reject)
      continue;
    // The accepted hints are part of the signature returned.
    MC_MLDSA_DECLASSIFY(st.sig.h, sizeof st.sig.h);
    mc_mldsa_signature_encode(out_sig, p, &st.sig);
    status = 0;
    break;
  }
  mc_wipe(&st, sizeof st);
  return status;
}

// Verification (Algorithm 8).

struct verify_state {
  mc_mldsa_public_key pk;
  mc_mldsa_signature sig;
  mc_mldsa_poly a[MC_MLDSA_MAX_K][MC_MLDSA_MAX_L], c, ct1, w, t1;
  uint8_t tr[MC_MLDSA_TR_LEN], mu[MC_MLDSA_MU_LEN], ctilde[MC_MLDSA_MAX_CTILDE_LEN];
  uint8_t w1[32 * 6];
  mc_mldsa_xof xof;
};

static int verify_internal(const mc_mldsa_params *p, const uint8_t *pk, size_t pk_len,
                           const uint8_t *sig, size_t sig_len, const uint8_t *prefix,
                           size_t prefix_len, const uint8_t *msg, size_t msg_len) {
  struct verify_state st;
  MC_TRY(mc_mldsa_public_key_decode(&st.pk, p, pk, pk_len));
  MC_TRY(mc_mldsa_signature_decode(&st.sig, p, sig, sig_len));
  uint32_t too_big = 0;
  for (unsigned j = 0; j < p->l; j++)
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      too_big |= abs_at_least(st.sig.z[j].c[n], p->gamma1 - p->beta);
  MC_FAIL_IF(too_big, MC_ERR_BAD_SIGNATURE);

  // tr = H(pk, 64); μ = H(tr || M', 64).
  mc_mldsa_shake256(st.tr, sizeof st.tr, pk, pk_len);
  mc_mldsa_xof_init(&st.xof, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&st.xof, st.tr, sizeof st.tr);
  mc_mldsa_xof_absorb(&st.xof, prefix, prefix_len);
  mc_mldsa_xof_absorb(&st.xof, msg, msg_len);
  mc_mldsa_xof_finish(&st.xof);
  mc_mldsa_xof_squeeze(&st.xof, st.mu, sizeof st.mu);

  mc_mldsa_sample_in_ball(&st.c, st.sig.ctilde, p->ctilde_len, p->tau);
  mc_mldsa_ntt(&st.c);
  for (unsigned j = 0; j < p->l; j++)
    mc_mldsa_ntt(&st.sig.z[j]);

  // w'_approx = A·z − c·t1·2^d row by row, w1' = UseHint(h, w'_approx),
  // hashed as it is produced: c̃' = H(μ || w1Encode(w1')).
  mc_mldsa_xof_init(&st.xof, MC_MLDSA_SHAKE256_RATE);
  mc_mldsa_xof_absorb(&st.xof, st.mu, sizeof st.mu);
  mc_mldsa_expand_a(st.a, st.pk.rho, p->k, p->l);
  for (unsigned i = 0; i < p->k; i++) {
    mc_mldsa_pointwise_sum(&st.w, st.a[i], st.sig.z, p->l);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      st.t1.c[n] = st.pk.t1[i].c[n] << MC_MLDSA_D;
    mc_mldsa_ntt(&st.t1);
    mc_mldsa_pointwise(&st.ct1, &st.c, &st.t1);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      st.w.c[n] -= st.ct1.c[n];
    mc_mldsa_reduce(&st.w);
    mc_mldsa_invntt(&st.w);
    mc_mldsa_freeze(&st.w);
    for (unsigned n = 0; n < MC_MLDSA_N; n++)
      st.w.c[n] = mc_mldsa_use_hint(st.sig.h[i][n], st.w.c[n], p->gamma2);
    mc_mldsa_pack(st.w1, &st.w, p->w1_bits, 0, 0);
    mc_mldsa_xof_absorb(&st.xof, st.w1, 32 * p->w1_bits);
  }
  mc_mldsa_xof_finish(&st.xof);
  mc_mldsa_xof_squeeze(&st.xof, st.ctilde, p->ctilde_len);
  uint8_t diff = 0;
  for (unsigned i = 0; i < p->ctilde_len; i++)
    diff |= st.ctilde[i] ^ st.sig.ctilde[i];
  return diff == 0 ? 0 : MC_ERR_BAD_SIGNATURE;
}

// Public API.

static int check_keygen_args(const mc_mldsa_params **p, mc_mldsa_level level, const uint8_t *pk,
                             size_t pk_cap, const uint8_t *sk, size_t sk_cap) {
  MC_TRY(mc_impl_check());
  *p = mc_mldsa_params_get((int)level);
  MC_FAIL_IF(*p == NULL || pk == NULL || sk == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(pk_cap < (*p)->public_key_len || sk_cap < (*p)->private_key_len,
             MC_ERR_BUFFER_TOO_SMALL);
  return 0;
}

int mc_mldsa_keygen_from_seed(mc_mldsa_level level, uint8_t *out_public_key, size_t public_key_cap,
                              uint8_t *out_private_key, size_t private_key_cap,
                              const uint8_t seed[MC_MLDSA_SEED_LEN]) {
  const mc_mldsa_params *p;
  MC_TRY(check_keygen_args(&p, level, out_public_key, public_key_cap, out_private_key,
                           private_key_cap));
  MC_FAIL_IF(seed == NULL, MC_ERR_INVALID_ARGUMENT);
  keygen_internal(p, out_public_key, out_private_key, seed);
  return 0;
}

int mc_mldsa_keygen(mc_mldsa_level level, uint8_t *out_public_key, size_t public_key_cap,
                    uint8_t *out_private_key, size_t private_key_cap,
                    uint8_t out_seed[MC_MLDSA_SEED_LEN]) {
  const mc_mldsa_params *p;
  MC_TRY(check_keygen_args(&p, level, out_public_key, public_key_cap, out_private_key,
                           private_key_cap));
  uint8_t xi[MC_MLDSA_SEED_LEN];
  MC_FAIL_IF(RAND_bytes(xi, sizeof xi) != 1, -EIO);
  keygen_internal(p, out_public_key, out_private_key, xi);
  if (out_seed != NULL)
    memcpy(out_seed, xi, sizeof xi);
  mc_wipe(xi, sizeof xi);
  return 0;
}

static int check_sign_args(const mc_mldsa_params **p, mc_mldsa_level level, const uint8_t *sig,
                           size_t sig_cap, const uint8_t *sk, size_t sk_len, const uint8_t *msg,
                           size_t msg_len) {
  MC_TRY(mc_impl_check());
  *p = mc_mldsa_params_get((int)level);
  MC_FAIL_IF(*p == NULL || sig == NULL || sk == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(msg == NULL && msg_len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(sk_len != (*p)->private_key_len, MC_ERR_BAD_KEY);
  MC_FAIL_IF(sig_cap < (*p)->signature_len, MC_ERR_BUFFER_TOO_SMALL);
  return 0;
}

// pure_prefix writes the M' prefix of pure ML-DSA (Algorithm 2 line 10):
// IntegerToBytes(0, 1) || IntegerToBytes(|ctx|, 1) || ctx.
static int pure_prefix(uint8_t prefix[2 + MC_MLDSA_MAX_CONTEXT_LEN], size_t *prefix_len,
                       const uint8_t *context, size_t context_len) {
  MC_FAIL_IF(context_len > MC_MLDSA_MAX_CONTEXT_LEN, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(context == NULL && context_len != 0, MC_ERR_INVALID_ARGUMENT);
  prefix[0] = 0;
  prefix[1] = (uint8_t)context_len;
  if (context_len > 0)
    memcpy(prefix + 2, context, context_len);
  *prefix_len = 2 + context_len;
  return 0;
}

static int sign_pure(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                     const uint8_t *private_key, size_t private_key_len, const uint8_t *msg,
                     size_t msg_len, const uint8_t *context, size_t context_len, int hedged) {
  const mc_mldsa_params *p;
  uint8_t prefix[2 + MC_MLDSA_MAX_CONTEXT_LEN], rnd[MC_MLDSA_RND_LEN] = {0};
  size_t prefix_len;
  MC_TRY(
      check_sign_args(&p, level, out_sig, out_sig_cap, private_key, private_key_len, msg, msg_len));
  MC_TRY(pure_prefix(prefix, &prefix_len, context, context_len));
  if (hedged)
    MC_FAIL_IF(RAND_bytes(rnd, sizeof rnd) != 1, -EIO);
  int status = sign_internal(p, out_sig, private_key, prefix, prefix_len, msg, msg_len, rnd);
  mc_wipe(rnd, sizeof rnd);
  return status;
}

int mc_mldsa_sign(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                  const uint8_t *private_key, size_t private_key_len, const uint8_t *msg,
                  size_t msg_len, const uint8_t *context, size_t context_len) {
  return sign_pure(level, out_sig, out_sig_cap, private_key, private_key_len, msg, msg_len, context,
                   context_len, 1);
}

int mc_mldsa_sign_deterministic(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                                const uint8_t *private_key, size_t private_key_len,
                                const uint8_t *msg, size_t msg_len, const uint8_t *context,
                                size_t context_len) {
  return sign_pure(level, out_sig, out_sig_cap, private_key, private_key_len, msg, msg_len, context,
                   context_len, 0);
}

int mc_mldsa_sign_internal(mc_mldsa_level level, uint8_t *out_sig, size_t out_sig_cap,
                           const uint8_t *private_key, size_t private_key_len,
                           const uint8_t *formatted_msg, size_t formatted_msg_len,
                           const uint8_t rnd[MC_MLDSA_RND_LEN]) {
  const mc_mldsa_params *p;
  MC_TRY(check_sign_args(&p, level, out_sig, out_sig_cap, private_key, private_key_len,
                         formatted_msg, formatted_msg_len));
  MC_FAIL_IF(rnd == NULL, MC_ERR_INVALID_ARGUMENT);
  return sign_internal(p, out_sig, private_key, NULL, 0, formatted_msg, formatted_msg_len, rnd);
}

static int check_verify_args(const mc_mldsa_params **p, mc_mldsa_level level, const uint8_t *pk,
                             size_t pk_len, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                             size_t msg_len) {
  MC_TRY(mc_impl_check());
  *p = mc_mldsa_params_get((int)level);
  MC_FAIL_IF(*p == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((pk == NULL && pk_len != 0) || (sig == NULL && sig_len != 0) ||
                 (msg == NULL && msg_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  return 0;
}

int mc_mldsa_verify(mc_mldsa_level level, const uint8_t *public_key, size_t public_key_len,
                    const uint8_t *sig, size_t sig_len, const uint8_t *msg, size_t msg_len,
                    const uint8_t *context, size_t context_len) {
  const mc_mldsa_params *p;
  uint8_t prefix[2 + MC_MLDSA_MAX_CONTEXT_LEN];
  size_t prefix_len;
  MC_TRY(check_verify_args(&p, level, public_key, public_key_len, sig, sig_len, msg, msg_len));
  MC_TRY(pure_prefix(prefix, &prefix_len, context, context_len));
  return verify_internal(p, public_key, public_key_len, sig, sig_len, prefix, prefix_len, msg,
                         msg_len);
}

int mc_mldsa_verify_internal(mc_mldsa_level level, const uint8_t *public_key, size_t public_key_len,
                             const uint8_t *sig, size_t sig_len, const uint8_t *formatted_msg,
                             size_t formatted_msg_len) {
  const mc_mldsa_params *p;
  MC_TRY(check_verify_args(&p, level, public_key, public_key_len, sig, sig_len, formatted_msg,
                           formatted_msg_len));
  return verify_internal(p, public_key, public_key_len, sig, sig_len, NULL, 0, formatted_msg,
                         formatted_msg_len);
}
