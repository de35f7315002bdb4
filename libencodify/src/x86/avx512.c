// avx512.c: the AVX-512 implementation, for CPUs with AVX-512 VBMI and
// VBMI2 (Ice Lake and later): Base64 encoding (plain and in 76-column lines)
// and decoding (strict, and MIME for 76-column CRLF lines) 64 characters at
// a time, and quoted-printable decoding 64 bytes at a time. Encoding spreads
// each 3-byte group over a dword with one byte permute, cuts the four
// sextets out of it with one multishift and maps them to characters with a
// second permute over the 64-character alphabet; decoding maps characters
// to sextets with one two-table permute over the first 128 entries of the
// decoding table (a set high bit, in the result or the character, marks a
// character outside the alphabet), packs them with two multiply-adds and
// gathers the 48 bytes with a permute. Masked loads and stores take the
// last, partial block too, so no length leaves the vector path and nothing
// is read or written outside the buffers. The other kernels, and MIME input
// of any other shape, are the AVX2 ones, which every such CPU runs.
#include <immintrin.h>
#include <string.h>

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

// Lines of 76 characters (RFC 2045): the first 16 groups of a line's 19 are
// one block, stored whole; the last 3 groups of two lines are one more block
// (a two-source permute takes them from both lines), whose CRLFs are
// blended in and which is stored twice, 14 bytes at the end of each line.
// 156 characters in three blocks, and no character computed twice.
// tail_idx spreads groups 16..18 of the first line (bytes 48..56) to dwords
// 0..2 and those of the second (64 + 48..56) to dwords 4..6.
static const uint8_t tail_idx[64] = {
    49,  48,  50,  49,  52,  51,  53,  52,  55,  54,  56,  55,  0, 0, 0, 0,
    113, 112, 114, 113, 116, 115, 117, 116, 119, 118, 120, 119, 0, 0, 0, 0,
};

enum { LINE76_IN = 57, LINE76_OUT = 78 };
#define LINE76_TAIL_A 0x3FFFull         // bytes 0..13: chars 64..75 and CRLF
#define LINE76_TAIL_B (0x3FFFull << 16) // bytes 16..29: the same for the second line
#define LINE76_CRLF (0x3000ull | 0x30000000ull)

// b64_pair76 writes lines `a` and `b` (each a vector whose first 57 bytes
// are the line's input) to `out` as two lines of 76 characters and a CRLF.
// With `room` (112 bytes past the two lines are writable) the tails go as
// whole stores, before the blocks that overwrite what they spill.
static inline __attribute__((always_inline)) void b64_pair76(char *out, __m512i a, __m512i b,
                                                             __m512i spread, __m512i tails,
                                                             __m512i alpha, int room) {
  const __m512i crlf = _mm512_set1_epi16(0x0A0D);
  __m512i t = _mm512_permutex2var_epi8(a, tails, b);
  t = _mm512_multishift_epi64_epi8(_mm512_set1_epi64((long long)SEXTET_SHIFTS), t);
  t = _mm512_mask_blend_epi8(LINE76_CRLF, _mm512_permutexvar_epi8(t, alpha), crlf);
  if (room) {
    _mm512_storeu_si512(out + 64, t);
    _mm512_storeu_si512(out + LINE76_OUT + 48, t);
  } else {
    _mm512_mask_storeu_epi8(out + 64, LINE76_TAIL_A, t);
    _mm512_mask_storeu_epi8(out + LINE76_OUT + 48, LINE76_TAIL_B, t);
  }
  _mm512_storeu_si512(out, b64_enc_block(a, spread, alpha));
  _mm512_storeu_si512(out + LINE76_OUT, b64_enc_block(b, spread, alpha));
}

