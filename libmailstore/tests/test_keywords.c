// test_keywords.c: keywords (RFC 9051 flag-keywords, RFC 8621 Email
// keywords) against a real store: name syntax and limits, add, remove and
// replace on many UIDs in one transaction with MODSEQ rules, system flag
// names, case-insensitive names, the per-mailbox list of keywords in use,
// listing with keywords, copy and move carrying them, expunge dropping them,
// persistence, ms_store_verify catching a bitmap naming an undefined
// keyword, a model test, and atomicity under kill -9.
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>

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

// deliver stores n messages in one batch into mailbox mb; UIDs 1..n when
// the mailbox is new.
static void deliver(uint32_t mb, unsigned n, uint32_t flags) {
  struct ms_delivery *d = calloc(n, sizeof *d);
  char *bufs = malloc((size_t)n * 512);
  ck_assert_ptr_nonnull(d);
  ck_assert_ptr_nonnull(bufs);
  for (unsigned i = 0; i < n; i++) {
    char *b = bufs + (size_t)i * 512;
    d[i] = (struct ms_delivery){.account = acc,
                                .mailbox = mb,
                                .flags = flags,
                                .internal_date = i,
                                .data = (const uint8_t *)b,
                                .len = make_message(b, 512, i, 40)};
  }
  ck_assert_int_eq(ms_messages_deliver(st, d, n), (int)n);
  free(d);
  free(bufs);
}

// names builds the name and length arrays of ms_keywords_store from a
// NULL-terminated list.
struct names {
  const char *v[16];
  size_t len[16];
  size_t n;
};

static struct names mk(const char *first, ...) {
  struct names r = {0};
  va_list ap;
  va_start(ap, first);
  for (const char *p = first; p; p = va_arg(ap, const char *)) {
    r.v[r.n] = p;
    r.len[r.n++] = strlen(p);
  }
  va_end(ap);
  return r;
}

static int kstore(uint32_t mb, const uint32_t *uids, size_t count, int op, struct names nm) {
  return ms_keywords_store(st, acc, mb, uids, count, op, nm.v, nm.len, nm.n);
}

// kw_of returns the names of UID uid's keywords, sorted by id, joined by
// spaces, and its flags in *flags.
static const char *kw_of(uint32_t mb, uint32_t uid, uint32_t *flags) {
  static char out[1024];
  uint32_t ids[64];
  size_t n;
  ck_assert_int_eq(ms_keywords_get(st, ids, 64, &n, flags, acc, mb, uid), 0);
  out[0] = 0;
  for (size_t i = 0; i < n; i++) {
    char name[256];
    size_t len;
    ck_assert_int_eq(ms_keyword_name(st, name, sizeof name, &len, acc, ids[i]), 0);
    if (i)
      strcat(out, " ");
    strncat(out, name, len);
  }
  return out;
}

