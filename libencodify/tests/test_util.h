// test_util.h: helpers shared by libencodify's Check suites: running a codec
// one-shot or as a stream cut at given offsets into exactly sized heap
// buffers (so that ASan sees any overrun), comparing results, comparing the
// implementation under test with the scalar specification, and a small
// deterministic random generator.
#ifndef ENC_TEST_UTIL_H
#define ENC_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "corvid_check.h"
#include "encodify.h"

struct result {
  int rc;
  size_t err_off;
  size_t len;
  uint8_t *data; // malloc'd, NUL-terminated for convenience
};

static inline void result_free(struct result *r) {
  free(r->data);
  r->data = NULL;
}

// dup_exact_at copies `n` bytes (none when `p` is NULL) to `align` bytes past
// a 64-byte boundary, in a heap block that ends right after them (1 byte
// for n == 0), so that reading past the end trips ASan while the kernel
// sees a chosen offset within the cache line. Free the copy with
// free_exact_at() and the same `align`.
static inline void *dup_exact_at(const void *p, size_t n, size_t align) {
  void *block = NULL;
  require(posix_memalign(&block, 64, align + (n ? n : 1)) == 0, "out of memory");
  uint8_t *q = (uint8_t *)block + align;
  if (p != NULL && n)
    memcpy(q, p, n);
  return q;
}

// free_exact_at frees a copy made by dup_exact_at() at `align`.
static inline void free_exact_at(void *q, size_t align) {
  free((uint8_t *)q - align);
}

// dup_exact is dup_exact_at() at the start of a cache line; free() frees it.
static inline void *dup_exact(const void *p, size_t n) {
  return dup_exact_at(p, n, 0);
}

// run_oneshot runs enc_encode/enc_decode on an exact heap copy of the input
// (at a 16-byte place of a cache line that follows its length) with an
// output buffer of exactly max_len bytes.
static inline struct result run_oneshot(enc_codec codec, enc_direction dir, uint32_t flags,
                                        size_t wrap, const void *in, size_t in_len) {
  struct result r = {0, SIZE_MAX, 0, NULL};
  size_t cap = dir == ENC_ENCODE ? enc_encode_max_len(codec, flags, wrap, in_len)
                                 : enc_decode_max_len(codec, flags, in_len);
  uint8_t *out = malloc(cap ? cap : 1);
  require(out != NULL, "out of memory");
  size_t at = in_len % 4 * 16; // every 16-byte place of a cache line, as malloc gives
  void *inb = dup_exact_at(in, in_len, at);
  if (dir == ENC_ENCODE)
    r.rc = enc_encode(codec, flags, wrap, out, cap, &r.len, inb, in_len, &r.err_off);
  else
    r.rc = enc_decode(codec, flags, out, cap, &r.len, inb, in_len, &r.err_off);
  free_exact_at(inb, at);
  require(r.len <= cap, "wrote %zu bytes into %zu", r.len, cap);
  r.data = malloc(r.len + 1);
  require(r.data != NULL, "out of memory");
  memcpy(r.data, out, r.len);
  r.data[r.len] = 0;
  free(out);
  return r;
}

