// test_resp_fake.c: libkeep's RESP back end (resp.c) against a scripted
// RESP2 peer on loopback, for the replies a healthy redis-server never
// gives on demand: error replies of every kind for every command, replies
// of the wrong type, replies dribbled one byte per write, malformed and
// oversized replies, a peer that closes, resets or never answers, pushed
// messages of the wrong shape, and the commands' exact bytes on the wire.
// keep_resp_parse_check is checked on crafted inputs as well.
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "fake_peer.h"
#include "keep.h"
#include "keep_internal.h"
#include "keep_resp.h"

// The scripted peer. Every command it receives, on any connection, takes
// the next step of the script; the log keeps each command's bytes.

enum act {
  REPLY,       // send the bytes
  DRIP,        // send the bytes one per write, 1 ms apart
  REPLY_CLOSE, // send the bytes, then close (FIN)
  RESET,       // close with an RST instead of an answer
  SILENT,      // read it, answer nothing
  CONFIRM,     // confirm a (un)subscribe: *3 verb topic :1
  UNLISTEN,    // close the connection and the listener: later connects are refused
};

struct step {
  enum act act;
  const char *bytes;
  size_t len;
};

#define R(s)                                                                                       \
  { REPLY, s, sizeof s - 1 }
#define D(s)                                                                                       \
  { DRIP, s, sizeof s - 1 }
#define RC(s)                                                                                      \
  { REPLY_CLOSE, s, sizeof s - 1 }

// Flags of fake_start_with().
enum {
  REPEAT_LAST = 1, // past the script, the last step again
  NO_READ = 2,     // leave every request unread, in a small socket buffer
};

#define MAX_CONNS 8
#define MAX_ARGS 8
#define MAX_CMDS 1100

struct cmd {
  int conn;
  uint8_t *raw;
  size_t raw_len;
  size_t argc;
  const uint8_t *arg[MAX_ARGS];
  size_t arg_len[MAX_ARGS];
};

struct conn {
  int fd;
  int index; // in accept order
  uint8_t *in;
  size_t in_len, in_cap;
};

struct fake {
  int lfd;
  int ctl[2]; // the test thread's requests: 'q' quit, 'r' reset all connections
  char url[64];
  pthread_t thread;
  const struct step *steps;
  size_t num_steps;
  int flags;
  pthread_mutex_t mu;
  struct cmd cmds[MAX_CMDS];
  size_t num_cmds, overrun;
  struct conn conns[MAX_CONNS];
  atomic_int connections;
  int ctl_done[2]; // the thread's acknowledgement of a request
};

static void send_all(int fd, const void *p, size_t len) {
  const uint8_t *b = p;
  while (len > 0) {
    ssize_t n = send(fd, b, len, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      return; // the client went away, as some cases intend
    }
    b += n;
    len -= (size_t)n;
  }
}

// parse_cmd takes one command (an array of bulk strings, all a client
// sends) from the front of `in`: 1 with `*used`, 0 for more bytes, -1 for
// bytes no client should send.
static int parse_cmd(struct cmd *c, const uint8_t *in, size_t len, size_t *used) {
  size_t pos = 0;
  unsigned long argc, n;
  char *end;
  const uint8_t *nl = memchr(in, '\n', len);
  if (nl == NULL)
    return 0;
  if (in[0] != '*' || (argc = strtoul((const char *)in + 1, &end, 10)) == 0 || argc > MAX_ARGS)
    return -1;
  pos = (size_t)(nl - in) + 1;
  c->argc = argc;
  for (size_t i = 0; i < argc; i++) {
    nl = memchr(in + pos, '\n', len - pos);
    if (nl == NULL)
      return 0;
    if (in[pos] != '$')
      return -1;
    n = strtoul((const char *)in + pos + 1, &end, 10);
    pos = (size_t)(nl - in) + 1;
    if (len - pos < n + 2)
      return 0;
    c->arg[i] = (const uint8_t *)(uintptr_t)pos; // an offset until the copy
    c->arg_len[i] = n;
    pos += n + 2;
  }
  *used = pos;
  return 1;
}

static void record(struct fake *fk, struct conn *cn, struct cmd *c, const uint8_t *in, size_t len) {
  c->conn = cn->index;
  c->raw = malloc(len + 1);
  ck_assert_ptr_nonnull(c->raw);
  memcpy(c->raw, in, len);
  c->raw[len] = 0;
  c->raw_len = len;
  for (size_t i = 0; i < c->argc; i++)
    c->arg[i] = c->raw + (uintptr_t)c->arg[i];
  pthread_mutex_lock(&fk->mu);
  if (fk->num_cmds < MAX_CMDS)
    fk->cmds[fk->num_cmds++] = *c;
  else
    free(c->raw);
  pthread_mutex_unlock(&fk->mu);
}

