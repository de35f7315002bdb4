// avx512.c: the AVX-512 implementation, for CPUs with AVX-512 VBMI and VBMI2
// (Ice Lake and later): Base64 encoding (plain and in 76-column lines) and
// decoding (strict and MIME) 64 characters at a time, and quoted-printable
// decoding 64 bytes at a time. Encoding spreads each 3-byte group over a
// dword with one byte permute, cuts the four sextets out of it with one
// multishift and maps them to characters with a second permute over the
// 64-character alphabet; decoding maps characters to sextets with one
// two-table permute over the first 128 entries of the decoding table (a set
// high bit, in the result or the character, marks a character outside the
// alphabet), packs them with two multiply-adds and gathers the 48 bytes with
// a permute. Masked loads and stores take the last, partial block too, so no
// length leaves the vector path and nothing is read or written outside the
// buffers; strict inputs of some megabytes are read as aligned lines and
// written by non-temporal stores instead (b64_decode_large()).
// Quoted-printable decoding classifies every position by three table lookups
// and keeps what stays with one compress (see below); inputs under
// QPD_AVX512_MIN_LEN bytes go to the AVX2 kernel. The other kernels
// (quoted-printable encoding included) are the AVX2 ones, which every such
// CPU runs. MIME decoding takes regular lines (up to 76 columns, LF or CRLF)
// straight from the input and compresses the sextets of anything else (see
// b64_decode_mime_avx512()).
#include <immintrin.h>
#include <stdint.h>
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

// b64_dec_dwords packs each four sextets of `vals` into the low 24 bits of
// their dword, most significant byte at byte 2.
static inline __m512i b64_dec_dwords(__m512i vals) {
  __m512i ab = _mm512_maddubs_epi16(vals, _mm512_set1_epi32(0x01400140));
  return _mm512_madd_epi16(ab, _mm512_set1_epi32(0x00011000));
}

static inline __m512i b64_dec_pack(__m512i vals, __m512i pack) {
  return _mm512_permutexvar_epi8(pack, b64_dec_dwords(vals));
}

// Two-source permutes that cut the 192 bytes of four packed blocks (as
// dwords, b64_dec_dwords) into three 64-byte vectors: blocks 0 and 1, 1 and
// 2, 2 and 3 (index bit 6 picks the second source).
static const uint8_t join_idx[3][64] = {
    {2,  1,  0,  6,  5,  4,  10, 9,  8,  14, 13, 12, 18, 17, 16, 22, 21, 20, 26, 25, 24, 30,
     29, 28, 34, 33, 32, 38, 37, 36, 42, 41, 40, 46, 45, 44, 50, 49, 48, 54, 53, 52, 58, 57,
     56, 62, 61, 60, 66, 65, 64, 70, 69, 68, 74, 73, 72, 78, 77, 76, 82, 81, 80, 86},
    {21, 20, 26, 25, 24, 30, 29, 28, 34, 33, 32, 38, 37, 36, 42, 41,  40,  46,  45,  44, 50, 49,
     48, 54, 53, 52, 58, 57, 56, 62, 61, 60, 66, 65, 64, 70, 69, 68,  74,  73,  72,  78, 77, 76,
     82, 81, 80, 86, 85, 84, 90, 89, 88, 94, 93, 92, 98, 97, 96, 102, 101, 100, 106, 105},
    {40,  46,  45,  44,  50,  49,  48,  54,  53,  52,  58,  57,  56,  62,  61,  60,
     66,  65,  64,  70,  69,  68,  74,  73,  72,  78,  77,  76,  82,  81,  80,  86,
     85,  84,  90,  89,  88,  94,  93,  92,  98,  97,  96,  102, 101, 100, 106, 105,
     104, 110, 109, 108, 114, 113, 112, 118, 117, 116, 122, 121, 120, 126, 125, 124},
};

// How far ahead of the four-block loop its input is prefetched: four steps,
// which measured a few per cent faster than the hardware prefetcher alone on
// a 10 MiB input (Zen 5), before inputs that large went to
// b64_decode_large(); within the cache it costs nothing measurable.
enum { B64D_PREFETCH = 1024 };

// ENC_B64D_LARGE_MIN (encodify_internal.h): inputs of at least this many
// characters (3 MiB of output, three times the L2 cache of Zen 5) are
// decoded by b64_decode_large(). Measured on Zen 5 (2026-12, session 9) by
// a sweep outside the repository (15 decodes per size and build, the builds
// alternating, three sweeps), the four-block loop's best time over this
// path's: 1.0 at 1 MiB of output, 1.05-1.1 at 1.5 MiB, 1.1-1.15 at 2 MiB,
// 1.15 at 3 MiB, 1.2 at 4 MiB, 2.1 at 10 MiB. Below 3 MiB the gain is
// small, and a caller that reads the output right away (from memory then,
// not from the L3 cache) would lose more than that.

// Byte indexes 0..63: with the input's offset in its cache line added, the
// two-source permute of b64_decode_large() that cuts a block out of two
// aligned lines.
static const uint8_t iota_idx[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
};

