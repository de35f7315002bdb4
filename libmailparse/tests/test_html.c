// test_html.c: HTML to text and text to HTML (src/html.c): character
// references, dropped elements, comments and malformed markup, layout of
// blocks, lists, tables and links, white space, truncation, the output bounds
// on adversarial input and linear time on pathological input.
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

static char out_buf[1 << 23];
static size_t out_len;
static unsigned out_flags;

// h2t converts with a buffer of exactly the bound and checks the invariants.
static const char *h2t(const void *in, size_t in_len, unsigned flags) {
  size_t cap = mp_html_to_text_max_len(in_len);
  if (cap > sizeof out_buf - 1)
    ck_abort_msg("input too long for the test buffer");
  int rc = mp_html_to_text(out_buf, cap, &out_len, &out_flags, in, in_len, flags);
  if (rc != 0 || out_len > cap || out_flags != 0 || !corvid_utf8_valid((uint8_t *)out_buf, out_len))
    ck_abort_msg("rc %d, %zu of %zu bytes, flags %u, or invalid UTF-8", rc, out_len, cap,
                 out_flags);
  out_buf[out_len] = '\0';
  return out_buf;
}

static const char *t2h(const void *in, size_t in_len, unsigned flags) {
  size_t cap = mp_text_to_html_max_len(in_len);
  if (cap > sizeof out_buf - 1)
    ck_abort_msg("input too long for the test buffer");
  int rc = mp_text_to_html(out_buf, cap, &out_len, in, in_len, flags);
  if (rc != 0 || out_len > cap || !corvid_utf8_valid((uint8_t *)out_buf, out_len))
    ck_abort_msg("rc %d, %zu of %zu bytes, or invalid UTF-8", rc, out_len, cap);
  out_buf[out_len] = '\0';
  return out_buf;
}

