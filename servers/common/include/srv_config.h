// srv_config.h: the daemons' configuration reader.
//
// Every Corvid daemon (smtpd, imapd, jmapd, pop3d, keepd, maild) reads its
// settings with this module: load a file once at start-up into an immutable
// srv_config, then ask for each setting with a typed getter that supplies the
// default, checks the range and, on a bad value, says which key in which file
// on which line is wrong. Keys that no getter ever asked for can be listed
// afterwards, so that a daemon warns about typos the way Postfix does.
//
// File format
//
//   # A comment line. Blank lines are ignored.
//   log_level = info              # keys before any section have no prefix
//   [smtpd]                       # section names: [a-z0-9_.-]+
//   port = 25                     # addressed as "smtpd.port"
//   banner = "Corvid \"ESMTP\"\n" # quoted: escapes \\ \" \n \t
//   relay_domains = example.org, example.net  # a list (srv_config_get_list)
//
// - A line is a comment when its first non-blank character is '#'. Blanks are
//   spaces and tabs. Lines end in LF or CRLF; a UTF-8 byte order mark at the
//   start of the file is skipped. NUL and other control characters (other
//   than tab) are an error anywhere.
// - `[name]` starts a section (blanks inside the brackets are allowed).
//   Section names match [a-z0-9_.-]+, 1 to SRV_CONFIG_MAX_NAME bytes. A
//   section may be opened again later; its keys are still one set.
// - `key = value`: keys match [a-z0-9_]+, 1 to SRV_CONFIG_MAX_NAME bytes. In
//   section `s` the key `k` is addressed as "s.k"; before the first section
//   header it is addressed as "k". Keys cannot contain '.', so the two forms
//   never collide. Upper-case letters are an error, not folded.
// - A bare value runs from after '=' to the end of the line or to the first
//   '#' that follows a blank, whichever comes first, and is trimmed of blanks
//   at both ends. It may be empty. Everything in it is literal (no escapes).
// - A value that starts with '"' is a quoted string. It ends at the next
//   unescaped '"'; the escapes are \\ \" \n \t and any other backslash is an
//   error. Only blanks and a comment may follow the closing quote.
// - Continuation: when the last non-blank character of a line is '\', the
//   next line continues it. The backslash, the blanks around it and the next
//   line's leading blanks become a single space. A continuation line may not
//   be blank or a comment, the last line of the file may not end in '\', and
//   a comment may not be continued (each is an error rather than a line
//   silently swallowed). To end a value with a backslash, quote it.
// - A key defined twice in the same section is an error that names both
//   lines: silent overrides hide mistakes.
//
// Limits (exceeding one is SRV_ERR_LIMIT, never a crash): SRV_CONFIG_MAX_FILE
// bytes of input, SRV_CONFIG_MAX_LINE bytes per physical line,
// SRV_CONFIG_MAX_ENTRIES keys, SRV_CONFIG_MAX_NAME bytes per section or key
// name.
//
// Threading: a srv_config is immutable once loaded, except for one "used" mark
// per key that the getters set atomically. Any number of threads may call the
// getters on the same handle at once. srv_config_unused() and
// srv_config_free() must not run concurrently with other calls on that
// handle. Loading and parsing share nothing between calls.
//
// Ownership: srv_config_load() and srv_config_parse() return a handle that the
// caller frees with srv_config_free(). Strings the getters return point into
// the handle (or are the caller's default) and stay valid until it is freed.
// The parser copies what it keeps: the input text may be freed as soon as
// srv_config_parse() returns.
//
// Errors: functions return 0 on success and a negative code on failure (see
// srv_error.h). Detail goes into an optional srv_config_diag that the caller
// owns; there is no global or thread-local "last error".
#ifndef SRV_CONFIG_H
#define SRV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srv_error.h"

