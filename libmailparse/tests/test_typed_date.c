// test_typed_date.c: mp_date_parse (src/typed_date.c): the dates of the RFC
// 5322 Appendix A messages (A.1.1, A.5, A.6.2), obsolete zones of §4.3,
// real-world broken forms (missing seconds, two-digit years, missing day of
// the week, extra text, unsigned zones, asctime order) and the range checks
// that make invalid dates errors; and the one-pass path for the common form
// against the general loop (mp_date_parse_general) on generated dates.
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_internal.h"

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

// Pieces of the generated dates: the common form the one-pass path takes,
// next to everything that must send a date to the general loop (obsolete
// zones and years, other digit counts, comments before the zone, other
// separators, misspelt names, junk).
static const char *const gen_wdays[] = {
    "",         "Mon, ",     "Tue, ",      "wed, ", "THU ",      "Fri,",
    "Sunday, ", "Xyz, ",     "Fr, ",       "Fri. ", "Sat,",      "Thursday,",
    "Tues, ",   "(c) Mon, ", "\r\n Sat, ", "Sun ,", "saturDAY ", "Wednesdays, "};
static const char *const gen_months[] = {
    "Jan", "feb", "MAR",      "Apr",      "May", "Jun", "Jul",  "Aug",  "Sep",  "Oct",
    "Nov", "DEC", "November", "december", "Dex", "Ju",  "Sept", "Mayo", "Jan.", "jUL"};
static const char *const gen_seps[] = {" ", " ", " ", "  ", ", ", "\r\n ", "\t", "", "-", " (x) "};
static const char *const gen_zones[] = {"+0000", "-0000", "GMT",    "EST",   "Z",      "A",
                                        "0700",  "+07",   "+00000", "+0a00", "+01000", "- 0100",
                                        "+2359", "-9959", "UT",     "pdt",   ""};
static const char *const gen_tails[] = {"",       "",          "",        " (PST)", "(PST)",
                                        " (PST",  " junk",     "(a(b)c)", " ,",     " (x) (y)",
                                        " +0100", " (a\\)b) ", "\r\n",    "x",      " 1"};

static uint32_t date_rng = 12345;

static unsigned date_rnd(unsigned n) {
  date_rng = date_rng * 1103515245u + 12345u;
  return (date_rng >> 8) % n;
}

#define PICK(v) (v)[date_rnd((unsigned)(sizeof(v) / sizeof((v)[0])))]

// gen_num writes `v` with `digits` digits (leading zeros), or with its own
// count at times.
static void gen_num(char *out, size_t cap, unsigned v, int digits) {
  snprintf(out, cap, "%0*u", date_rnd(8) == 0 ? 1 : digits, v);
}

// gen_date writes one date: the common form with values in and out of
// range, with any of the pieces above in place of its own at times.
static void gen_date(char *out, size_t cap) {
  char day[16], year[16], time[32], zone[16];
  gen_num(day, sizeof day, date_rnd(20) == 0 ? date_rnd(200) : date_rnd(33), 1 + (int)date_rnd(2));
  unsigned y = 1895 + date_rnd(210);
  switch (date_rnd(12)) {
  case 0:
    snprintf(year, sizeof year, "%02u", y % 100);
    break;
  case 1:
    snprintf(year, sizeof year, "%03u", y % 1000);
    break;
  case 2:
    snprintf(year, sizeof year, "0%u", y);
    break;
  default:
    snprintf(year, sizeof year, "%u", date_rnd(40) == 0 ? 9990 + date_rnd(10) : y);
  }
  unsigned h = date_rnd(25), m = date_rnd(61), sec = date_rnd(62);
  switch (date_rnd(14)) {
  case 0:
    snprintf(time, sizeof time, "%02u:%02u", h, m);
    break;
  case 1:
    snprintf(time, sizeof time, "%u:%02u:%02u", h, m, sec);
    break;
  case 2:
    snprintf(time, sizeof time, "%02u:%02u:%02u.123", h, m, sec);
    break;
  case 3:
    snprintf(time, sizeof time, "%02u:%02u:%03u", h, m, sec);
    break;
  case 4:
    snprintf(time, sizeof time, "%02u;%02u:%02u", h, m, sec);
    break;
  case 5:
    snprintf(time, sizeof time, "%02u:%02u:%02u pm", h, m, sec);
    break;
  case 6:
    snprintf(time, sizeof time, "%02u:%c%u:%02u", h, "a0 /:"[date_rnd(5)], m % 10, sec);
    break;
  default:
    snprintf(time, sizeof time, "%02u:%02u:%02u", h, m, sec);
  }
  if (date_rnd(4) == 0)
    snprintf(zone, sizeof zone, "%s", PICK(gen_zones));
  else
    snprintf(zone, sizeof zone, "%c%02u%02u", date_rnd(2) ? '+' : '-',
             date_rnd(3) ? date_rnd(15) : 0, date_rnd(4) ? date_rnd(61) : 0);
  const char *sep = PICK(gen_seps);
  const char *sep2 = date_rnd(10) == 0 ? PICK(gen_seps) : sep;
  const char *month = PICK(gen_months);
  snprintf(out, cap, "%s%s%s%s%s%s%s%s%s%s%s", date_rnd(6) == 0 ? " \r\n\t" : "", PICK(gen_wdays),
           day, sep, month, sep2, year, sep, time, date_rnd(12) == 0 ? PICK(gen_seps) : sep, zone);
  snprintf(out + strlen(out), cap - strlen(out), "%s", PICK(gen_tails));
}

// The one-pass path for the common form gives the general loop's result,
// error, fields and flags on generated dates in and out of range, with and
// without a (right or wrong) day of the week, in any case, with the
// separators the loop accepts and with each broken piece.
START_TEST(fast_matches_general) {
  char in[256];
  int clean = 0, other = 0;
  for (int it = 0; it < 40000; it++) {
    gen_date(in, sizeof in);
    size_t len = strlen(in);
    mp_date da, db;
    unsigned fa = 99, fb = 77;
    memset(&da, 0x55, sizeof da);
    memset(&db, 0xaa, sizeof db);
    int ra = mp_date_parse(&da, &fa, in, len);
    int rb = mp_date_parse_general(&db, &fb, in, len);
    ck_assert_msg(ra == rb && fa == fb, "\"%s\": rc %d/%d flags %u/%u", in, ra, rb, fa, fb);
    ck_assert_msg(memcmp(&da, &db, sizeof da) == 0, "\"%s\": fields differ", in);
    if (ra == 0 && fa == 0)
      clean++;
    else
      other++;
  }
  // Both kinds were made: dates the one-pass path takes and the others.
  ck_assert_int_gt(clean, 3000);
  ck_assert_int_gt(other, 10000);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_date");
  TCase *tc = tcase_create("date");
  tcase_add_loop_test(tc, good_dates, 0, (int)(sizeof good / sizeof good[0]));
  tcase_add_loop_test(tc, bad_dates, 0, (int)(sizeof bad / sizeof bad[0]));
  tcase_add_test(tc, fields);
  tcase_add_test(tc, fast_matches_general);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
