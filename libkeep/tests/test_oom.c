// test_oom.c: libkeep's clients with each of their heap allocations failing
// in turn (corvid_test_alloc_fault.h): creating a client of one member and
// of a cluster, the first request of each kind (which sizes the client's
// buffers), a request to another cluster member, subscriptions and events,
// batches, the non-blocking client's creation (with TLS key files too),
// requests and subscriptions, and the RESP back end. Each failure must give
// -ENOMEM (for a request already sent, the failed connection's -ENOMEM,
// after which the next call reconnects), leak nothing (the ASan build's
// leak check), and leave the handle usable: the same call on it again must
// work. A call whose allocations depend on what earlier calls left (buffers
// that stay) is walked on a new handle at each step, so that each
// allocation of its first run fails once.
//
// The peers run in child processes (fake_peer.h's keep/1 peer, and a RESP2
// one below), so that their allocations neither count nor fail in the
// client's process.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "keep-oom"
#include "corvid_test_alloc_fault.h"
#include "corvid_test_tmp.h"
#include "fake_peer.h"
#include "keep.h"
#include "keep_internal.h"
#include "keep_tls.h"

// The walks below take at most a few dozen steps; the bound only stops one
// that never ends.
#define MAX_STEPS 200
#define IO_TIMEOUT_MS 2000

// The peer: OK to everything, with what each request's answer carries. A
// SUBSCRIBE is followed by one event on its topic, "hello" at sequence 1.
// A named peer (a cluster's) answers a GET with its own address instead.

// peer_named is set in a named peer's process only.
static bool peer_named;

static enum verdict answer_all(struct keep_peer *peer, int fd, int conn, int n, int k,
                               const keep_frame *req) {
  (void)conn, (void)n, (void)k;
  static const uint8_t one_shard[2] = {1, 0};
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_OK, req->id);
  switch (req->opcode) {
  case KEEP_OP_PING: // shard 0 of 1
    f.value = one_shard;
    f.value_len = sizeof one_shard;
    break;
  case KEEP_OP_GET: // "value", or in a cluster the member's name
    f.value = (const uint8_t *)(peer_named ? peer->member : "value");
    f.value_len = strlen((const char *)f.value);
    break;
  case KEEP_OP_INCR:
    f.num = 42;
    break;
  case KEEP_OP_PUBLISH:
    f.num = 3;
    break;
  case KEEP_OP_CLUSTER:
    f.opcode = KEEP_OP_VIEW;
    f.num = 1;
    break;
  default:
    break;
  }
  put_frame(fd, &f);
  if (req->opcode == KEEP_OP_SUBSCRIBE) {
    char topic[KEEP_MAX_KEY + 1];
    memcpy(topic, req->key, req->key_len);
    topic[req->key_len] = '\0';
    push(fd, KEEP_OP_EVENT, topic, 1, (const uint8_t *)"hello", 5);
  }
  return KEEP_OPEN;
}

struct child_peer {
  struct keep_peer p;
  pid_t pid;
};

// child_peer_start_as starts a keep/1 peer in a child process; a `named`
// one answers GET with its address.
static void child_peer_start_as(struct child_peer *cp, bool named) {
  memset(cp, 0, sizeof *cp);
  unsigned port;
  cp->p.script = answer_all;
  cp->p.lfd = listen_loopback(&port, 0);
  snprintf(cp->p.member, sizeof cp->p.member, "127.0.0.1:%u", port);
  cp->pid = fork();
  ck_assert_int_ge(cp->pid, 0);
  if (cp->pid == 0) {
    // Dies with the test, whatever ends it; never writes to its TAP stream.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    peer_named = named;
    peer_main(&cp->p);
    _exit(0);
  }
  close(cp->p.lfd);
}

static void child_peer_start(struct child_peer *cp) {
  child_peer_start_as(cp, false);
}

static void child_peer_stop(struct child_peer *cp) {
  kill(cp->pid, SIGKILL);
  waitpid(cp->pid, NULL, 0);
}

static keep_client *new_client(const char *member) {
  return client_to(member, IO_TIMEOUT_MS);
}

// walk_client_new fails each allocation of keep_client_new(&c, s) in turn:
// -ENOMEM and no client, until the first run that reaches none gives a
// client that `works` answers a first request on.
static void walk_client_new(const keep_settings *s, void (*works)(keep_client *c)) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c = (keep_client *)&n; // must be set to NULL on failure
    alloc_fault_arm(n);
    int rc = keep_client_new(&c, s);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "new: %s", keep_strerror(rc));
      works(c);
      keep_client_free(c);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, new said %s", n, keep_strerror(rc));
    require(c == NULL, "allocation %lu failed, new set a client", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}

static void pings(keep_client *c) {
  ck_assert_int_eq(keep_ping(c), 0);
}

