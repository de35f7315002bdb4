// hp_internal.h: the header-protection engine (RFC 9788) shared by the
// PGP/MIME and S/MIME builders, never installed.
#ifndef MC_HP_INTERNAL_H
#define MC_HP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mailparse.h"
#include "msgcrypt.h"

// hp_buf is a growable byte buffer with a sticky error: after a failed
// append every later one is a no-op and `err` keeps the first error.
typedef struct hp_buf {
  uint8_t *p;
  size_t len, cap;
  int err;
} hp_buf;

// hp_buf_free releases the bytes of `b` and resets it.
void mc_hp_buf_free(hp_buf *b);

// mc_hp_build splits the parsed message `msg` for encryption with header
// protection in `mode` (MC_HP_AT_REST, MC_HP_GATEWAY or MC_HP_BASELINE;
// see msgcrypt.h for the policies and the Legacy Display Element): `outer`
// receives
// the outer header fields (each ending with the message's line break,
// without MIME-Version and Content-*), `inner` the whole Cryptographic
// Payload (its header section with hp="cipher", the protected fields and
// the HP-Outer fields, an empty line, the body). Both must start empty; the
// caller frees them with mc_hp_buf_free, also on error. Returns 0,
// MC_ERR_UNSUPPORTED (an hp or hp-legacy-display parameter already on the
// top-level Content-Type), MC_ERR_INVALID_ARGUMENT (unknown mode, a message
// without header fields, a header line without a colon or with a NUL, a
// header line over 998 octets that cannot be folded) or -ENOMEM.
int mc_hp_build(hp_buf *outer, hp_buf *inner, uint32_t mode, const mp_message *msg);

#endif // MC_HP_INTERNAL_H
