// test_breakage.c: one written message per RFC rule and per real-world
// breakage that the parser must survive (RFC 5322, RFC 2045/2046, RFC 6532
// and what mail in the wild does instead), each checked against the whole
// parse: every part's type, flags, header and body ranges, preamble and
// epilogue, encoding and decoded bytes, every flagged header field and every
// problem with its part and offset. The expected parse is written out as
// text (see render()) so that a case reads as the answer it demands.
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mailparse.h"

// Rendering. One line per part:
//   P<i>[<<parent>] <type>/<sub> [boundary=..] [charset=..] <PART flags>
//     h=<off>+<len> b=<off>+<len> [<enc>] [pre=<off>+<len> epi=<off>+<len>]
//     ["decoded"]
// (pre/epi for multiparts, the decoded body for leaves, escaped), then one
// line per header field with flags ("H<i> p<part> <HEADER flags>") and one
// per problem ("!<KIND> p<part> @<offset>").

static void put(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *out, size_t cap, const char *fmt, ...) {
  size_t n = strlen(out);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out + n, cap - n, fmt, ap);
  va_end(ap);
}

static void put_flags(char *out, size_t cap, uint32_t flags, const char *const *names,
                      size_t num_names) {
  for (size_t i = 0; i < num_names; i++)
    if (flags & (1u << i))
      put(out, cap, " %s", names[i]);
  if (flags >> num_names)
    put(out, cap, " 0x%x", flags >> num_names << num_names);
}

static void put_escaped(char *out, size_t cap, const uint8_t *p, size_t len) {
  put(out, cap, " \"");
  for (size_t i = 0; i < len && i < 80; i++) {
    if (p[i] == '\r')
      put(out, cap, "\\r");
    else if (p[i] == '\n')
      put(out, cap, "\\n");
    else if (p[i] == '"' || p[i] == '\\')
      put(out, cap, "\\%c", p[i]);
    else if (p[i] < 0x20 || p[i] >= 0x7f)
      put(out, cap, "\\x%02x", p[i]);
    else
      put(out, cap, "%c", p[i]);
  }
  put(out, cap, len > 80 ? "\"..." : "\"");
}

static const char *const part_flags[] = {"MULTIPART", "MESSAGE",     "DEFAULT_TYPE", "NO_BOUNDARY",
                                         "NO_END",    "UNKNOWN_CTE", "TOO_DEEP",     "NO_BODY"};
static const char *const header_flags[] = {"NO_COLON",  "NAME_WSP", "8BIT",     "NUL",
                                           "LONG_LINE", "BARE_LF",  "CONTINUED"};
static const char *const problem_names[] = {"NO_COLON", "NUL",         "LONG_LINE", "DEPTH",
                                            "PARTS",    "HEADERS",     "WORK",      "NO_BOUNDARY",
                                            "NO_END",   "UNKNOWN_CTE", "NO_BODY",   "BAD_CTYPE"};
static const char *const encodings[] = {"7bit", "8bit", "binary", "qp", "base64", "unknown"};

