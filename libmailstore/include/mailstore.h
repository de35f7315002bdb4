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
// storage (an fdatasync of the data file after LMDB wrote the meta page), so it
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
// ms_strerror() describes any of them. A NULL store handle, or NULL where a
// function must read an input or write its result, gives
// MS_ERR_INVALID_ARGUMENT in every function, whether or not its list of
// errors names it.
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
  MS_ERR_EXPIRED = -10407,
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
//   MS_ERR_EXPIRED: changes since that state are no longer kept.
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
//
// A full store can still be emptied. The last sixteenth of max_map_size
// (at least 512 KiB but at most half the map, at most 1 GiB) is a reserve
// that writes adding mail (deliveries, appends, copies, new accounts and
// mailboxes, dictionaries, summaries, recompression) may not fill: they
// fail with -ENOSPC at max_map_size less the reserve. Writes that change
// mail without adding any (flags, keywords, moves, renames, subscriptions)
// may fill half of the reserve; expunges, mailbox deletion, collection and
// search queue acknowledgements all of it. A batch of flags, keywords,
// moves or expunges, or a mailbox deletion, that does not fit as one
// transaction even so is done in parts, each a durable transaction of its
// own (halved down to one message while a part does not fit): each message
// is then changed completely or not at all, the batch partly. So is a
// collection (ms_store_collect). A removal also prunes history (an eighth
// of changes_keep entries at a time, and a deleted mailbox's VANISHED
// entries), which the reserve must hold too: with the default changes_keep,
// maps of 8 MiB and more full of 300-byte messages still deleted their
// mailboxes after moves had filled half the reserve with history; a
// smaller map should keep less.
//
// A full disk is met the same way. The store writes zeros ahead of its
// last page (so that commits overwrite instead of append); when the disk
// refuses more, writes that add mail fail with -ENOSPC while 512 KiB of
// that written tail remain, writes that change mail while 256 KiB do, and
// removals may use the rest. LMDB itself reports a write past a full disk
// as EIO, which a store opened with no_sync then meets for every write.

// ms_store is an open store; opaque.
typedef struct ms_store ms_store;

