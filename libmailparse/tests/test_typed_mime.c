// test_typed_mime.c: mp_content_type_parse, mp_content_disposition_parse and
// mp_param_find (src/typed_mime.c): the RFC 2045 §5.1 and RFC 2183 examples,
// the RFC 2231 §3, §4 and §4.1 examples, and real-world forms (RFC 2047 in
// filenames, unquoted boundaries with '=', Windows paths, duplicates,
// junk), with limits and buffer sizes.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

// want: "type/subtype" then "; name=value" per parameter, and
// "[charset'lang']" before the value when RFC 2231 gave them.
struct vec {
  const char *section;
  const char *in;
  const char *want;
  unsigned flags_set;
};

static const struct vec vectors[] = {
    {"RFC 2045 §5.1", "text/plain; charset=us-ascii (Plain text)", "text/plain; charset=us-ascii",
     0},
    {"RFC 2045 §5.1", "text/plain; charset=\"us-ascii\"", "text/plain; charset=us-ascii", 0},
    {"RFC 2045 §5.1", "TEXT/PLAIN; CHARSET=US-ASCII", "text/plain; charset=US-ASCII", 0},
    {"RFC 2231 §3",
     "message/external-body; access-type=URL;\r\n URL*0=\"ftp://\";\r\n"
     " URL*1=\"cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar\"",
     "message/external-body; access-type=URL; "
     "url=ftp://cs.utk.edu/pub/moore/bulk-mailer/bulk-mailer.tar",
     0},
    {"RFC 2231 §4",
     "application/x-stuff;\r\n title*=us-ascii'en-us'This%20is%20%2A%2A%2Afun%2A%2A%2A",
     "application/x-stuff; title=[us-ascii'en-us']This is ***fun***", 0},
    {"RFC 2231 §4.1",
     "application/x-stuff;\r\n title*0*=us-ascii'en'This%20is%20even%20more%20;\r\n"
     " title*1*=%2A%2A%2Afun%2A%2A%2A%20;\r\n title*2=\"isn't it!\"",
     "application/x-stuff; title=[us-ascii'en']This is even more ***fun*** isn't it!", 0},
    {"RFC 2231 out of order", "a/b; n*1=\"world\"; n*0=\"hello \"", "a/b; n=hello world", 0},
    {"RFC 2231 UTF-8 split", "a/b; f*0*=utf-8''%C3; f*1*=%A9.txt", "a/b; f=[utf-8'']\xc3\xa9.txt",
     0},
    {"RFC 2231 latin1", "a/b; f*=iso-8859-1''caf%E9", "a/b; f=[iso-8859-1'']caf\xc3\xa9", 0},
    {"RFC 2231 gap", "a/b; n*0=a; n*2=c", "a/b; n=ac", MP_TYPED_REPAIRED},
    {"RFC 2047 in value", "application/pdf; name=\"=?utf-8?B?w6lsw6hwaGFudC5wZGY=?=\"",
     "application/pdf; name=\xc3\xa9l\xc3\xa8phant.pdf", MP_TYPED_ENCWORD_PLACEMENT},
    {"unquoted boundary", "multipart/mixed; boundary=----=_Part_0_1.2; charset=x",
     "multipart/mixed; boundary=----=_Part_0_1.2; charset=x", MP_TYPED_REPAIRED},
    {"unquoted spaces", "application/pdf; name=my file.pdf", "application/pdf; name=my file.pdf",
     MP_TYPED_REPAIRED},
    {"windows path", "a/b; filename=\"C:\\dir\\file.txt\"", "a/b; filename=C:\\dir\\file.txt",
     MP_TYPED_REPAIRED},
    {"quoted pair", "a/b; x=\"a\\\"b\\\\c\"", "a/b; x=a\"b\\c", 0},
    {"duplicate", "a/b; x=1; X=2", "a/b; x=1", MP_TYPED_REPAIRED},
    {"junk", "text/plain; ; foo; charset=utf-8;", "text/plain; charset=utf-8", MP_TYPED_JUNK},
    {"comments", "(c) text (c) / (c) html (c) ; (c) a (c) = (c) b (c)", "text/html; a=b", 0},
    {"raw utf-8", "a/b; name=\"\xc3\xa9.txt\"", "a/b; name=\xc3\xa9.txt", MP_TYPED_8BIT},
    {"unterminated", "a/b; name=\"abc", "a/b; name=abc", MP_TYPED_UNTERMINATED},
    {"folded", "multipart/alternative;\r\n\tboundary=\"b1\"", "multipart/alternative; boundary=b1",
     0},
};

