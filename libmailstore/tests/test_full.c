// test_full.c: a store whose map reached max_map_size, or whose disk is
// full, can still be emptied.
//
// LMDB copies every page a transaction changes, so an expunge needs free
// pages too. The store keeps a reserve at the end of the map from the
// writes that add mail, lets the writes that only change mail use half of
// it, does a batch that still does not fit in parts, and on a full disk
// keeps the end of the tail it wrote ahead the same way ("Store" in
// mailstore.h). Each test fills a small map with small messages, whose
// records weigh the most against their bodies, until a delivery fails with
// -ENOSPC, then empties it as a client would and checks that the space
// comes back.
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

#include "corvid_libtest.h"
#include "store_util.h"

// FILL_MAX bounds every filling loop (a 16 MiB map holds about 12,000 of
// the messages below).
#define FILL_MAX 100000u
#define MSG_LEN 300u

static char *dir;
static ms_store *st;
static uint32_t acc, inbox;

// settings_sized are the settings of a map of `max` bytes. The change log
// keeps 1,000 entries rather than 20,000: a removal also prunes the history
// (an eighth of it at a time, and a deleted mailbox's VANISHED entries),
// and the default history would outweigh the reserve of a map this small,
// as it does not that of a real one (see "Store" in mailstore.h).
static struct ms_settings settings_sized(uint64_t max) {
  return (struct ms_settings){.initial_map_size = 256u << 10,
                              .max_map_size = max,
                              .no_sync = 1,
                              .no_transform = 1,
                              .changes_keep = 1000};
}

static void open_full_sized(uint64_t max) {
  const struct ms_settings set = settings_sized(max);
  new_store(&dir, &st, &set, "fay", &acc, &inbox);
}

static void close_store(void) {
  ms_store_close(st);
  st = NULL;
  rm_store_dir(dir);
}

// fill appends messages numbered from *seq (fixed-seed, hard to compress)
// to `box` until the store refuses one, which must be for want of room,
// and returns how many it took.
static unsigned fill(uint32_t box, unsigned *seq) {
  char buf[MSG_LEN];
  unsigned n = 0;
  for (;; n++) {
    ck_assert_uint_lt(n, FILL_MAX);
    // One subject for all: the thread index keeps an entry per distinct
    // subject and Message-ID even after the messages go (FORMAT.md,
    // "Threads"), which would take the space the rounds compare.
    int k = snprintf(buf, sizeof buf, "Subject: fill\r\n\r\n%u ", *seq);
    uint32_t x = *seq * 2654435761u + 1;
    for (size_t i = (size_t)k; i < sizeof buf; i++) {
      x = x * 1103515245u + 12345u;
      buf[i] = (char)(33 + (x >> 16) % 90);
    }
    int rc = ms_message_append(st, NULL, NULL, acc, box, (uint8_t *)buf, sizeof buf, 0, 0);
    if (rc < 0) {
      ck_assert_int_eq(rc, -ENOSPC);
      break;
    }
    ++*seq;
  }
  ck_assert_uint_gt(n, 0);
  return n;
}

static uint32_t *uid_range(unsigned n) {
  uint32_t *u = malloc((size_t)n * sizeof *u);
  ck_assert_ptr_nonnull(u);
  for (unsigned i = 0; i < n; i++)
    u[i] = i + 1;
  return u;
}

static uint32_t total(uint32_t box) {
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, box), 0);
  return mi.total;
}

static uint64_t used_messages(void) {
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, acc), 0);
  return ai.used_messages;
}

// expect_emptied checks that the n messages just removed left nothing
// behind: no usage, n bodies to collect, a sound store, and their room
// back (INBOX takes at least 90% as many again).
static void expect_emptied(unsigned n, unsigned *seq) {
  ck_assert_uint_eq(used_messages(), 0);
  ck_assert_int_eq(ms_store_collect(st, 0), (int)n);
  verify_ok(st);
  ck_assert_uint_ge(fill(inbox, seq), n - n / 10);
  verify_ok(st);
}

