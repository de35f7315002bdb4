// test_typed_address.c: mp_address_list_parse (src/typed_address.c): the
// address fields of the RFC 5322 Appendix A messages (A.1.1, A.1.2, A.1.3,
// A.5, A.6.1, A.6.3), the RFC 2047 §8 address examples, and real-world
// breakages (unquoted commas, missing angle brackets, names in comments,
// trailing garbage), with flags, limits and buffer sizes.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_check.h"
#include "typed_internal.h"

// Each entry is shown as [G:]name|local@domain[#group], joined by "; ".
struct vec {
  const char *section;
  const char *in;
  const char *want;
  unsigned flags_set;
};

static const struct vec vectors[] = {
    {"A.1.1", "John Doe <jdoe@machine.example>", "John Doe|jdoe@machine.example", 0},
    {"A.1.1", " Mary Smith <mary@example.net>", "Mary Smith|mary@example.net", 0},
    {"A.1.2", " \"Joe Q. Public\" <john.q.public@example.com>",
     "Joe Q. Public|john.q.public@example.com", 0},
    {"A.1.2", " Mary Smith <mary@x.test>, jdoe@example.org, Who? <one@y.test>",
     "Mary Smith|mary@x.test; |jdoe@example.org; Who?|one@y.test", 0},
    {"A.1.2", " <boss@nil.test>, \"Giant; \\\"Big\\\" Box\" <sysservices@example.net>",
     "|boss@nil.test; Giant; \"Big\" Box|sysservices@example.net", 0},
    {"A.1.3", " A Group:Ed Jones <c@a.test>,joe@where.test,John <jdoe@one.test>;",
     "G:A Group|@; Ed Jones|c@a.test#0; |joe@where.test#0; John|jdoe@one.test#0", 0},
    {"A.1.3", " Undisclosed recipients:;", "G:Undisclosed recipients|@", 0},
    {"A.5", " Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>",
     "Pete|pete@silly.test", 0},
    {"A.5",
     "A Group(Some people)\r\n     :Chris Jones <c@(Chris's host.)public.example>,\r\n"
     "         joe@example.org,\r\n  John <jdoe@one.test> (my dear friend); (the end of the "
     "group)",
     "G:A Group|@; Chris Jones|c@public.example#0; |joe@example.org#0; John|jdoe@one.test#0", 0},
    {"A.5", "(Empty list)(start)Hidden recipients  :(nobody(that I know))  ;",
     "G:Hidden recipients|@", 0},
    {"A.6.1", " Joe Q. Public <john.q.public@example.com>",
     "Joe Q. Public|john.q.public@example.com", MP_TYPED_OBSOLETE},
    {"A.6.1", " Mary Smith <@node.test:mary@example.net>, , jdoe@test  . example",
     "Mary Smith|mary@example.net; |jdoe@test.example", MP_TYPED_OBSOLETE},
    {"A.6.3", " John Doe <jdoe@machine(comment).  example>", "John Doe|jdoe@machine.example",
     MP_TYPED_OBSOLETE},
    {"A.6.3", " Mary Smith\r\n  \r\n          <mary@example.net>", "Mary Smith|mary@example.net",
     0},
    {"RFC 2047 §8", "=?US-ASCII?Q?Keith_Moore?= <moore@cs.utk.edu>", "Keith Moore|moore@cs.utk.edu",
     0},
    {"RFC 2047 §8", "=?ISO-8859-1?Q?Keld_J=F8rn_Simonsen?= <keld@dkuug.dk>",
     "Keld J\xc3\xb8rn Simonsen|keld@dkuug.dk", 0},
    {"RFC 2047 §8", "=?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>",
     "Andr\xc3\xa9 Pirard|PIRARD@vm1.ulg.ac.be", 0},
    {"RFC 2047 §8", "=?iso-8859-1?q?this=20is=20some=20text?= =?iso-8859-1?q?_and_more?= <a@b>",
     "this is some text and more|a@b", 0},
    // Real world.
    {"unquoted comma", "Doe, John <jdoe@example.com>", "Doe, John|jdoe@example.com",
     MP_TYPED_REPAIRED},
    {"unquoted comma", "Doe, John <jdoe@example.com>, x@y", "Doe, John|jdoe@example.com; |x@y",
     MP_TYPED_REPAIRED},
    {"name in comment", "jdoe@example.com (John Doe)", "John Doe|jdoe@example.com", 0},
    {"missing angle", "John Doe jdoe@example.com", "John Doe|jdoe@example.com", MP_TYPED_REPAIRED},
    {"trailing junk", "<jdoe@example.com> garbage here", "|jdoe@example.com", MP_TYPED_JUNK},
    {"unterminated angle", "John <jdoe@example.com, x@y", "John|jdoe@example.com; |x@y",
     MP_TYPED_UNTERMINATED},
    {"encoded word in quotes", "\"=?utf-8?q?J=C3=B6rg?=\" <j@x.test>", "J\xc3\xb6rg|j@x.test",
     MP_TYPED_ENCWORD_PLACEMENT},
    {"raw UTF-8 name", "J\xc3\xb6rg <j@x.test>", "J\xc3\xb6rg|j@x.test", MP_TYPED_8BIT},
    {"quoted local", "\"john doe\"@example.com", "|john doe@example.com", 0},
    {"local only", "postmaster", "|postmaster@", 0},
    {"empty", "", "", 0},
    {"blank", "  \r\n ", "", 0},
    {"group no semicolon", "friends: a@b, c@d", "G:friends|@; |a@b#0; |c@d#0",
     MP_TYPED_UNTERMINATED},
    {"two groups", "g1: a@b;, g2: ;, c@d", "G:g1|@; |a@b#0; G:g2|@; |c@d", 0},
    {"null path", "<>", "|@", 0},
    {"domain literal", "a@[192.0.2.1]", "|a@[192.0.2.1]", 0},
};

