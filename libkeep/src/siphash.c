// siphash.c: SipHash-2-4, written from the definition in Aumasson and
// Bernstein, "SipHash: a fast short-input PRF" (2012), section 2. Keys hash
// to slots through it, keyed with the cluster secret, so that a client
// cannot aim many keys at one slot without knowing the secret.
#include "keep_internal.h"

static inline uint64_t rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                                                   \
  do {                                                                                             \
    v0 += v1;                                                                                      \
    v1 = rotl(v1, 13);                                                                             \
    v1 ^= v0;                                                                                      \
    v0 = rotl(v0, 32);                                                                             \
    v2 += v3;                                                                                      \
    v3 = rotl(v3, 16);                                                                             \
    v3 ^= v2;                                                                                      \
    v0 += v3;                                                                                      \
    v3 = rotl(v3, 21);                                                                             \
    v3 ^= v0;                                                                                      \
    v2 += v1;                                                                                      \
    v1 = rotl(v1, 17);                                                                             \
    v1 ^= v2;                                                                                      \
    v2 = rotl(v2, 32);                                                                             \
  } while (0)

uint64_t keep_siphash24(const uint8_t k[16], const uint8_t *in, size_t in_len) {
  uint64_t k0 = keep_get_le(k, 8), k1 = keep_get_le(k + 8, 8);
  // The initialisation constants spell "somepseudorandomlygeneratedbytes".
  uint64_t v0 = k0 ^ 0x736f6d6570736575ull;
  uint64_t v1 = k1 ^ 0x646f72616e646f6dull;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ull;
  uint64_t v3 = k1 ^ 0x7465646279746573ull;
  size_t whole = in_len - in_len % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m = keep_get_le(in + i, 8);
    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
  }
  // The last word carries the length's low byte in its top byte.
  uint64_t b = (uint64_t)in_len << 56;
  for (size_t i = 0; i < in_len % 8; i++)
    b |= (uint64_t)in[whole + i] << (8 * i);
  v3 ^= b;
  SIPROUND;
  SIPROUND;
  v0 ^= b;
  v2 ^= 0xff;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}
