// test_config.c: the daemons' configuration reader (servers/common
// config.c): the file format (good and bad input, with the line of every
// error), duplicate keys, continuation lines, quoting, every named limit, each
// typed getter's edge cases (suffixes, overflow, ranges, empty values),
// unused-key reporting, loading real files from a temporary directory, and
// srv_strerror().
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv_config.h"

#define NAME "t.conf"

// Helpers.

static srv_config *parse_ok(const char *text) {
  srv_config *cfg = NULL;
  srv_config_diag diag = {0};
  int rc = srv_config_parse(&cfg, text, strlen(text), NAME, &diag);
  ck_assert_msg(rc == 0, "parse failed (%d): %s\n--- input ---\n%s", rc, diag.message, text);
  ck_assert_ptr_nonnull(cfg);
  return cfg;
}

// A growable string for generated inputs.
struct buf {
  char *p;
  size_t len;
  size_t cap;
};

static void buf_add(struct buf *b, const char *s, size_t n) {
  if (b->cap - b->len < n + 1) {
    size_t cap = b->cap > 0 ? b->cap : 256;
    while (cap - b->len < n + 1)
      cap *= 2;
    b->p = realloc(b->p, cap);
    ck_assert_ptr_nonnull(b->p);
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s) {
  buf_add(b, s, strlen(s));
}

static void buf_fill(struct buf *b, char c, size_t n) {
  for (size_t i = 0; i < n; i++)
    buf_add(b, &c, 1);
}

// Good input: every case parses, and `key` has exactly `value`.

static const struct {
  const char *text;
  const char *key;
  const char *value;
} good_cases[] = {
    {"a = b\n", "a", "b"},
    {"a=b", "a", "b"},
    {"  a\t=\t b c \t\n", "a", "b c"},
    {"a =\n", "a", ""},
    {"a =", "a", ""},
    {"a = # only a comment\n", "a", ""},
    {"a = b # comment\n", "a", "b"},
    {"a = b\t# tab before the comment\n", "a", "b"},
    {"a = b#c\n", "a", "b#c"},
    {"a =#c\n", "a", "#c"},
    {"# comment\n\n   \n\t# indented comment\na = 1\n", "a", "1"},
    {"a = \"quoted # not a comment\"\n", "a", "quoted # not a comment"},
    {"a = \"esc \\\\ \\\" \\n \\t end\"\n", "a", "esc \\ \" \n \t end"},
    {"a = \"\"\n", "a", ""},
    {"a = \"  padded  \"  # comment\n", "a", "  padded  "},
    {"a = \"x\"#c\n", "a", "x"},
    {"a = \"x\\\\\"\n", "a", "x\\"},
    {"a = b\"c\n", "a", "b\"c"},
    {"a = C:\\dir\\file\n", "a", "C:\\dir\\file"},
    {"a = caf\xc3\xa9\n", "a", "caf\xc3\xa9"},
    {"[smtpd]\nport = 25\n", "smtpd.port", "25"},
    {"[ smtpd ]\nport = 25\n", "smtpd.port", "25"},
    {"[smtpd] # comment\nport = 25\n", "smtpd.port", "25"},
    {"[smtpd]#comment\nport = 25\n", "smtpd.port", "25"},
    {"[a.b-c_d9]\nk = v\n", "a.b-c_d9.k", "v"},
    {"top = 1\n[s]\nk = 2\n", "top", "1"},
    {"top = 1\n[s]\nk = 2\n", "s.k", "2"},
    {"[s]\nk = 1\n[t]\nk = 2\n", "t.k", "2"},
    {"[s]\na = 1\n[t]\n[s]\nb = 2\n", "s.b", "2"},
    {"k = 1\n[s]\nk = 2\n", "k", "1"},
    {"a = one, \\\n    two, \\\n    three\n", "a", "one, two, three"},
    {"a = one\\\ntwo\n", "a", "one two"},
    {"a = one   \\   \n\t  two\n", "a", "one two"},
    {"a = \"x \\\n  y\"\n", "a", "x y"},
    {"a = \\\n  b\n", "a", "b"},
    {"a \\\n = b\n", "a", "b"},
    {"\\\na = b\n", "a", "b"},
    {"a = b \\\n c # comment after the join\n", "a", "b c"},
    {"a = b\r\nc = d\r\n", "a", "b"},
    {"a = b\r\nc = d\r\n", "c", "d"},
    {"a = b \\\r\n c\r\n", "a", "b c"},
    {"\xef\xbb\xbf"
     "a = b\n",
     "a", "b"},
    {"a = b\n\n\n", "a", "b"},
};

START_TEST(good_input) {
  const char *text = good_cases[_i].text;
  srv_config *cfg = parse_ok(text);
  const char *value = NULL;
  ck_assert_int_eq(srv_config_get_string(cfg, good_cases[_i].key, NULL, &value), 0);
  ck_assert_msg(value != NULL, "key %s missing in case %d", good_cases[_i].key, _i);
  ck_assert_str_eq(value, good_cases[_i].value);
  srv_config_free(cfg);
}
END_TEST

// Bad input: every case fails with `code` on `line`, and the message holds
// `what`.

static const struct {
  const char *text;
  size_t len; // 0: strlen(text)
  int code;
  unsigned line;
  const char *what;
} bad_cases[] = {
    {"a = 1\nb\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "expected '=' after key 'b'"},
    {"a = 1\nb c = 2\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "expected '=' after key 'b'"},
    {"Port = 25\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character 'P' at the start of a line"},
    {"smtpd.port = 25\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character '.' in key 'smtpd'"},
    {"pOrt = 25\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character 'O' in key 'p'"},
    {"= 25\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character '=' at the start of a line"},
    {"x\xc3\xa9 = 1\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character 0xc3 in key 'x'"},
    {"a = 1\n[smtpd\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "missing ']' in section header"},
    {"[]\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "empty section name"},
    {"[Smtpd]\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character 'S' in section name"},
    {"[a b]\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "invalid character 'b' in section name"},
    {"[a] x\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "unexpected 'x' after section header"},
    {"a = \"abc\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "unterminated quoted string"},
    {"a = \"abc\\\"\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "unterminated quoted string"},
    {"a = \"a\\qb\"\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "unknown escape: backslash before 'q'"},
    {"a = \"abc\" x\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "unexpected 'x' after the closing quote"},
    {"a = 1\n\nb = \"x\ny\"\n", 0, SRV_ERR_CONFIG_SYNTAX, 3, "unterminated quoted string"},
    {"a = 1\nb = \\\n  \"x\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "unterminated quoted string"},
    {"a = 1\n\x01\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "control character 0x01"},
    {"a = b\x7f\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "control character 0x7f"},
    {"a = b\rc\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "control character 0x0d"},
    {"a = 1\nb = x\0y\n", 12, SRV_ERR_CONFIG_SYNTAX, 2, "control character 0x00"},
    {"# comment \x1b[31m\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "control character 0x1b"},
    {"a = b \\\n\nc = d\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "ends in '\\' but this line is blank"},
    {"a = b \\\n   \n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "ends in '\\' but this line is blank"},
    {"a = b \\\n# c\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "ends in '\\' but this line is a comment"},
    {"a = b\nc = d \\\n", 0, SRV_ERR_CONFIG_SYNTAX, 2, "the last line ends in '\\'"},
    {"a = b \\", 0, SRV_ERR_CONFIG_SYNTAX, 1, "the last line ends in '\\'"},
    {"a = b # note \\\n c\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "a comment cannot be continued"},
    {"[s] # note \\\nk = v\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "a comment cannot be continued"},
    {"a = \"x\" # note \\\n c\n", 0, SRV_ERR_CONFIG_SYNTAX, 1, "a comment cannot be continued"},
    {"a = 1\na = 2\n", 0, SRV_ERR_CONFIG_DUPLICATE, 2, "key 'a' is defined twice (lines 1 and 2)"},
    {"a = 1\na =\n", 0, SRV_ERR_CONFIG_DUPLICATE, 2, "key 'a' is defined twice (lines 1 and 2)"},
    {"[s]\nk = 1\n[t]\nk = 1\n[s]\n\nk = 2\n", 0, SRV_ERR_CONFIG_DUPLICATE, 7,
     "key 's.k' is defined twice (lines 2 and 7)"},
    {"[s]\nk = 1 \\\n  2\nk = 3\n", 0, SRV_ERR_CONFIG_DUPLICATE, 4,
     "key 's.k' is defined twice (lines 2 and 4)"},
};

START_TEST(bad_input) {
  const char *text = bad_cases[_i].text;
  size_t len = bad_cases[_i].len > 0 ? bad_cases[_i].len : strlen(text);
  srv_config *cfg = (srv_config *)&cfg; // must be reset to NULL
  srv_config_diag diag;
  memset(&diag, 0x5a, sizeof diag);
  int rc = srv_config_parse(&cfg, text, len, NAME, &diag);
  ck_assert_msg(rc == bad_cases[_i].code, "case %d: rc %d (%s), want %d", _i, rc, diag.message,
                bad_cases[_i].code);
  ck_assert_ptr_null(cfg);
  ck_assert_int_eq(diag.code, rc);
  ck_assert_str_eq(diag.file, NAME);
  ck_assert_msg(diag.line == bad_cases[_i].line, "case %d: line %u, want %u (%s)", _i, diag.line,
                bad_cases[_i].line, diag.message);
  ck_assert_msg(strstr(diag.message, bad_cases[_i].what) != NULL,
                "case %d: message \"%s\" lacks \"%s\"", _i, diag.message, bad_cases[_i].what);
  char prefix[64];
  snprintf(prefix, sizeof prefix, NAME ":%u: ", bad_cases[_i].line);
  ck_assert_msg(strncmp(diag.message, prefix, strlen(prefix)) == 0, "message \"%s\" not \"%s...\"",
                diag.message, prefix);
  // Without a diag the same code comes back.
  cfg = (srv_config *)&cfg;
  ck_assert_int_eq(srv_config_parse(&cfg, text, len, NAME, NULL), bad_cases[_i].code);
  ck_assert_ptr_null(cfg);
}
END_TEST

// The example at the top of srv_config.h, verbatim.
START_TEST(header_example_parses) {
  srv_config *cfg =
      parse_ok("# A comment line. Blank lines are ignored.\n"
               "log_level = info              # keys before any section have no prefix\n"
               "[smtpd]                       # section names: [a-z0-9_.-]+\n"
               "port = 25                     # addressed as \"smtpd.port\"\n"
               "banner = \"Corvid \\\"ESMTP\\\"\\n\" # quoted: escapes \\\\ \\\" \\n \\t\n"
               "relay_domains = example.org, example.net  # a list (srv_config_get_list)\n");
  const char *s = NULL;
  int64_t port = 0;
  ck_assert_int_eq(srv_config_get_string(cfg, "log_level", NULL, &s), 0);
  ck_assert_pstr_eq(s, "info");
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 65535, 587, &port, NULL), 0);
  ck_assert_int_eq(port, 25);
  ck_assert_int_eq(srv_config_get_string(cfg, "smtpd.banner", NULL, &s), 0);
  ck_assert_pstr_eq(s, "Corvid \"ESMTP\"\n");
  ck_assert_int_eq(srv_config_get_string(cfg, "smtpd.relay_domains", NULL, &s), 0);
  ck_assert_pstr_eq(s, "example.org, example.net");
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
  srv_config_free(cfg);
}
END_TEST

START_TEST(diag_message_is_exact) {
  srv_config *cfg = NULL;
  srv_config_diag diag;
  const char *text = "a = 1\na = 2\n";
  ck_assert_int_eq(srv_config_parse(&cfg, text, strlen(text), "maild.conf", &diag),
                   SRV_ERR_CONFIG_DUPLICATE);
  ck_assert_str_eq(diag.message, "maild.conf:2: key 'a' is defined twice (lines 1 and 2)");

  // The default name.
  ck_assert_int_eq(srv_config_parse(&cfg, "x", 1, NULL, &diag), SRV_ERR_CONFIG_SYNTAX);
  ck_assert_str_eq(diag.file, "(config)");
  ck_assert_str_eq(diag.message, "(config):1: expected '=' after key 'x'");

  // A long name keeps its end.
  char name[400];
  memset(name, 'd', sizeof name);
  memcpy(name + sizeof name - 12, "/maild.conf", 12);
  ck_assert_int_eq(srv_config_parse(&cfg, "x", 1, name, &diag), SRV_ERR_CONFIG_SYNTAX);
  ck_assert_uint_eq(strlen(diag.file), SRV_CONFIG_DIAG_FILE_SIZE - 1);
  ck_assert_int_eq(strncmp(diag.file, "...ddd", 6), 0);
  ck_assert_str_eq(diag.file + strlen(diag.file) - 11, "/maild.conf");
  ck_assert_uint_eq(strlen(diag.message), SRV_CONFIG_DIAG_MESSAGE_SIZE - 1); // truncated
}
END_TEST

START_TEST(empty_input_is_valid) {
  srv_config *cfg = NULL;
  ck_assert_int_eq(srv_config_parse(&cfg, NULL, 0, NAME, NULL), 0);
  ck_assert_ptr_nonnull(cfg);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
  const char *v = "unchanged";
  ck_assert_int_eq(srv_config_get_string(cfg, "a", NULL, &v), 0);
  ck_assert_ptr_null(v);
  srv_config_free(cfg);

  cfg = parse_ok("# only comments\n\n  \n");
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
  srv_config_free(cfg);
}
END_TEST

START_TEST(invalid_arguments) {
  srv_config *cfg = parse_ok("a = 1\n");
  srv_config_diag diag;
  const char *s;
  int64_t i;
  bool b;
  uint64_t u;
  srv_config_list it;
  const char *item;
  size_t item_len;

  ck_assert_int_eq(srv_config_parse(NULL, "a=1", 3, NAME, &diag), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(diag.code, SRV_ERR_INVALID_ARGUMENT);
  srv_config *other = NULL;
  ck_assert_int_eq(srv_config_parse(&other, NULL, 1, NAME, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_load(NULL, "/dev/null", NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_load(&other, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);

  ck_assert_int_eq(srv_config_get_string(NULL, "a", NULL, &s), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_string(cfg, NULL, NULL, &s), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_string(cfg, "a", NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_int(NULL, "a", 0, 1, 0, &i, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_int(cfg, NULL, 0, 1, 0, &i, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_int(cfg, "a", 0, 1, 0, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_bool(cfg, "a", false, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_size(cfg, "a", 0, 1, 0, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_duration(cfg, "a", 0, 1, 0, NULL, NULL),
                   SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_list(cfg, "a", NULL, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_list_next(NULL, &item, &item_len), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_list(cfg, "a", NULL, &it), 0);
  ck_assert_int_eq(srv_config_list_next(&it, NULL, &item_len), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_unused(NULL, NULL, NULL), SRV_ERR_INVALID_ARGUMENT);

  // min > max, or a default outside [min, max], is the caller's bug.
  i = 42;
  ck_assert_int_eq(srv_config_get_int(cfg, "a", 5, 1, 3, &i, &diag), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(diag.code, SRV_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(diag.message, "key 'a'"));
  ck_assert_int_eq(srv_config_get_int(cfg, "a", 0, 10, 11, &i, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_int(cfg, "a", 0, 10, -1, &i, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(i, 42);
  u = 42;
  ck_assert_int_eq(srv_config_get_size(cfg, "a", 2, 1, 1, &u, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_size(cfg, "a", 1, 2, 3, &u, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_duration(cfg, "a", 2, 1, 1, &u, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_get_duration(cfg, "a", 1, 2, 0, &u, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(u, 42);
  (void)b;

  srv_config_free(NULL); // a no-op
  srv_config_free(cfg);
}
END_TEST

// Limits.

START_TEST(limit_line_length) {
  srv_config *cfg = NULL;
  srv_config_diag diag;
  struct buf t = {0};
  buf_str(&t, "first = 1\nlong = ");
  buf_fill(&t, 'x', SRV_CONFIG_MAX_LINE - strlen("long = "));
  buf_str(&t, "\r\n"); // the line ending does not count
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), 0);
  const char *v;
  ck_assert_int_eq(srv_config_get_string(cfg, "long", NULL, &v), 0);
  ck_assert_uint_eq(strlen(v), SRV_CONFIG_MAX_LINE - strlen("long = "));
  srv_config_free(cfg);

  t.len = 0;
  buf_str(&t, "first = 1\n# ");
  buf_fill(&t, 'x', SRV_CONFIG_MAX_LINE - 1); // a comment one byte too long
  buf_str(&t, "\n");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), SRV_ERR_LIMIT);
  ck_assert_uint_eq(diag.line, 2);
  ck_assert_ptr_nonnull(strstr(diag.message, "line longer than 4096 bytes"));

  // Continued lines may add up to more than the limit.
  t.len = 0;
  buf_str(&t, "list = ");
  for (int i = 0; i < 3; i++) {
    buf_fill(&t, 'y', 3000);
    buf_str(&t, i < 2 ? " \\\n" : "\n");
  }
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), 0);
  ck_assert_int_eq(srv_config_get_string(cfg, "list", NULL, &v), 0);
  ck_assert_uint_eq(strlen(v), 3 * 3000 + 2);
  srv_config_free(cfg);
  free(t.p);
}
END_TEST

START_TEST(limit_entries) {
  srv_config *cfg = NULL;
  srv_config_diag diag;
  struct buf t = {0};
  char line[64];
  for (unsigned i = 0; i < SRV_CONFIG_MAX_ENTRIES; i++) {
    snprintf(line, sizeof line, "k%u = %u\n", i, i);
    buf_str(&t, line);
  }
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), 0);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), (int)SRV_CONFIG_MAX_ENTRIES);
  int64_t v = 0;
  ck_assert_int_eq(srv_config_get_int(cfg, "k4095", 0, 10000, 0, &v, &diag), 0);
  ck_assert_int_eq(v, 4095);
  ck_assert_int_eq(srv_config_get_int(cfg, "k0", 0, 10000, 7, &v, &diag), 0);
  ck_assert_int_eq(v, 0);
  srv_config_free(cfg);

  buf_str(&t, "[s]\none_more = 1\n");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), SRV_ERR_LIMIT);
  ck_assert_uint_eq(diag.line, SRV_CONFIG_MAX_ENTRIES + 2);
  ck_assert_ptr_nonnull(strstr(diag.message, "more than 4096 keys"));
  ck_assert_ptr_null(cfg);
  free(t.p);
}
END_TEST

START_TEST(limit_name_length) {
  srv_config *cfg = NULL;
  srv_config_diag diag;
  struct buf t = {0};
  char key[2 * SRV_CONFIG_MAX_NAME + 2];

  // Section and key names of exactly the limit.
  buf_str(&t, "[");
  buf_fill(&t, 's', SRV_CONFIG_MAX_NAME);
  buf_str(&t, "]\n");
  buf_fill(&t, 'k', SRV_CONFIG_MAX_NAME);
  buf_str(&t, " = v\n");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), 0);
  memset(key, 's', SRV_CONFIG_MAX_NAME);
  key[SRV_CONFIG_MAX_NAME] = '.';
  memset(key + SRV_CONFIG_MAX_NAME + 1, 'k', SRV_CONFIG_MAX_NAME);
  key[2 * SRV_CONFIG_MAX_NAME + 1] = '\0';
  const char *v = NULL;
  ck_assert_int_eq(srv_config_get_string(cfg, key, NULL, &v), 0);
  ck_assert_pstr_eq(v, "v");
  srv_config_free(cfg);

  // One byte more.
  t.len = 0;
  buf_str(&t, "a = 1\n[");
  buf_fill(&t, 's', SRV_CONFIG_MAX_NAME + 1);
  buf_str(&t, "]\n");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), SRV_ERR_LIMIT);
  ck_assert_uint_eq(diag.line, 2);
  ck_assert_ptr_nonnull(strstr(diag.message, "section name longer than 64 bytes"));

  t.len = 0;
  buf_str(&t, "a = 1\n\n");
  buf_fill(&t, 'k', SRV_CONFIG_MAX_NAME + 1);
  buf_str(&t, " = v\n");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), SRV_ERR_LIMIT);
  ck_assert_uint_eq(diag.line, 3);
  ck_assert_ptr_nonnull(strstr(diag.message, "key name longer than 64 bytes"));
  free(t.p);
}
END_TEST

START_TEST(limit_input_size) {
  srv_config *cfg = NULL;
  srv_config_diag diag;
  struct buf t = {0};
  buf_str(&t, "a = 1\n");
  while (t.len + 100 <= SRV_CONFIG_MAX_FILE) {
    buf_str(&t, "#");
    buf_fill(&t, '-', 98);
    buf_str(&t, "\n");
  }
  buf_fill(&t, '#', SRV_CONFIG_MAX_FILE - t.len);
  ck_assert_uint_eq(t.len, SRV_CONFIG_MAX_FILE);
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), 0);
  srv_config_free(cfg);

  buf_str(&t, "#");
  ck_assert_int_eq(srv_config_parse(&cfg, t.p, t.len, NAME, &diag), SRV_ERR_LIMIT);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_str_eq(diag.message, NAME ": larger than 1048576 bytes");
  free(t.p);
}
END_TEST

// Getters.

// parse_value makes a one-key configuration "k = <raw>".
static srv_config *parse_value(const char *raw) {
  char text[256];
  snprintf(text, sizeof text, "# line 1\nk = %s\n", raw);
  return parse_ok(text);
}

// check_value_error checks the diag of a getter that rejected key "k".
static void check_value_error(int rc, int want, const srv_config_diag *diag, const char *raw) {
  ck_assert_msg(rc == want, "value '%s': rc %d, want %d (%s)", raw, rc, want, diag->message);
  if (want == 0)
    return;
  ck_assert_int_eq(diag->code, rc);
  ck_assert_str_eq(diag->file, NAME);
  ck_assert_uint_eq(diag->line, 2);
  ck_assert_msg(strncmp(diag->message, NAME ":2: key 'k': ", strlen(NAME ":2: key 'k': ")) == 0,
                "message: %s", diag->message);
}

static const struct {
  const char *raw;
  int64_t min, max;
  int rc;
  int64_t value;
} int_cases[] = {
    {"0", -10, 10, 0, 0},
    {"+7", -10, 10, 0, 7},
    {"-7", -10, 10, 0, -7},
    {"007", 0, 10, 0, 7},
    {"-0", 0, 10, 0, 0},
    {"10", 0, 10, 0, 10},
    {"-10", -10, 10, 0, -10},
    {"\"5\"", 0, 10, 0, 5},
    {"11", 0, 10, SRV_ERR_CONFIG_RANGE, 0},
    {"-11", -10, 10, SRV_ERR_CONFIG_RANGE, 0},
    {"65536", 1, 65535, SRV_ERR_CONFIG_RANGE, 0},
    {"9223372036854775807", INT64_MIN, INT64_MAX, 0, INT64_MAX},
    {"-9223372036854775808", INT64_MIN, INT64_MAX, 0, INT64_MIN},
    {"9223372036854775808", INT64_MIN, INT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"-9223372036854775809", INT64_MIN, INT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"18446744073709551616", INT64_MIN, INT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"99999999999999999999999999", INT64_MIN, INT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"\"\"", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"abc", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"1x", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"1 2", 0, 100, SRV_ERR_CONFIG_VALUE, 0},
    {"+", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"-", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"--1", -10, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"0x10", 0, 100, SRV_ERR_CONFIG_VALUE, 0},
    {"1.5", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"\" 5\"", 0, 10, SRV_ERR_CONFIG_VALUE, 0},
    {"99999999999999999999x", INT64_MIN, INT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
};

START_TEST(get_int_cases) {
  srv_config *cfg = parse_value(int_cases[_i].raw);
  srv_config_diag diag = {0};
  int64_t v = 12345;
  int rc = srv_config_get_int(cfg, "k", int_cases[_i].min, int_cases[_i].max, int_cases[_i].min, &v,
                              &diag);
  check_value_error(rc, int_cases[_i].rc, &diag, int_cases[_i].raw);
  if (rc == 0)
    ck_assert_int_eq(v, int_cases[_i].value);
  else
    ck_assert_int_eq(v, 12345); // untouched on error
  srv_config_free(cfg);
}
END_TEST

START_TEST(get_int_messages) {
  srv_config *cfg = parse_ok("# 1\n[smtpd]\nport = 70000\nworkers = many\n");
  srv_config_diag diag;
  int64_t v;
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 65535, 25, &v, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message, NAME ":3: key 'smtpd.port': 70000 is out of range [1, 65535]");
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.workers", 1, 64, 4, &v, &diag),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_str_eq(diag.message, NAME ":4: key 'smtpd.workers': invalid integer 'many'");
  srv_config_free(cfg);
  // A long value is cut to 40 bytes and "..." in the message, and a byte
  // that is not printable ASCII shows as '?'.
  cfg = parse_ok("[smtpd]\nworkers = 0123456789abcdefghijklmnopqrstuvwxyzABCD\xc3\xa9 and more\n");
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.workers", 1, 64, 4, &v, &diag),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_str_eq(diag.message, NAME ":2: key 'smtpd.workers': invalid integer "
                                      "'0123456789abcdefghijklmnopqrstuvwxyzABCD...'");
  srv_config_free(cfg);
  cfg = parse_ok("[smtpd]\nworkers = 12\xffx\n"); // 8-bit bytes are allowed in values
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.workers", 1, 64, 4, &v, &diag),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_str_eq(diag.message, NAME ":2: key 'smtpd.workers': invalid integer '12?x'");
  srv_config_free(cfg);
}
END_TEST

START_TEST(missing_keys_give_defaults) {
  srv_config *cfg = parse_ok("[s]\nk = 1\n");
  srv_config_diag diag;
  memset(&diag, 0, sizeof diag);
  diag.code = 777; // untouched on success

  const char *s = NULL;
  ck_assert_int_eq(srv_config_get_string(cfg, "s.x", "dflt", &s), 0);
  ck_assert_str_eq(s, "dflt");
  int64_t i = 0;
  ck_assert_int_eq(srv_config_get_int(cfg, "s.x", -5, 5, -3, &i, &diag), 0);
  ck_assert_int_eq(i, -3);
  bool b = false;
  ck_assert_int_eq(srv_config_get_bool(cfg, "s.x", true, &b, &diag), 0);
  ck_assert(b);
  uint64_t u = 0;
  ck_assert_int_eq(srv_config_get_size(cfg, "s.x", 0, UINT64_MAX, 4096, &u, &diag), 0);
  ck_assert_uint_eq(u, 4096);
  ck_assert_int_eq(srv_config_get_duration(cfg, "s.x", 0, UINT64_MAX, 1500, &u, &diag), 0);
  ck_assert_uint_eq(u, 1500);
  ck_assert_int_eq(diag.code, 777);

  // Keys are exact: no prefix, case or partial matches.
  ck_assert_int_eq(srv_config_get_int(cfg, "k", 0, 9, 9, &i, &diag), 0);
  ck_assert_int_eq(i, 9);
  ck_assert_int_eq(srv_config_get_int(cfg, "S.k", 0, 9, 9, &i, &diag), 0);
  ck_assert_int_eq(i, 9);
  ck_assert_int_eq(srv_config_get_int(cfg, "s.k ", 0, 9, 9, &i, &diag), 0);
  ck_assert_int_eq(i, 9);
  ck_assert_int_eq(srv_config_get_int(cfg, "s.k", 0, 9, 9, &i, &diag), 0);
  ck_assert_int_eq(i, 1);
  // A key longer than any possible key is simply absent.
  char huge[300];
  memset(huge, 'a', sizeof huge - 1);
  huge[sizeof huge - 1] = '\0';
  ck_assert_int_eq(srv_config_get_string(cfg, huge, "d", &s), 0);
  ck_assert_str_eq(s, "d");
  srv_config_free(cfg);
}
END_TEST

static const struct {
  const char *raw;
  int rc;
  bool value;
} bool_cases[] = {
    {"yes", 0, true},
    {"YES", 0, true},
    {"Yes", 0, true},
    {"true", 0, true},
    {"TRUE", 0, true},
    {"on", 0, true},
    {"On", 0, true},
    {"1", 0, true},
    {"\"yes\"", 0, true},
    {"no", 0, false},
    {"No", 0, false},
    {"false", 0, false},
    {"False", 0, false},
    {"off", 0, false},
    {"OFF", 0, false},
    {"0", 0, false},
    {"", SRV_ERR_CONFIG_VALUE, false},
    {"y", SRV_ERR_CONFIG_VALUE, false},
    {"n", SRV_ERR_CONFIG_VALUE, false},
    {"2", SRV_ERR_CONFIG_VALUE, false},
    {"yess", SRV_ERR_CONFIG_VALUE, false},
    {"ja", SRV_ERR_CONFIG_VALUE, false},
    {"00", SRV_ERR_CONFIG_VALUE, false},
    {"\" yes\"", SRV_ERR_CONFIG_VALUE, false},
    {"yes no", SRV_ERR_CONFIG_VALUE, false},
};

START_TEST(get_bool_cases) {
  srv_config *cfg = parse_value(bool_cases[_i].raw);
  srv_config_diag diag = {0};
  // The sentinel is the opposite of the expected value, so a write shows.
  bool v = !bool_cases[_i].value;
  int rc = srv_config_get_bool(cfg, "k", !bool_cases[_i].value, &v, &diag);
  check_value_error(rc, bool_cases[_i].rc, &diag, bool_cases[_i].raw);
  if (rc == 0) {
    ck_assert_int_eq(v, bool_cases[_i].value);
  } else {
    ck_assert_int_eq(v, !bool_cases[_i].value);
    ck_assert_ptr_nonnull(strstr(diag.message, "invalid boolean"));
  }
  srv_config_free(cfg);
}
END_TEST

#define KI (UINT64_C(1) << 10)
#define MI (UINT64_C(1) << 20)
#define GI (UINT64_C(1) << 30)
#define TI (UINT64_C(1) << 40)

static const struct {
  const char *raw;
  uint64_t min, max;
  int rc;
  uint64_t value;
} size_cases[] = {
    {"0", 0, UINT64_MAX, 0, 0},
    {"1", 0, UINT64_MAX, 0, 1},
    {"1B", 0, UINT64_MAX, 0, 1},
    {"1b", 0, UINT64_MAX, 0, 1},
    {"1K", 0, UINT64_MAX, 0, KI},
    {"1k", 0, UINT64_MAX, 0, KI},
    {"1KB", 0, UINT64_MAX, 0, KI},
    {"1kB", 0, UINT64_MAX, 0, KI},
    {"1KiB", 0, UINT64_MAX, 0, KI},
    {"1kib", 0, UINT64_MAX, 0, KI},
    {"10 M", 0, UINT64_MAX, 0, 10 * MI},
    {"10\tMiB", 0, UINT64_MAX, 0, 10 * MI},
    {"3G", 0, UINT64_MAX, 0, 3 * GI},
    {"2T", 0, UINT64_MAX, 0, 2 * TI},
    {"\"512 K\"", 0, UINT64_MAX, 0, 512 * KI},
    {"16777215T", 0, UINT64_MAX, 0, UINT64_C(16777215) * TI},
    {"16777216T", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"17179869184G", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX},
    {"18446744073709551616", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"99999999999999999999999K", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"1023", KI, MI, SRV_ERR_CONFIG_RANGE, 0},
    {"1K", KI, MI, 0, KI},
    {"1M", KI, MI, 0, MI},
    {"1025K", KI, MI, SRV_ERR_CONFIG_RANGE, 0},
    {"", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"K", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1.5M", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"-1", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"+1", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1X", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1P", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1KBB", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1 K B", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1iB", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1 2", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
};

START_TEST(get_size_cases) {
  srv_config *cfg = parse_value(size_cases[_i].raw);
  srv_config_diag diag = {0};
  uint64_t v = 12345;
  int rc = srv_config_get_size(cfg, "k", size_cases[_i].min, size_cases[_i].max, size_cases[_i].min,
                               &v, &diag);
  check_value_error(rc, size_cases[_i].rc, &diag, size_cases[_i].raw);
  if (rc == 0)
    ck_assert_uint_eq(v, size_cases[_i].value);
  else
    ck_assert_uint_eq(v, 12345);
  srv_config_free(cfg);
}
END_TEST

static const struct {
  const char *raw;
  uint64_t min, max;
  int rc;
  uint64_t value;
} duration_cases[] = {
    {"0", 0, UINT64_MAX, 0, 0},
    {"0s", 0, UINT64_MAX, 0, 0},
    {"0ms", 0, UINT64_MAX, 0, 0},
    {"250ms", 0, UINT64_MAX, 0, 250},
    {"30s", 0, UINT64_MAX, 0, 30000},
    {"5m", 0, UINT64_MAX, 0, 300000},
    {"2h", 0, UINT64_MAX, 0, 7200000},
    {"1d", 0, UINT64_MAX, 0, 86400000},
    {"10 s", 0, UINT64_MAX, 0, 10000},
    {"\"90 m\"", 0, UINT64_MAX, 0, 5400000},
    {"213503982334d", 0, UINT64_MAX, 0, UINT64_C(213503982334) * 86400000},
    {"213503982335d", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"18446744073709551615ms", 0, UINT64_MAX, 0, UINT64_MAX},
    {"18446744073709551616ms", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"18446744073709552s", 0, UINT64_MAX, SRV_ERR_CONFIG_RANGE, 0},
    {"999ms", 1000, 60000, SRV_ERR_CONFIG_RANGE, 0},
    {"1s", 1000, 60000, 0, 1000},
    {"1m", 1000, 60000, 0, 60000},
    {"61s", 1000, 60000, SRV_ERR_CONFIG_RANGE, 0},
    {"0", 1000, 60000, SRV_ERR_CONFIG_RANGE, 0},
    {"10", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"00", 0, UINT64_MAX, 0, 0},
    {"", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"s", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"10x", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"10S", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"10sec", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1.5s", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"-1s", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"1h30m", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
    {"0x", 0, UINT64_MAX, SRV_ERR_CONFIG_VALUE, 0},
};

START_TEST(get_duration_cases) {
  srv_config *cfg = parse_value(duration_cases[_i].raw);
  srv_config_diag diag = {0};
  uint64_t v = 12345;
  int rc = srv_config_get_duration(cfg, "k", duration_cases[_i].min, duration_cases[_i].max,
                                   duration_cases[_i].max, &v, &diag);
  check_value_error(rc, duration_cases[_i].rc, &diag, duration_cases[_i].raw);
  if (rc == 0)
    ck_assert_uint_eq(v, duration_cases[_i].value);
  else
    ck_assert_uint_eq(v, 12345);
  srv_config_free(cfg);
}
END_TEST

START_TEST(get_duration_needs_unit_message) {
  srv_config *cfg = parse_value("30");
  srv_config_diag diag;
  uint64_t v;
  ck_assert_int_eq(srv_config_get_duration(cfg, "k", 0, UINT64_MAX, 0, &v, &diag),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_str_eq(diag.message,
                   NAME ":2: key 'k': duration '30' has no unit (use ms, s, m, h or d)");
  srv_config_free(cfg);
}
END_TEST

// collect_list joins the items of a list with '|'.
static void collect_list(srv_config_list *it, char *out, size_t out_cap) {
  const char *item;
  size_t len;
  int rc;
  out[0] = '\0';
  while ((rc = srv_config_list_next(it, &item, &len)) == 1) {
    ck_assert_uint_gt(len, 0);
    ck_assert(strlen(out) + len + 2 < out_cap);
    if (out[0] != '\0')
      strcat(out, "|");
    strncat(out, item, len);
  }
  ck_assert_int_eq(rc, 0);
  // The end is sticky.
  ck_assert_int_eq(srv_config_list_next(it, &item, &len), 0);
}

static const struct {
  const char *raw;
  const char *items;
} list_cases[] = {
    {"a", "a"},
    {"a, b c,,d\t,  e", "a|b|c|d|e"},
    {"a,b", "a|b"},
    {"  ,a,  ", "a"},
    {"", ""},
    {", , ,", ""},
    {"\"x\\ny\\tz w\"", "x|y|z|w"},
    {"\"\"", ""},
    {"one.example, \\\n  two.example \\\n  three.example", "one.example|two.example|three.example"},
    {"10.0.0.0/8 [::1]/128", "10.0.0.0/8|[::1]/128"},
};

START_TEST(get_list_cases) {
  srv_config *cfg = parse_value(list_cases[_i].raw);
  srv_config_list it;
  char got[256];
  ck_assert_int_eq(srv_config_get_list(cfg, "k", "not used", &it), 0);
  collect_list(&it, got, sizeof got);
  ck_assert_str_eq(got, list_cases[_i].items);
  srv_config_free(cfg);
}
END_TEST

START_TEST(get_list_defaults) {
  srv_config *cfg = parse_ok("a = 1\n");
  srv_config_list it;
  char got[64];
  ck_assert_int_eq(srv_config_get_list(cfg, "missing", "p, q", &it), 0);
  collect_list(&it, got, sizeof got);
  ck_assert_str_eq(got, "p|q");
  ck_assert_int_eq(srv_config_get_list(cfg, "missing", NULL, &it), 0);
  collect_list(&it, got, sizeof got);
  ck_assert_str_eq(got, "");
  // Items are views: they point into the value and are not NUL-terminated.
  const char *item;
  size_t len;
  ck_assert_int_eq(srv_config_get_list(cfg, "missing", "first second", &it), 0);
  ck_assert_int_eq(srv_config_list_next(&it, &item, &len), 1);
  ck_assert_uint_eq(len, 5);
  ck_assert_int_eq(strncmp(item, "first second", 12), 0);
  srv_config_free(cfg);
}
END_TEST

START_TEST(get_string_points_into_config) {
  const char text[] = "[s]\nname = \"two\\nlines\"\n";
  char *copy = strdup(text);
  srv_config *cfg = NULL;
  ck_assert_int_eq(srv_config_parse(&cfg, copy, strlen(copy), NAME, NULL), 0);
  // The parser copied what it keeps.
  memset(copy, 'Z', strlen(copy));
  free(copy);
  const char *v = NULL;
  ck_assert_int_eq(srv_config_get_string(cfg, "s.name", NULL, &v), 0);
  ck_assert_str_eq(v, "two\nlines");
  srv_config_free(cfg);
}
END_TEST

// Unused keys.

struct unused_log {
  int count;
  char text[512];
};

static void log_unused(void *ctx, const char *key, const char *file, unsigned line) {
  struct unused_log *log = ctx;
  size_t used = strlen(log->text);
  snprintf(log->text + used, sizeof log->text - used, "%s%s:%u:%s", log->count > 0 ? " " : "", file,
           line, key);
  log->count++;
}

START_TEST(unused_keys_are_reported) {
  srv_config *cfg = parse_ok("log_level = info\n"
                             "[smtpd]\n"
                             "port = 25\n"
                             "workers = lots\n"
                             "\n"
                             "bannr = typo\n"
                             "[imapd]\n"
                             "port = 143\n");
  struct unused_log log = {0};
  ck_assert_int_eq(srv_config_unused(cfg, log_unused, &log), 5);
  ck_assert_int_eq(log.count, 5);
  ck_assert_str_eq(log.text, NAME ":1:log_level " NAME ":3:smtpd.port " NAME
                                  ":4:smtpd.workers " NAME ":6:smtpd.bannr " NAME ":8:imapd.port");

  const char *s;
  int64_t i;
  ck_assert_int_eq(srv_config_get_string(cfg, "log_level", "warn", &s), 0);
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 65535, 25, &i, NULL), 0);
  // Asked for, then rejected: still counts as used.
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.workers", 1, 64, 4, &i, NULL),
                   SRV_ERR_CONFIG_VALUE);
  // A key that is absent changes nothing.
  ck_assert_int_eq(srv_config_get_string(cfg, "smtpd.banner", "hi", &s), 0);

  memset(&log, 0, sizeof log);
  ck_assert_int_eq(srv_config_unused(cfg, log_unused, &log), 2);
  ck_assert_str_eq(log.text, NAME ":6:smtpd.bannr " NAME ":8:imapd.port");
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 2);

  srv_config_list it;
  ck_assert_int_eq(srv_config_get_list(cfg, "imapd.port", NULL, &it), 0);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 1);
  bool b;
  ck_assert_int_eq(srv_config_get_bool(cfg, "smtpd.bannr", false, &b, NULL), SRV_ERR_CONFIG_VALUE);
  ck_assert_int_eq(srv_config_unused(cfg, log_unused, &log), 0);
  srv_config_free(cfg);
}
END_TEST

// srv_config_reject: the caller's own rule refuses a value the getter took.
START_TEST(reject_names_key_and_line) {
  srv_config *cfg = parse_ok("[keepd]\n"
                             "port = 7000\n"
                             "\n"
                             "secret = not-hex-at-all\n");
  const char *s;
  ck_assert_int_eq(srv_config_get_string(cfg, "keepd.secret", NULL, &s), 0);
  srv_config_diag diag;
  memset(&diag, 0, sizeof diag);
  ck_assert_int_eq(srv_config_reject(cfg, "keepd.secret", &diag, "must be 32 hex digits"),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_int_eq(diag.code, SRV_ERR_CONFIG_VALUE);
  ck_assert_uint_eq(diag.line, 4);
  ck_assert_str_eq(diag.file, NAME);
  ck_assert_str_eq(diag.message, NAME ":4: key 'keepd.secret': must be 32 hex digits");
  ck_assert_ptr_null(strstr(diag.message, "not-hex")); // the value may be a secret
  // A key that is not there: the file, no line.
  ck_assert_int_eq(srv_config_reject(cfg, "keepd.pin", &diag, "must be auto, yes or no"),
                   SRV_ERR_CONFIG_VALUE);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_str_eq(diag.message, NAME ": key 'keepd.pin': must be auto, yes or no");
  // Without a diag, and with a key too long to be any key.
  char long_key[2 * SRV_CONFIG_MAX_NAME + 8];
  memset(long_key, 'k', sizeof long_key - 1);
  long_key[sizeof long_key - 1] = '\0';
  ck_assert_int_eq(srv_config_reject(cfg, long_key, NULL, "x"), SRV_ERR_CONFIG_VALUE);
  ck_assert_int_eq(srv_config_reject(NULL, "keepd.pin", &diag, "x"), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_reject(cfg, NULL, &diag, "x"), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(srv_config_reject(cfg, "keepd.pin", &diag, NULL), SRV_ERR_INVALID_ARGUMENT);
  // Rejecting marks nothing used or unused: port was never asked for.
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 1);
  srv_config_free(cfg);
}
END_TEST

// Getters from several threads at once (see "Threading" in srv_config.h).

struct reader {
  srv_config *cfg;
  int failures;
};

static void *read_all(void *arg) {
  struct reader *r = arg;
  char key[32];
  for (int round = 0; round < 50; round++) {
    for (int k = 0; k < 100; k++) {
      int64_t v = -1;
      snprintf(key, sizeof key, "s.k%d", k);
      if (srv_config_get_int(r->cfg, key, 0, 1000, 0, &v, NULL) != 0 || v != k)
        r->failures++;
    }
  }
  return NULL;
}

START_TEST(getters_are_thread_safe) {
  struct buf t = {0};
  char line[32];
  buf_str(&t, "[s]\n");
  for (int k = 0; k < 200; k++) {
    snprintf(line, sizeof line, "k%d = %d\n", k, k);
    buf_str(&t, line);
  }
  srv_config *cfg = parse_ok(t.p);
  free(t.p);
  pthread_t threads[4];
  struct reader readers[4];
  for (int i = 0; i < 4; i++) {
    readers[i] = (struct reader){.cfg = cfg};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, read_all, &readers[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    ck_assert_int_eq(readers[i].failures, 0);
  }
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 100);
  srv_config_free(cfg);
}
END_TEST

// Loading real files.

struct tmpdir {
  char path[512];
};

static void tmpdir_make(struct tmpdir *d) {
  const char *base = getenv("TMPDIR");
  if (base == NULL || base[0] == '\0')
    base = "/tmp";
  snprintf(d->path, sizeof d->path, "%s/srv-config-XXXXXX", base);
  ck_assert_msg(mkdtemp(d->path) != NULL, "mkdtemp %s: %s", d->path, strerror(errno));
}

static void tmpdir_file(const struct tmpdir *d, const char *name, char *out, size_t out_cap) {
  snprintf(out, out_cap, "%s/%s", d->path, name);
}

static void write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

START_TEST(load_real_file) {
  struct tmpdir d;
  char path[600];
  tmpdir_make(&d);
  tmpdir_file(&d, "maild.conf", path, sizeof path);
  const char *text = "# Corvid maild\r\n"
                     "hostname = mx.example.org\r\n"
                     "[smtpd]\r\n"
                     "port = 25\r\n"
                     "max_message_size = 50M\r\n"
                     "timeout = 5m\r\n"
                     "tls = yes\r\n"
                     "relay_domains = example.org, \\\r\n"
                     "                example.net\r\n";
  write_file(path, text, strlen(text));

  srv_config *cfg = (srv_config *)&cfg;
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), 0);
  ck_assert_ptr_nonnull(cfg);
  const char *s;
  int64_t i;
  uint64_t u;
  bool b;
  ck_assert_int_eq(srv_config_get_string(cfg, "hostname", NULL, &s), 0);
  ck_assert_pstr_eq(s, "mx.example.org");
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 65535, 25, &i, &diag), 0);
  ck_assert_int_eq(i, 25);
  ck_assert_int_eq(srv_config_get_size(cfg, "smtpd.max_message_size", 0, GI, MI, &u, &diag), 0);
  ck_assert_uint_eq(u, 50 * MI);
  ck_assert_int_eq(srv_config_get_duration(cfg, "smtpd.timeout", 0, 3600000, 1000, &u, &diag), 0);
  ck_assert_uint_eq(u, 300000);
  ck_assert_int_eq(srv_config_get_bool(cfg, "smtpd.tls", false, &b, &diag), 0);
  ck_assert(b);
  srv_config_list it;
  char got[128];
  ck_assert_int_eq(srv_config_get_list(cfg, "smtpd.relay_domains", NULL, &it), 0);
  collect_list(&it, got, sizeof got);
  ck_assert_str_eq(got, "example.org|example.net");
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);

  // A bad value names the file by its path.
  ck_assert_int_eq(srv_config_get_int(cfg, "smtpd.port", 1, 24, 1, &i, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.file, path);
  ck_assert_uint_eq(diag.line, 4);
  srv_config_free(cfg);

  // A syntax error too.
  write_file(path, "a = 1\n[oops\n", 12);
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), SRV_ERR_CONFIG_SYNTAX);
  ck_assert_ptr_null(cfg);
  ck_assert_str_eq(diag.file, path);
  ck_assert_uint_eq(diag.line, 2);

  // An empty file is an empty configuration.
  write_file(path, "", 0);
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), 0);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
  srv_config_free(cfg);

  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(d.path), 0);
}
END_TEST

START_TEST(load_missing_file_and_directory) {
  struct tmpdir d;
  char path[600];
  tmpdir_make(&d);
  tmpdir_file(&d, "absent.conf", path, sizeof path);

  srv_config *cfg = (srv_config *)&cfg;
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), -ENOENT);
  ck_assert_ptr_null(cfg);
  ck_assert_int_eq(diag.code, -ENOENT);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_str_eq(diag.file, path);
  char want[800];
  snprintf(want, sizeof want, "%s: cannot open: %s", path, srv_strerror(-ENOENT));
  ck_assert_str_eq(diag.message, want);

  cfg = (srv_config *)&cfg;
  ck_assert_int_eq(srv_config_load(&cfg, d.path, &diag), -EISDIR);
  ck_assert_ptr_null(cfg);
  ck_assert_int_eq(diag.code, -EISDIR);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_ptr_nonnull(strstr(diag.message, "is a directory"));

  // A path through a regular file.
  tmpdir_file(&d, "file", path, sizeof path);
  write_file(path, "a = 1\n", 6);
  char below[700];
  snprintf(below, sizeof below, "%s/x.conf", path);
  ck_assert_int_eq(srv_config_load(&cfg, below, &diag), -ENOTDIR);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(d.path), 0);
}
END_TEST

START_TEST(load_size_limit) {
  struct tmpdir d;
  char path[600];
  tmpdir_make(&d);
  tmpdir_file(&d, "big.conf", path, sizeof path);
  char *data = malloc(SRV_CONFIG_MAX_FILE + 1);
  ck_assert_ptr_nonnull(data);
  // Comment lines of 100 bytes, so that only the size limit can trip.
  memset(data, '#', SRV_CONFIG_MAX_FILE + 1);
  for (size_t i = 99; i < SRV_CONFIG_MAX_FILE + 1; i += 100)
    data[i] = '\n';

  srv_config *cfg = NULL;
  srv_config_diag diag;
  write_file(path, data, SRV_CONFIG_MAX_FILE);
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), 0);
  srv_config_free(cfg);

  write_file(path, data, SRV_CONFIG_MAX_FILE + 1);
  ck_assert_int_eq(srv_config_load(&cfg, path, &diag), SRV_ERR_LIMIT);
  ck_assert_ptr_null(cfg);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_ptr_nonnull(strstr(diag.message, "larger than 1048576 bytes"));
  free(data);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(d.path), 0);
}
END_TEST

START_TEST(load_device) {
  // Not a regular file: read to end of file all the same.
  srv_config *cfg = NULL;
  ck_assert_int_eq(srv_config_load(&cfg, "/dev/null", NULL), 0);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 0);
  srv_config_free(cfg);
  // ... and still bounded: /dev/zero never ends, and holds NUL bytes.
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_load(&cfg, "/dev/zero", &diag), SRV_ERR_LIMIT);
  ck_assert_ptr_null(cfg);
  ck_assert_str_eq(diag.message, "/dev/zero: larger than 1048576 bytes");
}
END_TEST

