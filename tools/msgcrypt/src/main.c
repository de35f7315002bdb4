// main.c: the msgcrypt command, a front-end to libmsgcrypt. Commands are rows
// of one table (name, one-line summary, handler), so that later commands are
// a row and a function each; `msgcrypt --help` lists the table. `selftest`,
// here, runs the library's known-answer self-tests and prints one line per
// algorithm; describe.c and encrypt.c hold the others.
#include <stdio.h>
#include <string.h>

#include "msgcrypt_tool.h"

struct command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); // argv[0] is the command's name
};

static void usage(FILE *f);

// cmd_selftest runs every self-test and prints, per test, "ok", "FAIL" or
// "skip" (a code path this CPU cannot run), the algorithm and what was
// checked; failures also name the error. It exits 1 when any test failed.
static int cmd_selftest(int argc, char **argv) {
  (void)argv;
  if (argc != 1) {
    fprintf(stderr, "msgcrypt: selftest takes no arguments\n");
    return EXIT_USAGE;
  }
  size_t failed = 0, n = mc_selftest_count();
  for (size_t i = 0; i < n; i++) {
    int ret = mc_selftest_run(i);
    const char *status = ret == 0 ? "ok" : ret == MC_ERR_UNSUPPORTED ? "skip" : "FAIL";
    printf("%-6s%s (%s)", status, mc_selftest_name(i), mc_selftest_detail(i));
    if (ret == MC_ERR_UNSUPPORTED)
      printf(": not available on this CPU");
    else if (ret != 0)
      printf(": %s", mc_strerror(ret));
    printf("\n");
    failed += ret != 0 && ret != MC_ERR_UNSUPPORTED;
  }
  if (fflush(stdout) != 0) {
    perror("msgcrypt: stdout");
    return EXIT_FAILED;
  }
  if (failed > 0)
    fprintf(stderr, "msgcrypt: %zu of %zu self-tests failed\n", failed, n);
  return failed > 0 ? EXIT_FAILED : EXIT_OK;
}

static const struct command commands[] = {
    {"selftest", "run every algorithm's known-answer self-test", cmd_selftest},
    {"describe",
     "describe OpenPGP keys or X.509 certificates (--cert): algorithms, fingerprints, warnings",
     msgcrypt_cmd_describe},
    {"encrypt", "encrypt stdin to OpenPGP keys (--key FILE... [--armor])", msgcrypt_cmd_encrypt},
    {"encrypt-mime",
     "turn the MIME message on stdin into PGP/MIME (--key FILE...) or S/MIME (--cert FILE...)",
     msgcrypt_cmd_encrypt_mime},
};

static void usage(FILE *f) {
  fprintf(f, "usage: msgcrypt COMMAND [ARGS]\n"
             "       msgcrypt --help | --version\n"
             "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "Exit status: 0 success, 1 a command failed, 2 usage error.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    // The library's version as loaded at run time.
    printf("msgcrypt (libmsgcrypt) %s\n", mc_version_string());
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "msgcrypt: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return EXIT_USAGE;
}
