// search.c: query evaluation: analysing the query's words as documents are
// analysed, choosing the posting blocks to read (those of the filter's
// documents, or every block with live documents), evaluating the query tree
// block by block on 65,536-bit bitmaps (phrases checked on positions,
// prefixes expanded through the sorted dictionary) or, for a word with few
// documents per block, on document ids (the sparse path), BM25 ranking
// (prefixes over their expansions), and the strict substring search for
// IMAP SEARCH.
#include "index_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <utf8proc.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

enum { LEAF_EMPTY, LEAF_ALT, LEAF_PHRASE, LEAF_PREFIX };

struct aterm {
  uint8_t kind;
  uint8_t len;
  // LEAF_ALT: the fields to look the term up in. A stem from one language
  // is looked up only in the fields stemmed in it: every further language
  // must not cost every field a lookup.
  uint16_t fields;
  uint32_t relpos;
  uint8_t bytes[FTS_MAX_TERM_LEN];
};

struct leaf {
  uint8_t mode;
  bool negated; // under a NOT: not scored
  uint16_t fields;
  struct aterm *terms;
  size_t num_terms;
  uint64_t *pre; // LEAF_PREFIX: one bitmap per target block
  size_t expansions;
  uint64_t matched;
};

struct ctx {
  fts_index *idx;
  MDB_txn *txn;
  // The account's (field, language) list, read at the first one-word leaf.
  bool langs_loaded;
  size_t num_langs;
  uint32_t account;
  const fts_query *q;
  const fts_search_options *opt;
  uint16_t default_fields;
  struct leaf *leaves; // indexed by node
  uint32_t *blocks;    // target blocks, ascending
  size_t num_blocks;
  uint64_t **live;  // per target block: live & filter
  uint16_t *docs16; // scratch
  struct phrase_scratch *phrase;
  struct fts_buf scratch;
  bool neutral_all;    // a query without terms matches every document
  bool sparse;         // the sparse path answered: hits, not live
  bool filter_checked; // opt->filter is known to ascend
  uint32_t *hits;      // sparse path: the result, ascending
  size_t num_hits, cap_hits;
  uint16_t present;                             // fields with words in the account
  uint8_t langs[FTS_LANG_MAX * FTS_LANG_ENTRY]; // last: not cleared per search
};

static void explain(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct phrase_scratch;
static void phrase_scratch_free(struct phrase_scratch *s);
#include <stdarg.h>
static void explain(struct ctx *x, const char *fmt, ...) {
  if (!x->opt || !x->opt->explain)
    return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  x->opt->explain(x->opt->explain_ctx, line);
}

// ---- query analysis ----

struct collect {
  struct aterm *terms;
  size_t num, cap;
  int err;
};

static int on_query_term(void *ctx, const fts_term *t) {
  struct collect *c = ctx;
  if (t->len == 0 || t->len > FTS_MAX_TERM_LEN || memchr(t->bytes, 0, t->len))
    return 0;
  if (c->num == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 8;
    struct aterm *a = realloc(c->terms, cap * sizeof *a);
    if (!a)
      return c->err = -ENOMEM;
    c->terms = a;
    c->cap = cap;
  }
  struct aterm *a = &c->terms[c->num++];
  a->kind = t->kind;
  a->len = (uint8_t)t->len;
  a->fields = FTS_FIELD_MASK_ALL;
  a->relpos = t->position;
  memcpy(a->bytes, t->bytes, t->len);
  return 0;
}

static int analyse_in(struct ctx *x, const char *lang, const uint8_t *text, size_t len,
                      struct collect *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_lock(&x->idx->query_lock);
  int rc = fts_analyze(x->idx->query_analyzer, lang, text, len, on_query_term, c);
  pthread_mutex_unlock(&x->idx->query_lock);
  if (c->err)
    rc = c->err;
  if (rc != 0) {
    free(c->terms);
    c->terms = NULL;
    return rc < 0 ? rc : FTS_ERR_INVALID_ARGUMENT;
  }
  return 0;
}

static int analyse(struct ctx *x, const uint8_t *text, size_t len, struct collect *c) {
  return analyse_in(x, x->opt ? x->opt->lang : NULL, text, len, c);
}

// Adds term `t` as `kind`, looked up in `fields`, to the leaf's
// alternatives (or its fields to the same term's).
static int alt_add(struct leaf *l, size_t *cap, const struct aterm *t, uint8_t kind,
                   uint16_t fields) {
  for (size_t i = 0; i < l->num_terms; i++)
    if (l->terms[i].kind == kind && l->terms[i].len == t->len &&
        memcmp(l->terms[i].bytes, t->bytes, t->len) == 0) {
      l->terms[i].fields |= fields;
      return 0;
    }
  if (l->num_terms == *cap) {
    size_t nc = *cap * 2;
    struct aterm *a = realloc(l->terms, nc * sizeof *a);
    if (!a)
      return -ENOMEM;
    l->terms = a;
    *cap = nc;
  }
  l->terms[l->num_terms] = *t;
  l->terms[l->num_terms].kind = kind;
  l->terms[l->num_terms].fields = fields;
  l->num_terms++;
  return 0;
}

// A one-word leaf with no language given: the word is stemmed in every
// language that the searched fields of the account were stemmed in (a short
// query says too little to detect its own language). Returns 0 with
// l->num_terms unchanged when the account has no language list.
static int stem_per_language(struct ctx *x, struct leaf *l, const uint8_t *text, size_t len) {
  if (!x->langs_loaded) {
    FTS_TRY(fts_langs_read(x->txn, x->idx, x->account, x->langs, &x->num_langs));
    x->langs_loaded = true;
  }
  size_t cap = l->num_terms; // l->terms holds at least this many
  for (size_t i = 0; i < x->num_langs; i++) {
    const uint8_t *e = x->langs + i * FTS_LANG_ENTRY;
    if (e[0] >= FTS_MAX_FIELDS || !(l->fields & (1u << e[0])))
      continue;
    char code[FTS_LANG_ENTRY];
    memcpy(code, e + 1, FTS_LANG_ENTRY - 1);
    code[FTS_LANG_ENTRY - 1] = 0;
    bool seen = false; // the same language in an earlier field
    for (size_t j = 0; j < i && !seen; j++) {
      const uint8_t *f = x->langs + j * FTS_LANG_ENTRY;
      seen = f[0] < FTS_MAX_FIELDS && (l->fields & (1u << f[0])) &&
             memcmp(f + 1, e + 1, FTS_LANG_ENTRY - 1) == 0;
    }
    if (seen)
      continue;
    uint16_t mask = 0; // the searched fields stemmed in this language
    for (size_t j = i; j < x->num_langs; j++) {
      const uint8_t *f = x->langs + j * FTS_LANG_ENTRY;
      if (f[0] < FTS_MAX_FIELDS && memcmp(f + 1, e + 1, FTS_LANG_ENTRY - 1) == 0)
        mask |= (uint16_t)(1u << f[0]);
    }
    mask &= l->fields;
    struct collect c;
    int rc = analyse_in(x, code, text, len, &c);
    if (rc == FTS_ERR_UNSUPPORTED)
      continue; // a language this build cannot stem: the word still matches
    FTS_TRY(rc);
    // A copy: adding may move l->terms.
    struct aterm stem = l->terms[0];
    bool has_stem = false;
    for (size_t t = 0; t < c.num && !has_stem; t++)
      if (c.terms[t].kind == FTS_TERM_STEM) {
        stem = c.terms[t];
        has_stem = true;
      }
    rc = alt_add(l, &cap, &stem, FTS_TERM_STEM, mask);
    if (rc == 0 && has_stem)
      rc = alt_add(l, &cap, &stem, FTS_TERM_WORD, mask);
    free(c.terms);
    FTS_TRY(rc);
  }
  return 0;
}

// Keeps the WORD terms of `c` (positions made relative to the first).
static size_t words_only(struct collect *c) {
  size_t n = 0;
  for (size_t i = 0; i < c->num; i++)
    if (c->terms[i].kind == FTS_TERM_WORD)
      c->terms[n++] = c->terms[i];
  for (size_t i = 1; i < n; i++)
    c->terms[i].relpos -= c->terms[0].relpos;
  if (n)
    c->terms[0].relpos = 0;
  return c->num = n;
}

static int setup_leaf(struct ctx *x, uint32_t node, bool negated) {
  const struct fts_qnode *n = &x->q->nodes[node];
  struct leaf *l = &x->leaves[node];
  l->negated = negated;
  l->fields = n->fields ? n->fields : x->default_fields;
  struct collect c;
  FTS_TRY(analyse(x, (const uint8_t *)x->q->text + n->text, n->len, &c));
  // One word with its stem s: the word, or s as a stem, or s as a word.
  struct aterm stem = {0};
  bool has_stem = false;
  for (size_t i = 0; i < c.num; i++)
    if (c.terms[i].kind == FTS_TERM_STEM) {
      stem = c.terms[i];
      has_stem = true;
      break;
    }
  size_t words = words_only(&c);
  l->terms = c.terms;
  if (words == 0) {
    l->mode = LEAF_EMPTY;
  } else if (n->type == FTS_Q_PREFIX) {
    l->mode = LEAF_PREFIX; // the first term is the compound as written
    l->num_terms = 1;
  } else if (words > 1) {
    // Checking a phrase takes memory in proportion to its words.
    if (words > FTS_MAX_PHRASE_WORDS)
      return FTS_ERR_LIMIT;
    l->mode = LEAF_PHRASE;
    l->num_terms = words;
  } else {
    l->mode = LEAF_ALT;
    l->num_terms = 1;
    if (n->type == FTS_Q_WORD && !(x->opt && x->opt->lang)) {
      FTS_TRY(stem_per_language(x, l, (const uint8_t *)x->q->text + n->text, n->len));
      if (l->num_terms > 1)
        return 0;
    }
    if (n->type == FTS_Q_WORD) {
      // The analyzer emits a stem only where it differs from its word, so a
      // word that is its own stem also matches the stem of other words.
      struct aterm *a = realloc(l->terms, 3 * sizeof *a);
      if (!a)
        return -ENOMEM;
      l->terms = a;
      a[1] = has_stem ? stem : a[0];
      a[1].kind = FTS_TERM_STEM;
      l->num_terms = 2;
      if (has_stem) {
        a[2] = stem;
        a[2].kind = FTS_TERM_WORD;
        l->num_terms = 3;
      }
    }
  }
  return 0;
}

static int setup_leaves(struct ctx *x, uint32_t node, bool negated) {
  const struct fts_qnode *n = &x->q->nodes[node];
  if (n->type == FTS_Q_WORD || n->type == FTS_Q_PHRASE || n->type == FTS_Q_PREFIX)
    return setup_leaf(x, node, negated);
  for (uint32_t c = n->first; c != UINT32_MAX; c = x->q->nodes[c].next)
    FTS_TRY(setup_leaves(x, c, negated || n->type == FTS_Q_NOT));
  return 0;
}

// ---- posting access ----

static size_t find_block(const struct ctx *x, uint32_t block) {
  size_t lo = 0, hi = x->num_blocks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (x->blocks[mid] < block)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < x->num_blocks && x->blocks[lo] == block ? lo : SIZE_MAX;
}

// Reads the block `block` of term (field, kind, bytes); 0 with *found false
// when absent.
static int get_block(struct ctx *x, unsigned field, const struct aterm *t, uint8_t kind,
                     uint32_t block, struct fts_block *out, bool *found) {
  uint8_t key[FTS_KEY_MAX];
  size_t kl = fts_term_key(key, x->account, field, kind, t->bytes, t->len);
  key[kl++] = (uint8_t)(block >> 8);
  key[kl++] = (uint8_t)block;
  MDB_val k = {kl, key}, v;
  *found = false;
  int rc = mdb_get(x->txn, x->idx->post, &k, &v);
  if (rc == MDB_NOTFOUND)
    return 0;
  if (rc != 0)
    return fts_mdb_error(rc);
  *found = true;
  return fts_block_parse(out, v.mv_data, v.mv_size);
}

static int prefix_expand(struct ctx *x, struct leaf *l) {
  l->pre = calloc(x->num_blocks * FTS_BITMAP_WORDS, sizeof *l->pre);
  if (!l->pre && x->num_blocks)
    return -ENOMEM;
  MDB_cursor *cur;
  int rc = mdb_cursor_open(x->txn, x->idx->post, &cur);
  if (rc != 0)
    return fts_mdb_error(rc);
  const struct aterm *t = &l->terms[0];
  int err = 0;
  for (unsigned f = 0; f < FTS_MAX_FIELDS && !err; f++) {
    if (!(l->fields & x->present & (1u << f)))
      continue;
    uint8_t key[FTS_KEY_MAX];
    size_t plen = fts_term_key(key, x->account, f, FTS_TERM_WORD, t->bytes, t->len) - 1;
    MDB_val k = {plen, key}, v;
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      if (k.mv_size < plen + 3 || memcmp(k.mv_data, key, plen) != 0)
        break;
      const uint8_t *kp = k.mv_data;
      size_t tl = k.mv_size - 3;
      if (!prev || prev_len != tl || memcmp(prev, kp, tl) != 0) {
        if (++l->expansions > x->idx->settings.max_prefix_terms) {
          err = FTS_ERR_LIMIT;
          break;
        }
      }
      prev = kp;
      prev_len = tl;
      size_t bi = find_block(x, (uint32_t)kp[k.mv_size - 2] << 8 | kp[k.mv_size - 1]);
      if (bi == SIZE_MAX)
        continue;
      struct fts_block b;
      if ((err = fts_block_parse(&b, v.mv_data, v.mv_size)) < 0 ||
          (err = fts_docs_decode_or(b.docs, b.docs_len, l->pre + bi * FTS_BITMAP_WORDS, b.n)) < 0)
        break;
    }
    if (!err && rc != 0 && rc != MDB_NOTFOUND)
      err = fts_mdb_error(rc);
  }
  mdb_cursor_close(cur);
  return err;
}

