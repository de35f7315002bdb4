// rng.c: the corpus' only source of randomness, xoshiro256** seeded through
// splitmix64. Each (seed, stream, index) triple gets its own generator, so a
// message's bytes depend on the seed and its position and nothing else: not
// the time, the process, the locale or the C library's rand().
#include <string.h>

#include "mkcorpus_internal.h"

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

void mkc_rng_seed(struct mkc_rng *r, uint64_t seed, uint64_t stream, uint64_t index) {
  // Mixing the three inputs through splitmix64 one after another keeps
  // neighbouring indexes from giving correlated generators.
  uint64_t state = seed;
  uint64_t mixed = splitmix64(&state);
  state = mixed ^ (stream * 0xD1B54A32D192ED03u);
  mixed = splitmix64(&state);
  state = mixed ^ (index * 0x8CB92BA72F3D8DD7u);
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&state);
}

uint64_t mkc_rng_next(struct mkc_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t mkc_rng_below(struct mkc_rng *r, uint64_t n) {
  if (n <= 1)
    return 0;
  // Rejecting the incomplete last block removes the modulo bias.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do
    x = mkc_rng_next(r);
  while (x >= limit);
  return x % n;
}

int mkc_rng_between(struct mkc_rng *r, int lo, int hi) {
  return lo + (int)mkc_rng_below(r, (uint64_t)(hi - lo) + 1);
}

void mkc_rng_ints(struct mkc_rng *r, int *out, size_t n, const int *bounds) {
  for (size_t i = 0; i < n; i++)
    out[i] = mkc_rng_between(r, bounds[2 * i], bounds[2 * i + 1]);
}

double mkc_rng_unit(struct mkc_rng *r) {
  return (double)(mkc_rng_next(r) >> 11) * 0x1.0p-53;
}

bool mkc_rng_chance(struct mkc_rng *r, double p) {
  return mkc_rng_unit(r) < p;
}

size_t mkc_rng_pick(struct mkc_rng *r, const unsigned *weights, size_t n) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += weights[i];
  uint64_t x = mkc_rng_below(r, total);
  for (size_t i = 0; i < n; i++) {
    if (x < weights[i])
      return i;
    x -= weights[i];
  }
  return n - 1;
}

void mkc_rng_fill(struct mkc_rng *r, void *out, size_t len) {
  unsigned char *p = out;
  while (len >= 8) {
    uint64_t x = mkc_rng_next(r);
    // Byte by byte, not memcpy, so the output is the same on big-endian hosts.
    for (int i = 0; i < 8; i++)
      p[i] = (unsigned char)(x >> (8 * i));
    p += 8;
    len -= 8;
  }
  uint64_t x = mkc_rng_next(r);
  for (size_t i = 0; i < len; i++)
    p[i] = (unsigned char)(x >> (8 * i));
}

void mkc_rng_hex(struct mkc_rng *r, char *out, size_t digits, bool upper) {
  const char *alphabet = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  for (size_t i = 0; i < digits; i++)
    out[i] = alphabet[mkc_rng_below(r, 16)];
  out[digits] = '\0';
}

void mkc_rng_alnum(struct mkc_rng *r, char *out, size_t len) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (size_t i = 0; i < len; i++)
    out[i] = alphabet[mkc_rng_below(r, sizeof alphabet - 1)];
  out[len] = '\0';
}
