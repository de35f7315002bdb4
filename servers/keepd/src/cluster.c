// cluster.c: keepd's membership thread. Every 25 ms it sends each peer an
// authenticated UDP heartbeat (HMAC-SHA256 under a key derived with HKDF
// from the cluster secret and the member list) carrying this member's
// incarnation and counter, its live set and, per peer, the last
// incarnation/counter heard from it. A peer is live while heard within
// 225 ms; the live set gives each member a view: every slot belongs to the
// live member with the highest rendezvous score. A member serves a slot only
// while a majority of the list confirms it: itself plus peers whose view
// names it the owner and whose latest heartbeat echoes one of ours sent
// less than 1 s ago (so a stale or replayed heartbeat proves nothing). The
// views are immutable and published through an atomic pointer; freshness is
// a per-member atomic deadline, so shards decide each request without a
// lock, and a stalled thread makes every confirmation lapse by itself.
// Whenever a slot starts being served after not being served, new locks on
// absent keys wait out the quarantine, counted from that moment, and the
// slot's keys are first pulled from the member that owns it without this
// one (handoff.c): at start, and when this member comes back from a
// partition or a pause with a stale copy of the slot.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/digest.h>
#include <openssl/hkdf.h>
#include <openssl/mem.h>

#include "keepd.h"
#include "keepd_cluster.h"
#include "keepd_cluster_internal.h"

int keepd_member_parse(struct keepd_member *out, const char *s) {
  memset(out, 0, sizeof *out);
  char *end;
  errno = 0;
  unsigned long id = strtoul(s, &end, 10);
  if (end == s || *end != '@' || errno != 0 || id > 65535 || s[0] == '-')
    return -EINVAL;
  const char *h = end + 1, *he;
  if (*h == '[') {
    h++;
    he = strchr(h, ']');
    if (he == NULL || he[1] != ':')
      return -EINVAL;
    end = (char *)he + 2;
  } else {
    he = strchr(h, ':');
    if (he == NULL)
      return -EINVAL;
    end = (char *)he + 1;
  }
  size_t hl = (size_t)(he - h);
  if (hl == 0 || hl >= sizeof out->host)
    return -EINVAL;
  memcpy(out->host, h, hl);
  out->host[hl] = '\0';
  unsigned long port = strtoul(end, &end, 10);
  if (*end != '/' || port == 0 || port > 65535)
    return -EINVAL;
  unsigned long udp = strtoul(end + 1, &end, 10);
  if (*end != '\0' || udp == 0 || udp > 65535)
    return -EINVAL;
  struct in6_addr a6;
  if (inet_pton(AF_INET, out->host, &a6) != 1 && inet_pton(AF_INET6, out->host, &a6) != 1)
    return -EINVAL;
  out->id = (uint16_t)id;
  out->port = (uint16_t)port;
  out->udp_port = (uint16_t)udp;
  return 0;
}

int keepd_members_parse(struct keepd_cluster_config *cfg, const char *s) {
  char item[128];
  while (*s != '\0') {
    size_t len = strcspn(s, " ,\t");
    if (len >= sizeof item)
      return -EINVAL;
    if (len > 0) {
      if (cfg->num_members == KEEP_MAX_MEMBERS)
        return -EINVAL;
      memcpy(item, s, len);
      item[len] = '\0';
      struct keepd_member *m = &cfg->members[cfg->num_members];
      if (keepd_member_parse(m, item) < 0)
        return -EINVAL;
      for (unsigned i = 0; i < cfg->num_members; i++)
        if (cfg->members[i].id == m->id)
          return -EINVAL;
      cfg->num_members++;
    }
    s += len;
    s += strspn(s, " ,\t");
  }
  return 0;
}

static int sockaddr_of(const struct keepd_member *m, struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, m->host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(m->udp_port);
    *len = sizeof *v4;
    return AF_INET;
  }
  if (inet_pton(AF_INET6, m->host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(m->udp_port);
    *len = sizeof *v6;
    return AF_INET6;
  }
  return -EINVAL;
}

