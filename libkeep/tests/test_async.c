// test_async.c: libkeep's non-blocking client against real keepd processes
// on loopback (argv[1] is the daemon), driven by a small epoll loop like a
// daemon's: thousands of pipelined operations checked value by value, one
// connection per server shard, subscriptions interleaved with other traffic
// (sequence numbers, heartbeats, unsubscribe), a server killed under load
// (every callback gets an error, a restarted server is used again, the
// subscription is renewed on it), MOVED followed in cluster mode, a
// subscription that follows its topic through a kill -9, a restart and a
// clean leave of the topic's owner, BUSY retried on the caller's timer, the
// queue limits, teardown that cancels what is pending, and the same
// pipeline inside mutual TLS (a key off the allowed list and an unpinned
// server key are refused).
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keepd_cluster_harness.h"

static struct keepd_proc server; // four shards, for the whole suite

// drive runs an epoll loop over `a` until `*done` reaches `want` or
// `max_ms` pass; returns whether it got there.
static bool drive(keep_async *a, const size_t *done, size_t want, unsigned max_ms) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  ck_assert_int_ge(ep, 0);
  struct epoll_event ev = {.events = EPOLLIN};
  ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, keep_async_fd(a), &ev), 0);
  uint64_t end = keepd_test_now_ns() + (uint64_t)max_ms * 1000000u;
  while (*done < want && keepd_test_now_ns() < end) {
    int t = keep_async_next_timeout_ms(a);
    if (t < 0 || t > 20)
      t = 20;
    struct epoll_event got;
    ck_assert_int_ge(epoll_wait(ep, &got, 1, t), 0);
    ck_assert_int_eq(keep_async_process(a), 0);
  }
  close(ep);
  return *done >= want;
}

static keep_async *async_for(const char *member, const keep_async_options *o) {
  const char *members[] = {member};
  keep_settings s = {.members = members, .num_members = 1};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, o), 0);
  ck_assert_ptr_nonnull(a);
  return a;
}

// A completion record per request.
struct rec {
  size_t *done;
  int status;
  int64_t num;
  uint8_t value[64];
  size_t value_len;
  bool called;
};

static void on_done(void *user, const keep_async_result *r) {
  struct rec *x = user;
  ck_assert(!x->called); // exactly once
  x->called = true;
  x->status = r->status;
  x->num = r->num;
  x->value_len = r->value_len;
  if (r->value_len <= sizeof x->value && r->value_len > 0)
    memcpy(x->value, r->value, r->value_len);
  (*x->done)++;
}

