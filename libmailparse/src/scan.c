// scan.c: the scanner: the scalar scanning functions, which are the
// specification every kernel must match byte for byte (line ends, line starts
// that may be boundary delimiters, the extent, colon and byte classes of a
// header field, line-feed counts, UTF-8 validity), and the run-time choice
// among the implementations (CONVENTIONS §6): the first entry of the table
// whose CPU features are all present, or the one MAILPARSE_IMPL names, chosen
// once and kept in an atomic pointer.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "charset_internal.h"
#include "core_internal.h"
#include "corvid_cpu.h"

static size_t scalar_line_end(const uint8_t *buf, size_t len, size_t from) {
  if (from >= len)
    return len;
  const uint8_t *lf = memchr(buf + from, '\n', len - from);
  return lf != NULL ? (size_t)(lf - buf) + 1 : len;
}

static size_t scalar_next_dash_line(const uint8_t *buf, size_t len, size_t from, size_t *lfs) {
  size_t pos = from, n = 0;
  while (pos < len) {
    if (len - pos >= 2 && buf[pos] == '-' && buf[pos + 1] == '-')
      break;
    pos = scalar_line_end(buf, len, pos);
    if (buf[pos - 1] == '\n')
      n++;
  }
  *lfs = n;
  return pos < len ? pos : len;
}

// scalar_line_bits classifies the bytes of one line [off, le): a bare LF is
// one at the line start or after a byte other than CR; a bare CR one that is
// not followed by an LF (a line ends only at LF, so such a CR is the line's
// last byte only when the buffer ends there).
static uint32_t scalar_line_bits(const uint8_t *buf, size_t off, size_t le) {
  uint32_t bits = 0;
  for (size_t i = off; i < le; i++) {
    if (buf[i] == 0)
      bits |= MP_SCAN_NUL;
    else if (buf[i] >= 0x80)
      bits |= MP_SCAN_8BIT;
    else if (buf[i] == '\n' && (i == off || buf[i - 1] != '\r'))
      bits |= MP_SCAN_BARE_LF;
    else if (buf[i] == '\r' && (i + 1 >= le || buf[i + 1] != '\n'))
      bits |= MP_SCAN_BARE_CR;
  }
  return bits;
}

static size_t scalar_field_end(const uint8_t *buf, size_t len, size_t from, size_t *colon,
                               uint32_t *bits) {
  size_t le = scalar_line_end(buf, len, from);
  const uint8_t *c = from < len ? memchr(buf + from, ':', le - from) : NULL;
  *colon = c != NULL ? (size_t)(c - buf) : len;
  uint32_t acc = scalar_line_bits(buf, from, le);
  size_t next = le;
  while (next < len && (buf[next] == ' ' || buf[next] == '\t')) {
    size_t nle = scalar_line_end(buf, len, next);
    acc |= scalar_line_bits(buf, next, nle);
    next = nle;
  }
  *bits = acc;
  return next;
}

static size_t scalar_count_lf(const uint8_t *buf, size_t len, size_t from) {
  size_t n = 0;
  for (size_t pos = from; pos < len;) {
    size_t le = scalar_line_end(buf, len, pos);
    if (buf[le - 1] == '\n')
      n++;
    pos = le;
  }
  return n;
}

// scalar_utf8_valid decodes character by character with the converter's
// own decoder, so the kernels are held to the rule the conversion applies.
static bool scalar_utf8_valid(const uint8_t *buf, size_t len) {
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int bad = 0;
    i += mp_utf8_decode_one(buf + i, len - i, &cp, &bad);
    if (bad)
      return false;
  }
  return true;
}

const mp_scanner mp_scanner_scalar = {
    .name = "scalar",
    .required = 0,
    .line_end = scalar_line_end,
    .next_dash_line = scalar_next_dash_line,
    .field_end = scalar_field_end,
    .count_lf = scalar_count_lf,
    .utf8_valid = scalar_utf8_valid,
};

// mp_message_parse() checks for this one before it scans anything.
const mp_scanner mp_scanner_unsupported = {
    .name = "unsupported",
    .required = 0,
    .line_end = scalar_line_end,
    .next_dash_line = scalar_next_dash_line,
    .field_end = scalar_field_end,
    .count_lf = scalar_count_lf,
    .utf8_valid = scalar_utf8_valid,
};

// Priority order; scalar is last and always runs. The ISA files are built
// for the same targets as these conditions (libmailparse/meson.build).
static const mp_scanner *const impls[] = {
#if defined(__x86_64__)
    &mp_scanner_avx512, &mp_scanner_avx2,   &mp_scanner_sse2,
#endif
#if defined(__aarch64__)
    &mp_scanner_neon,
#endif
    &mp_scanner_swar,   &mp_scanner_scalar,
};
enum { NUM_IMPLS = sizeof impls / sizeof impls[0] };

static _Atomic(const mp_scanner *) current;
static atomic_uint_fast32_t cpu_cache;

static bool supported(const mp_scanner *sc) {
  return (sc->required & ~corvid_cpu_features(&cpu_cache)) == 0;
}

static const mp_scanner *best(void) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (supported(impls[i]))
      return impls[i];
  return &mp_scanner_scalar;
}

static const mp_scanner *by_name(const char *name) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (strcmp(impls[i]->name, name) == 0)
      return supported(impls[i]) ? impls[i] : NULL;
  return NULL;
}

const mp_scanner *mp_scanner_get(void) {
  const mp_scanner *sc = atomic_load_explicit(&current, memory_order_acquire);
  if (sc != NULL)
    return sc;
  const char *env = getenv("MAILPARSE_IMPL");
  if (env != NULL && env[0] != '\0') {
    sc = by_name(env);
    if (sc == NULL)
      sc = &mp_scanner_unsupported;
  } else {
    sc = best();
  }
  const mp_scanner *expected = NULL;
  // Another thread may have chosen first; both made the same choice.
  if (!atomic_compare_exchange_strong(&current, &expected, sc))
    sc = expected;
  return sc;
}

