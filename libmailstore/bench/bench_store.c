// bench_store.c: libmailstore's bulk-operation figures, one JSON line each
// (corvid_bench.h): durable delivery of 10 KiB messages, then on one large
// mailbox (built with no_sync) a move of 25,000 messages, an expunge of
// 25,000 and marking every message seen, each one durable transaction.
// Usage: bench_store [mailbox_size [deliveries]] (defaults 250000, 2000).
#include "corvid_bench.h"
#include "mailstore.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_store: %s: %s\n", what, ms_strerror(rc));
  exit(1);
}

static size_t message(char *buf, size_t cap, unsigned n, size_t body) {
  size_t len = (size_t)snprintf(buf, cap,
                                "From: a@example.org\r\nTo: b@example.org\r\nSubject: bench %u\r\n"
                                "Message-ID: <%u@bench.example>\r\n\r\n",
                                n, n);
  while (len + 2 < body && len + 2 < cap) {
    int k = snprintf(buf + len, cap - len, "line %u of message %u\r\n", (unsigned)len, n);
    len += (size_t)k;
  }
  return len < cap ? len : cap;
}

static void emit_once(const char *bench, uint64_t items, uint64_t ns) {
  struct corvid_bench_result r = {.min_ns = ns, .median_ns = ns, .reps = 1};
  corvid_bench_emit(stdout, bench, "corvid", 0, items, &r);
}

static void wipe(const char *dir) {
  char p[4200];
  const char *files[] = {"data.mdb", "lock.mdb"};
  for (int i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    unlink(p);
  }
}

int main(int argc, char **argv) {
  unsigned big = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 250000;
  unsigned deliveries = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2000;
  if (big < 50000)
    big = 50000;
  char dir[] = "/tmp/ms-bench-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  static char buf[16384];
  ms_store *st;
  uint32_t acct, inbox, other;
  int rc;

  // Durable delivery of 10 KiB messages.
  if ((rc = ms_store_open(&st, dir, NULL)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  uint64_t t0 = corvid_bench_now_ns();
  for (unsigned i = 0; i < deliveries; i++) {
    size_t len = message(buf, sizeof buf, i, 10240);
    if ((rc = ms_message_append(st, NULL, NULL, acct, inbox, (uint8_t *)buf, len, 0, i)) < 0)
      die("append", rc);
  }
  emit_once("deliver-10k-durable", deliveries, corvid_bench_now_ns() - t0);
  ms_store_close(st);
  wipe(dir);

  // The large mailbox, filled without fsync; the measured operations then
  // run durable.
  struct ms_settings fast = {.no_sync = 1};
  if ((rc = ms_store_open(&st, dir, &fast)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0 ||
      (rc = ms_mailbox_create(st, &other, acct, "Other", 5, 0)) < 0)
    die("setup", rc);
  t0 = corvid_bench_now_ns();
  for (unsigned i = 0; i < big; i++) {
    size_t len = message(buf, sizeof buf, i, 600);
    if ((rc = ms_message_append(st, NULL, NULL, acct, inbox, (uint8_t *)buf, len, 0, i)) < 0)
      die("append", rc);
  }
  emit_once("fill-nosync", big, corvid_bench_now_ns() - t0);
  ms_store_close(st);
  if ((rc = ms_store_open(&st, dir, NULL)) < 0)
    die("open", rc);
  uint32_t *uids = malloc(big * sizeof *uids);
  for (unsigned i = 0; i < big; i++)
    uids[i] = i + 1;
  t0 = corvid_bench_now_ns();
  if ((rc = ms_messages_move(st, NULL, acct, inbox, other, uids, 25000)) != 25000)
    die("move", rc);
  emit_once("move-25000", 25000, corvid_bench_now_ns() - t0);
  t0 = corvid_bench_now_ns();
  if ((rc = ms_messages_expunge(st, acct, inbox, uids + 25000, 25000)) != 25000)
    die("expunge", rc);
  emit_once("expunge-25000", 25000, corvid_bench_now_ns() - t0);
  t0 = corvid_bench_now_ns();
  if ((rc = ms_flags_store(st, acct, inbox, uids, big, MS_FLAG_SEEN, 0)) != (int)(big - 50000))
    die("flags", rc);
  emit_once("mark-all-seen", big - 50000, corvid_bench_now_ns() - t0);
  t0 = corvid_bench_now_ns();
  if ((rc = ms_store_verify(st)) < 0)
    die("verify", rc);
  emit_once("verify", big, corvid_bench_now_ns() - t0);
  free(uids);
  ms_store_close(st);
  wipe(dir);
  rmdir(dir);
  return 0;
}
