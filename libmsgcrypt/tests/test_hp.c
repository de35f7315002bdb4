// test_hp.c: header protection (RFC 9788) through mc_hp_protect and the
// PGP/MIME builder: for each policy (hcp_no_confidentiality, hcp_shy,
// hcp_baseline), the exact outer header section and Cryptographic Payload
// of a message built from the field values of RFC 9788's examples (Alice,
// Bob, "Handling the Jones contract"); the Legacy Display Element only when
// a user-facing field is hidden, in text/plain and text/html main body
// parts, in each branch of a multipart/alternative and the first part of a
// multipart/mixed, through Base64 and quoted-printable (decoded back with
// libencodify to check), never in attachments or signed parts; an input
// that already carries hp refused; header lines near and over 998 octets
// folded (or refused when they cannot be); LF input; buffer bounds.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "encodify.h"
#include "msgcrypt.h"

static const char msg_crlf[] = "From: Alice <alice@example.net>\r\n"
                               "To: Bob <bob@example.net>\r\n"
                               "Cc: Carol <carol@example.net>\r\n"
                               "Subject: Handling the Jones contract\r\n"
                               "Comments: internal\r\n"
                               "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                               "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                               "MIME-Version: 1.0\r\n"
                               "Content-Type: text/plain; charset=\"us-ascii\"\r\n"
                               "\r\n"
                               "Please review.\r\n";

typedef struct {
  char outer[16384];
  size_t outer_len;
  char inner[16384];
  size_t inner_len;
} split;

static int run(split *s, uint32_t mode, const char *in) {
  memset(s, 0, sizeof *s);
  int ret =
      mc_hp_protect((uint8_t *)s->outer, sizeof s->outer - 1, &s->outer_len, (uint8_t *)s->inner,
                    sizeof s->inner - 1, &s->inner_len, mode, (const uint8_t *)in, strlen(in));
  s->outer[s->outer_len] = 0;
  s->inner[s->inner_len] = 0;
  return ret;
}

START_TEST(at_rest_exact) {
  split s;
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, msg_crlf), 0);
  ck_assert_str_eq(s.outer, "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n");
  // hcp_no_confidentiality hides nothing: no Legacy Display Element.
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=\"us-ascii\"; hp=\"cipher\"\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "HP-Outer: From: Alice <alice@example.net>\r\n"
                            "HP-Outer: To: Bob <bob@example.net>\r\n"
                            "HP-Outer: Cc: Carol <carol@example.net>\r\n"
                            "HP-Outer: Subject: Handling the Jones contract\r\n"
                            "HP-Outer: Comments: internal\r\n"
                            "HP-Outer: Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "HP-Outer: Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "\r\n"
                            "Please review.\r\n");
}
END_TEST

START_TEST(gateway_exact) {
  split s;
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, msg_crlf), 0);
  // hcp_shy: Subject obscured, Comments dropped, From without its display
  // name, Date in UTC (16:08:43 -0500 is 21:08:43 UTC), the rest kept.
  ck_assert_str_eq(s.outer, "From: <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: [...]\r\n"
                            "Date: Wed, 11 Jan 2023 21:08:43 +0000\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n");
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=\"us-ascii\"; "
                            "hp-legacy-display=\"1\"; hp=\"cipher\"\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "HP-Outer: From: <alice@example.net>\r\n"
                            "HP-Outer: To: Bob <bob@example.net>\r\n"
                            "HP-Outer: Cc: Carol <carol@example.net>\r\n"
                            "HP-Outer: Subject: [...]\r\n"
                            "HP-Outer: Date: Wed, 11 Jan 2023 21:08:43 +0000\r\n"
                            "HP-Outer: Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "\r\n"
                            "Please review.\r\n");
  // Several mailboxes lose every display name; a From without one, and a
  // Date already in UTC, stay as written and are not repeated.
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY,
                       "From: \"A, B\" <a@x.example>, c@y.example, D <d@z.example>\n"
                       "Date: 1 Feb 2024 00:30:00 +0100\n\nx\n"),
                   0);
  ck_assert_str_eq(s.outer, "From: <a@x.example>, <c@y.example>, <d@z.example>\n"
                            "Date: Wed, 31 Jan 2024 23:30:00 +0000\n");
  ck_assert_int_eq(
      run(&s, MC_HP_GATEWAY, "From: a@x.example\nDate: Wed, 31 Jan 2024 23:30:00 +0000\n\nx\n"), 0);
  ck_assert_str_eq(s.outer, "From: a@x.example\nDate: Wed, 31 Jan 2024 23:30:00 +0000\n");
  ck_assert_ptr_null(strstr(s.inner, "hp-legacy-display"));
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\nx\n"));
  // A Date that cannot be read stays as it is.
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, "Date: someday\n\nx\n"), 0);
  ck_assert_str_eq(s.outer, "Date: someday\n");
}
END_TEST

