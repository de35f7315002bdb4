// store_util.h: helpers shared by the store tests: a fresh store in a
// temporary directory that is removed afterwards, with an account and its
// INBOX; the full consistency check; direct LMDB access to the store file
// (as another program would have); and a message generator.
#ifndef MS_STORE_UTIL_H
#define MS_STORE_UTIL_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

#include "mailstore.h"

// Every temporary directory of a test program lies in one root,
// $TMPDIR/ms-test-XXXXXX, removed when the program exits, even after a test
// failed or crashed (corvid_test_tmp.h).
#define CORVID_TEST_TMP_NAME "ms-test"
#include "corvid_test_tmp.h"

// tmp_store_dir makes a fresh directory inside the program's root (free
// it with rm_store_dir; the root goes at exit anyway).
static inline char *tmp_store_dir(void) {
  const char *base = getenv("TMPDIR");
  char *dir = malloc(4096);
  ck_assert_ptr_nonnull(dir);
  if (corvid_test_root[0])
    snprintf(dir, 4096, "%s/store-XXXXXX", corvid_test_root);
  else
    snprintf(dir, 4096, "%s/ms-test-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  return dir;
}

static inline void rm_store_dir(char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char p[4200];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
  free(dir);
}

// verify_ok asserts that the store passes its full consistency check,
// naming the first problem when it does not.
static inline void verify_ok(ms_store *st) {
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
}

// new_store opens a store with settings `set` in a fresh temporary
// directory (*dir, for rm_store_dir) and creates an account named `name`
// with its INBOX.
static inline void new_store(char **dir, ms_store **st, const struct ms_settings *set,
                             const char *name, uint32_t *acct, uint32_t *box) {
  *dir = tmp_store_dir();
  ck_assert_int_eq(ms_store_open(st, *dir, set), 0);
  ck_assert_int_eq(ms_account_create(*st, acct, name, strlen(name), 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(*st, box, *acct, "INBOX", 5, MS_ROLE_INBOX), 0);
}

// raw_env opens the store's file directly, as another program would.
static inline MDB_env *raw_env(const char *dir) {
  MDB_env *env;
  ck_assert_int_eq(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 32);
  ck_assert_int_eq(mdb_env_open(env, dir, 0, 0600), 0);
  return env;
}

// raw_map_state reads, through a raw handle on the closed store in `dir`,
// where its last page in use ends (*used, bytes) and the map size the file
// records (*map: its last writer's; LMDB records only growth).
static inline void raw_map_state(const char *dir, uint64_t *used, uint64_t *map) {
  MDB_env *env = raw_env(dir);
  MDB_envinfo info;
  MDB_stat es;
  ck_assert_int_eq(mdb_env_info(env, &info), 0);
  ck_assert_int_eq(mdb_env_stat(env, &es), 0);
  *used = ((uint64_t)info.me_last_pgno + 1) * es.ms_psize;
  *map = info.me_mapsize;
  mdb_env_close(env);
}

// A write transaction on one DBI of the store file in `dir`, outside the
// library, as another program would make it.
struct raw {
  MDB_env *env;
  MDB_txn *t;
  MDB_dbi d;
};

static inline struct raw raw_begin(const char *dir, const char *dbi) {
  struct raw r = {raw_env(dir), NULL, 0};
  ck_assert_int_eq(mdb_txn_begin(r.env, NULL, 0, &r.t), 0);
  ck_assert_int_eq(mdb_dbi_open(r.t, dbi, 0, &r.d), 0);
  return r;
}

static inline void raw_commit(struct raw *r) {
  ck_assert_int_eq(mdb_txn_commit(r->t), 0);
  mdb_env_close(r->env);
}

// raw_get returns a copy of the value at `key` (free it), its length in
// *len; the copy outlives the transaction and may be edited.
static inline uint8_t *raw_get(struct raw *r, const uint8_t *key, size_t klen, size_t *len) {
  MDB_val k = {klen, (void *)key}, v;
  ck_assert_int_eq(mdb_get(r->t, r->d, &k, &v), 0);
  uint8_t *copy = malloc(v.mv_size + 1);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, v.mv_data, v.mv_size);
  *len = v.mv_size;
  return copy;
}

// raw_at returns a copy of the key (free it) the cursor operation `op`
// (MDB_FIRST or MDB_LAST) lands on, with its length in *klen and a copy
// of its value in *val (free it), *vlen long.
static inline uint8_t *raw_at(struct raw *r, MDB_cursor_op op, size_t *klen, uint8_t **val,
                              size_t *vlen) {
  MDB_cursor *c;
  MDB_val k, v;
  ck_assert_int_eq(mdb_cursor_open(r->t, r->d, &c), 0);
  ck_assert_int_eq(mdb_cursor_get(c, &k, &v, op), 0);
  uint8_t *key = malloc(k.mv_size);
  *val = malloc(v.mv_size + 1);
  ck_assert_ptr_nonnull(key);
  ck_assert_ptr_nonnull(*val);
  memcpy(key, k.mv_data, k.mv_size);
  memcpy(*val, v.mv_data, v.mv_size);
  *klen = k.mv_size;
  *vlen = v.mv_size;
  mdb_cursor_close(c);
  return key;
}

static inline void raw_put(struct raw *r, const uint8_t *key, size_t klen, const uint8_t *val,
                           size_t vlen) {
  MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};
  ck_assert_int_eq(mdb_put(r->t, r->d, &k, &v, 0), 0);
}

