// test_client_fake.c: libkeep's client against a scripted keep/1 peer on
// loopback, for the answers a single healthy keepd never gives on demand:
// BUSY (retried, then reported), a peer that never answers (timeout), that
// closes (reconnect on the next call), that sends garbage (protocol error),
// stale answers with other ids (skipped), and events whose sequence numbers
// jump (gaps counted exactly), interleaved with answers.
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_internal.h"

enum mode {
  BUSY_TWICE,
  ALWAYS_BUSY,
  SILENT,
  CLOSE_FIRST,
  GARBAGE,
  STALE_FIRST,
  EVENTS,
  RESUBSCRIBE
};

struct fake {
  enum mode mode;
  int lfd;
  unsigned port;
  char member[32];
  pthread_t thread;
  atomic_int requests, connections, subscribes;
};

static void put_frame(int fd, const keep_frame *f) {
  uint8_t buf[512];
  size_t len;
  if (keep_frame_encode(buf, sizeof buf, &len, f) == 0)
    (void)!send(fd, buf, len, MSG_NOSIGNAL);
}

static void answer(int fd, uint8_t op, uint64_t id, uint64_t num) {
  keep_frame f;
  keep_frame_init(&f, op, id);
  f.num = num;
  put_frame(fd, &f);
}

static void push(int fd, uint8_t op, uint64_t seq) {
  keep_frame f;
  keep_frame_init(&f, op, 1);
  f.key = (const uint8_t *)"topic";
  f.key_len = 5;
  f.num = seq;
  f.value = (const uint8_t *)"p";
  f.value_len = op == KEEP_OP_EVENT ? 1 : 0;
  put_frame(fd, &f);
}

// serve answers one request in the way the mode says; false closes.
static bool serve(struct fake *fk, int fd, const keep_frame *req) {
  int n = atomic_fetch_add(&fk->requests, 1);
  switch (fk->mode) {
  case BUSY_TWICE:
    answer(fd, n < 2 ? KEEP_OP_BUSY : KEEP_OP_OK, req->id, 0);
    return true;
  case ALWAYS_BUSY:
    answer(fd, KEEP_OP_BUSY, req->id, 0);
    return true;
  case SILENT:
    return true;
  case CLOSE_FIRST:
    if (n == 0)
      return false;
    answer(fd, KEEP_OP_OK, req->id, 0);
    return true;
  case GARBAGE:
    (void)!send(fd, "HTTP/1.1 400 Bad Request\r\n\r\n", 28, MSG_NOSIGNAL);
    return true;
  case STALE_FIRST:
    answer(fd, KEEP_OP_NOT_FOUND, req->id + 1000, 0);
    answer(fd, KEEP_OP_OK, req->id, 41);
    return true;
  case EVENTS:
    if (req->opcode == KEEP_OP_SUBSCRIBE) {
      answer(fd, KEEP_OP_OK, req->id, 0);
      return true;
    }
    // Events before the answer: the client queues them while it waits.
    push(fd, KEEP_OP_EVENT, 1);
    push(fd, KEEP_OP_EVENT, 2);
    push(fd, KEEP_OP_EVENT, 5);
    answer(fd, KEEP_OP_OK, req->id, 0);
    push(fd, KEEP_OP_HEARTBEAT, 7);
    push(fd, KEEP_OP_EVENT, 8);
    return true;
  case RESUBSCRIBE: {
    // A member that keeps the subscription while it answers BUSY (starved):
    // the subscription, then a heartbeat with a gap, which makes the
    // cluster-mode client confirm it; the confirmation and its five
    // retries answered BUSY, which interrupts it; then, on the same
    // connection, frames of the subscription sent before the answer that
    // makes it again (at sequence number 3) and one after.
    int k = req->opcode == KEEP_OP_SUBSCRIBE ? atomic_fetch_add(&fk->subscribes, 1) : -1;
    if (k == 0) {
      answer(fd, KEEP_OP_OK, req->id, 0);
      push(fd, KEEP_OP_HEARTBEAT, 1);
    } else if (k >= 1 && k <= 6) {
      answer(fd, KEEP_OP_BUSY, req->id, 0);
    } else if (k == 7) {
      push(fd, KEEP_OP_HEARTBEAT, 2);
      push(fd, KEEP_OP_EVENT, 3);
      answer(fd, KEEP_OP_OK, req->id, 3);
      push(fd, KEEP_OP_EVENT, 4);
    } else {
      answer(fd, KEEP_OP_OK, req->id, 4);
    }
    return true;
  }
  }
  return true;
}

