// test_typed_received.c: mp_received_parse (src/typed_received.c): the
// Received fields of RFC 5322 Appendix A.4 and a real-world field with
// TCP-info, TLS comments and an obsolete zone comment; and the one-pass
// paths for the common forms of clause values and dates against the token
// loops (mp_received_parse_general) on generated fields.
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_internal.h"

static void eq(mp_str s, const char *want) {
  if (want == NULL) {
    ck_assert_ptr_null(s.p);
    return;
  }
  ck_assert_msg(s.len == strlen(want) && memcmp(s.p, want, s.len) == 0, "got \"%.*s\" want \"%s\"",
                (int)s.len, s.p ? s.p : "", want);
}

START_TEST(rfc5322_a4) {
  const char *in = " from x.y.test\r\n   by example.net\r\n   via TCP\r\n   with ESMTP\r\n"
                   "   id ABC12345\r\n   for <mary@example.net>;  21 Nov 1997 10:05:43 -0600";
  mp_received r;
  unsigned flags = 0;
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), 0);
  eq(r.from, "x.y.test");
  eq(r.by, "example.net");
  eq(r.via, "TCP");
  eq(r.with, "ESMTP");
  eq(r.id, "ABC12345");
  eq(r.for_, "mary@example.net");
  eq(r.from_info, NULL);
  ck_assert_int_eq(r.has_date, 1);
  ck_assert_int_eq(r.date.time, 880128343);
  ck_assert_int_eq(r.date.offset, -360);
  ck_assert_uint_eq(flags & MP_TYPED_JUNK, 0);
  in = " from node.example by x.y.test; 21 Nov 1997 10:01:22 -0600";
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), 0);
  eq(r.from, "node.example");
  eq(r.by, "x.y.test");
  eq(r.with, NULL);
  ck_assert_int_eq(r.date.time, 880128082);
}
END_TEST

START_TEST(real_world) {
  const char *in = "from mail.example.com (mail.example.com [192.0.2.1])\r\n"
                   "\tby mx.example.net with ESMTPS id abc123.45\r\n"
                   "\tfor <x@example.net>\r\n"
                   "\t(version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256; x);\r\n"
                   "\tMon, 02 Jan 2006 15:04:05 -0800 (PST)";
  mp_received r;
  unsigned flags = 0;
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), 0);
  eq(r.from, "mail.example.com");
  eq(r.from_info, "mail.example.com [192.0.2.1]");
  eq(r.by, "mx.example.net");
  eq(r.with, "ESMTPS");
  eq(r.id, "abc123.45");
  eq(r.for_, "x@example.net");
  ck_assert_int_eq(r.has_date, 1);
  ck_assert_int_eq(r.date.time, 1136243045);
  // Postfix local delivery: no from clause.
  in = "by mx.example.net (Postfix, from userid 1000)\r\n id 4F1; Mon, 2 Jan 2006 15:04:05 +0000";
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), 0);
  eq(r.from, NULL);
  eq(r.by, "mx.example.net");
  eq(r.id, "4F1");
  // Bad date: the clauses stay, has_date is 0.
  in = "from a by b; not a date";
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), 0);
  ck_assert_int_eq(r.has_date, 0);
  ck_assert(flags & MP_TYPED_JUNK);
  in = "garbage";
  ck_assert_int_eq(mp_received_parse(&r, &flags, in, strlen(in)), MP_ERR_SYNTAX);
  ck_assert_int_eq(mp_received_parse(NULL, &flags, in, strlen(in)), MP_ERR_INVALID_ARGUMENT);
}
END_TEST

