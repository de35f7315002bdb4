// test_resp.c: libkeep's RESP back end against a real redis-server 7
// started here on a free loopback port without persistence (argv[1] is its
// path; the suite is skipped when the Debian package redis-server is not
// installed): values, TTLs, counters created with a TTL in one step, locks
// whose holder is compared on the server (exclusive under many threads),
// publish/subscribe with sequence numbers, and what is refused.
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "keep.h"

static char url[64];
static pid_t redis_pid;

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

static keep_client *connect_client(void) {
  const char *members[] = {url};
  keep_settings s = {.members = members, .num_members = 1};
  keep_client *c = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  return c;
}

static size_t unique_key(char *out, size_t cap, const char *what) {
  static unsigned n;
  return (size_t)snprintf(out, cap, "%s:%d:%u", what, (int)getpid(), n++);
}

START_TEST(values_and_ttls) {
  keep_client *c = connect_client();
  char k[64];
  size_t kl = unique_key(k, sizeof k, "v");
  uint8_t buf[64];
  size_t len;
  ck_assert_int_eq(keep_ping(c), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_del(c, k, kl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_set(c, k, kl, "hello", 5, 0), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_uint_eq(len, 5);
  ck_assert_mem_eq(buf, "hello", 5);
  ck_assert_int_eq(keep_get(c, buf, 2, &len, k, kl), -ENOBUFS);
  ck_assert_int_eq(keep_set(c, k, kl, "", 0, 0), 0); // empty values exist
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(keep_set_nx(c, k, kl, "x", 1, 0), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_del(c, k, kl), 0);
  ck_assert_int_eq(keep_set_nx(c, k, kl, "x", 1, 60), 0);
  sleep_ms(120);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_NOT_FOUND);
  // expire sets and (with 0) removes a lifetime.
  ck_assert_int_eq(keep_expire(c, k, kl, 50), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_expire(c, k, kl, 0), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_set(c, k, kl, "v", 1, 60), 0);
  ck_assert_int_eq(keep_expire(c, k, kl, 0), 0);
  sleep_ms(120);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_int_eq(keep_expire(c, k, kl, 50), 0);
  sleep_ms(120);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_NOT_FOUND);
  // Binary keys and values, and a large value.
  static uint8_t big[KEEP_MAX_VALUE_LEN];
  static uint8_t back[KEEP_MAX_VALUE_LEN];
  for (size_t i = 0; i < sizeof big; i++)
    big[i] = (uint8_t)(i * 13 + (i >> 9));
  const uint8_t bk[] = {0, '\r', '\n', 0xff, '$', '*'};
  ck_assert_int_eq(keep_set(c, bk, sizeof bk, big, sizeof big, 0), 0);
  ck_assert_int_eq(keep_get(c, back, sizeof back, &len, bk, sizeof bk), 0);
  ck_assert_uint_eq(len, sizeof big);
  ck_assert(memcmp(back, big, sizeof big) == 0);
  ck_assert_int_eq(keep_del(c, bk, sizeof bk), 0);
  keep_client_free(c);
}
END_TEST

START_TEST(counters) {
  keep_client *c = connect_client();
  char k[64];
  size_t kl = unique_key(k, sizeof k, "n");
  int64_t v;
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 5, 0), 0);
  ck_assert_int_eq(v, 5);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, -7, 0), 0);
  ck_assert_int_eq(v, -2);
  // Created with a TTL in the same step; an existing counter keeps its own.
  kl = unique_key(k, sizeof k, "window");
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 150), 0);
  ck_assert_int_eq(v, 1);
  sleep_ms(60);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 10000), 0);
  ck_assert_int_eq(v, 2);
  sleep_ms(150);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 150), 0);
  ck_assert_int_eq(v, 1); // the window ended and a new one began
  // Wrong type and overflow.
  kl = unique_key(k, sizeof k, "text");
  ck_assert_int_eq(keep_set(c, k, kl, "abc", 3, 0), 0);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 0), KEEP_ERR_WRONG_TYPE);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 100), KEEP_ERR_WRONG_TYPE);
  kl = unique_key(k, sizeof k, "max");
  ck_assert_int_eq(keep_incr(c, &v, k, kl, INT64_MAX, 0), 0);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 1, 0), KEEP_ERR_OVERFLOW);
  keep_client_free(c);
}
END_TEST

