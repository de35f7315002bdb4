// test_changes.c: the per-account change log (JMAP /changes, RFC 8620
// section 5.2) against a real store: the net changes of sequences of
// deliveries, flag and keyword changes, copy, move, expunge and mailbox
// create, rename, subscribe and delete; paging with max_changes checked
// against a client model replaying the pages; the retention bound by count,
// by age and by one oversized transaction; and QRESYNC VANISHED reporting
// MS_ERR_EXPIRED once its history is pruned.
#include "corvid_libtest.h"
#include "store_util.h"

#include <unistd.h>

static char *dir;
static ms_store *st;
static uint32_t acc, inbox, arch;
static struct ms_settings settings;

static void open_store(void) {
  ck_assert_int_eq(ms_store_open(&st, dir, &settings), 0);
}

static void setup(void) {
  dir = tmp_store_dir();
  settings = (struct ms_settings){.no_sync = 1};
  open_store();
  ck_assert_int_eq(ms_account_create(st, &acc, "alice", 5, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, acc, "Archive", 7, MS_ROLE_ARCHIVE), 0);
}

static void teardown(void) {
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
  ms_store_close(st);
  rm_store_dir(dir);
}

// reopen applies changed settings.
static void reopen(void) {
  ms_store_close(st);
  open_store();
}

static uint64_t state(void) {
  uint64_t s;
  ck_assert_int_eq(ms_account_state(st, &s, acc), 0);
  return s;
}

static uint64_t add(uint32_t mb, unsigned n) {
  char buf[512];
  size_t len = make_message(buf, sizeof buf, n, 30);
  uint64_t id;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acc, mb, (uint8_t *)buf, len, 0, n), 0);
  return id;
}

// changes fetches everything of `kinds` since `since` in one call and
// returns the type of object id (0 if absent) through find().
static struct ms_change got[256];
static size_t ngot;

static int changes(uint32_t kinds, uint64_t since) {
  uint64_t ns;
  int more;
  int rc = ms_account_changes(st, got, 256, &ngot, &ns, &more, acc, kinds, since, 256);
  if (rc == 0) {
    ck_assert_int_eq(more, 0);
    ck_assert_uint_eq(ns, state());
  }
  return rc;
}

static uint32_t find(uint32_t kind, uint64_t id) {
  for (size_t i = 0; i < ngot; i++)
    if (got[i].kind == kind && got[i].id == id)
      return got[i].type;
  return 0;
}

