// test_verify_damage.c: the checks of ms_store_verify (and the corruption
// returns of collect, statistics and rename) that test_verify.c does not
// reach: mailbox and account records, MODSEQ and UIDNEXT bounds, account
// usage, missing blobs, summaries, the thread index, keyword tables and the
// change log. Each test builds a small sound store through the public API,
// damages exactly one thing through a raw LMDB handle, as another program
// or a torn write would, reopens the store and expects the diagnostic meant
// for that damage, with its numbers, not merely some diagnostic. Where an
// earlier check would see the damage first, the damage is chosen so that
// the check under test is the first to see it; the comment says how.
//
// Three checks are left untested because an earlier check in the same
// read transaction sees every damage that could reach them: "a UID record
// names a message that does not exist" (pass 1 loads each UID's message),
// the failed account load in the usage check (pass 1 loads the account of
// every mailbox holding a message), and keywords.c's "a uid record does not
// decode" (pass 1 decodes every uid record of a mailbox and counts the
// others as belonging to no mailbox).
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

static char *dir;
static ms_store *st;
static uint32_t alice, inbox, arch, bob, bob_inbox;
static struct ms_mailbox_info inbox_info, arch_info;
static struct ms_account_info alice_info;
static uint64_t live_bytes; // sizes of messages 2 and 3, the ones left

static void le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v) {
  le32(p, (uint32_t)v);
  le32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

// alice: messages 1..3 delivered to INBOX as UIDs 1..3 (message ids 1..3),
// message 3 copied to Archive, UID 1 expunged (message 1 destroyed, its
// blob reference queued for collect). bob: an empty INBOX, so that he has
// a change log but no uid records and no messages. The store passes
// verification before each test damages it.
static void setup(void) {
  new_store(&dir, &st, NULL, "alice", &alice, &inbox);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, alice, "Archive", 7, MS_ROLE_ARCHIVE), 0);
  char buf[1024];
  live_bytes = 0;
  for (unsigned n = 1; n <= 3; n++) {
    size_t len = make_message(buf, sizeof buf, n, 200);
    uint64_t id;
    uint32_t uid;
    ck_assert_int_eq(ms_message_append(st, &id, &uid, alice, inbox, (uint8_t *)buf, len, 0, n), 0);
    ck_assert_uint_eq(id, n);
    ck_assert_uint_eq(uid, n);
    if (n > 1)
      live_bytes += len;
  }
  uint32_t one = 1, three = 3, out;
  ck_assert_int_eq(ms_messages_copy(st, &out, alice, inbox, arch, &three, 1), 1);
  ck_assert_int_eq(ms_messages_expunge(st, alice, inbox, &one, 1), 1);
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &bob_inbox, bob, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_get(st, &inbox_info, alice, inbox), 0);
  ck_assert_int_eq(ms_mailbox_get(st, &arch_info, alice, arch), 0);
  ck_assert_int_eq(ms_account_get(st, &alice_info, alice), 0);
  verify_ok(st);
  ms_store_close(st);
  st = NULL;
}

static void teardown(void) {
  ms_store_close(st);
  st = NULL;
  rm_store_dir(dir);
}

// raw_edit_u64 replaces the little-endian u64 at `off` of the value at
// `key` in DBI `dbi` with `value`, and returns the old value.
static uint64_t raw_edit_u64(const char *dbi, const uint8_t *key, size_t klen, size_t off,
                             uint64_t value) {
  struct raw r = raw_begin(dir, dbi);
  size_t n;
  uint8_t *v = raw_get(&r, key, klen, &n);
  ck_assert_uint_le(off + 8, n);
  uint64_t old = get_le64(v + off);
  le64(v + off, value);
  raw_put(&r, key, klen, v, n);
  free(v);
  raw_commit(&r);
  return old;
}

static void raw_edit_u32(const char *dbi, const uint8_t *key, size_t klen, size_t off,
                         uint32_t value) {
  struct raw r = raw_begin(dir, dbi);
  size_t n;
  uint8_t *v = raw_get(&r, key, klen, &n);
  ck_assert_uint_le(off + 4, n);
  le32(v + off, value);
  raw_put(&r, key, klen, v, n);
  free(v);
  raw_commit(&r);
}

