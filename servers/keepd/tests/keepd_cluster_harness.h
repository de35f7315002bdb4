// keepd_cluster_harness.h: a three-member keepd cluster on loopback for the
// cluster suites: free TCP and UDP ports per member, the member list on
// every command line, clients in cluster mode or tied to one member, and
// helpers that find keys by owner with the same placement function the
// daemons use. Test-only and header-only; the including suite sets
// keepd_bin from argv[1].
#ifndef KEEPD_CLUSTER_HARNESS_H
#define KEEPD_CLUSTER_HARNESS_H

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "corvid_test_asan.h"
#include "keep.h"
#include "keep_internal.h"
#include "keepd_harness.h"

static const char *keepd_bin;
// cluster_max_lease is the --max-lease every member gets (ms).
static const char *cluster_max_lease = "500";
// cluster_tls_key, when a suite sets it, is the cluster key file: members
// run mutual TLS (their handoff too) and clients hold the cluster key.
// NULL: plaintext on loopback.
static const char *cluster_tls_key;

// cluster_io_timeout_ms is the clients' I/O timeout. The fault suite keeps
// 500 ms, so that a cut-off member shows as an unknown outcome soon (its
// checkers allow for those); suites whose checks want every answer raise
// it, since a starved member can take longer than that to answer on a
// loaded CI runner, and a timed-out INCR cannot be retried.
static unsigned cluster_io_timeout_ms = 500;

// N is the members of the CI suites; cluster_n (at most MAX_N) is what
// cluster_start() starts, N unless a long run asks for more.
#define N 3
#define MAX_N 5
static const uint16_t ids[MAX_N] = {11, 22, 33, 44, 55};
static unsigned cluster_n = N;
static const uint8_t secret[KEEP_SECRET_LEN] = {1, 2,  3,  4,  5,  6,  7,  8,
                                                9, 10, 11, 12, 13, 14, 15, 16};
#define SECRET_HEX "0102030405060708090a0b0c0d0e0f10"

struct cluster {
  struct keepd_proc p[MAX_N];
  unsigned port[MAX_N], udp[MAX_N];
  char addr[MAX_N][32];
  const char *addrs[MAX_N];
};

