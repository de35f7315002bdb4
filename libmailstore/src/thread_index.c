// thread_index.c: the thread index (FORMAT.md "Threads") as delivery uses
// it: a message's index keys are hashed in the delivering thread, before
// the write transaction (thread_keys_make); inside it, thread_assign picks
// the message's thread and queues its new entries in a thread_batch, which
// thread_batch_flush writes once per transaction in key order.
//
// Why a batch: a group commit enters a few hundred messages' ids and
// subjects at once, at random places in the index. Written in key order
// through one cursor, neighbouring entries share their descent and leaf
// instead of each searching from the root, and the transaction's
// random-key pages are touched together, after its appends, which leaves
// LMDB fewer separate page runs to write. The batch keeps the rule that
// the first message to name a key owns it: a key already in the index
// keeps its entry (MDB_NOOVERWRITE), and the batch queues a key only once,
// for the earliest message naming it; lookups of later messages in the
// same transaction see queued entries through the batch's hash table, as
// they would see entries already put.
#include "meta.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

// Index keys: account u32 BE, a kind byte, the first 16 bytes of a SHA-256
// (of the Message-ID, or of the base subject with a-z folded to A-Z).
enum { KIND_ID = 'I', KIND_SUBJECT = 'S' };

// THREAD_IDS_MAX is the most ids of one message that count: its own, its
// In-Reply-To and the nearest References.
#define THREAD_IDS_MAX 64

static void hash_id(uint8_t out[16], const char *p, size_t len) {
  uint8_t h[32];
  SHA256((const uint8_t *)p, len, h);
  memcpy(out, h, 16);
}

static void hash_subject(uint8_t out[16], const char *p, size_t len) {
  uint8_t h[32];
  SHA256_CTX c;
  SHA256_Init(&c);
  char buf[256];
  for (size_t i = 0; i < len;) {
    size_t n = 0;
    for (; n < sizeof buf && i < len; n++, i++)
      buf[n] = p[i] >= 'a' && p[i] <= 'z' ? (char)(p[i] - 32) : p[i];
    SHA256_Update(&c, buf, n);
  }
  SHA256_Final(h, &c);
  memcpy(out, h, 16);
}

static void tkey(uint8_t k[THREAD_KEY_LEN], uint32_t acct, int kind, const uint8_t h[16]) {
  msr_be32(k, acct);
  k[4] = (uint8_t)kind;
  memcpy(k + 5, h, 16);
}

int thread_keys_make(struct thread_keys *out, const struct ms_summary *sum) {
  memset(out, 0, sizeof *out);
  const char *p[THREAD_IDS_MAX];
  size_t len[THREAD_IDS_MAX], n = 0;
  // Nearest first: its own Message-ID, In-Reply-To, then References from
  // the last (the parent) to the first; empty ids do not count.
  if (sum->message_id.len) {
    p[n] = sum->message_id.p;
    len[n++] = sum->message_id.len;
  }
  if (sum->in_reply_to.len) {
    p[n] = sum->in_reply_to.p;
    len[n++] = sum->in_reply_to.len;
  }
  const char *r = sum->references.p;
  size_t end = sum->references.len;
  while (end > 0 && n < THREAD_IDS_MAX) {
    size_t b = end;
    while (b > 0 && r[b - 1] != ' ')
      b--;
    if (end > b) {
      p[n] = r + b;
      len[n++] = end - b;
    }
    end = b ? b - 1 : 0;
  }
  out->has_subject = sum->subject.len > 0;
  // The subject joins only what claims to be a reply: two messages that
  // merely share a subject ("Hello") stay apart.
  out->reply = (sum->flags & MS_SUMMARY_REPLY) || sum->in_reply_to.len || sum->references.len;
  size_t total = n + (out->has_subject ? 1 : 0);
  if (total == 0)
    return 0;
  if (!(out->h = malloc(total * sizeof *out->h)))
    return -ENOMEM;
  for (size_t i = 0; i < n; i++)
    hash_id(out->h[i], p[i], len[i]);
  if (out->has_subject)
    hash_subject(out->h[n], sum->subject.p, sum->subject.len);
  out->n_ids = n;
  return 0;
}

void thread_keys_free(struct thread_keys *k) {
  free(k->h);
  k->h = NULL;
}

// ---- the batch: entries queued in this transaction ----

// A queued entry: its key, its thread, and its place in the queue (the
// sort's tie-break, which keeps the earliest first).
struct tentry {
  uint8_t k[THREAD_KEY_LEN];
  uint64_t thread;
  uint32_t seq;
};

void thread_batch_reset(struct thread_batch *b) {
  b->n = 0;
  if (b->slot)
    memset(b->slot, 0xff, b->nslot * sizeof *b->slot);
}

void thread_batch_free(struct thread_batch *b) {
  free(b->e);
  free(b->slot);
  memset(b, 0, sizeof *b);
}

static size_t slot_of(const struct thread_batch *b, const uint8_t k[THREAD_KEY_LEN]) {
  // The key ends in 16 bytes of SHA-256: any 8 of them spread well.
  uint64_t h;
  memcpy(&h, k + 5, sizeof h);
  h ^= (uint64_t)k[4] << 56 ^ (uint64_t)k[3] << 48;
  return (size_t)h & (b->nslot - 1);
}

