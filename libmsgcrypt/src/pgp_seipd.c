// pgp_seipd.c: the body of the Symmetrically Encrypted and Integrity
// Protected Data packet (RFC 9580 §5.13), encrypted as the plaintext streams
// in: version 2 splits it into chunks sealed with AES-OCB or AES-GCM under a
// message key and IV derived by HKDF from the session key and a random salt
// (§5.13.2), ending with a final tag over the total length; version 1 runs
// AES in CFB mode over a random prefix, the plaintext and the Modification
// Detection Code, a SHA-1 hash of all of it (§5.13.1). OCB chunks are
// encrypted from the caller's input into a bounded output buffer as the
// plaintext arrives (no chunk is copied together first); GCM chunks, sealed
// in one call, are gathered in a chunk buffer. Memory is that buffer (v2) or
// a small block buffer (v1), whatever the message length.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "aead_internal.h"
#include "cfb_sha1_internal.h"
#include "pgp_encrypt_internal.h"

// CFB input is gathered into this many octets, a multiple of the block size,
// before each call.
#define V1_BUF_LEN 4096

// OCB ciphertext is handed to the sink in pieces of at most this many
// octets: big enough that the sink's per-call work does not show, small
// enough to stay in L2 while the armor or packet writer reads it.
#define V2_OUT_LEN 65536

struct mc_pgp_seipd {
  mc_pgp_format fmt;
  mc_pgp_sink_fn sink;
  void *opaque;
  // Version 2.
  mc_aes_ocb_ctx ocb;
  uint8_t key[32];
  size_t key_len;
  uint8_t nonce[15]; // IV || chunk index
  size_t nonce_len;
  uint8_t ad[13];    // the five header octets, then the total length
  uint64_t index;    // chunks sealed so far
  uint64_t total;    // plaintext octets sealed so far
  size_t chunk_size; // plaintext octets per chunk
  size_t chunk_len;  // plaintext octets in chunk
  size_t chunk_high; // the most octets of chunk ever written: what to wipe
  uint8_t *chunk;    // GCM: chunk_size + 16 octets, sealed in place
  // OCB: the chunk being encrypted, and V2_OUT_LEN + 32 octets for its
  // ciphertext on its way to the sink.
  mc_ocb_enc enc;
  uint8_t *out;
  // Version 1.
  // CFB and the MDC's SHA-1 in one pass (cfb_sha1.c), writing ciphertext
  // into v1_buf from its start; whatever is complete goes to the sink.
  mc_cfb_sha1 v1;
  uint8_t v1_buf[V1_BUF_LEN + 64 + 22];
};

int mc_pgp_rand_default(void *opaque, uint8_t *out, size_t len) {
  (void)opaque;
  return mc_random_bytes(out, len);
}

static void set_index(mc_pgp_seipd *s, uint64_t i) {
  for (int b = 0; b < 8; b++)
    s->nonce[s->nonce_len - 1 - b] = (uint8_t)(i >> (8 * b));
}

// seal_to seals `len` octets of `in` into `out` (which may be `in`) under
// the current nonce.
static int seal_to(mc_pgp_seipd *s, uint8_t *out, size_t cap, size_t *out_len, const uint8_t *in,
                   size_t len, const uint8_t *ad, size_t ad_len) {
  if (s->fmt.aead == MC_PGP_AEAD_OCB)
    return mc_aes_ocb_seal(&s->ocb, out, cap, out_len, s->nonce, s->nonce_len, in, len, ad, ad_len);
  return mc_aes_gcm_seal(out, cap, out_len, s->key, s->key_len, s->nonce, s->nonce_len, in, len, ad,
                         ad_len);
}

static int seal(mc_pgp_seipd *s, uint8_t *buf, size_t len, size_t cap, size_t *out_len,
                const uint8_t *ad, size_t ad_len) {
  return seal_to(s, buf, cap, out_len, buf, len, ad, ad_len);
}

