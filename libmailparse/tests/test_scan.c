// test_scan.c: the scanner (scan.c and the kernels): the scalar functions
// against hand-checked tables, then every implementation this CPU supports
// against scalar on crafted inputs (every length 0..300 at every alignment
// 0..63, LF, CRLF and bare CR line ends, "--" and "\n--" at the buffer end
// and at the 16/32/64-byte block edges, inputs that end exactly before a
// PROT_NONE guard page) and on random ones, whole-message parses compared
// field by field, the implementation table and MAILPARSE_IMPL, and the UTF-8
// check (scalar against hand-checked sequences, every kernel against scalar
// on generated text with and without ill-formed pieces).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_internal.h"
#include "corvid_check.h"
#include "mailparse.h"
#include "scan_check.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

// fill writes `len` bytes biased towards what the scanners look for.
static void fill(uint8_t *buf, size_t len, unsigned mode) {
  static const char *const pieces[] = {"\r\n", "\n",   "\r",  "--",     "-", ":",  " ",
                                       "\t",   "\n--", "\n ", "\r\n\t", "x", "ab", "\n\n"};
  size_t n = 0;
  while (n < len) {
    uint64_t r = rnd();
    if (mode == 0 || r % 5 == 0) {
      static const uint8_t bytes[] = {'a', 'Z', ':', '-', '\n', '\r', ' ', '\t', 0, 0x80, 0xff};
      buf[n++] = mode == 0 ? (uint8_t)(r >> 8) : bytes[(r >> 8) % sizeof bytes];
    } else {
      const char *p = pieces[(r >> 8) % (sizeof pieces / sizeof pieces[0])];
      for (size_t i = 0; p[i] != '\0' && n < len; i++)
        buf[n++] = (uint8_t)p[i];
    }
  }
}

// Offsets check_all tries: the first and last few; those plus line starts
// and every 29th; or every one.
enum { EDGES, SAMPLED, ALL };

// check_all compares every supported implementation with scalar at the
// offsets `cover` names.
static void check_all(const uint8_t *buf, size_t len, int cover) {
  char why[256];
  size_t next = 0;
  for (const mp_scanner *sc; (sc = mp_scanner_next_vector(&next)) != NULL;) {
    for (size_t from = 0; from <= len; from++) {
      bool edge = from <= 3 || from + 3 >= len;
      if (cover == EDGES && !edge)
        continue;
      if (cover == SAMPLED && !edge && buf[from - 1] != '\n' && from % 29 != 0)
        continue;
      require(mp_scan_diff(&mp_scanner_scalar, sc, buf, len, from, why, sizeof why) == 0, "%s",
              why);
    }
  }
}

