// dump_json.c: `mailparse dump --json`: one JSON object per message, on one
// line, with every header field (raw, decoded and typed), every part (type
// and parameters, disposition, filename, ranges, decoded size and SHA-256,
// text), the RFC 8621 body selection and preview, and the IMAP ENVELOPE and
// BODYSTRUCTURE. The schema is documented in the --help text and README.md;
// tools/mailparse/differential.py reads the original keys, whose meaning
// never changes.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static void range(FILE *o, const char *key, mp_range r) {
  fprintf(o, ",\"%s\":[%zu,%zu]", key, r.off, r.len);
}

static void json_lower(FILE *o, mp_str s) {
  char buf[256];
  size_t n = s.len < sizeof buf ? s.len : sizeof buf;
  for (size_t i = 0; i < n; i++)
    buf[i] = (char)(s.p[i] >= 'A' && s.p[i] <= 'Z' ? s.p[i] + 32 : s.p[i]);
  json_bytes(o, buf, n);
}

static void index_list(FILE *o, const char *key, const uint32_t *a, size_t n) {
  fprintf(o, ",\"%s\":[", key);
  for (size_t i = 0; i < n; i++)
    fprintf(o, "%s%u", i ? "," : "", a[i]);
  fputc(']', o);
}

static int headers_json(FILE *o, const mp_message *m) {
  const uint8_t *data = mp_message_data(m, NULL);
  fputs(",\"headers\":[", o);
  for (size_t i = 0; i < mp_message_num_headers(m); i++) {
    const mp_header *h = mp_message_header(m, i);
    fprintf(o, "%s{\"part\":%u,\"name\":", i ? "," : "", h->part);
    json_bytes(o, data + h->name.off, h->name.len);
    fputs(",\"value\":", o);
    json_bytes(o, data + h->value.off, h->value.len);
    range(o, "field", h->field);
    fprintf(o, ",\"flags\":%u,\"decoded\":", h->flags);
    char *dec;
    size_t dn;
    int rc = dump_header_decoded(m, h, &dec, &dn);
    if (rc != 0)
      return rc;
    json_utf8(o, dec, dn);
    free(dec);
    fputs(",\"typed\":", o);
    rc = json_typed(o, m, h);
    if (rc != 0)
      return rc;
    fputc('}', o);
  }
  fputc(']', o);
  return 0;
}

// mime_member writes "key": the parsed Content-Type or -Disposition value
// `v` of a part as an object, or null when absent or unparsable.
static int mime_member(FILE *o, const char *key, const mp_message *m, mp_range v, int present,
                       int disposition) {
  const char *data = (const char *)mp_message_data(m, NULL);
  fprintf(o, ",\"%s\":", key);
  unsigned fl = 0;
  int rc = present ? json_mime(o, "{", data + v.off, v.len, disposition, &fl) : MP_ERR_SYNTAX;
  if (rc == 0)
    fprintf(o, ",\"flags\":%u}", fl);
  else if (rc == MP_ERR_SYNTAX)
    fputs("null", o);
  else
    return rc;
  return 0;
}

