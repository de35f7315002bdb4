// test_select.c: body selection (src/select.c): each rule of RFC 8621
// §4.1.4's parseStructure() on messages written for it, the shapes real
// clients send (Apple Mail, Outlook, forwards, signed mail, calendars),
// filenames (RFC 2231, RFC 2047, fallback to the Content-Type name), the
// preview, and the error paths (small arrays, depth, allocator failure).
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "corvid_utf8_valid.h"
#include "encodify.h"
#include "mailparse.h"

#define CT(t) "Content-Type: " t "\r\n"
#define PART(hdrs, body) hdrs "\r\n" body "\r\n"
#define B "--b\r\n"
#define C "--c\r\n"
#define D "--d\r\n"

static const struct {
  const char *name;
  const char *msg;
  uint32_t root;
  const char *text, *html, *att; // part indices, comma separated
} cases[] = {
    {"single text/plain is both bodies", "Subject: x\r\n\r\nhello\r\n", 0, "0", "0", ""},
    {"single text/html is both bodies", "Content-Type: text/html\r\n\r\n<b>x</b>\r\n", 0, "0", "0",
     ""},
    {"disposition attachment wins even at the top",
     "Content-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\nx\r\n", 0, "", "", "0"},
    {"disposition compared without case",
     "Content-Type: text/plain\r\nContent-Disposition: ATTACHMENT; filename=a.txt\r\n\r\nx\r\n", 0,
     "", "", "0"},
    {"first part with a filename is still inline",
     "Content-Type: text/plain; name=a.txt\r\nContent-Disposition: inline; filename=a.txt\r\n"
     "\r\nx\r\n",
     0, "0", "0", ""},
    {"application at the top is an attachment", "Content-Type: application/pdf\r\n\r\n%PDF\r\n", 0,
     "", "", "0"},
    {"alternative: plain to text, html to html",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("text/html"), "<p>h</p>") "--b--\r\n",
     0, "1", "2", ""},
    {"alternative with only html copies it to text",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/html"), "<p>h</p>") "--b--\r\n",
     0, "1", "1", ""},
    {"alternative with only plain copies it to html",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p") "--b--\r\n", 0,
     "1", "1", ""},
    {"alternative: audio goes to attachments",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("audio/ogg"), "OggS") "--b--\r\n",
     0, "1", "1", "2"},
    {"mixed: text then pdf",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("application/pdf") "Content-Disposition: attachment; filename=r.pdf\r\n",
                "%PDF") "--b--\r\n",
     0, "1", "1", "2"},
    {"mixed: a second text part with a filename is an attachment",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("text/plain; name=notes.txt"), "n") "--b--\r\n",
     0, "1", "1", "2"},
    {"mixed: an empty filename counts as none",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("text/plain") "Content-Disposition: inline; filename=\"\"\r\n", "n") "--b--\r\n",
     0, "1,2", "1,2", ""},
    {"mixed: unnamed text parts are shown in sequence",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("text/html"), "<p>h</p>") B PART(CT("text/plain"), "q") "--b--\r\n",
     0, "1,2,3", "1,2,3", ""},
    {"mixed: inline image with a name is shown in both bodies",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("image/jpeg; name=cat.jpg"), "JFIF") "--b--\r\n",
     0, "1,2", "1,2", ""},
    {"mixed: image with disposition attachment",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("image/jpeg") "Content-Disposition: attachment\r\n", "JFIF") "--b--\r\n",
     0, "1", "1", "2"},
    {"attachment without disposition (octet-stream)",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("application/octet-stream"), "bytes") B PART(CT("text/csv"), "a,b") "--b--\r\n",
     0, "1", "1", "2,3"},
    {"Apple Mail: alternative of plain and related html with image",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("multipart/related; type=\"text/html\"; boundary=c"),
                "\r\n" C PART(CT("text/html"), "<img src=cid:i1>") C PART(
                    CT("image/png; name=a.png") "Content-ID: <i1>\r\n"
                                                "Content-Disposition: inline; filename=a.png\r\n",
                    "PNG") "--c--") "--b--\r\n",
     0, "1", "3", "4"},
    {"Outlook: related of alternative and inline images, then a pdf",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(
         CT("multipart/related; boundary=c"),
         "\r\n" C PART(CT("multipart/alternative; boundary=d"),
                       "\r\n" D PART(CT("text/plain; charset=us-ascii"), "p") D PART(
                           CT("text/html; charset=us-ascii"), "<img src=cid:image001>") "--d--")
             C PART(CT("image/png; name=image001.png") "Content-ID: "
                                                       "<image001>\r\nContent-Disposition: inline; "
                                                       "filename=image001.png\r\n",
                    "PNG") "--c--")
         B PART(CT("application/pdf; name=q.pdf") "Content-Disposition: attachment; "
                                                  "filename=q.pdf\r\n",
                "%PDF") "--b--\r\n",
     0, "3", "4", "5,6"},
    {"forwarded message: the message/rfc822 part is one attachment",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "see below")
         B PART(CT("message/rfc822"),
                "Subject: inner\r\n" CT("multipart/alternative; boundary=c") "\r\n" C PART(
                    CT("text/plain"), "ip") C PART(CT("text/html"), "ih") "--c--") "--b--\r\n",
     0, "1", "1", "2"},
    {"forwarded message selected from its own root",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "see below")
         B PART(CT("message/rfc822"),
                "Subject: inner\r\n" CT("multipart/alternative; boundary=c") "\r\n" C PART(
                    CT("text/plain"), "ip") C PART(CT("text/html"), "ih") "--c--") "--b--\r\n",
     3, "4", "5", ""},
    {"text, html and attachments",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("multipart/alternative; boundary=c"),
                                                     "\r\n" C PART(CT("text/plain"), "p")
                                                         C PART(CT("text/html"), "h") "--c--")
         B PART(CT("application/pdf") "Content-Disposition: attachment; filename=a.pdf\r\n", "%PDF")
             B PART(CT("image/jpeg") "Content-Disposition: attachment; filename=b.jpg\r\n",
                    "JFIF") "--b--\r\n",
     0, "2", "3", "4,5"},
    {"nested alternatives",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p") B PART(
         CT("multipart/alternative; boundary=c"),
         "\r\n" C PART(CT("text/html"), "h") C PART(CT("text/plain"), "q") "--c--") "--b--\r\n",
     0, "1,4", "3", ""},
    {"under an alternative, html stops the text list for its multipart",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "p")
         B PART(CT("multipart/mixed; boundary=c"), "\r\n" C PART(CT("text/html"), "h") C PART(
                                                       CT("image/gif"), "GIF") "--c--") "--b--\r\n",
     0, "1", "3,4", "4"},
    {"under an alternative, plain stops the html list for its multipart",
     CT("multipart/alternative; boundary=b") "\r\n" B PART(
         CT("multipart/mixed; boundary=c"),
         "\r\n" C PART(CT("text/plain"), "p") C PART(CT("image/gif"), "GIF") "--c--")
         B PART(CT("text/html"), "h") "--b--\r\n",
     0, "2,3", "4", "3"},
    {"related: only the first part is a body",
     CT("multipart/related; boundary=b") "\r\n" B PART(CT("text/html"), "h")
         B PART(CT("text/plain"), "p") B PART(CT("image/png"), "PNG") "--b--\r\n",
     0, "1", "1", "2,3"},
    {"calendar invitation",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(
         CT("multipart/alternative; boundary=c"),
         "\r\n" C PART(CT("text/plain"), "p") C PART(CT("text/html"), "h")
             C PART(CT("text/calendar; method=REQUEST"), "BEGIN:VCALENDAR") "--c--")
         B PART(CT("application/ics; name=invite.ics") "Content-Disposition: attachment; "
                                                       "filename=invite.ics\r\n",
                "BEGIN:VCALENDAR") "--b--\r\n",
     0, "2", "3", "4,5"},
    {"signed multipart wrapping an alternative",
     CT("multipart/signed; protocol=\"application/pgp-signature\"; boundary=b") "\r\n" B PART(
         CT("multipart/alternative; boundary=c"),
         "\r\n" C PART(CT("text/plain"), "p") C PART(CT("text/html"), "h") "--c--")
         B PART(CT("application/pgp-signature; name=signature.asc"), "-----BEGIN PGP") "--b--\r\n",
     0, "2", "3", "4"},
    {"multipart without boundary is kept as an attachment",
     CT("multipart/mixed") "\r\nno boundary here\r\n", 0, "", "", "0"},
    {"digest members default to message/rfc822",
     CT("multipart/digest; boundary=b") "\r\n" B PART("", "Subject: one\r\n\r\nbody") "--b--\r\n",
     0, "", "", "1"},
    {"html only in mixed with an attachment",
     CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("multipart/related; boundary=c"),
                                                     "\r\n" C PART(CT("text/html"), "h")
                                                         C PART(CT("image/png"), "PNG") "--c--")
         B PART(CT("application/zip"), "PK") "--b--\r\n",
     0, "2", "2", "3,4"},
};

