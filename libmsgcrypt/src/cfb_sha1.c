// cfb_sha1.c: the stream around the implementation table's CFB-with-SHA-1
// kernel (cfb_sha1_internal.h) and the portable kernel itself: head and tail
// bytes that do not fill a 64-byte block are staged in the context, whole
// blocks of the caller's input go to the kernel straight from the input to
// the output, and the end pads SHA-1 (FIPS 180-4 §5.1.1) and encrypts the
// digest after the rest.
#include <string.h>

#include <openssl/sha.h>

#include "aead_internal.h"
#include "cfb_sha1_internal.h"
#include "impl_internal.h"

static void sha1_blocks(uint32_t h[5], const uint8_t *in, size_t num_blocks) {
  SHA_CTX ctx;
  memcpy(ctx.h, h, 20);
  for (size_t i = 0; i < num_blocks; i++)
    SHA1_Transform(&ctx, in + 64 * i);
  memcpy(h, ctx.h, 20);
  mc_wipe(&ctx, sizeof ctx);
}

// cfb_bytes encrypts `len` bytes with BoringSSL's AES; a final partial
// block uses the leading bytes of the keystream block and ends the stream.
static void cfb_bytes(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t len) {
  uint8_t ks[16];
  while (len > 0) {
    size_t n = len < 16 ? len : 16;
    AES_encrypt(c->iv, ks, &c->aes);
    for (size_t i = 0; i < n; i++)
      out[i] = c->iv[i] = (uint8_t)(in[i] ^ ks[i]);
    out += n;
    in += n;
    len -= n;
  }
  mc_wipe(ks, sizeof ks);
}

void mc_cfb_sha1_blocks_scalar(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t num_blocks) {
  for (size_t b = 0; b < num_blocks; b++) {
    // Hash first: `out` may be `in`.
    sha1_blocks(c->h, in + 64 * b, 1);
    cfb_bytes(c, out + 64 * b, in + 64 * b, 64);
  }
}

void mc_cfb_sha1_start(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *key, size_t key_len) {
  memset(c, 0, sizeof *c);
  (void)AES_set_encrypt_key(key, mc_aes_key_bits(key_len), &c->aes); // 16, 24 or 32 bytes
  if (mc_ocb_aesni_available()) {
    mc_aes_ocb_ctx tmp;
    mc_ocb_aesni_set_key(&tmp, key, key_len);
    memcpy(c->rk, tmp.round_keys[0], sizeof c->rk);
    mc_wipe(&tmp, sizeof tmp);
  }
  c->rounds = (unsigned)key_len / 4 + 6;
  static const uint32_t sha1_iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  memcpy(c->h, sha1_iv, sizeof sha1_iv);
  c->out = out;
}

void mc_cfb_sha1_update(mc_cfb_sha1 *c, const uint8_t *in, size_t len) {
  void (*blocks)(mc_cfb_sha1 *, uint8_t *, const uint8_t *, size_t) =
      mc_impl_current()->cfb_sha1_blocks;
  if (len == 0)
    return;
  c->hashed += len;
  if (c->buf_len > 0) {
    size_t take = 64 - c->buf_len;
    if (take > len)
      take = len;
    memcpy(c->buf + c->buf_len, in, take);
    c->buf_len += take;
    in += take;
    len -= take;
    if (c->buf_len < 64)
      return;
    blocks(c, c->out, c->buf, 1);
    c->out += 64;
    c->buf_len = 0;
  }
  size_t n = len / 64;
  if (n > 0) {
    blocks(c, c->out, in, n);
    c->out += 64 * n;
    in += 64 * n;
    len -= 64 * n;
  }
  memcpy(c->buf, in, len);
  c->buf_len = len;
}

void mc_cfb_sha1_final(mc_cfb_sha1 *c) {
  // The tail, then 0x80, zeros and the bit length, in one or two blocks.
  uint8_t pad[128] = {0};
  size_t t = c->buf_len;
  memcpy(pad, c->buf, t);
  pad[t] = 0x80;
  size_t pad_len = t + 9 <= 64 ? 64 : 128;
  uint64_t bits = c->hashed * 8;
  for (int i = 0; i < 8; i++)
    pad[pad_len - 1 - i] = (uint8_t)(bits >> (8 * i));
  sha1_blocks(c->h, pad, pad_len / 64);
  // Tail and digest (big-endian words) leave through CFB together.
  uint8_t last[64 + 20];
  memcpy(last, c->buf, t);
  for (int i = 0; i < 5; i++) {
    last[t + 4 * i] = (uint8_t)(c->h[i] >> 24);
    last[t + 4 * i + 1] = (uint8_t)(c->h[i] >> 16);
    last[t + 4 * i + 2] = (uint8_t)(c->h[i] >> 8);
    last[t + 4 * i + 3] = (uint8_t)c->h[i];
  }
  cfb_bytes(c, c->out, last, t + 20);
  mc_wipe(pad, sizeof pad);
  mc_wipe(last, sizeof last);
  mc_wipe(c, sizeof *c);
}
