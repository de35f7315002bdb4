// client.c: libkeep's blocking client. It owns one non-blocking TCP
// connection, encodes requests with the frame codec, and waits for the answer
// whose request id matches, with poll() bounding every wait. Events and
// heartbeats that arrive while it waits for an answer are copied into a
// bounded queue for keep_next_event(), which also does the per-subscription
// sequence bookkeeping that turns lost events into a visible gap, and
// renews subscriptions whose connection failed or whose topic moved. In
// cluster mode it keeps one connection per member (the active one in the
// client's fields, the others parked in `conns`), routes each keyed request
// to its slot's owner by rendezvous placement, and learns from MOVED.
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keep_common.h"
#include "keep_internal.h"
#include "keep_resp.h"
#include "keep_tls.h"

// KEEP_BUSY_RETRIES is how many times a request answered BUSY is sent again.
#define KEEP_BUSY_RETRIES 5
// KEEP_RENEW_MS and KEEP_SUB_CHECK_MS are the non-blocking client's periods
// (async.c), with the same reasons: a subscription whose connection failed
// is made again every 100 ms until a member takes it, and in cluster mode a
// live one is confirmed every 500 ms on its own connection, so that a topic
// whose slot moved away from a member that stays up is followed.
#define KEEP_RENEW_MS 100u
#define KEEP_SUB_CHECK_MS 500u

struct queued_event {
  uint8_t *bytes; // one encoded EVENT or HEARTBEAT frame
  size_t len;
  size_t member; // whose connection it came on (0 outside cluster mode)
};

struct subscription {
  uint8_t topic[KEEP_MAX_KEY];
  size_t topic_len;
  uint64_t last_seq;
  size_t member; // whose connection holds it (0 outside cluster mode)
  bool live;     // false: interrupted, to be made again
  // due_ns is when to make it again (not live) or, in cluster mode, to
  // confirm it (live).
  uint64_t due_ns;
};

// kconn is a member's connection while another member's is active.
struct kconn {
  int fd;
  keep_tls_conn *tls;
  uint8_t *in;
  size_t in_len, in_cap, in_consume;
};

struct keep_client {
  uint16_t *ids;        // cluster mode when not NULL
  struct kconn *conns;  // per member; conns[cur] is stale while active
  size_t cur;           // the member whose connection is active
  uint64_t *down_until; // per member: skipped until then after a failure
  uint8_t *moved_to;    // per slot: 1 + the owner a MOVED named, 0 none
  char **members;
  size_t num_members;
  uint8_t secret[KEEP_SECRET_LEN];
  uint32_t connect_timeout_ms, io_timeout_ms, lock_margin_ms, max_events;
  int fd;
  keep_tls_conn *tls;    // the active connection's TLS state, NULL in plaintext
  keep_tls_ctx *tls_ctx; // NULL: plaintext (loopback only)
  uint64_t next_id;
  uint8_t *in; // received bytes not yet consumed
  size_t in_len, in_cap, in_consume;
  uint8_t *out; // encoded requests
  size_t out_cap;
  struct queued_event *events; // ring of max_events
  size_t ev_head, ev_count;
  uint8_t *current_event; // the frame keep_next_event last handed out
  struct subscription *subs;
  size_t num_subs, subs_cap;
  struct keep_resp *resp; // the RESP back end (resp.c) answers instead, when set
};

struct batch_req {
  uint8_t op;
  uint8_t *data; // key then value, owned
  size_t key_len, data_value_len;
  uint64_t arg, arg2;
  uint64_t id;
  int status;
  int64_t num;
  uint8_t *value;
  size_t value_len;
  bool answered;
};

struct keep_batch {
  struct batch_req *reqs;
  size_t num, cap;
  bool ran;
};

uint32_t keep_slot(const uint8_t *secret, const void *key, size_t key_len) {
  static const uint8_t zero[KEEP_SECRET_LEN];
  return keep_hash_slot(keep_siphash24(secret ? secret : zero, key, key_len));
}

static void client_disconnect(keep_client *c) {
  keep_tls_conn_free(c->tls);
  c->tls = NULL;
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
  c->in_len = 0;
  c->in_consume = 0;
  // The server forgets the connection's subscriptions with it: the next
  // keep_next_event() makes them again.
  for (size_t i = 0; i < c->num_subs; i++)
    if (c->ids == NULL || c->subs[i].member == c->cur) {
      c->subs[i].live = false;
      c->subs[i].due_ns = 0;
    }
}

// keep_client_tls_init loads the key files of `t` into a TLS context; with
// `t` NULL the client stays in plaintext.
static int keep_client_tls_init(keep_client *c, const keep_tls_settings *t) {
  if (t == NULL)
    return 0;
  return keep_tls_client_ctx_load(&c->tls_ctx, t);
}

// keep_client_tls_start runs the TLS handshake on the connected socket `fd`
// within the connect timeout, or checks that plaintext stays on loopback.
static int keep_client_tls_start(keep_client *c, int fd, const struct sockaddr *peer) {
  if (c->tls_ctx == NULL)
    return keep_is_loopback_addr(peer) ? 0 : KEEP_ERR_INVALID_ARGUMENT;
  keep_tls_conn *t;
  int rc = keep_tls_wrap_fd(&t, c->tls_ctx, fd);
  if (rc < 0)
    return rc;
  uint64_t deadline = keep_now_ns() + (uint64_t)c->connect_timeout_ms * 1000000u;
  for (;;) {
    short want = 0;
    rc = keep_tls_handshake(t, &want);
    if (rc != 0)
      break;
    uint64_t now = keep_now_ns();
    if (now >= deadline) {
      rc = KEEP_ERR_TIMEOUT;
      break;
    }
    struct pollfd p = {.fd = fd, .events = want};
    if (poll(&p, 1, (int)((deadline - now + 999999) / 1000000)) < 0 && errno != EINTR) {
      rc = -errno;
      break;
    }
  }
  if (rc < 0) {
    keep_tls_conn_free(t);
    return rc == KEEP_ERR_CLOSED ? KEEP_ERR_TLS : rc;
  }
  c->tls = t;
  return 0;
}

