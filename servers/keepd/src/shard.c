// shard.c: one shard's event loop, the heart of keepd. Each shard is a
// thread with its own epoll instance, listening socket (SO_REUSEPORT on the
// shared port), connections, key store and topics; nothing is shared but the
// rings. A loop iteration reads what is ready (up to 64 KiB per
// connection), executes every complete frame, collects requests for keys of
// another shard into one batch per shard and executes the batches the other
// shards sent, then writes each connection's answers with one send and each
// batch with one ring push and one wake-up, so batching grows with load.
// Answers to requests executed on other shards come back in those batches,
// which is why a connection's answers may come in a different order than its
// requests (docs/keep-protocol.md, "Pipelining and answer order").
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keepd_server.h"

// Shards talk in batches: everything one shard has for another at the end of
// a loop iteration travels as one message (one allocation, one ring slot,
// one wake-up), a sequence of records, each a struct rec and `len` bytes.
enum { REC_REQUEST = 1, REC_ANSWER = 2, REC_EVENT = 3, REC_CONN_GONE = 4 };

struct rec {
  uint8_t type;
  int32_t fd; // the connection, on the shard that holds it
  uint32_t gen;
  uint32_t len;
  uint64_t hash; // REC_REQUEST: the key's hash, so the owner need not rehash
};

struct msg {
  struct msg *next; // in a backlog
  size_t len;
  uint8_t *data;
};

#define EV_LISTENER UINT64_MAX
#define EV_WAKE (UINT64_MAX - 1)

uint64_t keepd_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (p == NULL) {
    fprintf(stderr, "keepd: out of memory\n");
    abort();
  }
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (p == NULL) {
    fprintf(stderr, "keepd: out of memory\n");
    abort();
  }
  return p;
}

static void buf_reserve(struct keepd_buf *b, size_t extra) {
  if (b->cap - b->len >= extra)
    return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->len < extra)
    cap *= 2;
  b->p = xrealloc(b->p, cap);
  b->cap = cap;
}

static void buf_frame(struct keepd_buf *b, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f), len;
  buf_reserve(b, need);
  if (need == 0 || keep_frame_encode(b->p + b->len, b->cap - b->len, &len, f) != 0)
    abort(); // every frame keepd builds is encodable: a bug otherwise
  b->len += len;
}

static void buf_answer(struct keepd_buf *b, uint8_t opcode, uint64_t id, uint64_t num) {
  keep_frame f;
  keep_frame_init(&f, opcode, id);
  f.num = num;
  buf_frame(b, &f);
}

static void buf_error(struct keepd_buf *b, uint64_t id, unsigned code, const char *text) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_ERROR, id);
  f.num = code;
  f.text = (const uint8_t *)text;
  f.text_len = strlen(text);
  buf_frame(b, &f);
}

// Rings and backlogs.

static keepd_ring *ring_to(struct keepd_shard *s, unsigned to) {
  return &s->srv->rings[(size_t)s->id * s->srv->num_shards + to];
}

static keepd_ring *ring_from(struct keepd_shard *s, unsigned from) {
  return &s->srv->rings[(size_t)from * s->srv->num_shards + s->id];
}

// rec_begin starts a record for shard `to` and returns where its header is;
// the body is written with the buf_* functions, then rec_end sets its length.
static size_t rec_begin(struct keepd_shard *s, unsigned to, uint8_t type, int fd, uint32_t gen,
                        uint64_t hash) {
  struct keepd_buf *q = &s->outq[to];
  buf_reserve(q, sizeof(struct rec));
  size_t at = q->len;
  struct rec r = {.type = type, .fd = fd, .gen = gen, .len = 0, .hash = hash};
  memcpy(q->p + at, &r, sizeof r);
  q->len += sizeof r;
  return at;
}

static void rec_end(struct keepd_shard *s, unsigned to, size_t at) {
  struct keepd_buf *q = &s->outq[to];
  uint32_t len = (uint32_t)(q->len - at - sizeof(struct rec));
  memcpy(q->p + at + offsetof(struct rec, len), &len, sizeof len);
}

static void rec_put(struct keepd_shard *s, unsigned to, uint8_t type, int fd, uint32_t gen,
                    uint64_t hash, const uint8_t *data, size_t len) {
  size_t at = rec_begin(s, to, type, fd, gen, hash);
  struct keepd_buf *q = &s->outq[to];
  buf_reserve(q, len);
  if (len > 0)
    memcpy(q->p + q->len, data, len);
  q->len += len;
  rec_end(s, to, at);
}

// ship_batches sends each shard the batch collected for it. Answers and
// events must not be lost, so when a ring is full the batch waits in a
// backlog, in order; requests are refused with BUSY before a backlog grows
// past KEEPD_MAX_FORWARD (handle_frame).
static void ship_batches(struct keepd_shard *s) {
  for (unsigned to = 0; to < s->srv->num_shards; to++) {
    struct keepd_buf *q = &s->outq[to];
    if (q->len == 0)
      continue;
    struct msg *m = xmalloc(sizeof *m);
    m->next = NULL;
    m->data = q->p;
    m->len = q->len;
    memset(q, 0, sizeof *q);
    if (s->backlog_head[to] == NULL && keepd_ring_push(ring_to(s, to), m)) {
      s->wake[to] = true;
      continue;
    }
    if (s->backlog_tail[to] != NULL)
      s->backlog_tail[to]->next = m;
    else
      s->backlog_head[to] = m;
    s->backlog_tail[to] = m;
    s->backlog_bytes[to] += m->len;
  }
}

