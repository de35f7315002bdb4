// test_transform.c: Base64 bodies stored decoded (store format 6, codec 4)
// against a real store: round trips of many shapes (CRLF and LF, 76, 72, 64
// and 996 columns, one line, padding 0, 1 and 2 and none, a last line of
// full length, several parts, a single-part message, a message/rfc822
// inside), every small range and many random ranges compared with the
// message; bodies that must stay raw (trailing whitespace, non-canonical
// trailing bits, bad padding, mixed line breaks, uneven lines, a column
// count not a multiple of 4, an empty or short body); chunked transformed
// blobs; dictionaries and recompression; no_transform; a format 5 store
// upgraded with its blobs untouched; and verify catching a damaged
// transform table.
#include "corvid_libtest.h"
#include "store_util.h"

#include <lmdb.h>
#include <stdint.h>

enum { CHUNK = 64 << 10 };

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// b64 appends the Base64 of in (n bytes) to out at *len, `line` characters
// per line (0: one line) separated by eol, with '=' padding if pad. This is
// the test's own encoder, independent of libencodify.
static void b64(char *out, size_t *len, const uint8_t *in, size_t n, size_t line, const char *eol,
                int pad) {
  size_t col = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n)
      v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < n)
      v |= in[i + 2];
    size_t chars = n - i >= 3 ? 4 : n - i + 1;
    for (size_t k = 0; k < 4; k++) {
      char c = k < chars ? B64[(v >> (18 - 6 * k)) & 63] : '=';
      if (k >= chars && !pad)
        break;
      if (line && col == line) {
        memcpy(out + *len, eol, strlen(eol));
        *len += strlen(eol);
        col = 0;
      }
      out[(*len)++] = c;
      col++;
    }
  }
}

static void put(char *out, size_t *len, const char *s) {
  memcpy(out + *len, s, strlen(s));
  *len += strlen(s);
}

// payload fills out with n bytes: pseudo-random, or text-like when text.
static void payload(uint8_t *out, size_t n, unsigned seed, int text) {
  uint32_t h = seed * 2654435761u + 7;
  for (size_t i = 0; i < n; i++) {
    h = h * 1103515245u + 12345u;
    out[i] = text ? (uint8_t) "the quick brown fox jumps over lazy dogs\r\n"[(h >> 16) % 42]
                  : (uint8_t)(h >> 16);
  }
}

// shape describes one test message: its line break, and its Base64 part's
// column count, decoded length and padding.
struct shape {
  const char *eol;
  size_t line, dec;
  int pad;
  int segments; // Base64 bodies expected to be stored decoded
};

// mail writes a multipart/mixed message with a text part and `parts`
// Base64 attachments of shape sh (the i-th one sh->dec + i bytes) into out
// (malloc'd); returns its length.
static size_t mail(char **out, const struct shape *sh, int parts, unsigned seed) {
  size_t cap = 4096 + (size_t)parts * (sh->dec * 2 + 4096);
  char *m = malloc(cap);
  ck_assert_ptr_nonnull(m);
  size_t n = 0;
  const char *e = sh->eol;
  char hdr[512];
  snprintf(hdr, sizeof hdr,
           "From: a@example.org%sTo: b@example.org%sSubject: shape %u%s"
           "MIME-Version: 1.0%sContent-Type: multipart/mixed; boundary=\"XyZ\"%s%s"
           "--XyZ%sContent-Type: text/plain%s%sHello, see attached.%s",
           e, e, seed, e, e, e, e, e, e, e, e);
  put(m, &n, hdr);
  for (int p = 0; p < parts; p++) {
    snprintf(hdr, sizeof hdr,
             "--XyZ%sContent-Type: application/octet-stream%sContent-Transfer-Encoding: "
             "base64%s%s",
             e, e, e, e);
    put(m, &n, hdr);
    size_t dl = sh->dec + (size_t)p;
    uint8_t *d = malloc(dl + 1);
    payload(d, dl, seed * 31 + (unsigned)p, p % 2);
    b64(m, &n, d, dl, sh->line, e, sh->pad);
    free(d);
    put(m, &n, e);
  }
  put(m, &n, "--XyZ--");
  put(m, &n, e);
  ck_assert_uint_le(n, cap);
  *out = m;
  return n;
}

