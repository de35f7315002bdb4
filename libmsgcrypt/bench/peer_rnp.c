// peer_rnp.c: librnp's OpenPGP encryption, measured like bench_pgp.c
// measures ours, in a process of its own: librnp links OpenSSL's libcrypto,
// whose symbols clash with the BoringSSL that libmsgcrypt links, so the two
// never share a process. Each recipient certificate is imported once into an
// in-memory keyring; every message is one rnp_op_encrypt over memory input
// and output, binary, uncompressed ("Uncompressed": librnp 0.16 refuses
// "none"), with librnp's default cipher and packet
// format. A certificate librnp cannot import (v6, post-quantum) is reported
// on stderr and skipped.
//
// Armored messages (librnp's armor) give the rows pgp-armor-NAME, as in
// bench_pgp.c.
//
// usage: peer_rnp [--rounds N] NAME=CERT_FILE...
//   prints one JSON line per (NAME, size, armor) with impl "rnp"
//   (corvid_bench.h).
#include <rnp/rnp.h>
#include <rnp/rnp_err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_bench.h"

enum { SMALL = 10 * 1024, LARGE = 1 << 20 };

struct job {
  rnp_ffi_t ffi;
  rnp_key_handle_t key;
  const uint8_t *in;
  size_t len;
  unsigned n; // messages per measured call
  bool armor;
  size_t out_len;
};

// A failed encryption would time an error path: stop instead.
static void must(rnp_result_t r, const char *what) {
  if (r != RNP_SUCCESS) {
    fprintf(stderr, "peer_rnp: %s failed (%#x)\n", what, (unsigned)r);
    exit(1);
  }
}

static void encrypt_n(void *ctx) {
  struct job *j = ctx;
  for (unsigned i = 0; i < j->n; i++) {
    rnp_input_t in = NULL;
    rnp_output_t out = NULL;
    rnp_op_encrypt_t op = NULL;
    must(rnp_input_from_memory(&in, j->in, j->len, false), "rnp_input_from_memory");
    must(rnp_output_to_memory(&out, 0), "rnp_output_to_memory");
    must(rnp_op_encrypt_create(&op, j->ffi, in, out), "rnp_op_encrypt_create");
    must(rnp_op_encrypt_add_recipient(op, j->key), "rnp_op_encrypt_add_recipient");
    must(rnp_op_encrypt_set_armor(op, j->armor), "rnp_op_encrypt_set_armor");
    must(rnp_op_encrypt_set_compression(op, "Uncompressed", 0), "rnp_op_encrypt_set_compression");
    must(rnp_op_encrypt_execute(op), "rnp_op_encrypt_execute");
    uint8_t *buf = NULL;
    size_t len = 0;
    must(rnp_output_memory_get_buf(out, &buf, &len, false), "rnp_output_memory_get_buf");
    corvid_bench_sink(buf, len);
    j->out_len = len;
    rnp_op_encrypt_destroy(op);
    rnp_output_destroy(out);
    rnp_input_destroy(in);
  }
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16;
  uint8_t *p = malloc(cap);
  *len = p ? fread(p, 1, cap, f) : 0;
  fclose(f);
  return p;
}

// load imports CERT_FILE into a new keyring and finds its primary key.
static int load(struct job *j, const char *path) {
  size_t len = 0;
  uint8_t *data = read_file(path, &len);
  rnp_input_t in = NULL;
  int ok = data && rnp_ffi_create(&j->ffi, "GPG", "GPG") == RNP_SUCCESS &&
           rnp_input_from_memory(&in, data, len, false) == RNP_SUCCESS &&
           rnp_import_keys(j->ffi, in, RNP_LOAD_SAVE_PUBLIC_KEYS, NULL) == RNP_SUCCESS;
  rnp_input_destroy(in);
  free(data);
  rnp_identifier_iterator_t it = NULL;
  const char *fpr = NULL;
  if (ok && rnp_identifier_iterator_create(j->ffi, &it, "fingerprint") == RNP_SUCCESS) {
    while (rnp_identifier_iterator_next(it, &fpr) == RNP_SUCCESS && fpr) {
      rnp_key_handle_t k = NULL;
      bool primary = false;
      if (rnp_locate_key(j->ffi, "fingerprint", fpr, &k) == RNP_SUCCESS && k &&
          rnp_key_is_primary(k, &primary) == RNP_SUCCESS && primary) {
        j->key = k;
        break;
      }
      rnp_key_handle_destroy(k);
    }
    rnp_identifier_iterator_destroy(it);
  }
  return j->key ? 0 : -1;
}

int main(int argc, char **argv) {
  unsigned rounds = 5;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
    rounds = (unsigned)atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > 20 || i >= argc) {
    fprintf(stderr, "usage: peer_rnp [--rounds N] NAME=CERT_FILE...\n");
    return 2;
  }
  uint8_t *msg = malloc(LARGE);
  if (!msg)
    return 1;
  for (size_t k = 0; k < LARGE; k++)
    msg[k] = (uint8_t)(k * 131 + 7);
  for (; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return 2;
    *eq = '\0';
    struct job j = {0};
    if (load(&j, eq + 1) != 0) {
      fprintf(stderr, "peer_rnp: %s: librnp cannot use %s, left out\n", argv[i], eq + 1);
      rnp_ffi_destroy(j.ffi);
      continue;
    }
    static const size_t sizes[] = {SMALL, LARGE, SMALL, LARGE};
    for (size_t s = 0; s < 4; s++) {
      j.armor = s >= 2;
      j.in = msg;
      j.len = sizes[s];
      j.n = sizes[s] == SMALL ? 4 : 1;
      struct corvid_bench_result r;
      if (corvid_bench_measure(&r, 10 * rounds, encrypt_n, &j) != 0)
        return 1;
      r.min_ns /= j.n;
      r.median_ns /= j.n;
      char bench[64];
      snprintf(bench, sizeof bench, "pgp-%s-%s", j.armor ? "armor" : "encrypt", argv[i]);
      corvid_bench_emit(stdout, bench, "rnp", sizes[s], 1, &r);
    }
    rnp_key_handle_destroy(j.key);
    rnp_ffi_destroy(j.ffi);
  }
  free(msg);
  return 0;
}
