// keep_common.h: the rules libkeep's clients share, private to libkeep. The
// blocking client (client.c), the non-blocking one (async.c) and the RESP
// adapter (resp.c) each hold their own connections and buffers, but must agree
// on how an answer becomes a status, how a MOVED answer names its member, how
// a member address is split, how TLS keys are loaded and which peers may be
// reached without TLS; each of those rules lives here once.
#ifndef KEEP_COMMON_H
#define KEEP_COMMON_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "keep_internal.h"
#include "keep_tls.h"

// keep_now_ns returns CLOCK_MONOTONIC_RAW in nanoseconds: the clock every
// client timeout and retry timer is measured on. Thread-safe.
static inline uint64_t keep_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// keep_is_loopback_addr tells whether `sa` is an IPv4 127/8 or the IPv6
// loopback address: the only peers a client reaches in plaintext. Reads
// `sa` only; thread-safe.
static inline bool keep_is_loopback_addr(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET)
    return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
  return sa->sa_family == AF_INET6 &&
         IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

// keep_answer_status maps an answer frame to the status the client calls
// return (keep.h, "Client"): 0 for OK, KEEP_ERR_NOT_FOUND, KEEP_ERR_EXISTS,
// KEEP_ERR_BUSY, KEEP_ERR_MOVED, KEEP_ERR_NOT_YET for those answers, an ERROR
// answer's code as KEEP_ERR_OUT_OF_MEMORY, KEEP_ERR_WRONG_TYPE,
// KEEP_ERR_TOO_LARGE, KEEP_ERR_OVERFLOW, KEEP_ERR_INVALID_ARGUMENT or (any
// other code) KEEP_ERR_SERVER, and KEEP_ERR_PROTOCOL for an opcode that is no
// answer. Pure; thread-safe.
int keep_answer_status(const keep_frame *f);

// keep_moved_member finds the member a MOVED answer `f` names
// (docs/keep-protocol.md: `num` is the slot, the text the owner's member id
// in decimal, at most 5 digits) among the `num_ids` ids of `ids`; on success
// it stores the member's index in *out_index and the slot in *out_slot.
// Returns false, storing nothing, for a slot out of range, a malformed id or
// an id not in the list. Pure; thread-safe.
bool keep_moved_member(size_t *out_index, uint32_t *out_slot, const keep_frame *f,
                       const uint16_t *ids, size_t num_ids);

// KEEP_PORT_MAX_LEN is the longest port the blocking client accepts in a
// member address (a number or a service name); KEEP_PORT_NUM_MAX_LEN the
// longest the async client and the RESP adapter accept, which take five
// characters, a decimal port.
#define KEEP_PORT_MAX_LEN 15
#define KEEP_PORT_NUM_MAX_LEN 5

// keep_member_split parses a member address "host:port" or "[v6]:port": it
// copies the host, without brackets and NUL-terminated, into `host` (at most
// host_cap - 1 bytes) and points *out_port at the port inside `member`.
// Returns 0, or KEEP_ERR_INVALID_ARGUMENT for a NULL `member`, no colon, an
// empty host or port, a host that does not fit, or a port longer than
// port_max_len bytes. Writes nothing to *out_port on error.
// Thread-safe.
int keep_member_split(char *host, size_t host_cap, const char **out_port, const char *member,
                      size_t port_max_len);

// keep_connect_start opens a non-blocking, close-on-exec TCP socket with
// Nagle off (requests are small and latency-bound) and starts connecting it
// to `addr`; the caller waits for writability and checks SO_ERROR. Stores
// the socket, owned by the caller, in *out_fd and returns 0, or returns the
// negated errno of socket() or connect() with nothing stored. Thread-safe.
int keep_connect_start(int *out_fd, const struct sockaddr *addr, socklen_t addr_len);

// keep_buf_grow makes the heap buffer *buf of capacity *cap hold at least
// `need` bytes, doubling from 4 KiB so that a stream of appends costs
// amortized constant time; the contents are kept. Returns 0 (also when it
// was large enough), or -ENOMEM leaving *buf and *cap as they were. Not
// thread-safe for one buffer.
int keep_buf_grow(uint8_t **buf, size_t *cap, size_t need);

// keep_tls_client_ctx_load reads the client's private key file and the
// server's public key file of `t` (or, without one, pins the client's own key,
// for a cluster that shares one key) into a new client TLS context, owned by
// the caller (keep_tls_ctx_free). The private key's file bytes are wiped
// before they are freed. Returns 0, KEEP_ERR_INVALID_ARGUMENT without a key
// file, or the errors of keep_tls_read_file, keep_tls_key_parse,
// keep_tls_pins_parse, keep_tls_pins_of_key and keep_tls_ctx_new, leaving
// *out as keep_tls_ctx_new does. Thread-safe.
int keep_tls_client_ctx_load(keep_tls_ctx **out, const keep_tls_settings *t);

#endif