static bool flush_backlogs(struct keepd_shard *s) {
  bool left = false;
  for (unsigned t = 0; t < s->srv->num_shards; t++) {
    while (s->backlog_head[t] != NULL && keepd_ring_push(ring_to(s, t), s->backlog_head[t])) {
      s->wake[t] = true;
      s->backlog_bytes[t] -= s->backlog_head[t]->len;
      s->backlog_head[t] = s->backlog_head[t]->next;
      if (s->backlog_head[t] == NULL)
        s->backlog_tail[t] = NULL;
    }
    left |= s->backlog_head[t] != NULL;
  }
  return left;
}

// Connections.

static struct keepd_conn *conn_get(struct keepd_shard *s, int fd, uint32_t gen) {
  if (fd < 0 || (size_t)fd >= s->conns_cap)
    return NULL;
  struct keepd_conn *c = s->conns[fd];
  return c != NULL && c->gen == gen && !c->dead ? c : NULL;
}

static void mark_dirty(struct keepd_shard *s, struct keepd_conn *c) {
  if (c->dirty)
    return;
  c->dirty = true;
  if (s->num_dirty == s->dirty_cap) {
    s->dirty_cap = s->dirty_cap ? s->dirty_cap * 2 : 64;
    s->dirty = xrealloc(s->dirty, s->dirty_cap * sizeof *s->dirty);
  }
  s->dirty[s->num_dirty++] = c;
}

static void mark_pending(struct keepd_shard *s, struct keepd_conn *c) {
  if (c->pending)
    return;
  c->pending = true;
  if (s->num_pending == s->pending_cap) {
    s->pending_cap = s->pending_cap ? s->pending_cap * 2 : 64;
    s->pending = xrealloc(s->pending, s->pending_cap * sizeof *s->pending);
  }
  s->pending[s->num_pending++] = c;
}

static void topics_drop_conn(struct keepd_shard *s, unsigned shard, int fd, uint32_t gen);

static void conn_close(struct keepd_shard *s, struct keepd_conn *c) {
  if (c->dead)
    return;
  c->dead = true;
  for (unsigned t = 0; t < s->srv->num_shards; t++) {
    if (!(c->sub_shards & (1ull << t)))
      continue;
    if (t == s->id)
      topics_drop_conn(s, s->id, c->fd, c->gen);
    else
      rec_put(s, t, REC_CONN_GONE, c->fd, c->gen, 0, NULL, 0);
  }
  s->conns[c->fd] = NULL;
  keep_tls_conn_free(c->tls);
  c->tls = NULL;
  close(c->fd);
  s->num_conns--;
  c->next_dead = s->graveyard;
  s->graveyard = c;
}

static void conn_set_events(struct keepd_shard *s, struct keepd_conn *c) {
  uint32_t ev = (c->blocked || c->closing ? 0 : EPOLLIN) | (c->want_out ? EPOLLOUT : 0);
  if (ev == c->events)
    return;
  struct epoll_event e = {.events = ev, .data.u64 = (uint64_t)c->fd};
  epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &e);
  c->events = ev;
}

// tls_send writes the pending answers with one SSL_write (partial writes
// allowed), as send() would: the count, or -1 with errno EAGAIN or EPIPE.
static ssize_t tls_send(struct keepd_conn *c) {
  short want;
  int r = keep_tls_write(c->tls, &want, c->out.p + c->out_off, c->out.len - c->out_off);
  if (r > 0)
    return r;
  errno = r == 0 ? EAGAIN : EPIPE;
  return -1;
}

// conn_handshake advances a TLS handshake; once done, the connection reads
// like any other.
static void conn_read(struct keepd_shard *s, struct keepd_conn *c);
static void conn_handshake(struct keepd_shard *s, struct keepd_conn *c) {
  short want = POLLIN;
  int rc = keep_tls_handshake(c->tls, &want);
  if (rc < 0) {
    keepd_tls_count(c->tls, rc);
    conn_close(s, c);
    return;
  }
  if (rc == 0) {
    c->want_out = want == POLLOUT;
    conn_set_events(s, c);
    return;
  }
  keepd_tls_count(c->tls, rc);
  c->want_out = false;
  conn_set_events(s, c);
  conn_read(s, c); // the client's first request may have come with its Finished
}

static void conn_flush(struct keepd_shard *s, struct keepd_conn *c) {
  if (c->dead)
    return;
  if (c->tls != NULL && !keep_tls_conn_done(c->tls)) {
    conn_handshake(s, c); // the handshake waited for the socket to drain
    return;
  }
  if (c->out.len > c->out_off) {
    ssize_t n = c->tls != NULL
                    ? tls_send(c)
                    : send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      conn_close(s, c);
      return;
    }
    if (n > 0)
      c->out_off += (size_t)n;
  }
  if (c->out_off == c->out.len) {
    c->out.len = c->out_off = 0;
    if (c->out.cap > 4 * KEEPD_READ_CHUNK) { // give back a burst's memory
      free(c->out.p);
      c->out.p = NULL;
      c->out.cap = 0;
    }
    if (c->closing) {
      conn_close(s, c);
      return;
    }
    c->want_out = false;
    if (c->blocked) {
      c->blocked = false;
      mark_pending(s, c);
    }
  } else {
    c->want_out = true;
  }
  conn_set_events(s, c);
}

// Topics.

static size_t topic_bucket(uint64_t h) {
  return (size_t)(h >> 14) % KEEPD_TOPIC_BUCKETS;
}

static struct keepd_topic *topic_find(struct keepd_shard *s, uint64_t h, const uint8_t *name,
                                      size_t len, bool create) {
  struct keepd_topic **pp = &s->topics[topic_bucket(h)];
  for (struct keepd_topic *t = *pp; t != NULL; t = t->next)
    if (t->hash == h && t->name_len == len && memcmp(t->name, name, len) == 0)
      return t;
  if (!create)
    return NULL;
  struct keepd_topic *t = xmalloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->hash = h;
  t->name_len = len;
  memcpy(t->name, name, len);
  t->next = *pp;
  *pp = t;
  return t;
}

