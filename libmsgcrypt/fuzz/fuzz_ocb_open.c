// fuzz_ocb_open.c: any bytes as an AES-OCB ciphertext, and as a tampering of
// a genuine one. Byte 0 chooses the key length (16, 24, 32), the tag length
// (16, 12, 8) and the mode; byte 1 the nonce length (1..15) and byte 2 the
// associated-data length; then come the key, the nonce, the associated data
// and the rest:
//  - raw (bit 7 clear): the rest is the ciphertext || tag. Opening must never
//    crash; when it fails it gives MC_ERR_AUTH_FAILED (or MC_ERR_BAD_CIPHERTEXT
//    below a tag's length), a zero length and a zeroed output; when it opens,
//    sealing the plaintext again must give back exactly the input.
//  - tamper (bit 7 set): the rest is a plaintext (its first half) and a mask
//    (its second half); the plaintext is sealed, the mask XORed into the
//    ciphertext, and opening must succeed exactly when the mask is all zeros.
// Every open runs on every implementation the CPU has (VAES and AES-NI when
// it has them, and BoringSSL's ECB mode), which must agree byte for byte; the
// seal is the automatic choice's.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aead_internal.h"
#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// open_both opens `ct` with every implementation, checks the failure contract
// and their agreement, and returns the status.
static int open_both(const uint8_t *key, size_t key_len, size_t tag_len, const uint8_t *nonce,
                     size_t nonce_len, const uint8_t *ad, size_t ad_len, const uint8_t *ct,
                     size_t ct_len, uint8_t *out, size_t *out_len) {
  static const int impls[3] = {MC_OCB_IMPL_BORINGSSL, MC_OCB_IMPL_AESNI, MC_OCB_IMPL_VAES};
  uint8_t *other = malloc(ct_len + 1);
  if (other == NULL)
    abort();
  int first_rc = 0;
  size_t first_len = 0;
  for (int i = 0; i < 3; i++) {
    mc_aes_ocb_ctx ctx;
    int rc = mc_aes_ocb_init_impl(&ctx, key, key_len, tag_len, impls[i]);
    if (rc == MC_ERR_UNSUPPORTED)
      continue; // not on this machine
    if (rc != 0)
      abort();
    uint8_t *dst = i == 0 ? out : other;
    size_t n = 12345;
    memset(dst, 0xa5, ct_len + 1);
    rc = mc_aes_ocb_open(&ctx, dst, ct_len, &n, nonce, nonce_len, ct, ct_len, ad, ad_len);
    mc_aes_ocb_cleanup(&ctx);
    if (rc != 0) {
      if (rc != (ct_len < tag_len ? MC_ERR_BAD_CIPHERTEXT : MC_ERR_AUTH_FAILED))
        abort();
      if (rc == MC_ERR_AUTH_FAILED) {
        if (n != 0)
          abort();
        for (size_t k = 0; k < ct_len - tag_len; k++)
          if (dst[k] != 0)
            abort();
      }
    } else if (n != ct_len - tag_len) {
      abort();
    }
    if (i == 0) {
      first_rc = rc;
      first_len = n;
    } else if (rc != first_rc || (rc == 0 && (n != first_len || memcmp(out, other, n) != 0))) {
      abort();
    }
  }
  free(other);
  *out_len = first_len;
  return first_rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3)
    return 0;
  static const size_t key_lens[3] = {16, 24, 32}, tag_lens[3] = {16, 12, 8};
  size_t key_len = key_lens[data[0] % 3], tag_len = tag_lens[(data[0] >> 2) % 3];
  int tamper = data[0] >> 7;
  size_t nonce_len = 1 + data[1] % MC_AES_OCB_MAX_NONCE_LEN, ad_len = data[2];
  if (size < 3 + key_len + nonce_len + ad_len)
    return 0;
  const uint8_t *key = data + 3, *nonce = key + key_len, *ad = nonce + nonce_len;
  const uint8_t *rest = ad + ad_len;
  size_t rest_len = size - 3 - key_len - nonce_len - ad_len;

  mc_aes_ocb_ctx ctx;
  if (mc_aes_ocb_init(&ctx, key, key_len, tag_len) != 0)
    abort();
  size_t n, m;
  if (!tamper) {
    uint8_t *pt = malloc(rest_len + 1), *again = malloc(rest_len + 16);
    if (pt == NULL || again == NULL)
      abort();
    if (open_both(key, key_len, tag_len, nonce, nonce_len, ad, ad_len, rest, rest_len, pt, &n) ==
        0) {
      // Opening succeeded (a forgery, or a corpus entry made with the key):
      // the plaintext seals back to the very same bytes.
      if (mc_aes_ocb_seal(&ctx, again, rest_len + 16, &m, nonce, nonce_len, pt, n, ad, ad_len) !=
              0 ||
          m != rest_len || memcmp(again, rest, rest_len) != 0)
        abort();
    }
    free(pt);
    free(again);
  } else {
    size_t pt_len = rest_len / 2;
    const uint8_t *pt = rest, *mask = rest + pt_len;
    size_t mask_len = rest_len - pt_len;
    uint8_t *ct = malloc(pt_len + 16), *back = malloc(pt_len + 17);
    if (ct == NULL || back == NULL)
      abort();
    if (mc_aes_ocb_seal(&ctx, ct, pt_len + 16, &n, nonce, nonce_len, pt, pt_len, ad, ad_len) != 0 ||
        n != pt_len + tag_len)
      abort();
    int changed = 0;
    for (size_t i = 0; i < mask_len && i < n; i++) {
      ct[i] ^= mask[i];
      changed |= mask[i];
    }
    int rc = open_both(key, key_len, tag_len, nonce, nonce_len, ad, ad_len, ct, n, back, &m);
    if (changed ? rc != MC_ERR_AUTH_FAILED : (rc != 0 || m != pt_len || memcmp(back, pt, m) != 0))
      abort();
    free(ct);
    free(back);
  }
  mc_aes_ocb_cleanup(&ctx);
  return 0;
}