static int prefix_all(struct ctx *x, uint32_t node) {
  const struct fts_qnode *n = &x->q->nodes[node];
  struct leaf *l = &x->leaves[node];
  if (n->type == FTS_Q_PREFIX && l->mode == LEAF_PREFIX)
    return prefix_expand(x, l);
  for (uint32_t c = n->first; c != UINT32_MAX && n->type <= FTS_Q_NOT; c = x->q->nodes[c].next)
    FTS_TRY(prefix_all(x, c));
  return 0;
}

// Positions of one document: count, first, gaps.
static int pos_decode(const uint8_t *seg, size_t len, uint32_t *out, uint32_t max, uint32_t *n) {
  struct fts_cur c = {seg, len};
  uint32_t count, p = 0, g;
  if (!fts_cur_varint(&c, &count) || count == 0 || count > max)
    return FTS_ERR_CORRUPT;
  for (uint32_t i = 0; i < count; i++) {
    if (!fts_cur_varint(&c, &g))
      return FTS_ERR_CORRUPT;
    p = i ? p + g : g;
    out[i] = p;
  }
  if (c.len != 0) // a count too low for its segment: positions would be lost unseen
    return FTS_ERR_CORRUPT;
  *n = count;
  return 0;
}

// GALLOP defines NAME(f, at, n, v), which returns the first index at or
// after `at` of the ascending f[0 … n) whose value is >= `v`: doubling steps
// from `at`, then a binary search in the last step. gallop16 walks a block's
// 16-bit document numbers, gallop a filter's 32-bit ids.
#define GALLOP(NAME, T)                                                                            \
  static size_t NAME(const T *f, size_t at, size_t n, T v) {                                       \
    size_t step = 1;                                                                               \
    while (at + step <= n && f[at + step - 1] < v) {                                               \
      at += step;                                                                                  \
      step *= 2;                                                                                   \
    }                                                                                              \
    size_t hi = at + step <= n ? at + step - 1 : n;                                                \
    while (at < hi) {                                                                              \
      size_t mid = at + (hi - at) / 2;                                                             \
      if (f[mid] < v)                                                                              \
        at = mid + 1;                                                                              \
      else                                                                                         \
        hi = mid;                                                                                  \
    }                                                                                              \
    return at;                                                                                     \
  }
GALLOP(gallop16, uint16_t)
GALLOP(gallop, uint32_t)