static int connect_one(keep_client *c, const char *member) {
  char host[256];
  const char *port;
  int rc = keep_member_split(host, sizeof host, &port, member, KEEP_PORT_MAX_LEN);
  if (rc < 0)
    return rc;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res;
  if (getaddrinfo(host, port, &hints, &res) != 0)
    return -EHOSTUNREACH;
  rc = -ECONNREFUSED;
  for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
    if (c->tls_ctx == NULL && !keep_is_loopback_addr(ai->ai_addr)) {
      rc = KEEP_ERR_INVALID_ARGUMENT; // plaintext never leaves the host
      continue;
    }
    int fd;
    if ((rc = keep_connect_start(&fd, ai->ai_addr, ai->ai_addrlen)) < 0)
      continue;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int n = poll(&p, 1, (int)c->connect_timeout_ms);
    int err = 0;
    socklen_t len = sizeof err;
    if (n <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
      rc = n == 0 ? KEEP_ERR_TIMEOUT : -(err ? err : ECONNREFUSED);
      close(fd);
      continue;
    }
    if ((rc = keep_client_tls_start(c, fd, ai->ai_addr)) < 0) {
      close(fd);
      continue;
    }
    c->fd = fd;
    rc = 0;
    break;
  }
  freeaddrinfo(res);
  return rc;
}

// use_member makes member `i`'s connection the active one.
static void use_member(keep_client *c, size_t i) {
  if (c->ids == NULL || i == c->cur)
    return;
  c->conns[c->cur] = (struct kconn){c->fd, c->tls, c->in, c->in_len, c->in_cap, c->in_consume};
  struct kconn *k = &c->conns[i];
  c->fd = k->fd;
  c->tls = k->tls;
  c->in = k->in;
  c->in_len = k->in_len;
  c->in_cap = k->in_cap;
  c->in_consume = k->in_consume;
  *k = (struct kconn){-1, NULL, NULL, 0, 0, 0};
  c->cur = i;
}

static int client_connect(keep_client *c) {
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  size_t first = c->ids != NULL ? c->cur : 0;
  for (size_t n = 0; n < c->num_members; n++) {
    size_t i = (first + n) % c->num_members;
    use_member(c, i);
    if (c->fd >= 0)
      return 0;
    rc = connect_one(c, c->members[i]);
    if (rc == 0)
      return 0;
    if (c->ids != NULL)
      c->down_until[i] = keep_now_ns() + (uint64_t)KEEP_MEMBER_DOWN_MS * 1000000u;
  }
  return rc;
}

