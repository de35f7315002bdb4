// store_records.h: private record encodings of the store (FORMAT.md): byte
// order helpers and the bounded decoders every value read from LMDB goes
// through, so that a damaged file yields MS_ERR_CORRUPT and never a crash.
#ifndef MS_STORE_RECORDS_H
#define MS_STORE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define MSR_FORMAT_VERSION 6u
#define MSR_RECORD_VERSION 1u
#define MSR_NAME_MAX 1024u
#define MSR_CODEC_ZSTD 1u
#define MSR_CODEC_ZSTD_DICT 2u
#define MSR_CODEC_CHUNKED 3u
#define MSR_CODEC_XF 4u

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

// MSR_KEYWORDS_MAX bounds the keyword ids of one account (ms_settings.
// max_keywords may lower it); a membership's keywords are a bitmap of them.
#define MSR_KEYWORDS_MAX 1024u
#define MSR_KW_BYTES (MSR_KEYWORDS_MAX / 8u)
// MSR_KEYWORD_LEN_MAX bounds a keyword name, as JMAP does (RFC 8621 4.1.1).
#define MSR_KEYWORD_LEN_MAX 255u

// A uid record: 20 fixed bytes, then (format 4) the membership's keyword
// bitmap without its trailing zero bytes. Decoders zero kw past kwlen, so
// callers may test and set any bit below MSR_KEYWORDS_MAX.
struct msr_uid {
  uint64_t message;
  uint32_t flags;
  uint64_t modseq;
  uint32_t kwlen;
  uint8_t kw[MSR_KW_BYTES];
};
#define MSR_UID_LEN 20u
#define MSR_UID_MAX (MSR_UID_LEN + MSR_KW_BYTES)

struct msr_message {
  uint64_t size;
  int64_t internal_date;
  uint32_t refs;
  uint64_t thread;
  uint8_t blob[32];
};
#define MSR_MESSAGE_LEN 61u

// A blob's head is 18 bytes for MSR_CODEC_ZSTD, 22 for MSR_CODEC_ZSTD_DICT,
// which adds the id of the dictionary its frame needs, and 26 plus 8 per
// chunk for MSR_CODEC_CHUNKED (format 5): dictionary id (0 for none), chunk
// size, then each chunk frame's end offset from the end of the head.
// MSR_CODEC_XF (format 6) has the same 26 fixed bytes (chunk size 0: one
// frame), then the transform table (Base64 segments stored decoded, see
// struct msr_xf_seg), then the chunk table when chunked. What the frames
// hold is the "stream": the raw message with each segment replaced by its
// decoded bytes; for the other codecs the stream is the raw message.
struct msr_blob {
  uint64_t refs, raw_len;
  uint32_t codec;
  uint32_t dict;        // dictionary id, 0 for MSR_CODEC_ZSTD
  uint32_t chunk_size;  // stream bytes per chunk when chunked, else 0
  uint64_t chunks;      // number of chunks, 1 for a single frame
  const uint8_t *table; // chunked: the end offsets, in the value
  uint64_t head_len;    // set by the decoder: where the first frame starts
  uint64_t stream_len;  // bytes the frames decompress to (raw_len but for XF)
  const uint8_t *xf;    // MSR_CODEC_XF: the segments' encoding, in the value
  size_t xf_len;        // its length in bytes
  uint32_t xf_count;    // number of segments (1..MSR_XF_MAX_SEGMENTS)
};
#define MSR_BLOB_HEAD 18u
#define MSR_BLOB_HEAD_DICT 22u
#define MSR_BLOB_HEAD_CHUNKED 26u
#define MSR_BLOB_HEAD_MAX MSR_BLOB_HEAD_CHUNKED
// Bounds of a chunk (ms_settings.blob_chunk_size): below 64 KiB the table
// and the per-frame overhead grow for little gain, above 16 MiB a range
// read decompresses too much to be called partial.
#define MSR_CHUNK_MIN (64u << 10)
#define MSR_CHUNK_MAX (16u << 20)

