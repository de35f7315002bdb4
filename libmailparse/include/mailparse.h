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
  MP_ERR_UNSUPPORTED = -10206,
};

// mp_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MP_ERR_INVALID_ARGUMENT: invalid argument.
//   MP_ERR_SYNTAX: malformed message.
//   MP_ERR_LIMIT: a parser limit was exceeded.
//   MP_ERR_BUFFER_TOO_SMALL: output buffer too small.
//   MP_ERR_CHARSET: unknown or unsupported charset.
//   MP_ERR_ENCODING: malformed transfer encoding.
//   MP_ERR_UNSUPPORTED: MAILPARSE_IMPL named an implementation this machine
//     lacks.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MP_API const char *mp_strerror(int code);

// Message parsing.
//
// mp_message_parse() reads a whole message held in one caller buffer and
// builds, in memory owned by an opaque mp_message, an indexed list of header
// fields and an indexed list of MIME parts (a tree linked by indices; read
// them one at a time through mp_message_header() and mp_message_part(): they
// are stored in chunks, not in one array, see "Memory"). Nothing is
// copied: every range is a byte offset into the caller's buffer, and the
// few strings the parser derives (media type, boundary, charset) live in the
// message's arena. The caller's buffer must stay unchanged and alive until
// mp_message_free(); the message's pointers are valid while both the message
// and the buffer are.
//
// The parser never fails on content: malformed input is kept, flagged on the
// header or part, and recorded as a problem (kind and offset) on the message.
// Exceeding a limit is such a problem too; parsing then continues where it
// safely can (for example a part deeper than the depth limit is kept as an
// undecoded leaf). Work is linear in the input: each line start is examined
// once and matched against the stack of active boundaries.
//
// A header section ends at its empty line, and also at a line without a
// colon that starts with "--": real mail puts a MIME delimiter right after a
// header that lost its empty line, and reading the delimiter as a header
// field would swallow the whole part (the line is then body, where the
// structure parser sees the delimiter). Other lines without a colon are kept
// as fields flagged MP_HEADER_NO_COLON.
//
// Line ends are LF and CRLF. A CR that no LF follows ("bare CR") is data,
// not a line end, in header sections, delimiter lines and bodies alike: RFC
// 5322 2.3 lets CR occur only in CRLF, and its obsolete syntax (obs-body,
// obs-unstruct in 4.1) reads a lone CR as content; an MTA that ends lines
// at LF only reads the message the same way, so no line can be split
// differently by the transport and by the parser (SMTP smuggling). A field
// holding one is flagged MP_HEADER_BARE_CR. Python's email package instead
// ends lines at a lone CR (DIFFERENCES.md, "bare-cr").

// MP_DEFAULT_MAX_DEPTH is the default nesting depth of parts (multipart and
// message/rfc822 levels below the root); a deeper part is kept as a leaf.
#define MP_DEFAULT_MAX_DEPTH 64
// MP_DEFAULT_MAX_PARTS is the default number of parts in one message; after
// it, further parts are not split out (their bytes stay in the enclosing
// part).
#define MP_DEFAULT_MAX_PARTS 10000
// MP_DEFAULT_MAX_HEADERS is the default number of header fields indexed per
// part; later fields are skipped (still part of the header range).
#define MP_DEFAULT_MAX_HEADERS 2000
// MP_DEFAULT_MAX_LINE_LEN is the default longest header line, in bytes,
// before it is flagged MP_HEADER_LONG_LINE (the line is still kept whole).
#define MP_DEFAULT_MAX_LINE_LEN 998
// MP_DEFAULT_WORK_PER_BYTE sets the default work budget (max_work 0):
// MP_DEFAULT_WORK_PER_BYTE units per input byte plus 1 MiB, where a unit is
// one byte compared by boundary matching or one byte of a Content-Type value
// given to the typed parser. When the budget runs out, boundary matching
// stops (MP_PROBLEM_WORK), Content-Type values get only the minimal reader,
// and the rest of the message stays in the part it was in.
#define MP_DEFAULT_WORK_PER_BYTE 64

// Memory. A parse allocates, through the settings' allocator: the message
// handle, which holds the first chunk of each record store (32 fields, 4
// parts); further header and part records in chunks that never move (no
// record is ever copied, so no abandoned copies stay behind); a few strings
// derived from header values (media type, boundary, charset) in an arena of
// chunks of at most 16 KiB; and scratch freed before it returns (the first
// entries of it, and the Content-Type parser's, in about 7 KiB of stack, so
// that a message of a few parts makes no more than two allocations: the
// handle and one arena chunk). At every moment,
// the bytes it holds are at most
//   MP_PEAK_FIXED + MP_PEAK_PER_PART * parts + MP_PEAK_PER_HEADER * fields
//   + 8 * (the longest Content-Type value) + (the header sections' size),
// which the tests check. A part record is about 230 bytes and a field record
// 56, so for real mail (parts of a kilobyte and more, fields of 50 bytes and
// more) this is at most the message size plus MP_PEAK_FIXED; only a message
// made of many near-empty parts needs more than its own size.
#define MP_PEAK_FIXED (64u * 1024u)
#define MP_PEAK_PER_PART 384u
#define MP_PEAK_PER_HEADER 64u

// MP_MAX_PROBLEMS is how many problems a message records in detail; the
// mask from mp_message_problems() covers all of them.
#define MP_MAX_PROBLEMS 32

// mp_allocator redirects the arena's allocations: `alloc(opaque, size)`
// returns memory aligned for any type or NULL, `free(opaque, ptr)` releases
// it. All three NULL means malloc/free; `alloc` and `free` are both set or
// both NULL.
typedef struct mp_allocator {
  void *(*alloc)(void *opaque, size_t size);
  void (*free)(void *opaque, void *ptr);
  void *opaque;
} mp_allocator;

// mp_settings holds the parser's limits, each 0 for its MP_DEFAULT_*.
// `version` must be MP_SETTINGS_VERSION; initialise with MP_SETTINGS_INIT so
// that fields added later are 0.
typedef struct mp_settings {
  uint32_t version;
  uint32_t max_depth;    // MP_DEFAULT_MAX_DEPTH
  uint32_t max_parts;    // MP_DEFAULT_MAX_PARTS
  uint32_t max_headers;  // per part, MP_DEFAULT_MAX_HEADERS
  uint32_t max_line_len; // MP_DEFAULT_MAX_LINE_LEN
  uint64_t max_work;     // MP_DEFAULT_WORK_PER_BYTE * input length + 1 MiB
  mp_allocator allocator;
} mp_settings;

#define MP_SETTINGS_VERSION 1
// Kept on one line, which reads better than clang-format's layout.
// clang-format off
#define MP_SETTINGS_INIT {MP_SETTINGS_VERSION, 0, 0, 0, 0, 0, {NULL, NULL, NULL}}
// clang-format on

// mp_diag receives detail on a failed call: the error code, the input offset
// it concerns (0 when none) and a NUL-terminated message.
typedef struct mp_diag {
  int code;
  size_t offset;
  char message[96];
} mp_diag;

// mp_range is a byte range [off, off + len) of the caller's buffer.
typedef struct mp_range {
  size_t off;
  size_t len;
} mp_range;

// mp_str is a borrowed byte string (not NUL-terminated); `p` is NULL when
// the value is absent.
typedef struct mp_str {
  const char *p;
  size_t len;
} mp_str;

typedef struct mp_message mp_message;

// Header flags (mp_header.flags).
#define MP_HEADER_NO_COLON (1u << 0)  // a line without a colon: name is empty
#define MP_HEADER_NAME_WSP (1u << 1)  // obsolete whitespace before the colon
#define MP_HEADER_8BIT (1u << 2)      // bytes >= 0x80 (UTF-8 per RFC 6532, or not)
#define MP_HEADER_NUL (1u << 3)       // a NUL byte
#define MP_HEADER_LONG_LINE (1u << 4) // a line longer than max_line_len
#define MP_HEADER_BARE_LF (1u << 5)   // a line ended by LF without CR
#define MP_HEADER_CONTINUED (1u << 6) // a first line that starts with whitespace
#define MP_HEADER_BARE_CR (1u << 7)   // a CR not followed by LF (kept as data)

// mp_header is one header field. `field` covers every physical line of the
// field including its final line break, `name` the field name (without the
// colon and obsolete whitespace before it), `value` everything after the
// colon up to but excluding the final line break (folding included: use
// mp_header_unfold). `part` is the index of the part whose header it is.
typedef struct mp_header {
  mp_range field;
  mp_range name;
  mp_range value;
  uint32_t flags;
  uint32_t part;
} mp_header;

