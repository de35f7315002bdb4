// fts_test_tmp.h: one temporary directory per test program, made before the
// Check runner forks its tests and removed with everything in it when the
// runner returns, whether the tests passed or failed (a failing test's
// child exits early, so a test cannot clean up after itself). Test-only,
// private and header-only.
#ifndef FTS_TEST_TMP_H
#define FTS_TEST_TMP_H
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"

// The directory of this test program; tests make their files inside it.
static char fts_tmp_dir[64];
static int fts_tmp_failed;

static int fts_tmp_remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  if (remove(path) != 0) {
    perror(path);
    fts_tmp_failed = 1;
  }
  return 0;
}

// fts_tmp_remove_tree removes `dir` and everything below it (depth first,
// without following symbolic links); 0 on success.
static inline int fts_tmp_remove_tree(const char *dir) {
  fts_tmp_failed = 0;
  return nftw(dir, fts_tmp_remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 || fts_tmp_failed ? -1 : 0;
}

// fts_tmp_run makes fts_tmp_dir from `template` ("/tmp/NAME-XXXXXX"), runs
// `s` as corvid_check_run does, removes the directory, and returns the
// process exit status (failure also when the directory cannot be made or
// removed, so that a leak shows).
static inline int fts_tmp_run(Suite *s, const char *template) {
  if (strlen(template) >= sizeof fts_tmp_dir) {
    fprintf(stderr, "temporary directory template too long\n");
    return EXIT_FAILURE;
  }
  strcpy(fts_tmp_dir, template);
  if (!mkdtemp(fts_tmp_dir)) {
    perror(template);
    return EXIT_FAILURE;
  }
  int rc = corvid_check_run(s);
  if (fts_tmp_remove_tree(fts_tmp_dir) != 0) {
    perror(fts_tmp_dir);
    rc = EXIT_FAILURE;
  }
  return rc;
}

#endif // FTS_TEST_TMP_H
