// test_client.c: libkeep's blocking client against a real keepd on
// loopback (argv[1] is the daemon, started here on an ephemeral port with
// two shards, so keys land on both): every operation and answer, TTL expiry,
// lock exclusivity under many threads doing an unsynchronised
// read-modify-write inside the lock, exact increments from many threads,
// pub/sub sequence numbers, heartbeats and gap detection, and batches.
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keepd_harness.h"

static struct keepd_proc server;

static keep_client *connect_client(uint32_t max_events) {
  const char *members[] = {server.member};
  keep_settings s = {.members = members, .num_members = 1, .max_events = max_events};
  keep_client *c = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  ck_assert_ptr_nonnull(c);
  return c;
}

// unique_key makes keys that do not collide across test cases.
static size_t unique_key(char *out, size_t cap, const char *what) {
  static unsigned n;
  return (size_t)snprintf(out, cap, "%s:%d:%u", what, (int)getpid(), n++);
}

START_TEST(settings_are_validated) {
  keep_client *c = (keep_client *)1;
  keep_settings s = {0};
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(c);
  const char *bad[] = {"no-port"};
  s.members = bad;
  s.num_members = 1;
  ck_assert_int_eq(keep_client_new(&c, &s), KEEP_ERR_INVALID_ARGUMENT);
  // A closed port is refused; the next member in the list is tried.
  const char *two[] = {"127.0.0.1:1", server.member};
  s.members = two;
  s.num_members = 2;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  ck_assert_int_eq(keep_ping(c), 0);
  keep_client_free(c);
  s.num_members = 1;
  ck_assert_int_lt(keep_client_new(&c, &s), 0);
  keep_client_free(NULL);
}
END_TEST

// A single keepd's view never changes: epoch 1. The client asks the
// member it is connected to (index 0) only.
START_TEST(view_epoch_of_a_single_keepd) {
  keep_client *c = connect_client(0);
  uint64_t e = 0;
  ck_assert_int_eq(keep_view_epoch(c, &e, 0), 0);
  ck_assert_uint_eq(e, 1);
  ck_assert_int_eq(keep_view_epoch(c, &e, 1), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_view_epoch(c, NULL, 0), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_view_epoch(NULL, &e, 0), KEEP_ERR_INVALID_ARGUMENT);
  // The connection stays usable after the VIEW answer.
  ck_assert_int_eq(keep_ping(c), 0);
  keep_client_free(c);
}
END_TEST

START_TEST(values_set_get_del) {
  keep_client *c = connect_client(0);
  char k[64];
  size_t kl = unique_key(k, sizeof k, "v");
  uint8_t buf[64];
  size_t len = 99;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_del(c, k, kl), KEEP_ERR_NOT_FOUND);
  // Sizes around the 8-byte inline limit, and empty.
  static const size_t sizes[] = {0, 1, 8, 9, 63};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    uint8_t v[64];
    for (size_t j = 0; j < sizes[i]; j++)
      v[j] = (uint8_t)(j * 7 + i);
    ck_assert_int_eq(keep_set(c, k, kl, v, sizes[i], 0), 0);
    ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
    ck_assert_uint_eq(len, sizes[i]);
    ck_assert_mem_eq(buf, v, sizes[i]);
  }
  ck_assert_int_eq(keep_get(c, buf, 10, &len, k, kl), -ENOBUFS);
  ck_assert_uint_eq(len, 63);
  ck_assert_int_eq(keep_set_nx(c, k, kl, "x", 1, 0), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_del(c, k, kl), 0);
  ck_assert_int_eq(keep_del(c, k, kl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_set_nx(c, k, kl, "x", 1, 0), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_uint_eq(len, 1);
  // Client-side limits.
  char big[300];
  memset(big, 'k', sizeof big);
  ck_assert_int_eq(keep_set(c, big, 251, "x", 1, 0), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, big, 0), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_set(c, big, 250, "y", 1, 0), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, big, 250), 0);
  keep_client_free(c);
}
END_TEST

