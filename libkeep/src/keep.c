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
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_NOT_FOUND] = "key not found",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_EXISTS] = "key exists or lock held by another holder",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_NOT_YET] = "lock quarantine, retry later",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_MOVED] = "key belongs to another member",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_SERVER] = "server error",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_OUT_OF_MEMORY] = "server memory cap reached",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_WRONG_TYPE] = "key holds another type",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_TOO_LARGE] = "key or value too large",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_TIMEOUT] = "timed out",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_CLOSED] = "connection closed",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_OVERFLOW] = "counter overflow",
      [KEEP_ERR_INVALID_ARGUMENT - KEEP_ERR_TLS] = "TLS handshake failed or peer key not pinned",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], KEEP_ERR_INVALID_ARGUMENT, code);
}

const char *keep_version_string(void) {
  return KEEP_VERSION_STRING;
}
