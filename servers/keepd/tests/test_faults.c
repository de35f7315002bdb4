// test_faults.c: cluster fault tests in a private network namespace (the
// suite unshares one at start, so it is gone with the suite's processes even
// when a test crashes) where nftables drops traffic between three real
// keepd members on its loopback. Workers in cluster mode run while member 2
// is cut off symmetrically, cut off one way (its packets are lost, it still
// hears the others), stopped with SIGSTOP and resumed, leaves cleanly (its
// keys handed over), loses a third of its incoming packets at random (with
// a clock 1% fast, through libfaketime, outside sanitizer builds), or
// receives its heartbeats through a proxy of the suite's own that delays,
// duplicates and so reorders them, and its client connections through one
// that delays them (keepd_proxy.h; the kernel has no tc netem).
// Three lock workers each take one lock (whose slot belongs to member 2, so
// it moves), do an unsynchronised read-modify-write of a value inside it,
// and increment their own counter (whose slot stays put). Two register
// workers read and write registers and increment a shared counter (on
// member 2 in the leave scenario, so they move by handoff; elsewhere they
// stay put), and one of them publishes to a topic a subscriber process
// follows. Every operation is recorded in shared memory with its start and
// end on CLOCK_MONOTONIC_RAW, shared by all processes, and the checkers
// verify afterwards: no two workers' critical sections overlap (an interval
// sweep), no read-modify-write was lost (the value equals the committed
// writes), no increment was lost or doubled, every register's history is
// linearizable (keepd_lincheck.h), and every event lost on the way to the
// subscriber is reported as a sequence gap. A data check that finds a key
// or an update lost is excused only when member 0's or 1's view epoch
// (keep_view_epoch) grew more than the fault explains: a member starved
// into being declared dead, whose keys the guarantees let go.
#include <dirent.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "corvid_libtest.h"
#include "keepd_cluster_harness.h"
#include "keepd_lincheck.h"
#include "keepd_proxy.h"

enum {
  OP_HOLD = 1,
  OP_INCR = 2,
  OP_READ = 3,   // a register read: value 0 for absent
  OP_WRITE = 4,  // a register write of `value`
  OP_PUB = 5,    // a publish of payload `value`, aux = receivers
  OP_SUB = 6,    // a subscription made (end: its answer)
  OP_EVENT = 7,  // an event: value = payload, aux = seq, rc = missed
  OP_BEAT = 8,   // a heartbeat: aux = seq, rc = missed
  OP_CLOSED = 9, // the subscription ended with its connection
};

struct rec {
  uint8_t worker, op;
  uint16_t key;   // READ/WRITE: the register's index
  int32_t rc;     // HOLD: 1 committed, 0 not written, -1 outcome unknown
  uint64_t start; // HOLD: lock answer received; INCR: request start
  uint64_t end;   // HOLD: write answered (end of critical section)
  int64_t value;
  uint64_t aux;
};

#define MAX_RECS 200000
#define WORKERS 3

struct shared {
  _Atomic uint32_t n;
  // run_delay: how long each worker process waited on run queues during
  // the scenario (keepd_run_delay_ns), written as it ends: a starved
  // machine explains too little progress, nothing else.
  uint64_t run_delay[WORKERS + 3];
  // pcfg: the proxy's configuration, whose window the suite moves when
  // the setup ran late; proxy: what the proxy did, written as it ends.
  struct proxy_cfg pcfg;
  struct proxy_stats proxy;
  struct rec r[MAX_RECS];
};

static struct shared *sh;

static void record(struct rec r) {
  uint32_t i = atomic_fetch_add(&sh->n, 1);
  if (i < MAX_RECS)
    sh->r[i] = r;
}

static char lock_key[64], rmw_key[64], ctr_key[WORKERS][64];

// LEASE_MS is the workers' lease and every member's longest lease; the
// quarantine is that plus the quorum window and the margin, as keepd picks
// it by default.
#define LEASE_MS 400
#define LEASE_STR "400"
#define QUARANTINE_STR "2400"

// Register workers: reads and writes of registers (one key per 200 ms
// epoch, so each key's history stays far under LIN_MAX_OPS), increments of
// one shared counter, and (the first) publishes; worker ids after WORKERS.
// One subscriber process follows the topic.
#define REG_WORKERS 2
#define REG_KEYS 64
#define REG_EPOCH_NS 200000000ull
#define SUBSCRIBER (WORKERS + REG_WORKERS)
static char reg_key[REG_KEYS][64], mv_ctr_key[64], topic[64];
static uint64_t reg_t0;

static bool unknown_outcome(int rc) {
  return rc == KEEP_ERR_TIMEOUT || rc == KEEP_ERR_CLOSED;
}

// Views. The data keys (the read-modify-write value, the counters, the
// registers outside the leave scenario, the topic) live on members 0 and
// 1 and stay there unless a member's view drops one of them: the faults
// touch member 2 only. A member wrongly declared dead (starved of CPU
// for 225 ms on a loaded machine) loses its slots and their keys, which
// the guarantees allow (docs/keep-guarantees.md, "Not guaranteed"); keepd
// counts such changes in its view epoch. views_cl is the scenario's
// cluster, view_base members 0 and 1's epochs when the workers started,
// view_fault how much the fault itself moves each (member 2 out and back:
// 2; its clean leave: 1; drops and the proxy: 0), views_sw the starvation
// watch of the members and the test.
static struct cluster *views_cl;
static uint64_t view_base[2];
static uint64_t view_fault;
static const struct keepd_starve *views_sw;

// views_moved decides whether the data check `what`, which found a key or
// an update lost, is excused: only when member 0's or 1's view changed
// more than the fault explains (read now, after the loss, so the change
// that caused it is counted) and some process waited on run queues for
// KEEPD_STARVED_NS or more, which is what declares a live member dead.
// Then it prints a `# starved:` note and returns true; the caller still
// checks that nothing was invented. False: the loss is a failure.
static int views_verdict = -1; // -1: not asked yet in this scenario

static bool views_moved(const char *what) {
  if (views_verdict >= 0) {
    if (views_verdict)
      fprintf(stderr, "# starved: %s: excused as above (views changed)\n", what);
    return views_verdict;
  }
  uint64_t extra = 0;
  int who = -1;
  uint64_t now_e[2];
  for (int m = 0; m < 2; m++) {
    now_e[m] = member_epoch(views_cl, m);
    uint64_t d = now_e[m] > view_base[m] ? now_e[m] - view_base[m] : 0;
    if (d > view_fault && d - view_fault > extra) {
      extra = d - view_fault;
      who = m;
    }
  }
  // The members, the test and (noted as they ended) its workers.
  uint64_t starved = keepd_starve_ns(views_sw, NULL);
  if (extra == 0 || starved < KEEPD_STARVED_NS) {
    fprintf(stderr,
            "# views: %s: member 0's epoch %llu -> %llu, member 1's %llu -> %llu, the fault "
            "explains %llu each; %.1f ms on run queues at most\n",
            what, (unsigned long long)view_base[0], (unsigned long long)now_e[0],
            (unsigned long long)view_base[1], (unsigned long long)now_e[1],
            (unsigned long long)view_fault, starved / 1e6);
    views_verdict = 0;
    return false;
  }
  views_verdict = 1;
  fprintf(stderr,
          "# starved: %s: member %d's view changed %llu more times than the fault explains "
          "(epoch %llu -> %llu) while a process waited %.1f ms on run queues: a member was "
          "declared dead and its keys may move and be lost (allowed); only checked that "
          "nothing was invented\n",
          what, who, (unsigned long long)extra, (unsigned long long)view_base[who],
          (unsigned long long)now_e[who], starved / 1e6);
  return true;
}