// Errors.

static const struct {
  int code;
  const char *text;
} own_errors[] = {
    {SRV_ERR_INVALID_ARGUMENT, "invalid argument"},
    {SRV_ERR_LIMIT, "limit exceeded"},
    {SRV_ERR_CONFIG_SYNTAX, "configuration syntax error"},
    {SRV_ERR_CONFIG_DUPLICATE, "configuration key defined twice"},
    {SRV_ERR_CONFIG_VALUE, "invalid configuration value"},
    {SRV_ERR_CONFIG_RANGE, "configuration value out of range"},
};

START_TEST(own_error_codes_have_own_text) {
  size_t n = sizeof own_errors / sizeof own_errors[0];
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_le(own_errors[i].code, -10700);
    ck_assert_int_ge(own_errors[i].code, -10799);
    ck_assert_str_eq(srv_strerror(own_errors[i].code), own_errors[i].text);
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(own_errors[i].code, own_errors[j].code);
  }
}
END_TEST

START_TEST(strerror_covers_success_errno_and_unknown) {
  ck_assert_str_eq(srv_strerror(0), "success");
  ck_assert_str_eq(srv_strerror(-ENOENT), "No such file or directory");
  ck_assert_str_eq(srv_strerror(-EISDIR), "Is a directory");
  ck_assert_str_eq(srv_strerror(1), "unknown error");
  ck_assert_str_eq(srv_strerror(-10699), "unknown error");
  ck_assert_str_eq(srv_strerror(-10706), "unknown error");
  ck_assert_str_eq(srv_strerror(-10799), "unknown error");
  ck_assert_str_eq(srv_strerror(-10800), "unknown error");
}
END_TEST

