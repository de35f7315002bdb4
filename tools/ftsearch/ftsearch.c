// ftsearch.c: the command-line face of libftsearch: index a Maildir or a
// directory of .eml files (mkcorpus output) into an account of an index,
// query it, show an account's figures and merge away deleted documents; and
// the indexing queue of a libmailstore store (servers/common srv_indexer.h):
// drain it, show an account's status, re-index an account from the store.
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corvid_parse.h"
#include "ftsearch.h"
#include "mailtext.h"
#include "srv_indexer.h"

static void usage(FILE *f) {
  fprintf(f, "usage: ftsearch index INDEX --account N (--maildir DIR | --mkcorpus DIR)\n"
             "                      [--batch DOCS] [--first-id N] [--no-sync]\n"
             "       ftsearch index INDEX --store DIR --account NAME [--workers N]\n"
             "       ftsearch queue run INDEX --store DIR [--workers N] [--batch N]\n"
             "       ftsearch queue status INDEX --store DIR --account NAME\n"
             "       ftsearch queue rebuild INDEX --store DIR --account NAME [--workers N]\n"
             "       ftsearch query INDEX --account N QUERY [--field NAME] [--explain]\n"
             "                      [--top K] [--count]\n"
             "       ftsearch stats INDEX --account N\n"
             "       ftsearch merge INDEX --account N\n"
             "\n"
             "QUERY: words (all must match), \"a phrase\", prefix*, AND, OR, NOT or -word,\n"
             "(groups) and field:word (fields: from to cc bcc subject body attachment headers).\n"
             "index numbers messages from --first-id (default 1) in the sorted order of\n"
             "their file names (Maildir cur/ and new/, or the .eml files of mkcorpus).\n"
             "With --store (a libmailstore directory) documents are message ids of the\n"
             "store's account NAME, the index account is its id: index and queue rebuild\n"
             "re-index the account from the store, queue run drains the store's search\n"
             "queue (deliveries and removals) into the index, queue status shows an\n"
             "account's queued, indexed and failed messages. Given-up messages are logged\n"
             "in INDEX.failed.\n");
}

