// fuzz_typed_rfc2047.c: mp_rfc2047_decode on arbitrary bytes: never an error
// with a buffer of mp_typed_text_max_len(), output at most 3 * input bytes
// and always valid UTF-8 without CR, LF or NUL, the same result twice, and
// with a buffer one byte short exactly MP_ERR_BUFFER_TOO_SMALL and no
// output length; the same output and flags as the text builder, which the
// plain-text short path (and its vector check) must match; and the RFC 5322
// tokenizer's inline path gives the tokens of the full tokenizer, with
// comments as tokens and as white space.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"
#include "typed_internal.h"

static void same_tokens(const uint8_t *data, size_t size, bool comments) {
  struct mp_cur a, b;
  mp_cur_init(&a, data, size);
  mp_cur_init(&b, data, size);
  for (;;) {
    struct mp_tok ta, tb;
    mp_tok_next(&a, &ta, comments);
    mp_tok_next_full(&b, &tb, comments);
    FUZZ_CHECK(ta.type == tb.type && ta.p == tb.p && ta.len == tb.len &&
               ta.ws_before == tb.ws_before && ta.unterminated == tb.unterminated);
    FUZZ_CHECK(a.p == b.p && a.len == b.len);
    if (ta.type == MP_TOK_END)
      return;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  same_tokens(data, size, false);
  same_tokens(data, size, true);
  const char *in = (const char *)data;
  size_t cap = mp_typed_text_max_len(size);
  char *a = malloc(cap), *b = malloc(cap);
  FUZZ_CHECK(a != NULL && b != NULL);
  size_t na = 0, nb = 0;
  unsigned fa = 0, fb = 0;
  FUZZ_CHECK(mp_rfc2047_decode(a, cap, &na, &fa, in, size) == 0);
  FUZZ_CHECK(na <= 3 * size);
  FUZZ_CHECK(corvid_utf8_valid((const uint8_t *)a, na));
  FUZZ_CHECK(mp_rfc2047_decode(b, cap, &nb, &fb, in, size) == 0);
  FUZZ_CHECK(na == nb && fa == fb && memcmp(a, b, na) == 0);
  // The builder over the whole text is what the short path stands in for.
  struct mp_tb tb;
  mp_tb_init(&tb, b, cap);
  mp_tb_begin(&tb);
  mp_tb_text(&tb, data, size, true);
  const char *w;
  size_t wn;
  mp_tb_end(&tb, &w, &wn);
  FUZZ_CHECK(!tb.err && wn == na && tb.flags == fa && (na == 0 || memcmp(w, a, na) == 0));
  // No CR, LF or NUL anywhere (folds are unfolded, decoded ones replaced).
  FUZZ_CHECK(na == 0 || (memchr(a, '\r', na) == NULL && memchr(a, '\n', na) == NULL &&
                         memchr(a, 0, na) == NULL));
  if (na > 0) {
    nb = 5;
    FUZZ_CHECK(mp_rfc2047_decode(b, na - 1, &nb, NULL, in, size) == MP_ERR_BUFFER_TOO_SMALL);
    FUZZ_CHECK(nb == 0);
    FUZZ_CHECK(mp_rfc2047_decode(b, na, &nb, NULL, in, size) == 0 && nb == na);
    FUZZ_CHECK(memcmp(a, b, na) == 0);
  }
  free(a);
  free(b);
  return 0;
}
