// keepd_lincheck.h: a linearizability checker for one register (one key)
// for the fault suites: given the reads and writes recorded against the key,
// each with its start and end on the clock all processes share, it searches
// for an order of the operations that respects real time (an operation that
// ended before another started comes first) and the register's rules (a
// read returns the latest write before it, or absent). The search is Wing
// and Gong's, with the configurations already seen (the set of operations
// ordered so far, and the register's value) remembered so that each is
// explored once. A write whose answer was lost may have taken effect at any
// time after its start, or never: it takes part with no end and need not be
// ordered. Test-only and header-only.
//
// Bounds: a history of at most LIN_MAX_OPS operations per key (the suites
// change keys often enough to stay under it), and at most LIN_MAX_CONFIGS
// configurations explored; past either the answer is "undecided", never a
// guess. With few operations in flight at once the search is close to
// linear: each configuration offers only the operations concurrent with the
// earliest pending end.
#ifndef KEEPD_LINCHECK_H
#define KEEPD_LINCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIN_MAX_OPS 1024
#define LIN_MAX_CONFIGS 200000
#define LIN_WORDS (LIN_MAX_OPS / 64)

struct lin_op {
  uint64_t start, end; // end: UINT64_MAX for a write whose outcome is unknown
  int64_t value;       // written, or read (0: absent); written values are unique and nonzero
  bool write;
  bool optional; // an unknown outcome: it may be left out
};

struct lin_cfg {
  uint64_t done[LIN_WORDS];
  int64_t value;
};

enum { LIN_OK = 1, LIN_VIOLATION = 0, LIN_UNDECIDED = -1 };

static int lin_cmp_start(const void *a, const void *b) {
  const struct lin_op *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

static uint64_t lin_hash(const struct lin_cfg *c) {
  uint64_t h = (uint64_t)c->value * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < LIN_WORDS; i++)
    h = (h ^ c->done[i]) * 0x100000001b3ull + (h >> 29);
  return h;
}

// lin_check sorts `ops` by start and decides whether the history is
// linearizable; `*explored` gets the configurations visited.
static inline int lin_check(struct lin_op *ops, size_t n, size_t *explored) {
  *explored = 0;
  if (n > LIN_MAX_OPS)
    return LIN_UNDECIDED;
  qsort(ops, n, sizeof *ops, lin_cmp_start);
  uint64_t required[LIN_WORDS] = {0};
  for (size_t i = 0; i < n; i++)
    if (!ops[i].optional)
      required[i / 64] |= 1ull << (i % 64);
  size_t table_len = 2 * LIN_MAX_CONFIGS;
  struct lin_cfg *cfgs = malloc(LIN_MAX_CONFIGS * sizeof *cfgs);
  uint32_t *table = calloc(table_len, sizeof *table); // index + 1, 0 = empty
  uint32_t *stack = malloc(LIN_MAX_CONFIGS * sizeof *stack);
  if (cfgs == NULL || table == NULL || stack == NULL) {
    free(cfgs);
    free(table);
    free(stack);
    return LIN_UNDECIDED;
  }
  size_t nc = 0, sp = 0;
  int result = LIN_VIOLATION;
  memset(&cfgs[0], 0, sizeof cfgs[0]);
  table[lin_hash(&cfgs[0]) % table_len] = 1;
  stack[sp++] = 0;
  nc = 1;
  while (sp > 0) {
    struct lin_cfg c = cfgs[stack[--sp]];
    bool all = true;
    for (int w = 0; w < LIN_WORDS; w++)
      all &= (required[w] & ~c.done[w]) == 0;
    if (all) {
      result = LIN_OK;
      break;
    }
    // Whatever is ordered next must have started before every pending
    // operation ended.
    uint64_t min_end = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
      if (!(c.done[i / 64] >> (i % 64) & 1) && ops[i].end < min_end)
        min_end = ops[i].end;
    for (size_t i = 0; i < n && ops[i].start <= min_end; i++) {
      if (c.done[i / 64] >> (i % 64) & 1)
        continue;
      if (!ops[i].write && ops[i].value != c.value)
        continue;
      struct lin_cfg next = c;
      next.done[i / 64] |= 1ull << (i % 64);
      if (ops[i].write)
        next.value = ops[i].value;
      size_t at = lin_hash(&next) % table_len;
      bool seen = false;
      while (table[at] != 0) {
        if (memcmp(&cfgs[table[at] - 1], &next, sizeof next) == 0) {
          seen = true;
          break;
        }
        at = at + 1 == table_len ? 0 : at + 1;
      }
      if (seen)
        continue;
      if (nc == LIN_MAX_CONFIGS) {
        result = LIN_UNDECIDED;
        sp = 0;
        break;
      }
      cfgs[nc] = next;
      table[at] = (uint32_t)nc + 1;
      stack[sp++] = (uint32_t)nc;
      nc++;
    }
  }
  *explored = nc;
  free(cfgs);
  free(table);
  free(stack);
  return result;
}

#endif // KEEPD_LINCHECK_H