// run_stream feeds `in` to a stream in pieces ending at the offsets in
// `cuts` (ascending, each <= in_len), each piece in its own exact heap copy
// (at a 16-byte place of a cache line that follows the piece's offset) and
// with an output buffer of exactly enc_stream_max_len() bytes.
static inline struct result run_stream(enc_codec codec, enc_direction dir, uint32_t flags,
                                       size_t wrap, const void *in, size_t in_len,
                                       const size_t *cuts, size_t num_cuts) {
  struct result r = {0, SIZE_MAX, 0, NULL};
  enc_stream st;
  require(enc_stream_init(&st, codec, dir, flags, wrap) == 0, "enc_stream_init failed");
  size_t total_cap = 1;
  size_t start = 0;
  for (size_t k = 0; k <= num_cuts; k++)
    total_cap += enc_stream_max_len(&st, in_len) + 16;
  r.data = malloc(total_cap);
  require(r.data != NULL, "out of memory");
  for (size_t k = 0; k <= num_cuts && r.rc == 0; k++) {
    size_t end = k < num_cuts ? cuts[k] : in_len;
    size_t n = end - start;
    size_t cap = enc_stream_max_len(&st, n);
    uint8_t *out = malloc(cap ? cap : 1);
    require(out != NULL, "out of memory");
    size_t at = start % 4 * 16;
    void *piece = dup_exact_at((const uint8_t *)in + start, n, at);
    size_t w = 99;
    r.rc = enc_stream_update(&st, out, cap, &w, n ? piece : NULL, n, &r.err_off);
    free_exact_at(piece, at);
    if (r.rc == 0) {
      require(w <= cap, "update wrote %zu bytes into %zu", w, cap);
      require(r.len + w <= total_cap, "streams wrote %zu bytes in all", r.len + w);
      memcpy(r.data + r.len, out, w);
      r.len += w;
    } else {
      require(w == 0, "update wrote %zu bytes and failed", w);
    }
    free(out);
    start = end;
  }
  if (r.rc == 0) {
    size_t cap = enc_stream_max_len(&st, 0);
    uint8_t *out = malloc(cap ? cap : 1);
    size_t w = 99;
    r.rc = enc_stream_final(&st, out, cap, &w, &r.err_off);
    if (r.rc == 0) {
      require(w <= cap, "final wrote %zu bytes into %zu", w, cap);
      memcpy(r.data + r.len, out, w);
      r.len += w;
    }
    free(out);
  }
  if (r.rc != 0)
    r.len = 0;
  r.data[r.len] = 0;
  return r;
}

// same_result asserts that two runs agree: code, offset on error, bytes.
static inline void same_result(const struct result *a, const struct result *b, const char *what) {
  require(a->rc == b->rc, "%s: rc %d vs %d", what, a->rc, b->rc);
  if (a->rc != 0) {
    require(a->err_off == b->err_off, "%s: err_off %zu vs %zu", what, a->err_off, b->err_off);
    return;
  }
  require(a->len == b->len, "%s: len %zu vs %zu", what, a->len, b->len);
  require(memcmp(a->data, b->data, a->len) == 0, "%s: bytes differ", what);
}

// check_splits compares the one-shot result with streams cut once at every
// offset and with a few streams cut into random pieces (including empty ones).
static inline void check_splits(enc_codec codec, enc_direction dir, uint32_t flags, size_t wrap,
                                const void *in, size_t in_len, uint64_t *rng);

