// srv_indexer.h: the full-text indexing queue of the daemons and the
// ftsearch tool: libmailstore's search queue feeding a libftsearch index.
//
// libftsearch knows documents and fields, libmailstore knows messages; this
// glue turns each queued message into a document (libmailparse: From, To,
// Cc, Bcc, Subject, a few other headers, the text body, HTML turned to text,
// attachment names and text) whose id is the message id, and each queued
// removal into a deletion. It is private to servers/ and tools/: linked
// statically, never installed, no ABI.
//
// Guarantees:
// - at least once: queue entries are acknowledged (ms_search_queue_ack) only
//   after the index commit that holds their effect is durable, so a crash
//   anywhere repeats work and never loses it;
// - idempotent: indexing a message again replaces its document, removing it
//   again does nothing, so repeated work leaves the index as one pass would;
// - order: entries of one account are applied in queue order (an INDEX
//   followed by a REMOVE of the same message ends removed); accounts are
//   spread over the workers, one account always on the same worker;
// - transient errors (memory, I/O, a damaged index, and any failed index
//   commit, such as a full map) are retried with exponential backoff and
//   never acknowledged; a message that fails on its own (unparseable, over
//   a limit, its stored record or body damaged: MS_ERR_CORRUPT from
//   reading it) is retried max_attempts times, then recorded as failed in
//   the failure log, acknowledged, and skipped.
//
// One indexer at a time may work on one index: srv_indexer_run_once and
// srv_indexer_rebuild take an exclusive lock (flock) on "<index>.indexer"
// and keep it until srv_indexer_free.
//
// Errors: 0 or a negative code from the layer that failed: SRV_ERR_*
// (srv_error.h), MS_ERR_* (mailstore.h), FTS_ERR_* (ftsearch.h), MP_ERR_*
// (mailparse.h) or -errno. srv_indexer_strerror describes any of them.
#ifndef SRV_INDEXER_H
#define SRV_INDEXER_H

#include <stddef.h>
#include <stdint.h>

#include "ftsearch.h"
#include "mailstore.h"
#include "srv_error.h"

