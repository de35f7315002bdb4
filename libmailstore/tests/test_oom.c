// test_oom.c: every allocation the store makes may fail, one at a time, and
// each failure leaves an error and a sound store, never a crash, a leak or a
// half-done change (corvid_test_alloc_fault.h).
//
// The walks of opening, delivery, the other writing operations, the reading
// ones, training and recompressing also run with each LMDB read failing in
// turn instead, once or from the nth on (MDB_PAGE_NOTFOUND from
// mdb_cursor_get or mdb_get, as a damaged page gives; corvid_test_faults.h):
// each such failure must end the call (or a delivery's items) with
// MS_ERR_CORRUPT and change nothing, never pass for the end of a table.
// The one read a call may go on without is the newest dictionary's when
// the store opens, the last read ms_store_open makes.
//
// Writing operations are walked on one handle: after each failed call the
// whole visible state (a snapshot through the public API: accounts,
// mailboxes, memberships, flags, keywords, change log, VANISHED, search
// queue, statistics) must equal the one before, and ms_store_verify must
// pass. Reading operations are walked on a fresh handle each time, so that
// the packed index and the dictionary cache are built (and fail) every run;
// after a failure the same handle must answer exactly as a sound one does.
//
// A run in which the failing allocation was one the code can do without
// (blob_encode's and the index's shrinking reallocs, the dictionary's
// adoption after ms_store_train committed) must succeed whole; deliveries
// may fail single items, as documented. Calls that make no allocation of
// their own are not walked: allocation_free_calls lists them and fails
// should one start allocating.
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_check.h"
#include "corvid_libtest.h"
#include "corvid_test_faults.h"
#include "mailstore.h"
#include "store_internal.h"
#include "store_util.h"

// Each operation is tried with its 1st, 2nd, ... allocation failing until
// one run reaches no armed allocation; this bounds the walk should an
// operation stop allocating deterministically.
#define MAX_STEPS 5000

// The failures walked (corvid_test_faults.h): an allocation, an LMDB read
// that fails once, or a read that keeps failing from the nth on, as a
// damaged page does when the code tries again. fault_error is what a call
// that met the failure must return.
static int fault_error(enum test_fault kind) {
  return kind == FAULT_ALLOC ? -ENOMEM : MS_ERR_CORRUPT;
}

START_TEST(store_open_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  char *dir = tmp_store_dir();
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    ms_store *st = NULL;
    test_fault_arm(kind, n);
    int rc = ms_store_open(&st, dir, NULL);
    bool fired = test_fault_disarm(kind);
    if (!fired) {
      require(rc == 0, "open: %s", ms_strerror(rc));
      verify_ok(st);
      ms_store_close(st);
      break;
    }
    if (rc == 0 && kind != FAULT_ALLOC) {
      // The one read open goes on without is its last, the newest
      // dictionary's (ms_store_open), which only compression needs.
      require(lmdb_fault_count() == n, "%s %lu of %lu failed, open said success", fault, n,
              lmdb_fault_count());
      verify_ok(st);
      ms_store_close(st);
      continue;
    }
    require(rc == fault_error(kind), "%s %lu failed, open said %s", fault, n, ms_strerror(rc));
    require(st == NULL, "%s %lu failed, open set a handle", fault, n);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  rm_store_dir(dir);
}
END_TEST

START_TEST(append_each_allocation) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, NULL, "alice", &acct, &box);
  char buf[2048];
  size_t len = make_message(buf, sizeof buf, 1, 1000);
  unsigned long n;
  uint32_t stored = 0;
  for (n = 1; n < MAX_STEPS; n++) {
    uint64_t id = 0;
    uint32_t uid = 0;
    alloc_fault_arm(n);
    int rc = ms_message_append(st, &id, &uid, acct, box, (const uint8_t *)buf, len, 0, 1);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 0 || (fired && rc == -ENOMEM), "allocation %lu: append said %s", n,
            ms_strerror(rc));
    if (rc == 0)
      stored++;
    struct ms_mailbox_info info;
    require(ms_mailbox_get(st, &info, acct, box) == 0, "mailbox_get");
    require(info.total == stored, "allocation %lu: %u messages, %u appended", n, info.total,
            stored);
    verify_ok(st);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A store's visible state, or a call's output, flattened into numbers so
// that two can be compared whole (no struct padding involved).
enum { FACTS_MAX = 1 << 16, SNAP_CAP = 512 };
struct facts {
  size_t n;
  uint64_t v[FACTS_MAX];
};

static struct facts before, after, want, got;

static void fact(struct facts *f, uint64_t x) {
  if (f->n < FACTS_MAX)
    f->v[f->n] = x;
  f->n++; // an overflow shows as a mismatch with the capacity named
}

static void fact_bytes(struct facts *f, const void *p, size_t len) {
  fact(f, len);
  for (size_t i = 0; i < len; i++)
    fact(f, ((const uint8_t *)p)[i]);
}

// facts_diff returns the index of the first difference, or SIZE_MAX.
static size_t facts_diff(const struct facts *a, const struct facts *b) {
  size_t n = a->n < b->n ? a->n : b->n;
  if (n > FACTS_MAX)
    n = FACTS_MAX;
  for (size_t i = 0; i < n; i++)
    if (a->v[i] != b->v[i])
      return i;
  return a->n == b->n ? SIZE_MAX : n;
}

// The fixture: alice with INBOX (5 messages: a thread of three, one
// alone, one with a Base64 attachment stored decoded; flags and a keyword
// on some), Work (one message), Archive with Archive/2026, Trash (a copy
// of INBOX 3 and a message of its own); bob with an INBOX of one message.
struct fx {
  char *dir;
  ms_store *st;
  struct ms_settings set;
  uint32_t acct, bob;
  uint32_t inbox, work, archive, archive26, trash, bob_inbox;
  uint64_t ids[8]; // [0] free for a test; alice's INBOX messages 1..5 at [1..5], Work's at [6],
                   // Trash's own at [7]
  uint32_t out_uids[8];
};

enum { MAIL_CAP = 4096 };

static const char *const mails[] = {
    "From: Ann <ann@example.org>\r\nTo: Bob <bob@example.org>\r\nSubject: plans\r\n"
    "Date: Mon, 2 Nov 2026 10:00:00 +0000\r\nMessage-ID: <p1@example.org>\r\n\r\n"
    "Shall we meet on Friday?\r\n",
    "From: Bob <bob@example.org>\r\nTo: Ann <ann@example.org>\r\nCc: cy@example.org\r\n"
    "Subject: Re: plans\r\nDate: Mon, 2 Nov 2026 11:00:00 +0000\r\n"
    "Message-ID: <p2@example.org>\r\nIn-Reply-To: <p1@example.org>\r\n"
    "References: <p1@example.org>\r\n\r\nYes, at ten.\r\n",
    "From: Cy <cy@example.org>\r\nTo: ann@example.org\r\nSubject: budget\r\n"
    "Date: Tue, 3 Nov 2026 09:00:00 +0100\r\nMessage-ID: <b1@example.org>\r\n\r\n"
    "The numbers are in.\r\n",
    "From: Ann <ann@example.org>\r\nTo: cy@example.org\r\nSubject: Re: plans\r\n"
    "Message-ID: <p3@example.org>\r\nReferences: <p1@example.org> <p2@example.org>\r\n\r\n"
    "Agreed.\r\n",
};