// b64_decode_large decodes whole groups from the start of a large input
// (ENC_B64D_LARGE_MIN) as b64_decode_avx512() does, up to the first group
// with a character outside the alphabet or near the end (the loops of
// b64_decode_avx512() take what is left), sets `*written` and returns the
// characters used. Out of the caches the four-block loop ran at 0.8 times
// memcpy's speed (and simdutf's AVX2 kernel at 1.0) for two reasons, each
// measured on its own at 10 MiB: its 64-byte loads start wherever the input
// does, so that most of them span two cache lines, which costs far more
// when the lines come from memory (aligned loads alone made it 1.6 times
// faster); and every output line is read into the cache before it is
// written and then pushes the input out (non-temporal stores made it 1.25
// times faster still). So here every load is one whole aligned line of
// input, and a two-source permute cuts each block out of two of them; and
// the output, after a few groups decoded by the scalar loop to bring it to
// a 64-byte boundary, goes out as whole aligned lines through non-temporal
// stores. The decoded bytes are then in memory, not in the caches; the
// sfence at the end orders those weakly ordered stores before the caller's
// later stores, such as one that hands the buffer to another thread.
static size_t b64_decode_large(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len, int url) {
  // 3g bytes bring the output to a line boundary (43 is the inverse of 3
  // modulo 64); at least 16 groups, so that the line below the first block
  // starts inside the input.
  size_t g = ((size_t)(0 - (uintptr_t)out) & 63) * 43 & 63;
  if (g < 16)
    g += 64;
  size_t o, i = enc_b64_decode_tail(out, out_cap, &o, in, g * 4, url);
  if (i < g * 4) { // a character outside the alphabet, or no room
    *written = o;
    return i;
  }
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  const __m512i lut_lo = _mm512_loadu_si512(dt), lut_hi = _mm512_loadu_si512(dt + 64);
  const __m512i j0 = _mm512_loadu_si512(join_idx[0]), j1 = _mm512_loadu_si512(join_idx[1]);
  const __m512i j2 = _mm512_loadu_si512(join_idx[2]);
  // Every block starts `sh` bytes into an aligned line, since a step is four
  // lines; `line` is the line that holds the start of the next block.
  size_t sh = (uintptr_t)(in + i) & 63;
  const char *line = in + i - sh;
  const __m512i cut = _mm512_add_epi8(_mm512_loadu_si512(iota_idx), _mm512_set1_epi8((char)sh));
  __m512i l0 = _mm512_load_si512((const void *)line);
  // A step reads five lines (the first carried over), all inside the input.
  while (in_len - i + sh >= 320 && out_cap - o >= 192) {
    __m512i l1 = _mm512_load_si512((const void *)(line + 64));
    __m512i l2 = _mm512_load_si512((const void *)(line + 128));
    __m512i l3 = _mm512_load_si512((const void *)(line + 192));
    __m512i l4 = _mm512_load_si512((const void *)(line + 256));
    __m512i v0, v1, v2, v3;
    __mmask64 bad = b64_dec_block(_mm512_permutex2var_epi8(l0, cut, l1), lut_lo, lut_hi, &v0) |
                    b64_dec_block(_mm512_permutex2var_epi8(l1, cut, l2), lut_lo, lut_hi, &v1) |
                    b64_dec_block(_mm512_permutex2var_epi8(l2, cut, l3), lut_lo, lut_hi, &v2) |
                    b64_dec_block(_mm512_permutex2var_epi8(l3, cut, l4), lut_lo, lut_hi, &v3);
    if (bad != 0) // the caller's loops stop at the block that holds it
      break;
    v0 = b64_dec_dwords(v0);
    v1 = b64_dec_dwords(v1);
    v2 = b64_dec_dwords(v2);
    v3 = b64_dec_dwords(v3);
    _mm512_stream_si512((void *)(out + o), _mm512_permutex2var_epi8(v0, j0, v1));
    _mm512_stream_si512((void *)(out + o + 64), _mm512_permutex2var_epi8(v1, j1, v2));
    _mm512_stream_si512((void *)(out + o + 128), _mm512_permutex2var_epi8(v2, j2, v3));
    l0 = l4;
    line += 256;
    i += 256;
    o += 192;
  }
  _mm_sfence();
  *written = o;
  return i;
}

