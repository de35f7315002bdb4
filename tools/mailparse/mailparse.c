// mailparse.c: the mailparse command, a window on libmailparse: `dump` prints
// the headers and the part tree of messages (as text or JSON, with each
// part's decoded size and SHA-256, so that other parsers can be compared
// with it), and `bench` measures parsing speed over files and folders.
#include <dirent.h>
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mailparse.h"

// MAX_FILE is the largest message the command reads (1 GiB).
#define MAX_FILE ((size_t)1 << 30)

static const char help[] =
    "usage: mailparse dump [--json] FILE...\n"
    "       mailparse body FILE PART\n"
    "       mailparse bench [--seconds N] FILE|DIR...\n"
    "\n"
    "dump parses each FILE as one message (RFC 5322/MIME) and prints its header\n"
    "fields and its part tree. body writes the decoded body of part number PART\n"
    "(the \"index\" of dump --json) to standard output. bench parses every file named, or found "
    "under the\n"
    "folders named, repeatedly for about N seconds (default 2) and prints one\n"
    "JSON line: {\"bench\":\"mailparse_parse\",\"impl\",\"bytes\",\"items\",\"ns\",\n"
    "\"msgs_per_s\",\"mb_per_s\"} (items = messages parsed, bytes = their total).\n"
    "\n"
    "dump --json prints one JSON object per FILE, one per line:\n"
    "  {\"file\": path, \"size\": bytes,\n"
    "   \"problems\": [{\"kind\": name, \"part\": index or -1, \"offset\": n}...],\n"
    "   \"headers\": [{\"part\": index, \"name\": str, \"value\": str (raw, folding kept,\n"
    "                 without the final line break), \"field\": [off, len], \"flags\": n}...],\n"
    "   \"parts\": [{\"index\": n, \"parent\": index or -1, \"children\": [index...],\n"
    "               \"section\": IMAP section number (\"\" for a multipart root),\n"
    "               \"depth\": n, \"type\": lower-case str, \"subtype\": lower-case str,\n"
    "               \"params\": {\"boundary\": str, \"charset\": str} (those present),\n"
    "               \"encoding\": \"7bit\"|\"8bit\"|\"binary\"|\"quoted-printable\"|\"base64\"|\n"
    "                           \"unknown\", \"encoding_name\": str or null,\n"
    "               \"kind\": \"multipart\"|\"message\"|\"leaf\", \"flags\": n,\n"
    "               \"header\": [off, len], \"body\": [off, len], \"preamble\": [off, len],\n"
    "               \"epilogue\": [off, len], \"lines\": n,\n"
    "               \"decoded_size\": n, \"sha256\": hex of the decoded body}...],\n"
    "   \"bodystructure\": the message's IMAP BODYSTRUCTURE (RFC 3501 7.4.2)}\n"
    "  Offsets are byte offsets into the file. Strings are JSON strings in which\n"
    "  each input byte of 0x80 or more is written as the code point of the same\n"
    "  value (\\u0080-\\u00ff), so encoding a string as Latin-1 gives back the\n"
    "  exact bytes. Multipart bodies are hashed raw; message/rfc822 bodies too.\n"
    "  Flags are the MP_HEADER_* and MP_PART_* bits of mailparse.h.\n"
    "\n"
    "Exit status: 0 on success, 1 when a file cannot be read or parsed, 2 on\n"
    "wrong usage.\n";

