// test_oracle.c: the index against brute force. mkcorpus writes a corpus
// (5,000 messages, or FTS_ORACLE_MESSAGES), mailtext turns each message into
// fields, the fields are indexed in batches (document ids spread over three
// blocks), and hundreds of random single-word, two-word, phrase, prefix, OR
// and NOT queries built from the corpus's own words are answered twice: by
// fts_search and by a scan over every document's terms from the same
// analyzer. The answers must be identical, with and without a filter. A
// query word is stemmed in every language the corpus's fields were stemmed
// in, each stem matching in the fields of its language, as ftsearch.h
// promises.
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corvid_libtest.h"
#define CORVID_TEST_TMP_NAME "fts-oracle"
#include "corvid_test_tmp.h"
#include "ftsearch.h"
#include "mailtext.h"

enum { SPREAD = 29, NUM_QUERIES = 600 };

static const char *mkcorpus_path;

// ---- the brute-force side: every document's terms, interned ----

struct tpos {
  uint32_t term;
  uint32_t pos;
  uint8_t kind;
};

static struct {
  char **strs;
  uint32_t *lens;
  size_t num, cap;
  uint32_t *slots; // id + 1
  size_t slots_cap;
} dict;

static uint64_t hash(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// intern returns the id of the term, adding it when `add`; UINT32_MAX if
// absent and not added.
static uint32_t intern(const uint8_t *p, size_t n, bool add) {
  if (2 * (dict.num + 1) > dict.slots_cap) {
    size_t cap = dict.slots_cap ? 2 * dict.slots_cap : 1 << 16;
    uint32_t *s = calloc(cap, sizeof *s);
    for (size_t i = 0; i < dict.num; i++) {
      size_t j = hash((uint8_t *)dict.strs[i], dict.lens[i]) & (cap - 1);
      while (s[j])
        j = (j + 1) & (cap - 1);
      s[j] = (uint32_t)i + 1;
    }
    free(dict.slots);
    dict.slots = s;
    dict.slots_cap = cap;
  }
  size_t j = hash(p, n) & (dict.slots_cap - 1);
  for (; dict.slots[j]; j = (j + 1) & (dict.slots_cap - 1)) {
    uint32_t id = dict.slots[j] - 1;
    if (dict.lens[id] == n && memcmp(dict.strs[id], p, n) == 0)
      return id;
  }
  if (!add)
    return UINT32_MAX;
  if (dict.num == dict.cap) {
    dict.cap = dict.cap ? 2 * dict.cap : 1 << 15;
    dict.strs = realloc(dict.strs, dict.cap * sizeof *dict.strs);
    dict.lens = realloc(dict.lens, dict.cap * sizeof *dict.lens);
  }
  dict.strs[dict.num] = malloc(n + 1);
  memcpy(dict.strs[dict.num], p, n);
  dict.strs[dict.num][n] = 0;
  dict.lens[dict.num] = (uint32_t)n;
  dict.slots[j] = (uint32_t)++dict.num;
  return (uint32_t)dict.num - 1;
}

struct docfield {
  struct tpos *t;
  size_t n, cap;
};

static struct docfield (*docs)[FTS_MAX_FIELDS];
static size_t num_docs;

static int collect_doc(void *ctx, const fts_term *t) {
  struct docfield *f = ctx;
  if (t->len == 0 || t->len > 255 || memchr(t->bytes, 0, t->len))
    return 0; // the index keeps terms up to 255 bytes, without NUL
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->t = realloc(f->t, f->cap * sizeof *f->t);
  }
  f->t[f->n++] = (struct tpos){intern(t->bytes, t->len, true), t->position, t->kind};
  return 0;
}

// ---- query analysis, as the engine specifies it ----

struct qterms {
  uint32_t words[64], rel[64];
  size_t num_words;
  bool has_stem, unknown;
  uint32_t stem;
  uint8_t prefix[256];
  size_t prefix_len;
  bool first;
  uint32_t first_pos;
  // One word without a language: its stem in each language of the corpus's
  // fields (the word itself where a language leaves it alone).
  uint32_t alt_stems[64];
  bool alt_is_stem[64];
  uint16_t alt_fields[64]; // fields stemmed in the languages giving it
  size_t num_alt;
};