// parse_u32 reads a plain decimal number up to UINT32_MAX (corvid_parse.h).
static int parse_u32(const char *s, uint32_t *out) {
  uint64_t v;
  if (corvid_parse_u64(s, 0, UINT32_MAX, &v) < 0)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

// bad_value says which option's value was refused; it returns the usage
// status.
static int bad_value(const char *option, const char *value) {
  fprintf(stderr, "ftsearch: bad value for --%s: %s\n", option, value);
  return 2;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(size_t done, size_t total, double start, bool final) {
  static double last;
  double t = now_s();
  if (!final && t - last < 0.2)
    return;
  last = t;
  int width = 30, fill = total ? (int)((double)done / (double)total * width) : width;
  fprintf(stderr, "\r[%.*s%*s] %3d%% %zu/%zu messages, %.0f/s ", fill,
          "##############################", width - fill, "",
          total ? (int)(100.0 * (double)done / (double)total) : 100, done, total,
          (double)done / (t - start > 0 ? t - start : 1e-9));
  if (final)
    fputc('\n', stderr);
}

static int cmd_index(fts_index *idx, uint32_t account, const char *dir, uint32_t first_id,
                     size_t batch_docs) {
  char **paths, failed[FTM_PATH_MAX];
  size_t n;
  int rc = ftm_list(dir, &paths, &n, failed);
  if (rc) {
    fprintf(stderr, "ftsearch: %s: %s\n", failed, strerror(-rc));
    return 1;
  }
  if (n > 0 && (uint64_t)first_id + (n - 1) > UINT32_MAX) {
    fprintf(stderr,
            "ftsearch: --first-id %" PRIu32 ": %zu messages would pass document %" PRIu32 "\n",
            first_id, n, UINT32_MAX);
    ftm_list_free(paths, n);
    return 2;
  }
  fts_batch *b;
  if ((rc = fts_batch_new(idx, &b)) != 0) {
    fprintf(stderr, "ftsearch: %s\n", fts_strerror(rc));
    ftm_list_free(paths, n);
    return 1;
  }
  struct ftm_text t = {0};
  bool tty = isatty(2);
  double start = now_s();
  uint64_t bytes = 0;
  size_t skipped = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    uint8_t *msg;
    size_t len;
    if ((rc = ftm_read_file(paths[i], &msg, &len)) != 0) {
      fprintf(stderr, "ftsearch: %s: %s\n", paths[i], strerror(-rc));
      break;
    }
    bytes += len;
    fts_doc_field fields[FTS_MAX_FIELDS];
    if (ftm_extract(&t, msg, len) != 0) {
      skipped++;
    } else {
      rc = fts_batch_add(b, account, first_id + (uint32_t)i, fields, ftm_fields(&t, fields));
      if (rc == FTS_ERR_LIMIT && fts_batch_num_docs(b) > 0) { // batch full: commit, retry
        if ((rc = fts_batch_commit(b)) == 0)
          rc = fts_batch_add(b, account, first_id + (uint32_t)i, fields, ftm_fields(&t, fields));
      }
      if (rc == FTS_ERR_LIMIT) { // alone too big
        fprintf(stderr, "ftsearch: %s: %s, skipped\n", paths[i], fts_strerror(rc));
        skipped++;
        rc = 0;
      }
    }
    free(msg);
    if (rc == 0 && fts_batch_num_docs(b) >= batch_docs)
      rc = fts_batch_commit(b);
    if (tty)
      progress(i + 1, n, start, false);
  }
  if (rc == 0)
    rc = fts_batch_commit(b);
  if (tty)
    progress(n, n, start, true);
  ftm_free(&t);
  fts_batch_free(b);
  ftm_list_free(paths, n);
  if (rc) {
    fprintf(stderr, "ftsearch: indexing failed: %s\n", fts_strerror(rc));
    return 1;
  }
  double secs = now_s() - start;
  fprintf(stderr, "indexed %zu messages (%zu skipped), %.1f MB, in %.2f s: %.0f messages/s\n",
          n - skipped, skipped, (double)bytes / 1e6, secs, (double)n / (secs > 0 ? secs : 1e-9));
  return 0;
}

static void print_explain(void *ctx, const char *line) {
  (void)ctx;
  fprintf(stderr, "  %s\n", line);
}

static int cmd_query(fts_index *idx, uint32_t account, const char *text, int field, bool explain,
                     uint32_t top, bool count_only) {
  fts_query *q;
  size_t off;
  int rc = fts_query_parse(&q, NULL, text, strlen(text), &off);
  if (rc) {
    fprintf(stderr, "ftsearch: %s at offset %zu: %s\n", fts_strerror(rc), off, text);
    return 2;
  }
  if (explain) {
    char d[4096];
    size_t dl;
    if (fts_query_describe(q, d, sizeof d, &dl) == 0)
      fprintf(stderr, "query: %s\n", d);
  }
  fts_search_options o = {.field_mask = field >= 0 ? 1u << field : 0, .top_k = top};
  if (explain)
    o.explain = print_explain;
  double start = now_s();
  fts_result *r;
  rc = fts_search(idx, &r, account, q, &o);
  double ms = (now_s() - start) * 1e3;
  fts_query_free(q);
  if (rc) {
    fprintf(stderr, "ftsearch: %s\n", fts_strerror(rc));
    return 1;
  }
  if (!count_only)
    for (size_t i = 0; i < r->num_docs; i++) {
      if (r->scores)
        printf("%u\t%.4f\n", r->docs[i], (double)r->scores[i]);
      else
        printf("%u\n", r->docs[i]);
    }
  fprintf(stderr, "%zu documents in %.3f ms\n", r->num_docs, ms);
  if (count_only)
    printf("%zu\n", r->num_docs);
  fts_result_free(r);
  return 0;
}

static int cmd_stats(fts_index *idx, uint32_t account) {
  fts_index_stats st;
  int rc = fts_index_account_stats(idx, &st, account);
  if (rc) {
    fprintf(stderr, "ftsearch: %s\n", fts_strerror(rc));
    return 1;
  }
  printf("documents %llu\ndeleted %llu\nblocks %llu\npostings %llu\nposting_bytes %llu\n"
         "file_bytes %lld\n",
         (unsigned long long)st.num_docs, (unsigned long long)st.num_deleted,
         (unsigned long long)st.num_blocks, (unsigned long long)st.num_postings,
         (unsigned long long)st.posting_bytes, (long long)fts_index_file_size(idx));
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    if (st.field_terms[f])
      printf("words.%s %llu\n", fts_field_name(f), (unsigned long long)st.field_terms[f]);
  return 0;
}

// ---- the store side: srv_indexer over a libmailstore directory ----

// with_suffix returns a new string, `path` followed by `suffix` (the index's
// companion files: "<index>.failed", "<index>-lock"), or NULL.
static char *with_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path), m = strlen(suffix);
  char *out = malloc(n + m + 1);
  if (out != NULL) {
    memcpy(out, path, n);
    memcpy(out + n, suffix, m + 1);
  }
  return out;
}