START_TEST(syntax) {
  const char *good[] = {"$Junk",  "NonJunk", "$Forwarded", "a",         "x.y-z_1",   "~!@#&+=|<>?/",
                        "\\Seen", "\\sEEn",  "\\Answered", "\\Flagged", "\\Deleted", "\\Draft"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(ms_keyword_check(good[i], strlen(good[i]), NULL) == 0, "%s", good[i]);
  const char *bad[] = {"",     "a b", "(a",       "a)",    "{1}", "a%",          "a*",   "a\"",
                       "a\\b", "a]",  "\\Recent", "\\Foo", "\\",  "caf\xc3\xa9", "a\tb", "a\x7f"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(ms_keyword_check(bad[i], strlen(bad[i]), NULL) == MS_ERR_INVALID_ARGUMENT, "%s",
                  bad[i]);
  ck_assert_int_eq(ms_keyword_check("a\0b", 3, NULL), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_keyword_check(NULL, 1, NULL), MS_ERR_INVALID_ARGUMENT);
  char longname[300];
  memset(longname, 'k', sizeof longname);
  ck_assert_int_eq(ms_keyword_check(longname, 255, NULL), 0);
  ck_assert_int_eq(ms_keyword_check(longname, 256, NULL), MS_ERR_LIMIT);
  struct ms_settings s10 = {.max_keyword_len = 10};
  ck_assert_int_eq(ms_keyword_check(longname, 10, &s10), 0);
  ck_assert_int_eq(ms_keyword_check(longname, 11, &s10), MS_ERR_LIMIT);
  // The store refuses what the check refuses, and changes nothing.
  deliver(inbox, 2, 0);
  uint32_t uids[] = {1, 2};
  ck_assert_int_eq(kstore(inbox, uids, 2, MS_KEYWORDS_ADD, mk("ok", "a b", NULL)),
                   MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(kstore(inbox, uids, 2, 0, mk("ok", NULL)), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(kstore(inbox, uids, 2, 4, mk("ok", NULL)), MS_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ms_keywords_store(st, acc, inbox, uids, 2, MS_KEYWORDS_ADD, NULL, NULL, 1),
                   MS_ERR_INVALID_ARGUMENT);
  uint32_t id;
  ck_assert_int_eq(ms_keyword_find(st, &id, acc, "ok", 2), MS_ERR_NOTFOUND);
  ck_assert_str_eq(kw_of(inbox, 1, NULL), "");
}
END_TEST

START_TEST(add_remove_replace) {
  enum { N = 3000 };
  deliver(inbox, N, 0);
  uint32_t *all = malloc(N * sizeof *all);
  for (uint32_t i = 0; i < N; i++)
    all[i] = i + 1;
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  uint64_t m0 = mi.highest_modseq;
  ck_assert_uint_eq(mi.unseen, N);

  // Every message, one transaction, one new MODSEQ.
  ck_assert_int_eq(kstore(inbox, all, N, MS_KEYWORDS_ADD, mk("$Junk", "Work", NULL)), N);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.highest_modseq, m0 + 1);
  ck_assert_str_eq(kw_of(inbox, 1, NULL), "$Junk Work");
  ck_assert_str_eq(kw_of(inbox, N, NULL), "$Junk Work");
  // Adding again changes nothing and takes no MODSEQ; names match
  // case-insensitively and keep their first spelling.
  ck_assert_int_eq(kstore(inbox, all, N, MS_KEYWORDS_ADD, mk("$junk", "WORK", NULL)), 0);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.highest_modseq, m0 + 1);
  uint32_t id;
  ck_assert_int_eq(ms_keyword_find(st, &id, acc, "WoRk", 4), 0);
  ck_assert_uint_eq(id, 1);
  char name[8];
  size_t len;
  ck_assert_int_eq(ms_keyword_name(st, name, 3, &len, acc, 1), MS_ERR_LIMIT);
  ck_assert_uint_eq(len, 4);
  ck_assert_int_eq(ms_keyword_name(st, name, sizeof name, &len, acc, 7), MS_ERR_NOTFOUND);

  // Remove one keyword from the odd UIDs (an unknown name is ignored);
  // the even ones keep their MODSEQ.
  uint32_t odd[N / 2];
  for (uint32_t i = 0; i < N / 2; i++)
    odd[i] = 2 * i + 1;
  ck_assert_int_eq(kstore(inbox, odd, N / 2, MS_KEYWORDS_REMOVE, mk("work", "never", NULL)), N / 2);
  ck_assert_int_eq(ms_keyword_find(st, &id, acc, "never", 5), MS_ERR_NOTFOUND);
  ck_assert_str_eq(kw_of(inbox, 1, NULL), "$Junk");
  ck_assert_str_eq(kw_of(inbox, 2, NULL), "$Junk Work");
  struct ms_entry ents[4];
  size_t ne, nv;
  uint32_t van[4];
  ck_assert_int_eq(ms_mailbox_changes(st, ents, 4, &ne, van, 4, &nv, acc, inbox, m0 + 1),
                   MS_ERR_LIMIT);
  ck_assert_uint_eq(ne, N / 2);
  ck_assert_uint_eq(ents[0].uid, 1);
  ck_assert_uint_eq(ents[1].uid, 3);
  ck_assert_uint_eq(ents[0].modseq, m0 + 2);

  // Replace sets flags and keywords exactly: \Seen through its name moves
  // the unseen count.
  uint32_t some[] = {5, 2, 7, N + 10};
  ck_assert_int_eq(kstore(inbox, some, 4, MS_KEYWORDS_REPLACE, mk("\\Seen", "Later", NULL)), 3);
  uint32_t flags;
  ck_assert_str_eq(kw_of(inbox, 2, &flags), "Later");
  ck_assert_uint_eq(flags, MS_FLAG_SEEN);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.unseen, N - 3);
  // System flags set by ms_flags_store show through ms_keywords_get, and
  // removing \Seen by name counts the message unseen again.
  ck_assert_int_eq(ms_flags_store(st, acc, inbox, some, 1, MS_FLAG_FLAGGED, 0), 1);
  ck_assert_str_eq(kw_of(inbox, 5, &flags), "Later");
  ck_assert_uint_eq(flags, MS_FLAG_SEEN | MS_FLAG_FLAGGED);
  ck_assert_int_eq(kstore(inbox, some, 1, MS_KEYWORDS_REMOVE, mk("\\SEEN", NULL)), 1);
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.unseen, N - 2);
  // Replace with nothing clears everything.
  ck_assert_int_eq(kstore(inbox, some, 1, MS_KEYWORDS_REPLACE, mk(NULL)), 1);
  ck_assert_str_eq(kw_of(inbox, 5, &flags), "");
  ck_assert_uint_eq(flags, 0);

  // Keywords in use: $Junk (0), Work (1, on even UIDs), Later (2).
  uint32_t inuse[8];
  size_t nin;
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, inbox), 0);
  ck_assert_uint_eq(nin, 3);
  ck_assert_uint_eq(inuse[0], 0);
  ck_assert_uint_eq(inuse[2], 2);
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 1, &nin, acc, inbox), MS_ERR_LIMIT);
  ck_assert_uint_eq(nin, 3);
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, arch), 0);
  ck_assert_uint_eq(nin, 0);
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, 99), MS_ERR_NOTFOUND);

  // Remove Work everywhere: no longer in use.
  ck_assert_int_eq(kstore(inbox, all, N, MS_KEYWORDS_REMOVE, mk("Work", NULL)), N / 2 - 1);
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, inbox), 0);
  ck_assert_uint_eq(nin, 2);
  ck_assert_uint_eq(inuse[1], 2);
  free(all);
}
END_TEST