// owners_for returns the owner of every slot when the members of `mask` are
// live, from a small cache: peers' views repeat.
static const uint8_t *owners_for(struct keepd_cluster *cl, uint64_t mask) {
  for (unsigned i = 0; i < OWNER_CACHE; i++)
    if (cl->cache[i].used && cl->cache[i].mask == mask)
      return cl->cache[i].owner;
  struct owners *o = &cl->cache[cl->cache_next];
  cl->cache_next = (cl->cache_next + 1) % OWNER_CACHE;
  o->used = true;
  o->mask = mask;
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    int w = mask == 0 ? -1 : keep_slot_owner(cl->secret, s, cl->ids, cl->n, mask);
    o->owner[s] = w < 0 ? 0xff : (uint8_t)w;
  }
  return o->owner;
}

static uint64_t live_mask(struct keepd_cluster *cl, uint64_t now, bool leaving) {
  uint64_t m = leaving ? 0 : 1ull << cl->self;
  for (unsigned j = 0; j < cl->n; j++) {
    struct peer *p = &cl->peers[j];
    if (j != cl->self && p->known && !p->leaving && now - p->heard_ns <= KEEPD_DEAD_AFTER_MS * MS)
      m |= 1ull << j;
  }
  return m;
}

static bool majority(const struct keepd_cluster *cl, unsigned count) {
  return 2 * count > cl->n;
}

static bool servable(const struct keepd_cluster *cl, const struct view *v, uint32_t s,
                     uint64_t fresh_bits) {
  return v != NULL && v->owner[s] == cl->self &&
         majority(cl, (unsigned)__builtin_popcountll(v->endorse[s] & fresh_bits));
}

static struct view *build_view(struct keepd_cluster *cl, uint64_t own, bool leaving) {
  struct view *v = malloc(sizeof *v);
  if (v == NULL)
    return NULL;
  memset(v->endorse, 0, sizeof v->endorse);
  v->own_mask = own;
  v->leaving = leaving;
  memcpy(v->owner, owners_for(cl, own), KEEP_SLOTS);
  // Each peer's owners are copied out: a later owners_for() may evict them
  // from the cache.
  uint8_t(*copies)[KEEP_SLOTS] = cl->copies;
  const uint8_t *po[KEEP_MAX_MEMBERS] = {0};
  for (unsigned j = 0; j < cl->n; j++) {
    v->peer_mask[j] = cl->peers[j].known ? cl->peers[j].view_mask : 0;
    if (j != cl->self && v->peer_mask[j] != 0) {
      memcpy(copies[j], owners_for(cl, v->peer_mask[j]), KEEP_SLOTS);
      po[j] = copies[j];
    }
  }
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    if (v->owner[s] != cl->self)
      continue;
    uint16_t e = (uint16_t)(1u << cl->self);
    for (unsigned j = 0; j < cl->n; j++)
      if (po[j] != NULL && po[j][s] == cl->self)
        e |= (uint16_t)(1u << j);
    v->endorse[s] = e;
  }
  return v;
}

static bool view_stale(struct keepd_cluster *cl, const struct view *v, uint64_t own, bool leaving) {
  if (v == NULL || v->own_mask != own || v->leaving != leaving)
    return true;
  for (unsigned j = 0; j < cl->n; j++)
    if ((cl->peers[j].known ? cl->peers[j].view_mask : 0) != v->peer_mask[j])
      return true;
  return false;
}

static void reclaim(struct keepd_cluster *cl) {
  unsigned keep = 0;
  for (unsigned i = 0; i < cl->num_retired; i++) {
    bool all = true;
    for (unsigned s = 0; s < cl->num_shards; s++)
      if (atomic_load_explicit(&cl->qs[s], memory_order_acquire) == cl->retired[i].snap[s])
        all = false;
    if (all)
      free(cl->retired[i].v);
    else
      cl->retired[keep++] = cl->retired[i];
  }
  cl->num_retired = keep;
}

