// test_thread.c: threads. JMAP thread ids assigned at delivery (references
// both ways, subject fallback, the no-merge rule), and IMAP THREAD
// (RFC 5256): REFERENCES on hand-checked mailboxes covering each step of
// the algorithm, ORDEREDSUBJECT, and random reply trees against a direct
// recursive construction.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

// put delivers a message; NULL fields are left out; date is seconds after
// 2023-11-14 22:13:20 UTC (or no Date field when negative). Returns its
// message id; *uid (may be NULL) gets its UID.
static uint64_t put(struct fixture *x, uint32_t *uid, const char *msgid, const char *irt,
                    const char *refs, const char *subject, long date) {
  char m[2048], d[64];
  size_t n = 0;
  if (msgid)
    n += (size_t)snprintf(m + n, sizeof m - n, "Message-ID: <%s>\r\n", msgid);
  if (irt)
    n += (size_t)snprintf(m + n, sizeof m - n, "In-Reply-To: %s\r\n", irt);
  if (refs)
    n += (size_t)snprintf(m + n, sizeof m - n, "References: %s\r\n", refs);
  if (subject)
    n += (size_t)snprintf(m + n, sizeof m - n, "Subject: %s\r\n", subject);
  if (date >= 0) {
    time_t t = (time_t)(1700000000 + date);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(d, sizeof d, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    n += (size_t)snprintf(m + n, sizeof m - n, "Date: %s\r\n", d);
  }
  n += (size_t)snprintf(m + n, sizeof m - n, "From: a@example.org\r\n\r\nbody\r\n");
  uint64_t id = 0;
  ck_assert_int_eq(
      ms_message_append(x->s, &id, uid, x->acct, x->box, (const uint8_t *)m, n, 0, 1600000000), 0);
  return id;
}

static uint64_t thread_of(struct fixture *x, uint64_t id) {
  struct ms_message_info i;
  ck_assert_int_eq(ms_message_get(x->s, &i, x->acct, id), 0);
  return i.thread_id;
}

static void thread_is(struct fixture *x, int algorithm, const char *want) {
  char out[4096];
  size_t len = 0, nt = 0;
  ck_assert_int_eq(
      ms_mailbox_thread(x->s, out, sizeof out, &len, &nt, x->acct, x->box, NULL, 0, algorithm), 0);
  ck_assert_msg(len == strlen(want) && memcmp(out, want, len) == 0, "got %.*s, want %s", (int)len,
                out, want);
  size_t depth = 0, tops = 0;
  for (size_t i = 0; i < len; i++) {
    if (out[i] == '(' && depth++ == 0)
      tops++;
    if (out[i] == ')')
      depth--;
  }
  ck_assert_uint_eq(nt, tops);
}

START_TEST(thread_ids_at_delivery) {
  struct fixture x;
  fx_open(&x);
  uint64_t a = put(&x, NULL, "a@x", NULL, NULL, "plans", 0);
  uint64_t b = put(&x, NULL, "b@x", "<a@x>", NULL, "Re: plans", 1);
  uint64_t c = put(&x, NULL, "c@x", NULL, "<a@x> <b@x>", "Re: plans", 2);
  uint64_t d = put(&x, NULL, "d@x", NULL, NULL, "other", 3);
  ck_assert_uint_eq(thread_of(&x, a), a);
  ck_assert_uint_eq(thread_of(&x, b), a);
  ck_assert_uint_eq(thread_of(&x, c), a);
  ck_assert_uint_eq(thread_of(&x, d), d);
  // A reply without references joins by base subject; a message merely
  // sharing the subject does not.
  uint64_t e = put(&x, NULL, "e@x", NULL, NULL, "RE: Plans", 4);
  uint64_t f = put(&x, NULL, "f@x", NULL, NULL, "plans", 5);
  ck_assert_uint_eq(thread_of(&x, e), a);
  ck_assert_uint_eq(thread_of(&x, f), f);
  // A message referencing one not yet delivered; then that one arrives
  // and joins the thread of the message that referenced it.
  uint64_t g = put(&x, NULL, "g@x", "<late@x>", NULL, "late thread", 6);
  uint64_t h = put(&x, NULL, "late@x", NULL, NULL, "late thread", 7);
  ck_assert_uint_eq(thread_of(&x, g), g);
  ck_assert_uint_eq(thread_of(&x, h), g);
  // A message naming two threads joins its parent's (the last reference)
  // and merges nothing: thread ids never change.
  uint64_t z = put(&x, NULL, "z@x", NULL, "<d@x> <a@x>", "mix", 8);
  ck_assert_uint_eq(thread_of(&x, z), a);
  ck_assert_uint_eq(thread_of(&x, d), d);
  uint64_t z2 = put(&x, NULL, "z2@x", "<d@x>", NULL, "mix 2", 9);
  ck_assert_uint_eq(thread_of(&x, z2), d);
  // Thread ids survive expunge of the thread's first message.
  uint32_t one = 1;
  ck_assert_int_eq(ms_messages_expunge(x.s, x.acct, x.box, &one, 1), 1);
  uint64_t r = put(&x, NULL, "r@x", "<a@x>", NULL, "Re: plans", 10);
  ck_assert_uint_eq(thread_of(&x, r), a);
  ck_assert_int_eq(ms_store_verify(x.s, NULL), 0);
  fx_close(&x);
}
END_TEST

START_TEST(references_chains_and_branches) {
  struct fixture x;
  fx_open(&x);
  // 1 <- 2 <- 3: one chain. 4 and 5 both answer 1's sibling thread root 4.
  put(&x, NULL, "a", NULL, NULL, "one", 0);
  put(&x, NULL, "b", NULL, "<a>", "Re: one", 10);
  put(&x, NULL, "c", NULL, "<a> <b>", "Re: one", 20);
  put(&x, NULL, "d", NULL, NULL, "two", 5);
  put(&x, NULL, "e", "<d>", NULL, "Re: two", 30);
  put(&x, NULL, "f", "<d>", NULL, "Re: two", 25);
  // Threads by date of their root (1 at 0, 4 at 5); siblings 6 (25)
  // before 5 (30).
  thread_is(&x, MS_THREAD_REFERENCES, "(1 2 3)(4 (6)(5))");
  // A selection (a SEARCH result): the messages outside it are missing,
  // so their containers are dummies and pruned. Unknown UIDs and repeats
  // are ignored.
  uint32_t sel[] = {5, 3, 2, 99, 3};
  char out[128];
  size_t len = 0, nt = 0;
  ck_assert_int_eq(ms_mailbox_thread(x.s, out, sizeof out, &len, &nt, x.acct, x.box, sel, 5,
                                     MS_THREAD_REFERENCES),
                   0);
  ck_assert_msg(len == 8 && memcmp(out, "(2 3)(5)", 8) == 0, "%.*s", (int)len, out);
  fx_close(&x);
}
END_TEST

START_TEST(references_dummies) {
  struct fixture x;
  fx_open(&x);
  // Two answers to a message not in the mailbox: a dummy root with two
  // children is kept. One answer alone: the dummy goes, its child stays.
  put(&x, NULL, "a", NULL, "<gone>", "Re: q", 10);
  put(&x, NULL, "b", NULL, "<gone>", "Re: q", 5);
  put(&x, NULL, "c", NULL, "<gone2> <gone3>", "Re: w", 20);
  thread_is(&x, MS_THREAD_REFERENCES, "((2)(1))(3)");
  // A dummy in the middle of a chain is removed and its child promoted:
  // d <- [missing] <- e.
  put(&x, NULL, "d", NULL, NULL, "z", 30);
  put(&x, NULL, "e", NULL, "<d> <mid>", "Re: z", 40);
  thread_is(&x, MS_THREAD_REFERENCES, "((2)(1))(3)(4 5)");
  fx_close(&x);
}
END_TEST

START_TEST(references_subject_merge) {
  struct fixture x;
  fx_open(&x);
  // 5.C.iii: a reply without references goes under the original.
  put(&x, NULL, "a", NULL, NULL, "lunch", 0);
  put(&x, NULL, "b", NULL, NULL, "Re: lunch", 10);
  // 5.C.iv: two non-replies with one subject: a new dummy holds both.
  put(&x, NULL, "c", NULL, NULL, "meeting", 20);
  put(&x, NULL, "d", NULL, NULL, "Meeting", 30);
  // 5.C.ii: a message with the subject of a dummy root goes under it.
  put(&x, NULL, "e", NULL, "<gone>", "Re: report", 40);
  put(&x, NULL, "f", NULL, "<gone>", "Re: report", 50);
  put(&x, NULL, "g", NULL, NULL, "Re: report", 60);
  // No subject at all: never merged.
  put(&x, NULL, "h", NULL, NULL, NULL, 70);
  put(&x, NULL, "i", NULL, NULL, "", 80);
  thread_is(&x, MS_THREAD_REFERENCES, "(1 2)((3)(4))((5)(6)(7))(8)(9)");
  fx_close(&x);
}
END_TEST

START_TEST(references_odd_input) {
  struct fixture x;
  fx_open(&x);
  // A loop in the References (a names b, b names a) and a duplicate
  // Message-ID: every message appears once, nothing hangs.
  put(&x, NULL, "a", NULL, "<b>", "loop", 0);
  put(&x, NULL, "b", NULL, "<a>", "Re: loop", 10);
  put(&x, NULL, "dup", NULL, NULL, "d1", 20);
  put(&x, NULL, "dup", NULL, NULL, "d2", 30);
  put(&x, NULL, NULL, NULL, "<dup>", "Re: d1", 40);
  put(&x, NULL, "self", NULL, "<self>", "s", 50);
  // No Date: the internal date (2020) sorts it first.
  put(&x, NULL, "nodate", NULL, NULL, "n", -1);
  // 1.B: 2's own link to its reference a would close the loop a -> b ->
  // a, so it is not made; 1 keeps its parent b: "(2 1)".
  thread_is(&x, MS_THREAD_REFERENCES, "(7)(2 1)(3 5)(4)(6)");
  fx_close(&x);
}
END_TEST

START_TEST(orderedsubject) {
  struct fixture x;
  fx_open(&x);
  put(&x, NULL, "1", NULL, NULL, "b", 3);
  put(&x, NULL, "2", NULL, NULL, "a", 2);
  put(&x, NULL, "3", NULL, NULL, "Re: A", 1);
  put(&x, NULL, "4", NULL, NULL, "b", 4);
  put(&x, NULL, "5", NULL, NULL, "[fwd: b]", 5);
  put(&x, NULL, "6", NULL, NULL, "c", 0);
  // By subject, then date; each subject's first message is the parent of
  // the others; threads by their first message's date.
  thread_is(&x, MS_THREAD_ORDEREDSUBJECT, "(6)(3 2)(1 (4)(5))");
  fx_close(&x);
}
END_TEST

START_TEST(api_edges) {
  struct fixture x;
  fx_open(&x);
  char out[64];
  size_t len = 99, nt = 99;
  ck_assert_int_eq(ms_mailbox_thread(x.s, out, sizeof out, &len, &nt, x.acct, x.box, NULL, 0,
                                     MS_THREAD_REFERENCES),
                   0);
  ck_assert_uint_eq(len, 0);
  ck_assert_uint_eq(nt, 0);
  ck_assert_int_eq(ms_mailbox_thread(x.s, out, sizeof out, &len, &nt, x.acct, x.box, NULL, 0, 7),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(
      ms_mailbox_thread(x.s, out, sizeof out, &len, &nt, x.acct, 99, NULL, 0, MS_THREAD_REFERENCES),
      MS_ERR_NOTFOUND);
  for (int i = 0; i < 20; i++)
    put(&x, NULL, NULL, NULL, NULL, "s", i);
  ck_assert_int_eq(
      ms_mailbox_thread(x.s, out, 10, &len, NULL, x.acct, x.box, NULL, 0, MS_THREAD_ORDEREDSUBJECT),
      MS_ERR_LIMIT);
  char *big = malloc(len);
  size_t len2 = 0;
  ck_assert_int_eq(ms_mailbox_thread(x.s, big, len, &len2, NULL, x.acct, x.box, NULL, 0,
                                     MS_THREAD_ORDEREDSUBJECT),
                   0);
  ck_assert_uint_eq(len2, len);
  ck_assert_uint_le(len, 20 * MS_THREAD_BYTES_PER_MESSAGE + 2);
  ck_assert_int_eq(memcmp(big, "(1 (2)(3)", 9), 0);
  free(big);
  fx_close(&x);
}
END_TEST

// The brute-force check: random reply trees (each message answers an
// earlier one or starts a thread; every subject unique so that step 5
// merges nothing), threaded by direct recursion over the known parents.
enum { RN = 300 };
static int rparent[RN];
static long rdate[RN];

static int child_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (rdate[x] != rdate[y])
    return rdate[x] < rdate[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void expect_body(int n, char *out, size_t *len) {
  int kids[RN], nk = 0;
  for (int i = 0; i < RN; i++)
    if (rparent[i] == n)
      kids[nk++] = i;
  qsort(kids, (size_t)nk, sizeof kids[0], child_cmp);
  *len += (size_t)sprintf(out + *len, "%d", n + 1);
  if (nk == 1) {
    out[(*len)++] = ' ';
    expect_body(kids[0], out, len);
  } else if (nk > 1) {
    out[(*len)++] = ' ';
    for (int k = 0; k < nk; k++) {
      out[(*len)++] = '(';
      expect_body(kids[k], out, len);
      out[(*len)++] = ')';
    }
  }
}

START_TEST(random_trees) {
  srand(42 + (unsigned)_i);
  struct fixture x;
  fx_open(&x);
  char refs[RN][1024];
  for (int i = 0; i < RN; i++) {
    rparent[i] = i > 0 && rand() % 5 ? rand() % i : -1;
    rdate[i] = rand() % 50; // many equal dates: the sequence decides
    char id[32], subj[32];
    snprintf(id, sizeof id, "m%d@t", i);
    snprintf(subj, sizeof subj, "s%d", i);
    // References: the whole ancestry (truncated to the last 20), or only
    // In-Reply-To for a third of the messages.
    refs[i][0] = 0;
    if (rparent[i] >= 0) {
      int chain[RN], nc = 0;
      for (int p = rparent[i]; p >= 0 && nc < 20; p = rparent[p])
        chain[nc++] = p;
      size_t o = 0;
      for (int k = nc - 1; k >= 0; k--)
        o += (size_t)snprintf(refs[i] + o, sizeof refs[i] - o, "%s<m%d@t>", o ? " " : "", chain[k]);
    }
    char irt[40];
    snprintf(irt, sizeof irt, "<m%d@t>", rparent[i]);
    int use_irt = rparent[i] >= 0 && rand() % 3 == 0;
    put(&x, NULL, id, use_irt ? irt : NULL, !use_irt && refs[i][0] ? refs[i] : NULL, subj,
        rdate[i]);
  }
  int roots[RN], nr = 0;
  for (int i = 0; i < RN; i++)
    if (rparent[i] < 0)
      roots[nr++] = i;
  qsort(roots, (size_t)nr, sizeof roots[0], child_cmp);
  size_t cap = RN * MS_THREAD_BYTES_PER_MESSAGE + 2, len = 0;
  char *want = malloc(cap * 2), *got = malloc(cap);
  for (int r = 0; r < nr; r++) {
    want[len++] = '(';
    expect_body(roots[r], want, &len);
    want[len++] = ')';
  }
  size_t glen = 0, nt = 0;
  ck_assert_int_eq(
      ms_mailbox_thread(x.s, got, cap, &glen, &nt, x.acct, x.box, NULL, 0, MS_THREAD_REFERENCES),
      0);
  ck_assert_msg(glen == len && memcmp(got, want, len) == 0, "got  %.*s\nwant %.*s", (int)glen, got,
                (int)len, want);
  ck_assert_uint_eq(nt, (size_t)nr);
  free(want);
  free(got);
  fx_close(&x);
}
END_TEST

// Messages delivered in one call share one transaction: a reply finds the
// index entries its parent wrote earlier in that transaction, in either
// order.
START_TEST(thread_ids_in_one_batch) {
  struct fixture x;
  fx_open(&x);
  const char *msgs[] = {
      "Message-ID: <r@x>\r\nIn-Reply-To: <p@x>\r\nSubject: Re: b\r\n\r\nreply first\r\n",
      "Message-ID: <p@x>\r\nSubject: b\r\n\r\nparent\r\n",
      "Message-ID: <q@x>\r\nReferences: <p@x> <r@x>\r\nSubject: Re: b\r\n\r\nthird\r\n",
      "Message-ID: <o@x>\r\nSubject: other\r\n\r\nalone\r\n",
  };
  struct ms_delivery d[4];
  memset(d, 0, sizeof d);
  for (int i = 0; i < 4; i++) {
    d[i].account = x.acct;
    d[i].mailbox = x.box;
    d[i].data = (const uint8_t *)msgs[i];
    d[i].len = strlen(msgs[i]);
  }
  ck_assert_int_eq(ms_messages_deliver(x.s, d, 4), 4);
  uint64_t t0 = thread_of(&x, d[0].message_id);
  ck_assert_uint_eq(t0, d[0].message_id);
  ck_assert_uint_eq(thread_of(&x, d[1].message_id), t0);
  ck_assert_uint_eq(thread_of(&x, d[2].message_id), t0);
  ck_assert_uint_eq(thread_of(&x, d[3].message_id), d[3].message_id);
  fx_close(&x);
}
END_TEST

// One batch must thread as the same messages delivered one by one: the
// delivery transaction queues its index entries and writes them at its end
// in key order (thread_index.c), so later items of a batch find earlier
// ones' entries in the queue; the first message to name an id or subject
// keeps it; and the entries reach the index (a later delivery finds them).
// Random reply trees with repeated ids and subject-only replies.
START_TEST(batch_threads_as_one_by_one) {
  enum { N = 400 };
  struct fixture one, batch;
  fx_open(&one);
  fx_open(&batch);
  static char msgs[N][512];
  struct ms_delivery *d = calloc(N, sizeof *d);
  ck_assert_ptr_nonnull(d);
  uint32_t x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    int parent = i ? (int)((x >> 8) % (uint32_t)i) : -1;
    int kind = (int)((x >> 20) % 6);
    size_t n = 0;
    // Every 17th message reuses an earlier Message-ID.
    if (i % 17 == 16)
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "Message-ID: <m%d@x>\r\n", parent);
    else if (kind != 5)
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "Message-ID: <m%d@x>\r\n", i);
    if (parent >= 0 && kind <= 1)
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "In-Reply-To: <m%d@x>\r\n", parent);
    if (parent >= 0 && kind == 2)
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "References: <m%d@x> <late%d@x>\r\n", parent,
                            i + 3);
    // kind 3: a reply by subject alone; 4 and 5: a new subject.
    if (parent >= 0 && kind <= 3)
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "Subject: Re: s%d\r\n", parent % 23);
    else
      n += (size_t)snprintf(msgs[i] + n, 512 - n, "Subject: s%d\r\n", i % 23);
    n += (size_t)snprintf(msgs[i] + n, 512 - n, "From: a@example.org\r\n\r\nbody %d\r\n", i);
    if (i % 29 == 7) // a late id named above arrives
      n = (size_t)snprintf(msgs[i], 512, "Message-ID: <late%d@x>\r\nSubject: x\r\n\r\nl\r\n", i);
    d[i] = (struct ms_delivery){
        .account = batch.acct, .mailbox = batch.box, .data = (const uint8_t *)msgs[i], .len = n};
    uint64_t id = 0;
    ck_assert_int_eq(ms_message_append(one.s, &id, NULL, one.acct, one.box, d[i].data, n, 0, 0), 0);
  }
  ck_assert_int_eq(ms_messages_deliver(batch.s, d, N), N);
  size_t joined = 0;
  for (int i = 0; i < N; i++) {
    uint64_t want = thread_of(&one, (uint64_t)i + 1);
    ck_assert_uint_eq(d[i].message_id, (uint64_t)i + 1);
    ck_assert_msg(thread_of(&batch, d[i].message_id) == want, "message %d: thread %llu, want %llu",
                  i, (unsigned long long)thread_of(&batch, d[i].message_id),
                  (unsigned long long)want);
    joined += want != (uint64_t)i + 1;
  }
  ck_assert_uint_gt(joined, N / 2); // the trees did join threads
  // The batch's entries are in the index: a reply to its last message,
  // delivered on its own, joins that message's thread.
  char m[128];
  size_t n =
      (size_t)snprintf(m, sizeof m, "In-Reply-To: <m%d@x>\r\nSubject: r\r\n\r\nb\r\n", N - 1);
  uint64_t id = 0;
  ck_assert_int_eq(
      ms_message_append(batch.s, &id, NULL, batch.acct, batch.box, (const uint8_t *)m, n, 0, 0), 0);
  ck_assert_uint_eq(thread_of(&batch, id), thread_of(&batch, d[N - 1].message_id));
  ck_assert_int_eq(ms_store_verify(one.s, NULL), 0);
  ck_assert_int_eq(ms_store_verify(batch.s, NULL), 0);
  free(d);
  fx_close(&one);
  fx_close(&batch);
}
END_TEST