// Content-Transfer-Encoding of a part.
typedef enum mp_encoding {
  MP_ENCODING_7BIT = 0, // also the default when the header is absent
  MP_ENCODING_8BIT = 1,
  MP_ENCODING_BINARY = 2,
  MP_ENCODING_QP = 3,
  MP_ENCODING_BASE64 = 4,
  MP_ENCODING_UNKNOWN = 5, // kept raw: decoding copies the body as it is
} mp_encoding;

// Part flags (mp_part.flags).
#define MP_PART_MULTIPART (1u << 0)    // children split at its boundary
#define MP_PART_MESSAGE (1u << 1)      // message/rfc822 or message/global with one child
#define MP_PART_DEFAULT_TYPE (1u << 2) // no usable Content-Type: type is the default
#define MP_PART_NO_BOUNDARY (1u << 3)  // multipart without a boundary: kept as a leaf
#define MP_PART_NO_END (1u << 4)       // multipart whose closing delimiter is missing
#define MP_PART_UNKNOWN_CTE (1u << 5)  // unknown Content-Transfer-Encoding
#define MP_PART_TOO_DEEP (1u << 6)     // container kept as a leaf: depth or parts limit
#define MP_PART_NO_BODY (1u << 7)      // header section not ended by an empty line
#define MP_PART_HEADERS_ONLY (1u << 8) // from mp_message_parse_headers(): see there

#define MP_NO_INDEX UINT32_MAX

// mp_part is one MIME part: the root (index 0) is the message itself.
// Tree links are part indices (MP_NO_INDEX when absent); parts are numbered
// in the order they start in the input (depth-first).
//   `header` covers the header section including the empty line that ends
//   it; `body` the rest of the part (for a part inside a multipart, up to
//   but excluding the line break before the next delimiter, RFC 2046 5.1.1).
//   `first_header`/`num_headers` index mp_message_header().
//   `type`/`subtype` are the media type in lower case (in the arena); for
//   MP_PART_DEFAULT_TYPE they are static "text"/"plain" (or
//   "message"/"rfc822" inside multipart/digest, RFC 2046 5.1.5).
//   `boundary` and `charset` are the parameter values as
//   mp_content_type_parse() gives them (RFC 2231 joined, quotes removed,
//   UTF-8; in the arena; a boundary loses trailing spaces). `content_type`
//   is the raw Content-Type value: pass it to mp_content_type_parse() for
//   every parameter (IMAP BODYSTRUCTURE). `encoding_name` points into the
//   buffer.
//   `h_*` are the header indices of the first Content-ID, -Description,
//   -Disposition, -Language, -Location and -MD5 fields (MP_NO_INDEX if
//   absent) for IMAP BODYSTRUCTURE.
//   `lines` counts the body's lines (line breaks, plus one for a final line
//   without one), as IMAP reports for text parts; `body.len` is the size.
//   `preamble`/`epilogue` are set for multiparts (len 0 when absent).
typedef struct mp_part {
  uint32_t parent, first_child, next_sibling, num_children;
  uint32_t depth;
  uint32_t flags;
  mp_range header;
  mp_range body;
  mp_range preamble;
  mp_range epilogue;
  uint32_t first_header, num_headers;
  mp_str type, subtype, boundary, charset;
  mp_range content_type;
  mp_encoding encoding;
  mp_str encoding_name;
  uint32_t h_id, h_description, h_disposition, h_language, h_location, h_md5;
  uint64_t lines;
} mp_part;

// Problem kinds (mp_problem.kind; bit (1 << kind) in mp_message_problems()).
enum {
  MP_PROBLEM_NO_COLON = 0,    // a header line without a colon
  MP_PROBLEM_NUL = 1,         // a NUL byte in a header
  MP_PROBLEM_LONG_LINE = 2,   // a header line over max_line_len
  MP_PROBLEM_DEPTH = 3,       // max_depth reached
  MP_PROBLEM_PARTS = 4,       // max_parts reached
  MP_PROBLEM_HEADERS = 5,     // max_headers reached in a part
  MP_PROBLEM_WORK = 6,        // max_work reached
  MP_PROBLEM_NO_BOUNDARY = 7, // multipart without boundary parameter
  MP_PROBLEM_NO_END = 8,      // missing closing delimiter
  MP_PROBLEM_UNKNOWN_CTE = 9, // unknown Content-Transfer-Encoding
  MP_PROBLEM_NO_BODY = 10,    // header section without the empty line
  MP_PROBLEM_BAD_CTYPE = 11,  // unparsable Content-Type (default used)
};

// mp_problem is one recorded problem: its kind, the input offset where it
// was found and the part it concerns.
typedef struct mp_problem {
  uint32_t kind;
  uint32_t part;
  size_t offset;
} mp_problem;

// mp_message_parse parses the `in_len` bytes at `in` and stores a new
// message in `*out`, to be released with mp_message_free(). `settings` may be
// NULL for every default. The message borrows `in`: the buffer must stay
// unchanged and alive until mp_message_free(). `diag`, if not NULL, receives
// detail on failure. Malformed content never fails the call (see above).
// It returns 0 or:
//   MP_ERR_INVALID_ARGUMENT: `out` NULL, `in` NULL with `in_len` > 0, a
//     settings version other than MP_SETTINGS_VERSION, or only one of
//     `allocator.alloc`/`allocator.free` set.
//   -ENOMEM: the allocator failed.
//   MP_ERR_UNSUPPORTED: MAILPARSE_IMPL names an unknown implementation or
//     one this CPU lacks (see "Implementations").
// On failure `*out` is NULL. Thread-safe (distinct `out`).
MP_API MP_WARN_UNUSED_RESULT int mp_message_parse(mp_message **out, const mp_settings *settings,
                                                  const void *in, size_t in_len, mp_diag *diag);

// mp_message_parse_headers is the header-only mode of mp_message_parse():
// the same arguments, errors, ownership and thread-safety, but it reads only
// the top-level header section of `in` (up to its empty line; all of `in`
// when there is none) and computes only:
//   - the header index: one mp_header per field, exactly as
//     mp_message_parse() records the root's fields (ranges, MP_HEADER_*
//     flags, the same limits and problems), found by one SIMD pass per field
//     for its line ends, continuation lines and colon;
//   - one part, the root, flagged MP_PART_HEADERS_ONLY: `header`, `body`
//     (everything after the header section, not read), `first_header`,
//     `num_headers`, `content_type` (the raw value's range), `encoding` and
//     `encoding_name`, the `h_*` indices, and MP_PART_NO_BODY /
//     MP_PART_UNKNOWN_CTE. `type`, `subtype`, `boundary` and `charset` are
//     absent (`p` NULL), `lines` is 0: no Content-Type value is parsed and
//     the body is neither split nor counted.
// Typed values come on demand from the typed parsers below, given a field's
// value (mp_message_header()); mp_message_header_find(),
// mp_header_unfold(), mp_part_envelope(), mp_part_filename() and
// mp_part_decode() work as for a full parse. mp_message_select() and
// mp_part_bodystructure() need the part tree and return
// MP_ERR_INVALID_ARGUMENT for such a message. Memory: the message handle,
// the header records (in chunks of 32, 32, 64, 128, then 256 fields) and
// nothing per field.
MP_API MP_WARN_UNUSED_RESULT int mp_message_parse_headers(mp_message **out,
                                                          const mp_settings *settings,
                                                          const void *in, size_t in_len,
                                                          mp_diag *diag);

// mp_body_sink receives the decoded leaf bodies of mp_message_parse_bodies().
// `data` is called with the next `len` (> 0) bytes of the decoded body of
// part number `index`, in order; the bytes are valid only during the call
// (they are in the parser's buffer, or, for 7bit, 8bit, binary and unknown
// encodings, the body itself inside the caller's input, in one piece). `end`,
// which may be NULL, is called once that body is complete. `part` is the
// part's record, valid until mp_message_free(): what its header section
// gives (type, subtype, charset, encoding, flags, `header`, `body.off`) is
// final at the first call, `body.len` at `end`, and `lines` only once the
// parse returns. Both return 0 to go on; any other value stops the parse,
// which then fails with that value (use a negative one). `opaque` is passed
// back untouched.
typedef struct mp_body_sink {
  int (*data)(void *opaque, const mp_part *part, uint32_t index, const uint8_t *bytes, size_t len);
  int (*end)(void *opaque, const mp_part *part, uint32_t index);
  void *opaque;
} mp_body_sink;

