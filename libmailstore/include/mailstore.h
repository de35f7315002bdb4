// mailstore.h: libmailstore, the LMDB message store.
//
// libmailstore keeps accounts, mailboxes and messages in one LMDB environment,
// with IMAP and JMAP semantics (UIDs, MODSEQ, changes, threads, quotas). Message
// bodies are stored as zstd-compressed blobs. It uses libmailparse to index
// messages on delivery.
//
// Threading: every function is safe to call from any thread, and one ms_store
// handle may be shared by all the threads of a process (LMDB allows one
// environment handle per process, so threads must share it). Writers are
// serialised by LMDB's single write lock, across processes too; readers run
// concurrently on consistent snapshots.
//
// Durability: unless ms_settings.no_sync is set, a mutating function that
// returns success has had its transaction committed and flushed to stable
// storage (LMDB's fsync/fdatasync of the data file and the meta page), so it
// survives kill -9 and power loss. Concurrent deliveries are grouped into one
// commit (group commit, see ms_messages_deliver) without weakening this: no
// caller is acknowledged before the commit holding its message is durable.
//
// Ownership: borrowing is the default. A function takes ownership only where
// its comment says so; pointers it returns are non-owning unless the function
// is named *_new or *_dup.
//
// Errors: functions return 0 (or a count) on success and a negative code on
// failure: -errno for OS and resource errors (-1 to -4095), MS_ERR_* for this
// library's own (MS_ERR_* codes lie in -10400 to -10499).
// ms_strerror() describes any of them.
#ifndef MS_MAILSTORE_H
#define MS_MAILSTORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MS_API __attribute__((visibility("default")))
#define MS_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define MS_API
#define MS_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libmailstore alone; it changes only when this library does.
// MS_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define MS_VERSION_MAJOR 0
#define MS_VERSION_MINOR 1
#define MS_VERSION_PATCH 0
#define MS_VERSION_STRING "0.1.0"
#define MS_VERSION_NUMBER (MS_VERSION_MAJOR * 10000 + MS_VERSION_MINOR * 100 + MS_VERSION_PATCH)

// ms_version returns the version of the library loaded at run time, as
// MS_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
MS_API unsigned ms_version(void);

// ms_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
MS_API const char *ms_version_string(void);

// Errors.

enum {
  MS_ERR_INVALID_ARGUMENT = -10400,
  MS_ERR_NOTFOUND = -10401,
  MS_ERR_EXISTS = -10402,
  MS_ERR_CORRUPT = -10403,
  MS_ERR_QUOTA = -10404,
  MS_ERR_LIMIT = -10405,
  MS_ERR_SAMPLES = -10406,
};

// ms_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   MS_ERR_INVALID_ARGUMENT: invalid argument.
//   MS_ERR_NOTFOUND: no such item.
//   MS_ERR_EXISTS: item already exists.
//   MS_ERR_CORRUPT: store is corrupt.
//   MS_ERR_QUOTA: account quota exceeded.
//   MS_ERR_LIMIT: a configured limit was exceeded.
//   MS_ERR_SAMPLES: too little stored mail to train a dictionary on.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
MS_API const char *ms_strerror(int code);

// Store.
//
// A store is one LMDB environment in a directory. Every mutating function
// below runs as exactly one durable LMDB write transaction: it either happens
// completely and is on disk when the function returns 0, or not at all.
// Deliveries are the one refinement: concurrent ones may share a transaction
// (group commit), each item still all-or-nothing and durable on return. The
// map grows by doubling on MDB_MAP_FULL up to ms_settings.max_map_size.

// ms_store is an open store; opaque.
typedef struct ms_store ms_store;

