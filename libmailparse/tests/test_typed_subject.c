// test_typed_subject.c: mp_subject_base (src/typed_subject.c): the RFC 5256
// §2.1 steps one by one (white space, "(fwd)" trailers, Re/Fw/Fwd leaders
// with blobs, leading blobs, "[fwd: ...]" wrappers), their combinations,
// RFC 2047 decoding first, and idempotence on every case.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

struct vec {
  const char *step;
  const char *in;
  const char *want;
  int reply;
};

static const struct vec vectors[] = {
    {"(1) white space", "  hello \t  world  ", "hello world", 0},
    {"(1) RFC 2047", "=?utf-8?q?Re=3A_caf=C3=A9?=", "caf\xc3\xa9", 1},
    {"(2) trailer", "test (fwd)", "test", 1},
    {"(2) trailers", "test (FWD) (fwd)  ", "test", 1},
    {"(3) re", "Re: test", "test", 1},
    {"(3) RE no space", "RE:test", "test", 1},
    {"(3) repeated", "Re: Re: re: test", "test", 1},
    {"(3) fw", "Fw: test", "test", 1},
    {"(3) fwd", "FWD: test", "test", 1},
    {"(3) blob after keyword", "Re[2]: test", "test", 1},
    {"(3) space before colon", "Re : test", "test", 1},
    {"(3) blob before keyword", "[list] Re: test", "test", 1},
    {"(3) not a leader", "Reply: test", "Reply: test", 0},
    {"(3) not a leader", "Ref: test", "Ref: test", 0},
    {"(4) blob", "[list] test", "test", 0},
    {"(4) blob kept when alone", "[list]", "[list]", 0},
    {"(4) blobs", "[a] [b] test", "test", 0},
    {"(5) mixed", "Re: [list] Re: [other] Fwd: test", "test", 1},
    {"(6) fwd wrapper", "[Fwd: test]", "test", 1},
    {"(6) wrapper then leader", "Re: [Fwd: Re: test (fwd)]", "test", 1},
    {"(6) nested", "[fwd: [fwd: test]]", "test", 1},
    {"empty", "", "", 0},
    {"only leaders", "Re: Fwd:", "", 1},
    {"unbalanced blob", "[abc test", "[abc test", 0},
};

static void base(const char *in, size_t in_len, char **out, size_t *n, unsigned *flags) {
  size_t cap = 3 * in_len + 1;
  *out = malloc(cap);
  ck_assert_int_eq(mp_subject_base(*out, cap, n, flags, in, in_len), 0);
}

START_TEST(base_vectors) {
  const struct vec *v = &vectors[_i];
  char *a, *b;
  size_t na, nb;
  unsigned fa = 0, fb = 0;
  base(v->in, strlen(v->in), &a, &na, &fa);
  ck_assert_msg(na == strlen(v->want) && memcmp(a, v->want, na) == 0,
                "%s: got \"%.*s\", want \"%s\"", v->step, (int)na, a, v->want);
  ck_assert_int_eq(!!(fa & MP_TYPED_SUBJECT_REPLY), v->reply);
  // Idempotence: the base subject of the base subject is itself.
  base(a, na, &b, &nb, &fb);
  ck_assert_uint_eq(nb, na);
  ck_assert_mem_eq(b, a, na);
  ck_assert_uint_eq(fb & MP_TYPED_SUBJECT_REPLY, 0);
  free(a);
  free(b);
}
END_TEST

START_TEST(buffer) {
  char out[4];
  size_t n = 9;
  ck_assert_int_eq(mp_subject_base(out, sizeof out, &n, NULL, "Re: hello", 9),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(mp_subject_base(out, sizeof out, NULL, NULL, "x", 1), MP_ERR_INVALID_ARGUMENT);
  // No buffer at all is allowed when nothing is written (as for
  // mp_rfc2047_decode): an empty subject, and one that is all reply marks.
  unsigned flags = 0;
  ck_assert_int_eq(mp_subject_base(NULL, 0, &n, &flags, "", 0), 0);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(mp_subject_base(NULL, 0, &n, &flags, "x", 1), MP_ERR_BUFFER_TOO_SMALL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_subject");
  TCase *tc = tcase_create("subject");
  tcase_add_loop_test(tc, base_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, buffer);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
