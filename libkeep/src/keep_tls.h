// keep_tls.h: libkeep's private mutual TLS 1.3 layer, shared by the blocking
// client (client.c), the non-blocking client (async.c) and keepd (which links
// the internal static library). Not installed.
//
// Trust model (docs/keep-protocol.md, "Transport security"): every endpoint
// holds an Ed25519 key pair and presents a self-signed certificate made from
// it in memory; the peer accepts the certificate only when its
// SubjectPublicKeyInfo equals one of the keys pinned for that peer. Chains,
// names and validity dates are ignored by design: there is no CA to issue
// or renew anything, and the TLS handshake's CertificateVerify already proves
// that the peer holds the private half of the pinned key.
//
// Threading: a keep_tls_ctx may be shared by any number of threads once made
// (keep_tls_ctx_set_pins() swaps the pinned set atomically); a keep_tls_conn
// belongs to one thread at a time.
#ifndef KEEP_TLS_H
#define KEEP_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/base.h>

// KEEP_TLS_MAX_FILE is the largest key file read (a key is under 200 bytes;
// an allowed-clients list of 1000 keys is about 120 KiB).
#define KEEP_TLS_MAX_FILE (1024u * 1024u)
// KEEP_TLS_MAX_PINS bounds the public keys of an allowed-clients list.
#define KEEP_TLS_MAX_PINS 8192u
// KEEP_TLS_SPKI_LEN is the DER length of an Ed25519 SubjectPublicKeyInfo.
#define KEEP_TLS_SPKI_LEN 44u
// KEEP_TLS_MAX_CERT_LIST bounds the peer's Certificate message: one
// self-signed Ed25519 certificate is about 300 bytes.
#define KEEP_TLS_MAX_CERT_LIST 4096u

// keep_tls_pins is an immutable set of pinned public keys (DER SPKI).
typedef struct keep_tls_pins {
  size_t num;
  uint8_t (*spki)[KEEP_TLS_SPKI_LEN];
} keep_tls_pins;

typedef struct keep_tls_ctx keep_tls_ctx;
typedef struct keep_tls_conn keep_tls_conn;

// keep_tls_key_parse reads an Ed25519 private key from `in`, a PEM "PRIVATE
// KEY" block (PKCS#8, what `keepd keygen` and `openssl genpkey -algorithm
// ed25519` write) and sets `*out` to a new EVP_PKEY the caller frees.
// Text around the block is ignored. Errors: KEEP_ERR_INVALID_ARGUMENT (no
// block, bad base64, not PKCS#8, not Ed25519, trailing bytes), -ENOMEM.
int keep_tls_key_parse(EVP_PKEY **out, const uint8_t *in, size_t in_len);

// keep_tls_pins_parse reads every PEM "PUBLIC KEY" block (DER
// SubjectPublicKeyInfo, Ed25519 only) of `in` into a new set the caller frees
// with keep_tls_pins_free(). Lines outside blocks are comments. With
// `allow_empty` false a file without any key is an error. Errors:
// KEEP_ERR_INVALID_ARGUMENT (a malformed or non-Ed25519 block, more than
// KEEP_TLS_MAX_PINS keys), -ENOMEM.
int keep_tls_pins_parse(keep_tls_pins **out, const uint8_t *in, size_t in_len, bool allow_empty);
void keep_tls_pins_free(keep_tls_pins *p);

// keep_tls_pins_of_key makes a set holding only `key`'s public half (a
// member pins the cluster key it holds). Errors: KEEP_ERR_INVALID_ARGUMENT
// (not Ed25519), -ENOMEM.
int keep_tls_pins_of_key(keep_tls_pins **out, const EVP_PKEY *key);

// keep_tls_pins_add appends `key`'s public half to `p`. Errors as above.
int keep_tls_pins_add(keep_tls_pins *p, const EVP_PKEY *key);

// keep_tls_key_free frees a key from keep_tls_key_parse; NULL is a no-op.
void keep_tls_key_free(EVP_PKEY *key);

// keep_tls_wipe_free overwrites `len` bytes of `p` and frees it.
void keep_tls_wipe_free(void *p, size_t len);

// keep_tls_read_file reads at most KEEP_TLS_MAX_FILE bytes of `path` into a
// new buffer (freed with free()); -errno, or -EFBIG when it is larger.
int keep_tls_read_file(uint8_t **out, size_t *out_len, const char *path);

