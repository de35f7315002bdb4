// keep_internal.h: the keep/1 wire codec and key placement, private to
// libkeep and shared with servers/keepd through keep_internal_dep. The wire
// format itself is specified in docs/keep-protocol.md; this header is its C
// rendering: opcodes, flags, limits, the decoded frame, the bounded cursor
// the decoder reads through, and SipHash-2-4 for slots.
#ifndef KEEP_INTERNAL_H
#define KEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "keep.h"

// Wire constants.

#define KEEP_PROTO_VERSION 1
#define KEEP_HEADER_LEN 16
// KEEP_MAX_KEY is the longest key, topic or holder-free name (bytes).
#define KEEP_MAX_KEY 250
// KEEP_MAX_HOLDER is the longest lock holder id (bytes).
#define KEEP_MAX_HOLDER 64
// KEEP_MAX_TEXT is the longest member address or error message (bytes).
#define KEEP_MAX_TEXT 255
// KEEP_MAX_VALUE_HARD is the largest value or payload the protocol allows;
// servers and clients may configure a lower limit.
#define KEEP_MAX_VALUE_HARD (1024u * 1024u)
// KEEP_MAX_BODY bounds the length field: the largest body any frame can have.
#define KEEP_MAX_BODY (KEEP_MAX_VALUE_HARD + 1024u)
// KEEP_MAX_VIEW_ENTRIES bounds the ranges in one cluster view.
#define KEEP_MAX_VIEW_ENTRIES 64
#define KEEP_SLOTS 16384u

// The public header states the same limits for library users.
_Static_assert(KEEP_MAX_KEY == KEEP_MAX_KEY_LEN, "key limit");
_Static_assert(KEEP_MAX_HOLDER == KEEP_MAX_HOLDER_LEN, "holder limit");
_Static_assert(KEEP_MAX_VALUE_HARD == KEEP_MAX_VALUE_LEN, "value limit");
_Static_assert(KEEP_SLOTS == KEEP_NUM_SLOTS, "slot count");

// Requests.
enum keep_opcode {
  KEEP_OP_PING = 0x01,
  KEEP_OP_GET = 0x02,
  KEEP_OP_SET = 0x03,
  KEEP_OP_SETNX = 0x04,
  KEEP_OP_DEL = 0x05,
  KEEP_OP_INCR = 0x06,
  KEEP_OP_EXPIRE = 0x07,
  KEEP_OP_LOCK = 0x08,
  KEEP_OP_UNLOCK = 0x09,
  KEEP_OP_EXTEND = 0x0a,
  KEEP_OP_PUBLISH = 0x0b,
  KEEP_OP_SUBSCRIBE = 0x0c,
  KEEP_OP_UNSUBSCRIBE = 0x0d,
  KEEP_OP_CLUSTER = 0x0e,
  // Member to member: key handoff on a clean leave (docs/keep-protocol.md,
  // "Key handoff"). Appended: the codes above never change.
  KEEP_OP_HANDOFF_PULL = 0x0f,
  KEEP_OP_HANDOFF_DONE = 0x10,
  // Answers and pushed frames.
  KEEP_OP_OK = 0x80,
  KEEP_OP_NOT_FOUND = 0x81,
  KEEP_OP_EXISTS = 0x82,
  KEEP_OP_BUSY = 0x83,
  KEEP_OP_MOVED = 0x84,
  KEEP_OP_NOT_YET = 0x85,
  KEEP_OP_ERROR = 0x86,
  KEEP_OP_VIEW = 0x87,
  KEEP_OP_EVENT = 0x88,
  KEEP_OP_HEARTBEAT = 0x89,
  KEEP_OP_ENTRY = 0x8a, // one key of a HANDOFF_PULL page
};

// Flags (header bytes 6-7). Undefined bits must be zero.
#define KEEP_FLAG_COUNTER 0x0001u // OK to GET: the value is an 8-byte LE counter
#define KEEP_FLAGS_KNOWN 0x0001u

// Codes carried by an ERROR answer.
enum keep_code {
  KEEP_CODE_BAD_FRAME = 1,
  KEEP_CODE_UNKNOWN_OP = 2,
  KEEP_CODE_TOO_LARGE = 3,
  KEEP_CODE_WRONG_TYPE = 4,
  KEEP_CODE_OUT_OF_MEMORY = 5,
  KEEP_CODE_OVERFLOW = 6,
  KEEP_CODE_INVALID = 7,
  KEEP_CODE_SHUTTING_DOWN = 8,
};

// keep_view_entry is one range of slots [first, last] owned by `member`.
typedef struct keep_view_entry {
  uint16_t first, last;
  const uint8_t *member;
  size_t member_len;
} keep_view_entry;