START_TEST(baseline_exact) {
  split s;
  ck_assert_int_eq(run(&s, MC_HP_BASELINE, msg_crlf), 0);
  // hcp_baseline: Subject obscured, Comments dropped, the rest kept.
  ck_assert_str_eq(s.outer, "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: [...]\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n");
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=\"us-ascii\"; "
                            "hp-legacy-display=\"1\"; hp=\"cipher\"\r\n"
                            "From: Alice <alice@example.net>\r\n"
                            "To: Bob <bob@example.net>\r\n"
                            "Cc: Carol <carol@example.net>\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "HP-Outer: From: Alice <alice@example.net>\r\n"
                            "HP-Outer: To: Bob <bob@example.net>\r\n"
                            "HP-Outer: Cc: Carol <carol@example.net>\r\n"
                            "HP-Outer: Subject: [...]\r\n"
                            "HP-Outer: Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
                            "HP-Outer: Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
                            "\r\n"
                            "Subject: Handling the Jones contract\r\n"
                            "Comments: internal\r\n"
                            "\r\n"
                            "Please review.\r\n");
}
END_TEST

// decode_b64 decodes the Base64 body that follows "\n\n" after `after` in
// `s` up to the next "\n--" into `out` (NUL-ended).
static void decode_b64(char *out, size_t cap, const char *s, const char *after) {
  const char *p = strstr(s, after);
  ck_assert_ptr_nonnull(p);
  p = strstr(p, "\n\n");
  ck_assert_ptr_nonnull(p);
  p += 2;
  const char *e = strstr(p, "\n--");
  ck_assert_ptr_nonnull(e);
  size_t n = 0;
  ck_assert_int_eq(enc_base64_decode(ENC_FLAG_MIME, out, cap - 1, &n, p, (size_t)(e - p), NULL), 0);
  out[n] = 0;
}

// The first part of a multipart/mixed is the main body part: it gets the
// Legacy Display Element (with a Content-Type of its own when it had
// none); an attachment after it is left alone. An encoded word stays
// encoded in the protected copy and becomes UTF-8 only in a legacy display
// whose charset allows it.
START_TEST(gateway_multipart_and_lf) {
  split s;
  static const char mp[] = "From: a@example.org\n"
                           "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                           "Content-Type: multipart/mixed; boundary=b\n"
                           "\n"
                           "--b\n\nx\n"
                           "--b\nContent-Type: text/plain\nContent-Disposition: attachment\n\ny\n"
                           "--b--\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, mp), 0);
  ck_assert_str_eq(s.outer, "From: a@example.org\nSubject: [...]\n");
  ck_assert_str_eq(s.inner, "Content-Type: multipart/mixed; boundary=b; hp=\"cipher\"\n"
                            "From: a@example.org\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "HP-Outer: From: a@example.org\n"
                            "HP-Outer: Subject: [...]\n"
                            "\n"
                            "--b\n"
                            "Content-Type: text/plain; charset=us-ascii; hp-legacy-display=\"1\"\n"
                            "\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "\n"
                            "x\n"
                            "--b\nContent-Type: text/plain\nContent-Disposition: attachment\n\ny\n"
                            "--b--\n");
  // An attachment first, or a multipart/signed, gets nothing.
  static const char att[] = "Subject: s\nContent-Type: multipart/mixed; boundary=b\n\n"
                            "--b\nContent-Disposition: attachment; filename=a.txt\n\nx\n--b--\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, att), 0);
  ck_assert_ptr_null(strstr(s.inner, "legacy"));
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\n--b\nContent-Disposition: attachment; "
                                        "filename=a.txt\n\nx\n--b--\n"));
  static const char sig[] = "Subject: s\nContent-Type: multipart/signed; boundary=b; "
                            "protocol=\"application/pgp-signature\"\n\n"
                            "--b\n\nx\n--b\nContent-Type: application/pgp-signature\n\nsig\n"
                            "--b--\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, sig), 0);
  ck_assert_ptr_null(strstr(s.inner, "legacy"));
  static const char utf[] = "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "Content-Type: text/plain; charset=utf-8\n\nbody\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, utf), 0);
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\nSubject: Caf\xc3\xa9\n\nbody\n"));
  // us-ascii body: the legacy line keeps the encoded word.
  static const char ascii[] = "Subject: =?utf-8?q?Caf=C3=A9?=\n\nbody\n";
  ck_assert_int_eq(run(&s, MC_HP_GATEWAY, ascii), 0);
  ck_assert_str_eq(s.inner, "Content-Type: text/plain; charset=us-ascii; "
                            "hp-legacy-display=\"1\"; hp=\"cipher\"\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "HP-Outer: Subject: [...]\n"
                            "\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "\n"
                            "body\n");
  // hcp_no_confidentiality hides nothing: a multipart body is untouched.
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, mp), 0);
  ck_assert_ptr_null(strstr(s.inner, "legacy"));
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\n--b\n\nx\n--b\n"));
}
END_TEST

