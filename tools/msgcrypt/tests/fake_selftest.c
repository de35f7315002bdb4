// fake_selftest.c: stands in for libmsgcrypt's self-test table when the
// msgcrypt command is linked for its test of failure output: three
// self-tests, one passing, one failing and one not available on this CPU,
// so that the test sees the FAIL and skip lines and exit status 1 that a
// working library never produces. Linked before the static library, it
// keeps the linker from pulling in selftest.c.
#include "msgcrypt.h"

static const char *const names[] = {"Fake-OK", "Fake-FAIL", "Fake-SKIP"};
static const int results[] = {0, MC_ERR_SELFTEST, MC_ERR_UNSUPPORTED};

size_t mc_selftest_count(void) {
  return 3;
}

const char *mc_selftest_name(size_t i) {
  return i < 3 ? names[i] : NULL;
}

const char *mc_selftest_detail(size_t i) {
  return i < 3 ? "fake" : NULL;
}

int mc_selftest_run(size_t i) {
  return i < 3 ? results[i] : MC_ERR_INVALID_ARGUMENT;
}
