// keep.h: libkeep, client of keepd, the in-memory cluster coordinator.
//
// libkeep is the client of keepd: key-value with TTL, counters, leases and
// locks, publish/subscribe and cluster placement, over a binary protocol whose
// codec it shares with servers/keepd, inside mutual TLS 1.3 through
// BoringSSL's libssl (see "TLS"), or in plaintext to a keepd on loopback.
//
// Threading: unless a function's comment says otherwise, every function is
// safe to call from any thread; handles are not shared between threads
// without the caller's locking.
//
// Ownership: borrowing is the default. A function takes ownership only where
// its comment says so; pointers it returns are non-owning unless the function
// is named *_new or *_dup.
//
// Errors: functions return 0 (or a count) on success and a negative code on
// failure: -errno for OS and resource errors (-1 to -4095), KEEP_ERR_* for this
// library's own (KEEP_ERR_* codes lie in -10600 to -10699).
// keep_strerror() describes any of them.
#ifndef KEEP_KEEP_H
#define KEEP_KEEP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KEEP_API __attribute__((visibility("default")))
#define KEEP_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define KEEP_API
#define KEEP_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libkeep alone; it changes only when this library does.
// KEEP_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define KEEP_VERSION_MAJOR 0
#define KEEP_VERSION_MINOR 1
#define KEEP_VERSION_PATCH 0
#define KEEP_VERSION_STRING "0.1.0"
#define KEEP_VERSION_NUMBER                                                                        \
  (KEEP_VERSION_MAJOR * 10000 + KEEP_VERSION_MINOR * 100 + KEEP_VERSION_PATCH)

// keep_version returns the version of the library loaded at run time, as
// KEEP_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
KEEP_API unsigned keep_version(void);

// keep_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
KEEP_API const char *keep_version_string(void);

// Errors.

enum {
  KEEP_ERR_INVALID_ARGUMENT = -10600,
  KEEP_ERR_PROTOCOL = -10601,
  KEEP_ERR_BUSY = -10602,
  KEEP_ERR_NOT_FOUND = -10603,
  KEEP_ERR_EXISTS = -10604,
  KEEP_ERR_NOT_YET = -10605,
  KEEP_ERR_MOVED = -10606,
  KEEP_ERR_SERVER = -10607,
  KEEP_ERR_OUT_OF_MEMORY = -10608,
  KEEP_ERR_WRONG_TYPE = -10609,
  KEEP_ERR_TOO_LARGE = -10610,
  KEEP_ERR_TIMEOUT = -10611,
  KEEP_ERR_CLOSED = -10612,
  KEEP_ERR_OVERFLOW = -10613,
  KEEP_ERR_TLS = -10614,
};

// keep_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   KEEP_ERR_INVALID_ARGUMENT: invalid argument.
//   KEEP_ERR_PROTOCOL: protocol violation.
//   KEEP_ERR_BUSY: server busy, retry.
//   KEEP_ERR_NOT_FOUND: key not found.
//   KEEP_ERR_EXISTS: key exists or lock held by another holder.
//   KEEP_ERR_NOT_YET: lock quarantine, retry later.
//   KEEP_ERR_MOVED: key belongs to another member.
//   KEEP_ERR_SERVER: server error.
//   KEEP_ERR_OUT_OF_MEMORY: server memory cap reached.
//   KEEP_ERR_WRONG_TYPE: key holds another type.
//   KEEP_ERR_TOO_LARGE: key or value too large.
//   KEEP_ERR_TIMEOUT: timed out.
//   KEEP_ERR_CLOSED: connection closed.
//   KEEP_ERR_OVERFLOW: counter overflow.
//   KEEP_ERR_TLS: TLS handshake failed or peer key not pinned.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
KEEP_API const char *keep_strerror(int code);

// TLS.
//
// keepd speaks keep/1 inside mutual TLS 1.3 unless it was explicitly started
// in plaintext on loopback (docs/keep-protocol.md, "Transport security").
// There is no CA: every endpoint holds an Ed25519 key pair and presents a
// self-signed certificate made from it in memory; each side accepts the
// other only if the certificate's SubjectPublicKeyInfo equals a pinned key.
// keepd's members share the cluster key pair. A client either holds a key
// pair of its own whose public key is on keepd's allowed-clients list
// (revoked by removing it from the list and sending keepd SIGHUP, which
// also closes the connections it holds) or, for trusted tools, the cluster
// key itself. Keys are PEM files: "PRIVATE KEY" (PKCS#8) for a private key,
// "PUBLIC KEY" (SubjectPublicKeyInfo) for a public one, as written by
// `keepd keygen FILE` or `openssl genpkey -algorithm ed25519`. A server that
// refuses the client's key is seen at the first request, not in
// keep_client_new(): TLS 1.3 completes the client's side first.

// keep_tls_settings names the key files a client uses; keep_client_new()
// reads them once. Paths are borrowed for the duration of that call.
typedef struct keep_tls_settings {
  // key_file is this client's private key (PEM PKCS#8, Ed25519). Required.
  const char *key_file;
  // server_key_file is the cluster's public key (PEM), which every member's
  // certificate must carry. NULL: the public half of key_file, for a client
  // that holds the cluster key itself.
  const char *server_key_file;
} keep_tls_settings;

