// avx2.c: the AVX2 implementation, 32 bytes at a time: the SSE4.1 kernels'
// algorithms (src/x86/sse41.c) on both 128-bit lanes of a YMM register, with
// lane-crossing permutes where the output of the two lanes must be joined.
// MIME Base64 decoding takes whole 32-byte blocks of alphabet characters
// directly and packs blocks with line breaks or garbage through a staging
// buffer, so wrapped bodies stay on the vector path; the RFC 2045 shape,
// 76-column lines ended by CRLF, goes two lines (152 characters) at a time in
// five blocks, when decoding and when encoding with a wrap. Quoted-printable
// encoding is the shared x86 kernel (qp_encode_x86_internal.h), which the
// AVX-512 implementation also uses.
#include <immintrin.h>
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"
#include "qp_encode_x86_internal.h"

#define SET2(x) _mm256_broadcastsi128_si256(x)

// Base64 encoding.

static inline __m256i b64_enc_lookup(__m256i idx, int url) {
  const __m256i shift =
      SET2(url ? _mm_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 65, 0, 0)
               : _mm_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 65, 0, 0));
  __m256i reduced = _mm256_subs_epu8(idx, _mm256_set1_epi8(51));
  __m256i less = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), idx);
  reduced = _mm256_or_si256(reduced, _mm256_and_si256(less, _mm256_set1_epi8(13)));
  return _mm256_add_epi8(idx, _mm256_shuffle_epi8(shift, reduced));
}

// b64_enc_chars turns 12 bytes of each lane of `v` into 16 characters: the
// bytes at 0..11 of a lane whose entry of `shift` is 0, at 4..15 of one whose
// entry is 4.
static inline __m256i b64_enc_chars(__m256i v, __m256i shift, int url) {
  const __m256i spread = SET2(_mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
  v = _mm256_shuffle_epi8(v, _mm256_add_epi8(spread, shift));
  __m256i t0 = _mm256_and_si256(v, _mm256_set1_epi32(0x0fc0fc00));
  __m256i t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x04000040));
  __m256i t2 = _mm256_and_si256(v, _mm256_set1_epi32(0x003f03f0));
  __m256i t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x01000010));
  return b64_enc_lookup(_mm256_or_si256(t1, t3), url);
}

// b64_enc_pair loads 16 bytes at `lo` and at `hi` into the two lanes.
static inline __m256i b64_enc_pair(const uint8_t *lo, const uint8_t *hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                 _mm_loadu_si128((const __m128i *)hi), 1);
}

// The encoder reads no byte beyond the whole groups it encodes: after the
// first block, each block of 24 bytes is one 32-byte load that starts 4 bytes
// early (the low lane takes its bytes from 4..15), and the last block ends
// exactly at the last whole group, overlapping the one before it (it
// rewrites the same characters), so that a short input is still all vector
// work: 64 bytes are three blocks.
static size_t b64_encode_avx2(char *out, const uint8_t *in, size_t in_len, int url) {
  const __m256i first = _mm256_setzero_si256();
  const __m256i early = _mm256_setr_epi64x(0x0404040404040404, 0x0404040404040404, 0, 0);
  const __m256i late = _mm256_setr_epi64x(0, 0, 0x0404040404040404, 0x0404040404040404);
  size_t g3 = in_len - in_len % 3;
  if (g3 < 24)
    return 0; // at most 7 groups: the scalar loop
  size_t i = 0;
  if (in_len >= 28) {
    _mm256_storeu_si256((__m256i *)out, b64_enc_chars(b64_enc_pair(in, in + 12), first, url));
    i = 24;
    for (; in_len - i >= 52; i += 48) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(in + i - 4));
      __m256i b = _mm256_loadu_si256((const __m256i *)(in + i + 20));
      _mm256_storeu_si256((__m256i *)(out + i / 3 * 4), b64_enc_chars(a, early, url));
      _mm256_storeu_si256((__m256i *)(out + i / 3 * 4 + 32), b64_enc_chars(b, early, url));
    }
    for (; in_len - i >= 28; i += 24) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(in + i - 4));
      _mm256_storeu_si256((__m256i *)(out + i / 3 * 4), b64_enc_chars(a, early, url));
    }
  }
  // At most 27 bytes of whole groups are left: a block at `i` whose high
  // lane loads from 4 bytes early, then the last block.
  if (g3 - i >= 24) {
    __m256i v = b64_enc_pair(in + i, in + i + 8);
    _mm256_storeu_si256((__m256i *)(out + i / 3 * 4), b64_enc_chars(v, late, url));
    i += 24;
  }
  if (i < g3) {
    size_t s = g3 - 24;
    __m256i v = b64_enc_pair(in + s, in + s + 8);
    _mm256_storeu_si256((__m256i *)(out + s / 3 * 4), b64_enc_chars(v, late, url));
  }
  return g3;
}

