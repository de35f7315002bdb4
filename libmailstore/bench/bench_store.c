// bench_store.c: libmailstore's bulk-operation figures, one JSON line each
// (corvid_bench.h): durable delivery of 10 KiB messages by 1, 8 and 64
// concurrent threads (group commit) and through the batch API (also with
// zstd level 1 instead of the default 3), then on one large mailbox (built
// with no_sync) opening it and listing UIDs and flags, a second flag fetch,
// a sort by date and THREAD=REFERENCES, then a move of 25,000 messages, an
// expunge of 25,000, marking every message seen and adding the keyword
// $Junk to every message, each one durable transaction.
// Usage: bench_store [mailbox_size [deliveries]] (defaults 250000, 2000:
// deliveries per single-thread run; the concurrent runs deliver 10 times as
// many; 0 skips delivery). Commit grouping (messages per commit) goes to
// stderr. bench_store --write-mbox FILE N writes the large mailbox's N
// messages as an mbox for dovecot_compare.py, which runs Dovecot's side.
// bench_store --sort N times SORT and THREAD over N list-like messages.
// bench_store --index N times flag fetch, sorts and changed-since
// over N messages without and with the packed mailbox index.
// bench_store --deliver N [DIR [M]] runs only the durable delivery rows
// (N deliveries per single-thread run), and with DIR (mkcorpus --format
// eml) the same rows over the first M (default 2000) of its messages,
// named "deliver-corpus-...". CPU per message goes to stderr.
// bench_store --deliver-row THREADS TOTAL BATCH [dict] runs one delivery
// row alone (for profilers). The --deliver rows run again with "-dict": with
// a dictionary trained first, as a store that has delivered 5,000
// messages has one (the first rows leave training out).
#include "corvid_bench.h"
#include "mailstore.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_store: %s: %s\n", what, ms_strerror(rc));
  exit(1);
}

// message builds message n of about `body` bytes: a unique header and text
// of pseudo-random words that compresses about as well as real mail. The
// text comes from a table made once, so that the figures measure the store,
// not this generator.
static size_t message(char *buf, size_t cap, unsigned n, size_t body) {
  static char text[65536];
  static size_t text_len;
  if (!text_len) {
    static const char *const words[] = {
        "the",     "message",  "store",  "delivery", "commit",   "mailbox", "server",  "report",
        "meeting", "tomorrow", "please", "review",   "attached", "thanks",  "regards", "project",
        "budget",  "schedule", "update", "question", "answer",   "draft",   "final",   "numbers"};
    uint32_t x = 2463534242u;
    size_t col = 0;
    while (text_len + 16 < sizeof text) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      const char *w = words[x % 24];
      size_t wl = strlen(w);
      memcpy(text + text_len, w, wl);
      text_len += wl;
      col += wl + 1;
      if (col > 70) {
        memcpy(text + text_len, "\r\n", 2);
        text_len += 2;
        col = 0;
      } else {
        text[text_len++] = ' ';
      }
    }
  }
  size_t len = (size_t)snprintf(buf, cap,
                                "From: a@example.org\r\nTo: b@example.org\r\nSubject: bench %u\r\n"
                                "Message-ID: <%u@bench.example>\r\n\r\n",
                                n, n);
  size_t want = body > len + 2 ? body - len - 2 : 0;
  size_t off = (n * 4099u) % (text_len - want > 0 ? text_len - want : 1);
  if (want > cap - len - 2)
    want = cap - len - 2;
  memcpy(buf + len, text + off, want);
  // A message ends with a line end.
  memcpy(buf + len + want, "\r\n", 2);
  return len + want + 2;
}

// cpu_ns is the process's CPU time (all threads); mark() notes it when a
// measurement starts, and emit_once reports the CPU time next to the wall
// time on stderr, which separates waiting for the disk (and for a busy
// machine) from work.
static uint64_t cpu_mark;

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mark(void) {
  cpu_mark = cpu_ns();
  return corvid_bench_now_ns();
}

static void emit_once(const char *bench, uint64_t items, uint64_t ns) {
  struct corvid_bench_result r = {.min_ns = ns, .median_ns = ns, .reps = 1};
  corvid_bench_emit(stdout, bench, "corvid", 0, items, &r);
  fprintf(stderr, "%s: wall %.1f ms, cpu %.1f ms\n", bench, (double)ns / 1e6,
          (double)(cpu_ns() - cpu_mark) / 1e6);
}

