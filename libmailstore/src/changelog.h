// changelog.h: the per-account change log as the write paths use it: a
// writer bound to one write transaction collects entries for any number of
// accounts and, at the end, stores each account's head record and prunes
// what the retention settings no longer keep.
#ifndef MS_CHANGELOG_H
#define MS_CHANGELOG_H

#include "store_internal.h"

#define cl_open mss_cl_open
#define cl_add mss_cl_add
#define cl_close mss_cl_close
#define cl_log1 mss_cl_log1
#define cl_expect mss_cl_expect
#define cl_vanished_floor mss_cl_vanished_floor
#define cl_verify mss_cl_verify

// Kinds and types of entries; the same values as MS_CHANGE_*.
enum { CL_MESSAGE = 1, CL_MAILBOX = 2 };
enum { CL_CREATED = 1, CL_UPDATED = 2, CL_DESTROYED = 3, CL_COUNTS = 4 };

#define CL_SLOTS 8
#define CL_SEEN 16

// cl_slot is one account's head record while a transaction changes it.
struct cl_slot {
  uint32_t acct;
  uint64_t next_seq; // sequence number of the next entry (the state + 1)
  uint64_t floor;    // entries up to this sequence number are pruned
  uint64_t vfloor;   // the highest MODSEQ of a pruned entry
  uint64_t count;    // entries kept
  uint64_t added;    // entries this transaction added
  int overflow;      // added more than the log keeps: rewrite as pruned
};

struct cl_writer {
  ms_store *s;
  MDB_txn *t;
  MDB_cursor *c;
  int64_t now;
  // Entries go in with MDB_APPEND (pages filled to the end rather than
  // split in half) while each key lies beyond the DBI's last: append is 0
  // undecided, 1 appending, 2 ordinary puts; last is the previous key.
  int append;
  uint8_t last[12];
  struct cl_slot slot[CL_SLOTS];
  size_t nslot;
  // Mailboxes whose counts this transaction already logged.
  struct {
    uint32_t acct, mbox;
  } seen[CL_SEEN];
  size_t nseen;
};

// cl_open binds w to the write transaction t. Returns 0 or an error.
int cl_open(ms_store *s, MDB_txn *t, struct cl_writer *w);

// cl_add logs that object `id` of `kind` in account acct was created,
// updated, destroyed or (mailboxes) had only its counts change, at MODSEQ
// modseq. A CL_COUNTS entry for a mailbox already logged in this
// transaction is skipped.
int cl_add(struct cl_writer *w, uint32_t acct, int kind, int type, uint64_t id, uint64_t modseq);

// cl_expect tells w that about n entries for account acct follow: more
// than the log keeps are not written at all (see cl_add), rather than
// written and pruned at the end.
int cl_expect(struct cl_writer *w, uint32_t acct, size_t n);

// cl_close stores the head records and prunes when ok is nonzero, then
// releases w's cursor (also when ok is 0, after a failure). Returns 0 or an
// error (ERR_MAP_FULL included).
int cl_close(struct cl_writer *w, int ok);

// cl_log1 logs one entry in a writer of its own: cl_open, cl_add, cl_close.
int cl_log1(ms_store *s, MDB_txn *t, uint32_t acct, int kind, int type, uint64_t id,
            uint64_t modseq);

// cl_vanished_floor sets *out to the highest MODSEQ whose VANISHED entries
// may have been pruned in account acct (0: none).
int cl_vanished_floor(ms_store *s, MDB_txn *t, uint32_t acct, uint64_t *out);

// cl_verify checks every head record and entry of the log in read
// transaction t; 0, MS_ERR_CORRUPT (diag names the problem) or -errno.
int cl_verify(ms_store *s, MDB_txn *t, struct ms_diag *diag);

#endif // MS_CHANGELOG_H