START_TEST(listing_copy_move_expunge) {
  deliver(inbox, 10, 0);
  uint32_t u3[] = {3}, u47[] = {4, 7}, all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  ck_assert_int_eq(kstore(inbox, u3, 1, MS_KEYWORDS_ADD, mk("a", "b", "c", NULL)), 1);
  ck_assert_int_eq(kstore(inbox, u47, 2, MS_KEYWORDS_ADD, mk("b", NULL)), 2);

  // Listing with keywords, paged by the ids capacity.
  struct ms_keyword_entry e[16];
  uint32_t ids[16];
  size_t ne, ni;
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 16, &ne, ids, 16, &ni, acc, inbox, 1), 0);
  ck_assert_uint_eq(ne, 10);
  ck_assert_uint_eq(ni, 5);
  ck_assert_uint_eq(e[2].entry.uid, 3);
  ck_assert_uint_eq(e[2].count, 3);
  ck_assert_uint_eq(ids[e[2].first + 2], 2);
  ck_assert_uint_eq(e[3].count, 1);
  ck_assert_uint_eq(ids[e[3].first], 1);
  ck_assert_uint_eq(e[0].count, 0);
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 16, &ne, ids, 2, &ni, acc, inbox, 1), 0);
  ck_assert_uint_eq(ne, 2); // UID 3's three ids do not fit
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 16, &ne, ids, 2, &ni, acc, inbox, 3),
                   MS_ERR_LIMIT);
  ck_assert_uint_eq(ne, 0);
  ck_assert_int_eq(ms_mailbox_list_keywords(st, e, 16, &ne, ids, 16, &ni, acc, inbox, 8), 0);
  ck_assert_uint_eq(ne, 3);
  ck_assert_uint_eq(e[0].entry.uid, 8);

  // Copy and move carry the keywords; the source keeps or loses them.
  uint32_t out[2];
  ck_assert_int_eq(ms_messages_copy(st, out, acc, inbox, arch, u3, 1), 1);
  ck_assert_str_eq(kw_of(arch, out[0], NULL), "a b c");
  ck_assert_str_eq(kw_of(inbox, 3, NULL), "a b c");
  ck_assert_int_eq(ms_messages_move(st, out, acc, inbox, arch, u47, 2), 2);
  ck_assert_str_eq(kw_of(arch, out[0], NULL), "b");
  ck_assert_str_eq(kw_of(arch, out[1], NULL), "b");
  uint32_t sfl;
  ck_assert_int_eq(ms_keywords_get(st, ids, 16, &ni, &sfl, acc, inbox, 4), MS_ERR_NOTFOUND);
  // Keywords are per membership: changing them in one mailbox leaves the
  // copy alone.
  ck_assert_int_eq(kstore(inbox, u3, 1, MS_KEYWORDS_REMOVE, mk("a", NULL)), 1);
  ck_assert_str_eq(kw_of(inbox, 3, NULL), "b c");
  ck_assert_str_eq(kw_of(arch, 1, NULL), "a b c");

  // Expunge drops them; the mailbox no longer lists them.
  ck_assert_int_eq(ms_messages_expunge(st, acc, inbox, all, 10), 8);
  uint32_t inuse[8];
  size_t nin;
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, inbox), 0);
  ck_assert_uint_eq(nin, 0);
  ck_assert_int_eq(ms_mailbox_keywords(st, inuse, 8, &nin, acc, arch), 0);
  ck_assert_uint_eq(nin, 3);

  // Persistence across reopening.
  ms_store_close(st);
  open_store();
  ck_assert_str_eq(kw_of(arch, 1, NULL), "a b c");
  ck_assert_int_eq(ms_mailbox_delete(st, acc, arch), 0);
}
END_TEST

