// ocb.c: AES-OCB authenticated encryption (RFC 7253): the key and nonce
// setup, partial blocks, associated data, tags, and the whole-block loops over
// BoringSSL's AES for CPUs without AES-NI (ocb_aesni.c has the loops for
// those with it, x86/ocb_vaes.c for those with VAES as well, and
// x86/ocb_vaes512.c for those with VAES on AVX-512's registers). OCB needs AES on
// blocks that are independent of each other (each masked with its own
// offset), so the loops here compute the offsets of a batch of blocks, mask
// the batch, encrypt it with one call to BoringSSL's ECB mode, which pipelines
// the AES rounds over many blocks, and unmask it; one block at a time through
// AES_encrypt would be several times slower. Offsets come from the table L_i,
// indexed by the number of trailing zeros of the (public) block number;
// nothing branches on or indexes memory by a secret.
#include <string.h>

#include <openssl/cipher.h>
#include <openssl/crypto.h>

#include "aead_internal.h"

enum {
  BLOCK = 16,
  // Blocks masked and encrypted per call into BoringSSL: 1 KiB, a few times
  // more than AES-NI keeps in flight, small enough for the stack and L1.
  BATCH = 64,
};

static inline uint64_t load_u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline void store_u64(uint8_t *p, uint64_t v) {
  memcpy(p, &v, 8);
}

// xor_block sets `out` = `a` xor `b` (16 bytes; any of them may alias).
static inline void xor_block(uint8_t *out, const uint8_t *a, const uint8_t *b) {
  uint64_t lo = load_u64(a) ^ load_u64(b);
  uint64_t hi = load_u64(a + 8) ^ load_u64(b + 8);
  store_u64(out, lo);
  store_u64(out + 8, hi);
}