#ifdef __cplusplus
extern "C" {
#endif

// Limits.

// SRV_CONFIG_MAX_FILE is the largest configuration accepted, in bytes.
#define SRV_CONFIG_MAX_FILE (1024u * 1024u)
// SRV_CONFIG_MAX_LINE is the longest physical line, in bytes, without its line
// ending. A value continued over several lines may be longer in total.
#define SRV_CONFIG_MAX_LINE 4096u
// SRV_CONFIG_MAX_ENTRIES is the largest number of keys in one configuration.
#define SRV_CONFIG_MAX_ENTRIES 4096u
// SRV_CONFIG_MAX_NAME is the longest section name and the longest key name,
// each on its own, in bytes. A full key ("section.key") may thus be up to
// 2 * SRV_CONFIG_MAX_NAME + 1 bytes.
#define SRV_CONFIG_MAX_NAME 64u

// Diagnostics.

// SRV_CONFIG_DIAG_FILE_SIZE is the size of srv_config_diag.file. A longer file
// name is kept by its end, prefixed with "...".
#define SRV_CONFIG_DIAG_FILE_SIZE 256
// SRV_CONFIG_DIAG_MESSAGE_SIZE is the size of srv_config_diag.message.
#define SRV_CONFIG_DIAG_MESSAGE_SIZE 256

// srv_config_diag describes why a call failed. The caller owns it, usually on
// the stack; a function fills it only when it fails and leaves it untouched on
// success.
typedef struct srv_config_diag {
  // code is the value the function returned.
  int code;
  // file is the name the configuration was loaded under (the path, or the
  // name given to srv_config_parse), NUL-terminated.
  char file[SRV_CONFIG_DIAG_FILE_SIZE];
  // line is the 1-based line the error is about, or 0 when it concerns the
  // whole file (cannot open, too large, ...). For a key continued over
  // several lines it is the line the key is on.
  unsigned line;
  // message is one NUL-terminated line for a log, "FILE:LINE: what" (or
  // "FILE: what" when line is 0), truncated to fit.
  char message[SRV_CONFIG_DIAG_MESSAGE_SIZE];
} srv_config_diag;

// Loading.

// srv_config is an opaque, parsed configuration.
typedef struct srv_config srv_config;

// srv_config_load reads the configuration file at `path` and parses it as
// srv_config_parse() does, using `path` as the file name in diagnostics. On
// success it sets `*out` to a new handle, which the caller frees with
// srv_config_free(); on failure it sets `*out` to NULL. `diag` may be NULL.
//
// The file is read with bounded reads, never more than SRV_CONFIG_MAX_FILE + 1
// bytes, and closed before the function returns. Reading a FIFO or a device
// blocks until it reaches end of file.
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `out` or `path` is NULL; -errno if the
// file cannot be opened or read (-ENOENT, -EACCES, ...); -EISDIR if `path` is
// a directory; SRV_ERR_LIMIT if the file is larger than SRV_CONFIG_MAX_FILE;
// -ENOMEM; and every error of srv_config_parse().
//
// Thread-safe.
SRV_WARN_UNUSED_RESULT int srv_config_load(srv_config **out, const char *path,
                                           srv_config_diag *diag);

// srv_config_parse parses the `len` bytes at `text` (which need not be
// NUL-terminated, and may be NULL when `len` is 0) in the format described at
// the top of this header. `name_for_messages` names the input in
// diagnostics, e.g. a path; NULL means "(config)". On success it sets `*out`
// to a new handle, which the caller frees with srv_config_free(); on failure
// it sets `*out` to NULL. `diag` may be NULL. The handle copies everything it
// keeps, so `text` may be freed on return.
//
// Errors, each with the line in `diag`:
//   SRV_ERR_INVALID_ARGUMENT: `out` is NULL, or `text` is NULL with `len` > 0.
//   SRV_ERR_CONFIG_SYNTAX: a malformed line, an unterminated quoted string,
//     an unknown escape, a control character, a misplaced continuation.
//   SRV_ERR_CONFIG_DUPLICATE: a key defined twice in the same section; the
//     message names both lines and `diag->line` is the second.
//   SRV_ERR_LIMIT: input longer than SRV_CONFIG_MAX_FILE, a line longer than
//     SRV_CONFIG_MAX_LINE, more than SRV_CONFIG_MAX_ENTRIES keys, or a section
//     or key name longer than SRV_CONFIG_MAX_NAME.
//   -ENOMEM.
//
// Thread-safe.
SRV_WARN_UNUSED_RESULT int srv_config_parse(srv_config **out, const char *text, size_t len,
                                            const char *name_for_messages, srv_config_diag *diag);

// srv_config_free frees `cfg` and every string it handed out. It does nothing
// when `cfg` is NULL. Not thread-safe with other calls on the same handle.
void srv_config_free(srv_config *cfg);

// Getters.
//
// Each getter looks up `key` ("section.key", or "key" for a key before any
// section), marks it as used for srv_config_unused(), and converts its value.
// A key that is not in the configuration yields the caller's default and
// returns 0. A key that is present with a value the getter cannot accept
// returns an error, and `diag` (which may be NULL) names the key, the file and
// the line. The output is written only on success. Keys are compared exactly
// (case-sensitively). Every getter is thread-safe (see the overview).

// srv_config_get_string sets `*out` to the value of `key`, NUL-terminated, or
// to `def` (which may be NULL) if the key is absent. A present key always has
// a valid string value, possibly empty. `*out` points into `cfg` and is valid
// until srv_config_free(cfg), or is `def` itself.
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out` is NULL.
SRV_WARN_UNUSED_RESULT int srv_config_get_string(const srv_config *cfg, const char *key,
                                                 const char *def, const char **out);

// srv_config_get_int sets `*out` to the value of `key` read as a decimal
// integer (an optional '+' or '-' then digits, nothing else), or to `def` if
// the key is absent. The value must lie in [`min`, `max`].
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out` is NULL, if `min`
// > `max`, or if `def` is outside [`min`, `max`]; SRV_ERR_CONFIG_VALUE if the
// value is not an integer (including an empty value); SRV_ERR_CONFIG_RANGE if
// it does not fit in int64_t or lies outside [`min`, `max`].
SRV_WARN_UNUSED_RESULT int srv_config_get_int(const srv_config *cfg, const char *key, int64_t min,
                                              int64_t max, int64_t def, int64_t *out,
                                              srv_config_diag *diag);

// srv_config_get_bool sets `*out` to the value of `key` read as a boolean, or
// to `def` if the key is absent. True is "yes", "true", "on" or "1"; false is
// "no", "false", "off" or "0"; letters in any case.
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out` is NULL;
// SRV_ERR_CONFIG_VALUE for any other value.
SRV_WARN_UNUSED_RESULT int srv_config_get_bool(const srv_config *cfg, const char *key, bool def,
                                               bool *out, srv_config_diag *diag);

// srv_config_get_size sets `*out` to the value of `key` read as a size in
// bytes, or to `def` if the key is absent. A size is decimal digits, optional
// blanks, and an optional suffix in any case: "B" (bytes), "K", "M", "G" or
// "T", each optionally followed by "B" or "iB". Multiples are binary: "1K" and
// "1KB" are 1024 bytes, "2M" is 2097152. The value must lie in [`min`, `max`].
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out` is NULL, if `min`
// > `max`, or if `def` is outside [`min`, `max`]; SRV_ERR_CONFIG_VALUE if the
// value is not a size (no digits, a sign, a fraction, an unknown suffix);
// SRV_ERR_CONFIG_RANGE if it does not fit in uint64_t or lies outside [`min`,
// `max`].
SRV_WARN_UNUSED_RESULT int srv_config_get_size(const srv_config *cfg, const char *key, uint64_t min,
                                               uint64_t max, uint64_t def, uint64_t *out,
                                               srv_config_diag *diag);

// srv_config_get_duration sets `*out_ms` to the value of `key` read as a
// duration, in milliseconds, or to `def_ms` if the key is absent. A duration
// is decimal digits, optional blanks and a unit: "ms", "s", "m" (minutes), "h"
// or "d", in lower case. A unit is required, except for the value "0". The
// value must lie in [`min_ms`, `max_ms`].
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out_ms` is NULL, if
// `min_ms` > `max_ms`, or if `def_ms` is outside [`min_ms`, `max_ms`];
// SRV_ERR_CONFIG_VALUE if the value is not a duration (no digits, a missing
// or unknown unit); SRV_ERR_CONFIG_RANGE if it does not fit in uint64_t
// milliseconds or lies outside [`min_ms`, `max_ms`].
SRV_WARN_UNUSED_RESULT int srv_config_get_duration(const srv_config *cfg, const char *key,
                                                   uint64_t min_ms, uint64_t max_ms,
                                                   uint64_t def_ms, uint64_t *out_ms,
                                                   srv_config_diag *diag);

// srv_config_list iterates over the items of a list value without
// allocating. Its fields are private; initialise it with
// srv_config_get_list().
typedef struct srv_config_list {
  const char *pos_;
  const char *end_;
} srv_config_list;

// srv_config_get_list sets `*out` to an iterator over the items of the value
// of `key`, or of `def` if the key is absent (an absent key with a NULL `def`
// is an empty list). Items are separated by any run of commas and blanks
// (space, tab, newline); empty items are skipped, so "a,, b" has two items.
// The iterator points into `cfg` (or `def`) and is valid as long as it is.
//
// Errors: SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `out` is NULL.
SRV_WARN_UNUSED_RESULT int srv_config_get_list(const srv_config *cfg, const char *key,
                                               const char *def, srv_config_list *out);

// srv_config_list_next sets `*item` and `*item_len` to the next item of `it`
// and returns 1, or returns 0 at the end of the list (then it leaves `*item`
// and `*item_len` unchanged). An item is NOT NUL-terminated: use `*item_len`.
// It points into the same storage as `it`.
//
// Errors: SRV_ERR_INVALID_ARGUMENT if an argument is NULL.
SRV_WARN_UNUSED_RESULT int srv_config_list_next(srv_config_list *it, const char **item,
                                                size_t *item_len);

// srv_config_reject reports that the value of `key` is not one the caller
// accepts, for a setting whose rules no getter knows (a getter checks only
// the type): it fills `diag` as the getters do, "FILE:LINE: key 'KEY': WHAT"
// with the line `key` is on, and returns SRV_ERR_CONFIG_VALUE. The value
// itself is not quoted, as it may be a secret; `what` says what is expected.
// A key absent from `cfg` is reported with line 0. `diag` may be NULL.
// Returns SRV_ERR_INVALID_ARGUMENT if `cfg`, `key` or `what` is NULL.
int srv_config_reject(const srv_config *cfg, const char *key, srv_config_diag *diag,
                      const char *what);

// Unused keys.

// srv_config_unused_fn receives one key that no getter asked for: the full
// key, the file name used in diagnostics and the line the key is on. The
// strings point into the configuration and stay valid until it is freed.
typedef void (*srv_config_unused_fn)(void *ctx, const char *key, const char *file, unsigned line);

// srv_config_unused calls `fn(ctx, ...)` for every key in `cfg` that no getter
// has looked up yet, in file order, and returns how many there were. A key
// counts as used once a getter asked for it, even when its value was then
// rejected. `fn` may be NULL to only count. Returns SRV_ERR_INVALID_ARGUMENT
// if `cfg` is NULL.
//
// A daemon calls it after reading all its settings and logs a warning per key:
// a misspelt key would otherwise be ignored in silence. Not thread-safe with
// getters running on the same handle.
int srv_config_unused(const srv_config *cfg, srv_config_unused_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif // SRV_CONFIG_H