START_TEST(account_limit) {
  ms_store_close(st);
  settings.max_keywords = 4;
  open_store();
  deliver(inbox, 3, 0);
  uint32_t uids[] = {1, 2, 3};
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_ADD, mk("k1", "k2", "k3", NULL)), 3);
  // Two new ones exceed the limit of 4: the whole call fails, nothing
  // changes, not even the first new name.
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_REPLACE, mk("k4", "k5", NULL)), MS_ERR_LIMIT);
  uint32_t id;
  ck_assert_int_eq(ms_keyword_find(st, &id, acc, "k4", 2), MS_ERR_NOTFOUND);
  ck_assert_str_eq(kw_of(inbox, 2, NULL), "k1 k2 k3");
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_ADD, mk("k4", NULL)), 3);
  // Ids are kept when unused: k1 still counts.
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_REMOVE, mk("k1", NULL)), 3);
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_ADD, mk("k5", NULL)), MS_ERR_LIMIT);
  ck_assert_int_eq(kstore(inbox, uids, 3, MS_KEYWORDS_ADD, mk("K1", NULL)), 3);
  uint32_t count, max;
  ck_assert_int_eq(ms_keyword_count(st, &count, &max, acc), 0);
  ck_assert_uint_eq(count, 4);
  ck_assert_uint_eq(max, 4);
  ck_assert_int_eq(ms_keyword_count(st, &count, NULL, 99), MS_ERR_NOTFOUND);
  // Other accounts have their own table.
  uint32_t bob, bin;
  ck_assert_int_eq(ms_account_create(st, &bob, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &bin, bob, "INBOX", 5, 0), 0);
  ck_assert_int_eq(ms_keyword_find(st, &id, bob, "k1", 2), MS_ERR_NOTFOUND);
  struct names nm = mk("k9", NULL);
  ck_assert_int_eq(ms_keywords_store(st, bob, bin, uids, 3, MS_KEYWORDS_ADD, nm.v, nm.len, nm.n),
                   0);
  ck_assert_int_eq(ms_keyword_find(st, &id, bob, "k9", 2), 0);
  ck_assert_uint_eq(id, 0);
  ck_assert_int_eq(ms_keywords_store(st, acc, 99, uids, 3, MS_KEYWORDS_ADD, nm.v, nm.len, nm.n),
                   MS_ERR_NOTFOUND);
}
END_TEST

