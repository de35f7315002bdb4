// test_typed_mime.c: mp_content_type_parse, mp_content_disposition_parse and
// mp_param_find (src/typed_mime.c): the RFC 2045 §5.1 and RFC 2183 examples,
// the RFC 2231 §3, §4 and §4.1 examples, and real-world forms (RFC 2047 in
// filenames, unquoted boundaries with '=', Windows paths, duplicates,
// junk), with limits and buffer sizes; the fast path for simple values
// against the general parser (mp_typed_mime_parse_general) on generated
// values and on every byte value at every position of long-token values.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "typed_check.h"
#include "typed_internal.h"

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
  // A prefix of a parameter's name, or a name the parameter's is a prefix
  // of, is another name.
  ck_assert_ptr_null(mp_param_find(p, cd.num_params, "file"));
  ck_assert_ptr_null(mp_param_find(p, cd.num_params, "FILENAMEX"));
  ck_assert_ptr_null(mp_param_find(p, cd.num_params, ""));
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

// Pieces the generated values are made of: the simple form the fast path
// takes, next to everything that must send it to the general parser.
static const char *const gen_types[] = {"text/plain",
                                        "TEXT/Html",
                                        "multipart/mixed",
                                        "application/octet-stream",
                                        " text / plain ",
                                        "text",
                                        "text/plain junk",
                                        "t\xc3\xa9xt/plain",
                                        "(c) text/plain",
                                        "message/rfc822 ",
                                        ""};
static const char *const gen_names[] = {"charset", "CHARSET", "boundary",  "name",
                                        "Name",    "title*",  "title*0",   "title*1*",
                                        "x",       "",        "n\xc3\xa9", "format"};
static const char *const gen_values[] = {"us-ascii",
                                         "\"us-ascii\"",
                                         "\"----=_Part_1_2.3\"",
                                         "\"a b\tc\"",
                                         "\" lead\"",
                                         "\"trail \"",
                                         "\"=?utf-8?q?x?=\"",
                                         "\"a\\\\b\"",
                                         "\"a\\\"b\"",
                                         "\"\"",
                                         "",
                                         "\"unclosed",
                                         "\"x=\"",
                                         "\"=\"",
                                         "un quoted",
                                         "8\xe9it",
                                         "\"8\xe9it\"",
                                         "us-ascii'en'a%20b",
                                         "tok(comment)",
                                         "\"a\r\n b\"",
                                         "=?utf-8?b?eA==?=",
                                         "\"a=?\""};
static const char *const gen_seps[] = {"; ", ";", " ;\r\n\t", ";;", " ", "\r\n ;", ",", "; (c) "};

// gen_pick returns one element of `v` (`n` of them) chosen by `*state`.
static const char *gen_pick(uint32_t *state, const char *const *v, size_t n) {
  *state = *state * 1103515245u + 12345u;
  return v[(*state >> 16) % n];
}

// fast_vs_general parses the `len` bytes at `in` as a Content-Disposition
// (`disp`) or a Content-Type through the public call (the fast path when the
// value is simple) and through the general parser alone, with `pcap`
// parameters and `cap` bytes of text, and checks that both give the same
// result: status, flags, text and every string at the same offset. Returns
// true when the value parsed with no flag (the form the fast path takes).
static bool fast_vs_general(const char *in, size_t len, bool disp, size_t pcap, size_t cap) {
  char t1[4096], t2[4096];
  mp_param p1[8], p2[8];
  mp_content_type c1;
  mp_str ty2 = {0}, st2 = {0};
  size_t l1 = 7, l2 = 7, n1 = 0, n2 = 0;
  unsigned f1 = 0, f2 = 0;
  int r1, r2;
  ck_assert(pcap <= 8 && cap <= sizeof t1);
  memset(p1, 0, sizeof p1);
  memset(p2, 0, sizeof p2);
  // Different bytes in the two buffers: a byte that one parser leaves
  // unwritten cannot match by chance (a buffer keeps the last call's text).
  memset(t1, 0xa5, sizeof t1);
  memset(t2, 0x5a, sizeof t2);
  if (disp) {
    mp_content_disposition d1;
    r1 = mp_content_disposition_parse(&d1, p1, pcap, t1, cap, &l1, &f1, in, len);
    c1.type = d1.type;
    c1.subtype = (mp_str){NULL, 0};
    n1 = d1.num_params;
    r2 = mp_typed_mime_parse_general(&ty2, NULL, &n2, p2, pcap, t2, cap, &l2, &f2, in, len);
  } else {
    r1 = mp_content_type_parse(&c1, p1, pcap, t1, cap, &l1, &f1, in, len);
    n1 = c1.num_params;
    r2 = mp_typed_mime_parse_general(&ty2, &st2, &n2, p2, pcap, t2, cap, &l2, &f2, in, len);
  }
  ck_assert_msg(r1 == r2 && f1 == f2 && l1 == l2 && n1 == n2, "\"%.*s\": rc %d/%d flags %x/%x",
                (int)len, in, r1, r2, f1, f2);
  if (r1 != 0)
    return false;
  ck_assert_msg(memcmp(t1, t2, l1) == 0, "\"%.*s\"", (int)len, in);
  same_str(c1.type, t1, ty2, t2, in);
  same_str(c1.subtype, t1, st2, t2, in);
  for (size_t i = 0; i < n1; i++) {
    same_str(p1[i].name, t1, p2[i].name, t2, in);
    same_str(p1[i].value, t1, p2[i].value, t2, in);
    same_str(p1[i].charset, t1, p2[i].charset, t2, in);
    same_str(p1[i].language, t1, p2[i].language, t2, in);
    ck_assert_msg(p1[i].flags == p2[i].flags, "\"%.*s\"", (int)len, in);
  }
  return f1 == 0;
}

