// mailctl.c: the administrators' command, a dispatcher to its command groups
// ("mailctl store ..." is in store.c); each group parses its own arguments.
// Exit status: 0 success, 1 the operation failed (message on standard
// error), 2 usage error.
#include <stdio.h>
#include <string.h>

#include "mailctl.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} groups[] = {
    {"store", mailctl_store_main, "create, fill, inspect, check and export message stores"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: mailctl GROUP COMMAND [ARGS]\ngroups:\n");
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
    fprintf(f, "  %-8s %s\n", groups[i].name, groups[i].summary);
  fprintf(f, "Run 'mailctl GROUP --help' for a group's commands.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
    if (strcmp(argv[1], groups[i].name) == 0)
      return groups[i].run(argc - 2, argv + 2);
  fprintf(stderr, "mailctl: unknown group '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
