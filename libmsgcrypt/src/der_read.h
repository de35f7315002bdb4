// der_read.h: a bounded cursor over DER (ITU-T X.690) for the X.509, CRL and
// PKCS#7 readers. Every read checks the bytes that remain, advances only on
// success and returns 1 or 0, so that callers chain checks (CONVENTIONS §5).
// Only the definite, minimal encodings DER allows are accepted: single-byte
// tags (numbers 0-30), minimal lengths up to 2^32-1, no indefinite length.
#ifndef MC_DER_READ_H
#define MC_DER_READ_H

#include <stddef.h>
#include <stdint.h>

// Tag bytes: class and constructed bits as they appear in the encoding.
#define DER_BOOLEAN 0x01u
#define DER_INTEGER 0x02u
#define DER_BIT_STRING 0x03u
#define DER_OCTET_STRING 0x04u
#define DER_NULL 0x05u
#define DER_OID 0x06u
#define DER_UTF8_STRING 0x0cu
#define DER_PRINTABLE_STRING 0x13u
#define DER_T61_STRING 0x14u
#define DER_IA5_STRING 0x16u
#define DER_UTC_TIME 0x17u
#define DER_GENERALIZED_TIME 0x18u
#define DER_UNIVERSAL_STRING 0x1cu
#define DER_BMP_STRING 0x1eu
#define DER_SEQUENCE 0x30u
#define DER_SET 0x31u
#define DER_CONSTRUCTED 0x20u
#define DER_CONTEXT 0x80u

typedef struct der_cur {
  const uint8_t *p;
  size_t len;
} der_cur;

static inline der_cur der_cur_make(const uint8_t *p, size_t len) {
  der_cur c = {p, len};
  return c;
}

// der_peek_tag stores the next element's tag byte in `*tag` without
// consuming it; 0 at the end of the input.
int der_peek_tag(const der_cur *c, unsigned *tag);

// der_get_any reads one element: its tag byte into `*tag` (may be NULL),
// its contents into `*out` and, when `whole` is not NULL, the complete
// encoding (tag, length and contents) into `*whole`.
int der_get_any(der_cur *c, unsigned *tag, der_cur *out, der_cur *whole);

// der_get reads one element that must carry `tag`.
int der_get(der_cur *c, unsigned tag, der_cur *out);

// der_get_optional reads an element with `tag` when the next one has it
// and stores 1 in `*present`; otherwise stores 0 and consumes nothing. It
// fails only on a malformed element.
int der_get_optional(der_cur *c, unsigned tag, der_cur *out, int *present);

// der_get_integer reads an INTEGER and stores its value bytes in `*out`
// with the sign-padding 0x00 removed; negative values and non-minimal
// encodings fail. Zero is one 0x00 byte.
int der_get_integer(der_cur *c, der_cur *out);

// der_get_small_uint reads a non-negative INTEGER that fits in 32 bits.
int der_get_small_uint(der_cur *c, uint32_t *out);

// der_get_bool reads a BOOLEAN (0x00 or 0xff only, as DER requires).
int der_get_bool(der_cur *c, int *out);

// der_get_oid reads an OBJECT IDENTIFIER and checks its arcs are minimally
// encoded; `*out` receives the content bytes, which callers compare.
int der_get_oid(der_cur *c, der_cur *out);

// der_get_bit_string reads a BIT STRING and stores the bytes after the
// unused-bits count in `*out` and the count in `*unused` (0-7; unused bits
// must be zero, an empty string must have 0 unused bits).
int der_get_bit_string(der_cur *c, der_cur *out, unsigned *unused);

// der_get_time reads a UTCTime (years 1950-2049) or GeneralizedTime in the
// forms RFC 5280 §4.1.2.5 prescribes (seconds, "Z", no fractions) and
// stores seconds since the epoch in `*out`.
int der_get_time(der_cur *c, int64_t *out);

// der_oid_eq compares an OID's content bytes with `oid` of `oid_len` bytes.
int der_oid_eq(const der_cur *oid, const uint8_t *oid_bytes, size_t oid_len);

// der_oid_to_text writes the dotted form of an OID's contents with a NUL to
// `out` (room for `out_cap` bytes); arcs above 2^63 and output that does
// not fit fail.
int der_oid_to_text(char *out, size_t out_cap, const der_cur *oid);

// der_check_depth checks that `in` is a well-formed sequence of elements
// whose constructed contents nest at most `max_depth` levels. The X.509
// reader runs it first, so that later recursive readers need no limit of
// their own.
int der_check_depth(const uint8_t *in, size_t in_len, unsigned max_depth);

#endif // MC_DER_READ_H