static size_t b64_decode_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int url) {
  // Entries 0xFE (`=`) and 0xFF (not in the alphabet) have the high bit set.
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  const __m512i lut_lo = _mm512_loadu_si512(dt), lut_hi = _mm512_loadu_si512(dt + 64);
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  size_t i = 0, o = 0;
  __m512i vals;
  if (in_len >= ENC_B64D_LARGE_MIN)
    i = b64_decode_large(out, out_cap, &o, in, in_len, url);
  // Four blocks (256 characters, 192 bytes) per step, written as three
  // whole vectors: four overlapping 64-byte stores 48 bytes apart would
  // each cross a cache line, and on inputs larger than the cache that
  // costs more than the two-source permutes that join the blocks.
  if (in_len >= 256) {
    const __m512i j0 = _mm512_loadu_si512(join_idx[0]), j1 = _mm512_loadu_si512(join_idx[1]);
    const __m512i j2 = _mm512_loadu_si512(join_idx[2]);
    while (in_len - i >= 256 && out_cap - o >= 192) {
      __m512i v0, v1, v2, v3;
      _mm_prefetch(in + i + B64D_PREFETCH, _MM_HINT_T0);
      _mm_prefetch(in + i + B64D_PREFETCH + 64, _MM_HINT_T0);
      _mm_prefetch(in + i + B64D_PREFETCH + 128, _MM_HINT_T0);
      _mm_prefetch(in + i + B64D_PREFETCH + 192, _MM_HINT_T0);
      __mmask64 bad = b64_dec_block(_mm512_loadu_si512(in + i), lut_lo, lut_hi, &v0) |
                      b64_dec_block(_mm512_loadu_si512(in + i + 64), lut_lo, lut_hi, &v1) |
                      b64_dec_block(_mm512_loadu_si512(in + i + 128), lut_lo, lut_hi, &v2) |
                      b64_dec_block(_mm512_loadu_si512(in + i + 192), lut_lo, lut_hi, &v3);
      if (bad != 0) // the loops below stop at the block that holds it
        break;
      v0 = b64_dec_dwords(v0);
      v1 = b64_dec_dwords(v1);
      v2 = b64_dec_dwords(v2);
      v3 = b64_dec_dwords(v3);
      _mm512_storeu_si512(out + o, _mm512_permutex2var_epi8(v0, j0, v1));
      _mm512_storeu_si512(out + o + 64, _mm512_permutex2var_epi8(v1, j1, v2));
      _mm512_storeu_si512(out + o + 128, _mm512_permutex2var_epi8(v2, j2, v3));
      i += 256;
      o += 192;
    }
  }
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
    // A masked store costs many times a plain one on Zen 5; where the
    // output has room for the whole vector, the bytes past the block's are
    // free to overwrite (as in the loop above).
    if (out_cap - o >= 64)
      _mm512_storeu_si512(out + o, b64_dec_pack(vals, pack));
    else
      _mm512_mask_storeu_epi8(out + o, low_bytes(n / 4 * 3), b64_dec_pack(vals, pack));
    i += n;
    o += n / 4 * 3;
    if (bad != 0)
      break;
  }
  *written = o;
  return i;
}

// How far ahead of the MIME loop its input is prefetched: one stretch of
// libmailparse's body feed (MP_FEED_STRETCH, 16 KiB). A decoded leaf is
// scanned a stretch at a time, the scan being the first pass to touch the
// bytes, from memory, and each stretch is decoded here right after, from
// the cache; while it decodes, nothing asks the memory for the next stretch
// (the scan's own prefetch reaches 4 KiB past it), so that scan then waits
// for most of its lines. Asking for the next stretch from this loop keeps
// the memory busy during the decode. Measured on Zen 5 (session 13,
// bench_mailparse --mode full over 500 corpus10k messages, cold caches,
// alternating builds on a shared machine, best slice times): about 5-7%
// off the full parse, the body scan's share of the profile 21% -> 19%;
// 20, 24 and 28 KiB did no better, nor did PREFETCHT1/T2, and asking for
// the whole next stretch at once before the decode was slower than not
// asking (the burst waits for free miss buffers). A prefetch is a
// hint: past the input's end it faults on nothing, and a caller whose input
// ends there (in libmailparse, the parts that follow, read next anyway)
// pays at most this many bytes of extra reads per call.
enum { B64M_PREFETCH = 16384 };

// Inputs shorter than this go to the AVX2 kernel. Measured with a
// micro-benchmark outside the repository (Zen 5, the real set's 47 Base64
// bodies and regular lines of 12..76 columns at 140-90,000 bytes): from 16
// bytes on, the kernel below is as fast or faster at every size (0.94-1.5
// times the AVX2 kernel's speed under 200 bytes); 64 and 192 did no better
// on the real set.
enum { B64M_AVX512_MIN = 16 };

// MIME decoding of regular lines. The first line gives the shape: L
// alphabet characters (a multiple of 4, up to B64M_LINE_MAX) and a break of
// b bytes (LF or CRLF); then lines of exactly that shape are decoded from
// the start of the input, with no compress, by one of two loops:
// - L of 64 or more (64, 68, 72, 76): two lines per step, their 2L
//   characters in three blocks read straight from the input; the second
//   joins the first line's last L - 64 characters with the next line's
//   first ones by a blend of two loads, the third holds the second line's
//   last 2L - 128 (none for 64 columns).
// - L up to 60: k = 64 / L lines per step, one block whose characters a
//   two-source permute gathers from two loads (b64m_lines_small()).
// A line of another shape, or with a character outside the alphabet (`=`
// included), ends them; b64m_general(), which handles any input, takes
// over at that line boundary (with an empty group, as the lines hold whole
// groups) up to the first `=`.
enum { B64M_LINE_MAX = 76 };

// b64m_shape finds the first line's shape: the LF that ends it within the
// first 80 bytes and whether a CR comes before it. It accepts a
// length of 4..B64M_LINE_MAX, a multiple of 4, and returns 0 for anything
// else; whether the characters are in the alphabet the line loops check,
// which test every line anyway (a compare finds the LF in fewer steps than
// a lookup finds the first character outside the alphabet).
static int b64m_shape(const char *in, size_t in_len, size_t *len, size_t *brk) {
  const __m512i lf = _mm512_set1_epi8('\n');
  __mmask64 m = low_bytes(in_len);
  uint64_t at = _mm512_mask_cmpeq_epi8_mask(m, _mm512_maskz_loadu_epi8(m, in), lf);
  size_t n = (size_t)_tzcnt_u64(at);
  if (at == 0) { // a line longer than 63 characters
    if (in_len <= 64)
      return 0;
    m = low_bytes(in_len - 64 < 16 ? in_len - 64 : 16);
    at = _mm512_mask_cmpeq_epi8_mask(m, _mm512_maskz_loadu_epi8(m, in + 64), lf);
    if (at == 0)
      return 0;
    n = 64 + (size_t)_tzcnt_u64(at);
  }
  size_t b = n > 0 && in[n - 1] == '\r' ? 2 : 1;
  n = n + 1 - b;
  if (n == 0 || n % 4 != 0 || n > B64M_LINE_MAX)
    return 0;
  *len = n;
  *brk = b;
  return 1;
}