static const struct {
  const char *name;
  const char *in;
  unsigned flags;
  const char *out;
} cases[] = {
    {"plain", "Hello world", 0, "Hello world"},
    {"collapse", "  a \n\t b  \r\n", 0, "a b"},
    {"markup refs", "&lt;b&gt; &amp; &quot;x&quot; &apos;y&apos;", 0, "<b> & \"x\" 'y'"},
    {"numeric refs", "&#233;&#xE9;&#XE9;&#00233;", 0, "éééé"},
    {"numeric invalid", "&#0;&#x110000;&#xD800;&#99999999999;", 0,
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"numeric 1252", "&#128;&#150;&#153;", 0, "€–™"},
    {"numeric no digits", "&#; &#x; &#", 0, "&#; &#x; &#"},
    {"named", "&copy;&eacute;&Eacute;&mdash;&hellip;&euro;&rsquo;&trade;", 0, "©éÉ—…€’™"},
    {"legacy without semicolon", "&copy 2024 &amp &ltx", 0, "© 2024 & <x"},
    {"unknown refs stay", "&bogus; &notanentity; & x &;", 0, "&bogus; &notanentity; & x &;"},
    {"case matters", "&AMP; &Amp;", 0, "&AMP; &Amp;"},
    {"nbsp collapses", "a&nbsp;&nbsp; b\xc2\xa0 c", 0, "a b c"},
    {"invisible dropped",
     "a&zwnj;b&shy;c\xe2\x80\x8b"
     "d&#xFEFF;e\xcd\x8f",
     0, "abcde"},
    {"controls dropped",
     "a\x01"
     "b\x7f"
     "c\xc2\x85"
     "d",
     0, "abcd"},
    {"invalid utf8",
     "a\xff"
     "b\xe2\x82",
     0,
     "a\xef\xbf\xbd"
     "b\xef\xbf\xbd"},
    {"head dropped",
     "<html><head><title>T</title><style>p{color:red}</style><meta charset=utf-8></head>"
     "<body>Hi<script>if (a<b) document.write('</p>')</script> there</body></html>",
     0, "Hi there"},
    {"head ends at a body element", "<head><title>t</title><div>body</div>", 0, "body"},
    {"head text dropped", "<head>junk</head>ok", 0, "ok"},
    {"late head ignored", "a<head>b</head>", 0, "ab"},
    {"script case and end tag forms", "<SCRIPT type=x>x</scriptx></Script >y<BR>z", 0, "y\nz"},
    {"script unterminated", "a<script>b", 0, "a"},
    {"style self-closing", "a<style/>p{}</style>b", 0, "ab"},
    {"template and iframe", "a<template>x</template><iframe>y</iframe>b", 0, "ab"},
    {"comment", "a<!-- hidden <p> -->b", 0, "ab"},
    {"empty comments", "a<!-->b<!--->c", 0, "abc"},
    {"comment dashes", "a<!-- x -- y --->b", 0, "ab"},
    {"comment unterminated", "a<!-- never", 0, "a"},
    {"doctype and pi", "<!DOCTYPE html>a<?xml version=1?>b<![CDATA[x]]>c", 0, "abc"},
    {"end tag oddities", "a</>b</ x>c</", 0, "abc</"},
    {"lone lt", "a < b <3 c<", 0, "a < b <3 c<"},
    {"unterminated tag", "a<div class=\"x", 0, "a"},
    {"unterminated tag plain", "a<b", 0, "a"},
    {"quoted gt", "<span title='a>b' data-x=\"c>d\">text</span>", 0, "text"},
    {"unquoted attrs", "<font color=red size=2>x</font>", 0, "x"},
    {"self-closing", "a<p/>b<br/>c", 0, "a\n\nb\nc"},
    {"paragraphs", "<p>one</p><p>two</p>", 0, "one\n\ntwo"},
    {"br", "a<br>b<br><br>c<br><br><br><br>d", 0, "a\nb\n\nc\n\nd"},
    {"divs", "<div>a</div><div>b</div><div><div>c</div></div>", 0, "a\nb\nc"},
    {"no leading or trailing breaks", "<p><br>x<br></p><br>", 0, "x"},
    {"headings", "<h1>Title</h1>text<h2>Sub</h2>", 0, "Title\n\ntext\n\nSub"},
    {"inline", "<b>bold</b> <i>it</i><span>x</span>y", 0, "bold itxy"},
    {"ul", "<ul><li>a<li>b</ul>after", 0, "• a\n• b\n\nafter"},
    {"ol", "<ol><li>x</li><li>y</li></ol>", 0, "1. x\n2. y"},
    {"nested lists", "<ul><li>a<ol><li>b<li>c</ol></li><li>d</ul>", 0, "• a\n  1. b\n  2. c\n• d"},
    {"li outside list", "<li>x", 0, "• x"},
    {"li whitespace", "<ul>\n  <li>  a  </li>\n  <li>b</li>\n</ul>", 0, "• a\n• b"},
    {"table", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>x", 0, "a b\nc\n\nx"},
    {"pre", "<p>x</p><pre>  a\n   b</pre>y", 0, "x\n\n  a\n   b\n\ny"},
    {"pre crlf", "<pre>a\r\nb\rc</pre>", 0, "a\nb\nc"},
    {"blockquote", "a<blockquote>q</blockquote>b", 0, "a\n\nq\n\nb"},
    {"office markup", "<o:p>&nbsp;</o:p>x<v:shape>y</v:shape>", 0, "xy"},
    {"link text only", "<a href='http://x.org/'>site</a>", 0, "site"},
    {"link url", "see <a href='http://x.org/'>site</a>.", MP_HTML_LINK_URLS,
     "see site <http://x.org/>."},
    {"link url is text", "<a href=\"http://x.org/\">http://x.org/</a>", MP_HTML_LINK_URLS,
     "http://x.org/"},
    {"mailto", "<a href=\"mailto:a@b.example\">a@b.example</a>", MP_HTML_LINK_URLS, "a@b.example"},
    {"mailto other text", "<a href=\"mailto:a@b.example\">Ann</a>", MP_HTML_LINK_URLS,
     "Ann <mailto:a@b.example>"},
    {"fragment and javascript", "<a href=#top>up</a> <a href='javascript:x()'>go</a>",
     MP_HTML_LINK_URLS, "up go"},
    {"href refs and spaces", "<a HREF=' http://x/?a=1&amp;b=2\n'>s</a>", MP_HTML_LINK_URLS,
     "s <http://x/?a=1&b=2>"},
    {"empty link", "a <a href=u></a>", MP_HTML_LINK_URLS, "a <u>"},
    {"nested links", "<a href=1>x<a href=2>y</a>", MP_HTML_LINK_URLS, "x <1>y <2>"},
    {"link open at end", "<a href=u>t", MP_HTML_LINK_URLS, "t <u>"},
    {"no href", "<a name=x>t</a>", MP_HTML_LINK_URLS, "t"},
};

START_TEST(html_to_text_table) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *got = h2t(cases[i].in, strlen(cases[i].in), cases[i].flags);
    ck_assert_msg(strcmp(got, cases[i].out) == 0, "%s: got [%s]", cases[i].name, got);
  }
}
END_TEST

