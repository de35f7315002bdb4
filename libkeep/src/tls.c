// tls.c: mutual TLS 1.3 for keep/1 over BoringSSL, one layer for libkeep's
// clients and for keepd. It reads Ed25519 keys from PEM files, makes the
// in-memory self-signed certificate each endpoint presents, pins the peer's
// SubjectPublicKeyInfo (no chain, no names, no dates: there is no CA, see
// keep_tls.h) and wraps a socket with read and write calls that report
// "would block" the way the rest of libkeep does, so that the blocking
// client, the non-blocking client and keepd's event loops can share it.
#include "keep_tls.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/base64.h>
#include <openssl/bio.h>
#include <openssl/bytestring.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/mem.h>
#include <openssl/pool.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "keep.h"

struct retired {
  struct retired *next;
  keep_tls_pins *pins;
};

struct keep_tls_ctx {
  SSL_CTX *ssl_ctx;
  bool server;
  _Atomic(keep_tls_pins *) pins;
  pthread_mutex_t lock; // guards `retired`
  struct retired *retired;
};

struct keep_tls_conn {
  SSL *ssl;
  bool key_refused;
  bool done;
  bool has_peer;                        // peer_spki holds the accepted key
  uint8_t peer_spki[KEEP_TLS_SPKI_LEN]; // kept to recheck after a reload
};

// PEM armour.

