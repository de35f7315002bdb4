// indexer_test_util.h: what the indexer tests share: three messages they
// deliver and then search for (plain text with an Organization header, HTML
// with an RFC 2047 subject, a multipart with a Base64 attachment), a search
// that lists the hits, and numbers as text. Test-only, header-only.
#ifndef SRV_INDEXER_TEST_UTIL_H
#define SRV_INDEXER_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ftsearch.h"

static const char plain_msg[] = "From: Alice Arbour <alice@example.org>\r\n"
                                "To: bob@example.net\r\n"
                                "Subject: quarterly zebra report\r\n"
                                "Organization: Umbrellacorp Holdings\r\n"
                                "\r\n"
                                "The pelican sings at dawn.\r\n";

static const char html_msg[] = "From: carol@example.org\r\n"
                               "To: bob@example.net\r\n"
                               "Subject: =?UTF-8?Q?caf=C3=A9_invitation?=\r\n"
                               "Content-Type: text/html; charset=utf-8\r\n"
                               "\r\n"
                               "<html><body><p>Hippopotamus <b>dance</b> &amp; "
                               "tango</p></body></html>\r\n";

static const char attach_msg[] = "From: dave@example.org\r\n"
                                 "To: bob@example.net\r\n"
                                 "Subject: notes\r\n"
                                 "MIME-Version: 1.0\r\n"
                                 "Content-Type: multipart/mixed; boundary=\"b1\"\r\n"
                                 "\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "\r\n"
                                 "see the attached file\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain; name=\"minutes.txt\"\r\n"
                                 "Content-Disposition: attachment; filename=\"minutes.txt\"\r\n"
                                 "Content-Transfer-Encoding: base64\r\n"
                                 "\r\n"
                                 "d2FscnVzIGFuZCBjYXJwZW50ZXI=\r\n" // "walrus and carpenter"
                                 "--b1--\r\n";

// search returns the matching documents as "1 2 3".
static inline const char *search(fts_index *idx, uint32_t acct, const char *q) {
  static char out[8192];
  fts_query *query;
  ck_assert_int_eq(fts_query_parse(&query, NULL, q, strlen(q), NULL), 0);
  fts_result *r;
  fts_search_options o = {.lang = "en"};
  ck_assert_int_eq(fts_search(idx, &r, acct, query, &o), 0);
  size_t n = 0;
  out[0] = 0;
  for (size_t i = 0; i < r->num_docs && n + 16 < sizeof out; i++)
    n += (size_t)snprintf(out + n, sizeof out - n, "%s%u", i ? " " : "", r->docs[i]);
  fts_result_free(r);
  fts_query_free(query);
  return out;
}

static inline const char *num(uint64_t v) {
  static char s[4][24];
  static int k;
  k = (k + 1) & 3;
  snprintf(s[k], sizeof s[k], "%llu", (unsigned long long)v);
  return s[k];
}

#endif // SRV_INDEXER_TEST_UTIL_H