// mp_message_parse_bodies is mp_message_parse() (the same arguments, message,
// ownership and thread-safety) that also decodes every leaf body as the
// structure scan passes it: each piece is decoded while it is still in
// cache, rather than by a later mp_part_decode() that reads the body again
// (from memory, for a body larger than the cache). For every part that is
// not a container (neither MP_PART_MULTIPART nor MP_PART_MESSAGE), in part
// order, `sink->data` receives exactly the bytes mp_part_decode() would write
// for it (possibly none), then `sink->end` is called; a part's calls all come
// before the next part's. mp_message_parse() stays lazy: it decodes nothing,
// and this function is for callers that want every body. The sink runs
// before the call returns, while the message is not yet complete (it gets
// no handle). Memory: a 16 KiB stack buffer for the decoded pieces, nothing
// allocated. It returns what mp_message_parse() returns, and:
//   MP_ERR_INVALID_ARGUMENT: also for a NULL `sink` or `sink->data`.
//   MP_ERR_ENCODING: libencodify refused to decode (as mp_part_decode()).
//   the sink's non-zero return value, when it stopped the parse.
// On failure `*out` is NULL; the sink may have received part of the bodies.
MP_API MP_WARN_UNUSED_RESULT int mp_message_parse_bodies(mp_message **out,
                                                         const mp_settings *settings,
                                                         const void *in, size_t in_len,
                                                         const mp_body_sink *sink, mp_diag *diag);

// mp_message_free releases `msg` and its arena (through the settings'
// allocator). No-op on NULL. Not thread-safe with other uses of `msg`.
MP_API void mp_message_free(mp_message *msg);

// mp_message_data returns the buffer `msg` was parsed from and stores its
// length in `*len` (if not NULL).
MP_API const uint8_t *mp_message_data(const mp_message *msg, size_t *len);

// mp_message_num_headers returns the number of header fields indexed in all
// parts; mp_message_header returns field `i` (NULL if out of range), valid
// while `msg` lives. Fields are in input order, so a part's fields are
// mp_part.first_header .. + num_headers - 1. Thread-safe on a shared const
// message, as are all the accessors below.
MP_API size_t mp_message_num_headers(const mp_message *msg);
MP_API const mp_header *mp_message_header(const mp_message *msg, size_t i);

// mp_message_header_find returns the index of the first header field of part
// `part` at or after message-wide index `from` whose name equals the
// `name_len` bytes at `name` without regard to ASCII case, or -1 when there
// is none (or `part` is out of range). To iterate over every "Received"
// field: from = 0, then from = found + 1.
MP_API long mp_message_header_find(const mp_message *msg, uint32_t part, size_t from,
                                   const char *name, size_t name_len);

// mp_header_unfold writes the value `in` (`in_len` bytes, e.g. mp_header
// value bytes) unfolded into `out` (room for `out_cap`) and sets `*out_len`:
// each CRLF or LF followed by a space or tab is removed (RFC 5322 2.2.3),
// and leading and trailing whitespace is dropped. The output is never longer
// than the input. It returns 0, MP_ERR_INVALID_ARGUMENT for NULL pointers or
// MP_ERR_BUFFER_TOO_SMALL (then `*out_len` is 0). Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_header_unfold(char *out, size_t out_cap, size_t *out_len,
                                                  const char *in, size_t in_len);

// mp_message_num_parts returns the number of parts (at least 1: the root);
// mp_message_part returns part `i` (NULL if out of range), valid while `msg`
// lives.
MP_API size_t mp_message_num_parts(const mp_message *msg);
MP_API const mp_part *mp_message_part(const mp_message *msg, size_t i);

// mp_message_part_by_section finds the part an IMAP section number (RFC 3501
// 6.4.5 / RFC 9051: "1", "1.2", "3.1.2"; `section_len` bytes, no "HEADER" or
// "TEXT" suffix) names and stores its index in `*out_part`. Numbers count
// the children of a multipart from 1; a non-multipart body is part 1 of its
// message; after a message/rfc822 part the next number addresses the
// encapsulated message's body. The empty section is the root. It returns 0,
// MP_ERR_INVALID_ARGUMENT for NULL pointers, or MP_ERR_SYNTAX for a malformed
// or non-existent section.
MP_API MP_WARN_UNUSED_RESULT int mp_message_part_by_section(const mp_message *msg,
                                                            uint32_t *out_part, const char *section,
                                                            size_t section_len);

// mp_message_problems returns the set of problem kinds found (bit 1 << kind);
// mp_message_num_problems the number recorded in detail (at most
// MP_MAX_PROBLEMS, first ones first); mp_message_problem returns one (NULL if
// out of range).
MP_API uint32_t mp_message_problems(const mp_message *msg);
MP_API size_t mp_message_num_problems(const mp_message *msg);
MP_API const mp_problem *mp_message_problem(const mp_message *msg, size_t i);

// mp_part_decode_max_len returns a bound on what mp_part_decode() writes for
// part `part` (its body length for identity encodings, the Base64 or QP
// bound otherwise); 0 when `part` is out of range. Cheap; thread-safe.
MP_API size_t mp_part_decode_max_len(const mp_message *msg, uint32_t part);

// mp_part_decode decodes the body of part `part` according to its
// Content-Transfer-Encoding (lenient RFC 2045 Base64 and quoted-printable
// through libencodify; 7bit, 8bit, binary and unknown encodings are copied
// raw) into `out` (room for `out_cap`) and sets `*out_len`. Line breaks are
// kept as they are in the input. Passing `out` NULL with `out_cap` 0 is a size
// query: it returns 0 and sets `*out_len` to the exact decoded size without
// writing anything. A multipart's body is returned raw. It returns 0 or:
//   MP_ERR_INVALID_ARGUMENT: NULL `msg` or `out_len`, or `part` out of range.
//   MP_ERR_BUFFER_TOO_SMALL: the output does not fit (`*out_len` is 0;
//     mp_part_decode_max_len() is always enough).
//   MP_ERR_ENCODING: libencodify refused to decode (only when ENCODIFY_IMPL
//     forces an implementation this CPU lacks: decoding is lenient).
// Thread-safe on a shared const message; allocates nothing.
MP_API MP_WARN_UNUSED_RESULT int mp_part_decode(const mp_message *msg, uint32_t part, void *out,
                                                size_t out_cap, size_t *out_len);

// mp_part_bodystructure writes the IMAP BODYSTRUCTURE (`extended` non-zero)
// or BODY (`extended` 0) of part `part` (RFC 3501 7.4.2, RFC 9051 7.5.2)
// into `out` (room for `out_cap`; no NUL) and sets `*out_len`. Parameters
// come from mp_content_type_parse() and mp_content_disposition_parse()
// (names lower case, values UTF-8); id, description, MD5 and location are
// the unfolded raw values; a string that a quoted string cannot carry (CR,
// LF, 8-bit) is written as a literal {n}CRLF. A text part without
// Content-Type gets ("charset" "us-ascii"); a multipart without children one
// empty text/plain body. message/rfc822 parts carry the ENVELOPE, BODY and
// line count of the message inside. `out` NULL with `out_cap` 0 is a size
// query (`*out_len` set, nothing written). It returns 0 or:
//   MP_ERR_INVALID_ARGUMENT: NULL `msg`/`out_len`, `part` out of range.
//   MP_ERR_BUFFER_TOO_SMALL: `out_cap` is less than the output (`*out_len`
//     is 0; nothing written is part of a result).
//   MP_ERR_LIMIT: parts nested deeper than 256.
//   -ENOMEM: the settings' allocator failed (scratch for the typed parsers,
//     freed before return).
// Thread-safe on a shared const message.
MP_API MP_WARN_UNUSED_RESULT int mp_part_bodystructure(const mp_message *msg, uint32_t part,
                                                       int extended, char *out, size_t out_cap,
                                                       size_t *out_len);

// mp_part_envelope writes the IMAP ENVELOPE (RFC 3501 7.4.2) of the message
// whose header is part `part`'s (0 for the message, or the child of a
// message/rfc822 part): date, subject, from, sender and reply-to (both
// defaulting to from), to, cc, bcc, in-reply-to and message-id; strings are
// unfolded raw values, addresses come from mp_address_list_parse() (display
// names RFC 2047-decoded to UTF-8, hence literals when not ASCII; groups as
// RFC 3501 writes them). Size query, errors and thread-safety as for
// mp_part_bodystructure().
MP_API MP_WARN_UNUSED_RESULT int mp_part_envelope(const mp_message *msg, uint32_t part, char *out,
                                                  size_t out_cap, size_t *out_len);

// Typed header values.
//
// Parsers for the values of structured header fields: each takes one header
// VALUE (the bytes after the colon, possibly folded with CRLF or LF, possibly
// holding raw 8-bit or UTF-8 bytes) and writes its result into arrays and a
// text buffer that the caller provides; nothing is allocated. Strings in the
// results are UTF-8, not NUL-terminated, and point into the caller's text
// buffer (valid while it is and until it is reused) unless a comment says
// they point into `in`. A text buffer of mp_typed_text_max_len(`in_len`)
// bytes is always enough for any parser below; a smaller one may do, and
// when it does not the parser returns MP_ERR_BUFFER_TOO_SMALL and reports no
// partial result (counts and lengths are 0). An output array that is too
// small gives MP_ERR_LIMIT. The parsers are lenient where real mail needs it
// and report every repair through MP_TYPED_* flags in `*out_flags` (which
// may be NULL). All functions are thread-safe (no shared state) and never
// read outside [`in`, `in` + `in_len`).

