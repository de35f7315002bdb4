// test_typed_date.c: mp_date_parse (src/typed_date.c): the dates of the RFC
// 5322 Appendix A messages (A.1.1, A.5, A.6.2), obsolete zones of §4.3,
// real-world broken forms (missing seconds, two-digit years, missing day of
// the week, extra text, unsigned zones, asctime order) and the range checks
// that make invalid dates errors; and the one-pass path for the common form
// against the general loop.
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

struct vec {
  const char *section;
  const char *in;
  int64_t time;
  int32_t offset;
  uint32_t dflags;    // exact mp_date.flags
  unsigned flags_set; // MP_TYPED_* that must be set
};

static const struct vec good[] = {
    {"A.1.1", "Fri, 21 Nov 1997 09:55:06 -0600", 880127706, -360, 0, 0},
    {"A.5",
     "Thu,\r\n      13\r\n        Feb\r\n          1969\r\n      23:32\r\n"
     "               -0330 (Newfoundland Time)",
     -27723480, -210, MP_DATE_NO_SECONDS, 0},
    {"A.6.2", "21 Nov 97 09:55:06 GMT", 880106106, 0, MP_DATE_TWO_DIGIT_YEAR, MP_TYPED_OBSOLETE},
    {"3.3 -0000", "Fri, 21 Nov 1997 09:55:06 -0000", 880106106, 0, MP_DATE_ZONE_UNKNOWN, 0},
    {"4.3 EST", "Fri, 21 Nov 1997 04:55:06 EST", 880106106, -300, 0, MP_TYPED_OBSOLETE},
    {"4.3 PDT", "Fri, 21 Nov 1997 02:55:06 PDT", 880106106, -420, 0, MP_TYPED_OBSOLETE},
    {"4.3 UT", "21 Nov 1997 09:55:06 UT", 880106106, 0, 0, MP_TYPED_OBSOLETE},
    {"4.3 military", "21 Nov 1997 09:55:06 A", 880106106, 0, MP_DATE_ZONE_UNKNOWN,
     MP_TYPED_OBSOLETE},
    {"4.3 Z", "21 Nov 1997 09:55:06 Z", 880106106, 0, 0, MP_TYPED_OBSOLETE},
    {"4.3 3-digit year", "21 Nov 097 09:55:06 +0000", 880106106, 0, MP_DATE_TWO_DIGIT_YEAR,
     MP_TYPED_OBSOLETE},
    {"2-digit year < 50", "2 Jan 06 15:04:05 -0700", 1136239445, -420, MP_DATE_TWO_DIGIT_YEAR, 0},
    {"no weekday", "2 Jan 2006 15:04:05 -0700", 1136239445, -420, 0, 0},
    {"full names", "Monday, 2 January 2006 15:04:05 -0700", 1136239445, -420, 0, 0},
    {"asctime", "Mon Jan  2 15:04:05 2006", 1136214245, 0, MP_DATE_NO_ZONE, MP_TYPED_REPAIRED},
    {"asctime zone", "Mon Jan 2 15:04:05 MST 2006", 1136239445, -420, 0, 0},
    {"unsigned zone", "2 Jan 2006 15:04:05 0700", 1136214245 - 7 * 3600, 420, 0, MP_TYPED_REPAIRED},
    {"extra text", "Mon, 2 Jan 2006 15:04:05 -0700 (MST) garbage", 1136239445, -420, 0,
     MP_TYPED_JUNK},
    {"dashes", "Mon, 2-Jan-2006 15:04:05 -0700", 1136239445, -420, 0, MP_TYPED_REPAIRED},
    {"wrong weekday", "Tue, 2 Jan 2006 15:04:05 -0700", 1136239445, -420, MP_DATE_WEEKDAY_MISMATCH,
     0},
    {"leap day", "29 Feb 2000 00:00:00 +0000", 951782400, 0, 0, 0},
    {"no time", "29 Feb 2000", 951782400, 0, MP_DATE_NO_TIME | MP_DATE_NO_ZONE, MP_TYPED_REPAIRED},
    {"lower case", "mon, 2 jan 2006 15:04:05 -0700", 1136239445, -420, 0, 0},
    {"fraction", "2 Jan 2006 15:04:05.123 -0700", 1136239445, -420, 0, MP_TYPED_JUNK},
    {"pm", "2 Jan 2006 03:04:05 PM -0700", 1136239445, -420, 0, MP_TYPED_REPAIRED},
    {"first year", "1 Jan 1900 00:00:00 +0000", -2208988800, 0, 0, 0},
    {"last second", "31 Dec 9999 23:59:59 +0000", 253402300799, 0, 0, 0},
    {"leap second", "31 Dec 2016 23:59:60 +0000", 1483228800, 0, 0, 0},
};

static const char *const bad[] = {
    "",
    "garbage",
    "30 Feb 2001 00:00:00 +0000",
    "29 Feb 1900 00:00:00 +0000",
    "32 Jan 2001 00:00:00 +0000",
    "1 Foo 2001 00:00:00 +0000",
    "1 Jan 1899 00:00:00 +0000",
    "1 Jan 10000 00:00:00 +0000",
    "1 Jan 2001 24:00:00 +0000",
    "1 Jan 2001 23:60:00 +0000",
    "1 Jan 2001 23:59:61 +0000",
    "1 Jan 2001 23:59:59 +0060",
    "1 Jan 99999999999999999999 00:00:00",
    "1 Jan 2001 123:00:00",
    "Jan 2001",
    "1 Jan",
};

