// test_api_errors.c: the error paths of the store API (store.c) that a mail
// daemon meets: invalid arguments (NULL handles and outputs, zero or unknown
// ids, malformed or too long names, unknown flags), things that do not exist
// or no longer do (an expunged message, a deleted or renamed mailbox,
// another account's ids), the limits of ms_settings and mailstore.h, each with
// its documented code, and failed preconditions (a rename into the
// mailbox's own subtree, a delete with children, duplicates). Every refused
// call is checked twice: for the documented code, and for having changed
// nothing, since a daemon retries or reports a refused command and must
// find the store as it was. "Nothing" is a snapshot of both accounts, the
// fixture's mailboxes, INBOX's entries, the change log state, the store's
// counts and the search queue, taken before and compared after, plus
// ms_store_verify.
#include "corvid_libtest.h"
#include "store_util.h"

#include <errno.h>
#include <stdint.h>

// Small limits, so that each one can be reached with a handful of bytes.
enum { NAME_MAX_LEN = 32, BATCH_MAX = 8, MESSAGE_MAX = 2048 };

static const struct ms_settings limits = {.max_name_len = NAME_MAX_LEN,
                                          .max_batch = BATCH_MAX,
                                          .max_message_size = MESSAGE_MAX,
                                          .no_sync = 1};

static char *dir;
static ms_store *st;
// alice has INBOX (UIDs 1 and 2, messages 1 and 2; UID 3 with message 3
// expunged), Work (UID 1: a copy of message 1) and Work/Sub (empty); bob
// has nothing. NONE is an id no account or mailbox has.
static uint32_t acc, bob, inbox, work, sub;
enum { NONE = 999 };
static const uint64_t expunged_id = 3;
static const uint32_t expunged_uid = 3;

// append stores message n in (account, mailbox) and returns its UID.
static uint32_t append(uint32_t account, uint32_t mailbox, unsigned n) {
  char buf[512];
  size_t len = make_message(buf, sizeof buf, n, 100);
  uint32_t uid;
  ck_assert_int_eq(ms_message_append(st, NULL, &uid, account, mailbox, (uint8_t *)buf, len, 0, n),
                   0);
  return uid;
}

static void setup(void) {
  new_store(&dir, &st, &limits, "alice", &acc, &inbox);
  ck_assert_int_eq(ms_mailbox_create(st, &work, acc, "Work", 4, MS_ROLE_NONE), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &sub, acc, "Work/Sub", 8, MS_ROLE_NONE), 0);
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  for (unsigned n = 1; n <= 3; n++)
    ck_assert_uint_eq(append(acc, inbox, n), n);
  uint32_t one = 1, three = expunged_uid;
  ck_assert_int_eq(ms_messages_copy(st, NULL, acc, inbox, work, &one, 1), 1);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, &three, 1), 1);
  verify_ok(st);
}

static void teardown(void) {
  verify_ok(st);
  ms_store_close(st);
  st = NULL;
  rm_store_dir(dir);
}

// snap is what a refused call must leave as it found it.
struct snap {
  struct ms_account_info acct[2];
  int box_rc[3];
  struct ms_mailbox_info box[3];
  uint64_t state[2];
  size_t nentries;
  struct ms_entry entries[8];
  size_t nboxes;
  uint32_t boxes[8];
  struct ms_store_stats stats;
  size_t queued;
};

static void take(struct snap *s) {
  memset(s, 0, sizeof *s);
  const uint32_t accts[2] = {acc, bob}, boxes[3] = {inbox, work, sub};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(ms_account_get(st, &s->acct[i], accts[i]), 0);
    ck_assert_int_eq(ms_account_state(st, &s->state[i], accts[i]), 0);
  }
  for (int i = 0; i < 3; i++)
    s->box_rc[i] = ms_mailbox_get(st, &s->box[i], acc, boxes[i]);
  ck_assert_int_eq(ms_mailbox_list(st, s->entries, 8, &s->nentries, acc, inbox, 1), 0);
  ck_assert_int_eq(ms_account_mailboxes(st, s->boxes, 8, &s->nboxes, acc), 0);
  ck_assert_int_eq(ms_store_stats_get(st, &s->stats), 0);
  struct ms_search_item items[16];
  ck_assert_int_eq(ms_search_queue_read(st, items, 16, &s->queued, 0), 0);
}

#define SAME(field) ck_assert_msg(a.field == b->field, "%s changed", #field)

// unchanged asserts that the store still verifies and matches snapshot b.
static void unchanged(const struct snap *b) {
  verify_ok(st);
  struct snap a;
  take(&a);
  for (int i = 0; i < 2; i++) {
    SAME(acct[i].used_bytes);
    SAME(acct[i].used_messages);
    SAME(acct[i].quota_bytes);
    SAME(acct[i].quota_messages);
    SAME(acct[i].highest_modseq);
    SAME(state[i]);
  }
  for (int i = 0; i < 3; i++) {
    SAME(box_rc[i]);
    SAME(box[i].parent);
    SAME(box[i].role);
    SAME(box[i].subscribed);
    SAME(box[i].uidvalidity);
    SAME(box[i].uidnext);
    SAME(box[i].highest_modseq);
    SAME(box[i].total);
    SAME(box[i].unseen);
    SAME(box[i].size);
  }
  SAME(nentries);
  for (size_t i = 0; i < a.nentries; i++) {
    SAME(entries[i].uid);
    SAME(entries[i].flags);
    SAME(entries[i].message_id);
    SAME(entries[i].modseq);
  }
  SAME(nboxes);
  for (size_t i = 0; i < a.nboxes; i++)
    SAME(boxes[i]);
  SAME(stats.accounts);
  SAME(stats.mailboxes);
  SAME(stats.messages);
  SAME(stats.memberships);
  SAME(stats.bytes);
  SAME(stats.blobs);
  SAME(stats.released);
  SAME(stats.dicts);
  SAME(queued);
}

