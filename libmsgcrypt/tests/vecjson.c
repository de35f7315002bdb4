// vecjson.c: the JSON reader behind vecjson.h, for test vectors only.
#include "vecjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VJ_MAX_DEPTH = 64 };

struct parser {
  const char *p, *end;
};

static void skip_ws(struct parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static int parse_value(struct parser *ps, vj_value *out, int depth);

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return 0;
  }
  *out = v;
  return 1;
}

static size_t put_utf8(char *dst, unsigned cp) {
  if (cp < 0x80) {
    dst[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    dst[0] = (char)(0xc0 | cp >> 6);
    dst[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    dst[0] = (char)(0xe0 | cp >> 12);
    dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  dst[0] = (char)(0xf0 | cp >> 18);
  dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  dst[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

// parse_string reads a string at ps->p (just after the opening quote). The
// decoded form is never longer than the source, so one allocation suffices.
static char *parse_string(struct parser *ps) {
  const char *start = ps->p;
  const char *q = start;
  while (q < ps->end && *q != '"')
    q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
  if (q >= ps->end)
    return NULL;
  char *s = malloc((size_t)(q - start) + 1), *w = s;
  if (s == NULL)
    return NULL;
  while (ps->p < q) {
    char c = *ps->p++;
    if (c != '\\') {
      *w++ = c;
      continue;
    }
    char e = *ps->p++;
    unsigned cp;
    switch (e) {
    case 'n':
      *w++ = '\n';
      break;
    case 't':
      *w++ = '\t';
      break;
    case 'r':
      *w++ = '\r';
      break;
    case 'b':
      *w++ = '\b';
      break;
    case 'f':
      *w++ = '\f';
      break;
    case '"':
    case '\\':
    case '/':
      *w++ = e;
      break;
    case 'u':
      if (q - ps->p < 4 || !hex4(ps->p, &cp))
        goto fail;
      ps->p += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && q - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
        unsigned lo;
        if (hex4(ps->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          ps->p += 6;
        }
      }
      w += put_utf8(w, cp);
      break;
    default:
      goto fail;
    }
  }
  *w = '\0';
  ps->p = q + 1;
  return s;
fail:
  free(s);
  return NULL;
}

static int append(vj_value *parent, const vj_value *item, char *key) {
  vj_value *items = realloc(parent->items, (parent->count + 1) * sizeof *items);
  if (items == NULL)
    return 0;
  parent->items = items;
  if (parent->type == VJ_OBJECT) {
    char **keys = realloc(parent->keys, (parent->count + 1) * sizeof *keys);
    if (keys == NULL)
      return 0;
    parent->keys = keys;
    keys[parent->count] = key;
  }
  items[parent->count++] = *item;
  return 1;
}

static void free_inner(vj_value *v) {
  free(v->string);
  for (size_t i = 0; i < v->count; i++) {
    free_inner(&v->items[i]);
    if (v->keys != NULL)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
}

static int parse_container(struct parser *ps, vj_value *out, int depth, char close) {
  out->type = close == ']' ? VJ_ARRAY : VJ_OBJECT;
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
    return 1;
  }
  for (;;) {
    char *key = NULL;
    vj_value item = {0};
    skip_ws(ps);
    if (close == '}') {
      if (ps->p >= ps->end || *ps->p != '"')
        return 0;
      ps->p++;
      if ((key = parse_string(ps)) == NULL)
        return 0;
      skip_ws(ps);
      if (ps->p >= ps->end || *ps->p++ != ':') {
        free(key);
        return 0;
      }
    }
    if (!parse_value(ps, &item, depth + 1) || !append(out, &item, key)) {
      free_inner(&item);
      free(key);
      return 0;
    }
    skip_ws(ps);
    if (ps->p >= ps->end)
      return 0;
    char c = *ps->p++;
    if (c == close)
      return 1;
    if (c != ',')
      return 0;
  }
}

static int parse_value(struct parser *ps, vj_value *out, int depth) {
  memset(out, 0, sizeof *out);
  if (depth > VJ_MAX_DEPTH)
    return 0;
  skip_ws(ps);
  if (ps->p >= ps->end)
    return 0;
  char c = *ps->p;
  size_t left = (size_t)(ps->end - ps->p);
  if (c == '{' || c == '[') {
    ps->p++;
    return parse_container(ps, out, depth, c == '{' ? '}' : ']');
  }
  if (c == '"') {
    ps->p++;
    out->type = VJ_STRING;
    return (out->string = parse_string(ps)) != NULL;
  }
  if (left >= 4 && memcmp(ps->p, "true", 4) == 0) {
    out->type = VJ_BOOL, out->boolean = 1, ps->p += 4;
    return 1;
  }
  if (left >= 5 && memcmp(ps->p, "false", 5) == 0) {
    out->type = VJ_BOOL, ps->p += 5;
    return 1;
  }
  if (left >= 4 && memcmp(ps->p, "null", 4) == 0) {
    out->type = VJ_NULL, ps->p += 4;
    return 1;
  }
  // Numbers: strtod stops at the first character that is not part of one; the
  // file buffer is NUL-terminated, so it cannot run past the end.
  char *num_end;
  out->type = VJ_NUMBER;
  out->number = strtod(ps->p, &num_end);
  if (num_end == ps->p)
    return 0;
  ps->p = num_end;
  return 1;
}

vj_value *vj_parse_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  do {
    if (cap - len < 65536) {
      cap = cap ? cap * 2 : 1 << 20;
      char *grown = realloc(buf, cap + 1);
      if (grown == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
  } while (n > 0);
  fclose(f);
  buf[len] = '\0';
  struct parser ps = {buf, buf + len};
  vj_value *root = calloc(1, sizeof *root);
  int ok = root != NULL && parse_value(&ps, root, 0);
  skip_ws(&ps);
  free(buf);
  if (!ok || ps.p != ps.end) {
    vj_free(root);
    return NULL;
  }
  return root;
}

void vj_free(vj_value *v) {
  if (v == NULL)
    return;
  free_inner(v);
  free(v);
}

const vj_value *vj_get(const vj_value *obj, const char *key) {
  if (obj == NULL || obj->type != VJ_OBJECT)
    return NULL;
  for (size_t i = 0; i < obj->count; i++)
    if (strcmp(obj->keys[i], key) == 0)
      return &obj->items[i];
  return NULL;
}

const char *vj_str(const vj_value *obj, const char *key) {
  const vj_value *v = vj_get(obj, key);
  return v != NULL && v->type == VJ_STRING ? v->string : NULL;
}

double vj_num(const vj_value *obj, const char *key, double fallback) {
  const vj_value *v = vj_get(obj, key);
  return v != NULL && v->type == VJ_NUMBER ? v->number : fallback;
}

char *vj_vectors_path(char *out, size_t out_cap, const char *rel) {
  const char *root = getenv("CORVID_VECTORS");
  snprintf(out, out_cap, "%s/%s", root != NULL ? root : "../shared/vectors", rel);
  return out;
}
