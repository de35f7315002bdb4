// test_msgcrypt.c: libmsgcrypt's version and error reporting: the header
// macros, mc_version() and the generated pkg-config file agree, and every
// error code has its own description (the shared checks of corvid_libtest.h).
#include "corvid_libtest.h"
#include "msgcrypt.h"

static const struct corvid_lib_error own_errors[] = {
    {MC_ERR_INVALID_ARGUMENT, "invalid argument"},
    {MC_ERR_UNSUPPORTED, "unsupported algorithm or format"},
    {MC_ERR_BAD_KEY, "key is malformed or unusable"},
    {MC_ERR_BAD_SIGNATURE, "signature is malformed or does not verify"},
    {MC_ERR_AUTH_FAILED, "authentication tag does not match"},
    {MC_ERR_BUFFER_TOO_SMALL, "output buffer too small"},
    {MC_ERR_BAD_CIPHERTEXT, "ciphertext is malformed"},
    {MC_ERR_SELFTEST, "a known-answer self-test failed"},
};

int main(int argc, char **argv) {
  static const struct corvid_lib_info lib = {
      .name = "msgcrypt",
      CORVID_LIB_INFO(MC, mc),
      .block_top = -10300,
      .errors = own_errors,
      .num_errors = sizeof own_errors / sizeof own_errors[0],
  };
  return corvid_libtest_main(&lib, argc, argv);
}
