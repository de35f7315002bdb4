// x25519_ladder.h: montgomery_ladder.h instantiated for X25519, for the two
// files whose field operations share their names (x25519.c on 51-bit limbs,
// x86/x25519_adx.c on 64-bit limbs): fe_add, fe_sub, fe_mul, fe_sqr,
// fe_mul_small, fe_cswap, fe_invert and fe_tobytes over the type the
// includer names X25519_FE. Defines `static void ladder(uint8_t *out, const
// uint8_t *k, const X25519_FE *x1)`.

#ifndef X25519_FE
#error "define X25519_FE and the fe_* operations before including x25519_ladder.h"
#endif

static void fe_set_small(X25519_FE *r, uint64_t a) {
  memset(r, 0, sizeof *r);
  r->v[0] = a;
}

#define LADDER_NAME ladder
#define LADDER_FE X25519_FE
#define LADDER_BITS 255
#define LADDER_A24 121665 // (486662 - 2) / 4
#define LADDER_ADD fe_add
#define LADDER_SUB fe_sub
#define LADDER_MUL fe_mul
#define LADDER_SQR fe_sqr
#define LADDER_MUL_SMALL fe_mul_small
#define LADDER_CSWAP fe_cswap
#define LADDER_INVERT fe_invert
#define LADDER_TOBYTES fe_tobytes
#define LADDER_SET_ONE(r) fe_set_small(r, 1)
#define LADDER_SET_ZERO(r) fe_set_small(r, 0)
#include "montgomery_ladder.h"

#undef X25519_FE
