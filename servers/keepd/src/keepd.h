// keepd.h: private declarations shared by keepd's files: the settings, the
// CPU budget, the per-shard store (hash table, arena, expiry), the
// single-producer single-consumer rings between shards, and the shard loop.
// Nothing here is installed; the wire format comes from libkeep's
// keep_internal.h.
#ifndef KEEPD_H
#define KEEPD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keep_internal.h"

// Defaults, each overridable in the configuration or on the command line.
#define KEEPD_DEFAULT_PORT 7379
#define KEEPD_DEFAULT_LISTEN "127.0.0.1"
#define KEEPD_DEFAULT_MEMORY_CAP (256u * 1024u * 1024u)
#define KEEPD_DEFAULT_MAX_LEASE_MS 60000u
#define KEEPD_DEFAULT_MAX_CONNECTIONS 10000u
// KEEPD_MAX_SHARDS bounds the shard count (rings grow as its square).
#define KEEPD_MAX_SHARDS 64
// KEEPD_READ_CHUNK is the most read from one connection per loop iteration.
#define KEEPD_READ_CHUNK (64u * 1024u)
// KEEPD_MAX_PIPELINE bounds the frames executed per connection per loop
// iteration; the rest wait for the next one, so one client cannot starve
// the others.
#define KEEPD_MAX_PIPELINE 1024u
// KEEPD_MAX_OUTPUT stops reading a connection whose unsent answers exceed it.
#define KEEPD_MAX_OUTPUT (8u * 1024u * 1024u)
// KEEPD_MAX_FORWARD: requests for a shard whose queued batches exceed this
// many bytes are answered BUSY.
#define KEEPD_MAX_FORWARD (64u * 1024u * 1024u)
// KEEPD_RING_SIZE is the capacity, in batches, of each ring between shards.
#define KEEPD_RING_SIZE 8192u
// KEEPD_HEARTBEAT_NS: an idle subscription gets a heartbeat after this long;
// with the loop's 10 ms tick it arrives within 40 ms, leaving the rest of the
// promised 100 ms for scheduling delays on a loaded machine.
#define KEEPD_HEARTBEAT_NS (30u * 1000000u)
#define KEEPD_TICK_MS 10
// KEEPD_SWEEP_TICKS: the expiry sweep covers a shard's table once in this
// many ticks (shard.c).
#define KEEPD_SWEEP_TICKS 256u
// KEEPD_HOLD_BYTES: a connection's replies are held back while answers from
// other shards are due, up to this many bytes (shard.c).
#define KEEPD_HOLD_BYTES (64u * 1024u)

enum { KEEPD_PIN_AUTO = 0, KEEPD_PIN_YES = 1, KEEPD_PIN_NO = 2 };

typedef struct keepd_settings {
  char listen[64];
  uint16_t port;
  unsigned shards; // 0: the CPU budget
  uint64_t memory_cap;
  uint64_t max_value; // 0: KEEP_MAX_VALUE_HARD
  uint64_t max_lease_ms;
  uint64_t lock_quarantine_ms;
  unsigned max_connections;
  int pin; // KEEPD_PIN_*
  uint8_t secret[KEEP_SECRET_LEN];
  const char *port_file;
  // TLS (tls.c): the cluster key and the allowed client keys (PEM files);
  // plaintext only when asked for, and only on loopback (main.c).
  const char *tls_key_file;
  const char *tls_clients_file;
  uint32_t handshake_timeout_ms; // 0: KEEPD_DEFAULT_HANDSHAKE_MS
  // busy_poll_us: after a turn that handled events, a shard polls epoll
  // without sleeping for this long before it blocks (0: blocks at once; see
  // shard_main).
  uint32_t busy_poll_us;
  bool plaintext;
  // cluster is the member list and this member's place in it; NULL for a
  // single node (keepd_cluster.h).
  const struct keepd_cluster_config *cluster;
} keepd_settings;

// CPU budget (cpu.c).