static void reads_the_view(keep_client *c) {
  uint64_t epoch = 0;
  ck_assert_int_eq(keep_view_epoch(c, &epoch, 0), 0);
  ck_assert_uint_eq(epoch, 1);
}

START_TEST(client_new_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  const char *members[] = {cp.p.member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = IO_TIMEOUT_MS};
  walk_client_new(&s, pings);
  child_peer_stop(&cp);
}
END_TEST

// Cluster mode allocates its routing tables too. Three members, all the
// peer: keep_client_new connects to the first only.
START_TEST(cluster_client_new_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  const char *members[] = {cp.p.member, cp.p.member, cp.p.member};
  const uint16_t ids[] = {1, 2, 3};
  keep_settings s = {
      .members = members, .num_members = 3, .member_ids = ids, .io_timeout_ms = IO_TIMEOUT_MS};
  walk_client_new(&s, reads_the_view);
  child_peer_stop(&cp);
}
END_TEST

// The requests of the blocking client, each the first on its client: its
// output and input buffers are allocated then. A failure before sending
// leaves the connection as it was; one after it closes the connection (the
// answer would otherwise be taken for the next request's), and the next
// call reconnects. Each request's own result is checked once it succeeds.
enum req_kind {
  R_PING,
  R_GET,
  R_SET,
  R_SET_NX,
  R_DEL,
  R_INCR,
  R_EXPIRE,
  R_LOCK,
  R_UNLOCK,
  R_EXTEND,
  R_PUBLISH,
  R_VIEW,
  NUM_REQ_KINDS
};

static int run_request(keep_client *c, enum req_kind kind, int64_t *num) {
  char out[16];
  size_t len = 0, receivers = 0;
  uint64_t deadline = 0;
  int rc;
  switch (kind) {
  case R_PING:
    return keep_ping(c);
  case R_GET:
    rc = keep_get(c, out, sizeof out, &len, "k", 1);
    *num = rc == 0 && len == 5 && memcmp(out, "value", 5) == 0;
    return rc;
  case R_SET:
    return keep_set(c, "k", 1, "v", 1, 1000);
  case R_SET_NX:
    return keep_set_nx(c, "k", 1, "v", 1, 0);
  case R_DEL:
    return keep_del(c, "k", 1);
  case R_INCR:
    return keep_incr(c, num, "k", 1, 1, 1000);
  case R_EXPIRE:
    return keep_expire(c, "k", 1, 1000);
  case R_LOCK:
    rc = keep_lock(c, &deadline, "k", 1, "me", 2, 1000);
    *num = deadline != 0;
    return rc;
  case R_UNLOCK:
    return keep_unlock(c, "k", 1, "me", 2);
  case R_EXTEND:
    rc = keep_extend(c, &deadline, "k", 1, "me", 2, 1000);
    *num = deadline != 0;
    return rc;
  case R_PUBLISH:
    rc = keep_publish(c, &receivers, "t", 1, "p", 1);
    *num = (int64_t)receivers;
    return rc;
  case R_VIEW: {
    uint64_t epoch = 0;
    rc = keep_view_epoch(c, &epoch, 0);
    *num = (int64_t)epoch;
    return rc;
  }
  default:
    return KEEP_ERR_INVALID_ARGUMENT;
  }
}

// What each request's `num` is once it succeeds.
static const int64_t expected_num[NUM_REQ_KINDS] = {
    [R_GET] = 1, [R_INCR] = 42, [R_LOCK] = 1, [R_EXTEND] = 1, [R_PUBLISH] = 3, [R_VIEW] = 1};

// walk_first_request makes `request(c, kind, &num)` the first request of
// a fresh client of `member`, its nth allocation failing for n = 1, 2, ...:
// a failure must say -ENOMEM and the same request then succeed on that
// client, with the answer expected_num[kind].
static void walk_first_request(const char *member, enum req_kind kind,
                               int (*request)(keep_client *, enum req_kind, int64_t *)) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c = new_client(member);
    int64_t num = 0;
    alloc_fault_arm(n);
    int rc = request(c, kind, &num);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "request %d: allocation %lu failed, the call said %s", kind, n,
              keep_strerror(rc));
      num = 0;
      rc = request(c, kind, &num);
    }
    require(rc == 0 && num == expected_num[kind], "request %d: allocation %lu: %s, num %lld", kind,
            n, keep_strerror(rc), (long long)num);
    keep_client_free(c);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}

START_TEST(first_request_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  walk_first_request(cp.p.member, (enum req_kind)_i, run_request);
  child_peer_stop(&cp);
}
END_TEST

