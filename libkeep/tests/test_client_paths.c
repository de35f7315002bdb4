// test_client_paths.c: libkeep's blocking client against a scripted keep/1
// peer on loopback, for the paths test_client_fake.c leaves out: a
// connection reset while an answer is awaited or between two calls, a wait
// interrupted by a signal, a batch larger than the socket buffers (the
// client must read answers and events while it is still sending, and see a
// peer that stops reading or closes its side meanwhile), batches
// answered with garbage, twice, never or by a closed connection, events
// that the client must skip or that it still holds when it is freed, a
// cluster whose members all failed lately, more members than allowed, and
// a socket() that fails.
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "fake_peer.h"
#include "keep.h"
#include "keep_internal.h"

enum mode {
  RESET_WAITING,      // connection 1 resets instead of answering
  RESET_AFTER_ANSWER, // connection 1 answers, then resets
  SIGNALS,            // PING: signals the client several times, then answers
  BATCH_STREAM,       // the first SET of a batch: a stale answer, big events
  BATCH_GARBAGE,      // connection 1 answers with bytes that are no frame
  BATCH_TWICE,        // connection 1 answers its first request twice
  BATCH_CLOSE,        // connection 1 closes once it read two requests
  SILENT,             // connection 1 never answers
  STRAY_EVENTS,       // SUBSCRIBE at 5, then frames the client must skip
  QUEUED_EVENTS,      // PING: three events before the answer
  CLOSE_ON_REQUEST,   // connection 1 closes on its first request
  STALL,              // connection 1 is never read
  HALF_CLOSE,         // connection 1: FIN after its first request, not read on
};

#define MAX_RECORDED 64
#define BIG_LEN KEEP_MAX_VALUE_HARD

struct fake {
  struct keep_peer peer; // first: the script casts the peer back
  enum mode mode;
  pthread_t client_thread; // SIGNALS: the thread blocked in the client
  size_t num_big_events;   // BATCH_STREAM: how many 1 MiB events to push
  atomic_int bad_values;
  // What the fake received: opcode and connection (1-based) per request.
  uint8_t ops[MAX_RECORDED];
  int conn_of[MAX_RECORDED];
};

static atomic_int signals_caught;

static void count_signal(int sig) {
  (void)sig;
  atomic_fetch_add(&signals_caught, 1);
}

// serve_normally is how every connection after the first is answered.
static enum verdict serve_normally(int fd, const keep_frame *req) {
  answer(fd, KEEP_OP_OK, req->id, 0);
  return KEEP_OPEN;
}