// attachment_mail writes a message whose attachment is Base64 in regular
// 76-character lines, the shape a delivery stores decoded.
static size_t attachment_mail(char *buf, size_t cap) {
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int k = snprintf(buf, cap,
                   "From: Dee <dee@example.org>\r\nTo: ann@example.org\r\nSubject: photo\r\n"
                   "Message-ID: <d1@example.org>\r\nMIME-Version: 1.0\r\n"
                   "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\n"
                   "Content-Type: text/plain\r\n\r\nSee the attachment.\r\n--b\r\n"
                   "Content-Type: application/octet-stream\r\n"
                   "Content-Transfer-Encoding: base64\r\n\r\n");
  size_t len = (size_t)k;
  uint32_t h = 12345;
  for (int line = 0; line < 24; line++) {
    for (int g = 0; g < 19; g++) { // 57 bytes: 19 groups of 3
      uint8_t in[3];
      for (int i = 0; i < 3; i++) {
        h = h * 1103515245u + 12345u;
        in[i] = (uint8_t)(h >> 16);
      }
      buf[len++] = b64[in[0] >> 2];
      buf[len++] = b64[((in[0] & 3) << 4) | (in[1] >> 4)];
      buf[len++] = b64[((in[1] & 15) << 2) | (in[2] >> 6)];
      buf[len++] = b64[in[2] & 63];
    }
    buf[len++] = '\r';
    buf[len++] = '\n';
  }
  len += (size_t)snprintf(buf + len, cap - len, "--b--\r\n");
  ck_assert_uint_lt(len, cap);
  return len;
}

static uint64_t put_mail(struct fx *f, uint32_t acct, uint32_t box, const char *data, size_t len,
                         uint32_t flags, int64_t date) {
  uint64_t id = 0;
  ck_assert_int_eq(
      ms_message_append(f->st, &id, NULL, acct, box, (const uint8_t *)data, len, flags, date), 0);
  return id;
}

static uint32_t new_box(struct fx *f, uint32_t acct, const char *name, uint32_t role) {
  uint32_t id = 0;
  ck_assert_int_eq(ms_mailbox_create(f->st, &id, acct, name, strlen(name), role), 0);
  return id;
}

static void fx_open(struct fx *f) {
  memset(f, 0, sizeof *f);
  f->set.dict_max_size = 16384;
  f->set.dict_train_after = UINT32_MAX; // trained only where a test says so
  // Syncing allocates nothing (sync.c); without it the walks' thousands of
  // commits take no time.
  f->set.no_sync = 1;
  new_store(&f->dir, &f->st, &f->set, "alice", &f->acct, &f->inbox);
  f->work = new_box(f, f->acct, "Work", MS_ROLE_NONE);
  f->archive = new_box(f, f->acct, "Archive", MS_ROLE_ARCHIVE);
  f->archive26 = new_box(f, f->acct, "Archive/2026", MS_ROLE_NONE);
  f->trash = new_box(f, f->acct, "Trash", MS_ROLE_TRASH);
  ck_assert_int_eq(ms_account_create(f->st, &f->bob, "bob", 3, 0, 0), 0);
  f->bob_inbox = new_box(f, f->bob, "INBOX", MS_ROLE_INBOX);
  for (int i = 0; i < 4; i++)
    f->ids[i + 1] = put_mail(f, f->acct, f->inbox, mails[i], strlen(mails[i]),
                             i == 0 ? MS_FLAG_SEEN : 0, 1793000000 + i * 3600);
  char buf[MAIL_CAP];
  size_t len = attachment_mail(buf, sizeof buf);
  f->ids[5] = put_mail(f, f->acct, f->inbox, buf, len, MS_FLAG_FLAGGED, 1793020000);
  len = make_message(buf, sizeof buf, 6, 300);
  f->ids[6] = put_mail(f, f->acct, f->work, buf, len, 0, 1793030000);
  uint32_t three = 3;
  ck_assert_int_eq(ms_messages_copy(f->st, NULL, f->acct, f->inbox, f->trash, &three, 1), 1);
  len = make_message(buf, sizeof buf, 7, 200);
  f->ids[7] = put_mail(f, f->acct, f->trash, buf, len, MS_FLAG_DELETED, 1793040000);
  len = make_message(buf, sizeof buf, 8, 100);
  put_mail(f, f->bob, f->bob_inbox, buf, len, 0, 1793050000);
  const char *label = "$label1";
  size_t label_len = strlen(label);
  uint32_t one_two[2] = {1, 2};
  ck_assert_int_eq(ms_keywords_store(f->st, f->acct, f->inbox, one_two, 2, MS_KEYWORDS_ADD, &label,
                                     &label_len, 1),
                   2);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(f->st, &s), 0);
  ck_assert_uint_eq(s.xf_blobs, 1); // the attachment is stored decoded
  verify_ok(f->st);
}

static void reopen(struct fx *f) {
  ms_store_close(f->st);
  f->st = NULL;
  ck_assert_int_eq(ms_store_open(&f->st, f->dir, &f->set), 0);
}

// snap_mailbox adds what one mailbox shows: name, counters, memberships
// with flags and keywords, the keywords in use, and CONDSTORE/QRESYNC
// changes since 0 (VANISHED included).
static void snap_mailbox(struct fx *f, struct facts *s, uint32_t acct, uint32_t box) {
  char name[256];
  size_t len = 0;
  require(ms_mailbox_name(f->st, name, sizeof name, &len, acct, box) == 0, "mailbox_name");
  fact_bytes(s, name, len);
  struct ms_mailbox_info mi;
  require(ms_mailbox_get(f->st, &mi, acct, box) == 0, "mailbox_get");
  uint64_t mv[] = {mi.id,      mi.parent,         mi.role,  mi.subscribed, mi.uidvalidity,
                   mi.uidnext, mi.highest_modseq, mi.total, mi.unseen,     mi.size};
  for (size_t i = 0; i < sizeof mv / sizeof *mv; i++)
    fact(s, mv[i]);
  static struct ms_entry e[SNAP_CAP];
  size_t n = 0;
  require(ms_mailbox_list(f->st, e, SNAP_CAP, &n, acct, box, 1) == 0, "mailbox_list");
  fact(s, n);
  for (size_t i = 0; i < n; i++) {
    fact(s, e[i].uid);
    fact(s, e[i].flags);
    fact(s, e[i].message_id);
    fact(s, e[i].modseq);
    uint32_t kw[64], flags = 0;
    size_t nkw = 0;
    require(ms_keywords_get(f->st, kw, 64, &nkw, &flags, acct, box, e[i].uid) == 0, "keywords_get");
    fact(s, flags);
    fact(s, nkw);
    for (size_t j = 0; j < nkw; j++)
      fact(s, kw[j]);
  }
  uint32_t kw[64];
  require(ms_mailbox_keywords(f->st, kw, 64, &n, acct, box) == 0, "mailbox_keywords");
  fact(s, n);
  for (size_t j = 0; j < n; j++)
    fact(s, kw[j]);
  static uint32_t vanished[SNAP_CAP];
  size_t nv = 0;
  int rc = ms_mailbox_changes(f->st, e, SNAP_CAP, &n, vanished, SNAP_CAP, &nv, acct, box, 0);
  require(rc == 0, "mailbox_changes: %s", ms_strerror(rc));
  fact(s, n);
  for (size_t i = 0; i < n; i++) {
    fact(s, e[i].uid);
    fact(s, e[i].modseq);
  }
  fact(s, nv);
  for (size_t i = 0; i < nv; i++)
    fact(s, vanished[i]);
}