// b64m_lines_pairs decodes pairs of lines of `len` (64..76) characters and
// a `brk`-byte break from the start of `in` (see above) and returns the
// input consumed; it stops before a pair of another shape or with a
// character outside the alphabet.
static inline __attribute__((always_inline)) size_t
b64m_lines_pairs(uint8_t *out, size_t out_cap, size_t *written, const char *in, size_t in_len,
                 size_t len, size_t brk, __m512i lut_lo, __m512i lut_hi) {
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  const __mmask64 head = low_bytes(len - 64), tail = low_bytes(2 * len - 128);
  const size_t step = 2 * (len + brk), bytes = 2 * len / 4 * 3;
  // What a break reads as: LF, or CRLF as a little-endian word.
  const uint16_t want = brk == 1 ? '\n' : (uint16_t)('\r' | '\n' << 8);
  const uint16_t keep = brk == 1 ? 0xFF : 0xFFFF;
  size_t i = 0, o = 0;
  // The first two blocks' loads reach 128 + brk bytes past the step's start,
  // which the step covers (2 * (64 + brk)), the third's is masked near the
  // end; the stores write 160 bytes.
  while (in_len - i >= step && out_cap - o >= 160) {
    const char *p = in + i;
    // The output lines are fetched ahead, as in the line encoder.
    __builtin_prefetch(out + o + 1024, 1, 3);
    __builtin_prefetch(out + o + 1024 + 64, 1, 3);
    // Three lines cover the up to 156 characters of a step wherever they
    // start.
    __builtin_prefetch(p + B64M_PREFETCH, 0, 3);
    __builtin_prefetch(p + B64M_PREFETCH + 64, 0, 3);
    __builtin_prefetch(p + B64M_PREFETCH + 128, 0, 3);
    // A CRLF reads as one word; an LF as its byte (the word may run past
    // the input).
    uint16_t b1, b2;
    memcpy(&b1, p + len, 2);
    if (brk == 2)
      memcpy(&b2, p + 2 * len + 2, 2);
    else
      b2 = (uint8_t)p[2 * len + 1];
    if (((b1 & keep) ^ want) | (b2 ^ want))
      break;
    __m512i c0 = _mm512_loadu_si512(p);
    __m512i c1 =
        _mm512_mask_blend_epi8(head, _mm512_loadu_si512(p + 64 + brk), _mm512_loadu_si512(p + 64));
    // A plain load where the input has the bytes, which measured faster.
    __m512i c2 = in_len - i >= 192 + brk ? _mm512_loadu_si512(p + 128 + brk)
                                         : _mm512_maskz_loadu_epi8(tail, p + 128 + brk);
    __m512i v0 = _mm512_permutex2var_epi8(lut_lo, c0, lut_hi);
    __m512i v1 = _mm512_permutex2var_epi8(lut_lo, c1, lut_hi);
    __m512i v2 = _mm512_permutex2var_epi8(lut_lo, c2, lut_hi);
    // A set high bit, in a value or a character, is a character outside
    // the alphabet; only the first 2L - 128 of the last block count.
    uint64_t bad =
        _mm512_movepi8_mask(_mm512_or_si512(_mm512_ternarylogic_epi32(v0, c0, v1, 0xFE), c1)) |
        (_mm512_movepi8_mask(_mm512_or_si512(v2, c2)) & tail);
    if (bad != 0)
      break;
    _mm512_storeu_si512(out + o, b64_dec_pack(v0, pack));
    _mm512_storeu_si512(out + o + 48, b64_dec_pack(v1, pack));
    _mm512_storeu_si512(out + o + 96, b64_dec_pack(v2, pack));
    i += step;
    o += bytes;
  }
  *written = o;
  return i;
}