// RFC 9788 Appendix E.2's text/html message ("Dinner plans"): the element
// is a div of class header-protection-legacy-display holding a <pre> right
// after <body>, with HTML's special characters escaped.
START_TEST(gateway_html) {
  split s;
  static const char html[] =
      "Date: Fri, 21 Jan 2022 20:40:48 -0500\r\n"
      "From: Alice <alice@example.net>\r\n"
      "To: Bob <bob@example.net>\r\n"
      "Subject: Dinner plans\r\n"
      "Message-ID: <text-html-legacy-display@lhp.example>\r\n"
      "MIME-Version: 1.0\r\n"
      "Content-Type: text/html; charset=\"us-ascii\"\r\n"
      "\r\n"
      "<html><head><title></title></head><body>\r\n"
      "<p>\r\nLet's meet at Rama's Roti Shop at 8pm and go to the park\r\nfrom there.\r\n</p>\r\n"
      "</body>\r\n</html>\r\n";
  ck_assert_int_eq(run(&s, MC_HP_BASELINE, html), 0);
  ck_assert_ptr_nonnull(strstr(s.inner, "Content-Type: text/html; charset=\"us-ascii\"; "
                                        "hp-legacy-display=\"1\"; hp=\"cipher\"\r\n"));
  ck_assert_ptr_nonnull(strstr(s.inner, "\r\n\r\n<html><head><title></title></head><body>\r\n"
                                        "<div class=\"header-protection-legacy-display\">\r\n"
                                        "<pre>Subject: Dinner plans</pre>\r\n"
                                        "</div>\r\n"
                                        "<p>\r\nLet's meet at Rama's Roti Shop"));
  // Without a <body> tag the element starts the document; & < > escaped.
  ck_assert_int_eq(
      run(&s, MC_HP_BASELINE, "Subject: a<b> & c\nContent-Type: text/html\n\n<p>hi</p>\n"), 0);
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\n<div class=\"header-protection-legacy-display\">\n"
                                        "<pre>Subject: a&lt;b&gt; &amp; c</pre>\n</div>\n"
                                        "<p>hi</p>\n"));
}
END_TEST

