// neon.c: the NEON (Advanced SIMD) implementation for aarch64. Base64 uses
// the structure loads and stores of NEON: encoding deinterleaves 48 bytes
// into three registers (LD3), computes the four sextet registers with shifts
// and maps them through a 64-byte TBL, then interleaves 64 characters (ST4);
// decoding is the reverse, with the scalar decoding table split over two
// 64-byte TBL lookups, so that one check finds every invalid byte. MIME
// decoding takes 76-column CRLF lines straight from the input and otherwise
// packs the alphabet characters of each 16-byte block together with TBL and
// the compress table and decodes from a staging buffer. Base32 and
// quoted-printable follow the SSE4.1 kernels (src/x86/sse41.c), with the
// narrowing-shift idiom in place of a byte movemask.
#include <arm_neon.h>
#include <string.h>

#include "encodify_internal.h"
#include "kernels_internal.h"

// first_set returns the index of the first 0xFF byte of mask `m` (bytes are
// 0x00 or 0xFF), or 16 when there is none.
static inline size_t first_set(uint8x16_t m) {
  uint64_t bits = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
  return bits ? (size_t)__builtin_ctzll(bits) / 4 : 16;
}

static inline int any_set(uint8x16_t m) {
  return vmaxvq_u8(m) != 0;
}

static inline uint8x16x4_t table64(const uint8_t *t) {
  uint8x16x4_t r = {{vld1q_u8(t), vld1q_u8(t + 16), vld1q_u8(t + 32), vld1q_u8(t + 48)}};
  return r;
}

// Base64.

static size_t b64_encode_neon(char *out, const uint8_t *in, size_t in_len, int url) {
  const uint8x16x4_t abc = table64((const uint8_t *)(url ? enc_b64_alpha_url : enc_b64_alpha_std));
  const uint8x16_t m63 = vdupq_n_u8(63);
  size_t i = 0;
  for (; in_len - i >= 48; i += 48) {
    uint8x16x3_t b = vld3q_u8(in + i);
    uint8x16x4_t s;
    s.val[0] = vshrq_n_u8(b.val[0], 2);
    s.val[1] = vandq_u8(vorrq_u8(vshlq_n_u8(b.val[0], 4), vshrq_n_u8(b.val[1], 4)), m63);
    s.val[2] = vandq_u8(vorrq_u8(vshlq_n_u8(b.val[1], 2), vshrq_n_u8(b.val[2], 6)), m63);
    s.val[3] = vandq_u8(b.val[2], m63);
    for (int k = 0; k < 4; k++)
      s.val[k] = vqtbl4q_u8(abc, s.val[k]);
    vst4q_u8((uint8_t *)out, s);
    out += 64;
  }
  return i;
}

