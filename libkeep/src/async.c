// async.c: libkeep's non-blocking client, for daemons that run their own
// event loop. It never sleeps or waits: requests are encoded into a
// per-connection output buffer and written when the connection's socket is
// writable, answers are matched to requests by id and completed through the
// caller's callbacks, BUSY answers wait on a timer the caller drives, and
// every socket sits in one private epoll instance whose descriptor is the only
// thing the caller's loop watches. Placement is the blocking client's: in
// cluster mode keep_slot_owner() picks the member, a MOVED answer is followed
// once; within a member, the PING answer's shard index and count let the
// client open one connection per server shard and send each keyed request to
// the connection of the shard that owns its slot, saving keepd the
// cross-shard hand-off.
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keep_common.h"
#include "keep_internal.h"
#include "keep_tls.h"

// KEEP_ASYNC_BUSY_RETRIES is how many times a request answered BUSY is sent
// again, after 1, 2, 4, 8 and 16 ms, as the blocking client does.
#define KEEP_ASYNC_BUSY_RETRIES 5
// KEEP_ASYNC_READ_BUDGET bounds the bytes read from one connection per
// keep_async_process() call, so that one busy connection cannot starve the
// others or the caller's loop.
#define KEEP_ASYNC_READ_BUDGET (256u * 1024u)
// KEEP_ASYNC_RENEW_MS is the pause between two attempts to renew a
// subscription whose connection failed or whose slot moved: short, since
// events published meanwhile are lost, but enough not to spin while no
// member can take it.
#define KEEP_ASYNC_RENEW_MS 100u
// KEEP_ASYNC_SUB_CHECK_MS is how often a live subscription in cluster mode
// is confirmed by sending SUBSCRIBE again: a member that no longer owns the
// topic's slot answers MOVED and the subscription moves to the owner. It
// bounds how long events are lost unseen when the slot moves away from a
// member that stays up (a member rejoining takes its slots back) and the
// member's heartbeat that says so is lost, at the cost of one small request
// per subscription and period, against the server's heartbeat after every
// 30 ms of silence.
#define KEEP_ASYNC_SUB_CHECK_MS 500u
// KEEP_ASYNC_DUP_FACTOR bounds the connections opened to find every shard of
// a member: the kernel spreads new connections over shards, so a few times
// the shard count finds them all with high probability.
#define KEEP_ASYNC_DUP_FACTOR 8u

enum conn_state { CONN_DOWN = 0, CONN_CONNECTING, CONN_UP };

struct areq {
  struct areq *prev, *next;
  keep_async_cb cb;
  void *user;
  uint64_t id;
  uint64_t first_ns, sent_ns, retry_at_ns;
  uint64_t lease_ms;
  uint32_t slot;
  int conn; // the connection it was written to, -1 in the retry list
  uint8_t op;
  uint8_t attempt;
  bool keyed, moved_followed, internal;
  size_t frame_len;
  uint8_t frame[]; // the encoded request; its id is patched on resend
};

// asub is one subscription the caller asked for. It lives on one
// connection (`conn`), or on none while it is renewed; the client renews
// and checks it with SUBSCRIBE requests of its own (`inflight`).
struct asub {
  uint8_t topic[KEEP_MAX_KEY];
  size_t topic_len;
  uint64_t last_seq;
  int conn;         // connection index, -1 while it is being renewed
  bool inflight;    // an internal SUBSCRIBE for it is out
  bool interrupted; // the caller was told; KEEP_EVENT_RESUBSCRIBED is owed
  bool notify;      // conn_fail's mark: the interruption is to be reported
  uint64_t due_ns;  // next renewal (conn < 0) or placement check
};

struct aconn {
  int fd;
  keep_tls_conn *tls; // NULL in plaintext
  bool handshaking;   // connected, TLS handshake under way
  enum conn_state state;
  uint32_t gen;       // bumped on close: stale epoll events are ignored
  uint32_t ep_events; // what is registered in the epoll set
  size_t member;
  int shard; // the server shard holding it, -1 until its PING answer
  bool assigned;
  uint64_t connect_deadline_ns;
  uint8_t *in;
  size_t in_len, in_cap;
  uint8_t *out;
  size_t out_len, out_off, out_cap;
  struct areq *head, *tail; // written or queued, in send order
};

struct amember {
  struct sockaddr_storage addr;
  socklen_t addr_len;
  uint64_t down_until_ns;
  unsigned num_shards; // 0 until learned
  unsigned dup_tries;
  int by_shard[KEEP_ASYNC_MAX_SHARD_CONNS]; // connection index, -1 none
};

struct keep_async {
  int epfd;
  keep_tls_ctx *tls_ctx; // NULL: plaintext, loopback only
  bool cluster, closing, in_process;
  size_t num_members, cur_member;
  uint16_t *ids;
  uint8_t *moved_to; // per slot: 1 + the member a MOVED named, 0 none
  struct amember *members;
  struct aconn *conns; // per member: conns_per_member slots; the first is primary
  size_t conns_per_member;
  uint8_t secret[KEEP_SECRET_LEN];
  uint32_t connect_timeout_ms, io_timeout_ms, lock_margin_ms;
  uint32_t max_pending;
  size_t max_pending_bytes;
  size_t num_pending, pending_bytes, num_subs;
  uint64_t next_id;
  struct areq *retry_head, *retry_tail;
  struct asub *subs; // num_subs of subs_cap
  size_t subs_cap;
  keep_async_event_cb on_event;
  void *event_user;
};

static void list_push(struct areq **head, struct areq **tail, struct areq *r) {
  r->next = NULL;
  r->prev = *tail;
  if (*tail != NULL)
    (*tail)->next = r;
  else
    *head = r;
  *tail = r;
}

static void list_unlink(struct areq **head, struct areq **tail, struct areq *r) {
  if (r->prev != NULL)
    r->prev->next = r->next;
  else
    *head = r->next;
  if (r->next != NULL)
    r->next->prev = r->prev;
  else
    *tail = r->prev;
  r->prev = r->next = NULL;
}

// Subscriptions.
//
// The client keeps the subscriptions its caller asked for in one array, each
// on the connection its SUBSCRIBE was answered on. When that connection
// fails, the caller hears of it (a negative status) and the client renews
// the subscription on the topic's owner, every KEEP_ASYNC_RENEW_MS until a
// member takes it. In cluster mode it also sends SUBSCRIBE again every
// KEEP_ASYNC_SUB_CHECK_MS on the connection of a live one: a member that
// lost the topic's slot answers MOVED, and the subscription moves to the
// owner; one that cannot confirm it owns the slot (BUSY), or an owner that
// does not take the subscription, makes the subscription count as
// interrupted, reported as for a failed connection, until a check succeeds.
// A renewed, moved or confirmed-again subscription is announced with
// KEEP_EVENT_RESUBSCRIBED: what was published since the interruption (or
// the move) may be lost. Every event lost thus lies in a gap count or
// between those two reports.