static void reopen(void) {
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
}

// expect_bad reopens the damaged store and asserts that verify fails with
// exactly the diagnostic printf formats from `fmt`.
__attribute__((format(printf, 1, 2))) static void expect_bad(const char *fmt, ...) {
  char want[sizeof((struct ms_diag *)0)->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  if (st == NULL)
    reopen();
  struct ms_diag dg;
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_int_eq(dg.code, MS_ERR_CORRUPT);
  ck_assert_msg(strcmp(dg.message, want) == 0, "verify said \"%s\", expected \"%s\"", dg.message,
                want);
}

// ---- store.c: mailboxes, accounts, uid records ----

// Archive's record carries an unknown record version: the mailbox walk,
// verify's first step, cannot read its counts.
START_TEST(mailbox_record_does_not_decode) {
  uint8_t k[8];
  raw_mbox_key(k, alice, arch);
  ck_assert_uint_eq(raw_patch(dir, "mailboxes", k, sizeof k, 0, 0x7f), 1);
  expect_bad("a mailbox record does not decode");
}
END_TEST

// The account a mailbox belongs to is gone (bob's, deleted) or does not
// decode (alice's, unknown version): the mailbox's MODSEQ bounds cannot be
// checked. alice's mailboxes come first, so for bob's case they pass.
START_TEST(mailbox_account_missing_or_damaged) {
  uint8_t k[4];
  if (_i == 0) {
    raw_acct_key(k, bob);
    struct raw r = raw_begin(dir, "accounts");
    raw_del(&r, k, sizeof k);
    raw_commit(&r);
    expect_bad("account %u of mailbox %u is missing or does not decode", bob, bob_inbox);
  } else {
    raw_acct_key(k, alice);
    ck_assert_uint_eq(raw_patch(dir, "accounts", k, sizeof k, 0, 0x7f), 1);
    expect_bad("account %u of mailbox %u is missing or does not decode", alice, inbox);
  }
}
END_TEST

// A membership's MODSEQ above its mailbox's HIGHESTMODSEQ (Archive's copy
// raised to the account's MODSEQ, which Archive's is below) or above the
// account's (the account's MODSEQ lowered under INBOX UID 3's): CONDSTORE
// clients asking for changes since the higher value would miss it.
START_TEST(uid_modseq_above_mailbox_or_account) {
  if (_i == 0) {
    ck_assert_uint_lt(arch_info.highest_modseq, alice_info.highest_modseq);
    uint8_t k[12];
    raw_uid_key(k, alice, arch, 1);
    uint64_t old = raw_edit_u64("uids", k, sizeof k, 12, alice_info.highest_modseq);
    ck_assert_uint_le(old, arch_info.highest_modseq);
    expect_bad("account %u mailbox %u UID 1: MODSEQ above the mailbox's or account's", alice, arch);
  } else {
    // UID 2's MODSEQ is its delivery's, below UID 3's; the account's
    // lowered to UID 2's leaves UID 2 sound and UID 3 above it.
    struct ms_entry e[2];
    size_t n;
    reopen();
    ck_assert_int_eq(ms_mailbox_list(st, e, 2, &n, alice, inbox, 2), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_lt(e[0].modseq, e[1].modseq);
    ms_store_close(st);
    st = NULL;
    uint8_t ak[4];
    raw_acct_key(ak, alice);
    raw_edit_u64("accounts", ak, sizeof ak, 33, e[0].modseq);
    expect_bad("account %u mailbox %u UID 3: MODSEQ above the mailbox's or account's", alice,
               inbox);
  }
}
END_TEST

// INBOX's UIDNEXT lowered to its last UID (a new delivery would reuse UID
// 3), or Archive's HIGHESTMODSEQ raised above the account's MODSEQ (its
// uid records stay below both, so the per-UID check passes).
START_TEST(mailbox_uidnext_or_modseq_out_of_range) {
  uint8_t k[8];
  if (_i == 0) {
    raw_mbox_key(k, alice, inbox);
    ck_assert_uint_eq(inbox_info.uidnext, 4);
    raw_edit_u32("mailboxes", k, sizeof k, 14, 3);
    expect_bad("account %u mailbox %u: UID at or above UIDNEXT, or MODSEQ above the account's",
               alice, inbox);
  } else {
    raw_mbox_key(k, alice, arch);
    raw_edit_u64("mailboxes", k, sizeof k, 18, alice_info.highest_modseq + 1);
    expect_bad("account %u mailbox %u: UID at or above UIDNEXT, or MODSEQ above the account's",
               alice, arch);
  }
}
END_TEST

// alice's usage, messages (offset 25) or bytes (offset 17), one more than
// her two message records add up to: quota would refuse too early.
START_TEST(account_usage_disagrees) {
  uint8_t k[4];
  raw_acct_key(k, alice);
  size_t off = _i == 0 ? 25 : 17;
  uint64_t want = _i == 0 ? 2 : live_bytes;
  ck_assert_uint_eq(raw_edit_u64("accounts", k, sizeof k, off, want + 1), want);
  expect_bad("account %u: usage disagrees with its messages (2 messages, %llu bytes)", alice,
             (unsigned long long)live_bytes);
}
END_TEST

// ---- store.c: blobs and the release queue ----

// The blob last in key order is gone. The blob walk compares each blob
// with the references in key order, so a missing blob anywhere else would
// be reported as the next blob's reference count disagreeing; only the
// last can be missed by the walk and found by the count at its end.
START_TEST(blob_missing) {
  struct raw r = raw_begin(dir, "blobs");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_LAST, &kn, &v, &vn);
  ck_assert_uint_eq(kn, 32);
  raw_del(&r, k, kn);
  free(k);
  free(v);
  raw_commit(&r);
  expect_bad("a message names a blob that does not exist");
}
END_TEST

// The blob the release queue names (expunged message 1's, named by nothing
// else) is gone: collect cannot drop its reference, fails, and keeps the
// queue entry.
START_TEST(collect_release_names_missing_blob) {
  struct raw r = raw_begin(dir, "release");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(vn, 32);
  mdb_env_close(r.env);
  r = raw_begin(dir, "blobs");
  raw_del(&r, v, vn);
  raw_commit(&r);
  free(k);
  free(v);
  reopen();
  ck_assert_int_eq(ms_store_collect(st, 0), MS_ERR_CORRUPT);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.released, 1);
  ck_assert_int_eq(ms_store_verify(st, NULL), MS_ERR_CORRUPT);
}
END_TEST

