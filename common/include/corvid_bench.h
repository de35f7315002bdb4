// corvid_bench.h: the conventions every bench/ program follows, in one small
// header: a monotonic clock, repeated measurement reduced to min and median,
// and one JSON object per line on output (ARCHITECTURE.md "Tests, fuzzing,
// benchmarks"). Private and header-only; tools/bench-report reads the output.
//
// A benchmark measures ours and its peers in the same run, so that the
// figures that matter are ratios, which survive a noisy machine.
#ifndef CORVID_BENCH_H
#define CORVID_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// CORVID_BENCH_MAX_REPS bounds the repetitions of one measurement; the
// samples live on the stack.
#define CORVID_BENCH_MAX_REPS 1000

// corvid_bench_now_ns returns CLOCK_MONOTONIC in nanoseconds.
static inline uint64_t corvid_bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// corvid_bench_result is what one measurement keeps: the fastest repetition
// (the least disturbed by the rest of the machine) and the median.
struct corvid_bench_result {
  uint64_t min_ns;
  uint64_t median_ns;
  unsigned reps;
};

static inline int corvid_bench_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

// corvid_bench_reduce sorts `samples` (`num_samples` durations in ns, at
// least one) in place and fills `out` with their minimum and median.
static inline void corvid_bench_reduce(struct corvid_bench_result *out, uint64_t *samples,
                                       unsigned num_samples) {
  qsort(samples, num_samples, sizeof samples[0], corvid_bench_cmp_u64);
  out->reps = num_samples;
  out->min_ns = samples[0];
  out->median_ns = num_samples % 2 ? samples[num_samples / 2]
                                   : (samples[num_samples / 2 - 1] + samples[num_samples / 2]) / 2;
}

// corvid_bench_measure calls `fn(ctx)` once to warm caches, then `reps` times
// (1 … CORVID_BENCH_MAX_REPS), timing each call, and fills `out`. It returns 0,
// or -1 when `reps` is out of range. One call of `fn` should last at least
// tens of microseconds; loop inside `fn` for tiny inputs.
static inline int corvid_bench_measure(struct corvid_bench_result *out, unsigned reps,
                                       void (*fn)(void *ctx), void *ctx) {
  uint64_t samples[CORVID_BENCH_MAX_REPS];
  if (reps == 0 || reps > CORVID_BENCH_MAX_REPS)
    return -1;
  fn(ctx);
  for (unsigned i = 0; i < reps; i++) {
    uint64_t start = corvid_bench_now_ns();
    fn(ctx);
    samples[i] = corvid_bench_now_ns() - start;
  }
  corvid_bench_reduce(out, samples, reps);
  return 0;
}

// corvid_bench_emit writes one JSON object and a newline to `f`:
//   {"bench":…,"impl":…,"bytes":…,"items":…,"ns":…,"median_ns":…,"reps":…,
//    "mb_per_s":…,"items_per_s":…}
// `bytes` and `items` are the work done by ONE call of the measured function;
// `ns` is the fastest call and the rates derive from it. `bench` and `impl`
// are written as given and must not need JSON escaping (letters, digits, and
// "-_./:+" are what we use).
static inline void corvid_bench_emit(FILE *f, const char *bench, const char *impl, uint64_t bytes,
                                     uint64_t items, const struct corvid_bench_result *r) {
  double ns = r->min_ns > 0 ? (double)r->min_ns : 1.0;
  fprintf(f,
          "{\"bench\":\"%s\",\"impl\":\"%s\",\"bytes\":%llu,\"items\":%llu,\"ns\":%llu,"
          "\"median_ns\":%llu,\"reps\":%u,\"mb_per_s\":%.2f,\"items_per_s\":%.1f}\n",
          bench, impl, (unsigned long long)bytes, (unsigned long long)items,
          (unsigned long long)r->min_ns, (unsigned long long)r->median_ns, r->reps,
          (double)bytes * 1e3 / ns, (double)items * 1e9 / ns);
}

// corvid_bench_sink keeps a computed value alive so that the compiler cannot
// remove the work that produced it.
static inline void corvid_bench_sink(const void *p, size_t len) {
  __asm__ volatile("" : : "r"(p), "r"(len) : "memory");
}

#endif // CORVID_BENCH_H
