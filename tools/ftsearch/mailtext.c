// mailtext.c: turns a stored message into the fields libftsearch indexes
// (the mail convention of field ids), and lists the messages of a Maildir or
// an .eml directory. Text only: decoding, charset conversion and HTML to text
// are libmailparse's.
#include "mailtext.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mailparse.h"

static int field_append(struct ftm_field *f, const char *p, size_t n) {
  if (n == 0)
    return 0;
  size_t need = f->len + n + 1;
  if (need > f->cap) {
    size_t cap = f->cap ? f->cap : 256;
    while (cap < need)
      cap *= 2;
    char *q = realloc(f->p, cap);
    if (!q)
      return -ENOMEM;
    f->p = q;
    f->cap = cap;
  }
  if (f->len)
    f->p[f->len++] = '\n'; // pieces never join into one word
  memcpy(f->p + f->len, p, n);
  f->len += n;
  return 0;
}

static int scratch_reserve(struct ftm_text *t, size_t n) {
  if (n <= t->scratch_cap)
    return 0;
  char *p = realloc(t->scratch, n);
  if (!p)
    return -ENOMEM;
  t->scratch = p;
  t->scratch_cap = n;
  return 0;
}

static int add_header(struct ftm_text *t, const mp_message *msg, const uint8_t *data,
                      const char *name, unsigned field) {
  for (long h = mp_message_header_find(msg, 0, 0, name, strlen(name)); h >= 0;
       h = mp_message_header_find(msg, 0, (size_t)h + 1, name, strlen(name))) {
    const mp_header *hd = mp_message_header(msg, (size_t)h);
    size_t cap = mp_typed_text_max_len(hd->value.len);
    int rc = scratch_reserve(t, cap);
    if (rc)
      return rc;
    size_t out_len;
    unsigned flags;
    rc = mp_rfc2047_decode(t->scratch, cap, &out_len, &flags, (const char *)data + hd->value.off,
                           hd->value.len);
    if (rc == 0)
      rc = field_append(&t->f[field], t->scratch, out_len);
    if (rc)
      return rc;
  }
  return 0;
}

static bool is_text(const mp_part *p, const char *sub) {
  return p->type.p && p->type.len == 4 && memcmp(p->type.p, "text", 4) == 0 && p->subtype.p &&
         p->subtype.len == strlen(sub) && memcmp(p->subtype.p, sub, p->subtype.len) == 0;
}

// A text/html part that has a text/plain sibling in a multipart/alternative
// says the same thing twice; it is skipped.
static bool html_with_plain_sibling(const mp_message *msg, uint32_t i) {
  const mp_part *p = mp_message_part(msg, i);
  if (p->parent == MP_NO_INDEX)
    return false;
  const mp_part *parent = mp_message_part(msg, p->parent);
  if (!parent->subtype.p || parent->subtype.len != 11 ||
      memcmp(parent->subtype.p, "alternative", 11) != 0)
    return false;
  for (uint32_t c = parent->first_child; c != MP_NO_INDEX;
       c = mp_message_part(msg, c)->next_sibling)
    if (is_text(mp_message_part(msg, c), "plain"))
      return true;
  return false;
}

static int add_part_text(struct ftm_text *t, const mp_message *msg, uint32_t i, unsigned field,
                         bool html) {
  const mp_part *p = mp_message_part(msg, i);
  size_t dmax = mp_part_decode_max_len(msg, i);
  uint8_t *dec = malloc(dmax ? dmax : 1);
  if (!dec)
    return -ENOMEM;
  size_t dlen;
  int rc = mp_part_decode(msg, i, dec, dmax, &dlen);
  size_t umax = mp_charset_utf8_max_len(dlen);
  char *utf = rc == 0 ? malloc(umax ? umax : 1) : NULL;
  size_t ulen = 0;
  unsigned flags;
  if (rc == 0 && !utf)
    rc = -ENOMEM;
  if (rc == 0)
    rc = mp_charset_to_utf8(utf, umax, &ulen, &flags, p->charset.p ? p->charset.p : "utf-8",
                            p->charset.p ? p->charset.len : 5, dec, dlen);
  free(dec);
  if (rc == 0 && html) {
    size_t hmax = mp_html_to_text_max_len(ulen);
    rc = scratch_reserve(t, hmax ? hmax : 1);
    size_t hlen = 0;
    if (rc == 0)
      rc = mp_html_to_text(t->scratch, hmax, &hlen, &flags, (const uint8_t *)utf, ulen, 0);
    if (rc == 0)
      rc = field_append(&t->f[field], t->scratch, hlen);
  } else if (rc == 0) {
    rc = field_append(&t->f[field], utf, ulen);
  }
  free(utf);
  return rc;
}

