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
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_internal.h"
#include "mailparse.h"

int mpb_field_class(const char *name, size_t len) {
  static const struct {
    const char *name;
    int cls;
  } table[] = {
      {"from", MPB_F_ADDRESS},
      {"to", MPB_F_ADDRESS},
      {"cc", MPB_F_ADDRESS},
      {"bcc", MPB_F_ADDRESS},
      {"reply-to", MPB_F_ADDRESS},
      {"sender", MPB_F_ADDRESS},
      {"resent-from", MPB_F_ADDRESS},
      {"resent-to", MPB_F_ADDRESS},
      {"resent-cc", MPB_F_ADDRESS},
      {"resent-bcc", MPB_F_ADDRESS},
      {"resent-sender", MPB_F_ADDRESS},
      {"date", MPB_F_DATE},
      {"resent-date", MPB_F_DATE},
      {"message-id", MPB_F_MSGID},
      {"in-reply-to", MPB_F_MSGID},
      {"references", MPB_F_MSGID},
      {"content-id", MPB_F_MSGID},
      {"resent-message-id", MPB_F_MSGID},
      {"received", MPB_F_RECEIVED},
      {"content-type", MPB_F_CONTENT_TYPE},
      {"content-disposition", MPB_F_DISPOSITION},
      {"list-help", MPB_F_LIST_URIS},
      {"list-subscribe", MPB_F_LIST_URIS},
      {"list-unsubscribe", MPB_F_LIST_URIS},
      {"list-post", MPB_F_LIST_URIS},
      {"list-owner", MPB_F_LIST_URIS},
      {"list-archive", MPB_F_LIST_URIS},
      {"list-id", MPB_F_LIST_ID},
      {"subject", MPB_F_SUBJECT},
      {"content-transfer-encoding", MPB_F_RAW},
      {"mime-version", MPB_F_RAW},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strlen(table[i].name) == len && strncasecmp(table[i].name, name, len) == 0)
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
