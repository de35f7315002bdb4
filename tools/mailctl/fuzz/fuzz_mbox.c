// fuzz_mbox.c: mailctl's mboxrd reader (mbox.c) on arbitrary bytes.
// Properties: splitting any input stays inside it and always advances;
// unquoting stays within mctl_mbox_max_len; and a message in delivered form
// (CRLF lines), written as an mboxrd file the way mbox writers do it (CR
// before LF dropped, '>' added to >*From lines, an empty line after each
// message), twice, reads back as exactly two copies of itself.
#include <stdlib.h>
#include <string.h>

#include "mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
}

// write_mbox appends one From_ line and the mboxrd form of msg to out.
static size_t write_mbox(uint8_t *out, const uint8_t *msg, size_t len) {
  static const char from[] = "From fuzz@example.org Mon Jan  1 00:00:00 2024\n";
  size_t o = sizeof from - 1;
  memcpy(out, from, o);
  for (size_t q = 0; q < len;) {
    const uint8_t *nl = memchr(msg + q, '\n', len - q);
    size_t le = nl ? (size_t)(nl - msg) : len;
    size_t ce = le > q && msg[le - 1] == '\r' ? le - 1 : le;
    size_t k = q;
    while (k < ce && msg[k] == '>')
      k++;
    if (ce - k >= 5 && memcmp(msg + k, "From ", 5) == 0)
      out[o++] = '>';
    memcpy(out + o, msg + q, ce - q);
    o += ce - q;
    out[o++] = '\n';
    q = nl ? le + 1 : len;
  }
  out[o++] = '\n';
  return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // 1. Split and unquote the raw input.
  uint8_t *buf = malloc(mctl_mbox_max_len(size) + 2);
  check(buf != NULL);
  size_t pos = 0, n = 0;
  struct mctl_mbox_msg m;
  int r;
  while ((r = mctl_mbox_next(&m, data, size, &pos)) == 1) {
    check(m.from_line >= data && m.from_line + m.from_len <= data + size);
    check(m.data >= data && m.data + m.len <= data + size);
    check(m.from_len >= 5 && memcmp(m.from_line, "From ", 5) == 0);
    size_t o = mctl_mbox_unquote(buf, m.data, m.len);
    check(o <= mctl_mbox_max_len(m.len));
    check(++n <= size);
  }
  check(r == 0 || r == -1);
  // 2. Round trip of the delivered form of the input.
  size_t len = mctl_mbox_unquote(buf, data, size);
  if (len < 2 || buf[len - 2] != '\r' || buf[len - 1] != '\n') {
    buf[len++] = '\r';
    buf[len++] = '\n';
  }
  // "\r\r\n" has no distinct mbox form (writers drop the CR before LF).
  int representable = 1;
  for (size_t i = 0; i + 2 < len; i++)
    if (buf[i] == '\r' && buf[i + 1] == '\r' && buf[i + 2] == '\n')
      representable = 0;
  if (representable) {
    size_t cap = 2 * (len + 64) + 2 * len;
    uint8_t *file = malloc(cap), *back = malloc(mctl_mbox_max_len(cap));
    check(file && back);
    size_t fl = write_mbox(file, buf, len);
    fl += write_mbox(file + fl, buf, len);
    pos = 0;
    for (int copy = 0; copy < 2; copy++) {
      check(mctl_mbox_next(&m, file, fl, &pos) == 1);
      size_t bl = mctl_mbox_unquote(back, m.data, m.len);
      check(bl == len && memcmp(back, buf, len) == 0);
    }
    check(mctl_mbox_next(&m, file, fl, &pos) == 0);
    free(file);
    free(back);
  }
  free(buf);
  return 0;
}