// A keyed request's body starts with its key: u8 length, then the bytes.
static const uint8_t *req_key(const struct areq *r, size_t *len) {
  *len = r->frame[KEEP_HEADER_LEN];
  return r->frame + KEEP_HEADER_LEN + 1;
}

static int sub_find(const keep_async *a, const uint8_t *t, size_t tl) {
  for (size_t i = 0; i < a->num_subs; i++)
    if (a->subs[i].topic_len == tl && memcmp(a->subs[i].topic, t, tl) == 0)
      return (int)i;
  return -1;
}

static void sub_remove(keep_async *a, int i) {
  a->subs[i] = a->subs[--a->num_subs];
}

// sub_report tells the caller about subscription `i`: an interruption
// (`status` < 0) or a renewal (`kind`). The callback may subscribe or
// unsubscribe, which moves the array: nothing of it is used afterwards.
static void sub_report(keep_async *a, int i, int status, int kind) {
  if (a->on_event == NULL)
    return;
  uint8_t topic[KEEP_MAX_KEY];
  size_t tl = a->subs[i].topic_len;
  memcpy(topic, a->subs[i].topic, tl);
  keep_event ev = {.kind = kind, .topic = topic, .topic_len = tl, .seq = a->subs[i].last_seq};
  a->on_event(a->event_user, status, &ev);
}

// sub_request_failed handles an internal SUBSCRIBE that got no OK: the
// subscription is tried again soon, renewed or checked. A failed check
// (sent on the subscription's own connection, and from there only on to
// the member a MOVED named) means the subscription may miss events: the
// caller is told, once.
static void sub_request_failed(keep_async *a, const struct areq *r, int status) {
  size_t tl;
  const uint8_t *t = req_key(r, &tl);
  int i = sub_find(a, t, tl);
  if (i < 0)
    return;
  struct asub *s = &a->subs[i];
  s->inflight = false;
  s->due_ns = keep_now_ns() + (uint64_t)KEEP_ASYNC_RENEW_MS * 1000000u;
  if (s->conn >= 0 && !s->interrupted) {
    s->interrupted = true;
    sub_report(a, i, status < 0 ? status : KEEP_ERR_CLOSED, 0);
  }
}

static void complete(keep_async *a, struct areq *r, int status, const keep_frame *f) {
  if (!r->internal) {
    a->num_pending--;
    a->pending_bytes -= r->frame_len;
  } else if (r->op == KEEP_OP_SUBSCRIBE && f == NULL && !a->closing) {
    sub_request_failed(a, r, status); // an answer was dealt with in on_answer
  }
  if (r->cb != NULL) {
    keep_async_result res = {.status = status};
    if (f != NULL) {
      res.num = (int64_t)f->num;
      res.value = f->value;
      res.value_len = f->value_len;
      res.counter = (f->flags & KEEP_FLAG_COUNTER) != 0;
      if (status == 0 && (r->op == KEEP_OP_LOCK || r->op == KEEP_OP_EXTEND)) {
        uint64_t margin = a->lock_margin_ms ? a->lock_margin_ms : 1 + r->lease_ms / 100;
        uint64_t usable = r->lease_ms > margin ? r->lease_ms - margin : 0;
        res.deadline_ns = r->sent_ns + usable * 1000000u;
      }
    }
    r->cb(r->user, &res);
  }
  free(r);
}

static int ep_set(keep_async *a, struct aconn *c, uint32_t events) {
  if (c->ep_events == events)
    return 0;
  struct epoll_event ev = {.events = events};
  ev.data.u64 = (uint64_t)(c - a->conns) << 32 | c->gen;
  if (epoll_ctl(a->epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
    return -errno;
  c->ep_events = events;
  return 0;
}

// conn_detach closes `c` and moves its requests to `*head`/`*tail`, for
// the caller to complete once no connection state is being walked any more
// (callbacks may submit new requests).
static void conn_detach(keep_async *a, struct aconn *c, struct areq **head, struct areq **tail) {
  keep_tls_conn_free(c->tls);
  c->tls = NULL;
  c->handshaking = false;
  if (c->fd >= 0) {
    epoll_ctl(a->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
  }
  c->fd = -1;
  c->state = CONN_DOWN;
  c->gen++;
  c->ep_events = 0;
  c->in_len = c->out_len = c->out_off = 0;
  struct amember *m = &a->members[c->member];
  if (c->assigned && c->shard >= 0 && (unsigned)c->shard < KEEP_ASYNC_MAX_SHARD_CONNS &&
      m->by_shard[c->shard] == (int)(c - a->conns))
    m->by_shard[c->shard] = -1;
  c->assigned = false;
  c->shard = -1;
  while (c->head != NULL) {
    struct areq *r = c->head;
    list_unlink(&c->head, &c->tail, r);
    list_push(head, tail, r);
  }
}

// conn_fail closes `c` and fails everything on it with `status`; its
// subscriptions are reported interrupted and renewed by run_timers(). When
// the primary connection of a member goes, its shard connections go too:
// they lead to the same process, which most likely went with it.
static void conn_fail(keep_async *a, struct aconn *c, int status) {
  struct areq *head = NULL, *tail = NULL;
  size_t first = c->member * a->conns_per_member;
  bool primary = (size_t)(c - a->conns) == first;
  size_t n = primary ? a->conns_per_member : 1;
  struct aconn *from = primary ? &a->conns[first] : c;
  int lo = (int)(from - a->conns), hi = lo + (int)n;
  for (size_t i = 0; i < n; i++)
    conn_detach(a, &from[i], &head, &tail);
  if (primary) {
    a->members[c->member].num_shards = 0;
    a->members[c->member].dup_tries = 0;
    if (a->cluster)
      a->members[c->member].down_until_ns =
          keep_now_ns() + (uint64_t)KEEP_MEMBER_DOWN_MS * 1000000u;
  }
  while (head != NULL) {
    struct areq *r = head;
    list_unlink(&head, &tail, r);
    complete(a, r, status, NULL);
  }
  if (a->closing)
    return; // keep_async_free() ends the subscriptions itself
  uint64_t now = keep_now_ns();
  for (size_t i = 0; i < a->num_subs; i++) {
    struct asub *s = &a->subs[i];
    if (s->conn >= lo && s->conn < hi) {
      s->conn = -1;
      s->due_ns = now; // renewed at the end of this keep_async_process()
      s->notify = !s->interrupted;
      s->interrupted = true;
    }
  }
  // A callback may change the array: start over after each one; the marks
  // make sure each subscription is reported once.
  for (size_t i = 0; i < a->num_subs;) {
    if (!a->subs[i].notify) {
      i++;
      continue;
    }
    a->subs[i].notify = false;
    sub_report(a, (int)i, status < 0 ? status : KEEP_ERR_CLOSED, 0);
    i = 0;
  }
}

static int out_reserve(struct aconn *c, size_t need) {
  if (c->out_off > 0 && c->out_off == c->out_len)
    c->out_off = c->out_len = 0;
  if (c->out_cap - c->out_len >= need)
    return 0;
  if (c->out_off > 0) {
    memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
    c->out_len -= c->out_off;
    c->out_off = 0;
    if (c->out_cap - c->out_len >= need)
      return 0;
  }
  return keep_buf_grow(&c->out, &c->out_cap, c->out_len + need);
}

// conn_start begins a non-blocking connect of connection slot `c`.
static int conn_start(keep_async *a, struct aconn *c) {
  struct amember *m = &a->members[c->member];
  int fd;
  int rc = keep_connect_start(&fd, (const struct sockaddr *)&m->addr, m->addr_len);
  if (rc < 0)
    return rc;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT};
  ev.data.u64 = (uint64_t)(c - a->conns) << 32 | c->gen;
  if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    rc = -errno;
    close(fd);
    return rc;
  }
  c->fd = fd;
  c->ep_events = ev.events;
  c->state = CONN_CONNECTING;
  c->connect_deadline_ns = keep_now_ns() + (uint64_t)a->connect_timeout_ms * 1000000u;
  c->shard = -1;
  c->assigned = false;
  // Every connection first asks PING: the answer names the shard holding it.
  struct areq *r = calloc(1, sizeof *r + KEEP_HEADER_LEN);
  if (r == NULL)
    return 0; // works without shard routing
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_PING, a->next_id++);
  size_t len;
  if (keep_frame_encode(r->frame, KEEP_HEADER_LEN, &len, &f) < 0 || out_reserve(c, len) < 0) {
    free(r);
    return 0;
  }
  r->frame_len = len;
  r->id = f.id;
  r->op = KEEP_OP_PING;
  r->internal = true;
  r->conn = (int)(c - a->conns);
  r->first_ns = r->sent_ns = keep_now_ns();
  memcpy(c->out + c->out_len, r->frame, len);
  c->out_len += len;
  list_push(&c->head, &c->tail, r);
  return 0;
}

