// bench_ours.c: libmailparse's side of bench_mailparse, through the public
// API only. A full parse is mp_message_parse, then every indexed header field
// of every part through the typed parser that matches its name
// (mpb_field_class), then every leaf body through mp_part_decode and, for
// text parts, mp_charset_to_utf8 from the part's charset. The typed header
// mode is the same on the top-level header section alone; the header-only
// mode is mp_message_parse_headers and a walk over the field index. Scratch buffers grow once
// and are reused, as an indexer would; the message's own arena is the only
// memory the library allocates. Also the field classifier all adapters share
// and the allocator that measures the parser's peak memory.
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_internal.h"
#include "mailparse.h"

// The reference classifier: the table every name is defined by, scanned
// linearly. mpb_field_class must agree with it on every name (the self-check
// in ours_init compares them); it is not on the measured path.
#define MPB_NAME(s) s, sizeof s - 1
static const struct {
  const char *name;
  size_t len;
  int cls;
} field_table[] = {
    {MPB_NAME("from"), MPB_F_ADDRESS},
    {MPB_NAME("to"), MPB_F_ADDRESS},
    {MPB_NAME("cc"), MPB_F_ADDRESS},
    {MPB_NAME("bcc"), MPB_F_ADDRESS},
    {MPB_NAME("reply-to"), MPB_F_ADDRESS},
    {MPB_NAME("sender"), MPB_F_ADDRESS},
    {MPB_NAME("resent-from"), MPB_F_ADDRESS},
    {MPB_NAME("resent-to"), MPB_F_ADDRESS},
    {MPB_NAME("resent-cc"), MPB_F_ADDRESS},
    {MPB_NAME("resent-bcc"), MPB_F_ADDRESS},
    {MPB_NAME("resent-sender"), MPB_F_ADDRESS},
    {MPB_NAME("date"), MPB_F_DATE},
    {MPB_NAME("resent-date"), MPB_F_DATE},
    {MPB_NAME("message-id"), MPB_F_MSGID},
    {MPB_NAME("in-reply-to"), MPB_F_MSGID},
    {MPB_NAME("references"), MPB_F_MSGID},
    {MPB_NAME("content-id"), MPB_F_MSGID},
    {MPB_NAME("resent-message-id"), MPB_F_MSGID},
    {MPB_NAME("received"), MPB_F_RECEIVED},
    {MPB_NAME("content-type"), MPB_F_CONTENT_TYPE},
    {MPB_NAME("content-disposition"), MPB_F_DISPOSITION},
    {MPB_NAME("list-help"), MPB_F_LIST_URIS},
    {MPB_NAME("list-subscribe"), MPB_F_LIST_URIS},
    {MPB_NAME("list-unsubscribe"), MPB_F_LIST_URIS},
    {MPB_NAME("list-post"), MPB_F_LIST_URIS},
    {MPB_NAME("list-owner"), MPB_F_LIST_URIS},
    {MPB_NAME("list-archive"), MPB_F_LIST_URIS},
    {MPB_NAME("list-id"), MPB_F_LIST_ID},
    {MPB_NAME("subject"), MPB_F_SUBJECT},
    {MPB_NAME("content-transfer-encoding"), MPB_F_RAW},
    {MPB_NAME("mime-version"), MPB_F_RAW},
};
#undef MPB_NAME

static int field_class_ref(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof field_table / sizeof field_table[0]; i++)
    if (field_table[i].len == len && strncasecmp(field_table[i].name, name, len) == 0)
      return field_table[i].cls;
  return MPB_F_UNSTRUCTURED;
}

// fold maps an ASCII upper-case letter to lower case and leaves every other
// byte as it is.
static inline unsigned fold(unsigned char c) {
  return (unsigned)(c - 'A') < 26u ? c | 0x20u : c;
}

// load_le reads `n` (1 to 8) bytes at `p` as a little-endian number. The
// compilers turn the fixed-size memcpy into one load.
static inline uint64_t load_le(const void *p, size_t n) {
  uint64_t v = 0;
  if (n == 8) {
    memcpy(&v, p, 8);
  } else if (n >= 4) {
    uint32_t w;
    memcpy(&w, p, 4);
    v = w;
  } else {
    uint16_t w;
    memcpy(&w, p, 2);
    v = w;
  }
  return v;
}