#ifdef __cplusplus
extern "C" {
#endif

// Indexing queue.

// SRV_INDEXER_DEFAULT_* are the defaults of srv_indexer_settings; the
// SRV_INDEXER_MAX_* bounds are enforced (SRV_ERR_INVALID_ARGUMENT above them).
#define SRV_INDEXER_DEFAULT_WORKERS 2u
#define SRV_INDEXER_MAX_WORKERS 64u
#define SRV_INDEXER_DEFAULT_BATCH 512u
#define SRV_INDEXER_MAX_BATCH 65536u
#define SRV_INDEXER_DEFAULT_MAX_ATTEMPTS 3u
#define SRV_INDEXER_DEFAULT_BACKOFF_MS 50u
#define SRV_INDEXER_DEFAULT_BACKOFF_MAX_MS 5000u
#define SRV_INDEXER_DEFAULT_MAX_MESSAGE_SIZE (64u << 20)

// srv_indexer_settings holds the indexer's limits; a 0 field means the
// default.
struct srv_indexer_settings {
  uint32_t workers;          // threads parsing and analysing; default 2, at most 64
  uint32_t batch;            // queue entries per index commit; default 512, at most 65,536
  uint32_t max_attempts;     // failures of one message before it is given up; default 3
  uint32_t backoff_ms;       // first retry delay, doubled per retry; default 50 ms
  uint32_t backoff_max_ms;   // longest retry delay; default 5,000 ms
  uint32_t max_message_size; // larger messages fail with SRV_ERR_LIMIT; default 64 MiB
};

// srv_indexer is an indexer over one store and one index; opaque.
typedef struct srv_indexer srv_indexer;

// srv_indexer_new makes an indexer feeding `index` from the search queue of
// `store` and stores it in *out, freed with srv_indexer_free. Both handles
// are borrowed and must outlive it. `index_path` is the index's file,
// named for the indexer's lock file. `failed_path` names the failure log (a
// text file, one "account message_id code" line per given-up message,
// created on first use); NULL keeps failures in memory only. `settings` may
// be NULL. Errors: SRV_ERR_INVALID_ARGUMENT (NULL handle or index_path, a
// setting above its bound), FTS_ERR_INVALID_ARGUMENT (an index opened
// read-only: fts_batch_new), -ENOMEM.
SRV_WARN_UNUSED_RESULT int srv_indexer_new(srv_indexer **out, ms_store *store, fts_index *index,
                                           const char *index_path, const char *failed_path,
                                           const struct srv_indexer_settings *settings);

// srv_indexer_free releases `ix` and its lock; NULL is ignored.
void srv_indexer_free(srv_indexer *ix);

// srv_indexer_report counts what one call did.
struct srv_indexer_report {
  uint64_t entries; // queue entries acknowledged
  uint64_t indexed; // documents added or replaced
  uint64_t removed; // documents deleted
  uint64_t skipped; // INDEX entries whose message was already gone
  uint64_t failed;  // messages given up on (written to the failure log)
  uint64_t retries; // retries after a failure (transient or per message)
};

// srv_indexer_run_once takes up to `batch` entries from the head of the
// queue, indexes them with `workers` threads, commits, then acknowledges
// them, and adds its counts to *report (which may be NULL). It returns the
// number of entries acknowledged (0: the queue is empty), or an error, after
// max_attempts tries with backoff for a transient one; the queue then still
// holds the entries. A message that failed on its own and may be tried again
// ends the acknowledged range: the call sleeps the backoff and returns, and
// the next call starts at that message (when it is the first entry, the call
// retries it itself, so 0 always means an empty queue). Errors: SRV_ERR_INVALID_ARGUMENT,
// -EWOULDBLOCK (another indexer holds the index), -ENOMEM, -EIO, FTS_ERR_*,
// MS_ERR_*. Not thread-safe: call from one thread.
SRV_WARN_UNUSED_RESULT int srv_indexer_run_once(srv_indexer *ix, struct srv_indexer_report *report);

// srv_indexer_run calls srv_indexer_run_once until the queue is empty or
// *stop (if not NULL) becomes nonzero, and returns 0 or its first error.
SRV_WARN_UNUSED_RESULT int srv_indexer_run(srv_indexer *ix, struct srv_indexer_report *report,
                                           const volatile int *stop);

// srv_indexer_progress_fn is told how far a rebuild got: `done` of about
// `total` messages. A nonzero return stops the rebuild, which returns it.
typedef int (*srv_indexer_progress_fn)(void *ctx, uint64_t done, uint64_t total);

// srv_indexer_rebuild indexes every message of `account` in the store
// again and deletes the documents of messages the store no longer holds, so
// that the account's documents equal a fresh index of it (searches keep
// working meanwhile; every replaced document's old postings are purged).
// It forgets the account's failures (they are tried again) and leaves the
// queue alone: entries queued meanwhile are applied by the next run, which
// is harmless. The account's messages are listed in pages of ids
// (ms_account_messages), so runs of destroyed ids cost nothing; a message
// delivered meanwhile is reached if its id comes after the page being read.
// `progress` may be NULL; its nonzero return is returned. Errors: as
// srv_indexer_run_once, MS_ERR_NOTFOUND (no account).
SRV_WARN_UNUSED_RESULT int srv_indexer_rebuild(srv_indexer *ix, struct srv_indexer_report *report,
                                               uint32_t account, srv_indexer_progress_fn progress,
                                               void *progress_ctx);

// srv_indexer_status describes one account.
struct srv_indexer_status {
  uint64_t queued;              // queue entries of the account not yet acknowledged
  uint64_t indexed;             // documents in the index
  uint64_t failed;              // messages in the failure log
  uint64_t last_failed_message; // the latest failed message id, 0 if none
  int last_error;               // its error code, 0 if none
};

// srv_indexer_status_get fills *out for `account`: it walks the whole queue
// and the failure log (run it for people, not per message). Without a
// failure log, `failed` counts what this handle gave up on, all accounts
// together, and last_error stays 0. A crash between a failure's log line and
// its acknowledgement may log that message twice. Errors:
// SRV_ERR_INVALID_ARGUMENT, -ENOMEM, -errno, MS_ERR_*, FTS_ERR_*.
// Thread-safe with respect to a running indexer of another process.
SRV_WARN_UNUSED_RESULT int srv_indexer_status_get(srv_indexer *ix, struct srv_indexer_status *out,
                                                  uint32_t account);

// srv_indexer_strerror returns a static description of any code the
// functions above return.
const char *srv_indexer_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif // SRV_INDEXER_H
