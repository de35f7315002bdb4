// keepd_cluster_internal.h: the membership state shared by cluster.c (the
// heartbeat thread) and handoff.c (the key handoff on a clean leave),
// private to those two files. Which thread writes which field is noted
// where it is not the heartbeat thread.
#ifndef KEEPD_CLUSTER_INTERNAL_H
#define KEEPD_CLUSTER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "keepd.h"
#include "keepd_cluster.h"

#define MS 1000000ull
#define HB_LEN(n) (32u + 16u * (n) + KEEPD_HB_MAC_LEN)
#define SENT_RING 64u // our last send times, by counter: 1.6 s > the quorum window
#define OWNER_CACHE 8u

struct view {
  uint8_t owner[KEEP_SLOTS];    // member index
  uint16_t endorse[KEEP_SLOTS]; // members whose view names us owner (0: not ours)
  uint64_t own_mask;            // the live set it was built from
  uint64_t peer_mask[KEEP_MAX_MEMBERS];
  bool leaving;
};

struct retired {
  struct view *v;
  uint64_t snap[KEEPD_MAX_SHARDS];
};

struct peer {
  uint64_t inc, ctr; // last accepted heartbeat
  uint64_t heard_ns;
  uint64_t view_mask;
  bool leaving, known;
  uint64_t echo_ns; // send time of the newest heartbeat of ours it echoed
};

struct owners {
  uint64_t mask;
  bool used;
  uint8_t owner[KEEP_SLOTS];
};

struct keepd_cluster {
  struct keepd_cluster_config cfg;
  unsigned n, self, num_shards;
  uint16_t ids[KEEP_MAX_MEMBERS];
  uint8_t secret[KEEP_SECRET_LEN];
  uint8_t key[KEEPD_HB_KEY_LEN];
  int fd;
  struct sockaddr_storage addr[KEEP_MAX_MEMBERS];
  socklen_t addr_len[KEEP_MAX_MEMBERS];
  uint64_t quarantine_ns;
  uint64_t inc, ctr;
  uint64_t sent_at[SENT_RING];
  struct peer peers[KEEP_MAX_MEMBERS];
  struct owners cache[OWNER_CACHE];
  unsigned cache_next;
  uint8_t copies[KEEP_MAX_MEMBERS][KEEP_SLOTS]; // build_view's scratch
  bool serving[KEEP_SLOTS];
  // served_until: the last tick that served it or stopped serving it, 0
  // never or since its keys were handed to a joining member (read, and
  // reset, by the shards that answer a joining member's pull).
  _Atomic uint64_t served_until[KEEP_SLOTS];
  // tick_ns: when the last tick ended (its heartbeats were sent at its
  // start). The shards stop serving when it grows old: a member whose
  // heartbeat thread stalls (SIGSTOP, a frozen VM) is soon declared dead by
  // its peers, whose slot owners then change (keepd_cluster_route()).
  _Atomic uint64_t tick_ns;
  _Atomic uint64_t quarantine_until[KEEP_SLOTS];
  _Atomic uint64_t fresh_until[KEEP_MAX_MEMBERS];
  _Atomic(struct view *) view;
  struct view *cur; // the thread's copy of the published pointer
  // epoch counts the changes of this member's live set, one per member
  // that entered or left it (itself too, when it leaves), from 1 at
  // start; epoch_mask is the live set it was last counted for (heartbeat
  // thread only). CLUSTER answers the epoch, so that whoever reads it
  // twice knows whether this member's view changed in between.
  _Atomic uint64_t epoch;
  uint64_t epoch_mask;
  struct retired retired[64];
  unsigned num_retired;
  _Atomic uint64_t qs[KEEPD_MAX_SHARDS];
  atomic_bool leaving, stop;
  bool started;
  pthread_t thread;

  // Key handoff (handoff.c). ho_state is per slot (HO_*): set PENDING by
  // the heartbeat thread when a leaving peer's slot becomes ours, then
  // RECEIVED or FAILED by the handoff thread, and back to NONE by the
  // heartbeat thread once tick() has applied it to the quarantine.
  _Atomic uint8_t ho_state[KEEP_SLOTS];
  uint64_t ho_at[KEEP_SLOTS]; // when PENDING was set: the leave, as heard
  struct keepd_ho_job *jobs;  // queued for the handoff thread, under ho_mu
  pthread_mutex_t ho_mu;
  pthread_cond_t ho_cv;
  pthread_t ho_thread;
  bool ho_started;
  struct keepd_ho_batch *_Atomic inbox[KEEPD_MAX_SHARDS]; // for each shard to apply
  int wake_fd1[KEEPD_MAX_SHARDS]; // each shard's eventfd + 1 (0: none), set before the threads
  uint64_t test_pause_ms;         // KEEPD_TEST_HANDOFF_PAUSE_MS, fault tests only
  uint64_t test_join_pause_ms;    // KEEPD_TEST_JOIN_PAUSE_MS, the same for joins
  // The leaving side: peers whose DONE arrived (bit per member index), and
  // whether every live peer that is not leaving itself has sent one.
  _Atomic uint64_t done_mask;
  atomic_bool leave_settled;
};

// HO_JOINED: a joining member's pull ended (whole or not); the slot is
// served with the quarantine it got when it was first servable.
enum { HO_NONE = 0, HO_PENDING = 1, HO_RECEIVED = 2, HO_FAILED = 3, HO_JOINED = 4 };

// keepd_ho_job is one peer to pull from: a leaving peer and the slots that
// were its own and are now ours, or (`join`) the interim owner of slots we
// start serving after not serving them (at start, or back from a partition
// or a pause).
struct keepd_ho_job {
  struct keepd_ho_job *next;
  unsigned peer;
  uint64_t peer_inc;
  bool join;
  uint8_t slots[KEEP_SLOTS / 8];
};

// keepd_ho_begin queues a job for peer `j`, which has just announced its
// leave; `before` and `after` are the slot owners with and without it.
// Heartbeat thread.
void keepd_ho_begin(struct keepd_cluster *cl, unsigned j, const uint8_t *before,
                    const uint8_t *after, uint64_t now);
// keepd_ho_queue hands `job` (its slots already HO_PENDING) to the handoff
// thread, which frees it. Heartbeat thread.
void keepd_ho_queue(struct keepd_cluster *cl, struct keepd_ho_job *job);
// keepd_ho_start and keepd_ho_stop run and join the handoff thread.
int keepd_ho_start(struct keepd_cluster *cl);
void keepd_ho_stop(struct keepd_cluster *cl);

#endif // KEEPD_CLUSTER_INTERNAL_H