// expect_news waits for the peer's event on "news".
static void expect_news(keep_client *c) {
  keep_event ev;
  bool got = false;
  uint64_t until = now_ms() + 3000;
  while (!got && now_ms() < until) {
    int rc = keep_next_event(c, &ev, 500);
    require(rc >= 0, "next_event: %s", keep_strerror(rc));
    got = rc == 1 && ev.kind == KEEP_EVENT_MESSAGE;
  }
  require(got, "no event");
  require(ev.topic_len == 4 && memcmp(ev.topic, "news", 4) == 0, "another topic");
  require(ev.payload_len == 5 && memcmp(ev.payload, "hello", 5) == 0, "another payload");
}

// A subscription, the first request of its client: its list of
// subscriptions is allocated too. Once it succeeds, the peer's event on
// the topic must arrive.
// walk_subscribe subscribes a fresh client of `member` to "news", its nth
// allocation failing for n = 1, 2, ...: a failure must say -ENOMEM and the
// same call then succeed on that client; `expect_event` then checks the
// event the peer sends.
static void walk_subscribe(const char *member, void (*expect_event)(keep_client *, unsigned long)) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c = new_client(member);
    alloc_fault_arm(n);
    int rc = keep_subscribe(c, "news", 4);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "allocation %lu failed, subscribe said %s", n, keep_strerror(rc));
      rc = keep_subscribe(c, "news", 4);
    }
    require(rc == 0, "allocation %lu: subscribe said %s", n, keep_strerror(rc));
    expect_event(c, n);
    keep_client_free(c);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}

static void news_arrives(keep_client *c, unsigned long n) {
  (void)n;
  expect_news(c);
}

START_TEST(subscribe_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  walk_subscribe(cp.p.member, news_arrives);
  child_peer_stop(&cp);
}
END_TEST

START_TEST(batch_new_each_allocation) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_batch *b = (keep_batch *)&n;
    alloc_fault_arm(n);
    int rc = keep_batch_new(&b);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0 && b != NULL, "batch_new: %s", keep_strerror(rc));
      ck_assert_int_eq(keep_batch_get(b, "k", 1), 0);
      keep_batch_free(b);
      break;
    }
    require(rc == -ENOMEM && b == NULL, "allocation %lu failed, batch_new said %s", n,
            keep_strerror(rc));
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// Adding to a batch: the first request allocates the request list and its
// own copy of key and value; a failed add adds nothing.
START_TEST(batch_add_each_allocation) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_batch *b;
    ck_assert_int_eq(keep_batch_new(&b), 0);
    alloc_fault_arm(n);
    int rc = keep_batch_set(b, "k", 1, "v", 1, 0);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "allocation %lu failed, batch_set said %s", n, keep_strerror(rc));
      rc = keep_batch_set(b, "k", 1, "v", 1, 0);
    }
    require(rc == 0, "allocation %lu: the first request's index is %d", n, rc);
    require(keep_batch_get(b, "k", 1) == 1, "allocation %lu: a request half-added", n);
    keep_batch_free(b);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// Running a batch on a new client: its buffers, and a copy of each GET
// value. A failed run leaves the batch not run, and the next run works.
static void expect_batch_results(const keep_batch *b, unsigned long n) {
  const uint8_t *v;
  size_t len;
  int64_t num;
  for (size_t i = 0; i < 3; i += 2) {
    int st = keep_batch_result(b, i, NULL, &v, &len);
    require(st == 0 && len == 5 && memcmp(v, "value", 5) == 0, "allocation %lu: get %zu: %s", n, i,
            keep_strerror(st));
  }
  int st = keep_batch_result(b, 1, &num, NULL, NULL);
  require(st == 0 && num == 42, "allocation %lu: incr: %s", n, keep_strerror(st));
}

START_TEST(batch_run_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c = new_client(cp.p.member);
    keep_batch *b;
    ck_assert_int_eq(keep_batch_new(&b), 0);
    ck_assert_int_eq(keep_batch_get(b, "a", 1), 0);
    ck_assert_int_eq(keep_batch_incr(b, "b", 1, 1, 0), 1);
    ck_assert_int_eq(keep_batch_get(b, "c", 1), 2);
    alloc_fault_arm(n);
    int rc = keep_batch_run(c, b);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "allocation %lu failed, batch_run said %s", n, keep_strerror(rc));
      int st = keep_batch_result(b, 0, NULL, NULL, NULL);
      require(st == KEEP_ERR_INVALID_ARGUMENT, "allocation %lu: a failed run has results (%s)", n,
              keep_strerror(st));
      rc = keep_batch_run(c, b);
    }
    require(rc == 0, "allocation %lu: batch_run said %s", n, keep_strerror(rc));
    expect_batch_results(b, n);
    keep_batch_free(b);
    keep_client_free(c);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  child_peer_stop(&cp);
}
END_TEST

// The non-blocking client.