// v2_ocb_close finishes the OCB chunk in progress: its last partial block
// and its tag go to the sink, and the next chunk's encryption starts.
static int v2_ocb_close(mc_pgp_seipd *s) {
  size_t n = mc_ocb_enc_final(&s->ocb, &s->enc, s->out, s->ad, 5);
  MC_TRY(s->sink(s->opaque, s->out, n));
  s->index++;
  s->total += s->chunk_len;
  s->chunk_len = 0;
  set_index(s, s->index);
  mc_ocb_enc_start(&s->ocb, &s->enc, s->nonce, s->nonce_len);
  return 0;
}

// v2_ocb_write encrypts plaintext from `in` into s->out, a bounded piece at
// a time, and sends the ciphertext of the completed blocks on.
static int v2_ocb_write(mc_pgp_seipd *s, const uint8_t *in, size_t in_len) {
  while (in_len > 0) {
    // A full chunk is closed only once more plaintext arrives, so that the
    // last chunk is never empty.
    if (s->chunk_len == s->chunk_size)
      MC_TRY(v2_ocb_close(s));
    size_t take = s->chunk_size - s->chunk_len;
    if (take > in_len)
      take = in_len;
    if (take > V2_OUT_LEN)
      take = V2_OUT_LEN;
    size_t n = mc_ocb_enc_update(&s->ocb, &s->enc, s->out, in, take);
    if (n > 0)
      MC_TRY(s->sink(s->opaque, s->out, n));
    s->chunk_len += take;
    in += take;
    in_len -= take;
  }
  return 0;
}

static int v2_seal_chunk(mc_pgp_seipd *s) {
  size_t out_len = 0;
  set_index(s, s->index);
  MC_TRY(seal(s, s->chunk, s->chunk_len, s->chunk_size + 16, &out_len, s->ad, 5));
  if (out_len > s->chunk_high)
    s->chunk_high = out_len;
  MC_TRY(s->sink(s->opaque, s->chunk, out_len));
  s->index++;
  s->total += s->chunk_len;
  s->chunk_len = 0;
  return 0;
}

// v2_start derives the message key and IV and writes the packet's head;
// `buffered` allocates the chunk buffer of the streaming path.
static int v2_start(mc_pgp_seipd *s, const uint8_t *sk, size_t sk_len, mc_pgp_rand_fn rnd,
                    void *rnd_opaque, int buffered) {
  MC_FAIL_IF(s->fmt.aead != MC_PGP_AEAD_OCB && s->fmt.aead != MC_PGP_AEAD_GCM, MC_ERR_UNSUPPORTED);
  MC_FAIL_IF(s->fmt.chunk_octet > MC_PGP_MAX_CHUNK_OCTET, MC_ERR_INVALID_ARGUMENT);
  s->nonce_len = s->fmt.aead == MC_PGP_AEAD_OCB ? 15 : MC_AES_GCM_NONCE_LEN;
  s->chunk_size = (size_t)1 << (s->fmt.chunk_octet + 6);
  if (buffered && s->fmt.aead == MC_PGP_AEAD_OCB) {
    s->out = malloc(V2_OUT_LEN + 32);
    MC_FAIL_IF(s->out == NULL, -ENOMEM);
  } else if (buffered) {
    s->chunk = malloc(s->chunk_size + 16);
    MC_FAIL_IF(s->chunk == NULL, -ENOMEM);
  }
  uint8_t head[4 + MC_PGP_SALT_LEN] = {2, s->fmt.sym, s->fmt.aead, s->fmt.chunk_octet};
  MC_TRY(rnd(rnd_opaque, head + 4, MC_PGP_SALT_LEN));
  s->ad[0] = 0xc0 | MC_PGP_TAG_SEIPD;
  memcpy(s->ad + 1, head, 4);
  // HKDF-SHA256 gives the message key and the first nonce_len - 8 nonce
  // octets; the info is the same five octets as the chunks' AD.
  uint8_t okm[32 + 7];
  size_t iv_len = s->nonce_len - 8;
  MC_TRY(mc_hkdf(MC_HASH_SHA256, okm, s->key_len + iv_len, sk, sk_len, head + 4, MC_PGP_SALT_LEN,
                 s->ad, 5));
  memcpy(s->key, okm, s->key_len);
  memcpy(s->nonce, okm + s->key_len, iv_len);
  mc_wipe(okm, sizeof okm);
  if (s->fmt.aead == MC_PGP_AEAD_OCB) {
    MC_TRY(mc_aes_ocb_init(&s->ocb, s->key, s->key_len, 16));
    set_index(s, 0);
    mc_ocb_enc_start(&s->ocb, &s->enc, s->nonce, s->nonce_len);
  }
  return s->sink(s->opaque, head, sizeof head);
}

