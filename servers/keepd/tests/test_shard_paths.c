// test_shard_paths.c: the rarer paths of a keepd shard's loop (src/shard.c)
// driven over loopback against the real daemon (argv[1]): the inter-shard
// backlog that holds batches while the owner shard stalls (the test stops
// that shard's thread with ptrace), BUSY once the backlog is far behind, a
// clean exit with batches still waiting, a client that does not read its
// answers (paused, then resumed), a connection reset with output pending,
// the connection limit, the memory cap answered on every write path that
// can meet it, a topic that is not the first of its hash bucket, a
// connection still pipelining when others close, and HANDOFF_DONE sent to
// a single keepd.
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_internal.h"
#include "keepd_harness.h"

// Limits of keepd (src/keepd.h) the cases below are built around.
#define RING_SLOTS 8192u                  // KEEPD_RING_SIZE: batches a ring holds
#define MAX_FORWARD (64u * 1024u * 1024u) // KEEPD_MAX_FORWARD
#define REC_HEADER 24u                    // sizeof(struct rec) in shard.c
#define PIPELINE_BOUND 1024u              // KEEPD_MAX_PIPELINE

#define PUB_ID 300000u // ids of the PUBLISH requests of fill_ring

static const char *keepd_bin;

// RAW_TIMEOUT_S bounds each read on a raw connection: a missing answer
// fails the case, never hangs it.
#define RAW_TIMEOUT_S 10

// read_answer_quiet reads the next frame that is not a heartbeat; false at
// end of stream or on error.
static bool read_answer_quiet(int fd, struct keepd_reader *r, keep_frame *f) {
  int rc;
  do
    rc = keepd_read_frame_quiet(fd, r, f);
  while (rc == 1 && f->opcode == KEEP_OP_HEARTBEAT);
  return rc == 1;
}

// read_answer reads the next frame that is not a heartbeat.
static void read_answer(int fd, struct keepd_reader *r, keep_frame *f) {
  do
    ck_assert_int_eq(keepd_read_frame(fd, r, f), 1);
  while (f->opcode == KEEP_OP_HEARTBEAT);
}

static void expect_answer(int fd, struct keepd_reader *r, uint8_t opcode, uint64_t id,
                          uint64_t num) {
  keep_frame f;
  read_answer(fd, r, &f);
  ck_assert_uint_eq(f.opcode, opcode);
  ck_assert_uint_eq(f.id, id);
  ck_assert_uint_eq(f.num, num);
}

static void expect_error(int fd, struct keepd_reader *r, uint64_t id, unsigned code) {
  expect_answer(fd, r, KEEP_OP_ERROR, id, code);
}

static keep_frame keyed(uint8_t opcode, uint64_t id, const char *key) {
  keep_frame f;
  keep_frame_init(&f, opcode, id);
  f.key = (const uint8_t *)key;
  f.key_len = strlen(key);
  return f;
}

static void send_set(int fd, uint64_t id, const char *key, const void *v, size_t len,
                     uint64_t ttl_ms) {
  keep_frame f = keyed(KEEP_OP_SET, id, key);
  f.value = v;
  f.value_len = len;
  f.num = ttl_ms;
  keepd_send_frame(fd, &f);
}

static void send_incr(int fd, uint64_t id, const char *key, int64_t delta) {
  keep_frame f = keyed(KEEP_OP_INCR, id, key);
  f.num = (uint64_t)delta;
  keepd_send_frame(fd, &f);
}

static void send_lock(int fd, uint64_t id, const char *key, uint64_t lease_ms) {
  keep_frame f = keyed(KEEP_OP_LOCK, id, key);
  f.text = (const uint8_t *)"h";
  f.text_len = 1;
  f.num = lease_ms;
  keepd_send_frame(fd, &f);
}

static void send_plain(int fd, uint8_t opcode, uint64_t id, const char *key) {
  keep_frame f = keyed(opcode, id, key);
  keepd_send_frame(fd, &f);
}

static void send_ping(int fd, uint64_t id) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_PING, id);
  keepd_send_frame(fd, &f);
}

// expect_value reads the answer to a GET: OK with `len` bytes of `byte`.
static void expect_value(int fd, struct keepd_reader *r, uint64_t id, size_t len, uint8_t byte) {
  keep_frame f;
  read_answer(fd, r, &f);
  ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
  ck_assert_uint_eq(f.id, id);
  ck_assert_uint_eq(f.value_len, len);
  for (size_t i = 0; i < len; i += 4096)
    ck_assert_uint_eq(f.value[i], byte);
  if (len > 0)
    ck_assert_uint_eq(f.value[len - 1], byte);
}

