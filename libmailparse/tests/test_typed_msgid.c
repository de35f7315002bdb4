// test_typed_msgid.c: mp_msgid_list_parse (src/typed_msgid.c): the msg-ids
// of RFC 5322 Appendix A (A.1.3, A.2, A.6.2), the obsolete §4.5.4 forms and
// real-world junk (phrases, comments, bare ids, unclosed brackets).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

struct vec {
  const char *section;
  const char *in;
  const char *want; // ids joined by " "
  unsigned flags_set;
};

static const struct vec vectors[] = {
    {"A.1.3", " <1234@local.machine.example>", "1234@local.machine.example", 0},
    {"A.2", " <1234@local.machine.example>\r\n <3456@example.net>",
     "1234@local.machine.example 3456@example.net", 0},
    {"A.2", "<abcd.1234@local.machine.test>", "abcd.1234@local.machine.test", 0},
    {"A.6.2", " <78910@example.net>", "78910@example.net", 0},
    {"4.5.4 CFWS", "< 1234 @ local(blah) .machine .example >", "1234@local.machine.example",
     MP_TYPED_OBSOLETE},
    {"4.5.4 quoted", "<\"a b\"@example.net>", "\"a b\"@example.net", MP_TYPED_OBSOLETE},
    {"4.5.4 phrase", "Your message of \"Mon, 2 Jan 2006\" <a@b.example>", "a@b.example",
     MP_TYPED_OBSOLETE},
    {"commas", "<a@b>,<c@d>, <e@f>", "a@b c@d e@f", 0},
    {"comment", "<a@b> (added by list)", "a@b", 0},
    {"bare", "a.b@c.example", "a.b@c.example", MP_TYPED_REPAIRED},
    {"bare after id", "<x@y> a@b", "x@y a@b", MP_TYPED_REPAIRED},
    {"unclosed", "<a@b <c@d>", "a@b c@d", MP_TYPED_UNTERMINATED},
    {"unclosed end", "<a@b", "a@b", MP_TYPED_UNTERMINATED},
    {"empty", "<> <a@b>", "a@b", MP_TYPED_JUNK},
    {"no at", "<local-only>", "local-only", 0},
    {"specials", "<a$b%c/d=e@[10.0.0.1]>", "a$b%c/d=e@[10.0.0.1]", 0},
    {"nothing", "", "", 0},
};

START_TEST(parse_vectors) {
  const struct vec *v = &vectors[_i];
  size_t in_len = strlen(v->in);
  size_t cap = mp_typed_text_max_len(in_len);
  char *text = malloc(cap);
  mp_msgid ids[8];
  size_t n, tl;
  unsigned flags = 0;
  ck_assert_int_eq(mp_msgid_list_parse(ids, 8, &n, text, cap, &tl, &flags, v->in, in_len), 0);
  char got[512];
  size_t len = 0;
  got[0] = 0;
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%.*s", i ? " " : "", (int)ids[i].id.len,
                            ids[i].id.p);
  ck_assert_msg(strcmp(got, v->want) == 0, "%s: got \"%s\", want \"%s\"", v->section, got, v->want);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "%s: flags %#x lack %#x", v->section, flags,
                v->flags_set);
  if (n > 0) {
    size_t n2 = 3, tl2 = 3;
    ck_assert_int_eq(mp_msgid_list_parse(ids, n - 1, &n2, text, cap, &tl2, NULL, v->in, in_len),
                     MP_ERR_LIMIT);
    ck_assert_uint_eq(n2, 0);
    ck_assert_int_eq(mp_msgid_list_parse(ids, 8, &n2, text, tl - 1, &tl2, NULL, v->in, in_len),
                     MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(tl2, 0);
  }
  free(text);
}
END_TEST

START_TEST(id_flags) {
  char text[64];
  mp_msgid ids[4];
  size_t n, tl;
  const char *in = "<nolocal> a@b";
  ck_assert_int_eq(mp_msgid_list_parse(ids, 4, &n, text, sizeof text, &tl, NULL, in, strlen(in)),
                   0);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(ids[0].flags, MP_MSGID_NO_AT);
  ck_assert_uint_eq(ids[1].flags, MP_MSGID_NO_ANGLE);
  ck_assert_int_eq(mp_msgid_list_parse(ids, 4, NULL, text, sizeof text, &tl, NULL, in, 1),
                   MP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_msgid");
  TCase *tc = tcase_create("msgid");
  tcase_add_loop_test(tc, parse_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, id_flags);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