static int member_alive_mask(keep_async *a, uint64_t now, uint64_t *out) {
  uint64_t alive = 0;
  for (size_t i = 0; i < a->num_members; i++)
    if (a->members[i].down_until_ns <= now)
      alive |= 1ull << i;
  if (alive == 0) // every member failed lately: try them all again
    alive = (1ull << a->num_members) - 1;
  *out = alive;
  return 0;
}

// route picks the connection for a request on `slot` (keyed) or for an
// unkeyed one, starting a connect if the member has none. Returns the
// connection index or a negative status.
static int route(keep_async *a, bool keyed, uint32_t slot, bool primary_only) {
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  for (size_t tries = 0; tries < a->num_members; tries++) {
    size_t m;
    uint64_t now = keep_now_ns();
    if (a->cluster && keyed) {
      uint64_t alive;
      member_alive_mask(a, now, &alive);
      if (a->moved_to[slot] != 0 && (alive >> (a->moved_to[slot] - 1) & 1))
        m = a->moved_to[slot] - 1u;
      else {
        int t = keep_slot_owner(a->secret, slot, a->ids, a->num_members, alive);
        if (t < 0)
          return t;
        m = (size_t)t;
      }
    } else {
      m = a->cur_member;
    }
    struct amember *mem = &a->members[m];
    struct aconn *p = &a->conns[m * a->conns_per_member];
    if (p->state != CONN_DOWN) {
      if (keyed && !primary_only && p->state == CONN_UP && mem->num_shards > 1) {
        unsigned s = (unsigned)(((uint64_t)slot * mem->num_shards) / KEEP_SLOTS);
        if (s < KEEP_ASYNC_MAX_SHARD_CONNS && mem->by_shard[s] >= 0 &&
            a->conns[mem->by_shard[s]].state == CONN_UP)
          return mem->by_shard[s];
      }
      return (int)(m * a->conns_per_member);
    }
    rc = conn_start(a, p);
    if (rc == 0)
      return (int)(m * a->conns_per_member);
    if (a->cluster) {
      mem->down_until_ns = now + (uint64_t)KEEP_MEMBER_DOWN_MS * 1000000u;
      if (keyed && a->moved_to[slot] == m + 1)
        a->moved_to[slot] = 0;
    }
    if (!keyed || !a->cluster)
      a->cur_member = (a->cur_member + 1) % a->num_members;
  }
  return rc;
}

// conn_queue writes `r` (new or resent) to connection `ci`.
static int conn_queue(keep_async *a, struct areq *r, int ci) {
  struct aconn *c = &a->conns[ci];
  int rc = out_reserve(c, r->frame_len);
  if (rc < 0)
    return rc;
  r->id = a->next_id++;
  keep_put_le(r->frame + 8, 8, r->id);
  r->sent_ns = keep_now_ns();
  r->conn = ci;
  memcpy(c->out + c->out_len, r->frame, r->frame_len);
  c->out_len += r->frame_len;
  list_push(&c->head, &c->tail, r);
  // Written at the next keep_async_process(), together with whatever else
  // is queued by then. Should epoll refuse, the request stays queued and the
  // I/O timeout fails the connection.
  if (c->state == CONN_UP)
    (void)ep_set(a, c, EPOLLIN | EPOLLOUT);
  return 0;
}

// dispatch writes `r` (new or resent) to the connection its key routes to.
static int dispatch(keep_async *a, struct areq *r) {
  // A subscription lives on one connection, so subscribe and unsubscribe
  // stay on the member's first one, which outlives its shard connections.
  int ci = route(a, r->keyed, r->slot, r->op == KEEP_OP_SUBSCRIBE || r->op == KEEP_OP_UNSUBSCRIBE);
  if (ci < 0)
    return ci;
  return conn_queue(a, r, ci);
}

static bool key_ok(const void *key, size_t key_len) {
  return key != NULL && key_len > 0 && key_len <= KEEP_MAX_KEY;
}