// Base64 and quoted-printable main body parts, in a multipart/alternative:
// each branch is decoded, given the element and encoded again; decoding
// the result gives the element followed by the original text.
START_TEST(gateway_encoded_alternative) {
  split s;
  static const char alt[] = "From: Alice <alice@example.net>\n"
                            "Subject: =?utf-8?q?Caf=C3=A9?=\n"
                            "Content-Type: multipart/alternative; boundary=b\n"
                            "\n"
                            "--b\n"
                            "Content-Type: text/plain; charset=utf-8\n"
                            "Content-Transfer-Encoding: base64\n"
                            "\n"
                            "SGVsbG8sIHdvcmxkLgo=\n"
                            "--b\n"
                            "Content-Type: text/html; charset=utf-8\n"
                            "Content-Transfer-Encoding: quoted-printable\n"
                            "\n"
                            "<html><body><p>=C3=A9t=C3=A9</p></body></html>\n"
                            "--b--\n";
  ck_assert_int_eq(run(&s, MC_HP_BASELINE, alt), 0);
  ck_assert_ptr_nonnull(strstr(s.inner, "--b\nContent-Type: text/plain; charset=utf-8; "
                                        "hp-legacy-display=\"1\"\n"
                                        "Content-Transfer-Encoding: base64\n\n"));
  char dec[4096];
  decode_b64(dec, sizeof dec, s.inner, "Content-Transfer-Encoding: base64");
  ck_assert_str_eq(dec, "Subject: Caf\xc3\xa9\n\nHello, world.\n");
  const char *q = strstr(s.inner, "Content-Transfer-Encoding: quoted-printable\n\n");
  ck_assert_ptr_nonnull(q);
  ck_assert_ptr_nonnull(strstr(s.inner, "Content-Type: text/html; charset=utf-8; "
                                        "hp-legacy-display=\"1\"\n"));
  q += strlen("Content-Transfer-Encoding: quoted-printable\n\n");
  const char *e = strstr(q, "\n--b--\n");
  ck_assert_ptr_nonnull(e);
  size_t n = 0;
  ck_assert_int_eq(enc_qp_decode(dec, sizeof dec - 1, &n, q, (size_t)(e - q) + 1), 0);
  dec[n] = 0;
  ck_assert_str_eq(dec, "<html><body>\n<div class=\"header-protection-legacy-display\">\n"
                        "<pre>Subject: Caf\xc3\xa9</pre>\n</div><p>\xc3\xa9t\xc3\xa9</p>"
                        "</body></html>\n");
  // A long body is re-encoded in 76-character lines, a single-part root
  // too, and nothing else of the message changes.
  char big[6000];
  int len = snprintf(big, sizeof big, "Subject: s\nContent-Transfer-Encoding: base64\n\n");
  for (int i = 0; i < 40; i++)
    len += snprintf(big + len, sizeof big - (size_t)len, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n");
  ck_assert_int_eq(run(&s, MC_HP_BASELINE, big), 0);
  const char *body = strstr(s.inner, "\n\n");
  ck_assert_ptr_nonnull(body);
  body += 2;
  for (const char *l = body; *l != 0;) {
    const char *nl = strchr(l, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_int_le(nl - l, 76);
    l = nl + 1;
  }
  // Quoted-printable is decoded leniently (RFC 2045 §6.7 (1)): a stray
  // "=ZZ" survives the round trip as it was.
  ck_assert_int_eq(
      run(&s, MC_HP_BASELINE, "Subject: s\nContent-Transfer-Encoding: quoted-printable\n\na=ZZ\n"),
      0);
  ck_assert_ptr_nonnull(strstr(s.inner, "\n\nSubject: s\n\na=3DZZ\n"));
}
END_TEST

// An input whose Content-Type already has hp (or hp-legacy-display) is
// protected already: it is refused rather than given a second parameter.
START_TEST(existing_hp_refused) {
  split s;
  ck_assert_int_eq(
      run(&s, MC_HP_GATEWAY, "Subject: s\nContent-Type: text/plain; hp=\"clear\"\n\nx\n"),
      MC_ERR_UNSUPPORTED);
  ck_assert_uint_eq(s.outer_len + s.inner_len, 0);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST,
                       "Subject: s\nContent-Type: text/plain;\n HP=cipher; charset=utf-8\n\nx\n"),
                   MC_ERR_UNSUPPORTED);
  ck_assert_int_eq(
      run(&s, MC_HP_BASELINE, "Subject: s\nContent-Type: text/plain; hp-legacy-display=1\n\nx\n"),
      MC_ERR_UNSUPPORTED);
  // A parameter merely named like it, or hp in a part below, is no reason.
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, "Subject: s\nContent-Type: text/plain; xhp=1\n\nx\n"), 0);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST,
                       "Subject: s\nContent-Type: multipart/mixed; boundary=b\n\n"
                       "--b\nContent-Type: text/plain; hp=cipher\n\nx\n--b--\n"),
                   0);
}
END_TEST

// max_line_len returns the longest line of `s` without its line break.
static size_t max_line_len(const char *s) {
  size_t best = 0;
  while (*s != 0) {
    const char *nl = strchr(s, '\n');
    size_t n = nl == NULL ? strlen(s) : (size_t)(nl - s);
    size_t t = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
    best = t > best ? t : best;
    if (nl == NULL)
      break;
    s = nl + 1;
  }
  return best;
}

// unfold removes every line break that is followed by white space.
static void unfold(char *s) {
  char *w = s;
  for (const char *r = s; *r != 0; r++) {
    if (r[0] == '\r' && r[1] == '\n' && (r[2] == ' ' || r[2] == '\t')) {
      r++;
      continue;
    }
    if (r[0] == '\n' && (r[1] == ' ' || r[1] == '\t'))
      continue;
    *w++ = *r;
  }
  *w = 0;
}