START_TEST(entity_names_all_decode) {
  static const struct {
    const char *in, *out;
  } some[] = {{"&AElig;", "Æ"},  {"&zwj;", ""},     {"&yuml;", "ÿ"},
              {"&Yuml;", "Ÿ"},   {"&frac12;", "½"}, {"&sup3;", "³"},
              {"&lsaquo;", "‹"}, {"&bdquo;", "„"},  {"&thinsp;", "\xe2\x80\x89"},
              {"&hearts;", "♥"}, {"&Prime;", "″"},  {"&szlig;", "ß"}};
  for (size_t i = 0; i < sizeof some / sizeof some[0]; i++)
    ck_assert_str_eq(h2t(some[i].in, strlen(some[i].in), 0), some[i].out);
}
END_TEST

START_TEST(huge_attribute_and_names) {
  size_t n = 1 << 20;
  char *in = malloc(n + 64);
  ck_assert_ptr_nonnull(in);
  memcpy(in, "<div title=\"", 12);
  memset(in + 12, 'x', n);
  memcpy(in + 12 + n, "\">ok</div>", 11);
  ck_assert_str_eq(h2t(in, strlen(in), MP_HTML_LINK_URLS), "ok");
  // A huge link target is left out, the text kept.
  memcpy(in, "<a href=\"", 9);
  memset(in + 9, 'u', n);
  memcpy(in + 9 + n, "\">ok</a>", 9);
  ck_assert_str_eq(h2t(in, strlen(in), MP_HTML_LINK_URLS), "ok");
  // A huge element name is no element at all.
  in[0] = '<';
  memset(in + 1, 'p', n);
  memcpy(in + 1 + n, ">ok", 4);
  ck_assert_str_eq(h2t(in, strlen(in), 0), "ok");
  free(in);
}
END_TEST

// Pathological inputs that a naive tokenizer handles in quadratic time; the
// test's timeout catches a regression.
START_TEST(pathological_input_is_linear) {
  static const char *const units[] = {"<a ",  "&#",   "<!--", "<script></scrip", "<a href=", "\"",
                                      "&amp", "<ul>", "<li>", "</a><a href=x>",  "<!-- -- ", "<p>"};
  size_t n = 1 << 20;
  char *in = malloc(n);
  ck_assert_ptr_nonnull(in);
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    size_t l = strlen(units[u]), k = 0;
    while (k + l <= n) {
      memcpy(in + k, units[u], l);
      k += l;
    }
    h2t(in, k, MP_HTML_LINK_URLS);
    ck_assert_uint_le(out_len, mp_html_to_text_max_len(k));
  }
  free(in);
}
END_TEST

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 20;
}