// drain_search_queue acknowledges every queued search entry, as the
// indexer that keeps up with the store does.
static void drain_search_queue(void) {
  struct ms_search_item it[256];
  size_t got;
  uint64_t last = 0;
  do {
    ck_assert_int_eq(ms_search_queue_read(st, it, 256, &got, last), 0);
    if (got)
      last = it[got - 1].seq;
  } while (got);
  ck_assert_int_ge(ms_search_queue_ack(st, last), 0);
}

// empty_by_flags empties `box` (UIDs from `first`, n of them) as an IMAP
// client does: STORE +FLAGS \Deleted on all, then EXPUNGE, then the
// collection that gives the bodies' pages back.
static void empty_by_flags(uint32_t box, uint32_t first, unsigned n) {
  uint32_t *u = uid_range(n);
  for (unsigned i = 0; i < n; i++)
    u[i] += first - 1;
  ck_assert_int_eq(ms_flags_store(st, acc, box, u, n, MS_FLAG_DELETED, 0), (int)n);
  ck_assert_int_eq(ms_messages_expunge(st, acc, box, NULL, 0), (int)n);
  free(u);
  ck_assert_uint_eq(total(box), 0);
  ck_assert_int_eq(ms_store_collect(st, 0), (int)n);
  drain_search_queue();
  verify_ok(st);
}

// The IMAP way out of a full store: the copy that would add mail is
// refused whole, then every message is flagged \Deleted, moved to Trash
// and expunged there, and the store takes about as much mail again. A
// 16 MiB map of small messages, where the move does not fit as one
// transaction even in the reserve (without parts the test fails there).
START_TEST(full_store_emptied_through_trash) {
  open_full_sized(16u << 20);
  uint32_t trash;
  ck_assert_int_eq(ms_mailbox_create(st, &trash, acc, "Trash", 5, MS_ROLE_TRASH), 0);
  unsigned seq = 0, n = fill(inbox, &seq);
  verify_ok(st);
  uint32_t *u = uid_range(n), *out = calloc(n, sizeof *out);
  ck_assert_ptr_nonnull(out);
  memset(out, 0xff, (size_t)n * sizeof *out);
  ck_assert_int_eq(ms_messages_copy(st, out, acc, inbox, trash, u, n), -ENOSPC);
  for (unsigned i = 0; i < n; i++)
    ck_assert_uint_eq(out[i], 0); // nothing from the rolled-back transaction
  ck_assert_uint_eq(total(trash), 0);
  ck_assert_uint_eq(total(inbox), n);

  ck_assert_int_eq(ms_flags_store(st, acc, inbox, u, n, MS_FLAG_DELETED, 0), (int)n);
  struct ms_entry e[64];
  size_t got;
  for (uint32_t from = 1; from <= n; from += (uint32_t)got) {
    ck_assert_int_eq(ms_mailbox_list(st, e, 64, &got, acc, inbox, from), 0);
    ck_assert_uint_gt(got, 0);
    for (size_t i = 0; i < got; i++)
      ck_assert_uint_eq(e[i].flags & MS_FLAG_DELETED, MS_FLAG_DELETED);
  }
  verify_ok(st);

  ck_assert_int_eq(ms_messages_move(st, out, acc, inbox, trash, u, n), (int)n);
  for (unsigned i = 0; i < n; i++)
    ck_assert_uint_eq(out[i], i + 1); // in source order across the parts
  ck_assert_uint_eq(total(inbox), 0);
  ck_assert_uint_eq(total(trash), n);
  verify_ok(st);

  ck_assert_int_eq(ms_messages_expunge(st, acc, trash, NULL, 0), (int)n);
  ck_assert_uint_eq(total(trash), 0);
  expect_emptied(n, &seq);
  free(u);
  free(out);
  close_store();
}
END_TEST

// The JMAP way: Email/set destroy expunges by UID, here in one call for
// every message, and keywords change in one call too.
START_TEST(full_store_keywords_and_expunge_by_uid) {
  open_full_sized(16u << 20);
  unsigned seq = 0, n = fill(inbox, &seq);
  uint32_t *u = uid_range(n);
  const char *kw[] = {"$seen", "$junk"};
  const size_t kwl[] = {5, 5};
  ck_assert_int_eq(ms_keywords_store(st, acc, inbox, u, n, MS_KEYWORDS_ADD, kw, kwl, 2), (int)n);
  verify_ok(st);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, u, n), (int)n);
  ck_assert_uint_eq(total(inbox), 0);
  expect_emptied(n, &seq);
  free(u);
  close_store();
}
END_TEST