static void expect_list(const char *what, int ci, const uint32_t *got, size_t n, const char *want) {
  char buf[256] = "";
  size_t len = 0;
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%u", i ? "," : "", got[i]);
  ck_assert_msg(strcmp(buf, want) == 0, "case %d (%s) %s: got [%s], want [%s]", ci, cases[ci].name,
                what, buf, want);
}

START_TEST(test_select_cases) {
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, cases[_i].msg, strlen(cases[_i].msg), NULL), 0);
  size_t cap = mp_message_select_max_len(m);
  ck_assert_uint_eq(cap, 3 * mp_message_num_parts(m));
  uint32_t *idx = malloc(cap * sizeof *idx);
  mp_selection sel;
  ck_assert_int_eq(mp_message_select(m, &sel, idx, cap, cases[_i].root), 0);
  expect_list("text_body", _i, sel.text_body, sel.num_text_body, cases[_i].text);
  expect_list("html_body", _i, sel.html_body, sel.num_html_body, cases[_i].html);
  expect_list("attachments", _i, sel.attachments, sel.num_attachments, cases[_i].att);
  // The exact size is enough, one less is not.
  size_t need = sel.num_text_body + sel.num_html_body + sel.num_attachments;
  mp_selection s2;
  ck_assert_int_eq(mp_message_select(m, &s2, idx, need, cases[_i].root), 0);
  ck_assert_uint_eq(s2.num_attachments, sel.num_attachments);
  if (need > 0) {
    ck_assert_int_eq(mp_message_select(m, &s2, idx, need - 1, cases[_i].root),
                     MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(s2.num_text_body + s2.num_html_body + s2.num_attachments, 0);
  }
  free(idx);
  mp_message_free(m);
}
END_TEST

