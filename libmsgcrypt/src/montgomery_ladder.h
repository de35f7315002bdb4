// montgomery_ladder.h: the Montgomery ladder of RFC 7748 §5, written once
// for libmsgcrypt's three field implementations: X25519 on 51-bit limbs
// (x25519.c), X25519 on 64-bit limbs with ADX (x86/x25519_adx.c) and X448
// (x448.c). Included once per field, after the includer defines:
//
//   LADDER_NAME        the static function to define:
//                      void LADDER_NAME(uint8_t *out, const uint8_t *k,
//                                       const LADDER_FE *x1)
//                      k: the clamped scalar, little-endian; x1: the decoded
//                      u-coordinate; out: the encoded result
//   LADDER_FE          the field element type
//   LADDER_BITS        how many scalar bits the ladder walks (255, 448)
//   LADDER_A24         (A - 2) / 4 of the curve
//   LADDER_ADD, LADDER_SUB, LADDER_MUL, LADDER_SQR (r, a[, b])
//   LADDER_MUL_SMALL   (r, a, small constant)
//   LADDER_CSWAP       (a, b, mask): swap when mask is all ones, in constant time
//   LADDER_INVERT      (r, a)
//   LADDER_TOBYTES     (out, a)
//   LADDER_SET_ONE, LADDER_SET_ZERO (r)
//
// The scalar's bits only choose masks for LADDER_CSWAP, never a branch or an
// address. Every temporary is wiped before return. The macros are undefined
// at the end, so a file can include this header once.

#ifndef LADDER_NAME
#error "define LADDER_NAME and the field operations before including montgomery_ladder.h"
#endif

static void LADDER_NAME(uint8_t *out, const uint8_t *k, const LADDER_FE *x1) {
  struct {
    LADDER_FE x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t;
  } v;
  LADDER_SET_ONE(&v.x2);
  LADDER_SET_ZERO(&v.z2);
  v.x3 = *x1;
  LADDER_SET_ONE(&v.z3);
  uint64_t swap = 0;
  for (int i = LADDER_BITS - 1; i >= 0; i--) {
    uint64_t bit = (k[i >> 3] >> (i & 7)) & 1;
    swap ^= bit;
    LADDER_CSWAP(&v.x2, &v.x3, 0 - swap);
    LADDER_CSWAP(&v.z2, &v.z3, 0 - swap);
    swap = bit;
    LADDER_ADD(&v.a, &v.x2, &v.z2);
    LADDER_SUB(&v.b, &v.x2, &v.z2);
    LADDER_ADD(&v.c, &v.x3, &v.z3);
    LADDER_SUB(&v.d, &v.x3, &v.z3);
    LADDER_SQR(&v.aa, &v.a);
    LADDER_SQR(&v.bb, &v.b);
    LADDER_MUL(&v.da, &v.d, &v.a);
    LADDER_MUL(&v.cb, &v.c, &v.b);
    LADDER_SUB(&v.e, &v.aa, &v.bb);
    LADDER_ADD(&v.t, &v.da, &v.cb);
    LADDER_SQR(&v.x3, &v.t);
    LADDER_SUB(&v.t, &v.da, &v.cb);
    LADDER_SQR(&v.t, &v.t);
    LADDER_MUL(&v.z3, x1, &v.t);
    LADDER_MUL(&v.x2, &v.aa, &v.bb);
    LADDER_MUL_SMALL(&v.t, &v.e, LADDER_A24);
    LADDER_ADD(&v.t, &v.aa, &v.t);
    LADDER_MUL(&v.z2, &v.e, &v.t);
  }
  LADDER_CSWAP(&v.x2, &v.x3, 0 - swap);
  LADDER_CSWAP(&v.z2, &v.z3, 0 - swap);
  LADDER_INVERT(&v.z2, &v.z2);
  LADDER_MUL(&v.x2, &v.x2, &v.z2);
  LADDER_TOBYTES(out, &v.x2);
  mc_wipe(&v, sizeof v);
}

#undef LADDER_NAME
#undef LADDER_FE
#undef LADDER_BITS
#undef LADDER_A24
#undef LADDER_ADD
#undef LADDER_SUB
#undef LADDER_MUL
#undef LADDER_SQR
#undef LADDER_MUL_SMALL
#undef LADDER_CSWAP
#undef LADDER_INVERT
#undef LADDER_TOBYTES
#undef LADDER_SET_ONE
#undef LADDER_SET_ZERO
