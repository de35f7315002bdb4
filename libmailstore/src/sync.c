// sync.c: makes write commits durable outside LMDB's write lock.
//
// By default LMDB's commit syncs twice while it holds the write lock: an
// fdatasync of the new data pages, then the meta page written through a
// second, O_DSYNC descriptor. The store opens LMDB with MDB_NOMETASYNC
// instead: the commit still syncs the data pages before it writes the meta
// page (so no meta page ever names pages that are not on disk), but writes
// the meta page without waiting for it. sync_through then syncs the file
// (mdb_env_sync with force) after LMDB has let go of the write lock, before
// any caller of that commit is told it succeeded. The next writer, in this
// process or another, builds and writes its transaction meanwhile, and its
// own data sync also carries the previous meta page to disk.
//
// Why a meta page that is not yet on disk cannot cost more than that one
// commit (LMDB 0.9, mdb.c): commit N writes meta page N % 2 and leaves
// meta N-1 in the other slot, which was on disk before commit N wrote any
// page (commit N-1 was followed by sync_through, or commit N's own data
// fdatasync ran before meta N was written and after meta N-1 was). The
// pages commit N (and N+1) write are taken from the free list only from
// records of transactions older than the oldest snapshot in use: in
// mdb_page_alloc, a freeDB record keyed by txnid `last` is reused only
// while last < oldest, and mdb_find_oldest starts from txnid - 1 (lower if
// a reader holds an older snapshot). A page freed by transaction K belongs
// to snapshot K-1 and to no later one, so commit N overwrites only pages
// freed by transactions up to N-2: snapshot N-1 stays intact. After a
// system crash that loses meta N, LMDB opens at snapshot N-1, complete and
// consistent; only commit N is undone, and no caller of commit N was told
// it succeeded, since that waits for the sync. A process crash (kill -9)
// loses nothing: the meta page is in the page cache.
//
// A failed sync may have dropped dirty pages from the page cache after
// reporting the error once (Linux marks them clean), so a later sync that
// succeeds says nothing about them: the first error is kept, and every
// commit after it that no successful sync covered reports it. Its data is
// visible to readers of this process, but it is not reported durable;
// reopening the store starts over from what is on disk.
#include "store_internal.h"

#include <lmdb.h>

int sync_through(ms_store *s, uint64_t seq) {
  if (s->set.no_sync)
    return 0;
  pthread_mutex_lock(&s->synclock);
  if (s->synced_seq >= seq) {
    pthread_mutex_unlock(&s->synclock);
    return 0;
  }
  int rc = s->sync_err;
  // Every commit numbered up to `covers` had finished writing before this
  // sync starts, so the sync covers them all: callers of commits that
  // finished while it runs need not sync again.
  uint64_t covers = s->commit_seq;
  if (rc == 0)
    s->syncs++;
  pthread_mutex_unlock(&s->synclock);
  if (rc < 0)
    return rc;
  rc = lmdb_err(mdb_env_sync(s->env, 1));
  pthread_mutex_lock(&s->synclock);
  if (rc < 0) {
    if (s->sync_err == 0)
      s->sync_err = rc;
  } else if (s->sync_err < 0) {
    rc = s->sync_err; // another sync failed meanwhile: trust neither
  } else if (covers > s->synced_seq) {
    s->synced_seq = covers;
  }
  pthread_mutex_unlock(&s->synclock);
  return rc;
}