struct store_side {
  ms_store *st;
  srv_indexer *ix;
  const char *index_path;
  uint32_t account; // resolved from --account NAME when given
  double start;
  bool tty;
};

static int store_open(struct store_side *c, fts_index *idx, const char *index_path,
                      const char *store_dir, const char *account_name, uint32_t workers,
                      uint32_t batch) {
  int rc = ms_store_open(&c->st, store_dir, NULL);
  if (rc) {
    fprintf(stderr, "ftsearch: %s: %s\n", store_dir, ms_strerror(rc));
    return 1;
  }
  if (account_name &&
      (rc = ms_account_find(c->st, &c->account, account_name, strlen(account_name))) != 0) {
    fprintf(stderr, "ftsearch: account %s: %s\n", account_name, ms_strerror(rc));
    return 1;
  }
  char *failed = with_suffix(index_path, ".failed");
  if (!failed)
    return 1;
  struct srv_indexer_settings s = {.workers = workers, .batch = batch};
  rc = srv_indexer_new(&c->ix, c->st, idx, index_path, failed, &s);
  free(failed);
  if (rc) {
    fprintf(stderr, "ftsearch: %s\n", srv_indexer_strerror(rc));
    return 1;
  }
  c->index_path = index_path;
  c->tty = isatty(2);
  c->start = now_s();
  return 0;
}

// indexer_failed reports a failed rebuild or queue run. Another indexer
// holding the index's lock is no fault of the index or the store: say who
// is in the way rather than "Resource temporarily unavailable".
static void indexer_failed(const struct store_side *c, const char *what, int rc) {
  if (rc == -EWOULDBLOCK)
    fprintf(stderr, "ftsearch: %s: another indexer is working on %s (%s.indexer is locked)\n", what,
            c->index_path, c->index_path);
  else
    fprintf(stderr, "ftsearch: %s: %s\n", what, srv_indexer_strerror(rc));
}

static void store_close(struct store_side *c) {
  srv_indexer_free(c->ix);
  ms_store_close(c->st);
}

static void print_report(const struct srv_indexer_report *r, double secs) {
  fprintf(stderr,
          "%llu entries: %llu indexed, %llu removed, %llu already gone, %llu failed, %llu "
          "retries, in %.2f s\n",
          (unsigned long long)r->entries, (unsigned long long)r->indexed,
          (unsigned long long)r->removed, (unsigned long long)r->skipped,
          (unsigned long long)r->failed, (unsigned long long)r->retries, secs);
}

static int on_rebuild_progress(void *ctx, uint64_t done, uint64_t total) {
  struct store_side *c = ctx;
  if (c->tty)
    progress((size_t)done, (size_t)(total > done ? total : done), c->start, false);
  return 0;
}

static int cmd_rebuild(struct store_side *c) {
  struct srv_indexer_report r = {0};
  int rc = srv_indexer_rebuild(c->ix, &r, c->account, on_rebuild_progress, c);
  if (c->tty)
    progress((size_t)r.indexed, (size_t)r.indexed, c->start, true);
  if (rc) {
    indexer_failed(c, "rebuild failed", rc);
    return 1;
  }
  fprintf(stderr,
          "rebuilt account %u: %llu messages indexed, %llu gone documents removed, %llu "
          "failed, in %.2f s\n",
          c->account, (unsigned long long)r.indexed, (unsigned long long)r.removed,
          (unsigned long long)r.failed, now_s() - c->start);
  return 0;
}