static void topic_gc(struct keepd_shard *s, struct keepd_topic *t) {
  if (t->num_subs > 0)
    return;
  struct keepd_topic **pp = &s->topics[topic_bucket(t->hash)];
  while (*pp != t)
    pp = &(*pp)->next;
  *pp = t->next;
  free(t->subs);
  free(t);
}

// deliver sends one event or heartbeat to a subscriber, wherever its
// connection lives.
// An event for a subscriber that does not read is dropped once its unsent
// output passes KEEPD_MAX_OUTPUT: delivery is at most once, and the
// subscriber sees the loss as a sequence gap.
static void deliver(struct keepd_shard *s, struct keepd_sub *sub, const keep_frame *f) {
  if (sub->shard == s->id) {
    struct keepd_conn *c = conn_get(s, sub->fd, sub->gen);
    if (c != NULL && !c->closing && c->out.len - c->out_off <= KEEPD_MAX_OUTPUT) {
      buf_frame(&c->out, f);
      mark_dirty(s, c);
    }
    return;
  }
  size_t at = rec_begin(s, sub->shard, REC_EVENT, sub->fd, sub->gen, 0);
  buf_frame(&s->outq[sub->shard], f);
  rec_end(s, sub->shard, at);
}

static void topics_drop_conn(struct keepd_shard *s, unsigned shard, int fd, uint32_t gen) {
  for (size_t b = 0; b < KEEPD_TOPIC_BUCKETS; b++) {
    struct keepd_topic *t = s->topics[b];
    while (t != NULL) {
      struct keepd_topic *next = t->next;
      for (size_t i = 0; i < t->num_subs;) {
        struct keepd_sub *u = &t->subs[i];
        if (u->shard == shard && u->fd == fd && u->gen == gen)
          t->subs[i] = t->subs[--t->num_subs];
        else
          i++;
      }
      topic_gc(s, t);
      t = next;
    }
  }
}

static void heartbeats(struct keepd_shard *s) {
  for (size_t b = 0; b < KEEPD_TOPIC_BUCKETS; b++)
    for (struct keepd_topic *t = s->topics[b]; t != NULL; t = t->next) {
      // Once another member owns the topic's slot, events are published
      // there and this subscription misses them: it skips a sequence
      // number, once per move, in a heartbeat sent now, so that the
      // subscriber sees a possible loss instead of a quiet topic.
      if (s->srv->cl != NULL) {
        uint16_t owner;
        bool moved = keepd_cluster_route(s->srv->cl, keep_hash_slot(t->hash), s->now, &owner) ==
                     KEEPD_ROUTE_MOVED;
        for (size_t i = 0; moved && !t->moved && i < t->num_subs; i++) {
          t->subs[i].seq++;
          t->subs[i].last_sent_ns = 0;
        }
        t->moved = moved;
      }
      for (size_t i = 0; i < t->num_subs; i++) {
        struct keepd_sub *u = &t->subs[i];
        if (s->now - u->last_sent_ns < KEEPD_HEARTBEAT_NS)
          continue;
        keep_frame f;
        keep_frame_init(&f, KEEP_OP_HEARTBEAT, u->sub_id);
        f.key = t->name;
        f.key_len = t->name_len;
        f.num = u->seq;
        deliver(s, u, &f);
        u->last_sent_ns = s->now;
      }
    }
}

// Execution.

struct origin {
  unsigned shard;
  int fd;
  uint32_t gen;
};

static uint64_t remaining_ms(uint64_t expires_ns, uint64_t now) {
  if (expires_ns == 0)
    return 0;
  return expires_ns > now ? (expires_ns - now + 999999) / 1000000 : 1;
}

static uint64_t deadline_of(uint64_t now, uint64_t ttl_ms) {
  if (ttl_ms == 0)
    return 0;
  if (ttl_ms > UINT64_MAX / 2000000u)
    ttl_ms = UINT64_MAX / 2000000u;
  return now + ttl_ms * 1000000u;
}

static void exec_set(struct keepd_shard *s, const keep_frame *f, uint64_t h, struct keepd_buf *b) {
  keepd_store *st = &s->store;
  keepd_entry *old = keepd_store_find(st, h, f->key, f->key_len, s->now);
  if (old != NULL && f->opcode == KEEP_OP_SETNX) {
    buf_answer(b, KEEP_OP_EXISTS, f->id, remaining_ms(old->expires_ns, s->now));
    return;
  }
  keepd_entry *e = keepd_store_new_entry(st, h, f->key, f->key_len, f->value_len, 0);
  if (e == NULL) {
    buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
    return;
  }
  e->kind = KIND_VALUE;
  e->expires_ns = deadline_of(s->now, f->num);
  if (f->value_len > 0)
    memcpy(keepd_entry_value(e), f->value, f->value_len);
  if (keepd_store_put(st, e, old) < 0) {
    keepd_store_free_entry(st, e);
    buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
    return;
  }
  buf_answer(b, KEEP_OP_OK, f->id, 0);
}