START_TEST(large_values_round_trip) {
  keep_client *c = connect_client(0);
  size_t n = KEEP_MAX_VALUE_LEN;
  uint8_t *v = malloc(n), *out = malloc(n);
  ck_assert_ptr_nonnull(v);
  ck_assert_ptr_nonnull(out);
  for (size_t i = 0; i < n; i++)
    v[i] = (uint8_t)(i * 31 + (i >> 8));
  char k[64];
  size_t kl = unique_key(k, sizeof k, "big");
  size_t len;
  ck_assert_int_eq(keep_set(c, k, kl, v, n, 0), 0);
  ck_assert_int_eq(keep_get(c, out, n, &len, k, kl), 0);
  ck_assert_uint_eq(len, n);
  ck_assert(memcmp(out, v, n) == 0);
  ck_assert_int_eq(keep_set(c, k, kl, v, 5000, 0), 0);
  ck_assert_int_eq(keep_get(c, out, n, &len, k, kl), 0);
  ck_assert_uint_eq(len, 5000);
  ck_assert(memcmp(out, v, 5000) == 0);
  free(v);
  free(out);
  keep_client_free(c);
}
END_TEST

START_TEST(ttl_expiry) {
  keep_client *c = connect_client(0);
  char k[64], k2[64], k3[64];
  size_t kl = unique_key(k, sizeof k, "ttl"), kl2 = unique_key(k2, sizeof k2, "ttl"),
         kl3 = unique_key(k3, sizeof k3, "ttl");
  uint8_t buf[16];
  size_t len;
  // TTLs of 400 ms: long enough that a loaded machine does not expire a key
  // between two calls, short enough for the suite.
  ck_assert_int_eq(keep_set(c, k, kl, "short", 5, 400), 0);
  ck_assert_int_eq(keep_set(c, k2, kl2, "forever", 7, 0), 0);
  ck_assert_int_eq(keep_set(c, k3, kl3, "renewed", 7, 400), 0);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_int_eq(keep_expire(c, k2, kl2, 400), 0);
  ck_assert_int_eq(keep_expire(c, k3, kl3, 0), 0); // persist
  keepd_sleep_ms(700);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k2, kl2), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k3, kl3), 0);
  ck_assert_int_eq(keep_expire(c, k, kl, 10), KEEP_ERR_NOT_FOUND);
  // An expired key is absent for set-if-absent too.
  ck_assert_int_eq(keep_set_nx(c, k, kl, "again", 5, 0), 0);
  // A counter created with a TTL keeps it across increments.
  char kc[64];
  size_t klc = unique_key(kc, sizeof kc, "rate");
  int64_t v;
  ck_assert_int_eq(keep_incr(c, &v, kc, klc, 1, 400), 0);
  ck_assert_int_eq(v, 1);
  ck_assert_int_eq(keep_incr(c, &v, kc, klc, 1, 100000), 0);
  ck_assert_int_eq(v, 2);
  keepd_sleep_ms(700);
  ck_assert_int_eq(keep_incr(c, &v, kc, klc, 1, 0), 0);
  ck_assert_int_eq(v, 1);
  keep_client_free(c);
}
END_TEST

START_TEST(counters) {
  keep_client *c = connect_client(0);
  char k[64];
  size_t kl = unique_key(k, sizeof k, "ctr");
  int64_t v = 0;
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 5, 0), 0);
  ck_assert_int_eq(v, 5);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, -7, 0), 0);
  ck_assert_int_eq(v, -2);
  uint8_t buf[16];
  size_t len;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), 0);
  ck_assert_uint_eq(len, 8);
  int64_t le = 0;
  for (int i = 7; i >= 0; i--)
    le = (int64_t)((uint64_t)le << 8 | buf[i]);
  ck_assert_int_eq(le, -2);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, INT64_MAX, 0), 0);
  ck_assert_int_eq(v, INT64_MAX - 2);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 3, 0), KEEP_ERR_OVERFLOW);
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 0, 0), 0);
  ck_assert_int_eq(v, INT64_MAX - 2);
  char kv[64];
  size_t klv = unique_key(kv, sizeof kv, "val");
  ck_assert_int_eq(keep_set(c, kv, klv, "text", 4, 0), 0);
  ck_assert_int_eq(keep_incr(c, &v, kv, klv, 1, 0), KEEP_ERR_WRONG_TYPE);
  keep_client_free(c);
}
END_TEST

struct incr_arg {
  char key[64];
  size_t key_len;
  int rounds;
  int failures;
};

static void *incr_thread(void *p) {
  struct incr_arg *a = p;
  keep_client *c = connect_client(0);
  for (int i = 0; i < a->rounds; i++)
    if (keep_incr(c, NULL, a->key, a->key_len, 1, 0) != 0)
      a->failures++;
  keep_client_free(c);
  return NULL;
}