static void *fake_main(void *arg) {
  struct fake *fk = arg;
  for (;;) {
    int fd = accept(fk->lfd, NULL, NULL);
    if (fd < 0)
      return NULL; // the listener was shut down
    atomic_fetch_add(&fk->connections, 1);
    static uint8_t buf[1 << 16];
    size_t have = 0;
    bool open = true;
    while (open) {
      ssize_t n = recv(fd, buf + have, sizeof buf - have, 0);
      if (n <= 0)
        break;
      have += (size_t)n;
      size_t pos = 0, used;
      keep_frame f;
      while (open && keep_frame_decode(&f, &used, buf + pos, have - pos, 0) == 1) {
        pos += used;
        open = serve(fk, fd, &f);
      }
      memmove(buf, buf + pos, have - pos);
      have -= pos;
    }
    close(fd);
  }
}

static void fake_start(struct fake *fk, enum mode mode) {
  memset(fk, 0, sizeof *fk);
  fk->mode = mode;
  fk->lfd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fk->lfd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ck_assert_int_eq(bind(fk->lfd, (struct sockaddr *)&a, sizeof a), 0);
  ck_assert_int_eq(listen(fk->lfd, 8), 0);
  ck_assert_int_eq(getsockname(fk->lfd, (struct sockaddr *)&a, &len), 0);
  fk->port = ntohs(a.sin_port);
  snprintf(fk->member, sizeof fk->member, "127.0.0.1:%u", fk->port);
  ck_assert_int_eq(pthread_create(&fk->thread, NULL, fake_main, fk), 0);
}

static void fake_stop(struct fake *fk) {
  shutdown(fk->lfd, SHUT_RDWR);
  close(fk->lfd);
  pthread_cancel(fk->thread);
  pthread_join(fk->thread, NULL);
}

