// records.c: encoding and bounded decoding of the store's LMDB values, the one
// place that turns untrusted bytes from the file into typed records.
#include "mailstore.h"
#include "store_records.h"

#include <string.h>

// cur is a bounded reader: a read past the end sets bad and yields zeros.
struct cur {
  const uint8_t *p;
  size_t n, off;
  int bad;
};

static const uint8_t *take(struct cur *c, size_t k) {
  if (c->bad || c->n - c->off < k) {
    c->bad = 1;
    return NULL;
  }
  const uint8_t *r = c->p + c->off;
  c->off += k;
  return r;
}
static uint8_t rd8(struct cur *c) {
  const uint8_t *p = take(c, 1);
  return p ? p[0] : 0;
}
static uint16_t rd16(struct cur *c) {
  const uint8_t *p = take(c, 2);
  return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}
static uint32_t rd32(struct cur *c) {
  const uint8_t *p = take(c, 4);
  return p ? msr_get_le32(p) : 0;
}
static uint64_t rd64(struct cur *c) {
  const uint8_t *p = take(c, 8);
  return p ? msr_get_le64(p) : 0;
}

size_t msr_account_encode(uint8_t *out, const struct msr_account *a) {
  out[0] = MSR_RECORD_VERSION;
  msr_le64(out + 1, a->quota_bytes);
  msr_le64(out + 9, a->quota_messages);
  msr_le64(out + 17, a->used_bytes);
  msr_le64(out + 25, a->used_messages);
  msr_le64(out + 33, a->modseq);
  msr_le64(out + 41, a->next_message);
  msr_le32(out + 49, a->next_mailbox);
  msr_le32(out + 53, a->last_uidvalidity);
  out[57] = (uint8_t)a->name_len;
  out[58] = (uint8_t)(a->name_len >> 8);
  memcpy(out + MSR_ACCOUNT_FIXED, a->name, a->name_len);
  return MSR_ACCOUNT_FIXED + a->name_len;
}

