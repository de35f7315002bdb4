// dump_text.c: `mailparse dump` without --json: the same views as the JSON
// form, laid out for a person: problems, each part indented by depth with
// its type, ranges, digest, filename and disposition, its header fields
// decoded (with the typed value as compact JSON), the text of text parts
// (indented, control characters shown as '?'), then the body selection and
// preview, and the IMAP ENVELOPE and BODYSTRUCTURE.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

// indented writes UTF-8 text line by line after `pad` spaces, with control
// characters other than tab replaced by '?' so that nothing reaches the
// terminal as a command.
static void indented(FILE *o, int pad, const char *t, size_t n) {
  size_t i = 0;
  while (i < n) {
    fprintf(o, "%*s| ", pad, "");
    for (; i < n && t[i] != '\n'; i++) {
      unsigned char c = (unsigned char)t[i];
      if (c == '\r')
        continue;
      fputc(c < 0x20 && c != '\t' ? '?' : c == 0x7f ? '?' : c, o);
    }
    fputc('\n', o);
    i++;
  }
}

// plain writes text on one line: line breaks as "\n", other control
// characters as '?', everything else as it is.
static void plain(FILE *o, const char *t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c == '\r' && i + 1 < n && t[i + 1] == '\n')
      continue;
    if (c == '\n')
      fputs("\\n", o);
    else
      fputc(c < 0x20 || c == 0x7f ? '?' : c, o);
  }
}

static void list(FILE *o, const char *name, const uint32_t *a, size_t n) {
  fprintf(o, "%s:", name);
  for (size_t i = 0; i < n; i++)
    fprintf(o, "%s%u", i ? "," : " ", a[i]);
  fputc('\n', o);
}

static int part_text(FILE *o, const mp_message *m, uint32_t i) {
  const mp_part *p = mp_message_part(m, i);
  int pad = (int)p->depth * 2;
  char sec[512];
  dump_section(m, i, sec, sizeof sec);
  fprintf(o, "%*spart %u [%s] %.*s/%.*s", pad, "", i, sec, (int)p->type.len, p->type.p,
          (int)p->subtype.len, p->subtype.p);
  if (p->charset.p != NULL)
    fprintf(o, " charset=%.*s", (int)p->charset.len, p->charset.p);
  if (p->boundary.p != NULL)
    fprintf(o, " boundary=%.*s", (int)p->boundary.len, p->boundary.p);
  size_t dsize = 0;
  char hex[65] = "";
  int rc = dump_digest(m, i, &dsize, hex);
  if (rc != 0)
    return rc;
  fprintf(o, " %s header=%zu+%zu body=%zu+%zu lines=%llu decoded=%zu sha256=%s\n",
          dump_encoding_name(p->encoding), p->header.off, p->header.len, p->body.off, p->body.len,
          (unsigned long long)p->lines, dsize, hex);
  size_t need = 0;
  rc = mp_part_filename(m, i, NULL, 0, &need);
  if (rc == 1) {
    char *name = malloc(need ? need : 1);
    if (name == NULL)
      return -ENOMEM;
    rc = mp_part_filename(m, i, name, need, &need);
    if (rc == 1) {
      fprintf(o, "%*s  filename: ", pad, "");
      plain(o, name, need);
      fputc('\n', o);
    }
    free(name);
  }
  if (rc < 0)
    return rc;
  for (uint32_t h = p->first_header; h < p->first_header + p->num_headers; h++) {
    const mp_header *hd = mp_message_header(m, h);
    const char *data = (const char *)mp_message_data(m, NULL);
    char *dec;
    size_t dn;
    rc = dump_header_decoded(m, hd, &dec, &dn);
    if (rc != 0)
      return rc;
    fprintf(o, "%*s  %.*s: ", pad, "", (int)hd->name.len, data + hd->name.off);
    plain(o, dec, dn);
    free(dec);
    fputc('\n', o);
    // The typed value, when the field has one, as compact JSON.
    char *tj = NULL;
    size_t tl = 0;
    FILE *mem = open_memstream(&tj, &tl);
    if (mem == NULL)
      return -ENOMEM;
    rc = json_typed(mem, m, hd);
    fclose(mem);
    if (rc == 0 && strcmp(tj, "null") != 0)
      fprintf(o, "%*s    typed: %s\n", pad, "", tj);
    free(tj);
    if (rc != 0)
      return rc;
  }
  if (dump_is_text(p)) {
    char *text;
    size_t tn;
    unsigned tf;
    rc = dump_part_text(m, i, &text, &tn, &tf);
    if (rc != 0)
      return rc;
    fprintf(o, "%*s  text (%zu bytes of UTF-8%s):\n", pad, "", tn,
            tf ? ", some bytes replaced" : "");
    indented(o, pad + 2, text, tn);
    free(text);
  }
  return 0;
}

int dump_text(FILE *o, const char *path, const mp_message *m) {
  size_t size;
  mp_message_data(m, &size);
  fprintf(o, "== %s (%zu bytes)\n", path, size);
  for (size_t i = 0; i < mp_message_num_problems(m); i++) {
    const mp_problem *p = mp_message_problem(m, i);
    fprintf(o, "problem %s at %zu\n", dump_problem_name(p->kind), p->offset);
  }
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < mp_message_num_parts(m); i++)
    rc = part_text(o, m, i);
  mp_selection sel;
  uint32_t *idx = NULL;
  char preview[MP_PREVIEW_MAX_LEN];
  size_t plen = 0;
  if (rc == 0)
    rc = dump_select(m, &sel, &idx, preview, &plen);
  if (rc == 0) {
    list(o, "text_body", sel.text_body, sel.num_text_body);
    list(o, "html_body", sel.html_body, sel.num_html_body);
    list(o, "attachments", sel.attachments, sel.num_attachments);
    fputs("preview: ", o);
    plain(o, preview, plen);
    fputc('\n', o);
  }
  free(idx);
  for (int env = 1; rc == 0 && env >= 0; env--) {
    char *s;
    size_t n;
    rc = dump_imap(m, env, &s, &n);
    if (rc == 0) {
      fputs(env ? "envelope: " : "bodystructure: ", o);
      plain(o, s, n);
      fputc('\n', o);
      free(s);
    }
  }
  return rc;
}
