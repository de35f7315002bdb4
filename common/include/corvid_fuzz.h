// corvid_fuzz.h: private, header-only helpers for fuzz harnesses.
// FUZZ_CHECK aborts on a broken property, which libFuzzer reports as a crash
// with the input that caused it; unlike assert() it stays on in release
// builds, where the replay tests run.
#ifndef CORVID_FUZZ_H
#define CORVID_FUZZ_H

#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      abort();                                                                                     \
  } while (0)

#endif // CORVID_FUZZ_H