// The queue names that blob twice (a second entry one above the first)
// while the blob counts one reference, so collect would drop a reference
// it does not hold; or the queue entry is cut to 31 bytes and names no
// blob. Either way collect fails and keeps the queue as it was.
START_TEST(collect_release_refcount_or_entry_damaged) {
  struct raw r = raw_begin(dir, "release");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(kn, 8);
  ck_assert_uint_eq(vn, 32);
  uint64_t queued = 1;
  if (_i == 0) {
    k[7]++;
    raw_put(&r, k, kn, v, vn);
    queued = 2;
  } else {
    raw_put(&r, k, kn, v, vn - 1);
  }
  raw_commit(&r);
  free(k);
  free(v);
  reopen();
  ck_assert_int_eq(ms_store_collect(st, 0), MS_ERR_CORRUPT);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.released, queued);
}
END_TEST

// A dictionary record of an unknown version, or under a key that is not a
// 4-byte id: statistics cannot add up dictionary bytes. No blob names it,
// so the blob walk of statistics passes.
START_TEST(stats_dictionary_record_malformed) {
  reopen();
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dicts, 0);
  ms_store_close(st);
  st = NULL;
  struct raw r = raw_begin(dir, "dicts");
  uint8_t k[5] = {0, 0, 0, 1, 0}, v[22] = {1, 1, 0, 0, 0, 1};
  if (_i == 0) {
    v[0] = 0x7f;
    raw_put(&r, k, 4, v, sizeof v);
  } else {
    raw_put(&r, k, 5, v, sizeof v);
  }
  raw_commit(&r);
  reopen();
  ck_assert_int_eq(ms_store_stats_get(st, &s), MS_ERR_CORRUPT);
}
END_TEST