static void reg_worker(struct cluster *cl, int r, uint64_t until) {
  keep_client *c = client_for(cl, cl->addrs, ids, cluster_n);
  uint64_t rnd = 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1) ^ (uint64_t)getpid();
  int64_t writes = 0, pubs = 0;
  uint8_t id = (uint8_t)(WORKERS + r);
  while (keepd_test_now_ns() < until) {
    rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t t0 = keepd_test_now_ns();
    uint16_t k = (uint16_t)((t0 - reg_t0) / REG_EPOCH_NS % REG_KEYS);
    char buf[32];
    size_t len;
    if (rnd >> 63) {
      int64_t v = (int64_t)(r + 1) << 32 | ++writes; // unique, nonzero
      len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)v);
      int rc = keep_set(c, reg_key[k], strlen(reg_key[k]), buf, len, 0);
      record((struct rec){id, OP_WRITE, k, rc, t0, keepd_test_now_ns(), v, 0});
    } else {
      int rc = keep_get(c, buf, sizeof buf - 1, &len, reg_key[k], strlen(reg_key[k]));
      int64_t v = 0;
      if (rc == 0) {
        buf[len] = '\0';
        v = strtoll(buf, NULL, 10);
      }
      record((struct rec){id, OP_READ, k, rc, t0, keepd_test_now_ns(), v, 0});
    }
    int64_t v = 0;
    t0 = keepd_test_now_ns();
    int rc = keep_incr(c, &v, mv_ctr_key, strlen(mv_ctr_key), 1, 0);
    record((struct rec){id, OP_INCR, 0, rc, t0, keepd_test_now_ns(), v, 0});
    if (r == 0) {
      size_t receivers = 0;
      len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)++pubs);
      t0 = keepd_test_now_ns();
      rc = keep_publish(c, &receivers, topic, strlen(topic), buf, len);
      record((struct rec){id, OP_PUB, 0, rc, t0, keepd_test_now_ns(), pubs, receivers});
    }
    keepd_sleep_ms(1);
  }
  keep_client_free(c);
}

// subscriber follows the topic until `until` and records every event and
// heartbeat with the client's own gap count. The client makes the
// subscription again by itself when its connection ends or the topic moves
// (KEEP_EVENT_RESUBSCRIBED): recorded as the end of one subscription and
// the start of the next, at the sequence number the client reports.
static void subscriber(struct cluster *cl, uint64_t until) {
  keep_client *c = client_for(cl, cl->addrs, ids, cluster_n);
  bool subscribed = false;
  while (keepd_test_now_ns() < until) {
    if (!subscribed) {
      uint64_t t0 = keepd_test_now_ns();
      int rc = keep_subscribe(c, topic, strlen(topic));
      if (rc != 0) {
        keepd_sleep_ms(10);
        continue;
      }
      record((struct rec){SUBSCRIBER, OP_SUB, 0, 0, t0, keepd_test_now_ns(), 0, 0});
      subscribed = true;
    }
    keep_event ev;
    int rc = keep_next_event(c, &ev, 100);
    uint64_t now = keepd_test_now_ns();
    if (rc < 0) {
      record((struct rec){SUBSCRIBER, OP_CLOSED, 0, rc, now, now, 0, 0});
      subscribed = false;
      continue;
    }
    if (rc == 0)
      continue;
    if (ev.kind == KEEP_EVENT_RESUBSCRIBED) {
      record((struct rec){SUBSCRIBER, OP_CLOSED, 0, 0, now, now, 0, 0});
      record((struct rec){SUBSCRIBER, OP_SUB, 0, 0, now, now, 0, ev.seq});
      continue;
    }
    int64_t payload = 0;
    if (ev.kind == KEEP_EVENT_MESSAGE) {
      char buf[32];
      size_t len = ev.payload_len < sizeof buf - 1 ? ev.payload_len : sizeof buf - 1;
      memcpy(buf, ev.payload, len);
      buf[len] = '\0';
      payload = strtoll(buf, NULL, 10);
    }
    record((struct rec){SUBSCRIBER, ev.kind == KEEP_EVENT_MESSAGE ? OP_EVENT : OP_BEAT, 0,
                        (int32_t)ev.missed, now, now, payload, ev.seq});
  }
  keep_client_free(c);
}

static void worker(struct cluster *cl, int w, uint64_t until) {
  keep_client *c = client_for(cl, cl->addrs, ids, cluster_n);
  char holder[24];
  unsigned holds = 0;
  while (keepd_test_now_ns() < until) {
    // A holder id per attempt: an UNLOCK that timed out may still reach the
    // member later (TCP retransmits it once a partition heals) and must not
    // release a later hold of the same worker (keep.h, keep_unlock).
    snprintf(holder, sizeof holder, "w%d.%u", w, holds++);
    uint64_t dl;
    int rc = keep_lock(c, &dl, lock_key, strlen(lock_key), holder, strlen(holder), LEASE_MS);
    if (getenv("KEEPD_FAULTS_DEBUG") != NULL)
      fprintf(stderr, "# w%d lock %s\n", w, keep_strerror(rc));
    if (rc == 0) {
      uint64_t t1 = keepd_test_now_ns();
      char buf[32];
      size_t len;
      int64_t v = 0;
      int g = keep_get(c, buf, sizeof buf - 1, &len, rmw_key, strlen(rmw_key));
      if (g == 0) {
        buf[len] = '\0';
        v = strtoll(buf, NULL, 10);
      }
      // Use the lease almost to its end: the hold overlaps the moment the
      // cluster moves the slot (225 ms after a member goes silent), which is
      // where a double grant would hide. The write goes out 30 ms before
      // the deadline.
      uint64_t now = keepd_test_now_ns();
      if (now + 30000000u < dl)
        keepd_sleep_ms((unsigned)((dl - 30000000u - now) / 1000000u));
      int committed = 0;
      if ((g == 0 || g == KEEP_ERR_NOT_FOUND) && keepd_test_now_ns() < dl) {
        len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)(v + 1));
        int s = keep_set(c, rmw_key, strlen(rmw_key), buf, len, 0);
        committed = s == 0 ? 1 : (s == KEEP_ERR_TIMEOUT || s == KEEP_ERR_CLOSED) ? -1 : 0;
      }
      uint64_t t2 = keepd_test_now_ns();
      record((struct rec){(uint8_t)w, OP_HOLD, 0, committed, t1, t2, v, dl});
      int u = keep_unlock(c, lock_key, strlen(lock_key), holder, strlen(holder));
      if (getenv("KEEPD_FAULTS_DEBUG") != NULL)
        fprintf(stderr, "# w%d unlock %s at %llu\n", w, keep_strerror(u),
                (unsigned long long)keepd_test_now_ns());
    }
    int64_t v = 0;
    uint64_t t0 = keepd_test_now_ns();
    rc = keep_incr(c, &v, ctr_key[w], strlen(ctr_key[w]), 1, 0);
    record((struct rec){(uint8_t)w, OP_INCR, 0, rc, t0, keepd_test_now_ns(), v, 0});
    keepd_sleep_ms(2);
  }
  keep_client_free(c);
}