// ms_settings holds the store's limits; a 0 field means the default.
struct ms_settings {
  uint64_t initial_map_size; // bytes; default 64 MiB
  uint64_t max_map_size;     // bytes; default 1 TiB
  uint32_t max_message_size; // bytes; default 64 MiB
  uint32_t max_batch;        // UIDs per batch call; default 1,000,000
  uint32_t max_name_len;     // account and mailbox names; default 1024
  // group_wait_us: the longest a committer waits for concurrent deliveries
  // that are still being compressed before it commits; default 1000 µs.
  uint32_t group_wait_us;
  // compression_level: the zstd level new blobs are compressed with
  // (negative levels are zstd's fast ones; clamped to zstd's range);
  // default 3. Compression is most of a delivery's CPU time: level 1 about
  // halves it for a somewhat larger store. Readers need no setting.
  int32_t compression_level;
  // no_sync nonzero: commits are not flushed to disk (MDB_NOSYNC), for bulk
  // imports and benchmarks; a system crash may undo the latest commits but
  // leaves the store consistent. 0 (default): every commit is durable.
  uint32_t no_sync;
  // dict_train_after: once the store holds this many blobs and has no zstd
  // dictionary yet, the delivering thread that notices trains one
  // (ms_store_train) after its own delivery is durable; default 5,000;
  // UINT32_MAX never trains by itself.
  uint32_t dict_train_after;
  // dict_max_size: the largest dictionary ms_store_train makes, in bytes
  // (at most 1 MiB); default 112,640 (zstd's own default).
  uint32_t dict_max_size;
};

// System flags (RFC 9051 2.3.2), stored per mailbox membership.
enum {
  MS_FLAG_SEEN = 1u << 0,
  MS_FLAG_ANSWERED = 1u << 1,
  MS_FLAG_FLAGGED = 1u << 2,
  MS_FLAG_DELETED = 1u << 3,
  MS_FLAG_DRAFT = 1u << 4,
  MS_FLAG_ALL = 0x1f,
};

// Special-use roles (RFC 6154).
enum {
  MS_ROLE_NONE = 0,
  MS_ROLE_ALL,
  MS_ROLE_ARCHIVE,
  MS_ROLE_DRAFTS,
  MS_ROLE_FLAGGED,
  MS_ROLE_JUNK,
  MS_ROLE_SENT,
  MS_ROLE_TRASH,
  MS_ROLE_INBOX, // not RFC 6154 but JMAP's "inbox" role
  MS_ROLE_MAX = MS_ROLE_INBOX,
};

// ms_store_open opens (creating if needed) the store in directory `dir`, which
// must exist, and sets *out to a new handle the caller frees with
// ms_store_close. `settings` may be NULL. Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_CORRUPT (not a store of this format version, or damaged), -errno.
// The handle may be shared by the threads of the process; open a directory
// only once per process (an LMDB rule). Several processes may open the same
// directory.
MS_API MS_WARN_UNUSED_RESULT int ms_store_open(ms_store **out, const char *dir,
                                               const struct ms_settings *settings);

// ms_store_close closes `store`; NULL is ignored. No other thread may be
// using `store` any more.
MS_API void ms_store_close(ms_store *store);

// ms_store_counters are this handle's activity counters since it was opened.
struct ms_store_counters {
  uint64_t commits;   // delivery write transactions committed (group commits)
  uint64_t delivered; // messages those commits stored
  uint64_t largest;   // most messages stored by one commit
};

// ms_store_counters_get copies the counters of `store` into *out, so that a
// caller can see how well concurrent deliveries were grouped (delivered /
// commits). Thread-safe. Errors: MS_ERR_INVALID_ARGUMENT.
MS_API MS_WARN_UNUSED_RESULT int ms_store_counters_get(ms_store *store,
                                                       struct ms_store_counters *out);

// ms_diag describes what a check found, for people: `code` is the call's
// return value and `message` a NUL-terminated sentence naming the first
// problem and the record it lies in (empty when there was none).
struct ms_diag {
  int code;
  char message[200];
};

// ms_store_verify checks the whole store's consistency in one read
// transaction: every record decodes, every membership points to a message,
// message membership counts, blob reference counts (messages plus the
// release queue), blob contents against their SHA-256 (decompressed with
// the dictionary each names, which must exist), dictionaries, mailbox counts,
// VANISHED entries and account usage all match. `diag` may be NULL; else it
// receives the first problem found. Returns 0, MS_ERR_CORRUPT or -errno.
// Thread-safe; it reads the whole store, so its cost grows with it.
MS_API MS_WARN_UNUSED_RESULT int ms_store_verify(ms_store *store, struct ms_diag *diag);

