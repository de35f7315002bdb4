// pgp_internal.h: private declarations of libmsgcrypt's OpenPGP code: the
// bounded cursor that every OpenPGP reader uses, packet framing, the growable
// output builder for packet writers, ASCII armor, parsed keys and signatures,
// and the certificate internals that the encryption engine reads
// (pgp_cert_recipients). Never installed.
#ifndef MC_PGP_INTERNAL_H
#define MC_PGP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "msgcrypt.h"
#include "msgcrypt_internal.h"
#include "pgp_recipient.h"

// Bounded cursor (CONVENTIONS §5). Each getter returns 1 and advances, or
// returns 0 and leaves the cursor where it was.

typedef struct pgp_cur {
  const uint8_t *p;
  size_t len;
} pgp_cur;

static inline void pgp_cur_init(pgp_cur *c, const uint8_t *p, size_t len) {
  c->p = p;
  c->len = len;
}

static inline int pgp_cur_get_u8(pgp_cur *c, uint8_t *out) {
  if (c->len < 1)
    return 0;
  *out = c->p[0];
  c->p++;
  c->len--;
  return 1;
}

static inline int pgp_cur_get_u16(pgp_cur *c, uint32_t *out) {
  if (c->len < 2)
    return 0;
  *out = (uint32_t)c->p[0] << 8 | c->p[1];
  c->p += 2;
  c->len -= 2;
  return 1;
}

static inline int pgp_cur_get_u32(pgp_cur *c, uint32_t *out) {
  if (c->len < 4)
    return 0;
  *out = (uint32_t)c->p[0] << 24 | (uint32_t)c->p[1] << 16 | (uint32_t)c->p[2] << 8 | c->p[3];
  c->p += 4;
  c->len -= 4;
  return 1;
}

// pgp_cur_get_bytes points `*out` at the next `n` bytes.
static inline int pgp_cur_get_bytes(pgp_cur *c, const uint8_t **out, size_t n) {
  if (c->len < n)
    return 0;
  *out = c->p;
  c->p += n;
  c->len -= n;
  return 1;
}

static inline int pgp_cur_skip(pgp_cur *c, size_t n) {
  const uint8_t *unused;
  return pgp_cur_get_bytes(c, &unused, n);
}

// pgp_cur_get_mpi reads an RFC 9580 §3.2 MPI and points `*out` at its value
// without leading zero bytes (which a strict encoder never writes, but keys
// in the wild have); `*out_bits` receives the bit count the MPI declares.
int pgp_cur_get_mpi(pgp_cur *c, const uint8_t **out, size_t *out_len, size_t *out_bits);

// Packets (RFC 9580 §4.2).

enum {
  PGP_TAG_PKESK = 1,
  PGP_TAG_SIGNATURE = 2,
  PGP_TAG_SECRET_KEY = 5,
  PGP_TAG_PUBLIC_KEY = 6,
  PGP_TAG_SECRET_SUBKEY = 7,
  PGP_TAG_MARKER = 10,
  PGP_TAG_LITERAL = 11,
  PGP_TAG_TRUST = 12,
  PGP_TAG_USER_ID = 13,
  PGP_TAG_PUBLIC_SUBKEY = 14,
  PGP_TAG_USER_ATTRIBUTE = 17,
  PGP_TAG_SEIPD = 18,
  PGP_TAG_PADDING = 21,
};

// pgp_packet is one packet: its type ID and its body, which points into the
// input it was read from; `offset` is where its header starts.
typedef struct pgp_packet {
  uint8_t tag;
  const uint8_t *body;
  size_t body_len;
  size_t offset;
} pgp_packet;

// pgp_packet_next reads the next packet header of `c` (old or new format)
// and its body, which may not be longer than `max_body_len`. Partial body
// lengths are refused: no packet of a certificate may use them. It returns 1
// with `*out` filled, 0 at the end of input, or MC_ERR_BAD_KEY for a
// malformed, truncated, partial or oversized packet (`c` then is unchanged).
int pgp_packet_next(pgp_cur *c, pgp_packet *out, size_t max_body_len);

