// der_read.c: the DER reader that every X.509, CRL and PKCS#7 parse in
// libmsgcrypt goes through. It decodes tags, definite lengths and the
// primitive types certificates use (INTEGER, BOOLEAN, OID, BIT STRING and
// the two time types), rejecting the BER freedoms DER forbids, so that a
// certificate has one encoding and the bytes we hash are the bytes signed.
#include "der_read.h"

#include <stdio.h>
#include <string.h>

int der_peek_tag(const der_cur *c, unsigned *tag) {
  if (c->len == 0)
    return 0;
  *tag = c->p[0];
  return 1;
}

int der_get_any(der_cur *c, unsigned *tag, der_cur *out, der_cur *whole) {
  if (c->len < 2)
    return 0;
  unsigned t = c->p[0];
  // High tag numbers (0x1f) never occur in the structures we read.
  if ((t & 0x1fu) == 0x1fu)
    return 0;
  size_t hdr = 2, len = c->p[1];
  if (len & 0x80u) {
    size_t n = len & 0x7fu;
    // 0x80 is BER's indefinite length; more than 4 length bytes is beyond
    // any input we accept.
    if (n == 0 || n > 4 || c->len - 2 < n)
      return 0;
    len = 0;
    for (size_t i = 0; i < n; i++)
      len = (len << 8) | c->p[2 + i];
    // Minimal: long form only from 128, no leading zero byte.
    if (len < 128 || c->p[2] == 0)
      return 0;
    hdr += n;
  }
  if (c->len - hdr < len)
    return 0;
  if (tag != NULL)
    *tag = t;
  if (out != NULL)
    *out = der_cur_make(c->p + hdr, len);
  if (whole != NULL)
    *whole = der_cur_make(c->p, hdr + len);
  c->p += hdr + len;
  c->len -= hdr + len;
  return 1;
}

int der_get(der_cur *c, unsigned tag, der_cur *out) {
  der_cur tmp = *c;
  unsigned t;
  if (!der_get_any(&tmp, &t, out, NULL) || t != tag)
    return 0;
  *c = tmp;
  return 1;
}

int der_get_optional(der_cur *c, unsigned tag, der_cur *out, int *present) {
  unsigned t;
  *present = 0;
  if (!der_peek_tag(c, &t) || t != tag)
    return 1;
  *present = 1;
  return der_get(c, tag, out);
}

int der_get_integer(der_cur *c, der_cur *out) {
  der_cur v, tmp = *c;
  if (!der_get(&tmp, DER_INTEGER, &v) || v.len == 0 || (v.p[0] & 0x80u))
    return 0;
  if (v.len > 1 && v.p[0] == 0) {
    // A leading zero is allowed only to clear the sign bit.
    if (!(v.p[1] & 0x80u))
      return 0;
    v.p++;
    v.len--;
  }
  *out = v;
  *c = tmp;
  return 1;
}

int der_get_small_uint(der_cur *c, uint32_t *out) {
  der_cur v, tmp = *c;
  if (!der_get_integer(&tmp, &v) || v.len > 4)
    return 0;
  uint32_t x = 0;
  for (size_t i = 0; i < v.len; i++)
    x = (x << 8) | v.p[i];
  *out = x;
  *c = tmp;
  return 1;
}

int der_get_bool(der_cur *c, int *out) {
  der_cur v, tmp = *c;
  if (!der_get(&tmp, DER_BOOLEAN, &v) || v.len != 1 || (v.p[0] != 0 && v.p[0] != 0xff))
    return 0;
  *out = v.p[0] != 0;
  *c = tmp;
  return 1;
}

static int oid_contents_ok(const der_cur *v) {
  if (v->len == 0 || (v->p[v->len - 1] & 0x80u))
    return 0;
  // Each arc starts with a non-0x80 byte: 0x80 would be a leading zero.
  int start = 1;
  for (size_t i = 0; i < v->len; i++) {
    if (start && v->p[i] == 0x80u)
      return 0;
    start = !(v->p[i] & 0x80u);
  }
  return 1;
}