static void show(char *buf, size_t cap, const mp_address *a, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    char grp[16] = "";
    if (a[i].group != MP_NO_INDEX)
      snprintf(grp, sizeof grp, "#%u", (unsigned)a[i].group);
    len += (size_t)snprintf(buf + len, cap - len, "%s%s%.*s|%.*s@%.*s%s", i > 0 ? "; " : "",
                            a[i].flags & MP_ADDRESS_GROUP ? "G:" : "", (int)a[i].name.len,
                            a[i].name.p ? a[i].name.p : "", (int)a[i].local.len,
                            a[i].local.p ? a[i].local.p : "", (int)a[i].domain.len,
                            a[i].domain.p ? a[i].domain.p : "", grp);
    if (len >= cap)
      break;
  }
}

START_TEST(parse_vectors) {
  const struct vec *v = &vectors[_i];
  size_t in_len = strlen(v->in);
  size_t cap = mp_typed_text_max_len(in_len);
  char *text = malloc(cap);
  mp_address addr[16];
  size_t n = 99, tl = 99;
  unsigned flags = 0;
  int rc = mp_address_list_parse(addr, 16, &n, text, cap, &tl, &flags, v->in, in_len);
  ck_assert_int_eq(rc, 0);
  char got[1024];
  show(got, sizeof got, addr, n);
  ck_assert_msg(strcmp(got, v->want) == 0, "%s case %d: got \"%s\", want \"%s\"", v->section, _i,
                got, v->want);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "%s case %d: flags %#x lack %#x",
                v->section, _i, flags, v->flags_set);
  ck_assert_uint_le(tl, 3 * in_len);
  // A text buffer of exactly tl bytes works, one less does not.
  if (tl > 0) {
    char *tight = malloc(tl);
    size_t n2, tl2;
    ck_assert_int_eq(mp_address_list_parse(addr, 16, &n2, tight, tl, &tl2, NULL, v->in, in_len), 0);
    ck_assert_uint_eq(n2, n);
    ck_assert_int_eq(mp_address_list_parse(addr, 16, &n2, tight, tl - 1, &tl2, NULL, v->in, in_len),
                     MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n2, 0);
    ck_assert_uint_eq(tl2, 0);
    free(tight);
  }
  if (n > 0) {
    size_t n2 = 9, tl2 = 9;
    ck_assert_int_eq(mp_address_list_parse(addr, n - 1, &n2, text, cap, &tl2, NULL, v->in, in_len),
                     MP_ERR_LIMIT);
    ck_assert_uint_eq(n2, 0);
  }
  free(text);
}
END_TEST

START_TEST(entry_flags) {
  char text[256];
  mp_address a[4];
  size_t n, tl;
  const char *in = "x@y (Name), <@r.test:q@z>, \"a b\"@c";
  ck_assert_int_eq(mp_address_list_parse(a, 4, &n, text, sizeof text, &tl, NULL, in, strlen(in)),
                   0);
  ck_assert_uint_eq(n, 3);
  ck_assert(a[0].flags & MP_ADDRESS_NAME_COMMENT);
  ck_assert(a[1].flags & MP_ADDRESS_ROUTE);
  ck_assert(a[1].flags & MP_ADDRESS_ANGLE);
  ck_assert(a[2].flags & MP_ADDRESS_QUOTED_LOCAL);
  in = "postmaster";
  ck_assert_int_eq(mp_address_list_parse(a, 4, &n, text, sizeof text, &tl, NULL, in, strlen(in)),
                   0);
  ck_assert(a[0].flags & MP_ADDRESS_INCOMPLETE);
}
END_TEST

