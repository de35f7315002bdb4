// header.c: the header section of one part (RFC 5322 2.2, RFC 6532): splits
// it into fields (folded lines, bare LF, obsolete whitespace before the
// colon, 8-bit and NUL bytes, lines without a colon) recorded as byte ranges
// in the message's flat header array, and offers lookup by name and
// unfolding of a value into a caller buffer.
#include <string.h>

#include "core_internal.h"

// How far ahead of the field being parsed its section's bytes are asked for.
#ifndef MP_HDR_PREFETCH
#define MP_HDR_PREFETCH 512
#endif

static bool is_wsp(uint8_t c) {
  return c == ' ' || c == '\t';
}

// line_flags inspects one physical line [off, le) for the flags it raises.
static uint32_t line_flags(mp_hdr_ctx *hc, uint32_t part, size_t off, size_t le) {
  const uint8_t *b = hc->msg->data;
  uint32_t flags = 0;
  size_t content = le - off;
  if (content > 0 && b[le - 1] == '\n') {
    content--;
    if (content > 0 && b[le - 2] == '\r')
      content--;
    else
      flags |= MP_HEADER_BARE_LF;
  }
  if (content > hc->max_line_len) {
    flags |= MP_HEADER_LONG_LINE;
    mp_problem_add(hc->msg, MP_PROBLEM_LONG_LINE, part, off);
  }
  for (size_t i = off; i < off + content; i++) {
    if (b[i] == '\r' && (i + 1 >= le || b[i + 1] != '\n'))
      flags |= MP_HEADER_BARE_CR; // data, not a line end (RFC 5322 2.3)
    if (b[i] == 0) {
      if (!(flags & MP_HEADER_NUL))
        mp_problem_add(hc->msg, MP_PROBLEM_NUL, part, i);
      flags |= MP_HEADER_NUL;
    } else if (b[i] >= 0x80) {
      flags |= MP_HEADER_8BIT;
    }
  }
  return flags;
}

int mp_header_section_parse(mp_hdr_ctx *hc, uint32_t part, size_t off, size_t end, size_t *body_off,
                            bool *found_empty_line) {
  const mp_scanner *sc = mp_scanner_get();
  const uint8_t *b = hc->msg->data;
  size_t pos = off;
  uint32_t count = 0;
  bool over = false;
  // A header section is usually the first touch of its bytes (in the
  // header-only parse, the only one), and its fields are short: the
  // hardware prefetcher has not caught on before a section is done. Asking
  // for the lines ahead hides the memory's latency. Prefetches are hints:
  // they never fault and read nothing, so they may point past `end`.
  for (size_t k = 1; k <= MP_HDR_PREFETCH / 64; k++)
    __builtin_prefetch(b + pos + 64 * k);
  while (pos < end) {
    // A delimiter ends a header section that has no empty line. It starts
    // with "--": a field's first byte tells most fields apart without the
    // call.
    if (hc->is_boundary != NULL && b[pos] == '-' && hc->is_boundary(hc->pred_ctx, pos))
      break;
    if (b[pos] == '\n' || (b[pos] == '\r' && end - pos >= 2 && b[pos + 1] == '\n')) {
      *body_off = pos + (b[pos] == '\n' ? 1 : 2);
      *found_empty_line = true;
      return 0;
    }
    mp_header h = {.part = part};
    // One kernel call finds the field's extent, its colon and its byte
    // classes; only a field with a NUL or longer than the line limit needs
    // the line-by-line checks, which place problems at exact offsets.
    size_t colon, next;
    uint32_t bits;
    next = sc->field_end(b, end, pos, &colon, &bits);
    // A colon-less line that opens with "--" is a MIME delimiter after a
    // header section that lacks its empty line: the body starts here. Read
    // as a field, it would pull the first part's header into this one.
    if (colon >= next && end - pos >= 2 && b[pos] == '-' && b[pos + 1] == '-')
      break;
    if ((bits & MP_SCAN_NUL) || next - pos > hc->max_line_len) {
      for (size_t ls = pos; ls < next;) {
        size_t nle = sc->line_end(b, next, ls);
        h.flags |= line_flags(hc, part, ls, nle);
        ls = nle;
      }
    } else {
      h.flags = ((bits & MP_SCAN_8BIT) ? MP_HEADER_8BIT : 0) |
                ((bits & MP_SCAN_BARE_LF) ? MP_HEADER_BARE_LF : 0) |
                ((bits & MP_SCAN_BARE_CR) ? MP_HEADER_BARE_CR : 0);
    }
    if (is_wsp(b[pos]))
      h.flags |= MP_HEADER_CONTINUED;
    size_t vend = next;
    if (vend > pos && b[vend - 1] == '\n') {
      vend--;
      if (vend > pos && b[vend - 1] == '\r')
        vend--;
    }
    h.field = (mp_range){pos, next - pos};
    if (colon < end && !(h.flags & MP_HEADER_CONTINUED)) {
      size_t c = colon;
      size_t ne = c;
      while (ne > pos && is_wsp(b[ne - 1]))
        ne--;
      if (ne != c)
        h.flags |= MP_HEADER_NAME_WSP;
      h.name = (mp_range){pos, ne - pos};
      h.value = (mp_range){c + 1, vend > c + 1 ? vend - (c + 1) : 0};
    } else {
      h.flags |= MP_HEADER_NO_COLON;
      mp_problem_add(hc->msg, MP_PROBLEM_NO_COLON, part, pos);
      h.name = (mp_range){pos, 0};
      h.value = (mp_range){pos, vend - pos};
    }
    if (count < hc->max_headers) {
      int rc = mp_hdr_push(hc->msg, &h);
      if (rc != 0)
        return rc;
      count++;
    } else if (!over) {
      over = true;
      mp_problem_add(hc->msg, MP_PROBLEM_HEADERS, part, pos);
    }
    __builtin_prefetch(b + next + MP_HDR_PREFETCH);
    pos = next;
  }
  *body_off = pos;
  *found_empty_line = false;
  return 0;
}

