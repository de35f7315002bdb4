// bench_floor.c: the memory floor of bench_mailparse, "memread": no parse at
// all, every byte of the input (the whole message, or the header section in
// the header modes) read once and folded into a checksum. It measures what
// bringing the bytes through the core costs on this machine, which every
// parser pays at least once; on a set much larger than the caches, a full
// parse whose time is close to it is bound by memory, not by its own work.
// Measured only when --impl names it exactly (it is not a peer: goals.py
// and the tables leave it alone unless asked).
#include <string.h>

#include "bench_internal.h"

static int floor_run(struct mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  (void)mode;
  // Eight independent 64-bit lanes, so that the compiler vectorizes the
  // loop and the loads, not the additions, set its pace.
  uint64_t acc[8] = {0};
  size_t i = 0;
  for (; len - i >= 64; i += 64) {
    for (int k = 0; k < 8; k++) {
      uint64_t w;
      memcpy(&w, msg + i + 8 * k, 8);
      acc[k] += w;
    }
  }
  uint64_t sum = 0;
  for (; i < len; i++)
    sum += msg[i];
  for (int k = 0; k < 8; k++)
    sum += acc[k];
  work->bytes += sum & 1; // keeps the loop alive
  work->parts++;
  return 0;
}

const struct mpb_impl mpb_floor = {"memread", NULL, floor_run};
