// keep-bench.c: a load generator for keepd and, for comparison, redis-server
// (RESP), memcached (meta protocol) and nats-server (pub/sub only), speaking
// each server's own protocol, with the mail-cluster traffic mix described in
// README.md (--op mix) or one operation at a time. Closed loop (the
// default): each thread holds one connection, writes a window of `pipeline`
// requests in one send, reads every answer and starts over, for a fixed
// time. Open loop (--rate): requests are sent on a fixed schedule and the
// latency of each is counted from its scheduled time (no coordinated
// omission). --fill stores N small keys for the memory-per-key measurement;
// --pubsub measures fan-out to N subscribers; --server-pid adds the server's
// CPU time per request. Results are corvid_bench JSON lines.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "corvid_bench.h"
#include "corvid_parse.h"
#include "keep_internal.h"
#include "keep_tls.h"

enum proto { PROTO_KEEP, PROTO_RESP, PROTO_MC, PROTO_NATS };
enum op { OP_GET, OP_SET, OP_INCR, OP_MIX };

struct config {
  enum proto proto;
  enum op op;
  const char *host;
  unsigned port;
  unsigned threads, pipeline, keys, value_size;
  double seconds;
  double rate;      // requests per second over all threads; 0: closed loop
  bool route;       // keep/1 only: one connection per shard, each key to its shard
  int server_pid;   // 0, or the server whose CPU time per request is reported
  uint64_t spin_ns; // open loop: poll without sleeping this close to a due time
  uint64_t tick_ns; // open loop: each wake-up also sends what falls due within a tick
};

static const char *const op_names[] = {"get", "set", "incr", "mix"};
static const char *const proto_names[] = {"keepd", "resp", "memcached", "nats"};
// What --proto takes, in the order of enum proto.
static const char *const proto_args[] = {"keep", "resp", "mc", "nats"};

// choice returns the index of `text` among the `n` `names`, or -1.
static int choice(const char *text, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(text, names[i]) == 0)
      return i;
  return -1;
}

// stop prints "keep-bench: " and the message on stderr, and returns
// `status`: 1 for a run that failed, 2 for a command line that asks for
// something that cannot be run. Every run that ends without its result says
// why.
static int stop(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int stop(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("keep-bench: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return status;
}

// MIX_VALUE_LEN is the longest value of the mix (a short-lived value).
#define MIX_VALUE_LEN 64

// The mail-cluster mix (--op mix), documented in README.md: what a cluster of
// SMTP/IMAP nodes asks its coordinator. Each request's kind and key come from
// a hash of (thread, request number), so every server sees the same stream.
enum mix_kind { MIX_COUNTER, MIX_LOOKUP, MIX_VALUE, MIX_GREY, MIX_LOCK };

static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// mix_request picks request `n` of thread `id`: its kind, its key (written to
// `key`, length returned) and its value length.
static int mix_request(unsigned id, uint64_t n, enum mix_kind *kind, char key[64],
                       unsigned *value_len) {
  uint64_t r = mix64((uint64_t)id << 40 ^ n);
  unsigned pct = (unsigned)(r % 100);
  uint64_t x = r >> 8;
  if (pct < 40) { // rate-limit counter per client IPv4 address, 60 s window
    *kind = MIX_COUNTER;
    *value_len = 0;
    return snprintf(key, 64, "r:%08x", (unsigned)(x % 100000) * 2654435761u);
  }
  if (pct < 70 || pct < 80) { // greylisting: look a triplet up / record one
    *kind = pct < 70 ? MIX_LOOKUP : MIX_GREY;
    *value_len = pct < 70 ? 0 : 8;
    uint64_t t = mix64(x % 1000000);
    return snprintf(key, 64, "g:%016llx%06x", (unsigned long long)t, (unsigned)(t >> 40));
  }
  if (pct < 95) { // short-lived value (delivery status, session), 64 bytes, 300 s
    *kind = MIX_VALUE;
    *value_len = MIX_VALUE_LEN;
    return snprintf(key, 64, "m:%02u%012llu", id % 100, (unsigned long long)n);
  }
  *kind = MIX_LOCK; // mailbox lock, 5 s lease, by holder "node-01"
  *value_len = 0;
  return snprintf(key, 64, "l:mbox:%06u", (unsigned)(x % 10000));
}

// value_len is the size of the value buffer requests are encoded from: the
// mix's values may be longer than --value-size.
static size_t value_len(const struct config *cfg) {
  return cfg->value_size > MIX_VALUE_LEN ? cfg->value_size : MIX_VALUE_LEN;
}

struct worker {
  const struct config *cfg;
  unsigned id;
  uint64_t done;
  int error;
};

static atomic_bool stop_flag;

// server_cpu_ns reads the CPU time (user + system) the server process `pid`
// has used so far from /proc/PID/stat; 0 if there is no such process.
static uint64_t server_cpu_ns(int pid) {
  if (pid <= 0)
    return 0;
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  // The command name may hold spaces: fields are counted after its ')'.
  char *p = strrchr(buf, ')');
  if (p == NULL)
    return 0;
  unsigned long long ut = 0, stt = 0;
  // Fields 3..13 are skipped; 14 is utime and 15 stime, in clock ticks.
  if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt) != 2)
    return 0;
  return (ut + stt) * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
}