static void show(char *buf, size_t cap, const mp_content_type *ct, const mp_param *p) {
  size_t len = (size_t)snprintf(buf, cap, "%.*s/%.*s", (int)ct->type.len, ct->type.p,
                                (int)ct->subtype.len, ct->subtype.p);
  for (size_t i = 0; i < ct->num_params && len < cap; i++) {
    len += (size_t)snprintf(buf + len, cap - len, "; %.*s=", (int)p[i].name.len, p[i].name.p);
    if (p[i].flags & MP_PARAM_EXTENDED)
      len += (size_t)snprintf(buf + len, cap - len, "[%.*s'%.*s']", (int)p[i].charset.len,
                              p[i].charset.p ? p[i].charset.p : "", (int)p[i].language.len,
                              p[i].language.p ? p[i].language.p : "");
    len += (size_t)snprintf(buf + len, cap - len, "%.*s", (int)p[i].value.len,
                            p[i].value.p ? p[i].value.p : "");
  }
}

START_TEST(parse_vectors) {
  const struct vec *v = &vectors[_i];
  size_t in_len = strlen(v->in);
  size_t cap = mp_typed_text_max_len(in_len);
  char *text = malloc(cap);
  mp_param params[8];
  mp_content_type ct;
  size_t tl = 99;
  unsigned flags = 0;
  int rc = mp_content_type_parse(&ct, params, 8, text, cap, &tl, &flags, v->in, in_len);
  ck_assert_msg(rc == 0, "%s: rc %d", v->section, rc);
  char got[512];
  show(got, sizeof got, &ct, params);
  ck_assert_msg(strcmp(got, v->want) == 0, "%s: got \"%s\", want \"%s\"", v->section, got, v->want);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "%s: flags %#x lack %#x", v->section, flags,
                v->flags_set);
  if (ct.num_params > 0) {
    size_t tl2 = 5;
    ck_assert_int_eq(
        mp_content_type_parse(&ct, params, ct.num_params - 1, text, cap, &tl2, NULL, v->in, in_len),
        MP_ERR_LIMIT);
    ck_assert_uint_eq(tl2, 0);
    ck_assert_uint_eq(ct.num_params, 0);
  }
  size_t tl2 = 5;
  ck_assert_int_eq(mp_content_type_parse(&ct, params, 8, text, tl - 1, &tl2, NULL, v->in, in_len),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(tl2, 0);
  free(text);
}
END_TEST

START_TEST(disposition) {
  // RFC 2183 §2 and RFC 2231 with a filename.
  const char *in = "Attachment; filename*=UTF-8''na%C3%AFve.txt;\r\n"
                   " modification-date=\"Wed, 12 Feb 1997 16:29:51 -0500\"";
  char text[512];
  mp_param p[4];
  mp_content_disposition cd;
  size_t tl;
  ck_assert_int_eq(
      mp_content_disposition_parse(&cd, p, 4, text, sizeof text, &tl, NULL, in, strlen(in)), 0);
  ck_assert_uint_eq(cd.type.len, 10);
  ck_assert_mem_eq(cd.type.p, "attachment", 10);
  ck_assert_uint_eq(cd.num_params, 2);
  const mp_param *f = mp_param_find(p, cd.num_params, "FileName");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(f->value.len, 10);
  ck_assert_mem_eq(f->value.p, "na\xc3\xafve.txt", 10);
  ck_assert_mem_eq(f->charset.p, "UTF-8", 5);
  ck_assert_ptr_null(f->language.p);
  const mp_param *d = mp_param_find(p, cd.num_params, "modification-date");
  ck_assert_ptr_nonnull(d);
  ck_assert_uint_eq(d->value.len, 31);
  ck_assert_ptr_null(mp_param_find(p, cd.num_params, "size"));
  ck_assert_ptr_null(mp_param_find(NULL, 0, "size"));
  in = "inline";
  ck_assert_int_eq(
      mp_content_disposition_parse(&cd, p, 4, text, sizeof text, &tl, NULL, in, strlen(in)), 0);
  ck_assert_uint_eq(cd.num_params, 0);
}
END_TEST

START_TEST(syntax_errors) {
  static const char *const bad[] = {"",           "text", "text/",     "/plain",
                                    ";charset=x", "(c)",  "text plain"};
  char text[256];
  mp_param p[4];
  mp_content_type ct;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t tl = 9;
    int rc = mp_content_type_parse(&ct, p, 4, text, sizeof text, &tl, NULL, bad[i], strlen(bad[i]));
    ck_assert_msg(rc == MP_ERR_SYNTAX, "\"%s\": rc %d", bad[i], rc);
    ck_assert_uint_eq(tl, 0);
    ck_assert_ptr_null(ct.type.p);
  }
  size_t tl;
  ck_assert_int_eq(mp_content_type_parse(NULL, p, 4, text, sizeof text, &tl, NULL, "a/b", 3),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_content_type_parse(&ct, NULL, 4, text, sizeof text, &tl, NULL, "a/b", 3),
                   MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_content_type_parse(&ct, p, 4, text, sizeof text, NULL, NULL, "a/b", 3),
                   MP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_mime");
  TCase *tc = tcase_create("mime");
  tcase_add_loop_test(tc, parse_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, disposition);
  tcase_add_test(tc, syntax_errors);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