static void exec_lock(struct keepd_shard *s, const keep_frame *f, uint64_t h, struct keepd_buf *b) {
  keepd_store *st = &s->store;
  keepd_entry *e = keepd_store_find(st, h, f->key, f->key_len, s->now);
  if (f->opcode != KEEP_OP_UNLOCK && (f->num == 0 || f->num > s->srv->set.max_lease_ms)) {
    buf_error(b, f->id, KEEP_CODE_INVALID, "lease out of range");
    return;
  }
  if (e != NULL && e->kind != KIND_LOCK) {
    buf_error(b, f->id, KEEP_CODE_WRONG_TYPE, "key holds another type");
    return;
  }
  bool mine = e != NULL && e->holder_len == f->text_len &&
              memcmp(keepd_entry_holder(e), f->text, f->text_len) == 0;
  if (e != NULL && !mine) {
    buf_answer(b, KEEP_OP_EXISTS, f->id, remaining_ms(e->expires_ns, s->now));
    return;
  }
  if (f->opcode == KEEP_OP_UNLOCK || f->opcode == KEEP_OP_EXTEND) {
    if (e == NULL) {
      buf_answer(b, KEEP_OP_NOT_FOUND, f->id, 0);
      return;
    }
    if (f->opcode == KEEP_OP_UNLOCK) {
      keepd_store_remove(st, e);
      buf_answer(b, KEEP_OP_OK, f->id, 0);
    } else {
      e->expires_ns = deadline_of(s->now, f->num);
      buf_answer(b, KEEP_OP_OK, f->id, f->num);
    }
    return;
  }
  if (e != NULL) { // the holder asks again: renew
    e->expires_ns = deadline_of(s->now, f->num);
    buf_answer(b, KEEP_OP_OK, f->id, f->num);
    return;
  }
  // After a start nothing is known of the locks an earlier instance granted:
  // refuse new ones until every such lease has run out.
  if (s->now < s->srv->quarantine_until_ns) {
    buf_answer(b, KEEP_OP_NOT_YET, f->id, remaining_ms(s->srv->quarantine_until_ns, s->now));
    return;
  }
  // Likewise after this member started serving the slot (again): another
  // member may have granted locks on it meanwhile.
  uint64_t wait_ms;
  if (s->srv->cl != NULL &&
      (wait_ms = keepd_cluster_lock_wait(s->srv->cl, keep_hash_slot(h), s->now)) > 0) {
    buf_answer(b, KEEP_OP_NOT_YET, f->id, wait_ms);
    return;
  }
  e = keepd_store_new_entry(st, h, f->key, f->key_len, 0, f->text_len);
  if (e == NULL) {
    buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
    return;
  }
  e->kind = KIND_LOCK;
  memcpy(keepd_entry_holder(e), f->text, f->text_len);
  e->expires_ns = deadline_of(s->now, f->num);
  if (keepd_store_put(st, e, NULL) < 0) {
    keepd_store_free_entry(st, e);
    buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
    return;
  }
  buf_answer(b, KEEP_OP_OK, f->id, f->num);
}

static void exec_incr(struct keepd_shard *s, const keep_frame *f, uint64_t h, struct keepd_buf *b) {
  keepd_store *st = &s->store;
  keepd_entry *e = keepd_store_find(st, h, f->key, f->key_len, s->now);
  int64_t delta = (int64_t)f->num;
  if (e == NULL) {
    e = keepd_store_new_entry(st, h, f->key, f->key_len, 8, 0);
    if (e == NULL) {
      buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
      return;
    }
    e->kind = KIND_COUNTER;
    e->v.counter = delta;
    e->expires_ns = deadline_of(s->now, f->num2);
    if (keepd_store_put(st, e, NULL) < 0) {
      keepd_store_free_entry(st, e);
      buf_error(b, f->id, KEEP_CODE_OUT_OF_MEMORY, "out of memory");
      return;
    }
  } else if (e->kind != KIND_COUNTER) {
    buf_error(b, f->id, KEEP_CODE_WRONG_TYPE, "key holds another type");
    return;
  } else {
    int64_t sum; // the builtin stores the wrapped sum even when it overflows
    if (__builtin_add_overflow(e->v.counter, delta, &sum)) {
      buf_error(b, f->id, KEEP_CODE_OVERFLOW, "counter overflow");
      return;
    }
    e->v.counter = sum;
  }
  buf_answer(b, KEEP_OP_OK, f->id, (uint64_t)e->v.counter);
}

static void exec_pubsub(struct keepd_shard *s, const keep_frame *f, uint64_t h, struct origin o,
                        struct keepd_buf *b) {
  struct keepd_topic *t = topic_find(s, h, f->key, f->key_len, f->opcode == KEEP_OP_SUBSCRIBE);
  if (f->opcode == KEEP_OP_PUBLISH) {
    size_t n = t == NULL ? 0 : t->num_subs;
    for (size_t i = 0; i < n; i++) {
      struct keepd_sub *u = &t->subs[i];
      keep_frame ev;
      keep_frame_init(&ev, KEEP_OP_EVENT, u->sub_id);
      ev.key = t->name;
      ev.key_len = t->name_len;
      ev.num = ++u->seq;
      ev.value = f->value;
      ev.value_len = f->value_len;
      deliver(s, u, &ev);
      u->last_sent_ns = s->now;
    }
    buf_answer(b, KEEP_OP_OK, f->id, n);
    return;
  }
  size_t i = 0;
  while (t != NULL && i < t->num_subs &&
         !(t->subs[i].shard == o.shard && t->subs[i].fd == o.fd && t->subs[i].gen == o.gen))
    i++;
  if (f->opcode == KEEP_OP_UNSUBSCRIBE) {
    if (t == NULL || i == t->num_subs) {
      buf_answer(b, KEEP_OP_NOT_FOUND, f->id, 0);
      return;
    }
    t->subs[i] = t->subs[--t->num_subs];
    topic_gc(s, t);
    buf_answer(b, KEEP_OP_OK, f->id, 0);
    return;
  }
  if (i == t->num_subs) {
    if (t->num_subs == t->cap) {
      t->cap = t->cap ? t->cap * 2 : 4;
      t->subs = xrealloc(t->subs, t->cap * sizeof *t->subs);
    }
    t->subs[t->num_subs++] =
        (struct keepd_sub){.shard = o.shard, .fd = o.fd, .gen = o.gen, .sub_id = f->id};
  }
  t->subs[i].last_sent_ns = s->now;
  buf_answer(b, KEEP_OP_OK, f->id, t->subs[i].seq);
}

