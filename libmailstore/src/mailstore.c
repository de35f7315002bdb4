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
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_QUOTA] = "account quota exceeded",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_LIMIT] = "a configured limit was exceeded",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_SAMPLES] =
          "too little stored mail to train a dictionary on",
      [MS_ERR_INVALID_ARGUMENT - MS_ERR_EXPIRED] = "changes since that state are no longer kept",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], MS_ERR_INVALID_ARGUMENT, code);
}

const char *ms_version_string(void) {
  return MS_VERSION_STRING;
}
