// avx512.c: the AVX-512 implementation, for CPUs with AVX-512 VBMI and
// VBMI2 (Ice Lake and later): Base64 encoding and strict decoding 64
// characters at a time, and quoted-printable decoding 64 bytes at a time. Encoding spreads each
// 3-byte group over a dword with one byte permute, cuts the four sextets out of it with one
// multishift and maps them to characters with a second permute over the 64-character alphabet;
// decoding maps characters to sextets with one two-table permute over the
// first 128 entries of the decoding table (a set high bit, in the result or
// the character, marks a character outside the alphabet), packs them with
// two multiply-adds and gathers the 48 bytes with a permute. Masked loads and
// stores take the last, partial block too, so no length leaves the vector
// path and nothing is read or written outside the buffers. The other kernels
// are the AVX2 ones, which every such CPU runs.
#include <immintrin.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

// Byte permutes: each 3-byte group to a dword as bytes 1, 0, 2, 1 (so that
// each sextet is 6 contiguous bits of the dword), and the 3 bytes of each
// decoded dword, most significant first, to the front.
static const uint8_t spread_idx[64] = {
    1,  0,  2,  1,  4,  3,  5,  4,  7,  6,  8,  7,  10, 9,  11, 10, 13, 12, 14, 13, 16, 15,
    17, 16, 19, 18, 20, 19, 22, 21, 23, 22, 25, 24, 26, 25, 28, 27, 29, 28, 31, 30, 32, 31,
    34, 33, 35, 34, 37, 36, 38, 37, 40, 39, 41, 40, 43, 42, 44, 43, 46, 45, 47, 46,
};
static const uint8_t pack_idx[64] = {
    2,  1,  0,  6,  5,  4,  10, 9,  8,  14, 13, 12, 18, 17, 16, 22, 21, 20, 26, 25, 24, 30,
    29, 28, 34, 33, 32, 38, 37, 36, 42, 41, 40, 46, 45, 44, 50, 49, 48, 54, 53, 52, 58, 57,
    56, 62, 61, 60, 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
};

// Bit offsets of the four sextets in each dword of the spread bytes, for
// both dwords of a qword: 10, 4, 22, 16 and 32 more.
#define SEXTET_SHIFTS 0x3036242a1016040aull

static inline __mmask64 low_bytes(size_t n) {
  return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
}

static inline __m512i b64_enc_block(__m512i v, __m512i spread, __m512i alpha) {
  __m512i s = _mm512_permutexvar_epi8(spread, v);
  __m512i sextets = _mm512_multishift_epi64_epi8(_mm512_set1_epi64((long long)SEXTET_SHIFTS), s);
  return _mm512_permutexvar_epi8(sextets, alpha);
}

static size_t b64_encode_avx512(char *out, const uint8_t *in, size_t in_len, int url) {
  const __m512i alpha = _mm512_loadu_si512(url ? enc_b64_alpha_url : enc_b64_alpha_std);
  const __m512i spread = _mm512_loadu_si512(spread_idx);
  size_t g3 = in_len - in_len % 3, i = 0;
  char *o = out;
  for (; in_len - i >= 64 && g3 - i >= 48; i += 48, o += 64)
    _mm512_storeu_si512(o, b64_enc_block(_mm512_loadu_si512(in + i), spread, alpha));
  // The rest, up to 48 bytes at a time, through masks (a last block of fewer
  // than 64 readable bytes, or a short input).
  while (i < g3) {
    size_t n = g3 - i < 48 ? g3 - i : 48;
    __m512i v = _mm512_maskz_loadu_epi8(low_bytes(n), in + i);
    _mm512_mask_storeu_epi8(o, low_bytes(n / 3 * 4), b64_enc_block(v, spread, alpha));
    i += n;
    o += n / 3 * 4;
  }
  return g3;
}

// b64_dec_block translates the characters of `v` to sextets and returns the
// mask of those outside the alphabet (among all 64 bytes).
static inline __mmask64 b64_dec_block(__m512i v, __m512i lut_lo, __m512i lut_hi, __m512i *vals) {
  *vals = _mm512_permutex2var_epi8(lut_lo, v, lut_hi);
  return _mm512_movepi8_mask(_mm512_or_si512(*vals, v));
}

static inline __m512i b64_dec_pack(__m512i vals, __m512i pack) {
  __m512i ab = _mm512_maddubs_epi16(vals, _mm512_set1_epi32(0x01400140));
  __m512i abcd = _mm512_madd_epi16(ab, _mm512_set1_epi32(0x00011000));
  return _mm512_permutexvar_epi8(pack, abcd);
}