// Error paths no case above reached.

// A file that opens but cannot be read: /proc/self/mem is a regular file
// whose read at offset 0 (an address never mapped) fails with EIO.
START_TEST(load_read_error) {
  srv_config *cfg = (srv_config *)&cfg;
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_load(&cfg, "/proc/self/mem", &diag), -EIO);
  ck_assert_ptr_null(cfg);
  ck_assert_int_eq(diag.code, -EIO);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_str_eq(diag.file, "/proc/self/mem");
  char want[128];
  snprintf(want, sizeof want, "/proc/self/mem: cannot read: %s", srv_strerror(-EIO));
  ck_assert_str_eq(diag.message, want);
}
END_TEST

// A file without read permission cannot be opened (EACCES), except by root,
// whom the permission does not stop.
START_TEST(load_without_read_permission) {
  struct tmpdir d;
  char path[600];
  tmpdir_make(&d);
  tmpdir_file(&d, "secret.conf", path, sizeof path);
  write_file(path, "a = 1\n", 6);
  ck_assert_int_eq(chmod(path, 0200), 0);
  srv_config *cfg = (srv_config *)&cfg;
  srv_config_diag diag;
  int rc = srv_config_load(&cfg, path, &diag);
  if (geteuid() == 0) {
    ck_assert_int_eq(rc, 0);
    srv_config_free(cfg);
  } else {
    ck_assert_int_eq(rc, -EACCES);
    ck_assert_ptr_null(cfg);
    ck_assert_uint_eq(diag.line, 0);
    char want[800];
    snprintf(want, sizeof want, "%s: cannot open: %s", path, srv_strerror(-EACCES));
    ck_assert_str_eq(diag.message, want);
  }
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(d.path), 0);
}
END_TEST