// new_xf_store makes a store with settings set (NULL: defaults), without
// fsync: durability is not what these tests are about.
static void new_xf_store(char **dir, ms_store **st, const struct ms_settings *set, uint32_t *acct,
                         uint32_t *box) {
  struct ms_settings s = set ? *set : (struct ms_settings){0};
  s.no_sync = 1;
  new_store(dir, st, &s, "xf", acct, box);
}

static uint64_t segments(ms_store *st) {
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  return s.xf_segments;
}

// check_reads compares the whole message and ranges of it with data: with
// lengths 1 and 7, every offset in the first and last 256 bytes and, if
// sweep and the message is at most 64 KiB, every 13th in between (13 shares
// no factor with any line length + break used here, so the offsets fall on
// every column of some line); and 150 random ranges.
static void check_reads(ms_store *st, uint32_t acct, uint64_t id, const uint8_t *data, size_t len,
                        int sweep) {
  uint8_t *back = malloc(len + 16);
  size_t got = 0;
  ck_assert_ptr_nonnull(back);
  ck_assert_int_eq(ms_message_read(st, back, len, &got, acct, id), 0);
  ck_assert_uint_eq(got, len);
  ck_assert_mem_eq(back, data, len);
  static const size_t lens[] = {1, 7};
  size_t step = sweep && len <= (64u << 10) ? 13 : len;
  for (size_t off = 0; off < len; off += off < 256 || off + 256 >= len ? 1 : step) {
    if (off >= 256 && off + 256 < len && step == len)
      off = len - 256;
    for (size_t k = 0; k < 2; k++) {
      ck_assert_int_eq(ms_message_read_range(st, back, lens[k], &got, acct, id, off, lens[k]), 0);
      size_t want = len - off < lens[k] ? len - off : lens[k];
      ck_assert_uint_eq(got, want);
      ck_assert_msg(memcmp(back, data + off, want) == 0, "range %zu+%zu differs", off, lens[k]);
    }
  }
  uint32_t h = (uint32_t)len;
  for (int i = 0; i < 150; i++) {
    h = h * 1103515245u + 12345u;
    size_t off = (h >> 8) % len;
    h = h * 1103515245u + 12345u;
    size_t n = 1 + (h >> 8) % (len - off);
    ck_assert_int_eq(ms_message_read_range(st, back, len, &got, acct, id, off, n), 0);
    ck_assert_uint_eq(got, n);
    ck_assert_msg(memcmp(back, data + off, n) == 0, "range %zu+%zu differs", off, n);
  }
  free(back);
}

static const struct shape shapes[] = {
    {"\r\n", 76, 3000, 1, 1}, {"\r\n", 76, 3001, 1, 1}, {"\r\n", 76, 3002, 1, 1},
    {"\n", 76, 3000, 1, 1},   {"\n", 76, 3001, 1, 1},   {"\n", 76, 3002, 1, 1},
    {"\r\n", 64, 2000, 1, 1}, {"\n", 64, 2001, 1, 1},   {"\r\n", 72, 2002, 1, 1},
    {"\n", 996, 9000, 1, 1},  {"\r\n", 0, 5000, 1, 1},  {"\n", 0, 5001, 1, 1},
    {"\r\n", 76, 3001, 0, 1}, {"\n", 64, 3002, 0, 1},   {"\r\n", 76, 570, 1, 1},
    {"\r\n", 4, 300, 1, 1},   {"\r\n", 76, 30, 1, 0},   {"\r\n", 74, 3000, 1, 0},
    {"\n", 76, 0, 1, 0},
};