static void drop(struct conn *cn, bool reset) {
  if (reset) {
    struct linger l = {1, 0};
    setsockopt(cn->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
  close(cn->fd);
  cn->fd = -1;
  cn->in_len = 0;
}

// serve carries out the step for command `c` on `cn`.
static void serve(struct fake *fk, struct conn *cn, const struct cmd *c, size_t k) {
  struct step st = {SILENT, NULL, 0};
  if (k < fk->num_steps)
    st = fk->steps[k];
  else if ((fk->flags & REPEAT_LAST) && fk->num_steps > 0)
    st = fk->steps[fk->num_steps - 1];
  else
    fk->overrun++;
  switch (st.act) {
  case REPLY:
    send_all(cn->fd, st.bytes, st.len);
    break;
  case DRIP:
    for (size_t i = 0; i < st.len; i++) {
      send_all(cn->fd, st.bytes + i, 1);
      sleep_ms(1);
    }
    break;
  case REPLY_CLOSE:
    send_all(cn->fd, st.bytes, st.len);
    drop(cn, false);
    break;
  case RESET:
    drop(cn, true);
    break;
  case SILENT:
    break;
  case CONFIRM: {
    char h[600];
    int n = snprintf(h, sizeof h, "*3\r\n$%zu\r\n%.*s\r\n$%zu\r\n%.*s\r\n:1\r\n", c->arg_len[0],
                     (int)c->arg_len[0], (const char *)c->arg[0], c->arg_len[1], (int)c->arg_len[1],
                     (const char *)c->arg[1]);
    send_all(cn->fd, h, (size_t)n);
    break;
  }
  case UNLISTEN: // the listener first, so that no reconnect can slip in between
    close(fk->lfd);
    fk->lfd = -1;
    drop(cn, false);
    break;
  }
}

static void take_input(struct fake *fk, struct conn *cn) {
  if (cn->in_cap - cn->in_len < 65536) {
    size_t cap = cn->in_cap ? cn->in_cap * 2 : 131072;
    uint8_t *b = realloc(cn->in, cap);
    ck_assert_ptr_nonnull(b);
    cn->in = b;
    cn->in_cap = cap;
  }
  ssize_t n = recv(cn->fd, cn->in + cn->in_len, cn->in_cap - cn->in_len, 0);
  if (n <= 0) {
    drop(cn, false);
    return;
  }
  cn->in_len += (size_t)n;
  size_t pos = 0, used;
  struct cmd c;
  while (cn->fd >= 0 && pos < cn->in_len) {
    memset(&c, 0, sizeof c);
    int rc = parse_cmd(&c, cn->in + pos, cn->in_len - pos, &used);
    ck_assert_int_ge(rc, 0);
    if (rc == 0)
      break;
    record(fk, cn, &c, cn->in + pos, used);
    pos += used;
    serve(fk, cn, &fk->cmds[fk->num_cmds - 1], fk->num_cmds - 1);
  }
  if (cn->fd >= 0) {
    memmove(cn->in, cn->in + pos, cn->in_len - pos);
    cn->in_len -= pos;
  }
}

static void *fake_main(void *arg) {
  struct fake *fk = arg;
  int next_index = 0;
  for (;;) {
    struct pollfd p[MAX_CONNS + 2];
    size_t np = 0;
    p[np++] = (struct pollfd){.fd = fk->ctl[0], .events = POLLIN};
    p[np++] = (struct pollfd){.fd = fk->lfd, .events = POLLIN}; // -1 is ignored
    for (size_t i = 0; i < MAX_CONNS; i++)
      p[np++] =
          (struct pollfd){.fd = (fk->flags & NO_READ) ? -1 : fk->conns[i].fd, .events = POLLIN};
    if (poll(p, np, -1) < 0)
      continue;
    if (p[0].revents) {
      char what = 'q';
      (void)!read(fk->ctl[0], &what, 1);
      for (size_t i = 0; i < MAX_CONNS; i++)
        if (fk->conns[i].fd >= 0)
          drop(&fk->conns[i], what == 'r');
      (void)!write(fk->ctl_done[1], "k", 1);
      if (what == 'q')
        return NULL;
      continue;
    }
    if (fk->lfd >= 0 && (p[1].revents & POLLIN)) {
      int fd = accept(fk->lfd, NULL, NULL);
      for (size_t i = 0; fd >= 0 && i < MAX_CONNS; i++)
        if (fk->conns[i].fd < 0) {
          fk->conns[i].fd = fd;
          fk->conns[i].index = next_index++;
          fk->conns[i].in_len = 0;
          atomic_fetch_add(&fk->connections, 1);
          fd = -1;
        }
      if (fd >= 0)
        close(fd);
    }
    for (size_t i = 0; i < MAX_CONNS; i++)
      if (p[2 + i].fd >= 0 && p[2 + i].revents != 0)
        take_input(fk, &fk->conns[i]);
  }
}

static void fake_start_with(struct fake *fk, const struct step *steps, size_t num_steps,
                            int flags) {
  memset(fk, 0, sizeof *fk);
  fk->steps = steps;
  fk->num_steps = num_steps;
  fk->flags = flags;
  pthread_mutex_init(&fk->mu, NULL);
  for (size_t i = 0; i < MAX_CONNS; i++)
    fk->conns[i].fd = -1;
  ck_assert_int_eq(pipe(fk->ctl), 0);
  ck_assert_int_eq(pipe(fk->ctl_done), 0);
  unsigned port;
  // NO_READ: a small buffer, inherited by the accepted sockets.
  fk->lfd = listen_loopback(&port, (flags & NO_READ) ? 4096 : 0);
  snprintf(fk->url, sizeof fk->url, "redis://127.0.0.1:%u", port);
  // Signals go to the test's thread, never to the peer's.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  ck_assert_int_eq(pthread_create(&fk->thread, NULL, fake_main, fk), 0);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

#define fake_start(fk, steps) fake_start_with(fk, steps, sizeof steps / sizeof steps[0], 0)

// fake_ctl asks the peer's thread to drop its connections ('r': with an
// RST) or to quit ('q'), and waits until it has.
static void fake_ctl(struct fake *fk, char what) {
  char k;
  ck_assert_int_eq(write(fk->ctl[1], &what, 1), 1);
  ck_assert_int_eq(read(fk->ctl_done[0], &k, 1), 1);
}

static void fake_stop(struct fake *fk) {
  fake_ctl(fk, 'q');
  pthread_join(fk->thread, NULL);
  if (fk->lfd >= 0)
    close(fk->lfd);
  for (size_t i = 0; i < MAX_CONNS; i++)
    free(fk->conns[i].in);
  for (size_t i = 0; i < fk->num_cmds; i++)
    free(fk->cmds[i].raw);
  close(fk->ctl[0]);
  close(fk->ctl[1]);
  close(fk->ctl_done[0]);
  close(fk->ctl_done[1]);
  ck_assert_uint_eq(fk->overrun, 0); // every command met a step of the script
}

static size_t num_cmds(struct fake *fk) {
  pthread_mutex_lock(&fk->mu);
  size_t n = fk->num_cmds;
  pthread_mutex_unlock(&fk->mu);
  return n;
}

// expect_raw checks command `i` byte for byte.
static void expect_raw(struct fake *fk, size_t i, const char *want, size_t want_len) {
  ck_assert_uint_gt(num_cmds(fk), i);
  ck_assert_uint_eq(fk->cmds[i].raw_len, want_len);
  ck_assert_mem_eq(fk->cmds[i].raw, want, want_len);
}
#define EXPECT_RAW(fk, i, s) expect_raw(fk, i, s, sizeof s - 1)

// expect_args checks command `i`'s arguments, NULL-terminated; NULL in the
// middle of the list skips that argument (a Lua script's text).
static void expect_args(struct fake *fk, size_t i, size_t argc, ...) {
  ck_assert_uint_gt(num_cmds(fk), i);
  const struct cmd *c = &fk->cmds[i];
  ck_assert_uint_eq(c->argc, argc);
  va_list ap;
  va_start(ap, argc);
  for (size_t k = 0; k < argc; k++) {
    const char *a = va_arg(ap, const char *);
    if (a == NULL)
      continue;
    ck_assert_uint_eq(c->arg_len[k], strlen(a));
    ck_assert_mem_eq(c->arg[k], a, strlen(a));
  }
  va_end(ap);
}

// shrink_send_buffers gives this process's sockets connected to the peer
// a small send buffer, so that one large command cannot be queued whole
// (loopback buffers grow to megabytes) and the sender must wait for room.
static void shrink_send_buffers(struct fake *fk) {
  unsigned port = (unsigned)atoi(strrchr(fk->url, ':') + 1);
  int shrunk = 0, size = 4096;
  for (int fd = 3; fd < 1024; fd++) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getpeername(fd, (struct sockaddr *)&a, &len) == 0 && a.sin_family == AF_INET &&
        ntohs(a.sin_port) == port) {
      ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size), 0);
      shrunk++;
    }
  }
  ck_assert_int_ge(shrunk, 1);
}

// keep_resp_parse_check on crafted replies.

