// arena.c: the memory a parsed message lives in: the arena (chunks taken
// from the settings' allocator hook or libc, handed out in slices for the
// few strings the parser derives) and the chunked stores of header and part
// records, all released at once by mp_message_free(). Neither ever copies
// what it holds, so a parse's memory is what its records and strings need
// plus at most one partly used chunk of each kind.
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

#define MP_ARENA_ALIGN 16
// Sizes of whole chunk allocations, header included: a power of two, and
// the first one no more than glibc keeps in its per-thread cache (requests
// up to 1,032 bytes), so that the one chunk most parses need comes back
// from that cache instead of the general allocator (a 1,040-byte request
// took about 300 instructions to allocate and 150 to free, per parse).
#define MP_ARENA_MIN_CHUNK 1024
// Chunks double up to this size and then stay there, so that the unused end
// of the newest chunk (the arena's only slack) stays small.
#define MP_ARENA_MAX_CHUNK 16384

void *mp_alloc_raw(const mp_allocator *a, size_t size) {
  if (a->alloc != NULL)
    return a->alloc(a->opaque, size);
  return malloc(size);
}

void mp_free_raw(const mp_allocator *a, void *p) {
  if (p == NULL)
    return;
  if (a->free != NULL)
    a->free(a->opaque, p);
  else
    free(p);
}

// Header of a chunk rounded up so that the data after it stays aligned.
static size_t chunk_hdr(void) {
  return (sizeof(mp_arena_chunk) + MP_ARENA_ALIGN - 1) & ~(size_t)(MP_ARENA_ALIGN - 1);
}

static void *arena_take(mp_arena *ar, size_t size) {
  if (size > SIZE_MAX / 2)
    return NULL;
  mp_arena_chunk *c = ar->head;
  if (c == NULL || c->cap - c->used < size) {
    if (size > MP_ARENA_MAX_CHUNK / 4) {
      // A large request gets a chunk of its own, linked behind the current
      // one so that the current one's free space stays in use.
      if (size > SIZE_MAX - chunk_hdr())
        return NULL;
      mp_arena_chunk *n = mp_alloc_raw(&ar->a, chunk_hdr() + size);
      if (n == NULL)
        return NULL;
      n->cap = n->used = size;
      if (c != NULL) {
        n->next = c->next;
        c->next = n;
      } else {
        n->next = NULL;
        ar->head = n;
      }
      return (unsigned char *)n + chunk_hdr();
    }
    size_t total = MP_ARENA_MIN_CHUNK;
    if (c != NULL)
      total = c->cap >= MP_ARENA_MAX_CHUNK / 2 ? MP_ARENA_MAX_CHUNK : 2 * (chunk_hdr() + c->cap);
    if (total > MP_ARENA_MAX_CHUNK)
      total = MP_ARENA_MAX_CHUNK;
    // The new chunk must hold the request (up to MP_ARENA_MAX_CHUNK / 4,
    // more than the first chunks): a 3,000-byte boundary as the first string
    // of a parse was written past a 1,024-byte first chunk.
    while (total - chunk_hdr() < size)
      total *= 2;
    size_t cap = total - chunk_hdr();
    mp_arena_chunk *n = mp_alloc_raw(&ar->a, total);
    if (n == NULL)
      return NULL;
    n->next = c;
    n->cap = cap;
    n->used = 0;
    ar->head = n;
    c = n;
  }
  void *p = (unsigned char *)c + chunk_hdr() + c->used;
  c->used += size;
  return p;
}

void *mp_arena_alloc_str(mp_arena *ar, size_t size) {
  return arena_take(ar, size ? size : 1);
}

// table_push appends `chunk` to a chunk table, doubling the table outside
// the arena when it is full (the old table is freed at once, unless it is
// the one inside the handle, `inl`).
static int table_push(const mp_allocator *a, void ***table, size_t *n, size_t *cap, void *chunk,
                      void **inl) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    if (nc > SIZE_MAX / sizeof(void *))
      return -12; // -ENOMEM
    void **t = mp_alloc_raw(a, nc * sizeof(void *));
    if (t == NULL)
      return -12;
    if (*n)
      memcpy(t, *table, *n * sizeof(void *));
    if (*table != inl)
      mp_free_raw(a, *table);
    *table = t;
    *cap = nc;
  }
  (*table)[(*n)++] = chunk;
  return 0;
}

void mp_records_init(mp_message *m) {
  m->hchunks = m->htab0;
  m->cap_hchunks = MP_TAB_INLINE;
  m->pchunks = m->ptab0;
  m->cap_pchunks = MP_TAB_INLINE;
  m->hnext = NULL;
  m->hleft = 0;
}

int mp_hdr_grow(mp_message *m) {
  // Record num_headers opens a new chunk: the one inside the handle first,
  // then chunks from the allocator.
  size_t k = m->nhchunks;
  size_t n = mp_rec_chunk_len(k, MP_HDR_FIRST_SHIFT, MP_HDR_STEP_SHIFT);
  mp_header *c = k == 0 ? m->hrec0 : mp_alloc_raw(&m->arena.a, n * sizeof(mp_header));
  if (c == NULL)
    return -12; // -ENOMEM
  if (table_push(&m->arena.a, (void ***)&m->hchunks, &m->nhchunks, &m->cap_hchunks, c,
                 (void **)m->htab0) != 0) {
    if (c != m->hrec0)
      mp_free_raw(&m->arena.a, c);
    return -12;
  }
  m->hnext = c;
  m->hleft = n;
  return 0;
}

mp_part *mp_part_push(mp_message *m) {
  size_t i = m->num_parts, off;
  if (mp_rec_locate(i, MP_PART_FIRST_SHIFT, MP_PART_STEP_SHIFT, &off) == m->npchunks) {
    size_t k = m->npchunks;
    size_t n = mp_rec_chunk_len(k, MP_PART_FIRST_SHIFT, MP_PART_STEP_SHIFT);
    mp_part *c = k == 0 ? m->prec0 : mp_alloc_raw(&m->arena.a, n * sizeof(mp_part));
    if (c == NULL)
      return NULL;
    if (table_push(&m->arena.a, (void ***)&m->pchunks, &m->npchunks, &m->cap_pchunks, c,
                   (void **)m->ptab0) != 0) {
      if (c != m->prec0)
        mp_free_raw(&m->arena.a, c);
      return NULL;
    }
  }
  m->num_parts = i + 1;
  mp_part *p = mp_part_at(m, i);
  mp_zero(p, sizeof *p);
  return p;
}

void mp_records_free(mp_message *m) {
  for (size_t i = 0; i < m->nhchunks; i++)
    if (m->hchunks[i] != m->hrec0)
      mp_free_raw(&m->arena.a, m->hchunks[i]);
  if (m->hchunks != m->htab0)
    mp_free_raw(&m->arena.a, m->hchunks);
  for (size_t i = 0; i < m->npchunks; i++)
    if (m->pchunks[i] != m->prec0)
      mp_free_raw(&m->arena.a, m->pchunks[i]);
  if (m->pchunks != m->ptab0)
    mp_free_raw(&m->arena.a, m->pchunks);
  m->nhchunks = m->npchunks = m->num_headers = m->num_parts = 0;
  mp_records_init(m);
}

void mp_arena_release(mp_arena *ar) {
  mp_arena_chunk *c = ar->head;
  while (c != NULL) {
    mp_arena_chunk *next = c->next;
    mp_free_raw(&ar->a, c);
    c = next;
  }
  ar->head = NULL;
}