// keep_tls_pem_public writes the PEM "PUBLIC KEY" block of `key`'s public
// half, NUL-terminated, into `out` (`out_cap` bytes; 128 suffice). -ENOBUFS
// when it does not fit.
int keep_tls_pem_public(char *out, size_t out_cap, const EVP_PKEY *key);

// keep_tls_pem_private writes the PEM "PRIVATE KEY" (PKCS#8) block of `key`,
// NUL-terminated; 160 bytes suffice. -ENOBUFS when it does not fit.
int keep_tls_pem_private(char *out, size_t out_cap, const EVP_PKEY *key);

// keep_tls_ctx_new makes a TLS 1.3-only context that presents a self-signed
// certificate made from `key` (borrowed; the context keeps its own
// reference), demands the peer's certificate, and accepts the peer only if
// its key is in `pins` (ownership passes to the context, also on failure).
// `server` picks the side. Errors: KEEP_ERR_INVALID_ARGUMENT (NULL key or
// pins, a key that is not Ed25519), -ENOMEM, KEEP_ERR_TLS (BoringSSL
// refused the configuration).
int keep_tls_ctx_new(keep_tls_ctx **out, EVP_PKEY *key, keep_tls_pins *pins, bool server);

// keep_tls_ctx_set_pins replaces the pinned set (taking ownership of `pins`)
// for handshakes that verify from now on; connections already established
// are not affected. The previous sets stay allocated until
// keep_tls_ctx_free(), since another thread may be reading one. Thread-safe.
void keep_tls_ctx_set_pins(keep_tls_ctx *ctx, keep_tls_pins *pins);

// keep_tls_ctx_free frees `ctx`; does nothing on NULL. Every connection made
// from it must be freed first.
void keep_tls_ctx_free(keep_tls_ctx *ctx);

// keep_tls_wrap_fd starts a connection on the connected socket `fd` (which
// stays the caller's: keep_tls_conn_free does not close it). The socket may
// be blocking or not; with a non-blocking one every call below returns 0 when
// it would block and sets `*want` to POLLIN or POLLOUT. Errors: -ENOMEM.
int keep_tls_wrap_fd(keep_tls_conn **out, keep_tls_ctx *ctx, int fd);

// keep_tls_handshake advances the handshake: 1 when it is complete, 0 when it
// would block (`*want` set), KEEP_ERR_TLS when the peer failed (wrong
// protocol version, not TLS, no certificate or a key not pinned; a refused
// key is told apart by keep_tls_conn_key_refused()), KEEP_ERR_CLOSED when the
// peer closed, -errno on a socket error.
int keep_tls_handshake(keep_tls_conn *c, short *want);

// keep_tls_read reads up to `out_cap` decrypted bytes into `out`: the count
// (> 0), 0 when it would block (`*want` set), KEEP_ERR_CLOSED at the end of
// the stream, KEEP_ERR_TLS or -errno on failure. It completes the handshake
// first if needed. Bytes may be left inside the connection after a full
// read: call again until it returns 0 before waiting on the socket.
int keep_tls_read(keep_tls_conn *c, short *want, uint8_t *out, size_t out_cap);

// keep_tls_write writes up to `in_len` bytes (partial writes allowed): the
// count (> 0), 0 when it would block (`*want` set), KEEP_ERR_TLS or -errno.
// After a 0 the next call may pass a moved buffer but must pass at least the
// bytes not yet written.
int keep_tls_write(keep_tls_conn *c, short *want, const uint8_t *in, size_t in_len);

// keep_tls_conn_key_refused is true when the handshake failed because the
// peer sent no certificate or one whose key is not pinned.
bool keep_tls_conn_key_refused(const keep_tls_conn *c);

// keep_tls_conn_pinned is true when the key the peer of `c` presented at
// its handshake is in the pinned set of `ctx` as it is now (false before
// the handshake): after keep_tls_ctx_set_pins() a server finds the
// connections of keys it no longer accepts. Thread-safe for `ctx`.
bool keep_tls_conn_pinned(keep_tls_ctx *ctx, const keep_tls_conn *c);

// keep_tls_pending is true when bytes wait inside `c`, decrypted (the rest
// of a record a short read left) or not (records read ahead): poll() cannot
// see them, so a reader must call keep_tls_read again before waiting.
bool keep_tls_pending(const keep_tls_conn *c);

// keep_tls_conn_done is true once the handshake has completed.
bool keep_tls_conn_done(const keep_tls_conn *c);

// keep_tls_conn_free frees `c` without closing its socket; NULL is a no-op.
void keep_tls_conn_free(keep_tls_conn *c);

#endif // KEEP_TLS_H
