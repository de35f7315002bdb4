// test_summary.c: the cached message summary (ms_message_summary_get,
// ms_summary_make, ms_store_summarize): real messages from three corpora
// stored and read back against libmailparse's direct output, the RFC 5256
// base subject rules, sort keys, expunge, and stores written without
// summaries.
#include <check.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "mailparse.h"
#include "mailstore.h"
#include "meta.h"
#include "store_internal.h"
#include "store_util.h"

// Corpora the other tests read too (Debian packages libpython3.11-testsuite,
// golang-github-jhillyerd-enmime-dev, spamassassin).
static const char *const corpora[] = {
    "/usr/lib/python3.11/test/test_email/data/msg_*.txt",
    "/usr/share/gocode/src/github.com/jhillyerd/enmime/testdata/*/*.raw",
    "/usr/share/doc/spamassassin/examples/sample-*.txt",
};

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

struct fixture {
  char *dir;
  ms_store *s;
  uint32_t acct, inbox, other;
};

static void fx_open(struct fixture *x) {
  x->dir = tmp_store_dir();
  struct ms_settings set = {.no_sync = 1, .dict_train_after = UINT32_MAX};
  ck_assert_int_eq(ms_store_open(&x->s, x->dir, &set), 0);
  ck_assert_int_eq(ms_account_create(x->s, &x->acct, "u", 1, 0, 0), 0);
  ck_assert_int_eq(ms_mailbox_create(x->s, &x->inbox, x->acct, "INBOX", 5, MS_ROLE_INBOX), 0);
  ck_assert_int_eq(ms_mailbox_create(x->s, &x->other, x->acct, "Other", 5, 0), 0);
}

static void fx_close(struct fixture *x) {
  ms_store_close(x->s);
  rm_store_dir(x->dir);
}

// get_summary reads a summary into a malloc'd buffer sized by a first call.
static uint8_t *get_summary(ms_store *s, struct ms_summary *out, uint32_t acct, uint64_t id) {
  size_t need = 0;
  int rc = ms_message_summary_get(s, out, NULL, 0, &need, acct, id);
  ck_assert_int_eq(rc, MS_ERR_LIMIT);
  ck_assert_uint_ge(need, SUMMARY_HEAD);
  uint8_t *buf = malloc(need);
  ck_assert_ptr_nonnull(buf);
  size_t len = 0;
  ck_assert_int_eq(ms_message_summary_get(s, out, buf, need, &len, acct, id), 0);
  ck_assert_uint_eq(len, need);
  return buf;
}

static void text_eq(struct ms_text t, const char *want) {
  size_t n = strlen(want);
  ck_assert_msg(t.len == n && (n == 0 || memcmp(t.p, want, n) == 0), "got '%.*s', want '%s'",
                (int)t.len, t.p ? t.p : "", want);
}

static uint64_t deliver(struct fixture *x, const char *msg, int64_t idate) {
  uint64_t id = 0;
  ck_assert_int_eq(ms_message_append(x->s, &id, NULL, x->acct, x->inbox, (const uint8_t *)msg,
                                     strlen(msg), 0, idate),
                   0);
  return id;
}

// direct writes what libmailparse gives for part 0 of `data`: ENVELOPE
// (kind 0) or BODYSTRUCTURE (kind 1), into a malloc'd buffer.
static char *direct(const uint8_t *data, size_t len, int kind, size_t *out_len) {
  mp_settings set = MP_SETTINGS_INIT;
  mp_message *m = NULL;
  ck_assert_int_eq(mp_message_parse(&m, &set, data, len, NULL), 0);
  size_t need = 0;
  int rc = kind == 0 ? mp_part_envelope(m, 0, NULL, 0, &need)
                     : mp_part_bodystructure(m, 0, 1, NULL, 0, &need);
  char *buf = NULL;
  *out_len = 0;
  if (rc == 0 && need) {
    buf = malloc(need);
    rc = kind == 0 ? mp_part_envelope(m, 0, buf, need, out_len)
                   : mp_part_bodystructure(m, 0, 1, buf, need, out_len);
    ck_assert_int_eq(rc, 0);
  }
  mp_message_free(m);
  return buf;
}