// The specification itself, on inputs checked by hand.
START_TEST(scalar_tables) {
  const mp_scanner *s = &mp_scanner_scalar;
  const uint8_t *t = (const uint8_t *)"ab\ncd\n--x\n";
  ck_assert_uint_eq(s->line_end(t, 10, 0), 3);
  ck_assert_uint_eq(s->line_end(t, 10, 3), 6);
  ck_assert_uint_eq(s->line_end(t, 5, 3), 5);
  ck_assert_uint_eq(s->line_end(t, 10, 10), 10);
  size_t lfs = 99;
  ck_assert_uint_eq(s->next_dash_line(t, 10, 0, &lfs), 6);
  ck_assert_uint_eq(lfs, 2);
  ck_assert_uint_eq(s->next_dash_line(t, 7, 0, &lfs), 7); // one '-' left: no candidate
  ck_assert_uint_eq(lfs, 2);
  ck_assert_uint_eq(s->next_dash_line(t, 10, 7, &lfs), 10); // `from` is taken as a line start
  ck_assert_uint_eq(lfs, 1);
  ck_assert_uint_eq(s->next_dash_line(t, 8, 0, &lfs), 6);
  ck_assert_uint_eq(s->next_dash_line((const uint8_t *)"--", 2, 0, &lfs), 0);
  ck_assert_uint_eq(lfs, 0);
  ck_assert_uint_eq(s->next_dash_line((const uint8_t *)"a--\n", 4, 0, &lfs), 4);
  ck_assert_uint_eq(lfs, 1);
  ck_assert_uint_eq(s->count_lf(t, 10, 0), 3);
  ck_assert_uint_eq(s->count_lf(t, 10, 4), 2);
  struct {
    const char *in;
    size_t from, end, colon;
    uint32_t bits;
  } f[] = {
      {"Subject: a\r\n b\r\nX: y\r\n", 0, 16, 7, 0},
      {"Subject: a\r\n\tb\r\n", 0, 16, 7, 0},
      {"Subject: a\nX: y\n", 0, 11, 7, MP_SCAN_BARE_LF},
      {"Subject: a\r\n b\nX: y\n", 0, 15, 7, MP_SCAN_BARE_LF},
      {"No colon\r\n", 0, 10, 10, 0},
      {"A\r\nb: c\r\n", 0, 3, 9, 0},    // the colon of the next line does not count
      {"A\r\n b: c\r\n", 0, 10, 10, 0}, // nor one on a continuation line
      {"To: \xc3\xa9\r\n\r\n", 0, 8, 2, MP_SCAN_8BIT},
      {"To: a\0b\r\n", 0, 9, 2, MP_SCAN_NUL},
      {"To: a", 0, 5, 2, 0},
      {"To: a\r\n ", 0, 8, 2, 0},
      {"To: a\r\r\n", 0, 8, 2, MP_SCAN_BARE_CR}, // the first CR is data
      {"\n", 0, 1, 1, MP_SCAN_BARE_LF},
      {"X: 1\r\nY: 2\r\n", 6, 12, 7, 0},
      {"", 0, 0, 0, 0},
      {"X: a\rb: c\r\nY: d\r\n", 0, 11, 1, MP_SCAN_BARE_CR}, // a lone CR ends no line
      {"X: a\r\n b\rc\r\n", 0, 12, 1, MP_SCAN_BARE_CR},      // on a continuation line
      {"X: a\r", 0, 5, 1, MP_SCAN_BARE_CR},                  // at the end of the input
      {"X: a\r\nY: \rb\r\n", 0, 6, 1, 0},                    // in the next field only
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    size_t len = strlen(f[i].in);
    if (i == 8)
      len = 9;
    size_t colon;
    uint32_t bits;
    size_t end = s->field_end((const uint8_t *)f[i].in, len, f[i].from, &colon, &bits);
    require(end == f[i].end && colon == f[i].colon && bits == f[i].bits,
            "case %zu: end %zu colon %zu bits %u", i, end, colon, (unsigned)bits);
  }
}
END_TEST

// Every length 0..300 at every alignment 0..63 of a 64-byte aligned buffer.
START_TEST(lengths_and_alignments) {
  uint8_t *mem = aligned_alloc(64, 64 + 512);
  ck_assert_ptr_nonnull(mem);
  for (size_t len = 0; len <= 300; len++)
    for (size_t align = 0; align < 64; align++) {
      uint8_t *buf = mem + align;
      fill(buf, len, 1 + (unsigned)(align & 1));
      check_all(buf, len, len < 24 ? ALL : EDGES);
    }
  free(mem);
}
END_TEST

