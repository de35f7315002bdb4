// stats.c: what a corpus turned out to contain, for --stats: the size
// distribution (percentiles, mean, power-of-two histogram), the mix of MIME
// shapes, transfer encodings, charsets and languages, thread sizes and
// attachment sizes. Benchmarks quote these figures next to their results.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

struct size_list {
  size_t *v;
  size_t n;
  size_t cap;
};

struct mkc_stats {
  struct size_list sizes;
  struct size_list attachment_sizes;
  struct size_list thread_sizes; // indexed by thread id
  unsigned long long bytes;
  unsigned long shape[MKC_SHAPE_COUNT];
  unsigned long lang[MKC_LANG_COUNT];
  unsigned long cte[MKC_CTE_COUNT];
  unsigned long charset[MKC_CS_COUNT];
  unsigned long ew_charset[MKC_CS_COUNT];
  unsigned long fallbacks, attachments, with_attachments, inline_images, filenames_2231;
  unsigned long shrunk, replies;
};

static const char *const shape_labels[MKC_SHAPE_COUNT] = {
    "text/plain",
    "text/html only",
    "multipart/alternative",
    "multipart/mixed (attachments)",
    "multipart/related (inline images)",
    "forwarded message/rfc822",
    "multipart/signed (OpenPGP)",
    "multipart/signed (S/MIME)",
};

const char *mkc_shape_label(enum mkc_shape shape) {
  return shape_labels[shape];
}

static void push(struct size_list *l, size_t v) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 1024;
    l->v = mkc_xrealloc(l->v, l->cap * sizeof *l->v);
  }
  l->v[l->n++] = v;
}

struct mkc_stats *mkc_stats_new(void) {
  return mkc_xcalloc(1, sizeof(struct mkc_stats));
}

void mkc_stats_free(struct mkc_stats *s) {
  if (!s)
    return;
  free(s->sizes.v);
  free(s->attachment_sizes.v);
  free(s->thread_sizes.v);
  free(s);
}

void mkc_stats_add(struct mkc_stats *s, const struct mkc_msg_stats *m) {
  push(&s->sizes, m->size);
  s->bytes += m->size;
  s->shape[m->shape]++;
  s->lang[m->lang]++;
  for (int i = 0; i < MKC_CTE_COUNT; i++)
    s->cte[i] += m->cte[i];
  for (int i = 0; i < MKC_CS_COUNT; i++) {
    s->charset[i] += m->charset[i];
    s->ew_charset[i] += m->ew_charset[i];
  }
  for (unsigned i = 0; i < m->num_attachment_sizes; i++)
    push(&s->attachment_sizes, m->attachment_bytes[i]);
  s->fallbacks += m->charset_fallbacks;
  s->attachments += m->attachments;
  s->with_attachments += m->attachments > 0;
  s->inline_images += m->inline_images;
  s->filenames_2231 += m->filenames_2231;
  s->shrunk += m->size_retries > 0;
  s->replies += m->is_reply;
  while (s->thread_sizes.n <= m->thread_id)
    push(&s->thread_sizes, 0);
  s->thread_sizes.v[m->thread_id]++;
}

static int compare_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

// Nearest-rank percentile of a sorted list.
static size_t percentile(const struct size_list *l, double p) {
  if (l->n == 0)
    return 0;
  size_t rank = (size_t)(p / 100.0 * (double)l->n + 0.999999);
  if (rank < 1)
    rank = 1;
  return l->v[(rank > l->n ? l->n : rank) - 1];
}

