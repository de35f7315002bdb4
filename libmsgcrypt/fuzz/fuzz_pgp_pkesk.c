// fuzz_pgp_pkesk.c: any bytes as the key material of a recipient, as a
// certificate would hand it to the engine, through mc_pgp_pkesk_write.
// Byte 0 picks the algorithm (RSA, ECDH, X25519, X448, the two ML-KEM
// composites, or the raw byte), byte 1 the key and PKESK versions and the
// cipher, byte 2 the ECDH KDF parameters; the rest is cut into the fields
// (RSA n and e, ECDH OID and point, ECC and ML-KEM public keys) by length
// octets. Randomness comes from a fixed stream. Properties: the call never
// crashes and returns 0 or MC_ERR_BAD_KEY, MC_ERR_UNSUPPORTED,
// MC_ERR_INVALID_ARGUMENT; a success is one PKESK packet (tag 1, its header
// length matching, the version asked for, the recipient's key ID or
// fingerprint and algorithm) no longer than MC_PGP_PKESK_MAX_LEN, and, for
// every algorithm but RSA and the NIST curves (whose randomness is
// BoringSSL's), the same inputs and stream give the same bytes again.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_encrypt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stream(void *opaque, uint8_t *out, size_t len) {
  uint32_t *ctr = opaque;
  for (size_t i = 0; i < len; i++)
    out[i] = (uint8_t)((*ctr)++ * 167u + 13u);
  return 0;
}

// take cuts the next field: one length octet (times `scale`), then bytes.
static const uint8_t *take(const uint8_t **p, size_t *left, size_t scale, size_t *len) {
  if (*left == 0) {
    *len = 0;
    return NULL;
  }
  size_t n = (size_t)(*p)[0] * scale;
  (*p)++;
  (*left)--;
  if (n > *left)
    n = *left;
  const uint8_t *f = *p;
  *p += n;
  *left -= n;
  *len = n;
  return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint8_t algos[] = {
      PGP_PK_RSA,           PGP_PK_ECDH, PGP_PK_X25519, PGP_PK_X448, PGP_PK_MLKEM768_X25519,
      PGP_PK_MLKEM1024_X448};
  if (size < 3)
    return 0;
  pgp_recipient r;
  memset(&r, 0, sizeof r);
  r.algo = data[0] < 6 * 40 ? algos[data[0] % 6] : data[0];
  r.version = data[1] & 1 ? 6 : 4;
  int pkesk_version = data[1] & 2 ? 6 : 3;
  uint8_t sym = (uint8_t)(MC_PGP_SYM_AES128 + (data[1] >> 2) % 3);
  r.ecdh_kdf_hash = (uint8_t)(7 + (data[2] & 3));
  r.ecdh_kdf_cipher = (uint8_t)(6 + ((data[2] >> 2) & 3));
  r.fpr_len = r.version == 6 ? 32 : 20;
  memset(r.fpr, 0xab, r.fpr_len);
  memcpy(r.key_id, r.fpr, 8);
  const uint8_t *p = data + 3;
  size_t left = size - 3;
  r.rsa_n = take(&p, &left, 8, &r.rsa_n_len);
  r.rsa_e = take(&p, &left, 1, &r.rsa_e_len);
  r.ecdh_oid = take(&p, &left, 1, &r.ecdh_oid_len);
  r.ecdh_point = take(&p, &left, 1, &r.ecdh_point_len);
  r.ecc_pub = take(&p, &left, 1, &r.ecc_pub_len);
  r.mlkem_pub = take(&p, &left, 8, &r.mlkem_pub_len);
  uint8_t sk[32];
  memset(sk, 0x5a, sizeof sk);
  size_t sk_len = mc_pgp_sym_key_len(sym);
  static uint8_t out[MC_PGP_PKESK_MAX_LEN], again[MC_PGP_PKESK_MAX_LEN];
  size_t out_len = 0, again_len = 0;
  uint32_t ctr = 0;
  int ret = mc_pgp_pkesk_write(out, sizeof out, &out_len, &r, pkesk_version, sym, sk, sk_len,
                               stream, &ctr);
  if (ret != 0) {
    if (ret != MC_ERR_BAD_KEY && ret != MC_ERR_UNSUPPORTED && ret != MC_ERR_INVALID_ARGUMENT)
      abort();
    return 0;
  }
  if (out_len < 2 || out_len > MC_PGP_PKESK_MAX_LEN || out[0] != (0xc0 | MC_PGP_TAG_PKESK))
    abort();
  size_t hdr = out[1] < 192 ? 2 : out[1] < 224 ? 3 : 6;
  size_t body = out[1] < 192 ? out[1]
                : out[1] < 224
                    ? ((size_t)(out[1] - 192) << 8) + out[2] + 192
                    : (size_t)out[2] << 24 | (size_t)out[3] << 16 | (size_t)out[4] << 8 | out[5];
  if (hdr + body != out_len || out[hdr] != pkesk_version)
    abort();
  size_t algo_at = pkesk_version == 3 ? hdr + 9 : hdr + 3 + r.fpr_len;
  if (algo_at >= out_len || out[algo_at] != r.algo)
    abort();
  if (pkesk_version == 3 ? memcmp(out + hdr + 1, r.key_id, 8) != 0
                         : memcmp(out + hdr + 3, r.fpr, r.fpr_len) != 0)
    abort();
  if (r.algo != PGP_PK_RSA && !(r.algo == PGP_PK_ECDH && r.ecdh_point_len != 33)) {
    ctr = 0;
    if (mc_pgp_pkesk_write(again, sizeof again, &again_len, &r, pkesk_version, sym, sk, sk_len,
                           stream, &ctr) != 0 ||
        again_len != out_len || memcmp(again, out, out_len) != 0)
      abort();
  }
  return 0;
}