// ms_store_collect finishes what expunges left: a destroyed message's blob
// reference is not dropped by the expunge itself (which then touches only
// records stored next to each other) but queued, and this call drops up to
// `max_items` queued references (0 means 65,536; at most 1,000,000), in one
// durable write transaction, deleting each blob whose count reaches 0.
// Until then the blob's space stays in use, and an identical message
// delivered meanwhile shares it. Call it from time to time (mailctl store
// collect, a daemon's idle timer) until it returns 0. Returns the number of
// references dropped, or MS_ERR_CORRUPT, -ENOSPC, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_collect(ms_store *store, size_t max_items);

// ms_store_stats summarises a whole store.
struct ms_store_stats {
  uint64_t accounts;
  uint64_t mailboxes;
  uint64_t messages;      // message records (a message in several mailboxes counts once)
  uint64_t memberships;   // (mailbox, UID) entries
  uint64_t bytes;         // sum of the accounts' used bytes (raw message sizes)
  uint64_t blobs;         // distinct stored bodies
  uint64_t blob_raw;      // their raw size in bytes
  uint64_t blob_stored;   // their compressed size in bytes, record heads included
  uint64_t released;      // blob references queued for ms_store_collect
  uint64_t map_used;      // bytes of the LMDB map in use (pages * page size)
  uint64_t dicts;         // trained zstd dictionaries kept in the store
  uint64_t dict_bytes;    // their total size
  uint32_t dict_current;  // id of the dictionary new blobs use, 0 if none
  uint64_t dict_blobs;    // blobs compressed with some dictionary
  uint64_t dict_raw;      // their raw size in bytes
  uint64_t dict_stored;   // their compressed size, record heads included
  uint64_t search_queued; // search queue entries not yet acknowledged
};

// ms_store_train trains a zstd dictionary (ZDICT) on a sample of the store's
// own messages and makes it the one new blobs are compressed with; it also
// serves ms_settings.dict_train_after. The sample is up to `max_samples`
// blobs (0 means 4,096; at most 100,000), taken in hash order, which is a
// random order, from one read snapshot, each contributing at most its first
// 64 KiB, in all at most 100 times ms_settings.dict_max_size. Training runs
// outside any transaction (a few seconds for the default sample);
// then one durable write transaction stores the dictionary under the next
// id (ids start at 1), so a crash leaves either no trace or the whole
// dictionary. Earlier dictionaries stay: blobs keep naming the one they were
// compressed with, and ms_store_recompress moves them to the new one. On
// success sets *out_id (may be NULL) to the new id. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_SAMPLES (fewer than 8 messages, or zstd
// finds too little to learn from), MS_ERR_CORRUPT, -ENOMEM, -ENOSPC, -errno.
// Thread-safe; other processes adopt the new dictionary at their next
// delivery commit.
MS_API MS_WARN_UNUSED_RESULT int ms_store_train(ms_store *store, uint32_t *out_id,
                                                size_t max_samples);

// ms_store_recompress re-encodes up to `max_items` blobs (0 means 1,024; at
// most 65,536) that are not compressed with the current dictionary, in one
// durable write transaction, each with the current dictionary at
// ms_settings.compression_level; contents, hashes and reference counts stay.
// Returns the number re-encoded, 0 when none is left (or there is no
// dictionary); call it until it returns 0. Each call scans the blob heads
// from the start and holds LMDB's write lock while it compresses. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_CORRUPT, -ENOMEM, -ENOSPC, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_recompress(ms_store *store, size_t max_items);

// ms_store_stats_get fills *out from one read snapshot; it reads every
// account and blob record head, so its cost grows with the store. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_stats_get(ms_store *store, struct ms_store_stats *out);

// Accounts.

// ms_account_info describes an account.
struct ms_account_info {
  uint32_t id;
  uint64_t quota_bytes;    // 0 = unlimited
  uint64_t quota_messages; // 0 = unlimited
  uint64_t used_bytes;
  uint64_t used_messages;
  uint64_t highest_modseq; // account-wide MODSEQ counter (also the JMAP state)
};

// ms_account_create adds an account named `name` (1..max_name_len bytes)
// with the given quotas (0 = unlimited) and stores its id in *out_id.
// Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_EXISTS (name taken),
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_account_create(ms_store *store, uint32_t *out_id,
                                                   const char *name, size_t name_len,
                                                   uint64_t quota_bytes, uint64_t quota_messages);

