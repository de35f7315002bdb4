// sse41.c: the SSE4.1 implementation (SSSE3 byte shuffles plus SSE4.1
// tests), 16 bytes at a time. Base64 follows the published pshufb techniques
// (Muła and Lemire): encoding spreads 12 bytes over 16 sextets with one
// shuffle and two 16-bit multiplies and maps them to ASCII through a
// 16-entry offset table; decoding validates and translates with two nibble
// lookups, then packs with multiply-adds and one shuffle. MIME decoding takes
// 76-column CRLF lines straight from the input and otherwise packs the
// alphabet characters of each block together (skipping line breaks and
// garbage without leaving the vector path) into a small staging buffer.
// Base32 uses the same shuffle-and-multiply idea with 5-bit fields. The
// quoted-printable decoder finds special bytes 16 at a time; the encoder is
// the x86 kernel all three x86 implementations share
// (qp_encode_x86_internal.h), which writes the escapes of 16 bytes with
// shuffles.
#include <smmintrin.h>
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"
#include "qp_encode_x86_internal.h"

// Base64 encoding.

static inline __m128i b64_enc_lookup(__m128i idx, int url) {
  // Offsets by class: 13 for 0..25, 0 for 26..51, 1..10 for digits, 11 and 12
  // for the two last characters.
  const __m128i shift =
      url ? _mm_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -17, 32, 65, 0, 0)
          : _mm_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 65, 0, 0);
  __m128i reduced = _mm_subs_epu8(idx, _mm_set1_epi8(51));
  __m128i less = _mm_cmpgt_epi8(_mm_set1_epi8(26), idx);
  reduced = _mm_or_si128(reduced, _mm_and_si128(less, _mm_set1_epi8(13)));
  return _mm_add_epi8(idx, _mm_shuffle_epi8(shift, reduced));
}

// b64_enc_split turns bytes 0..11 of `in` into 16 sextets, one per byte.
static inline __m128i b64_enc_split(__m128i in) {
  in = _mm_shuffle_epi8(in, _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
  __m128i t0 = _mm_and_si128(in, _mm_set1_epi32(0x0fc0fc00));
  __m128i t1 = _mm_mulhi_epu16(t0, _mm_set1_epi32(0x04000040));
  __m128i t2 = _mm_and_si128(in, _mm_set1_epi32(0x003f03f0));
  __m128i t3 = _mm_mullo_epi16(t2, _mm_set1_epi32(0x01000010));
  return _mm_or_si128(t1, t3);
}

static size_t b64_encode_sse41(char *out, const uint8_t *in, size_t in_len, int url) {
  size_t i = 0;
  for (; in_len - i >= 16; i += 12) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    _mm_storeu_si128((__m128i *)out, b64_enc_lookup(b64_enc_split(v), url));
    out += 16;
  }
  return i;
}

// b64_encode_lines_sse41 encodes 76-column lines (RFC 2045 Base64) with
// their CRLF straight into the output, five blocks per 57-byte line: four at
// input offsets 0, 12, 24 and 36, and a fifth that loads 16 bytes ending at
// the line's last byte and shifts its last 12 into place, so that no load
// leaves the line and the fifth block rewrites 4 characters of the fourth.
// Other widths are left to the engine's per-line path.
static size_t b64_encode_lines_sse41(char *out, const uint8_t *in, size_t in_len, size_t wrap,
                                     int url) {
  if (wrap != 76)
    return 0;
  size_t n = in_len / 57;
  for (size_t l = 0; l < n; l++, in += 57, out += 78) {
    __m128i a = _mm_loadu_si128((const __m128i *)in);
    __m128i b = _mm_loadu_si128((const __m128i *)(in + 12));
    __m128i c = _mm_loadu_si128((const __m128i *)(in + 24));
    __m128i d = _mm_loadu_si128((const __m128i *)(in + 36));
    __m128i e = _mm_srli_si128(_mm_loadu_si128((const __m128i *)(in + 41)), 4);
    _mm_storeu_si128((__m128i *)out, b64_enc_lookup(b64_enc_split(a), url));
    _mm_storeu_si128((__m128i *)(out + 16), b64_enc_lookup(b64_enc_split(b), url));
    _mm_storeu_si128((__m128i *)(out + 32), b64_enc_lookup(b64_enc_split(c), url));
    _mm_storeu_si128((__m128i *)(out + 48), b64_enc_lookup(b64_enc_split(d), url));
    _mm_storeu_si128((__m128i *)(out + 60), b64_enc_lookup(b64_enc_split(e), url));
    memcpy(out + 76, "\r\n", 2);
  }
  return n;
}