START_TEST(sequences) {
  uint64_t s0 = state();
  ck_assert_uint_ge(s0, 2); // the two mailboxes
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX, 0), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, inbox), MS_CHANGE_CREATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, arch), MS_CHANGE_CREATED);

  uint64_t m1 = add(inbox, 1), m2 = add(inbox, 2), m3 = add(inbox, 3);
  uint64_t s1 = state();
  ck_assert_uint_gt(s1, s0);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), 0);
  ck_assert_uint_eq(ngot, 3);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m1), MS_CHANGE_CREATED);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m3), MS_CHANGE_CREATED);
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX, s0), 0);
  ck_assert_uint_eq(ngot, 1);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, inbox), MS_CHANGE_COUNTS);
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX | MS_CHANGE_MESSAGE, s0), 0);
  ck_assert_uint_eq(ngot, 4);

  // Flags: \Flagged changes no count; \Seen does.
  uint32_t u1 = 1, u2 = 2, u3 = 3;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u1, 1, MS_FLAG_FLAGGED, 0), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, s1), 0);
  ck_assert_uint_eq(ngot, 1);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m1), MS_CHANGE_UPDATED);
  uint64_t s2 = state();
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u1, 1, MS_FLAG_FLAGGED, 0), 0);
  ck_assert_uint_eq(state(), s2); // nothing changed, nothing logged
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u2, 1, MS_FLAG_SEEN, 0), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, s2), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m2), MS_CHANGE_UPDATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, inbox), MS_CHANGE_COUNTS);

  // Keywords.
  uint64_t s3 = state();
  const char *kw[] = {"$Forwarded"};
  size_t kwl[] = {10};
  ck_assert_int_eq(ms_keywords_store(st, acc, inbox, &u3, 1, MS_KEYWORDS_ADD, kw, kwl, 1), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, s3), 0);
  ck_assert_uint_eq(ngot, 1);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m3), MS_CHANGE_UPDATED);

  // Move: the message is updated, both mailboxes' counts change.
  uint64_t s4 = state();
  ck_assert_int_eq(ms_messages_move(st, NULL, acc, inbox, arch, &u3, 1), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE | MS_CHANGE_MAILBOX, s4), 0);
  ck_assert_uint_eq(ngot, 3);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m3), MS_CHANGE_UPDATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, inbox), MS_CHANGE_COUNTS);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, arch), MS_CHANGE_COUNTS);

  // Copy then expunge of the original: updated, not destroyed; expunge of
  // the last membership destroys.
  uint64_t s5 = state();
  ck_assert_int_eq(ms_messages_copy(st, NULL, acc, inbox, arch, &u2, 1), 1);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, &u2, 1), 1);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, &u1, 1), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s5), 0);
  ck_assert_uint_eq(ngot, 2);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m2), MS_CHANGE_UPDATED);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m1), MS_CHANGE_DESTROYED);
  // From s0, m1 was created and destroyed: left out.
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), 0);
  ck_assert_uint_eq(ngot, 2);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m1), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m2), MS_CHANGE_CREATED);

  // Mailboxes: create, rename, subscribe, delete.
  uint64_t s6 = state();
  uint32_t x, xk;
  ck_assert_int_eq(ms_mailbox_create(st, &x, acc, "x", 1, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &xk, acc, "x/kid", 5, 0), 0);
  uint64_t s7 = state();
  ck_assert_int_eq(ms_mailbox_rename(st, acc, x, "y", 1), 0);
  ck_assert_int_eq(ms_mailbox_subscribe(st, acc, arch, 1), 0);
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX, s7), 0);
  ck_assert_uint_eq(ngot, 2);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, x), MS_CHANGE_UPDATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, arch), MS_CHANGE_UPDATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, xk), 0);
  uint64_t m4 = add(xk, 4);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, xk), 0);
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX | MS_CHANGE_MESSAGE, s7), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, xk), MS_CHANGE_DESTROYED);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m4), 0); // created and destroyed
  ck_assert_int_eq(changes(MS_CHANGE_MAILBOX, s6), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, x), MS_CHANGE_CREATED);
  ck_assert_uint_eq(find(MS_CHANGE_MAILBOX, xk), 0);

  // Arguments.
  uint64_t ns;
  int more;
  size_t n;
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, state() + 1), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_changes(st, got, 256, &n, &ns, &more, acc, 0, 0, 10),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_changes(st, got, 256, &n, &ns, &more, acc, 1, 0, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_changes(st, got, 256, &n, &ns, &more, 99, 1, 0, 10), MS_ERR_NOTFOUND);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, state()), 0);
  ck_assert_uint_eq(ngot, 0);
  // The log survives reopening.
  reopen();
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s5), 0);
  ck_assert_uint_eq(find(MS_CHANGE_MESSAGE, m1), MS_CHANGE_DESTROYED);
}
END_TEST

// A client model of the message ids: replaying pages of at most max
// changes from state 0 must end with exactly the stored messages.
static uint64_t model[4096];
static size_t nmodel;

static void model_apply(const struct ms_change *c) {
  size_t i = 0;
  while (i < nmodel && model[i] != c->id)
    i++;
  if (c->type == MS_CHANGE_CREATED) {
    ck_assert_uint_eq(i, nmodel);
    model[nmodel++] = c->id;
  } else if (c->type == MS_CHANGE_DESTROYED) {
    // A page may destroy what an earlier page created, never something
    // unknown unless it was created before the first state asked.
    if (i < nmodel)
      model[i] = model[--nmodel];
  } else {
    ck_assert_uint_lt(i, nmodel);
  }
}