// conn_on_shard connects until the kernel's hash puts the connection on
// `shard` (the PING answer names it); two shards: 200 misses in a row would
// happen once in 2^200 runs.
static int conn_on_shard(const struct keepd_proc *p, unsigned shard) {
  for (int i = 0; i < 200; i++) {
    int fd = keepd_raw_connect(p, 0, RAW_TIMEOUT_S);
    send_ping(fd, 1);
    struct keepd_reader *r = keepd_reader_new();
    keep_frame f;
    ck_assert_int_eq(keepd_read_frame(fd, r, &f), 1);
    ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
    uint64_t got = f.num;
    keepd_reader_free(r);
    if (got == shard)
      return fd;
    close(fd);
  }
  ck_abort_msg("no connection landed on shard %u", shard);
  return -1;
}

// key_on_shard writes into `out` the name `prefix`N, for the smallest N
// from `from` on, whose slot belongs to `shard` of two (default secret).
static unsigned key_on_shard(char *out, size_t cap, const char *prefix, unsigned from,
                             unsigned shard) {
  for (unsigned n = from;; n++) {
    int len = snprintf(out, cap, "%s%u", prefix, n);
    if ((keep_slot(NULL, out, (size_t)len) >= KEEP_NUM_SLOTS / 2) == (shard == 1))
      return n;
  }
}

// Stopping one shard's thread. keepd blocks its signals in every thread
// and waits for them in the main one, so a stopped shard holds no signal
// up; the test process is the daemon's parent, which ptrace allows.

static int list_threads(pid_t pid, pid_t *tids, int cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < cap)
    if (e->d_name[0] != '.')
      tids[n++] = (pid_t)atoi(e->d_name);
  closedir(d);
  return n;
}

static void thread_freeze(pid_t tid) {
  ck_assert_int_eq(ptrace(PTRACE_SEIZE, tid, NULL, NULL), 0);
  ck_assert_int_eq(ptrace(PTRACE_INTERRUPT, tid, NULL, NULL), 0);
  int st;
  ck_assert_int_eq(waitpid(tid, &st, __WALL), tid);
  ck_assert(WIFSTOPPED(st));
}

static void thread_thaw(pid_t tid) {
  ck_assert_int_eq(ptrace(PTRACE_DETACH, tid, NULL, 0), 0);
}

static bool readable_within(int fd, int ms) {
  struct pollfd pfd = {.fd = fd, .events = POLLIN};
  return poll(&pfd, 1, ms) == 1;
}

// freeze_shard1 stops the thread of shard 1 and returns its id; `*shard0`
// gets shard 0's. fd0 and fd1 are idle connections on shards 0 and 1: with
// the right thread stopped a PING on fd0 is answered and one on fd1 is not
// (its answer comes once the thread runs again, and is read then).
static pid_t freeze_shard1(const struct keepd_proc *p, int fd0, struct keepd_reader *r0, int fd1,
                           pid_t *shard0) {
  pid_t tids[16];
  int n = list_threads(p->pid, tids, 16);
  ck_assert_int_eq(n, 3); // main thread and two shards
  for (int i = 0; i < n; i++) {
    if (tids[i] == p->pid)
      continue;
    thread_freeze(tids[i]);
    send_ping(fd0, 500);
    send_ping(fd1, 501);
    struct pollfd pfd[2] = {{.fd = fd0, .events = POLLIN}, {.fd = fd1, .events = POLLIN}};
    ck_assert_int_ge(poll(pfd, 2, 5000), 1);
    if ((pfd[0].revents & POLLIN) && !readable_within(fd1, 300)) {
      expect_answer(fd0, r0, KEEP_OP_OK, 500, 0);
      for (int j = 0; j < n; j++)
        if (tids[j] != p->pid && tids[j] != tids[i])
          *shard0 = tids[j];
      return tids[i];
    }
    // Shard 0's thread (or neither answered yet): let it run and go on.
    thread_thaw(tids[i]);
    expect_answer(fd0, r0, KEEP_OP_OK, 500, 0);
    struct keepd_reader *r1 = keepd_reader_new();
    expect_answer(fd1, r1, KEEP_OP_OK, 501, 1);
    ck_assert_uint_eq(r1->len, r1->consumed); // nothing else was pending
    keepd_reader_free(r1);
  }
  ck_abort_msg("no thread of keepd %d serves shard 1", (int)p->pid);
  return 0;
}

