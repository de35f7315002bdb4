// mailstore.c: libmailstore's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "mailstore.h"

#include "corvid_errtext.h"

unsigned ms_version(void) {
  return MS_VERSION_NUMBER;
}

const char *ms_strerror(int code) {
  static const char *const own[] = {
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_INVALID_ARGUMENT] = "invalid argument",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_NOTFOUND] = "no such item",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_EXISTS] = "item already exists",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_CORRUPT] = "store is corrupt",
  };
  // Own codes count down from MS_ERR_INVALID_ARGUMENT; anything else is generic.
  long index = (long)MS_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *ms_version_string(void) {
  return MS_VERSION_STRING;
}
