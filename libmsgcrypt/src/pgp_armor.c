// pgp_armor.c: OpenPGP ASCII armor (RFC 9580 §6): finding the armored
// blocks with a given label in text, skipping their headers, decoding their
// Base64 with libencodify and checking the optional CRC-24; and writing one
// armored block for the encryption side.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encodify.h"
#include "pgp_crc24_internal.h"
#include "pgp_internal.h"

uint32_t pgp_crc24(const uint8_t *in, size_t in_len) {
  return mc_pgp_crc24_update(MC_PGP_CRC24_INIT, in, in_len);
}

static int pgp_is_blank(uint8_t ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

int pgp_armor_looks_armored(const uint8_t *in, size_t in_len) {
  static const char begin[] = "-----BEGIN PGP ";
  size_t i = 0;
  while (i < in_len && pgp_is_blank(in[i]))
    i++;
  return in_len - i >= sizeof begin - 1 && memcmp(in + i, begin, sizeof begin - 1) == 0;
}

// pgp_line is one line of text without its end and trailing blanks.
struct pgp_line {
  const uint8_t *p;
  size_t len;
  size_t offset;
};

// pgp_next_line takes the next line from `c`; it returns 0 at the end of
// input, -1 for a line longer than `max`, else 1.
static int pgp_next_line(pgp_cur *c, const uint8_t *base, struct pgp_line *line, size_t max) {
  if (c->len == 0)
    return 0;
  const uint8_t *nl = memchr(c->p, '\n', c->len);
  size_t len = nl != NULL ? (size_t)(nl - c->p) : c->len;
  line->p = c->p;
  line->offset = (size_t)(c->p - base);
  (void)pgp_cur_skip(c, nl != NULL ? len + 1 : len);
  while (len > 0 && pgp_is_blank(line->p[len - 1]))
    len--;
  line->len = len;
  return len > max ? -1 : 1;
}

static int pgp_line_is(const struct pgp_line *l, const char *prefix, const char *label) {
  size_t np = strlen(prefix), nl = strlen(label);
  return l->len == np + nl + 5 && memcmp(l->p, prefix, np) == 0 &&
         memcmp(l->p + np, label, nl) == 0 && memcmp(l->p + np + nl, "-----", 5) == 0;
}

static int pgp_b64_char(uint8_t ch) {
  return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
         ch == '+' || ch == '/' || ch == '=';
}

int pgp_armor_decode(pgp_buf *out, size_t *err_off, const uint8_t *in, size_t in_len,
                     const char *label, size_t max_line_len) {
  pgp_cur c;
  pgp_cur_init(&c, in, in_len);
  struct pgp_line line;
  int blocks = 0, r;
  char *text = NULL; // the Base64 of one block, line ends removed
  int status = 0;
  *err_off = 0;
  while ((r = pgp_next_line(&c, in, &line, SIZE_MAX)) > 0) {
    if (!pgp_line_is(&line, "-----BEGIN PGP ", label))
      continue;
    size_t block_off = line.offset;
    free(text);
    text = malloc(c.len + 1);
    if (text == NULL) {
      status = -ENOMEM;
      break;
    }
    size_t text_len = 0;
    int in_headers = 1, ended = 0, have_crc = 0;
    uint32_t crc = 0;
    while ((r = pgp_next_line(&c, in, &line, max_line_len)) > 0) {
      if (in_headers) {
        // Armor headers are "Key: Value" lines ending at a blank line; an
        // encoder that writes none may also omit the blank line.
        if (line.len == 0) {
          in_headers = 0;
          continue;
        }
        if (memchr(line.p, ':', line.len) != NULL)
          continue;
        in_headers = 0;
      }
      if (pgp_line_is(&line, "-----END PGP ", label)) {
        ended = 1;
        break;
      }
      if (have_crc)
        break; // nothing but the end line may follow the checksum
      if (line.len == 5 && line.p[0] == '=' && line.p[1] != '=') {
        uint8_t v[3];
        size_t v_len, off;
        if (enc_base64_decode(0, v, sizeof v, &v_len, (const char *)line.p + 1, 4, &off) != 0 ||
            v_len != 3)
          break;
        crc = (uint32_t)v[0] << 16 | (uint32_t)v[1] << 8 | v[2];
        have_crc = 1;
        continue;
      }
      for (size_t i = 0; i < line.len; i++) {
        if (pgp_is_blank(line.p[i]))
          continue;
        if (!pgp_b64_char(line.p[i]))
          goto bad_block;
        text[text_len++] = (char)line.p[i];
      }
    }
    if (r < 0 || !ended)
      goto bad_block;
    size_t start = out->len, n = 0, off;
    size_t cap = enc_base64_decode_max_len(text_len);
    // Reserve the decoded size, decode in place, then trim to the real size.
    if (cap > 0 && pgp_buf_reserve(out, cap) == NULL) {
      status = out->err;
      break;
    }
    if (cap > 0 && enc_base64_decode(0, out->p + start, cap, &n, text, text_len, &off) != 0) {
      out->len = start;
      goto bad_block;
    }
    out->len = start + n;
    if (have_crc && pgp_crc24(n > 0 ? out->p + start : NULL, n) != crc) {
      out->len = start;
      goto bad_block;
    }
    blocks++;
    continue;
  bad_block:
    *err_off = block_off;
    status = MC_ERR_BAD_KEY;
    break;
  }
  free(text);
  if (status == 0 && r < 0)
    status = MC_ERR_BAD_KEY;
  return status < 0 ? status : blocks;
}

void pgp_armor_encode(pgp_buf *out, const char *label, const uint8_t *in, size_t in_len,
                      int with_crc) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  pgp_buf_put_bytes(out, (const uint8_t *)"-----BEGIN PGP ", 15);
  pgp_buf_put_bytes(out, (const uint8_t *)label, strlen(label));
  pgp_buf_put_bytes(out, (const uint8_t *)"-----\n\n", 7);
  size_t col = 0;
  for (size_t i = 0; i < in_len; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    size_t n = in_len - i < 3 ? in_len - i : 3;
    if (n > 1)
      v |= (uint32_t)in[i + 1] << 8;
    if (n > 2)
      v |= in[i + 2];
    uint8_t q[4] = {(uint8_t)alphabet[v >> 18], (uint8_t)alphabet[(v >> 12) & 63],
                    n > 1 ? (uint8_t)alphabet[(v >> 6) & 63] : (uint8_t)'=',
                    n > 2 ? (uint8_t)alphabet[v & 63] : (uint8_t)'='};
    pgp_buf_put_bytes(out, q, 4);
    col += 4;
    if (col == 64) {
      pgp_buf_put_u8(out, '\n');
      col = 0;
    }
  }
  if (col != 0)
    pgp_buf_put_u8(out, '\n');
  if (with_crc) {
    uint32_t crc = pgp_crc24(in, in_len);
    uint8_t q[6] = {'=',
                    (uint8_t)alphabet[crc >> 18],
                    (uint8_t)alphabet[(crc >> 12) & 63],
                    (uint8_t)alphabet[(crc >> 6) & 63],
                    (uint8_t)alphabet[crc & 63],
                    '\n'};
    pgp_buf_put_bytes(out, q, 6);
  }
  pgp_buf_put_bytes(out, (const uint8_t *)"-----END PGP ", 13);
  pgp_buf_put_bytes(out, (const uint8_t *)label, strlen(label));
  pgp_buf_put_bytes(out, (const uint8_t *)"-----\n", 6);
}