// A long reply chain (each message answers the previous one, with the
// last few ancestors in References) must thread in time linear in its
// length, not quadratic, and print as one run of numbers.
START_TEST(long_chain) {
  struct fixture x;
  fx_open(&x);
  enum { N = 20000 };
  for (int i = 0; i < N; i++) {
    char id[32], refs[200] = "";
    snprintf(id, sizeof id, "c%d", i);
    size_t o = 0;
    for (int k = i - 3; k < i; k++)
      if (k >= 0)
        o += (size_t)snprintf(refs + o, sizeof refs - o, "%s<c%d>", o ? " " : "", k);
    put(&x, NULL, id, NULL, i ? refs : NULL, i ? "Re: chain" : "chain", i);
  }
  size_t cap = N * MS_THREAD_BYTES_PER_MESSAGE + 2, len = 0, nt = 0;
  char *out = malloc(cap);
  for (int algorithm = MS_THREAD_ORDEREDSUBJECT; algorithm <= MS_THREAD_REFERENCES; algorithm++) {
    ck_assert_int_eq(ms_mailbox_thread(x.s, out, cap, &len, &nt, x.acct, x.box, NULL, 0, algorithm),
                     0);
    ck_assert_uint_eq(nt, 1);
    size_t spaces = 0, parens = 0;
    for (size_t i = 0; i < len; i++) {
      spaces += out[i] == ' ';
      parens += out[i] == '(' || out[i] == ')';
    }
    // REFERENCES: "(1 2 ... N)"; ORDEREDSUBJECT: "(1 (2)(3)...(N))".
    if (algorithm == MS_THREAD_REFERENCES) {
      ck_assert_uint_eq(spaces, N - 1);
      ck_assert_uint_eq(parens, 2);
    } else {
      ck_assert_uint_eq(spaces, 1);
      ck_assert_uint_eq(parens, 2 * N);
    }
  }
  free(out);
  fx_close(&x);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailstore-thread");
  TCase *tc = tcase_create("thread");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, thread_ids_at_delivery);
  tcase_add_test(tc, references_chains_and_branches);
  tcase_add_test(tc, references_dummies);
  tcase_add_test(tc, references_subject_merge);
  tcase_add_test(tc, references_odd_input);
  tcase_add_test(tc, orderedsubject);
  tcase_add_test(tc, api_edges);
  tcase_add_loop_test(tc, random_trees, 0, 4);
  tcase_add_test(tc, long_chain);
  tcase_add_test(tc, thread_ids_in_one_batch);
  tcase_add_test(tc, batch_threads_as_one_by_one);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