// exec runs one keyed request on the shard that owns its key and writes the
// answer into `b`.
static void exec(struct keepd_shard *s, const keep_frame *f, uint64_t h, struct origin o,
                 struct keepd_buf *b) {
  keepd_store *st = &s->store;
  keepd_entry *e;
  switch (f->opcode) {
  case KEEP_OP_GET:
    e = keepd_store_find(st, h, f->key, f->key_len, s->now);
    if (e == NULL) {
      buf_answer(b, KEEP_OP_NOT_FOUND, f->id, 0);
    } else if (e->kind == KIND_LOCK) {
      buf_error(b, f->id, KEEP_CODE_WRONG_TYPE, "key holds a lock");
    } else {
      keep_frame a;
      keep_frame_init(&a, KEEP_OP_OK, f->id);
      uint8_t le[8];
      if (e->kind == KIND_COUNTER) {
        keep_put_le(le, 8, (uint64_t)e->v.counter);
        a.flags = KEEP_FLAG_COUNTER;
        a.num = (uint64_t)e->v.counter;
        a.value = le;
        a.value_len = 8;
      } else {
        a.value = keepd_entry_value(e);
        a.value_len = e->value_len;
      }
      buf_frame(b, &a);
    }
    break;
  case KEEP_OP_SET:
  case KEEP_OP_SETNX:
    exec_set(s, f, h, b);
    break;
  case KEEP_OP_DEL:
    e = keepd_store_find(st, h, f->key, f->key_len, s->now);
    if (e != NULL)
      keepd_store_remove(st, e);
    buf_answer(b, e != NULL ? KEEP_OP_OK : KEEP_OP_NOT_FOUND, f->id, 0);
    break;
  case KEEP_OP_INCR:
    exec_incr(s, f, h, b);
    break;
  case KEEP_OP_EXPIRE:
    e = keepd_store_find(st, h, f->key, f->key_len, s->now);
    if (e == NULL) {
      buf_answer(b, KEEP_OP_NOT_FOUND, f->id, 0);
    } else if (e->kind == KIND_LOCK) {
      buf_error(b, f->id, KEEP_CODE_WRONG_TYPE, "key holds a lock: use extend");
    } else {
      e->expires_ns = deadline_of(s->now, f->num);
      buf_answer(b, KEEP_OP_OK, f->id, 0);
    }
    break;
  case KEEP_OP_LOCK:
  case KEEP_OP_UNLOCK:
  case KEEP_OP_EXTEND:
    exec_lock(s, f, h, b);
    break;
  case KEEP_OP_PUBLISH:
  case KEEP_OP_SUBSCRIBE:
  case KEEP_OP_UNSUBSCRIBE:
    exec_pubsub(s, f, h, o, b);
    break;
  case KEEP_OP_HANDOFF_PULL:
    keepd_handoff_serve(s->srv->cl, st, s->id, s->srv->num_shards, f, s->now, b);
    break;
  default:
    buf_error(b, f->id, KEEP_CODE_UNKNOWN_OP, "unknown operation");
    break;
  }
}

static void answer_view(struct keepd_shard *s, uint64_t id, struct keepd_buf *b) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_VIEW, id);
  // The view's epoch: how often a member's live set changed; fixed at 1
  // for a single keepd.
  f.num = s->srv->cl != NULL ? keepd_cluster_epoch(s->srv->cl) : 1;
  f.num_view = 1;
  f.view[0] =
      (keep_view_entry){0, KEEP_SLOTS - 1, (const uint8_t *)s->srv->member, strlen(s->srv->member)};
  buf_frame(b, &f);
}

// handle_frame routes one decoded request from connection `c`.
static void handle_frame(struct keepd_shard *s, struct keepd_conn *c, const keep_frame *f,
                         const uint8_t *raw, size_t raw_len) {
  struct keepd_server *srv = s->srv;
  switch (f->opcode) {
  case KEEP_OP_PING: {
    // Which shard holds this connection, and how many there are: a client
    // can keep one connection per shard and send each key to its owner.
    keep_frame a;
    uint8_t n[2];
    keep_put_le(n, 2, srv->num_shards);
    keep_frame_init(&a, KEEP_OP_OK, f->id);
    a.num = s->id;
    a.value = n;
    a.value_len = 2;
    buf_frame(&c->out, &a);
    return;
  }
  case KEEP_OP_CLUSTER:
    answer_view(s, f->id, &c->out);
    return;
  case KEEP_OP_HANDOFF_DONE:
    keepd_handoff_done(srv->cl, f, &c->out);
    return;
  default:
    break;
  }
  // A handoff pull names a slot, not a key: it goes to the shard holding
  // that slot, past the routing (the leaving member answers BUSY to keys).
  bool pull = f->opcode == KEEP_OP_HANDOFF_PULL;
  uint64_t h =
      pull ? keepd_handoff_pull_slot(f) : keep_key_hash(srv->set.secret, f->key, f->key_len);
  // UNSUBSCRIBE only ends this connection's subscription here, whoever owns
  // the topic now: a client whose subscription moved to the topic's new
  // owner ends the one left behind.
  if (srv->cl != NULL && !pull && f->opcode != KEEP_OP_UNSUBSCRIBE) {
    // In a cluster the slot must be this member's, confirmed by a majority.
    uint16_t owner_id = 0;
    int route = keepd_cluster_route(srv->cl, keep_hash_slot(h), s->now, &owner_id);
    if (route == KEEPD_ROUTE_MOVED) {
      keep_frame a;
      char id[8];
      keep_frame_init(&a, KEEP_OP_MOVED, f->id);
      a.num = keep_hash_slot(h);
      a.text = (const uint8_t *)id;
      a.text_len = (size_t)snprintf(id, sizeof id, "%u", owner_id);
      buf_frame(&c->out, &a);
      return;
    }
    if (route == KEEPD_ROUTE_BUSY) {
      buf_answer(&c->out, KEEP_OP_BUSY, f->id, 0);
      return;
    }
  }
  unsigned owner = (unsigned)((uint64_t)keep_hash_slot(h) * srv->num_shards / KEEP_SLOTS);
  if (f->opcode == KEEP_OP_SUBSCRIBE)
    c->sub_shards |= 1ull << owner;
  if (owner == s->id) {
    exec(s, f, h, (struct origin){s->id, c->fd, c->gen}, &c->out);
    return;
  }
  if (s->backlog_bytes[owner] + s->outq[owner].len > KEEPD_MAX_FORWARD) {
    buf_answer(&c->out, KEEP_OP_BUSY, f->id, 0); // the owner is far behind
    return;
  }
  c->inflight++; // every request sent on comes back with one REC_ANSWER
  rec_put(s, owner, REC_REQUEST, c->fd, c->gen, h, raw, raw_len);
}