static void nft(const char *rule) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "nft %s", rule);
  ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

enum fault { SYMMETRIC, ONE_WAY, STOP, HANDOFF, DROP, PROXY };

// Checker 4: each register's history is linearizable.
static void check_registers(uint32_t n) {
  static struct lin_op ops[LIN_MAX_OPS];
  size_t total = 0, keys = 0, max_explored = 0, unknown = 0, excused = 0;
  for (uint16_t k = 0; k < REG_KEYS; k++) {
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
      const struct rec *r = &sh->r[i];
      if ((r->op != OP_READ && r->op != OP_WRITE) || r->key != k)
        continue;
      struct lin_op o = {r->start, r->end, r->value, r->op == OP_WRITE, false};
      if (r->op == OP_READ && r->rc != 0 && r->rc != KEEP_ERR_NOT_FOUND)
        continue; // no answer: it constrains nothing
      if (r->op == OP_WRITE && r->rc != 0) {
        if (!unknown_outcome(r->rc))
          continue; // refused (BUSY, MOVED): not executed
        o.end = UINT64_MAX;
        o.optional = true;
        unknown++;
      }
      ck_assert_msg(m < LIN_MAX_OPS, "register %s: history over the bound", reg_key[k]);
      ops[m++] = o;
    }
    if (m == 0)
      continue;
    size_t explored;
    int res = lin_check(ops, m, &explored);
    char what[96];
    snprintf(what, sizeof what, "register %.63s not linearizable", reg_key[k]);
    if (res == LIN_VIOLATION && views_moved(what)) {
      // A lost key reads as absent or as an older value; what no write of
      // this register wrote can never be read.
      for (size_t i = 0; i < m; i++) {
        if (ops[i].write || ops[i].value == 0)
          continue;
        bool written = false;
        for (size_t j = 0; j < m && !written; j++)
          written = ops[j].write && ops[j].value == ops[i].value;
        ck_assert_msg(written, "register %s: read %lld, which no write wrote", reg_key[k],
                      (long long)ops[i].value);
      }
      excused++;
    } else {
      ck_assert_msg(res == LIN_OK, "register %s (%zu operations): %s", reg_key[k], m,
                    res == LIN_VIOLATION ? "not linearizable" : "undecided");
    }
    total += m;
    keys++;
    if (explored > max_explored)
      max_explored = explored;
  }
  fprintf(stderr,
          "# registers: %zu keys (%zu excused), %zu operations (%zu unknown) linearizable, at "
          "most %zu configurations\n",
          keys, excused, total, unknown, max_explored);
  ck_assert_uint_gt(total, 50);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

// Checker 5: the counter the register workers share (on the moving member's
// slots in the handoff scenario) has every acknowledged increment once: no
// two answers carry the same value, and the final value lies between the
// acknowledged and the acknowledged plus the unknown.
static void check_shared_counter(keep_client *c, uint32_t n) {
  int64_t *vals = calloc(n + 1, sizeof *vals);
  size_t acked = 0, maybe = 0;
  for (uint32_t i = 0; i < n; i++) {
    const struct rec *r = &sh->r[i];
    if (r->op != OP_INCR || r->worker < WORKERS)
      continue;
    if (r->rc == 0)
      vals[acked++] = r->value;
    else if (unknown_outcome(r->rc))
      maybe++;
  }
  qsort(vals, acked, sizeof *vals, cmp_i64);
  // A counter lost with its member starts again from 1: its values repeat.
  for (size_t i = 1; i < acked; i++)
    if (vals[i] == vals[i - 1] && !views_moved("shared counter answered a value twice"))
      ck_abort_msg("two increments answered %lld", (long long)vals[i]);
  int64_t v;
  int rc;
  KEEPD_RETRY(rc, keep_incr(c, &v, mv_ctr_key, strlen(mv_ctr_key), 0, 0),
              keepd_not_executed(rc) || unknown_outcome(rc));
  ck_assert_msg(rc == 0, "shared counter: %s", keep_strerror(rc));
  // Never more than was sent; fewer only when a member lost it.
  ck_assert_msg(v <= (int64_t)(acked + maybe), "shared counter: %lld, %zu acked, %zu unknown",
                (long long)v, acked, maybe);
  if (v < (int64_t)acked && !views_moved("shared counter lost increments"))
    ck_abort_msg("shared counter: %lld, %zu acked, %zu unknown", (long long)v, acked, maybe);
  ck_assert_uint_gt(acked, 50);
  free(vals);
}