// name_is asserts that `mailbox` of alice is named `name`.
static void name_is(uint32_t mailbox, const char *name) {
  char buf[64];
  size_t len;
  ck_assert_int_eq(ms_mailbox_name(st, buf, sizeof buf, &len, acc, mailbox), 0);
  ck_assert_uint_eq(len, strlen(name));
  ck_assert_mem_eq(buf, name, len);
}

// Every call given a NULL store, or a NULL where it must write its answer,
// refuses with MS_ERR_INVALID_ARGUMENT before touching anything.
START_TEST(null_handles_and_outputs) {
  struct snap b;
  take(&b);
  const int INV = MS_ERR_INVALID_ARGUMENT;
  uint8_t buf[16];
  size_t len;
  uint32_t id, uid = 1;
  ms_store_close(NULL);
  struct ms_store_counters k;
  ck_assert_int_eq(ms_store_counters_get(NULL, &k), INV);
  ck_assert_int_eq(ms_store_counters_get(st, NULL), INV);
  ck_assert_int_eq(ms_store_verify(NULL, NULL), INV);
  struct ms_diag diag = {.code = 1};
  ck_assert_int_eq(ms_store_verify(NULL, &diag), INV);
  ck_assert_int_eq(diag.code, INV); // "the call's return value"
  ck_assert_int_eq(ms_store_collect(NULL, 0), INV);
  ck_assert_int_eq(ms_store_train(NULL, NULL, 0), INV);
  ck_assert_int_eq(ms_store_recompress(NULL, 0), INV);
  struct ms_store_stats stats;
  ck_assert_int_eq(ms_store_stats_get(NULL, &stats), INV);
  ck_assert_int_eq(ms_store_stats_get(st, NULL), INV);
  ck_assert_int_eq(ms_account_create(NULL, &id, "carol", 5, 0, 0), INV);
  ck_assert_int_eq(ms_account_find(NULL, &id, "alice", 5), INV);
  ck_assert_int_eq(ms_account_find(st, NULL, "alice", 5), INV);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(NULL, &ai, acc), INV);
  ck_assert_int_eq(ms_account_get(st, NULL, acc), INV);
  ck_assert_int_eq(ms_mailbox_create(NULL, &id, acc, "New", 3, 0), INV);
  ck_assert_int_eq(ms_mailbox_find(NULL, &id, acc, "INBOX", 5), INV);
  ck_assert_int_eq(ms_mailbox_find(st, NULL, acc, "INBOX", 5), INV);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(NULL, &mi, acc, inbox), INV);
  ck_assert_int_eq(ms_mailbox_get(st, NULL, acc, inbox), INV);
  ck_assert_int_eq(ms_mailbox_rename(NULL, acc, work, "Play", 4), INV);
  ck_assert_int_eq(ms_mailbox_delete(NULL, acc, sub), INV);
  ck_assert_int_eq(ms_mailbox_subscribe(NULL, acc, inbox, 1), INV);
  ck_assert_int_eq(ms_message_append(NULL, NULL, NULL, acc, inbox, buf, 4, 0, 0), INV);
  struct ms_delivery d = {.account = acc, .mailbox = inbox, .data = buf, .len = 4};
  ck_assert_int_eq(ms_messages_deliver(NULL, &d, 1), INV);
  struct ms_message_info msg;
  ck_assert_int_eq(ms_message_get(NULL, &msg, acc, 1), INV);
  ck_assert_int_eq(ms_message_get(st, NULL, acc, 1), INV);
  uint8_t digest[32];
  ck_assert_int_eq(ms_message_digest(NULL, digest, acc, 1), INV);
  ck_assert_int_eq(ms_message_digest(st, NULL, acc, 1), INV);
  ck_assert_int_eq(ms_message_read(NULL, buf, sizeof buf, &len, acc, 1), INV);
  ck_assert_int_eq(ms_message_read(st, buf, sizeof buf, NULL, acc, 1), INV);
  ck_assert_int_eq(ms_message_read_range(st, NULL, 4, &len, acc, 1, 0, 4), INV);
  ck_assert_int_eq(ms_flags_store(NULL, acc, inbox, &uid, 1, MS_FLAG_SEEN, 0), INV);
  ck_assert_int_eq(ms_messages_copy(NULL, NULL, acc, inbox, sub, &uid, 1), INV);
  ck_assert_int_eq(ms_messages_move(NULL, NULL, acc, inbox, sub, &uid, 1), INV);
  ck_assert_int_eq(ms_messages_expunge(NULL, acc, inbox, &uid, 1), INV);
  struct ms_entry e[4];
  ck_assert_int_eq(ms_mailbox_list(NULL, e, 4, &len, acc, inbox, 1), INV);
  ck_assert_int_eq(ms_mailbox_list(st, e, 4, NULL, acc, inbox, 1), INV);
  ck_assert_int_eq(ms_mailbox_list(st, NULL, 4, &len, acc, inbox, 1), INV);
  uint32_t van[4];
  size_t vlen;
  ck_assert_int_eq(ms_mailbox_changes(NULL, e, 4, &len, van, 4, &vlen, acc, inbox, 0), INV);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, NULL, van, 4, &vlen, acc, inbox, 0), INV);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, van, 4, NULL, acc, inbox, 0), INV);
  ck_assert_int_eq(ms_mailbox_changes(st, NULL, 4, &len, van, 4, &vlen, acc, inbox, 0), INV);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, NULL, 4, &vlen, acc, inbox, 0), INV);
  struct ms_search_item q[4];
  ck_assert_int_eq(ms_search_queue_read(NULL, q, 4, &len, 0), INV);
  ck_assert_int_eq(ms_search_queue_read(st, q, 4, NULL, 0), INV);
  ck_assert_int_eq(ms_search_queue_read(st, NULL, 4, &len, 0), INV);
  ck_assert_int_eq(ms_search_queue_ack(NULL, UINT64_MAX), INV);
  unchanged(&b);
}
END_TEST

