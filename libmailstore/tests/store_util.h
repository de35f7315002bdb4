// store_util.h: helpers shared by the store tests: a fresh store in a
// temporary directory that is removed afterwards, and a message generator.
#ifndef MS_STORE_UTIL_H
#define MS_STORE_UTIL_H

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mailstore.h"

static inline char *tmp_store_dir(void) {
  const char *base = getenv("TMPDIR");
  char *dir = malloc(4096);
  ck_assert_ptr_nonnull(dir);
  snprintf(dir, 4096, "%s/ms-test-XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  return dir;
}

static inline void rm_store_dir(char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char p[4200];
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
  free(dir);
}

// make_message writes a small RFC 5322 message numbered n into buf.
static inline size_t make_message(char *buf, size_t cap, unsigned n, size_t body) {
  int k = snprintf(buf, cap,
                   "From: a@example.org\r\nTo: b@example.org\r\nSubject: test %u\r\n"
                   "Message-ID: <%u@example.org>\r\n\r\n",
                   n, n);
  size_t len = (size_t)k;
  for (size_t i = 0; i < body && len + 2 < cap; i++)
    buf[len++] = (char)('a' + (n + i) % 26);
  buf[len++] = '\r';
  buf[len++] = '\n';
  return len;
}

#endif // MS_STORE_UTIL_H
