// diff_pgp_encrypt.c: driver for the OpenPGP encryption interop test
// (diff_pgp_encrypt.py). It reads one request per line on stdin,
//   <format> <armor> <plaintext hex or -N for N pseudo-random bytes> <key>...
// where each <key> is comma-separated name=value fields of a pgp_recipient
// (v, algo, fpr, feat, n, e, oid, point, kh, kc, ecc, mlkem, psym, paead;
// byte strings in hex), encrypts the plaintext, and answers "ok <message
// hex>" or "err <code>". Requests with <armor> 1 go through the streaming
// encryptor, those with 0 (binary) or 2 (armored) through the one-shot
// mc_pgp_encrypt_rcpts (whose packets have definite lengths, whose SEIPD
// body is encrypted in one pass and whose armor is written in place over
// it), so that every peer reads every path. The peers that decrypt the
// answers live in the Python script.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_encrypt_internal.h"
#include "testutil.h"

#define MAX_KEYS 8

struct out {
  uint8_t *p;
  size_t len, cap;
};

static int collect(void *opaque, const uint8_t *data, size_t len) {
  struct out *o = opaque;
  if (o->len + len > o->cap) {
    size_t cap = 2 * (o->len + len) + 1;
    uint8_t *p = realloc(o->p, cap);
    if (p == NULL)
      return -12;
    o->p = p;
    o->cap = cap;
  }
  memcpy(o->p + o->len, data, len);
  o->len += len;
  return 0;
}

// The decoded byte strings of one request, freed after it.
static uint8_t *owned[MAX_KEYS * 16];
static size_t num_owned;

static const uint8_t *unhex(const char *hex, size_t *len) {
  uint8_t *p = mc_test_unhex(hex, len);
  if (p != NULL && num_owned < sizeof owned / sizeof owned[0])
    owned[num_owned++] = p;
  return p;
}

static int parse_key(pgp_recipient *r, char *spec) {
  memset(r, 0, sizeof *r);
  for (char *f = strtok(spec, ","); f != NULL; f = strtok(NULL, ",")) {
    char *eq = strchr(f, '=');
    if (eq == NULL)
      return -1;
    *eq = 0;
    const char *k = f, *v = eq + 1;
    size_t len = 0;
    const uint8_t *b = NULL;
    if (strcmp(k, "v") == 0) {
      r->version = (uint8_t)atoi(v);
    } else if (strcmp(k, "algo") == 0) {
      r->algo = (uint8_t)atoi(v);
    } else if (strcmp(k, "feat") == 0) {
      r->features = (uint8_t)atoi(v);
    } else if (strcmp(k, "kh") == 0) {
      r->ecdh_kdf_hash = (uint8_t)atoi(v);
    } else if (strcmp(k, "kc") == 0) {
      r->ecdh_kdf_cipher = (uint8_t)atoi(v);
    } else if ((b = unhex(v, &len)) == NULL) {
      return -1;
    } else if (strcmp(k, "fpr") == 0 && len <= 32) {
      memcpy(r->fpr, b, len);
      r->fpr_len = len;
      memcpy(r->key_id, len == 20 ? b + 12 : b, 8);
    } else if (strcmp(k, "n") == 0) {
      r->rsa_n = b;
      r->rsa_n_len = len;
    } else if (strcmp(k, "e") == 0) {
      r->rsa_e = b;
      r->rsa_e_len = len;
    } else if (strcmp(k, "oid") == 0) {
      r->ecdh_oid = b;
      r->ecdh_oid_len = len;
    } else if (strcmp(k, "point") == 0) {
      r->ecdh_point = b;
      r->ecdh_point_len = len;
    } else if (strcmp(k, "ecc") == 0) {
      r->ecc_pub = b;
      r->ecc_pub_len = len;
    } else if (strcmp(k, "mlkem") == 0) {
      r->mlkem_pub = b;
      r->mlkem_pub_len = len;
    } else if (strcmp(k, "psym") == 0 && len <= PGP_MAX_PREFS) {
      memcpy(r->pref_sym, b, len);
      r->num_pref_sym = len;
    } else if (strcmp(k, "paead") == 0 && len <= 2 * PGP_MAX_PREFS && len % 2 == 0) {
      memcpy(r->pref_aead, b, len);
      r->num_pref_aead = len / 2;
    } else {
      return -1;
    }
  }
  return 0;
}

int main(void) {
  static char line[1 << 20];
  while (fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\r\n")] = 0;
    char *save = NULL;
    char *fmt = strtok_r(line, " ", &save);
    char *armor = strtok_r(NULL, " ", &save);
    char *data = strtok_r(NULL, " ", &save);
    if (fmt == NULL || armor == NULL || data == NULL) {
      printf("err syntax\n");
      fflush(stdout);
      continue;
    }
    pgp_recipient rcpts[MAX_KEYS];
    size_t num = 0;
    int bad = 0;
    char *spec;
    while (!bad && (spec = strtok_r(NULL, " ", &save)) != NULL)
      bad = num == MAX_KEYS || parse_key(&rcpts[num++], spec) != 0;
    uint8_t *in = NULL;
    size_t in_len = 0;
    if (data[0] == '-') {
      in_len = (size_t)strtoull(data + 1, NULL, 10);
      in = malloc(in_len + 1);
      for (size_t i = 0; i < in_len; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 13);
    } else {
      in = mc_test_unhex(data, &in_len);
      bad |= in == NULL;
    }
    struct out o = {0};
    int ret = MC_ERR_INVALID_ARGUMENT;
    if (!bad) {
      int mode = atoi(armor);
      mc_pgp_encrypt_params p = {mode != 0, atoi(fmt), NULL, NULL, NULL};
      if (mode != 1) {
        o.cap = mc_pgp_encrypt_max_len(num, in_len, p.armor ? MC_PGP_ARMOR : 0);
        o.p = malloc(o.cap);
        ret = o.p == NULL ? -12
                          : mc_pgp_encrypt_rcpts(o.p, o.cap, &o.len, rcpts, num, &p, in, in_len);
      } else {
        mc_pgp_encryptor *e = NULL;
        ret = mc_pgp_encryptor_new_rcpts(&e, rcpts, num, &p, collect, &o);
        // Feed in uneven pieces, as a stream would arrive.
        for (size_t pos = 0, step = 1000; ret == 0 && pos < in_len; pos += step, step += 4097)
          ret = mc_pgp_encryptor_update(e, in + pos, step < in_len - pos ? step : in_len - pos);
        if (ret == 0)
          ret = mc_pgp_encryptor_final(e);
        mc_pgp_encryptor_free(e);
      }
    }
    if (ret == 0) {
      fputs("ok ", stdout);
      static const char digits[] = "0123456789abcdef";
      for (size_t i = 0; i < o.len; i++) {
        putchar(digits[o.p[i] >> 4]);
        putchar(digits[o.p[i] & 15]);
      }
      putchar('\n');
    } else {
      printf("err %d\n", ret);
    }
    fflush(stdout);
    free(o.p);
    free(in);
    for (size_t i = 0; i < num_owned; i++)
      free(owned[i]);
    num_owned = 0;
  }
  return 0;
}