// Opening needs an output and an existing directory: a failed open leaves
// *out NULL (no half-made handle to close) and reports -errno.
START_TEST(open_errors) {
  ms_store *h = (ms_store *)&h;
  ck_assert_int_eq(ms_store_open(NULL, dir, NULL), MS_ERR_INVALID_ARGUMENT);
  h = (ms_store *)&h;
  ck_assert_int_eq(ms_store_open(&h, NULL, NULL), MS_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(h); // *out is cleared on every failure
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/no-such-dir", dir);
  h = (ms_store *)&h;
  ck_assert_int_eq(ms_store_open(&h, missing, NULL), -ENOENT);
  ck_assert_ptr_null(h);
  // A regular file where the directory should be.
  char file[4200];
  snprintf(file, sizeof file, "%s/plain-file", dir);
  FILE *f = fopen(file, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  h = (ms_store *)&h;
  int rc = ms_store_open(&h, file, NULL);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_gt(rc, -4096);
  ck_assert_ptr_null(h);
  unlink(file);
  verify_ok(st);
}
END_TEST

// Account names: 1..max_name_len bytes, unique; lookups of names and ids
// that do not exist.
START_TEST(account_errors) {
  struct snap b;
  take(&b);
  char name[NAME_MAX_LEN + 2];
  memset(name, 'n', sizeof name);
  uint32_t id = 12345;
  ck_assert_int_eq(ms_account_create(st, &id, NULL, 3, 0, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_create(st, &id, "carol", 0, 0, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_create(st, &id, name, NAME_MAX_LEN + 1, 0, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_create(st, &id, "alice", 5, 0, 0), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_account_create(st, &id, "bob", 3, 10, 10), MS_ERR_EXISTS);
  ck_assert_uint_eq(id, 12345);
  ck_assert_int_eq(ms_account_find(st, &id, NULL, 3), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_find(st, &id, "alice", 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_account_find(st, &id, "carol", 5), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_account_find(st, &id, "alic", 4), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_account_find(st, &id, "alice2", 6), MS_ERR_NOTFOUND);
  // A mailbox name is not an account name, though both share one table.
  ck_assert_int_eq(ms_account_find(st, &id, "INBOX", 5), MS_ERR_NOTFOUND);
  char huge[1100];
  memset(huge, 'h', sizeof huge);
  ck_assert_int_eq(ms_account_find(st, &id, huge, sizeof huge), MS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(id, 12345);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_account_get(st, &ai, NONE), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_account_get(st, &ai, UINT32_MAX), MS_ERR_NOTFOUND);
  unchanged(&b);
  // The limit is the configured one, not some other bound.
  ck_assert_int_eq(ms_account_create(st, &id, name, NAME_MAX_LEN, 0, 0), 0);
  ck_assert_int_eq(ms_account_get(st, &ai, id), 0);
  verify_ok(st);
}
END_TEST

// Mailbox names must be well-formed ('/' only between non-empty levels, no
// NUL), at most max_name_len bytes, with a known role, unique, and under an
// existing parent of an existing account.
START_TEST(mailbox_create_errors) {
  struct snap b;
  take(&b);
  uint32_t id = 12345;
  static const struct {
    const char *name;
    size_t len;
  } bad[] = {{"", 0},     {"/Top", 4}, {"Top/", 4}, {"Work//Sub2", 10},
             {"a\0b", 3}, {"/", 1},    {"//", 2}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(ms_mailbox_create(st, &id, acc, bad[i].name, bad[i].len, 0) ==
                      MS_ERR_INVALID_ARGUMENT,
                  "bad name %zu accepted", i);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, NULL, 3, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Junk", 4, MS_ROLE_MAX + 1),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Junk", 4, UINT32_MAX), MS_ERR_INVALID_ARGUMENT);
  char name[NAME_MAX_LEN + 1];
  memset(name, 'm', sizeof name);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, name, NAME_MAX_LEN + 1, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_create(st, &id, 0, "Junk", 4, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_create(st, &id, NONE, "Junk", 4, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Nope/Junk", 9, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Work/Nope/Junk", 14, 0), MS_ERR_NOTFOUND);
  // bob has no Work for a child to go under.
  ck_assert_int_eq(ms_mailbox_create(st, &id, bob, "Work/Sub", 8, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "INBOX", 5, MS_ROLE_INBOX), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Work", 4, MS_ROLE_ARCHIVE), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Work/Sub", 8, 0), MS_ERR_EXISTS);
  ck_assert_uint_eq(id, 12345);
  unchanged(&b);
  // At the limit, and the same name in another account, are accepted.
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, name, NAME_MAX_LEN, MS_ROLE_MAX), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &id, bob, "Work", 4, 0), 0);
  verify_ok(st);
}
END_TEST

// Mailbox lookups of names and ids that do not exist, or exist only in
// another account.
START_TEST(mailbox_lookup_errors) {
  struct snap b;
  take(&b);
  uint32_t id = 12345;
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, NULL, 3), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "INBOX", 0), MS_ERR_INVALID_ARGUMENT);
  char huge[1100];
  memset(huge, 'h', sizeof huge);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, huge, sizeof huge), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Sub", 3), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Wor", 3), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_find(st, &id, bob, "INBOX", 5), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_find(st, &id, NONE, "INBOX", 5), MS_ERR_NOTFOUND);
  // An account name is not a mailbox name.
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "alice", 5), MS_ERR_NOTFOUND);
  ck_assert_uint_eq(id, 12345);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, NONE), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, bob, inbox), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, NONE, inbox), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_subscribe(st, acc, NONE, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_subscribe(st, bob, inbox, 1), MS_ERR_NOTFOUND);
  unchanged(&b);
}
END_TEST

