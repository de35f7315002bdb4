// test_store_oom.c: keepd's per-shard store with each of its heap
// allocations failing in turn (corvid_test_alloc_fault.h). The store
// allocates from the heap only for its tables (the first one, and each
// growth) and for the list of its arena's chunks (the first chunk, then
// every 16th); records and values come from those chunks. Each failure must
// give the documented error (-ENOMEM, or NULL from keepd_store_new_entry),
// leave every key as it was and the byte accounting where it was, and the
// next call must work. Lookups, removals, counters changed through a view
// and the sweep allocate nothing and are not walked.
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#include "corvid_test_alloc_fault.h"
#include "keepd.h"

// A store call allocates once or twice; the bound only stops a walk that
// never ends.
#define MAX_STEPS 50

#define MS(x) ((uint64_t)(x)*1000000u)
#define NOW MS(1000)
#define CAP (256u * 1024u * 1024u)
// Further ahead than a table slot holds (2^31 ms, about 24 days): such a
// deadline needs an out-of-line record.
#define FAR_TTL MS(30ull * 24 * 3600 * 1000)

static keepd_entry *find(keepd_store *st, const char *key) {
  return keepd_store_find(st, 0, (const uint8_t *)key, strlen(key), NOW);
}

// expect_value asserts that `key` holds a value of `len` bytes, each `fill`.
static void expect_value(keepd_store *st, const char *key, size_t len, uint8_t fill) {
  keepd_entry *e = find(st, key);
  require(e != NULL, "%s is gone", key);
  require(e->kind == KIND_VALUE && e->value_len == len, "%s: kind %u, %u bytes", key, e->kind,
          e->value_len);
  const uint8_t *v = keepd_entry_value(e);
  for (size_t i = 0; i < len; i++)
    require(v[i] == fill, "%s: byte %zu changed", key, i);
}

// put_value stores `len` bytes of `fill` under `key` with deadline
// `expires`, replacing what was there, with nothing armed.
static void put_value(keepd_store *st, const char *key, size_t len, uint8_t fill,
                      uint64_t expires) {
  size_t kl = strlen(key);
  keepd_entry *old = find(st, key);
  keepd_entry *e = keepd_store_new_entry(st, 0, (const uint8_t *)key, kl, len, 0);
  ck_assert_ptr_nonnull(e);
  e->kind = KIND_VALUE;
  e->expires_ns = expires;
  memset(keepd_entry_value(e), fill, len);
  ck_assert_int_eq(keepd_store_put(st, e, old), 0);
}

// A snapshot of what a failed call must not change.
struct books {
  size_t count;
  uint64_t used, table_bytes;
};

static struct books books_of(const keepd_store *st) {
  return (struct books){st->count, st->used, st->table_bytes};
}

static void expect_books(const keepd_store *st, struct books b, unsigned long n) {
  require(st->count == b.count, "allocation %lu: %zu keys, %zu before", n, st->count, b.count);
  require(st->used == b.used, "allocation %lu: %llu bytes used, %llu before", n,
          (unsigned long long)st->used, (unsigned long long)b.used);
  require(st->table_bytes == b.table_bytes, "allocation %lu: table bytes %llu, %llu before", n,
          (unsigned long long)st->table_bytes, (unsigned long long)b.table_bytes);
}

START_TEST(init_each_allocation) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keepd_store st;
    alloc_fault_arm(n);
    int rc = keepd_store_init(&st, CAP);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "init: %d", rc);
      put_value(&st, "k", 3, 'v', 0);
      expect_value(&st, "k", 3, 'v');
      keepd_store_cleanup(&st);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, init said %d", n, rc);
    require(st.used == 0 && st.cur.b == NULL, "allocation %lu: a failed init kept memory", n);
    keepd_store_cleanup(&st); // a shard cleans up whatever its init did
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// The kinds of key that need an out-of-line record, each stored into a new
// store, whose first record maps the arena's first chunk.
struct record_case {
  const char *name;
  const char *key;
  size_t value_len;
  size_t holder_len; // a lock
  uint64_t expires;
};

static const struct record_case record_cases[] = {
    {"a long key", "a-key-longer-than-a-slot-holds", 5, 0, 0},
    {"a long value", "k", 100, 0, 0},
    {"a long key and value with a deadline", "another-long-key", 40, 0, NOW + MS(5000)},
    {"a lock", "lock", 0, 6, NOW + MS(5000)},
};