// A failed keep_async_new leaves descriptor 0 alone: its connection table
// starts zeroed, and a half-made client once closed descriptor 0 for each
// member (and crashed on a missing member table).

START_TEST(async_new_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  const char *members[] = {cp.p.member, cp.p.member};
  const uint16_t ids[] = {1, 2};
  keep_settings s = {.members = members,
                     .num_members = _i ? 2 : 1,
                     .member_ids = _i ? ids : NULL,
                     .io_timeout_ms = IO_TIMEOUT_MS};
  // Descriptor 0 is a file of the test's, which a failed call must leave
  // alone.
  int null = open("/dev/null", O_RDONLY);
  ck_assert_int_ge(null, 0);
  ck_assert_int_eq(dup2(null, 0), 0);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_async *a = (keep_async *)&n;
    alloc_fault_arm(n);
    int rc = keep_async_new(&a, &s, NULL);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    bool fd0_open = fcntl(0, F_GETFD) >= 0;
    if (!fd0_open)
      ck_assert_int_eq(dup2(null, 0), 0);
    if (!fired) {
      require(rc == 0, "async_new: %s", keep_strerror(rc));
      keep_async_free(a);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, async_new said %s", n, keep_strerror(rc));
    require(a == NULL, "allocation %lu failed, async_new set a client", n);
    require(fd0_open, "allocation %lu failed, and descriptor 0 was closed", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  close(null);
  child_peer_stop(&cp);
}
END_TEST

struct outcome {
  int calls, status;
  int64_t num;
  uint8_t value[16];
  size_t value_len;
};

static void on_done(void *user, const keep_async_result *r) {
  struct outcome *o = user;
  o->calls++;
  o->status = r->status;
  o->num = r->num;
  o->value_len = r->value_len < sizeof o->value ? r->value_len : sizeof o->value;
  if (r->value != NULL)
    memcpy(o->value, r->value, o->value_len);
}

// drive runs keep_async_process until `o`'s callback ran or 3 s passed,
// waiting on the client's descriptor as a caller's loop would.
static int drive(keep_async *a, const struct outcome *o) {
  uint64_t until = now_ms() + 3000;
  while (o->calls == 0 && now_ms() < until) {
    int ms = keep_async_next_timeout_ms(a);
    struct pollfd p = {.fd = keep_async_fd(a), .events = POLLIN};
    (void)poll(&p, 1, ms < 0 || ms > 50 ? 50 : ms);
    int rc = keep_async_process(a);
    if (rc < 0)
      return rc;
  }
  return 0;
}

// A GET, an INCR and a SET, each the first request of its client: queuing
// it starts the connection (with its shard PING) and allocates the
// request; processing reads into the connection's buffer. Queuing and
// running to the callback are the step walked. A request refused at
// queuing never calls back; a queued one calls back exactly once, with its
// answer or with the failure of its connection, after which the next
// request reconnects.
// queue_and_run queues request kind `kind` (0 GET, 1 INCR, 2 SET) and
// drives the client until it calls back; the queuing status.
static int queue_and_run(keep_async *a, int kind, struct outcome *o, int *process_rc) {
  memset(o, 0, sizeof *o);
  int rc;
  if (kind == 0)
    rc = keep_async_get(a, "k", 1, on_done, o);
  else if (kind == 1)
    rc = keep_async_incr(a, "k", 1, 1, 0, on_done, o);
  else
    rc = keep_async_set(a, "k", 1, "v", 1, 0, on_done, o);
  *process_rc = rc == 0 ? drive(a, o) : 0;
  return rc;
}

static void expect_async_answer(const struct outcome *o, int kind, unsigned long n) {
  require(o->calls == 1 && o->status == 0, "allocation %lu: %d callbacks, status %s", n, o->calls,
          keep_strerror(o->status));
  if (kind == 0)
    require(o->value_len == 5 && memcmp(o->value, "value", 5) == 0, "allocation %lu: value", n);
  else if (kind == 1)
    require(o->num == 42, "allocation %lu: num %lld", n, (long long)o->num);
}

START_TEST(async_request_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  const char *members[] = {cp.p.member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = IO_TIMEOUT_MS};
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_async *a;
    ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
    struct outcome o;
    int prc;
    alloc_fault_arm(n);
    int rc = queue_and_run(a, _i, &o, &prc);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(prc == 0, "allocation %lu: process said %s", n, keep_strerror(prc));
    if (!fired) {
      require(rc == 0, "queuing said %s", keep_strerror(rc));
      expect_async_answer(&o, _i, n);
      keep_async_free(a);
      break;
    }
    if (rc != 0) {
      require(rc == -ENOMEM, "allocation %lu: queuing said %s", n, keep_strerror(rc));
      require(o.calls == 0, "allocation %lu: a refused request called back", n);
      require(keep_async_pending(a) == 0, "allocation %lu: %zu pending", n, keep_async_pending(a));
    } else {
      // The allocation failed inside the library's own work (the shard
      // PING, or reading the connection): the request has its answer or
      // the connection's failure.
      require(o.calls == 1, "allocation %lu: %d callbacks", n, o.calls);
      require(o.status == 0 || o.status == -ENOMEM, "allocation %lu: status %s", n,
              keep_strerror(o.status));
    }
    rc = queue_and_run(a, _i, &o, &prc);
    require(rc == 0 && prc == 0, "allocation %lu: the next request: %s, %s", n, keep_strerror(rc),
            keep_strerror(prc));
    expect_async_answer(&o, _i, n);
    require(keep_async_pending(a) == 0, "allocation %lu: %zu pending", n, keep_async_pending(a));
    keep_async_free(a);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  child_peer_stop(&cp);
}
END_TEST

// In a cluster, a request for a key of another member than the connected
// one opens that member's connection, with its own input buffer. The peers
// answer a GET with their own address, so that the test sees which member
// served it: the key's owner, every time.
//
// A failed allocation while a request waits for its answer closes the
// connection (the answer may be half read) but does not mark the member
// down: the next request for the key still goes to its owner, where it
// once went to the next member for 250 ms (against keepd, a MOVED answer
// and KEEP_ERR_MOVED).

START_TEST(cluster_request_each_allocation) {
  struct child_peer cp[3];
  const char *members[3];
  for (int i = 0; i < 3; i++) {
    child_peer_start_as(&cp[i], true);
    members[i] = cp[i].p.member;
  }
  const uint16_t ids[] = {1, 2, 3};
  keep_settings s = {
      .members = members, .num_members = 3, .member_ids = ids, .io_timeout_ms = IO_TIMEOUT_MS};
  // A key of member 1 or 2: the client connects to member 0 first.
  char key[16];
  int owner = 0;
  for (int i = 0; owner == 0; i++) {
    snprintf(key, sizeof key, "key-%d", i);
    owner = keep_slot_owner(NULL, keep_slot(NULL, key, strlen(key)), ids, 3, 7);
    ck_assert_int_ge(owner, 0);
  }
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c;
    ck_assert_int_eq(keep_client_new(&c, &s), 0);
    ck_assert_int_eq(keep_ping(c), 0); // member 0's buffers, and the output's
    char out[32];
    size_t len = 0;
    alloc_fault_arm(n);
    int rc = keep_get(c, out, sizeof out, &len, key, strlen(key));
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "allocation %lu failed, get said %s", n, keep_strerror(rc));
      rc = keep_get(c, out, sizeof out, &len, key, strlen(key));
    }
    require(rc == 0, "allocation %lu: get said %s", n, keep_strerror(rc));
    bool at_owner = len == strlen(members[owner]) && memcmp(out, members[owner], len) == 0;
    require(at_owner, "allocation %lu: the get went to %.*s, not to the owner %s", n, (int)len, out,
            members[owner]);
    keep_client_free(c);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  for (int i = 0; i < 3; i++)
    child_peer_stop(&cp[i]);
}
END_TEST

