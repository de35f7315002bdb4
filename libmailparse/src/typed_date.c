// typed_date.c: date-time values (RFC 5322 §3.3, obsolete forms of §4.3) for
// Date, Resent-Date and the date in Received: reads the fields in the order
// real mail writes them (also asctime order and other broken forms), checks
// every field's range, and converts to UTC seconds since the epoch plus the
// zone offset, flagging every repair. Out-of-range fields are an error,
// never an overflow.
#include "typed_internal.h"

enum dtok { DT_END, DT_NUM, DT_WORD, DT_SIGNED, DT_COLON, DT_OTHER };

struct dt {
  enum dtok type;
  const uint8_t *p;
  size_t len; // digits or letters
  uint8_t sign;
};

// MP_DATE_MAX_DIGITS bounds a number so that it fits an int.
#define MP_DATE_MAX_DIGITS 9

static void skip_comment(struct mp_cur *c) {
  unsigned depth = 0;
  uint8_t b;
  while (mp_cur_get_u8(c, &b)) {
    if (b == '\\')
      (void)mp_cur_skip(c, 1);
    else if (b == '(')
      depth++;
    else if (b == ')' && --depth == 0)
      return;
  }
}

static void dt_next(struct mp_cur *c, struct dt *t) {
  uint8_t b;
  for (;;) {
    if (!mp_cur_peek(c, &b)) {
      t->type = DT_END;
      return;
    }
    if (mp_is_wsp(b) || b == ',')
      (void)mp_cur_skip(c, 1);
    else if (b == '(')
      skip_comment(c);
    else
      break;
  }
  t->p = c->p;
  t->len = 0;
  t->sign = 0;
  if ((b == '+' || b == '-') && c->len > 1 && mp_is_digit(c->p[1])) {
    t->sign = b;
    (void)mp_cur_skip(c, 1);
    t->p = c->p;
    b = c->p[0];
  }
  if (mp_is_digit(b)) {
    while (mp_cur_peek(c, &b) && mp_is_digit(b)) {
      (void)mp_cur_skip(c, 1);
      t->len++;
    }
    t->type = t->sign ? DT_SIGNED : DT_NUM;
    return;
  }
  if (mp_is_alpha(b)) {
    while (mp_cur_peek(c, &b) && mp_is_alpha(b)) {
      (void)mp_cur_skip(c, 1);
      t->len++;
    }
    t->type = DT_WORD;
    return;
  }
  (void)mp_cur_skip(c, 1);
  t->len = 1;
  t->type = b == ':' ? DT_COLON : DT_OTHER;
}

static int dt_value(const struct dt *t) {
  int v = 0;
  for (size_t i = 0; i < t->len && i < MP_DATE_MAX_DIGITS; i++)
    v = v * 10 + (t->p[i] - '0');
  return v;
}

// word_index finds `w` (any case, full name or its first three letters) in
// a table of full lower-case names.
static int word_index(const uint8_t *w, size_t n, const char *const *names, int count) {
  if (n < 3)
    return -1;
  // Every date has a month and most a weekday, nearly always abbreviated:
  // the first three letters rule out all names but one before any strlen.
  uint8_t a = mp_lower(w[0]), b = mp_lower(w[1]), c = mp_lower(w[2]);
  for (int i = 0; i < count; i++) {
    const char *name = names[i];
    if ((uint8_t)name[0] != a || (uint8_t)name[1] != b || (uint8_t)name[2] != c)
      continue;
    if (n == 3)
      return i;
    if (n != strlen(name))
      continue;
    bool ok = true;
    for (size_t k = 3; k < n && ok; k++)
      ok = mp_lower(w[k]) == (uint8_t)name[k];
    if (ok)
      return i;
  }
  return -1;
}

static const char *const months[] = {"january",   "february", "march",    "april",
                                     "may",       "june",     "july",     "august",
                                     "september", "october",  "november", "december"};
static const char *const wdays[] = {"sunday",   "monday", "tuesday", "wednesday",
                                    "thursday", "friday", "saturday"};

