// curve448_internal.h: the private building blocks of X448 and Ed448 shared by
// f448.c (the field), sc448.c (scalars modulo the group order), ed448_point.c
// (the edwards448 group), x448.c, ed448.c and their tests and fuzzers. Never
// installed. Every function here runs in time independent of secret data
// unless its comment says it handles public data only.
#ifndef MC_CURVE448_INTERNAL_H
#define MC_CURVE448_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt_internal.h"

// The field GF(p), p = 2^448 - 2^224 - 1 (RFC 7748 §4.2).
//
// An element is eight 56-bit limbs, v[0] least significant, whose value is
// taken modulo p. Functions accept limbs below 2^58 (the second operand of a
// subtraction below 2^57) and return limbs below 2^57, not necessarily the
// canonical representative; mc_f448_tobytes gives the canonical encoding.
// The exceptions are the *_loose functions, which skip the carry pass:
// mc_f448_add_loose returns limbs below 2^58 for operands below 2^57, and
// mc_f448_sub_loose limbs below 2^59 for a first operand below 2^58 and a
// second below 2^57. Their results may only feed mc_f448_mul, mc_f448_sqr and
// mc_f448_mul_small (which accept limbs below 2^59) or be the first operand
// of a subtraction (below 2^59 for mc_f448_sub, 2^58 for mc_f448_sub_loose).
typedef struct {
  uint64_t v[8];
} mc_f448;

void mc_f448_set_u32(mc_f448 *r, uint32_t a);
// mc_f448_frombytes reads 56 little-endian bytes as an integer below 2^448
// (values >= p are accepted and stand for their residue, as RFC 7748 §5
// requires of u-coordinates).
void mc_f448_frombytes(mc_f448 *r, const uint8_t in[56]);
// mc_f448_tobytes writes the canonical (fully reduced) little-endian encoding.
void mc_f448_tobytes(uint8_t out[56], const mc_f448 *a);
void mc_f448_add(mc_f448 *r, const mc_f448 *a, const mc_f448 *b);
void mc_f448_sub(mc_f448 *r, const mc_f448 *a, const mc_f448 *b);
void mc_f448_add_loose(mc_f448 *r, const mc_f448 *a, const mc_f448 *b);
void mc_f448_sub_loose(mc_f448 *r, const mc_f448 *a, const mc_f448 *b);
void mc_f448_neg(mc_f448 *r, const mc_f448 *a);
void mc_f448_mul(mc_f448 *r, const mc_f448 *a, const mc_f448 *b);
void mc_f448_sqr(mc_f448 *r, const mc_f448 *a);
// mc_f448_mul_small multiplies by `b` < 2^20 (the curve constants 39081 and
// a24 = 39081).
void mc_f448_mul_small(mc_f448 *r, const mc_f448 *a, uint32_t b);
// mc_f448_inv sets r = a^(p-2), the inverse of a (0 for a = 0).
void mc_f448_inv(mc_f448 *r, const mc_f448 *a);
// mc_f448_pow_p34 sets r = a^((p-3)/4), the core of square roots (RFC 8032
// §5.2.3).
void mc_f448_pow_p34(mc_f448 *r, const mc_f448 *a);
// mc_f448_is_zero returns all-ones when a ≡ 0 (mod p), else 0.
uint64_t mc_f448_is_zero(const mc_f448 *a);
// mc_f448_is_negative returns the low bit of the canonical value (the "sign"
// of x in RFC 8032 point encodings).
uint64_t mc_f448_is_negative(const mc_f448 *a);
// mc_f448_cswap swaps a and b when mask is all-ones, leaves them when it is 0.
void mc_f448_cswap(mc_f448 *a, mc_f448 *b, uint64_t mask);
// mc_f448_cmov sets r = a when mask is all-ones, leaves r when it is 0.
void mc_f448_cmov(mc_f448 *r, const mc_f448 *a, uint64_t mask);

// Scalars modulo L, the prime order of the edwards448 base point
// (RFC 8032 §5.2: L = 2^446 -
// 13818066809895115352007386748515426880336692474882178609894547503885). Scalars travel as 56-byte
// little-endian strings (L < 2^446).

