// fuzz_selftest.c: a driver for the fuzz harnesses that needs neither
// libFuzzer nor a corpus: it feeds a harness many deterministic
// pseudo-random inputs built from the characters its codec cares about
// (alphabets, padding, line breaks, `=`, spaces, `&`, UTF-8) plus random
// bytes, at lengths that cross every vector width. The aarch64 tests use it
// under qemu-aarch64, where each harness checks NEON and SWAR against scalar.
// usage: fuzz_selftest [ITERATIONS]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t state = 0x2545F4914F6CDD1Du;

static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

int main(int argc, char **argv) {
  static const char *const pieces[] = {"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                       "abcdefghijklmnopqrstuvwxyz",
                                       "0123456789",
                                       "+/",
                                       "-_",
                                       "=",
                                       "==",
                                       "\r\n",
                                       "\n",
                                       " ",
                                       "\t",
                                       "=3D",
                                       "=c3=a9",
                                       "=\r\n",
                                       "&",
                                       "&-",
                                       "&AOk-",
                                       ",",
                                       "\xc3\xa9",
                                       "\xf0\x9f\x98\x80",
                                       "\x80",
                                       "\xff",
                                       "234567",
                                       "AAAAAAAAAAAAAAAA"};
  long iterations = argc > 1 ? atol(argv[1]) : 3000;
  uint8_t *buf = malloc(5000);
  if (buf == NULL)
    return 1;
  for (long it = 0; it < iterations; it++) {
    size_t want = (size_t)(next() % (it < iterations / 2 ? 200 : 4000));
    size_t n = 0;
    int mode = (int)(next() % 3);
    while (n < want) {
      if (n < 3 || mode == 0 || next() % 8 == 0) {
        buf[n++] = (uint8_t)next();
      } else if (mode == 1) { // long runs of one piece: the vector paths
        const char *p = pieces[next() % 3];
        size_t l = strlen(p);
        for (size_t k = 0; k < l && n < want; k++)
          buf[n++] = (uint8_t)p[(k + it) % l];
      } else {
        const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
        size_t l = strlen(p);
        size_t start = (size_t)(next() % l), len = 1 + (size_t)(next() % l);
        for (size_t k = 0; k < len && n < want; k++)
          buf[n++] = (uint8_t)p[(start + k) % l];
      }
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (exact == NULL)
      return 1;
    memcpy(exact, buf, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
  }
  free(buf);
  printf("%ld inputs\n", iterations);
  return 0;
}