// The documented capacity, in_len / 2 + 1 entries, is enough for any input:
// runs of ':' once made one group entry per byte (found by fuzzing).
START_TEST(documented_bound) {
  static const char *const inputs[] = {"M,M,:-;::;:", "M,:\xf5;:*", "::::::::", ":;:;:;",
                                       "a:b:c:d:",    ",,,,,,",     "a,b,c",    "g:a;b"};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    size_t in_len = strlen(inputs[i]), cap = in_len / 2 + 1, n = 0, tl = 0;
    size_t tcap = mp_typed_text_max_len(in_len);
    char *text = malloc(tcap);
    mp_address *addr = malloc(cap * sizeof *addr);
    ck_assert(text != NULL && addr != NULL);
    int rc = mp_address_list_parse(addr, cap, &n, text, tcap, &tl, NULL, inputs[i], in_len);
    ck_assert_msg(rc == 0, "\"%s\": %d with %zu entries", inputs[i], rc, cap);
    ck_assert_uint_le(n, cap);
    free(text);
    free(addr);
  }
  // A ':' with nothing before it names no group.
  mp_address a[4];
  char text[64];
  size_t n = 9, tl = 0;
  unsigned flags = 0;
  ck_assert_int_eq(mp_address_list_parse(a, 4, &n, text, sizeof text, &tl, &flags, ":;", 2), 0);
  ck_assert_uint_eq(n, 0);
  ck_assert(flags & MP_TYPED_JUNK);
}
END_TEST