static void snap_account(struct fx *f, struct facts *s, uint32_t acct) {
  struct ms_account_info ai;
  require(ms_account_get(f->st, &ai, acct) == 0, "account_get");
  uint64_t av[] = {ai.id,         ai.quota_bytes,   ai.quota_messages,
                   ai.used_bytes, ai.used_messages, ai.highest_modseq};
  for (size_t i = 0; i < sizeof av / sizeof *av; i++)
    fact(s, av[i]);
  uint64_t state = 0;
  require(ms_account_state(f->st, &state, acct) == 0, "account_state");
  fact(s, state);
  uint32_t nkw = 0;
  require(ms_keyword_count(f->st, &nkw, NULL, acct) == 0, "keyword_count");
  fact(s, nkw);
  for (uint32_t id = 0; id < nkw; id++) {
    char name[256];
    size_t len = 0;
    require(ms_keyword_name(f->st, name, sizeof name, &len, acct, id) == 0, "keyword_name");
    fact_bytes(s, name, len);
  }
  uint32_t boxes[32];
  size_t nb = 0;
  require(ms_account_mailboxes(f->st, boxes, 32, &nb, acct) == 0, "account_mailboxes");
  fact(s, nb);
  for (size_t i = 0; i < nb; i++)
    snap_mailbox(f, s, acct, boxes[i]);
  static struct ms_change ch[SNAP_CAP];
  size_t nch = 0;
  uint64_t new_state = 0;
  int more = 0;
  int rc = ms_account_changes(f->st, ch, SNAP_CAP, &nch, &new_state, &more, acct,
                              MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, 0, SNAP_CAP);
  require(rc == 0, "account_changes: %s", ms_strerror(rc));
  fact(s, nch);
  for (size_t i = 0; i < nch; i++) {
    fact(s, ch[i].kind);
    fact(s, ch[i].type);
    fact(s, ch[i].id);
  }
  fact(s, new_state);
  fact(s, (uint64_t)more);
  static uint64_t msgs[SNAP_CAP];
  size_t nm = 0;
  require(ms_account_messages(f->st, msgs, SNAP_CAP, &nm, acct, 0) == 0, "account_messages");
  fact(s, nm);
  static uint8_t sumbuf[16384];
  for (size_t i = 0; i < nm; i++) {
    struct ms_message_info mi;
    require(ms_message_get(f->st, &mi, acct, msgs[i]) == 0, "message_get");
    fact(s, msgs[i]);
    fact(s, mi.size);
    fact(s, (uint64_t)mi.internal_date);
    fact(s, mi.memberships);
    fact(s, mi.thread_id);
    struct ms_summary sum;
    size_t used = 0;
    rc = ms_message_summary_get(f->st, &sum, sumbuf, sizeof sumbuf, &used, acct, msgs[i]);
    require(rc == 0, "summary_get: %s", ms_strerror(rc));
    fact(s, sum.flags);
    fact(s, used);
  }
}

// snap takes the whole visible state of the fixture's store.
static void snap(struct fx *f, struct facts *s) {
  s->n = 0;
  snap_account(f, s, f->acct);
  snap_account(f, s, f->bob);
  uint32_t carol = 0;
  fact(s, (uint64_t)(int64_t)ms_account_find(f->st, &carol, "carol", 5));
  fact(s, carol);
  struct ms_store_stats t;
  require(ms_store_stats_get(f->st, &t) == 0, "stats_get");
  uint64_t tv[] = {
      t.accounts,       t.mailboxes,     t.messages, t.memberships, t.bytes,         t.blobs,
      t.blob_raw,       t.blob_stored,   t.released, t.map_used,    t.dicts,         t.dict_bytes,
      t.dict_current,   t.dict_blobs,    t.dict_raw, t.dict_stored, t.chunked_blobs, t.chunked_raw,
      t.chunked_stored, t.search_queued, t.xf_blobs, t.xf_raw,      t.xf_stored,     t.xf_segments,
      t.xf_encoded,     t.xf_decoded};
  for (size_t i = 0; i < sizeof tv / sizeof *tv; i++)
    fact(s, tv[i]);
  static struct ms_search_item q[SNAP_CAP];
  size_t nq = 0;
  require(ms_search_queue_read(f->st, q, SNAP_CAP, &nq, 0) == 0, "search_queue_read");
  fact(s, nq);
  for (size_t i = 0; i < nq; i++) {
    fact(s, q[i].seq);
    fact(s, q[i].op);
    fact(s, q[i].account);
    fact(s, q[i].message_id);
  }
  require(s->n <= FACTS_MAX, "snapshot of %zu facts, room for %d", s->n, FACTS_MAX);
}

// fx_close checks that a fresh handle sees exactly what the last one did,
// and passes verify, then removes the store.
static void fx_close(struct fx *f) {
  snap(f, &before);
  reopen(f);
  verify_ok(f->st);
  snap(f, &after);
  size_t d = facts_diff(&before, &after);
  ck_assert_msg(d == SIZE_MAX, "reopened store differs at fact %zu", d);
  ms_store_close(f->st);
  rm_store_dir(f->dir);
}

typedef int (*write_op)(struct fx *f);

