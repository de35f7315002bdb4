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
  };
  // Own codes count down from MC_ERR_INVALID_ARGUMENT; anything else is generic.
  long index = (long)MC_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *mc_version_string(void) {
  return MC_VERSION_STRING;
}