static const struct {
  const char *headers;
  int found;
  const char *want;
} fname_cases[] = {
    {"Content-Disposition: attachment; filename=report.pdf\r\n", 1, "report.pdf"},
    {"Content-Type: application/pdf; name=\"from type.pdf\"\r\n", 1, "from type.pdf"},
    {"Content-Type: application/pdf; name=type.pdf\r\n"
     "Content-Disposition: attachment; filename=disp.pdf\r\n",
     1, "disp.pdf"},
    {"Content-Type: application/pdf; name=type.pdf\r\nContent-Disposition: attachment\r\n", 1,
     "type.pdf"},
    {"Content-Disposition: attachment; filename*=UTF-8''caf%C3%A9%20menu.txt\r\n", 1,
     "caf\xc3\xa9 menu.txt"},
    {"Content-Disposition: attachment; filename*=iso-8859-1'fr'r%E9sum%E9.doc\r\n", 1,
     "r\xc3\xa9sum\xc3\xa9.doc"},
    {"Content-Disposition: attachment; filename*0=\"long\"; filename*1=\"_name.txt\"\r\n", 1,
     "long_name.txt"},
    {"Content-Type: text/plain; name=\"=?UTF-8?B?w6kudHh0?=\"\r\n", 1, "\xc3\xa9.txt"},
    {"Content-Disposition: inline; filename=\"\"\r\n", 1, ""},
    {"Content-Type: text/plain\r\nContent-Disposition: attachment\r\n", 0, ""},
    {"Subject: none\r\n", 0, ""},
};

START_TEST(test_filename_cases) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s\r\nbody\r\n", fname_cases[_i].headers);
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, strlen(msg), NULL), 0);
  size_t need = 99, n = 99;
  ck_assert_int_eq(mp_part_filename(m, 0, NULL, 0, &need), fname_cases[_i].found);
  ck_assert_uint_eq(need, strlen(fname_cases[_i].want));
  char out[128];
  ck_assert_int_eq(mp_part_filename(m, 0, out, need, &n), fname_cases[_i].found);
  ck_assert_uint_eq(n, need);
  ck_assert_msg(memcmp(out, fname_cases[_i].want, n) == 0, "case %d: got %.*s", _i, (int)n, out);
  if (need > 0) {
    ck_assert_int_eq(mp_part_filename(m, 0, out, need - 1, &n), MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n, 0);
  }
  mp_message_free(m);
}
END_TEST

