// keepd_proxy.h: a small user-space UDP and TCP proxy for the fault suites,
// since the kernel here has no tc netem. nftables rules in the suite's
// network namespace redirect the datagrams sent to one member's heartbeat
// port, and the connections made to its client port, to the proxy. It
// forwards each datagram to the member after a random delay (so that they
// also arrive out of order) and sends a second copy of some of them; it
// relays each connection's bytes both ways, each chunk after a random delay
// but in order (TCP allows nothing else). Its own packets carry a socket
// mark the rules let through. The faults apply inside a time window only;
// outside it the proxy forwards at once. Test-only and header-only; runs in
// a process of its own until a deadline.
#ifndef KEEPD_PROXY_H
#define KEEPD_PROXY_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keepd_harness.h"

// PROXY_MARK is the socket mark of the proxy's own datagrams.
#define PROXY_MARK 0x2a
#define PROXY_MAX_PENDING 512
#define PROXY_MAX_DGRAM 2048

struct proxy_cfg {
  unsigned listen_port, target_port;         // UDP, on 127.0.0.1
  unsigned tcp_listen_port, tcp_target_port; // TCP (0: none)
  unsigned max_delay_ms;                     // each datagram waits 0..max in the window
  unsigned dup_pct;                          // and this many percent are sent twice
  // The window and the end of the run, on keepd_test_now_ns(); read on
  // every turn, so that a suite that keeps the config in shared memory
  // can move them while the proxy runs (the fault suite opens the window
  // once its workers run, however long a starved setup took).
  _Atomic uint64_t fault_from, fault_until, until;
};

// proxy_stats is what proxy_run did. The first_* fields are when (on
// keepd_test_now_ns(), 0: never) it first delayed a datagram, sent one
// twice and delayed a chunk of a connection: a suite checks that the
// faults began soon after the window opened, a timing bound that a
// starved machine may miss (keepd_bound_check). run_delay_ns is filled
// by the suite: how long the proxy process waited on run queues.
struct proxy_stats {
  uint64_t in, out, dups, delayed;
  uint64_t conns, chunks, chunks_delayed;
  uint64_t first_delayed, first_dup, first_chunk_delayed;
  uint64_t run_delay_ns;
};

// A relayed connection: a client side and a member side, each direction a
// queue of chunks with due times that never decrease.
#define PROXY_MAX_CONNS 32
#define PROXY_MAX_CHUNKS 64
#define PROXY_CHUNK 16384

struct proxy_chunk {
  uint64_t due;
  size_t len, off;
  uint8_t data[PROXY_CHUNK];
};

struct proxy_dir {
  int from, to;
  bool eof, shut;
  size_t head, n;
  struct proxy_chunk q[PROXY_MAX_CHUNKS];
};

struct proxy_conn {
  bool used;
  struct proxy_dir d[2]; // 0: client to member, 1: member to client
};

struct proxy_pkt {
  uint64_t due;
  size_t len;
  uint8_t data[PROXY_MAX_DGRAM];
};

// proxy_rule returns the nft command (for keepd's fault suites: table
// "inet kfp" must exist with a nat output chain "out") that sends the
// member's datagrams through the proxy.
static inline void proxy_rule(char *out, size_t cap, const struct proxy_cfg *cfg) {
  snprintf(out, cap, "add rule inet kfp out udp dport %u meta mark != 0x%x redirect to :%u",
           cfg->target_port, PROXY_MARK, cfg->listen_port);
}

// proxy_tcp_rule is the same for the member's client port.
static inline void proxy_tcp_rule(char *out, size_t cap, const struct proxy_cfg *cfg) {
  snprintf(out, cap, "add rule inet kfp out tcp dport %u meta mark != 0x%x redirect to :%u",
           cfg->tcp_target_port, PROXY_MARK, cfg->tcp_listen_port);
}

static inline uint64_t proxy_rnd(uint64_t *r) {
  *r = *r * 6364136223846793005ull + 1442695040888963407ull;
  return *r >> 33;
}

