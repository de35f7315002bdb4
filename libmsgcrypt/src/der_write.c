// der_write.c: the DER builder of der_write.h. It knows nothing of CMS: it
// lays out tags and minimal definite lengths, grows or refuses to grow its
// buffer, and sorts SET OF members; the first failure sticks, so callers
// write a whole structure and check once.
#include "der_write.h"

#include <stdlib.h>
#include <string.h>

#include "msgcrypt_internal.h"

void dw_init_fixed(dw *w, uint8_t *buf, size_t cap) {
  w->buf = buf;
  w->len = 0;
  w->cap = buf != NULL ? cap : 0;
  w->growable = 0;
  w->err = DW_ERR_NONE;
}

void dw_init_growable(dw *w, size_t initial_cap) {
  w->len = 0;
  w->growable = 1;
  w->err = DW_ERR_NONE;
  w->cap = initial_cap > 0 ? initial_cap : 256;
  w->buf = malloc(w->cap);
  if (w->buf == NULL) {
    w->cap = 0;
    w->err = DW_ERR_NO_MEMORY;
  }
}

void dw_cleanup(dw *w) {
  if (w->buf != NULL)
    mc_wipe(w->buf, w->len);
  if (w->growable)
    free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
  w->err = DW_ERR_NONE;
}

// room makes `n` more bytes available, growing by doubling; a grown buffer
// moves, and the old copy is wiped because it may hold key material.
static int room(dw *w, size_t n) {
  if (w->err != DW_ERR_NONE)
    return 0;
  if (n <= w->cap - w->len)
    return 1;
  if (!w->growable || n > SIZE_MAX / 2 - w->len) {
    w->err = DW_ERR_NO_ROOM;
    return 0;
  }
  size_t cap = w->cap;
  while (cap - w->len < n)
    cap = cap * 2 + 64;
  uint8_t *nb = malloc(cap);
  if (nb == NULL) {
    w->err = DW_ERR_NO_MEMORY;
    return 0;
  }
  memcpy(nb, w->buf, w->len);
  mc_wipe(w->buf, w->len);
  free(w->buf);
  w->buf = nb;
  w->cap = cap;
  return 1;
}

size_t dw_header_len(size_t content_len) {
  size_t n = 2;
  if (content_len >= 0x80)
    for (size_t v = content_len; v > 0; v >>= 8)
      n++;
  return n;
}

// put_len writes the minimal length encoding of `len` to `p` (which has
// room for dw_header_len(len) - 1 bytes).
static void put_len(uint8_t *p, size_t len) {
  if (len < 0x80) {
    p[0] = (uint8_t)len;
    return;
  }
  size_t n = dw_header_len(len) - 2;
  p[0] = (uint8_t)(0x80 | n);
  for (size_t i = 0; i < n; i++)
    p[n - i] = (uint8_t)(len >> (8 * i));
}

void dw_bytes(dw *w, const uint8_t *p, size_t len) {
  if (len == 0 || !room(w, len))
    return;
  memcpy(w->buf + w->len, p, len);
  w->len += len;
}

uint8_t *dw_reserve(dw *w, size_t len) {
  if (!room(w, len))
    return NULL;
  uint8_t *p = w->buf + w->len;
  w->len += len;
  return p;
}

void dw_header(dw *w, unsigned tag, size_t content_len) {
  if (tag > 0xff || (tag & 0x1f) == 0x1f) {
    if (w->err == DW_ERR_NONE)
      w->err = DW_ERR_MISUSE;
    return;
  }
  size_t n = dw_header_len(content_len);
  if (!room(w, n))
    return;
  w->buf[w->len] = (uint8_t)tag;
  put_len(w->buf + w->len + 1, content_len);
  w->len += n;
}

void dw_element(dw *w, unsigned tag, const uint8_t *content, size_t len) {
  dw_header(w, tag, len);
  dw_bytes(w, content, len);
}

// An open element is its tag byte and a one-byte length placeholder; the
// mark is the offset of the tag.
size_t dw_open(dw *w, unsigned tag) {
  size_t mark = w->len;
  dw_header(w, tag, 0);
  return mark;
}