// b64_line76 encodes one 57-byte line to 76 characters and a CRLF. `a` is
// the line's first block (from the caller, who knows whether the 4 bytes
// before the line may be read); the second comes from a load 4 bytes early
// and the third, which ends at the line's last byte and overlaps the second,
// from a load of the line's last 32 bytes whose dwords are moved into place.
static inline void b64_line76(char *out, const uint8_t *in, __m256i a, int url) {
  const __m256i early = _mm256_setr_epi64x(0x0404040404040404, 0x0404040404040404, 0, 0);
  const __m256i zero = _mm256_setzero_si256();
  __m256i b = _mm256_loadu_si256((const __m256i *)(in + 20));
  __m256i c = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(in + 25)),
                                          _mm256_setr_epi32(2, 3, 4, 4, 5, 6, 7, 7));
  _mm256_storeu_si256((__m256i *)out, a);
  _mm256_storeu_si256((__m256i *)(out + 32), b64_enc_chars(b, early, url));
  _mm256_storeu_si256((__m256i *)(out + 44), b64_enc_chars(c, zero, url));
  memcpy(out + 76, "\r\n", 2);
}

// b64_pair76 encodes two 57-byte lines to two lines of 76 characters, each
// with its CRLF: 152 characters in five blocks rather than six. `a` is the
// first block, as in b64_line76. The block that spans the first line break
// is stored twice: whole, 2 bytes late (which puts its last 20 characters
// after the break), and its first 12 characters in place.
static inline void b64_pair76(char *out, const uint8_t *in, __m256i a, int url) {
  const __m256i early = _mm256_setr_epi64x(0x0404040404040404, 0x0404040404040404, 0, 0);
  __m256i b = _mm256_loadu_si256((const __m256i *)(in + 20));
  __m256i c = _mm256_loadu_si256((const __m256i *)(in + 44));
  __m256i d = _mm256_loadu_si256((const __m256i *)(in + 68));
  __m256i e = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(in + 82)),
                                          _mm256_setr_epi32(2, 3, 4, 4, 5, 6, 7, 7));
  _mm256_storeu_si256((__m256i *)out, a);
  _mm256_storeu_si256((__m256i *)(out + 32), b64_enc_chars(b, early, url));
  __m256i cc = b64_enc_chars(c, early, url);
  _mm256_storeu_si256((__m256i *)(out + 66), cc);
  _mm_maskstore_epi32((int *)(out + 64), _mm_setr_epi32(-1, -1, -1, 0), _mm256_castsi256_si128(cc));
  memcpy(out + 76, "\r\n", 2);
  _mm256_storeu_si256((__m256i *)(out + 98), b64_enc_chars(d, early, url));
  _mm256_storeu_si256((__m256i *)(out + 122), b64_enc_chars(e, _mm256_setzero_si256(), url));
  memcpy(out + 154, "\r\n", 2);
}

// Lines of 76 characters (RFC 2045 Base64) are encoded here two at a time,
// with no call per line; other widths are left to the engine's per-line
// path.
size_t enc_b64_encode_lines_avx2(char *out, const uint8_t *in, size_t in_len, size_t wrap,
                                 int url) {
  const __m256i early = _mm256_setr_epi64x(0x0404040404040404, 0x0404040404040404, 0, 0);
  if (wrap != 76 || in_len < 57)
    return 0;
  size_t n = in_len / 57;
  // The first line may not read before its start.
  __m256i first = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)in),
                                              _mm256_setr_epi32(0, 1, 2, 2, 3, 4, 5, 5));
  first = b64_enc_chars(first, _mm256_setzero_si256(), url);
  size_t l = 0;
  if (n >= 2) {
    b64_pair76(out, in, first, url);
    for (l = 2; n - l >= 2; l += 2) {
      const uint8_t *p = in + l * 57;
      __m256i a = _mm256_loadu_si256((const __m256i *)(p - 4));
      b64_pair76(out + l * 78, p, b64_enc_chars(a, early, url), url);
    }
  }
  if (l < n) {
    const uint8_t *p = in + l * 57;
    __m256i a =
        l == 0 ? first : b64_enc_chars(_mm256_loadu_si256((const __m256i *)(p - 4)), early, url);
    b64_line76(out + l * 78, p, a, url);
  }
  return n;
}