// Renames: malformed or too long names, a mailbox or parent that does not
// exist, a name taken, and a new name inside the mailbox's own subtree.
// Renaming to the current name succeeds and changes nothing.
START_TEST(mailbox_rename_errors) {
  struct snap b;
  take(&b);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, NULL, 4), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "", 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "/Play", 5), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Play/", 5), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Pl//ay", 6), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Pl\0y", 4), MS_ERR_INVALID_ARGUMENT);
  char name[NAME_MAX_LEN + 1];
  memset(name, 'r', sizeof name);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, sub, name, NAME_MAX_LEN + 1),
                   MS_ERR_INVALID_ARGUMENT);
  // Under itself, directly or below a child.
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Work/Work", 9), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Work/Sub/Deeper", 15),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Work/Sub", 8), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "INBOX", 5), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, inbox, "Work/Sub", 8), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, sub, "Nope/Sub", 8), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, NONE, "Play", 4), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, 0, "Play", 4), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, bob, work, "Play", 4), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Work", 4), 0);
  unchanged(&b);
  name_is(work, "Work");
  name_is(sub, "Work/Sub");
}
END_TEST

// A rename whose new name fits but would make a descendant's name longer
// than max_name_len is refused with MS_ERR_LIMIT, and as one transaction:
// the mailbox itself keeps its old name too.
START_TEST(mailbox_rename_descendant_too_long) {
  uint32_t a, child;
  // "ab/" + 27 bytes = 30 bytes; renaming "ab" to "abcdef" makes it 34.
  ck_assert_int_eq(ms_mailbox_create(st, &a, acc, "ab", 2, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &child, acc, "ab/ccccccccccccccccccccccccccc", 30, 0), 0);
  struct snap b;
  take(&b);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, a, "abcdef", 6), MS_ERR_LIMIT);
  unchanged(&b);
  name_is(a, "ab");
  name_is(child, "ab/ccccccccccccccccccccccccccc");
  uint32_t id;
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "abcdef", 6), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "ab", 2), 0);
  ck_assert_uint_eq(id, a);
  // Exactly at the limit is fine.
  ck_assert_int_eq(ms_mailbox_rename(st, acc, a, "abcd", 4), 0);
  name_is(child, "abcd/ccccccccccccccccccccccccccc");
  verify_ok(st);
}
END_TEST

// After a rename, the old names are gone: lookups and new children under
// them fail, while the ids keep working.
START_TEST(renamed_mailbox_old_names) {
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Play", 4), 0);
  struct snap b;
  take(&b);
  uint32_t id = 12345;
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Work", 4), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Work/Sub", 8), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Work/New", 8, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, inbox, "Work/INBOX", 10), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, inbox, "Play/Sub", 8), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, work, "Play/Sub/X", 10), MS_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(id, 12345);
  unchanged(&b);
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Play/Sub", 8), 0);
  ck_assert_uint_eq(id, sub);
}
END_TEST