// ms_settings holds the store's limits; a 0 field means the default.
struct ms_settings {
  uint64_t initial_map_size; // bytes; default 64 MiB
  uint64_t max_map_size;     // bytes; default 1 TiB; its reserve: see "Store"
  uint32_t max_message_size; // bytes; default 64 MiB
  uint32_t max_batch;        // UIDs per batch call; default 1,000,000
  uint32_t max_name_len;     // account and mailbox names; default 1024
  // group_wait_us: the longest a committer waits for concurrent deliveries
  // of a few messages (up to 8 per call) that are still being compressed
  // before it commits; default 4000 µs. It never waits longer than the
  // previous commit took, so a disk that syncs fast keeps latency low.
  // Bigger batches are not waited for.
  uint32_t group_wait_us;
  // compression_level: the zstd level new blobs are compressed with
  // (negative levels are zstd's fast ones; clamped to zstd's range);
  // default 3. Compression is most of a delivery's CPU time: level 1 about
  // halves it for a somewhat larger store. Readers need no setting.
  int32_t compression_level;
  // no_sync nonzero: commits are not flushed to disk (MDB_NOSYNC), for bulk
  // imports and benchmarks; a system crash may undo the latest commits but
  // leaves the store consistent, and no space is written ahead, so a full
  // disk fails every write with EIO ("Store"). 0 (default): every commit is
  // durable.
  uint32_t no_sync;
  // dict_train_after: once the store holds this many blobs and has no zstd
  // dictionary yet, the delivering thread that notices trains one
  // (ms_store_train) after its own delivery is durable; default 5,000;
  // UINT32_MAX never trains by itself.
  uint32_t dict_train_after;
  // dict_max_size: the largest dictionary ms_store_train makes, in bytes
  // (at most 1 MiB); default 112,640 (zstd's own default).
  uint32_t dict_max_size;
  // max_keyword_len: the longest keyword name in bytes; default and at
  // most 255 (JMAP's bound, RFC 8621 section 4.1.1).
  uint32_t max_keyword_len;
  // max_keywords: distinct keywords one account may define; default 256,
  // at most 1024. A defined keyword keeps its id while the account exists.
  uint32_t max_keywords;
  // changes_keep: change log entries (ms_account_changes) kept per
  // account; the oldest beyond it are pruned (in steps of an eighth of it,
  // so that a prune is not a cost of every commit); default 20,000.
  uint32_t changes_keep;
  // changes_keep_seconds: change log entries older than this are pruned
  // too; default 30 days. UINT32_MAX keeps them regardless of age.
  uint32_t changes_keep_seconds;
  // index_max_bytes: memory the packed mailbox index (see "Packed mailbox
  // index") may keep, least recently used mailboxes dropped first; about
  // 64 bytes per message, plus 20 and the distinct keys' bytes per string
  // sort key used; default 64 MiB (a million messages). A mailbox
  // whose index alone would exceed it is read from LMDB every time.
  uint64_t index_max_bytes;
  // blob_chunk_size: a message longer than this is stored as independent
  // zstd frames of this many raw bytes each (the last one shorter), so that
  // ms_message_read_range decompresses only the chunks a range touches;
  // default 256 KiB, clamped to 64 KiB .. 16 MiB. Smaller chunks make range
  // reads cheaper and compress a little worse (each frame starts with an
  // empty history; the dictionary, when there is one, helps each). It
  // applies to blobs written from now on; readers need no setting.
  // UINT32_MAX stores every message as one frame, as format 4 did.
  uint32_t blob_chunk_size;
  // no_transform nonzero: store every message as it is. 0 (default): the
  // Base64 bodies of a new or recompressed message that have a regular
  // shape (lines of one length, one line break style) and re-encode to
  // exactly their bytes are stored decoded and re-encoded on read
  // (FORMAT.md "Transforms"), which zstd compresses far better. Reads are
  // byte-exact either way; readers need no setting.
  uint32_t no_transform;
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
  uint64_t syncs;     // data file syncs made after write commits (any kind), each
                      // before the commits it covers were reported done
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
// the dictionary each names, which must exist, and Base64 bodies stored
// decoded re-encoded, so the hash is of the bytes a read returns),
// dictionaries, mailbox counts, VANISHED entries and account usage all
// match. `diag` may be NULL; else it receives the first problem found.
// Returns 0, MS_ERR_CORRUPT or -errno. A part of the file LMDB cannot read
// (a damaged page) fails the check as MS_ERR_CORRUPT with an empty message:
// the check stops there rather than blame a record. Thread-safe; it reads
// the whole store, so its cost grows with it.
MS_API MS_WARN_UNUSED_RESULT int ms_store_verify(ms_store *store, struct ms_diag *diag);

// ms_store_collect finishes what expunges left: a destroyed message's blob
// reference is not dropped by the expunge itself (which then touches only
// records stored next to each other) but queued, and this call drops up to
// `max_items` queued references (0 means 65,536; at most 1,000,000), in one
// durable write transaction (in parts in a full store, see "Store"),
// deleting each blob whose count reaches 0.
// Until then the blob's space stays in use, and an identical message
// delivered meanwhile shares it. Call it from time to time (mailctl store
// collect, a daemon's idle timer) until it returns 0. Returns the number of
// references dropped, or MS_ERR_CORRUPT, -ENOSPC, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_collect(ms_store *store, size_t max_items);

// ms_store_stats summarises a whole store.
struct ms_store_stats {
  uint64_t accounts;
  uint64_t mailboxes;
  uint64_t messages;       // message records (a message in several mailboxes counts once)
  uint64_t memberships;    // (mailbox, UID) entries
  uint64_t bytes;          // sum of the accounts' used bytes (raw message sizes)
  uint64_t blobs;          // distinct stored bodies
  uint64_t blob_raw;       // their raw size in bytes
  uint64_t blob_stored;    // their compressed size in bytes, record heads included
  uint64_t released;       // blob references queued for ms_store_collect
  uint64_t map_used;       // bytes of the LMDB map the tables use (their pages * page size)
  uint64_t dicts;          // trained zstd dictionaries kept in the store
  uint64_t dict_bytes;     // their total size
  uint32_t dict_current;   // id of the dictionary new blobs use, 0 if none
  uint64_t dict_blobs;     // blobs compressed with some dictionary
  uint64_t dict_raw;       // their raw size in bytes
  uint64_t dict_stored;    // their compressed size, record heads included
  uint64_t chunked_blobs;  // blobs stored in chunks (ms_settings.blob_chunk_size)
  uint64_t chunked_raw;    // their raw size in bytes
  uint64_t chunked_stored; // their compressed size, heads and chunk tables included
  uint64_t search_queued;  // search queue entries not yet acknowledged
  uint64_t xf_blobs;       // blobs with Base64 bodies stored decoded (no_transform)
  uint64_t xf_raw;         // their raw size in bytes
  uint64_t xf_stored;      // their compressed size, heads and tables included
  uint64_t xf_segments;    // Base64 bodies stored decoded
  uint64_t xf_encoded;     // their raw (Base64) size in bytes
  uint64_t xf_decoded;     // their decoded size in bytes
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
// MS_ERR_INVALID_ARGUMENT, MS_ERR_SAMPLES (fewer than 8 stored bodies of
// at least 64 bytes, shorter ones being left out of the sample: identical
// messages share one, and an expunged message's counts until
// ms_store_collect drops it; or zstd finds too little to learn from),
// MS_ERR_CORRUPT, -ENOMEM, -ENOSPC, -errno. Thread-safe; other processes adopt the new dictionary
// at their next delivery commit.
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
// ms_store_collect) and its VANISHED history. A mailbox too large to delete
// in one transaction in a full store is emptied in parts first (see
// "Store"), then deleted; if that fails partway, it stays, emptied of what
// went.
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

// ms_message_digest sets out to the SHA-256 of message `message_id`'s
// bytes: the key its body is stored under, so identical messages share it.
// ms_message_read returns the bytes without checking them against it (a
// whole read stays at decompression speed, and a range cannot be checked);
// a reader that must not pass on damaged bytes, such as an export or a
// backup, hashes what it read and compares. ms_store_verify checks every
// body. Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND, MS_ERR_CORRUPT,
// -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_message_digest(ms_store *store, uint8_t out[32],
                                                   uint32_t account, uint64_t message_id);

// ms_message_read copies message `message_id`'s bytes into out (out_cap
// bytes) and sets *out_len to its size (also when out_cap is too small, then
// returning MS_ERR_LIMIT). Errors: MS_ERR_NOTFOUND, MS_ERR_LIMIT,
// MS_ERR_CORRUPT, -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_message_read(ms_store *store, uint8_t *out, size_t out_cap,
                                                 size_t *out_len, uint32_t account,
                                                 uint64_t message_id);

