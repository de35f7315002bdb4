// keepd_cluster.h: cluster membership, placement and quorum for keepd,
// private to the daemon (cluster.c). A fixed member list, authenticated UDP
// heartbeats, rendezvous placement of the 16,384 slots over the live
// members, and the rule that decides whether this member may serve a slot
// right now: it must own the slot in its own view and a majority of the
// list must have confirmed that, recently enough (docs/keep-guarantees.md).
#ifndef KEEPD_CLUSTER_H
#define KEEPD_CLUSTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "keep_internal.h"

// Timing of the membership protocol (docs/keep-guarantees.md).
// KEEPD_HB_INTERVAL_MS: a heartbeat to every peer this often.
#define KEEPD_HB_INTERVAL_MS 25u
// KEEPD_DEAD_AFTER_MS: a peer not heard for this long leaves the live set.
#define KEEPD_DEAD_AFTER_MS 225u
// KEEPD_QUORUM_WINDOW_MS: a peer's confirmation counts this long after the
// heartbeat of ours it echoes was sent; a member without a majority of
// fresh confirmations stops serving.
#define KEEPD_QUORUM_WINDOW_MS 1000u
// KEEPD_STALL_MS: a member whose heartbeat thread has not ticked for this
// long answers BUSY for every key until it ticks again: its peers declare
// it dead KEEPD_DEAD_AFTER_MS after its last heartbeat, and may then serve
// its slots. A tick that comes at least KEEPD_DEAD_AFTER_MS after the
// previous one counts as a return from a pause: the slots it serves then
// are taken back from their interim owners as after a start.
#define KEEPD_STALL_MS 150u
// KEEPD_QUARANTINE_MARGIN_MS is added to the longest lease and the quorum
// window for the lock quarantine of a slot that changed owner.
#define KEEPD_QUARANTINE_MARGIN_MS 1000u

// keepd_member is one entry of the member list: "ID@HOST:PORT/UDPPORT".
struct keepd_member {
  uint16_t id;
  char host[64]; // an IPv4 or IPv6 literal
  uint16_t port, udp_port;
};

struct keepd_cluster_config {
  struct keepd_member members[KEEP_MAX_MEMBERS];
  unsigned num_members;
  int self; // index of this member in `members`
};

// keepd_member_parse parses "ID@HOST:PORT/UDPPORT" (HOST an IP literal, IPv6
// in brackets). Returns 0 or -EINVAL.
int keepd_member_parse(struct keepd_member *out, const char *s);

// keepd_members_parse parses a list of members separated by spaces or
// commas into `cfg`; returns 0 or -EINVAL (syntax, duplicate id, over
// KEEP_MAX_MEMBERS).
int keepd_members_parse(struct keepd_cluster_config *cfg, const char *s);

// Heartbeat datagrams (heartbeat.c; layout in docs/keep-protocol.md).

#define KEEPD_HB_KEY_LEN 32
#define KEEPD_HB_MAC_LEN 32
#define KEEPD_HB_FLAG_LEAVING 1u

struct keepd_hb {
  uint16_t id;   // the sender
  uint8_t flags; // KEEPD_HB_FLAG_*
  uint8_t n;     // members in the list
  uint64_t inc, ctr;
  uint64_t live; // the sender's live set, bit i for the i-th member
  uint64_t echo_inc[KEEP_MAX_MEMBERS], echo_ctr[KEEP_MAX_MEMBERS];
};

// keepd_hb_len is the size of a heartbeat for a list of `n` members.
size_t keepd_hb_len(unsigned n);

// keepd_hb_seal writes `hb` and its HMAC-SHA256 under `key` into `out`.
// Returns 0, -EINVAL (n out of range) or -ENOBUFS (`out_cap` too small).
int keepd_hb_seal(uint8_t *out, size_t out_cap, size_t *out_len,
                  const uint8_t key[KEEPD_HB_KEY_LEN], const struct keepd_hb *hb);