// keep_next_event copies each event out of the input buffer, and queues
// those that arrive while it waits for an answer. A failed copy is a
// failed read of the connection: the subscription is made again and
// reported renewed (KEEP_EVENT_RESUBSCRIBED), which tells the caller that
// events may have been lost; nothing is lost silently, and the event the
// peer sends after the renewal arrives.
START_TEST(next_event_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_client *c = new_client(cp.p.member);
    ck_assert_int_eq(keep_subscribe(c, "news", 4), 0);
    keep_event ev;
    alloc_fault_arm(n);
    int rc = keep_next_event(c, &ev, 1000);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 1 || (fired && rc == -ENOMEM), "allocation %lu: next_event said %s", n,
            rc == 0 ? "nothing" : keep_strerror(rc));
    if (!fired) {
      require(ev.kind == KEEP_EVENT_MESSAGE, "event kind %d", ev.kind);
      require(ev.topic_len == 4 && memcmp(ev.topic, "news", 4) == 0, "another topic");
      require(ev.payload_len == 5 && memcmp(ev.payload, "hello", 5) == 0, "another payload");
      keep_client_free(c);
      break;
    }
    // What it returned tells of the loss; the event sent after the renewal
    // comes next.
    require(rc < 0 || ev.kind == KEEP_EVENT_RESUBSCRIBED, "allocation %lu: event kind %d", n,
            ev.kind);
    expect_news(c);
    keep_client_free(c);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  child_peer_stop(&cp);
}
END_TEST

// The non-blocking client's subscription: its list of subscriptions, the
// request, the connection's buffers.
static void count_event(void *user, int status, const keep_event *ev) {
  int *messages = user;
  if (status == 0 && ev->kind == KEEP_EVENT_MESSAGE && ev->payload_len == 5 &&
      memcmp(ev->payload, "hello", 5) == 0)
    (*messages)++;
}