// b64_encode_lines_neon encodes 76-column lines (RFC 2045 Base64) with their
// CRLF straight into the output: one LD3/ST4 block of 48 bytes and a
// half-width block of the line's last 24 bytes (8 groups), whose first 5
// groups rewrite characters the first block wrote, so that no load leaves
// the line. Other widths are left to the engine's per-line path.
static size_t b64_encode_lines_neon(char *out, const uint8_t *in, size_t in_len, size_t wrap,
                                    int url) {
  if (wrap != 76)
    return 0;
  const uint8x16x4_t abc = table64((const uint8_t *)(url ? enc_b64_alpha_url : enc_b64_alpha_std));
  const uint8x16_t m63 = vdupq_n_u8(63);
  const uint8x8_t m63h = vdup_n_u8(63);
  size_t n = in_len / 57;
  for (size_t l = 0; l < n; l++, in += 57, out += 78) {
    uint8x16x3_t b = vld3q_u8(in);
    uint8x16x4_t s;
    s.val[0] = vshrq_n_u8(b.val[0], 2);
    s.val[1] = vandq_u8(vorrq_u8(vshlq_n_u8(b.val[0], 4), vshrq_n_u8(b.val[1], 4)), m63);
    s.val[2] = vandq_u8(vorrq_u8(vshlq_n_u8(b.val[1], 2), vshrq_n_u8(b.val[2], 6)), m63);
    s.val[3] = vandq_u8(b.val[2], m63);
    for (int k = 0; k < 4; k++)
      s.val[k] = vqtbl4q_u8(abc, s.val[k]);
    uint8x8x3_t h = vld3_u8(in + 33);
    uint8x8x4_t t;
    t.val[0] = vshr_n_u8(h.val[0], 2);
    t.val[1] = vand_u8(vorr_u8(vshl_n_u8(h.val[0], 4), vshr_n_u8(h.val[1], 4)), m63h);
    t.val[2] = vand_u8(vorr_u8(vshl_n_u8(h.val[1], 2), vshr_n_u8(h.val[2], 6)), m63h);
    t.val[3] = vand_u8(h.val[2], m63h);
    for (int k = 0; k < 4; k++)
      t.val[k] = vqtbl4_u8(abc, t.val[k]);
    vst4q_u8((uint8_t *)out, s);
    vst4_u8((uint8_t *)out + 44, t);
    memcpy(out + 76, "\r\n", 2);
  }
  return n;
}

struct b64_tables {
  uint8x16x4_t lo, hi; // the decoding table for bytes 0..63 and 64..127
};

static inline struct b64_tables b64_tables(int url) {
  const uint8_t *dt = url ? enc_b64_dtab_url : enc_b64_dtab_std;
  struct b64_tables t = {table64(dt), table64(dt + 64)};
  return t;
}

// b64_translate gives the sextet of each byte, or a value with the high bit
// set for anything outside the alphabet (including `=` and bytes >= 0x80).
static inline uint8x16_t b64_translate(const struct b64_tables *t, uint8x16_t c) {
  uint8x16_t lo = vqtbl4q_u8(t->lo, c);                           // 0 for c >= 64
  uint8x16_t hi = vqtbl4q_u8(t->hi, vsubq_u8(c, vdupq_n_u8(64))); // 0 unless 64 <= c < 128
  return vorrq_u8(vorrq_u8(lo, hi), vandq_u8(c, vdupq_n_u8(0x80)));
}

static inline uint8x16x3_t b64_pack(uint8x16x4_t s) {
  uint8x16x3_t o;
  o.val[0] = vorrq_u8(vshlq_n_u8(s.val[0], 2), vshrq_n_u8(s.val[1], 4));
  o.val[1] = vorrq_u8(vshlq_n_u8(s.val[1], 4), vshrq_n_u8(s.val[2], 2));
  o.val[2] = vorrq_u8(vshlq_n_u8(s.val[2], 6), s.val[3]);
  return o;
}

static size_t b64_decode_neon(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int url) {
  struct b64_tables t = b64_tables(url);
  size_t i = 0, o = 0;
  while (in_len - i >= 64 && out_cap - o >= 48) {
    uint8x16x4_t c = vld4q_u8((const uint8_t *)in + i);
    uint8x16_t bad = vdupq_n_u8(0);
    for (int k = 0; k < 4; k++) {
      c.val[k] = b64_translate(&t, c.val[k]);
      bad = vorrq_u8(bad, c.val[k]);
    }
    if (vmaxvq_u8(bad) >= 64)
      break;
    vst3q_u8(out + o, b64_pack(c));
    i += 64;
    o += 48;
  }
  *written = o;
  return i;
}