// same_chunk compares the `n` (2, 4 or 8) bytes at `name` with those at
// `lower` (lower-case letters and '-'): 0x20 is or-ed into the letters'
// bytes only, found from `lower` itself (bit 6 is set in 'a'..'z', not in
// '-'), so that a byte matches only the letter in either case.
static inline bool same_chunk(const char *name, const char *lower, size_t n) {
  uint64_t want = load_le(lower, n);
  return (load_le(name, n) | ((want >> 1) & 0x2020202020202020u)) == want;
}

// same_name is 1 when the `len` (2 to 25) bytes at `name` are `lower` (a
// table name of that length) in any case, as strncasecmp in the C locale:
// in 8-byte words, the last overlapping the one before, and below 8 bytes
// two overlapping 4- or 2-byte words.
static inline int same_name(const char *name, const char *lower, size_t len) {
  if (len < 8) {
    size_t w = len >= 4 ? 4 : 2;
    return same_chunk(name, lower, w) && same_chunk(name + len - w, lower + len - w, w);
  }
  for (size_t i = 0; i + 8 < len; i += 8)
    if (!same_chunk(name + i, lower + i, 8))
      return 0;
  return same_chunk(name + len - 8, lower + len - 8, 8);
}

int mpb_field_class(const char *name, size_t len) {
  // This runs once per field for every implementation (harness time, not
  // parser time), so it picks the one candidate name and compares only that
  // one: the length (a jump table) and then the folded first byte, or the
  // last one where two names of a length share their first, tell every
  // table name apart.
  if (len < 2 || len > 25)
    return MPB_F_UNSTRUCTURED;
  unsigned a = fold((unsigned char)name[0]), z = fold((unsigned char)name[len - 1]);
#define IS(s, c) return same_name(name, s, sizeof s - 1) ? (c) : MPB_F_UNSTRUCTURED
  switch (len) {
  case 2:
    if (a == 't')
      IS("to", MPB_F_ADDRESS);
    IS("cc", MPB_F_ADDRESS);
  case 3:
    IS("bcc", MPB_F_ADDRESS);
  case 4:
    if (a == 'f')
      IS("from", MPB_F_ADDRESS);
    IS("date", MPB_F_DATE);
  case 6:
    IS("sender", MPB_F_ADDRESS);
  case 7:
    if (a == 's')
      IS("subject", MPB_F_SUBJECT);
    IS("list-id", MPB_F_LIST_ID);
  case 8:
    if (z == 'o')
      IS("reply-to", MPB_F_ADDRESS);
    IS("received", MPB_F_RECEIVED);
  case 9:
    if (a == 'r' && z == 'o')
      IS("resent-to", MPB_F_ADDRESS);
    if (a == 'r')
      IS("resent-cc", MPB_F_ADDRESS);
    if (z == 'p')
      IS("list-help", MPB_F_LIST_URIS);
    IS("list-post", MPB_F_LIST_URIS);
  case 10:
    switch (a) {
    case 'r':
      if (z == 'c')
        IS("resent-bcc", MPB_F_ADDRESS);
      IS("references", MPB_F_MSGID);
    case 'm':
      IS("message-id", MPB_F_MSGID);
    case 'c':
      IS("content-id", MPB_F_MSGID);
    default:
      IS("list-owner", MPB_F_LIST_URIS);
    }
  case 11:
    if (a == 'i')
      IS("in-reply-to", MPB_F_MSGID);
    if (z == 'm')
      IS("resent-from", MPB_F_ADDRESS);
    IS("resent-date", MPB_F_DATE);
  case 12:
    if (a == 'c')
      IS("content-type", MPB_F_CONTENT_TYPE);
    if (a == 'l')
      IS("list-archive", MPB_F_LIST_URIS);
    IS("mime-version", MPB_F_RAW);
  case 13:
    IS("resent-sender", MPB_F_ADDRESS);
  case 14:
    IS("list-subscribe", MPB_F_LIST_URIS);
  case 16:
    IS("list-unsubscribe", MPB_F_LIST_URIS);
  case 17:
    IS("resent-message-id", MPB_F_MSGID);
  case 19:
    IS("content-disposition", MPB_F_DISPOSITION);
  case 25:
    IS("content-transfer-encoding", MPB_F_RAW);
  default:
    return MPB_F_UNSTRUCTURED;
  }
#undef IS
}

