// pgp_encrypt_internal.h: private declarations of the OpenPGP encryption
// engine (pgp_format.c, pgp_pkesk.c, pgp_seipd.c, pgp_write.c,
// pgp_encrypt.c, pgp_mime.c) and the derandomised entry points its tests
// use to reproduce published vectors. Never installed.
#ifndef MC_PGP_ENCRYPT_INTERNAL_H
#define MC_PGP_ENCRYPT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "msgcrypt_internal.h"
#include "pgp_crc24_internal.h"
#include "pgp_recipient.h"

// RFC 9580 §9.3 symmetric and §9.6 AEAD algorithm ids the engine writes.
enum {
  MC_PGP_SYM_AES128 = 7,
  MC_PGP_SYM_AES192 = 8,
  MC_PGP_SYM_AES256 = 9,
};
enum {
  MC_PGP_AEAD_OCB = 2,
  MC_PGP_AEAD_GCM = 3,
};

// RFC 9580 packet type ids the engine writes.
enum {
  MC_PGP_TAG_PKESK = 1,
  MC_PGP_TAG_LITERAL = 11,
  MC_PGP_TAG_SEIPD = 18,
  MC_PGP_TAG_MDC = 19,
};

// The chunk size octet of the SEIPDv2 packets we write: 2^(12+6) = 256 KiB,
// the size OpenPGP.js writes, well inside RFC 9580's limit of 16.
#define MC_PGP_DEFAULT_CHUNK_OCTET 12
#define MC_PGP_MAX_CHUNK_OCTET 16
// Partial body lengths (RFC 9580 §4.2.1.4) of the packets we stream: 8 KiB
// pieces, above the 512-octet minimum of the first piece.
#define MC_PGP_PARTIAL_LOG2 13
#define MC_PGP_PARTIAL_LEN ((size_t)1 << MC_PGP_PARTIAL_LOG2)
#define MC_PGP_SALT_LEN 32
#define MC_PGP_MAX_SESSION_KEY_LEN 32
// The longest PKESK packet we write: RSA-16384's 2048-octet MPI or
// ML-KEM-1024+X448's 56 + 1568 + 42 octets, plus headers.
#define MC_PGP_PKESK_MAX_LEN 2200

// mc_pgp_format is the symmetric side of one message.
typedef struct mc_pgp_format {
  uint8_t seipd_version; // 1 or 2
  uint8_t sym;           // MC_PGP_SYM_*
  uint8_t aead;          // MC_PGP_AEAD_* (SEIPDv2 only)
  uint8_t chunk_octet;   // SEIPDv2 chunk size octet
} mc_pgp_format;

// mc_pgp_rand_fn fills `out` with `len` random bytes; the engine draws every
// random value (session key, salt, ephemeral keys, ML-KEM randomness, CFB
// prefix) through one, so tests can make a message deterministic.
typedef int (*mc_pgp_rand_fn)(void *opaque, uint8_t *out, size_t len);
int mc_pgp_rand_default(void *opaque, uint8_t *out, size_t len);

// mc_pgp_sink_fn receives output bytes; a negative return stops the writer.
typedef int (*mc_pgp_sink_fn)(void *opaque, const uint8_t *data, size_t len);

// pgp_format.c.
size_t mc_pgp_sym_key_len(uint8_t sym);
// mc_pgp_format_select picks the message format for `num_rcpts` recipient
// keys (see the rules in the public header); 0 or MC_ERR_INVALID_ARGUMENT /
// MC_ERR_UNSUPPORTED.
int mc_pgp_format_select(mc_pgp_format *out, const pgp_recipient *rcpts, size_t num_rcpts);

// pgp_write.c: packet framing and armor.
// mc_pgp_header_write writes a new-format packet header for a body of
// `body_len` octets to `out` (room for 6) and returns its length.
size_t mc_pgp_header_write(uint8_t out[6], uint8_t tag, size_t body_len);