// b64m_lines_small decodes lines of `len` (4..60) characters and a
// `brk`-byte break from the start of `in`, k = 64 / len of them per step:
// one two-source permute gathers their characters from the step's bytes
// (at most 16 lines of 4 characters and a CRLF, 96 bytes, so two loads),
// another their breaks, which must equal LFs or CRLFs. A step that holds
// a line of another shape, or with a character outside the alphabet, still
// decodes the lines before it; near the end a step takes the whole lines
// left. Returns the input consumed.
static size_t b64m_lines_small(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len, size_t len, size_t brk, __m512i lut_lo,
                               __m512i lut_hi) {
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  const size_t k = 64 / len, line = len + brk;
  // Character j of the step is at j + (j / len) * brk; break byte j at
  // (j / brk) * line + len + j % brk.
  __m512i gather = _mm512_loadu_si512(iota_idx);
  for (size_t t = 1; t < k; t++)
    gather = _mm512_mask_add_epi8(gather, ~low_bytes(t * len), gather, _mm512_set1_epi8((char)brk));
  uint8_t bidx[64] = {0};
  for (size_t t = 0; t < k; t++) {
    bidx[t * brk] = (uint8_t)(t * line + len);
    bidx[t * brk + brk - 1] = (uint8_t)(t * line + len + brk - 1);
  }
  const __m512i breaks = _mm512_loadu_si512(bidx);
  const __m512i want = brk == 1 ? _mm512_set1_epi8('\n') : _mm512_set1_epi16(0x0A0D);
  size_t i = 0, o = 0;
  while (out_cap - o >= 64) {
    const char *p = in + i;
    size_t n = k, avail = in_len - i;
    __m512i lo, hi;
    if (avail >= 128) {
      lo = _mm512_loadu_si512(p);
      hi = _mm512_loadu_si512(p + 64);
    } else { // the whole lines left, through masked loads
      if (avail / line < k)
        n = avail / line;
      if (n == 0)
        break;
      size_t w = n * line;
      lo = _mm512_maskz_loadu_epi8(low_bytes(w), p);
      hi = _mm512_maskz_loadu_epi8(low_bytes(w > 64 ? w - 64 : 0), p + 64);
    }
    __builtin_prefetch(p + B64M_PREFETCH, 0, 3);
    __builtin_prefetch(p + B64M_PREFETCH + 64, 0, 3);
    __m512i v, c = _mm512_permutex2var_epi8(lo, gather, hi);
    uint64_t bad = b64_dec_block(c, lut_lo, lut_hi, &v) & low_bytes(n * len);
    uint64_t bad_brk = _mm512_mask_cmpneq_epi8_mask(low_bytes(n * brk),
                                                    _mm512_permutex2var_epi8(lo, breaks, hi), want);
    if ((bad | bad_brk) != 0) { // the lines before the first that differs
      size_t a = bad != 0 ? (size_t)_tzcnt_u64(bad) / len : n;
      size_t b = bad_brk != 0 ? (size_t)_tzcnt_u64(bad_brk) / brk : n;
      n = a < b ? a : b;
      if (n == 0)
        break;
    }
    _mm512_storeu_si512(out + o, b64_dec_pack(v, pack));
    i += n * line;
    o += n * len / 4 * 3;
    if (n < k)
      break;
  }
  *written = o;
  return i;
}

// b64m_general decodes any MIME input from the start of `in` up to its
// first `=` (or its end), 64 bytes at a time: the sextets of each block's
// alphabet characters are compressed to its front and appended to those
// held back in a register (one two-source permute), and every 64 of them
// are decoded as a block. It stops early only if the output could lack
// room for the next block; the 0-3 sextets of an unfinished group are
// returned in `*acc` and `*nacc` for the caller's scalar loop. Returns the
// input consumed.
static size_t b64m_general(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                           size_t in_len, __m512i lut_lo, __m512i lut_hi, uint32_t *acc,
                           uint32_t *nacc) {
  const __m512i pack = _mm512_loadu_si512(pack_idx);
  const __m512i iota = _mm512_loadu_si512(iota_idx);
  __m512i stage = _mm512_setzero_si512();
  size_t i = 0, o = 0, ns = 0;
  // A block decodes at most one block of sextets (48 bytes, stored as 64),
  // and the flush below up to 64 more.
  while (i < in_len && out_cap - o >= 128) {
    size_t n = in_len - i < 64 ? in_len - i : 64;
    __mmask64 lim = low_bytes(n);
    __m512i c = _mm512_maskz_loadu_epi8(lim, in + i), v;
    __mmask64 pad = _mm512_mask_cmpeq_epi8_mask(lim, c, _mm512_set1_epi8('='));
    if (pad != 0) { // the characters before it only
      n = (size_t)_tzcnt_u64(pad);
      lim = low_bytes(n);
    }
    uint64_t keep = ~(uint64_t)b64_dec_block(c, lut_lo, lut_hi, &v) & lim;
    size_t cnt = (size_t)_mm_popcnt_u64(keep);
    __m512i comp = _mm512_maskz_compress_epi8(keep, v);
    // Byte j of the joined sextets: stage[j] below ns, comp[j - ns] above.
    __m512i shift = _mm512_add_epi8(iota, _mm512_set1_epi8((char)(64 - ns)));
    __m512i join =
        _mm512_permutex2var_epi8(stage, _mm512_mask_mov_epi8(iota, ~low_bytes(ns), shift), comp);
    if (ns + cnt >= 64) {
      _mm512_storeu_si512(out + o, b64_dec_pack(join, pack));
      o += 48;
      stage = _mm512_permutexvar_epi8(shift, comp); // what did not fit
      ns = ns + cnt - 64;
    } else {
      stage = join;
      ns += cnt;
    }
    i += n;
    if (pad != 0)
      break;
  }
  // The whole groups held back, then the unfinished one.
  size_t g = ns / 4;
  if (g != 0) {
    if (out_cap - o >= 64)
      _mm512_storeu_si512(out + o, b64_dec_pack(stage, pack));
    else
      _mm512_mask_storeu_epi8(out + o, low_bytes(g * 3), b64_dec_pack(stage, pack));
    o += g * 3;
  }
  uint8_t rest[64];
  _mm512_storeu_si512(rest, stage);
  uint32_t a = 0;
  for (size_t k = g * 4; k < ns; k++)
    a = a << 6 | rest[k];
  *acc = a;
  *nacc = (uint32_t)(ns % 4);
  *written = o;
  return i;
}