// The exact messages of values too large to represent and of quantities out
// of range, with their unit.
START_TEST(too_large_and_out_of_range_messages) {
  srv_config *cfg = parse_ok("int = -99999999999999999999\n"
                             "int_min = -9223372036854775809\n"
                             "size_digits = 99999999999999999999K\n"
                             "size_product = 16777216T\n"
                             "size_range = 2K\n"
                             "duration_product = 213503982335d\n"
                             "duration_range = 2s\n");
  srv_config_diag diag;
  int64_t i = 7;
  uint64_t u = 7;
  ck_assert_int_eq(srv_config_get_int(cfg, "int", INT64_MIN, INT64_MAX, 0, &i, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message, NAME ":1: key 'int': '-99999999999999999999' is too large");
  ck_assert_int_eq(srv_config_get_int(cfg, "int_min", INT64_MIN, INT64_MAX, 0, &i, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message, NAME ":2: key 'int_min': '-9223372036854775809' is too large");
  ck_assert_int_eq(i, 7);
  ck_assert_int_eq(srv_config_get_size(cfg, "size_digits", 0, UINT64_MAX, 0, &u, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message,
                   NAME ":3: key 'size_digits': '99999999999999999999K' is too large");
  // 2^24 TiB is 2^64 bytes: one more than UINT64_MAX.
  ck_assert_int_eq(srv_config_get_size(cfg, "size_product", 0, UINT64_MAX, 0, &u, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message, NAME ":4: key 'size_product': '16777216T' is too large");
  ck_assert_int_eq(srv_config_get_size(cfg, "size_range", 0, 1024, 0, &u, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message,
                   NAME ":5: key 'size_range': '2K' (2048 bytes) is out of range [0, 1024] bytes");
  // 213503982335 days is just over UINT64_MAX milliseconds.
  ck_assert_int_eq(srv_config_get_duration(cfg, "duration_product", 0, UINT64_MAX, 0, &u, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message, NAME ":6: key 'duration_product': '213503982335d' is too large");
  ck_assert_int_eq(srv_config_get_duration(cfg, "duration_range", 10, 1000, 10, &u, &diag),
                   SRV_ERR_CONFIG_RANGE);
  ck_assert_str_eq(diag.message,
                   NAME ":7: key 'duration_range': '2s' (2000 ms) is out of range [10, 1000] ms");
  ck_assert_uint_eq(u, 7);
  srv_config_free(cfg);
}
END_TEST

// A caller's bug is reported with what is known: no handle gives the name
// "(config)", no key gives "(null)", and the line is 0.
START_TEST(invalid_argument_messages) {
  srv_config *cfg = parse_ok("a = 1\n");
  srv_config_diag diag;
  int64_t i;
  ck_assert_int_eq(srv_config_get_int(NULL, NULL, 0, 1, 0, &i, &diag), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(diag.code, SRV_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(diag.line, 0);
  ck_assert_str_eq(diag.file, "(config)");
  ck_assert_str_eq(diag.message, "(config): key '(null)': invalid argument");
  ck_assert_int_eq(srv_config_reject(cfg, NULL, &diag, "a port"), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(diag.message, NAME ": key '(null)': invalid argument");
  ck_assert_int_eq(srv_config_reject(cfg, "a", &diag, NULL), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(diag.message, NAME ": key 'a': invalid argument");
  ck_assert_int_eq(srv_config_load(NULL, NULL, &diag), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(diag.message, "(config): invalid argument");
  ck_assert_int_eq(srv_config_parse(NULL, "", 0, NULL, &diag), SRV_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(diag.message, "(config): invalid argument");
  srv_config_free(cfg);
}
END_TEST

// A key longer than any key can be ("section.key", each at most
// SRV_CONFIG_MAX_NAME) is absent without a lookup: a getter gives the
// default, and srv_config_reject reports it with line 0.
START_TEST(overlong_key_is_absent) {
  srv_config *cfg = parse_ok("a = 1\n");
  char key[2 * SRV_CONFIG_MAX_NAME + 3];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';
  const char *s = NULL;
  ck_assert_int_eq(srv_config_get_string(cfg, key, "dflt", &s), 0);
  ck_assert_pstr_eq(s, "dflt");
  srv_config_diag diag;
  ck_assert_int_eq(srv_config_reject(cfg, key, &diag, "a port"), SRV_ERR_CONFIG_VALUE);
  ck_assert_uint_eq(diag.line, 0);
  char want[SRV_CONFIG_DIAG_MESSAGE_SIZE];
  snprintf(want, sizeof want, NAME ": key '%s': a port", key);
  ck_assert_str_eq(diag.message, want);
  ck_assert_int_eq(srv_config_unused(cfg, NULL, NULL), 1);
  srv_config_free(cfg);
}
END_TEST

// A quote character is shown by its code: a quoted quote would read badly.
START_TEST(quote_character_is_shown_as_hex) {
  srv_config *cfg = (srv_config *)&cfg;
  srv_config_diag diag;
  const char *text = "[a'b]\n";
  ck_assert_int_eq(srv_config_parse(&cfg, text, strlen(text), NAME, &diag), SRV_ERR_CONFIG_SYNTAX);
  ck_assert_ptr_null(cfg);
  ck_assert_str_eq(diag.message,
                   NAME ":1: invalid character 0x27 in section name (use a-z, 0-9, '_', '.', '-')");
}
END_TEST

#define N(table) ((int)(sizeof(table) / sizeof((table)[0])))

int main(void) {
  Suite *s = suite_create("servers-common-config");

  TCase *tc = tcase_create("format");
  tcase_add_loop_test(tc, good_input, 0, N(good_cases));
  tcase_add_loop_test(tc, bad_input, 0, N(bad_cases));
  tcase_add_test(tc, header_example_parses);
  tcase_add_test(tc, diag_message_is_exact);
  tcase_add_test(tc, empty_input_is_valid);
  tcase_add_test(tc, invalid_arguments);
  suite_add_tcase(s, tc);

  tc = tcase_create("limits");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, limit_line_length);
  tcase_add_test(tc, limit_entries);
  tcase_add_test(tc, limit_name_length);
  tcase_add_test(tc, limit_input_size);
  suite_add_tcase(s, tc);

  tc = tcase_create("getters");
  tcase_add_loop_test(tc, get_int_cases, 0, N(int_cases));
  tcase_add_test(tc, get_int_messages);
  tcase_add_test(tc, missing_keys_give_defaults);
  tcase_add_loop_test(tc, get_bool_cases, 0, N(bool_cases));
  tcase_add_loop_test(tc, get_size_cases, 0, N(size_cases));
  tcase_add_loop_test(tc, get_duration_cases, 0, N(duration_cases));
  tcase_add_test(tc, get_duration_needs_unit_message);
  tcase_add_loop_test(tc, get_list_cases, 0, N(list_cases));
  tcase_add_test(tc, get_list_defaults);
  tcase_add_test(tc, get_string_points_into_config);
  tcase_add_test(tc, unused_keys_are_reported);
  tcase_add_test(tc, reject_names_key_and_line);
  tcase_add_test(tc, getters_are_thread_safe);
  suite_add_tcase(s, tc);

  tc = tcase_create("load");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, load_real_file);
  tcase_add_test(tc, load_missing_file_and_directory);
  tcase_add_test(tc, load_size_limit);
  tcase_add_test(tc, load_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("errors");
  tcase_add_test(tc, own_error_codes_have_own_text);
  tcase_add_test(tc, strerror_covers_success_errno_and_unknown);
  suite_add_tcase(s, tc);

  tc = tcase_create("error_paths");
  tcase_add_test(tc, load_read_error);
  tcase_add_test(tc, load_without_read_permission);
  tcase_add_test(tc, too_large_and_out_of_range_messages);
  tcase_add_test(tc, invalid_argument_messages);
  tcase_add_test(tc, overlong_key_is_absent);
  tcase_add_test(tc, quote_character_is_shown_as_hex);
  suite_add_tcase(s, tc);

  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
