// keepd_server.h: the server's and the shards' state, private to shard.c and
// main.c: connections, topics and subscribers, the per-shard loop state, and
// the process-wide server that holds the shards and the rings between them.
#ifndef KEEPD_SERVER_H
#define KEEPD_SERVER_H

#include "keepd.h"
#include "keepd_cluster.h"
#include "keepd_tls.h"

#define KEEPD_TOPIC_BUCKETS 1024

struct keepd_buf {
  uint8_t *p;
  size_t len, cap;
};

struct keepd_conn {
  int fd;
  uint32_t gen; // tells a reused descriptor from the connection it replaced
  uint32_t events;
  struct keepd_buf in, out;
  size_t out_off;
  bool dirty, pending, closing, blocked, want_out, dead;
  // inflight: requests sent on to other shards whose answers have not come
  // back yet; the connection's replies wait for them, to leave in one send.
  uint32_t inflight;
  uint64_t sub_shards; // shards holding a subscription of this connection
  keep_tls_conn *tls;  // NULL in plaintext mode
  struct keepd_conn *next_dead;
};

// keepd_sub is one subscription, kept by the shard that owns the topic.
struct keepd_sub {
  unsigned shard; // where the subscriber's connection lives
  int fd;
  uint32_t gen;
  uint64_t sub_id; // the SUBSCRIBE request's id, carried by every event
  uint64_t seq;    // last sequence number sent
  uint64_t last_sent_ns;
};

struct keepd_topic {
  struct keepd_topic *next;
  uint64_t hash;
  bool moved; // another member owned its slot at the last heartbeat pass
  struct keepd_sub *subs;
  size_t num_subs, cap;
  size_t name_len;
  uint8_t name[KEEP_MAX_KEY];
};

struct msg;

struct keepd_shard {
  struct keepd_server *srv;
  unsigned id;
  pthread_t thread;
  int epfd, efd, lfd;
  uint64_t now;
  uint64_t last_work_ns; // when a turn last handled events (busy_poll_us)
  keepd_store store;
  struct keepd_topic *topics[KEEPD_TOPIC_BUCKETS];
  struct keepd_conn **conns; // by descriptor
  size_t conns_cap;
  unsigned num_conns, max_conns;
  uint32_t next_gen;
  struct keepd_conn **dirty, **pending;
  size_t num_dirty, dirty_cap, num_pending, pending_cap;
  struct keepd_conn *graveyard;
  struct msg *backlog_head[KEEPD_MAX_SHARDS], *backlog_tail[KEEPD_MAX_SHARDS];
  size_t backlog_bytes[KEEPD_MAX_SHARDS];
  struct keepd_buf outq[KEEPD_MAX_SHARDS]; // this iteration's batch per shard
  bool wake[KEEPD_MAX_SHARDS];
  struct keepd_buf scratch;
  keep_frame frame;
  // Handshakes in progress (TLS), checked against their deadline each tick;
  // entries whose connection is gone or done are dropped there.
  struct keepd_hs {
    int fd;
    uint32_t gen;
    uint64_t deadline_ns;
  } * hs;
  size_t num_hs, hs_cap;
  unsigned tls_gen; // the keepd_tls_generation() last checked
};

struct keepd_server {
  keepd_settings set;
  unsigned num_shards;
  struct keepd_shard *shards;
  keepd_ring *rings; // rings[from * num_shards + to]
  atomic_bool stop;
  uint64_t quarantine_until_ns;
  char member[80];          // "address:port" as the cluster view names it
  struct keepd_cluster *cl; // NULL for a single node
};

int keepd_shard_init(struct keepd_shard *s, struct keepd_server *srv, unsigned id, int lfd);
int keepd_shard_start(struct keepd_shard *s);
void keepd_shard_drain_rings_at_exit(struct keepd_shard *s);
void keepd_shard_cleanup(struct keepd_shard *s);

#endif // KEEPD_SERVER_H
