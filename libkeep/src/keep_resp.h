// keep_resp.h: libkeep's RESP back end (resp.c), private. The blocking
// client (client.c) hands every request to it, as a keep/1 request frame,
// when keep_client_new() was given a redis:// or valkey:// member; the back
// end speaks RESP2 to a Redis or Valkey server and answers with a keep/1
// answer frame, so that every public call maps statuses the same way.
// keep.h, "RESP back end", says what is offered and what is not.
#ifndef KEEP_RESP_H
#define KEEP_RESP_H

#include <stdbool.h>
#include <stdint.h>

#include "keep_internal.h"

struct keep_resp;

// keep_resp_url tells whether `member` selects the RESP back end.
bool keep_resp_url(const char *member);

// keep_resp_open validates `s` for the RESP back end (one member, a
// loopback address, no cluster ids, no TLS) and connects. Errors:
// KEEP_ERR_INVALID_ARGUMENT, -ENOMEM, connect errors as keep_client_new().
int keep_resp_open(struct keep_resp **out, const keep_settings *s);

// keep_resp_close closes and frees `r`; NULL is a no-op.
void keep_resp_close(struct keep_resp *r);

// keep_resp_call executes the keep/1 request `req` and fills `ans` as keepd
// would answer (byte fields point into `r` until its next call); returns
// the answer's status or a transport error. `*sent_ns` (may be NULL) gets
// the time the command was sent. KEEP_ERR_INVALID_ARGUMENT for requests the
// back end does not offer.
int keep_resp_call(struct keep_resp *r, const keep_frame *req, keep_frame *ans, uint64_t *sent_ns);

// keep_resp_next_event is keep_next_event() for the back end's
// subscriptions.
int keep_resp_next_event(struct keep_resp *r, keep_event *out, uint32_t timeout_ms);

// keep_resp_parse_check parses one RESP2 reply at the front of `in`, as the
// back end parses what a server sends, for the fuzz harness: 1 and
// `*out_used` when a whole reply is there, 0 when more bytes are needed,
// KEEP_ERR_PROTOCOL or KEEP_ERR_TOO_LARGE. It never reads beyond `in_len`.
int keep_resp_parse_check(const uint8_t *in, size_t in_len, size_t *out_used);

#endif // KEEP_RESP_H
