// store.c: one shard's key store, touched by that shard's thread only. Keys
// live in a hash table of 64-byte buckets, each opened by matching a 1-byte
// tag against seven tags at once with SWAR arithmetic, so a lookup reads one
// cache line before it compares a key. Entries and large values come from
// an arena of power-of-two size classes carved out of pre-faulted 2 MiB
// chunks (huge pages when the system has them), so the request path does
// not call malloc and never takes a page fault; every allocation is counted
// against the shard's memory cap. Expired keys go on access and through an
// incremental sweep a few buckets at a time.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "keepd.h"

#define CHUNK_SIZE (2u * 1024u * 1024u)
// Size classes: every multiple of 16 bytes up to 256 (small keys and values
// are most of what keepd stores, and each class step wastes at most 15
// bytes), then powers of two up to 2 MiB.
#define SMALL_CLASSES 16
#define SMALL_MAX 256u
#define INITIAL_BUCKETS 1024u

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

int keepd_store_init(keepd_store *st, uint64_t cap) {
  memset(st, 0, sizeof *st);
  st->cap = cap;
  st->buckets = aligned_alloc(64, INITIAL_BUCKETS * sizeof(keepd_bucket));
  if (st->buckets == NULL)
    return -ENOMEM;
  memset(st->buckets, 0, INITIAL_BUCKETS * sizeof(keepd_bucket));
  st->mask = INITIAL_BUCKETS - 1;
  st->used = INITIAL_BUCKETS * sizeof(keepd_bucket);
  return 0;
}

void keepd_store_cleanup(keepd_store *st) {
  for (size_t i = 0; i < st->num_chunks; i++)
    munmap(st->chunks[i], CHUNK_SIZE);
  free(st->chunks);
  free(st->buckets);
  memset(st, 0, sizeof *st);
}

static inline uint8_t tag_of(uint64_t h) {
  uint8_t t = (uint8_t)(h >> 56);
  return t ? t : 1;
}

static inline size_t bucket_of(const keepd_store *st, uint64_t h) {
  return (size_t)(h >> 14) & st->mask;
}

