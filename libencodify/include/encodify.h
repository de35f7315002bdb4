// encodify.h: libencodify, SIMD Base64, Base32, quoted-printable, IMAP UTF-7 and hex codecs.
//
// libencodify converts between binary data and the text encodings that e-mail
// uses: Base64 (standard, URL-safe, MIME-wrapped), Base32, quoted-printable (body
// and RFC 2047 "Q"), IMAP modified UTF-7 and hex. It depends on the C library
// only.
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
// failure: -errno for OS and resource errors (-1 to -4095), ENC_ERR_* for this
// library's own (ENC_ERR_* codes lie in -10100 to -10199).
// enc_strerror() describes any of them.
#ifndef ENC_ENCODIFY_H
#define ENC_ENCODIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ENC_API __attribute__((visibility("default")))
#define ENC_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define ENC_API
#define ENC_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libencodify alone; it changes only when this library does.
// ENC_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define ENC_VERSION_MAJOR 0
#define ENC_VERSION_MINOR 1
#define ENC_VERSION_PATCH 0
#define ENC_VERSION_STRING "0.1.0"
#define ENC_VERSION_NUMBER (ENC_VERSION_MAJOR * 10000 + ENC_VERSION_MINOR * 100 + ENC_VERSION_PATCH)

// enc_version returns the version of the library loaded at run time, as
// ENC_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
ENC_API unsigned enc_version(void);

// enc_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
ENC_API const char *enc_version_string(void);

// Errors.

enum {
  ENC_ERR_INVALID_ARGUMENT = -10100,
  ENC_ERR_UNSUPPORTED = -10101,
};

// enc_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   ENC_ERR_INVALID_ARGUMENT: invalid argument.
//   ENC_ERR_UNSUPPORTED: operation not supported by the selected implementation.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
ENC_API const char *enc_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // ENC_ENCODIFY_H
