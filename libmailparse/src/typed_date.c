// typed_date.c: date-time values (RFC 5322 §3.3, obsolete forms of §4.3) for
// Date, Resent-Date and the date in Received: reads the fields in the order
// real mail writes them (also asctime order and other broken forms), checks
// every field's range, and converts to UTC seconds since the epoch plus the
// zone offset, flagging every repair. Out-of-range fields are an error,
// never an overflow. The form nearly every mailer writes takes a one-pass
// path (fast_date) with the general loop's results.
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

// days_since_0301 counts the days from 0000-03-01 to a date of a checked
// year (1900-9999): days_from_civil() of H. Hinnant's chrono algorithms
// without the eras that negative years need, so every step is unsigned and
// each division a multiplication.
static uint32_t days_since_0301(int year, int month, int day) {
  uint32_t y = (uint32_t)year - (month <= 2), m = (uint32_t)month;
  uint32_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + (uint32_t)day - 1;
  return y * 365 + y / 4 - y / 100 + y / 400 + doy;
}

static int days_in_month(int y, int m) {
  static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 29;
  return dm[m - 1];
}

// put_date fills `out` from checked fields (year 1900-9999, day within its
// month, hour, minute, second and zone in range) and the date flags
// gathered so far: the end both paths share.
static inline __attribute__((always_inline)) void put_date(mp_date *out, int year, int month,
                                                           int day, int hour, int min, int sec,
                                                           int zone, int wday, uint32_t dflags) {
  uint32_t u = days_since_0301(year, month, day);
  // 1970-01-01, a Thursday (4), is day 719468.
  int64_t days = (int64_t)u - 719468;
  if (wday >= 0 && (int)((u + 3) % 7) != wday)
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
}

// The one-pass path for the form nearly every mailer writes:
// "[Www,] D[D] Mmm YYYY HH:MM:SS +ZZZZ [(comment)]" (RFC 5322 §3.3 without
// its obsolete forms). The general loop below reads a date a token at a
// time, through a cursor and a name table; this path reads the same bytes
// at known places when the fields are one space apart (fd_exact), else a
// field at a time (fd_steps), looks a name up by its first three letters at
// once and checks the eight bytes of the time of day in one word. It has the
// loop's separators (white space and commas), names (3-letter or full, any
// case) and ranges, and returns false, to leave the input to the loop from
// the start, on anything else: comments before the zone's end, other
// orders, obsolete zones, missing parts, other digit counts, or values the
// loop would reject or flag.

// fd_sep skips what dt_next() skips between tokens, comments aside: white
// space and commas.
static inline __attribute__((always_inline)) size_t fd_sep(const uint8_t *p, size_t n, size_t i) {
  // Nearly always one space, then the next field.
  if (n - i >= 2 && p[i] == ' ' && !(mp_charclass[p[i + 1]] & MP_CC_WSP) && p[i + 1] != ',')
    return i + 1;
  while (i < n && ((mp_charclass[p[i]] & MP_CC_WSP) || p[i] == ','))
    i++;
  return i;
}

// fd_letters returns the length of the run of ASCII letters at `i`.
static inline __attribute__((always_inline)) size_t fd_letters(const uint8_t *p, size_t n,
                                                               size_t i) {
  size_t k = i;
  while (k < n && (uint8_t)((p[k] | 0x20) - 'a') < 26)
    k++;
  return k - i;
}

// FD_KEY packs three lower-case letters into one number to switch on.
#define FD_KEY(a, b, c) ((uint32_t)(a) << 16 | (uint32_t)(b) << 8 | (uint32_t)(c))

// fd_month3 and fd_wday3 map the first three letters of a word (lowercased)
// to the month (0-11) or the day of the week (0 Sunday - 6), or -1.
static int fd_month3(uint32_t key) {
  switch (key) {
  case FD_KEY('j', 'a', 'n'):
    return 0;
  case FD_KEY('f', 'e', 'b'):
    return 1;
  case FD_KEY('m', 'a', 'r'):
    return 2;
  case FD_KEY('a', 'p', 'r'):
    return 3;
  case FD_KEY('m', 'a', 'y'):
    return 4;
  case FD_KEY('j', 'u', 'n'):
    return 5;
  case FD_KEY('j', 'u', 'l'):
    return 6;
  case FD_KEY('a', 'u', 'g'):
    return 7;
  case FD_KEY('s', 'e', 'p'):
    return 8;
  case FD_KEY('o', 'c', 't'):
    return 9;
  case FD_KEY('n', 'o', 'v'):
    return 10;
  case FD_KEY('d', 'e', 'c'):
    return 11;
  default:
    return -1;
  }
}

static int fd_wday3(uint32_t key) {
  switch (key) {
  case FD_KEY('s', 'u', 'n'):
    return 0;
  case FD_KEY('m', 'o', 'n'):
    return 1;
  case FD_KEY('t', 'u', 'e'):
    return 2;
  case FD_KEY('w', 'e', 'd'):
    return 3;
  case FD_KEY('t', 'h', 'u'):
    return 4;
  case FD_KEY('f', 'r', 'i'):
    return 5;
  case FD_KEY('s', 'a', 't'):
    return 6;
  default:
    return -1;
  }
}

