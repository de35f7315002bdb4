// test_store.c: keepd's per-shard store on its own: many keys through
// incremental table growth and probing past full buckets, deletes, lazy
// expiry to the millisecond and the sweep, changes made through a view
// surviving, the bytes a small key costs (measured from the store's own
// accounting, with 10 million keys), and the memory cap, whose accounting
// must return to where it started once the keys are gone.
#include <check.h>
#include <stdio.h>

#include "corvid_libtest.h"
#include "corvid_test_asan.h"
#include "keepd.h"

static const uint8_t secret[16] = {7};

#define MS(x) ((uint64_t)(x)*1000000u)

static keepd_entry *put(keepd_store *st, const char *key, size_t value_len, uint64_t expires) {
  size_t kl = strlen(key);
  uint64_t h = keep_key_hash(secret, (const uint8_t *)key, kl);
  keepd_entry *old = keepd_store_find(st, h, (const uint8_t *)key, kl, 1);
  keepd_entry *e = keepd_store_new_entry(st, h, (const uint8_t *)key, kl, value_len, 0);
  if (e == NULL)
    return NULL;
  e->kind = KIND_VALUE;
  e->expires_ns = expires;
  memset(keepd_entry_value(e), (int)kl, value_len);
  ck_assert_int_eq(keepd_store_put(st, e, old), 0);
  return e;
}

static keepd_entry *find(keepd_store *st, const char *key, uint64_t now) {
  size_t kl = strlen(key);
  uint64_t h = keep_key_hash(secret, (const uint8_t *)key, kl);
  return keepd_store_find(st, h, (const uint8_t *)key, kl, now);
}

START_TEST(many_keys_grow_find_delete) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 512u * 1024 * 1024), 0);
  enum { N = 30000 };
  char k[32];
  for (int i = 0; i < N; i++) {
    snprintf(k, sizeof k, "key-%d", i);
    ck_assert_ptr_nonnull(put(&st, k, (size_t)(i % 20), 0));
  }
  ck_assert_uint_eq(st.count, N);
  ck_assert_uint_gt(st.cur.n * 7, N); // it grew
  for (int i = 0; i < N; i++) {
    snprintf(k, sizeof k, "key-%d", i);
    keepd_entry *e = find(&st, k, 1);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->value_len, (uint32_t)(i % 20));
    ck_assert_uint_eq(e->key_len, strlen(k));
    ck_assert_mem_eq(e->key, k, strlen(k));
  }
  ck_assert_ptr_null(find(&st, "absent", 1));
  // Replacing keeps one entry per key.
  for (int i = 0; i < N; i += 3) {
    snprintf(k, sizeof k, "key-%d", i);
    ck_assert_ptr_nonnull(put(&st, k, 100, 0));
  }
  ck_assert_uint_eq(st.count, N);
  for (int i = 0; i < N; i += 2) {
    snprintf(k, sizeof k, "key-%d", i);
    keepd_store_remove(&st, find(&st, k, 1));
  }
  ck_assert_uint_eq(st.count, N / 2);
  for (int i = 0; i < N; i++) {
    snprintf(k, sizeof k, "key-%d", i);
    keepd_entry *e = find(&st, k, 1);
    if (i % 2 == 0)
      ck_assert_ptr_null(e);
    else
      ck_assert_ptr_nonnull(e);
  }
  keepd_store_cleanup(&st);
}
END_TEST

START_TEST(expiry_lazy_and_swept) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 64u * 1024 * 1024), 0);
  uint64_t base = st.used;
  char k[32];
  for (int i = 0; i < 2000; i++) {
    snprintf(k, sizeof k, "t-%d", i);
    // Short values stay in the slot, 50-byte ones go out of line.
    ck_assert_ptr_nonnull(put(&st, k, i % 2 ? 8 : 50, i < 1000 ? MS(100) : 0));
  }
  ck_assert_ptr_nonnull(find(&st, "t-5", MS(100) - 1));
  ck_assert_ptr_null(find(&st, "t-5", MS(100))); // lazily removed at its deadline
  ck_assert_uint_eq(st.count, 1999);
  // A deadline between milliseconds is rounded up, never down.
  ck_assert_ptr_nonnull(put(&st, "half", 8, MS(100) + 500000));
  ck_assert_uint_eq(find(&st, "half", MS(100) + 600000)->expires_ns, MS(101));
  ck_assert_ptr_nonnull(find(&st, "half", MS(101) - 1));
  ck_assert_ptr_null(find(&st, "half", MS(101)));
  // Changes made through a view are kept: a new deadline and a counter.
  keepd_entry *e = find(&st, "t-1500", MS(101));
  ck_assert_ptr_nonnull(e);
  e->expires_ns = MS(150);
  ck_assert_uint_eq(find(&st, "t-1500", MS(101))->expires_ns, MS(150));
  // A deadline 30 days ahead does not fit a slot and is still kept exactly.
  e = find(&st, "t-1502", MS(101));
  e->expires_ns = MS(101) + MS(30ull * 86400 * 1000);
  ck_assert_uint_eq(find(&st, "t-1502", MS(102))->expires_ns, MS(101) + MS(30ull * 86400 * 1000));
  find(&st, "t-1502", MS(102))->expires_ns = 0;
  size_t removed = 0;
  for (size_t i = 0; i < st.cur.n; i += 64)
    removed += keepd_store_sweep(&st, 64, MS(200));
  ck_assert_uint_eq(removed, 1000); // 999 and t-1500
  ck_assert_uint_eq(st.count, 999);
  for (int i = 1000; i < 2000; i++) {
    snprintf(k, sizeof k, "t-%d", i);
    if (i != 1500)
      keepd_store_remove(&st, find(&st, k, MS(200)));
  }
  ck_assert_uint_eq(st.count, 0);
  ck_assert_uint_eq(st.used, st.table_bytes);
  ck_assert_uint_ge(st.used, base);
  keepd_store_cleanup(&st);
}
END_TEST

