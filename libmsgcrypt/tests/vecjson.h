// vecjson.h: a small JSON reader for the test vectors in ../shared/vectors
// (NIST ACVP and Wycheproof files). Test-only: it reads trusted files whole
// into a tree, with a nesting limit, and reports any syntax error as NULL.
#ifndef MC_VECJSON_H
#define MC_VECJSON_H

#include <stddef.h>

typedef enum { VJ_NULL, VJ_BOOL, VJ_NUMBER, VJ_STRING, VJ_ARRAY, VJ_OBJECT } vj_type;

typedef struct vj_value {
  vj_type type;
  int boolean;
  double number;
  char *string;           // VJ_STRING: NUL-terminated, UTF-8
  size_t count;           // VJ_ARRAY / VJ_OBJECT: number of items
  struct vj_value *items; // VJ_ARRAY / VJ_OBJECT: the items
  char **keys;            // VJ_OBJECT: key of each item
} vj_value;

// vj_parse_file reads and parses the JSON file at `path`; NULL on any error.
vj_value *vj_parse_file(const char *path);

// vj_free releases a tree from vj_parse_file. No-op on NULL.
void vj_free(vj_value *v);

// vj_get returns the member `key` of object `obj`, or NULL.
const vj_value *vj_get(const vj_value *obj, const char *key);

// vj_str returns the string member `key` of `obj`, or NULL if it is missing or
// not a string.
const char *vj_str(const vj_value *obj, const char *key);

// vj_num returns the number member `key` of `obj`, or `fallback`.
double vj_num(const vj_value *obj, const char *key, double fallback);

// vj_vectors_path writes "$CORVID_VECTORS/<rel>" into `out` (size `out_cap`)
// and returns `out`; CORVID_VECTORS defaults to ../shared/vectors.
char *vj_vectors_path(char *out, size_t out_cap, const char *rel);

#endif // MC_VECJSON_H