int der_get_oid(der_cur *c, der_cur *out) {
  der_cur v, tmp = *c;
  if (!der_get(&tmp, DER_OID, &v) || !oid_contents_ok(&v))
    return 0;
  *out = v;
  *c = tmp;
  return 1;
}

int der_get_bit_string(der_cur *c, der_cur *out, unsigned *unused) {
  der_cur v, tmp = *c;
  if (!der_get(&tmp, DER_BIT_STRING, &v) || v.len == 0 || v.p[0] > 7)
    return 0;
  unsigned u = v.p[0];
  if (v.len == 1 && u != 0)
    return 0;
  if (u != 0 && (v.p[v.len - 1] & ((1u << u) - 1u)) != 0)
    return 0;
  *out = der_cur_make(v.p + 1, v.len - 1);
  *unused = u;
  *c = tmp;
  return 1;
}

static int digits(const uint8_t *p, size_t n, unsigned *out) {
  unsigned x = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9')
      return 0;
    x = x * 10 + (unsigned)(p[i] - '0');
  }
  *out = x;
  return 1;
}

// Days from 1970-01-01 to the civil date (proleptic Gregorian).
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int der_get_time(der_cur *c, int64_t *out) {
  der_cur v, tmp = *c;
  unsigned tag;
  if (!der_get_any(&tmp, &tag, &v, NULL))
    return 0;
  unsigned year, mon, day, hh, mm, ss;
  const uint8_t *p = v.p;
  if (tag == DER_UTC_TIME) {
    if (v.len != 13 || !digits(p, 2, &year))
      return 0;
    year += year < 50 ? 2000 : 1900;
    p += 2;
  } else if (tag == DER_GENERALIZED_TIME) {
    if (v.len != 15 || !digits(p, 4, &year))
      return 0;
    p += 4;
  } else {
    return 0;
  }
  if (!digits(p, 2, &mon) || !digits(p + 2, 2, &day) || !digits(p + 4, 2, &hh) ||
      !digits(p + 6, 2, &mm) || !digits(p + 8, 2, &ss) || p[10] != 'Z')
    return 0;
  static const unsigned mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] || hh > 23 || mm > 59 || ss > 59)
    return 0;
  int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (mon == 2 && day == 29 && !leap)
    return 0;
  *out = days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss;
  *c = tmp;
  return 1;
}

int der_oid_eq(const der_cur *oid, const uint8_t *oid_bytes, size_t oid_len) {
  return oid->len == oid_len && memcmp(oid->p, oid_bytes, oid_len) == 0;
}

int der_oid_to_text(char *out, size_t out_cap, const der_cur *oid) {
  size_t pos = 0;
  uint64_t arc = 0;
  int first = 1;
  if (out_cap == 0 || !oid_contents_ok(oid))
    return 0;
  for (size_t i = 0; i < oid->len; i++) {
    if (arc > (UINT64_MAX >> 7))
      return 0;
    arc = (arc << 7) | (oid->p[i] & 0x7fu);
    if (oid->p[i] & 0x80u)
      continue;
    int n;
    if (first) {
      unsigned top = arc < 40 ? 0 : arc < 80 ? 1 : 2;
      n = snprintf(out + pos, out_cap - pos, "%u.%llu", top, (unsigned long long)(arc - 40u * top));
      first = 0;
    } else {
      n = snprintf(out + pos, out_cap - pos, ".%llu", (unsigned long long)arc);
    }
    if (n < 0 || (size_t)n >= out_cap - pos)
      return 0;
    pos += (size_t)n;
    arc = 0;
  }
  return 1;
}

static int check_depth(der_cur c, unsigned depth_left) {
  while (c.len > 0) {
    unsigned tag;
    der_cur inner;
    if (!der_get_any(&c, &tag, &inner, NULL))
      return 0;
    if (tag & DER_CONSTRUCTED) {
      if (depth_left == 0 || !check_depth(inner, depth_left - 1))
        return 0;
    }
  }
  return 1;
}

int der_check_depth(const uint8_t *in, size_t in_len, unsigned max_depth) {
  return check_depth(der_cur_make(in, in_len), max_depth);
}