static inline uint64_t load_be64(const uint8_t *p) {
  uint64_t v = load_u64(p);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline void store_be64(uint8_t *p, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  store_u64(p, v);
}

// double_block computes RFC 7253 §2's double(S): S shifted left by one bit,
// xor 0x87 in the last byte when the bit shifted out was 1. The L values are
// secret, so that condition is applied as a mask, not a branch.
static void double_block(uint8_t out[BLOCK], const uint8_t in[BLOCK]) {
  uint64_t hi = load_be64(in), lo = load_be64(in + 8);
  uint64_t carry = 0 - (hi >> 63);
  store_be64(out, hi << 1 | lo >> 63);
  store_be64(out + 8, lo << 1 ^ (carry & 0x87));
}

// ecb runs AES over `len` bytes (a multiple of 16) with the BoringSSL state
// `aes`, block by block and in place when `out` == `in`.
static void ecb(void *aes, uint8_t *out, const uint8_t *in, size_t len) {
  // For ECB, EVP_Cipher cannot fail once the context is initialised.
  (void)EVP_Cipher((EVP_CIPHER_CTX *)aes, out, in, len);
}

static const EVP_CIPHER *ecb_cipher(size_t key_len) {
  switch (key_len) {
  case 16:
    return EVP_aes_128_ecb();
  case 24:
    return EVP_aes_192_ecb();
  case 32:
    return EVP_aes_256_ecb();
  default:
    return NULL;
  }
}

// aesni_cached remembers CPUID's answer (-1: not asked yet); a race between
// threads only asks twice.
static int aesni_cached = -1;

static int have_aesni(void) {
  int v = __atomic_load_n(&aesni_cached, __ATOMIC_RELAXED);
  if (v < 0) {
    v = mc_ocb_aesni_available();
    __atomic_store_n(&aesni_cached, v, __ATOMIC_RELAXED);
  }
  return v;
}

// vaes_cached is the same for mc_ocb_vaes_available.
static int vaes_cached = -1;

static int have_vaes(void) {
  int v = __atomic_load_n(&vaes_cached, __ATOMIC_RELAXED);
  if (v < 0) {
    v = mc_ocb_vaes_available();
    __atomic_store_n(&vaes_cached, v, __ATOMIC_RELAXED);
  }
  return v;
}

// vaes512_cached is the same for mc_ocb_vaes512_available.
static int vaes512_cached = -1;

static int have_vaes512(void) {
  int v = __atomic_load_n(&vaes512_cached, __ATOMIC_RELAXED);
  if (v < 0) {
    v = mc_ocb_vaes512_available();
    __atomic_store_n(&vaes512_cached, v, __ATOMIC_RELAXED);
  }
  return v;
}

// encrypt_block encrypts one block with whichever AES the context uses.
static void encrypt_block(const mc_aes_ocb_ctx *ctx, uint8_t out[BLOCK], const uint8_t in[BLOCK]) {
  if (ctx->rounds != 0)
    mc_ocb_aesni_encrypt_block(ctx, out, in);
  else
    ecb(ctx->aes_enc, out, in, BLOCK);
}

int mc_aes_ocb_init_impl(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len, size_t tag_len,
                         int impl) {
  MC_FAIL_IF(ctx == NULL, MC_ERR_INVALID_ARGUMENT);
  memset(ctx, 0, sizeof *ctx);
  const EVP_CIPHER *cipher = ecb_cipher(key_len);
  MC_FAIL_IF(key == NULL || cipher == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(tag_len != 16 && tag_len != 12 && tag_len != 8, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(impl != MC_OCB_IMPL_AUTO && impl != MC_OCB_IMPL_AESNI &&
                 impl != MC_OCB_IMPL_BORINGSSL && impl != MC_OCB_IMPL_VAES &&
                 impl != MC_OCB_IMPL_VAES512,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(impl == MC_OCB_IMPL_AESNI && !have_aesni(), MC_ERR_UNSUPPORTED);
  MC_FAIL_IF(impl == MC_OCB_IMPL_VAES && !have_vaes(), MC_ERR_UNSUPPORTED);
  MC_FAIL_IF(impl == MC_OCB_IMPL_VAES512 && !have_vaes512(), MC_ERR_UNSUPPORTED);

  if (impl == MC_OCB_IMPL_AUTO)
    impl = have_vaes512() ? MC_OCB_IMPL_VAES512
           : have_vaes()  ? MC_OCB_IMPL_VAES
           : have_aesni() ? MC_OCB_IMPL_AESNI
                          : MC_OCB_IMPL_BORINGSSL;
  if (impl == MC_OCB_IMPL_AESNI || impl == MC_OCB_IMPL_VAES || impl == MC_OCB_IMPL_VAES512) {
    mc_ocb_aesni_set_key(ctx, key, key_len);
    if (impl == MC_OCB_IMPL_VAES)
      ctx->rounds |= MC_OCB_ROUNDS_VAES;
    else if (impl == MC_OCB_IMPL_VAES512)
      ctx->rounds |= MC_OCB_ROUNDS_VAES512;
  } else {
    EVP_CIPHER_CTX *enc = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX *dec = EVP_CIPHER_CTX_new();
    if (enc == NULL || dec == NULL || !EVP_EncryptInit_ex(enc, cipher, NULL, key, NULL) ||
        !EVP_DecryptInit_ex(dec, cipher, NULL, key, NULL)) {
      EVP_CIPHER_CTX_free(enc);
      EVP_CIPHER_CTX_free(dec);
      return mc_bssl_fail(-ENOMEM);
    }
    ctx->aes_enc = enc;
    ctx->aes_dec = dec;
  }
  ctx->tag_len = (uint32_t)tag_len;

  // RFC 7253 §4.1, key-dependent variables.
  static const uint8_t zeros[BLOCK] = {0};
  encrypt_block(ctx, ctx->l_star, zeros);
  double_block(ctx->l_dollar, ctx->l_star);
  double_block(ctx->l[0], ctx->l_dollar);
  for (int i = 1; i < MC_AES_OCB_L_COUNT; i++)
    double_block(ctx->l[i], ctx->l[i - 1]);
  return 0;
}

int mc_aes_ocb_init(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len, size_t tag_len) {
  return mc_aes_ocb_init_impl(ctx, key, key_len, tag_len, MC_OCB_IMPL_AUTO);
}

void mc_aes_ocb_cleanup(mc_aes_ocb_ctx *ctx) {
  if (ctx == NULL)
    return;
  // EVP_CIPHER_CTX_free cleanses the key schedule before freeing it.
  EVP_CIPHER_CTX_free(ctx->aes_enc);
  EVP_CIPHER_CTX_free(ctx->aes_dec);
  mc_wipe(ctx, sizeof *ctx);
}

// initial_offset computes Offset_0 from the nonce (RFC 7253 §4.2): the nonce
// block's top 122 bits select Ktop = AES(K, ...), and its low 6 bits ("bottom",
// public like the nonce) the 128-bit window of Stretch = Ktop || (Ktop[1..64]
// xor Ktop[9..72]) that becomes the offset.
static void initial_offset(const mc_aes_ocb_ctx *ctx, uint8_t offset[BLOCK], const uint8_t *nonce,
                           size_t nonce_len) {
  uint8_t block[BLOCK] = {0};
  block[0] = (uint8_t)((ctx->tag_len * 8 % 128) << 1); // num2str(TAGLEN mod 128, 7)
  block[BLOCK - 1 - nonce_len] |= 1;
  memcpy(block + BLOCK - nonce_len, nonce, nonce_len);
  unsigned bottom = block[BLOCK - 1] & 63;
  block[BLOCK - 1] &= 0xc0;

  uint8_t ktop[BLOCK];
  encrypt_block(ctx, ktop, block);
  uint64_t s0 = load_be64(ktop), s1 = load_be64(ktop + 8);
  uint64_t s2 = s0 ^ (s0 << 8 | s1 >> 56);
  uint64_t hi = s0, lo = s1;
  if (bottom != 0) {
    hi = s0 << bottom | s1 >> (64 - bottom);
    lo = s1 << bottom | s2 >> (64 - bottom);
  }
  store_be64(offset, hi);
  store_be64(offset + 8, lo);
  mc_wipe(ktop, sizeof ktop);
  s0 = s1 = s2 = hi = lo = 0;
  __asm__ volatile("" : : "r"(s0), "r"(s1), "r"(s2), "r"(hi), "r"(lo) : "memory");
}

// pad_last_block writes the final partial block of `len` (1..15) bytes of `in`
// padded as RFC 7253 does: the bytes, one 1 bit, then zeros.
static void pad_last_block(uint8_t out[BLOCK], const uint8_t *in, size_t len) {
  memset(out, 0, BLOCK);
  memcpy(out, in, len);
  out[len] = 0x80;
}

// A block as a 16-byte vector (GCC's and Clang's vector extension, which
// compiles to SSE2 or NEON registers where the CPU has them and to pairs of
// 64-bit words elsewhere): xor is all OCB does to blocks outside AES. Locals
// keep the offset and checksum chains in registers, and whole-vector loads
// and stores keep the CPU's store-to-load forwarding working when AES reads
// a block just written (two 8-byte stores read back by one 16-byte load stall).
typedef uint64_t words __attribute__((vector_size(16)));

static inline words load_words(const uint8_t *p) {
  words w;
  memcpy(&w, p, sizeof w);
  return w;
}

static inline void store_words(uint8_t *p, words w) {
  memcpy(p, &w, sizeof w);
}

static inline words xor_words(words a, words b) {
  return a ^ b;
}

static inline void forget_words(words *a, words *b) {
  *a ^= *a;
  *b ^= *b;
  __asm__ volatile("" : : "r"(a), "r"(b) : "memory");
}

// hash_ad computes HASH(K, A) (RFC 7253 §4.1) of `len` bytes of `ad` into
// `sum_out`: the sum of AES(K, A_i xor Offset_i), the offsets starting at zero.
static void hash_ad(const mc_aes_ocb_ctx *ctx, uint8_t sum_out[BLOCK], const uint8_t *ad,
                    size_t len) {
  uint8_t buf[BATCH * BLOCK];
  size_t full = len / BLOCK, rest = len % BLOCK;
  words offset = {0, 0}, sum = {0, 0};
  if (ctx->rounds != 0) {
    memset(buf, 0, 2 * BLOCK);
    if (ctx->rounds & MC_OCB_ROUNDS_VAES512)
      mc_ocb_vaes512_hash(ctx, ad, full, buf, buf + BLOCK);
    else if (ctx->rounds & MC_OCB_ROUNDS_VAES)
      mc_ocb_vaes_hash(ctx, ad, full, buf, buf + BLOCK);
    else
      mc_ocb_aesni_hash(ctx, ad, full, buf, buf + BLOCK);
    offset = load_words(buf);
    sum = load_words(buf + BLOCK);
  } else {
    for (size_t done = 0; done < full;) {
      size_t n = full - done < BATCH ? full - done : BATCH;
      for (size_t j = 0; j < n; j++) {
        offset = xor_words(offset, load_words(ctx->l[__builtin_ctzll((uint64_t)(done + j + 1))]));
        store_words(buf + j * BLOCK, xor_words(load_words(ad + (done + j) * BLOCK), offset));
      }
      ecb(ctx->aes_enc, buf, buf, n * BLOCK);
      for (size_t j = 0; j < n; j++)
        sum = xor_words(sum, load_words(buf + j * BLOCK));
      done += n;
    }
  }
  if (rest != 0) {
    offset = xor_words(offset, load_words(ctx->l_star));
    pad_last_block(buf, ad + full * BLOCK, rest);
    store_words(buf, xor_words(load_words(buf), offset));
    encrypt_block(ctx, buf, buf);
    sum = xor_words(sum, load_words(buf));
  }
  store_words(sum_out, sum);
  size_t used = (full + 2) * BLOCK;
  mc_wipe(buf, used < sizeof buf ? used : sizeof buf);
  forget_words(&offset, &sum);
}

// crypt_blocks_boringssl encrypts or decrypts `num_blocks` whole blocks with
// BoringSSL's ECB mode, a batch at a time, advancing the offset and checksum.
static void crypt_blocks_boringssl(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out,
                                   const uint8_t *in, size_t num_blocks, uint64_t first,
                                   words *offset_io, words *sum_io) {
  uint8_t offsets[BATCH * BLOCK];
  words offset = *offset_io, sum = *sum_io;
  for (size_t done = 0; done < num_blocks;) {
    size_t n = num_blocks - done < BATCH ? num_blocks - done : BATCH;
    const uint8_t *src = in + done * BLOCK;
    uint8_t *dst = out + done * BLOCK;
    // Offset_i = Offset_{i-1} xor L_ntz(i); the cipher input is block xor Offset_i.
    if (encrypt) {
      for (size_t j = 0; j < n; j++) {
        offset = xor_words(offset, load_words(ctx->l[__builtin_ctzll(first + done + j + 1)]));
        words p = load_words(src + j * BLOCK);
        sum = xor_words(sum, p);
        store_words(offsets + j * BLOCK, offset);
        store_words(dst + j * BLOCK, xor_words(p, offset));
      }
      ecb(ctx->aes_enc, dst, dst, n * BLOCK);
      for (size_t j = 0; j < n; j++)
        store_words(dst + j * BLOCK,
                    xor_words(load_words(dst + j * BLOCK), load_words(offsets + j * BLOCK)));
    } else {
      for (size_t j = 0; j < n; j++) {
        offset = xor_words(offset, load_words(ctx->l[__builtin_ctzll(first + done + j + 1)]));
        store_words(offsets + j * BLOCK, offset);
        store_words(dst + j * BLOCK, xor_words(load_words(src + j * BLOCK), offset));
      }
      ecb(ctx->aes_dec, dst, dst, n * BLOCK);
      for (size_t j = 0; j < n; j++) {
        words p = xor_words(load_words(dst + j * BLOCK), load_words(offsets + j * BLOCK));
        sum = xor_words(sum, p);
        store_words(dst + j * BLOCK, p);
      }
    }
    done += n;
  }
  *offset_io = offset;
  *sum_io = sum;
  mc_wipe(offsets, num_blocks < BATCH ? num_blocks * BLOCK : sizeof offsets);
  forget_words(&offset, &sum);
}

// crypt encrypts (`encrypt` = 1) or decrypts `len` bytes from `in` to `out`,
// the first of them block number `first` + 1, starting from `offset_io`
// (Offset_first) and updating it and `checksum_io` (the xor of the padded
// plaintext blocks) to Offset_* and Checksum_* (RFC 7253 §4.2-4.3). `out` may
// equal `in`: each block is read before it is written.
static void crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                  size_t len, uint64_t first, uint8_t offset_io[BLOCK],
                  uint8_t checksum_io[BLOCK]) {
  size_t full = len / BLOCK, rest = len % BLOCK;
  if (ctx->rounds & MC_OCB_ROUNDS_VAES512)
    mc_ocb_vaes512_crypt(ctx, encrypt, out, in, full, first, offset_io, checksum_io);
  else if (ctx->rounds & MC_OCB_ROUNDS_VAES)
    mc_ocb_vaes_crypt(ctx, encrypt, out, in, full, first, offset_io, checksum_io);
  else if (ctx->rounds != 0)
    mc_ocb_aesni_crypt(ctx, encrypt, out, in, full, first, offset_io, checksum_io);
  words offset = load_words(offset_io), sum = load_words(checksum_io);
  if (ctx->rounds == 0)
    crypt_blocks_boringssl(ctx, encrypt, out, in, full, first, &offset, &sum);

  // The final partial block is xored with Pad = AES(K, Offset_*), in both
  // directions, and enters the checksum padded.
  if (rest != 0) {
    uint8_t pad[BLOCK], last[BLOCK];
    const uint8_t *src = in + full * BLOCK;
    uint8_t *dst = out + full * BLOCK;
    offset = xor_words(offset, load_words(ctx->l_star));
    store_words(pad, offset);
    encrypt_block(ctx, pad, pad);
    if (encrypt)
      pad_last_block(last, src, rest);
    for (size_t k = 0; k < rest; k++)
      dst[k] = src[k] ^ pad[k];
    if (!encrypt)
      pad_last_block(last, dst, rest);
    sum = xor_words(sum, load_words(last));
    mc_wipe(pad, sizeof pad);
    mc_wipe(last, sizeof last);
  }
  store_words(offset_io, offset);
  store_words(checksum_io, sum);
  forget_words(&offset, &sum);
}

// compute_tag finishes RFC 7253 §4.2: Tag = AES(K, Checksum_* xor Offset_* xor
// L_$) xor HASH(K, A), all 16 bytes (the caller truncates).
static void compute_tag(const mc_aes_ocb_ctx *ctx, uint8_t tag[BLOCK], uint8_t checksum[BLOCK],
                        const uint8_t offset[BLOCK], const uint8_t *ad, size_t ad_len) {
  uint8_t sum[BLOCK];
  hash_ad(ctx, sum, ad, ad_len);
  xor_block(checksum, checksum, offset);
  xor_block(checksum, checksum, ctx->l_dollar);
  encrypt_block(ctx, tag, checksum);
  xor_block(tag, tag, sum);
  mc_wipe(sum, sizeof sum);
}

// check_args holds the checks that seal and open share.
static int check_args(const mc_aes_ocb_ctx *ctx, const size_t *out_len, const uint8_t *nonce,
                      size_t nonce_len, const uint8_t *in, size_t in_len, const uint8_t *ad,
                      size_t ad_len) {
  MC_FAIL_IF(ctx == NULL || ctx->tag_len == 0 || out_len == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(nonce == NULL || nonce_len < MC_AES_OCB_MIN_NONCE_LEN ||
                 nonce_len > MC_AES_OCB_MAX_NONCE_LEN,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((in == NULL && in_len != 0) || (ad == NULL && ad_len != 0), MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((uint64_t)in_len > MC_AES_OCB_MAX_INPUT_LEN + MC_AES_OCB_MAX_TAG_LEN ||
                 (uint64_t)ad_len > MC_AES_OCB_MAX_INPUT_LEN,
             MC_ERR_INVALID_ARGUMENT);
  return 0;
}

int mc_aes_ocb_seal(const mc_aes_ocb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len,
                    const uint8_t *nonce, size_t nonce_len, const uint8_t *in, size_t in_len,
                    const uint8_t *ad, size_t ad_len) {
  MC_TRY(check_args(ctx, out_len, nonce, nonce_len, in, in_len, ad, ad_len));
  MC_FAIL_IF(out == NULL || (uint64_t)in_len > MC_AES_OCB_MAX_INPUT_LEN, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < in_len || out_cap - in_len < ctx->tag_len, MC_ERR_BUFFER_TOO_SMALL);

  uint8_t offset[BLOCK], checksum[BLOCK] = {0}, tag[BLOCK];
  initial_offset(ctx, offset, nonce, nonce_len);
  crypt(ctx, 1, out, in, in_len, 0, offset, checksum);
  compute_tag(ctx, tag, checksum, offset, ad, ad_len);
  memcpy(out + in_len, tag, ctx->tag_len);
  *out_len = in_len + ctx->tag_len;
  mc_wipe(offset, sizeof offset);
  mc_wipe(checksum, sizeof checksum);
  mc_wipe(tag, sizeof tag);
  return 0;
}

int mc_aes_ocb_open(const mc_aes_ocb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len,
                    const uint8_t *nonce, size_t nonce_len, const uint8_t *in, size_t in_len,
                    const uint8_t *ad, size_t ad_len) {
  MC_TRY(check_args(ctx, out_len, nonce, nonce_len, in, in_len, ad, ad_len));
  MC_FAIL_IF(in_len < ctx->tag_len, MC_ERR_BAD_CIPHERTEXT);
  size_t len = in_len - ctx->tag_len;
  MC_FAIL_IF(out == NULL && len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < len, MC_ERR_BUFFER_TOO_SMALL);

  // The received tag is copied before anything is written to `out`.
  uint8_t offset[BLOCK], checksum[BLOCK] = {0}, tag[BLOCK], received[BLOCK];
  memcpy(received, in + len, ctx->tag_len);
  initial_offset(ctx, offset, nonce, nonce_len);
  crypt(ctx, 0, out, in, len, 0, offset, checksum);
  compute_tag(ctx, tag, checksum, offset, ad, ad_len);

  // Decide without branching on the (secret-derived) comparison: a mismatch
  // turns `keep` to zero, which clears the plaintext, the length and the code
  // alike. The caller learns the outcome only from the return value.
  uint32_t bad = mc_mask_nonzero_u32((uint32_t)CRYPTO_memcmp(tag, received, ctx->tag_len));
  uint64_t keep = (uint64_t)(bad & 1) - 1; // all ones when the tags match, else 0
  words keep2 = {keep, keep};
  size_t i = 0;
  for (; i + BLOCK <= len; i += BLOCK)
    store_words(out + i, load_words(out + i) & keep2);
  for (; i < len; i++)
    out[i] &= (uint8_t)keep;
  *out_len = len & ((size_t)(bad & 1) - 1);
  mc_wipe(offset, sizeof offset);
  mc_wipe(checksum, sizeof checksum);
  mc_wipe(tag, sizeof tag);
  return (int)((uint32_t)MC_ERR_AUTH_FAILED & bad);
}

void mc_ocb_enc_start(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, const uint8_t *nonce,
                      size_t nonce_len) {
  memset(st, 0, sizeof *st);
  initial_offset(ctx, st->offset, nonce, nonce_len);
}

size_t mc_ocb_enc_update(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, uint8_t *out, const uint8_t *in,
                         size_t in_len) {
  size_t written = 0;
  if (st->partial_len > 0) {
    size_t take = BLOCK - st->partial_len;
    if (take > in_len)
      take = in_len;
    memcpy(st->partial + st->partial_len, in, take);
    st->partial_len += take;
    in += take;
    in_len -= take;
    if (st->partial_len < BLOCK)
      return 0;
    crypt(ctx, 1, out, st->partial, BLOCK, st->blocks, st->offset, st->checksum);
    st->blocks++;
    st->partial_len = 0;
    written = BLOCK;
  }
  size_t whole = in_len / BLOCK * BLOCK;
  if (whole > 0) {
    crypt(ctx, 1, out + written, in, whole, st->blocks, st->offset, st->checksum);
    st->blocks += whole / BLOCK;
    written += whole;
  }
  if (in_len > whole) {
    memcpy(st->partial, in + whole, in_len - whole);
    st->partial_len = in_len - whole;
  }
  return written;
}

size_t mc_ocb_enc_final(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, uint8_t *out, const uint8_t *ad,
                        size_t ad_len) {
  size_t rest = st->partial_len;
  uint8_t tag[BLOCK];
  if (rest > 0)
    crypt(ctx, 1, out, st->partial, rest, st->blocks, st->offset, st->checksum);
  compute_tag(ctx, tag, st->checksum, st->offset, ad, ad_len);
  memcpy(out + rest, tag, ctx->tag_len);
  mc_wipe(tag, sizeof tag);
  mc_wipe(st, sizeof *st);
  return rest + ctx->tag_len;
}
