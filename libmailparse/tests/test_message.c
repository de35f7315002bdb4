// test_message.c: the MIME structure (message.c) and body decoding
// (body.c): multipart preamble and epilogue, transport padding, missing
// closing delimiters, boundaries that are prefixes of each other, nesting,
// message/rfc822 recursion, defaults, limits, IMAP section numbers, the
// allocator hook and lazy decoding with its size query.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "mailparse.h"

static mp_message *parse_s(const char *s, const mp_settings *st) {
  mp_message *m = NULL;
  mp_diag d;
  ck_assert_int_eq(mp_message_parse(&m, st, s, strlen(s), &d), 0);
  return m;
}

static int str_eq(mp_str s, const char *want) {
  return s.p != NULL && s.len == strlen(want) && strncasecmp(s.p, want, s.len) == 0;
}

static int range_eq(const char *buf, mp_range r, const char *want) {
  return r.len == strlen(want) && memcmp(buf + r.off, want, r.len) == 0;
}

// naive_lines is the reference for mp_part.lines.
static uint64_t naive_lines(const char *buf, mp_range r) {
  uint64_t n = 0;
  for (size_t i = 0; i < r.len; i++)
    n += buf[r.off + i] == '\n';
  return n + (r.len > 0 && buf[r.off + r.len - 1] != '\n');
}

// tree renders the part tree as "type/sub[child,child]" for table checks.
static void tree(const mp_message *m, uint32_t ix, char *out, size_t cap) {
  const mp_part *p = mp_message_part(m, ix);
  size_t n = strlen(out);
  snprintf(out + n, cap - n, "%.*s/%.*s", (int)p->type.len, p->type.p, (int)p->subtype.len,
           p->subtype.p);
  if (p->first_child == MP_NO_INDEX)
    return;
  strncat(out, "[", cap - strlen(out) - 1);
  for (uint32_t c = p->first_child; c != MP_NO_INDEX; c = mp_message_part(m, c)->next_sibling) {
    tree(m, c, out, cap);
    if (mp_message_part(m, c)->next_sibling != MP_NO_INDEX)
      strncat(out, ",", cap - strlen(out) - 1);
  }
  strncat(out, "]", cap - strlen(out) - 1);
}

// Structure cases: message, expected tree, body of each part in order
// (NULL ends), and the problems expected.
struct scase {
  const char *name;
  const char *msg;
  const char *tree;
  const char *bodies[6];
  uint32_t problems;
};

#define MPH "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
static const struct scase scases[] = {
    {"plain", "Subject: x\r\n\r\nhello\r\n", "text/plain", {"hello\r\n"}, 0},
    {"basic multipart",
     MPH "pre\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>\r\n--b\r\n\r\ntwo\r\n--b--\r\nepi\r\n",
     "multipart/mixed[text/html,text/plain]",
     {"pre\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>\r\n--b\r\n\r\ntwo\r\n--b--\r\nepi\r\n",
      "<p>", "two"},
     0},
    {"transport padding and LF",
     "Content-Type: multipart/mixed; boundary=b\n\n--b \t\n\none\n--b--  \n",
     "multipart/mixed[text/plain]",
     {"--b \t\n\none\n--b--  \n", "one"},
     0},
    {"missing close delimiter",
     MPH "--b\r\n\r\none\r\n--b\r\n\r\ntwo\r\n",
     "multipart/mixed[text/plain,text/plain]",
     {"--b\r\n\r\none\r\n--b\r\n\r\ntwo\r\n", "one", "two\r\n"},
     1u << MP_PROBLEM_NO_END},
    {"boundary prefixes",
     "Content-Type: multipart/mixed; boundary=ab\r\n\r\n--ab\r\nContent-Type: "
     "multipart/alternative; "
     "boundary=abc\r\n\r\n--abc\r\n\r\nin\r\n--abcd\r\n--abc--\r\n--ab--\r\n",
     "multipart/mixed[multipart/alternative[text/plain]]",
     {NULL, "--abc\r\n\r\nin\r\n--abcd\r\n--abc--", "in\r\n--abcd"},
     0},
    {"outer delimiter ends inner",
     MPH "--b\r\nContent-Type: multipart/mixed; "
         "boundary=c\r\n\r\n--c\r\n\r\ninner\r\n--b\r\n\r\nnext\r\n--b--",
     "multipart/mixed[multipart/mixed[text/plain],text/plain]",
     {NULL, "--c\r\n\r\ninner", "inner", "next"},
     1u << MP_PROBLEM_NO_END},
    {"rfc822",
     MPH "--b\r\nContent-Type: message/rfc822\r\n\r\nSubject: in\r\n\r\ninner body\r\n--b--\r\n",
     "multipart/mixed[message/rfc822[text/plain]]",
     {NULL, "Subject: in\r\n\r\ninner body", "inner body"},
     0},
    {"global",
     "Content-Type: message/global\r\n\r\nContent-Type: text/html\r\n\r\nx",
     "message/global[text/html]",
     {"Content-Type: text/html\r\n\r\nx", "x"},
     0},
    {"digest default",
     "Content-Type: multipart/digest; boundary=d\r\n\r\n--d\r\n\r\nSubject: a\r\n\r\nA\r\n--d--",
     "multipart/digest[message/rfc822[text/plain]]",
     {NULL, "Subject: a\r\n\r\nA", "A"},
     0},
    {"no boundary",
     "Content-Type: multipart/mixed\r\n\r\n--b\r\nx",
     "multipart/mixed",
     {"--b\r\nx"},
     1u << MP_PROBLEM_NO_BOUNDARY},
    {"bad content type",
     "Content-Type: garbage\r\n\r\nx",
     "text/plain",
     {"x"},
     1u << MP_PROBLEM_BAD_CTYPE},
    {"empty parts",
     MPH "--b\r\n--b\r\n\r\n--b--",
     "multipart/mixed[text/plain,text/plain]",
     {NULL, "", ""},
     1u << MP_PROBLEM_NO_BODY},
    {"quoted boundary with escape",
     "Content-Type: multipart/mixed; boundary=\"a\\\"b\"\r\n\r\n--a\"b\r\n\r\nq\r\n--a\"b--",
     "multipart/mixed[text/plain]",
     {NULL, "q"},
     0},
    {"case-insensitive type, comments and params",
     "Content-Type: (c) MULTIPART/Mixed ; charset=x; BOUNDARY = \"zz\" "
     "(c)\r\n\r\n--zz\r\n\r\nk\r\n--zz--",
     "multipart/mixed[text/plain]",
     {NULL, "k"},
     0},
    // Real-world: an unquoted boundary with '=' (typed parser repair).
    {"unquoted boundary with specials",
     "Content-Type: multipart/mixed; boundary=----=_Part_1\r\n\r\n--"
     "----=_Part_1\r\n\r\nv\r\n------=_Part_1--",
     "multipart/mixed[text/plain]",
     {NULL, "v"},
     0},
    // RFC 2231 continuation of the boundary parameter.
    {"rfc2231 boundary",
     "Content-Type: multipart/mixed; boundary*0=ab; boundary*1=cd\r\n\r\n"
     "--abcd\r\n\r\nw\r\n--abcd--",
     "multipart/mixed[text/plain]",
     {NULL, "w"},
     0},
    {"delimiter-like lines",
     MPH "--b\r\n\r\n--bx\r\n--b -\r\n---b\r\n--b--",
     "multipart/mixed[text/plain]",
     {NULL, "--bx\r\n--b -\r\n---b"},
     0},
    {"rfc822 ending at its empty line",
     MPH "--b\r\nContent-Type: message/rfc822\r\n\r\nX: 1\r\n\r\n--b--",
     "multipart/mixed[message/rfc822[text/plain]]",
     {NULL, "X: 1\r\n\r\n", ""},
     0},
    {"delimiter in headers",
     MPH "--b\r\nX: 1\r\n--b\r\n\r\nz\r\n--b--",
     "multipart/mixed[text/plain,text/plain]",
     {NULL, "", "z"},
     1u << MP_PROBLEM_NO_BODY},
};

