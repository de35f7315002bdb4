// sbcs_avx512.h: the single-byte charset decoder's block loop with AVX-512
// (F and BW only, so that Skylake-X runs it too), for the avx512 kernel
// (x86/avx512.c). Latin text sent as Latin-1 or Windows-1252 has an 8-bit
// byte every few dozen bytes: a 64-byte block of it is one load and one
// mask test, and its few 8-bit bytes are looked up one by one, each ASCII
// gap before them stored with one 64-byte load and store. Private,
// header-only; charset.c's portable loop (sbcs_run) is the specification.
#ifndef MP_SBCS_AVX512_H
#define MP_SBCS_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "charset_internal.h"

// MP_SBCS_KEEP4(h): the bytes of four 16-bit words (UTF-8 in memory order:
// the first byte low) that hold output, when bit i of `h` says word i is a
// 2-byte character and the others are ASCII (their high byte is zero);
// PEXT by it packs the words' output together.
#define MP_SBCS_KEEP4(h)                                                                           \
  (0x00FF00FF00FF00FFull | ((h)&1 ? 0xFF00ull : 0) | ((h)&2 ? 0xFF000000ull : 0) |                 \
   ((h)&4 ? 0xFF0000000000ull : 0) | ((h)&8 ? 0xFF00000000000000ull : 0))
static const uint64_t mp_sbcs_keep4[16] = {
    MP_SBCS_KEEP4(0),  MP_SBCS_KEEP4(1),  MP_SBCS_KEEP4(2),  MP_SBCS_KEEP4(3),
    MP_SBCS_KEEP4(4),  MP_SBCS_KEEP4(5),  MP_SBCS_KEEP4(6),  MP_SBCS_KEEP4(7),
    MP_SBCS_KEEP4(8),  MP_SBCS_KEEP4(9),  MP_SBCS_KEEP4(10), MP_SBCS_KEEP4(11),
    MP_SBCS_KEEP4(12), MP_SBCS_KEEP4(13), MP_SBCS_KEEP4(14), MP_SBCS_KEEP4(15),
};
#undef MP_SBCS_KEEP4