// fill_ring makes shard 0 send `rounds` batches, one INCR of `key` (owned
// by the stopped shard 1) each, over connection `a`. Each INCR goes with a
// PUBLISH to `topic`, a topic of shard 0 that `e` (on shard 0) subscribes
// to as subscription 7: the event leaves at the end of the loop turn that
// read the pair, so the next INCR, sent once the event is in, falls into a
// later turn and a batch of its own. (A PING on a second connection as the
// marker was not enough: now and then its answer left before the INCR was
// read, and two INCRs shared a batch.)
static void fill_ring(int a, int e, struct keepd_reader *re, const char *key, const char *topic,
                      unsigned rounds) {
  for (unsigned i = 1; i <= rounds; i++) {
    keep_frame f[2] = {keyed(KEEP_OP_INCR, i, key), keyed(KEEP_OP_PUBLISH, PUB_ID + i, topic)};
    f[0].num = 1;
    uint8_t buf[2 * 512];
    size_t off = 0, len;
    for (int k = 0; k < 2; k++) {
      if (keep_frame_encode(buf + off, sizeof buf - off, &len, &f[k]) != 0)
        ck_abort_msg("cannot encode round %u", i);
      off += len;
    }
    if (send(a, buf, off, MSG_NOSIGNAL) != (ssize_t)off)
      ck_abort_msg("round %u not sent: %s", i, strerror(errno));
    keep_frame ev;
    keep_frame_init(&ev, 0, 0); // for the message should the read fail
    if (!read_answer_quiet(e, re, &ev) || ev.opcode != KEEP_OP_EVENT || ev.id != 7 || ev.num != i)
      ck_abort_msg("round %u: no event 7/%u (opcode %u id %llu num %llu)", i, i, ev.opcode,
                   (unsigned long long)ev.id, (unsigned long long)ev.num);
  }
}

// subscribe_mark makes `e` subscribe (as 7) to a topic of shard 0 whose
// name it writes into `topic`.
static void subscribe_mark(int e, struct keepd_reader *re, char *topic, size_t cap) {
  key_on_shard(topic, cap, "mark", 0, 0);
  send_plain(e, KEEP_OP_SUBSCRIBE, 7, topic);
  expect_answer(e, re, KEEP_OP_OK, 7, 0);
}

// Once the ring to a stalled shard is full, shard 0 keeps the batches for
// it in a backlog, in order, and refuses forwarded requests with BUSY once
// the backlog passes 64 MiB. When the shard runs again, the backlog is
// flushed and every request gets its answer: the INCRs in order, the big
// SETs up to the limit stored, those past it answered BUSY and not stored.
START_TEST(backlog_holds_batches_until_owner_resumes) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "2", "--busy-poll", "1000", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int a = conn_on_shard(&p, 0), b = conn_on_shard(&p, 0), e = conn_on_shard(&p, 0);
  int c1 = conn_on_shard(&p, 1);
  struct keepd_reader *ra = keepd_reader_new(), *rb = keepd_reader_new(), *re = keepd_reader_new(),
                      *rc = keepd_reader_new();
  char ctr[32], topic[32];
  key_on_shard(ctr, sizeof ctr, "ctr", 0, 1);
  // `e` hears, through a topic of shard 0, when `a`'s last request was read.
  subscribe_mark(e, re, topic, sizeof topic);
  pid_t shard0;
  pid_t tid = freeze_shard1(&p, b, rb, c1, &shard0);

  enum { EXTRA_ROUNDS = 100, BIG = 72, BIG_LEN = 1000000 };
  const unsigned rounds = RING_SLOTS + EXTRA_ROUNDS;
  fill_ring(a, e, re, ctr, topic, rounds);
  // The batches past the ring's capacity wait in the backlog; what goes
  // on counts against MAX_FORWARD (record header and frame).
  keep_frame probe = keyed(KEEP_OP_INCR, rounds, ctr);
  probe.num = 1;
  uint64_t backlog = EXTRA_ROUNDS * (REC_HEADER + keep_frame_encoded_len(&probe));
  uint8_t *v = malloc(BIG_LEN);
  ck_assert_ptr_nonnull(v);
  memset(v, 'B', BIG_LEN);
  char bigs[BIG][32];
  unsigned from = 0, forwarded = 0;
  for (unsigned j = 0; j < BIG; j++) {
    from = key_on_shard(bigs[j], sizeof bigs[j], "big", from, 1) + 1;
    keep_frame f = keyed(KEEP_OP_SET, 100000 + j, bigs[j]);
    f.value = v;
    f.value_len = BIG_LEN;
    if (backlog <= MAX_FORWARD) {
      backlog += REC_HEADER + keep_frame_encoded_len(&f);
      forwarded++;
    }
    keepd_send_frame(a, &f);
  }
  ck_assert_uint_gt(forwarded, 60);
  ck_assert_uint_lt(forwarded, BIG);
  keep_frame pub = keyed(KEEP_OP_PUBLISH, 200000, topic);
  keepd_send_frame(a, &pub);
  expect_answer(e, re, KEEP_OP_EVENT, 7, rounds + 1);

  thread_thaw(tid);
  expect_answer(c1, rc, KEEP_OP_OK, 501, 1); // the PING of freeze_shard1
  unsigned next_incr = 1, ok_big = 0, busy_big = 0;
  bool published = false;
  unsigned pubs = 0;
  for (unsigned i = 0; i < 2 * rounds + BIG + 1; i++) {
    keep_frame f;
    if (!read_answer_quiet(a, ra, &f))
      ck_abort_msg("answer %u missing", i);
    bool right;
    if (f.id >= 1 && f.id <= rounds) {
      // One key on one shard: executed, and answered, in request order.
      right = f.opcode == KEEP_OP_OK && f.id == next_incr && f.num == next_incr;
      next_incr++;
    } else if (f.id >= 100000 && f.id < 100000 + BIG) {
      unsigned j = (unsigned)(f.id - 100000);
      right = f.opcode == (j < forwarded ? KEEP_OP_OK : KEEP_OP_BUSY);
      ok_big += f.opcode == KEEP_OP_OK;
      busy_big += f.opcode == KEEP_OP_BUSY;
    } else if (f.id > PUB_ID && f.id <= PUB_ID + rounds) {
      right = f.opcode == KEEP_OP_OK && f.num == 1;
      pubs++;
    } else {
      right = f.id == 200000 && f.opcode == KEEP_OP_OK && f.num == 1 && !published;
      published = true;
    }
    if (!right)
      ck_abort_msg("answer %u: opcode %u id %llu num %llu", i, f.opcode, (unsigned long long)f.id,
                   (unsigned long long)f.num);
  }
  ck_assert_uint_eq(next_incr, rounds + 1);
  ck_assert_uint_eq(pubs, rounds);
  ck_assert_uint_eq(ok_big, forwarded);
  ck_assert_uint_eq(busy_big, BIG - forwarded);
  ck_assert(published);
  // What was forwarded is stored, what was refused is not.
  send_plain(a, KEEP_OP_GET, 1, bigs[0]);
  expect_value(a, ra, 1, BIG_LEN, 'B');
  send_plain(a, KEEP_OP_GET, 2, bigs[forwarded - 1]);
  expect_value(a, ra, 2, BIG_LEN, 'B');
  send_plain(a, KEEP_OP_GET, 3, bigs[forwarded]);
  expect_answer(a, ra, KEEP_OP_NOT_FOUND, 3, 0);
  send_plain(a, KEEP_OP_GET, 4, bigs[BIG - 1]);
  expect_answer(a, ra, KEEP_OP_NOT_FOUND, 4, 0);
  send_incr(c1, 5, ctr, 0);
  expect_answer(c1, rc, KEEP_OP_OK, 5, rounds);
  free(v);
  keepd_reader_free(ra);
  keepd_reader_free(rb);
  keepd_reader_free(re);
  keepd_reader_free(rc);
  close(a);
  close(b);
  close(e);
  close(c1);
  keepd_stop_or_fail(&p);
}
END_TEST