int msr_account_decode(struct msr_account *a, const void *in, size_t len) {
  struct cur c = {in, len, 0, 0};
  if (rd8(&c) != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  a->quota_bytes = rd64(&c);
  a->quota_messages = rd64(&c);
  a->used_bytes = rd64(&c);
  a->used_messages = rd64(&c);
  a->modseq = rd64(&c);
  a->next_message = rd64(&c);
  a->next_mailbox = rd32(&c);
  a->last_uidvalidity = rd32(&c);
  a->name_len = rd16(&c);
  if (c.bad || a->name_len == 0 || a->name_len > MSR_NAME_MAX || len - c.off != a->name_len ||
      a->next_message == 0)
    return MS_ERR_CORRUPT;
  memcpy(a->name, c.p + c.off, a->name_len);
  return 0;
}

size_t msr_mailbox_encode(uint8_t *out, const struct msr_mailbox *m) {
  out[0] = MSR_RECORD_VERSION;
  msr_le32(out + 1, m->parent);
  msr_le32(out + 5, m->role);
  out[9] = (uint8_t)(m->subscribed != 0);
  msr_le32(out + 10, m->uidvalidity);
  msr_le32(out + 14, m->uidnext);
  msr_le64(out + 18, m->highest_modseq);
  msr_le32(out + 26, m->total);
  msr_le32(out + 30, m->unseen);
  msr_le64(out + 34, m->size);
  out[42] = (uint8_t)m->name_len;
  out[43] = (uint8_t)(m->name_len >> 8);
  memcpy(out + MSR_MAILBOX_FIXED, m->name, m->name_len);
  return MSR_MAILBOX_FIXED + m->name_len;
}

int msr_mailbox_decode(struct msr_mailbox *m, const void *in, size_t len) {
  struct cur c = {in, len, 0, 0};
  if (rd8(&c) != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  m->parent = rd32(&c);
  m->role = rd32(&c);
  m->subscribed = rd8(&c);
  m->uidvalidity = rd32(&c);
  m->uidnext = rd32(&c);
  m->highest_modseq = rd64(&c);
  m->total = rd32(&c);
  m->unseen = rd32(&c);
  m->size = rd64(&c);
  m->name_len = rd16(&c);
  if (c.bad || m->role > MS_ROLE_MAX || m->subscribed > 1 || m->uidvalidity == 0 ||
      m->uidnext == 0 || m->unseen > m->total || m->total >= m->uidnext || m->name_len == 0 ||
      m->name_len > MSR_NAME_MAX || len - c.off != m->name_len)
    return MS_ERR_CORRUPT;
  memcpy(m->name, c.p + c.off, m->name_len);
  return 0;
}

size_t msr_uid_encode(uint8_t out[MSR_UID_MAX], const struct msr_uid *u) {
  msr_le64(out, u->message);
  msr_le32(out + 8, u->flags);
  msr_le64(out + 12, u->modseq);
  size_t n = u->kwlen < MSR_KW_BYTES ? u->kwlen : MSR_KW_BYTES;
  while (n && u->kw[n - 1] == 0)
    n--;
  memcpy(out + MSR_UID_LEN, u->kw, n);
  return MSR_UID_LEN + n;
}

int msr_uid_decode(struct msr_uid *u, const void *in, size_t len) {
  // Trailing zero bytes would make two encodings of one set; the encoder
  // never writes them.
  if (len < MSR_UID_LEN || len > MSR_UID_MAX)
    return MS_ERR_CORRUPT;
  const uint8_t *p = in;
  u->message = msr_get_le64(p);
  u->flags = msr_get_le32(p + 8);
  u->modseq = msr_get_le64(p + 12);
  u->kwlen = (uint32_t)(len - MSR_UID_LEN);
  if (u->message == 0 || (u->flags & ~(uint32_t)MS_FLAG_ALL) || u->modseq == 0 ||
      (u->kwlen && p[len - 1] == 0))
    return MS_ERR_CORRUPT;
  memcpy(u->kw, p + MSR_UID_LEN, u->kwlen);
  memset(u->kw + u->kwlen, 0, MSR_KW_BYTES - u->kwlen);
  return 0;
}

int msr_keyword_valid(const char *name, size_t len, size_t max_len) {
  if (!name || len == 0 || len > max_len || len > MSR_KEYWORD_LEN_MAX)
    return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)name[i];
    // ATOM-CHAR is any CHAR but atom-specials: "(" ")" "{" SP CTL "%" "*"
    // DQUOTE "\" "]".
    if (ch <= 0x20 || ch >= 0x7f || strchr("(){%*\"\\]", ch))
      return 0;
  }
  return 1;
}

int msr_keyword_decode(const char **name, size_t *name_len, const void *in, size_t len) {
  if (!msr_keyword_valid(in, len, MSR_KEYWORD_LEN_MAX))
    return MS_ERR_CORRUPT;
  *name = in;
  *name_len = len;
  return 0;
}

void msr_message_encode(uint8_t out[MSR_MESSAGE_LEN], const struct msr_message *m) {
  out[0] = MSR_RECORD_VERSION;
  msr_le64(out + 1, m->size);
  msr_le64(out + 9, (uint64_t)m->internal_date);
  msr_le32(out + 17, m->refs);
  msr_le64(out + 21, m->thread);
  memcpy(out + 29, m->blob, 32);
}

int msr_message_decode(struct msr_message *m, const void *in, size_t len) {
  if (len != MSR_MESSAGE_LEN)
    return MS_ERR_CORRUPT;
  const uint8_t *p = in;
  if (p[0] != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  m->size = msr_get_le64(p + 1);
  m->internal_date = (int64_t)msr_get_le64(p + 9);
  m->refs = msr_get_le32(p + 17);
  m->thread = msr_get_le64(p + 21);
  memcpy(m->blob, p + 29, 32);
  if (m->size == 0 || m->refs == 0 || m->thread == 0)
    return MS_ERR_CORRUPT;
  return 0;
}

size_t msr_blob_encode_head(uint8_t out[MSR_BLOB_HEAD_MAX], const struct msr_blob *b) {
  out[0] = MSR_RECORD_VERSION;
  msr_le64(out + 1, b->refs);
  msr_le64(out + 9, b->raw_len);
  out[17] = (uint8_t)b->codec;
  if (b->codec == MSR_CODEC_ZSTD)
    return MSR_BLOB_HEAD;
  msr_le32(out + 18, b->dict);
  if (b->codec == MSR_CODEC_ZSTD_DICT)
    return MSR_BLOB_HEAD_DICT;
  msr_le32(out + 22, b->chunk_size);
  return MSR_BLOB_HEAD_CHUNKED;
}

// ---- transform tables (MSR_CODEC_XF) ----

// put_var writes v as a LEB128 varint and returns its length.
static size_t put_var(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

// get_var reads a varint in its shortest form at p[*pos..len); returns 0
// for a truncated, overlong or over-64-bit one.
static int get_var(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64 && *pos < len; shift += 7) {
    uint8_t byte = p[(*pos)++];
    if (shift == 63 && byte > 1)
      return 0;
    r |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      // A zero final byte after others would be a second encoding.
      if (byte == 0 && shift)
        return 0;
      *v = r;
      return 1;
    }
  }
  return 0;
}