// zone_name maps an obsolete zone name (RFC 5322 §4.3) to minutes east of
// UTC; military letters and unknown names give 0 with *known false.
static bool zone_name(const uint8_t *w, size_t n, int *off, bool *known) {
  static const struct {
    const char *name;
    int off;
  } zones[] = {{"ut", 0},        {"gmt", 0},       {"utc", 0},       {"est", -5 * 60},
               {"edt", -4 * 60}, {"cst", -6 * 60}, {"cdt", -5 * 60}, {"mst", -7 * 60},
               {"mdt", -6 * 60}, {"pst", -8 * 60}, {"pdt", -7 * 60}};
  for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
    if (mp_ieq(w, n, zones[i].name)) {
      *off = zones[i].off;
      *known = true;
      return true;
    }
  // Military zones: RFC 822 got their signs wrong, so RFC 5322 §4.3 says
  // to read them as -0000 (unknown), except that "Z" is UTC everywhere.
  if (n == 1 && mp_is_alpha(w[0]) && mp_lower(w[0]) != 'j') {
    *off = 0;
    *known = mp_lower(w[0]) == 'z';
    return true;
  }
  return false;
}

static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m) {
  static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 29;
  return dm[m - 1];
}

// The fields of a date in the form nearly every mailer writes.
struct canon {
  int wday, day, month, year, hour, min, sec, zone;
  bool zone_known;
};

// canon_sep skips what dt_next() skips between tokens, comments aside:
// white space and commas.
static size_t canon_sep(const uint8_t *p, size_t n, size_t i) {
  while (i < n && (mp_is_wsp(p[i]) || p[i] == ','))
    i++;
  return i;
}

// canon_num reads exactly `digits` digits at `*i`, followed by something
// other than a digit.
static bool canon_num(const uint8_t *p, size_t n, size_t *i, size_t digits, int *v) {
  if (n - *i < digits || (n - *i > digits && mp_is_digit(p[*i + digits])))
    return false;
  int x = 0;
  for (size_t k = 0; k < digits; k++) {
    if (!mp_is_digit(p[*i + k]))
      return false;
    x = x * 10 + (p[*i + k] - '0');
  }
  *i += digits;
  *v = x;
  return true;
}

static size_t canon_word(const uint8_t *p, size_t n, size_t i) {
  size_t k = i;
  while (k < n && mp_is_alpha(p[k]))
    k++;
  return k - i;
}

// canonical reads "[Www,] D[D] Mmm YYYY HH:MM:SS +ZZZZ" (RFC 5322 §3.3
// without its obsolete forms) in one pass over the bytes, with the same
// separators, names and ranges as the general loop below, which it spares
// a token at a time for the dates of every Date and Received field. It
// returns false, to leave the input to that loop, on anything else:
// comments before the zone's end, other orders, obsolete zones, missing
// parts or values the loop would reject or flag.
static bool canonical(const uint8_t *p, size_t n, struct canon *f) {
  size_t i = canon_sep(p, n, 0), w;
  f->wday = -1;
  if (i < n && mp_is_alpha(p[i])) {
    w = canon_word(p, n, i);
    if ((f->wday = word_index(p + i, w, wdays, 7)) < 0)
      return false;
    i = canon_sep(p, n, i + w);
  }
  if (!canon_num(p, n, &i, 2, &f->day) && !canon_num(p, n, &i, 1, &f->day))
    return false;
  i = canon_sep(p, n, i);
  w = canon_word(p, n, i);
  if ((f->month = word_index(p + i, w, months, 12) + 1) < 1)
    return false;
  i = canon_sep(p, n, i + w);
  if (!canon_num(p, n, &i, 4, &f->year))
    return false;
  i = canon_sep(p, n, i);
  if (!canon_num(p, n, &i, 2, &f->hour) || i >= n || p[i++] != ':' ||
      !canon_num(p, n, &i, 2, &f->min) || i >= n || p[i++] != ':' ||
      !canon_num(p, n, &i, 2, &f->sec))
    return false;
  i = canon_sep(p, n, i);
  if (i >= n || (p[i] != '+' && p[i] != '-'))
    return false;
  uint8_t sign = p[i++];
  int v;
  if (!canon_num(p, n, &i, 4, &v) || v % 100 > 59)
    return false;
  // Comments after the zone ("(PST)") are skipped as the loop skips them.
  for (i = canon_sep(p, n, i); i < n && p[i] == '('; i = canon_sep(p, n, i)) {
    struct mp_cur c;
    mp_cur_init(&c, p + i, n - i);
    skip_comment(&c);
    i = n - c.len;
  }
  if (i != n)
    return false;
  f->zone = (v / 100) * 60 + v % 100;
  if (sign == '-')
    f->zone = -f->zone;
  f->zone_known = !(sign == '-' && v == 0); // "-0000": zone unknown (§3.3)
  return f->day >= 1 && f->year >= 1900 && f->day <= days_in_month(f->year, f->month) &&
         f->hour <= 23 && f->min <= 59 && f->sec <= 60;
}