// A mailbox with children cannot be deleted, and the refusal keeps its
// messages; once deleted, a mailbox is gone for every call that names it.
START_TEST(mailbox_delete_errors) {
  struct snap b;
  take(&b);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, work), MS_ERR_EXISTS);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, NONE), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_delete(st, bob, sub), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_delete(st, NONE, sub), MS_ERR_NOTFOUND);
  unchanged(&b);

  ck_assert_int_eq(ms_mailbox_delete(st, acc, sub), 0);
  take(&b);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, sub), MS_ERR_NOTFOUND);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, sub), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_subscribe(st, acc, sub, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_rename(st, acc, sub, "Sub", 3), MS_ERR_NOTFOUND);
  uint32_t id;
  ck_assert_int_eq(ms_mailbox_find(st, &id, acc, "Work/Sub", 8), MS_ERR_NOTFOUND);
  char buf[512];
  size_t len = make_message(buf, sizeof buf, 50, 10);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, sub, (uint8_t *)buf, len, 0, 0),
                   MS_ERR_NOTFOUND);
  uint32_t one = 1, out = 77;
  ck_assert_int_eq(ms_flags_store(st, acc, sub, &one, 1, MS_FLAG_SEEN, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_copy(st, &out, acc, inbox, sub, &one, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_move(st, &out, acc, inbox, sub, &one, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_copy(st, &out, acc, sub, inbox, &one, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_expunge(st, acc, sub, &one, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_expunge(st, acc, sub, NULL, 0), MS_ERR_NOTFOUND);
  struct ms_entry e[4];
  uint32_t van[4];
  size_t vlen;
  ck_assert_int_eq(ms_mailbox_list(st, e, 4, &len, acc, sub, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, van, 4, &vlen, acc, sub, 0), MS_ERR_NOTFOUND);
  unchanged(&b);
  // Its name is free again; the new mailbox is another one.
  ck_assert_int_eq(ms_mailbox_create(st, &id, acc, "Work/Sub", 8, 0), 0);
  ck_assert_uint_ne(id, sub);
  verify_ok(st);
}
END_TEST

// A single append: bad data or flags, the size limit, and an account or
// mailbox that does not exist (including another account's mailbox id).
START_TEST(append_errors) {
  struct snap b;
  take(&b);
  static uint8_t big[MESSAGE_MAX + 1];
  char buf[512];
  size_t len = make_message(buf, sizeof buf, 60, 10);
  const uint8_t *m = (const uint8_t *)buf;
  uint64_t id = 12345;
  uint32_t uid = 12345;
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, NULL, 10, 0, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, m, 0, 0, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, m, len, MS_FLAG_ALL + 1, 0),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, m, len, 1u << 31, 0),
                   MS_ERR_INVALID_ARGUMENT);
  memset(big, 'x', sizeof big);
  len = make_message((char *)big, sizeof big, 61, sizeof big);
  ck_assert_uint_eq(len, MESSAGE_MAX + 1);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, big, len, 0, 0), MS_ERR_LIMIT);
  len = make_message(buf, sizeof buf, 62, 10);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, 0, inbox, m, len, 0, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, NONE, inbox, m, len, 0, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, 0, m, len, 0, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, NONE, m, len, 0, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_append(st, &id, &uid, bob, inbox, m, len, 0, 0), MS_ERR_NOTFOUND);
  ck_assert_uint_eq(id, 12345);
  ck_assert_uint_eq(uid, 12345);
  unchanged(&b);
  // Exactly max_message_size bytes, with every flag, are accepted.
  ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, big, MESSAGE_MAX, MS_FLAG_ALL, 0),
                   0);
  verify_ok(st);
}
END_TEST

// Quotas: the delivery that would pass an account's message or byte quota
// gets MS_ERR_QUOTA and leaves the account's usage as it was.
START_TEST(quota_errors) {
  uint32_t few, small, fbox, sbox;
  char buf[512], buf2[512];
  size_t len = make_message(buf, sizeof buf, 70, 100);
  size_t len2 = make_message(buf2, sizeof buf2, 71, 10);
  const uint8_t *m = (const uint8_t *)buf, *m2 = (const uint8_t *)buf2;
  ck_assert_int_eq(ms_account_create(st, &few, "few", 3, 0, 1), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &fbox, few, "INBOX", 5, MS_ROLE_INBOX), 0);
  // Room for len + len2 bytes: a second len-byte message is one too many.
  ck_assert_int_eq(ms_account_create(st, &small, "small", 5, len + len2, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &sbox, small, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, few, fbox, m, len, 0, 0), 0);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, small, sbox, m, len, 0, 0), 0);
  struct snap b;
  take(&b);
  struct ms_account_info fi, si;
  ck_assert_int_eq(ms_account_get(st, &fi, few), 0);
  ck_assert_int_eq(ms_account_get(st, &si, small), 0);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, few, fbox, m2, len2, 0, 0), MS_ERR_QUOTA);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, small, sbox, m, len, 0, 0), MS_ERR_QUOTA);
  unchanged(&b);
  struct ms_account_info fa, sa;
  ck_assert_int_eq(ms_account_get(st, &fa, few), 0);
  ck_assert_int_eq(ms_account_get(st, &sa, small), 0);
  ck_assert_uint_eq(fa.used_messages, 1);
  ck_assert_uint_eq(fa.used_bytes, fi.used_bytes);
  ck_assert_uint_eq(fa.highest_modseq, fi.highest_modseq);
  ck_assert_uint_eq(sa.used_messages, 1);
  ck_assert_uint_eq(sa.used_bytes, si.used_bytes);
  ck_assert_uint_eq(sa.highest_modseq, si.highest_modseq);
  // What still fits in the byte quota, to the byte, is accepted.
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, small, sbox, m2, len2, 0, 0), 0);
  verify_ok(st);
}
END_TEST