static double share(unsigned long part, unsigned long whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_distribution(FILE *f, const char *what, struct size_list *l) {
  if (l->n > 1) // an empty list has no array: qsort's pointer must not be NULL
    qsort(l->v, l->n, sizeof *l->v, compare_size);
  unsigned long long total = 0;
  for (size_t i = 0; i < l->n; i++)
    total += l->v[i];
  fprintf(f,
          "%s: n=%zu min=%zu p10=%zu p25=%zu p50=%zu p75=%zu p90=%zu p99=%zu p99.9=%zu max=%zu "
          "mean=%.0f\n",
          what, l->n, l->n ? l->v[0] : 0, percentile(l, 10), percentile(l, 25), percentile(l, 50),
          percentile(l, 75), percentile(l, 90), percentile(l, 99), percentile(l, 99.9),
          l->n ? l->v[l->n - 1] : 0, l->n ? (double)total / (double)l->n : 0.0);
}

static void print_histogram(FILE *f, const struct size_list *sorted) {
  fprintf(f, "size histogram (bytes):\n");
  size_t lo = 0;
  size_t i = 0;
  for (size_t hi = 1024; i < sorted->n; hi *= 2) {
    size_t n = 0;
    while (i < sorted->n && sorted->v[i] < hi) {
      n++;
      i++;
    }
    char label[48];
    if (lo == 0)
      snprintf(label, sizeof label, "< %zu KiB", hi / 1024);
    else if (lo < 1048576)
      snprintf(label, sizeof label, "%zu-%zu KiB", lo / 1024, hi / 1024);
    else
      snprintf(label, sizeof label, "%zu-%zu MiB", lo / 1048576, hi / 1048576);
    int bar = (int)(share(n, sorted->n) / 2 + 0.5);
    fprintf(f, "  %-14s %8zu %6.2f%% %.*s\n", label, n, share(n, sorted->n), bar,
            "##################################################");
    lo = hi;
  }
}

static void print_counts(FILE *f, const char *title, const unsigned long *counts, size_t n,
                         const char *(*label)(size_t)) {
  unsigned long total = 0;
  for (size_t i = 0; i < n; i++)
    total += counts[i];
  fprintf(f, "%s (%lu):\n", title, total);
  for (size_t i = 0; i < n; i++)
    if (counts[i])
      fprintf(f, "  %-36s %8lu %6.2f%%\n", label(i), counts[i], share(counts[i], total));
}

static const char *shape_name(size_t i) {
  return shape_labels[i];
}
static const char *cte_name(size_t i) {
  return mkc_cte_name((enum mkc_cte)i);
}
static const char *charset_name(size_t i) {
  return mkc_charset_name((enum mkc_charset)i);
}
static const char *lang_name(size_t i) {
  return mkc_lang((enum mkc_lang)i)->label;
}

static void print_threads(FILE *f, const struct mkc_stats *s) {
  static const size_t bounds[] = {1, 2, 4, 9, 19, 49, MKC_MAX_THREAD_SIZE};
  unsigned long buckets[7] = {0};
  size_t largest = 0;
  for (size_t i = 0; i < s->thread_sizes.n; i++) {
    size_t v = s->thread_sizes.v[i];
    largest = v > largest ? v : largest;
    size_t b = 0;
    while (b + 1 < 7 && v > bounds[b])
      b++;
    buckets[b]++;
  }
  size_t threads = s->thread_sizes.n;
  fprintf(f, "threads: %zu, mean %.2f messages, largest %zu, replies %.2f%% of messages\n", threads,
          threads ? (double)s->sizes.n / (double)threads : 0.0, largest,
          share(s->replies, s->sizes.n));
  static const char *const labels[] = {"1", "2", "3-4", "5-9", "10-19", "20-49", "50-100"};
  for (int b = 0; b < 7; b++)
    fprintf(f, "  %-7s messages: %7lu threads %6.2f%%\n", labels[b], buckets[b],
            share(buckets[b], threads));
}

void mkc_stats_print(struct mkc_stats *s, FILE *f, uint64_t seed) {
  fprintf(f, "mkcorpus statistics: seed %llu, %zu messages, %llu bytes (CRLF form)\n",
          (unsigned long long)seed, s->sizes.n, s->bytes);
  print_distribution(f, "message size", &s->sizes);
  print_histogram(f, &s->sizes);
  print_counts(f, "MIME shape (messages)", s->shape, MKC_SHAPE_COUNT, shape_name);
  print_counts(f, "transfer encoding (leaf parts)", s->cte, MKC_CTE_COUNT, cte_name);
  print_counts(f, "charset (text parts)", s->charset, MKC_CS_COUNT, charset_name);
  print_counts(f, "charset (RFC 2047 header fields)", s->ew_charset, MKC_CS_COUNT, charset_name);
  print_counts(f, "language (messages)", s->lang, MKC_LANG_COUNT, lang_name);
  print_threads(f, s);
  fprintf(f,
          "attachments: %lu in %lu messages (%.2f%%), %lu with non-ASCII names; "
          "%lu inline images\n",
          s->attachments, s->with_attachments, share(s->with_attachments, s->sizes.n),
          s->filenames_2231, s->inline_images);
  print_distribution(f, "attachment size", &s->attachment_sizes);
  fprintf(f, "charset fallbacks to utf-8: %lu; messages shrunk to fit --max-size: %lu\n",
          s->fallbacks, s->shrunk);
}