// keepd_hb_open checks the length and the MAC of the datagram `in` for a
// list of `n` members, then decodes it into `out`. Returns 0 or -EBADMSG;
// reads nothing beyond `in_len`. Thread-safe.
int keepd_hb_open(struct keepd_hb *out, const uint8_t key[KEEPD_HB_KEY_LEN], const uint8_t *in,
                  size_t in_len, unsigned n);

struct keepd_cluster;

// keepd_cluster_new derives the heartbeat key, opens the UDP socket of the
// member `cfg->self` and prepares the state; every slot starts unserved.
// `quarantine_ms` is the lock quarantine of a slot this member starts
// serving. Returns 0 or -errno.
int keepd_cluster_new(struct keepd_cluster **out, const struct keepd_cluster_config *cfg,
                      const uint8_t secret[KEEP_SECRET_LEN], uint64_t quarantine_ms,
                      unsigned num_shards);
// keepd_cluster_start starts the heartbeat thread.
int keepd_cluster_start(struct keepd_cluster *cl);
// keepd_cluster_leave announces a clean leave: this member stops serving at
// once and tells its peers, which drop it from placement at their next
// heartbeat and pull its keys (handoff.c). It returns once every live peer
// that is not leaving too has confirmed its pull, or after
// KEEPD_HANDOFF_WAIT_MS; the shards must keep running until then, since
// they serve the pulls. Called once, from the main thread.
void keepd_cluster_leave(struct keepd_cluster *cl);
// keepd_cluster_free stops the thread (if started) and frees everything;
// the shards must have stopped. NULL is a no-op.
void keepd_cluster_free(struct keepd_cluster *cl);

enum { KEEPD_ROUTE_SERVE = 0, KEEPD_ROUTE_MOVED = 1, KEEPD_ROUTE_BUSY = 2 };

// keepd_cluster_route decides a request on `slot` at time `now`: serve it,
// answer MOVED to the member `*owner_id`, or answer BUSY (no majority
// confirms this member's ownership, it is leaving, or the slot's keys are
// still being pulled from a leaving member). Thread-safe, lock free; called
// by every shard.
int keepd_cluster_route(struct keepd_cluster *cl, uint32_t slot, uint64_t now, uint16_t *owner_id);

// keepd_cluster_lock_wait returns how many ms a new lock on an absent key of
// `slot` must still wait (0: none): the slot's quarantine since this member
// last started serving it. Thread-safe.
uint64_t keepd_cluster_lock_wait(struct keepd_cluster *cl, uint32_t slot, uint64_t now);

// keepd_cluster_quiescent tells the cluster thread that shard `shard` holds
// no view pointer any more (called once per loop iteration), so replaced
// views can be freed.
void keepd_cluster_quiescent(struct keepd_cluster *cl, unsigned shard);

// keepd_cluster_epoch is this member's view epoch: 1 at start, plus one for
// every member that entered or left its live set since (itself too, when it
// leaves), so it grows with every change of the view that places the
// slots (docs/keep-protocol.md, VIEW). Thread-safe, lock free; answered to
// CLUSTER by any shard.
uint64_t keepd_cluster_epoch(struct keepd_cluster *cl);

// Key handoff on a clean leave (handoff.c; docs/keep-protocol.md, "Key
// handoff", and docs/keep-guarantees.md). When a peer announces its leave,
// each member that takes some of its slots answers BUSY for them, pulls
// their keys page by page over TCP (HANDOFF_PULL, authenticated with the
// heartbeat key and the leaving member's incarnation), stores them with
// their remaining TTL or lease, and confirms with HANDOFF_DONE; slots
// received whole skip the lock quarantine. The leaving member answers BUSY
// for every key meanwhile and stays up until each live peer confirmed.
//
// The same pull runs the other way when a member joins or comes back: for
// each slot it starts serving after not serving it (at start, after its
// confirmations lapsed in a partition or a pause, after its heartbeat
// thread stalled), it answers BUSY and pulls the slot's keys from the
// member that owns the slot without it (the interim owner), which hands
// them out once its own view gives the slot to the puller and it stopped
// serving the slot at least KEEPD_JOIN_SETTLE_MS ago. The interim owner
// names the wanted slots it served lately; the puller drops its own copy
// of those (stale: the interim owner wrote after it) and keeps the others.
// Such slots keep the lock quarantine.