START_TEST(test_structure_cases) {
  const struct scase *c = &scases[_i];
  mp_message *m = parse_s(c->msg, NULL);
  char t[256] = "";
  tree(m, 0, t, sizeof t);
  ck_assert_msg(strcmp(t, c->tree) == 0, "%s: tree %s", c->name, t);
  for (size_t i = 0; i < 6 && i < mp_message_num_parts(m); i++) {
    if (c->bodies[i] == NULL)
      continue;
    const mp_part *p = mp_message_part(m, i);
    ck_assert_msg(range_eq(c->msg, p->body, c->bodies[i]), "%s: body of part %zu is '%.*s'",
                  c->name, i, (int)p->body.len, c->msg + p->body.off);
  }
  ck_assert_msg(mp_message_problems(m) == c->problems, "%s: problems %x", c->name,
                mp_message_problems(m));
  // Every range lies inside the input; parts nest in their parents; every
  // line count is the naive one (line feeds, and a last line without one).
  for (size_t i = 0; i < mp_message_num_parts(m); i++) {
    const mp_part *p = mp_message_part(m, i);
    ck_assert_uint_le(p->body.off + p->body.len, strlen(c->msg));
    ck_assert_msg(p->lines == naive_lines(c->msg, p->body), "%s: part %zu has %llu lines", c->name,
                  i, (unsigned long long)p->lines);
    ck_assert_uint_eq(p->header.off + p->header.len, p->body.off);
    if (p->parent != MP_NO_INDEX) {
      const mp_part *pp = mp_message_part(m, p->parent);
      ck_assert_uint_ge(p->header.off, pp->body.off);
      ck_assert_uint_le(p->body.off + p->body.len, pp->body.off + pp->body.len);
    }
  }
  mp_message_free(m);
}
END_TEST

START_TEST(test_preamble_epilogue) {
  const char *msg = MPH "pre\r\n--b\r\n\r\none\r\n--b--\r\nepi\r\n";
  mp_message *m = parse_s(msg, NULL);
  const mp_part *r = mp_message_part(m, 0);
  ck_assert(range_eq(msg, r->preamble, "pre"));
  ck_assert(range_eq(msg, r->epilogue, "epi\r\n"));
  ck_assert(str_eq(r->boundary, "b"));
  ck_assert(r->flags & MP_PART_MULTIPART);
  ck_assert_uint_eq(r->num_children, 1);
  mp_message_free(m);
}
END_TEST