// v1_flush sends the ciphertext completed so far and writes on from the
// start of v1_buf (the bytes still staged in the stream are not written
// yet, so none is lost).
static int v1_flush(mc_pgp_seipd *s) {
  size_t len = (size_t)(s->v1.out - s->v1_buf);
  s->v1.out = s->v1_buf;
  return s->sink(s->opaque, s->v1_buf, len);
}

static int v1_feed(mc_pgp_seipd *s, const uint8_t *in, size_t in_len) {
  while (in_len > 0) {
    size_t take = in_len < V1_BUF_LEN ? in_len : V1_BUF_LEN;
    mc_cfb_sha1_update(&s->v1, in, take);
    in += take;
    in_len -= take;
    MC_TRY(v1_flush(s));
  }
  return 0;
}

static int v1_start(mc_pgp_seipd *s, mc_pgp_rand_fn rnd, void *rnd_opaque) {
  static const uint8_t version = 1;
  uint8_t prefix[MC_AES_BLOCK_LEN + 2];
  mc_cfb_sha1_start(&s->v1, s->v1_buf, s->key, s->key_len);
  MC_TRY(rnd(rnd_opaque, prefix, MC_AES_BLOCK_LEN));
  prefix[MC_AES_BLOCK_LEN] = prefix[MC_AES_BLOCK_LEN - 2];
  prefix[MC_AES_BLOCK_LEN + 1] = prefix[MC_AES_BLOCK_LEN - 1];
  MC_TRY(s->sink(s->opaque, &version, 1));
  int ret = v1_feed(s, prefix, sizeof prefix);
  mc_wipe(prefix, sizeof prefix);
  return ret;
}