// Header lines near RFC 5322's 998-octet limit: "HP-Outer: " (10 octets)
// in front of a 990-octet line must be folded; every output line stays
// within 998 and unfolds to the same field; a long line without white
// space is refused.
START_TEST(long_header_lines) {
  static split s;
  static char in[8192], want[8192];
  for (size_t sub = 985; sub <= 998; sub++) {
    // "References: " + ids separated by single spaces, exactly `sub` long.
    int n = snprintf(in, sizeof in, "From: a@example.org\r\nReferences:");
    size_t line = 11;
    while (line + 13 <= sub) {
      n += snprintf(in + n, sizeof in - (size_t)n, " <%08zu@x>", line);
      line += 13;
    }
    while (line < sub) {
      in[n++] = 'y';
      line++;
    }
    snprintf(in + n, sizeof in - (size_t)n, "\r\nSubject: s\r\n\r\nbody\r\n");
    ck_assert_int_eq(run(&s, MC_HP_GATEWAY, in), 0);
    ck_assert_uint_le(max_line_len(s.outer), 998);
    ck_assert_uint_le(max_line_len(s.inner), 998);
    // The References line itself fits: outside it is copied as it is.
    const char *src = strstr(in, "References:");
    size_t src_len = (size_t)(strstr(src, "\r\n") - src);
    ck_assert_uint_eq(src_len, sub);
    ck_assert_ptr_nonnull(strstr(s.outer, "References:"));
    ck_assert_int_eq(strncmp(strstr(s.outer, "References:"), src, src_len + 2), 0);
    // Inside, "HP-Outer: " pushes lines over 988 octets past the limit.
    if (sub > 988)
      ck_assert_int_ne(strncmp(strstr(s.inner, "HP-Outer: References:") + 10, src, src_len), 0);
    unfold(s.inner);
    ck_assert_int_eq(strncmp(strstr(s.inner, "HP-Outer: References:") + 10, src, src_len), 0);
  }
  // A 3000-octet Subject with spaces: folded everywhere, the same unfolded.
  int n = snprintf(in, sizeof in, "Subject:");
  for (int i = 0; i < 300; i++)
    n += snprintf(in + n, sizeof in - (size_t)n, " word%05d", i);
  snprintf(in + n, sizeof in - (size_t)n, "\nContent-Type: text/plain; charset=utf-8\n\nx\n");
  for (uint32_t mode = MC_HP_AT_REST; mode <= MC_HP_BASELINE; mode++) {
    ck_assert_int_eq(run(&s, mode, in), 0);
    ck_assert_uint_le(max_line_len(s.outer), 998);
    ck_assert_uint_le(max_line_len(s.inner), 998);
    unfold(s.inner);
    memcpy(want, in, (size_t)n);
    want[n] = 0;
    ck_assert_ptr_nonnull(strstr(s.inner, want));
  }
  // No white space to fold at: refused, nothing written.
  n = snprintf(in, sizeof in, "Subject: ");
  memset(in + n, 'z', 1200);
  n += 1200;
  snprintf(in + n, sizeof in - (size_t)n, "\n\nx\n");
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, in), MC_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(s.outer_len + s.inner_len, 0);
  // 989 octets without white space after "X-Long: " fit alone (997); after
  // "HP-Outer: " the only place to fold is the space after the colon.
  n = snprintf(in, sizeof in, "X-Long: ");
  memset(in + n, 'z', 989);
  n += 989;
  snprintf(in + n, sizeof in - (size_t)n, "\n\nx\n");
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, in), 0);
  ck_assert_uint_le(max_line_len(s.inner), 998);
  ck_assert_ptr_nonnull(strstr(s.inner, "\nHP-Outer: X-Long:\n zzz"));
  in[n] = 0;
  ck_assert_str_eq(s.outer, strcat(in, "\n"));
}
END_TEST