START_TEST(lock_answers) {
  keep_client *c = connect_client();
  char k[64];
  size_t kl = unique_key(k, sizeof k, "lock");
  uint64_t deadline;
  uint64_t t0;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  t0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  ck_assert_int_eq(keep_lock(c, &deadline, k, kl, "alice", 5, 10000), 0);
  ck_assert_uint_gt(deadline, t0);
  ck_assert_uint_le(deadline, t0 + 10000000000ull);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "bob", 3, 10000), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "alice", 5, 10000), 0); // renewal
  ck_assert_int_eq(keep_extend(c, NULL, k, kl, "bob", 3, 10000), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_extend(c, &deadline, k, kl, "alice", 5, 100), 0);
  ck_assert_int_eq(keep_unlock(c, k, kl, "bob", 3), KEEP_ERR_EXISTS);
  sleep_ms(200); // the lease ran out
  ck_assert_int_eq(keep_unlock(c, k, kl, "alice", 5), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "bob", 3, 10000), 0);
  ck_assert_int_eq(keep_unlock(c, k, kl, "bob", 3), 0);
  ck_assert_int_eq(keep_unlock(c, k, kl, "bob", 3), KEEP_ERR_NOT_FOUND);
  // A plain value is no lock of anyone's.
  ck_assert_int_eq(keep_set(c, k, kl, "alice", 5, 0), 0);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "alice", 5, 1000), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_unlock(c, k, kl, "alice", 5), KEEP_ERR_EXISTS);
  keep_client_free(c);
}
END_TEST

// Many threads increment a plain value with an unsynchronised
// read-modify-write inside the lock: a lock granted twice loses updates.
#define LOCK_THREADS 4
#define LOCK_ROUNDS 40
static char shared_key[64], lock_key[64];

static void *locker(void *arg) {
  char holder[16];
  snprintf(holder, sizeof holder, "h%d", (int)(intptr_t)arg);
  keep_client *c = connect_client();
  for (int i = 0; i < LOCK_ROUNDS; i++) {
    int rc;
    while ((rc = keep_lock(c, NULL, lock_key, strlen(lock_key), holder, strlen(holder), 5000)) ==
           KEEP_ERR_EXISTS)
      sleep_ms(1);
    ck_assert_int_eq(rc, 0);
    char buf[32];
    size_t len;
    ck_assert_int_eq(keep_get(c, buf, sizeof buf - 1, &len, shared_key, strlen(shared_key)), 0);
    buf[len] = '\0';
    int n = atoi(buf) + 1;
    len = (size_t)snprintf(buf, sizeof buf, "%d", n);
    ck_assert_int_eq(keep_set(c, shared_key, strlen(shared_key), buf, len, 0), 0);
    ck_assert_int_eq(keep_unlock(c, lock_key, strlen(lock_key), holder, strlen(holder)), 0);
  }
  keep_client_free(c);
  return NULL;
}

START_TEST(lock_exclusivity) {
  unique_key(shared_key, sizeof shared_key, "shared");
  unique_key(lock_key, sizeof lock_key, "mutex");
  keep_client *c = connect_client();
  ck_assert_int_eq(keep_set(c, shared_key, strlen(shared_key), "0", 1, 0), 0);
  pthread_t t[LOCK_THREADS];
  for (int i = 0; i < LOCK_THREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, locker, (void *)(intptr_t)i), 0);
  for (int i = 0; i < LOCK_THREADS; i++)
    pthread_join(t[i], NULL);
  char buf[32];
  size_t len;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf - 1, &len, shared_key, strlen(shared_key)), 0);
  buf[len] = '\0';
  ck_assert_int_eq(atoi(buf), LOCK_THREADS * LOCK_ROUNDS);
  keep_client_free(c);
}
END_TEST

