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
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_LIMIT] = "a configured limit was exceeded",
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_CORRUPT] = "the index on disk is corrupt",
      [FTS_ERR_INVALID_ARGUMENT - FTS_ERR_UNSUPPORTED] = "unsupported language, format or feature",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], FTS_ERR_INVALID_ARGUMENT, code);
}

const char *fts_version_string(void) {
  return FTS_VERSION_STRING;
}