// Transforms (format 6, MSR_CODEC_XF). A segment is a Base64 body of the
// raw message in a regular shape: lines of exactly `line` characters
// (a multiple of 4; 0: the segment is one line) separated by CRLF or LF
// (MSR_XF_CRLF), the last line 1..line characters, '=' padding unless
// MSR_XF_NOPAD, no other byte. It starts at its first character and ends
// after its last (line breaks after it stay raw). The stream holds its
// `dec` decoded bytes instead; reading re-encodes them. In the record a
// segment is four LEB128 varints (shortest form) and a flag byte: gap (raw
// bytes from the previous segment's end, or from 0, to its start), dec
// (>= 1), line, then flags. The encoded length is not stored: it follows
// from dec, line and flags (msr_xf_enc_len), so each segment has one
// encoding. The table starts with the segment count as a varint.
#define MSR_XF_CRLF 1u
#define MSR_XF_NOPAD 2u
#define MSR_XF_FLAGS (MSR_XF_CRLF | MSR_XF_NOPAD)
// MSR_XF_LINE_MAX bounds `line`: RFC 5322 lines are at most 998 characters.
#define MSR_XF_LINE_MAX 996u
// MSR_XF_MAX_SEGMENTS bounds the segments of one blob (a message with more
// Base64 parts keeps the rest raw), so that walking the table is cheap.
#define MSR_XF_MAX_SEGMENTS 1024u
// MSR_XF_SEG_MAX bounds one encoded segment's size in the record.
#define MSR_XF_SEG_MAX 23u

struct msr_xf_seg {
  uint64_t gap;   // raw bytes between the previous segment (or 0) and this one
  uint64_t dec;   // decoded bytes, >= 1
  uint32_t line;  // characters per line, 0 for one line
  uint32_t flags; // MSR_XF_*
  // Derived by msr_xf_next:
  uint64_t off;  // raw offset of its first character
  uint64_t enc;  // raw bytes it spans (msr_xf_enc_len)
  uint64_t soff; // stream offset of its decoded bytes
};

// msr_xf_enc_len returns the raw length of a segment of dec decoded bytes
// with `line` and `flags`, or 0 when that does not fit in 62 bits.
uint64_t msr_xf_enc_len(uint64_t dec, uint32_t line, uint32_t flags);

// msr_xf_iter walks a blob's transform table in order.
struct msr_xf_iter {
  const uint8_t *p;
  size_t len, pos;
  uint32_t left;
  uint64_t raw_end, stream_end; // end of the previous segment, raw and stream
};
// msr_xf_begin starts a walk over b's table (b decoded by msr_blob_decode).
void msr_xf_begin(struct msr_xf_iter *it, const struct msr_blob *b);
// msr_xf_next decodes the next segment into *seg with its derived fields.
// Returns 1, 0 at the end, or MS_ERR_CORRUPT (the decoder checked the
// table, so only a caller's misuse reaches it).
int msr_xf_next(struct msr_xf_iter *it, struct msr_xf_seg *seg);
// msr_xf_encode writes the table (count, then each segment's gap, dec,
// line, flags) of the n segments at seg (only those fields are read) to
// out, which has room for MSR_XF_TABLE_MAX(n) bytes; returns its length.
#define MSR_XF_TABLE_MAX(n) (10u + (size_t)(n)*MSR_XF_SEG_MAX)
size_t msr_xf_encode(uint8_t *out, const struct msr_xf_seg *seg, size_t n);

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
// msr_uid_encode writes the fixed part and kw trimmed of trailing zero
// bytes (kwlen is only an upper bound for it) and returns the length.
size_t msr_uid_encode(uint8_t out[MSR_UID_MAX], const struct msr_uid *u);
int msr_uid_decode(struct msr_uid *u, const void *in, size_t len);
void msr_message_encode(uint8_t out[MSR_MESSAGE_LEN], const struct msr_message *m);
int msr_message_decode(struct msr_message *m, const void *in, size_t len);
// msr_blob_encode_head writes the fixed head (for MSR_CODEC_CHUNKED without
// the table, which follows it) and returns its length.
size_t msr_blob_encode_head(uint8_t out[MSR_BLOB_HEAD_MAX], const struct msr_blob *b);
int msr_blob_decode(struct msr_blob *b, const void *in, size_t len);
// msr_blob_chunks returns the number of chunks of raw_len (stream) bytes
// cut every chunk_size bytes (chunk_size non-zero).
static inline uint64_t msr_blob_chunks(uint64_t raw_len, uint32_t chunk_size) {
  return raw_len / chunk_size + (raw_len % chunk_size != 0);
}
// msr_blob_chunk finds chunk i (< b->chunks) of the blob b decoded from a
// value of len bytes: its frame at *off (from the value's start), *clen
// bytes long, which decompresses to *raw bytes. The decoder checked only
// the last offset; this checks the two it reads, so a damaged table yields
// MS_ERR_CORRUPT, never a read outside the value. Single-frame blobs have
// one chunk, the whole payload. Chunks cut the stream (b->stream_len).
int msr_blob_chunk(const struct msr_blob *b, size_t len, uint64_t i, size_t *off, size_t *clen,
                   size_t *raw);