// preview parses `msg`, selects and returns its preview (static buffer).
static const char *preview(const char *msg, size_t len) {
  static char out[MP_PREVIEW_MAX_LEN + 1];
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, len, NULL), 0);
  uint32_t idx[64];
  mp_selection sel;
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 64, 0), 0);
  size_t n = 0;
  ck_assert_int_eq(mp_message_preview(m, out, MP_PREVIEW_MAX_LEN, &n, &sel), 0);
  ck_assert(corvid_utf8_valid((const uint8_t *)out, n));
  if (n > 0) {
    size_t n2 = 0;
    ck_assert_int_eq(mp_message_preview(m, out, n - 1, &n2, &sel), MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n2, 0);
    ck_assert_int_eq(mp_message_preview(m, out, n, &n2, &sel), 0);
    ck_assert_uint_eq(n2, n);
  }
  out[n] = 0;
  mp_message_free(m);
  return out;
}

static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    n += ((uint8_t)*s & 0xc0) != 0x80;
  return n;
}

START_TEST(test_preview) {
  const char *m1 = "Subject: x\r\n\r\n  Hello,\r\n\r\n\tworld \x01 !  \r\n";
  ck_assert_str_eq(preview(m1, strlen(m1)), "Hello, world !");
  const char *m2 = CT("text/html; charset=utf-8") "\r\n<html><head><style>p{color:red}</style>"
                                                  "</head><body><p>Hi&nbsp;<b>there</b></p>"
                                                  "<p>caf&eacute;</p></body></html>\r\n";
  ck_assert_str_eq(preview(m2, strlen(m2)), "Hi there caf\xc3\xa9");
  const char *m3 = CT("text/plain; charset=iso-8859-1") "Content-Transfer-Encoding: "
                                                        "quoted-printable\r\n\r\ncaf=E9 cr=\r\n"
                                                        "\xe8me\r\n";
  ck_assert_str_eq(preview(m3, strlen(m3)), "caf\xc3\xa9 cr\xc3\xa8me");
  const char *m4 = CT("text/plain; charset=utf-8") "Content-Transfer-Encoding: base64\r\n\r\n"
                                                   "w6ljaG8gIGVjaG8=\r\n";
  ck_assert_str_eq(preview(m4, strlen(m4)), "\xc3\xa9"
                                            "cho echo");
  // Alternative: the preview reads the text body, not the HTML.
  const char *m5 =
      CT("multipart/alternative; boundary=b") "\r\n" B PART(CT("text/plain"), "plain words")
          B PART(CT("text/html"), "<p>html words</p>") "--b--\r\n";
  ck_assert_str_eq(preview(m5, strlen(m5)), "plain words");
  // HTML only: converted to text.
  const char *m6 = CT("multipart/alternative; boundary=b") "\r\n" B PART(
      CT("text/html"), "<div>only</div>"
                       "<div>html</div>") "--b--\r\n";
  ck_assert_str_eq(preview(m6, strlen(m6)), "only html");
  // Parts in sequence are joined with one space; attachments are not read.
  const char *m7 = CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "one\r\n")
      B PART(CT("image/png"), "PNG") B PART(CT("text/plain"), "  two")
          B PART(CT("text/plain") "Content-Disposition: attachment\r\n", "never") "--b--\r\n";
  ck_assert_str_eq(preview(m7, strlen(m7)), "one two");
  // No text at all.
  const char *m8 = CT("application/pdf") "\r\n%PDF\r\n";
  ck_assert_str_eq(preview(m8, strlen(m8)), "");
}
END_TEST

