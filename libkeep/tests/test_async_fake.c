// test_async_fake.c: libkeep's non-blocking client (keep_async_*) against a
// scripted keep/1 peer on loopback, for the misbehaviour a healthy keepd
// never shows on demand: bytes that are not keep/1 (text, a broken body, a
// request opcode, an unknown opcode, another version, an undefined flag,
// the VIEW and ENTRY answers to requests this client never sends), a
// length field over KEEP_MAX_BODY, answers whose id no request has, a peer
// that closes in the middle of an answer or before reading anything, one
// that never answers or answers a byte at a time (the I/O timeout), answers
// to a pipeline out of order and in one-byte writes, and requests too large
// for the socket buffers (partial writes). Then the client's timers and
// failure paths: a connect that never completes, BUSY retries whose
// connection closes, a process out of descriptors (at queuing, on a retry,
// on a subscription's renewal, at creation), requests queued behind or
// timing out in a partial write, shard connections, and subscriptions
// whose checks fail or that the caller drops or makes again while they
// are being renewed. Each case checks what keep.h promises the caller:
// every queued request's callback runs exactly once, with its own answer
// or with the failure's status, the failed connection is closed, and the
// next request reconnects. The peer is a thread per accepted connection
// running the case's script; every wait, on either side, is bounded.
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_internal.h"

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

// Requests are on keys "k<i>"; the peer answers a GET with "val-<i>" and
// anything else with OK and num 1000 + i, so that a callback that got
// another request's answer shows it. Large values carry pattern(i, j).
static uint8_t pattern(int i, size_t j) {
  return (uint8_t)((unsigned)i * 131u + j * 7u + (j >> 8) * 13u);
}

static bool pattern_ok(const uint8_t *v, size_t len, int i) {
  for (size_t j = 0; j < len; j++)
    if (v[j] != pattern(i, j))
      return false;
  return true;
}

// The peer. Its threads check with peer_require(), not ck_assert(), which
// belongs to the test's own thread.

#define peer_require(cond)                                                                         \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      abort();                                                                                     \
  } while (0)

#define PEER_MAX_CONNS 24

struct peer;
struct pconn;
typedef void peer_script(struct pconn *pc, int n);

struct peer {
  peer_script *script;
  int lfd;
  char member[32];
  pthread_t thread;
  pthread_t conn_threads[PEER_MAX_CONNS];
  struct pconn *conns[PEER_MAX_CONNS];
  atomic_bool stop;
  atomic_int accepted;
  atomic_int client_closed; // connections the client closed (EOF or reset seen)
  atomic_int faults;        // malformed or corrupted requests seen by the peer
  atomic_int subscribes;    // SUBSCRIBE requests seen, on every connection
  atomic_int unsubscribes;  // UNSUBSCRIBE requests seen, on every connection
  // Lock-step with the test's thread, for the cases where what the client
  // reads in one keep_async_process() call must be fixed: the peer sets
  // `got` once it holds the request, waits for `go`, then sets `sent`.
  atomic_int got, go, sent;
  // With num_shards > 0, connection n answers the client's PING as shard
  // ping_shard[n] of num_shards; else as the only shard.
  int num_shards;
  int ping_shard[PEER_MAX_CONNS];
  atomic_int keyed_on[PEER_MAX_CONNS]; // keyed requests per connection (script_shards)
};

// pconn is one accepted connection: its socket and the bytes read from it.
struct pconn {
  struct peer *p;
  int fd, index;
  uint8_t *buf;
  size_t len, cap;
  bool answer_pings; // the client's own PING, first on every connection
  bool eof, broken;
};

// req is what the peer keeps of a request frame.
struct req {
  uint8_t op;
  uint64_t id;
  int index; // i of key "k<i>", -1 without such a key
  size_t value_len;
  bool value_ok; // value_len bytes of pattern(index, ...)
};

struct blob {
  uint8_t *p;
  size_t len, cap;
};

static void blob_raw(struct blob *b, const void *data, size_t len) {
  if (b->cap - b->len < len) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < len)
      cap *= 2;
    b->p = realloc(b->p, cap);
    peer_require(b->p != NULL);
    b->cap = cap;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
}

static void blob_frame(struct blob *b, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f), len;
  uint8_t *tmp = need > 0 ? malloc(need) : NULL;
  peer_require(tmp != NULL && keep_frame_encode(tmp, need, &len, f) == 0);
  blob_raw(b, tmp, len);
  free(tmp);
}

// blob_header appends a frame header as given, valid or not.
static void blob_header(struct blob *b, uint32_t body_len, uint8_t version, uint8_t op,
                        uint16_t flags, uint64_t id) {
  uint8_t h[KEEP_HEADER_LEN];
  keep_put_le(h, 4, body_len);
  h[4] = version;
  h[5] = op;
  keep_put_le(h + 6, 2, flags);
  keep_put_le(h + 8, 8, id);
  blob_raw(b, h, sizeof h);
}

static void blob_ok(struct blob *b, uint64_t id, uint64_t num, const void *value, size_t len) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_OK, id);
  f.num = num;
  f.value = value;
  f.value_len = len;
  blob_frame(b, &f);
}

// blob_answer appends the well-behaved answer to `r`.
static void blob_answer(struct blob *b, const struct req *r) {
  if (r->op == KEEP_OP_GET) {
    char v[32];
    int n = snprintf(v, sizeof v, "val-%d", r->index);
    blob_ok(b, r->id, 0, v, (size_t)n);
  } else {
    blob_ok(b, r->id, 1000u + (uint64_t)r->index, NULL, 0);
  }
}