// MP_TYPED_* flags: what a parser accepted or repaired.
enum {
  MP_TYPED_OBSOLETE = 1u << 0,          // obsolete syntax (RFC 5322 §4) accepted
  MP_TYPED_ENCWORD_PLACEMENT = 1u << 1, // RFC 2047 word decoded where §5 forbids it
  MP_TYPED_ENCWORD_INVALID = 1u << 2,   // "=?...?=" not decodable, kept as text
  MP_TYPED_CHARSET_REPLACED = 1u << 3,  // invalid bytes became U+FFFD
  MP_TYPED_CHARSET_UNKNOWN = 1u << 4,   // unknown charset (ASCII kept, rest U+FFFD)
  MP_TYPED_8BIT = 1u << 5,              // raw 8-bit bytes in the value (RFC 6532)
  MP_TYPED_JUNK = 1u << 6,              // bytes that fit no syntax were skipped
  MP_TYPED_UNTERMINATED = 1u << 7,      // quote, comment, bracket or "<" not closed
  MP_TYPED_REPAIRED = 1u << 8,          // another broken form was repaired (per parser)
  MP_TYPED_LIST_NO = 1u << 9,           // "List-Post: NO" (RFC 2369 §3.4)
  MP_TYPED_SUBJECT_REPLY = 1u << 10,    // mp_subject_base removed a reply/forward marker
};

// mp_typed_text_max_len returns a text buffer size that is always enough for
// every typed parser on a value of `in_len` bytes (4 * `in_len` + 64, or
// SIZE_MAX on overflow). Thread-safe.
MP_API size_t mp_typed_text_max_len(size_t in_len);

// mp_rfc2047_decode decodes an unstructured header value (Subject, Comments,
// X-*) to UTF-8 in `out`: folds are unfolded (CR and LF removed), leading
// and trailing white space dropped, other white space kept, RFC 2047 encoded
// words (B and Q, any case, `charset*lang` with the language ignored, RFC
// 2231 §5) decoded and joined to an adjacent encoded word with the white
// space between them dropped (RFC 2047 §6.2). Lenient: encoded words glued
// to other text or to each other are decoded too (MP_TYPED_ENCWORD_PLACEMENT),
// Base64 with bad padding is decoded leniently and a UTF-8 character split
// across two words is joined and a decoded CR or LF becomes a space
// (MP_TYPED_REPAIRED), a NUL U+FFFD (the output never holds CR, LF or NUL);
// a word longer than 1024
// decoded bytes stays literal (MP_TYPED_ENCWORD_INVALID). Raw 8-bit bytes
// pass through when they are UTF-8 (MP_TYPED_8BIT) and become U+FFFD when
// not, as does a raw NUL (MP_TYPED_CHARSET_REPLACED). Charsets other than UTF-8, US-ASCII and
// ISO-8859-1 go through the library's charset conversion. `out` needs at
// most 3 * `in_len` bytes; mp_typed_text_max_len() is always enough. Returns
// 0, MP_ERR_INVALID_ARGUMENT (NULL `out_len`, NULL `out` with `out_cap` > 0
// or NULL `in` with `in_len` > 0) or MP_ERR_BUFFER_TOO_SMALL (`*out_len` is 0
// then). Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_rfc2047_decode(char *out, size_t out_cap, size_t *out_len,
                                                   unsigned *out_flags, const char *in,
                                                   size_t in_len);

// Address lists.
//
// Address flags (mp_address.flags).
#define MP_ADDRESS_GROUP (1u << 0)        // a group: `name` is its display name
#define MP_ADDRESS_ANGLE (1u << 1)        // written as name-addr, "<...>"
#define MP_ADDRESS_ROUTE (1u << 2)        // an obsolete route "<@a,@b:x@y>" was dropped
#define MP_ADDRESS_QUOTED_LOCAL (1u << 3) // the local part was a quoted string
#define MP_ADDRESS_NAME_COMMENT (1u << 4) // `name` comes from a comment: "x@y (Name)"
#define MP_ADDRESS_NO_ANGLE (1u << 5)     // "Name x@y": the angle brackets were missing
#define MP_ADDRESS_INCOMPLETE (1u << 6)   // no domain (or no address at all)

// mp_address is one entry of an address list: a mailbox or the start of a
// group. Members of a group follow their group entry and carry its index in
// `group` (MP_NO_INDEX outside groups and for group entries). `name` is the
// display name (or group name) decoded to UTF-8; `local` the local part with
// quotes removed and quoted pairs resolved (see MP_ADDRESS_QUOTED_LOCAL to
// quote it again); `domain` the domain as written (a domain literal keeps its
// brackets; not lowercased). CFWS inside local part and domain is dropped.
// Absent strings have `p` NULL and `len` 0. All point into the text buffer.
typedef struct mp_address {
  mp_str name;
  mp_str local;
  mp_str domain;
  uint32_t group;
  uint32_t flags;
} mp_address;

// mp_address_list_parse parses an address-list, mailbox-list or mailbox
// value (From, To, Cc, Bcc, Reply-To, Sender, Resent-*; RFC 5322 §3.4 and
// the obsolete §4.4 forms: routes, CFWS in addresses, empty list elements,
// "." in names) into `out` (`out_cap` entries; `*num_out` set) and `text`.
// Repairs, each flagged in `*out_flags`: a group without its ';'
// (MP_TYPED_UNTERMINATED); "Name x@y" without angle brackets (the last
// dot-joined words before '@' are the address, the rest the name:
// MP_TYPED_REPAIRED, MP_ADDRESS_NO_ANGLE); an unterminated "<x@y" (ends at
// the next ',' unless a route is open); "Last, First <x@y>" with an unquoted
// comma: an element that is only words followed by an element with a name
// and "<...>" is joined into one mailbox named "Last, First" (MP_TYPED_
// REPAIRED; a list such as "alice, Bob <bob@x>" is therefore read as one
// mailbox, the lesser evil in real mail); several words without any address
// become an entry with a name only; text after an address is skipped
// (MP_TYPED_JUNK); RFC 2047 words and raw UTF-8 in quoted names are decoded
// (MP_TYPED_ENCWORD_PLACEMENT). Local parts and domains are never
// RFC 2047-decoded. An empty value gives 0 entries. Returns 0,
// MP_ERR_INVALID_ARGUMENT (NULL `num_out` or `text_len`, NULL `out`/`text`
// with a non-zero capacity, NULL `in` with `in_len` > 0), MP_ERR_LIMIT (more
// than `out_cap` entries; in_len / 2 + 1 is always enough) or
// MP_ERR_BUFFER_TOO_SMALL (text; mp_typed_text_max_len() is always enough);
// on error `*num_out` and `*text_len` are 0. Comment nesting deeper than 64
// is read as text. Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_address_list_parse(mp_address *out, size_t out_cap,
                                                       size_t *num_out, char *text, size_t text_cap,
                                                       size_t *text_len, unsigned *out_flags,
                                                       const char *in, size_t in_len);

// Dates.
//
// Date flags (mp_date.flags).
#define MP_DATE_NO_ZONE (1u << 0)          // no zone: UTC assumed
#define MP_DATE_ZONE_UNKNOWN (1u << 1)     // "-0000" or a military letter (§4.3): offset 0
#define MP_DATE_TWO_DIGIT_YEAR (1u << 2)   // a 2- or 3-digit year (§4.3 rules applied)
#define MP_DATE_NO_SECONDS (1u << 3)       // "hh:mm" (valid; seconds are 0)
#define MP_DATE_NO_TIME (1u << 4)          // no time of day: 00:00:00 assumed
#define MP_DATE_WEEKDAY_MISMATCH (1u << 5) // the day of the week is not the date's

// mp_date is a parsed date-time. `time` is UTC seconds since 1970-01-01
// (negative before; a leap second :60 counts as the next second), `offset`
// the zone in minutes east of UTC, and the other fields the local date and
// time as written (after the §4.3 year rules).
typedef struct mp_date {
  int64_t time;
  int32_t offset;
  uint32_t flags;
  int year, month, day, hour, minute, second;
} mp_date;

