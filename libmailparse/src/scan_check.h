// scan_check.h: private, header-only helpers for the scanner tests and the
// scanner fuzz harness (never linked into the library): compare one
// implementation's scanning functions with scalar's at one offset, and
// compare two parsed messages field by field (parts, headers, problems),
// describing the first difference in a caller buffer.
#ifndef MP_SCAN_CHECK_H
#define MP_SCAN_CHECK_H

#include <stdio.h>
#include <string.h>

#include "core_internal.h"

// mp_scanner_next_vector returns the next implementation after position `*i`
// that this CPU supports and that is not scalar, advancing `*i`, or NULL
// when none is left; start with `*i == 0`. Every differential check walks
// the implementations this way.
static inline const mp_scanner *mp_scanner_next_vector(size_t *i) {
  for (;;) {
    bool sup;
    const mp_scanner *sc = mp_scanner_at((*i)++, &sup);
    if (sc == NULL || (sup && sc != &mp_scanner_scalar))
      return sc;
  }
}

// mp_scan_diff runs every function of `sc` and of `ref` on (buf, len, from)
// and returns 0 when all agree, else 1 with the first difference in `why`.
static inline int mp_scan_diff(const mp_scanner *ref, const mp_scanner *sc, const uint8_t *buf,
                               size_t len, size_t from, char *why, size_t why_cap) {
  size_t a = ref->line_end(buf, len, from), b = sc->line_end(buf, len, from);
  if (a != b) {
    snprintf(why, why_cap, "%s line_end(len %zu, from %zu): %zu, scalar %zu", sc->name, len, from,
             b, a);
    return 1;
  }
  size_t la = 5, lb = 6;
  a = ref->next_dash_line(buf, len, from, &la), b = sc->next_dash_line(buf, len, from, &lb);
  if (a != b || la != lb) {
    snprintf(why, why_cap, "%s next_dash_line(len %zu, from %zu): %zu lfs %zu, scalar %zu lfs %zu",
             sc->name, len, from, b, lb, a, la);
    return 1;
  }
  size_t ca = 7, cb = 9;
  uint32_t ba = 0xdead, bb = 0xbeef;
  a = ref->field_end(buf, len, from, &ca, &ba), b = sc->field_end(buf, len, from, &cb, &bb);
  if (a != b || ca != cb || ba != bb) {
    snprintf(why, why_cap,
             "%s field_end(len %zu, from %zu): end %zu colon %zu bits %u, scalar end %zu colon "
             "%zu bits %u",
             sc->name, len, from, b, cb, (unsigned)bb, a, ca, (unsigned)ba);
    return 1;
  }
  a = ref->count_lf(buf, len, from), b = sc->count_lf(buf, len, from);
  if (a != b) {
    snprintf(why, why_cap, "%s count_lf(len %zu, from %zu): %zu, scalar %zu", sc->name, len, from,
             b, a);
    return 1;
  }
  // UTF-8 validity of the rest of the buffer, which ends where `buf` does.
  bool va = ref->utf8_valid(buf + from, len - from), vb = sc->utf8_valid(buf + from, len - from);
  if (va != vb) {
    snprintf(why, why_cap, "%s utf8_valid(len %zu, from %zu): %d, scalar %d", sc->name, len, from,
             (int)vb, (int)va);
    return 1;
  }
  return 0;
}

static inline int mp_range_ne(mp_range x, mp_range y) {
  return x.off != y.off || x.len != y.len;
}

static inline int mp_str_ne(mp_str x, mp_str y) {
  if (x.len != y.len || (x.p == NULL) != (y.p == NULL))
    return 1;
  return x.len > 0 && memcmp(x.p, y.p, x.len) != 0;
}

