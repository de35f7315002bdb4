// tls.c: keepd's TLS set-up. At start-up it reads the cluster key and the
// allowed-clients list and makes two contexts with libkeep's keep_tls layer:
// the server one, which presents the cluster key and accepts a peer holding
// the cluster key (another member) or an allowed client key, and the member
// one, which a member uses to reach another member and which accepts only
// the cluster key. It keeps the handshake counters, swaps in a re-read
// allowed-clients list on SIGHUP, writes new keys for `keepd keygen`, and
// offers send/recv-like blocking calls for the member-to-member handoff.
#include "keepd_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/curve25519.h>
#include <openssl/evp.h>
#include <openssl/mem.h>
#include <openssl/rand.h>

#include "keep.h"

struct keepd_tls_counters keepd_tls_stats;

static keep_tls_ctx *server_ctx, *member_ctx;
static EVP_PKEY *cluster_key;
static const char *clients_path;
static uint64_t handshake_ns;
static _Atomic unsigned generation;

// server_pins builds the server's pinned set: the cluster key, then the
// allowed-clients file when there is one.
static int server_pins(keep_tls_pins **out, char *err, size_t err_cap) {
  keep_tls_pins *p = NULL;
  if (clients_path != NULL) {
    uint8_t *buf;
    size_t len;
    int rc = keep_tls_read_file(&buf, &len, clients_path);
    if (rc < 0) {
      snprintf(err, err_cap, "cannot read %s: %s", clients_path, keep_strerror(rc));
      return rc;
    }
    rc = keep_tls_pins_parse(&p, buf, len, true);
    free(buf);
    if (rc < 0) {
      snprintf(err, err_cap, "%s: not a list of PEM Ed25519 public keys", clients_path);
      return rc;
    }
  } else if (keep_tls_pins_parse(&p, NULL, 0, true) < 0) {
    return -ENOMEM;
  }
  int rc = keep_tls_pins_add(p, cluster_key);
  if (rc < 0) {
    keep_tls_pins_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

int keepd_tls_init(const char *key_file, const char *clients_file, uint32_t handshake_ms, char *err,
                   size_t err_cap) {
  uint8_t *buf;
  size_t len;
  int rc = keep_tls_read_file(&buf, &len, key_file);
  if (rc < 0) {
    snprintf(err, err_cap, "cannot read %s: %s", key_file, keep_strerror(rc));
    return rc;
  }
  rc = keep_tls_key_parse(&cluster_key, buf, len);
  keep_tls_wipe_free(buf, len);
  if (rc < 0) {
    snprintf(err, err_cap, "%s: not a PEM Ed25519 private key (PKCS#8)", key_file);
    return rc;
  }
  clients_path = clients_file;
  handshake_ns = (uint64_t)(handshake_ms ? handshake_ms : KEEPD_DEFAULT_HANDSHAKE_MS) * 1000000u;
  keep_tls_pins *sp, *mp;
  if ((rc = server_pins(&sp, err, err_cap)) < 0)
    return rc;
  if ((rc = keep_tls_ctx_new(&server_ctx, cluster_key, sp, true)) < 0 ||
      (rc = keep_tls_pins_of_key(&mp, cluster_key)) < 0 ||
      (rc = keep_tls_ctx_new(&member_ctx, cluster_key, mp, false)) < 0) {
    snprintf(err, err_cap, "cannot set up TLS: %s", keep_strerror(rc));
    return rc;
  }
  return 0;
}

int keepd_tls_reload(char *err, size_t err_cap) {
  if (server_ctx == NULL)
    return 0;
  keep_tls_pins *p;
  int rc = server_pins(&p, err, err_cap);
  if (rc < 0)
    return rc;
  keep_tls_ctx_set_pins(server_ctx, p);
  atomic_fetch_add_explicit(&generation, 1, memory_order_release);
  return 0;
}

unsigned keepd_tls_generation(void) {
  return atomic_load_explicit(&generation, memory_order_acquire);
}

bool keepd_tls_still_allowed(const keep_tls_conn *c) {
  return keep_tls_conn_pinned(server_ctx, c);
}

bool keepd_tls_enabled(void) {
  return server_ctx != NULL;
}

uint64_t keepd_tls_handshake_ns(void) {
  return handshake_ns;
}

int keepd_tls_accept(keep_tls_conn **out, int fd) {
  return keep_tls_wrap_fd(out, server_ctx, fd);
}

void keepd_tls_count(const keep_tls_conn *c, int rc) {
  _Atomic uint64_t *n = rc == 1                                     ? &keepd_tls_stats.ok
                        : c != NULL && keep_tls_conn_key_refused(c) ? &keepd_tls_stats.refused
                                                                    : &keepd_tls_stats.failed;
  atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
}

void keepd_tls_free(void) {
  keep_tls_ctx_free(server_ctx);
  keep_tls_ctx_free(member_ctx);
  keep_tls_key_free(cluster_key);
  server_ctx = member_ctx = NULL;
  cluster_key = NULL;
}

static int write_new_file(const char *path, const char *text, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    return -errno;
  size_t len = strlen(text), off = 0;
  while (off < len) {
    ssize_t n = write(fd, text + off, len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int e = n < 0 ? -errno : -EIO;
      close(fd);
      return e;
    }
    off += (size_t)n;
  }
  return close(fd) < 0 ? -errno : 0;
}

int keepd_tls_keygen(const char *path) {
  uint8_t seed[ED25519_PRIVATE_KEY_LEN / 2];
  RAND_bytes(seed, sizeof seed);
  EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof seed);
  OPENSSL_cleanse(seed, sizeof seed);
  if (k == NULL)
    return -ENOMEM;
  char priv[256], pub[256], pub_path[4096];
  int rc = keep_tls_pem_private(priv, sizeof priv, k);
  if (rc == 0)
    rc = keep_tls_pem_public(pub, sizeof pub, k);
  EVP_PKEY_free(k);
  if (rc == 0 && snprintf(pub_path, sizeof pub_path, "%s.pub", path) >= (int)sizeof pub_path)
    rc = -ENAMETOOLONG;
  if (rc == 0)
    rc = write_new_file(path, priv, 0600);
  OPENSSL_cleanse(priv, sizeof priv);
  if (rc == 0)
    rc = write_new_file(pub_path, pub, 0644);
  if (rc == 0)
    fputs(pub, stdout);
  return rc;
}

int keepd_tls_member_connect(keep_tls_conn **out, int fd) {
  *out = NULL;
  if (member_ctx == NULL)
    return 0;
  keep_tls_conn *t;
  int rc = keep_tls_wrap_fd(&t, member_ctx, fd);
  if (rc < 0)
    return rc;
  short want;
  // On a blocking socket the handshake returns only when done or failed
  // (the socket's timeouts surface as a failure).
  rc = keep_tls_handshake(t, &want);
  if (rc != 1) {
    keep_tls_conn_free(t);
    return rc < 0 ? rc : KEEP_ERR_TIMEOUT;
  }
  *out = t;
  return 0;
}

ssize_t keepd_tls_send(keep_tls_conn *t, int fd, const void *p, size_t n) {
  if (t == NULL)
    return send(fd, p, n, MSG_NOSIGNAL);
  short want;
  int r = keep_tls_write(t, &want, p, n);
  return r > 0 ? r : -1;
}

ssize_t keepd_tls_recv(keep_tls_conn *t, int fd, void *p, size_t n) {
  if (t == NULL)
    return recv(fd, p, n, 0);
  short want;
  int r = keep_tls_read(t, &want, p, n);
  return r > 0 ? r : r == KEEP_ERR_CLOSED ? 0 : -1;
}