// mp_date_parse parses a date-time value (Date, Resent-Date, the date after
// a Received field's ';'; RFC 5322 §3.3 and §4.3) into `*out`. Accepted and
// flagged: a missing or any day of the week (a wrong one sets
// MP_DATE_WEEKDAY_MISMATCH), full or 3-letter names in any case, 2- and
// 3-digit years (< 50 is 20xx, else 19xx; 3 digits + 1900;
// MP_TYPED_OBSOLETE), obsolete zones UT, GMT, EST..PDT and military letters
// (MP_TYPED_OBSOLETE; letters other than Z read as -0000 per §4.3), zones
// without a sign or with only hours (MP_TYPED_REPAIRED), missing zone or time
// (MP_TYPED_REPAIRED), asctime order ("Mon Jan  2 15:04:05 2006"), "-" as a
// separator ("2-Jan-2006"), am/pm, comments, fractions of seconds and other
// extra text (MP_TYPED_JUNK). Returns 0, MP_ERR_INVALID_ARGUMENT (NULL `out`,
// NULL `in` with `in_len` > 0) or MP_ERR_SYNTAX: no day, month or year, a
// field out of range (year 1900-9999, day within its month, hour 0-23,
// minute and zone minutes 0-59, second 0-60) or a number longer than 9
// digits; `*out` is zeroed then and `*out_flags` still says what was seen.
// Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_date_parse(mp_date *out, unsigned *out_flags, const char *in,
                                               size_t in_len);

// MIME parameters: Content-Type and Content-Disposition.
//
// Parameter flags (mp_param.flags).
#define MP_PARAM_EXTENDED (1u << 0)    // RFC 2231 charset'language'%XX value
#define MP_PARAM_CONTINUED (1u << 1)   // joined from RFC 2231 sections name*0, name*1...
#define MP_PARAM_SECTION_GAP (1u << 2) // a section number was missing (rest joined anyway)
#define MP_PARAM_ENCWORD (1u << 3)     // RFC 2047 words were decoded in the value

// mp_param is one parameter. `name` is lowercased without RFC 2231
// suffixes; `value` is UTF-8 (may be empty: `p` NULL); `charset` and
// `language` are the RFC 2231 ones as written (`p` NULL when absent). All
// point into the text buffer.
typedef struct mp_param {
  mp_str name;
  mp_str value;
  mp_str charset;
  mp_str language;
  uint32_t flags;
} mp_param;

// mp_content_type is a parsed Content-Type: `type` and `subtype` lowercased
// (in the text buffer) and the number of parameters written.
typedef struct mp_content_type {
  mp_str type;
  mp_str subtype;
  size_t num_params;
} mp_content_type;

// mp_content_disposition is a parsed Content-Disposition (RFC 2183): `type`
// lowercased ("inline", "attachment", ...).
typedef struct mp_content_disposition {
  mp_str type;
  size_t num_params;
} mp_content_disposition;

// mp_content_type_parse parses a Content-Type value (RFC 2045 §5.1: type
// "/" subtype *(";" parameter), comments allowed between tokens) into `*out`,
// `params` (`params_cap` entries) and `text`. Parameters: token or quoted
// values; RFC 2231 §3 continuations (name*0, name*1, in any order, joined
// in section order; a missing section sets MP_PARAM_SECTION_GAP), §4
// charset'language'%XX values converted to UTF-8 (sections are joined before
// conversion), §4.1 mixed sections. Real-world repairs, flagged: RFC 2047
// words in values decoded (MP_PARAM_ENCWORD, MP_TYPED_ENCWORD_PLACEMENT);
// unquoted values with spaces or specials taken up to the next ';'
// ("boundary=----=_Part_1", MP_TYPED_REPAIRED); a backslash before anything
// but '"' or '\' in a quoted value kept ("C:\dir\f.txt"); a duplicate
// parameter ignored (the first wins, MP_TYPED_REPAIRED); parameters without
// '=' and junk skipped (MP_TYPED_JUNK); raw UTF-8 kept (MP_TYPED_8BIT). RFC
// 2231 section numbers above 255 are ignored. Returns 0,
// MP_ERR_INVALID_ARGUMENT (NULL `out`, `text_len`; NULL `params`/`text`
// with non-zero capacity; NULL `in` with `in_len` > 0), MP_ERR_SYNTAX (no
// type, no '/' or no subtype: RFC 2045 §5.2 says to use text/plain then),
// MP_ERR_LIMIT (more than `params_cap` distinct parameters; in_len / 2 + 1
// is always enough) or MP_ERR_BUFFER_TOO_SMALL (mp_typed_text_max_len() is
// always enough); on error `*out` is zeroed and `*text_len` is 0.
// Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_content_type_parse(mp_content_type *out, mp_param *params,
                                                       size_t params_cap, char *text,
                                                       size_t text_cap, size_t *text_len,
                                                       unsigned *out_flags, const char *in,
                                                       size_t in_len);

// mp_content_disposition_parse parses a Content-Disposition value (RFC 2183
// §2: disposition-type *(";" parameter)) exactly as mp_content_type_parse()
// parses parameters, with the same errors (MP_ERR_SYNTAX: no type).
// Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_content_disposition_parse(mp_content_disposition *out,
                                                              mp_param *params, size_t params_cap,
                                                              char *text, size_t text_cap,
                                                              size_t *text_len, unsigned *out_flags,
                                                              const char *in, size_t in_len);

// mp_param_find returns the first of `num_params` parameters named `name`
// (NUL-terminated, compared without ASCII case), or NULL (also for NULL
// arguments). The result points into `params`. Thread-safe.
MP_API const mp_param *mp_param_find(const mp_param *params, size_t num_params, const char *name);

// Message identifiers.
//
// Msg-id flags (mp_msgid.flags).
#define MP_MSGID_NO_ANGLE (1u << 0) // written without angle brackets
#define MP_MSGID_NO_AT (1u << 1)    // no '@' (not a valid RFC 5322 msg-id)

// mp_msgid is one message identifier: `id` is the text between the angle
// brackets with CFWS removed (quoted strings and domain literals kept as
// written, quotes included), in the text buffer.
typedef struct mp_msgid {
  mp_str id;
  uint32_t flags;
} mp_msgid;

// mp_msgid_list_parse parses Message-ID, In-Reply-To, References,
// Content-ID or Resent-Message-ID (RFC 5322 §3.6.4, obsolete §4.5.4) into
// `out` (`out_cap` entries) and `text`. Lenient and flagged: CFWS, quoted
// strings and domain literals inside ids (MP_TYPED_OBSOLETE); phrases
// between ids ("In-Reply-To: Your message of ...", MP_TYPED_OBSOLETE); bare
// "local@domain" ids without brackets (MP_TYPED_REPAIRED, MP_MSGID_NO_ANGLE);
// an unclosed '<' (MP_TYPED_UNTERMINATED); empty "<>" and stray specials
// (MP_TYPED_JUNK). Commas between ids are ignored. Returns 0,
// MP_ERR_INVALID_ARGUMENT (as for mp_address_list_parse()), MP_ERR_LIMIT
// (more than `out_cap` ids; in_len / 2 + 1 is always enough) or
// MP_ERR_BUFFER_TOO_SMALL (mp_typed_text_max_len() is always enough); on
// error `*num_out` and `*text_len` are 0. Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_msgid_list_parse(mp_msgid *out, size_t out_cap, size_t *num_out,
                                                     char *text, size_t text_cap, size_t *text_len,
                                                     unsigned *out_flags, const char *in,
                                                     size_t in_len);

// Received.
//
// mp_received is a parsed Received field. Each clause is the first word (or
// angle-addr without brackets, or quoted string with quotes) after its
// keyword; `from_info` is the content of the comment right after the from
// clause (TCP-info, quoted pairs not resolved). They point into `in` (valid
// while it is), with `p` NULL when absent. `date` is valid when `has_date`.
typedef struct mp_received {
  mp_str from, by, via, with, id, for_;
  mp_str from_info;
  mp_date date;
  int has_date;
} mp_received;

// mp_received_parse parses a Received value (RFC 5321 §4.4, RFC 5322
// §3.6.7): keywords in any case, clauses in any order (a repeated clause:
// the first counts, MP_TYPED_REPAIRED), the date-time after the last
// top-level ';' parsed as mp_date_parse() does (its flags are merged into
// `*out_flags`; an unparsable date leaves `has_date` 0 and sets
// MP_TYPED_JUNK), unknown words skipped (MP_TYPED_JUNK). Returns 0,
// MP_ERR_INVALID_ARGUMENT (NULL `out`, NULL `in` with `in_len` > 0) or
// MP_ERR_SYNTAX (no clause and no date; `*out` zeroed). Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_received_parse(mp_received *out, unsigned *out_flags,
                                                   const char *in, size_t in_len);

// Mailing lists.
//
// mp_list_uris_parse parses an RFC 2369 field (List-Help, List-Subscribe,
// List-Unsubscribe, List-Post, List-Owner, List-Archive) into `out`
// (`out_cap` URIs, in order, white space inside the brackets removed as §2
// says, in the text buffer). Comments and commas are skipped; "NO" alone
// (List-Post, §3.4) gives no URIs and MP_TYPED_LIST_NO; a bare word with a
// ':' is taken as a URI without brackets (MP_TYPED_REPAIRED); other words
// are skipped (MP_TYPED_JUNK); an unclosed '<' runs to the end
// (MP_TYPED_UNTERMINATED). Errors as for mp_msgid_list_parse(). Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_list_uris_parse(mp_str *out, size_t out_cap, size_t *num_out,
                                                    char *text, size_t text_cap, size_t *text_len,
                                                    unsigned *out_flags, const char *in,
                                                    size_t in_len);

