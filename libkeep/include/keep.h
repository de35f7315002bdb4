// keep.h: libkeep, client of keepd, the in-memory cluster coordinator.
//
// libkeep is the client of keepd: key-value with TTL, counters, leases and
// locks, publish/subscribe and cluster placement, over a binary protocol whose
// codec it shares with servers/keepd. This version speaks plaintext to a
// keepd on loopback; mutual TLS 1.3 through BoringSSL's libssl comes next.
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
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
KEEP_API const char *keep_strerror(int code);

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
// another holder), and the common ones.
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
// one subscription. Errors: the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_subscribe(keep_client *c, const void *topic,
                                                    size_t topic_len);

// keep_unsubscribe ends the subscription to `topic`; events already in
// flight may still be delivered. Errors: KEEP_ERR_NOT_FOUND if there was
// none, and the common ones.
KEEP_API KEEP_WARN_UNUSED_RESULT int keep_unsubscribe(keep_client *c, const void *topic,
                                                      size_t topic_len);

// keep_event_kind tells an event from a heartbeat.
enum keep_event_kind {
  KEEP_EVENT_MESSAGE = 1,
  KEEP_EVENT_HEARTBEAT = 2,
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
  // skipped (an event) or announced by a heartbeat but never received.
  uint64_t missed;
} keep_event;

// keep_next_event waits up to `timeout_ms` for the next event or heartbeat on
// any subscription and fills `*out`. Returns 1 when it filled `*out`, 0 when
// the time passed with nothing, or an error: KEEP_ERR_CLOSED (the
// subscriptions ended with the connection), KEEP_ERR_PROTOCOL, -errno.
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

#ifdef __cplusplus
}
#endif

#endif // KEEP_KEEP_H
