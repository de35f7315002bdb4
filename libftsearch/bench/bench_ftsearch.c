// bench_ftsearch.c: libftsearch against Xapian on the same mail: indexing
// throughput, index size against text size, and query latency (p50, p99) for
// a rare word, a common word, two words, a phrase and a prefix, over the whole
// account and restricted to one mailbox of 25,000 messages. Both engines get
// the subjects and bodies that mailtext extracts from a mkcorpus directory,
// are measured in the same run, and must agree on how many documents most
// queries match. One JSON object per line on stdout, a table on stderr.
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_internal.h"
#include "corvid_bench.h"
#include "ftsearch.h"
#include "index_internal.h"
#include "mailtext.h"

struct doc {
  char *subject, *body;
  size_t subject_len, body_len;
  char lang[4];
};

static struct doc *docs;
static size_t num_docs;
static uint32_t *mailbox;
static size_t mailbox_len;
static size_t mailbox_step;

// The machine this runs on may be shared: CPU time of this thread counts
// only the work done (system calls included), wall time also the waiting.
static uint64_t cpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *const qnames[BQ_NUM] = {"rare", "common", "two_words", "phrase", "prefix"};

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

static void die(const char *what, int rc) {
  fprintf(stderr, "bench_ftsearch: %s: %d %s\n", what, rc, fts_strerror(rc));
  exit(1);
}

static char *dup_text(const struct ftm_field *f) {
  char *p = malloc(f->len + 1);
  if (!p)
    die("out of memory", -ENOMEM);
  memcpy(p, f->p, f->len);
  p[f->len] = 0;
  return p;
}

static void load(const char *dir, size_t max_docs, uint64_t *text_bytes) {
  char **paths;
  size_t n;
  int rc = ftm_list(dir, &paths, &n, NULL);
  if (rc)
    die(dir, rc);
  if (max_docs && n > max_docs)
    n = max_docs;
  docs = calloc(n, sizeof *docs);
  struct ftm_text t = {0};
  *text_bytes = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t *msg;
    size_t len;
    if ((rc = ftm_read_file(paths[i], &msg, &len)) != 0 || (rc = ftm_extract(&t, msg, len)) != 0)
      die(paths[i], rc);
    free(msg);
    docs[i].subject = dup_text(&t.f[FTS_FIELD_SUBJECT]);
    docs[i].subject_len = t.f[FTS_FIELD_SUBJECT].len;
    docs[i].body = dup_text(&t.f[FTS_FIELD_BODY]);
    docs[i].body_len = t.f[FTS_FIELD_BODY].len;
    if (fts_language_detect((const uint8_t *)docs[i].body, docs[i].body_len, docs[i].lang) != 0 ||
        !docs[i].lang[0])
      snprintf(docs[i].lang, sizeof docs[i].lang, "en");
    *text_bytes += docs[i].subject_len + docs[i].body_len;
    if (i % 10000 == 9999)
      fprintf(stderr, "\rextracting %zu/%zu", i + 1, n);
  }
  fprintf(stderr, "\r");
  ftm_free(&t);
  ftm_list_free(paths, n);
  num_docs = n;
}

static bool in_mailbox(size_t i) {
  return i % mailbox_step == 0;
}

// ---- query sampling: document frequencies over a sample of bodies ----

struct vword {
  char w[64];
  uint32_t df, last_doc;
  char lang[4];
};

static struct vword *vocab;
static size_t vocab_cap, vocab_num;

static struct vword *vocab_get(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  for (size_t j = h & (vocab_cap - 1);; j = (j + 1) & (vocab_cap - 1)) {
    if (!vocab[j].w[0]) {
      if (2 * ++vocab_num > vocab_cap)
        return NULL;
      memcpy(vocab[j].w, p, n);
      vocab[j].w[n] = 0;
      vocab[j].last_doc = UINT32_MAX;
      return &vocab[j];
    }
    if (strlen(vocab[j].w) == n && memcmp(vocab[j].w, p, n) == 0)
      return &vocab[j];
  }
}