START_TEST(test_preview_cut_at_256_chars) {
  // 300 "é" separated by white space: at most 256 characters, never
  // ending with a space.
  size_t cap = 64 + 300 * 4;
  char *msg = malloc(cap);
  size_t n = (size_t)snprintf(msg, cap, "Content-Type: text/plain; charset=utf-8\r\n\r\n");
  for (int i = 0; i < 300; i++) {
    memcpy(msg + n, "\xc3\xa9  ", 4);
    n += 4;
  }
  const char *p = preview(msg, n);
  // The 256th character would be a space: the preview ends one before.
  ck_assert_uint_eq(utf8_chars(p), MP_PREVIEW_MAX_CHARS - 1);
  ck_assert_uint_eq(strlen(p), 128 * 2 + 127); // 128 "é" and 127 spaces
  ck_assert_int_ne(p[strlen(p) - 1], ' ');
  free(msg);
  // Only 4-byte characters: the bound MP_PREVIEW_MAX_LEN is reached exactly.
  msg = malloc(64 + 400 * 4);
  n = (size_t)snprintf(msg, 64, "Content-Type: text/plain; charset=utf-8\r\n\r\n");
  for (int i = 0; i < 400; i++) {
    memcpy(msg + n, "\xf0\x9f\x98\x80", 4);
    n += 4;
  }
  p = preview(msg, n);
  ck_assert_uint_eq(strlen(p), MP_PREVIEW_MAX_LEN);
  free(msg);
}
END_TEST

// big_body builds a message: `hdrs`, then `pad` copies of `fill`, then `tail`.
static char *big_body(const char *hdrs, const char *fill, size_t pad, const char *tail,
                      size_t *len) {
  size_t cap = strlen(hdrs) + pad * strlen(fill) + strlen(tail) + 1, n = 0;
  char *m = malloc(cap);
  n += (size_t)snprintf(m, cap, "%s", hdrs);
  for (size_t i = 0; i < pad; i++)
    n += (size_t)snprintf(m + n, cap - n, "%s", fill);
  n += (size_t)snprintf(m + n, cap - n, "%s", tail);
  *len = n;
  return m;
}

START_TEST(test_preview_reads_further_when_needed) {
  size_t n;
  // Text after 5000 blank lines: the first short read finds nothing.
  char *m = big_body(CT("text/plain") "\r\n", "\r\n", 5000, "late text\r\n", &n);
  ck_assert_str_eq(preview(m, n), "late text");
  free(m);
  // A style sheet longer than the first reads before the HTML's text.
  m = big_body(CT("text/html") "\r\n<html><head><style>", "p { margin: 0 }\r\n", 3000,
               "</style></head><body><p>Body text</p></body></html>\r\n", &n);
  ck_assert_str_eq(preview(m, n), "Body text");
  free(m);
  // Base64 of 3000 "é" without white space, wrapped at 76 columns (57 bytes
  // a line, so reads cut at a line break split a character): the preview
  // never shows U+FFFD, and is 256 "é".
  char *raw = malloc(6000), *b64 = malloc(9000);
  for (int i = 0; i < 3000; i++)
    memcpy(raw + 2 * i, "\xc3\xa9", 2);
  size_t bn = 0;
  ck_assert_int_eq(enc_encode(ENC_CODEC_BASE64, 0, 76, b64, 9000, &bn, raw, 6000, NULL), 0);
  b64[bn] = 0;
  m = big_body(CT("text/plain; charset=utf-8") "Content-Transfer-Encoding: base64\r\n\r\n", b64, 1,
               "\r\n", &n);
  free(raw);
  free(b64);
  const char *p = preview(m, n);
  ck_assert_uint_eq(strlen(p), 2 * MP_PREVIEW_MAX_CHARS);
  for (size_t i = 0; i < strlen(p); i += 2)
    ck_assert(p[i] == '\xc3' && p[i + 1] == '\xa9');
  free(m);
}
END_TEST