static keep_client *connect_fake(struct fake *fk, uint32_t io_timeout_ms) {
  const char *members[] = {fk->member};
  keep_settings s = {.members = members, .num_members = 1, .io_timeout_ms = io_timeout_ms};
  keep_client *c;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  return c;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

START_TEST(busy_is_retried) {
  struct fake fk;
  fake_start(&fk, BUSY_TWICE);
  keep_client *c = connect_fake(&fk, 2000);
  ck_assert_int_eq(keep_set(c, "k", 1, "v", 1, 0), 0);
  ck_assert_int_eq(atomic_load(&fk.requests), 3);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(busy_is_reported_after_the_retries) {
  struct fake fk;
  fake_start(&fk, ALWAYS_BUSY);
  keep_client *c = connect_fake(&fk, 2000);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_incr(c, NULL, "k", 1, 1, 0), KEEP_ERR_BUSY);
  ck_assert_int_eq(atomic_load(&fk.requests), 6); // the request and 5 retries
  ck_assert_uint_ge(now_ms() - t0, 31);           // 1 + 2 + 4 + 8 + 16 ms apart
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(silence_times_out) {
  struct fake fk;
  fake_start(&fk, SILENT);
  keep_client *c = connect_fake(&fk, 200);
  uint64_t t0 = now_ms();
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_TIMEOUT);
  uint64_t took = now_ms() - t0;
  ck_assert_uint_ge(took, 190);
  ck_assert_uint_lt(took, 2000);
  // The connection was dropped: the next call opens a new one.
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_TIMEOUT);
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(close_then_reconnect) {
  struct fake fk;
  fake_start(&fk, CLOSE_FIRST);
  keep_client *c = connect_fake(&fk, 2000);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_CLOSED);
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(atomic_load(&fk.connections), 2);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(garbage_is_a_protocol_error) {
  struct fake fk;
  fake_start(&fk, GARBAGE);
  keep_client *c = connect_fake(&fk, 2000);
  ck_assert_int_eq(keep_ping(c), KEEP_ERR_PROTOCOL);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(stale_answers_are_skipped) {
  struct fake fk;
  fake_start(&fk, STALE_FIRST);
  keep_client *c = connect_fake(&fk, 2000);
  int64_t v = 0;
  ck_assert_int_eq(keep_incr(c, &v, "k", 1, 1, 0), 0);
  ck_assert_int_eq(v, 41);
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

START_TEST(event_gaps_are_counted) {
  struct fake fk;
  fake_start(&fk, EVENTS);
  keep_client *c = connect_fake(&fk, 2000);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  ck_assert_int_eq(keep_ping(c), 0); // events arrive around this answer
  static const struct {
    int kind;
    uint64_t seq, missed;
  } want[] = {
      {KEEP_EVENT_MESSAGE, 1, 0},   {KEEP_EVENT_MESSAGE, 2, 0}, {KEEP_EVENT_MESSAGE, 5, 2},
      {KEEP_EVENT_HEARTBEAT, 7, 2}, {KEEP_EVENT_MESSAGE, 8, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    keep_event ev;
    ck_assert_int_eq(keep_next_event(c, &ev, 1000), 1);
    ck_assert_int_eq(ev.kind, want[i].kind);
    ck_assert_uint_eq(ev.seq, want[i].seq);
    ck_assert_uint_eq(ev.missed, want[i].missed);
    ck_assert_uint_eq(ev.topic_len, 5);
    ck_assert_uint_eq(ev.payload_len, ev.kind == KEEP_EVENT_MESSAGE ? 1 : 0);
  }
  keep_event ev;
  ck_assert_int_eq(keep_next_event(c, &ev, 50), 0); // nothing more
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

// Frames of a subscription sent before the answer that made it again on
// the same connection are older than the sequence number that answer
// reports: they are dropped, not handed out after KEEP_EVENT_RESUBSCRIBED
// with numbers that go back (the fault suite's event checker saw a
// heartbeat do that when the topic's member was starved).
START_TEST(frames_before_a_resubscription_are_dropped) {
  struct fake fk;
  fake_start(&fk, RESUBSCRIBE);
  const char *members[] = {fk.member};
  static const uint16_t one_id[] = {7};
  static const uint8_t secret[KEEP_SECRET_LEN] = {1};
  keep_settings s = {.members = members,
                     .num_members = 1,
                     .member_ids = one_id,
                     .secret = secret,
                     .io_timeout_ms = 2000};
  keep_client *c;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  ck_assert_int_eq(keep_subscribe(c, "topic", 5), 0);
  static const struct {
    int kind;
    uint64_t seq, missed;
  } want[] = {
      {KEEP_EVENT_HEARTBEAT, 1, 1},
      {KEEP_EVENT_RESUBSCRIBED, 3, 0},
      {KEEP_EVENT_MESSAGE, 4, 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    keep_event ev;
    ck_assert_int_eq(keep_next_event(c, &ev, 2000), 1);
    ck_assert_int_eq(ev.kind, want[i].kind);
    ck_assert_uint_eq(ev.seq, want[i].seq);
    ck_assert_uint_eq(ev.missed, want[i].missed);
  }
  keep_client_free(c);
  fake_stop(&fk);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-client-fake");
  TCase *tc = tcase_create("fake");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, busy_is_retried);
  tcase_add_test(tc, busy_is_reported_after_the_retries);
  tcase_add_test(tc, silence_times_out);
  tcase_add_test(tc, close_then_reconnect);
  tcase_add_test(tc, garbage_is_a_protocol_error);
  tcase_add_test(tc, stale_answers_are_skipped);
  tcase_add_test(tc, event_gaps_are_counted);
  tcase_add_test(tc, frames_before_a_resubscription_are_dropped);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