// ms_message_read_range copies bytes [offset, offset + length) of message
// `message_id` into out (out_cap bytes) and sets *out_len to the number
// copied. The range is clamped to the message, as IMAP's partial FETCH
// (BODY[]<offset.length>) is: an offset at or past the end copies nothing
// and succeeds, a length running past the end (UINT64_MAX included) stops
// at the end, so `(0, UINT64_MAX)` reads the whole message. A message
// stored in chunks (ms_settings.blob_chunk_size) costs only the chunks the
// range touches, read and decompressed from one snapshot; a message stored
// as one frame is decompressed from its start up to the range's end only.
// A message whose Base64 bodies are stored decoded (ms_settings.
// no_transform) costs the stored bytes the range maps to (at most one
// Base64 line more at each end) and re-encodes the lines it touches; the
// range is held once more in a temporary buffer.
// Errors: MS_ERR_INVALID_ARGUMENT (store or out_len NULL, out NULL with
// out_cap non-zero), MS_ERR_NOTFOUND (no such message), MS_ERR_LIMIT
// (out_cap smaller than the clamped range, whose length is then stored in
// *out_len and nothing is copied), MS_ERR_CORRUPT (the stored blob does not
// decode or decompress), -errno. *out_len is 0 after any other error, and
// the bytes of out are then unspecified. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_message_read_range(ms_store *store, uint8_t *out,
                                                       size_t out_cap, size_t *out_len,
                                                       uint32_t account, uint64_t message_id,
                                                       uint64_t offset, uint64_t length);

// ms_flags_store adds `add` and then removes `remove` (MS_FLAG_* bits) on the
// `count` UIDs of `mailbox`, in one transaction (in parts, in the order of
// `uids`, in a full store: see "Store"). UIDs not in the mailbox are
// skipped; every changed message gets a new MODSEQ (unchanged ones keep
// theirs). Returns the number of messages changed or MS_ERR_INVALID_ARGUMENT,
// MS_ERR_LIMIT (count > max_batch), MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno
// (-ENOSPC: not even one message fitted; after a part that did, the number
// changed so far).
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
// ids stay, src records the UIDs as vanished. In a full store the move may
// run in parts, slices of `uids` in their order (RFC 6851 3.3 lets a move
// stop partway), so pass them in ascending order to keep new UIDs in
// source order across parts; out_uids says which moved. Returns the number
// moved; errors as ms_messages_copy (-ENOSPC as for ms_flags_store).
MS_API MS_WARN_UNUSED_RESULT int ms_messages_move(ms_store *store, uint32_t *out_uids,
                                                  uint32_t account, uint32_t src, uint32_t dst,
                                                  const uint32_t *uids, size_t count);

// ms_messages_expunge removes the `count` UIDs at `uids` from `mailbox`, or
// when uids is NULL every message flagged MS_FLAG_DELETED. Each removed UID
// is recorded with its expunge MODSEQ (QRESYNC VANISHED); a message left in
// no mailbox is destroyed (its record deleted, the account's usage reduced)
// and its blob reference queued for ms_store_collect. With uids NULL,
// `count` is ignored. In a full store the expunge may run in parts (see
// "Store"). Returns the number expunged; errors as ms_flags_store.
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
// capacities, which then gives MS_ERR_LIMIT. VANISHED history is pruned
// with the account change log (ms_settings.changes_keep): when entries
// after `since` may be gone, the call fills what it has and returns
// MS_ERR_EXPIRED, and the caller must resynchronise without it (RFC 7162
// section 3.2.5.2: the client's known UIDs against the current ones).
// Errors: MS_ERR_NOTFOUND, MS_ERR_LIMIT, MS_ERR_EXPIRED, MS_ERR_CORRUPT,
// -errno.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_changes(ms_store *store, struct ms_entry *out,
                                                    size_t out_cap, size_t *out_len,
                                                    uint32_t *vanished, size_t vanished_cap,
                                                    size_t *vanished_len, uint32_t account,
                                                    uint32_t mailbox, uint64_t since);