START_TEST(arguments_are_checked) {
  keep_async *a = (keep_async *)1;
  keep_settings s = {0};
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(a);
  const char *far[] = {"192.0.2.1:7379"}; // plaintext leaves loopback: refused
  s.members = far;
  s.num_members = 1;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), KEEP_ERR_INVALID_ARGUMENT);
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.version = 2;
  const char *near[] = {server.member};
  s.members = near;
  ck_assert_int_eq(keep_async_new(&a, &s, &o), KEEP_ERR_INVALID_ARGUMENT);
  a = async_for(server.member, NULL);
  char big[300];
  memset(big, 'k', sizeof big);
  ck_assert_int_eq(keep_async_get(a, big, 0, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_async_get(a, big, 251, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_async_lock(a, "k", 1, "h", 1, 0, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_async_set(a, "k", 1, NULL, 3, 0, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_async_pending(a), 0);
  ck_assert_int_eq(keep_async_next_timeout_ms(a), -1);
  keep_async_free(a);
  keep_async_free(NULL);
}
END_TEST

#define NUM_KEYS 3000

START_TEST(pipelined_operations) {
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.max_pending = 2 * NUM_KEYS; // above the default, which the second round needs
  keep_async *a = async_for(server.member, &o);
  static struct rec sets[NUM_KEYS], gets[NUM_KEYS], incrs[NUM_KEYS];
  size_t done = 0;
  char key[64], val[64];
  int pid = (int)getpid();
  for (int i = 0; i < NUM_KEYS; i++) {
    sets[i] = (struct rec){.done = &done};
    snprintf(key, sizeof key, "pipe:%d:%d", pid, i);
    int vl = snprintf(val, sizeof val, "value-%d-%.*s", i, i % 40,
                      "0123456789012345678901234567890123456789");
    ck_assert_int_eq(keep_async_set(a, key, strlen(key), val, (size_t)vl, 0, on_done, &sets[i]), 0);
  }
  ck_assert_uint_eq(keep_async_pending(a), NUM_KEYS);
  ck_assert(drive(a, &done, NUM_KEYS, 10000));
  for (int i = 0; i < NUM_KEYS; i++)
    ck_assert_int_eq(sets[i].status, 0);
  // Reads, and increments of one counter, interleaved in one pipeline.
  done = 0;
  snprintf(val, sizeof val, "count:%d", pid);
  for (int i = 0; i < NUM_KEYS; i++) {
    gets[i] = (struct rec){.done = &done};
    incrs[i] = (struct rec){.done = &done};
    snprintf(key, sizeof key, "pipe:%d:%d", pid, i);
    ck_assert_int_eq(keep_async_get(a, key, strlen(key), on_done, &gets[i]), 0);
    ck_assert_int_eq(keep_async_incr(a, val, strlen(val), 2, 0, on_done, &incrs[i]), 0);
  }
  ck_assert(drive(a, &done, 2 * NUM_KEYS, 10000));
  for (int i = 0; i < NUM_KEYS; i++) {
    char want[64];
    int wl = snprintf(want, sizeof want, "value-%d-%.*s", i, i % 40,
                      "0123456789012345678901234567890123456789");
    ck_assert_int_eq(gets[i].status, 0);
    ck_assert_uint_eq(gets[i].value_len, (size_t)wl);
    ck_assert_mem_eq(gets[i].value, want, (size_t)wl);
    // Requests on one key are answered in order: 2, 4, 6, ...
    ck_assert_int_eq(incrs[i].status, 0);
    ck_assert_int_eq(incrs[i].num, 2 * (i + 1));
  }
  // Other answers map to statuses as in the blocking client.
  done = 0;
  struct rec r[6];
  for (int i = 0; i < 6; i++)
    r[i] = (struct rec){.done = &done};
  snprintf(key, sizeof key, "pipe:%d:absent", pid);
  ck_assert_int_eq(keep_async_get(a, key, strlen(key), on_done, &r[0]), 0);
  ck_assert_int_eq(keep_async_del(a, key, strlen(key), on_done, &r[1]), 0);
  snprintf(key, sizeof key, "pipe:%d:0", pid);
  ck_assert_int_eq(keep_async_set_nx(a, key, strlen(key), "x", 1, 0, on_done, &r[2]), 0);
  ck_assert_int_eq(keep_async_incr(a, key, strlen(key), 1, 0, on_done, &r[3]), 0);
  ck_assert_int_eq(keep_async_get(a, val, strlen(val), on_done, &r[4]), 0);
  ck_assert_int_eq(keep_async_ping(a, on_done, &r[5]), 0);
  ck_assert(drive(a, &done, 6, 5000));
  ck_assert_int_eq(r[0].status, KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(r[1].status, KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(r[2].status, KEEP_ERR_EXISTS);
  ck_assert_int_eq(r[3].status, KEEP_ERR_WRONG_TYPE);
  ck_assert_int_eq(r[4].status, 0);
  ck_assert_int_eq(r[4].num, 2 * NUM_KEYS);
  ck_assert_int_eq(r[5].status, 0);
  ck_assert_uint_eq(r[5].value_len, 2);
  ck_assert_uint_eq(r[5].value[0], 4); // the server's shard count
  // One connection per shard: the kernel placed enough of them by now.
  fprintf(stderr, "# connections to a 4-shard keepd: %zu\n", keep_async_connections(a));
  ck_assert_uint_ge(keep_async_connections(a), 2);
  ck_assert_uint_le(keep_async_connections(a), 4);
  ck_assert_uint_eq(keep_async_pending(a), 0);
  keep_async_free(a);
}
END_TEST

START_TEST(locks_and_expiry) {
  keep_async *a = async_for(server.member, NULL);
  size_t done = 0;
  struct rec r[5];
  for (int i = 0; i < 5; i++)
    r[i] = (struct rec){.done = &done};
  char key[64];
  snprintf(key, sizeof key, "lock:%d", (int)getpid());
  ck_assert_int_eq(keep_async_lock(a, key, strlen(key), "me", 2, 5000, on_done, &r[0]), 0);
  ck_assert_int_eq(keep_async_lock(a, key, strlen(key), "you", 3, 5000, on_done, &r[1]), 0);
  ck_assert_int_eq(keep_async_extend(a, key, strlen(key), "me", 2, 9000, on_done, &r[2]), 0);
  ck_assert_int_eq(keep_async_unlock(a, key, strlen(key), "you", 3, on_done, &r[3]), 0);
  ck_assert_int_eq(keep_async_unlock(a, key, strlen(key), "me", 2, on_done, &r[4]), 0);
  ck_assert(drive(a, &done, 5, 5000));
  ck_assert_int_eq(r[0].status, 0);
  ck_assert_int_eq(r[1].status, KEEP_ERR_EXISTS);
  ck_assert_int_gt(r[1].num, 4000); // ms left
  ck_assert_int_eq(r[2].status, 0);
  ck_assert_int_eq(r[3].status, KEEP_ERR_EXISTS);
  ck_assert_int_eq(r[4].status, 0);
  // A TTL set through expire ends the key.
  done = 0;
  for (int i = 0; i < 3; i++)
    r[i] = (struct rec){.done = &done};
  ck_assert_int_eq(keep_async_set(a, key, strlen(key), "v", 1, 0, on_done, &r[0]), 0);
  ck_assert_int_eq(keep_async_expire(a, key, strlen(key), 30, on_done, &r[1]), 0);
  ck_assert(drive(a, &done, 2, 5000));
  ck_assert_int_eq(r[0].status, 0);
  ck_assert_int_eq(r[1].status, 0);
  keepd_sleep_ms(80);
  ck_assert_int_eq(keep_async_get(a, key, strlen(key), on_done, &r[2]), 0);
  ck_assert(drive(a, &done, 3, 5000));
  ck_assert_int_eq(r[2].status, KEEP_ERR_NOT_FOUND);
  keep_async_free(a);
}
END_TEST

// Subscription traffic, per topic: `ended` counts interruptions and ends
// (a negative status), `renewed` the renewals, after which the sequence
// numbers start again from the one announced.
struct subs_seen {
  char topic[2][64];
  uint64_t next_seq[2];
  size_t events, heartbeats, ended, renewed, missed;
  int end_status;
  bool bad;
};

static void on_event(void *user, int status, const keep_event *ev) {
  struct subs_seen *s = user;
  int t = -1;
  for (int i = 0; i < 2; i++)
    if (ev->topic_len == strlen(s->topic[i]) && memcmp(ev->topic, s->topic[i], ev->topic_len) == 0)
      t = i;
  if (t < 0) {
    s->bad = true;
    return;
  }
  if (status < 0) {
    s->ended++;
    s->end_status = status;
    return;
  }
  if (ev->kind == KEEP_EVENT_RESUBSCRIBED) {
    s->renewed++;
    s->next_seq[t] = ev->seq + 1;
    return;
  }
  s->missed += ev->missed;
  if (ev->kind == KEEP_EVENT_HEARTBEAT) {
    s->heartbeats++;
    return;
  }
  char want[96];
  int wl = snprintf(want, sizeof want, "%s#%llu", s->topic[t], (unsigned long long)ev->seq);
  if (ev->seq != s->next_seq[t] || ev->payload_len != (size_t)wl ||
      memcmp(ev->payload, want, (size_t)wl) != 0)
    s->bad = true;
  s->next_seq[t]++;
  s->events++;
}

START_TEST(interleaved_subscriptions) {
  struct subs_seen seen = {.next_seq = {1, 1}};
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.on_event = on_event;
  o.event_user = &seen;
  keep_async *sub = async_for(server.member, &o);
  keep_async *pub = async_for(server.member, NULL);
  for (int i = 0; i < 2; i++)
    snprintf(seen.topic[i], sizeof seen.topic[i], "topic:%d:%d", (int)getpid(), i);
  size_t done = 0;
  struct rec r[2] = {{.done = &done}, {.done = &done}};
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(
        keep_async_subscribe(sub, seen.topic[i], strlen(seen.topic[i]), on_done, &r[i]), 0);
  ck_assert(drive(sub, &done, 2, 5000));
  ck_assert_int_eq(r[0].status, 0);
  ck_assert_int_eq(r[1].status, 0);
  // 200 events on each topic, interleaved with writes on the subscribing
  // client itself.
  enum { EVENTS = 200 };
  static struct rec pubs[2 * EVENTS], sets[EVENTS];
  size_t pub_done = 0, set_done = 0;
  for (int i = 0; i < EVENTS; i++) {
    for (int t = 0; t < 2; t++) {
      char p[96];
      int pl = snprintf(p, sizeof p, "%s#%d", seen.topic[t], i + 1);
      pubs[2 * i + t] = (struct rec){.done = &pub_done};
      ck_assert_int_eq(keep_async_publish(pub, seen.topic[t], strlen(seen.topic[t]), p, (size_t)pl,
                                          on_done, &pubs[2 * i + t]),
                       0);
    }
    sets[i] = (struct rec){.done = &set_done};
    ck_assert_int_eq(
        keep_async_set(sub, seen.topic[0], strlen(seen.topic[0]), "x", 1, 0, on_done, &sets[i]), 0);
  }
  ck_assert(drive(pub, &pub_done, 2 * EVENTS, 5000));
  for (int i = 0; i < 2 * EVENTS; i++) {
    ck_assert_int_eq(pubs[i].status, 0);
    ck_assert_int_eq(pubs[i].num, 1); // one subscriber
  }
  ck_assert(drive(sub, &seen.events, 2 * EVENTS, 5000));
  ck_assert(drive(sub, &set_done, EVENTS, 5000));
  ck_assert(!seen.bad);
  ck_assert_uint_eq(seen.missed, 0);
  // Idle subscriptions get heartbeats carrying the last sequence number.
  ck_assert(drive(sub, &seen.heartbeats, 2, 2000));
  ck_assert(!seen.bad);
  ck_assert_uint_eq(seen.missed, 0);
  // After unsubscribe, nothing arrives on that topic.
  done = 0;
  struct rec u = {.done = &done}, p = {.done = &done};
  ck_assert_int_eq(keep_async_unsubscribe(sub, seen.topic[0], strlen(seen.topic[0]), on_done, &u),
                   0);
  ck_assert(drive(sub, &done, 1, 5000));
  ck_assert_int_eq(u.status, 0);
  ck_assert_int_eq(
      keep_async_publish(pub, seen.topic[0], strlen(seen.topic[0]), "late", 4, on_done, &p), 0);
  ck_assert(drive(pub, &done, 2, 5000));
  ck_assert_int_eq(p.num, 0);
  // Teardown ends the remaining subscription with a cancel status.
  keep_async_free(sub);
  ck_assert_uint_eq(seen.ended, 1);
  ck_assert_int_eq(seen.end_status, -ECANCELED);
  keep_async_free(pub);
}
END_TEST

START_TEST(server_restart) {
  struct keepd_proc own;
  const char *first[] = {"--shards", "2", NULL};
  ck_assert_int_eq(keepd_start(&own, keepd_bin, first), 0);
  struct subs_seen seen = {.next_seq = {1, 1}};
  snprintf(seen.topic[0], sizeof seen.topic[0], "restart");
  snprintf(seen.topic[1], sizeof seen.topic[1], "unused");
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.on_event = on_event;
  o.event_user = &seen;
  keep_settings s = {
      .members = (const char *[]){own.member}, .num_members = 1, .io_timeout_ms = 1000};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, &o), 0);
  size_t done = 0;
  struct rec r = {.done = &done};
  ck_assert_int_eq(keep_async_subscribe(a, "restart", 7, on_done, &r), 0);
  ck_assert(drive(a, &done, 1, 5000));
  ck_assert_int_eq(r.status, 0);
  // Kill the server with requests in flight.
  enum { IN_FLIGHT = 100 };
  static struct rec q[IN_FLIGHT];
  done = 0;
  for (int i = 0; i < IN_FLIGHT; i++) {
    q[i] = (struct rec){.done = &done};
    char key[32];
    snprintf(key, sizeof key, "r%d", i);
    ck_assert_int_eq(keep_async_set(a, key, strlen(key), "v", 1, 0, on_done, &q[i]), 0);
  }
  unsigned port = own.port;
  kill9(&own);
  uint64_t t0 = keepd_test_now_ns();
  ck_assert(drive(a, &done, IN_FLIGHT, 5000));
  for (int i = 0; i < IN_FLIGHT; i++)
    ck_assert_int_lt(q[i].status, 0);
  // The connection's end is seen at once, not after the I/O timeout.
  ck_assert_uint_lt(keepd_test_now_ns() - t0, 900000000u);
  // The subscription is reported interrupted, once, however many renewals
  // fail meanwhile.
  ck_assert(drive(a, &seen.ended, 1, 2000));
  ck_assert_int_lt(seen.end_status, 0);
  ck_assert_int_ne(seen.end_status, -ECANCELED);
  // While nothing listens, requests fail too.
  done = 0;
  r = (struct rec){.done = &done};
  int rc = keep_async_ping(a, on_done, &r);
  if (rc == 0) {
    ck_assert(drive(a, &done, 1, 3000));
    ck_assert_int_lt(r.status, 0);
  }
  // A server back on the same port is used again.
  char port_s[16];
  snprintf(port_s, sizeof port_s, "%u", port);
  const char *again[] = {"--shards", "2", "--port", port_s, NULL};
  ck_assert_int_eq(keepd_start(&own, keepd_bin, again), 0);
  ck_assert_uint_eq(own.port, port);
  done = 0;
  r = (struct rec){.done = &done};
  struct rec g = {.done = &done};
  ck_assert_int_eq(keep_async_set(a, "back", 4, "again", 5, 0, on_done, &r), 0);
  ck_assert_int_eq(keep_async_get(a, "back", 4, on_done, &g), 0);
  ck_assert(drive(a, &done, 2, 5000));
  ck_assert_int_eq(r.status, 0);
  ck_assert_int_eq(g.status, 0);
  ck_assert_mem_eq(g.value, "again", 5);
  // The subscription was renewed on the restarted server, unasked, and
  // receives its events, numbered from the renewal on.
  ck_assert(drive(a, &seen.renewed, 1, 3000));
  ck_assert_uint_eq(seen.ended, 1);
  keep_async *pub = async_for(own.member, NULL);
  struct rec p = {.done = &done};
  ck_assert_int_eq(keep_async_publish(pub, "restart", 7, "restart#1", 9, on_done, &p), 0);
  ck_assert(drive(pub, &done, 3, 5000));
  ck_assert_int_eq(p.status, 0);
  ck_assert_int_eq(p.num, 1);
  ck_assert(drive(a, &seen.events, 1, 3000));
  ck_assert(!seen.bad);
  keep_async_free(pub);
  keep_async_free(a);
  ck_assert_uint_eq(seen.ended, 2);
  ck_assert_int_eq(seen.end_status, -ECANCELED);
  ck_assert_int_eq(keepd_stop(&own), 0);
}
END_TEST

START_TEST(cluster_moved_followed) {
  struct cluster cl;
  cluster_start(&cl, "0");
  keep_client *c = client_for(&cl, cl.addrs, ids, N);
  wait_ready(c);
  // The list has a fourth member (id 44) at member 0's address: its share
  // of the keys goes to member 0, which answers MOVED; the client follows.
  const char *addrs4[4] = {cl.addrs[0], cl.addrs[1], cl.addrs[2], cl.addrs[0]};
  const uint16_t ids4[4] = {11, 22, 33, 44};
  keep_settings s = {.members = addrs4, .num_members = 4, .secret = secret, .member_ids = ids4};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  enum { KEYS = 400 };
  // Every slot the keys fall in is served before the async client is timed:
  // a member that has just started answers BUSY for a slot until it has
  // pulled that slot's keys, and wait_ready looks at one slot per member.
  // The async client gives up on BUSY after about 31 ms of retries, which
  // a pull on a loaded machine can outlast (seen once in CI).
  for (int k = 0; k < KEYS; k++) {
    char key[32];
    snprintf(key, sizeof key, "afollow-%d", k);
    char v[8];
    size_t vl;
    int rc;
    KEEPD_RETRY(rc, keep_get(c, v, sizeof v, &vl, key, strlen(key)), keepd_not_executed(rc));
    ck_assert_int_eq(rc, KEEP_ERR_NOT_FOUND);
  }
  static struct rec r[KEYS];
  size_t done = 0;
  unsigned via_phantom = 0;
  for (int k = 0; k < KEYS; k++) {
    char key[32];
    snprintf(key, sizeof key, "afollow-%d", k);
    uint32_t slot = keep_slot(secret, key, strlen(key));
    via_phantom += keep_slot_owner(secret, slot, ids4, 4, 15) == 3 && owner_of(key, 7) != 0;
    r[k] = (struct rec){.done = &done};
    ck_assert_int_eq(keep_async_incr(a, key, strlen(key), 5, 0, on_done, &r[k]), 0);
  }
  ck_assert(drive(a, &done, KEYS, 10000));
  for (int k = 0; k < KEYS; k++) {
    ck_assert_int_eq(r[k].status, 0);
    ck_assert_int_eq(r[k].num, 5);
    // The increment landed on the owner, exactly once.
    char key[32];
    snprintf(key, sizeof key, "afollow-%d", k);
    int64_t v;
    ck_assert_int_eq(keep_incr(c, &v, key, strlen(key), 1, 0), 0);
    ck_assert_int_eq(v, 6);
  }
  ck_assert_uint_gt(via_phantom, 20);
  keep_async_free(a);
  keep_client_free(c);
  cluster_stop(&cl);
}
END_TEST

// subscribe_once subscribes `a` to `topic` and runs it until the answer
// comes (at most 5 s); returns the answer's status.
static int subscribe_once(keep_async *a, const char *topic) {
  size_t done = 0;
  struct rec r = {.done = &done};
  ck_assert_int_eq(keep_async_subscribe(a, topic, strlen(topic), on_done, &r), 0);
  ck_assert(drive(a, &done, 1, 5000));
  return r.status;
}

// A subscriber that follows one topic across a cluster's changes.
#define FOLLOW_MAX 6000 // publishes, at most
struct follow {
  char topic[64];
  size_t interrupted, renewed, events, missed;
  bool open; // interrupted, not renewed yet
  int last_status;
  uint64_t next_seq;
  long last_k;            // the newest payload number received
  bool got[FOLLOW_MAX];   // payload numbers received
  bool reach[FOLLOW_MAX]; // payload numbers whose publish reached a subscriber
  bool bad;
};

static void on_follow(void *user, int status, const keep_event *ev) {
  struct follow *f = user;
  if (ev->topic_len != strlen(f->topic) || memcmp(ev->topic, f->topic, ev->topic_len) != 0) {
    f->bad = true;
    return;
  }
  if (status < 0) {
    f->interrupted += !f->open; // reported once until renewed
    f->bad |= f->open && status != -ECANCELED;
    f->open = true;
    f->last_status = status;
    return;
  }
  if (ev->kind == KEEP_EVENT_RESUBSCRIBED) {
    f->renewed++;
    f->open = false;
    f->next_seq = ev->seq + 1;
    return;
  }
  f->missed += ev->missed;
  if (ev->kind == KEEP_EVENT_HEARTBEAT)
    return;
  // Sequence numbers count on without a hole the gap count does not
  // explain; payloads come in publish order, each once.
  char text[32];
  size_t n = ev->payload_len < sizeof text - 1 ? ev->payload_len : sizeof text - 1;
  memcpy(text, ev->payload, n);
  text[n] = 0;
  long k = strtol(text, NULL, 10);
  if (ev->seq != f->next_seq + ev->missed || k <= f->last_k || k >= FOLLOW_MAX)
    f->bad = true;
  else
    f->got[k] = true;
  f->next_seq = ev->seq + 1;
  f->last_k = k;
  f->events++;
}

// follow_pump publishes numbered events on `c` (payload `*k`, then `*k` + 1,
// ...), running `a` in between, until `a` has been renewed `renewals` times
// in all, is not interrupted, and has received an event published after
// that; returns the first payload number published after it, or -1 after
// `max_ms`.
static long follow_pump(keep_async *a, keep_client *c, struct follow *f, long *k, size_t renewals,
                        unsigned max_ms) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  ck_assert_int_ge(ep, 0);
  struct epoll_event ev = {.events = EPOLLIN};
  ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, keep_async_fd(a), &ev), 0);
  uint64_t end = keepd_test_now_ns() + (uint64_t)max_ms * 1000000u;
  long after = -1;
  while (keepd_test_now_ns() < end && *k < FOLLOW_MAX) {
    if (after < 0 && f->renewed >= renewals && !f->open)
      after = *k;
    if (after >= 0 && f->last_k >= after)
      break;
    char p[32];
    int pl = snprintf(p, sizeof p, "%ld", *k);
    size_t receivers = 0;
    if (keep_publish(c, &receivers, f->topic, strlen(f->topic), p, (size_t)pl) == 0 &&
        receivers > 0)
      f->reach[*k] = true;
    (*k)++;
    for (int i = 0; i < 3; i++) {
      struct epoll_event got;
      int t = keep_async_next_timeout_ms(a);
      ck_assert_int_ge(epoll_wait(ep, &got, 1, t < 0 || t > 5 ? 5 : t), 0);
      ck_assert_int_eq(keep_async_process(a), 0);
    }
  }
  close(ep);
  return after >= 0 && f->last_k >= after ? after : -1;
}