START_TEST(increments_from_many_threads_are_exact) {
  enum { THREADS = 8, ROUNDS = 1500 };
  struct incr_arg a[THREADS];
  char k[64];
  size_t kl = unique_key(k, sizeof k, "many");
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    memcpy(a[i].key, k, kl);
    a[i].key_len = kl;
    a[i].rounds = ROUNDS;
    a[i].failures = 0;
    ck_assert_int_eq(pthread_create(&th[i], NULL, incr_thread, &a[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(a[i].failures, 0);
  }
  keep_client *c = connect_client(0);
  int64_t v;
  ck_assert_int_eq(keep_incr(c, &v, k, kl, 0, 0), 0);
  ck_assert_int_eq(v, THREADS * ROUNDS);
  keep_client_free(c);
}
END_TEST

START_TEST(lock_answers) {
  keep_client *c = connect_client(0);
  char k[64];
  size_t kl = unique_key(k, sizeof k, "lock");
  uint64_t before = keepd_test_now_ns(), deadline = 0;
  ck_assert_int_eq(keep_lock(c, &deadline, k, kl, "a", 1, 1000), 0);
  // Counted from the moment the request was sent, minus the drift margin.
  ck_assert_uint_ge(deadline, before + 900 * 1000000ull);
  ck_assert_uint_le(deadline, keepd_test_now_ns() + 1000 * 1000000ull);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "b", 1, 1000), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "a", 1, 1000), 0); // renew
  ck_assert_int_eq(keep_unlock(c, k, kl, "b", 1), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_extend(c, NULL, k, kl, "b", 1, 100), KEEP_ERR_EXISTS);
  ck_assert_int_eq(keep_extend(c, &deadline, k, kl, "a", 1, 400), 0);
  uint8_t buf[8];
  size_t len;
  ck_assert_int_eq(keep_get(c, buf, sizeof buf, &len, k, kl), KEEP_ERR_WRONG_TYPE);
  ck_assert_int_eq(keep_expire(c, k, kl, 5), KEEP_ERR_WRONG_TYPE);
  // The extended lease (400 ms) runs out; then another holder gets it.
  keepd_sleep_ms(700);
  ck_assert_int_eq(keep_extend(c, NULL, k, kl, "a", 1, 100), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "b", 1, 1000), 0);
  ck_assert_int_eq(keep_unlock(c, k, kl, "b", 1), 0);
  ck_assert_int_eq(keep_unlock(c, k, kl, "b", 1), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "", 0, 1000), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "a", 1, 0), KEEP_ERR_INVALID_ARGUMENT);
  // Longer than the server's longest lease (60 s by default).
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "a", 1, 3600000), KEEP_ERR_INVALID_ARGUMENT);
  // A value key is not a lock.
  ck_assert_int_eq(keep_set(c, k, kl, "v", 1, 0), 0);
  ck_assert_int_eq(keep_lock(c, NULL, k, kl, "a", 1, 1000), KEEP_ERR_WRONG_TYPE);
  keep_client_free(c);
}
END_TEST

struct lock_arg {
  const char *lock, *data;
  int id, rounds, errors;
};

static void *lock_thread(void *p) {
  struct lock_arg *a = p;
  keep_client *c = connect_client(0);
  char holder[16];
  int hl = snprintf(holder, sizeof holder, "t%d", a->id);
  for (int i = 0; i < a->rounds; i++) {
    int rc;
    while ((rc = keep_lock(c, NULL, a->lock, strlen(a->lock), holder, (size_t)hl, 5000)) ==
           KEEP_ERR_EXISTS)
      keepd_sleep_ms(0);
    if (rc != 0) {
      a->errors++;
      continue;
    }
    // An unsynchronised read-modify-write: only the lock makes it safe.
    int64_t v = 0;
    size_t len;
    uint8_t buf[8];
    if (keep_get(c, buf, sizeof buf, &len, a->data, strlen(a->data)) == 0 && len == 8)
      memcpy(&v, buf, 8);
    v++;
    if (keep_set(c, a->data, strlen(a->data), &v, 8, 0) != 0)
      a->errors++;
    if (keep_unlock(c, a->lock, strlen(a->lock), holder, (size_t)hl) != 0)
      a->errors++;
  }
  keep_client_free(c);
  return NULL;
}

