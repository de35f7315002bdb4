// keep.c: libkeep's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "keep.h"

#include "corvid_errtext.h"

unsigned keep_version(void) {
  return KEEP_VERSION_NUMBER;
}

const char *keep_strerror(int code) {
  static const char *const own[] = {
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_INVALID_ARGUMENT] = "invalid argument",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_PROTOCOL] = "protocol violation",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_BUSY] = "server busy, retry",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], KEEP_ERR_INVALID_ARGUMENT, code);
}

const char *keep_version_string(void) {
  return KEEP_VERSION_STRING;
}
