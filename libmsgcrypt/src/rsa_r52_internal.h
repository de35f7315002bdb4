// rsa_r52_internal.h: RSA public-operation arithmetic in radix 2^52
// (rsa_r52.c, x86/rsa_ifma.c), private, never installed. A number below the
// modulus n is `num` little-endian limbs of 52 bits each in uint64_t words,
// `num` a multiple of 8 (one 512-bit vector holds 8 limbs) with
// R = 2^(52·num) >= 4n, so that almost-Montgomery products of factors below
// 2n stay below 2n and need no subtraction until the very end. The AVX-512
// IFMA instructions (vpmadd52luq/vpmadd52huq) multiply 52-bit lanes, which is
// why this radix; rsa_r52.c's plain C products are the specification the
// IFMA kernel is tested against, bit for bit.
#ifndef MC_RSA_R52_INTERNAL_H
#define MC_RSA_R52_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt.h"

#define MC_R52_MASK ((UINT64_C(1) << 52) - 1)

// MC_R52_MAX_LIMBS: limbs for MC_RSA_MAX_MODULUS_BITS plus the two bits of
// headroom that R >= 4n needs, rounded up to a multiple of 8.
#define MC_R52_MAX_LIMBS ((((MC_RSA_MAX_MODULUS_BITS + 2 + 51) / 52) + 7) / 8 * 8)

// mc_r52_mont is the Montgomery context of one modulus in radix 2^52, all
// public: the modulus, R^2 mod n and k0 = -n^-1 mod 2^52. Arrays hold `num`
// limbs and are 64-byte aligned for the vector loads.
typedef struct {
  _Alignas(64) uint64_t n[MC_R52_MAX_LIMBS];
  _Alignas(64) uint64_t rr[MC_R52_MAX_LIMBS];
  uint64_t k0;
  size_t num;
} mc_r52_mont;

// mc_r52_amm_fn computes r = a·b·R^-1 mod n, almost: the result is below 2n
// when `a` and `b` are (and R >= 4n), in 52-bit limbs; `num` limbs each,
// `n` odd, `k0` = -n^-1 mod 2^52. `r` may equal `a` or `b`. The time and
// memory accesses depend on `num` only.
typedef void mc_r52_amm_fn(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n,
                           uint64_t k0, size_t num);

// mc_r52_amm_scalar is mc_r52_amm_fn in plain C (rsa_r52.c): the
// reference, and what runs under Valgrind in ct_rsa.
mc_r52_amm_fn mc_r52_amm_scalar;

// mc_r52_amm_ifma is mc_r52_amm_fn on AVX-512 F and IFMA (x86/rsa_ifma.c,
// built only with MC_HAVE_IFMA); call it only when corvid_cpu.h reports
// CORVID_CPU_AVX512IFMA.
mc_r52_amm_fn mc_r52_amm_ifma;

// mc_r52_limbs returns the number of limbs for an `n_len`-byte modulus: at
// least 8·len + 2 bits, a multiple of 8, and between 40 and 160 limbs the
// next count x86/rsa_ifma.c has an unrolled copy for (40, 64, 80, 120,
// 160), which is faster than its generic loop even with the extra limbs.
static inline size_t mc_r52_limbs(size_t n_len) {
  static const size_t unrolled[] = {40, 64, 80, 120, 160};
  size_t num = ((n_len * 8 + 2 + 51) / 52 + 7) / 8 * 8;
  for (size_t i = 0; i < sizeof unrolled / sizeof unrolled[0]; i++)
    if (num <= unrolled[i])
      return num < 40 ? num : unrolled[i];
  return num;
}

// mc_r52_mont_init fills `m` for the `n_len`-byte big-endian odd modulus
// `n` (pkenc.c's checks already made), computing R^2 mod n with BoringSSL's
// BN functions on public data. It returns 0 or -ENOMEM.
MC_WARN_UNUSED_RESULT int mc_r52_mont_init(mc_r52_mont *m, const uint8_t *n, size_t n_len);

// mc_r52_from_be reads the `len`-byte big-endian `in` into `num` limbs
// (52·num >= 8·len); the index and shift of each byte depend on its
// position only, never on its value.
void mc_r52_from_be(uint64_t *out, size_t num, const uint8_t *in, size_t len);

// mc_r52_to_be writes the low `len` bytes of the `num` normalised limbs
// `in` big-endian, with position-only indexes likewise.
void mc_r52_to_be(uint8_t *out, size_t len, const uint64_t *in, size_t num);

// mc_r52_f4 computes `x` = `m`^65537 mod n, fully reduced, for `m` below n
// (both `ctx->num` normalised limbs), with the products of `amm`: into the
// domain with R^2, sixteen squarings, a product with the plain `m` that
// leaves it, and a subtraction of n chosen by mask. Constant time in `m`.
void mc_r52_f4(uint64_t *x, const mc_r52_mont *ctx, const uint64_t *m, mc_r52_amm_fn *amm);

#endif // MC_RSA_R52_INTERNAL_H