// Output builder (CBB-like): a buffer grown with realloc, with a sticky
// error. Every pgp_buf_put_* is a no-op once `err` is set.
typedef struct pgp_buf {
  uint8_t *p;
  size_t len, cap;
  int err; // 0, -ENOMEM, or MC_ERR_INVALID_ARGUMENT (a body too long)
} pgp_buf;

// pgp_buf_init_growable starts an empty heap buffer; free it with
// pgp_buf_cleanup (or take b->p, which is then the caller's to free).
void pgp_buf_init_growable(pgp_buf *b);
void pgp_buf_cleanup(pgp_buf *b);
// pgp_buf_reserve appends `n` bytes of unspecified value and returns where
// they start, or NULL with the sticky error set.
uint8_t *pgp_buf_reserve(pgp_buf *b, size_t n);
void pgp_buf_put_u8(pgp_buf *b, uint8_t v);
void pgp_buf_put_u32(pgp_buf *b, uint32_t v);
void pgp_buf_put_bytes(pgp_buf *b, const uint8_t *in, size_t in_len);
// pgp_buf_put_header writes a new-format packet header (RFC 9580 §4.2.1)
// for type `tag` and a body of `body_len` bytes.
void pgp_buf_put_header(pgp_buf *b, uint8_t tag, size_t body_len);

// ASCII armor (RFC 9580 §6).

// pgp_crc24 returns the armor checksum of `in`.
uint32_t pgp_crc24(const uint8_t *in, size_t in_len);

// pgp_armor_looks_armored returns 1 when `in` starts, after blank space,
// with "-----BEGIN PGP ".
int pgp_armor_looks_armored(const uint8_t *in, size_t in_len);

// pgp_armor_decode decodes every armored block of `in` whose label is
// `label` ("PUBLIC KEY BLOCK") and appends their data to `out`. Headers
// are skipped; a line longer than `max_line_len` fails; a CRC-24 line, when
// present, must match. Text outside the blocks is ignored. It returns the
// number of blocks (0 when none), MC_ERR_BAD_KEY for a malformed block
// (`*err_off` then holds its offset in `in`), or an error of `out`.
int pgp_armor_decode(pgp_buf *out, size_t *err_off, const uint8_t *in, size_t in_len,
                     const char *label, size_t max_line_len);

// pgp_armor_encode writes `in` as one armored block with `label` (e.g.
// "MESSAGE"), lines of 64 characters, no header and, when `with_crc` is set,
// the CRC-24 line (RFC 9580 §6.1 says not to emit it for v6 data).
void pgp_armor_encode(pgp_buf *out, const char *label, const uint8_t *in, size_t in_len,
                      int with_crc);

// Keys (RFC 9580 §5.5.2, RFC 9980).

// Public-key algorithm IDs beyond those of pgp_recipient.h.
enum {
  PGP_PK_RSA_SIGN_ONLY = 3,
  PGP_PK_ELGAMAL = 16,
  PGP_PK_DSA = 17,
  PGP_PK_ECDSA = 19,
  PGP_PK_ELGAMAL_SIGN = 20,
  PGP_PK_EDDSA_LEGACY = 22,
  PGP_PK_ED25519 = 27,
  PGP_PK_ED448 = 28,
  PGP_PK_MLDSA65_ED25519 = 30,
  PGP_PK_MLDSA87_ED448 = 31,
  PGP_PK_SLHDSA_128S = 32,
  PGP_PK_SLHDSA_128F = 33,
  PGP_PK_SLHDSA_256S = 34,
};

// Curves named by OID in ECDH, ECDSA and EdDSALegacy keys.
enum {
  PGP_CURVE_NONE = 0,
  PGP_CURVE_P256,
  PGP_CURVE_P384,
  PGP_CURVE_P521,
  PGP_CURVE_ED25519_LEGACY,
  PGP_CURVE_CV25519_LEGACY,
  PGP_CURVE_BRAINPOOL256,
  PGP_CURVE_BRAINPOOL384,
  PGP_CURVE_BRAINPOOL512,
  PGP_CURVE_SECP256K1,
  PGP_CURVE_OTHER,
};