static void render(const mp_message *m, char *out, size_t cap) {
  out[0] = '\0';
  for (uint32_t i = 0; i < mp_message_num_parts(m); i++) {
    const mp_part *p = mp_message_part(m, i);
    put(out, cap, "P%u", i);
    if (p->parent != MP_NO_INDEX)
      put(out, cap, "<%u", p->parent);
    put(out, cap, " %.*s/%.*s", (int)p->type.len, p->type.p, (int)p->subtype.len, p->subtype.p);
    if (p->boundary.p != NULL)
      put(out, cap, " boundary=%.*s", (int)p->boundary.len, p->boundary.p);
    if (p->charset.p != NULL)
      put(out, cap, " charset=%.*s", (int)p->charset.len, p->charset.p);
    put_flags(out, cap, p->flags, part_flags, 8);
    put(out, cap, " h=%zu+%zu b=%zu+%zu", p->header.off, p->header.len, p->body.off, p->body.len);
    if (p->encoding != MP_ENCODING_7BIT)
      put(out, cap, " %s", encodings[p->encoding]);
    if (p->flags & MP_PART_MULTIPART) {
      put(out, cap, " pre=%zu+%zu epi=%zu+%zu", p->preamble.off, p->preamble.len, p->epilogue.off,
          p->epilogue.len);
    } else if (!(p->flags & MP_PART_MESSAGE)) {
      size_t n = 0;
      ck_assert_int_eq(mp_part_decode(m, i, NULL, 0, &n), 0);
      uint8_t *buf = malloc(n + 1);
      size_t got = 0;
      ck_assert_int_eq(mp_part_decode(m, i, buf, n, &got), 0);
      ck_assert_uint_eq(got, n);
      put_escaped(out, cap, buf, n);
      free(buf);
    }
    put(out, cap, "\n");
  }
  for (size_t i = 0; i < mp_message_num_headers(m); i++) {
    const mp_header *h = mp_message_header(m, i);
    if (h->flags == 0)
      continue;
    put(out, cap, "H%zu p%u", i, h->part);
    put_flags(out, cap, h->flags, header_flags, 7);
    put(out, cap, "\n");
  }
  for (size_t i = 0; i < mp_message_num_problems(m); i++) {
    const mp_problem *pr = mp_message_problem(m, i);
    put(out, cap, "!%s p%d @%zu\n", pr->kind < 12 ? problem_names[pr->kind] : "?",
        pr->part == MP_NO_INDEX ? -1 : (int)pr->part, pr->offset);
  }
}

// A case: its name, the message (`len` 0: up to the NUL), the settings'
// limits (0: default) and the expected rendering.
struct bcase {
  const char *name;
  const char *msg;
  size_t len;
  uint32_t max_depth, max_parts, max_headers;
  const char *want;
};