// conn_process executes the complete frames buffered on `c`, at most
// KEEPD_MAX_PIPELINE of them.
static void conn_process(struct keepd_shard *s, struct keepd_conn *c) {
  size_t pos = 0;
  unsigned done = 0;
  while (!c->closing && !c->dead) {
    if (c->out.len - c->out_off > KEEPD_MAX_OUTPUT) {
      c->blocked = true;
      break;
    }
    if (done == KEEPD_MAX_PIPELINE) {
      mark_pending(s, c);
      break;
    }
    size_t used;
    int rc =
        keep_frame_decode(&s->frame, &used, c->in.p + pos, c->in.len - pos, s->srv->set.max_value);
    if (rc == 0)
      break;
    if (rc < 0 || !keep_frame_is_request(s->frame.opcode)) {
      uint32_t body;
      uint64_t id = 0;
      if (!keep_frame_peek_header(c->in.p + pos, c->in.len - pos, &body, &id))
        id = 0;
      if (rc == KEEP_ERR_TOO_LARGE)
        buf_error(&c->out, id, KEEP_CODE_TOO_LARGE, "frame or value too large");
      else
        buf_error(&c->out, id, KEEP_CODE_BAD_FRAME, "malformed frame");
      c->closing = true; // the stream cannot be resynchronised
      mark_dirty(s, c);
      break;
    }
    handle_frame(s, c, &s->frame, c->in.p + pos, used);
    mark_dirty(s, c);
    pos += used;
    done++;
  }
  if (pos > 0) {
    memmove(c->in.p, c->in.p + pos, c->in.len - pos);
    c->in.len -= pos;
  }
  if (!c->dead)
    conn_set_events(s, c);
}

// conn_read_tls reads one record (up to 16 KiB) and then whatever
// is left inside the TLS state: epoll cannot see those bytes, so none may
// stay behind. It stops as soon as the TLS state is empty rather than
// calling again for an EAGAIN: epoll is level-triggered, so bytes still in
// the socket bring the connection back in the next iteration.
static void conn_read_tls(struct keepd_shard *s, struct keepd_conn *c) {
  if (!keep_tls_conn_done(c->tls)) {
    conn_handshake(s, c);
    return;
  }
  for (;;) {
    buf_reserve(&c->in, KEEPD_READ_CHUNK);
    short want;
    int r = keep_tls_read(c->tls, &want, c->in.p + c->in.len, KEEPD_READ_CHUNK);
    if (r < 0) {
      conn_close(s, c);
      return;
    }
    if (r == 0)
      break;
    c->in.len += (size_t)r;
    if (!keep_tls_pending(c->tls))
      break;
  }
  conn_process(s, c);
}

static void conn_read(struct keepd_shard *s, struct keepd_conn *c) {
  if (c->closing || c->blocked)
    return;
  if (c->tls != NULL) {
    conn_read_tls(s, c);
    return;
  }
  buf_reserve(&c->in, KEEPD_READ_CHUNK);
  ssize_t n = recv(c->fd, c->in.p + c->in.len, KEEPD_READ_CHUNK, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
    conn_close(s, c);
    return;
  }
  if (n > 0)
    c->in.len += (size_t)n;
  conn_process(s, c);
}

static bool conn_tls_start(struct keepd_shard *s, struct keepd_conn *c);

static void accept_all(struct keepd_shard *s) {
  for (int i = 0; i < 64; i++) {
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
      return;
    if (s->num_conns >= s->max_conns) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if ((size_t)fd >= s->conns_cap) {
      size_t cap = s->conns_cap ? s->conns_cap : 256;
      while (cap <= (size_t)fd)
        cap *= 2;
      s->conns = xrealloc(s->conns, cap * sizeof *s->conns);
      memset(s->conns + s->conns_cap, 0, (cap - s->conns_cap) * sizeof *s->conns);
      s->conns_cap = cap;
    }
    struct keepd_conn *c = xmalloc(sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->gen = ++s->next_gen;
    c->events = EPOLLIN;
    struct epoll_event e = {.events = EPOLLIN, .data.u64 = (uint64_t)fd};
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
      close(fd);
      free(c);
      continue;
    }
    if (keepd_tls_enabled() && !conn_tls_start(s, c)) {
      close(fd);
      free(c);
      continue;
    }
    s->conns[fd] = c;
    s->num_conns++;
  }
}

// conn_tls_start wraps an accepted connection and puts it on the handshake
// list; false when the shard already has KEEPD_MAX_HANDSHAKES in progress.
static bool conn_tls_start(struct keepd_shard *s, struct keepd_conn *c) {
  if (s->num_hs >= KEEPD_MAX_HANDSHAKES || keepd_tls_accept(&c->tls, c->fd) < 0) {
    atomic_fetch_add_explicit(&keepd_tls_stats.over_limit, 1, memory_order_relaxed);
    return false;
  }
  if (s->num_hs == s->hs_cap) {
    s->hs_cap = s->hs_cap ? s->hs_cap * 2 : 16;
    s->hs = xrealloc(s->hs, s->hs_cap * sizeof *s->hs);
  }
  s->hs[s->num_hs++] = (struct keepd_hs){c->fd, c->gen, keepd_now_ns() + keepd_tls_handshake_ns()};
  return true;
}