// Client.
//
// A keep_client talks keep/1 (docs/keep-protocol.md) to keepd over TCP.
// Without member ids it keeps one connection, to the first member of the
// list that accepts it; with them (cluster mode, keep_settings.member_ids)
// one connection per member, and it sends each keyed request to the owner
// of the key's slot (docs/keep-guarantees.md says what a cluster promises).
// Every call below blocks until the answer arrives or the I/O timeout
// passes. A keep_client is not thread-safe: use one per thread, or lock.
// Times are counted on CLOCK_MONOTONIC_RAW.
//
// Answers map to return codes the same way for every call: ok is 0,
// not-found KEEP_ERR_NOT_FOUND, busy KEEP_ERR_BUSY, moved KEEP_ERR_MOVED,
// not-yet KEEP_ERR_NOT_YET, and an error answer KEEP_ERR_OUT_OF_MEMORY,
// KEEP_ERR_WRONG_TYPE, KEEP_ERR_TOO_LARGE, KEEP_ERR_OVERFLOW or
// KEEP_ERR_SERVER. Transport failures are -errno, KEEP_ERR_TIMEOUT (the
// connection is then closed, since a late answer could be mistaken for the
// next one's) or KEEP_ERR_CLOSED; the next call reconnects. A malformed
// answer is KEEP_ERR_PROTOCOL and closes the connection. The server closes
// the connection after refusing a frame (KEEP_ERR_TOO_LARGE for a value over
// its limit): the client closes its side too, and the next call reconnects.
// Subscriptions end with the connection. A BUSY answer (not executed) is
// retried up to 5 times, after 1, 2, 4, 8 and 16 ms, within the I/O timeout;
// only then is KEEP_ERR_BUSY returned. In cluster mode (member_ids below)
// a MOVED answer is followed once; a member without a majority of the
// cluster answers BUSY. Batches, PING and subscriptions go to one
// connection: the member last used (subscribe and publish route by topic).
// Events are read from that connection only.

// KEEP_MAX_KEY_LEN is the longest key or topic, in bytes (at least 1).
#define KEEP_MAX_KEY_LEN 250
// KEEP_MAX_HOLDER_LEN is the longest lock holder id, in bytes (at least 1).
#define KEEP_MAX_HOLDER_LEN 64
// KEEP_MAX_VALUE_LEN is the largest value or payload the protocol carries.
#define KEEP_MAX_VALUE_LEN (1024u * 1024u)
// KEEP_SECRET_LEN is the size of the cluster secret that keys the slot hash.
#define KEEP_SECRET_LEN 16
// KEEP_NUM_SLOTS is the number of slots keys hash to.
#define KEEP_NUM_SLOTS 16384u
// KEEP_DEFAULT_* are the defaults that a 0 in keep_settings selects.
#define KEEP_DEFAULT_CONNECT_TIMEOUT_MS 1000u
#define KEEP_DEFAULT_IO_TIMEOUT_MS 2000u
#define KEEP_DEFAULT_MAX_EVENTS 4096u

// keep_settings configures keep_client_new(). Zero-initialise it and set what
// you need; a 0 limit means the named default. It is read during
// keep_client_new() only; strings are copied.
typedef struct keep_settings {
  // members lists the servers as "host:port" (IPv4 or IPv6 literal, or a
  // name resolved with getaddrinfo; IPv6 as "[addr]:port"). Required.
  const char *const *members;
  size_t num_members;
  // secret is the KEEP_SECRET_LEN-byte cluster secret that keys the slot
  // hash; NULL means all zero bytes (what keepd uses when none is set).
  const uint8_t *secret;
  // connect_timeout_ms bounds each connection attempt (0:
  // KEEP_DEFAULT_CONNECT_TIMEOUT_MS).
  uint32_t connect_timeout_ms;
  // io_timeout_ms bounds the wait for each answer (0:
  // KEEP_DEFAULT_IO_TIMEOUT_MS).
  uint32_t io_timeout_ms;
  // lock_margin_ms is subtracted from every lease deadline to cover clock
  // drift between client and server (0: 1 ms plus 1% of the lease).
  uint32_t lock_margin_ms;
  // max_events bounds the events queued while waiting for answers; beyond
  // it events are dropped and surface as a sequence gap (0:
  // KEEP_DEFAULT_MAX_EVENTS).
  uint32_t max_events;
  // member_ids, when not NULL, holds the cluster id of each member
  // (`num_members` entries, the same ids as keepd's member list) and turns
  // on cluster mode: the client computes each key's owner with
  // keep_slot_owner() and `secret`, keeps one connection per member, sends
  // each request to its key's owner, follows a MOVED answer once (learning
  // the slot's owner) and skips members it cannot connect to for
  // KEEP_MEMBER_DOWN_MS. NULL: one connection to the first member that
  // accepts it, as a single keepd needs.
  const uint16_t *member_ids;
  // tls, when not NULL, turns on mutual TLS 1.3 for every connection (see
  // "TLS" above): the handshake must finish within connect_timeout_ms, and a
  // refused one fails like a refused connection, with KEEP_ERR_TLS. NULL:
  // plaintext, which keep_client_new() allows only when every member is a
  // loopback address literal (127.0.0.0/8 or ::1); otherwise it returns
  // KEEP_ERR_INVALID_ARGUMENT.
  const keep_tls_settings *tls;
} keep_settings;