// submit_to encodes `f`, checks the limits and queues it: on connection
// `conn`, or where its key routes when `conn` is negative.
static int submit_to(keep_async *a, keep_frame *f, uint64_t lease_ms, keep_async_cb cb, void *user,
                     int conn) {
  if (a == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (a->closing)
    return -ECANCELED;
  size_t len = keep_frame_encoded_len(f);
  if (len == 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (a->num_pending >= a->max_pending || a->pending_bytes + len > a->max_pending_bytes)
    return -ENOBUFS;
  struct areq *r = calloc(1, sizeof *r + len);
  if (r == NULL)
    return -ENOMEM;
  size_t used;
  int rc = keep_frame_encode(r->frame, len, &used, f);
  if (rc < 0) {
    free(r);
    return rc;
  }
  r->frame_len = used;
  r->cb = cb;
  r->user = user;
  r->op = f->opcode;
  r->lease_ms = lease_ms;
  r->keyed = f->key_len > 0;
  if (r->keyed)
    r->slot = keep_hash_slot(keep_siphash24(a->secret, f->key, f->key_len));
  r->first_ns = keep_now_ns();
  if ((rc = conn >= 0 ? conn_queue(a, r, conn) : dispatch(a, r)) < 0) {
    free(r);
    return rc;
  }
  a->num_pending++;
  a->pending_bytes += used;
  return 0;
}

static int submit(keep_async *a, keep_frame *f, uint64_t lease_ms, keep_async_cb cb, void *user) {
  return submit_to(a, f, lease_ms, cb, user, -1);
}

// sub_send queues an internal SUBSCRIBE (renewal or check) or UNSUBSCRIBE
// of `t`: routed by its slot when `conn` is negative, else on `conn`.
static int sub_send(keep_async *a, uint8_t op, const uint8_t *t, size_t tl, int conn) {
  keep_frame f;
  keep_frame_init(&f, op, 0);
  f.key = t;
  f.key_len = tl;
  size_t len = keep_frame_encoded_len(&f), used;
  struct areq *r = calloc(1, sizeof *r + len);
  if (r == NULL)
    return -ENOMEM;
  int rc = keep_frame_encode(r->frame, len, &used, &f);
  if (rc == 0) {
    r->frame_len = used;
    r->op = op;
    r->internal = true;
    r->keyed = true;
    r->slot = keep_hash_slot(keep_siphash24(a->secret, t, tl));
    r->first_ns = keep_now_ns();
    rc = conn >= 0 ? conn_queue(a, r, conn) : dispatch(a, r);
  }
  if (rc < 0)
    free(r);
  return rc;
}

// sub_pending_on says whether a SUBSCRIBE of `t` waits for its answer on
// connection `c`.
static bool sub_pending_on(const struct aconn *c, const uint8_t *t, size_t tl) {
  for (const struct areq *r = c->head; r != NULL; r = r->next) {
    if (r->op != KEEP_OP_SUBSCRIBE)
      continue; // a PING has no key to read
    size_t kl;
    const uint8_t *k = req_key(r, &kl);
    if (kl == tl && memcmp(k, t, tl) == 0)
      return true;
  }
  return false;
}

// sub_drop_stale ends, as far as it can, a server's subscription to `t` on
// connection `ci` that the client no longer follows, so that it stops
// sending heartbeats. Not when a SUBSCRIBE of `t` waits on that connection:
// the UNSUBSCRIBE would then end the subscription it makes. Best effort:
// should it fail, the stale subscription's traffic is ignored until the
// connection ends.
static void sub_drop_stale(keep_async *a, int ci, const uint8_t *t, size_t tl) {
  if (ci < 0 || a->conns[ci].state == CONN_DOWN || sub_pending_on(&a->conns[ci], t, tl))
    return;
  (void)sub_send(a, KEEP_OP_UNSUBSCRIBE, t, tl, ci);
}

// sub_answered applies an OK answer to SUBSCRIBE of connection `c`, the
// caller's or an internal one. Returns 0 or -ENOMEM.
static int sub_answered(keep_async *a, struct aconn *c, const struct areq *r, uint64_t seq) {
  size_t tl;
  const uint8_t *t = req_key(r, &tl);
  int ci = (int)(c - a->conns);
  int i = sub_find(a, t, tl);
  uint64_t now = keep_now_ns();
  if (i < 0) {
    if (r->internal) { // unsubscribed meanwhile
      sub_drop_stale(a, ci, t, tl);
      return 0;
    }
    if (a->num_subs == a->subs_cap) {
      size_t cap = a->subs_cap ? a->subs_cap * 2 : 8;
      struct asub *n = realloc(a->subs, cap * sizeof *n);
      if (n == NULL)
        return -ENOMEM;
      a->subs = n;
      a->subs_cap = cap;
    }
    i = (int)a->num_subs++;
    a->subs[i] = (struct asub){.topic_len = tl, .last_seq = seq, .conn = ci};
    memcpy(a->subs[i].topic, t, tl);
    a->subs[i].due_ns = now + (uint64_t)KEEP_ASYNC_SUB_CHECK_MS * 1000000u;
    return 0;
  }
  struct asub *s = &a->subs[i];
  if (r->internal)
    s->inflight = false;
  s->due_ns = now + (uint64_t)KEEP_ASYNC_SUB_CHECK_MS * 1000000u;
  // A check on the subscription's own connection confirms it, unless the
  // server's sequence number went back: it forgot the subscription and
  // made a new one, so events may be lost.
  if (s->conn == ci && (!r->internal || seq >= s->last_seq)) {
    if (!r->internal)
      s->last_seq = seq;
    if (s->interrupted) { // a check failed before: confirmed again
      s->interrupted = false;
      sub_report(a, i, 0, KEEP_EVENT_RESUBSCRIBED);
    }
    return 0;
  }
  int old = s->conn;
  s->conn = ci;
  s->last_seq = seq;
  s->interrupted = false;
  if (old >= 0 && old != ci)
    sub_drop_stale(a, old, t, tl);
  sub_report(a, i, 0, KEEP_EVENT_RESUBSCRIBED);
  return 0;
}

// learn_moved records the owner a MOVED answer names; false if it names no
// member of the list.
static bool learn_moved(keep_async *a, const keep_frame *f) {
  size_t i;
  uint32_t slot;
  if (!keep_moved_member(&i, &slot, f, a->ids, a->num_members))
    return false;
  a->moved_to[slot] = (uint8_t)(i + 1);
  return true;
}

// open_shard_conns opens more connections to member `m` until each of its
// shards holds one (as far as conns_per_member allows), trying at most
// KEEP_ASYNC_DUP_FACTOR times the shard count connections in all.
static void open_shard_conns(keep_async *a, size_t m) {
  struct amember *mem = &a->members[m];
  unsigned n =
      mem->num_shards < KEEP_ASYNC_MAX_SHARD_CONNS ? mem->num_shards : KEEP_ASYNC_MAX_SHARD_CONNS;
  unsigned busy = 0;
  for (unsigned s = 0; s < n; s++)
    busy += mem->by_shard[s] >= 0;
  for (size_t k = 1; k < a->conns_per_member; k++) {
    const struct aconn *c = &a->conns[m * a->conns_per_member + k];
    busy += c->state != CONN_DOWN && !c->assigned;
  }
  for (size_t k = 1; k < a->conns_per_member; k++) {
    struct aconn *c = &a->conns[m * a->conns_per_member + k];
    if (busy >= n || mem->dup_tries >= KEEP_ASYNC_DUP_FACTOR * n)
      return;
    if (c->state != CONN_DOWN)
      continue;
    mem->dup_tries++;
    if (conn_start(a, c) < 0)
      return;
    busy++;
  }
}

// on_ping handles the answer to a connection's first PING: the shard that
// holds it and how many there are.
static void on_ping(keep_async *a, struct aconn *c, const keep_frame *f) {
  if (f->opcode != KEEP_OP_OK || f->value_len != 2)
    return;
  unsigned n = (unsigned)(f->value[0] | f->value[1] << 8);
  struct amember *mem = &a->members[c->member];
  bool primary = (size_t)(c - a->conns) % a->conns_per_member == 0;
  if (n == 0 || f->num >= n)
    return;
  if (primary)
    mem->num_shards = n;
  unsigned s = (unsigned)f->num;
  c->shard = (int)s;
  if (s < KEEP_ASYNC_MAX_SHARD_CONNS && mem->by_shard[s] < 0) {
    mem->by_shard[s] = (int)(c - a->conns);
    c->assigned = true;
  } else if (!primary) {
    // A second connection to a shard that has one: close it and try again.
    // It carries no request today (callers' requests go to assigned
    // connections, and on_answer has taken the PING off), so the list is
    // empty; any request it did carry would still complete, once.
    struct areq *h = NULL, *t = NULL;
    conn_detach(a, c, &h, &t);
    while (h != NULL) {
      struct areq *r = h;
      list_unlink(&h, &t, r);
      complete(a, r, KEEP_ERR_CLOSED, NULL);
    }
  }
  if (mem->num_shards > 1 && a->conns_per_member > 1)
    open_shard_conns(a, c->member);
}

static void on_answer(keep_async *a, struct aconn *c, const keep_frame *f) {
  struct areq *r = c->head;
  while (r != NULL && r->id != f->id)
    r = r->next;
  if (r == NULL)
    return; // e.g. the answer to a request whose connection was replaced
  list_unlink(&c->head, &c->tail, r);
  int status = keep_answer_status(f);
  // The client's own PING and UNSUBSCRIBE are neither retried nor followed:
  // an UNSUBSCRIBE sent elsewhere could end the subscription that lives
  // there.
  if (r->internal && r->op != KEEP_OP_SUBSCRIBE) {
    if (r->op == KEEP_OP_PING)
      on_ping(a, c, f);
    complete(a, r, status, f);
    return;
  }
  uint64_t now = keep_now_ns();
  // The client's own SUBSCRIBE is retried on its own, slower timer.
  if (status == KEEP_ERR_BUSY && r->attempt < KEEP_ASYNC_BUSY_RETRIES && !r->internal) {
    uint64_t pause = (uint64_t)1000000u << r->attempt;
    if (now + pause < r->first_ns + (uint64_t)a->io_timeout_ms * 1000000u) {
      r->attempt++;
      r->retry_at_ns = now + pause;
      r->conn = -1;
      list_push(&a->retry_head, &a->retry_tail, r);
      return;
    }
  }
  if (status == KEEP_ERR_MOVED && a->cluster && !r->moved_followed && learn_moved(a, f)) {
    r->moved_followed = true;
    if (dispatch(a, r) == 0)
      return;
  }
  if (r->op == KEEP_OP_SUBSCRIBE) {
    if (status == 0)
      status = sub_answered(a, c, r, f->num);
    else if (r->internal)
      sub_request_failed(a, r, status);
  }
  complete(a, r, status, f);
}

static void on_event_frame(keep_async *a, struct aconn *c, const keep_frame *f) {
  int i = sub_find(a, f->key, f->key_len);
  // Not followed (any more) on this connection: unsubscribed, or moved.
  if (i < 0 || a->subs[i].conn != (int)(c - a->conns))
    return;
  struct asub *s = &a->subs[i];
  keep_event ev = {.topic = f->key, .topic_len = f->key_len, .seq = f->num};
  if (f->opcode == KEEP_OP_EVENT) {
    ev.kind = KEEP_EVENT_MESSAGE;
    ev.payload = f->value;
    ev.payload_len = f->value_len;
    ev.missed = f->num > s->last_seq + 1 ? f->num - s->last_seq - 1 : 0;
  } else {
    ev.kind = KEEP_EVENT_HEARTBEAT;
    ev.missed = f->num > s->last_seq ? f->num - s->last_seq : 0;
  }
  if (f->num > s->last_seq)
    s->last_seq = f->num;
  // A heartbeat with a gap may be the member saying the topic moved away
  // (docs/keep-protocol.md): check now rather than at the next period.
  if (a->cluster && ev.kind == KEEP_EVENT_HEARTBEAT && ev.missed > 0)
    s->due_ns = 0;
  if (a->on_event != NULL)
    a->on_event(a->event_user, 0, &ev);
}

static void conn_write(keep_async *a, struct aconn *c) {
  while (c->out_off < c->out_len) {
    if (c->tls != NULL) {
      short want = 0;
      int w = keep_tls_write(c->tls, &want, c->out + c->out_off, c->out_len - c->out_off);
      if (w > 0) {
        c->out_off += (size_t)w;
        continue;
      }
      if (w == 0) {
        if (ep_set(a, c, EPOLLIN | EPOLLOUT) < 0)
          conn_fail(a, c, -errno);
        return;
      }
      conn_fail(a, c, w);
      return;
    }
    ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (ep_set(a, c, EPOLLIN | EPOLLOUT) < 0)
          conn_fail(a, c, -errno);
        return;
      }
      conn_fail(a, c, errno == EPIPE ? KEEP_ERR_CLOSED : -errno);
      return;
    }
    c->out_off += (size_t)n;
  }
  c->out_off = c->out_len = 0;
  int rc = ep_set(a, c, EPOLLIN);
  if (rc < 0)
    conn_fail(a, c, rc);
}

