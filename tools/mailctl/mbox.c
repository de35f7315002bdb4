// mbox.c: reading an mboxrd file, the one place mailctl interprets untrusted
// mailbox bytes: splitting it at From_ lines and turning each message back
// into the bytes that were delivered (one '>' removed from quoted From
// lines, CRLF line ends). Everything is bounded by the length given.
#include <string.h>

#include "mbox.h"

static int is_from(const uint8_t *p, size_t n) {
  return n >= 5 && memcmp(p, "From ", 5) == 0;
}

// line_end returns the offset of the '\n' ending the line at q, or end.
static size_t line_end(const uint8_t *m, size_t q, size_t end) {
  const uint8_t *l = memchr(m + q, '\n', end - q);
  return l ? (size_t)(l - m) : end;
}

int mctl_mbox_next(struct mctl_mbox_msg *out, const uint8_t *m, size_t size, size_t *pos) {
  size_t p = *pos;
  if (p >= size)
    return 0;
  if (!is_from(m + p, size - p))
    return -1;
  size_t le = line_end(m, p, size);
  out->from_line = m + p;
  out->from_len = le - p;
  size_t start = le < size ? le + 1 : size;
  // The message ends at the empty line before the next From_ line.
  size_t end = size, next = size;
  for (size_t q = start; q < size;) {
    size_t e = line_end(m, q, size);
    if (e == q && e + 1 < size && is_from(m + e + 1, size - e - 1)) {
      end = q;
      next = e + 1;
      break;
    }
    q = e < size ? e + 1 : size;
  }
  // The last message: its separating empty line is the file's last byte.
  if (next == size && end - start >= 2 && m[end - 1] == '\n' && m[end - 2] == '\n')
    end--;
  out->data = m + start;
  out->len = end - start;
  *pos = next;
  return 1;
}

size_t mctl_mbox_unquote(uint8_t *out, const uint8_t *in, size_t len) {
  size_t o = 0;
  for (size_t q = 0; q < len;) {
    size_t le = line_end(in, q, len);
    size_t ce = le > q && in[le - 1] == '\r' ? le - 1 : le;
    size_t k = q;
    while (k < ce && in[k] == '>')
      k++;
    size_t from = q;
    if (k > q && ce - k >= 5 && memcmp(in + k, "From ", 5) == 0)
      from++; // mboxrd added one '>'
    memcpy(out + o, in + from, ce - from);
    o += ce - from;
    if (le < len) {
      out[o++] = '\r';
      out[o++] = '\n';
    }
    q = le < len ? le + 1 : len;
  }
  return o;
}