// walk_write runs op with its 1st, 2nd, ... allocation (or read) failing:
// each failure must give fault_error and change nothing; the first run that
// reaches no armed failure must succeed. Returns that run's result.
static int walk_write(struct fx *f, enum test_fault kind, const char *what, write_op op) {
  unsigned long n;
  int rc = 0;
  const char *fault = test_fault_name[kind];
  for (n = 1; n < MAX_STEPS; n++) {
    snap(f, &before);
    test_fault_arm(kind, n);
    rc = op(f);
    bool fired = test_fault_disarm(kind);
    if (!fired)
      break;
    require(rc == fault_error(kind), "%s: %s %lu failed, the call said %s (%d)", what, fault, n,
            ms_strerror(rc), rc);
    snap(f, &after);
    size_t d = facts_diff(&before, &after);
    require(d == SIZE_MAX, "%s: %s %lu failed, yet the store changed (fact %zu)", what, fault, n,
            d);
    verify_ok(f->st);
  }
  require(rc >= 0, "%s: unarmed run said %s", what, ms_strerror(rc));
  require(n > 1, "%s: no %s to fail", what, fault);
  ck_assert_uint_lt(n, MAX_STEPS);
  snap(f, &after);
  require(facts_diff(&before, &after) != SIZE_MAX, "%s: the successful run changed nothing", what);
  verify_ok(f->st);
  return rc;
}

typedef int (*read_op)(struct fx *f, struct facts *out);

// walk_read runs op on a fresh handle with its 1st, 2nd, ... allocation (or
// read) failing: each failure must give fault_error and the same handle's
// next call must give what a sound one gives; the first run that reaches no
// armed failure must give it too.
static void walk_read(struct fx *f, enum test_fault kind, const char *what, read_op op) {
  reopen(f);
  want.n = 0;
  int want_rc = op(f, &want);
  require(want_rc >= 0, "%s: %s", what, ms_strerror(want_rc));
  const char *fault = test_fault_name[kind];
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    reopen(f);
    got.n = 0;
    test_fault_arm(kind, n);
    int rc = op(f, &got);
    bool fired = test_fault_disarm(kind);
    if (!fired) {
      require(rc == want_rc, "%s: unarmed run said %s", what, ms_strerror(rc));
      require(facts_diff(&got, &want) == SIZE_MAX, "%s: unarmed run gave another answer", what);
      break;
    }
    // A call may do without an allocation that only saves memory (a
    // shrinking realloc); then its answer must be whole and right. A read
    // that failed is never done without.
    require(rc == fault_error(kind) ||
                (kind == FAULT_ALLOC && rc == want_rc && facts_diff(&got, &want) == SIZE_MAX),
            "%s: %s %lu failed, the call said %s (%d)", what, fault, n, ms_strerror(rc), rc);
    got.n = 0;
    rc = op(f, &got);
    require(rc == want_rc, "%s: after %s %lu failed, the next call said %s", what, fault, n,
            ms_strerror(rc));
    size_t d = facts_diff(&got, &want);
    require(d == SIZE_MAX, "%s: after %s %lu failed, the next call differs at %zu", what, fault, n,
            d);
  }
  require(n > 1, "%s: no %s to fail", what, fault);
  ck_assert_uint_lt(n, MAX_STEPS);
}

// Writing operations.

static int deliver_batch(struct fx *f, struct ms_delivery *items, const char bufs[3][MAIL_CAP]) {
  uint32_t boxes[3] = {f->inbox, f->work, f->inbox};
  for (int i = 0; i < 3; i++)
    items[i] = (struct ms_delivery){.status = 12345,
                                    .account = f->acct,
                                    .mailbox = boxes[i],
                                    .flags = i == 1 ? MS_FLAG_SEEN : 0,
                                    .internal_date = 1793100000 + i,
                                    .data = (const uint8_t *)bufs[i],
                                    .len = strlen(bufs[i])};
  return ms_messages_deliver(f->st, items, 3);
}

// A batch delivery may store some items and fail others with their own
// status (each item is on its own, as documented); what is stored must be
// whole, readable and in the right thread, and what failed must leave no
// trace. When the group's transaction fails, each item is tried again in
// one of its own, so a read that fails once may leave every item stored;
// one that keeps failing may not. A thread index read whose error is taken
// for "not found" shows here as a reply stored in a thread of its own.
START_TEST(deliver_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  struct fx f;
  fx_open(&f);
  static char bufs[3][MAIL_CAP];
  struct ms_message_info first;
  ck_assert_int_eq(ms_message_get(f.st, &first, f.acct, f.ids[1]), 0);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct ms_mailbox_info in0, wk0, in1, wk1;
    struct ms_store_stats st0, st1;
    require(ms_mailbox_get(f.st, &in0, f.acct, f.inbox) == 0, "mailbox_get");
    require(ms_mailbox_get(f.st, &wk0, f.acct, f.work) == 0, "mailbox_get");
    require(ms_store_stats_get(f.st, &st0) == 0, "stats");
    snap(&f, &before);
    // Each run delivers new messages: what an earlier run stored must not
    // answer the thread lookups of this one.
    for (int i = 0; i < 2; i++)
      bufs[i][make_message(bufs[i], MAIL_CAP - 1, (unsigned)(10 * n) + (unsigned)i,
                           400 + 100 * (unsigned)i)] = '\0';
    // The third replies to the fixture's first message, naming it alone
    // and under a subject no thread has: it joins that thread only if the
    // thread index's read of <p1> is answered.
    snprintf(bufs[2], MAIL_CAP,
             "From: Cy <cy@example.org>\r\nTo: ann@example.org\r\nSubject: Re: lunch %lu\r\n"
             "Message-ID: <r%lu@example.org>\r\nIn-Reply-To: <p1@example.org>\r\n\r\nNoon.\r\n",
             n, n);
    struct ms_delivery items[3];
    test_fault_arm(kind, n);
    int rc = deliver_batch(&f, items, (const char(*)[MAIL_CAP])bufs);
    bool fired = test_fault_disarm(kind);
    if (!fired) {
      require(rc == 3, "deliver: unarmed run stored %d", rc);
      break;
    }
    require(rc == fault_error(kind) || (rc >= 0 && rc <= 3), "deliver: %s %lu: %s", fault, n,
            ms_strerror(rc));
    uint32_t stored_in[2] = {0, 0};
    for (int i = 0; rc >= 0 && i < 3; i++) {
      require(items[i].status == 0 || items[i].status == fault_error(kind),
              "deliver: %s %lu: item %d said %s", fault, n, i, ms_strerror(items[i].status));
      if (items[i].status != 0)
        continue;
      stored_in[i == 1]++;
      static uint8_t back[MAIL_CAP];
      size_t len = 0;
      require(ms_message_read(f.st, back, sizeof back, &len, f.acct, items[i].message_id) == 0,
              "read back");
      require(len == strlen(bufs[i]) && memcmp(back, bufs[i], len) == 0,
              "deliver: %s %lu: item %d reads back otherwise", fault, n, i);
      struct ms_message_info info;
      require(ms_message_get(f.st, &info, f.acct, items[i].message_id) == 0, "message_get");
      uint64_t thread = i == 2 ? first.thread_id : items[i].message_id;
      require(info.thread_id == thread, "deliver: %s %lu: item %d in thread %llu, not %llu", fault,
              n, i, (unsigned long long)info.thread_id, (unsigned long long)thread);
    }
    require(rc < 0 || (int)(stored_in[0] + stored_in[1]) == rc, "deliver: count mismatch");
    // A read that keeps failing fails the retries too: nothing is stored.
    require(kind != FAULT_READ_STAYS || rc <= 0, "deliver: %s %lu: %d items stored", fault, n, rc);
    require(ms_mailbox_get(f.st, &in1, f.acct, f.inbox) == 0, "mailbox_get");
    require(ms_mailbox_get(f.st, &wk1, f.acct, f.work) == 0, "mailbox_get");
    require(ms_store_stats_get(f.st, &st1) == 0, "stats");
    require(in1.total == in0.total + stored_in[0] && wk1.total == wk0.total + stored_in[1],
            "deliver: %s %lu: %u+%u stored, mailboxes grew by %u and %u", fault, n, stored_in[0],
            stored_in[1], in1.total - in0.total, wk1.total - wk0.total);
    require(st1.messages == st0.messages + stored_in[0] + stored_in[1] &&
                st1.search_queued == st0.search_queued + stored_in[0] + stored_in[1],
            "deliver: %s %lu: message or search queue count off", fault, n);
    if (stored_in[0] + stored_in[1] == 0) {
      snap(&f, &after);
      size_t d = facts_diff(&before, &after);
      require(d == SIZE_MAX, "deliver: %s %lu failed all, yet the store changed (%zu)", fault, n,
              d);
    }
    verify_ok(f.st);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  verify_ok(f.st);
  fx_close(&f);
}
END_TEST

