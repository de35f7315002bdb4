// arena.c: the one arena a parsed message lives in: chunks taken from the
// settings' allocator hook (or libc), handed out in aligned slices and
// released all at once by mp_message_free().
#include <stdlib.h>

#include "core_internal.h"

#define MP_ARENA_ALIGN 16
#define MP_ARENA_MIN_CHUNK 4096

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

void *mp_arena_alloc(mp_arena *ar, size_t size) {
  if (size > SIZE_MAX / 2)
    return NULL;
  size = (size + MP_ARENA_ALIGN - 1) & ~(size_t)(MP_ARENA_ALIGN - 1);
  mp_arena_chunk *c = ar->head;
  if (c == NULL || c->cap - c->used < size) {
    // Chunks grow with the arena, so a message needs O(log n) of them.
    size_t cap = c != NULL ? c->cap * 2 : MP_ARENA_MIN_CHUNK;
    if (cap < size)
      cap = size;
    if (cap > SIZE_MAX - chunk_hdr())
      return NULL;
    mp_arena_chunk *n = mp_alloc_raw(&ar->a, chunk_hdr() + cap);
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

void mp_arena_release(mp_arena *ar) {
  mp_arena_chunk *c = ar->head;
  while (c != NULL) {
    mp_arena_chunk *next = c->next;
    mp_free_raw(&ar->a, c);
    c = next;
  }
  ar->head = NULL;
}
