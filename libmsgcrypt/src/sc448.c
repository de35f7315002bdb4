// sc448.c: arithmetic on Ed448 scalars modulo L, the 446-bit prime order of
// the base point (RFC 8032 §5.2): reduction of the 114-byte SHAKE256 outputs
// and the multiply-add S = (r + k * s) mod L of signing. It uses Montgomery
// multiplication with R = 2^448 on seven 64-bit words; every loop has a fixed
// trip count and the final subtractions select by mask, so the time does not
// depend on the secret nonce r or secret scalar s.
#include <string.h>

#include "curve448_internal.h"

// __extension__: -Wpedantic otherwise objects to the GCC/Clang 128-bit type.
__extension__ typedef unsigned __int128 u128;

#define NW 7

// L and the Montgomery constants, as 64-bit words, least significant first:
// R2 = 2^896 mod L, R3 = 2^1344 mod L, LP = -L^-1 mod 2^64.
static const uint64_t L_WORDS[NW] = {
    0x2378c292ab5844f3ull, 0x216cc2728dc58f55ull, 0xc44edb49aed63690ull, 0xffffffff7cca23e9ull,
    0xffffffffffffffffull, 0xffffffffffffffffull, 0x3fffffffffffffffull,
};
static const uint64_t R2_WORDS[NW] = {
    0xe3539257049b9b60ull, 0x7af32c4bc1b195d9ull, 0x0d66de2388ea1859ull, 0xae17cf725ee4d838ull,
    0x1a9cc14ba3c47c44ull, 0x2052bcb7e4d070afull, 0x3402a939f823b729ull,
};
static const uint64_t R3_WORDS[NW] = {
    0x62db79e25f9b74edull, 0x32d533584f61d636ull, 0x3e0d0c8b5fa74964ull, 0x178769ed878dfcdaull,
    0xe4c71af86754b842ull, 0xed66e7f42bab736dull, 0x0d30a4f69d3af5f1ull,
};
static const uint64_t LP = 0x03bd440fae918bc5ull;

// sub_l_if_ge sets r = t - L if t >= L, else r = t, for t < 2L held in
// NW + 1 words.
static void sub_l_if_ge(uint64_t r[NW], const uint64_t t[NW + 1]) {
  uint64_t d[NW], borrow = 0;
  for (int i = 0; i < NW; i++) {
    u128 x = (u128)t[i] - L_WORDS[i] - borrow;
    d[i] = (uint64_t)x;
    borrow = (uint64_t)(x >> 64) & 1;
  }
  // t >= L exactly when the borrow out of the low words is covered by t's top
  // word.
  u128 top = (u128)t[NW] - borrow;
  uint64_t keep_t = 0 - ((uint64_t)(top >> 64) & 1); // all-ones when t < L
  for (int i = 0; i < NW; i++)
    r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

// montmul sets r = a * b * 2^-448 mod L, for a * b < L * 2^448 (a < 2^448,
// b < L), by word-serial Montgomery multiplication.
static void montmul(uint64_t r[NW], const uint64_t a[NW], const uint64_t b[NW]) {
  uint64_t t[NW + 2] = {0};
  for (int i = 0; i < NW; i++) {
    u128 c = 0;
    for (int j = 0; j < NW; j++) {
      c += (u128)a[j] * b[i] + t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
    c += t[NW];
    t[NW] = (uint64_t)c;
    t[NW + 1] = (uint64_t)(c >> 64);

    uint64_t m = t[0] * LP;
    c = (u128)m * L_WORDS[0] + t[0];
    c >>= 64;
    for (int j = 1; j < NW; j++) {
      c += (u128)m * L_WORDS[j] + t[j];
      t[j - 1] = (uint64_t)c;
      c >>= 64;
    }
    c += t[NW];
    t[NW - 1] = (uint64_t)c;
    c >>= 64;
    t[NW] = t[NW + 1] + (uint64_t)c;
  }
  sub_l_if_ge(r, t);
}

static void words_from_bytes(uint64_t *w, size_t nw, const uint8_t *in, size_t in_len) {
  memset(w, 0, nw * sizeof *w);
  for (size_t i = 0; i < in_len; i++)
    w[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
}

static void words_to_bytes(uint8_t out[56], const uint64_t w[NW]) {
  for (int i = 0; i < NW; i++)
    mc_store_le64(out + 8 * i, w[i]);
}

// The input of at most 114 bytes (912 bits) fits in 15 words; fourteen
// Montgomery reduction steps divide it by 2^896 modulo L, leaving a value
// below 2^16 + L < 2L in words 14..20. Multiplying by R3 in Montgomery form
// then restores the factor: x * 2^-896 * 2^1344 * 2^-448 = x.
void mc_sc448_reduce(uint8_t out[56], const uint8_t *in, size_t in_len) {
  enum { TW = 2 * NW + NW + 1 }; // 22 words: the input plus every carry
  uint64_t t[TW], r[NW], x[NW + 1];
  if (in_len > 114)
    in_len = 114;
  words_from_bytes(t, TW, in, in_len);
  for (int i = 0; i < 2 * NW; i++) {
    uint64_t m = t[i] * LP;
    u128 c = 0;
    for (int j = 0; j < NW; j++) {
      c += (u128)m * L_WORDS[j] + t[i + j];
      t[i + j] = (uint64_t)c;
      c >>= 64;
    }
    for (int j = i + NW; j < TW; j++) {
      c += t[j];
      t[j] = (uint64_t)c;
      c >>= 64;
    }
  }
  memcpy(x, t + 2 * NW, sizeof x);
  sub_l_if_ge(r, x);
  montmul(r, r, R3_WORDS);
  words_to_bytes(out, r);
  mc_wipe(t, sizeof t);
  mc_wipe(r, sizeof r);
  mc_wipe(x, sizeof x);
}

void mc_sc448_muladd(uint8_t out[56], const uint8_t a[56], const uint8_t b[56],
                     const uint8_t c[56]) {
  uint64_t aw[NW], bw[NW], cw[NW], t[NW + 1];
  words_from_bytes(aw, NW, a, 56);
  words_from_bytes(bw, NW, b, 56);
  words_from_bytes(cw, NW, c, 56);
  montmul(aw, aw, bw);       // a * b / R
  montmul(aw, aw, R2_WORDS); // a * b
  u128 carry = 0;
  for (int i = 0; i < NW; i++) {
    carry += (u128)aw[i] + cw[i];
    t[i] = (uint64_t)carry;
    carry >>= 64;
  }
  t[NW] = (uint64_t)carry;
  sub_l_if_ge(aw, t);
  words_to_bytes(out, aw);
  mc_wipe(aw, sizeof aw);
  mc_wipe(bw, sizeof bw);
  mc_wipe(cw, sizeof cw);
  mc_wipe(t, sizeof t);
}

int mc_sc448_is_canonical(const uint8_t s[57]) {
  uint8_t l_bytes[56];
  if (s[56] != 0)
    return 0;
  words_to_bytes(l_bytes, L_WORDS);
  for (int i = 55; i >= 0; i--) {
    if (s[i] != l_bytes[i])
      return s[i] < l_bytes[i];
  }
  return 0; // s == L
}
