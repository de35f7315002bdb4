// tail.c: keeps zero-filled, already written blocks ahead of the data
// file's last page, so that durable commits overwrite instead of append.
//
// Delivery makes the store grow at every commit: LMDB writes the new pages
// past the end of data.mdb, and the commit's fdatasync must then also
// commit the file system's journal (block allocation, new file size): more
// I/O requests and a longer flush on every commit. Blocks that were written
// before need none of that, which is why databases pre-write their log
// files. Fallocated blocks would not do: their first write converts them,
// which is a journal change again.
//
// Safety: the file past LMDB's last committed page holds nothing LMDB reads
// (readers stop at the last page of their snapshot; the free list lies below
// it), and the zeros are written at the start of a write transaction, under
// LMDB's writer lock, before the transaction allocates anything: no other
// writer (thread or process) can be writing there, and this transaction's
// own pages, written at its commit, land on the zeros afterwards. A failed
// write (full disk) only leaves fewer zeros; LMDB's own write will report
// the error as before.
//
// A full disk: the written tail is then the only room LMDB's copies of
// changed pages can take beyond the free pages, so writes that add mail
// stop (-ENOSPC, room_check in store.c) while TAIL_KEEP_ADD bytes of it
// remain, and writes that change mail while TAIL_KEEP_CHANGE do: the rest
// is for expunges and collection, as the map's reserve is when the map is
// full. Without it deliveries used the tail up, and LMDB then failed every
// write, flag changes and expunges included, with EIO (a short write).
// An extension writes at least TAIL_MIN / 2 when it succeeds, so as much
// is there unless the disk filled during the extension itself.
#include "store_internal.h"

#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

// TAIL_MIN and TAIL_MAX bound how far ahead of the last page the file is
// written: an eighth of the used size, so that small stores stay small and
// large ones extend rarely. TAIL_CHUNK is one write of zeros.
#define TAIL_MIN ((uint64_t)1 << 20)
#define TAIL_MAX ((uint64_t)64 << 20)
#define TAIL_CHUNK ((size_t)256 << 10)

static const uint8_t zeros[TAIL_CHUNK];

void tail_prepare(ms_store *s) {
  if (s->set.no_sync || !s->psize)
    return;
  MDB_envinfo info;
  if (mdb_env_info(s->env, &info) != 0)
    return;
  uint64_t used = ((uint64_t)info.me_last_pgno + 1) * s->psize;
  uint64_t ahead = used / 8;
  ahead = ahead < TAIL_MIN ? TAIL_MIN : ahead > TAIL_MAX ? TAIL_MAX : ahead;
  // Extend when less than half the distance is left: each extension then
  // writes at least half of it, in one go.
  if (s->tail_end >= used + ahead / 2)
    return;
  mdb_filehandle_t fd;
  struct stat st;
  if (mdb_env_get_fd(s->env, &fd) != 0 || fstat(fd, &st) != 0)
    return;
  uint64_t end = (uint64_t)st.st_size;
  if (end >= used + ahead / 2) {
    s->tail_end = end; // another process extended it
    return;
  }
  // Pages past the map cannot be used before the map grows: stop there.
  uint64_t target = (used + ahead + TAIL_MIN - 1) / TAIL_MIN * TAIL_MIN;
  if (target > (uint64_t)info.me_mapsize)
    target = (uint64_t)info.me_mapsize;
  uint64_t at = end > used ? end : used;
  while (at < target) {
    size_t n = target - at < TAIL_CHUNK ? (size_t)(target - at) : TAIL_CHUNK;
    ssize_t w = pwrite(fd, zeros, n, (off_t)at);
    if (w <= 0)
      break;
    at += (uint64_t)w;
  }
  s->tail_end = at;
  atomic_store_explicit(&s->tail_full_end, at < target ? at : 0, memory_order_relaxed);
}