// mc_pgp_partial streams one packet of unknown length with partial body
// lengths: whole MC_PGP_PARTIAL_LEN pieces, then a definite last length.
typedef struct mc_pgp_partial {
  uint8_t tag;
  uint8_t started; // the tag octet has been written
  size_t len;      // bytes in buf
  mc_pgp_sink_fn sink;
  void *opaque;
  uint8_t buf[MC_PGP_PARTIAL_LEN];
} mc_pgp_partial;
void mc_pgp_partial_init(mc_pgp_partial *p, uint8_t tag, mc_pgp_sink_fn sink, void *opaque);
int mc_pgp_partial_write(mc_pgp_partial *p, const uint8_t *in, size_t in_len);
int mc_pgp_partial_finish(mc_pgp_partial *p);

// mc_pgp_armor streams ASCII armor (RFC 9580 §6.2) of "PGP MESSAGE" with
// 64-column lines and, when `with_crc`, the optional CRC-24 line. Input
// gathers into blocks of MC_PGP_ARMOR_LINES lines (whole blocks of the
// caller's input are encoded in place); each block reaches the sink in one
// call.
#define MC_PGP_ARMOR_LINES 64
#define MC_PGP_ARMOR_BLOCK_IN (48 * MC_PGP_ARMOR_LINES)
typedef struct mc_pgp_armor {
  mc_pgp_sink_fn sink;
  void *opaque;
  uint32_t crc;
  uint8_t with_crc;
  uint8_t started;
  size_t len; // bytes waiting in `in`
  uint8_t in[MC_PGP_ARMOR_BLOCK_IN];
  char text[65 * MC_PGP_ARMOR_LINES]; // one block's lines with their LFs
} mc_pgp_armor;
void mc_pgp_armor_init(mc_pgp_armor *a, int with_crc, mc_pgp_sink_fn sink, void *opaque);
// mc_pgp_armor_len is the exact length of the armor mc_pgp_armor writes
// for `in_len` bytes, with or without the CRC-24 line, or SIZE_MAX when it
// would overflow.
size_t mc_pgp_armor_len(size_t in_len, int with_crc);
int mc_pgp_armor_write(void *armor, const uint8_t *in, size_t in_len);
int mc_pgp_armor_finish(mc_pgp_armor *a);

// pgp_pkesk.c.
// mc_pgp_pkesk_write writes a complete PKESK packet (`pkesk_version` 3 or 6)
// carrying the session key `sk` of cipher `sym` to the key `r`, drawing its
// randomness from `rnd`.
int mc_pgp_pkesk_write(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *r,
                       int pkesk_version, uint8_t sym, const uint8_t *sk, size_t sk_len,
                       mc_pgp_rand_fn rnd, void *rnd_opaque);
// Derandomised parts, for known-answer tests.
// mc_pgp_kek_native: RFC 9580 §5.1.6/§5.1.7 HKDF of ephemeral || recipient
// || shared into the 16-octet (X25519) or 32-octet (X448) KEK.
int mc_pgp_kek_native(uint8_t *out, size_t *out_len, uint8_t algo, const uint8_t *eph_pub,
                      const uint8_t *rcpt_pub, const uint8_t *shared);
// mc_pgp_kem_combine: RFC 9980 multiKeyCombine into a 32-octet KEK.
int mc_pgp_kem_combine(uint8_t out[32], const uint8_t mlkem_ss[32], const uint8_t *ecdh_ss,
                       const uint8_t *ecdh_ct, const uint8_t *ecdh_pub, size_t ecc_len,
                       uint8_t algo);
// mc_pgp_pkesk_native_from_shared writes the X25519/X448 PKESK for the given
// ephemeral public key and shared point.
int mc_pgp_pkesk_native_from_shared(uint8_t *out, size_t out_cap, size_t *out_len,
                                    const pgp_recipient *r, int pkesk_version, uint8_t sym,
                                    const uint8_t *sk, size_t sk_len, const uint8_t *eph_pub,
                                    const uint8_t *shared);
// mc_pgp_pkesk_composite_from_shares writes the ML-KEM+ECC PKESK for the
// given ciphertexts and key shares.
int mc_pgp_pkesk_composite_from_shares(uint8_t *out, size_t out_cap, size_t *out_len,
                                       const pgp_recipient *r, int pkesk_version, uint8_t sym,
                                       const uint8_t *sk, size_t sk_len, const uint8_t *ecdh_ct,
                                       const uint8_t *ecdh_ss, const uint8_t *mlkem_ct,
                                       const uint8_t mlkem_ss[32]);
