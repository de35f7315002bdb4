// keepd_harness.h: starts and stops a real keepd for the integration suites.
// The daemon listens on an ephemeral loopback port (--port 0) and writes it
// to a file in a private temporary folder, which the harness waits for; the
// suites stop it with SIGTERM and check that it exits cleanly. Suites that
// speak keep/1 below the client library find raw connections and a frame
// reader here too. Test-only and header-only.
#ifndef KEEPD_HARNESS_H
#define KEEPD_HARNESS_H

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_internal.h"

struct keepd_proc {
  pid_t pid;
  unsigned port;
  char member[64];
  char dir[64];
  char port_file[128];
};

static inline void keepd_sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

static inline uint64_t keepd_test_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int keepd_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

// keepd_median_ns sorts the `n` durations in `v` and returns the median.
// Timing checks use it rather than the maximum: on a loaded test machine
// any single wake-up can be late by the scheduler's doing, not the daemon's.
static inline uint64_t keepd_median_ns(uint64_t *v, size_t n) {
  qsort(v, n, sizeof v[0], keepd_cmp_u64);
  return v[n / 2];
}

// keepd_run_delay_ns returns how long the threads of process `pid` (0: this
// process) have waited on a run queue, runnable but not running, since they
// started: the sum of the second field of /proc/PID/task/*/schedstat. 0
// when the kernel does not keep it. Timing checks use it to tell a slow
// daemon from a starved machine (see keepd_starve_ns).
static inline uint64_t keepd_run_delay_ns(pid_t pid) {
  char path[64];
  if (pid == 0)
    snprintf(path, sizeof path, "/proc/self/task");
  else
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return 0;
  uint64_t sum = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char f[128];
    snprintf(f, sizeof f, "%s/%.16s/schedstat", path, e->d_name);
    FILE *fp = fopen(f, "r");
    if (fp == NULL)
      continue; // the thread ended meanwhile
    unsigned long long run, wait;
    if (fscanf(fp, "%llu %llu", &run, &wait) == 2)
      sum += wait;
    fclose(fp);
  }
  closedir(d);
  return sum;
}

// keepd_starve watches a time window for CPU starvation of this process
// and of up to KEEPD_STARVE_MAX daemons: a timing bound that fails while
// one of them waited long on a run queue measured the machine, not keepd.
#define KEEPD_STARVE_MAX 6
struct keepd_starve {
  int n;
  pid_t pid[KEEPD_STARVE_MAX + 1];
  uint64_t delay0[KEEPD_STARVE_MAX + 1];
  // Processes that ended and reported their own wait (keepd_starve_note).
  int num_noted;
  pid_t noted_pid[KEEPD_STARVE_MAX + 2];
  uint64_t noted[KEEPD_STARVE_MAX + 2];
};

// keepd_starve_begin starts watching this process and the `n` processes in
// `pids` (0 entries are skipped).
static inline void keepd_starve_begin(struct keepd_starve *w, const pid_t *pids, int n) {
  w->n = 0;
  w->num_noted = 0;
  w->pid[w->n] = 0;
  w->delay0[w->n++] = keepd_run_delay_ns(0);
  for (int i = 0; i < n && w->n <= KEEPD_STARVE_MAX; i++)
    if (pids[i] > 0) {
      w->pid[w->n] = pids[i];
      w->delay0[w->n++] = keepd_run_delay_ns(pids[i]);
    }
}

// keepd_starve_ns returns the longest run-queue wait, summed over its
// threads, of any watched process since keepd_starve_begin, and which one
// (`*who`: 0 this process, else the pid; may be NULL). A process that
// ended reads as not starved.
static inline uint64_t keepd_starve_ns(const struct keepd_starve *w, pid_t *who) {
  uint64_t worst = 0;
  pid_t wp = 0;
  for (int i = 0; i < w->n; i++) {
    uint64_t now = keepd_run_delay_ns(w->pid[i]);
    uint64_t d = now > w->delay0[i] ? now - w->delay0[i] : 0;
    if (d > worst) {
      worst = d;
      wp = w->pid[i];
    }
  }
  for (int i = 0; i < w->num_noted; i++)
    if (w->noted[i] > worst) {
      worst = w->noted[i];
      wp = w->noted_pid[i];
    }
  if (who != NULL)
    *who = wp;
  return worst;
}