static void send_heartbeats(struct keepd_cluster *cl, uint64_t now) {
  uint8_t pkt[HB_LEN(KEEP_MAX_MEMBERS)];
  size_t len;
  cl->ctr++;
  cl->sent_at[cl->ctr % SENT_RING] = now;
  bool leaving = atomic_load(&cl->leaving);
  struct keepd_hb hb = {.id = cl->ids[cl->self],
                        .flags = leaving ? KEEPD_HB_FLAG_LEAVING : 0,
                        .n = (uint8_t)cl->n,
                        .inc = cl->inc,
                        .ctr = cl->ctr,
                        .live = live_mask(cl, now, leaving)};
  for (unsigned j = 0; j < cl->n; j++) {
    hb.echo_inc[j] = cl->peers[j].inc;
    hb.echo_ctr[j] = cl->peers[j].ctr;
  }
  if (keepd_hb_seal(pkt, sizeof pkt, &len, cl->key, &hb) < 0)
    return;
  for (unsigned j = 0; j < cl->n; j++)
    if (j != cl->self)
      (void)!sendto(cl->fd, pkt, len, MSG_DONTWAIT, (struct sockaddr *)&cl->addr[j],
                    cl->addr_len[j]);
}

static void receive(struct keepd_cluster *cl, const uint8_t *pkt, size_t len, uint64_t now) {
  struct keepd_hb hb;
  if (keepd_hb_open(&hb, cl->key, pkt, len, cl->n) < 0)
    return;
  unsigned j = 0;
  while (j < cl->n && cl->ids[j] != hb.id)
    j++;
  if (j == cl->n || j == cl->self)
    return;
  uint64_t inc = hb.inc, ctr = hb.ctr, mask = hb.live;
  uint8_t flags = hb.flags;
  struct peer *p = &cl->peers[j];
  // Replay: an older incarnation, or a counter already seen, is dropped.
  if (p->known && (inc < p->inc || (inc == p->inc && ctr <= p->ctr)))
    return;
  // A live peer announcing its leave hands over the slots it owned: those
  // that become ours are pulled from it (handoff.c).
  bool self_leaving = atomic_load(&cl->leaving);
  bool was_live =
      p->known && !p->leaving && inc == p->inc && now - p->heard_ns <= KEEPD_DEAD_AFTER_MS * MS;
  uint64_t before_mask = live_mask(cl, now, self_leaving);
  // The echo of one of our own heartbeats: the peer heard us after we sent
  // it, which is what makes its confirmation fresh.
  uint64_t e_inc = hb.echo_inc[cl->self], e_ctr = hb.echo_ctr[cl->self];
  if (e_inc == cl->inc && e_ctr <= cl->ctr && e_ctr > 0 && cl->ctr - e_ctr < SENT_RING) {
    uint64_t t = cl->sent_at[e_ctr % SENT_RING];
    if (inc != p->inc || t > p->echo_ns)
      p->echo_ns = t;
  } else if (inc != p->inc) {
    p->echo_ns = 0;
  }
  p->inc = inc;
  p->ctr = ctr;
  p->heard_ns = now;
  p->view_mask = mask & ((cl->n == 64 ? 0 : 1ull << cl->n) - 1);
  p->leaving = (flags & KEEPD_HB_FLAG_LEAVING) != 0;
  p->known = true;
  if (was_live && p->leaving && !self_leaving && (before_mask & (1ull << j))) {
    // copies[self] is build_view's unused row: owners_for may evict the
    // first answer while computing the second.
    uint8_t *before = cl->copies[cl->self];
    memcpy(before, owners_for(cl, before_mask), KEEP_SLOTS);
    keepd_ho_begin(cl, j, before, owners_for(cl, before_mask & ~(1ull << j)), now);
  }
}

static uint64_t fresh_bits_at(struct keepd_cluster *cl, uint64_t now) {
  uint64_t b = 1ull << cl->self;
  for (unsigned j = 0; j < cl->n; j++)
    if (j != cl->self && atomic_load_explicit(&cl->fresh_until[j], memory_order_relaxed) > now)
      b |= 1ull << j;
  return b;
}

