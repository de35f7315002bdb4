// test_async_fake.c: libkeep's non-blocking client (keep_async_*) against a
// scripted keep/1 peer on loopback, for the misbehaviour a healthy keepd
// never shows on demand: bytes that are not keep/1 (text, a broken body, a
// request opcode, an unknown opcode, another version, an undefined flag,
// the VIEW and ENTRY answers to requests this client never sends), a
// length field over KEEP_MAX_BODY, answers whose id no request has, a peer
// that closes in the middle of an answer or before reading anything, one
// that never answers or answers a byte at a time (the I/O timeout), answers
// to a pipeline out of order and in one-byte writes, and requests too large
// for the socket buffers (partial writes). Each case checks what keep.h
// promises the caller: every queued request's callback runs exactly once,
// with its own answer or with the failure's status, the failed connection
// is closed, and the next request reconnects. The peer is a thread per
// accepted connection running the case's script; every wait, on either
// side, is bounded.
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define PEER_MAX_CONNS 16

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
      if (out->op == KEEP_OP_PING && pc->answer_pings) {
        struct blob b = {0};
        static const uint8_t one_shard[2] = {1, 0};
        blob_ok(&b, out->id, 0, one_shard, sizeof one_shard);
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

// peer_start listens on an ephemeral loopback port; `rcvbuf` (0: the
// default) is set before listen() so that accepted sockets inherit it.
static void peer_start(struct peer *p, peer_script *script, int rcvbuf) {
  memset(p, 0, sizeof *p);
  p->script = script;
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
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
