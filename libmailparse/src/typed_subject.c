// typed_subject.c: the base subject of RFC 5256 §2.1 for threading and
// sorting: decode to UTF-8 with white space runs collapsed, then strip
// "(fwd)" trailers, "Re:"/"Fw:"/"Fwd:" leaders with their "[blob]"s, leading
// blobs and "[fwd: ...]" wrappers until nothing changes. The work happens in
// place in the caller's buffer.
#include "typed_internal.h"

static bool ci_prefix(const char *s, size_t n, const char *lc) {
  size_t k = strlen(lc);
  return n >= k && mp_ieq((const uint8_t *)s, k, lc);
}

// blob returns the length of subj-blob ("[" *BLOBCHAR "]" *WSP) at `s`, or 0.
static size_t blob(const char *s, size_t n) {
  if (n == 0 || s[0] != '[')
    return 0;
  size_t i = 1;
  while (i < n && s[i] != ']' && s[i] != '[')
    i++;
  if (i >= n || s[i] != ']')
    return 0;
  i++;
  while (i < n && s[i] == ' ')
    i++;
  return i;
}

// leader returns the length of subj-leader at `s` ((*subj-blob subj-refwd)
// / WSP), or 0.
static size_t leader(const char *s, size_t n) {
  if (n > 0 && s[0] == ' ')
    return 1;
  size_t i = 0, k;
  while ((k = blob(s + i, n - i)) > 0)
    i += k;
  if (ci_prefix(s + i, n - i, "re"))
    i += 2;
  else if (ci_prefix(s + i, n - i, "fwd"))
    i += 3;
  else if (ci_prefix(s + i, n - i, "fw"))
    i += 2;
  else
    return 0;
  while (i < n && s[i] == ' ')
    i++;
  i += blob(s + i, n - i);
  if (i < n && s[i] == ':')
    return i + 1;
  return 0;
}

int mp_subject_base(char *out, size_t out_cap, size_t *out_len, unsigned *out_flags, const char *in,
                    size_t in_len) {
  if (out_len == NULL || (out == NULL && out_cap > 0) || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  unsigned flags = 0;
  size_t n = 0;
  // (1) Decode, then turn every run of spaces and tabs into one space.
  int rc = mp_rfc2047_decode(out, out_cap, &n, &flags, in, in_len);
  if (out_flags != NULL)
    *out_flags = flags;
  if (rc != 0)
    return rc;
  if (n == 0) // nothing decoded: out may be NULL (out_cap 0)
    return 0;
  // Up to the first tab, leading space or second space in a row the loop
  // below would write every byte back where it is, so only look for that
  // byte: most subjects have none.
  size_t r = 0;
  while (r < n && out[r] != '\t' && !(out[r] == ' ' && (r == 0 || out[r - 1] == ' ')))
    r++;
  size_t w = r;
  for (; r < n; r++) {
    char ch = out[r] == '\t' ? ' ' : out[r];
    if (ch == ' ' && (w == 0 || out[w - 1] == ' '))
      continue;
    out[w++] = ch;
  }
  n = w;
  size_t s = 0, e = n; // the base subject is out[s, e)
  bool reply = false;
  for (;;) {
    // (2) Trailers: "(fwd)" and white space at the end.
    for (;;) {
      if (e > s && out[e - 1] == ' ') {
        e--;
      } else if (e - s >= 5 && mp_ieq((const uint8_t *)out + e - 5, 5, "(fwd)")) {
        e -= 5;
        reply = true;
      } else {
        break;
      }
    }
    // (3)-(5) Leaders and leading blobs until nothing changes.
    for (;;) {
      size_t k = leader(out + s, e - s);
      if (k > 0) {
        if (out[s] != ' ')
          reply = true;
        s += k;
        continue;
      }
      // A leading blob goes if something is left. After one blob the
      // leader check would fail exactly as it just did (same blobs, same
      // text after them), so all of them go at once: linear, not quadratic.
      bool removed = false;
      while ((k = blob(out + s, e - s)) > 0 && s + k < e) {
        s += k;
        removed = true;
      }
      if (!removed)
        break;
    }
    // (6) "[fwd:" ... "]" wrapper.
    if (e - s >= 6 && ci_prefix(out + s, e - s, "[fwd:") && out[e - 1] == ']') {
      s += 5;
      e -= 1;
      reply = true;
      continue;
    }
    break;
  }
  // Leading space may remain after step (6) removed a wrapper only when the
  // loop ended right after it; step (3) removes it, so [s, e) is trimmed.
  memmove(out, out + s, e - s);
  *out_len = e - s;
  if (reply)
    flags |= MP_TYPED_SUBJECT_REPLY;
  if (out_flags != NULL)
    *out_flags = flags;
  return 0;
}