// table_skip advances `*tp` (bounded by `te`) over `count` varints of a
// segment table and adds their values to `*sum`; false if the table ends or
// holds a bad varint. Most lengths are one byte: sixteen of them are summed
// at a time (SSE2 sums of absolute differences), or eight (a multiply), when
// none has its high bit set.
static bool table_skip(const uint8_t **tp, const uint8_t *te, size_t count, size_t *sum) {
  const uint8_t *p = *tp;
  size_t acc = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  while (count >= 16 && te - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    if (_mm_movemask_epi8(v) != 0)
      break;
    __m128i s = _mm_sad_epu8(v, zero);
    acc += (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
    p += 16;
    count -= 16;
  }
#endif
  while (count) {
    uint64_t v;
    if (count >= 8 && te - p >= 8 && (memcpy(&v, p, 8), !(v & 0x8080808080808080ull))) {
      v = (v & 0x00ff00ff00ff00ffull) + ((v >> 8) & 0x00ff00ff00ff00ffull);
      acc += (size_t)((v * 0x0001000100010001ull) >> 48);
      p += 8;
      count -= 8;
      continue;
    }
    struct fts_cur tc = {p, (size_t)(te - p)};
    uint32_t sl;
    if (!fts_cur_varint(&tc, &sl))
      return false;
    p = tc.p;
    acc += sl;
    count--;
  }
  *tp = p;
  *sum += acc;
  return true;
}

// bitmap_container tells whether `b`'s documents are a BITMAP container
// and gives its bytes (at most FTS_BITMAP_BYTES, the last one not zero).
static bool bitmap_container(const struct fts_block *b, const uint8_t **p, size_t *len) {
  if (b->docs_len < 2 || b->docs[0] != FTS_CONTAINER_BITMAP || b->docs_len - 1 > FTS_BITMAP_BYTES)
    return false;
  *p = b->docs + 1;
  *len = b->docs_len - 1;
  return true;
}

// bm_word reads 64-bit word `w` of a bitmap container of `len` bytes (the
// bytes past its end are zero).
static inline uint64_t bm_word(const uint8_t *p, size_t len, size_t w) {
  uint64_t v = 0;
  if (8 * w + 8 <= len)
    memcpy(&v, p + 8 * w, 8);
  else
    for (size_t i = 8 * w; i < len; i++)
      v |= (uint64_t)p[i] << (8 * (i - 8 * w));
  return v;
}

// Scratch of one phrase check, kept in the search context: a block's
// document offsets, the candidates and their index in each word's block,
// and the candidates' segments per word.
struct phrase_scratch {
  uint16_t *docs;  // FTS_BLOCK_DOCS
  uint16_t *cands; // FTS_BLOCK_DOCS
  // Per word and candidate, with a stride of the smallest word's document
  // count (which bounds the candidates): candidate k of word i is at
  // i * stride + k.
  uint32_t *idx; // its index in the word's block
  const uint8_t **segs;
  uint32_t *seglens;
  size_t room;       // entries each of the three arrays has
  uint32_t *p0, *pi; // positions, `maxp` each
  size_t maxp;
};

static void phrase_scratch_free(struct phrase_scratch *s) {
  if (!s)
    return;
  free(s->docs);
  free(s->cands);
  free(s->idx);
  free(s->segs);
  free(s->seglens);
  free(s->p0);
  free(s->pi);
  free(s);
}

static int phrase_scratch_get(struct phrase_scratch **sp, size_t entries) {
  struct phrase_scratch *s = *sp;
  if (!s) {
    s = *sp = calloc(1, sizeof *s);
    if (!s)
      return -ENOMEM;
    s->docs = malloc(FTS_BLOCK_DOCS * sizeof *s->docs);
    s->cands = malloc(FTS_BLOCK_DOCS * sizeof *s->cands);
    if (!s->docs || !s->cands)
      return -ENOMEM;
  }
  if (s->room < entries) {
    free(s->idx);
    free(s->segs);
    free(s->seglens);
    s->idx = malloc(entries * sizeof *s->idx);
    s->segs = malloc(entries * sizeof *s->segs);
    s->seglens = malloc(entries * sizeof *s->seglens);
    s->room = 0;
    if (!s->idx || !s->segs || !s->seglens)
      return -ENOMEM;
    s->room = entries;
  }
  return 0;
}

static int phrase_positions_room(struct phrase_scratch *s, size_t need) {
  if (need <= s->maxp)
    return 0;
  free(s->p0);
  free(s->pi);
  s->maxp = 0;
  s->p0 = malloc(need * sizeof *s->p0);
  s->pi = malloc(need * sizeof *s->pi);
  if (!s->p0 || !s->pi)
    return -ENOMEM;
  s->maxp = need;
  return 0;
}

// A phrase in one field of one block. The word with the fewest documents
// gives the candidates (its documents that are live and in the filter),
// each further word, in ascending order of size, keeps those it holds
// (galloping through its offsets), each container decoded once. Then each
// word's segment table is skipped up to the candidates' entries, and a
// candidate's positions are decoded from its shortest segment on, stopping
// at the first word that leaves no start: a candidate rejected early never
// touches the other words' segments.
static int phrase_field(struct ctx *x, const struct leaf *l, unsigned field, uint32_t block,
                        const uint64_t *live, uint64_t *out) {
  size_t m = l->num_terms;
  if (m == 0)
    return 0;
  struct fts_block bstack[8], *b = m <= 8 ? bstack : malloc(m * sizeof *b);
  size_t ostack[8], *order = m <= 8 ? ostack : malloc(m * sizeof *order);
  struct fts_buf zstack[8] = {{0}}, *zs = m <= 8 ? zstack : calloc(m, sizeof *zs);
  int err = 0;
  if (!b || !order || !zs) {
    err = -ENOMEM;
    goto out;
  }
  for (size_t i = 0; i < m; i++) {
    bool found;
    if ((err = get_block(x, field, &l->terms[i], FTS_TERM_WORD, block, &b[i], &found)) < 0 ||
        !found)
      goto out;
    size_t j = i;
    for (; j > 0 && b[order[j - 1]].n > b[i].n; j--)
      order[j] = order[j - 1];
    order[j] = i;
  }
  // Candidates: the smallest word's live documents in the filter.
  size_t nc = 0, w0 = order[0], st = b[w0].n;
  if ((err = phrase_scratch_get(&x->phrase, m * st)) < 0)
    goto out;
  struct phrase_scratch *s = x->phrase;
  const uint8_t *bmp;
  size_t bmp_len;
  if (bitmap_container(&b[w0], &bmp, &bmp_len)) {
    // Every word is then a bitmap: AND with the live set, index by counting.
    uint32_t rank = 0;
    for (size_t w = 0; w * 8 < bmp_len; w++) {
      uint64_t v = bm_word(bmp, bmp_len, w);
      for (uint64_t c = v & live[w]; c; c &= c - 1) {
        unsigned bit = (unsigned)__builtin_ctzll(c);
        if (nc == st) { // more documents than the block says
          err = FTS_ERR_CORRUPT;
          goto out;
        }
        s->cands[nc] = (uint16_t)(w * 64 + bit);
        s->idx[w0 * st + nc++] = rank + fts_popcount64(v & ((1ull << bit) - 1));
      }
      rank += v ? fts_popcount64(v) : 0;
    }
    if (rank != b[w0].n) {
      err = FTS_ERR_CORRUPT;
      goto out;
    }
  } else {
    if ((err = fts_docs_decode(b[w0].docs, b[w0].docs_len, s->docs, b[w0].n)) < 0)
      goto out;
    for (uint32_t j = 0; j < b[w0].n; j++) {
      uint16_t d = s->docs[j];
      s->cands[nc] = d;
      s->idx[w0 * st + nc] = j;
      nc += (live[d / 64] >> (d % 64)) & 1;
    }
  }
  for (size_t r = 1; r < m && nc; r++) {
    size_t w = order[r], kept = 0;
    uint32_t *iw = s->idx + w * st;
    if (bitmap_container(&b[w], &bmp, &bmp_len)) {
      // A frequent word: test the candidates' bits and count the bits
      // before them, without listing the block's documents.
      uint32_t rank = 0;
      size_t at = 0;
      for (size_t k = 0; k < nc; k++) {
        size_t cw = s->cands[k] / 64;
        for (; at < cw; at++) {
          uint64_t v = bm_word(bmp, bmp_len, at);
          rank += v ? fts_popcount64(v) : 0;
        }
        uint64_t v = bm_word(bmp, bmp_len, cw), below = (1ull << (s->cands[k] % 64)) - 1;
        if (!((v >> (s->cands[k] % 64)) & 1))
          continue;
        s->cands[kept] = s->cands[k];
        for (size_t q = 0; q < r; q++)
          s->idx[order[q] * st + kept] = s->idx[order[q] * st + k];
        iw[kept++] = rank + fts_popcount64(v & below);
      }
      if (rank > b[w].n) {
        err = FTS_ERR_CORRUPT;
        goto out;
      }
    } else {
      if ((err = fts_docs_decode(b[w].docs, b[w].docs_len, s->docs, b[w].n)) < 0)
        goto out;
      size_t at = 0;
      for (size_t k = 0; k < nc && at < b[w].n; k++) {
        at = gallop16(s->docs, at, b[w].n, s->cands[k]);
        if (at == b[w].n || s->docs[at] != s->cands[k])
          continue;
        s->cands[kept] = s->cands[k];
        for (size_t q = 0; q < r; q++)
          s->idx[order[q] * st + kept] = s->idx[order[q] * st + k];
        iw[kept++] = (uint32_t)at;
      }
    }
    nc = kept;
  }
  if (nc == 0)
    goto out;
  // Each word's candidate segments, through its table.
  size_t maxseg = 0;
  for (size_t i = 0; i < m; i++) {
    const uint8_t *pos;
    size_t pos_len;
    struct fts_pos_iter it;
    if ((err = fts_block_positions(&b[i], &zs[i], &pos, &pos_len)) < 0 ||
        (err = fts_pos_iter_init(&it, pos, pos_len)) < 0)
      goto out;
    const uint8_t *tp = it.table.p, *te = tp + it.table.len, *p = it.segs.p;
    size_t left = it.segs.len, d = 0;
    const uint32_t *idx = s->idx + i * st;
    for (size_t k = 0; k < nc; k++) {
      size_t skip = 0;
      uint32_t sl;
      if (!table_skip(&tp, te, idx[k] - d, &skip)) {
        err = FTS_ERR_CORRUPT;
        goto out;
      }
      struct fts_cur tc = {tp, (size_t)(te - tp)};
      if (!fts_cur_varint(&tc, &sl) || sl == 0 || skip > left || sl > left - skip) {
        err = FTS_ERR_CORRUPT;
        goto out;
      }
      tp = tc.p;
      d = idx[k] + 1;
      p += skip;
      left -= skip;
      s->segs[i * st + k] = p;
      s->seglens[i * st + k] = sl;
      if (sl > maxseg)
        maxseg = sl;
      p += sl;
      left -= sl;
    }
  }
  // A segment of `sl` bytes holds at most sl - 1 positions.
  if ((err = phrase_positions_room(s, maxseg)) < 0)
    goto out;
  for (size_t k = 0; k < nc; k++) {
    // Words by segment length: the shortest anchors the starts.
    for (size_t i = 0; i < m; i++) {
      size_t j = i;
      for (; j > 0 && s->seglens[order[j - 1] * st + k] > s->seglens[i * st + k]; j--)
        order[j] = order[j - 1];
      order[j] = i;
    }
    size_t anchor = order[0];
    uint32_t n0, ni;
    if ((err = pos_decode(s->segs[anchor * st + k], s->seglens[anchor * st + k], s->p0,
                          (uint32_t)s->maxp, &n0)) < 0)
      goto out;
    uint32_t ra = l->terms[anchor].relpos, starts = 0;
    for (uint32_t j = 0; j < n0; j++)
      if (s->p0[j] >= ra)
        s->p0[starts++] = s->p0[j] - ra;
    n0 = starts;
    for (size_t r = 1; r < m && n0; r++) {
      size_t i = order[r];
      if ((err = pos_decode(s->segs[i * st + k], s->seglens[i * st + k], s->pi, (uint32_t)s->maxp,
                            &ni)) < 0)
        goto out;
      uint32_t kept = 0, at = 0, ri = l->terms[i].relpos;
      for (uint32_t j = 0; j < n0; j++) {
        uint64_t want = (uint64_t)s->p0[j] + ri;
        while (at < ni && s->pi[at] < want)
          at++;
        if (at == ni)
          break;
        if (s->pi[at] == want)
          s->p0[kept++] = s->p0[j];
      }
      n0 = kept;
    }
    if (n0)
      out[s->cands[k] / 64] |= 1ull << (s->cands[k] % 64);
  }
out:
  for (size_t i = 0; zs && i < m; i++)
    fts_buf_free(&zs[i]);
  if (zs != zstack)
    free(zs);
  if (b != bstack)
    free(b);
  if (order != ostack)
    free(order);
  return err;
}

static int eval_leaf(struct ctx *x, struct leaf *l, size_t bi, uint64_t *out) {
  memset(out, 0, FTS_BITMAP_BYTES);
  uint32_t block = x->blocks[bi];
  if (l->mode == LEAF_PREFIX) {
    memcpy(out, l->pre + bi * FTS_BITMAP_WORDS, FTS_BITMAP_BYTES);
    return 0;
  }
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++) {
    if (!(l->fields & x->present & (1u << f)))
      continue;
    if (l->mode == LEAF_PHRASE) {
      FTS_TRY(phrase_field(x, l, f, block, x->live[bi], out));
      continue;
    }
    for (size_t i = 0; i < l->num_terms; i++) {
      if (!(l->terms[i].fields & (1u << f)))
        continue;
      struct fts_block b;
      bool found;
      FTS_TRY(get_block(x, f, &l->terms[i], l->terms[i].kind, block, &b, &found));
      if (found)
        FTS_TRY(fts_docs_decode_or(b.docs, b.docs_len, out, b.n));
    }
  }
  return 0;
}

