// common.c: the client rules that the blocking client, the non-blocking
// client and the RESP adapter must apply identically (keep_common.h): turning
// an answer into a status, reading the member a MOVED answer names, splitting
// a member address, starting a connection and loading the TLS key files. Keeping them here means a
// change to the protocol's error codes or key handling reaches every client.
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keep_common.h"

int keep_answer_status(const keep_frame *f) {
  switch (f->opcode) {
  case KEEP_OP_OK:
    return 0;
  case KEEP_OP_NOT_FOUND:
    return KEEP_ERR_NOT_FOUND;
  case KEEP_OP_EXISTS:
    return KEEP_ERR_EXISTS;
  case KEEP_OP_BUSY:
    return KEEP_ERR_BUSY;
  case KEEP_OP_MOVED:
    return KEEP_ERR_MOVED;
  case KEEP_OP_NOT_YET:
    return KEEP_ERR_NOT_YET;
  case KEEP_OP_ERROR:
    switch (f->num) {
    case KEEP_CODE_OUT_OF_MEMORY:
      return KEEP_ERR_OUT_OF_MEMORY;
    case KEEP_CODE_WRONG_TYPE:
      return KEEP_ERR_WRONG_TYPE;
    case KEEP_CODE_TOO_LARGE:
      return KEEP_ERR_TOO_LARGE;
    case KEEP_CODE_OVERFLOW:
      return KEEP_ERR_OVERFLOW;
    case KEEP_CODE_INVALID:
      return KEEP_ERR_INVALID_ARGUMENT;
    default:
      return KEEP_ERR_SERVER;
    }
  default:
    return KEEP_ERR_PROTOCOL;
  }
}

bool keep_moved_member(size_t *out_index, uint32_t *out_slot, const keep_frame *f,
                       const uint16_t *ids, size_t num_ids) {
  // Member ids are 16-bit, so five digits always suffice and the sum below
  // cannot overflow.
  if (f->num >= KEEP_SLOTS || f->text_len == 0 || f->text_len > 5)
    return false;
  unsigned id = 0;
  for (size_t i = 0; i < f->text_len; i++) {
    if (f->text[i] < '0' || f->text[i] > '9')
      return false;
    id = id * 10 + (unsigned)(f->text[i] - '0');
  }
  for (size_t i = 0; i < num_ids; i++)
    if (ids[i] == id) {
      *out_index = i;
      *out_slot = (uint32_t)f->num;
      return true;
    }
  return false;
}

int keep_member_split(char *host, size_t host_cap, const char **out_port, const char *member,
                      size_t port_max_len) {
  const char *colon = member != NULL ? strrchr(member, ':') : NULL;
  if (colon == NULL || colon[1] == '\0' || strlen(colon + 1) > port_max_len)
    return KEEP_ERR_INVALID_ARGUMENT;
  const char *h = member;
  size_t hl = (size_t)(colon - member);
  if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
    h++;
    hl -= 2;
  }
  if (hl == 0 || hl >= host_cap)
    return KEEP_ERR_INVALID_ARGUMENT;
  memcpy(host, h, hl);
  host[hl] = '\0';
  *out_port = colon + 1;
  return 0;
}

int keep_buf_grow(uint8_t **buf, size_t *cap, size_t need) {
  if (need <= *cap)
    return 0;
  size_t n = *cap ? *cap : 4096;
  while (n < need)
    n *= 2;
  uint8_t *p = realloc(*buf, n);
  if (p == NULL)
    return -ENOMEM;
  *buf = p;
  *cap = n;
  return 0;
}

int keep_connect_start(int *out_fd, const struct sockaddr *addr, socklen_t addr_len) {
  int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, addr, addr_len) < 0 && errno != EINPROGRESS) {
    int rc = -errno;
    close(fd);
    return rc;
  }
  *out_fd = fd;
  return 0;
}

int keep_tls_client_ctx_load(keep_tls_ctx **out, const keep_tls_settings *t) {
  if (t->key_file == NULL)
    return KEEP_ERR_INVALID_ARGUMENT;
  uint8_t *buf;
  size_t len;
  EVP_PKEY *key = NULL;
  keep_tls_pins *pins = NULL;
  int rc = keep_tls_read_file(&buf, &len, t->key_file);
  if (rc < 0)
    return rc;
  rc = keep_tls_key_parse(&key, buf, len);
  keep_tls_wipe_free(buf, len); // a private key
  if (rc < 0)
    return rc;
  if (t->server_key_file != NULL) {
    if ((rc = keep_tls_read_file(&buf, &len, t->server_key_file)) == 0) {
      rc = keep_tls_pins_parse(&pins, buf, len, false);
      free(buf);
    }
  } else {
    rc = keep_tls_pins_of_key(&pins, key);
  }
  if (rc == 0)
    rc = keep_tls_ctx_new(out, key, pins, false);
  keep_tls_key_free(key);
  return rc;
}
