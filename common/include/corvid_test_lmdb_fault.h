// corvid_test_lmdb_fault.h: makes the Nth LMDB read fail, as a damaged page
// does, so that a test can walk a library call through every read error it
// can meet.
//
// A test executable linked with the top-level meson.build's
// `lmdb_fault_link_args` (-Wl,--wrap=mdb_cursor_get and -Wl,--wrap=mdb_get)
// has every read that its objects and the static libraries it links make
// sent to the wrappers below. LMDB's own internal reads are not redirected.
// A failed read returns MDB_PAGE_NOTFOUND, what LMDB answers when a page it
// follows is not where the tree says.
//
// Include this header in exactly one translation unit of such a test: it
// defines the wrappers. Test-only and private.
//
//   lmdb_fault_arm(n, false);          // the nth read from here fails once
//   int rc = operation_under_test();
//   bool fired = lmdb_fault_disarm();  // false: the call made fewer reads
//
// A lasting fault (stays = true) fails every read from the nth on, as a
// damaged page does each time the code tries again: a fault that fails once
// can be absorbed by a retry, and a lasting one checks that nothing is
// stored on the way out. The one-shot fault is the one that finds a read
// error taken for "not found": the reads after it succeed, so the call can
// go on to a wrong answer.
#ifndef CORVID_TEST_LMDB_FAULT_H
#define CORVID_TEST_LMDB_FAULT_H

#include <lmdb.h>
#include <stdatomic.h>
#include <stdbool.h>

int __real_mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int __real_mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);
int __wrap_mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op);
int __wrap_mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data);

// Which kind of read the armed fault met first.
enum lmdb_fault_read { LMDB_FAULT_NONE, LMDB_FAULT_CURSOR_GET, LMDB_FAULT_GET };

// 0 when disarmed; else the 1-based number of the read to fail.
static atomic_ulong lmdb_fault_target;
static atomic_int lmdb_fault_first;
static atomic_ulong lmdb_fault_seen;
static atomic_bool lmdb_fault_stays;

// lmdb_fault_arm makes the nth read from now fail (n >= 1) and, with stays,
// every read after it; it resets the count.
static inline void lmdb_fault_arm(unsigned long n, bool stays) {
  atomic_store(&lmdb_fault_target, 0);
  atomic_store(&lmdb_fault_seen, 0);
  atomic_store(&lmdb_fault_stays, stays);
  atomic_store(&lmdb_fault_first, LMDB_FAULT_NONE);
  atomic_store(&lmdb_fault_target, n);
}

// lmdb_fault_disarm stops failing and says whether the armed read was
// reached.
static inline bool lmdb_fault_disarm(void) {
  unsigned long target = atomic_exchange(&lmdb_fault_target, 0);
  return target != 0 && atomic_load(&lmdb_fault_seen) >= target;
}

// lmdb_fault_first_failed says which kind of read failed first since the
// last arm: a cursor step (mdb_cursor_get) or a point read (mdb_get).
static inline enum lmdb_fault_read lmdb_fault_first_failed(void) {
  return (enum lmdb_fault_read)atomic_load(&lmdb_fault_first);
}

// lmdb_fault_count is the number of reads counted since the last arm.
static inline unsigned long lmdb_fault_count(void) {
  return atomic_load(&lmdb_fault_seen);
}

// lmdb_fault_should_fail counts one read and says whether it fails.
// Nothing counts while disarmed.
static inline bool lmdb_fault_should_fail(enum lmdb_fault_read kind) {
  unsigned long target = atomic_load(&lmdb_fault_target);
  if (target == 0)
    return false;
  unsigned long seen = atomic_fetch_add(&lmdb_fault_seen, 1) + 1;
  if (seen == target)
    atomic_store(&lmdb_fault_first, kind);
  return seen == target || (seen > target && atomic_load(&lmdb_fault_stays));
}

int __wrap_mdb_cursor_get(MDB_cursor *cursor, MDB_val *key, MDB_val *data, MDB_cursor_op op) {
  if (lmdb_fault_should_fail(LMDB_FAULT_CURSOR_GET))
    return MDB_PAGE_NOTFOUND;
  return __real_mdb_cursor_get(cursor, key, data, op);
}

int __wrap_mdb_get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data) {
  if (lmdb_fault_should_fail(LMDB_FAULT_GET))
    return MDB_PAGE_NOTFOUND;
  return __real_mdb_get(txn, dbi, key, data);
}

#endif // CORVID_TEST_LMDB_FAULT_H