// Deleting a full mailbox whole: too large for one transaction, it is
// emptied in parts and then deleted.
START_TEST(full_mailbox_deleted) {
  open_full_sized(4u << 20);
  uint32_t box;
  ck_assert_int_eq(ms_mailbox_create(st, &box, acc, "Archive", 7, 0), 0);
  unsigned seq = 0, n = fill(box, &seq);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, box), 0);
  ck_assert_int_eq(ms_mailbox_find(st, &box, acc, "Archive", 7), MS_ERR_NOTFOUND);
  expect_emptied(n, &seq);
  close_store();
}
END_TEST

// Writes that change mail cannot take the room left for removing it. Here
// moves of whole mailboxes back and forth in a full store, each too large
// for one transaction and for the change log, so that every one adds its
// whole VANISHED history (changelog.c keeps that complete for QRESYNC),
// until a move finds no room. A move may stop partway (RFC 6851 3.3;
// out_uids names what moved, the rest a client would move again); each
// call moves some until then. Both mailboxes can then still be deleted.
START_TEST(moves_leave_room_to_remove) {
  open_full_sized(4u << 20);
  uint32_t from, to;
  ck_assert_int_eq(ms_mailbox_create(st, &from, acc, "One", 3, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &to, acc, "Two", 3, 0), 0);
  const uint32_t one = from, two = to;
  unsigned seq = 0, n = fill(from, &seq);
  uint32_t *u = uid_range(n), *out = calloc(n, sizeof *out), *next = calloc(n, sizeof *next);
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_nonnull(next);
  int rc = 0;
  unsigned rounds = 0;
  for (; rc >= 0; rounds++) {
    ck_assert_uint_lt(rounds, 50);
    unsigned left = n, moved = 0;
    for (unsigned call = 0; left; call++) {
      ck_assert_uint_lt(call, 50);
      rc = ms_messages_move(st, out, acc, from, to, u, left);
      if (rc < 0) {
        ck_assert_int_eq(rc, -ENOSPC);
        for (unsigned i = 0; i < left; i++)
          ck_assert_uint_eq(out[i], 0);
        break;
      }
      ck_assert_int_gt(rc, 0);
      unsigned kept = 0;
      for (unsigned i = 0; i < left; i++) {
        if (out[i])
          next[moved++] = out[i];
        else
          u[kept++] = u[i];
      }
      ck_assert_uint_eq(left - kept, (unsigned)rc);
      left = kept;
    }
    ck_assert_uint_eq(total(from), left);
    ck_assert_uint_eq(total(to), moved);
    if (rc < 0)
      break;
    memcpy(u, next, (size_t)n * sizeof *u);
    uint32_t t = from;
    from = to;
    to = t;
  }
  ck_assert_uint_ge(rounds, 2);
  verify_ok(st);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, one), 0);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, two), 0);
  expect_emptied(n, &seq);
  free(u);
  free(out);
  free(next);
  close_store();
}
END_TEST

// An expunge in a full store grows the map into the reserve; the writes
// that add mail must not then extend the file into it. After five
// messages spread over a full store are expunged (the map grows to its
// maximum for that), a message too large for any run of free pages is
// refused rather than placed past the last page in use, which stays where
// it was; and the store can still be emptied.
START_TEST(delivery_cannot_extend_into_reserve) {
  const struct ms_settings set = settings_sized(4u << 20);
  const uint64_t limit = (4u << 20) - (512u << 10);
  open_full_sized(4u << 20);
  unsigned seq = 0, n = fill(inbox, &seq);
  uint64_t map, in_use;
  ms_store_close(st);
  raw_map_state(dir, &in_use, &map);
  ck_assert_uint_eq(map, limit);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  const uint32_t spread[] = {1, 8, 15, 22, 29};
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, spread, 5), 5);
  ms_store_close(st);
  raw_map_state(dir, &in_use, &map);
  ck_assert_uint_eq(map, 4u << 20);
  const uint64_t in_use_before = in_use;
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  enum { BIG = 200u << 10 };
  static char big[BIG];
  int head = snprintf(big, sizeof big, "Subject: big\r\n\r\n");
  random_bytes(big + head, sizeof big - (size_t)head, 0x2545f4914f6cdd1du);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, inbox, (uint8_t *)big, BIG, 0, 0),
                   -ENOSPC);
  ms_store_close(st);
  raw_map_state(dir, &in_use, &map);
  ck_assert_uint_eq(in_use, in_use_before);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_mailbox_delete(st, acc, inbox), 0);
  ck_assert_uint_eq(used_messages(), 0);
  ck_assert_int_eq(ms_store_collect(st, 0), (int)n);
  verify_ok(st);
  close_store();
}
END_TEST