static int op_flags(struct fx *f) {
  uint32_t uids[3] = {1, 2, 3};
  return ms_flags_store(f->st, f->acct, f->inbox, uids, 3, MS_FLAG_FLAGGED, MS_FLAG_SEEN);
}

static int op_keywords_new(struct fx *f) {
  const char *names[3] = {"Project", "$label1", "urgent"};
  size_t lens[3] = {7, 7, 6};
  uint32_t uids[2] = {2, 3};
  return ms_keywords_store(f->st, f->acct, f->inbox, uids, 2, MS_KEYWORDS_ADD, names, lens, 3);
}

static int op_keywords_existing(struct fx *f) {
  const char *names[2] = {"$LABEL1", "\\Answered"};
  size_t lens[2] = {7, 9};
  uint32_t uids[4] = {4, 1, 3, 2};
  return ms_keywords_store(f->st, f->acct, f->inbox, uids, 4, MS_KEYWORDS_REPLACE, names, lens, 2);
}

static int op_keywords_remove(struct fx *f) {
  const char *names[2] = {"$label1", "never-defined"};
  size_t lens[2] = {7, 13};
  uint32_t uids[2] = {1, 2};
  return ms_keywords_store(f->st, f->acct, f->inbox, uids, 2, MS_KEYWORDS_REMOVE, names, lens, 2);
}

START_TEST(flags_and_keywords_each_failure) {
  struct fx f;
  fx_open(&f);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "flags_store", op_flags), 3);
  uint32_t kw[8], flags;
  size_t nkw;
  ck_assert_int_eq(ms_keywords_get(f.st, kw, 8, &nkw, &flags, f.acct, f.inbox, 1), 0);
  ck_assert_uint_eq(flags, MS_FLAG_FLAGGED);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "keywords_store new", op_keywords_new), 2);
  uint32_t count = 0;
  ck_assert_int_eq(ms_keyword_count(f.st, &count, NULL, f.acct), 0);
  ck_assert_uint_eq(count, 3);
  ck_assert_int_eq(ms_keywords_get(f.st, kw, 8, &nkw, &flags, f.acct, f.inbox, 3), 0);
  ck_assert_uint_eq(nkw, 3);
  ck_assert_int_eq(
      walk_write(&f, (enum test_fault)_i, "keywords_store existing", op_keywords_existing), 4);
  ck_assert_int_eq(ms_keywords_get(f.st, kw, 8, &nkw, &flags, f.acct, f.inbox, 3), 0);
  ck_assert_uint_eq(nkw, 1);
  ck_assert_uint_eq(kw[0], 0);
  ck_assert_uint_eq(flags, MS_FLAG_ANSWERED);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "keywords_store remove", op_keywords_remove),
                   2);
  ck_assert_int_eq(ms_keywords_get(f.st, kw, 8, &nkw, &flags, f.acct, f.inbox, 2), 0);
  ck_assert_uint_eq(nkw, 0);
  fx_close(&f);
}
END_TEST

static int op_copy(struct fx *f) {
  uint32_t uids[3] = {2, 1, 9};
  return ms_messages_copy(f->st, f->out_uids, f->acct, f->inbox, f->archive, uids, 3);
}

static int op_move(struct fx *f) {
  uint32_t uids[2] = {5, 3};
  return ms_messages_move(f->st, f->out_uids, f->acct, f->inbox, f->work, uids, 2);
}

// INBOX 4 is in no other mailbox: it is destroyed (search queue REMOVE,
// blob reference released).
static int op_expunge(struct fx *f) {
  uint32_t uids[2] = {4, 1};
  return ms_messages_expunge(f->st, f->acct, f->inbox, uids, 2);
}

static int op_expunge_deleted(struct fx *f) {
  return ms_messages_expunge(f->st, f->acct, f->trash, NULL, 0);
}

static int op_collect(struct fx *f) {
  return ms_store_collect(f->st, 0);
}

START_TEST(copy_move_expunge_each_failure) {
  struct fx f;
  fx_open(&f);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "messages_copy", op_copy), 2);
  ck_assert_uint_eq(f.out_uids[0], 2);
  ck_assert_uint_eq(f.out_uids[1], 1);
  ck_assert_uint_eq(f.out_uids[2], 0);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "messages_move", op_move), 2);
  ck_assert_uint_eq(f.out_uids[0], 3);
  ck_assert_uint_eq(f.out_uids[1], 2);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "messages_expunge", op_expunge), 2);
  ck_assert_int_eq(
      walk_write(&f, (enum test_fault)_i, "messages_expunge deleted", op_expunge_deleted), 1);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(f.st, &s), 0);
  ck_assert_uint_eq(s.released, 2);
  ck_assert_int_eq(walk_write(&f, (enum test_fault)_i, "store_collect", op_collect), 2);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(f.st, &mi, f.acct, f.inbox), 0);
  ck_assert_uint_eq(mi.total, 1);
  ck_assert_int_eq(ms_mailbox_get(f.st, &mi, f.acct, f.archive), 0);
  ck_assert_uint_eq(mi.total, 2);
  fx_close(&f);
}
END_TEST

static int op_mailbox_rename(struct fx *f) {
  return ms_mailbox_rename(f->st, f->acct, f->archive, "Work/Old", 8);
}

static int op_mailbox_delete(struct fx *f) {
  return ms_mailbox_delete(f->st, f->acct, f->trash);
}

