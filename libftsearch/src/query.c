// query.c: the query language: a recursive-descent parser from query text to
// a tree of AND, OR, NOT, word, phrase and prefix nodes (with field
// restrictions), bounded in length, depth and terms, and the canonical
// description that reads back as the same tree.
#include "index_internal.h"

#include <errno.h>
#include <stdio.h>

struct parser {
  const char *in;
  size_t len, at;
  size_t err_off;
  uint32_t depth, max_depth, terms, max_terms;
  struct fts_query *q;
  size_t nodes_cap;
  struct fts_buf text;
};

// NUL separates like white space, so that no term and no description
// holds one.
static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == 0;
}

static bool is_delim(char c) {
  return is_space(c) || c == '(' || c == ')' || c == '"';
}

static void skip_space(struct parser *p) {
  while (p->at < p->len && is_space(p->in[p->at]))
    p->at++;
}

// The bare run at the cursor: bytes up to white space, a parenthesis or a
// quote.
static size_t run_len(const struct parser *p) {
  size_t n = 0;
  while (p->at + n < p->len && !is_delim(p->in[p->at + n]))
    n++;
  return n;
}

static int fail(struct parser *p, size_t off, int code) {
  p->err_off = off;
  return code;
}

static int new_node(struct parser *p, uint8_t type, uint32_t *out) {
  if (p->q->num_nodes == p->nodes_cap) {
    size_t cap = p->nodes_cap ? 2 * p->nodes_cap : 16;
    struct fts_qnode *n = realloc(p->q->nodes, cap * sizeof *n);
    if (!n)
      return -ENOMEM;
    p->q->nodes = n;
    p->nodes_cap = cap;
  }
  struct fts_qnode *n = &p->q->nodes[p->q->num_nodes];
  memset(n, 0, sizeof *n);
  n->type = type;
  n->first = n->next = UINT32_MAX;
  *out = (uint32_t)p->q->num_nodes++;
  return 0;
}

static int new_leaf(struct parser *p, uint8_t type, int field, const char *text, size_t len,
                    size_t off, uint32_t *out) {
  if (++p->terms > p->max_terms)
    return fail(p, off, FTS_ERR_LIMIT);
  FTS_TRY(new_node(p, type, out));
  struct fts_qnode *n = &p->q->nodes[*out];
  n->fields = field >= 0 ? (uint16_t)(1u << field) : 0;
  n->text = (uint32_t)p->text.len;
  n->len = (uint32_t)len;
  size_t at = p->text.len;
  fts_buf_put(&p->text, text, len);
  for (size_t i = 0; i < len && !p->text.err; i++)
    if (p->text.p[at + i] == 0) // inside a phrase: a separator, as outside
      p->text.p[at + i] = ' ';
  return p->text.err;
}

static int parse_or(struct parser *p, int field, uint32_t *out);

// A word, prefix*, "phrase" or (group), restricted to `field` (-1: none).
static int parse_primary(struct parser *p, int field, uint32_t *out) {
  skip_space(p);
  if (p->at >= p->len)
    return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
  size_t start = p->at;
  char c = p->in[p->at];
  if (c == '(') {
    if (++p->depth > p->max_depth)
      return fail(p, start, FTS_ERR_LIMIT);
    p->at++;
    FTS_TRY(parse_or(p, field, out));
    skip_space(p);
    if (p->at >= p->len || p->in[p->at] != ')')
      return fail(p, start, FTS_ERR_QUERY_SYNTAX);
    p->at++;
    p->depth--;
    return 0;
  }
  if (c == '"') {
    const char *end = memchr(p->in + start + 1, '"', p->len - start - 1);
    if (!end)
      return fail(p, start, FTS_ERR_QUERY_SYNTAX);
    size_t len = (size_t)(end - (p->in + start + 1));
    p->at = (size_t)(end - p->in) + 1;
    return new_leaf(p, FTS_Q_PHRASE, field, p->in + start + 1, len, start, out);
  }
  if (c == ')')
    return fail(p, start, FTS_ERR_QUERY_SYNTAX);
  size_t n = run_len(p);
  const char *w = p->in + start;
  const char *colon = memchr(w, ':', n);
  if (colon && colon > w) {
    int f = fts_field_lookup(w, (size_t)(colon - w));
    if (f >= 0) {
      size_t rest = n - (size_t)(colon - w) - 1;
      p->at = start + (size_t)(colon - w) + 1;
      if (rest == 0) {
        if (p->at < p->len && (p->in[p->at] == '(' || p->in[p->at] == '"'))
          return parse_primary(p, f, out);
        return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
      }
      if (p->in[p->at] == '-' && rest > 1) // -subject:x says it; subject:-x is unclear
        return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
      w = p->in + p->at;
      n = rest;
      start = p->at;
      field = f;
    }
  }
  p->at = start + n;
  if (n > 1 && w[n - 1] == '*')
    return new_leaf(p, FTS_Q_PREFIX, field, w, n - 1, start, out);
  return new_leaf(p, FTS_Q_WORD, field, w, n, start, out);
}