// fd_name looks up the word at `*i` as word_index() does: the three letters
// of an abbreviation or the whole name, in any case, followed by no letter;
// it moves `*i` past the word. `is_month` picks the table.
static inline __attribute__((always_inline)) int fd_name(const uint8_t *p, size_t n, size_t *i,
                                                         bool is_month) {
  const uint8_t *w = p + *i;
  if (n - *i < 3)
    return -1;
  // OR-ing 0x20 maps a letter, and only a letter, to a lower-case one, so
  // a key in the tables is three letters.
  uint32_t key = FD_KEY(w[0] | 0x20, w[1] | 0x20, w[2] | 0x20);
  int k = is_month ? fd_month3(key) : fd_wday3(key);
  if (k < 0)
    return -1;
  size_t len = 3 + fd_letters(p, n, *i + 3);
  *i += len;
  if (len == 3)
    return k;
  return mp_ieq(w, len, is_month ? months[k] : wdays[k]) ? k : -1;
}

// fd_load reads `k` (at most 8) bytes at `p` into one word, the first byte
// lowest, whatever the machine's byte order.
static uint64_t fd_load(const uint8_t *p, size_t k) {
  uint64_t x = 0;
  memcpy(&x, p, k);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  // The bytes filled the top of `x`; reversed, p[0] is lowest and the
  // zeros go on top, as on a little-endian machine.
  x = __builtin_bswap64(x);
#endif
  return x;
}

// fd_small says that every byte of `y` is at most 9. Adding 0x76 to a byte
// below 0x80 sets its top bit exactly when it is above 9, and carries out of
// no byte; a byte of 0x80 or more has its top bit set already.
static bool fd_small(uint64_t y) {
  return (((y + 0x7676767676767676u) | y) & 0x8080808080808080u) == 0;
}

// fd_digits4 reads exactly four digits at `*i`, followed by no digit.
static inline __attribute__((always_inline)) bool fd_digits4(const uint8_t *p, size_t n, size_t *i,
                                                             int *v) {
  if (n - *i < 4 || (n - *i > 4 && mp_is_digit(p[*i + 4])))
    return false;
  // XOR with '0' maps a digit, and only a digit, to 0-9.
  uint64_t y = fd_load(p + *i, 4) ^ 0x30303030u;
  if (!fd_small(y))
    return false;
  *v = (int)((y & 0xff) * 1000 + ((y >> 8) & 0xff) * 100 + ((y >> 16) & 0xff) * 10 +
             ((y >> 24) & 0xff));
  *i += 4;
  return true;
}

// fd_time reads exactly "HH:MM:SS" at `*i`, followed by no digit, checking
// its eight bytes at once.
static inline __attribute__((always_inline)) bool fd_time(const uint8_t *p, size_t n, size_t *i,
                                                          int *hour, int *min, int *sec) {
  if (n - *i < 8 || (n - *i > 8 && mp_is_digit(p[*i + 8])))
    return false;
  // The digits XOR '0' give 0-9 and the colons XOR ':' give 0.
  uint64_t y = fd_load(p + *i, 8) ^ 0x30303a30303a3030u;
  if (!fd_small(y) || (y & 0x0000ff0000ff0000u) != 0)
    return false;
  *hour = (int)((y & 0xff) * 10 + ((y >> 8) & 0xff));
  *min = (int)(((y >> 24) & 0xff) * 10 + ((y >> 32) & 0xff));
  *sec = (int)(((y >> 48) & 0xff) * 10 + ((y >> 56) & 0xff));
  *i += 8;
  return true;
}

// The fields of the common form, as the steps below read them.
struct fd_fields {
  int wday, day, month, year, hour, min, sec, zone; // zone: the four digits
  uint8_t sign;
};

// fd_exact reads the common form as nearly every mailer writes it, from
// `*i` on: "Www, D Mmm YYYY HH:MM:SS +ZZZZ" (or a two-digit day) with one
// space between the fields, every field at a known place. It returns false,
// leaving `*i` alone, on anything else, which fd_steps() then reads.
static inline __attribute__((always_inline)) bool fd_exact(const uint8_t *p, size_t n, size_t *i,
                                                           struct fd_fields *f) {
  size_t j = *i;
  if (n - j < 30 || p[j + 3] != ',' || p[j + 4] != ' ' || !mp_is_digit(p[j + 5]))
    return false;
  // A key in the tables is three letters (see fd_name()).
  if ((f->wday = fd_wday3(FD_KEY(p[j] | 0x20, p[j + 1] | 0x20, p[j + 2] | 0x20))) < 0)
    return false;
  j += 5;
  f->day = p[j] - '0';
  if (mp_is_digit(p[j + 1]))
    f->day = f->day * 10 + (p[++j] - '0');
  j += 2;
  // What is left: "Mmm YYYY HH:MM:SS +ZZZZ", 23 bytes.
  if (p[j - 1] != ' ' || n - j < 23 || p[j + 3] != ' ' || p[j + 8] != ' ' || p[j + 17] != ' ' ||
      (p[j + 18] != '+' && p[j + 18] != '-'))
    return false;
  if ((f->month = fd_month3(FD_KEY(p[j] | 0x20, p[j + 1] | 0x20, p[j + 2] | 0x20)) + 1) < 1)
    return false;
  size_t k = j + 4, t = j + 9, z = j + 19;
  if (!fd_digits4(p, n, &k, &f->year) || !fd_time(p, n, &t, &f->hour, &f->min, &f->sec) ||
      !fd_digits4(p, n, &z, &f->zone))
    return false;
  f->sign = p[j + 18];
  *i = z;
  return true;
}