// SIGTERM while shard 1 is stopped with a full ring and a backlog: shard 0
// ends its loop with batches still waiting, shard 1 runs again afterwards,
// and the daemon still exits with status 0, freeing what the rings and the
// backlog hold (the sanitizer build's leak check sees the rest).
START_TEST(exit_with_backlog_waiting) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "2", "--busy-poll", "1000", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int a = conn_on_shard(&p, 0), b = conn_on_shard(&p, 0), e = conn_on_shard(&p, 0);
  int c1 = conn_on_shard(&p, 1);
  struct keepd_reader *rb = keepd_reader_new(), *re = keepd_reader_new();
  char ctr[32], topic[32];
  key_on_shard(ctr, sizeof ctr, "ctr", 0, 1);
  subscribe_mark(e, re, topic, sizeof topic);
  pid_t shard0;
  pid_t tid = freeze_shard1(&p, b, rb, c1, &shard0);
  fill_ring(a, e, re, ctr, topic, RING_SLOTS + 50);
  pid_t pid = p.pid;
  ck_assert_int_eq(kill(pid, SIGTERM), 0);
  // Shard 0's thread ends (its task leaves /proc) while shard 1 is stopped.
  char task[64];
  snprintf(task, sizeof task, "/proc/%d/task/%d", (int)pid, (int)shard0);
  struct stat st;
  for (int i = 0; i < 500 && stat(task, &st) == 0; i++)
    keepd_sleep_ms(10);
  ck_assert_int_ne(stat(task, &st), 0);
  thread_thaw(tid);
  p.pid = 0;
  ck_assert_int_eq(keepd_wait_exit(pid), 0);
  // The held answers never left: the connection just ends.
  uint8_t buf[4096];
  ssize_t n;
  while ((n = recv(a, buf, sizeof buf, 0)) > 0) {
  }
  ck_assert_msg(n == 0 || errno == ECONNRESET, "connection not ended: %s", strerror(errno));
  keepd_reader_free(rb);
  keepd_reader_free(re);
  close(a);
  close(b);
  close(e);
  close(c1);
  keepd_stop(&p);
}
END_TEST