// Scratch reused across calls (the benchmark is single-threaded): text for
// the typed parsers, entry arrays sized for the worst case of a value, and
// the decoded and converted body.
static struct {
  char *text;
  size_t text_cap;
  void *entries;
  size_t entries_cap;
  uint8_t *body;
  size_t body_cap;
  char *utf8;
  size_t utf8_cap;
  size_t fits; // the longest field value text and entries have room for
} scratch;

static int grow(void **buf, size_t *cap, size_t need) {
  if (need <= *cap)
    return 0;
  size_t n = *cap ? *cap : 4096;
  while (n < need)
    n *= 2;
  void *p = realloc(*buf, n);
  if (p == NULL)
    return -1;
  *buf = p;
  *cap = n;
  return 0;
}

// type_field runs the typed parser for one field value and adds the result
// to `work`.
static int type_field(struct mpb_work *work, int cls, const char *v, size_t n) {
  size_t entries = n / 2 + 1;
  // The buffers are sized once for the longest value so far (both bounds
  // grow with the value's length), not asked for again on every field.
  if (scratch.text == NULL || n > scratch.fits) {
    size_t entry_size = sizeof(mp_address);
    if (sizeof(mp_param) > entry_size)
      entry_size = sizeof(mp_param);
    if (grow((void **)&scratch.text, &scratch.text_cap, mp_typed_text_max_len(n)) != 0 ||
        grow(&scratch.entries, &scratch.entries_cap, entries * entry_size) != 0)
      return -1;
    scratch.fits = n;
  }
  char *text = scratch.text;
  size_t cap = scratch.text_cap, text_len = 0, num = 0;
  unsigned flags = 0;
  int rc = 0;
  switch (cls) {
  case MPB_F_RAW:
    return 0;
  case MPB_F_ADDRESS:
    rc = mp_address_list_parse(scratch.entries, entries, &num, text, cap, &text_len, &flags, v, n);
    break;
  case MPB_F_DATE: {
    mp_date d;
    // An unparsable date is a result too (the field is kept as text).
    if (mp_date_parse(&d, &flags, v, n) == 0)
      num = (size_t)(d.time & 1) + 1;
    break;
  }
  case MPB_F_MSGID:
    rc = mp_msgid_list_parse(scratch.entries, entries, &num, text, cap, &text_len, &flags, v, n);
    break;
  case MPB_F_RECEIVED: {
    mp_received r;
    if (mp_received_parse(&r, &flags, v, n) == 0)
      num = (size_t)r.has_date + 1;
    break;
  }
  case MPB_F_CONTENT_TYPE: {
    mp_content_type ct;
    if (mp_content_type_parse(&ct, scratch.entries, entries, text, cap, &text_len, &flags, v, n) ==
        0)
      num = ct.num_params + 1;
    break;
  }
  case MPB_F_DISPOSITION: {
    mp_content_disposition cd;
    if (mp_content_disposition_parse(&cd, scratch.entries, entries, text, cap, &text_len, &flags, v,
                                     n) == 0)
      num = cd.num_params + 1;
    break;
  }
  case MPB_F_LIST_URIS:
    rc = mp_list_uris_parse(scratch.entries, entries, &num, text, cap, &text_len, &flags, v, n);
    break;
  case MPB_F_LIST_ID: {
    mp_list_id id;
    if (mp_list_id_parse(&id, text, cap, &text_len, &flags, v, n) == 0)
      num = 1;
    break;
  }
  case MPB_F_SUBJECT:
    rc = mp_subject_base(text, cap, &text_len, &flags, v, n);
    break;
  default:
    rc = mp_rfc2047_decode(text, cap, &text_len, &flags, v, n);
    break;
  }
  if (rc != 0)
    return rc;
  work->fields++;
  work->bytes += text_len + num;
  return 0;
}

static int type_headers(struct mpb_work *work, const mp_message *m, int top_only) {
  const uint8_t *data = mp_message_data(m, NULL);
  size_t count = mp_message_num_headers(m);
  for (size_t i = 0; i < count; i++) {
    const mp_header *h = mp_message_header(m, i);
    if (top_only && h->part != 0)
      break;
    if (h->flags & MP_HEADER_NO_COLON)
      continue;
    int cls = mpb_field_class((const char *)data + h->name.off, h->name.len);
    int rc = type_field(work, cls, (const char *)data + h->value.off, h->value.len);
    if (rc != 0)
      return rc;
  }
  return 0;
}

