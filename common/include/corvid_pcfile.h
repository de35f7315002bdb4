// corvid_pcfile.h: reads the Version field of a pkg-config file, for the
// tests that check a library's header macros, its xx_version() and its .pc
// file agree. Private and header-only; used by tests only.
#ifndef CORVID_PCFILE_H
#define CORVID_PCFILE_H

#include <stdio.h>
#include <string.h>

// corvid_pc_version copies the value of the "Version:" line of the .pc file at
// `path` into `out` (NUL-terminated, at most `out_cap` - 1 bytes). It returns 1
// on success and 0 when the file cannot be read, has no such line, or the value
// does not fit.
static inline int corvid_pc_version(const char *path, char *out, size_t out_cap) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f) != NULL) {
    static const char key[] = "Version:";
    if (strncmp(line, key, sizeof key - 1) != 0)
      continue;
    const char *v = line + sizeof key - 1;
    while (*v == ' ' || *v == '\t')
      v++;
    size_t n = strcspn(v, " \t\r\n");
    if (n > 0 && n < out_cap) {
      memcpy(out, v, n);
      out[n] = '\0';
      found = 1;
    }
  }
  fclose(f);
  return found;
}

#endif // CORVID_PCFILE_H