// keep_frame is one decoded frame. Byte fields point into the buffer it was
// decoded from and are valid while that buffer is. Which fields an opcode
// uses is listed in docs/keep-protocol.md and keep_frame_layout() below:
//   key   key or topic (u8 length)
//   value value or payload (u32 length)
//   text  lock holder id, member address or error message (u8 length)
//   num   ttl / delta / lease / seq / slot / code / remaining ms
//   num2  the second number (INCR's ttl, EXTEND's and LOCK's lease)
typedef struct keep_frame {
  uint8_t opcode;
  uint16_t flags;
  uint64_t id;
  const uint8_t *key;
  size_t key_len;
  const uint8_t *value;
  size_t value_len;
  const uint8_t *text;
  size_t text_len;
  uint64_t num;
  uint64_t num2;
  size_t num_view;
  keep_view_entry view[KEEP_MAX_VIEW_ENTRIES];
} keep_frame;

// keep_frame_decode decodes one frame from the front of `in`. It returns 1
// and sets `*out_used` to the frame's size when a whole valid frame is there,
// 0 when `in` holds only part of a frame (read more), KEEP_ERR_TOO_LARGE when
// the length field or a value exceeds `max_value_len` (0 means
// KEEP_MAX_VALUE_HARD) and KEEP_ERR_PROTOCOL for anything malformed. It never
// reads beyond `in_len` bytes. Thread-safe.
int keep_frame_decode(keep_frame *out, size_t *out_used, const uint8_t *in, size_t in_len,
                      size_t max_value_len);

// keep_frame_encoded_len returns the number of bytes keep_frame_encode()
// writes for `f`, or 0 if `f` is not encodable (unknown opcode, field over
// its limit).
size_t keep_frame_encoded_len(const keep_frame *f);

// keep_frame_encode writes `f` into `out`. Returns 0, KEEP_ERR_INVALID_ARGUMENT
// if `f` is not encodable, or -ENOBUFS if `out_cap` is smaller than
// keep_frame_encoded_len(f) (nothing is written then).
int keep_frame_encode(uint8_t *out, size_t out_cap, size_t *out_len, const keep_frame *f);

// keep_frame_init clears `f` and sets its opcode and id.
static inline void keep_frame_init(keep_frame *f, uint8_t opcode, uint64_t id) {
  memset(f, 0, offsetof(keep_frame, view));
  f->opcode = opcode;
  f->id = id;
}

// keep_frame_is_request tells whether `opcode` is a request a client sends.
static inline bool keep_frame_is_request(uint8_t opcode) {
  return opcode >= KEEP_OP_PING && opcode <= KEEP_OP_HANDOFF_DONE;
}

// keep_frame_peek_header reads the body length and opcode of the frame at
// the front of `in` without validating the body; returns false when fewer
// than KEEP_HEADER_LEN bytes are there.
static inline bool keep_frame_peek_header(const uint8_t *in, size_t in_len, uint32_t *body_len,
                                          uint64_t *id) {
  if (in_len < KEEP_HEADER_LEN)
    return false;
  *body_len =
      (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | in[8 + i];
  *id = v;
  return true;
}

// Placement.

// keep_siphash24 is SipHash-2-4 (Aumasson and Bernstein, 2012) of `in` under
// the 16-byte key `k`. Thread-safe.
uint64_t keep_siphash24(const uint8_t k[16], const uint8_t *in, size_t in_len);

// keep_key_hash is the keyed hash every placement decision starts from; the
// slot is its low 14 bits (keep_hash_slot).
static inline uint64_t keep_key_hash(const uint8_t secret[16], const uint8_t *key, size_t key_len) {
  return keep_siphash24(secret, key, key_len);
}

// keep_member_score is the rendezvous score of member `id` for `slot`
// (place.c); the live member with the highest score owns the slot.
uint64_t keep_member_score(const uint8_t secret[KEEP_SECRET_LEN], uint32_t slot, uint16_t id);

static inline uint32_t keep_hash_slot(uint64_t h) {
  return (uint32_t)(h & (KEEP_SLOTS - 1));
}

// Bounded cursor (CONVENTIONS.md §5): each getter returns 1 and advances on
// success, 0 and leaves the cursor alone otherwise.

struct keep_cur {
  const uint8_t *p;
  size_t len;
};

static inline int keep_cur_get_u8(struct keep_cur *c, uint8_t *v) {
  if (c->len < 1)
    return 0;
  *v = c->p[0];
  c->p++;
  c->len--;
  return 1;
}

// keep_get_le reads the `n`-byte (at most 8) little-endian number at `p`;
// the caller has checked that `n` bytes are there.
static inline uint64_t keep_get_le(const uint8_t *p, size_t n) {
  uint64_t x = 0;
  for (size_t i = n; i-- > 0;)
    x = x << 8 | p[i];
  return x;
}

static inline int keep_cur_get_le(struct keep_cur *c, size_t n, uint64_t *v) {
  if (c->len < n)
    return 0;
  *v = keep_get_le(c->p, n);
  c->p += n;
  c->len -= n;
  return 1;
}

static inline int keep_cur_get_bytes(struct keep_cur *c, size_t n, const uint8_t **v) {
  if (c->len < n)
    return 0;
  *v = c->p;
  c->p += n;
  c->len -= n;
  return 1;
}

// keep_put_le writes `v` as `n` (at most 8) little-endian bytes at `out`.
static inline void keep_put_le(uint8_t *out, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; i++) {
    out[i] = (uint8_t)v;
    v >>= 8;
  }
}

#endif // KEEP_INTERNAL_H
