// core_internal.h: private declarations of the message parser core: the
// message handle and its arena, the bounded cursor, and the scanner
// interface the scalar code and the SIMD kernels implement.
#ifndef MP_CORE_INTERNAL_H
#define MP_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mailparse.h"
#include "zero_internal.h"

// Arena: a list of chunks from the settings' allocator, freed at once.
typedef struct mp_arena_chunk {
  struct mp_arena_chunk *next;
  size_t cap, used;
  // data follows, max-aligned
} mp_arena_chunk;

typedef struct mp_arena {
  mp_allocator a;
  mp_arena_chunk *head;
} mp_arena;

// mp_arena_alloc_str returns `size` bytes from the arena, with no alignment:
// the arena holds only byte strings. NULL when no memory.
void *mp_arena_alloc_str(mp_arena *ar, size_t size);
void mp_arena_release(mp_arena *ar);
void *mp_alloc_raw(const mp_allocator *a, size_t size);
void mp_free_raw(const mp_allocator *a, void *p);

// Header and part records live in chunks taken straight from the allocator
// that never move: an array grown by doubling inside the arena would leave
// every old copy behind (a 5,000-part message used 4 times the memory its
// records need). Chunk sizes double from 2^FIRST_SHIFT records up to
// 2^STEP_SHIFT and then stay there (32, 32, 64, 128, 256, 256 ... headers;
// 4, 4, 8, 16, 32, 64, 64 ... parts), so a small message holds small chunks
// and a large one at most one partly used chunk of 2^STEP_SHIFT records.
// `*chunks` is a table of chunk pointers, grown by doubling outside the arena
// (the old table is freed at once).
#define MP_HDR_FIRST_SHIFT 5
#define MP_HDR_STEP_SHIFT 8 // 256 headers (14 KiB) per chunk at most
#define MP_PART_FIRST_SHIFT 2
#define MP_PART_STEP_SHIFT 6 // 64 parts (15 KiB) per chunk at most

// mp_rec_locate returns the chunk of record `i` and its place in the chunk.
static inline size_t mp_rec_locate(size_t i, unsigned first_shift, unsigned step_shift,
                                   size_t *off) {
  if (i < ((size_t)1 << first_shift)) {
    *off = i;
    return 0;
  }
  if (i < ((size_t)1 << (step_shift + 1))) {
    // Chunk k >= 1 starts at 2^(first_shift + k - 1).
    unsigned lg = 63u - (unsigned)__builtin_clzll((unsigned long long)(i >> first_shift));
    *off = i - ((size_t)1 << (first_shift + lg));
    return 1 + lg;
  }
  size_t j = i - ((size_t)1 << (step_shift + 1));
  *off = j & (((size_t)1 << step_shift) - 1);
  return (step_shift - first_shift + 2) + (j >> step_shift);
}

// mp_rec_chunk_len returns how many records chunk `k` holds.
static inline size_t mp_rec_chunk_len(size_t k, unsigned first_shift, unsigned step_shift) {
  if (k == 0)
    return (size_t)1 << first_shift;
  if (k <= step_shift - first_shift + 1)
    return (size_t)1 << (first_shift + k - 1);
  return (size_t)1 << step_shift;
}

// The first chunk of each record store and the first chunk tables live in
// the message handle itself, so that a small message costs one allocation
// instead of five (their sizes are what they would take from the allocator
// anyway). `hnext`/`hleft` point at the free records of the newest header
// chunk, so that appending a field needs no chunk lookup. Everything from
// `problems` on is read only below a count set before (num_problems,
// nhchunks, npchunks), so parse_entry() clears the fields before it only:
// the 640 bytes of problems and tables cost a clear on every parse for
// nothing.
#define MP_TAB_INLINE 8