START_TEST(good_dates) {
  const struct vec *v = &good[_i];
  mp_date d;
  unsigned flags = 0;
  int rc = mp_date_parse(&d, &flags, v->in, strlen(v->in));
  ck_assert_msg(rc == 0, "%s: rc %d", v->section, rc);
  ck_assert_msg(d.time == v->time, "%s: time %lld, want %lld", v->section, (long long)d.time,
                (long long)v->time);
  ck_assert_int_eq(d.offset, v->offset);
  ck_assert_msg(d.flags == v->dflags, "%s: date flags %#x want %#x", v->section, d.flags,
                v->dflags);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "%s: flags %#x lack %#x", v->section, flags,
                v->flags_set);
}
END_TEST

START_TEST(bad_dates) {
  mp_date d;
  d.time = 42;
  int rc = mp_date_parse(&d, NULL, bad[_i], strlen(bad[_i]));
  ck_assert_msg(rc == MP_ERR_SYNTAX, "\"%s\": rc %d", bad[_i], rc);
  ck_assert_int_eq(d.time, 0);
}
END_TEST

START_TEST(fields) {
  mp_date d;
  const char *in = "Fri, 21 Nov 1997 09:55:06 -0600";
  ck_assert_int_eq(mp_date_parse(&d, NULL, in, strlen(in)), 0);
  ck_assert_int_eq(d.year, 1997);
  ck_assert_int_eq(d.month, 11);
  ck_assert_int_eq(d.day, 21);
  ck_assert_int_eq(d.hour, 9);
  ck_assert_int_eq(d.minute, 55);
  ck_assert_int_eq(d.second, 6);
  ck_assert_int_eq(mp_date_parse(NULL, NULL, in, strlen(in)), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_date_parse(&d, NULL, NULL, 3), MP_ERR_INVALID_ARGUMENT);
}
END_TEST

// Dates in the common form take a one-pass path; the same text with a
// comment before the zone cannot (such comments go to the general loop,
// which ignores them), so both must give the same result, error, fields and
// flags, over
// values in and out of range, with and without a (right or wrong) day of
// the week, in any case, with the separators the loop accepts.
static uint32_t date_rng = 12345;

static unsigned date_rnd(unsigned n) {
  date_rng = date_rng * 1103515245u + 12345u;
  return (date_rng >> 8) % n;
}

START_TEST(common_form_matches_general) {
  static const char *const wdays[] = {"",     "Mon, ", "Tue, ",    "wed, ",
                                      "THU ", "Fri,",  "Sunday, ", "Xyz, "};
  static const char *const months[] = {"Jan", "feb", "MAR", "Apr", "May",      "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "November", "Dex"};
  static const char *const seps[] = {" ", "  ", ", ", "\r\n ", "\t"};
  char a[160], b[200];
  int ok = 0;
  for (int it = 0; it < 20000; it++) {
    const char *sep = seps[date_rnd(5)];
    int n = snprintf(
        a, sizeof a, "%s%0*u%s%s%s%u%s%02u:%02u:%02u%s%c%02u%02u%s", wdays[date_rnd(8)],
        (int)(1 + date_rnd(2)), date_rnd(33), sep, months[date_rnd(12)], sep, 1895 + date_rnd(210),
        sep, date_rnd(25), date_rnd(61), date_rnd(62), sep, date_rnd(2) ? '+' : '-',
        date_rnd(3) ? date_rnd(15) : 0, date_rnd(4) ? date_rnd(61) : 0, date_rnd(3) ? "" : " ,");
    ck_assert_int_lt(n, (int)sizeof a);
    // The comment goes before the zone, where only the loop takes it; one
    // after the zone, which both take, is added to `a` at times.
    size_t z = strlen(a);
    while (z > 0 && a[z - 1] != '+' && a[z - 1] != '-')
      z--;
    ck_assert_uint_gt(z, 0);
    snprintf(b, sizeof b, "%.*s(c) %s", (int)(z - 1), a, a + z - 1);
    if (date_rnd(3) == 0) {
      strcat(a, " (PST) ");
      strcat(b, " (PST) ");
    }
    mp_date da, db;
    unsigned fa = 99, fb = 77;
    int ra = mp_date_parse(&da, &fa, a, strlen(a));
    int rb = mp_date_parse(&db, &fb, b, strlen(b));
    ck_assert_msg(ra == rb && fa == fb, "%s: rc %d/%d flags %u/%u", a, ra, rb, fa, fb);
    if (ra == 0) {
      ok++;
      ck_assert_msg(memcmp(&da, &db, sizeof da) == 0, "%s: fields differ", a);
    }
  }
  ck_assert_int_gt(ok, 5000); // most are valid dates, so the fields are compared
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_date");
  TCase *tc = tcase_create("date");
  tcase_add_loop_test(tc, good_dates, 0, (int)(sizeof good / sizeof good[0]));
  tcase_add_loop_test(tc, bad_dates, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(tc, fields);
  tcase_add_test(tc, common_form_matches_general);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
