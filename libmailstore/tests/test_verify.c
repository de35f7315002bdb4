// test_verify.c: ms_store_verify, the check administrators run after a
// crash, naming each kind of damage it looks for. Every test starts from a
// small real store built through the public API (three deliveries, a copy
// so one message has two memberships, an expunge so a VANISHED and a
// release queue entry exist, and an account with nothing in it) that passes
// verification; it then damages exactly one record through a raw LMDB
// handle, as another program or a torn write would, reopens the store and
// expects verify to fail with the diagnostic meant for that damage, not
// merely some diagnostic. Damage that an earlier check necessarily sees
// first is built so that the later check is the first to see it (a stray
// message record, an account with no mailboxes or messages).
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

static char *dir;
static ms_store *st;
static uint32_t acc, inbox, arch, bob;
static struct ms_mailbox_info inbox_info;

static uint32_t get_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// Messages 1..3 go to INBOX as UIDs 1..3 with message ids 1..3; message 3
// is copied to Archive (two memberships); UID 1 is expunged, which deletes
// message 1 and leaves a VANISHED entry and a release queue entry for its
// blob (not collected). bob has no mailboxes and no messages.
static void setup(void) {
  new_store(&dir, &st, NULL, "alice", &acc, &inbox);
  ck_assert_int_eq(ms_mailbox_create(st, &arch, acc, "Archive", 7, MS_ROLE_ARCHIVE), 0);
  char buf[1024];
  for (unsigned n = 1; n <= 3; n++) {
    size_t len = make_message(buf, sizeof buf, n, 200);
    uint64_t id;
    uint32_t uid;
    ck_assert_int_eq(ms_message_append(st, &id, &uid, acc, inbox, (uint8_t *)buf, len, 0, n), 0);
    ck_assert_uint_eq(id, n);
    ck_assert_uint_eq(uid, n);
  }
  uint32_t one = 1, three = 3, out;
  ck_assert_int_eq(ms_messages_copy(st, &out, acc, inbox, arch, &three, 1), 1);
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, &one, 1), 1);
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_get(st, &inbox_info, acc, inbox), 0);
  verify_ok(st);
  ms_store_close(st);
  st = NULL;
}

static void teardown(void) {
  ms_store_close(st);
  st = NULL;
  rm_store_dir(dir);
}