START_TEST(test_part_fields) {
  const char *msg =
      "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
      "Content-Type: text/plain; charset=\"ISO-8859-1\"\r\n"
      "Content-Transfer-Encoding: Quoted-Printable\r\n"
      "Content-ID: <id@x>\r\nContent-Description: desc\r\n"
      "Content-Disposition: inline\r\nContent-Language: en\r\n"
      "Content-Location: http://x/\r\nContent-MD5: abc\r\n\r\n"
      "l1=\r\nl1b\r\nl2\r\nl3\r\n--b\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\nraw\r\n--b--";
  mp_message *m = parse_s(msg, NULL);
  ck_assert_uint_eq(mp_message_num_parts(m), 3);
  const mp_part *p = mp_message_part(m, 1);
  ck_assert(str_eq(p->charset, "ISO-8859-1"));
  ck_assert_int_eq(p->encoding, MP_ENCODING_QP);
  ck_assert(str_eq(p->encoding_name, "quoted-printable"));
  const char *names[] = {"Content-ID",       "Content-Description", "Content-Disposition",
                         "Content-Language", "Content-Location",    "Content-MD5"};
  uint32_t ix[] = {p->h_id,       p->h_description, p->h_disposition,
                   p->h_language, p->h_location,    p->h_md5};
  for (int i = 0; i < 6; i++) {
    ck_assert_uint_ne(ix[i], MP_NO_INDEX);
    const mp_header *h = mp_message_header(m, ix[i]);
    ck_assert(range_eq(msg, h->name, names[i]));
    ck_assert_uint_eq(h->part, 1);
  }
  ck_assert_uint_eq(p->lines, 4);
  ck_assert(range_eq(msg, p->body, "l1=\r\nl1b\r\nl2\r\nl3"));
  ck_assert(range_eq(msg, p->content_type, " text/plain; charset=\"ISO-8859-1\""));
  const mp_part *q = mp_message_part(m, 2);
  ck_assert_int_eq(q->encoding, MP_ENCODING_UNKNOWN);
  ck_assert(q->flags & MP_PART_UNKNOWN_CTE);
  ck_assert(mp_message_problems(m) & (1u << MP_PROBLEM_UNKNOWN_CTE));
  ck_assert_uint_eq(mp_message_part(m, 0)->h_id, MP_NO_INDEX);
  // Decoding: QP joins the soft break; unknown stays raw.
  char out[64];
  size_t n;
  ck_assert_int_eq(mp_part_decode(m, 1, NULL, 0, &n), 0);
  ck_assert_uint_eq(n, 13);
  ck_assert_uint_ge(mp_part_decode_max_len(m, 1), n);
  ck_assert_int_eq(mp_part_decode(m, 1, out, sizeof out, &n), 0);
  ck_assert_uint_eq(n, 13);
  ck_assert(memcmp(out, "l1l1b\r\nl2\r\nl3", 13) == 0);
  ck_assert_int_eq(mp_part_decode(m, 2, out, sizeof out, &n), 0);
  ck_assert_uint_eq(n, 3);
  ck_assert(memcmp(out, "raw", 3) == 0);
  ck_assert_int_eq(mp_part_decode(m, 1, out, 3, &n), MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(mp_part_decode(m, 9, out, sizeof out, &n), MP_ERR_INVALID_ARGUMENT);
  mp_message_free(m);
}
END_TEST

// Content-* names are matched in any case, the "Content-" prefix by one
// loose word compare: a CR where the '-' goes (bare CR is data in a name)
// must not make "Content\rType" a Content-Type, nor "Content\rID" a
// Content-ID, and a near miss in the last byte is no field either.
START_TEST(test_part_field_names) {
  const char *msg = "Content\rType: multipart/mixed; boundary=b\r\n"
                    "Content\rID: <y@x>\r\nContent-Idd: <z@x>\r\ncONTENT-iD: <x@x>\r\n"
                    "Content-MD6: abc\r\n\r\n--b\r\n\r\nx\r\n--b--\r\n";
  mp_message *m = parse_s(msg, NULL);
  ck_assert_uint_eq(mp_message_num_parts(m), 1);
  const mp_part *p = mp_message_part(m, 0);
  ck_assert(!(p->flags & MP_PART_MULTIPART));
  ck_assert_uint_eq(p->h_id, 3);
  ck_assert_uint_eq(p->h_md5, MP_NO_INDEX);
  mp_message_free(m);
}
END_TEST

START_TEST(test_decode_base64) {
  // Lenient MIME Base64: line breaks and junk skipped.
  const char *msg = "Content-Transfer-Encoding: base64\r\n\r\naGVsbG8g\r\nd29y!bGQ=\r\n";
  mp_message *m = parse_s(msg, NULL);
  char out[64];
  size_t n, q;
  ck_assert_int_eq(mp_part_decode(m, 0, NULL, 0, &q), 0);
  ck_assert_int_eq(mp_part_decode(m, 0, out, sizeof out, &n), 0);
  ck_assert_uint_eq(n, 11);
  ck_assert_uint_eq(q, n);
  ck_assert(memcmp(out, "hello world", 11) == 0);
  ck_assert_uint_ge(mp_part_decode_max_len(m, 0), n);
  mp_message_free(m);
}
END_TEST

START_TEST(test_decode_size_query_large) {
  // The size query streams in chunks: check it across chunk edges.
  size_t lines = 2000;
  char *msg = malloc(64 + lines * 78);
  strcpy(msg, "Content-Transfer-Encoding: base64\r\n\r\n");
  for (size_t i = 0; i < lines; i++)
    strcat(msg, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\r\n");
  mp_message *m = parse_s(msg, NULL);
  size_t q, n;
  ck_assert_int_eq(mp_part_decode(m, 0, NULL, 0, &q), 0);
  size_t cap = mp_part_decode_max_len(m, 0);
  char *out = malloc(cap);
  ck_assert_int_eq(mp_part_decode(m, 0, out, cap, &n), 0);
  ck_assert_uint_eq(n, lines * 57);
  ck_assert_uint_eq(q, n);
  free(out);
  mp_message_free(m);
  free(msg);
}
END_TEST

static const struct {
  const char *section;
  int part; // -1: error
} sections[] = {
    {"", 0},       {"1", 1},  {"2", 2},      {"2.1", 3},          {"2.2", 4}, {"3", 5},
    {"3.1", 6},    {"4", -1}, {"1.1", -1},   {"01", -1},          {"1.", -1}, {".1", -1},
    {"2.1.1", -1}, {"x", -1}, {"3.1.1", -1}, {"99999999999", -1},
};

START_TEST(test_section) {
  const char *msg = "Content-Type: multipart/mixed; boundary=o\r\n\r\n"
                    "--o\r\n\r\none\r\n"
                    "--o\r\nContent-Type: multipart/alternative; boundary=i\r\n\r\n"
                    "--i\r\n\r\nalt1\r\n--i\r\nContent-Type: text/html\r\n\r\nalt2\r\n--i--\r\n"
                    "--o\r\nContent-Type: message/rfc822\r\n\r\nSubject: s\r\n\r\ninner\r\n"
                    "--o--\r\n";
  mp_message *m = parse_s(msg, NULL);
  // Parts: 0 root, 1 one, 2 alternative, 3 alt1, 4 alt2, 5 rfc822, 6 inner.
  ck_assert_uint_eq(mp_message_num_parts(m), 7);
  int want = sections[_i].part;
  uint32_t got = 12345;
  int rc = mp_message_part_by_section(m, &got, sections[_i].section, strlen(sections[_i].section));
  if (want < 0) {
    ck_assert_msg(rc == MP_ERR_SYNTAX, "section '%s' gave %d part %u", sections[_i].section, rc,
                  got);
  } else {
    ck_assert_int_eq(rc, 0);
    ck_assert_msg((int)got == want, "section '%s' gave part %u, want %d", sections[_i].section, got,
                  want);
  }
  mp_message_free(m);
}
END_TEST

START_TEST(test_limits) {
  // Depth: nested multiparts deeper than the limit are kept as leaves.
  char msg[4096] = "";
  for (int i = 0; i < 10; i++) {
    size_t n = strlen(msg);
    snprintf(msg + n, sizeof msg - n,
             "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n", i, i);
  }
  strcat(msg, "\r\ndeep\r\n");
  mp_settings s = MP_SETTINGS_INIT;
  s.max_depth = 3;
  mp_message *m = parse_s(msg, &s);
  ck_assert_uint_eq(mp_message_num_parts(m), 4);
  ck_assert(mp_message_part(m, 3)->flags & MP_PART_TOO_DEEP);
  ck_assert(mp_message_problems(m) & (1u << MP_PROBLEM_DEPTH));
  mp_message_free(m);
  m = parse_s(msg, NULL);
  ck_assert_uint_eq(mp_message_num_parts(m), 11);
  mp_message_free(m);
  // Parts.
  const char *many = MPH "--b\r\n\r\n1\r\n--b\r\n\r\n2\r\n--b\r\n\r\n3\r\n--b--";
  s = (mp_settings)MP_SETTINGS_INIT;
  s.max_parts = 3;
  m = parse_s(many, &s);
  ck_assert_uint_eq(mp_message_num_parts(m), 3);
  ck_assert(range_eq(many, mp_message_part(m, 2)->body, "2\r\n--b\r\n\r\n3"));
  ck_assert(mp_message_problems(m) & (1u << MP_PROBLEM_PARTS));
  mp_message_free(m);
  // Work: a tiny budget stops boundary matching.
  s = (mp_settings)MP_SETTINGS_INIT;
  s.max_work = 5;
  m = parse_s(many, &s);
  ck_assert(mp_message_problems(m) & (1u << MP_PROBLEM_WORK));
  ck_assert_uint_lt(mp_message_num_parts(m), 4);
  mp_message_free(m);
}
END_TEST

struct counting {
  int allocs, frees;
};
static void *c_alloc(void *o, size_t n) {
  ((struct counting *)o)->allocs++;
  return malloc(n);
}
static void c_free(void *o, void *p) {
  ((struct counting *)o)->frees++;
  free(p);
}
static void *fail_alloc(void *o, size_t n) {
  (void)o;
  (void)n;
  return NULL;
}

START_TEST(test_allocator_and_args) {
  struct counting c = {0, 0};
  mp_settings s = MP_SETTINGS_INIT;
  s.allocator = (mp_allocator){c_alloc, c_free, &c};
  mp_message *m = parse_s(MPH "--b\r\n\r\nx\r\n--b--", &s);
  ck_assert_int_gt(c.allocs, 0);
  mp_message_free(m);
  ck_assert_int_eq(c.allocs, c.frees);
  mp_message_free(NULL);
  s.allocator = (mp_allocator){fail_alloc, c_free, &c};
  mp_diag d;
  ck_assert_int_eq(mp_message_parse(&m, &s, "x", 1, &d), -12);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(d.code, -12);
  s.allocator = (mp_allocator){c_alloc, NULL, &c};
  ck_assert_int_eq(mp_message_parse(&m, &s, "x", 1, &d), MP_ERR_INVALID_ARGUMENT);
  s = (mp_settings)MP_SETTINGS_INIT;
  s.version = 99;
  ck_assert_int_eq(mp_message_parse(&m, &s, "x", 1, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_parse(NULL, NULL, "x", 1, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_parse(&m, NULL, NULL, 1, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_parse(&m, NULL, NULL, 0, NULL), 0);
  ck_assert_uint_eq(mp_message_num_parts(m), 1);
  mp_message_free(m);
}
END_TEST

START_TEST(test_linear_many_parts) {
  // 20000 parts parse fast (the default part limit caps at 10000).
  size_t cap = 20000 * 16 + 100;
  char *msg = malloc(cap);
  strcpy(msg, MPH);
  size_t n = strlen(msg);
  for (int i = 0; i < 20000; i++)
    n += (size_t)snprintf(msg + n, cap - n, "--b\r\n\r\nx\r\n");
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, n, NULL), 0);
  ck_assert_uint_eq(mp_message_num_parts(m), MP_DEFAULT_MAX_PARTS);
  mp_message_free(m);
  free(msg);
}
END_TEST

// The peak-memory allocator: each block carries its size in a 16-byte
// prefix, so that the high-water mark of the bytes live is exact.
struct peak {
  size_t live, max;
};
static void *peak_alloc(void *o, size_t n) {
  struct peak *pk = o;
  unsigned char *p = malloc(n + 16);
  if (p == NULL)
    return NULL;
  memcpy(p, &n, sizeof n);
  pk->live += n;
  if (pk->live > pk->max)
    pk->max = pk->live;
  return p + 16;
}
static void peak_free(void *o, void *ptr) {
  struct peak *pk = o;
  if (ptr == NULL)
    return;
  unsigned char *p = (unsigned char *)ptr - 16;
  size_t n;
  memcpy(&n, p, sizeof n);
  pk->live -= n;
  free(p);
}

// A sink for mp_message_parse_bodies() that only counts the decoded bytes.
static int count_data(void *o, const mp_part *part, uint32_t index, const uint8_t *bytes,
                      size_t len) {
  (void)part;
  (void)index;
  (void)bytes;
  *(size_t *)o += len;
  return 0;
}

// peak_of_s parses `msg` through the counting allocator (mode 0:
// mp_message_parse, 1: mp_message_parse_headers, 2: mp_message_parse_bodies
// with a counting sink; `st` may be NULL for the defaults) and returns the
// high-water mark; it checks that everything was freed and returns the part
// and field counts.
static size_t peak_of_s(const char *msg, size_t len, int mode, const mp_settings *st, size_t *parts,
                        size_t *fields) {
  struct peak pk = {0, 0};
  mp_settings s = MP_SETTINGS_INIT;
  if (st != NULL)
    s = *st;
  s.allocator = (mp_allocator){peak_alloc, peak_free, &pk};
  mp_message *m = NULL;
  size_t decoded = 0;
  mp_body_sink sink = {count_data, NULL, &decoded};
  int rc = mode == 1   ? mp_message_parse_headers(&m, &s, msg, len, NULL)
           : mode == 2 ? mp_message_parse_bodies(&m, &s, msg, len, &sink, NULL)
                       : mp_message_parse(&m, &s, msg, len, NULL);
  ck_assert_int_eq(rc, 0);
  *parts = mp_message_num_parts(m);
  *fields = mp_message_num_headers(m);
  mp_message_free(m);
  ck_assert_uint_eq(pk.live, 0);
  return pk.max;
}

// peak_of is peak_of_s with the default settings (`headers_only`: mode 1).
static size_t peak_of(const char *msg, size_t len, int headers_only, size_t *parts,
                      size_t *fields) {
  return peak_of_s(msg, len, headers_only, NULL, parts, fields);
}

// bound is the documented limit for a message without long Content-Type
// values (the 8 * longest value term is at most 8 * 60 bytes here).
static size_t bound(size_t parts, size_t fields, size_t header_bytes) {
  return MP_PEAK_FIXED + MP_PEAK_PER_PART * parts + MP_PEAK_PER_HEADER * fields + 8 * 60 +
         header_bytes;
}

START_TEST(test_peak_memory_5000_parts) {
  // 5,000 parts the size of small real attachments (a 76-column Base64 body
  // of 6 lines): the parse needs at most the message size plus
  // MP_PEAK_FIXED. Arrays doubled inside the arena needed 4 times the
  // records' size here.
  static const char part[] = "--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
                             "Content-Transfer-Encoding: base64\r\n\r\n";
  static const char line[] =
      "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\r\n";
  size_t per = strlen(part) + 6 * strlen(line);
  size_t cap = 5000 * per + 200;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  strcpy(msg, MPH);
  size_t n = strlen(msg);
  for (int i = 0; i < 5000; i++) {
    memcpy(msg + n, part, strlen(part));
    n += strlen(part);
    for (int k = 0; k < 6; k++) {
      memcpy(msg + n, line, strlen(line));
      n += strlen(line);
    }
  }
  memcpy(msg + n, "--b--\r\n", 7);
  n += 7;
  size_t parts, fields;
  size_t peak = peak_of(msg, n, 0, &parts, &fields);
  ck_assert_uint_eq(parts, 5001);
  ck_assert_uint_le(peak, n + MP_PEAK_FIXED);
  ck_assert_uint_le(peak, bound(parts, fields, 5000 * 80 + 100));
  // Beyond the part and field records themselves the parse holds only its
  // scratch (line-count events, 40 bytes a part, and the list of counted
  // stretches) and the derived strings: no abandoned copies of records,
  // which alone would add as much again.
  size_t records = parts * sizeof(mp_part) + fields * sizeof(mp_header);
  ck_assert_uint_le(peak, records + records / 3 + MP_PEAK_FIXED);
  free(msg);
}
END_TEST

// tiny_parts returns a multipart message (MPH) of `count` near-empty
// parts, unterminated, and its length in *len.
static char *tiny_parts(int count, size_t *len) {
  size_t cap = (size_t)count * 16 + 100;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  strcpy(msg, MPH);
  size_t n = strlen(msg);
  for (int i = 0; i < count; i++)
    n += (size_t)snprintf(msg + n, cap - n, "--b\r\n\r\nx\r\n");
  *len = n;
  return msg;
}

START_TEST(test_peak_memory_tiny_parts) {
  // 5,000 near-empty parts: the records outweigh the bytes, and the
  // documented per-part bound holds.
  size_t n;
  char *msg = tiny_parts(5000, &n);
  size_t parts, fields;
  size_t peak = peak_of(msg, n, 0, &parts, &fields);
  ck_assert_uint_eq(parts, 5001);
  ck_assert_uint_le(peak, bound(parts, fields, 100));
  free(msg);
}
END_TEST

// The message of the 10,000-part tests: the root multipart and `n` parts
// of a small real attachment (a header section of two fields, a 76-column
// Base64 body of 6 lines) each; *len gets its size.
static char *many_parts(int n, size_t *len) {
  static const char part[] = "--b\r\nContent-Type: text/plain; charset=utf-8\r\n"
                             "Content-Transfer-Encoding: base64\r\n\r\n";
  static const char line[] =
      "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\r\n";
  size_t per = strlen(part) + 6 * strlen(line);
  char *msg = malloc((size_t)n * per + 200);
  ck_assert_ptr_nonnull(msg);
  strcpy(msg, MPH);
  size_t k = strlen(msg);
  for (int i = 0; i < n; i++) {
    memcpy(msg + k, part, strlen(part));
    k += strlen(part);
    for (int j = 0; j < 6; j++) {
      memcpy(msg + k, line, strlen(line));
      k += strlen(line);
    }
  }
  memcpy(msg + k, "--b--\r\n", 7);
  *len = k + 7;
  return msg;
}

START_TEST(test_peak_memory_10k_parts) {
  // 10,000 parts (the default part limit: the root and 9,999 attachments),
  // 20,000 fields: lazily, and with every body decoded to a sink. The parse
  // holds at most the message size plus MP_PEAK_FIXED, and beyond the part
  // and field records themselves only a third of their size (scratch and
  // derived strings): an array that doubled and kept its old copies would
  // hold twice the records.
  size_t n;
  char *msg = many_parts(MP_DEFAULT_MAX_PARTS - 1, &n);
  for (int mode = 0; mode <= 2; mode += 2) {
    size_t parts, fields;
    size_t peak = peak_of_s(msg, n, mode, NULL, &parts, &fields);
    ck_assert_uint_eq(parts, MP_DEFAULT_MAX_PARTS);
    ck_assert_uint_eq(fields, 1 + 2 * (MP_DEFAULT_MAX_PARTS - 1));
    ck_assert_uint_le(peak, n + MP_PEAK_FIXED);
    ck_assert_uint_le(peak, bound(parts, fields, (MP_DEFAULT_MAX_PARTS - 1) * 80 + 100));
    size_t records = parts * sizeof(mp_part) + fields * sizeof(mp_header);
    ck_assert_uint_le(peak, records + records / 3 + MP_PEAK_FIXED);
  }
  free(msg);
}
END_TEST

START_TEST(test_peak_memory_10k_tiny_parts) {
  // 20,000 near-empty parts, cut at the default limit of 10,000: the
  // documented per-part bound holds.
  size_t n;
  char *msg = tiny_parts(20000, &n);
  for (int mode = 0; mode <= 2; mode += 2) {
    size_t parts, fields;
    size_t peak = peak_of_s(msg, n, mode, NULL, &parts, &fields);
    ck_assert_uint_eq(parts, MP_DEFAULT_MAX_PARTS);
    ck_assert_uint_le(peak, bound(parts, fields, 100));
    // The line-count scratch (40 bytes a part) and the counted stretches
    // weigh more next to records of empty parts, but stay well under the
    // records' own size: records doubled in place needed 4 times it.
    size_t records = parts * sizeof(mp_part) + fields * sizeof(mp_header);
    ck_assert_uint_le(peak, 2 * records + MP_PEAK_FIXED);
  }
  free(msg);
}
END_TEST

START_TEST(test_peak_memory_10k_headers) {
  // One header section of 10,000 fields of about 70 bytes (the per-part
  // field limit raised to 10,000 through the settings; its default stays):
  // full, header-only and body-decoding parses hold at most the message size
  // plus MP_PEAK_FIXED, and nothing beyond the field records but one chunk
  // of 256 records and the fixed part.
  size_t cap = 10000 * 80 + 100;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  size_t n = 0;
  for (int i = 0; i < 10000; i++)
    n += (size_t)snprintf(msg + n, cap - n,
                          "X-Trace-%05d: from relay%05d.example.net by mx.example.org; id %05d\r\n",
                          i, i, i);
  n += (size_t)snprintf(msg + n, cap - n, "\r\nbody\r\n");
  mp_settings st = MP_SETTINGS_INIT;
  st.max_headers = 10000;
  for (int mode = 0; mode <= 2; mode++) {
    size_t parts, fields;
    size_t peak = peak_of_s(msg, n, mode, &st, &parts, &fields);
    ck_assert_uint_eq(parts, 1);
    ck_assert_uint_eq(fields, 10000);
    ck_assert_uint_le(peak, n + MP_PEAK_FIXED);
    ck_assert_uint_le(peak, bound(parts, fields, n));
    ck_assert_uint_le(peak, MP_PEAK_FIXED + (fields + 256) * sizeof(mp_header));
  }
  // With the default limit, the first 2,000 fields are indexed.
  size_t parts, fields;
  size_t peak = peak_of_s(msg, n, 0, NULL, &parts, &fields);
  ck_assert_uint_eq(fields, MP_DEFAULT_MAX_HEADERS);
  ck_assert_uint_le(peak, MP_PEAK_FIXED + (fields + 256) * sizeof(mp_header));
  free(msg);
}
END_TEST

// A counting allocator: how many blocks a parse takes.
static void *count_alloc(void *o, size_t n) {
  ++*(int *)o;
  return malloc(n);
}
static void count_free(void *o, void *p) {
  (void)o;
  free(p);
}

START_TEST(test_small_message_allocations) {
  // A message of a few parts and fields (the common case) takes the handle
  // and one arena chunk (for its media types, boundary and charset), and
  // the header-only parse the handle alone: the first record chunks and the
  // parser's first scratch live in the handle and on the stack.
  static const char msg[] = "From: a@example.com\r\nSubject: hi\r\n"
                            "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
                            "--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\none\r\n"
                            "--b\r\nContent-Type: application/pdf\r\n"
                            "Content-Transfer-Encoding: base64\r\n\r\nQUJD\r\n--b--\r\n";
  for (int mode = 0; mode <= 2; mode++) {
    int calls = 0;
    mp_settings s = MP_SETTINGS_INIT;
    s.allocator = (mp_allocator){count_alloc, count_free, &calls};
    mp_message *m = NULL;
    size_t decoded = 0;
    mp_body_sink sink = {count_data, NULL, &decoded};
    int rc = mode == 1   ? mp_message_parse_headers(&m, &s, msg, strlen(msg), NULL)
             : mode == 2 ? mp_message_parse_bodies(&m, &s, msg, strlen(msg), &sink, NULL)
                         : mp_message_parse(&m, &s, msg, strlen(msg), NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(mp_message_num_parts(m), mode == 1 ? 1 : 3);
    int most = mode == 1 ? 1 : 2; // the base library took 13 in full mode
    ck_assert_int_le(calls, most);
    mp_message_free(m);
  }
}
END_TEST

// An allocator that puts 64 bytes of a known pattern after every block and
// checks them when the block is freed, so that a write past an arena chunk
// fails the test in any build, not only under AddressSanitizer.
#define GUARD 64
static void *guard_alloc(void *o, size_t n) {
  (void)o;
  unsigned char *p = malloc(16 + n + GUARD);
  if (p == NULL)
    return NULL;
  memcpy(p, &n, sizeof n);
  memset(p + 16 + n, 0xA5, GUARD);
  return p + 16;
}
static void guard_free(void *o, void *q) {
  int *overruns = o;
  unsigned char *p = (unsigned char *)q - 16;
  size_t n;
  memcpy(&n, p, sizeof n);
  for (size_t i = 0; i < GUARD; i++)
    if (p[16 + n + i] != 0xA5) {
      (*overruns)++;
      break;
    }
  free(p);
}

START_TEST(test_arena_long_first_strings) {
  // Strings the parser keeps (boundary, charset, media types) of lengths
  // around and above the arena's first chunk sizes, as the first string of
  // a parse and after others: each chunk must hold the request it was made
  // for (a 3,000-byte boundary was written past the 1 KiB first chunk).
  static const size_t lens[] = {1000, 1008, 1009, 1024, 1500, 2032, 2100, 4000, 4096, 5000};
  static char msg[40000], bnd[6000], cs[6000];
  for (size_t bi = 0; bi < sizeof lens / sizeof lens[0]; bi++) {
    for (size_t ci = 0; ci < sizeof lens / sizeof lens[0]; ci += 3) {
      memset(bnd, 'b', lens[bi]);
      bnd[lens[bi]] = '\0';
      memset(cs, 'c', lens[ci]);
      cs[lens[ci]] = '\0';
      int n = snprintf(msg, sizeof msg,
                       "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n"
                       "--%s\r\nContent-Type: text/plain; charset=%s\r\n\r\nhi\r\n--%s--\r\n",
                       bnd, bnd, cs, bnd);
      ck_assert(n > 0 && (size_t)n < sizeof msg);
      int overruns = 0;
      mp_settings st = MP_SETTINGS_INIT;
      st.allocator = (mp_allocator){guard_alloc, guard_free, &overruns};
      mp_message *m = parse_s(msg, &st);
      ck_assert_uint_eq(mp_message_num_parts(m), 2);
      ck_assert(str_eq(mp_message_part(m, 0)->boundary, bnd));
      ck_assert(str_eq(mp_message_part(m, 1)->charset, cs));
      ck_assert(str_eq(mp_message_part(m, 1)->subtype, "plain"));
      mp_message_free(m);
      ck_assert_msg(overruns == 0, "boundary %zu, charset %zu: a block was overrun", lens[bi],
                    lens[ci]);
    }
  }
}
END_TEST

// An allocator that fails from its `fail_at`-th call on, counting what is
// live, so that every failure path of a parse is taken and checked for leaks.
struct failing {
  int calls, fail_at;
  long live;
};
static void *failing_alloc(void *o, size_t n) {
  struct failing *f = o;
  if (f->calls++ >= f->fail_at)
    return NULL;
  f->live++;
  return malloc(n);
}
static void failing_free(void *o, void *p) {
  struct failing *f = o;
  f->live--;
  free(p);
}

START_TEST(test_allocation_failures) {
  // 300 parts with three fields each: record chunks, their tables, arena
  // chunks and scratch all grow several times.
  size_t cap = 300 * 80 + 200;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  strcpy(msg, MPH);
  size_t n = strlen(msg);
  for (int i = 0; i < 300; i++)
    n += (size_t)snprintf(msg + n, cap - n,
                          "--b\r\nContent-Type: text/x-%d\r\nA: 1\r\nB: 2\r\n\r\nx\r\n", i);
  int ok = 0;
  for (int at = 0; at < 400 && !ok; at++) {
    for (int ho = 0; ho < 2; ho++) {
      struct failing f = {0, at, 0};
      mp_settings s = MP_SETTINGS_INIT;
      s.allocator = (mp_allocator){failing_alloc, failing_free, &f};
      mp_message *m = NULL;
      int rc = ho ? mp_message_parse_headers(&m, &s, msg, n, NULL)
                  : mp_message_parse(&m, &s, msg, n, NULL);
      ck_assert_msg(rc == 0 || rc == -12, "fail at %d: rc %d", at, rc);
      if (rc == 0) {
        ck_assert_uint_eq(mp_message_num_parts(m), ho ? 1 : 301);
        if (!ho)
          ok = 1;
      } else {
        ck_assert_ptr_null(m);
        ck_assert_int_eq(f.live, 0);
      }
      mp_message_free(m);
      ck_assert_int_eq(f.live, 0);
    }
  }
  ck_assert_msg(ok, "no allocation budget under 400 was enough");
  free(msg);
}
END_TEST

// The chunked record stores: every index has its own slot, chunks fill in
// order, and no chunk is larger than its step.
START_TEST(test_record_chunk_layout) {
  static const unsigned shifts[2][2] = {{MP_HDR_FIRST_SHIFT, MP_HDR_STEP_SHIFT},
                                        {MP_PART_FIRST_SHIFT, MP_PART_STEP_SHIFT}};
  // Plain ifs: a ck_assert per index would dominate the loop.
  for (int t = 0; t < 2; t++) {
    unsigned fs = shifts[t][0], ss = shifts[t][1];
    size_t prev_k = 0, prev_off = 0;
    for (size_t i = 0; i < 200000; i++) {
      size_t off, k = mp_rec_locate(i, fs, ss, &off);
      size_t len = mp_rec_chunk_len(k, fs, ss);
      bool ok = off < len && len <= ((size_t)1 << ss);
      if (i == 0)
        ok = ok && k == 0 && off == 0;
      else if (k == prev_k)
        ok = ok && off == prev_off + 1;
      else
        ok = ok && k == prev_k + 1 && off == 0 && prev_off + 1 == mp_rec_chunk_len(prev_k, fs, ss);
      if (!ok)
        ck_abort_msg("store %d, record %zu: chunk %zu offset %zu", t, i, k, off);
      prev_k = k;
      prev_off = off;
    }
  }
}
END_TEST

START_TEST(test_headers_only) {
  static const char msg[] = "From: a@example.com\r\nSubject: hi\r\n there\r\n"
                            "Content-Type: multipart/mixed; boundary=b\r\n"
                            "Content-Transfer-Encoding: 8bit\r\nContent-ID: <x@y>\r\n"
                            "no colon here\r\n\r\n--b\r\nX: 1\r\n\r\nbody\r\n--b--\r\n";
  size_t len = sizeof msg - 1;
  mp_message *full = NULL, *ho = NULL;
  ck_assert_int_eq(mp_message_parse(&full, NULL, msg, len, NULL), 0);
  ck_assert_int_eq(mp_message_parse_headers(&ho, NULL, msg, len, NULL), 0);
  // The same index of the top-level fields as the full parse.
  const mp_part *fp = mp_message_part(full, 0), *hp = mp_message_part(ho, 0);
  ck_assert_uint_eq(mp_message_num_parts(ho), 1);
  ck_assert_uint_eq(mp_message_num_headers(ho), fp->num_headers);
  ck_assert_uint_eq(hp->num_headers, fp->num_headers);
  for (size_t i = 0; i < fp->num_headers; i++)
    ck_assert_mem_eq(mp_message_header(ho, i), mp_message_header(full, i), sizeof(mp_header));
  ck_assert(hp->flags & MP_PART_HEADERS_ONLY);
  ck_assert(!(fp->flags & MP_PART_HEADERS_ONLY));
  ck_assert_uint_eq(hp->header.len, fp->header.len);
  ck_assert_uint_eq(hp->body.off, fp->body.off);
  ck_assert_uint_eq(hp->body.len, len - hp->body.off);
  ck_assert_uint_eq(hp->content_type.off, fp->content_type.off);
  ck_assert_uint_eq(hp->encoding, MP_ENCODING_8BIT);
  ck_assert_uint_eq(hp->h_id, fp->h_id);
  ck_assert_ptr_null(hp->type.p);
  ck_assert_ptr_null(hp->boundary.p);
  ck_assert_uint_eq(mp_message_problems(ho),
                    mp_message_problems(full) & (1u << MP_PROBLEM_NO_COLON));
  ck_assert_int_eq(mp_message_header_find(ho, 0, 0, "subject", 7), 1);
  // What needs the part tree refuses a header-only message.
  mp_selection sel;
  uint32_t idx[8];
  ck_assert_int_eq(mp_message_select(ho, &sel, idx, 8, 0), MP_ERR_INVALID_ARGUMENT);
  size_t ol;
  ck_assert_int_eq(mp_part_bodystructure(ho, 0, 1, NULL, 0, &ol), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_part_envelope(ho, 0, NULL, 0, &ol), 0);
  ck_assert_uint_gt(ol, 0);
  mp_message_free(full);
  mp_message_free(ho);
  // No empty line: every byte is header; empty input; argument checks.
  ck_assert_int_eq(mp_message_parse_headers(&ho, NULL, "A: b\r\nC: d", 11, NULL), 0);
  ck_assert_uint_eq(mp_message_num_headers(ho), 2);
  ck_assert(mp_message_part(ho, 0)->flags & MP_PART_NO_BODY);
  mp_message_free(ho);
  ck_assert_int_eq(mp_message_parse_headers(&ho, NULL, NULL, 0, NULL), 0);
  ck_assert_uint_eq(mp_message_num_headers(ho), 0);
  mp_message_free(ho);
  ck_assert_int_eq(mp_message_parse_headers(NULL, NULL, "x", 1, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_parse_headers(&ho, NULL, NULL, 1, NULL), MP_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_headers_only_memory) {
  // 1,500 fields (under the per-part limit): the header-only parse holds the
  // handle and the field records, nothing per field besides.
  size_t cap = 1500 * 40 + 10;
  char *msg = malloc(cap);
  ck_assert_ptr_nonnull(msg);
  size_t n = 0;
  for (int i = 0; i < 1500; i++)
    n += (size_t)snprintf(msg + n, cap - n, "X-Field-%d: value %d\r\n", i, i);
  n += (size_t)snprintf(msg + n, cap - n, "\r\n");
  size_t parts, fields;
  size_t peak = peak_of(msg, n, 1, &parts, &fields);
  ck_assert_uint_eq(fields, 1500);
  ck_assert_uint_le(peak, MP_PEAK_FIXED + fields * sizeof(mp_header) + 256 * sizeof(mp_header));
  free(msg);
}
END_TEST

// Body sink checks (mp_message_parse_bodies): a recording sink keeps every
// part's bytes and checks the call order; check_bodies() compares what it
// got with a lazy parse and mp_part_decode() of every leaf.
struct rec_sink {
  uint8_t *bytes[64];
  size_t len[64], cap[64];
  int ends[64];
  long open;   // the part whose body is under way, or -1
  long last;   // the last part ended
  int fail_at; // the data call that fails (-1: none)
  int calls;
  bool no_end; // the sink has no `end`: a new part may start at any call
};

static int rec_data(void *o, const mp_part *p, uint32_t ix, const uint8_t *b, size_t n) {
  struct rec_sink *r = o;
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_gt(n, 0);
  ck_assert_uint_lt(ix, 64);
  ck_assert_int_eq(p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE), 0);
  if (r->no_end && r->open != (long)ix) {
    r->last = r->open;
    r->open = -1;
  }
  if (r->open < 0) {
    ck_assert_int_gt((long)ix, r->last); // parts come in order, once each
    r->open = ix;
  }
  ck_assert_int_eq(r->open, (long)ix);
  if (r->calls++ == r->fail_at)
    return -77;
  if (r->len[ix] + n > r->cap[ix]) {
    r->cap[ix] = (r->len[ix] + n) * 2;
    r->bytes[ix] = realloc(r->bytes[ix], r->cap[ix]);
    ck_assert_ptr_nonnull(r->bytes[ix]);
  }
  memcpy(r->bytes[ix] + r->len[ix], b, n);
  r->len[ix] += n;
  return 0;
}

static int rec_end(void *o, const mp_part *p, uint32_t ix) {
  struct rec_sink *r = o;
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_lt(ix, 64);
  ck_assert(r->open < 0 || r->open == (long)ix);
  ck_assert_int_gt((long)ix, r->last);
  r->open = -1;
  r->last = ix;
  r->ends[ix]++;
  return 0;
}

static void rec_free(struct rec_sink *r) {
  for (size_t i = 0; i < 64; i++)
    free(r->bytes[i]);
}

// check_bodies parses `msg` both ways and returns the number of leaves.
static size_t check_bodies(const char *msg, size_t len, const char *what) {
  struct rec_sink r = {.open = -1, .last = -1, .fail_at = -1};
  mp_body_sink sink = {rec_data, rec_end, &r};
  mp_message *m = NULL, *lazy = NULL;
  ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, &sink, NULL), 0);
  ck_assert_int_eq(mp_message_parse(&lazy, NULL, msg, len, NULL), 0);
  ck_assert_uint_eq(mp_message_num_parts(m), mp_message_num_parts(lazy));
  ck_assert_uint_eq(mp_message_num_headers(m), mp_message_num_headers(lazy));
  ck_assert_uint_eq(mp_message_problems(m), mp_message_problems(lazy));
  ck_assert_int_lt(r.open, 0);
  size_t leaves = 0;
  for (uint32_t i = 0; i < mp_message_num_parts(m) && i < 64; i++) {
    const mp_part *p = mp_message_part(m, i), *q = mp_message_part(lazy, i);
    ck_assert_uint_eq(p->body.off, q->body.off);
    ck_assert_uint_eq(p->body.len, q->body.len);
    ck_assert_uint_eq(p->lines, q->lines);
    ck_assert_uint_eq(p->flags, q->flags);
    if (p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE)) {
      ck_assert_int_eq(r.ends[i], 0);
      ck_assert_uint_eq(r.len[i], 0);
      continue;
    }
    leaves++;
    ck_assert_msg(r.ends[i] == 1, "%s: part %u ended %d times", what, i, r.ends[i]);
    size_t cap = mp_part_decode_max_len(lazy, i) + 1, n = 0;
    uint8_t *want = malloc(cap);
    ck_assert_ptr_nonnull(want);
    ck_assert_int_eq(mp_part_decode(lazy, i, want, cap, &n), 0);
    ck_assert_msg(n == r.len[i] && (n == 0 || memcmp(want, r.bytes[i], n) == 0),
                  "%s: part %u: %zu bytes from the sink, %zu from mp_part_decode", what, i,
                  r.len[i], n);
    free(want);
  }
  mp_message_free(m);
  mp_message_free(lazy);
  rec_free(&r);
  return leaves;
}

START_TEST(test_bodies_cases) {
  const struct scase *c = &scases[_i];
  check_bodies(c->msg, strlen(c->msg), c->name);
}
END_TEST

// big_append appends formatted text to a growing buffer.
struct big {
  char *p;
  size_t len, cap;
};

static void big_put(struct big *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    ck_assert_ptr_nonnull(b->p);
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void big_str(struct big *b, const char *s) {
  big_put(b, s, strlen(s));
}

// big_base64 appends `n` pseudo-random bytes in Base64, lines of `line`
// characters ending in `eol`.
static void big_base64(struct big *b, size_t n, size_t line, const char *eol, unsigned seed) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t col = 0;
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i += 3) {
    char q[4];
    for (int k = 0; k < 4; k++) {
      x = x * 1103515245u + 12345u;
      q[k] = abc[(x >> 16) & 63];
    }
    if (n - i < 3) {
      q[3] = '=';
      if (n - i < 2)
        q[2] = '=';
    }
    big_put(b, q, 4);
    col += 4;
    if (col >= line) {
      big_str(b, eol);
      col = 0;
    }
  }
  if (col > 0)
    big_str(b, eol);
}

// big_qp appends quoted-printable text of about `n` bytes: escapes, soft
// line breaks, trailing blanks and "--" at line starts that are no delimiter.
static void big_qp(struct big *b, size_t n, const char *eol, unsigned seed) {
  static const char *const bits[] = {"caf=C3=A9 ", "plain text ", "=3D ", "tab\t ",  "--not ",
                                     "x  ",        "=E2=82=AC",   "a",    "--b-not "};
  size_t col = 0, start = b->len;
  uint32_t x = seed + 7;
  while (b->len - start < n) {
    x = x * 1103515245u + 12345u;
    const char *w = bits[(x >> 16) % (sizeof bits / sizeof bits[0])];
    big_str(b, w);
    col += strlen(w);
    if (col > 60 + (x >> 8) % 14) {
      big_str(b, (x >> 4) & 1 ? "=" : "");
      big_str(b, eol);
      col = 0;
    }
  }
  big_str(b, eol);
}

// Bodies much larger than the stretch the scan decodes at a time, in every
// encoding, nested, with CRLF and LF, and a delimiter at every offset
// around the first stretch's end.
START_TEST(test_bodies_large) {
  for (int lf = 0; lf < 2; lf++) {
    const char *eol = lf ? "\n" : "\r\n";
    struct big b = {0};
    big_str(&b, "Subject: big\r\nMIME-Version: 1.0\r\n"
                "Content-Type: multipart/mixed; boundary=outer\r\n\r\npreamble\r\n--outer\r\n"
                "Content-Type: application/octet-stream\r\n"
                "Content-Transfer-Encoding: base64\r\n\r\n");
    big_base64(&b, 100000, 76, eol, 1);
    big_str(&b, "--outer\r\nContent-Type: text/plain; charset=utf-8\r\n"
                "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
    big_qp(&b, 70000, eol, 2);
    big_str(&b, "--outer\r\nContent-Type: multipart/alternative; boundary=inner\r\n\r\n"
                "--inner\r\nContent-Type: text/plain\r\n\r\n");
    for (int i = 0; i < 900; i++)
      big_str(&b, "a line of plain 7bit text, fifty bytes or so\r\n");
    big_str(&b, "--inner\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    big_base64(&b, 30000, 4000, eol, 3); // lines far longer than usual
    big_str(&b, "--inner--\r\n--outer\r\nContent-Type: message/rfc822\r\n\r\n"
                "Subject: inner\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    big_base64(&b, 40000, 72, eol, 4);
    big_str(&b, "--outer\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    big_base64(&b, 50000, 76, eol, 5);
    // No close delimiter: the last body runs to the end.
    ck_assert_uint_eq(check_bodies(b.p, b.len, "large"), 6);
    free(b.p);
  }
  // A single-part message: nothing to scan for, the body decoded at the end.
  struct big b = {0};
  big_str(&b, "Subject: one\r\nContent-Transfer-Encoding: base64\r\n\r\n");
  big_base64(&b, 60000, 76, "\r\n", 6);
  ck_assert_uint_eq(check_bodies(b.p, b.len, "single"), 1);
  free(b.p);
  // A delimiter at every line start near the end of the first stretch
  // (16 KiB past the body's start), after quoted-printable text whose
  // last line may end in a soft line break.
  for (size_t pad = 0; pad < 200; pad++) {
    b = (struct big){0};
    big_str(&b, "Content-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\n"
                "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
    size_t body = b.len;
    while (b.len - body < 16384 - 300) {
      big_str(&b, "0123456789abcdefghij0123456789abcdefghij0123456789abcdefghij0123456=");
      big_str(&b, (b.len / 69) % 3 == 0 ? "\n" : "\r\n");
    }
    // A last line that ends at every offset around 16 KiB: the one that
    // holds byte 16384 ends the stretch, with the delimiter right after it.
    while (b.len - body < 16384 - 100 + pad)
      big_str(&b, pad % 3 ? "x" : " ");
    big_str(&b, pad % 2 ? "=\r\n" : "\r\n");
    big_str(&b, "--zz\r\nContent-Transfer-Encoding: base64\r\n\r\nQUJD\r\n--zz--\r\n");
    ck_assert_uint_eq(check_bodies(b.p, b.len, "stretch end"), 2);
    free(b.p);
  }
  // Lines longer than a whole stretch (one with no LF in it at all): a
  // base64 body on one line, quoted-printable lines of 20 and 40 KB, one of
  // them starting with "--" but no delimiter, and a body whose only line
  // runs to the end of the message with no LF.
  for (int lf = 0; lf < 2; lf++) {
    const char *eol = lf ? "\n" : "\r\n";
    b = (struct big){0};
    big_str(&b, "Content-Type: multipart/mixed; boundary=ll\r\n\r\n--ll\r\n"
                "Content-Transfer-Encoding: base64\r\n\r\n");
    big_base64(&b, 60000, 100000, eol, 7);
    big_str(&b, "--ll\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n");
    for (int i = 0; i < 20000; i++)
      big_str(&b, "q");
    big_str(&b, eol);
    big_str(&b, "--not the delimiter ");
    for (int i = 0; i < 4000; i++)
      big_str(&b, "caf=C3=A9 ");
    big_str(&b, eol);
    big_str(&b, "--ll\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    for (int i = 0; i < 10000; i++)
      big_str(&b, "QUJD");
    ck_assert_uint_eq(check_bodies(b.p, b.len, "long lines"), 3);
    free(b.p);
  }
}
END_TEST

START_TEST(test_bodies_sink_errors) {
  const char *msg =
      MPH "--b\r\nContent-Transfer-Encoding: base64\r\n\r\nQUJD\r\n--b\r\n\r\nx\r\n--b--\r\n";
  size_t len = strlen(msg);
  mp_message *m = (mp_message *)1;
  mp_diag d;
  // The sink stops the parse: its value comes back and there is no message.
  for (int at = 0; at < 2; at++) {
    struct rec_sink r = {.open = -1, .last = -1, .fail_at = at};
    mp_body_sink sink = {rec_data, rec_end, &r};
    ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, &sink, &d), -77);
    ck_assert_ptr_null(m);
    rec_free(&r);
  }
  // `end` may be NULL.
  struct rec_sink r = {.open = -1, .last = -1, .fail_at = -1, .no_end = true};
  mp_body_sink sink = {rec_data, NULL, &r};
  ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, &sink, NULL), 0);
  ck_assert_uint_eq(r.len[1], 3);
  ck_assert_int_eq(memcmp(r.bytes[1], "ABC", 3), 0);
  ck_assert_uint_eq(r.len[2], 1); // "x": the line break goes with the delimiter
  mp_message_free(m);
  rec_free(&r);
  // Arguments.
  m = (mp_message *)1;
  ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, NULL, &d), MP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(d.code, MP_ERR_INVALID_ARGUMENT);
  mp_body_sink nodata = {NULL, rec_end, &r};
  ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, &nodata, NULL),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_parse_bodies(NULL, NULL, msg, len, &sink, NULL),
                   MP_ERR_INVALID_ARGUMENT);
}
END_TEST