typedef struct keepd_cpu_budget {
  unsigned cpus;                  // CPUs the process may run on (affinity ∩ cpuset)
  unsigned quota_cpus;            // ceil(quota / period), 0 when there is no quota
  unsigned budget;                // shards to run: min of the two
  bool exclusive;                 // CPUs held exclusively by our cgroup, no quota below them
  int cpu_list[KEEPD_MAX_SHARDS]; // the first `budget` usable CPUs
  const char *source;             // "cgroup v2", "cgroup v1" or "affinity"
} keepd_cpu_budget;

// keepd_cpu_budget_read fills `out` from sched_getaffinity and the process's
// cgroup (v2 cpu.max and cpuset.cpus.effective, else v1 cfs quota and
// cpuset.effective_cpus). Never fails: missing files mean no limit.
void keepd_cpu_budget_read(keepd_cpu_budget *out);

// keepd_parse_cpu_list parses a cpuset list ("0-3,8,10-11") into `set`
// (bit i for CPU i, up to 1024 CPUs); returns the count or -1 if malformed.
int keepd_parse_cpu_list(const char *s, uint64_t set[16]);

// keepd_parse_cpu_max parses cgroup v2 cpu.max ("max 100000" or "150000
// 100000") into whole CPUs rounded up; 0 for "max"; -1 if malformed.
int keepd_parse_cpu_max(const char *s);

// Arena and table (store.c).

enum keepd_kind { KIND_VALUE = 1, KIND_COUNTER = 2, KIND_LOCK = 3 };

// keepd_entry is how the shard sees one key. A small key (at most
// KEEPD_INLINE_KEY bytes, no lock holder, a value of 8 bytes or less, a
// deadline within 24 days) is stored packed in a 24-byte table slot, and
// keepd_store_find/keepd_store_new_entry hand out a view of it: a working
// copy inside the store whose changes (expires_ns, v) the store writes back
// at the next call into it. Any other key is an out-of-line record from the
// arena, laid out as below, with the key and then the lock holder after the
// fixed part, and the view is the record itself. Either way, a pointer from
// keepd_store_find may be changed until the next store call (passing it to
// keepd_store_put or keepd_store_remove ends it), and one from
// keepd_store_new_entry until keepd_store_put, after which it may still be
// read until the next keepd_store_find or keepd_store_new_entry.
// `hash` is the store's own hash of the key (see keepd_store).
typedef struct keepd_entry {
  uint64_t hash;
  uint64_t expires_ns; // 0: never
  uint32_t value_len;
  uint8_t kind;
  uint8_t key_len;
  uint8_t holder_len;
  uint8_t pad_;
  union {
    uint8_t inline_val[8];
    uint8_t *ext;
    int64_t counter;
  } v;
  uint8_t key[];
} keepd_entry;

// KEEPD_INLINE_KEY is the longest key stored inside a table slot.
#define KEEPD_INLINE_KEY 10

// keepd_slot is one key in the table, 24 bytes with no padding: the value,
// counter or record pointer; the deadline in milliseconds modulo 2^32
// (compared by serial-number arithmetic against the clock; for a record, a
// lower bound of the record's deadline that lets the sweep skip it unread);
// meta (kind in bits 0-1, out-of-line record in bit 2, deadline set in bit
// 3, value length in bits 4-7); the key length and the key (for a record,
// the first 8 key bytes hold the store's hash of the record's key).
typedef struct keepd_slot {
  uint8_t v[8];
  uint8_t deadline[4];
  uint8_t meta;
  uint8_t key_len;
  uint8_t key[KEEPD_INLINE_KEY];
} keepd_slot;

// keepd_bucket holds 7 slots opened by 7 tag bytes (0 = empty, compared all
// at once with SWAR arithmetic) and a count of the keys that probed past
// this bucket to a later one (saturating at 255), so that a search stops at
// the first bucket nobody probed past and deletions shorten chains again.
typedef struct keepd_bucket {
  uint8_t tags[7];
  uint8_t overflow;
  keepd_slot s[7];
} keepd_bucket;