// ms_account_find stores in *out_id the id of the account named `name`
// (name_len bytes). Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_account_find(ms_store *store, uint32_t *out_id,
                                                 const char *name, size_t name_len);

// ms_account_get fills *out for account `account`. Errors: MS_ERR_NOTFOUND,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_account_get(ms_store *store, struct ms_account_info *out,
                                                uint32_t account);

// Mailboxes.

// ms_mailbox_info describes a mailbox.
struct ms_mailbox_info {
  uint32_t id;
  uint32_t parent; // 0 at the top level
  uint32_t role;   // MS_ROLE_*
  uint32_t subscribed;
  uint32_t uidvalidity;
  uint32_t uidnext;
  uint64_t highest_modseq;
  uint32_t total;
  uint32_t unseen;
  uint64_t size;
};

// ms_mailbox_create creates mailbox `name` ('/' separates hierarchy levels;
// the parent must exist) in `account` with special-use `role` and stores its
// id in *out_id. Errors: MS_ERR_INVALID_ARGUMENT (bad name or role),
// MS_ERR_EXISTS, MS_ERR_NOTFOUND (account or parent), MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_create(ms_store *store, uint32_t *out_id,
                                                   uint32_t account, const char *name,
                                                   size_t name_len, uint32_t role);

// ms_mailbox_find stores in *out_id the id of mailbox `name` of `account`.
// Errors: MS_ERR_NOTFOUND, MS_ERR_INVALID_ARGUMENT, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_find(ms_store *store, uint32_t *out_id,
                                                 uint32_t account, const char *name,
                                                 size_t name_len);

// ms_mailbox_get fills *out for `mailbox` of `account`. Errors:
// MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_get(ms_store *store, struct ms_mailbox_info *out,
                                                uint32_t account, uint32_t mailbox);

// ms_mailbox_rename renames `mailbox` of `account` to `name`, and every
// mailbox below it with it ("a/x" follows "a" to "b/x"); ids, UIDs and
// UIDVALIDITY stay. The new parent must exist and may not be the mailbox or
// one of its descendants. Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_EXISTS,
// MS_ERR_NOTFOUND (mailbox or new parent), MS_ERR_LIMIT (a descendant's new
// name too long), MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_rename(ms_store *store, uint32_t account,
                                                   uint32_t mailbox, const char *name,
                                                   size_t name_len);

// ms_mailbox_delete deletes `mailbox` of `account` with its messages (each
// message in no other mailbox is destroyed, its blob reference queued for
// ms_store_collect) and its VANISHED history.
// Errors: MS_ERR_EXISTS (it has child mailboxes), MS_ERR_NOTFOUND,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_delete(ms_store *store, uint32_t account,
                                                   uint32_t mailbox);

// ms_mailbox_subscribe sets (subscribed nonzero) or clears the subscribed
// flag of `mailbox` (IMAP SUBSCRIBE, JMAP isSubscribed). Errors:
// MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_subscribe(ms_store *store, uint32_t account,
                                                      uint32_t mailbox, int subscribed);

// Messages.

// ms_entry is one message as seen in one mailbox.
struct ms_entry {
  uint32_t uid;
  uint32_t flags; // MS_FLAG_*
  uint64_t message_id;
  uint64_t modseq;
};

// ms_message_append stores `data` (1..max_message_size bytes) as a new
// message in `mailbox` with `flags` and `internal_date` (seconds since the
// epoch), assigning the message id (*out_message_id) and UID (*out_uid) in
// the same transaction; either output may be NULL. The body is kept as a
// SHA-256-addressed, zstd-compressed, reference-counted blob. Concurrent
// calls are group-committed as ms_messages_deliver describes. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_LIMIT (too large), MS_ERR_QUOTA,
// MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -ENOSPC (map cannot grow), -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_message_append(ms_store *store, uint64_t *out_message_id,
                                                   uint32_t *out_uid, uint32_t account,
                                                   uint32_t mailbox, const uint8_t *data,
                                                   size_t len, uint32_t flags,
                                                   int64_t internal_date);