// pgp_key is a parsed public key or subkey; its pointers borrow the packet
// body.
typedef struct pgp_key {
  uint8_t version; // 4 or 6
  uint8_t algo;
  uint32_t created;
  const uint8_t *body; // the whole packet body: what fingerprints hash
  size_t body_len;
  uint8_t fpr[32];
  size_t fpr_len;
  uint8_t key_id[8];
  unsigned bits;        // RSA modulus bits, else the curve's size
  char name[40];        // e.g. "RSA-3072", "ECDH P-256"
  const char *unusable; // static reason, or NULL for a supported algorithm

  const uint8_t *rsa_n, *rsa_e;
  size_t rsa_n_len, rsa_e_len;
  int curve; // PGP_CURVE_*
  const uint8_t *oid;
  size_t oid_len;
  const uint8_t *point; // ECDH/ECDSA/EdDSALegacy MPI value
  size_t point_len;
  uint8_t kdf_hash, kdf_cipher;
  const uint8_t *ecc_pub; // native X/Ed keys, ECC share of composites
  size_t ecc_pub_len;
  const uint8_t *pq_pub; // ML-KEM or ML-DSA share of composites
  size_t pq_pub_len;
} pgp_key;

// pgp_key_parse reads a Public-Key or Public-Subkey packet body. It returns
// 0 (the key may still be `unusable`), MC_ERR_UNSUPPORTED for a version
// other than 4 and 6, or MC_ERR_BAD_KEY for a malformed body.
int pgp_key_parse(pgp_key *out, const uint8_t *body, size_t body_len);

// pgp_key_can_encrypt / pgp_key_can_sign: whether the algorithm is one this
// library supports for that use.
int pgp_key_can_encrypt(const pgp_key *key);
int pgp_key_can_sign(const pgp_key *key);

// Signatures (RFC 9580 §5.2).

enum {
  PGP_SIG_BINARY = 0x00,
  PGP_SIG_CERT_GENERIC = 0x10,
  PGP_SIG_CERT_POSITIVE = 0x13,
  PGP_SIG_SUBKEY_BINDING = 0x18,
  PGP_SIG_PRIMARY_BINDING = 0x19,
  PGP_SIG_DIRECT_KEY = 0x1f,
  PGP_SIG_KEY_REVOCATION = 0x20,
  PGP_SIG_SUBKEY_REVOCATION = 0x28,
  PGP_SIG_CERT_REVOCATION = 0x30,
};

// Key flags (RFC 9580 §5.2.3.29, first octet).
#define PGP_KF_CERTIFY 0x01u
#define PGP_KF_SIGN 0x02u
#define PGP_KF_ENCRYPT_COMMS 0x04u
#define PGP_KF_ENCRYPT_STORAGE 0x08u

// pgp_sig is a parsed signature with the hashed subpackets that key
// validity needs.
typedef struct pgp_sig {
  uint8_t version; // 4 or 6
  uint8_t type;
  uint8_t pk_algo;
  uint8_t hash_algo;
  const uint8_t *hashed_part; // version octet through the hashed subpackets
  size_t hashed_part_len;
  uint8_t left16[2];
  const uint8_t *salt; // v6 only
  size_t salt_len;
  const uint8_t *material; // algorithm-specific signature fields
  size_t material_len;

  uint32_t created;
  int has_created;
  uint32_t sig_expires; // seconds after creation; 0: never
  uint32_t key_expires; // seconds after key creation; 0: never
  uint8_t key_flags;
  int has_key_flags;
  uint8_t features;
  int has_features;
  int primary_uid;
  uint8_t pref_sym[PGP_MAX_PREFS];
  size_t num_pref_sym;
  uint8_t pref_aead[2 * PGP_MAX_PREFS];
  size_t num_pref_aead;
  int has_pref_sym, has_pref_aead;
  int unknown_critical;     // an unknown critical hashed subpacket: invalid
  uint8_t issuer_key_id[8]; // from either subpacket area; advisory
  int has_issuer_key_id;
  uint8_t issuer_fpr[32];
  size_t issuer_fpr_len;
  uint8_t revocation_reason; // 0 when absent
  const uint8_t *embedded;   // embedded signature (the back-signature)
  size_t embedded_len;
} pgp_sig;