static const struct parse_case {
  const char *in;
  size_t len; // 0: strlen
  int rc;
  size_t used;
} parse_cases[] = {
    {"", 0, 0, 0},
    {"+", 0, 0, 0},
    {"+OK\r", 0, 0, 0},
    {"+OK\r\n", 0, 1, 5},
    {"+OK\r\n:1\r\n", 0, 1, 5}, // one reply, the rest is the next one's
    {"+\r\n", 0, 1, 3},
    {"-ERR x\r\n", 0, 1, 8},
    {":0\r\n", 0, 1, 4},
    {":-0\r\n", 0, 1, 5},
    {":9223372036854775807\r\n", 0, 1, 22},
    {":-9223372036854775808\r\n", 0, 1, 23},
    {":9223372036854775808\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {":-9223372036854775809\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {":99999999999999999999\r\n", 0, KEEP_ERR_PROTOCOL, 0}, // 20 digits
    {":\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {":-\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {":+1\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {":12a\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {": 1\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"$3\r\nabc\r\n", 0, 1, 9},
    {"$0\r\n\r\n", 0, 1, 6},
    {"$-1\r\n", 0, 1, 5},
    {"$-2\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"$-100\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"$abc\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"$\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"$3\r\nabcXY", 0, KEEP_ERR_PROTOCOL, 0}, // no CRLF after the bytes
    {"$3\r\nabc\n\r", 0, KEEP_ERR_PROTOCOL, 0},
    {"$3\r\nab", 0, 0, 0},
    {"$3\r\nabc\r", 0, 0, 0},
    {"$3\r\na\r\n\r\n", 0, 1, 9}, // the length, not CRLF, ends the bytes
    {"$1049600\r\n", 0, 0, 0},    // the largest bulk: wait for it
    {"$1049601\r\n", 0, KEEP_ERR_TOO_LARGE, 0},
    {"$9223372036854775807\r\n", 0, KEEP_ERR_TOO_LARGE, 0},
    {"*0\r\n", 0, 1, 4},
    {"*-1\r\n", 0, 1, 5},
    {"*-2\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"*x\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"*2\r\n:1\r\n$-1\r\n", 0, 1, 13},
    {"*2\r\n:1\r\n", 0, 0, 0},
    {"*2\r\n:1\r\n:x\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"*1\r\n*1\r\n:1\r\n", 0, 1, 12},
    {"*1\r\n*1\r\n*0\r\n", 0, KEEP_ERR_PROTOCOL, 0}, // nested three deep
    {"*1\r\n*1\r\n*-1\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"*16\r\n:0\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n:6\r\n:7\r\n:8\r\n:9\r\n:0\r\n:1\r\n:2\r\n:3\r\n:"
     "4\r\n:5\r\n",
     0, 1, 69},
    {"*17\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"*9999999999999\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    // 16 values in all, arrays included: 2 + 7 + 7 fit, 2 + 7 + 8 do not.
    {"*2\r\n*7\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n*7\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:"
     "1\r\n:1\r\n",
     0, 1, 68},
    {"*2\r\n*7\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n:1\r\n*8\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"!5\r\nhello\r\n", 0, KEEP_ERR_PROTOCOL, 0}, // RESP3 types are not RESP2
    {"_\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"\r\n", 0, 0, 0}, // a type byte '\r', its line not ended
    {"\r\n\r\n", 0, KEEP_ERR_PROTOCOL, 0},
    {"+a\0b\r\n", 6, 1, 6},
};

START_TEST(parse_check_on_crafted_replies) {
  for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
    const struct parse_case *t = &parse_cases[i];
    size_t len = t->len ? t->len : strlen(t->in);
    // A copy of exactly `len` bytes, so that ASan sees any read beyond.
    uint8_t *in = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(in);
    memcpy(in, t->in, len);
    size_t used = 12345;
    int rc = keep_resp_parse_check(in, len, &used);
    ck_assert_msg(rc == t->rc, "case %zu (%s): rc %d, want %d", i, t->in, rc, t->rc);
    if (rc == 1)
      ck_assert_msg(used == t->used, "case %zu: used %zu, want %zu", i, used, t->used);
    else
      ck_assert_uint_eq(used, 12345); // nothing stored unless a reply is whole
    // Every strict prefix of a whole reply needs more bytes.
    for (size_t k = 0; rc == 1 && k < t->used; k++)
      ck_assert_msg(keep_resp_parse_check(in, k, &used) == 0, "case %zu, prefix %zu", i, k);
    free(in);
  }
}
END_TEST

// A line (status, error, number) is bounded, CRLF or not, so that a prefix
// never parses differently from the whole.
START_TEST(parse_check_bounds_a_line) {
  size_t max = 65536;
  uint8_t *in = malloc(max + 8);
  ck_assert_ptr_nonnull(in);
  size_t used;
  in[0] = '+';
  memset(in + 1, 'a', max + 4);
  memcpy(in + 1 + max, "\r\n", 2);
  ck_assert_int_eq(keep_resp_parse_check(in, max + 3, &used), 1);
  ck_assert_uint_eq(used, max + 3);
  memset(in + 1, 'a', max + 4);
  memcpy(in + 2 + max, "\r\n", 2);
  ck_assert_int_eq(keep_resp_parse_check(in, max + 4, &used), KEEP_ERR_PROTOCOL);
  memset(in + 1, 'a', max + 4);
  ck_assert_int_eq(keep_resp_parse_check(in, max + 2, &used), 0);
  ck_assert_int_eq(keep_resp_parse_check(in, max + 3, &used), KEEP_ERR_PROTOCOL);
  free(in);
}
END_TEST

// The commands on the wire, byte for byte, and the answers they map to.

static const struct step wire_steps[] = {
    R("+PONG\r\n"),
    R("$5\r\nhello\r\n"),
    R("+OK\r\n"),
    R("$-1\r\n"), // SET NX: present
    R("+OK\r\n"),
    R(":1\r\n"),
    R(":-42\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n+OK\r\n:7\r\n"),
    R(":1\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n:1\r\n:0\r\n"),
    R(":-1\r\n"), // LOCK granted
    R(":1\r\n"),  // EXTEND
    R(":1\r\n"),  // UNLOCK
    R(":3\r\n"),
    {CONFIRM, NULL, 0},
    {CONFIRM, NULL, 0},
};

START_TEST(commands_on_the_wire) {
  struct fake fk;
  fake_start(&fk, wire_steps);
  keep_client *c = client_to(fk.url, 2000);
  uint8_t buf[16];
  size_t len;
  int64_t v;
  ck_assert_int_eq(keep_ping(c), 0);
  EXPECT_RAW(&fk, 0, "*1\r\n$4\r\nPING\r\n");
  const uint8_t bk[] = {'k', 0, '\r', '\n'}; // binary keys go as they are
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, bk, sizeof bk), 0);
  ck_assert_uint_eq(len, 5);
  ck_assert_mem_eq(buf, "hello", 5);
  EXPECT_RAW(&fk, 1, "*2\r\n$3\r\nGET\r\n$4\r\nk\0\r\n\r\n");
  ck_assert_int_eq(keep_set(c, "k", 1, "val", 3, UINT64_MAX), 0); // the TTL is capped
  EXPECT_RAW(
      &fk, 2,
      "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nval\r\n$2\r\nPX\r\n$19\r\n9223372036854775807\r\n");
  ck_assert_int_eq(keep_set_nx(c, "k", 1, "", 0, 0), KEEP_ERR_EXISTS);
  EXPECT_RAW(&fk, 3, "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$2\r\nNX\r\n");
  ck_assert_int_eq(keep_set_nx(c, "k", 1, "v", 1, 250), 0);
  EXPECT_RAW(&fk, 4,
             "*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$2\r\nPX\r\n$3\r\n250\r\n");
  ck_assert_int_eq(keep_del(c, "k", 1), 0);
  EXPECT_RAW(&fk, 5, "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, -5, 0), 0);
  ck_assert_int_eq(v, -42);
  EXPECT_RAW(&fk, 6, "*3\r\n$6\r\nINCRBY\r\n$1\r\nn\r\n$2\r\n-5\r\n");
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, INT64_MIN, 1500), 0);
  ck_assert_int_eq(v, 7);
  EXPECT_RAW(&fk, 7, "*1\r\n$5\r\nMULTI\r\n");
  EXPECT_RAW(&fk, 8,
             "*6\r\n$3\r\nSET\r\n$1\r\nn\r\n$1\r\n0\r\n$2\r\nNX\r\n$2\r\nPX\r\n$4\r\n1500\r\n");
  EXPECT_RAW(&fk, 9, "*3\r\n$6\r\nINCRBY\r\n$1\r\nn\r\n$20\r\n-9223372036854775808\r\n");
  EXPECT_RAW(&fk, 10, "*1\r\n$4\r\nEXEC\r\n");
  ck_assert_int_eq(keep_expire(c, "k", 1, 60000), 0);
  EXPECT_RAW(&fk, 11, "*3\r\n$7\r\nPEXPIRE\r\n$1\r\nk\r\n$5\r\n60000\r\n");
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), 0);
  EXPECT_RAW(&fk, 12, "*1\r\n$5\r\nMULTI\r\n");
  EXPECT_RAW(&fk, 13, "*2\r\n$6\r\nEXISTS\r\n$1\r\nk\r\n");
  EXPECT_RAW(&fk, 14, "*2\r\n$7\r\nPERSIST\r\n$1\r\nk\r\n");
  EXPECT_RAW(&fk, 15, "*1\r\n$4\r\nEXEC\r\n");
  uint64_t before = (uint64_t)now_ms() * 1000000u, deadline = 0;
  ck_assert_int_eq(keep_lock(c, &deadline, "L", 1, "alice", 5, 10000), 0);
  ck_assert_uint_gt(deadline, before);
  expect_args(&fk, 16, 6, "EVAL", NULL, "1", "L",
              "\x01keep-lock\x01"
              "alice",
              "10000");
  ck_assert_int_eq(keep_extend(c, &deadline, "L", 1, "alice", 5, 777), 0);
  expect_args(&fk, 17, 6, "EVAL", NULL, "1", "L",
              "\x01keep-lock\x01"
              "alice",
              "777");
  ck_assert_int_eq(keep_unlock(c, "L", 1, "alice", 5), 0);
  expect_args(&fk, 18, 5, "EVAL", NULL, "1", "L",
              "\x01keep-lock\x01"
              "alice");
  // Three different scripts, each reading the key before it acts.
  for (size_t i = 16; i <= 18; i++) {
    const char *head = "local v = redis.call('GET', KEYS[1]) ";
    ck_assert_mem_eq(fk.cmds[i].arg[1], head, strlen(head));
  }
  ck_assert(fk.cmds[16].arg_len[1] != fk.cmds[17].arg_len[1] ||
            memcmp(fk.cmds[16].arg[1], fk.cmds[17].arg[1], fk.cmds[16].arg_len[1]) != 0);
  ck_assert(fk.cmds[17].arg_len[1] != fk.cmds[18].arg_len[1] ||
            memcmp(fk.cmds[17].arg[1], fk.cmds[18].arg[1], fk.cmds[17].arg_len[1]) != 0);
  size_t receivers = 0;
  ck_assert_int_eq(keep_publish(c, &receivers, "t", 1, "p\r\n", 3), 0);
  ck_assert_uint_eq(receivers, 3);
  EXPECT_RAW(&fk, 19, "*3\r\n$7\r\nPUBLISH\r\n$1\r\nt\r\n$3\r\np\r\n\r\n");
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  EXPECT_RAW(&fk, 20, "*2\r\n$9\r\nsubscribe\r\n$5\r\ntopic\r\n");
  ck_assert_int_eq(keep_unsubscribe(c, "topic", 5), 0);
  EXPECT_RAW(&fk, 21, "*2\r\n$11\r\nunsubscribe\r\n$5\r\ntopic\r\n");
  // Everything before the subscription on one connection, which stays
  // open; the subscription on a second one.
  for (size_t i = 0; i < 20; i++)
    ck_assert_int_eq(fk.cmds[i].conn, 0);
  ck_assert_int_eq(fk.cmds[20].conn, 1);
  ck_assert_int_eq(fk.cmds[21].conn, 1);
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  ck_assert_uint_eq(num_cmds(&fk), 22);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Error replies, by their text, for every command the back end sends.

static const struct {
  const char *reply;
  int status;
} error_map[] = {
    {"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", KEEP_ERR_WRONG_TYPE},
    {"-ERR value is not an integer or out of range\r\n", KEEP_ERR_WRONG_TYPE},
    {"-ERR increment or decrement would overflow\r\n", KEEP_ERR_OVERFLOW},
    {"-OOM command not allowed when used memory > 'maxmemory'.\r\n", KEEP_ERR_OUT_OF_MEMORY},
    {"-LOADING Redis is loading the dataset in memory\r\n", KEEP_ERR_BUSY},
    {"-BUSY Redis is busy running a script.\r\n", KEEP_ERR_BUSY},
    {"-TRYAGAIN Multiple keys request during rehashing of slot\r\n", KEEP_ERR_BUSY},
    {"-ERR unknown command 'EVAL'\r\n", KEEP_ERR_SERVER},
    {"-NOSCRIPT No matching script\r\n", KEEP_ERR_SERVER},
    {"-WRONGTYP\r\n", KEEP_ERR_SERVER}, // a prefix of a known code is not it
    {"-OO\r\n", KEEP_ERR_SERVER},
    {"-\r\n", KEEP_ERR_SERVER},
};
#define NUM_ERRORS (sizeof error_map / sizeof error_map[0])

// Each command once per error; the commands of a MULTI/EXEC get the error
// as EXEC's reply (EXPIRE 0) or as INCRBY's result inside it (INCR).
enum {
  C_PING,
  C_GET,
  C_SET,
  C_SETNX,
  C_DEL,
  C_INCR,
  C_INCR_TTL,
  C_EXPIRE,
  C_PERSIST,
  C_LOCK,
  C_UNLOCK,
  C_EXTEND,
  C_PUBLISH,
  C_SUBSCRIBE,
  C_UNSUBSCRIBE,
  NUM_KINDS
};

static int run_kind(keep_client *c, int kind) {
  uint8_t buf[8];
  size_t len;
  int64_t v = 99;
  uint64_t deadline = 5;
  size_t receivers = 9;
  int rc = 1;
  switch (kind) {
  case C_PING:
    return keep_ping(c);
  case C_GET:
    return keep_get(c, buf, sizeof buf, &len, "k", 1);
  case C_SET:
    return keep_set(c, "k", 1, "v", 1, 0);
  case C_SETNX:
    return keep_set_nx(c, "k", 1, "v", 1, 10);
  case C_DEL:
    return keep_del(c, "k", 1);
  case C_INCR:
  case C_INCR_TTL:
    rc = keep_incr(c, &v, "k", 1, 1, kind == C_INCR ? 0 : 100);
    ck_assert_int_eq(v, 99); // no value on an error
    return rc;
  case C_EXPIRE:
    return keep_expire(c, "k", 1, 100);
  case C_PERSIST:
    return keep_expire(c, "k", 1, 0);
  case C_LOCK:
  case C_EXTEND:
    rc = kind == C_LOCK ? keep_lock(c, &deadline, "k", 1, "h", 1, 100)
                        : keep_extend(c, &deadline, "k", 1, "h", 1, 100);
    ck_assert_uint_eq(deadline, 5);
    return rc;
  case C_UNLOCK:
    return keep_unlock(c, "k", 1, "h", 1);
  case C_PUBLISH:
    rc = keep_publish(c, &receivers, "k", 1, "p", 1);
    ck_assert_uint_eq(receivers, 9);
    return rc;
  case C_SUBSCRIBE:
    return keep_subscribe(c, "k", 1);
  case C_UNSUBSCRIBE:
    return keep_unsubscribe(c, "k", 1);
  }
  return rc;
}

START_TEST(error_replies_map_to_statuses) {
  // Per error: the steps of every kind of command in order.
  static struct step steps[NUM_ERRORS * 32];
  size_t n = 0;
  for (size_t e = 0; e < NUM_ERRORS; e++) {
    const char *err = error_map[e].reply;
    size_t el = strlen(err);
    static char exec_incr[NUM_ERRORS][160];
    int xl = snprintf(exec_incr[e], sizeof exec_incr[e], "*2\r\n+OK\r\n%s", err);
    for (int k = 0; k < NUM_KINDS; k++) {
      if (k == C_INCR_TTL || k == C_PERSIST) {
        steps[n++] = (struct step)R("+OK\r\n");
        steps[n++] = (struct step)R("+QUEUED\r\n");
        steps[n++] = (struct step)R("+QUEUED\r\n");
        if (k == C_INCR_TTL)
          steps[n++] = (struct step){REPLY, exec_incr[e], (size_t)xl};
        else
          steps[n++] = (struct step){REPLY, err, el};
      } else if (k == C_UNSUBSCRIBE) {
        steps[n++] = (struct step){CONFIRM, NULL, 0}; // subscribed, then refused
        steps[n++] = (struct step){REPLY, err, el};
      } else {
        steps[n++] = (struct step){REPLY, err, el};
      }
    }
  }
  struct fake fk;
  fake_start_with(&fk, steps, n, 0);
  keep_client *c = client_to(fk.url, 2000);
  for (size_t e = 0; e < NUM_ERRORS; e++)
    for (int k = 0; k < NUM_KINDS; k++) {
      if (k == C_UNSUBSCRIBE)
        ck_assert_int_eq(keep_subscribe(c, "k", 1), 0);
      int rc = run_kind(c, k);
      ck_assert_msg(rc == error_map[e].status, "error %zu, command %d: %d, want %d", e, k, rc,
                    error_map[e].status);
      if (k == C_SUBSCRIBE) { // refused: nothing to wait for, at first
        keep_event ev;
        ck_assert_int_eq(keep_next_event(c, &ev, 0), e == 0 ? KEEP_ERR_CLOSED : 0);
      }
    }
  // An error reply is an answer: both connections stayed up throughout.
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  ck_assert_uint_eq(num_cmds(&fk), n);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// A refused step inside MULTI/EXEC is the answer, whatever EXEC says.
static const struct step multi_steps[] = {
    // INCR with a TTL: MULTI refused.
    R("-ERR MULTI calls can not be nested\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("-ERR EXEC without MULTI\r\n"),
    // SET refused when queued, EXEC aborted.
    R("+OK\r\n"),
    R("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    R("+QUEUED\r\n"),
    R("-EXECABORT Transaction discarded because of previous errors.\r\n"),
    // INCRBY refused when queued.
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("-OOM command not allowed\r\n"),
    R("-EXECABORT x\r\n"),
    // EXEC aborted (a nil array), and EXEC's results of the wrong kind.
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*-1\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n+OK\r\n+QUEUED\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*3\r\n+OK\r\n:1\r\n:1\r\n"),
    // The counter existed (SET NX is nil): its value is still the answer.
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n$-1\r\n:-3\r\n"),
    // EXPIRE 0: absent, present, and EXEC's results of the wrong kind.
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n:0\r\n:0\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n:1\r\n:0\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*2\r\n$1\r\n1\r\n:0\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*1\r\n:1\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R("*-1\r\n"),
    R("+OK\r\n"),
    R("-LOADING x\r\n"),
    R("+QUEUED\r\n"),
    R("-EXECABORT x\r\n"),
};

START_TEST(multi_exec_failures) {
  struct fake fk;
  fake_start(&fk, multi_steps);
  keep_client *c = client_to(fk.url, 2000);
  int64_t v = 99;
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_SERVER);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_WRONG_TYPE);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_OUT_OF_MEMORY);
  ck_assert_int_eq(atomic_load(&fk.connections), 1); // error replies keep the stream in step
  // EXEC answers nil, a status for the counter, three results: malformed
  // answers, each closing the connection (the next call reconnects).
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(v, 99);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), 0);
  ck_assert_int_eq(v, -3);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), 0);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_expire(c, "k", 1, 0), KEEP_ERR_BUSY);
  // Every reply was read; six malformed answers, six reconnections.
  ck_assert_uint_eq(num_cmds(&fk), sizeof multi_steps / sizeof multi_steps[0]);
  ck_assert_int_eq(atomic_load(&fk.connections), 7);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Replies of a type the command never gets are malformed answers (keep.h):