START_TEST(test_select_errors) {
  const char *msg =
      CT("multipart/mixed; boundary=b") "\r\n" B PART(CT("text/plain"), "p") "--b--\r\n";
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, strlen(msg), NULL), 0);
  uint32_t idx[8];
  mp_selection sel;
  ck_assert_int_eq(mp_message_select(NULL, &sel, idx, 8, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_select(m, NULL, idx, 8, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_select(m, &sel, NULL, 8, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 8, 2), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 1, 0), MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(mp_message_select_max_len(NULL), 0);
  size_t n;
  ck_assert_int_eq(mp_part_filename(m, 2, NULL, 0, &n), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_part_filename(m, 0, NULL, 5, &n), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_part_filename(m, 0, NULL, 0, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 8, 0), 0);
  char out[16];
  ck_assert_int_eq(mp_message_preview(m, out, sizeof out, NULL, &sel), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_preview(m, out, sizeof out, &n, NULL), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_message_preview(m, NULL, 3, &n, &sel), MP_ERR_INVALID_ARGUMENT);
  uint32_t bad = 7;
  mp_selection bsel = {&bad, 1, NULL, 0, NULL, 0};
  ck_assert_int_eq(mp_message_preview(m, out, sizeof out, &n, &bsel), MP_ERR_INVALID_ARGUMENT);
  mp_message_free(m);
}
END_TEST

START_TEST(test_select_depth_limit) {
  // 300 nested multiparts (the parser allows it with a raised limit):
  // selection stops at MP_SELECT_MAX_DEPTH with MP_ERR_LIMIT.
  enum { LEVELS = 300 };
  size_t cap = LEVELS * 80 + 256, n = 0;
  char *msg = malloc(cap);
  for (int i = 0; i < LEVELS; i++)
    n += (size_t)snprintf(msg + n, cap - n,
                          "Content-Type: multipart/mixed; boundary=x%d\r\n\r\n--x%d\r\n", i, i);
  n += (size_t)snprintf(msg + n, cap - n, "\r\nleaf\r\n");
  mp_settings s = MP_SETTINGS_INIT;
  s.max_depth = 1000;
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, &s, msg, n, NULL), 0);
  ck_assert_uint_eq(mp_message_num_parts(m), LEVELS + 1);
  size_t icap = mp_message_select_max_len(m);
  uint32_t *idx = malloc(icap * sizeof *idx);
  mp_selection sel;
  ck_assert_int_eq(mp_message_select(m, &sel, idx, icap, 0), MP_ERR_LIMIT);
  // From a root deep enough, the same leaf is found.
  ck_assert_int_eq(mp_message_select(m, &sel, idx, icap, 100), 0);
  ck_assert_uint_eq(sel.num_text_body, 1);
  ck_assert_uint_eq(sel.text_body[0], LEVELS);
  free(idx);
  free(msg);
  mp_message_free(m);
}
END_TEST

// A counting allocator that fails once the parse is done.
static int alloc_budget;
static void *fail_alloc(void *opaque, size_t size) {
  (void)opaque;
  if (alloc_budget <= 0)
    return NULL;
  alloc_budget--;
  return malloc(size);
}
static void fail_free(void *opaque, void *p) {
  (void)opaque;
  free(p);
}

START_TEST(test_select_enomem) {
  const char *msg = CT("text/plain; name=a.txt") "\r\nhello\r\n";
  mp_settings s = MP_SETTINGS_INIT;
  s.allocator.alloc = fail_alloc;
  s.allocator.free = fail_free;
  alloc_budget = 1000;
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, &s, msg, strlen(msg), NULL), 0);
  alloc_budget = 0;
  uint32_t idx[4];
  mp_selection sel;
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 4, 0), -ENOMEM);
  size_t n;
  ck_assert_int_eq(mp_part_filename(m, 0, NULL, 0, &n), -ENOMEM);
  alloc_budget = 1000;
  ck_assert_int_eq(mp_message_select(m, &sel, idx, 4, 0), 0);
  alloc_budget = 0;
  char out[MP_PREVIEW_MAX_LEN];
  ck_assert_int_eq(mp_message_preview(m, out, sizeof out, &n, &sel), -ENOMEM);
  alloc_budget = 1000;
  ck_assert_int_eq(mp_message_preview(m, out, sizeof out, &n, &sel), 0);
  ck_assert_uint_eq(n, 5);
  mp_message_free(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("select");
  TCase *tc = tcase_create("select");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_select_cases, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_loop_test(tc, test_filename_cases, 0,
                      (int)(sizeof fname_cases / sizeof fname_cases[0]));
  tcase_add_test(tc, test_preview);
  tcase_add_test(tc, test_preview_cut_at_256_chars);
  tcase_add_test(tc, test_preview_reads_further_when_needed);
  tcase_add_test(tc, test_select_errors);
  tcase_add_test(tc, test_select_depth_limit);
  tcase_add_test(tc, test_select_enomem);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
