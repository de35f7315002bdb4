// meta.h: what store.c calls in summary.c and thread.c, and what those
// files share: the summary record (FORMAT.md "Message summaries"), built
// before the delivery transaction and written, with the thread index,
// inside it.
#ifndef MS_META_H
#define MS_META_H

#include "store_internal.h"

#include <stdint.h>
#include <string.h>

#define summary_build mss_summary_build
#define summary_build_parsed mss_summary_build_parsed
#define summary_decode mss_summary_decode
#define summary_load mss_summary_load
#define summary_seek mss_summary_seek
#define summarize_message mss_summarize_message
#define meta_deliver mss_meta_deliver
#define meta_destroy_at mss_meta_destroy_at
#define thread_assign mss_thread_assign
#define thread_keys_make mss_thread_keys_make
#define thread_keys_free mss_thread_keys_free
#define thread_batch_reset mss_thread_batch_reset
#define thread_batch_free mss_thread_batch_free
#define thread_batch_flush mss_thread_batch_flush
#define mitems_load mss_mitems_load
#define mitems_free mss_mitems_free
#define text_casecmp mss_text_casecmp
#define thread_run mss_thread_run
#define meta_verify mss_meta_verify

// SUMMARY_VERSION is the summary record's version byte; SUMMARY_FIELDS the
// number of its strings.
#define SUMMARY_VERSION 1u
#define SUMMARY_FIELDS 12u
#define SUMMARY_HEAD (28u + 4u * SUMMARY_FIELDS)

// summary_build parses the message `data` (len bytes) and sets *out to a
// new malloc'd summary record of *out_len bytes. Returns 0 or -ENOMEM;
// malformed mail never fails it (a field it cannot make is left empty).
int summary_build(uint8_t **out, size_t *out_len, const uint8_t *data, size_t len,
                  int64_t internal_date);

// summary_build_parsed is summary_build for a message of len bytes already
// parsed as m (which it does not free).
struct mp_message;
int summary_build_parsed(uint8_t **out, size_t *out_len, const struct mp_message *m, size_t len,
                         int64_t internal_date);

// summarize_message reads message (acct, id) in a snapshot of its own and
// builds its summary record (*rec malloc'd, *rec_len bytes), for messages
// stored without one. Returns 0, MS_ERR_NOTFOUND or an error.
int summarize_message(ms_store *s, uint8_t **rec, size_t *rec_len, uint32_t acct, uint64_t id);

// summary_decode checks the record at p (n bytes) and fills *out with
// pointers into it. Returns 0 or MS_ERR_CORRUPT.
int summary_decode(struct ms_summary *out, const uint8_t *p, size_t n);

// summary_load finds the stored summary record of (acct, id) in t.
// Returns 1 (record in *v, valid until t ends), 0 (none) or an error.
int summary_load(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t id, MDB_val *v);

// summary_seek is summary_load through cursor c (on the summaries DBI),
// stepping instead of searching when called in key order. Returns 1
// (record in *v), 0 (none) or an error.
int summary_seek(MDB_cursor *c, uint32_t acct, uint64_t id, MDB_val *v);

// THREAD_KEY_LEN is the length of a thread index key (FORMAT.md "Threads").
#define THREAD_KEY_LEN 21

// thread_keys is what the thread index needs of a new message, made from
// its summary before the write transaction (thread_keys_make): h holds the
// first 16 bytes of the SHA-256 of each id it names, nearest first (n_ids
// of them), then, if has_subject, of its base subject; reply says whether
// the subject may join it to a thread.
struct thread_keys {
  uint8_t (*h)[16];
  size_t n_ids;
  int has_subject;
  int reply;
};

// thread_keys_make fills *out from summary sum (out->h malloc'd; NULL when
// there is nothing to hash). Returns 0 or -ENOMEM. Needs no transaction.
int thread_keys_make(struct thread_keys *out, const struct ms_summary *sum);

// thread_keys_free frees k's hashes; a no-op on keys never made.
void thread_keys_free(struct thread_keys *k);

// thread_batch queues the thread index entries of one write transaction
// (thread_index.c): e holds them in queue order, slot is an open-addressed
// hash table of indexes into e (UINT32_MAX for empty). Zero-initialised
// it is empty; thread_batch_free frees it.
struct tentry;
struct thread_batch {
  struct tentry *e;
  size_t n, cap;
  uint32_t *slot;
  size_t nslot;
};

// thread_batch_reset empties b, keeping its memory, for a transaction
// (or a retry of one) that starts over.
void thread_batch_reset(struct thread_batch *b);

// thread_batch_free frees b's memory and leaves it empty.
void thread_batch_free(struct thread_batch *b);

// thread_batch_flush writes b's entries to the thread index in key order,
// leaving entries already there as they are, and empties b. Returns 0 or
// an error. Call it once per transaction after the last thread_assign.
int thread_batch_flush(ms_store *s, MDB_txn *t, struct thread_batch *b);