// follow_check_quiet asserts that every publish numbered `from` to `to` - 1
// that reached a subscriber was received: nothing is lost unreported while
// the cluster stays put.
static void follow_check_quiet(const struct follow *f, long from, long to) {
  for (long k = from; k < to; k++)
    ck_assert_msg(!f->reach[k] || f->got[k], "event %ld reached the subscriber, never arrived", k);
}

START_TEST(cluster_subscription_follows_its_topic) {
  enum { M = 2 }; // the member that owns the topic, killed, back, leaving
  struct cluster cl;
  cluster_start(&cl, "0");
  keep_client *c = client_for(&cl, cl.addrs, ids, N);
  wait_ready(c);
  static struct follow f;
  memset(&f, 0, sizeof f);
  f.next_seq = 1;
  key_owned(f.topic, sizeof f.topic, "afollow", M, 0, -1);
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.on_event = on_follow;
  o.event_user = &f;
  keep_settings s = {.members = cl.addrs,
                     .num_members = N,
                     .secret = secret,
                     .member_ids = ids,
                     .io_timeout_ms = 500,
                     .connect_timeout_ms = 500};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, &o), 0);
  // The topic's owner may still be pulling the topic's slot (wait_ready
  // looks at one slot per member) and answer BUSY for longer than the
  // async client's 31 ms of retries on a loaded machine (seen once in 150
  // runs beside two busy loops): the caller subscribes again, as BUSY asks.
  KEEPD_RETRY_OK(subscribe_once(a, f.topic));
  long k = 1;
  // Settled: events arrive from the owner. Between faults (a renewal or
  // a move may still come, e.g. a BUSY check on a loaded machine) every
  // event that reached the subscriber arrives.
  long first = follow_pump(a, c, &f, &k, 0, 5000);
  ck_assert_int_ge(first, 0);
  for (int i = 0; i < 20; i++)
    ck_assert_int_ge(follow_pump(a, c, &f, &k, f.renewed, 5000), 0);
  long fault = k;
  follow_check_quiet(&f, 1, fault);

  // kill -9 of the owner: interrupted (the connection ends), renewed on the
  // member that takes the slot, and events flow again.
  size_t was = f.interrupted, renewed = f.renewed;
  kill9(&cl.p[M]);
  uint64_t t0 = keepd_test_now_ns();
  long back = follow_pump(a, c, &f, &k, renewed + 1, 5000);
  ck_assert_msg(back >= 0, "no event after the owner was killed");
  fprintf(stderr, "# killed: events again after %llu ms\n",
          (unsigned long long)((keepd_test_now_ns() - t0) / 1000000u));
  ck_assert_uint_gt(f.interrupted, was);
  ck_assert_int_ne(f.last_status, -ECANCELED);
  for (int i = 0; i < 20; i++)
    ck_assert_int_ge(follow_pump(a, c, &f, &k, f.renewed, 5000), 0);
  fault = k;
  follow_check_quiet(&f, back, fault);

  // The owner rejoins and takes its slot back from a member that stays up:
  // only the periodic check notices (MOVED), no connection fails.
  renewed = f.renewed;
  start_member(&cl, M, "0");
  t0 = keepd_test_now_ns();
  back = follow_pump(a, c, &f, &k, renewed + 1, 8000);
  ck_assert_msg(back >= 0, "no event after the owner came back");
  fprintf(stderr, "# rejoined: events again after %llu ms\n",
          (unsigned long long)((keepd_test_now_ns() - t0) / 1000000u));
  for (int i = 0; i < 20; i++)
    ck_assert_int_ge(follow_pump(a, c, &f, &k, f.renewed, 5000), 0);
  fault = k;
  follow_check_quiet(&f, back, fault);

  // A clean leave: the connection ends, the subscription moves with the
  // slot.
  was = f.interrupted;
  renewed = f.renewed;
  ck_assert_int_eq(keepd_stop(&cl.p[M]), 0);
  back = follow_pump(a, c, &f, &k, renewed + 1, 5000);
  ck_assert_msg(back >= 0, "no event after the owner left");
  ck_assert_uint_gt(f.interrupted, was);
  for (int i = 0; i < 20; i++)
    ck_assert_int_ge(follow_pump(a, c, &f, &k, f.renewed, 5000), 0);
  follow_check_quiet(&f, back, k);
  ck_assert(!f.bad);
  // Every interruption was followed by a renewal.
  ck_assert_uint_ge(f.renewed, f.interrupted);
  fprintf(stderr, "# %ld publishes, %zu events received, %zu reported missed, %zu renewals\n",
          k - 1, f.events, f.missed, f.renewed);
  keep_async_free(a);
  ck_assert_int_eq(f.last_status, -ECANCELED);
  keep_client_free(c);
  cluster_stop(&cl);
}
END_TEST

