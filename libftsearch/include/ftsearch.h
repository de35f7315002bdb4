// ftsearch.h: libftsearch, full-text search engine with positions and phrases.
//
// libftsearch is a general full-text search engine over documents with fields:
// tokenizer, stems (Snowball), prefixes, positions, phrase and boolean queries,
// zstd-compressed postings in LMDB. It knows documents, not mail.
//
// Threading: unless a function's comment says otherwise, every function is
// safe to call from any thread; handles are not shared between threads
// without the caller's locking.
//
// Ownership: borrowing is the default. A function takes ownership only where
// its comment says so; pointers it returns are non-owning unless the function
// is named *_new or *_dup.
//
// Errors: functions return 0 (or a count) on success and a negative code on
// failure: -errno for OS and resource errors (-1 to -4095), FTS_ERR_* for this
// library's own (FTS_ERR_* codes lie in -10500 to -10599).
// fts_strerror() describes any of them.
#ifndef FTS_FTSEARCH_H
#define FTS_FTSEARCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FTS_API __attribute__((visibility("default")))
#define FTS_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define FTS_API
#define FTS_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libftsearch alone; it changes only when this library does.
// FTS_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define FTS_VERSION_MAJOR 0
#define FTS_VERSION_MINOR 1
#define FTS_VERSION_PATCH 0
#define FTS_VERSION_STRING "0.1.0"
#define FTS_VERSION_NUMBER (FTS_VERSION_MAJOR * 10000 + FTS_VERSION_MINOR * 100 + FTS_VERSION_PATCH)

// fts_version returns the version of the library loaded at run time, as
// FTS_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
FTS_API unsigned fts_version(void);

// fts_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
FTS_API const char *fts_version_string(void);

// Errors.

enum {
  FTS_ERR_INVALID_ARGUMENT = -10500,
  FTS_ERR_NOTFOUND = -10501,
  FTS_ERR_QUERY_SYNTAX = -10502,
  FTS_ERR_LIMIT = -10503,
  FTS_ERR_CORRUPT = -10504,
  FTS_ERR_UNSUPPORTED = -10505,
};

// fts_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   FTS_ERR_INVALID_ARGUMENT: invalid argument.
//   FTS_ERR_NOTFOUND: no such document.
//   FTS_ERR_QUERY_SYNTAX: malformed query.
//   FTS_ERR_LIMIT: a configured limit was exceeded.
//   FTS_ERR_CORRUPT: the index on disk is corrupt.
//   FTS_ERR_UNSUPPORTED: unsupported language, format or feature.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
FTS_API const char *fts_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // FTS_FTSEARCH_H