static bool at_keyword(struct parser *p, const char *kw) {
  skip_space(p);
  size_t n = run_len(p), kl = strlen(kw);
  return n == kl && memcmp(p->in + p->at, kw, kl) == 0;
}

static int parse_unary(struct parser *p, int field, uint32_t *out) {
  skip_space(p);
  if (p->at >= p->len)
    return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
  size_t start = p->at;
  bool neg = false;
  if (at_keyword(p, "NOT")) {
    p->at += 3;
    neg = true;
  } else if (p->in[p->at] == '-' && p->at + 1 < p->len && !is_space(p->in[p->at + 1]) &&
             p->in[p->at + 1] != ')') {
    p->at++;
    neg = true;
  }
  if (!neg) {
    if (at_keyword(p, "AND") || at_keyword(p, "OR"))
      return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
    return parse_primary(p, field, out);
  }
  if (++p->depth > p->max_depth)
    return fail(p, start, FTS_ERR_LIMIT);
  uint32_t child;
  FTS_TRY(parse_unary(p, field, &child));
  p->depth--;
  FTS_TRY(new_node(p, FTS_Q_NOT, out));
  p->q->nodes[*out].first = child;
  return 0;
}

// Links `child` as the last child of `parent`.
static void append_child(struct fts_query *q, uint32_t parent, uint32_t *last, uint32_t child) {
  if (*last == UINT32_MAX)
    q->nodes[parent].first = child;
  else
    q->nodes[*last].next = child;
  *last = child;
}

static bool at_end_of_group(struct parser *p) {
  skip_space(p);
  return p->at >= p->len || p->in[p->at] == ')';
}

static int parse_and(struct parser *p, int field, uint32_t *out) {
  uint32_t first;
  FTS_TRY(parse_unary(p, field, &first));
  uint32_t node = UINT32_MAX, last = UINT32_MAX;
  for (;;) {
    if (at_end_of_group(p) || at_keyword(p, "OR"))
      break;
    if (at_keyword(p, "AND")) {
      p->at += 3;
      if (at_end_of_group(p) || at_keyword(p, "OR"))
        return fail(p, p->at, FTS_ERR_QUERY_SYNTAX);
    }
    uint32_t next;
    FTS_TRY(parse_unary(p, field, &next));
    if (node == UINT32_MAX) {
      FTS_TRY(new_node(p, FTS_Q_AND, &node));
      append_child(p->q, node, &last, first);
    }
    append_child(p->q, node, &last, next);
  }
  *out = node == UINT32_MAX ? first : node;
  return 0;
}

static int parse_or(struct parser *p, int field, uint32_t *out) {
  uint32_t first;
  FTS_TRY(parse_and(p, field, &first));
  uint32_t node = UINT32_MAX, last = UINT32_MAX;
  while (at_keyword(p, "OR")) {
    p->at += 2;
    uint32_t next;
    FTS_TRY(parse_and(p, field, &next));
    if (node == UINT32_MAX) {
      FTS_TRY(new_node(p, FTS_Q_OR, &node));
      append_child(p->q, node, &last, first);
    }
    append_child(p->q, node, &last, next);
  }
  *out = node == UINT32_MAX ? first : node;
  return 0;
}

