// test_tmpdirs.c: the temporary directories of the store tests
// (store_util.h) lie in one root per test program, removed when the
// program exits, also when a test failed or crashed in its forked child
// and so never ran its teardown. The program runs itself again as a child
// whose tests fail, with TMPDIR pointing at a fresh directory, and checks
// that the directory is empty afterwards.
#include "corvid_libtest.h"
#include "store_util.h"

#include <fcntl.h>
#include <sys/wait.h>

// A test that makes a store, a file in it and a subdirectory, then fails.
START_TEST(child_fails) {
  char *dir = tmp_store_dir();
  ms_store *st;
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  char p[4200];
  snprintf(p, sizeof p, "%s/sub", dir);
  ck_assert_int_eq(mkdir(p, 0700), 0);
  snprintf(p, sizeof p, "%s/sub/file", dir);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  ck_abort_msg("failing on purpose, leaving %s", dir);
}
END_TEST

// A test that makes a directory and crashes.
START_TEST(child_crashes) {
  char *dir = tmp_store_dir();
  ck_assert_ptr_nonnull(dir);
  abort();
}
END_TEST

// count_entries returns the number of entries of directory d, but "." and
// "..".
static int count_entries(const char *d) {
  DIR *dd = opendir(d);
  ck_assert_ptr_nonnull(dd);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dd)))
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(dd);
  return n;
}

START_TEST(dirs_lie_in_the_root) {
  ck_assert_str_ne(corvid_test_root, "");
  char *dir = tmp_store_dir();
  ck_assert_int_eq(strncmp(dir, corvid_test_root, strlen(corvid_test_root)), 0);
  ck_assert_int_eq(dir[strlen(corvid_test_root)], '/');
  struct stat sb;
  ck_assert_int_eq(stat(dir, &sb), 0);
  ck_assert(S_ISDIR(sb.st_mode));
  rm_store_dir(dir);
}
END_TEST

// Runs this program as `self --child` with TMPDIR set to a fresh directory
// and checks the child failed (its tests do) and left the directory empty.
START_TEST(failed_tests_leave_nothing) {
  char tmp[] = "/tmp/ms-tmpdirs-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmp));
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    setenv("TMPDIR", tmp, 1);
    // The child's TAP output would read as this program's.
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl("/proc/self/exe", "test_tmpdirs", "--child", (char *)NULL);
    _exit(127);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  int left = count_entries(tmp);
  rmdir(tmp);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_FAILURE, "child status %d",
                status);
  ck_assert_msg(left == 0, "%d entries left in %s", left, tmp);
}
END_TEST

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0) {
    Suite *s = suite_create("tmpdirs-child");
    TCase *tc = tcase_create("child");
    tcase_add_test(tc, child_fails);
    tcase_add_test(tc, child_crashes);
    suite_add_tcase(s, tc);
    return corvid_check_run(s);
  }
  Suite *s = suite_create("tmpdirs");
  TCase *tc = tcase_create("tmpdirs");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, dirs_lie_in_the_root);
  tcase_add_test(tc, failed_tests_leave_nothing);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