// Random documents over an alphabet of markup fragments, and the constructs
// that expand most: the bound holds with room to spare, never reached.
START_TEST(bound_holds_on_adversarial_input) {
  static const char *const frags[] = {
      "<li>",  "<ol>",     "<ul>",      "<br>",     "<p>",      "</li>",     "<td>",      "&#1;",
      "&lt;",  "&nbsp;",   " ",         "\xff",     "<a href=", "'x'>",      "</a>",      "\n",
      "<pre>", "</pre>",   "x",         "\xc3\xa9", "&",        "<",         ">",         "<!--",
      "-->",   "<script>", "</script>", "<head>",   "<div>",    "&#x1F600;", "<a href=u>"};
  static char in[1 << 16];
  uint32_t seed = 12345;
  for (int doc = 0; doc < 300; doc++) {
    size_t n = 0;
    size_t want = lcg(&seed) % (sizeof in - 16);
    while (n < want) {
      const char *f = frags[lcg(&seed) % (sizeof frags / sizeof frags[0])];
      size_t l = strlen(f);
      memcpy(in + n, f, l);
      n += l;
    }
    h2t(in, n, doc & 1 ? MP_HTML_LINK_URLS : 0);
  }
  // The widest case: list items deep in ordered lists, numbers past 999.
  size_t n = 0;
  for (int d = 0; d < 10; d++) {
    memcpy(in + n, "<ol>", 4);
    n += 4;
  }
  while (n + 4 <= 4 * 2000) {
    memcpy(in + n, "<li>", 4);
    n += 4;
  }
  const char *got = h2t(in, n, 0);
  ck_assert_uint_le(out_len, 4 * n);
  ck_assert_ptr_nonnull(strstr(got, "\n      999. "));
  ck_assert_ptr_null(strstr(got, "1000"));
}
END_TEST

START_TEST(truncation_and_small_buffers) {
  const char *in = "<p>Grüße aus Köln, schöne Grüße</p>";
  char out[64];
  size_t len;
  unsigned flags;
  for (size_t cap = 0; cap < 40; cap++) {
    memset(out, 0, sizeof out);
    int rc =
        mp_html_to_text(out, cap, &len, &flags, (const uint8_t *)in, strlen(in), MP_HTML_TRUNCATE);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_le(len, cap);
    ck_assert(corvid_utf8_valid((uint8_t *)out, len));
    ck_assert(memcmp(out, "Grüße aus Köln, schöne Grüße", len) == 0);
    ck_assert_uint_eq(flags, cap < strlen("Grüße aus Köln, schöne Grüße") ? MP_HTML_TRUNCATED : 0);
    rc = mp_html_to_text(out, cap, &len, &flags, (const uint8_t *)in, strlen(in), 0);
    if (cap < strlen("Grüße aus Köln, schöne Grüße")) {
      ck_assert_int_eq(rc, MP_ERR_BUFFER_TOO_SMALL);
      ck_assert_uint_eq(len, 0);
    } else {
      ck_assert_int_eq(rc, 0);
    }
  }
}
END_TEST