// Base64 decoding.

struct b64_luts {
  __m256i lo, hi, roll, special;
};

static inline struct b64_luts b64_luts(int url) {
  struct b64_luts l;
  if (url) {
    l.lo = SET2(_mm_setr_epi8(0x23, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07,
                              0x1f, 0x1f, 0x1d, 0x1f, 0x0f));
    l.hi = SET2(_mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x20, 0x10, 0x20, 0x08, 0x01, 0x01, 0x01,
                              0x01, 0x01, 0x01, 0x01, 0x01));
    l.roll = SET2(_mm_setr_epi8(0, 0, 0x11, 0x04, (char)0xbf, (char)0xbf, (char)0xb9, (char)0xb9, 0,
                                0, 0, 0, 0, (char)0xe0, 0, 0));
    l.special = _mm256_set1_epi8('_');
  } else {
    l.lo = SET2(_mm_setr_epi8(0x13, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07,
                              0x0d, 0x0f, 0x0f, 0x0f, 0x0d));
    l.hi = SET2(_mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x10, 0x08, 0x10, 0x08, 0x01, 0x01, 0x01,
                              0x01, 0x01, 0x01, 0x01, 0x01));
    l.roll = SET2(_mm_setr_epi8(0, 0, 0x13, 0x04, (char)0xbf, (char)0xbf, (char)0xb9, (char)0xb9, 0,
                                0, 0x10, 0, 0, 0, 0, 0));
    l.special = _mm256_set1_epi8('/');
  }
  return l;
}

// b64_classify_v returns a vector that is non-zero exactly in the bytes of
// `v` that are not in the alphabet, and the sextet values in `*vals`.
static inline __m256i b64_classify_v(const struct b64_luts *l, __m256i v, __m256i *vals) {
  __m256i hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), _mm256_set1_epi8(0x0f));
  __m256i lo = _mm256_and_si256(v, _mm256_set1_epi8(0x0f));
  __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(l->lo, lo), _mm256_shuffle_epi8(l->hi, hi));
  __m256i idx =
      _mm256_or_si256(hi, _mm256_and_si256(_mm256_cmpeq_epi8(v, l->special), _mm256_set1_epi8(8)));
  *vals = _mm256_add_epi8(v, _mm256_shuffle_epi8(l->roll, idx));
  return bad;
}

// b64_classify returns a bit per byte of `v` that is not in the alphabet and
// the sextet values in `*vals`.
static inline uint32_t b64_classify(const struct b64_luts *l, __m256i v, __m256i *vals) {
  __m256i bad = b64_classify_v(l, v, vals);
  return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(bad, _mm256_setzero_si256()));
}

// b64_pack turns 32 sextets into 24 bytes (bytes 0..23).
static inline __m256i b64_pack(__m256i vals) {
  __m256i ab = _mm256_maddubs_epi16(vals, _mm256_set1_epi32(0x01400140));
  __m256i abcd = _mm256_madd_epi16(ab, _mm256_set1_epi32(0x00011000));
  __m256i b = _mm256_shuffle_epi8(
      abcd, SET2(_mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1)));
  return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
}