// Line-end styles and "--" placed at block edges and at the very end.
START_TEST(block_edges) {
  static const char *const eols[] = {"\n", "\r\n", "\r"};
  uint8_t buf[400];
  for (size_t e = 0; e < 3; e++)
    for (size_t len = 1; len <= 200; len++) {
      size_t el = strlen(eols[e]);
      // Lines of 'a' with the chosen line end; every line end position
      // sweeps the block edges as `len` grows.
      for (size_t i = 0; i < len; i++)
        buf[i] = 'a';
      for (size_t at = 0; at + el <= len; at += 7 + len % 5)
        memcpy(buf + at, eols[e], el);
      int all = len < 70 ? ALL : SAMPLED;
      check_all(buf, len, all);
      static const size_t spots[] = {0, 14, 15, 16, 17, 30, 31, 32, 33, 62, 63, 64, 65, 127, 128};
      for (size_t k = 0; k < sizeof spots / sizeof spots[0]; k++) {
        size_t at = spots[k];
        if (at + 3 > len)
          continue;
        uint8_t save[3];
        memcpy(save, buf + at, 3);
        memcpy(buf + at, "\n--", 3);
        check_all(buf, len, all);
        memcpy(buf + at, " --", 3); // after a space: not a line start
        check_all(buf, len, all);
        memcpy(buf + at, save, 3);
      }
      // "--" and "\n-" at the end of the buffer.
      if (len >= 3) {
        memcpy(buf + len - 3, "\n--", 3);
        check_all(buf, len, all);
        memcpy(buf + len - 3, "a\n-", 3);
        check_all(buf, len, all);
        memcpy(buf + len - 3, "a\n ", 3);
        check_all(buf, len, all);
      }
    }
  // Longer buffers, for kernels that take two or more blocks a step (avx512):
  // a delimiter candidate, or the LF before it, at every position across
  // the first four 128-byte steps.
  uint8_t big[600];
  for (size_t at = 0; at + 3 <= sizeof big; at++) {
    memset(big, 'a', sizeof big);
    for (size_t i = 40; i < sizeof big; i += 80)
      big[i] = '\n';
    memcpy(big + at, "\n--", 3);
    check_all(big, sizeof big, EDGES);
    memcpy(big + at, "\n-a", 3);
    check_all(big, sizeof big, EDGES);
  }
  // Degenerate fills: all dashes, all line feeds, all spaces, all colons.
  static const uint8_t fills[] = {'-', '\n', ' ', ':', '\r', 0, 0x80};
  for (size_t k = 0; k < sizeof fills; k++)
    for (size_t len = 0; len <= 200; len += 3) {
      memset(buf, fills[k], len);
      check_all(buf, len, len < 70 ? ALL : SAMPLED);
    }
}
END_TEST

// Long bodies, for kernels that count line feeds in byte lanes and sum them
// now and then (avx2: every 127 blocks): runs of line feeds long enough to
// fill a lane many times over, with and without a delimiter candidate far
// in, and Base64-like lines with a candidate at many places.
START_TEST(long_runs) {
  size_t len = 64 * 1000 + 37;
  uint8_t *buf = malloc(len);
  ck_assert_ptr_nonnull(buf);
  memset(buf, '\n', len);
  check_all(buf, len, EDGES);
  static const size_t spots[] = {64 * 127 - 1, 64 * 127, 64 * 127 + 1,
                                 64 * 254 + 5, 40000,    64 * 999};
  for (size_t k = 0; k < sizeof spots / sizeof spots[0]; k++) {
    memcpy(buf + spots[k], "--", 2);
    check_all(buf, len, EDGES);
    memcpy(buf + spots[k], "-a", 2); // a single dash: no candidate
    check_all(buf, len, EDGES);
    memset(buf + spots[k], '\n', 2);
  }
  // 76-column lines with CRLF, a "\n--" or "\n-x" every so often.
  for (size_t i = 0; i < len; i++)
    buf[i] = (i % 78) == 76 ? '\r' : (i % 78) == 77 ? '\n' : (uint8_t)('A' + i % 26);
  for (size_t at = 77; at + 3 <= len; at += 78 * 131 + 17) {
    memcpy(buf + at, (at / 7) % 2 ? "\n--" : "\n-x", 3);
    check_all(buf, len, EDGES);
    // And from offsets before it, each taken as a line start.
    char why[256];
    size_t next = 0;
    for (const mp_scanner *sc; (sc = mp_scanner_next_vector(&next)) != NULL;)
      for (size_t from = at > 5000 ? at - 5000 : 0; from < at + 3; from += 781)
        require(mp_scan_diff(&mp_scanner_scalar, sc, buf, len, from, why, sizeof why) == 0, "%s",
                why);
  }
  free(buf);
}
END_TEST

// Inputs whose last byte is the last byte before a PROT_NONE page: any read
// past the end faults, in every build and without ASan.
START_TEST(guard_page) {
  long page = sysconf(_SC_PAGESIZE);
  ck_assert_int_gt(page, 0);
  uint8_t *map =
      mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(map, MAP_FAILED);
  uint8_t *guard = map + 2 * page;
  ck_assert_int_eq(mprotect(guard, (size_t)page, PROT_NONE), 0);
  for (size_t len = 0; len <= 300; len++) {
    uint8_t *buf = guard - len;
    int cover = len < 40 ? ALL : SAMPLED;
    fill(buf, len, (unsigned)(len % 3));
    check_all(buf, len, cover);
    if (len >= 2) {
      memcpy(buf + len - 2, "--", 2);
      check_all(buf, len, cover);
    }
    if (len >= 1) {
      buf[len - 1] = '\n';
      check_all(buf, len, cover);
    }
  }
  // A whole page and more.
  for (size_t len = (size_t)page - 70; len <= (size_t)page + 70; len++) {
    uint8_t *buf = guard - len;
    fill(buf, len, 1);
    check_all(buf, len, EDGES);
  }
  munmap(map, (size_t)page * 3);
}
END_TEST