START_TEST(fast_matches_general) {
  uint32_t state = 1;
  size_t taken = 0;
  for (int iter = 0; iter < 20000; iter++) {
    char in[512];
    size_t len = 0;
    int n = iter % 5;
    len += (size_t)snprintf(in, sizeof in, "%s", gen_pick(&state, gen_types, 11));
    for (int k = 0; k < n && len < 400; k++)
      len += (size_t)snprintf(in + len, sizeof in - len, "%s%s=%s", gen_pick(&state, gen_seps, 8),
                              gen_pick(&state, gen_names, 12), gen_pick(&state, gen_values, 22));
    if (iter % 7 == 0)
      len += (size_t)snprintf(in + len, sizeof in - len, "%s", gen_pick(&state, gen_seps, 8));
    bool disp = iter % 3 == 0;
    size_t pcap = (size_t)(iter % 11 == 0 ? 1 : 8);
    size_t cap = iter % 13 == 0 ? 16 : mp_typed_text_max_len(len);
    taken += fast_vs_general(in, len, disp, pcap, cap);
  }
  // Both kinds of value were made: clean ones and repaired ones.
  ck_assert_uint_gt(taken, 1000);
}
END_TEST

// Values whose tokens (type, subtype, names, unquoted values) and quoted
// values are 15, 16, 17 and 30+ bytes long and start at every alignment, in
// mixed case: the fast path reads them 16 bytes a step (SSE2) with an
// overlapping last step, and short ones byte by byte; a value under 64
// bytes is classified whole into bit masks first.
static const char *const sweep_values[] = {
    "TeXt/PlAiN-1234567890abcdefGHIJ; CharSet-ABCDEFGHIJKLM=UTF-8_abcdefghijklmnopq",
    "ABCDEFGHIJKLMNOP/abcdefghijklmnopq; X=yY",
    "multipart/alternative; Boundary1234567=0123456789abcdefABCDEF",
    "Text/Plain;A=BcDe",
    "text/plain;a=bcd",
    "Application/Octet-Stream;Name=ABCDEFGHIJKLMNO;X-Y=1234567890abcdef",
    "multipart/mixed; boundary=\"----=_Part_0_1234567.1234567890\"",
    "a/b;n=\"Abc Def\tghi.txt\";m=\"0123456789abcdef\"",
    // 63 and 64 bytes: the longest value classified whole (FAST_SMALL) and
    // the shortest one scanned run by run; quoted runs of exactly 16 bytes
    // end at a '=' that must be copied too.
    "Text/X; boundary=\"0123456789abcdef=ABCDEFGHIJKLMNOP=\"; Q=rrrrrr",
    "Text/X; boundary=\"0123456789abcdef=ABCDEFGHIJKLMNOP=\"; Q=rrrrrrr",
};

// fast_byte_sweep puts every byte value at every position of each sweep
// value and compares the fast path with the general parser: every byte
// meets the SSE2 class test in every lane, next to the byte loop.
START_TEST(fast_byte_sweep) {
  const char *v = sweep_values[_i];
  size_t len = strlen(v), taken = 0;
  char in[128];
  ck_assert(len < sizeof in);
  ck_assert(fast_vs_general(v, len, false, 8, mp_typed_text_max_len(len)));
  for (size_t k = 0; k < len; k++)
    for (int b = 0; b < 256; b++) {
      memcpy(in, v, len);
      in[k] = (char)b;
      taken += fast_vs_general(in, len, false, 8, mp_typed_text_max_len(len));
      fast_vs_general(in, len, true, 8, mp_typed_text_max_len(len));
    }
  ck_assert_uint_gt(taken, len * 40); // the token bytes kept most values clean
}
END_TEST