size_t mp_message_num_headers(const mp_message *msg) {
  return msg != NULL ? msg->num_headers : 0;
}

const mp_header *mp_message_header(const mp_message *msg, size_t i) {
  if (msg == NULL || i >= msg->num_headers)
    return NULL;
  return mp_hdr_at(msg, i);
}

long mp_message_header_find(const mp_message *msg, uint32_t part, size_t from, const char *name,
                            size_t name_len) {
  if (msg == NULL || part >= msg->num_parts || (name == NULL && name_len > 0))
    return -1;
  const mp_part *p = mp_part_at(msg, part);
  size_t i = from > p->first_header ? from : p->first_header;
  for (; i < (size_t)p->first_header + p->num_headers; i++) {
    const mp_header *h = mp_hdr_at(msg, i);
    if (!(h->flags & MP_HEADER_NO_COLON) &&
        mp_ascii_ieq(msg->data + h->name.off, h->name.len, name, name_len))
      return (long)i;
  }
  return -1;
}

int mp_header_unfold(char *out, size_t out_cap, size_t *out_len, const char *in, size_t in_len) {
  if (out_len == NULL || (in == NULL && in_len > 0) || (out == NULL && out_cap > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  size_t s = 0, e = in_len;
  while (s < e && (is_wsp((uint8_t)in[s]) || in[s] == '\r' || in[s] == '\n'))
    s++;
  while (e > s && (is_wsp((uint8_t)in[e - 1]) || in[e - 1] == '\r' || in[e - 1] == '\n'))
    e--;
  size_t n = 0;
  for (size_t i = s; i < e; i++) {
    char c = in[i];
    // RFC 5322 2.2.3: unfolding removes a CRLF (or bare LF) before WSP.
    if (c == '\r' && i + 2 < e && in[i + 1] == '\n' && is_wsp((uint8_t)in[i + 2])) {
      i++;
      continue;
    }
    if (c == '\n' && i + 1 < e && is_wsp((uint8_t)in[i + 1]))
      continue;
    if (n == out_cap)
      return MP_ERR_BUFFER_TOO_SMALL;
    out[n++] = c;
  }
  *out_len = n;
  return 0;
}