// put_raw replaces the value of key in DBI dbi with v (vlen bytes).
static void put_raw(const char *dbi, const uint8_t *key, size_t klen, const uint8_t *v,
                    size_t vlen) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 32);
  ck_assert_int_eq(mdb_env_open(env, dir, 0, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, dbi, 0, &d), 0);
  MDB_val k = {klen, (void *)key}, nv = {vlen, (void *)v};
  ck_assert_int_eq(mdb_put(t, d, &k, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
}

static size_t get_raw(const char *dbi, const uint8_t *key, size_t klen, uint8_t *out, size_t cap) {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 32);
  ck_assert_int_eq(mdb_env_open(env, dir, MDB_RDONLY, 0600), 0);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, dbi, 0, &d), 0);
  MDB_val k = {klen, (void *)key}, v;
  ck_assert_int_eq(mdb_get(t, d, &k, &v), 0);
  ck_assert_uint_le(v.mv_size, cap);
  memcpy(out, v.mv_data, v.mv_size);
  mdb_txn_abort(t);
  mdb_env_close(env);
  return v.mv_size;
}

START_TEST(verify_catches_damage) {
  deliver(inbox, 2, 0);
  uint32_t one[] = {1};
  ck_assert_int_eq(kstore(inbox, one, 1, MS_KEYWORDS_ADD, mk("x", NULL)), 1);
  ms_store_close(st);
  // The record carries the bitmap: 20 fixed bytes and one byte with bit 0.
  uint8_t k[12] = {0}, v[200];
  k[3] = (uint8_t)acc;
  k[7] = (uint8_t)inbox;
  k[11] = 1;
  size_t n = get_raw("uids", k, sizeof k, v, sizeof v);
  ck_assert_uint_eq(n, 21);
  ck_assert_uint_eq(v[20], 1);
  // Bit 9 names keyword 9, which the account never defined.
  uint8_t bad[22];
  memcpy(bad, v, 21);
  bad[20] = 1;
  bad[21] = 2;
  put_raw("uids", k, sizeof k, bad, sizeof bad);
  open_store();
  struct ms_diag dg;
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_ptr_nonnull(strstr(dg.message, "undefined keyword 9"));
  ms_store_close(st);
  // A trailing zero byte is not canonical: the record does not decode.
  bad[21] = 0;
  put_raw("uids", k, sizeof k, bad, sizeof bad);
  open_store();
  uint32_t ids[4];
  size_t ni;
  ck_assert_int_eq(ms_keywords_get(st, ids, 4, &ni, NULL, acc, inbox, 1), MS_ERR_CORRUPT);
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ms_store_close(st);
  // A keyword name that is not an atom.
  put_raw("uids", k, sizeof k, v, n);
  uint8_t kk[6] = {0};
  kk[3] = (uint8_t)acc;
  put_raw("keywords", kk, sizeof kk, (const uint8_t *)"a b", 3);
  open_store();
  ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
  ck_assert_ptr_nonnull(strstr(dg.message, "keyword table"));
  ms_store_close(st);
  put_raw("keywords", kk, sizeof kk, (const uint8_t *)"x", 1);
  open_store();
  ck_assert_int_eq(ms_store_verify(st, &dg), 0);
}
END_TEST

