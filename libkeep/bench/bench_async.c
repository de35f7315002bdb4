// bench_async.c: closed-loop throughput of libkeep's non-blocking client
// against a running keepd, with one connection per server shard (the
// default) and with a single connection (max_shard_conns 1), alternated
// within one run so that the ratio survives a noisy machine. Each
// measurement keeps WINDOW gets outstanding for SECONDS and counts the
// completions; one JSON object per line (corvid_bench.h), read by
// tools/bench-report.
//
//   bench_keep_async HOST:PORT [WINDOW=64] [SECONDS=2] [REPS=3]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "corvid_bench.h"
#include "keep.h"

#define BENCH_KEYS 10000

struct loop {
  keep_async *a;
  unsigned window;
  uint64_t next_key, done, errors;
  int stop;
};

static void issue(struct loop *l);

static void on_get(void *user, const keep_async_result *r) {
  struct loop *l = user;
  l->done++;
  l->errors += r->status != 0;
  if (!l->stop)
    issue(l);
}

static void issue(struct loop *l) {
  char key[32];
  int kl =
      snprintf(key, sizeof key, "bench:%llu", (unsigned long long)(l->next_key++ % BENCH_KEYS));
  if (keep_async_get(l->a, key, (size_t)kl, on_get, l) != 0)
    l->errors++;
}

static int fill(const char *member) {
  const char *m[] = {member};
  keep_settings s = {.members = m, .num_members = 1};
  keep_client *c;
  if (keep_client_new(&c, &s) != 0)
    return -1;
  for (unsigned i = 0; i < BENCH_KEYS; i++) {
    char key[32];
    int kl = snprintf(key, sizeof key, "bench:%u", i);
    if (keep_set(c, key, (size_t)kl, "12345678", 8, 0) != 0) {
      keep_client_free(c);
      return -1;
    }
  }
  keep_client_free(c);
  return 0;
}

// run measures one configuration; returns completions per second or -1.
static double run(const char *member, uint32_t shard_conns, unsigned window, unsigned seconds) {
  const char *m[] = {member};
  keep_settings s = {.members = m, .num_members = 1};
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.max_shard_conns = shard_conns;
  struct loop l = {.window = window};
  if (keep_async_new(&l.a, &s, &o) != 0)
    return -1;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(ep, EPOLL_CTL_ADD, keep_async_fd(l.a), &ev);
  // Warm up: let the shard connections open before the clock starts.
  for (unsigned i = 0; i < window; i++)
    issue(&l);
  uint64_t t0 = corvid_bench_now_ns(), warm = t0 + 300000000u, end = 0, base = 0;
  for (;;) {
    uint64_t now = corvid_bench_now_ns();
    if (end == 0 && now >= warm) {
      base = l.done;
      t0 = now;
      end = now + (uint64_t)seconds * 1000000000u;
    }
    if (end != 0 && now >= end)
      break;
    int t = keep_async_next_timeout_ms(l.a);
    struct epoll_event got;
    epoll_wait(ep, &got, 1, t < 0 || t > 10 ? 10 : t);
    if (keep_async_process(l.a) != 0)
      break;
  }
  double rate = (double)(l.done - base) * 1e9 / (double)(corvid_bench_now_ns() - t0);
  fprintf(stderr, "# shard_conns=%u connections=%zu errors=%llu\n", shard_conns,
          keep_async_connections(l.a), (unsigned long long)l.errors);
  uint64_t errors = l.errors; // teardown cancels the window still in flight
  l.stop = 1;
  keep_async_free(l.a);
  close(ep);
  return errors ? -1 : rate;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s HOST:PORT [WINDOW] [SECONDS] [REPS]\n", argv[0]);
    return 2;
  }
  unsigned window = argc > 2 ? (unsigned)atoi(argv[2]) : 64;
  unsigned seconds = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
  unsigned reps = argc > 4 ? (unsigned)atoi(argv[4]) : 3;
  if (window == 0 || seconds == 0 || reps == 0 || fill(argv[1]) != 0) {
    fprintf(stderr, "bench_keep_async: bad arguments or keepd not reachable at %s\n", argv[1]);
    return 1;
  }
  for (unsigned r = 0; r < reps; r++) {
    for (int v = 0; v < 2; v++) {
      uint32_t conns = v == 0 ? 1 : 0;
      double rate = run(argv[1], conns, window, seconds);
      if (rate < 0) {
        fprintf(stderr, "bench_keep_async: run failed\n");
        return 1;
      }
      printf("{\"bench\":\"async-get-w%u\",\"impl\":\"%s\",\"items_per_s\":%.1f}\n", window,
             v == 0 ? "one-connection" : "per-shard", rate);
      fflush(stdout);
    }
  }
  return 0;
}
