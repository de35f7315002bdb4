// ring.c: the lock-free single-producer single-consumer ring that carries
// requests, answers and events between two shards. Each ordered pair of
// shards has its own ring, so each ring has exactly one writer thread and one
// reader thread, and C11 acquire/release on the two indices is all the
// synchronisation it needs: the producer's release store of `tail` publishes
// the slot it filled, the consumer's release store of `head` hands the slot
// back.
#include "keepd.h"

bool keepd_ring_push(keepd_ring *r, void *msg) {
  size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
  if (tail - head == KEEPD_RING_SIZE)
    return false;
  r->slots[tail % KEEPD_RING_SIZE] = msg;
  atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
  return true;
}

void *keepd_ring_pop(keepd_ring *r) {
  size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  if (head == tail)
    return NULL;
  void *msg = r->slots[head % KEEPD_RING_SIZE];
  atomic_store_explicit(&r->head, head + 1, memory_order_release);
  return msg;
}