// A model of flags and keywords per UID, driven by random operations and
// compared with the store after each: the result count, every UID's flags
// and keyword names, MODSEQs moving exactly for changed memberships, and
// the unseen count.
START_TEST(random_against_model) {
  enum { N = 64, OPS = 150 };
  static const char *pool[] = {"$Junk", "$NotJunk", "Work",      "Home",     "$Forwarded",
                               "todo",  "\\Seen",   "\\Flagged", "\\Deleted"};
  enum { NPOOL = sizeof pool / sizeof pool[0], NKW = 6 };
  deliver(inbox, N, 0);
  uint32_t model_flags[N + 1] = {0}, model_kw[N + 1] = {0}; // bit i: pool[i]
  uint64_t model_ms[N + 1];
  struct ms_entry ents[N];
  size_t ne;
  ck_assert_int_eq(ms_mailbox_list(st, ents, N, &ne, acc, inbox, 1), 0);
  for (size_t i = 0; i < ne; i++)
    model_ms[ents[i].uid] = ents[i].modseq;
  srand(11);
  for (int op = 0; op < OPS; op++) {
    int kind = 1 + rand() % 3;
    struct names nm = {0};
    uint32_t want = 0;
    for (int i = 0; i < NPOOL; i++)
      if (rand() % 3 == 0) {
        nm.v[nm.n] = pool[i];
        nm.len[nm.n++] = strlen(pool[i]);
        want |= 1u << i;
      }
    // Names in another case still match.
    char upper[16][16];
    for (size_t i = 0; i < nm.n; i++)
      if (rand() % 2 && nm.v[i][0] != '\\') {
        for (size_t j = 0; j <= nm.len[i]; j++)
          upper[i][j] =
              (char)(nm.v[i][j] >= 'a' && nm.v[i][j] <= 'z' ? nm.v[i][j] - 32 : nm.v[i][j]);
        nm.v[i] = upper[i];
      }
    uint32_t uids[N + 8];
    size_t nu = 0;
    for (uint32_t u = 1; u <= N + 4; u++)
      if (rand() % 4 == 0)
        uids[nu++] = u;
    int changed = 0;
    uint32_t sysbits[3] = {MS_FLAG_SEEN, MS_FLAG_FLAGGED, MS_FLAG_DELETED};
    for (size_t i = 0; i < nu; i++) {
      uint32_t u = uids[i];
      if (u > N)
        continue;
      uint32_t kw = model_kw[u], fl = model_flags[u];
      uint32_t wk = want & ((1u << NKW) - 1), wf = 0;
      for (int j = 0; j < 3; j++)
        if (want >> (NKW + j) & 1)
          wf |= sysbits[j];
      if (kind == MS_KEYWORDS_ADD) {
        kw |= wk;
        fl |= wf;
      } else if (kind == MS_KEYWORDS_REMOVE) {
        kw &= ~wk;
        fl &= ~wf;
      } else {
        kw = wk;
        fl = wf;
      }
      if (kw != model_kw[u] || fl != model_flags[u]) {
        changed++;
        model_kw[u] = kw;
        model_flags[u] = fl;
        model_ms[u] = 0; // must move
      }
    }
    struct ms_mailbox_info before;
    ck_assert_int_eq(ms_mailbox_get(st, &before, acc, inbox), 0);
    ck_assert_int_eq(kstore(inbox, uids, nu, kind, nm), changed);
    ck_assert_int_eq(ms_mailbox_list(st, ents, N, &ne, acc, inbox, 1), 0);
    unsigned unseen = 0;
    for (size_t i = 0; i < ne; i++) {
      uint32_t u = ents[i].uid;
      ck_assert_uint_eq(ents[i].flags, model_flags[u]);
      if (model_ms[u] == 0) {
        ck_assert_uint_eq(ents[i].modseq, before.highest_modseq + 1);
        model_ms[u] = ents[i].modseq;
      } else {
        ck_assert_uint_eq(ents[i].modseq, model_ms[u]);
      }
      unseen += !(model_flags[u] & MS_FLAG_SEEN);
      uint32_t ids[16];
      size_t nid;
      ck_assert_int_eq(ms_keywords_get(st, ids, 16, &nid, NULL, acc, inbox, u), 0);
      size_t cnt = 0;
      for (int b = 0; b < NKW; b++)
        if (model_kw[u] >> b & 1) {
          uint32_t id;
          ck_assert_int_eq(ms_keyword_find(st, &id, acc, pool[b], strlen(pool[b])), 0);
          int found = 0;
          for (size_t j = 0; j < nid; j++)
            found |= ids[j] == id;
          ck_assert_msg(found, "UID %u lacks %s", u, pool[b]);
          cnt++;
        }
      ck_assert_msg(nid == cnt, "UID %u has %zu keywords, model %zu", u, nid, cnt);
    }
    struct ms_mailbox_info after;
    ck_assert_int_eq(ms_mailbox_get(st, &after, acc, inbox), 0);
    ck_assert_uint_eq(after.unseen, unseen);
    ck_assert_uint_eq(after.highest_modseq, before.highest_modseq + (changed ? 1 : 0));
  }
}
END_TEST

