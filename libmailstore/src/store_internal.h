// store_internal.h: what the store's source files share and nothing outside
// the library sees: the handle's layout, the transaction helpers and typed
// records of store.c and the batch selection of batch.c, so that the
// operations kept in files of their own (deliver.c, batch.c, keywords.c,
// changelog.c, ...) run in the same transactions as store.c's.
#ifndef MS_STORE_INTERNAL_H
#define MS_STORE_INTERNAL_H

#include "mailstore.h"
#include "store_records.h"

#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

// The helpers keep their short names in the library's sources; these
// macros give the linker prefixed ones, so that a program linking several
// internal static libraries cannot meet two global txn_begin symbols.
#define lmdb_err mss_lmdb_err
#define txn_begin mss_txn_begin
#define txn_abort mss_txn_abort
#define txn_commit mss_txn_commit
#define run_write mss_run_write
#define txn_commit_nosync mss_txn_commit_nosync
#define run_write_nosync mss_run_write_nosync
#define run_write_room mss_run_write_room
#define run_in_parts mss_run_in_parts
#define sync_through mss_sync_through
#define get mss_get
#define put mss_put
#define del mss_del
#define acct_load mss_acct_load
#define acct_store mss_acct_store
#define mbox_load mss_mbox_load
#define mbox_store mss_mbox_store
#define uid_key mss_uid_key
#define msg_load mss_msg_load
#define uid_store mss_uid_store
#define msg_store mss_msg_store
#define blob_chunk mss_blob_chunk
#define mbox_count_add mss_mbox_count_add
#define mbox_count_sub mss_mbox_count_sub
#define queue_next mss_queue_next
#define expunge_tx mss_expunge_tx
#define expunge_part mss_expunge_part
#define squeue_next mss_squeue_next
#define squeue_push mss_squeue_push
#define refs_add mss_refs_add
#define refs_collapse mss_refs_collapse
#define sel_build mss_sel_build
#define walk_seek mss_walk_seek
#define batch_check mss_batch_check

// ERR_MAP_FULL never leaves the library: run_write turns it into a retry.
#define ERR_MAP_FULL (-10499)

// CCTX_POOL bounds the compression contexts kept for reuse; a context for
// level 3 costs about a megabyte to set up, far more than compressing a
// typical message.
#define CCTX_POOL 16
// DCTX_POOL bounds the decompression contexts kept for reuse; a context
// grown beyond DCTX_KEEP bytes (streaming a large single frame allocates
// its window) is freed instead, so the pool stays small.
#define DCTX_POOL 16
#define DCTX_KEEP ((size_t)4 << 20)

struct deliver_req;

// qwaiter is the condition variable a delivery waiting in the group-commit
// queue sleeps on. The store pools them (under qlock) and frees them at
// close, so a committer may signal one after letting go of qlock, where the
// woken thread finds the lock free: a signal that arrives after its owner
// has left only wakes the next owner spuriously, and it waits again.
struct qwaiter {
  pthread_cond_t cv;
  struct qwaiter *next; // in the pool
};

// ddict_ent is a dictionary prepared for decompression, kept until close.
struct ddict_ent {
  uint32_t id;
  ZSTD_DDict *dd;
};

struct ms_store {
  MDB_env *env;
  MDB_dbi meta, accounts, names, mailboxes, uids, messages, blobs, vanished, release, dicts, squeue;
  MDB_dbi keywords;           // per-account keyword names (keywords.c)
  MDB_dbi changes;            // per-account change log (changelog.c)
  MDB_dbi summaries, threads; // message summaries, thread index (summary.c, thread.c)
  struct msi_cache *index;    // packed mailbox index (index.c)
  struct ms_settings set;
  // Every transaction of this process holds maplock shared; resizing the map
  // holds it exclusive, because LMDB allows mdb_env_set_mapsize only while
  // the process has no transaction open.
  pthread_rwlock_t maplock;
  // The group-commit queue (leader/follower, see group_commit): requests
  // waiting for a committer (each sleeps on its own condition variable),
  // and whether one is at work; counters too.
  pthread_mutex_t qlock;
  pthread_cond_t qarrive; // no caller is preparing any more
  struct deliver_req *qhead, *qtail;
  int committing;
  int preparing;           // small callers hashing and compressing, about to queue
  int queued;              // small requests in the queue
  int last_reqs;           // small requests the previous commit took
  int leader_wait;         // the committer waits on qarrive
  struct qwaiter *qfree;   // pooled waiters (struct qwaiter)
  uint64_t last_commit_ns; // how long the previous group commit took
  struct ms_store_counters counters;
  pthread_mutex_t poollock;
  ZSTD_CCtx *pool[CCTX_POOL];
  int npool;
  ZSTD_DCtx *dpool[DCTX_POOL];
  int ndpool;
  // Dictionaries (under dictlock): the current one for compression, every
  // CDict and DDict made so far (threads use them outside the lock, so they
  // live until close), the newest id a delivery commit saw in the file, and
  // the automatic training's state.
  pthread_mutex_t dictlock;
  ZSTD_CDict *cdict;
  uint32_t cdict_id;
  ZSTD_CDict **cdicts;
  size_t ncdicts;
  struct ddict_ent *ddicts;
  size_t nddicts;
  uint32_t dict_seen;
  int train_due, training, train_off;
  // The data file's written tail (tail.c): its page size, and the file
  // size this process last saw or made; write transactions only.
  uint32_t psize;
  uint64_t tail_end;
  // 0, or tail_end when the last extension stopped at a write error (a
  // full disk); read without the writer lock by room_check (store.c):
  // writes that add mail then keep off the tail's end.
  _Atomic uint64_t tail_full_end;
  // Durability (sync.c): LMDB runs with MDB_NOMETASYNC, and a commit is
  // made durable by an fdatasync outside LMDB's write lock. Under synclock:
  // the number of write commits this handle made (commit_seq), how many of
  // them a completed sync covers (synced_seq), the syncs issued, and the
  // first sync error, after which no commit is reported durable.
  pthread_mutex_t synclock;
  uint64_t commit_seq, synced_seq, syncs;
  int sync_err;
};