// batch_find returns the queued entry with key k, or NULL.
static const struct tentry *batch_find(const struct thread_batch *b,
                                       const uint8_t k[THREAD_KEY_LEN]) {
  if (!b->nslot)
    return NULL;
  for (size_t i = slot_of(b, k);; i = (i + 1) & (b->nslot - 1)) {
    uint32_t at = b->slot[i];
    if (at == UINT32_MAX)
      return NULL;
    if (memcmp(b->e[at].k, k, THREAD_KEY_LEN) == 0)
      return &b->e[at];
  }
}

// batch_grow makes room for one more entry, rehashing into a table at
// least twice the entries' size so that probes stay short.
static int batch_grow(struct thread_batch *b) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    if (cap > UINT32_MAX / 2)
      return -ENOMEM;
    struct tentry *e = realloc(b->e, cap * sizeof *e);
    if (!e)
      return -ENOMEM;
    b->e = e;
    b->cap = cap;
  }
  if ((b->n + 1) * 2 <= b->nslot)
    return 0;
  size_t nslot = b->nslot ? b->nslot * 2 : 512;
  uint32_t *slot = malloc(nslot * sizeof *slot);
  if (!slot)
    return -ENOMEM;
  memset(slot, 0xff, nslot * sizeof *slot);
  free(b->slot);
  b->slot = slot;
  b->nslot = nslot;
  for (size_t j = 0; j < b->n; j++) {
    size_t i = slot_of(b, b->e[j].k);
    while (b->slot[i] != UINT32_MAX)
      i = (i + 1) & (b->nslot - 1);
    b->slot[i] = (uint32_t)j;
  }
  return 0;
}

// batch_queue queues entry k -> thread unless the batch holds k already
// (the earlier entry wins, as a put that does not overwrite would).
static int batch_queue(struct thread_batch *b, const uint8_t k[THREAD_KEY_LEN], uint64_t thread) {
  if (batch_find(b, k))
    return 0;
  int rc = batch_grow(b);
  if (rc < 0)
    return rc;
  struct tentry *e = &b->e[b->n];
  memcpy(e->k, k, THREAD_KEY_LEN);
  e->thread = thread;
  e->seq = (uint32_t)b->n;
  size_t i = slot_of(b, k);
  while (b->slot[i] != UINT32_MAX)
    i = (i + 1) & (b->nslot - 1);
  b->slot[i] = (uint32_t)b->n++;
  return 0;
}

// lookup finds key k's thread in the index or, failing that, among the
// entries queued in this transaction. Returns 1 (found, *thread set), 0 or
// an error.
static int lookup(ms_store *s, MDB_txn *t, const struct thread_batch *b,
                  const uint8_t k[THREAD_KEY_LEN], uint64_t *thread) {
  MDB_val v;
  int rc = get(t, s->threads, k, THREAD_KEY_LEN, &v);
  if (rc == 0) {
    if (v.mv_size != 8)
      return MS_ERR_CORRUPT;
    *thread = msr_get_le64(v.mv_data);
    return 1;
  }
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  const struct tentry *e = batch_find(b, k);
  if (!e)
    return 0;
  *thread = e->thread;
  return 1;
}

int thread_assign(ms_store *s, MDB_txn *t, struct thread_batch *b, uint32_t acct, uint64_t id,
                  const struct thread_keys *keys, uint64_t *thread) {
  uint64_t found = 0;
  uint8_t k[THREAD_KEY_LEN];
  int rc = 0;
  for (size_t i = 0; i < keys->n_ids && !found; i++) {
    tkey(k, acct, KIND_ID, keys->h[i]);
    if ((rc = lookup(s, t, b, k, &found)) < 0)
      return rc;
  }
  if (!found && keys->reply && keys->has_subject) {
    tkey(k, acct, KIND_SUBJECT, keys->h[keys->n_ids]);
    if ((rc = lookup(s, t, b, k, &found)) < 0)
      return rc;
  }
  *thread = found ? found : id;
  // Entries are never overwritten: an id keeps the thread it was first
  // seen in, so that thread ids stay immutable (FORMAT.md).
  for (size_t i = 0; i < keys->n_ids; i++) {
    tkey(k, acct, KIND_ID, keys->h[i]);
    if ((rc = batch_queue(b, k, *thread)) < 0)
      return rc;
  }
  if (keys->has_subject) {
    tkey(k, acct, KIND_SUBJECT, keys->h[keys->n_ids]);
    if ((rc = batch_queue(b, k, *thread)) < 0)
      return rc;
  }
  return 0;
}

static int tentry_cmp(const void *x, const void *y) {
  const struct tentry *a = x, *b = y;
  int c = memcmp(a->k, b->k, THREAD_KEY_LEN);
  return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

int thread_batch_flush(ms_store *s, MDB_txn *t, struct thread_batch *b) {
  if (b->n == 0)
    return 0;
  // The batch holds each key once (batch_queue), so the order is by key
  // alone; seq only makes the comparison total.
  qsort(b->e, b->n, sizeof *b->e, tentry_cmp);
  MDB_cursor *c;
  int rc = lmdb_err(mdb_cursor_open(t, s->threads, &c));
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < b->n && rc == 0; i++) {
    uint8_t v[8];
    msr_le64(v, b->e[i].thread);
    MDB_val key = val(b->e[i].k, THREAD_KEY_LEN), data = val(v, sizeof v);
    int r = mdb_cursor_put(c, &key, &data, MDB_NOOVERWRITE);
    rc = r == MDB_KEYEXIST ? 0 : lmdb_err(r);
  }
  mdb_cursor_close(c);
  // The entries are in the index now; the hash table no longer matches
  // the sorted array.
  thread_batch_reset(b);
  return rc;
}
