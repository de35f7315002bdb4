// test_typed_msgid.c: mp_msgid_list_parse (src/typed_msgid.c): the msg-ids
// of RFC 5322 Appendix A (A.1.3, A.2, A.6.2), the obsolete §4.5.4 forms and
// real-world junk (phrases, comments, bare ids, unclosed brackets); and the
// one-pass path for the common form against the general parser
// (mp_msgid_list_parse_general) on generated lists.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_check.h"
#include "typed_internal.h"

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

// Pieces of the generated lists: ids of the common form the one-pass path
// takes, next to everything that must send a list to the general parser.
static const char *const gen_ids[] = {"<1234@local.machine.example>",
                                      "<abcd.1234@local.machine.test>",
                                      "<CAF=x@mail.gmail.com>",
                                      "<a!#$%&'*+-/?^_`{|}~@b>",
                                      "<local-only>",
                                      "<a@b@c>",
                                      "<>",
                                      "< a@b>",
                                      "<a@b >",
                                      "<a @b>",
                                      "<a(c)@b>",
                                      "<\"q x\"@b>",
                                      "<a@[1.2.3.4]>",
                                      "<a:b;c@d>",
                                      "<a\\b@c>",
                                      "<a\xc3\xa9@b>",
                                      "<a\x01@b>",
                                      "<unclosed@x",
                                      "<a@b",
                                      "bare@id.example",
                                      "phrase",
                                      "\"quoted\"",
                                      "(comment)",
                                      ">",
                                      "<a<b@c>",
                                      "<=?utf-8?q?x?=@y>",
                                      "<x.y.z@a.b.c.d>",
                                      "<0123456789abcdef0123456789abcdef@example.com>"};
static const char *const gen_seps[] = {" ", "\r\n ", ",", ", ", "", "\t", ",,", " \r\n\t"};

static uint32_t gen_state = 7;

static unsigned gen_rnd(unsigned n) {
  gen_state = gen_state * 1103515245u + 12345u;
  return (gen_state >> 8) % n;
}

// The one-pass path for the common form gives the general parser's results,
// id for id at the same offsets of the text buffer, on generated lists
// (also with an id array or a text buffer too small).
START_TEST(fast_matches_general) {
  size_t clean = 0, other = 0;
  for (int it = 0; it < 30000; it++) {
    char in[1024];
    size_t len = 0;
    unsigned k = 1 + gen_rnd(6);
    bool common = gen_rnd(2) == 0; // mostly common-form ids, or any
    if (gen_rnd(5) == 0)
      len += (size_t)snprintf(in + len, sizeof in - len, "%s", gen_seps[gen_rnd(8)]);
    for (unsigned j = 0; j < k; j++) {
      // The ids of the common form are those at these places.
      static const unsigned common_ids[] = {0, 1, 3, 4, 26, 27};
      unsigned pick = common && gen_rnd(20) != 0 ? common_ids[gen_rnd(6)] : gen_rnd(28);
      len += (size_t)snprintf(in + len, sizeof in - len, "%s%s", j ? gen_seps[gen_rnd(8)] : "",
                              gen_ids[pick]);
    }
    if (gen_rnd(6) == 0)
      len += (size_t)snprintf(in + len, sizeof in - len, "%s", gen_seps[gen_rnd(8)]);
    ck_assert_uint_lt(len, sizeof in);
    size_t ncap = gen_rnd(10) == 0 ? gen_rnd(k + 1) : 8;
    size_t cap = gen_rnd(10) == 0 ? gen_rnd((unsigned)len + 1) : mp_typed_text_max_len(len);
    char t1[4096], t2[4096];
    mp_msgid a1[8], a2[8];
    memset(a1, 0, sizeof a1);
    memset(a2, 0, sizeof a2);
    size_t n1 = 5, n2 = 6, l1 = 7, l2 = 8;
    unsigned f1 = 1, f2 = 2;
    int r1 = mp_msgid_list_parse(a1, ncap, &n1, t1, cap, &l1, &f1, in, len);
    int r2 = mp_msgid_list_parse_general(a2, ncap, &n2, t2, cap, &l2, &f2, in, len);
    ck_assert_msg(r1 == r2 && f1 == f2 && l1 == l2 && n1 == n2,
                  "\"%s\": rc %d/%d flags %x/%x len %zu/%zu num %zu/%zu", in, r1, r2, f1, f2, l1,
                  l2, n1, n2);
    if (r1 != 0) {
      other++;
      continue;
    }
    ck_assert_msg(memcmp(t1, t2, l1) == 0, "\"%s\"", in);
    for (size_t i = 0; i < n1; i++) {
      same_str(a1[i].id, t1, a2[i].id, t2, in);
      ck_assert_msg(a1[i].flags == a2[i].flags, "\"%s\" id %zu: flags %x/%x", in, i, a1[i].flags,
                    a2[i].flags);
    }
    if (f1 == 0 && n1 > 0)
      clean++;
    else
      other++;
  }
  // Both kinds of value were made: ones the fast path takes and the others.
  ck_assert_uint_gt(clean, 5000);
  ck_assert_uint_gt(other, 5000);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_msgid");
  TCase *tc = tcase_create("msgid");
  tcase_add_loop_test(tc, parse_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, id_flags);
  tcase_add_test(tc, fast_matches_general);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