// cut_revoked closes, after a reload of the allowed client keys, the
// established connections whose peer's key is no longer accepted.
static void cut_revoked(struct keepd_shard *s) {
  unsigned gen = keepd_tls_generation();
  if (gen == s->tls_gen)
    return;
  s->tls_gen = gen;
  for (size_t fd = 0; fd < s->conns_cap; fd++) {
    struct keepd_conn *c = s->conns[fd];
    if (c != NULL && !c->dead && c->tls != NULL && keep_tls_conn_done(c->tls) &&
        !keepd_tls_still_allowed(c->tls)) {
      atomic_fetch_add_explicit(&keepd_tls_stats.revoked, 1, memory_order_relaxed);
      conn_close(s, c);
    }
  }
}

// expire_handshakes closes connections whose handshake outlived its
// deadline and forgets the finished ones.
static void expire_handshakes(struct keepd_shard *s) {
  size_t keep = 0;
  for (size_t i = 0; i < s->num_hs; i++) {
    struct keepd_conn *c = conn_get(s, s->hs[i].fd, s->hs[i].gen);
    if (c == NULL || c->tls == NULL || keep_tls_conn_done(c->tls))
      continue;
    if (s->now >= s->hs[i].deadline_ns) {
      atomic_fetch_add_explicit(&keepd_tls_stats.timed_out, 1, memory_order_relaxed);
      conn_close(s, c);
      continue;
    }
    s->hs[keep++] = s->hs[i];
  }
  s->num_hs = keep;
}

static void handle_record(struct keepd_shard *s, unsigned from, const struct rec *r,
                          const uint8_t *data) {
  struct keepd_conn *c;
  switch (r->type) {
  case REC_REQUEST: {
    size_t used;
    s->scratch.len = 0;
    if (keep_frame_decode(&s->frame, &used, data, r->len, s->srv->set.max_value) == 1)
      exec(s, &s->frame, r->hash, (struct origin){from, r->fd, r->gen}, &s->scratch);
    rec_put(s, from, REC_ANSWER, r->fd, r->gen, 0, s->scratch.p, s->scratch.len);
    break;
  }
  case REC_ANSWER:
  case REC_EVENT:
    c = conn_get(s, r->fd, r->gen);
    if (c != NULL && r->type == REC_ANSWER && c->inflight > 0) {
      c->inflight--;
      if (c->inflight == 0 && c->out.len > c->out_off)
        mark_dirty(s, c); // the replies held for this one go out now
    }
    if (c == NULL || c->closing || r->len == 0 ||
        (r->type == REC_EVENT && c->out.len - c->out_off > KEEPD_MAX_OUTPUT))
      break;
    buf_reserve(&c->out, r->len);
    memcpy(c->out.p + c->out.len, data, r->len);
    c->out.len += r->len;
    mark_dirty(s, c);
    break;
  case REC_CONN_GONE:
    topics_drop_conn(s, from, r->fd, r->gen);
    break;
  }
}

static void handle_msg(struct keepd_shard *s, unsigned from, struct msg *m) {
  size_t pos = 0;
  while (pos + sizeof(struct rec) <= m->len) {
    struct rec r;
    memcpy(&r, m->data + pos, sizeof r);
    pos += sizeof r;
    handle_record(s, from, &r, m->data + pos);
    pos += r.len;
  }
  free(m->data);
  free(m);
}

static bool drain_rings(struct keepd_shard *s) {
  bool more = false;
  for (unsigned from = 0; from < s->srv->num_shards; from++) {
    if (from == s->id)
      continue;
    keepd_ring *r = ring_from(s, from);
    // A bounded batch per ring keeps the loop responsive to its sockets.
    for (int i = 0; i < 64; i++) {
      struct msg *m = keepd_ring_pop(r);
      if (m == NULL)
        break;
      handle_msg(s, from, m);
      if (i == 63)
        more = true;
    }
  }
  return more;
}

static void wake_peers(struct keepd_shard *s) {
  for (unsigned t = 0; t < s->srv->num_shards; t++) {
    if (!s->wake[t])
      continue;
    s->wake[t] = false;
    uint64_t one = 1;
    if (write(s->srv->shards[t].efd, &one, sizeof one) < 0) {
      // The counter is saturated only if the peer is far behind; it will
      // see the ring anyway on its next tick.
    }
  }
}

