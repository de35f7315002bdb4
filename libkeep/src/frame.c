// frame.c: the keep/1 frame codec (docs/keep-protocol.md), used by the client
// and by servers/keepd alike. Each opcode's body is a fixed sequence of
// fields described by a small layout string, so decoding and encoding walk
// the same table and cannot drift apart; the decoder reads only through the
// bounded cursor and rejects anything that would not encode back to the very
// same bytes (unknown flags, trailing bytes, out-of-range lengths), which is
// what makes the fuzzer's round-trip property hold.
#include <errno.h>

#include "keep_internal.h"

// Field letters: k key/topic (u8 len, 1..250), v value (u32 len), h holder
// (u8 len, 1..64), t text (u8 len, 0..255), n num (u64), m num2 (u64),
// s slot (u16 < 16384, in num), c code (u16, in num), w view (u16 count, then
// per range u16 first, u16 last, u8 len + member address).
static const char *frame_layout(uint8_t opcode) {
  switch (opcode) {
  case KEEP_OP_PING:
  case KEEP_OP_CLUSTER:
  case KEEP_OP_NOT_FOUND:
  case KEEP_OP_BUSY:
    return "";
  case KEEP_OP_GET:
  case KEEP_OP_DEL:
  case KEEP_OP_SUBSCRIBE:
  case KEEP_OP_UNSUBSCRIBE:
    return "k";
  case KEEP_OP_SET:
  case KEEP_OP_SETNX:
  case KEEP_OP_EVENT:
    return "knv";
  case KEEP_OP_INCR:
    return "knm";
  case KEEP_OP_EXPIRE:
  case KEEP_OP_HEARTBEAT:
    return "kn";
  case KEEP_OP_LOCK:
  case KEEP_OP_EXTEND:
    return "khn";
  case KEEP_OP_UNLOCK:
    return "kh";
  case KEEP_OP_PUBLISH:
    return "kv";
  case KEEP_OP_OK:
    return "nv";
  case KEEP_OP_EXISTS:
  case KEEP_OP_NOT_YET:
    return "n";
  case KEEP_OP_MOVED:
    return "st";
  case KEEP_OP_ERROR:
    return "ct";
  case KEEP_OP_VIEW:
    return "nw";
  case KEEP_OP_HANDOFF_PULL:
    return "nmvt";
  case KEEP_OP_HANDOFF_DONE:
    return "nt";
  case KEEP_OP_ENTRY:
    return "knmvt";
  default:
    return NULL;
  }
}

static int decode_body(keep_frame *f, struct keep_cur *c, const char *layout, size_t max_value) {
  uint64_t n;
  uint8_t len8;
  for (const char *l = layout; *l != '\0'; l++) {
    switch (*l) {
    case 'k':
      if (!keep_cur_get_u8(c, &len8) || len8 == 0 || len8 > KEEP_MAX_KEY ||
          !keep_cur_get_bytes(c, len8, &f->key))
        return KEEP_ERR_PROTOCOL;
      f->key_len = len8;
      break;
    case 'h':
    case 't':
      if (!keep_cur_get_u8(c, &len8) || (*l == 'h' && (len8 == 0 || len8 > KEEP_MAX_HOLDER)) ||
          !keep_cur_get_bytes(c, len8, &f->text))
        return KEEP_ERR_PROTOCOL;
      f->text_len = len8;
      break;
    case 'v':
      if (!keep_cur_get_le(c, 4, &n))
        return KEEP_ERR_PROTOCOL;
      if (n > max_value)
        return KEEP_ERR_TOO_LARGE;
      if (!keep_cur_get_bytes(c, (size_t)n, &f->value))
        return KEEP_ERR_PROTOCOL;
      f->value_len = (size_t)n;
      break;
    case 'n':
      if (!keep_cur_get_le(c, 8, &f->num))
        return KEEP_ERR_PROTOCOL;
      break;
    case 'm':
      if (!keep_cur_get_le(c, 8, &f->num2))
        return KEEP_ERR_PROTOCOL;
      break;
    case 's':
    case 'c':
      if (!keep_cur_get_le(c, 2, &f->num) || (*l == 's' && f->num >= KEEP_SLOTS))
        return KEEP_ERR_PROTOCOL;
      break;
    case 'w': {
      uint64_t count, first, last;
      if (!keep_cur_get_le(c, 2, &count) || count > KEEP_MAX_VIEW_ENTRIES)
        return KEEP_ERR_PROTOCOL;
      for (size_t i = 0; i < count; i++) {
        keep_view_entry *e = &f->view[i];
        if (!keep_cur_get_le(c, 2, &first) || !keep_cur_get_le(c, 2, &last) || first > last ||
            last >= KEEP_SLOTS || !keep_cur_get_u8(c, &len8) || len8 == 0 ||
            !keep_cur_get_bytes(c, len8, &e->member))
          return KEEP_ERR_PROTOCOL;
        e->first = (uint16_t)first;
        e->last = (uint16_t)last;
        e->member_len = len8;
      }
      f->num_view = (size_t)count;
      break;
    }
    default:
      return KEEP_ERR_PROTOCOL;
    }
  }
  return c->len == 0 ? 1 : KEEP_ERR_PROTOCOL;
}