START_TEST(corpus_matches_libmailparse) {
  struct fixture x;
  fx_open(&x);
  size_t files = 0, with_attachment = 0, with_preview = 0;
  for (size_t c = 0; c < sizeof corpora / sizeof corpora[0]; c++) {
    glob_t g;
    if (glob(corpora[c], 0, NULL, &g) != 0)
      continue;
    for (size_t i = 0; i < g.gl_pathc; i++) {
      size_t len;
      uint8_t *data = read_file(g.gl_pathv[i], &len);
      if (len == 0) {
        free(data);
        continue;
      }
      uint64_t id;
      ck_assert_int_eq(ms_message_append(x.s, &id, NULL, x.acct, x.inbox, data, len, 0, 1000 + i),
                       0);
      struct ms_summary s;
      uint8_t *buf = get_summary(x.s, &s, x.acct, id);
      ck_assert_msg(s.flags & MS_SUMMARY_STORED, "%s", g.gl_pathv[i]);
      ck_assert_uint_eq(s.size, len);
      ck_assert_int_eq(s.internal_date, 1000 + (int64_t)i);
      for (int kind = 0; kind < 2; kind++) {
        size_t dl;
        char *d = direct(data, len, kind, &dl);
        struct ms_text t = kind == 0 ? s.envelope : s.bodystructure;
        ck_assert_msg(t.len == dl && (dl == 0 || memcmp(t.p, d, dl) == 0), "%s: %s differs",
                      g.gl_pathv[i], kind == 0 ? "ENVELOPE" : "BODYSTRUCTURE");
        free(d);
      }
      ck_assert_msg(s.envelope.len > 0 && s.envelope.p[0] == '(', "%s", g.gl_pathv[i]);
      // The record made without a store is byte for byte the stored one.
      size_t need = 0;
      struct ms_summary s2;
      ck_assert_int_eq(ms_summary_make(&s2, NULL, 0, &need, data, len, 1000 + (int64_t)i),
                       MS_ERR_LIMIT);
      uint8_t *buf2 = malloc(need);
      size_t got = 0;
      ck_assert_int_eq(ms_summary_make(&s2, buf2, need, &got, data, len, 1000 + (int64_t)i), 0);
      ck_assert_int_eq(memcmp(buf, buf2, got), 0);
      ck_assert_uint_eq(s2.flags | MS_SUMMARY_STORED, s.flags);
      // The message's thread id is set; a message names itself or an
      // earlier message's thread.
      struct ms_message_info info;
      ck_assert_int_eq(ms_message_get(x.s, &info, x.acct, id), 0);
      ck_assert_uint_ge(info.thread_id, 1);
      ck_assert_uint_le(info.thread_id, id);
      with_attachment += (s.flags & MS_SUMMARY_HAS_ATTACHMENT) != 0;
      with_preview += s.preview.len > 0;
      free(buf2);
      free(buf);
      free(data);
      files++;
    }
    globfree(&g);
  }
  // The three corpora hold some 150 messages; far fewer means they are
  // not installed and this test would prove nothing.
  ck_assert_uint_ge(files, 100);
  ck_assert_uint_ge(with_attachment, 10);
  ck_assert_uint_ge(with_preview, files / 2);
  ck_assert_int_eq(ms_store_verify(x.s, NULL), 0);
  fx_close(&x);
}
END_TEST

