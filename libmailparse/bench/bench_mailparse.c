// bench_mailparse.c: the parsing benchmark of libmailparse. It loads every
// message named on the command line (files, or directories walked in name
// order) into memory, then measures a full parse (every header field typed,
// the MIME tree, every body decoded, text converted to UTF-8) and a header
// parse (the top-level header section split into fields: "headers"; and
// with every field typed: "headers-typed") for libmailparse
// and every peer built in (GMime, libetpan, Dovecot lib-mail, mimetic,
// VMime), in interleaved rounds: in each round every implementation parses
// the whole set once, the implementations taking turns every MPB_SLICE
// messages, so that a noisy machine disturbs them alike, each turn starting
// with the slice out of the CPU caches (evict_slice). Before timing, one untimed pass runs each
// implementation over every message; a message that any implementation fails
// on is reported and left out for all of them, so that all are timed on the
// same bytes. Results go to stdout as one JSON object per line
// (corvid_bench.h): `bench` is "<mode>/<set name>", `items` the messages,
// `bytes` their size, `ns` the fastest round and `median_ns` the median. It
// also reports the memory our parser allocates per message (peak of the
// arena, through a counting mp_allocator). With --alone, each round of
// each implementation runs instead in a child process of its own
// (alone_round), the way an application that embeds one parser runs it.
// README.md describes each implementation's work; run-bench.sh adds
// Python's email package.
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_internal.h"
#include "corvid_bench.h"

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

