// test_mailstore.c: libmailstore's version and error reporting: the header
// macros, ms_version() and the generated pkg-config file agree, and every
// error code has its own description (the shared checks of corvid_libtest.h).
#include "corvid_libtest.h"
#include "mailstore.h"

static const struct corvid_lib_error own_errors[] = {
    {MS_ERR_INVALID_ARGUMENT, "invalid argument"},
    {MS_ERR_NOTFOUND, "no such item"},
    {MS_ERR_EXISTS, "item already exists"},
    {MS_ERR_CORRUPT, "store is corrupt"},
    {MS_ERR_QUOTA, "account quota exceeded"},
    {MS_ERR_LIMIT, "a configured limit was exceeded"},
    {MS_ERR_SAMPLES, "too little stored mail to train a dictionary on"},
    {MS_ERR_EXPIRED, "changes since that state are no longer kept"},
};

int main(int argc, char **argv) {
  static const struct corvid_lib_info lib = {
      .name = "mailstore",
      CORVID_LIB_INFO(MS, ms),
      .block_top = -10400,
      .errors = own_errors,
      .num_errors = sizeof own_errors / sizeof own_errors[0],
  };
  return corvid_libtest_main(&lib, argc, argv);
}