typedef struct keepd_table {
  keepd_bucket *b;
  size_t n; // buckets, any number (placement by multiply-shift, not a mask)
} keepd_table;

#define KEEPD_NUM_CLASSES 29 // 16 to 256 bytes by 16, then 512 bytes to 2 MiB

// keepd_hash_fn replaces the store's hash (SipHash-2-4 under a random key
// drawn at keepd_store_init); for tests and fuzzing, which force collisions.
typedef uint64_t (*keepd_hash_fn)(void *arg, const uint8_t *key, size_t key_len);

// keepd_store is one shard's keys. The table grows by a quarter at a time
// once 90% of its slots are full, and incrementally: the new table takes
// every insert while each later call moves a few buckets of the old one
// across, so a growing shard never stops to rehash. Lookups during that time
// search both. Keys are placed by the store's own hash of the key (the `h`
// arguments below are no longer used: moving a key needs its hash again and
// the table keeps none for an inline key).
typedef struct keepd_store {
  keepd_table cur, old; // old.b != NULL while a resize is under way
  size_t migrate_pos;   // next bucket of `old` to move
  size_t count;         // keys in both tables (expired ones included until removed)
  size_t sweep_pos;
  uint64_t now_ms; // the latest clock reading seen, in milliseconds
  uint8_t seed[16];
  keepd_hash_fn hash;
  void *hash_arg;
  // The views handed out (see keepd_entry) and where the found one lives.
  _Alignas(keepd_entry) uint8_t found_buf[sizeof(keepd_entry) + KEEPD_INLINE_KEY + 6];
  _Alignas(keepd_entry) uint8_t fresh_buf[sizeof(keepd_entry) + KEEPD_INLINE_KEY + 6];
  keepd_entry *found; // NULL, a view in found_buf, or an out-of-line record
  keepd_bucket *found_b;
  int found_i;
  void *free_list[KEEPD_NUM_CLASSES];
  uint8_t *chunk; // bump allocation in the current chunk
  size_t chunk_left;
  void **chunks;
  size_t num_chunks, chunks_cap;
  uint64_t used, cap;   // bytes in live allocations (arena and tables) and the cap
  uint64_t table_bytes; // the tables' share of `used`
  bool huge_pages;
  uint32_t layout_gen; // changes whenever a key is placed (keepd_store_next)
} keepd_store;

// keepd_store_init prepares an empty store whose tables and records may use
// at most `cap` bytes; -ENOMEM if the first table cannot be allocated.
int keepd_store_init(keepd_store *st, uint64_t cap);
void keepd_store_cleanup(keepd_store *st);
// keepd_store_find returns the live entry for `key` (a view, see
// keepd_entry), removing it first if it has expired at `now`. Deadlines are
// kept to the millisecond, rounded up: a key lives at most 1 ms longer than
// asked, never shorter. `h` is unused.
keepd_entry *keepd_store_find(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                              uint64_t now);
// keepd_store_new_entry makes an entry (not yet in the table) with room for
// a value of `value_len` bytes (external when over 8) and a holder; NULL
// when the memory cap would be exceeded. Small entries are a view that
// costs nothing until keepd_store_put. `h` is unused.
keepd_entry *keepd_store_new_entry(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                                   size_t value_len, size_t holder_len);
// keepd_store_put inserts `e` (from keepd_store_new_entry), replacing (and
// freeing) `old` if not NULL (`old` from the latest keepd_store_find);
// -ENOMEM when the table is full and cannot grow, or when a far deadline
// needs an out-of-line record the cap refuses. On failure `e` is still the
// caller's to free.
int keepd_store_put(keepd_store *st, keepd_entry *e, keepd_entry *old);
// keepd_store_remove deletes `e`, the entry the latest keepd_store_find
// returned.
void keepd_store_remove(keepd_store *st, keepd_entry *e);
// keepd_store_free_entry frees an entry that is not in the table.
void keepd_store_free_entry(keepd_store *st, keepd_entry *e);
// keepd_store_sweep checks up to `num_buckets` buckets for expired entries,
// continuing where the last call stopped, and moves a few buckets of a
// resize under way; returns how many it removed.
size_t keepd_store_sweep(keepd_store *st, size_t num_buckets, uint64_t now);