// serve answers request number `n` (0-based, over all connections), the
// `k`-th (0-based) of connection `conn`, in the way the mode says.
static enum verdict serve(struct keep_peer *peer, int fd, int conn, int n, int k,
                          const keep_frame *req) {
  struct fake *fk = (struct fake *)peer;
  if (n < MAX_RECORDED) {
    fk->ops[n] = req->opcode;
    fk->conn_of[n] = conn;
  }
  if (conn > 1 && fk->mode != BATCH_STREAM)
    return serve_normally(fd, req);
  switch (fk->mode) {
  case RESET_WAITING:
    return CLOSE_RST;
  case RESET_AFTER_ANSWER:
    answer(fd, KEEP_OP_OK, req->id, 0);
    return CLOSE_RST;
  case SIGNALS:
    for (int i = 0; i < 5; i++) {
      sleep_ms(20);
      pthread_kill(fk->client_thread, SIGUSR1);
    }
    sleep_ms(20);
    answer(fd, KEEP_OP_OK, req->id, 0);
    return KEEP_OPEN;
  case BATCH_STREAM: {
    if (req->opcode != KEEP_OP_SET)
      return serve_normally(fd, req);
    // SET number k of the connection carries the bytes k - 1 (its index).
    if (req->value_len != BIG_LEN || req->value[0] != (uint8_t)(k - 1) ||
        req->value[BIG_LEN - 1] != (uint8_t)(k - 1))
      atomic_fetch_add(&fk->bad_values, 1);
    if (k == 1) {
      // An answer to no request of the batch, then more events than the
      // socket buffers hold: the client, still sending, must read them.
      answer(fd, KEEP_OP_NOT_FOUND, req->id + 1000000, 0);
      uint8_t *payload = malloc(BIG_LEN);
      for (size_t seq = 1; payload != NULL && seq <= fk->num_big_events; seq++) {
        memset(payload, (int)seq, BIG_LEN);
        push(fd, KEEP_OP_EVENT, "topic", seq, payload, BIG_LEN);
      }
      free(payload);
    }
    answer(fd, KEEP_OP_OK, req->id, (uint64_t)(k - 1));
    return KEEP_OPEN;
  }
  case BATCH_GARBAGE:
    (void)!send(fd, "HTTP/1.1 400 Bad Request\r\n\r\n", 28, MSG_NOSIGNAL);
    return KEEP_OPEN;
  case BATCH_TWICE:
    if (k == 0) {
      answer(fd, KEEP_OP_OK, req->id, 0);
      answer(fd, KEEP_OP_OK, req->id, 0);
    }
    return KEEP_OPEN;
  case BATCH_CLOSE:
    return k == 1 ? CLOSE_FIN : KEEP_OPEN;
  case SILENT:
    return KEEP_OPEN;
  case STRAY_EVENTS:
    answer(fd, KEEP_OP_OK, req->id, 5);
    push(fd, KEEP_OP_EVENT, "other", 1, (const uint8_t *)"x", 1);
    push(fd, KEEP_OP_EVENT, "topic", 5, (const uint8_t *)"old", 3);
    push(fd, KEEP_OP_HEARTBEAT, "topic", 4, NULL, 0);
    push(fd, KEEP_OP_EVENT, "topic", 6, (const uint8_t *)"new", 3);
    return KEEP_OPEN;
  case QUEUED_EVENTS:
    if (req->opcode == KEEP_OP_PING)
      for (uint64_t seq = 1; seq <= 3; seq++)
        push(fd, KEEP_OP_EVENT, "topic", seq, (const uint8_t *)"p", 1);
    answer(fd, KEEP_OP_OK, req->id, 0);
    return KEEP_OPEN;
  case CLOSE_ON_REQUEST:
    return CLOSE_FIN;
  case STALL:
    return PARK;
  case HALF_CLOSE:
    shutdown(fd, SHUT_WR);
    return PARK;
  }
  return KEEP_OPEN;
}

static void fake_start(struct fake *fk, enum mode mode) {
  memset(fk, 0, sizeof *fk);
  fk->mode = mode;
  fk->client_thread = pthread_self();
  fk->peer.park_first = mode == STALL;
  // A small receive buffer, inherited by accepted connections, so that a
  // batch of a few MiB cannot fit in the kernel and the client must wait.
  peer_start(&fk->peer, serve, 65536);
}

// refused_member names a loopback port nobody listens on.
static void refused_member(char *out, size_t out_cap) {
  snprintf(out, out_cap, "127.0.0.1:%u", unused_loopback_port());
}

// run_small_batch runs a batch of two GETs and checks both were answered
// OK: how each failure case proves the client reconnected.
static int run_small_batch(keep_client *c) {
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  ck_assert_int_eq(keep_batch_get(b, "a", 1), 0);
  ck_assert_int_eq(keep_batch_get(b, "b", 1), 1);
  int rc = keep_batch_run(c, b);
  if (rc == 0) {
    ck_assert_int_eq(keep_batch_result(b, 0, NULL, NULL, NULL), 0);
    ck_assert_int_eq(keep_batch_result(b, 1, NULL, NULL, NULL), 0);
  }
  keep_batch_free(b);
  return rc;
}

START_TEST(reset_while_awaiting_an_answer) {
  struct fake fk;
  fake_start(&fk, RESET_WAITING);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_ping(c), -ECONNRESET);
  ck_assert_int_eq(keep_ping(c), 0); // on a new connection
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 2);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 2);
  ck_assert_int_eq(fk.ops[0], KEEP_OP_PING);
  ck_assert_int_eq(fk.conn_of[1], 2);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