START_TEST(paging) {
  srand(7);
  uint32_t uids[64];
  for (unsigned round = 0; round < 60; round++) {
    add(rand() % 2 ? inbox : arch, round);
    uint32_t mb = rand() % 2 ? inbox : arch;
    for (unsigned i = 0; i < 4; i++)
      uids[i] = 1 + (uint32_t)rand() % (round + 1);
    switch (rand() % 4) {
    case 0:
      ck_assert_int_ge(ms_flags_store(st, acc, mb, uids, 4, MS_FLAG_SEEN, 0), 0);
      break;
    case 1:
      ck_assert_int_ge(ms_messages_expunge(st, acc, mb, uids, 2), 0);
      break;
    case 2:
      ck_assert_int_ge(ms_messages_move(st, NULL, acc, mb, mb == inbox ? arch : inbox, uids, 3), 0);
      break;
    default:
      ck_assert_int_ge(ms_messages_copy(st, NULL, acc, mb, mb == inbox ? arch : inbox, uids, 1), 0);
    }
  }
  for (size_t max = 1; max <= 17; max += 4) {
    nmodel = 0;
    uint64_t since = 0, last = 0;
    int more = 1, pages = 0;
    while (more) {
      struct ms_change page[32];
      size_t n;
      uint64_t ns;
      ck_assert_int_eq(
          ms_account_changes(st, page, 32, &n, &ns, &more, acc, MS_CHANGE_MESSAGE, since, max), 0);
      ck_assert_uint_le(n, max);
      if (more)
        ck_assert_uint_gt(ns, since);
      for (size_t i = 0; i < n; i++)
        model_apply(&page[i]);
      since = ns;
      last = ns;
      ck_assert_int_lt(++pages, 10000);
    }
    ck_assert_uint_eq(last, state());
    // The model holds exactly the stored messages.
    size_t stored = 0;
    uint32_t boxes[] = {inbox, arch};
    for (int b = 0; b < 2; b++) {
      struct ms_entry e[512];
      size_t ne;
      ck_assert_int_eq(ms_mailbox_list(st, e, 512, &ne, acc, boxes[b], 1), 0);
      for (size_t i = 0; i < ne; i++) {
        size_t j = 0;
        while (j < nmodel && model[j] != e[i].message_id)
          j++;
        ck_assert_msg(j < nmodel, "message %llu missing from the model",
                      (unsigned long long)e[i].message_id);
      }
      stored += ne;
    }
    struct ms_account_info ai;
    ck_assert_int_eq(ms_account_get(st, &ai, acc), 0);
    ck_assert_uint_eq(nmodel, ai.used_messages);
    ck_assert_uint_le(nmodel, stored);
  }
}
END_TEST

START_TEST(retention_by_count) {
  settings.changes_keep = 16;
  reopen();
  uint64_t s0 = state();
  for (unsigned i = 0; i < 8; i++)
    add(inbox, i);
  uint64_t s1 = state();
  // 16 + 16/8 = 18 entries are kept before a prune: 2 mailboxes, 8
  // messages and their 8 counts entries.
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), 0);
  ck_assert_uint_eq(ngot, 8);
  uint32_t u;
  for (u = 1; u <= 8; u++)
    ck_assert_int_eq(ms_flags_store(st, acc, inbox, &u, 1, MS_FLAG_FLAGGED, 0), 1);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), MS_ERR_EXPIRED);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, 0), MS_ERR_EXPIRED);
  // The 16 newest entries are answerable.
  uint64_t now = state();
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, now - 16), 0);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, now - 8), 0);
  ck_assert_uint_eq(ngot, 8);
  ck_assert_uint_gt(now, s1);

  // One transaction logging more than the log keeps leaves only its own
  // end answerable.
  uint32_t all[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint64_t before = state();
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, all, 8, MS_FLAG_SEEN, 0), 8);
  ck_assert_int_eq(ms_messages_copy(st, NULL, acc, inbox, arch, all, 8), 8);
  ck_assert_int_eq(ms_messages_move(st, NULL, acc, arch, inbox, all, 8), 8);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, all, 8, MS_FLAG_DRAFT, 0), 8);
  settings.changes_keep = 4;
  reopen();
  uint64_t mid = state();
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  struct ms_entry e[8];
  uint32_t van[8];
  size_t ne, nv;
  ck_assert_int_eq(ms_mailbox_changes(st, e, 8, &ne, van, 8, &nv, acc, inbox, mi.highest_modseq),
                   0);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, all, 8, MS_FLAG_ANSWERED, 0), 8);
  // QRESYNC still answers from before the oversized STORE: its VANISHED
  // history is complete.
  ck_assert_int_eq(ms_mailbox_changes(st, e, 8, &ne, van, 8, &nv, acc, inbox, mi.highest_modseq),
                   0);
  ck_assert_uint_eq(ne, 8);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, before), MS_ERR_EXPIRED);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, mid), MS_ERR_EXPIRED);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, state()), 0);
  ck_assert_uint_eq(ngot, 0);
  ck_assert_uint_eq(state(), mid + 8);
}
END_TEST