// Words the two engines tokenize alike: letters only, lower case, no ß.
static bool plain_word(const uint8_t *p, size_t n) {
  if (n < 3 || n > 40)
    return false;
  for (size_t i = 0; i < n; i++) {
    if (p[i] >= 'a' && p[i] <= 'z')
      continue;
    if (p[i] == 0xc3 && i + 1 < n && p[i + 1] == 0x9f)
      return false;
    if (p[i] >= 0xc3 && p[i] <= 0xd1 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] < 0xc0) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

struct sample_ctx {
  uint32_t doc;
  const char *lang;
  struct tok {
    char w[64];
    uint32_t pos;
  } * toks;
  size_t num_toks, cap_toks;
};

static int on_sample_term(void *ctx, const fts_term *t) {
  struct sample_ctx *s = ctx;
  if (t->kind != FTS_TERM_WORD || !plain_word(t->bytes, t->len))
    return 0;
  struct vword *v = vocab_get(t->bytes, t->len);
  if (!v)
    return 1;
  if (v->last_doc != s->doc) {
    v->last_doc = s->doc;
    v->df++;
    if (!v->lang[0])
      snprintf(v->lang, sizeof v->lang, "%.3s", s->lang);
  }
  if (s->toks && s->num_toks < s->cap_toks) {
    memcpy(s->toks[s->num_toks].w, t->bytes, t->len);
    s->toks[s->num_toks].w[t->len] = 0;
    s->toks[s->num_toks++].pos = t->position;
  }
  return 0;
}

static struct vword *pick(double lo, double hi, size_t sample, size_t min_len) {
  for (int tries = 0; tries < 1000000; tries++) {
    struct vword *v = &vocab[rnd((uint32_t)vocab_cap)];
    double f = (double)v->df / (double)sample;
    if (v->w[0] && f >= lo && f <= hi && strlen(v->w) >= min_len)
      return v;
  }
  return NULL;
}

static void make_queries(struct bench_query *qs, size_t per_type) {
  size_t sample = num_docs < 5000 ? num_docs : 5000;
  vocab_cap = 1 << 20;
  vocab = calloc(vocab_cap, sizeof *vocab);
  fts_analyzer *an;
  if (fts_analyzer_new(&an, NULL) != 0)
    die("analyzer", -1);
  for (size_t k = 0; k < sample; k++) {
    size_t i = k * (num_docs / sample);
    struct sample_ctx s = {(uint32_t)i, docs[i].lang, NULL, 0, 0};
    if (fts_analyze(an, docs[i].lang, (const uint8_t *)docs[i].body, docs[i].body_len,
                    on_sample_term, &s) != 0)
      die("sampling", -1);
  }
  for (size_t q = 0; q < per_type * BQ_NUM; q++) {
    struct bench_query *bq = &qs[q];
    memset(bq, 0, sizeof *bq);
    bq->type = (int)(q / per_type);
    struct vword *v = NULL, *v2 = NULL;
    switch (bq->type) {
    case BQ_RARE:
      v = pick(0, 1.5 / (double)sample, sample, 5);
      break;
    case BQ_COMMON:
      v = pick(0.15, 0.6, sample, 3);
      break;
    case BQ_PREFIX:
      v = pick(0.005, 0.05, sample, 7);
      break;
    default: {
      // Two words of one document: adjacent ones for a phrase.
      struct tok toks[4096];
      for (int tries = 0; tries < 1000 && !v2; tries++) {
        size_t i = rnd((uint32_t)num_docs);
        struct sample_ctx s = {UINT32_MAX - 1, docs[i].lang, toks, 0, 4096};
        if (fts_analyze(an, docs[i].lang, (const uint8_t *)docs[i].body, docs[i].body_len,
                        on_sample_term, &s) != 0 ||
            s.num_toks < 8)
          continue;
        size_t a = rnd((uint32_t)s.num_toks - 1), b = a + 1;
        if (bq->type == BQ_TWO)
          b = rnd((uint32_t)s.num_toks);
        else if (toks[b].pos != toks[a].pos + 1)
          continue;
        if (strcmp(toks[a].w, toks[b].w) == 0)
          continue;
        v = vocab_get((const uint8_t *)toks[a].w, strlen(toks[a].w));
        v2 = vocab_get((const uint8_t *)toks[b].w, strlen(toks[b].w));
        snprintf(v->lang, sizeof v->lang, "%.3s", docs[i].lang);
      }
    }
    }
    if (!v)
      die("no word for a query", -1);
    snprintf(bq->lang, sizeof bq->lang, "%.3s", v->lang[0] ? v->lang : "en");
    snprintf(bq->words[0], sizeof bq->words[0], "%s", v->w);
    if (v2)
      snprintf(bq->words[1], sizeof bq->words[1], "%s", v2->w);
    if (bq->type == BQ_PREFIX) {
      // Four characters, cut at a character boundary.
      size_t at = 0;
      for (int c = 0; c < 4 && bq->words[0][at]; c++)
        do
          at++;
        while (bq->words[0][at] && ((unsigned char)bq->words[0][at] & 0xc0) == 0x80);
      bq->words[0][at] = 0;
      snprintf(bq->text, sizeof bq->text, "%s*", bq->words[0]);
    } else if (bq->type == BQ_TWO) {
      snprintf(bq->text, sizeof bq->text, "%s %s", bq->words[0], bq->words[1]);
    } else if (bq->type == BQ_PHRASE) {
      snprintf(bq->text, sizeof bq->text, "\"%s %s\"", bq->words[0], bq->words[1]);
    } else {
      snprintf(bq->text, sizeof bq->text, "%s", bq->words[0]);
    }
  }
  fts_analyzer_free(an);
  free(vocab);
}

// ---- measurement ----

static uint64_t dir_bytes(const char *dir) {
  DIR *d = opendir(dir);
  uint64_t total = 0;
  struct dirent *e;
  char p[4096];
  struct stat st;
  while (d && (e = readdir(d)) != NULL) {
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
      total += (uint64_t)st.st_blocks * 512;
  }
  if (d)
    closedir(d);
  return total;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static void emit_latency(const char *bench, const char *impl, uint64_t *s, size_t n, uint64_t items,
                         double *p50_ms, double *p99_ms) {
  qsort(s, n, sizeof *s, cmp_u64);
  uint64_t p50 = s[n / 2], p99 = s[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
  printf("{\"bench\":\"%s\",\"impl\":\"%s\",\"bytes\":0,\"items\":%llu,\"ns\":%llu,"
         "\"median_ns\":%llu,\"p99_ns\":%llu,\"reps\":%zu,\"mb_per_s\":0,\"items_per_s\":%.1f}\n",
         bench, impl, (unsigned long long)items, (unsigned long long)s[0], (unsigned long long)p50,
         (unsigned long long)p99, n, 1e9 / (double)p50);
  *p50_ms = (double)p50 / 1e6;
  *p99_ms = (double)p99 / 1e6;
}

int main(int argc, char **argv) {
  const char *corpus = NULL, *work = "/tmp/bench-ftsearch";
  bool reuse = false, peer = true, rebuild_ours = false;
  const char *only = NULL, *scope = NULL;
  size_t max_docs = 0, per_type = 100, reps = 3, batch_docs = 20000, mailbox_size = 25000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
      corpus = argv[++i];
    else if (!strcmp(argv[i], "--work") && i + 1 < argc)
      work = argv[++i];
    else if (!strcmp(argv[i], "--max-docs") && i + 1 < argc)
      max_docs = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
      per_type = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
      batch_docs = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--mailbox") && i + 1 < argc)
      mailbox_size = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reuse"))
      reuse = true;
    else if (!strcmp(argv[i], "--rebuild-ours"))
      reuse = rebuild_ours = true;
    else if (!strcmp(argv[i], "--no-peer"))
      peer = false;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--scope") && i + 1 < argc)
      scope = argv[++i];
    else {
      fprintf(stderr,
              "usage: bench_ftsearch --corpus DIR [--work DIR] [--max-docs N] [--queries N]\n"
              "                      [--reps N] [--batch N] [--mailbox N] [--reuse]\n"
              "                      [--rebuild-ours] [--no-peer]\n"
              "                      [--only rare|common|two_words|phrase|prefix]\n"
              "                      [--scope account|mailbox|mailbox_array]\n"
              "DIR: mkcorpus --format eml (or maildir) output, e.g.\n"
              "  mkcorpus --seed 7 --count 50000 --format eml --max-size 65536 --out DIR\n"
              "--reuse: keep the two indexes a previous run of the same corpus and\n"
              "  options left in --work (and its indexing figures) and only run the\n"
              "  queries; without it both indexes are rebuilt and timed.\n"
              "--rebuild-ours: as --reuse, but rebuild and time libftsearch's index\n"
              "  (after a format change) and keep Xapian's and its figures.\n"
              "--no-peer: leave Xapian out (profiling; its columns are then 0).\n"
              "--only: run the queries of one type only (profiling).\n"
              "--scope: run the queries of one scope only (profiling).\n");
      return 2;
    }
  }
  if (!corpus || per_type == 0 || reps == 0)
    return 2;
  uint64_t text_bytes;
  load(corpus, max_docs, &text_bytes);
  mailbox_step = num_docs / mailbox_size > 1 ? num_docs / mailbox_size : 2;
  mailbox = malloc(num_docs * sizeof *mailbox);
  for (size_t i = 0; i < num_docs; i++)
    if (in_mailbox(i))
      mailbox[mailbox_len++] = (uint32_t)i + 1;
  fprintf(stderr, "%zu messages, %.1f MB of subject and body text, mailbox of %zu\n", num_docs,
          (double)text_bytes / 1e6, mailbox_len);
  char cmd[4200], ours_path[4200], xap_path[4200], saved_path[4200];
  snprintf(ours_path, sizeof ours_path, "%s/ftsearch.lmdb", work);
  snprintf(xap_path, sizeof xap_path, "%s/xapian", work);
  snprintf(saved_path, sizeof saved_path, "%s.indexing.txt", work);
  // The indexing figures of the run that built the indexes, for --reuse
  // (beside --work, not in it, so as not to count in the index size).
  uint64_t ours_index_ns = 0, ours_index_cpu = 0, xap_index_ns = 0, xap_index_cpu = 0;
  uint64_t ours_bytes = 0, xap_bytes = 0;
  struct fts_encode_stats es;
  FILE *saved = reuse ? fopen(saved_path, "r") : NULL;
  if (reuse) {
    unsigned long long v[16], saved_docs;
    if (!saved ||
        fscanf(saved, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
               &saved_docs, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
               &v[10], &v[11], &v[12], &v[13]) != 15 ||
        saved_docs != num_docs)
      die("--reuse: no indexes of this corpus in --work", -1);
    fclose(saved);
    saved = NULL;
    ours_index_ns = v[0], ours_index_cpu = v[1], xap_index_ns = v[2], xap_index_cpu = v[3];
    for (int k = 0; k < 3; k++)
      es.containers[k] = v[4 + k], es.container_bytes[k] = v[7 + k];
    es.pos_varint = v[10], es.pos_zstd = v[11], es.pos_raw_bytes = v[12];
    es.pos_stored_bytes = v[13];
  } else {
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
    if (system(cmd) != 0)
      die("work directory", -1);
  }

  if (rebuild_ours) {
    char lock_path[4300];
    snprintf(lock_path, sizeof lock_path, "%s-lock", ours_path);
    if ((remove(ours_path) != 0 && errno != ENOENT) || (remove(lock_path) != 0 && errno != ENOENT))
      die("removing the old index", -1);
  }

  // Indexing.
  fts_index *idx;
  int rc = fts_index_open(&idx, ours_path, NULL);
  if (rc)
    die("open", rc);
  if (!reuse || rebuild_ours) {
    fts_batch *b;
    if ((rc = fts_batch_new(idx, &b)) != 0)
      die("batch", rc);
    uint64_t t0 = corvid_bench_now_ns(), c0 = cpu_now_ns();
    for (size_t i = 0; i < num_docs; i++) {
      fts_doc_field f[2] = {
          {FTS_FIELD_SUBJECT, NULL, (const uint8_t *)docs[i].subject, docs[i].subject_len},
          {FTS_FIELD_BODY, NULL, (const uint8_t *)docs[i].body, docs[i].body_len},
      };
      if ((rc = fts_batch_add(b, 1, (uint32_t)i + 1, f, 2)) != 0)
        die("add", rc);
      if ((i + 1) % batch_docs == 0 && (rc = fts_batch_commit(b)) != 0)
        die("commit", rc);
      if (i % 10000 == 9999)
        fprintf(stderr, "\rftsearch indexing %zu/%zu", i + 1, num_docs);
    }
    if ((rc = fts_batch_commit(b)) != 0)
      die("commit", rc);
    ours_index_ns = corvid_bench_now_ns() - t0, ours_index_cpu = cpu_now_ns() - c0;
    fts_batch_free(b);
    fprintf(stderr, "\rftsearch indexed %zu in %.1f s\n", num_docs, (double)ours_index_ns / 1e9);
  }
  ours_bytes = dir_bytes(work);

  if (peer && peer_xapian_open(xap_path, !reuse) != 0)
    die("xapian open", -1);
  if (!reuse) {
    uint64_t t0 = corvid_bench_now_ns(), c0 = cpu_now_ns();
    for (size_t i = 0; i < num_docs && peer; i++) {
      if (peer_xapian_add((uint32_t)i + 1, docs[i].lang, docs[i].subject, docs[i].subject_len,
                          docs[i].body, docs[i].body_len, in_mailbox(i)) != 0)
        die("xapian add", -1);
      if ((i + 1) % batch_docs == 0 && peer_xapian_commit() != 0)
        die("xapian commit", -1);
      if (i % 10000 == 9999)
        fprintf(stderr, "\rxapian indexing %zu/%zu", i + 1, num_docs);
    }
    if (peer && peer_xapian_commit() != 0)
      die("xapian commit", -1);
    xap_index_ns = corvid_bench_now_ns() - t0, xap_index_cpu = cpu_now_ns() - c0;
    fprintf(stderr, "\rxapian indexed %zu in %.1f s\n", num_docs, (double)xap_index_ns / 1e9);
  }
  if (!reuse || rebuild_ours) {
    fts_encode_stats_get(&es);
    saved = fopen(saved_path, "w");
    if (!saved ||
        fprintf(
            saved, "%zu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
            num_docs, (unsigned long long)ours_index_ns, (unsigned long long)ours_index_cpu,
            (unsigned long long)xap_index_ns, (unsigned long long)xap_index_cpu,
            (unsigned long long)es.containers[0], (unsigned long long)es.containers[1],
            (unsigned long long)es.containers[2], (unsigned long long)es.container_bytes[0],
            (unsigned long long)es.container_bytes[1], (unsigned long long)es.container_bytes[2],
            (unsigned long long)es.pos_varint, (unsigned long long)es.pos_zstd,
            (unsigned long long)es.pos_raw_bytes, (unsigned long long)es.pos_stored_bytes) < 0 ||
        fclose(saved) != 0)
      die("saving the indexing figures", -1);
  }
  xap_bytes = dir_bytes(xap_path);

  struct corvid_bench_result r = {ours_index_cpu, ours_index_cpu, 1};
  corvid_bench_emit(stdout, "index_cpu", "ftsearch", text_bytes, num_docs, &r);
  r = (struct corvid_bench_result){xap_index_cpu, xap_index_cpu, 1};
  corvid_bench_emit(stdout, "index_cpu", "xapian", text_bytes, num_docs, &r);
  r = (struct corvid_bench_result){ours_index_ns, ours_index_ns, 1};
  corvid_bench_emit(stdout, "index_wall", "ftsearch", text_bytes, num_docs, &r);
  r = (struct corvid_bench_result){xap_index_ns, xap_index_ns, 1};
  corvid_bench_emit(stdout, "index_wall", "xapian", text_bytes, num_docs, &r);
  printf("{\"bench\":\"index_size\",\"impl\":\"ftsearch\",\"bytes\":%llu,\"text_bytes\":%llu}\n",
         (unsigned long long)ours_bytes, (unsigned long long)text_bytes);
  printf("{\"bench\":\"index_size\",\"impl\":\"xapian\",\"bytes\":%llu,\"text_bytes\":%llu}\n",
         (unsigned long long)xap_bytes, (unsigned long long)text_bytes);
  printf(
      "{\"bench\":\"encodings\",\"impl\":\"ftsearch\",\"array\":%llu,\"packed\":%llu,"
      "\"bitmap\":%llu,\"array_bytes\":%llu,\"packed_bytes\":%llu,\"bitmap_bytes\":%llu,"
      "\"pos_varint\":%llu,\"pos_zstd\":%llu,\"pos_raw_bytes\":%llu,\"pos_stored_bytes\":%llu}\n",
      (unsigned long long)es.containers[0], (unsigned long long)es.containers[1],
      (unsigned long long)es.containers[2], (unsigned long long)es.container_bytes[0],
      (unsigned long long)es.container_bytes[1], (unsigned long long)es.container_bytes[2],
      (unsigned long long)es.pos_varint, (unsigned long long)es.pos_zstd,
      (unsigned long long)es.pos_raw_bytes, (unsigned long long)es.pos_stored_bytes);

  // Queries.
  struct bench_query *qs = calloc(per_type * BQ_NUM, sizeof *qs);
  make_queries(qs, per_type);
  fts_query **parsed = calloc(per_type * BQ_NUM, sizeof *parsed);
  for (size_t q = 0; q < per_type * BQ_NUM; q++)
    if ((rc = fts_query_parse(&parsed[q], NULL, qs[q].text, strlen(qs[q].text), NULL)) != 0)
      die(qs[q].text, rc);
  uint32_t *out = malloc((num_docs + 1) * sizeof *out);
  uint64_t *s_ours = malloc(per_type * reps * sizeof *s_ours);
  uint64_t *s_xap = malloc(per_type * reps * sizeof *s_xap);
  uint64_t *w_ours = malloc(per_type * reps * sizeof *w_ours);
  uint64_t *w_xap = malloc(per_type * reps * sizeof *w_xap);
  // The mailbox as a prepared filter (as a server keeps one per mailbox)
  // and as a plain array converted on every call.
  fts_filter *mailbox_filter;
  if ((rc = fts_filter_new(&mailbox_filter, mailbox, mailbox_len)) != 0)
    die("filter", rc);
  double table[BQ_NUM][3][4], wall[BQ_NUM][3][4];
  uint64_t hits[BQ_NUM][3];
  size_t disagree[BQ_NUM][3];
  static const char *const scopes[3] = {"", "/mailbox", "/mailbox_array"};
  for (int type = 0; type < BQ_NUM; type++)
    for (int mb = 0; mb < 3; mb++) {
      memset(table[type][mb], 0, sizeof table[type][mb]);
      memset(wall[type][mb], 0, sizeof wall[type][mb]);
      hits[type][mb] = 0;
      disagree[type][mb] = 0;
      if ((only && strcmp(only, qnames[type]) != 0) ||
          (scope && strcmp(scope, mb ? scopes[mb] + 1 : "account") != 0))
        continue;
      size_t ns = 0;
      hits[type][mb] = 0;
      disagree[type][mb] = 0;
      for (size_t rep = 0; rep < reps; rep++)
        for (size_t k = 0; k < per_type; k++) {
          size_t q = (size_t)type * per_type + k;
          fts_search_options o = {.field_mask = 1u << FTS_FIELD_BODY, .lang = qs[q].lang};
          if (mb == 1) {
            o.prepared = mailbox_filter;
          } else if (mb == 2) {
            o.filter = mailbox;
            o.num_filter = mailbox_len;
          }
          size_t n_ours;
          uint64_t a = corvid_bench_now_ns(), ac = cpu_now_ns();
          rc = fts_search_into(idx, out, num_docs + 1, &n_ours, 1, parsed[q], &o);
          uint64_t bns = corvid_bench_now_ns(), bc = cpu_now_ns();
          if (rc)
            die(qs[q].text, rc);
          long n_xap = peer ? peer_xapian_query(&qs[q], mb != 0, out, num_docs + 1) : (long)n_ours;
          uint64_t c = corvid_bench_now_ns(), cc = cpu_now_ns();
          if (n_xap < 0)
            die("xapian query", -1);
          w_ours[ns] = bns - a;
          w_xap[ns] = c - bns;
          s_ours[ns] = bc - ac;
          s_xap[ns++] = cc - bc;
          if (rep == 0) {
            hits[type][mb] += n_ours;
            // Tokenizers differ at the edges; most counts agree exactly.
            if ((long)n_ours != n_xap)
              disagree[type][mb]++;
          }
        }
      char name[64];
      snprintf(name, sizeof name, "query/%s%s", qnames[type], scopes[mb]);
      emit_latency(name, "ftsearch", s_ours, ns, hits[type][mb] / per_type, &table[type][mb][0],
                   &table[type][mb][1]);
      emit_latency(name, "xapian", s_xap, ns, hits[type][mb] / per_type, &table[type][mb][2],
                   &table[type][mb][3]);
      snprintf(name, sizeof name, "query_wall/%s%s", qnames[type], scopes[mb]);
      emit_latency(name, "ftsearch", w_ours, ns, hits[type][mb] / per_type, &wall[type][mb][0],
                   &wall[type][mb][1]);
      emit_latency(name, "xapian", w_xap, ns, hits[type][mb] / per_type, &wall[type][mb][2],
                   &wall[type][mb][3]);
    }
  fprintf(stderr, "\n%zu messages, %.1f MB text; %zu queries per type, %zu reps\n", num_docs,
          (double)text_bytes / 1e6, per_type, reps);
  fprintf(stderr,
          "indexing (CPU time): ftsearch %.0f msg/s (%.2f MB/s), xapian %.0f msg/s (%.2f MB/s)\n"
          "indexing (wall time): ftsearch %.0f msg/s, xapian %.0f msg/s\n",
          (double)num_docs * 1e9 / (double)ours_index_cpu,
          (double)text_bytes * 1e3 / (double)ours_index_cpu,
          (double)num_docs * 1e9 / (double)xap_index_cpu,
          (double)text_bytes * 1e3 / (double)xap_index_cpu,
          (double)num_docs * 1e9 / (double)ours_index_ns,
          (double)num_docs * 1e9 / (double)xap_index_ns);
  fprintf(stderr, "index size: ftsearch %.1f MB (%.2f x text), xapian %.1f MB (%.2f x text)\n",
          (double)ours_bytes / 1e6, (double)ours_bytes / (double)text_bytes,
          (double)xap_bytes / 1e6, (double)xap_bytes / (double)text_bytes);
  fprintf(stderr,
          "latency in CPU time (wall-clock p50 in brackets)\n"
          "| query | scope | avg hits | ftsearch p50 | p99 | xapian p50 | p99 | speed-up p50 | "
          "count differs |\n|---|---|---|---|---|---|---|---|---|\n");
  for (int type = 0; type < BQ_NUM; type++)
    for (int mb = 0; mb < 3; mb++)
      fprintf(stderr,
              "| %s | %s | %llu | %.3f ms (%.3f) | %.3f ms | %.3f ms (%.3f) | %.3f ms | %.1fx | "
              "%zu/%zu |\n",
              qnames[type],
              mb == 0   ? "account"
              : mb == 1 ? "mailbox"
                        : "mailbox (array)",
              (unsigned long long)(hits[type][mb] / per_type), table[type][mb][0],
              wall[type][mb][0], table[type][mb][1], table[type][mb][2], wall[type][mb][2],
              table[type][mb][3], table[type][mb][2] / table[type][mb][0], disagree[type][mb],
              per_type);
  fprintf(stderr,
          "containers: array %llu (%llu B), packed %llu (%llu B), bitmap %llu (%llu B); positions: "
          "varint %llu, zstd %llu blocks, %.1f MB raw -> %.1f MB stored\n",
          (unsigned long long)es.containers[0], (unsigned long long)es.container_bytes[0],
          (unsigned long long)es.containers[1], (unsigned long long)es.container_bytes[1],
          (unsigned long long)es.containers[2], (unsigned long long)es.container_bytes[2],
          (unsigned long long)es.pos_varint, (unsigned long long)es.pos_zstd,
          (double)es.pos_raw_bytes / 1e6, (double)es.pos_stored_bytes / 1e6);
  for (size_t q = 0; q < per_type * BQ_NUM; q++)
    fts_query_free(parsed[q]);
  free(parsed);
  free(qs);
  free(out);
  free(s_ours);
  free(s_xap);
  free(w_ours);
  free(w_xap);
  fts_filter_free(mailbox_filter);
  if (peer)
    peer_xapian_close();
  fts_index_close(idx);
  return 0;
}