static inline __m128i b64_pack16(__m128i vals) {
  __m128i ab = _mm_maddubs_epi16(vals, _mm_set1_epi32(0x01400140));
  __m128i abcd = _mm_madd_epi16(ab, _mm_set1_epi32(0x00011000));
  return _mm_shuffle_epi8(abcd,
                          _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
}

static size_t b64_decode_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int url) {
  struct b64_luts l = b64_luts(url);
  size_t i = 0, o = 0;
  // Two blocks per check; a pair with a bad character goes to the loop
  // below, which stops at the block that holds it.
  while (in_len - i >= 64 && out_cap - o >= 56) {
    __m256i va, vb;
    __m256i bad = _mm256_or_si256(
        b64_classify_v(&l, _mm256_loadu_si256((const __m256i *)(in + i)), &va),
        b64_classify_v(&l, _mm256_loadu_si256((const __m256i *)(in + i + 32)), &vb));
    if (!_mm256_testz_si256(bad, bad))
      break;
    _mm256_storeu_si256((__m256i *)(out + o), b64_pack(va));
    _mm256_storeu_si256((__m256i *)(out + o + 24), b64_pack(vb));
    i += 64;
    o += 48;
  }
  while (in_len - i >= 32 && out_cap - o >= 32) {
    __m256i vals;
    if (b64_classify(&l, _mm256_loadu_si256((const __m256i *)(in + i)), &vals) != 0)
      break;
    _mm256_storeu_si256((__m256i *)(out + o), b64_pack(vals));
    i += 32;
    o += 24;
  }
  // One half-width step, as in the encoder.
  if (in_len - i >= 16 && out_cap - o >= 16) {
    __m256i vals;
    __m256i v = _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i *)(in + i)));
    if ((b64_classify(&l, v, &vals) & 0xFFFF) == 0) {
      _mm_storeu_si128((__m128i *)(out + o), _mm256_castsi256_si128(b64_pack(vals)));
      i += 16;
      o += 12;
    }
  }
  *written = o;
  return i;
}

// compress16 packs the bytes of `v` that `keep` selects to the front of
// `dst` (writes 24 bytes).
static inline void compress16(uint8_t *dst, __m128i v, unsigned keep) {
  unsigned lo = keep & 0xFF, hi = (keep >> 8) & 0xFF;
  __m128i sl = _mm_loadl_epi64((const __m128i *)enc_compress8[lo]);
  __m128i sh = _mm_or_si128(_mm_loadl_epi64((const __m128i *)enc_compress8[hi]), _mm_set1_epi8(8));
  __m128i packed = _mm_shuffle_epi8(v, _mm_unpacklo_epi64(sl, sh));
  _mm_storeu_si128((__m128i *)dst, packed);
  _mm_storeu_si128((__m128i *)(dst + __builtin_popcount(lo)), _mm_unpackhi_epi64(packed, packed));
}

// Longest line that b64_measure_line accepts: MIME lines have at most 76
// characters, and a bound keeps a failed measurement cheap.
enum { B64_LINE_MAX = 256 };

// b64_measure_line measures the line at `in` (with `avail` bytes from there):
// its alphabet characters, then a CRLF or LF. It accepts only the lines that
// the line loop can decode: a multiple of 4 characters, at least 32.
static int b64_measure_line(const struct b64_luts *l, const uint8_t *dt, const char *in,
                            size_t avail, size_t *len, size_t *brk) {
  size_t n = 0, lim = avail < B64_LINE_MAX ? avail : B64_LINE_MAX;
  // 32 characters at a time where they are readable (a short body is
  // mostly this measurement), then one at a time.
  uint32_t bad = 0;
  for (; lim - n >= 32; n += 32) {
    __m256i vals;
    bad = b64_classify(l, _mm256_loadu_si256((const __m256i *)(in + n)), &vals);
    if (bad != 0)
      break;
  }
  if (bad != 0) {
    n += (size_t)_tzcnt_u32(bad);
  } else {
    while (n < lim && dt[(uint8_t)in[n]] < 64)
      n++;
  }
  if (n < 32 || n % 4 != 0 || n == lim)
    return 0;
  if (in[n] == '\n') {
    *brk = 1;
  } else if (in[n] == '\r' && avail - n >= 2 && in[n + 1] == '\n') {
    *brk = 2;
  } else {
    return 0;
  }
  *len = n;
  return 1;
}

