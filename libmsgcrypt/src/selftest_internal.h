// selftest_internal.h: the test hook of selftest.c, never installed. The
// self-test suite uses it to prove that every check of every self-test can
// fail; nothing else may call it.
#ifndef MC_SELFTEST_INTERNAL_H
#define MC_SELFTEST_INTERNAL_H

#include <limits.h>
#include <stddef.h>

// MC_SELFTEST_NO_CORRUPTION, as `corrupt_at`, corrupts nothing.
#define MC_SELFTEST_NO_CORRUPTION UINT_MAX

// mc_selftest_run_checked is mc_selftest_run(`i`) with one check corrupted:
// check number `corrupt_at` (counting from 0 in the order the self-test runs
// them) compares against its expected value with one byte flipped, or
// expects another status than the right one, so that the self-test must
// fail there. When `out_num_checks` is not NULL it receives how many checks
// ran. Results as for mc_selftest_run. Thread-safe: the corruption travels
// in a local, never in a global.
int mc_selftest_run_checked(size_t i, unsigned corrupt_at, unsigned *out_num_checks);

#endif // MC_SELFTEST_INTERNAL_H