static void drive_until_message(keep_async *a, const int *messages, unsigned long n) {
  uint64_t until = now_ms() + 3000;
  while (*messages == 0 && now_ms() < until) {
    struct pollfd p = {.fd = keep_async_fd(a), .events = POLLIN};
    (void)poll(&p, 1, 50);
    require(keep_async_process(a) == 0, "process failed");
  }
  require(*messages >= 1, "allocation %lu: no event", n);
}

START_TEST(async_subscribe_each_allocation) {
  struct child_peer cp;
  child_peer_start(&cp);
  const char *members[] = {cp.p.member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = IO_TIMEOUT_MS};
  int messages = 0;
  keep_async_options opt = KEEP_ASYNC_OPTIONS_INIT;
  opt.on_event = count_event;
  opt.event_user = &messages;
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_async *a;
    ck_assert_int_eq(keep_async_new(&a, &s, &opt), 0);
    messages = 0;
    struct outcome o;
    memset(&o, 0, sizeof o);
    alloc_fault_arm(n);
    int rc = keep_async_subscribe(a, "news", 4, on_done, &o);
    int prc = rc == 0 ? drive(a, &o) : 0;
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(prc == 0, "allocation %lu: process said %s", n, keep_strerror(prc));
    if (!fired) {
      require(rc == 0 && o.calls == 1 && o.status == 0, "subscribe: %s, %d calls, status %s",
              keep_strerror(rc), o.calls, keep_strerror(o.status));
      drive_until_message(a, &messages, n);
      keep_async_free(a);
      break;
    }
    if (rc != 0) {
      require(rc == -ENOMEM, "allocation %lu: queuing said %s", n, keep_strerror(rc));
      require(o.calls == 0, "allocation %lu: a refused request called back", n);
    } else {
      require(o.calls == 1, "allocation %lu: %d callbacks", n, o.calls);
      require(o.status == 0 || o.status == -ENOMEM, "allocation %lu: status %s", n,
              keep_strerror(o.status));
    }
    if (rc != 0 || o.status != 0) { // made again, it works
      memset(&o, 0, sizeof o);
      rc = keep_async_subscribe(a, "news", 4, on_done, &o);
      prc = rc == 0 ? drive(a, &o) : rc;
      require(prc == 0 && o.calls == 1 && o.status == 0,
              "allocation %lu: the next subscribe: %s, status %s", n, keep_strerror(prc),
              keep_strerror(o.status));
    }
    drive_until_message(a, &messages, n);
    keep_async_free(a);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  child_peer_stop(&cp);
}
END_TEST

// TLS: keep_async_new reads the key files and builds the TLS context (and
// connects nothing), through every allocation of the key parser and the
// context.
static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fputs(text, f) >= 0, 1);
  ck_assert_int_eq(fclose(f), 0);
}

START_TEST(async_new_tls_each_allocation) {
  uint8_t seed[32];
  RAND_bytes(seed, sizeof seed);
  EVP_PKEY *cluster = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof seed);
  RAND_bytes(seed, sizeof seed);
  EVP_PKEY *client = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof seed);
  ck_assert_ptr_nonnull(cluster);
  ck_assert_ptr_nonnull(client);
  char pem[256], key_path[128], server_path[128];
  snprintf(key_path, sizeof key_path, "%s/client.key", corvid_test_root);
  snprintf(server_path, sizeof server_path, "%s/cluster.pub", corvid_test_root);
  ck_assert_int_eq(keep_tls_pem_private(pem, sizeof pem, client), 0);
  write_file(key_path, pem);
  ck_assert_int_eq(keep_tls_pem_public(pem, sizeof pem, cluster), 0);
  write_file(server_path, pem);
  EVP_PKEY_free(cluster);
  EVP_PKEY_free(client);
  keep_tls_settings t = {.key_file = key_path, .server_key_file = _i ? server_path : NULL};
  const char *members[] = {"127.0.0.1:1"};
  keep_settings s = {.members = members, .num_members = 1, .tls = &t};
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keep_async *a = (keep_async *)&n;
    alloc_fault_arm(n);
    int rc = keep_async_new(&a, &s, NULL);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "async_new: %s", keep_strerror(rc));
      keep_async_free(a);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, async_new said %s", n, keep_strerror(rc));
    require(a == NULL, "allocation %lu failed, async_new set a client", n);
  }
  ck_assert_uint_gt(n, 5); // beyond the client's own tables: the key files were read
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// The RESP back end, against a RESP2 peer in a child process that forks
// once more per connection (the client holds a command connection and a
// subscription connection at once). It answers GET with "value", INCRBY
// with 42, DEL, PEXPIRE and PUBLISH with small integers, SUBSCRIBE with
// its confirmation and then one message, "hello", and anything else +OK.