void dw_close(dw *w, size_t mark) {
  if (w->err != DW_ERR_NONE)
    return;
  if (mark + 2 > w->len) {
    w->err = DW_ERR_MISUSE;
    return;
  }
  size_t content = w->len - mark - 2;
  size_t extra = dw_header_len(content) - 2;
  if (extra > 0) {
    if (!room(w, extra))
      return;
    memmove(w->buf + mark + 2 + extra, w->buf + mark + 2, content);
    w->len += extra;
  }
  put_len(w->buf + mark + 1, content);
}

// elem_len returns the whole length of the element our own builder wrote at
// `p` (at most `avail` bytes), or 0 when it does not fit.
static size_t elem_len(const uint8_t *p, size_t avail) {
  if (avail < 2)
    return 0;
  size_t len = p[1], hdr = 2;
  if (len & 0x80) {
    size_t n = len & 0x7f;
    if (n == 0 || n > sizeof(size_t) || avail < 2 + n)
      return 0;
    len = 0;
    for (size_t i = 0; i < n; i++)
      len = (len << 8) | p[2 + i];
    hdr += n;
  }
  if (len > avail - hdr)
    return 0;
  return hdr + len;
}

typedef struct span {
  size_t off, len;
  const uint8_t *base;
} span;

// DER orders SET OF members as octet strings, the shorter one padded with
// zeros at the end (X.690 §11.6): compare the common prefix, then the
// longer one goes last (with an all-zero tail the two tie, and either order
// is then DER).
static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->base + x->off, y->base + y->off, n);
  if (c != 0)
    return c;
  return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

void dw_close_set_of(dw *w, size_t mark) {
  if (w->err != DW_ERR_NONE)
    return;
  if (mark + 2 > w->len) {
    w->err = DW_ERR_MISUSE;
    return;
  }
  size_t start = mark + 2, end = w->len, count = 0;
  for (size_t off = start; off < end; count++) {
    size_t n = elem_len(w->buf + off, end - off);
    if (n == 0) {
      w->err = DW_ERR_MISUSE;
      return;
    }
    off += n;
  }
  if (count > 1) {
    span *s = malloc(count * sizeof *s);
    uint8_t *tmp = malloc(end - start);
    if (s == NULL || tmp == NULL) {
      free(s);
      free(tmp);
      w->err = DW_ERR_NO_MEMORY;
      return;
    }
    size_t i = 0;
    for (size_t off = start; off < end; i++) {
      s[i].off = off;
      s[i].len = elem_len(w->buf + off, end - off);
      s[i].base = w->buf;
      off += s[i].len;
    }
    qsort(s, count, sizeof *s, span_cmp);
    size_t o = 0;
    for (i = 0; i < count; i++) {
      memcpy(tmp + o, w->buf + s[i].off, s[i].len);
      o += s[i].len;
    }
    memcpy(w->buf + start, tmp, end - start);
    mc_wipe(tmp, end - start);
    free(tmp);
    free(s);
  }
  dw_close(w, mark);
}

void dw_uint(dw *w, uint64_t v) {
  uint8_t b[9];
  size_t n = 0;
  // Big-endian, minimal, with a 0x00 first when the top bit is set.
  uint8_t tmp[8];
  size_t k = 0;
  do {
    tmp[k++] = (uint8_t)v;
    v >>= 8;
  } while (v > 0);
  if (tmp[k - 1] & 0x80)
    b[n++] = 0;
  while (k > 0)
    b[n++] = tmp[--k];
  dw_element(w, 0x02, b, n);
}

void dw_integer(dw *w, const uint8_t *content, size_t len) {
  if (len == 0) {
    if (w->err == DW_ERR_NONE)
      w->err = DW_ERR_MISUSE;
    return;
  }
  dw_element(w, 0x02, content, len);
}

void dw_oid(dw *w, const uint8_t *content, size_t len) {
  dw_element(w, 0x06, content, len);
}

void dw_null(dw *w) {
  dw_header(w, 0x05, 0);
}
