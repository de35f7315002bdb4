// corvid_test_faults.h: one walk, three kinds of failure. A test that walks
// a library call through its failures (the 1st, 2nd, ... failing until a
// run reaches none) names the kind and arms it here: an allocation
// (corvid_test_alloc_fault.h), an LMDB read that fails once, or one that
// keeps failing from the nth on (corvid_test_lmdb_fault.h). The test links
// with both alloc_fault_link_args and lmdb_fault_link_args, and includes
// this header in exactly one translation unit. Test-only and private.
//
// What a failing call must return is the library's own (-ENOMEM, or its
// "corrupt" code for a read), so the test supplies that.
#ifndef CORVID_TEST_FAULTS_H
#define CORVID_TEST_FAULTS_H

#include <stdbool.h>

#include "corvid_test_alloc_fault.h"
#include "corvid_test_lmdb_fault.h"

enum test_fault { FAULT_ALLOC, FAULT_READ, FAULT_READ_STAYS, FAULT_KINDS };

static const char *const test_fault_name[FAULT_KINDS] = {"allocation", "read", "lasting read"};

// test_fault_arm makes the nth allocation or LMDB read from now fail.
static inline void test_fault_arm(enum test_fault kind, unsigned long n) {
  if (kind == FAULT_ALLOC)
    alloc_fault_arm(n);
  else
    lmdb_fault_arm(n, kind == FAULT_READ_STAYS);
}

// test_fault_disarm ends the failure and says whether the call met it.
static inline bool test_fault_disarm(enum test_fault kind) {
  if (kind != FAULT_ALLOC)
    return lmdb_fault_disarm();
  bool fired = alloc_fault_fired();
  alloc_fault_disarm();
  return fired;
}

#endif // CORVID_TEST_FAULTS_H