// Checker 6: events. Within each subscription the sequence numbers grow,
// and the client's gap count is exactly the numbers skipped; payloads
// arrive in publish order, never twice. For the subscription alive at the
// end (its last heartbeat came well after the publisher stopped), every
// publish that reached a subscriber after it subscribed advanced its
// sequence, and each one not received is counted in a gap: nothing is lost
// silently.
static void check_events(uint32_t n, uint64_t publishers_until) {
  uint8_t *got = calloc(MAX_RECS + 1, 1);
  uint64_t prev = 0, gaps = 0, sub_at = 0, beat_at = 0, events = 0, all_gaps = 0;
  int64_t last_payload = 0;
  bool active = false;
  unsigned subs = 0;
  for (uint32_t i = 0; i < n; i++) {
    const struct rec *r = &sh->r[i];
    if (r->worker != SUBSCRIBER)
      continue;
    switch (r->op) {
    case OP_SUB:
      active = true;
      prev = r->aux; // 0 for a new subscription
      gaps = 0;
      sub_at = r->end;
      memset(got, 0, MAX_RECS + 1);
      subs++;
      break;
    case OP_EVENT:
      ck_assert(active);
      ck_assert_msg(r->aux > prev, "event seq %llu after %llu", (unsigned long long)r->aux,
                    (unsigned long long)prev);
      ck_assert_uint_eq((uint64_t)r->rc, r->aux - prev - 1);
      ck_assert_msg(r->value > last_payload && r->value <= MAX_RECS, "payload %lld after %lld",
                    (long long)r->value, (long long)last_payload);
      last_payload = r->value;
      got[r->value] = 1;
      gaps += (uint64_t)r->rc;
      prev = r->aux;
      events++;
      break;
    case OP_BEAT:
      ck_assert(active);
      ck_assert_uint_ge(r->aux, prev);
      ck_assert_uint_eq((uint64_t)r->rc, r->aux - prev);
      gaps += (uint64_t)r->rc;
      prev = r->aux;
      beat_at = r->start;
      break;
    case OP_CLOSED:
      all_gaps += gaps;
      active = false;
      break;
    }
  }
  all_gaps += active ? gaps : 0;
  ck_assert_msg(active && beat_at > publishers_until + 200000000u,
                "no heartbeat after the publisher stopped");
  size_t reached = 0, missing = 0;
  for (uint32_t i = 0; i < n; i++) {
    const struct rec *r = &sh->r[i];
    if (r->op != OP_PUB || r->rc != 0 || r->aux == 0 || r->start < sub_at)
      continue;
    reached++;
    missing += r->value > MAX_RECS || !got[r->value];
  }
  ck_assert_msg(prev >= reached, "%zu publishes reached the subscriber, its sequence is %llu",
                reached, (unsigned long long)prev);
  ck_assert_msg(missing <= gaps, "%zu events lost, %llu reported in gaps", missing,
                (unsigned long long)gaps);
  fprintf(stderr,
          "# events: %u subscriptions, %llu events, %llu reported lost, %zu publishes "
          "reached the last one\n",
          subs, (unsigned long long)events, (unsigned long long)all_gaps, reached);
  ck_assert_uint_gt(events, 50);
  free(got);
}

