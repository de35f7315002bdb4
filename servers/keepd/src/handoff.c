// handoff.c: the key handoff of a clean leave, both sides, and the same
// pull towards a member that joins or rejoins. The leaving
// member, which answers BUSY for every key from the moment it announces the
// leave, serves HANDOFF_PULL pages out of each shard's store (a walk of the
// table by cursor, exact because nothing is inserted any more) and waits for
// each live peer's HANDOFF_DONE. A member that takes some of its slots
// answers BUSY for them (cluster.c), and its handoff thread pulls them over
// one TCP connection: it first clears whatever its shards still hold for
// those slots from an earlier time, then hands each page's keys to the
// shards that own them (each shard stores them in its own loop, so the store
// stays single-threaded), confirms, and finally lets the slots be served
// without the lock quarantine, since every lock of theirs came along with
// its remaining lease. Any failure (the leaving member dies, stops
// answering, or the data does not check) leaves the quarantine in place.
// A joining member pulls the slots it starts serving from their interim
// owner in the same way, without the confirmation and without skipping the
// quarantine; the interim owner hands a slot out once it has stopped
// serving it (join_settled()).
// Requests are authenticated like heartbeats: HMAC-SHA256 under the
// heartbeat key over the request and the serving member's incarnation; with
// mutual TLS on, they also travel inside a member-to-member TLS connection
// made with the cluster key (keepd_tls.h).
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/digest.h>
#include <openssl/hmac.h>
#include <openssl/mem.h>

#include "keepd_cluster_internal.h"
#include "keepd_server.h"

#define MAC_LEN 32u
#define CURSOR_DONE UINT64_MAX
// How long the handoff thread waits for a shard to store a batch: a shard
// loop turns every 10 ms, so only a stopping daemon takes this long.
#define APPLY_WAIT_MS 5000u
// A BUSY answer to a pull (the leave not yet effective on every shard) is
// retried this often, within KEEPD_HANDOFF_IO_MS.
#define BUSY_RETRY_MS 10u
// A page also ends after this many keys looked at, wanted or not, so that
// one request never walks a large store at once.
#define PAGE_VISITS 65536u

// keepd_ho_batch is what the handoff thread leaves for one shard: slots to
// clear first, then ENTRY frames to store.
struct keepd_ho_batch {
  const uint8_t *purge; // a slot bitmap, or NULL
  const uint8_t *frames;
  size_t len;
  int status; // written by the shard before `done`
  atomic_bool done;
};

static bool bit_of(const uint8_t *map, uint32_t slot) {
  return (map[slot >> 3] >> (slot & 7)) & 1;
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static uint32_t slot_of_key(const struct keepd_cluster *cl, const uint8_t *key, size_t key_len) {
  return keep_hash_slot(keep_key_hash(cl->secret, key, key_len));
}

// mac computes HMAC-SHA256 under the heartbeat key of a label (which keeps
// pulls, confirmations and heartbeats apart), three numbers and `extra`.
static void mac(const struct keepd_cluster *cl, uint8_t out[MAC_LEN], const char *label, uint64_t a,
                uint64_t b, uint64_t inc, const uint8_t *extra, size_t extra_len) {
  uint8_t nums[24];
  keep_put_le(nums, 8, a);
  keep_put_le(nums + 8, 8, b);
  keep_put_le(nums + 16, 8, inc);
  HMAC_CTX ctx;
  HMAC_CTX_init(&ctx);
  unsigned len = 0;
  if (!HMAC_Init_ex(&ctx, cl->key, sizeof cl->key, EVP_sha256(), NULL) ||
      !HMAC_Update(&ctx, (const uint8_t *)label, strlen(label)) ||
      !HMAC_Update(&ctx, nums, sizeof nums) ||
      (extra_len > 0 && !HMAC_Update(&ctx, extra, extra_len)) || !HMAC_Final(&ctx, out, &len))
    memset(out, 0, MAC_LEN); // matches nothing a peer computed
  HMAC_CTX_cleanup(&ctx);
}

static int peer_index(const struct keepd_cluster *cl, uint64_t id) {
  for (unsigned j = 0; j < cl->n; j++)
    if (j != cl->self && cl->ids[j] == id)
      return (int)j;
  return -1;
}

// Answers, written like shard.c's (a daemon dies on out-of-memory).

static void out_frame(struct keepd_buf *b, const keep_frame *f) {
  size_t need = keep_frame_encoded_len(f), len;
  if (need == 0)
    abort(); // every frame built here is encodable: a bug otherwise
  if (b->cap - b->len < need) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < need)
      cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL)
      abort();
    b->p = p;
    b->cap = cap;
  }
  if (keep_frame_encode(b->p + b->len, b->cap - b->len, &len, f) != 0)
    abort();
  b->len += len;
}