// compress16 packs the bytes of `v` that are 0xFF in `keep` to the front of
// `dst` (writes up to 24 bytes) and returns how many there are.
static inline size_t compress16(uint8_t *dst, uint8x16_t v, uint8x16_t keep) {
  static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t bits = vandq_u8(keep, vld1q_u8(weights));
  unsigned lo = vaddv_u8(vget_low_u8(bits)), hi = vaddv_u8(vget_high_u8(bits));
  uint8x8_t a = vtbl1_u8(vget_low_u8(v), vld1_u8(enc_compress8[lo]));
  uint8x8_t b = vtbl1_u8(vget_high_u8(v), vld1_u8(enc_compress8[hi]));
  size_t nlo = (size_t)__builtin_popcount(lo);
  vst1_u8(dst, a);
  vst1_u8(dst + nlo, b);
  return nlo + (size_t)__builtin_popcount(hi);
}

// b64_decode_lines76 decodes 76-column lines ended by CRLF (the RFC 2045
// shape) from the start of `in`, each straight from the input as two blocks
// of 64 characters, the second from character 12 (it rewrites 39 bytes of
// the first with the same values), with no staging. It stops before a line
// of another shape or with a character outside the alphabet and returns the
// input consumed.
static size_t b64_decode_lines76(const struct b64_tables *t, uint8_t *out, size_t out_cap,
                                 size_t *written, const char *in, size_t in_len) {
  size_t i = 0, o = 0;
  while (in_len - i >= 78 && out_cap - o >= 57) {
    const uint8_t *p = (const uint8_t *)in + i;
    if (p[76] != '\r' || p[77] != '\n')
      break;
    uint8x16x4_t a = vld4q_u8(p), b = vld4q_u8(p + 12);
    uint8x16_t bad = vdupq_n_u8(0);
    for (int k = 0; k < 4; k++) {
      a.val[k] = b64_translate(t, a.val[k]);
      b.val[k] = b64_translate(t, b.val[k]);
      bad = vorrq_u8(bad, vorrq_u8(a.val[k], b.val[k]));
    }
    if (vmaxvq_u8(bad) >= 64)
      break;
    vst3q_u8(out + o, b64_pack(a));
    vst3q_u8(out + o + 9, b64_pack(b));
    i += 78;
    o += 57;
  }
  *written = o;
  return i;
}