static void conn_read(keep_async *a, struct aconn *c) {
  uint32_t gen = c->gen;
  size_t budget = KEEP_ASYNC_READ_BUDGET;
  // Decrypted bytes left inside the TLS connection do not wake epoll, so a
  // TLS connection is read until it has none, whatever the budget.
  while ((budget > 0 || (c->tls != NULL && keep_tls_pending(c->tls))) && c->gen == gen) {
    if (c->in_cap - c->in_len < 16384) {
      size_t cap = c->in_cap ? c->in_cap * 2 : 65536;
      if (cap > KEEP_HEADER_LEN + KEEP_MAX_BODY + 65536)
        cap = KEEP_HEADER_LEN + KEEP_MAX_BODY + 65536;
      if (cap <= c->in_len) {
        conn_fail(a, c, KEEP_ERR_PROTOCOL);
        return;
      }
      uint8_t *p = realloc(c->in, cap);
      if (p == NULL) {
        conn_fail(a, c, -ENOMEM);
        return;
      }
      c->in = p;
      c->in_cap = cap;
    }
    ssize_t n;
    if (c->tls != NULL) {
      short want = 0;
      int t = keep_tls_read(c->tls, &want, c->in + c->in_len, c->in_cap - c->in_len);
      if (t == 0)
        return;
      if (t < 0) {
        conn_fail(a, c, t);
        return;
      }
      n = t;
    } else {
      n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    }
    if (n == 0) {
      conn_fail(a, c, KEEP_ERR_CLOSED);
      return;
    }
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return;
      conn_fail(a, c, -errno);
      return;
    }
    c->in_len += (size_t)n;
    budget = (size_t)n < budget ? budget - (size_t)n : 0;
    size_t off = 0;
    while (c->gen == gen) {
      keep_frame f;
      size_t used;
      int rc = keep_frame_decode(&f, &used, c->in + off, c->in_len - off, 0);
      if (rc == 0)
        break;
      if (rc < 0) {
        conn_fail(a, c, KEEP_ERR_PROTOCOL);
        return;
      }
      off += used;
      if (f.opcode == KEEP_OP_EVENT || f.opcode == KEEP_OP_HEARTBEAT) {
        on_event_frame(a, c, &f);
      } else if (f.opcode < KEEP_OP_OK || f.opcode == KEEP_OP_ENTRY || f.opcode == KEEP_OP_VIEW) {
        // A request, or an answer to one this client never sends (VIEW
        // answers CLUSTER, ENTRY a member's HANDOFF_PULL): the peer is not
        // speaking to us as keep/1 says, as the blocking client also finds.
        conn_fail(a, c, KEEP_ERR_PROTOCOL);
        return;
      } else {
        bool closes = f.opcode == KEEP_OP_ERROR &&
                      (f.num == KEEP_CODE_BAD_FRAME || f.num == KEEP_CODE_UNKNOWN_OP ||
                       f.num == KEEP_CODE_TOO_LARGE);
        on_answer(a, c, &f);
        if (closes && c->gen == gen) {
          // The server closes after these; what follows cannot be trusted.
          conn_fail(a, c, KEEP_ERR_CLOSED);
          return;
        }
      }
    }
    if (c->gen != gen)
      return;
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
  }
}