// fd_steps reads the common form with the loop's separators (any white
// space and commas) and names (3-letter or full) from `*i` on, a field at a
// time, up to the end of the zone; false when the loop must read the date.
static inline __attribute__((always_inline)) bool fd_steps(const uint8_t *p, size_t n, size_t *at,
                                                           struct fd_fields *f) {
  size_t i = *at;
  f->wday = -1;
  if (i < n && mp_is_alpha(p[i])) {
    if ((f->wday = fd_name(p, n, &i, false)) < 0)
      return false;
    i = fd_sep(p, n, i);
  }
  // The day: one or two digits.
  if (i >= n || !mp_is_digit(p[i]))
    return false;
  f->day = p[i++] - '0';
  if (i < n && mp_is_digit(p[i]))
    f->day = f->day * 10 + (p[i++] - '0');
  if (i < n && mp_is_digit(p[i]))
    return false;
  i = fd_sep(p, n, i);
  if ((f->month = fd_name(p, n, &i, true) + 1) < 1)
    return false;
  i = fd_sep(p, n, i);
  if (!fd_digits4(p, n, &i, &f->year))
    return false;
  i = fd_sep(p, n, i);
  if (!fd_time(p, n, &i, &f->hour, &f->min, &f->sec))
    return false;
  i = fd_sep(p, n, i);
  if (i >= n || (p[i] != '+' && p[i] != '-'))
    return false;
  f->sign = p[i++];
  if (!fd_digits4(p, n, &i, &f->zone))
    return false;
  *at = i;
  return true;
}

// fast_date is the general loop for the common form (see above): true when
// it parsed `p` into `*out` (no flags), false when the loop must.
static bool fast_date(mp_date *out, const uint8_t *p, size_t n) {
  size_t i = fd_sep(p, n, 0);
  struct fd_fields f;
  if (!fd_exact(p, n, &i, &f) && !fd_steps(p, n, &i, &f))
    return false;
  int v = f.zone;
  if (v % 100 > 59)
    return false;
  // Comments after the zone ("(PST)") are skipped as the loop skips them.
  for (i = fd_sep(p, n, i); i < n && p[i] == '('; i = fd_sep(p, n, i)) {
    struct mp_cur c;
    mp_cur_init(&c, p + i, n - i);
    skip_comment(&c);
    i = n - c.len;
  }
  if (i != n || f.day < 1 || f.year < 1900 || f.day > days_in_month(f.year, f.month) ||
      f.hour > 23 || f.min > 59 || f.sec > 60)
    return false;
  int zone = (v / 100) * 60 + v % 100;
  if (f.sign == '-')
    zone = -zone;
  // "-0000": local time, zone unknown (§3.3).
  put_date(out, f.year, f.month, f.day, f.hour, f.min, f.sec, zone, f.wday,
           f.sign == '-' && v == 0 ? MP_DATE_ZONE_UNKNOWN : 0);
  return true;
}

// parse_general is the whole parser, for any value (arguments checked and
// `*out` cleared by the caller): a token at a time, in any order.
static int parse_general(mp_date *out, unsigned *out_flags, const char *in, size_t in_len) {
  unsigned flags = 0;
  uint32_t dflags = 0;
  int wday = -1, day = -1, month = -1, year = -1, hour = -1, min = -1, sec = -1;
  int zone = 0;
  bool have_zone = false, zone_known = true, bad = false;
  struct mp_cur c;
  mp_cur_init(&c, in, in_len);
  struct dt t;
  for (;;) {
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
  put_date(out, year, month, day, hour, min, sec, zone, wday, dflags);
  if (out_flags != NULL)
    *out_flags = flags;
  return 0;
}

// check_args checks the arguments of both entry points and clears the
// results.
static int check_args(mp_date *out, unsigned *out_flags, const char *in, size_t in_len) {
  if (out == NULL || (in == NULL && in_len > 0))
    return MP_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (out_flags != NULL)
    *out_flags = 0;
  return 0;
}

int mp_date_parse(mp_date *out, unsigned *out_flags, const char *in, size_t in_len) {
  int rc = check_args(out, out_flags, in, in_len);
  if (rc != 0)
    return rc;
  if (in_len > 0 && fast_date(out, (const uint8_t *)in, in_len))
    return 0;
  return parse_general(out, out_flags, in, in_len);
}

int mp_date_parse_general(mp_date *out, unsigned *out_flags, const char *in, size_t in_len) {
  int rc = check_args(out, out_flags, in, in_len);
  if (rc != 0)
    return rc;
  return parse_general(out, out_flags, in, in_len);
}