// ms_mailbox_create, ms_mailbox_subscribe and ms_account_create allocate
// nothing (allocation_free_calls); rename and delete do.
START_TEST(mailbox_rename_delete_each_failure) {
  struct fx f;
  fx_open(&f);
  walk_write(&f, (enum test_fault)_i, "mailbox_rename", op_mailbox_rename);
  uint32_t id = 0;
  ck_assert_int_eq(ms_mailbox_find(f.st, &id, f.acct, "Work/Old/2026", 13), 0);
  ck_assert_uint_eq(id, f.archive26);
  ck_assert_int_eq(ms_mailbox_find(f.st, &id, f.acct, "Archive", 7), MS_ERR_NOTFOUND);
  walk_write(&f, (enum test_fault)_i, "mailbox_delete", op_mailbox_delete);
  ck_assert_int_eq(ms_mailbox_find(f.st, &id, f.acct, "Trash", 5), MS_ERR_NOTFOUND);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(f.st, &s), 0);
  ck_assert_uint_eq(s.released, 1); // Trash's own message; INBOX 3's copy lives on
  fx_close(&f);
}
END_TEST

// allocation_free_calls pins down the calls not walked because they make
// no allocation of their own: should one start allocating, it fails here
// and belongs in a walk.
struct counted {
  const char *what;
  int rc, want;
  unsigned long count;
};