// parse_entry() clears only the start of the message handle and of its
// parser state (the problems, the chunk tables, the body feed and the inline
// scratch stay as they were): dirty_alloc() hands out blocks full of a
// pattern and dirty_stack() fills the stack the parser will use with a
// word, so that a field read before it is set changes the result in any
// build. Two words: bytes of 0xA5-like junk, and 1 in every word (a true
// flag next to a part number 1, a small count).
static void *dirty_alloc(void *o, size_t n) {
  (void)o;
  void *p = malloc(n);
  if (p != NULL)
    memset(p, 0xA5, n);
  return p;
}
static void dirty_free(void *o, void *p) {
  (void)o;
  free(p);
}
static __attribute__((noinline)) void dirty_stack(uint64_t word) {
  volatile uint64_t junk[1 << 13];
  for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
    junk[i] = word;
}

// same_parse checks that `m` and `want` agree on the structure, the
// headers and every problem recorded.
static void same_parse(const mp_message *m, const mp_message *want, const char *what) {
  char t1[512] = "", t2[512] = "";
  tree(m, 0, t1, sizeof t1);
  tree(want, 0, t2, sizeof t2);
  ck_assert_msg(strcmp(t1, t2) == 0, "%s: tree %s vs %s", what, t1, t2);
  ck_assert_uint_eq(mp_message_num_headers(m), mp_message_num_headers(want));
  ck_assert_uint_eq(mp_message_problems(m), mp_message_problems(want));
  size_t np = mp_message_num_problems(m);
  ck_assert_msg(np == mp_message_num_problems(want), "%s: %zu problems vs %zu", what, np,
                mp_message_num_problems(want));
  ck_assert_uint_le(np, MP_MAX_PROBLEMS);
  for (size_t i = 0; i < np; i++) {
    const mp_problem *a = mp_message_problem(m, i), *b = mp_message_problem(want, i);
    ck_assert_msg(a->kind == b->kind && a->part == b->part && a->offset == b->offset,
                  "%s: problem %zu differs", what, i);
  }
  ck_assert_ptr_null(mp_message_problem(m, np));
}