// Every shape round-trips, whole and by ranges, and is stored decoded
// exactly when expected; verify passes.
START_TEST(shapes_round_trip) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_xf_store(&dir, &st, NULL, &acct, &box);
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const struct shape *sh = &shapes[i];
    for (int parts = 1; parts <= 3; parts += 2) {
      char *m;
      size_t len = mail(&m, sh, parts, (unsigned)(i * 10 + (size_t)parts));
      uint64_t before = segments(st), id;
      ck_assert_int_eq(
          ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, len, 0, (int64_t)i), 0);
      uint64_t want = sh->segments ? (uint64_t)parts : 0;
      // A zero-length body has no Base64 at all, whatever its number.
      ck_assert_msg(segments(st) - before == want, "shape %zu parts %d: %llu segments, want %llu",
                    i, parts, (unsigned long long)(segments(st) - before),
                    (unsigned long long)want);
      check_reads(st, acct, id, (uint8_t *)m, len, 1);
      free(m);
    }
  }
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// Bodies outside the regular shape, or that do not re-encode to their
// bytes, stay raw and still read back exactly.
START_TEST(irregular_stays_raw) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_xf_store(&dir, &st, NULL, &acct, &box);
  enum { TRAILING_SPACE, TRAILING_BITS, BAD_PAD, MIXED_EOL, UNEVEN, PAD_MID, CONTROL, CASES };
  for (int c = 0; c < CASES; c++) {
    struct shape sh = {"\r\n", 76, 1000, 1, 1};
    if (c == TRAILING_BITS)
      sh.dec = 1000 - 1000 % 3 + 1; // one byte in the last group: "xy=="
    char *m;
    size_t len = mail(&m, &sh, 1, 500 + (unsigned)c);
    size_t body = (size_t)(strstr(m, "base64\r\n\r\n") - m) + 10;
    size_t end = (size_t)(strstr(m + body, "\r\n--XyZ--") - m);
    switch (c) {
    case TRAILING_SPACE: // "...\r\n" -> " \n" at the end of the third line
      m[body + 3 * 78 - 2] = ' ';
      m[body + 3 * 78 - 1] = '\n';
      break;
    case TRAILING_BITS: {    // the last group's second character gets low bits
      size_t last = end - 3; // "xy==": y at end - 3
      const char *p = strchr(B64, m[last]);
      ck_assert_ptr_nonnull(p);
      m[last] = B64[(p - B64) | 1];
      ck_assert_int_ne(((p - B64) | 1), p - B64);
      break;
    }
    case BAD_PAD: // "xy==" becomes "x===": excess padding
      ck_assert_int_eq(m[end - 1], '=');
      ck_assert_int_eq(m[end - 2], '=');
      m[end - 3] = '=';
      break;
    case MIXED_EOL: // the second line ends in LF, the others in CRLF
      memmove(m + body + 2 * 78 - 2, m + body + 2 * 78 - 1, len - (body + 2 * 78 - 1));
      len--;
      break;
    case UNEVEN: // a line one character short, the next one longer
      memmove(m + body + 75, m + body + 76, 2);
      m[body + 77] = 'Q';
      break;
    case PAD_MID: // '=' inside a line
      m[body + 5] = '=';
      break;
    case CONTROL: // a tab inside a line
      m[body + 100] = '\t';
      break;
    }
    uint64_t before = segments(st), id;
    ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, len, 0, c), 0);
    ck_assert_msg(segments(st) == before, "case %d was stored decoded", c);
    check_reads(st, acct, id, (uint8_t *)m, len, 1);
    free(m);
  }
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A message that is one Base64 body (no multipart), and a forwarded
// message/rfc822 holding one, are stored decoded too.
START_TEST(single_part_and_nested) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_xf_store(&dir, &st, NULL, &acct, &box);
  size_t cap = 64 << 10, n = 0;
  char *m = malloc(cap);
  uint8_t d[6000];
  payload(d, sizeof d, 9, 0);
  put(m, &n,
      "From: a@example.org\r\nSubject: one\r\nMIME-Version: 1.0\r\n"
      "Content-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\n");
  b64(m, &n, d, sizeof d, 76, "\r\n", 1);
  put(m, &n, "\r\n\r\n");
  uint64_t id;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, n, 0, 1), 0);
  ck_assert_uint_eq(segments(st), 1);
  check_reads(st, acct, id, (uint8_t *)m, n, 1);
  n = 0;
  put(m, &n,
      "From: a@example.org\r\nSubject: fwd\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=\"o\"\r\n\r\n--o\r\n"
      "Content-Type: message/rfc822\r\n\r\nFrom: c@example.org\r\nSubject: inner\r\n"
      "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"i\"\r\n\r\n"
      "--i\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n");
  b64(m, &n, d, 4000, 76, "\r\n", 1);
  put(m, &n,
      "\r\n--i--\r\n\r\n--o\r\nContent-Type: application/zip\r\n"
      "Content-Transfer-Encoding: base64\r\n\r\n");
  b64(m, &n, d + 100, 5000, 72, "\r\n", 1);
  put(m, &n, "\r\n--o--\r\n");
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, n, 0, 2), 0);
  ck_assert_uint_eq(segments(st), 3);
  check_reads(st, acct, id, (uint8_t *)m, n, 1);
  verify_ok(st);
  free(m);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// A transformed message longer than the chunk size is chunked by its
