// ftsearch.c: libftsearch's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "ftsearch.h"

#include "corvid_errtext.h"

unsigned fts_version(void) {
  return FTS_VERSION_NUMBER;
}

const char *fts_strerror(int code) {
  static const char *const own[] = {
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_INVALID_ARGUMENT] = "invalid argument",
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_NOTFOUND] = "no such document",
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_QUERY_SYNTAX] = "malformed query",
  };
  // Own codes count down from FTS_ERR_INVALID_ARGUMENT; anything else is generic.
  long index = (long)FTS_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *fts_version_string(void) {
  return FTS_VERSION_STRING;
}
