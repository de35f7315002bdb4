// test_mailparse.c: libmailparse's version and error reporting: the header
// macros, mp_version() and the generated pkg-config file agree, and every
// error code has its own description (the shared checks of corvid_libtest.h).
#include "corvid_libtest.h"
#include "mailparse.h"

static const struct corvid_lib_error own_errors[] = {
    {MP_ERR_INVALID_ARGUMENT, "invalid argument"},
    {MP_ERR_SYNTAX, "malformed message"},
    {MP_ERR_LIMIT, "a parser limit was exceeded"},
    {MP_ERR_BUFFER_TOO_SMALL, "output buffer too small"},
    {MP_ERR_CHARSET, "unknown or unsupported charset"},
    {MP_ERR_ENCODING, "malformed transfer encoding"},
    {MP_ERR_UNSUPPORTED, "not supported by the selected implementation"},
};

int main(int argc, char **argv) {
  static const struct corvid_lib_info lib = {
      .name = "mailparse",
      CORVID_LIB_INFO(MP, mp),
      .block_top = -10200,
      .errors = own_errors,
      .num_errors = sizeof own_errors / sizeof own_errors[0],
  };
  return corvid_libtest_main(&lib, argc, argv);
}