// mc_sc448_reduce sets out = in mod L for a little-endian `in` of at most 114
// bytes (the SHAKE256 outputs of RFC 8032 §5.2.6).
void mc_sc448_reduce(uint8_t out[56], const uint8_t *in, size_t in_len);
// mc_sc448_muladd sets out = (a * b + c) mod L for a, b, c < L.
void mc_sc448_muladd(uint8_t out[56], const uint8_t a[56], const uint8_t b[56],
                     const uint8_t c[56]);
// mc_sc448_is_canonical returns 1 when the 57-byte little-endian `s` is below
// L, else 0 (RFC 8032 §5.2.7). Public data only: it may branch.
int mc_sc448_is_canonical(const uint8_t s[57]);

// The edwards448 group (RFC 8032 §5.2: x^2 + y^2 = 1 + d x^2 y^2 with
// d = -39081) in extended coordinates: x = X/Z, y = Y/Z, x*y = T/Z.
typedef struct {
  mc_f448 x, y, z, t;
} mc_ed448_point;

void mc_ed448_point_identity(mc_ed448_point *p);
void mc_ed448_point_add(mc_ed448_point *r, const mc_ed448_point *p, const mc_ed448_point *q);
void mc_ed448_point_double(mc_ed448_point *r, const mc_ed448_point *p);
void mc_ed448_point_neg(mc_ed448_point *r, const mc_ed448_point *p);
// mc_ed448_point_encode writes the 57-byte encoding of RFC 8032 §5.2.2.
void mc_ed448_point_encode(uint8_t out[57], const mc_ed448_point *p);
// mc_ed448_point_decode parses a 57-byte encoding strictly (RFC 8032 §5.2.3:
// y < p, unused bits zero, x recoverable, no "negative zero" x) and returns
// 0, or -1 when `in` encodes no point. Public data only.
int mc_ed448_point_decode(mc_ed448_point *p, const uint8_t in[57]);
// mc_ed448_point_equal returns 1 when p and q are the same point, else 0.
int mc_ed448_point_equal(const mc_ed448_point *p, const mc_ed448_point *q);
// mc_ed448_point_montgomery_u writes u = (y/x)^2, the image of p on curve448
// under the 4-isogeny of RFC 7748 §4.2 (0 for x = 0). It maps [k]B to the
// X448 public key of k, because the base point B maps to u = 5.
void mc_ed448_point_montgomery_u(uint8_t out[56], const mc_ed448_point *p);
// mc_ed448_scalarmult_base sets r = [k]B for a 56-byte little-endian k below
// 2^446, through a table of multiples of B built once per process.
void mc_ed448_scalarmult_base(mc_ed448_point *r, const uint8_t k[56]);
// mc_ed448_scalarmult sets r = [k]p for a 56-byte little-endian k below 2^446
// with a signed 4-bit window; constant-time in k and p.
void mc_ed448_scalarmult(mc_ed448_point *r, const mc_ed448_point *p, const uint8_t k[56]);
// mc_ed448_double_scalarmult_vartime sets r = [a]p + [b]B for 56-byte
// little-endian a, b below 2^446, sharing the doublings and using width-5
// and width-7 NAFs. Public data only: its time depends on a, b and p.
void mc_ed448_double_scalarmult_vartime(mc_ed448_point *r, const uint8_t a[56],
                                        const mc_ed448_point *p, const uint8_t b[56]);

// mc_x448_scalarmult computes X448(k, u) with the Montgomery ladder of RFC
// 7748 §5, clamping k and reducing u as that section prescribes. It performs
// no zero check.
void mc_x448_scalarmult(uint8_t out[56], const uint8_t k[56], const uint8_t u[56]);

// mc_ed448_expand_key derives, from a 57-byte Ed448 private key, the reduced
// secret scalar s mod L (56 bytes), the nonce prefix (57 bytes) and the
// public key A (57 bytes), per RFC 8032 §5.2.5.
void mc_ed448_expand_key(uint8_t s[56], uint8_t prefix[57], uint8_t public_key[57],
                         const uint8_t private_key[57]);

#endif // MC_CURVE448_INTERNAL_H