START_TEST(new_record_each_allocation) {
  const struct record_case *rc_ = &record_cases[_i];
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, CAP), 0);
  put_value(&st, "other", 4, 'o', 0); // inline: costs no allocation
  struct books before = books_of(&st);
  size_t kl = strlen(rc_->key);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    alloc_fault_arm(n);
    keepd_entry *old = keepd_store_find(&st, 0, (const uint8_t *)rc_->key, kl, NOW);
    keepd_entry *e = keepd_store_new_entry(&st, 0, (const uint8_t *)rc_->key, kl, rc_->value_len,
                                           rc_->holder_len);
    int rc = -1;
    if (e != NULL) {
      e->kind = rc_->holder_len ? KIND_LOCK : KIND_VALUE;
      e->expires_ns = rc_->expires;
      memset(keepd_entry_value(e), 'r', rc_->value_len);
      memset(keepd_entry_holder(e), 'h', rc_->holder_len);
      rc = keepd_store_put(&st, e, old);
    }
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(e != NULL && rc == 0, "%s: new_entry %p, put %d", rc_->name, (void *)e, rc);
      break;
    }
    // The cap's answer, NULL, is new_entry's only way to fail.
    require(e == NULL, "%s: allocation %lu failed, new_entry gave an entry (put %d)", rc_->name, n,
            rc);
    require(find(&st, rc_->key) == NULL, "%s: allocation %lu: the key is there", rc_->name, n);
    expect_books(&st, before, n);
    expect_value(&st, "other", 4, 'o');
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  keepd_entry *e = find(&st, rc_->key);
  ck_assert_ptr_nonnull(e);
  ck_assert_uint_eq(e->value_len, rc_->value_len);
  ck_assert_uint_eq(e->holder_len, rc_->holder_len);
  ck_assert_uint_eq(st.count, before.count + 1);
  keepd_store_remove(&st, e);
  ck_assert_uint_eq(st.used, before.used); // every record byte comes back
  keepd_store_cleanup(&st);
}
END_TEST

// A short key with a deadline too far for its slot: keepd_store_new_entry
// hands out a view (no allocation), and keepd_store_put makes the record.
// Replacing a key must leave the old value when that fails.
START_TEST(far_deadline_put_each_allocation) {
  static const char *const keys[] = {"new", "replaced"};
  const char *key = keys[_i];
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, CAP), 0);
  put_value(&st, "replaced", 2, 'a', NOW + MS(10));
  struct books before = books_of(&st);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keepd_entry *old = find(&st, key);
    keepd_entry *e = keepd_store_new_entry(&st, 0, (const uint8_t *)key, strlen(key), 8, 0);
    require(e != NULL, "a view costs nothing");
    e->kind = KIND_VALUE;
    e->expires_ns = NOW + FAR_TTL;
    memset(keepd_entry_value(e), 'b', 8);
    alloc_fault_arm(n);
    int rc = keepd_store_put(&st, e, old);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "put: %d", rc);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, put said %d", n, rc);
    keepd_store_free_entry(&st, e); // still the caller's, as documented
    expect_books(&st, before, n);
    if (old != NULL) {
      expect_value(&st, key, 2, 'a');
      keepd_entry *kept = find(&st, key);
      require(kept->expires_ns == NOW + MS(10), "allocation %lu: the deadline moved", n);
    } else {
      require(find(&st, key) == NULL, "allocation %lu: the key is there", n);
    }
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  expect_value(&st, key, 8, 'b');
  keepd_entry *e = find(&st, key);
  ck_assert_uint_eq(e->expires_ns, NOW + FAR_TTL);
  keepd_store_cleanup(&st);
}
END_TEST

// The arena's list of chunks grows again at its 17th chunk: fill 16 with
// values of a whole chunk each, then walk a value that needs one more. Its
// record comes first, from a block freed for it, so a failure at the value
// must give the record back.
START_TEST(seventeenth_chunk_each_allocation) {
  enum { CHUNK = 2 * 1024 * 1024 };
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, CAP), 0);
  // A record of the size class of the walked key's ("last"), freed below.
  static const char spare[] = "spare-12345";
  put_value(&st, spare, 1, 's', 0);
  char key[32];
  int num_big = 0;
  for (; st.num_chunks < 16; num_big++) {
    snprintf(key, sizeof key, "big-%d", num_big);
    put_value(&st, key, CHUNK, (uint8_t)num_big, 0);
  }
  ck_assert_uint_eq(st.num_chunks, 16);
  ck_assert_uint_eq(st.chunks_cap, 16);
  keepd_store_remove(&st, find(&st, spare));
  struct books before = books_of(&st);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    alloc_fault_arm(n);
    keepd_entry *e = keepd_store_new_entry(&st, 0, (const uint8_t *)"last", 4, CHUNK, 0);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(e != NULL, "new_entry failed with nothing armed");
      e->kind = KIND_VALUE;
      memset(keepd_entry_value(e), 'z', CHUNK);
      ck_assert_int_eq(keepd_store_put(&st, e, NULL), 0);
      break;
    }
    require(e == NULL, "allocation %lu failed, new_entry gave an entry", n);
    expect_books(&st, before, n);
    require(find(&st, "last") == NULL, "allocation %lu: the key is there", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  ck_assert_uint_eq(st.num_chunks, 17);
  for (int i = 0; i < num_big; i++) {
    snprintf(key, sizeof key, "big-%d", i);
    expect_value(&st, key, CHUNK, (uint8_t)i);
  }
  expect_value(&st, "last", CHUNK, 'z');
  keepd_store_cleanup(&st);
}
END_TEST