static bool bitmap_empty(const uint64_t *b) {
  uint64_t any = 0;
  for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
    any |= b[w];
  return !any;
}

// Evaluates `node` on target block `bi` into `out`; `*neutral` is set when
// the node has no terms (words that analyse to nothing), so that AND and OR
// ignore it.
static int eval(struct ctx *x, uint32_t node, size_t bi, uint64_t *out, bool *neutral) {
  const struct fts_qnode *n = &x->q->nodes[node];
  *neutral = false;
  if (n->type == FTS_Q_WORD || n->type == FTS_Q_PHRASE || n->type == FTS_Q_PREFIX) {
    struct leaf *l = &x->leaves[node];
    if (l->mode == LEAF_EMPTY) {
      *neutral = true;
      return 0;
    }
    FTS_TRY(eval_leaf(x, l, bi, out));
    if (x->opt && x->opt->explain)
      for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
        if (out[w] & x->live[bi][w])
          l->matched += fts_popcount64(out[w] & x->live[bi][w]);
    return 0;
  }
  const uint64_t *live = x->live[bi];
  if (n->type == FTS_Q_NOT) {
    bool nn;
    FTS_TRY(eval(x, n->first, bi, out, &nn));
    if (nn) {
      *neutral = true;
      return 0;
    }
    for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
      out[w] = live[w] & ~out[w];
    return 0;
  }
  uint64_t *tmp = malloc(FTS_BITMAP_BYTES);
  if (!tmp)
    return -ENOMEM;
  bool is_and = n->type == FTS_Q_AND, have = false;
  int err = 0;
  if (is_and) {
    // Positive children first narrow the set; NOT children subtract.
    for (int pass = 0; pass < 2 && !err; pass++)
      for (uint32_t c = n->first; c != UINT32_MAX && !err; c = x->q->nodes[c].next) {
        const struct fts_qnode *cn = &x->q->nodes[c];
        bool negative = cn->type == FTS_Q_NOT;
        if (negative != (pass == 1))
          continue;
        if (have && bitmap_empty(out))
          break;
        bool nn;
        if ((err = eval(x, negative ? cn->first : c, bi, tmp, &nn)) < 0 || nn)
          continue;
        if (!have) {
          if (negative)
            for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
              out[w] = live[w] & ~tmp[w];
          else
            memcpy(out, tmp, FTS_BITMAP_BYTES);
          have = true;
        } else if (negative) {
          for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
            out[w] &= ~tmp[w];
        } else {
          for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
            out[w] &= tmp[w];
        }
      }
  } else {
    for (uint32_t c = n->first; c != UINT32_MAX && !err; c = x->q->nodes[c].next) {
      bool nn;
      if ((err = eval(x, c, bi, have ? tmp : out, &nn)) < 0 || nn)
        continue;
      if (have)
        for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
          out[w] |= tmp[w];
      have = true;
    }
  }
  free(tmp);
  if (!err && !have)
    *neutral = true;
  return err;
}

// ---- target blocks ----

// ---- prepared filters ----

struct fts_filter {
  uint32_t *blocks;
  uint64_t *bitmaps; // FTS_BITMAP_WORDS per block
  size_t num_blocks;
};

int fts_filter_new(fts_filter **out, const uint32_t *docs, size_t num_docs) {
  if (!out)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!docs && num_docs)
    return FTS_ERR_INVALID_ARGUMENT;
  size_t nb = 0;
  for (size_t i = 0; i < num_docs; i++) {
    if (i && docs[i] <= docs[i - 1])
      return FTS_ERR_INVALID_ARGUMENT;
    if (!i || docs[i] / FTS_BLOCK_DOCS != docs[i - 1] / FTS_BLOCK_DOCS)
      nb++;
  }
  fts_filter *f = calloc(1, sizeof *f);
  if (!f)
    return -ENOMEM;
  f->blocks = malloc((nb ? nb : 1) * sizeof *f->blocks);
  f->bitmaps = calloc((nb ? nb : 1) * FTS_BITMAP_WORDS, sizeof *f->bitmaps);
  if (!f->blocks || !f->bitmaps) {
    fts_filter_free(f);
    return -ENOMEM;
  }
  for (size_t i = 0; i < num_docs; i++) {
    uint32_t b = docs[i] / FTS_BLOCK_DOCS, off = docs[i] % FTS_BLOCK_DOCS;
    if (!f->num_blocks || f->blocks[f->num_blocks - 1] != b)
      f->blocks[f->num_blocks++] = b;
    f->bitmaps[(f->num_blocks - 1) * FTS_BITMAP_WORDS + off / 64] |= 1ull << (off % 64);
  }
  *out = f;
  return 0;
}

void fts_filter_free(fts_filter *f) {
  if (!f)
    return;
  free(f->blocks);
  free(f->bitmaps);
  free(f);
}

// add_block appends block `b` to the targets with a zeroed bitmap.
static int add_block(struct ctx *x, uint32_t b, size_t *cap) {
  if (x->num_blocks == *cap) {
    size_t nc = *cap ? 2 * *cap : 8;
    uint32_t *nb = realloc(x->blocks, nc * sizeof *nb);
    uint64_t **nl = realloc(x->live, (nc + 1) * sizeof *nl);
    if (nb)
      x->blocks = nb;
    if (nl)
      x->live = nl;
    if (!nb || !nl)
      return -ENOMEM;
    *cap = nc;
  }
  x->live[x->num_blocks] = calloc(FTS_BITMAP_WORDS, sizeof **x->live);
  if (!x->live[x->num_blocks])
    return -ENOMEM;
  x->blocks[x->num_blocks++] = b;
  return 0;
}

// and_live ANDs every target bitmap with its block's live set.
static int and_live(struct ctx *x) {
  uint64_t *live = malloc(FTS_BITMAP_BYTES);
  if (!live)
    return -ENOMEM;
  int err = 0;
  for (size_t i = 0; i < x->num_blocks && !err; i++) {
    bool found;
    err = fts_set_read(x->txn, x->idx->live, x->account, x->blocks[i], live, &found);
    for (size_t w = 0; w < FTS_BITMAP_WORDS && !err; w++)
      x->live[i][w] &= live[w];
  }
  free(live);
  return err;
}

// filter_sorted tells whether `f` ascends strictly. A mailbox filter has
// 10^4-10^5 ids and is checked on every search: four at a time where the
// baseline ISA has vectors (SSE2, NEON), with no early exit.
static bool filter_sorted(const uint32_t *f, size_t n) {
  size_t i = 1;
#if defined(__SSE2__)
  const __m128i sign = _mm_set1_epi32(INT32_MIN);
  __m128i ok = _mm_set1_epi32(-1);
  for (; i + 4 <= n; i += 4) {
    __m128i cur = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(f + i)), sign);
    __m128i prev = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(f + i - 1)), sign);
    ok = _mm_and_si128(ok, _mm_cmpgt_epi32(cur, prev));
  }
  if (_mm_movemask_epi8(ok) != 0xffff)
    return false;
#elif defined(__ARM_NEON) && defined(__aarch64__)
  uint32x4_t ok = vdupq_n_u32(UINT32_MAX);
  for (; i + 4 <= n; i += 4)
    ok = vandq_u32(ok, vcgtq_u32(vld1q_u32(f + i), vld1q_u32(f + i - 1)));
  if (vminvq_u32(ok) != UINT32_MAX)
    return false;
#endif
  unsigned bad = 0;
  for (; i < n; i++)
    bad |= f[i] <= f[i - 1];
  return !bad;
}

// block_end returns the index after the last id of block `b` in the
// ascending `f`, searching from `i` (an id of `b`) by galloping.
static size_t block_end(const uint32_t *f, size_t i, size_t n, uint32_t b) {
  uint64_t limit = ((uint64_t)b + 1) * FTS_BLOCK_DOCS;
  size_t lo = i + 1, step = 1, hi;
  while (lo + step <= n && f[lo + step - 1] < limit) {
    lo += step;
    step *= 2;
  }
  hi = lo + step <= n ? lo + step - 1 : n; // f[hi] >= limit, or hi = n
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f[mid] < limit)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// fill_bitmap sets the bits of the `n` ascending ids `f` of one block in
// the zeroed `bm`. Setting one bit per id in place would make each write
// wait for the previous one whenever two ids share a word: dense ids (8 or
// more per word on average) are gathered in a register and each word
// written once; sparser ones are set byte by byte, where neighbours seldom
// share a byte (on little-endian machines, where the bytes of a word are
// its bits in order).
static void fill_bitmap(uint64_t *bm, const uint32_t *f, size_t n) {
  uint32_t first = f[0] % FTS_BLOCK_DOCS, span = f[n - 1] % FTS_BLOCK_DOCS - first + 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (n * 8 < span) {
    uint8_t *bytes = (uint8_t *)bm;
    for (size_t j = 0; j < n; j++) {
      uint32_t off = f[j] % FTS_BLOCK_DOCS;
      bytes[off / 8] |= (uint8_t)(1u << (off % 8));
    }
    return;
  }
#else
  (void)span;
#endif
  uint64_t word = 0;
  uint32_t at = first / 64;
  for (size_t j = 0; j < n; j++) {
    uint32_t off = f[j] % FTS_BLOCK_DOCS;
    if (off / 64 != at) {
      bm[at] = word;
      word = 0;
      at = off / 64;
    }
    word |= 1ull << (off % 64);
  }
  bm[at] = word;
}