// A client that sends requests but does not read: once 8 MiB of answers
// wait, the daemon stops executing its requests (a later INCR is not done,
// as another connection sees), and resumes where it stopped when the
// client reads again.
START_TEST(unread_answers_pause_the_connection) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int a = keepd_raw_connect(&p, 65536, RAW_TIMEOUT_S), b = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  struct keepd_reader *ra = keepd_reader_new(), *rb = keepd_reader_new();
  enum { LEN = KEEP_MAX_VALUE_HARD, GETS = 40 };
  uint8_t *v = malloc(LEN);
  ck_assert_ptr_nonnull(v);
  memset(v, 'g', LEN);
  send_set(b, 1, "big", v, LEN, 0);
  expect_answer(b, rb, KEEP_OP_OK, 1, 0);
  for (unsigned i = 1; i <= GETS; i++)
    send_plain(a, KEEP_OP_GET, i, "big");
  send_incr(a, GETS + 1, "after", 1);
  // At most a few answers fit the socket buffers; the rest stay behind.
  uint8_t one;
  ck_assert_int_eq(recv(a, &one, 1, MSG_PEEK), 1);
  send_plain(b, KEEP_OP_GET, 2, "after");
  expect_answer(b, rb, KEEP_OP_NOT_FOUND, 2, 0);
  for (unsigned i = 1; i <= GETS; i++)
    expect_value(a, ra, i, LEN, 'g');
  expect_answer(a, ra, KEEP_OP_OK, GETS + 1, 1);
  send_plain(b, KEEP_OP_GET, 3, "after");
  keep_frame f;
  read_answer(b, rb, &f);
  ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
  ck_assert_uint_eq(f.flags, KEEP_FLAG_COUNTER);
  ck_assert_uint_eq(f.num, 1);
  free(v);
  keepd_reader_free(ra);
  keepd_reader_free(rb);
  close(a);
  close(b);
  keepd_stop_or_fail(&p);
}
END_TEST

// connection_refused tells whether a new connection is closed at once, as
// by a daemon at its connection limit (end of stream or a reset instead of
// the answer to a PING).
static bool connection_refused(const struct keepd_proc *p) {
  int fd = keepd_raw_connect(p, 0, RAW_TIMEOUT_S);
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_PING, 9);
  uint8_t buf[64];
  size_t len, got = 0, used;
  ck_assert_int_eq(keep_frame_encode(buf, sizeof buf, &len, &f), 0);
  (void)send(fd, buf, len, MSG_NOSIGNAL); // fails if the daemon closed it already
  for (;;) {
    ssize_t n = recv(fd, buf + got, sizeof buf - got, 0);
    if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE))) {
      close(fd);
      return true;
    }
    ck_assert_msg(n > 0, "no answer: %s", strerror(errno));
    got += (size_t)n;
    int rc = keep_frame_decode(&f, &used, buf, got, 0);
    ck_assert_int_ge(rc, 0);
    if (rc == 1) {
      ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
      ck_assert_uint_eq(f.id, 9);
      close(fd);
      return false;
    }
  }
}

// With max_connections = 2, a third connection is closed on arrival. A
// client that resets its connection while the daemon still has answers to
// send it frees its place: the daemon's send fails and closes it.
START_TEST(reset_with_output_pending_frees_the_connection) {
  char path[] = "/tmp/keepd-conns-XXXXXX";
  int cfd = mkstemp(path);
  ck_assert_int_ge(cfd, 0);
  close(cfd);
  keepd_write_file(path, "[keepd]\nmax_connections = 2\n");
  struct keepd_proc p;
  const char *extra[] = {"--config", path, "--shards", "1", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  unlink(path);
  int b = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S), a = keepd_raw_connect(&p, 65536, RAW_TIMEOUT_S);
  struct keepd_reader *rb = keepd_reader_new();
  enum { LEN = KEEP_MAX_VALUE_HARD, GETS = 20 };
  uint8_t *v = malloc(LEN);
  ck_assert_ptr_nonnull(v);
  memset(v, 'r', LEN);
  send_set(b, 1, "big", v, LEN, 0);
  expect_answer(b, rb, KEEP_OP_OK, 1, 0);
  for (unsigned i = 1; i <= GETS; i++)
    send_plain(a, KEEP_OP_GET, i, "big");
  uint8_t one;
  ck_assert_int_eq(recv(a, &one, 1, MSG_PEEK), 1); // its answers are on their way
  ck_assert(connection_refused(&p));
  struct linger hard = {1, 0};
  ck_assert_int_eq(setsockopt(a, SOL_SOCKET, SO_LINGER, &hard, sizeof hard), 0);
  close(a); // a reset, with megabytes of answers unsent
  bool admitted = false;
  for (int i = 0; i < 100 && !admitted; i++) {
    admitted = !connection_refused(&p);
    if (!admitted)
      keepd_sleep_ms(20);
  }
  ck_assert_msg(admitted, "the reset connection still holds its place");
  send_plain(b, KEEP_OP_GET, 2, "big");
  expect_value(b, rb, 2, LEN, 'r');
  free(v);
  keepd_reader_free(rb);
  close(b);
  keepd_stop_or_fail(&p);
}
END_TEST

// ask_many sends `n` frames built by `make` for indexes from..from+n-1 in
// one write and reads their answers (one shard: in order) into `codes`:
// 0 for OK, the error code for ERROR, 1000 + opcode for anything else.
typedef keep_frame (*frame_maker)(unsigned i, char *key, size_t key_cap);