// tick sends heartbeats, then recomputes the view and the freshness. The
// order of the stores matters: a slot that becomes servable gets its
// quarantine first, then the view and the freshness that make it servable
// are published (release), and the shards read them in the reverse order.
static void tick(struct keepd_cluster *cl, uint64_t now) {
  send_heartbeats(cl, now);
  bool leaving = atomic_load(&cl->leaving);
  uint64_t own = live_mask(cl, now, leaving);
  struct view *old = cl->cur, *v = old;
  if (view_stale(cl, old, own, leaving)) {
    struct view *nv = build_view(cl, own, leaving);
    if (nv != NULL)
      v = nv;
  }
  uint64_t before = fresh_bits_at(cl, now);
  uint64_t after = 1ull << cl->self;
  uint64_t new_fresh[KEEP_MAX_MEMBERS] = {0};
  // A tick this late follows a stall of this thread (SIGSTOP, a frozen
  // VM): its peers may have declared it dead and served its slots, so no
  // slot counts as served without a break; each is pulled back.
  uint64_t last = atomic_load_explicit(&cl->tick_ns, memory_order_relaxed);
  bool stalled = last != 0 && now - last >= KEEPD_DEAD_AFTER_MS * MS;
  for (unsigned j = 0; j < cl->n; j++) {
    struct peer *p = &cl->peers[j];
    // Only a live peer confirms: one not heard for KEEPD_DEAD_AFTER_MS has
    // most likely stopped hearing this member too, and serves its slots.
    if (j == cl->self || !p->known || p->echo_ns == 0 || !(own & (1ull << j)))
      continue;
    new_fresh[j] = p->echo_ns + KEEPD_QUORUM_WINDOW_MS * MS;
    if (new_fresh[j] > now)
      after |= 1ull << j;
  }
  // The owners without this member: for a slot served after a break (or
  // for the first time), who served it meanwhile. copies[self] is
  // build_view's unused row.
  uint64_t others = own & ~(1ull << cl->self);
  const uint8_t *interim = NULL;
  if (others != 0 && !leaving) {
    memcpy(cl->copies[cl->self], owners_for(cl, others), KEEP_SLOTS);
    interim = cl->copies[cl->self];
  }
  struct keepd_ho_job *joins[KEEP_MAX_MEMBERS] = {0};
  for (uint32_t s = 0; s < KEEP_SLOTS; s++) {
    bool next = !leaving && servable(cl, v, s, after);
    bool continuous = !stalled && cl->serving[s] && servable(cl, old, s, before);
    uint8_t ho = atomic_load_explicit(&cl->ho_state[s], memory_order_acquire);
    if (next && !continuous && ho == HO_NONE && interim != NULL && interim[s] < cl->n &&
        interim[s] != cl->self) {
      // Served again after a break (or for the first time): whoever owns
      // the slot without this member may have served it meanwhile. BUSY
      // from here (the view and the freshness that make it servable are
      // published after) until its keys are pulled from that member.
      unsigned p = interim[s];
      if (joins[p] == NULL && (joins[p] = calloc(1, sizeof *joins[p])) != NULL) {
        joins[p]->peer = p;
        joins[p]->peer_inc = cl->peers[p].inc;
        joins[p]->join = true;
      }
      if (joins[p] != NULL) {
        joins[p]->slots[s >> 3] |= (uint8_t)(1u << (s & 7));
        atomic_store_explicit(&cl->ho_state[s], HO_PENDING, memory_order_release);
        ho = HO_PENDING;
      }
    }
    // served_until ends with the tick that stops serving the slot, whose
    // view is published below: a joining member's pull waits from then on,
    // however late this tick ran.
    if (next || cl->serving[s])
      atomic_store_explicit(&cl->served_until[s], now, memory_order_relaxed);
    // A slot received whole by handoff skips the quarantine (every lock
    // granted on it came along), provided it is served within a quarantine
    // of the leave: any other member that took the slot meanwhile started
    // serving it after the leave, so it grants no lock on an absent key
    // before then. A failed handoff keeps the quarantine.
    bool received = ho == HO_RECEIVED && now - cl->ho_at[s] < cl->quarantine_ns;
    if (next && !continuous && !received)
      atomic_store_explicit(&cl->quarantine_until[s], now + cl->quarantine_ns,
                            memory_order_relaxed);
    if (received && next) {
      // Served since before the handoff ended: its quarantine goes now.
      atomic_store_explicit(&cl->quarantine_until[s], 0, memory_order_relaxed);
      atomic_store_explicit(&cl->ho_state[s], HO_NONE, memory_order_relaxed);
    } else if (ho == HO_FAILED || ho == HO_JOINED || (ho == HO_RECEIVED && !received)) {
      atomic_store_explicit(&cl->ho_state[s], HO_NONE, memory_order_relaxed);
    }
    cl->serving[s] = next;
  }
  for (unsigned j = 0; j < cl->n; j++)
    if (joins[j] != NULL)
      keepd_ho_queue(cl, joins[j]);
  if (leaving) {
    // The leave is settled once every live peer that is not leaving too
    // has confirmed its handoff.
    uint64_t done = atomic_load(&cl->done_mask);
    bool settled = true;
    for (unsigned j = 0; j < cl->n; j++) {
      const struct peer *p = &cl->peers[j];
      if (j != cl->self && p->known && !p->leaving &&
          now - p->heard_ns <= KEEPD_DEAD_AFTER_MS * MS && !(done & (1ull << j)))
        settled = false;
    }
    atomic_store(&cl->leave_settled, settled);
  }
  if (own != cl->epoch_mask) {
    // One step per member that came or went, so that two changes that
    // fall into one tick (a stall of this thread) still count as two.
    atomic_fetch_add_explicit(&cl->epoch, (uint64_t)__builtin_popcountll(own ^ cl->epoch_mask),
                              memory_order_relaxed);
    cl->epoch_mask = own;
  }
  if (v != old) {
    atomic_store_explicit(&cl->view, v, memory_order_release);
    cl->cur = v;
    if (old != NULL) {
      if (cl->num_retired == sizeof cl->retired / sizeof cl->retired[0]) {
        // Shards that never pass a quiescent point would have to be stuck;
        // keep the view rather than free it under them.
        old = NULL;
      } else {
        struct retired *r = &cl->retired[cl->num_retired++];
        r->v = old;
        for (unsigned s = 0; s < cl->num_shards; s++)
          r->snap[s] = atomic_load_explicit(&cl->qs[s], memory_order_acquire);
      }
    }
  }
  for (unsigned j = 0; j < cl->n; j++)
    atomic_store_explicit(&cl->fresh_until[j], new_fresh[j], memory_order_release);
  // Last: a shard that sees this tick's time sees its pulls pending.
  atomic_store_explicit(&cl->tick_ns, now, memory_order_release);
  reclaim(cl);
}