// b64_decode_line decodes the `len` characters at `in` (a multiple of 4, at
// least 32) to 3 * len / 4 bytes at `out`, writing up to 8 bytes beyond them,
// and returns non-zero if any of them is outside the alphabet (the bytes
// written are then meaningless). The last block overlaps the one before it
// at a group boundary, so every length is whole blocks.
static inline __attribute__((always_inline)) uint32_t
b64_decode_line(const struct b64_luts *l, uint8_t *out, const char *in, size_t len) {
  uint32_t bad = 0;
  __m256i vals;
  size_t off = 0;
  for (; len - off > 32; off += 32) {
    bad |= b64_classify(l, _mm256_loadu_si256((const __m256i *)(in + off)), &vals);
    _mm256_storeu_si256((__m256i *)(out + off / 4 * 3), b64_pack(vals));
  }
  off = len - 32;
  bad |= b64_classify(l, _mm256_loadu_si256((const __m256i *)(in + off)), &vals);
  _mm256_storeu_si256((__m256i *)(out + off / 4 * 3), b64_pack(vals));
  return bad;
}

// How far ahead the MIME Base64 loops prefetch their input: the reasons
// are at B64M_PREFETCH in avx512.c. (The QP loops measured no gain.)
enum { ENC_DECODE_PREFETCH = 16384 };

// b64_decode_pairs76 decodes pairs of 76-column lines ended by CRLF (the
// RFC 2045 shape) from the start of `in`: 152 characters in five blocks
// rather than six, the block across the first line break made of two loads
// joined at a dword boundary (the line's last 12 characters and the next
// line's first 20), the last block overlapping the one before it. It stops
// before a pair with another shape or a character outside the alphabet and
// returns the input consumed; the caller's line loop takes over there.
static size_t b64_decode_pairs76(const struct b64_luts *l, uint8_t *out, size_t out_cap,
                                 size_t *written, const char *in, size_t in_len) {
  size_t i = 0, o = 0;
  while (in_len - i >= 156 && out_cap - o >= 122) {
    const char *p = in + i;
    // Three lines cover the 156 characters of a step wherever they start.
    __builtin_prefetch(p + ENC_DECODE_PREFETCH, 0, 3);
    __builtin_prefetch(p + ENC_DECODE_PREFETCH + 64, 0, 3);
    __builtin_prefetch(p + ENC_DECODE_PREFETCH + 128, 0, 3);
    uint16_t b1, b2;
    memcpy(&b1, p + 76, 2);
    memcpy(&b2, p + 154, 2);
    if (b1 != b2 || b1 != (uint16_t)('\r' | '\n' << 8))
      break;
    __m256i v0, v1, v2, v3, v4;
    __m256i bad = b64_classify_v(l, _mm256_loadu_si256((const __m256i *)p), &v0);
    bad =
        _mm256_or_si256(bad, b64_classify_v(l, _mm256_loadu_si256((const __m256i *)(p + 32)), &v1));
    __m256i join = _mm256_blend_epi32(_mm256_loadu_si256((const __m256i *)(p + 64)),
                                      _mm256_loadu_si256((const __m256i *)(p + 66)), 0xF8);
    bad = _mm256_or_si256(bad, b64_classify_v(l, join, &v2));
    bad =
        _mm256_or_si256(bad, b64_classify_v(l, _mm256_loadu_si256((const __m256i *)(p + 98)), &v3));
    bad = _mm256_or_si256(bad,
                          b64_classify_v(l, _mm256_loadu_si256((const __m256i *)(p + 122)), &v4));
    if (!_mm256_testz_si256(bad, bad))
      break;
    _mm256_storeu_si256((__m256i *)(out + o), b64_pack(v0));
    _mm256_storeu_si256((__m256i *)(out + o + 24), b64_pack(v1));
    _mm256_storeu_si256((__m256i *)(out + o + 48), b64_pack(v2));
    _mm256_storeu_si256((__m256i *)(out + o + 72), b64_pack(v3));
    _mm256_storeu_si256((__m256i *)(out + o + 90), b64_pack(v4));
    i += 156;
    o += 114;
  }
  *written = o;
  return i;
}

