// thread_cache_internal.h: libmsgcrypt's per-thread caches of public-key
// setup (thread_cache.c), private, never installed. A server encrypts mail
// after mail to the same recipients, so each thread keeps what it derived
// from their public keys (RSA Montgomery contexts, ML-KEM key expansions,
// P-256 point tables) and skips that work the next time. Every kind of
// cache lives in one block per thread, made on first use and freed, with
// what each cache holds, when the thread exits. Only public data is cached.
#ifndef MC_THREAD_CACHE_INTERNAL_H
#define MC_THREAD_CACHE_INTERNAL_H

#include <stddef.h>

// The kinds of cache, one slot each in a thread's block.
enum mc_thread_cache_id {
  MC_THREAD_CACHE_RSA_PUB,      // rsa_pub.c
  MC_THREAD_CACHE_MLKEM_ENCAPS, // mlkem.c
  MC_THREAD_CACHE_P256_PEER,    // x86/p256_adx.c
  MC_THREAD_CACHE_KINDS
};

// mc_thread_cache_kind describes one kind of cache to mc_thread_cache_get.
typedef struct {
  size_t size; // bytes of the cache object, zeroed when it is made
  // init, when not NULL, finishes a new zeroed object and returns 0, or
  // nonzero when it cannot (the object is then released and freed).
  int (*init)(void *obj);
  // release, when not NULL, frees what the object points to (not the object
  // itself) before the object is freed at thread exit or on failed init.
  void (*release)(void *obj);
} mc_thread_cache_kind;

// mc_thread_cache_get returns the calling thread's cache of kind `id`,
// making it from `kind` when the thread has none yet, or NULL when it
// cannot (no memory, no pthread key): callers then work uncached. `kind`
// must be the same object on every call for one `id` and outlive the
// thread. A cache made while the thread is already exiting (from another
// destructor) is freed by a later destructor round.
void *mc_thread_cache_get(enum mc_thread_cache_id id, const mc_thread_cache_kind *kind);

// mc_thread_cache_peek returns the calling thread's cache of kind `id` if
// it has been made, else NULL; it never makes one.
void *mc_thread_cache_peek(enum mc_thread_cache_id id);

#endif