START_TEST(retention_by_age) {
  settings.changes_keep_seconds = 1;
  reopen();
  uint64_t s0 = state();
  add(inbox, 1);
  uint64_t s1 = state();
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), 0);
  ck_assert_uint_eq(ngot, 1);
  sleep(2);
  add(inbox, 2);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s0), MS_ERR_EXPIRED);
  ck_assert_int_eq(changes(MS_CHANGE_MESSAGE, s1), 0);
  ck_assert_uint_eq(ngot, 1);
}
END_TEST

START_TEST(vanished_retention) {
  settings.changes_keep = 8;
  reopen();
  for (unsigned i = 0; i < 20; i++)
    add(inbox, i);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  uint64_t m0 = mi.highest_modseq;
  struct ms_entry e[32];
  uint32_t van[32];
  size_t ne, nv;
  // Each expunge logs two entries (message, counts); with 8 kept the
  // oldest expunges' VANISHED entries are pruned.
  uint64_t at[21];
  for (uint32_t u = 1; u <= 20; u++) {
    ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, &u, 1), 1);
    ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
    at[u] = mi.highest_modseq;
  }
  ck_assert_int_eq(ms_mailbox_changes(st, e, 32, &ne, van, 32, &nv, acc, inbox, m0),
                   MS_ERR_EXPIRED);
  ck_assert_uint_lt(nv, 20);
  // The last three expunges are surely answerable: 6 entries.
  ck_assert_int_eq(ms_mailbox_changes(st, e, 32, &ne, van, 32, &nv, acc, inbox, at[17]), 0);
  ck_assert_uint_eq(nv, 3);
  ck_assert_uint_eq(van[0], 18);
  ck_assert_uint_eq(van[2], 20);
  // Some MODSEQ in between is the bound: below it EXPIRED, from it on
  // complete.
  uint32_t first_ok = 0;
  for (uint32_t u = 1; u <= 20 && !first_ok; u++)
    if (ms_mailbox_changes(st, e, 32, &ne, van, 32, &nv, acc, inbox, at[u]) == 0)
      first_ok = u;
  ck_assert_uint_gt(first_ok, 1);
  ck_assert_uint_eq(nv, 20 - first_ok);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 32, &ne, van, 32, &nv, acc, inbox, at[first_ok - 1]),
                   MS_ERR_EXPIRED);
  // Another mailbox's history is pruned by the same bound.
  ck_assert_int_eq(ms_mailbox_changes(st, e, 32, &ne, van, 32, &nv, acc, arch, m0), MS_ERR_EXPIRED);
}
END_TEST

int main(void) {
  Suite *s = suite_create("changes");
  TCase *tc = tcase_create("changes");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, sequences);
  tcase_add_test(tc, paging);
  tcase_add_test(tc, retention_by_count);
  tcase_add_test(tc, retention_by_age);
  tcase_add_test(tc, vanished_retention);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
