// msgcrypt.h: libmsgcrypt, OpenPGP and S/MIME encryption for public keys of recipients.
//
// libmsgcrypt encrypts mail for its recipients' public keys with OpenPGP
// (RFC 9580, RFC 9980) and S/MIME (CMS, RFC 9629/9936). It only ever holds
// public keys and never decrypts user mail. It uses BoringSSL for the classical
// primitives, libencodify for armor and libmailparse for the messages it wraps.
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
// failure: -errno for OS and resource errors (-1 to -4095), MC_ERR_* for this
// library's own (MC_ERR_* codes lie in -10300 to -10399).
// mc_strerror() describes any of them.
#ifndef MC_MSGCRYPT_H
#define MC_MSGCRYPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MC_API __attribute__((visibility("default")))
#define MC_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define MC_API
#define MC_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libmsgcrypt alone; it changes only when this library does.
// MC_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define MC_VERSION_MAJOR 0
#define MC_VERSION_MINOR 1
#define MC_VERSION_PATCH 0
#define MC_VERSION_STRING "0.1.0"
#define MC_VERSION_NUMBER (MC_VERSION_MAJOR * 10000 + MC_VERSION_MINOR * 100 + MC_VERSION_PATCH)

// mc_version returns the version of the library loaded at run time, as
// MC_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
MC_API unsigned mc_version(void);

// mc_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
MC_API const char *mc_version_string(void);

// Errors.

enum {
  MC_ERR_INVALID_ARGUMENT = -10300,
  MC_ERR_UNSUPPORTED = -10301,
  MC_ERR_BAD_KEY = -10302,
};

// mc_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MC_ERR_INVALID_ARGUMENT: invalid argument.
//   MC_ERR_UNSUPPORTED: unsupported algorithm or format.
//   MC_ERR_BAD_KEY: key is malformed or unusable.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MC_API const char *mc_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // MC_MSGCRYPT_H
