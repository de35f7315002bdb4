// replay_main.c: the standalone driver that lets a libFuzzer harness run
// without libFuzzer (CONVENTIONS §10, after libgit2's): it feeds every file of
// the corpus folders (or single files) named on the command line to
// LLVMFuzzerTestOneInput, each in a heap buffer of exactly its size so that
// ASan catches any read past the end, and prints TAP. Any library with a
// fuzz/ folder links it into its harnesses when the build has -Dfuzz=false.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// run_file replays one file; it returns 0 on success and -1 when the file
// cannot be read (a crash in the harness ends the process).
static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return -1;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf != NULL && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL)
    return -1;
  uint8_t *exact = malloc(n ? n : 1); // exactly n bytes: ASan sees overreads
  if (exact == NULL) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(n ? exact : NULL, n);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize(&argc, &argv);
  char **files = NULL;
  size_t nfiles = 0, cap = 0;
  for (int a = 1; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st) != 0) {
      printf("Bail out! cannot open %s\n", argv[a]);
      return 1;
    }
    DIR *d = S_ISDIR(st.st_mode) ? opendir(argv[a]) : NULL;
    struct dirent *e;
    do {
      const char *name = argv[a];
      char *path;
      if (d != NULL) {
        e = readdir(d);
        if (e == NULL)
          break;
        if (e->d_name[0] == '.')
          continue;
        size_t len = strlen(argv[a]) + strlen(e->d_name) + 2;
        path = malloc(len);
        if (path != NULL)
          snprintf(path, len, "%s/%s", argv[a], e->d_name);
      } else {
        e = NULL;
        path = strdup(name);
      }
      if (path == NULL)
        return 1;
      if (nfiles == cap) {
        cap = cap ? cap * 2 : 64;
        char **nf = realloc(files, cap * sizeof *files);
        if (nf == NULL)
          return 1;
        files = nf;
      }
      files[nfiles++] = path;
    } while (d != NULL);
    if (d != NULL)
      closedir(d);
  }
  if (nfiles > 1)
    qsort(files, nfiles, sizeof *files, cmp);
  printf("TAP version 13\n1..%zu\n", nfiles);
  int failed = 0;
  for (size_t i = 0; i < nfiles; i++) {
    int rc = run_file(files[i]);
    printf("%s %zu - %s\n", rc == 0 ? "ok" : "not ok", i + 1, files[i]);
    fflush(stdout);
    failed |= rc != 0;
    free(files[i]);
  }
  free(files);
  // Also run the empty input, which no corpus file needs to spell out.
  LLVMFuzzerTestOneInput(NULL, 0);
  return failed;
}