static int cmd_queue_run(struct store_side *c) {
  // The bar's total is the queue's length at the start; entries queued
  // meanwhile push it on.
  uint64_t total = 0, after = 0;
  struct ms_search_item items[1024];
  for (;;) {
    size_t n;
    int rc = ms_search_queue_read(c->st, items, 1024, &n, after);
    if (rc || n == 0)
      break;
    total += n;
    after = items[n - 1].seq;
  }
  struct srv_indexer_report r = {0};
  int rc;
  while ((rc = srv_indexer_run_once(c->ix, &r)) > 0) {
    if (c->tty)
      progress((size_t)r.entries, (size_t)(total > r.entries ? total : r.entries), c->start, false);
  }
  if (c->tty)
    progress((size_t)r.entries, (size_t)(total > r.entries ? total : r.entries), c->start, true);
  print_report(&r, now_s() - c->start);
  if (rc) {
    indexer_failed(c, "queue run stopped", rc);
    return 1;
  }
  return 0;
}

static int cmd_queue_status(struct store_side *c) {
  struct srv_indexer_status s;
  int rc = srv_indexer_status_get(c->ix, &s, c->account);
  if (rc) {
    fprintf(stderr, "ftsearch: %s\n", srv_indexer_strerror(rc));
    return 1;
  }
  printf("account %u\nqueued %llu\nindexed %llu\nfailed %llu\n", c->account,
         (unsigned long long)s.queued, (unsigned long long)s.indexed, (unsigned long long)s.failed);
  if (s.failed)
    printf("last_failed_message %llu\nlast_error %d (%s)\n",
           (unsigned long long)s.last_failed_message, s.last_error,
           srv_indexer_strerror(s.last_error));
  return 0;
}

// remove_new_index deletes an index file this run made, and its lock file,
// after the run failed: a mistyped source must not leave an empty or half
// built index where the next run would take it for a real one.
static void remove_new_index(const char *path) {
  char *lock = with_suffix(path, "-lock");
  if (lock != NULL)
    unlink(lock);
  free(lock);
  unlink(path);
}