struct mp_message {
  mp_arena arena;
  const uint8_t *data;
  size_t len;
  mp_header **hchunks;
  size_t num_headers, nhchunks, cap_hchunks;
  mp_header *hnext;
  size_t hleft;
  mp_part **pchunks;
  size_t num_parts, npchunks, cap_pchunks;
  bool headers_only; // from mp_message_parse_headers()
  uint32_t problem_mask;
  size_t num_problems;
  // Left uninitialized by parse_entry() from here on (see above).
  mp_problem problems[MP_MAX_PROBLEMS];
  mp_header *htab0[MP_TAB_INLINE];
  mp_part *ptab0[MP_TAB_INLINE];
  mp_header hrec0[(size_t)1 << MP_HDR_FIRST_SHIFT];
  mp_part prec0[(size_t)1 << MP_PART_FIRST_SHIFT];
};

// mp_records_init sets up the record stores of a zeroed message handle.
void mp_records_init(mp_message *m);

// mp_hdr_at and mp_part_at return record `i` (< num_headers / num_parts).
static inline mp_header *mp_hdr_at(const mp_message *m, size_t i) {
  size_t off;
  size_t k = mp_rec_locate(i, MP_HDR_FIRST_SHIFT, MP_HDR_STEP_SHIFT, &off);
  return &m->hchunks[k][off];
}

static inline mp_part *mp_part_at(const mp_message *m, size_t i) {
  size_t off;
  size_t k = mp_rec_locate(i, MP_PART_FIRST_SHIFT, MP_PART_STEP_SHIFT, &off);
  return &m->pchunks[k][off];
}