// starve_member0 makes member 0 wait on a run queue for `ms` (the
// KEEPD_FAULTS_STARVE_MS knob): its threads are pinned to CPU 0, where a
// SCHED_FIFO child spins that long, then set free again. It is what a
// loaded machine does to a member at its worst: its peers declare it dead
// after 225 ms, move its slots, and the data checks find keys lost, which
// views_moved must excuse (with a `# starved:` note). False when the
// machine refuses a real-time spinner.
static bool starve_member0(struct cluster *cl, unsigned ms) {
  cpu_set_t one, all;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (sched_getaffinity(0, sizeof all, &all) != 0)
    return false;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)cl->p[0].pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return false;
  pid_t tids[64];
  int nt = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && nt < 64)
    if (e->d_name[0] != '.')
      tids[nt++] = (pid_t)atoi(e->d_name);
  closedir(d);
  for (int i = 0; i < nt; i++)
    (void)sched_setaffinity(tids[i], sizeof one, &one);
  pid_t spin = fork();
  ck_assert_int_ge(spin, 0);
  if (spin == 0) {
    struct sched_param sp = {.sched_priority = 1};
    if (sched_setaffinity(0, sizeof one, &one) != 0 || sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      _exit(1);
    uint64_t end = keepd_test_now_ns() + (uint64_t)ms * 1000000u;
    while (keepd_test_now_ns() < end) {
    }
    _exit(0);
  }
  int st;
  ck_assert_int_eq(waitpid(spin, &st, 0), spin);
  for (int i = 0; i < nt; i++)
    (void)sched_setaffinity(tids[i], sizeof all, &all);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// PROXY_FIRST_FAULT_NS: on a quiet machine the proxy delays a heartbeat,
// sends one twice and delays a chunk of a client connection soon after the
// fault window opens (members send 80 heartbeats a second its way, a
// quarter of those in the window go twice, the lock workers talk to member
// 2 all the time): 500 ms leaves room for the lock workers' waits.
#define PROXY_FIRST_FAULT_NS 500000000ull

// WARMUP_NS: the workers run at least this long before the fault window
// opens (on a quiet machine they start about 2 s before it).
#define WARMUP_NS 500000000ull

// check_proxy checks that the proxy did its faults: every datagram that
// came in went out (twice when duplicated), connections went through it,
// and it delayed, duplicated and delayed chunks soon after the window
// opened at `fault_at`; a fault that came late or never is excused only
// by starvation (keepd_bound_check: the proxy, the members or the workers
// waited on run queues for as long), since it is the machine's doing.
static void check_proxy(const struct proxy_stats *ps, struct keepd_starve *sw, pid_t proxy,
                        uint64_t fault_at) {
  fprintf(stderr,
          "# proxy: %llu datagrams in, %llu out, %llu duplicated, %llu delayed; %llu "
          "connections, %llu chunks, %llu delayed; %.1f ms on run queues\n",
          (unsigned long long)ps->in, (unsigned long long)ps->out, (unsigned long long)ps->dups,
          (unsigned long long)ps->delayed, (unsigned long long)ps->conns,
          (unsigned long long)ps->chunks, (unsigned long long)ps->chunks_delayed,
          ps->run_delay_ns / 1e6);
  ck_assert_msg(ps->out == ps->in + ps->dups, "proxy: %llu datagrams in, %llu duplicated, %llu out",
                (unsigned long long)ps->in, (unsigned long long)ps->dups,
                (unsigned long long)ps->out);
  ck_assert_msg(ps->conns > 0, "no client connection went through the proxy");
  keepd_starve_note(sw, proxy, ps->run_delay_ns);
  // Never: as late as the end of the window (2 s) would be, and more.
  const uint64_t never = 2000000000ull;
  const struct {
    const char *what;
    uint64_t at;
  } first[] = {{"proxy: first delayed heartbeat after the window opened", ps->first_delayed},
               {"proxy: first duplicated heartbeat after the window opened", ps->first_dup},
               {"proxy: first delayed chunk after the window opened", ps->first_chunk_delayed}};
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
    keepd_bound_check(sw, first[i].what,
                      first[i].at == 0         ? never
                      : first[i].at > fault_at ? first[i].at - fault_at
                                               : 0, // in the window as first planned
                      PROXY_FIRST_FAULT_NS);
}

static int cmp_start(const void *a, const void *b) {
  const struct rec *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

static void run_scenario(enum fault fault) {
  cluster_max_lease = LEASE_STR;
  struct cluster cl;
  // The quarantine that keepd picks for a cluster by default: the longest
  // lease + the quorum window + the margin.
  // KEEPD_FAULTS_QUARANTINE=0 turns the quarantine off, to see the
  // checkers catch the resulting double grants.
  const char *q = getenv("KEEPD_FAULTS_QUARANTINE");
  memset(&cl, 0, sizeof cl);
  for (int i = 0; i < N; i++) {
    cl.port[i] = free_port(SOCK_STREAM);
    cl.udp[i] = free_port(SOCK_DGRAM);
    snprintf(cl.addr[i], sizeof cl.addr[i], "127.0.0.1:%u", cl.port[i]);
    cl.addrs[i] = cl.addr[i];
  }
  // The fault window: 2 s, past the start quarantine. Faults that move the
  // lock's slot without its data give it a quarantine twice (when it moves
  // and when it comes back), so they run longer to see lock holds around
  // both; the others keep serving it throughout.
  bool moves = fault == SYMMETRIC || fault == ONE_WAY || fault == STOP;
  uint64_t t0 = keepd_test_now_ns();
  uint64_t fault_at = t0 + (moves ? 3300000000ull : 2600000000ull);
  uint64_t fault_end = fault_at + 2000000000ull;
  uint64_t until = fault_end + (moves ? 3200000000ull : 1200000000ull);
  // Shared with the workers and the proxy (zeroed: a fresh mapping).
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(sh, MAP_FAILED);
  pid_t proxy = 0;
  if (fault == PROXY) {
    // Member 2's heartbeats and client connections go through the proxy
    // from the start (a redirect applies to new flows only); in the window
    // each datagram is delayed by up to 80 ms, a quarter of them sent
    // twice, and each chunk of a connection delayed by up to 80 ms.
    struct proxy_cfg *pc = &sh->pcfg;
    pc->listen_port = free_port(SOCK_DGRAM);
    pc->target_port = cl.udp[2];
    pc->tcp_listen_port = free_port(SOCK_STREAM);
    pc->tcp_target_port = cl.port[2];
    pc->max_delay_ms = 80;
    pc->dup_pct = 25;
    atomic_store(&pc->fault_from, fault_at);
    atomic_store(&pc->fault_until, fault_end);
    atomic_store(&pc->until, until + 1000000000u);
    char rule[256];
    nft("add table inet kfp");
    nft("add chain inet kfp out '{ type nat hook output priority -100; }'");
    proxy_rule(rule, sizeof rule, pc);
    nft(rule);
    proxy_tcp_rule(rule, sizeof rule, pc);
    nft(rule);
    proxy = fork();
    ck_assert_int_ge(proxy, 0);
    if (proxy == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      uint64_t delay0 = keepd_run_delay_ns(0);
      struct proxy_stats ps = proxy_run(pc, (uint64_t)getpid());
      ps.run_delay_ns = keepd_run_delay_ns(0) - delay0;
      sh->proxy = ps;
      _exit(0);
    }
  }
  for (int i = 0; i < N; i++) {
    // With random drops, member 2 also runs with a clock 1% fast
    // (libfaketime scales CLOCK_MONOTONIC_RAW too): within libkeep's
    // drift margin, so no lock may be granted twice.
    bool fast = fault == DROP && i == 2 && faketime_usable();
    if (fault == DROP && i == 2 && !fast)
      fprintf(stderr, "# fast clock: not under the sanitizers (see faketime_usable)\n");
    if (fast) {
      setenv("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", 1);
      setenv("FAKETIME", "+0 x1.01", 1);
    }
    start_member(&cl, i, q != NULL ? q : QUARANTINE_STR);
    if (fast) {
      unsetenv("LD_PRELOAD");
      unsetenv("FAKETIME");
    }
  }
  keep_client *c = client_for(&cl, cl.addrs, ids, N);
  wait_ready(c);
  // The lock moves with member 2; the written value and the counters stay
  // on members 0 and 1, whose slots never move when member 2 is cut off.
  key_owned(lock_key, sizeof lock_key, "flock", 2, 2, -1);
  key_owned(rmw_key, sizeof rmw_key, "frmw", 0, 2, 0);
  for (int w = 0; w < WORKERS; w++) {
    char p[16];
    snprintf(p, sizeof p, "fctr%d", w);
    key_owned(ctr_key[w], sizeof ctr_key[w], p, w % 2, 2, w % 2);
  }
  // The registers and the shared counter stay put, except in the handoff
  // scenario, where they live on member 2 and move with its keys. The topic
  // stays put.
  for (int k = 0; k < REG_KEYS; k++) {
    char p[16];
    snprintf(p, sizeof p, "freg%d", k);
    if (fault == HANDOFF)
      key_owned(reg_key[k], sizeof reg_key[k], p, 2, 2, -1);
    else
      key_owned(reg_key[k], sizeof reg_key[k], p, 0, 2, 0);
  }
  if (fault == HANDOFF)
    key_owned(mv_ctr_key, sizeof mv_ctr_key, "fmvctr", 2, 2, -1);
  else
    key_owned(mv_ctr_key, sizeof mv_ctr_key, "fmvctr", 1, 2, 1);
  key_owned(topic, sizeof topic, "ftopic", 0, 2, 0);
  reg_t0 = t0;
  pid_t pids[SUBSCRIBER + 1], member_pids[MAX_N];
  struct keepd_starve sw;
  keepd_starve_begin(&sw, member_pids, cluster_pids(&cl, member_pids));
  // The views as the workers start, and what the fault does to them.
  views_cl = &cl;
  views_sw = &sw;
  views_verdict = -1;
  // The base is a settled view: a member that serves (wait_ready) holds two
  // or all three members in its live set, and the epoch's parity tells
  // which (it starts at 1 with the member alone and each change adds or
  // removes one): odd is all three. Waiting for that keeps a join still
  // under way from counting as a change made during the scenario.
  for (int m = 0; m < 2; m++) {
    uint64_t t = keepd_test_now_ns();
    while ((view_base[m] = member_epoch(&cl, m)) % 2 == 0) {
      ck_assert_msg(keepd_test_now_ns() - t < KEEPD_RETRY_NS,
                    "member %d does not see all three members (view epoch %llu)", m,
                    (unsigned long long)view_base[m]);
      keepd_sleep_ms(10);
    }
  }
  view_fault = moves ? 2 : fault == HANDOFF ? 1 : 0;
  // The fault comes once the workers have run for WARMUP_NS at least: a
  // starved setup (members starting, keys found) may have eaten into the
  // planned window, and a fault that ends before the workers begin tests
  // nothing. Everything after it moves with it.
  uint64_t earliest = keepd_test_now_ns() + WARMUP_NS;
  if (fault_at < earliest) {
    uint64_t shift = earliest - fault_at;
    fault_at += shift;
    fault_end += shift;
    until += shift;
    if (proxy > 0) {
      atomic_store(&sh->pcfg.until, until + 1000000000u);
      atomic_store(&sh->pcfg.fault_until, fault_end);
      atomic_store(&sh->pcfg.fault_from, fault_at);
    }
    fprintf(stderr,
            "# starved: the setup ran late; the fault window opens %.1f ms after the plan\n",
            shift / 1e6);
  }
  for (int w = 0; w <= SUBSCRIBER; w++) {
    pids[w] = fork();
    ck_assert_int_ge(pids[w], 0);
    if (pids[w] == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      uint64_t delay0 = keepd_run_delay_ns(0);
      if (w < WORKERS)
        worker(&cl, w, until);
      else if (w < SUBSCRIBER)
        reg_worker(&cl, w - WORKERS, until);
      else
        subscriber(&cl, until + 500000000u); // past the publisher, for the last heartbeats
      sh->run_delay[w] = keepd_run_delay_ns(0) - delay0;
      _exit(0);
    }
  }
  // The fault, in its window.
  uint64_t now = keepd_test_now_ns();
  if (now < fault_at)
    keepd_sleep_ms((unsigned)((fault_at - now) / 1000000u));
  char rule[256];
  nft("add table inet kf");
  nft("add chain inet kf in '{ type filter hook input priority 0; }'");
  uint64_t leave_ns = 0;
  switch (fault) {
  case HANDOFF: { // a clean leave: its keys go to the new owners
    uint64_t l0 = keepd_test_now_ns();
    ck_assert_int_eq(keepd_stop(&cl.p[2]), 0);
    leave_ns = keepd_test_now_ns() - l0;
    break;
  }
  case DROP: // a third of the packets to member 2, both kinds, at random
    snprintf(rule, sizeof rule, "add rule inet kf in udp dport %u numgen random mod 3 0 drop",
             cl.udp[2]);
    nft(rule);
    snprintf(rule, sizeof rule, "add rule inet kf in tcp dport %u numgen random mod 3 0 drop",
             cl.port[2]);
    nft(rule);
    break;
  case SYMMETRIC:
    snprintf(rule, sizeof rule, "add rule inet kf in udp dport %u drop", cl.udp[2]);
    nft(rule);
    snprintf(rule, sizeof rule, "add rule inet kf in udp sport %u drop", cl.udp[2]);
    nft(rule);
    snprintf(rule, sizeof rule, "add rule inet kf in tcp dport %u drop", cl.port[2]);
    nft(rule);
    snprintf(rule, sizeof rule, "add rule inet kf in tcp sport %u drop", cl.port[2]);
    nft(rule);
    break;
  case ONE_WAY: // member 2 still hears everyone; nobody hears it
    snprintf(rule, sizeof rule, "add rule inet kf in udp sport %u drop", cl.udp[2]);
    nft(rule);
    snprintf(rule, sizeof rule, "add rule inet kf in tcp sport %u drop", cl.port[2]);
    nft(rule);
    break;
  case STOP:
    kill(cl.p[2].pid, SIGSTOP);
    break;
  case PROXY: // the proxy applies it
    break;
  }
  // Self-checks of the data checkers, outside CI, in the middle of the
  // window: KEEPD_FAULTS_LOSE_KEYS=1 deletes the read-modify-write value
  // and the workers' counters behind their backs, a loss no view change
  // explains, which must fail the test; KEEPD_FAULTS_STARVE_MS=N starves
  // member 0 for N ms, whose losses must be excused with a note.
  const char *lose = getenv("KEEPD_FAULTS_LOSE_KEYS"), *starve = getenv("KEEPD_FAULTS_STARVE_MS");
  if (lose != NULL || starve != NULL) {
    now = keepd_test_now_ns();
    if (now < fault_at + 1000000000ull)
      keepd_sleep_ms((unsigned)((fault_at + 1000000000ull - now) / 1000000u));
    if (lose != NULL) {
      int d;
      KEEPD_RETRY(d, keep_del(c, rmw_key, strlen(rmw_key)), keepd_not_executed(d));
      for (int w = 0; w < WORKERS; w++)
        KEEPD_RETRY(d, keep_del(c, ctr_key[w], strlen(ctr_key[w])), keepd_not_executed(d));
      fprintf(stderr, "# KEEPD_FAULTS_LOSE_KEYS: deleted the checked keys\n");
    }
    if (starve != NULL)
      fprintf(stderr, "# KEEPD_FAULTS_STARVE_MS: member 0 starved for %s ms: %s\n", starve,
              starve_member0(&cl, (unsigned)strtoul(starve, NULL, 10)) ? "done"
                                                                       : "refused (no SCHED_FIFO)");
  }
  now = keepd_test_now_ns();
  if (now < fault_end)
    keepd_sleep_ms((unsigned)((fault_end - now) / 1000000u));
  if (fault == STOP)
    kill(cl.p[2].pid, SIGCONT);
  nft("delete table inet kf");
  for (int w = 0; w <= SUBSCRIBER; w++) {
    int st;
    ck_assert_int_eq(waitpid(pids[w], &st, 0), pids[w]);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  // The workers measured their own waits on run queues: count them in.
  for (int w = 0; w <= SUBSCRIBER; w++)
    keepd_starve_note(&sw, pids[w], sh->run_delay[w]);
  if (proxy > 0) {
    int st;
    ck_assert_int_eq(waitpid(proxy, &st, 0), proxy);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the proxy failed");
    nft("delete table inet kfp");
    check_proxy(&sh->proxy, &sw, proxy, fault_at);
  }
  uint32_t n = atomic_load(&sh->n);
  ck_assert_uint_lt(n, MAX_RECS);

  // Checker 1: critical sections never overlap (interval sweep). A hold
  // lasts from the lock's answer to the end of the write, but no longer than
  // the deadline libkeep gave: that is what the guarantee covers (a write
  // answered after it is the client's risk, and checker 2 would see the
  // update it lost).
  struct rec *holds = calloc(n, sizeof *holds);
  size_t nh = 0, committed = 0, unknown = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sh->r[i].op == OP_HOLD) {
      holds[nh] = sh->r[i];
      if (holds[nh].end > holds[nh].aux)
        holds[nh].end = holds[nh].aux;
      nh++;
      committed += sh->r[i].rc == 1;
      unknown += sh->r[i].rc == -1;
    }
  qsort(holds, nh, sizeof *holds, cmp_start);
  uint64_t max_end = 0, last_dl = 0;
  int last = -1;
  for (size_t i = 0; i < nh; i++) {
    ck_assert_msg(holds[i].start >= max_end,
                  "worker %d held the lock from %llu while worker %d held it until %llu "
                  "(its deadline: %llu)",
                  holds[i].worker, (unsigned long long)holds[i].start, last,
                  (unsigned long long)max_end, (unsigned long long)last_dl);
    if (holds[i].end > max_end) {
      max_end = holds[i].end;
      last_dl = holds[i].aux;
      last = holds[i].worker;
    }
  }
  // Checker 2: the read-modify-write value counts every committed write.
  char buf[32];
  size_t len;
  int rc;
  // Absent (NOT_FOUND) is an answer: no write committed, or the key lost.
  KEEPD_RETRY(rc, keep_get(c, buf, sizeof buf - 1, &len, rmw_key, strlen(rmw_key)),
              keepd_not_executed(rc) || unknown_outcome(rc));
  ck_assert_msg(rc == 0 || rc == KEEP_ERR_NOT_FOUND, "read-modify-write value: %s",
                keep_strerror(rc));
  buf[rc == 0 ? len : 0] = '\0';
  long long final = strtoll(buf, NULL, 10);
  // Never more than the writes; fewer only when a member lost the key (the
  // workers then count again from what they read).
  ck_assert_msg(final <= (long long)(committed + unknown),
                "read-modify-write: value %lld, %zu committed, %zu unknown", final, committed,
                unknown);
  if (final < (long long)committed &&
      !views_moved(rc == KEEP_ERR_NOT_FOUND ? "read-modify-write key not found"
                                            : "read-modify-write lost updates"))
    ck_abort_msg("read-modify-write: %s %lld, %zu committed, %zu unknown",
                 rc == KEEP_ERR_NOT_FOUND ? "key not found, value" : "value", final, committed,
                 unknown);
  // Checker 3: each counter equals its acknowledged increments (plus those
  // whose answer was lost), and acknowledged values only grow.
  for (int w = 0; w < WORKERS; w++) {
    long long acked = 0, maybe = 0, prev = 0;
    for (uint32_t i = 0; i < n; i++) {
      const struct rec *r = &sh->r[i];
      if (r->op != OP_INCR || r->worker != w)
        continue;
      if (r->rc == 0) {
        // A counter lost with its member starts again from 1.
        if (r->value <= prev && !views_moved("counter went back"))
          ck_abort_msg("counter %d: %lld answered after %lld", w, (long long)r->value, prev);
        prev = r->value;
        acked++;
      } else if (r->rc == KEEP_ERR_TIMEOUT || r->rc == KEEP_ERR_CLOSED) {
        maybe++;
      }
    }
    int64_t v;
    KEEPD_RETRY(rc, keep_incr(c, &v, ctr_key[w], strlen(ctr_key[w]), 0, 0),
                keepd_not_executed(rc) || unknown_outcome(rc));
    ck_assert_msg(rc == 0, "counter %d: %s", w, keep_strerror(rc));
    ck_assert_msg(v <= acked + maybe, "counter %d: %lld, %lld acked, %lld unknown", w, (long long)v,
                  acked, maybe);
    if (v < acked && !views_moved("counter lost increments"))
      ck_abort_msg("counter %d: %lld, %lld acked, %lld unknown", w, (long long)v, acked, maybe);
    ck_assert_int_gt(acked, 20);
  }
  check_registers(n);
  check_shared_counter(c, n);
  check_events(n, until);
  fprintf(stderr, "# fault %d: %zu lock holds (%zu writes committed, %zu unknown), %u records\n",
          (int)fault, nh, committed, unknown, n);
  if (fault == HANDOFF)
    fprintf(stderr, "# handoff: the leaving member exited after %.1f ms\n", leave_ns / 1e6);
  // Enough lock holds for the sweep to mean something: more than two in
  // the ~3 s after the start quarantine on a quiet machine. A starved run
  // (a worker or a member waited 50 ms or more on run queues) may make
  // fewer, even none (seen under four spinners: every lock request of the
  // window timed out), which is noted: the sweep then checked little.
  if (nh <= 2) {
    pid_t who;
    uint64_t starved = keepd_starve_ns(&sw, &who); // workers noted above
    ck_assert_msg(starved >= KEEPD_STARVED_NS,
                  "%zu lock holds (not explained by starvation: %.1f ms on run queues)", nh,
                  starved / 1e6);
    fprintf(stderr,
            "# starved: only %zu lock holds while process %d waited %.1f ms on run queues\n", nh,
            (int)who, starved / 1e6);
  }
  free(holds);
  munmap(sh, sizeof *sh);
  keep_client_free(c);
  // SIGKILL: the clean leave is tested elsewhere, and each one here would
  // wait for its handoff.
  for (int i = 0; i < N; i++)
    if (cl.p[i].pid > 0)
      kill9(&cl.p[i]);
  cluster_stop(&cl);
}

START_TEST(test_symmetric_partition) {
  run_scenario(SYMMETRIC);
}
END_TEST

START_TEST(test_one_way_partition) {
  run_scenario(ONE_WAY);
}
END_TEST

START_TEST(test_stop_cont) {
  run_scenario(STOP);
}
END_TEST

START_TEST(test_clean_leave_handoff) {
  run_scenario(HANDOFF);
}
END_TEST

START_TEST(test_packet_drops) {
  run_scenario(DROP);
}
END_TEST

START_TEST(test_delay_duplicate_reorder) {
  run_scenario(PROXY);
}
END_TEST

// The checker itself must be able to fail: small histories with a known
// answer.
START_TEST(test_lincheck_knows_violations) {
  size_t ex;
  // Sequential write then read of it; then a read of absent after the
  // write ended: not linearizable.
  struct lin_op ok1[] = {{0, 10, 5, true, false}, {20, 30, 5, false, false}};
  ck_assert_int_eq(lin_check(ok1, 2, &ex), LIN_OK);
  struct lin_op bad1[] = {{0, 10, 5, true, false}, {20, 30, 0, false, false}};
  ck_assert_int_eq(lin_check(bad1, 2, &ex), LIN_VIOLATION);
  // A read concurrent with the write may see either.
  struct lin_op ok2[] = {
      {0, 10, 5, true, false}, {5, 30, 0, false, false}, {6, 31, 5, false, false}};
  ck_assert_int_eq(lin_check(ok2, 3, &ex), LIN_OK);
  // Two reads that disagree on the order of two writes: a stale read.
  struct lin_op bad2[] = {{0, 10, 1, true, false},
                          {11, 20, 2, true, false},
                          {21, 30, 2, false, false},
                          {31, 40, 1, false, false}};
  ck_assert_int_eq(lin_check(bad2, 4, &ex), LIN_VIOLATION);
  // A write whose answer was lost may take effect late, or never.
  struct lin_op ok3[] = {
      {0, UINT64_MAX, 7, true, true}, {50, 60, 0, false, false}, {70, 80, 7, false, false}};
  ck_assert_int_eq(lin_check(ok3, 3, &ex), LIN_OK);
  struct lin_op ok4[] = {{0, UINT64_MAX, 7, true, true}, {50, 60, 0, false, false}};
  ck_assert_int_eq(lin_check(ok4, 2, &ex), LIN_OK);
  // But not go back once seen.
  struct lin_op bad3[] = {
      {0, UINT64_MAX, 7, true, true}, {50, 60, 7, false, false}, {70, 80, 0, false, false}};
  ck_assert_int_eq(lin_check(bad3, 3, &ex), LIN_VIOLATION);
}
END_TEST

// The long randomised schedule, outside CI: `test_keepd_faults KEEPD
// --random SEED SECONDS` runs five members for SECONDS under a random
// sequence of symmetric and one-way partitions, 30% packet loss towards a
// member, SIGSTOP/SIGCONT, SIGKILL with restart, and a clean leave (with its
// handoff) followed by a rejoin, one fault at a time; with
// KEEPD_FAULTS_FAKETIME set, member 4 runs under libfaketime with a clock 1%
// fast. Slots move under every kind of fault here, so only lock exclusivity
// is checked (and that the read-modify-write value never exceeds the
// committed writes: lost values are allowed, invented ones are not).
static uint64_t rnd_state;
static unsigned rnd(unsigned n) {
  rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((rnd_state >> 33) % n);
}

static unsigned random_seconds = 60;

static void start_random_member(struct cluster *cl, int i) {
  bool fake = i == 4 && getenv("KEEPD_FAULTS_FAKETIME") != NULL && faketime_usable();
  if (fake) {
    setenv("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", 1);
    setenv("FAKETIME", "+0 x1.01", 1);
  }
  start_member(cl, i, QUARANTINE_STR);
  if (fake) {
    unsetenv("LD_PRELOAD");
    unsetenv("FAKETIME");
  }
}

START_TEST(test_random_schedule) {
  cluster_n = MAX_N;
  cluster_max_lease = LEASE_STR;
  struct cluster cl;
  memset(&cl, 0, sizeof cl);
  for (int i = 0; i < MAX_N; i++) {
    cl.port[i] = free_port(SOCK_STREAM);
    cl.udp[i] = free_port(SOCK_DGRAM);
    snprintf(cl.addr[i], sizeof cl.addr[i], "127.0.0.1:%u", cl.port[i]);
    cl.addrs[i] = cl.addr[i];
  }
  for (int i = 0; i < MAX_N; i++)
    start_random_member(&cl, i);
  keep_client *c = client_for(&cl, cl.addrs, ids, MAX_N);
  wait_ready(c);
  snprintf(lock_key, sizeof lock_key, "rlock");
  snprintf(rmw_key, sizeof rmw_key, "rrmw");
  for (int w = 0; w < WORKERS; w++)
    snprintf(ctr_key[w], sizeof ctr_key[w], "rctr%d", w);
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert_ptr_ne(sh, MAP_FAILED);
  uint64_t until = keepd_test_now_ns() + (uint64_t)random_seconds * 1000000000u;
  pid_t pids[WORKERS];
  for (int w = 0; w < WORKERS; w++) {
    pids[w] = fork();
    ck_assert_int_ge(pids[w], 0);
    if (pids[w] == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      cl.p[0].pid = 0; // the workers own no daemon
      worker(&cl, w, until);
      _exit(0);
    }
  }
  unsigned faults = 0;
  while (keepd_test_now_ns() + 3000000000ull < until) {
    int f = (int)rnd(6), v = (int)rnd(MAX_N), o = (v + 1 + (int)rnd(MAX_N - 1)) % MAX_N;
    char rule[256];
    nft("add table inet kf");
    nft("add chain inet kf in '{ type filter hook input priority 0; }'");
    switch (f) {
    case 0:
      snprintf(rule, sizeof rule, "add rule inet kf in udp dport %u drop", cl.udp[v]);
      nft(rule);
      snprintf(rule, sizeof rule, "add rule inet kf in udp sport %u drop", cl.udp[v]);
      nft(rule);
      break;
    case 1:
      snprintf(rule, sizeof rule, "add rule inet kf in udp sport %u udp dport %u drop", cl.udp[v],
               cl.udp[o]);
      nft(rule);
      break;
    case 2:
      snprintf(rule, sizeof rule,
               "add rule inet kf in udp dport %u numgen random mod 100 \\< 30 drop", cl.udp[v]);
      nft(rule);
      break;
    case 3:
      kill(cl.p[v].pid, SIGSTOP);
      break;
    case 4:
      kill9(&cl.p[v]);
      break;
    case 5: // a clean leave, with the handoff of its keys, then a rejoin
      ck_assert_int_eq(keepd_stop(&cl.p[v]), 0);
      break;
    }
    fprintf(stderr, "# fault %d on member %d (other %d)\n", f, v, o);
    keepd_sleep_ms(300 + rnd(1700));
    nft("delete table inet kf");
    if (f == 3)
      kill(cl.p[v].pid, SIGCONT);
    if (f == 4 || f == 5)
      start_random_member(&cl, v);
    faults++;
    keepd_sleep_ms(rnd(1000));
  }
  for (int w = 0; w < WORKERS; w++)
    ck_assert_int_eq(waitpid(pids[w], NULL, 0), pids[w]);
  uint32_t n = atomic_load(&sh->n);
  ck_assert_uint_lt(n, MAX_RECS);
  struct rec *holds = calloc(n, sizeof *holds);
  size_t nh = 0, committed = 0, unknown = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sh->r[i].op == OP_HOLD) {
      holds[nh] = sh->r[i];
      if (holds[nh].end > holds[nh].aux) // as in run_scenario: up to the deadline
        holds[nh].end = holds[nh].aux;
      nh++;
      committed += sh->r[i].rc == 1;
      unknown += sh->r[i].rc == -1;
    }
  qsort(holds, nh, sizeof *holds, cmp_start);
  uint64_t max_end = 0;
  for (size_t i = 0; i < nh; i++) {
    ck_assert_msg(holds[i].start >= max_end, "overlapping lock holds at record %zu", i);
    if (holds[i].end > max_end)
      max_end = holds[i].end;
  }
  char buf[32];
  size_t len;
  if (keep_get(c, buf, sizeof buf - 1, &len, rmw_key, strlen(rmw_key)) == 0) {
    buf[len] = '\0';
    ck_assert_int_le(strtoll(buf, NULL, 10), (long long)(committed + unknown));
  }
  fprintf(stderr, "# random: %u faults, %zu lock holds, %zu committed, %u records\n", faults, nh,
          committed, n);
  free(holds);
  munmap(sh, sizeof *sh);
  keep_client_free(c);
  cluster_stop(&cl);
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s KEEPD [--random SEED SECONDS]\n", argv[0]);
    return 2;
  }
  keepd_bin = argv[1];
  // A private network namespace: the nftables rules touch nothing outside,
  // and the namespace ends with the suite's last process.
  if (unshare(CLONE_NEWNET) != 0 || system("ip link set lo up") != 0) {
    printf("1..0 # SKIP needs root for a network namespace (unshare: %s)\n", strerror(errno));
    return 0;
  }
  Suite *s = suite_create("keepd-faults");
  TCase *tc = tcase_create("faults");
  if (argc >= 5 && strcmp(argv[2], "--random") == 0) {
    rnd_state = strtoull(argv[3], NULL, 10);
    random_seconds = (unsigned)strtoul(argv[4], NULL, 10);
    tcase_set_timeout(tc, random_seconds + 60.0);
    tcase_add_test(tc, test_random_schedule);
    suite_add_tcase(s, tc);
    return corvid_check_run(s);
  }
  tcase_set_timeout(tc, 45);
  tcase_add_test(tc, test_lincheck_knows_violations);
  tcase_add_test(tc, test_symmetric_partition);
  tcase_add_test(tc, test_one_way_partition);
  tcase_add_test(tc, test_stop_cont);
  tcase_add_test(tc, test_clean_leave_handoff);
  tcase_add_test(tc, test_packet_drops);
  tcase_add_test(tc, test_delay_duplicate_reorder);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