// b64_decode_mime_avx512: the regular lines at the start of the input (after
// a few blank lines), then everything up to the first `=` through
// b64m_general(); the AVX2 kernel takes inputs too short to be worth it.
static size_t b64_decode_mime_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                     size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  size_t i = 0, o = 0, w, len, brk;
  if (in_len >= B64M_AVX512_MIN && out_cap >= 64) {
    const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
    const __m512i lut_lo = _mm512_loadu_si512(dt), lut_hi = _mm512_loadu_si512(dt + 64);
    // Blank lines before the first line (some bodies start with one or
    // two) are skipped, as the MIME decoder skips every character outside
    // the alphabet; the shape is that of the first line with characters.
    while (i < 4 && (in[i] == '\n' || in[i] == '\r'))
      i++;
    const char *p = in + i;
    size_t n = in_len - i;
    if (b64m_shape(p, n, &len, &brk)) {
      if (len == 76 && brk == 2) // the RFC 2045 shape, with constant offsets
        i += b64m_lines_pairs(out, out_cap, &o, p, n, 76, 2, lut_lo, lut_hi);
      else if (len >= 64)
        i += b64m_lines_pairs(out, out_cap, &o, p, n, len, brk, lut_lo, lut_hi);
      else
        i += b64m_lines_small(out, out_cap, &o, p, n, len, brk, lut_lo, lut_hi);
    }
    // The rest, or the whole input if its lines are not regular.
    i += b64m_general(out + o, out_cap - o, &w, in + i, in_len - i, lut_lo, lut_hi, acc, nacc);
    *written = o + w;
    return i;
  }
  i += enc_b64_decode_mime_avx2(out + o, out_cap - o, &w, in + i, in_len - i, url, acc, nacc);
  *written = o + w;
  return i;
}

// Quoted-printable decoding, 64 bytes at a time. Each position j is
// classified by what starts there: an escape ("=XX", two hex digits), a soft
// line break ("=\r\n" or "=\n"), white space that may be trailing (a space
// or tab followed by a byte up to 0x20) or a `=` followed by white space (a
// soft break with transport padding, perhaps); the last two leave the block
// to the careful path. A class is the AND of one term byte for each of the
// bytes j, j + 1 and j + 2, looked up in one table per role: each bit of a
// term byte is one class, and a role that takes no part in a class sets its
// bit. Any other `=` stands for itself, exactly as the state machine of
// qp.c writes it when the sequence turns out malformed, so it needs no case
// of its own. The class bytes shifted by one and two positions (the
// previous block's last two follow into the next) tell which bytes the
// sequences before j cover, so escapes and breaks that cross a block
// boundary need no carry of their own. Three permutes look up the term bytes
// and a fourth the first hex digit's value (the second's comes with its term
// byte); the rest is bitwise logic, with mask registers only for the bytes
// to keep, the escapes' blend and the exit test.

// The classes in which j + 2 takes part sit outside bits 0-3 (see
// qpd_class_n2).
enum {
  QPD_SOFT3 = 0x10, // "=\r\n": drops j, j + 1, j + 2
  QPD_SOFT2 = 0x02, // "=\n": drops j, j + 1
  QPD_WS = 0x04,    // space or tab before a byte up to 0x20: careful path
  QPD_EQ_WS = 0x08, // `=` before a space or tab: careful path
  QPD_ESC = 0x80,   // "=XX": j becomes the byte, j + 1 and j + 2 go
};