// conn_handshake advances the TLS handshake of a connected socket; the
// connect deadline bounds it too.
static void conn_handshake(keep_async *a, struct aconn *c) {
  short want = 0;
  int rc = keep_tls_handshake(c->tls, &want);
  if (rc == 1) {
    c->handshaking = false;
    c->state = CONN_UP;
    conn_write(a, c);
    return;
  }
  if (rc == 0) {
    if ((rc = ep_set(a, c, want == POLLOUT ? EPOLLIN | EPOLLOUT : EPOLLIN)) == 0)
      return;
  }
  conn_fail(a, c, rc == KEEP_ERR_CLOSED ? KEEP_ERR_TLS : rc);
}

static void conn_connected(keep_async *a, struct aconn *c) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
    err = errno;
  if (err == EINPROGRESS)
    return;
  if (err != 0) {
    if (!a->cluster && (size_t)(c - a->conns) % a->conns_per_member == 0)
      a->cur_member = (c->member + 1) % a->num_members;
    conn_fail(a, c, -err);
    return;
  }
  if (a->tls_ctx != NULL) {
    int rc = keep_tls_wrap_fd(&c->tls, a->tls_ctx, c->fd);
    if (rc < 0) {
      conn_fail(a, c, rc);
      return;
    }
    c->handshaking = true;
    conn_handshake(a, c);
    return;
  }
  c->state = CONN_UP;
  conn_write(a, c);
}

static void run_timers(keep_async *a) {
  uint64_t now = keep_now_ns();
  uint64_t io = (uint64_t)a->io_timeout_ms * 1000000u;
  size_t total = a->num_members * a->conns_per_member;
  for (size_t i = 0; i < total; i++) {
    struct aconn *c = &a->conns[i];
    if (c->state == CONN_CONNECTING && now >= c->connect_deadline_ns) {
      if (!a->cluster && i % a->conns_per_member == 0)
        a->cur_member = (c->member + 1) % a->num_members;
      conn_fail(a, c, KEEP_ERR_TIMEOUT);
    } else if (c->state == CONN_UP && c->head != NULL && now >= c->head->sent_ns + io) {
      conn_fail(a, c, KEEP_ERR_TIMEOUT);
    }
  }
  // Retries due now; ones re-queued by a callback meanwhile wait their turn.
  struct areq *due = NULL, *due_tail = NULL;
  for (struct areq *r = a->retry_head, *next; r != NULL; r = next) {
    next = r->next;
    if (r->retry_at_ns <= now) {
      list_unlink(&a->retry_head, &a->retry_tail, r);
      list_push(&due, &due_tail, r);
    }
  }
  while (due != NULL) {
    struct areq *r = due;
    list_unlink(&due, &due_tail, r);
    int rc = dispatch(a, r);
    if (rc < 0)
      complete(a, r, rc, NULL);
  }
  // Subscriptions due for renewal or a check. Sending runs no callback, so
  // the array stays put.
  for (size_t i = 0; i < a->num_subs; i++) {
    struct asub *s = &a->subs[i];
    if (s->inflight || s->due_ns > now)
      continue;
    if (s->conn >= 0 && !a->cluster) {
      s->due_ns = UINT64_MAX; // one member: only its connection's end moves it
      continue;
    }
    // A check goes where the subscription lives; a renewal where the topic
    // routes.
    if (sub_send(a, KEEP_OP_SUBSCRIBE, s->topic, s->topic_len, s->conn) == 0)
      s->inflight = true;
    else
      s->due_ns = now + (uint64_t)KEEP_ASYNC_RENEW_MS * 1000000u;
  }
}