// KEEP_ERR_PROTOCOL, and the connection is dropped as the stream may be out
// of step.
static const struct step type_steps[] = {
    R("+OK\r\n"),
    R(":1\r\n"),
    R("*1\r\n$1\r\nx\r\n"),
    R("$1\r\nv\r\n"),
    R("+OK\r\n"),
    R("$2\r\n12\r\n"),
    R("*-1\r\n"),
    R("+OK\r\n"),
    R("$-1\r\n"),
    R(":1500\r\n"),
    R(":0\r\n"),
    R(":0\r\n"),
    R(":-1\r\n"),
    R(":-1\r\n"),
    R(":0\r\n"),
    R(":0\r\n"),
    R(":0\r\n"),
    R(":0\r\n"),
    R("-ERR x\r\n"),
    R("$-1\r\n"),
    // SET, SET NX, SET without NX answered nil, DEL, PEXPIRE, PUBLISH,
    // PING, and a counter with a TTL whose EXEC is no array.
    R(":0\r\n"),
    R("*0\r\n"),
    R("$-1\r\n"),
    R("+OK\r\n"),
    R("+OK\r\n"),
    R("+OK\r\n"),
    R(":1\r\n"),
    R("+OK\r\n"),
    R("+QUEUED\r\n"),
    R("+QUEUED\r\n"),
    R(":5\r\n"),
    R("+PONG\r\n"),
};

