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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_internal.h"
#include "mailparse.h"

int mpb_field_class(const char *name, size_t len) {
  // The table carries each name's length, so that a field is compared only
  // with the names of its length (this runs once per field for every
  // implementation: harness time, not parser time).
#define MPB_NAME(s) s, sizeof s - 1
  static const struct {
    const char *name;
    size_t len;
    int cls;
  } table[] = {
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
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].len == len && strncasecmp(table[i].name, name, len) == 0)
      return table[i].cls;
  return MPB_F_UNSTRUCTURED;
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
  size_t text_need = mp_typed_text_max_len(n);
  size_t entries = n / 2 + 1;
  size_t entry_size = sizeof(mp_address);
  if (sizeof(mp_param) > entry_size)
    entry_size = sizeof(mp_param);
  if (grow((void **)&scratch.text, &scratch.text_cap, text_need) != 0 ||
      grow(&scratch.entries, &scratch.entries_cap, entries * entry_size) != 0)
    return -1;
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

const struct mpb_impl mpb_ours = {"mailparse", NULL, ours_run};

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
