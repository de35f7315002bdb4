// keywords.h: the keyword functions the rest of the library calls (the
// verification in verify.c).
#ifndef MS_KEYWORDS_H
#define MS_KEYWORDS_H

#include "store_internal.h"

#define kw_verify mss_kw_verify

// kw_verify checks, in the read transaction t, every account's keyword
// table (ids from 0 without gaps, valid names, no name twice, at most
// MSR_KEYWORDS_MAX) and that every uid record names only defined ids.
// Returns 0 or MS_ERR_CORRUPT with diag (may be NULL) naming the problem,
// or -errno.
int kw_verify(ms_store *s, MDB_txn *t, struct ms_diag *diag);

#endif // MS_KEYWORDS_H