// KEEP_MEMBER_DOWN_MS is how long a cluster-mode client routes around a
// member it could not connect to.
#define KEEP_MEMBER_DOWN_MS 250u

// keep_client is a connection to keepd; opaque.
typedef struct keep_client keep_client;

// keep_client_new validates `settings`, connects to the first member that
// accepts a connection and sets `*out` to a new client, which the caller
// frees with keep_client_free(). On failure `*out` is NULL.
//
// Errors: KEEP_ERR_INVALID_ARGUMENT (NULL pointers, no members, a member
// string that is not host:port), -ENOMEM, and the connect error of the last
// member tried (-ECONNREFUSED, KEEP_ERR_TIMEOUT, -EHOSTUNREACH, ...).
// Thread-safe.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_client_new(keep_client **out,
                                                     const keep_settings *settings);

// keep_client_free closes the connection and frees `c`. Does nothing when `c`
// is NULL.
KEEP_API void keep_client_free(keep_client *c);

// keep_slot returns the slot (0 to KEEP_NUM_SLOTS - 1) of the `key_len`-byte
// `key` under the `secret` (KEEP_SECRET_LEN bytes; NULL means zero bytes):
// the low 14 bits of SipHash-2-4 of the key. Clients and servers compute the
// same value. Thread-safe.
KEEP_API uint32_t keep_slot(const uint8_t *secret, const void *key, size_t key_len);

// KEEP_MAX_MEMBERS is the most members a cluster's list may hold.
#define KEEP_MAX_MEMBERS 16

// keep_slot_owner returns the index in `ids` (the `num_ids` member ids of the
// cluster's list, in any order) of the member that owns `slot` when the
// members whose bit is set in `alive_mask` (bit i for ids[i]) are live:
// the one with the highest rendezvous score SipHash-2-4(secret, slot as u16
// LE || id as u16 LE), ties to the lower id. keepd and libkeep use it, so an
// integrator can place keys the same way. `secret` as in keep_slot().
// Errors: KEEP_ERR_INVALID_ARGUMENT (NULL `ids`, `num_ids` 0 or over
// KEEP_MAX_MEMBERS, `slot` out of range, no live member). Thread-safe.
KEEP_API int keep_slot_owner(const uint8_t *secret, uint32_t slot, const uint16_t *ids,
                             size_t num_ids, uint64_t alive_mask);

// keep_ping sends a ping and waits for its answer.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_ping(keep_client *c);

// keep_view_epoch asks one member for its view epoch (the CLUSTER request)
// and sets `*out_epoch`. The epoch grows by one for every member that
// entered or left that member's live set, which decides where its slots
// are (docs/keep-protocol.md, VIEW); a single keepd answers 1. Reading it
// before and after a stretch of work tells whether that member's view
// changed in between: keys keep their guarantees while the views of the
// members stay put, and may be lost when a member was declared dead
// (docs/keep-guarantees.md). Epochs of different members are not
// comparable. In cluster mode `member` is the index of the member in
// keep_settings.members, connected to if needed, and the request is not
// routed or sent elsewhere; outside cluster mode `member` must be 0 and
// names the member the client is connected to. Errors:
// KEEP_ERR_INVALID_ARGUMENT (NULL `c` or `out_epoch`, `member` out of
// range, a RESP back end, which has no views), KEEP_ERR_PROTOCOL (an
// answer that is not VIEW), and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_view_epoch(keep_client *c, uint64_t *out_epoch,
                                                     size_t member);

// keep_get copies the value of `key` into `out` (capacity `out_cap`) and sets
// `*out_len` to its length. If `out_cap` is too small, it returns -ENOBUFS
// with `*out_len` set to the length needed. A counter reads as its 8-byte
// little-endian two's-complement value.
//
// Errors: KEEP_ERR_NOT_FOUND, -ENOBUFS, KEEP_ERR_INVALID_ARGUMENT (key length
// 0 or over KEEP_MAX_KEY_LEN), and the common ones above.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_get(keep_client *c, void *out, size_t out_cap,
                                              size_t *out_len, const void *key, size_t key_len);

// keep_set stores `value` under `key`, replacing any value, counter or lock.
// `ttl_ms` is its lifetime in milliseconds, 0 for none. Errors:
// KEEP_ERR_OUT_OF_MEMORY (server memory cap), KEEP_ERR_TOO_LARGE (value over
// the server's limit), KEEP_ERR_INVALID_ARGUMENT, and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_set(keep_client *c, const void *key, size_t key_len,
                                              const void *value, size_t value_len, uint64_t ttl_ms);

// keep_set_nx stores `value` under `key` only if the key is absent, as
// keep_set() does otherwise. Errors: KEEP_ERR_EXISTS if the key is present,
// and those of keep_set().
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_set_nx(keep_client *c, const void *key, size_t key_len,
                                                 const void *value, size_t value_len,
                                                 uint64_t ttl_ms);