// proxy_accept relays a new connection to the member.
static inline void proxy_accept(int lfd, unsigned target, struct proxy_conn *conns,
                                struct proxy_stats *st) {
  int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
  if (c < 0)
    return;
  struct proxy_conn *pc = NULL;
  for (int i = 0; i < PROXY_MAX_CONNS && pc == NULL; i++)
    if (!conns[i].used)
      pc = &conns[i];
  int m = socket(AF_INET, SOCK_STREAM, 0);
  int mark = PROXY_MARK;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)target)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (pc == NULL || m < 0 || setsockopt(m, SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0 ||
      connect(m, (struct sockaddr *)&a, sizeof a) != 0 || fcntl(m, F_SETFL, O_NONBLOCK) != 0) {
    close(c);
    if (m >= 0)
      close(m);
    return;
  }
  memset(pc, 0, sizeof *pc);
  pc->used = true;
  pc->d[0].from = pc->d[1].to = c;
  pc->d[0].to = pc->d[1].from = m;
  st->conns++;
}

// proxy_pump reads what `d` has, queues it with a delay, writes what is
// due, and passes the end of the stream on once everything before it went.
static inline void proxy_pump(struct proxy_dir *d, uint64_t now, bool faulty, unsigned max_delay_ms,
                              uint64_t *rnd, struct proxy_stats *st) {
  while (!d->eof && d->n < PROXY_MAX_CHUNKS) {
    struct proxy_chunk *k = &d->q[(d->head + d->n) % PROXY_MAX_CHUNKS];
    ssize_t r = recv(d->from, k->data, sizeof k->data, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
      d->eof = true;
      break;
    }
    if (r < 0)
      break;
    uint64_t delay = faulty ? proxy_rnd(rnd) % (max_delay_ms + 1) * 1000000u : 0;
    uint64_t last = d->n > 0 ? d->q[(d->head + d->n - 1) % PROXY_MAX_CHUNKS].due : 0;
    k->due = now + delay > last ? now + delay : last; // in order
    k->len = (size_t)r;
    k->off = 0;
    d->n++;
    st->chunks++;
    st->chunks_delayed += delay > 0;
    if (delay > 0 && st->first_chunk_delayed == 0)
      st->first_chunk_delayed = now;
  }
  while (d->n > 0) {
    struct proxy_chunk *k = &d->q[d->head];
    if (k->due > now)
      break;
    ssize_t w = send(d->to, k->data + k->off, k->len - k->off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) { // the other side is gone
        d->eof = true;
        d->n = 0;
      }
      break;
    }
    k->off += (size_t)w;
    if (k->off < k->len)
      break;
    d->head = (d->head + 1) % PROXY_MAX_CHUNKS;
    d->n--;
  }
  if (d->eof && d->n == 0 && !d->shut) {
    shutdown(d->to, SHUT_WR);
    d->shut = true;
  }
}

// proxy_faulty says whether `now` falls in `cfg`'s fault window.
static inline bool proxy_faulty(struct proxy_cfg *cfg, uint64_t now) {
  return now >= atomic_load(&cfg->fault_from) && now < atomic_load(&cfg->fault_until);
}