START_TEST(busy_retried_on_the_timer) {
  // One member of a three-member list, alone: it never has a majority, so
  // it answers BUSY to every keyed request.
  struct cluster cl;
  memset(&cl, 0, sizeof cl);
  for (int i = 0; i < N; i++) {
    cl.port[i] = free_port(SOCK_STREAM);
    cl.udp[i] = free_port(SOCK_DGRAM);
    snprintf(cl.addr[i], sizeof cl.addr[i], "127.0.0.1:%u", cl.port[i]);
    cl.addrs[i] = cl.addr[i];
  }
  start_member(&cl, 0, "0");
  keep_settings s = {.members = cl.addrs, .num_members = 1};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  size_t done = 0;
  struct rec r = {.done = &done};
  uint64_t t0 = keepd_test_now_ns();
  ck_assert_int_eq(keep_async_set(a, "busy", 4, "v", 1, 0, on_done, &r), 0);
  bool timer_seen = false;
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN};
  ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, keep_async_fd(a), &ev), 0);
  while (done == 0 && keepd_test_now_ns() - t0 < 5000000000ull) {
    int t = keep_async_next_timeout_ms(a);
    timer_seen |= t > 0 && t <= 16;
    struct epoll_event got;
    ck_assert_int_ge(epoll_wait(ep, &got, 1, t < 0 ? 100 : t), 0);
    ck_assert_int_eq(keep_async_process(a), 0);
  }
  close(ep);
  ck_assert_uint_eq(done, 1);
  ck_assert_int_eq(r.status, KEEP_ERR_BUSY);
  // Five retries after 1 + 2 + 4 + 8 + 16 ms.
  ck_assert_uint_ge(keepd_test_now_ns() - t0, 31000000u);
  ck_assert(timer_seen);
  keep_async_free(a);
  cluster_stop(&cl);
}
END_TEST