// Sends are bounded by the socket's SO_SNDTIMEO; false once the client is
// gone.
static bool send_all(int fd, const uint8_t *p, size_t len) {
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

static bool blob_send(int fd, struct blob *b) {
  bool ok = send_all(fd, b->p, b->len);
  free(b->p);
  *b = (struct blob){0};
  return ok;
}

// blob_send_bytewise writes one byte per segment (Nagle is off), so that
// the client reads frames in as many pieces as the scheduler allows.
static bool blob_send_bytewise(int fd, struct blob *b, unsigned pause_us) {
  bool ok = true;
  for (size_t i = 0; ok && i < b->len; i++) {
    ok = send_all(fd, b->p + i, 1);
    if (pause_us > 0)
      usleep(pause_us);
  }
  free(b->p);
  *b = (struct blob){0};
  return ok;
}

// pc_fill reads what the client sent within `ms`: returns the byte count,
// 0 once the client has closed (or reset) the connection, -1 when nothing
// came in time or the test is ending.
static int pc_fill(struct pconn *pc, unsigned ms) {
  uint64_t end = now_ms() + ms;
  while (!pc->eof && !atomic_load(&pc->p->stop)) {
    uint64_t t = now_ms();
    if (t >= end)
      return -1;
    struct pollfd pfd = {.fd = pc->fd, .events = POLLIN};
    int left = (int)(end - t);
    if (poll(&pfd, 1, left < 20 ? left : 20) <= 0)
      continue;
    if (pc->cap - pc->len < 65536) {
      size_t cap = pc->cap * 2;
      uint8_t *grown = realloc(pc->buf, cap);
      if (grown == NULL)
        return -1;
      pc->buf = grown;
      pc->cap = cap;
    }
    ssize_t n = recv(pc->fd, pc->buf + pc->len, pc->cap - pc->len, 0);
    if (n > 0) {
      pc->len += (size_t)n;
      return (int)n;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    pc->eof = true;
    atomic_fetch_add(&pc->p->client_closed, 1);
  }
  return pc->eof ? 0 : -1;
}

static bool pc_done(const struct pconn *pc) {
  return pc->eof || pc->broken || atomic_load(&pc->p->stop);
}

// pc_next waits up to `ms` for the next request other than a PING it
// answers itself (when answer_pings is set). False on timeout, close, or a
// frame the peer cannot decode (a fault: the client must send keep/1).
static bool pc_next(struct pconn *pc, struct req *out, unsigned ms) {
  uint64_t end = now_ms() + ms;
  for (;;) {
    keep_frame f;
    size_t used;
    int rc = keep_frame_decode(&f, &used, pc->buf, pc->len, 0);
    if (rc < 0 || (rc == 1 && !keep_frame_is_request(f.opcode))) {
      pc->broken = true;
      atomic_fetch_add(&pc->p->faults, 1);
      return false;
    }
    if (rc == 1) {
      *out = (struct req){.op = f.opcode, .id = f.id, .index = -1, .value_len = f.value_len};
      if (f.key_len >= 2 && f.key[0] == 'k') {
        char digits[KEEP_MAX_KEY + 1];
        memcpy(digits, f.key + 1, f.key_len - 1);
        digits[f.key_len - 1] = '\0';
        out->index = atoi(digits);
      }
      out->value_ok = pattern_ok(f.value, f.value_len, out->index);
      memmove(pc->buf, pc->buf + used, pc->len - used);
      pc->len -= used;
      if (out->op == KEEP_OP_SUBSCRIBE)
        atomic_fetch_add(&pc->p->subscribes, 1);
      else if (out->op == KEEP_OP_UNSUBSCRIBE)
        atomic_fetch_add(&pc->p->unsubscribes, 1);
      if (out->op == KEEP_OP_PING && pc->answer_pings) {
        struct blob b = {0};
        uint8_t shards[2] = {1, 0};
        uint64_t shard = 0;
        if (pc->p->num_shards > 0) {
          shards[0] = (uint8_t)pc->p->num_shards;
          shard = (uint64_t)pc->p->ping_shard[pc->index];
        }
        blob_ok(&b, out->id, shard, shards, sizeof shards);
        (void)blob_send(pc->fd, &b);
        continue;
      }
      return true;
    }
    uint64_t t = now_ms();
    if (pc_done(pc) || t >= end || pc_fill(pc, (unsigned)(end - t)) <= 0)
      return false;
  }
}

// pc_take reads `n` requests into `out` (answering PINGs), each within 2 s.
static bool pc_take(struct pconn *pc, struct req *out, int n) {
  for (int i = 0; i < n; i++)
    if (!pc_next(pc, &out[i], 2000))
      return false;
  return true;
}

// pc_wait_close discards what the client sends until it closes the
// connection, at most `ms`; returns whether it did.
static bool pc_wait_close(struct pconn *pc, unsigned ms) {
  uint64_t end = now_ms() + ms;
  while (!pc_done(pc)) {
    uint64_t t = now_ms();
    if (t >= end)
      break;
    pc->len = 0;
    (void)pc_fill(pc, (unsigned)(end - t));
  }
  return pc->eof;
}

// serve answers every request as keepd would, until the client closes.
static void serve(struct pconn *pc) {
  struct req r;
  while (!pc_done(pc)) {
    if (pc_next(pc, &r, 50)) {
      struct blob b = {0};
      blob_answer(&b, &r);
      (void)blob_send(pc->fd, &b);
    }
  }
}

static void *conn_main(void *arg) {
  struct pconn *pc = arg;
  pc->p->script(pc, pc->index);
  close(pc->fd);
  return NULL;
}

static void *peer_main(void *arg) {
  struct peer *p = arg;
  while (!atomic_load(&p->stop)) {
    struct pollfd pfd = {.fd = p->lfd, .events = POLLIN};
    if (poll(&pfd, 1, 20) <= 0)
      continue;
    int fd = accept(p->lfd, NULL, NULL);
    if (fd < 0)
      continue;
    int n = atomic_load(&p->accepted);
    struct pconn *pc = calloc(1, sizeof *pc);
    uint8_t *buf = malloc(65536);
    if (n >= PEER_MAX_CONNS || pc == NULL || buf == NULL) {
      free(buf);
      free(pc);
      atomic_fetch_add(&p->faults, 1); // more connections than any case needs
      close(fd);
      continue;
    }
    int one = 1;
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    *pc = (struct pconn){.p = p, .fd = fd, .index = n, .buf = buf, .cap = 65536};
    pc->answer_pings = true;
    // Counted before the script runs: the client may see its answers first.
    atomic_store(&p->accepted, n + 1);
    p->conns[n] = pc;
    if (pthread_create(&p->conn_threads[n], NULL, conn_main, pc) != 0) {
      free(buf);
      free(pc);
      p->conns[n] = NULL;
      atomic_fetch_add(&p->faults, 1);
      close(fd);
    }
  }
  for (int i = 0; i < atomic_load(&p->accepted); i++) {
    if (p->conns[i] == NULL)
      continue;
    pthread_join(p->conn_threads[i], NULL);
    free(p->conns[i]->buf);
    free(p->conns[i]);
  }
  return NULL;
}

// peer_start_sharded listens on an ephemeral loopback port; `rcvbuf` (0:
// the default) is set before listen() so that accepted sockets inherit it.
// `num_shards` and `ping_shard` are as in struct peer.
static void peer_start_sharded(struct peer *p, peer_script *script, int rcvbuf, int num_shards,
                               const int *ping_shard) {
  memset(p, 0, sizeof *p);
  p->script = script;
  p->num_shards = num_shards;
  if (num_shards > 0)
    memcpy(p->ping_shard, ping_shard, sizeof p->ping_shard);
  p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(p->lfd, 0);
  if (rcvbuf > 0)
    ck_assert_int_eq(setsockopt(p->lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(p->lfd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(p->lfd, 16), 0);
  ck_assert_int_eq(getsockname(p->lfd, (struct sockaddr *)&a, &len), 0);
  snprintf(p->member, sizeof p->member, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
  ck_assert_int_eq(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static void peer_start(struct peer *p, peer_script *script, int rcvbuf) {
  peer_start_sharded(p, script, rcvbuf, 0, NULL);
}

// Plain reads of the peer's counters, for readable assertion messages.
static int peer_accepted(struct peer *p) {
  return atomic_load(&p->accepted);
}

static int peer_client_closed(struct peer *p) {
  return atomic_load(&p->client_closed);
}

static int peer_faults(struct peer *p) {
  return atomic_load(&p->faults);
}

static int peer_subscribes(struct peer *p) {
  return atomic_load(&p->subscribes);
}

static int peer_unsubscribes(struct peer *p) {
  return atomic_load(&p->unsubscribes);
}

static int peer_keyed_on(struct peer *p, int conn) {
  return atomic_load(&p->keyed_on[conn]);
}

static void peer_stop(struct peer *p) {
  atomic_store(&p->stop, true);
  pthread_join(p->thread, NULL);
  close(p->lfd);
}

// The client side.

static keep_async *client_for(const struct peer *p, uint32_t io_timeout_ms) {
  const char *members[] = {p->member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = io_timeout_ms};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  ck_assert_ptr_nonnull(a);
  return a;
}

// rec is one request's completion, as its callback saw it.
struct rec {
  size_t *done;
  int index; // the request's key is "k<index>"
  int calls;
  int status;
  int64_t num;
  bool value_null;
  size_t value_len;
  char value[64];
  bool big_ok; // a value too long for `value` followed pattern(index, ...)
  uint64_t at_ms;
  // A failed request queues a GET of "k<retry->index>" from its callback,
  // as a caller that retries does.
  keep_async *retry_on;
  struct rec *retry;
  int retry_rc;
};

static void on_done(void *user, const keep_async_result *r) {
  struct rec *x = user;
  x->calls++;
  x->status = r->status;
  x->num = r->num;
  x->value_null = r->value == NULL;
  x->value_len = r->value_len;
  if (r->value_len < sizeof x->value) {
    if (r->value_len > 0)
      memcpy(x->value, r->value, r->value_len);
    x->value[r->value_len] = '\0';
  } else {
    x->big_ok = pattern_ok(r->value, r->value_len, x->index);
  }
  x->at_ms = now_ms();
  (*x->done)++;
  if (x->retry_on != NULL && r->status != 0) {
    char key[16];
    int kl = snprintf(key, sizeof key, "k%d", x->retry->index);
    x->retry_rc = keep_async_get(x->retry_on, key, (size_t)kl, on_done, x->retry);
  }
}

static void rec_init(struct rec *x, size_t *done, int index) {
  *x = (struct rec){.done = done, .index = index};
}

static void queue_get(keep_async *a, struct rec *x) {
  char key[16];
  int kl = snprintf(key, sizeof key, "k%d", x->index);
  ck_assert_int_eq(keep_async_get(a, key, (size_t)kl, on_done, x), 0);
}

static void queue_incr(keep_async *a, struct rec *x) {
  char key[16];
  int kl = snprintf(key, sizeof key, "k%d", x->index);
  ck_assert_int_eq(keep_async_incr(a, key, (size_t)kl, 1, 0, on_done, x), 0);
}

// The answers blob_answer() gives, as the callback must see them.
static void assert_get_answered(const struct rec *x) {
  char want[32];
  snprintf(want, sizeof want, "val-%d", x->index);
  ck_assert_int_eq(x->calls, 1);
  ck_assert_int_eq(x->status, 0);
  ck_assert_str_eq(x->value, want);
}

static void assert_incr_answered(const struct rec *x) {
  ck_assert_int_eq(x->calls, 1);
  ck_assert_int_eq(x->status, 0);
  ck_assert_int_eq(x->num, 1000 + x->index);
}

// A request that failed without an answer: keep_async_result says num 0 and
// no value then.
static void assert_failed(const struct rec *x, int status) {
  ck_assert_int_eq(x->calls, 1);
  ck_assert_int_eq(x->status, status);
  ck_assert_int_eq(x->num, 0);
  ck_assert(x->value_null);
  ck_assert_uint_eq(x->value_len, 0);
}

// drive_ticking is a daemon's loop: wait on keep_async_fd() for at most what
// keep_async_next_timeout_ms() allows (and at most `tick_ms` when not 0),
// then keep_async_process(), until `*done` reaches `want` or `max_ms` pass.
static bool drive_ticking(keep_async *a, const size_t *done, size_t want, unsigned max_ms,
                          unsigned tick_ms) {
  uint64_t end = now_ms() + max_ms;
  while (*done < want) {
    uint64_t t = now_ms();
    if (t >= end)
      return false;
    int wait = keep_async_next_timeout_ms(a);
    int left = (int)(end - t);
    if (wait < 0 || wait > left)
      wait = left;
    if (tick_ms > 0 && wait > (int)tick_ms)
      wait = (int)tick_ms;
    struct pollfd pfd = {.fd = keep_async_fd(a), .events = POLLIN};
    int n = poll(&pfd, 1, wait);
    ck_assert(n >= 0 || errno == EINTR);
    ck_assert_int_eq(keep_async_process(a), 0);
  }
  return true;
}

// drive trusts the client's timer alone, which keeps it honest: a timer the
// client forgot to arm shows as a late completion.
static bool drive(keep_async *a, const size_t *done, size_t want, unsigned max_ms) {
  return drive_ticking(a, done, want, max_ms, 0);
}

// settle runs the loop for `ms` more, for a late second completion or a
// stray answer to show.
static void settle(keep_async *a, unsigned ms) {
  size_t never = 0;
  (void)drive(a, &never, 1, ms);
}

// wait_closed runs the loop until the peer saw the client close `want`
// connections in all, at most 2 s.
static bool wait_closed(keep_async *a, struct peer *p, int want) {
  uint64_t end = now_ms() + 2000;
  while (peer_client_closed(p) < want && now_ms() < end)
    settle(a, 5);
  return peer_client_closed(p) >= want;
}

// 1. Bytes that are not keep/1: after one bad frame the stream cannot be
// trusted to be in sync (docs/keep-protocol.md says so of the server's
// side), so keep.h has a malformed answer fail the connection and every
// request on it with KEEP_ERR_PROTOCOL, and the next request reconnect.
// Connection n gets two requests, answers the first, then sends bad bytes
// variant n; from connection NUM_BAD_VARIANTS on it behaves. The answer
// before the bad bytes must still count, and the bad frames carry the
// second request's id where they have one, so a client that took one for
// its answer would show.

enum { NUM_BAD_VARIANTS = 8 };

static void script_not_keep1(struct pconn *pc, int n) {
  if (n >= NUM_BAD_VARIANTS) {
    serve(pc);
    return;
  }
  struct req r[2];
  if (!pc_take(pc, r, 2))
    return;
  struct blob b = {0};
  blob_answer(&b, &r[0]);
  switch (n) {
  case 0: // someone else's protocol
    blob_raw(&b, "HTTP/1.1 400 Bad Request\r\n\r\n", 28);
    break;
  case 1: // an OK whose body is shorter than its fields
    blob_header(&b, 3, KEEP_PROTO_VERSION, KEEP_OP_OK, 0, r[1].id);
    blob_raw(&b, "abc", 3);
    break;
  case 2: { // a request opcode, which a server never sends
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_SET, r[1].id);
    f.key = (const uint8_t *)"k1";
    f.key_len = 2;
    f.value = (const uint8_t *)"v";
    f.value_len = 1;
    blob_frame(&b, &f);
    break;
  }
  case 3: // an opcode keep/1 does not have
    blob_header(&b, 0, KEEP_PROTO_VERSION, 0x99, 0, r[1].id);
    break;
  case 4: // a later protocol version
    blob_header(&b, 12, KEEP_PROTO_VERSION + 1, KEEP_OP_OK, 0, r[1].id);
    blob_raw(&b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    break;
  case 5: // a flag keep/1 does not define
    blob_header(&b, 12, KEEP_PROTO_VERSION, KEEP_OP_OK, 0x0002, r[1].id);
    blob_raw(&b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    break;
  case 6: { // a well-formed VIEW, the answer to CLUSTER, which this client never sends
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_VIEW, r[1].id);
    f.num = 1;
    blob_frame(&b, &f);
    break;
  }
  case 7: { // a well-formed ENTRY, which only members pulling a handoff get
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_ENTRY, r[1].id);
    f.key = (const uint8_t *)"k1";
    f.key_len = 2;
    f.num2 = 1;
    blob_frame(&b, &f);
    break;
  }
  }
  (void)blob_send(pc->fd, &b);
  (void)pc_wait_close(pc, 3000);
}

START_TEST(bytes_that_are_not_keep1_fail_the_connection) {
  struct peer p;
  peer_start(&p, script_not_keep1, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec recs[2 * NUM_BAD_VARIANTS];
  for (int v = 0; v < NUM_BAD_VARIANTS; v++) {
    struct rec *get = &recs[2 * v], *incr = &recs[2 * v + 1];
    rec_init(get, &done, 2 * v);
    rec_init(incr, &done, 2 * v + 1);
    queue_get(a, get);
    queue_incr(a, incr);
    ck_assert_uint_eq(keep_async_pending(a), 2);
    uint64_t t0 = now_ms();
    ck_assert_msg(drive(a, &done, 2 * (size_t)v + 2, 3000),
                  "variant %d: not all completed within 3 s", v);
    settle(a, 20);
    ck_assert_msg(incr->calls == 1 && incr->status == KEEP_ERR_PROTOCOL,
                  "variant %d: %d calls, status %d", v, incr->calls, incr->status);
    assert_get_answered(get);
    assert_failed(incr, KEEP_ERR_PROTOCOL);
    ck_assert_uint_lt(incr->at_ms - t0, 1500); // the bytes failed it, not the timeout
    ck_assert_uint_eq(keep_async_pending(a), 0);
    ck_assert_msg(wait_closed(a, &p, v + 1), "variant %d: connection left open", v);
  }
  // A peer that behaves again is used again.
  struct rec after;
  rec_init(&after, &done, 100);
  queue_get(a, &after);
  ck_assert(drive(a, &done, 2 * NUM_BAD_VARIANTS + 1, 3000));
  assert_get_answered(&after);
  ck_assert_int_eq(peer_accepted(&p), NUM_BAD_VARIANTS + 1);
  keep_async_free(a);
  ck_assert_uint_eq(done, 2 * NUM_BAD_VARIANTS + 1); // nothing completed twice at teardown
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 2. A length field over KEEP_MAX_BODY: the protocol says a receiver
// refuses it from the header, before the body, so that a hostile or broken
// peer cannot make the client buffer (or allocate for) 4 GiB. Connection 0
// sends a whole header announcing KEEP_MAX_BODY + 1 bytes, connection 1
// only the 4 length bytes of 0xffffffff, and then both stay silent: only a
// client that judged the header fails the request at once, with
// KEEP_ERR_PROTOCOL, rather than at the I/O timeout. Connection 2 answers
// with the largest value keep/1 carries, which must still be accepted.

static void script_too_large(struct pconn *pc, int n) {
  struct req r;
  if (n >= 3) {
    serve(pc);
    return;
  }
  if (!pc_next(pc, &r, 2000))
    return;
  struct blob b = {0};
  if (n == 0) {
    blob_header(&b, KEEP_MAX_BODY + 1, KEEP_PROTO_VERSION, KEEP_OP_OK, 0, r.id);
  } else if (n == 1) {
    blob_raw(&b, "\xff\xff\xff\xff", 4);
  } else {
    uint8_t *v = malloc(KEEP_MAX_VALUE_LEN);
    peer_require(v != NULL);
    for (size_t j = 0; j < KEEP_MAX_VALUE_LEN; j++)
      v[j] = pattern(r.index, j);
    blob_ok(&b, r.id, 0, v, KEEP_MAX_VALUE_LEN);
    free(v);
    (void)blob_send(pc->fd, &b);
    serve(pc);
    return;
  }
  (void)blob_send(pc->fd, &b);
  (void)pc_wait_close(pc, 6000);
}

START_TEST(a_length_over_the_limit_fails_at_the_header) {
  struct peer p;
  peer_start(&p, script_too_large, 0);
  keep_async *a = client_for(&p, 5000);
  size_t done = 0;
  struct rec recs[3];
  for (int v = 0; v < 2; v++) {
    rec_init(&recs[v], &done, v);
    uint64_t t0 = now_ms();
    queue_get(a, &recs[v]);
    ck_assert_msg(drive(a, &done, (size_t)v + 1, 4000), "variant %d: not completed within 4 s", v);
    assert_failed(&recs[v], KEEP_ERR_PROTOCOL);
    ck_assert_msg(recs[v].at_ms - t0 < 1000, "variant %d: failed only after %llu ms", v,
                  (unsigned long long)(recs[v].at_ms - t0));
    ck_assert_msg(wait_closed(a, &p, v + 1), "variant %d: connection left open", v);
  }
  rec_init(&recs[2], &done, 2);
  queue_get(a, &recs[2]);
  ck_assert(drive(a, &done, 3, 4000));
  ck_assert_int_eq(recs[2].calls, 1);
  ck_assert_int_eq(recs[2].status, 0);
  ck_assert_uint_eq(recs[2].value_len, KEEP_MAX_VALUE_LEN);
  ck_assert(recs[2].big_ok);
  settle(a, 20);
  ck_assert_uint_eq(done, 3);
  ck_assert_int_eq(peer_accepted(&p), 3);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 3. Answers with an id that no request has: one never used, one of a
// request already answered (a duplicate). The blocking client skips such
// answers, and so does async.c (a late answer for a connection that was
// replaced is the case it names); they must neither complete a request a
// second time nor fail the connection, which keeps serving.

static void script_unknown_ids(struct pconn *pc, int n) {
  struct req r[2];
  if (n > 0 || !pc_take(pc, r, 2)) {
    serve(pc);
    return;
  }
  struct blob b = {0};
  blob_ok(&b, (uint64_t)1 << 40, 666, NULL, 0);
  blob_answer(&b, &r[0]);
  blob_ok(&b, r[0].id, 999, NULL, 0); // the same id again
  keep_frame nf;
  keep_frame_init(&nf, KEEP_OP_NOT_FOUND, ((uint64_t)1 << 40) + 1);
  blob_frame(&b, &nf);
  blob_answer(&b, &r[1]);
  (void)blob_send(pc->fd, &b);
  serve(pc);
}

START_TEST(answers_with_unknown_ids_are_skipped) {
  struct peer p;
  peer_start(&p, script_unknown_ids, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec recs[3];
  rec_init(&recs[0], &done, 0);
  rec_init(&recs[1], &done, 1);
  queue_incr(a, &recs[0]);
  queue_incr(a, &recs[1]);
  ck_assert(drive(a, &done, 2, 3000));
  settle(a, 50);
  assert_incr_answered(&recs[0]);
  assert_incr_answered(&recs[1]);
  ck_assert_uint_eq(done, 2);
  // The same connection goes on.
  rec_init(&recs[2], &done, 2);
  queue_get(a, &recs[2]);
  ck_assert(drive(a, &done, 3, 3000));
  assert_get_answered(&recs[2]);
  ck_assert_int_eq(peer_accepted(&p), 1);
  ck_assert_int_eq(peer_client_closed(&p), 0);
  ck_assert_uint_eq(keep_async_connections(a), 1);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 4. The peer closes with requests pending, in the middle of an answer
// (keepd killed while writing): the answers before the close count, the
// rest complete with KEEP_ERR_CLOSED (keep.h), none twice; a caller that
// retries from inside the failure callback (allowed: "a callback may
// queue new requests") is served on a new connection.

static void script_close_mid_answer(struct pconn *pc, int n) {
  struct req r[4];
  if (n > 0 || !pc_take(pc, r, 4)) {
    serve(pc);
    return;
  }
  struct blob b = {0}, third = {0};
  blob_answer(&b, &r[0]);
  blob_answer(&b, &r[1]);
  blob_answer(&third, &r[2]);
  blob_raw(&b, third.p, 7);
  free(third.p);
  (void)blob_send(pc->fd, &b);
  shutdown(pc->fd, SHUT_WR); // everything the client sent was read: a FIN, not a reset
  (void)pc_wait_close(pc, 3000);
}

START_TEST(a_close_with_requests_pending_fails_them_and_reconnects) {
  struct peer p;
  peer_start(&p, script_close_mid_answer, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec recs[4], retry;
  for (int i = 0; i < 4; i++) {
    rec_init(&recs[i], &done, i);
    if (i % 2 == 0)
      queue_get(a, &recs[i]);
    else
      queue_incr(a, &recs[i]);
  }
  rec_init(&retry, &done, 9);
  recs[3].retry_on = a;
  recs[3].retry = &retry;
  ck_assert(drive(a, &done, 5, 3000));
  settle(a, 50);
  assert_get_answered(&recs[0]);
  assert_incr_answered(&recs[1]);
  assert_failed(&recs[2], KEEP_ERR_CLOSED);
  assert_failed(&recs[3], KEEP_ERR_CLOSED);
  ck_assert_int_eq(recs[3].retry_rc, 0);
  assert_get_answered(&retry);
  ck_assert_uint_eq(done, 5);
  ck_assert_int_eq(peer_accepted(&p), 2);
  ck_assert_uint_eq(keep_async_pending(a), 0);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 4b. The peer closes as soon as it accepts, before reading anything (a
// keepd that dies at once, or a full listener): a FIN or a reset,
// depending on timing, so KEEP_ERR_CLOSED or -ECONNRESET (keep.h: "or
// -errno"); then the next request reconnects.

static void script_close_at_once(struct pconn *pc, int n) {
  if (n > 0)
    serve(pc);
}

START_TEST(a_close_before_reading_fails_and_reconnects) {
  struct peer p;
  peer_start(&p, script_close_at_once, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec recs[2];
  rec_init(&recs[0], &done, 0);
  queue_get(a, &recs[0]);
  ck_assert(drive(a, &done, 1, 3000));
  ck_assert_int_eq(recs[0].calls, 1);
  ck_assert_msg(recs[0].status == KEEP_ERR_CLOSED || recs[0].status == -ECONNRESET, "status %d",
                recs[0].status);
  ck_assert_int_eq(recs[0].num, 0);
  rec_init(&recs[1], &done, 1);
  queue_get(a, &recs[1]);
  ck_assert(drive(a, &done, 2, 3000));
  assert_get_answered(&recs[1]);
  settle(a, 20);
  ck_assert_uint_eq(done, 2);
  ck_assert_int_eq(peer_accepted(&p), 2);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 4c. An ERROR answer with code 1 to 3 (bad frame, unknown operation, too
// large): keepd answers nothing after it and closes (docs/keep-protocol.md),
// so the request it names fails with the error's status, the client closes
// its side at once instead of waiting for the server's close or the I/O
// timeout, and the requests behind it complete with KEEP_ERR_CLOSED, as
// keep.h says of the blocking client. An ERROR with another code (the
// memory cap) keeps the connection.

static void script_refusals(struct pconn *pc, int n) {
  struct req r[3];
  if (n > 0 || !pc_take(pc, r, 3)) {
    serve(pc);
    return;
  }
  struct blob b = {0};
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_ERROR, r[0].id);
  f.num = KEEP_CODE_OUT_OF_MEMORY;
  f.text = (const uint8_t *)"memory cap";
  f.text_len = 10;
  blob_frame(&b, &f);
  keep_frame_init(&f, KEEP_OP_ERROR, r[1].id);
  f.num = KEEP_CODE_TOO_LARGE;
  f.text = (const uint8_t *)"value too large";
  f.text_len = 15;
  blob_frame(&b, &f);
  (void)blob_send(pc->fd, &b);
  (void)pc_wait_close(pc, 5000); // unlike keepd, leave the closing to the client
}

START_TEST(a_refused_frame_closes_the_connection) {
  struct peer p;
  peer_start(&p, script_refusals, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec recs[4];
  for (int i = 0; i < 3; i++) {
    rec_init(&recs[i], &done, i);
    queue_incr(a, &recs[i]);
  }
  uint64_t t0 = now_ms();
  ck_assert(drive(a, &done, 3, 3000));
  settle(a, 20);
  ck_assert_int_eq(recs[0].calls, 1);
  ck_assert_int_eq(recs[0].status, KEEP_ERR_OUT_OF_MEMORY);
  ck_assert_int_eq(recs[1].calls, 1);
  ck_assert_int_eq(recs[1].status, KEEP_ERR_TOO_LARGE);
  assert_failed(&recs[2], KEEP_ERR_CLOSED);
  ck_assert_uint_lt(recs[2].at_ms - t0, 1500);
  ck_assert(wait_closed(a, &p, 1));
  rec_init(&recs[3], &done, 3);
  queue_get(a, &recs[3]);
  ck_assert(drive(a, &done, 4, 3000));
  assert_get_answered(&recs[3]);
  ck_assert_int_eq(peer_accepted(&p), 2);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 5. A silent peer (a stopped or wedged keepd): the client must not wait
// forever. Every request on the connection completes with KEEP_ERR_TIMEOUT
// once io_timeout_ms has passed since it was sent, not earlier (a
// premature timeout closes healthy connections) and not much later, the
// connection is closed (a late answer could be taken for another's), and
// the next request reconnects. Connection 0 answers nothing, not even the
// client's own PING; connection 1 behaves.

enum { SILENT_IO_MS = 300 };

static void script_silent(struct pconn *pc, int n) {
  if (n > 0) {
    serve(pc);
    return;
  }
  pc->answer_pings = false;
  (void)pc_wait_close(pc, 5000);
}

START_TEST(a_silent_peer_times_out) {
  struct peer p;
  peer_start(&p, script_silent, 0);
  keep_async *a = client_for(&p, SILENT_IO_MS);
  size_t done = 0;
  struct rec recs[3];
  rec_init(&recs[0], &done, 0);
  rec_init(&recs[1], &done, 1);
  uint64_t t0 = now_ms();
  queue_get(a, &recs[0]);
  queue_incr(a, &recs[1]);
  // Once connected, the timer the loop waits for is the I/O timeout.
  for (uint64_t end = now_ms() + 150; keep_async_connections(a) == 0 && now_ms() < end;)
    settle(a, 5);
  ck_assert_uint_eq(keep_async_connections(a), 1);
  int armed = keep_async_next_timeout_ms(a);
  ck_assert_msg(armed > SILENT_IO_MS - 200 && armed <= SILENT_IO_MS, "timer armed for %d ms",
                armed);
  // Woken every 10 ms whatever the timer says, so that a timeout that fires
  // early is seen early.
  ck_assert(drive_ticking(a, &done, 2, 3000, 10));
  settle(a, 20);
  for (int i = 0; i < 2; i++) {
    assert_failed(&recs[i], KEEP_ERR_TIMEOUT);
    uint64_t took = recs[i].at_ms - t0;
    ck_assert_msg(took >= SILENT_IO_MS && took < SILENT_IO_MS + 1000, "timed out after %llu ms",
                  (unsigned long long)took);
  }
  ck_assert(wait_closed(a, &p, 1));
  rec_init(&recs[2], &done, 2);
  queue_get(a, &recs[2]);
  ck_assert(drive(a, &done, 3, 3000));
  assert_get_answered(&recs[2]);
  ck_assert_int_eq(peer_accepted(&p), 2);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 5b. A peer that answers a byte every 100 ms (a starved keepd, a
// congested path): progress must not extend the wait, or a trickle keeps a
// request pending forever. io_timeout_ms bounds the wait for the answer.

enum { TRICKLE_IO_MS = 400 };

static void script_trickle(struct pconn *pc, int n) {
  struct req r;
  if (n > 0 || !pc_next(pc, &r, 2000)) {
    serve(pc);
    return;
  }
  struct blob b = {0};
  blob_answer(&b, &r);
  for (size_t i = 0; i < b.len && !pc_done(pc); i++) {
    if (!send_all(pc->fd, b.p + i, 1))
      break;
    usleep(100000);
  }
  free(b.p);
  (void)pc_wait_close(pc, 3000);
}

START_TEST(a_trickling_answer_times_out) {
  struct peer p;
  peer_start(&p, script_trickle, 0);
  keep_async *a = client_for(&p, TRICKLE_IO_MS);
  size_t done = 0;
  struct rec x;
  rec_init(&x, &done, 0);
  uint64_t t0 = now_ms();
  queue_get(a, &x);
  ck_assert(drive(a, &done, 1, 3000));
  settle(a, 20);
  assert_failed(&x, KEEP_ERR_TIMEOUT);
  uint64_t took = x.at_ms - t0;
  ck_assert_msg(took >= TRICKLE_IO_MS && took < TRICKLE_IO_MS + 1000, "timed out after %llu ms",
                (unsigned long long)took);
  ck_assert(wait_closed(a, &p, 1));
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 6. A pipeline answered out of order (keepd's shards answer as they
// finish) and delivered one byte per segment: the client must reassemble
// frames across reads and match each answer to its request by id, so every
// callback gets its own answer, once.

enum { NUM_PIPELINED = 40 };

static void script_shuffled(struct pconn *pc, int n) {
  struct req r[NUM_PIPELINED];
  if (n > 0 || !pc_take(pc, r, NUM_PIPELINED)) {
    serve(pc);
    return;
  }
  struct blob b = {0};
  for (int i = 0; i < NUM_PIPELINED; i++)
    blob_answer(&b, &r[(i * 17 + 5) % NUM_PIPELINED]); // 17 is prime to 40: a permutation
  (void)blob_send_bytewise(pc->fd, &b, 20);
  serve(pc);
}

START_TEST(pipelined_answers_out_of_order_in_pieces) {
  struct peer p;
  peer_start(&p, script_shuffled, 0);
  keep_async *a = client_for(&p, 5000);
  size_t done = 0;
  static struct rec recs[NUM_PIPELINED];
  for (int i = 0; i < NUM_PIPELINED; i++) {
    rec_init(&recs[i], &done, i);
    if (i % 2 == 0)
      queue_get(a, &recs[i]);
    else
      queue_incr(a, &recs[i]);
  }
  ck_assert(drive(a, &done, NUM_PIPELINED, 5000));
  settle(a, 50);
  ck_assert_uint_eq(done, NUM_PIPELINED);
  for (int i = 0; i < NUM_PIPELINED; i++) {
    if (i % 2 == 0)
      assert_get_answered(&recs[i]);
    else
      assert_incr_answered(&recs[i]);
  }
  ck_assert_int_eq(peer_accepted(&p), 1);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 7. Requests larger than the socket buffers, to a peer that starts
// reading late and has a small receive buffer: the writes are partial and
// must resume where they stopped when the socket is writable again, or the
// peer sees corrupt frames. Every byte of every value is checked by the
// peer.

enum { NUM_BIG = 8 };

static void script_slow_reader(struct pconn *pc, int n) {
  struct req r[NUM_BIG];
  if (n > 0) {
    serve(pc);
    return;
  }
  for (int i = 0; i < 20 && !pc_done(pc); i++)
    usleep(10000); // the client's writes fill the buffers meanwhile
  if (!pc_take(pc, r, NUM_BIG)) {
    atomic_fetch_add(&pc->p->faults, 1);
    return;
  }
  struct blob b = {0};
  for (int i = 0; i < NUM_BIG; i++) {
    if (r[i].op != KEEP_OP_SET || r[i].value_len != KEEP_MAX_VALUE_LEN || !r[i].value_ok)
      atomic_fetch_add(&pc->p->faults, 1);
    blob_answer(&b, &r[i]);
  }
  (void)blob_send(pc->fd, &b);
  serve(pc);
}

START_TEST(large_requests_survive_partial_writes) {
  struct peer p;
  peer_start(&p, script_slow_reader, 65536);
  keep_async *a = client_for(&p, 5000);
  size_t done = 0;
  struct rec recs[NUM_BIG];
  uint8_t *v = malloc(KEEP_MAX_VALUE_LEN);
  ck_assert_ptr_nonnull(v);
  for (int i = 0; i < NUM_BIG; i++) {
    rec_init(&recs[i], &done, i);
    for (size_t j = 0; j < KEEP_MAX_VALUE_LEN; j++)
      v[j] = pattern(i, j);
    char key[16];
    int kl = snprintf(key, sizeof key, "k%d", i);
    ck_assert_int_eq(
        keep_async_set(a, key, (size_t)kl, v, KEEP_MAX_VALUE_LEN, 0, on_done, &recs[i]), 0);
  }
  free(v);
  ck_assert(drive(a, &done, NUM_BIG, 8000));
  settle(a, 20);
  for (int i = 0; i < NUM_BIG; i++)
    assert_incr_answered(&recs[i]); // OK with num 1000 + i, as for any non-GET
  ck_assert_uint_eq(done, NUM_BIG);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// The client's timers and its failure paths around connecting, retrying and
// subscribing.

static void script_serve(struct pconn *pc, int n) {
  (void)n;
  serve(pc);
}

// flag_wait waits up to `ms` for `*flag` to be set; false if it was not.
static bool flag_wait(atomic_int *flag, unsigned ms) {
  uint64_t end = now_ms() + ms;
  while (atomic_load(flag) == 0) {
    if (now_ms() >= end)
      return false;
    usleep(1000);
  }
  return true;
}

static keep_async *client_new(const char *const *members, size_t num_members, const uint16_t *ids,
                              uint32_t connect_timeout_ms, uint32_t io_timeout_ms,
                              const keep_async_options *opt) {
  keep_settings s = {.members = members,
                     .num_members = num_members,
                     .member_ids = ids,
                     .connect_timeout_ms = connect_timeout_ms,
                     .io_timeout_ms = io_timeout_ms};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, opt), 0);
  ck_assert_ptr_nonnull(a);
  return a;
}

// evlog records what keep_async_options.on_event received.
enum { EVLOG_MAX = 16 };

struct evlog {
  size_t *done; // counted up per call when set, for drive()
  int n;        // calls, including those past EVLOG_MAX
  struct {
    int status, kind;
    uint64_t seq, missed;
    size_t payload_len;
    uint64_t at_ms;
  } e[EVLOG_MAX];
};

static void on_event_log(void *user, int status, const keep_event *ev) {
  struct evlog *log = user;
  if (log->n < EVLOG_MAX) {
    log->e[log->n].status = status;
    log->e[log->n].kind = ev->kind;
    log->e[log->n].seq = ev->seq;
    log->e[log->n].missed = ev->missed;
    log->e[log->n].payload_len = ev->payload_len;
    log->e[log->n].at_ms = now_ms();
  }
  log->n++;
  if (log->done != NULL)
    (*log->done)++;
}

static keep_async_options events_to(struct evlog *log) {
  keep_async_options opt = KEEP_ASYNC_OPTIONS_INIT;
  opt.on_event = on_event_log;
  opt.event_user = log;
  return opt;
}

// fds_exhaust lowers this process's descriptor limit to 1 (not 0: poll()
// refuses more descriptors than the limit) with descriptor 0 open, so that
// every new descriptor fails with EMFILE (a daemon out of descriptors)
// while those already open keep working, even after others are closed.
static struct rlimit fds_exhaust(void) {
  struct rlimit saved;
  ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
  ck_assert(fcntl(0, F_GETFD) >= 0 || open("/dev/null", O_RDONLY | O_CLOEXEC) == 0);
  struct rlimit low = {.rlim_cur = 1, .rlim_max = saved.rlim_max};
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
  return saved;
}

static void fds_restore(const struct rlimit *saved) {
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, saved), 0);
}

// A listener whose accept queue is full and never drained: Linux drops the
// SYNs of further connections, so a connect to it stays in progress until
// the client gives up, the loopback stand-in for a host gone from the
// network.
enum { BLACKHOLE_FILL = 4 };

struct blackhole {
  int lfd;
  int fill[BLACKHOLE_FILL];
  char member[32];
};

static void blackhole_start(struct blackhole *b) {
  b->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(b->lfd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(b->lfd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(b->lfd, 0), 0);
  ck_assert_int_eq(getsockname(b->lfd, (struct sockaddr *)&a, &len), 0);
  snprintf(b->member, sizeof b->member, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
  for (int i = 0; i < BLACKHOLE_FILL; i++) {
    b->fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(b->fill[i], 0);
    int rc = connect(b->fill[i], (struct sockaddr *)&a, sizeof a);
    ck_assert(rc == 0 || errno == EINPROGRESS);
  }
  // The premise of the cases that use it: the last connect hangs.
  struct pollfd pfd = {.fd = b->fill[BLACKHOLE_FILL - 1], .events = POLLOUT};
  ck_assert_msg(poll(&pfd, 1, 100) == 0, "the full listener completed a connect");
}

static void blackhole_stop(struct blackhole *b) {
  for (int i = 0; i < BLACKHOLE_FILL; i++)
    close(b->fill[i]);
  close(b->lfd);
}

// 8. A member that never completes the TCP handshake: the connect must not
// wait past connect_timeout_ms. The requests queued behind it fail with
// KEEP_ERR_TIMEOUT once the connect deadline passes (the I/O timeout is far
// longer here), the timer the loop is given is that deadline, and without
// cluster ids the client moves on to the next member of the list (keep.h:
// "one connection to the first member that accepts"), so the next request
// is served there.

enum { CONNECT_MS = 200 };

START_TEST(a_connect_that_hangs_times_out_and_fails_over) {
  struct blackhole bh;
  blackhole_start(&bh);
  struct peer p;
  peer_start(&p, script_serve, 0);
  const char *members[] = {bh.member, p.member};
  keep_async *a = client_new(members, 2, NULL, CONNECT_MS, 5000, NULL);
  size_t done = 0;
  struct rec recs[3];
  for (int i = 0; i < 3; i++)
    rec_init(&recs[i], &done, i);
  uint64_t t0 = now_ms();
  queue_get(a, &recs[0]);
  queue_incr(a, &recs[1]);
  int armed = keep_async_next_timeout_ms(a);
  ck_assert_msg(armed > CONNECT_MS - 100 && armed <= CONNECT_MS, "timer armed for %d ms", armed);
  ck_assert(drive_ticking(a, &done, 2, 3000, 10));
  settle(a, 20);
  for (int i = 0; i < 2; i++) {
    assert_failed(&recs[i], KEEP_ERR_TIMEOUT);
    uint64_t took = recs[i].at_ms - t0;
    ck_assert_msg(took >= CONNECT_MS && took < CONNECT_MS + 1000, "timed out after %llu ms",
                  (unsigned long long)took);
  }
  ck_assert_uint_eq(keep_async_connections(a), 0);
  ck_assert_uint_eq(keep_async_pending(a), 0);
  ck_assert_int_eq(keep_async_next_timeout_ms(a), -1);
  ck_assert_int_eq(peer_accepted(&p), 0);
  queue_get(a, &recs[2]);
  ck_assert(drive(a, &done, 3, 3000));
  assert_get_answered(&recs[2]);
  ck_assert_int_eq(peer_accepted(&p), 1);
  keep_async_free(a);
  ck_assert_uint_eq(done, 3);
  peer_stop(&p);
  blackhole_stop(&bh);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 9. BUSY answers put a request on the retry timer (1, 2, 4, 8 and 16 ms,
// as the blocking client), off its connection. Connection 0 answers the
// first five copies of "k0" BUSY and closes after the fifth (keepd
// restarting), in one go while the client is not reading, so that one
// keep_async_process() call sees both, 16 ms before the last retry is due.
// Then: (a) the retry outlives the connection and reconnects, getting its
// own answer once, no sooner than the pauses add up to; (b) a reconnect
// that cannot even make a socket (out of descriptors) fails the request
// with that error, once, and the next request connects; (c)
// keep_async_free() with the retry pending completes it with -ECANCELED.

enum { BUSY_COPIES = 5, BUSY_PAUSES_MS = 1 + 2 + 4 + 8 };

static void script_busy_then_close(struct pconn *pc, int n) {
  if (n > 0) {
    serve(pc);
    return;
  }
  for (int k = 0; k < BUSY_COPIES; k++) {
    struct req r;
    if (!pc_next(pc, &r, 2000))
      return;
    if (r.op != KEEP_OP_GET || r.index != 0)
      atomic_fetch_add(&pc->p->faults, 1);
    if (k == BUSY_COPIES - 1) {
      atomic_store(&pc->p->got, 1);
      if (!flag_wait(&pc->p->go, 3000))
        return;
    }
    struct blob b = {0};
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_BUSY, r.id);
    blob_frame(&b, &f);
    (void)blob_send(pc->fd, &b);
  }
  shutdown(pc->fd, SHUT_WR);
  atomic_store(&pc->p->sent, 1);
  (void)pc_wait_close(pc, 3000);
}

// busy_until_closed runs the client until connection 0 has answered "k0"
// BUSY for the last time and closed, then reads both in one call and checks
// that the request now waits on the retry timer alone.
static void busy_until_closed(keep_async *a, struct peer *p, const struct rec *x) {
  uint64_t end = now_ms() + 3000;
  while (atomic_load(&p->got) == 0 && now_ms() < end)
    settle(a, 2);
  ck_assert_msg(atomic_load(&p->got), "the peer never got the fifth copy");
  atomic_store(&p->go, 1);
  ck_assert(flag_wait(&p->sent, 2000));
  usleep(20000); // loopback delivers the answer and the FIN within that
  ck_assert_int_eq(keep_async_process(a), 0);
  ck_assert_int_eq(x->calls, 0);
  ck_assert_uint_eq(keep_async_pending(a), 1);
  ck_assert_uint_eq(keep_async_connections(a), 0);
  int armed = keep_async_next_timeout_ms(a);
  ck_assert_msg(armed >= 0 && armed <= 16, "retry timer armed for %d ms", armed);
}

START_TEST(a_busy_retry_outlives_its_connection) {
  struct peer p;
  peer_start(&p, script_busy_then_close, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec x;
  rec_init(&x, &done, 0);
  uint64_t t0 = now_ms();
  queue_get(a, &x);
  busy_until_closed(a, &p, &x);
  ck_assert(drive(a, &done, 1, 3000));
  settle(a, 20);
  assert_get_answered(&x);
  ck_assert_msg(x.at_ms - t0 >= BUSY_PAUSES_MS + 16, "answered after %llu ms",
                (unsigned long long)(x.at_ms - t0));
  ck_assert_int_eq(peer_accepted(&p), 2);
  ck_assert_int_eq(peer_client_closed(&p), 1);
  keep_async_free(a);
  ck_assert_uint_eq(done, 1);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

START_TEST(a_busy_retry_that_cannot_reconnect_fails_once) {
  struct peer p;
  peer_start(&p, script_busy_then_close, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec x, next;
  rec_init(&x, &done, 0);
  rec_init(&next, &done, 1);
  queue_get(a, &x);
  busy_until_closed(a, &p, &x);
  struct rlimit saved = fds_exhaust();
  bool completed = drive(a, &done, 1, 3000);
  settle(a, 20);
  fds_restore(&saved);
  ck_assert(completed);
  assert_failed(&x, -EMFILE);
  ck_assert_uint_eq(keep_async_pending(a), 0);
  ck_assert_int_eq(peer_accepted(&p), 1);
  queue_get(a, &next);
  ck_assert(drive(a, &done, 2, 3000));
  assert_get_answered(&next);
  ck_assert_int_eq(peer_accepted(&p), 2);
  keep_async_free(a);
  ck_assert_uint_eq(done, 2);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

START_TEST(freeing_with_a_retry_pending_cancels_it) {
  struct peer p;
  peer_start(&p, script_busy_then_close, 0);
  keep_async *a = client_for(&p, 3000);
  size_t done = 0;
  struct rec x;
  rec_init(&x, &done, 0);
  queue_get(a, &x);
  busy_until_closed(a, &p, &x);
  keep_async_free(a);
  assert_failed(&x, -ECANCELED);
  ck_assert_uint_eq(done, 1);
  ck_assert_int_eq(peer_accepted(&p), 1);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 10. No descriptor left for a connection: keep.h makes the queuing call
// return the error ("a connection error when no member accepts a
// connection attempt at all"), queue nothing and never run the callback,
// with and without cluster ids (in cluster mode every member is tried, and
// each marked down). With descriptors again the next request connects; in
// cluster mode, with every member marked down, the client tries them all
// rather than refusing.

START_TEST(no_descriptor_for_a_connection_fails_at_queuing) {
  struct peer p, q;
  peer_start(&p, script_serve, 0);
  peer_start(&q, script_serve, 0);
  const char *one[] = {p.member};
  const char *two[] = {p.member, q.member};
  static const uint16_t ids[] = {1, 2};
  keep_async *single = client_new(one, 1, NULL, 0, 3000, NULL);
  keep_async *cluster = client_new(two, 2, ids, 0, 3000, NULL);
  size_t done = 0;
  struct rec recs[4];
  for (int i = 0; i < 4; i++)
    rec_init(&recs[i], &done, i);
  struct rlimit saved = fds_exhaust();
  int single_rc = keep_async_get(single, "k0", 2, on_done, &recs[0]);
  int cluster_rc = keep_async_get(cluster, "k1", 2, on_done, &recs[1]);
  fds_restore(&saved);
  ck_assert_int_eq(single_rc, -EMFILE);
  ck_assert_int_eq(cluster_rc, -EMFILE);
  settle(single, 20);
  settle(cluster, 20);
  ck_assert_uint_eq(done, 0);
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(recs[i].calls, 0);
  ck_assert_uint_eq(keep_async_pending(single), 0);
  ck_assert_uint_eq(keep_async_pending(cluster), 0);
  ck_assert_int_eq(keep_async_next_timeout_ms(single), -1);
  ck_assert_int_eq(keep_async_next_timeout_ms(cluster), -1);
  queue_get(single, &recs[2]);
  queue_get(cluster, &recs[3]);
  ck_assert(drive(single, &done, 1, 3000));
  ck_assert(drive(cluster, &done, 2, 3000));
  assert_get_answered(&recs[2]);
  assert_get_answered(&recs[3]);
  ck_assert_int_eq(peer_accepted(&p) + peer_accepted(&q), 2);
  keep_async_free(single);
  keep_async_free(cluster);
  ck_assert_uint_eq(done, 2);
  peer_stop(&p);
  peer_stop(&q);
  ck_assert_int_eq(peer_faults(&p) + peer_faults(&q), 0);
}
END_TEST

// 11. Subscription checks. In cluster mode the client sends SUBSCRIBE
// again every 500 ms on a live subscription's connection, to find out
// whether its member still owns the topic (keep.h, keep_async_event_cb).
// A check answered BUSY (the member cannot confirm it) interrupts the
// subscription: the caller hears KEEP_ERR_BUSY once, the check is tried
// again after the renewal pause (100 ms), and its OK is announced with
// KEEP_EVENT_RESUBSCRIBED; later checks that succeed say nothing. With one
// member and no cluster ids there is no other owner to move to: no check
// is sent, and no timer is left armed for it, so the loop can sleep.

static void script_check_busy(struct pconn *pc, int n) {
  if (n > 0) {
    serve(pc);
    return;
  }
  int subscribes = 0;
  while (!pc_done(pc)) {
    struct req r;
    if (!pc_next(pc, &r, 50))
      continue;
    struct blob b = {0};
    if (r.op == KEEP_OP_SUBSCRIBE && ++subscribes == 2) {
      keep_frame f;
      keep_frame_init(&f, KEEP_OP_BUSY, r.id);
      blob_frame(&b, &f);
    } else if (r.op == KEEP_OP_SUBSCRIBE) {
      blob_ok(&b, r.id, 3, NULL, 0);
    } else {
      blob_answer(&b, &r);
    }
    (void)blob_send(pc->fd, &b);
  }
}

START_TEST(a_failed_subscription_check_interrupts_until_confirmed) {
  struct peer p;
  peer_start(&p, script_check_busy, 0);
  size_t done = 0;
  struct evlog log = {.done = &done};
  keep_async_options opt = events_to(&log);
  const char *members[] = {p.member};
  static const uint16_t ids[] = {7};
  keep_async *a = client_new(members, 1, ids, 0, 3000, &opt);
  struct rec sub;
  rec_init(&sub, &done, -1);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &sub), 0);
  ck_assert(drive(a, &done, 1, 3000));
  ck_assert_int_eq(sub.status, 0);
  ck_assert_int_eq(sub.num, 3);
  ck_assert(drive(a, &done, 3, 3000));
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(log.e[0].status, KEEP_ERR_BUSY);
  ck_assert_int_eq(log.e[0].kind, 0);
  ck_assert_uint_eq(log.e[0].seq, 3);
  ck_assert_msg(log.e[0].at_ms - t0 >= 500, "checked after %llu ms",
                (unsigned long long)(log.e[0].at_ms - t0));
  ck_assert_int_eq(log.e[1].status, 0);
  ck_assert_int_eq(log.e[1].kind, KEEP_EVENT_RESUBSCRIBED);
  ck_assert_uint_eq(log.e[1].seq, 3);
  ck_assert_msg(log.e[1].at_ms - log.e[0].at_ms >= 90, "checked again after %llu ms",
                (unsigned long long)(log.e[1].at_ms - log.e[0].at_ms));
  // One more period: the check goes out, succeeds, and is not reported.
  settle(a, 700);
  ck_assert_int_ge(peer_subscribes(&p), 4);
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(peer_accepted(&p), 1);
  keep_async_free(a);
  ck_assert_int_eq(log.n, 3);
  ck_assert_int_eq(log.e[2].status, -ECANCELED);
  ck_assert_int_eq(sub.calls, 1);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

START_TEST(a_single_member_subscription_is_not_polled) {
  struct peer p;
  peer_start(&p, script_serve, 0);
  size_t done = 0;
  struct evlog log = {0};
  keep_async_options opt = events_to(&log);
  const char *members[] = {p.member};
  keep_async *a = client_new(members, 1, NULL, 0, 3000, &opt);
  struct rec sub;
  rec_init(&sub, &done, -1);
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &sub), 0);
  ck_assert(drive(a, &done, 1, 3000));
  ck_assert_int_eq(sub.status, 0);
  ck_assert_int_eq(sub.num, 999); // blob_answer's 1000 + index, and "t" has none
  settle(a, 800);
  ck_assert_int_eq(peer_subscribes(&p), 1);
  ck_assert_int_eq(keep_async_next_timeout_ms(a), -1);
  ck_assert_int_eq(log.n, 0);
  keep_async_free(a);
  ck_assert_int_eq(log.n, 1);
  ck_assert_int_eq(log.e[0].status, -ECANCELED);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 12. The caller unsubscribes while the client is renewing a subscription
// whose connection closed. Connection 0 answers SUBSCRIBE and closes;
// connection 1 gets the renewal and then the caller's UNSUBSCRIBE, and
// answers the renewal OK, sends an event on the topic, and answers the
// UNSUBSCRIBE. keep.h: "After keep_async_unsubscribe() nothing more is
// reported for the topic": neither the renewal (no RESUBSCRIBED), nor the
// event, nor an end at keep_async_free(). Run with an event callback and
// without one (the interruption then has nobody to tell).

static void script_sub_then_close(struct pconn *pc, int n) {
  struct req r[2];
  if (n == 0) {
    if (!pc_next(pc, &r[0], 2000))
      return;
    struct blob b = {0};
    blob_ok(&b, r[0].id, 1, NULL, 0);
    (void)blob_send(pc->fd, &b);
    shutdown(pc->fd, SHUT_WR);
    (void)pc_wait_close(pc, 3000);
    return;
  }
  if (n > 1 || !pc_take(pc, r, 2)) {
    serve(pc);
    return;
  }
  if (r[0].op != KEEP_OP_SUBSCRIBE || r[1].op != KEEP_OP_UNSUBSCRIBE)
    atomic_fetch_add(&pc->p->faults, 1);
  struct blob b = {0};
  blob_ok(&b, r[0].id, 1, NULL, 0);
  keep_frame ev;
  keep_frame_init(&ev, KEEP_OP_EVENT, 0);
  ev.key = (const uint8_t *)"t";
  ev.key_len = 1;
  ev.num = 2;
  ev.value = (const uint8_t *)"late";
  ev.value_len = 4;
  blob_frame(&b, &ev);
  blob_ok(&b, r[1].id, 0, NULL, 0);
  (void)blob_send(pc->fd, &b);
  serve(pc);
}

START_TEST(an_unsubscribe_during_renewal_ends_the_topic) {
  for (int v = 0; v < 2; v++) {
    bool with_events = v == 0;
    struct peer p;
    peer_start(&p, script_sub_then_close, 0);
    size_t done = 0;
    struct evlog log = {0};
    keep_async_options opt =
        with_events ? events_to(&log) : (keep_async_options)KEEP_ASYNC_OPTIONS_INIT;
    const char *members[] = {p.member};
    keep_async *a = client_new(members, 1, NULL, 0, 3000, &opt);
    struct rec sub, unsub;
    rec_init(&sub, &done, -1);
    rec_init(&unsub, &done, -1);
    ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &sub), 0);
    ck_assert(drive(a, &done, 1, 3000));
    ck_assert_int_eq(sub.status, 0);
    ck_assert_int_eq(sub.num, 1);
    // The close, then the renewal's connection.
    uint64_t end = now_ms() + 3000;
    while (peer_accepted(&p) < 2 && now_ms() < end)
      settle(a, 5);
    ck_assert_int_eq(peer_accepted(&p), 2);
    if (with_events) {
      ck_assert_int_eq(log.n, 1);
      ck_assert_int_eq(log.e[0].status, KEEP_ERR_CLOSED);
      ck_assert_int_eq(log.e[0].kind, 0);
      ck_assert_uint_eq(log.e[0].seq, 1);
    }
    ck_assert_int_eq(keep_async_unsubscribe(a, "t", 1, on_done, &unsub), 0);
    ck_assert_msg(drive(a, &done, 2, 3000), "variant %d: unsubscribe not answered", v);
    settle(a, 100);
    ck_assert_int_eq(unsub.calls, 1);
    ck_assert_int_eq(unsub.status, 0);
    ck_assert_int_eq(sub.calls, 1);
    ck_assert_int_eq(peer_subscribes(&p), 2);
    ck_assert_uint_eq(keep_async_pending(a), 0);
    keep_async_free(a);
    ck_assert_msg(log.n == (with_events ? 1 : 0), "variant %d: %d events", v, log.n);
    ck_assert_uint_eq(done, 2);
    peer_stop(&p);
    ck_assert_int_eq(peer_faults(&p), 0);
  }
}
END_TEST

// 13. Requests queued while earlier ones are still partly written: the
// client's output buffer then holds a written head, an unwritten rest and
// the new frames, and must make room without losing or reordering a byte.
// The peer reads nothing until the second batch is queued; the first
// batch fills the socket buffers and the output buffer's capacity, so the
// second cannot be appended without moving the unwritten rest. Every byte
// of every value is checked by the peer.

static void script_late_reader(struct pconn *pc, int n) {
  struct req r[2 * NUM_BIG];
  if (n > 0) {
    serve(pc);
    return;
  }
  if (!flag_wait(&pc->p->go, 5000) || !pc_take(pc, r, 2 * NUM_BIG)) {
    atomic_fetch_add(&pc->p->faults, 1);
    return;
  }
  struct blob b = {0};
  for (int i = 0; i < 2 * NUM_BIG; i++) {
    if (r[i].op != KEEP_OP_SET || r[i].index != i || r[i].value_len != KEEP_MAX_VALUE_LEN ||
        !r[i].value_ok)
      atomic_fetch_add(&pc->p->faults, 1);
    blob_answer(&b, &r[i]);
  }
  (void)blob_send(pc->fd, &b);
  serve(pc);
}

static void queue_big_set(keep_async *a, struct rec *x, uint8_t *v) {
  for (size_t j = 0; j < KEEP_MAX_VALUE_LEN; j++)
    v[j] = pattern(x->index, j);
  char key[16];
  int kl = snprintf(key, sizeof key, "k%d", x->index);
  ck_assert_int_eq(keep_async_set(a, key, (size_t)kl, v, KEEP_MAX_VALUE_LEN, 0, on_done, x), 0);
}

START_TEST(requests_queued_behind_a_partial_write_arrive_intact) {
  struct peer p;
  peer_start(&p, script_late_reader, 65536);
  keep_async *a = client_for(&p, 8000);
  size_t done = 0;
  struct rec recs[2 * NUM_BIG];
  uint8_t *v = malloc(KEEP_MAX_VALUE_LEN);
  ck_assert_ptr_nonnull(v);
  for (int i = 0; i < 2 * NUM_BIG; i++)
    rec_init(&recs[i], &done, i);
  for (int i = 0; i < NUM_BIG; i++)
    queue_big_set(a, &recs[i], v);
  settle(a, 100); // connects and writes until the socket buffers are full
  ck_assert_uint_eq(done, 0);
  for (int i = NUM_BIG; i < 2 * NUM_BIG; i++)
    queue_big_set(a, &recs[i], v);
  free(v);
  atomic_store(&p.go, 1);
  ck_assert(drive(a, &done, 2 * NUM_BIG, 10000));
  settle(a, 20);
  for (int i = 0; i < 2 * NUM_BIG; i++)
    assert_incr_answered(&recs[i]);
  ck_assert_uint_eq(done, 2 * NUM_BIG);
  ck_assert_int_eq(peer_accepted(&p), 1);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 14. A peer that stops reading (a wedged keepd) while large requests are
// partly written: the I/O timeout must fire although the client still has
// bytes to write, failing every request, written or not, with
// KEEP_ERR_TIMEOUT once and closing the connection; the next request
// reconnects.

enum { STUCK_IO_MS = 400 };

static void script_never_reads(struct pconn *pc, int n) {
  if (n > 0) {
    serve(pc);
    return;
  }
  for (uint64_t end = now_ms() + 5000; !atomic_load(&pc->p->stop) && now_ms() < end;)
    usleep(10000);
}

START_TEST(a_partly_written_pipeline_times_out) {
  struct peer p;
  peer_start(&p, script_never_reads, 65536);
  keep_async *a = client_for(&p, STUCK_IO_MS);
  size_t done = 0;
  struct rec recs[NUM_BIG + 1];
  uint8_t *v = malloc(KEEP_MAX_VALUE_LEN);
  ck_assert_ptr_nonnull(v);
  uint64_t t0 = now_ms();
  for (int i = 0; i < NUM_BIG; i++) {
    rec_init(&recs[i], &done, i);
    queue_big_set(a, &recs[i], v);
  }
  free(v);
  ck_assert(drive_ticking(a, &done, NUM_BIG, 3000, 10));
  settle(a, 20);
  for (int i = 0; i < NUM_BIG; i++) {
    assert_failed(&recs[i], KEEP_ERR_TIMEOUT);
    uint64_t took = recs[i].at_ms - t0;
    ck_assert_msg(took >= STUCK_IO_MS && took < STUCK_IO_MS + 1000, "timed out after %llu ms",
                  (unsigned long long)took);
  }
  ck_assert_uint_eq(keep_async_connections(a), 0);
  ck_assert_uint_eq(keep_async_pending(a), 0);
  rec_init(&recs[NUM_BIG], &done, NUM_BIG);
  queue_get(a, &recs[NUM_BIG]);
  ck_assert(drive(a, &done, NUM_BIG + 1, 3000));
  assert_get_answered(&recs[NUM_BIG]);
  ck_assert_int_eq(peer_accepted(&p), 2);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 15. keep_async_new() with a key file it cannot read: the error of
// reading it, *out NULL, and nothing leaked (under ASan).

START_TEST(an_unreadable_key_file_fails_creation) {
  keep_tls_settings tls = {.key_file = "/nonexistent/keep-async-fake/client.key"};
  const char *members[] = {"127.0.0.1:1"};
  keep_settings s = {.members = members, .num_members = 1, .tls = &tls};
  keep_async *a = (keep_async *)&s; // must be reset
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), -ENOENT);
  ck_assert_ptr_null(a);
  // Out of descriptors for its epoll instance.
  s.tls = NULL;
  a = (keep_async *)&s;
  struct rlimit saved = fds_exhaust();
  int rc = keep_async_new(&a, &s, NULL);
  fds_restore(&saved);
  ck_assert_int_eq(rc, -EMFILE);
  ck_assert_ptr_null(a);
}
END_TEST

// 16. A member with several shards: the client opens one connection per
// shard, learning from each connection's PING answer which shard holds it
// (keep.h, max_shard_conns), and sends each keyed request to the
// connection of the shard that owns its slot. A connection that lands on
// a shard that already has one is closed and another is tried, but at
// most KEEP_ASYNC_DUP_FACTOR (8) times the shard count in all, so a
// member whose connections all land on one shard costs a bounded number
// of connects, not a storm. Connection 0 is shard 0 of 2 in both runs; in
// the first, connection 1 is shard 0 again and connection 2 shard 1; in
// the second, every connection is shard 0.

static void script_shards(struct pconn *pc, int n) {
  struct peer *p = pc->p;
  while (!pc_done(pc)) {
    struct req r;
    if (!pc_next(pc, &r, 50))
      continue;
    if (r.index >= 0) {
      char key[16];
      int kl = snprintf(key, sizeof key, "k%d", r.index);
      uint32_t slot = keep_slot(NULL, key, (size_t)kl);
      int shard = (int)((uint64_t)slot * (unsigned)p->num_shards / KEEP_NUM_SLOTS);
      // The primary may get any key (keepd hands it over); a shard
      // connection only its own.
      if (n > 0 && shard != p->ping_shard[n])
        atomic_fetch_add(&p->faults, 1);
      atomic_fetch_add(&p->keyed_on[n], 1);
    }
    struct blob b = {0};
    blob_answer(&b, &r);
    (void)blob_send(pc->fd, &b);
  }
}

enum { NUM_SHARD_KEYS = 20 };

START_TEST(shard_connections_are_found_and_bounded) {
  for (int v = 0; v < 2; v++) {
    int ping_shard[PEER_MAX_CONNS] = {0};
    if (v == 0)
      ping_shard[2] = 1;
    struct peer p;
    peer_start_sharded(&p, script_shards, 0, 2, ping_shard);
    keep_async *a = client_for(&p, 3000);
    size_t done = 0;
    struct rec ping;
    rec_init(&ping, &done, -1);
    ck_assert_int_eq(keep_async_ping(a, on_done, &ping), 0);
    ck_assert(drive(a, &done, 1, 3000));
    ck_assert_int_eq(ping.status, 0);
    // Closed: the duplicate of shard 0, or every connection but the primary.
    int want_accepted = v == 0 ? 3 : 1 + 8 * 2, want_closed = v == 0 ? 1 : 8 * 2;
    uint64_t end = now_ms() + 3000;
    while ((peer_accepted(&p) < want_accepted || peer_client_closed(&p) < want_closed) &&
           now_ms() < end)
      settle(a, 5);
    settle(a, 200); // time for a connect too many
    ck_assert_msg(peer_accepted(&p) == want_accepted, "variant %d: %d connections", v,
                  peer_accepted(&p));
    ck_assert_int_eq(peer_client_closed(&p), want_closed);
    ck_assert_uint_eq(keep_async_connections(a), v == 0 ? 2 : 1);
    struct rec recs[NUM_SHARD_KEYS];
    int on_shard1 = 0;
    for (int i = 0; i < NUM_SHARD_KEYS; i++) {
      rec_init(&recs[i], &done, i);
      queue_get(a, &recs[i]);
      char key[16];
      int kl = snprintf(key, sizeof key, "k%d", i);
      on_shard1 += keep_slot(NULL, key, (size_t)kl) >= KEEP_NUM_SLOTS / 2;
    }
    ck_assert(drive(a, &done, 1 + NUM_SHARD_KEYS, 3000));
    for (int i = 0; i < NUM_SHARD_KEYS; i++)
      assert_get_answered(&recs[i]);
    ck_assert(on_shard1 > 0 && on_shard1 < NUM_SHARD_KEYS); // both shards are used
    if (v == 0) {
      ck_assert_int_eq(peer_keyed_on(&p, 2), on_shard1);
      ck_assert_int_eq(peer_keyed_on(&p, 0), NUM_SHARD_KEYS - on_shard1);
    } else {
      ck_assert_int_eq(peer_keyed_on(&p, 0), NUM_SHARD_KEYS);
    }
    keep_async_free(a);
    peer_stop(&p);
    ck_assert_int_eq(peer_faults(&p), 0);
  }
}
END_TEST

// 17. Subscribing again to a topic already followed on the same
// connection: still one subscription (one delivery per event, one end at
// keep_async_free()), counting on from the sequence number of the newer
// answer, so that the event right after it has no gap.

static void script_subscribe_twice(struct pconn *pc, int n) {
  int subscribes = 0;
  while (n == 0 && !pc_done(pc)) {
    struct req r;
    if (!pc_next(pc, &r, 50))
      continue;
    struct blob b = {0};
    if (r.op != KEEP_OP_SUBSCRIBE) {
      blob_answer(&b, &r);
    } else if (++subscribes == 1) {
      blob_ok(&b, r.id, 1, NULL, 0);
    } else {
      blob_ok(&b, r.id, 5, NULL, 0);
      keep_frame ev;
      keep_frame_init(&ev, KEEP_OP_EVENT, 0);
      ev.key = (const uint8_t *)"t";
      ev.key_len = 1;
      ev.num = 6;
      ev.value = (const uint8_t *)"x";
      ev.value_len = 1;
      blob_frame(&b, &ev);
    }
    (void)blob_send(pc->fd, &b);
  }
  serve(pc);
}

START_TEST(subscribing_twice_keeps_one_subscription) {
  struct peer p;
  peer_start(&p, script_subscribe_twice, 0);
  size_t done = 0;
  struct evlog log = {.done = &done};
  keep_async_options opt = events_to(&log);
  const char *members[] = {p.member};
  keep_async *a = client_new(members, 1, NULL, 0, 3000, &opt);
  struct rec first, second;
  rec_init(&first, &done, -1);
  rec_init(&second, &done, -1);
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &first), 0);
  ck_assert(drive(a, &done, 1, 3000));
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &second), 0);
  ck_assert(drive(a, &done, 3, 3000));
  settle(a, 50);
  ck_assert_int_eq(first.calls, 1);
  ck_assert_int_eq(first.num, 1);
  ck_assert_int_eq(second.calls, 1);
  ck_assert_int_eq(second.num, 5);
  ck_assert_int_eq(log.n, 1);
  ck_assert_int_eq(log.e[0].status, 0);
  ck_assert_int_eq(log.e[0].kind, KEEP_EVENT_MESSAGE);
  ck_assert_uint_eq(log.e[0].seq, 6);
  ck_assert_uint_eq(log.e[0].missed, 0);
  ck_assert_uint_eq(log.e[0].payload_len, 1);
  keep_async_free(a);
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(log.e[1].status, -ECANCELED);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 18. Unsubscribe and subscribe again while a renewal is in flight:
// connection 1 gets the renewal, the caller's UNSUBSCRIBE and the caller's
// new SUBSCRIBE, in that order, and tracks what a server would: subscribed,
// unsubscribed, subscribed. When the renewal's answer comes the client
// no longer follows the topic under that subscription, but must not send
// an UNSUBSCRIBE to drop it: behind the caller's new SUBSCRIBE it would
// end the new subscription. The peer publishes once the client had time
// to do so; the event must reach the caller.

static void script_resubscribe_during_renewal(struct pconn *pc, int n) {
  struct req r[3];
  if (n == 0) {
    if (!pc_next(pc, &r[0], 2000))
      return;
    struct blob b = {0};
    blob_ok(&b, r[0].id, 1, NULL, 0);
    (void)blob_send(pc->fd, &b);
    shutdown(pc->fd, SHUT_WR);
    (void)pc_wait_close(pc, 3000);
    return;
  }
  if (n > 1 || !pc_take(pc, r, 3)) {
    serve(pc);
    return;
  }
  if (r[0].op != KEEP_OP_SUBSCRIBE || r[1].op != KEEP_OP_UNSUBSCRIBE ||
      r[2].op != KEEP_OP_SUBSCRIBE)
    atomic_fetch_add(&pc->p->faults, 1);
  struct blob b = {0};
  for (int i = 0; i < 3; i++)
    blob_ok(&b, r[i].id, r[i].op == KEEP_OP_SUBSCRIBE ? 1 : 0, NULL, 0);
  (void)blob_send(pc->fd, &b);
  bool subscribed = true;
  for (uint64_t end = now_ms() + 300; now_ms() < end && !pc_done(pc);) {
    struct req more;
    if (!pc_next(pc, &more, 20))
      continue;
    if (more.op == KEEP_OP_UNSUBSCRIBE)
      subscribed = false;
    blob_answer(&b, &more);
    (void)blob_send(pc->fd, &b);
  }
  if (subscribed) {
    keep_frame ev;
    keep_frame_init(&ev, KEEP_OP_EVENT, 0);
    ev.key = (const uint8_t *)"t";
    ev.key_len = 1;
    ev.num = 2;
    ev.value = (const uint8_t *)"after";
    ev.value_len = 5;
    blob_frame(&b, &ev);
    (void)blob_send(pc->fd, &b);
  }
  serve(pc);
}

START_TEST(a_subscribe_again_during_renewal_is_kept) {
  struct peer p;
  peer_start(&p, script_resubscribe_during_renewal, 0);
  size_t done = 0;
  struct evlog log = {.done = &done};
  keep_async_options opt = events_to(&log);
  const char *members[] = {p.member};
  keep_async *a = client_new(members, 1, NULL, 0, 3000, &opt);
  struct rec sub, unsub, again;
  rec_init(&sub, &done, -1);
  rec_init(&unsub, &done, -1);
  rec_init(&again, &done, -1);
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &sub), 0);
  ck_assert(drive(a, &done, 2, 3000)); // its answer, then the interruption
  ck_assert_int_eq(log.n, 1);
  ck_assert_int_eq(log.e[0].status, KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_async_unsubscribe(a, "t", 1, on_done, &unsub), 0);
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &again), 0);
  ck_assert_msg(drive(a, &done, 5, 3000), "%zu completions and events, %d events", done, log.n);
  settle(a, 50);
  ck_assert_int_eq(unsub.calls, 1);
  ck_assert_int_eq(unsub.status, 0);
  ck_assert_int_eq(again.calls, 1);
  ck_assert_int_eq(again.status, 0);
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(log.e[1].kind, KEEP_EVENT_MESSAGE);
  ck_assert_uint_eq(log.e[1].seq, 2);
  ck_assert_uint_eq(log.e[1].payload_len, 5);
  ck_assert_int_eq(peer_unsubscribes(&p), 1);
  keep_async_free(a);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

// 19. A subscription whose connection closed while no new connection can
// be made (out of descriptors): the caller hears of the interruption once,
// the client tries the renewal again every 100 ms (a timer the loop is
// given, not a busy loop), says nothing more while it fails, and reports
// KEEP_EVENT_RESUBSCRIBED once a connection can be made again.

static void script_sub_then_close_on_go(struct pconn *pc, int n) {
  struct req r;
  if (n > 0 || !pc_next(pc, &r, 2000)) {
    serve(pc);
    return;
  }
  struct blob b = {0};
  blob_ok(&b, r.id, 1, NULL, 0);
  (void)blob_send(pc->fd, &b);
  if (!flag_wait(&pc->p->go, 3000))
    return;
  shutdown(pc->fd, SHUT_WR);
  atomic_store(&pc->p->sent, 1);
  (void)pc_wait_close(pc, 3000);
}

START_TEST(a_renewal_that_cannot_connect_is_retried_on_a_timer) {
  struct peer p;
  peer_start(&p, script_sub_then_close_on_go, 0);
  size_t done = 0;
  struct evlog log = {.done = &done};
  keep_async_options opt = events_to(&log);
  const char *members[] = {p.member};
  keep_async *a = client_new(members, 1, NULL, 0, 3000, &opt);
  struct rec sub;
  rec_init(&sub, &done, -1);
  ck_assert_int_eq(keep_async_subscribe(a, "t", 1, on_done, &sub), 0);
  ck_assert(drive(a, &done, 1, 3000));
  ck_assert_int_eq(sub.status, 0);
  struct rlimit saved = fds_exhaust();
  atomic_store(&p.go, 1);
  bool interrupted = flag_wait(&p.sent, 2000) && drive(a, &done, 2, 2000);
  int armed = keep_async_next_timeout_ms(a);
  settle(a, 250); // two more renewals, failing
  int events_while_out = log.n;
  int accepted_while_out = peer_accepted(&p);
  fds_restore(&saved);
  ck_assert(interrupted);
  ck_assert_int_eq(log.e[0].status, KEEP_ERR_CLOSED);
  ck_assert_msg(armed > 0 && armed <= 100, "renewal timer armed for %d ms", armed);
  ck_assert_int_eq(events_while_out, 1);
  ck_assert_int_eq(accepted_while_out, 1);
  ck_assert(drive(a, &done, 3, 2000));
  ck_assert_int_eq(log.n, 2);
  ck_assert_int_eq(log.e[1].status, 0);
  ck_assert_int_eq(log.e[1].kind, KEEP_EVENT_RESUBSCRIBED);
  ck_assert_int_eq(peer_accepted(&p), 2);
  ck_assert_int_eq(peer_subscribes(&p), 2);
  keep_async_free(a);
  ck_assert_int_eq(log.n, 3);
  ck_assert_int_eq(log.e[2].status, -ECANCELED);
  peer_stop(&p);
  ck_assert_int_eq(peer_faults(&p), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-async-fake");
  TCase *tc = tcase_create("fake");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, bytes_that_are_not_keep1_fail_the_connection);
  tcase_add_test(tc, a_length_over_the_limit_fails_at_the_header);
  tcase_add_test(tc, answers_with_unknown_ids_are_skipped);
  tcase_add_test(tc, a_close_with_requests_pending_fails_them_and_reconnects);
  tcase_add_test(tc, a_close_before_reading_fails_and_reconnects);
  tcase_add_test(tc, a_refused_frame_closes_the_connection);
  tcase_add_test(tc, a_silent_peer_times_out);
  tcase_add_test(tc, a_trickling_answer_times_out);
  tcase_add_test(tc, pipelined_answers_out_of_order_in_pieces);
  tcase_add_test(tc, large_requests_survive_partial_writes);
  tcase_add_test(tc, a_connect_that_hangs_times_out_and_fails_over);
  tcase_add_test(tc, a_busy_retry_outlives_its_connection);
  tcase_add_test(tc, a_busy_retry_that_cannot_reconnect_fails_once);
  tcase_add_test(tc, freeing_with_a_retry_pending_cancels_it);
  tcase_add_test(tc, no_descriptor_for_a_connection_fails_at_queuing);
  tcase_add_test(tc, a_failed_subscription_check_interrupts_until_confirmed);
  tcase_add_test(tc, a_single_member_subscription_is_not_polled);
  tcase_add_test(tc, an_unsubscribe_during_renewal_ends_the_topic);
  tcase_add_test(tc, requests_queued_behind_a_partial_write_arrive_intact);
  tcase_add_test(tc, a_partly_written_pipeline_times_out);
  tcase_add_test(tc, an_unreadable_key_file_fails_creation);
  tcase_add_test(tc, shard_connections_are_found_and_bounded);
  tcase_add_test(tc, subscribing_twice_keeps_one_subscription);
  tcase_add_test(tc, a_subscribe_again_during_renewal_is_kept);
  tcase_add_test(tc, a_renewal_that_cannot_connect_is_retried_on_a_timer);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
