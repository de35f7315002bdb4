// pgp_describe.c: what a person needs to know about an OpenPGP certificate
// before encrypting to it: the one-line description of its algorithms, the
// per-key facts (mc_pgp_cert_key_info) and the warnings with their stable
// codes and sentences (expiry, revocation, short RSA, address mismatch,
// formats few clients read, no usable encryption subkey, weak or
// unsupported algorithms, signatures that failed).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pgp_internal.h"

#define PGP_SOON_SECONDS (14 * 86400)

static int pgp_is_pq(uint8_t algo) {
  return algo == PGP_PK_MLKEM768_X25519 || algo == PGP_PK_MLKEM1024_X448;
}

int mc_pgp_cert_describe(const mc_pgp_cert *cert, char *out, size_t out_cap, size_t *out_len) {
  char line[512];
  size_t n = (size_t)snprintf(line, sizeof line, "OpenPGP v%u: %s", cert->primary.version,
                              cert->primary.name);
  size_t subs = 0;
  for (size_t i = 0; i < cert->num_subkeys; i++)
    if (cert->subkeys[i].recipient)
      subs++;
  if (subs > 0) {
    n += (size_t)snprintf(line + n, sizeof line - n, " (encryption subkey%s ", subs > 1 ? "s" : "");
    size_t k = 0;
    for (size_t i = 0; i < cert->num_subkeys && n < sizeof line; i++)
      if (cert->subkeys[i].recipient)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", k++ ? ", " : "",
                              cert->subkeys[i].key.name);
    if (n < sizeof line)
      n += (size_t)snprintf(line + n, sizeof line - n, ")");
  } else if (!cert->primary_recipient && n < sizeof line) {
    n += (size_t)snprintf(line + n, sizeof line - n, " (no usable encryption key)");
  }
  if (n >= sizeof line)
    n = sizeof line - 1;
  *out_len = n;
  if (out == NULL || out_cap < n + 1)
    return MC_ERR_BUFFER_TOO_SMALL;
  memcpy(out, line, n + 1);
  return 0;
}

const char *mc_pgp_warn_name(mc_pgp_warn_code code) {
  switch (code) {
  case MC_PGP_WARN_EXPIRES_SOON:
    return "expires-soon";
  case MC_PGP_WARN_EXPIRED:
    return "expired";
  case MC_PGP_WARN_REVOKED:
    return "revoked";
  case MC_PGP_WARN_RSA_SHORT:
    return "rsa-short";
  case MC_PGP_WARN_NO_ADDRESS:
    return "no-address-match";
  case MC_PGP_WARN_LIMITED_SUPPORT:
    return "limited-support";
  case MC_PGP_WARN_NO_ENCRYPTION:
    return "no-encryption-key";
  case MC_PGP_WARN_WEAK_ALGORITHM:
    return "weak-algorithm";
  case MC_PGP_WARN_UNSUPPORTED:
    return "unsupported-algorithm";
  case MC_PGP_WARN_BAD_SIGNATURE:
    return "bad-signature";
  }
  return "unknown";
}

struct pgp_warnings {
  mc_pgp_warning *out;
  size_t cap, len;
};

static void pgp_warn(struct pgp_warnings *w, mc_pgp_warn_code code, const char *fmt, ...) {
  if (w->len < w->cap) {
    mc_pgp_warning *x = &w->out[w->len];
    x->code = code;
    x->name = mc_pgp_warn_name(code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->text, sizeof x->text, fmt, ap);
    va_end(ap);
  }
  w->len++;
}

static void pgp_date(char out[32], int64_t t) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (gmtime_r(&tt, &tm) == NULL || strftime(out, 32, "%Y-%m-%d", &tm) == 0)
    snprintf(out, 32, "%lld", (long long)t);
}