// keep_del deletes `key`, whatever it holds (a lock too). Errors:
// KEEP_ERR_NOT_FOUND, and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_del(keep_client *c, const void *key, size_t key_len);

// keep_incr adds `delta` to the counter `key` and sets `*out_value` (may be
// NULL) to the result. An absent key is created as 0 + `delta` with a
// lifetime of `ttl_ms` (0: none) in the same step, which is what a
// rate-limit counter needs; an existing counter keeps its lifetime.
// Errors: KEEP_ERR_WRONG_TYPE (key holds a value or lock), KEEP_ERR_OVERFLOW
// (result outside int64_t), KEEP_ERR_OUT_OF_MEMORY, and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_incr(keep_client *c, int64_t *out_value, const void *key,
                                               size_t key_len, int64_t delta, uint64_t ttl_ms);

// keep_expire sets the lifetime of `key` to `ttl_ms` from now (0: none).
// Errors: KEEP_ERR_NOT_FOUND, and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_expire(keep_client *c, const void *key, size_t key_len,
                                                 uint64_t ttl_ms);

// keep_lock asks for the lock `key` for `holder` with a lease of `lease_ms`
// (at least 1). On success the lock is held and `*out_deadline_ns` (may be
// NULL) is the CLOCK_MONOTONIC_RAW time, in nanoseconds, until which the
// caller may rely on it: the moment the request was sent plus the lease,
// minus the drift margin (keep_settings.lock_margin_ms). Asking again with
// the same holder renews the lease.
// Errors: KEEP_ERR_EXISTS (held by another holder, or the key holds a value),
// KEEP_ERR_NOT_YET (the server is in its lock quarantine after a start: no
// lock it could have granted before may be granted again yet),
// KEEP_ERR_INVALID_ARGUMENT (holder length 0 or over KEEP_MAX_HOLDER_LEN,
// lease 0), and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_lock(keep_client *c, uint64_t *out_deadline_ns,
                                               const void *key, size_t key_len, const void *holder,
                                               size_t holder_len, uint64_t lease_ms);

// keep_unlock releases the lock `key` held by `holder`. Errors:
// KEEP_ERR_NOT_FOUND (no such lock, or it expired), KEEP_ERR_EXISTS (held by
// another holder), and the common ones. An UNLOCK that failed with
// KEEP_ERR_TIMEOUT or KEEP_ERR_CLOSED may still reach the server later (TCP
// retransmits it, for instance once a partition heals) and release a later
// lock of the same holder id: use a holder id per hold (append a counter)
// when a later hold must not be released by an earlier unlock.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_unlock(keep_client *c, const void *key, size_t key_len,
                                                 const void *holder, size_t holder_len);

// keep_extend sets the lease of the lock `key` held by `holder` to `lease_ms`
// from now and sets `*out_deadline_ns` as keep_lock() does. Errors: those of
// keep_unlock().
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_extend(keep_client *c, uint64_t *out_deadline_ns,
                                                 const void *key, size_t key_len,
                                                 const void *holder, size_t holder_len,
                                                 uint64_t lease_ms);

// keep_publish sends `payload` to every subscriber of `topic` and sets
// `*out_receivers` (may be NULL) to how many there were. Delivery is at most
// once; subscribers see a lost event as a sequence gap. Errors: the common
// ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_publish(keep_client *c, size_t *out_receivers,
                                                  const void *topic, size_t topic_len,
                                                  const void *payload, size_t payload_len);

// keep_subscribe subscribes this client to `topic`. Events then arrive
// through keep_next_event() with sequence numbers 1, 2, 3, ... per
// subscription; an idle subscription gets a heartbeat at least every 100 ms
// carrying the last sequence number sent. Subscribing twice to one topic is
// one subscription. The client then follows the topic by itself inside
// keep_next_event(): see there. Errors: the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_subscribe(keep_client *c, const void *topic,
                                                    size_t topic_len);

// keep_unsubscribe ends the subscription to `topic` (on the member that
// holds it, in cluster mode); nothing more of the topic is delivered. An
// interrupted subscription that no member holds ends without an error.
// Errors: KEEP_ERR_NOT_FOUND if there was none, and the common ones (the
// client stops following the topic even then).
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_unsubscribe(keep_client *c, const void *topic,
                                                      size_t topic_len);

// keep_event_kind tells an event from a heartbeat and from a subscription
// that was renewed.
enum keep_event_kind {
  KEEP_EVENT_MESSAGE = 1,
  KEEP_EVENT_HEARTBEAT = 2,
  // KEEP_EVENT_RESUBSCRIBED (keep_next_event and keep_async_event_cb): the
  // subscription was made again after its connection failed, moved to the
  // member that now owns its topic's slot, or confirmed again after a
  // failed check (cluster mode). Events
  // published since the interruption or the move may be lost, how many is
  // unknown; `seq` is the sequence number the next events count on from.
  KEEP_EVENT_RESUBSCRIBED = 3,
};