static inline void raw_del(struct raw *r, const uint8_t *key, size_t klen) {
  MDB_val k = {klen, (void *)key};
  ck_assert_int_eq(mdb_del(r->t, r->d, &k, NULL), 0);
}

// be32 and be64 write big-endian numbers, as the store's keys hold them.
static inline void be32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline void be64(uint8_t *p, uint64_t v) {
  be32(p, (uint32_t)(v >> 32));
  be32(p + 4, (uint32_t)v);
}

// The keys of account, mailbox, uid and message records (FORMAT.md), built
// here rather than with the library's own helpers so that a test checks the
// documented layout.
static inline void raw_acct_key(uint8_t k[4], uint32_t account) {
  be32(k, account);
}

static inline void raw_mbox_key(uint8_t k[8], uint32_t account, uint32_t mailbox) {
  be32(k, account);
  be32(k + 4, mailbox);
}

static inline void raw_uid_key(uint8_t k[12], uint32_t account, uint32_t mailbox, uint32_t uid) {
  be32(k, account);
  be32(k + 4, mailbox);
  be32(k + 8, uid);
}

static inline void raw_msg_key(uint8_t k[12], uint32_t account, uint64_t id) {
  be32(k, account);
  be64(k + 4, id);
}

// raw_patch rewrites byte `off` of the value at `key` in DBI `dbi` of the
// store in `dir` through a raw LMDB handle, behind the library's back, and
// returns the byte it replaced.
static inline uint8_t raw_patch(const char *dir, const char *dbi, const uint8_t *key, size_t klen,
                                size_t off, uint8_t b) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, dbi, 0, &d), 0);
  MDB_val k = {klen, (void *)key}, v;
  ck_assert_int_eq(mdb_get(t, d, &k, &v), 0);
  ck_assert_uint_lt(off, v.mv_size);
  uint8_t *copy = malloc(v.mv_size);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, v.mv_data, v.mv_size);
  uint8_t old = copy[off];
  copy[off] = b;
  MDB_val nv = {v.mv_size, copy};
  ck_assert_int_eq(mdb_put(t, d, &k, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
  free(copy);
  return old;
}

// raw_set_format writes the store format number into the meta record, as
// an older (or newer) library would have left it.
static inline void raw_set_format(const char *dir, uint8_t format) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "meta", 0, &d), 0);
  uint8_t f[4] = {format, 0, 0, 0};
  MDB_val k = {6, "format"}, v = {4, f};
  ck_assert_int_eq(mdb_put(t, d, &k, &v, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
}

// random_bytes fills buf[0..len) with xorshift64 bytes from `seed`
// (non-zero): bodies zstd cannot shrink, the same for the same seed.
static inline void random_bytes(char *buf, size_t len, uint64_t seed) {
  uint64_t x = seed;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = (char)(x >> 24);
  }
}

// make_message writes a small RFC 5322 message numbered n into buf.
static inline size_t make_message(char *buf, size_t cap, unsigned n, size_t body) {
  int k = snprintf(buf, cap,
                   "From: a@example.org\r\nTo: b@example.org\r\nSubject: test %u\r\n"
                   "Message-ID: <%u@example.org>\r\n\r\n",
                   n, n);
  size_t len = (size_t)k;
  for (size_t i = 0; i < body && len + 2 < cap; i++)
    buf[len++] = (char)('a' + (n + i) % 26);
  buf[len++] = '\r';
  buf[len++] = '\n';
  return len;
}

#endif // MS_STORE_UTIL_H