START_TEST(replies_of_the_wrong_type) {
  struct fake fk;
  fake_start(&fk, type_steps);
  keep_client *c = client_to(fk.url, 2000);
  uint8_t buf[8];
  size_t len;
  int64_t v = 99;
  uint64_t deadline = 5;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(atomic_load(&fk.connections), 3); // each dropped, reopened by the next
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), 0);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(v, 99);
  ck_assert_int_eq(keep_lock(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_unlock(c, "L", 1, "h", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_extend(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(atomic_load(&fk.connections), 8);
  // A lock held by another: the time left, and no deadline.
  ck_assert_int_eq(keep_lock(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_lock(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_unlock(c, "L", 1, "h", 1), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_unlock(c, "L", 1, "h", 1), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_extend(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_extend(c, &deadline, "L", 1, "h", 1, 100), KEEP_ERR_NOT_FOUND);
  ck_assert_uint_eq(deadline, 5);
  ck_assert_int_eq(keep_del(c, "k", 1), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_expire(c, "k", 1, 5), KEEP_ERR_NOT_FOUND);
  size_t receivers = 9;
  ck_assert_int_eq(keep_publish(c, &receivers, "t", 1, "p", 1), 0);
  ck_assert_uint_eq(receivers, 0);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_SERVER);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), KEEP_ERR_NOT_FOUND); // nil
  ck_assert_int_eq(atomic_load(&fk.connections), 9);
  ck_assert_int_eq(keep_set(c, "k", 1, "v", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_set_nx(c, "k", 1, "v", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_set(c, "k", 1, "v", 1, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_del(c, "k", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_expire(c, "k", 1, 5), KEEP_ERR_PROTOCOL);
  receivers = 9;
  ck_assert_int_eq(keep_publish(c, &receivers, "t", 1, "p", 1), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(v, 99);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(atomic_load(&fk.connections), 17);
  ck_assert_uint_eq(num_cmds(&fk), sizeof type_steps / sizeof type_steps[0]);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Every reply dribbled one byte per write: the parser waits, never fails.
static const struct step drip_steps[] = {
    D("$12\r\nhello\r\nworld\r\n"),
    D("+OK\r\n"),
    D("+QUEUED\r\n"),
    D("+QUEUED\r\n"),
    D("*2\r\n$-1\r\n:-9223372036854775808\r\n"),
    D("$-1\r\n"),
    D("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    D("*3\r\n$9\r\nsubscribe\r\n$5\r\ntopic\r\n:1\r\n"
      "*3\r\n$7\r\nmessage\r\n$5\r\ntopic\r\n$4\r\nbody\r\n"),
};

START_TEST(replies_one_byte_per_write) {
  struct fake fk;
  fake_start(&fk, drip_steps);
  keep_client *c = client_to(fk.url, 5000);
  uint8_t buf[16];
  size_t len;
  int64_t v;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), 0);
  ck_assert_uint_eq(len, 12);
  ck_assert_mem_eq(buf, "hello\r\nworld", 12);
  ck_assert_int_eq(keep_incr(c, &v, "n", 1, 1, 100), 0);
  ck_assert_int_eq(v, INT64_MIN);
  ck_assert_int_eq(keep_set_nx(c, "k", 1, "v", 1, 0), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_del(c, "k", 1), KEEP_ERR_WRONG_TYPE);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
  ck_assert_uint_eq(ev.seq, 1);
  ck_assert_uint_eq(ev.payload_len, 4);
  ck_assert_mem_eq(ev.payload, "body", 4);
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Malformed replies over the socket: the status, and the next call on a
// fresh connection (the stream is out of step).
static const struct {
  const char *reply;
  int status;
} malformed[] = {
    {"$abc\r\n", KEEP_ERR_PROTOCOL},
    {"$3\r\nabcXY", KEEP_ERR_PROTOCOL},
    {"$-2\r\n", KEEP_ERR_PROTOCOL},
    {"*-5\r\n", KEEP_ERR_PROTOCOL},
    {"*1\r\n*1\r\n*1\r\n:1\r\n", KEEP_ERR_PROTOCOL},
    {"*17\r\n", KEEP_ERR_PROTOCOL},
    {":12a\r\n", KEEP_ERR_PROTOCOL},
    {"%1\r\n", KEEP_ERR_PROTOCOL},
    {"$1049601\r\n", KEEP_ERR_TOO_LARGE},
};
#define NUM_MALFORMED (sizeof malformed / sizeof malformed[0])

START_TEST(malformed_replies_drop_the_connection) {
  static struct step steps[NUM_MALFORMED * 2 + 2];
  size_t n = 0;
  for (size_t i = 0; i < NUM_MALFORMED; i++) {
    steps[n++] = (struct step){REPLY, malformed[i].reply, strlen(malformed[i].reply)};
    steps[n++] = (struct step)R("+PONG\r\n");
  }
  // A status line with no end within the bound.
  static char longline[70000];
  memset(longline, 'a', sizeof longline);
  longline[0] = '+';
  steps[n++] = (struct step){REPLY, longline, sizeof longline};
  steps[n++] = (struct step)R("+PONG\r\n");
  struct fake fk;
  fake_start_with(&fk, steps, n, 0);
  keep_client *c = client_to(fk.url, 2000);
  uint8_t buf[8];
  size_t len;
  for (size_t i = 0; i <= NUM_MALFORMED; i++) {
    int want = i < NUM_MALFORMED ? malformed[i].status : KEEP_ERR_PROTOCOL;
    int rc = keep_get(c, buf, sizeof buf, &len, "k", 1);
    ck_assert_msg(rc == want, "reply %zu: %d, want %d", i, rc, want);
    ck_assert_int_eq(keep_ping(c), 0);
    ck_assert_int_eq(atomic_load(&fk.connections), (int)i + 2);
    ck_assert_int_eq(fk.cmds[2 * i + 1].conn, (int)i + 1);
  }
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// A reply whose parts are each within the limits but that together
// outgrow the input buffer's bound: two bulks of the largest size.
START_TEST(reply_outgrowing_the_buffer) {
  size_t bulk = KEEP_MAX_VALUE_LEN + 1024; // the largest the parser takes
  size_t total = 4 + 2 * ((size_t)snprintf(NULL, 0, "$%zu\r\n", bulk) + bulk + 2);
  char *big = malloc(total);
  ck_assert_ptr_nonnull(big);
  size_t off = (size_t)sprintf(big, "*2\r\n");
  for (int i = 0; i < 2; i++) {
    off += (size_t)sprintf(big + off, "$%zu\r\n", bulk);
    memset(big + off, 'x', bulk);
    off += bulk;
    memcpy(big + off, "\r\n", 2);
    off += 2;
  }
  ck_assert_uint_eq(off, total);
  ck_assert_int_eq(keep_resp_parse_check((const uint8_t *)big, total, &off), 1); // well formed
  struct step steps[] = {{REPLY, big, total}, R("+PONG\r\n")};
  struct fake fk;
  fake_start(&fk, steps);
  keep_client *c = client_to(fk.url, 5000);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_TOO_LARGE);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  keep_client_free(c);
  fake_stop(&fk);
  free(big);
}
END_TEST

// The largest value in both directions: the send waits for room, the
// input buffer grows.
START_TEST(largest_value_both_ways) {
  size_t n = KEEP_MAX_VALUE_LEN;
  char *reply = malloc(n + 32);
  uint8_t *value = malloc(n), *back = malloc(n);
  ck_assert(reply != NULL && value != NULL && back != NULL);
  for (size_t i = 0; i < n; i++)
    value[i] = (uint8_t)(i * 7 + (i >> 11));
  int hl = sprintf(reply, "$%zu\r\n", n);
  memcpy(reply + hl, value, n);
  memcpy(reply + hl + n, "\r\n", 2);
  struct step steps[] = {R("+OK\r\n"), {REPLY, reply, (size_t)hl + n + 2}};
  struct fake fk;
  fake_start(&fk, steps);
  keep_client *c = client_to(fk.url, 5000);
  shrink_send_buffers(&fk);
  ck_assert_int_eq(keep_set(c, "k", 1, value, n, 0), 0);
  ck_assert_uint_eq(fk.cmds[0].argc, 3);
  ck_assert_uint_eq(fk.cmds[0].arg_len[2], n);
  ck_assert(memcmp(fk.cmds[0].arg[2], value, n) == 0);
  size_t len;
  ck_assert_int_eq(keep_get(c, back, n, &len, "k", 1), 0);
  ck_assert_uint_eq(len, n);
  ck_assert(memcmp(back, value, n) == 0);
  keep_client_free(c);
  fake_stop(&fk);
  free(reply);
  free(value);
  free(back);
}
END_TEST

static const struct step close_steps[] = {
    {REPLY_CLOSE, "", 0}, // closed before any reply
    R("+PONG\r\n"),       // a new connection
    RC("$5\r\nhel"),      // closed in the middle of one
    RC("*2\r\n+OK\r\n"),  // ... of an array
    {RESET, NULL, 0},     // reset while the client waits
    R("+PONG\r\n"),
};

START_TEST(peer_closes_or_resets) {
  struct fake fk;
  fake_start(&fk, close_steps);
  keep_client *c = client_to(fk.url, 2000);
  uint8_t buf[8];
  size_t len;
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, "k", 1), KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_incr(c, NULL, "n", 1, 1, 0), KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_ping(c), -ECONNRESET);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(atomic_load(&fk.connections), 5);
  ck_assert_uint_eq(num_cmds(&fk), 6);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// A connection reset between calls fails the next send; the one after
// that opens a new connection, for commands and subscriptions alike.
static const struct step reset_steps[] = {
    R("+PONG\r\n"),
    {CONFIRM, NULL, 0},
    R("+PONG\r\n"),
    {CONFIRM, NULL, 0},
};

START_TEST(reset_between_calls) {
  struct fake fk;
  fake_start(&fk, reset_steps);
  keep_client *c = client_to(fk.url, 2000);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(keep_subscribe(c, "t", 1), 0);
  fake_ctl(&fk, 'r');
  sleep_ms(20); // the RSTs have arrived
  ck_assert_int_eq(keep_ping(c), -ECONNRESET);
  ck_assert_int_eq(keep_subscribe(c, "u", 1), -ECONNRESET);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 0), KEEP_ERR_CLOSED); // "t" ended with it
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(keep_subscribe(c, "u", 1), 0);
  ck_assert_int_eq(atomic_load(&fk.connections), 4);
  ck_assert_uint_eq(num_cmds(&fk), 4);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

static const struct step silent_steps[] = {
    {SILENT, NULL, 0},
    R("+PONG\r\n"),
};

START_TEST(silence_times_out) {
  struct fake fk;
  fake_start(&fk, silent_steps);
  keep_client *c = client_to(fk.url, 200);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_TIMEOUT);
  uint64_t took = now_ms() - t0;
  ck_assert_uint_ge(took, 195);
  ck_assert_uint_lt(took, 2000);
  ck_assert_int_eq(keep_ping(c), 0); // on a new connection
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

static void on_alarm(int sig) {
  (void)sig;
}

// Signals that interrupt the wait (no SA_RESTART: poll() fails with EINTR)
// neither end it early nor turn it into an error.
START_TEST(signals_do_not_cut_the_wait_short) {
  struct fake fk;
  fake_start(&fk, silent_steps);
  keep_client *c = client_to(fk.url, 300);
  struct sigaction sa = {.sa_handler = on_alarm};
  sigemptyset(&sa.sa_mask);
  ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
  struct itimerval it = {{0, 20000}, {0, 20000}};
  ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
  uint64_t t0 = now_ms();
  int rc = keep_ping(c);
  uint64_t took = now_ms() - t0;
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  ck_assert_int_eq(rc, KEEP_ERR_TIMEOUT);
  ck_assert_uint_ge(took, 295);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// A peer that reads nothing: the largest SET fills the socket buffers, and
// the wait for room ends at the timeout.
START_TEST(send_waits_for_room_until_the_timeout) {
  static const struct step none[] = {R("+PONG\r\n")};
  struct fake fk;
  fake_start_with(&fk, none, 1, NO_READ);
  keep_client *c = client_to(fk.url, 300);
  shrink_send_buffers(&fk);
  static uint8_t value[KEEP_MAX_VALUE_LEN];
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_set(c, "k", 1, value, sizeof value, 0), KEEP_ERR_TIMEOUT);
  uint64_t took = now_ms() - t0;
  ck_assert_uint_ge(took, 295);
  ck_assert_uint_lt(took, 3000);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Pushed messages of the wrong shape, or of topics not subscribed, are
// passed over; a message is counted from its topic's subscription.
static const struct step shape_steps[] = {
    {REPLY,
     "*3\r\n$9\r\nsubscribe\r\n$1\r\nt\r\n:1\r\n"
     "*3\r\n+message\r\n$1\r\nt\r\n$1\r\na\r\n"            // status, not bulk
     "*3\r\n$8\r\npmessage\r\n$1\r\nt\r\n$1\r\nb\r\n"      // another kind
     "*3\r\n$7\r\nMESSAGE\r\n$1\r\nt\r\n$1\r\nc\r\n"       // case matters
     "*2\r\n$7\r\nmessage\r\n$1\r\nt\r\n"                  // too short
     "*4\r\n$7\r\nmessage\r\n$1\r\nt\r\n$1\r\nd\r\n:1\r\n" // too long
     "*3\r\n$7\r\nmessage\r\n$1\r\nu\r\n$1\r\ne\r\n"       // not subscribed
     "*3\r\n$7\r\nmessage\r\n:1\r\n$1\r\nf\r\n"            // no topic
     "*3\r\n$7\r\nmessage\r\n$2\r\ntt\r\n$1\r\ng\r\n"      // another topic
     "*3\r\n$7\r\nmessage\r\n+t\r\n$1\r\nh\r\n"            // status topic
     "*3\r\n$7\r\nmessage\r\n$-1\r\n$1\r\ni\r\n"           // nil topic
     "*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n:7\r\n"            // integer payload
     "*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n$-1\r\n"           // nil payload
     ":5\r\n+OK\r\n-ERR stray\r\n$-1\r\n*-1\r\n"           // no messages at all
     "*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n$4\r\ngood\r\n",
     0},
};

START_TEST(pushed_messages_of_the_wrong_shape) {
  struct step steps[1] = {shape_steps[0]};
  steps[0].len = strlen(steps[0].bytes);
  struct fake fk;
  fake_start(&fk, steps);
  keep_client *c = client_to(fk.url, 2000);
  ck_assert_int_eq(keep_subscribe(c, "t", 1), 0);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
  ck_assert_uint_eq(ev.seq, 1);
  ck_assert_uint_eq(ev.missed, 0);
  ck_assert_uint_eq(ev.topic_len, 1);
  ck_assert_mem_eq(ev.topic, "t", 1);
  ck_assert_uint_eq(ev.payload_len, 4);
  ck_assert_mem_eq(ev.payload, "good", 4);
  ck_assert_int_eq(keep_next_event(c, &ev, 50), 0);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Messages that arrive while a (un)subscription waits for its confirmation
// are counted, not kept, and show as a gap; replies that confirm something
// else are passed over until the right one comes.
static const struct step during_steps[] = {
    {CONFIRM, NULL, 0},
    R("*3\r\n$7\r\nmessage\r\n$1\r\nA\r\n$2\r\nm1\r\n"
      "*3\r\n$9\r\nsubscribe\r\n$1\r\nX\r\n:2\r\n"    // another topic's
      "*3\r\n$11\r\nunsubscribe\r\n$1\r\nB\r\n:2\r\n" // another verb
      ":1\r\n"
      "*3\r\n$7\r\nmessage\r\n$1\r\nA\r\n$2\r\nm2\r\n"
      "*3\r\n$9\r\nsubscribe\r\n$1\r\nB\r\n:2\r\n"
      "*3\r\n$7\r\nmessage\r\n$1\r\nA\r\n$2\r\nm3\r\n"),
    R("*3\r\n$7\r\nmessage\r\n$1\r\nB\r\n$2\r\nb1\r\n"
      "*3\r\n$11\r\nunsubscribe\r\n$1\r\nB\r\n:1\r\n"
      "*3\r\n$7\r\nmessage\r\n$1\r\nB\r\n$2\r\nb2\r\n"
      "*3\r\n$7\r\nmessage\r\n$1\r\nA\r\n$2\r\nm4\r\n"),
};

START_TEST(messages_during_a_confirmation_are_counted) {
  struct fake fk;
  fake_start(&fk, during_steps);
  keep_client *c = client_to(fk.url, 2000);
  ck_assert_int_eq(keep_subscribe(c, "A", 1), 0);
  ck_assert_int_eq(keep_subscribe(c, "B", 1), 0);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_mem_eq(ev.payload, "m3", 2);
  ck_assert_uint_eq(ev.seq, 3);
  ck_assert_uint_eq(ev.missed, 2);
  ck_assert_int_eq(keep_unsubscribe(c, "B", 1), 0);
  ck_assert_int_eq(keep_unsubscribe(c, "B", 1), KEEP_ERR_NOT_FOUND); // no traffic
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);                // b2 is passed over
  ck_assert_mem_eq(ev.topic, "A", 1);
  ck_assert_mem_eq(ev.payload, "m4", 2);
  ck_assert_uint_eq(ev.seq, 4);
  ck_assert_uint_eq(ev.missed, 0);
  ck_assert_uint_eq(num_cmds(&fk), 3);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// A refused subscription records nothing; one never confirmed times out
// and ends the others, which share its connection.
static const struct step refused_sub_steps[] = {
    {CONFIRM, NULL, 0},
    R("-ERR only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT allowed in this context\r\n"),
    R("-NOPERM this user has no permissions\r\n"),
    R(":1\r\n+OK\r\n"),
};

START_TEST(subscriptions_refused_or_unconfirmed) {
  struct fake fk;
  fake_start(&fk, refused_sub_steps);
  keep_client *c = client_to(fk.url, 250);
  keep_event ev;
  ck_assert_int_eq(keep_subscribe(c, "A", 1), 0);
  ck_assert_int_eq(keep_subscribe(c, "B", 1), KEEP_ERR_SERVER);
  ck_assert_int_eq(keep_unsubscribe(c, "B", 1), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_unsubscribe(c, "A", 1), KEEP_ERR_SERVER); // still subscribed
  ck_assert_int_eq(keep_next_event(c, &ev, 0), 0);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_subscribe(c, "C", 1), KEEP_ERR_TIMEOUT);
  ck_assert_uint_ge(now_ms() - t0, 245);
  ck_assert_int_eq(keep_next_event(c, &ev, 0), KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_unsubscribe(c, "A", 1), KEEP_ERR_NOT_FOUND);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Failures on the subscriber connection while waiting for events.
static const struct step event_fail_steps[] = {
    R("*3\r\n$9\r\nsubscribe\r\n$1\r\nt\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n$1\r\na\r\n"
      "$-7\r\n"),
    R("*3\r\n$9\r\nsubscribe\r\n$1\r\nt\r\n:1\r\n$1049601\r\n"),
    RC("*3\r\n$9\r\nsubscribe\r\n$1\r\nt\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$1\r\nt\r\n$1\r\nb\r\n"
       "*3\r\n$7\r\nmessage\r\n"),
};

START_TEST(subscriber_connection_failures) {
  struct fake fk;
  fake_start(&fk, event_fail_steps);
  keep_client *c = client_to(fk.url, 2000);
  keep_event ev;
  ck_assert_int_eq(keep_subscribe(c, "t", 1), 0);
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), KEEP_ERR_CLOSED); // all ended
  ck_assert_int_eq(keep_subscribe(c, "t", 1), 0);                   // on a new connection
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), KEEP_ERR_CLOSED); // too large
  ck_assert_int_eq(keep_subscribe(c, "t", 1), 0);
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_mem_eq(ev.payload, "b", 1);
  ck_assert_uint_eq(ev.seq, 1); // counted afresh on the new connection
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), KEEP_ERR_CLOSED); // closed mid-message
  ck_assert_int_eq(keep_next_event(c, &ev, 0), KEEP_ERR_CLOSED);
  ck_assert_int_eq(atomic_load(&fk.connections), 4);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// At most 1024 topics at once; a topic already subscribed is no new one.
START_TEST(subscription_limit) {
  static const struct step confirm[] = {{CONFIRM, NULL, 0}};
  struct fake fk;
  fake_start_with(&fk, confirm, 1, REPEAT_LAST);
  keep_client *c = client_to(fk.url, 2000);
  char t[16];
  for (int i = 0; i < 1024; i++) {
    int tl = snprintf(t, sizeof t, "t%d", i);
    ck_assert_int_eq(keep_subscribe(c, t, (size_t)tl), 0);
  }
  ck_assert_int_eq(keep_subscribe(c, "one-more", 8), -ENOBUFS);
  ck_assert_uint_eq(num_cmds(&fk), 1024); // refused without a word to the server
  ck_assert_int_eq(keep_subscribe(c, "t7", 2), 0);
  ck_assert_int_eq(keep_unsubscribe(c, "t0", 2), 0);
  ck_assert_int_eq(keep_subscribe(c, "one-more", 8), 0);
  ck_assert_uint_eq(num_cmds(&fk), 1027);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

static const struct step unlisten_steps[] = {
    R("+PONG\r\n"),
    {UNLISTEN, NULL, 0},
};

START_TEST(connections_refused) {
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%u", unused_loopback_port());
  const char *members[] = {url};
  keep_settings s = {.members = members, .num_members = 1};
  keep_client *c = (keep_client *)1;
  ck_assert_int_eq(keep_client_new(&c, &s), -ECONNREFUSED);
  ck_assert_ptr_null(c);
  struct fake fk;
  fake_start(&fk, unlisten_steps);
  c = client_to(fk.url, 2000);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_CLOSED); // the server went away
  ck_assert_int_eq(keep_ping(c), -ECONNREFUSED);
  ck_assert_int_eq(keep_subscribe(c, "t", 1), -ECONNREFUSED);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 0), KEEP_ERR_CLOSED);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Out of file descriptors: the reconnect fails with the socket's error.
START_TEST(no_descriptor_for_a_connection) {
  static const struct step steps[] = {{REPLY_CLOSE, "+PONG\r\n", 7}};
  struct fake fk;
  fake_start(&fk, steps);
  keep_client *c = client_to(fk.url, 2000);
  ck_assert_int_eq(keep_ping(c), 0);
  sleep_ms(20);                                    // the close has arrived
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_CLOSED); // finds the connection closed
  int lowest = dup(STDOUT_FILENO);
  ck_assert_int_ge(lowest, 0);
  close(lowest);
  struct rlimit old, now;
  ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
  now = old;
  now.rlim_cur = (rlim_t)lowest;
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &now), 0);
  int rc2 = keep_ping(c); // cannot open another
  int rc3 = keep_subscribe(c, "t", 1);
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
  ck_assert_int_eq(rc2, -EMFILE);
  ck_assert_int_eq(rc3, -EMFILE);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(settings_the_back_end_refuses) {
  struct fake fk;
  static const struct step steps[] = {R("+PONG\r\n")};
  fake_start(&fk, steps);
  const char *port = strrchr(fk.url, ':') + 1;
  char valkey[64], path[80];
  snprintf(valkey, sizeof valkey, "valkey://127.0.0.1:%s", port);
  snprintf(path, sizeof path, "redis://127.0.0.1:%s/0", port);
  static const struct {
    const char *member;
    int rc;
  } urls[] = {
      {"redis://127.0.0.1", KEEP_ERR_INVALID_ARGUMENT},        // no port
      {"redis://127.0.0.1:123456", KEEP_ERR_INVALID_ARGUMENT}, // port too long
      {"redis://127.0.0.1:1/0", KEEP_ERR_INVALID_ARGUMENT},    // a path (a database)
      {"redis://127.0.0.1:nope", KEEP_ERR_INVALID_ARGUMENT},   // no such service
      {"redis://:6379", KEEP_ERR_INVALID_ARGUMENT},
      {"redis://192.0.2.1:6379", KEEP_ERR_INVALID_ARGUMENT}, // plaintext off loopback
  };
  keep_client *c;
  for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
    const char *m[] = {urls[i].member};
    keep_settings s = {.members = m, .num_members = 1};
    ck_assert_msg(keep_client_new(&c, &s) == urls[i].rc, "%s", urls[i].member);
  }
  const char *with_path[] = {path};
  keep_settings s = {.members = with_path, .num_members = 1};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  const char *two[] = {fk.url, fk.url};
  s = (keep_settings){.members = two, .num_members = 2};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  const uint16_t ids[] = {1};
  const char *one[] = {fk.url};
  s = (keep_settings){.members = one, .num_members = 1, .member_ids = ids};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  keep_tls_settings tls;
  memset(&tls, 0, sizeof tls);
  s = (keep_settings){.members = one, .num_members = 1, .tls = &tls};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(atomic_load(&fk.connections), 0); // none of them connected
  // valkey:// is the same back end.
  const char *vk[] = {valkey};
  s = (keep_settings){.members = vk, .num_members = 1};
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  ck_assert_int_eq(keep_ping(c), 0);
  keep_client_free(c);
  ck_assert(!keep_resp_url(NULL));
  ck_assert(!keep_resp_url("127.0.0.1:1"));
  ck_assert(!keep_resp_url("rediss://127.0.0.1:1"));
  fake_stop(&fk);
}
END_TEST