// keep_event is what keep_next_event() returns. `topic` and `payload` point
// into the client and are valid until the next call on it.
typedef struct keep_event {
  int kind;
  const uint8_t *topic;
  size_t topic_len;
  const uint8_t *payload; // NULL and 0 for a heartbeat
  size_t payload_len;
  // seq is the event's sequence number, or for a heartbeat the last one
  // the server sent on this subscription.
  uint64_t seq;
  // missed counts the events lost just before this one: sequence numbers
  // skipped (an event) or announced by a heartbeat but never received. A
  // member also skips one when the topic's slot moved to another member
  // while it kept the subscription (docs/keep-protocol.md): after a gap in
  // a cluster, subscribe again (the non-blocking client does so by
  // itself).
  uint64_t missed;
} keep_event;

// keep_next_event waits up to `timeout_ms` for the next event or heartbeat on
// any subscription and fills `*out`; in cluster mode it reads the
// connections of every member that holds one of this client's
// subscriptions. It also keeps the subscriptions alive, as the
// non-blocking client does (docs/keep-guarantees.md, "Events"): one whose
// connection failed is made again where its topic routes now, every 100 ms
// until a member takes it; in cluster mode each is confirmed every 500 ms
// on its own connection (at once after a heartbeat with a gap) and follows
// a MOVED answer to the topic's new owner. Each renewal or move is returned
// as a KEEP_EVENT_RESUBSCRIBED event: events published since the
// interruption may have been lost. These requests run within the call and
// may make it last up to the connect or I/O timeout longer than
// `timeout_ms`. Returns 1 when it filled `*out`, 0 when the time passed
// with nothing (also while no member takes an interrupted subscription),
// or an error: KEEP_ERR_CLOSED (no subscription and no connection),
// KEEP_ERR_PROTOCOL, -errno.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_next_event(keep_client *c, keep_event *out,
                                                     uint32_t timeout_ms);

// Batches: many requests in one write.
//
// A keep_batch collects requests, keep_batch_run() sends them all with one
// write and waits for every answer, and keep_batch_result() reads each. The
// server may answer requests on different shards out of order; the client
// matches answers to requests by id. A batch is reusable after
// keep_batch_reset(); it is not thread-safe.

typedef struct keep_batch keep_batch;

// keep_batch_new sets `*out` to an empty batch; free it with
// keep_batch_free(). Errors: KEEP_ERR_INVALID_ARGUMENT, -ENOMEM.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_new(keep_batch **out);

// keep_batch_free frees `b`; does nothing when `b` is NULL.
KEEP_API void keep_batch_free(keep_batch *b);

// keep_batch_reset empties `b`, forgetting requests and results.
KEEP_API void keep_batch_reset(keep_batch *b);

// keep_batch_get, _set, _incr and _del append a request to `b`, with the
// arguments of keep_get(), keep_set(), keep_incr() and keep_del(). The batch
// copies what it needs. Each returns the request's index (0, 1, ...) or
// KEEP_ERR_INVALID_ARGUMENT, KEEP_ERR_TOO_LARGE or -ENOMEM.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_get(keep_batch *b, const void *key, size_t key_len);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_set(keep_batch *b, const void *key, size_t key_len,
                                                    const void *value, size_t value_len,
                                                    uint64_t ttl_ms);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_incr(keep_batch *b, const void *key, size_t key_len,
                                                     int64_t delta, uint64_t ttl_ms);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_del(keep_batch *b, const void *key, size_t key_len);

// keep_batch_run sends every request of `b` on `c` in one write and waits
// for all answers. Returns 0 when every answer arrived (each may still be an
// error, BUSY included, which a batch does not retry: see
// keep_batch_result), or a transport error as the single calls do, after
// which the results are not valid.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_batch_run(keep_client *c, keep_batch *b);

// keep_batch_result reads the answer to request `index` after
// keep_batch_run(): its status is returned (0 or an answer code as for the
// single calls), `*out_num` (may be NULL) gets a counter's new value, and
// `*out_value`/`*out_value_len` (may be NULL) a GET's value, pointing into
// `b` until it is reset or freed. KEEP_ERR_INVALID_ARGUMENT for an index out
// of range or a batch that has not run.
KEEP_API int keep_batch_result(const keep_batch *b, size_t index, int64_t *out_num,
                               const uint8_t **out_value, size_t *out_value_len);