static void usage(FILE *f) {
  fputs("usage: bench_mailparse [--mode full|headers|headers-typed|both|all] [--rounds N]\n"
        "                       [--repeat N]\n"
        "                       [--set NAME] [--impl TEXT[,TEXT...]] [--alone] [--no-peak]\n"
        "                       [--list]\n"
        "                       FILE|DIR...\n"
        "  --mode    what to measure (default all; both = full and headers)\n"
        "  --rounds  timed rounds per implementation (default 5, at most 1000)\n"
        "  --repeat  passes over the set in one timed round (default 1), for small sets\n"
        "  --set     the name of the message set in the bench names (default \"set\")\n"
        "  --impl    measure only implementations whose name contains one of the TEXTs;\n"
        "            the TEXT memread adds the memory floor (every byte read once)\n"
        "  --alone   time each round of each implementation in a process of its own\n"
        "            (bench \"<mode>/<set>/alone\"); default: interleaved in one process\n"
        "  --no-peak skip the peak-memory measurement of our parser\n"
        "  --list    print the implementations built in and exit\n"
        "Output: JSON lines on stdout (tools/bench-report makes tables); a summary of\n"
        "each implementation's work on stderr.\n",
        f);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct mpb_impl *const impls[] = {
    &mpb_ours,
#ifdef MPB_HAVE_GMIME
    &mpb_peer_gmime,
#endif
#ifdef MPB_HAVE_LIBETPAN
    &mpb_peer_libetpan,
#endif
#ifdef MPB_HAVE_DOVECOT
    &mpb_peer_dovecot,
#endif
#ifdef MPB_HAVE_MIMETIC
    &mpb_peer_mimetic,
#endif
#ifdef MPB_HAVE_VMIME
    &mpb_peer_vmime,
#endif
};

struct msg {
  uint8_t *data;
  size_t len;
  size_t hdr_len; // the top-level header section, with the empty line
  int skip;       // an implementation failed on it
  char *path;
};

struct set {
  struct msg *m;
  size_t n, cap;
};

// names_exactly tells whether the comma-separated `patterns` hold `name`
// as one whole item (the memory floor is measured only when asked for).
static int names_exactly(const char *patterns, const char *name) {
  size_t n = strlen(name);
  for (const char *p = patterns; p != NULL && *p != '\0';) {
    const char *e = strchr(p, ',');
    size_t k = e != NULL ? (size_t)(e - p) : strlen(p);
    if (k == n && memcmp(p, name, n) == 0)
      return 1;
    p = e != NULL ? e + 1 : NULL;
  }
  return 0;
}

static int matches(const char *name, const char *patterns) {
  if (patterns == NULL)
    return 1;
  for (const char *p = patterns;;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    for (const char *s = name; n > 0 && strlen(s) >= n; s++)
      if (memcmp(s, p, n) == 0)
        return 1;
    if (end == NULL)
      return 0;
    p = end + 1;
  }
}

// header_len returns the length of the top-level header section: up to and
// including the first empty line (CRLF or LF), or the whole message.
static size_t header_len(const uint8_t *d, size_t len) {
  if (len > 0 && d[0] == '\n')
    return 1;
  if (len > 1 && d[0] == '\r' && d[1] == '\n')
    return 2;
  for (size_t i = 0; i + 1 < len; i++) {
    if (d[i] != '\n')
      continue;
    if (d[i + 1] == '\n')
      return i + 2;
    if (d[i + 1] == '\r' && i + 2 < len && d[i + 2] == '\n')
      return i + 3;
  }
  return len;
}

static int add_file(struct set *s, const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return -1;
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
    fclose(f);
    return -1;
  }
  size_t len = (size_t)st.st_size;
  uint8_t *buf = malloc(len ? len : 1);
  if (buf == NULL || fread(buf, 1, len, f) != len) {
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 256;
    struct msg *m = realloc(s->m, cap * sizeof *m);
    if (m == NULL) {
      free(buf);
      return -1;
    }
    s->m = m;
    s->cap = cap;
  }
  char *copy = strdup(path);
  if (copy == NULL) {
    free(buf);
    return -1;
  }
  s->m[s->n++] = (struct msg){buf, len, header_len(buf, len), 0, copy};
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// add_path adds a file, or every regular file under a directory (recursively,
// in name order; names starting with '.' are skipped).
static int add_path(struct set *s, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "bench_mailparse: %s: not found\n", path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (!S_ISREG(st.st_mode))
      return 0;
    if (add_file(s, path) != 0) {
      fprintf(stderr, "bench_mailparse: %s: cannot read\n", path);
      return -1;
    }
    return 0;
  }
  DIR *d = opendir(path);
  if (d == NULL) {
    fprintf(stderr, "bench_mailparse: %s: cannot open\n", path);
    return -1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **p = realloc(names, cap * sizeof *p);
      if (p == NULL) {
        rc = -1;
        break;
      }
      names = p;
    }
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    if ((names[n] = malloc(len)) == NULL) {
      rc = -1;
      break;
    }
    snprintf(names[n++], len, "%s/%s", path, e->d_name);
  }
  closedir(d);
  if (n > 0)
    qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    if (rc == 0)
      rc = add_path(s, names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

static const uint8_t *input(const struct msg *m, int mode, size_t *len) {
  *len = mode == MPB_FULL ? m->len : m->hdr_len;
  return m->data;
}

// check_pass runs `impl` once over every message (the warm-up), marks the
// messages it fails on, prints its work and returns how many failed.
static const char *mode_name(int mode) {
  return mode == MPB_FULL ? "full" : mode == MPB_HEADERS ? "headers" : "headers-typed";
}

static size_t check_pass(const struct mpb_impl *impl, struct set *s, int mode) {
  struct mpb_work w = {0, 0, 0};
  size_t failed = 0;
  for (size_t i = 0; i < s->n; i++) {
    size_t len;
    const uint8_t *d = input(&s->m[i], mode, &len);
    if (impl->run(&w, mode, d, len) != 0) {
      if (!s->m[i].skip)
        fprintf(stderr, "bench_mailparse: %s failed on %s: left out for all\n", impl->name,
                s->m[i].path);
      s->m[i].skip = 1;
      failed++;
    }
  }
  fprintf(stderr,
          "bench_mailparse: %-9s %-7s fields %llu, leaf parts %llu, output %llu bytes, "
          "failed on %zu\n",
          impl->name, mode_name(mode), (unsigned long long)w.fields, (unsigned long long)w.parts,
          (unsigned long long)w.bytes, failed);
  return failed;
}

// MPB_SLICE is how many messages one implementation parses before the next
// takes its turn on the same messages. Alternating in slices of a few
// milliseconds, rather than in whole passes of seconds to minutes, lets a
// change in the machine's load fall on every implementation alike.
#define MPB_SLICE 64

// evict_slice removes the input bytes of messages [from, to) from the CPU
// caches; it runs, untimed, before every implementation's turn on a slice.
// Without it, whoever parses a slice after another implementation finds it
// in the L3 cache that the first one filled (64 corpus messages are about
// 10 MB), which favours a parser bound by memory, ours, the more the more
// peers take part: our pass over corpus10k took 1052 ms alone against 335 ms
// beside Dovecot and the memread floor (session 9). Every turn now starts
// the way a message delivered from the page cache does: in memory, not in
// the CPU caches.
static void evict_slice(const struct set *s, int mode, size_t from, size_t to) {
#if defined(__x86_64__) || defined(__i386__)
  for (size_t i = from; i < to; i++) {
    size_t len;
    const uint8_t *d = input(&s->m[i], mode, &len);
    for (size_t off = 0; off < len; off += 64)
      _mm_clflush(d + off);
    if (len > 0)
      _mm_clflush(d + len - 1);
  }
  _mm_mfence();
#else
  // No cache-line flush from user space here: push the slice out by
  // reading a buffer larger than any last-level cache.
  (void)s, (void)mode, (void)from, (void)to;
  enum { SWEEP = 256u << 20 };
  static uint8_t *sweep;
  if (sweep == NULL && (sweep = calloc(SWEEP, 1)) == NULL)
    abort();
  unsigned sum = 0;
  for (size_t off = 0; off < SWEEP; off += 64)
    sum += sweep[off];
  corvid_bench_sink(&sum, sizeof sum);
#endif
}

// timed_slice times `impl` over messages [from, to) of the set.
static uint64_t timed_slice(const struct mpb_impl *impl, const struct set *s, int mode, size_t from,
                            size_t to) {
  struct mpb_work w = {0, 0, 0};
  uint64_t start = corvid_bench_now_ns();
  for (size_t i = from; i < to; i++) {
    if (s->m[i].skip)
      continue;
    size_t len;
    const uint8_t *d = input(&s->m[i], mode, &len);
    if (impl->run(&w, mode, d, len) != 0)
      abort(); // it succeeded on this message in the check pass
  }
  uint64_t ns = corvid_bench_now_ns() - start;
  corvid_bench_sink(&w, sizeof w);
  return ns;
}

// timed_round adds to `round_ns[k]` the time implementation `k` takes for
// `repeat` passes over the set, slice by slice, every implementation in turn
// on each slice, starting with a different one on each slice and round.
static void timed_round(uint64_t *round_ns, const struct mpb_impl *const *list, size_t num,
                        const struct set *s, int mode, unsigned repeat, unsigned round) {
  size_t turn = round;
  for (unsigned rep = 0; rep < repeat; rep++) {
    for (size_t from = 0; from < s->n; from += MPB_SLICE, turn++) {
      size_t to = s->n - from < MPB_SLICE ? s->n : from + MPB_SLICE;
      for (size_t j = 0; j < num; j++) {
        size_t k = (j + turn) % num;
        evict_slice(s, mode, from, to);
        round_ns[k] += timed_slice(list[k], s, mode, from, to);
      }
    }
  }
}

// alone_round times implementation `impl` for `repeat` passes over the
// set, as timed_round does for one implementation, but in a child process
// that runs nothing else: no other parser's allocations, frees or munmaps
// fall between its slices. On the PVM guest of session 14 a peer's munmap
// between two of our slices (a TLB shootdown) made our next slice about
// 1.7x slower, so the interleaved rounds measure the neighbour as well.
// The child first makes one untimed pass over at most MPB_WARM_MESSAGES
// messages, so that the copy-on-write faults of its first writes after
// fork() are not timed, then the timed one; it sends the nanoseconds
// through a pipe. Returns 0 and sets `*ns`, or -1.
#define MPB_WARM_MESSAGES 512
static int alone_round(uint64_t *ns, const struct mpb_impl *impl, const struct set *s, int mode,
                       unsigned repeat) {
  int fd[2];
  if (pipe(fd) != 0) {
    perror("bench_mailparse: pipe");
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    perror("bench_mailparse: fork");
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    uint64_t t = 0;
    struct set head = *s;
    if (head.n > MPB_WARM_MESSAGES)
      head.n = MPB_WARM_MESSAGES;
    timed_round(&t, &impl, 1, &head, mode, 1, 0);
    t = 0;
    timed_round(&t, &impl, 1, s, mode, repeat, 0);
    ssize_t w = write(fd[1], &t, sizeof t);
    _exit(w == (ssize_t)sizeof t ? 0 : 1);
  }
  close(fd[1]);
  uint64_t t = 0;
  size_t got = 0;
  while (got < sizeof t) {
    ssize_t r = read(fd[0], (char *)&t + got, sizeof t - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("bench_mailparse: waitpid");
      return -1;
    }
  }
  if (got != sizeof t || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_mailparse: %s: the timing process failed\n", impl->name);
    return -1;
  }
  *ns = t;
  return 0;
}

// pin_to_this_cpu keeps this process, and the timing processes it forks,
// on the CPU it runs on now, so that --alone times every implementation on
// the same core. On the project's machine (a PVM guest with two vCPUs)
// every parser ran about 1.6x slower on one vCPU than on the other (real
// set, ours 9.9-11.0 ms against 6.1-6.5 ms for the same work, GMime alike),
// and children placed by the scheduler made the medians of --alone swing
// by that much while the ratio on one core held. Interleaved rounds need no
// pin: every implementation runs in the one process, wherever it is.
static void pin_to_this_cpu(void) {
#if defined(__linux__)
  int cpu = sched_getcpu();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu >= 0 && cpu < CPU_SETSIZE) {
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0) {
      fprintf(stderr, "bench_mailparse: --alone: every timing process on CPU %d\n", cpu);
      return;
    }
  }
  fprintf(stderr, "bench_mailparse: --alone: could not pin to one CPU; timing processes may "
                  "move between CPUs\n");
