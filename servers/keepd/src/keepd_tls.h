// keepd_tls.h: keepd's side of mutual TLS 1.3 (tls.c): the process-wide
// server and member contexts made from the cluster key at start-up, the
// allowed-clients list and its reload, the handshake counters, `keepd
// keygen`, and the blocking calls a member uses to talk to another member.
// The per-connection work lives in the shard loop (shard.c) on top of
// libkeep's keep_tls.h.
#ifndef KEEPD_TLS_H
#define KEEPD_TLS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "keep_tls.h"

// KEEPD_DEFAULT_HANDSHAKE_MS bounds a handshake from accept to completion.
#define KEEPD_DEFAULT_HANDSHAKE_MS 2000u
// KEEPD_MAX_HANDSHAKES bounds the handshakes in progress per shard: a peer
// that sent its ClientHello and stalled costs about 7 KiB (measured), so a
// flood of them costs about 1.7 MiB per shard until the handshake timeout;
// connections beyond it are closed at once.
#define KEEPD_MAX_HANDSHAKES 256u

// keepd_tls_counters are process-wide, updated with relaxed atomics (a
// handshake is rare next to a request) and printed at shutdown.
struct keepd_tls_counters {
  _Atomic uint64_t ok;         // handshakes completed
  _Atomic uint64_t refused;    // no certificate, or a key not pinned
  _Atomic uint64_t failed;     // anything else: not TLS, TLS 1.2, a reset
  _Atomic uint64_t timed_out;  // not done within the handshake timeout
  _Atomic uint64_t over_limit; // closed at accept: too many handshakes
  _Atomic uint64_t revoked;    // established, closed after a reload dropped the key
};

extern struct keepd_tls_counters keepd_tls_stats;

// keepd_tls_init loads the cluster key from `key_file` (PEM PKCS#8 Ed25519)
// and, if not NULL, the allowed client keys from `clients_file` (PEM public
// keys), and makes the server context (which accepts the cluster key and the
// allowed keys) and the member context (which presents the cluster key and
// accepts only it). `handshake_ms` 0 means KEEPD_DEFAULT_HANDSHAKE_MS. On
// failure writes a message into `err`. Call once, before the shards start.
int keepd_tls_init(const char *key_file, const char *clients_file, uint32_t handshake_ms, char *err,
                   size_t err_cap);

// keepd_tls_reload reads the allowed-clients file again and makes it the
// pinned set of new handshakes (on SIGHUP); the shards then close the
// established connections of keys no longer on it (keepd_tls_generation).
// Keeps the old set and writes a message into `err` when the file is bad.
int keepd_tls_reload(char *err, size_t err_cap);

// keepd_tls_generation changes with every successful reload; a shard that
// sees a new value checks its connections with keepd_tls_still_allowed.
unsigned keepd_tls_generation(void);

// keepd_tls_still_allowed is true when the peer of the established
// connection `c` presented a key the server still accepts.
bool keepd_tls_still_allowed(const keep_tls_conn *c);

// keepd_tls_enabled is true after a successful keepd_tls_init.
bool keepd_tls_enabled(void);

// keepd_tls_handshake_ns is the handshake timeout in nanoseconds.
uint64_t keepd_tls_handshake_ns(void);

// keepd_tls_accept wraps an accepted socket in a server-side connection.
int keepd_tls_accept(keep_tls_conn **out, int fd);

// keepd_tls_count records the end of a handshake with status `rc` (1 done,
// negative failed) for connection `c`.
void keepd_tls_count(const keep_tls_conn *c, int rc);

// keepd_tls_free frees the contexts at exit.
void keepd_tls_free(void);

// keepd_tls_keygen makes a new Ed25519 key, writes it to `path` (mode 0600,
// refusing to overwrite) and its public half to `path`.pub, and prints the
// public key. Returns 0 or -errno / KEEP_ERR_*.
int keepd_tls_keygen(const char *path);

// Member to member (the key handoff): blocking calls on a blocking socket
// whose SO_RCVTIMEO/SO_SNDTIMEO bound each step. keepd_tls_member_connect
// runs the handshake and sets `*out` (NULL in plaintext mode);
// keepd_tls_send and keepd_tls_recv behave like send and recv on either.
int keepd_tls_member_connect(keep_tls_conn **out, int fd);
ssize_t keepd_tls_send(keep_tls_conn *t, int fd, const void *p, size_t n);
ssize_t keepd_tls_recv(keep_tls_conn *t, int fd, void *p, size_t n);

#endif // KEEPD_TLS_H