// ms_delivery is one message for ms_messages_deliver: inputs set by the
// caller, outputs set by the call.
struct ms_delivery {
  // Outputs.
  int status;          // 0 if stored, else the item's error (as ms_message_append)
  uint32_t uid;        // its UID in `mailbox`
  uint64_t message_id; // its account-scoped message id
  // Inputs.
  uint32_t account;
  uint32_t mailbox;
  uint32_t flags;        // MS_FLAG_*
  int64_t internal_date; // seconds since the epoch
  const uint8_t *data;   // 1..max_message_size bytes, borrowed during the call
  size_t len;
};

// ms_messages_deliver stores the `count` messages at `items` (1..max_batch)
// as ms_message_append does each one, and returns the number stored. Each
// item gets its own status: an item that fails (unknown account or mailbox,
// quota, size, flags) does not fail the others, and every other item is
// stored. The call hashes and compresses the messages in the calling thread,
// then queues them; the first waiting thread of the process becomes the
// committer, takes everything queued by all threads, writes it in one LMDB
// write transaction with one durable commit, and wakes the other callers
// (group commit). The call returns only after the commit holding its items
// is durable (see Durability above). Grouping happens among the threads of
// one process: processes delivering into the same store each commit their
// own groups, serialised by LMDB's write lock (while one process commits,
// the others' queues fill). UIDs of one call's items for one
// mailbox are increasing in item order. Returns the number of items stored
// (status 0), or MS_ERR_INVALID_ARGUMENT (NULL store or items, count 0),
// MS_ERR_LIMIT (count > max_batch), -ENOMEM; when the commit itself fails
// (-ENOSPC, -EIO, MS_ERR_CORRUPT) the affected items carry that status.
// Thread-safe; meant to be called by many threads at once.
MS_API MS_WARN_UNUSED_RESULT int ms_messages_deliver(ms_store *store, struct ms_delivery *items,
                                                     size_t count);

// ms_message_info describes a stored message.
struct ms_message_info {
  uint64_t size;         // bytes
  int64_t internal_date; // seconds since the epoch
  uint32_t memberships;  // mailboxes (UIDs) holding it
  uint64_t thread_id;
};

// ms_message_get fills *out for message `message_id` of `account`. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_message_get(ms_store *store, struct ms_message_info *out,
                                                uint32_t account, uint64_t message_id);

// ms_message_read copies message `message_id`'s bytes into out (out_cap
// bytes) and sets *out_len to its size (also when out_cap is too small, then
// returning MS_ERR_LIMIT). Errors: MS_ERR_NOTFOUND, MS_ERR_LIMIT,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_message_read(ms_store *store, uint8_t *out, size_t out_cap,
                                                 size_t *out_len, uint32_t account,
                                                 uint64_t message_id);

// ms_flags_store adds `add` and then removes `remove` (MS_FLAG_* bits) on the
// `count` UIDs of `mailbox`, in one transaction. UIDs not in the mailbox are
// skipped; every changed message gets a new MODSEQ (unchanged ones keep
// theirs). Returns the number of messages changed or MS_ERR_INVALID_ARGUMENT,
// MS_ERR_LIMIT (count > max_batch), MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_flags_store(ms_store *store, uint32_t account, uint32_t mailbox,
                                                const uint32_t *uids, size_t count, uint32_t add,
                                                uint32_t remove);

// ms_messages_copy adds the `count` messages at `uids` of `src` to `dst`
// with new UIDs, assigned in the order of the source UIDs (as RFC 4315
// COPYUID pairs them), written to out_uids[i] (0 for a UID not in src, and
// for a repeated UID's later positions: each message is copied once;
// out_uids may be NULL), keeping their flags. `uids` may be in any order;
// the work runs in UID order. Returns the number copied; errors as
// ms_flags_store, plus MS_ERR_INVALID_ARGUMENT if src == dst.
MS_API MS_WARN_UNUSED_RESULT int ms_messages_copy(ms_store *store, uint32_t *out_uids,
                                                  uint32_t account, uint32_t src, uint32_t dst,
                                                  const uint32_t *uids, size_t count);