// lmdb_err maps an LMDB return code to 0, MS_ERR_* or -errno (MDB_MAP_FULL
// to ERR_MAP_FULL).
int lmdb_err(int rc);

// txn_begin starts a transaction holding the map lock shared until
// txn_abort or txn_commit.
int txn_begin(ms_store *s, unsigned flags, MDB_txn **t);
void txn_abort(ms_store *s, MDB_txn *t);

// txn_commit commits write transaction t and returns once it is durable
// (sync_through), having let go of LMDB's write lock first, so that the
// next writer builds its transaction while this one syncs.
int txn_commit(ms_store *s, MDB_txn *t);

// txn_commit_nosync commits t without waiting for it to be durable, and
// sets *seq to the commit's number for sync_through, which must be called
// before anyone is told that the commit succeeded.
int txn_commit_nosync(ms_store *s, MDB_txn *t, uint64_t *seq);

// sync_through makes every commit of this handle up to number seq durable:
// returns at once if a completed sync already covers it, else syncs the
// data file (mdb_env_sync). A sync error is sticky (sync.c). Returns 0 or
// a negative error; a store opened with no_sync returns 0 at once.
int sync_through(ms_store *s, uint64_t seq);

typedef int (*write_fn)(ms_store *s, MDB_txn *t, void *ctx);

// write_room classes the writes by what they may fill of the map, so that
// a store that deliveries filled can still be emptied (store.c): writes
// that add mail stop short of the map's reserve, writes that only change
// mail may use half of it, and writes that remove mail all of it.
enum write_room {
  ROOM_ADD,    // deliveries, copies, new accounts and mailboxes, dictionaries
  ROOM_CHANGE, // flags, keywords, moves, renames, subscriptions
  ROOM_REMOVE, // expunges, mailbox deletion, collection, acknowledgements
};

// run_write_room runs fn in a write transaction of class `room`, committed
// durably; fn must write its outputs only through ctx so that a retry after
// growing the map starts from scratch. Returns fn's non-negative result or
// an error; -ENOSPC when the write does not fit the map its class may fill.
int run_write_room(ms_store *s, write_fn fn, void *ctx, enum write_room room);

// part_fn runs an operation on the n items of ctx from `first` as one
// transaction (run_in_parts); an open-ended operation, which finds its
// items in the transaction, does the next n of them, first ignored.
typedef int (*part_fn)(ms_store *store, void *ctx, size_t first, size_t n);

// run_in_parts runs an operation on `count` items (SIZE_MAX: open-ended)
// as one transaction, or, if that does not fit the map (-ENOSPC), in
// parts, each a transaction of its own: the pages each part frees serve the
// next ones (once no reader holds them). A part that does not fit is
// halved, down to one item; an open-ended operation ends at the first part
// that does fewer items than asked. Returns the number of items done, or
// the first error if none was.
int run_in_parts(ms_store *store, part_fn run, void *ctx, size_t count);

// run_write is run_write_room for a write that adds mail (ROOM_ADD).
int run_write(ms_store *s, write_fn fn, void *ctx);

// run_write_nosync is run_write without the final sync: it sets *seq to the
// commit's number (left alone when nothing was committed), and the caller
// must call sync_through before reporting success.
int run_write_nosync(ms_store *s, write_fn fn, void *ctx, uint64_t *seq);

static inline MDB_val val(const void *p, size_t n) {
  MDB_val v = {n, (void *)p};
  return v;
}

int get(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, MDB_val *out);
int put(MDB_txn *t, MDB_dbi d, const void *k, size_t kn, const void *v, size_t vn, unsigned flags);
int del(MDB_txn *t, MDB_dbi d, const void *k, size_t kn);