static void wipe(const char *dir) {
  char p[4200];
  const char *files[] = {"data.mdb", "lock.mdb"};
  for (int i = 0; i < 2; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, files[i]);
    unlink(p);
  }
}

// corpus holds the messages of --deliver's DIR; when ncorpus is not 0 the
// delivery runs store corpus[n % ncorpus] as message n instead of a
// generated 10 KiB one.
struct corpus_msg {
  uint8_t *data;
  size_t len;
};
static struct corpus_msg *corpus;
static size_t ncorpus;

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// corpus_load reads the first `max` regular files of dir, in name order.
static void corpus_load(const char *dir, size_t max) {
  DIR *d = opendir(dir);
  if (!d)
    die(dir, -2);
  char **names = NULL;
  size_t cap = 0, k = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    if (k == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 1024) * sizeof *names)))
      die("malloc", -12);
    names[k++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, k, sizeof *names, cmp_name);
  corpus = calloc(k ? k : 1, sizeof *corpus);
  if (!corpus)
    die("malloc", -12);
  for (size_t i = 0; i < k; i++) {
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    free(names[i]);
    if (ncorpus >= max)
      continue;
    FILE *f = fopen(p, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || st.st_size == 0 ||
        !(corpus[ncorpus].data = malloc((size_t)st.st_size)) ||
        fread(corpus[ncorpus].data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
      die(p, -5);
    fclose(f);
    corpus[ncorpus++].len = (size_t)st.st_size;
  }
  free(names);
}

struct dworker {
  ms_store *st;
  uint32_t acct, box;
  unsigned first, count, batch;
};

static void *deliver_thread(void *p) {
  struct dworker *w = p;
  char(*bufs)[16384] = malloc(w->batch * sizeof *bufs);
  struct ms_delivery *d = calloc(w->batch, sizeof *d);
  if (!bufs || !d)
    die("malloc", -12);
  for (unsigned i = 0; i < w->count; i += w->batch) {
    unsigned k = w->count - i < w->batch ? w->count - i : w->batch;
    for (unsigned j = 0; j < k; j++) {
      d[j] = (struct ms_delivery){.account = w->acct, .mailbox = w->box};
      if (ncorpus) {
        const struct corpus_msg *m = &corpus[(w->first + i + j) % ncorpus];
        d[j].data = m->data;
        d[j].len = m->len;
      } else {
        d[j].len = message(bufs[j], sizeof bufs[j], w->first + i + j, 10240);
        d[j].data = (uint8_t *)bufs[j];
      }
    }
    int rc = ms_messages_deliver(w->st, d, k);
    if (rc != (int)k)
      die("deliver", rc < 0 ? rc : d[0].status);
  }
  free(bufs);
  free(d);
  return NULL;
}

// DICT_WARM is how many messages a "-dict" row delivers (untimed) to
// train the store's dictionary on before its timed part: a store that has
// delivered dict_train_after (5,000) messages compresses with one, so that
// is the steady state of delivery.
#define DICT_WARM 2000

// deliver_warm delivers DICT_WARM messages, numbered after the timed
// ones, in batches of 100 and trains the dictionary on them.
static void deliver_warm(ms_store *st, uint32_t acct, uint32_t box, unsigned first) {
  struct dworker w = {st, acct, box, first, DICT_WARM, 100};
  deliver_thread(&w);
  int rc = ms_store_train(st, NULL, 0);
  if (rc < 0)
    die("train", rc);
}

// deliver_run delivers `total` 10 KiB messages, durably, from `threads`
// threads calling with `batch` messages per call, into a fresh store (with
// `dict`, one that first trained a dictionary, deliver_warm).
static void deliver_run(const char *dir, unsigned threads, unsigned total, unsigned batch,
                        int level, int dict) {
  ms_store *st;
  uint32_t acct, inbox;
  int rc;
  // The store's one-time dictionary training (a few seconds, in one
  // delivering thread) would land inside the timed loop: leave it out, so
  // that this measures the delivery path itself.
  struct ms_settings set = {.compression_level = level, .dict_train_after = UINT32_MAX};
  if ((rc = ms_store_open(&st, dir, &set)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  struct ms_store_counters k0 = {0};
  if (dict && (deliver_warm(st, acct, inbox, total), ms_store_counters_get(st, &k0) < 0))
    die("counters", -5);
  struct dworker *w = calloc(threads, sizeof *w);
  pthread_t *th = calloc(threads, sizeof *th);
  uint64_t t0 = mark();
  for (unsigned i = 0; i < threads; i++) {
    w[i] = (struct dworker){st, acct, inbox, i * (total / threads), total / threads, batch};
    if (pthread_create(&th[i], NULL, deliver_thread, &w[i]) != 0)
      die("pthread_create", -11);
  }
  for (unsigned i = 0; i < threads; i++)
    pthread_join(th[i], NULL);
  uint64_t ns = corvid_bench_now_ns() - t0;
  char name[80], b[24] = "";
  if (batch > 1)
    snprintf(b, sizeof b, "-batch%u", batch);
  snprintf(name, sizeof name, "deliver-%s-durable%s-t%u%s%s", ncorpus ? "corpus" : "10k", b,
           threads, level == 1 ? "-zstd1" : "", dict ? "-dict" : "");
  emit_once(name, threads * (total / threads), ns);
  fprintf(stderr, "%s: %.1f us cpu per message\n", name,
          (double)(cpu_ns() - cpu_mark) / 1e3 / (double)(threads * (total / threads)));
  struct ms_store_counters k;
  if (ms_store_counters_get(st, &k) == 0) {
    k.delivered -= k0.delivered; // leave out deliver_warm's
    k.commits -= k0.commits;
    k.syncs -= k0.syncs;
    fprintf(stderr,
            "%s: %llu messages in %llu commits (%.1f per commit, largest %llu), %llu syncs\n", name,
            (unsigned long long)k.delivered, (unsigned long long)k.commits,
            k.commits ? (double)k.delivered / (double)k.commits : 0.0,
            (unsigned long long)k.largest, (unsigned long long)k.syncs);
  }
  free(w);
  free(th);
  ms_store_close(st);
  wipe(dir);
}

// write_mbox writes the large mailbox's messages (the same bytes the fill
// below stores, with LF line ends) as an mbox, for the Dovecot side of the
// comparison (dovecot_compare.py). The generator has no "From " lines, so
// no mboxrd quoting is needed.
static int write_mbox(const char *path, unsigned n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return 1;
  static char buf[16384];
  for (unsigned i = 0; i < n; i++) {
    size_t len = message(buf, sizeof buf, i, 600);
    fprintf(f, "From a@example.org Mon Jan  1 00:00:00 2024\n");
    for (size_t k = 0; k < len; k++)
      if (buf[k] != '\r')
        fputc(buf[k], f);
    fputs("\n", f);
  }
  return fclose(f) != 0;
}

// sort_index_pass times, on a handle of its own, whole-mailbox sorts by
// each string key (and by date, for scale): with the packed index off
// (index_max_bytes 1: sort.c loads every summary, as before the key
// columns) or on, then cold (array and key column made), again (the
// order kept with the array), and after a flag change elsewhere (a new
// array carrying the key column over, sorted again).
static void sort_index_pass(const char *dir, uint32_t acct, uint32_t box, unsigned n, int on) {
  struct ms_settings set = {
      .no_sync = 1, .dict_train_after = UINT32_MAX, .index_max_bytes = on ? 0 : 1};
  ms_store *st;
  int rc;
  if ((rc = ms_store_open(&st, dir, &set)) < 0)
    die("open", rc);
  uint32_t *out = malloc((size_t)n * sizeof *out);
  if (!out)
    die("malloc", -12);
  static const struct {
    const char *name;
    uint32_t key;
  } keys[] = {{"date", MS_SORT_DATE}, {"subject", MS_SORT_SUBJECT},
              {"from", MS_SORT_FROM}, {"to", MS_SORT_TO},
              {"cc", MS_SORT_CC},     {"displayfrom", MS_SORT_DISPLAYFROM}};
  static const char *const when[] = {"-first", "-again", "-after-change"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    for (int rep = 0; rep < (on ? 3 : 1); rep++) {
      if (rep == 2) {
        uint32_t u = 1 + (uint32_t)k;
        if ((rc = ms_flags_store(st, acct, box, &u, 1, MS_FLAG_FLAGGED, 0)) < 0)
          die("flags", rc);
      }
      char name[64];
      snprintf(name, sizeof name, "%s-sort-%s%s", on ? "index" : "noindex", keys[k].name,
               on ? when[rep] : "");
      size_t got;
      uint64_t t0 = mark();
      if ((rc = ms_mailbox_sort(st, out, n, &got, NULL, acct, box, NULL, 0, &keys[k].key, 1, 0)) <
              0 ||
          got != n)
        die("sort", rc);
      emit_once(name, n, corvid_bench_now_ns() - t0);
    }
  }
  free(out);
  ms_store_close(st);
}

// sort_thread_run (bench_store --sort N) fills a store with N messages
// that look like a mailing list's (a thousand senders, dated over a year
// in several zones, four in five replying to one of the previous 2,000
// with References and "Re:", one in three with a Cc), then times SORT
// by each key with the packed index off and on (sort_index_pass), and on
// a default handle SORT by date, by subject, by from, a first page of 50 by reverse date, and
// THREAD REFERENCES and ORDEREDSUBJECT over the whole mailbox, each from a cold call.
static void sort_thread_run(unsigned n) {
  char dir[] = "/tmp/ms-bench-XXXXXX";
  if (!mkdtemp(dir))
    die("mkdtemp", -5);
  struct ms_settings fast = {.no_sync = 1, .dict_train_after = UINT32_MAX};
  ms_store *st;
  uint32_t acct, box;
  int rc;
  if ((rc = ms_store_open(&st, dir, &fast)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &box, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  uint32_t *parent = malloc(n * sizeof *parent);
  if (!parent)
    die("malloc", -12);
  static char buf[4096];
  uint32_t x = 88172645u;
  uint64_t t0 = mark();
  for (unsigned i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    parent[i] = i > 0 && x % 5 ? i - 1 - (x >> 8) % (i < 2000 ? i : 2000) : UINT32_MAX;
    unsigned topic = i;
    char refs[600] = "";
    size_t ro = 0;
    for (uint32_t p = parent[i], k = 0; p != UINT32_MAX && k < 10; p = parent[p], k++) {
      // Written nearest first here; References wants the oldest first, so
      // each id goes in front.
      char one[40];
      int l = snprintf(one, sizeof one, "<%u@list.example> ", p);
      memmove(refs + l, refs, ro + 1);
      memcpy(refs, one, (size_t)l);
      ro += (size_t)l;
      topic = p;
    }
    // One in three carries a Cc of another sender (SORT CC has keys).
    char cc[64] = "";
    if (x % 3 == 0)
      snprintf(cc, sizeof cc, "Cc: user%u@example.org\r\n", (x >> 13) % 1000);
    int len = snprintf(buf, sizeof buf,
                       "From: User %u <user%u@example.org>\r\nTo: list@example.org\r\n%s"
                       "Date: %u Mar 2024 %02u:%02u:%02u %c%02u00\r\n"
                       "Subject: %stopic %u\r\nMessage-ID: <%u@list.example>\r\n"
                       "%s%s%s\r\nSome text of message %u.\r\n",
                       (x >> 3) % 1000, (x >> 3) % 1000, cc, 1 + (x >> 5) % 28, (x >> 7) % 24,
                       (x >> 11) % 60, (x >> 17) % 60, (x >> 23) % 2 ? '+' : '-', (x >> 24) % 10,
                       parent[i] != UINT32_MAX ? "Re: " : "", topic, i, ro ? "References: " : "",
                       refs, ro ? "\r\n" : "", i);
    if ((rc = ms_message_append(st, NULL, NULL, acct, box, (uint8_t *)buf, (size_t)len, 0,
                                1700000000 + i)) < 0)
      die("append", rc);
  }
  emit_once("sort-fill-nosync", n, corvid_bench_now_ns() - t0);
  ms_store_close(st);
  sort_index_pass(dir, acct, box, n, 0);
  sort_index_pass(dir, acct, box, n, 1);
  if ((rc = ms_store_open(&st, dir, &fast)) < 0)
    die("open", rc);
  uint32_t *out = malloc(n * sizeof *out);
  size_t cap = (size_t)n * MS_THREAD_BYTES_PER_MESSAGE + 2, got = 0;
  char *text = malloc(cap);
  if (!out || !text)
    die("malloc", -12);
  static const struct {
    const char *name;
    uint32_t key;
    size_t cap;
  } sorts[] = {{"sort-date", MS_SORT_DATE, 0},
               {"sort-subject", MS_SORT_SUBJECT, 0},
               {"sort-from", MS_SORT_FROM, 0},
               {"sort-date-reverse-page50", MS_SORT_DATE | MS_SORT_REVERSE, 50}};
  for (size_t i = 0; i < sizeof sorts / sizeof sorts[0]; i++) {
    t0 = mark();
    if ((rc = ms_mailbox_sort(st, out, sorts[i].cap ? sorts[i].cap : n, &got, NULL, acct, box, NULL,
                              0, &sorts[i].key, 1, 0)) < 0)
      die("sort", rc);
    emit_once(sorts[i].name, n, corvid_bench_now_ns() - t0);
  }
  static const struct {
    const char *name;
    int algorithm;
  } threads[] = {{"thread-references", MS_THREAD_REFERENCES},
                 {"thread-orderedsubject", MS_THREAD_ORDEREDSUBJECT}};
  for (size_t i = 0; i < 2; i++) {
    size_t nt = 0;
    t0 = mark();
    if ((rc = ms_mailbox_thread(st, text, cap, &got, &nt, acct, box, NULL, 0,
                                threads[i].algorithm)) < 0)
      die("thread", rc);
    emit_once(threads[i].name, n, corvid_bench_now_ns() - t0);
    fprintf(stderr, "%s: %zu threads, %zu bytes\n", threads[i].name, nt, got);
  }
  free(text);
  free(out);
  free(parent);
  ms_store_close(st);
  wipe(dir);
  rmdir(dir);
}

// index_pass times, on one open handle, a whole-mailbox flag fetch
// (ms_mailbox_list), the same with keywords (ms_mailbox_list_keywords), sorts by arrival and by
// sent date and a CONDSTORE changed-since scan; with the packed index on, each twice: the first
// fetch builds the array, the first single-key sort keeps its order with it.
static void index_pass(const char *dir, uint32_t acct, uint32_t box, unsigned n, int on) {
  struct ms_settings set = {.no_sync = 1, .index_max_bytes = on ? 0 : 1};
  ms_store *st;
  int rc;
  if ((rc = ms_store_open(&st, dir, &set)) < 0)
    die("open", rc);
  struct ms_entry *e = malloc((size_t)n * sizeof *e);
  struct ms_keyword_entry *ke = malloc((size_t)n * sizeof *ke);
  uint32_t *kids = malloc((size_t)n * 4 * sizeof *kids);
  uint32_t *out = malloc((size_t)n * sizeof *out), key = MS_SORT_ARRIVAL, van[1];
  if (!e || !out || !ke || !kids)
    die("malloc", -12);
  size_t got, nv, nk;
  char name[64];
  const char *tag = on ? "index" : "noindex";
  for (int rep = 0; rep < (on ? 2 : 1); rep++) {
    const char *when = on ? (rep ? "-again" : "-first") : "";
    snprintf(name, sizeof name, "%s-fetch-flags%s", tag, when);
    uint64_t t0 = mark();
    if ((rc = ms_mailbox_list(st, e, n, &got, acct, box, 0)) < 0 || got != n)
      die("list", rc);
    emit_once(name, n, corvid_bench_now_ns() - t0);
    // The same fetch with keywords (FETCH FLAGS when the mailbox has
    // keywords: ms_mailbox_list_keywords).
    snprintf(name, sizeof name, "%s-fetch-flags-keywords%s", tag, when);
    t0 = mark();
    if ((rc = ms_mailbox_list_keywords(st, ke, n, &got, kids, (size_t)n * 4, &nk, acct, box, 0)) <
            0 ||
        got != n)
      die("list keywords", rc);
    emit_once(name, n, corvid_bench_now_ns() - t0);
    snprintf(name, sizeof name, "%s-sort-arrival%s", tag, when);
    t0 = mark();
    if ((rc = ms_mailbox_sort(st, out, n, &got, NULL, acct, box, NULL, 0, &key, 1, 0)) < 0)
      die("sort", rc);
    emit_once(name, n, corvid_bench_now_ns() - t0);
    snprintf(name, sizeof name, "%s-sort-date%s", tag, when);
    uint32_t dkey = MS_SORT_DATE;
    t0 = mark();
    if ((rc = ms_mailbox_sort(st, out, n, &got, NULL, acct, box, NULL, 0, &dkey, 1, 0)) < 0)
      die("sort", rc);
    emit_once(name, n, corvid_bench_now_ns() - t0);
    snprintf(name, sizeof name, "%s-changed-since%s", tag, when);
    t0 = mark();
    if ((rc = ms_mailbox_changes(st, e, n, &got, van, 0, &nv, acct, box, e[n - 100].modseq)) < 0 &&
        rc != MS_ERR_LIMIT)
      die("changes", rc);
    emit_once(name, n, corvid_bench_now_ns() - t0);
  }
  if (on) {
    // One flag change elsewhere: the next fetch rebuilds, reusing each
    // message's size, date and thread from the previous array.
    uint32_t u = e[0].uid;
    if ((rc = ms_flags_store(st, acct, box, &u, 1, MS_FLAG_FLAGGED, 0)) < 0)
      die("flags", rc);
    uint64_t t0 = mark();
    if ((rc = ms_mailbox_list(st, e, n, &got, acct, box, 0)) < 0)
      die("list", rc);
    emit_once("index-fetch-flags-rebuild", n, corvid_bench_now_ns() - t0);
  }
  free(e);
  free(ke);
  free(kids);
  free(out);
  ms_store_close(st);
}

// index_run (bench_store --index N) fills one mailbox with N small
// messages, sets four keywords on part of them, then runs index_pass without and with the packed
// index.
static void index_run(unsigned n) {
  char dir[] = "/tmp/ms-bench-XXXXXX";
  if (!mkdtemp(dir))
    die("mkdtemp", -5);
  struct ms_settings fast = {.no_sync = 1, .dict_train_after = UINT32_MAX, .compression_level = 1};
  ms_store *st;
  uint32_t acct, box;
  int rc;
  if ((rc = ms_store_open(&st, dir, &fast)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &box, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0)
    die("setup", rc);
  static char bufs[1000][400];
  static struct ms_delivery d[1000];
  uint64_t t0 = mark();
  for (unsigned i = 0; i < n; i += 1000) {
    unsigned k = n - i < 1000 ? n - i : 1000;
    for (unsigned j = 0; j < k; j++)
      d[j] = (struct ms_delivery){.account = acct,
                                  .mailbox = box,
                                  .flags = (i + j) % 3 ? MS_FLAG_SEEN : 0,
                                  .internal_date = 1700000000 + (int64_t)((i + j) * 7919u % n),
                                  .data = (const uint8_t *)bufs[j],
                                  .len = message(bufs[j], sizeof bufs[j], i + j, 100 + j % 200)};
    if ((rc = ms_messages_deliver(st, d, k)) != (int)k)
      die("deliver", rc < 0 ? rc : d[0].status);
  }
  emit_once("index-fill-nosync", n, corvid_bench_now_ns() - t0);
  // Keywords on part of the mailbox, as a client's labels would be: four
  // keywords on every 3rd, 5th, 7th and 11th message.
  uint32_t *uids = malloc((size_t)n * sizeof *uids);
  if (!uids)
    die("malloc", -12);
  static const char *const kw[] = {"$Forwarded", "work", "$Junk", "later"};
  static const unsigned every[] = {3, 5, 7, 11};
  for (size_t k = 0; k < 4; k++) {
    size_t nu = 0;
    for (unsigned i = 0; i < n; i += every[k])
      uids[nu++] = i + 1; // UIDs are 1..n in a fresh mailbox
    size_t len = strlen(kw[k]);
    if ((rc = ms_keywords_store(st, acct, box, uids, nu, MS_KEYWORDS_ADD, &kw[k], &len, 1)) < 0)
      die("keywords", rc);
  }
  free(uids);
  ms_store_close(st);
  index_pass(dir, acct, box, n, 0);
  index_pass(dir, acct, box, n, 1);
  wipe(dir);
  rmdir(dir);
}

// read_ops times, on the large mailbox before the bulk writes, what a
// client does when it opens the mailbox (dovecot_compare.py runs the same
// as IMAP commands on Dovecot): open the store and list every message's UID
// and flags (the packed index built by this first list), fetch the flags
// of every message again, sort by date and THREAD=REFERENCES, each one call.
static void read_ops(const char *dir, uint32_t acct, uint32_t box, unsigned n) {
  ms_store *st;
  int rc;
  struct ms_entry *e = malloc((size_t)n * sizeof *e);
  uint32_t *out = malloc((size_t)n * sizeof *out), key = MS_SORT_DATE;
  size_t cap = (size_t)n * MS_THREAD_BYTES_PER_MESSAGE + 2, got = 0, nt = 0;
  char *text = malloc(cap);
  if (!e || !out || !text)
    die("malloc", -12);
  uint64_t t0 = mark();
  if ((rc = ms_store_open(&st, dir, NULL)) < 0)
    die("open", rc);
  if ((rc = ms_mailbox_list(st, e, n, &got, acct, box, 0)) < 0 || got != n)
    die("list", rc);
  emit_once("open-list", n, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_mailbox_list(st, e, n, &got, acct, box, 0)) < 0 || got != n)
    die("list", rc);
  emit_once("fetch-flags", n, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_mailbox_sort(st, out, n, &got, NULL, acct, box, NULL, 0, &key, 1, 0)) < 0 ||
      got != n)
    die("sort", rc);
  emit_once("sort-date", n, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_mailbox_thread(st, text, cap, &got, &nt, acct, box, NULL, 0, MS_THREAD_REFERENCES)) <
      0)
    die("thread", rc);
  emit_once("thread-references", n, corvid_bench_now_ns() - t0);
  fprintf(stderr, "thread-references: %zu threads, %zu bytes\n", nt, got);
  ms_store_close(st);
  free(e);
  free(out);
  free(text);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--index") == 0) {
    index_run((unsigned)strtoul(argv[2], NULL, 10));
    return 0;
  }
  if (argc >= 3 && argc <= 5 && strcmp(argv[1], "--deliver") == 0) {
    unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
    char dir[] = "/tmp/ms-bench-XXXXXX";
    if (!mkdtemp(dir))
      return 1;
    char warm[256];
    message(warm, sizeof warm, 0, 100); // builds the text table before threads use it
    for (int pass = 0; pass < (argc > 3 ? 2 : 1); pass++) {
      if (pass == 1)
        corpus_load(argv[3], argc > 4 ? strtoul(argv[4], NULL, 10) : 2000);
      deliver_run(dir, 1, n, 1, 0, 0);
      deliver_run(dir, 8, n * 10, 1, 0, 0);
      deliver_run(dir, 64, n * 10, 1, 0, 0);
      deliver_run(dir, 1, n * 10, 100, 0, 0);
      deliver_run(dir, 2, n * 10, 100, 0, 0);
      deliver_run(dir, 64, n * 10, 1, 0, 1);
      deliver_run(dir, 1, n * 10, 100, 0, 1);
    }
    for (size_t i = 0; i < ncorpus; i++)
      free(corpus[i].data);
    free(corpus);
    rmdir(dir);
    return 0;
  }
  if ((argc == 5 || (argc == 6 && strcmp(argv[5], "dict") == 0)) &&
      strcmp(argv[1], "--deliver-row") == 0) {
    // One row alone, for profiling: THREADS TOTAL BATCH [dict].
    char dir[] = "/tmp/ms-bench-XXXXXX";
    if (!mkdtemp(dir))
      return 1;
    char warm[256];
    message(warm, sizeof warm, 0, 100);
    deliver_run(dir, (unsigned)strtoul(argv[2], NULL, 10), (unsigned)strtoul(argv[3], NULL, 10),
                (unsigned)strtoul(argv[4], NULL, 10), 0, argc == 6);
    rmdir(dir);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--sort") == 0) {
    sort_thread_run((unsigned)strtoul(argv[2], NULL, 10));
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "--write-mbox") == 0) {
    static char warm[256];
    message(warm, sizeof warm, 0, 100);
    return write_mbox(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
  }
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

  // Durable delivery of 10 KiB messages: one caller, then 8 and 64
  // concurrent callers whose deliveries the store groups into shared
  // commits, then one caller with the batch API.
  message(buf, sizeof buf, 0, 100); // builds the text table before threads use it
  if (deliveries) {
    deliver_run(dir, 1, deliveries, 1, 0, 0);
    deliver_run(dir, 8, deliveries * 10, 1, 0, 0);
    deliver_run(dir, 64, deliveries * 10, 1, 0, 0);
    deliver_run(dir, 1, deliveries * 10, 100, 0, 0);
    deliver_run(dir, 2, deliveries * 10, 100, 0, 0);
    deliver_run(dir, 64, deliveries * 10, 1, 1, 0);
    deliver_run(dir, 2, deliveries * 10, 100, 1, 0);
  }

  // The large mailbox, filled without fsync; the measured operations then
  // run durable.
  struct ms_settings fast = {.no_sync = 1};
  if ((rc = ms_store_open(&st, dir, &fast)) < 0)
    die("open", rc);
  if ((rc = ms_account_create(st, &acct, "bench", 5, 0, 0)) < 0 ||
      (rc = ms_mailbox_create(st, &inbox, acct, "INBOX", 5, MS_ROLE_INBOX)) < 0 ||
      (rc = ms_mailbox_create(st, &other, acct, "Other", 5, 0)) < 0)
    die("setup", rc);
  uint64_t t0 = mark();
  for (unsigned i = 0; i < big; i++) {
    size_t len = message(buf, sizeof buf, i, 600);
    if ((rc = ms_message_append(st, NULL, NULL, acct, inbox, (uint8_t *)buf, len, 0, i)) < 0)
      die("append", rc);
  }
  emit_once("fill-nosync", big, corvid_bench_now_ns() - t0);
  ms_store_close(st);
  // The fill left its pages dirty in the page cache; flush them now, or the
  // first measured commit's fdatasync would pay for the whole fill.
  char path[4200];
  snprintf(path, sizeof path, "%s/data.mdb", dir);
  int fd = open(path, O_RDWR);
  if (fd < 0 || fsync(fd) != 0)
    die("fsync", -5);
  close(fd);
  read_ops(dir, acct, inbox, big);
  if ((rc = ms_store_open(&st, dir, NULL)) < 0)
    die("open", rc);
  uint32_t *uids = malloc(big * sizeof *uids);
  for (unsigned i = 0; i < big; i++)
    uids[i] = i + 1;
  t0 = mark();
  if ((rc = ms_messages_move(st, NULL, acct, inbox, other, uids, 25000)) != 25000)
    die("move", rc);
  emit_once("move-25000", 25000, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_messages_expunge(st, acct, inbox, uids + 25000, 25000)) != 25000)
    die("expunge", rc);
  emit_once("expunge-25000", 25000, corvid_bench_now_ns() - t0);
  // The blob references the expunge queued, dropped as a separate step.
  t0 = mark();
  if ((rc = ms_store_collect(st, 0)) != 25000)
    die("collect", rc);
  emit_once("collect-25000", 25000, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_flags_store(st, acct, inbox, uids, big, MS_FLAG_SEEN, 0)) != (int)(big - 50000))
    die("flags", rc);
  emit_once("mark-all-seen", big - 50000, corvid_bench_now_ns() - t0);
  // A keyword on every message: each uid record grows by its bitmap.
  const char *junk = "$Junk";
  size_t junk_len = 5;
  t0 = mark();
  if ((rc = ms_keywords_store(st, acct, inbox, uids, big, MS_KEYWORDS_ADD, &junk, &junk_len, 1)) !=
      (int)(big - 50000))
    die("keywords", rc);
  emit_once("keyword-all", big - 50000, corvid_bench_now_ns() - t0);
  t0 = mark();
  if ((rc = ms_store_verify(st, NULL)) < 0)
    die("verify", rc);
  emit_once("verify", big, corvid_bench_now_ns() - t0);
  free(uids);
  ms_store_close(st);
  wipe(dir);
  rmdir(dir);
  return 0;
}