// KEEPD_HANDOFF_WAIT_MS bounds how long a leaving member waits for the
// peers' confirmations before it exits anyway.
#define KEEPD_HANDOFF_WAIT_MS 5000u
// KEEPD_HANDOFF_IO_MS: the puller gives up on a leaving member that does not
// answer (connect, send or read) within this long; its slots then fall back
// to the quarantine.
#define KEEPD_HANDOFF_IO_MS 1000u
// A page of a pull answer holds at most this many entries, and stops after
// the entry that crosses this many bytes, so one request never holds a
// shard for long.
#define KEEPD_HANDOFF_PAGE_ENTRIES 1024u
#define KEEPD_HANDOFF_PAGE_BYTES (512u * 1024u)
// KEEPD_JOIN_SETTLE_MS: an interim owner hands out a slot's keys to a
// joining member this long after it stopped serving the slot at the
// earliest, so that requests already routed to its shards before its view
// changed have been executed (a shard loop turns every 10 ms; a view
// changes on a 25 ms tick).
#define KEEPD_JOIN_SETTLE_MS 60u
// KEEPD_JOIN_RECENT_MS: only the keys of slots the interim owner served
// within this long are handed to a joining member: older ones are left
// over from an earlier time it owned the slot, not its latest contents.
#define KEEPD_JOIN_RECENT_MS 10000u
// KEEPD_HANDOFF_BITMAP_LEN: a pull names the slots it wants, a bit each.
#define KEEPD_HANDOFF_BITMAP_LEN (KEEP_SLOTS / 8)

struct keepd_buf;
struct keepd_store;

// keepd_handoff_pull_slot is the slot a HANDOFF_PULL frame starts at; the
// request goes to the shard that holds that slot.
uint32_t keepd_handoff_pull_slot(const keep_frame *f);

// keepd_handoff_serve answers a HANDOFF_PULL on the shard `shard` (of
// `num_shards`) that holds store `st`: ENTRY frames for the live keys of
// the wanted slots from the cursor on, then OK with the next cursor
// (UINT64_MAX: this shard is done) and the last slot this shard holds. A
// member that is not leaving serves a joining member's pull: BUSY until its
// view gives every wanted slot to the puller and it stopped serving them
// KEEPD_JOIN_SETTLE_MS ago, and then only the keys of slots it served in
// the last KEEPD_JOIN_RECENT_MS. ERROR (invalid) for a bad MAC, an unknown
// peer or a cursor the store no longer honours. Shard thread.
void keepd_handoff_serve(struct keepd_cluster *cl, struct keepd_store *st, unsigned shard,
                         unsigned num_shards, const keep_frame *f, uint64_t now,
                         struct keepd_buf *b);

// keepd_handoff_done records a peer's HANDOFF_DONE (after checking its MAC)
// and answers OK; BUSY while this member is not leaving. Any thread.
void keepd_handoff_done(struct keepd_cluster *cl, const keep_frame *f, struct keepd_buf *b);

// keepd_handoff_set_wake tells where to wake shard `shard` when a batch of
// pulled keys waits for it (its eventfd); called before the threads start.
void keepd_handoff_set_wake(struct keepd_cluster *cl, unsigned shard, int efd);

// keepd_handoff_apply stores, on shard `shard`, a batch of pulled keys the
// handoff thread left for it, if any. Called once per loop iteration.
void keepd_handoff_apply(struct keepd_cluster *cl, unsigned shard, struct keepd_store *st,
                         uint64_t now);

#endif // KEEPD_CLUSTER_H
