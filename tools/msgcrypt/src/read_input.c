// read_input.c: the one reader of whole inputs for the msgcrypt command
// (key and certificate files, trust bundles, CRLs, encrypt-mime's message),
// so that every command applies the same limit and reports a failed read
// the same way.
#include <errno.h>
#include <stdlib.h>

#include "msgcrypt_tool.h"

#define READ_FIRST_CHUNK ((size_t)64 << 10)

int msgcrypt_read_stream(FILE *f, uint8_t **out, size_t *out_len) {
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      // The buffer is grown to at most one byte past the limit, so that a
      // longer input is told from one of exactly the limit.
      if (cap > MSGCRYPT_MAX_FILE) {
        free(buf);
        return -EFBIG;
      }
      size_t next = cap == 0 ? READ_FIRST_CHUNK : cap * 2;
      if (next > MSGCRYPT_MAX_FILE + 1)
        next = MSGCRYPT_MAX_FILE + 1;
      uint8_t *grown = realloc(buf, next);
      if (grown == NULL) {
        free(buf);
        return -ENOMEM;
      }
      buf = grown;
      cap = next;
    }
    size_t want = cap - len;
    errno = 0;
    size_t n = fread(buf + len, 1, want, f);
    len += n;
    if (n < want) { // fread stops short only at the end or on an error
      if (ferror(f)) {
        int err = errno != 0 ? errno : EIO;
        free(buf);
        return -err;
      }
      break;
    }
  }
  *out = buf;
  *out_len = len;
  return 0;
}

int msgcrypt_read_path(const char *path, uint8_t **out, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return -errno;
  int r = msgcrypt_read_stream(f, out, out_len);
  fclose(f);
  return r;
}