#define COUNT_ALLOCATIONS(list, k, expr, expected)                                                 \
  do {                                                                                             \
    alloc_fault_arm(0);                                                                            \
    int rc_ = (expr);                                                                              \
    (list)[(k)++] = (struct counted){#expr, rc_, (expected), alloc_fault_count()};                 \
  } while (0)

START_TEST(allocation_free_calls) {
  struct fx f;
  fx_open(&f);
  uint32_t id = 0;
  uint64_t state = 0;
  uint8_t digest[32];
  struct ms_index_info ii;
  struct ms_store_stats stats;
  struct ms_mailbox_info mi;
  struct ms_account_info ai;
  struct ms_message_info msg;
  char name[256];
  uint32_t ids[8];
  uint64_t msgs[8];
  size_t len = 0;
  struct ms_search_item q[16];
  size_t nq = 0, used = 0, k = 0;
  static uint8_t buf[16384];
  struct ms_summary sum;
  struct counted calls[24];
  COUNT_ALLOCATIONS(calls, k,
                    ms_mailbox_create(f.st, &id, f.acct, "Work/Reports", 12, MS_ROLE_NONE), 0);
  COUNT_ALLOCATIONS(calls, k, ms_mailbox_subscribe(f.st, f.acct, f.work, 1), 0);
  COUNT_ALLOCATIONS(calls, k, ms_account_create(f.st, &id, "carol", 5, 1000000, 100), 0);
  COUNT_ALLOCATIONS(calls, k, ms_search_queue_ack(f.st, 4), 4);
  reopen(&f); // nothing cached below
  COUNT_ALLOCATIONS(calls, k, ms_account_state(f.st, &state, f.acct), 0);
  COUNT_ALLOCATIONS(calls, k, ms_message_digest(f.st, digest, f.acct, f.ids[5]), 0);
  COUNT_ALLOCATIONS(calls, k, ms_search_queue_read(f.st, q, 16, &nq, 0), 0);
  COUNT_ALLOCATIONS(
      calls, k, ms_message_summary_get(f.st, &sum, buf, sizeof buf, &used, f.acct, f.ids[2]), 0);
  COUNT_ALLOCATIONS(calls, k, ms_store_index_info(f.st, &ii), 0);
  COUNT_ALLOCATIONS(calls, k, ms_store_stats_get(f.st, &stats), 0);
  COUNT_ALLOCATIONS(calls, k, ms_keyword_name(f.st, name, sizeof name, &len, f.acct, 0), 0);
  COUNT_ALLOCATIONS(calls, k, ms_keywords_get(f.st, ids, 8, &len, NULL, f.acct, f.inbox, 1), 0);
  COUNT_ALLOCATIONS(calls, k, ms_account_mailboxes(f.st, ids, 8, &len, f.acct), 0);
  COUNT_ALLOCATIONS(calls, k, ms_account_messages(f.st, msgs, 8, &len, f.acct, 0), 0);
  COUNT_ALLOCATIONS(calls, k, ms_mailbox_name(f.st, name, sizeof name, &len, f.acct, f.work), 0);
  COUNT_ALLOCATIONS(calls, k, ms_mailbox_find(f.st, &id, f.acct, "Archive/2026", 12), 0);
  COUNT_ALLOCATIONS(calls, k, ms_mailbox_get(f.st, &mi, f.acct, f.inbox), 0);
  COUNT_ALLOCATIONS(calls, k, ms_account_get(f.st, &ai, f.acct), 0);
  COUNT_ALLOCATIONS(calls, k, ms_account_find(f.st, &id, "bob", 3), 0);
  COUNT_ALLOCATIONS(calls, k, ms_message_get(f.st, &msg, f.acct, f.ids[1]), 0);
  for (size_t i = 0; i < k; i++) {
    ck_assert_msg(calls[i].rc == calls[i].want, "%s said %s", calls[i].what,
                  ms_strerror(calls[i].rc));
    ck_assert_msg(calls[i].count == 0, "%s made %lu allocations: walk it", calls[i].what,
                  calls[i].count);
  }
  ck_assert_uint_eq(nq, 4); // 4 of the 8 entries acknowledged, the other 4 read
  ck_assert(sum.flags & MS_SUMMARY_STORED);
  fx_close(&f);
}
END_TEST

// drop_summaries_tx deletes every stored summary, as a store written by a
// library without them would look (as test_summary.c does).
static int drop_summaries_tx(ms_store *s, MDB_txn *t, void *p) {
  (void)p;
  return lmdb_err(mdb_drop(t, s->summaries, 0));
}

static int op_summarize(struct fx *f) {
  return ms_store_summarize(f->st, 0);
}

static int rd_summary(struct fx *f, struct facts *out);

START_TEST(summarize_each_allocation) {
  struct fx f;
  fx_open(&f);
  ck_assert_int_eq(run_write(f.st, drop_summaries_tx, NULL), 0);
  // Without a stored summary, one is made from the message's bytes.
  walk_read(&f, FAULT_ALLOC, "message_summary_get made on the fly", rd_summary);
  ck_assert_int_eq(walk_write(&f, FAULT_ALLOC, "store_summarize", op_summarize), 8);
  ck_assert_int_eq(ms_store_summarize(f.st, 0), 0);
  fx_close(&f);
}
END_TEST

// Reading operations; each puts its whole answer into *out.

static int rd_list(struct fx *f, struct facts *out) {
  struct ms_entry e[16];
  size_t n = 0;
  int rc = ms_mailbox_list(f->st, e, 16, &n, f->acct, f->inbox, 2);
  fact(out, n);
  for (size_t i = 0; i < n; i++) {
    fact(out, e[i].uid);
    fact(out, e[i].flags);
    fact(out, e[i].message_id);
    fact(out, e[i].modseq);
  }
  return rc;
}

static int rd_list_keywords(struct fx *f, struct facts *out) {
  struct ms_keyword_entry e[16];
  uint32_t ids[32];
  size_t n = 0, nids = 0;
  int rc = ms_mailbox_list_keywords(f->st, e, 16, &n, ids, 32, &nids, f->acct, f->inbox, 1);
  fact(out, n);
  for (size_t i = 0; i < n; i++) {
    fact(out, e[i].entry.uid);
    fact(out, e[i].entry.flags);
    fact(out, e[i].first);
    fact(out, e[i].count);
  }
  fact(out, nids);
  for (size_t i = 0; i < nids; i++)
    fact(out, ids[i]);
  return rc;
}

static int rd_mailbox_keywords(struct fx *f, struct facts *out) {
  uint32_t ids[32];
  size_t n = 0;
  int rc = ms_mailbox_keywords(f->st, ids, 32, &n, f->acct, f->inbox);
  fact(out, n);
  for (size_t i = 0; i < n; i++)
    fact(out, ids[i]);
  return rc;
}

static int rd_mailbox_changes(struct fx *f, struct facts *out) {
  struct ms_entry e[16];
  uint32_t vanished[16];
  size_t n = 0, nv = 0;
  int rc = ms_mailbox_changes(f->st, e, 16, &n, vanished, 16, &nv, f->acct, f->inbox, 3);
  fact(out, n);
  for (size_t i = 0; i < n; i++) {
    fact(out, e[i].uid);
    fact(out, e[i].modseq);
  }
  fact(out, nv);
  for (size_t i = 0; i < nv; i++)
    fact(out, vanished[i]);
  return rc;
}

static int rd_account_changes(struct fx *f, struct facts *out) {
  struct ms_change ch[64];
  size_t n = 0;
  uint64_t state = 0;
  int more = 0;
  int rc = ms_account_changes(f->st, ch, 64, &n, &state, &more, f->acct,
                              MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, 2, 64);
  fact(out, n);
  for (size_t i = 0; i < n; i++) {
    fact(out, ch[i].kind);
    fact(out, ch[i].type);
    fact(out, ch[i].id);
  }
  fact(out, state);
  fact(out, (uint64_t)more);
  return rc;
}

static int rd_read(struct fx *f, struct facts *out) {
  static uint8_t buf[MAIL_CAP];
  size_t len = 0;
  int rc = ms_message_read(f->st, buf, sizeof buf, &len, f->acct, f->ids[5]);
  fact_bytes(out, buf, rc == 0 ? len : 0);
  return rc;
}

static int rd_read_range(struct fx *f, struct facts *out) {
  static uint8_t buf[MAIL_CAP];
  size_t len = 0;
  int rc = ms_message_read_range(f->st, buf, sizeof buf, &len, f->acct, f->ids[5], 500, 700);
  fact_bytes(out, buf, rc == 0 ? len : 0);
  return rc;
}

static int rd_summary(struct fx *f, struct facts *out) {
  static uint8_t buf[16384];
  struct ms_summary s;
  size_t used = 0;
  int rc = ms_message_summary_get(f->st, &s, buf, sizeof buf, &used, f->acct, f->ids[2]);
  fact(out, s.flags);
  fact(out, (uint64_t)s.date);
  fact_bytes(out, buf, rc == 0 ? used : 0);
  return rc;
}

static int rd_sort(struct fx *f, struct facts *out) {
  uint32_t keys[2] = {MS_SORT_SUBJECT, MS_SORT_DATE | MS_SORT_REVERSE}, uids[16];
  size_t n = 0, total = 0;
  int rc = ms_mailbox_sort(f->st, uids, 16, &n, &total, f->acct, f->inbox, NULL, 0, keys, 2, 0);
  fact(out, n);
  fact(out, total);
  for (size_t i = 0; i < n; i++)
    fact(out, uids[i]);
  return rc;
}

static int rd_sort_subset(struct fx *f, struct facts *out) {
  uint32_t keys[1] = {MS_SORT_FROM}, sel[4] = {4, 2, 2, 5}, uids[16];
  size_t n = 0, total = 0;
  int rc = ms_mailbox_sort(f->st, uids, 16, &n, &total, f->acct, f->inbox, sel, 4, keys, 1, 1);
  fact(out, n);
  fact(out, total);
  for (size_t i = 0; i < n; i++)
    fact(out, uids[i]);
  return rc;
}

static int rd_thread(struct fx *f, struct facts *out, int algorithm) {
  char buf[256];
  size_t len = 0, threads = 0;
  int rc = ms_mailbox_thread(f->st, buf, sizeof buf, &len, &threads, f->acct, f->inbox, NULL, 0,
                             algorithm);
  fact(out, threads);
  fact_bytes(out, buf, rc == 0 ? len : 0);
  return rc;
}

static int rd_thread_references(struct fx *f, struct facts *out) {
  return rd_thread(f, out, MS_THREAD_REFERENCES);
}

static int rd_thread_subject(struct fx *f, struct facts *out) {
  return rd_thread(f, out, MS_THREAD_ORDEREDSUBJECT);
}

static int rd_verify(struct fx *f, struct facts *out) {
  (void)out;
  return ms_store_verify(f->st, NULL);
}

static int rd_keyword_find(struct fx *f, struct facts *out) {
  uint32_t id = 0;
  int rc = ms_keyword_find(f->st, &id, f->acct, "$LABEL1", 7);
  fact(out, id);
  return rc;
}

static int rd_keyword_count(struct fx *f, struct facts *out) {
  uint32_t count = 0, max = 0;
  int rc = ms_keyword_count(f->st, &count, &max, f->acct);
  fact(out, count);
  fact(out, max);
  return rc;
}

START_TEST(reads_each_failure) {
  struct fx f;
  fx_open(&f);
  // Some history for the change calls: a flag change, a move, an expunge.
  uint32_t two = 2, three = 3;
  ck_assert_int_eq(ms_flags_store(f.st, f.acct, f.inbox, &two, 1, MS_FLAG_ANSWERED, 0), 1);
  ck_assert_int_eq(ms_messages_move(f.st, NULL, f.acct, f.inbox, f.work, &three, 1), 1);
  const struct {
    const char *what;
    read_op op;
  } reads[] = {
      {"mailbox_list", rd_list},
      {"mailbox_list_keywords", rd_list_keywords},
      {"mailbox_keywords", rd_mailbox_keywords},
      {"mailbox_changes", rd_mailbox_changes},
      {"account_changes", rd_account_changes},
      {"message_read", rd_read},
      {"message_read_range", rd_read_range},
      {"mailbox_sort", rd_sort},
      {"mailbox_sort subset", rd_sort_subset},
      {"mailbox_thread references", rd_thread_references},
      {"mailbox_thread orderedsubject", rd_thread_subject},
      {"store_verify", rd_verify},
      {"keyword_find", rd_keyword_find},
      {"keyword_count", rd_keyword_count},
  };
  for (size_t i = 0; i < sizeof reads / sizeof *reads; i++)
    walk_read(&f, (enum test_fault)_i, reads[i].what, reads[i].op);
  fx_close(&f);
}
END_TEST

// mail writes message n of a kind a dictionary can learn from (as
// test_dict.c's, shorter).
static size_t dict_mail(char *buf, size_t cap, unsigned n) {
  static const char *const words[] = {"meeting", "report", "budget",   "release", "schedule",
                                      "please",  "review", "thanks",   "update",  "project",
                                      "the",     "and",    "deadline", "next",    "week"};
  uint32_t h = n * 2654435761u;
  int k = snprintf(buf, cap,
                   "Received: from relay%u.example.net by mx.example.org with ESMTPS\r\n"
                   "From: sender%u@example.com\r\nTo: alice@example.org\r\n"
                   "Subject: weekly report %u\r\nMessage-ID: <%u.%08x@example.com>\r\n"
                   "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
                   n % 5, n % 7, n, n, h);
  size_t len = (size_t)k;
  for (unsigned i = 0; i < 60 + n % 40 && len + 16 < cap; i++) {
    h = h * 1103515245u + 12345u;
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", words[(h >> 16) % 15],
                            i % 10 == 9 ? "\r\n" : " ");
  }
  len += (size_t)snprintf(buf + len, cap - len, "\r\n");
  return len;
}