// expect_bad reopens the damaged store and asserts that verify fails and
// that its first diagnostic contains the words printf formats from `fmt`.
__attribute__((format(printf, 1, 2))) static void expect_bad(const char *fmt, ...) {
  char want[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  struct ms_diag dg;
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_int_eq(dg.code, MS_ERR_CORRUPT);
  ck_assert_msg(strstr(dg.message, want) != NULL, "verify said \"%s\", expected \"%s\"", dg.message,
                want);
}

// A uid record cut to 19 bytes, shorter than its fixed part: it no longer
// holds a whole message id, so nothing it says can be followed.
START_TEST(uid_record_does_not_decode) {
  struct raw r = raw_begin(dir, "uids");
  uint8_t k[12];
  raw_uid_key(k, acc, inbox, 2);
  size_t n;
  uint8_t *v = raw_get(&r, k, sizeof k, &n);
  ck_assert_uint_eq(n, 20);
  raw_put(&r, k, sizeof k, v, 19);
  free(v);
  raw_commit(&r);
  expect_bad("account %u mailbox %u UID 2: record does not decode", acc, inbox);
}
END_TEST

// Message 2's record is gone while UID 2 still names it: a FETCH of that
// UID would find nothing.
START_TEST(uid_names_missing_message) {
  struct raw r = raw_begin(dir, "messages");
  uint8_t k[12];
  raw_msg_key(k, acc, 2);
  raw_del(&r, k, sizeof k);
  raw_commit(&r);
  expect_bad("account %u mailbox %u UID 2: message 2 missing or damaged", acc, inbox);
}
END_TEST

// Message 2's record carries an unknown record version. Every message
// record of a consistent store is named by some UID, so a damaged one is
// reported here, through the UID, before the walk over message records
// (see stray_message_record_does_not_decode).
START_TEST(uid_names_damaged_message) {
  uint8_t k[12];
  raw_msg_key(k, acc, 2);
  raw_patch(dir, "messages", k, sizeof k, 0, 0x7f);
  expect_bad("account %u mailbox %u UID 2: message 2 missing or damaged", acc, inbox);
}
END_TEST

// Archive's mailbox record is lost: its one uid record (message 3's copy)
// now belongs to no mailbox, and the walk over mailboxes never reaches it,
// so only the count of all uid records can tell.
START_TEST(uid_records_without_mailbox) {
  struct raw r = raw_begin(dir, "mailboxes");
  uint8_t k[8];
  be32(k, acc);
  be32(k + 4, arch);
  raw_del(&r, k, sizeof k);
  raw_commit(&r);
  expect_bad("1 UID records belong to no mailbox");
}
END_TEST

// A message record under an id no UID names (message 50, as a torn write
// might leave), one byte short of its fixed length. No UID leads to it, so
// only the walk over message records can see that it does not decode.
START_TEST(stray_message_record_does_not_decode) {
  struct raw r = raw_begin(dir, "messages");
  uint8_t k[12];
  raw_msg_key(k, acc, 2);
  size_t n;
  uint8_t *v = raw_get(&r, k, sizeof k, &n);
  ck_assert_uint_eq(n, 61);
  raw_msg_key(k, acc, 50);
  raw_put(&r, k, sizeof k, v, n - 1);
  free(v);
  raw_commit(&r);
  expect_bad("a message record of account %u does not decode", acc);
}
END_TEST

// Message 3, in INBOX and Archive, claims one membership: expunging it from
// one mailbox would destroy it and release its blob while the other still
// shows it.
START_TEST(membership_count_disagrees) {
  uint8_t k[12];
  raw_msg_key(k, acc, 3);
  ck_assert_uint_eq(raw_patch(dir, "messages", k, sizeof k, 17, 1), 2);
  expect_bad("account %u message 3: 1 mailbox entries recorded, another number found", acc);
}
END_TEST

// bob's account record carries an unknown record version. bob has no
// mailboxes and no messages, so no other check loads it first (for alice
// the mailbox walk would report her account as missing or damaged).
START_TEST(account_record_does_not_decode) {
  uint8_t k[4];
  be32(k, bob);
  raw_patch(dir, "accounts", k, sizeof k, 0, 0x7f);
  expect_bad("an account record does not decode");
}
END_TEST

// The VANISHED entry of the expunge (INBOX, its MODSEQ, UID 1), rewritten
// four ways a QRESYNC client would be told about a UID it never had or at
// a MODSEQ it cannot ask past: with a value, in a mailbox that does not
// exist, at a MODSEQ above the mailbox's HIGHESTMODSEQ, and at UIDNEXT.
START_TEST(vanished_entry_out_of_range) {
  struct raw r = raw_begin(dir, "vanished");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(kn, 20);
  ck_assert_uint_eq(vn, 0);
  ck_assert_uint_eq(get_be32(k + 4), inbox);
  ck_assert_uint_eq(get_be32(k + 16), 1);
  raw_del(&r, k, kn);
  switch (_i) {
  case 0:
    v[0] = 1;
    vn = 1;
    break;
  case 1:
    be32(k + 4, 99);
    break;
  case 2:
    be64(k + 8, inbox_info.highest_modseq + 1);
    break;
  default:
    be32(k + 16, inbox_info.uidnext);
    break;
  }
  raw_put(&r, k, kn, v, vn);
  free(k);
  free(v);
  raw_commit(&r);
  expect_bad("a VANISHED entry names no live mailbox or lies beyond its MODSEQ or UIDNEXT");
}
END_TEST

// The release queue entry of message 1's blob cut to 31 bytes: it no
// longer names a blob, so collect could not drop the reference it holds.
START_TEST(release_entry_malformed) {
  struct raw r = raw_begin(dir, "release");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(vn, 32);
  raw_put(&r, k, kn, v, vn - 1);
  free(k);
  free(v);
  raw_commit(&r);
  expect_bad("a release queue entry is malformed");
}
END_TEST

// A blob's reference count raised by one: collect would never bring it to
// zero and the blob would leak (one lowered would free it under a message).
START_TEST(blob_refcount_disagrees) {
  struct raw r = raw_begin(dir, "blobs");
  size_t kn, vn;
  uint8_t *v, *k = raw_at(&r, MDB_FIRST, &kn, &v, &vn);
  ck_assert_uint_eq(kn, 32);
  ck_assert_uint_eq(v[1], 1);
  v[1] = 2;
  raw_put(&r, k, kn, v, vn);
  free(k);
  free(v);
  raw_commit(&r);
  expect_bad("reference count 2 disagrees with the messages naming it");
}
END_TEST

// A trained dictionary whose record carries an unknown record version. No
// blob is compressed with it (all were delivered before training), so the
// blob checks do not stumble on it first, and open tolerates it by design:
// only verify can name it.
START_TEST(dictionary_record_malformed) {
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  char buf[2048];
  for (unsigned n = 10; n < 110; n++) {
    size_t len = make_message(buf, sizeof buf, n, 200 + n * 7 % 800);
    ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, inbox, (uint8_t *)buf, len, 0, n), 0);
  }
  uint32_t id;
  ck_assert_int_eq(ms_store_train(st, &id, 0), 0);
  ck_assert_uint_eq(id, 1);
  verify_ok(st);
  ms_store_close(st);
  st = NULL;
  uint8_t k[4];
  be32(k, id);
  raw_patch(dir, "dicts", k, sizeof k, 0, 0x7f);
  expect_bad("a dictionary record is malformed");
}
END_TEST