int mp_date_parse(mp_date *out, unsigned *out_flags, const char *in, size_t in_len) {
  if (out == NULL || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (out_flags != NULL)
    *out_flags = 0;
  unsigned flags = 0;
  uint32_t dflags = 0;
  int wday = -1, day = -1, month = -1, year = -1, hour = -1, min = -1, sec = -1;
  int zone = 0;
  bool have_zone = false, zone_known = true, bad = false;
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  struct dt t;
  struct canon f;
  bool canon = in_len > 0 && canonical((const uint8_t *)in, in_len, &f);
  if (canon) {
    wday = f.wday;
    day = f.day;
    month = f.month;
    year = f.year;
    hour = f.hour;
    min = f.min;
    sec = f.sec;
    zone = f.zone;
    have_zone = true;
    zone_known = f.zone_known;
  }
  while (!canon) {
    dt_next(&c, &t);
    if (t.type == DT_END)
      break;
    if (t.type == DT_NUM && t.len > MP_DATE_MAX_DIGITS) {
      bad = true;
      continue;
    }
    if (t.type == DT_WORD) {
      int i;
      bool known;
      int off;
      if (day < 0 && month < 0 && wday < 0 && (i = word_index(t.p, t.len, wdays, 7)) >= 0) {
        wday = i;
      } else if (month < 0 && (i = word_index(t.p, t.len, months, 12)) >= 0) {
        month = i + 1;
      } else if (hour >= 0 && !have_zone && zone_name(t.p, t.len, &off, &known)) {
        zone = off;
        have_zone = true;
        zone_known = known;
        flags |= MP_TYPED_OBSOLETE;
      } else if (hour >= 0 && (mp_ieq(t.p, t.len, "am") || mp_ieq(t.p, t.len, "pm"))) {
        if (hour > 12 || hour == 0)
          bad = true;
        hour = hour % 12 + (mp_lower(t.p[0]) == 'p' ? 12 : 0);
        flags |= MP_TYPED_REPAIRED;
      } else {
        flags |= MP_TYPED_JUNK;
      }
      continue;
    }
    if (t.type == DT_NUM) {
      struct mp_cur peek = c;
      struct dt n2;
      dt_next(&peek, &n2);
      if (n2.type == DT_COLON && hour < 0) {
        // hour ":" minute [":" second]
        struct dt m, s;
        hour = dt_value(&t);
        dt_next(&peek, &m);
        if (m.type != DT_NUM || m.len > 2 || t.len > 2) {
          bad = true;
          break;
        }
        min = dt_value(&m);
        c = peek;
        dt_next(&peek, &n2);
        if (n2.type == DT_COLON) {
          dt_next(&peek, &s);
          if (s.type != DT_NUM || s.len > 2) {
            bad = true;
            break;
          }
          sec = dt_value(&s);
          c = peek;
          // Fractions of a second are not in the grammar; skip them.
          if (c.len > 1 && c.p[0] == '.' && mp_is_digit(c.p[1])) {
            (void)mp_cur_skip(&c, 1);
            while (c.len > 0 && mp_is_digit(c.p[0]))
              (void)mp_cur_skip(&c, 1);
            flags |= MP_TYPED_JUNK;
          }
        } else {
          sec = 0;
          dflags |= MP_DATE_NO_SECONDS;
        }
        continue;
      }
      if (day < 0 && t.len <= 2) {
        day = dt_value(&t);
      } else if (year < 0) {
        year = dt_value(&t);
        if (t.len == 2) {
          year += year < 50 ? 2000 : 1900;
          flags |= MP_TYPED_OBSOLETE;
          dflags |= MP_DATE_TWO_DIGIT_YEAR;
        } else if (t.len == 3) {
          year += 1900;
          flags |= MP_TYPED_OBSOLETE;
          dflags |= MP_DATE_TWO_DIGIT_YEAR;
        }
      } else if (hour >= 0 && !have_zone && t.len == 4) {
        // A numeric zone without its sign.
        int v = dt_value(&t);
        zone = (v / 100) * 60 + v % 100;
        have_zone = true;
        flags |= MP_TYPED_REPAIRED;
        if (v % 100 > 59)
          bad = true;
      } else {
        flags |= MP_TYPED_JUNK;
      }
      continue;
    }
    if (t.type == DT_SIGNED) {
      if (hour >= 0 && !have_zone && (t.len == 4 || t.len == 2)) {
        int v = dt_value(&t);
        if (t.len == 2) {
          v *= 100;
          flags |= MP_TYPED_REPAIRED;
        }
        if (v % 100 > 59)
          bad = true;
        zone = (v / 100) * 60 + v % 100;
        if (t.sign == '-')
          zone = -zone;
        have_zone = true;
        if (t.sign == '-' && v == 0)
          zone_known = false; // "-0000": local time, zone unknown (§3.3)
      } else if (t.sign == '-' && (day >= 0 || month >= 0) && hour < 0) {
        // "2-Jan-2006": the '-' was a separator; reread the digits.
        c.p = t.p;
        c.len += t.len;
        flags |= MP_TYPED_REPAIRED;
      } else {
        flags |= MP_TYPED_JUNK;
      }
      continue;
    }
    if (t.type == DT_OTHER && t.p[0] == '-' && (day >= 0 || month >= 0) && hour < 0) {
      flags |= MP_TYPED_REPAIRED;
      continue;
    }
    flags |= MP_TYPED_JUNK;
  }
  if (out_flags != NULL)
    *out_flags = flags;
  if (bad || day < 1 || month < 1 || year < 1900 || year > 9999 || day > days_in_month(year, month))
    return MP_ERR_SYNTAX;
  if (hour < 0) {
    hour = min = sec = 0;
    dflags |= MP_DATE_NO_TIME;
    flags |= MP_TYPED_REPAIRED;
  }
  if (hour > 23 || min > 59 || sec > 60 || zone > 99 * 60 + 59 || zone < -(99 * 60 + 59))
    return MP_ERR_SYNTAX;
  if (!have_zone) {
    dflags |= MP_DATE_NO_ZONE;
    flags |= MP_TYPED_REPAIRED;
  } else if (!zone_known) {
    dflags |= MP_DATE_ZONE_UNKNOWN;
  }
  int64_t days = days_from_civil(year, month, day);
  if (wday >= 0 && (int)(((days % 7) + 11) % 7) != wday)
    dflags |= MP_DATE_WEEKDAY_MISMATCH;
  out->time = days * 86400 + hour * 3600 + min * 60 + sec - (int64_t)zone * 60;
  out->offset = zone;
  out->year = year;
  out->month = month;
  out->day = day;
  out->hour = hour;
  out->minute = min;
  out->second = sec;
  out->flags = dflags;
  if (out_flags != NULL)
    *out_flags = flags;
  return 0;
}
