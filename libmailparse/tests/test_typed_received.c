// test_typed_received.c: mp_received_parse (src/typed_received.c): the
// Received fields of RFC 5322 Appendix A.4 and a real-world field with
// TCP-info, TLS comments and an obsolete zone comment.
#include <check.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

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

int main(void) {
  Suite *s = suite_create("typed_received");
  TCase *tc = tcase_create("received");
  tcase_add_test(tc, rfc5322_a4);
  tcase_add_test(tc, real_world);
  tcase_add_test(tc, last_semicolon);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