// Keywords.
//
// Keywords are IMAP flag-keywords (RFC 9051 section 2.3.2) and JMAP Email
// keywords (RFC 8621 section 4.1.1). Like the system flags they belong to a
// membership, a message in one mailbox: IMAP STORE acts on a UID of the
// selected mailbox, and CONDSTORE gives each membership its own MODSEQ; a
// JMAP server sets an Email's keywords in each of its mailboxes. Each
// account numbers its keywords (ids from 0, in order of first use, never
// reused or renumbered) and a membership stores the set of ids as a bitmap
// inside its uid record, so a keyword costs a bit, reading flags and
// keywords is one record read, and copy, move and expunge carry or drop
// them with no extra work (FORMAT.md).
//
// Names are compared ASCII case-insensitively (a name keeps the spelling of
// its first use) and must be IMAP atoms: 1..max_keyword_len printable ASCII
// characters other than SP ( ) { % * " \ ]. The names \Seen, \Answered,
// \Flagged, \Deleted and \Draft (any case) stand for the system flags
// MS_FLAG_*, so that IMAP STORE FLAGS replaces flags and keywords in one
// transaction; any other name starting with '\' (\Recent included) is
// refused. JMAP's $seen, $answered, $flagged and $draft are ordinary
// keywords here: the JMAP layer maps them to the system flags.

// Keyword operations of ms_keywords_store.
enum {
  MS_KEYWORDS_ADD = 1,     // IMAP +FLAGS
  MS_KEYWORDS_REMOVE = 2,  // IMAP -FLAGS
  MS_KEYWORDS_REPLACE = 3, // IMAP FLAGS, JMAP Email/set keywords
};

// ms_keyword_check returns 0 if `name` (len bytes) is a keyword or system
// flag name ms_keywords_store accepts under `settings` (may be NULL for the
// defaults), else MS_ERR_INVALID_ARGUMENT (bad syntax, a '\' name that is
// not a system flag) or MS_ERR_LIMIT (longer than max_keyword_len).
// Thread-safe; touches no store.
MS_API MS_WARN_UNUSED_RESULT int ms_keyword_check(const char *name, size_t len,
                                                  const struct ms_settings *settings);

// ms_keywords_store changes the flags and keywords of the `count` UIDs at
// `uids` of `mailbox` in one durable write transaction (in parts in a full
// store, as ms_flags_store): `op` adds, removes
// or replaces with the set named by the `name_count` names at names[i]
// (name_lens[i] bytes each; system flag names act on MS_FLAG_*; a repeated
// name counts once). Keywords the account has not used yet are defined
// first (ADD and REPLACE; REMOVE ignores unknown names). UIDs not in the
// mailbox are skipped; every membership whose flags or keywords change gets
// the transaction's new MODSEQ and a change log entry, unchanged ones keep
// theirs. Returns the number of memberships changed, or
// MS_ERR_INVALID_ARGUMENT (bad op or name, NULL arrays with nonzero counts),
// MS_ERR_LIMIT (count > max_batch, name_count > max_keywords, or the
// account would define more than max_keywords keywords), MS_ERR_NOTFOUND
// (account or mailbox), MS_ERR_CORRUPT, -ENOMEM, -ENOSPC, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_keywords_store(ms_store *store, uint32_t account,
                                                   uint32_t mailbox, const uint32_t *uids,
                                                   size_t count, int op, const char *const *names,
                                                   const size_t *name_lens, size_t name_count);

// ms_keyword_find stores in *out_id the id of keyword `name` of `account`
// (case-insensitive). Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND (the
// account never used it, or no such account), MS_ERR_CORRUPT, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_keyword_find(ms_store *store, uint32_t *out_id,
                                                 uint32_t account, const char *name,
                                                 size_t name_len);

// ms_keyword_name copies the name of keyword `id` of `account` into out
// (out_cap bytes, not NUL-terminated) and sets *out_len to its length (also
// when out_cap is too small, then returning MS_ERR_LIMIT; 255 bytes always
// suffice). Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND, MS_ERR_LIMIT,
// MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_keyword_name(ms_store *store, char *out, size_t out_cap,
                                                 size_t *out_len, uint32_t account, uint32_t id);

// ms_keyword_count sets *out_count to the number of keywords `account` has
// defined and *out_max (may be NULL) to this handle's max_keywords, so
// that IMAP can offer \* in PERMANENTFLAGS only while new keywords can
// still be made. Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND (no such
// account), MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_keyword_count(ms_store *store, uint32_t *out_count,
                                                  uint32_t *out_max, uint32_t account);

