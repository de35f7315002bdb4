// dump.h: what the files of the mailparse command share: the JSON writer,
// the views of a message that both dump forms print (section numbers, the
// decoded text and digest of a part, decoded header values, the selection),
// and the two dump forms themselves.
#ifndef MAILPARSE_TOOL_DUMP_H
#define MAILPARSE_TOOL_DUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mailparse.h"

// JSON output (json_writer.c). Every string is written as ASCII JSON.

// json_bytes writes `len` bytes as a JSON string in which each byte of 0x80
// or more is the code point of the same value (\u0080-\u00ff): encoding the
// string as Latin-1 gives the exact bytes back.
void json_bytes(FILE *o, const void *p, size_t len);
// json_utf8 writes UTF-8 text as a JSON string of the same characters; each
// invalid sequence (maximal ill-formed subpart) becomes U+FFFD.
void json_utf8(FILE *o, const void *p, size_t len);
// json_utf8_or_null writes `s` with json_utf8, or null when `s.p` is NULL.
void json_utf8_or_null(FILE *o, mp_str s);
// json_key writes `,"key":` (without the comma when `first`).
void json_key(FILE *o, const char *key, int first);

// Message views (dump_common.c).

// dump_section writes the IMAP section number of part `ix` ("" for a
// multipart root).
void dump_section(const mp_message *m, uint32_t ix, char *out, size_t cap);
// dump_digest decodes part `ix` and writes its size and SHA-256 (hex).
int dump_digest(const mp_message *m, uint32_t ix, size_t *size, char hex[65]);
// dump_part_text decodes a text part to UTF-8 (charset parameter, us-ascii
// by default) into a malloc'ed buffer the caller frees; 0 or an error code.
int dump_part_text(const mp_message *m, uint32_t ix, char **out, size_t *out_len, unsigned *flags);
// dump_is_text says whether part `ix` is a text/* leaf.
int dump_is_text(const mp_part *p);
// dump_header_decoded writes the value of header `h`, unfolded and RFC 2047
// decoded to UTF-8, into a malloc'ed buffer.
int dump_header_decoded(const mp_message *m, const mp_header *h, char **out, size_t *out_len);
// dump_select runs mp_message_select() on the whole message into a
// malloc'ed index array (*idx, freed by the caller) and the preview.
int dump_select(const mp_message *m, mp_selection *sel, uint32_t **idx,
                char preview[MP_PREVIEW_MAX_LEN], size_t *preview_len);
// dump_imap renders the ENVELOPE (`envelope`) or BODYSTRUCTURE of the
// message into a malloc'ed buffer.
int dump_imap(const mp_message *m, int envelope, char **out, size_t *out_len);
const char *dump_problem_name(uint32_t kind);
const char *dump_encoding_name(mp_encoding e);

// json_mime parses a Content-Type (or, with `disposition`,
// Content-Disposition) value and, when it parses, writes `prefix` and then
// the members "type", "subtype" (Content-Type only) and "params"; on failure
// it writes nothing and returns the parser's status (typed_json.c).
int json_mime(FILE *o, const char *prefix, const char *in, size_t in_len, int disposition,
              unsigned *flags);

// json_typed writes the typed value of header `h` as JSON (an object, or
// null for fields without a typed parser) (typed_json.c).
int json_typed(FILE *o, const mp_message *m, const mp_header *h);

// The two dump forms (dump_json.c, dump_text.c); 0 or an error code.
int dump_json(FILE *o, const char *path, const mp_message *m);
int dump_text(FILE *o, const char *path, const mp_message *m);

#endif // MAILPARSE_TOOL_DUMP_H