// Filling and emptying again and again, closing and opening the store in
// between: the reserve that an expunge grew the map into goes back to the
// deliveries' limit each time, so every round ends emptied and every round
// takes about as much mail as the first.
START_TEST(reserve_comes_back_every_round) {
  open_full_sized(4u << 20);
  const struct ms_settings set = settings_sized(4u << 20);
  unsigned seq = 0, first_n = 0;
  uint32_t next_uid = 1;
  for (unsigned round = 0; round < 6; round++) {
    unsigned n = fill(inbox, &seq);
    if (round == 0)
      first_n = n;
    ck_assert_uint_ge(n, first_n - first_n / 10);
    ck_assert_uint_le(n, first_n + first_n / 10);
    empty_by_flags(inbox, next_uid, n);
    next_uid += n;
    ms_store_close(st);
    ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  }
  close_store();
}
END_TEST

// A full disk, played by RLIMIT_FSIZE (a write past the limit fails, with
// SIGXFSZ ignored): a durable store writes zeros ahead of its last page,
// and deliveries stop with -ENOSPC while part of that written tail remains,
// so that flagging, expunging and collecting everything still work and
// the store then takes as much mail again. It stays sound throughout, and
// opens again.
START_TEST(full_disk_leaves_room_to_remove) {
  struct ms_settings set = settings_sized(64u << 20);
  set.no_sync = 0;
  dir = tmp_store_dir();
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  ck_assert_int_eq(ms_account_create(st, &acc, "gil", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  struct rlimit old, disk;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
  disk = old;
  disk.rlim_cur = 3u << 20;
  void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &disk), 0);

  unsigned seq = 0, n = fill(inbox, &seq);
  verify_ok(st);
  empty_by_flags(inbox, 1, n);
  // A message larger than what is left before the kept tail: refused,
  // and from the first pages too (the store empty again).
  ck_assert_int_eq(ms_mailbox_delete(st, acc, inbox), 0);
  ck_assert_int_eq(ms_store_collect(st, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  enum { BIG = 2u << 20 };
  char *big = malloc(BIG);
  ck_assert_ptr_nonnull(big);
  int head = snprintf(big, BIG, "Subject: big\r\n\r\n");
  random_bytes(big + head, BIG - (size_t)head, 0x2545f4914f6cdd1du);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, inbox, (uint8_t *)big, BIG, 0, 0),
                   -ENOSPC);
  free(big);
  unsigned again = fill(inbox, &seq);
  ck_assert_uint_ge(again, n - n / 10);
  ms_store_close(st);
  ck_assert_int_eq(ms_store_open(&st, dir, &set), 0);
  verify_ok(st);

  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, old_xfsz);
  close_store();
}
END_TEST

int main(void) {
  Suite *s = suite_create("full");
  TCase *tc = tcase_create("full");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, full_store_emptied_through_trash);
  tcase_add_test(tc, full_store_keywords_and_expunge_by_uid);
  tcase_add_test(tc, full_mailbox_deleted);
  tcase_add_test(tc, moves_leave_room_to_remove);
  tcase_add_test(tc, delivery_cannot_extend_into_reserve);
  tcase_add_test(tc, reserve_comes_back_every_round);
  tcase_add_test(tc, full_disk_leaves_room_to_remove);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
