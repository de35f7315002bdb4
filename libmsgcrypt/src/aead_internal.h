// aead_internal.h: helpers shared by the AES-OCB code and the thin layer over
// BoringSSL (ocb.c, aes_modes.c, kdf.c, pkenc.c), never installed: mapping
// BoringSSL failures to libmsgcrypt's codes with its error queue cleared, and
// the constant-time mask helpers that OCB's open uses.
#ifndef MC_AEAD_INTERNAL_H
#define MC_AEAD_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/base.h>
#include <openssl/err.h>

#include "msgcrypt_internal.h"

// mc_bssl_fail returns `code` for a BoringSSL call that failed, or -ENOMEM
// when BoringSSL's most recent error says that an allocation failed. It
// clears BoringSSL's thread-local error queue either way, so that nothing of
// it leaks to the caller (CONVENTIONS.md §3 rejects that queue).
static inline int mc_bssl_fail(int code) {
  uint32_t err = ERR_peek_last_error();
  if (err != 0 && ERR_GET_REASON(err) == ERR_R_MALLOC_FAILURE)
    code = -ENOMEM;
  ERR_clear_error();
  return code;
}

// mc_value_barrier_u32 returns `x` unchanged, but hides its value from the
// optimiser so that mask arithmetic on secrets is not turned into branches.
static inline uint32_t mc_value_barrier_u32(uint32_t x) {
  __asm__("" : "+r"(x));
  return x;
}

// mc_mask_nonzero_u32 returns 0xffffffff when `x` != 0 and 0 otherwise,
// without branching on `x`.
static inline uint32_t mc_mask_nonzero_u32(uint32_t x) {
  return mc_value_barrier_u32(0u - ((x | (0u - x)) >> 31));
}

// mc_aes_key_bits returns 128, 192 or 256 for an AES key of `key_len` bytes,
// or 0 for any other length.
static inline unsigned mc_aes_key_bits(size_t key_len) {
  return key_len == 16 || key_len == 24 || key_len == 32 ? (unsigned)key_len * 8 : 0;
}

// mc_hash_evp_md returns BoringSSL's EVP_MD for `alg`, or NULL for an unknown
// `alg` (kdf.c).
const EVP_MD *mc_hash_evp_md(mc_hash_alg alg);

// AES-OCB implementations: the AES-NI loops of ocb_aesni.c, or BoringSSL's
// ECB mode driven in batches. mc_aes_ocb_init picks the first when the CPU
// has AES-NI; tests and benchmarks ask for either with mc_aes_ocb_init_impl,
// which returns MC_ERR_UNSUPPORTED for AES-NI on a CPU without it.
// MC_OCB_IMPL_VAES (the 256-bit loops of x86/ocb_vaes.c over the same key
// schedule) comes first in the automatic choice when the CPU has VAES and
// AVX2; forcing it on a CPU without them returns MC_ERR_UNSUPPORTED too.
// MC_OCB_IMPL_VAES512 (the 512-bit loops of x86/ocb_vaes512.c, same key
// schedule) comes before it where the CPU has AVX-512 and VAES.
enum {
  MC_OCB_IMPL_AUTO = 0,
  MC_OCB_IMPL_AESNI,
  MC_OCB_IMPL_BORINGSSL,
  MC_OCB_IMPL_VAES,
  MC_OCB_IMPL_VAES512,
};
int mc_aes_ocb_init_impl(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len, size_t tag_len,
                         int impl);