static const struct bcase cases[] = {
    {"RFC 5322 2.2.3: folded Content-Type with parameters on continuation lines",
     "Content-Type: multipart/mixed;\r\n"
     "\tboundary=\"b\";\r\n"
     " charset=us-ascii\r\n"
     "Subject: a\r\n"
     "  folded\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "one\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b charset=us-ascii MULTIPART h=0+91 b=91+19 pre=91+0 "
     "epi=110+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=96+2 b=98+3 \"one\"\n"},
    {"RFC 5322 4.5: obsolete whitespace before the colon",
     "Content-Type  : text/html\r\n"
     "Content-Transfer-Encoding\t: base64\r\n"
     "\r\n"
     "aGk=\r\n",
     0, 0, 0, 0,
     "P0 text/html h=0+65 b=65+6 base64 \"hi\"\n"
     "H0 p0 NAME_WSP\n"
     "H1 p0 NAME_WSP\n"},
    {"RFC 5322 4.2: obs-FWS, a whitespace-only line inside a folded field",
     "Content-Type: text/plain;\r\n"
     " \r\n"
     " charset=utf-8\r\n"
     "\r\n"
     "x",
     0, 0, 0, 0, "P0 text/plain charset=utf-8 h=0+48 b=48+1 \"x\"\n"},
    {"bare LF line ends everywhere",
     "Content-Type: multipart/mixed; boundary=b\n"
     "\n"
     "--b\n"
     "Content-Type: text/html\n"
     "\n"
     "<p>\n"
     "--b--\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+43 b=43+39 pre=43+0 epi=82+0\n"
     "P1<0 text/html h=47+25 b=72+3 \"<p>\"\n"
     "H0 p0 BARE_LF\n"
     "H1 p1 BARE_LF\n"},
    {"mixed CRLF and LF line ends around delimiters",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\n"
     "\n"
     "lf part\r\n"
     "--b\r\n"
     "\r\n"
     "crlf part\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+38 pre=47+0 epi=85+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=51+1 b=52+7 \"lf part\"\n"
     "P2<0 text/plain DEFAULT_TYPE h=66+2 b=68+9 \"crlf part\"\n"},
    {"RFC 6532: raw UTF-8 and 8-bit header values",
     "Subject: caf\xc3\xa9\r\n"
     "From: J\xfcrgen <j@x>\r\n"
     "Content-Type: text/plain; name=\"\xe6\x97\xa5.txt\"\r\n"
     "\r\n"
     "body",
     0, 0, 0, 0,
     "P0 text/plain h=0+80 b=80+4 \"body\"\n"
     "H0 p0 8BIT\n"
     "H1 p0 8BIT\n"
     "H2 p0 8BIT\n"},
    {"line without a colon inside a part header (Python msg_38)",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "Content-Type: text/html\r\n"
     "and \r\n"
     "\r\n"
     "x\r\n"
     "--b\r\n"
     "and only\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+63 pre=47+0 epi=110+0\n"
     "P1<0 text/html h=52+33 b=85+1 \"x\"\n"
     "P2<0 text/plain DEFAULT_TYPE NO_BODY h=93+10 b=103+0 \"\"\n"
     "H2 p1 NO_COLON\n"
     "H3 p2 NO_COLON\n"
     "!NO_COLON p1 @77\n"
     "!NO_COLON p2 @93\n"
     "!NO_BODY p2 @103\n"},
    {"broken fold: a parameter line without leading whitespace (enmime bad-header-wrap)",
     "Content-Type: application/zip;\r\n"
     "name=\"a.zip\"\r\n"
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "PGh0bWw+Cg==\r\n",
     0, 0, 0, 0,
     "P0 application/zip h=0+83 b=83+14 base64 \"<html>\\n\"\n"
     "H1 p0 NO_COLON\n"
     "!NO_COLON p0 @32\n"},
    {"mbox From_ line before the header",
     "From someone@x Mon Jan  1 00:00:00 2024\r\n"
     "Subject: s\r\n"
     "\r\n"
     "b",
     0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE h=0+55 b=55+1 \"b\"\n"},
    {"NUL bytes in a header and in the body",
     "Subject: a\x00"
     "b\r\n"
     "\r\n"
     "x\x00y",
     19, 0, 0, 0,
     "P0 text/plain DEFAULT_TYPE h=0+16 b=16+3 \"x\\x00y\"\n"
     "H0 p0 NUL\n"
     "!NUL p0 @10\n"},
    {"RFC 2046 5.1.1: preamble, epilogue and transport padding",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "preamble\r\n"
     "--b  \t\r\n"
     "\r\n"
     "one\r\n"
     "--b--\t \r\n"
     "epilogue\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+44 pre=47+8 epi=81+10\n"
     "P1<0 text/plain DEFAULT_TYPE h=65+2 b=67+3 \"one\"\n"},
    {"missing closing delimiter of an inner multipart",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "Content-Type: multipart/alternative; boundary=c\r\n"
     "\r\n"
     "--c\r\n"
     "\r\n"
     "in\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+74 pre=47+0 epi=121+0\n"
     "P1<0 multipart/alternative boundary=c MULTIPART NO_END h=52+51 b=103+9 pre=103+0 "
     "epi=0+0\n"
     "P2<1 text/plain DEFAULT_TYPE h=108+2 b=110+2 \"in\"\n"
     "!NO_END p1 @112\n"},
    {"missing closing delimiter at the end of the message",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "one\r\n"
     "--b\r\n"
     "\r\n"
     "two\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART NO_END h=0+47 b=47+24 pre=47+0 epi=0+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=52+2 b=54+3 \"one\"\n"
     "P2<0 text/plain DEFAULT_TYPE h=64+2 b=66+5 \"two\\r\\n\"\n"
     "!NO_END p0 @71\n"},
    {"boundaries that are prefixes of each other",
     "Content-Type: multipart/mixed; boundary=\"=_a\"\r\n"
     "\r\n"
     "--=_a\r\n"
     "Content-Type: multipart/alternative; boundary=\"=_a_1\"\r\n"
     "\r\n"
     "--=_a_1\r\n"
     "\r\n"
     "inner\r\n"
     "--=_a_1--\r\n"
     "--=_a\r\n"
     "\r\n"
     "outer\r\n"
     "--=_a--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary==_a MULTIPART h=0+49 b=49+118 pre=49+0 epi=167+0\n"
     "P1<0 multipart/alternative boundary==_a_1 MULTIPART h=56+57 b=113+27 pre=113+0 "
     "epi=142+0\n"
     "P2<1 text/plain DEFAULT_TYPE h=122+2 b=124+5 \"inner\"\n"
     "P3<0 text/plain DEFAULT_TYPE h=149+2 b=151+5 \"outer\"\n"},
    {"nested multiparts three levels deep",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "Content-Type: multipart/related; boundary=c\r\n"
     "\r\n"
     "--c\r\n"
     "Content-Type: multipart/alternative; boundary=d\r\n"
     "\r\n"
     "--d\r\n"
     "\r\n"
     "text\r\n"
     "--d\r\n"
     "Content-Type: text/html\r\n"
     "\r\n"
     "<b>\r\n"
     "--d--\r\n"
     "--c\r\n"
     "Content-Type: image/png\r\n"
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "iVBO\r\n"
     "--c--\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+252 pre=47+0 epi=299+0\n"
     "P1<0 multipart/related boundary=c MULTIPART h=52+47 b=99+191 pre=99+0 epi=292+0\n"
     "P2<1 multipart/alternative boundary=d MULTIPART h=104+51 b=155+55 pre=155+0 "
     "epi=212+0\n"
     "P3<2 text/plain DEFAULT_TYPE h=160+2 b=162+4 \"text\"\n"
     "P4<2 text/html h=173+27 b=200+3 \"<b>\"\n"
     "P5<1 image/png h=217+62 b=279+4 base64 \"\\x89PN\"\n"},
    {"message/rfc822 holding message/global holding a multipart",
     "Content-Type: message/rfc822\r\n"
     "\r\n"
     "Subject: outer\r\n"
     "Content-Type: message/global\r\n"
     "\r\n"
     "Subject: \xc3\xa9\r\n"
     "Content-Type: multipart/mixed; boundary=z\r\n"
     "\r\n"
     "--z\r\n"
     "\r\n"
     "leaf\r\n"
     "--z--\r\n",
     0, 0, 0, 0,
     "P0 message/rfc822 MESSAGE h=0+32 b=32+126\n"
     "P1<0 message/global MESSAGE h=32+48 b=80+78\n"
     "P2<1 multipart/mixed boundary=z MULTIPART h=80+58 b=138+20 pre=138+0 epi=158+0\n"
     "P3<2 text/plain DEFAULT_TYPE h=143+2 b=145+4 \"leaf\"\n"
     "H3 p2 8BIT\n"},
    {"message/rfc822 with base64 and message/delivery-status stay leaves",
     "Content-Type: multipart/report; boundary=r\r\n"
     "\r\n"
     "--r\r\n"
     "Content-Type: message/delivery-status\r\n"
     "\r\n"
     "Reporting-MTA: dns; x\r\n"
     "\r\n"
     "Action: failed\r\n"
     "--r\r\n"
     "Content-Type: message/rfc822\r\n"
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "U3ViamVjdDogeA0KDQp5\r\n"
     "--r--\r\n",
     0, 0, 0, 0,
     "P0 multipart/report boundary=r MULTIPART h=0+46 b=46+188 pre=46+0 epi=234+0\n"
     "P1<0 message/delivery-status h=51+41 b=92+39 \"Reporting-MTA: dns; x\\r\\n\\r\\nAction"
     ": failed\"\n"
     "P2<0 message/rfc822 h=138+67 b=205+20 base64 \"Subject: x\\r\\n\\r\\ny\"\n"},
    {"RFC 2045 6: unknown Content-Transfer-Encoding kept raw and flagged",
     "Content-Transfer-Encoding: x-uuencode\r\n"
     "\r\n"
     "begin 644 a\r\n"
     "`\r\n"
     "end\r\n",
     0, 0, 0, 0,
     "P0 text/plain DEFAULT_TYPE UNKNOWN_CTE h=0+41 b=41+21 unknown \"begin 644 "
     "a\\r\\n`\\r\\nend\\r\\n\"\n"
     "!UNKNOWN_CTE p0 @0\n"},
    {"RFC 2045 6.8: base64 with characters outside the alphabet",
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "aGVs*bG8g\r\n"
     "!!\r\n"
     "d29y bGQ=\r\n",
     0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE h=0+37 b=37+26 base64 \"hello world\"\n"},
    {"RFC 2045 6.8: base64 with text after the padding",
     "Content-Transfer-Encoding: BASE64\r\n"
     "\r\n"
     "aGk=\r\n"
     "aGk=\r\n",
     0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE h=0+37 b=37+12 base64 \"hi\"\n"},
    {"RFC 2045 6.7: quoted-printable with malformed '=' sequences",
     "Content-Transfer-Encoding: quoted-printable\r\n"
     "\r\n"
     "a=ZZb=4 c=3D=\r\n"
     "d= \r\n"
     "e=3d=\r\n",
     0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE h=0+47 b=47+27 qp \"a=ZZb=4 c=de=\"\n"},
    {"multipart without a boundary parameter",
     "Content-Type: multipart/mixed\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "x\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed NO_BOUNDARY h=0+33 b=33+17 \"--b\\r\\n\\r\\nx\\r\\n--b--\\r\\n\"\n"
     "!NO_BOUNDARY p0 @0\n"},
    {"multipart with an empty boundary parameter",
     "Content-Type: multipart/mixed; boundary=\"\"\r\n"
     "\r\n"
     "--\r\n"
     "\r\n"
     "x\r\n"
     "----\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed NO_BOUNDARY h=0+46 b=46+15 \"--\\r\\n\\r\\nx\\r\\n----\\r\\n\"\n"
     "!NO_BOUNDARY p0 @0\n"},
    {"duplicate Content-Type: the first one counts",
     "Content-Type: text/html\r\n"
     "Content-Type: multipart/mixed; boundary=b\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "x\r\n"
     "--b--\r\n",
     0, 0, 0, 0, "P0 text/html h=0+70 b=70+17 \"--b\\r\\n\\r\\nx\\r\\n--b--\\r\\n\"\n"},
    {"Content-Type without a subtype",
     "Content-Type: text\r\n"
     "\r\n"
     "x",
     0, 0, 0, 0,
     "P0 text/plain DEFAULT_TYPE h=0+22 b=22+1 \"x\"\n"
     "!BAD_CTYPE p0 @0\n"},
    {"Content-Type with junk after the subtype and no ';' (enmime mime-bad-content-type)",
     "Content-Type: application/pdf name=\"a.pdf\"\r\n"
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "JVBE\r\n",
     0, 0, 0, 0, "P0 application/pdf h=0+81 b=81+6 base64 \"%PD\"\n"},
    {"RFC 2046 5.1.1: boundaries are case-sensitive; upper-case and quoted",
     "Content-Type: Multipart/Mixed; BOUNDARY=\"AbC\"\r\n"
     "\r\n"
     "--abc\r\n"
     "\r\n"
     "no\r\n"
     "--AbC\r\n"
     "\r\n"
     "yes\r\n"
     "--AbC--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=AbC MULTIPART h=0+49 b=49+36 pre=49+11 epi=85+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=69+2 b=71+3 \"yes\"\n"},
    {"boundary parameter with trailing whitespace",
     "Content-Type: multipart/mixed; boundary=\"b  \"\r\n"
     "\r\n"
     "--b  \r\n"
     "\r\n"
     "x\r\n"
     "--b  --\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART NO_END h=0+49 b=49+21 pre=49+0 epi=0+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=56+2 b=58+12 \"x\\r\\n--b  --\\r\\n\"\n"
     "!NO_END p0 @70\n"},
    {"CR, LF and CRLF inside base64",
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "aGVs\n"
     "bG8g\r\n"
     "d29y\rbGQ=\r\n",
     0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE h=0+37 b=37+22 base64 \"hello world\"\n"},
    {"headers only, no empty line",
     "Subject: x\r\n"
     "From: y\r\n",
     0, 0, 0, 0,
     "P0 text/plain DEFAULT_TYPE NO_BODY h=0+21 b=21+0 \"\"\n"
     "!NO_BODY p0 @21\n"},
    {"empty message", "", 0, 0, 0, 0, "P0 text/plain DEFAULT_TYPE NO_BODY h=0+0 b=0+0 \"\"\n"},
    {"body text right after the header, no empty line (Python msg_35)",
     "From: a\r\n"
     "Subject: b\r\n"
     "this is body text\r\n",
     0, 0, 0, 0,
     "P0 text/plain DEFAULT_TYPE NO_BODY h=0+40 b=40+0 \"\"\n"
     "H2 p0 NO_COLON\n"
     "!NO_COLON p0 @21\n"
     "!NO_BODY p0 @40\n"},
    {"delimiter right after the header, no empty line, preamble line without a colon (enmime "
     "qp-utf8-header-no-break)",
     "Subject: s\r\n"
     "Content-Type: multipart/alternative;\r\n"
     " boundary=\"b\"\r\n"
     "This is a multi-part message in MIME format.\r\n"
     "--b\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Transfer-Encoding: quoted-printable\r\n"
     "\r\n"
     "plain=\r\n"
     " text\r\n"
     "--b\r\n"
     "Content-Type: text/html\r\n"
     "\r\n"
     "<p>\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/alternative boundary=b MULTIPART NO_BODY h=0+111 b=111+137 pre=111+0 "
     "epi=248+0\n"
     "P1<0 text/plain h=116+73 b=189+13 qp \"plain text\"\n"
     "P2<0 text/html h=209+27 b=236+3 \"<p>\"\n"
     "H2 p0 NO_COLON\n"
     "!NO_COLON p0 @65\n"
     "!NO_BODY p0 @111\n"},
    {"nested multipart reusing its parent's boundary (Python msg_15)",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "Content-Type: multipart/alternative; boundary=b\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "alt\r\n"
     "--b--\r\n"
     "--b\r\n"
     "\r\n"
     "after\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+96 pre=47+0 epi=143+0\n"
     "P1<0 multipart/alternative boundary=b MULTIPART h=52+51 b=103+17 pre=103+0 "
     "epi=122+0\n"
     "P2<1 text/plain DEFAULT_TYPE h=108+2 b=110+3 \"alt\"\n"
     "P3<0 text/plain DEFAULT_TYPE h=127+2 b=129+5 \"after\"\n"},
    {"consecutive delimiter lines (Python msg_37)",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "--b\r\n"
     "\r\n"
     "x\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+22 pre=47+0 epi=69+0\n"
     "P1<0 text/plain DEFAULT_TYPE NO_BODY h=52+0 b=52+0 \"\"\n"
     "P2<0 text/plain DEFAULT_TYPE h=57+2 b=59+1 \"x\"\n"
     "!NO_BODY p1 @52\n"},
    {"multipart without any delimiter line (Python msg_17)",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "just text, the parts were stripped\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART NO_END h=0+47 b=47+36 pre=47+36 epi=0+0\n"
     "!NO_END p0 @83\n"},
    {"close delimiter before any part (Python msg_42)",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b--\r\n",
     0, 0, 0, 0, "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+7 pre=47+0 epi=54+0\n"},
    {"RFC 2045 6.4: multipart with a base64 Content-Transfer-Encoding",
     "Content-Type: multipart/mixed; boundary=b\r\n"
     "Content-Transfer-Encoding: base64\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "x\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+80 b=80+17 base64 pre=80+0 epi=97+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=85+2 b=87+1 \"x\"\n"},
    {"close delimiter followed by text on its line",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "x\r\n"
     "--b--junk\r\n"
     "--b--\r\n",
     0, 0, 0, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+28 pre=47+0 epi=75+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=52+2 b=54+12 \"x\\r\\n--b--junk\"\n"},
    {"depth limit reached",
     "Content-Type: multipart/mixed; boundary=b0\r\n"
     "\r\n"
     "--b0\r\n"
     "Content-Type: multipart/mixed; boundary=b1\r\n"
     "\r\n"
     "--b1\r\n"
     "Content-Type: multipart/mixed; boundary=b2\r\n"
     "\r\n"
     "--b2\r\n"
     "Content-Type: multipart/mixed; boundary=b3\r\n"
     "\r\n"
     "--b3\r\n"
     "\r\n"
     "deep\r\n",
     0, 2, 0, 0,
     "P0 multipart/mixed boundary=b0 MULTIPART NO_END h=0+46 b=46+170 pre=46+0 epi=0+0\n"
     "P1<0 multipart/mixed boundary=b1 MULTIPART NO_END h=52+46 b=98+118 pre=98+0 "
     "epi=0+0\n"
     "P2<1 multipart/mixed boundary=b2 TOO_DEEP h=104+46 b=150+66 \"--b2\\r\\nContent-Type: "
     "multipart/mixed; boundary=b3\\r\\n\\r\\n--b3\\r\\n\\r\\ndeep\\r\\n\"\n"
     "!DEPTH p2 @150\n"
     "!NO_END p1 @216\n"
     "!NO_END p0 @216\n"},
    {"parts limit reached",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "\r\n"
     "1\r\n"
     "--b\r\n"
     "\r\n"
     "2\r\n"
     "--b\r\n"
     "\r\n"
     "3\r\n"
     "--b--\r\n",
     0, 0, 3, 0,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+37 pre=47+0 epi=84+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=52+2 b=54+1 \"1\"\n"
     "P2<0 text/plain DEFAULT_TYPE h=62+2 b=64+11 \"2\\r\\n--b\\r\\n\\r\\n3\"\n"
     "!PARTS p0 @67\n"},
    {"header limit reached in a part",
     "Content-Type: multipart/mixed; boundary=\"b\"\r\n"
     "\r\n"
     "--b\r\n"
     "A: 1\r\n"
     "B: 2\r\n"
     "C: 3\r\n"
     "\r\n"
     "x\r\n"
     "--b--\r\n",
     0, 0, 0, 2,
     "P0 multipart/mixed boundary=b MULTIPART h=0+47 b=47+35 pre=47+0 epi=82+0\n"
     "P1<0 text/plain DEFAULT_TYPE h=52+20 b=72+1 \"x\"\n"
     "!HEADERS p1 @64\n"},
};