#endif
}

// measure checks and times every implementation in `list` over the set in
// `mode`, interleaved in this process or, with `alone`, each round of each
// implementation in a process of its own, the implementations taking turns
// (a different one first in each round). It returns 0, or -1 when our
// parser failed on a message (it never should), memory ran out or a timing
// process failed.
static int measure(const struct mpb_impl *const *list, size_t num, struct set *s, int mode,
                   unsigned rounds, unsigned repeat, const char *set_name, int alone) {
  int rc = 0;
  for (size_t k = 0; k < num; k++)
    if (check_pass(list[k], s, mode) > 0 && list[k] == &mpb_ours)
      rc = -1;
  uint64_t bytes = 0, items = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (s->m[i].skip)
      continue;
    size_t len;
    (void)input(&s->m[i], mode, &len);
    bytes += len;
    items++;
  }
  uint64_t *samples = calloc(num * rounds, sizeof *samples);
  if (samples == NULL)
    return -1;
  uint64_t *round_ns = calloc(num, sizeof *round_ns);
  if (round_ns == NULL) {
    free(samples);
    return -1;
  }
  int failed = 0; // a timing process failed
  for (unsigned r = 0; r < rounds && !failed; r++) {
    memset(round_ns, 0, num * sizeof *round_ns);
    if (!alone) {
      timed_round(round_ns, list, num, s, mode, repeat, r);
    } else {
      for (size_t j = 0; j < num && !failed; j++) {
        size_t k = (j + r) % num;
        failed = alone_round(&round_ns[k], list[k], s, mode, repeat) != 0;
      }
    }
    for (size_t k = 0; k < num; k++)
      samples[k * rounds + r] = round_ns[k];
  }
  free(round_ns);
  if (failed) {
    free(samples);
    return -1;
  }
  char bench[128];
  snprintf(bench, sizeof bench, "%s/%s%s", mode_name(mode), set_name, alone ? "/alone" : "");
  for (size_t k = 0; k < num; k++) {
    struct corvid_bench_result res;
    corvid_bench_reduce(&res, samples + k * rounds, rounds);
    corvid_bench_emit(stdout, bench, list[k]->name, bytes * repeat, items * repeat, &res);
    fflush(stdout);
  }
  free(samples);
  return rc;
}