START_TEST(random_inputs) {
  uint8_t *buf = malloc(4096);
  ck_assert_ptr_nonnull(buf);
  for (int it = 0; it < 1000; it++) {
    size_t len = (size_t)(rnd() % (it < 700 ? 300 : 4096));
    fill(buf, len, (unsigned)(rnd() % 3));
    uint8_t *exact = malloc(len ? len : 1); // exact size: ASan sees overreads
    ck_assert_ptr_nonnull(exact);
    memcpy(exact, buf, len);
    check_all(exact, len, SAMPLED);
    free(exact);
  }
  free(buf);
}
END_TEST

// UTF-8 validity. The scalar check on hand-checked sequences first: it is
// the converter's decoder, so this pins the rule the kernels must follow.
START_TEST(utf8_scalar_table) {
  static const struct {
    const char *s;
    bool valid;
  } t[] = {
      {"", true},
      {"plain ascii", true},
      {"nul\0inside", true},
      {"\xC2\x80", true},          // U+0080
      {"\xDF\xBF", true},          // U+07FF
      {"\xE0\xA0\x80", true},      // U+0800
      {"\xED\x9F\xBF", true},      // U+D7FF
      {"\xEE\x80\x80", true},      // U+E000
      {"\xEF\xBF\xBF", true},      // U+FFFF
      {"\xF0\x90\x80\x80", true},  // U+10000
      {"\xF4\x8F\xBF\xBF", true},  // U+10FFFF
      {"\xC0\x80", false},         // overlong NUL
      {"\xC1\xBF", false},         // overlong
      {"\xE0\x9F\xBF", false},     // overlong
      {"\xF0\x8F\xBF\xBF", false}, // overlong
      {"\xED\xA0\x80", false},     // surrogate
      {"\xED\xBF\xBF", false},     // surrogate
      {"\xF4\x90\x80\x80", false}, // above U+10FFFF
      {"\xF5\x80\x80\x80", false}, // no such lead
      {"\xFF", false},             // no such byte
      {"\x80", false},             // stray continuation
      {"a\xBF", false},            // stray continuation
      {"\xC2", false},             // truncated at the end
      {"\xE2\x82", false},         // truncated at the end
      {"\xF0\x9F\x98", false},     // truncated at the end
      {"\xE2\x82"
       "a",
       false},                     // truncated by ASCII
      {"\xE2\x82\xAC\xAC", false}, // one continuation too many
      {"\xF0\x9F\x98\x80\x80", false},
      {"\xE2\x82\xAC", true},     // U+20AC
      {"\xF0\x9F\x98\x80", true}, // U+1F600
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    size_t n = i == 2 ? 10 : strlen(t[i].s);
    require(mp_scanner_scalar.utf8_valid((const uint8_t *)t[i].s, n) == t[i].valid, "case %zu", i);
  }
}
END_TEST

// check_utf8 compares every supported implementation's UTF-8 check with
// scalar's on suffixes of `buf` (the first and last few, and every 7th:
// start alignments and starts inside a sequence), and returns scalar's
// verdict on the whole.
static bool check_utf8(const uint8_t *buf, size_t len) {
  size_t next = 0;
  for (const mp_scanner *sc; (sc = mp_scanner_next_vector(&next)) != NULL;) {
    for (size_t from = 0; from <= len; from++) {
      if (from > 4 && from + 4 < len && from % 7 != 0)
        continue;
      bool want = mp_scanner_scalar.utf8_valid(buf + from, len - from);
      require(sc->utf8_valid(buf + from, len - from) == want,
              "%s utf8_valid(len %zu, from %zu) != scalar %d", sc->name, len, from, (int)want);
    }
  }
  return mp_scanner_scalar.utf8_valid(buf, len);
}

