// test_sort.c: IMAP SORT (RFC 5256, RFC 5957) over the cached summaries:
// hand-checked rules (sent date with zones and fallback, casemap order,
// REVERSE with ties in UID order, display names) and random mailboxes
// sorted by every key and key pair against a brute-force sort of the keys
// read back with ms_message_summary_get, with paging.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailstore.h"
#include "store_util.h"

struct fixture {
  char *dir;
  ms_store *s;
  uint32_t acct, box;
};

static void fx_open(struct fixture *x) {
  x->dir = tmp_store_dir();
  struct ms_settings set = {.no_sync = 1, .dict_train_after = UINT32_MAX};
  ck_assert_int_eq(ms_store_open(&x->s, x->dir, &set), 0);
  ck_assert_int_eq(ms_account_create(x->s, &x->acct, "u", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(x->s, &x->box, x->acct, "INBOX", 5, MS_ROLE_INBOX), 0);
}

static void fx_close(struct fixture *x) {
  ms_store_close(x->s);
  rm_store_dir(x->dir);
}

static void put(struct fixture *x, const char *headers, int64_t idate) {
  char m[1024];
  int n = snprintf(m, sizeof m, "%s\r\nbody\r\n", headers);
  ck_assert_int_eq(
      ms_message_append(x->s, NULL, NULL, x->acct, x->box, (const uint8_t *)m, (size_t)n, 0, idate),
      0);
}

static void sorted_is(struct fixture *x, const uint32_t *keys, size_t nkeys, const char *want) {
  uint32_t out[64];
  size_t n = 0, total = 0;
  ck_assert_int_eq(
      ms_mailbox_sort(x->s, out, 64, &n, &total, x->acct, x->box, NULL, 0, keys, nkeys, 0), 0);
  char got[512];
  size_t o = 0;
  for (size_t i = 0; i < n; i++)
    o += (size_t)snprintf(got + o, sizeof got - o, "%s%u", i ? " " : "", out[i]);
  got[o] = 0;
  ck_assert_str_eq(got, want);
  ck_assert_uint_eq(total, n);
}

START_TEST(rfc5256_rules) {
  struct fixture x;
  fx_open(&x);
  // 1: 10:00 +0200 = 08:00 UTC; 2: 09:00 +0000; 3: no Date (internal
  // date 1970); 4: an unparsable Date (internal date, later); 5: ties 2.
  put(&x,
      "Date: Mon, 6 Nov 2023 10:00:00 +0200\r\nFrom: \"bob\" <Zed@x>\r\nSubject: Re: beta\r\n"
      "To: c@x",
      500);
  put(&x, "Date: Mon, 6 Nov 2023 09:00:00 +0000\r\nFrom: alice@x\r\nSubject: Alpha\r\nCc: b@x",
      400);
  put(&x, "From: Carol <carol@x>\r\nSubject: [list] gamma\r\nCc: a@x", 10);
  put(&x, "Date: sometime\r\nFrom: \"Alice\" <BOB@x>\r\nSubject: alpha (fwd)", 2000000000);
  put(&x, "Date: Mon, 6 Nov 2023 09:00:00 +0000\r\nFrom: ALICE@y\r\nSubject: ALPHA", 300);
  uint32_t k[2];
  k[0] = MS_SORT_DATE;
  sorted_is(&x, k, 1, "3 1 2 5 4");
  k[0] = MS_SORT_DATE | MS_SORT_REVERSE;
  // Reverse of the key; 2 and 5 tie and stay in UID order.
  sorted_is(&x, k, 1, "4 2 5 1 3");
  k[0] = MS_SORT_ARRIVAL;
  sorted_is(&x, k, 1, "3 5 2 1 4");
  // Base subjects alpha alpha alpha beta gamma, casemap-equal ones in
  // UID order; then by date within a subject.
  k[0] = MS_SORT_SUBJECT;
  sorted_is(&x, k, 1, "2 4 5 1 3");
  k[1] = MS_SORT_DATE | MS_SORT_REVERSE;
  sorted_is(&x, k, 2, "4 2 5 1 3");
  // FROM: local parts alice, ALICE, BOB, carol, Zed (casemap).
  k[0] = MS_SORT_FROM;
  sorted_is(&x, k, 1, "2 5 4 3 1");
  // DISPLAYFROM: bob, alice@x, Carol, Alice, ALICE@y.
  k[0] = MS_SORT_DISPLAYFROM;
  sorted_is(&x, k, 1, "4 2 5 1 3");
  // CC: empty sorts first (3 names a, 2 names b); TO: only 1 has one.
  k[0] = MS_SORT_CC;
  sorted_is(&x, k, 1, "1 4 5 3 2");
  k[0] = MS_SORT_TO | MS_SORT_REVERSE;
  sorted_is(&x, k, 1, "1 2 3 4 5");
  k[0] = MS_SORT_SIZE;
  uint32_t out[8];
  size_t n = 0;
  ck_assert_int_eq(ms_mailbox_sort(x.s, out, 8, &n, NULL, x.acct, x.box, NULL, 0, k, 1, 0), 0);
  ck_assert_uint_eq(n, 5);
  // No keys: UID order; bad keys refused.
  sorted_is(&x, k, 0, "1 2 3 4 5");
  k[0] = 42;
  ck_assert_int_eq(ms_mailbox_sort(x.s, out, 8, &n, NULL, x.acct, x.box, NULL, 0, k, 1, 0),
                   MS_ERR_INVALID_ARGUMENT);
  k[0] = MS_SORT_DATE | 0x200;
  ck_assert_int_eq(ms_mailbox_sort(x.s, out, 8, &n, NULL, x.acct, x.box, NULL, 0, k, 1, 0),
                   MS_ERR_INVALID_ARGUMENT);
  k[0] = MS_SORT_DATE;
  ck_assert_int_eq(ms_mailbox_sort(x.s, out, 8, &n, NULL, x.acct, 77, NULL, 0, k, 1, 0),
                   MS_ERR_NOTFOUND);
  fx_close(&x);
}
END_TEST

// Brute force: every message's keys read back, sorted by insertion.
enum { RN = 250 };
struct rmsg {
  uint32_t uid;
  int64_t date, idate;
  uint64_t size;
  char f[6][128]; // from to cc subject displayfrom displayto
};
static struct rmsg rm[RN];

static int casecmp(const char *a, const char *b) {
  for (;; a++, b++) {
    unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
    ca = ca >= 'a' && ca <= 'z' ? ca - 32 : ca;
    cb = cb >= 'a' && cb <= 'z' ? cb - 32 : cb;
    if (ca != cb || !ca)
      return ca < cb ? -1 : ca > cb;
  }
}

static int key_cmp(const struct rmsg *a, const struct rmsg *b, uint32_t key) {
  int r = 0;
  switch (key & 0xff) {
  case MS_SORT_ARRIVAL:
    r = (a->idate > b->idate) - (a->idate < b->idate);
    break;
  case MS_SORT_DATE:
    r = (a->date > b->date) - (a->date < b->date);
    break;
  case MS_SORT_SIZE:
    r = (a->size > b->size) - (a->size < b->size);
    break;
  case MS_SORT_FROM:
    r = casecmp(a->f[0], b->f[0]);
    break;
  case MS_SORT_TO:
    r = casecmp(a->f[1], b->f[1]);
    break;
  case MS_SORT_CC:
    r = casecmp(a->f[2], b->f[2]);
    break;
  case MS_SORT_SUBJECT:
    r = casecmp(a->f[3], b->f[3]);
    break;
  case MS_SORT_DISPLAYFROM:
    r = casecmp(a->f[4], b->f[4]);
    break;
  case MS_SORT_DISPLAYTO:
    r = casecmp(a->f[5], b->f[5]);
    break;
  }
  return (key & MS_SORT_REVERSE) ? -r : r;
}

static void copy_text(char *dst, struct ms_text t) {
  ck_assert_uint_lt(t.len, 128);
  if (t.len)
    memcpy(dst, t.p, t.len);
  dst[t.len] = 0;
}

START_TEST(random_against_brute_force) {
  srand(7);
  struct fixture x;
  fx_open(&x);
  static const char *names[] = {"alice", "Bob", "carol", "DAVE", "eve", "al", "Alice", "b"};
  static const char *subjects[] = {"hello",    "Re: hello",    "Fwd: status", "status",
                                   "[x] news", "Re: [x] News", "zebra",       "apple (fwd)"};
  for (int i = 0; i < RN; i++) {
    char h[800];
    size_t o = 0;
    if (rand() % 8)
      o += (size_t)snprintf(h + o, sizeof h - o, "Date: %d Nov 2023 %02d:%02d:00 %c%02d00\r\n",
                            1 + rand() % 28, rand() % 24, rand() % 60, rand() % 2 ? '+' : '-',
                            rand() % 12);
    if (rand() % 6) {
      const char *n = names[rand() % 8];
      if (rand() % 2)
        o += (size_t)snprintf(h + o, sizeof h - o, "From: \"%s %d\" <%s@x>\r\n", names[rand() % 8],
                              rand() % 3, n);
      else
        o += (size_t)snprintf(h + o, sizeof h - o, "From: %s@x\r\n", n);
    }
    if (rand() % 3)
      o += (size_t)snprintf(h + o, sizeof h - o, "To: %s <%s@y>\r\n", names[rand() % 8],
                            names[rand() % 8]);
    if (rand() % 2)
      o += (size_t)snprintf(h + o, sizeof h - o, "Cc: %s@z\r\n", names[rand() % 8]);
    o += (size_t)snprintf(h + o, sizeof h - o, "Subject: %s\r\nX-Pad: %.*s", subjects[rand() % 8],
                          rand() % 5 * 10, "..................................................");
    put(&x, h, 1690000000 + rand() % 1000);
  }
  struct ms_entry e[RN];
  size_t ne = 0;
  ck_assert_int_eq(ms_mailbox_list(x.s, e, RN, &ne, x.acct, x.box, 1), 0);
  ck_assert_uint_eq(ne, RN);
  for (int i = 0; i < RN; i++) {
    uint8_t buf[8192];
    size_t len;
    struct ms_summary s;
    ck_assert_int_eq(
        ms_message_summary_get(x.s, &s, buf, sizeof buf, &len, x.acct, e[i].message_id), 0);
    rm[i].uid = e[i].uid;
    rm[i].date = s.date;
    rm[i].idate = s.internal_date;
    rm[i].size = s.size;
    copy_text(rm[i].f[0], s.from);
    copy_text(rm[i].f[1], s.to);
    copy_text(rm[i].f[2], s.cc);
    copy_text(rm[i].f[3], s.subject);
    copy_text(rm[i].f[4], s.display_from);
    copy_text(rm[i].f[5], s.display_to);
  }
  for (uint32_t k1 = MS_SORT_ARRIVAL; k1 <= MS_SORT_DISPLAYTO; k1++) {
    for (uint32_t k2 = 0; k2 <= MS_SORT_DISPLAYTO; k2 += 3) {
      for (int rev = 0; rev < 4; rev++) {
        uint32_t keys[2] = {k1 | (rev & 1 ? MS_SORT_REVERSE : 0),
                            k2 | (rev & 2 ? MS_SORT_REVERSE : 0)};
        size_t nk = k2 ? 2 : 1;
        // Insertion sort from UID order: stable, so ties keep UID order.
        int ord[RN];
        for (int i = 0; i < RN; i++) {
          int j = i;
          while (j > 0) {
            int r = key_cmp(&rm[ord[j - 1]], &rm[i], keys[0]);
            if (r == 0 && nk == 2)
              r = key_cmp(&rm[ord[j - 1]], &rm[i], keys[1]);
            if (r <= 0)
              break;
            ord[j] = ord[j - 1];
            j--;
          }
          ord[j] = i;
        }
        uint32_t out[RN];
        size_t n = 0, total = 0;
        ck_assert_int_eq(
            ms_mailbox_sort(x.s, out, RN, &n, &total, x.acct, x.box, NULL, 0, keys, nk, 0), 0);
        ck_assert_uint_eq(n, RN);
        ck_assert_uint_eq(total, RN);
        for (int i = 0; i < RN; i++)
          ck_assert_msg(out[i] == rm[ord[i]].uid, "keys %x %x position %d: %u, want %u", keys[0],
                        keys[1], i, out[i], rm[ord[i]].uid);
        // Pages: offset and capacity cut the same order.
        size_t off = (size_t)(rand() % RN);
        uint32_t page[17];
        ck_assert_int_eq(
            ms_mailbox_sort(x.s, page, 17, &n, &total, x.acct, x.box, NULL, 0, keys, nk, off), 0);
        ck_assert_uint_eq(n, RN - off < 17 ? RN - off : 17);
        ck_assert_int_eq(memcmp(page, out + off, n * sizeof page[0]), 0);
      }
    }
  }
  // A selection: a third of the UIDs, with repeats and UIDs not in the
  // mailbox, sorts like the whole mailbox filtered.
  uint32_t sel[RN], key2[2] = {MS_SORT_SUBJECT, MS_SORT_DATE | MS_SORT_REVERSE};
  size_t nsel = 0;
  uint8_t in[RN + 1] = {0};
  for (int i = 0; i < RN / 3; i++) {
    uint32_t u = 1 + (uint32_t)(rand() % (RN + 20));
    sel[nsel++] = u;
    if (u <= RN)
      in[u] = 1;
    if (i % 10 == 0)
      sel[nsel++] = u;
  }
  uint32_t all[RN], part[RN];
  size_t na = 0, np = 0, total = 0;
  ck_assert_int_eq(ms_mailbox_sort(x.s, all, RN, &na, NULL, x.acct, x.box, NULL, 0, key2, 2, 0), 0);
  ck_assert_int_eq(
      ms_mailbox_sort(x.s, part, RN, &np, &total, x.acct, x.box, sel, nsel, key2, 2, 0), 0);
  size_t w = 0;
  for (size_t i = 0; i < na; i++)
    if (in[all[i]])
      ck_assert_uint_eq(part[w++], all[i]);
  ck_assert_uint_eq(w, np);
  ck_assert_uint_eq(total, np);
  size_t n = 1;
  uint32_t key = MS_SORT_DATE, page[4];
  ck_assert_int_eq(ms_mailbox_sort(x.s, page, 4, &n, NULL, x.acct, x.box, NULL, 0, &key, 1, RN + 5),
                   0);
  ck_assert_uint_eq(n, 0);
  fx_close(&x);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailstore-sort");
  TCase *tc = tcase_create("sort");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, rfc5256_rules);
  tcase_add_test(tc, random_against_brute_force);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