// The languages the analyzer stemmed the corpus's fields in, each with the
// fields stemmed in it.
static char corpus_langs[64][4];
static uint16_t corpus_lang_fields[64];
static size_t num_corpus_langs;

static void note_lang(const char *code, unsigned field) {
  for (size_t i = 0; i < num_corpus_langs; i++)
    if (strcmp(corpus_langs[i], code) == 0) {
      corpus_lang_fields[i] |= (uint16_t)(1u << field);
      return;
    }
  ck_assert_uint_lt(num_corpus_langs, 64);
  corpus_lang_fields[num_corpus_langs] = (uint16_t)(1u << field);
  snprintf(corpus_langs[num_corpus_langs++], 4, "%s", code);
}

static int first_stem(void *ctx, const fts_term *t) {
  fts_term *out = ctx;
  if (t->kind == FTS_TERM_STEM && out->len == 0)
    *out = *t;
  return 0;
}

static int collect_query(void *ctx, const fts_term *t) {
  struct qterms *q = ctx;
  if (t->len == 0 || t->len > 255 || memchr(t->bytes, 0, t->len))
    return 0;
  // A query term absent from every document matches nothing; it keeps an
  // id that no document has.
  uint32_t id = intern(t->bytes, t->len, false);
  if (t->kind == FTS_TERM_STEM) {
    if (!q->has_stem) {
      q->has_stem = true;
      q->stem = id;
    }
    return 0;
  }
  if (q->num_words == 0) {
    memcpy(q->prefix, t->bytes, t->len);
    q->prefix_len = t->len;
    q->first_pos = t->position;
  }
  if (q->num_words < 64) {
    q->words[q->num_words] = id;
    q->rel[q->num_words++] = t->position - q->first_pos;
  }
  return 0;
}

enum { L_WORD, L_PHRASE, L_PREFIX };

// leaf_match tells whether document `d` matches the leaf; -1 when the leaf
// has no terms (neutral).
static int leaf_match(const struct qterms *q, int kind, size_t d, const bool *prefix_ids) {
  if (q->num_words == 0)
    return -1;
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++) {
    const struct docfield *df = &docs[d][f];
    if (kind == L_PREFIX) {
      for (size_t i = 0; i < df->n; i++)
        if (df->t[i].kind == FTS_TERM_WORD && prefix_ids[df->t[i].term])
          return 1;
      continue;
    }
    if (q->num_words == 1 && kind == L_WORD && q->num_alt) {
      for (size_t i = 0; i < df->n; i++) {
        const struct tpos *t = &df->t[i];
        if (t->kind == FTS_TERM_WORD && t->term == q->words[0])
          return 1;
        for (size_t a = 0; a < q->num_alt; a++)
          if (t->term == q->alt_stems[a] && (t->kind == FTS_TERM_STEM || q->alt_is_stem[a]) &&
              (q->alt_fields[a] & (1u << f)))
            return 1;
      }
      continue;
    }
    if (q->num_words == 1) {
      uint32_t w = q->words[0];
      uint32_t s = q->has_stem ? q->stem : w;
      for (size_t i = 0; i < df->n; i++) {
        const struct tpos *t = &df->t[i];
        if (t->kind == FTS_TERM_WORD && t->term == w)
          return 1;
        if (kind == L_WORD && t->kind == FTS_TERM_STEM && t->term == s)
          return 1;
        if (kind == L_WORD && q->has_stem && t->kind == FTS_TERM_WORD && t->term == s)
          return 1;
      }
      continue;
    }
    // Phrase: every word at its offset from a start position.
    for (size_t i = 0; i < df->n; i++) {
      const struct tpos *t = &df->t[i];
      if (t->kind != FTS_TERM_WORD || t->term != q->words[0])
        continue;
      bool all = true;
      for (size_t k = 1; k < q->num_words && all; k++) {
        bool found = false;
        for (size_t j = 0; j < df->n && !found; j++)
          found = df->t[j].kind == FTS_TERM_WORD && df->t[j].term == q->words[k] &&
                  df->t[j].pos == t->pos + q->rel[k];
        all = found;
      }
      if (all)
        return 1;
    }
  }
  return 0;
}

// ---- generated queries ----

struct gleaf {
  int kind;
  char text[300];
};

struct gquery {
  int op; // 0 AND, 1 OR, 2 a AND NOT b
  struct gleaf leaf[3];
  size_t num;
  char text[1024];
};