// put_utf8_piece appends one piece of text: mostly well-formed characters of
// every length (boundary values among them), runs of ASCII among them, and,
// when `bad`, one of the ill-formed forms.
static size_t put_utf8_piece(uint8_t *out, bool bad) {
  static const char *const good[] = {
      "a",
      " ",
      "\n",
      "\xC2\x80",
      "\xDF\xBF",
      "\xC3\xA9",
      "\xE0\xA0\x80",
      "\xED\x9F\xBF",
      "\xEE\x80\x80",
      "\xEF\xBF\xBF",
      "\xE2\x82\xAC",
      "\xF0\x90\x80\x80",
      "\xF4\x8F\xBF\xBF",
      "\xF0\x9F\x98\x80",
      "\xD0\x9F\xD1\x80",
      "\xE6\x97\xA5\xE6\x9C\xAC",
      "plain words ",
  };
  static const char *const ill[] = {
      "\x80",
      "\xBF",
      "\xC0\x80",
      "\xC1\xBF",
      "\xC2",
      "\xC2\x61",
      "\xE0\x80\x80",
      "\xE0\x9F\xBF",
      "\xED\xA0\x80",
      "\xED\xBF\xBF",
      "\xE2\x82",
      "\xF0\x80\x80\x80",
      "\xF0\x8F\xBF\xBF",
      "\xF4\x90\x80\x80",
      "\xF5\x80\x80\x80",
      "\xF8\x88\x80\x80",
      "\xFE",
      "\xFF",
      "\xF0\x9F\x98",
      "\xE2\x82\xAC\x80",
      "\xC3\xA9\xA9",
  };
  const char *p;
  if (bad)
    p = ill[rnd() % (sizeof ill / sizeof ill[0])];
  else
    p = good[rnd() % (sizeof good / sizeof good[0])];
  size_t n = strlen(p);
  memcpy(out, p, n);
  return n;
}

// Well-formed text with at most one ill-formed piece, at every length up to
// 300 and every alignment, each also cut at its last bytes (truncated
// sequences at the very end), and longer runs for the 64-byte main loop.
START_TEST(utf8_kernels) {
  uint8_t *mem = aligned_alloc(64, 64 + 1024);
  ck_assert_ptr_nonnull(mem);
  size_t valid = 0, invalid = 0;
  for (int it = 0; it < 3000; it++) {
    uint8_t *buf = mem + (it % 64);
    size_t want = (size_t)(rnd() % (it < 2500 ? 300 : 900)), len = 0;
    size_t bad_at = rnd() % 3 == 0 ? SIZE_MAX : (size_t)(rnd() % (want + 1));
    while (len < want) {
      bool bad = bad_at != SIZE_MAX && len >= bad_at;
      len += put_utf8_piece(buf + len, bad);
      if (bad)
        bad_at = SIZE_MAX;
    }
    for (size_t cut = 0; cut < 4 && cut <= len; cut++) {
      if (check_utf8(buf, len - cut))
        valid++;
      else
        invalid++;
    }
  }
  // Both verdicts must have been exercised, or the comparison proves little.
  ck_assert_uint_gt(valid, 1000);
  ck_assert_uint_gt(invalid, 1000);
  // ASCII blocks around one multi-byte character, so that it sits at every
  // offset of a block and a sequence is split across two blocks.
  for (size_t at = 0; at < 200; at++) {
    memset(mem, 'x', 256);
    memcpy(mem + at, "\xF0\x9F\x98\x80", 4);
    ck_assert(check_utf8(mem, 256));
    memcpy(mem + at, "\xF0\x9F\x98x", 4); // cut short inside
    ck_assert(!check_utf8(mem, 256));
    ck_assert(!check_utf8(mem, at + 3)); // cut short by the end
  }
  free(mem);
}
END_TEST