// ---- store.c: rename ----

// Archive/2024's name entry is left while its mailbox record is gone (or
// the name entry's value is not a 4-byte id): renaming Archive must
// rename its child too, cannot, and changes nothing.
START_TEST(rename_child_damaged) {
  reopen();
  uint32_t child, found;
  ck_assert_int_eq(ms_mailbox_create(st, &child, alice, "Archive/2024", 12, 0), 0);
  verify_ok(st);
  ms_store_close(st);
  st = NULL;
  if (_i == 0) {
    struct raw r = raw_begin(dir, "mailboxes");
    uint8_t k[8];
    raw_mbox_key(k, alice, child);
    raw_del(&r, k, sizeof k);
    raw_commit(&r);
  } else {
    struct raw r = raw_begin(dir, "names");
    uint8_t k[5 + 12] = {'M'};
    be32(k + 1, alice);
    memcpy(k + 5, "Archive/2024", 12);
    size_t n;
    uint8_t *v = raw_get(&r, k, sizeof k, &n);
    ck_assert_uint_eq(n, 4);
    raw_put(&r, k, sizeof k, v, 3);
    free(v);
    raw_commit(&r);
  }
  reopen();
  ck_assert_int_eq(ms_mailbox_rename(st, alice, arch, "Old", 3), MS_ERR_CORRUPT);
  ck_assert_int_eq(ms_mailbox_find(st, &found, alice, "Archive", 7), 0);
  ck_assert_uint_eq(found, arch);
  ck_assert_int_eq(ms_mailbox_find(st, &found, alice, "Old", 3), MS_ERR_NOTFOUND);
}
END_TEST

// ---- summary.c ----

// Message 2's summary carries an unknown record version; nothing before
// the summary walk reads summaries.
START_TEST(summary_record_does_not_decode) {
  uint8_t k[12];
  raw_msg_key(k, alice, 2);
  ck_assert_uint_eq(raw_patch(dir, "summaries", k, sizeof k, 0, 0x7f), 1);
  expect_bad("a summary record does not decode");
}
END_TEST

// The first thread index entry made malformed four ways: a key one byte
// short, a kind that is neither Message-ID nor subject, a value one byte
// short, and thread id 0.
START_TEST(thread_index_entry_malformed) {
  struct raw r = raw_begin(dir, "threads");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(kn, 21);
  ck_assert_uint_eq(vn, 8);
  ck_assert_uint_ne(get_le64(v), 0);
  switch (_i) {
  case 0:
    raw_del(&r, k, kn);
    raw_put(&r, k, kn - 1, v, vn);
    break;
  case 1:
    raw_del(&r, k, kn);
    k[4] = 'X';
    raw_put(&r, k, kn, v, vn);
    break;
  case 2:
    raw_put(&r, k, kn, v, vn - 1);
    break;
  default:
    le64(v, 0);
    raw_put(&r, k, kn, v, vn);
    break;
  }
  free(k);
  free(v);
  raw_commit(&r);
  expect_bad("a thread index entry is malformed");
}
END_TEST

// ---- keywords.c ----

static void kw_put(struct raw *r, uint32_t account, unsigned id, const char *name) {
  uint8_t k[6];
  be32(k, account);
  k[4] = (uint8_t)(id >> 8);
  k[5] = (uint8_t)id;
  raw_put(r, k, sizeof k, (const uint8_t *)name, strlen(name));
}

// A keyword table for account 99, which does not exist. No uid record
// names account 99, so the table is met only by the walk over tables.
START_TEST(keyword_table_without_account) {
  struct raw r = raw_begin(dir, "keywords");
  kw_put(&r, 99, 0, "x");
  raw_commit(&r);
  expect_bad("the keyword table of account 99 belongs to no account");
}
END_TEST

