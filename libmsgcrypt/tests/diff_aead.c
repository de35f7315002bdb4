// diff_aead.c: the driver of the AES-OCB differential test (diff_aead.py),
// with a few commands for the BoringSSL layer's symmetric functions too. It
// reads one command per line on stdin and answers one line on stdout, values
// in hex and "-" for an empty value:
//   S <impl> <tag_len> <key> <nonce> <ad> <plaintext>  -> <ciphertext||tag>
//   O <impl> <tag_len> <key> <nonce> <ad> <ct||tag>    -> <plaintext>
//   G <key> <nonce> <ad> <plaintext>                   -> <ciphertext||tag>
//   C <key> <iv> <plaintext>                           -> <ciphertext> (CFB)
//   W <kek> <key data>                                 -> <wrapped>
//   H <hash> <length> <ikm> <salt> <info>              -> <okm> (HKDF)
// <impl> is "vaes", "aesni", "boringssl" or "auto"; <hash> is 256, 384 or 512. A
// failing call answers "error <code>"; a malformed command answers "bad" and
// the driver exits with status 2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aead_internal.h"
#include "msgcrypt.h"
#include "testutil.h"

typedef struct {
  uint8_t *p;
  size_t len;
  int ok;
} arg;

static arg parse(const char *s) {
  arg a = {NULL, 0, 0};
  if (s == NULL)
    return a;
  if (strcmp(s, "-") == 0) {
    a.p = malloc(1);
    a.ok = a.p != NULL;
    return a;
  }
  a.p = mc_test_unhex(s, &a.len);
  a.ok = a.p != NULL;
  return a;
}

static void print_hex(const uint8_t *p, size_t len) {
  if (len == 0) {
    puts("-");
    return;
  }
  char *buf = malloc(2 * len + 1);
  if (buf == NULL)
    exit(3);
  mc_test_hex(buf, p, len);
  puts(buf);
  free(buf);
}

static int parse_impl(const char *s, int *impl) {
  if (s == NULL)
    return 0;
  if (strcmp(s, "vaes") == 0)
    *impl = MC_OCB_IMPL_VAES;
  else if (strcmp(s, "aesni") == 0)
    *impl = MC_OCB_IMPL_AESNI;
  else if (strcmp(s, "boringssl") == 0)
    *impl = MC_OCB_IMPL_BORINGSSL;
  else if (strcmp(s, "auto") == 0)
    *impl = MC_OCB_IMPL_AUTO;
  else
    return 0;
  return 1;
}

// run executes one command line; 0 on a malformed line.
static int run(char *line) {
  char *save = NULL, *tok[7] = {0};
  int ntok = 0;
  for (char *t = strtok_r(line, " \r\n", &save); t != NULL && ntok < 7;
       t = strtok_r(NULL, " \r\n", &save))
    tok[ntok++] = t;
  if (ntok == 0)
    return 0;
  const char *op = tok[0];
  int status = 0, ok = 1;
  arg a[4] = {{0}};
  uint8_t *out = NULL;
  size_t out_len = 0;

  if ((strcmp(op, "S") == 0 || strcmp(op, "O") == 0) && ntok == 7) {
    int impl;
    size_t tag_len = (size_t)strtoul(tok[2], NULL, 10);
    for (int i = 0; i < 4; i++)
      a[i] = parse(tok[3 + i]);
    ok = parse_impl(tok[1], &impl) && a[0].ok && a[1].ok && a[2].ok && a[3].ok;
    if (ok) {
      mc_aes_ocb_ctx ctx;
      out = malloc(a[3].len + 16);
      status = mc_aes_ocb_init_impl(&ctx, a[0].p, a[0].len, tag_len, impl);
      if (status == 0 && op[0] == 'S')
        status = mc_aes_ocb_seal(&ctx, out, a[3].len + 16, &out_len, a[1].p, a[1].len, a[3].p,
                                 a[3].len, a[2].p, a[2].len);
      else if (status == 0)
        status = mc_aes_ocb_open(&ctx, out, a[3].len, &out_len, a[1].p, a[1].len, a[3].p, a[3].len,
                                 a[2].p, a[2].len);
      mc_aes_ocb_cleanup(&ctx);
    }
  } else if (strcmp(op, "G") == 0 && ntok == 5) {
    for (int i = 0; i < 4; i++)
      a[i] = parse(tok[1 + i]);
    ok = a[0].ok && a[1].ok && a[2].ok && a[3].ok;
    if (ok) {
      out = malloc(a[3].len + 16);
      status = mc_aes_gcm_seal(out, a[3].len + 16, &out_len, a[0].p, a[0].len, a[1].p, a[1].len,
                               a[3].p, a[3].len, a[2].p, a[2].len);
    }
  } else if (strcmp(op, "C") == 0 && ntok == 4) {
    for (int i = 0; i < 3; i++)
      a[i] = parse(tok[1 + i]);
    ok = a[0].ok && a[1].ok && a[2].ok && a[1].len == MC_AES_BLOCK_LEN;
    if (ok) {
      out = malloc(a[2].len + 1);
      out_len = a[2].len;
      status = mc_aes_cfb_encrypt(out, a[0].p, a[0].len, a[1].p, a[2].p, a[2].len);
    }
  } else if (strcmp(op, "W") == 0 && ntok == 3) {
    for (int i = 0; i < 2; i++)
      a[i] = parse(tok[1 + i]);
    ok = a[0].ok && a[1].ok;
    if (ok) {
      out = malloc(a[1].len + 8);
      status = mc_aes_kw_wrap(out, a[1].len + 8, &out_len, a[0].p, a[0].len, a[1].p, a[1].len);
    }
  } else if (strcmp(op, "H") == 0 && ntok == 6) {
    unsigned long bits = strtoul(tok[1], NULL, 10);
    mc_hash_alg alg = bits == 256   ? MC_HASH_SHA256
                      : bits == 384 ? MC_HASH_SHA384
                      : bits == 512 ? MC_HASH_SHA512
                                    : (mc_hash_alg)0;
    out_len = (size_t)strtoul(tok[2], NULL, 10);
    for (int i = 0; i < 3; i++)
      a[i] = parse(tok[3 + i]);
    ok = alg != 0 && a[0].ok && a[1].ok && a[2].ok;
    if (ok) {
      out = malloc(out_len + 1);
      status = mc_hkdf(alg, out, out_len, a[0].p, a[0].len, a[1].p, a[1].len, a[2].p, a[2].len);
    }
  } else {
    ok = 0;
  }

  if (ok && status != 0)
    printf("error %d\n", status);
  else if (ok)
    print_hex(out, out_len);
  free(out);
  for (int i = 0; i < 4; i++)
    free(a[i].p);
  return ok;
}

int main(void) {
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) {
    if (!run(line)) {
      puts("bad");
      free(line);
      return 2;
    }
  }
  free(line);
  return 0;
}