static void *shard_main(void *arg) {
  struct keepd_shard *s = arg;
  struct keepd_server *srv = s->srv;
  struct epoll_event evs[256];
  uint64_t last_tick = 0;
  bool busy = false;
  while (!atomic_load_explicit(&srv->stop, memory_order_acquire)) {
    if (srv->cl != NULL) // no view pointer is held across iterations
      keepd_cluster_quiescent(srv->cl, s->id);
    // --busy-poll: within busy_poll_us of a turn that handled events, only
    // look (timeout 0), so that a steady stream of requests finds the shard
    // awake. Where putting a thread to sleep and waking it is dear (on a
    // PVM guest about a third of a shard's CPU under open-loop load went to
    // switching it back in) this trades CPU time for latency; off (0) by
    // default.
    bool spin = s->now - s->last_work_ns < (uint64_t)srv->set.busy_poll_us * 1000u;
    int n = epoll_wait(s->epfd, evs, 256, busy || spin ? 0 : KEEPD_TICK_MS);
    s->now = keepd_now_ns();
    if (n > 0)
      s->last_work_ns = s->now;
    for (int i = 0; i < n; i++) {
      uint64_t d = evs[i].data.u64;
      if (d == EV_LISTENER) {
        accept_all(s);
      } else if (d == EV_WAKE) {
        uint64_t v;
        if (read(s->efd, &v, sizeof v) < 0) {
          // EAGAIN: another wake-up already drained it.
        }
      } else {
        struct keepd_conn *c = s->conns[d];
        if (c == NULL)
          continue;
        if (evs[i].events & EPOLLOUT)
          conn_flush(s, c);
        if (!c->dead && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
          conn_read(s, c);
      }
    }
    busy = drain_rings(s);
    keepd_handoff_apply(srv->cl, s->id, &s->store, s->now);
    // Connections that hit the pipeline bound continue here.
    size_t np = s->num_pending;
    for (size_t i = 0; i < np; i++) {
      struct keepd_conn *c = s->pending[i];
      c->pending = false;
      if (!c->dead)
        conn_process(s, c);
    }
    if (np > 0) {
      memmove(s->pending, s->pending + np, (s->num_pending - np) * sizeof *s->pending);
      s->num_pending -= np;
    }
    busy |= s->num_pending > 0;
    // Expired keys nobody reads are swept at a pace set by the clock, not
    // by the loop: a sweep on every turn cost half the shard's CPU under
    // load (a turn per batch of requests, each sweep a row of cold
    // buckets). Each tick sweeps 1/KEEPD_SWEEP_TICKS of the table (64
    // buckets at least), so an unread expired key is gone within about
    // 2.6 s. A turn without a tick still moves a resize along (0 buckets).
    size_t sweep = 0;
    if (s->now - last_tick >= (uint64_t)KEEPD_TICK_MS * 1000000u) {
      last_tick = s->now;
      heartbeats(s);
      expire_handshakes(s);
      cut_revoked(s);
      sweep = s->store.cur.n / KEEPD_SWEEP_TICKS > 64 ? s->store.cur.n / KEEPD_SWEEP_TICKS : 64;
    }
    keepd_store_sweep(&s->store, sweep, s->now);
    for (size_t i = 0; i < s->num_dirty; i++) {
      struct keepd_conn *c = s->dirty[i];
      c->dirty = false;
      // Replies wait for the answers still to come from other shards, so
      // that a batch of requests is answered with one send, not one per
      // shard that executed part of it (the last answer marks the
      // connection dirty again), unless much is waiting already.
      if (c->inflight > 0 && !c->closing && c->out.len - c->out_off < KEEPD_HOLD_BYTES)
        continue;
      conn_flush(s, c);
    }
    s->num_dirty = 0;
    ship_batches(s);
    busy |= flush_backlogs(s);
    wake_peers(s);
    // A connection closed in this iteration may still be on the pending list.
    if (s->graveyard != NULL) {
      size_t keep = 0;
      for (size_t i = 0; i < s->num_pending; i++)
        if (!s->pending[i]->dead)
          s->pending[keep++] = s->pending[i];
      s->num_pending = keep;
    }
    while (s->graveyard != NULL) {
      struct keepd_conn *c = s->graveyard;
      s->graveyard = c->next_dead;
      free(c->in.p);
      free(c->out.p);
      free(c);
    }
  }
  return NULL;
}

int keepd_shard_init(struct keepd_shard *s, struct keepd_server *srv, unsigned id, int lfd) {
  memset(s, 0, sizeof *s);
  s->srv = srv;
  s->id = id;
  s->lfd = lfd;
  s->max_conns = srv->set.max_connections;
  int rc = keepd_store_init(&s->store, srv->set.memory_cap / srv->num_shards);
  if (rc < 0)
    return rc;
  s->epfd = epoll_create1(EPOLL_CLOEXEC);
  s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s->epfd < 0 || s->efd < 0)
    return -errno;
  struct epoll_event l = {.events = EPOLLIN, .data.u64 = EV_LISTENER};
  struct epoll_event w = {.events = EPOLLIN, .data.u64 = EV_WAKE};
  if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, lfd, &l) < 0 ||
      epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &w) < 0)
    return -errno;
  keepd_handoff_set_wake(srv->cl, id, s->efd);
  return 0;
}

int keepd_shard_start(struct keepd_shard *s) {
  return -pthread_create(&s->thread, NULL, shard_main, s);
}

void keepd_shard_cleanup(struct keepd_shard *s) {
  for (size_t fd = 0; fd < s->conns_cap; fd++)
    if (s->conns[fd] != NULL) {
      keep_tls_conn_free(s->conns[fd]->tls);
      close((int)fd);
      free(s->conns[fd]->in.p);
      free(s->conns[fd]->out.p);
      free(s->conns[fd]);
    }
  free(s->conns);
  for (unsigned t = 0; t < KEEPD_MAX_SHARDS; t++) {
    while (s->backlog_head[t] != NULL) {
      struct msg *m = s->backlog_head[t];
      s->backlog_head[t] = m->next;
      free(m->data);
      free(m);
    }
    free(s->outq[t].p);
  }
  for (size_t b = 0; b < KEEPD_TOPIC_BUCKETS; b++)
    while (s->topics[b] != NULL) {
      struct keepd_topic *t = s->topics[b];
      s->topics[b] = t->next;
      free(t->subs);
      free(t);
    }
  free(s->dirty);
  free(s->pending);
  free(s->hs);
  free(s->scratch.p);
  keepd_store_cleanup(&s->store);
  if (s->epfd > 0)
    close(s->epfd);
  if (s->efd > 0)
    close(s->efd);
  if (s->lfd > 0)
    close(s->lfd);
}

void keepd_shard_drain_rings_at_exit(struct keepd_shard *s) {
  for (unsigned from = 0; from < s->srv->num_shards; from++) {
    struct msg *m;
    if (from != s->id)
      while ((m = keepd_ring_pop(ring_from(s, from))) != NULL) {
        free(m->data);
        free(m);
      }
  }
}