// fast_duplicates compares the two parsers on repeated parameter names,
// which the fast path takes (the first one wins, MP_TYPED_REPAIRED): at the
// end, in the middle, three times, in other case, quoted or not, and with
// every byte value at every position of one of them, so that a repeat with
// anything the fast path must not take goes to the general parser whole.
START_TEST(fast_duplicates) {
  static const char *const dups[] = {
      "application/pdf; name=\"test.pdf\"; name=\"test.pdf\"",
      "a/b; x=1; X=2",
      "a/b; x=1; y=2; x=3; z=4",
      "a/b; x=1; x=\"2\"; x=3",
      "a/b;x=1;;x=2 ; y=\"v w\"",
      "a/b; Name=LongerFirstValue0123456789; nAME=\"short\"; q=1",
  };
  for (size_t d = 0; d < sizeof dups / sizeof dups[0]; d++) {
    size_t len = strlen(dups[d]);
    fast_vs_general(dups[d], len, false, 8, mp_typed_text_max_len(len));
    fast_vs_general(dups[d], len, true, 8, mp_typed_text_max_len(len));
    fast_vs_general(dups[d], len, false, 2, len + 16);
  }
  // The same parameters after a disposition and after a type/subtype.
  static const char *const swept[] = {"Inline; Name=\"Ab c.pdf\"; name=Xy.pdf; n=1",
                                      "A/b; Name=\"Ab c.pdf\"; name=Xy.pdf; n=1"};
  for (int t = 0; t < 2; t++) {
    size_t len = strlen(swept[t]);
    char in[64];
    ck_assert(len < sizeof in);
    for (size_t k = 0; k < len; k++)
      for (int b = 0; b < 256; b++) {
        memcpy(in, swept[t], len);
        in[k] = (char)b;
        fast_vs_general(in, len, t == 0, 8, mp_typed_text_max_len(len));
      }
  }
}
END_TEST

// fast_lengths gives the fast path values of every length from 1 to 80 and
// around its 512-byte limit, each in a heap block of exactly its size (so
// that ASan sees any read past the value: the fast path reads the value in
// place, 16 bytes a step, the last step from its final 16 bytes shifted, a
// value shorter than 16 bytes from 8-, 4- and 1-byte loads), with text
// buffers one byte short of, exactly at and well over the 16 bytes of room
// its 16-byte steps need past the value.
START_TEST(fast_lengths) {
  size_t taken = 0;
  for (size_t len = 1; len <= 530; len++) {
    if (len > 80 && len < 500)
      continue;
    char v[600];
    // "a/b" cut or grown with "; n=x..." and a quoted value to `len` bytes.
    int k = snprintf(v, sizeof v, "Text/Plain; Name=\"");
    for (; (size_t)k < len; k++)
      v[k] = (char)('A' + k % 26);
    v[len - 1] = '"';
    if (len < 20)
      memcpy(v, "Ab/Cd; x=yYzZ0123456789", len);
    char *in = malloc(len);
    ck_assert_ptr_nonnull(in);
    memcpy(in, v, len);
    size_t caps[] = {len + 15, len + 16, mp_typed_text_max_len(len)};
    for (size_t c = 0; c < 3; c++) {
      if (caps[c] > 4096)
        continue;
      taken += fast_vs_general(in, len, false, 8, caps[c]);
      fast_vs_general(in, len, true, 8, caps[c]);
    }
    free(in);
  }
  ck_assert_uint_gt(taken, 200);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_mime");
  TCase *tc = tcase_create("mime");
  tcase_add_loop_test(tc, parse_vectors, 0, (int)(sizeof vectors / sizeof vectors[0]));
  tcase_add_test(tc, disposition);
  tcase_add_test(tc, syntax_errors);
  suite_add_tcase(s, tc);
  // Its own case: 20,000 values through both parsers, under ASan on a
  // loaded machine, outlast Check's default 4 s.
  TCase *diff = tcase_create("fast");
  tcase_set_timeout(diff, 120);
  tcase_add_test(diff, fast_matches_general);
  tcase_add_test(diff, fast_lengths);
  tcase_add_test(diff, fast_duplicates);
  tcase_add_loop_test(diff, fast_byte_sweep, 0,
                      (int)(sizeof sweep_values / sizeof sweep_values[0]));
  suite_add_tcase(s, diff);
  return corvid_check_run(s);
}
