// resp.c: libkeep's RESP back end, for sites that run Redis or Valkey
// instead of keepd. The blocking client passes each keep/1 request here;
// this file turns it into RESP2 commands (the Redis serialization protocol),
// sends them on a command connection, parses the replies through a bounded
// cursor and answers with the keep/1 answer keepd would give. Requests that
// need more than one step run atomically on the server: INCR with a TTL as
// MULTI/EXEC, locks as small Lua scripts that compare the holder before
// they touch the key. Subscriptions use a second connection, since a RESP2
// connection in subscribed mode accepts nothing else.
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "keep_common.h"
#include "keep_resp.h"

// KEEP_RESP_MAX_REPLY bounds one reply: the largest value plus room for its
// framing; a larger reply closes the connection (KEEP_ERR_TOO_LARGE).
#define KEEP_RESP_MAX_REPLY (KEEP_MAX_VALUE_HARD + 1024u)
// KEEP_RESP_MAX_ELEMS bounds the values of one parsed reply (arrays
// included): every reply this back end asks for has at most a handful.
#define KEEP_RESP_MAX_ELEMS 16
// KEEP_RESP_MAX_LINE bounds a reply's line (status, error, number).
#define KEEP_RESP_MAX_LINE 65536u
// KEEP_RESP_MAX_SUBS bounds the topics subscribed at once.
#define KEEP_RESP_MAX_SUBS 1024

// A lock's value is its holder behind a prefix that no text value starts
// with by accident, so that a plain value is never mistaken for a lock.
static const char lock_prefix[] = "\x01keep-lock\x01";
#define LOCK_PREFIX_LEN (sizeof lock_prefix - 1)

// Lua scripts: each reads the key once and decides, atomically.
// LOCK: -1 granted (or renewed by the same holder), else the ms left
// (0: the key holds something without expiry).
static const char lock_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return -1 end "
    "if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return -1 end "
    "local t = redis.call('PTTL', KEYS[1]) if t < 0 then t = 0 end return t";
// UNLOCK: 1 released, 0 absent, -1 held by another holder (or a value).
static const char unlock_script[] = "local v = redis.call('GET', KEYS[1]) "
                                    "if not v then return 0 end "
                                    "if v == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end "
                                    "return -1";
// EXTEND: as UNLOCK, setting the lease instead of deleting.
static const char extend_script[] =
    "local v = redis.call('GET', KEYS[1]) "
    "if not v then return 0 end "
    "if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end "
    "return -1";

struct rval {
  char type; // '+', '-', ':', '$', '*'
  bool nil;
  int64_t num;
  const uint8_t *str;
  size_t len;
  size_t n;          // array elements
  struct rval *elem; // into the reply's pool
};

struct rreply {
  struct rval pool[KEEP_RESP_MAX_ELEMS];
  size_t used;
};

struct rconn {
  int fd;
  uint8_t *in;
  size_t in_len, in_off, in_cap;
};

struct rsub {
  uint8_t topic[KEEP_MAX_KEY];
  size_t topic_len;
  uint64_t seq, delivered;
};

struct keep_resp {
  struct sockaddr_storage addr;
  socklen_t addr_len;
  uint32_t connect_timeout_ms, io_timeout_ms;
  struct rconn cmd, sub;
  uint8_t *out;
  size_t out_len, out_cap;
  bool out_failed;
  struct rsub *subs;
  size_t num_subs;
};

bool keep_resp_url(const char *m) {
  return m != NULL && (strncmp(m, "redis://", 8) == 0 || strncmp(m, "valkey://", 9) == 0);
}

// Parsing (RESP2): a type byte, a line ending in CRLF, and for bulk strings
// and arrays what the line announces.

// get_line takes the bytes up to CRLF: 1, 0 when no CRLF is there yet,
// KEEP_ERR_PROTOCOL when a line is longer than any this back end expects.
static int get_line(struct keep_cur *c, const uint8_t **line, size_t *len) {
  // Lines are short: a type, a number or a status text. The bound holds
  // whether or not the CRLF has arrived, so a prefix of a reply never
  // parses differently from the whole.
  for (size_t i = 0; i + 1 < c->len && i <= KEEP_RESP_MAX_LINE; i++)
    if (c->p[i] == '\r' && c->p[i + 1] == '\n') {
      *line = c->p;
      *len = i;
      c->p += i + 2;
      c->len -= i + 2;
      return 1;
    }
  return c->len > KEEP_RESP_MAX_LINE + 1 ? KEEP_ERR_PROTOCOL : 0;
}

