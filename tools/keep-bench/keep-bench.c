// keep-bench.c: a load generator for keepd and, for comparison, any server
// speaking RESP (redis-server). Closed loop (the default): each thread holds
// one connection, writes a window of `pipeline` requests in one send, reads
// every answer and starts over, for a fixed time, and the result is requests
// per second as one corvid_bench JSON line. Open loop (--rate): requests are
// sent on a fixed schedule and latency percentiles are reported. Preliminary:
// one operation at a time, not yet the mail-cluster traffic mix.
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "corvid_bench.h"
#include "keep_internal.h"

enum proto { PROTO_KEEP, PROTO_RESP };
enum op { OP_GET, OP_SET, OP_INCR };

struct config {
  enum proto proto;
  enum op op;
  const char *host;
  unsigned port;
  unsigned threads, pipeline, keys, value_size;
  double seconds;
  double rate; // requests per second over all threads; 0: closed loop
  bool route;  // keep/1 only: one connection per shard, each key to its shard
};

struct worker {
  const struct config *cfg;
  unsigned id;
  uint64_t done;
  int error;
};

static atomic_bool stop_flag;

static int connect_to(const struct config *cfg) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->port)};
  if (inet_pton(AF_INET, cfg->host, &a.sin_addr) != 1 ||
      connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// encode_one writes request number `n` of thread `id` at `out` and returns
// its length; a keep/1 request's id is n + 1.
static int make_key(const struct config *cfg, unsigned id, uint64_t n, char key[32]) {
  // GET reads the keys SET wrote; INCR needs keys of its own (counters).
  return snprintf(key, 32, "%s:%u:%llu", cfg->op == OP_INCR ? "ctr" : "val", id,
                  (unsigned long long)(n % cfg->keys));
}

static size_t encode_one(const struct config *cfg, unsigned id, uint64_t n, uint8_t *out,
                         size_t cap, const uint8_t *value) {
  char key[32];
  int kl = make_key(cfg, id, n, key);
  if (cfg->proto == PROTO_KEEP) {
    keep_frame f;
    static const uint8_t op_of[] = {KEEP_OP_GET, KEEP_OP_SET, KEEP_OP_INCR};
    keep_frame_init(&f, op_of[cfg->op], n + 1);
    f.key = (const uint8_t *)key;
    f.key_len = (size_t)kl;
    if (cfg->op == OP_SET) {
      f.value = value;
      f.value_len = cfg->value_size;
    } else if (cfg->op == OP_INCR) {
      f.num = 1;
    }
    size_t len;
    if (keep_frame_encode(out, cap, &len, &f) != 0)
      abort();
    return len;
  }
  int w;
  if (cfg->op == OP_GET)
    w = snprintf((char *)out, cap, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", kl, key);
  else if (cfg->op == OP_INCR)
    w = snprintf((char *)out, cap, "*2\r\n$4\r\nINCR\r\n$%d\r\n%s\r\n", kl, key);
  else {
    w = snprintf((char *)out, cap, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%u\r\n", kl, key,
                 cfg->value_size);
    memcpy(out + w, value, cfg->value_size);
    w += (int)cfg->value_size;
    memcpy(out + w, "\r\n", 2);
    w += 2;
  }
  return (size_t)w;
}

// encode_window writes `cfg->pipeline` requests into `out`.
static size_t encode_window(const struct config *cfg, unsigned id, uint64_t *counter, uint8_t *out,
                            size_t cap, const uint8_t *value) {
  size_t off = 0;
  for (unsigned i = 0; i < cfg->pipeline; i++)
    off += encode_one(cfg, id, (*counter)++, out + off, cap - off, value);
  return off;
}

// resp_one returns the length of the complete RESP reply at `p`, 0 if it is
// incomplete, or -1 if it is an error reply or malformed. Only the reply
// types of GET, SET and INCR are understood.
static long resp_one(const uint8_t *p, size_t len) {
  const uint8_t *nl = memchr(p, '\n', len);
  if (nl == NULL)
    return 0;
  size_t line = (size_t)(nl - p) + 1;
  switch (p[0]) {
  case '+':
  case ':':
    return (long)line;
  case '$': {
    long n = strtol((const char *)p + 1, NULL, 10);
    if (n < 0)
      return (long)line;
    return line + (size_t)n + 2 <= len ? (long)(line + (size_t)n + 2) : 0;
  }
  default:
    return -1;
  }
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  const struct config *cfg = w->cfg;
  int fd = connect_to(cfg);
  if (fd < 0) {
    w->error = errno ? errno : EINVAL;
    return NULL;
  }
  size_t per = KEEP_HEADER_LEN + 64 + cfg->value_size + 64;
  size_t cap = per * cfg->pipeline;
  uint8_t *out = malloc(cap), *in = malloc(cap + 65536), *value = malloc(cfg->value_size + 1);
  size_t in_cap = cap + 65536;
  if (out == NULL || in == NULL || value == NULL) {
    w->error = ENOMEM;
    goto done;
  }
  memset(value, 'v', cfg->value_size);
  uint64_t counter = 0;
  while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
    size_t len = encode_window(cfg, w->id, &counter, out, cap, value);
    if (send(fd, out, len, MSG_NOSIGNAL) != (ssize_t)len) {
      w->error = EIO;
      break;
    }
    unsigned answered = 0;
    size_t have = 0, pos = 0;
    while (answered < cfg->pipeline) {
      ssize_t n = recv(fd, in + have, in_cap - have, 0);
      if (n <= 0) {
        w->error = EIO;
        goto done;
      }
      have += (size_t)n;
      for (;;) {
        long used;
        if (cfg->proto == PROTO_KEEP) {
          keep_frame f;
          size_t u;
          int rc = keep_frame_decode(&f, &u, in + pos, have - pos, 0);
          if (rc < 0 || (rc == 1 && f.opcode != KEEP_OP_OK && f.opcode != KEEP_OP_NOT_FOUND)) {
            w->error = EPROTO;
            goto done;
          }
          used = rc == 1 ? (long)u : 0;
        } else {
          used = resp_one(in + pos, have - pos);
          if (used < 0) {
            w->error = EPROTO;
            goto done;
          }
        }
        if (used == 0)
          break;
        pos += (size_t)used;
        answered++;
      }
      memmove(in, in + pos, have - pos);
      have -= pos;
      pos = 0;
    }
    w->done += cfg->pipeline;
  }
done:
  free(out);
  free(in);
  free(value);
  close(fd);
  return NULL;
}

// Routed closed loop (--route): like the closed loop, but each thread keeps
// one connection per keepd shard (the PING answer names the shard; new
// connections are opened until every shard has one) and sends each request
// to the connection of its key's shard, as a shard-aware client would.

#define MAX_ROUTE 16

static int ping_shard(int fd, unsigned *shard, unsigned *count) {
  uint8_t buf[128];
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_PING, 1);
  size_t len, have = 0, used;
  if (keep_frame_encode(buf, sizeof buf, &len, &f) != 0 ||
      send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
    return -1;
  for (;;) {
    ssize_t n = recv(fd, buf + have, sizeof buf - have, 0);
    if (n <= 0)
      return -1;
    have += (size_t)n;
    int rc = keep_frame_decode(&f, &used, buf, have, 0);
    if (rc < 0)
      return -1;
    if (rc == 1) {
      if (f.opcode != KEEP_OP_OK || f.value_len != 2)
        return -1;
      *shard = (unsigned)f.num;
      *count = (unsigned)(f.value[0] | f.value[1] << 8);
      return *count > 0 && *count <= MAX_ROUTE && *shard < *count ? 0 : -1;
    }
  }
}

// read_answers reads `count` keep/1 answers from `fd`.
static int read_answers(int fd, uint8_t *in, size_t in_cap, unsigned count) {
  size_t have = 0, pos = 0;
  unsigned answered = 0;
  while (answered < count) {
    ssize_t n = recv(fd, in + have, in_cap - have, 0);
    if (n <= 0)
      return EIO;
    have += (size_t)n;
    keep_frame f;
    size_t u;
    while (answered < count && keep_frame_decode(&f, &u, in + pos, have - pos, 0) == 1) {
      if (f.opcode != KEEP_OP_OK && f.opcode != KEEP_OP_NOT_FOUND)
        return EPROTO;
      pos += u;
      answered++;
    }
    memmove(in, in + pos, have - pos);
    have -= pos;
    pos = 0;
  }
  return 0;
}

static void *routed_worker_main(void *arg) {
  struct worker *w = arg;
  const struct config *cfg = w->cfg;
  int fd_of[MAX_ROUTE];
  unsigned shards = 0, found = 0;
  for (int i = 0; i < MAX_ROUTE; i++)
    fd_of[i] = -1;
  for (int attempt = 0; attempt < 64 && (shards == 0 || found < shards); attempt++) {
    int fd = connect_to(cfg);
    unsigned sh, count;
    if (fd < 0 || ping_shard(fd, &sh, &count) < 0) {
      w->error = EPROTO;
      if (fd >= 0)
        close(fd);
      break;
    }
    shards = count;
    if (fd_of[sh] < 0) {
      fd_of[sh] = fd;
      found++;
    } else {
      close(fd);
    }
  }
  int any = -1;
  for (unsigned i = 0; i < shards && any < 0; i++)
    any = fd_of[i];
  size_t per = KEEP_HEADER_LEN + 64 + cfg->value_size + 64, cap = per * cfg->pipeline;
  uint8_t *out[MAX_ROUTE] = {0}, *in = malloc(cap + 65536), *value = malloc(cfg->value_size + 1);
  size_t out_len[MAX_ROUTE];
  unsigned sent[MAX_ROUTE];
  bool ok = w->error == 0 && in != NULL && value != NULL;
  for (unsigned i = 0; ok && i < shards; i++)
    ok = (out[i] = malloc(cap)) != NULL;
  if (ok)
    memset(value, 'v', cfg->value_size);
  else if (w->error == 0)
    w->error = ENOMEM;
  uint64_t counter = 0;
  while (ok && !atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
    memset(out_len, 0, sizeof out_len);
    memset(sent, 0, sizeof sent);
    for (unsigned i = 0; i < cfg->pipeline; i++) {
      char key[32];
      int kl = make_key(cfg, w->id, counter, key);
      unsigned sh = (unsigned)((uint64_t)keep_slot(NULL, key, (size_t)kl) * shards / KEEP_SLOTS);
      out_len[sh] +=
          encode_one(cfg, w->id, counter++, out[sh] + out_len[sh], cap - out_len[sh], value);
      sent[sh]++;
    }
    // A shard no connection landed on is served through another one.
    for (unsigned sh = 0; ok && sh < shards; sh++) {
      int fd = fd_of[sh] >= 0 ? fd_of[sh] : any;
      ok = out_len[sh] == 0 || send(fd, out[sh], out_len[sh], MSG_NOSIGNAL) == (ssize_t)out_len[sh];
    }
    for (unsigned sh = 0; ok && sh < shards; sh++) {
      int fd = fd_of[sh] >= 0 ? fd_of[sh] : any;
      int e = read_answers(fd, in, cap + 65536, sent[sh]);
      if (e != 0) {
        w->error = e;
        ok = false;
      }
    }
    if (ok)
      w->done += cfg->pipeline;
    else if (w->error == 0)
      w->error = EIO;
  }
  for (unsigned i = 0; i < shards; i++)
    free(out[i]);
  free(in);
  free(value);
  for (int i = 0; i < MAX_ROUTE; i++)
    if (fd_of[i] >= 0)
      close(fd_of[i]);
  return NULL;
}

// Open loop: requests are scheduled at a fixed rate and each latency is
// measured from the request's scheduled time, not from when it was actually
// sent, so a stalled server is charged for the requests it delayed
// (no coordinated omission). A sender thread writes, at each wake-up, every
// request whose time has come in one send; a receiver thread reads answers.

struct open_conn {
  const struct config *cfg;
  unsigned id;
  int fd;
  uint64_t start_ns, interval_ns, total;
  uint64_t *sched_ns;   // scheduled time of request i
  uint64_t *latency_ns; // 0 until answered
  uint64_t answered;
  int error;
};

static void sleep_until(uint64_t t) {
  uint64_t now = corvid_bench_now_ns();
  if (t > now + 50000) {
    struct timespec ts = {0, (long)(t - now - 50000)};
    nanosleep(&ts, NULL);
  }
}

static void *open_sender(void *arg) {
  struct open_conn *oc = arg;
  const struct config *cfg = oc->cfg;
  size_t cap = 1u << 20;
  uint8_t *out = malloc(cap), *value = malloc(cfg->value_size + 1);
  if (out == NULL || value == NULL) {
    oc->error = ENOMEM;
    goto done;
  }
  memset(value, 'v', cfg->value_size);
  uint64_t next = 0;
  while (next < oc->total) {
    sleep_until(oc->start_ns + next * oc->interval_ns);
    uint64_t now = corvid_bench_now_ns();
    size_t off = 0;
    while (next < oc->total && oc->start_ns + next * oc->interval_ns <= now &&
           off + cfg->value_size + 256 < cap) {
      oc->sched_ns[next] = oc->start_ns + next * oc->interval_ns;
      off += encode_one(cfg, oc->id, next, out + off, cap - off, value);
      next++;
    }
    if (off > 0 && send(oc->fd, out, off, MSG_NOSIGNAL) != (ssize_t)off) {
      oc->error = EIO;
      break;
    }
  }
done:
  free(out);
  free(value);
  return NULL;
}

static void *open_receiver(void *arg) {
  struct open_conn *oc = arg;
  const struct config *cfg = oc->cfg;
  size_t cap = (1u << 20) + cfg->value_size * 2;
  uint8_t *in = malloc(cap);
  size_t have = 0;
  uint64_t in_order = 0;
  while (in != NULL && oc->answered < oc->total) {
    ssize_t n = recv(oc->fd, in + have, cap - have, 0);
    if (n <= 0)
      break; // the receive timeout ends a run whose answers stopped
    uint64_t now = corvid_bench_now_ns();
    have += (size_t)n;
    size_t pos = 0;
    for (;;) {
      uint64_t idx;
      long used;
      if (cfg->proto == PROTO_KEEP) {
        keep_frame f;
        size_t u;
        int rc = keep_frame_decode(&f, &u, in + pos, have - pos, 0);
        if (rc < 0 || (rc == 1 && (f.id == 0 || f.id > oc->total))) {
          oc->error = EPROTO;
          goto done;
        }
        used = rc == 1 ? (long)u : 0;
        idx = f.id - 1;
      } else {
        used = resp_one(in + pos, have - pos);
        if (used < 0) {
          oc->error = EPROTO;
          goto done;
        }
        idx = in_order; // RESP answers in request order
      }
      if (used == 0)
        break;
      in_order++;
      pos += (size_t)used;
      oc->latency_ns[idx] = now - oc->sched_ns[idx] + 1;
      oc->answered++;
    }
    memmove(in, in + pos, have - pos);
    have -= pos;
  }
done:
  free(in);
  return NULL;
}

static int run_open_loop(const struct config *cfg) {
  unsigned nt = cfg->threads;
  struct open_conn *oc = calloc(nt, sizeof *oc);
  pthread_t *snd = calloc(nt, sizeof *snd), *rcv = calloc(nt, sizeof *rcv);
  if (oc == NULL || snd == NULL || rcv == NULL)
    return 1;
  double per_thread = cfg->rate / nt;
  uint64_t total = (uint64_t)(per_thread * cfg->seconds);
  if (total == 0 || total > 50000000)
    return 2;
  uint64_t start = corvid_bench_now_ns() + 20000000; // connect first
  for (unsigned i = 0; i < nt; i++) {
    oc[i] = (struct open_conn){cfg,
                               i,
                               connect_to(cfg),
                               start,
                               (uint64_t)(1e9 / per_thread),
                               total,
                               calloc(total, 8),
                               calloc(total, 8),
                               0,
                               0};
    if (oc[i].fd < 0 || oc[i].sched_ns == NULL || oc[i].latency_ns == NULL) {
      fprintf(stderr, "keep-bench: cannot connect or allocate\n");
      return 1;
    }
    struct timeval tv = {1, 0};
    setsockopt(oc[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (pthread_create(&rcv[i], NULL, open_receiver, &oc[i]) != 0 ||
        pthread_create(&snd[i], NULL, open_sender, &oc[i]) != 0)
      return 1;
  }
  uint64_t answered = 0, count = 0;
  int error = 0;
  uint64_t *all = malloc(total * nt * 8);
  if (all == NULL)
    return 1;
  for (unsigned i = 0; i < nt; i++) {
    pthread_join(snd[i], NULL);
    pthread_join(rcv[i], NULL);
    answered += oc[i].answered;
    error = error ? error : oc[i].error;
    for (uint64_t k = 0; k < total; k++)
      if (oc[i].latency_ns[k] != 0)
        all[count++] = oc[i].latency_ns[k] - 1;
    close(oc[i].fd);
    free(oc[i].sched_ns);
    free(oc[i].latency_ns);
  }
  if (error || count == 0) {
    fprintf(stderr, "keep-bench: %s\n", error ? strerror(error) : "no answers");
    return 1;
  }
  qsort(all, count, sizeof all[0], corvid_bench_cmp_u64);
  static const char *op_names[] = {"get", "set", "incr"};
  printf("{\"bench\":\"open-loop-%s-t%u\",\"impl\":\"%s\",\"rate\":%.0f,\"sent\":%llu,"
         "\"answered\":%llu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,"
         "\"max_us\":%.1f}\n",
         op_names[cfg->op], nt, cfg->proto == PROTO_KEEP ? "keepd" : "resp", cfg->rate,
         (unsigned long long)(total * nt), (unsigned long long)answered,
         (double)all[count / 2] / 1e3, (double)all[count * 99 / 100] / 1e3,
         (double)all[count * 999 / 1000] / 1e3, (double)all[count - 1] / 1e3);
  free(all);
  free(oc);
  free(snd);
  free(rcv);
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: keep-bench --proto keep|resp --op get|set|incr --port N\n"
                  "       [--host 127.0.0.1] [--threads 4] [--pipeline 16] [--keys 10000]\n"
                  "       [--value-size 8] [--seconds 3] [--rate REQUESTS_PER_S]\n"
                  "       [--route]\n"
                  "--rate runs the open loop and reports latency percentiles; --route\n"
                  "keeps one keep/1 connection per keepd shard (closed loop).\n");
}

int main(int argc, char **argv) {
  struct config cfg = {PROTO_KEEP, OP_GET, "127.0.0.1", 0, 4, 16, 10000, 8, 3.0, 0, false};
  static const struct option opts[] = {
      {"proto", required_argument, NULL, 'P'},   {"op", required_argument, NULL, 'o'},
      {"host", required_argument, NULL, 'h'},    {"port", required_argument, NULL, 'p'},
      {"threads", required_argument, NULL, 't'}, {"pipeline", required_argument, NULL, 'l'},
      {"keys", required_argument, NULL, 'k'},    {"value-size", required_argument, NULL, 'v'},
      {"seconds", required_argument, NULL, 's'}, {"rate", required_argument, NULL, 'r'},
      {"route", no_argument, NULL, 'R'},         {NULL, 0, NULL, 0},
  };
  int o;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (o) {
    case 'P':
      cfg.proto = strcmp(optarg, "resp") == 0 ? PROTO_RESP : PROTO_KEEP;
      break;
    case 'o':
      cfg.op = strcmp(optarg, "set") == 0 ? OP_SET : strcmp(optarg, "incr") == 0 ? OP_INCR : OP_GET;
      break;
    case 'h':
      cfg.host = optarg;
      break;
    case 'p':
      cfg.port = (unsigned)atoi(optarg);
      break;
    case 't':
      cfg.threads = (unsigned)atoi(optarg);
      break;
    case 'l':
      cfg.pipeline = (unsigned)atoi(optarg);
      break;
    case 'k':
      cfg.keys = (unsigned)atoi(optarg);
      break;
    case 'v':
      cfg.value_size = (unsigned)atoi(optarg);
      break;
    case 's':
      cfg.seconds = atof(optarg);
      break;
    case 'r':
      cfg.rate = atof(optarg);
      break;
    case 'R':
      cfg.route = true;
      break;
    default:
      usage();
      return 2;
    }
  }
  if (cfg.port == 0 || cfg.threads == 0 || cfg.threads > 256 || cfg.pipeline == 0 ||
      cfg.pipeline > 100000 || cfg.keys == 0 || cfg.value_size > KEEP_MAX_VALUE_HARD ||
      cfg.seconds <= 0) {
    usage();
    return 2;
  }
  if (cfg.rate > 0)
    return run_open_loop(&cfg);
  struct worker *ws = calloc(cfg.threads, sizeof *ws);
  pthread_t *th = calloc(cfg.threads, sizeof *th);
  if (ws == NULL || th == NULL)
    return 1;
  uint64_t start = corvid_bench_now_ns();
  for (unsigned i = 0; i < cfg.threads; i++) {
    ws[i] = (struct worker){&cfg, i, 0, 0};
    if (pthread_create(&th[i], NULL,
                       cfg.route && cfg.proto == PROTO_KEEP ? routed_worker_main : worker_main,
                       &ws[i]) != 0)
      return 1;
  }
  struct timespec ts = {(time_t)cfg.seconds,
                        (long)((cfg.seconds - (double)(time_t)cfg.seconds) * 1e9)};
  nanosleep(&ts, NULL);
  atomic_store(&stop_flag, true);
  uint64_t total = 0;
  int error = 0;
  for (unsigned i = 0; i < cfg.threads; i++) {
    pthread_join(th[i], NULL);
    total += ws[i].done;
    if (ws[i].error)
      error = ws[i].error;
  }
  uint64_t elapsed = corvid_bench_now_ns() - start;
  if (error) {
    fprintf(stderr, "keep-bench: %s\n", strerror(error));
    return 1;
  }
  static const char *op_names[] = {"get", "set", "incr"};
  char bench[64], impl[32];
  snprintf(bench, sizeof bench, "closed-loop-%s-t%u-p%u", op_names[cfg.op], cfg.threads,
           cfg.pipeline);
  snprintf(impl, sizeof impl, "%s",
           cfg.proto == PROTO_KEEP ? (cfg.route ? "keepd-routed" : "keepd") : "resp");
  struct corvid_bench_result r = {elapsed, elapsed, 1};
  corvid_bench_emit(stdout, bench, impl, total * cfg.value_size, total, &r);
  free(ws);
  free(th);
  return 0;
}