// The summary writes ENVELOPE and BODYSTRUCTURE into a first guess of a
// buffer and only a long one a second time: both paths give exactly what
// libmailparse writes, short and long (to 64 recipients, far past the
// guess), and around the guess's size.
START_TEST(long_envelope) {
  for (unsigned n = 0; n <= 64; n += n < 8 ? 1 : 8) {
    char msg[16384];
    size_t o = (size_t)snprintf(msg, sizeof msg, "From: a@example.org\r\nTo: ");
    for (unsigned i = 0; i < n; i++)
      o += (size_t)snprintf(msg + o, sizeof msg - o, "%sRecipient Number %u <r%u@example.org>",
                            i ? ",\r\n " : "", i, i);
    o += (size_t)snprintf(msg + o, sizeof msg - o,
                          "%s\r\nSubject: many\r\nMessage-ID: <m%u@x>\r\n\r\nbody\r\n",
                          n ? "" : "b@example.org", n);
    ck_assert_uint_lt(o, sizeof msg - 1);
    size_t need = 0, got = 0;
    struct ms_summary s;
    ck_assert_int_eq(ms_summary_make(&s, NULL, 0, &need, (uint8_t *)msg, o, 1), MS_ERR_LIMIT);
    uint8_t *buf = malloc(need);
    ck_assert_int_eq(ms_summary_make(&s, buf, need, &got, (uint8_t *)msg, o, 1), 0);
    for (int kind = 0; kind < 2; kind++) {
      size_t dl;
      char *d = direct((uint8_t *)msg, o, kind, &dl);
      struct ms_text t = kind == 0 ? s.envelope : s.bodystructure;
      ck_assert_msg(dl > 0 && t.len == dl && memcmp(t.p, d, dl) == 0, "%u: %s differs", n,
                    kind == 0 ? "ENVELOPE" : "BODYSTRUCTURE");
      free(d);
    }
    if (n == 64)
      ck_assert_uint_gt(s.envelope.len, 2048);
    free(buf);
  }
}
END_TEST

// RFC 5256 section 2.1 base subjects, one message each.
static const struct {
  const char *subject;
  const char *base;
  int reply;
} subjects[] = {
    {"hello", "hello", 0},
    {"Re: hello", "hello", 1},
    {"RE: re: Re: hello", "hello", 1},
    {"Fwd: hello", "hello", 1},
    {"fw: hello", "hello", 1},
    {"Re[2]: hello", "hello", 1},
    {"[list] Re: hello", "hello", 1},
    {"Re: [list] hello", "hello", 1},
    {"hello (fwd)", "hello", 1},
    {"hello (fwd) (fwd)", "hello", 1},
    {"[fwd: hello]", "hello", 1},
    {"[Fwd: Re: hello]", "hello", 1},
    {"Re:   hello    world  ", "hello world", 1},
    {"[list]", "[list]", 0},
    {"=?UTF-8?Q?Re=3A_caf=C3=A9?=", "caf\xc3\xa9", 1},
    {"=?ISO-8859-1?Q?Re:_na=EFve?= reply", "na\xc3\xafve reply", 1},
    {"Re: Fwd: [x] Re: deep (fwd)", "deep", 1},
    {"", "", 0},
};

START_TEST(base_subjects) {
  struct fixture x;
  fx_open(&x);
  for (size_t i = 0; i < sizeof subjects / sizeof subjects[0]; i++) {
    char msg[512];
    snprintf(msg, sizeof msg, "From: a@example.org\r\nSubject: %s\r\n\r\nbody\r\n",
             subjects[i].subject);
    uint64_t id = deliver(&x, msg, 5);
    struct ms_summary s;
    uint8_t *buf = get_summary(x.s, &s, x.acct, id);
    text_eq(s.subject, subjects[i].base);
    ck_assert_msg(((s.flags & MS_SUMMARY_REPLY) != 0) == subjects[i].reply, "reply flag of '%s'",
                  subjects[i].subject);
    free(buf);
  }
  fx_close(&x);
}
END_TEST

