// cfb_sha1_internal.h: OpenPGP's SEIPDv1 encryption in one pass (RFC 9580
// §5.13.1): AES in CFB mode over a byte stream while SHA-1 hashes the same
// plaintext for the Modification Detection Code. The bulk runs through the
// implementation table's cfb_sha1_blocks kernel, 64 bytes (one SHA-1 block,
// four AES blocks) at a time; the portable kernel calls BoringSSL's AES and
// SHA-1 block functions, the x86-64 one (x86/cfb_sha1_shani.c) interleaves
// AES-NI rounds with SHA-NI rounds, so that SHA-1 runs while CFB waits on
// its serial chain of AES calls. Private, never installed.
#ifndef MC_CFB_SHA1_INTERNAL_H
#define MC_CFB_SHA1_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/aes.h>

// One stream. Every field is private to cfb_sha1.c and the kernels.
typedef struct mc_cfb_sha1 {
  AES_KEY aes;        // BoringSSL's schedule: the portable kernel and the tail
  uint8_t rk[15][16]; // AES-NI schedule (FIPS 197 byte order), when the CPU has it
  unsigned rounds;    // 10, 12 or 14
  uint8_t iv[16];     // CFB's register: the last ciphertext block
  uint32_t h[5];      // SHA-1 chaining value
  uint64_t hashed;    // octets hashed so far
  uint8_t buf[64];    // plaintext waiting for a whole SHA-1 block
  size_t buf_len;
  uint8_t *out; // where the ciphertext of buf[0] goes
} mc_cfb_sha1;

// mc_cfb_sha1_start begins a stream under the 16-, 24- or 32-byte `key`
// with a zero IV (OpenPGP's CFB starts from zeros and carries a random
// prefix instead); the ciphertext of the whole stream is written from `out`
// on, contiguously, as the input arrives.
void mc_cfb_sha1_start(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *key, size_t key_len);

// mc_cfb_sha1_update hashes and encrypts `len` bytes of `in`. Ciphertext for
// the last `len` mod 64 or so bytes may wait for the next call; `in` may be
// the output position itself (in place) but must not otherwise overlap it.
void mc_cfb_sha1_update(mc_cfb_sha1 *c, const uint8_t *in, size_t len);

// mc_cfb_sha1_final ends the hashed part and appends its 20-byte SHA-1
// digest, encrypted but not hashed, after the ciphertext, then wipes `c`.
// The stream's output is then complete.
void mc_cfb_sha1_final(mc_cfb_sha1 *c);

// The kernels: `num_blocks` 64-byte blocks of `in` hashed into c->h and
// CFB-encrypted from c->iv into `out` (which may equal `in`).
void mc_cfb_sha1_blocks_scalar(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t num_blocks);
void mc_cfb_sha1_blocks_shani(mc_cfb_sha1 *c, uint8_t *out, const uint8_t *in, size_t num_blocks);

#endif // MC_CFB_SHA1_INTERNAL_H