// stream; ranges across chunk and segment boundaries read back exactly;
// stats count it as chunked and transformed; it takes less room than the
// same message stored raw.
START_TEST(chunked_transformed) {
  struct ms_settings set = {.blob_chunk_size = CHUNK};
  struct ms_settings raw = {.blob_chunk_size = CHUNK, .no_transform = 1};
  char *dir, *dir2;
  ms_store *st, *st2;
  uint32_t acct, box, acct2, box2;
  new_xf_store(&dir, &st, &set, &acct, &box);
  new_xf_store(&dir2, &st2, &raw, &acct2, &box2);
  struct shape sh = {"\r\n", 76, 200000, 1, 1};
  char *m;
  size_t len = mail(&m, &sh, 3, 77);
  uint64_t id, id2;
  ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, len, 0, 1), 0);
  ck_assert_int_eq(ms_message_append(st2, &id2, NULL, acct2, box2, (uint8_t *)m, len, 0, 1), 0);
  struct ms_store_stats s, s2;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_int_eq(ms_store_stats_get(st2, &s2), 0);
  ck_assert_uint_eq(s.xf_blobs, 1);
  ck_assert_uint_eq(s.xf_segments, 3);
  ck_assert_uint_eq(s.chunked_blobs, 1);
  ck_assert_uint_eq(s.xf_raw, len);
  ck_assert_uint_eq(s.xf_decoded, 3 * 200000 + 3);
  ck_assert_uint_eq(s2.xf_blobs, 0);
  // Half the payload is random: raw Base64 of it costs about 6 bits a
  // character after zstd, decoded 8 bits a byte, i.e. ~0.75 of it.
  ck_assert_uint_lt(s.blob_stored, s2.blob_stored);
  check_reads(st, acct, id, (uint8_t *)m, len, 1);
  uint8_t *back = malloc(len);
  size_t got;
  for (size_t b = CHUNK; b < len; b += CHUNK / 3) {
    for (size_t k = 0; k < 3; k++) {
      size_t off = b - 200 + k * 137, n = 400 + k * 5000;
      if (off + n > len)
        n = len - off;
      ck_assert_int_eq(ms_message_read_range(st, back, n, &got, acct, id, off, n), 0);
      ck_assert_uint_eq(got, n);
      ck_assert_mem_eq(back, m + off, n);
    }
  }
  free(back);
  verify_ok(st);
  free(m);
  ms_store_close(st);
  ms_store_close(st2);
  rm_store_dir(dir);
  rm_store_dir(dir2);
}
END_TEST