int acct_load(ms_store *s, MDB_txn *t, uint32_t id, struct msr_account *a);
int acct_store(ms_store *s, MDB_txn *t, uint32_t id, const struct msr_account *a);
int mbox_load(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, struct msr_mailbox *m);
int mbox_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t id, const struct msr_mailbox *m);
void uid_key(uint8_t k[12], uint32_t acct, uint32_t mbox, uint32_t uid);
int msg_load(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, struct msr_message *m);
// uid_store, msg_store: the typed stores of acct_store's kind for uid and
// message records.
int uid_store(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, uint32_t uid,
              const struct msr_uid *u);

int msg_store(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, const struct msr_message *m);

// blob_chunk is the chunk size new blobs are cut in, 0 for one frame.
uint32_t blob_chunk(const ms_store *s);

// mbox_count_add counts a message of `size` bytes with `flags` in m's
// totals (total, unseen, size); mbox_count_sub takes it out.
void mbox_count_add(struct msr_mailbox *m, uint32_t flags, uint64_t size);
void mbox_count_sub(struct msr_mailbox *m, uint32_t flags, uint64_t size);

// mbox_count_flags moves m's unseen count for a message whose flags change
// from `from` to `to`: only \Seen counts there, and the size stays. Inline,
// as flag changes run it once per message of a whole mailbox.
static inline void mbox_count_flags(struct msr_mailbox *m, uint32_t from, uint32_t to) {
  if ((from ^ to) & MS_FLAG_SEEN) {
    if (to & MS_FLAG_SEEN)
      m->unseen--;
    else
      m->unseen++;
  }
}

// queue_next returns the key after the last entry of a queue DBI whose keys
// are u64 BE sequence numbers from 1 (the release and search queues).
int queue_next(MDB_cursor *c, uint64_t *next);

// squeue_next is queue_next for the search queue, whose numbers must never
// be reused (an indexer pages by them): when the queue is empty, the next
// number is the one ms_search_queue_ack saved in meta on emptying it.
int squeue_next(ms_store *s, MDB_txn *t, MDB_cursor *c, uint64_t *next);

// squeue_push appends one search queue entry through cursor c, whose next
// key is *next. Keys only grow, so every put is an MDB_APPEND.
int squeue_push(MDB_cursor *c, uint64_t *next, uint32_t op, uint32_t acct, uint64_t id);

// refs counts blob keys (SHA-256, or shorter keys zero-padded to 32
// bytes): the references verification finds, the releases a collection
// takes from the queue.
struct ref {
  uint8_t key[32];
  uint32_t count;
};

struct refs {
  struct ref *v;
  size_t n, cap;
};

// refs_add appends key (len <= 32 bytes) with a count of one; -ENOMEM.
int refs_add(struct refs *r, const uint8_t *key, size_t len);
// refs_collapse sorts r and merges equal keys, summing their counts.
void refs_collapse(struct refs *r);

// sel is one selected UID and its position in the caller's array.
struct sel {
  uint32_t uid;
  uint32_t idx;
};

// batch_ctx is a batch operation's request; sel_build sorts its UIDs into
// sel (without duplicates) before the transaction.
struct batch_ctx {
  uint32_t acct, src, dst, add, remove;
  const uint32_t *uids;
  size_t count;
  uint32_t *out_uids;
  struct sel *sel; // sorted, without duplicates; prepared outside the transaction
  size_t nsel;
  // An expunge without uids selects the messages flagged \Deleted, or
  // every message if `every`, at most `limit` of them (0: no limit).
  size_t limit;
  int every;
};

int sel_build(struct batch_ctx *c);

// walk_seek finds UID uid of the mailbox whose uid keys start with prefix
// through cursor c, stepping instead of searching when called with
// increasing UIDs; *at is the UID c is on (0: unknown). Returns 1 found
// (value in *v), 0 absent, < 0 error.
int walk_seek(MDB_cursor *c, const uint8_t prefix[8], uint32_t uid, uint32_t *at, MDB_val *v);

// tail_prepare, called in a write transaction before it writes anything,
// makes sure that the data file runs well past LMDB's last page with blocks
// already written (zeros), so that the pages durable commits append land in
// allocated, written blocks (tail.c). Best effort: returns nothing.
#define tail_prepare mss_tail_prepare
void tail_prepare(ms_store *s);

// TAIL_KEEP_ADD and TAIL_KEEP_CHANGE are the bytes of written tail that
// writes adding and changing mail leave on a full disk (tail.c).
#define TAIL_KEEP_ADD ((uint64_t)512 << 10)
#define TAIL_KEEP_CHANGE ((uint64_t)256 << 10)

// batch_check validates a batch call's store, UIDs and count.
int batch_check(ms_store *s, const uint32_t *uids, size_t count);

// expunge_tx expunges c->sel, or when c->uids is NULL every message of the
// mailbox flagged \Deleted, collected from this transaction's snapshot
// (batch.c; a write_fn whose ctx is a struct batch_ctx).
int expunge_tx(ms_store *s, MDB_txn *t, void *p);

// expunge_part expunges the n UIDs of ctx (struct batch_ctx) from `first`,
// or without UIDs the next n messages its selection takes (a part_fn for
// run_in_parts).
int expunge_part(ms_store *store, void *ctx, size_t first, size_t n);

#endif // MS_STORE_INTERNAL_H
