// test_typed_list.c: mp_list_uris_parse and mp_list_id_parse
// (src/typed_list.c): the RFC 2369 §3 examples (List-Help, List-Post: NO,
// folded URI lists), RFC 2919 §2 List-Id examples and broken forms.
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"

struct vec {
  const char *section;
  const char *in;
  const char *want; // URIs joined by " "
  unsigned flags_set;
};

static const struct vec uris[] = {
    {"RFC 2369 §3.1", "<mailto:list@host.com?subject=help> (List Instructions)",
     "mailto:list@host.com?subject=help", 0},
    {"RFC 2369 §3.1", "<mailto:list-manager@host.com?body=info>",
     "mailto:list-manager@host.com?body=info", 0},
    {"RFC 2369 §3.1", "<http://www.host.com/list/>, <mailto:list-info@host.com>",
     "http://www.host.com/list/ mailto:list-info@host.com", 0},
    {"RFC 2369 §3.1",
     "<ftp://ftp.host.com/list.txt> (FTP),\r\n    <mailto:list@host.com?subject=help> (List "
     "Instructions)",
     "ftp://ftp.host.com/list.txt mailto:list@host.com?subject=help", 0},
    {"RFC 2369 §3.4", "NO (posting not allowed on this list)", "", MP_TYPED_LIST_NO},
    {"RFC 2369 §2 folded URI", "<http://www.host.com/a\r\n   /b/c>", "http://www.host.com/a/b/c",
     0},
    {"bare URI", "https://example.com/unsub", "https://example.com/unsub", MP_TYPED_REPAIRED},
    {"junk", "please <mailto:a@b>", "mailto:a@b", MP_TYPED_JUNK},
    {"unclosed", "<mailto:a@b", "mailto:a@b", MP_TYPED_UNTERMINATED},
    {"comment with bracket", "(see <x>) <mailto:a@b>", "mailto:a@b", 0},
};

START_TEST(uri_vectors) {
  const struct vec *v = &uris[_i];
  size_t in_len = strlen(v->in);
  size_t cap = mp_typed_text_max_len(in_len);
  char *text = malloc(cap);
  mp_str out[8];
  size_t n, tl;
  unsigned flags = 0;
  ck_assert_int_eq(mp_list_uris_parse(out, 8, &n, text, cap, &tl, &flags, v->in, in_len), 0);
  char got[512];
  size_t len = 0;
  got[0] = 0;
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%.*s", i ? " " : "", (int)out[i].len,
                            out[i].p);
  ck_assert_msg(strcmp(got, v->want) == 0, "%s: got \"%s\", want \"%s\"", v->section, got, v->want);
  ck_assert_msg((flags & v->flags_set) == v->flags_set, "%s: flags %#x lack %#x", v->section, flags,
                v->flags_set);
  if (n > 0) {
    size_t n2 = 3, tl2 = 3;
    ck_assert_int_eq(mp_list_uris_parse(out, n - 1, &n2, text, cap, &tl2, NULL, v->in, in_len),
                     MP_ERR_LIMIT);
    ck_assert_int_eq(mp_list_uris_parse(out, 8, &n2, text, tl - 1, &tl2, NULL, v->in, in_len),
                     MP_ERR_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(n2, 0);
  }
  free(text);
}
END_TEST

static const struct {
  const char *section, *in, *name, *id;
} ids[] = {
    {"RFC 2919 §2", "List Header Mailing List <list-header.nisto.com>", "List Header Mailing List",
     "list-header.nisto.com"},
    {"RFC 2919 §2", "<commonspace-users.list-id.within.com>", NULL,
     "commonspace-users.list-id.within.com"},
    {"RFC 2919 §2",
     "\"Lena's Personal Joke List\"\r\n     "
     "<lenas-jokes.da39efc25c530ad145d41b86f7420c3b.021999.localhost>",
     "Lena's Personal Joke List", "lenas-jokes.da39efc25c530ad145d41b86f7420c3b.021999.localhost"},
    {"RFC 2047 phrase", "=?utf-8?q?Liste_f=C3=BCr_alle?= <alle.example.org>",
     "Liste f\xc3\xbcr alle", "alle.example.org"},
    {"no brackets", "list.example.org", NULL, "list.example.org"},
};

START_TEST(list_id_vectors) {
  char text[512];
  mp_list_id li;
  size_t tl;
  unsigned flags;
  const char *in = ids[_i].in;
  ck_assert_int_eq(mp_list_id_parse(&li, text, sizeof text, &tl, &flags, in, strlen(in)), 0);
  if (ids[_i].name == NULL) {
    ck_assert_ptr_null(li.name.p);
  } else {
    ck_assert_msg(li.name.len == strlen(ids[_i].name) &&
                      memcmp(li.name.p, ids[_i].name, li.name.len) == 0,
                  "%s: name \"%.*s\"", ids[_i].section, (int)li.name.len, li.name.p);
  }
  ck_assert_uint_eq(li.id.len, strlen(ids[_i].id));
  ck_assert_mem_eq(li.id.p, ids[_i].id, li.id.len);
}
END_TEST

START_TEST(list_id_errors) {
  char text[64];
  mp_list_id li;
  size_t tl = 5;
  ck_assert_int_eq(mp_list_id_parse(&li, text, sizeof text, &tl, NULL, "", 0), MP_ERR_SYNTAX);
  ck_assert_int_eq(mp_list_id_parse(&li, text, sizeof text, &tl, NULL, "two words", 9),
                   MP_ERR_SYNTAX);
  ck_assert_int_eq(mp_list_id_parse(&li, text, sizeof text, &tl, NULL, "name <>", 7),
                   MP_ERR_SYNTAX);
  ck_assert_uint_eq(tl, 0);
  ck_assert_int_eq(mp_list_id_parse(&li, text, 3, &tl, NULL, "<abcd.e>", 8),
                   MP_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mp_list_id_parse(NULL, text, 3, &tl, NULL, "<abcd.e>", 8),
                   MP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typed_list");
  TCase *tc = tcase_create("list");
  tcase_add_loop_test(tc, uri_vectors, 0, (int)(sizeof uris / sizeof uris[0]));
  tcase_add_loop_test(tc, list_id_vectors, 0, (int)(sizeof ids / sizeof ids[0]));
  tcase_add_test(tc, list_id_errors);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