static int load_targets(struct ctx *x) {
  const fts_search_options *o = x->opt;
  size_t cap = 0;
  if (o && o->prepared) {
    const fts_filter *f = o->prepared;
    for (size_t i = 0; i < f->num_blocks; i++) {
      FTS_TRY(add_block(x, f->blocks[i], &cap));
      memcpy(x->live[i], f->bitmaps + i * FTS_BITMAP_WORDS, FTS_BITMAP_BYTES);
    }
    if (o->filter) { // both: their intersection
      for (size_t i = 1; i < o->num_filter; i++)
        if (o->filter[i] <= o->filter[i - 1])
          return FTS_ERR_INVALID_ARGUMENT;
      uint64_t *mask = calloc(FTS_BITMAP_WORDS, sizeof *mask);
      if (!mask)
        return -ENOMEM;
      size_t fi = 0;
      for (size_t i = 0; i < x->num_blocks; i++) {
        memset(mask, 0, FTS_BITMAP_BYTES);
        while (fi < o->num_filter && o->filter[fi] / FTS_BLOCK_DOCS < x->blocks[i])
          fi++;
        for (; fi < o->num_filter && o->filter[fi] / FTS_BLOCK_DOCS == x->blocks[i]; fi++)
          mask[(o->filter[fi] % FTS_BLOCK_DOCS) / 64] |= 1ull << (o->filter[fi] % 64);
        for (size_t w = 0; w < FTS_BITMAP_WORDS; w++)
          x->live[i][w] &= mask[w];
      }
      free(mask);
    }
    return and_live(x);
  }
  if (o && o->filter) {
    // The order check (vectorised, unless the sparse path did it), then
    // block by block the ids into bits.
    const uint32_t *f = o->filter;
    if (!x->filter_checked && !filter_sorted(f, o->num_filter))
      return FTS_ERR_INVALID_ARGUMENT;
    for (size_t i = 0, end; i < o->num_filter; i = end) {
      uint32_t b = f[i] / FTS_BLOCK_DOCS;
      end = block_end(f, i, o->num_filter, b);
      FTS_TRY(add_block(x, b, &cap));
      uint64_t *bm = x->live[x->num_blocks - 1];
      fill_bitmap(bm, f + i, end - i);
    }
    return and_live(x);
  }
  MDB_cursor *cur;
  int rc = mdb_cursor_open(x->txn, x->idx->live, &cur);
  if (rc != 0)
    return fts_mdb_error(rc);
  uint8_t prefix[4];
  fts_put_be32(prefix, x->account);
  MDB_val k = {4, prefix}, v;
  int err = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && !err;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size != 6 || memcmp(k.mv_data, prefix, 4) != 0)
      break;
    const uint8_t *kp = k.mv_data;
    if ((err = add_block(x, (uint32_t)kp[4] << 8 | kp[5], &cap)) < 0)
      break;
    struct fts_cur c = {v.mv_data, v.mv_size};
    uint32_t n;
    if (!fts_cur_varint(&c, &n))
      err = FTS_ERR_CORRUPT;
    else
      err = fts_docs_decode_or(c.p, c.len, x->live[x->num_blocks - 1], n);
  }
  if (!err && rc != 0 && rc != MDB_NOTFOUND)
    err = fts_mdb_error(rc);
  mdb_cursor_close(cur);
  if (!err && !x->live) { // an account without documents
    x->live = calloc(1, sizeof *x->live);
    if (!x->live)
      err = -ENOMEM;
  }
  return err;
}

static void ctx_free(struct ctx *x) {
  if (x->leaves)
    for (size_t i = 0; i < x->q->num_nodes; i++) {
      free(x->leaves[i].terms);
      free(x->leaves[i].pre);
    }
  free(x->leaves);
  if (x->live)
    for (size_t i = 0; i < x->num_blocks; i++)
      free(x->live[i]);
  free(x->live);
  free(x->blocks);
  free(x->docs16);
  phrase_scratch_free(x->phrase);
  free(x->hits);
  fts_buf_free(&x->scratch);
  fts_read_txn_end(x->idx, x->txn);
}

static int ctx_init(struct ctx *x, fts_index *idx, uint32_t account, const fts_query *q,
                    const fts_search_options *opt) {
  memset(x, 0, offsetof(struct ctx, langs));
  x->idx = idx;
  x->account = account;
  x->q = q;
  x->opt = opt;
  uint32_t mask = opt && opt->field_mask ? opt->field_mask : FTS_FIELD_MASK_ALL;
  if (!(mask & FTS_FIELD_MASK_ALL))
    return FTS_ERR_INVALID_ARGUMENT;
  x->default_fields = (uint16_t)mask;
  x->leaves = calloc(q->num_nodes ? q->num_nodes : 1, sizeof *x->leaves);
  if (!x->leaves)
    return -ENOMEM;
  FTS_TRY(fts_read_txn_begin(idx, &x->txn));
  // Fields that no document of the account has need no lookups.
  struct fts_acct_counts ac;
  FTS_TRY(fts_acct_read(x->txn, idx, account, &ac));
  x->present = 0;
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    if (ac.field_terms[f])
      x->present |= (uint16_t)(1u << f);
  return 0;
}

// ---- the sparse path ----
//
// A one-word query (the word and its stems) whose terms hold few documents
// in every block it reads is answered without 8 KiB block bitmaps: each
// term's posting blocks are read in one cursor walk (neighbouring keys, so
// LMDB seldom descends from the root again), their documents decoded as ids
// and merged, then checked against each block's live set (tested in its
// stored container) and the filter (a prepared filter's bitmap, or the
// caller's ascending array, searched by galloping). A posting block with
// more than SPARSE_MAX documents hands the search to the bitmap path, which
// is faster once a term is dense.
#define SPARSE_MAX 2048u

enum { LIVE_BYTES, LIVE_RANGE, LIVE_DECODED };

// A target block of the sparse path: its live set as stored (bitmap bytes,
// a run of documents, or another container decoded into `bm`) and its part
// of the filter.
struct starget {
  uint32_t block;
  uint8_t type;
  const uint8_t *p;
  size_t len;
  uint32_t lo, hi;
  uint64_t *bm;        // LIVE_DECODED (owned)
  const uint64_t *fbm; // prepared filter bitmap, or NULL
  const uint32_t *f;   // array filter ids of this block, or NULL
  size_t nf;
};

struct sparse {
  struct starget *t;
  size_t num_t, cap_t;
  uint32_t *ids[3]; // the merged ids, one term's, scratch
  size_t cap[3];
  uint16_t *offs; // one posting block's offsets
};

static void sparse_free(struct sparse *s) {
  for (size_t i = 0; i < s->num_t; i++)
    free(s->t[i].bm);
  free(s->t);
  for (int i = 0; i < 3; i++)
    free(s->ids[i]);
  free(s->offs);
}

static int ids_reserve(struct sparse *s, int which, size_t n) {
  if (n <= s->cap[which])
    return 0;
  size_t nc = s->cap[which] ? s->cap[which] : 256;
  while (nc < n)
    nc *= 2;
  uint32_t *p = realloc(s->ids[which], nc * sizeof *p);
  if (!p)
    return -ENOMEM;
  s->ids[which] = p;
  s->cap[which] = nc;
  return 0;
}

// target_add appends block `b` with live set value `val` (varint n,
// container).
static int target_add(struct sparse *s, uint32_t b, const uint8_t *val, size_t len) {
  if (s->num_t == s->cap_t) {
    size_t nc = s->cap_t ? 2 * s->cap_t : 8;
    struct starget *t = realloc(s->t, nc * sizeof *t);
    if (!t)
      return -ENOMEM;
    s->t = t;
    s->cap_t = nc;
  }
  struct starget *t = &s->t[s->num_t];
  memset(t, 0, sizeof *t);
  t->block = b;
  struct fts_cur c = {val, len};
  uint32_t n;
  if (!fts_cur_varint(&c, &n) || n == 0 || n > FTS_BLOCK_DOCS || c.len == 0)
    return FTS_ERR_CORRUPT;
  if (c.p[0] == FTS_CONTAINER_BITMAP) {
    if (c.len < 2 || c.len - 1 > FTS_BITMAP_BYTES || c.p[c.len - 1] == 0)
      return FTS_ERR_CORRUPT;
    t->type = LIVE_BYTES;
    t->p = c.p + 1;
    t->len = c.len - 1;
  } else if (c.len == 4 && c.p[0] == FTS_CONTAINER_PACKED && c.p[1] == 0) {
    // Bit width 0: the documents lo … lo + n - 1 (a full block).
    t->type = LIVE_RANGE;
    t->lo = (uint32_t)c.p[2] | (uint32_t)c.p[3] << 8;
    t->hi = t->lo + n;
    if (t->hi > FTS_BLOCK_DOCS)
      return FTS_ERR_CORRUPT;
  } else {
    t->type = LIVE_DECODED;
    if (!(t->bm = calloc(FTS_BITMAP_WORDS, sizeof *t->bm)))
      return -ENOMEM;
    s->num_t++; // owns bm from here on
    return fts_docs_decode_or(c.p, c.len, t->bm, n);
  }
  s->num_t++;
  return 0;
}

static bool target_has(const struct starget *t, uint32_t doc) {
  uint32_t off = doc % FTS_BLOCK_DOCS;
  bool live;
  switch (t->type) {
  case LIVE_BYTES:
    live = off / 8 < t->len && (t->p[off / 8] >> (off % 8)) & 1;
    break;
  case LIVE_RANGE:
    live = off >= t->lo && off < t->hi;
    break;
  default:
    live = (t->bm[off / 64] >> (off % 64)) & 1;
  }
  return live && (!t->fbm || (t->fbm[off / 64] >> (off % 64)) & 1);
}