static void out_answer(struct keepd_buf *b, uint8_t opcode, uint64_t id) {
  keep_frame f;
  keep_frame_init(&f, opcode, id);
  out_frame(b, &f);
}

static void out_error(struct keepd_buf *b, uint64_t id, unsigned code, const char *text) {
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_ERROR, id);
  f.num = code;
  f.text = (const uint8_t *)text;
  f.text_len = strlen(text);
  out_frame(b, &f);
}

// The serving side: a leaving member, or the interim owner of a joining
// member's slots.

uint32_t keepd_handoff_pull_slot(const keep_frame *f) {
  return (uint32_t)(f->num >> 16) & (KEEP_SLOTS - 1);
}

// join_settled says whether a member that is not leaving may hand peer `j`
// the slots of `bitmap`: its view gives each of them to `j`, and it stopped
// serving each long enough ago that nothing routed before is still on its
// way to the store.
static bool join_settled(struct keepd_cluster *cl, unsigned j, const uint8_t *bitmap,
                         uint64_t now) {
  const struct view *v = atomic_load_explicit(&cl->view, memory_order_acquire);
  if (v == NULL)
    return false;
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    if (!bit_of(bitmap, s))
      continue;
    uint64_t until = atomic_load_explicit(&cl->served_until[s], memory_order_relaxed);
    if (v->owner[s] != j || now < until + KEEPD_JOIN_SETTLE_MS * MS)
      return false;
  }
  return true;
}

// join_recent says whether this member served `slot` lately enough for its
// keys to be the slot's latest contents.
static bool join_recent(struct keepd_cluster *cl, uint32_t slot, uint64_t now) {
  uint64_t until = atomic_load_explicit(&cl->served_until[slot], memory_order_relaxed);
  return until != 0 && now - until < KEEPD_JOIN_RECENT_MS * MS;
}

