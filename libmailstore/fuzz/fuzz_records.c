// fuzz_records.c: the store's record decoders (src/records.c) on arbitrary
// bytes, the first byte choosing the record type (account, mailbox, uid,
// message, blob head of any codec with a chunked blob's table and a
// transformed blob's segment table, dictionary, search queue entry, keyword
// name, change log head and entry). Property: a decoder either rejects with
// MS_ERR_CORRUPT or accepts, and then re-encoding the record gives back
// exactly the input (the encodings are canonical), so nothing a decoder
// accepts is lost or invented. An accepted transformed blob of a small
// message is also read back through the range mapping and re-encoding of
// src/transform.c over a stream of bytes from the input, from many
// offsets: whatever the table says, the reader stays within its buffers.
#include "mailstore.h"
#include "store_records.h"
#include "transform.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
}

// xf_walk checks a decoded transformed blob b (from in, len bytes): its
// segments lie in order within the message and re-encode to exactly the
// table that was read, whose length it returns; a message of at most 64 KiB
// is read back through msx_expand, whole and from many offsets, over a
// stream of bytes taken from the input, without leaving its buffers (the
// sanitizers watch; msx_expand may refuse, never overrun).
static size_t xf_walk(const struct msr_blob *b, const uint8_t *in, size_t len) {
  static struct msr_xf_seg segs[MSR_XF_MAX_SEGMENTS];
  static uint8_t table[MSR_XF_TABLE_MAX(MSR_XF_MAX_SEGMENTS)];
  struct msr_xf_iter it;
  size_t n = 0;
  int r;
  uint64_t raw_end = 0, dec = 0, enc = 0;
  msr_xf_begin(&it, b);
  while ((r = msr_xf_next(&it, &segs[n])) == 1) {
    check(segs[n].off >= raw_end && segs[n].enc <= b->raw_len - segs[n].off);
    check(segs[n].dec > 0 &&
          segs[n].enc == msr_xf_enc_len(segs[n].dec, segs[n].line, segs[n].flags));
    raw_end = segs[n].off + segs[n].enc;
    dec += segs[n].dec;
    enc += segs[n].enc;
    n++;
  }
  check(r == 0 && n == b->xf_count && n > 0 && b->stream_len == b->raw_len - enc + dec);
  size_t tl = msr_xf_encode(table, segs, n);
  const uint8_t *start = in + MSR_BLOB_HEAD_CHUNKED;
  check(b->xf > start && tl == (size_t)(b->xf - start) + b->xf_len);
  check(memcmp(table, start, tl) == 0);
  if (b->raw_len <= (64u << 10)) {
    size_t rl = (size_t)b->raw_len, sl = (size_t)b->stream_len;
    uint8_t *stream = malloc(sl), *raw = malloc(rl);
    check(stream && raw);
    for (size_t i = 0; i < sl; i++)
      stream[i] = in[i % len];
    for (size_t off = 0; off < rl; off += 1 + off / 16) {
      uint64_t s0 = 0, s1 = 0, want = off == 0 ? rl : (rl - off < 300 ? rl - off : 300);
      check(msx_stream_range(b, off, want, &s0, &s1) == 0);
      check(s0 <= s1 && s1 <= sl);
      // Only [s0, s1) is handed over, in a buffer of its own size.
      uint8_t *part = malloc(s1 - s0 + 1);
      check(part != NULL);
      memcpy(part, stream + s0, (size_t)(s1 - s0));
      int rc = msx_expand(b, off, want, part, s0, s1, raw + off);
      check(rc == 0 || rc == MS_ERR_CORRUPT);
      free(part);
    }
    free(stream);
    free(raw);
  }
  return tl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  static uint8_t out[MSR_ACCOUNT_MAX + MSR_MAILBOX_MAX];
  int rc;
  switch (data[0] % 10) {
  case 0: {
    struct msr_account a;
    rc = msr_account_decode(&a, in, len);
    if (rc == 0) {
      check(msr_account_encode(out, &a) == len);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 1: {
    struct msr_mailbox m;
    rc = msr_mailbox_decode(&m, in, len);
    if (rc == 0) {
      check(msr_mailbox_encode(out, &m) == len);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 2: {
    struct msr_uid u;
    rc = msr_uid_decode(&u, in, len);
    if (rc == 0) {
      check(msr_uid_encode(out, &u) == len);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 3: {
    struct msr_message m;
    rc = msr_message_decode(&m, in, len);
    if (rc == 0) {
      check(len == MSR_MESSAGE_LEN);
      msr_message_encode(out, &m);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 4: {
    // A blob head of any codec; the frames after it are opaque here, but
    // a chunked blob's table is walked as a range read walks it.
    struct msr_blob b;
    rc = msr_blob_decode(&b, in, len);
    if (rc == 0) {
      size_t want = b.codec == MSR_CODEC_ZSTD        ? MSR_BLOB_HEAD
                    : b.codec == MSR_CODEC_ZSTD_DICT ? MSR_BLOB_HEAD_DICT
                                                     : MSR_BLOB_HEAD_CHUNKED;
      check(len > b.head_len);
      check(b.codec != MSR_CODEC_ZSTD_DICT || b.dict != 0);
      check(b.chunk_size || b.chunks == 1);
      check(msr_blob_encode_head(out, &b) == want);
      check(memcmp(out, in, want) == 0);
      check(b.codec == MSR_CODEC_XF || (b.stream_len == b.raw_len && b.xf_count == 0));
      if (b.codec == MSR_CODEC_XF)
        want += xf_walk(&b, in, len);
      if (b.chunk_size) {
        check(b.chunks >= 2 && b.chunks == msr_blob_chunks(b.stream_len, b.chunk_size));
        check(b.head_len == want + 8 * b.chunks && b.table == in + want);
      } else {
        check(b.head_len == want);
      }
      uint64_t raw_sum = 0;
      for (uint64_t i = 0; i < b.chunks; i++) {
        size_t off, clen, raw;
        if (msr_blob_chunk(&b, len, i, &off, &clen, &raw) < 0)
          continue;
        check(off >= b.head_len && clen > 0 && off + clen <= len && raw > 0);
        check(!b.chunk_size || raw <= b.chunk_size);
        raw_sum += raw;
      }
      check(raw_sum <= b.stream_len);
      check(msr_blob_chunk(&b, len, b.chunks, &(size_t){0}, &(size_t){0}, &(size_t){0}) ==
            MS_ERR_CORRUPT);
    }
    break;
  }
  case 6: {
    struct msr_squeue q;
    rc = msr_squeue_decode(&q, in, len);
    if (rc == 0) {
      check(len == MSR_SQUEUE_LEN && q.account && q.message);
      check(q.op == MS_SEARCH_INDEX || q.op == MS_SEARCH_REMOVE);
      msr_squeue_encode(out, &q);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 7: {
    // A keyword name: accepted names are atoms, returned as stored.
    const char *name;
    size_t name_len;
    rc = msr_keyword_decode(&name, &name_len, in, len);
    if (rc == 0) {
      check(name == (const char *)in && name_len == len && len <= MSR_KEYWORD_LEN_MAX);
      for (size_t i = 0; i < len; i++)
        check(in[i] > 0x20 && in[i] < 0x7f && in[i] != '\\' && in[i] != '"');
    }
    break;
  }
  case 8: {
    struct msr_clhead h;
    rc = msr_clhead_decode(&h, in, len);
    if (rc == 0) {
      check(len == MSR_CLHEAD_LEN && h.floor < h.next_seq);
      check(h.count <= h.next_seq - 1 - h.floor);
      msr_clhead_encode(out, &h);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 9: {
    struct msr_clentry e;
    rc = msr_clentry_decode(&e, in, len);
    if (rc == 0) {
      check(len == MSR_CLENTRY_LEN && e.id != 0);
      check(e.kind >= 1 && e.kind <= 2 && e.type >= 1 && e.type <= 4);
      msr_clentry_encode(out, &e);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  default: {
    // A dictionary record: the head re-encodes, the payload is the rest.
    struct msr_dict d;
    rc = msr_dict_decode(&d, in, len);
    if (rc == 0) {
      check(d.len > 0 && d.len <= MSR_DICT_MAX && d.samples > 0);
      check(d.data == in + MSR_DICT_HEAD && MSR_DICT_HEAD + d.len == len);
      check(msr_dict_encode_head(out, &d) == MSR_DICT_HEAD);
      check(memcmp(out, in, MSR_DICT_HEAD) == 0);
    }
    break;
  }
  }
  check(rc == 0 || rc == MS_ERR_CORRUPT);
  return 0;
}
