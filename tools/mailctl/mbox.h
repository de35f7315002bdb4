// mbox.h: mailctl's mboxrd reader (mbox.c).
#ifndef MAILCTL_MBOX_H
#define MAILCTL_MBOX_H

#include <stddef.h>
#include <stdint.h>

// mctl_mbox_msg is one message of an mbox; both views point into the
// caller's buffer and live as long as it does.
struct mctl_mbox_msg {
  const uint8_t *from_line; // the From_ line, without its '\n'
  size_t from_len;
  const uint8_t *data; // the message as stored in the mbox (quoted, LF)
  size_t len;
};

// mctl_mbox_next reads the message at m[*pos] (size bytes in all): a From_
// line, then everything up to the empty line that precedes the next From_
// line (or the end, without the final separating empty line). It advances
// *pos to the next From_ line. Returns 1 for a message, 0 at the end, -1 if
// m[*pos] does not start a From_ line.
int mctl_mbox_next(struct mctl_mbox_msg *out, const uint8_t *m, size_t size, size_t *pos);

// mctl_mbox_max_len bounds the output of mctl_mbox_unquote for len bytes.
static inline size_t mctl_mbox_max_len(size_t len) {
  return 2 * len + 2;
}

// mctl_mbox_unquote writes the message `in` (len bytes, as mctl_mbox_next
// found it) to out (at least mctl_mbox_max_len(len) bytes) as delivered:
// one '>' removed from every line of the form >...>From (mboxrd), every
// line ended by CRLF (an existing CR before LF is kept once, a last line
// without LF stays without). Returns the length written.
size_t mctl_mbox_unquote(uint8_t *out, const uint8_t *in, size_t len);

#endif // MAILCTL_MBOX_H