// ms_message_digest is the SHA-256 of the bytes a whole read returns. A
// body zstd keeps in a raw block (bytes that do not compress) reads back
// damaged without an error; only the digest, and verify, tell.
START_TEST(digest_tells_damage_a_read_does_not) {
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  char buf[1024];
  uint8_t want[32], got[32];
  size_t len = make_message(buf, sizeof buf, 2, 200);
  SHA256((const uint8_t *)buf, len, want);
  ck_assert_int_eq(ms_message_digest(st, got, acc, 2), 0);
  ck_assert_mem_eq(got, want, 32);
  // The same bytes delivered again are a new message with the same digest.
  uint64_t again;
  ck_assert_int_eq(ms_message_append(st, &again, NULL, acc, arch, (uint8_t *)buf, len, 0, 9), 0);
  ck_assert_int_eq(ms_message_digest(st, got, acc, again), 0);
  ck_assert_mem_eq(got, want, 32);
  // Expunged, never handed out, another account's.
  ck_assert_int_eq(ms_message_digest(st, got, acc, 1), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_digest(st, got, acc, 99), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_digest(st, got, bob, 2), MS_ERR_NOTFOUND);

  static const char head[] = "Subject: noise\r\nContent-Type: application/octet-stream\r\n\r\n";
  enum { NOISE = 6000 };
  uint8_t msg[sizeof head - 1 + NOISE];
  memcpy(msg, head, sizeof head - 1);
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (size_t i = sizeof head - 1; i < sizeof msg; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; // xorshift64: bytes zstd cannot shrink
    msg[i] = (uint8_t)(x >> 24);
  }
  uint64_t noisy;
  ck_assert_int_eq(ms_message_append(st, &noisy, NULL, acc, inbox, msg, sizeof msg, 0, 10), 0);
  SHA256(msg, sizeof msg, want);
  ck_assert_int_eq(ms_message_digest(st, got, acc, noisy), 0);
  ck_assert_mem_eq(got, want, 32);
  verify_ok(st);
  ms_store_close(st);
  st = NULL;

  // Flip one bit of the body where its blob holds it verbatim.
  struct raw r = raw_begin(dir, "blobs");
  MDB_cursor *c;
  MDB_val k, v;
  ck_assert_int_eq(mdb_cursor_open(r.t, r.d, &c), 0);
  const uint8_t *probe = msg + sizeof msg - 2000;
  bool flipped = false;
  while (!flipped && mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    const uint8_t *at = memmem(v.mv_data, v.mv_size, probe, 64);
    if (at == NULL)
      continue;
    uint8_t *copy = malloc(v.mv_size);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[at - (const uint8_t *)v.mv_data + 5] ^= 0x10;
    uint8_t key[32];
    memcpy(key, k.mv_data, 32);
    mdb_cursor_close(c);
    c = NULL;
    raw_put(&r, key, sizeof key, copy, v.mv_size);
    free(copy);
    flipped = true;
  }
  if (c != NULL)
    mdb_cursor_close(c);
  ck_assert_msg(flipped, "the incompressible body is not verbatim in any blob");
  raw_commit(&r);

  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  uint8_t *back = malloc(sizeof msg);
  ck_assert_ptr_nonnull(back);
  ck_assert_int_eq(ms_message_read(st, back, sizeof msg, &len, acc, noisy), 0);
  ck_assert_uint_eq(len, sizeof msg);
  size_t differ = 0;
  for (size_t i = 0; i < len; i++)
    differ += back[i] != msg[i];
  ck_assert_uint_eq(differ, 1);
  ck_assert_int_eq(ms_message_digest(st, got, acc, noisy), 0);
  ck_assert_mem_eq(got, want, 32); // the digest is of the bytes delivered
  SHA256(back, len, got);
  ck_assert_mem_ne(got, want, 32);
  free(back);
  ms_store_close(st);
  st = NULL;
  expect_bad("content damaged (does not decompress to its SHA-256)");
}
END_TEST

int main(void) {
  Suite *s = suite_create("verify");
  TCase *tc = tcase_create("verify");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, uid_record_does_not_decode);
  tcase_add_test(tc, uid_names_missing_message);
  tcase_add_test(tc, uid_names_damaged_message);
  tcase_add_test(tc, uid_records_without_mailbox);
  tcase_add_test(tc, stray_message_record_does_not_decode);
  tcase_add_test(tc, membership_count_disagrees);
  tcase_add_test(tc, account_record_does_not_decode);
  tcase_add_loop_test(tc, vanished_entry_out_of_range, 0, 4);
  tcase_add_test(tc, release_entry_malformed);
  tcase_add_test(tc, blob_refcount_disagrees);
  tcase_add_test(tc, dictionary_record_malformed);
  tcase_add_test(tc, digest_tells_damage_a_read_does_not);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
