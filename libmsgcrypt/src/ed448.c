// ed448.c: the Ed448 and Ed448ph signatures of RFC 8032 §5.2 with context
// strings: key expansion through SHAKE256, deterministic signing and strict
// verification. Signing handles the private key, the secret scalar and the
// nonce only through constant-time code (SHAKE256, scalar arithmetic modulo
// L, the fixed-base table read in full) and wipes every copy. Verification
// handles public data only; it rejects non-canonical encodings of A, R and S
// and checks the cofactorless equation [S]B = R + [k]A by recomputing R and
// comparing encodings.
#include <openssl/rand.h>
#include <string.h>

#include "curve448_internal.h"

// hash_dom4 computes SHAKE256(dom4(phflag, ctx) || a || b || m, 114), where
// dom4(F, C) = "SigEd448" || octet(F) || octet(len(C)) || C (RFC 8032 §5.2).
static int hash_dom4(uint8_t out[114], int phflag, const uint8_t *ctx, size_t ctx_len,
                     const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                     const uint8_t *m, size_t m_len) {
  static const char prefix[8] = {'S', 'i', 'g', 'E', 'd', '4', '4', '8'};
  uint8_t head[10];
  memcpy(head, prefix, 8);
  head[8] = (uint8_t)phflag;
  head[9] = (uint8_t)ctx_len;
  mc_sha3_ctx h;
  int rc = mc_sha3_init(&h, MC_SHAKE256);
  if (rc == 0)
    rc = mc_sha3_update(&h, head, sizeof head);
  if (rc == 0)
    rc = mc_sha3_update(&h, ctx, ctx_len);
  if (rc == 0)
    rc = mc_sha3_update(&h, a, a_len);
  if (rc == 0)
    rc = mc_sha3_update(&h, b, b_len);
  if (rc == 0)
    rc = mc_sha3_update(&h, m, m_len);
  if (rc == 0)
    rc = mc_shake_squeeze(&h, out, 114);
  mc_sha3_cleanup(&h);
  return rc;
}

// RFC 8032 §5.2.5: h = SHAKE256(private key, 114); the first 57 bytes, pruned,
// are the secret scalar s, the last 57 the nonce prefix; A = [s]B.
void mc_ed448_expand_key(uint8_t s[56], uint8_t prefix[57], uint8_t public_key[57],
                         const uint8_t private_key[57]) {
  uint8_t h[114];
  mc_ed448_point a;
  // mc_shake fails only for a non-SHAKE algorithm.
  if (mc_shake(MC_SHAKE256, h, sizeof h, private_key, MC_ED448_PRIVATE_KEY_LEN) != 0)
    memset(h, 0, sizeof h);
  h[0] &= 0xfc;
  h[56] = 0;
  h[55] |= 0x80;
  mc_sc448_reduce(s, h, 57);
  memcpy(prefix, h + 57, 57);
  mc_ed448_scalarmult_base(&a, s);
  mc_ed448_point_encode(public_key, &a);
  mc_wipe(h, sizeof h);
  mc_wipe(&a, sizeof a);
}

static int sign_core(uint8_t sig[MC_ED448_SIGNATURE_LEN], const uint8_t private_key[57], int phflag,
                     const uint8_t *m, size_t m_len, const uint8_t *ctx, size_t ctx_len) {
  uint8_t s[56], prefix[57], a_enc[57], h[114], r[56], k[56];
  mc_ed448_point rp;
  mc_ed448_expand_key(s, prefix, a_enc, private_key);
  // r = SHAKE256(dom4 || prefix || M, 114) mod L; R = [r]B.
  int rc = hash_dom4(h, phflag, ctx, ctx_len, prefix, sizeof prefix, NULL, 0, m, m_len);
  if (rc == 0) {
    mc_sc448_reduce(r, h, sizeof h);
    mc_ed448_scalarmult_base(&rp, r);
    mc_ed448_point_encode(sig, &rp);
    // k = SHAKE256(dom4 || R || A || M, 114) mod L; S = (r + k * s) mod L.
    rc = hash_dom4(h, phflag, ctx, ctx_len, sig, 57, a_enc, sizeof a_enc, m, m_len);
  }
  if (rc == 0) {
    mc_sc448_reduce(k, h, sizeof h);
    mc_sc448_muladd(sig + 57, k, s, r);
    sig[113] = 0;
  } else {
    memset(sig, 0, MC_ED448_SIGNATURE_LEN);
  }
  mc_wipe(s, sizeof s);
  mc_wipe(prefix, sizeof prefix);
  mc_wipe(h, sizeof h);
  mc_wipe(r, sizeof r);
  mc_wipe(k, sizeof k);
  mc_wipe(&rp, sizeof rp);
  return rc;
}

static int verify_core(const uint8_t public_key[57], const uint8_t *sig, size_t sig_len, int phflag,
                       const uint8_t *m, size_t m_len, const uint8_t *ctx, size_t ctx_len) {
  mc_ed448_point a, r;
  uint8_t h[114], k[56], r_check[57];
  if (sig_len != MC_ED448_SIGNATURE_LEN)
    return MC_ERR_BAD_SIGNATURE;
  if (mc_ed448_point_decode(&a, public_key) != 0)
    return MC_ERR_BAD_KEY;
  // RFC 8032 §5.2.7: S must lie in [0, L); R is checked below by comparing
  // it with the canonical encoding of the recomputed point.
  if (!mc_sc448_is_canonical(sig + 57))
    return MC_ERR_BAD_SIGNATURE;
  MC_TRY(hash_dom4(h, phflag, ctx, ctx_len, sig, 57, public_key, 57, m, m_len));
  mc_sc448_reduce(k, h, sizeof h);
  // R' = [k](-A) + [S]B.
  mc_ed448_point_neg(&a, &a);
  mc_ed448_double_scalarmult_vartime(&r, k, &a, sig + 57);
  mc_ed448_point_encode(r_check, &r);
  return memcmp(r_check, sig, 57) == 0 ? 0 : MC_ERR_BAD_SIGNATURE;
}