START_TEST(queue_limits) {
  keep_async_options o = KEEP_ASYNC_OPTIONS_INIT;
  o.max_pending = 8;
  keep_async *a = async_for(server.member, &o);
  size_t done = 0;
  struct rec r[9];
  for (int i = 0; i < 9; i++)
    r[i] = (struct rec){.done = &done};
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(keep_async_ping(a, on_done, &r[i]), 0);
  ck_assert_int_eq(keep_async_ping(a, on_done, &r[8]), -ENOBUFS);
  ck_assert_uint_eq(keep_async_pending(a), 8);
  ck_assert(drive(a, &done, 8, 5000));
  ck_assert(!r[8].called);
  ck_assert_int_eq(keep_async_ping(a, on_done, &r[8]), 0);
  ck_assert(drive(a, &done, 9, 5000));
  keep_async_free(a);
  // The byte bound: four 1000-byte values fit in 5000 bytes, a fifth not.
  o.max_pending = 0;
  o.max_pending_bytes = 5000;
  a = async_for(server.member, &o);
  static uint8_t v[1000];
  done = 0;
  for (int i = 0; i < 4; i++) {
    r[i] = (struct rec){.done = &done};
    ck_assert_int_eq(keep_async_set(a, "b", 1, v, sizeof v, 0, on_done, &r[i]), 0);
  }
  ck_assert_int_eq(keep_async_set(a, "b", 1, v, sizeof v, 0, on_done, &r[4]), -ENOBUFS);
  ck_assert(drive(a, &done, 4, 5000));
  keep_async_free(a);
}
END_TEST