static void drain(struct keepd_cluster *cl, uint8_t *buf, size_t cap) {
  for (int i = 0; i < 256; i++) {
    ssize_t n = recv(cl->fd, buf, cap, MSG_DONTWAIT);
    if (n < 0)
      break;
    receive(cl, buf, (size_t)n, keepd_now_ns());
  }
}

static void *cluster_main(void *arg) {
  struct keepd_cluster *cl = arg;
  uint64_t next = keepd_now_ns();
  uint8_t buf[2048];
  while (!atomic_load(&cl->stop)) {
    uint64_t now = keepd_now_ns();
    if (now >= next) {
      // What arrived while this thread was not running is read first: a
      // stall of our own must not make a peer look dead (and its slots
      // ours) for one tick, only for the heartbeats queued behind it to
      // bring it back.
      drain(cl, buf, sizeof buf);
      now = keepd_now_ns();
      tick(cl, now);
      next = now + KEEPD_HB_INTERVAL_MS * MS;
    }
    struct pollfd p = {.fd = cl->fd, .events = POLLIN};
    now = keepd_now_ns();
    int ms = next > now ? (int)((next - now + MS - 1) / MS) : 0;
    if (poll(&p, 1, ms) <= 0)
      continue;
    drain(cl, buf, sizeof buf);
  }
  return NULL;
}