static void resp_send(int fd, const char *s) {
  (void)!send(fd, s, strlen(s), MSG_NOSIGNAL);
}

static void resp_answer(int fd, char **argv, const size_t *lens, int argc) {
  char buf[600];
  const char *cmd = argv[0];
  if (strcasecmp(cmd, "GET") == 0) {
    resp_send(fd, "$5\r\nvalue\r\n");
  } else if (strcasecmp(cmd, "INCRBY") == 0) {
    resp_send(fd, ":42\r\n");
  } else if (strcasecmp(cmd, "DEL") == 0 || strcasecmp(cmd, "PEXPIRE") == 0) {
    resp_send(fd, ":1\r\n");
  } else if (strcasecmp(cmd, "PUBLISH") == 0) {
    resp_send(fd, ":3\r\n");
  } else if (strcasecmp(cmd, "SUBSCRIBE") == 0 && argc == 2) {
    snprintf(buf, sizeof buf, "*3\r\n$9\r\nsubscribe\r\n$%zu\r\n%.*s\r\n:1\r\n", lens[1],
             (int)lens[1], argv[1]);
    resp_send(fd, buf);
    snprintf(buf, sizeof buf, "*3\r\n$7\r\nmessage\r\n$%zu\r\n%.*s\r\n$5\r\nhello\r\n", lens[1],
             (int)lens[1], argv[1]);
    resp_send(fd, buf);
  } else {
    resp_send(fd, "+OK\r\n");
  }
}