// mp_list_id is a parsed List-Id: `name` the decoded phrase (may be absent)
// and `id` the list identifier without brackets, in the text buffer.
typedef struct mp_list_id {
  mp_str name;
  mp_str id;
} mp_list_id;

// mp_list_id_parse parses a List-Id value (RFC 2919 §2: [phrase] "<"
// list-id ">"). The phrase is decoded like a display name (RFC 2047,
// quoted strings); a value without brackets that is a single word is taken
// as the id (MP_TYPED_REPAIRED); text after '>' sets MP_TYPED_JUNK. Returns
// 0, MP_ERR_INVALID_ARGUMENT (NULL `out` or `text_len`, NULL `text` with
// `text_cap` > 0, NULL `in` with `in_len` > 0), MP_ERR_SYNTAX (no id) or
// MP_ERR_BUFFER_TOO_SMALL (mp_typed_text_max_len() is always enough); on
// error `*out` is zeroed and `*text_len` is 0. Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_list_id_parse(mp_list_id *out, char *text, size_t text_cap,
                                                  size_t *text_len, unsigned *out_flags,
                                                  const char *in, size_t in_len);

// Subjects.
//
// mp_subject_base writes the base subject of RFC 5256 §2.1 (for threading
// and sorting) into `out`: the value decoded as mp_rfc2047_decode() does,
// runs of white space collapsed to one space, then repeatedly "(fwd)"
// trailers, "Re:", "Fw:", "Fwd:" leaders (any case, with "[blob]"s before
// and one after the keyword), a leading "[blob]" (unless nothing would be
// left) and a "[fwd: ...]" wrapper removed. MP_TYPED_SUBJECT_REPLY says a
// reply or forward marker was removed. The base subject of a base subject is
// itself (unless decoding produced a new encoded word). `out` must hold the
// decoded value (at most 3 * `in_len` bytes). Returns 0,
// MP_ERR_INVALID_ARGUMENT (as for mp_rfc2047_decode()) or
// MP_ERR_BUFFER_TOO_SMALL (`*out_len` is 0 then). Thread-safe.
MP_API MP_WARN_UNUSED_RESULT int mp_subject_base(char *out, size_t out_cap, size_t *out_len,
                                                 unsigned *out_flags, const char *in,
                                                 size_t in_len);

// End of typed header values.

// Charset conversion to UTF-8.
//
// Every text a message carries (encoded words, parameter values, bodies) is
// converted to UTF-8 before anyone sees it. The conversion never fails on
// content: an invalid or unmappable sequence becomes U+FFFD and is reported
// through a flag, and an unknown charset still yields its ASCII bytes.
//
// Built in, with no iconv: UTF-8 (validated), US-ASCII, ISO-8859-1 and
// Windows-1252, UTF-16 (with or without a byte order mark) and UTF-16LE/BE.
// Every other charset in the table (the ISO-8859-x, windows-125x, KOI8-R/U,
// IBM/Mac code pages, ISO-2022-JP/KR/CN, Shift_JIS, EUC-JP/KR/TW, GB2312,
// GBK, GB18030, Big5, UTF-7, UTF-32 ...) is glibc's iconv decoder: the
// stateless single-byte ones and GB18030, CP932, CP949 and EUC-JP-MS read
// from tables filled from that decoder on first use (process-wide, each
// entry written once with the same value by any thread), the rest through
// iconv itself with descriptors kept per thread; the output is iconv's
// either way.
//
// Decisions that follow the WHATWG Encoding Standard, as mail clients do:
//   - US-ASCII, ISO-8859-1 and their aliases decode as Windows-1252: mail
//     labelled ASCII (the RFC 2045 default) or Latin-1 very often carries
//     Windows-1252 bytes, and a reader wants "é" and "€", not U+FFFD. Every
//     Latin-1 byte but 0x80-0x9F (C1 controls, never text in mail) decodes
//     the same either way.
//   - GB2312 and GBK decode as GB18030 (a superset of both), Big5 as
//     Big5-HKSCS, Shift_JIS as Windows-31J (CP932), EUC-KR and KS_C_5601-1987
//     as UHC (CP949), ISO-2022-JP as ISO-2022-JP-2 (which also reads the
//     half-width katakana that real mail contains), EUC-JP as
//     EUC-JP-MS, TIS-620 and ISO-8859-11 as Windows-874.
//   - A leading byte order mark is dropped (UTF-8 and UTF-16*); "UTF-16"
//     without one is big-endian (RFC 2781 §4.3).
//   - UTF-8 errors become one U+FFFD per maximal ill-formed subpart (Unicode
//     §3.9, the WHATWG decoder): overlong forms, surrogates (ED A0-BF) and
//     anything above U+10FFFF are invalid.
// Charset names match the IANA registry's names and aliases and common
// misspellings: case and every character other than a letter or digit are
// ignored ("UTF8", "utf_8", "Latin1", "x-sjis", "ks_c_5601-1987" all work),
// as is an RFC 2231 language suffix ("us-ascii*en"). Names not in the table
// are unknown: attacker-chosen names never reach iconv_open().

// MP_CHARSET_REPLACED is set in `*out_flags` when an invalid or unmappable
// sequence became U+FFFD.
#define MP_CHARSET_REPLACED 1u
// MP_CHARSET_UNKNOWN is set in `*out_flags` when the charset is unknown (or
// iconv cannot open it): ASCII bytes were kept and every byte outside
// ASCII became U+FFFD (then MP_CHARSET_REPLACED is set too). Text of only
// printable ASCII, tab and line breaks in a known charset that is ASCII in
// that range converts to itself without iconv, so it is not flagged even
// where iconv lacks the charset (a C library without its modules).
#define MP_CHARSET_UNKNOWN 2u

// MP_CHARSET_ID_UNKNOWN is the id mp_charset_lookup() returns for a name it
// does not know; converting with it behaves as an unknown charset name does.
#define MP_CHARSET_ID_UNKNOWN 0

// MP_CHARSET_MAX_NAME_LEN is the longest charset name (in bytes, before
// normalisation) that can match; longer names are unknown.
#define MP_CHARSET_MAX_NAME_LEN 64

// mp_charset_utf8_max_len returns the largest output mp_charset_to_utf8()
// can produce from `in_len` bytes in any charset: 3 * in_len + 3, or
// SIZE_MAX if that does not fit in a size_t. Why 3 per byte: a single input
// byte yields at most one character below U+10000 (3 bytes of UTF-8) or one
// U+FFFD (3 bytes); two bytes (UTF-16, the double-byte charsets) yield at
// most 6; and a character above U+FFFF (4 bytes) always takes at least 2
// input bytes. The converters enforce the bound rather than trust iconv: a
// charset whose single bytes expand further (TSCII, Tamil ligatures) is cut at
// the bound and flagged MP_CHARSET_REPLACED. The "+ 3" is room for the one
// U+FFFD that an incomplete sequence at the end may produce, so that callers
// appending piecewise can reuse the same bound. Thread-safe; never fails.
MP_API size_t mp_charset_utf8_max_len(size_t in_len);

// mp_charset_lookup returns the id of the charset named by `name` (`name_len`
// bytes, not NUL-terminated, need not be valid UTF-8), a positive number, or
// MP_CHARSET_ID_UNKNOWN. Ids are stable within one loaded library only; use
// them to skip name matching when converting many texts in one charset.
// Thread-safe, allocates nothing; `name` may be NULL when `name_len` is 0.
MP_API int mp_charset_lookup(const char *name, size_t name_len);

// mp_charset_name returns the canonical (IANA preferred MIME) name of the
// charset whose id is `id`, a static string, e.g. "UTF-8" or "Shift_JIS"; it
// returns "unknown" for MP_CHARSET_ID_UNKNOWN or any id it did not issue.
// Thread-safe.
MP_API const char *mp_charset_name(int id);

// mp_charset_to_utf8 converts `in_len` bytes of `in` from the charset named
// by `charset` (`charset_len` bytes, matched as mp_charset_lookup() does) to
// UTF-8 in `out` (`out_cap` bytes, owned by the caller), sets `*out_len` to
// the output length and `*out_flags` to MP_CHARSET_* flags (0 when the text
// converted cleanly). The output is always valid UTF-8, never longer than
// mp_charset_utf8_max_len(in_len), and is not NUL-terminated. Content never
// makes it fail (see the flags). It returns 0, or:
//   MP_ERR_BUFFER_TOO_SMALL: the output does not fit in `out_cap` bytes;
//     nothing was written to `out`, `*out_len` is 0. It cannot happen when
//     out_cap >= mp_charset_utf8_max_len(in_len).
//   MP_ERR_INVALID_ARGUMENT: `out_len` or `out_flags` is NULL, or `out`,
//     `in` or `charset` is NULL with a nonzero length.
// If iconv_open() fails (missing module, no memory), the text converts as
// an unknown charset's, flagged MP_CHARSET_UNKNOWN. Thread-safe: each
// thread keeps its own few iconv descriptors (closed when the thread ends),
// and the decoder tables are filled once per process. Allocates nothing
// else (iconv_open() allocates the descriptors). Time is linear in `in_len` (twice over when
// out_cap is below the bound, to measure before writing).
MP_API MP_WARN_UNUSED_RESULT int mp_charset_to_utf8(char *out, size_t out_cap, size_t *out_len,
                                                    unsigned *out_flags, const char *charset,
                                                    size_t charset_len, const uint8_t *in,
                                                    size_t in_len);