// measure_peak parses every message once through the counting allocator and
// prints the distribution of the arena's high-water mark, which is what a
// parse costs beyond the message itself.
static int measure_peak(const struct set *s, const char *set_name) {
  uint64_t *peak = calloc(s->n ? s->n : 1, sizeof *peak);
  if (peak == NULL)
    return -1;
  uint64_t worst = 0;
  size_t worst_i = 0;
  double worst_ratio = 0;
  for (size_t i = 0; i < s->n; i++) {
    if (mpb_ours_peak(&peak[i], s->m[i].data, s->m[i].len) != 0) {
      fprintf(stderr, "bench_mailparse: peak: %s: parse failed or leaked\n", s->m[i].path);
      free(peak);
      return -1;
    }
    if (peak[i] > worst) {
      worst = peak[i];
      worst_i = i;
    }
    double ratio = s->m[i].len ? (double)peak[i] / (double)s->m[i].len : 0;
    if (ratio > worst_ratio)
      worst_ratio = ratio;
  }
  uint64_t worst_len = s->n ? s->m[worst_i].len : 0;
  qsort(peak, s->n, sizeof *peak, corvid_bench_cmp_u64);
  size_t p99 = s->n ? (s->n * 99 + 99) / 100 - 1 : 0, p50 = s->n / 2;
  printf("{\"bench\":\"peak-memory/%s\",\"impl\":\"mailparse\",\"messages\":%zu,"
         "\"overhead_max\":%llu,\"overhead_p99\":%llu,\"overhead_p50\":%llu,"
         "\"overhead_max_message_bytes\":%llu,\"overhead_max_ratio\":%.4f}\n",
         set_name, s->n, (unsigned long long)worst, (unsigned long long)(s->n ? peak[p99] : 0),
         (unsigned long long)(s->n ? peak[p50] : 0), (unsigned long long)worst_len, worst_ratio);
  fprintf(stderr, "bench_mailparse: peak arena per message: max %llu bytes (%s, %llu bytes)\n",
          (unsigned long long)worst, s->n ? s->m[worst_i].path : "-",
          (unsigned long long)worst_len);
  free(peak);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = "all", *set_name = "set", *impl_filter = NULL;
  unsigned rounds = 5, repeat = 1;
  int list = 0, peak = 1, alone = 0;
  struct set s = {NULL, 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
      mode = argv[++i];
    } else if (strcmp(a, "--rounds") == 0 && i + 1 < argc) {
      long v = strtol(argv[++i], NULL, 10);
      if (v < 1 || v > CORVID_BENCH_MAX_REPS) {
        usage(stderr);
        return 2;
      }
      rounds = (unsigned)v;
    } else if (strcmp(a, "--repeat") == 0 && i + 1 < argc) {
      long v = strtol(argv[++i], NULL, 10);
      if (v < 1 || v > 1000000) {
        usage(stderr);
        return 2;
      }
      repeat = (unsigned)v;
    } else if (strcmp(a, "--set") == 0 && i + 1 < argc) {
      set_name = argv[++i];
    } else if (strcmp(a, "--impl") == 0 && i + 1 < argc) {
      impl_filter = argv[++i];
    } else if (strcmp(a, "--alone") == 0) {
      alone = 1;
    } else if (strcmp(a, "--no-peak") == 0) {
      peak = 0;
    } else if (strcmp(a, "--list") == 0) {
      list = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-') {
      usage(stderr);
      return 2;
    } else if (add_path(&s, a) != 0) {
      return 1;
    }
  }
  int all = strcmp(mode, "all") == 0, both = strcmp(mode, "both") == 0;
  int do_full = strcmp(mode, "full") == 0 || both || all;
  int do_headers = strcmp(mode, "headers") == 0 || both || all;
  int do_typed = strcmp(mode, "headers-typed") == 0 || all;
  if (!do_full && !do_headers && !do_typed) {
    usage(stderr);
    return 2;
  }
  const struct mpb_impl *chosen[COUNT(impls) + 1];
  size_t num = 0;
  for (size_t k = 0; k < COUNT(impls); k++) {
    if (list) {
      printf("%s\n", impls[k]->name);
      continue;
    }
    if (!matches(impls[k]->name, impl_filter))
      continue;
    if (impls[k]->init != NULL && impls[k]->init() != 0) {
      fprintf(stderr, "bench_mailparse: %s: set-up failed, left out\n", impls[k]->name);
      continue;
    }
    chosen[num++] = impls[k];
  }
  if (list)
    return 0;
  if (names_exactly(impl_filter, mpb_floor.name))
    chosen[num++] = &mpb_floor;
  if (s.n == 0 || num == 0) {
    usage(stderr);
    return 2;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < s.n; i++)
    total += s.m[i].len;
  fprintf(stderr, "bench_mailparse: %zu messages, %llu bytes, %u rounds\n", s.n,
          (unsigned long long)total, rounds);
  int rc = 0;
  if (alone)
    pin_to_this_cpu();
  if (peak && matches(mpb_ours.name, impl_filter) && measure_peak(&s, set_name) != 0)
    rc = 1;
  if (do_full && measure(chosen, num, &s, MPB_FULL, rounds, repeat, set_name, alone) != 0)
    rc = 1;
  if (do_headers) {
    for (size_t i = 0; i < s.n; i++)
      s.m[i].skip = 0;
    if (measure(chosen, num, &s, MPB_HEADERS, rounds, repeat, set_name, alone) != 0)
      rc = 1;
  }
  if (do_typed) {
    for (size_t i = 0; i < s.n; i++)
      s.m[i].skip = 0;
    if (measure(chosen, num, &s, MPB_HEADERS_TYPED, rounds, repeat, set_name, alone) != 0)
      rc = 1;
  }
  for (size_t i = 0; i < s.n; i++) {
    free(s.m[i].data);
    free(s.m[i].path);
  }
  free(s.m);
  return rc;
}