START_TEST(sort_fields) {
  struct fixture x;
  fx_open(&x);
  uint64_t id = deliver(&x,
                        "From: \"Zed Zulu\" <alice@example.org>, bob@example.org\r\n"
                        "To: undisclosed-recipients:;, Carol <carol@example.net>\r\n"
                        "Cc: dave@example.com\r\n"
                        "Date: Tue, 1 Jul 2003 10:52:37 +0200\r\n"
                        "Subject: Re: plans\r\n"
                        "Message-ID: <m1@example.org>\r\n"
                        "In-Reply-To: <p0@example.org> (your mail)\r\n"
                        "References: <r1@example.org>\r\n <r2@example.org>  <p0@example.org>\r\n"
                        "\r\nHello   world,\r\n\r\nsee you.\r\n",
                        99);
  struct ms_summary s;
  uint8_t *buf = get_summary(x.s, &s, x.acct, id);
  text_eq(s.from, "alice");
  text_eq(s.display_from, "Zed Zulu");
  text_eq(s.to, "carol");
  text_eq(s.display_to, "Carol");
  text_eq(s.cc, "dave");
  text_eq(s.subject, "plans");
  text_eq(s.message_id, "m1@example.org");
  text_eq(s.in_reply_to, "p0@example.org");
  text_eq(s.references, "r1@example.org r2@example.org p0@example.org");
  text_eq(s.preview, "Hello world, see you.");
  ck_assert_int_eq(s.date, 1057049557); // 2003-07-01 08:52:37 UTC
  ck_assert_int_eq(s.date_offset, 120);
  ck_assert_int_eq(s.internal_date, 99);
  ck_assert(s.flags & MS_SUMMARY_HAS_DATE);
  ck_assert(!(s.flags & MS_SUMMARY_HAS_ATTACHMENT));
  free(buf);

  // No display name: DISPLAYFROM is the addr-spec (RFC 5957 section 3).
  // A Date that does not parse counts as missing: the internal date.
  id = deliver(&x,
               "From: bob@example.org\r\nDate: yesterday-ish\r\n"
               "Content-Type: multipart/mixed; boundary=b\r\n\r\n"
               "--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n"
               "--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; "
               "filename=x.pdf\r\n\r\nJVBERi0=\r\n--b--\r\n",
               12345);
  buf = get_summary(x.s, &s, x.acct, id);
  text_eq(s.from, "bob");
  text_eq(s.display_from, "bob@example.org");
  text_eq(s.to, "");
  text_eq(s.message_id, "");
  text_eq(s.preview, "see attached");
  ck_assert_int_eq(s.date, 12345);
  ck_assert(!(s.flags & MS_SUMMARY_HAS_DATE));
  ck_assert(s.flags & MS_SUMMARY_HAS_ATTACHMENT);
  ck_assert(s.bodystructure.len > 0 && s.bodystructure.p[0] == '(');
  // A too small buffer reports the size and writes nothing usable.
  size_t need = 0;
  uint8_t small[8];
  ck_assert_int_eq(ms_message_summary_get(x.s, &s, small, sizeof small, &need, x.acct, id),
                   MS_ERR_LIMIT);
  ck_assert_uint_gt(need, sizeof small);
  ck_assert_int_eq(ms_message_summary_get(x.s, &s, small, sizeof small, &need, x.acct, 999),
                   MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_summary_get(NULL, &s, small, sizeof small, &need, x.acct, id),
                   MS_ERR_INVALID_ARGUMENT);
  free(buf);
  fx_close(&x);
}
END_TEST

// drop_summaries deletes every stored summary, as a store written by a
// library without them would look.
static int drop_tx(ms_store *s, MDB_txn *t, void *p) {
  (void)p;
  return lmdb_err(mdb_drop(t, s->summaries, 0));
}