static size_t b64_encode_lines_avx512(char *out, const uint8_t *in, size_t in_len, size_t wrap,
                                      int url) {
  if (wrap != 76 || in_len < LINE76_IN)
    return 0;
  const __m512i alpha = _mm512_loadu_si512(url ? enc_b64_alpha_url : enc_b64_alpha_std);
  const __m512i spread = _mm512_loadu_si512(spread_idx);
  const __m512i tails = _mm512_loadu_si512(tail_idx);
  const __mmask64 line = low_bytes(LINE76_IN);
  size_t n = in_len / LINE76_IN, l = 0;
  // Plain loads while the second line's 64 bytes are all input; the last
  // lines through masked loads, which read nothing past the end.
  for (; n - l >= 2 && in_len - l * LINE76_IN >= LINE76_IN + 64; l += 2) {
    const uint8_t *p = in + l * LINE76_IN;
    // The output lines are fetched ahead, as in qp_decode_avx512(): at
    // 1 MiB this is worth a sixth of the time.
    __builtin_prefetch(out + l * LINE76_OUT + 1024, 1, 3);
    __builtin_prefetch(out + l * LINE76_OUT + 1024 + 64, 1, 3);
    __builtin_prefetch(out + l * LINE76_OUT + 1024 + 128, 1, 3);
    b64_pair76(out + l * LINE76_OUT, _mm512_loadu_si512(p), _mm512_loadu_si512(p + LINE76_IN),
               spread, tails, alpha, 1);
  }
  for (; l < n; l += 2) {
    // An odd last line goes as the first of a pair whose second line is
    // neither read nor written.
    const uint8_t *p = in + l * LINE76_IN;
    __m512i a = _mm512_maskz_loadu_epi8(line, p);
    if (n - l >= 2) {
      b64_pair76(out + l * LINE76_OUT, a, _mm512_maskz_loadu_epi8(line, p + LINE76_IN), spread,
                 tails, alpha, 0);
      continue;
    }
    char *o = out + l * LINE76_OUT;
    __m512i t = _mm512_permutexvar_epi8(tails, a);
    t = _mm512_multishift_epi64_epi8(_mm512_set1_epi64((long long)SEXTET_SHIFTS), t);
    t = _mm512_mask_blend_epi8(LINE76_CRLF, _mm512_permutexvar_epi8(t, alpha),
                               _mm512_set1_epi16(0x0A0D));
    _mm512_storeu_si512(o, b64_enc_block(a, spread, alpha));
    _mm512_mask_storeu_epi8(o + 64, LINE76_TAIL_A, t);
  }
  return n;
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

// MIME decoding of the RFC 2045 shape, two 76-column lines ended by CRLF
// (156 characters, 114 bytes) at a time, from the start of the input: the
// 152 alphabet characters are three blocks read straight from the input (the
// second joins the 12 characters before the first CRLF with the 52 after it
// by a blend of two loads), so no compress is needed. A pair of another
// shape, or with a character outside the alphabet (`=` included), ends the
// fast path; the AVX2 kernel, which handles any input, takes over at that
// line boundary.
static size_t b64_decode_mime_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                     size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  // Too short for a pair of lines: not even the tables are worth loading.
  if (in_len < 194 || out_cap < 160)
    return enc_b64_decode_mime_avx2(out, out_cap, written, in, in_len, url, acc, nacc);
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  const __m512i lut_lo = _mm512_loadu_si512(dt), lut_hi = _mm512_loadu_si512(dt + 64);
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  const uint16_t crlf = (uint16_t)('\r' | '\n' << 8);
  size_t i = 0, o = 0;
  // The last block is loaded from 130 (64 bytes); the last store, of its 18
  // bytes, writes 64 from 96.
  while (in_len - i >= 194 && out_cap - o >= 160) {
    const char *p = in + i;
    // The output lines are fetched ahead, as in the line encoder.
    __builtin_prefetch(out + o + 1024, 1, 3);
    __builtin_prefetch(out + o + 1024 + 64, 1, 3);
    uint16_t b1, b2;
    memcpy(&b1, p + 76, 2);
    memcpy(&b2, p + 154, 2);
    if ((b1 ^ crlf) | (b2 ^ crlf))
      break;
    __m512i c0 = _mm512_loadu_si512(p);
    __m512i c1 =
        _mm512_mask_blend_epi8(0xFFF, _mm512_loadu_si512(p + 66), _mm512_loadu_si512(p + 64));
    __m512i c2 = _mm512_loadu_si512(p + 130);
    __m512i v0 = _mm512_permutex2var_epi8(lut_lo, c0, lut_hi);
    __m512i v1 = _mm512_permutex2var_epi8(lut_lo, c1, lut_hi);
    __m512i v2 = _mm512_permutex2var_epi8(lut_lo, c2, lut_hi);
    // A set high bit, in a value or a character, is a character outside
    // the alphabet; only the first 24 of the last block count.
    uint64_t bad =
        _mm512_movepi8_mask(_mm512_or_si512(_mm512_ternarylogic_epi32(v0, c0, v1, 0xFE), c1)) |
        (_mm512_movepi8_mask(_mm512_or_si512(v2, c2)) & 0xFFFFFFu);
    if (bad != 0)
      break;
    _mm512_storeu_si512(out + o, b64_dec_pack(v0, pack));
    _mm512_storeu_si512(out + o + 48, b64_dec_pack(v1, pack));
    _mm512_storeu_si512(out + o + 96, b64_dec_pack(v2, pack));
    i += 156;
    o += 114;
  }
  size_t w;
  i += enc_b64_decode_mime_avx2(out + o, out_cap - o, &w, in + i, in_len - i, url, acc, nacc);
  *written = o + w;
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
  // No block writes more than it reads (o - i never grows), so one bound
  // on `i` keeps both the 66-byte loads and the 64-byte store in bounds.
  int full = in_len >= 66 && out_cap >= 64;
  size_t last = !full ? 0 : in_len - 66 < out_cap - 64 ? in_len - 66 : out_cap - 64;
  for (;;) {
    __m512i v, n, n2;
    uint64_t end = 0; // the bit just past the input, in the last block
    size_t len = 64;
    if (full && i <= last) {
      // The output lines are fetched ahead, so that the stores find them
      // cached and leave the store buffer sooner (a few percent once the
      // output no longer fits in L1).
      __builtin_prefetch(out + o + 512, 1, 3);
      v = _mm512_loadu_si512(p + i);
      n = _mm512_loadu_si512(p + i + 1);
      n2 = _mm512_loadu_si512(p + i + 2);
    } else {
      // The last bytes, through masked loads that read nothing past the
      // end, so that short inputs stay on this path: the zeros after the
      // end are no hex digit, CR or LF, so nothing there is taken for an
      // escape or a soft break, and the block stops at the end. A `=` or
      // white space near the end goes to enc_qp_decode_special(), which
      // sees the true length.
      if (i >= in_len || out_cap - o < 64)
        break;
      size_t avail = in_len - i;
      len = avail < 64 ? avail : 64;
      v = _mm512_maskz_loadu_epi8(low_bytes(len), p + i);
      n = _mm512_maskz_loadu_epi8(low_bytes(avail - 1), p + i + 1);
      n2 = avail >= 2 ? _mm512_maskz_loadu_epi8(low_bytes(avail - 2), p + i + 2)
                      : _mm512_setzero_si512();
      end = len < 64 ? (uint64_t)1 << len : 0;
    }
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
    uint64_t stop = (eq & ~x1) | ws_stop | end;
    uint64_t keep = ~(drop | carry);
    if (stop == 0) {
      _mm512_storeu_si512(out + o, _mm512_maskz_compress_epi8(keep, dec));
      o += (size_t)_mm_popcnt_u64(keep);
      i += 64;
      carry = carry_next;
      continue;
    }
    unsigned k = (unsigned)_tzcnt_u64(stop);
    keep = _bzhi_u64(keep, k);
    _mm512_storeu_si512(out + o, _mm512_maskz_compress_epi8(keep, dec));
    o += (size_t)_mm_popcnt_u64(keep);
    i += k;
    carry = 0; // escapes before a stop end before it: a stop is no hex digit
    if (k == len)
      break; // the end of the input
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
    .b64_encode_lines = b64_encode_lines_avx512,
    .b64_decode = b64_decode_avx512,
    .b64_decode_mime = b64_decode_mime_avx512,
    .b32_encode = enc_b32_encode_avx2,
    .b32_decode = enc_b32_decode_avx2,
    .qp_decode = qp_decode_avx512,
    .qp_encode = enc_qp_encode_avx2,
};