static int rd_read_dict(struct fx *f, struct facts *out) {
  static uint8_t buf[MAIL_CAP];
  size_t len = 0;
  int rc = ms_message_read(f->st, buf, sizeof buf, &len, f->acct, f->ids[0]);
  fact_bytes(out, buf, rc == 0 ? len : 0);
  return rc;
}

// train_fixture is the fixture with 24 more messages in Work, enough to
// train a dictionary on.
static void train_fixture(struct fx *f) {
  fx_open(f);
  char buf[MAIL_CAP];
  for (unsigned n = 0; n < 24; n++) {
    size_t len = dict_mail(buf, sizeof buf, n);
    put_mail(f, f->acct, f->work, buf, len, 0, 1793200000 + n);
  }
}

// deliver_and_read stores one more message and reads it back.
static void deliver_and_read(struct fx *f, unsigned n) {
  char buf[MAIL_CAP];
  static uint8_t back[MAIL_CAP];
  size_t len = dict_mail(buf, sizeof buf, n), got_len = 0;
  uint64_t id = put_mail(f, f->acct, f->inbox, buf, len, 0, 1793300000);
  ck_assert_int_eq(ms_message_read(f->st, back, sizeof back, &got_len, f->acct, id), 0);
  ck_assert_uint_eq(got_len, len);
  ck_assert_mem_eq(back, buf, len);
}

// Training leaves no dictionary behind once it failed, so each step
// trains a fresh store. This handle's taking up of the new dictionary,
// after it is stored, cannot fail the call (store.c: the next delivery
// takes it up anyway): an allocation failing there leaves the dictionary
// stored and the call successful.
START_TEST(train_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct fx f;
    train_fixture(&f);
    snap(&f, &before);
    uint32_t id = 0;
    test_fault_arm(kind, n);
    int rc = ms_store_train(f.st, &id, 0);
    bool fired = test_fault_disarm(kind);
    struct ms_store_stats s;
    if (rc == 0) {
      require(id == 1, "train: %s %lu: dictionary %u", fault, n, id);
      require(ms_store_stats_get(f.st, &s) == 0 && s.dicts == 1 && s.dict_current == 1,
              "train: %s %lu: no dictionary stored", fault, n);
    } else {
      require(fired && rc == fault_error(kind), "train: %s %lu failed, the call said %s", fault, n,
              ms_strerror(rc));
      snap(&f, &after);
      size_t d = facts_diff(&before, &after);
      require(d == SIZE_MAX, "train: %s %lu failed, yet the store changed (fact %zu)", fault, n, d);
      verify_ok(f.st);
      require(ms_store_train(f.st, &id, 0) == 0 && id == 1, "train: the next call failed");
    }
    // Deliveries go on, the second one with the dictionary whichever way.
    deliver_and_read(&f, 100);
    deliver_and_read(&f, 101);
    verify_ok(f.st);
    fx_close(&f);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

START_TEST(recompress_each_failure) {
  enum test_fault kind = (enum test_fault)_i;
  const char *fault = test_fault_name[kind];
  struct fx f;
  train_fixture(&f);
  uint32_t id = 0;
  ck_assert_int_eq(ms_store_train(f.st, &id, 0), 0);
  // blob_encode's shrinking realloc may fail and the blob keep its bound
  // sized block: such a run re-encodes its 3 blobs as a sound one does
  // (the store holds 32 blobs, enough for every such run), so the walk
  // goes on with the next blobs.
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    struct ms_store_stats s0, s1;
    require(ms_store_stats_get(f.st, &s0) == 0, "stats");
    snap(&f, &before);
    test_fault_arm(kind, n);
    int rc = ms_store_recompress(f.st, 3);
    bool fired = test_fault_disarm(kind);
    require(rc == 3 || (fired && rc == fault_error(kind)), "recompress: %s %lu: %s (%d)", fault, n,
            ms_strerror(rc), rc);
    require(ms_store_stats_get(f.st, &s1) == 0, "stats");
    if (rc == 3) {
      require(s1.dict_blobs == s0.dict_blobs + 3 && s1.blobs == s0.blobs &&
                  s1.blob_raw == s0.blob_raw,
              "recompress: %s %lu: %lu of %lu blobs with the dictionary", fault, n,
              (unsigned long)s1.dict_blobs, (unsigned long)s1.blobs);
    } else {
      snap(&f, &after);
      size_t d = facts_diff(&before, &after);
      require(d == SIZE_MAX, "recompress: %s %lu failed, yet the store changed (%zu)", fault, n, d);
    }
    verify_ok(f.st);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  // A message delivered now is compressed with the dictionary, which a
  // fresh handle loads to read it.
  char buf[MAIL_CAP];
  size_t len = dict_mail(buf, sizeof buf, 99);
  f.ids[0] = put_mail(&f, f.acct, f.inbox, buf, len, 0, 1793300000);
  walk_read(&f, FAULT_ALLOC, "message_read with dictionary", rd_read_dict);
  fx_close(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailstore-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, store_open_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_test(tc, append_each_allocation);
  tcase_add_loop_test(tc, deliver_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, flags_and_keywords_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, copy_move_expunge_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, mailbox_rename_delete_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_test(tc, allocation_free_calls);
  tcase_add_test(tc, summarize_each_allocation);
  tcase_add_loop_test(tc, reads_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, train_each_failure, FAULT_ALLOC, FAULT_KINDS);
  tcase_add_loop_test(tc, recompress_each_failure, FAULT_ALLOC, FAULT_KINDS);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
