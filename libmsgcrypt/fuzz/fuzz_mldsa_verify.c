// fuzz_mldsa_verify.c: ML-DSA verification of untrusted public keys,
// signatures, messages and contexts. The first byte picks the level and the
// mode. In the split mode the rest is cut into a public key, a signature, a
// context and a message, at the level's lengths or lengths moved by the
// second byte; verification must return one of its documented codes and
// never crash or read out of bounds. In the flip mode a fixed valid key and
// signature (made once from a fixed seed) get one bit flipped at a position
// the input chooses, in the signature, the message or the public key; the
// result must never verify, while the untouched triple always does.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const mc_mldsa_level levels[] = {MC_MLDSA_44, MC_MLDSA_65, MC_MLDSA_87};

struct fixed {
  int ready;
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sig[MC_MLDSA_MAX_SIGNATURE_LEN];
};
static const uint8_t fixed_msg[] = "fuzz_mldsa_verify fixed message";
static const uint8_t fixed_ctx[] = "ctx";

static const struct fixed *fixed_for(size_t i) {
  static struct fixed fixed[3];
  static uint8_t sk[MC_MLDSA_MAX_PRIVATE_KEY_LEN];
  struct fixed *f = &fixed[i];
  if (!f->ready) {
    uint8_t seed[MC_MLDSA_SEED_LEN];
    memset(seed, 0x5a + (int)i, sizeof seed);
    if (mc_mldsa_keygen_from_seed(levels[i], f->pk, sizeof f->pk, sk, sizeof sk, seed) != 0 ||
        mc_mldsa_sign_deterministic(levels[i], f->sig, sizeof f->sig, sk,
                                    mc_mldsa_private_key_len(levels[i]), fixed_msg,
                                    sizeof fixed_msg, fixed_ctx, sizeof fixed_ctx) != 0)
      abort();
    f->ready = 1;
  }
  return f;
}

static int documented(int status) {
  return status == 0 || status == MC_ERR_BAD_SIGNATURE || status == MC_ERR_BAD_KEY ||
         status == MC_ERR_INVALID_ARGUMENT;
}

static size_t take(size_t want, size_t *left) {
  size_t n = want < *left ? want : *left;
  *left -= n;
  return n;
}

static void split_mode(mc_mldsa_level level, const uint8_t *in, size_t len) {
  if (len < 2)
    return;
  // The second byte moves the key and signature lengths by -8..7 when its
  // top bit is set, to reach the length checks.
  int shift = in[0] & 0x80 ? (int)(in[0] & 0x0f) - 8 : 0;
  uint8_t ctx_len = in[1];
  in += 2;
  len -= 2;
  size_t pk_len = take(mc_mldsa_public_key_len(level) + (size_t)shift, &len);
  size_t sig_len = take(mc_mldsa_signature_len(level) + (size_t)shift, &len);
  size_t c_len = take(ctx_len, &len);
  const uint8_t *pk = in, *sig = pk + pk_len, *ctx = sig + sig_len, *msg = ctx + c_len;
  int status = mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, len, ctx, c_len);
  if (!documented(status))
    abort();
  if (pk_len != mc_mldsa_public_key_len(level) && status != MC_ERR_BAD_KEY)
    abort();
  status = mc_mldsa_verify_internal(level, pk, pk_len, sig, sig_len, msg, len);
  if (!documented(status) || status == MC_ERR_INVALID_ARGUMENT)
    abort();
}

static void flip_mode(size_t i, const uint8_t *in, size_t len) {
  mc_mldsa_level level = levels[i];
  const struct fixed *f = fixed_for(i);
  size_t pk_len = mc_mldsa_public_key_len(level), sig_len = mc_mldsa_signature_len(level);
  uint8_t pk[MC_MLDSA_MAX_PUBLIC_KEY_LEN], sig[MC_MLDSA_MAX_SIGNATURE_LEN];
  uint8_t msg[sizeof fixed_msg];
  memcpy(pk, f->pk, pk_len);
  memcpy(sig, f->sig, sig_len);
  memcpy(msg, fixed_msg, sizeof msg);
  if (mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, fixed_ctx,
                      sizeof fixed_ctx) != 0)
    abort();
  uint32_t pos = 0;
  for (size_t k = 0; k < len && k < 4; k++)
    pos |= (uint32_t)in[k] << (8 * k);
  pos %= (uint32_t)(8 * (sig_len + sizeof msg + pk_len));
  if (pos < 8 * sig_len)
    sig[pos / 8] ^= (uint8_t)(1u << (pos % 8));
  else if ((pos -= (uint32_t)(8 * sig_len)) < 8 * sizeof msg)
    msg[pos / 8] ^= (uint8_t)(1u << (pos % 8));
  else
    pk[(pos - 8 * sizeof msg) / 8] ^= (uint8_t)(1u << (pos % 8));
  if (mc_mldsa_verify(level, pk, pk_len, sig, sig_len, msg, sizeof msg, fixed_ctx,
                      sizeof fixed_ctx) != MC_ERR_BAD_SIGNATURE)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t level = data[0] % 3;
  if ((data[0] / 3) % 2 == 0)
    split_mode(levels[level], data + 1, size - 1);
  else
    flip_mode(level, data + 1, size - 1);
  return 0;
}