// mp_load_word reads the `n` (2, 4 or 8) bytes at `p` as one word in host
// order; the compilers turn each fixed-size memcpy into one load. Callers
// compare or combine words loaded the same way, so the order never shows.
static inline uint64_t mp_load_word(const void *p, size_t n) {
  if (n == 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  if (n == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

// mp_hdr_grow opens the next chunk of header records when the current one
// is full (0, or -ENOMEM).
int mp_hdr_grow(mp_message *m);

// mp_hdr_push appends one header record (0, or -ENOMEM): inline, since
// every field of every part takes it and only one in many opens a chunk.
// mp_part_push appends a zeroed part record and returns it (NULL when the
// allocator fails). mp_records_free releases both record stores
// (mp_message_free calls it).
static inline int mp_hdr_push(mp_message *m, const mp_header *h) {
  if (m->hleft == 0) {
    int rc = mp_hdr_grow(m);
    if (rc != 0)
      return rc;
  }
  *m->hnext++ = *h;
  m->hleft--;
  m->num_headers++;
  return 0;
}
mp_part *mp_part_push(mp_message *m);
void mp_records_free(mp_message *m);

// Bounded cursor (CONVENTIONS §5): every read checks the remaining length.
typedef struct mp_cur {
  const uint8_t *p;
  size_t len;
} mp_cur;

static inline int mp_cur_get_u8(mp_cur *c, uint8_t *out) {
  if (c->len == 0)
    return 0;
  *out = c->p[0];
  c->p++;
  c->len--;
  return 1;
}

static inline int mp_cur_peek(const mp_cur *c, uint8_t *out) {
  if (c->len == 0)
    return 0;
  *out = c->p[0];
  return 1;
}

static inline void mp_cur_skip_wsp(mp_cur *c) {
  while (c->len > 0 && (c->p[0] == ' ' || c->p[0] == '\t' || c->p[0] == '\r' || c->p[0] == '\n')) {
    c->p++;
    c->len--;
  }
}

// Line scanner: the byte-scanning primitives the structure and header
// parsers are built on, one table per implementation (CONVENTIONS §6). The
// scalar table in scan.c is the specification; every kernel returns exactly
// what it returns, for every input, and reads only [buf, buf + len). Offsets
// are absolute within `buf`; `from` <= `len`.
#define MP_SCAN_NUL 1u     // field_end saw a NUL byte
#define MP_SCAN_8BIT 2u    // field_end saw a byte >= 0x80
#define MP_SCAN_BARE_LF 4u // field_end saw an LF not preceded by CR (or at `from`)
#define MP_SCAN_BARE_CR 8u // field_end saw a CR not followed by LF (or at the end)

typedef struct mp_scanner {
  const char *name;
  uint32_t required; // CORVID_CPU_* bits the kernels need
  // line_end returns the offset just past the next LF at or after `from`, or
  // `len` when there is none.
  size_t (*line_end)(const uint8_t *buf, size_t len, size_t from);
  // next_dash_line returns the offset of the first line start at or after
  // `from` (where `from` itself is a line start) whose line begins with "--",
  // or `len` when there is none, and stores in *lfs the number of LF bytes
  // from `from` up to that offset.
  size_t (*next_dash_line)(const uint8_t *buf, size_t len, size_t from, size_t *lfs);
  // field_end scans one header field starting at `from`: its first line and
  // the continuation lines (lines starting with SP or HT) after it. It
  // returns the offset just past the field's last LF (`len` when the field
  // runs to the end), stores in *colon the offset of the first ':' before the
  // first LF (`len` when there is none), and in *bits the MP_SCAN_* bits of
  // the bytes in [from, returned offset).
  size_t (*field_end)(const uint8_t *buf, size_t len, size_t from, size_t *colon, uint32_t *bits);
  // count_lf returns the number of LF bytes in [from, len).
  size_t (*count_lf)(const uint8_t *buf, size_t len, size_t from);
  // utf8_valid tells whether all `len` bytes of `buf` are well-formed UTF-8
  // (Unicode §3.9: no overlongs, surrogates, values above U+10FFFF or
  // truncated sequences; NUL counts as a character). The charset converter
  // asks it first, so that valid text, nearly all of it in mail, is copied
  // once instead of decoded character by character.
  bool (*utf8_valid)(const uint8_t *buf, size_t len);
  // sbcs_blocks is the block loop of charset.c's single-byte table decoder
  // (sbcs_run, its specification) or NULL for the portable one.
  size_t (*sbcs_blocks)(uint8_t *out, size_t *out_len, unsigned *bad, const uint32_t *u8,
                        const uint8_t *lens, const uint8_t *in, size_t in_len);
} mp_scanner;

// mp_scanner_get returns the implementation in use, chosen once on first use
// (MAILPARSE_IMPL or the best one this CPU supports).
const mp_scanner *mp_scanner_get(void);
// mp_scanner_unsupported is what an unknown or unsupported MAILPARSE_IMPL
// selects: its functions are scalar, but mp_message_parse() refuses to run.
extern const mp_scanner mp_scanner_unsupported;
// mp_scanner_at returns implementation `i` in priority order (the last is
// scalar), or NULL past the end; *supported says whether this CPU runs it.
const mp_scanner *mp_scanner_at(size_t i, bool *supported);
// The tables of the kernels, each in its own file with its own ISA flags.
extern const mp_scanner mp_scanner_scalar;
extern const mp_scanner mp_scanner_swar;
extern const mp_scanner mp_scanner_sse2;
extern const mp_scanner mp_scanner_avx512;
extern const mp_scanner mp_scanner_avx2;
extern const mp_scanner mp_scanner_neon;

// mp_ascii_ieq compares without ASCII case.
bool mp_ascii_ieq(const uint8_t *a, size_t a_len, const char *b, size_t b_len);
// mp_ascii_lower_copy copies `n` bytes of `src` to `dst` with ASCII capitals
// in lower case (8-bit bytes stay); the two must not overlap.
void mp_ascii_lower_copy(char *dst, const uint8_t *src, size_t n);

// Header section parsing (header.c): parses fields from `off` until the empty
// line, a line that is an active boundary (is_boundary), or `end`. It appends
// header records for `part` and returns the offset where the body starts;
// *body_ends_header is false when no empty line was found. is_boundary is
// asked only about lines that start with '-' (a delimiter starts with "--").
typedef bool (*mp_boundary_pred)(void *ctx, size_t line_off);
typedef struct mp_hdr_ctx {
  mp_message *msg;
  uint32_t max_headers;
  uint32_t max_line_len;
  mp_boundary_pred is_boundary;
  void *pred_ctx;
} mp_hdr_ctx;
int mp_header_section_parse(mp_hdr_ctx *hc, uint32_t part, size_t off, size_t end, size_t *body_off,
                            bool *found_empty_line);

void mp_problem_add(mp_message *msg, uint32_t kind, uint32_t part, size_t offset);

#endif // MP_CORE_INTERNAL_H