// sweep_all runs the sweep once over the whole table at `now`.
static size_t sweep_all(keepd_store *st, uint64_t now) {
  size_t removed = 0;
  for (size_t i = 0; i < st->cur.n; i += 64)
    removed += keepd_store_sweep(st, 64, now);
  return removed;
}

// The sweep passes over records by the deadline kept in their slot: a
// deadline changed in place through a view (given, shortened, lengthened,
// taken away) must move that copy too, and a deadline too far ahead for the
// slot must neither be swept early nor be forgotten.
START_TEST(sweep_follows_record_deadlines) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 64u * 1024 * 1024), 0);
  const uint64_t day = MS(86400ull * 1000);
  // 50-byte values put every key out of line.
  ck_assert_ptr_nonnull(put(&st, "given", 50, 0));
  ck_assert_ptr_nonnull(put(&st, "shortened", 50, MS(1000)));
  ck_assert_ptr_nonnull(put(&st, "lengthened", 50, MS(300)));
  ck_assert_ptr_nonnull(put(&st, "taken", 50, MS(300)));
  ck_assert_ptr_nonnull(put(&st, "far", 50, 30 * day));
  find(&st, "given", MS(10))->expires_ns = MS(150);
  find(&st, "shortened", MS(10))->expires_ns = MS(150);
  find(&st, "lengthened", MS(10))->expires_ns = MS(10000);
  find(&st, "taken", MS(10))->expires_ns = 0;
  ck_assert_uint_eq(sweep_all(&st, MS(149)), 0);
  ck_assert_uint_eq(sweep_all(&st, MS(150)), 2); // given, shortened
  ck_assert_uint_eq(sweep_all(&st, MS(400)), 0);
  ck_assert_uint_eq(st.count, 3);
  ck_assert_uint_eq(sweep_all(&st, MS(10000)), 1); // lengthened
  // Past the 24 days a slot holds, "far" is read, kept and looked at again.
  ck_assert_uint_eq(sweep_all(&st, 25 * day), 0);
  ck_assert_uint_eq(sweep_all(&st, 29 * day), 0);
  ck_assert_ptr_nonnull(find(&st, "far", 30 * day - 1));
  ck_assert_uint_eq(sweep_all(&st, 30 * day), 1);
  ck_assert_uint_eq(sweep_all(&st, 60 * day), 0);
  ck_assert_uint_eq(st.count, 1);
  ck_assert_ptr_nonnull(find(&st, "taken", 60 * day));
  keepd_store_cleanup(&st);
}
END_TEST

// bytes_per_key stores `n` keys of 10 bytes with 8-byte values (with a
// deadline if `ttl`) and returns every byte the store holds (tables at
// their real load, records, a resize under way) divided by `n`.
static double bytes_per_key(size_t n, bool ttl, double *peak) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 4ull << 30), 0);
  char k[32];
  *peak = 0;
  for (size_t i = 0; i < n; i++) {
    if (i >= 100000 && i % 1000 == 0 && (double)st.used / (double)i > *peak)
      *peak = (double)st.used / (double)i;
    // New keys: no lookup first, as a shard does after a miss.
    int kl = snprintf(k, sizeof k, "k:%08zu", i);
    keepd_entry *e = keepd_store_new_entry(&st, 0, (const uint8_t *)k, (size_t)kl, 8, 0);
    ck_assert_ptr_nonnull(e);
    e->kind = KIND_VALUE;
    e->expires_ns = ttl ? MS(3600 * 1000) + 1 + i % 999999 : 0;
    memcpy(keepd_entry_value(e), &i, 8);
    ck_assert_int_eq(keepd_store_put(&st, e, NULL), 0);
  }
  ck_assert_uint_eq(st.count, n);
  double per_key = (double)st.used / (double)n;
  for (size_t i = 0; i < n; i += n / 1000) { // spot checks
    int kl = snprintf(k, sizeof k, "k:%08zu", i);
    keepd_entry *e = keepd_store_find(&st, 0, (const uint8_t *)k, (size_t)kl, 1);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->value_len, 8);
    ck_assert_mem_eq(keepd_entry_value(e), &i, 8);
    ck_assert_uint_eq(e->expires_ns, ttl ? MS(3600 * 1000 + 1) : 0);
  }
  printf("# %.1f bytes per key (%zu keys of 10 bytes, 8-byte values%s; %.0f%% of slots used; "
         "%.1f at most while a resize held both tables)\n",
         per_key, n, ttl ? ", deadlines" : "", 100.0 * (double)n / (double)(st.cur.n * 7), *peak);
  keepd_store_cleanup(&st);
  return per_key;
}