static size_t b64_decode_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int url) {
  // Entries 0xFE (`=`) and 0xFF (not in the alphabet) have the high bit set.
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  const __m512i lut_lo = _mm512_loadu_si512(dt), lut_hi = _mm512_loadu_si512(dt + 64);
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  size_t i = 0, o = 0;
  __m512i vals;
  while (in_len - i >= 64 && out_cap - o >= 64) {
    if (b64_dec_block(_mm512_loadu_si512(in + i), lut_lo, lut_hi, &vals) != 0)
      break;
    _mm512_storeu_si512(out + o, b64_dec_pack(vals, pack));
    i += 64;
    o += 48;
  }
  // The rest through masks: whole groups that fit in the output, up to the
  // first group with a character outside the alphabet.
  for (;;) {
    size_t n = in_len - i < 64 ? (in_len - i) / 4 * 4 : 64;
    if (n / 4 * 3 > out_cap - o)
      n = (out_cap - o) / 3 * 4;
    if (n == 0)
      break;
    __mmask64 m = low_bytes(n);
    __mmask64 bad = b64_dec_block(_mm512_maskz_loadu_epi8(m, in + i), lut_lo, lut_hi, &vals) & m;
    if (bad != 0)
      n = (size_t)_tzcnt_u64(bad) / 4 * 4;
    _mm512_mask_storeu_epi8(out + o, low_bytes(n / 4 * 3), b64_dec_pack(vals, pack));
    i += n;
    o += n / 4 * 3;
    if (bad != 0)
      break;
  }
  *written = o;
  return i;
}

// Quoted-printable decoding: the AVX2 kernel's method (see avx2.c) on 64
// bytes and the two after them, with the classes in mask registers, hex
// digits valued by one permute over a 128-entry table (0x80 for anything
// else), and the digits of escapes and the soft line breaks dropped by one
// byte compress (VBMI2).
static const uint8_t hex_tab[128] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

static size_t qp_decode_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  const __m512i hex_lo = _mm512_loadu_si512(hex_tab), hex_hi = _mm512_loadu_si512(hex_tab + 64);
  size_t i = 0, o = 0, w;
  uint64_t carry = 0; // the bytes of an escape or break that began in the last block
  while (in_len - i >= 66 && out_cap - o >= 64) {
    __m512i v = _mm512_loadu_si512(p + i);
    __m512i n = _mm512_loadu_si512(p + i + 1);
    __m512i n2 = _mm512_loadu_si512(p + i + 2);
    uint64_t eq = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('='));
    uint64_t ws = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' ')) |
                  _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\t'));
    // As in avx2.c: a space or tab followed by a byte up to 0x20 stops.
    uint64_t ws_stop = ws & _mm512_cmple_epu8_mask(n, _mm512_set1_epi8(0x20));
    __m512i h1 = _mm512_permutex2var_epi8(hex_lo, n, hex_hi);
    __m512i h2 = _mm512_permutex2var_epi8(hex_lo, n2, hex_hi);
    uint64_t bad =
        _mm512_movepi8_mask(_mm512_or_si512(_mm512_or_si512(h1, n), _mm512_or_si512(h2, n2)));
    uint64_t esc = eq & ~bad;
    uint64_t soft3 = eq & _mm512_cmpeq_epi8_mask(n, _mm512_set1_epi8('\r')) &
                     _mm512_cmpeq_epi8_mask(n2, _mm512_set1_epi8('\n'));
    uint64_t soft2 = eq & _mm512_cmpeq_epi8_mask(n, _mm512_set1_epi8('\n'));
    // (h1 << 4 & 0xF0) | h2: the mask drops what the 16-bit shift moves
    // across bytes.
    __m512i byte =
        _mm512_ternarylogic_epi32(_mm512_slli_epi16(h1, 4), _mm512_set1_epi8((char)0xF0), h2, 0xEA);
    __m512i dec = _mm512_mask_blend_epi8(esc, v, byte);
    // Each escape keeps its `=` (now the byte) and drops its two digits; a
    // soft break drops whole. Drops past the block's end carry over.
    uint64_t x1 = esc | soft3 | soft2, x2 = esc | soft3;
    uint64_t drop = x1 << 1 | x2 << 2 | soft3 | soft2;
    uint64_t carry_next = x1 >> 63 | x2 >> 62;
    uint64_t stop = (eq & ~x1) | ws_stop;
    unsigned k = (unsigned)_tzcnt_u64(stop);
    uint64_t keep = _bzhi_u64(~(drop | carry), k);
    _mm512_storeu_si512(out + o, _mm512_maskz_compress_epi8(keep, dec));
    o += (size_t)_mm_popcnt_u64(keep);
    if (stop == 0) {
      i += 64;
      carry = carry_next;
      continue;
    }
    i += k;
    carry = 0; // escapes before a stop end before it: a stop is no hex digit
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  i += (size_t)_mm_popcnt_u64(carry); // already decoded or dropped
  *written = o;
  return i;
}

const struct enc_impl enc_impl_avx512 = {
    .name = "avx512",
    .required = ENC_CPU_AVX512VBMI2 | ENC_CPU_AVX2 | ENC_CPU_SSSE3 | ENC_CPU_SSE41 | ENC_CPU_BMI1 |
                ENC_CPU_BMI2 | ENC_CPU_LZCNT | ENC_CPU_POPCNT,
    .b64_encode = b64_encode_avx512,
    .b64_encode_lines = enc_b64_encode_lines_avx2,
    .b64_decode = b64_decode_avx512,
    .b64_decode_mime = enc_b64_decode_mime_avx2,
    .b32_encode = enc_b32_encode_avx2,
    .b32_decode = enc_b32_decode_avx2,
    .qp_decode = qp_decode_avx512,
    .qp_encode = enc_qp_encode_avx2,
};