void keepd_handoff_serve(struct keepd_cluster *cl, struct keepd_store *st, unsigned shard,
                         unsigned num_shards, const keep_frame *f, uint64_t now,
                         struct keepd_buf *b) {
  if (cl == NULL) {
    out_error(b, f->id, KEEP_CODE_UNKNOWN_OP, "not a cluster member");
    return;
  }
  bool leaving = atomic_load(&cl->leaving);
  int j = peer_index(cl, f->num & 0xffff);
  bool shaped = j >= 0 && f->value_len == KEEPD_HANDOFF_BITMAP_LEN;
  if (!leaving && (!shaped || !join_settled(cl, (unsigned)j, f->value, now))) {
    out_answer(b, KEEP_OP_BUSY, f->id); // its keys may still change
    return;
  }
  uint8_t want[MAC_LEN];
  if (!shaped || f->text_len != MAC_LEN) {
    out_error(b, f->id, KEEP_CODE_INVALID, "bad handoff request");
    return;
  }
  mac(cl, want, "keep/1 handoff pull", f->num, f->num2, cl->inc, f->value, f->value_len);
  if (CRYPTO_memcmp(want, f->text, MAC_LEN) != 0) {
    out_error(b, f->id, KEEP_CODE_INVALID, "bad handoff request");
    return;
  }
  // The slots of this shard: slot s belongs to shard s * n / KEEP_SLOTS.
  uint32_t first = (uint32_t)(((uint64_t)shard * KEEP_SLOTS + num_shards - 1) / num_shards);
  uint32_t last =
      (uint32_t)(((uint64_t)(shard + 1) * KEEP_SLOTS + num_shards - 1) / num_shards) - 1;
  uint64_t cursor = f->num2;
  size_t entries = 0, bytes = 0, visited = 0;
  keepd_entry *e;
  int rc = 1;
  while (entries < KEEPD_HANDOFF_PAGE_ENTRIES && bytes < KEEPD_HANDOFF_PAGE_BYTES &&
         visited < PAGE_VISITS && (rc = keepd_store_next(st, &cursor, now, &e)) == 1) {
    visited++;
    uint32_t slot = slot_of_key(cl, e->key, e->key_len);
    if (!bit_of(f->value, slot) || (!leaving && !join_recent(cl, slot, now)))
      continue;
    keep_frame a;
    uint8_t le[8];
    keepd_handoff_entry_frame(&a, e, f->id, now, le);
    out_frame(b, &a);
    entries++;
    bytes += a.key_len + a.value_len + a.text_len + KEEP_HEADER_LEN;
  }
  if (rc < 0) {
    out_error(b, f->id, KEEP_CODE_INVALID, "store changed during the handoff");
    return;
  }
  keep_frame ok;
  uint8_t ls[2 + KEEPD_HANDOFF_BITMAP_LEN];
  keep_frame_init(&ok, KEEP_OP_OK, f->id);
  ok.num = rc == 0 ? CURSOR_DONE : cursor;
  keep_put_le(ls, 2, last);
  ok.value = ls;
  ok.value_len = 2;
  if (!leaving) {
    // A joining member also learns which of the wanted slots of this shard
    // this member served lately: its own copy of those is stale and goes,
    // whether or not any key comes with them. Once the last page is out,
    // the slots count as handed over: their keys here are no longer the
    // latest, and a later pull must not take them.
    memset(ls + 2, 0, KEEPD_HANDOFF_BITMAP_LEN);
    for (uint32_t s = first; s <= last; s++) {
      if (!bit_of(f->value, s) || !join_recent(cl, s, now))
        continue;
      ls[2 + (s >> 3)] |= (uint8_t)(1u << (s & 7));
      if (rc == 0)
        atomic_store_explicit(&cl->served_until[s], 0, memory_order_relaxed);
    }
    ok.value_len = sizeof ls;
  }
  out_frame(b, &ok);
}

void keepd_handoff_done(struct keepd_cluster *cl, const keep_frame *f, struct keepd_buf *b) {
  if (cl == NULL) {
    out_error(b, f->id, KEEP_CODE_UNKNOWN_OP, "not a cluster member");
    return;
  }
  if (!atomic_load(&cl->leaving)) {
    out_answer(b, KEEP_OP_BUSY, f->id);
    return;
  }
  uint8_t want[MAC_LEN];
  int j = peer_index(cl, f->num);
  if (j >= 0 && f->text_len == MAC_LEN)
    mac(cl, want, "keep/1 handoff done", f->num, 0, cl->inc, NULL, 0);
  if (j < 0 || f->text_len != MAC_LEN || CRYPTO_memcmp(want, f->text, MAC_LEN) != 0) {
    out_error(b, f->id, KEEP_CODE_INVALID, "bad handoff confirmation");
    return;
  }
  atomic_fetch_or(&cl->done_mask, 1ull << j);
  out_answer(b, KEEP_OP_OK, f->id);
}

// The receiving side: the shards.