START_TEST(copy_move_expunge) {
  struct fixture x;
  fx_open(&x);
  uint64_t a = deliver(&x, "Subject: a\r\n\r\nA\r\n", 1);
  uint64_t b = deliver(&x, "Subject: b\r\n\r\nB\r\n", 2);
  uint32_t uids[2] = {1, 2}, out[2];
  ck_assert_int_eq(ms_messages_copy(x.s, out, x.acct, x.inbox, x.other, uids, 1), 1);
  ck_assert_int_eq(ms_messages_move(x.s, out, x.acct, x.inbox, x.other, uids + 1, 1), 1);
  struct ms_summary s;
  free(get_summary(x.s, &s, x.acct, a));
  free(get_summary(x.s, &s, x.acct, b));
  ck_assert(s.flags & MS_SUMMARY_STORED);
  // Expunging one of a's two memberships keeps its summary; the last one
  // destroys it with the message.
  ck_assert_int_eq(ms_messages_expunge(x.s, x.acct, x.inbox, uids, 1), 1);
  free(get_summary(x.s, &s, x.acct, a));
  ck_assert_int_eq(ms_messages_expunge(x.s, x.acct, x.other, NULL, 0), 0);
  uint32_t all[2] = {1, 2};
  ck_assert_int_eq(ms_messages_expunge(x.s, x.acct, x.other, all, 2), 2);
  size_t need = 0;
  ck_assert_int_eq(ms_message_summary_get(x.s, &s, NULL, 0, &need, x.acct, a), MS_ERR_NOTFOUND);
  ck_assert_int_eq(ms_message_summary_get(x.s, &s, NULL, 0, &need, x.acct, b), MS_ERR_NOTFOUND);
  MDB_txn *t;
  ck_assert_int_eq(txn_begin(x.s, MDB_RDONLY, &t), 0);
  MDB_stat st;
  ck_assert_int_eq(mdb_stat(t, x.s->summaries, &st), 0);
  ck_assert_uint_eq(st.ms_entries, 0);
  txn_abort(x.s, t);
  ck_assert_int_eq(ms_store_verify(x.s, NULL), 0);
  fx_close(&x);
}
END_TEST

START_TEST(older_store_upgrade) {
  struct fixture x;
  fx_open(&x);
  enum { N = 40 };
  uint64_t ids[N];
  uint8_t *before[N];
  size_t blen[N];
  for (int i = 0; i < N; i++) {
    char msg[256];
    snprintf(
        msg, sizeof msg,
        "From: u%d@example.org\r\nSubject: Re: item %d\r\nMessage-ID: <%d@x>\r\n\r\nbody %d\r\n", i,
        i, i, i);
    ids[i] = deliver(&x, msg, 100 + i);
    struct ms_summary s;
    before[i] = get_summary(x.s, &s, x.acct, ids[i]);
    blen[i] = 0;
    ck_assert_int_eq(ms_message_summary_get(x.s, &s, NULL, 0, &blen[i], x.acct, ids[i]),
                     MS_ERR_LIMIT);
  }
  // SORT and THREAD answer the same without stored summaries.
  uint32_t key = MS_SORT_FROM | MS_SORT_REVERSE, sorted[2][N];
  char threads[2][N * MS_THREAD_BYTES_PER_MESSAGE + 2];
  size_t ns = 0, tl[2] = {0, 0}, nt = 0;
  ck_assert_int_eq(
      ms_mailbox_sort(x.s, sorted[0], N, &ns, NULL, x.acct, x.inbox, NULL, 0, &key, 1, 0), 0);
  ck_assert_int_eq(ms_mailbox_thread(x.s, threads[0], sizeof threads[0], &tl[0], &nt, x.acct,
                                     x.inbox, NULL, 0, MS_THREAD_ORDEREDSUBJECT),
                   0);
  ck_assert_int_eq(run_write(x.s, drop_tx, NULL), 0);
  ck_assert_int_eq(
      ms_mailbox_sort(x.s, sorted[1], N, &ns, NULL, x.acct, x.inbox, NULL, 0, &key, 1, 0), 0);
  ck_assert_uint_eq(ns, N);
  ck_assert_int_eq(memcmp(sorted[0], sorted[1], sizeof sorted[0]), 0);
  ck_assert_uint_eq(sorted[0][0], 10); // u9 sorts last, reversed first
  ck_assert_int_eq(ms_mailbox_thread(x.s, threads[1], sizeof threads[1], &tl[1], &nt, x.acct,
                                     x.inbox, NULL, 0, MS_THREAD_ORDEREDSUBJECT),
                   0);
  ck_assert_uint_eq(tl[0], tl[1]);
  ck_assert_int_eq(memcmp(threads[0], threads[1], tl[0]), 0);
  // Without stored summaries the same summary is made on the fly.
  for (int i = 0; i < N; i++) {
    struct ms_summary s;
    uint8_t *now = get_summary(x.s, &s, x.acct, ids[i]);
    ck_assert(!(s.flags & MS_SUMMARY_STORED));
    ck_assert_int_eq(memcmp(now, before[i], blen[i]), 0);
    free(now);
  }
  // The upgrade stores them in steps and is idempotent.
  ck_assert_int_eq(ms_store_summarize(x.s, 25), 25);
  ck_assert_int_eq(ms_store_summarize(x.s, 25), N - 25);
  ck_assert_int_eq(ms_store_summarize(x.s, 0), 0);
  ck_assert_int_eq(ms_store_summarize(x.s, 70000), MS_ERR_INVALID_ARGUMENT);
  for (int i = 0; i < N; i++) {
    struct ms_summary s;
    uint8_t *now = get_summary(x.s, &s, x.acct, ids[i]);
    ck_assert(s.flags & MS_SUMMARY_STORED);
    ck_assert_int_eq(memcmp(now, before[i], blen[i]), 0);
    free(now);
    free(before[i]);
  }
  ck_assert_int_eq(ms_store_verify(x.s, NULL), 0);
  fx_close(&x);
}
END_TEST