static size_t b64_decode_mime_neon(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                                   size_t in_len, int url, uint32_t *acc, uint32_t *nacc) {
  struct b64_tables t = b64_tables(url);
  const uint8x16_t pad = vdupq_n_u8('=');
  uint8_t stage[160];
  size_t ns = 0, i = 0, o = 0;
  // A body of RFC 2045 lines goes line by line with no staging; the loop
  // below takes any other shape and what follows the regular lines.
  i = b64_decode_lines76(&t, out, out_cap, &o, in, in_len);
  while (in_len - i >= 64 && out_cap - o >= 160) {
    const uint8_t *p = (const uint8_t *)in + i;
    uint8x16_t v[4], d[4], eqs = vdupq_n_u8(0), bad = vdupq_n_u8(0);
    for (int k = 0; k < 4; k++) {
      v[k] = vld1q_u8(p + 16 * k);
      eqs = vorrq_u8(eqs, vceqq_u8(v[k], pad));
      d[k] = b64_translate(&t, v[k]);
      bad = vorrq_u8(bad, d[k]);
    }
    if (any_set(eqs))
      break;
    i += 64;
    if (vmaxvq_u8(bad) < 64 && ns == 0) { // 64 alphabet characters in a row
      uint8x16x4_t c = vld4q_u8(p);
      for (int k = 0; k < 4; k++)
        c.val[k] = b64_translate(&t, c.val[k]);
      vst3q_u8(out + o, b64_pack(c));
      o += 48;
      continue;
    }
    for (int k = 0; k < 4; k++)
      ns += compress16(stage + ns, d[k], vcltq_u8(d[k], vdupq_n_u8(64)));
    size_t s = 0;
    for (; ns - s >= 64; s += 64) {
      vst3q_u8(out + o, b64_pack(vld4q_u8(stage + s)));
      o += 48;
    }
    ns -= s;
    memmove(stage, stage + s, ns);
  }
  size_t g = 0;
  for (; ns - g >= 4; g += 4) {
    uint32_t x = (uint32_t)stage[g] << 18 | (uint32_t)stage[g + 1] << 12 |
                 (uint32_t)stage[g + 2] << 6 | stage[g + 3];
    out[o++] = (uint8_t)(x >> 16);
    out[o++] = (uint8_t)(x >> 8);
    out[o++] = (uint8_t)x;
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

static size_t b32_encode_neon(char *out, const uint8_t *in, size_t in_len, int hex) {
  // 16-bit big-endian windows over bytes k, k+1 (k = 5j / 8) of each group,
  // shifted right by 11 - 5j % 8 (see sse41.c).
  static const uint8_t win[16] = {1, 0, 1, 0, 2, 1, 2, 1, 3, 2, 4, 3, 4, 3, 5, 4};
  static const int16_t shifts[8] = {-11, -6, -9, -4, -7, -10, -5, -8};
  const uint8x16_t w0 = vld1q_u8(win), w1 = vaddq_u8(w0, vdupq_n_u8(5));
  const int16x8_t sh = vld1q_s16(shifts);
  const uint8x16_t split = vdupq_n_u8(hex ? 10 : 26);
  const uint8x16_t lo_off = vdupq_n_u8(hex ? '0' : 'A');
  const uint8x16_t hi_off = vdupq_n_u8(hex ? 'A' - 10 : '2' - 26);
  size_t i = 0;
  for (; in_len - i >= 16; i += 10) {
    uint8x16_t v = vld1q_u8(in + i);
    uint16x8_t f0 = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(v, w0)), sh);
    uint16x8_t f1 = vshlq_u16(vreinterpretq_u16_u8(vqtbl1q_u8(v, w1)), sh);
    uint8x16_t f = vandq_u8(vcombine_u8(vmovn_u16(f0), vmovn_u16(f1)), vdupq_n_u8(31));
    uint8x16_t off = vbslq_u8(vcltq_u8(f, split), lo_off, hi_off);
    vst1q_u8((uint8_t *)out, vaddq_u8(f, off));
    out += 16;
  }
  return i;
}

static inline uint8x16_t in_range(uint8x16_t v, uint8_t lo, uint8_t hi) {
  return vandq_u8(vcgeq_u8(v, vdupq_n_u8(lo)), vcleq_u8(v, vdupq_n_u8(hi)));
}

static size_t b32_decode_neon(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                              size_t in_len, int hex) {
  static const uint8_t order[16] = {4, 3, 2, 1, 0, 12, 11, 10, 9, 8, 255, 255, 255, 255, 255, 255};
  const uint8x16_t idx = vld1q_u8(order);
  size_t i = 0, o = 0;
  while (in_len - i >= 16 && out_cap - o >= 16) {
    uint8x16_t v = vld1q_u8((const uint8_t *)in + i);
    uint8x16_t m1, m2, off;
    if (hex) {
      m1 = in_range(v, '0', '9');
      m2 = in_range(v, 'A', 'V');
      off = vbslq_u8(m1, vdupq_n_u8((uint8_t) - '0'), vdupq_n_u8((uint8_t)(10 - 'A')));
    } else {
      m1 = in_range(v, 'A', 'Z');
      m2 = in_range(v, '2', '7');
      off = vbslq_u8(m1, vdupq_n_u8((uint8_t) - 'A'), vdupq_n_u8((uint8_t)(26 - '2')));
    }
    if (vminvq_u8(vorrq_u8(m1, m2)) == 0)
      break;
    uint16x8_t x16 = vreinterpretq_u16_u8(vaddq_u8(v, off));
    uint16x8_t t =
        vorrq_u16(vshlq_n_u16(vandq_u16(x16, vdupq_n_u16(0x1f)), 5), vshrq_n_u16(x16, 8));
    uint32x4_t x32 = vreinterpretq_u32_u16(t);
    uint32x4_t u =
        vorrq_u32(vshlq_n_u32(vandq_u32(x32, vdupq_n_u32(0x3ff)), 10), vshrq_n_u32(x32, 16));
    uint64x2_t x64 = vreinterpretq_u64_u32(u);
    uint64x2_t g =
        vorrq_u64(vshlq_n_u64(vandq_u64(x64, vdupq_n_u64(0xfffff)), 20), vshrq_n_u64(x64, 32));
    vst1q_u8(out + o, vqtbl1q_u8(vreinterpretq_u8_u64(g), idx));
    i += 16;
    o += 10;
  }
  *written = o;
  return i;
}

