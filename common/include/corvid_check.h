// corvid_check.h: assertions for the hot loops of Check-based tests.
// Test-only, private and header-only.
#ifndef CORVID_CHECK_H
#define CORVID_CHECK_H

#include <check.h>

// require asserts `cond` like ck_assert_msg, but records nothing when it
// holds: Check logs the place of every passing assertion to its parent
// process (a write(2) apiece), which in loops over every offset, length or
// byte pair costs more than the code under test, many times over under
// ASan. A failure fails the test with the message, as ck_assert_msg does.
#define require(cond, ...)                                                                         \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      ck_abort_msg(__VA_ARGS__);                                                                   \
  } while (0)

#endif // CORVID_CHECK_H
