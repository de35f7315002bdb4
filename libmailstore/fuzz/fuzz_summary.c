// fuzz_summary.c: the summary record. The first byte chooses: even, the
// rest is a message, summarised (libmailparse's parse, ENVELOPE,
// BODYSTRUCTURE, addresses, dates, ids, base subject, preview) and decoded
// again; odd, the rest is a stored record, decoded. Properties: a message
// always yields a record that decodes, with its size and internal date,
// and ms_summary_make gives the same bytes; a decoder either rejects with
// MS_ERR_CORRUPT or accepts a record whose strings lie inside it and fill
// it exactly.
#include "mailstore.h"
#include "meta.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
}

static void check_fields(const struct ms_summary *s, const uint8_t *rec, size_t n) {
  const struct ms_text *t[] = {&s->envelope,   &s->bodystructure, &s->from,       &s->to,
                               &s->cc,         &s->display_from,  &s->display_to, &s->subject,
                               &s->message_id, &s->in_reply_to,   &s->references, &s->preview};
  size_t sum = 0;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    check((t[i]->len == 0) == (t[i]->p == NULL));
    if (t[i]->len) {
      check((const uint8_t *)t[i]->p >= rec + SUMMARY_HEAD);
      check((const uint8_t *)t[i]->p + t[i]->len <= rec + n);
    }
    sum += t[i]->len;
  }
  check(sum + SUMMARY_HEAD == n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  struct ms_summary s;
  if (data[0] % 2 == 0) {
    uint8_t *rec;
    size_t n;
    check(summary_build(&rec, &n, in, len, 12345) == 0);
    check(summary_decode(&s, rec, n) == 0);
    check(s.size == len && s.internal_date == 12345);
    check((s.flags & MS_SUMMARY_HAS_DATE) || s.date == 12345);
    check(s.envelope.len == 0 ||
          (s.envelope.p[0] == '(' && s.envelope.p[s.envelope.len - 1] == ')'));
    check(s.preview.len <= 1024);
    // Ids and references never hold white space inside one id.
    check(memchr(s.message_id.p ? s.message_id.p : "", ' ', s.message_id.len) == NULL);
    check_fields(&s, rec, n);
    uint8_t *buf = malloc(n);
    size_t got = 0;
    struct ms_summary s2;
    check(ms_summary_make(&s2, buf, n, &got, in, len, 12345) == 0);
    check(got == n && memcmp(buf, rec, n) == 0);
    free(buf);
    free(rec);
  } else {
    int rc = summary_decode(&s, in, len);
    check(rc == 0 || rc == MS_ERR_CORRUPT);
    if (rc == 0)
      check_fields(&s, in, len);
  }
  return 0;
}