// sparse_targets lists the blocks to read with their live sets: the
// account's, or the filter's that have live documents.
static int sparse_targets(struct ctx *x, struct sparse *s, MDB_cursor *cur) {
  const fts_search_options *o = x->opt;
  uint8_t key[6];
  fts_put_be32(key, x->account);
  MDB_val k = {4, key}, v;
  int rc;
  if (!o || (!o->prepared && !o->filter)) {
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      if (k.mv_size != 6 || memcmp(k.mv_data, key, 4) != 0)
        return 0;
      const uint8_t *kp = k.mv_data;
      FTS_TRY(target_add(s, (uint32_t)kp[4] << 8 | kp[5], v.mv_data, v.mv_size));
    }
    return rc == MDB_NOTFOUND ? 0 : fts_mdb_error(rc);
  }
  const fts_filter *pf = o->prepared;
  const uint32_t *f = o->filter;
  size_t nb = pf ? pf->num_blocks : o->num_filter;
  for (size_t i = 0, end; i < nb; i = end) {
    uint32_t b = pf ? pf->blocks[i] : f[i] / FTS_BLOCK_DOCS;
    end = pf ? i + 1 : block_end(f, i, o->num_filter, b);
    key[4] = (uint8_t)(b >> 8);
    key[5] = (uint8_t)b;
    k = (MDB_val){6, key};
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
    if (rc == MDB_NOTFOUND)
      continue;
    if (rc != 0)
      return fts_mdb_error(rc);
    FTS_TRY(target_add(s, b, v.mv_data, v.mv_size));
    struct starget *t = &s->t[s->num_t - 1];
    if (pf) {
      t->fbm = pf->bitmaps + i * FTS_BITMAP_WORDS;
    } else {
      t->f = f + i;
      t->nf = end - i;
    }
  }
  return 0;
}

// sparse_term appends to s->ids[1] the ids of one term in field `field`
// within the target blocks; 1 when a posting block is too dense.
static int sparse_term(struct ctx *x, struct sparse *s, MDB_cursor *cur, unsigned field,
                       const struct aterm *term, size_t *n) {
  uint8_t key[FTS_KEY_MAX];
  size_t kl = fts_term_key(key, x->account, field, term->kind, term->bytes, term->len);
  key[kl] = (uint8_t)(s->t[0].block >> 8);
  key[kl + 1] = (uint8_t)s->t[0].block;
  MDB_val k = {kl + 2, key}, v;
  size_t ti = 0;
  int rc;
  *n = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    const uint8_t *kp = k.mv_data;
    if (k.mv_size != kl + 2 || memcmp(kp, key, kl) != 0)
      break;
    uint32_t b = (uint32_t)kp[kl] << 8 | kp[kl + 1];
    while (ti < s->num_t && s->t[ti].block < b)
      ti++;
    if (ti == s->num_t)
      break;
    if (s->t[ti].block != b)
      continue;
    struct fts_block blk;
    FTS_TRY(fts_block_parse(&blk, v.mv_data, v.mv_size));
    if (blk.n > SPARSE_MAX)
      return 1;
    FTS_TRY(fts_docs_decode(blk.docs, blk.docs_len, s->offs, blk.n));
    FTS_TRY(ids_reserve(s, 1, *n + blk.n));
    uint32_t base = b * FTS_BLOCK_DOCS, *out = s->ids[1] + *n;
    for (uint32_t i = 0; i < blk.n; i++)
      out[i] = base + s->offs[i];
    *n += blk.n;
  }
  return rc == 0 || rc == MDB_NOTFOUND ? 0 : fts_mdb_error(rc);
}

static size_t union_ids(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out) {
  size_t i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    uint32_t u = a[i], v = b[j];
    out[n++] = u < v ? u : v;
    i += u <= v;
    j += v <= u;
  }
  while (i < na)
    out[n++] = a[i++];
  while (j < nb)
    out[n++] = b[j++];
  return n;
}

static int sparse_run(struct ctx *x, struct sparse *s, MDB_cursor *cur) {
  if (s->num_t == 0)
    return 0;
  const struct leaf *l = &x->leaves[x->q->root];
  if (!(s->offs = malloc(SPARSE_MAX * sizeof *s->offs)))
    return -ENOMEM;
  size_t n = 0;
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++) {
    if (!(l->fields & x->present & (1u << f)))
      continue;
    for (size_t i = 0; i < l->num_terms; i++) {
      if (!(l->terms[i].fields & (1u << f)))
        continue;
      size_t m;
      int rc = sparse_term(x, s, cur, f, &l->terms[i], &m);
      if (rc != 0)
        return rc;
      if (n == 0) { // the first list is the merge so far
        uint32_t *t = s->ids[0];
        size_t c = s->cap[0];
        s->ids[0] = s->ids[1];
        s->cap[0] = s->cap[1];
        s->ids[1] = t;
        s->cap[1] = c;
        n = m;
      } else if (m) {
        FTS_TRY(ids_reserve(s, 2, n + m));
        n = union_ids(s->ids[0], n, s->ids[1], m, s->ids[2]);
        uint32_t *t = s->ids[0];
        size_t c = s->cap[0];
        s->ids[0] = s->ids[2];
        s->cap[0] = s->cap[2];
        s->ids[2] = t;
        s->cap[2] = c;
      }
    }
  }
  // Live and filter checks, in place.
  uint32_t *ids = s->ids[0];
  size_t kept = 0, ti = 0, at = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t d = ids[i], b = d / FTS_BLOCK_DOCS;
    if (s->t[ti].block != b) {
      while (s->t[ti].block < b)
        ti++; // ids lie in target blocks only
      at = 0;
    }
    const struct starget *t = &s->t[ti];
    if (!target_has(t, d))
      continue;
    if (t->f) {
      at = gallop(t->f, at, t->nf, d);
      if (at == t->nf || t->f[at] != d)
        continue;
    }
    ids[kept++] = d;
  }
  free(x->hits);
  x->hits = ids;
  x->num_hits = kept;
  s->ids[0] = NULL;
  s->cap[0] = 0;
  return 0;
}

// sparse_search tries the sparse path for a query that is one word: 1 when
// it answered (x->hits, *total), 0 when the bitmap path must, or an error.
static int sparse_search(struct ctx *x, uint64_t *total) {
  const fts_search_options *o = x->opt;
  const struct fts_qnode *root = &x->q->nodes[x->q->root];
  const struct leaf *l = &x->leaves[x->q->root];
  if (root->type != FTS_Q_WORD || l->mode != LEAF_ALT || l->negated ||
      (o && (o->top_k || o->explain || (o->prepared && o->filter))))
    return 0;
  if (o && o->filter && !filter_sorted(o->filter, o->num_filter))
    return FTS_ERR_INVALID_ARGUMENT;
  x->filter_checked = true;
  MDB_cursor *live, *post;
  int rc = mdb_cursor_open(x->txn, x->idx->live, &live);
  if (rc != 0)
    return fts_mdb_error(rc);
  if ((rc = mdb_cursor_open(x->txn, x->idx->post, &post)) != 0) {
    mdb_cursor_close(live);
    return fts_mdb_error(rc);
  }
  struct sparse s = {0};
  rc = sparse_targets(x, &s, live);
  if (rc == 0)
    rc = sparse_run(x, &s, post);
  sparse_free(&s);
  mdb_cursor_close(live);
  mdb_cursor_close(post);
  if (rc != 0) {
    x->num_hits = 0;
    return rc < 0 ? rc : 0;
  }
  x->sparse = true;
  *total = x->num_hits;
  return 1;
}

// Runs the tree over every target block into `x->live` (reused as results).
static int run(struct ctx *x, uint64_t *total) {
  uint64_t *out = malloc(FTS_BITMAP_BYTES);
  if (!out)
    return -ENOMEM;
  *total = 0;
  int err = 0;
  for (size_t bi = 0; bi < x->num_blocks && !err; bi++) {
    bool neutral;
    if ((err = eval(x, x->q->root, bi, out, &neutral)) < 0)
      break;
    uint64_t *r = x->live[bi];
    for (size_t w = 0; w < FTS_BITMAP_WORDS; w++) {
      r[w] = neutral ? (x->neutral_all ? r[w] : 0) : r[w] & out[w];
      if (r[w])
        *total += fts_popcount64(r[w]);
    }
  }
  free(out);
  return err;
}

static void explain_leaves(struct ctx *x) {
  for (size_t i = 0; x->opt && x->opt->explain && i < x->q->num_nodes; i++) {
    const struct fts_qnode *n = &x->q->nodes[i];
    const struct leaf *l = &x->leaves[i];
    if (n->type < FTS_Q_WORD)
      continue;
    static const char *const modes[] = {"empty (no terms)", "word", "phrase", "prefix"};
    char terms[300] = "";
    size_t at = 0;
    for (size_t t = 0; t < l->num_terms && at < sizeof terms - 80; t++)
      at += (size_t)snprintf(terms + at, sizeof terms - at, "%s%s:%.*s", t ? " | " : "",
                             l->terms[t].kind == FTS_TERM_STEM ? "stem" : "word",
                             (int)(l->terms[t].len > 60 ? 60 : l->terms[t].len),
                             (const char *)l->terms[t].bytes);
    char fields[64] = "";
    size_t fa = 0;
    if (l->fields == FTS_FIELD_MASK_ALL)
      snprintf(fields, sizeof fields, "all fields");
    for (unsigned f = 0;
         f < FTS_MAX_FIELDS && fa < sizeof fields - 12 && l->fields != FTS_FIELD_MASK_ALL; f++)
      if (l->fields & (1u << f))
        fa += (size_t)snprintf(fields + fa, sizeof fields - fa, "%s%s", fa ? "," : "",
                               fts_field_name(f));
    if (l->mode == LEAF_PREFIX)
      explain(x, "%s \"%.*s\" in %s: %s* expanded to %zu terms, %llu documents", modes[l->mode],
              (int)n->len, x->q->text + n->text, fields, terms, l->expansions,
              (unsigned long long)l->matched);
    else
      explain(x, "%s \"%.*s\" in %s: %s, %llu documents", modes[l->mode], (int)n->len,
              x->q->text + n->text, fields, terms, (unsigned long long)l->matched);
  }
}