// A batch: NULL items, an empty batch and one over max_batch fail as a
// whole; otherwise each item gets its own status and only the good ones are
// stored.
START_TEST(deliver_batch_errors) {
  struct snap b;
  take(&b);
  char bufs[BATCH_MAX + 1][256];
  struct ms_delivery d[BATCH_MAX + 1];
  for (unsigned i = 0; i <= BATCH_MAX; i++) {
    size_t len = make_message(bufs[i], sizeof bufs[i], 80 + i, 20);
    d[i] = (struct ms_delivery){.status = 12345,
                                .account = acc,
                                .mailbox = inbox,
                                .data = (const uint8_t *)bufs[i],
                                .len = len};
  }
  ck_assert_int_eq(ms_messages_deliver(st, NULL, 1), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_messages_deliver(st, d, 0), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_messages_deliver(st, d, BATCH_MAX + 1), MS_ERR_LIMIT);
  unchanged(&b);
  // Items 0, 3 and 6 are good; the others each fail for their own reason.
  static uint8_t big[MESSAGE_MAX + 1];
  memset(big, 'y', sizeof big);
  d[1].data = NULL;
  d[2].flags = 1u << 5;
  d[4].mailbox = NONE;
  d[5].account = bob;
  d[7].data = big;
  d[7].len = sizeof big;
  d[8] = d[0]; // past the batch: untouched
  ck_assert_int_eq(ms_messages_deliver(st, d, BATCH_MAX), 3);
  const int want[BATCH_MAX] = {0,
                               MS_ERR_INVALID_ARGUMENT,
                               MS_ERR_INVALID_ARGUMENT,
                               0,
                               MS_ERR_NOTFOUND,
                               MS_ERR_NOTFOUND,
                               0,
                               MS_ERR_LIMIT};
  for (unsigned i = 0; i < BATCH_MAX; i++) {
    ck_assert_msg(d[i].status == want[i], "item %u: status %d, want %d", i, d[i].status, want[i]);
    if (want[i]) {
      ck_assert_uint_eq(d[i].uid, 0);
      ck_assert_uint_eq(d[i].message_id, 0);
    }
  }
  ck_assert_int_eq(d[8].status, 12345);
  ck_assert_uint_eq(d[3].uid, d[0].uid + 1);
  ck_assert_uint_eq(d[6].uid, d[3].uid + 1);
  verify_ok(st);
  struct ms_account_info ai, bi;
  ck_assert_int_eq(ms_account_get(st, &ai, acc), 0);
  ck_assert_int_eq(ms_account_get(st, &bi, bob), 0);
  ck_assert_uint_eq(ai.used_messages, b.acct[0].used_messages + 3);
  ck_assert_uint_eq(ai.used_bytes, b.acct[0].used_bytes + d[0].len + d[3].len + d[6].len);
  ck_assert_uint_eq(bi.used_messages, 0);
  ck_assert_uint_eq(bi.highest_modseq, b.acct[1].highest_modseq);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.total, b.box[0].total + 3);
}
END_TEST

// Reading messages that do not exist: never delivered, expunged (the last
// membership gone), or of another account; and a buffer too small.
START_TEST(message_read_errors) {
  struct snap b;
  take(&b);
  struct ms_message_info mi;
  uint8_t buf[1024];
  size_t len;
  const uint64_t ids[] = {0, expunged_id, NONE, UINT64_MAX};
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    ck_assert_int_eq(ms_message_get(st, &mi, acc, ids[i]), MS_ERR_NOTFOUND);
    uint8_t digest[32];
    ck_assert_int_eq(ms_message_digest(st, digest, acc, ids[i]), MS_ERR_NOTFOUND);
    len = 12345;
    ck_assert_int_eq(ms_message_read(st, buf, sizeof buf, &len, acc, ids[i]), MS_ERR_NOTFOUND);
    ck_assert_uint_eq(len, 0);
    len = 12345;
    ck_assert_int_eq(ms_message_read_range(st, buf, sizeof buf, &len, acc, ids[i], 0, 10),
                     MS_ERR_NOTFOUND);
    ck_assert_uint_eq(len, 0);
  }
  ck_assert_int_eq(ms_message_get(st, &mi, bob, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_get(st, &mi, NONE, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_read(st, buf, sizeof buf, &len, bob, 1), MS_ERR_NOTFOUND);
  // Too small: the size is reported, nothing is copied.
  ck_assert_int_eq(ms_message_get(st, &mi, acc, 1), 0);
  memset(buf, '#', sizeof buf);
  ck_assert_int_eq(ms_message_read(st, buf, (size_t)mi.size - 1, &len, acc, 1), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, mi.size);
  ck_assert_uint_eq(buf[0], '#');
  ck_assert_int_eq(ms_message_read(st, NULL, 0, &len, acc, 1), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, mi.size);
  ck_assert_int_eq(ms_message_read_range(st, buf, 9, &len, acc, 1, 5, 10), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, 10);
  ck_assert_uint_eq(buf[0], '#');
  unchanged(&b);
}
END_TEST

// Batch calls on UIDs: NULL arrays with counts, more than max_batch UIDs,
// unknown flags, src == dst, and accounts or mailboxes that do not exist.
START_TEST(batch_argument_errors) {
  struct snap b;
  take(&b);
  uint32_t uids[BATCH_MAX + 1] = {1, 2}, out[BATCH_MAX + 1];
  const int INV = MS_ERR_INVALID_ARGUMENT;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, NULL, 1, MS_FLAG_SEEN, 0), INV);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, uids, BATCH_MAX + 1, MS_FLAG_SEEN, 0),
                   MS_ERR_LIMIT);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, uids, 2, MS_FLAG_ALL + 1, 0), INV);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, uids, 2, 0, 1u << 7), INV);
  ck_assert_int_eq(ms_flags_store(st, acc, NONE, uids, 2, MS_FLAG_SEEN, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_flags_store(st, NONE, inbox, uids, 2, MS_FLAG_SEEN, 0), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_flags_store(st, bob, inbox, uids, 2, MS_FLAG_SEEN, 0), MS_ERR_NOTFOUND);
  for (int mv = 0; mv < 2; mv++) {
    int (*fn)(ms_store *, uint32_t *, uint32_t, uint32_t, uint32_t, const uint32_t *, size_t) =
        mv ? ms_messages_move : ms_messages_copy;
    ck_assert_int_eq(fn(st, out, acc, inbox, work, NULL, 1), INV);
    ck_assert_int_eq(fn(st, out, acc, inbox, work, uids, BATCH_MAX + 1), MS_ERR_LIMIT);
    ck_assert_int_eq(fn(st, out, acc, inbox, inbox, uids, 2), INV);
    ck_assert_int_eq(fn(st, out, acc, inbox, NONE, uids, 2), MS_ERR_NOTFOUND);
    ck_assert_int_eq(fn(st, out, acc, NONE, inbox, uids, 2), MS_ERR_NOTFOUND);
    ck_assert_int_eq(fn(st, out, bob, inbox, work, uids, 2), MS_ERR_NOTFOUND);
    ck_assert_int_eq(fn(st, out, NONE, inbox, work, uids, 2), MS_ERR_NOTFOUND);
  }
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, uids, BATCH_MAX + 1), MS_ERR_LIMIT);
  ck_assert_int_eq(ms_messages_expunge(st, acc, NONE, uids, 2), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_expunge(st, bob, inbox, uids, 2), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_messages_expunge(st, NONE, inbox, NULL, 0), MS_ERR_NOTFOUND);
  unchanged(&b);
}
END_TEST