// The reset lands while the client is idle: the next send reports it.
START_TEST(reset_between_calls_fails_the_batch_send) {
  struct fake fk;
  fake_start(&fk, RESET_AFTER_ANSWER);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_ping(c), 0);
  // On loopback the reset reaches the client's socket within the fake's
  // close().
  for (int i = 0; i < 2000 && atomic_load(&fk.peer.closes) == 0; i++)
    sleep_ms(1);
  ck_assert_int_eq(atomic_load(&fk.peer.closes), 1);
  ck_assert_int_eq(run_small_batch(c), -ECONNRESET);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 1); // the batch never arrived
  ck_assert_int_eq(run_small_batch(c), 0);             // reconnected
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 2);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 3);
  ck_assert_int_eq(fk.ops[1], KEEP_OP_GET);
  ck_assert_int_eq(fk.conn_of[2], 2);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

START_TEST(signal_during_a_wait_is_not_an_error) {
  struct sigaction sa = {.sa_handler = count_signal}; // no SA_RESTART
  sigemptyset(&sa.sa_mask);
  struct sigaction old;
  ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
  atomic_store(&signals_caught, 0);
  struct fake fk;
  fake_start(&fk, SIGNALS);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(atomic_load(&signals_caught), 5);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 1);
  keep_client_free(c);
  peer_stop(&fk.peer);
  sigaction(SIGUSR1, &old, NULL);
}
END_TEST

// tcp_wmem_max_mib is the most MiB the kernel lets a socket's send buffer
// grow to, so that a batch is sized to outgrow it.
static size_t tcp_wmem_max_mib(void) {
  unsigned long lo = 0, def = 0, max = 4u << 20;
  FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");
  if (f != NULL) {
    if (fscanf(f, "%lu %lu %lu", &lo, &def, &max) != 3)
      max = 4u << 20;
    fclose(f);
  }
  size_t mib = max >> 20;
  return mib < 4 ? 4 : mib > 32 ? 32 : mib;
}

// add_big_sets adds SETs of KEEP_MAX_VALUE_HARD bytes, the i-th all bytes
// i, `mib_more` more of them than the send buffer can grow to hold.
static size_t add_big_sets(keep_batch *b, size_t mib_more) {
  uint8_t *value = malloc(BIG_LEN);
  ck_assert_ptr_nonnull(value);
  size_t num_sets = tcp_wmem_max_mib() + mib_more;
  for (size_t i = 0; i < num_sets; i++) {
    char key[24];
    snprintf(key, sizeof key, "k%zu", i);
    memset(value, (int)i, BIG_LEN);
    ck_assert_int_eq(keep_batch_set(b, key, strlen(key), value, BIG_LEN, 0), (int)i);
  }
  free(value);
  return num_sets;
}

// A batch larger than both socket buffers, to a peer that answers its first
// request with more event bytes than the buffers hold before it reads on:
// the client must read while it sends or both sides wait for the timeout.
START_TEST(big_batch_reads_events_while_sending) {
  struct fake fk;
  fake_start(&fk, BATCH_STREAM);
  size_t wmem = tcp_wmem_max_mib();
  fk.num_big_events = wmem + 2;
  keep_client *c = client_to(fk.peer.member, 10000);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  size_t num_sets = add_big_sets(b, 3);
  ck_assert_int_eq(keep_batch_run(c, b), 0);
  for (size_t i = 0; i < num_sets; i++) {
    int64_t num = -1;
    ck_assert_int_eq(keep_batch_result(b, i, &num, NULL, NULL), 0);
    ck_assert_int_eq(num, (int64_t)i); // matched by id, not by arrival
  }
  keep_batch_free(b);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), (int)num_sets + 1);
  ck_assert_int_eq(atomic_load(&fk.bad_values), 0);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 1);
  // The events the batch's wait queued come out in order, whole.
  for (size_t seq = 1; seq <= fk.num_big_events; seq++) {
    keep_event ev;
    ck_assert_int_eq(keep_next_event(c, &ev, 1000), 1);
    ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
    ck_assert_uint_eq(ev.seq, seq);
    ck_assert_uint_eq(ev.missed, 0);
    ck_assert_uint_eq(ev.payload_len, BIG_LEN);
    ck_assert_uint_eq(ev.payload[0], (uint8_t)seq);
    ck_assert_uint_eq(ev.payload[BIG_LEN - 1], (uint8_t)seq);
  }
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 50), 0);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

// A peer that stops reading, or that closes its side after the first
// request and stops reading, while the client still has most of a big batch
// to send: the I/O timeout, or the end of stream seen while sending (not
// the timeout that waiting to send on would end in); then a new connection.
static const struct {
  enum mode mode;
  int rc;
  uint32_t io_timeout_ms;
  int requests_on_first;
} big_batch_failures[] = {
    {STALL, KEEP_ERR_TIMEOUT, 300, 0},
    {HALF_CLOSE, KEEP_ERR_CLOSED, 3000, 1},
};