// ms_keywords_get writes the keyword ids of UID `uid` of `mailbox`, in
// increasing order, to out (up to out_cap) and their number to *out_len
// (the total, also when larger than out_cap, which then gives MS_ERR_LIMIT;
// max_keywords entries always suffice); *out_flags (may be NULL) receives
// its MS_FLAG_* bits. Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND (no
// such UID, mailbox or account), MS_ERR_LIMIT, MS_ERR_CORRUPT, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_keywords_get(ms_store *store, uint32_t *out, size_t out_cap,
                                                 size_t *out_len, uint32_t *out_flags,
                                                 uint32_t account, uint32_t mailbox, uint32_t uid);

// ms_mailbox_keywords writes the ids of the keywords set on at least one
// message of `mailbox` (what IMAP FLAGS and PERMANENTFLAGS list besides the
// system flags), in increasing order, to out (up to out_cap) and their
// number to *out_len (the total; MS_ERR_LIMIT when larger than out_cap).
// It reads the mailbox's uid records in one snapshot, so its cost grows
// with the mailbox. Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND,
// MS_ERR_LIMIT, MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_keywords(ms_store *store, uint32_t *out, size_t out_cap,
                                                     size_t *out_len, uint32_t account,
                                                     uint32_t mailbox);

// ms_keyword_entry is one message of ms_mailbox_list_keywords: its entry
// and where its keyword ids lie in the ids array.
struct ms_keyword_entry {
  struct ms_entry entry;
  uint32_t first; // index of its first keyword id in the ids array
  uint32_t count; // number of its keyword ids
};

// ms_mailbox_list_keywords is ms_mailbox_list with keywords: it writes the
// entries of `mailbox` with UID >= first_uid in UID order to out (up to
// out_cap, number in *out_len) and their keyword ids, each message's in
// increasing order, to ids (up to ids_cap, number in *ids_len), from one
// snapshot, stopping before the first message whose entry or ids do not
// fit. Page on with the last UID + 1. Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_NOTFOUND, MS_ERR_LIMIT (the first message's ids alone exceed
// ids_cap), MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int
ms_mailbox_list_keywords(ms_store *store, struct ms_keyword_entry *out, size_t out_cap,
                         size_t *out_len, uint32_t *ids, size_t ids_cap, size_t *ids_len,
                         uint32_t account, uint32_t mailbox, uint32_t first_uid);

// Enumeration: an account's mailboxes and messages.

// ms_account_mailboxes writes the ids of every mailbox of `account`, in
// byte order of their full names (a parent before its children), to out (up
// to out_cap) and their number to *out_len (the total; MS_ERR_LIMIT when
// larger than out_cap), from one snapshot. Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_NOTFOUND (no such account), MS_ERR_LIMIT, MS_ERR_CORRUPT, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_account_mailboxes(ms_store *store, uint32_t *out,
                                                      size_t out_cap, size_t *out_len,
                                                      uint32_t account);

// ms_account_messages writes the ids of `account`'s messages greater than
// `after`, in increasing order, to out (up to out_cap, at least 1) and their
// number to *out_len. Page through an account by passing 0 first and then
// the last id of the previous page; a page shorter than out_cap is the last
// (an empty one ends an account with no messages past `after`). Each call
// reads only the account's range of message records, from one snapshot (one
// read transaction per page): messages delivered or destroyed between pages
// show up or not as their ids fall before or after the page boundary. Ids
// are given out increasing and never reused, so gaps left by destroyed
// messages cost nothing. Errors: MS_ERR_INVALID_ARGUMENT (store, out or
// out_len NULL, out_cap 0), MS_ERR_NOTFOUND (no such account),
// MS_ERR_CORRUPT, -errno; *out_len is 0 after an error. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_account_messages(ms_store *store, uint64_t *out, size_t out_cap,
                                                     size_t *out_len, uint32_t account,
                                                     uint64_t after);

// ms_mailbox_name copies the full name of `mailbox` ('/' between levels,
// not NUL-terminated) into out (out_cap bytes) and sets *out_len to its
// length (also when out_cap is too small, then returning MS_ERR_LIMIT;
// ms_settings.max_name_len bytes always suffice). Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND, MS_ERR_LIMIT, MS_ERR_CORRUPT,
// -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_name(ms_store *store, char *out, size_t out_cap,
                                                 size_t *out_len, uint32_t account,
                                                 uint32_t mailbox);

// Account change log.
//
// What JMAP's Foo/changes (RFC 8620 section 5.2) needs: every write
// transaction that creates, changes or destroys a message or a mailbox logs
// it per account, in the same transaction. A message is updated when the
// flags or keywords of one of its memberships change or a copy, move or
// expunge changes its mailboxes; it is destroyed with its last membership.
// A mailbox is updated when renamed or (un)subscribed, and has its counts
// changed (MS_CHANGE_COUNTS, JMAP updatedProperties) when messages enter or
// leave it or \Seen changes in it. Each entry advances the account's state,
// a number that only grows (0 before the first change); the JMAP layer
// prints it as its state string. The log keeps the newest
// ms_settings.changes_keep entries no older than changes_keep_seconds; a
// state older than what is kept cannot be answered (MS_ERR_EXPIRED: JMAP
// cannotCalculateChanges). IMAP QRESYNC VANISHED history is pruned with it:
// ms_mailbox_changes reports MS_ERR_EXPIRED for a MODSEQ it no longer
// covers.