// ---- ranking ----

// ln_pos is the natural logarithm of x > 0, to about 1e-9, without libm:
// x = m * 2^e with m in [1, 2), ln m = 2 atanh((m - 1) / (m + 1)).
static double ln_pos(double x) {
  uint64_t bits;
  memcpy(&bits, &x, 8);
  int e = (int)((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  memcpy(&m, &bits, 8);
  double z = (m - 1) / (m + 1), z2 = z * z, term = z, sum = 0;
  for (int k = 1; k < 40; k += 2) {
    sum += term / k;
    term *= z2;
  }
  return 2 * sum + e * 0.69314718055994530942;
}

struct scored {
  uint32_t doc;
  float score;
};

static int cmp_scored(const void *a, const void *b) {
  const struct scored *x = a, *y = b;
  if (x->score != y->score)
    return x->score < y->score ? 1 : -1;
  return (x->doc > y->doc) - (x->doc < y->doc);
}

static size_t find_doc(const uint32_t *docs, size_t n, uint32_t doc) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (docs[mid] < doc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && docs[lo] == doc ? lo : SIZE_MAX;
}

// One term's posting blocks as read in a dictionary walk (values valid for
// the transaction), and the term's document frequency over all of them.
struct sterm {
  struct sentry {
    uint32_t block;
    const uint8_t *v;
    size_t len;
  } * e;
  size_t num, cap;
  uint64_t df;
};

static int sterm_add(struct sterm *t, uint32_t block, const MDB_val *v) {
  if (t->num == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 8;
    struct sentry *e = realloc(t->e, nc * sizeof *e);
    if (!e)
      return -ENOMEM;
    t->e = e;
    t->cap = nc;
  }
  t->e[t->num++] = (struct sentry){block, v->mv_data, v->mv_size};
  struct fts_cur c = {v->mv_data, v->mv_size};
  uint32_t bn;
  if (fts_cur_varint(&c, &bn))
    t->df += bn;
  return 0;
}

// score_entries adds the BM25 weight of one term of `field` (its blocks and
// document frequency in `t`) to the scores of the result documents `docs`.
static int score_entries(struct ctx *x, unsigned field, const struct sterm *t,
                         const struct fts_acct_counts *ac, const uint32_t *docs, size_t n,
                         float *scores, const uint32_t *lengths) {
  if (t->df == 0)
    return 0;
  double N = (double)ac->num_docs, df = (double)t->df;
  double idf = ln_pos(1.0 + (N - df + 0.5) / (df + 0.5));
  double avgdl = ac->num_docs ? (double)ac->field_terms[field] / (double)ac->num_docs : 1.0;
  if (avgdl <= 0)
    avgdl = 1.0;
  const double k1 = 1.2, b = 0.75;
  for (size_t ei = 0; ei < t->num; ei++) {
    size_t bi = find_block(x, t->e[ei].block);
    if (bi == SIZE_MAX || bitmap_empty(x->live[bi]))
      continue;
    struct fts_block blk;
    FTS_TRY(fts_block_parse(&blk, t->e[ei].v, t->e[ei].len));
    const uint8_t *pos;
    size_t pos_len;
    if (!x->docs16) {
      // Only ranking needs it: 128 KiB that an unranked search never pays for.
      x->docs16 = malloc(FTS_BLOCK_DOCS * sizeof *x->docs16);
      if (!x->docs16)
        return -ENOMEM;
    }
    FTS_TRY(fts_docs_decode(blk.docs, blk.docs_len, x->docs16, blk.n));
    FTS_TRY(fts_block_positions(&blk, &x->scratch, &pos, &pos_len));
    struct fts_pos_iter it;
    FTS_TRY(fts_pos_iter_init(&it, pos, pos_len));
    for (uint32_t i = 0; i < blk.n; i++) {
      const uint8_t *seg;
      size_t sl;
      uint32_t tf;
      FTS_TRY(fts_pos_iter_next(&it, &seg, &sl));
      struct fts_cur sc = {seg, sl};
      if (!fts_cur_varint(&sc, &tf))
        return FTS_ERR_CORRUPT;
      uint16_t off = x->docs16[i];
      if (!(x->live[bi][off / 64] & (1ull << (off % 64))))
        continue;
      size_t r = find_doc(docs, n, x->blocks[bi] * FTS_BLOCK_DOCS + off);
      if (r == SIZE_MAX)
        continue;
      double dl = lengths[r * FTS_MAX_FIELDS + field];
      scores[r] += (float)(idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)));
    }
  }
  return 0;
}

// score_term scores one term: its blocks in one dictionary walk, which
// also gives its document frequency over every block of the account.
static int score_term(struct ctx *x, unsigned field, const struct aterm *t, uint8_t kind,
                      const struct fts_acct_counts *ac, const uint32_t *docs, size_t n,
                      float *scores, const uint32_t *lengths) {
  uint8_t key[FTS_KEY_MAX];
  size_t kl = fts_term_key(key, x->account, field, kind, t->bytes, t->len);
  MDB_cursor *cur;
  int rc = mdb_cursor_open(x->txn, x->idx->post, &cur);
  if (rc != 0)
    return fts_mdb_error(rc);
  MDB_val k = {kl, key}, v;
  struct sterm st = {0};
  int err = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && !err;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size != kl + 2 || memcmp(k.mv_data, key, kl) != 0)
      break;
    const uint8_t *kp = k.mv_data;
    err = sterm_add(&st, (uint32_t)kp[kl] << 8 | kp[kl + 1], &v);
  }
  if (!err && rc != 0 && rc != MDB_NOTFOUND)
    err = fts_mdb_error(rc);
  mdb_cursor_close(cur);
  if (!err)
    err = score_entries(x, field, &st, ac, docs, n, scores, lengths);
  free(st.e);
  return err;
}

// score_prefix scores a prefix as the OR of its expansions: every word of
// `field` that begins with it adds its own BM25 weight (its own document
// frequency), as if the query had named each (SEARCH.md).
static int score_prefix(struct ctx *x, unsigned field, const struct aterm *t,
                        const struct fts_acct_counts *ac, const uint32_t *docs, size_t n,
                        float *scores, const uint32_t *lengths) {
  uint8_t key[FTS_KEY_MAX];
  size_t plen = fts_term_key(key, x->account, field, FTS_TERM_WORD, t->bytes, t->len) - 1;
  MDB_cursor *cur;
  int rc = mdb_cursor_open(x->txn, x->idx->post, &cur);
  if (rc != 0)
    return fts_mdb_error(rc);
  MDB_val k = {plen, key}, v;
  struct sterm st = {0};
  const uint8_t *prev = NULL;
  size_t prev_len = 0;
  int err = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && !err;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size < plen + 3 || memcmp(k.mv_data, key, plen) != 0)
      break;
    const uint8_t *kp = k.mv_data;
    size_t tl = k.mv_size - 2; // the term with its NUL
    if (prev && (prev_len != tl || memcmp(prev, kp, tl) != 0)) {
      err = score_entries(x, field, &st, ac, docs, n, scores, lengths);
      st.num = 0;
      st.df = 0;
    }
    prev = kp;
    prev_len = tl;
    if (!err)
      err = sterm_add(&st, (uint32_t)kp[tl] << 8 | kp[tl + 1], &v);
  }
  if (!err && rc != 0 && rc != MDB_NOTFOUND)
    err = fts_mdb_error(rc);
  mdb_cursor_close(cur);
  if (!err && prev)
    err = score_entries(x, field, &st, ac, docs, n, scores, lengths);
  free(st.e);
  return err;
}

static int rank(struct ctx *x, fts_result *res, uint32_t top_k) {
  struct fts_acct_counts ac;
  FTS_TRY(fts_acct_read(x->txn, x->idx, x->account, &ac));
  size_t n = res->num_docs;
  float *scores = calloc(n ? n : 1, sizeof *scores);
  uint32_t *lengths = calloc(n ? n * FTS_MAX_FIELDS : 1, sizeof *lengths);
  if (!scores || !lengths) {
    free(scores);
    free(lengths);
    return -ENOMEM;
  }
  int err = 0;
  for (size_t i = 0; i < n && !err; i++) {
    uint8_t key[8];
    fts_put_be32(key, x->account);
    fts_put_be32(key + 4, res->docs[i]);
    MDB_val k = {8, key}, v;
    int rc = mdb_get(x->txn, x->idx->docs, &k, &v);
    if (rc == MDB_NOTFOUND)
      continue;
    if (rc != 0) {
      err = fts_mdb_error(rc);
      break;
    }
    // As strict as unindex_doc: a length read as 0 would rank silently wrong.
    struct fts_cur c = {v.mv_data, v.mv_size};
    uint32_t f, len;
    while (c.len && !err) {
      if (!fts_cur_varint(&c, &f) || !fts_cur_varint(&c, &len) || f >= FTS_MAX_FIELDS)
        err = FTS_ERR_CORRUPT;
      else
        lengths[i * FTS_MAX_FIELDS + f] = len;
    }
  }
  for (size_t i = 0; i < x->q->num_nodes && !err; i++) {
    const struct leaf *l = &x->leaves[i];
    if (x->q->nodes[i].type < FTS_Q_WORD || l->negated || l->mode == LEAF_EMPTY)
      continue;
    for (unsigned f = 0; f < FTS_MAX_FIELDS && !err; f++) {
      if (!(l->fields & x->present & (1u << f)))
        continue;
      if (l->mode == LEAF_PREFIX) { // the OR of its expansions
        err = score_prefix(x, f, &l->terms[0], &ac, res->docs, n, scores, lengths);
        continue;
      }
      for (size_t t = 0; t < l->num_terms && !err; t++)
        if (l->terms[t].fields & (1u << f))
          err =
              score_term(x, f, &l->terms[t], l->terms[t].kind, &ac, res->docs, n, scores, lengths);
    }
  }
  free(lengths);
  struct scored *s = err ? NULL : malloc((n ? n : 1) * sizeof *s);
  if (!err && !s)
    err = -ENOMEM;
  if (!err) {
    for (size_t i = 0; i < n; i++) {
      s[i].doc = res->docs[i];
      s[i].score = scores[i];
    }
    qsort(s, n, sizeof *s, cmp_scored);
    if (n > top_k)
      n = top_k;
    for (size_t i = 0; i < n; i++) {
      res->docs[i] = s[i].doc;
      scores[i] = s[i].score;
    }
    res->num_docs = n;
    res->scores = scores;
    scores = NULL;
  }
  free(s);
  free(scores);
  return err;
}