// Base64 decoding.

struct b64_luts {
  __m128i lo, hi, roll, special;
};

static inline struct b64_luts b64_luts(int url) {
  struct b64_luts l;
  if (url) {
    l.lo = _mm_setr_epi8(0x23, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x1f,
                         0x1f, 0x1d, 0x1f, 0x0f);
    l.hi = _mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x20, 0x10, 0x20, 0x08, 0x01, 0x01, 0x01, 0x01,
                         0x01, 0x01, 0x01, 0x01);
    l.roll = _mm_setr_epi8(0, 0, 0x11, 0x04, (char)0xbf, (char)0xbf, (char)0xb9, (char)0xb9, 0, 0,
                           0, 0, 0, (char)0xe0, 0, 0);
    l.special = _mm_set1_epi8('_');
  } else {
    l.lo = _mm_setr_epi8(0x13, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x0d,
                         0x0f, 0x0f, 0x0f, 0x0d);
    l.hi = _mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x10, 0x08, 0x10, 0x08, 0x01, 0x01, 0x01, 0x01,
                         0x01, 0x01, 0x01, 0x01);
    l.roll = _mm_setr_epi8(0, 0, 0x13, 0x04, (char)0xbf, (char)0xbf, (char)0xb9, (char)0xb9, 0, 0,
                           0x10, 0, 0, 0, 0, 0);
    l.special = _mm_set1_epi8('/');
  }
  return l;
}

// b64_classify returns a mask of the bytes of `v` that are not in the
// alphabet (0xFF) and their sextet values in `*vals` (valid bytes only).
static inline __m128i b64_classify(const struct b64_luts *l, __m128i v, __m128i *vals) {
  __m128i hi = _mm_and_si128(_mm_srli_epi32(v, 4), _mm_set1_epi8(0x0f));
  __m128i lo = _mm_and_si128(v, _mm_set1_epi8(0x0f));
  __m128i bad = _mm_and_si128(_mm_shuffle_epi8(l->lo, lo), _mm_shuffle_epi8(l->hi, hi));
  __m128i idx = _mm_or_si128(hi, _mm_and_si128(_mm_cmpeq_epi8(v, l->special), _mm_set1_epi8(8)));
  *vals = _mm_add_epi8(v, _mm_shuffle_epi8(l->roll, idx));
  return _mm_xor_si128(_mm_cmpeq_epi8(bad, _mm_setzero_si128()), _mm_set1_epi8(-1));
}