int mc_pgp_seipd_new(mc_pgp_seipd **out_s, const mc_pgp_format *fmt, const uint8_t *sk,
                     size_t sk_len, mc_pgp_rand_fn rnd, void *rnd_opaque, mc_pgp_sink_fn out,
                     void *out_opaque) {
  MC_FAIL_IF(out_s == NULL || fmt == NULL || sk == NULL || out == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(mc_pgp_sym_key_len(fmt->sym) != sk_len, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(fmt->seipd_version != 1 && fmt->seipd_version != 2, MC_ERR_UNSUPPORTED);
  mc_pgp_seipd *s = calloc(1, sizeof *s);
  MC_FAIL_IF(s == NULL, -ENOMEM);
  s->fmt = *fmt;
  s->sink = out;
  s->opaque = out_opaque;
  s->key_len = sk_len;
  if (rnd == NULL)
    rnd = mc_pgp_rand_default;
  int ret;
  if (fmt->seipd_version == 2) {
    ret = v2_start(s, sk, sk_len, rnd, rnd_opaque, 1);
  } else {
    memcpy(s->key, sk, sk_len);
    ret = v1_start(s, rnd, rnd_opaque);
  }
  if (ret < 0) {
    mc_pgp_seipd_free(s);
    return ret;
  }
  *out_s = s;
  return 0;
}

int mc_pgp_seipd_write(void *seipd, const uint8_t *in, size_t in_len) {
  mc_pgp_seipd *s = seipd;
  if (s->fmt.seipd_version == 1)
    return v1_feed(s, in, in_len);
  if (s->out != NULL)
    return v2_ocb_write(s, in, in_len);
  while (in_len > 0) {
    // A full chunk is sealed only once more plaintext arrives, so that the
    // last chunk is never empty.
    if (s->chunk_len == s->chunk_size)
      MC_TRY(v2_seal_chunk(s));
    size_t take = s->chunk_size - s->chunk_len;
    if (take > in_len)
      take = in_len;
    memcpy(s->chunk + s->chunk_len, in, take);
    s->chunk_len += take;
    if (s->chunk_len > s->chunk_high)
      s->chunk_high = s->chunk_len;
    in += take;
    in_len -= take;
  }
  return 0;
}

int mc_pgp_seipd_finish(mc_pgp_seipd *s) {
  if (s->fmt.seipd_version == 1) {
    // The MDC packet's own two header octets are hashed too (§5.13.1).
    static const uint8_t mdc_head[2] = {0xc0 | MC_PGP_TAG_MDC, SHA_DIGEST_LENGTH};
    mc_cfb_sha1_update(&s->v1, mdc_head, sizeof mdc_head);
    uint8_t *end = s->v1.out + s->v1.buf_len + SHA_DIGEST_LENGTH;
    mc_cfb_sha1_final(&s->v1); // wipes s->v1
    return s->sink(s->opaque, s->v1_buf, (size_t)(end - s->v1_buf));
  }
  if (s->chunk_len > 0 && s->out != NULL)
    MC_TRY(v2_ocb_close(s));
  else if (s->chunk_len > 0)
    MC_TRY(v2_seal_chunk(s));
  uint8_t tag[16];
  size_t tag_len = 0;
  for (int b = 0; b < 8; b++)
    s->ad[12 - b] = (uint8_t)(s->total >> (8 * b));
  set_index(s, s->index);
  MC_TRY(seal(s, tag, 0, sizeof tag, &tag_len, s->ad, 13));
  return s->sink(s->opaque, tag, tag_len);
}

// One-shot bodies (mc_pgp_seipd_oneshot): the whole plaintext is known and
// the caller's buffer has room for the whole body, so nothing is staged:
// SEIPDv2 chunks are sealed from the input straight into the output, and
// SEIPDv1 runs CFB and the MDC's SHA-1 in one pass from input to output.

size_t mc_pgp_seipd_oneshot_len(const mc_pgp_format *fmt, size_t pt_len) {
  if (fmt->seipd_version == 1) // version, prefix, plaintext, MDC packet
    return 1 + MC_AES_BLOCK_LEN + 2 + pt_len + 2 + SHA_DIGEST_LENGTH;
  size_t chunk_size = (size_t)1 << (fmt->chunk_octet + 6);
  size_t chunks = (pt_len + chunk_size - 1) / chunk_size; // none when empty, as streamed
  return 4 + MC_PGP_SALT_LEN + pt_len + 16 * chunks + 16;
}

// oneshot_v2 seals the stream `head` || `in` in chunks. With OCB every
// chunk is encrypted from `head` and `in` straight into `out` (only the one
// block that straddles them is put together, in the OCB state). With GCM a
// chunk with bytes of `head` is assembled in its place in `out` and sealed
// there; every later chunk lies whole in `in` and is sealed from it.
static int oneshot_v2(mc_pgp_seipd *s, uint8_t *out, const uint8_t *head, size_t head_len,
                      const uint8_t *in, size_t in_len) {
  size_t total = head_len + in_len, pos = 0, o = 0;
  while (pos < total) {
    size_t n = total - pos < s->chunk_size ? total - pos : s->chunk_size;
    const uint8_t *src;
    if (s->fmt.aead == MC_PGP_AEAD_OCB) {
      set_index(s, s->index);
      mc_ocb_enc_start(&s->ocb, &s->enc, s->nonce, s->nonce_len);
      size_t from_head = pos < head_len ? (head_len - pos < n ? head_len - pos : n) : 0;
      if (from_head > 0)
        o += mc_ocb_enc_update(&s->ocb, &s->enc, out + o, head + pos, from_head);
      if (n > from_head)
        o += mc_ocb_enc_update(&s->ocb, &s->enc, out + o, in + (pos + from_head - head_len),
                               n - from_head);
      o += mc_ocb_enc_final(&s->ocb, &s->enc, out + o, s->ad, 5);
      s->index++;
      pos += n;
      continue;
    }
    if (pos < head_len) {
      size_t from_head = head_len - pos < n ? head_len - pos : n;
      memcpy(out + o, head + pos, from_head);
      if (n > from_head)
        memcpy(out + o + from_head, in, n - from_head);
      src = out + o;
    } else {
      src = in + (pos - head_len);
    }
    size_t sealed = 0;
    set_index(s, s->index);
    MC_TRY(seal_to(s, out + o, n + 16, &sealed, src, n, s->ad, 5));
    s->index++;
    o += sealed;
    pos += n;
  }
  s->total = total;
  for (int b = 0; b < 8; b++)
    s->ad[12 - b] = (uint8_t)(s->total >> (8 * b));
  size_t tag_len = 0;
  set_index(s, s->index);
  return seal_to(s, out + o, 16, &tag_len, NULL, 0, s->ad, 13);
}

static int collect(void *opaque, const uint8_t *data, size_t len) {
  uint8_t **o = opaque;
  memcpy(*o, data, len);
  *o += len;
  return 0;
}

int mc_pgp_seipd_oneshot(uint8_t *out, const mc_pgp_format *fmt, const uint8_t *sk, size_t sk_len,
                         mc_pgp_rand_fn rnd, void *rnd_opaque, const uint8_t *head, size_t head_len,
                         const uint8_t *in, size_t in_len) {
  MC_FAIL_IF(out == NULL || fmt == NULL || sk == NULL || (head == NULL && head_len > 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in == NULL && in_len > 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(mc_pgp_sym_key_len(fmt->sym) != sk_len, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(fmt->seipd_version != 1 && fmt->seipd_version != 2, MC_ERR_UNSUPPORTED);
  if (rnd == NULL)
    rnd = mc_pgp_rand_default;
  if (fmt->seipd_version == 1) {
    uint8_t prefix[MC_AES_BLOCK_LEN + 2];
    MC_TRY(rnd(rnd_opaque, prefix, MC_AES_BLOCK_LEN));
    prefix[MC_AES_BLOCK_LEN] = prefix[MC_AES_BLOCK_LEN - 2];
    prefix[MC_AES_BLOCK_LEN + 1] = prefix[MC_AES_BLOCK_LEN - 1];
    static const uint8_t mdc_head[2] = {0xc0 | MC_PGP_TAG_MDC, SHA_DIGEST_LENGTH};
    out[0] = 1;
    mc_cfb_sha1 c;
    mc_cfb_sha1_start(&c, out + 1, sk, sk_len);
    mc_cfb_sha1_update(&c, prefix, sizeof prefix);
    mc_cfb_sha1_update(&c, head, head_len);
    mc_cfb_sha1_update(&c, in, in_len);
    mc_cfb_sha1_update(&c, mdc_head, sizeof mdc_head); // hashed too (§5.13.1)
    mc_cfb_sha1_final(&c);
    mc_wipe(prefix, sizeof prefix);
    return 0;
  }
  // The v2 head goes through v2_start's sink, which writes it at `out`.
  mc_pgp_seipd *s = calloc(1, sizeof *s);
  MC_FAIL_IF(s == NULL, -ENOMEM);
  s->fmt = *fmt;
  s->key_len = sk_len;
  uint8_t *o = out;
  s->sink = collect;
  s->opaque = &o;
  int ret = v2_start(s, sk, sk_len, rnd, rnd_opaque, 0);
  if (ret == 0)
    ret = oneshot_v2(s, o, head, head_len, in, in_len);
  mc_pgp_seipd_free(s);
  return ret;
}

void mc_pgp_seipd_free(mc_pgp_seipd *s) {
  if (s == NULL)
    return;
  if (s->chunk != NULL) {
    // Only the part ever written held plaintext; wiping all of a 256 KiB
    // chunk after a short message was a per-message cost (bench_pgp).
    mc_wipe(s->chunk, s->chunk_high);
    free(s->chunk);
  }
  free(s->out); // ciphertext only
  mc_aes_ocb_cleanup(&s->ocb);
  mc_wipe(s, sizeof *s);
  free(s);
}