// Change kinds (filter bits of ms_account_changes) and types.
enum {
  MS_CHANGE_MESSAGE = 1,
  MS_CHANGE_MAILBOX = 2,
};
enum {
  MS_CHANGE_CREATED = 1,
  MS_CHANGE_UPDATED = 2,
  MS_CHANGE_DESTROYED = 3,
  MS_CHANGE_COUNTS = 4, // mailbox: only its message counts changed
};

// ms_change is one object in a ms_account_changes answer.
struct ms_change {
  uint32_t kind; // MS_CHANGE_MESSAGE or MS_CHANGE_MAILBOX
  uint32_t type; // MS_CHANGE_CREATED .. MS_CHANGE_COUNTS
  uint64_t id;   // message id or mailbox id
};

// ms_account_state sets *out to the current state of `account` (0 if
// nothing was logged yet). Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_NOTFOUND, MS_ERR_CORRUPT, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_account_state(ms_store *store, uint64_t *out, uint32_t account);

// ms_account_changes reports, from one snapshot, the objects of the kinds
// in `kinds` (MS_CHANGE_MESSAGE and/or MS_CHANGE_MAILBOX bits) that changed
// in `account` after state `since_state`, each id once with its net change
// as RFC 8620 section 5.2 describes: created then updated is created,
// updated then destroyed is destroyed, created then destroyed is left out,
// counts then updated is updated. It writes at most max_changes (at most
// out_cap, which must be > 0) of them to out, their number to *out_len,
// and to *out_new_state the state they bring the caller to: the current
// state, or with *out_has_more set an intermediate one to call again with.
// Errors: MS_ERR_INVALID_ARGUMENT (NULL pointers, kinds 0, max_changes 0,
// since_state later than the current state), MS_ERR_EXPIRED (since_state
// is older than the log keeps: cannotCalculateChanges), MS_ERR_NOTFOUND,
// MS_ERR_CORRUPT, -ENOMEM, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_account_changes(ms_store *store, struct ms_change *out,
                                                    size_t out_cap, size_t *out_len,
                                                    uint64_t *out_new_state, int *out_has_more,
                                                    uint32_t account, uint32_t kinds,
                                                    uint64_t since_state, size_t max_changes);

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

// Message summaries, threads and sorting.
//
// Each delivery (ms_message_append, ms_messages_deliver) parses its message
// with libmailparse before the commit, as it compresses it, and stores a
// summary next to the message record in the same transaction: the IMAP
// ENVELOPE and extended BODYSTRUCTURE, and the values SORT, THREAD and JMAP
// Email/get need (FORMAT.md "Message summaries"). Copy and move keep the
// message and its summary; the destruction of a message deletes it. A
// message stored by an older version of the library has no summary: it is
// made from the message's bytes each time it is asked for (the same result,
// at the cost of a parse) until ms_store_summarize stores it.
//
// Thread ids (ms_message_info.thread_id, the JMAP threadId) are chosen in
// the delivery transaction: a message joins the thread of the first message
// it names (its own Message-ID as named by an earlier message, then
// In-Reply-To, then References from the nearest) or, when it names none
// that is known but claims to be a reply, the thread of its base subject;
// otherwise its thread id is its own message id. Thread ids never change: a
// message naming messages of two threads joins the first found and merges
// nothing (FORMAT.md "Threads"). IMAP THREAD (ms_mailbox_thread) computes
// RFC 5256 threads of one mailbox afresh and does not use these ids.

// ms_text is a byte string inside a caller's buffer (not NUL-terminated;
// len 0 when absent).
struct ms_text {
  const char *p;
  size_t len;
};

// Summary flags.
enum {
  MS_SUMMARY_HAS_DATE = 1u << 0,       // a Date field parsed; else date is the internal date
  MS_SUMMARY_HAS_ATTACHMENT = 1u << 1, // JMAP hasAttachment: mp_message_select lists one
  MS_SUMMARY_REPLY = 1u << 2,          // the subject had a reply or forward marker (RFC 5256)
  MS_SUMMARY_STORED = 1u << 3,         // read from the store (else made on the fly)
};