// A damaged record is refused, never read out of bounds.
START_TEST(decode_rejects_damage) {
  const char *msg = "From: a@b\r\nSubject: x\r\n\r\nbody\r\n";
  uint8_t *r;
  size_t n;
  ck_assert_int_eq(summary_build(&r, &n, (const uint8_t *)msg, strlen(msg), 7), 0);
  struct ms_summary s;
  ck_assert_int_eq(summary_decode(&s, r, n), 0);
  for (size_t cut = 0; cut < n; cut++)
    ck_assert_int_eq(summary_decode(&s, r, cut), MS_ERR_CORRUPT);
  r[0] = 2;
  ck_assert_int_eq(summary_decode(&s, r, n), MS_ERR_CORRUPT);
  r[0] = SUMMARY_VERSION;
  r[28] ^= 0x80; // the first length now runs past the end
  ck_assert_int_eq(summary_decode(&s, r, n), MS_ERR_CORRUPT);
  free(r);
}
END_TEST

// damage_tx rewrites the summary of message *(uint64_t *)p of account 1
// with a size one too large: a record that decodes but lies.
static int damage_tx(ms_store *s, MDB_txn *t, void *p) {
  uint8_t k[12] = {0, 0, 0, 1};
  uint64_t id = *(uint64_t *)p;
  for (int i = 0; i < 8; i++)
    k[4 + i] = (uint8_t)(id >> (56 - 8 * i));
  MDB_val key = {12, k}, v;
  int rc = mdb_get(t, s->summaries, &key, &v);
  if (rc)
    return lmdb_err(rc);
  uint8_t *copy = malloc(v.mv_size);
  memcpy(copy, v.mv_data, v.mv_size);
  copy[20]++;
  MDB_val nv = {v.mv_size, copy};
  rc = mdb_put(t, s->summaries, &key, &nv, 0);
  free(copy);
  return lmdb_err(rc);
}

START_TEST(verify_checks_summaries) {
  struct fixture x;
  fx_open(&x);
  ck_assert_uint_eq(x.acct, 1);
  uint64_t id = deliver(&x, "Subject: a\r\n\r\nA\r\n", 1);
  struct ms_diag d;
  ck_assert_int_eq(ms_store_verify(x.s, &d), 0);
  ck_assert_int_eq(run_write(x.s, damage_tx, &id), 0);
  ck_assert_int_eq(ms_store_verify(x.s, &d), MS_ERR_CORRUPT);
  ck_assert_msg(strstr(d.message, "summary") != NULL, "%s", d.message);
  fx_close(&x);
}
END_TEST

int main(void) {
  Suite *s = suite_create("mailstore-summary");
  TCase *tc = tcase_create("summary");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, corpus_matches_libmailparse);
  tcase_add_test(tc, long_envelope);
  tcase_add_test(tc, base_subjects);
  tcase_add_test(tc, sort_fields);
  tcase_add_test(tc, copy_move_expunge);
  tcase_add_test(tc, older_store_upgrade);
  tcase_add_test(tc, decode_rejects_damage);
  tcase_add_test(tc, verify_checks_summaries);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
