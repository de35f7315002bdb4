// diff_mldsa.c: the ML-DSA driver of the differential test (diff_mldsa.py).
// It reads one command per line on stdin and answers one line on stdout, all
// values in hex and "-" for an empty value, so that a script can push
// thousands of cases through one process:
//   K <level> <seed>                 -> <public key> <private key>
//   S <level> <sk> <msg> <ctx>       -> <signature>   (deterministic, rnd = 0)
//   H <level> <sk> <msg> <ctx>       -> <signature>   (hedged, rnd from RAND_bytes)
//   V <level> <pk> <sig> <msg> <ctx> -> ok
// <level> is 44, 65 or 87. A failing call answers "error <code>"; a
// malformed command answers "bad" and the driver exits with status 2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "testutil.h"

static int parse_level(const char *s, mc_mldsa_level *level) {
  if (strcmp(s, "44") == 0)
    *level = MC_MLDSA_44;
  else if (strcmp(s, "65") == 0)
    *level = MC_MLDSA_65;
  else if (strcmp(s, "87") == 0)
    *level = MC_MLDSA_87;
  else
    return 0;
  return 1;
}

static void print_hex(const uint8_t *p, size_t len, char sep) {
  static char buf[2 * MC_MLDSA_MAX_PRIVATE_KEY_LEN + 1];
  mc_test_hex(buf, p, len);
  fputs(len > 0 ? buf : "-", stdout);
  putchar(sep);
}

enum { MAX_ARGS = 4 };

// run executes one command line; 0 on a malformed line.
static int run(char *line) {
  char *save = NULL, *op = strtok_r(line, " \r\n", &save);
  char *lv = strtok_r(NULL, " \r\n", &save);
  mc_mldsa_level level;
  if (op == NULL || lv == NULL || strlen(op) != 1 || !parse_level(lv, &level))
    return 0;
  uint8_t *arg[MAX_ARGS] = {NULL};
  size_t len[MAX_ARGS] = {0}, argc = 0;
  int ok = 1;
  for (char *tok; ok && (tok = strtok_r(NULL, " \r\n", &save)) != NULL;) {
    if (argc == MAX_ARGS) {
      ok = 0;
    } else if (strcmp(tok, "-") == 0) {
      arg[argc++] = calloc(1, 1);
    } else {
      arg[argc] = mc_test_unhex(tok, &len[argc]);
      ok = arg[argc++] != NULL;
    }
  }
  static uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  static uint8_t sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  int status = 0;
  if (!ok) {
    // fall through to the cleanup
  } else if (op[0] == 'K' && argc == 1 && len[0] == MC_MLDSA_SEED_LEN) {
    status = mc_mldsa_keygen_from_seed(level, pk, sizeof pk, sk, sizeof sk, arg[0]);
    if (status == 0) {
      print_hex(pk, mc_mldsa_public_key_len(level), ' ');
      print_hex(sk, mc_mldsa_private_key_len(level), '\n');
    }
  } else if ((op[0] == 'S' || op[0] == 'H') && argc == 3) {
    status = op[0] == 'S' ? mc_mldsa_sign_deterministic(level, sig, sizeof sig, arg[0], len[0],
                                                        arg[1], len[1], arg[2], len[2])
                          : mc_mldsa_sign(level, sig, sizeof sig, arg[0], len[0], arg[1], len[1],
                                          arg[2], len[2]);
    if (status == 0)
      print_hex(sig, mc_mldsa_signature_len(level), '\n');
  } else if (op[0] == 'V' && argc == 4) {
    status = mc_mldsa_verify(level, arg[0], len[0], arg[1], len[1], arg[2], len[2], arg[3], len[3]);
    if (status == 0)
      puts("ok");
  } else {
    ok = 0;
  }
  if (ok && status != 0)
    printf("error %d\n", status);
  for (size_t i = 0; i < argc; i++)
    free(arg[i]);
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
