// thread_cache.c: one block of per-thread caches, freed at thread exit by a
// single pthread key (thread_cache_internal.h).
#include "thread_cache_internal.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
  void *obj[MC_THREAD_CACHE_KINDS];
  const mc_thread_cache_kind *kind[MC_THREAD_CACHE_KINDS];
} cache_block;

// The thread's block. The thread-local pointer is the fast path; the
// pthread key only exists so that its destructor frees the block.
static _Thread_local cache_block *tls_block;
static pthread_once_t block_once = PTHREAD_ONCE_INIT;
static pthread_key_t block_key;
static int block_key_ok;

static void obj_free(const mc_thread_cache_kind *kind, void *obj) {
  if (kind->release != NULL)
    kind->release(obj);
  free(obj);
}

// block_free, the key's destructor, runs in the exiting thread. The
// thread-local pointer is cleared first so that a cache asked for by a
// later destructor starts a new block instead of using this freed one.
static void block_free(void *p) {
  cache_block *b = p;
  if (tls_block == b)
    tls_block = NULL;
  for (size_t i = 0; i < MC_THREAD_CACHE_KINDS; i++)
    if (b->obj[i] != NULL)
      obj_free(b->kind[i], b->obj[i]);
  free(b);
}

static void block_key_make(void) {
  block_key_ok = pthread_key_create(&block_key, block_free) == 0;
}

static cache_block *block_get(void) {
  if (tls_block != NULL)
    return tls_block;
  (void)pthread_once(&block_once, block_key_make);
  if (!block_key_ok)
    return NULL;
  cache_block *b = calloc(1, sizeof *b);
  if (b == NULL)
    return NULL;
  if (pthread_setspecific(block_key, b) != 0) {
    free(b);
    return NULL;
  }
  tls_block = b;
  return b;
}

void *mc_thread_cache_get(enum mc_thread_cache_id id, const mc_thread_cache_kind *kind) {
  if ((unsigned)id >= MC_THREAD_CACHE_KINDS)
    return NULL;
  cache_block *b = block_get();
  if (b == NULL)
    return NULL;
  if (b->obj[id] != NULL)
    return b->obj[id];
  void *obj = calloc(1, kind->size);
  if (obj == NULL)
    return NULL;
  if (kind->init != NULL && kind->init(obj) != 0) {
    obj_free(kind, obj);
    return NULL;
  }
  b->obj[id] = obj;
  b->kind[id] = kind;
  return obj;
}

void *mc_thread_cache_peek(enum mc_thread_cache_id id) {
  if ((unsigned)id >= MC_THREAD_CACHE_KINDS || tls_block == NULL)
    return NULL;
  return tls_block->obj[id];
}
