// diff_curve448.c: the X448/Ed448 driver of the differential test
// (diff_curve448.py). It reads one command per line on stdin and answers one
// line on stdout, values in hex ("-" for an empty string), so that a script
// can push thousands of cases through in one run:
//   XP <k>                   -> <public key>          (mc_x448_public_key)
//   XS <k> <u>               -> <shared secret>       (mc_x448)
//   EP <sk>                  -> <public key>          (mc_ed448_public_key)
//   ES <sk> <msg> <ctx>      -> <signature>           (mc_ed448_sign)
//   EH <sk> <msg> <ctx>      -> <signature>           (mc_ed448ph_sign)
//   EV <pk> <sig> <msg> <ctx> -> ok                   (mc_ed448_verify)
//   EW <pk> <sig> <msg> <ctx> -> ok                   (mc_ed448ph_verify)
// A failing call answers "error <code>"; a malformed command answers "bad"
// and the driver exits with status 2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "testutil.h"

enum { MAX_ARGS = 4 };

static void print_hex(const uint8_t *p, size_t len) {
  char buf[2 * MC_ED448_SIGNATURE_LEN + 1];
  mc_test_hex(buf, p, len);
  puts(buf);
}

static uint8_t *unhex_arg(const char *s, size_t *len) {
  if (strcmp(s, "-") == 0) {
    *len = 0;
    return calloc(1, 1);
  }
  return mc_test_unhex(s, len);
}

// run executes one command line; 0 on a malformed line.
static int run(char *line) {
  char *save = NULL, *op = strtok_r(line, " \r\n", &save);
  uint8_t *arg[MAX_ARGS] = {NULL};
  size_t len[MAX_ARGS] = {0};
  int n = 0, ok = op != NULL;
  for (char *tok; ok && (tok = strtok_r(NULL, " \r\n", &save)) != NULL;) {
    if (n == MAX_ARGS || (arg[n] = unhex_arg(tok, &len[n])) == NULL)
      ok = 0;
    else
      n++;
  }
  uint8_t out[MC_ED448_SIGNATURE_LEN];
  int status = 0;
  if (!ok) {
    // fall through to the cleanup
  } else if (strcmp(op, "XP") == 0 && n == 1 && len[0] == MC_X448_KEY_LEN) {
    if ((status = mc_x448_public_key(out, arg[0])) == 0)
      print_hex(out, MC_X448_KEY_LEN);
  } else if (strcmp(op, "XS") == 0 && n == 2 && len[0] == MC_X448_KEY_LEN &&
             len[1] == MC_X448_KEY_LEN) {
    if ((status = mc_x448(out, arg[0], arg[1])) == 0)
      print_hex(out, MC_X448_KEY_LEN);
  } else if (strcmp(op, "EP") == 0 && n == 1 && len[0] == MC_ED448_PRIVATE_KEY_LEN) {
    if ((status = mc_ed448_public_key(out, arg[0])) == 0)
      print_hex(out, MC_ED448_PUBLIC_KEY_LEN);
  } else if ((strcmp(op, "ES") == 0 || strcmp(op, "EH") == 0) && n == 3 &&
             len[0] == MC_ED448_PRIVATE_KEY_LEN) {
    status = op[1] == 'S' ? mc_ed448_sign(out, arg[0], arg[1], len[1], arg[2], len[2])
                          : mc_ed448ph_sign(out, arg[0], arg[1], len[1], arg[2], len[2]);
    if (status == 0)
      print_hex(out, MC_ED448_SIGNATURE_LEN);
  } else if ((strcmp(op, "EV") == 0 || strcmp(op, "EW") == 0) && n == 4 &&
             len[0] == MC_ED448_PUBLIC_KEY_LEN) {
    status = op[1] == 'V'
                 ? mc_ed448_verify(arg[0], arg[1], len[1], arg[2], len[2], arg[3], len[3])
                 : mc_ed448ph_verify(arg[0], arg[1], len[1], arg[2], len[2], arg[3], len[3]);
    if (status == 0)
      puts("ok");
  } else {
    ok = 0;
  }
  if (ok && status != 0)
    printf("error %d\n", status);
  for (int i = 0; i < MAX_ARGS; i++)
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