// mp_sbcs_tab_avx512 loads the first two UTF-8 bytes of the table's entries
// for bytes 0x80-0xFF as 16-bit words, 32 to a register, for VPERMT2W.
static inline void mp_sbcs_tab_avx512(__m512i tab[4], const uint32_t *u8) {
  for (int k = 0; k < 4; k++) {
    __m256i lo = _mm512_cvtepi32_epi16(_mm512_loadu_si512((const void *)(u8 + 0x80 + 32 * k)));
    __m256i hi = _mm512_cvtepi32_epi16(_mm512_loadu_si512((const void *)(u8 + 0x80 + 32 * k + 16)));
    tab[k] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
}

// mp_sbcs_words_avx512 turns 32 bytes (zero-extended to words in `x`, the
// 8-bit ones marked in `high`) into their UTF-8 as words: ASCII stays, an
// 8-bit byte takes its table entry's first two bytes. It returns false when
// an 8-bit byte's entry is not a 2-byte character (a Windows-1252 0x80-0x9F
// special, U+FFFD for an unmapped byte): the block then goes by lookup.
static inline bool mp_sbcs_words_avx512(__m512i *out, __m512i x, uint32_t high,
                                        const __m512i tab[4]) {
  __m512i r01 = _mm512_permutex2var_epi16(tab[0], x, tab[1]);
  __m512i r23 = _mm512_permutex2var_epi16(tab[2], x, tab[3]);
  __m512i r = _mm512_mask_blend_epi16(_mm512_test_epi16_mask(x, _mm512_set1_epi16(0x40)), r01, r23);
  uint32_t two = _mm512_cmpeq_epi16_mask(_mm512_and_si512(r, _mm512_set1_epi16(0xE0)),
                                         _mm512_set1_epi16(0xC0));
  *out = _mm512_mask_mov_epi16(x, high, r);
  return (high & ~two) == 0;
}

// mp_sbcs_blocks_avx512 implements mp_scanner.sbcs_blocks: 64-byte blocks
// while 128 bytes are left (a gap's 64-byte load may start anywhere in the
// block). A block of ASCII is one store. One with a few 8-bit bytes (Latin
// text) has them looked up and its ASCII gaps stored 64 bytes at a time
// (about 11 instructions per 8-bit byte). From MP_SBCS_EXPAND of them on
// (text in another script, Big5 sent as Latin-1), when they all map to
// 2-byte characters (U+0080-U+07FF: Latin-1 in every Latin table, Greek,
// Cyrillic, Hebrew, Arabic), the block goes to UTF-8 as words: the 8-bit
// bytes looked up 32 at a time in the table's entries held in four registers
// (VPERMT2W, AVX-512 BW), then every four words packed by PEXT with a mask
// of their output bytes, for about 110 instructions a block. Otherwise up
// to 32 of them take the gap stores and more are looked up byte by byte.
// Each store starts at most 3 times the input consumed before it into the
// output and is at most 64 bytes long, so the stores end inside
// 3 * (i + 64) + 64 <= 3 * n.
#ifndef MP_SBCS_EXPAND
#define MP_SBCS_EXPAND 8
#endif
static inline size_t mp_sbcs_blocks_avx512(uint8_t *o, size_t *out_len, unsigned *bad,
                                           const uint32_t *u8, const uint8_t *lens,
                                           const uint8_t *in, size_t n) {
  size_t i = 0, w = *out_len;
  unsigned acc = 0; // in a register, not through *bad
  __m512i tab[4];
  bool have_tab = false; // loaded on the first block that needs them
  for (; n - i >= 128; i += 64) {
    __m512i v = _mm512_loadu_si512((const void *)(in + i));
    uint64_t m = _mm512_movepi8_mask(v);
    if (m == 0) {
      _mm512_storeu_si512((void *)(o + w), v);
      w += 64;
      continue;
    }
    int k = __builtin_popcountll(m);
    if (k >= MP_SBCS_EXPAND) {
      if (!have_tab) {
        mp_sbcs_tab_avx512(tab, u8);
        have_tab = true;
      }
      __m512i wa, wb;
      bool ok = mp_sbcs_words_avx512(&wa, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)),
                                     (uint32_t)m, tab);
      ok &= mp_sbcs_words_avx512(&wb, _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(v, 1)),
                                 (uint32_t)(m >> 32), tab);
      if (ok) {
        uint64_t g[16];
        _mm512_storeu_si512((void *)g, wa);
        _mm512_storeu_si512((void *)(g + 8), wb);
        for (int j = 0; j < 16; j++) {
          unsigned h = (unsigned)(m >> (4 * j)) & 15u;
          uint64_t packed = _pext_u64(g[j], mp_sbcs_keep4[h]);
          memcpy(o + w, &packed, 8);
          w += 4 + (size_t)__builtin_popcount(h);
        }
        continue;
      }
    }
    if (k > 32) {
      for (size_t b = 0; b < 64; b++)
        w += mp_sbcs_put(o + w, &acc, u8, lens, in[i + b]);
    } else {
      size_t q = i;
      do {
        size_t p = i + (size_t)__builtin_ctzll(m);
        _mm512_storeu_si512((void *)(o + w), _mm512_loadu_si512((const void *)(in + q)));
        w += p - q;
        w += mp_sbcs_put(o + w, &acc, u8, lens, in[p]);
        q = p + 1;
        m &= m - 1;
      } while (m != 0);
      _mm512_storeu_si512((void *)(o + w), _mm512_loadu_si512((const void *)(in + q)));
      w += i + 64 - q;
    }
  }
  *out_len = w;
  *bad |= acc;
  return i;
}

#endif // MP_SBCS_AVX512_H
