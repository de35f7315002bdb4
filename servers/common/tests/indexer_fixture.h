// indexer_fixture.h: the store and index the indexer's fault tests start
// from (test_oom.c, test_read_faults.c): one account holding the messages
// of indexer_test_util.h, all queued, an empty index, and the checks of
// "nothing indexed yet" and "everything indexed". Each fixture lives in a
// directory of its own, removed by fixture_close. Test-only, header-only.
#ifndef SRV_INDEXER_FIXTURE_H
#define SRV_INDEXER_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "ftsearch.h"
#include "indexer_test_util.h"
#include "mailstore.h"
#include "srv_indexer.h"

static char fixture_dir[64], store_dir[96], index_path[96], failed_path[96];

// Messages above this size fail on their own (SRV_ERR_LIMIT).
#define SMALL_MAX_MESSAGE 2048

struct fixture {
  ms_store *store;
  fts_index *index;
  uint32_t account;
  uint64_t plain, html, attach, oversized;
};

static inline uint64_t deliver(struct fixture *fx, uint32_t box, const char *msg, size_t len) {
  uint64_t id;
  ck_assert_int_eq(ms_message_append(fx->store, &id, NULL, fx->account, box, (const uint8_t *)msg,
                                     len, 0, 1700000000),
                   0);
  return id;
}

// fixture_open makes a store with one account holding the three messages
// above (and, with `oversized`, one message over SMALL_MAX_MESSAGE), all
// queued, and an empty index.
static inline void fixture_open(struct fixture *fx, bool oversized) {
  snprintf(fixture_dir, sizeof fixture_dir, "/tmp/srv-ix-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(fixture_dir));
  snprintf(store_dir, sizeof store_dir, "%s/store", fixture_dir);
  snprintf(index_path, sizeof index_path, "%s/index", fixture_dir);
  snprintf(failed_path, sizeof failed_path, "%s/failed", fixture_dir);
  ck_assert_int_eq(mkdir(store_dir, 0700), 0);
  struct ms_settings ms = {.dict_train_after = UINT32_MAX};
  ck_assert_int_eq(ms_store_open(&fx->store, store_dir, &ms), 0);
  fts_index_settings fs = {.flags = FTS_INDEX_NO_SYNC};
  ck_assert_int_eq(fts_index_open(&fx->index, index_path, &fs), 0);
  uint32_t box;
  ck_assert_int_eq(ms_account_create(fx->store, &fx->account, "bob", 3, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(fx->store, &box, fx->account, "INBOX", 5, MS_ROLE_INBOX), 0);
  fx->plain = deliver(fx, box, plain_msg, strlen(plain_msg));
  fx->html = deliver(fx, box, html_msg, strlen(html_msg));
  fx->attach = deliver(fx, box, attach_msg, strlen(attach_msg));
  fx->oversized = 0;
  if (oversized) {
    static char big[SMALL_MAX_MESSAGE + 512];
    size_t n = (size_t)snprintf(big, sizeof big, "Subject: oversized\r\n\r\n");
    memset(big + n, 'x', sizeof big - n);
    fx->oversized = deliver(fx, box, big, sizeof big);
  }
}

static inline void fixture_close(struct fixture *fx) {
  fts_index_close(fx->index);
  ms_store_close(fx->store);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fixture_dir);
  ck_assert_int_eq(system(cmd), 0);
}

// check_nothing_indexed asserts the state before any run: every message
// queued, no document, no failure; n numbers the failure the caller made.
static inline void check_nothing_indexed(struct fixture *fx, srv_indexer *ix, uint64_t queued,
                                         unsigned long n) {
  struct srv_indexer_status st;
  require(srv_indexer_status_get(ix, &st, fx->account) == 0, "status");
  require(st.queued == queued, "failure %lu: %llu queued, want %llu", n,
          (unsigned long long)st.queued, (unsigned long long)queued);
  require(st.indexed == 0, "failure %lu: %llu documents", n, (unsigned long long)st.indexed);
  require(st.failed == 0, "failure %lu: %llu failed", n, (unsigned long long)st.failed);
  require(access(failed_path, F_OK) != 0, "failure %lu: a failure log was written", n);
  require(strcmp(search(fx->index, fx->account, "pelican OR hippopotamus OR walrus"), "") == 0,
          "failure %lu: a document is searchable", n);
}

// check_documents asserts that each message is found, once, by its own
// words, and the oversized one (if any) not at all.
static inline void check_documents(struct fixture *fx, srv_indexer *ix) {
  struct srv_indexer_status st;
  ck_assert_int_eq(srv_indexer_status_get(ix, &st, fx->account), 0);
  ck_assert_uint_eq(st.queued, 0);
  ck_assert_uint_eq(st.indexed, 3);
  ck_assert_str_eq(search(fx->index, fx->account, "pelican"), num(fx->plain));
  ck_assert_str_eq(search(fx->index, fx->account, "subject:zebra"), num(fx->plain));
  ck_assert_str_eq(search(fx->index, fx->account, "hippopotamus tango"), num(fx->html));
  ck_assert_str_eq(search(fx->index, fx->account, "subject:café"), num(fx->html));
  ck_assert_str_eq(search(fx->index, fx->account, "attachment:walrus"), num(fx->attach));
  ck_assert_str_eq(search(fx->index, fx->account, "attachment:minutes"), num(fx->attach));
  char all[80];
  snprintf(all, sizeof all, "%s %s %s", num(fx->plain), num(fx->html), num(fx->attach));
  ck_assert_str_eq(search(fx->index, fx->account, "to:bob"), all);
  ck_assert_str_eq(search(fx->index, fx->account, "oversized"), "");
}

// check_all_indexed is check_documents, and the oversized message (if any)
// in the failure log.
static inline void check_all_indexed(struct fixture *fx, srv_indexer *ix) {
  check_documents(fx, ix);
  struct srv_indexer_status st;
  ck_assert_int_eq(srv_indexer_status_get(ix, &st, fx->account), 0);
  ck_assert_uint_eq(st.failed, fx->oversized ? 1 : 0);
  ck_assert_uint_eq(st.last_failed_message, fx->oversized);
}

#endif // SRV_INDEXER_FIXTURE_H
