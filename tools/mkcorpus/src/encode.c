// encode.c: MIME content transfer encodings as mkcorpus writes them: base64
// in 76-character lines, quoted-printable for text (RFC 2045 6.7, lines of at
// most 76 characters, trailing whitespace protected), and the OpenPGP armor
// checksum. These are written here rather than taken from libencodify so the
// corpus does not depend on the code it is meant to test.
#include <string.h>

#include "mkcorpus_internal.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const char *mkc_cte_name(enum mkc_cte cte) {
  static const char *const names[MKC_CTE_COUNT] = {"7bit", "8bit", "quoted-printable", "base64"};
  return names[cte];
}

size_t mkc_base64_size(size_t raw, size_t line_len) {
  size_t chars = (raw + 2) / 3 * 4;
  if (line_len == 0)
    return chars;
  return chars + (chars + line_len - 1) / line_len * 2;
}

size_t mkc_base64_raw_for(size_t encoded, size_t line_len) {
  // Whole lines only, which errs on the small side by less than a line.
  return encoded / (line_len + 2) * (line_len / 4 * 3);
}

void mkc_base64(struct mkc_buf *out, const void *in, size_t len, size_t line_len) {
  const unsigned char *p = in;
  mkc_buf_reserve(out, mkc_base64_size(len, line_len));
  char *dst = out->data + out->len;
  size_t column = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < len)
      v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < len)
      v |= p[i + 2];
    *dst++ = b64_alphabet[(v >> 18) & 63];
    *dst++ = b64_alphabet[(v >> 12) & 63];
    *dst++ = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
    *dst++ = i + 2 < len ? b64_alphabet[v & 63] : '=';
    column += 4;
    if (line_len && column >= line_len) {
      *dst++ = '\r';
      *dst++ = '\n';
      column = 0;
    }
  }
  if (line_len && column > 0) {
    *dst++ = '\r';
    *dst++ = '\n';
  }
  out->len = (size_t)(dst - out->data);
}

static void qp_line(struct mkc_buf *out, const unsigned char *p, size_t len) {
  static const char hex[] = "0123456789ABCDEF";
  size_t column = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = p[i];
    bool last = i + 1 == len;
    bool escape = c == '=' || c > 126 || (c < 32 && c != '\t') || ((c == ' ' || c == '\t') && last);
    size_t width = escape ? 3 : 1;
    // A soft break costs one column for its '='; the line's last character
    // may use that column since no break follows it.
    if (column + width > 75 && !(last && column + width <= 76)) {
      mkc_buf_puts(out, "=\r\n");
      column = 0;
    }
    if (escape) {
      char code[3] = {'=', hex[c >> 4], hex[c & 15]};
      mkc_buf_put(out, code, 3);
    } else {
      mkc_buf_putc(out, (char)c);
    }
    column += width;
  }
}

void mkc_qp_text(struct mkc_buf *out, const char *in, size_t len) {
  mkc_buf_reserve(out, len + len / 8);
  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(in + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - in) : len;
    size_t content_end = end > pos && in[end - 1] == '\r' ? end - 1 : end;
    qp_line(out, (const unsigned char *)in + pos, content_end - pos);
    if (nl)
      mkc_buf_puts(out, "\r\n");
    pos = nl ? end + 1 : len;
  }
}

void mkc_encode_body(struct mkc_buf *out, enum mkc_cte cte, const char *in, size_t len) {
  switch (cte) {
  case MKC_CTE_QP:
    mkc_qp_text(out, in, len);
    break;
  case MKC_CTE_BASE64:
    mkc_base64(out, in, len, 76);
    return;
  default:
    mkc_buf_put(out, in, len);
    break;
  }
  // A body ends with a line break, so the next boundary starts a line.
  if (out->len < 2 || memcmp(out->data + out->len - 2, "\r\n", 2) != 0)
    mkc_buf_puts(out, "\r\n");
}

uint32_t mkc_crc24(const void *data, size_t len) {
  // RFC 4880 6.1: the checksum line of ASCII armor.
  const unsigned char *p = data;
  uint32_t crc = 0xB704CEu;
  for (size_t i = 0; i < len; i++) {
    crc ^= (uint32_t)p[i] << 16;
    for (int bit = 0; bit < 8; bit++) {
      crc <<= 1;
      if (crc & 0x1000000u)
        crc ^= 0x1864CFBu;
    }
  }
  return crc & 0xFFFFFFu;
}

size_t mkc_longest_line(const char *s, size_t len) {
  size_t longest = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || s[i] == '\n') {
      size_t end = i > start && s[i - 1] == '\r' ? i - 1 : i;
      if (end - start > longest)
        longest = end - start;
      start = i + 1;
    }
  }
  return longest;
}