START_TEST(lock_exclusivity_no_lost_updates) {
  enum { THREADS = 6, ROUNDS = 150 };
  char lock[64], data[64];
  unique_key(lock, sizeof lock, "mutex");
  unique_key(data, sizeof data, "guarded");
  struct lock_arg a[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    a[i] = (struct lock_arg){lock, data, i, ROUNDS, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, lock_thread, &a[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(a[i].errors, 0);
  }
  keep_client *c = connect_client(0);
  int64_t v = 0;
  size_t len;
  ck_assert_int_eq(keep_get(c, &v, sizeof v, &len, data, strlen(data)), 0);
  ck_assert_int_eq(v, THREADS * ROUNDS);
  keep_client_free(c);
}
END_TEST

START_TEST(pubsub_sequence_and_heartbeats) {
  keep_client *sub = connect_client(0), *pub = connect_client(0);
  char t[64];
  size_t tl = unique_key(t, sizeof t, "topic");
  size_t receivers = 99;
  ck_assert_int_eq(keep_publish(pub, &receivers, t, tl, "lost", 4), 0);
  ck_assert_uint_eq(receivers, 0);
  ck_assert_int_eq(keep_subscribe(sub, t, tl), 0);
  for (int i = 1; i <= 20; i++) {
    char p[16];
    int pl = snprintf(p, sizeof p, "ev%d", i);
    ck_assert_int_eq(keep_publish(pub, &receivers, t, tl, p, (size_t)pl), 0);
    ck_assert_uint_eq(receivers, 1);
  }
  keep_event ev;
  for (int i = 1; i <= 20; i++) {
    int rc;
    do
      rc = keep_next_event(sub, &ev, 1000);
    while (rc == 1 && ev.kind == KEEP_EVENT_HEARTBEAT && ev.missed == 0);
    ck_assert_int_eq(rc, 1);
    ck_assert_int_eq(ev.kind, KEEP_EVENT_MESSAGE);
    ck_assert_uint_eq(ev.seq, (uint64_t)i);
    ck_assert_uint_eq(ev.missed, 0);
    char p[16];
    int pl = snprintf(p, sizeof p, "ev%d", i);
    ck_assert_uint_eq(ev.payload_len, (size_t)pl);
    ck_assert_mem_eq(ev.payload, p, (size_t)pl);
    ck_assert_uint_eq(ev.topic_len, tl);
  }
  // Idle: heartbeats carry the last sequence number, typically every 30-40
  // ms (the median is checked: the scheduler of a loaded machine, not the
  // daemon, decides when a single one is read).
  uint64_t last = keepd_test_now_ns(), gaps[7];
  for (int i = 0; i < 7; i++) {
    ck_assert_int_eq(keep_next_event(sub, &ev, 1000), 1);
    uint64_t now = keepd_test_now_ns();
    ck_assert_int_eq(ev.kind, KEEP_EVENT_HEARTBEAT);
    ck_assert_uint_eq(ev.seq, 20);
    ck_assert_uint_eq(ev.missed, 0);
    gaps[i] = now - last;
    last = now;
  }
  ck_assert_uint_lt(keepd_median_ns(gaps, 7), 100 * 1000000ull);
  ck_assert_int_eq(keep_unsubscribe(sub, t, tl), 0);
  ck_assert_int_eq(keep_unsubscribe(sub, t, tl), KEEP_ERR_NOT_FOUND);
  ck_assert_int_eq(keep_publish(pub, &receivers, t, tl, "x", 1), 0);
  ck_assert_uint_eq(receivers, 0);
  keep_client_free(sub);
  keep_client_free(pub);
}
END_TEST

START_TEST(lost_events_show_as_gaps) {
  // A queue of 2 events: whatever arrives while the client waits for an
  // answer beyond that is dropped and must surface as missed events.
  keep_client *sub = connect_client(2), *pub = connect_client(0);
  char t[64];
  size_t tl = unique_key(t, sizeof t, "gappy");
  ck_assert_int_eq(keep_subscribe(sub, t, tl), 0);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(keep_publish(pub, NULL, t, tl, "e", 1), 0);
  keepd_sleep_ms(300);                 // time for the events to reach the subscriber's socket
  ck_assert_int_eq(keep_ping(sub), 0); // reads the events that came first
  keep_event ev;
  uint64_t seen = 0, missed = 0, top = 0;
  while (top < 10) {
    ck_assert_int_eq(keep_next_event(sub, &ev, 1000), 1);
    if (ev.kind == KEEP_EVENT_MESSAGE)
      seen++;
    missed += ev.missed;
    if (ev.seq > top)
      top = ev.seq;
  }
  // Every event is either seen or counted as missed; normally all 10 came
  // before the answer, so 2 were queued and 8 dropped.
  ck_assert_uint_eq(seen + missed, 10);
  ck_assert_uint_ge(seen, 2);
  ck_assert_uint_ge(missed, 1);
  keep_client_free(sub);
  keep_client_free(pub);
}
END_TEST

START_TEST(batches_pipeline) {
  keep_client *c = connect_client(0);
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  enum { N = 300 };
  char keys[N][32];
  size_t kl[N];
  for (int i = 0; i < N; i++) {
    kl[i] = unique_key(keys[i], sizeof keys[i], "batch");
    ck_assert_int_eq(keep_batch_set(b, keys[i], kl[i], keys[i], kl[i], 0), i);
  }
  ck_assert_int_eq(keep_batch_result(b, 0, NULL, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_batch_run(c, b), 0);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(keep_batch_result(b, (size_t)i, NULL, NULL, NULL), 0);
  keep_batch_reset(b);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(keep_batch_get(b, keys[i], kl[i]), 2 * i);
    ck_assert_int_eq(keep_batch_del(b, keys[i], kl[i]), 2 * i + 1);
  }
  ck_assert_int_eq(keep_batch_incr(b, "batch-ctr", 9, 4, 0), 2 * N);
  ck_assert_int_eq(keep_batch_run(c, b), 0);
  for (int i = 0; i < N; i++) {
    const uint8_t *v;
    size_t vl;
    ck_assert_int_eq(keep_batch_result(b, (size_t)(2 * i), NULL, &v, &vl), 0);
    ck_assert_uint_eq(vl, kl[i]);
    ck_assert_mem_eq(v, keys[i], vl);
    ck_assert_int_eq(keep_batch_result(b, (size_t)(2 * i + 1), NULL, NULL, NULL), 0);
  }
  int64_t num;
  ck_assert_int_eq(keep_batch_result(b, 2 * N, &num, NULL, NULL), 0);
  ck_assert_int_ge(num, 4);
  ck_assert_int_eq(keep_batch_result(b, 2 * N + 1, NULL, NULL, NULL), KEEP_ERR_INVALID_ARGUMENT);
  // Deleted: a second run of the same gets answers not-found.
  keep_batch_reset(b);
  ck_assert_int_eq(keep_batch_get(b, keys[0], kl[0]), 0);
  ck_assert_int_eq(keep_batch_run(c, b), 0);
  ck_assert_int_eq(keep_batch_result(b, 0, NULL, NULL, NULL), KEEP_ERR_NOT_FOUND);
  keep_batch_free(b);
  keep_batch_free(NULL);
  keep_client_free(c);
}
END_TEST

START_TEST(slot_matches_server_placement) {
  // Both shards must see keys: the slot splits them in halves.
  unsigned half[2] = {0, 0};
  for (int i = 0; i < 200; i++) {
    char k[16];
    int n = snprintf(k, sizeof k, "s%d", i);
    half[keep_slot(NULL, k, (size_t)n) >= KEEP_NUM_SLOTS / 2]++;
  }
  ck_assert_uint_gt(half[0], 50);
  ck_assert_uint_gt(half[1], 50);
}
END_TEST

int main(int argc, char **argv) {
  TCase *tc = tcase_create("client");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, settings_are_validated);
  tcase_add_test(tc, view_epoch_of_a_single_keepd);
  tcase_add_test(tc, values_set_get_del);
  tcase_add_test(tc, large_values_round_trip);
  tcase_add_test(tc, ttl_expiry);
  tcase_add_test(tc, counters);
  tcase_add_test(tc, increments_from_many_threads_are_exact);
  tcase_add_test(tc, lock_answers);
  tcase_add_test(tc, lock_exclusivity_no_lost_updates);
  tcase_add_test(tc, pubsub_sequence_and_heartbeats);
  tcase_add_test(tc, lost_events_show_as_gaps);
  tcase_add_test(tc, batches_pipeline);
  tcase_add_test(tc, slot_matches_server_placement);
  const char *extra[] = {"--shards", "2", NULL};
  return keepd_served_suite_main(argc, argv, &server, extra, "keep-client", tc);
}
