// corvid_test_alloc_fault.h: makes the Nth heap allocation fail, so that a
// test can walk a library call through every out-of-memory path it has.
//
// The library's own code is redirected at link time, not through a hook:
// a test executable linked with the arguments in the top-level meson.build's
// `alloc_fault_link_args` (-Wl,--wrap=malloc and friends) has every call to
// malloc, calloc, realloc, strdup and aligned_alloc made from its objects and
// from the static libraries it links (our *_internal libraries) sent to the
// wrappers below. Shared libraries (libc's own callers, LMDB, zstd,
// BoringSSL, libmailparse when linked shared) are not redirected: their
// allocations neither count nor fail.
//
// Include this header in exactly one translation unit of such a test: it
// defines the wrappers. Test-only and private.
//
// The usual loop, as SQLite's malloc tests run it:
//
//   for (unsigned long n = 1;; n++) {
//     alloc_fault_arm(n);              // the nth allocation from here fails
//     int rc = operation_under_test();
//     bool fired = alloc_fault_fired();
//     alloc_fault_disarm();            // before any assertion allocates
//     if (!fired) { require(rc == 0, ...); break; }  // walked every path
//     require(rc == 0 || rc == -ENOMEM, ...);        // and the state is sound
//   }
//
// Only the one allocation fails; the ones after it succeed again, which is
// the harder case for recovery code (it must not assume that a failure
// persists). Counting is process-wide and atomic, so allocations of any
// thread count.
#ifndef CORVID_TEST_ALLOC_FAULT_H
#define CORVID_TEST_ALLOC_FAULT_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
char *__real_strdup(const char *s);
void *__real_aligned_alloc(size_t alignment, size_t size);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
char *__wrap_strdup(const char *s);
void *__wrap_aligned_alloc(size_t alignment, size_t size);

// 0 when disarmed; else the 1-based number of the allocation to fail.
static atomic_ulong alloc_fault_target;
static atomic_ulong alloc_fault_seen;
static atomic_bool alloc_fault_did_fire;

// alloc_fault_arm makes the nth allocation from now fail (n >= 1) and resets
// the count; n == 0 only counts.
static inline void alloc_fault_arm(unsigned long n) {
  atomic_store(&alloc_fault_target, 0);
  atomic_store(&alloc_fault_seen, 0);
  atomic_store(&alloc_fault_did_fire, false);
  atomic_store(&alloc_fault_target, n);
}

// alloc_fault_disarm stops failing; counting goes on.
static inline void alloc_fault_disarm(void) {
  atomic_store(&alloc_fault_target, 0);
}

// alloc_fault_fired says whether the armed allocation was reached.
static inline bool alloc_fault_fired(void) {
  return atomic_load(&alloc_fault_did_fire);
}

// alloc_fault_count is the number of allocations since the last arm.
static inline unsigned long alloc_fault_count(void) {
  return atomic_load(&alloc_fault_seen);
}

// alloc_fault_should_fail counts one allocation and says whether it fails.
static inline bool alloc_fault_should_fail(void) {
  unsigned long seen = atomic_fetch_add(&alloc_fault_seen, 1) + 1;
  unsigned long target = atomic_load(&alloc_fault_target);
  if (target == 0 || seen != target)
    return false;
  atomic_store(&alloc_fault_did_fire, true);
  errno = ENOMEM;
  return true;
}

void *__wrap_malloc(size_t size) {
  return alloc_fault_should_fail() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size) {
  return alloc_fault_should_fail() ? NULL : __real_calloc(count, size);
}

// A failed realloc leaves the old block where it was, as C says it must.
void *__wrap_realloc(void *ptr, size_t size) {
  return alloc_fault_should_fail() ? NULL : __real_realloc(ptr, size);
}

char *__wrap_strdup(const char *s) {
  return alloc_fault_should_fail() ? NULL : __real_strdup(s);
}

void *__wrap_aligned_alloc(size_t alignment, size_t size) {
  return alloc_fault_should_fail() ? NULL : __real_aligned_alloc(alignment, size);
}

#endif // CORVID_TEST_ALLOC_FAULT_H