static bool usable(const char *s, size_t n) {
  if (n == 0 || s[0] == '-')
    return false;
  for (size_t i = 0; i < n; i++)
    if (strchr("()\":* \t\r\n", s[i]))
      return false;
  return true;
}

static uint64_t rng_state = 0x1234567;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

// A random WORD term of a random non-empty field of a random document.
static const struct tpos *random_word(size_t *doc, unsigned *field, size_t *index) {
  for (int tries = 0; tries < 1000; tries++) {
    size_t d = rnd((uint32_t)num_docs);
    unsigned f = rnd(100) < 70 ? FTS_FIELD_BODY : rnd(FTS_MAX_FIELDS);
    struct docfield *df = &docs[d][f];
    if (df->n == 0)
      continue;
    size_t i = rnd((uint32_t)df->n);
    if (df->t[i].kind != FTS_TERM_WORD)
      continue;
    if (!usable(dict.strs[df->t[i].term], dict.lens[df->t[i].term]))
      continue;
    *doc = d;
    *field = f;
    *index = i;
    return &df->t[i];
  }
  return NULL;
}

static void gen_leaf(struct gleaf *l, int kind) {
  size_t d, i;
  unsigned f;
  const struct tpos *t = random_word(&d, &f, &i);
  ck_assert_ptr_nonnull(t);
  l->kind = kind;
  const char *w = dict.strs[t->term];
  if (kind == L_WORD) {
    snprintf(l->text, sizeof l->text, "%s", w);
  } else if (kind == L_PREFIX) {
    // 2-5 characters of the word, cut at a character boundary.
    size_t chars = 2 + rnd(4), at = 0;
    for (size_t c = 0; c < chars && w[at]; c++)
      do
        at++;
      while (w[at] && ((unsigned char)w[at] & 0xc0) == 0x80);
    snprintf(l->text, sizeof l->text, "%.*s*", (int)at, w);
  } else {
    // The word and the first words at the next one or two positions.
    size_t len = 2 + rnd(2), at = 0;
    struct docfield *df = &docs[d][f];
    at += (size_t)snprintf(l->text, sizeof l->text, "\"%s", w);
    for (size_t k = 1; k < len; k++) {
      for (size_t j = 0; j < df->n; j++)
        if (df->t[j].kind == FTS_TERM_WORD && df->t[j].pos == t->pos + k &&
            usable(dict.strs[df->t[j].term], dict.lens[df->t[j].term])) {
          at +=
              (size_t)snprintf(l->text + at, sizeof l->text - at, " %s", dict.strs[df->t[j].term]);
          break;
        }
    }
    snprintf(l->text + at, sizeof l->text - at, "\"");
  }
}

static void gen_query(struct gquery *q, unsigned i) {
  memset(q, 0, sizeof *q);
  switch (i % 6) {
  case 0: // one word
    q->num = 1;
    gen_leaf(&q->leaf[0], L_WORD);
    break;
  case 1: // two words
    q->num = 2;
    gen_leaf(&q->leaf[0], L_WORD);
    gen_leaf(&q->leaf[1], L_WORD);
    break;
  case 2:
    q->num = 1;
    gen_leaf(&q->leaf[0], L_PHRASE);
    break;
  case 3:
    q->num = 1;
    gen_leaf(&q->leaf[0], L_PREFIX);
    break;
  case 4: // OR of a word and a prefix or phrase
    q->op = 1;
    q->num = 2;
    gen_leaf(&q->leaf[0], L_WORD);
    gen_leaf(&q->leaf[1], rnd(2) ? L_PREFIX : L_PHRASE);
    break;
  default: // a word without another
    q->op = 2;
    q->num = 2;
    gen_leaf(&q->leaf[0], rnd(2) ? L_WORD : L_PREFIX);
    gen_leaf(&q->leaf[1], L_WORD);
    break;
  }
  if (q->num == 1)
    snprintf(q->text, sizeof q->text, "%s", q->leaf[0].text);
  else
    snprintf(q->text, sizeof q->text, "%s %s%s", q->leaf[0].text,
             q->op == 1   ? "OR "
             : q->op == 2 ? "-"
                          : "",
             q->leaf[1].text);
}

// ---- the test ----