// Every two-byte and three-byte input with bytes from a set that covers
// each table row and column of the vector check, after an ASCII prefix that
// puts them at the end of a 64-byte block and across into the next.
START_TEST(utf8_exhaustive_pairs) {
  static const uint8_t bytes[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                  0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                  0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF};
  enum { NB = sizeof bytes };
  uint8_t buf[70];
  for (size_t pre = 60; pre <= 64; pre += 2)
    for (size_t a = 0; a < NB; a++)
      for (size_t b = 0; b < NB; b++)
        for (size_t c = 0; c < NB; c++) {
          memset(buf, 'y', pre);
          buf[pre] = bytes[a];
          buf[pre + 1] = bytes[b];
          buf[pre + 2] = bytes[c];
          buf[pre + 3] = 0x80 | (uint8_t)(c & 0x3F);
          for (size_t len = pre + 2; len <= pre + 4; len++) {
            bool want = mp_scanner_scalar.utf8_valid(buf, len);
            size_t next = 0;
            for (const mp_scanner *sc; (sc = mp_scanner_next_vector(&next)) != NULL;)
              require(sc->utf8_valid(buf, len) == want, "%s %02x %02x %02x len %zu", sc->name,
                      bytes[a], bytes[b], bytes[c], len - pre);
          }
        }
}
END_TEST

// Whole messages: every supported implementation parses to the same headers,
// parts and problems as scalar.
static void compare_parses(const uint8_t *in, size_t len, const mp_settings *st) {
  ck_assert_int_eq(mp_impl_force("scalar"), 0);
  mp_message *ref = NULL;
  ck_assert_int_eq(mp_message_parse(&ref, st, in, len, NULL), 0);
  char why[256];
  for (size_t i = 0; i < mp_impl_count(); i++) {
    int sup;
    const char *name = mp_impl_get(i, &sup);
    if (!sup)
      continue;
    ck_assert_int_eq(mp_impl_force(name), 0);
    ck_assert_str_eq(mp_impl_name(), name);
    mp_message *m = NULL;
    ck_assert_int_eq(mp_message_parse(&m, st, in, len, NULL), 0);
    require(mp_message_diff(ref, m, why, sizeof why) == 0, "%s: %s", name, why);
    mp_message_free(m);
  }
  mp_message_free(ref);
  ck_assert_int_eq(mp_impl_force(NULL), 0);
}

START_TEST(whole_messages) {
  static const char *const msgs[] = {
      ("From: a@b\r\nSubject: hi\r\n there\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n"
       "\r\npre\r\n--b1\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b1\r\n"
       "Content-Type: message/rfc822\r\n\r\nFrom: c@d\r\nTo: e\r\n\r\nbody\r\n--b1--\r\nepi\r\n"),
      "Content-Type: multipart/alternative; boundary=x\n\n--x\n\n--x--\n",
      "X: \xc3\xa9\nBad line\nY:\0z\n\nbody --x\n--",
      ("Content-Type: multipart/mixed; boundary=\"a\"\r\n\r\n--a\r\nContent-Type: multipart/mixed; "
       "boundary=\"b\"\r\n\r\n--b\r\n\r\ninner\r\n--a--\r\n"),
  };
  for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
    size_t len = i == 2 ? 32 : strlen(msgs[i]);
    compare_parses((const uint8_t *)msgs[i], len, NULL);
    mp_settings st = MP_SETTINGS_INIT;
    st.max_line_len = 8;
    compare_parses((const uint8_t *)msgs[i], len, &st);
  }
  // Random messages built from header and boundary pieces.
  static const char *const pieces[] = {"Content-Type: multipart/mixed; boundary=\"zz\"\r\n",
                                       "Content-Type: message/rfc822\n",
                                       "\r\n--zz\r\n",
                                       "\n--zz--\n",
                                       "\r\n\r\n",
                                       "\n\n",
                                       "Subject: x\r\n",
                                       " folded\r\n",
                                       "\tfolded\n",
                                       "To: \xe2\x82\xac\n",
                                       "no colon\n",
                                       "text\r\n",
                                       "--",
                                       "\0",
                                       ":"};
  uint8_t *buf = malloc(8192);
  ck_assert_ptr_nonnull(buf);
  for (int it = 0; it < 400; it++) {
    size_t want = (size_t)(rnd() % 3000), n = 0;
    while (n < want) {
      const char *p = pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
      size_t pl = p[0] == '\0' ? 1 : strlen(p);
      memcpy(buf + n, p, pl);
      n += pl;
    }
    compare_parses(buf, n, NULL);
  }
  free(buf);
}
END_TEST