START_TEST(errors_and_bounds) {
  split s;
  ck_assert_int_eq(run(&s, 0, msg_crlf), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, 4, msg_crlf), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, "no header line\n\nbody"), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, ""), MC_ERR_INVALID_ARGUMENT);
  size_t ol = 1, il = 1;
  uint8_t small[16];
  ck_assert_int_eq(mc_hp_protect(small, sizeof small, &ol, small, sizeof small, &il, MC_HP_AT_REST,
                                 (const uint8_t *)msg_crlf, strlen(msg_crlf)),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(ol, 0);
  ck_assert_uint_eq(il, 0);
  ck_assert_int_eq(mc_hp_protect(NULL, 0, NULL, NULL, 0, &il, MC_HP_AT_REST,
                                 (const uint8_t *)msg_crlf, strlen(msg_crlf)),
                   MC_ERR_INVALID_ARGUMENT);
  // mc_hp_max_len holds for both outputs of the densest inputs.
  static const char *dense[] = {
      "a:\nb:\nc:\nd:", "Subject:=?utf-8?q?=C3=A9=C3=A9=C3=A9?=", msg_crlf};
  for (size_t i = 0; i < sizeof dense / sizeof dense[0]; i++) {
    ck_assert_int_eq(run(&s, MC_HP_GATEWAY, dense[i]), 0);
    ck_assert_uint_le(s.outer_len, mc_hp_max_len(strlen(dense[i])));
    ck_assert_uint_le(s.inner_len, mc_hp_max_len(strlen(dense[i])));
  }
  ck_assert_uint_eq(mc_hp_max_len(SIZE_MAX), SIZE_MAX);
  // A last field ending in a bare CR (found by fuzz_hp) still ends with a
  // line break outside and inside.
  ck_assert_int_eq(run(&s, MC_HP_AT_REST, "From: a@b\nSubject: s\r"), 0);
  ck_assert_str_eq(s.outer, "From: a@b\nSubject: s\n");
  ck_assert_ptr_nonnull(strstr(s.inner, "\nHP-Outer: Subject: s\n\n"));
}
END_TEST

static int collect(void *opaque, const uint8_t *data, size_t len) {
  FILE *f = opaque;
  return fwrite(data, 1, len, f) == len ? 0 : -1;
}

// The PGP/MIME builder writes the outer header of the mode and refuses the
// two flags together; the plain encryptor refuses them.
START_TEST(pgp_mime_outer) {
  char *buf = NULL;
  size_t len = 0;
  // RFC 9580's sample v6 certificate (Appendix A.3) from the shared vectors.
  char path[4096];
  const char *dir = getenv("CORVID_VECTORS");
  ck_assert_ptr_nonnull(dir);
  snprintf(path, sizeof path, "%s/rfc9580-appendixA/a3_cert.asc", dir);
  FILE *keyf = fopen(path, "rb");
  ck_assert_ptr_nonnull(keyf);
  static uint8_t key[1 << 16];
  size_t klen = fread(key, 1, sizeof key, keyf);
  fclose(keyf);
  mc_pgp_certs *certs = NULL;
  ck_assert_int_eq(mc_pgp_certs_parse(&certs, NULL, NULL, key, klen, 1700000000), 0);
  const mc_pgp_cert *c = mc_pgp_certs_get(certs, 0);
  mc_pgp_encrypt_options opt = MC_PGP_ENCRYPT_OPTIONS_INIT;
  opt.flags = MC_PGP_PROTECT_HEADERS_GATEWAY;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(
      mc_pgp_mime_encrypt(&c, 1, &opt, (const uint8_t *)msg_crlf, strlen(msg_crlf), collect, f), 0);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\r\nSubject: [...]\r\nDate: "));
  ck_assert_ptr_null(strstr(buf, "Jones"));
  ck_assert_ptr_null(strstr(buf, "Comments:"));
  free(buf);
  opt.flags = MC_PGP_PROTECT_HEADERS_GATEWAY | MC_PGP_PROTECT_HEADERS_AT_REST;
  f = open_memstream(&buf, &len);
  ck_assert_int_eq(
      mc_pgp_mime_encrypt(&c, 1, &opt, (const uint8_t *)msg_crlf, strlen(msg_crlf), collect, f),
      MC_ERR_INVALID_ARGUMENT);
  fclose(f);
  ck_assert_uint_eq(len, 0);
  free(buf);
  opt.flags = MC_PGP_PROTECT_HEADERS_AT_REST;
  uint8_t out[4096];
  size_t out_len = 0;
  ck_assert_int_eq(mc_pgp_encrypt(out, sizeof out, &out_len, &c, 1, &opt, out, 0),
                   MC_ERR_INVALID_ARGUMENT);
  mc_pgp_certs_free(certs);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hp");
  TCase *tc = tcase_create("hp");
  tcase_add_test(tc, at_rest_exact);
  tcase_add_test(tc, gateway_exact);
  tcase_add_test(tc, baseline_exact);
  tcase_add_test(tc, gateway_multipart_and_lf);
  tcase_add_test(tc, gateway_html);
  tcase_add_test(tc, gateway_encoded_alternative);
  tcase_add_test(tc, existing_hp_refused);
  tcase_add_test(tc, long_header_lines);
  tcase_add_test(tc, errors_and_bounds);
  tcase_add_test(tc, pgp_mime_outer);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
