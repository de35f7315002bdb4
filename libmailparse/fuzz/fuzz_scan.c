// fuzz_scan.c: differential fuzzing of the scanner kernels: every scanning
// function of every implementation this CPU supports must return what the
// scalar specification returns, at every offset of the input (at line starts
// and a sample of others for long inputs), with the input copied so that it
// ends right before a PROT_NONE page (an overread faults even without ASan);
// and parsing the input as a whole message with scalar and with each
// supported implementation must give the same part tree, header array and
// problems, field by field, with line counts equal to a naive count. Any
// difference aborts.
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_internal.h"
#include "corvid_fuzz.h"
#include "mailparse.h"
#include "scan_check.h"

#define GUARDED_MAX (1u << 20)

// guarded returns a copy of the input that ends at a PROT_NONE page, or the
// input itself when it is too large for the mapping.
static const uint8_t *guarded(const uint8_t *data, size_t size) {
  static uint8_t *area;
  static size_t page;
  if (area == NULL) {
    page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *m =
        mmap(NULL, GUARDED_MAX + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    FUZZ_CHECK(m != MAP_FAILED);
    FUZZ_CHECK(mprotect(m + GUARDED_MAX, page, PROT_NONE) == 0);
    area = m;
  }
  if (size > GUARDED_MAX)
    return data;
  uint8_t *p = area + GUARDED_MAX - size;
  if (size > 0)
    memcpy(p, data, size);
  return p;
}

// ref_ieq and ref_lower are the byte-wise specifications of mp_ascii_ieq
// and mp_ascii_lower_copy, which go a word (or two overlapping halves) at a
// time.
static uint8_t ref_lower(uint8_t c) {
  return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

static bool ref_ieq(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ref_lower(a[i]) != ref_lower(b[i]))
      return false;
  return true;
}

// check_ascii compares the input's two halves, and the first half with
// itself folded, at every length up to 64 bytes (the names these calls
// see), and checks the folded copies byte by byte.
static void check_ascii(const uint8_t *buf, size_t size) {
  size_t half = size / 2;
  const uint8_t *a = buf, *b = buf + half;
  char low[64];
  for (size_t n = 0; n <= half && n <= sizeof low; n++) {
    FUZZ_CHECK(mp_ascii_ieq(a, n, (const char *)b, n) == ref_ieq(a, b, n));
    mp_ascii_lower_copy(low, b, n);
    for (size_t i = 0; i < n; i++)
      FUZZ_CHECK((uint8_t)low[i] == ref_lower(b[i]));
    FUZZ_CHECK(mp_ascii_ieq(b, n, low, n));
    mp_ascii_lower_copy(low, a, n);
    FUZZ_CHECK(mp_ascii_ieq(a, n, low, n) && mp_ascii_ieq(b, n, low, n) == ref_ieq(a, b, n));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *buf = guarded(data, size);
  check_ascii(buf, size);
  char why[256];
  size_t next = 0;
  for (const mp_scanner *sc; (sc = mp_scanner_next_vector(&next)) != NULL;) {
    for (size_t from = 0; from <= size; from++) {
      if (size > 512 && from > 0 && buf[from - 1] != '\n' && from % 61 != 0 && from != size)
        continue;
      FUZZ_CHECK(mp_scan_diff(&mp_scanner_scalar, sc, buf, size, from, why, sizeof why) == 0);
    }
  }
  // Whole messages; the first byte picks small limits half of the time, so
  // that long-line and NUL fields take the parser's line-by-line path too,
  // and delimiters past the part limit are scanned as body lines.
  mp_settings s = MP_SETTINGS_INIT;
  if (size > 0 && (data[0] & 1)) {
    s.max_line_len = 1 + (data[0] >> 3);
    s.max_headers = 1 + (data[0] >> 4);
    s.max_parts = 2 + ((data[0] >> 1) & 3); // delimiters past the limit stay in the body
    s.max_depth = 1 + ((data[0] >> 2) & 1);
  }
  FUZZ_CHECK(mp_impl_force("scalar") == 0);
  mp_message *ref = NULL;
  FUZZ_CHECK(mp_message_parse(&ref, &s, buf, size, NULL) == 0);
  // Line counts reuse what the body scan counted: check them against a
  // naive count, since a mistake there would be the same for every kernel.
  for (size_t i = 0; i < mp_message_num_parts(ref); i++) {
    mp_range r = mp_message_part(ref, i)->body;
    uint64_t n = 0;
    for (size_t k = 0; k < r.len; k++)
      n += buf[r.off + k] == '\n';
    n += r.len > 0 && buf[r.off + r.len - 1] != '\n';
    FUZZ_CHECK(mp_message_part(ref, i)->lines == n);
  }
  for (size_t i = 0; i < mp_impl_count(); i++) {
    int sup;
    const char *name = mp_impl_get(i, &sup);
    if (!sup || strcmp(name, "scalar") == 0)
      continue;
    FUZZ_CHECK(mp_impl_force(name) == 0);
    mp_message *m = NULL;
    FUZZ_CHECK(mp_message_parse(&m, &s, buf, size, NULL) == 0);
    FUZZ_CHECK(mp_message_diff(ref, m, why, sizeof why) == 0);
    mp_message_free(m);
  }
  mp_message_free(ref);
  FUZZ_CHECK(mp_impl_force(NULL) == 0);
  return 0;
}