static void ask_many(int fd, struct keepd_reader *r, frame_maker make, unsigned from, unsigned n,
                     unsigned *codes) {
  size_t cap = 0, off = 0;
  for (unsigned i = 0; i < n; i++) {
    char key[64];
    keep_frame f = make(from + i, key, sizeof key);
    cap += keep_frame_encoded_len(&f);
  }
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  for (unsigned i = 0; i < n; i++) {
    char key[64];
    keep_frame f = make(from + i, key, sizeof key);
    size_t len;
    ck_assert_int_eq(keep_frame_encode(buf + off, cap - off, &len, &f), 0);
    off += len;
  }
  keepd_raw_send(fd, buf, off);
  free(buf);
  for (unsigned i = 0; i < n; i++) {
    keep_frame f;
    read_answer(fd, r, &f);
    ck_assert_uint_eq(f.id, from + i);
    codes[i] = f.opcode == KEEP_OP_OK      ? 0
               : f.opcode == KEEP_OP_ERROR ? (unsigned)f.num
                                           : 1000u + f.opcode;
  }
}

// fill_until_full asks in batches until a batch has an answer other than
// OK, which must be OUT_OF_MEMORY, as must every later one of that batch
// (nothing frees memory meanwhile). Returns how many were stored.
static unsigned fill_until_full(int fd, struct keepd_reader *r, frame_maker make, unsigned batch,
                                unsigned limit) {
  unsigned *codes = malloc(batch * sizeof *codes);
  ck_assert_ptr_nonnull(codes);
  for (unsigned from = 0; from < limit; from += batch) {
    ask_many(fd, r, make, from, batch, codes);
    for (unsigned i = 0; i < batch; i++) {
      if (codes[i] == 0)
        continue;
      for (unsigned j = i; j < batch; j++)
        ck_assert_uint_eq(codes[j], KEEP_CODE_OUT_OF_MEMORY);
      free(codes);
      return from + i;
    }
  }
  free(codes);
  ck_abort_msg("%u writes and no OUT_OF_MEMORY", limit);
  return 0;
}

static keep_frame small_set(unsigned i, char *key, size_t cap) {
  snprintf(key, cap, "t%05u", i); // inline in a table slot: no record
  keep_frame f = keyed(KEEP_OP_SET, i, key);
  f.value = (const uint8_t *)"12345678";
  f.value_len = 8;
  return f;
}

// With inline keys only, the 1 MiB cap is reached by the table, which can
// no longer grow: every new key is refused with OUT_OF_MEMORY, whether a
// SET, a LOCK or an INCR, while the keys in place can be read and
// replaced, and one deletion makes room for exactly one new key.
START_TEST(full_table_refuses_new_keys) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", "--memory-cap", "1M", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int fd = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  struct keepd_reader *r = keepd_reader_new();
  unsigned stored = fill_until_full(fd, r, small_set, 1024, 200000);
  // A table of 176-byte buckets of 7 slots that must fit twice over to
  // grow: between 2,600 and 3,400 buckets at the end.
  ck_assert_uint_gt(stored, 15000);
  ck_assert_uint_lt(stored, 25000);
  send_lock(fd, 1, "lk", 1000);
  expect_error(fd, r, 1, KEEP_CODE_OUT_OF_MEMORY);
  send_incr(fd, 2, "nc", 3);
  expect_error(fd, r, 2, KEEP_CODE_OUT_OF_MEMORY);
  send_incr(fd, 3, "long-counter-key", 3);
  expect_error(fd, r, 3, KEEP_CODE_OUT_OF_MEMORY);
  send_set(fd, 4, "t00000", "abcdefgh", 8, 0); // replaced in its slot
  expect_answer(fd, r, KEEP_OP_OK, 4, 0);
  send_plain(fd, KEEP_OP_GET, 5, "t00000");
  keep_frame f;
  read_answer(fd, r, &f);
  ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
  ck_assert_uint_eq(f.value_len, 8);
  ck_assert_mem_eq(f.value, "abcdefgh", 8);
  char last[16];
  snprintf(last, sizeof last, "t%05u", stored - 1);
  send_plain(fd, KEEP_OP_GET, 6, last);
  read_answer(fd, r, &f);
  ck_assert_uint_eq(f.opcode, KEEP_OP_OK);
  ck_assert_uint_eq(f.value_len, 8);
  ck_assert_mem_eq(f.value, "12345678", 8);
  send_plain(fd, KEEP_OP_DEL, 7, "t00000");
  expect_answer(fd, r, KEEP_OP_OK, 7, 0);
  send_incr(fd, 8, "nc", 3);
  expect_answer(fd, r, KEEP_OP_OK, 8, 3);
  send_lock(fd, 9, "lk", 1000);
  expect_error(fd, r, 9, KEEP_CODE_OUT_OF_MEMORY);
  keepd_reader_free(r);
  close(fd);
  keepd_stop_or_fail(&p);
}
END_TEST