// b64_pack turns 16 sextets into 12 bytes (in bytes 0..11).
static inline __m128i b64_pack(__m128i vals) {
  __m128i ab = _mm_maddubs_epi16(vals, _mm_set1_epi32(0x01400140));
  __m128i abcd = _mm_madd_epi16(ab, _mm_set1_epi32(0x00011000));
  return _mm_shuffle_epi8(abcd,
                          _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
}

static size_t b64_decode_sse41(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len, int url) {
  struct b64_luts l = b64_luts(url);
  size_t i = 0, o = 0;
  while (in_len - i >= 16 && out_cap - o >= 16) {
    __m128i vals, bad = b64_classify(&l, _mm_loadu_si128((const __m128i *)(in + i)), &vals);
    if (!_mm_testz_si128(bad, bad))
      break;
    _mm_storeu_si128((__m128i *)(out + o), b64_pack(vals));
    i += 16;
    o += 12;
  }
  *written = o;
  return i;
}

// b64_compress packs the bytes of `v` that `keep` (16 bits) selects to the
// front of `dst` (16 bytes written; popcount(keep) meaningful).
static inline void b64_compress(uint8_t *dst, __m128i v, unsigned keep) {
  unsigned lo = keep & 0xFF, hi = keep >> 8;
  __m128i sl = _mm_loadl_epi64((const __m128i *)enc_compress8[lo]);
  __m128i sh = _mm_loadl_epi64((const __m128i *)enc_compress8[hi]);
  sh = _mm_or_si128(sh, _mm_set1_epi8(8)); // 0x80 stays "zero", others point into the high half
  __m128i packed = _mm_shuffle_epi8(v, _mm_unpacklo_epi64(sl, sh));
  _mm_storeu_si128((__m128i *)dst, packed);
  _mm_storeu_si128((__m128i *)(dst + __builtin_popcount(lo)), _mm_unpackhi_epi64(packed, packed));
}

// b64_decode_lines76 decodes 76-column lines ended by CRLF (the RFC 2045
// shape) from the start of `in`, each straight from the input in five
// blocks (the last overlaps the fourth at a group boundary), with no
// staging. It stops before a line of another shape or with a character
// outside the alphabet and returns the input consumed.
static size_t b64_decode_lines76(const struct b64_luts *l, uint8_t *out, size_t out_cap,
                                 size_t *written, const char *in, size_t in_len) {
  size_t i = 0, o = 0;
  while (in_len - i >= 78 && out_cap - o >= 61) {
    const char *p = in + i;
    if (p[76] != '\r' || p[77] != '\n')
      break;
    __m128i v0, v1, v2, v3, v4;
    __m128i bad = b64_classify(l, _mm_loadu_si128((const __m128i *)p), &v0);
    bad = _mm_or_si128(bad, b64_classify(l, _mm_loadu_si128((const __m128i *)(p + 16)), &v1));
    bad = _mm_or_si128(bad, b64_classify(l, _mm_loadu_si128((const __m128i *)(p + 32)), &v2));
    bad = _mm_or_si128(bad, b64_classify(l, _mm_loadu_si128((const __m128i *)(p + 48)), &v3));
    bad = _mm_or_si128(bad, b64_classify(l, _mm_loadu_si128((const __m128i *)(p + 60)), &v4));
    if (!_mm_testz_si128(bad, bad))
      break;
    _mm_storeu_si128((__m128i *)(out + o), b64_pack(v0));
    _mm_storeu_si128((__m128i *)(out + o + 12), b64_pack(v1));
    _mm_storeu_si128((__m128i *)(out + o + 24), b64_pack(v2));
    _mm_storeu_si128((__m128i *)(out + o + 36), b64_pack(v3));
    _mm_storeu_si128((__m128i *)(out + o + 45), b64_pack(v4));
    i += 78;
    o += 57;
  }
  *written = o;
  return i;
}

static size_t b64_decode_mime_sse41(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                    size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  struct b64_luts l = b64_luts(url);
  const __m128i pad = _mm_set1_epi8('=');
  uint8_t stage[64]; // sextets taken from the input but not yet decoded
  size_t ns = 0, i = 0, o = 0;
  // A body of RFC 2045 lines goes line by line with no staging; the loop
  // below takes any other shape and what follows the regular lines.
  i = b64_decode_lines76(&l, out, out_cap, &o, in, in_len);
  while (in_len - i >= 16 && out_cap - o >= 64) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, pad)) != 0)
      break; // the end of the data is near: the scalar code finds it
    __m128i vals, bad = b64_classify(&l, v, &vals);
    unsigned keep = ~(unsigned)_mm_movemask_epi8(bad) & 0xFFFF;
    i += 16;
    if (keep == 0xFFFF && ns == 0) {
      _mm_storeu_si128((__m128i *)(out + o), b64_pack(vals));
      o += 12;
      continue;
    }
    b64_compress(stage + ns, vals, keep);
    ns += (size_t)__builtin_popcount(keep);
    if (ns >= 16) {
      _mm_storeu_si128((__m128i *)(out + o), b64_pack(_mm_loadu_si128((const __m128i *)stage)));
      o += 12;
      ns -= 16;
      memmove(stage, stage + 16, ns);
    }
  }
  // Whole groups left in the stage; the rest goes back as an open group.
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

// Base32.

static size_t b32_encode_sse41(char *out, const uint8_t *in, size_t in_len, int hex) {
  // For output character j of a group, the big-endian 16-bit window of
  // bytes k, k+1 (k = 5j / 8), shifted right by 11 - 5j % 8 through a
  // multiply-high by 2^(5 + 5j % 8).
  const __m128i win0 = _mm_setr_epi8(1, 0, 1, 0, 2, 1, 2, 1, 3, 2, 4, 3, 4, 3, 5, 4);
  const __m128i win1 = _mm_add_epi8(win0, _mm_set1_epi8(5));
  const __m128i mul =
      _mm_setr_epi16(1 << 5, 1 << 10, 1 << 7, 1 << 12, 1 << 9, 1 << 6, 1 << 11, 1 << 8);
  const __m128i lo_off = _mm_set1_epi8(hex ? '0' : 'A');
  const __m128i hi_off = _mm_set1_epi8(hex ? 'A' - 10 : '2' - 26);
  const __m128i split = _mm_set1_epi8(hex ? 10 : 26);
  size_t i = 0;
  for (; in_len - i >= 16; i += 10) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    const __m128i five = _mm_set1_epi16(31);
    __m128i f0 = _mm_and_si128(_mm_mulhi_epu16(_mm_shuffle_epi8(v, win0), mul), five);
    __m128i f1 = _mm_and_si128(_mm_mulhi_epu16(_mm_shuffle_epi8(v, win1), mul), five);
    __m128i f = _mm_packus_epi16(f0, f1);
    __m128i low = _mm_cmpgt_epi8(split, f);
    __m128i off = _mm_blendv_epi8(hi_off, lo_off, low);
    _mm_storeu_si128((__m128i *)out, _mm_add_epi8(f, off));
    out += 16;
  }
  return i;
}