START_TEST(html_invalid_arguments) {
  char out[8];
  size_t len;
  unsigned flags;
  const uint8_t *in = (const uint8_t *)"a";
  ck_assert_int_eq(mp_html_to_text(out, 8, NULL, &flags, in, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text(out, 8, &len, NULL, in, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text(NULL, 8, &len, &flags, in, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text(out, 8, &len, &flags, NULL, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text(out, 8, &len, &flags, in, 1, 4), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text(NULL, 0, &len, &flags, NULL, 0, 0), 0);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(mp_text_to_html(out, 8, NULL, in, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_text_to_html(out, 8, &len, in, 1, 2), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_text_to_html(out, 8, &len, NULL, 1, 0), MP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mp_html_to_text_max_len(0), 4);
  ck_assert_uint_eq(mp_html_to_text_max_len(SIZE_MAX / 4), SIZE_MAX);
  ck_assert_uint_eq(mp_text_to_html_max_len(1), 46);
  ck_assert_uint_eq(mp_text_to_html_max_len(SIZE_MAX / 6), SIZE_MAX);
}
END_TEST

// Text to HTML.

static const struct {
  const char *name;
  const char *in;
  unsigned flags;
  const char *out;
} t2h_cases[] = {
    {"empty", "", 0, ""},
    {"empty pre", "", MP_TEXT_HTML_PRE_WRAP, "<div style=\"white-space:pre-wrap\"></div>"},
    {"escapes", "<a href=\"x\">&'</a>", 0, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"},
    {"lines", "a\r\nb\nc\rd\n", 0, "a<br>\nb<br>\nc<br>\nd<br>\n"},
    {"blank lines", "a\n\nb", 0, "a<br>\n<br>\nb"},
    {"spaces", "a  b   c\n  d", 0, "a &nbsp;b &nbsp;&nbsp;c<br>\n&nbsp;&nbsp;d"},
    {"leading space", " x", 0, "&nbsp;x"},
    {"tab kept", "a\tb", 0, "a\tb"},
    {"pre wrap", "a  <b>\r\n c", MP_TEXT_HTML_PRE_WRAP,
     "<div style=\"white-space:pre-wrap\">a  &lt;b&gt;\n c</div>"},
    {"controls",
     "a\x01"
     "b\x7f"
     "c\x1b"
     "d",
     0, "abcd"},
    {"invalid utf8",
     "\xff"
     "a\xc3",
     0,
     "\xef\xbf\xbd"
     "a\xef\xbf\xbd"},
    {"unicode", "Grüße → 😀", 0, "Grüße → 😀"},
    {"no links", "see http://x.org/?a=1&b=2", 0, "see http://x.org/?a=1&amp;b=2"},
};

START_TEST(text_to_html_table) {
  for (size_t i = 0; i < sizeof t2h_cases / sizeof t2h_cases[0]; i++) {
    const char *got = t2h(t2h_cases[i].in, strlen(t2h_cases[i].in), t2h_cases[i].flags);
    ck_assert_msg(strcmp(got, t2h_cases[i].out) == 0, "%s: got [%s]", t2h_cases[i].name, got);
  }
  // NUL becomes U+FFFD.
  ck_assert_str_eq(t2h("a\0b", 3, 0), "a\xef\xbf\xbd"
                                      "b");
}
END_TEST

START_TEST(text_to_html_bound_and_small_buffer) {
  static char in[4096];
  for (int pattern = 0; pattern < 4; pattern++) {
    memset(in, "\" \xff\n"[pattern], sizeof in);
    if (pattern == 1)
      in[0] = 'x'; // spaces after text: all but the first become &nbsp;
    t2h(in, sizeof in, 0);
    ck_assert_uint_le(out_len, mp_text_to_html_max_len(sizeof in));
    t2h(in, sizeof in, MP_TEXT_HTML_PRE_WRAP);
  }
  // The quote, the widest escape, meets the bound exactly (with the div).
  memset(in, '"', sizeof in);
  t2h(in, sizeof in, MP_TEXT_HTML_PRE_WRAP);
  ck_assert_uint_eq(out_len, 6 * sizeof in + 40);
  char out[32];
  size_t len = 7;
  ck_assert_int_eq(mp_text_to_html(out, 17, &len, (const uint8_t *)in, 3, 0),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(mp_text_to_html(out, 18, &len, (const uint8_t *)in, 3, 0), 0);
  ck_assert_uint_eq(len, 18);
}
END_TEST

// The round trip that JMAP relies on: text made HTML and read back as text
// keeps its words and line structure.
START_TEST(round_trip_keeps_text) {
  const char *text = "Hi <Bob> & \"Ann\",\nsee you at 5.\n\nRegards";
  const char *html = t2h(text, strlen(text), 0);
  char copy[512];
  strcpy(copy, html);
  ck_assert_str_eq(h2t(copy, strlen(copy), 0), "Hi <Bob> & \"Ann\",\nsee you at 5.\n\nRegards");
}
END_TEST

int main(void) {
  Suite *s = suite_create("html");
  TCase *tc = tcase_create("html");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, html_to_text_table);
  tcase_add_test(tc, entity_names_all_decode);
  tcase_add_test(tc, huge_attribute_and_names);
  tcase_add_test(tc, pathological_input_is_linear);
  tcase_add_test(tc, bound_holds_on_adversarial_input);
  tcase_add_test(tc, truncation_and_small_buffers);
  tcase_add_test(tc, html_invalid_arguments);
  tcase_add_test(tc, text_to_html_table);
  tcase_add_test(tc, text_to_html_bound_and_small_buffer);
  tcase_add_test(tc, round_trip_keeps_text);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