int ftm_extract(struct ftm_text *t, const uint8_t *data, size_t len) {
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    t->f[f].len = 0;
  mp_message *msg;
  int rc = mp_message_parse(&msg, NULL, data, len, NULL);
  if (rc)
    return rc;
  static const struct {
    const char *name;
    unsigned field;
  } headers[] = {
      {"From", FTS_FIELD_FROM},
      {"To", FTS_FIELD_TO},
      {"Cc", FTS_FIELD_CC},
      {"Bcc", FTS_FIELD_BCC},
      {"Subject", FTS_FIELD_SUBJECT},
      // Other headers people search by; ids (Message-ID, References) only
      // fill the dictionary with words no one types.
      {"Reply-To", FTS_FIELD_HEADERS},
      {"Sender", FTS_FIELD_HEADERS},
      {"List-Id", FTS_FIELD_HEADERS},
      {"Organization", FTS_FIELD_HEADERS},
      {"Keywords", FTS_FIELD_HEADERS},
      {"Comments", FTS_FIELD_HEADERS},
  };
  for (size_t i = 0; i < sizeof headers / sizeof headers[0] && rc == 0; i++)
    rc = add_header(t, msg, data, headers[i].name, headers[i].field);
  size_t np = mp_message_num_parts(msg);
  for (uint32_t i = 0; i < np && rc == 0; i++) {
    const mp_part *p = mp_message_part(msg, i);
    if (p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE))
      continue;
    char name[512];
    size_t name_len = 0;
    int has_name = mp_part_filename(msg, i, name, sizeof name, &name_len);
    bool attachment = has_name == 1;
    if (attachment && name_len)
      rc = field_append(&t->f[FTS_FIELD_ATTACHMENT], name, name_len);
    if (rc)
      break;
    unsigned field = attachment ? FTS_FIELD_ATTACHMENT : FTS_FIELD_BODY;
    if (is_text(p, "plain") || (!p->type.p && !attachment))
      rc = add_part_text(t, msg, i, field, false);
    else if (is_text(p, "html") && !html_with_plain_sibling(msg, i))
      rc = add_part_text(t, msg, i, field, true);
  }
  mp_message_free(msg);
  return rc;
}

size_t ftm_fields(const struct ftm_text *t, fts_doc_field *out) {
  size_t n = 0;
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    if (t->f[f].len)
      out[n++] = (fts_doc_field){f, NULL, (const uint8_t *)t->f[f].p, t->f[f].len};
  return n;
}

void ftm_free(struct ftm_text *t) {
  for (unsigned f = 0; f < FTS_MAX_FIELDS; f++)
    free(t->f[f].p);
  free(t->scratch);
  memset(t, 0, sizeof *t);
}

int ftm_read_file(const char *path, uint8_t **out, size_t *out_len) {
  FILE *fp = fopen(path, "rb");
  if (!fp)
    return -errno;
  struct stat st;
  if (fstat(fileno(fp), &st) != 0) {
    fclose(fp);
    return -errno;
  }
  if (!S_ISREG(st.st_mode)) { // a directory opens, then reads as empty
    fclose(fp);
    return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
  }
  uint8_t *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    fclose(fp);
    return -ENOMEM;
  }
  size_t n = fread(buf, 1, (size_t)st.st_size, fp);
  fclose(fp);
  *out = buf;
  *out_len = n;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(const char *dir, char ***paths, size_t *n, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d)
    return -errno;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    // A subdirectory is no message (a dangling link stays, to be reported
    // when it cannot be read).
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))
      continue;
    if (*n == *cap) {
      size_t nc = *cap ? 2 * *cap : 1024;
      char **p = realloc(*paths, nc * sizeof *p);
      if (!p) {
        rc = -ENOMEM;
        break;
      }
      *paths = p;
      *cap = nc;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *s = malloc(len);
    if (!s) {
      rc = -ENOMEM;
      break;
    }
    snprintf(s, len, "%s/%s", dir, e->d_name);
    (*paths)[(*n)++] = s;
  }
  closedir(d);
  return rc;
}

int ftm_list(const char *dir, char ***out, size_t *num_out, char failed[FTM_PATH_MAX]) {
  char **paths = NULL;
  size_t n = 0, cap = 0;
  char sub[FTM_PATH_MAX];
  snprintf(sub, sizeof sub, "%s/cur", dir);
  struct stat st;
  int rc;
  if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
    rc = list_dir(sub, &paths, &n, &cap);
    snprintf(sub, sizeof sub, "%s/new", dir);
    if (rc == 0)
      rc = list_dir(sub, &paths, &n, &cap);
  } else {
    snprintf(sub, sizeof sub, "%s", dir);
    rc = list_dir(sub, &paths, &n, &cap);
  }
  if (rc) {
    if (failed)
      snprintf(failed, FTM_PATH_MAX, "%s", sub);
    ftm_list_free(paths, n);
    return rc;
  }
  if (n > 1) // an empty directory has no array: qsort wants one
    qsort(paths, n, sizeof *paths, cmp_str);
  *out = paths;
  *num_out = n;
  return 0;
}

void ftm_list_free(char **paths, size_t num) {
  for (size_t i = 0; i < num; i++)
    free(paths[i]);
  free(paths);
}