// ---- entry points ----

static int collect_docs(struct ctx *x, uint64_t total, uint32_t *out) {
  if (x->sparse) {
    if (total != x->num_hits)
      return FTS_ERR_CORRUPT;
    if (total)
      memcpy(out, x->hits, total * sizeof *out);
    return 0;
  }
  size_t n = 0;
  // Word by word, checked against the room left once per word; stops at the
  // last hit (a rare word's few documents end the walk early).
  for (size_t bi = 0; bi < x->num_blocks && n < total; bi++) {
    const uint64_t *bm = x->live[bi];
    uint32_t base = x->blocks[bi] * FTS_BLOCK_DOCS;
    for (size_t w = 0; w < FTS_BITMAP_WORDS && n < total; w++) {
      uint64_t v = bm[w];
      if (!v)
        continue;
      if (fts_popcount64(v) > total - n)
        return FTS_ERR_CORRUPT;
      uint32_t at = base + (uint32_t)(w * 64);
      do {
        out[n++] = at + (uint32_t)__builtin_ctzll(v);
        v &= v - 1;
      } while (v);
    }
  }
  return n == total ? 0 : FTS_ERR_CORRUPT;
}

static int search_prepare(struct ctx *x, fts_index *idx, uint32_t account, const fts_query *q,
                          const fts_search_options *opt, uint64_t *total) {
  FTS_TRY(ctx_init(x, idx, account, q, opt));
  FTS_TRY(setup_leaves(x, q->root, false));
  int rc = sparse_search(x, total);
  if (rc != 0)
    return rc < 0 ? rc : 0;
  FTS_TRY(load_targets(x));
  FTS_TRY(prefix_all(x, q->root));
  FTS_TRY(run(x, total));
  explain_leaves(x);
  explain(x, "%zu blocks read, %llu documents", x->num_blocks, (unsigned long long)*total);
  return 0;
}

int fts_search(fts_index *idx, fts_result **out, uint32_t account, const fts_query *q,
               const fts_search_options *opt) {
  if (!out)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!idx || !q)
    return FTS_ERR_INVALID_ARGUMENT;
  struct ctx x;
  uint64_t total = 0;
  int err = search_prepare(&x, idx, account, q, opt, &total);
  fts_result *res = NULL;
  if (!err) {
    res = calloc(1, sizeof *res);
    if (res)
      res->docs = malloc((total ? total : 1) * sizeof *res->docs);
    if (!res || !res->docs)
      err = -ENOMEM;
  }
  if (!err) {
    res->num_docs = total;
    err = collect_docs(&x, total, res->docs);
  }
  if (!err && opt && opt->top_k)
    err = rank(&x, res, opt->top_k);
  ctx_free(&x);
  if (err) {
    fts_result_free(res);
    return err;
  }
  *out = res;
  return 0;
}

int fts_search_into(fts_index *idx, uint32_t *out, size_t out_cap, size_t *out_len,
                    uint32_t account, const fts_query *q, const fts_search_options *opt) {
  if (!out_len || (!out && out_cap))
    return FTS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (opt && opt->top_k) {
    fts_result *r;
    FTS_TRY(fts_search(idx, &r, account, q, opt));
    *out_len = r->num_docs;
    int rc = r->num_docs > out_cap ? FTS_ERR_LIMIT : 0;
    if (!rc && r->num_docs)
      memcpy(out, r->docs, r->num_docs * sizeof *out);
    fts_result_free(r);
    return rc;
  }
  if (!idx || !q)
    return FTS_ERR_INVALID_ARGUMENT;
  struct ctx x;
  uint64_t total = 0;
  int err = search_prepare(&x, idx, account, q, opt, &total);
  if (!err) {
    *out_len = total;
    if (total > out_cap)
      err = FTS_ERR_LIMIT;
    else
      err = collect_docs(&x, total, out);
  }
  ctx_free(&x);
  return err;
}

void fts_result_free(fts_result *r) {
  if (!r)
    return;
  free(r->docs);
  free(r->scores);
  free(r);
}

// ---- strict substring search ----

// Normalises `in` to NFKC case-folded UTF-8 (a new buffer in *out); invalid
// UTF-8 falls back to ASCII lower-casing, byte for byte.
static int fold(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len) {
  utf8proc_uint8_t *r = NULL;
  utf8proc_ssize_t n =
      len > (size_t)INT32_MAX
          ? -1
          : utf8proc_map(in, (utf8proc_ssize_t)len, &r,
                         UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD);
  if (n >= 0) {
    *out = r;
    *out_len = (size_t)n;
    return 0;
  }
  free(r);
  uint8_t *b = malloc(len ? len : 1);
  if (!b)
    return -ENOMEM;
  for (size_t i = 0; i < len; i++)
    b[i] = (in[i] >= 'A' && in[i] <= 'Z') ? (uint8_t)(in[i] + 32) : in[i];
  *out = b;
  *out_len = len;
  return 0;
}

int fts_search_substring(fts_index *idx, fts_result **out, uint32_t account, const uint8_t *needle,
                         size_t needle_len, const fts_search_options *opt, fts_text_fn text_fn,
                         void *text_ctx) {
  if (!out)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!idx || !text_fn || (!needle && needle_len))
    return FTS_ERR_INVALID_ARGUMENT;
  // The candidate query is an AND of one prefix leaf per distinct word.
  struct fts_query q = {0};
  struct ctx x;
  struct collect c = {0};
  uint8_t *fneedle = NULL;
  size_t fneedle_len = 0;
  fts_result *res = NULL;
  uint64_t total = 0;
  fts_search_options o = opt ? *opt : (fts_search_options){0};
  o.top_k = 0;
  int err = ctx_init(&x, idx, account, &q, &o);
  if (!err)
    err = load_targets(&x);
  if (!err)
    err = fold(needle, needle_len, &fneedle, &fneedle_len);
  if (!err)
    err = analyse(&x, needle, needle_len, &c);
  size_t words = err ? 0 : words_only(&c);
  if (!err) {
    q.num_nodes = words + 1;
    q.nodes = calloc(q.num_nodes, sizeof *q.nodes);
    free(x.leaves);
    x.leaves = calloc(q.num_nodes, sizeof *x.leaves);
    if (!q.nodes || !x.leaves)
      err = -ENOMEM;
  }
  if (!err) {
    q.root = 0;
    q.nodes[0].type = FTS_Q_AND;
    q.nodes[0].first = words ? 1 : UINT32_MAX;
    q.nodes[0].next = UINT32_MAX;
    for (size_t i = 0; i < words && !err; i++) {
      q.nodes[i + 1].type = FTS_Q_PREFIX;
      q.nodes[i + 1].first = UINT32_MAX;
      q.nodes[i + 1].next = i + 1 < words ? (uint32_t)(i + 2) : UINT32_MAX;
      struct leaf *l = &x.leaves[i + 1];
      l->mode = LEAF_PREFIX;
      l->fields = x.default_fields;
      l->terms = malloc(sizeof *l->terms);
      l->num_terms = 1;
      if (!l->terms) {
        err = -ENOMEM;
        break;
      }
      l->terms[0] = c.terms[i];
      err = prefix_expand(&x, l);
      if (err == FTS_ERR_LIMIT) { // too short to narrow anything
        l->mode = LEAF_EMPTY;
        err = 0;
      }
    }
  }
  x.neutral_all = true;
  if (!err)
    err = run(&x, &total);
  uint32_t *cand = NULL;
  if (!err) {
    cand = malloc((total ? total : 1) * sizeof *cand);
    res = calloc(1, sizeof *res);
    if (res)
      res->docs = malloc((total ? total : 1) * sizeof *res->docs);
    if (!cand || !res || !res->docs)
      err = -ENOMEM;
    else
      err = collect_docs(&x, total, cand);
  }
  // The exact check, field by field.
  for (uint64_t i = 0; !err && i < total; i++) {
    bool hit = false;
    for (unsigned f = 0; f < FTS_MAX_FIELDS && !hit && !err; f++) {
      if (!(x.default_fields & (1u << f)))
        continue;
      const uint8_t *text = NULL;
      size_t tl = 0;
      int rc = text_fn(text_ctx, cand[i], f, &text, &tl);
      if (rc < 0) {
        err = rc;
        break;
      }
      if (rc == 1 || (!text && tl))
        continue;
      uint8_t *ft;
      size_t ftl;
      if ((err = fold(text, tl, &ft, &ftl)) < 0)
        break;
      hit = fneedle_len == 0 || memmem(ft, ftl, fneedle, fneedle_len) != NULL;
      free(ft);
    }
    if (hit)
      res->docs[res->num_docs++] = cand[i];
  }
  explain(&x, "substring: %llu candidates, %zu matches", (unsigned long long)total,
          res ? res->num_docs : 0);
  free(cand);
  free(c.terms);
  free(fneedle);
  ctx_free(&x);
  free(q.nodes);
  if (err) {
    fts_result_free(res);
    return err;
  }
  *out = res;
  return 0;
}