size_t msr_dict_encode_head(uint8_t out[MSR_DICT_HEAD], const struct msr_dict *d);
int msr_dict_decode(struct msr_dict *d, const void *in, size_t len);
void msr_squeue_encode(uint8_t out[MSR_SQUEUE_LEN], const struct msr_squeue *q);
int msr_squeue_decode(struct msr_squeue *q, const void *in, size_t len);

// A change log head record ("changes" DBI, key: account u32 BE): where the
// account's log stands.
struct msr_clhead {
  uint64_t next_seq; // sequence number of the next entry, from 1
  uint64_t floor;    // entries with sequence numbers <= floor are pruned
  uint64_t vfloor;   // highest MODSEQ of a pruned entry (VANISHED bound)
  uint64_t count;    // entries kept
};
#define MSR_CLHEAD_LEN 33u

// A change log entry (key: account u32 BE, sequence u64 BE).
struct msr_clentry {
  uint32_t kind; // MS_CHANGE_MESSAGE or MS_CHANGE_MAILBOX
  uint32_t type; // MS_CHANGE_CREATED .. MS_CHANGE_COUNTS
  uint64_t id;   // message or mailbox id
  uint64_t modseq;
  int64_t time; // seconds since the epoch
};
#define MSR_CLENTRY_LEN 26u

void msr_clhead_encode(uint8_t out[MSR_CLHEAD_LEN], const struct msr_clhead *h);
int msr_clhead_decode(struct msr_clhead *h, const void *in, size_t len);
void msr_clentry_encode(uint8_t out[MSR_CLENTRY_LEN], const struct msr_clentry *e);
int msr_clentry_decode(struct msr_clentry *e, const void *in, size_t len);

// msr_keyword_valid returns 1 if name (len bytes) is a keyword the store
// keeps: 1..max_len (at most MSR_KEYWORD_LEN_MAX) IMAP ATOM-CHARs (RFC 9051
// section 9: printable ASCII but SP ( ) { % * " \ ]), else 0. System flags
// (\Seen) are not keywords; the keyword API maps them to MS_FLAG_* itself.
int msr_keyword_valid(const char *name, size_t len, size_t max_len);

// A keyword table entry ("keywords" DBI): the name, exactly as first stored.
// msr_keyword_decode checks the name and points *name into the value.
int msr_keyword_decode(const char **name, size_t *name_len, const void *in, size_t len);

#endif // MS_STORE_RECORDS_H
