// store.c: one shard's key store, touched by that shard's thread only. A
// small key (the common case: rate-limit counters, greylist marks, short
// values) lives entirely inside a 24-byte slot of the hash table: key,
// 8-byte value or counter, and a millisecond deadline kept modulo 2^32, so
// it costs about 28 bytes at the table's usual load and nothing else. Slots
// come 7 to a bucket behind 7 tag bytes matched at once with SWAR
// arithmetic, so a lookup reads the tags before it compares any key. Other
// keys (long keys, long values, locks, far deadlines) are records from an
// arena of size classes carved out of pre-faulted 2 MiB chunks (huge pages
// when the system has them), pointed to by their slot. The table grows by a
// quarter once 90% full, incrementally, so its load stays between 72% and
// 90% and no call rehashes more than a few buckets. Every byte of tables
// and records is counted against the shard's memory cap. Expired keys go on
// access and through an incremental sweep a few buckets at a time.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include "keepd.h"

#define CHUNK_SIZE (2u * 1024u * 1024u)
// Size classes: every multiple of 16 bytes up to 256 (small keys and values
// are most of what keepd stores, and each class step wastes at most 15
// bytes), then powers of two up to 2 MiB.
#define SMALL_CLASSES 16
#define SMALL_MAX 256u
#define INITIAL_BUCKETS 147u // about 1,000 slots
#define SLOTS 7
// The table grows when 90% of its slots are used, to 5/4 of its size: the
// load then never falls under 72%, which keeps a small key under 35 bytes.
#define LOAD_NUM 9
#define LOAD_DEN 10
#define GROW_NUM 5
#define GROW_DEN 4
// Buckets of the old table moved per insert and per sweep call: enough to
// finish long before the new table fills (it has room for 1.8 inserts per
// old bucket), few enough that no call takes long.
#define MIGRATE_PER_PUT 8
#define MIGRATE_PER_SWEEP 32
// A deadline further ahead than this does not fit a slot's 32-bit field
// (serial-number arithmetic needs half the range) and goes out of line.
#define MAX_INLINE_AHEAD_MS 0x7fffffffu

#define META_KIND 0x03u
#define META_EXT 0x04u
#define META_TTL 0x08u
#define META_VLEN_SHIFT 4