// Below the public API: a request the back end does not offer is refused
// before anything is sent.
START_TEST(requests_not_offered) {
  static const struct step steps[] = {R("+PONG\r\n"), {CONFIRM, NULL, 0}};
  struct fake fk;
  fake_start(&fk, steps);
  const char *members[] = {fk.url};
  keep_settings s = {.members = members, .num_members = 1};
  struct keep_resp *r = NULL;
  ck_assert_int_eq(keep_resp_open(&r, &s), 0);
  static const uint8_t ops[] = {KEEP_OP_CLUSTER, KEEP_OP_HANDOFF_PULL, KEEP_OP_OK, 0};
  for (size_t i = 0; i < sizeof ops; i++) {
    keep_frame req, ans;
    keep_frame_init(&req, ops[i], 1);
    ck_assert_int_eq(keep_resp_call(r, &req, &ans, NULL), KEEP_ERR_INVALID_ARGUMENT);
  }
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_PING, 9);
  uint64_t sent = 0;
  ck_assert_int_eq(keep_resp_call(r, &req, &ans, &sent), 0);
  ck_assert_uint_ne(sent, 0);
  ck_assert_uint_eq(ans.id, 9);
  ck_assert_uint_eq(ans.opcode, KEEP_OP_OK);
  EXPECT_RAW(&fk, 0, "*1\r\n$4\r\nPING\r\n"); // nothing of the refused ones
  // A subscription reports when it was sent, as every call does.
  keep_frame_init(&req, KEEP_OP_SUBSCRIBE, 10);
  req.key = (const uint8_t *)"t";
  req.key_len = 1;
  sent = 0;
  ck_assert_int_eq(keep_resp_call(r, &req, &ans, &sent), 0);
  ck_assert_uint_ne(sent, 0);
  EXPECT_RAW(&fk, 1, "*2\r\n$9\r\nsubscribe\r\n$1\r\nt\r\n");
  ck_assert_uint_eq(num_cmds(&fk), 2);
  keep_resp_close(r);
  keep_resp_close(NULL);
  fake_stop(&fk);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-resp-fake");
  TCase *tc = tcase_create("fake");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, parse_check_on_crafted_replies);
  tcase_add_test(tc, parse_check_bounds_a_line);
  tcase_add_test(tc, commands_on_the_wire);
  tcase_add_test(tc, error_replies_map_to_statuses);
  tcase_add_test(tc, multi_exec_failures);
  tcase_add_test(tc, replies_of_the_wrong_type);
  tcase_add_test(tc, replies_one_byte_per_write);
  tcase_add_test(tc, malformed_replies_drop_the_connection);
  tcase_add_test(tc, reply_outgrowing_the_buffer);
  tcase_add_test(tc, largest_value_both_ways);
  tcase_add_test(tc, peer_closes_or_resets);
  tcase_add_test(tc, reset_between_calls);
  tcase_add_test(tc, silence_times_out);
  tcase_add_test(tc, signals_do_not_cut_the_wait_short);
  tcase_add_test(tc, send_waits_for_room_until_the_timeout);
  tcase_add_test(tc, pushed_messages_of_the_wrong_shape);
  tcase_add_test(tc, messages_during_a_confirmation_are_counted);
  tcase_add_test(tc, subscriptions_refused_or_unconfirmed);
  tcase_add_test(tc, subscriber_connection_failures);
  tcase_add_test(tc, subscription_limit);
  tcase_add_test(tc, connections_refused);
  tcase_add_test(tc, no_descriptor_for_a_connection);
  tcase_add_test(tc, settings_the_back_end_refuses);
  tcase_add_test(tc, requests_not_offered);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