// b64_decode_lines decodes the regular lines at the start of `in`: it learns
// a line's length and break from the first line and decodes each following
// line of the same shape straight from the input, with no staging. A line of
// another shape is measured once; if it does not qualify either, the lines
// end and the general loop takes over. Returns the input consumed.
static size_t b64_decode_lines(const struct b64_luts *l, const uint8_t *dt, uint8_t *out,
                               size_t out_cap, size_t *written, const char *in, size_t in_len) {
  size_t i = 0, o = 0, len = 0, brk = 0;
  int fresh = 0;
  for (;;) {
    if (len == 0) {
      if (!b64_measure_line(l, dt, in + i, in_len - i, &len, &brk))
        break;
      fresh = 1;
    }
    if (len == 76 && brk == 2) {
      size_t w, used = b64_decode_pairs76(l, out + o, out_cap - o, &w, in + i, in_len - i);
      if (used > 0) {
        i += used;
        o += w;
        fresh = 0;
      }
    }
    size_t bytes = len / 4 * 3;
    if (in_len - i < len + brk || out_cap - o < bytes + 8)
      break;
    __builtin_prefetch(in + i + ENC_DECODE_PREFETCH, 0, 3);
    __builtin_prefetch(in + i + ENC_DECODE_PREFETCH + 64, 0, 3);
    const char *e = in + i + len;
    int ok = brk == 2 ? e[0] == '\r' && e[1] == '\n' : e[0] == '\n';
    if (ok) {
      uint32_t bad = len == 76 ? b64_decode_line(l, out + o, in + i, 76)
                               : b64_decode_line(l, out + o, in + i, len);
      ok = bad == 0;
    }
    if (!ok) {
      if (fresh)
        break;
      len = 0;
      continue;
    }
    fresh = 0;
    i += len + brk;
    o += bytes;
  }
  *written = o;
  return i;
}

size_t enc_b64_decode_mime_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  struct b64_luts l = b64_luts(url);
  const __m256i pad = _mm256_set1_epi8('=');
  uint8_t stage[96];
  size_t ns = 0, i = 0, o = 0;
  i = b64_decode_lines(&l, url ? enc_b64_dtab_url : enc_b64_dtab_std, out, out_cap, &o, in, in_len);
  while (in_len - i >= 32 && out_cap - o >= 64) {
    __builtin_prefetch(in + i + ENC_DECODE_PREFETCH, 0, 3);
    __m256i v = _mm256_loadu_si256((const __m256i *)(in + i));
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, pad)) != 0)
      break;
    __m256i vals;
    uint32_t keep = ~b64_classify(&l, v, &vals);
    i += 32;
    if (keep == 0xFFFFFFFFu && ns == 0) {
      _mm256_storeu_si256((__m256i *)(out + o), b64_pack(vals));
      o += 24;
      continue;
    }
    compress16(stage + ns, _mm256_castsi256_si128(vals), keep & 0xFFFF);
    ns += (size_t)__builtin_popcount(keep & 0xFFFF);
    compress16(stage + ns, _mm256_extracti128_si256(vals, 1), keep >> 16);
    ns += (size_t)__builtin_popcount(keep >> 16);
    size_t s = 0;
    for (; ns - s >= 16; s += 16) {
      _mm_storeu_si128((__m128i *)(out + o),
                       b64_pack16(_mm_loadu_si128((const __m128i *)(stage + s))));
      o += 12;
    }
    ns -= s;
    memmove(stage, stage + s, ns);
  }
  size_t g = 0;
  for (; ns - g >= 4; g += 4) {
    uint32_t v = (uint32_t)stage[g] << 18 | (uint32_t)stage[g + 1] << 12 |
                 (uint32_t)stage[g + 2] << 6 | stage[g + 3];
    out[o++] = (uint8_t)(v >> 16);
    out[o++] = (uint8_t)(v >> 8);
    out[o++] = (uint8_t)v;
  }
  uint32_t a = 0;
  for (; g < ns; g++)
    a = a << 6 | stage[g];
  *acc = a;
  *nacc = (uint32_t)(ns % 4);
  *written = o;
  return i;
}

// Base32 (see sse41.c for the windows and multipliers).

