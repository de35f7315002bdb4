// fuzz_config.c: libFuzzer harness for the daemons' configuration reader
// (srv_config_parse). A configuration is an administrator's file, but the
// reader is the first thing every daemon runs and must hold its limits on
// any bytes. For each input:
//
// - a failure returns one of the documented codes, hands out no handle and
//   fills the diag with that code, a line no further than the input's and
//   a NUL-terminated message;
// - a success is checked through every getter on every key (the typed
//   ones may refuse a value, with a documented code, and what they accept
//   lies in the asked range; list items are non-empty and hold no
//   separator);
// - and a success round-trips: written back as quoted values under their
//   sections, the keys parse again to the same values in the same order.
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "srv_config.h"

// The keys of a parsed configuration, in file order (srv_config_unused).
struct keys {
  const char *key[SRV_CONFIG_MAX_ENTRIES];
  size_t n;
};

static void collect(void *ctx, const char *key, const char *file, unsigned line) {
  (void)file;
  (void)line;
  struct keys *k = ctx;
  FUZZ_CHECK(k->n < SRV_CONFIG_MAX_ENTRIES);
  k->key[k->n++] = key;
}

static void check_diag(const srv_config_diag *d, int rc, size_t lines) {
  FUZZ_CHECK(d->code == rc);
  FUZZ_CHECK(memchr(d->message, '\0', sizeof d->message) != NULL);
  FUZZ_CHECK(memchr(d->file, '\0', sizeof d->file) != NULL);
  FUZZ_CHECK(d->line <= lines + 1);
}

static bool is_value_error(int rc) {
  return rc == SRV_ERR_CONFIG_VALUE || rc == SRV_ERR_CONFIG_RANGE;
}

// check_getters asks every getter for `key` and checks what each answers.
static void check_getters(const srv_config *cfg, const char *key) {
  srv_config_diag d;
  const char *s = NULL;
  FUZZ_CHECK(srv_config_get_string(cfg, key, NULL, &s) == 0 && s != NULL);
  size_t len = strlen(s);
  int64_t i;
  int rc = srv_config_get_int(cfg, key, -1000, 1000, 0, &i, &d);
  FUZZ_CHECK(rc == 0 ? i >= -1000 && i <= 1000 : is_value_error(rc));
  bool b;
  rc = srv_config_get_bool(cfg, key, false, &b, &d);
  FUZZ_CHECK(rc == 0 || rc == SRV_ERR_CONFIG_VALUE);
  uint64_t u;
  rc = srv_config_get_size(cfg, key, 1, (uint64_t)1 << 40, 1, &u, &d);
  FUZZ_CHECK(rc == 0 ? u >= 1 && u <= (uint64_t)1 << 40 : is_value_error(rc));
  rc = srv_config_get_duration(cfg, key, 0, 86400000, 0, &u, &d);
  FUZZ_CHECK(rc == 0 ? u <= 86400000 : is_value_error(rc));
  srv_config_list it;
  FUZZ_CHECK(srv_config_get_list(cfg, key, NULL, &it) == 0);
  const char *item;
  size_t item_len, total = 0;
  while ((rc = srv_config_list_next(&it, &item, &item_len)) == 1) {
    FUZZ_CHECK(item_len > 0 && item >= s && item + item_len <= s + len);
    for (size_t k = 0; k < item_len; k++)
      FUZZ_CHECK(item[k] != ',' && item[k] != ' ' && item[k] != '\t' && item[k] != '\n');
    total += item_len;
  }
  FUZZ_CHECK(rc == 0 && total <= len);
}

// quote appends value v as a quoted string to out (cap bytes, *n used);
// false when it does not fit.
static bool quote(char *out, size_t cap, size_t *n, const char *v) {
  if (*n + 1 >= cap)
    return false;
  out[(*n)++] = '"';
  for (; *v; v++) {
    const char *esc = *v == '"'    ? "\\\""
                      : *v == '\\' ? "\\\\"
                      : *v == '\n' ? "\\n"
                      : *v == '\t' ? "\\t"
                                   : NULL;
    size_t k = esc ? 2 : 1;
    if (*n + k + 1 >= cap)
      return false;
    if (esc)
      memcpy(out + *n, esc, 2);
    else
      out[*n] = *v;
    *n += k;
  }
  out[(*n)++] = '"';
  return true;
}