static keep_frame big_set(unsigned i, char *key, size_t cap) {
  static uint8_t v[60000]; // a 64 KiB record each
  snprintf(key, cap, "v%u", i);
  keep_frame f = keyed(KEEP_OP_SET, i, key);
  f.value = v;
  f.value_len = sizeof v;
  return f;
}

static keep_frame record_set(unsigned i, char *key, size_t cap) {
  snprintf(key, cap, "record%05u", i); // 11 bytes: a record, not a slot
  keep_frame f = keyed(KEEP_OP_SET, i, key);
  f.value = (const uint8_t *)"x";
  f.value_len = 1;
  return f;
}

static keep_frame far_set(unsigned i, char *key, size_t cap) {
  snprintf(key, cap, "f%u", i);
  keep_frame f = keyed(KEEP_OP_SET, i, key);
  f.value = (const uint8_t *)"y";
  f.value_len = 1;
  f.num = 30ull * 24 * 3600 * 1000; // too far ahead for a slot: a record
  return f;
}

// With the arena full (big values first, then small records up to the last
// byte) and room left in the table, a LOCK and an INCR of a long key are
// refused when their record is made, and a SET whose deadline is too far
// ahead for a slot when it is placed; a deletion makes room for them again.
START_TEST(full_arena_refuses_records) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", "--memory-cap", "1M", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int fd = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  struct keepd_reader *r = keepd_reader_new();
  unsigned bigs = fill_until_full(fd, r, big_set, 1, 100);
  ck_assert_uint_eq(bigs, 15); // 15 of 64 KiB and the first table fit 1 MiB
  unsigned records = fill_until_full(fd, r, record_set, 64, 5000);
  ck_assert_uint_gt(records, 100);
  send_lock(fd, 1, "lockkey0000", 1000);
  expect_error(fd, r, 1, KEEP_CODE_OUT_OF_MEMORY);
  send_incr(fd, 2, "incrkey0000", 5);
  expect_error(fd, r, 2, KEEP_CODE_OUT_OF_MEMORY);
  unsigned far = fill_until_full(fd, r, far_set, 1, 100);
  ck_assert_uint_eq(far, 0); // same size class as the records: none fits
  send_plain(fd, KEEP_OP_GET, 3, "v0");
  expect_value(fd, r, 3, 60000, 0);
  send_plain(fd, KEEP_OP_DEL, 4, "v0");
  expect_answer(fd, r, KEEP_OP_OK, 4, 0);
  send_lock(fd, 5, "lockkey0000", 1000);
  expect_answer(fd, r, KEEP_OP_OK, 5, 1000);
  send_incr(fd, 6, "incrkey0000", 5);
  expect_answer(fd, r, KEEP_OP_OK, 6, 5);
  char key[16];
  keep_frame f = far_set(7, key, sizeof key);
  keepd_send_frame(fd, &f);
  expect_answer(fd, r, KEEP_OP_OK, 7, 0);
  keepd_reader_free(r);
  close(fd);
  keepd_stop_or_fail(&p);
}
END_TEST

// Two topics in one hash bucket: ending the subscription of the older one
// (not the bucket's first) removes that topic only; the other still
// delivers to its subscriber.
START_TEST(topic_behind_another_in_its_bucket) {
  static const uint8_t secret[KEEP_SECRET_LEN] = {1, 2,  3,  4,  5,  6,  7,  8,
                                                  9, 10, 11, 12, 13, 14, 15, 16};
  char older[32] = "", newer[32] = "";
  int bucket_of[4096];
  for (int i = 0; i < 4096 && newer[0] == 0; i++) {
    char name[32];
    int len = snprintf(name, sizeof name, "topic%d", i);
    uint64_t h = keep_key_hash(secret, (const uint8_t *)name, (size_t)len);
    bucket_of[i] = (int)((h >> 14) % 1024); // KEEPD_TOPIC_BUCKETS, topic_bucket()
    for (int j = 0; j < i; j++)
      if (bucket_of[j] == bucket_of[i]) {
        snprintf(older, sizeof older, "topic%d", j);
        snprintf(newer, sizeof newer, "%s", name);
        break;
      }
  }
  ck_assert(newer[0] != 0);
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", "--secret", "0102030405060708090a0b0c0d0e0f10", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int s = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S), pub = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  struct keepd_reader *rs = keepd_reader_new(), *rp = keepd_reader_new();
  send_plain(s, KEEP_OP_SUBSCRIBE, 1, older);
  expect_answer(s, rs, KEEP_OP_OK, 1, 0);
  send_plain(s, KEEP_OP_SUBSCRIBE, 2, newer);
  expect_answer(s, rs, KEEP_OP_OK, 2, 0);
  send_plain(s, KEEP_OP_UNSUBSCRIBE, 3, older);
  expect_answer(s, rs, KEEP_OP_OK, 3, 0);
  keep_frame f = keyed(KEEP_OP_PUBLISH, 4, older);
  keepd_send_frame(pub, &f);
  expect_answer(pub, rp, KEEP_OP_OK, 4, 0);
  f = keyed(KEEP_OP_PUBLISH, 5, newer);
  f.value = (const uint8_t *)"hi";
  f.value_len = 2;
  keepd_send_frame(pub, &f);
  expect_answer(pub, rp, KEEP_OP_OK, 5, 1);
  read_answer(s, rs, &f);
  ck_assert_uint_eq(f.opcode, KEEP_OP_EVENT);
  ck_assert_uint_eq(f.id, 2);
  ck_assert_uint_eq(f.num, 1);
  ck_assert_uint_eq(f.key_len, strlen(newer));
  ck_assert_mem_eq(f.key, newer, strlen(newer));
  ck_assert_uint_eq(f.value_len, 2);
  send_plain(s, KEEP_OP_UNSUBSCRIBE, 6, older);
  expect_answer(s, rs, KEEP_OP_NOT_FOUND, 6, 0);
  send_plain(s, KEEP_OP_UNSUBSCRIBE, 7, newer);
  expect_answer(s, rs, KEEP_OP_OK, 7, 0);
  keepd_reader_free(rs);
  keepd_reader_free(rp);
  close(s);
  close(pub);
  keepd_stop_or_fail(&p);
}
END_TEST