// Quoted-printable.

static inline uint8x16_t eq8(uint8x16_t v, uint8_t c) {
  return vceqq_u8(v, vdupq_n_u8(c));
}

static size_t qp_decode_neon(uint8_t *out, size_t out_cap, size_t *written, const char *in,
                             size_t in_len) {
  const uint8_t *p = (const uint8_t *)in;
  size_t i = 0, o = 0, w;
  while (in_len - i >= 17 && out_cap - o >= 16) {
    uint8x16_t v = vld1q_u8(p + i), n = vld1q_u8(p + i + 1);
    uint8x16_t ws = vorrq_u8(eq8(v, ' '), eq8(v, '\t'));
    uint8x16_t nws =
        vorrq_u8(vorrq_u8(eq8(n, ' '), eq8(n, '\t')), vorrq_u8(eq8(n, '\r'), eq8(n, '\n')));
    uint8x16_t stop = vorrq_u8(eq8(v, '='), vandq_u8(ws, nws));
    vst1q_u8(out + o, v);
    size_t k = first_set(stop);
    i += k;
    o += k;
    if (k == 16)
      continue;
    size_t used = enc_qp_decode_special(out + o, out_cap - o, &w, p + i, in_len - i);
    if (used == 0)
      break;
    i += used;
    o += w;
  }
  *written = o;
  return i;
}

static size_t qp_encode_neon(char *out, size_t out_cap, size_t *written, const uint8_t *in,
                             size_t in_len, int binary, uint32_t *col) {
  size_t i = 0, o = 0, w;
  while (in_len - i >= 18 && out_cap - o >= 16) {
    uint8x16_t v = vld1q_u8(in + i);
    uint8x16_t lit = vbicq_u8(in_range(v, 33, 126), eq8(v, '='));
    lit = vorrq_u8(lit, vorrq_u8(eq8(v, ' '), eq8(v, '\t')));
    uint8x16_t brk = vmvnq_u8(lit);
    if (!binary) {
      uint8x16_t n = vld1q_u8(in + i + 1);
      brk = vorrq_u8(brk, vorrq_u8(vorrq_u8(eq8(v, '\r'), eq8(v, '\n')),
                                   vorrq_u8(eq8(n, '\r'), eq8(n, '\n'))));
    }
    size_t run = first_set(brk);
    if (run > 0) {
      size_t used, k = enc_qp_literal_run(out + o, &used, run, col);
      if (k > 0)
        vst1q_u8((uint8_t *)out + o, v);
      i += k;
      o += used;
      continue;
    }
    i += enc_qp_encode_step(out + o, &w, in + i, in_len - i, binary, col);
    o += w;
  }
  *written = o;
  return i;
}

const struct enc_impl enc_impl_neon = {
    .name = "neon",
    .required = ENC_CPU_NEON,
    .b64_encode = b64_encode_neon,
    .b64_encode_lines = b64_encode_lines_neon,
    .b64_decode = b64_decode_neon,
    .b64_decode_mime = b64_decode_mime_neon,
    .b32_encode = b32_encode_neon,
    .b32_decode = b32_decode_neon,
    .qp_decode = qp_decode_neon,
    .qp_encode = qp_encode_neon,
};