START_TEST(test_dirty_memory) {
  mp_settings st = MP_SETTINGS_INIT;
  st.allocator = (mp_allocator){dirty_alloc, dirty_free, NULL};
  // Every structure case, one with more problems than are kept and one
  // whose leaf is longer than a feed stretch (a body scan that reads the
  // feed's state with or without a sink).
  static char many[8192], large[65536];
  strcpy(many, MPH);
  for (int i = 0; i < 40; i++)
    strcat(many, "--b\r\nno colon\r\nContent-Transfer-Encoding: x-bogus\r\n\r\nx\r\n");
  strcpy(large, MPH "--b\r\nContent-Transfer-Encoding: base64\r\n\r\n");
  for (int i = 0; i < 800; i++)
    strcat(large, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5\r\n");
  strcat(large, "--b--\r\n");
  size_t ncase = sizeof scases / sizeof scases[0];
  for (size_t j = 0; j < 2 * (ncase + 2); j++) {
    uint64_t word = j < ncase + 2 ? 0x5A5A5A5A5A5A5A5Au : 1;
    size_t k = j % (ncase + 2);
    const char *msg = k < ncase ? scases[k].msg : k == ncase ? many : large;
    const char *what = k < ncase ? scases[k].name : k == ncase ? "many problems" : "large";
    size_t len = strlen(msg);
    mp_message *want = NULL, *m = NULL;
    ck_assert_int_eq(mp_message_parse(&want, NULL, msg, len, NULL), 0);
    dirty_stack(word);
    ck_assert_int_eq(mp_message_parse(&m, &st, msg, len, NULL), 0);
    same_parse(m, want, what);
    mp_message_free(m);
    // With a body sink (the feed), the bytes must match too.
    struct rec_sink r1 = {.open = -1, .last = -1, .fail_at = -1};
    struct rec_sink r2 = {.open = -1, .last = -1, .fail_at = -1};
    mp_body_sink s1 = {rec_data, rec_end, &r1}, s2 = {rec_data, rec_end, &r2};
    ck_assert_int_eq(mp_message_parse_bodies(&m, NULL, msg, len, &s1, NULL), 0);
    mp_message_free(m);
    dirty_stack(word);
    ck_assert_int_eq(mp_message_parse_bodies(&m, &st, msg, len, &s2, NULL), 0);
    same_parse(m, want, what);
    for (size_t i = 0; i < 64; i++) {
      ck_assert_msg(r1.len[i] == r2.len[i] && r1.ends[i] == r2.ends[i], "%s: part %zu body", what,
                    i);
      ck_assert(r1.len[i] == 0 || memcmp(r1.bytes[i], r2.bytes[i], r1.len[i]) == 0);
    }
    rec_free(&r1);
    rec_free(&r2);
    mp_message_free(m);
    if (k == ncase) // it fills every problem slot
      ck_assert_uint_eq(mp_message_num_problems(want), MP_MAX_PROBLEMS);
    mp_message_free(want);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("message");
  TCase *tc = tcase_create("message");
  tcase_add_loop_test(tc, test_structure_cases, 0, (int)(sizeof scases / sizeof scases[0]));
  tcase_add_test(tc, test_preamble_epilogue);
  tcase_add_test(tc, test_part_fields);
  tcase_add_test(tc, test_part_field_names);
  tcase_add_test(tc, test_decode_base64);
  tcase_add_test(tc, test_decode_size_query_large);
  tcase_add_loop_test(tc, test_section, 0, (int)(sizeof sections / sizeof sections[0]));
  tcase_add_test(tc, test_limits);
  tcase_add_test(tc, test_allocator_and_args);
  tcase_add_test(tc, test_linear_many_parts);
  tcase_add_test(tc, test_peak_memory_5000_parts);
  tcase_add_test(tc, test_peak_memory_tiny_parts);
  tcase_add_test(tc, test_peak_memory_10k_parts);
  tcase_add_test(tc, test_peak_memory_10k_tiny_parts);
  tcase_add_test(tc, test_peak_memory_10k_headers);
  tcase_add_test(tc, test_small_message_allocations);
  tcase_add_test(tc, test_record_chunk_layout);
  tcase_add_test(tc, test_headers_only);
  tcase_add_test(tc, test_allocation_failures);
  tcase_add_test(tc, test_headers_only_memory);
  tcase_add_loop_test(tc, test_bodies_cases, 0, (int)(sizeof scases / sizeof scases[0]));
  tcase_add_test(tc, test_bodies_large);
  tcase_add_test(tc, test_bodies_sink_errors);
  tcase_add_test(tc, test_arena_long_first_strings);
  tcase_add_test(tc, test_dirty_memory);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
