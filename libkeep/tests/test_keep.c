// test_keep.c: libkeep's version and error reporting: the header
// macros, keep_version() and the generated pkg-config file agree, and every
// error code has its own description (the shared checks of corvid_libtest.h).
#include "corvid_libtest.h"
#include "keep.h"

static const struct corvid_lib_error own_errors[] = {
    {KEEP_ERR_INVALID_ARGUMENT, "invalid argument"},
    {KEEP_ERR_PROTOCOL, "protocol violation"},
    {KEEP_ERR_BUSY, "server busy, retry"},
    {KEEP_ERR_NOT_FOUND, "key not found"},
    {KEEP_ERR_EXISTS, "key exists or lock held by another holder"},
    {KEEP_ERR_NOT_YET, "lock quarantine, retry later"},
    {KEEP_ERR_MOVED, "key belongs to another member"},
    {KEEP_ERR_SERVER, "server error"},
    {KEEP_ERR_OUT_OF_MEMORY, "server memory cap reached"},
    {KEEP_ERR_WRONG_TYPE, "key holds another type"},
    {KEEP_ERR_TOO_LARGE, "key or value too large"},
    {KEEP_ERR_TIMEOUT, "timed out"},
    {KEEP_ERR_CLOSED, "connection closed"},
    {KEEP_ERR_OVERFLOW, "counter overflow"},
};

int main(int argc, char **argv) {
  static const struct corvid_lib_info lib = {
      .name = "keep",
      CORVID_LIB_INFO(KEEP, keep),
      .block_top = -10600,
      .errors = own_errors,
      .num_errors = sizeof own_errors / sizeof own_errors[0],
  };
  return corvid_libtest_main(&lib, argc, argv);
}