// Non-blocking client.
//
// A keep_async speaks keep/1 like keep_client but never blocks, for daemons
// that run an event loop. Each call below queues a request and returns at
// once; the request is written, and its answer read, inside
// keep_async_process(), which runs the request's completion callback with
// the status and the answer. The caller's loop watches one descriptor,
// keep_async_fd(): an epoll instance holding every connection of the
// client, readable whenever a connection is readable or has queued output
// that can be written. The loop calls keep_async_process() when it is
// readable and when keep_async_next_timeout_ms() has passed (BUSY retries,
// connect and I/O timeouts run on that timer); nothing happens between
// calls. Pipelining is the normal case: everything queued between two
// keep_async_process() calls leaves in one write per connection, and answers
// are matched by request id.
//
// Routing is the blocking client's: one connection per member in cluster
// mode (keep_settings.member_ids), placed with keep_slot_owner(), one MOVED
// followed per request, members that refused a connection skipped for
// KEEP_MEMBER_DOWN_MS. Within a member, the client also holds one
// connection per server shard (docs/keep-protocol.md, "Shards"): each
// connection starts with a PING whose answer names the shard that holds it,
// and keyed requests go to the connection of the shard that owns their
// slot, or to the member's first connection until that one exists
// (subscribe and unsubscribe always use the first connection, where the
// subscription then lives; a shard connection that fails is not reopened
// until the first connection is). A BUSY
// answer is retried after 1, 2, 4, 8 and 16 ms within io_timeout_ms, then
// completed with KEEP_ERR_BUSY.
//
// When a connection fails (closed, reset, refused, timed out, or a
// malformed answer), every request queued or written on it completes with
// the failure's status (KEEP_ERR_CLOSED, KEEP_ERR_TIMEOUT, KEEP_ERR_PROTOCOL
// or -errno): such a request may or may not have been executed. The next
// request reconnects.
//
// Subscriptions are renewed by the library (keep_async_event_cb): when the
// connection of one fails, it is reported interrupted and subscribed again
// on the topic's owner, every 100 ms until a member takes it. In cluster
// mode each live subscription is also confirmed every 500 ms with a
// SUBSCRIBE of the library's own on its connection (not counted in
// keep_async_pending): one left on a member that no longer owns the
// topic's slot (a member rejoined and took it back) moves to the owner,
// through the member's MOVED answer, and one whose member cannot confirm
// that it owns the slot (BUSY: no majority) is reported interrupted until
// a check succeeds; a heartbeat with a gap (which is how a member says the
// slot moved away) brings the check forward. KEEP_EVENT_RESUBSCRIBED reports each renewal, move or
// confirmation after an interruption: events published in between may
// have been lost; every other loss shows as a gap count.
// docs/keep-guarantees.md says what is and is not guaranteed.
//
// TLS (keep_settings.tls) works as in the blocking client: each connection
// runs its mutual TLS 1.3 handshake inside keep_async_process(), within
// connect_timeout_ms, and a refused one fails its requests with
// KEEP_ERR_TLS (or, when the server refuses this client's key after the
// handshake, KEEP_ERR_TLS or KEEP_ERR_CLOSED). Without it only loopback
// members are accepted. Not offered: batches (pipelining replaces them).
//
// Threading: a keep_async is not thread-safe; use it from the thread of its
// event loop. Callbacks run inside keep_async_process() or
// keep_async_free(), on the caller's thread. A callback may queue new
// requests; it must not call keep_async_process() (which then returns
// -EINPROGRESS) or keep_async_free().

// KEEP_DEFAULT_MAX_PENDING is the default bound on requests outstanding
// (queued, written, or waiting for a BUSY retry) in one keep_async.
#define KEEP_DEFAULT_MAX_PENDING 4096u
// KEEP_DEFAULT_MAX_PENDING_BYTES is the default bound on the encoded size of
// those requests.
#define KEEP_DEFAULT_MAX_PENDING_BYTES (64u * 1024u * 1024u)
// KEEP_ASYNC_MAX_SHARD_CONNS is the most connections kept to one member (one
// per server shard) and the default of keep_async_options.max_shard_conns.
#define KEEP_ASYNC_MAX_SHARD_CONNS 64u

typedef struct keep_async keep_async;

// keep_async_result is what a completion callback receives. `value` points
// into the client's receive buffer and is valid only during the callback.
typedef struct keep_async_result {
  // status is 0 or an error, mapped as for the blocking calls (keep.h,
  // "Client"), or -ECANCELED when keep_async_free() ended the request.
  int status;
  // num is the answer's number: a counter's new value (incr), a counter's
  // value (get, with `counter` set), receivers (publish), the
  // subscription's last sequence number (subscribe), ms left (set_nx and
  // lock answered KEEP_ERR_EXISTS, KEEP_ERR_NOT_YET), the shard index
  // (ping), the error code (KEEP_CODE_*, docs/keep-protocol.md) of an ERROR
  // answer. 0 when no answer arrived.
  int64_t num;
  // value and value_len are a get's value (a counter's 8 LE bytes), or the
  // ping answer's u16 LE shard count; NULL and 0 otherwise.
  const uint8_t *value;
  size_t value_len;
  // counter is 1 when a get found a counter, else 0.
  int counter;
  // deadline_ns is, for a granted lock or extend, the CLOCK_MONOTONIC_RAW
  // time until which the lease may be relied on (as keep_lock() computes
  // it: the last send plus the lease, minus the drift margin); 0 otherwise.
  uint64_t deadline_ns;
} keep_async_result;

// keep_async_cb is a completion callback; it runs exactly once per request
// that was queued (the queuing call returned 0), with the `user` pointer
// given to that call.
typedef void (*keep_async_cb)(void *user, const keep_async_result *result);

