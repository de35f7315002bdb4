// indexer.c: drains libmailstore's search queue into a libftsearch index.
// A batch of queue entries is split by account over worker threads, each
// with its own fts_batch (each batch owns an analyzer, so workers analyse in
// parallel); the batches are committed one after the other and only then is
// the queue acknowledged, which is what makes a crash repeat work instead of
// losing it. Per-message failures are retried on later calls and, after
// max_attempts, written to the failure log and passed over.
#include "srv_indexer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "mailparse.h"
#include "mailtext.h"

// How a failed entry is handled.
enum entry_class {
  ENTRY_DONE = 0,      // applied (or nothing to apply)
  ENTRY_TRANSIENT = 1, // the whole batch is retried; nothing acknowledged past it
  ENTRY_MESSAGE = 2,   // this message failed on its own
};

struct entry {
  struct ms_search_item item;
  int status;
  enum entry_class cls;
  bool indexed, removed, skipped;
};

// A message that failed on its own, with its failure count so far. The
// table is small (only messages currently failing) and scanned linearly.
struct attempt {
  uint32_t account;
  uint64_t message_id;
  uint32_t count;
};

struct worker {
  srv_indexer *ix;
  unsigned index;
  fts_batch *batch;
  struct ftm_text text;
  uint8_t *buf;
  size_t buf_cap;
  struct entry *entries; // the whole batch; the worker takes its accounts
  size_t num_entries;
  pthread_t thread;
};

struct srv_indexer {
  ms_store *store;
  fts_index *index;
  char *lock_path;
  char *failed_path;
  int lock_fd; // -1 until the first run or rebuild
  struct srv_indexer_settings s;
  struct worker *workers;
  struct entry *entries;
  struct ms_search_item *items;
  struct attempt *attempts;
  size_t num_attempts, attempts_cap;
  uint32_t backoff_ms; // the next delay; reset by every call that makes progress
  // In-memory failure record when there is no failure log.
  uint64_t mem_failed;
};

static char *str_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p)
    memcpy(p, s, n);
  return p;
}

int srv_indexer_new(srv_indexer **out, ms_store *store, fts_index *index, const char *index_path,
                    const char *failed_path, const struct srv_indexer_settings *settings) {
  if (!out || !store || !index || !index_path)
    return SRV_ERR_INVALID_ARGUMENT;
  *out = NULL;
  struct srv_indexer_settings s = settings ? *settings : (struct srv_indexer_settings){0};
  if (s.workers > SRV_INDEXER_MAX_WORKERS || s.batch > SRV_INDEXER_MAX_BATCH)
    return SRV_ERR_INVALID_ARGUMENT;
  s.workers = s.workers ? s.workers : SRV_INDEXER_DEFAULT_WORKERS;
  s.batch = s.batch ? s.batch : SRV_INDEXER_DEFAULT_BATCH;
  s.max_attempts = s.max_attempts ? s.max_attempts : SRV_INDEXER_DEFAULT_MAX_ATTEMPTS;
  s.backoff_ms = s.backoff_ms ? s.backoff_ms : SRV_INDEXER_DEFAULT_BACKOFF_MS;
  s.backoff_max_ms = s.backoff_max_ms ? s.backoff_max_ms : SRV_INDEXER_DEFAULT_BACKOFF_MAX_MS;
  if (s.backoff_max_ms < s.backoff_ms)
    s.backoff_max_ms = s.backoff_ms;
  s.max_message_size =
      s.max_message_size ? s.max_message_size : SRV_INDEXER_DEFAULT_MAX_MESSAGE_SIZE;
  srv_indexer *ix = calloc(1, sizeof *ix);
  if (!ix)
    return -ENOMEM;
  ix->store = store;
  ix->index = index;
  ix->s = s;
  ix->lock_fd = -1;
  ix->backoff_ms = s.backoff_ms;
  size_t plen = strlen(index_path);
  ix->lock_path = malloc(plen + sizeof ".indexer");
  ix->failed_path = failed_path ? str_dup(failed_path) : NULL;
  ix->workers = calloc(s.workers, sizeof *ix->workers);
  ix->entries = calloc(s.batch, sizeof *ix->entries);
  ix->items = calloc(s.batch, sizeof *ix->items);
  if (!ix->lock_path || (failed_path && !ix->failed_path) || !ix->workers || !ix->entries ||
      !ix->items) {
    srv_indexer_free(ix);
    return -ENOMEM;
  }
  memcpy(ix->lock_path, index_path, plen);
  memcpy(ix->lock_path + plen, ".indexer", sizeof ".indexer");
  for (unsigned w = 0; w < s.workers; w++) {
    ix->workers[w].ix = ix;
    ix->workers[w].index = w;
    int rc = fts_batch_new(index, &ix->workers[w].batch);
    if (rc) {
      srv_indexer_free(ix);
      return rc;
    }
  }
  *out = ix;
  return 0;
}