static inline __m128i in_range(__m128i v, char lo, char hi) {
  return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(lo - 1))),
                       _mm_cmplt_epi8(v, _mm_set1_epi8((char)(hi + 1))));
}

static size_t b32_decode_sse41(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                               size_t in_len, int hex) {
  size_t i = 0, o = 0;
  while (in_len - i >= 16 && out_cap - o >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    __m128i m1, m2, off;
    if (hex) {
      m1 = in_range(v, '0', '9');
      m2 = in_range(v, 'A', 'V');
      off = _mm_blendv_epi8(_mm_set1_epi8(10 - 'A'), _mm_set1_epi8(-'0'), m1);
    } else {
      m1 = in_range(v, 'A', 'Z');
      m2 = in_range(v, '2', '7');
      off = _mm_blendv_epi8(_mm_set1_epi8(26 - '2'), _mm_set1_epi8(-'A'), m1);
    }
    if (_mm_movemask_epi8(_mm_or_si128(m1, m2)) != 0xFFFF)
      break;
    __m128i vals = _mm_add_epi8(v, off);
    __m128i p10 = _mm_maddubs_epi16(vals, _mm_set1_epi16(0x0120)); // v0 * 32 + v1
    __m128i p20 = _mm_madd_epi16(p10, _mm_set1_epi32(0x00010400)); // p0 * 1024 + p1
    __m128i g = _mm_or_si128(_mm_and_si128(_mm_slli_epi64(p20, 20), _mm_set1_epi64x(0xFFFFF00000)),
                             _mm_srli_epi64(p20, 32)); // 40 bits per 64-bit lane
    __m128i bytes =
        _mm_shuffle_epi8(g, _mm_setr_epi8(4, 3, 2, 1, 0, 12, 11, 10, 9, 8, -1, -1, -1, -1, -1, -1));
    _mm_storeu_si128((__m128i *)(out + o), bytes);
    i += 16;
    o += 10;
  }
  *written = o;
  return i;
}

// Quoted-printable.

static size_t qp_decode_sse41(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  size_t i = 0, o = 0, w;
  while (in_len - i >= 17 && out_cap - o >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i n = _mm_loadu_si128((const __m128i *)(p + i + 1));
    __m128i ws =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
    __m128i nws = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(n, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(n, _mm_set1_epi8('\t'))),
        _mm_or_si128(_mm_cmpeq_epi8(n, _mm_set1_epi8('\r')),
                     _mm_cmpeq_epi8(n, _mm_set1_epi8('\n'))));
    __m128i stop = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('=')), _mm_and_si128(ws, nws));
    unsigned m = (unsigned)_mm_movemask_epi8(stop);
    _mm_storeu_si128((__m128i *)(out + o), v);
    if (m == 0) {
      i += 16;
      o += 16;
      continue;
    }
    size_t k = (size_t)__builtin_ctz(m);
    i += k;
    o += k;
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  *written = o;
  return i;
}

// QP encoding: the x86 kernel (qp_encode_x86_internal.h).
static size_t qp_encode_sse41(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                              size_t in_len, int binary, uint32_t *col) {
  return enc_qp_encode_x86(out, out_cap, written, in, in_len, binary, col);
}

const struct enc_impl enc_impl_sse41 = {
    .name = "sse41",
    .required = ENC_CPU_SSSE3 | ENC_CPU_SSE41 | ENC_CPU_POPCNT,
    .b64_encode = b64_encode_sse41,
    .b64_encode_lines = b64_encode_lines_sse41,
    .b64_decode = b64_decode_sse41,
    .b64_decode_mime = b64_decode_mime_sse41,
    .b32_encode = b32_encode_sse41,
    .b32_decode = b32_decode_sse41,
    .qp_decode = qp_decode_sse41,
    .qp_encode = qp_encode_sse41,
};