// keep_async_event_cb receives subscription traffic. With `status` 0, `ev`
// is an event or heartbeat as keep_next_event() describes, with the same
// sequence numbers and gap count (`missed`), or KEEP_EVENT_RESUBSCRIBED;
// its pointers are valid during the callback only. With a negative
// `status` (kind 0, seq the last sequence number seen) the subscription to
// `ev->topic` was interrupted: its connection failed (that failure's
// status), or a check found that its member no longer owns the topic's
// slot or cannot confirm it (the check's status: KEEP_ERR_BUSY,
// KEEP_ERR_MOVED, ...); events published from then on may be lost, and the
// library
// renews it, reporting KEEP_EVENT_RESUBSCRIBED once a member has taken it;
// or, with -ECANCELED from keep_async_free(), it has ended for good. A
// subscription is reported interrupted once until it is renewed, however
// many attempts that takes. After keep_async_unsubscribe() nothing more
// is reported for the topic.
typedef void (*keep_async_event_cb)(void *user, int status, const keep_event *ev);

// keep_async_options holds what keep_settings lacks for a non-blocking
// client. Initialise it with KEEP_ASYNC_OPTIONS_INIT; 0 limits select the
// named defaults. Read during keep_async_new() only.
typedef struct keep_async_options {
  uint32_t version; // 1
  // max_pending bounds the outstanding requests, and separately the live
  // subscriptions; a call beyond it fails with -ENOBUFS and queues nothing
  // (0: KEEP_DEFAULT_MAX_PENDING).
  uint32_t max_pending;
  // max_pending_bytes bounds the encoded size of outstanding requests
  // (0: KEEP_DEFAULT_MAX_PENDING_BYTES).
  size_t max_pending_bytes;
  // max_shard_conns is the most connections per member, one per server
  // shard; 1 keeps a single connection per member (0:
  // KEEP_ASYNC_MAX_SHARD_CONNS; larger values are cut to it).
  uint32_t max_shard_conns;
  // on_event and event_user receive subscription traffic; NULL drops it.
  keep_async_event_cb on_event;
  void *event_user;
} keep_async_options;

#define KEEP_ASYNC_OPTIONS_INIT                                                                    \
  { 1, 0, 0, 0, NULL, NULL }

// keep_async_new validates `settings` (as keep_client_new() does) and
// `options` (NULL: the defaults), resolves the members once (getaddrinfo
// may block here, nowhere else) and sets `*out` to a client that the caller
// frees with keep_async_free(). It connects nothing yet: the first request
// does. On failure `*out` is NULL. Both structs are borrowed for the call.
// With `settings->tls` it reads the key files here, as keep_client_new()
// does. Errors: KEEP_ERR_INVALID_ARGUMENT (NULL pointers, no members or
// more than KEEP_MAX_MEMBERS, a member that is not host:port, or not a
// loopback address without TLS, options->version not 1, an unusable key
// file), KEEP_ERR_TLS, -ENOMEM, -errno from reading a key file or from
// epoll_create1. Thread-safe.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_new(keep_async **out, const keep_settings *settings,
                                                    const keep_async_options *options);

// keep_async_free completes every outstanding request with -ECANCELED,
// ends every subscription with -ECANCELED (through the event callback),
// closes the connections and frees `a`. Requests queued by those callbacks
// fail with -ECANCELED at once. Does nothing when `a` is NULL.
KEEP_API void keep_async_free(keep_async *a);

// keep_async_fd returns the descriptor the caller's loop waits on for
// readability (an epoll instance, owned by `a`, stable for its lifetime;
// -1 for NULL).
KEEP_API int keep_async_fd(const keep_async *a);

// keep_async_process writes queued requests, reads answers and events
// (at most 256 KiB per connection per call, so one connection cannot
// starve the loop), runs the callbacks and the due timers. It never
// blocks. Returns 0, KEEP_ERR_INVALID_ARGUMENT, -EINPROGRESS (called from
// a callback) or -errno from epoll_wait; connection failures are reported
// through the callbacks, not here. An answer whose id no pending request on
// its connection has (one that came after its request timed out, say) is
// skipped; anything on the connection that is not keep/1, or that answers
// a request this client never sends, fails the connection and every
// request on it with KEEP_ERR_PROTOCOL.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_process(keep_async *a);

// keep_async_next_timeout_ms returns how many ms the caller's loop may wait
// before calling keep_async_process() even without readiness: 0 when a
// timer is due, -1 when none is armed (wait for the descriptor only).
KEEP_API int keep_async_next_timeout_ms(const keep_async *a);

// keep_async_pending returns the number of requests outstanding (the
// library's own PING probes are not counted, here or against max_pending).
KEEP_API size_t keep_async_pending(const keep_async *a);

// keep_async_connections returns how many connections are established.
KEEP_API size_t keep_async_connections(const keep_async *a);