// meta_deliver stores the summary record sum (sum_len bytes; NULL when the
// message could not be summarised) of the new message (acct, id) and sets
// *thread to the thread it joins (thread_assign with keys, the summary's
// thread_keys), queueing its index entries in b, in the delivery
// transaction.
int meta_deliver(ms_store *s, MDB_txn *t, struct thread_batch *b, uint32_t acct, uint64_t id,
                 const uint8_t *sum, size_t sum_len, const struct thread_keys *keys,
                 uint64_t *thread);

// meta_destroy_at deletes the summary of a destroyed message, in the
// transaction destroying it, through cursor c (on the summaries DBI): a
// batch destroying messages in id order keeps c on the leaf it works in, so
// each delete skips the descent from the root. Returns 0 (also when there
// was no summary) or < 0.
int meta_destroy_at(MDB_cursor *c, uint32_t acct, uint64_t id);

// thread_assign picks the thread of new message id from its index keys
// (looking in the index, then among the entries b queued earlier in this
// transaction) and queues the message's entries in b (thread_index.c).
int thread_assign(ms_store *s, MDB_txn *t, struct thread_batch *b, uint32_t acct, uint64_t id,
                  const struct thread_keys *keys, uint64_t *thread);

// Fields a mitem can carry (bits of mitems_load's `want`), in the order
// of mitem.f.
enum {
  MF_FROM,
  MF_TO,
  MF_CC,
  MF_DISPLAY_FROM,
  MF_DISPLAY_TO,
  MF_SUBJECT,
  MF_MESSAGE_ID,
  MF_IN_REPLY_TO,
  MF_REFERENCES,
  MF_COUNT
};

// mitem is one message of a mailbox as sort.c and thread.c need it: the
// numbers, and the wanted strings as (offset, length) in the arena.
struct mitem {
  uint32_t uid;
  uint32_t flags; // MS_SUMMARY_*
  int64_t date, internal_date;
  uint64_t size;
  uint32_t off[MF_COUNT], len[MF_COUNT];
};

// mitems is a mailbox's messages in UID (sequence) order.
struct mitems {
  struct mitem *v;
  size_t n;
  char *arena;
  size_t arena_len, arena_cap;
};

// mitems_load reads every message of (acct, mbox), or with uids not NULL
// those of the uid_count UIDs there that exist, from one snapshot, in UID
// order, copying the fields in `want` (1u << MF_*); messages without a
// stored summary are summarised afterwards from their bytes. The arena is
// bounded by UINT32_MAX bytes (MS_ERR_LIMIT beyond, as uid_count >
// max_batch). Returns 0 or an error (MS_ERR_NOTFOUND for a missing
// mailbox); free with mitems_free.
int mitems_load(ms_store *s, struct mitems *out, uint32_t acct, uint32_t mbox, unsigned want,
                const uint32_t *uids, size_t uid_count);
void mitems_free(struct mitems *m);

// text_casecmp compares with the i;ascii-casemap collation (RFC 4790
// section 9.2): bytes, with a-z read as A-Z; a prefix sorts first.
int text_casecmp(const char *a, size_t an, const char *b, size_t bn);

// meta_verify checks, in the read transaction t, that every summary
// record decodes and matches its message's size and internal date (one
// without a message is an orphan, allowed), and that thread index entries
// are well formed. Returns 0 or MS_ERR_CORRUPT with diag (may be NULL)
// naming the problem, or -errno.
int meta_verify(ms_store *s, MDB_txn *t, struct ms_diag *diag);

// thread_run threads the items of m with `algorithm` (MS_THREAD_*) and
// prints the result as ms_mailbox_thread does (same outputs and errors,
// out_threads not NULL).
int thread_run(const struct mitems *m, int algorithm, char *out, size_t out_cap, size_t *out_len,
               size_t *out_threads);

// meta_sort_indices sorts the n indices at v stably by `cmp` (negative,
// zero or positive, as strcmp), with tmp room for n more: insertion-sorted
// runs of 16, then bottom-up merges. Stability keeps UID order among equal
// keys, which RFC 5256 asks for. It is static inline so that each caller's
// comparator, a constant here, is inlined into the loops.
static inline void meta_sort_indices(uint32_t *v, uint32_t *tmp, size_t n,
                                     int (*cmp)(const void *ctx, uint32_t a, uint32_t b),
                                     const void *ctx) {
  const size_t run = 16;
  for (size_t lo = 0; lo < n; lo += run) {
    size_t hi = lo + run < n ? lo + run : n;
    for (size_t i = lo + 1; i < hi; i++) {
      uint32_t x = v[i];
      size_t j = i;
      while (j > lo && cmp(ctx, v[j - 1], x) > 0) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
  }
  uint32_t *src = v, *dst = tmp;
  for (size_t w = run; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        dst[o++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid)
        dst[o++] = src[i++];
      while (j < hi)
        dst[o++] = src[j++];
    }
    uint32_t *x = src;
    src = dst;
    dst = x;
  }
  if (src != v)
    memcpy(v, src, n * sizeof *v);
}

#endif // MS_META_H
