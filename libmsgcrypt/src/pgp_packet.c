// pgp_packet.c: OpenPGP packet framing (RFC 9580 §4.2) and the low-level
// field formats around it: reading packet headers of both formats and MPIs
// through the bounded cursor, and writing packet headers, MPIs and integers
// through the pgp_buf builder that the packet writers share.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_internal.h"

int pgp_cur_get_mpi(pgp_cur *c, const uint8_t **out, size_t *out_len, size_t *out_bits) {
  pgp_cur save = *c;
  uint32_t bits;
  const uint8_t *v;
  if (!pgp_cur_get_u16(c, &bits) || !pgp_cur_get_bytes(c, &v, (bits + 7) / 8)) {
    *c = save;
    return 0;
  }
  size_t n = (bits + 7) / 8;
  while (n > 0 && v[0] == 0) {
    v++;
    n--;
  }
  *out = v;
  *out_len = n;
  if (out_bits != NULL)
    *out_bits = bits;
  return 1;
}

int pgp_packet_next(pgp_cur *c, pgp_packet *out, size_t max_body_len) {
  pgp_cur save = *c;
  uint8_t first;
  if (c->len == 0)
    return 0;
  if (!pgp_cur_get_u8(c, &first) || (first & 0x80) == 0)
    goto bad;
  size_t len;
  uint8_t tag;
  if (first & 0x40) {
    // New format: one-, two- or five-octet lengths; 224-254 is partial.
    tag = first & 0x3f;
    uint8_t l0, l1;
    uint32_t l4;
    if (!pgp_cur_get_u8(c, &l0))
      goto bad;
    if (l0 < 192) {
      len = l0;
    } else if (l0 < 224) {
      if (!pgp_cur_get_u8(c, &l1))
        goto bad;
      len = ((size_t)(l0 - 192) << 8) + l1 + 192;
    } else if (l0 == 255) {
      if (!pgp_cur_get_u32(c, &l4))
        goto bad;
      len = l4;
    } else {
      goto bad; // partial body lengths never frame key material
    }
  } else {
    // Legacy format: the low two bits give the length's size; 3 means
    // "until the end", which only a last packet may use.
    tag = (first >> 2) & 0x0f;
    uint8_t l8;
    uint32_t l16, l32;
    switch (first & 3) {
    case 0:
      if (!pgp_cur_get_u8(c, &l8))
        goto bad;
      len = l8;
      break;
    case 1:
      if (!pgp_cur_get_u16(c, &l16))
        goto bad;
      len = l16;
      break;
    case 2:
      if (!pgp_cur_get_u32(c, &l32))
        goto bad;
      len = l32;
      break;
    default:
      len = c->len;
      break;
    }
  }
  if (tag == 0 || len > max_body_len || !pgp_cur_get_bytes(c, &out->body, len))
    goto bad;
  out->tag = tag;
  out->body_len = len;
  return 1;
bad:
  *c = save;
  return MC_ERR_BAD_KEY;
}

void pgp_buf_init_growable(pgp_buf *b) {
  b->p = NULL;
  b->len = 0;
  b->cap = 0;
  b->err = 0;
}

void pgp_buf_cleanup(pgp_buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

uint8_t *pgp_buf_reserve(pgp_buf *b, size_t n) {
  if (b->err)
    return NULL;
  if (b->cap - b->len < n) {
    if (n > SIZE_MAX / 2 - b->len) {
      b->err = -ENOMEM;
      return NULL;
    }
    size_t cap = b->cap < 256 ? 256 : b->cap;
    while (cap - b->len < n)
      cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
      b->err = -ENOMEM;
      return NULL;
    }
    b->p = p;
    b->cap = cap;
  }
  uint8_t *at = b->p + b->len;
  b->len += n;
  return at;
}

void pgp_buf_put_u8(pgp_buf *b, uint8_t v) {
  uint8_t *p = pgp_buf_reserve(b, 1);
  if (p != NULL)
    p[0] = v;
}

void pgp_buf_put_u32(pgp_buf *b, uint32_t v) {
  uint8_t *p = pgp_buf_reserve(b, 4);
  if (p != NULL) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
  }
}

void pgp_buf_put_bytes(pgp_buf *b, const uint8_t *in, size_t in_len) {
  if (in_len == 0)
    return;
  uint8_t *p = pgp_buf_reserve(b, in_len);
  if (p != NULL)
    memcpy(p, in, in_len);
}

void pgp_buf_put_header(pgp_buf *b, uint8_t tag, size_t body_len) {
  pgp_buf_put_u8(b, (uint8_t)(0xc0 | (tag & 0x3f)));
  if (body_len < 192) {
    pgp_buf_put_u8(b, (uint8_t)body_len);
  } else if (body_len < 8384) {
    size_t v = body_len - 192;
    pgp_buf_put_u8(b, (uint8_t)((v >> 8) + 192));
    pgp_buf_put_u8(b, (uint8_t)v);
  } else if (body_len <= 0xffffffffu) {
    pgp_buf_put_u8(b, 255);
    pgp_buf_put_u32(b, (uint32_t)body_len);
  } else if (!b->err) {
    b->err = MC_ERR_INVALID_ARGUMENT;
  }
}