static int pgp_ascii_lower(int ch) {
  return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

static int pgp_ascii_caseeq(const uint8_t *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (pgp_ascii_lower(a[i]) != pgp_ascii_lower((unsigned char)b[i]))
      return 0;
  return 1;
}

// pgp_uid_has_address: the user ID is the address, or holds it in <...>.
static int pgp_uid_has_address(const uint8_t *uid, size_t uid_len, const char *addr) {
  size_t n = strlen(addr);
  if (n == 0)
    return 0;
  if (uid_len == n && pgp_ascii_caseeq(uid, addr, n))
    return 1;
  for (size_t i = 0; i + n + 2 <= uid_len; i++)
    if (uid[i] == '<' && uid[i + n + 1] == '>' && pgp_ascii_caseeq(uid + i + 1, addr, n))
      return 1;
  return 0;
}

int mc_pgp_cert_warnings(const mc_pgp_cert *cert, mc_pgp_warning *out, size_t out_cap,
                         size_t *out_len, const char *const *addresses, size_t num_addresses) {
  if (cert == NULL || out_len == NULL || (out == NULL && out_cap > 0) ||
      (addresses == NULL && num_addresses > 0))
    return MC_ERR_INVALID_ARGUMENT;
  struct pgp_warnings w = {out, out_cap, 0};
  int64_t now = cert->now;
  char date[32];

  if (cert->revoked)
    pgp_warn(&w, MC_PGP_WARN_REVOKED, "The key was revoked by its owner and must not be used.");

  // The date that ends encryption: the primary key's expiry, or the latest
  // expiry of the selected subkeys, whichever comes first.
  int64_t sub_exp = 0;
  int sub_never = cert->primary_recipient;
  for (size_t i = 0; i < cert->num_subkeys; i++) {
    const pgp_subkey *k = &cert->subkeys[i];
    if (!k->recipient)
      continue;
    if (k->expires == 0)
      sub_never = 1;
    else if (k->expires > sub_exp)
      sub_exp = k->expires;
  }
  int64_t end = cert->expires;
  if (!sub_never && sub_exp != 0 && (end == 0 || sub_exp < end))
    end = sub_exp;
  if (cert->expires != 0 && now >= cert->expires) {
    pgp_date(date, cert->expires);
    pgp_warn(&w, MC_PGP_WARN_EXPIRED, "The key expired on %s.", date);
  } else if (end != 0 && end - now <= PGP_SOON_SECONDS && end > now) {
    pgp_date(date, end);
    pgp_warn(&w, MC_PGP_WARN_EXPIRES_SOON, "The key expires on %s, in %lld days.", date,
             (long long)((end - now + 86399) / 86400));
  } else if (cert->num_recipients == 0 && !cert->revoked) {
    // Perhaps only the encryption subkeys have expired.
    int64_t last = 0;
    for (size_t i = 0; i < cert->num_subkeys; i++) {
      const pgp_subkey *k = &cert->subkeys[i];
      if (k->bound && !k->revoked && k->expires != 0 && k->expires <= now &&
          pgp_key_can_encrypt(&k->key) && k->expires > last)
        last = k->expires;
    }
    if (last != 0) {
      pgp_date(date, last);
      pgp_warn(&w, MC_PGP_WARN_EXPIRED, "The key's encryption subkey expired on %s.", date);
    }
  }

  // Short RSA in any key that is used: the primary key signs, the selected
  // subkeys receive.
  const pgp_key *rsa_short = NULL;
  if (cert->primary.algo <= PGP_PK_RSA_SIGN_ONLY && cert->primary.bits < 3072)
    rsa_short = &cert->primary;
  for (size_t i = 0; i < cert->num_subkeys && rsa_short == NULL; i++)
    if (cert->subkeys[i].recipient && cert->subkeys[i].key.algo <= PGP_PK_RSA_SIGN_ONLY &&
        cert->subkeys[i].key.bits < 3072)
      rsa_short = &cert->subkeys[i].key;
  if (rsa_short != NULL)
    pgp_warn(&w, MC_PGP_WARN_RSA_SHORT,
             "The key uses %s; RSA keys shorter than 3072 bits are no longer recommended.",
             rsa_short->name);

  if (num_addresses > 0) {
    int match = 0;
    for (size_t i = 0; i < cert->num_valid_uids && !match; i++) {
      const pgp_uid *u = &cert->uids[cert->valid_uids[i]];
      for (size_t j = 0; j < num_addresses && !match; j++)
        match = addresses[j] != NULL && pgp_uid_has_address(u->data, u->len, addresses[j]);
    }
    if (!match)
      pgp_warn(&w, MC_PGP_WARN_NO_ADDRESS, "No valid user ID of the key matches %s%s.",
               addresses[0] ? addresses[0] : "",
               num_addresses > 1 ? " or the other given addresses" : "");
  }

  if (cert->num_recipients > 0) {
    int pq = 0, native = 0;
    for (size_t i = 0; i < cert->num_recipients; i++) {
      pq |= pgp_is_pq(cert->recipients[i].algo);
      native |=
          cert->recipients[i].algo == PGP_PK_X25519 || cert->recipients[i].algo == PGP_PK_X448;
    }
    if (cert->primary.version == 6 || pq || native)
      pgp_warn(&w, MC_PGP_WARN_LIMITED_SUPPORT,
               "Only few mail clients can decrypt for this key: it needs %s, which Thunderbird "
               "and GnuPG 2.2 cannot read.",
               cert->primary.version == 6
                   ? (pq ? "a v6 key with post-quantum (ML-KEM) encryption" : "a v6 key (RFC 9580)")
               : pq ? "post-quantum (ML-KEM) encryption"
                    : "RFC 9580 X25519/X448 encryption keys");
  }

  const pgp_key *unusable = cert->primary.unusable != NULL ? &cert->primary : NULL;
  for (size_t i = 0; i < cert->num_subkeys && unusable == NULL; i++)
    if (cert->subkeys[i].key.unusable != NULL)
      unusable = &cert->subkeys[i].key;

  if (cert->num_recipients == 0) {
    const char *why;
    if (cert->revoked)
      why = "the key is revoked";
    else if (cert->expires != 0 && now >= cert->expires)
      why = "the key has expired";
    else if (cert->primary.unusable != NULL)
      why = cert->primary.unusable;
    else if (!cert->certified)
      why = "no self-signature of the primary key verifies";
    else
      why = "no valid subkey is flagged for encryption with a supported algorithm";
    pgp_warn(&w, MC_PGP_WARN_NO_ENCRYPTION, "The key has no usable encryption subkey: %s.", why);
  }

  int weak_key = 0;
  const char *weak_name = NULL;
  for (size_t i = 0; i <= cert->num_subkeys; i++) {
    const pgp_key *k = i == 0 ? &cert->primary : &cert->subkeys[i - 1].key;
    if ((k->algo <= PGP_PK_RSA_SIGN_ONLY && k->bits < 2048) || k->algo == PGP_PK_ELGAMAL ||
        k->algo == PGP_PK_ELGAMAL_SIGN || k->algo == PGP_PK_DSA) {
      weak_key = 1;
      weak_name = k->name;
      break;
    }
  }
  if (weak_key)
    pgp_warn(&w, MC_PGP_WARN_WEAK_ALGORITHM, "The key contains %s, a weak or obsolete algorithm.",
             weak_name);
  else if (cert->weak_signatures > 0)
    pgp_warn(&w, MC_PGP_WARN_WEAK_ALGORITHM,
             "%zu of the key's self-signatures use SHA-1, which is obsolete.",
             cert->weak_signatures);

  if (unusable != NULL)
    pgp_warn(&w, MC_PGP_WARN_UNSUPPORTED, "The %s %s cannot be used: %s.",
             unusable == &cert->primary ? "primary key" : "subkey", unusable->name,
             unusable->unusable);

  if (cert->bad_signatures > 0)
    pgp_warn(&w, MC_PGP_WARN_BAD_SIGNATURE,
             "%zu signature%s on the key did not verify and %s ignored.", cert->bad_signatures,
             cert->bad_signatures > 1 ? "s" : "", cert->bad_signatures > 1 ? "were" : "was");

  *out_len = w.len;
  return w.len > out_cap ? MC_ERR_BUFFER_TOO_SMALL : 0;
}

size_t mc_pgp_cert_num_keys(const mc_pgp_cert *cert) {
  return 1 + cert->num_subkeys;
}

int mc_pgp_cert_key_info(const mc_pgp_cert *cert, size_t i, mc_pgp_key_info *out) {
  if (cert == NULL || out == NULL || i > cert->num_subkeys)
    return MC_ERR_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  const pgp_key *k = i == 0 ? &cert->primary : &cert->subkeys[i - 1].key;
  out->version = k->version;
  out->algorithm = k->algo;
  out->bits = k->bits;
  out->name = k->name;
  out->unusable = k->unusable;
  memcpy(out->fingerprint, k->fpr, k->fpr_len);
  out->fingerprint_len = k->fpr_len;
  out->created = k->created;
  if (i == 0) {
    out->expires = cert->expires;
    out->flags = cert->flags;
    out->revoked = cert->revoked;
    out->valid =
        cert->certified && !cert->revoked && (cert->expires == 0 || cert->now < cert->expires);
    out->recipient = cert->primary_recipient;
  } else {
    const pgp_subkey *s = &cert->subkeys[i - 1];
    out->expires = s->expires;
    out->flags = s->flags;
    out->revoked = s->revoked;
    out->valid = s->valid;
    out->recipient = s->recipient;
  }
  return 0;
}

unsigned mc_pgp_cert_features(const mc_pgp_cert *cert) {
  return cert->features;
}

size_t mc_pgp_cert_pref_symmetric(const mc_pgp_cert *cert, const uint8_t **out) {
  *out = cert->num_pref_sym > 0 ? cert->pref_sym : NULL;
  return cert->num_pref_sym;
}

size_t mc_pgp_cert_pref_aead(const mc_pgp_cert *cert, const uint8_t **out) {
  *out = cert->num_pref_aead > 0 ? cert->pref_aead : NULL;
  return cert->num_pref_aead;
}