// mp_message_diff returns 0 when `x` and `y` (two parses of one input) have
// the same headers, parts and problems, else 1 with the first difference in
// `why`.
static inline int mp_message_diff(const mp_message *x, const mp_message *y, char *why,
                                  size_t why_cap) {
#define MP_DIFF_(cond, ...)                                                                        \
  do {                                                                                             \
    if (cond) {                                                                                    \
      snprintf(why, why_cap, __VA_ARGS__);                                                         \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
  MP_DIFF_(mp_message_num_headers(x) != mp_message_num_headers(y), "header count %zu vs %zu",
           mp_message_num_headers(x), mp_message_num_headers(y));
  for (size_t i = 0; i < mp_message_num_headers(x); i++) {
    const mp_header *a = mp_message_header(x, i), *b = mp_message_header(y, i);
    MP_DIFF_(mp_range_ne(a->field, b->field), "header %zu field", i);
    MP_DIFF_(mp_range_ne(a->name, b->name), "header %zu name", i);
    MP_DIFF_(mp_range_ne(a->value, b->value), "header %zu value", i);
    MP_DIFF_(a->flags != b->flags, "header %zu flags %#x vs %#x", i, (unsigned)a->flags,
             (unsigned)b->flags);
    MP_DIFF_(a->part != b->part, "header %zu part", i);
  }
  MP_DIFF_(mp_message_num_parts(x) != mp_message_num_parts(y), "part count %zu vs %zu",
           mp_message_num_parts(x), mp_message_num_parts(y));
  for (size_t i = 0; i < mp_message_num_parts(x); i++) {
    const mp_part *a = mp_message_part(x, i), *b = mp_message_part(y, i);
    MP_DIFF_(a->parent != b->parent || a->first_child != b->first_child ||
                 a->next_sibling != b->next_sibling || a->num_children != b->num_children ||
                 a->depth != b->depth,
             "part %zu tree links", i);
    MP_DIFF_(a->flags != b->flags, "part %zu flags %#x vs %#x", i, (unsigned)a->flags,
             (unsigned)b->flags);
    MP_DIFF_(mp_range_ne(a->header, b->header) || mp_range_ne(a->body, b->body) ||
                 mp_range_ne(a->preamble, b->preamble) || mp_range_ne(a->epilogue, b->epilogue) ||
                 mp_range_ne(a->content_type, b->content_type),
             "part %zu ranges", i);
    MP_DIFF_(a->first_header != b->first_header || a->num_headers != b->num_headers,
             "part %zu header span", i);
    MP_DIFF_(mp_str_ne(a->type, b->type) || mp_str_ne(a->subtype, b->subtype) ||
                 mp_str_ne(a->boundary, b->boundary) || mp_str_ne(a->charset, b->charset) ||
                 mp_str_ne(a->encoding_name, b->encoding_name) || a->encoding != b->encoding,
             "part %zu content type or encoding", i);
    MP_DIFF_(a->h_id != b->h_id || a->h_description != b->h_description ||
                 a->h_disposition != b->h_disposition || a->h_language != b->h_language ||
                 a->h_location != b->h_location || a->h_md5 != b->h_md5,
             "part %zu header slots", i);
    MP_DIFF_(a->lines != b->lines, "part %zu lines %llu vs %llu", i, (unsigned long long)a->lines,
             (unsigned long long)b->lines);
  }
  MP_DIFF_(mp_message_problems(x) != mp_message_problems(y), "problem mask %#x vs %#x",
           (unsigned)mp_message_problems(x), (unsigned)mp_message_problems(y));
  MP_DIFF_(mp_message_num_problems(x) != mp_message_num_problems(y), "problem count");
  for (size_t i = 0; i < mp_message_num_problems(x); i++) {
    const mp_problem *a = mp_message_problem(x, i), *b = mp_message_problem(y, i);
    MP_DIFF_(a->kind != b->kind || a->part != b->part || a->offset != b->offset, "problem %zu", i);
  }
  return 0;
#undef MP_DIFF_
}

#endif // MP_SCAN_CHECK_H