// The full mode's sink for mp_message_parse_bodies(): every leaf's decoded
// bytes are counted as they come; a text leaf's are gathered in scratch.body
// and converted to UTF-8 as soon as the body ends, as decode_bodies() does
// after mp_part_decode().
static bool is_text(const mp_part *p) {
  return p->type.len == 4 && memcmp(p->type.p, "text", 4) == 0;
}

struct sink_state {
  struct mpb_work *work;
  size_t used; // bytes of scratch.body holding the current text leaf
};

static int sink_data(void *opaque, const mp_part *p, uint32_t index, const uint8_t *bytes,
                     size_t len) {
  struct sink_state *st = opaque;
  (void)index;
  if (!is_text(p)) {
    st->work->bytes += len;
    return 0;
  }
  if (grow((void **)&scratch.body, &scratch.body_cap, st->used + len) != 0)
    return -1;
  memcpy(scratch.body + st->used, bytes, len);
  st->used += len;
  return 0;
}

static int sink_end(void *opaque, const mp_part *p, uint32_t index) {
  struct sink_state *st = opaque;
  (void)index;
  st->work->parts++;
  if (!is_text(p))
    return 0;
  size_t len = st->used, out_len = 0;
  unsigned flags = 0;
  st->used = 0;
  const char *cs = p->charset.p ? p->charset.p : "us-ascii";
  size_t cs_len = p->charset.p ? p->charset.len : 8;
  if (grow((void **)&scratch.utf8, &scratch.utf8_cap, mp_charset_utf8_max_len(len)) != 0)
    return -1;
  int rc = mp_charset_to_utf8(scratch.utf8, scratch.utf8_cap, &out_len, &flags, cs, cs_len,
                              scratch.body, len);
  if (rc != 0)
    return rc;
  st->work->bytes += out_len;
  return 0;
}

static int decode_bodies(struct mpb_work *work, const mp_message *m) {
  size_t count = mp_message_num_parts(m);
  for (size_t i = 0; i < count; i++) {
    const mp_part *p = mp_message_part(m, i);
    if (p->flags & (MP_PART_MULTIPART | MP_PART_MESSAGE))
      continue;
    size_t max = mp_part_decode_max_len(m, (uint32_t)i), len = 0;
    if (grow((void **)&scratch.body, &scratch.body_cap, max + 1) != 0)
      return -1;
    int rc = mp_part_decode(m, (uint32_t)i, scratch.body, scratch.body_cap, &len);
    if (rc != 0)
      return rc;
    work->parts++;
    if (p->type.len == 4 && memcmp(p->type.p, "text", 4) == 0) {
      size_t out_len = 0;
      unsigned flags = 0;
      const char *cs = p->charset.p ? p->charset.p : "us-ascii";
      size_t cs_len = p->charset.p ? p->charset.len : 8;
      if (grow((void **)&scratch.utf8, &scratch.utf8_cap, mp_charset_utf8_max_len(len)) != 0)
        return -1;
      rc = mp_charset_to_utf8(scratch.utf8, scratch.utf8_cap, &out_len, &flags, cs, cs_len,
                              scratch.body, len);
      if (rc != 0)
        return rc;
      work->bytes += out_len;
    } else {
      work->bytes += len;
    }
  }
  return 0;
}

// index_headers is the header-only mode's walk: every field's name and raw
// value, as a header index offers them.
static void index_headers(struct mpb_work *work, const mp_message *m) {
  size_t count = mp_message_num_headers(m);
  for (size_t i = 0; i < count; i++) {
    const mp_header *h = mp_message_header(m, i);
    work->fields++;
    work->bytes += h->name.len + h->value.len;
  }
}

static int ours_run(struct mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  mp_message *m = NULL;
  if (mode == MPB_HEADERS) {
    int rc = mp_message_parse_headers(&m, NULL, msg, len, NULL);
    if (rc != 0)
      return rc;
    index_headers(work, m);
    mp_message_free(m);
    return 0;
  }
  // MPB_LAZY in the environment measures the lazy way instead: parse, then
  // mp_part_decode() every leaf (as before mp_message_parse_bodies()).
  static int lazy = -1;
  if (lazy < 0)
    lazy = getenv("MPB_LAZY") != NULL;
  if (mode == MPB_FULL && !lazy) {
    // Every body is wanted: decoded during the parse, while in cache.
    struct sink_state st = {work, 0};
    const mp_body_sink sink = {sink_data, sink_end, &st};
    int rc = mp_message_parse_bodies(&m, NULL, msg, len, &sink, NULL);
    if (rc != 0)
      return rc;
    rc = type_headers(work, m, 0);
    mp_message_free(m);
    return rc;
  }
  int rc = mp_message_parse(&m, NULL, msg, len, NULL);
  if (rc != 0)
    return rc;
  rc = type_headers(work, m, mode == MPB_HEADERS_TYPED);
  if (rc == 0 && mode == MPB_FULL)
    rc = decode_bodies(work, m);
  mp_message_free(m);
  return rc;
}