// bob's table damaged: "Junk" and "jUNK" (equal ignoring ASCII case, as
// IMAP compares keywords), a gap at id 0, or a name that is not an atom.
// The tables are checked before the uid walk loads any of them.
START_TEST(keyword_table_damaged) {
  struct raw r = raw_begin(dir, "keywords");
  const char *why;
  switch (_i) {
  case 0:
    kw_put(&r, bob, 0, "Junk");
    kw_put(&r, bob, 1, "jUNK");
    why = "has a name twice";
    break;
  case 1:
    kw_put(&r, bob, 1, "Junk");
    why = "has a gap in its ids";
    break;
  default:
    kw_put(&r, bob, 0, "a(b");
    why = "has a name that is not an atom";
    break;
  }
  raw_commit(&r);
  expect_bad("the keyword table of account %u %s", bob, why);
}
END_TEST

// ---- changelog.c ----

// The change log head of `account`, its fields edited: next sequence
// number (offset 1), floor (9), count (25).
static void head_edit(uint32_t account, size_t off, uint64_t value) {
  uint8_t k[4];
  raw_acct_key(k, account);
  raw_edit_u64("changes", k, sizeof k, off, value);
}

struct clhead {
  uint64_t next_seq, floor, count;
};

static struct clhead head_get(uint32_t account) {
  struct raw r = raw_begin(dir, "changes");
  uint8_t k[4];
  raw_acct_key(k, account);
  size_t n;
  uint8_t *v = raw_get(&r, k, sizeof k, &n);
  ck_assert_uint_eq(n, 33);
  struct clhead h = {get_le64(v + 1), get_le64(v + 9), get_le64(v + 25)};
  free(v);
  mdb_env_close(r.env);
  // Nothing was pruned: the kept entries run from 1 to next_seq - 1.
  ck_assert_uint_eq(h.floor, 0);
  ck_assert_uint_eq(h.count, h.next_seq - 1);
  ck_assert_uint_ge(h.count, 1);
  return h;
}

// Each way a change log stops describing itself. The head's decoder
// refuses a count above next_seq - 1 - floor, so the range and count
// cases lower the count with the bound they move, and the range is the
// first thing to fail.
START_TEST(change_log_damaged) {
  struct clhead h = head_get(alice);
  ck_assert_uint_ge(h.count, 2); // so that entry 1 lies below the last
  uint8_t k[12];
  uint32_t who = alice;
  const char *why = NULL;
  switch (_i) {
  case 0: { // alice's head of an unknown record version
    raw_acct_key(k, alice);
    raw_patch(dir, "changes", k, 4, 0, 0x7f);
    why = "a head record does not decode or has no account";
    break;
  }
  case 1: { // a sound head (a copy of bob's) for account 99, which does not exist
    struct raw r = raw_begin(dir, "changes");
    size_t n;
    raw_acct_key(k, bob);
    uint8_t *v = raw_get(&r, k, 4, &n);
    raw_acct_key(k, 99);
    raw_put(&r, k, 4, v, n);
    free(v);
    raw_commit(&r);
    who = 99;
    why = "a head record does not decode or has no account";
    break;
  }
  case 2: { // alice's first entry of kind 0x7f
    be32(k, alice);
    be64(k + 4, 1);
    ck_assert_uint_ge(raw_patch(dir, "changes", k, sizeof k, 0, 0x7f), 1);
    why = "an entry does not decode or has no head";
    break;
  }
  case 3: // the floor raised over entry 1
    head_edit(alice, 25, h.count - 1);
    head_edit(alice, 9, 1);
    why = "an entry lies outside its head's range";
    break;
  case 4: // next_seq lowered onto the last entry
    head_edit(alice, 25, h.count - 1);
    head_edit(alice, 1, h.next_seq - 1);
    why = "an entry lies outside its head's range";
    break;
  case 5: // alice's count one short: found when bob's head follows
    head_edit(alice, 25, h.count - 1);
    why = "kept entries do not match the head's count";
    break;
  default: { // bob's count one short: found at the end of the walk
    struct clhead hb = head_get(bob);
    head_edit(bob, 25, hb.count - 1);
    who = bob;
    why = "kept entries do not match the head's count";
    break;
  }
  }
  expect_bad("change log of account %u: %s", who, why);
}
END_TEST