int keepd_cluster_new(struct keepd_cluster **out, const struct keepd_cluster_config *cfg,
                      const uint8_t secret[KEEP_SECRET_LEN], uint64_t quarantine_ms,
                      unsigned num_shards) {
  *out = NULL;
  if (cfg->num_members == 0 || cfg->num_members > KEEP_MAX_MEMBERS || cfg->self < 0 ||
      (unsigned)cfg->self >= cfg->num_members || num_shards > KEEPD_MAX_SHARDS)
    return -EINVAL;
  struct keepd_cluster *cl = calloc(1, sizeof *cl);
  if (cl == NULL)
    return -ENOMEM;
  cl->cfg = *cfg;
  cl->n = cfg->num_members;
  cl->self = (unsigned)cfg->self;
  cl->num_shards = num_shards;
  cl->fd = -1;
  cl->quarantine_ns = quarantine_ms * MS;
  const char *pause = getenv("KEEPD_TEST_HANDOFF_PAUSE_MS");
  if (pause != NULL)
    cl->test_pause_ms = strtoull(pause, NULL, 10);
  const char *join_pause = getenv("KEEPD_TEST_JOIN_PAUSE_MS");
  if (join_pause != NULL)
    cl->test_join_pause_ms = strtoull(join_pause, NULL, 10);
  pthread_mutex_init(&cl->ho_mu, NULL);
  pthread_cond_init(&cl->ho_cv, NULL);
  memcpy(cl->secret, secret, KEEP_SECRET_LEN);
  // The key depends on the member list too: members configured with
  // different lists cannot authenticate each other, so they never mix views.
  char info[2048];
  size_t il = (size_t)snprintf(info, sizeof info, "keepd heartbeat v1");
  for (unsigned i = 0; i < cl->n && il < sizeof info; i++) {
    const struct keepd_member *m = &cfg->members[i];
    cl->ids[i] = m->id;
    il += (size_t)snprintf(info + il, sizeof info - il, " %u@%s:%u/%u", m->id, m->host, m->port,
                           m->udp_port);
  }
  if (il >= sizeof info || !HKDF(cl->key, sizeof cl->key, EVP_sha256(), secret, KEEP_SECRET_LEN,
                                 (const uint8_t *)"keep/1", 6, (const uint8_t *)info, il)) {
    free(cl);
    return -EINVAL;
  }
  int family = 0;
  for (unsigned i = 0; i < cl->n; i++) {
    int f = sockaddr_of(&cfg->members[i], &cl->addr[i], &cl->addr_len[i]);
    if (f < 0) {
      free(cl);
      return f;
    }
    if (i == cl->self)
      family = f;
  }
  // The incarnation orders restarts: a heartbeat of an older incarnation is
  // a replay. The wall clock is read here only, as a number that grows from
  // one start to the next; no duration is measured with it.
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  cl->inc = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
  cl->fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (cl->fd < 0 ||
      bind(cl->fd, (struct sockaddr *)&cl->addr[cl->self], cl->addr_len[cl->self]) < 0) {
    int e = -errno;
    if (cl->fd >= 0)
      close(cl->fd);
    free(cl);
    return e;
  }
  struct view *v = build_view(cl, 1ull << cl->self, false);
  if (v == NULL) {
    close(cl->fd);
    free(cl);
    return -ENOMEM;
  }
  cl->cur = v;
  atomic_store(&cl->view, v);
  cl->epoch_mask = 1ull << cl->self;
  atomic_store(&cl->epoch, 1);
  *out = cl;
  return 0;
}