// Term bytes by role, indexed by min(byte, 0x7F) (0x7F and every byte
// above it belong to no class): qpd_class_v for byte j (`=`, space, tab),
// qpd_class_n for j + 1 (hex digit, CR, LF, up to 0x20, space or tab),
// qpd_class_n2 for j + 2 (hex digit, LF), whose low four bits hold the value
// of a hex digit instead: j + 2 takes no part in the classes there.
static const uint8_t qpd_class_v[128] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x9a, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t qpd_class_n[128] = {
    0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0c, 0x06, 0x04, 0x04, 0x14, 0x04, 0x04,
    0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04,
    0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t qpd_class_n2[128] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t qpd_hex_hi[64] = {
    0x00, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

struct qpd_consts {
  __m512i v_lo, v_hi, n_lo, n_hi, n2_lo, n2_hi, hex_hi;
};

// qpd_classify returns the class bytes of the 64 positions whose bytes are
// `v`, with the byte after each in `n` and the one after that in `n2`, and
// sets `*byte` to what an escape at each position decodes to.
static inline __attribute__((always_inline)) __m512i
qpd_classify(const struct qpd_consts *t, __m512i v, __m512i n, __m512i n2, __m512i *byte) {
  const __m512i ascii = _mm512_set1_epi8(0x7F), low4 = _mm512_set1_epi8(0x0F);
  __m512i cv = _mm512_permutex2var_epi8(t->v_lo, _mm512_min_epu8(v, ascii), t->v_hi);
  __m512i cn = _mm512_permutex2var_epi8(t->n_lo, _mm512_min_epu8(n, ascii), t->n_hi);
  __m512i cn2 = _mm512_permutex2var_epi8(t->n2_lo, _mm512_min_epu8(n2, ascii), t->n2_hi);
  // The low four bits of cn2 are the value of a second hex digit, not
  // classes (bits 1-3 are classes without j + 2, bit 0 none): set them.
  *byte = _mm512_ternarylogic_epi32(_mm512_permutexvar_epi8(n, t->hex_hi), cn2, low4, 0xF8);
  return _mm512_ternarylogic_epi32(cv, cn, _mm512_or_si512(cn2, low4), 0x80); // cv & cn & cn2
}

// qpd_stops returns the positions among class bytes `c` that need the
// careful path.
static inline __mmask64 qpd_stops(__m512i c) {
  return _mm512_test_epi8_mask(c, _mm512_set1_epi8(QPD_WS | QPD_EQ_WS));
}

// qpd_decode returns the decoded bytes of the block of bytes `v` classified
// in `c` and `byte` (by qpd_classify()), with `prev` the class bytes of the
// 64 positions before it (zero where nothing came before), and sets `*keep`
// to the bytes that stay.
static inline __attribute__((always_inline)) __m512i qpd_decode(__m512i v, __m512i byte, __m512i c,
                                                                __m512i prev, __mmask64 *keep) {
  // The class bytes of positions j - 1 and j - 2: each qword shifted up by
  // one and two bytes, filled from the qword below (the last of `prev` for
  // the first).
  __m512i below = _mm512_alignr_epi64(c, prev, 7);
  __m512i c1 = _mm512_shldi_epi64(c, below, 8);
  __m512i c2 = _mm512_shldi_epi64(c, below, 16);
  // Byte j goes when a break starts at j, any sequence at j - 1, or a
  // three-byte one at j - 2: (c & soft) | c1 | (c2 & three-byte), over the
  // sequence bits.
  __m512i d = _mm512_ternarylogic_epi32(c, c1, _mm512_set1_epi8(QPD_SOFT3 | QPD_SOFT2), 0xEC);
  d = _mm512_ternarylogic_epi32(d, c2, _mm512_set1_epi8((char)(QPD_ESC | QPD_SOFT3)), 0xF8);
  *keep = _mm512_testn_epi8_mask(d, _mm512_set1_epi8((char)(QPD_ESC | QPD_SOFT3 | QPD_SOFT2)));
  return _mm512_mask_blend_epi8(_mm512_test_epi8_mask(c, _mm512_set1_epi8((char)QPD_ESC)), v, byte);
}

// qpd_put writes the bytes of `dec` that `keep` selects at `out + *o`
// (64 bytes of room) and advances `*o` past them.
static inline void qpd_put(uint8_t *out, size_t *o, uint64_t keep, __m512i dec) {
  _mm512_storeu_si512(out + *o, _mm512_maskz_compress_epi8(keep, dec));
  *o += (size_t)_mm_popcnt_u64(keep);
}

// QPD_AVX512_MIN_LEN: shorter inputs go to the AVX2 kernel, which needs no
// tables in registers. Measured on Zen 5 (2026-12, session 8) with
// bench/bench_qp_crossover, which times the decoding engine on 256 slices of
// realistic quoted-printable text per length with the AVX2 kernel and with
// this one at every length: over five sweeps of 2..64 bytes (step 2) the
// median ratio AVX2 time / AVX-512 time was 0.89 at 10 bytes, 0.95 at 12,
// 1.06 at 14, 1.07 at 16, 1.23 at 20 and 1.87 at 64, and the sweeps put the
// crossover at 12, 14, 14, 16 and 16 bytes; in two sweeps of 16..512 bytes
// (step 16) this kernel was faster at every length: 1.02x-1.05x at 16, then
// 1.4x-2.8x. The earlier estimate of 128 bytes had kept inputs of 32..127
// bytes on AVX2, 1.4x-2.0x slower.
enum { QPD_AVX512_MIN_LEN = 16 };

// enc_qp_decode_avx512_blocks is the kernel itself, at any length (declared
// in encodify_internal.h for the crossover benchmark).
size_t enc_qp_decode_avx512_blocks(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                   size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  const struct qpd_consts t = {
      _mm512_loadu_si512(qpd_class_v),  _mm512_loadu_si512(qpd_class_v + 64),
      _mm512_loadu_si512(qpd_class_n),  _mm512_loadu_si512(qpd_class_n + 64),
      _mm512_loadu_si512(qpd_class_n2), _mm512_loadu_si512(qpd_class_n2 + 64),
      _mm512_loadu_si512(qpd_hex_hi),
  };
  size_t i = 0, o = 0, w;
  __m512i prev = _mm512_setzero_si512(), v, c, byte, dec;
  __mmask64 keep, stop;
  // No block writes more than it reads (o - i never grows), so one bound
  // on `i` keeps both the 66-byte loads and the 64-byte store in bounds.
  size_t end_full = 0;
  if (in_len >= 66 && out_cap >= 64)
    end_full = (in_len - 66 < out_cap - 64 ? in_len - 66 : out_cap - 64) + 1;
  for (;;) {
    size_t len = 64;
    if (i < end_full) {
      // Whole blocks, each classified two steps ahead of its decoding: the
      // decoding waits on the lookups of the classes, and this order lets
      // the next blocks' lookups run meanwhile instead of queueing behind
      // it (a fifth faster on Zen 5 than classifying each block just before
      // its decoding). `c` and `byte` are block i's, `c1` and `byte1` the
      // next one's when `ahead` (it is whole).
      v = _mm512_loadu_si512(p + i);
      c = qpd_classify(&t, v, _mm512_loadu_si512(p + i + 1), _mm512_loadu_si512(p + i + 2), &byte);
      __m512i v1 = v, c1 = c, byte1 = byte;
      int ahead = end_full - i > 64;
      if (ahead) {
        v1 = _mm512_loadu_si512(p + i + 64);
        c1 = qpd_classify(&t, v1, _mm512_loadu_si512(p + i + 65), _mm512_loadu_si512(p + i + 66),
                          &byte1);
      }
      for (;;) {
        stop = qpd_stops(c);
        if (stop != 0 || !ahead) {
          dec = qpd_decode(v, byte, c, prev, &keep);
          if (stop != 0)
            goto careful;
          qpd_put(out, &o, _cvtmask64_u64(keep), dec);
          i += 64;
          prev = c;
          break;
        }
        __m512i v2 = v1, c2 = c1, byte2 = byte1;
        int ahead2 = end_full - i > 128;
        if (ahead2) {
          v2 = _mm512_loadu_si512(p + i + 128);
          c2 = qpd_classify(&t, v2, _mm512_loadu_si512(p + i + 129),
                            _mm512_loadu_si512(p + i + 130), &byte2);
        }
        dec = qpd_decode(v, byte, c, prev, &keep);
        qpd_put(out, &o, _cvtmask64_u64(keep), dec);
        i += 64;
        prev = c;
        v = v1, c = c1, byte = byte1;
        v1 = v2, c1 = c2, byte1 = byte2, ahead = ahead2;
      }
    }
    // The last bytes, through masked loads that read nothing past the end,
    // so that short inputs stay on this path: the zeros after the end are
    // no hex digit, CR or LF, so no sequence reaches past it.
    if (i >= in_len || out_cap - o < 64)
      break;
    size_t avail = in_len - i;
    len = avail < 64 ? avail : 64;
    v = _mm512_maskz_loadu_epi8(low_bytes(len), p + i);
    __m512i n = _mm512_maskz_loadu_epi8(low_bytes(avail - 1), p + i + 1);
    __m512i n2 = avail >= 2 ? _mm512_maskz_loadu_epi8(low_bytes(avail - 2), p + i + 2)
                            : _mm512_setzero_si512();
    c = qpd_classify(&t, v, n, n2, &byte);
    stop = qpd_stops(c);
    dec = qpd_decode(v, byte, c, prev, &keep);
    if (avail < 66) {
      // A `=` in the last two bytes may begin a sequence that the next
      // call completes (or one that the end of the input drops), and the
      // block ends at the end of the input.
      uint64_t eq = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('='));
      stop |= eq & (avail >= 2 ? ~(uint64_t)0 << (avail - 2) : ~(uint64_t)0);
      stop |= len < 64 ? (uint64_t)1 << len : 0;
    }
    if (stop == 0) {
      qpd_put(out, &o, _cvtmask64_u64(keep), dec);
      i += 64;
      prev = c;
      continue;
    }
  careful : {
    // Sequences before the stop end before it: a stop is a space, a tab
    // or a `=`, never a hex digit, CR or LF.
    unsigned k = (unsigned)_tzcnt_u64(stop);
    qpd_put(out, &o, _bzhi_u64(_cvtmask64_u64(keep), k), dec);
    i += k;
    prev = _mm512_setzero_si512();
    if (k == len)
      break; // the end of the input
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  }
  // The digits or line break of a sequence that began in the last two
  // bytes of the last block are already decoded or dropped.
  uint8_t last[16];
  _mm_storeu_si128((__m128i *)last, _mm512_extracti32x4_epi32(prev, 3));
  if (last[15] & (QPD_ESC | QPD_SOFT3))
    i += 2;
  else if (last[15] & QPD_SOFT2 || last[14] & (QPD_ESC | QPD_SOFT3))
    i += 1;
  *written = o;
  return i;
}

static size_t qp_decode_avx512(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len) {
  if (in_len < QPD_AVX512_MIN_LEN)
    return enc_qp_decode_avx2(out, out_cap, written, in, in_len);
  return enc_qp_decode_avx512_blocks(out, out_cap, written, in, in_len);
}

const struct enc_impl enc_impl_avx512 = {
    .name = "avx512",
    .required = ENC_CPU_AVX512VBMI2 | ENC_CPU_AVX2 | ENC_CPU_SSSE3 | ENC_CPU_SSE41 | ENC_CPU_BMI1 |
                ENC_CPU_BMI2 | ENC_CPU_LZCNT | ENC_CPU_POPCNT,
    .b64_encode = b64_encode_avx512,
    .b64_encode_lines = b64_encode_lines_avx512,
    .b64_decode = b64_decode_avx512,
    .b64_decode_has_large = 1, // b64_decode_large() from ENC_B64D_LARGE_MIN on
    .b64_decode_mime = b64_decode_mime_avx512,
    .b32_encode = enc_b32_encode_avx2,
    .b32_decode = enc_b32_decode_avx2,
    .qp_decode = qp_decode_avx512,
    .qp_encode = enc_qp_encode_avx2,
};
