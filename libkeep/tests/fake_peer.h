// fake_peer.h: helpers shared by the tests that run libkeep's client
// against a scripted peer on loopback: the clock, a listener on a port the
// kernel picks, a port that refuses connections, a client of one member,
// and a keep/1 peer whose thread decodes every request and hands it to the
// test's script (test_client_fake.c, test_client_paths.c; the RESP peer of
// test_resp_fake.c uses only the first part).
#ifndef KEEP_FAKE_PEER_H
#define KEEP_FAKE_PEER_H

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keep.h"
#include "keep_internal.h"

// sleep_ms sleeps the whole time even when the signals some cases send
// interrupt it.
static inline void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

// now_ms reads a clock nothing adjusts, so that the client's waits can be
// timed.
static inline uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

// listen_loopback returns a socket listening on 127.0.0.1 at the port the
// kernel picked (*port), so that test programs running at once never
// collide. A non-zero `rcvbuf` is set before the bind: accepted sockets
// inherit it, and a small one makes a client's large request wait.
static inline int listen_loopback(unsigned *port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  if (rcvbuf != 0)
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(fd, 8), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  *port = ntohs(a.sin_port);
  return fd;
}

// unused_loopback_port returns a loopback port that refuses connections:
// bound for a moment and never listened on.
static inline unsigned unused_loopback_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

// client_to returns a client of the one member `member` ("host:port" or a
// redis:// URL), free it with keep_client_free.
static inline keep_client *client_to(const char *member, uint32_t io_timeout_ms) {
  const char *members[] = {member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = io_timeout_ms};
  keep_client *c = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  return c;
}

// The keep/1 peer.

// put_frame sends `f` whole, however large: the peer's frames carry events
// of up to KEEP_MAX_VALUE_HARD bytes.
static inline void put_frame(int fd, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f), len;
  uint8_t *buf = malloc(need);
  if (buf != NULL && keep_frame_encode(buf, need, &len, f) == 0)
    (void)!send(fd, buf, len, MSG_NOSIGNAL); // the client may have gone, as some cases intend
  free(buf);
}

// answer sends the answer `op` with number `num` to request `id`.
static inline void answer(int fd, uint8_t op, uint64_t id, uint64_t num) {
  keep_frame f;
  keep_frame_init(&f, op, id);
  f.num = num;
  put_frame(fd, &f);
}

// push sends a frame of subscription `topic` at sequence number `seq`: an
// event carries `payload`, a heartbeat (any other `op`) nothing.
static inline void push(int fd, uint8_t op, const char *topic, uint64_t seq, const uint8_t *payload,
                        size_t payload_len) {
  keep_frame f;
  keep_frame_init(&f, op, 1);
  f.key = (const uint8_t *)topic;
  f.key_len = strlen(topic);
  f.num = seq;
  f.value = payload;
  f.value_len = op == KEEP_OP_EVENT ? payload_len : 0;
  put_frame(fd, &f);
}

// What the script does with the connection after a request; PARK keeps it
// open but reads it no more.
enum verdict { KEEP_OPEN, CLOSE_FIN, CLOSE_RST, PARK };

struct keep_peer;

// peer_script answers request number `n` (0-based, over all connections),
// the `k`-th (0-based) of connection `conn` (1-based, in accept order), on
// `fd`.
typedef enum verdict peer_script(struct keep_peer *peer, int fd, int conn, int n, int k,
                                 const keep_frame *req);

// A keep/1 peer on loopback. A test embeds it as the first member of its
// own state, which the script reaches by casting `peer`.
struct keep_peer {
  int lfd;
  char member[32]; // "127.0.0.1:<port>", for keep_settings.members
  pthread_t thread;
  peer_script *script;
  bool park_first; // the first connection is accepted but never read
  atomic_bool stop;
  atomic_int requests, connections, closes;
};

// peer_wait_readable polls `fd` in short steps so that peer_stop is heard
// even while a connection is parked or silent.
static inline bool peer_wait_readable(struct keep_peer *peer, int fd) {
  while (!atomic_load(&peer->stop)) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 20) > 0)
      return true;
  }
  return false;
}

// peer_main serves one connection at a time until peer_stop: it decodes
// the requests, counts them, and does what the script says.
static inline void *peer_main(void *arg) {
  struct keep_peer *peer = arg;
  // Room for two frames of the largest size, so that any frame decodes.
  size_t cap = 2 * (KEEP_MAX_BODY + KEEP_HEADER_LEN);
  uint8_t *buf = malloc(cap);
  int parked = -1;
  while (buf != NULL && peer_wait_readable(peer, peer->lfd)) {
    int fd = accept(peer->lfd, NULL, NULL);
    if (fd < 0)
      continue;
    int conn = atomic_fetch_add(&peer->connections, 1) + 1;
    size_t have = 0;
    int k = 0;
    enum verdict v = peer->park_first && conn == 1 ? PARK : KEEP_OPEN;
    while (v == KEEP_OPEN && peer_wait_readable(peer, fd)) {
      ssize_t n = recv(fd, buf + have, cap - have, 0);
      if (n <= 0)
        break;
      have += (size_t)n;
      size_t pos = 0, used;
      keep_frame f;
      while (v == KEEP_OPEN && keep_frame_decode(&f, &used, buf + pos, have - pos, 0) == 1) {
        pos += used;
        v = peer->script(peer, fd, conn, atomic_fetch_add(&peer->requests, 1), k++, &f);
      }
      memmove(buf, buf + pos, have - pos);
      have -= pos;
    }
    if (v == PARK) {
      parked = fd; // closed when the peer stops
      continue;
    }
    if (v == CLOSE_RST) {
      struct linger hard = {.l_onoff = 1, .l_linger = 0};
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }
    close(fd);
    atomic_fetch_add(&peer->closes, 1);
  }
  if (parked >= 0)
    close(parked);
  free(buf);
  return NULL;
}

// peer_start starts `peer`, zeroed but for park_first, with `script` on a
// new loopback listener (`rcvbuf` as for listen_loopback).
static inline void peer_start(struct keep_peer *peer, peer_script *script, int rcvbuf) {
  unsigned port;
  peer->script = script;
  peer->lfd = listen_loopback(&port, rcvbuf);
  snprintf(peer->member, sizeof peer->member, "127.0.0.1:%u", port);
  ck_assert_int_eq(pthread_create(&peer->thread, NULL, peer_main, peer), 0);
}

// peer_stop ends the peer's thread and closes its sockets: nobody listens
// on its port afterwards.
static inline void peer_stop(struct keep_peer *peer) {
  atomic_store(&peer->stop, true);
  pthread_join(peer->thread, NULL);
  close(peer->lfd);
}

#endif