// UIDs that are not (or no longer) in the mailbox are skipped: each call
// succeeds with 0 and changes nothing, not even a MODSEQ. Expunging UIDs
// twice is the same.
START_TEST(batch_on_missing_uids) {
  struct snap b;
  take(&b);
  uint32_t gone[] = {expunged_uid, 0, 4, NONE, UINT32_MAX, expunged_uid};
  size_t n = sizeof gone / sizeof gone[0];
  uint32_t out[6];
  memset(out, 0xff, sizeof out);
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, gone, n, MS_FLAG_FLAGGED, 0), 0);
  ck_assert_int_eq(ms_messages_copy(st, out, acc, inbox, sub, gone, n), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(out[i], 0);
  memset(out, 0xff, sizeof out);
  ck_assert_int_eq(ms_messages_move(st, out, acc, inbox, sub, gone, n), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_uint_eq(out[i], 0);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, gone, n), 0);
  // No message is flagged \Deleted: expunge-all removes nothing.
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, NULL, 0), 0);
  // Without UIDs the count is ignored (it once read `count` UIDs at NULL).
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, NULL, 5), 0);
  // Setting flags a message already has, and clearing ones it has not.
  uint32_t one = 1;
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, &one, 1, 0, MS_FLAG_ALL), 0);
  // An empty batch is no error.
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, NULL, 0, MS_FLAG_SEEN, 0), 0);
  ck_assert_int_eq(ms_messages_copy(st, NULL, acc, inbox, sub, NULL, 0), 0);
  unchanged(&b);
}
END_TEST

// Listing and changes: a mailbox that does not exist, and capacities too
// small for the changes (MS_ERR_LIMIT with the totals); answered from the
// packed index (_i 0) and, with an index too small for any mailbox, from
// LMDB (_i 1).
START_TEST(list_and_changes_errors) {
  if (_i == 1) {
    struct ms_settings set = limits;
    set.index_max_bytes = 1;
    ms_store_close(st);
    ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  }
  struct snap b;
  take(&b);
  struct ms_entry e[4];
  uint32_t van[4];
  size_t len = 12345, vlen = 12345;
  ck_assert_int_eq(ms_mailbox_list(st, e, 4, &len, acc, NONE, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_list(st, e, 4, &len, bob, inbox, 1), MS_ERR_NOTFOUND);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, van, 4, &vlen, acc, NONE, 0),
                   MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, van, 4, &vlen, bob, inbox, 0),
                   MS_ERR_NOTFOUND);
  ck_assert_uint_eq(len, 0);
  ck_assert_uint_eq(vlen, 0);
  // INBOX holds UIDs 1 and 2 and has UID 3 vanished.
  ck_assert_int_eq(ms_mailbox_changes(st, e, 1, &len, van, 4, &vlen, acc, inbox, 0), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, 2);
  ck_assert_uint_eq(vlen, 1);
  ck_assert_int_eq(ms_mailbox_changes(st, e, 4, &len, NULL, 0, &vlen, acc, inbox, 0), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, 2);
  ck_assert_uint_eq(vlen, 1);
  // Nothing after the current MODSEQ: no error, nothing reported.
  ck_assert_int_eq(
      ms_mailbox_changes(st, e, 4, &len, van, 4, &vlen, acc, inbox, b.box[0].highest_modseq), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_uint_eq(vlen, 0);
  unchanged(&b);
}
END_TEST