static void *map_chunk(keepd_store *st) {
  void *p = MAP_FAILED;
#ifdef MAP_HUGETLB
  p = mmap(NULL, CHUNK_SIZE, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
  if (p != MAP_FAILED)
    st->huge_pages = true;
#endif
  if (p == MAP_FAILED)
    p = mmap(NULL, CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
             -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static int size_class(size_t n) {
  if (n <= SMALL_MAX)
    return n == 0 ? 0 : (int)((n + 15) / 16) - 1;
  int c = SMALL_CLASSES;
  size_t sz = 2 * SMALL_MAX;
  while (sz < n) {
    sz <<= 1;
    c++;
  }
  return c < KEEPD_NUM_CLASSES ? c : -1;
}

static size_t class_size(int c) {
  if (c < SMALL_CLASSES)
    return 16 * (size_t)(c + 1);
  return 2 * SMALL_MAX << (c - SMALL_CLASSES);
}

static void *arena_alloc(keepd_store *st, size_t n) {
  int c = size_class(n);
  if (c < 0)
    return NULL;
  size_t sz = class_size(c);
  if (st->used + sz > st->cap)
    return NULL;
  void *p = st->free_list[c];
  if (p != NULL) {
    st->free_list[c] = *(void **)p;
  } else {
    if (st->chunk_left < sz) {
      // Hand the tail of the old chunk to the smaller classes, not to waste.
      while (st->chunk_left >= class_size(0)) {
        int t = size_class(st->chunk_left);
        while (t < 0 || class_size(t) > st->chunk_left)
          t = t < 0 ? KEEPD_NUM_CLASSES - 1 : t - 1;
        *(void **)st->chunk = st->free_list[t];
        st->free_list[t] = st->chunk;
        st->chunk += class_size(t);
        st->chunk_left -= class_size(t);
      }
      if (st->num_chunks == st->chunks_cap) {
        size_t cap = st->chunks_cap ? st->chunks_cap * 2 : 16;
        void **nc = realloc(st->chunks, cap * sizeof *nc);
        if (nc == NULL)
          return NULL;
        st->chunks = nc;
        st->chunks_cap = cap;
      }
      uint8_t *chunk = map_chunk(st);
      if (chunk == NULL)
        return NULL;
      st->chunks[st->num_chunks++] = chunk;
      st->chunk = chunk;
      st->chunk_left = CHUNK_SIZE;
    }
    p = st->chunk;
    st->chunk += sz;
    st->chunk_left -= sz;
  }
  st->used += sz;
  return p;
}

static void arena_free(keepd_store *st, void *p, size_t n) {
  int c = size_class(n);
  if (c < 0)
    return; // cannot happen: arena_alloc refused such sizes
  *(void **)p = st->free_list[c];
  st->free_list[c] = p;
  st->used -= class_size(c);
}

static size_t entry_size(size_t key_len, size_t holder_len) {
  return sizeof(keepd_entry) + key_len + holder_len;
}

static keepd_entry *found_view(keepd_store *st) {
  return (keepd_entry *)(void *)st->found_buf;
}

static keepd_entry *fresh_view(keepd_store *st) {
  return (keepd_entry *)(void *)st->fresh_buf;
}

static uint64_t hash_key(const keepd_store *st, const uint8_t *key, size_t key_len) {
  if (st->hash != NULL)
    return st->hash(st->hash_arg, key, key_len);
  return keep_siphash24(st->seed, key, key_len);
}

static int table_alloc(keepd_store *st, keepd_table *t, size_t n) {
  size_t bytes = n * sizeof(keepd_bucket);
  if (st->used + bytes > st->cap)
    return -ENOMEM;
  // calloc takes large blocks straight from mmap, already zero: no pass over
  // the memory, so a big table costs nothing until its pages are touched.
  t->b = calloc(n, sizeof(keepd_bucket));
  if (t->b == NULL)
    return -ENOMEM;
  t->n = n;
  st->used += bytes;
  st->table_bytes += bytes;
  return 0;
}

static void table_free(keepd_store *st, keepd_table *t) {
  if (t->b == NULL)
    return;
  st->used -= t->n * sizeof(keepd_bucket);
  st->table_bytes -= t->n * sizeof(keepd_bucket);
  free(t->b);
  t->b = NULL;
  t->n = 0;
}

int keepd_store_init(keepd_store *st, uint64_t cap) {
  memset(st, 0, sizeof *st);
  st->cap = cap;
  if (getrandom(st->seed, sizeof st->seed, 0) != (ssize_t)sizeof st->seed) {
    // No entropy source: the clock still keeps the seed from being known.
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)st;
    memcpy(st->seed, &x, 8);
  }
  return table_alloc(st, &st->cur, INITIAL_BUCKETS);
}

void keepd_store_cleanup(keepd_store *st) {
  for (size_t i = 0; i < st->num_chunks; i++)
    munmap(st->chunks[i], CHUNK_SIZE);
  free(st->chunks);
  free(st->cur.b);
  free(st->old.b);
  memset(st, 0, sizeof *st);
}

static inline uint8_t tag_of(uint64_t h) {
  uint8_t t = (uint8_t)h;
  return t ? t : 1;
}

// home_of places a hash in a table of any size without a division: the top
// 32 bits of the hash scaled to [0, n).
static inline size_t home_of(const keepd_table *t, uint64_t h) {
  return (size_t)(((h >> 32) * (uint64_t)t->n) >> 32);
}

// match_tags returns a mask with bit 8*i+7 set for each of the 7 tag bytes
// equal to `tag`: XOR makes matching bytes zero, and the carry-free zero-byte
// test flags exactly those (no false positives, unlike the shorter form).
static inline uint64_t match_tags(const keepd_bucket *b, uint8_t tag) {
  // The bucket's first 8 bytes: the tags and the overflow count, read
  // through the bucket rather than past the end of the 7-byte tags array.
  _Static_assert(offsetof(keepd_bucket, tags) == 0 && offsetof(keepd_bucket, overflow) == 7,
                 "tags then overflow open the bucket");
  uint64_t w;
  memcpy(&w, b, 8);
  uint64_t x = w ^ (0x0101010101010101ull * tag);
  uint64_t t = (x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full;
  t = ~(t | x | 0x7f7f7f7f7f7f7f7full);
  return t & 0x0080808080808080ull; // byte 7 is the overflow count
}

static inline keepd_entry *slot_record(const keepd_slot *s) {
  keepd_entry *e;
  memcpy(&e, s->v, sizeof e);
  return e;
}

static inline uint32_t slot_deadline(const keepd_slot *s) {
  uint32_t d;
  memcpy(&d, s->deadline, 4);
  return d;
}

static bool slot_key_is(const keepd_slot *s, const uint8_t *key, size_t key_len) {
  if (s->meta & META_EXT) {
    const keepd_entry *e = slot_record(s);
    return e->key_len == key_len && memcmp(e->key, key, key_len) == 0;
  }
  return s->key_len == key_len && memcmp(s->key, key, key_len) == 0;
}

// ms_ceil is the deadline kept for `expires_ns`: the next whole millisecond.
static inline uint64_t ms_ceil(uint64_t ns) {
  return ns / 1000000u + (ns % 1000000u != 0);
}

// slot_due tells from the slot alone whether its key may have expired at
// `now_ms`: exactly for an inline key, by the lower bound kept in the slot
// for a record (set_hint), which the caller then checks with slot_expired.
static inline bool slot_due(const keepd_slot *s, uint64_t now_ms) {
  return (s->meta & META_TTL) && (int32_t)(slot_deadline(s) - (uint32_t)now_ms) <= 0;
}

static bool slot_expired(const keepd_slot *s, uint64_t now, uint64_t now_ms) {
  if (s->meta & META_EXT) {
    const keepd_entry *e = slot_record(s);
    return e->expires_ns != 0 && e->expires_ns <= now;
  }
  return slot_due(s, now_ms);
}

// slot_hash is the store's hash of a slot's key: a record's slot keeps it
// (set_record), so moving or removing a record reads neither the record nor
// its key.
static uint64_t slot_hash(const keepd_store *st, const keepd_slot *s) {
  if (s->meta & META_EXT) {
    uint64_t h;
    memcpy(&h, s->key, sizeof h);
    return h;
  }
  return hash_key(st, s->key, s->key_len);
}

static keepd_slot *table_lookup(keepd_table *t, uint64_t h, const uint8_t *key, size_t key_len,
                                keepd_bucket **out_b, int *out_i) {
  uint8_t tag = tag_of(h);
  size_t i = home_of(t, h);
  for (size_t probes = 0; probes < t->n; probes++) {
    keepd_bucket *b = &t->b[i];
    for (uint64_t m = match_tags(b, tag); m != 0; m &= m - 1) {
      int slot = __builtin_ctzll(m) / 8;
      if (slot_key_is(&b->s[slot], key, key_len)) {
        *out_b = b;
        *out_i = slot;
        return &b->s[slot];
      }
    }
    if (b->overflow == 0)
      return NULL;
    i = i + 1 == t->n ? 0 : i + 1;
  }
  return NULL;
}

static keepd_slot *lookup(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                          keepd_bucket **out_b, int *out_i) {
  keepd_slot *s = table_lookup(&st->cur, h, key, key_len, out_b, out_i);
  if (s == NULL && st->old.b != NULL)
    s = table_lookup(&st->old, h, key, key_len, out_b, out_i);
  return s;
}

// table_of tells which table holds bucket `b`.
static keepd_table *table_of(keepd_store *st, const keepd_bucket *b) {
  if (b >= st->cur.b && b < st->cur.b + st->cur.n)
    return &st->cur;
  return &st->old;
}

// clear_slot empties slot `i` of `b` and takes the key off the overflow
// counts of the buckets its insertion probed past.
static void clear_slot(keepd_store *st, keepd_bucket *b, int i) {
  keepd_table *t = table_of(st, b);
  size_t pos = home_of(t, slot_hash(st, &b->s[i]));
  size_t at = (size_t)(b - t->b);
  while (pos != at) {
    if (t->b[pos].overflow != 255) // a saturated count stays: it no longer knows
      t->b[pos].overflow--;
    pos = pos + 1 == t->n ? 0 : pos + 1;
  }
  b->tags[i] = 0;
  memset(&b->s[i], 0, sizeof b->s[i]);
  st->count--;
}

static void free_record(keepd_store *st, keepd_entry *e) {
  if (e->kind == KIND_VALUE && e->value_len > 8)
    arena_free(st, e->v.ext, e->value_len);
  arena_free(st, e, entry_size(e->key_len, e->holder_len));
}

// drop_slot removes whatever slot `i` of `b` holds, record included.
static void drop_slot(keepd_store *st, keepd_bucket *b, int i) {
  keepd_entry *rec = (b->s[i].meta & META_EXT) ? slot_record(&b->s[i]) : NULL;
  clear_slot(st, b, i);
  if (rec != NULL)
    free_record(st, rec);
}

// table_place puts a slot into `t`, which has a free slot somewhere.
static void table_place(keepd_table *t, uint64_t h, const keepd_slot *s) {
  size_t i = home_of(t, h);
  for (;;) {
    keepd_bucket *b = &t->b[i];
    uint64_t m = match_tags(b, 0);
    if (m != 0) {
      int slot = __builtin_ctzll(m) / 8;
      b->tags[slot] = tag_of(h);
      b->s[slot] = *s;
      return;
    }
    if (b->overflow != 255)
      b->overflow++;
    i = i + 1 == t->n ? 0 : i + 1;
  }
}

// migrate moves up to `num` buckets of the old table into the current one,
// dropping expired keys on the way, and frees the old table when done.
static void migrate(keepd_store *st, size_t num) {
  if (st->old.b == NULL)
    return;
  uint64_t now = st->now_ms * 1000000u;
  for (; num > 0 && st->migrate_pos < st->old.n; num--, st->migrate_pos++) {
    keepd_bucket *b = &st->old.b[st->migrate_pos];
    for (int j = 0; j < SLOTS; j++) {
      if (b->tags[j] == 0)
        continue;
      if (slot_due(&b->s[j], st->now_ms) && slot_expired(&b->s[j], now, st->now_ms)) {
        drop_slot(st, b, j);
        continue;
      }
      table_place(&st->cur, slot_hash(st, &b->s[j]), &b->s[j]);
      // The slot stays in the count; the old bucket keeps its overflow
      // count so that chains through it still reach later buckets.
      b->tags[j] = 0;
    }
  }
  if (st->migrate_pos == st->old.n) {
    table_free(st, &st->old);
    st->migrate_pos = 0;
  }
}

// grow starts moving to a table 5/4 the size, finishing any earlier move
// first; the caller has flushed the found view.
static int grow(keepd_store *st) {
  migrate(st, SIZE_MAX);
  keepd_table nt;
  size_t n = st->cur.n * GROW_NUM / GROW_DEN + 1;
  int rc = table_alloc(st, &nt, n);
  if (rc < 0)
    return rc;
  st->old = st->cur;
  st->cur = nt;
  st->layout_gen++;
  st->migrate_pos = 0;
  st->sweep_pos = 0;
  return 0;
}

// encode packs an entry into a slot; false if it does not fit one.
static bool encode(const keepd_store *st, const keepd_entry *e, keepd_slot *s) {
  if (e->key_len > KEEPD_INLINE_KEY || e->value_len > 8 || e->holder_len != 0)
    return false;
  memset(s, 0, sizeof *s);
  s->meta = (uint8_t)((e->kind & META_KIND) | e->value_len << META_VLEN_SHIFT);
  if (e->expires_ns != 0) {
    uint64_t d = ms_ceil(e->expires_ns);
    if (d > st->now_ms && d - st->now_ms > MAX_INLINE_AHEAD_MS)
      return false;
    uint32_t d32 = (uint32_t)d;
    memcpy(s->deadline, &d32, 4);
    s->meta |= META_TTL;
  }
  memcpy(s->v, e->v.inline_val, 8);
  s->key_len = e->key_len;
  memcpy(s->key, e->key, e->key_len);
  return true;
}

// decode fills a view from an inline slot, widening the deadline around the
// latest clock reading.
static void decode(const keepd_store *st, const keepd_slot *s, uint64_t h, keepd_entry *e) {
  memset(e, 0, sizeof *e);
  e->hash = h;
  e->kind = s->meta & META_KIND;
  e->value_len = s->meta >> META_VLEN_SHIFT;
  if (s->meta & META_TTL) {
    int32_t ahead = (int32_t)(slot_deadline(s) - (uint32_t)st->now_ms);
    e->expires_ns = (uint64_t)((int64_t)st->now_ms + ahead) * 1000000u;
  }
  memcpy(e->v.inline_val, s->v, 8);
  e->key_len = s->key_len;
  memcpy(e->key, s->key, s->key_len);
}

// to_record copies a view into a new out-of-line record; NULL over the cap.
static keepd_entry *to_record(keepd_store *st, const keepd_entry *v) {
  keepd_entry *e = arena_alloc(st, entry_size(v->key_len, 0));
  if (e == NULL)
    return NULL;
  memcpy(e, v, sizeof *e);
  memcpy(e->key, v->key, v->key_len);
  return e;
}

// set_hint keeps in a record's slot the record's deadline as a lower
// bound, so that the sweep can pass over a record that is not due without
// reading it (a read that misses the cache for nearly every record). The
// bound is the deadline's millisecond rounded down, at most as far ahead as
// a slot holds; a slot whose bound has passed is checked against the record.
// No deadline leaves META_TTL clear: the sweep never looks at such a record.
static void set_hint(const keepd_store *st, keepd_slot *s, const keepd_entry *e) {
  s->meta &= (uint8_t)~META_TTL;
  if (e->expires_ns == 0)
    return;
  uint64_t d = e->expires_ns / 1000000u;
  if (d > st->now_ms && d - st->now_ms > MAX_INLINE_AHEAD_MS)
    d = st->now_ms + MAX_INLINE_AHEAD_MS;
  uint32_t d32 = (uint32_t)d;
  memcpy(s->deadline, &d32, 4);
  s->meta |= META_TTL;
}

static void set_record(const keepd_store *st, keepd_slot *s, keepd_entry *e) {
  memset(s, 0, sizeof *s);
  s->meta = META_EXT | (e->kind & META_KIND);
  memcpy(s->v, &e, sizeof e);
  memcpy(s->key, &e->hash, sizeof e->hash); // for slot_hash
  set_hint(st, s, e);
}

// flush writes the found view's changes back to its slot and forgets it.
// A deadline pushed too far ahead for the slot moves the key out of line;
// if the cap refuses the record, the deadline is cut to the furthest a slot
// holds (24 days), the only case where a key lives shorter than asked.
static void flush(keepd_store *st) {
  keepd_entry *v = st->found;
  if (v == NULL)
    return;
  st->found = NULL;
  v->expires_ns = ms_ceil(v->expires_ns) * 1000000u; // as a slot keeps it
  keepd_slot *s = &st->found_b->s[st->found_i];
  if (v != found_view(st)) {
    set_hint(st, s, v); // a record, changed in place: its deadline may have
    return;             // moved either way
  }
  if (encode(st, v, s))
    return;
  keepd_entry *e = to_record(st, v);
  if (e != NULL) {
    set_record(st, s, e);
    return;
  }
  v->expires_ns = (st->now_ms + MAX_INLINE_AHEAD_MS) * 1000000u;
  (void)encode(st, v, s);
}

static void observe(keepd_store *st, uint64_t now) {
  uint64_t ms = now / 1000000u;
  if (ms > st->now_ms)
    st->now_ms = ms;
}

keepd_entry *keepd_store_find(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                              uint64_t now) {
  (void)h;
  flush(st);
  observe(st, now);
  uint64_t hh = hash_key(st, key, key_len);
  keepd_bucket *b;
  int i;
  keepd_slot *s = lookup(st, hh, key, key_len, &b, &i);
  if (s == NULL)
    return NULL;
  if (slot_expired(s, now, now / 1000000u)) {
    drop_slot(st, b, i);
    return NULL;
  }
  st->found_b = b;
  st->found_i = i;
  if (s->meta & META_EXT) {
    st->found = slot_record(s);
  } else {
    st->found = found_view(st);
    decode(st, s, hh, st->found);
  }
  return st->found;
}

keepd_entry *keepd_store_new_entry(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                                   size_t value_len, size_t holder_len) {
  (void)h;
  // The found view stays open: a replacement (put with `old`) uses it.
  uint64_t hh = hash_key(st, key, key_len);
  keepd_entry *e;
  if (key_len <= KEEPD_INLINE_KEY && value_len <= 8 && holder_len == 0) {
    e = fresh_view(st);
  } else {
    e = arena_alloc(st, entry_size(key_len, holder_len));
    if (e == NULL)
      return NULL;
  }
  memset(e, 0, sizeof *e);
  e->hash = hh;
  e->key_len = (uint8_t)key_len;
  e->holder_len = (uint8_t)holder_len;
  e->value_len = (uint32_t)value_len;
  memcpy(e->key, key, key_len);
  if (value_len > 8) {
    e->v.ext = arena_alloc(st, value_len);
    if (e->v.ext == NULL) {
      arena_free(st, e, entry_size(key_len, holder_len));
      return NULL;
    }
  }
  return e;
}

void keepd_store_free_entry(keepd_store *st, keepd_entry *e) {
  if (e == NULL || e == fresh_view(st) || e == found_view(st))
    return; // views own nothing
  free_record(st, e);
}

// make_slot turns an entry from keepd_store_new_entry into slot contents;
// -ENOMEM if a view needs a record the cap refuses.
static int make_slot(keepd_store *st, keepd_entry *e, keepd_slot *s) {
  if (e != fresh_view(st)) {
    set_record(st, s, e);
    return 0;
  }
  if (encode(st, e, s))
    return 0;
  keepd_entry *r = to_record(st, e);
  if (r == NULL)
    return -ENOMEM;
  set_record(st, s, r);
  return 0;
}

// relocate makes `e`, an entry handed out earlier, the found one again, by
// its key; false if it is no longer in the table.
static bool relocate(keepd_store *st, keepd_entry *e) {
  if (e == st->found)
    return true;
  flush(st);
  keepd_bucket *b;
  int i;
  if (lookup(st, hash_key(st, e->key, e->key_len), e->key, e->key_len, &b, &i) == NULL)
    return false;
  st->found = e;
  st->found_b = b;
  st->found_i = i;
  return true;
}

int keepd_store_put(keepd_store *st, keepd_entry *e, keepd_entry *old) {
  keepd_slot s;
  e->expires_ns = ms_ceil(e->expires_ns) * 1000000u; // as a slot keeps it
  if (old != NULL && relocate(st, old)) {
    // Same key, same hash: swap the slot's contents in place.
    st->found = NULL;
    int rc = make_slot(st, e, &s);
    if (rc < 0)
      return rc;
    keepd_slot *at = &st->found_b->s[st->found_i];
    if (at->meta & META_EXT)
      free_record(st, slot_record(at));
    *at = s;
    return 0;
  }
  flush(st);
  int rc = make_slot(st, e, &s);
  if (rc < 0)
    return rc;
  migrate(st, MIGRATE_PER_PUT);
  size_t slots = st->cur.n * SLOTS;
  size_t cur_keys = st->count; // an upper bound for the current table's share
  if (cur_keys + 1 > slots * LOAD_NUM / LOAD_DEN && grow(st) < 0 &&
      (st->old.b != NULL || cur_keys + 1 > slots)) {
    if ((s.meta & META_EXT) && e == fresh_view(st))
      free_record(st, slot_record(&s));
    return -ENOMEM;
  }
  table_place(&st->cur, e->hash, &s);
  st->count++;
  st->layout_gen++;
  return 0;
}

void keepd_store_remove(keepd_store *st, keepd_entry *e) {
  if (e == NULL || !relocate(st, e))
    return;
  st->found = NULL;
  drop_slot(st, st->found_b, st->found_i);
}

size_t keepd_store_sweep(keepd_store *st, size_t num_buckets, uint64_t now) {
  flush(st);
  observe(st, now);
  migrate(st, MIGRATE_PER_SWEEP);
  size_t removed = 0;
  uint64_t now_ms = now / 1000000u;
  for (size_t k = 0; k < num_buckets && k < st->cur.n; k++) {
    keepd_bucket *b = &st->cur.b[st->sweep_pos];
    for (int j = 0; j < SLOTS; j++) {
      keepd_slot *s = &b->s[j];
      // The slot's own deadline (exact inline, a lower bound for a record,
      // see set_hint) rules out most keys without reading any record.
      if (b->tags[j] == 0 || !slot_due(s, now_ms))
        continue;
      if (slot_expired(s, now, now_ms)) {
        drop_slot(st, b, j);
        removed++;
      } else if (s->meta & META_EXT) {
        set_hint(st, s, slot_record(s)); // a bound cut to 24 days: move it on
      }
    }
    st->sweep_pos = st->sweep_pos + 1 == st->cur.n ? 0 : st->sweep_pos + 1;
  }
  return removed;
}

// The cursor packs the layout generation (high 24 bits) with the position
// of the next slot to look at (low 40 bits: bucket * 8 + slot), so a stale
// cursor is recognised rather than trusted.
#define CURSOR_POS_BITS 40
#define CURSOR_POS_MASK ((1ull << CURSOR_POS_BITS) - 1)
#define CURSOR_GEN_MASK 0xffffffu

int keepd_store_next(keepd_store *st, uint64_t *cursor, uint64_t now, keepd_entry **out) {
  flush(st);
  observe(st, now);
  uint64_t pos;
  if (*cursor == 0) {
    migrate(st, SIZE_MAX); // one table: positions are stable from here on
    pos = 0;
  } else {
    if ((*cursor >> CURSOR_POS_BITS) != (st->layout_gen & CURSOR_GEN_MASK) || st->old.b != NULL)
      return -ESTALE;
    pos = *cursor & CURSOR_POS_MASK;
  }
  uint64_t gen = (uint64_t)(st->layout_gen & CURSOR_GEN_MASK) << CURSOR_POS_BITS;
  uint64_t now_ms = now / 1000000u;
  for (; pos / 8 < st->cur.n; pos++) {
    keepd_bucket *b = &st->cur.b[pos / 8];
    int j = (int)(pos % 8);
    if (j >= SLOTS || b->tags[j] == 0 || slot_expired(&b->s[j], now, now_ms))
      continue;
    keepd_slot *sl = &b->s[j];
    if (sl->meta & META_EXT) {
      *out = slot_record(sl);
    } else {
      *out = fresh_view(st);
      decode(st, sl, 0, *out);
    }
    *cursor = gen | (pos + 1);
    return 1;
  }
  *cursor = gen | pos;
  return 0;
}