int main(int argc, char **argv) {
  if (argc < 3 || argv[1][0] == '-') {
    usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
    return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
  }
  const char *cmd = argv[1], *path = argv[2], *sub = NULL;
  bool is_queue = strcmp(cmd, "queue") == 0;
  if (is_queue) {
    if (argc < 4) {
      usage(stderr);
      return 2;
    }
    sub = argv[2];
    path = argv[3];
  }
  static const struct option opts[] = {
      {"account", required_argument, NULL, 'a'},  {"maildir", required_argument, NULL, 'm'},
      {"mkcorpus", required_argument, NULL, 'k'}, {"batch", required_argument, NULL, 'b'},
      {"first-id", required_argument, NULL, 'i'}, {"no-sync", no_argument, NULL, 's'},
      {"field", required_argument, NULL, 'f'},    {"explain", no_argument, NULL, 'e'},
      {"top", required_argument, NULL, 't'},      {"count", no_argument, NULL, 'c'},
      {"store", required_argument, NULL, 'S'},    {"workers", required_argument, NULL, 'w'},
      {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
  };
  uint32_t account = 0;
  const char *dir = NULL, *store_dir = NULL, *account_arg = NULL;
  uint32_t workers = 0;
  size_t batch = 20000;
  uint32_t first_id = 1, top = 0;
  int field = -1, c;
  bool explain = false, no_sync = false, count_only = false;
  optind = is_queue ? 4 : 3;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
    case 'a':
      account_arg = optarg; // a number here, a store account's name with --store
      break;
    case 'S':
      store_dir = optarg;
      break;
    case 'w':
      if (parse_u32(optarg, &workers) < 0)
        return bad_value("workers", optarg);
      break;
    case 'm':
    case 'k':
      dir = optarg;
      break;
    case 'b': {
      uint32_t v;
      if (parse_u32(optarg, &v) < 0 || v == 0)
        return bad_value("batch", optarg);
      batch = v;
      break;
    }
    case 'i':
      if (parse_u32(optarg, &first_id) < 0)
        return bad_value("first-id", optarg);
      break;
    case 's':
      no_sync = true;
      break;
    case 'f':
      field = fts_field_lookup(optarg, strlen(optarg));
      if (field < 0) {
        fprintf(stderr, "ftsearch: unknown field %s\n", optarg);
        return 2;
      }
      break;
    case 'e':
      explain = true;
      break;
    case 't':
      if (parse_u32(optarg, &top) < 0)
        return bad_value("top", optarg);
      break;
    case 'c':
      count_only = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (is_queue || (store_dir && strcmp(cmd, "index") == 0)) {
    // The store side: --account is a name; the index account is its id.
    bool run = is_queue && strcmp(sub, "run") == 0;
    bool status_cmd = is_queue && strcmp(sub, "status") == 0;
    bool rebuild = !is_queue || strcmp(sub, "rebuild") == 0;
    if (!store_dir || optind != argc || (!run && !status_cmd && !rebuild) ||
        (!run && !account_arg) || batch > SRV_INDEXER_MAX_BATCH ||
        workers > SRV_INDEXER_MAX_WORKERS) {
      usage(stderr);
      return 2;
    }
    fts_index_settings s = {.flags = no_sync ? FTS_INDEX_NO_SYNC : 0};
    bool new_index = access(path, F_OK) != 0;
    fts_index *idx;
    int rc = fts_index_open(&idx, path, &s);
    if (rc) {
      fprintf(stderr, "ftsearch: %s: %s\n", path, fts_strerror(rc));
      return 1;
    }
    struct store_side c = {0};
    int status = store_open(&c, idx, path, store_dir, run ? NULL : account_arg, workers,
                            batch == 20000 ? 0 : (uint32_t)batch);
    if (status == 0)
      status = run ? cmd_queue_run(&c) : status_cmd ? cmd_queue_status(&c) : cmd_rebuild(&c);
    store_close(&c);
    fts_index_close(idx);
    if (status != 0 && new_index)
      remove_new_index(path);
    return status;
  }
  if (!account_arg) {
    fprintf(stderr, "ftsearch: --account N is required\n");
    return 2;
  }
  if (parse_u32(account_arg, &account) < 0)
    return bad_value("account", account_arg);
  // merge opens the index writable: a mistyped path must not become a new,
  // empty index (index may make one).
  if (strcmp(cmd, "merge") == 0 && access(path, F_OK) != 0) {
    fprintf(stderr, "ftsearch: %s: %s\n", path, strerror(errno));
    return 1;
  }
  bool is_index = strcmp(cmd, "index") == 0, is_query = strcmp(cmd, "query") == 0;
  if ((is_index && !dir) || (is_query && optind != argc - 1) || (!is_query && optind != argc) ||
      (!is_index && !is_query && strcmp(cmd, "stats") != 0 && strcmp(cmd, "merge") != 0)) {
    usage(stderr);
    return 2;
  }
  fts_index_settings s = {.flags =
                              (no_sync ? FTS_INDEX_NO_SYNC : 0) |
                              (is_query || strcmp(cmd, "stats") == 0 ? FTS_INDEX_READ_ONLY : 0)};
  bool new_index = is_index && access(path, F_OK) != 0;
  fts_index *idx;
  int rc = fts_index_open(&idx, path, &s);
  if (rc) {
    fprintf(stderr, "ftsearch: %s: %s\n", path, fts_strerror(rc));
    return 1;
  }
  int status;
  if (is_index)
    status = cmd_index(idx, account, dir, first_id, batch);
  else if (is_query)
    status = cmd_query(idx, account, argv[optind], field, explain, top, count_only);
  else if (strcmp(cmd, "stats") == 0)
    status = cmd_stats(idx, account);
  else {
    rc = fts_index_merge(idx, account);
    status = rc < 0 ? 1 : 0;
    fprintf(stderr, rc < 0 ? "ftsearch: %s\n" : "%s", rc < 0 ? fts_strerror(rc) : "");
    if (rc >= 0)
      fprintf(stderr, "%d blocks rewritten\n", rc);
  }
  fts_index_close(idx);
  if (status != 0 && new_index)
    remove_new_index(path);
  return status;
}