uint64_t msr_xf_enc_len(uint64_t dec, uint32_t line, uint32_t flags) {
  if (dec == 0 || dec > ((uint64_t)1 << 60))
    return 0;
  uint64_t chars = (flags & MSR_XF_NOPAD) ? (4 * dec + 2) / 3 : 4 * ((dec + 2) / 3);
  if (!line)
    return chars;
  uint64_t lines = (chars + line - 1) / line;
  return chars + (lines - 1) * ((flags & MSR_XF_CRLF) ? 2 : 1);
}

void msr_xf_begin(struct msr_xf_iter *it, const struct msr_blob *b) {
  *it = (struct msr_xf_iter){.p = b->xf, .len = b->xf_len, .left = b->xf_count};
}

int msr_xf_next(struct msr_xf_iter *it, struct msr_xf_seg *seg) {
  if (!it->left)
    return 0;
  uint64_t line, flags;
  if (!get_var(it->p, it->len, &it->pos, &seg->gap) ||
      !get_var(it->p, it->len, &it->pos, &seg->dec) || !get_var(it->p, it->len, &it->pos, &line) ||
      it->pos >= it->len)
    return MS_ERR_CORRUPT;
  flags = it->p[it->pos++];
  // One encoding per shape: a line length only for two lines or more, a
  // line break style only with lines, no padding only where '=' would be.
  if (line > MSR_XF_LINE_MAX || line % 4 || (flags & ~(uint64_t)MSR_XF_FLAGS) ||
      (!line && (flags & MSR_XF_CRLF)) || ((flags & MSR_XF_NOPAD) && seg->dec % 3 == 0))
    return MS_ERR_CORRUPT;
  seg->line = (uint32_t)line;
  seg->flags = (uint32_t)flags;
  seg->enc = msr_xf_enc_len(seg->dec, seg->line, seg->flags);
  if (seg->enc == 0 || (line && seg->enc <= line) || seg->gap > ((uint64_t)1 << 62) ||
      seg->enc > ((uint64_t)1 << 62))
    return MS_ERR_CORRUPT;
  seg->off = it->raw_end + seg->gap;
  seg->soff = it->stream_end + seg->gap;
  it->raw_end = seg->off + seg->enc;
  it->stream_end = seg->soff + seg->dec;
  it->left--;
  return 1;
}

size_t msr_xf_encode(uint8_t *out, const struct msr_xf_seg *seg, size_t n) {
  size_t o = put_var(out, n);
  for (size_t i = 0; i < n; i++) {
    o += put_var(out + o, seg[i].gap);
    o += put_var(out + o, seg[i].dec);
    o += put_var(out + o, seg[i].line);
    out[o++] = (uint8_t)seg[i].flags;
  }
  return o;
}

// xf_decode checks the transform table at p[pos..len) of blob b: it sets
// b->xf*, b->stream_len and *pos past the table. Segments must lie in
// order within the raw message.
static int xf_decode(struct msr_blob *b, const uint8_t *p, size_t len, size_t *pos) {
  uint64_t count;
  if (!get_var(p, len, pos, &count) || count == 0 || count > MSR_XF_MAX_SEGMENTS)
    return MS_ERR_CORRUPT;
  b->xf = p + *pos;
  b->xf_count = (uint32_t)count;
  b->xf_len = len - *pos;
  struct msr_xf_iter it;
  struct msr_xf_seg seg;
  msr_xf_begin(&it, b);
  int r;
  while ((r = msr_xf_next(&it, &seg)) == 1) {
    // off and enc are each below 2^62, so their sum cannot wrap.
    if (seg.off > b->raw_len || seg.enc > b->raw_len - seg.off)
      return MS_ERR_CORRUPT;
  }
  if (r < 0)
    return r;
  b->xf_len = it.pos;
  *pos += it.pos;
  b->stream_len = it.stream_end + (b->raw_len - it.raw_end);
  return 0;
}

