// index.h: the packed per-mailbox index (index.c) that store.c's listing
// and resynchronisation and sort.c's numeric sorts read instead of walking
// LMDB records one by one.
#ifndef MS_INDEX_H
#define MS_INDEX_H

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <stddef.h>
#include <stdint.h>

#define msi_create mss_msi_create
#define msi_destroy mss_msi_destroy
#define msi_get mss_msi_get
#define msi_release mss_msi_release
#define msi_list mss_msi_list
#define msi_changes mss_msi_changes
#define msi_sort mss_msi_sort
#define msi_list_keywords mss_msi_list_keywords
#define msi_mailbox_keywords mss_msi_mailbox_keywords

// MSI_KEYWORDS is how many distinct keywords a mailbox's index carries as
// bits (msi_ent.kw); a mailbox whose messages use more is answered from
// LMDB for keywords (its flags, UIDs and dates still come from the index).
#define MSI_KEYWORDS 64u

// msi_ent is one message of a mailbox as the index keeps it (64 bytes):
// size, dates and thread belong to the message id and never change, so a
// rebuild copies them from the previous index instead of reading the
// message records again; flags, keywords and modseq belong to the
// membership. kw bit i stands for the mailbox's i-th keyword in increasing
// keyword id order (its index's table, at most MSI_KEYWORDS of them).
struct msi_ent {
  uint32_t uid;
  uint32_t flags;
  uint64_t message;
  uint64_t modseq;
  int64_t idate;   // internal date, seconds since the epoch
  int64_t date;    // sent date from the stored summary (RFC 5256 section 2.2)
  uint64_t thread; // thread id
  uint32_t size;   // RFC822.SIZE (max_message_size is 32-bit)
  uint64_t kw;     // keywords, as bits of the mailbox's keyword table
};

struct msi_cache;
struct msi_box;

// msi_create makes an empty cache bounded to max_bytes; NULL without memory.
struct msi_cache *msi_create(uint64_t max_bytes);
// msi_destroy frees the cache; no index may still be held.
void msi_destroy(struct msi_cache *c);

// msi_get returns in *out the index of mailbox (acct, mbox) whose record
// *m was read in transaction t, building it from t when the cached one
// does not carry m's stamp (UIDVALIDITY, HIGHESTMODSEQ) and may_build is
// nonzero (a caller reading a small part of the mailbox passes 0: walking
// that part costs less than a rebuild). Returns 1 with *out held (release
// it with msi_release), 0 when there is no current index to use (too
// large for the cache's bound, or not built: the caller reads LMDB
// itself), or an error.
int msi_get(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, const struct msr_mailbox *m,
            int may_build, struct msi_box **out);
void msi_release(ms_store *s, struct msi_box *b);

// msi_list serves ms_mailbox_list from b.
void msi_list(const struct msi_box *b, struct ms_entry *out, size_t out_cap, size_t *out_len,
              uint32_t first_uid);
// msi_list_keywords serves ms_mailbox_list_keywords from b, with its
// semantics (stops before the first message whose entry or ids do not fit;
// MS_ERR_LIMIT when the first one's ids alone do not). Returns 1 when
// served (*out_len, *ids_len set), 0 when b does not carry the mailbox's
// keywords (more than MSI_KEYWORDS distinct ones: read LMDB), or
// MS_ERR_LIMIT.
int msi_list_keywords(const struct msi_box *b, struct ms_keyword_entry *out, size_t out_cap,
                      size_t *out_len, uint32_t *ids, size_t ids_cap, size_t *ids_len,
                      uint32_t first_uid);
// msi_mailbox_keywords serves ms_mailbox_keywords from b: sets *out_len to
// the number of keyword ids used in the mailbox and writes up to out_cap
// of them, increasing. Returns 1 when served, 0 when b does not carry the
// mailbox's keywords.
int msi_mailbox_keywords(const struct msi_box *b, uint32_t *out, size_t out_cap, size_t *out_len);
// msi_changes serves the changed-entries half of ms_mailbox_changes.
size_t msi_changes(const struct msi_box *b, struct ms_entry *out, size_t out_cap, uint64_t since);

// msi_sort serves ms_mailbox_sort for whole-mailbox sorts by any keys:
// MS_SORT_ARRIVAL, MS_SORT_SIZE and MS_SORT_DATE from the array (DATE only
// when every message had a stored summary when the array was built: one
// made later by ms_store_summarize does not change the mailbox's stamp),
// the string keys from key columns kept with the array (made from the
// summaries on the first sort by that key, carried to the next array
// after a change; only when every message has a stored summary), in
// sort.c's order. Returns 1 when done, 0 when the call is not one it
// serves (or the mailbox is not cacheable), or an error.
int msi_sort(ms_store *s, uint32_t *out, size_t out_cap, size_t *out_len, size_t *out_total,
             uint32_t acct, uint32_t mbox, const uint32_t *keys, size_t key_count, size_t offset);

#endif // MS_INDEX_H