START_TEST(impl_table) {
  size_t n = mp_impl_count();
  ck_assert_uint_ge(n, 2);
  ck_assert_ptr_null(mp_impl_get(n, NULL));
  int sup = 0;
  ck_assert_str_eq(mp_impl_get(n - 1, &sup), "scalar");
  ck_assert_int_eq(sup, 1);
  ck_assert_str_eq(mp_impl_get(n - 2, &sup), "swar"); // runs everywhere
  ck_assert_int_eq(sup, 1);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      ck_assert_str_ne(mp_impl_get(i, NULL), mp_impl_get(j, NULL));
  // The automatic choice is the first supported entry.
  ck_assert_int_eq(mp_impl_force(NULL), 0);
  for (size_t i = 0; i < n; i++) {
    mp_impl_get(i, &sup);
    if (sup) {
      ck_assert_str_eq(mp_impl_name(), mp_impl_get(i, NULL));
      break;
    }
  }
  ck_assert_int_eq(mp_impl_force("no-such-implementation"), MP_ERR_UNSUPPORTED);
  ck_assert_int_eq(mp_impl_force("scalar"), 0);
  ck_assert_str_eq(mp_impl_name(), "scalar");
  ck_assert_int_eq(mp_impl_force("unsupported"), MP_ERR_UNSUPPORTED);
  ck_assert_str_eq(mp_impl_name(), "scalar");
  ck_assert_int_eq(mp_impl_force(NULL), 0);
}
END_TEST

// Run with MAILPARSE_IMPL naming no implementation: parsing refuses, nothing
// aborts, and a program can still choose a real one.
START_TEST(impl_unsupported) {
  ck_assert_str_eq(mp_impl_name(), "unsupported");
  mp_message *m = (mp_message *)1;
  mp_diag d;
  ck_assert_int_eq(mp_message_parse(&m, NULL, "X: y\r\n\r\n", 8, &d), MP_ERR_UNSUPPORTED);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(d.code, MP_ERR_UNSUPPORTED);
  ck_assert_str_eq(mp_strerror(MP_ERR_UNSUPPORTED), "not supported by the selected implementation");
  ck_assert_int_eq(mp_impl_force("scalar"), 0);
  ck_assert_int_eq(mp_message_parse(&m, NULL, "X: y\r\n\r\n", 8, &d), 0);
  ck_assert_uint_eq(mp_message_num_headers(m), 1);
  mp_message_free(m);
}
END_TEST

