// fuzz_ed448_verify.c: any bytes as an Ed448 public key, signature, context and
// message. Layout: a mode byte (bit 0 picks Ed448 or Ed448ph), the context
// length (0 to 255, capped by what is left), 57 bytes of public key, 114 of
// signature, the context and the message.
// Properties checked:
//   - verification never fails with anything but BAD_SIGNATURE or BAD_KEY,
//     and BAD_KEY exactly when mc_ed448_check_public_key refuses the key;
//   - a key that decodes re-encodes to the same 57 bytes (strict decoding);
//   - an accepted signature has S < L and an R that decodes and re-encodes to
//     itself; a truncated or extended signature is refused;
//   - with the same bytes taken as a private key, signing the message under
//     the context verifies, is deterministic, and fails with one bit flipped.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve448_internal.h"
#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int verify(int ph, const uint8_t *pk, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                  size_t msg_len, const uint8_t *ctx, size_t ctx_len) {
  return ph ? mc_ed448ph_verify(pk, sig, sig_len, msg, msg_len, ctx, ctx_len)
            : mc_ed448_verify(pk, sig, sig_len, msg, msg_len, ctx, ctx_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 + MC_ED448_PUBLIC_KEY_LEN + MC_ED448_SIGNATURE_LEN)
    return 0;
  int ph = data[0] & 1;
  const uint8_t *pk = data + 2;
  const uint8_t *sig = pk + MC_ED448_PUBLIC_KEY_LEN;
  const uint8_t *rest = sig + MC_ED448_SIGNATURE_LEN;
  size_t rest_len = size - (size_t)(rest - data);
  size_t ctx_len = data[1];
  if (ctx_len > rest_len)
    ctx_len = rest_len;
  const uint8_t *ctx = rest, *msg = rest + ctx_len;
  size_t msg_len = rest_len - ctx_len;

  int key_ok = mc_ed448_check_public_key(pk) == 0;
  mc_ed448_point a;
  if ((mc_ed448_point_decode(&a, pk) == 0) != key_ok)
    abort();
  if (key_ok) {
    uint8_t again[MC_ED448_PUBLIC_KEY_LEN];
    mc_ed448_point_encode(again, &a);
    if (memcmp(again, pk, sizeof again) != 0)
      abort();
  }

  int status = verify(ph, pk, sig, MC_ED448_SIGNATURE_LEN, msg, msg_len, ctx, ctx_len);
  if (status != 0 && status != MC_ERR_BAD_SIGNATURE && status != MC_ERR_BAD_KEY)
    abort();
  if ((status == MC_ERR_BAD_KEY) != !key_ok)
    abort();
  if (status == 0) {
    mc_ed448_point r;
    uint8_t again[57];
    if (!mc_sc448_is_canonical(sig + 57) || mc_ed448_point_decode(&r, sig) != 0)
      abort();
    mc_ed448_point_encode(again, &r);
    if (memcmp(again, sig, 57) != 0)
      abort();
  }
  if (verify(ph, pk, sig, MC_ED448_SIGNATURE_LEN - 1, msg, msg_len, ctx, ctx_len) !=
          MC_ERR_BAD_SIGNATURE ||
      (rest_len > 0 && verify(ph, pk, sig, MC_ED448_SIGNATURE_LEN + 1, msg, msg_len, ctx,
                              ctx_len) != MC_ERR_BAD_SIGNATURE))
    abort();

  // The same bytes as a private key: a round trip through signing.
  uint8_t own_pk[MC_ED448_PUBLIC_KEY_LEN], s1[MC_ED448_SIGNATURE_LEN], s2[MC_ED448_SIGNATURE_LEN];
  if (mc_ed448_public_key(own_pk, pk) != 0)
    abort();
  int rc1 = ph ? mc_ed448ph_sign(s1, pk, msg, msg_len, ctx, ctx_len)
               : mc_ed448_sign(s1, pk, msg, msg_len, ctx, ctx_len);
  int rc2 = ph ? mc_ed448ph_sign(s2, pk, msg, msg_len, ctx, ctx_len)
               : mc_ed448_sign(s2, pk, msg, msg_len, ctx, ctx_len);
  if (rc1 != 0 || rc2 != 0 || memcmp(s1, s2, sizeof s1) != 0)
    abort();
  if (verify(ph, own_pk, s1, sizeof s1, msg, msg_len, ctx, ctx_len) != 0 ||
      verify(!ph, own_pk, s1, sizeof s1, msg, msg_len, ctx, ctx_len) != MC_ERR_BAD_SIGNATURE)
    abort();
  size_t bit = (size_t)sig[0] * 7 % (8 * MC_ED448_SIGNATURE_LEN);
  s1[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  if (verify(ph, own_pk, s1, sizeof s1, msg, msg_len, ctx, ctx_len) != MC_ERR_BAD_SIGNATURE)
    abort();
  return 0;
}