int msr_blob_decode(struct msr_blob *b, const void *in, size_t len) {
  if (len < MSR_BLOB_HEAD)
    return MS_ERR_CORRUPT;
  const uint8_t *p = in;
  if (p[0] != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  b->refs = msr_get_le64(p + 1);
  b->raw_len = msr_get_le64(p + 9);
  b->codec = p[17];
  b->dict = 0;
  b->chunk_size = 0;
  b->chunks = 1;
  b->table = NULL;
  b->head_len = MSR_BLOB_HEAD;
  b->stream_len = b->raw_len;
  b->xf = NULL;
  b->xf_len = 0;
  b->xf_count = 0;
  if (b->refs == 0 || b->raw_len == 0)
    return MS_ERR_CORRUPT;
  if (b->codec == MSR_CODEC_ZSTD_DICT) {
    if (len < MSR_BLOB_HEAD_DICT)
      return MS_ERR_CORRUPT;
    b->dict = msr_get_le32(p + 18);
    b->head_len = MSR_BLOB_HEAD_DICT;
    if (b->dict == 0)
      return MS_ERR_CORRUPT;
  } else if (b->codec == MSR_CODEC_CHUNKED || b->codec == MSR_CODEC_XF) {
    if (len < MSR_BLOB_HEAD_CHUNKED)
      return MS_ERR_CORRUPT;
    b->dict = msr_get_le32(p + 18);
    b->chunk_size = msr_get_le32(p + 22);
    size_t pos = MSR_BLOB_HEAD_CHUNKED;
    int rc;
    if (b->codec == MSR_CODEC_XF && (rc = xf_decode(b, p, len, &pos)) < 0)
      return rc;
    b->head_len = pos;
    // A transformed blob may be one frame (chunk size 0).
    if (b->codec == MSR_CODEC_XF && b->chunk_size == 0)
      goto frames;
    // A blob of one chunk is written as a single frame, so a chunked one
    // has at least two; the table must fit in the value before anything
    // is read from it (compared by division: no overflow).
    if (b->chunk_size < MSR_CHUNK_MIN || b->chunk_size > MSR_CHUNK_MAX ||
        b->stream_len <= b->chunk_size)
      return MS_ERR_CORRUPT;
    b->chunks = msr_blob_chunks(b->stream_len, b->chunk_size);
    if (b->chunks > (len - pos) / 8)
      return MS_ERR_CORRUPT;
    b->table = p + pos;
    b->head_len = pos + 8 * b->chunks;
    // The last end offset is the payload's length; the others are checked
    // when read (msr_blob_chunk), so a read touches only its own entries.
    if (msr_get_le64(b->table + 8 * (b->chunks - 1)) != len - b->head_len)
      return MS_ERR_CORRUPT;
  } else if (b->codec != MSR_CODEC_ZSTD) {
    return MS_ERR_CORRUPT;
  }
frames:
  // A zstd frame is never empty, so the payload must not be either.
  if (len == b->head_len)
    return MS_ERR_CORRUPT;
  return 0;
}

int msr_blob_chunk(const struct msr_blob *b, size_t len, uint64_t i, size_t *off, size_t *clen,
                   size_t *raw) {
  if (i >= b->chunks || len <= b->head_len)
    return MS_ERR_CORRUPT;
  uint64_t payload = len - b->head_len;
  if (b->chunk_size == 0) {
    *off = (size_t)b->head_len;
    *clen = (size_t)payload;
    *raw = (size_t)b->stream_len;
    return 0;
  }
  uint64_t start = i ? msr_get_le64(b->table + 8 * (i - 1)) : 0;
  uint64_t end = msr_get_le64(b->table + 8 * i);
  if (start >= end || end > payload)
    return MS_ERR_CORRUPT;
  uint64_t first = i * b->chunk_size;
  *off = (size_t)(b->head_len + start);
  *clen = (size_t)(end - start);
  *raw = (size_t)(b->stream_len - first < b->chunk_size ? b->stream_len - first : b->chunk_size);
  return 0;
}

size_t msr_dict_encode_head(uint8_t out[MSR_DICT_HEAD], const struct msr_dict *d) {
  out[0] = MSR_RECORD_VERSION;
  msr_le32(out + 1, d->samples);
  msr_le64(out + 5, d->sample_bytes);
  msr_le64(out + 13, (uint64_t)d->created);
  return MSR_DICT_HEAD;
}

int msr_dict_decode(struct msr_dict *d, const void *in, size_t len) {
  struct cur c = {in, len, 0, 0};
  if (rd8(&c) != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  d->samples = rd32(&c);
  d->sample_bytes = rd64(&c);
  d->created = (int64_t)rd64(&c);
  if (c.bad || len - c.off == 0 || len - c.off > MSR_DICT_MAX || d->samples == 0)
    return MS_ERR_CORRUPT;
  d->data = c.p + c.off;
  d->len = len - c.off;
  return 0;
}

void msr_squeue_encode(uint8_t out[MSR_SQUEUE_LEN], const struct msr_squeue *q) {
  out[0] = (uint8_t)q->op;
  msr_le32(out + 1, q->account);
  msr_le64(out + 5, q->message);
}

int msr_squeue_decode(struct msr_squeue *q, const void *in, size_t len) {
  if (len != MSR_SQUEUE_LEN)
    return MS_ERR_CORRUPT;
  const uint8_t *p = in;
  q->op = p[0];
  q->account = msr_get_le32(p + 1);
  q->message = msr_get_le64(p + 5);
  if ((q->op != MS_SEARCH_INDEX && q->op != MS_SEARCH_REMOVE) || q->account == 0 || q->message == 0)
    return MS_ERR_CORRUPT;
  return 0;
}

void msr_clhead_encode(uint8_t out[MSR_CLHEAD_LEN], const struct msr_clhead *h) {
  out[0] = MSR_RECORD_VERSION;
  msr_le64(out + 1, h->next_seq);
  msr_le64(out + 9, h->floor);
  msr_le64(out + 17, h->vfloor);
  msr_le64(out + 25, h->count);
}

int msr_clhead_decode(struct msr_clhead *h, const void *in, size_t len) {
  const uint8_t *p = in;
  if (len != MSR_CLHEAD_LEN || p[0] != MSR_RECORD_VERSION)
    return MS_ERR_CORRUPT;
  h->next_seq = msr_get_le64(p + 1);
  h->floor = msr_get_le64(p + 9);
  h->vfloor = msr_get_le64(p + 17);
  h->count = msr_get_le64(p + 25);
  // Kept entries lie strictly between floor and next_seq.
  if (h->next_seq == 0 || h->floor >= h->next_seq || h->count > h->next_seq - 1 - h->floor)
    return MS_ERR_CORRUPT;
  return 0;
}

void msr_clentry_encode(uint8_t out[MSR_CLENTRY_LEN], const struct msr_clentry *e) {
  out[0] = (uint8_t)e->kind;
  out[1] = (uint8_t)e->type;
  msr_le64(out + 2, e->id);
  msr_le64(out + 10, e->modseq);
  msr_le64(out + 18, (uint64_t)e->time);
}

int msr_clentry_decode(struct msr_clentry *e, const void *in, size_t len) {
  const uint8_t *p = in;
  if (len != MSR_CLENTRY_LEN)
    return MS_ERR_CORRUPT;
  e->kind = p[0];
  e->type = p[1];
  e->id = msr_get_le64(p + 2);
  e->modseq = msr_get_le64(p + 10);
  e->time = (int64_t)msr_get_le64(p + 18);
  if (e->kind < 1 || e->kind > 2 || e->type < 1 || e->type > 4 || e->id == 0 ||
      (e->type == 4 && e->kind != 2))
    return MS_ERR_CORRUPT;
  return 0;
}
