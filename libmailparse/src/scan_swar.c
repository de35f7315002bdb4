// scan_swar.c: the SWAR scanner (SIMD within a register): the shared
// algorithms of scan_kernels.h on eight 64-bit words per block, for CPUs
// without a vector unit the table knows. Byte equality uses the exact
// zero-byte test (no false positives from borrows), and the eight flag bits
// of a word are gathered into one byte with a multiply.
#include "scan_kernels.h"

#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

static inline uint64_t load_word(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w); // byte 0 of the block must be the low byte
#endif
  return w;
}

// gather moves the high bit of each byte of `w` (others clear) into bits
// 0..7 of the result, byte 0 to bit 0.
static inline uint64_t gather(uint64_t w) {
  return ((w >> 7) * 0x0102040810204080u) >> 56;
}

static inline uint64_t swar_eq(const uint8_t *p, uint8_t c) {
  uint64_t m = 0;
  for (unsigned i = 0; i < 8; i++) {
    uint64_t x = load_word(p + 8 * i) ^ (ONES * c);
    // High bit set exactly in the zero bytes of x.
    uint64_t z = ~(((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
    m |= gather(z) << (8 * i);
  }
  return m;
}

// swar_odd marks the bytes that are NUL or have the high bit set.
static inline uint64_t swar_odd(const uint8_t *p) {
  uint64_t m = 0;
  for (unsigned i = 0; i < 8; i++) {
    uint64_t x = load_word(p + 8 * i);
    uint64_t z = ~(((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
    m |= gather(z | (x & HIGHS)) << (8 * i);
  }
  return m;
}

static bool swar_utf8_valid(const uint8_t *buf, size_t len) {
  return mp_k_utf8_valid(buf, len, swar_odd);
}

MP_SCANNER_DEFINE(swar, 0, swar_eq, swar_odd, swar_utf8_valid);