// raw_codecs counts the blob records of each codec in the store at dir.
static void raw_codecs(const char *dir, unsigned counts[8]) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  MDB_cursor *c;
  memset(counts, 0, 8 * sizeof *counts);
  ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
  ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
  MDB_val k, v;
  while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    ck_assert_uint_gt(v.mv_size, 17);
    counts[((const uint8_t *)v.mv_data)[17] & 7]++;
  }
  mdb_cursor_close(c);
  mdb_txn_abort(t);
  mdb_env_close(env);
}

// A store written without transforms and marked format 5 opens as format
// 6: its blobs stay as they were (codec 1), read back, and new messages are
// transformed next to them; no_transform writes none; recompression with a
// dictionary transforms the old blobs, and everything still reads back.
START_TEST(upgrade_and_recompress) {
  struct ms_settings off = {
      .no_transform = 1, .dict_train_after = UINT32_MAX, .dict_max_size = 4096};
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_xf_store(&dir, &st, &off, &acct, &box);
  enum { N = 24 };
  char *m[N];
  size_t len[N];
  uint64_t id[N];
  for (int i = 0; i < N; i++) {
    struct shape sh = {i % 2 ? "\n" : "\r\n", i % 3 ? 76 : 64, 500 + 37 * (size_t)i, 1, 1};
    len[i] = mail(&m[i], &sh, 1 + i % 2, 900 + (unsigned)i);
  }
  for (int i = 0; i < N / 2; i++)
    ck_assert_int_eq(ms_message_append(st, &id[i], NULL, acct, box, (uint8_t *)m[i], len[i], 0, i),
                     0);
  ck_assert_uint_eq(segments(st), 0);
  ms_store_close(st);
  raw_set_format(dir, 5);
  unsigned c[8];
  raw_codecs(dir, c);
  ck_assert_uint_eq(c[1], N / 2);
  struct ms_settings on = {.dict_train_after = UINT32_MAX, .dict_max_size = 4096};
  ck_assert_int_eq(ms_store_open(&st, dir, &on), 0);
  for (int i = N / 2; i < N; i++)
    ck_assert_int_eq(ms_message_append(st, &id[i], NULL, acct, box, (uint8_t *)m[i], len[i], 0, i),
                     0);
  ms_store_close(st);
  raw_codecs(dir, c);
  ck_assert_uint_eq(c[1], N / 2);
  ck_assert_uint_eq(c[4], N / 2);
  ck_assert_int_eq(ms_store_open(&st, dir, &on), 0);
  for (int i = 0; i < N; i++) {
    uint8_t *back = malloc(len[i]);
    size_t got;
    ck_assert_int_eq(ms_message_read(st, back, len[i], &got, acct, id[i]), 0);
    ck_assert_mem_eq(back, m[i], len[i]);
    free(back);
  }
  verify_ok(st);
  uint32_t dict;
  ck_assert_int_eq(ms_store_train(st, &dict, 0), 0);
  int r, total = 0;
  while ((r = ms_store_recompress(st, 7)) > 0)
    total += r;
  ck_assert_int_eq(r, 0);
  ck_assert_int_eq(total, N);
  ms_store_close(st);
  raw_codecs(dir, c);
  ck_assert_uint_eq(c[4], N);
  ck_assert_int_eq(ms_store_open(&st, dir, &on), 0);
  struct ms_store_stats s;
  ck_assert_int_eq(ms_store_stats_get(st, &s), 0);
  ck_assert_uint_eq(s.dict_blobs, N);
  ck_assert_uint_eq(s.xf_blobs, N);
  for (int i = 0; i < N; i++) {
    check_reads(st, acct, id[i], (uint8_t *)m[i], len[i], i % 10 == 0);
    free(m[i]);
  }
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// raw_patch_blob changes byte `at` (from the record's start) of the one blob
// record in the store at dir to `to`.
static void raw_patch_blob(const char *dir, size_t at, uint8_t to) {
  MDB_env *env = raw_env(dir);
  MDB_txn *t;
  MDB_dbi d;
  MDB_cursor *c;
  ck_assert_int_eq(mdb_txn_begin(env, NULL, 0, &t), 0);
  ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
  ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
  MDB_val k, v;
  ck_assert_int_eq(mdb_cursor_get(c, &k, &v, MDB_FIRST), 0);
  uint8_t *copy = malloc(v.mv_size);
  memcpy(copy, v.mv_data, v.mv_size);
  ck_assert_uint_gt(v.mv_size, at);
  copy[at] = to;
  MDB_val nv = {v.mv_size, copy};
  mdb_cursor_close(c);
  ck_assert_int_eq(mdb_put(t, d, &k, &nv, 0), 0);
  ck_assert_int_eq(mdb_txn_commit(t), 0);
  mdb_env_close(env);
  free(copy);
}

// Damage to a transform table (each byte of it in turn: count, gap,
// decoded length, line length, flags) is caught by verify, and a read either
// fails with MS_ERR_CORRUPT or returns the message's length (a shifted gap
// decodes; only verify's SHA-256 can tell), never crashes.
START_TEST(verify_catches_table_damage) {
  struct shape sh = {"\r\n", 76, 1500, 1, 1};
  char *m;
  size_t len = mail(&m, &sh, 1, 4242);
  uint8_t *back = malloc(len);
  for (size_t at = 26; at < 26 + 8; at++) {
    for (int delta = 1; delta <= 2; delta++) {
      char *dir;
      ms_store *st;
      uint32_t acct, box;
      new_xf_store(&dir, &st, NULL, &acct, &box);
      uint64_t id;
      ck_assert_int_eq(ms_message_append(st, &id, NULL, acct, box, (uint8_t *)m, len, 0, 1), 0);
      verify_ok(st);
      ms_store_close(st);
      // Read the byte, then change it.
      MDB_env *env = raw_env(dir);
      MDB_txn *t;
      MDB_dbi d;
      MDB_cursor *c;
      MDB_val k, v;
      ck_assert_int_eq(mdb_txn_begin(env, NULL, MDB_RDONLY, &t), 0);
      ck_assert_int_eq(mdb_dbi_open(t, "blobs", 0, &d), 0);
      ck_assert_int_eq(mdb_cursor_open(t, d, &c), 0);
      ck_assert_int_eq(mdb_cursor_get(c, &k, &v, MDB_FIRST), 0);
      ck_assert_uint_eq(((const uint8_t *)v.mv_data)[17], 4);
      uint8_t was = ((const uint8_t *)v.mv_data)[at];
      mdb_cursor_close(c);
      mdb_txn_abort(t);
      mdb_env_close(env);
      raw_patch_blob(dir, at, (uint8_t)(was + delta));
      ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
      struct ms_diag dg;
      ck_assert_int_eq(ms_store_verify(st, &dg), MS_ERR_CORRUPT);
      size_t got = 0;
      int rc = ms_message_read(st, back, len, &got, acct, id);
      ck_assert(rc == MS_ERR_CORRUPT || (rc == 0 && got == len));
      for (size_t off = 0; off < len; off += 97) {
        rc = ms_message_read_range(st, back, len, &got, acct, id, off, 300);
        ck_assert(rc == MS_ERR_CORRUPT || rc == 0);
      }
      ms_store_close(st);
      rm_store_dir(dir);
    }
  }
  free(back);
  free(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("transform");
  TCase *tc = tcase_create("transform");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, shapes_round_trip);
  tcase_add_test(tc, irregular_stays_raw);
  tcase_add_test(tc, single_part_and_nested);
  tcase_add_test(tc, chunked_transformed);
  tcase_add_test(tc, upgrade_and_recompress);
  tcase_add_test(tc, verify_catches_table_damage);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
