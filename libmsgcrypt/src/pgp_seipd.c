// pgp_seipd.c: the body of the Symmetrically Encrypted and Integrity
// Protected Data packet (RFC 9580 §5.13), encrypted as the plaintext streams
// in: version 2 splits it into chunks sealed with AES-OCB or AES-GCM under a
// message key and IV derived by HKDF from the session key and a random salt
// (§5.13.2), ending with a final tag over the total length; version 1 runs
// AES in CFB mode over a random prefix, the plaintext and the Modification
// Detection Code, a SHA-1 hash of all of it (§5.13.1). Memory is one chunk
// (v2) or a small block buffer (v1), whatever the message length.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "pgp_encrypt_internal.h"

// CFB input is gathered into this many octets, a multiple of the block size,
// before each call.
#define V1_BUF_LEN 4096

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
  uint8_t *chunk;    // chunk_size + 16 octets, sealed in place
  // Version 1.
  SHA_CTX mdc;
  uint8_t cfb_iv[MC_AES_BLOCK_LEN];
  size_t v1_len;
  uint8_t v1_buf[V1_BUF_LEN + 22];
};

int mc_pgp_rand_default(void *opaque, uint8_t *out, size_t len) {
  (void)opaque;
  return mc_random_bytes(out, len);
}

static void set_index(mc_pgp_seipd *s, uint64_t i) {
  for (int b = 0; b < 8; b++)
    s->nonce[s->nonce_len - 1 - b] = (uint8_t)(i >> (8 * b));
}

static int seal(mc_pgp_seipd *s, uint8_t *buf, size_t len, size_t cap, size_t *out_len,
                const uint8_t *ad, size_t ad_len) {
  if (s->fmt.aead == MC_PGP_AEAD_OCB)
    return mc_aes_ocb_seal(&s->ocb, buf, cap, out_len, s->nonce, s->nonce_len, buf, len, ad,
                           ad_len);
  return mc_aes_gcm_seal(buf, cap, out_len, s->key, s->key_len, s->nonce, s->nonce_len, buf, len,
                         ad, ad_len);
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

static int v2_start(mc_pgp_seipd *s, const uint8_t *sk, size_t sk_len, mc_pgp_rand_fn rnd,
                    void *rnd_opaque) {
  MC_FAIL_IF(s->fmt.aead != MC_PGP_AEAD_OCB && s->fmt.aead != MC_PGP_AEAD_GCM, MC_ERR_UNSUPPORTED);
  MC_FAIL_IF(s->fmt.chunk_octet > MC_PGP_MAX_CHUNK_OCTET, MC_ERR_INVALID_ARGUMENT);
  s->nonce_len = s->fmt.aead == MC_PGP_AEAD_OCB ? 15 : MC_AES_GCM_NONCE_LEN;
  s->chunk_size = (size_t)1 << (s->fmt.chunk_octet + 6);
  s->chunk = malloc(s->chunk_size + 16);
  MC_FAIL_IF(s->chunk == NULL, -ENOMEM);
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
  if (s->fmt.aead == MC_PGP_AEAD_OCB)
    MC_TRY(mc_aes_ocb_init(&s->ocb, s->key, s->key_len, 16));
  return s->sink(s->opaque, head, sizeof head);
}

static int v1_flush(mc_pgp_seipd *s, size_t len) {
  MC_TRY(mc_aes_cfb_encrypt(s->v1_buf, s->key, s->key_len, s->cfb_iv, s->v1_buf, len));
  if (len >= MC_AES_BLOCK_LEN)
    memcpy(s->cfb_iv, s->v1_buf + len - MC_AES_BLOCK_LEN, MC_AES_BLOCK_LEN);
  MC_TRY(s->sink(s->opaque, s->v1_buf, len));
  s->v1_len = 0;
  return 0;
}

static int v1_feed(mc_pgp_seipd *s, const uint8_t *in, size_t in_len) {
  SHA1_Update(&s->mdc, in, in_len);
  while (in_len > 0) {
    size_t take = V1_BUF_LEN - s->v1_len;
    if (take > in_len)
      take = in_len;
    memcpy(s->v1_buf + s->v1_len, in, take);
    s->v1_len += take;
    in += take;
    in_len -= take;
    if (s->v1_len == V1_BUF_LEN)
      MC_TRY(v1_flush(s, V1_BUF_LEN));
  }
  return 0;
}

static int v1_start(mc_pgp_seipd *s, mc_pgp_rand_fn rnd, void *rnd_opaque) {
  static const uint8_t version = 1;
  uint8_t prefix[MC_AES_BLOCK_LEN + 2];
  SHA1_Init(&s->mdc);
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
    ret = v2_start(s, sk, sk_len, rnd, rnd_opaque);
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
    uint8_t *mdc = s->v1_buf + s->v1_len;
    mdc[0] = 0xc0 | MC_PGP_TAG_MDC;
    mdc[1] = SHA_DIGEST_LENGTH;
    SHA1_Update(&s->mdc, mdc, 2);
    SHA1_Final(mdc + 2, &s->mdc);
    return v1_flush(s, s->v1_len + 2 + SHA_DIGEST_LENGTH);
  }
  if (s->chunk_len > 0)
    MC_TRY(v2_seal_chunk(s));
  uint8_t tag[16];
  size_t tag_len = 0;
  for (int b = 0; b < 8; b++)
    s->ad[12 - b] = (uint8_t)(s->total >> (8 * b));
  set_index(s, s->index);
  MC_TRY(seal(s, tag, 0, sizeof tag, &tag_len, s->ad, 13));
  return s->sink(s->opaque, tag, tag_len);
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
  mc_aes_ocb_cleanup(&s->ocb);
  mc_wipe(s, sizeof *s);
  free(s);
}
