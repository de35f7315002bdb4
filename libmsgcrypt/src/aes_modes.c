// aes_modes.c: the AES modes of the layer over BoringSSL that OpenPGP and CMS
// need besides OCB: CFB128 (OpenPGP's v1 SEIPD), GCM through BoringSSL's
// EVP_AEAD (OpenPGP's v2 SEIPD and CMS AuthEnvelopedData) and RFC 3394 key
// wrap (OpenPGP's ECDH and X25519 session keys, CMS KEKRecipientInfo). Key
// schedules live on the stack and are wiped before returning.
#include <string.h>

#include <openssl/aead.h>
#include <openssl/aes.h>

#include "aead_internal.h"

static int cfb(uint8_t *out, const uint8_t *key, size_t key_len, const uint8_t *iv,
               const uint8_t *in, size_t len, int enc) {
  unsigned bits = mc_aes_key_bits(key_len);
  MC_FAIL_IF(key == NULL || bits == 0 || iv == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((out == NULL || in == NULL) && len != 0, MC_ERR_INVALID_ARGUMENT);
  if (len == 0)
    return 0;
  // CFB runs the cipher forwards in both directions, so decryption too uses
  // the encryption key schedule.
  AES_KEY aes;
  uint8_t ivec[MC_AES_BLOCK_LEN];
  int num = 0;
  (void)AES_set_encrypt_key(key, bits, &aes); // cannot fail for 128/192/256
  memcpy(ivec, iv, sizeof ivec);
  AES_cfb128_encrypt(in, out, len, &aes, ivec, &num, enc);
  mc_wipe(&aes, sizeof aes);
  mc_wipe(ivec, sizeof ivec);
  return 0;
}

int mc_aes_cfb_encrypt(uint8_t *out, const uint8_t *key, size_t key_len, const uint8_t *iv,
                       const uint8_t *in, size_t len) {
  return cfb(out, key, key_len, iv, in, len, AES_ENCRYPT);
}

int mc_aes_cfb_decrypt(uint8_t *out, const uint8_t *key, size_t key_len, const uint8_t *iv,
                       const uint8_t *in, size_t len) {
  return cfb(out, key, key_len, iv, in, len, AES_DECRYPT);
}

static const EVP_AEAD *gcm_aead(size_t key_len) {
  switch (key_len) {
  case 16:
    return EVP_aead_aes_128_gcm();
  case 24:
    return EVP_aead_aes_192_gcm();
  case 32:
    return EVP_aead_aes_256_gcm();
  default:
    return NULL;
  }
}

// gcm_check holds the argument checks that seal and open share.
static int gcm_check(const size_t *out_len, const uint8_t *key, size_t key_len,
                     const uint8_t *nonce, size_t nonce_len, const uint8_t *in, size_t in_len,
                     const uint8_t *ad, size_t ad_len) {
  MC_FAIL_IF(out_len == NULL || key == NULL || gcm_aead(key_len) == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(nonce == NULL || nonce_len == 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((in == NULL && in_len != 0) || (ad == NULL && ad_len != 0), MC_ERR_INVALID_ARGUMENT);
  return 0;
}

int mc_aes_gcm_seal(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *key,
                    size_t key_len, const uint8_t *nonce, size_t nonce_len, const uint8_t *in,
                    size_t in_len, const uint8_t *ad, size_t ad_len) {
  MC_TRY(gcm_check(out_len, key, key_len, nonce, nonce_len, in, in_len, ad, ad_len));
  MC_FAIL_IF(out == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < in_len || out_cap - in_len < MC_AES_GCM_TAG_LEN, MC_ERR_BUFFER_TOO_SMALL);
  // EVP_AEAD_CTX keeps its state inline: no allocation.
  EVP_AEAD_CTX aead;
  static const uint8_t empty[1] = {0};
  int ok = EVP_AEAD_CTX_init(&aead, gcm_aead(key_len), key, key_len, MC_AES_GCM_TAG_LEN, NULL) &&
           EVP_AEAD_CTX_seal(&aead, out, out_len, out_cap, nonce, nonce_len,
                             in != NULL ? in : empty, in_len, ad != NULL ? ad : empty, ad_len);
  EVP_AEAD_CTX_cleanup(&aead);
  mc_wipe(&aead, sizeof aead);
  if (!ok) {
    *out_len = 0;
    // The arguments were checked above, so BoringSSL has no reason left to
    // refuse but a limit of its own (a message beyond GCM's 2^36 bytes).
    return mc_bssl_fail(MC_ERR_INVALID_ARGUMENT);
  }
  return 0;
}

int mc_aes_gcm_open(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *key,
                    size_t key_len, const uint8_t *nonce, size_t nonce_len, const uint8_t *in,
                    size_t in_len, const uint8_t *ad, size_t ad_len) {
  MC_TRY(gcm_check(out_len, key, key_len, nonce, nonce_len, in, in_len, ad, ad_len));
  MC_FAIL_IF(in_len < MC_AES_GCM_TAG_LEN, MC_ERR_BAD_CIPHERTEXT);
  size_t len = in_len - MC_AES_GCM_TAG_LEN;
  MC_FAIL_IF(out == NULL && len != 0, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < len, MC_ERR_BUFFER_TOO_SMALL);
  EVP_AEAD_CTX aead;
  static const uint8_t empty[1] = {0};
  uint8_t dummy[1];
  int ok = EVP_AEAD_CTX_init(&aead, gcm_aead(key_len), key, key_len, MC_AES_GCM_TAG_LEN, NULL) &&
           EVP_AEAD_CTX_open(&aead, out != NULL ? out : dummy, out_len, len, nonce, nonce_len, in,
                             in_len, ad != NULL ? ad : empty, ad_len);
  EVP_AEAD_CTX_cleanup(&aead);
  mc_wipe(&aead, sizeof aead);
  if (!ok) {
    // BoringSSL does not promise what `out` holds after a failed open.
    if (out != NULL)
      mc_wipe(out, len);
    *out_len = 0;
    return mc_bssl_fail(MC_ERR_AUTH_FAILED);
  }
  return 0;
}

int mc_aes_kw_wrap(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *kek,
                   size_t kek_len, const uint8_t *in, size_t in_len) {
  unsigned bits = mc_aes_key_bits(kek_len);
  MC_FAIL_IF(out == NULL || out_len == NULL || kek == NULL || in == NULL || bits == 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in_len < MC_AES_KW_MIN_KEY_DATA_LEN || in_len > MC_AES_KW_MAX_KEY_DATA_LEN ||
                 in_len % 8 != 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(out_cap < in_len + MC_AES_KW_OVERHEAD, MC_ERR_BUFFER_TOO_SMALL);
  AES_KEY aes;
  (void)AES_set_encrypt_key(kek, bits, &aes);
  int n = AES_wrap_key(&aes, NULL, out, in, in_len);
  mc_wipe(&aes, sizeof aes);
  if (n != (int)(in_len + MC_AES_KW_OVERHEAD)) {
    mc_wipe(out, in_len + MC_AES_KW_OVERHEAD);
    return mc_bssl_fail(MC_ERR_INVALID_ARGUMENT);
  }
  *out_len = (size_t)n;
  return 0;
}

int mc_aes_kw_unwrap(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *kek,
                     size_t kek_len, const uint8_t *in, size_t in_len) {
  unsigned bits = mc_aes_key_bits(kek_len);
  MC_FAIL_IF(out == NULL || out_len == NULL || kek == NULL || in == NULL || bits == 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(in_len < MC_AES_KW_MIN_KEY_DATA_LEN + MC_AES_KW_OVERHEAD ||
                 in_len > MC_AES_KW_MAX_KEY_DATA_LEN + MC_AES_KW_OVERHEAD || in_len % 8 != 0,
             MC_ERR_BAD_CIPHERTEXT);
  size_t len = in_len - MC_AES_KW_OVERHEAD;
  MC_FAIL_IF(out_cap < len, MC_ERR_BUFFER_TOO_SMALL);
  AES_KEY aes;
  (void)AES_set_decrypt_key(kek, bits, &aes);
  int n = AES_unwrap_key(&aes, NULL, out, in, in_len);
  mc_wipe(&aes, sizeof aes);
  if (n != (int)len) {
    // Unwrapping writes the candidate key data before the check fails.
    mc_wipe(out, len);
    *out_len = 0;
    return mc_bssl_fail(MC_ERR_AUTH_FAILED);
  }
  *out_len = len;
  return 0;
}