// keepd_starve_note adds to `w` a process of the test's own (a worker, a
// proxy) that measured its run-queue wait itself over the window
// (keepd_run_delay_ns(0) at its start and end) and reported `delay_ns`
// before it ended, since an ended process can no longer be read. At most
// KEEPD_STARVE_MAX + 2; more are ignored.
static inline void keepd_starve_note(struct keepd_starve *w, pid_t pid, uint64_t delay_ns) {
  if (w->num_noted < KEEPD_STARVE_MAX + 2) {
    w->noted_pid[w->num_noted] = pid;
    w->noted[w->num_noted++] = delay_ns;
  }
}

// KEEPD_STARVED_NS: a watched process that waited this long on run queues
// within a window was starved by the machine. A timing bound that fails
// after such a window is not evidence against keepd: the check is skipped
// with a TAP note (keepd_bound_check), never passed in silence. 50 ms is
// two heartbeat ticks; every bound checked this way has more slack than
// that on a quiet machine.
#define KEEPD_STARVED_NS 50000000ull

// keepd_bound_check fails the test when `took_ns` is not below `bound_ns`,
// unless a process watched by `w` waited on run queues for at least the
// overshoot (and KEEPD_STARVED_NS), in which case it prints a TAP note
// naming the bound, the measurement and the starvation, and returns false
// (the caller may retry). Returns true when the bound held.
static inline bool keepd_bound_check(const struct keepd_starve *w, const char *what,
                                     uint64_t took_ns, uint64_t bound_ns) {
  if (took_ns < bound_ns)
    return true;
  pid_t who;
  uint64_t starved = keepd_starve_ns(w, &who);
  // Only a starvation as long as the overshoot explains it.
  uint64_t need = took_ns - bound_ns > KEEPD_STARVED_NS ? took_ns - bound_ns : KEEPD_STARVED_NS;
  ck_assert_msg(starved >= need,
                "%s: %.1f ms, bound %.1f ms (not explained by starvation: at most %.1f ms on run "
                "queues)",
                what, took_ns / 1e6, bound_ns / 1e6, starved / 1e6);
  fprintf(stderr,
          "# starved: %s took %.1f ms (bound %.1f ms) while %s %d waited %.1f ms on "
          "run queues; bound not checked this round\n",
          what, took_ns / 1e6, bound_ns / 1e6, who == 0 ? "the test" : "process", (int)who,
          starved / 1e6);
  return false;
}

// keepd_start_uid, when not 0, is the user (and group) id the next daemons
// run as: a suite running as root sets it so that nftables can tell the
// packets of one member from another's on a shared loopback (`meta skuid`).
static uid_t keepd_start_uid;

// keepd_start runs `bin` with --port 0 --lock-quarantine 0 and the NULL-ended
// `extra` arguments (which may override the quarantine) and waits up to 10 s
// for its port. Returns 0 or -1.
static inline int keepd_start(struct keepd_proc *p, const char *bin, const char *const *extra) {
  memset(p, 0, sizeof *p);
  snprintf(p->dir, sizeof p->dir, "/tmp/keepd-test-XXXXXX");
  if (mkdtemp(p->dir) == NULL)
    return -1;
  uid_t uid = keepd_start_uid;
  if (uid != 0 && chown(p->dir, uid, (gid_t)uid) != 0) {
    rmdir(p->dir);
    return -1;
  }
  snprintf(p->port_file, sizeof p->port_file, "%s/port", p->dir);
  const char *argv[40] = {bin, "--port", "0", "--port-file", p->port_file, "--lock-quarantine",
                          "0"};
  int argc = 7;
  bool tls = false; // plaintext on loopback, stated explicitly, unless given a key
  for (int i = 0; extra != NULL && extra[i] != NULL && argc < 37; i++) {
    tls |= strcmp(extra[i], "--tls-key") == 0;
    argv[argc++] = extra[i];
  }
  if (!tls)
    argv[argc++] = "--plaintext";
  argv[argc] = NULL;
  p->pid = fork();
  if (p->pid < 0)
    return -1;
  if (p->pid == 0) {
    // Another user first: changing it clears the parent-death signal.
    if (uid != 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid(uid) != 0))
      _exit(126);
    // A failed test case must not leave a daemon behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
      dup2(null, STDOUT_FILENO); // stdout carries the suite's TAP
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  for (int i = 0; i < 1000; i++) {
    FILE *f = fopen(p->port_file, "r");
    if (f != NULL) {
      int ok = fscanf(f, "%u", &p->port) == 1;
      fclose(f);
      if (ok) {
        snprintf(p->member, sizeof p->member, "127.0.0.1:%u", p->port);
        // Nothing needs the file any more: removed now, a test case that
        // fails (and never reaches keepd_stop) leaves nothing in /tmp.
        unlink(p->port_file);
        rmdir(p->dir);
        return 0;
      }
    }
    int st;
    if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
      p->pid = 0;
      return -1;
    }
    keepd_sleep_ms(10);
  }
  kill(p->pid, SIGKILL);
  waitpid(p->pid, NULL, 0);
  p->pid = 0;
  return -1;
}

