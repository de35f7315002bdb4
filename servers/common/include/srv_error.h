// srv_error.h: error codes of servers/common, the daemons' private library.
//
// Every status-returning function of servers/common returns 0 on success and a
// negative code on failure: -errno for OS and resource errors (-1 to -4095),
// SRV_ERR_* for this library's own. servers/common owns the block -10700 to
// -10799 (CONVENTIONS.md §3), so a daemon can tell which layer produced any
// code it logs. srv_strerror() describes all of them.
//
// This library is private to the daemons in servers/: it is linked statically,
// never installed, and has no ABI to keep.
#ifndef SRV_ERROR_H
#define SRV_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SRV_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define SRV_WARN_UNUSED_RESULT
#endif

// Errors.
//
// Codes are never renumbered: a code once shipped keeps its meaning, and new
// codes are appended below the last one.

enum {
  // A NULL pointer where one is required, or arguments that contradict each
  // other (e.g. min > max): a bug in the caller, not in the input.
  SRV_ERR_INVALID_ARGUMENT = -10700,
  // A named limit was exceeded (file size, line length, entry count, name
  // length, ...). The diagnostic names the limit.
  SRV_ERR_LIMIT = -10701,
  // A configuration file is not well-formed.
  SRV_ERR_CONFIG_SYNTAX = -10702,
  // A configuration key is defined twice in the same section.
  SRV_ERR_CONFIG_DUPLICATE = -10703,
  // A configuration value cannot be read as the type asked for.
  SRV_ERR_CONFIG_VALUE = -10704,
  // A configuration value is well-formed but outside the allowed range, or
  // too large to represent.
  SRV_ERR_CONFIG_RANGE = -10705,
};

// srv_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   SRV_ERR_INVALID_ARGUMENT: invalid argument.
//   SRV_ERR_LIMIT: limit exceeded.
//   SRV_ERR_CONFIG_SYNTAX: configuration syntax error.
//   SRV_ERR_CONFIG_DUPLICATE: configuration key defined twice.
//   SRV_ERR_CONFIG_VALUE: invalid configuration value.
//   SRV_ERR_CONFIG_RANGE: configuration value out of range.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
const char *srv_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // SRV_ERROR_H