int keep_client_new(keep_client **out, const keep_settings *s) {
  if (out == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (s == NULL || s->members == NULL || s->num_members == 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_client *c = calloc(1, sizeof *c);
  if (c == NULL)
    return -ENOMEM;
  c->fd = -1;
  c->next_id = 1;
  c->connect_timeout_ms =
      s->connect_timeout_ms ? s->connect_timeout_ms : KEEP_DEFAULT_CONNECT_TIMEOUT_MS;
  c->io_timeout_ms = s->io_timeout_ms ? s->io_timeout_ms : KEEP_DEFAULT_IO_TIMEOUT_MS;
  c->lock_margin_ms = s->lock_margin_ms;
  c->max_events = s->max_events ? s->max_events : KEEP_DEFAULT_MAX_EVENTS;
  if (s->secret != NULL)
    memcpy(c->secret, s->secret, KEEP_SECRET_LEN);
  if (keep_resp_url(s->members[0])) { // keep.h, "RESP back end"
    int rrc = keep_resp_open(&c->resp, s);
    if (rrc < 0) {
      keep_client_free(c);
      return rrc;
    }
    *out = c;
    return 0;
  }
  int trc = keep_client_tls_init(c, s->tls);
  if (trc < 0) {
    keep_client_free(c);
    return trc;
  }
  if (s->member_ids != NULL) {
    if (s->num_members > KEEP_MAX_MEMBERS) {
      keep_client_free(c);
      return KEEP_ERR_INVALID_ARGUMENT;
    }
    c->ids = calloc(s->num_members, sizeof *c->ids);
    c->conns = calloc(s->num_members, sizeof *c->conns);
    c->down_until = calloc(s->num_members, sizeof *c->down_until);
    c->moved_to = calloc(KEEP_SLOTS, 1);
    if (c->ids == NULL || c->conns == NULL || c->down_until == NULL || c->moved_to == NULL) {
      keep_client_free(c);
      return -ENOMEM;
    }
    memcpy(c->ids, s->member_ids, s->num_members * sizeof *c->ids);
    for (size_t i = 0; i < s->num_members; i++)
      c->conns[i].fd = -1;
  }
  c->members = calloc(s->num_members, sizeof *c->members);
  c->events = calloc(c->max_events, sizeof *c->events);
  if (c->members == NULL || c->events == NULL) {
    keep_client_free(c);
    return -ENOMEM;
  }
  c->num_members = s->num_members;
  for (size_t i = 0; i < s->num_members; i++) {
    char host[256];
    const char *port;
    if (keep_member_split(host, sizeof host, &port, s->members[i], KEEP_PORT_MAX_LEN) < 0) {
      keep_client_free(c);
      return KEEP_ERR_INVALID_ARGUMENT;
    }
    c->members[i] = strdup(s->members[i]);
    if (c->members[i] == NULL) {
      keep_client_free(c);
      return -ENOMEM;
    }
  }
  int rc = client_connect(c);
  if (rc < 0) {
    keep_client_free(c);
    return rc;
  }
  *out = c;
  return 0;
}

void keep_client_free(keep_client *c) {
  if (c == NULL)
    return;
  keep_resp_close(c->resp);
  client_disconnect(c);
  for (size_t i = 0; i < c->num_members && c->conns != NULL; i++) {
    keep_tls_conn_free(c->conns[i].tls);
    if (c->conns[i].fd >= 0)
      close(c->conns[i].fd);
    free(c->conns[i].in);
  }
  free(c->conns);
  free(c->ids);
  free(c->down_until);
  free(c->moved_to);
  for (size_t i = 0; i < c->num_members && c->members != NULL; i++)
    free(c->members[i]);
  free(c->members);
  while (c->ev_count > 0) {
    free(c->events[c->ev_head].bytes);
    c->ev_head = (c->ev_head + 1) % c->max_events;
    c->ev_count--;
  }
  free(c->events);
  free(c->current_event);
  free(c->subs);
  free(c->in);
  free(c->out);
  keep_tls_ctx_free(c->tls_ctx);
  free(c);
}

static int ensure_out(keep_client *c, size_t need) {
  return keep_buf_grow(&c->out, &c->out_cap, need);
}

// compact drops the bytes consumed by the last decoded answer.
static void compact(keep_client *c) {
  if (c->in_consume > 0) {
    memmove(c->in, c->in + c->in_consume, c->in_len - c->in_consume);
    c->in_len -= c->in_consume;
    c->in_consume = 0;
  }
}

// read_some reads what is available into the input buffer; 1 if bytes came,
// 0 on EAGAIN, negative on error or end of stream.
static int read_some(keep_client *c) {
  if (c->in_cap - c->in_len < 65536) {
    size_t cap = c->in_cap ? c->in_cap * 2 : 131072;
    uint8_t *p = realloc(c->in, cap);
    if (p == NULL)
      return -ENOMEM;
    c->in = p;
    c->in_cap = cap;
  }
  if (c->tls != NULL) {
    short want;
    int r = keep_tls_read(c->tls, &want, c->in + c->in_len, c->in_cap - c->in_len);
    if (r > 0)
      c->in_len += (size_t)r;
    return r > 0 ? 1 : r;
  }
  ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
  if (n > 0) {
    c->in_len += (size_t)n;
    return 1;
  }
  if (n == 0)
    return KEEP_ERR_CLOSED;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
    return 0;
  return -errno;
}

static int wait_fd(keep_client *c, short events, uint64_t deadline, short *revents) {
  for (;;) {
    uint64_t now = keep_now_ns();
    if (now >= deadline)
      return KEEP_ERR_TIMEOUT;
    struct pollfd p = {.fd = c->fd, .events = events};
    int ms = (int)((deadline - now + 999999) / 1000000);
    int n = poll(&p, 1, ms);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0)
      continue;
    *revents = p.revents;
    return 0;
  }
}

// send_all writes `len` bytes of c->out, reading answers meanwhile so that a
// large batch cannot deadlock against a server whose replies fill the socket.
static int send_all(keep_client *c, size_t len, uint64_t deadline) {
  size_t off = 0;
  while (off < len) {
    ssize_t n;
    if (c->tls != NULL) {
      short want;
      int r = keep_tls_write(c->tls, &want, c->out + off, len - off);
      if (r < 0)
        return r;
      n = r;
    } else {
      n = send(c->fd, c->out + off, len - off, MSG_NOSIGNAL);
    }
    if (n > 0) {
      off += (size_t)n;
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return -errno;
    short rev = 0;
    int rc = wait_fd(c, POLLIN | POLLOUT, deadline, &rev);
    if (rc < 0)
      return rc;
    if (rev & POLLIN) {
      compact(c);
      rc = read_some(c);
      if (rc < 0)
        return rc;
    }
  }
  return 0;
}

static int find_sub(keep_client *c, const uint8_t *topic, size_t topic_len) {
  for (size_t i = 0; i < c->num_subs; i++)
    if (c->subs[i].topic_len == topic_len && memcmp(c->subs[i].topic, topic, topic_len) == 0)
      return (int)i;
  return -1;
}

static void queue_event(keep_client *c, const uint8_t *bytes, size_t len) {
  if (c->ev_count == c->max_events)
    return; // dropped: the subscriber sees it as a gap
  uint8_t *copy = malloc(len);
  if (copy == NULL)
    return;
  memcpy(copy, bytes, len);
  size_t slot = (c->ev_head + c->ev_count) % c->max_events;
  c->events[slot].bytes = copy;
  c->events[slot].len = len;
  c->events[slot].member = c->ids != NULL ? c->cur : 0;
  c->ev_count++;
}

// next_frame decodes the next frame from the input buffer, reading when
// needed, until `deadline`. Events and heartbeats are queued when `want_id`
// is nonzero; with `want_id` 0 the first frame of any kind is returned.
// The frame points into c->in until the next call.
static int next_frame(keep_client *c, keep_frame *f, uint64_t want_id, uint64_t deadline) {
  for (;;) {
    compact(c);
    size_t used;
    int rc = keep_frame_decode(f, &used, c->in, c->in_len, 0);
    if (rc < 0)
      return KEEP_ERR_PROTOCOL;
    if (rc == 1) {
      c->in_consume = used;
      if (f->opcode == KEEP_OP_EVENT || f->opcode == KEEP_OP_HEARTBEAT) {
        if (want_id == 0)
          return 1;
        queue_event(c, c->in, used);
        continue;
      }
      if (keep_frame_is_request(f->opcode))
        return KEEP_ERR_PROTOCOL;
      if (want_id != 0 && f->id == want_id)
        return 1;
      continue; // a stale answer to a request abandoned earlier
    }
    rc = read_some(c);
    if (rc < 0)
      return rc;
    if (rc == 1)
      continue;
    short rev;
    rc = wait_fd(c, POLLIN, deadline, &rev);
    if (rc < 0)
      return rc;
  }
}

// frame_error_closes tells the error codes after which the server closes
// the connection (docs/keep-protocol.md, "Errors"): reconnect on the next
// call instead of failing it.
static bool frame_error_closes(uint64_t code) {
  return code == KEEP_CODE_BAD_FRAME || code == KEEP_CODE_UNKNOWN_OP || code == KEEP_CODE_TOO_LARGE;
}

static int fail(keep_client *c, int rc) {
  if (rc == KEEP_ERR_TIMEOUT || rc == KEEP_ERR_PROTOCOL || rc == KEEP_ERR_CLOSED ||
      (rc < 0 && rc > -4096)) {
    client_disconnect(c);
    // A member that stopped answering is routed around for a while, so
    // that the next request goes where the cluster moved its slots. Our
    // own allocation failing says nothing of the member: the connection
    // goes (an answer may be half read) but the member stays the owner.
    if (c->ids != NULL && rc != KEEP_ERR_PROTOCOL && rc != -ENOMEM)
      c->down_until[c->cur] = keep_now_ns() + (uint64_t)KEEP_MEMBER_DOWN_MS * 1000000u;
  }
  return rc;
}

// route makes the connection of the member that owns `req`'s key active,
// connecting if needed; requests without a key use the active connection.
// A member that refuses the connection is marked down and the slot's next
// owner is tried.
static int route(keep_client *c, const keep_frame *req) {
  if (c->ids == NULL || req->key_len == 0)
    return c->fd >= 0 ? 0 : client_connect(c);
  uint32_t slot = keep_hash_slot(keep_siphash24(c->secret, req->key, req->key_len));
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  for (size_t tries = 0; tries < c->num_members; tries++) {
    uint64_t now = keep_now_ns(), alive = 0;
    for (size_t i = 0; i < c->num_members; i++)
      if (c->down_until[i] <= now)
        alive |= 1ull << i;
    if (alive == 0) // every member failed lately: try them all again
      alive = (c->num_members == 64 ? 0 : 1ull << c->num_members) - 1;
    int t;
    if (c->moved_to[slot] != 0 && (alive >> (c->moved_to[slot] - 1) & 1))
      t = c->moved_to[slot] - 1;
    else
      t = keep_slot_owner(c->secret, slot, c->ids, c->num_members, alive);
    if (t < 0)
      return t;
    use_member(c, (size_t)t);
    if (c->fd >= 0)
      return 0;
    rc = connect_one(c, c->members[t]);
    if (rc == 0)
      return 0;
    c->down_until[t] = now + (uint64_t)KEEP_MEMBER_DOWN_MS * 1000000u;
    if (c->moved_to[slot] == t + 1)
      c->moved_to[slot] = 0;
  }
  return rc;
}

// learn_moved records the owner a MOVED answer names (docs/keep-protocol.md:
// the slot and the owner's member id in decimal); false if it names no
// member of the list.
static bool learn_moved(keep_client *c, const keep_frame *ans) {
  size_t i;
  uint32_t slot;
  if (!keep_moved_member(&i, &slot, ans, c->ids, c->num_members))
    return false;
  c->moved_to[slot] = (uint8_t)(i + 1);
  return true;
}

static int ensure_connected(keep_client *c) {
  if (c->fd >= 0)
    return 0;
  return client_connect(c);
}

// exchange sends `req` on the active connection and waits for its answer
// into `ans` (pointing into c->in). A BUSY answer means the request was not
// executed, so it is sent again, after 1, 2, 4, 8 and 16 ms, as long as the
// I/O timeout allows. Returns the answer's status, or a transport error.
// `*sent_ns` is when the request that got the final answer was sent.
static int exchange(keep_client *c, keep_frame *req, keep_frame *ans, uint64_t *sent_ns) {
  int rc;
  size_t need = keep_frame_encoded_len(req);
  if (need == 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  if ((rc = ensure_out(c, need)) < 0)
    return rc;
  uint64_t deadline = keep_now_ns() + (uint64_t)c->io_timeout_ms * 1000000u;
  for (unsigned attempt = 0;; attempt++) {
    compact(c);
    req->id = c->next_id++;
    size_t len;
    if ((rc = keep_frame_encode(c->out, c->out_cap, &len, req)) < 0)
      return rc;
    uint64_t start = keep_now_ns();
    if (sent_ns != NULL)
      *sent_ns = start;
    if ((rc = send_all(c, len, deadline)) < 0)
      return fail(c, rc);
    if ((rc = next_frame(c, ans, req->id, deadline)) < 0)
      return fail(c, rc);
    rc = keep_answer_status(ans);
    // CLUSTER is answered by VIEW, a frame with no status of its own.
    if (req->opcode == KEEP_OP_CLUSTER && ans->opcode == KEEP_OP_VIEW)
      rc = 0;
    if (ans->opcode == KEEP_OP_ERROR && frame_error_closes(ans->num))
      client_disconnect(c);
    uint64_t pause = (uint64_t)1000000u << attempt;
    if (rc != KEEP_ERR_BUSY || attempt == KEEP_BUSY_RETRIES || keep_now_ns() + pause >= deadline)
      return rc;
    struct timespec ts = {0, (long)pause};
    nanosleep(&ts, NULL);
  }
}

// call_routed makes the connection of `req`'s owner active, then exchanges.
static int call_routed(keep_client *c, keep_frame *req, keep_frame *ans, uint64_t *sent_ns) {
  int rc = route(c, req);
  if (rc < 0)
    return rc;
  return exchange(c, req, ans, sent_ns);
}

// call is call_routed, following one MOVED answer in cluster mode: the
// request was not executed, and the answer names the slot's owner.
// In cluster mode, a connection found closed when a request is sent on it
// (the member died or left since its last use) is given up, the member
// skipped for KEEP_MEMBER_DOWN_MS, and the request sent once more to the
// slot's next owner, which holds none of the dead member's data anyway.
static int call(keep_client *c, keep_frame *req, keep_frame *ans, uint64_t *sent_ns) {
  if (c->resp != NULL)
    return keep_resp_call(c->resp, req, ans, sent_ns);
  bool followed = false, resent = false;
  for (;;) {
    int rc = call_routed(c, req, ans, sent_ns);
    if ((rc == KEEP_ERR_CLOSED || rc == -ECONNRESET || rc == -EPIPE) && c->ids != NULL && !resent) {
      resent = true;
      continue;
    }
    if (rc != KEEP_ERR_MOVED || c->ids == NULL || followed || !learn_moved(c, ans))
      return rc;
    followed = true;
  }
}

static bool key_ok(const void *key, size_t key_len) {
  return key != NULL && key_len > 0 && key_len <= KEEP_MAX_KEY;
}

static bool holder_ok(const void *h, size_t h_len) {
  return h != NULL && h_len > 0 && h_len <= KEEP_MAX_HOLDER;
}

int keep_ping(keep_client *c) {
  if (c == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_PING, 0);
  return call(c, &req, &ans, NULL);
}

int keep_view_epoch(keep_client *c, uint64_t *out_epoch, size_t member) {
  if (c == NULL || out_epoch == NULL || c->resp != NULL ||
      member >= (c->ids != NULL ? c->num_members : 1))
    return KEEP_ERR_INVALID_ARGUMENT;
  int rc;
  if (c->ids != NULL) {
    // That member's view, not the slot owner's: no routing, no MOVED.
    use_member(c, member);
    if (c->fd < 0 && (rc = connect_one(c, c->members[member])) < 0)
      return rc;
  } else if ((rc = ensure_connected(c)) < 0) {
    return rc;
  }
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_CLUSTER, 0);
  keep_frame_init(&ans, 0, 0);
  rc = exchange(c, &req, &ans, NULL);
  if (rc < 0)
    return rc;
  if (ans.opcode != KEEP_OP_VIEW)
    return KEEP_ERR_PROTOCOL;
  *out_epoch = ans.num;
  return 0;
}

int keep_get(keep_client *c, void *out, size_t out_cap, size_t *out_len, const void *key,
             size_t key_len) {
  if (c == NULL || out_len == NULL || (out == NULL && out_cap > 0) || !key_ok(key, key_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_GET, 0);
  req.key = key;
  req.key_len = key_len;
  int rc = call(c, &req, &ans, NULL);
  if (rc < 0)
    return rc;
  *out_len = ans.value_len;
  if (ans.value_len > out_cap)
    return -ENOBUFS;
  if (ans.value_len > 0)
    memcpy(out, ans.value, ans.value_len);
  return 0;
}

static int set_common(keep_client *c, uint8_t op, const void *key, size_t key_len,
                      const void *value, size_t value_len, uint64_t ttl_ms) {
  if (c == NULL || !key_ok(key, key_len) || (value == NULL && value_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (value_len > KEEP_MAX_VALUE_HARD)
    return KEEP_ERR_TOO_LARGE;
  keep_frame req, ans;
  keep_frame_init(&req, op, 0);
  req.key = key;
  req.key_len = key_len;
  req.value = value;
  req.value_len = value_len;
  req.num = ttl_ms;
  return call(c, &req, &ans, NULL);
}

int keep_set(keep_client *c, const void *key, size_t key_len, const void *value, size_t value_len,
             uint64_t ttl_ms) {
  return set_common(c, KEEP_OP_SET, key, key_len, value, value_len, ttl_ms);
}

int keep_set_nx(keep_client *c, const void *key, size_t key_len, const void *value,
                size_t value_len, uint64_t ttl_ms) {
  return set_common(c, KEEP_OP_SETNX, key, key_len, value, value_len, ttl_ms);
}

static int key_only(keep_client *c, uint8_t op, const void *key, size_t key_len, uint64_t num,
                    keep_frame *ans) {
  if (c == NULL || !key_ok(key, key_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame req;
  keep_frame_init(&req, op, 0);
  req.key = key;
  req.key_len = key_len;
  req.num = num;
  return call(c, &req, ans, NULL);
}

int keep_del(keep_client *c, const void *key, size_t key_len) {
  keep_frame ans;
  return key_only(c, KEEP_OP_DEL, key, key_len, 0, &ans);
}

int keep_expire(keep_client *c, const void *key, size_t key_len, uint64_t ttl_ms) {
  keep_frame ans;
  return key_only(c, KEEP_OP_EXPIRE, key, key_len, ttl_ms, &ans);
}

int keep_incr(keep_client *c, int64_t *out_value, const void *key, size_t key_len, int64_t delta,
              uint64_t ttl_ms) {
  if (c == NULL || !key_ok(key, key_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_INCR, 0);
  req.key = key;
  req.key_len = key_len;
  req.num = (uint64_t)delta;
  req.num2 = ttl_ms;
  int rc = call(c, &req, &ans, NULL);
  if (rc == 0 && out_value != NULL)
    *out_value = (int64_t)ans.num;
  return rc;
}

static int lock_common(keep_client *c, uint8_t op, uint64_t *out_deadline_ns, const void *key,
                       size_t key_len, const void *holder, size_t holder_len, uint64_t lease_ms) {
  if (c == NULL || !key_ok(key, key_len) || !holder_ok(holder, holder_len) ||
      (op != KEEP_OP_UNLOCK && (lease_ms == 0 || lease_ms > UINT32_MAX)))
    return KEEP_ERR_INVALID_ARGUMENT;
  keep_frame req, ans;
  keep_frame_init(&req, op, 0);
  req.key = key;
  req.key_len = key_len;
  req.text = holder;
  req.text_len = holder_len;
  req.num = lease_ms;
  uint64_t sent = 0;
  int rc = call(c, &req, &ans, &sent);
  if (rc == 0 && out_deadline_ns != NULL) {
    uint64_t margin = c->lock_margin_ms ? c->lock_margin_ms : 1 + lease_ms / 100;
    uint64_t usable = lease_ms > margin ? lease_ms - margin : 0;
    *out_deadline_ns = sent + usable * 1000000u;
  }
  return rc;
}

int keep_lock(keep_client *c, uint64_t *out_deadline_ns, const void *key, size_t key_len,
              const void *holder, size_t holder_len, uint64_t lease_ms) {
  return lock_common(c, KEEP_OP_LOCK, out_deadline_ns, key, key_len, holder, holder_len, lease_ms);
}

int keep_unlock(keep_client *c, const void *key, size_t key_len, const void *holder,
                size_t holder_len) {
  return lock_common(c, KEEP_OP_UNLOCK, NULL, key, key_len, holder, holder_len, 0);
}

int keep_extend(keep_client *c, uint64_t *out_deadline_ns, const void *key, size_t key_len,
                const void *holder, size_t holder_len, uint64_t lease_ms) {
  return lock_common(c, KEEP_OP_EXTEND, out_deadline_ns, key, key_len, holder, holder_len,
                     lease_ms);
}

int keep_publish(keep_client *c, size_t *out_receivers, const void *topic, size_t topic_len,
                 const void *payload, size_t payload_len) {
  if (c == NULL || !key_ok(topic, topic_len) || (payload == NULL && payload_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (payload_len > KEEP_MAX_VALUE_HARD)
    return KEEP_ERR_TOO_LARGE;
  keep_frame req, ans;
  keep_frame_init(&req, KEEP_OP_PUBLISH, 0);
  req.key = topic;
  req.key_len = topic_len;
  req.value = payload;
  req.value_len = payload_len;
  int rc = call(c, &req, &ans, NULL);
  if (rc == 0 && out_receivers != NULL)
    *out_receivers = (size_t)ans.num;
  return rc;
}

// member_now is the member whose connection is active (0 outside cluster
// mode), where a request just exchanged went.
static size_t member_now(const keep_client *c) {
  return c->ids != NULL ? c->cur : 0;
}

// sub_request exchanges a SUBSCRIBE or UNSUBSCRIBE of `topic`: on member
// `on`'s connection when `on` names one (and fails with KEEP_ERR_CLOSED if
// that connection is down), else routed to the topic's owner with MOVED
// followed.
static int sub_request(keep_client *c, uint8_t op, const uint8_t *topic, size_t topic_len,
                       const size_t *on, keep_frame *ans) {
  keep_frame req;
  keep_frame_init(&req, op, 0);
  req.key = topic;
  req.key_len = topic_len;
  if (on == NULL)
    return call(c, &req, ans, NULL);
  use_member(c, *on);
  if (c->fd < 0)
    return KEEP_ERR_CLOSED;
  return exchange(c, &req, ans, NULL);
}

// drop_stale ends, best effort, the subscription to `topic` that member `m`
// still holds after the client followed the topic elsewhere, so that it
// stops sending heartbeats; should it fail, that traffic is ignored.
static void drop_stale(keep_client *c, size_t m, const uint8_t *topic, size_t topic_len) {
  if (c->ids == NULL || (m != c->cur && c->conns[m].fd < 0))
    return;
  keep_frame ans;
  (void)sub_request(c, KEEP_OP_UNSUBSCRIBE, topic, topic_len, &m, &ans);
}

// sub_took records that member_now() holds subscription `i` at sequence
// number `seq`, dropping the copy of the member it moved from.
static void sub_took(keep_client *c, size_t i, uint64_t seq) {
  struct subscription *s = &c->subs[i];
  size_t at = member_now(c), old = s->member;
  s->member = at;
  s->live = true;
  s->last_seq = seq;
  s->due_ns = keep_now_ns() + (uint64_t)KEEP_SUB_CHECK_MS * 1000000u;
  if (old != at)
    drop_stale(c, old, s->topic, s->topic_len);
}

int keep_subscribe(keep_client *c, const void *topic, size_t topic_len) {
  if (c != NULL && c->resp != NULL)
    return key_only(c, KEEP_OP_SUBSCRIBE, topic, topic_len, 0, &(keep_frame){0});
  if (c == NULL || !key_ok(topic, topic_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  // Room for a new topic first: a subscription the member took, and that
  // the client then could not note, would go on unfollowed.
  if (find_sub(c, topic, topic_len) < 0 && c->num_subs == c->subs_cap) {
    size_t cap = c->subs_cap ? c->subs_cap * 2 : 8;
    struct subscription *s = realloc(c->subs, cap * sizeof *s);
    if (s == NULL)
      return -ENOMEM;
    c->subs = s;
    c->subs_cap = cap;
  }
  keep_frame ans;
  int rc = sub_request(c, KEEP_OP_SUBSCRIBE, topic, topic_len, NULL, &ans);
  if (rc < 0)
    return rc;
  uint64_t seq = ans.num;
  int i = find_sub(c, topic, topic_len);
  if (i < 0) {
    i = (int)c->num_subs++;
    c->subs[i] = (struct subscription){.topic_len = topic_len, .member = member_now(c)};
    memcpy(c->subs[i].topic, topic, topic_len);
  }
  sub_took(c, (size_t)i, seq);
  return 0;
}

int keep_unsubscribe(keep_client *c, const void *topic, size_t topic_len) {
  if (c != NULL && c->resp != NULL)
    return key_only(c, KEEP_OP_UNSUBSCRIBE, topic, topic_len, 0, &(keep_frame){0});
  if (c == NULL || !key_ok(topic, topic_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  int i = find_sub(c, topic, topic_len);
  // On the member that holds it (any member accepts UNSUBSCRIBE), else on
  // the topic's owner.
  size_t on = i >= 0 ? c->subs[i].member : 0;
  bool there = i >= 0 && c->subs[i].live && c->ids != NULL;
  keep_frame ans;
  int rc = sub_request(c, KEEP_OP_UNSUBSCRIBE, topic, topic_len, there ? &on : NULL, &ans);
  // The client stops following the topic whatever the answer; a member
  // that did not hear it sends traffic that is ignored. An interrupted
  // subscription that no member holds any more ends without an error.
  if ((i = find_sub(c, topic, topic_len)) >= 0) {
    bool was_live = c->subs[i].live;
    c->subs[i] = c->subs[--c->num_subs];
    if (!was_live && (rc == KEEP_ERR_NOT_FOUND || rc == KEEP_ERR_CLOSED))
      rc = 0;
  }
  return rc;
}

// fill_event turns a decoded EVENT or HEARTBEAT that came on `member`'s
// connection into `out`, doing the gap bookkeeping. Returns 0 for a frame
// of a topic no longer subscribed, or from a member the subscription has
// left.
static int fill_event(keep_client *c, const keep_frame *f, size_t member, keep_event *out) {
  int i = find_sub(c, f->key, f->key_len);
  if (i < 0 || c->subs[i].member != member)
    return 0;
  struct subscription *s = &c->subs[i];
  // Older than the subscription's sequence number: sent before the
  // SUBSCRIBE answer that set it (read while the client waited for it),
  // after which KEEP_EVENT_RESUBSCRIBED already said that events in
  // between may be lost. Handed out now, it would go back in sequence.
  if (f->opcode == KEEP_OP_EVENT ? f->num <= s->last_seq : f->num < s->last_seq)
    return 0;
  memset(out, 0, sizeof *out);
  out->topic = f->key;
  out->topic_len = f->key_len;
  out->seq = f->num;
  if (f->opcode == KEEP_OP_EVENT) {
    out->kind = KEEP_EVENT_MESSAGE;
    out->payload = f->value;
    out->payload_len = f->value_len;
    out->missed = f->num > s->last_seq + 1 ? f->num - s->last_seq - 1 : 0;
  } else {
    out->kind = KEEP_EVENT_HEARTBEAT;
    out->missed = f->num > s->last_seq ? f->num - s->last_seq : 0;
    // A gap in a heartbeat is how a member says the topic's slot moved
    // away from it: confirm the subscription now.
    if (out->missed > 0 && c->ids != NULL)
      s->due_ns = 0;
  }
  if (f->num > s->last_seq)
    s->last_seq = f->num;
  return 1;
}

// sub_maintain makes subscription `i` again when it is interrupted, or in
// cluster mode confirms it on its own connection, following a MOVED answer
// to the topic's owner. Returns 1 with KEEP_EVENT_RESUBSCRIBED in `*out`
// when it was made again, moved, or confirmed after an interruption; else
// 0, with the next attempt or check scheduled.
static int sub_maintain(keep_client *c, size_t i, keep_event *out) {
  struct subscription *s = &c->subs[i];
  bool was_live = s->live;
  size_t held_by = s->member;
  uint8_t topic[KEEP_MAX_KEY];
  size_t topic_len = s->topic_len;
  memcpy(topic, s->topic, topic_len);
  keep_frame ans;
  int rc = sub_request(c, KEEP_OP_SUBSCRIBE, topic, topic_len, was_live ? &held_by : NULL, &ans);
  if (rc == KEEP_ERR_MOVED && was_live && learn_moved(c, &ans))
    rc = sub_request(c, KEEP_OP_SUBSCRIBE, topic, topic_len, NULL, &ans);
  // A failed exchange may have ended other subscriptions too, never this
  // array's order: `i` still names this one.
  s = &c->subs[i];
  uint64_t now = keep_now_ns();
  if (rc < 0) {
    s->live = false;
    s->due_ns = now + (uint64_t)KEEP_RENEW_MS * 1000000u;
    return 0;
  }
  // A confirmation on the same connection, unless the member's sequence
  // number went back: it forgot the subscription and made a new one.
  if (was_live && s->live && member_now(c) == held_by && ans.num >= s->last_seq) {
    s->due_ns = now + (uint64_t)KEEP_SUB_CHECK_MS * 1000000u;
    return 0;
  }
  sub_took(c, i, ans.num);
  s = &c->subs[i];
  memset(out, 0, sizeof *out);
  out->kind = KEEP_EVENT_RESUBSCRIBED;
  out->topic = s->topic;
  out->topic_len = s->topic_len;
  out->seq = s->last_seq;
  return 1;
}

// pump returns in `*f` the next EVENT or HEARTBEAT already readable on the
// active connection (copied into c->current_event), 0 when none is, or a
// transport error.
static int pump(keep_client *c, keep_frame *f) {
  int rc = next_frame(c, f, 0, 0);
  if (rc == KEEP_ERR_TIMEOUT)
    return 0;
  if (rc < 0)
    return rc;
  // Copy it out: the input buffer moves on the next read.
  uint8_t *copy = malloc(c->in_consume);
  if (copy == NULL)
    return -ENOMEM;
  memcpy(copy, c->in, c->in_consume);
  size_t used;
  free(c->current_event);
  c->current_event = copy;
  return keep_frame_decode(f, &used, copy, c->in_consume, 0) == 1 ? 1 : KEEP_ERR_PROTOCOL;
}

int keep_next_event(keep_client *c, keep_event *out, uint32_t timeout_ms) {
  if (c == NULL || out == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (c->resp != NULL)
    return keep_resp_next_event(c->resp, out, timeout_ms);
  free(c->current_event);
  c->current_event = NULL;
  keep_frame f;
  size_t used;
  uint64_t deadline = keep_now_ns() + (uint64_t)timeout_ms * 1000000u;
  for (;;) {
    while (c->ev_count > 0) {
      struct queued_event *q = &c->events[c->ev_head];
      c->ev_head = (c->ev_head + 1) % c->max_events;
      c->ev_count--;
      free(c->current_event);
      c->current_event = q->bytes;
      if (keep_frame_decode(&f, &used, q->bytes, q->len, 0) == 1 &&
          fill_event(c, &f, q->member, out))
        return 1;
    }
    if (c->num_subs == 0 && c->fd < 0)
      return KEEP_ERR_CLOSED;
    // Subscriptions to make again or to confirm; their requests may queue
    // events, which go first.
    uint64_t now = keep_now_ns(), wake = deadline;
    for (size_t i = 0; i < c->num_subs && c->ev_count == 0; i++) {
      if (c->subs[i].live && c->ids == NULL)
        continue;
      if (c->subs[i].due_ns <= now && sub_maintain(c, i, out))
        return 1;
      if (c->subs[i].due_ns < wake)
        wake = c->subs[i].due_ns;
    }
    if (c->ev_count > 0)
      continue;
    // Read every connection that holds a live subscription (the active one
    // when there is none), then wait for any of them.
    struct pollfd pfd[KEEP_MAX_MEMBERS];
    size_t np = 0;
    bool failed = false;
    for (size_t m = 0; m < (c->ids != NULL ? c->num_members : 1) && !failed; m++) {
      bool holds = c->num_subs == 0 && m == member_now(c);
      for (size_t i = 0; i < c->num_subs && !holds; i++)
        holds = c->subs[i].live && c->subs[i].member == m;
      if (!holds)
        continue;
      use_member(c, m);
      if (c->fd < 0)
        continue;
      for (;;) {
        int rc = pump(c, &f);
        if (rc == 1 && fill_event(c, &f, m, out))
          return 1;
        if (rc == 1)
          continue;
        if (rc < 0) {
          (void)fail(c, rc); // interrupts this connection's subscriptions
          failed = true;
        } else {
          pfd[np++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        }
        break;
      }
    }
    if (failed)
      continue;
    now = keep_now_ns();
    if (now >= deadline)
      return 0;
    if (wake > deadline)
      wake = deadline;
    int ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
    if (poll(pfd, np, ms) < 0 && errno != EINTR)
      return -errno;
  }
}

// Batches.

int keep_batch_new(keep_batch **out) {
  if (out == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  *out = calloc(1, sizeof **out);
  return *out == NULL ? -ENOMEM : 0;
}

void keep_batch_reset(keep_batch *b) {
  if (b == NULL)
    return;
  for (size_t i = 0; i < b->num; i++) {
    free(b->reqs[i].data);
    free(b->reqs[i].value);
  }
  b->num = 0;
  b->ran = false;
}

void keep_batch_free(keep_batch *b) {
  if (b == NULL)
    return;
  keep_batch_reset(b);
  free(b->reqs);
  free(b);
}

static int batch_add(keep_batch *b, uint8_t op, const void *key, size_t key_len, const void *value,
                     size_t value_len, uint64_t num, uint64_t num2) {
  if (b == NULL || !key_ok(key, key_len) || (value == NULL && value_len > 0) ||
      b->num >= (size_t)INT32_MAX)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (value_len > KEEP_MAX_VALUE_HARD)
    return KEEP_ERR_TOO_LARGE;
  if (b->num == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 16;
    struct batch_req *r = realloc(b->reqs, cap * sizeof *r);
    if (r == NULL)
      return -ENOMEM;
    b->reqs = r;
    b->cap = cap;
  }
  struct batch_req *r = &b->reqs[b->num];
  memset(r, 0, sizeof *r);
  r->data = malloc(key_len + value_len);
  if (r->data == NULL)
    return -ENOMEM;
  memcpy(r->data, key, key_len);
  if (value_len > 0)
    memcpy(r->data + key_len, value, value_len);
  r->op = op;
  r->key_len = key_len;
  r->data_value_len = value_len;
  r->arg = num;
  r->arg2 = num2;
  b->ran = false;
  return (int)b->num++;
}

int keep_batch_get(keep_batch *b, const void *key, size_t key_len) {
  return batch_add(b, KEEP_OP_GET, key, key_len, NULL, 0, 0, 0);
}

int keep_batch_set(keep_batch *b, const void *key, size_t key_len, const void *value,
                   size_t value_len, uint64_t ttl_ms) {
  return batch_add(b, KEEP_OP_SET, key, key_len, value, value_len, ttl_ms, 0);
}

int keep_batch_incr(keep_batch *b, const void *key, size_t key_len, int64_t delta,
                    uint64_t ttl_ms) {
  return batch_add(b, KEEP_OP_INCR, key, key_len, NULL, 0, (uint64_t)delta, ttl_ms);
}

int keep_batch_del(keep_batch *b, const void *key, size_t key_len) {
  return batch_add(b, KEEP_OP_DEL, key, key_len, NULL, 0, 0, 0);
}

int keep_batch_run(keep_client *c, keep_batch *b) {
  if (c == NULL || b == NULL || c->resp != NULL) // no batches over RESP
    return KEEP_ERR_INVALID_ARGUMENT;
  int rc = ensure_connected(c);
  if (rc < 0)
    return rc;
  compact(c);
  size_t total = 0;
  for (size_t i = 0; i < b->num; i++)
    total += KEEP_HEADER_LEN + 1 + 8 + 8 + 4 + b->reqs[i].key_len + b->reqs[i].data_value_len;
  if ((rc = ensure_out(c, total ? total : 1)) < 0)
    return rc;
  // Ids are consecutive, so an answer's id gives its index directly.
  uint64_t first = c->next_id;
  size_t off = 0;
  for (size_t i = 0; i < b->num; i++) {
    struct batch_req *r = &b->reqs[i];
    free(r->value);
    r->value = NULL;
    r->answered = false;
    r->id = c->next_id++;
    keep_frame f;
    keep_frame_init(&f, r->op, r->id);
    f.key = r->data;
    f.key_len = r->key_len;
    f.value = r->data + r->key_len;
    f.value_len = r->data_value_len;
    f.num = r->arg;
    f.num2 = r->arg2;
    size_t len;
    if ((rc = keep_frame_encode(c->out + off, c->out_cap - off, &len, &f)) < 0)
      return rc;
    off += len;
  }
  uint64_t deadline = keep_now_ns() + (uint64_t)c->io_timeout_ms * 1000000u;
  if ((rc = send_all(c, off, deadline)) < 0)
    return fail(c, rc);
  size_t pending = b->num;
  while (pending > 0) {
    compact(c);
    size_t used;
    keep_frame f;
    rc = keep_frame_decode(&f, &used, c->in, c->in_len, 0);
    if (rc < 0)
      return fail(c, KEEP_ERR_PROTOCOL);
    if (rc == 0) {
      rc = read_some(c);
      if (rc < 0)
        return fail(c, rc);
      short rev;
      if (rc == 0 && (rc = wait_fd(c, POLLIN, deadline, &rev)) < 0)
        return fail(c, rc);
      continue;
    }
    c->in_consume = used;
    if (f.opcode == KEEP_OP_EVENT || f.opcode == KEEP_OP_HEARTBEAT) {
      queue_event(c, c->in, used);
      continue;
    }
    if (f.id < first || f.id >= first + b->num)
      continue;
    struct batch_req *r = &b->reqs[f.id - first];
    if (r->answered)
      return fail(c, KEEP_ERR_PROTOCOL);
    r->answered = true;
    r->status = keep_answer_status(&f);
    r->num = (int64_t)f.num;
    if (f.value_len > 0) {
      r->value = malloc(f.value_len);
      if (r->value == NULL)
        return fail(c, -ENOMEM);
      memcpy(r->value, f.value, f.value_len);
    }
    r->value_len = f.value_len;
    pending--;
  }
  b->ran = true;
  return 0;
}

int keep_batch_result(const keep_batch *b, size_t index, int64_t *out_num,
                      const uint8_t **out_value, size_t *out_value_len) {
  if (b == NULL || !b->ran || index >= b->num)
    return KEEP_ERR_INVALID_ARGUMENT;
  const struct batch_req *r = &b->reqs[index];
  if (out_num != NULL)
    *out_num = r->num;
  if (out_value != NULL)
    *out_value = r->value;
  if (out_value_len != NULL)
    *out_value_len = r->value_len;
  return r->status;
}