// mc_pgp_ecdh_kdf: RFC 9580 §11.5 KDF for ECDH (18) into `kek_len` octets.
int mc_pgp_ecdh_kdf(uint8_t *out, size_t kek_len, const pgp_recipient *r, const uint8_t *zz,
                    size_t zz_len);

// pgp_seipd.c: the encrypted data packet, streamed.
typedef struct mc_pgp_seipd mc_pgp_seipd;
// mc_pgp_seipd_new starts a SEIPD packet of format `fmt` under session key
// `sk`, writing its bytes (without the packet header) to `out`. The salt
// (v2) or the random prefix (v1) come from `rnd`.
int mc_pgp_seipd_new(mc_pgp_seipd **out_s, const mc_pgp_format *fmt, const uint8_t *sk,
                     size_t sk_len, mc_pgp_rand_fn rnd, void *rnd_opaque, mc_pgp_sink_fn out,
                     void *out_opaque);
int mc_pgp_seipd_write(void *s, const uint8_t *in, size_t in_len);
int mc_pgp_seipd_finish(mc_pgp_seipd *s);
void mc_pgp_seipd_free(mc_pgp_seipd *s);
// mc_pgp_seipd_oneshot_len is the length of the body mc_pgp_seipd_oneshot
// writes for a plaintext stream of `pt_len` octets.
size_t mc_pgp_seipd_oneshot_len(const mc_pgp_format *fmt, size_t pt_len);
// mc_pgp_seipd_oneshot writes the whole SEIPD body (what the streaming
// writer sends, without its packet header) for the plaintext stream `head`
// || `in` to `out`, which has room for mc_pgp_seipd_oneshot_len octets and
// must not overlap `in`; the same random draws in the same order as
// mc_pgp_seipd_new. 0, MC_ERR_INVALID_ARGUMENT, MC_ERR_UNSUPPORTED, -ENOMEM
// or the random function's error.
int mc_pgp_seipd_oneshot(uint8_t *out, const mc_pgp_format *fmt, const uint8_t *sk, size_t sk_len,
                         mc_pgp_rand_fn rnd, void *rnd_opaque, const uint8_t *head, size_t head_len,
                         const uint8_t *in, size_t in_len);

// pgp_encrypt.c: the whole message.
typedef struct mc_pgp_encrypt_params {
  int armor;
  int format_override; // 0 or an MC_PGP_FORMAT_* of the public header
  mc_pgp_rand_fn rnd;  // NULL: mc_pgp_rand_default
  void *rnd_opaque;
  const char *filename; // literal data packet name, NULL for none
} mc_pgp_encrypt_params;

// mc_pgp_encryptor_new_rcpts starts a message to `num_rcpts` keys: the
// engine's entry point, under the public constructors.
int mc_pgp_encryptor_new_rcpts(mc_pgp_encryptor **out, const pgp_recipient *rcpts, size_t num_rcpts,
                               const mc_pgp_encrypt_params *params, mc_pgp_write_fn write,
                               void *opaque);
// mc_pgp_rcpts_from_certs gathers the selected encryption keys of every
// certificate into a new array (free() it); a certificate without one is
// MC_ERR_BAD_KEY.
int mc_pgp_rcpts_from_certs(pgp_recipient **out, size_t *num_out, const mc_pgp_cert *const *certs,
                            size_t num_certs);
// mc_pgp_params_from_options checks public options (NULL: defaults).
int mc_pgp_params_from_options(mc_pgp_encrypt_params *p, const mc_pgp_encrypt_options *options);
// mc_pgp_mime_encrypt_rcpts is mc_pgp_mime_encrypt for recipient keys.
int mc_pgp_mime_encrypt_rcpts(const pgp_recipient *rcpts, size_t num_rcpts,
                              const mc_pgp_encrypt_params *params, const uint8_t *in, size_t in_len,
                              mc_pgp_write_fn write, void *opaque);
// mc_pgp_encrypt_rcpts encrypts `in` in one call into `out`.
int mc_pgp_encrypt_rcpts(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *rcpts,
                         size_t num_rcpts, const mc_pgp_encrypt_params *params, const uint8_t *in,
                         size_t in_len);

#endif // MC_PGP_ENCRYPT_INTERNAL_H