// ms_summary is a message's cached summary; every ms_text points into the
// buffer given to ms_message_summary_get.
struct ms_summary {
  uint32_t flags;          // MS_SUMMARY_*
  int32_t date_offset;     // the Date field's zone, minutes east of UTC
  int64_t date;            // RFC 5256 sent date: the Date field in UTC seconds, else internal_date
  int64_t internal_date;   // seconds since the epoch
  uint64_t size;           // RFC822.SIZE
  struct ms_text envelope; // IMAP ENVELOPE, as mp_part_envelope writes it
  struct ms_text bodystructure; // IMAP BODYSTRUCTURE (extended), as mp_part_bodystructure
  struct ms_text from, to, cc;  // RFC 5256 sort keys: addr-mailbox of the first mailbox
                                // (group names are skipped)
  struct ms_text display_from;  // RFC 5957 DISPLAYFROM: display name, else addr-spec
  struct ms_text display_to;    // RFC 5957 DISPLAYTO
  struct ms_text subject;       // RFC 5256 base subject (UTF-8)
  struct ms_text message_id;    // Message-ID without angle brackets
  struct ms_text in_reply_to;   // the first In-Reply-To id
  struct ms_text references;    // References ids in order, separated by one space
  struct ms_text preview;       // JMAP preview (RFC 8621 section 4.1.4), UTF-8
};

// ms_message_summary_get fills *out with the summary of message
// `message_id` of `account`, copying its bytes into buf (buf_cap bytes,
// owned by the caller; the ms_text fields of *out point into it) and setting
// *buf_len to the bytes used (also when buf_cap is too small, which then
// returns MS_ERR_LIMIT: call again with that many). A message without a
// stored summary is read and summarised on the fly. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_NOTFOUND, MS_ERR_LIMIT, MS_ERR_CORRUPT,
// -ENOMEM, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_message_summary_get(ms_store *store, struct ms_summary *out,
                                                        uint8_t *buf, size_t buf_cap,
                                                        size_t *buf_len, uint32_t account,
                                                        uint64_t message_id);

// ms_summary_make summarises the message `data` (len bytes) as a delivery
// would with internal date `internal_date`, into buf as
// ms_message_summary_get does (MS_SUMMARY_STORED clear), without any store.
// Errors: MS_ERR_INVALID_ARGUMENT, MS_ERR_LIMIT (*buf_len says how much is
// needed), -ENOMEM. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_summary_make(struct ms_summary *out, uint8_t *buf,
                                                 size_t buf_cap, size_t *buf_len,
                                                 const uint8_t *data, size_t len,
                                                 int64_t internal_date);

// ms_store_summarize stores the summary of up to `max_items` messages (0
// means 1,024; at most 65,536) that have none (delivered by an older
// version of the library), in one durable write transaction, and returns
// how many it stored; an upgrade tool calls it until it returns 0.
// Their thread ids stay. Each call walks the message records from the
// start (a cursor step per message that has its summary) in one read
// snapshot, parses the messages outside any transaction, then stores the
// summaries of those still without one in one write transaction. Errors:
// MS_ERR_INVALID_ARGUMENT, MS_ERR_CORRUPT, -ENOMEM, -ENOSPC, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_summarize(ms_store *store, size_t max_items);

// Sort keys of ms_mailbox_sort (RFC 5256 section 3, RFC 5957), each
// optionally or'ed with MS_SORT_REVERSE.
enum {
  MS_SORT_ARRIVAL = 1,     // internal date
  MS_SORT_CC = 2,          // addr-mailbox of the first Cc address
  MS_SORT_DATE = 3,        // sent date (Date in UTC, else the internal date)
  MS_SORT_FROM = 4,        // addr-mailbox of the first From address
  MS_SORT_SIZE = 5,        // RFC822.SIZE
  MS_SORT_SUBJECT = 6,     // base subject
  MS_SORT_TO = 7,          // addr-mailbox of the first To address
  MS_SORT_DISPLAYFROM = 8, // RFC 5957 display name of the first From address
  MS_SORT_DISPLAYTO = 9,   // RFC 5957 display name of the first To address
  MS_SORT_REVERSE = 0x100,
};

// MS_SORT_MAX_KEYS bounds the keys of one ms_mailbox_sort call.
#define MS_SORT_MAX_KEYS 16

// ms_mailbox_sort sorts the messages of `mailbox` (all of them when uids is
// NULL, else those of the uid_count UIDs at uids that it holds, in any
// order, repeats counted once: the IMAP SORT command's search result) by
// the `key_count` keys at `keys` (MS_SORT_*; the first decides, the next
// break its ties; no keys means UID order) from one snapshot of the cached
// summaries. Strings compare with the i;ascii-casemap collation; messages
// equal on every key keep UID (sequence) order, whatever MS_SORT_REVERSE
// says, as RFC 5256 requires. It writes the UIDs at positions offset ..
// offset + out_cap - 1 of the sorted order to out, their number to
// *out_len, and the count of messages sorted to *out_total (may be NULL),
// which is what JMAP
// Email/query's position, limit and total need. Memory: about 110 bytes
// per message plus the string keys asked for, freed before return; time
// O(n log n) per call, nothing is kept between calls. Errors:
// MS_ERR_INVALID_ARGUMENT (unknown key, more than MS_SORT_MAX_KEYS keys,
// NULL pointers), MS_ERR_NOTFOUND (account or mailbox), MS_ERR_LIMIT (more
// than 4 GiB of string keys, uid_count > max_batch), MS_ERR_CORRUPT,
// -ENOMEM, -errno. Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int
ms_mailbox_sort(ms_store *store, uint32_t *out, size_t out_cap, size_t *out_len, size_t *out_total,
                uint32_t account, uint32_t mailbox, const uint32_t *uids, size_t uid_count,
                const uint32_t *keys, size_t key_count, size_t offset);

