// run_impl.c: runs a test program with MAILPARSE_IMPL set to one
// implementation, so that the parser suites run once per kernel
// (CONVENTIONS §10); when this CPU lacks that implementation it reports the
// run as skipped in TAP instead, since the suites themselves expect parsing
// to work.
// usage: run_impl IMPL PROGRAM [ARG...]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mailparse.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: run_impl IMPL PROGRAM [ARG...]\n");
    return 2;
  }
  int known = 0, sup = 0;
  for (size_t i = 0; i < mp_impl_count(); i++)
    if (strcmp(mp_impl_get(i, &sup), argv[1]) == 0) {
      known = 1;
      break;
    }
  if (!known) {
    printf("Bail out! no implementation %s in this build\n", argv[1]);
    return 1;
  }
  if (!sup) {
    printf("1..0 # SKIP implementation %s not supported here\n", argv[1]);
    return 0;
  }
  if (setenv("MAILPARSE_IMPL", argv[1], 1) != 0) {
    perror("setenv");
    return 1;
  }
  execv(argv[2], argv + 2);
  perror(argv[2]);
  return 1;
}