// pgp_sig_parse reads a Signature packet body. It returns 0, MC_ERR_UNSUPPORTED
// for a version other than 4 and 6, or MC_ERR_BAD_SIGNATURE when malformed.
int pgp_sig_parse(pgp_sig *out, const uint8_t *body, size_t body_len);

// pgp_sig_verify checks `sig` made by `signer` over the key and user-ID data
// its type covers (RFC 9580 §5.2.4): `primary` always; `subkey` for binding
// and subkey revocation signatures; `uid` (`uid_len` bytes, from a packet of
// type `uid_tag`) for certifications. It also rejects signatures with an
// unknown critical subpacket, without a creation time, with a hash of
// fewer bits than the algorithm demands, or of another version than the
// signer's key. It returns 0 for a valid signature, MC_ERR_BAD_SIGNATURE, or
// MC_ERR_UNSUPPORTED for an algorithm it cannot check, or -ENOMEM.
int pgp_sig_verify(const pgp_sig *sig, const pgp_key *signer, const pgp_key *primary,
                   const pgp_key *subkey, const uint8_t *uid, size_t uid_len, uint8_t uid_tag);

// Certificates.

// pgp_uid is one User ID or User Attribute packet and what its verified
// self-certifications say.
typedef struct pgp_uid {
  const uint8_t *data;
  size_t len;
  uint8_t tag;   // PGP_TAG_USER_ID or PGP_TAG_USER_ATTRIBUTE
  int certified; // a verified self-certification exists, valid at `now`
  int revoked;
  pgp_sig sig; // the newest verified self-certification
} pgp_uid;

// pgp_subkey is one subkey and what its verified bindings say.
typedef struct pgp_subkey {
  pgp_key key;
  int bound; // a verified binding signature valid at `now`
  int revoked;
  pgp_sig sig; // the newest verified binding signature
  int64_t expires;
  int has_flags;
  uint8_t flags;
  int valid; // bound, unrevoked, unexpired, of a valid primary key
  int recipient;
} pgp_subkey;

struct mc_pgp_cert {
  pgp_key primary;
  pgp_uid *uids;
  size_t num_uids;
  pgp_subkey *subkeys;
  size_t num_subkeys;
  int64_t now;
  int revoked;
  int certified; // a verified direct-key signature or self-certification
  int64_t expires;
  int has_flags;
  uint8_t flags;
  int primary_recipient; // the primary key itself is selected
  size_t primary_uid;    // index in uids, or SIZE_MAX
  size_t *valid_uids;    // indexes of certified, unrevoked user IDs
  size_t num_valid_uids;
  size_t bad_signatures;  // signatures by the primary key that failed
  size_t weak_signatures; // trusted signatures over SHA-1
  size_t skipped_packets;
  pgp_recipient *recipients;
  size_t num_recipients;
  uint8_t features;
  uint8_t pref_sym[PGP_MAX_PREFS];
  size_t num_pref_sym;
  uint8_t pref_aead[2 * PGP_MAX_PREFS];
  size_t num_pref_aead;
};

struct mc_pgp_certs {
  uint8_t *data; // the binary packets all certificates point into
  size_t data_len;
  mc_pgp_cert *certs;
  size_t num_certs;
};

// pgp_cert_recipients points `*out` at the encryption subkeys of `cert`
// selected at parse time (see mc_pgp_cert_num_recipients) and returns their
// number, newest first. The array lives as long as the mc_pgp_certs that
// holds `cert`.
size_t pgp_cert_recipients(const mc_pgp_cert *cert, const pgp_recipient **out);

#endif // MC_PGP_INTERNAL_H