// render writes the keys back as a configuration: keys without a section
// first, then each sectioned key under its own header. Returns the length,
// or 0 when it does not fit in cap.
static size_t render(const srv_config *cfg, const struct keys *k, char *out, size_t cap) {
  size_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t j = 0; j < k->n; j++) {
      const char *dot = strrchr(k->key[j], '.'); // keys hold no '.', sections may
      if ((dot != NULL) != (pass == 1))
        continue;
      const char *v;
      FUZZ_CHECK(srv_config_get_string(cfg, k->key[j], NULL, &v) == 0);
      int w = dot ? snprintf(out + n, cap - n, "[%.*s]\n%s = ", (int)(dot - k->key[j]), k->key[j],
                             dot + 1)
                  : snprintf(out + n, cap - n, "%s = ", k->key[j]);
      if (w < 0 || (size_t)w >= cap - n)
        return 0;
      n += (size_t)w;
      if (!quote(out, cap, &n, v) || n + 1 >= cap)
        return 0;
      out[n++] = '\n';
    }
  }
  return n;
}

// longest_line is the length of the longest line of s (n bytes).
static size_t longest_line(const char *s, size_t n) {
  size_t best = 0, cur = 0;
  for (size_t i = 0; i < n; i++) {
    cur = s[i] == '\n' ? 0 : cur + 1;
    best = cur > best ? cur : best;
  }
  return best;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t lines = 1;
  for (size_t i = 0; i < size; i++)
    lines += data[i] == '\n';
  srv_config *cfg = (srv_config *)&lines; // a failed call must clear it
  srv_config_diag d;
  int rc = srv_config_parse(&cfg, (const char *)data, size, "fuzz.conf", &d);
  if (rc != 0) {
    FUZZ_CHECK(cfg == NULL);
    FUZZ_CHECK(rc == SRV_ERR_CONFIG_SYNTAX || rc == SRV_ERR_CONFIG_DUPLICATE ||
               rc == SRV_ERR_LIMIT || rc == -ENOMEM);
    check_diag(&d, rc, lines);
    return 0;
  }
  static struct keys k;
  k.n = 0;
  FUZZ_CHECK(srv_config_unused(cfg, collect, &k) == (int)k.n);
  for (size_t j = 0; j < k.n; j++)
    check_getters(cfg, k.key[j]);
  FUZZ_CHECK(srv_config_unused(cfg, NULL, NULL) == 0); // every key was asked for

  // Each value at most doubles (escapes); each key adds at most its
  // section's header, " = ", two quotes and a newline.
  size_t cap = 2 * size + (2 * SRV_CONFIG_MAX_NAME + 16) * k.n + 64;
  char *text = malloc(cap);
  FUZZ_CHECK(text != NULL);
  size_t n = render(cfg, &k, text, cap);
  FUZZ_CHECK(n > 0 || k.n == 0);
  srv_config *again = NULL;
  rc = srv_config_parse(&again, text, n, "again.conf", &d);
  if (rc == SRV_ERR_LIMIT) {
    // A value continued over many lines can outgrow one line written back.
    FUZZ_CHECK(longest_line(text, n) > SRV_CONFIG_MAX_LINE || n > SRV_CONFIG_MAX_FILE);
  } else {
    FUZZ_CHECK(rc == 0);
    static struct keys k2;
    k2.n = 0;
    FUZZ_CHECK(srv_config_unused(again, collect, &k2) == (int)k.n);
    for (size_t j = 0; j < k.n; j++) {
      const char *v1, *v2;
      FUZZ_CHECK(srv_config_get_string(cfg, k.key[j], NULL, &v1) == 0);
      FUZZ_CHECK(srv_config_get_string(again, k.key[j], NULL, &v2) == 0);
      FUZZ_CHECK(v2 != NULL && strcmp(v1, v2) == 0);
    }
  }
  srv_config_free(again);
  free(text);
  srv_config_free(cfg);
  return 0;
}