// resp_serve answers the commands of one connection until it closes.
static void resp_serve(int fd) {
  static char buf[65536];
  size_t have = 0;
  for (;;) {
    ssize_t got = recv(fd, buf + have, sizeof buf - have - 1, 0);
    if (got <= 0)
      return;
    have += (size_t)got;
    buf[have] = '\0';
    size_t pos = 0;
    for (;;) { // each whole command: *N then N bulk strings
      char *p = buf + pos, *end = buf + have, *argv[8];
      size_t lens[8];
      if (p >= end || *p != '*')
        break;
      char *nl = memchr(p, '\n', (size_t)(end - p));
      if (nl == NULL)
        break;
      int argc = atoi(p + 1);
      p = nl + 1;
      int i;
      for (i = 0; i < argc && i < 8; i++) {
        if (p >= end || *p != '$' || (nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
          break;
        lens[i] = (size_t)atol(p + 1);
        p = nl + 1;
        if ((size_t)(end - p) < lens[i] + 2)
          break;
        argv[i] = p;
        p += lens[i] + 2;
      }
      if (i < argc || argc == 0 || argc > 8)
        break;
      char name[16] = {0};
      memcpy(name, argv[0], lens[0] < 15 ? lens[0] : 15);
      argv[0] = name;
      resp_answer(fd, argv, lens, argc);
      pos = (size_t)(p - buf);
    }
    memmove(buf, buf + pos, have - pos);
    have -= pos;
  }
}

// resp_peer_start listens on loopback (at `port` when not 0) and serves
// from a child process; returns the child's pid.
static pid_t resp_peer_start(unsigned *port) {
  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(lfd, 0);
  int one = 1;
  ck_assert_int_eq(setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof sa;
  // A port asked for again may still be held for a moment by a connection
  // process of the peer that was killed (it closes its copy of the listening
  // socket once it runs).
  int b;
  for (int tries = 0; (b = bind(lfd, (struct sockaddr *)&sa, sizeof sa)) != 0 && *port != 0 &&
                      errno == EADDRINUSE && tries < 200;
       tries++)
    sleep_ms(10);
  ck_assert_msg(b == 0, "bind to port %u: %s", *port, strerror(errno));
  ck_assert_int_eq(listen(lfd, 8), 0);
  ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
  *port = ntohs(sa.sin_port);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGCHLD, SIG_IGN); // connection processes reap themselves
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    pid_t listener = getpid();
    for (;;) {
      int fd = accept(lfd, NULL, NULL);
      if (fd < 0)
        continue;
      if (fork() == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        // Killed before the line above took effect: no signal will come.
        if (getppid() != listener)
          _exit(0);
        close(lfd);
        resp_serve(fd);
        _exit(0);
      }
      close(fd);
    }
  }
  close(lfd);
  return pid;
}

static void resp_peer_stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

static void resp_member(char *out, size_t cap, unsigned port) {
  snprintf(out, cap, "redis://127.0.0.1:%u", port);
}

START_TEST(resp_client_new_each_allocation) {
  unsigned port = 0;
  pid_t pid = resp_peer_start(&port);
  char member[64];
  resp_member(member, sizeof member, port);
  const char *members[] = {member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = IO_TIMEOUT_MS};
  walk_client_new(&s, pings);
  resp_peer_stop(pid);
}
END_TEST

// The RESP requests, each the first on its client (the command buffer and
// the reply buffer are allocated then); R_LOCK and the rest are scripts
// the peer does not run, and R_VIEW does not exist over RESP.
static const enum req_kind resp_kinds[] = {R_PING, R_GET,    R_SET,    R_DEL,
                                           R_INCR, R_EXPIRE, R_PUBLISH};

static int resp_request(keep_client *c, enum req_kind kind, int64_t *num) {
  return kind == R_INCR ? keep_incr(c, num, "k", 1, 1, 0) : run_request(c, kind, num);
}

START_TEST(resp_first_request_each_allocation) {
  unsigned port = 0;
  pid_t pid = resp_peer_start(&port);
  char member[64];
  resp_member(member, sizeof member, port);
  walk_first_request(member, resp_kinds[_i], resp_request);
  resp_peer_stop(pid);
}
END_TEST

// The RESP peer pushes "hello" on the topic once it is subscribed.
static void resp_hello_arrives(keep_client *c, unsigned long n) {
  keep_event ev;
  int rc = keep_next_event(c, &ev, 2000);
  require(rc == 1 && ev.kind == KEEP_EVENT_MESSAGE && ev.payload_len == 5 &&
              memcmp(ev.payload, "hello", 5) == 0,
          "allocation %lu: next_event %s, kind %d", n, keep_strerror(rc), ev.kind);
}

START_TEST(resp_subscribe_each_allocation) {
  unsigned port = 0;
  pid_t pid = resp_peer_start(&port);
  char member[64];
  resp_member(member, sizeof member, port);
  walk_subscribe(member, resp_hello_arrives);
  resp_peer_stop(pid);
}
END_TEST

// A command whose buffer cannot be had while the server is down must not
// spoil the next command once the server is back (the failure was once
// kept when the connection could not be opened, and the next command,
// whose allocations all succeeded, failed with -ENOMEM).
START_TEST(resp_failed_buffer_while_down) {
  unsigned port = 0;
  pid_t pid = resp_peer_start(&port);
  char member[64];
  resp_member(member, sizeof member, port);
  keep_client *c = new_client(member);
  resp_peer_stop(pid); // the connection is gone, and nobody listens
  // The connection's own process dies with the peer's, but may still
  // answer a command just before: ping until the client sees it gone.
  bool gone = false;
  for (int tries = 0; tries < 100 && !gone; tries++) {
    gone = keep_ping(c) < 0;
    if (!gone)
      sleep_ms(10);
  }
  ck_assert(gone);
  // A value too large for the command buffer the ping made (1 KiB): the
  // buffer's growth, the set's first allocation, fails, and so does the
  // connection.
  static char value[1100];
  memset(value, 'x', sizeof value);
  alloc_fault_arm(1);
  int rc = keep_set(c, "k", 1, value, sizeof value, 0);
  bool fired = alloc_fault_fired();
  alloc_fault_disarm();
  ck_assert(fired);
  ck_assert_int_lt(rc, 0);
  pid = resp_peer_start(&port); // back, on the same port
  rc = keep_set(c, "k", 1, "v", 1, 0);
  ck_assert_msg(rc == 0, "the set after the server came back: %s", keep_strerror(rc));
  ck_assert_int_eq(keep_set(c, "k", 1, "v", 1, 0), 0);
  keep_client_free(c);
  resp_peer_stop(pid);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, client_new_each_allocation);
  tcase_add_test(tc, cluster_client_new_each_allocation);
  tcase_add_loop_test(tc, first_request_each_allocation, 0, NUM_REQ_KINDS);
  tcase_add_test(tc, subscribe_each_allocation);
  tcase_add_test(tc, batch_new_each_allocation);
  tcase_add_test(tc, batch_add_each_allocation);
  tcase_add_test(tc, batch_run_each_allocation);
  tcase_add_loop_test(tc, async_new_each_allocation, 0, 2);
  tcase_add_loop_test(tc, async_request_each_allocation, 0, 3);
  tcase_add_test(tc, cluster_request_each_allocation);
  tcase_add_test(tc, next_event_each_allocation);
  tcase_add_test(tc, async_subscribe_each_allocation);
  tcase_add_loop_test(tc, async_new_tls_each_allocation, 0, 2);
  tcase_add_test(tc, resp_client_new_each_allocation);
  tcase_add_loop_test(tc, resp_first_request_each_allocation, 0,
                      (int)(sizeof resp_kinds / sizeof resp_kinds[0]));
  tcase_add_test(tc, resp_subscribe_each_allocation);
  tcase_add_test(tc, resp_failed_buffer_while_down);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
