// mailparse.c: libmailparse's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "mailparse.h"

#include "corvid_errtext.h"

unsigned mp_version(void) {
  return MP_VERSION_NUMBER;
}

const char *mp_strerror(int code) {
  static const char *const own[] = {
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_INVALID_ARGUMENT] = "invalid argument",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_SYNTAX] = "malformed message",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_LIMIT] = "a parser limit was exceeded",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_BUFFER_TOO_SMALL] = "output buffer too small",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_CHARSET] = "unknown or unsupported charset",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_ENCODING] = "malformed transfer encoding",
      [MP_ERR_INVALID_ARGUMENT - MP_ERR_UNSUPPORTED] =
          "not supported by the selected implementation",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], MP_ERR_INVALID_ARGUMENT, code);
}

const char *mp_version_string(void) {
  return MP_VERSION_STRING;
}