// The date-time follows the last top-level ';'; one inside a comment, a
// quoted string, a domain literal or an encoded word does not count (if it
// did, the date would start after it and fail to parse; trailing text after
// a date is tolerated).
START_TEST(last_semicolon) {
  static const struct {
    const char *in;
    int has_date;
  } t[] = {
      {"from a by b; junk; Mon, 2 Jan 2006 15:04:05 +0000", 1},
      {"from a by b; Mon, 2 Jan 2006 15:04:05 +0000 (x; y)", 1},
      {"from a by b; Mon, 2 Jan 2006 15:04:05 +0000 \"q;\"", 1},
      {"from a by b; x \"q;x\" [1;2] =?utf-8?q?a;b?= ; Mon, 2 Jan 2006 15:04:05 +0000", 1},
      {"from a by b; Mon, 2 Jan 2006 15:04:05 +0000 =?utf-8?q?a;b?=", 1},
      {"from a by b; Mon, 2 Jan 2006 15:04:05 +0000 [;", 1},
      {"from a by b; Mon, 2 Jan 2006 15:04:05 +0000 (;", 1},
      {"from a by b; x;", 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    mp_received r;
    unsigned flags = 0;
    ck_assert_int_eq(mp_received_parse(&r, &flags, t[i].in, strlen(t[i].in)), 0);
    eq(r.from, "a");
    eq(r.by, "b");
    ck_assert_msg(r.has_date == t[i].has_date, "case %zu", i);
    if (r.has_date)
      ck_assert_int_eq(r.date.time, 1136214245);
  }
}
END_TEST

// Pieces of the generated fields: clause words and values of the common
// forms the one-pass path takes, next to everything that must go to the
// token loop (quoted strings, domain literals, encoded words, specials,
// comments, empty or unclosed angle-addrs), comments, separators and dates.
static const char *const gen_words[] = {"from", "by", "via",  "with", "id",   "for",
                                        "FROM", "By", "wITH", "xyz",  "from", "by"};
static const char *const gen_values[] = {"mail.example.com",
                                         "mx1.example.net",
                                         "ESMTPS",
                                         "4A1B2C.x-y_z",
                                         "<x@example.net>",
                                         "<a.b+c@d.example>",
                                         "mail.example.com",
                                         "ESMTP",
                                         "<>",
                                         "< x@y >",
                                         "<x@y",
                                         "<x\"q\"@y>",
                                         "\"quoted host\"",
                                         "[192.0.2.1]",
                                         "a[1.2]",
                                         "a=b",
                                         "=?utf-8?q?x?=",
                                         "a(c)b",
                                         "a,b",
                                         "a:b",
                                         "a\\b",
                                         "a>b",
                                         "a\"b\"",
                                         "h\xc3\xa9.example",
                                         "a\x01z",
                                         ";",
                                         "(c) host",
                                         ""};
static const char *const gen_comments[] = {
    "",           "",           " (mail.example.com [192.0.2.1])",
    " (Postfix)", "(helo x)",   " (version=TLS1_3 cipher=X bits=256/256; x)",
    " (unclosed", " (a (b) c)", " \"q;\"",
    " [1;2]"};
static const char *const gen_seps[] = {" ", "\r\n\t", "\r\n ", "  ", "", "\t"};
static const char *const gen_dates[] = {" Fri, 20 Apr 2001 17:12:06 -0400 (EDT)",
                                        "\r\n\tMon, 02 Jan 2006 15:04:05 -0800",
                                        " 21 Nov 1997 10:05:43 -0600",
                                        " Sun,\r\n 23 Sep 2001 20:14:35 -0700 (PDT)",
                                        " Fri, 10 Jul 2015 20:12:33 +0000 (envelope-from <a@b>)",
                                        " 21 Nov 97 09:55:06 GMT",
                                        " Mon, 2 Jan 2006 15:04 +0000",
                                        " Mon, 31 Feb 2006 15:04:05 +0000",
                                        " not a date",
                                        " junk; Mon, 2 Jan 2006 15:04:05 +0000",
                                        "",
                                        " Mon, 2 Jan 2006 15:04:05 +0000 =?utf-8?q?a;b?="};

static uint32_t gen_state = 3;

static const char *gen_pick(const char *const *v, size_t n) {
  gen_state = gen_state * 1103515245u + 12345u;
  return v[(gen_state >> 8) % n];
}

#define PICK(v) gen_pick((v), sizeof(v) / sizeof((v)[0]))

// The one-pass paths give the token loops' results, clause for clause (the
// same pointers into the input), date and flags, on generated fields.
START_TEST(fast_matches_general) {
  size_t dated = 0, clean = 0;
  for (int it = 0; it < 30000; it++) {
    char in[1024];
    size_t len = 0;
    int clauses = 1 + it % 6;
    bool common = it % 2 == 0; // mostly values of the common forms
    for (int k = 0; k < clauses; k++) {
      const char *value =
          common && it % 7 != 0 ? gen_values[(gen_state >> 8) % 8] : PICK(gen_values);
      len += (size_t)snprintf(in + len, sizeof in - len, "%s%s%s%s%s", k ? PICK(gen_seps) : "",
                              PICK(gen_words), PICK(gen_seps), value, PICK(gen_comments));
      gen_state = gen_state * 1103515245u + 12345u;
    }
    if (it % 5 != 0)
      len += (size_t)snprintf(in + len, sizeof in - len, ";%s", PICK(gen_dates));
    ck_assert_uint_lt(len, sizeof in);
    mp_received a, b;
    unsigned fa = 1, fb = 2;
    memset(&a, 0x55, sizeof a);
    memset(&b, 0xaa, sizeof b);
    int ra = mp_received_parse(&a, &fa, in, len);
    int rb = mp_received_parse_general(&b, &fb, in, len);
    ck_assert_msg(ra == rb && fa == fb, "\"%s\": rc %d/%d flags %x/%x", in, ra, rb, fa, fb);
    ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "\"%s\": results differ", in);
    dated += ra == 0 && a.has_date;
    clean += ra == 0 && fa == 0;
  }
  // Fields of both kinds were made, most of them with a date.
  ck_assert_uint_gt(dated, 10000);
  ck_assert_uint_gt(clean, 2000);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_received");
  TCase *tc = tcase_create("received");
  tcase_add_test(tc, rfc5322_a4);
  tcase_add_test(tc, real_world);
  tcase_add_test(tc, last_semicolon);
  tcase_add_test(tc, fast_matches_general);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