int keep_async_process(keep_async *a) {
  if (a == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (a->in_process || a->closing)
    return -EINPROGRESS;
  a->in_process = true;
  struct epoll_event evs[64];
  int rc = 0;
  for (int round = 0; round < 4; round++) {
    int n = epoll_wait(a->epfd, evs, 64, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      rc = -errno;
      break;
    }
    for (int i = 0; i < n; i++) {
      size_t ci = (size_t)(evs[i].data.u64 >> 32);
      uint32_t gen = (uint32_t)evs[i].data.u64;
      struct aconn *c = &a->conns[ci];
      if (c->gen != gen || c->fd < 0)
        continue;
      if (c->state == CONN_CONNECTING) {
        if (c->handshaking)
          conn_handshake(a, c);
        else
          conn_connected(a, c);
        continue;
      }
      if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        conn_read(a, c);
      if (c->gen == gen && c->state == CONN_UP && (evs[i].events & EPOLLOUT))
        conn_write(a, c);
    }
    if (n < 64)
      break;
  }
  run_timers(a);
  a->in_process = false;
  return rc;
}

int keep_async_next_timeout_ms(const keep_async *a) {
  if (a == NULL)
    return -1;
  uint64_t now = keep_now_ns(), best = UINT64_MAX;
  uint64_t io = (uint64_t)a->io_timeout_ms * 1000000u;
  size_t total = a->num_members * a->conns_per_member;
  for (size_t i = 0; i < total; i++) {
    const struct aconn *c = &a->conns[i];
    if (c->state == CONN_CONNECTING && c->connect_deadline_ns < best)
      best = c->connect_deadline_ns;
    else if (c->state == CONN_UP && c->head != NULL && c->head->sent_ns + io < best)
      best = c->head->sent_ns + io;
  }
  for (const struct areq *r = a->retry_head; r != NULL; r = r->next)
    if (r->retry_at_ns < best)
      best = r->retry_at_ns;
  for (size_t i = 0; i < a->num_subs; i++)
    if (!a->subs[i].inflight && a->subs[i].due_ns < best)
      best = a->subs[i].due_ns;
  if (best == UINT64_MAX)
    return -1;
  if (best <= now)
    return 0;
  uint64_t ms = (best - now + 999999) / 1000000;
  return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

int keep_async_fd(const keep_async *a) {
  return a == NULL ? -1 : a->epfd;
}

size_t keep_async_pending(const keep_async *a) {
  return a == NULL ? 0 : a->num_pending;
}

size_t keep_async_connections(const keep_async *a) {
  size_t n = 0;
  if (a == NULL)
    return 0;
  for (size_t i = 0; i < a->num_members * a->conns_per_member; i++)
    n += a->conns[i].state == CONN_UP;
  return n;
}

// resolve parses "host:port" or "[v6]:port" and resolves it once, at
// creation, since getaddrinfo blocks.
static int resolve(struct amember *m, const char *member, bool tls) {
  char host[256];
  const char *port;
  if (keep_member_split(host, sizeof host, &port, member, KEEP_PORT_NUM_MAX_LEN) < 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res;
  if (getaddrinfo(host, port, &hints, &res) != 0 || res == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  if (res->ai_addrlen <= sizeof m->addr && (tls || keep_is_loopback_addr(res->ai_addr))) {
    memcpy(&m->addr, res->ai_addr, res->ai_addrlen);
    m->addr_len = res->ai_addrlen;
    rc = 0;
  }
  freeaddrinfo(res);
  return rc;
}

int keep_async_new(keep_async **out, const keep_settings *s, const keep_async_options *opt) {
  if (out == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (s == NULL || s->members == NULL || s->num_members == 0 || s->num_members > KEEP_MAX_MEMBERS ||
      (opt != NULL && opt->version != 1))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_async *a = calloc(1, sizeof *a);
  if (a == NULL)
    return -ENOMEM;
  a->epfd = -1;
  a->num_members = s->num_members;
  a->cluster = s->member_ids != NULL;
  unsigned shard_conns =
      opt != NULL && opt->max_shard_conns ? opt->max_shard_conns : KEEP_ASYNC_MAX_SHARD_CONNS;
  if (shard_conns > KEEP_ASYNC_MAX_SHARD_CONNS)
    shard_conns = KEEP_ASYNC_MAX_SHARD_CONNS;
  // One primary per member, plus up to shard_conns - 1 shard connections.
  a->conns_per_member = shard_conns;
  a->connect_timeout_ms =
      s->connect_timeout_ms ? s->connect_timeout_ms : KEEP_DEFAULT_CONNECT_TIMEOUT_MS;
  a->io_timeout_ms = s->io_timeout_ms ? s->io_timeout_ms : KEEP_DEFAULT_IO_TIMEOUT_MS;
  a->lock_margin_ms = s->lock_margin_ms;
  a->max_pending = opt != NULL && opt->max_pending ? opt->max_pending : KEEP_DEFAULT_MAX_PENDING;
  a->max_pending_bytes = opt != NULL && opt->max_pending_bytes ? opt->max_pending_bytes
                                                               : KEEP_DEFAULT_MAX_PENDING_BYTES;
  if (opt != NULL) {
    a->on_event = opt->on_event;
    a->event_user = opt->event_user;
  }
  if (s->secret != NULL)
    memcpy(a->secret, s->secret, KEEP_SECRET_LEN);
  a->next_id = 1;
  a->members = calloc(a->num_members, sizeof *a->members);
  a->conns = calloc(a->num_members * a->conns_per_member, sizeof *a->conns);
  if (a->members == NULL || a->conns == NULL) {
    // keep_async_free walks the connections of every member: neither
    // table may be missing there.
    free(a->members);
    free(a->conns);
    free(a);
    return -ENOMEM;
  }
  // Before anything can fail: keep_async_free closes every descriptor that
  // is not -1, and calloc's zero is standard input.
  for (size_t i = 0; i < a->num_members * a->conns_per_member; i++) {
    a->conns[i].fd = -1;
    a->conns[i].shard = -1;
    a->conns[i].member = i / a->conns_per_member;
  }
  for (size_t i = 0; i < a->num_members; i++)
    for (size_t k = 0; k < KEEP_ASYNC_MAX_SHARD_CONNS; k++)
      a->members[i].by_shard[k] = -1;
  int rc = -ENOMEM;
  if (a->cluster) {
    a->ids = malloc(a->num_members * sizeof *a->ids);
    a->moved_to = calloc(KEEP_SLOTS, 1);
    if (a->ids == NULL || a->moved_to == NULL)
      goto fail;
    memcpy(a->ids, s->member_ids, a->num_members * sizeof *a->ids);
  }
  for (size_t i = 0; i < a->num_members; i++)
    if ((rc = resolve(&a->members[i], s->members[i], s->tls != NULL)) < 0)
      goto fail;
  if (s->tls != NULL && (rc = keep_tls_client_ctx_load(&a->tls_ctx, s->tls)) < 0)
    goto fail;
  a->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (a->epfd < 0) {
    rc = -errno;
    goto fail;
  }
  *out = a;
  return 0;
fail:
  keep_async_free(a);
  return rc;
}

void keep_async_free(keep_async *a) {
  if (a == NULL)
    return;
  a->closing = true;
  // Every subscription ends here, whether live or being renewed; the
  // callbacks cannot subscribe or unsubscribe any more (-ECANCELED).
  for (size_t i = 0; i < a->num_subs; i++)
    sub_report(a, (int)i, -ECANCELED, 0);
  a->num_subs = 0;
  if (a->conns != NULL)
    for (size_t m = 0; m < a->num_members; m++)
      conn_fail(a, &a->conns[m * a->conns_per_member], -ECANCELED);
  while (a->retry_head != NULL) {
    struct areq *r = a->retry_head;
    list_unlink(&a->retry_head, &a->retry_tail, r);
    complete(a, r, -ECANCELED, NULL);
  }
  if (a->conns != NULL)
    for (size_t i = 0; i < a->num_members * a->conns_per_member; i++) {
      free(a->conns[i].in);
      free(a->conns[i].out);
    }
  if (a->epfd >= 0)
    close(a->epfd);
  keep_tls_ctx_free(a->tls_ctx); // after every connection made from it
  free(a->conns);
  free(a->members);
  free(a->ids);
  free(a->moved_to);
  free(a->subs);
  free(a);
}

// Operations: each builds its frame and hands it to submit().

int keep_async_ping(keep_async *a, keep_async_cb cb, void *user) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_PING, 0);
  return submit(a, &f, 0, cb, user);
}

static int key_op(keep_async *a, uint8_t op, const void *key, size_t key_len, uint64_t num,
                  uint64_t num2, const void *value, size_t value_len, keep_async_cb cb,
                  void *user) {
  if (!key_ok(key, key_len) || (value == NULL && value_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (value_len > KEEP_MAX_VALUE_HARD)
    return KEEP_ERR_TOO_LARGE;
  keep_frame f;
  keep_frame_init(&f, op, 0);
  f.key = key;
  f.key_len = key_len;
  f.num = num;
  f.num2 = num2;
  f.value = value;
  f.value_len = value_len;
  return submit(a, &f, 0, cb, user);
}

int keep_async_get(keep_async *a, const void *key, size_t key_len, keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_GET, key, key_len, 0, 0, NULL, 0, cb, user);
}

int keep_async_set(keep_async *a, const void *key, size_t key_len, const void *value,
                   size_t value_len, uint64_t ttl_ms, keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_SET, key, key_len, ttl_ms, 0, value, value_len, cb, user);
}

int keep_async_set_nx(keep_async *a, const void *key, size_t key_len, const void *value,
                      size_t value_len, uint64_t ttl_ms, keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_SETNX, key, key_len, ttl_ms, 0, value, value_len, cb, user);
}

int keep_async_del(keep_async *a, const void *key, size_t key_len, keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_DEL, key, key_len, 0, 0, NULL, 0, cb, user);
}

int keep_async_incr(keep_async *a, const void *key, size_t key_len, int64_t delta, uint64_t ttl_ms,
                    keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_INCR, key, key_len, (uint64_t)delta, ttl_ms, NULL, 0, cb, user);
}

