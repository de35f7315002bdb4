// fuzz_thread.c: RFC 5256 threading (thread.c) on arbitrary mailboxes,
// without a store. Each input line is one message: a date byte, a flags
// byte (bit 0: the subject was a reply), then Message-ID, In-Reply-To,
// References (space-separated) and base subject separated by '|'; short
// ids make loops, duplicates, self references and shared subjects common.
// Properties, for REFERENCES and ORDEREDSUBJECT: the output is a sequence
// of balanced non-empty thread lists, each UID of the mailbox appears
// exactly once, the thread count is the number of top-level lists,
// ORDEREDSUBJECT nests at most two deep, and a second run gives the same
// bytes.
#include "mailstore.h"
#include "meta.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
}

static void verify(const char *out, size_t len, size_t n, size_t nt, int algorithm) {
  uint8_t *seen = calloc(n + 1, 1);
  size_t depth = 0, tops = 0, maxdepth = 0;
  for (size_t i = 0; i < len;) {
    char c = out[i];
    if (c == '(') {
      if (depth++ == 0)
        tops++;
      maxdepth = depth > maxdepth ? depth : maxdepth;
      check(i + 1 < len && out[i + 1] != ')');
      i++;
    } else if (c == ')') {
      check(depth > 0);
      depth--;
      i++;
    } else if (c == ' ') {
      check(depth > 0 && i + 1 < len && out[i + 1] != ' ' && out[i + 1] != ')');
      i++;
    } else {
      check(c >= '1' && c <= '9' && depth > 0);
      size_t v = 0;
      while (i < len && out[i] >= '0' && out[i] <= '9')
        v = v * 10 + (size_t)(out[i++] - '0');
      check(v >= 1 && v <= n && !seen[v]);
      seen[v] = 1;
    }
  }
  check(depth == 0 && tops == nt);
  for (size_t v = 1; v <= n; v++)
    check(seen[v]);
  if (algorithm == MS_THREAD_ORDEREDSUBJECT)
    check(maxdepth <= 2);
  free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The replay driver also calls with (NULL, 0); NULL + 0 is undefined.
  if (size == 0 || size > 65536)
    return 0;
  struct mitems m = {0};
  m.v = calloc(size + 1, sizeof *m.v); // a line may be a single byte
  m.arena = malloc(size + 1);
  const uint8_t *p = data, *end = data + size;
  while (p + 2 <= end) {
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    const uint8_t *le = nl ? nl : end;
    struct mitem *it = &m.v[m.n];
    it->uid = (uint32_t)m.n + 1;
    it->date = p[0] % 8;
    it->flags = p[1] & 1 ? MS_SUMMARY_REPLY : 0;
    static const unsigned fields[] = {MF_MESSAGE_ID, MF_IN_REPLY_TO, MF_REFERENCES, MF_SUBJECT};
    const uint8_t *q = p + 2;
    for (unsigned f = 0; f < 4 && q <= le; f++) {
      const uint8_t *bar = f < 3 ? memchr(q, '|', (size_t)(le - q)) : NULL;
      const uint8_t *fe = bar ? bar : le;
      it->off[fields[f]] = (uint32_t)m.arena_len;
      it->len[fields[f]] = (uint32_t)(fe - q);
      memcpy(m.arena + m.arena_len, q, (size_t)(fe - q));
      m.arena_len += (size_t)(fe - q);
      q = fe + 1;
    }
    // References in the store never start, end or double a space.
    uint32_t rl = it->len[MF_REFERENCES];
    char *r = m.arena + it->off[MF_REFERENCES];
    for (uint32_t i = 0; i < rl; i++)
      if (r[i] == ' ' && (i == 0 || i + 1 == rl || r[i + 1] == ' '))
        r[i] = '_';
    m.n++;
    p = nl ? nl + 1 : end;
  }
  size_t cap = m.n * MS_THREAD_BYTES_PER_MESSAGE + 2;
  char *out = malloc(cap), *again = malloc(cap);
  for (int algorithm = 1; algorithm <= 2; algorithm++) {
    size_t len = 0, nt = 0, len2 = 0, nt2 = 0;
    check(thread_run(&m, algorithm, out, cap, &len, &nt) == 0);
    verify(out, len, m.n, nt, algorithm);
    check(thread_run(&m, algorithm, again, cap, &len2, &nt2) == 0);
    check(len == len2 && nt == nt2 && memcmp(out, again, len) == 0);
  }
  free(out);
  free(again);
  free(m.v);
  free(m.arena);
  return 0;
}
