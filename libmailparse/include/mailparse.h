// mailparse.h: libmailparse, zero-copy RFC 5322/MIME parser.
//
// libmailparse parses Internet messages (RFC 5322, MIME RFC 2045-2049) without
// copying them: a parsed message points into the caller's buffer. It uses
// libencodify to decode transfer encodings.
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
// failure: -errno for OS and resource errors (-1 to -4095), MP_ERR_* for this
// library's own (MP_ERR_* codes lie in -10200 to -10299).
// mp_strerror() describes any of them.
#ifndef MP_MAILPARSE_H
#define MP_MAILPARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MP_API __attribute__((visibility("default")))
#define MP_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define MP_API
#define MP_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libmailparse alone; it changes only when this library does.
// MP_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define MP_VERSION_MAJOR 0
#define MP_VERSION_MINOR 1
#define MP_VERSION_PATCH 0
#define MP_VERSION_STRING "0.1.0"
#define MP_VERSION_NUMBER (MP_VERSION_MAJOR * 10000 + MP_VERSION_MINOR * 100 + MP_VERSION_PATCH)

// mp_version returns the version of the library loaded at run time, as
// MP_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
MP_API unsigned mp_version(void);

// mp_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
MP_API const char *mp_version_string(void);

// Errors.

enum {
  MP_ERR_INVALID_ARGUMENT = -10200,
  MP_ERR_SYNTAX = -10201,
  MP_ERR_LIMIT = -10202,
  MP_ERR_BUFFER_TOO_SMALL = -10203,
  MP_ERR_CHARSET = -10204,
  MP_ERR_ENCODING = -10205,
};

// mp_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MP_ERR_INVALID_ARGUMENT: invalid argument.
//   MP_ERR_SYNTAX: malformed message.
//   MP_ERR_LIMIT: a parser limit was exceeded.
//   MP_ERR_BUFFER_TOO_SMALL: output buffer too small.
//   MP_ERR_CHARSET: unknown or unsupported charset.
//   MP_ERR_ENCODING: malformed transfer encoding.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MP_API const char *mp_strerror(int code);

// @@core@@

// @@typed@@

// @@charset@@

#ifdef __cplusplus
}
#endif

#endif // MP_MAILPARSE_H