static int part_json(FILE *o, const mp_message *m, uint32_t i) {
  const mp_part *p = mp_message_part(m, i);
  char sec[512];
  dump_section(m, i, sec, sizeof sec);
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
    json_bytes(o, p->boundary.p, p->boundary.len);
  }
  if (p->charset.p != NULL) {
    fputs(p->boundary.p != NULL ? ",\"charset\":" : "\"charset\":", o);
    json_bytes(o, p->charset.p, p->charset.len);
  }
  fprintf(o, "},\"encoding\":\"%s\",\"encoding_name\":", dump_encoding_name(p->encoding));
  if (p->encoding_name.p != NULL)
    json_bytes(o, p->encoding_name.p, p->encoding_name.len);
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
  int rc = dump_digest(m, i, &dsize, hex);
  if (rc != 0)
    return rc;
  fprintf(o, ",\"lines\":%llu,\"decoded_size\":%zu,\"sha256\":\"%s\"", (unsigned long long)p->lines,
          dsize, hex);
  // Added for readers: the full Content-Type and -Disposition, the filename,
  // the charset the text is read in, and the text.
  rc = mime_member(o, "content_type", m, p->content_type, p->content_type.len > 0, 0);
  if (rc == 0) {
    const mp_header *dh =
        p->h_disposition != MP_NO_INDEX ? mp_message_header(m, p->h_disposition) : NULL;
    rc = mime_member(o, "disposition", m, dh != NULL ? dh->value : (mp_range){0, 0}, dh != NULL, 1);
  }
  if (rc != 0)
    return rc;
  size_t need = 0;
  rc = mp_part_filename(m, i, NULL, 0, &need);
  fputs(",\"filename\":", o);
  if (rc == 1) {
    char *name = malloc(need ? need : 1);
    if (name == NULL)
      return -ENOMEM;
    rc = mp_part_filename(m, i, name, need, &need);
    if (rc == 1)
      json_utf8(o, name, need);
    free(name);
  } else if (rc == 0) {
    fputs("null", o);
  }
  if (rc < 0)
    return rc;
  fputs(",\"charset\":", o);
  if (!dump_is_text(p)) {
    fputs("null,\"text\":null,\"text_flags\":0}", o);
    return 0;
  }
  if (p->charset.p != NULL)
    json_utf8(o, p->charset.p, p->charset.len);
  else
    fputs("\"us-ascii\"", o);
  char *text;
  size_t tn;
  unsigned tf = 0;
  rc = dump_part_text(m, i, &text, &tn, &tf);
  if (rc != 0)
    return rc;
  fputs(",\"text\":", o);
  json_utf8(o, text, tn);
  free(text);
  fprintf(o, ",\"text_flags\":%u}", tf);
  return 0;
}

int dump_json(FILE *o, const char *path, const mp_message *m) {
  size_t size;
  mp_message_data(m, &size);
  fputs("{\"file\":", o);
  json_bytes(o, path, strlen(path));
  fprintf(o, ",\"size\":%zu,\"problems\":[", size);
  for (size_t i = 0; i < mp_message_num_problems(m); i++) {
    const mp_problem *p = mp_message_problem(m, i);
    fprintf(o, "%s{\"kind\":\"%s\",\"part\":%ld,\"offset\":%zu}", i ? "," : "",
            dump_problem_name(p->kind), p->part == MP_NO_INDEX ? -1L : (long)p->part, p->offset);
  }
  fputc(']', o);
  int rc = headers_json(o, m);
  fputs(",\"parts\":[", o);
  for (uint32_t i = 0; rc == 0 && i < mp_message_num_parts(m); i++)
    rc = part_json(o, m, i);
  fputc(']', o);
  // The reader's view: RFC 8621 body selection and preview.
  mp_selection sel;
  uint32_t *idx = NULL;
  char preview[MP_PREVIEW_MAX_LEN];
  size_t plen = 0;
  if (rc == 0)
    rc = dump_select(m, &sel, &idx, preview, &plen);
  if (rc == 0) {
    index_list(o, "text_body", sel.text_body, sel.num_text_body);
    index_list(o, "html_body", sel.html_body, sel.num_html_body);
    index_list(o, "attachments", sel.attachments, sel.num_attachments);
    fputs(",\"preview\":", o);
    json_utf8(o, preview, plen);
  }
  free(idx);
  // The IMAP views of the whole message, as a server would send them.
  for (int env = 1; rc == 0 && env >= 0; env--) {
    char *s;
    size_t n;
    rc = dump_imap(m, env, &s, &n);
    if (rc == 0) {
      fputs(env ? ",\"envelope\":" : ",\"bodystructure\":", o);
      json_bytes(o, s, n);
      free(s);
    }
  }
  fputs("}\n", o);
  return rc;
}