// mp_charset_to_utf8_id is mp_charset_to_utf8() with a charset id from
// mp_charset_lookup() instead of a name; an id it did not issue behaves as
// MP_CHARSET_ID_UNKNOWN. Same output, errors and thread-safety.
MP_API MP_WARN_UNUSED_RESULT int mp_charset_to_utf8_id(char *out, size_t out_cap, size_t *out_len,
                                                       unsigned *out_flags, int charset_id,
                                                       const uint8_t *in, size_t in_len);

// HTML and plain text.
//
// mp_html_to_text() turns an HTML body into plain text for previews and the
// search index; mp_text_to_html() turns a plain text body into HTML for JMAP
// clients that asked for HTML. Both take UTF-8 (convert the body with
// mp_charset_to_utf8() first; invalid bytes become U+FFFD), write valid UTF-8
// into the caller's buffer, run in time linear in the input, allocate nothing
// and are thread-safe.

// MP_HTML_LINK_URLS asks mp_html_to_text() to follow a link's text with
// " <url>", unless the text already is the URL (or the URL without its
// "mailto:"), or the URL is a fragment ("#...") or "javascript:".
#define MP_HTML_LINK_URLS 1u
// MP_HTML_TRUNCATE asks mp_html_to_text() to stop, successfully, when the
// output fills `out_cap` bytes (at a character boundary) instead of failing:
// a preview needs only the beginning, and parsing stops there.
#define MP_HTML_TRUNCATE 2u

// MP_HTML_TRUNCATED is set in `*out_flags` when MP_HTML_TRUNCATE cut the
// output short.
#define MP_HTML_TRUNCATED 1u

// mp_html_to_text_max_len returns the most output mp_html_to_text() can
// produce from `in_len` bytes: 4 * in_len + 4, or SIZE_MAX if that does not
// fit in a size_t. Text and references never grow beyond 3 bytes per input
// byte (an invalid byte becomes U+FFFD); the widest construct is a list item
// ("<li>", 4 bytes) that starts a line with up to 2 line breaks, 6 bytes of
// indentation and a 5-byte "999. " marker. The converter also enforces the
// bound. Thread-safe; never fails.
MP_API size_t mp_html_to_text_max_len(size_t in_len);

// mp_html_to_text converts the HTML in `in` (`in_len` bytes of UTF-8,
// untrusted, need not be well-formed) to plain text in `out` (`out_cap`
// bytes, owned by the caller), sets `*out_len` to the text's length and
// `*out_flags` to MP_HTML_* result flags. `flags` is 0 or MP_HTML_LINK_URLS |
// MP_HTML_TRUNCATE. What it does, following the HTML tokenizer's rules where
// they matter for robustness:
//   - drops the content of <script>, <style>, <title>, <template>, <iframe>,
//     <noembed>, <noframes> and <head> (until </head>,
//     <body> or the first element that only a body holds), comments
//     (an unterminated one runs to the end), <!...> and <?...>;
//   - decodes numeric character references (&#233; &#xE9;, with HTML's
//     Windows-1252 reading of 128-159 and U+FFFD for 0, surrogates and values
//     beyond U+10FFFF) and the named ones in common use (&amp; &lt; &gt;
//     &quot; &apos; &nbsp; &copy; &eacute; &mdash; &hellip; &euro; ...); an
//     unknown reference stays as written;
//   - collapses white space (a no-break space counts as one) and drops the
//     invisible characters that newsletters pad previews with (soft hyphen,
//     zero-width space/joiners, word joiner, BOM); keeps it inside <pre>;
//   - ends a line at <br> and at block elements (div, tr, li, headings ...),
//     leaves a blank line around paragraphs, headings, lists, tables and
//     quotes (never more than one blank line, none at the start or end),
//     separates table cells with a space;
//   - starts list items with "• ", or "N. " in ordered lists (capped at 999),
//     indented two spaces per nesting level (up to three);
//   - keeps a link's text, and with MP_HTML_LINK_URLS its URL.
// An element name or attribute may be of any length; an unterminated tag at
// the end is dropped. It returns 0, or:
//   MP_ERR_BUFFER_TOO_SMALL: the text does not fit in `out_cap` bytes and
//     MP_HTML_TRUNCATE is not set; `*out_len` is 0 and `out` may have been
//     overwritten. It cannot happen when
//     out_cap >= mp_html_to_text_max_len(in_len).
//   MP_ERR_INVALID_ARGUMENT: `out_len` or `out_flags` is NULL, `out` or `in`
//     is NULL with a nonzero length, or `flags` has an unknown bit.
// Thread-safe; allocates nothing; keeps no pointer to `in` or `out`.
MP_API MP_WARN_UNUSED_RESULT int mp_html_to_text(char *out, size_t out_cap, size_t *out_len,
                                                 unsigned *out_flags, const uint8_t *in,
                                                 size_t in_len, unsigned flags);

// MP_TEXT_HTML_PRE_WRAP asks mp_text_to_html() to wrap the text in
// <div style="white-space:pre-wrap"> and keep line breaks and spaces as they
// are, instead of the default <br> and &nbsp;.
#define MP_TEXT_HTML_PRE_WRAP 1u

// mp_text_to_html_max_len returns the most output mp_text_to_html() can
// produce from `in_len` bytes: 6 * in_len + 40 (the longest escape, "&quot;"
// or "&nbsp;", is 6 bytes for 1; the pre-wrap <div> and </div> take 40), or
// SIZE_MAX if that does not fit in a size_t. Thread-safe; never fails.
MP_API size_t mp_text_to_html_max_len(size_t in_len);

// mp_text_to_html converts the plain text in `in` (`in_len` bytes of UTF-8)
// to an HTML fragment in `out` (`out_cap` bytes, owned by the caller) and
// sets `*out_len`. It escapes & < > " ' (as &amp; &lt; &gt; &quot; &#39;),
// turns invalid UTF-8 and NUL into U+FFFD, drops other C0 controls except tab
// and line breaks, and normalises CRLF and CR to one line break. By default
// (`flags` 0) each line break becomes "<br>\n" and a space at the start of a
// line or after another space becomes "&nbsp;", so the layout survives
// without CSS; with MP_TEXT_HTML_PRE_WRAP the text is wrapped in
// <div style="white-space:pre-wrap"> ... </div> with line breaks as "\n". It
// makes no links: a heuristic linkifier is the client's choice. It returns 0,
// or:
//   MP_ERR_BUFFER_TOO_SMALL: the HTML does not fit in `out_cap` bytes;
//     `*out_len` is 0 and `out` may have been overwritten. It cannot happen
//     when out_cap >= mp_text_to_html_max_len(in_len).
//   MP_ERR_INVALID_ARGUMENT: `out_len` is NULL, `out` or `in` is NULL with a
//     nonzero length, or `flags` has an unknown bit.
// Thread-safe; allocates nothing.
MP_API MP_WARN_UNUSED_RESULT int mp_text_to_html(char *out, size_t out_cap, size_t *out_len,
                                                 const uint8_t *in, size_t in_len, unsigned flags);

// Implementations.
//
// The byte scanning under mp_message_parse() (line ends, boundary candidate
// lines, header field ends and colons, line counts) runs on one
// implementation chosen once, at first use: the first of mp_impl_get(0),
// mp_impl_get(1), ... that this CPU supports ("avx512", "avx2", "sse2",
// "neon", "swar", "scalar"; the list depends on the target; "avx512" asks
// for AVX-512 F and BW, Skylake-X and later), unless the
// environment variable MAILPARSE_IMPL names one. If it names one that is
// unknown or that this CPU lacks, mp_message_parse() returns
// MP_ERR_UNSUPPORTED (nothing aborts). Every implementation gives exactly the results of "scalar",
// the specification, which the tests and fuzzers check.

// mp_impl_name returns the name of the implementation in use (a static
// string), choosing it first if no call has yet; "unsupported" after an
// unusable MAILPARSE_IMPL. Thread-safe.
MP_API const char *mp_impl_name(void);

