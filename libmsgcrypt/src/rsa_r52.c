// rsa_r52.c: the RSA public operation m^65537 mod n in radix 2^52, the form
// in which AVX-512 IFMA multiplies (rsa_r52_internal.h): the modulus's
// context (R^2 mod n, k0), the conversions from and to big-endian bytes,
// the exponentiation over a pluggable almost-Montgomery product, and that
// product in plain C, which is the specification of x86/rsa_ifma.c's. The
// product is operand scanning (one limb of b per step): add a·b_i, choose
// y so that the lowest limb becomes divisible by 2^52, add n·y, drop that
// limb; low halves of the 104-bit products go to a limb, high halves to the
// next one, and limbs are left unnormalised (64-bit words have room for
// 4·num steps of 52-bit additions) until the end. The vector kernel keeps
// the very same sums in its lanes, so the two agree bit for bit.
#include <errno.h>
#include <string.h>

#include <openssl/bn.h>

#include "aead_internal.h"
#include "rsa_r52_internal.h"

__extension__ typedef unsigned __int128 u128;

// lo52 and hi52 are what vpmadd52luq and vpmadd52huq add for 52-bit `a`
// and `b`: bits 0-51 and 52-103 of their product.
static inline uint64_t lo52(uint64_t a, uint64_t b) {
  return (uint64_t)((u128)a * b) & MC_R52_MASK;
}

static inline uint64_t hi52(uint64_t a, uint64_t b) {
  return (uint64_t)(((u128)a * b) >> 52);
}

// barrier64 hides `x`'s value from the optimiser, so that masks built from
// secrets stay arithmetic rather than becoming branches.
static inline uint64_t barrier64(uint64_t x) {
  __asm__("" : "+r"(x));
  return x;
}

void mc_r52_from_be(uint64_t *out, size_t num, const uint8_t *in, size_t len) {
  memset(out, 0, num * sizeof *out);
  for (size_t i = 0; i < len; i++) {
    uint64_t b = in[len - 1 - i];
    size_t bit = 8 * i, k = bit / 52, s = bit % 52;
    out[k] |= (b << s) & MC_R52_MASK;
    if (s > 44) // position only: the byte straddles two limbs
      out[k + 1] |= b >> (52 - s);
  }
}

void mc_r52_to_be(uint8_t *out, size_t len, const uint64_t *in, size_t num) {
  for (size_t i = 0; i < len; i++) {
    size_t bit = 8 * i, k = bit / 52, s = bit % 52;
    uint64_t v = in[k] >> s;
    if (s > 44 && k + 1 < num)
      v |= in[k + 1] << (52 - s);
    out[len - 1 - i] = (uint8_t)v;
  }
}

int mc_r52_mont_init(mc_r52_mont *m, const uint8_t *n, size_t n_len) {
  size_t num = mc_r52_limbs(n_len);
  m->num = num;
  mc_r52_from_be(m->n, num, n, n_len);
  // -n^-1 mod 2^52 by Newton's iteration: an odd n0 is its own inverse
  // mod 8, and each step doubles the correct bits (3, 6, ..., 96).
  uint64_t n0 = m->n[0], inv = n0;
  for (int i = 0; i < 5; i++)
    inv *= 2 - n0 * inv;
  m->k0 = (0 - inv) & MC_R52_MASK;
  // R^2 mod n with R = 2^(52·num): public, once per modulus.
  BN_CTX *ctx = BN_CTX_new();
  BIGNUM *bn = BN_bin2bn(n, n_len, NULL), *r = BN_new();
  uint8_t buf[MC_RSA_MAX_MODULUS_LEN];
  int ok = ctx != NULL && bn != NULL && r != NULL && BN_set_bit(r, (int)(2 * 52 * num)) &&
           BN_mod(r, r, bn, ctx) && BN_bn2bin_padded(buf, n_len, r);
  if (ok)
    mc_r52_from_be(m->rr, num, buf, n_len);
  BN_free(r);
  BN_free(bn);
  BN_CTX_free(ctx);
  return ok ? 0 : -ENOMEM;
}

void mc_r52_amm_scalar(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                       uint64_t k0, size_t num) {
  uint64_t acc[MC_R52_MAX_LIMBS];
  memset(acc, 0, num * sizeof *acc);
  for (size_t i = 0; i < num; i++) {
    uint64_t bi = b[i];
    for (size_t j = 0; j < num; j++)
      acc[j] += lo52(a[j], bi);
    uint64_t y = (acc[0] * k0) & MC_R52_MASK;
    for (size_t j = 0; j < num; j++)
      acc[j] += lo52(n[j], y);
    // The lowest limb is now 0 mod 2^52: keep its carry, drop the limb.
    uint64_t c = acc[0] >> 52;
    memmove(acc, acc + 1, (num - 1) * sizeof *acc);
    acc[num - 1] = 0;
    acc[0] += c;
    // The high halves belong one limb up, which after the drop is limb j.
    for (size_t j = 0; j < num; j++)
      acc[j] += hi52(a[j], bi) + hi52(n[j], y);
  }
  uint64_t c = 0;
  for (size_t j = 0; j < num; j++) {
    uint64_t v = acc[j] + c;
    r[j] = v & MC_R52_MASK;
    c = v >> 52;
  }
  mc_wipe(acc, num * sizeof *acc);
}

void mc_r52_f4(uint64_t *x, const mc_r52_mont *ctx, const uint64_t *m, mc_r52_amm_fn *amm) {
  size_t num = ctx->num;
  amm(x, m, ctx->rr, ctx->n, ctx->k0, num); // m·R
  for (int i = 0; i < 16; i++)
    amm(x, x, x, ctx->n, ctx->k0, num); // m^(2^(i+1))·R
  amm(x, x, m, ctx->n, ctx->k0, num);   // m^65537, below 2n
  // x - n, kept unless it borrows (then x was already below n).
  uint64_t d[MC_R52_MAX_LIMBS], borrow = 0;
  for (size_t j = 0; j < num; j++) {
    uint64_t v = x[j] - ctx->n[j] - borrow;
    borrow = v >> 63;
    d[j] = v & MC_R52_MASK;
  }
  uint64_t keep = barrier64(0 - borrow);
  for (size_t j = 0; j < num; j++)
    x[j] = (x[j] & keep) | (d[j] & ~keep);
  mc_wipe(d, num * sizeof *d);
}