// self_cpu_ns returns the CPU time (user + system) this process has used.
static uint64_t self_cpu_ns(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return 0;
  return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
         (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

// --tls KEYFILE: keep/1 inside mutual TLS 1.3, the bench holding the
// cluster key (closed loop only: the open loop sends and receives on one
// socket from two threads, which one TLS connection cannot do).
static keep_tls_ctx *bench_tls;
#define BENCH_MAX_FD 65536
static keep_tls_conn *tls_of[BENCH_MAX_FD];

static int bench_tls_init(const char *key_file) {
  uint8_t *buf;
  size_t len;
  EVP_PKEY *key = NULL;
  keep_tls_pins *pins = NULL;
  int rc = keep_tls_read_file(&buf, &len, key_file);
  if (rc == 0) {
    rc = keep_tls_key_parse(&key, buf, len);
    keep_tls_wipe_free(buf, len);
  }
  if (rc == 0 && (rc = keep_tls_pins_of_key(&pins, key)) == 0)
    rc = keep_tls_ctx_new(&bench_tls, key, pins, false);
  keep_tls_key_free(key);
  return rc;
}

// xsend and xrecv are send and recv, through TLS when the socket has it.
static ssize_t xsend(int fd, const void *p, size_t n, int flags) {
  keep_tls_conn *t = fd < BENCH_MAX_FD ? tls_of[fd] : NULL;
  if (t == NULL)
    return send(fd, p, n, flags);
  for (size_t off = 0; off < n;) {
    short want;
    int r = keep_tls_write(t, &want, (const uint8_t *)p + off, n - off);
    if (r <= 0)
      return -1;
    off += (size_t)r;
  }
  return (ssize_t)n;
}

static ssize_t xrecv(int fd, void *p, size_t n, int flags) {
  keep_tls_conn *t = fd < BENCH_MAX_FD ? tls_of[fd] : NULL;
  if (t == NULL)
    return recv(fd, p, n, flags);
  short want;
  int r = keep_tls_read(t, &want, p, n);
  return r > 0 ? r : r == KEEP_ERR_CLOSED ? 0 : -1;
}

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
  if (bench_tls != NULL && fd < BENCH_MAX_FD) {
    short want;
    keep_tls_conn *t;
    if (keep_tls_wrap_fd(&t, bench_tls, fd) < 0 || keep_tls_handshake(t, &want) != 1) {
      close(fd);
      return -1;
    }
    tls_of[fd] = t;
  }
  return fd;
}

static int make_key(const struct config *cfg, unsigned id, uint64_t n, char key[32]) {
  // GET reads the keys SET wrote; INCR needs keys of its own (counters).
  return snprintf(key, 32, "%s:%u:%llu", cfg->op == OP_INCR ? "ctr" : "val", id,
                  (unsigned long long)(n % cfg->keys));
}

// request_key writes the key of request `n` of thread `id`.
static int request_key(const struct config *cfg, unsigned id, uint64_t n, char key[64]) {
  if (cfg->op == OP_MIX) {
    enum mix_kind kind;
    unsigned vlen;
    return mix_request(id, n, &kind, key, &vlen);
  }
  return make_key(cfg, id, n, key);
}

static size_t put_resp(uint8_t *out, size_t cap, int argc, const char *const *argv,
                       const size_t *lens) {
  size_t w = (size_t)snprintf((char *)out, cap, "*%d\r\n", argc);
  for (int i = 0; i < argc; i++) {
    w += (size_t)snprintf((char *)out + w, cap - w, "$%zu\r\n", lens[i]);
    memcpy(out + w, argv[i], lens[i]);
    memcpy(out + w + lens[i], "\r\n", 2);
    w += lens[i] + 2;
  }
  return w;
}

// encode_one writes request number `n` of thread `id` at `out` and returns
// its length; `*replies` is how many answers it draws (a RESP rate-limit
// counter is INCR then EXPIRE NX, two commands). A keep/1 request's id is
// n + 1.
static size_t encode_one(const struct config *cfg, unsigned id, uint64_t n, uint8_t *out,
                         size_t cap, const uint8_t *value, unsigned *replies) {
  char key[64];
  int kl;
  enum mix_kind kind;
  unsigned vlen = cfg->value_size;
  if (cfg->op == OP_MIX) {
    kl = mix_request(id, n, &kind, key, &vlen);
  } else {
    kl = make_key(cfg, id, n, key);
    kind = cfg->op == OP_GET ? MIX_LOOKUP : cfg->op == OP_INCR ? MIX_COUNTER : MIX_VALUE;
  }
  bool mix = cfg->op == OP_MIX;
  // TTLs of the mix (none in single-operation runs).
  uint64_t ttl_s = !mix ? 0 : kind == MIX_COUNTER ? 60 : kind == MIX_VALUE ? 300 : 3600;
  *replies = 1;
  if (cfg->proto == PROTO_KEEP) {
    keep_frame f;
    static const uint8_t op_of[] = {KEEP_OP_INCR, KEEP_OP_GET, KEEP_OP_SET, KEEP_OP_SET,
                                    KEEP_OP_LOCK};
    keep_frame_init(&f, op_of[kind], n + 1);
    f.key = (const uint8_t *)key;
    f.key_len = (size_t)kl;
    if (kind == MIX_VALUE || kind == MIX_GREY) {
      f.value = value;
      f.value_len = vlen;
      f.num = ttl_s * 1000;
    } else if (kind == MIX_COUNTER) {
      f.num = 1;
      f.num2 = ttl_s * 1000;
    } else if (kind == MIX_LOCK) {
      f.text = (const uint8_t *)"node-01";
      f.text_len = 7;
      f.num = 5000;
    }
    size_t len;
    if (keep_frame_encode(out, cap, &len, &f) != 0)
      abort();
    return len;
  }
  char ttl[24];
  snprintf(ttl, sizeof ttl, "%llu", (unsigned long long)ttl_s);
  if (cfg->proto == PROTO_RESP) {
    const char *argv[6];
    size_t lens[6];
#define ARG(i, s, l) (argv[i] = (s), lens[i] = (l))
    size_t w;
    switch (kind) {
    case MIX_LOOKUP:
      ARG(0, "GET", 3), ARG(1, key, (size_t)kl);
      return put_resp(out, cap, 2, argv, lens);
    case MIX_COUNTER:
      ARG(0, "INCR", 4), ARG(1, key, (size_t)kl);
      w = put_resp(out, cap, 2, argv, lens);
      if (!mix)
        return w;
      *replies = 2;
      ARG(0, "EXPIRE", 6), ARG(2, ttl, strlen(ttl)), ARG(3, "NX", 2);
      return w + put_resp(out + w, cap - w, 4, argv, lens);
    case MIX_VALUE:
    case MIX_GREY:
      ARG(0, "SET", 3), ARG(1, key, (size_t)kl), ARG(2, (const char *)value, vlen);
      if (!mix)
        return put_resp(out, cap, 3, argv, lens);
      ARG(3, "EX", 2), ARG(4, ttl, strlen(ttl));
      return put_resp(out, cap, 5, argv, lens);
    case MIX_LOCK:
      ARG(0, "SET", 3), ARG(1, key, (size_t)kl), ARG(2, "node-01", 7), ARG(3, "NX", 2),
          ARG(4, "PX", 2), ARG(5, "5000", 4);
      return put_resp(out, cap, 6, argv, lens);
    }
#undef ARG
    abort();
  }
  // memcached's meta protocol: mg (get), ms (set; mode E = add for a lock),
  // ma (arithmetic; N vivifies a missing counter with that TTL).
  size_t w;
  switch (kind) {
  case MIX_LOOKUP:
    return (size_t)snprintf((char *)out, cap, "mg %.*s v\r\n", kl, key);
  case MIX_COUNTER:
    return (size_t)snprintf((char *)out, cap, "ma %.*s N%s J1 D1\r\n", kl, key, mix ? ttl : "0");
  case MIX_VALUE:
  case MIX_GREY:
    w = (size_t)snprintf((char *)out, cap, "ms %.*s %u T%s\r\n", kl, key, vlen, ttl);
    memcpy(out + w, value, vlen);
    memcpy(out + w + vlen, "\r\n", 2);
    return w + vlen + 2;
  case MIX_LOCK:
    return (size_t)snprintf((char *)out, cap, "ms %.*s 7 T5 ME\r\nnode-01\r\n", kl, key);
  }
  abort();
}

// encode_window writes `cfg->pipeline` requests into `out`.
static size_t encode_window(const struct config *cfg, unsigned id, uint64_t *counter, uint8_t *out,
                            size_t cap, const uint8_t *value, unsigned *replies) {
  size_t off = 0;
  *replies = 0;
  for (unsigned i = 0; i < cfg->pipeline; i++) {
    unsigned r;
    off += encode_one(cfg, id, (*counter)++, out + off, cap - off, value, &r);
    *replies += r;
  }
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

// mc_one is resp_one for memcached's meta protocol: VA <len> carries a
// value; HD, EN, NS, NF and EX are one line; errors are -1.
static long mc_one(const uint8_t *p, size_t len) {
  const uint8_t *nl = memchr(p, '\n', len);
  if (nl == NULL)
    return 0;
  size_t line = (size_t)(nl - p) + 1;
  if (len >= 3 && memcmp(p, "VA ", 3) == 0) {
    long n = strtol((const char *)p + 3, NULL, 10);
    return line + (size_t)n + 2 <= len ? (long)(line + (size_t)n + 2) : 0;
  }
  if (len >= 2 && (memcmp(p, "HD", 2) == 0 || memcmp(p, "EN", 2) == 0 || memcmp(p, "NS", 2) == 0 ||
                   memcmp(p, "NF", 2) == 0 || memcmp(p, "EX", 2) == 0))
    return (long)line;
  return -1;
}

static bool keep_answer_ok(uint8_t opcode) {
  return opcode == KEEP_OP_OK || opcode == KEEP_OP_NOT_FOUND || opcode == KEEP_OP_EXISTS ||
         opcode == KEEP_OP_NOT_YET;
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  const struct config *cfg = w->cfg;
  int fd = connect_to(cfg);
  if (fd < 0) {
    w->error = errno ? errno : EINVAL;
    return NULL;
  }
  size_t per = KEEP_HEADER_LEN + 64 + value_len(cfg) + 64;
  size_t cap = per * cfg->pipeline;
  uint8_t *out = malloc(cap), *in = malloc(cap + 65536), *value = malloc(value_len(cfg));
  size_t in_cap = cap + 65536;
  if (out == NULL || in == NULL || value == NULL) {
    w->error = ENOMEM;
    goto done;
  }
  memset(value, 'v', value_len(cfg));
  uint64_t counter = 0;
  while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
    unsigned replies;
    size_t len = encode_window(cfg, w->id, &counter, out, cap, value, &replies);
    if (xsend(fd, out, len, MSG_NOSIGNAL) != (ssize_t)len) {
      w->error = EIO;
      break;
    }
    unsigned answered = 0;
    size_t have = 0, pos = 0;
    while (answered < replies) {
      ssize_t n = xrecv(fd, in + have, in_cap - have, 0);
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
          if (rc < 0 || (rc == 1 && !keep_answer_ok(f.opcode))) {
            w->error = EPROTO;
            goto done;
          }
          used = rc == 1 ? (long)u : 0;
        } else {
          used = cfg->proto == PROTO_MC ? mc_one(in + pos, have - pos)
                                        : resp_one(in + pos, have - pos);
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
      xsend(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
    return -1;
  for (;;) {
    ssize_t n = xrecv(fd, buf + have, sizeof buf - have, 0);
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
    ssize_t n = xrecv(fd, in + have, in_cap - have, 0);
    if (n <= 0)
      return EIO;
    have += (size_t)n;
    keep_frame f;
    size_t u;
    while (answered < count && keep_frame_decode(&f, &u, in + pos, have - pos, 0) == 1) {
      if (!keep_answer_ok(f.opcode))
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
  size_t per = KEEP_HEADER_LEN + 64 + value_len(cfg) + 64, cap = per * cfg->pipeline;
  uint8_t *out[MAX_ROUTE] = {0}, *in = malloc(cap + 65536), *value = malloc(value_len(cfg));
  size_t out_len[MAX_ROUTE];
  unsigned sent[MAX_ROUTE];
  bool ok = w->error == 0 && in != NULL && value != NULL;
  for (unsigned i = 0; ok && i < shards; i++)
    ok = (out[i] = malloc(cap)) != NULL;
  if (ok)
    memset(value, 'v', value_len(cfg));
  else if (w->error == 0)
    w->error = ENOMEM;
  uint64_t counter = 0;
  while (ok && !atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
    memset(out_len, 0, sizeof out_len);
    memset(sent, 0, sizeof sent);
    for (unsigned i = 0; i < cfg->pipeline; i++) {
      char key[64];
      int kl = request_key(cfg, w->id, counter, key);
      unsigned sh = (unsigned)((uint64_t)keep_slot(NULL, key, (size_t)kl) * shards / KEEP_SLOTS);
      unsigned r;
      out_len[sh] +=
          encode_one(cfg, w->id, counter++, out[sh] + out_len[sh], cap - out_len[sh], value, &r);
      sent[sh]++;
    }
    // A shard no connection landed on is served through another one.
    for (unsigned sh = 0; ok && sh < shards; sh++) {
      int fd = fd_of[sh] >= 0 ? fd_of[sh] : any;
      ok =
          out_len[sh] == 0 || xsend(fd, out[sh], out_len[sh], MSG_NOSIGNAL) == (ssize_t)out_len[sh];
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
// sent, so a stalled server is charged for the requests it delayed (no
// coordinated omission). Request k of the run is due at start + k / rate and
// goes to connection k % conns as that connection's request k / conns, so
// each connection carries the same stream whatever the server.
//
// One thread does all of it on non-blocking sockets: it queues every request
// whose time has come, sends each connection's queue in one send, reads the
// answers that have come, and sleeps in ppoll until the next request is due.
// Due times are absolute (start + k / rate), so a late wake-up never shifts
// the schedule; the timer slack is set to 1 ns (50 µs by default). Each
// answer's time is the kernel's receive stamp (SO_TIMESTAMPNS) of the read
// that brought it, so the generator need not be awake when it comes; where
// the kernel gives no stamp it waits in ppoll for answers too and stamps
// them when ppoll returns. --spin-us S polls without sleeping through the
// last S µs before a due time (off by default: on the 2-CPU VM it costs CPU
// that the timer's own lateness does not justify). --tick-us T batches: each
// wake-up also sends every request due in the next T µs, so it wakes at most
// once per T µs instead of once per request (a wake-up costs 12 to 80 µs of
// CPU on the VM, which fills the generator's CPU at 40,000/s and more). A
// request sent before its due time is timed from when it was sent, one sent
// late from its due time: the earlier of the two, so batching cannot hide a
// server's delay (the server had the request from its send time on), and
// the generator's lateness is still charged to the run (README.md,
// "Batching the generator"). The generator this replaces ran a sender and a
// receiver thread per connection with relative sleeps: with 2 connections,
// 4 threads competed with the server for the 2 CPUs, and answers were
// stamped when a receiver thread got to run (README.md, "The generator's
// floor").
//
// The generator checks itself: each request's lateness (when it was queued
// minus when it was due) is reported as late_p99_us / late_max_us, and its own
// CPU time as gen_cpu_us_per_req and gen_cpu_share (of the run's wall time).
// A run whose lateness is not well under its latencies, or whose generator
// used most of a CPU, measured the generator, not the server.

#define OPEN_OUT_CAP (4u << 20)        // bytes queued per connection at most
#define OPEN_IN_CAP (1u << 20)         // bytes of answers read at once
#define OPEN_DRAIN_NS 1000000000ull    // answers awaited after the last due time
#define OPEN_MAX_REQUESTS 100000000ull // rate * seconds at most

struct open_conn {
  int fd;
  uint64_t total;       // requests this connection is given
  uint64_t queued;      // requests queued so far: the next one's number
  uint64_t *sched_ns;   // due time of request i
  uint64_t *latency_ns; // 0 until answered, else latency + 1
  uint8_t *replies;     // answers request i draws (RESP and memcached)
  uint64_t answered, in_order, refused;
  uint64_t reads, stamped; // reads, and those timed by the kernel's receive stamp
  unsigned got;            // answers so far to request in_order
  uint8_t *out, *in;
  size_t out_len, out_off, have;
};

// open_send writes what `c` has queued, as far as the socket takes it.
// Returns 0 or EIO.
static int open_send(struct open_conn *c) {
  if (c->out_off == c->out_len)
    return 0;
  ssize_t n =
      send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0)
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : EIO;
  c->out_off += (size_t)n;
  if (c->out_off == c->out_len) {
    c->out_off = c->out_len = 0;
  } else if (c->out_off > OPEN_OUT_CAP / 2) {
    memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
    c->out_len -= c->out_off;
    c->out_off = 0;
  }
  return 0;
}

// open_recv reads every answer waiting on `c`, stamping each with the time
// its bytes were read. Returns 0, EIO (closed or failed) or EPROTO.
static int open_recv(const struct config *cfg, struct open_conn *c, uint64_t *answered,
                     int64_t real_minus_mono) {
  for (;;) {
    struct iovec iov = {c->in + c->have, OPEN_IN_CAP - c->have};
    union {
      struct cmsghdr h;
      uint8_t b[CMSG_SPACE(sizeof(struct timespec))];
    } ctl;
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof ctl};
    ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return 0;
    if (n <= 0)
      return EIO;
    c->reads++;
    // The kernel's arrival time of the last segment read (SO_TIMESTAMPNS, in
    // CLOCK_REALTIME) when it gave one, else now.
    uint64_t now = corvid_bench_now_ns();
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
      if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - real_minus_mono;
        if (t > 0 && (uint64_t)t < now) {
          now = (uint64_t)t;
          c->stamped++;
        }
      }
    }
    c->have += (size_t)n;
    size_t pos = 0;
    for (;;) {
      uint64_t idx;
      long used;
      bool ok = true;
      if (cfg->proto == PROTO_KEEP) {
        keep_frame f;
        size_t u;
        int rc = keep_frame_decode(&f, &u, c->in + pos, c->have - pos, 0);
        if (rc < 0 || (rc == 1 && (f.id == 0 || f.id > c->queued)))
          return EPROTO;
        used = rc == 1 ? (long)u : 0;
        idx = f.id - 1;
        ok = rc == 1 && keep_answer_ok(f.opcode);
      } else {
        used = cfg->proto == PROTO_MC ? mc_one(c->in + pos, c->have - pos)
                                      : resp_one(c->in + pos, c->have - pos);
        if (used < 0 || (used > 0 && c->in_order >= c->queued))
          return EPROTO;
        idx = c->in_order; // RESP and memcached answer in request order
      }
      if (used == 0)
        break;
      pos += (size_t)used;
      if (cfg->proto != PROTO_KEEP && ++c->got < c->replies[idx])
        continue; // the request's last answer ends it
      c->got = 0;
      c->in_order++;
      if (!ok) { // an error answer: the request stays unanswered (infinitely late)
        c->refused++;
        continue;
      }
      if (c->latency_ns[idx] == 0) {
        // A stamp converted between clocks may be a hair early; never negative.
        c->latency_ns[idx] = (now > c->sched_ns[idx] ? now - c->sched_ns[idx] : 0) + 1;
        c->answered++;
        (*answered)++;
      }
    }
    size_t space = OPEN_IN_CAP - (c->have - (size_t)n);
    memmove(c->in, c->in + pos, c->have - pos);
    c->have -= pos;
    if (c->have == OPEN_IN_CAP)
      return EPROTO; // an answer larger than the buffer
    if ((size_t)n < space)
      return 0; // the socket had less than we asked for: it is drained
  }
}

// clock_offset returns CLOCK_REALTIME minus CLOCK_MONOTONIC in ns (receive
// stamps are in the first, due times in the second), from the tightest of a
// few readings of one between two of the other.
static int64_t clock_offset(void) {
  int64_t best = 0;
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 16; i++) {
    struct timespec r;
    uint64_t a = corvid_bench_now_ns();
    clock_gettime(CLOCK_REALTIME, &r);
    uint64_t b = corvid_bench_now_ns();
    if (b - a < best_gap) {
      best_gap = b - a;
      best = (int64_t)r.tv_sec * 1000000000 + r.tv_nsec - (int64_t)(a + (b - a) / 2);
    }
  }
  return best;
}

// pct_us returns the value at fraction `q` of `n` sorted samples, in µs, or
// 1e12 (infinitely late) when that position lies past the `have` known ones.
static double pct_us(const uint64_t *sorted, uint64_t have, uint64_t n, double q) {
  uint64_t i = (uint64_t)((double)n * q);
  if (i >= n && n > 0)
    i = n - 1;
  return i < have ? (double)sorted[i] / 1e3 : 1e12;
}

static int run_open_loop(const struct config *cfg, const char *impl) {
  unsigned nc = cfg->threads;
  uint64_t total = (uint64_t)(cfg->rate * cfg->seconds);
  if (total < nc || total > OPEN_MAX_REQUESTS)
    return stop(2, "--rate times --seconds must be from --threads (%u) to %llu requests", nc,
                (unsigned long long)OPEN_MAX_REQUESTS);
  struct open_conn *oc = calloc(nc, sizeof *oc);
  struct pollfd *pfd = calloc(nc, sizeof *pfd);
  uint8_t *value = malloc(value_len(cfg));
  uint64_t *late = calloc(total, 8);
  if (oc == NULL || pfd == NULL || value == NULL || late == NULL)
    return stop(1, "out of memory");
  memset(value, 'v', value_len(cfg));
  for (unsigned i = 0; i < nc; i++) {
    struct open_conn *c = &oc[i];
    c->total = total / nc + (i < total % nc);
    c->fd = connect_to(cfg);
    c->sched_ns = calloc(c->total, 8);
    c->latency_ns = calloc(c->total, 8);
    c->replies = calloc(c->total, 1);
    c->out = malloc(OPEN_OUT_CAP);
    c->in = malloc(OPEN_IN_CAP);
    int one = 1;
    if (c->fd < 0 || fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) < 0 ||
        setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0 ||
        c->sched_ns == NULL || c->latency_ns == NULL || c->replies == NULL || c->out == NULL ||
        c->in == NULL) {
      return stop(1, "connection %u: %s", i, c->fd < 0 ? "cannot connect" : strerror(errno));
    }
    pfd[i].fd = c->fd;
  }
  // Timer slack is what a sleep may overrun by (50 µs by default).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  int64_t real_minus_mono = clock_offset();
  double interval = 1e9 / cfg->rate;
  uint64_t start = corvid_bench_now_ns() + 20000000; // the connections settle first
  uint64_t end = start + (uint64_t)((double)total * interval) + OPEN_DRAIN_NS;
  uint64_t cpu0 = server_cpu_ns(cfg->server_pid), gen0 = self_cpu_ns();
  uint64_t k = 0, answered = 0;
  int error = 0;
  while (answered < total && error == 0) {
    uint64_t now = corvid_bench_now_ns();
    if (now >= end)
      break;
    // 1. Queue every request whose time has come, or comes within the tick
    // (even if the server is behind: its due time, or its send time if that
    // is earlier, not this moment, starts its latency).
    while (k < total) {
      uint64_t due = start + (uint64_t)((double)k * interval);
      struct open_conn *c = &oc[k % nc];
      if (due > now + cfg->tick_ns || c->out_len + value_len(cfg) + 256 > OPEN_OUT_CAP)
        break;
      uint64_t n = c->queued++;
      c->sched_ns[n] = due < now ? due : now;
      late[k] = due < now ? now - due : 0;
      unsigned r;
      c->out_len +=
          encode_one(cfg, k % nc, n, c->out + c->out_len, OPEN_OUT_CAP - c->out_len, value, &r);
      c->replies[n] = (uint8_t)r;
      k++;
    }
    // 2. Send each connection's queue in one send.
    for (unsigned i = 0; i < nc && error == 0; i++)
      error = open_send(&oc[i]);
    // 3. Wait in ppoll until the next due time less the spin (within the
    // spin, ppoll only looks), or until an answer comes where it must be
    // stamped on arrival (the kernel gave no stamp) or all are sent. With a
    // tick the next due time is at least a tick away, so wake-ups are too.
    uint64_t next = k < total ? start + (uint64_t)((double)k * interval) : end;
    uint64_t t = corvid_bench_now_ns(), wait = 0;
    if (next > t + cfg->spin_ns)
      wait = next - t - (k < total ? cfg->spin_ns : 0);
    struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
    for (unsigned i = 0; i < nc; i++)
      pfd[i].events = (short)((k == total || oc[i].stamped < oc[i].reads ? POLLIN : 0) |
                              (oc[i].out_off < oc[i].out_len ? POLLOUT : 0));
    if (error == 0 && ppoll(pfd, nc, &ts, NULL) < 0 && errno != EINTR)
      error = errno;
    // 4. Read the answers that came: where the kernel stamps arrivals, at
    // every wake-up; where it does not, only when ppoll says they are there
    // (ppoll waits for them then, so they are stamped on arrival).
    for (unsigned i = 0; i < nc && error == 0; i++)
      if (pfd[i].revents != 0 || !(pfd[i].events & POLLIN))
        error = open_recv(cfg, &oc[i], &answered, real_minus_mono);
  }
  uint64_t cpu1 = server_cpu_ns(cfg->server_pid), gen1 = self_cpu_ns();
  uint64_t wall = corvid_bench_now_ns() - start;
  // Unanswered requests count as infinitely late: percentiles are over
  // everything due, so a server that drops behind cannot look fast.
  uint64_t *all = malloc(total * 8), count = 0, refused = 0, reads = 0, stamped = 0;
  if (all == NULL)
    return stop(1, "out of memory");
  for (unsigned i = 0; i < nc; i++) {
    for (uint64_t n = 0; n < oc[i].queued; n++)
      if (oc[i].latency_ns[n] != 0)
        all[count++] = oc[i].latency_ns[n] - 1;
    refused += oc[i].refused;
    reads += oc[i].reads;
    stamped += oc[i].stamped;
    close(oc[i].fd);
    free(oc[i].sched_ns);
    free(oc[i].latency_ns);
    free(oc[i].replies);
    free(oc[i].out);
    free(oc[i].in);
  }
  if (error || count == 0)
    return stop(1, "%s", error ? strerror(error) : "no answers");
  qsort(all, count, sizeof all[0], corvid_bench_cmp_u64);
  qsort(late, k, sizeof late[0], corvid_bench_cmp_u64);
  printf("{\"bench\":\"open-loop-%s-t%u\",\"impl\":\"%s\",\"rate\":%.0f,\"sent\":%llu,"
         "\"answered\":%llu,\"refused\":%llu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,"
         "\"max_us\":%.1f,\"server_cpu_us_per_req\":%.2f,\"late_p99_us\":%.1f,"
         "\"late_max_us\":%.1f,\"gen_cpu_us_per_req\":%.2f,\"gen_cpu_share\":%.3f,"
         "\"rx_stamped\":%.3f,\"tick_us\":%.0f}\n",
         op_names[cfg->op], nc, impl, cfg->rate, (unsigned long long)total,
         (unsigned long long)count, (unsigned long long)refused, pct_us(all, count, total, 0.5),
         pct_us(all, count, total, 0.99), pct_us(all, count, total, 0.999),
         count == total ? (double)all[count - 1] / 1e3 : 1e12,
         cfg->server_pid > 0 ? (double)(cpu1 - cpu0) / 1e3 / (double)total : -1.0,
         pct_us(late, k, total, 0.99), k == total ? (double)late[k - 1] / 1e3 : 1e12,
         (double)(gen1 - gen0) / 1e3 / (double)total, (double)(gen1 - gen0) / (double)wall,
         reads ? (double)stamped / (double)reads : 0.0, (double)cfg->tick_ns / 1e3);
  free(all);
  free(late);
  free(oc);
  free(pfd);
  free(value);
  return 0;
}

// run_fill stores `num` keys of 10 bytes with 8-byte values over one
// connection, 256 requests per send, for the memory-per-key measurement.
static int run_fill(const struct config *cfg, uint64_t num) {
  int fd = connect_to(cfg);
  if (fd < 0)
    return stop(1, "cannot connect to %s:%u", cfg->host, cfg->port);
  enum { WINDOW = 256 };
  size_t cap = WINDOW * 128;
  uint8_t *out = malloc(cap), *in = malloc(cap);
  if (out == NULL || in == NULL)
    return stop(1, "out of memory");
  uint64_t t0 = corvid_bench_now_ns();
  for (uint64_t i = 0; i < num;) {
    size_t off = 0;
    unsigned batch = 0;
    for (; batch < WINDOW && i < num; batch++, i++) {
      char key[16];
      uint8_t value[8];
      memcpy(value, &i, 8);
      int kl = snprintf(key, sizeof key, "k:%08llu", (unsigned long long)i);
      if (cfg->proto == PROTO_KEEP) {
        keep_frame f;
        keep_frame_init(&f, KEEP_OP_SET, i + 1);
        f.key = (const uint8_t *)key;
        f.key_len = (size_t)kl;
        f.value = value;
        f.value_len = 8;
        size_t len;
        if (keep_frame_encode(out + off, cap - off, &len, &f) != 0)
          abort();
        off += len;
      } else if (cfg->proto == PROTO_RESP) {
        const char *argv[3] = {"SET", key, (const char *)value};
        size_t lens[3] = {3, (size_t)kl, 8};
        off += put_resp(out + off, cap - off, 3, argv, lens);
      } else {
        off += (size_t)snprintf((char *)out + off, cap - off, "ms %s 8 T0\r\n", key);
        memcpy(out + off, value, 8);
        memcpy(out + off + 8, "\r\n", 2);
        off += 10;
      }
    }
    if (xsend(fd, out, off, MSG_NOSIGNAL) != (ssize_t)off)
      return stop(1, "fill: cannot send: %s", strerror(errno));
    size_t have = 0, pos = 0;
    for (unsigned answered = 0; answered < batch;) {
      ssize_t n = xrecv(fd, in + have, cap - have, 0);
      if (n <= 0)
        return stop(1, "fill: %s", n == 0 ? "the server closed the connection" : strerror(errno));
      have += (size_t)n;
      for (;;) {
        long used;
        if (cfg->proto == PROTO_KEEP) {
          keep_frame f;
          size_t u;
          int rc = keep_frame_decode(&f, &u, in + pos, have - pos, 0);
          if (rc < 0 || (rc == 1 && f.opcode != KEEP_OP_OK))
            return stop(1, "fill refused at key %llu", (unsigned long long)i);
          used = rc == 1 ? (long)u : 0;
        } else {
          used = cfg->proto == PROTO_MC ? mc_one(in + pos, have - pos)
                                        : resp_one(in + pos, have - pos);
          if (used < 0)
            return stop(1, "fill refused at key %llu", (unsigned long long)i);
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
  }
  printf("{\"bench\":\"fill\",\"impl\":\"%s\",\"items\":%llu,\"ns\":%llu}\n",
         proto_names[cfg->proto], (unsigned long long)num,
         (unsigned long long)(corvid_bench_now_ns() - t0));
  free(out);
  free(in);
  close(fd);
  return 0;
}

// Pub/sub fan-out (--pubsub SUBSCRIBERS, with --rate messages per second and
// --proto keep|resp|nats): SUBSCRIBERS connections subscribe to one topic,
// one publisher sends 64-byte messages on a fixed schedule, and each
// delivery's latency runs from the message's scheduled time to its arrival
// at a subscriber. The payload starts with the message number in hex.
// nats-server speaks a text protocol (INFO, CONNECT, SUB, PUB, MSG,
// PING/PONG), implemented here to the minimum.

#define PS_PAYLOAD 64
#define PS_TOPIC "mbox.changes"

struct ps_conn {
  int fd;
  uint8_t *buf;
  size_t have;
};

// resp_array parses one RESP array of bulk strings and integers at `p`;
// returns its length (0: incomplete, -1: malformed) and points `*last` and
// `*last_len` at its last bulk string and `*first` at its first.
static long resp_array(const uint8_t *p, size_t len, const uint8_t **first, size_t *first_len,
                       const uint8_t **last, size_t *last_len) {
  const uint8_t *nl = memchr(p, '\n', len);
  if (nl == NULL)
    return 0;
  if (p[0] != '*')
    return resp_one(p, len);
  long n = strtol((const char *)p + 1, NULL, 10);
  size_t off = (size_t)(nl - p) + 1;
  for (long i = 0; i < n; i++) {
    if (off >= len)
      return 0;
    long u = resp_one(p + off, len - off);
    if (u <= 0)
      return u;
    if (p[off] == '$') {
      const uint8_t *d = (const uint8_t *)memchr(p + off, '\n', len - off) + 1;
      size_t dl = (size_t)strtol((const char *)p + off + 1, NULL, 10);
      if (i == 0) {
        *first = d;
        *first_len = dl;
      }
      *last = d;
      *last_len = dl;
    }
    off += (size_t)u;
  }
  return (long)off;
}

// ps_parse consumes complete messages in `c`; for each delivered payload it
// calls back with the message number. Returns -1 on a protocol error.
static int ps_parse(const struct config *cfg, struct ps_conn *c, uint64_t *lat, uint64_t msgs,
                    const uint64_t *sched, uint64_t *got) {
  size_t pos = 0;
  uint64_t now = corvid_bench_now_ns();
  for (;;) {
    const uint8_t *payload = NULL;
    size_t plen = 0;
    long used;
    uint8_t *p = c->buf + pos;
    size_t len = c->have - pos;
    if (len == 0)
      break;
    if (cfg->proto == PROTO_KEEP) {
      keep_frame f;
      size_t u;
      int rc = keep_frame_decode(&f, &u, p, len, 0);
      if (rc < 0)
        return -1;
      used = rc == 1 ? (long)u : 0;
      if (rc == 1 && f.opcode == KEEP_OP_EVENT) {
        payload = f.value;
        plen = f.value_len;
      }
    } else if (cfg->proto == PROTO_RESP) {
      const uint8_t *first = NULL, *last = NULL;
      size_t fl = 0, ll = 0;
      used = resp_array(p, len, &first, &fl, &last, &ll);
      if (used < 0)
        return -1;
      if (used > 0 && first != NULL && fl == 7 && memcmp(first, "message", 7) == 0) {
        payload = last;
        plen = ll;
      }
    } else { // nats
      const uint8_t *nl = memchr(p, '\n', len);
      if (nl == NULL)
        break;
      size_t line = (size_t)(nl - p) + 1;
      if (len >= 4 && memcmp(p, "MSG ", 4) == 0) {
        // MSG <subject> <sid> [reply-to] <#bytes>: the size is the last field.
        const uint8_t *sp = nl;
        while (sp > p && sp[-1] != ' ')
          sp--;
        size_t n = (size_t)strtoul((const char *)sp, NULL, 10);
        if (line + n + 2 > len)
          break;
        payload = p + line;
        plen = n;
        used = (long)(line + n + 2);
      } else {
        if (len >= 4 && memcmp(p, "PING", 4) == 0 && send(c->fd, "PONG\r\n", 6, MSG_NOSIGNAL) != 6)
          return -1;
        if (len >= 4 && memcmp(p, "-ERR", 4) == 0)
          return -1;
        used = (long)line;
      }
    }
    if (used == 0)
      break;
    pos += (size_t)used;
    if (payload != NULL && plen >= 16) {
      char hex[17];
      memcpy(hex, payload, 16);
      hex[16] = 0;
      uint64_t idx = strtoull(hex, NULL, 16);
      if (idx < msgs && lat[idx] == 0) {
        lat[idx] = now - sched[idx] + 1;
        (*got)++;
      }
    }
  }
  memmove(c->buf, c->buf + pos, c->have - pos);
  c->have -= pos;
  return 0;
}

static size_t ps_encode_sub(const struct config *cfg, uint8_t *out, size_t cap, uint64_t id) {
  if (cfg->proto == PROTO_KEEP) {
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_SUBSCRIBE, id);
    f.key = (const uint8_t *)PS_TOPIC;
    f.key_len = strlen(PS_TOPIC);
    size_t len;
    if (keep_frame_encode(out, cap, &len, &f) != 0)
      abort();
    return len;
  }
  if (cfg->proto == PROTO_RESP) {
    const char *argv[2] = {"SUBSCRIBE", PS_TOPIC};
    size_t lens[2] = {9, strlen(PS_TOPIC)};
    return put_resp(out, cap, 2, argv, lens);
  }
  return (size_t)snprintf(
      (char *)out, cap, "CONNECT {\"verbose\":false,\"pedantic\":false}\r\nSUB %s 1\r\n", PS_TOPIC);
}

static size_t ps_encode_pub(const struct config *cfg, uint8_t *out, size_t cap, uint64_t n) {
  char payload[PS_PAYLOAD + 1];
  snprintf(payload, sizeof payload, "%016llx", (unsigned long long)n);
  memset(payload + 16, '.', PS_PAYLOAD - 16);
  if (cfg->proto == PROTO_KEEP) {
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_PUBLISH, n + 1);
    f.key = (const uint8_t *)PS_TOPIC;
    f.key_len = strlen(PS_TOPIC);
    f.value = (const uint8_t *)payload;
    f.value_len = PS_PAYLOAD;
    size_t len;
    if (keep_frame_encode(out, cap, &len, &f) != 0)
      abort();
    return len;
  }
  if (cfg->proto == PROTO_RESP) {
    const char *argv[3] = {"PUBLISH", PS_TOPIC, payload};
    size_t lens[3] = {7, strlen(PS_TOPIC), PS_PAYLOAD};
    return put_resp(out, cap, 3, argv, lens);
  }
  size_t w = (size_t)snprintf((char *)out, cap, "PUB %s %d\r\n", PS_TOPIC, PS_PAYLOAD);
  memcpy(out + w, payload, PS_PAYLOAD);
  memcpy(out + w + PS_PAYLOAD, "\r\n", 2);
  return w + PS_PAYLOAD + 2;
}

static int run_pubsub(const struct config *cfg, unsigned subs) {
  uint64_t msgs = (uint64_t)(cfg->rate * cfg->seconds);
  if (msgs == 0 || msgs * subs > 200000000)
    return stop(2, "--rate times --seconds must be from 1 to %llu messages for %u subscribers",
                200000000ull / subs, subs);
  struct ps_conn *sc = calloc(subs, sizeof *sc);
  uint64_t *sched = calloc(msgs, 8), *lat = calloc(msgs * subs, 8);
  int ep = epoll_create1(0);
  if (sc == NULL || sched == NULL || lat == NULL || ep < 0)
    return stop(1, "out of memory");
  uint8_t tmp[512];
  for (unsigned i = 0; i < subs; i++) {
    sc[i].fd = connect_to(cfg);
    sc[i].buf = malloc(1u << 20);
    if (sc[i].fd < 0 || sc[i].buf == NULL)
      return stop(1, "cannot connect subscriber %u", i);
    size_t len = ps_encode_sub(cfg, tmp, sizeof tmp, i + 1);
    if (send(sc[i].fd, tmp, len, MSG_NOSIGNAL) != (ssize_t)len)
      return stop(1, "subscriber %u cannot subscribe: %s", i, strerror(errno));
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
    epoll_ctl(ep, EPOLL_CTL_ADD, sc[i].fd, &ev);
  }
  int pub = connect_to(cfg);
  if (pub < 0)
    return stop(1, "cannot connect the publisher");
  if (cfg->proto == PROTO_NATS) {
    const char *c = "CONNECT {\"verbose\":false,\"pedantic\":false}\r\n";
    if (send(pub, c, strlen(c), MSG_NOSIGNAL) != (ssize_t)strlen(c))
      return stop(1, "publisher: %s", strerror(errno));
  }
  // Let every subscription take effect (answers are read by the loop below).
  struct timespec settle = {0, 300000000};
  nanosleep(&settle, NULL);
  uint64_t start = corvid_bench_now_ns() + 10000000, interval = (uint64_t)(1e9 / cfg->rate);
  uint64_t cpu0 = server_cpu_ns(cfg->server_pid);
  uint64_t next = 0, got = 0, want = msgs * subs;
  uint64_t deadline = start + (uint64_t)(cfg->seconds * 1e9) + 2000000000ull;
  struct epoll_event evs[64];
  while (got < want && corvid_bench_now_ns() < deadline) {
    uint64_t now = corvid_bench_now_ns();
    size_t off = 0;
    uint8_t out[16384];
    while (next < msgs && start + next * interval <= now && off + 256 < sizeof out) {
      sched[next] = start + next * interval;
      off += ps_encode_pub(cfg, out + off, sizeof out - off, next);
      next++;
    }
    if (off > 0 && send(pub, out, off, MSG_NOSIGNAL) != (ssize_t)off)
      return stop(1, "publisher: %s", strerror(errno));
    while (recv(pub, tmp, sizeof tmp, MSG_DONTWAIT) > 0) {
      // publisher's acknowledgements (and nats PINGs, answered) are dropped
      if (cfg->proto == PROTO_NATS && memcmp(tmp, "PING", 4) == 0)
        (void)!send(pub, "PONG\r\n", 6, MSG_NOSIGNAL);
    }
    int timeout = 0;
    if (next < msgs) {
      uint64_t due = start + next * interval, t = corvid_bench_now_ns();
      timeout = due > t ? (int)((due - t) / 1000000) : 0;
    } else {
      timeout = 10;
    }
    int n = epoll_wait(ep, evs, 64, timeout);
    for (int i = 0; i < n; i++) {
      struct ps_conn *c = &sc[evs[i].data.u32];
      ssize_t r = recv(c->fd, c->buf + c->have, (1u << 20) - c->have, 0);
      if (r <= 0)
        return stop(1, "subscriber %u: %s", evs[i].data.u32,
                    r == 0 ? "the server closed the connection" : strerror(errno));
      c->have += (size_t)r;
      if (ps_parse(cfg, c, lat + (size_t)evs[i].data.u32 * msgs, msgs, sched, &got) < 0)
        return stop(1, "subscriber %u: protocol error", evs[i].data.u32);
    }
  }
  uint64_t cpu1 = server_cpu_ns(cfg->server_pid);
  uint64_t count = 0;
  for (uint64_t i = 0; i < want; i++)
    if (lat[i] != 0)
      lat[count++] = lat[i] - 1;
  qsort(lat, count, 8, corvid_bench_cmp_u64);
#define PCT(q)                                                                                     \
  ((uint64_t)((double)want * (q)) < count ? (double)lat[(uint64_t)((double)want * (q))] / 1e3      \
                                          : 1e12)
  printf("{\"bench\":\"pubsub-fanout-s%u\",\"impl\":\"%s\",\"rate\":%.0f,\"messages\":%llu,"
         "\"deliveries\":%llu,\"delivered\":%llu,\"p50_us\":%.1f,\"p99_us\":%.1f,"
         "\"p999_us\":%.1f,\"server_cpu_us_per_delivery\":%.3f}\n",
         subs, proto_names[cfg->proto], cfg->rate, (unsigned long long)msgs,
         (unsigned long long)want, (unsigned long long)count, PCT(0.5), PCT(0.99), PCT(0.999),
         cfg->server_pid > 0 ? (double)(cpu1 - cpu0) / 1e3 / (double)want : -1.0);
#undef PCT
  for (unsigned i = 0; i < subs; i++) {
    close(sc[i].fd);
    free(sc[i].buf);
  }
  close(pub);
  close(ep);
  free(sc);
  free(sched);
  free(lat);
  if (count != want)
    return stop(1, "%llu of %llu deliveries never arrived", (unsigned long long)(want - count),
                (unsigned long long)want);
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: keep-bench --proto keep|resp|mc|nats --op get|set|incr|mix --port N\n"
                  "       [--host 127.0.0.1] [--threads 4] [--pipeline 16] [--keys 10000]\n"
                  "       [--value-size 8] [--seconds 3] [--rate REQUESTS_PER_S]\n"
                  "       [--route] [--server-pid PID] [--tls CLUSTER_KEY_FILE]\n"
                  "       [--impl NAME] [--spin-us 0] [--tick-us 0]\n"
                  "--rate runs the open loop and reports latency percentiles; --route\n"
                  "keeps one keep/1 connection per keepd shard (closed loop); --op mix\n"
                  "is the mail-cluster mix of README.md; --server-pid adds the server's\n"
                  "CPU time per request (from /proc/PID/stat); --fill N stores N keys\n"
                  "of 10 bytes (k:%%08u) with 8-byte values, 256 per send, and exits;\n"
                  "--pubsub N --rate R: N subscribers, R messages/s (--proto nats too);\n"
                  "--impl NAME labels the open loop's result (e.g. null for keep-null).\n"
                  "In the open loop --threads is the number of connections, all driven\n"
                  "by one thread, which polls without sleeping through the last\n"
                  "--spin-us microseconds before each due time; --tick-us T: each\n"
                  "wake-up also sends what falls due in the next T microseconds (timed\n"
                  "from the earlier of due and send time).\n");
}

int main(int argc, char **argv) {
  struct config cfg = {.proto = PROTO_KEEP,
                       .op = OP_GET,
                       .host = "127.0.0.1",
                       .threads = 4,
                       .pipeline = 16,
                       .keys = 10000,
                       .value_size = 8,
                       .seconds = 3.0};
  // clang-format off: one option a line
  static const struct option opts[] = {
      {"proto", required_argument, NULL, 'P'},
      {"op", required_argument, NULL, 'o'},
      {"host", required_argument, NULL, 'h'},
      {"port", required_argument, NULL, 'p'},
      {"threads", required_argument, NULL, 't'},
      {"pipeline", required_argument, NULL, 'l'},
      {"keys", required_argument, NULL, 'k'},
      {"value-size", required_argument, NULL, 'v'},
      {"seconds", required_argument, NULL, 's'},
      {"rate", required_argument, NULL, 'r'},
      {"route", no_argument, NULL, 'R'},
      {"server-pid", required_argument, NULL, 'S'},
      {"fill", required_argument, NULL, 'F'},
      {"pubsub", required_argument, NULL, 'U'},
      {"tls", required_argument, NULL, 'T'},
      {"impl", required_argument, NULL, 'I'},
      {"spin-us", required_argument, NULL, 'W'},
      {"tick-us", required_argument, NULL, 'K'},
      {NULL, 0, NULL, 0},
  };
  // clang-format on

  int o, li = -1;
  uint64_t fill = 0, u = 0;
  unsigned pubsub = 0;
  double d = 0;
  const char *impl_label = NULL;
  // Each value is checked whole and against its range: a mistyped option
  // must not run a measurement nobody asked for.
#define U64(min, max) (corvid_parse_u64(optarg, (min), (max), &u) == 0)
#define DBL(min, max) (corvid_parse_double(optarg, (min), (max), &d) == 0)
  while ((o = getopt_long(argc, argv, "", opts, &li)) != -1) {
    bool ok = true;
    switch (o) {
    case 'P': {
      int i = choice(optarg, proto_args, 4);
      if ((ok = i >= 0))
        cfg.proto = (enum proto)i;
      break;
    }
    case 'o': {
      int i = choice(optarg, op_names, 4);
      if ((ok = i >= 0))
        cfg.op = (enum op)i;
      break;
    }
    case 'S':
      if ((ok = U64(1, INT32_MAX)))
        cfg.server_pid = (int)u;
      break;
    case 'F':
      if ((ok = U64(1, 1000000000)))
        fill = u;
      break;
    case 'U':
      if ((ok = U64(1, 10000)))
        pubsub = (unsigned)u;
      break;
    case 'T':
      if (bench_tls_init(optarg) < 0)
        return stop(2, "--tls %s: not a usable key file", optarg);
      break;
    case 'I':
      impl_label = optarg;
      break;
    case 'W':
      if ((ok = DBL(0, 1e6)))
        cfg.spin_ns = (uint64_t)(d * 1e3);
      break;
    case 'K':
      if ((ok = DBL(0, 1e6)))
        cfg.tick_ns = (uint64_t)(d * 1e3);
      break;
    case 'h':
      cfg.host = optarg;
      break;
    case 'p':
      if ((ok = U64(1, 65535)))
        cfg.port = (unsigned)u;
      break;
    case 't':
      if ((ok = U64(1, 256)))
        cfg.threads = (unsigned)u;
      break;
    case 'l':
      if ((ok = U64(1, 100000)))
        cfg.pipeline = (unsigned)u;
      break;
    case 'k':
      if ((ok = U64(1, UINT32_MAX)))
        cfg.keys = (unsigned)u;
      break;
    case 'v':
      if ((ok = U64(0, KEEP_MAX_VALUE_HARD)))
        cfg.value_size = (unsigned)u;
      break;
    case 's':
      if ((ok = DBL(0.001, 86400)))
        cfg.seconds = d;
      break;
    case 'r':
      if ((ok = DBL(0.001, 1e8)))
        cfg.rate = d;
      break;
    case 'R':
      cfg.route = true;
      break;
    default:
      usage();
      return 2;
    }
    if (!ok)
      return stop(2, "bad value for --%s: %s", opts[li].name, optarg);
  }
#undef U64
#undef DBL
  if (optind < argc) {
    usage();
    return 2;
  }
  if (cfg.port == 0)
    return stop(2, "--port is required");
  if (pubsub > 0 && cfg.rate == 0)
    return stop(2, "--pubsub needs --rate");
  if (bench_tls != NULL && (cfg.proto != PROTO_KEEP || cfg.rate > 0 || pubsub > 0)) {
    fprintf(stderr, "keep-bench: --tls is for keep/1 in the closed loop only\n");
    return 2;
  }
  if (fill > 0)
    return run_fill(&cfg, fill);
  if (pubsub > 0)
    return cfg.rate > 0 ? run_pubsub(&cfg, pubsub) : 2;
  if (cfg.rate > 0)
    return run_open_loop(&cfg, impl_label ? impl_label : proto_names[cfg.proto]);
  struct worker *ws = calloc(cfg.threads, sizeof *ws);
  pthread_t *th = calloc(cfg.threads, sizeof *th);
  if (ws == NULL || th == NULL)
    return stop(1, "out of memory");
  uint64_t start = corvid_bench_now_ns(), cpu0 = server_cpu_ns(cfg.server_pid);
  for (unsigned i = 0; i < cfg.threads; i++) {
    ws[i] = (struct worker){&cfg, i, 0, 0};
    if (pthread_create(&th[i], NULL,
                       cfg.route && cfg.proto == PROTO_KEEP ? routed_worker_main : worker_main,
                       &ws[i]) != 0)
      return stop(1, "cannot start a thread");
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
  if (error)
    return stop(1, "%s", strerror(error));
  char bench[64], impl[32];
  snprintf(bench, sizeof bench, "closed-loop-%s-t%u-p%u", op_names[cfg.op], cfg.threads,
           cfg.pipeline);
  snprintf(impl, sizeof impl, "%s%s",
           cfg.proto == PROTO_KEEP && cfg.route ? "keepd-routed" : proto_names[cfg.proto],
           bench_tls != NULL ? "-tls" : "");
  struct corvid_bench_result r = {elapsed, elapsed, 1};
  corvid_bench_emit(stdout, bench, impl, total * cfg.value_size, total, &r);
  if (cfg.server_pid > 0)
    printf("{\"bench\":\"%s-cpu\",\"impl\":\"%s\",\"items\":%llu,"
           "\"server_cpu_us_per_req\":%.3f}\n",
           bench, impl, (unsigned long long)total,
           (double)(server_cpu_ns(cfg.server_pid) - cpu0) / 1e3 / (double)total);
  free(ws);
  free(th);
  return 0;
}