// ms_messages_move moves messages as ms_messages_copy copies them, then
// expunges them from `src` in the same transaction (RFC 6851): the message
// ids stay, src records the UIDs as vanished. Returns the number moved;
// errors as ms_messages_copy.
MS_API MS_WARN_UNUSED_RESULT int ms_messages_move(ms_store *store, uint32_t *out_uids,
                                                  uint32_t account, uint32_t src, uint32_t dst,
                                                  const uint32_t *uids, size_t count);

// ms_messages_expunge removes the `count` UIDs at `uids` from `mailbox`, or
// when uids is NULL every message flagged MS_FLAG_DELETED. Each removed UID
// is recorded with its expunge MODSEQ (QRESYNC VANISHED); a message left in
// no mailbox is destroyed (its record deleted, the account's usage reduced)
// and its blob reference queued for ms_store_collect. Returns the number
// expunged; errors as ms_flags_store.
MS_API MS_WARN_UNUSED_RESULT int ms_messages_expunge(ms_store *store, uint32_t account,
                                                     uint32_t mailbox, const uint32_t *uids,
                                                     size_t count);

// ms_mailbox_list writes up to out_cap entries of `mailbox` with UID >=
// first_uid, in UID order, to out and their number to *out_len. Page by
// calling again with the last UID + 1. Errors: MS_ERR_NOTFOUND,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_list(ms_store *store, struct ms_entry *out,
                                                 size_t out_cap, size_t *out_len, uint32_t account,
                                                 uint32_t mailbox, uint32_t first_uid);

// ms_mailbox_changes reports what changed in `mailbox` after MODSEQ `since`,
// from one snapshot: entries whose MODSEQ > since (UID order, up to out_cap,
// count in *out_len) and UIDs expunged after since (up to vanished_cap, count
// in *vanished_len). Both counts are the totals even when larger than the
// capacities, which then gives MS_ERR_LIMIT. Errors: MS_ERR_NOTFOUND,
// MS_ERR_LIMIT, MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_changes(ms_store *store, struct ms_entry *out,
                                                    size_t out_cap, size_t *out_len,
                                                    uint32_t *vanished, size_t vanished_cap,
                                                    size_t *vanished_len, uint32_t account,
                                                    uint32_t mailbox, uint64_t since);

// Search queue.
//
// The work list of a full-text indexer (libftsearch's glue in servers/common
// and the ftsearch tool). Every delivery (ms_message_append,
// ms_messages_deliver) enqueues its new message for indexing, and every
// destruction of a message (an expunge or mailbox delete that removes its
// last membership) enqueues its removal, each in the same write transaction
// as the change itself: no message is stored without its entry, and no
// entry is queued for a message that was not stored. Copy and move keep the
// message id, so they change no document and enqueue nothing. Entries carry increasing sequence
// numbers; the indexer reads a batch in order, indexes it, then
// acknowledges through the last sequence number it finished, in its own
// transaction, so a crash between the two only repeats work.

// Search queue operations.
enum {
  MS_SEARCH_INDEX = 1,  // index (account, message_id), a new message
  MS_SEARCH_REMOVE = 2, // drop (account, message_id) from the index
};

// ms_search_item is one queued entry.
struct ms_search_item {
  uint64_t seq; // position in the queue, increasing from 1, never reused
  uint32_t op;  // MS_SEARCH_INDEX or MS_SEARCH_REMOVE
  uint32_t account;
  uint64_t message_id;
};

// ms_search_queue_read writes up to out_cap queued entries with sequence
// number > after_seq, in queue order, to out and their number to *out_len,
// from one read snapshot (0 entries: the queue holds nothing after
// after_seq). Pass 0 to start at the head, the last seq read to page on.
// An INDEX entry's message may be gone by the time it is read (a REMOVE
// entry for it follows); ms_message_read then returns MS_ERR_NOTFOUND.
// Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_search_queue_read(ms_store *store, struct ms_search_item *out,
                                                      size_t out_cap, size_t *out_len,
                                                      uint64_t after_seq);

// ms_search_queue_ack deletes every queued entry with sequence number <=
// through_seq, in one durable write transaction, and returns how many it
// deleted (at most 1,000,000 per call: call again while it returns that
// many). Entries queued later are kept. Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_CORRUPT, -ENOSPC, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_search_queue_ack(ms_store *store, uint64_t through_seq);

#ifdef __cplusplus
}
#endif

#endif // MS_MAILSTORE_H
