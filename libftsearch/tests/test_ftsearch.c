// test_ftsearch.c: libftsearch's version and error reporting: the header
// macros, fts_version() and the generated pkg-config file agree, and every
// error code has its own description (the shared checks of corvid_libtest.h).
#include "corvid_libtest.h"
#include "ftsearch.h"

static const struct corvid_lib_error own_errors[] = {
    {FTS_ERR_INVALID_ARGUMENT, "invalid argument"},
    {FTS_ERR_NOTFOUND, "no such document"},
    {FTS_ERR_QUERY_SYNTAX, "malformed query"},
    {FTS_ERR_LIMIT, "a configured limit was exceeded"},
    {FTS_ERR_CORRUPT, "the index on disk is corrupt"},
    {FTS_ERR_UNSUPPORTED, "unsupported language, format or feature"},
};

int main(int argc, char **argv) {
  static const struct corvid_lib_info lib = {
      .name = "ftsearch",
      CORVID_LIB_INFO(FTS, fts),
      .block_top = -10500,
      .errors = own_errors,
      .num_errors = sizeof own_errors / sizeof own_errors[0],
  };
  return corvid_libtest_main(&lib, argc, argv);
}