// keepd_start_or_fail starts `bin` as keepd_start does and fails the test
// case if the daemon does not come up.
static inline void keepd_start_or_fail(struct keepd_proc *p, const char *bin,
                                       const char *const *extra) {
  ck_assert_int_eq(keepd_start(p, bin, extra), 0);
}

// keepd_wait_exit waits up to 10 s for the child `pid` to end, so that no
// test hangs on a daemon that does not; returns its exit status, or -1 if it
// died of a signal or had to be killed with SIGKILL.
static inline int keepd_wait_exit(pid_t pid) {
  for (int i = 0; i < 1000; i++) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    keepd_sleep_ms(10);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

// keepd_stop sends SIGTERM and waits up to 10 s; returns the exit status, or
// -1 if it had to be killed or died of a signal.
static inline int keepd_stop(struct keepd_proc *p) {
  int result = -1;
  if (p->pid > 0) {
    kill(p->pid, SIGTERM);
    result = keepd_wait_exit(p->pid);
    p->pid = 0;
  }
  unlink(p->port_file);
  rmdir(p->dir);
  return result;
}

// keepd_stop_or_fail stops `p` as keepd_stop does and fails the test case
// unless the daemon exited with status 0.
static inline void keepd_stop_or_fail(struct keepd_proc *p) {
  ck_assert_int_eq(keepd_stop(p), 0);
}

// keepd_run runs `bin` with the NULL-ended `args` (at most 14 are passed) to
// its end, for the commands that do not serve (keygen, refused start-ups):
// stdout goes to /dev/null, stderr too when `quiet`. Returns the exit status,
// -1 if it could not be started, died of a signal or ran over 10 s.
static inline int keepd_run(const char *bin, const char *const *args, bool quiet) {
  const char *argv[16] = {bin};
  int n = 1;
  for (int i = 0; args[i] != NULL && n < 15; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    if (quiet)
      dup2(null, STDERR_FILENO);
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  return keepd_wait_exit(pid);
}

// keepd_connect_loopback opens a blocking TCP connection to 127.0.0.1:`port`,
// for tests that speak to keepd below the client library. Returns the socket
// (the caller closes it) or -1.
static inline int keepd_connect_loopback(unsigned port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// keepd_raw_connect connects to `p` on loopback for a test that speaks
// keep/1 itself, and fails the test case if it cannot. A `rcvbuf` other
// than 0 caps the socket's receive buffer, before the handshake fixes the
// window scale, so that a client that does not read backs up the daemon's
// output quickly. A read waits at most `timeout_s` seconds: a missing
// answer fails the case rather than hanging it. The caller closes the
// socket.
static inline int keepd_raw_connect(const struct keepd_proc *p, int rcvbuf, int timeout_s) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  if (rcvbuf > 0)
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  struct timeval tv = {timeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// keepd_raw_send writes all `n` bytes of `p` to `fd`, failing the test
// case if the connection refuses them.
static inline void keepd_raw_send(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
    ck_assert_int_gt(k, 0);
    b += k;
    n -= (size_t)k;
  }
}

// keepd_send_frame encodes `f` and writes it to `fd`; a frame that does
// not encode fails the test case. Any size up to the largest value.
static inline void keepd_send_frame(int fd, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f), len;
  ck_assert_uint_gt(need, 0);
  uint8_t *buf = malloc(need);
  ck_assert_ptr_nonnull(buf);
  ck_assert_int_eq(keep_frame_encode(buf, need, &len, f), 0);
  keepd_raw_send(fd, buf, len);
  free(buf);
}

// keepd_reader buffers what a raw connection received until it makes whole
// frames; large enough for frames with the biggest values.
struct keepd_reader {
  uint8_t *buf;
  size_t cap, len, consumed;
};

// keepd_reader_new returns an empty reader (keepd_reader_free frees it).
static inline struct keepd_reader *keepd_reader_new(void) {
  struct keepd_reader *r = calloc(1, sizeof *r);
  ck_assert_ptr_nonnull(r);
  r->cap = 2 * KEEP_MAX_VALUE_HARD;
  r->buf = malloc(r->cap);
  ck_assert_ptr_nonnull(r->buf);
  return r;
}

static inline void keepd_reader_free(struct keepd_reader *r) {
  free(r->buf);
  free(r);
}

// keepd_read_frame_quiet returns 1 with the next frame of `fd` (pointing
// into `r`, valid until the next call), 0 at end of stream, -1 for bytes
// that are not a frame or a timeout. Unread bytes move to the front only
// when more must be received. It asserts nothing: in fork mode each Check
// assertion writes to a pipe, which loops over many thousands of frames
// cannot afford.
static inline int keepd_read_frame_quiet(int fd, struct keepd_reader *r, keep_frame *f) {
  for (;;) {
    size_t used;
    int rc = keep_frame_decode(f, &used, r->buf + r->consumed, r->len - r->consumed, 0);
    if (rc < 0)
      return -1;
    if (rc == 1) {
      r->consumed += used;
      return 1;
    }
    memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
    r->len -= r->consumed;
    r->consumed = 0;
    ssize_t n = recv(fd, r->buf + r->len, r->cap - r->len, 0);
    if (n <= 0)
      return n == 0 ? 0 : -1;
    r->len += (size_t)n;
  }
}

// keepd_read_frame is keepd_read_frame_quiet that fails the test case on a
// malformed frame or a timeout: returns 1 with a frame, 0 at end of stream.
static inline int keepd_read_frame(int fd, struct keepd_reader *r, keep_frame *f) {
  int rc = keepd_read_frame_quiet(fd, r, f);
  ck_assert_msg(rc >= 0, "no answer or a malformed one: %s", strerror(errno));
  return rc;
}

// keepd_write_file replaces the file at `path` with `text` (a configuration
// file, say), failing the test case if it cannot.
static inline void keepd_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_ge(fputs(text, f), 0);
  ck_assert_int_eq(fclose(f), 0);
}

// keepd_next_event_of_kind waits up to 5 s for an event of `kind` on the
// subscriber `c`, skipping the others (heartbeats, say), and fails the
// test if none comes.
static inline void keepd_next_event_of_kind(keep_client *c, keep_event *ev, int kind) {
  uint64_t t0 = keepd_test_now_ns();
  for (;;) {
    ck_assert_msg(keepd_test_now_ns() - t0 < 5000000000ull, "no event of kind %d", kind);
    int rc = keep_next_event(c, ev, 100);
    ck_assert_int_ge(rc, 0);
    if (rc == 1 && ev->kind == kind)
      return;
  }
}

// keepd_suite_main ends the main of an integration program, whose argv[1]
// is the keepd to test: it stores that path in `*bin` and runs the test
// case `tc` as the suite `suite` with TAP output, returning the exit
// status; without argv[1] it prints the usage and returns 2.
static inline int keepd_suite_main(int argc, char **argv, const char **bin, const char *suite,
                                   TCase *tc) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PATH-TO-KEEPD\n", argv[0]);
    return 2;
  }
  *bin = argv[1];
  Suite *s = suite_create(suite);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}

// keepd_served_suite_main is keepd_suite_main for programs whose tests
// share one keepd: it starts argv[1] with `extra` (as keepd_start) into
// *server, runs `tc` as the suite `suite`, stops the daemon, and fails the
// run if keepd did not exit cleanly.
static inline int keepd_served_suite_main(int argc, char **argv, struct keepd_proc *server,
                                          const char *const *extra, const char *suite, TCase *tc) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PATH-TO-KEEPD\n", argv[0]);
    return 2;
  }
  if (keepd_start(server, argv[1], extra) < 0) {
    printf("1..0 # cannot start %s\n", argv[1]);
    return 1;
  }
  Suite *s = suite_create(suite);
  suite_add_tcase(s, tc);
  int rc = corvid_check_run(s);
  int st = keepd_stop(server);
  if (st != 0) {
    fprintf(stderr, "keepd exited with status %d\n", st);
    rc = EXIT_FAILURE;
  }
  return rc;
}

#endif // KEEPD_HARNESS_H