// bob has no messages but his account claims usage: verify once only
// decoded such accounts' records.
START_TEST(usage_without_messages) {
  uint8_t k[4];
  raw_acct_key(k, bob);
  ck_assert_uint_eq(raw_edit_u64("accounts", k, sizeof k, 25, 1), 0);
  expect_bad("account %u: usage disagrees with its messages (0 messages, 0 bytes)", bob);
}
END_TEST

// A 5-byte key in bob's keyword table: the message names bob, the account
// whose prefix the key carries (it once named the table walked before).
START_TEST(keyword_key_length_names_account) {
  struct raw r = raw_begin(dir, "keywords");
  uint8_t k[5];
  be32(k, bob);
  k[4] = 0;
  raw_put(&r, k, sizeof k, (const uint8_t *)"x", 1);
  raw_commit(&r);
  expect_bad("the keyword table of account %u has a key of the wrong length", bob);
}
END_TEST

// An entry of account 99, which has no change log head: the message names
// account 99 (it once named the account of the head before it).
START_TEST(change_entry_without_head_names_account) {
  struct raw r = raw_begin(dir, "changes");
  uint8_t k[12], v[26] = {1, 1, 1};
  be32(k, 99);
  be64(k + 4, 1);
  raw_put(&r, k, sizeof k, v, sizeof v);
  raw_commit(&r);
  expect_bad("change log of account 99: an entry does not decode or has no head");
}
END_TEST

// Archive/2024's name entry left without its mailbox record: rename
// refuses such a store as corrupt, and verify, which once passed it, says
// why.
START_TEST(name_without_mailbox) {
  reopen();
  uint32_t child;
  ck_assert_int_eq(ms_mailbox_create(st, &child, alice, "Archive/2024", 12, 0), 0);
  ms_store_close(st);
  st = NULL;
  struct raw r = raw_begin(dir, "mailboxes");
  uint8_t k[8];
  raw_mbox_key(k, alice, child);
  raw_del(&r, k, sizeof k);
  raw_commit(&r);
  expect_bad("account %u: the name entry of mailbox %u leads to no mailbox of that name", alice,
             child);
}
END_TEST

int main(void) {
  Suite *s = suite_create("verify_damage");
  TCase *tc = tcase_create("verify_damage");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, mailbox_record_does_not_decode);
  tcase_add_loop_test(tc, mailbox_account_missing_or_damaged, 0, 2);
  tcase_add_loop_test(tc, uid_modseq_above_mailbox_or_account, 0, 2);
  tcase_add_loop_test(tc, mailbox_uidnext_or_modseq_out_of_range, 0, 2);
  tcase_add_loop_test(tc, account_usage_disagrees, 0, 2);
  tcase_add_test(tc, blob_missing);
  tcase_add_test(tc, collect_release_names_missing_blob);
  tcase_add_loop_test(tc, collect_release_refcount_or_entry_damaged, 0, 2);
  tcase_add_loop_test(tc, stats_dictionary_record_malformed, 0, 2);
  tcase_add_loop_test(tc, rename_child_damaged, 0, 2);
  tcase_add_test(tc, summary_record_does_not_decode);
  tcase_add_loop_test(tc, thread_index_entry_malformed, 0, 4);
  tcase_add_test(tc, keyword_table_without_account);
  tcase_add_loop_test(tc, keyword_table_damaged, 0, 3);
  tcase_add_loop_test(tc, change_log_damaged, 0, 7);
  tcase_add_test(tc, usage_without_messages);
  tcase_add_test(tc, keyword_key_length_names_account);
  tcase_add_test(tc, change_entry_without_head_names_account);
  tcase_add_test(tc, name_without_mailbox);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