void srv_indexer_free(srv_indexer *ix) {
  if (!ix)
    return;
  if (ix->workers) {
    for (unsigned w = 0; w < ix->s.workers; w++) {
      fts_batch_free(ix->workers[w].batch);
      ftm_free(&ix->workers[w].text);
      free(ix->workers[w].buf);
    }
  }
  if (ix->lock_fd >= 0)
    close(ix->lock_fd); // releases the flock
  free(ix->workers);
  free(ix->entries);
  free(ix->items);
  free(ix->attempts);
  free(ix->lock_path);
  free(ix->failed_path);
  free(ix);
}

// The lock keeps two indexers (processes or handles) from interleaving
// their acknowledgements on one index; it dies with its process.
static int take_lock(srv_indexer *ix) {
  if (ix->lock_fd >= 0)
    return 0;
  int fd = open(ix->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    return e == EWOULDBLOCK ? -EWOULDBLOCK : -e;
  }
  ix->lock_fd = fd;
  return 0;
}

static void sleep_ms(uint32_t ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void backoff(srv_indexer *ix) {
  sleep_ms(ix->backoff_ms);
  uint64_t next = (uint64_t)ix->backoff_ms * 2;
  ix->backoff_ms = next > ix->s.backoff_max_ms ? ix->s.backoff_max_ms : (uint32_t)next;
}

// Errors that say nothing about the message itself: trying again later may
// succeed, so they hold the queue instead of condemning the entry.
static bool is_transient(int rc) {
  return rc == -ENOMEM || rc == -EIO || rc == -EAGAIN || rc == -EINTR || rc == -ENOSPC ||
         rc == -EMFILE || rc == -ENFILE || rc == MS_ERR_CORRUPT || rc == FTS_ERR_CORRUPT;
}

static int read_message(struct worker *wk, uint32_t account, uint64_t message_id, size_t *len) {
  struct ms_message_info info;
  int rc = ms_message_get(wk->ix->store, &info, account, message_id);
  if (rc)
    return rc;
  if (info.size > wk->ix->s.max_message_size)
    return SRV_ERR_LIMIT;
  if (info.size > wk->buf_cap) {
    size_t cap = (size_t)info.size;
    uint8_t *p = realloc(wk->buf, cap ? cap : 1);
    if (!p)
      return -ENOMEM;
    wk->buf = p;
    wk->buf_cap = cap;
  }
  rc = ms_message_read(wk->ix->store, wk->buf, wk->buf_cap, len, account, message_id);
  if (rc == MS_ERR_LIMIT)
    return -EAGAIN; // it grew between get and read: cannot happen to a stored
                    // message, but a retry is the right answer if it does
  return rc;
}

static void apply_entry(struct worker *wk, struct entry *e) {
  const struct ms_search_item *it = &e->item;
  e->status = 0;
  e->cls = ENTRY_DONE;
  if (it->message_id == 0 || it->message_id > UINT32_MAX) {
    // Documents are 32-bit; such a message cannot be indexed, ever.
    e->status = SRV_ERR_LIMIT;
    e->cls = ENTRY_MESSAGE;
    return;
  }
  uint32_t doc = (uint32_t)it->message_id;
  if (it->op == MS_SEARCH_REMOVE) {
    int rc = fts_batch_delete(wk->batch, it->account, doc);
    if (rc) {
      e->status = rc;
      e->cls = ENTRY_TRANSIENT;
    } else {
      e->removed = true;
    }
    return;
  }
  if (it->op != MS_SEARCH_INDEX) {
    e->status = SRV_ERR_INVALID_ARGUMENT;
    e->cls = ENTRY_MESSAGE;
    return;
  }
  size_t len = 0;
  int rc = read_message(wk, it->account, it->message_id, &len);
  if (rc == MS_ERR_NOTFOUND) {
    // Gone since it was queued; its REMOVE entry follows.
    e->skipped = true;
    return;
  }
  if (rc == MS_ERR_CORRUPT) {
    // This message's record or body is damaged: it fails on its own, like
    // an unparseable one. Holding the queue for it would stop indexing for
    // every account until someone expunged it; the failure log and
    // `mailctl store verify` name it instead.
    e->status = rc;
    e->cls = ENTRY_MESSAGE;
    return;
  }
  if (rc == 0)
    rc = ftm_extract(&wk->text, wk->buf, len);
  if (rc == 0) {
    fts_doc_field fields[FTS_MAX_FIELDS];
    size_t n = ftm_fields(&wk->text, fields);
    rc = fts_batch_add(wk->batch, it->account, doc, fields, n);
  }
  if (rc == 0) {
    e->indexed = true;
    return;
  }
  e->status = rc;
  e->cls = is_transient(rc) ? ENTRY_TRANSIENT : ENTRY_MESSAGE;
}

static void *worker_main(void *arg) {
  struct worker *wk = arg;
  unsigned nw = wk->ix->s.workers;
  for (size_t i = 0; i < wk->num_entries; i++) {
    struct entry *e = &wk->entries[i];
    if (e->item.account % nw != wk->index)
      continue;
    apply_entry(wk, e);
    if (e->cls == ENTRY_TRANSIENT)
      break; // the batch will be retried; later entries would be wasted work
  }
  return NULL;
}

// Applies entries[0..n) through the workers into their batches (not yet
// committed). Threads are started per batch: a batch is hundreds of messages,
// a thread start is microseconds.
static int apply_all(srv_indexer *ix, struct entry *entries, size_t n) {
  unsigned nw = ix->s.workers;
  for (unsigned w = 0; w < nw; w++) {
    ix->workers[w].entries = entries;
    ix->workers[w].num_entries = n;
  }
  if (nw == 1) {
    worker_main(&ix->workers[0]);
    return 0;
  }
  unsigned started = 0;
  int err = 0;
  for (unsigned w = 1; w < nw; w++) {
    int rc = pthread_create(&ix->workers[w].thread, NULL, worker_main, &ix->workers[w]);
    if (rc) {
      err = -rc;
      break;
    }
    started = w;
  }
  if (err == 0) {
    worker_main(&ix->workers[0]);
  }
  for (unsigned w = 1; w <= started; w++)
    pthread_join(ix->workers[w].thread, NULL);
  return err;
}

static int commit_all(srv_indexer *ix) {
  for (unsigned w = 0; w < ix->s.workers; w++) {
    int rc = fts_batch_commit(ix->workers[w].batch);
    if (rc)
      return rc;
  }
  return 0;
}

// Drops whatever the batches hold after a failed attempt: a batch that
// failed to commit is left unchanged by fts_batch_commit, so it is replaced.
static int reset_batches(srv_indexer *ix) {
  for (unsigned w = 0; w < ix->s.workers; w++) {
    fts_batch_free(ix->workers[w].batch);
    ix->workers[w].batch = NULL;
    int rc = fts_batch_new(ix->index, &ix->workers[w].batch);
    if (rc)
      return rc;
  }
  return 0;
}

static struct attempt *attempt_find(srv_indexer *ix, uint32_t account, uint64_t message_id) {
  for (size_t i = 0; i < ix->num_attempts; i++)
    if (ix->attempts[i].account == account && ix->attempts[i].message_id == message_id)
      return &ix->attempts[i];
  return NULL;
}

static void attempt_forget(srv_indexer *ix, struct attempt *a) {
  *a = ix->attempts[--ix->num_attempts];
}

// Counts one more failure of a message and returns the count so far.
static int attempt_count(srv_indexer *ix, uint32_t account, uint64_t message_id,
                         uint32_t *out_count) {
  struct attempt *a = attempt_find(ix, account, message_id);
  if (!a) {
    if (ix->num_attempts == ix->attempts_cap) {
      size_t cap = ix->attempts_cap ? ix->attempts_cap * 2 : 16;
      struct attempt *p = realloc(ix->attempts, cap * sizeof *p);
      if (!p)
        return -ENOMEM;
      ix->attempts = p;
      ix->attempts_cap = cap;
    }
    a = &ix->attempts[ix->num_attempts++];
    *a = (struct attempt){account, message_id, 0};
  }
  *out_count = ++a->count;
  return 0;
}

// Appends a given-up message to the failure log, durably: the entry is
// acknowledged right after, and an acknowledged failure must stay visible.
static int failed_record(srv_indexer *ix, uint32_t account, uint64_t message_id, int code) {
  if (!ix->failed_path) {
    ix->mem_failed++;
    return 0;
  }
  int fd = open(ix->failed_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  char line[64];
  int n = snprintf(line, sizeof line, "%" PRIu32 " %" PRIu64 " %d\n", account, message_id, code);
  int rc = 0;
  if (write(fd, line, (size_t)n) != n || fsync(fd) != 0)
    rc = errno ? -errno : -EIO;
  close(fd);
  return rc;
}

static int queue_ack(srv_indexer *ix, uint64_t through) {
  int rc;
  do {
    rc = ms_search_queue_ack(ix->store, through);
  } while (rc == 1000000);
  return rc < 0 ? rc : 0;
}

static void report_add(struct srv_indexer_report *r, const struct srv_indexer_report *d) {
  if (!r)
    return;
  r->entries += d->entries;
  r->indexed += d->indexed;
  r->removed += d->removed;
  r->skipped += d->skipped;
  r->failed += d->failed;
  r->retries += d->retries;
}

int srv_indexer_run_once(srv_indexer *ix, struct srv_indexer_report *report) {
  if (!ix)
    return SRV_ERR_INVALID_ARGUMENT;
  int rc = take_lock(ix);
  if (rc)
    return rc;
  struct srv_indexer_report d = {0};
  for (uint32_t attempt = 1;; attempt++) {
    size_t n = 0;
    rc = ms_search_queue_read(ix->store, ix->items, ix->s.batch, &n, 0);
    if (rc == 0 && n == 0) {
      report_add(report, &d);
      return 0;
    }
    if (rc == 0) {
      for (size_t i = 0; i < n; i++)
        ix->entries[i] = (struct entry){.item = ix->items[i]};
      rc = apply_all(ix, ix->entries, n);
    }
    // The acknowledged range ends before the first entry that is to be
    // tried again; entries after it are still committed (harmless: the
    // next call applies them again, idempotently).
    size_t done = n;
    bool hold = false;
    for (size_t i = 0; rc == 0 && i < n; i++) {
      struct entry *e = &ix->entries[i];
      if (e->cls == ENTRY_TRANSIENT) {
        rc = e->status;
        break;
      }
      if (e->cls != ENTRY_MESSAGE || i >= done)
        continue;
      uint32_t count;
      int arc = attempt_count(ix, e->item.account, e->item.message_id, &count);
      if (arc) {
        rc = arc;
        break;
      }
      if (count < ix->s.max_attempts) {
        done = i;
        hold = true;
      }
    }
    // A failed commit is never the messages' fault (a full map, I/O):
    // retried like a transient error, whatever its code.
    bool commit_failed = false;
    if (rc == 0)
      commit_failed = (rc = commit_all(ix)) != 0;
    for (size_t i = 0; rc == 0 && i < done; i++) {
      struct entry *e = &ix->entries[i];
      if (e->cls != ENTRY_MESSAGE)
        continue;
      rc = failed_record(ix, e->item.account, e->item.message_id, e->status);
      if (rc == 0) {
        struct attempt *a = attempt_find(ix, e->item.account, e->item.message_id);
        if (a)
          attempt_forget(ix, a);
        d.failed++;
      }
    }
    if (rc == 0 && done > 0)
      rc = queue_ack(ix, ix->entries[done - 1].item.seq);
    if (rc == 0) {
      for (size_t i = 0; i < done; i++) {
        d.indexed += ix->entries[i].indexed;
        d.removed += ix->entries[i].removed;
        d.skipped += ix->entries[i].skipped;
      }
      d.entries += done;
      if (hold) {
        d.retries++;
        backoff(ix);
        if (done == 0) {
          // Held at the head: try again now rather than return 0, which
          // means an empty queue. Bounded: each pass counts one more
          // failure of the head message, which is given up at max_attempts.
          attempt = 0;
          continue;
        }
      } else {
        ix->backoff_ms = ix->s.backoff_ms;
      }
      report_add(report, &d);
      return (int)done;
    }
    int rrc = reset_batches(ix);
    if (attempt >= ix->s.max_attempts || !(commit_failed || is_transient(rc)) || rrc) {
      report_add(report, &d);
      return rrc && !rc ? rrc : rc;
    }
    d.retries++;
    backoff(ix);
  }
}

int srv_indexer_run(srv_indexer *ix, struct srv_indexer_report *report, const volatile int *stop) {
  for (;;) {
    if (stop && *stop)
      return 0;
    int rc = srv_indexer_run_once(ix, report);
    if (rc <= 0)
      return rc;
  }
}

// Removes the account's lines from the failure log (write aside, rename):
// a rebuild tries those messages again.
static int failed_forget(srv_indexer *ix, uint32_t account) {
  if (!ix->failed_path) {
    ix->mem_failed = 0;
    return 0;
  }
  FILE *in = fopen(ix->failed_path, "re");
  if (!in)
    return errno == ENOENT ? 0 : -errno;
  size_t plen = strlen(ix->failed_path);
  char *tmp = malloc(plen + sizeof ".tmp");
  if (!tmp) {
    fclose(in);
    return -ENOMEM;
  }
  memcpy(tmp, ix->failed_path, plen);
  memcpy(tmp + plen, ".tmp", sizeof ".tmp");
  FILE *out = fopen(tmp, "we");
  int rc = out ? 0 : -errno;
  char line[128];
  while (rc == 0 && fgets(line, sizeof line, in)) {
    uint32_t a;
    if (sscanf(line, "%" SCNu32, &a) == 1 && a == account)
      continue;
    if (fputs(line, out) == EOF)
      rc = -EIO;
  }
  // A read error must not pass for the end of the log: the copy would lose
  // the other accounts' lines when it replaces the log.
  if (rc == 0 && ferror(in))
    rc = errno != 0 ? -errno : -EIO;
  fclose(in);
  if (out) {
    if (fflush(out) != 0 || fsync(fileno(out)) != 0)
      rc = rc ? rc : -EIO;
    fclose(out);
  }
  if (rc == 0 && rename(tmp, ix->failed_path) != 0)
    rc = -errno;
  if (rc)
    unlink(tmp);
  free(tmp);
  return rc;
}

// Applies and commits one rebuild batch, retrying transient failures.
static int rebuild_batch(srv_indexer *ix, struct entry *entries, size_t n,
                         struct srv_indexer_report *d) {
  for (uint32_t attempt = 1;; attempt++) {
    for (size_t i = 0; i < n; i++)
      entries[i] = (struct entry){.item = entries[i].item};
    int rc = apply_all(ix, entries, n);
    for (size_t i = 0; rc == 0 && i < n; i++)
      if (entries[i].cls == ENTRY_TRANSIENT)
        rc = entries[i].status;
    bool commit_failed = false;
    if (rc == 0)
      commit_failed = (rc = commit_all(ix)) != 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
      struct entry *e = &entries[i];
      d->indexed += e->indexed;
      d->removed += e->removed;
      d->skipped += e->skipped;
      if (e->cls == ENTRY_MESSAGE) {
        // A rebuild has the message in hand: one try is the verdict.
        rc = failed_record(ix, e->item.account, e->item.message_id, e->status);
        d->failed += rc == 0;
      }
    }
    if (rc == 0)
      return 0;
    int rrc = reset_batches(ix);
    if (attempt >= ix->s.max_attempts || !(commit_failed || is_transient(rc)) || rrc)
      return rc;
    d->retries++;
    backoff(ix);
  }
}

int srv_indexer_rebuild(srv_indexer *ix, struct srv_indexer_report *report, uint32_t account,
                        srv_indexer_progress_fn progress, void *progress_ctx) {
  if (!ix)
    return SRV_ERR_INVALID_ARGUMENT;
  int rc = take_lock(ix);
  if (rc)
    return rc;
  struct ms_account_info info;
  if ((rc = ms_account_get(ix->store, &info, account)) != 0)
    return rc;
  if ((rc = failed_forget(ix, account)) != 0)
    return rc;
  struct srv_indexer_report d = {0};
  // First the documents whose message is gone, so that the index never
  // holds more than the store once the second pass is done.
  uint32_t page[1024];
  size_t len = 0;
  uint32_t next = 1;
  size_t n = 0;
  do {
    rc = fts_index_docs_list(ix->index, page, 1024, &len, account, next);
    for (size_t i = 0; rc == 0 && i < len; i++) {
      struct ms_message_info mi;
      int grc = ms_message_get(ix->store, &mi, account, page[i]);
      if (grc == MS_ERR_NOTFOUND)
        ix->entries[n++].item = (struct ms_search_item){0, MS_SEARCH_REMOVE, account, page[i]};
      else if (grc)
        rc = grc;
      if (rc == 0 && n == ix->s.batch) {
        rc = rebuild_batch(ix, ix->entries, n, &d);
        n = 0;
      }
    }
    next = len ? page[len - 1] + 1 : 0;
  } while (rc == 0 && len == 1024 && next != 0);
  if (rc == 0 && n)
    rc = rebuild_batch(ix, ix->entries, n, &d);
  n = 0;
  // Then every message, by id, in pages of the account's message ids
  // (ms_account_messages reads only the account's key range, so gaps left
  // by destroyed messages cost nothing). `total` is the account's message
  // count, re-read after each batch as deliveries and expunges go on.
  uint64_t total = info.used_messages, found = 0, after = 0;
  uint64_t ids[1024];
  for (;;) {
    size_t got = 0;
    if (rc == 0)
      rc = ms_account_messages(ix->store, ids, sizeof ids / sizeof ids[0], &got, account, after);
    if (rc || got == 0)
      break;
    after = ids[got - 1];
    for (size_t i = 0; rc == 0 && i < got; i++) {
      found++;
      ix->entries[n++].item = (struct ms_search_item){0, MS_SEARCH_INDEX, account, ids[i]};
      if (n == ix->s.batch) {
        rc = rebuild_batch(ix, ix->entries, n, &d);
        n = 0;
        if (rc == 0 && (rc = ms_account_get(ix->store, &info, account)) == 0)
          total = info.used_messages > found ? info.used_messages : found;
        if (rc == 0 && progress)
          rc = progress(progress_ctx, found, total);
      }
    }
    if (got < sizeof ids / sizeof ids[0])
      break;
  }
  if (rc == 0 && n)
    rc = rebuild_batch(ix, ix->entries, n, &d);
  if (rc == 0 && progress)
    rc = progress(progress_ctx, found, found);
  report_add(report, &d);
  return rc;
}

int srv_indexer_status_get(srv_indexer *ix, struct srv_indexer_status *out, uint32_t account) {
  if (!ix || !out)
    return SRV_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  uint64_t after = 0;
  for (;;) {
    size_t n = 0;
    int rc = ms_search_queue_read(ix->store, ix->items, ix->s.batch, &n, after);
    if (rc)
      return rc;
    if (n == 0)
      break;
    for (size_t i = 0; i < n; i++)
      out->queued += ix->items[i].account == account;
    after = ix->items[n - 1].seq;
  }
  fts_index_stats st;
  int rc = fts_index_account_stats(ix->index, &st, account);
  if (rc)
    return rc;
  out->indexed = st.num_docs;
  if (!ix->failed_path) {
    out->failed = ix->mem_failed;
    return 0;
  }
  FILE *f = fopen(ix->failed_path, "re");
  if (!f)
    return errno == ENOENT ? 0 : -errno;
  char line[128];
  while (fgets(line, sizeof line, f)) {
    uint32_t a;
    uint64_t m;
    int code;
    if (sscanf(line, "%" SCNu32 " %" SCNu64 " %d", &a, &m, &code) != 3 || a != account)
      continue;
    out->failed++;
    out->last_failed_message = m;
    out->last_error = code;
  }
  rc = ferror(f) ? (errno != 0 ? -errno : -EIO) : 0; // EISDIR for a directory, say
  fclose(f);
  return rc;
}

const char *srv_indexer_strerror(int code) {
  if (code <= -10200 && code > -10300)
    return mp_strerror(code);
  if (code <= -10400 && code > -10500)
    return ms_strerror(code);
  if (code <= -10500 && code > -10600)
    return fts_strerror(code);
  return srv_strerror(code);
}
