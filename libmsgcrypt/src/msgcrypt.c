// msgcrypt.c: libmsgcrypt's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "msgcrypt.h"

#include "corvid_errtext.h"

unsigned mc_version(void) {
  return MC_VERSION_NUMBER;
}

const char *mc_strerror(int code) {
  static const char *const own[] = {
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_INVALID_ARGUMENT] = "invalid argument",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_UNSUPPORTED] = "unsupported algorithm or format",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_BAD_KEY] = "key is malformed or unusable",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_BAD_SIGNATURE] =
          "signature is malformed or does not verify",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_AUTH_FAILED] = "authentication tag does not match",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_BUFFER_TOO_SMALL] = "output buffer too small",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_BAD_CIPHERTEXT] = "ciphertext is malformed",
      [MC_ERR_INVALID_ARGUMENT - MC_ERR_SELFTEST] = "a known-answer self-test failed",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], MC_ERR_INVALID_ARGUMENT, code);
}

const char *mc_version_string(void) {
  return MC_VERSION_STRING;
}
