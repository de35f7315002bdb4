// cpu.c: detects, once, the CPU features that libencodify's kernels need
// (CONVENTIONS §6), through the detector every Corvid library shares
// (common/include/corvid_cpu.h: CPUID, the XGETBV checks that the operating
// system saves the YMM, opmask and ZMM state, features the compiler may
// assume); libencodify keeps its own cache of the answer.
#include <stdatomic.h>

#include "encodify_internal.h"

uint32_t enc_cpu_features(void) {
  static atomic_uint_fast32_t cache;
  return corvid_cpu_features(&cache);
}