// match_tags returns a mask with bit 8*i+7 set for each of the 7 tag bytes
// equal to `tag`: XOR makes matching bytes zero, and the carry-free zero-byte
// test flags exactly those (no false positives, unlike the shorter form).
static inline uint64_t match_tags(const keepd_bucket *b, uint8_t tag) {
  uint64_t w;
  memcpy(&w, b->tags, 8);
  uint64_t x = w ^ (0x0101010101010101ull * tag);
  uint64_t t = (x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full;
  t = ~(t | x | 0x7f7f7f7f7f7f7f7full);
  return t & 0x0080808080808080ull; // byte 7 is the overflow mark
}

static keepd_entry *lookup(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                           keepd_bucket **out_b, int *out_i) {
  uint8_t tag = tag_of(h);
  size_t i = bucket_of(st, h);
  for (size_t probes = 0; probes <= st->mask; probes++) {
    keepd_bucket *b = &st->buckets[i];
    for (uint64_t m = match_tags(b, tag); m != 0; m &= m - 1) {
      int slot = __builtin_ctzll(m) / 8;
      keepd_entry *e = b->e[slot];
      if (e->hash == h && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) {
        *out_b = b;
        *out_i = slot;
        return e;
      }
    }
    if (!b->overflow)
      return NULL;
    i = (i + 1) & st->mask;
  }
  return NULL;
}

static void unlink_entry(keepd_store *st, keepd_entry *e) {
  keepd_bucket *b;
  int i;
  if (lookup(st, e->hash, e->key, e->key_len, &b, &i) == e) {
    b->tags[i] = 0;
    b->e[i] = NULL;
    st->count--;
  }
}

void keepd_store_free_entry(keepd_store *st, keepd_entry *e) {
  if (e->kind == KIND_VALUE && e->value_len > 8)
    arena_free(st, e->v.ext, e->value_len);
  arena_free(st, e, entry_size(e->key_len, e->holder_len));
}

void keepd_store_remove(keepd_store *st, keepd_entry *e) {
  unlink_entry(st, e);
  keepd_store_free_entry(st, e);
}

keepd_entry *keepd_store_find(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                              uint64_t now) {
  keepd_bucket *b;
  int i;
  keepd_entry *e = lookup(st, h, key, key_len, &b, &i);
  if (e != NULL && e->expires_ns != 0 && e->expires_ns <= now) {
    b->tags[i] = 0;
    b->e[i] = NULL;
    st->count--;
    keepd_store_free_entry(st, e);
    return NULL;
  }
  return e;
}

keepd_entry *keepd_store_new_entry(keepd_store *st, uint64_t h, const uint8_t *key, size_t key_len,
                                   size_t value_len, size_t holder_len) {
  keepd_entry *e = arena_alloc(st, entry_size(key_len, holder_len));
  if (e == NULL)
    return NULL;
  memset(e, 0, sizeof *e);
  e->hash = h;
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

static void place(keepd_store *st, keepd_entry *e) {
  size_t i = bucket_of(st, e->hash);
  for (;;) {
    keepd_bucket *b = &st->buckets[i];
    uint64_t m = match_tags(b, 0);
    if (m != 0) {
      int slot = __builtin_ctzll(m) / 8;
      b->tags[slot] = tag_of(e->hash);
      b->e[slot] = e;
      st->count++;
      return;
    }
    b->overflow = 1;
    i = (i + 1) & st->mask;
  }
}

// grow doubles the table. The old buckets are rebuilt from scratch, which
// also clears overflow marks left by deleted entries.
static int grow(keepd_store *st) {
  size_t old_n = st->mask + 1, n = old_n * 2;
  size_t bytes = n * sizeof(keepd_bucket);
  if (st->used + bytes > st->cap)
    return -ENOMEM;
  keepd_bucket *nb = aligned_alloc(64, bytes);
  if (nb == NULL)
    return -ENOMEM;
  memset(nb, 0, bytes);
  keepd_bucket *old = st->buckets;
  st->buckets = nb;
  st->mask = n - 1;
  st->count = 0;
  st->sweep_pos = 0;
  for (size_t i = 0; i < old_n; i++)
    for (int j = 0; j < 7; j++)
      if (old[i].tags[j] != 0)
        place(st, old[i].e[j]);
  free(old);
  st->used += bytes - old_n * sizeof(keepd_bucket);
  return 0;
}

int keepd_store_put(keepd_store *st, keepd_entry *e, keepd_entry *old) {
  if (old != NULL) {
    keepd_bucket *b;
    int i;
    if (lookup(st, old->hash, old->key, old->key_len, &b, &i) == old) {
      b->e[i] = e; // same key, same hash, same tag: swap in place
      keepd_store_free_entry(st, old);
      return 0;
    }
  }
  // Keep the load under 5 of 7 slots per bucket so probes stay short.
  if (st->count + 1 > (st->mask + 1) * 5 && grow(st) < 0 && st->count + 1 >= (st->mask + 1) * 7)
    return -ENOMEM;
  place(st, e);
  return 0;
}

size_t keepd_store_sweep(keepd_store *st, size_t num_buckets, uint64_t now) {
  size_t removed = 0;
  for (size_t k = 0; k < num_buckets && k <= st->mask; k++) {
    keepd_bucket *b = &st->buckets[st->sweep_pos];
    for (int j = 0; j < 7; j++) {
      keepd_entry *e = b->e[j];
      if (b->tags[j] != 0 && e->expires_ns != 0 && e->expires_ns <= now) {
        b->tags[j] = 0;
        b->e[j] = NULL;
        st->count--;
        keepd_store_free_entry(st, e);
        removed++;
      }
    }
    st->sweep_pos = (st->sweep_pos + 1) & st->mask;
  }
  return removed;
}