// purge drops this shard's keys of the slots about to be received: they are
// left over from an earlier time this member owned them, and would
// otherwise reappear next to the handed-over keys.
static void purge(struct keepd_cluster *cl, struct keepd_store *st, const uint8_t *slots,
                  uint64_t now) {
  uint64_t cursor = 0;
  keepd_entry *e;
  while (keepd_store_next(st, &cursor, now, &e) == 1)
    if (bit_of(slots, slot_of_key(cl, e->key, e->key_len)))
      keepd_store_remove(st, e); // removing moves no other key: the cursor holds
}

void keepd_handoff_set_wake(struct keepd_cluster *cl, unsigned shard, int efd) {
  if (cl != NULL && shard < KEEPD_MAX_SHARDS)
    cl->wake_fd1[shard] = efd + 1;
}

void keepd_handoff_apply(struct keepd_cluster *cl, unsigned shard, struct keepd_store *st,
                         uint64_t now) {
  if (cl == NULL || atomic_load_explicit(&cl->inbox[shard], memory_order_relaxed) == NULL)
    return;
  struct keepd_ho_batch *bt = atomic_exchange(&cl->inbox[shard], NULL);
  if (bt == NULL)
    return;
  if (bt->purge != NULL)
    purge(cl, st, bt->purge, now);
  bt->status = keepd_handoff_store_frames(st, bt->frames, bt->len, now);
  atomic_store_explicit(&bt->done, true, memory_order_release);
}

// The receiving side: the handoff thread.

// give_all leaves `bt[i]` for every shard i that has one and waits until
// all are stored; false if a shard failed or never took its batch (the
// daemon is stopping).
static bool give_all(struct keepd_cluster *cl, struct keepd_ho_batch *bt) {
  unsigned n = cl->num_shards;
  for (unsigned i = 0; i < n; i++) {
    if (bt[i].purge == NULL && bt[i].len == 0)
      continue;
    atomic_store_explicit(&cl->inbox[i], &bt[i], memory_order_release);
    uint64_t one = 1; // an idle shard would otherwise wait for its 10 ms tick
    if (cl->wake_fd1[i] > 0 && write(cl->wake_fd1[i] - 1, &one, sizeof one) < 0) {
      // A saturated counter wakes it all the same.
    }
  }
  bool ok = true;
  uint64_t end = keepd_now_ns() + APPLY_WAIT_MS * MS;
  for (unsigned i = 0; i < n; i++) {
    if (bt[i].purge == NULL && bt[i].len == 0)
      continue;
    while (!atomic_load_explicit(&bt[i].done, memory_order_acquire)) {
      if ((keepd_now_ns() > end || atomic_load(&cl->stop)) &&
          atomic_exchange(&cl->inbox[i], NULL) == &bt[i]) {
        bt[i].status = -ETIMEDOUT; // never taken: nothing else refers to it
        break;
      }
      sleep_ms(1);
    }
    ok &= bt[i].status == 0;
  }
  return ok;
}

struct conn {
  int fd;
  keep_tls_conn *tls; // the members' mutual TLS; NULL when keepd runs plaintext
  uint8_t *p;
  size_t len, cap;
  uint64_t next_id;
};