// mp_impl_count returns the number of implementations compiled into this
// library, supported by this CPU or not. Thread-safe.
MP_API size_t mp_impl_count(void);

// mp_impl_get returns the name (a static string) of implementation `index`
// in priority order (the last is "scalar"), or NULL when `index` >=
// mp_impl_count(). If `supported` is not NULL it receives 1 when this CPU can
// run it, else 0. Thread-safe.
MP_API const char *mp_impl_get(size_t index, int *supported);

// mp_impl_force makes `name` the implementation in use, or returns to the
// automatic choice when `name` is NULL (MAILPARSE_IMPL is then ignored). It
// returns 0, or MP_ERR_UNSUPPORTED for a name that is unknown or that this
// CPU lacks (the choice is unchanged). Thread-safe, but meant for tests and
// benchmarks: a parse already running may finish on either implementation,
// which gives the same results.
MP_API MP_WARN_UNUSED_RESULT int mp_impl_force(const char *name);

// Body selection.
//
// What a mail client shows: which parts make up the text body, the HTML
// body and the attachment list, chosen by the parsing algorithm of RFC 8621
// (JMAP Mail) §4.1.4 over the part tree, plus the filename of a part and a
// short plain-text preview. Results are part indices (mp_message_part()),
// written into an array the caller owns; the only allocations are scratch
// buffers from the settings' allocator (parameter parsing, the lists while
// they are built, a body prefix for the preview), freed before return.

// mp_selection is the result of mp_message_select(): three lists of part
// indices in depth-first order, each pointing into the caller's array.
//   `text_body`: the parts to show, one after the other, as the body when
//   plain text is preferred: text/plain, text/html (only when no plain
//   alternative exists), image/*, audio/* and video/* parts.
//   `html_body`: the same when HTML is preferred.
//   `attachments`: every other leaf part (and message/rfc822 or
//   message/global parts, as a whole: their inner parts are never listed),
//   plus inline image/audio/video parts that are not in both body lists.
// A part may be in `text_body` and `html_body` at once (a text/plain part
// with no HTML alternative is both). A part is in a body list and in
// `attachments` only when it is image/*, audio/* or video/* (RFC 8621 lists
// such a part as an attachment when one of the bodies cannot show it).
typedef struct mp_selection {
  const uint32_t *text_body;
  size_t num_text_body;
  const uint32_t *html_body;
  size_t num_html_body;
  const uint32_t *attachments;
  size_t num_attachments;
} mp_selection;

// MP_SELECT_MAX_DEPTH bounds the nesting of multiparts that selection
// descends through (deeper than the parser's default depth).
#define MP_SELECT_MAX_DEPTH 256

// mp_message_select_max_len returns the number of array entries
// mp_message_select() may need for `msg`: three times the number of parts
// (no part occurs twice in one list). 0 for NULL. Thread-safe.
MP_API size_t mp_message_select_max_len(const mp_message *msg);

// mp_message_select computes the text body, HTML body and attachments of the
// message whose top part is `root` (0 for the message; the child of a
// message/rfc822 part for an attached message) into `*out`, whose lists
// point into `idx` (`idx_cap` entries, owned by the caller; valid while it
// is). It follows the parseStructure() algorithm of RFC 8621 §4.1.4 step by
// step, with the part's values as JMAP defines them:
//   - type: the part's media type (the default text/plain, or message/rfc822
//     inside multipart/digest, when Content-Type is absent or unparsable);
//   - disposition: the Content-Disposition type, compared without case; an
//     unparsable one counts as absent;
//   - name: the filename mp_part_filename() gives (empty counts as none);
//   - a part is a multipart when the parser split it (MP_PART_MULTIPART): a
//     multipart kept as a leaf (no boundary, limits) is an attachment, so
//     that its bytes stay reachable;
//   - message/rfc822 and message/global parts are leaves (attachments).
// The rules in short: a part is inline when its disposition is not
// "attachment", it is text/plain, text/html, image/*, audio/* or video/*,
// and it is the first child of its multipart, or (outside
// multipart/related) an image/audio/video part or a part without a name.
// Inside multipart/alternative, text/plain goes to `text_body`, text/html to
// `html_body`, an inline image/audio/video part to `attachments`; an
// alternative that offers only HTML (or only plain text) copies it to the
// other list. Elsewhere under an alternative, a text/plain part stops the
// HTML list and a text/html part stops the text list for the rest of that
// multipart. Outside alternatives an inline part goes to both body lists.
// Where RFC 8621's pseudo-code would append to a list that an enclosing
// level stopped, the part is not listed.
// It returns 0, or:
//   MP_ERR_INVALID_ARGUMENT: `msg` or `out` NULL, `root` out of range, or
//     `idx` NULL with `idx_cap` > 0.
//   MP_ERR_BUFFER_TOO_SMALL: `idx_cap` is less than needed
//     (mp_message_select_max_len() is always enough).
//   MP_ERR_LIMIT: multiparts nested deeper than MP_SELECT_MAX_DEPTH below
//     `root`.
//   -ENOMEM: the settings' allocator failed (scratch for the header parsers).
// On error `*out` holds empty lists. Time is linear in the parts' header
// sizes. Thread-safe on a shared const message.
MP_API MP_WARN_UNUSED_RESULT int mp_message_select(const mp_message *msg, mp_selection *out,
                                                   uint32_t *idx, size_t idx_cap, uint32_t root);

// mp_part_filename writes the filename of part `part` into `out` (`out_cap`
// bytes, owned by the caller; not NUL-terminated) and sets `*out_len`: the
// Content-Disposition "filename" parameter or, when that is absent, the
// Content-Type "name" parameter (RFC 8621 §4.1.4 "name"), decoded as
// mp_content_type_parse() decodes values (RFC 2231 continuations and
// charsets, RFC 2047 words, UTF-8 out). Passing `out` NULL with `out_cap` 0
// is a size query. It returns 1 when the part has such a parameter (its
// value may be empty), 0 when it has none (`*out_len` 0), or:
//   MP_ERR_INVALID_ARGUMENT: `msg` or `out_len` NULL, `part` out of range,
//     `out` NULL with `out_cap` > 0.
//   MP_ERR_BUFFER_TOO_SMALL: the name does not fit (`*out_len` 0).
//   -ENOMEM: the settings' allocator failed (scratch, freed before return).
// Thread-safe on a shared const message.
MP_API MP_WARN_UNUSED_RESULT int mp_part_filename(const mp_message *msg, uint32_t part, char *out,
                                                  size_t out_cap, size_t *out_len);

// MP_PREVIEW_MAX_CHARS is the longest preview in characters (RFC 8621
// §4.1.4: at most 256); MP_PREVIEW_MAX_LEN the same in UTF-8 bytes.
#define MP_PREVIEW_MAX_CHARS 256
#define MP_PREVIEW_MAX_LEN (4 * MP_PREVIEW_MAX_CHARS)
// MP_PREVIEW_MAX_INPUT is how many decoded bytes of each part a preview
// reads at most (1 MiB): enough to skip the longest style sheets of real
// newsletters, and a bound on the work for huge bodies.
#define MP_PREVIEW_MAX_INPUT ((size_t)1 << 20)

// mp_message_preview writes the RFC 8621 "preview" of a message into `out`
// (`out_cap` bytes, owned by the caller; not NUL-terminated) and sets
// `*out_len`: the text of the text/plain and text/html parts of
// `sel->text_body` in order (from mp_message_select(); HTML turned into text
// by mp_html_to_text()), each decoded (transfer encoding, then charset to
// UTF-8 as mp_charset_to_utf8() does, us-ascii by default), with every run
// of white space and control characters (and U+00A0) collapsed to one
// space, trimmed at both ends, and cut after MP_PREVIEW_MAX_CHARS
// characters (or one fewer, so that it never ends with a space).
// Only the first MP_PREVIEW_MAX_INPUT decoded bytes of a part are read (a
// character cut there becomes U+FFFD). Parts that are not text add nothing;
// a message without text gives an empty preview. The output is valid UTF-8.
// It returns 0, or:
//   MP_ERR_INVALID_ARGUMENT: `msg`, `sel` or `out_len` NULL, `out` NULL
//     with `out_cap` > 0, or an index in `sel->text_body` out of range.
//   MP_ERR_BUFFER_TOO_SMALL: the preview does not fit (`*out_len` 0);
//     MP_PREVIEW_MAX_LEN bytes are always enough.
//   MP_ERR_ENCODING: as for mp_part_decode().
//   -ENOMEM: the settings' allocator failed (scratch, freed before return).
// Thread-safe on a shared const message.
MP_API MP_WARN_UNUSED_RESULT int mp_message_preview(const mp_message *msg, char *out,
                                                    size_t out_cap, size_t *out_len,
                                                    const mp_selection *sel);

// End of body selection.

#ifdef __cplusplus
}
#endif

#endif // MP_MAILPARSE_H
