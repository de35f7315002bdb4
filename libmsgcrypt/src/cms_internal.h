// cms_internal.h: private declarations of libmsgcrypt's CMS encryption
// engine (cms_encrypt.c, cms_recipient_info.c): the object identifiers it
// writes, one recipient's key-encryption step, and entry points that take
// their randomness from the caller so that tests reproduce published
// examples byte for byte. Never installed.
#ifndef MC_CMS_INTERNAL_H
#define MC_CMS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cms_recipient.h"
#include "der_write.h"
#include "msgcrypt.h"

// OBJECT IDENTIFIER contents (without tag and length).
extern const uint8_t cms_oid_data[9];            // 1.2.840.113549.1.7.1
extern const uint8_t cms_oid_enveloped_data[9];  // 1.2.840.113549.1.7.3
extern const uint8_t cms_oid_auth_enveloped[11]; // 1.2.840.113549.1.9.16.1.23
extern const uint8_t cms_oid_aes128_gcm[9];      // 2.16.840.1.101.3.4.1.6
extern const uint8_t cms_oid_aes256_cbc[9];      // 2.16.840.1.101.3.4.1.42
extern const uint8_t cms_oid_aes256_gcm[9];      // 2.16.840.1.101.3.4.1.46

// cms_params is one encryption after the options were resolved.
typedef struct cms_params {
  uint32_t content; // MC_SMIME_CONTENT_AES256_CBC or _GCM (never AUTO)
  uint32_t rsa;
  uint32_t rid;
  uint32_t gcm_tag;
  uint32_t ec_params;
  uint32_t protect_headers; // MC_HP_*; only the MIME builder accepts a mode
  size_t cek_len;           // 32; 16 only for tests reproducing AES-128 examples
} cms_params;

// cms_kem_fixed replaces an ML-KEM encapsulation for tests: its ciphertext
// and shared secret (a published example's values).
typedef struct cms_kem_fixed {
  const uint8_t *ct;
  size_t ct_len;
  const uint8_t *ss;
} cms_kem_fixed;

// cms_derand carries a test's choices instead of random ones; NULL fields
// (or a NULL cms_derand) mean random. `kem` has one entry per recipient
// (entries for non-ML-KEM recipients are ignored).
typedef struct cms_derand {
  const uint8_t *cek; // cek_len bytes
  const uint8_t *iv;  // 16 bytes for CBC, 12 for GCM
  const cms_kem_fixed *kem;
} cms_derand;

// cms_ri_max_len bounds the encoding of the RecipientInfo for `r`.
size_t cms_ri_max_len(const cms_recipient *r);

// cms_ri_write writes one RecipientInfo (KTRI or ori/KEMRI) for `r` that
// carries the content-encryption key `cek` (`cek_len` bytes). `kem` may be
// NULL. It returns 0, or MC_ERR_* / -ENOMEM (a write error of `w` is left
// in `w` for the caller).
int cms_ri_write(dw *w, const cms_recipient *r, const cms_params *p, const uint8_t *cek,
                 size_t cek_len, const cms_kem_fixed *kem);

// cms_kemri_kek derives the key-encryption key of a KEMRecipientInfo
// (RFC 9629 §5): HKDF-SHA256 with an empty salt over the KEM shared secret
// `ss`, info = DER CMSORIforKEMOtherInfo { wrap = `wrap_oid` (AES wrap,
// parameters absent), kekLength = `kek_len` } (no ukm). The DER of the info
// is also written to `info_out` (room for 64 bytes) when not NULL, with its
// length in `*info_len`. It returns 0 or MC_ERR_INVALID_ARGUMENT.
int cms_kemri_kek(uint8_t *kek, size_t kek_len, uint8_t *info_out, size_t *info_len,
                  const uint8_t *wrap_oid, size_t wrap_oid_len,
                  const uint8_t ss[MC_MLKEM_SHARED_SECRET_LEN]);

// cms_encrypt_recipients is mc_smime_encrypt over resolved recipients and
// parameters, writing to `w` (fixed or growable); `d` may be NULL.
int cms_encrypt_recipients(dw *w, const cms_recipient *rs, size_t num, const cms_params *p,
                           const cms_derand *d, const uint8_t *in, size_t in_len);

// cms_encrypt_max_len bounds cms_encrypt_recipients's output; SIZE_MAX on
// overflow.
size_t cms_encrypt_max_len(const cms_recipient *rs, size_t num, size_t in_len);

// cms_params_resolve turns options (NULL: defaults) into parameters for
// `num` recipients: AUTO choices as the public header documents. It
// returns 0 or MC_ERR_INVALID_ARGUMENT.
int cms_params_resolve(cms_params *p, const mc_smime_encrypt_options *o, const cms_recipient *rs,
                       size_t num);

// cms_recipients_of resolves `num` certificates into a new array (free()
// it) of recipients that borrow from them. It returns 0,
// MC_ERR_INVALID_ARGUMENT, MC_ERR_UNSUPPORTED or -ENOMEM.
int cms_recipients_of(cms_recipient **out, const mc_x509_cert *const *certs, size_t num);

// cms_mime_encrypt is mc_smime_mime_encrypt over resolved recipients.
int cms_mime_encrypt(const cms_recipient *rs, size_t num, const mc_smime_encrypt_options *o,
                     const uint8_t *in, size_t in_len, mc_smime_write_fn write, void *opaque);

#endif // MC_CMS_INTERNAL_H