int mc_ed448_public_key(uint8_t out_public_key[MC_ED448_PUBLIC_KEY_LEN],
                        const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  uint8_t s[56], prefix[57];
  mc_ed448_expand_key(s, prefix, out_public_key, private_key);
  mc_wipe(s, sizeof s);
  mc_wipe(prefix, sizeof prefix);
  return 0;
}

int mc_ed448_keypair(uint8_t out_public_key[MC_ED448_PUBLIC_KEY_LEN],
                     uint8_t out_private_key[MC_ED448_PRIVATE_KEY_LEN]) {
  MC_FAIL_IF(out_public_key == NULL || out_private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  RAND_bytes(out_private_key, MC_ED448_PRIVATE_KEY_LEN);
  return mc_ed448_public_key(out_public_key, out_private_key);
}

int mc_ed448_check_public_key(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN]) {
  mc_ed448_point a;
  MC_FAIL_IF(public_key == NULL, MC_ERR_INVALID_ARGUMENT);
  return mc_ed448_point_decode(&a, public_key) == 0 ? 0 : MC_ERR_BAD_KEY;
}

// bad_buffers reports NULL pointers that come with a non-zero length, and
// contexts longer than RFC 8032 allows.
static int bad_buffers(const uint8_t *m, size_t m_len, const uint8_t *ctx, size_t ctx_len) {
  return (m == NULL && m_len != 0) || (ctx == NULL && ctx_len != 0) ||
         ctx_len > MC_ED448_MAX_CONTEXT_LEN;
}

int mc_ed448_sign(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                  const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN], const uint8_t *msg,
                  size_t msg_len, const uint8_t *ctx, size_t ctx_len) {
  MC_FAIL_IF(out_signature == NULL || private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(msg, msg_len, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  return sign_core(out_signature, private_key, 0, msg, msg_len, ctx, ctx_len);
}

int mc_ed448_verify(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN], const uint8_t *signature,
                    size_t signature_len, const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                    size_t ctx_len) {
  MC_FAIL_IF(public_key == NULL || (signature == NULL && signature_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(msg, msg_len, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  return verify_core(public_key, signature, signature_len, 0, msg, msg_len, ctx, ctx_len);
}

int mc_ed448ph_sign_digest(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                           const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN],
                           const uint8_t digest[MC_ED448PH_DIGEST_LEN], const uint8_t *ctx,
                           size_t ctx_len) {
  MC_FAIL_IF(out_signature == NULL || private_key == NULL || digest == NULL,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(NULL, 0, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  return sign_core(out_signature, private_key, 1, digest, MC_ED448PH_DIGEST_LEN, ctx, ctx_len);
}

int mc_ed448ph_verify_digest(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN],
                             const uint8_t *signature, size_t signature_len,
                             const uint8_t digest[MC_ED448PH_DIGEST_LEN], const uint8_t *ctx,
                             size_t ctx_len) {
  MC_FAIL_IF(public_key == NULL || digest == NULL || (signature == NULL && signature_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(NULL, 0, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  return verify_core(public_key, signature, signature_len, 1, digest, MC_ED448PH_DIGEST_LEN, ctx,
                     ctx_len);
}

// Ed448ph's pre-hash is PH(M) = SHAKE256(M, 64) (RFC 8032 §5.2).
static int prehash(uint8_t digest[MC_ED448PH_DIGEST_LEN], const uint8_t *msg, size_t msg_len) {
  return mc_shake(MC_SHAKE256, digest, MC_ED448PH_DIGEST_LEN, msg, msg_len);
}

int mc_ed448ph_sign(uint8_t out_signature[MC_ED448_SIGNATURE_LEN],
                    const uint8_t private_key[MC_ED448_PRIVATE_KEY_LEN], const uint8_t *msg,
                    size_t msg_len, const uint8_t *ctx, size_t ctx_len) {
  uint8_t digest[MC_ED448PH_DIGEST_LEN];
  MC_FAIL_IF(out_signature == NULL || private_key == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(msg, msg_len, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  MC_TRY(prehash(digest, msg, msg_len));
  return sign_core(out_signature, private_key, 1, digest, sizeof digest, ctx, ctx_len);
}

int mc_ed448ph_verify(const uint8_t public_key[MC_ED448_PUBLIC_KEY_LEN], const uint8_t *signature,
                      size_t signature_len, const uint8_t *msg, size_t msg_len, const uint8_t *ctx,
                      size_t ctx_len) {
  uint8_t digest[MC_ED448PH_DIGEST_LEN];
  MC_FAIL_IF(public_key == NULL || (signature == NULL && signature_len != 0),
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(bad_buffers(msg, msg_len, ctx, ctx_len), MC_ERR_INVALID_ARGUMENT);
  MC_TRY(prehash(digest, msg, msg_len));
  return verify_core(public_key, signature, signature_len, 1, digest, sizeof digest, ctx, ctx_len);
}