static int ho_connect(struct keepd_cluster *cl, unsigned j) {
  struct sockaddr_storage ss = cl->addr[j];
  if (ss.ss_family == AF_INET)
    ((struct sockaddr_in *)&ss)->sin_port = htons(cl->cfg.members[j].port);
  else
    ((struct sockaddr_in6 *)&ss)->sin6_port = htons(cl->cfg.members[j].port);
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect(fd, (struct sockaddr *)&ss, cl->addr_len[j]) < 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  int err = 0;
  socklen_t el = sizeof err;
  if (poll(&p, 1, KEEPD_HANDOFF_IO_MS) != 1 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0) {
    close(fd);
    return -1;
  }
  // Blocking from here on, each send and receive bounded by the timeout.
  int one = 1;
  struct timeval tv = {KEEPD_HANDOFF_IO_MS / 1000, (KEEPD_HANDOFF_IO_MS % 1000) * 1000};
  if (fcntl(fd, F_SETFL, 0) < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static bool send_frame(struct conn *c, const keep_frame *f) {
  uint8_t buf[KEEP_HEADER_LEN + KEEPD_HANDOFF_BITMAP_LEN + 256];
  size_t len;
  if (keep_frame_encode(buf, sizeof buf, &len, f) != 0)
    return false;
  for (size_t off = 0; off < len;) {
    ssize_t n = keepd_tls_send(c->tls, c->fd, buf + off, len - off);
    if (n <= 0)
      return false;
    off += (size_t)n;
  }
  return true;
}

// read_frame decodes the next frame into `f` (pointing into the buffer,
// valid until the next call) and sets `*raw`/`*raw_len` to its bytes.
static bool read_frame(struct conn *c, keep_frame *f, size_t *consumed) {
  for (;;) {
    int rc = keep_frame_decode(f, consumed, c->p, c->len, 0);
    if (rc == 1)
      return true;
    if (rc < 0)
      return false;
    if (c->cap - c->len < 65536) {
      size_t cap = c->cap ? c->cap * 2 : 1u << 20;
      uint8_t *p = realloc(c->p, cap);
      if (p == NULL)
        return false;
      c->p = p;
      c->cap = cap;
    }
    ssize_t n = keepd_tls_recv(c->tls, c->fd, c->p + c->len, c->cap - c->len);
    if (n <= 0)
      return false; // closed, reset or timed out
    c->len += (size_t)n;
  }
}

static void consume(struct conn *c, size_t n) {
  memmove(c->p, c->p + n, c->len - n);
  c->len -= n;
}

struct sbuf {
  uint8_t *p;
  size_t len, cap;
};

static bool sbuf_add(struct sbuf *b, const uint8_t *p, size_t n) {
  if (b->cap - b->len < n) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n)
      cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (q == NULL)
      return false;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
  return true;
}

// pull_page asks for one page of the shard holding `first` and stores it;
// returns 1 with `*cursor` advanced, 0 when that shard is done (`*last` its
// last slot), -1 on failure. For a join, the first page of each shard
// (`*cursor` 0) also drops this member's keys of the slots the interim
// owner says it served lately, before storing any of the page's keys.
static int pull_page(struct keepd_cluster *cl, struct conn *c, const struct keepd_ho_job *job,
                     uint32_t first, uint64_t *cursor, uint32_t *last, struct sbuf *per_shard) {
  uint8_t tag[MAC_LEN];
  keep_frame q;
  keep_frame_init(&q, KEEP_OP_HANDOFF_PULL, ++c->next_id);
  q.num = (uint64_t)first << 16 | cl->ids[cl->self];
  q.num2 = *cursor;
  q.value = job->slots;
  q.value_len = sizeof job->slots;
  mac(cl, tag, "keep/1 handoff pull", q.num, q.num2, job->peer_inc, job->slots, sizeof job->slots);
  q.text = tag;
  q.text_len = MAC_LEN;
  uint64_t end = keepd_now_ns() + KEEPD_HANDOFF_IO_MS * MS;
  for (;;) {
    for (unsigned i = 0; i < cl->num_shards; i++)
      per_shard[i].len = 0;
    if (!send_frame(c, &q))
      return -1;
    keep_frame f;
    size_t used;
    for (;;) {
      if (!read_frame(c, &f, &used) || f.id != q.id)
        return -1;
      if (f.opcode != KEEP_OP_ENTRY)
        break;
      uint32_t slot = slot_of_key(cl, f.key, f.key_len);
      if (bit_of(job->slots, slot)) { // a key we did not ask for is ignored
        unsigned sh = (unsigned)((uint64_t)slot * cl->num_shards / KEEP_SLOTS);
        if (!sbuf_add(&per_shard[sh], c->p, used))
          return -1;
      }
      consume(c, used);
    }
    if (f.opcode == KEEP_OP_BUSY && keepd_now_ns() < end) {
      consume(c, used);
      sleep_ms(BUSY_RETRY_MS);
      continue;
    }
    if (f.opcode != KEEP_OP_OK || f.value_len != (job->join ? 2 + KEEPD_HANDOFF_BITMAP_LEN : 2))
      return -1;
    uint64_t next = f.num;
    *last = (uint32_t)keep_get_le(f.value, 2);
    // Only the wanted slots of the shard that answered may be dropped.
    uint8_t stale[KEEPD_HANDOFF_BITMAP_LEN];
    bool drop = false;
    if (job->join && *cursor == 0) {
      memset(stale, 0, sizeof stale);
      for (uint32_t s = first; s <= *last && s < KEEP_SLOTS; s++)
        if (bit_of(job->slots, s) && bit_of(f.value + 2, s)) {
          stale[s >> 3] |= (uint8_t)(1u << (s & 7));
          drop = true;
        }
    }
    consume(c, used);
    if (*last < first || *last >= KEEP_SLOTS)
      return -1;
    struct keepd_ho_batch bt[KEEPD_MAX_SHARDS];
    memset(bt, 0, sizeof bt);
    for (unsigned i = 0; i < cl->num_shards; i++) {
      bt[i].purge = drop ? stale : NULL;
      bt[i].frames = per_shard[i].p;
      bt[i].len = per_shard[i].len;
    }
    if (!give_all(cl, bt))
      return -1;
    if (next == CURSOR_DONE)
      return 0;
    *cursor = next;
    return 1;
  }
}

static uint32_t next_wanted(const struct keepd_ho_job *job, uint32_t from) {
  while (from < KEEP_SLOTS && !bit_of(job->slots, from))
    from++;
  return from;
}

// run_job pulls everything `job` names; true when all of it was stored.
static bool run_job(struct keepd_cluster *cl, struct keepd_ho_job *job) {
  struct conn c = {.fd = ho_connect(cl, job->peer)};
  if (c.fd < 0)
    return false;
  if (keepd_tls_member_connect(&c.tls, c.fd) < 0) {
    close(c.fd);
    return false;
  }
  // The fault tests stretch the handoff here to kill its source midway.
  uint64_t pause = job->join ? cl->test_join_pause_ms : cl->test_pause_ms;
  for (uint64_t t = 0; t < pause && !atomic_load(&cl->stop); t += 10)
    sleep_ms(10);
  bool ok = true;
  struct sbuf per_shard[KEEPD_MAX_SHARDS];
  memset(per_shard, 0, sizeof per_shard);
  // A leaving member hands over all of its slots: whatever this member
  // still holds of them is left over from an earlier time. A join drops
  // its copy slot by slot instead (pull_page()).
  if (!job->join && next_wanted(job, 0) < KEEP_SLOTS) {
    struct keepd_ho_batch bt[KEEPD_MAX_SHARDS];
    memset(bt, 0, sizeof bt);
    for (unsigned i = 0; i < cl->num_shards; i++)
      bt[i].purge = job->slots;
    ok = give_all(cl, bt);
  }
  for (uint32_t first = next_wanted(job, 0); ok && first < KEEP_SLOTS;) {
    uint64_t cursor = 0;
    uint32_t last = 0;
    int rc;
    while ((rc = pull_page(cl, &c, job, first, &cursor, &last, per_shard)) == 1)
      ;
    ok = rc == 0;
    first = next_wanted(job, last + 1);
  }
  for (unsigned i = 0; i < KEEPD_MAX_SHARDS; i++)
    free(per_shard[i].p);
  // The confirmation lets the leaving member go; its answer changes
  // nothing here (the keys are stored), so it is not waited for long. An
  // interim owner waits for none.
  if (ok && !job->join) {
    uint8_t tag[MAC_LEN];
    keep_frame q, f;
    size_t used;
    keep_frame_init(&q, KEEP_OP_HANDOFF_DONE, ++c.next_id);
    q.num = cl->ids[cl->self];
    mac(cl, tag, "keep/1 handoff done", q.num, 0, job->peer_inc, NULL, 0);
    q.text = tag;
    q.text_len = MAC_LEN;
    if (send_frame(&c, &q))
      (void)read_frame(&c, &f, &used);
  }
  free(c.p);
  keep_tls_conn_free(c.tls);
  close(c.fd);
  return ok;
}

static void finish_job(struct keepd_cluster *cl, const struct keepd_ho_job *job, bool ok) {
  uint64_t now = keepd_now_ns();
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    if (!bit_of(job->slots, s))
      continue;
    if (job->join) {
      // Served from now on, with the quarantine it had since it became
      // servable: some of its locks may have been granted by a member that
      // served it before the interim owner, and did not come along.
      atomic_store_explicit(&cl->ho_state[s], HO_JOINED, memory_order_release);
      continue;
    }
    // Within a quarantine of the leave (see tick() in cluster.c).
    if (ok && now - cl->ho_at[s] < cl->quarantine_ns)
      atomic_store_explicit(&cl->quarantine_until[s], 0, memory_order_relaxed);
    atomic_store_explicit(&cl->ho_state[s], ok ? HO_RECEIVED : HO_FAILED, memory_order_release);
  }
}