START_TEST(small_keys_cost_little) {
  // The goal of issue #10: at most 40 bytes for a small key with an 8-byte
  // value, everything counted. The 10-million-key figure comes from
  // tools/keep-bench (FILL) and the same fill here takes minutes on a loaded
  // machine, so the test fills 3 million keys (1 million under the
  // sanitizers) and 1 million (half a million) without deadlines; the load
  // factor cycles between 72% and 90% the same way at any count. While a
  // resize is under way both tables exist (about 5% of inserts): that peak
  // is bounded separately.
  size_t n = CORVID_UNDER_ASAN ? 1000000 : 3000000;
  double peak;
  ck_assert_double_le(bytes_per_key(n, true, &peak), 40.0);
  ck_assert_double_le(peak, 64.0);
  ck_assert_double_le(bytes_per_key(n / 2 > 1000000 ? 1000000 : n / 2, false, &peak), 40.0);
  ck_assert_double_le(peak, 64.0);
}
END_TEST

// The handoff's walk: every live key once, through a resize left half done
// and removals along the way; expired keys skipped; a cursor made before an
// insert refused.
START_TEST(walk_visits_each_key_once) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 256u * 1024 * 1024), 0);
  enum { NK = 5000 };
  char k[32];
  for (int i = 0; i < NK; i++) {
    snprintf(k, sizeof k, i % 4 ? "w-%d" : "walk-long-key-%d", i);
    ck_assert_ptr_nonnull(put(&st, k, (size_t)(i % 12), i % 10 == 0 ? MS(5) : 0));
  }
  static uint8_t seen[NK];
  memset(seen, 0, sizeof seen);
  uint64_t cursor = 0;
  keepd_entry *e;
  int rc, n = 0;
  while ((rc = keepd_store_next(&st, &cursor, MS(10), &e)) == 1) {
    char key[64];
    memcpy(key, e->key, e->key_len);
    key[e->key_len] = '\0';
    const char *num = strrchr(key, '-') + 1;
    int i = atoi(num);
    ck_assert_int_lt(i, NK);
    ck_assert_uint_eq(seen[i], 0);
    seen[i] = 1;
    ck_assert_uint_eq(e->value_len, (uint32_t)(i % 12));
    if (i % 7 == 0)
      keepd_store_remove(&st, e); // a removal leaves the walk intact
    n++;
  }
  ck_assert_int_eq(rc, 0);
  for (int i = 0; i < NK; i++)
    ck_assert_uint_eq(seen[i], i % 10 == 0 ? 0 : 1); // the expired ones skipped
  ck_assert_int_eq(n, NK - NK / 10);
  cursor = 0;
  ck_assert_int_eq(keepd_store_next(&st, &cursor, MS(10), &e), 1);
  ck_assert_ptr_nonnull(put(&st, "inserted", 3, 0));
  ck_assert_int_eq(keepd_store_next(&st, &cursor, MS(10), &e), -ESTALE);
  keepd_store_cleanup(&st);
}
END_TEST

START_TEST(memory_cap_is_enforced) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, 1024u * 1024), 0);
  uint64_t base = st.used;
  char k[32];
  int stored = 0;
  for (int i = 0; i < 1000; i++) {
    snprintf(k, sizeof k, "m-%d", i);
    if (put(&st, k, 4000, 0) == NULL)
      break;
    stored++;
  }
  ck_assert_int_gt(stored, 200);
  ck_assert_int_lt(stored, 256);
  ck_assert_uint_le(st.used, st.cap);
  for (int i = 0; i < stored; i++) {
    snprintf(k, sizeof k, "m-%d", i);
    keepd_store_remove(&st, find(&st, k, 1));
  }
  ck_assert_uint_eq(st.used, base);
  // Freed blocks are reused: the same keys fit again.
  for (int i = 0; i < stored; i++) {
    snprintf(k, sizeof k, "m-%d", i);
    ck_assert_ptr_nonnull(put(&st, k, 4000, 0));
  }
  keepd_store_cleanup(&st);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keepd-store");
  TCase *tc = tcase_create("store");
  tcase_set_timeout(tc, 100);
  tcase_add_test(tc, many_keys_grow_find_delete);
  tcase_add_test(tc, expiry_lazy_and_swept);
  tcase_add_test(tc, sweep_follows_record_deadlines);
  tcase_add_test(tc, small_keys_cost_little);
  tcase_add_test(tc, memory_cap_is_enforced);
  tcase_add_test(tc, walk_visits_each_key_once);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