// check_name is 1 when mpb_field_class and the reference agree on the `len`
// bytes at `name`.
static int check_name(const char *name, size_t len) {
  return mpb_field_class(name, len) == field_class_ref(name, len);
}

// ours_init checks once, before the first message, that mpb_field_class
// classifies as the reference table does: every table name in lower, upper
// and mixed case, and its near misses (each byte replaced by a few others,
// the name cut short and extended by one byte). It prints how many names it
// checked (the smoke test looks for the line) and fails the run on a
// mismatch, so that every adapter's classes stay what README.md lists.
static int ours_init(void) {
  static const unsigned char swaps[] = {'x', 0x20, 0x01, 0x80};
  size_t checked = 0, bad = 0;
  char buf[40];
  for (size_t i = 0; i < sizeof field_table / sizeof field_table[0]; i++) {
    size_t len = field_table[i].len;
    memcpy(buf, field_table[i].name, len);
    bad += !check_name(buf, len) || field_class_ref(buf, len) != field_table[i].cls;
    for (size_t k = 0; k < len; k++)
      buf[k] = (char)((k & 1) ? fold((unsigned char)buf[k]) : toupper((unsigned char)buf[k]));
    bad += !check_name(buf, len) || field_class_ref(buf, len) != field_table[i].cls;
    for (size_t k = 0; k < len; k++)
      buf[k] = (char)toupper((unsigned char)buf[k]);
    bad += !check_name(buf, len) || field_class_ref(buf, len) != field_table[i].cls;
    checked += 3;
    for (size_t k = 0; k < len; k++) {
      char keep = buf[k];
      for (size_t s = 0; s < sizeof swaps; s++) {
        // 'x' replaces the byte; the others flip bits of it (0x20 turns a
        // letter's case, which must still match, and '-' into a control).
        buf[k] = (char)(s == 0 ? 'x' : (unsigned char)keep ^ swaps[s]);
        bad += !check_name(buf, len);
        checked++;
      }
      buf[k] = keep;
    }
    buf[len] = 's';
    bad += !check_name(buf, len + 1) || !check_name(buf, len - 1);
    checked += 2;
  }
  fprintf(stderr, "bench_mailparse: field classes checked on %zu names, %zu wrong\n", checked, bad);
  return bad == 0 ? 0 : -1;
}

const struct mpb_impl mpb_ours = {"mailparse", ours_init, ours_run};

// The peak-memory allocator: every block carries its size in a 16-byte
// prefix (keeping the alignment malloc gives), so that free can subtract it.
struct peak_state {
  uint64_t live, peak;
};

static void *peak_alloc(void *opaque, size_t size) {
  struct peak_state *s = opaque;
  unsigned char *p = malloc(size + 16);
  if (p == NULL)
    return NULL;
  memcpy(p, &size, sizeof size);
  s->live += size;
  if (s->live > s->peak)
    s->peak = s->live;
  return p + 16;
}

static void peak_free(void *opaque, void *ptr) {
  struct peak_state *s = opaque;
  if (ptr == NULL)
    return;
  unsigned char *p = (unsigned char *)ptr - 16;
  size_t size;
  memcpy(&size, p, sizeof size);
  s->live -= size;
  free(p);
}

int mpb_ours_peak(uint64_t *out_peak, const uint8_t *msg, size_t len) {
  struct peak_state s = {0, 0};
  mp_settings set = MP_SETTINGS_INIT;
  set.allocator.alloc = peak_alloc;
  set.allocator.free = peak_free;
  set.allocator.opaque = &s;
  mp_message *m = NULL;
  int rc = mp_message_parse(&m, &set, msg, len, NULL);
  if (rc != 0)
    return rc;
  mp_message_free(m);
  *out_peak = s.peak;
  return s.live == 0 ? 0 : -1;
}