size_t enc_b32_encode_avx2(char *out, const uint8_t *in, size_t in_len, int hex) {
  const __m256i win0 = SET2(_mm_setr_epi8(1, 0, 1, 0, 2, 1, 2, 1, 3, 2, 4, 3, 4, 3, 5, 4));
  const __m256i win1 = _mm256_add_epi8(win0, _mm256_set1_epi8(5));
  const __m256i mul =
      SET2(_mm_setr_epi16(1 << 5, 1 << 10, 1 << 7, 1 << 12, 1 << 9, 1 << 6, 1 << 11, 1 << 8));
  const __m256i five = _mm256_set1_epi16(31);
  const __m256i lo_off = _mm256_set1_epi8(hex ? '0' : 'A');
  const __m256i hi_off = _mm256_set1_epi8(hex ? 'A' - 10 : '2' - 26);
  const __m256i split = _mm256_set1_epi8(hex ? 10 : 26);
  size_t i = 0;
  for (; in_len - i >= 26; i += 20) {
    __m128i a = _mm_loadu_si128((const __m128i *)(in + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(in + i + 10));
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
    __m256i f0 = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(v, win0), mul), five);
    __m256i f1 = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(v, win1), mul), five);
    __m256i f = _mm256_packus_epi16(f0, f1);
    __m256i off = _mm256_blendv_epi8(hi_off, lo_off, _mm256_cmpgt_epi8(split, f));
    _mm256_storeu_si256((__m256i *)out, _mm256_add_epi8(f, off));
    out += 32;
  }
  return i;
}

static inline __m256i in_range(__m256i v, char lo, char hi) {
  return _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8((char)(lo - 1))),
                          _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(hi + 1)), v));
}

size_t enc_b32_decode_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                           size_t in_len, int hex) {
  size_t i = 0, o = 0;
  while (in_len - i >= 32 && out_cap - o >= 26) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(in + i));
    __m256i m1, m2, off;
    if (hex) {
      m1 = in_range(v, '0', '9');
      m2 = in_range(v, 'A', 'V');
      off = _mm256_blendv_epi8(_mm256_set1_epi8(10 - 'A'), _mm256_set1_epi8(-'0'), m1);
    } else {
      m1 = in_range(v, 'A', 'Z');
      m2 = in_range(v, '2', '7');
      off = _mm256_blendv_epi8(_mm256_set1_epi8(26 - '2'), _mm256_set1_epi8(-'A'), m1);
    }
    if ((uint32_t)_mm256_movemask_epi8(_mm256_or_si256(m1, m2)) != 0xFFFFFFFFu)
      break;
    __m256i vals = _mm256_add_epi8(v, off);
    __m256i p10 = _mm256_maddubs_epi16(vals, _mm256_set1_epi16(0x0120));
    __m256i p20 = _mm256_madd_epi16(p10, _mm256_set1_epi32(0x00010400));
    __m256i g = _mm256_or_si256(
        _mm256_and_si256(_mm256_slli_epi64(p20, 20), _mm256_set1_epi64x(0xFFFFF00000)),
        _mm256_srli_epi64(p20, 32));
    __m256i bytes = _mm256_shuffle_epi8(
        g, SET2(_mm_setr_epi8(4, 3, 2, 1, 0, 12, 11, 10, 9, 8, -1, -1, -1, -1, -1, -1)));
    _mm_storeu_si128((__m128i *)(out + o), _mm256_castsi256_si128(bytes));
    _mm_storeu_si128((__m128i *)(out + o + 10), _mm256_extracti128_si256(bytes, 1));
    i += 32;
    o += 20;
  }
  *written = o;
  return i;
}

// Quoted-printable.

static inline __m256i eq8(__m256i v, char c) {
  return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c));
}

// hex_val returns the value of each hex digit of `v` (either case) and sets
// `*ok` to all ones where the byte is one.
static inline __m256i hex_val(__m256i v, __m256i *ok) {
  __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
  __m256i is_d = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d);
  __m256i l = _mm256_sub_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('a'));
  __m256i is_l = _mm256_cmpeq_epi8(_mm256_min_epu8(l, _mm256_set1_epi8(5)), l);
  *ok = _mm256_or_si256(is_d, is_l);
  return _mm256_blendv_epi8(_mm256_add_epi8(l, _mm256_set1_epi8(10)), d, is_d);
}