int keep_frame_decode(keep_frame *out, size_t *out_used, const uint8_t *in, size_t in_len,
                      size_t max_value_len) {
  if (out == NULL || out_used == NULL || (in == NULL && in_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (max_value_len == 0 || max_value_len > KEEP_MAX_VALUE_HARD)
    max_value_len = KEEP_MAX_VALUE_HARD;
  struct keep_cur c = {in, in_len};
  uint64_t body_len = 0, flags, id;
  uint8_t version, opcode;
  if (!keep_cur_get_le(&c, 4, &body_len) || !keep_cur_get_u8(&c, &version) ||
      !keep_cur_get_u8(&c, &opcode) || !keep_cur_get_le(&c, 2, &flags) ||
      !keep_cur_get_le(&c, 8, &id)) {
    // An incomplete header may already show a bad version or length.
    if (in_len >= 5 && in[4] != KEEP_PROTO_VERSION)
      return KEEP_ERR_PROTOCOL;
    if (in_len >= 4 && body_len > KEEP_MAX_BODY)
      return KEEP_ERR_TOO_LARGE;
    return 0;
  }
  // Not keep/1 at all is a protocol error even when the "length" is huge.
  const char *layout = frame_layout(opcode);
  if (version != KEEP_PROTO_VERSION || layout == NULL || (flags & ~(uint64_t)KEEP_FLAGS_KNOWN))
    return KEEP_ERR_PROTOCOL;
  if (body_len > KEEP_MAX_BODY || body_len > max_value_len + 1024u)
    return KEEP_ERR_TOO_LARGE;
  if (c.len < body_len)
    return 0;
  struct keep_cur body = {c.p, (size_t)body_len};
  keep_frame_init(out, opcode, id);
  out->flags = (uint16_t)flags;
  int rc = decode_body(out, &body, layout, max_value_len);
  if (rc < 0)
    return rc;
  *out_used = KEEP_HEADER_LEN + (size_t)body_len;
  return 1;
}

size_t keep_frame_encoded_len(const keep_frame *f) {
  const char *layout = f == NULL ? NULL : frame_layout(f->opcode);
  if (layout == NULL || (f->flags & ~KEEP_FLAGS_KNOWN))
    return 0;
  size_t n = KEEP_HEADER_LEN;
  for (const char *l = layout; *l != '\0'; l++) {
    switch (*l) {
    case 'k':
      if (f->key_len == 0 || f->key_len > KEEP_MAX_KEY || f->key == NULL)
        return 0;
      n += 1 + f->key_len;
      break;
    case 'h':
    case 't':
      if (f->text_len > (*l == 'h' ? KEEP_MAX_HOLDER : KEEP_MAX_TEXT) ||
          (*l == 'h' && f->text_len == 0) || (f->text_len > 0 && f->text == NULL))
        return 0;
      n += 1 + f->text_len;
      break;
    case 'v':
      if (f->value_len > KEEP_MAX_VALUE_HARD || (f->value_len > 0 && f->value == NULL))
        return 0;
      n += 4 + f->value_len;
      break;
    case 'n':
    case 'm':
      n += 8;
      break;
    case 's':
      if (f->num >= KEEP_SLOTS)
        return 0;
      n += 2;
      break;
    case 'c':
      if (f->num > UINT16_MAX)
        return 0;
      n += 2;
      break;
    case 'w':
      if (f->num_view > KEEP_MAX_VIEW_ENTRIES)
        return 0;
      n += 2;
      for (size_t i = 0; i < f->num_view; i++) {
        const keep_view_entry *e = &f->view[i];
        if (e->first > e->last || e->last >= KEEP_SLOTS || e->member_len == 0 ||
            e->member_len > KEEP_MAX_TEXT || e->member == NULL)
          return 0;
        n += 5 + e->member_len;
      }
      break;
    }
  }
  return n;
}

int keep_frame_encode(uint8_t *out, size_t out_cap, size_t *out_len, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f);
  if (need == 0 || out_len == NULL || (out == NULL && out_cap > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (need > out_cap)
    return -ENOBUFS;
  uint8_t *p = out;
  keep_put_le(p, 4, need - KEEP_HEADER_LEN);
  p[4] = KEEP_PROTO_VERSION;
  p[5] = f->opcode;
  keep_put_le(p + 6, 2, f->flags);
  keep_put_le(p + 8, 8, f->id);
  p += KEEP_HEADER_LEN;
  for (const char *l = frame_layout(f->opcode); *l != '\0'; l++) {
    switch (*l) {
    case 'k':
      *p++ = (uint8_t)f->key_len;
      memcpy(p, f->key, f->key_len);
      p += f->key_len;
      break;
    case 'h':
    case 't':
      *p++ = (uint8_t)f->text_len;
      if (f->text_len > 0)
        memcpy(p, f->text, f->text_len);
      p += f->text_len;
      break;
    case 'v':
      keep_put_le(p, 4, f->value_len);
      p += 4;
      if (f->value_len > 0)
        memcpy(p, f->value, f->value_len);
      p += f->value_len;
      break;
    case 'n':
      keep_put_le(p, 8, f->num);
      p += 8;
      break;
    case 'm':
      keep_put_le(p, 8, f->num2);
      p += 8;
      break;
    case 's':
    case 'c':
      keep_put_le(p, 2, f->num);
      p += 2;
      break;
    case 'w':
      keep_put_le(p, 2, f->num_view);
      p += 2;
      for (size_t i = 0; i < f->num_view; i++) {
        const keep_view_entry *e = &f->view[i];
        keep_put_le(p, 2, e->first);
        keep_put_le(p + 2, 2, e->last);
        p[4] = (uint8_t)e->member_len;
        memcpy(p + 5, e->member, e->member_len);
        p += 5 + e->member_len;
      }
      break;
    }
  }
  *out_len = need;
  return 0;
}