static inline unsigned free_port(int type) {
  int fd = socket(AF_INET, type, 0);
  ck_assert_int_ge(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  close(fd);
  return ntohs(a.sin_port);
}

// faketime_usable says whether a member may run under libfaketime
// (LD_PRELOAD) for a fast clock. Not in sanitizer builds: ASan's runtime
// intercepts clock_gettime as well, and the two interposers race while they
// initialise (libfaketime's "unexpected recursive calls to clock_gettime"):
// seen as a member dying at start and as a member spinning forever in the
// leak check at exit. The gcc build runs the fast-clock cases.
static inline bool faketime_usable(void) {
  return !CORVID_UNDER_ASAN;
}

static inline void start_member(struct cluster *cl, int i, const char *quarantine) {
  char member[MAX_N][64], self[8];
  const char *extra[32];
  int n = 0;
  for (unsigned j = 0; j < cluster_n; j++) {
    snprintf(member[j], sizeof member[j], "%u@127.0.0.1:%u/%u", ids[j], cl->port[j], cl->udp[j]);
    extra[n++] = "--member";
    extra[n++] = member[j];
  }
  snprintf(self, sizeof self, "%u", ids[i]);
  const char *rest[] = {"--self",
                        self,
                        "--secret",
                        SECRET_HEX,
                        "--max-lease",
                        cluster_max_lease,
                        "--lock-quarantine",
                        quarantine,
                        "--shards",
                        "1",
                        NULL};
  for (int k = 0; rest[k] != NULL; k++)
    extra[n++] = rest[k];
  if (cluster_tls_key != NULL) {
    extra[n++] = "--tls-key";
    extra[n++] = cluster_tls_key;
  }
  extra[n] = NULL;
  struct keepd_proc p; // a local: gcc 12 -Wrestrict misreads &cl->p[i]
  ck_assert_int_eq(keepd_start(&p, keepd_bin, extra), 0);
  cl->p[i] = p;
  ck_assert_uint_eq(cl->p[i].port, cl->port[i]);
}

static inline keep_client *client_for(struct cluster *cl, const char *const *addrs,
                                      const uint16_t *mids, size_t n) {
  keep_settings s = {.members = addrs,
                     .num_members = n,
                     .secret = secret,
                     .member_ids = mids,
                     .io_timeout_ms = cluster_io_timeout_ms,
                     .connect_timeout_ms = 500};
  keep_tls_settings tls = {.key_file = cluster_tls_key};
  if (cluster_tls_key != NULL)
    s.tls = &tls;
  (void)cl;
  keep_client *c;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  return c;
}

// single connects to one member without cluster mode: MOVED comes back as
// KEEP_ERR_MOVED, BUSY as KEEP_ERR_BUSY.
static inline keep_client *single(struct cluster *cl, int i) {
  const char *a[1] = {cl->addrs[i]};
  return client_for(cl, a, NULL, 1);
}

static inline int owner_of(const char *key, uint64_t alive) {
  uint32_t slot = keep_slot(secret, key, strlen(key));
  return keep_slot_owner(secret, slot, ids, cluster_n, alive);
}

// key_owned finds a key whose owner is `want` with every member live and
// `then` once `gone` is not (then < 0: any).
static inline void key_owned(char *out, size_t cap, const char *prefix, int want, int gone,
                             int then) {
  for (int i = 0; i < 100000; i++) {
    snprintf(out, cap, "%s-%d", prefix, i);
    uint64_t all = (1u << cluster_n) - 1;
    if (owner_of(out, all) != want)
      continue;
    if (then >= 0 && owner_of(out, all & ~(1u << gone)) != then)
      continue;
    return;
  }
  ck_abort_msg("no key found");
}

// KEEPD_RETRY_NS bounds the retry loops of the cluster suites. Retrying
// waits for liveness (a slot taken over, a pull ended), which takes a few
// hundred ms on a quiet machine; the bound only keeps a broken member from
// hanging the suite, so it is generous: a starved 2-core CI runner may
// need seconds.
#define KEEPD_RETRY_NS 10000000000ull

// keepd_not_executed says whether a member answered without executing the
// request, which the client may send again: BUSY (slot not confirmed, a
// pull under way, a stalled heartbeat thread) or MOVED (not the owner yet).
static inline bool keepd_not_executed(int rc) {
  return rc == KEEP_ERR_BUSY || rc == KEEP_ERR_MOVED;
}

// KEEPD_RETRY(rc, expr, again) evaluates `expr` into `rc` and again every
// 10 ms while the condition `again` (over rc) holds, for at most
// KEEPD_RETRY_NS, after which the test fails naming `expr` and the answer.
// The one retry loop of the suites: what to retry is the caller's (BUSY,
// NOT_YET, ...); what must come out is checked after it.
#define KEEPD_RETRY(rc, expr, again)                                                               \
  do {                                                                                             \
    uint64_t t0_ = keepd_test_now_ns();                                                            \
    while (((rc) = (expr)), (again)) {                                                             \
      ck_assert_msg(keepd_test_now_ns() - t0_ < KEEPD_RETRY_NS, "%s: still %s after %.1f s",       \
                    #expr, keep_strerror(rc), (keepd_test_now_ns() - t0_) / 1e9);                  \
      keepd_sleep_ms(10);                                                                          \
    }                                                                                              \
  } while (0)

// KEEPD_RETRY_OK retries `expr` while it is not executed (BUSY, MOVED) and
// fails the test unless it then succeeds.
#define KEEPD_RETRY_OK(expr)                                                                       \
  do {                                                                                             \
    int rc_;                                                                                       \
    KEEPD_RETRY(rc_, expr, keepd_not_executed(rc_));                                               \
    ck_assert_msg(rc_ == 0, "%s: %s", #expr, keep_strerror(rc_));                                  \
  } while (0)

// cluster_pids fills `out` with the pids of the running members (0 for
// the others) for keepd_starve_begin; returns cluster_n.
static inline int cluster_pids(const struct cluster *cl, pid_t *out) {
  for (unsigned i = 0; i < cluster_n; i++)
    out[i] = cl->p[i].pid;
  return (int)cluster_n;
}

// member_epoch returns member `i`'s view epoch (keep_view_epoch), asked on
// a connection of its own; 0 when it is not running. The epoch grows by
// one for each member that entered or left the member's live set, so a
// check that finds keys lost can ask whether some member was declared
// dead meanwhile. A timeout (a starved member) is retried, within
// KEEPD_RETRY_NS.
static inline uint64_t member_epoch(struct cluster *cl, int i) {
  if (cl->p[i].pid <= 0)
    return 0;
  keep_client *one = single(cl, i);
  uint64_t e = 0;
  int rc;
  KEEPD_RETRY(rc, keep_view_epoch(one, &e, 0), rc == KEEP_ERR_TIMEOUT || rc == KEEP_ERR_CLOSED);
  ck_assert_msg(rc == 0, "member %d's view epoch: %s", i, keep_strerror(rc));
  keep_client_free(one);
  return e;
}

// wait_ready waits until every member serves keys of its own slots.
static inline void wait_ready(keep_client *c) {
  for (int m = 0; m < (int)cluster_n; m++) {
    char key[64];
    key_owned(key, sizeof key, "ready", m, 0, -1);
    int rc;
    KEEPD_RETRY(rc, keep_set(c, key, strlen(key), "x", 1, 0), rc != 0);
  }
}

static inline void cluster_start(struct cluster *cl, const char *quarantine) {
  memset(cl, 0, sizeof *cl);
  for (int i = 0; i < (int)cluster_n; i++) {
    cl->port[i] = free_port(SOCK_STREAM);
    cl->udp[i] = free_port(SOCK_DGRAM);
    snprintf(cl->addr[i], sizeof cl->addr[i], "127.0.0.1:%u", cl->port[i]);
    cl->addrs[i] = cl->addr[i];
  }
  for (int i = 0; i < (int)cluster_n; i++)
    start_member(cl, i, quarantine);
}

static inline void cluster_stop(struct cluster *cl) {
  for (int i = 0; i < MAX_N; i++)
    if (cl->p[i].pid > 0) {
      kill(cl->p[i].pid, SIGCONT);
      ck_assert_int_eq(keepd_stop(&cl->p[i]), 0);
    }
}

static inline void kill9(struct keepd_proc *p) {
  kill(p->pid, SIGKILL);
  waitpid(p->pid, NULL, 0);
  p->pid = 0;
  unlink(p->port_file);
  rmdir(p->dir);
}

#endif // KEEPD_CLUSTER_HARNESS_H
