// corvid_test_tmp.h: one temporary directory per test program, for the
// tests of every library. It is made before main runs, as
// $TMPDIR/NAME-XXXXXX (TMPDIR unset: /tmp; NAME is CORVID_TEST_TMP_NAME,
// defined before the include), and removed with everything in it when the
// program exits. Check runs each test in a forked child and skips the
// teardown of a test that fails, crashes or times out, so the directory
// belongs to the parent that outlives them: children, whose exit runs the
// same atexit list, never remove it. Only a program killed as a whole (the
// test runner's own timeout) can still leave it behind. Test-only, private
// and header-only.
#ifndef CORVID_TEST_TMP_H
#define CORVID_TEST_TMP_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CORVID_TEST_TMP_NAME
#define CORVID_TEST_TMP_NAME "corvid-test"
#endif

// corvid_test_root is the program's directory, or "" when it could not be
// made, $TMPDIR being too long among other reasons (tests then fail on
// their first use of it, or fall back). Short, so that tests can build
// paths under it in small buffers.
static char corvid_test_root[64];
static pid_t corvid_test_root_pid;

static int corvid_test_rm_entry(const char *path, const struct stat *sb, int flag,
                                struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

// corvid_test_root_remove removes the directory and all it holds, in the
// process that made it only.
static void corvid_test_root_remove(void) {
  if (corvid_test_root[0] && getpid() == corvid_test_root_pid) {
    nftw(corvid_test_root, corvid_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    corvid_test_root[0] = 0;
  }
}

__attribute__((constructor)) static void corvid_test_root_init(void) {
  const char *base = getenv("TMPDIR");
  snprintf(corvid_test_root, sizeof corvid_test_root, "%s/%s-XXXXXX", base && *base ? base : "/tmp",
           CORVID_TEST_TMP_NAME);
  if (!mkdtemp(corvid_test_root)) {
    corvid_test_root[0] = 0;
    return;
  }
  corvid_test_root_pid = getpid();
  atexit(corvid_test_root_remove);
}

#endif // CORVID_TEST_TMP_H