// ocb_aesni.c. mc_ocb_aesni_available returns 1 when the CPU has AES-NI (and
// the code was built for x86-64). mc_ocb_aesni_set_key fills the context's
// round keys and rounds from a 16-, 24- or 32-byte key.
// mc_ocb_aesni_encrypt_block encrypts one block. mc_ocb_aesni_crypt encrypts
// or decrypts `num_blocks` whole blocks numbered from `done` + 1 (`done`
// blocks of the message went before), advancing the offset and checksum;
// mc_ocb_aesni_hash does the same for associated data numbered from 1,
// adding the cipher outputs into `sum_io`.
//
// A context on the VAES loops has MC_OCB_ROUNDS_VAES (256-bit) or
// MC_OCB_ROUNDS_VAES512 set in `rounds` beside the round count (the public
// struct has no other field for it); mc_ocb_rounds returns the count alone.
enum { MC_OCB_ROUNDS_MASK = 0xff, MC_OCB_ROUNDS_VAES = 0x100, MC_OCB_ROUNDS_VAES512 = 0x200 };
static inline unsigned mc_ocb_rounds(const mc_aes_ocb_ctx *ctx) {
  return ctx->rounds & MC_OCB_ROUNDS_MASK;
}
int mc_ocb_aesni_available(void);
void mc_ocb_aesni_set_key(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len);
void mc_ocb_aesni_encrypt_block(const mc_aes_ocb_ctx *ctx, uint8_t out[16], const uint8_t in[16]);
void mc_ocb_aesni_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                        size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                        uint8_t checksum_io[16]);
void mc_ocb_aesni_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                       uint8_t offset_io[16], uint8_t sum_io[16]);

// x86/ocb_vaes.c, built only where meson.build defines MC_HAVE_VAES.
// mc_ocb_vaes_available returns 1 when that code is built and the CPU has
// AES-NI, AVX2 and VAES (ocb_aesni.c). mc_ocb_vaes_crypt and mc_ocb_vaes_hash
// do what mc_ocb_aesni_crypt and mc_ocb_aesni_hash do, sixteen blocks at a
// time, with the same round keys.
int mc_ocb_vaes_available(void);
void mc_ocb_vaes_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                       size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                       uint8_t checksum_io[16]);

// x86/ocb_vaes512.c, built only where meson.build defines MC_HAVE_VAES512.
// mc_ocb_vaes512_available returns 1 when that code is built and the CPU has
// AES-NI, AVX2, VAES and AVX-512 F and BW with the OS saving the ZMM state
// (ocb_aesni.c). mc_ocb_vaes512_crypt and mc_ocb_vaes512_hash do what
// mc_ocb_vaes_crypt and mc_ocb_vaes_hash do, thirty-two blocks at a time.
int mc_ocb_vaes512_available(void);
void mc_ocb_vaes512_crypt(const mc_aes_ocb_ctx *ctx, int encrypt, uint8_t *out, const uint8_t *in,
                          size_t num_blocks, uint64_t done, uint8_t offset_io[16],
                          uint8_t checksum_io[16]);
void mc_ocb_vaes512_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                         uint8_t offset_io[16], uint8_t sum_io[16]);

// Incremental AES-OCB encryption of one message (one SEIPDv2 chunk): the
// plaintext arrives in pieces of any length and is encrypted from the
// caller's input straight into the caller's output, whole blocks at once;
// only a trailing partial block (under 16 bytes) waits in the state. This is
// what lets pgp_seipd.c seal without first copying a chunk together.
//
// mc_ocb_enc_start computes Offset_0 for `nonce` (1..15 bytes, unchecked).
// mc_ocb_enc_update encrypts `in_len` bytes and writes the ciphertext of the
// blocks it completes to `out`, which has room for `in_len` + 15 bytes; it
// returns the number of bytes written (a multiple of 16). mc_ocb_enc_final
// writes the ciphertext of the waiting partial block, then the tag over
// `ad`, to `out` (room for 15 + tag length bytes), returns the number of
// bytes written, and wipes the state. The state holds plaintext and key
// material: a caller that gives up wipes it. Not thread-safe per state; the
// context is only read.
typedef struct mc_ocb_enc {
  uint8_t offset[16];
  uint8_t checksum[16];
  uint8_t partial[16];
  size_t partial_len;
  uint64_t blocks; // whole blocks encrypted so far
} mc_ocb_enc;
void mc_ocb_enc_start(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, const uint8_t *nonce,
                      size_t nonce_len);
size_t mc_ocb_enc_update(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, uint8_t *out, const uint8_t *in,
                         size_t in_len);
size_t mc_ocb_enc_final(const mc_aes_ocb_ctx *ctx, mc_ocb_enc *st, uint8_t *out, const uint8_t *ad,
                        size_t ad_len);
void mc_ocb_vaes_hash(const mc_aes_ocb_ctx *ctx, const uint8_t *ad, size_t num_blocks,
                      uint8_t offset_io[16], uint8_t sum_io[16]);

#endif // MC_AEAD_INTERNAL_H