static bool parse_i64(const uint8_t *s, size_t len, int64_t *out) {
  bool neg = len > 0 && s[0] == '-';
  size_t i = neg;
  if (i == len || len - i > 19)
    return false;
  uint64_t v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (v > (uint64_t)INT64_MAX + neg)
    return false;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

// parse reads one reply into `out`: 1 when complete, 0 when more bytes are
// needed (the caller parses again from the start), or a negative status.
static int parse(struct rreply *p, struct keep_cur *c, struct rval *out, int depth) {
  uint8_t t;
  const uint8_t *line;
  size_t ll;
  if (!keep_cur_get_u8(c, &t))
    return 0;
  int rc = get_line(c, &line, &ll);
  if (rc <= 0)
    return rc;
  memset(out, 0, sizeof *out);
  out->type = (char)t;
  switch (t) {
  case '+':
  case '-':
    out->str = line;
    out->len = ll;
    return 1;
  case ':':
    return parse_i64(line, ll, &out->num) ? 1 : KEEP_ERR_PROTOCOL;
  case '$': {
    int64_t n;
    if (!parse_i64(line, ll, &n) || n < -1)
      return KEEP_ERR_PROTOCOL;
    if (n == -1) {
      out->nil = true;
      return 1;
    }
    if ((uint64_t)n > KEEP_RESP_MAX_REPLY)
      return KEEP_ERR_TOO_LARGE;
    const uint8_t *b, *crlf;
    if (!keep_cur_get_bytes(c, (size_t)n, &b) || !keep_cur_get_bytes(c, 2, &crlf))
      return 0;
    if (crlf[0] != '\r' || crlf[1] != '\n')
      return KEEP_ERR_PROTOCOL;
    out->str = b;
    out->len = (size_t)n;
    return 1;
  }
  case '*': {
    int64_t n;
    if (!parse_i64(line, ll, &n) || n < -1 || depth >= 2)
      return KEEP_ERR_PROTOCOL;
    if (n == -1) {
      out->nil = true;
      return 1;
    }
    if ((uint64_t)n > KEEP_RESP_MAX_ELEMS - p->used)
      return KEEP_ERR_PROTOCOL;
    out->elem = &p->pool[p->used];
    out->n = (size_t)n;
    p->used += (size_t)n;
    for (size_t i = 0; i < out->n; i++)
      if ((rc = parse(p, c, &out->elem[i], depth + 1)) <= 0)
        return rc;
    return 1;
  }
  default:
    return KEEP_ERR_PROTOCOL;
  }
}

int keep_resp_parse_check(const uint8_t *in, size_t in_len, size_t *out_used) {
  struct rreply p = {.used = 0};
  struct rval v;
  struct keep_cur c = {in, in_len};
  int rc = parse(&p, &c, &v, 0);
  if (rc == 1)
    *out_used = in_len - c.len;
  return rc;
}

// Connections.

static void conn_close(struct rconn *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
  c->in_len = c->in_off = 0;
}

static int wait_fd(int fd, short events, uint64_t deadline) {
  for (;;) {
    uint64_t now = keep_now_ns();
    if (now >= deadline)
      return KEEP_ERR_TIMEOUT;
    struct pollfd p = {.fd = fd, .events = events};
    int n = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
    if (n > 0)
      return 0;
    if (n < 0 && errno != EINTR)
      return -errno;
  }
}

static int conn_open(struct keep_resp *r, struct rconn *c) {
  if (c->fd >= 0)
    return 0;
  int fd;
  int rc = keep_connect_start(&fd, (const struct sockaddr *)&r->addr, r->addr_len);
  if (rc < 0)
    return rc;
  rc = wait_fd(fd, POLLOUT, keep_now_ns() + (uint64_t)r->connect_timeout_ms * 1000000u);
  int err = 0;
  socklen_t len = sizeof err;
  if (rc == 0 && (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0))
    rc = -(err ? err : ECONNREFUSED);
  if (rc < 0) {
    close(fd);
    return rc;
  }
  c->fd = fd;
  c->in_len = c->in_off = 0;
  return 0;
}

static int send_out(struct keep_resp *r, struct rconn *c, uint64_t deadline) {
  if (r->out_failed)
    return -ENOMEM;
  size_t off = 0;
  while (off < r->out_len) {
    ssize_t n = send(c->fd, r->out + off, r->out_len - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int rc = wait_fd(c->fd, POLLOUT, deadline);
      if (rc < 0)
        return rc;
      continue;
    }
    return n < 0 && errno != EPIPE ? -errno : KEEP_ERR_CLOSED;
  }
  return 0;
}

// read_reply parses the next reply on `c` into `out`, reading as needed
// until `deadline`. Byte fields point into c->in until the next read.
static int read_reply(struct rconn *c, struct rreply *p, struct rval *out, uint64_t deadline) {
  for (;;) {
    struct keep_cur cur = {c->in != NULL ? c->in + c->in_off : NULL, c->in_len - c->in_off};
    p->used = 0;
    int rc = parse(p, &cur, out, 0);
    if (rc == 1) {
      c->in_off = c->in_len - cur.len;
      return 0;
    }
    if (rc < 0)
      return rc;
    if (c->in_off > 0) {
      memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
      c->in_len -= c->in_off;
      c->in_off = 0;
    }
    if (c->in_cap - c->in_len < 4096) {
      if (c->in_cap >= KEEP_RESP_MAX_REPLY + 65536)
        return KEEP_ERR_TOO_LARGE;
      size_t cap = c->in_cap ? c->in_cap * 2 : 16384;
      uint8_t *b = realloc(c->in, cap);
      if (b == NULL)
        return -ENOMEM;
      c->in = b;
      c->in_cap = cap;
    }
    ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    if (n > 0) {
      c->in_len += (size_t)n;
      continue;
    }
    if (n == 0)
      return KEEP_ERR_CLOSED;
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return -errno;
    if ((rc = wait_fd(c->fd, POLLIN, deadline)) < 0)
      return rc;
  }
}

// Commands are arrays of bulk strings, appended to r->out; an allocation
// failure is sticky and reported when the commands are sent.

static void out_put(struct keep_resp *r, const void *p, size_t len) {
  if (r->out_failed || len == 0)
    return;
  if (r->out_cap - r->out_len < len) {
    size_t cap = r->out_cap ? r->out_cap : 1024;
    while (cap - r->out_len < len)
      cap *= 2;
    uint8_t *b = realloc(r->out, cap);
    if (b == NULL) {
      r->out_failed = true;
      return;
    }
    r->out = b;
    r->out_cap = cap;
  }
  memcpy(r->out + r->out_len, p, len);
  r->out_len += len;
}

static void cmd_begin(struct keep_resp *r, unsigned argc) {
  char h[24];
  int n = snprintf(h, sizeof h, "*%u\r\n", argc);
  out_put(r, h, (size_t)n);
}

static void cmd_arg(struct keep_resp *r, const void *p, size_t len) {
  char h[24];
  int n = snprintf(h, sizeof h, "$%zu\r\n", len);
  out_put(r, h, (size_t)n);
  out_put(r, p, len);
  out_put(r, "\r\n", 2);
}

static void cmd_str(struct keep_resp *r, const char *s) {
  cmd_arg(r, s, strlen(s));
}

static void cmd_num(struct keep_resp *r, int64_t v) {
  char b[24];
  int n = snprintf(b, sizeof b, "%lld", (long long)v);
  cmd_arg(r, b, (size_t)n);
}

static void cmd_lock_value(struct keep_resp *r, const keep_frame *req) {
  uint8_t v[LOCK_PREFIX_LEN + KEEP_MAX_HOLDER];
  memcpy(v, lock_prefix, LOCK_PREFIX_LEN);
  memcpy(v + LOCK_PREFIX_LEN, req->text, req->text_len);
  cmd_arg(r, v, LOCK_PREFIX_LEN + req->text_len);
}

static bool starts(const struct rval *v, const char *s) {
  size_t n = strlen(s);
  return v->len >= n && memcmp(v->str, s, n) == 0;
}

// error_status maps an error reply to the status keepd's answer would give.
static int error_status(const struct rval *v) {
  if (starts(v, "WRONGTYPE") || starts(v, "ERR value is not an integer"))
    return KEEP_ERR_WRONG_TYPE;
  if (starts(v, "ERR increment or decrement would overflow"))
    return KEEP_ERR_OVERFLOW;
  if (starts(v, "OOM"))
    return KEEP_ERR_OUT_OF_MEMORY;
  if (starts(v, "LOADING") || starts(v, "BUSY") || starts(v, "TRYAGAIN"))
    return KEEP_ERR_BUSY;
  return KEEP_ERR_SERVER;
}

static int fail_conn(struct rconn *c, int rc) {
  // After a transport or parse failure the stream is out of step.
  if (rc == KEEP_ERR_TIMEOUT || rc == KEEP_ERR_PROTOCOL || rc == KEEP_ERR_CLOSED ||
      rc == KEEP_ERR_TOO_LARGE || (rc < 0 && rc > -4096))
    conn_close(c);
  return rc;
}

// roundtrip sends r->out on the command connection and reads `num_replies`
// replies, keeping the last in `*out`; an error reply among the earlier ones
// is returned as its status. Returns 0 or a status.
static int roundtrip(struct keep_resp *r, struct rreply *p, struct rval *out, unsigned num_replies,
                     uint64_t *sent_ns) {
  uint64_t deadline = keep_now_ns() + (uint64_t)r->io_timeout_ms * 1000000u;
  int rc = conn_open(r, &r->cmd);
  if (rc < 0) {
    // The commands are dropped unsent, and with them their failure: the
    // next command starts clean.
    r->out_len = 0;
    r->out_failed = false;
    return rc;
  }
  if (sent_ns != NULL)
    *sent_ns = keep_now_ns();
  rc = send_out(r, &r->cmd, deadline);
  r->out_len = 0;
  r->out_failed = false;
  if (rc < 0)
    return fail_conn(&r->cmd, rc);
  int early = 0;
  for (unsigned i = 0; i < num_replies; i++) {
    if ((rc = read_reply(&r->cmd, p, out, deadline)) < 0)
      return fail_conn(&r->cmd, rc);
    if (i + 1 < num_replies && out->type == '-' && early == 0)
      early = error_status(out);
  }
  return early;
}

static int answer(keep_frame *ans, int status, uint64_t num, const uint8_t *value,
                  size_t value_len) {
  ans->opcode = status == 0 ? KEEP_OP_OK : KEEP_OP_ERROR;
  ans->num = num;
  ans->value = value;
  ans->value_len = value_len;
  return status;
}

// unexpected answers a well-formed reply of a type the command never gets
// (an integer to SET, a status to DEL): the peer is not the server the
// command was written for, or the stream is out of step, so it is a
// malformed answer as keep.h defines one, and the connection is closed.
static int unexpected(struct keep_resp *r, keep_frame *ans) {
  answer(ans, KEEP_ERR_PROTOCOL, 0, NULL, 0);
  return fail_conn(&r->cmd, KEEP_ERR_PROTOCOL);
}

// is_bulk is true for a bulk string that is not nil.
static bool is_bulk(const struct rval *v) {
  return v->type == '$' && !v->nil;
}

static int find_sub(const struct keep_resp *r, const uint8_t *t, size_t tl) {
  for (size_t i = 0; i < r->num_subs; i++)
    if (r->subs[i].topic_len == tl && memcmp(r->subs[i].topic, t, tl) == 0)
      return (int)i;
  return -1;
}

// sub_message accounts a pushed message: its sequence number and the gap
// since the last one delivered; false if it is no pushed message of a
// subscribed topic.
static bool sub_message(struct keep_resp *r, const struct rval *v, keep_event *ev) {
  if (v->type != '*' || v->n != 3 || !is_bulk(&v->elem[0]) || v->elem[0].len != 7 ||
      memcmp(v->elem[0].str, "message", 7) != 0 || !is_bulk(&v->elem[1]) || !is_bulk(&v->elem[2]))
    return false;
  int i = find_sub(r, v->elem[1].str, v->elem[1].len);
  if (i < 0)
    return false;
  struct rsub *s = &r->subs[i];
  s->seq++;
  if (ev != NULL) {
    memset(ev, 0, sizeof *ev);
    ev->kind = KEEP_EVENT_MESSAGE;
    ev->topic = v->elem[1].str;
    ev->topic_len = v->elem[1].len;
    ev->payload = v->elem[2].str;
    ev->payload_len = v->elem[2].len;
    ev->seq = s->seq;
    ev->missed = s->seq - s->delivered - 1;
    s->delivered = s->seq;
  }
  return true;
}

// subscription runs SUBSCRIBE or UNSUBSCRIBE on the subscriber connection
// and waits for its confirmation. Messages that arrive meanwhile are not
// kept: they are counted, and show as a gap on the next one delivered.
static int subscription(struct keep_resp *r, const keep_frame *req, bool on, uint64_t *sent_ns) {
  int i = find_sub(r, req->key, req->key_len);
  if (!on && i < 0)
    return KEEP_ERR_NOT_FOUND;
  if (on && i < 0 && r->num_subs == KEEP_RESP_MAX_SUBS)
    return -ENOBUFS;
  uint64_t deadline = keep_now_ns() + (uint64_t)r->io_timeout_ms * 1000000u;
  int rc = conn_open(r, &r->sub);
  if (rc < 0)
    return rc;
  const char *verb = on ? "subscribe" : "unsubscribe";
  cmd_begin(r, 2);
  cmd_str(r, verb);
  cmd_arg(r, req->key, req->key_len);
  if (sent_ns != NULL)
    *sent_ns = keep_now_ns();
  rc = send_out(r, &r->sub, deadline);
  r->out_len = 0;
  r->out_failed = false;
  if (rc < 0) {
    r->num_subs = 0;
    return fail_conn(&r->sub, rc);
  }
  for (;;) {
    struct rreply p;
    struct rval v;
    if ((rc = read_reply(&r->sub, &p, &v, deadline)) < 0) {
      r->num_subs = 0; // they end with the connection
      return fail_conn(&r->sub, rc);
    }
    if (sub_message(r, &v, NULL))
      continue;
    if (v.type == '*' && v.n == 3 && v.elem[0].len == strlen(verb) &&
        memcmp(v.elem[0].str, verb, v.elem[0].len) == 0 && v.elem[1].len == req->key_len &&
        memcmp(v.elem[1].str, req->key, req->key_len) == 0)
      break;
    if (v.type == '-')
      return error_status(&v);
  }
  if (on && i < 0) {
    struct rsub *s = &r->subs[r->num_subs++];
    memset(s, 0, sizeof *s);
    memcpy(s->topic, req->key, req->key_len);
    s->topic_len = req->key_len;
  } else if (!on) {
    r->subs[i] = r->subs[--r->num_subs];
  }
  return 0;
}

int keep_resp_call(struct keep_resp *r, const keep_frame *req, keep_frame *ans, uint64_t *sent_ns) {
  struct rreply p;
  struct rval v;
  int rc;
  keep_frame_init(ans, KEEP_OP_OK, req->id);
  switch (req->opcode) {
  case KEEP_OP_PING:
    cmd_begin(r, 1);
    cmd_str(r, "PING");
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    return v.type == '+' ? answer(ans, 0, 0, NULL, 0) : unexpected(r, ans);
  case KEEP_OP_GET:
    cmd_begin(r, 2);
    cmd_str(r, "GET");
    cmd_arg(r, req->key, req->key_len);
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (v.type != '$')
      return unexpected(r, ans);
    if (v.nil)
      return answer(ans, KEEP_ERR_NOT_FOUND, 0, NULL, 0);
    return answer(ans, 0, 0, v.str, v.len);
  case KEEP_OP_SET:
  case KEEP_OP_SETNX: {
    bool nx = req->opcode == KEEP_OP_SETNX;
    cmd_begin(r, 3 + (nx ? 1 : 0) + (req->num ? 2 : 0));
    cmd_str(r, "SET");
    cmd_arg(r, req->key, req->key_len);
    cmd_arg(r, req->value, req->value_len);
    if (nx)
      cmd_str(r, "NX");
    if (req->num) {
      cmd_str(r, "PX");
      cmd_num(r, (int64_t)(req->num > INT64_MAX ? INT64_MAX : req->num));
    }
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (nx && v.type == '$' && v.nil)
      return answer(ans, KEEP_ERR_EXISTS, 0, NULL, 0);
    return v.type == '+' ? answer(ans, 0, 0, NULL, 0) : unexpected(r, ans);
  }
  case KEEP_OP_DEL:
    cmd_begin(r, 2);
    cmd_str(r, "DEL");
    cmd_arg(r, req->key, req->key_len);
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (v.type != ':')
      return unexpected(r, ans);
    return answer(ans, v.num > 0 ? 0 : KEEP_ERR_NOT_FOUND, 0, NULL, 0);
  case KEEP_OP_INCR: {
    const struct rval *res = &v;
    if (req->num2 == 0) {
      cmd_begin(r, 3);
      cmd_str(r, "INCRBY");
      cmd_arg(r, req->key, req->key_len);
      cmd_num(r, (int64_t)req->num);
      if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
        return rc;
    } else {
      // The TTL belongs to the counter's creation only: SET NX with PX
      // creates it at 0 when absent, then INCRBY adds, both inside one
      // MULTI/EXEC so that no other client sees the step between.
      cmd_begin(r, 1);
      cmd_str(r, "MULTI");
      cmd_begin(r, 6);
      cmd_str(r, "SET");
      cmd_arg(r, req->key, req->key_len);
      cmd_str(r, "0");
      cmd_str(r, "NX");
      cmd_str(r, "PX");
      cmd_num(r, (int64_t)(req->num2 > INT64_MAX ? INT64_MAX : req->num2));
      cmd_begin(r, 3);
      cmd_str(r, "INCRBY");
      cmd_arg(r, req->key, req->key_len);
      cmd_num(r, (int64_t)req->num);
      cmd_begin(r, 1);
      cmd_str(r, "EXEC");
      if ((rc = roundtrip(r, &p, &v, 4, sent_ns)) < 0)
        return rc;
      // EXEC answers the two queued commands' replies, or an error when
      // the transaction was refused (EXECABORT).
      if (v.type == '*' && v.n == 2)
        res = &v.elem[1];
      else if (v.type != '-')
        return unexpected(r, ans);
    }
    if (res->type == '-')
      return answer(ans, error_status(res), 0, NULL, 0);
    if (res->type != ':')
      return unexpected(r, ans);
    return answer(ans, 0, (uint64_t)res->num, NULL, 0);
  }
  case KEEP_OP_EXPIRE:
    if (req->num == 0) {
      // No TTL: PERSIST alone cannot tell an absent key from one without
      // expiry, so EXISTS runs in the same transaction.
      cmd_begin(r, 1);
      cmd_str(r, "MULTI");
      cmd_begin(r, 2);
      cmd_str(r, "EXISTS");
      cmd_arg(r, req->key, req->key_len);
      cmd_begin(r, 2);
      cmd_str(r, "PERSIST");
      cmd_arg(r, req->key, req->key_len);
      cmd_begin(r, 1);
      cmd_str(r, "EXEC");
      if ((rc = roundtrip(r, &p, &v, 4, sent_ns)) < 0)
        return rc;
      if (v.type == '-')
        return answer(ans, error_status(&v), 0, NULL, 0);
      if (v.type != '*' || v.n != 2)
        return unexpected(r, ans);
      for (int i = 0; i < 2; i++)
        if (v.elem[i].type == '-')
          return answer(ans, error_status(&v.elem[i]), 0, NULL, 0);
      if (v.elem[0].type != ':' || v.elem[1].type != ':')
        return unexpected(r, ans);
      return answer(ans, v.elem[0].num > 0 ? 0 : KEEP_ERR_NOT_FOUND, 0, NULL, 0);
    }
    cmd_begin(r, 3);
    cmd_str(r, "PEXPIRE");
    cmd_arg(r, req->key, req->key_len);
    cmd_num(r, (int64_t)(req->num > INT64_MAX ? INT64_MAX : req->num));
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (v.type != ':')
      return unexpected(r, ans);
    return answer(ans, v.num > 0 ? 0 : KEEP_ERR_NOT_FOUND, 0, NULL, 0);
  case KEEP_OP_LOCK:
  case KEEP_OP_UNLOCK:
  case KEEP_OP_EXTEND: {
    const char *script = req->opcode == KEEP_OP_LOCK     ? lock_script
                         : req->opcode == KEEP_OP_UNLOCK ? unlock_script
                                                         : extend_script;
    bool lease = req->opcode != KEEP_OP_UNLOCK;
    cmd_begin(r, lease ? 6 : 5);
    cmd_str(r, "EVAL");
    cmd_str(r, script);
    cmd_str(r, "1");
    cmd_arg(r, req->key, req->key_len);
    cmd_lock_value(r, req);
    if (lease)
      cmd_num(r, (int64_t)req->num);
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (v.type != ':')
      return unexpected(r, ans);
    if (req->opcode == KEEP_OP_LOCK) {
      if (v.num < 0)
        return answer(ans, 0, req->num, NULL, 0);
      ans->opcode = KEEP_OP_EXISTS;
      ans->num = (uint64_t)v.num;
      return KEEP_ERR_EXISTS;
    }
    if (v.num > 0)
      return answer(ans, 0, req->num, NULL, 0);
    return answer(ans, v.num == 0 ? KEEP_ERR_NOT_FOUND : KEEP_ERR_EXISTS, 0, NULL, 0);
  }
  case KEEP_OP_PUBLISH:
    cmd_begin(r, 3);
    cmd_str(r, "PUBLISH");
    cmd_arg(r, req->key, req->key_len);
    cmd_arg(r, req->value, req->value_len);
    if ((rc = roundtrip(r, &p, &v, 1, sent_ns)) < 0)
      return rc;
    if (v.type == '-')
      return answer(ans, error_status(&v), 0, NULL, 0);
    if (v.type != ':')
      return unexpected(r, ans);
    return answer(ans, 0, v.num > 0 ? (uint64_t)v.num : 0, NULL, 0);
  case KEEP_OP_SUBSCRIBE:
  case KEEP_OP_UNSUBSCRIBE:
    return answer(ans, subscription(r, req, req->opcode == KEEP_OP_SUBSCRIBE, sent_ns), 0, NULL, 0);
  default:
    return KEEP_ERR_INVALID_ARGUMENT;
  }
}

int keep_resp_next_event(struct keep_resp *r, keep_event *out, uint32_t timeout_ms) {
  if (r->sub.fd < 0 || r->num_subs == 0)
    return KEEP_ERR_CLOSED;
  uint64_t deadline = keep_now_ns() + (uint64_t)timeout_ms * 1000000u;
  for (;;) {
    struct rreply p;
    struct rval v;
    int rc = read_reply(&r->sub, &p, &v, deadline);
    if (rc == KEEP_ERR_TIMEOUT)
      return 0;
    if (rc < 0) {
      r->num_subs = 0;
      fail_conn(&r->sub, rc);
      return rc == KEEP_ERR_PROTOCOL ? rc : KEEP_ERR_CLOSED;
    }
    // The event's pointers stay valid until the next read of this
    // connection, that is, the next call on the client.
    if (sub_message(r, &v, out))
      return 1;
  }
}

int keep_resp_open(struct keep_resp **out, const keep_settings *s) {
  *out = NULL;
  if (s->num_members != 1 || s->member_ids != NULL || s->tls != NULL ||
      !keep_resp_url(s->members[0]))
    return KEEP_ERR_INVALID_ARGUMENT;
  const char *hp = strstr(s->members[0], "://") + 3;
  char host[256];
  const char *port;
  // A URL may carry a path after the port; this adapter takes none.
  if (keep_member_split(host, sizeof host, &port, hp, KEEP_PORT_NUM_MAX_LEN) < 0 ||
      strchr(port, '/') != NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  struct keep_resp *r = calloc(1, sizeof *r);
  if (r == NULL)
    return -ENOMEM;
  r->cmd.fd = r->sub.fd = -1;
  r->subs = calloc(KEEP_RESP_MAX_SUBS, sizeof *r->subs);
  if (r->subs == NULL) {
    keep_resp_close(r);
    return -ENOMEM;
  }
  r->connect_timeout_ms =
      s->connect_timeout_ms ? s->connect_timeout_ms : KEEP_DEFAULT_CONNECT_TIMEOUT_MS;
  r->io_timeout_ms = s->io_timeout_ms ? s->io_timeout_ms : KEEP_DEFAULT_IO_TIMEOUT_MS;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res;
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  if (getaddrinfo(host, port, &hints, &res) == 0) {
    // RESP here is plaintext: like keep/1 without TLS, loopback only.
    if (res->ai_addrlen <= sizeof r->addr && keep_is_loopback_addr(res->ai_addr)) {
      memcpy(&r->addr, res->ai_addr, res->ai_addrlen);
      r->addr_len = res->ai_addrlen;
      rc = 0;
    }
    freeaddrinfo(res);
  }
  if (rc == 0)
    rc = conn_open(r, &r->cmd);
  if (rc < 0) {
    keep_resp_close(r);
    return rc;
  }
  *out = r;
  return 0;
}

void keep_resp_close(struct keep_resp *r) {
  if (r == NULL)
    return;
  conn_close(&r->cmd);
  conn_close(&r->sub);
  free(r->cmd.in);
  free(r->sub.in);
  free(r->out);
  free(r->subs);
  free(r);
}