// QP decoding looks at 32 bytes and the two after them. Every `=XX` among
// them is decoded in place (the byte replaces the `=`) and its two digits
// are compressed away; the first byte that needs more thought (a `=` that is
// not followed by two hex digits, or white space that may be trailing) ends
// the block and goes to enc_qp_decode_special().
size_t enc_qp_decode_avx2(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                          size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  size_t i = 0, o = 0, w;
  uint32_t carry = 0; // the bytes of an escape or break that began in the last block
  while (in_len - i >= 34 && out_cap - o >= 40) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
    __m256i n = _mm256_loadu_si256((const __m256i *)(p + i + 1));
    __m256i ws = _mm256_or_si256(eq8(v, ' '), eq8(v, '\t'));
    // A space or tab stops the block when a byte up to 0x20 follows it: a
    // superset of white space and line breaks (all four are <= 0x20) that
    // costs two instructions; enc_qp_decode_special() keeps such a run when
    // no line break follows it.
    __m256i nws = _mm256_cmpeq_epi8(_mm256_min_epu8(n, _mm256_set1_epi8(0x20)), n);
    __m256i eq = eq8(v, '=');
    uint32_t ws_stop = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(ws, nws));
    uint32_t eqm = (uint32_t)_mm256_movemask_epi8(eq);
    // Every block goes the same way: whether one holds an escape is what
    // real text makes unpredictable.
    __m256i ok1, ok2;
    __m256i h1 = hex_val(n, &ok1);
    __m256i n2 = _mm256_loadu_si256((const __m256i *)(p + i + 2));
    __m256i h2 = hex_val(n2, &ok2);
    __m256i e = _mm256_and_si256(eq, _mm256_and_si256(ok1, ok2));
    uint32_t esc = (uint32_t)_mm256_movemask_epi8(e);
    // Soft line breaks, `=` CRLF and `=` LF, go whole.
    uint32_t soft3 = (uint32_t)_mm256_movemask_epi8(
        _mm256_and_si256(eq, _mm256_and_si256(eq8(n, '\r'), eq8(n2, '\n'))));
    uint32_t soft2 = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(eq, eq8(n, '\n')));
    __m256i byte = _mm256_or_si256(
        _mm256_and_si256(_mm256_slli_epi16(h1, 4), _mm256_set1_epi8((char)0xF0)), h2);
    __m256i dec = _mm256_blendv_epi8(v, byte, e);
    // The digits of each escape go; an escape or soft break in the last two
    // places has one or two bytes in the next block, which `carry` drops
    // there. The input
    // position then moves by a constant, so that the next loads need not
    // wait for this block's bytes. A stop is never a hex digit, so the
    // escapes before a stop end before it.
    uint64_t two = (uint64_t)(esc | soft3) << 1 | (uint64_t)soft2 << 1;
    uint64_t drop = two | (uint64_t)(esc | soft3) << 2 | soft3 | soft2;
    uint32_t keep = ~((uint32_t)drop | carry);
    uint32_t stop = (eqm & ~(esc | soft3 | soft2)) | ws_stop;
    uint32_t k = _tzcnt_u32(stop);
    keep = _bzhi_u32(keep, k);
    unsigned lo = keep & 0xFFFF;
    compress16(out + o, _mm256_castsi256_si128(dec), lo);
    o += (size_t)__builtin_popcount(lo);
    compress16(out + o, _mm256_extracti128_si256(dec, 1), keep >> 16);
    o += (size_t)__builtin_popcount(keep >> 16);
    if (stop == 0) {
      i += 32;
      carry = (uint32_t)(drop >> 32);
      continue;
    }
    i += k;
    carry = 0;
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  i += (size_t)__builtin_popcount(carry); // already decoded or dropped
  *written = o;
  return i;
}

// QP encoding: the x86 kernel (qp_encode_x86_internal.h) with AVX2's
// encodings of its instructions.
size_t enc_qp_encode_avx2(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                          size_t in_len, int binary, uint32_t *col) {
  return enc_qp_encode_x86(out, out_cap, written, in, in_len, binary, col);
}

const struct enc_impl enc_impl_avx2 = {
    .name = "avx2",
    .required = ENC_CPU_AVX2 | ENC_CPU_SSSE3 | ENC_CPU_SSE41 | ENC_CPU_BMI1 | ENC_CPU_BMI2 |
                ENC_CPU_LZCNT | ENC_CPU_POPCNT,
    .b64_encode = b64_encode_avx2,
    .b64_encode_lines = enc_b64_encode_lines_avx2,
    .b64_decode = b64_decode_avx2,
    .b64_decode_mime = enc_b64_decode_mime_avx2,
    .b32_encode = enc_b32_encode_avx2,
    .b32_decode = enc_b32_decode_avx2,
    .qp_decode = enc_qp_decode_avx2,
    .qp_encode = enc_qp_encode_avx2,
};