START_TEST(arguments) {
  char text[16];
  mp_address a[2];
  size_t n, tl;
  ck_assert_int_eq(mp_address_list_parse(a, 2, NULL, text, 16, &tl, NULL, "a", 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_address_list_parse(a, 2, &n, text, 16, NULL, NULL, "a", 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_address_list_parse(NULL, 2, &n, text, 16, &tl, NULL, "a", 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_address_list_parse(a, 2, &n, text, 16, &tl, NULL, NULL, 1),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_address_list_parse(NULL, 0, &n, NULL, 0, &tl, NULL, "", 0), 0);
  ck_assert_uint_eq(n, 0);
}
END_TEST

// Pieces the generated values are made of: the forms the fast path takes,
// next to everything that must send it to the general parser.
static const char *const gen_names[] = {"John",
                                        "John Doe",
                                        "  Mary \r\n Smith",
                                        "\"Joe Q. Public\"",
                                        "Joe Q. Public",
                                        "\"\"",
                                        "\"\" x",
                                        "A \"\" B",
                                        "A \"\"B",
                                        "\"a\\\"b\"",
                                        "=?utf-8?q?J=C3=B6rg?=",
                                        "(c) John",
                                        "J\xc3\xb6rg",
                                        "\" lead\"",
                                        "\"trail \"",
                                        "\"a\r\n b\"",
                                        "\"x\"y",
                                        "Who?",
                                        "a=b c=",
                                        "Dept:",
                                        "\"tab\there\"",
                                        "\"Doe, John\"",
                                        ".",
                                        "\"unclosed",
                                        "a\x01z",
                                        "\"=?x\""};
static const char *const gen_addrs[] = {"a@b.c",       "john.q.public@example.com",
                                        "a..b@c",      "a.@b",
                                        ".a@b",        "\"q l\"@d",
                                        "a@[1.2.3.4]", "@r.test:a@b",
                                        "a @ b",       "a@b.",
                                        "x=y@z",       "a=?x@y",
                                        "a",           "",
                                        "a@b(c)",      "x@y z",
                                        "a@b@c",       "\xc3\xa9@x.y",
                                        "a@b=",        "O'Neil+tag@ex-ample.org"};
static const char *const gen_comments[] = {"(Name)",    "(John X. Doe)",   "()",
                                           "( a  b )",  "(=?utf-8?q?x?=)", "(a (nested) b)",
                                           "(unclosed", "(a\\)b)",         "(J\xc3\xb6rg)",
                                           "(a\r\n b)", "(x) (y)",         "(\xff)"};
static const char *const gen_seps[] = {",", ", ", " ,\r\n ", ",,", ";", ", ,", ":", " "};

// gen_pick returns one element of `v` (`n` of them) chosen by `*state`.
static const char *gen_pick(uint32_t *state, const char *const *v, size_t n) {
  *state = *state * 1103515245u + 12345u;
  return v[(*state >> 16) % n];
}

// gen_elem appends one list element: an address alone, in angle brackets,
// after a name, followed by a comment, or in one of the broken forms.
static size_t gen_elem(uint32_t *state, char *out, size_t cap) {
  const char *addr = gen_pick(state, gen_addrs, sizeof gen_addrs / sizeof gen_addrs[0]);
  const char *name = gen_pick(state, gen_names, sizeof gen_names / sizeof gen_names[0]);
  const char *comment = gen_pick(state, gen_comments, sizeof gen_comments / sizeof gen_comments[0]);
  *state = *state * 1103515245u + 12345u;
  switch ((*state >> 16) % 12) {
  case 0:
  case 1:
    return (size_t)snprintf(out, cap, "%s", addr);
  case 2:
    return (size_t)snprintf(out, cap, "<%s>", addr);
  case 3:
  case 4:
    return (size_t)snprintf(out, cap, "%s <%s>", name, addr);
  case 5:
    return (size_t)snprintf(out, cap, "%s<%s> ", name, addr);
  case 6:
    return (size_t)snprintf(out, cap, "%s %s", name, addr); // no angle brackets
  case 7:
    return (size_t)snprintf(out, cap, "%s %s", addr, comment);
  case 8:
    return (size_t)snprintf(out, cap, "%s%s ", addr, comment);
  case 9:
    return (size_t)snprintf(out, cap, "<%s> %s", addr, comment);
  case 10:
    return (size_t)snprintf(out, cap, "%s <%s>%s", name, addr, comment);
  default:
    return (size_t)snprintf(out, cap, "%s <%s", name, addr); // unterminated
  }
}

// The fast path for the common forms gives the general parser's results,
// entry for entry and string for string, on generated values.
START_TEST(fast_matches_general) {
  uint32_t state = 1;
  size_t clean = 0;
  for (int iter = 0; iter < 20000; iter++) {
    char in[512];
    size_t len = 0;
    int n = 1 + iter % 4;
    if (iter % 9 == 0)
      len += (size_t)snprintf(in, sizeof in, " \r\n ");
    for (int k = 0; k < n && len < 400; k++) {
      if (k > 0)
        len += (size_t)snprintf(in + len, sizeof in - len, "%s",
                                iter % 3 == 0 ? gen_pick(&state, gen_seps, 8) : ", ");
      len += gen_elem(&state, in + len, sizeof in - len);
    }
    if (iter % 11 == 0)
      len += (size_t)snprintf(in + len, sizeof in - len, "%s", iter % 2 ? " " : ",");
    size_t acap = iter % 17 == 0 ? 1 : 8;
    size_t cap = iter % 13 == 0 ? 12 : mp_typed_text_max_len(len);
    char t1[4096], t2[4096];
    mp_address a1[8], a2[8];
    size_t l1 = 7, l2 = 7, n1 = 9, n2 = 9;
    unsigned f1 = 0, f2 = 0;
    memset(a1, 0, sizeof a1);
    memset(a2, 0, sizeof a2);
    int r1 = mp_address_list_parse(a1, acap, &n1, t1, cap, &l1, &f1, in, len);
    int r2 = mp_address_list_parse_general(a2, acap, &n2, t2, cap, &l2, &f2, in, len);
    ck_assert_msg(r1 == r2 && f1 == f2 && l1 == l2 && n1 == n2,
                  "\"%s\": rc %d/%d flags %x/%x len %zu/%zu num %zu/%zu", in, r1, r2, f1, f2, l1,
                  l2, n1, n2);
    if (r1 != 0)
      continue;
    clean += (f1 & ~(unsigned)MP_TYPED_OBSOLETE) == 0;
    ck_assert_msg(memcmp(t1, t2, l1) == 0, "\"%s\"", in);
    for (size_t i = 0; i < n1; i++) {
      same_str(a1[i].name, t1, a2[i].name, t2, in);
      same_str(a1[i].local, t1, a2[i].local, t2, in);
      same_str(a1[i].domain, t1, a2[i].domain, t2, in);
      ck_assert_msg(a1[i].flags == a2[i].flags && a1[i].group == a2[i].group,
                    "\"%s\" entry %zu: flags %x/%x", in, i, a1[i].flags, a2[i].flags);
    }
  }
  // Both kinds of value were made: ones the fast path takes and the others.
  ck_assert_uint_gt(clean, 2000);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_address");
  TCase *tc = tcase_create("address");
  tcase_add_loop_test(tc, parse_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, entry_flags);
  tcase_add_test(tc, documented_bound);
  tcase_add_test(tc, arguments);
  suite_add_tcase(s, tc);
  // Its own case: 20,000 values through both parsers, under ASan on a
  // loaded machine, outlast Check's default 4 s.
  TCase *diff = tcase_create("fast");
  tcase_set_timeout(diff, 120);
  tcase_add_test(diff, fast_matches_general);
  suite_add_tcase(s, diff);
  return corvid_check_run(s);
}