static void run_mkcorpus(const char *out, unsigned count) {
  char n[16];
  snprintf(n, sizeof n, "%u", count);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl(mkcorpus_path, "mkcorpus", "--seed", "11", "--count", n, "--format", "eml", "--out", out,
          "--max-size", "65536", (char *)NULL);
    _exit(127);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "mkcorpus failed");
}

START_TEST(index_answers_as_brute_force) {
  unsigned count = 5000;
  const char *env = getenv("FTS_ORACLE_MESSAGES");
  if (env && atoi(env) > 0)
    count = (unsigned)atoi(env);
  char eml[96], path[96];
  snprintf(eml, sizeof eml, "%s/eml", corvid_test_root);
  snprintf(path, sizeof path, "%s/index", corvid_test_root);
  run_mkcorpus(eml, count);
  char **paths;
  ck_assert_int_eq(ftm_list(eml, &paths, &num_docs, NULL), 0);
  ck_assert_uint_eq(num_docs, count);
  docs = calloc(num_docs, sizeof *docs);
  fts_index *idx;
  fts_index_settings s = {.flags = FTS_INDEX_NO_SYNC};
  ck_assert_int_eq(fts_index_open(&idx, path, &s), 0);
  fts_batch *b;
  ck_assert_int_eq(fts_batch_new(idx, &b), 0);
  fts_analyzer *an;
  ck_assert_int_eq(fts_analyzer_new(&an, NULL), 0);
  struct ftm_text t = {0};
  for (size_t i = 0; i < num_docs; i++) {
    uint8_t *msg;
    size_t len;
    ck_assert_int_eq(ftm_read_file(paths[i], &msg, &len), 0);
    ck_assert_int_eq(ftm_extract(&t, msg, len), 0);
    free(msg);
    fts_doc_field fields[FTS_MAX_FIELDS];
    size_t nf = ftm_fields(&t, fields);
    ck_assert_int_eq(fts_batch_add(b, 1, (uint32_t)(i + 1) * SPREAD, fields, nf), 0);
    for (size_t k = 0; k < nf; k++) {
      size_t before = docs[i][fields[k].field].n;
      ck_assert_int_eq(fts_analyze(an, fields[k].lang, fields[k].text, fields[k].text_len,
                                   collect_doc, &docs[i][fields[k].field]),
                       0);
      bool words = false;
      for (size_t j = before; j < docs[i][fields[k].field].n; j++)
        words |= docs[i][fields[k].field].t[j].kind == FTS_TERM_WORD;
      if (words)
        note_lang(fts_analyzer_language(an), fields[k].field);
    }
    if (i % 1500 == 1499)
      ck_assert_int_eq(fts_batch_commit(b), 0);
  }
  ck_assert_int_eq(fts_batch_commit(b), 0);
  fts_batch_free(b);
  ftm_free(&t);
  ftm_list_free(paths, num_docs);

  // A filter: every third document.
  uint32_t *filter = malloc(num_docs * sizeof *filter);
  size_t num_filter = 0;
  for (size_t i = 0; i < num_docs; i += 3)
    filter[num_filter++] = (uint32_t)(i + 1) * SPREAD;
  fts_filter *prepared;
  ck_assert_int_eq(fts_filter_new(&prepared, filter, num_filter), 0);
  bool *prefix_ids = calloc(dict.num + 1, sizeof *prefix_ids);
  bool *expect = malloc(num_docs * sizeof *expect);
  unsigned nonempty = 0;
  for (unsigned qi = 0; qi < NUM_QUERIES; qi++) {
    struct gquery g;
    gen_query(&g, qi);
    struct qterms qt[3];
    for (size_t k = 0; k < g.num; k++) {
      memset(&qt[k], 0, sizeof qt[k]);
      const char *text = g.leaf[k].text;
      size_t tl = strlen(text);
      if (g.leaf[k].kind == L_PHRASE) {
        text++;
        tl -= 2;
      } else if (g.leaf[k].kind == L_PREFIX) {
        tl--;
      }
      ck_assert_int_eq(fts_analyze(an, NULL, (const uint8_t *)text, tl, collect_query, &qt[k]), 0);
      if (g.leaf[k].kind != L_WORD || qt[k].num_words != 1)
        continue;
      for (size_t li = 0; li < num_corpus_langs; li++) {
        fts_term st = {0};
        ck_assert_int_eq(
            fts_analyze(an, corpus_langs[li], (const uint8_t *)text, tl, first_stem, &st), 0);
        uint32_t id = st.len ? intern(st.bytes, st.len, false) : qt[k].words[0];
        // The same term from two languages is one alternative over the
        // fields of both.
        bool dup = false;
        for (size_t a = 0; a < qt[k].num_alt && !dup; a++)
          if (qt[k].alt_stems[a] == id && qt[k].alt_is_stem[a] == (st.len != 0)) {
            qt[k].alt_fields[a] |= corpus_lang_fields[li];
            dup = true;
          }
        if (!dup) {
          qt[k].alt_stems[qt[k].num_alt] = id;
          qt[k].alt_fields[qt[k].num_alt] = corpus_lang_fields[li];
          qt[k].alt_is_stem[qt[k].num_alt++] = st.len != 0;
        }
      }
    }
    for (size_t d = 0; d < num_docs; d++) {
      int r[3];
      for (size_t k = 0; k < g.num; k++) {
        if (g.leaf[k].kind == L_PREFIX && d == 0) {
          memset(prefix_ids, 0, dict.num);
          for (size_t id = 0; id < dict.num; id++)
            prefix_ids[id] = dict.lens[id] >= qt[k].prefix_len &&
                             memcmp(dict.strs[id], qt[k].prefix, qt[k].prefix_len) == 0;
        }
        r[k] = leaf_match(&qt[k], g.leaf[k].kind, d, prefix_ids);
      }
      bool e;
      if (g.num == 1)
        e = r[0] == 1;
      else if (g.op == 0)
        e = r[0] != 0 && r[1] != 0 && !(r[0] < 0 && r[1] < 0);
      else if (g.op == 1)
        e = r[0] == 1 || r[1] == 1;
      else
        e = r[0] != 0 && !(r[0] < 0 && r[1] < 0) && r[1] != 1;
      expect[d] = e;
    }
    fts_query *q;
    size_t off;
    int rc = fts_query_parse(&q, NULL, g.text, strlen(g.text), &off);
    ck_assert_msg(rc == 0, "%s: parse %d at %zu", g.text, rc, off);
    for (int filtered = 0; filtered < 2; filtered++) {
      fts_search_options o = {0};
      if (filtered && qi % 2) { // prepared and array filters take turns
        o.prepared = prepared;
      } else if (filtered) {
        o.filter = filter;
        o.num_filter = num_filter;
      }
      fts_result *res;
      rc = fts_search(idx, &res, 1, q, &o);
      ck_assert_msg(rc == 0, "%s: %s", g.text, fts_strerror(rc));
      size_t k = 0;
      for (size_t d = 0; d < num_docs; d++) {
        if (!expect[d] || (filtered && d % 3 != 0))
          continue;
        uint32_t id = (uint32_t)(d + 1) * SPREAD;
        ck_assert_msg(k < res->num_docs && res->docs[k] == id,
                      "query %u '%s'%s: document %u expected, index gives %u", qi, g.text,
                      filtered ? " (filtered)" : "", id, k < res->num_docs ? res->docs[k] : 0);
        k++;
      }
      ck_assert_msg(k == res->num_docs, "query %u '%s'%s: index gives %zu extra, e.g. %u", qi,
                    g.text, filtered ? " (filtered)" : "", res->num_docs - k, res->docs[k]);
      if (!filtered && k > 0)
        nonempty++;
      fts_result_free(res);
    }
    fts_query_free(q);
  }
  // Most queries come from the corpus's own words, so they find something.
  ck_assert_uint_gt(nonempty, NUM_QUERIES / 2);
  printf("# %u queries over %zu messages, %u with results, %zu distinct terms\n", NUM_QUERIES,
         num_docs, nonempty, dict.num);
  free(prefix_ids);
  free(expect);
  free(filter);
  fts_filter_free(prepared);
  fts_analyzer_free(an);
  fts_index_close(idx);
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_fts_oracle PATH-TO-MKCORPUS\n");
    return 2;
  }
  mkcorpus_path = argv[1];
  Suite *s = suite_create("ftsearch-oracle");
  TCase *tc = tcase_create("oracle");
  tcase_set_timeout(tc, 280);
  tcase_add_test(tc, index_answers_as_brute_force);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