const mp_scanner *mp_scanner_at(size_t i, bool *is_supported) {
  if (i >= NUM_IMPLS)
    return NULL;
  if (is_supported != NULL)
    *is_supported = supported(impls[i]);
  return impls[i];
}

const char *mp_impl_name(void) {
  return mp_scanner_get()->name;
}

size_t mp_impl_count(void) {
  return NUM_IMPLS;
}

const char *mp_impl_get(size_t index, int *is_supported) {
  bool sup;
  const mp_scanner *sc = mp_scanner_at(index, &sup);
  if (sc == NULL)
    return NULL;
  if (is_supported != NULL)
    *is_supported = sup;
  return sc->name;
}

int mp_impl_force(const char *name) {
  const mp_scanner *sc = name == NULL ? best() : by_name(name);
  if (sc == NULL)
    return MP_ERR_UNSUPPORTED;
  atomic_store_explicit(&current, sc, memory_order_release);
  return 0;
}

// swar_lower sets the 0x20 bit of every byte of `x` that is an ASCII capital
// ('A' to 'Z'), eight bytes at once; other bytes, 8-bit ones included, stay.
static inline uint64_t swar_lower(uint64_t x) {
  const uint64_t high = 0x8080808080808080ull;
  uint64_t low7 = x & ~high;                    // no carry can cross a byte below
  uint64_t ge_a = low7 + 0x3f3f3f3f3f3f3f3full; // high bit: byte >= 'A'
  uint64_t gt_z = low7 + 0x2525252525252525ull; // high bit: byte > 'Z'
  uint64_t upper = ge_a & ~gt_z & ~x & high;
  return x | (upper >> 2);
}

// ieq_word compares two words of eight bytes without ASCII case. Equal
// bytes are the common case; otherwise the words match only when every byte
// that differs differs in the 0x20 bit alone and is a letter in `x` (then
// in `y` too), which takes one range test instead of folding both words.
static inline bool ieq_word(uint64_t x, uint64_t y) {
  const uint64_t high = 0x8080808080808080ull, bit5 = 0x2020202020202020ull;
  uint64_t d = x ^ y;
  if (d == 0)
    return true;
  if (d & ~bit5)
    return false;
  uint64_t u = x | bit5;                        // a letter in small case
  uint64_t low7 = u & ~high;                    // no carry can cross a byte below
  uint64_t ge_a = low7 + 0x1f1f1f1f1f1f1f1full; // high bit: byte >= 'a'
  uint64_t gt_z = low7 + 0x0505050505050505ull; // high bit: byte > 'z'
  uint64_t letter = ge_a & ~gt_z & ~u & high;
  return ((d << 2) & ~letter) == 0; // each differing byte's 0x20 moved to 0x80
}

// store4 writes the low four bytes of `v` at `p` in host order.
static inline void store4(void *p, uint64_t v) {
  uint32_t w = (uint32_t)v;
  memcpy(p, &w, 4);
}

void mp_ascii_lower_copy(char *dst, const uint8_t *src, size_t n) {
  // Media types and subtypes are copied here once per part: eight bytes a
  // step as in mp_ascii_ieq, the last word and the halves for 4 to 7 bytes
  // overlapping (a byte written twice gets the same value).
  if (n >= 8) {
    uint64_t x;
    for (size_t i = 0; n - i > 8; i += 8) {
      memcpy(&x, src + i, 8);
      x = swar_lower(x);
      memcpy(dst + i, &x, 8);
    }
    memcpy(&x, src + n - 8, 8);
    x = swar_lower(x);
    memcpy(dst + n - 8, &x, 8);
    return;
  }
  if (n >= 4) {
    uint64_t lo = swar_lower(mp_load_word(src, 4)), hi = swar_lower(mp_load_word(src + n - 4, 4));
    store4(dst, lo);
    store4(dst + n - 4, hi);
    return;
  }
  for (size_t i = 0; i < n; i++)
    dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32 : src[i]);
}

bool mp_ascii_ieq(const uint8_t *a, size_t a_len, const char *b, size_t b_len) {
  if (a_len != b_len)
    return false;
  // Field and parameter names are compared here by the dozen per part:
  // eight bytes a step. The bytes past the last whole word are compared in
  // one more word ending at the last byte, which overlaps the one before
  // (comparing a byte twice changes nothing), and 4 to 7 bytes as two
  // overlapping halves of one word, so no name goes byte by byte but those
  // under four bytes.
  if (a_len >= 8) {
    uint64_t x, y;
    size_t i = 0;
    for (; a_len - i > 8; i += 8) {
      memcpy(&x, a + i, 8);
      memcpy(&y, b + i, 8);
      if (!ieq_word(x, y))
        return false;
    }
    memcpy(&x, a + a_len - 8, 8);
    memcpy(&y, b + a_len - 8, 8);
    return ieq_word(x, y);
  }
  if (a_len >= 4)
    return ieq_word(mp_load_word(a, 4) | mp_load_word(a + a_len - 4, 4) << 32,
                    mp_load_word(b, 4) | mp_load_word(b + a_len - 4, 4) << 32);
  for (size_t i = 0; i < a_len; i++) {
    uint8_t x = a[i], y = (uint8_t)b[i];
    if (x == y)
      continue; // the common case: skip the case folding
    if (x >= 'A' && x <= 'Z')
      x = (uint8_t)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (uint8_t)(y + 32);
    if (x != y)
      return false;
  }
  return true;
}
