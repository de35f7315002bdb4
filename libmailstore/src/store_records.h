// store_records.h: private record encodings of the store (FORMAT.md): byte
// order helpers and the bounded decoders every value read from LMDB goes
// through, so that a damaged file yields MS_ERR_CORRUPT and never a crash.
#ifndef MS_STORE_RECORDS_H
#define MS_STORE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define MSR_FORMAT_VERSION 3u
#define MSR_RECORD_VERSION 1u
#define MSR_NAME_MAX 1024u
#define MSR_CODEC_ZSTD 1u
#define MSR_CODEC_ZSTD_DICT 2u

// Keys are big-endian so LMDB's memcmp order is numeric order; values are
// little-endian, the host order of every supported target.
static inline void msr_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline void msr_be64(uint8_t *p, uint64_t v) {
  msr_be32(p, (uint32_t)(v >> 32));
  msr_be32(p + 4, (uint32_t)v);
}
static inline uint32_t msr_get_be32(const void *q) {
  const uint8_t *p = q;
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void msr_le32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static inline void msr_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t msr_get_le32(const void *q) {
  const uint8_t *p = q;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t msr_get_le64(const void *q) {
  const uint8_t *p = q;
  return (uint64_t)msr_get_le32(p) | (uint64_t)msr_get_le32(p + 4) << 32;
}

struct msr_account {
  uint64_t quota_bytes, quota_messages, used_bytes, used_messages, modseq, next_message;
  uint32_t next_mailbox, last_uidvalidity;
  uint16_t name_len;
  char name[MSR_NAME_MAX];
};
#define MSR_ACCOUNT_FIXED 59u
#define MSR_ACCOUNT_MAX (MSR_ACCOUNT_FIXED + MSR_NAME_MAX)

struct msr_mailbox {
  uint32_t parent, role, subscribed, uidvalidity, uidnext, total, unseen;
  uint64_t highest_modseq, size;
  uint16_t name_len;
  char name[MSR_NAME_MAX];
};
#define MSR_MAILBOX_FIXED 44u
#define MSR_MAILBOX_MAX (MSR_MAILBOX_FIXED + MSR_NAME_MAX)

struct msr_uid {
  uint64_t message;
  uint32_t flags;
  uint64_t modseq;
};
#define MSR_UID_LEN 20u

struct msr_message {
  uint64_t size;
  int64_t internal_date;
  uint32_t refs;
  uint64_t thread;
  uint8_t blob[32];
};
#define MSR_MESSAGE_LEN 61u

// A blob's head is 18 bytes for MSR_CODEC_ZSTD and 22 for
// MSR_CODEC_ZSTD_DICT, which adds the id of the dictionary its frame needs.
struct msr_blob {
  uint64_t refs, raw_len;
  uint32_t codec;
  uint32_t dict;     // dictionary id, 0 for MSR_CODEC_ZSTD
  uint32_t head_len; // set by the decoder: where the zstd frame starts
};
#define MSR_BLOB_HEAD 18u
#define MSR_BLOB_HEAD_DICT 22u
#define MSR_BLOB_HEAD_MAX MSR_BLOB_HEAD_DICT

// A dictionary record: how it was trained, then the ZDICT dictionary bytes.
struct msr_dict {
  uint32_t samples;      // messages it was trained on
  uint64_t sample_bytes; // bytes of those samples
  int64_t created;       // seconds since the epoch
  const uint8_t *data;   // the dictionary; points into the decoded value
  size_t len;
};
#define MSR_DICT_HEAD 21u
// MSR_DICT_MAX bounds a stored dictionary; the trainer stays well below.
#define MSR_DICT_MAX (4u << 20)

// A search queue entry (FORMAT.md): what the indexer must do for which
// message.
struct msr_squeue {
  uint32_t op; // MS_SEARCH_INDEX or MS_SEARCH_REMOVE
  uint32_t account;
  uint64_t message;
};
#define MSR_SQUEUE_LEN 13u

// Encoders write exactly the record's length (returned where it varies).
// Decoders check the length, version and every field's range; they return 0
// or MS_ERR_CORRUPT.
size_t msr_account_encode(uint8_t *out, const struct msr_account *a);
int msr_account_decode(struct msr_account *a, const void *in, size_t len);
size_t msr_mailbox_encode(uint8_t *out, const struct msr_mailbox *m);
int msr_mailbox_decode(struct msr_mailbox *m, const void *in, size_t len);
void msr_uid_encode(uint8_t out[MSR_UID_LEN], const struct msr_uid *u);
int msr_uid_decode(struct msr_uid *u, const void *in, size_t len);
void msr_message_encode(uint8_t out[MSR_MESSAGE_LEN], const struct msr_message *m);
int msr_message_decode(struct msr_message *m, const void *in, size_t len);
size_t msr_blob_encode_head(uint8_t out[MSR_BLOB_HEAD_MAX], const struct msr_blob *b);
int msr_blob_decode(struct msr_blob *b, const void *in, size_t len);
size_t msr_dict_encode_head(uint8_t out[MSR_DICT_HEAD], const struct msr_dict *d);
int msr_dict_decode(struct msr_dict *d, const void *in, size_t len);
void msr_squeue_encode(uint8_t out[MSR_SQUEUE_LEN], const struct msr_squeue *q);
int msr_squeue_decode(struct msr_squeue *q, const void *in, size_t len);

#endif // MS_STORE_RECORDS_H