// keepd_store_next visits the live entries in table order, for the key
// handoff: `*cursor` is 0 to start (which first finishes a resize under way)
// and is advanced past each entry returned. Returns 1 with `*out` a view
// valid until the next store call (read only), 0 when every entry has been
// visited, or -ESTALE when a key was placed since the cursor was made (an
// insert or a resize may move keys across the cursor, so the walk would
// miss or repeat some): the walk is exact only while nothing is inserted,
// which the handoff ensures by answering BUSY first. Expired entries are
// skipped, not removed. Shard thread only.
int keepd_store_next(keepd_store *st, uint64_t *cursor, uint64_t now, keepd_entry **out);

static inline uint8_t *keepd_entry_value(keepd_entry *e) {
  return e->value_len <= 8 ? e->v.inline_val : e->v.ext;
}

static inline uint8_t *keepd_entry_holder(keepd_entry *e) {
  return e->key + e->key_len;
}

// Handoff entries (handoff_entry.c): one key as the key handoff carries it
// (docs/keep-protocol.md, "Key handoff"), apart from the connections and
// threads of handoff.c so that the fuzz harness can check both directions.

// KEEPD_HANDOFF_MAX_LEASE_MS bounds the remaining time an ENTRY frame can
// give a key (about 292 years): a larger one is stored as this, so that the
// deadline `now + ms` cannot overflow.
#define KEEPD_HANDOFF_MAX_LEASE_MS (UINT64_MAX / 2000000u)

// keepd_handoff_entry_frame fills `f` with the ENTRY frame (id `id`) that
// carries entry `e` as of `now`: the key, the remaining time in milliseconds
// rounded up (0: no deadline; 1 for one already past), the kind, and the
// value, the counter (little-endian, written to `le`) or the lock holder.
// `f` points into `e` and `le`: valid while both are.
void keepd_handoff_entry_frame(keep_frame *f, keepd_entry *e, uint64_t id, uint64_t now,
                               uint8_t le[8]);

// keepd_handoff_store_entry stores the key that ENTRY frame `f` carries,
// replacing any entry of that key: a value (no text), a counter (an 8-byte
// value, no text) or a lock (no value, a holder of 1 to KEEP_MAX_HOLDER bytes
// as its text), kind in `num2`, remaining time in `num`. Returns 0,
// -EBADMSG when the fields do not fit the kind (nothing is stored), or
// -ENOMEM when the store's cap refuses the key.
int keepd_handoff_store_entry(keepd_store *st, const keep_frame *f, uint64_t now);

// keepd_handoff_store_frames stores the keys of `frames`, `len` bytes of
// whole ENTRY frames one after the other, as a shard does with the part of a
// pulled page that falls to it. It stops at the first failure: -EBADMSG for
// bytes that are not a whole ENTRY frame or a frame that does not fit its
// kind, -ENOMEM as above; the keys stored before it stay. Returns 0 when
// every frame was stored.
int keepd_handoff_store_frames(keepd_store *st, const uint8_t *frames, size_t len, uint64_t now);

// Rings (ring.c): single producer, single consumer, C11 acquire/release.

typedef struct keepd_ring {
  _Alignas(64) _Atomic size_t head; // next slot the consumer reads
  _Alignas(64) _Atomic size_t tail; // next slot the producer writes
  _Alignas(64) void *slots[KEEPD_RING_SIZE];
} keepd_ring;

bool keepd_ring_push(keepd_ring *r, void *msg);
void *keepd_ring_pop(keepd_ring *r);

// The server (shard.c, main.c).

struct keepd_server;
int keepd_server_run(const keepd_settings *settings);

// keepd_now_ns reads CLOCK_MONOTONIC_RAW, the only clock keepd uses.
uint64_t keepd_now_ns(void);

#endif // KEEPD_H