// mp_ascii_ieq folds eight bytes at a time (SWAR); every pair of byte
// values, at a position in the SWAR step and in the byte tail, must compare
// as the byte-wise ASCII case folding says.
static uint8_t ref_lower(uint8_t c) {
  return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

START_TEST(ascii_ieq_pairs) {
  uint8_t a[11], b[11];
  memcpy(a, "Content-Typ", 11);
  memcpy(b, "cONTENT-tYP", 11);
  ck_assert(mp_ascii_ieq(a, 11, (const char *)b, 11));
  ck_assert(!mp_ascii_ieq(a, 11, (const char *)b, 10));
  for (size_t pos = 0; pos < 11; pos += 3) {
    for (unsigned x = 0; x < 256; x++) {
      for (unsigned y = 0; y < 256; y++) {
        a[pos] = (uint8_t)x;
        b[pos] = (uint8_t)y;
        bool want = ref_lower((uint8_t)x) == ref_lower((uint8_t)y);
        require(mp_ascii_ieq(a, 11, (const char *)b, 11) == want, "%02x %02x at %zu", x, y, pos);
      }
    }
    a[pos] = 'x';
    b[pos] = 'X';
  }
}
END_TEST

// mp_ascii_ieq takes whole words, an overlapping last word, two overlapping
// halves for 4 to 7 bytes and bytes under 4: at every length from 0 to 33
// and every position, a byte next to a case edge ('@' 'A' 'Z' '[' '`' 'a'
// 'z' '{', 8-bit ones whose low seven bits are letters) against every byte
// value must compare as the byte-wise folding says, the rest of the names
// equal up to case.
START_TEST(ascii_ieq_lengths) {
  static const uint8_t edge[] = {0x00, '@',  'A',  'M',  'Z',  '[',  '`',  'a',  'm',  'z',
                                 '{',  0x7f, 0x80, 0xc0, 0xc1, 0xda, 0xdb, 0xe1, 0xfa, 0xff};
  uint8_t a[33] = {0}, b[33] = {0};
  for (size_t len = 0; len <= sizeof a; len++) {
    for (size_t i = 0; i < len; i++) {
      a[i] = (uint8_t)('a' + i % 26);
      b[i] = (uint8_t)(i % 2 ? 'A' + i % 26 : 'a' + i % 26);
    }
    require(mp_ascii_ieq(a, len, (const char *)b, len), "equal names, length %zu", len);
    if (len > 0)
      require(!mp_ascii_ieq(a, len, (const char *)b, len - 1), "lengths differ at %zu", len);
    for (size_t pos = 0; pos < len; pos++) {
      for (size_t e = 0; e < sizeof edge; e++) {
        for (unsigned y = 0; y < 256; y++) {
          a[pos] = edge[e];
          b[pos] = (uint8_t)y;
          bool want = ref_lower(edge[e]) == ref_lower((uint8_t)y);
          require(mp_ascii_ieq(a, len, (const char *)b, len) == want, "%02x %02x at %zu of %zu",
                  edge[e], y, pos, len);
          require(mp_ascii_ieq(b, len, (const char *)a, len) == want, "%02x %02x at %zu of %zu", y,
                  edge[e], pos, len);
        }
      }
      a[pos] = (uint8_t)('a' + pos % 26);
      b[pos] = (uint8_t)('A' + pos % 26);
    }
  }
}
END_TEST

// mp_ascii_lower_copy has the same word, overlapping-word and half-word
// steps: at every length from 0 to 33 and every position, every byte value
// must come out as the byte-wise folding says, the bytes around it too, and
// nothing past `n` may be written.
START_TEST(ascii_lower_copy_lengths) {
  uint8_t src[33];
  char dst[34];
  for (size_t len = 0; len <= sizeof src; len++) {
    for (size_t pos = 0; pos < len || (len == 0 && pos == 0); pos++) {
      for (unsigned x = 0; x < 256; x++) {
        for (size_t i = 0; i < len; i++)
          src[i] = (uint8_t)(i % 3 == 0 ? 'A' + i % 26 : i % 3 == 1 ? 'a' + i % 26 : 0xc1 + i);
        if (len > 0)
          src[pos] = (uint8_t)x;
        memset(dst, '#', sizeof dst);
        mp_ascii_lower_copy(dst, src, len);
        for (size_t i = 0; i < len; i++)
          require((uint8_t)dst[i] == ref_lower(src[i]), "byte %02x at %zu of %zu", src[i], i, len);
        require(dst[len] == '#', "wrote past %zu", len);
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("scan");
  const char *env = getenv("MAILPARSE_IMPL");
  struct {
    const char *name;
    const TTest *test;
  } cases[] = {{"scalar_tables", scalar_tables},
               {"lengths_and_alignments", lengths_and_alignments},
               {"block_edges", block_edges},
               {"long_runs", long_runs},
               {"guard_page", guard_page},
               {"random_inputs", random_inputs},
               {"whole_messages", whole_messages},
               {"impl_table", impl_table},
               {"utf8_scalar_table", utf8_scalar_table},
               {"utf8_kernels", utf8_kernels},
               {"utf8_exhaustive_pairs", utf8_exhaustive_pairs},
               {"ascii_ieq_pairs", ascii_ieq_pairs},
               {"ascii_ieq_lengths", ascii_ieq_lengths},
               {"ascii_lower_copy_lengths", ascii_lower_copy_lengths}};
  if (env != NULL && env[0] != '\0' && strcmp(mp_impl_name(), "unsupported") == 0) {
    TCase *tc = tcase_create("impl_unsupported");
    tcase_add_test(tc, impl_unsupported);
    suite_add_tcase(s, tc);
  } else {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      TCase *tc = tcase_create(cases[i].name);
      tcase_set_timeout(tc, 600);
      tcase_add_test(tc, cases[i].test);
      suite_add_tcase(s, tc);
    }
  }
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