START_TEST(big_batch_send_failures) {
  struct fake fk;
  fake_start(&fk, big_batch_failures[_i].mode);
  keep_client *c = client_to(fk.peer.member, big_batch_failures[_i].io_timeout_ms);
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  add_big_sets(b, 4);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_batch_run(c, b), big_batch_failures[_i].rc);
  uint64_t took = now_ms() - t0;
  if (big_batch_failures[_i].rc == KEEP_ERR_TIMEOUT)
    ck_assert_uint_ge(took, 290);
  else
    ck_assert_uint_lt(took, big_batch_failures[_i].io_timeout_ms / 2);
  keep_batch_free(b);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), big_batch_failures[_i].requests_on_first);
  ck_assert_int_eq(run_small_batch(c), 0);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 2);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), big_batch_failures[_i].requests_on_first + 2);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

// Each way a batch's answers can fail: the code it reports, then a new
// connection on the next batch.
static const struct {
  enum mode mode;
  int rc;
  uint32_t io_timeout_ms;
} batch_failures[] = {
    {BATCH_GARBAGE, KEEP_ERR_PROTOCOL, 2000},
    {BATCH_TWICE, KEEP_ERR_PROTOCOL, 2000},
    {BATCH_CLOSE, KEEP_ERR_CLOSED, 2000},
    {SILENT, KEEP_ERR_TIMEOUT, 200},
};

START_TEST(batch_answer_failures) {
  struct fake fk;
  fake_start(&fk, batch_failures[_i].mode);
  keep_client *c = client_to(fk.peer.member, batch_failures[_i].io_timeout_ms);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(run_small_batch(c), batch_failures[_i].rc);
  if (batch_failures[_i].rc == KEEP_ERR_TIMEOUT)
    ck_assert_uint_ge(now_ms() - t0, 190);
  ck_assert_int_eq(run_small_batch(c), 0);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 2);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 4);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(fk.ops[i], KEEP_OP_GET);
    ck_assert_int_eq(fk.conn_of[i], i < 2 ? 1 : 2);
  }
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

START_TEST(batch_without_a_server_is_refused) {
  struct fake fk;
  fake_start(&fk, CLOSE_ON_REQUEST);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_CLOSED);
  peer_stop(&fk.peer); // nobody listens any more
  ck_assert_int_eq(run_small_batch(c), -ECONNREFUSED);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 1);
  keep_client_free(c);
}
END_TEST

// Frames of a topic not subscribed and frames older than the subscription
// are read past, not handed out, and not waited on.
START_TEST(stray_events_are_skipped) {
  struct fake fk;
  fake_start(&fk, STRAY_EVENTS);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  keep_event ev;
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
  ck_assert_uint_lt(now_ms() - t0, 1000);
  ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
  ck_assert_uint_eq(ev.seq, 6);
  ck_assert_uint_eq(ev.missed, 0);
  ck_assert_uint_eq(ev.topic_len, 5);
  ck_assert_mem_eq(ev.topic, "topic", 5);
  ck_assert_uint_eq(ev.payload_len, 3);
  ck_assert_mem_eq(ev.payload, "new", 3);
  ck_assert_int_eq(keep_next_event(c, &ev, 50), 0);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 1);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

// Events queued while an answer was awaited and never asked for are freed
// with the client (the leak checker of the sanitizer build sees them).
START_TEST(free_releases_queued_events) {
  struct fake fk;
  fake_start(&fk, QUEUED_EVENTS);
  keep_client *c = client_to(fk.peer.member, 2000);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  ck_assert_int_eq(keep_ping(c), 0);
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 0), 1); // from the queue, no wait
  ck_assert_uint_eq(ev.seq, 1);
  keep_client_free(c); // seq 2 and 3 still queued
  peer_stop(&fk.peer);
}
END_TEST