// The maintenance calls: train with fewer than 8 messages (MS_ERR_SAMPLES,
// no dictionary stored, whatever max_samples asks for), and out-of-range
// item counts, which are clamped rather than refused.
START_TEST(maintenance_errors) {
  struct snap b;
  take(&b);
  uint32_t id = 12345;
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  ck_assert_int_eq(ms_store_train(st, &id, 1000000), MS_ERR_SAMPLES);
  ck_assert_uint_eq(id, 12345);
  // No dictionary: nothing to recompress, whatever the count.
  ck_assert_int_eq(ms_store_recompress(st, 0), 0);
  ck_assert_int_eq(ms_store_recompress(st, SIZE_MAX), 0);
  // Nothing newer than the queue's end to acknowledge.
  struct ms_search_item q[8];
  size_t len = 12345;
  ck_assert_int_eq(ms_search_queue_read(st, q, 8, &len, UINT64_MAX), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_search_queue_read(st, NULL, 0, &len, 0), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(ms_search_queue_ack(st, 0), 0);
  unchanged(&b);
  // Collecting with a count past 1,000,000 is clamped: the one queued
  // release (message 3) is collected.
  ck_assert_uint_eq(b.stats.released, 1);
  ck_assert_int_eq(ms_store_collect(st, SIZE_MAX), 1);
  ck_assert_int_eq(ms_store_collect(st, SIZE_MAX), 0);
  verify_ok(st);
  // Seven distinct messages are still too few to train on (zstd itself
  // would take them); the eighth makes a sample.
  for (unsigned n = 10; n < 15; n++)
    append(acc, work, n);
  take(&b);
  ck_assert_uint_eq(b.stats.blobs, 7);
  ck_assert_int_eq(ms_store_train(st, &id, 0), MS_ERR_SAMPLES);
  ck_assert_uint_eq(id, 12345);
  unchanged(&b);
  append(acc, work, 15);
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_eq(id, 1);
  verify_ok(st);
}
END_TEST

// The map grows on demand from initial_map_size up to max_map_size; a
// delivery that needs more gets -ENOSPC and leaves nothing, and the store
// stays usable.
START_TEST(map_full) {
  char *d2;
  ms_store *s2;
  const struct ms_settings set = {.initial_map_size = 256u << 10,
                                  .max_map_size = 1u << 20,
                                  .no_sync = 1,
                                  .no_transform = 1,
                                  .blob_chunk_size = UINT32_MAX};
  uint32_t a2, box2;
  ms_store *keep = st;
  new_store(&d2, &s2, &set, "dana", &a2, &box2);
  st = s2;
  // Incompressible bodies, from a fixed-seed generator.
  static char buf[16 << 10];
  uint32_t x = 12345;
  int rc = 0;
  unsigned stored = 0;
  while (stored < 200) {
    int k = snprintf(buf, sizeof buf, "Subject: fill %u\r\n\r\n", stored);
    for (size_t i = (size_t)k; i < sizeof buf; i++) {
      x = x * 1103515245u + 12345u;
      buf[i] = (char)(33 + (x >> 16) % 90);
    }
    rc = ms_message_append(st, NULL, NULL, a2, box2, (uint8_t *)buf, sizeof buf, 0, 0);
    if (rc < 0)
      break;
    stored++;
  }
  ck_assert_int_eq(rc, -ENOSPC);
  // The map grew past its initial size, and stopped at its maximum.
  struct ms_store_stats stats;
  ck_assert_int_eq(ms_store_stats_get(st, &stats), 0);
  ck_assert_uint_gt(stats.map_used, 256u << 10);
  ck_assert_uint_le(stats.map_used, 1u << 20);
  verify_ok(st);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, a2), 0);
  ck_assert_uint_eq(ai.used_messages, stored);
  ck_assert_uint_eq(ai.used_bytes, (uint64_t)stored * sizeof buf);
  // Reads and small writes still work.
  size_t len;
  ck_assert_int_eq(ms_message_read(st, (uint8_t *)buf, sizeof buf, &len, a2, 1), 0);
  ck_assert_uint_eq(len, sizeof buf);
  uint32_t one = 1;
  ck_assert_int_eq(ms_flags_store(st, a2, box2, &one, 1, MS_FLAG_SEEN, 0), 1);
  verify_ok(st);
  ms_store_close(s2);
  rm_store_dir(d2);
  st = keep;
}
END_TEST

// initial_map_size above max_map_size does not lift the maximum: a
// message that needs more than max_map_size gets -ENOSPC, not room.
START_TEST(initial_map_size_above_max) {
  char *d2;
  ms_store *s2;
  const struct ms_settings set = {
      .initial_map_size = 64u << 20, .max_map_size = 1u << 20, .no_sync = 1, .no_transform = 1};
  uint32_t a2, box2;
  new_store(&d2, &s2, &set, "erin", &a2, &box2);
  enum { BIG = 3u << 19 };
  static char big[BIG];
  int head = snprintf(big, sizeof big, "Subject: big\r\n\r\n");
  uint32_t x = 54321;
  for (size_t i = (size_t)head; i < sizeof big; i++) {
    x = x * 1103515245u + 12345u;
    big[i] = (char)(x >> 16);
  }
  ck_assert_int_eq(ms_message_append(s2, NULL, NULL, a2, box2, (uint8_t *)big, sizeof big, 0, 0),
                   -ENOSPC);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(s2, &ai, a2), 0);
  ck_assert_uint_eq(ai.used_messages, 0);
  ck_assert_int_eq(ms_message_append(s2, NULL, NULL, a2, box2, (uint8_t *)big, 4096, 0, 0), 0);
  struct ms_store_stats stats;
  ck_assert_int_eq(ms_store_stats_get(s2, &stats), 0);
  ck_assert_uint_le(stats.map_used, 1u << 20);
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(s2, &dg) == 0, "verify: %s", dg.message);
  ms_store_close(s2);
  rm_store_dir(d2);
}
END_TEST

int main(void) {
  Suite *s = suite_create("api_errors");
  TCase *tc = tcase_create("api_errors");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, null_handles_and_outputs);
  tcase_add_test(tc, open_errors);
  tcase_add_test(tc, account_errors);
  tcase_add_test(tc, mailbox_create_errors);
  tcase_add_test(tc, mailbox_lookup_errors);
  tcase_add_test(tc, mailbox_rename_errors);
  tcase_add_test(tc, mailbox_rename_descendant_too_long);
  tcase_add_test(tc, renamed_mailbox_old_names);
  tcase_add_test(tc, mailbox_delete_errors);
  tcase_add_test(tc, append_errors);
  tcase_add_test(tc, quota_errors);
  tcase_add_test(tc, deliver_batch_errors);
  tcase_add_test(tc, message_read_errors);
  tcase_add_test(tc, batch_argument_errors);
  tcase_add_test(tc, batch_on_missing_uids);
  tcase_add_loop_test(tc, list_and_changes_errors, 0, 2);
  tcase_add_test(tc, maintenance_errors);
  tcase_add_test(tc, map_full);
  tcase_add_test(tc, initial_map_size_above_max);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
