// mailstore.h: libmailstore, the LMDB message store.
//
// libmailstore keeps accounts, mailboxes and messages in one LMDB environment,
// with IMAP and JMAP semantics (UIDs, MODSEQ, changes, threads, quotas). Message
// bodies are stored as zstd-compressed blobs. It uses libmailparse to index
// messages on delivery.
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
// failure: -errno for OS and resource errors (-1 to -4095), MS_ERR_* for this
// library's own (MS_ERR_* codes lie in -10400 to -10499).
// ms_strerror() describes any of them.
#ifndef MS_MAILSTORE_H
#define MS_MAILSTORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MS_API __attribute__((visibility("default")))
#define MS_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define MS_API
#define MS_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libmailstore alone; it changes only when this library does.
// MS_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define MS_VERSION_MAJOR 0
#define MS_VERSION_MINOR 1
#define MS_VERSION_PATCH 0
#define MS_VERSION_STRING "0.1.0"
#define MS_VERSION_NUMBER (MS_VERSION_MAJOR * 10000 + MS_VERSION_MINOR * 100 + MS_VERSION_PATCH)

// ms_version returns the version of the library loaded at run time, as
// MS_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
MS_API unsigned ms_version(void);

// ms_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
MS_API const char *ms_version_string(void);

// Errors.

enum {
  MS_ERR_INVALID_ARGUMENT = -10400,
  MS_ERR_NOTFOUND = -10401,
  MS_ERR_EXISTS = -10402,
  MS_ERR_CORRUPT = -10403,
};

// ms_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MS_ERR_INVALID_ARGUMENT: invalid argument.
//   MS_ERR_NOTFOUND: no such item.
//   MS_ERR_EXISTS: item already exists.
//   MS_ERR_CORRUPT: store is corrupt.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MS_API const char *ms_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // MS_MAILSTORE_H