START_TEST(test_breakage) {
  const struct bcase *c = &cases[_i];
  size_t len = c->len ? c->len : strlen(c->msg);
  mp_settings s = MP_SETTINGS_INIT;
  s.max_depth = c->max_depth;
  s.max_parts = c->max_parts;
  s.max_headers = c->max_headers;
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, &s, c->msg, len, NULL), 0);
  static char got[8192];
  render(m, got, sizeof got);
  ck_assert_msg(strcmp(got, c->want) == 0, "%s:\n--- got\n%s--- want\n%s", c->name, got, c->want);
  // Every range lies in the input, a header ends where its body starts, and
  // a child lies inside its parent's body.
  for (size_t i = 0; i < mp_message_num_parts(m); i++) {
    const mp_part *p = mp_message_part(m, i);
    ck_assert_uint_eq(p->header.off + p->header.len, p->body.off);
    ck_assert_uint_le(p->body.off + p->body.len, len);
    if (p->parent != MP_NO_INDEX) {
      const mp_part *pp = mp_message_part(m, p->parent);
      ck_assert_uint_ge(p->header.off, pp->body.off);
      ck_assert_uint_le(p->body.off + p->body.len, pp->body.off + pp->body.len);
    }
  }
  mp_message_free(m);
}
END_TEST