// pem_next finds the next "-----BEGIN `label`-----" block of `*c`, decodes
// its base64 body into a new buffer and advances `*c` past the END line.
// Returns 1 with the block, 0 when there is none, KEEP_ERR_INVALID_ARGUMENT
// for a broken block.
static int pem_next(CBS *c, const char *label, uint8_t **out, size_t *out_len) {
  char begin[64], end[64];
  int bl = snprintf(begin, sizeof begin, "-----BEGIN %s-----", label);
  int el = snprintf(end, sizeof end, "-----END %s-----", label);
  const uint8_t *p = CBS_data(c);
  size_t n = CBS_len(c);
  const uint8_t *b = n >= (size_t)bl ? memmem(p, n, begin, (size_t)bl) : NULL;
  if (b == NULL) {
    CBS_skip(c, n);
    return 0;
  }
  const uint8_t *body = b + bl;
  size_t rest = n - (size_t)(body - p);
  const uint8_t *e = memmem(body, rest, end, (size_t)el);
  if (e == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  size_t body_len = (size_t)(e - body);
  // Base64 without the line breaks (and any other white space).
  char *clean = malloc(body_len + 1);
  if (clean == NULL)
    return -ENOMEM;
  size_t k = 0;
  for (size_t i = 0; i < body_len; i++) {
    uint8_t ch = body[i];
    if (ch == '\n' || ch == '\r' || ch == ' ' || ch == '\t')
      continue;
    clean[k++] = (char)ch;
  }
  size_t max;
  uint8_t *dec = NULL;
  int rc = KEEP_ERR_INVALID_ARGUMENT;
  if (k > 0 && EVP_DecodedLength(&max, k) && (dec = malloc(max ? max : 1)) != NULL &&
      EVP_DecodeBase64(dec, out_len, max, (const uint8_t *)clean, k)) {
    *out = dec;
    dec = NULL;
    rc = 1;
  } else if (k > 0 && dec == NULL && EVP_DecodedLength(&max, k)) {
    rc = -ENOMEM;
  }
  // The armour may hold a private key: wipe both copies.
  if (dec != NULL)
    OPENSSL_cleanse(dec, max);
  free(dec);
  OPENSSL_cleanse(clean, body_len + 1);
  free(clean);
  if (rc == 1)
    CBS_skip(c, (size_t)(e - p) + (size_t)el);
  return rc;
}

int keep_tls_key_parse(EVP_PKEY **out, const uint8_t *in, size_t in_len) {
  if (out == NULL || (in == NULL && in_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  *out = NULL;
  CBS c;
  CBS_init(&c, in, in_len);
  uint8_t *der = NULL;
  size_t der_len = 0;
  int rc = pem_next(&c, "PRIVATE KEY", &der, &der_len);
  if (rc <= 0)
    return rc == 0 ? KEEP_ERR_INVALID_ARGUMENT : rc;
  CBS d;
  CBS_init(&d, der, der_len);
  EVP_PKEY *k = EVP_parse_private_key(&d);
  rc = 0;
  if (k == NULL || CBS_len(&d) != 0 || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(k);
    rc = KEEP_ERR_INVALID_ARGUMENT;
  } else {
    *out = k;
  }
  OPENSSL_cleanse(der, der_len); // the private key's bytes
  free(der);
  ERR_clear_error();
  return rc;
}

// spki_of writes `key`'s DER SubjectPublicKeyInfo; false unless Ed25519.
static bool spki_of(uint8_t out[KEEP_TLS_SPKI_LEN], const EVP_PKEY *key) {
  if (EVP_PKEY_id(key) != EVP_PKEY_ED25519)
    return false;
  CBB b;
  CBB_zero(&b);
  uint8_t *der = NULL;
  size_t len = 0;
  bool ok = CBB_init(&b, 64) && EVP_marshal_public_key(&b, key) && CBB_finish(&b, &der, &len);
  if (!ok)
    CBB_cleanup(&b);
  ok = ok && len == KEEP_TLS_SPKI_LEN;
  if (ok)
    memcpy(out, der, len);
  OPENSSL_free(der);
  return ok;
}

int keep_tls_pins_parse(keep_tls_pins **out, const uint8_t *in, size_t in_len, bool allow_empty) {
  if (out == NULL || (in == NULL && in_len > 0))
    return KEEP_ERR_INVALID_ARGUMENT;
  *out = NULL;
  keep_tls_pins *p = calloc(1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  size_t cap = 0;
  CBS c;
  CBS_init(&c, in, in_len);
  int rc;
  for (;;) {
    uint8_t *der = NULL;
    size_t der_len = 0;
    rc = pem_next(&c, "PUBLIC KEY", &der, &der_len);
    if (rc <= 0)
      break;
    CBS d;
    CBS_init(&d, der, der_len);
    EVP_PKEY *k = EVP_parse_public_key(&d);
    uint8_t spki[KEEP_TLS_SPKI_LEN];
    bool ok = k != NULL && CBS_len(&d) == 0 && spki_of(spki, k);
    EVP_PKEY_free(k);
    free(der);
    if (!ok || p->num == KEEP_TLS_MAX_PINS) {
      rc = KEEP_ERR_INVALID_ARGUMENT;
      break;
    }
    if (p->num == cap) {
      cap = cap ? cap * 2 : 8;
      void *q = realloc(p->spki, cap * sizeof *p->spki);
      if (q == NULL) {
        rc = -ENOMEM;
        break;
      }
      p->spki = q;
    }
    memcpy(p->spki[p->num++], spki, KEEP_TLS_SPKI_LEN);
  }
  ERR_clear_error();
  if (rc == 0 && p->num == 0 && !allow_empty)
    rc = KEEP_ERR_INVALID_ARGUMENT;
  if (rc < 0) {
    keep_tls_pins_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

void keep_tls_pins_free(keep_tls_pins *p) {
  if (p == NULL)
    return;
  free(p->spki);
  free(p);
}

int keep_tls_pins_add(keep_tls_pins *p, const EVP_PKEY *key) {
  uint8_t spki[KEEP_TLS_SPKI_LEN];
  if (p == NULL || key == NULL || !spki_of(spki, key))
    return KEEP_ERR_INVALID_ARGUMENT;
  if (p->num >= KEEP_TLS_MAX_PINS)
    return KEEP_ERR_INVALID_ARGUMENT;
  void *q = realloc(p->spki, (p->num + 1) * sizeof *p->spki);
  if (q == NULL)
    return -ENOMEM;
  p->spki = q;
  memcpy(p->spki[p->num++], spki, KEEP_TLS_SPKI_LEN);
  return 0;
}

int keep_tls_pins_of_key(keep_tls_pins **out, const EVP_PKEY *key) {
  *out = NULL;
  keep_tls_pins *p = calloc(1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  int rc = keep_tls_pins_add(p, key);
  if (rc < 0) {
    keep_tls_pins_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

void keep_tls_key_free(EVP_PKEY *key) {
  EVP_PKEY_free(key);
}

void keep_tls_wipe_free(void *p, size_t len) {
  if (p == NULL)
    return;
  OPENSSL_cleanse(p, len);
  free(p);
}

int keep_tls_read_file(uint8_t **out, size_t *out_len, const char *path) {
  *out = NULL;
  *out_len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  int rc = 0;
  for (;;) {
    if (len == cap) {
      if (cap > KEEP_TLS_MAX_FILE) {
        rc = -EFBIG;
        break;
      }
      cap = cap ? cap * 2 : 4096;
      uint8_t *q = realloc(buf, cap);
      if (q == NULL) {
        rc = -ENOMEM;
        break;
      }
      buf = q;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = -errno;
      break;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  close(fd);
  if (rc == 0 && len > KEEP_TLS_MAX_FILE)
    rc = -EFBIG;
  if (rc < 0) {
    if (buf != NULL)
      OPENSSL_cleanse(buf, cap);
    free(buf);
    return rc;
  }
  *out = buf;
  *out_len = len;
  return 0;
}

static int pem_write(char *out, size_t out_cap, const char *label, const uint8_t *der,
                     size_t der_len) {
  size_t b64_len;
  if (!EVP_EncodedLength(&b64_len, der_len))
    return KEEP_ERR_INVALID_ARGUMENT;
  char b64[256];
  if (b64_len > sizeof b64)
    return -ENOBUFS;
  EVP_EncodeBlock((uint8_t *)b64, der, der_len);
  // A key's base64 is under 64 characters: one line.
  int n = snprintf(out, out_cap, "-----BEGIN %s-----\n%s\n-----END %s-----\n", label, b64, label);
  OPENSSL_cleanse(b64, sizeof b64);
  return n < 0 || (size_t)n >= out_cap ? -ENOBUFS : 0;
}

int keep_tls_pem_public(char *out, size_t out_cap, const EVP_PKEY *key) {
  uint8_t spki[KEEP_TLS_SPKI_LEN];
  if (key == NULL || !spki_of(spki, key))
    return KEEP_ERR_INVALID_ARGUMENT;
  return pem_write(out, out_cap, "PUBLIC KEY", spki, sizeof spki);
}

int keep_tls_pem_private(char *out, size_t out_cap, const EVP_PKEY *key) {
  CBB b;
  uint8_t *der = NULL;
  size_t len = 0;
  if (key == NULL || EVP_PKEY_id(key) != EVP_PKEY_ED25519)
    return KEEP_ERR_INVALID_ARGUMENT;
  if (!CBB_init(&b, 64))
    return -ENOMEM;
  if (!EVP_marshal_private_key(&b, key) || !CBB_finish(&b, &der, &len)) {
    CBB_cleanup(&b);
    return -ENOMEM;
  }
  int rc = pem_write(out, out_cap, "PRIVATE KEY", der, len);
  OPENSSL_cleanse(der, len);
  OPENSSL_free(der);
  return rc;
}

// Certificates and pinning.

// make_cert builds the self-signed certificate for `key`. Only its public
// key matters to a keep peer; the rest is what X.509 parsers insist on.
static X509 *make_cert(EVP_PKEY *key) {
  X509 *x = X509_new();
  X509_NAME *name = X509_NAME_new();
  bool ok =
      x != NULL && name != NULL && X509_set_version(x, X509_VERSION_3) &&
      ASN1_INTEGER_set(X509_get_serialNumber(x), 1) &&
      X509_gmtime_adj(X509_getm_notBefore(x), -86400) &&
      X509_gmtime_adj(X509_getm_notAfter(x), 86400L * 365 * 30) &&
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const uint8_t *)"keep", -1, -1, 0) &&
      X509_set_subject_name(x, name) && X509_set_issuer_name(x, name) && X509_set_pubkey(x, key) &&
      X509_sign(x, key, NULL) > 0;
  X509_NAME_free(name);
  if (!ok) {
    X509_free(x);
    return NULL;
  }
  return x;
}

// leaf_spki finds the SubjectPublicKeyInfo inside a DER certificate.
static bool leaf_spki(CBS *spki, const CRYPTO_BUFFER *leaf) {
  CBS c, cert, tbs, skip;
  CRYPTO_BUFFER_init_CBS(leaf, &c);
  return CBS_get_asn1(&c, &cert, CBS_ASN1_SEQUENCE) &&
         CBS_get_asn1(&cert, &tbs, CBS_ASN1_SEQUENCE) &&
         CBS_get_optional_asn1(&tbs, NULL, NULL,
                               CBS_ASN1_CONTEXT_SPECIFIC | CBS_ASN1_CONSTRUCTED | 0) &&
         CBS_get_asn1(&tbs, &skip, CBS_ASN1_INTEGER) &&  // serial
         CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) && // signature algorithm
         CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) && // issuer
         CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) && // validity
         CBS_get_asn1(&tbs, &skip, CBS_ASN1_SEQUENCE) && // subject
         CBS_get_asn1_element(&tbs, spki, CBS_ASN1_SEQUENCE);
}

static enum ssl_verify_result_t verify_pinned(SSL *ssl, uint8_t *out_alert) {
  keep_tls_ctx *ctx = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
  keep_tls_conn *conn = SSL_get_app_data(ssl);
  const STACK_OF(CRYPTO_BUFFER) *chain = SSL_get0_peer_certificates(ssl);
  CBS spki;
  if (chain != NULL && sk_CRYPTO_BUFFER_num(chain) >= 1 &&
      leaf_spki(&spki, sk_CRYPTO_BUFFER_value(chain, 0)) && CBS_len(&spki) == KEEP_TLS_SPKI_LEN) {
    const keep_tls_pins *p = atomic_load_explicit(&ctx->pins, memory_order_acquire);
    for (size_t i = 0; i < p->num; i++)
      if (CRYPTO_memcmp(p->spki[i], CBS_data(&spki), KEEP_TLS_SPKI_LEN) == 0) {
        if (conn != NULL) {
          memcpy(conn->peer_spki, CBS_data(&spki), KEEP_TLS_SPKI_LEN);
          conn->has_peer = true;
        }
        return ssl_verify_ok;
      }
  }
  if (conn != NULL)
    conn->key_refused = true;
  *out_alert = SSL_AD_CERTIFICATE_UNKNOWN;
  return ssl_verify_invalid;
}

int keep_tls_ctx_new(keep_tls_ctx **out, EVP_PKEY *key, keep_tls_pins *pins, bool server) {
  *out = NULL;
  if (key == NULL || pins == NULL || EVP_PKEY_id(key) != EVP_PKEY_ED25519) {
    keep_tls_pins_free(pins);
    return KEEP_ERR_INVALID_ARGUMENT;
  }
  keep_tls_ctx *ctx = calloc(1, sizeof *ctx);
  if (ctx == NULL) {
    keep_tls_pins_free(pins);
    return -ENOMEM;
  }
  pthread_mutex_init(&ctx->lock, NULL);
  atomic_init(&ctx->pins, pins);
  ctx->server = server;
  static const uint16_t ed25519_only[] = {SSL_SIGN_ED25519};
  X509 *cert = NULL;
  SSL_CTX *s = SSL_CTX_new(TLS_method());
  ctx->ssl_ctx = s;
  bool ok = s != NULL && (cert = make_cert(key)) != NULL &&
            SSL_CTX_set_min_proto_version(s, TLS1_3_VERSION) &&
            SSL_CTX_set_max_proto_version(s, TLS1_3_VERSION) && SSL_CTX_use_certificate(s, cert) &&
            SSL_CTX_use_PrivateKey(s, key) && SSL_CTX_check_private_key(s) &&
            SSL_CTX_set_signing_algorithm_prefs(s, ed25519_only, 1) &&
            SSL_CTX_set_verify_algorithm_prefs(s, ed25519_only, 1) && SSL_CTX_set_app_data(s, ctx);
  X509_free(cert);
  ERR_clear_error();
  if (!ok) {
    keep_tls_ctx_free(ctx);
    return s == NULL ? -ENOMEM : KEEP_ERR_TLS;
  }
  // Every handshake is a full one, so that each checks the pins as they are
  // now (a revoked client cannot resume): no tickets, no session cache.
  SSL_CTX_set_options(s, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_mode(s, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_max_cert_list(s, KEEP_TLS_MAX_CERT_LIST);
  SSL_CTX_set_custom_verify(s, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verify_pinned);
  *out = ctx;
  return 0;
}

void keep_tls_ctx_set_pins(keep_tls_ctx *ctx, keep_tls_pins *pins) {
  struct retired *r = malloc(sizeof *r);
  pthread_mutex_lock(&ctx->lock);
  keep_tls_pins *old = atomic_exchange_explicit(&ctx->pins, pins, memory_order_acq_rel);
  if (r != NULL) {
    r->pins = old;
    r->next = ctx->retired;
    ctx->retired = r;
  }
  // Without memory for the record the old set is leaked rather than freed
  // under a reader.
  pthread_mutex_unlock(&ctx->lock);
}

void keep_tls_ctx_free(keep_tls_ctx *ctx) {
  if (ctx == NULL)
    return;
  SSL_CTX_free(ctx->ssl_ctx);
  keep_tls_pins_free(atomic_load(&ctx->pins));
  while (ctx->retired != NULL) {
    struct retired *r = ctx->retired;
    ctx->retired = r->next;
    keep_tls_pins_free(r->pins);
    free(r);
  }
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

// Connections.

// The socket BIO of BoringSSL writes with write(2), which raises SIGPIPE on
// a reset connection and would kill a client that does not ignore it; this
// one sends with MSG_NOSIGNAL, as the plaintext paths do.

static int nosig_write(BIO *b, const char *in, int len) {
  BIO_clear_retry_flags(b);
  ssize_t n = send((int)(intptr_t)BIO_get_data(b), in, (size_t)len, MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    BIO_set_retry_write(b);
  return (int)n;
}

static int nosig_read(BIO *b, char *out, int len) {
  BIO_clear_retry_flags(b);
  ssize_t n = recv((int)(intptr_t)BIO_get_data(b), out, (size_t)len, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    BIO_set_retry_read(b);
  return (int)n;
}

static long nosig_ctrl(BIO *b, int cmd, long num, void *ptr) {
  (void)b;
  (void)num;
  (void)ptr;
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static BIO_METHOD *nosig_method;
static pthread_once_t nosig_once = PTHREAD_ONCE_INIT;

static void nosig_make(void) {
  BIO_METHOD *m = BIO_meth_new(BIO_TYPE_SOCKET, "keep socket");
  if (m != NULL && BIO_meth_set_write(m, nosig_write) && BIO_meth_set_read(m, nosig_read) &&
      BIO_meth_set_ctrl(m, nosig_ctrl))
    nosig_method = m;
}

static BIO *nosig_bio(int fd) {
  pthread_once(&nosig_once, nosig_make);
  BIO *b = nosig_method != NULL ? BIO_new(nosig_method) : NULL;
  if (b != NULL) {
    BIO_set_data(b, (void *)(intptr_t)fd);
    BIO_set_init(b, 1);
  }
  return b;
}

int keep_tls_wrap_fd(keep_tls_conn **out, keep_tls_ctx *ctx, int fd) {
  *out = NULL;
  keep_tls_conn *c = calloc(1, sizeof *c);
  if (c == NULL)
    return -ENOMEM;
  c->ssl = SSL_new(ctx->ssl_ctx);
  BIO *bio = c->ssl != NULL ? nosig_bio(fd) : NULL;
  if (bio == NULL || !SSL_set_app_data(c->ssl, c)) {
    BIO_free(bio);
    ERR_clear_error();
    keep_tls_conn_free(c);
    return -ENOMEM;
  }
  SSL_set_bio(c->ssl, bio, bio); // one reference, taken by the SSL
  if (ctx->server)
    SSL_set_accept_state(c->ssl);
  else
    SSL_set_connect_state(c->ssl);
  *out = c;
  return 0;
}

// status maps the outcome of an SSL call that returned `ret` <= 0.
static int status(keep_tls_conn *c, int ret, short *want) {
  int saved_errno = errno;
  int e = SSL_get_error(c->ssl, ret);
  switch (e) {
  case SSL_ERROR_WANT_READ:
    *want = POLLIN;
    return 0;
  case SSL_ERROR_WANT_WRITE:
    *want = POLLOUT;
    return 0;
  case SSL_ERROR_ZERO_RETURN:
    return KEEP_ERR_CLOSED;
  case SSL_ERROR_SYSCALL:
    ERR_clear_error();
    if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINTR) {
      *want = POLLIN;
      return 0;
    }
    return ret == 0 || saved_errno == 0 ? KEEP_ERR_CLOSED : -saved_errno;
  default: {
    uint32_t err = ERR_peek_error();
    if (ERR_GET_LIB(err) == ERR_LIB_SSL &&
        (ERR_GET_REASON(err) == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE ||
         ERR_GET_REASON(err) == SSL_R_CERTIFICATE_VERIFY_FAILED))
      c->key_refused = true;
    ERR_clear_error();
    return KEEP_ERR_TLS;
  }
  }
}

int keep_tls_handshake(keep_tls_conn *c, short *want) {
  if (c->done)
    return 1;
  int r = SSL_do_handshake(c->ssl);
  if (r == 1) {
    c->done = true;
    return 1;
  }
  return status(c, r, want);
}

int keep_tls_read(keep_tls_conn *c, short *want, uint8_t *out, size_t out_cap) {
  if (out_cap == 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  int cap = out_cap > INT32_MAX ? INT32_MAX : (int)out_cap;
  int r = SSL_read(c->ssl, out, cap);
  if (r > 0) {
    c->done = true;
    return r;
  }
  return status(c, r, want);
}

int keep_tls_write(keep_tls_conn *c, short *want, const uint8_t *in, size_t in_len) {
  if (in_len == 0)
    return KEEP_ERR_INVALID_ARGUMENT;
  int len = in_len > INT32_MAX ? INT32_MAX : (int)in_len;
  int r = SSL_write(c->ssl, in, len);
  if (r > 0) {
    c->done = true;
    return r;
  }
  return status(c, r, want);
}

bool keep_tls_conn_key_refused(const keep_tls_conn *c) {
  return c->key_refused;
}

bool keep_tls_conn_pinned(keep_tls_ctx *ctx, const keep_tls_conn *c) {
  if (!c->has_peer)
    return false;
  const keep_tls_pins *p = atomic_load_explicit(&ctx->pins, memory_order_acquire);
  for (size_t i = 0; i < p->num; i++)
    if (CRYPTO_memcmp(p->spki[i], c->peer_spki, KEEP_TLS_SPKI_LEN) == 0)
      return true;
  return false;
}

bool keep_tls_pending(const keep_tls_conn *c) {
  return SSL_has_pending(c->ssl) != 0;
}

bool keep_tls_conn_done(const keep_tls_conn *c) {
  return c->done;
}

void keep_tls_conn_free(keep_tls_conn *c) {
  if (c == NULL)
    return;
  SSL_free(c->ssl);
  free(c);
}
