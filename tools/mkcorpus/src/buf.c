// buf.c: growable byte buffers and allocation that cannot fail. mkcorpus is a
// batch tool, so running out of memory or disk ends it with a message instead
// of threading error codes through every generator.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

void mkc_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("mkcorpus: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

void *mkc_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p)
    mkc_die("out of memory (%zu bytes)", size);
  return p;
}

void *mkc_xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p)
    mkc_die("out of memory (%zu x %zu bytes)", count, size);
  return p;
}

void *mkc_xrealloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size ? size : 1);
  if (!p)
    mkc_die("out of memory (%zu bytes)", size);
  return p;
}

void mkc_buf_init(struct mkc_buf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void mkc_buf_cleanup(struct mkc_buf *b) {
  free(b->data);
  mkc_buf_init(b);
}

void mkc_buf_reserve(struct mkc_buf *b, size_t extra) {
  // One spare byte always, for the terminator of mkc_buf_cstr.
  if (b->len + extra + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  b->data = mkc_xrealloc(b->data, cap);
  b->cap = cap;
}

void mkc_buf_put(struct mkc_buf *b, const void *data, size_t len) {
  if (len == 0)
    return;
  mkc_buf_reserve(b, len);
  memcpy(b->data + b->len, data, len);
  b->len += len;
}

void mkc_buf_puts(struct mkc_buf *b, const char *s) {
  mkc_buf_put(b, s, strlen(s));
}

void mkc_buf_putc(struct mkc_buf *b, char c) {
  mkc_buf_reserve(b, 1);
  b->data[b->len++] = c;
}

void mkc_buf_printf(struct mkc_buf *b, const char *fmt, ...) {
  // Format into the spare room first; only output that does not fit is
  // formatted a second time, after the buffer has grown.
  mkc_buf_reserve(b, 128);
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if (need < 0)
    mkc_die("invalid format string");
  if ((size_t)need >= b->cap - b->len) {
    mkc_buf_reserve(b, (size_t)need);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)need;
}

const char *mkc_buf_cstr(struct mkc_buf *b) {
  mkc_buf_reserve(b, 0);
  b->data[b->len] = '\0';
  return b->data;
}

bool mkc_is_ascii(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] >= 0x80)
      return false;
  return true;
}

void mkc_copy_str(char *dst, size_t cap, const char *src) {
  size_t len = strlen(src);
  if (len >= cap) {
    len = cap - 1;
    // Back off over continuation bytes so no character is cut in half.
    while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
      len--;
  }
  memcpy(dst, src, len);
  dst[len] = '\0';
}