// Lines longer than the 998 bytes of RFC 5322 2.1.1: a header line over
// max_line_len is flagged and kept whole; a long body line is no problem.
START_TEST(test_long_lines) {
  size_t len = 8 + 1200 + 4 + 5000 + 2;
  char *msg = malloc(len);
  memcpy(msg, "X-Long: ", 8);
  memset(msg + 8, 'a', 1200);
  memcpy(msg + 1208, "\r\n\r\n", 4);
  memset(msg + 1212, 'z', 5000);
  memcpy(msg + 6212, "\r\n", 2);
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, NULL, msg, len, NULL), 0);
  static char got[8192];
  render(m, got, sizeof got);
  ck_assert_str_eq(got,
                   "P0 text/plain DEFAULT_TYPE h=0+1212 b=1212+5002 \"zzzzzzzzzzzzzzzzzzzzzzzzzz"
                   "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"...\n"
                   "H0 p0 LONG_LINE\n"
                   "!LONG_LINE p0 @0\n");
  ck_assert_uint_eq(mp_message_header(m, 0)->value.len, 1201);
  mp_message_free(m);
  // With a larger limit the same line is fine.
  mp_settings s = MP_SETTINGS_INIT;
  s.max_line_len = 1300;
  ck_assert_int_eq(mp_message_parse(&m, &s, msg, len, NULL), 0);
  ck_assert_uint_eq(mp_message_problems(m), 0);
  ck_assert_uint_eq(mp_message_header(m, 0)->flags, 0);
  mp_message_free(m);
  free(msg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("breakage");
  TCase *tc = tcase_create("breakage");
  tcase_add_loop_test(tc, test_breakage, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, test_long_lines);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