// kill -9 during durable keyword changes of a whole mailbox: each
// transaction replaces every message's keywords with "gN" and reports N
// through a pipe once it returned. After the kill the store verifies, every
// message carries the same single keyword (no transaction is half there),
// and it is the last acknowledged one or the one after it.
START_TEST(kill9_during_keyword_changes) {
  // Names cycle through CYCLE values per round: an account keeps every
  // keyword it ever defined, up to max_keywords (256), and a fast child
  // would otherwise define more than that before it is killed. Each round
  // has names of its own ("r<round>g<n>"): a slow child killed after its
  // first change would otherwise leave the name the next round starts
  // with, whose first change then changes nothing (and returns 0).
  enum { N = 2000, ROUNDS = 4, CYCLE = 50 };
  deliver(inbox, N, 0);
  ms_store_close(st);
  srand((unsigned)time(NULL));
  int acked_rounds = 0;
  for (int round = 0; round < ROUNDS; round++) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      close(p[0]);
      ms_store *cs;
      if (ms_store_open(&cs, dir, NULL) != 0) // durable: no no_sync
        _exit(2);
      static uint32_t all[N];
      for (uint32_t i = 0; i < N; i++)
        all[i] = i + 1;
      for (uint32_t g = (uint32_t)round * 100000u + 1;; g++) {
        char name[32];
        const char *nm = name;
        size_t len = (size_t)snprintf(name, sizeof name, "r%dg%u", round, g % CYCLE);
        if (ms_keywords_store(cs, acc, inbox, all, N, MS_KEYWORDS_REPLACE, &nm, &len, 1) != N ||
            write(p[1], &g, sizeof g) != sizeof g)
          _exit(3);
      }
    }
    close(p[1]);
    // Wait for the child's first acknowledged change before the random
    // delay, so that a slow machine (ASan under load) still kills it in
    // the middle of its work rather than while it opens the store.
    uint32_t last = 0, g;
    if (read(p[0], &g, sizeof g) == sizeof g)
      last = g;
    struct timespec ts = {0, (long)(rand() % 250) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status), "child exited by itself: %d", WEXITSTATUS(status));
    while (read(p[0], &g, sizeof g) == sizeof g)
      last = g;
    close(p[0]);
    open_store();
    struct ms_diag dg;
    ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
    char first[64];
    strcpy(first, kw_of(inbox, 1, NULL));
    for (uint32_t u = 2; u <= N; u += 97)
      ck_assert_str_eq(kw_of(inbox, u, NULL), first);
    ck_assert_str_eq(kw_of(inbox, N, NULL), first);
    if (last) {
      acked_rounds++;
      char want[32], next[32];
      snprintf(want, sizeof want, "r%dg%u", round, last % CYCLE);
      snprintf(next, sizeof next, "r%dg%u", round, (last + 1) % CYCLE);
      ck_assert_msg(strcmp(first, want) == 0 || strcmp(first, next) == 0,
                    "keyword %s after acknowledging %s", first, want);
    }
    ms_store_close(st);
  }
  ck_assert_int_gt(acked_rounds, 0); // the children got some work done
  open_store();
}
END_TEST

int main(void) {
  Suite *s = suite_create("keywords");
  TCase *tc = tcase_create("keywords");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, syntax);
  tcase_add_test(tc, add_remove_replace);
  tcase_add_test(tc, listing_copy_move_expunge);
  tcase_add_test(tc, account_limit);
  tcase_add_test(tc, verify_catches_damage);
  tcase_add_test(tc, random_against_model);
  tcase_add_test(tc, kill9_during_keyword_changes);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