int keepd_cluster_start(struct keepd_cluster *cl) {
  int rc = keepd_ho_start(cl);
  if (rc < 0)
    return rc;
  rc = pthread_create(&cl->thread, NULL, cluster_main, cl);
  cl->started = rc == 0;
  return -rc;
}

void keepd_cluster_leave(struct keepd_cluster *cl) {
  atomic_store(&cl->leaving, true);
  // The shards answer BUSY from now on and serve the peers' pulls; wait
  // until each live peer has confirmed it holds our keys (bounded).
  uint64_t end = keepd_now_ns() + KEEPD_HANDOFF_WAIT_MS * MS;
  while (cl->started && !atomic_load(&cl->leave_settled) && keepd_now_ns() < end) {
    struct timespec ts = {0, 5 * (long)MS};
    nanosleep(&ts, NULL);
  }
}

void keepd_cluster_free(struct keepd_cluster *cl) {
  if (cl == NULL)
    return;
  atomic_store(&cl->stop, true);
  if (cl->started)
    pthread_join(cl->thread, NULL);
  keepd_ho_stop(cl);
  pthread_mutex_destroy(&cl->ho_mu);
  pthread_cond_destroy(&cl->ho_cv);
  for (unsigned i = 0; i < cl->num_retired; i++)
    free(cl->retired[i].v);
  free(cl->cur);
  if (cl->fd >= 0)
    close(cl->fd);
  OPENSSL_cleanse(cl->key, sizeof cl->key);
  OPENSSL_cleanse(cl->secret, sizeof cl->secret);
  free(cl);
}

int keepd_cluster_route(struct keepd_cluster *cl, uint32_t slot, uint64_t now, uint16_t *owner_id) {
  // The heartbeat thread stalled, and with it the whole process, most
  // likely: the peers may have moved on, which it has yet to learn.
  uint64_t ticked = atomic_load_explicit(&cl->tick_ns, memory_order_acquire);
  const struct view *v = atomic_load_explicit(&cl->view, memory_order_acquire);
  uint8_t o = v->owner[slot];
  if (o != cl->self) {
    if (o == 0xff)
      return KEEPD_ROUTE_BUSY;
    *owner_id = cl->ids[o];
    return KEEPD_ROUTE_MOVED;
  }
  if (now > ticked + KEEPD_STALL_MS * MS)
    return KEEPD_ROUTE_BUSY;
  if (atomic_load_explicit(&cl->leaving, memory_order_relaxed))
    return KEEPD_ROUTE_BUSY;
  unsigned count = 0;
  for (uint16_t e = v->endorse[slot]; e != 0; e &= (uint16_t)(e - 1)) {
    unsigned j = (unsigned)__builtin_ctz(e);
    if (j == cl->self || atomic_load_explicit(&cl->fresh_until[j], memory_order_acquire) > now)
      count++;
  }
  if (!majority(cl, count))
    return KEEPD_ROUTE_BUSY;
  // Its keys are still on their way from a leaving member or the interim
  // owner. Read after the view and the freshness: the heartbeat thread
  // marks a slot pending before it publishes what makes the slot servable.
  if (atomic_load_explicit(&cl->ho_state[slot], memory_order_acquire) == HO_PENDING)
    return KEEPD_ROUTE_BUSY;
  return KEEPD_ROUTE_SERVE;
}

uint64_t keepd_cluster_lock_wait(struct keepd_cluster *cl, uint32_t slot, uint64_t now) {
  uint64_t q = atomic_load_explicit(&cl->quarantine_until[slot], memory_order_acquire);
  return q > now ? (q - now + MS - 1) / MS : 0;
}

void keepd_cluster_quiescent(struct keepd_cluster *cl, unsigned shard) {
  atomic_fetch_add_explicit(&cl->qs[shard], 1, memory_order_release);
}

uint64_t keepd_cluster_epoch(struct keepd_cluster *cl) {
  return atomic_load_explicit(&cl->epoch, memory_order_relaxed);
}