static void *ho_main(void *arg) {
  struct keepd_cluster *cl = arg;
  pthread_mutex_lock(&cl->ho_mu);
  while (!atomic_load(&cl->stop)) {
    struct keepd_ho_job *job = cl->jobs;
    if (job == NULL) {
      pthread_cond_wait(&cl->ho_cv, &cl->ho_mu);
      continue;
    }
    cl->jobs = job->next;
    pthread_mutex_unlock(&cl->ho_mu);
    finish_job(cl, job, run_job(cl, job));
    free(job);
    pthread_mutex_lock(&cl->ho_mu);
  }
  pthread_mutex_unlock(&cl->ho_mu);
  return NULL;
}

void keepd_ho_begin(struct keepd_cluster *cl, unsigned j, const uint8_t *before,
                    const uint8_t *after, uint64_t now) {
  struct keepd_ho_job *job = calloc(1, sizeof *job);
  if (job == NULL)
    return; // no handoff: the slots get the quarantine as after a crash
  job->peer = j;
  job->peer_inc = cl->peers[j].inc;
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    if (before[s] != j || after[s] != cl->self ||
        atomic_load_explicit(&cl->ho_state[s], memory_order_relaxed) == HO_PENDING)
      continue;
    job->slots[s >> 3] |= (uint8_t)(1u << (s & 7));
    cl->ho_at[s] = now;
    // BUSY from here: the view that makes the slot ours is published after.
    atomic_store_explicit(&cl->ho_state[s], HO_PENDING, memory_order_release);
  }
  keepd_ho_queue(cl, job);
}

void keepd_ho_queue(struct keepd_cluster *cl, struct keepd_ho_job *job) {
  pthread_mutex_lock(&cl->ho_mu);
  job->next = cl->jobs;
  cl->jobs = job;
  pthread_cond_signal(&cl->ho_cv);
  pthread_mutex_unlock(&cl->ho_mu);
}

int keepd_ho_start(struct keepd_cluster *cl) {
  int rc = pthread_create(&cl->ho_thread, NULL, ho_main, cl);
  cl->ho_started = rc == 0;
  return -rc;
}

void keepd_ho_stop(struct keepd_cluster *cl) {
  pthread_mutex_lock(&cl->ho_mu);
  pthread_cond_broadcast(&cl->ho_cv);
  pthread_mutex_unlock(&cl->ho_mu);
  if (cl->ho_started)
    pthread_join(cl->ho_thread, NULL);
  while (cl->jobs != NULL) {
    struct keepd_ho_job *job = cl->jobs;
    cl->jobs = job->next;
    free(job);
  }
}