START_TEST(publish_subscribe) {
  keep_client *sub = connect_client(), *pub = connect_client();
  char t[64];
  size_t tl = unique_key(t, sizeof t, "topic");
  keep_event ev;
  ck_assert_int_eq(keep_next_event(sub, &ev, 10), KEEP_ERR_CLOSED); // nothing subscribed
  ck_assert_int_eq(keep_unsubscribe(sub, t, tl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_subscribe(sub, t, tl), 0);
  ck_assert_int_eq(keep_subscribe(sub, t, tl), 0); // once is one subscription
  size_t receivers = 9;
  for (int i = 1; i <= 20; i++) {
    char p[16];
    int pl = snprintf(p, sizeof p, "m%d", i);
    ck_assert_int_eq(keep_publish(pub, &receivers, t, tl, p, (size_t)pl), 0);
    ck_assert_uint_eq(receivers, 1);
  }
  // The subscriber's own commands still work beside the subscription.
  ck_assert_int_eq(keep_set(sub, t, tl, "x", 1, 0), 0);
  for (int i = 1; i <= 20; i++) {
    ck_assert_int_eq(keep_next_event(sub, &ev, 2000), 1);
    char p[16];
    int pl = snprintf(p, sizeof p, "m%d", i);
    ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
    ck_assert_uint_eq(ev.seq, (uint64_t)i);
    ck_assert_uint_eq(ev.missed, 0);
    ck_assert_uint_eq(ev.topic_len, tl);
    ck_assert_mem_eq(ev.topic, t, tl);
    ck_assert_uint_eq(ev.payload_len, (size_t)pl);
    ck_assert_mem_eq(ev.payload, p, (size_t)pl);
  }
  ck_assert_int_eq(keep_next_event(sub, &ev, 50), 0); // no heartbeats over RESP
  ck_assert_int_eq(keep_unsubscribe(sub, t, tl), 0);
  ck_assert_int_eq(keep_publish(pub, &receivers, t, tl, "late", 4), 0);
  ck_assert_uint_eq(receivers, 0);
  keep_client_free(sub);
  keep_client_free(pub);
}
END_TEST

START_TEST(not_offered) {
  keep_client *c = connect_client();
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  ck_assert_int_ge(keep_batch_get(b, "k", 1), 0);
  ck_assert_int_eq(keep_batch_run(c, b), KEEP_ERR_INVALID_ARGUMENT);
  keep_batch_free(b);
  keep_client_free(c);
  const char *members[] = {url};
  const uint16_t ids[] = {1};
  keep_settings s = {.members = members, .num_members = 1, .member_ids = ids};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  const char *far[] = {"redis://192.0.2.1:6379"}; // plaintext leaves loopback
  s = (keep_settings){.members = far, .num_members = 1};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  const char *noport[] = {"redis://127.0.0.1"};
  s.members = noport;
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
}
END_TEST

static unsigned free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) < 0)
    return 0;
  close(fd);
  return ntohs(a.sin_port);
}

// start_redis runs redis-server in the foreground on a free port, without
// persistence, and waits up to 10 s until it answers.
static int start_redis(const char *bin) {
  unsigned port = free_port();
  if (port == 0)
    return -1;
  char port_s[16];
  snprintf(port_s, sizeof port_s, "%u", port);
  redis_pid = fork();
  if (redis_pid < 0)
    return -1;
  if (redis_pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO); // stdout carries the suite's TAP
      dup2(null, STDERR_FILENO);
    }
    execl(bin, bin, "--port", port_s, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
          "--daemonize", "no", "--protected-mode", "yes", (char *)NULL);
    _exit(127);
  }
  snprintf(url, sizeof url, "redis://127.0.0.1:%u", port);
  const char *members[] = {url};
  keep_settings s = {.members = members, .num_members = 1};
  for (int i = 0; i < 1000; i++) {
    keep_client *c;
    if (keep_client_new(&c, &s) == 0) {
      int rc = keep_ping(c);
      keep_client_free(c);
      if (rc == 0)
        return 0;
    }
    if (waitpid(redis_pid, NULL, WNOHANG) == redis_pid)
      return -1;
    sleep_ms(10);
  }
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '\0' || access(argv[1], X_OK) != 0) {
    printf("1..0 # SKIP redis-server not installed (Debian package redis-server)\n");
    return 0;
  }
  if (start_redis(argv[1]) != 0) {
    fprintf(stderr, "cannot start %s\n", argv[1]);
    if (redis_pid > 0)
      kill(redis_pid, SIGKILL);
    return 1;
  }
  Suite *s = suite_create("keep-resp");
  TCase *tc = tcase_create("resp");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, values_and_ttls);
  tcase_add_test(tc, counters);
  tcase_add_test(tc, lock_answers);
  tcase_add_test(tc, lock_exclusivity);
  tcase_add_test(tc, publish_subscribe);
  tcase_add_test(tc, not_offered);
  suite_add_tcase(s, tc);
  int rc = corvid_check_run(s);
  kill(redis_pid, SIGTERM);
  waitpid(redis_pid, NULL, 0);
  return rc;
}
