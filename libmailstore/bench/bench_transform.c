// bench_transform.c: what storing Base64 bodies decoded (FORMAT.md
// "Transforms") costs at delivery and saves in space, against the same
// store without it (ms_settings.no_transform) in the same run: every .eml
// file of a directory (mkcorpus --format eml) delivered in batches of 64
// into a fresh store (no_sync, so the figures are the CPU of hashing,
// parsing, transforming and compressing plus LMDB, not fsync), the two
// configurations alternating for `rounds` rounds; then a whole read of
// every message from each store. One JSON line per figure (corvid_bench.h):
// deliveries ("store_transform_deliver") and reads ("store_transform_read"),
// each with the fastest round; then "store_transform_size" lines with the
// stored blob bytes in `bytes`.
// Usage: bench_transform DIR [ROUNDS] (default 3).
#include "corvid_bench.h"
#include "mailstore.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH 64

struct mail {
  uint8_t *data;
  size_t len;
};

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_transform: %s: %s\n", what, ms_strerror(rc));
  exit(1);
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// load reads every regular file of dir, in name order.
static struct mail *load(const char *dir, size_t *n, uint64_t *bytes) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    exit(1);
  }
  char **names = NULL;
  size_t cap = 0, k = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    if (k == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 1024) * sizeof *names)))
      exit(1);
    names[k++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, k, sizeof *names, cmp_name);
  struct mail *m = calloc(k ? k : 1, sizeof *m);
  *bytes = 0;
  for (size_t i = 0; i < k; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    FILE *f = fopen(p, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !(m[i].data = malloc((size_t)st.st_size + 1)) ||
        fread(m[i].data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
      perror(p);
      exit(1);
    }
    fclose(f);
    m[i].len = (size_t)st.st_size;
    *bytes += m[i].len;
    free(names[i]);
  }
  free(names);
  *n = k;
  return m;
}

// run delivers every message into a fresh store, then reads each back
// whole and compares it; returns the delivery and read times and the
// stored blob bytes.
static void run(const struct mail *m, size_t n, int transform, uint64_t *deliver_ns,
                uint64_t *read_ns, uint64_t *stored) {
  char dir[] = "/tmp/bench_transform.XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(1);
  }
  struct ms_settings set = {.no_sync = 1, .no_transform = !transform};
  ms_store *st;
  uint32_t acct, box;
  int rc;
  if ((rc = ms_store_open(&st, dir, &set)) < 0 ||
      (rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &box, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  struct ms_delivery items[BATCH];
  uint64_t *ids = malloc(n * sizeof *ids);
  uint64_t t0 = corvid_bench_now_ns();
  for (size_t i = 0; i < n; i += BATCH) {
    size_t k = n - i < BATCH ? n - i : BATCH;
    for (size_t j = 0; j < k; j++)
      items[j] = (struct ms_delivery){
          .account = acct, .mailbox = box, .data = m[i + j].data, .len = m[i + j].len};
    if ((rc = ms_messages_deliver(st, items, k)) != (int)k)
      die("deliver", rc < 0 ? rc : items[0].status);
    for (size_t j = 0; j < k; j++)
      ids[i + j] = items[j].message_id;
  }
  *deliver_ns = corvid_bench_now_ns() - t0;
  size_t cap = 0;
  for (size_t i = 0; i < n; i++)
    cap = m[i].len > cap ? m[i].len : cap;
  uint8_t *buf = malloc(cap + 1);
  t0 = corvid_bench_now_ns();
  for (size_t i = 0; i < n; i++) {
    size_t got;
    if ((rc = ms_message_read(st, buf, cap, &got, acct, ids[i])) < 0)
      die("read", rc);
    if (got != m[i].len || memcmp(buf, m[i].data, got) != 0) {
      fprintf(stderr, "bench_transform: message %zu reads back wrong\n", i);
      exit(1);
    }
  }
  *read_ns = corvid_bench_now_ns() - t0;
  struct ms_store_stats s;
  if ((rc = ms_store_stats_get(st, &s)) < 0)
    die("stats", rc);
  *stored = s.blob_stored;
  ms_store_close(st);
  free(buf);
  free(ids);
  char p[64];
  snprintf(p, sizeof p, "%s/data.mdb", dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/lock.mdb", dir);
  unlink(p);
  rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_transform DIR [ROUNDS]\n");
    return 2;
  }
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
  if (rounds < 1 || rounds > CORVID_BENCH_MAX_REPS)
    rounds = 3;
  size_t n;
  uint64_t bytes;
  struct mail *m = load(argv[1], &n, &bytes);
  if (n == 0) {
    fprintf(stderr, "bench_transform: no files in %s\n", argv[1]);
    return 1;
  }
  uint64_t dl[2][CORVID_BENCH_MAX_REPS], rd[2][CORVID_BENCH_MAX_REPS], stored[2] = {0, 0};
  for (unsigned r = 0; r < rounds; r++)
    for (int t = 0; t < 2; t++)
      run(m, n, t, &dl[t][r], &rd[t][r], &stored[t]);
  static const char *const impl[2] = {"plain", "transform"};
  for (int t = 0; t < 2; t++) {
    struct corvid_bench_result res;
    corvid_bench_reduce(&res, dl[t], rounds);
    corvid_bench_emit(stdout, "store_transform_deliver", impl[t], bytes, n, &res);
    corvid_bench_reduce(&res, rd[t], rounds);
    corvid_bench_emit(stdout, "store_transform_read", impl[t], bytes, n, &res);
  }
  for (int t = 0; t < 2; t++)
    printf("{\"bench\":\"store_transform_size\",\"impl\":\"%s\",\"bytes\":%llu,\"items\":%zu,"
           "\"raw_bytes\":%llu}\n",
           impl[t], (unsigned long long)stored[t], n, (unsigned long long)bytes);
  for (size_t i = 0; i < n; i++)
    free(m[i].data);
  free(m);
  return 0;
}