// Every member failed lately: the client tries them all again, so the
// slot's owner, which came back, is used rather than nobody.
START_TEST(cluster_with_every_member_down_tries_all) {
  struct fake fk;
  fake_start(&fk, CLOSE_ON_REQUEST);
  char dead1[32], dead2[32];
  refused_member(dead1, sizeof dead1);
  refused_member(dead2, sizeof dead2);
  const char *members[] = {fk.peer.member, dead1, dead2};
  static const uint16_t ids[] = {11, 22, 33};
  static const uint8_t secret[KEEP_SECRET_LEN] = {9, 8, 7};
  // A key whose slot the fake (member 0) owns while all three are live.
  char key[16];
  bool found = false;
  for (int i = 0; i < 1000 && !found; i++) {
    snprintf(key, sizeof key, "key%d", i);
    uint32_t slot = keep_slot(secret, key, strlen(key));
    found = keep_slot_owner(secret, slot, ids, 3, 7) == 0;
  }
  ck_assert(found);
  keep_settings s = {.members = members,
                     .num_members = 3,
                     .member_ids = ids,
                     .secret = secret,
                     .io_timeout_ms = 2000};
  keep_client *c;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  // The fake closes on the SET: member 0 is marked down, the request sent
  // again; both others refuse and are marked down; then all are tried.
  ck_assert_int_eq(keep_set(c, key, strlen(key), "v", 1, 0), 0);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 2);
  ck_assert_int_eq(atomic_load(&fk.peer.requests), 2);
  ck_assert_int_eq(fk.ops[0], KEEP_OP_SET);
  ck_assert_int_eq(fk.ops[1], KEEP_OP_SET);
  ck_assert_int_eq(fk.conn_of[1], 2);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

START_TEST(cluster_member_limit) {
  struct fake fk;
  fake_start(&fk, SILENT);
  const char *members[KEEP_MAX_MEMBERS + 1];
  uint16_t ids[KEEP_MAX_MEMBERS + 1];
  for (size_t i = 0; i <= KEEP_MAX_MEMBERS; i++) {
    members[i] = fk.peer.member;
    ids[i] = (uint16_t)(i + 1);
  }
  keep_settings s = {.members = members, .num_members = KEEP_MAX_MEMBERS + 1, .member_ids = ids};
  keep_client *c = (keep_client *)&s; // must be cleared
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 0);
  s.num_members = KEEP_MAX_MEMBERS; // the limit itself is allowed
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  for (int i = 0; i < 2000 && atomic_load(&fk.peer.connections) == 0; i++)
    sleep_ms(1); // the fake accepts in its own time
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 1);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

// With no descriptor left, socket() fails and its errno is the answer, not
// a made-up refusal.
START_TEST(socket_failure_is_reported) {
  struct fake fk;
  fake_start(&fk, SILENT);
  const char *members[] = {fk.peer.member};
  keep_settings s = {.members = members, .num_members = 1};
  struct rlimit old, low;
  ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
  low = old;
  low.rlim_cur = 64;
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
  int fillers[64], num_fillers = 0, fd;
  while (num_fillers < 64 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    fillers[num_fillers++] = fd;
  keep_client *c;
  int rc = keep_client_new(&c, &s);
  for (int i = 0; i < num_fillers; i++)
    close(fillers[i]);
  ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
  ck_assert_int_eq(rc, -EMFILE);
  ck_assert_int_eq(atomic_load(&fk.peer.connections), 0);
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  keep_client_free(c);
  peer_stop(&fk.peer);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-client-paths");
  TCase *tc = tcase_create("paths");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, reset_while_awaiting_an_answer);
  tcase_add_test(tc, reset_between_calls_fails_the_batch_send);
  tcase_add_test(tc, signal_during_a_wait_is_not_an_error);
  tcase_add_test(tc, big_batch_reads_events_while_sending);
  tcase_add_loop_test(tc, big_batch_send_failures, 0,
                      (int)(sizeof big_batch_failures / sizeof big_batch_failures[0]));
  tcase_add_loop_test(tc, batch_answer_failures, 0,
                      (int)(sizeof batch_failures / sizeof batch_failures[0]));
  tcase_add_test(tc, batch_without_a_server_is_refused);
  tcase_add_test(tc, stray_events_are_skipped);
  tcase_add_test(tc, free_releases_queued_events);
  tcase_add_test(tc, cluster_with_every_member_down_tries_all);
  tcase_add_test(tc, cluster_member_limit);
  tcase_add_test(tc, socket_failure_is_reported);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