// A connection with more pipelined requests than one turn executes stays
// on the pending list; connections closing meanwhile must not take it off:
// all its requests are answered, in order.
START_TEST(pipelining_survives_other_closes) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  enum { IDLE = 8, PINGS = 200000 };
  int idle[IDLE];
  for (int i = 0; i < IDLE; i++)
    idle[i] = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  int a = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  static uint8_t buf[PINGS * KEEP_HEADER_LEN];
  size_t off = 0;
  for (unsigned i = 1; i <= PINGS; i++) {
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_PING, i);
    size_t len;
    ck_assert_int_eq(keep_frame_encode(buf + off, sizeof buf - off, &len, &f), 0);
    off += len;
  }
  ck_assert_uint_gt(PINGS, 100 * PIPELINE_BOUND);
  keepd_raw_send(a, buf, off);
  // The daemon is still working through them (2,048 a turn at most): the
  // closes, spread over a few milliseconds, land in turns where `a` is
  // on the pending list.
  for (int i = 0; i < IDLE; i++) {
    close(idle[i]);
    keepd_sleep_ms(1);
  }
  struct keepd_reader *r = keepd_reader_new();
  for (unsigned i = 1; i <= PINGS; i++) {
    keep_frame f;
    keep_frame_init(&f, 0, 0);
    if (!read_answer_quiet(a, r, &f) || f.opcode != KEEP_OP_OK || f.id != i)
      ck_abort_msg("answer %u missing or wrong (opcode %u id %llu)", i, f.opcode,
                   (unsigned long long)f.id);
  }
  keepd_reader_free(r);
  close(a);
  keepd_stop_or_fail(&p);
}
END_TEST

// HANDOFF_DONE is a request only a cluster member takes: a single keepd
// answers UNKNOWN_OP and keeps the connection.
START_TEST(handoff_done_to_single_keepd) {
  struct keepd_proc p;
  const char *extra[] = {"--shards", "1", NULL};
  keepd_start_or_fail(&p, keepd_bin, extra);
  int fd = keepd_raw_connect(&p, 0, RAW_TIMEOUT_S);
  struct keepd_reader *r = keepd_reader_new();
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_HANDOFF_DONE, 31);
  f.num = 11;
  f.text = (const uint8_t *)"0123456789abcdef";
  f.text_len = 16;
  keepd_send_frame(fd, &f);
  expect_error(fd, r, 31, KEEP_CODE_UNKNOWN_OP);
  send_ping(fd, 32);
  expect_answer(fd, r, KEEP_OP_OK, 32, 0);
  keepd_reader_free(r);
  close(fd);
  keepd_stop_or_fail(&p);
}
END_TEST

int main(int argc, char **argv) {
  TCase *tc = tcase_create("shard");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, backlog_holds_batches_until_owner_resumes);
  tcase_add_test(tc, exit_with_backlog_waiting);
  tcase_add_test(tc, unread_answers_pause_the_connection);
  tcase_add_test(tc, reset_with_output_pending_frees_the_connection);
  tcase_add_test(tc, full_table_refuses_new_keys);
  tcase_add_test(tc, full_arena_refuses_records);
  tcase_add_test(tc, topic_behind_another_in_its_bucket);
  tcase_add_test(tc, pipelining_survives_other_closes);
  tcase_add_test(tc, handoff_done_to_single_keepd);
  return keepd_suite_main(argc, argv, &keepd_bin, "keepd-shard-paths", tc);
}