// fill_to puts short inline keys "key-<i>" until the store holds `count`,
// each growth failing (allocation 1 of each put is the new table's):
// keepd_store_put still succeeds while the table has a free slot.
static void fill_to(keepd_store *st, size_t count, int *next) {
  char key[16];
  while (st->count < count) {
    snprintf(key, sizeof key, "key-%d", *next);
    keepd_entry *e = keepd_store_new_entry(st, 0, (const uint8_t *)key, strlen(key), 4, 0);
    ck_assert_ptr_nonnull(e);
    e->kind = KIND_VALUE;
    memcpy(keepd_entry_value(e), next, 4); // the key's number
    alloc_fault_arm(1);
    int rc = keepd_store_put(st, e, NULL);
    alloc_fault_disarm();
    require(rc == 0, "key %d: put %d with room left", *next, rc);
    (*next)++;
  }
}

static void expect_keys(keepd_store *st, int num) {
  char key[16];
  for (int i = 0; i < num; i++) {
    snprintf(key, sizeof key, "key-%d", i);
    keepd_entry *e = find(st, key);
    require(e != NULL, "%s is gone", key);
    require(memcmp(keepd_entry_value(e), &i, 4) == 0, "%s changed", key);
  }
}

// A table whose every slot is taken must grow to take one more key; when
// the new table cannot be had, the put fails and nothing else changes. The
// inserted entry is an inline key, a record made by put (far deadline) or
// one made by new_entry (long key).
START_TEST(full_table_growth_each_allocation) {
  static const struct {
    const char *key;
    uint64_t expires;
  } inserts[] = {{"short", 0}, {"far", NOW + FAR_TTL}, {"a-key-longer-than-a-slot", 0}};
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, CAP), 0);
  // A record first, so that the arena's first chunk is mapped and the only
  // allocation left in a put is the table's.
  put_value(&st, "a-record-of-the-arena", 1, 'r', 0);
  size_t slots = st.cur.n * 7;
  int next = 0;
  fill_to(&st, slots, &next);
  ck_assert_uint_eq(st.cur.n * 7, slots); // every growth failed
  ck_assert_ptr_null(st.old.b);
  struct books before = books_of(&st);
  const char *key = inserts[_i].key;
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keepd_entry *e = keepd_store_new_entry(&st, 0, (const uint8_t *)key, strlen(key), 8, 0);
    ck_assert_ptr_nonnull(e);
    e->kind = KIND_VALUE;
    e->expires_ns = inserts[_i].expires;
    memset(keepd_entry_value(e), 'i', 8);
    alloc_fault_arm(n);
    int rc = keepd_store_put(&st, e, NULL);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "put: %d", rc);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed in a full table, put said %d", n, rc);
    keepd_store_free_entry(&st, e);
    expect_books(&st, before, n);
    require(find(&st, key) == NULL, "allocation %lu: the key is there", n);
    require(st.old.b == NULL && st.cur.n * 7 == slots, "allocation %lu: the table changed", n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  ck_assert_uint_gt(st.cur.n * 7, slots);
  ck_assert_uint_eq(st.count, before.count + 1);
  expect_value(&st, key, 8, 'i');
  expect_value(&st, "a-record-of-the-arena", 1, 'r');
  expect_keys(&st, next);
  keepd_store_cleanup(&st);
}
END_TEST

// A deadline pushed through a view beyond what a slot holds moves the key
// out of line at the next store call; when that record cannot be had, the
// store cuts the deadline to the furthest a slot holds (keepd.h, flush in
// store.c) and keeps the key and its value.
START_TEST(far_deadline_through_a_view_each_allocation) {
  keepd_store st;
  ck_assert_int_eq(keepd_store_init(&st, CAP), 0);
  put_value(&st, "k", 8, 'v', NOW + MS(10));
  put_value(&st, "other", 1, 'o', 0);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    keepd_entry *e = find(&st, "k");
    ck_assert_ptr_nonnull(e);
    e->expires_ns = NOW + FAR_TTL;
    alloc_fault_arm(n);
    keepd_entry *o = find(&st, "other"); // writes the view of "k" back
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(o != NULL, "allocation %lu: another key is gone", n);
    expect_value(&st, "k", 8, 'v');
    e = find(&st, "k");
    if (!fired) {
      require(e->expires_ns == NOW + FAR_TTL, "deadline %llu", (unsigned long long)e->expires_ns);
      break;
    }
    require(e->expires_ns == NOW + MS(0x7fffffffull), "allocation %lu: deadline %llu", n,
            (unsigned long long)e->expires_ns);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  keepd_store_cleanup(&st);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keepd-store-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, init_each_allocation);
  tcase_add_loop_test(tc, new_record_each_allocation, 0,
                      (int)(sizeof record_cases / sizeof record_cases[0]));
  tcase_add_loop_test(tc, far_deadline_put_each_allocation, 0, 2);
  tcase_add_test(tc, seventeenth_chunk_each_allocation);
  tcase_add_loop_test(tc, full_table_growth_each_allocation, 0, 3);
  tcase_add_test(tc, far_deadline_through_a_view_each_allocation);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
