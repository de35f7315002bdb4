// typed_check.h: checks shared by the typed-header tests that compare a
// fast path with the general parser (test_typed_address.c,
// test_typed_mime.c).
#ifndef MAILPARSE_TESTS_TYPED_CHECK_H
#define MAILPARSE_TESTS_TYPED_CHECK_H

#include <check.h>

#include "mailparse.h"

// same_str checks that two strings of the two runs lie at the same offset of
// their text buffers with the same length; `in` names the input on failure.
static inline void same_str(mp_str a, const char *ta, mp_str b, const char *tb, const char *in) {
  ck_assert_msg(a.len == b.len && (a.p == NULL) == (b.p == NULL), "\"%s\"", in);
  if (a.p != NULL)
    ck_assert_msg(a.p - ta == b.p - tb, "\"%s\"", in);
}

#endif