// keep_async_ping, _get, _set, _set_nx, _del, _incr, _expire, _lock,
// _unlock, _extend, _publish, _subscribe and _unsubscribe queue the request
// of the blocking call of the same name, with the same arguments and
// limits, and return 0 once it is queued: `cb` (may be NULL) then runs
// exactly once with `user` and the outcome, which has the status the
// blocking call would return and what it would set in its out-parameters
// (see keep_async_result). Arguments are copied. Subscription events go to
// keep_async_options.on_event. An unsubscribe goes to the connection the
// subscription lives on (routed like a subscribe while it is being
// renewed), and once it is queued nothing more of that topic reaches
// on_event. Errors at queuing (nothing is queued and
// `cb` never runs): KEEP_ERR_INVALID_ARGUMENT (NULL `a`, a key, topic or
// holder length out of range, a NULL value with a length, lease 0),
// KEEP_ERR_TOO_LARGE (a value over KEEP_MAX_VALUE_LEN), -ENOBUFS
// (max_pending or max_pending_bytes reached, or for subscribe max_pending
// live subscriptions), -ENOMEM, -ECANCELED (inside keep_async_free), and a
// connection error when no member accepts a connection attempt at all
// (-errno from socket or connect).
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_ping(keep_async *a, keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_get(keep_async *a, const void *key, size_t key_len,
                                                    keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_set(keep_async *a, const void *key, size_t key_len,
                                                    const void *value, size_t value_len,
                                                    uint64_t ttl_ms, keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_set_nx(keep_async *a, const void *key,
                                                       size_t key_len, const void *value,
                                                       size_t value_len, uint64_t ttl_ms,
                                                       keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_del(keep_async *a, const void *key, size_t key_len,
                                                    keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_incr(keep_async *a, const void *key, size_t key_len,
                                                     int64_t delta, uint64_t ttl_ms,
                                                     keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_expire(keep_async *a, const void *key,
                                                       size_t key_len, uint64_t ttl_ms,
                                                       keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_lock(keep_async *a, const void *key, size_t key_len,
                                                     const void *holder, size_t holder_len,
                                                     uint64_t lease_ms, keep_async_cb cb,
                                                     void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_unlock(keep_async *a, const void *key,
                                                       size_t key_len, const void *holder,
                                                       size_t holder_len, keep_async_cb cb,
                                                       void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_extend(keep_async *a, const void *key,
                                                       size_t key_len, const void *holder,
                                                       size_t holder_len, uint64_t lease_ms,
                                                       keep_async_cb cb, void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_publish(keep_async *a, const void *topic,
                                                        size_t topic_len, const void *payload,
                                                        size_t payload_len, keep_async_cb cb,
                                                        void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_subscribe(keep_async *a, const void *topic,
                                                          size_t topic_len, keep_async_cb cb,
                                                          void *user);
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_async_unsubscribe(keep_async *a, const void *topic,
                                                            size_t topic_len, keep_async_cb cb,
                                                            void *user);

// RESP back end.
//
// Sites that run Redis or Valkey (version 7 or later) instead of keepd can
// use the blocking client unchanged: a member written "redis://HOST:PORT"
// or "valkey://HOST:PORT" as the only entry of keep_settings.members makes
// keep_client_new() speak RESP2 to that server. The calls behave as
// documented above, with these differences:
//   - keep_get, keep_set, keep_set_nx, keep_del, keep_expire and
//     keep_publish map to GET, SET [NX] [PX], DEL, PEXPIRE (MULTI/EXEC of
//     EXISTS and PERSIST for a TTL of 0) and PUBLISH. KEEP_ERR_EXISTS from
//     keep_set_nx carries no time left.
//   - keep_incr runs INCRBY; with a TTL, inside MULTI/EXEC after SET key 0
//     NX PX ttl, so that an absent counter is created with its lifetime in
//     the same atomic step and an existing one keeps its own (MULTI rather
//     than a Lua script: no scripting needed, the same atomicity). A
//     counter is stored as decimal text, and keep_get reads it as that
//     text, not as 8 bytes.
//   - keep_lock, keep_unlock and keep_extend are Lua scripts (EVAL) that
//     read the key and compare the holder before setting, deleting or
//     extending it, so one holder never releases or extends another's lock;
//     a lock's value is the holder behind a private prefix. These locks are
//     exactly as strong as one Redis server: there is no quarantine
//     (KEEP_ERR_NOT_YET never occurs), so a restart without persistence or
//     a failover to a replica that missed the write can grant a lock twice.
//     keep_get on a lock returns its stored value.
//   - keep_subscribe and keep_unsubscribe use a second connection, in
//     subscribed mode. Sequence numbers are counted by the client (Redis
//     sends none): messages that arrive while the client waits for another
//     subscription's confirmation are dropped and show as `missed`; losses
//     inside the server cannot be seen. There are no heartbeats.
//   - Not offered: cluster mode (member_ids), TLS, batches (keep_batch_run
//     returns KEEP_ERR_INVALID_ARGUMENT) and the non-blocking client.
// Plaintext, so loopback only, as for keep/1 without TLS. A reply of a type
// the command never gets (an integer to SET, a status to DEL, an EXEC that
// is no array of the queued commands' replies) is a malformed answer:
// KEEP_ERR_PROTOCOL, and the connection is closed. Error replies map
// to KEEP_ERR_WRONG_TYPE (WRONGTYPE, not an integer), KEEP_ERR_OVERFLOW,
// KEEP_ERR_OUT_OF_MEMORY (OOM), KEEP_ERR_BUSY (LOADING, BUSY, TRYAGAIN) and
// otherwise KEEP_ERR_SERVER. Transport failures and timeouts are as above.

#ifdef __cplusplus
}
#endif

#endif // KEEP_KEEP_H