static int read_file(const char *path, uint8_t **out, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return -errno;
  size_t cap = 65536, n = 0;
  uint8_t *buf = malloc(cap);
  while (buf != NULL) {
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0)
      break;
    if (n == cap) {
      if (cap >= MAX_FILE) {
        free(buf);
        fclose(f);
        return -EFBIG;
      }
      uint8_t *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int err = ferror(f) ? -EIO : 0;
  fclose(f);
  if (buf == NULL)
    return -ENOMEM;
  if (err != 0) {
    free(buf);
    return err;
  }
  *out = buf;
  *out_len = n;
  return 0;
}

static void json_str(FILE *o, const void *p, size_t len) {
  const uint8_t *s = p;
  fputc('"', o);
  for (size_t i = 0; i < len; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\')
      fprintf(o, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(o, "\\u%04x", c);
    else
      fputc(c, o);
  }
  fputc('"', o);
}

static void json_lower(FILE *o, mp_str s) {
  char buf[256];
  size_t n = s.len < sizeof buf ? s.len : sizeof buf;
  for (size_t i = 0; i < n; i++)
    buf[i] = (char)(s.p[i] >= 'A' && s.p[i] <= 'Z' ? s.p[i] + 32 : s.p[i]);
  json_str(o, buf, n);
}

static const char *problem_name(uint32_t k) {
  static const char *const names[] = {"no_colon", "nul",         "long_line", "depth",
                                      "parts",    "headers",     "work",      "no_boundary",
                                      "no_end",   "unknown_cte", "no_body",   "bad_content_type"};
  return k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static const char *encoding_name(mp_encoding e) {
  static const char *const names[] = {"7bit",   "8bit",   "binary", "quoted-printable",
                                      "base64", "unknown"};
  return (unsigned)e < 6 ? names[e] : "unknown";
}

// section writes the IMAP section number of part `ix` (see the help text).
static void section(const mp_message *m, uint32_t ix, char *out, size_t cap) {
  const mp_part *p = mp_message_part(m, ix);
  if (p->parent == MP_NO_INDEX) {
    snprintf(out, cap, "%s", (p->flags & MP_PART_MULTIPART) ? "" : "1");
    return;
  }
  const mp_part *pp = mp_message_part(m, p->parent);
  section(m, p->parent, out, cap);
  size_t n = strlen(out);
  const char *dot = n > 0 ? "." : "";
  if (pp->flags & MP_PART_MULTIPART) {
    unsigned k = 1;
    for (uint32_t c = pp->first_child; c != ix && c != MP_NO_INDEX;
         c = mp_message_part(m, c)->next_sibling)
      k++;
    snprintf(out + n, cap - n, "%s%u", dot, k);
  } else if (!(p->flags & MP_PART_MULTIPART)) {
    snprintf(out + n, cap - n, "%s1", dot);
  }
}

static int digest(const mp_message *m, uint32_t ix, size_t *size, char hex[65]) {
  size_t cap = mp_part_decode_max_len(m, ix);
  uint8_t *buf = malloc(cap ? cap : 1);
  if (buf == NULL)
    return -ENOMEM;
  int rc = mp_part_decode(m, ix, buf, cap, size);
  if (rc == 0) {
    uint8_t md[SHA256_DIGEST_LENGTH];
    SHA256(buf, *size, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
      snprintf(hex + 2 * i, 3, "%02x", md[i]);
  }
  free(buf);
  return rc;
}

static void range(FILE *o, const char *key, mp_range r) {
  fprintf(o, ",\"%s\":[%zu,%zu]", key, r.off, r.len);
}

static int dump_json(FILE *o, const char *path, const mp_message *m) {
  size_t size;
  const uint8_t *data = mp_message_data(m, &size);
  fputs("{\"file\":", o);
  json_str(o, path, strlen(path));
  fprintf(o, ",\"size\":%zu,\"problems\":[", size);
  for (size_t i = 0; i < mp_message_num_problems(m); i++) {
    const mp_problem *p = mp_message_problem(m, i);
    fprintf(o, "%s{\"kind\":\"%s\",\"part\":%ld,\"offset\":%zu}", i ? "," : "",
            problem_name(p->kind), p->part == MP_NO_INDEX ? -1L : (long)p->part, p->offset);
  }
  fputs("],\"headers\":[", o);
  for (size_t i = 0; i < mp_message_num_headers(m); i++) {
    const mp_header *h = mp_message_header(m, i);
    fprintf(o, "%s{\"part\":%u,\"name\":", i ? "," : "", h->part);
    json_str(o, data + h->name.off, h->name.len);
    fputs(",\"value\":", o);
    json_str(o, data + h->value.off, h->value.len);
    range(o, "field", h->field);
    fprintf(o, ",\"flags\":%u}", h->flags);
  }
  fputs("],\"parts\":[", o);
  int rc = 0;
  for (uint32_t i = 0; i < mp_message_num_parts(m); i++) {
    const mp_part *p = mp_message_part(m, i);
    char sec[512];
    section(m, i, sec, sizeof sec);
    fprintf(o, "%s{\"index\":%u,\"parent\":%ld,\"children\":[", i ? "," : "", i,
            p->parent == MP_NO_INDEX ? -1L : (long)p->parent);
    for (uint32_t c = p->first_child; c != MP_NO_INDEX; c = mp_message_part(m, c)->next_sibling)
      fprintf(o, "%s%u", c == p->first_child ? "" : ",", c);
    fprintf(o, "],\"section\":\"%s\",\"depth\":%u,\"type\":", sec, p->depth);
    json_lower(o, p->type);
    fputs(",\"subtype\":", o);
    json_lower(o, p->subtype);
    fputs(",\"params\":{", o);
    if (p->boundary.p != NULL) {
      fputs("\"boundary\":", o);
      json_str(o, p->boundary.p, p->boundary.len);
    }
    if (p->charset.p != NULL) {
      fputs(p->boundary.p != NULL ? ",\"charset\":" : "\"charset\":", o);
      json_str(o, p->charset.p, p->charset.len);
    }
    fprintf(o, "},\"encoding\":\"%s\",\"encoding_name\":", encoding_name(p->encoding));
    if (p->encoding_name.p != NULL)
      json_str(o, p->encoding_name.p, p->encoding_name.len);
    else
      fputs("null", o);
    fprintf(o, ",\"kind\":\"%s\",\"flags\":%u",
            (p->flags & MP_PART_MULTIPART) ? "multipart"
            : (p->flags & MP_PART_MESSAGE) ? "message"
                                           : "leaf",
            p->flags);
    range(o, "header", p->header);
    range(o, "body", p->body);
    range(o, "preamble", p->preamble);
    range(o, "epilogue", p->epilogue);
    size_t dsize = 0;
    char hex[65] = "";
    int drc = digest(m, i, &dsize, hex);
    if (drc != 0)
      rc = drc;
    fprintf(o, ",\"lines\":%llu,\"decoded_size\":%zu,\"sha256\":\"%s\"}",
            (unsigned long long)p->lines, dsize, hex);
  }
  fputs("]", o);
  // The IMAP view of the whole message, as a server would send it.
  size_t need = 0;
  char *bs = NULL;
  int brc = mp_part_bodystructure(m, 0, 1, NULL, 0, &need);
  if (brc == 0 && (bs = malloc(need ? need : 1)) == NULL)
    brc = -ENOMEM;
  if (brc == 0)
    brc = mp_part_bodystructure(m, 0, 1, bs, need, &need);
  if (brc == 0) {
    fputs(",\"bodystructure\":", o);
    json_str(o, bs, need);
  } else {
    rc = brc;
  }
  free(bs);
  fputs("}\n", o);
  return rc;
}

static int dump_text(FILE *o, const char *path, const mp_message *m) {
  size_t size;
  const uint8_t *data = mp_message_data(m, &size);
  fprintf(o, "== %s (%zu bytes)\n", path, size);
  for (size_t i = 0; i < mp_message_num_problems(m); i++) {
    const mp_problem *p = mp_message_problem(m, i);
    fprintf(o, "problem %s at %zu\n", problem_name(p->kind), p->offset);
  }
  int rc = 0;
  for (uint32_t i = 0; i < mp_message_num_parts(m); i++) {
    const mp_part *p = mp_message_part(m, i);
    char sec[512];
    section(m, i, sec, sizeof sec);
    fprintf(o, "%*spart %u [%s] %.*s/%.*s", (int)p->depth * 2, "", i, sec, (int)p->type.len,
            p->type.p, (int)p->subtype.len, p->subtype.p);
    if (p->charset.p != NULL)
      fprintf(o, " charset=%.*s", (int)p->charset.len, p->charset.p);
    if (p->boundary.p != NULL)
      fprintf(o, " boundary=%.*s", (int)p->boundary.len, p->boundary.p);
    size_t dsize = 0;
    char hex[65] = "";
    int drc = digest(m, i, &dsize, hex);
    if (drc != 0)
      rc = drc;
    fprintf(o, " %s header=%zu+%zu body=%zu+%zu lines=%llu decoded=%zu sha256=%s\n",
            encoding_name(p->encoding), p->header.off, p->header.len, p->body.off, p->body.len,
            (unsigned long long)p->lines, dsize, hex);
    for (uint32_t h = p->first_header; h < p->first_header + p->num_headers; h++) {
      const mp_header *hd = mp_message_header(m, h);
      fprintf(o, "%*s  %.*s:%.*s\n", (int)p->depth * 2, "", (int)hd->name.len,
              (const char *)data + hd->name.off, (int)hd->value.len,
              (const char *)data + hd->value.off);
    }
  }
  return rc;
}

static int cmd_dump(int argc, char **argv) {
  int json = 0, status = 0, files = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
      continue;
    }
    files++;
    uint8_t *buf;
    size_t len;
    int rc = read_file(argv[i], &buf, &len);
    if (rc != 0) {
      fprintf(stderr, "mailparse: %s: %s\n", argv[i], mp_strerror(rc));
      status = 1;
      continue;
    }
    mp_message *m = NULL;
    mp_diag d;
    rc = mp_message_parse(&m, NULL, buf, len, &d);
    if (rc == 0)
      rc = json ? dump_json(stdout, argv[i], m) : dump_text(stdout, argv[i], m);
    if (rc != 0) {
      fprintf(stderr, "mailparse: %s: %s\n", argv[i], mp_strerror(rc));
      status = 1;
    }
    mp_message_free(m);
    free(buf);
  }
  if (files == 0) {
    fputs(help, stderr);
    return 2;
  }
  return status;
}

static int cmd_body(int argc, char **argv) {
  if (argc != 2) {
    fputs(help, stderr);
    return 2;
  }
  uint8_t *buf;
  size_t len;
  int rc = read_file(argv[0], &buf, &len);
  if (rc != 0) {
    fprintf(stderr, "mailparse: %s: %s\n", argv[0], mp_strerror(rc));
    return 1;
  }
  mp_message *m = NULL;
  uint8_t *out = NULL;
  size_t n = 0;
  uint32_t ix = (uint32_t)strtoul(argv[1], NULL, 10);
  rc = mp_message_parse(&m, NULL, buf, len, NULL);
  if (rc == 0 && ix >= mp_message_num_parts(m))
    rc = MP_ERR_INVALID_ARGUMENT;
  if (rc == 0) {
    size_t cap = mp_part_decode_max_len(m, ix);
    out = malloc(cap ? cap : 1);
    rc = out == NULL ? -ENOMEM : mp_part_decode(m, ix, out, cap, &n);
  }
  if (rc == 0 && fwrite(out, 1, n, stdout) != n)
    rc = -EIO;
  if (rc != 0)
    fprintf(stderr, "mailparse: %s: %s\n", argv[0], mp_strerror(rc));
  free(out);
  mp_message_free(m);
  free(buf);
  return rc == 0 ? 0 : 1;
}

struct corpus {
  uint8_t **bufs;
  size_t *lens;
  size_t n, cap, bytes;
};

static int add_path(struct corpus *c, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "mailparse: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d == NULL)
      return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL && rc == 0) {
      if (e->d_name[0] == '.')
        continue;
      size_t n = strlen(path) + strlen(e->d_name) + 2;
      char *sub = malloc(n);
      if (sub == NULL)
        return -1;
      snprintf(sub, n, "%s/%s", path, e->d_name);
      rc = add_path(c, sub);
      free(sub);
    }
    closedir(d);
    return rc;
  }
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 64;
    c->bufs = realloc(c->bufs, c->cap * sizeof *c->bufs);
    c->lens = realloc(c->lens, c->cap * sizeof *c->lens);
    if (c->bufs == NULL || c->lens == NULL)
      return -1;
  }
  if (read_file(path, &c->bufs[c->n], &c->lens[c->n]) != 0) {
    fprintf(stderr, "mailparse: %s: cannot read\n", path);
    return -1;
  }
  c->bytes += c->lens[c->n++];
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmd_bench(int argc, char **argv) {
  struct corpus c = {0};
  double seconds = 2;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
      continue;
    }
    if (add_path(&c, argv[i]) != 0)
      return 1;
  }
  if (c.n == 0) {
    fputs(help, stderr);
    return 2;
  }
  uint64_t items = 0, bytes = 0, t0 = now_ns(), ns = 0;
  do {
    for (size_t i = 0; i < c.n; i++) {
      mp_message *m = NULL;
      if (mp_message_parse(&m, NULL, c.bufs[i], c.lens[i], NULL) != 0) {
        fprintf(stderr, "mailparse: parse failed\n");
        return 1;
      }
      mp_message_free(m);
    }
    items += c.n;
    bytes += c.bytes;
    ns = now_ns() - t0;
  } while ((double)ns < seconds * 1e9);
  printf("{\"bench\":\"mailparse_parse\",\"impl\":\"scalar\",\"bytes\":%llu,\"items\":%llu,"
         "\"ns\":%llu,\"msgs_per_s\":%.1f,\"mb_per_s\":%.1f}\n",
         (unsigned long long)bytes, (unsigned long long)items, (unsigned long long)ns,
         (double)items * 1e9 / (double)ns, (double)bytes * 1e3 / (double)ns);
  for (size_t i = 0; i < c.n; i++)
    free(c.bufs[i]);
  free(c.bufs);
  free(c.lens);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(help, stdout);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "dump") == 0)
    return cmd_dump(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "body") == 0)
    return cmd_body(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "bench") == 0)
    return cmd_bench(argc - 2, argv + 2);
  fputs(help, stderr);
  return 2;
}
