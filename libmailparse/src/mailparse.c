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
  };
  // Own codes count down from MP_ERR_INVALID_ARGUMENT; anything else is generic.
  long index = (long)MP_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *mp_version_string(void) {
  return MP_VERSION_STRING;
}
