// x509_internal.h: private declarations of libmsgcrypt's S/MIME certificate
// code: the parsed certificate and CRL, the signature-algorithm and key
// descriptions shared by the parser (x509.c), path validation
// (x509_verify.c) and the descriptions (x509_describe.c), and the hand-off
// to the CMS engine (x509_cert_recipient). Never installed.
#ifndef MC_X509_INTERNAL_H
#define MC_X509_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cms_recipient.h"
#include "der_read.h"
#include "msgcrypt.h"

typedef enum x509_key_alg {
  X509_KEY_UNKNOWN = 0,
  X509_KEY_RSA,
  X509_KEY_RSA_PSS,
  X509_KEY_EC,
  X509_KEY_X25519,
  X509_KEY_X448,
  X509_KEY_ED25519,
  X509_KEY_ED448,
  X509_KEY_MLKEM512,
  X509_KEY_MLKEM768,
  X509_KEY_MLKEM1024,
  X509_KEY_MLDSA44,
  X509_KEY_MLDSA65,
  X509_KEY_MLDSA87,
} x509_key_alg;

typedef struct x509_key {
  x509_key_alg alg;
  unsigned bits; // RSA modulus bits, EC curve bits (256/384/521), ...
  der_cur rsa_n; // big-endian, no leading zeros
  der_cur rsa_e;
  der_cur pub; // EC point (uncompressed) or raw key bytes
} x509_key;

typedef enum x509_sig_kind {
  X509_SIG_UNKNOWN = 0,
  X509_SIG_RSA_PKCS1,
  X509_SIG_RSA_PSS,
  X509_SIG_ECDSA,
  X509_SIG_ED25519,
  X509_SIG_ED448,
} x509_sig_kind;

typedef struct x509_sigalg {
  x509_sig_kind kind;
  mc_hash_alg hash; // RSA and ECDSA
  mc_hash_alg mgf1_hash;
  uint32_t salt_len;
} x509_sigalg;

struct mc_x509_cert {
  der_cur der, tbs, sig;
  x509_sigalg sigalg;
  unsigned version; // 1-3
  der_cur serial;
  der_cur issuer, subject; // whole Name encodings (tag and length included)
  int64_t not_before, not_after;
  x509_key key;
  uint8_t fpr256[32];
  uint8_t fpr1[20];
  int has_ku;
  unsigned ku;
  int has_eku;
  unsigned eku;
  int is_ca;
  int has_path_len;
  uint32_t path_len;
  der_cur ski, aki; // key identifier bytes; len 0 when absent
  int unknown_critical;
  int self_signed; // subject == issuer and own signature verifies
  size_t num_addresses;
  der_cur *addresses; // each into `der`
};

struct mc_x509_certs {
  uint8_t *buf; // the decoded DER every cert points into
  size_t buf_len;
  mc_x509_cert *certs;
  size_t count;
};

// A resolved set of limits (no zero fields).
typedef struct x509_limits {
  size_t max_input_len, max_certs, max_der_depth, max_extensions, max_addresses, max_chain_len,
      max_signature_checks, max_rsa_bits;
} x509_limits;

// x509_limits_resolve fills `*out` from `s` (may be NULL); 0 or
// MC_ERR_INVALID_ARGUMENT for a bad version.
int x509_limits_resolve(x509_limits *out, const mc_x509_settings *s);

typedef struct x509_crl {
  uint8_t *buf;
  der_cur tbs, sig;
  x509_sigalg sigalg;
  der_cur issuer;
  int64_t this_update, next_update;
  der_cur revoked; // contents of revokedCertificates (may be empty)
} x509_crl;

struct mc_x509_trust {
  x509_limits lim;
  mc_x509_certs **sets;
  size_t num_sets;
  size_t num_anchors;
  x509_crl *crls;
  size_t num_crls;
};

// x509_pem_or_der decodes `in`: PEM blocks whose label is one of `labels`
// (NULL-terminated) are Base64-decoded and concatenated into `*out` (a new
// buffer the caller frees); anything else is copied as DER. Returns 0,
// MC_ERR_BAD_KEY or -ENOMEM.
int x509_pem_or_der(uint8_t **out, size_t *out_len, const uint8_t *in, size_t in_len,
                    const char *const *labels);

// x509_sigalg_parse reads an AlgorithmIdentifier of a signature.
int x509_sigalg_parse(x509_sigalg *out, der_cur alg);

// x509_sig_verify checks `sig` over `msg` with `key` and `alg`: 0,
// MC_ERR_BAD_SIGNATURE, MC_ERR_UNSUPPORTED or -ENOMEM.
int x509_sig_verify(const x509_key *key, const x509_sigalg *alg, const uint8_t *msg, size_t msg_len,
                    const uint8_t *sig, size_t sig_len, size_t max_rsa_bits);

// x509_name_eq compares two Name encodings byte for byte (RFC 5280 §7.1's
// simple comparison; the DER of both sides is what CAs copy).
int x509_name_eq(der_cur a, der_cur b);

// x509_cert_recipient turns a parsed certificate into the CMS engine's
// recipient (cms_recipient.h); the pointers borrow from `cert`. It returns
// 0, or MC_ERR_UNSUPPORTED for a key CMS cannot encrypt to. It does not
// validate: callers run mc_x509_cert_verify first.
int x509_cert_recipient(cms_recipient *out, const mc_x509_cert *cert);

// x509_verdict_of picks the most serious verdict of a problems mask.
mc_x509_verdict x509_verdict_of(unsigned problems);

// x509_crl_parse parses a CRL's DER (which `crl->buf` owns on success).
int x509_crl_parse(x509_crl *crl, mc_x509_diag *diag, const uint8_t *der, size_t der_len,
                   const x509_limits *lim);

#endif // MC_X509_INTERNAL_H
