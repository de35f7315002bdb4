// keep.h: libkeep, client of keepd, the in-memory cluster coordinator.
//
// libkeep is the client of keepd: key-value with TTL, counters, leases and
// locks, publish/subscribe and cluster placement, over a binary protocol whose
// codec it shares with servers/keepd. TLS goes through BoringSSL's libssl.
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
// failure: -errno for OS and resource errors (-1 to -4095), KEEP_ERR_* for this
// library's own (KEEP_ERR_* codes lie in -10600 to -10699).
// keep_strerror() describes any of them.
#ifndef KEEP_KEEP_H
#define KEEP_KEEP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KEEP_API __attribute__((visibility("default")))
#define KEEP_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define KEEP_API
#define KEEP_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libkeep alone; it changes only when this library does.
// KEEP_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define KEEP_VERSION_MAJOR 0
#define KEEP_VERSION_MINOR 1
#define KEEP_VERSION_PATCH 0
#define KEEP_VERSION_STRING "0.1.0"
#define KEEP_VERSION_NUMBER                                                                        \
  (KEEP_VERSION_MAJOR * 10000 + KEEP_VERSION_MINOR * 100 + KEEP_VERSION_PATCH)

// keep_version returns the version of the library loaded at run time, as
// KEEP_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
KEEP_API unsigned keep_version(void);

// keep_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
KEEP_API const char *keep_version_string(void);

// Errors.

enum {
  KEEP_ERR_INVALID_ARGUMENT = -10600,
  KEEP_ERR_PROTOCOL = -10601,
  KEEP_ERR_BUSY = -10602,
};

// keep_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   KEEP_ERR_INVALID_ARGUMENT: invalid argument.
//   KEEP_ERR_PROTOCOL: protocol violation.
//   KEEP_ERR_BUSY: server busy, retry.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
KEEP_API const char *keep_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // KEEP_KEEP_H