// proxy_run forwards until `cfg->until`; returns what it did.
static inline struct proxy_stats proxy_run(struct proxy_cfg *cfg, uint64_t seed) {
  struct proxy_stats st = {0};
  static struct proxy_pkt q[PROXY_MAX_PENDING];
  size_t nq = 0;
  int in = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int out = socket(AF_INET, SOCK_DGRAM, 0);
  int mark = PROXY_MARK;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg->listen_port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  struct sockaddr_in to = a;
  to.sin_port = htons((uint16_t)cfg->target_port);
  if (in < 0 || out < 0 || bind(in, (struct sockaddr *)&a, sizeof a) != 0 ||
      setsockopt(out, SOL_SOCKET, SO_MARK, &mark, sizeof mark) != 0)
    return st;
  uint64_t rnd = seed | 1;
  static struct proxy_conn conns[PROXY_MAX_CONNS];
  memset(conns, 0, sizeof conns);
  int lfd = -1;
  if (cfg->tcp_listen_port != 0) {
    struct sockaddr_in l = a;
    l.sin_port = htons((uint16_t)cfg->tcp_listen_port);
    int one = 1;
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&l, sizeof l) != 0 || listen(lfd, 64) != 0)
      return st;
  }
  for (;;) {
    uint64_t now = keepd_test_now_ns(), until = atomic_load(&cfg->until);
    if (now >= until)
      break;
    bool faulty_now = proxy_faulty(cfg, now);
    if (lfd >= 0) {
      proxy_accept(lfd, cfg->tcp_target_port, conns, &st);
      for (int i = 0; i < PROXY_MAX_CONNS; i++) {
        struct proxy_conn *pc = &conns[i];
        if (!pc->used)
          continue;
        for (int j = 0; j < 2; j++)
          proxy_pump(&pc->d[j], now, faulty_now, cfg->max_delay_ms, &rnd, &st);
        if (pc->d[0].eof && pc->d[0].n == 0 && pc->d[1].eof && pc->d[1].n == 0) {
          close(pc->d[0].from);
          close(pc->d[0].to);
          pc->used = false;
        }
      }
    }
    // Send what is due, in due order: that is where the reordering happens.
    for (size_t i = 0; i < nq;) {
      if (q[i].due <= now) {
        (void)!sendto(out, q[i].data, q[i].len, 0, (struct sockaddr *)&to, sizeof to);
        st.out++;
        q[i] = q[--nq];
      } else {
        i++;
      }
    }
    uint64_t next = until;
    for (size_t i = 0; i < nq; i++)
      if (q[i].due < next)
        next = q[i].due;
    struct pollfd p = {.fd = in, .events = POLLIN};
    int ms = (int)((next - now + 999999) / 1000000);
    if (lfd >= 0 && ms > 1)
      ms = 1; // the relayed connections are polled by time: simple and enough here
    if (poll(&p, 1, ms > 100 ? 100 : ms) <= 0)
      continue;
    for (;;) {
      uint8_t buf[PROXY_MAX_DGRAM];
      ssize_t n = recv(in, buf, sizeof buf, 0);
      if (n < 0)
        break;
      st.in++;
      now = keepd_test_now_ns();
      bool faulty = proxy_faulty(cfg, now);
      rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
      unsigned copies = faulty && (rnd >> 33) % 100 < cfg->dup_pct ? 2 : 1;
      st.dups += copies - 1;
      if (copies > 1 && st.first_dup == 0)
        st.first_dup = now;
      for (unsigned c = 0; c < copies; c++) {
        if (nq == PROXY_MAX_PENDING) {
          // A backlog read at once after the proxy was starved: this copy
          // goes now rather than be lost (the suites count every one out).
          (void)!sendto(out, buf, (size_t)n, 0, (struct sockaddr *)&to, sizeof to);
          st.out++;
          continue;
        }
        rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t delay = faulty ? (rnd >> 33) % (cfg->max_delay_ms + 1) * 1000000u : 0;
        st.delayed += delay > 0;
        if (delay > 0 && st.first_delayed == 0)
          st.first_delayed = now;
        q[nq].due = now + delay;
        q[nq].len = (size_t)n;
        memcpy(q[nq].data, buf, (size_t)n);
        nq++;
      }
    }
  }
  // What is still queued at the end goes out now (received in the last
  // turn, after that turn's sends): every datagram in is then out, once or
  // twice, which the suites check.
  for (size_t i = 0; i < nq; i++) {
    (void)!sendto(out, q[i].data, q[i].len, 0, (struct sockaddr *)&to, sizeof to);
    st.out++;
  }
  for (int i = 0; i < PROXY_MAX_CONNS; i++)
    if (conns[i].used) {
      close(conns[i].d[0].from);
      close(conns[i].d[0].to);
    }
  if (lfd >= 0)
    close(lfd);
  close(in);
  close(out);
  return st;
}

#endif // KEEPD_PROXY_H
