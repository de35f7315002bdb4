// fuzz_records.c: the store's record decoders (src/records.c) on arbitrary
// bytes, the first byte choosing the record type (account, mailbox, uid,
// message, blob head of any codec with a chunked blob's table, dictionary,
// search queue entry, keyword name, change log head and entry). Property: a decoder either
// rejects with MS_ERR_CORRUPT or accepts, and then re-encoding the record
// gives back exactly the input (the encodings are canonical), so nothing a
// decoder accepts is lost or invented.
#include "mailstore.h"
#include "store_records.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
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
      check(b.codec == MSR_CODEC_CHUNKED || b.chunks == 1);
      check(msr_blob_encode_head(out, &b) == want);
      check(memcmp(out, in, want) == 0);
      if (b.codec == MSR_CODEC_CHUNKED) {
        check(b.chunks >= 2 && b.chunks == msr_blob_chunks(b.raw_len, b.chunk_size));
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
        check(b.codec != MSR_CODEC_CHUNKED || raw <= b.chunk_size);
        raw_sum += raw;
      }
      check(raw_sum <= b.raw_len);
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