void fts_query_free(fts_query *q) {
  if (!q)
    return;
  free(q->nodes);
  free(q->text);
  free(q);
}

int fts_query_parse(fts_query **out, const fts_query_settings *settings, const char *in,
                    size_t in_len, size_t *err_off) {
  if (err_off)
    *err_off = 0;
  if (!out)
    return FTS_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (!in && in_len > 0)
    return FTS_ERR_INVALID_ARGUMENT;
  fts_query_settings s = {0};
  if (settings)
    s = *settings;
  if (!s.max_len)
    s.max_len = FTS_DEFAULT_MAX_QUERY_LEN;
  if (!s.max_depth)
    s.max_depth = FTS_DEFAULT_MAX_QUERY_DEPTH;
  if (!s.max_terms)
    s.max_terms = FTS_DEFAULT_MAX_QUERY_TERMS;
  if (in_len > s.max_len) {
    if (err_off)
      *err_off = s.max_len;
    return FTS_ERR_LIMIT;
  }
  struct parser p = {.in = in, .len = in_len, .max_depth = s.max_depth, .max_terms = s.max_terms};
  p.q = calloc(1, sizeof *p.q);
  if (!p.q)
    return -ENOMEM;
  int rc;
  skip_space(&p);
  if (p.at >= p.len)
    rc = fail(&p, p.at, FTS_ERR_QUERY_SYNTAX);
  else
    rc = parse_or(&p, -1, &p.q->root);
  if (rc == 0) {
    skip_space(&p);
    if (p.at < p.len) // only a stray ')' stops parse_or early
      rc = fail(&p, p.at, FTS_ERR_QUERY_SYNTAX);
  }
  if (rc == 0 && (rc = fts_buf_reserve(&p.text, 1)) == 0) {
    p.q->text = (char *)p.text.p;
    *out = p.q;
    return 0;
  }
  fts_buf_free(&p.text);
  fts_query_free(p.q);
  if (err_off)
    *err_off = p.err_off;
  return rc;
}

static void describe(const struct fts_query *q, uint32_t i, struct fts_buf *out) {
  const struct fts_qnode *n = &q->nodes[i];
  if (n->type == FTS_Q_AND || n->type == FTS_Q_OR) {
    fts_buf_put(out, "(", 1);
    for (uint32_t c = n->first; c != UINT32_MAX; c = q->nodes[c].next) {
      if (c != n->first)
        fts_buf_put(out, n->type == FTS_Q_AND ? " AND " : " OR ", n->type == FTS_Q_AND ? 5 : 4);
      describe(q, c, out);
    }
    fts_buf_put(out, ")", 1);
    return;
  }
  if (n->type == FTS_Q_NOT) {
    fts_buf_put(out, "NOT ", 4);
    describe(q, n->first, out);
    return;
  }
  if (n->fields) {
    const char *name = fts_field_name((unsigned)__builtin_ctz(n->fields));
    fts_buf_put(out, name, strlen(name));
    fts_buf_put(out, ":", 1);
  }
  if (n->type == FTS_Q_PHRASE)
    fts_buf_put(out, "\"", 1);
  fts_buf_put(out, q->text + n->text, n->len);
  if (n->type == FTS_Q_PHRASE)
    fts_buf_put(out, "\"", 1);
  if (n->type == FTS_Q_PREFIX)
    fts_buf_put(out, "*", 1);
}

int fts_query_describe(const fts_query *q, char *out, size_t out_cap, size_t *out_len) {
  if (!q || !out_len || (!out && out_cap > 0))
    return FTS_ERR_INVALID_ARGUMENT;
  struct fts_buf b = {0};
  describe(q, q->root, &b);
  if (b.err) {
    int err = b.err;
    fts_buf_free(&b);
    return err;
  }
  *out_len = b.len;
  int rc = 0;
  if (b.len + 1 > out_cap)
    rc = FTS_ERR_LIMIT;
  else {
    if (b.len)
      memcpy(out, b.p, b.len);
    out[b.len] = 0;
  }
  fts_buf_free(&b);
  return rc;
}