// Threading algorithms of ms_mailbox_thread (RFC 5256 section 3).
enum {
  MS_THREAD_ORDEREDSUBJECT = 1,
  MS_THREAD_REFERENCES = 2,
};

// MS_THREAD_BYTES_PER_MESSAGE bytes per message of the mailbox (plus 2)
// always hold ms_mailbox_thread's output.
#define MS_THREAD_BYTES_PER_MESSAGE 16

// ms_mailbox_thread threads the messages of `mailbox` (all, or those of the
// uid_count UIDs at uids, as ms_mailbox_sort selects them) with `algorithm`
// (MS_THREAD_*; RFC 5256 section 3: REFERENCES with dummy parents, pruning
// and base-subject merging; ORDEREDSUBJECT) from one snapshot of the cached
// summaries, and writes the result as the IMAP THREAD response's thread
// list (RFC 5256 section 4, e.g. "(2)(3 6 (4 23)(44 7 96))", UIDs; nothing
// for an empty mailbox) to out (out_cap bytes, not NUL-terminated),
// setting *out_len to its length (also when out_cap is too small, which
// then returns MS_ERR_LIMIT; MS_THREAD_BYTES_PER_MESSAGE per message plus 2
// always suffice) and *out_threads (may be NULL) to the number of threads.
// Message-IDs compare as bytes, base subjects with i;ascii-casemap. Memory
// and time as ms_mailbox_sort. Errors: MS_ERR_INVALID_ARGUMENT,
// MS_ERR_NOTFOUND, MS_ERR_LIMIT (output, or uid_count > max_batch),
// MS_ERR_CORRUPT, -ENOMEM, -errno.
// Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_mailbox_thread(ms_store *store, char *out, size_t out_cap,
                                                   size_t *out_len, size_t *out_threads,
                                                   uint32_t account, uint32_t mailbox,
                                                   const uint32_t *uids, size_t uid_count,
                                                   int algorithm);

// Packed mailbox index.
//
// The handle keeps, for recently used mailboxes, a packed array in UID
// order of each message's UID, flags, keywords, message id, MODSEQ,
// internal date, sent date, size and thread id, built from one snapshot on
// first use. Keywords are kept as a 64-bit mask over a per-mailbox table
// of the keyword ids its messages use; a mailbox using more than 64
// distinct keywords has its keyword calls answered from LMDB instead.
// ms_mailbox_list and ms_mailbox_list_keywords (flag fetches: pages of at
// least an eighth of the mailbox build it, smaller pages only use a
// current one), ms_mailbox_keywords,
// ms_mailbox_changes (CONDSTORE/QRESYNC: changed since a MODSEQ) and
// ms_mailbox_sort (whole-mailbox sorts: ARRIVAL, SIZE and DATE keys from
// the array, DATE only when every message had a stored summary at build
// time; string keys from a column per key holding each message's rank
// among the distinct keys (ranked once, with 8-byte collation prefixes),
// made from the summaries on the first sort by that key and carried to
// the rebuilt array after a change, so that later sorts read no summary
// and compare numbers; the order of the first single-key sort is kept with the
// array) answer from it. An array carries the UIDVALIDITY and
// HIGHESTMODSEQ of the snapshot it was built from; every write to a
// mailbox's messages raises its HIGHESTMODSEQ in the same transaction, and
// each call compares the stamp read in its own read transaction with the
// array's, rebuilding on a mismatch, so answers are those of the caller's
// snapshot whichever process wrote. A rebuild reads the membership records
// again but takes each message's size, date and thread from the previous
// array. Memory is bounded by ms_settings.index_max_bytes.

// ms_index_info describes the handle's packed index.
struct ms_index_info {
  uint64_t mailboxes; // arrays cached now
  uint64_t bytes;     // memory they use
  uint64_t hits;      // calls answered from a current array
  uint64_t builds;    // arrays built (first use or after a change)
  uint64_t rebuilds;  // of those, built because the mailbox changed
  uint64_t evictions; // arrays dropped for index_max_bytes
};

// ms_store_index_info copies the handle's index figures into *out. Errors:
// MS_ERR_INVALID_ARGUMENT (NULL). Thread-safe.
MS_API MS_WARN_UNUSED_RESULT int ms_store_index_info(ms_store *store, struct ms_index_info *out);

#ifdef __cplusplus
}
#endif

#endif // MS_MAILSTORE_H
