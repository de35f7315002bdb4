// diff_mlkem.c: the ML-KEM driver of the differential test (diff_mlkem.py). It
// reads one command per line on stdin and answers one line on stdout, all
// values in hex, so that a script can push thousands of cases through in one
// run:
//   K <level> <seed>        -> <public key> <private key>   (keygen_from_seed)
//   E <level> <pk> <m>      -> <ciphertext> <shared secret> (encaps_derand)
//   D <level> <sk> <ct>     -> <shared secret>              (decaps)
// <level> is 512, 768 or 1024. A failing call answers "error <code>"; a
// malformed command answers "bad" and the driver exits with status 2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "testutil.h"

static int parse_level(const char *s, mc_mlkem_level *level) {
  if (strcmp(s, "512") == 0)
    *level = MC_MLKEM_512;
  else if (strcmp(s, "768") == 0)
    *level = MC_MLKEM_768;
  else if (strcmp(s, "1024") == 0)
    *level = MC_MLKEM_1024;
  else
    return 0;
  return 1;
}

static void print_hex(const uint8_t *p, size_t len, char sep) {
  char buf[2 * MC_MLKEM_MAX_PRIVATE_KEY_LEN + 1];
  mc_test_hex(buf, p, len);
  fputs(buf, stdout);
  putchar(sep);
}

// run executes one command line; 0 on a malformed line.
static int run(char *line) {
  char *save = NULL, *op = strtok_r(line, " \r\n", &save);
  char *lv = strtok_r(NULL, " \r\n", &save);
  char *a = strtok_r(NULL, " \r\n", &save), *b = strtok_r(NULL, " \r\n", &save);
  mc_mlkem_level level;
  if (op == NULL || lv == NULL || a == NULL || !parse_level(lv, &level))
    return 0;
  size_t a_len = 0, b_len = 0;
  uint8_t *x = mc_test_unhex(a, &a_len), *y = b != NULL ? mc_test_unhex(b, &b_len) : NULL;
  int ok = x != NULL && (b == NULL || y != NULL);
  uint8_t pk[MC_MLKEM_MAX_PUBLIC_KEY_LEN], sk[MC_MLKEM_MAX_PRIVATE_KEY_LEN];
  uint8_t ct[MC_MLKEM_MAX_CIPHERTEXT_LEN], ss[MC_MLKEM_SHARED_SECRET_LEN];
  int status = 0;
  if (!ok) {
    // fall through to the cleanup
  } else if (strcmp(op, "K") == 0 && y == NULL) {
    status = mc_mlkem_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, x, a_len);
    if (status == 0) {
      print_hex(pk, mc_mlkem_public_key_len(level), ' ');
      print_hex(sk, mc_mlkem_private_key_len(level), '\n');
    }
  } else if (strcmp(op, "E") == 0 && y != NULL && b_len == MC_MLKEM_ENCAPS_ENTROPY_LEN) {
    status = mc_mlkem_encaps_derand(level, ct, sizeof ct, ss, x, a_len, y);
    if (status == 0) {
      print_hex(ct, mc_mlkem_ciphertext_len(level), ' ');
      print_hex(ss, sizeof ss, '\n');
    }
  } else if (strcmp(op, "D") == 0 && y != NULL) {
    status = mc_mlkem_decaps(level, ss, x, a_len, y, b_len);
    if (status == 0)
      print_hex(ss, sizeof ss, '\n');
  } else {
    ok = 0;
  }
  if (ok && status != 0)
    printf("error %d\n", status);
  free(x);
  free(y);
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
  return fflush(stdout) == 0 ? 0 : 1;
}