START_TEST(teardown_cancels) {
  keep_async *a = async_for(server.member, NULL);
  size_t done = 0;
  enum { Q = 50 };
  struct rec r[Q];
  for (int i = 0; i < Q; i++) {
    r[i] = (struct rec){.done = &done};
    ck_assert_int_eq(keep_async_get(a, "t", 1, on_done, &r[i]), 0);
  }
  keep_async_free(a); // nothing was processed
  ck_assert_uint_eq(done, Q);
  for (int i = 0; i < Q; i++)
    ck_assert_int_eq(r[i].status, -ECANCELED);
}
END_TEST

// keygen runs `keepd keygen` for `key` (it writes `key`.pub too).
static void keygen(const char *key) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execl(keepd_bin, keepd_bin, "keygen", key, (char *)NULL);
    _exit(127);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

START_TEST(tls_pipelined) {
  char dir[64] = "/tmp/keep-async-tls-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char cluster[128], cluster_pub[128], mine[128], mine_pub[128], other[128];
  snprintf(cluster, sizeof cluster, "%s/cluster.key", dir);
  snprintf(cluster_pub, sizeof cluster_pub, "%s/cluster.key.pub", dir);
  snprintf(mine, sizeof mine, "%s/c1.key", dir);
  snprintf(mine_pub, sizeof mine_pub, "%s/c1.key.pub", dir);
  snprintf(other, sizeof other, "%s/other.key", dir);
  keygen(cluster);
  keygen(mine);
  keygen(other);
  // Only c1's key is on the allowed-clients list.
  struct keepd_proc p;
  const char *args[] = {"--tls-key", cluster, "--tls-clients", mine_pub, "--shards", "2", NULL};
  ck_assert_int_eq(keepd_start(&p, keepd_bin, args), 0);
  keep_tls_settings t = {.key_file = mine, .server_key_file = cluster_pub};
  keep_settings s = {.members = (const char *[]){p.member}, .num_members = 1, .tls = &t};
  keep_async *a = NULL;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  enum { KEYS = 1000 };
  static struct rec sets[KEYS], gets[KEYS];
  size_t done = 0;
  for (int i = 0; i < KEYS; i++) {
    char key[32], val[32];
    int kl = snprintf(key, sizeof key, "tls-%d", i), vl = snprintf(val, sizeof val, "v%d", i * 7);
    sets[i] = (struct rec){.done = &done};
    gets[i] = (struct rec){.done = &done};
    ck_assert_int_eq(keep_async_set(a, key, (size_t)kl, val, (size_t)vl, 0, on_done, &sets[i]), 0);
    ck_assert_int_eq(keep_async_get(a, key, (size_t)kl, on_done, &gets[i]), 0);
  }
  ck_assert(drive(a, &done, 2 * KEYS, 10000));
  for (int i = 0; i < KEYS; i++) {
    char val[32];
    int vl = snprintf(val, sizeof val, "v%d", i * 7);
    ck_assert_int_eq(sets[i].status, 0);
    ck_assert_int_eq(gets[i].status, 0);
    ck_assert_uint_eq(gets[i].value_len, (size_t)vl);
    ck_assert_mem_eq(gets[i].value, val, (size_t)vl);
  }
  keep_async_free(a);
  // A key that is not on the list gets errors, never answers.
  t.key_file = other;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  done = 0;
  struct rec r = {.done = &done};
  ck_assert_int_eq(keep_async_set(a, "tls-0", 5, "stolen", 6, 0, on_done, &r), 0);
  ck_assert(drive(a, &done, 1, 5000));
  ck_assert_int_lt(r.status, 0);
  keep_async_free(a);
  // A server key that is not pinned is refused by the client.
  t.key_file = mine;
  t.server_key_file = mine_pub;
  ck_assert_int_eq(keep_async_new(&a, &s, NULL), 0);
  done = 0;
  r = (struct rec){.done = &done};
  ck_assert_int_eq(keep_async_ping(a, on_done, &r), 0);
  ck_assert(drive(a, &done, 1, 5000));
  ck_assert_int_eq(r.status, KEEP_ERR_TLS);
  keep_async_free(a);
  ck_assert_int_eq(keepd_stop(&p), 0);
  const char *files[] = {cluster, cluster_pub, mine, mine_pub, other};
  for (int i = 0; i < 5; i++)
    unlink(files[i]);
  char other_pub[140];
  snprintf(other_pub, sizeof other_pub, "%s.pub", other);
  unlink(other_pub);
  rmdir(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("keep-async");
  TCase *tc = tcase_create("async");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, arguments_are_checked);
  tcase_add_test(tc, pipelined_operations);
  tcase_add_test(tc, locks_and_expiry);
  tcase_add_test(tc, interleaved_subscriptions);
  tcase_add_test(tc, server_restart);
  tcase_add_test(tc, cluster_moved_followed);
  tcase_add_test(tc, cluster_subscription_follows_its_topic);
  tcase_add_test(tc, busy_retried_on_the_timer);
  tcase_add_test(tc, queue_limits);
  tcase_add_test(tc, teardown_cancels);
  tcase_add_test(tc, tls_pipelined);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s KEEPD\n", argv[0]);
    return 2;
  }
  keepd_bin = argv[1];
  const char *extra[] = {"--shards", "4", NULL};
  if (keepd_start(&server, keepd_bin, extra) != 0) {
    fprintf(stderr, "cannot start %s\n", keepd_bin);
    return 1;
  }
  int failed = corvid_check_run(suite());
  int st = keepd_stop(&server);
  return failed || st != 0;
}
