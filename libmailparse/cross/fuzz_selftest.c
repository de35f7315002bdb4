// fuzz_selftest.c: a driver for the fuzz harnesses that needs neither
// libFuzzer nor a corpus: it feeds a harness many deterministic
// pseudo-random inputs built from what the message scanner looks for (line
// ends of every style, "--" and boundary lines, header names and colons,
// folding whitespace, NUL and 8-bit bytes) plus random bytes, at lengths
// that cross every block width. The aarch64 tests use it under
// qemu-aarch64, where fuzz_scan checks NEON and SWAR against scalar.
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
  static const char *const pieces[] = {"\r\n",
                                       "\n",
                                       "\r",
                                       "--",
                                       "-",
                                       ":",
                                       " ",
                                       "\t",
                                       "\n--",
                                       "\r\n--b\r\n",
                                       "\n--b--\n",
                                       "Subject: hello\r\n",
                                       " folded\r\n",
                                       "\tfolded\n",
                                       "To: \xc3\xa9\n",
                                       "no colon\n",
                                       "Content-Type: multipart/mixed; boundary=b\r\n",
                                       "Content-Type: message/rfc822\n",
                                       "\r\n\r\n",
                                       "\n\n",
                                       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                       "\x80",
                                       "\xff"};
  long iterations = argc > 1 ? atol(argv[1]) : 3000;
  uint8_t *buf = malloc(5000);
  if (buf == NULL)
    return 1;
  for (long it = 0; it < iterations; it++) {
    size_t want = (size_t)(next() % (it < iterations / 2 ? 200 : 4000));
    size_t n = 0;
    int mode = (int)(next() % 3);
    while (n < want) {
      if (mode == 0 || next() % 8 == 0) {
        buf[n++] = (uint8_t)next();
      } else {
        const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
        size_t pl = strlen(p);
        if (pl > want - n)
          pl = want - n;
        memcpy(buf + n, p, pl);
        n += pl;
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
  printf("ok %ld inputs\n", iterations);
  return 0;
}