static inline uint64_t rng_next(uint64_t *s) { // splitmix64
  uint64_t z = (*s += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static inline size_t rng_below(uint64_t *s, size_t n) {
  return n ? (size_t)(rng_next(s) % n) : 0;
}

static inline void rng_fill(uint64_t *s, uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)rng_next(s);
}

static inline void check_splits(enc_codec codec, enc_direction dir, uint32_t flags, size_t wrap,
                                const void *in, size_t in_len, uint64_t *rng) {
  struct result whole = run_oneshot(codec, dir, flags, wrap, in, in_len);
  struct result none = run_stream(codec, dir, flags, wrap, in, in_len, NULL, 0);
  same_result(&whole, &none, "stream without cuts");
  result_free(&none);
  for (size_t cut = 0; cut <= in_len; cut++) {
    struct result r = run_stream(codec, dir, flags, wrap, in, in_len, &cut, 1);
    char what[64];
    snprintf(what, sizeof what, "cut at %zu of %zu", cut, in_len);
    same_result(&whole, &r, what);
    result_free(&r);
  }
  for (int k = 0; k < 4; k++) {
    size_t cuts[16];
    size_t n = 1 + rng_below(rng, 16);
    for (size_t j = 0; j < n; j++)
      cuts[j] = rng_below(rng, in_len + 1);
    for (size_t a = 1; a < n; a++) // insertion sort
      for (size_t b = a; b > 0 && cuts[b - 1] > cuts[b]; b--) {
        size_t t = cuts[b];
        cuts[b] = cuts[b - 1];
        cuts[b - 1] = t;
      }
    struct result r = run_stream(codec, dir, flags, wrap, in, in_len, cuts, n);
    same_result(&whole, &r, "random cuts");
    result_free(&r);
  }
  result_free(&whole);
}

// check_vs_scalar runs the case with the implementation under test and with
// "scalar" and asserts that both agree; it returns the result under test.
static inline struct result check_vs_scalar(enc_codec codec, enc_direction dir, uint32_t flags,
                                            size_t wrap, const void *in, size_t in_len) {
  struct result r = run_oneshot(codec, dir, flags, wrap, in, in_len);
  const char *name = enc_impl_name();
  if (strcmp(name, "scalar") != 0) {
    require(enc_impl_force("scalar") == 0, "cannot force scalar");
    struct result s = run_oneshot(codec, dir, flags, wrap, in, in_len);
    require(enc_impl_force(name) == 0, "cannot force %s", name);
    char what[96];
    snprintf(what, sizeof what, "%s vs scalar, codec %d dir %d flags %u len %zu", name, (int)codec,
             (int)dir, flags, in_len);
    same_result(&s, &r, what);
    result_free(&s);
  }
  return r;
}

// Guarded buffers: one readable page between two inaccessible ones, so that
// a kernel that reads or writes one byte before or after its buffer crashes
// the test (without ASan too). guard_place returns where `len` bytes go: at
// `align` bytes after the start of the page, or ending exactly at its end.
struct guard_page {
  uint8_t *map, *page;
  size_t size;
};

static inline void guard_init(struct guard_page *g) {
  long ps = sysconf(_SC_PAGESIZE);
  ck_assert_int_gt(ps, 0);
  g->size = (size_t)ps;
  void *m = mmap(NULL, 3 * g->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(m, MAP_FAILED);
  g->map = m;
  g->page = g->map + g->size;
  ck_assert_int_eq(mprotect(g->map, g->size, PROT_NONE), 0);
  ck_assert_int_eq(mprotect(g->page + g->size, g->size, PROT_NONE), 0);
}

static inline void guard_free(struct guard_page *g) {
  munmap(g->map, 3 * g->size);
}

static inline uint8_t *guard_place(struct guard_page *g, size_t len, int at_end, size_t align) {
  require(len + align <= g->size, "%zu bytes at %zu do not fit a page", len, align);
  return at_end ? g->page + g->size - len : g->page + align;
}

// run_guarded is run_oneshot() with the input and an output buffer of
// exactly the bound both starting `align` bytes after an inaccessible page
// or both ending right before one.
static inline struct result run_guarded(struct guard_page *gin, struct guard_page *gout,
                                        enc_codec codec, enc_direction dir, uint32_t flags,
                                        size_t wrap, const void *in, size_t in_len, int at_end,
                                        size_t align) {
  struct result r = {0, SIZE_MAX, 0, NULL};
  size_t cap = dir == ENC_ENCODE ? enc_encode_max_len(codec, flags, wrap, in_len)
                                 : enc_decode_max_len(codec, flags, in_len);
  uint8_t *inb = guard_place(gin, in_len, at_end, align);
  uint8_t *out = guard_place(gout, cap, at_end, align);
  if (in_len)
    memcpy(inb, in, in_len);
  if (dir == ENC_ENCODE)
    r.rc = enc_encode(codec, flags, wrap, out, cap, &r.len, inb, in_len, &r.err_off);
  else
    r.rc = enc_decode(codec, flags, out, cap, &r.len, inb, in_len, &r.err_off);
  require(r.len <= cap, "wrote %zu bytes into %zu", r.len, cap);
  r.data = malloc(r.len + 1);
  require(r.data != NULL, "out of memory");
  memcpy(r.data, out, r.len);
  r.data[r.len] = 0;
  return r;
}

// check_guarded runs the case at every alignment 0..31 from the start of a
// guarded page and once ending at its end, with the implementation under
// test, and asserts that each run agrees with scalar on unguarded buffers.
static inline void check_guarded(struct guard_page *gin, struct guard_page *gout, enc_codec codec,
                                 enc_direction dir, uint32_t flags, size_t wrap, const void *in,
                                 size_t in_len) {
  const char *name = enc_impl_name();
  ck_assert_int_eq(enc_impl_force("scalar"), 0);
  struct result want = run_oneshot(codec, dir, flags, wrap, in, in_len);
  ck_assert_int_eq(enc_impl_force(name), 0);
  for (size_t align = 0; align <= 32; align++) {
    struct result r =
        run_guarded(gin, gout, codec, dir, flags, wrap, in, in_len, align == 32, align % 32);
    char what[128];
    snprintf(what, sizeof what,
             "%s guarded vs scalar, codec %d dir %d flags %u wrap %zu len %zu %s %zu", name,
             (int)codec, (int)dir, flags, wrap, in_len, align == 32 ? "at end" : "align",
             align % 32);
    same_result(&want, &r, what);
    result_free(&r);
  }
  result_free(&want);
}

// expect_ok asserts that a one-shot call gives exactly `want` (NUL-terminated).
// The extra level lets an argument such as S("x") expand into two.
#define expect_ok(...) expect_ok_(__VA_ARGS__)
#define expect_ok_(codec, dir, flags, wrap, in, in_len, want)                                      \
  do {                                                                                             \
    struct result r_ = check_vs_scalar(codec, dir, flags, wrap, in, in_len);                       \
    ck_assert_msg(r_.rc == 0, "rc %d (%s) at %zu for \"%s\"", r_.rc, enc_strerror(r_.rc),          \
                  r_.err_off, (const char *)(in));                                                 \
    ck_assert_uint_eq(r_.len, strlen(want));                                                       \
    ck_assert_mem_eq(r_.data, want, r_.len);                                                       \
    result_free(&r_);                                                                              \
  } while (0)

// expect_err asserts a one-shot error code and offset.
#define expect_err(...) expect_err_(__VA_ARGS__)
#define expect_err_(codec, dir, flags, wrap, in, in_len, code, off)                                \
  do {                                                                                             \
    struct result r_ = check_vs_scalar(codec, dir, flags, wrap, in, in_len);                       \
    ck_assert_msg(r_.rc == (code), "rc %d (%s), want %d, for \"%s\"", r_.rc, enc_strerror(r_.rc),  \
                  (int)(code), (const char *)(in));                                                \
    ck_assert_uint_eq(r_.err_off, (size_t)(off));                                                  \
    ck_assert_uint_eq(r_.len, 0);                                                                  \
    result_free(&r_);                                                                              \
  } while (0)

// impl_forced says whether ENCODIFY_IMPL names the implementation under
// test, as in the per-implementation runs that meson.build registers for
// every implementation built. The exhaustive kernel tests go only into
// those runs: the run with the automatic choice would repeat, test for
// test, the forced run of whichever implementation it chose (test_impl.c
// covers the choice itself). Tests of code that no kernel reaches, and
// tests that compare every implementation themselves, go only into the
// automatic run, so that they run once.
static inline int impl_forced(void) {
  const char *env = getenv("ENCODIFY_IMPL");
  return env != NULL && env[0] != '\0';
}

// run_suite runs a suite in TAP mode. When ENCODIFY_IMPL names an
// implementation this machine lacks, it reports the whole program skipped.
static inline int run_suite(Suite *s) {
  if (strcmp(enc_impl_name(), "unsupported") == 0) {
    printf("1..0 # SKIP implementation %s not supported here\n", getenv("ENCODIFY_IMPL"));
    srunner_free(srunner_create(s)); // frees the suite, which LeakSanitizer would report
    return 0;
  }
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif // ENC_TEST_UTIL_H