int keep_async_expire(keep_async *a, const void *key, size_t key_len, uint64_t ttl_ms,
                      keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_EXPIRE, key, key_len, ttl_ms, 0, NULL, 0, cb, user);
}

static int lock_op(keep_async *a, uint8_t op, const void *key, size_t key_len, const void *holder,
                   size_t holder_len, uint64_t lease_ms, keep_async_cb cb, void *user) {
  if (!key_ok(key, key_len) || holder == NULL || holder_len == 0 || holder_len > KEEP_MAX_HOLDER ||
      (op != KEEP_OP_UNLOCK && (lease_ms == 0 || lease_ms > UINT32_MAX)))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame f;
  keep_frame_init(&f, op, 0);
  f.key = key;
  f.key_len = key_len;
  f.text = holder;
  f.text_len = holder_len;
  f.num = lease_ms;
  return submit(a, &f, lease_ms, cb, user);
}

int keep_async_lock(keep_async *a, const void *key, size_t key_len, const void *holder,
                    size_t holder_len, uint64_t lease_ms, keep_async_cb cb, void *user) {
  return lock_op(a, KEEP_OP_LOCK, key, key_len, holder, holder_len, lease_ms, cb, user);
}

int keep_async_unlock(keep_async *a, const void *key, size_t key_len, const void *holder,
                      size_t holder_len, keep_async_cb cb, void *user) {
  return lock_op(a, KEEP_OP_UNLOCK, key, key_len, holder, holder_len, 0, cb, user);
}

int keep_async_extend(keep_async *a, const void *key, size_t key_len, const void *holder,
                      size_t holder_len, uint64_t lease_ms, keep_async_cb cb, void *user) {
  return lock_op(a, KEEP_OP_EXTEND, key, key_len, holder, holder_len, lease_ms, cb, user);
}

int keep_async_publish(keep_async *a, const void *topic, size_t topic_len, const void *payload,
                       size_t payload_len, keep_async_cb cb, void *user) {
  return key_op(a, KEEP_OP_PUBLISH, topic, topic_len, 0, 0, payload, payload_len, cb, user);
}

int keep_async_subscribe(keep_async *a, const void *topic, size_t topic_len, keep_async_cb cb,
                         void *user) {
  if (a != NULL && a->num_subs >= a->max_pending)
    return -ENOBUFS;
  return key_op(a, KEEP_OP_SUBSCRIBE, topic, topic_len, 0, 0, NULL, 0, cb, user);
}

int keep_async_unsubscribe(keep_async *a, const void *topic, size_t topic_len, keep_async_cb cb,
                           void *user) {
  if (a == NULL || !key_ok(topic, topic_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  // Sent where the subscription lives, which may not be where the topic
  // routes now; from here on its traffic is dropped, and a renewal in
  // flight is undone when its answer comes.
  int i = sub_find(a, topic, topic_len);
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_UNSUBSCRIBE, 0);
  f.key = topic;
  f.key_len = topic_len;
  int rc = submit_to(a, &f, 0, cb, user, i >= 0 ? a->subs[i].conn : -1);
  if (rc == 0 && i >= 0)
    sub_remove(a, i);
  return rc;
}
