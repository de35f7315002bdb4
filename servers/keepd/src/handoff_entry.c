// handoff_entry.c: one key as the key handoff carries it, both ways. The
// serving member turns each entry of its store into an ENTRY frame; the
// pulling member checks each frame it receives against the entry's kind and
// stores it. A frame comes from another member over an authenticated
// connection, but it is still checked in full: a member with a bug must not
// be able to make a malformed entry here.
#include <errno.h>
#include <string.h>

#include "keepd.h"

void keepd_handoff_entry_frame(keep_frame *f, keepd_entry *e, uint64_t id, uint64_t now,
                               uint8_t le[8]) {
  keep_frame_init(f, KEEP_OP_ENTRY, id);
  f->key = e->key;
  f->key_len = e->key_len;
  // The remaining time travels, not the deadline: clocks differ per member.
  // Rounded up, so a lease never ends early on the new owner.
  if (e->expires_ns != 0)
    f->num = e->expires_ns > now ? (e->expires_ns - now + 999999) / 1000000 : 1;
  f->num2 = e->kind;
  if (e->kind == KIND_COUNTER) {
    keep_put_le(le, 8, (uint64_t)e->v.counter);
    f->value = le;
    f->value_len = 8;
  } else if (e->kind == KIND_VALUE) {
    f->value = keepd_entry_value(e);
    f->value_len = e->value_len;
  } else {
    f->text = keepd_entry_holder(e);
    f->text_len = e->holder_len;
  }
}

int keepd_handoff_store_entry(keepd_store *st, const keep_frame *f, uint64_t now) {
  size_t holder_len = 0;
  switch (f->num2) {
  case KIND_VALUE:
    if (f->text_len != 0)
      return -EBADMSG;
    break;
  case KIND_COUNTER:
    if (f->value_len != 8 || f->text_len != 0)
      return -EBADMSG;
    break;
  case KIND_LOCK:
    if (f->value_len != 0 || f->text_len == 0 || f->text_len > KEEP_MAX_HOLDER)
      return -EBADMSG;
    holder_len = f->text_len;
    break;
  default:
    return -EBADMSG;
  }
  keepd_entry *old = keepd_store_find(st, 0, f->key, f->key_len, now);
  keepd_entry *e = keepd_store_new_entry(st, 0, f->key, f->key_len, f->value_len, holder_len);
  if (e == NULL)
    return -ENOMEM;
  e->kind = (uint8_t)f->num2;
  uint64_t ms = f->num > KEEPD_HANDOFF_MAX_LEASE_MS ? KEEPD_HANDOFF_MAX_LEASE_MS : f->num;
  e->expires_ns = ms == 0 ? 0 : now + ms * 1000000u;
  if (e->kind == KIND_COUNTER)
    e->v.counter = (int64_t)keep_get_le(f->value, 8);
  else if (f->value_len > 0)
    memcpy(keepd_entry_value(e), f->value, f->value_len);
  if (holder_len > 0)
    memcpy(keepd_entry_holder(e), f->text, holder_len);
  if (keepd_store_put(st, e, old) < 0) {
    keepd_store_free_entry(st, e);
    return -ENOMEM;
  }
  return 0;
}

int keepd_handoff_store_frames(keepd_store *st, const uint8_t *frames, size_t len, uint64_t now) {
  keep_frame f;
  for (size_t pos = 0, used; pos < len; pos += used) {
    if (keep_frame_decode(&f, &used, frames + pos, len - pos, 0) != 1 || f.opcode != KEEP_OP_ENTRY)
      return -EBADMSG;
    int rc = keepd_handoff_store_entry(st, &f, now);
    if (rc != 0)
      return rc;
  }
  return 0;
}
