// der_write.h: a builder for DER (ITU-T X.690) output, the writing half of
// der_read.h, used by the CMS encryption engine. Writes go into a fixed
// caller buffer or a growable heap buffer; any failure (no room, no memory,
// a misuse) sets a sticky error bit so that a whole structure is written
// without checks and tested once at the end (CONVENTIONS §5). Lengths are
// always definite and minimal; constructed elements are opened, filled and
// closed, and SET OF contents are sorted as DER requires (X.690 §11.6).
#ifndef MC_DER_WRITE_H
#define MC_DER_WRITE_H

#include <stddef.h>
#include <stdint.h>

// Error kinds kept in dw.err: 0 while every write succeeded.
enum { DW_ERR_NONE = 0, DW_ERR_NO_ROOM, DW_ERR_NO_MEMORY, DW_ERR_MISUSE };

typedef struct dw {
  uint8_t *buf;
  size_t len;
  size_t cap;
  int growable;
  int err;
} dw;

// dw_init_fixed starts a builder over the caller's `buf` of `cap` bytes.
void dw_init_fixed(dw *w, uint8_t *buf, size_t cap);

// dw_init_growable starts a builder that owns a heap buffer, grown as
// needed from `initial_cap` bytes; dw_cleanup frees it.
void dw_init_growable(dw *w, size_t initial_cap);

// dw_cleanup wipes the bytes written so far (they may hold keys) and frees
// a growable buffer. The builder can be initialised again afterwards.
void dw_cleanup(dw *w);

// dw_ok returns 1 while no write has failed.
static inline int dw_ok(const dw *w) {
  return w->err == DW_ERR_NONE;
}

// dw_header_len returns the length of a tag byte plus the minimal length
// encoding of `content_len`.
size_t dw_header_len(size_t content_len);

// dw_bytes appends `len` raw bytes (which must already be DER).
void dw_bytes(dw *w, const uint8_t *p, size_t len);

// dw_reserve appends `len` bytes and returns where they are, for the caller
// to fill (ciphertext produced in place); NULL after an error. The pointer
// is valid until the next write to `w`.
uint8_t *dw_reserve(dw *w, size_t len);

// dw_header writes a tag byte and the definite length `content_len`; the
// caller then appends exactly that many content bytes.
void dw_header(dw *w, unsigned tag, size_t content_len);

// dw_element writes a whole primitive element.
void dw_element(dw *w, unsigned tag, const uint8_t *content, size_t len);

// dw_open starts a constructed element with `tag` and returns a mark for
// dw_close; dw_close fixes its length (moving the contents when the length
// needs more than one byte). dw_close_set_of also sorts the elements of a
// SET OF by their encodings, as DER requires.
size_t dw_open(dw *w, unsigned tag);
void dw_close(dw *w, size_t mark);
void dw_close_set_of(dw *w, size_t mark);

// dw_uint writes a non-negative INTEGER of value `v`.
void dw_uint(dw *w, uint64_t v);

// dw_integer writes an INTEGER whose content bytes are given (already
// minimal and two's complement, as a certificate's serial number is).
void dw_integer(dw *w, const uint8_t *content, size_t len);

// dw_oid writes an OBJECT IDENTIFIER from its content bytes.
void dw_oid(dw *w, const uint8_t *content, size_t len);

// dw_null writes a NULL.
void dw_null(dw *w);

#endif // MC_DER_WRITE_H
