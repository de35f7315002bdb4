// bench_chunks.c: what chunked blobs buy a partial fetch. One 20 MiB
// message (half mail text, half a base64 attachment of random bytes) is
// stored in two real stores, chunked (ms_settings.blob_chunk_size, default
// 256 KiB) and as one frame (chunking off, as format 4 stored it); then a
// 64 KiB range from the middle is read, in the same run and interleaved
// round by round, three ways: ms_message_read_range on the chunked blob,
// ms_message_read_range on the single frame (streams up to the range's
// end) and ms_message_read of the whole single-frame blob plus a copy of
// the range (what a reader without ranges does). It also prints the stored
// size of the message for several chunk sizes. One JSON object per line;
// the last line gives the ratios. Usage: bench_chunks [ROUNDS] (default
// 20).
#include "mailstore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MSG_LEN = 20 << 20, RANGE = 64 << 10 };

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Noreturn void die(const char *what, int rc) {
  fprintf(stderr, "bench_chunks: %s: %s\n", what, ms_strerror(rc));
  exit(1);
}

// make_message fills out (MSG_LEN bytes): a header, MSG_LEN / 2 bytes of
// text drawn from a word list, then base64 lines of pseudo-random bytes.
static void make_message(uint8_t *out) {
  static const char *const words[] = {
      "meeting", "report",   "quarterly", "budget", "release", "schedule", "please",
      "review",  "attached", "thanks",    "update", "project", "deadline", "the",
      "and",     "for",      "with",      "next",   "week",    "regards",  "question"};
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = (size_t)snprintf((char *)out, MSG_LEN,
                              "From: a@example.org\r\nTo: b@example.org\r\nSubject: big\r\n"
                              "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\n");
  uint32_t h = 12345;
  while (n < MSG_LEN / 2) {
    h = h * 1103515245u + 12345u;
    const char *w = words[(h >> 16) % 21];
    for (size_t i = 0; w[i] && n < MSG_LEN / 2; i++)
      out[n++] = (uint8_t)w[i];
    out[n++] = (h >> 24) % 12 == 0 ? '\n' : ' ';
  }
  const char *sep = "\r\n--b\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  memcpy(out + n, sep, strlen(sep));
  n += strlen(sep);
  unsigned col = 0;
  while (n < MSG_LEN) {
    h = h * 1103515245u + 12345u;
    out[n++] = (uint8_t)b64[(h >> 16) & 63];
    if (++col == 76 && n + 2 <= MSG_LEN) {
      out[n++] = '\r';
      out[n++] = '\n';
      col = 0;
    }
  }
}

struct one {
  char dir[64];
  ms_store *st;
  uint32_t acct;
  uint64_t id;
};

static void store_one(struct one *o, const uint8_t *msg, uint32_t chunk) {
  snprintf(o->dir, sizeof o->dir, "/tmp/bench-chunks-XXXXXX");
  if (!mkdtemp(o->dir)) {
    perror("mkdtemp");
    exit(1);
  }
  struct ms_settings set = {.blob_chunk_size = chunk,
                            .no_sync = 1,
                            .initial_map_size = 256u << 20,
                            .dict_train_after = UINT32_MAX};
  uint32_t box;
  int rc;
  if ((rc = ms_store_open(&o->st, o->dir, &set)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(o->st, &o->acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(o->st, &box, o->acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  if ((rc = ms_message_append(o->st, &o->id, NULL, o->acct, box, msg, MSG_LEN, 0, 0)) < 0)
    die("append", rc);
}

static void drop_one(struct one *o) {
  ms_store_close(o->st);
  char p[128];
  snprintf(p, sizeof p, "%s/data.mdb", o->dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/lock.mdb", o->dir);
  unlink(p);
  rmdir(o->dir);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  if (rounds < 1)
    rounds = 1;
  uint8_t *msg = malloc(MSG_LEN), *whole = malloc(MSG_LEN), *out = malloc(RANGE);
  if (!msg || !whole || !out)
    return 1;
  make_message(msg);

  // Stored size per chunk size (UINT32_MAX: one frame).
  static const uint32_t sizes[] = {64u << 10, 256u << 10, 1u << 20, 4u << 20, UINT32_MAX};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    struct one o;
    store_one(&o, msg, sizes[i]);
    struct ms_store_stats s;
    int rc = ms_store_stats_get(o.st, &s);
    if (rc < 0)
      die("stats", rc);
    printf("{\"bench\":\"stored_size\",\"impl\":\"%s\",\"chunk\":%" PRIu32
           ",\"bytes\":%d,\"stored\":%" PRIu64 ",\"ratio\":%.4f}\n",
           sizes[i] == UINT32_MAX ? "single" : "chunked", sizes[i] == UINT32_MAX ? 0 : sizes[i],
           MSG_LEN, s.blob_stored, (double)MSG_LEN / (double)s.blob_stored);
    drop_one(&o);
  }

  struct one chunked, single;
  store_one(&chunked, msg, 0);
  store_one(&single, msg, UINT32_MAX);
  const uint64_t off = MSG_LEN / 2 - RANGE / 2;
  uint64_t ns[3] = {0};
  for (int r = 0; r < rounds; r++) {
    size_t got;
    uint64_t t0 = now_ns();
    int rc =
        ms_message_read_range(chunked.st, out, RANGE, &got, chunked.acct, chunked.id, off, RANGE);
    uint64_t t1 = now_ns();
    if (rc < 0 || got != RANGE || memcmp(out, msg + off, RANGE) != 0)
      die("chunked range", rc < 0 ? rc : MS_ERR_CORRUPT);
    rc = ms_message_read_range(single.st, out, RANGE, &got, single.acct, single.id, off, RANGE);
    uint64_t t2 = now_ns();
    if (rc < 0 || got != RANGE || memcmp(out, msg + off, RANGE) != 0)
      die("single-frame range", rc < 0 ? rc : MS_ERR_CORRUPT);
    rc = ms_message_read(single.st, whole, MSG_LEN, &got, single.acct, single.id);
    if (rc == 0)
      memcpy(out, whole + off, RANGE);
    uint64_t t3 = now_ns();
    if (rc < 0 || got != MSG_LEN || memcmp(out, msg + off, RANGE) != 0)
      die("whole read", rc < 0 ? rc : MS_ERR_CORRUPT);
    ns[0] += t1 - t0;
    ns[1] += t2 - t1;
    ns[2] += t3 - t2;
  }
  static const char *const impl[3] = {"chunked_range", "single_frame_range", "whole_blob_read"};
  for (int i = 0; i < 3; i++)
    printf("{\"bench\":\"range_64k_of_20m\",\"impl\":\"%s\",\"bytes\":%d,\"items\":%d,"
           "\"ns\":%" PRIu64 ",\"us_per_read\":%.1f}\n",
           impl[i], RANGE * rounds, rounds, ns[i], (double)ns[i] / rounds / 1000.0);
  printf("{\"bench\":\"range_64k_of_20m\",\"impl\":\"ratio\",\"whole_over_chunked\":%.1f,"
         "\"single_frame_over_chunked\":%.1f}\n",
         (double)ns[2] / (double)ns[0], (double)ns[1] / (double)ns[0]);
  drop_one(&chunked);
  drop_one(&single);
  free(msg);
  free(whole);
  free(out);
  return 0;
}
