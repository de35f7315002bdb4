// wipe.c: erasing secrets so that the compiler cannot prove the stores dead.
#include <string.h>

#include "msgcrypt_internal.h"

void mc_wipe(void *p, size_t len) {
  if (p == NULL || len == 0)
    return;
  memset(p, 0, len);
  // The barrier tells the compiler that the zeroed memory may be read, so the
  // memset above stays (the technique of BoringSSL's OPENSSL_cleanse).
  __asm__ volatile("" : : "r"(p) : "memory");
}
