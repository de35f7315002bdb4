// x509_describe.c: what a person needs to know about an S/MIME
// certificate before encrypting to it: its names as RFC 4514 text, the key
// name, the one-line description ("S/MIME: RSA-3072"), the verdict names,
// and the warnings, which share their codes and names with the OpenPGP
// warnings (pgp_describe.c) so that a mail client shows one vocabulary.
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "x509_internal.h"

#define X509_SOON_SECONDS (14 * 86400)

typedef struct tbuf {
  char *p;
  size_t cap, len;
  int overflow;
} tbuf;

static void put(tbuf *b, const char *s, size_t n) {
  if (b->len + n >= b->cap) {
    b->overflow = 1;
    return;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void put_hex_byte(tbuf *b, const char *prefix, uint8_t x) {
  char t[8];
  int n = snprintf(t, sizeof t, "%s%02X", prefix, x);
  put(b, t, (size_t)n);
}

static const struct {
  uint8_t oid[3];
  const char *name;
} short_names[] = {
    {{0x55, 0x04, 0x03}, "CN"},     {{0x55, 0x04, 0x06}, "C"},
    {{0x55, 0x04, 0x07}, "L"},      {{0x55, 0x04, 0x08}, "ST"},
    {{0x55, 0x04, 0x0a}, "O"},      {{0x55, 0x04, 0x0b}, "OU"},
    {{0x55, 0x04, 0x09}, "STREET"}, {{0x55, 0x04, 0x05}, "SERIALNUMBER"},
    {{0x55, 0x04, 0x2a}, "GN"},     {{0x55, 0x04, 0x04}, "SN"},
};

static const uint8_t oid_email[9] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01};

// RFC 4514 §2.4 escaping of a UTF-8 value; bytes that are not valid UTF-8
// and control characters are written as \XX.
static void put_value(tbuf *b, const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = s[i];
    if (ch < 0x20 || ch == 0x7f) {
      put_hex_byte(b, "\\", ch);
      continue;
    }
    if (ch >= 0x80) {
      size_t need = (ch >= 0xc2 && ch <= 0xdf)   ? 1
                    : (ch >= 0xe0 && ch <= 0xef) ? 2
                    : (ch >= 0xf0 && ch <= 0xf4) ? 3
                                                 : 0;
      int ok = need > 0 && i + need < n;
      for (size_t k = 1; ok && k <= need; k++)
        ok = (s[i + k] & 0xc0) == 0x80;
      if (!ok) {
        put_hex_byte(b, "\\", ch);
        continue;
      }
      put(b, (const char *)s + i, need + 1);
      i += need;
      continue;
    }
    int esc = ch == '"' || ch == '+' || ch == ',' || ch == ';' || ch == '<' || ch == '>' ||
              ch == '\\' || (i == 0 && (ch == '#' || ch == ' ')) || (i == n - 1 && ch == ' ');
    if (esc)
      put(b, "\\", 1);
    put(b, (const char *)&ch, 1);
  }
}

// UCS-2 (BMPString) or UCS-4 (UniversalString) to UTF-8; 0 on bad input.
static int put_ucs(tbuf *b, const uint8_t *s, size_t n, size_t width) {
  if (n % width != 0)
    return 0;
  uint8_t tmp[4 * 256];
  size_t t = 0;
  for (size_t i = 0; i < n; i += width) {
    uint32_t cp = 0;
    for (size_t k = 0; k < width; k++)
      cp = (cp << 8) | s[i + k];
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
      return 0;
    if (t + 4 > sizeof tmp) {
      put_value(b, tmp, t);
      t = 0;
    }
    if (cp < 0x80) {
      tmp[t++] = (uint8_t)cp;
    } else if (cp < 0x800) {
      tmp[t++] = (uint8_t)(0xc0 | (cp >> 6));
      tmp[t++] = (uint8_t)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      tmp[t++] = (uint8_t)(0xe0 | (cp >> 12));
      tmp[t++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
      tmp[t++] = (uint8_t)(0x80 | (cp & 0x3f));
    } else {
      tmp[t++] = (uint8_t)(0xf0 | (cp >> 18));
      tmp[t++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
      tmp[t++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
      tmp[t++] = (uint8_t)(0x80 | (cp & 0x3f));
    }
  }
  put_value(b, tmp, t);
  return 1;
}

static int name_to_text(der_cur name, char *out, size_t out_cap, size_t *out_len) {
  der_cur rdns, list[64];
  size_t num = 0;
  if (out_cap == 0)
    return MC_ERR_BUFFER_TOO_SMALL;
  tbuf b = {out, out_cap, 0, 0};
  out[0] = '\0';
  if (!der_get(&name, DER_SEQUENCE, &rdns) || name.len != 0)
    return MC_ERR_BAD_KEY;
  while (rdns.len > 0) {
    if (num == 64 || !der_get(&rdns, DER_SET, &list[num]))
      return MC_ERR_BAD_KEY;
    num++;
  }
  // RFC 4514 §2.1: the last RDN of the sequence comes first.
  for (size_t r = num; r-- > 0;) {
    der_cur set = list[r], atvs[16];
    size_t num_atvs = 0;
    if (r != num - 1)
      put(&b, ",", 1);
    // The values of a multi-valued RDN come out in reverse too, as in
    // OpenSSL's RFC 2253 output (RFC 4514 §2.2 leaves their order free).
    while (set.len > 0) {
      if (num_atvs == 16 || !der_get(&set, DER_SEQUENCE, &atvs[num_atvs]))
        return MC_ERR_BAD_KEY;
      num_atvs++;
    }
    for (size_t k = num_atvs; k-- > 0;) {
      der_cur atv = atvs[k], oid, val, whole;
      unsigned tag;
      if (!der_get_oid(&atv, &oid) || !der_get_any(&atv, &tag, &val, &whole) || atv.len != 0)
        return MC_ERR_BAD_KEY;
      if (k != num_atvs - 1)
        put(&b, "+", 1);
      const char *sn = NULL;
      for (size_t i = 0; i < sizeof short_names / sizeof short_names[0]; i++)
        if (der_oid_eq(&oid, short_names[i].oid, 3))
          sn = short_names[i].name;
      if (sn == NULL && der_oid_eq(&oid, oid_email, sizeof oid_email))
        sn = "emailAddress";
      int textual = tag == DER_UTF8_STRING || tag == DER_PRINTABLE_STRING ||
                    tag == DER_IA5_STRING || tag == DER_T61_STRING || tag == DER_BMP_STRING ||
                    tag == DER_UNIVERSAL_STRING;
      if (sn != NULL) {
        put(&b, sn, strlen(sn));
      } else {
        char dotted[128];
        if (!der_oid_to_text(dotted, sizeof dotted, &oid))
          return MC_ERR_BAD_KEY;
        put(&b, dotted, strlen(dotted));
        textual = 0; // RFC 4514 §2.4: unknown types in hex
      }
      put(&b, "=", 1);
      if (textual && tag == DER_BMP_STRING) {
        if (!put_ucs(&b, val.p, val.len, 2))
          return MC_ERR_BAD_KEY;
      } else if (textual && tag == DER_UNIVERSAL_STRING) {
        if (!put_ucs(&b, val.p, val.len, 4))
          return MC_ERR_BAD_KEY;
      } else if (textual) {
        // TeletexString is in practice Latin-1 or ASCII; non-ASCII bytes
        // come out as \XX, which stays unambiguous.
        put_value(&b, val.p, val.len);
      } else {
        put(&b, "#", 1);
        for (size_t i = 0; i < whole.len; i++)
          put_hex_byte(&b, "", whole.p[i]);
      }
    }
  }
  if (b.overflow)
    return MC_ERR_BUFFER_TOO_SMALL;
  if (out_len != NULL)
    *out_len = b.len;
  return 0;
}

int mc_x509_cert_subject(const mc_x509_cert *cert, char *out, size_t out_cap, size_t *out_len) {
  return name_to_text(cert->subject, out, out_cap, out_len);
}

int mc_x509_cert_issuer(const mc_x509_cert *cert, char *out, size_t out_cap, size_t *out_len) {
  return name_to_text(cert->issuer, out, out_cap, out_len);
}

const char *mc_x509_cert_key_name(const mc_x509_cert *cert, unsigned *out_bits) {
  static const char *const rsa_names[] = {"RSA-1024", "RSA-2048", "RSA-3072", "RSA-4096",
                                          "RSA-8192"};
  static const unsigned rsa_sizes[] = {1024, 2048, 3072, 4096, 8192};
  const x509_key *k = &cert->key;
  if (out_bits != NULL)
    *out_bits = k->bits;
  switch (k->alg) {
  case X509_KEY_RSA:
    for (size_t i = 0; i < 5; i++)
      if (k->bits == rsa_sizes[i])
        return rsa_names[i];
    return "RSA";
  case X509_KEY_RSA_PSS:
    return "RSASSA-PSS";
  case X509_KEY_EC:
    return k->bits == 256 ? "EC P-256" : k->bits == 384 ? "EC P-384" : "EC P-521";
  case X509_KEY_X25519:
    return "X25519";
  case X509_KEY_X448:
    return "X448";
  case X509_KEY_ED25519:
    return "Ed25519";
  case X509_KEY_ED448:
    return "Ed448";
  case X509_KEY_MLKEM512:
    return "ML-KEM-512";
  case X509_KEY_MLKEM768:
    return "ML-KEM-768";
  case X509_KEY_MLKEM1024:
    return "ML-KEM-1024";
  case X509_KEY_MLDSA44:
    return "ML-DSA-44";
  case X509_KEY_MLDSA65:
    return "ML-DSA-65";
  case X509_KEY_MLDSA87:
    return "ML-DSA-87";
  case X509_KEY_UNKNOWN:
    break;
  }
  return "unknown key";
}

int mc_x509_cert_describe(const mc_x509_cert *cert, char *out, size_t out_cap, size_t *out_len) {
  char line[64];
  unsigned bits;
  const char *name = mc_x509_cert_key_name(cert, &bits);
  int n;
  if (strcmp(name, "RSA") == 0 || strcmp(name, "RSASSA-PSS") == 0)
    n = snprintf(line, sizeof line, "S/MIME: %s-%u", name, bits);
  else
    n = snprintf(line, sizeof line, "S/MIME: %s", name);
  if (n < 0 || (size_t)n >= out_cap)
    return MC_ERR_BUFFER_TOO_SMALL;
  memcpy(out, line, (size_t)n + 1);
  if (out_len != NULL)
    *out_len = (size_t)n;
  return 0;
}

const char *mc_x509_verdict_name(mc_x509_verdict v) {
  static const char *const names[] = {"ok",
                                      "untrusted",
                                      "self-signed",
                                      "bad-signature",
                                      "revoked",
                                      "expired",
                                      "not-yet-valid",
                                      "bad-ca",
                                      "path-too-long",
                                      "critical-extension",
                                      "wrong-key-usage",
                                      "unsupported-key"};
  if ((unsigned)v < sizeof names / sizeof names[0])
    return names[v];
  return "unknown";
}

const char *mc_x509_warn_name(int code) {
  switch (code) {
  case MC_X509_WARN_SELF_SIGNED:
    return "self-signed";
  case MC_X509_WARN_UNTRUSTED:
    return "untrusted-chain";
  case MC_X509_WARN_KEY_USAGE:
    return "wrong-key-usage";
  case MC_X509_WARN_NOT_YET_VALID:
    return "not-yet-valid";
  case MC_X509_WARN_NO_REVOCATION:
    return "no-revocation-info";
  default:
    return mc_pgp_warn_name((mc_pgp_warn_code)code);
  }
}

static void fmt_date(char *out, size_t cap, int64_t t) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (gmtime_r(&tt, &tm) == NULL || strftime(out, cap, "%Y-%m-%d", &tm) == 0)
    snprintf(out, cap, "%lld", (long long)t);
}

typedef struct wlist {
  mc_pgp_warning *out;
  size_t cap, n;
} wlist;

static void warn(wlist *w, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warn(wlist *w, int code, const char *fmt, ...) {
  if (w->n < w->cap) {
    va_list ap;
    mc_pgp_warning *x = &w->out[w->n];
    x->code = (mc_pgp_warn_code)code;
    x->name = mc_x509_warn_name(code);
    va_start(ap, fmt);
    vsnprintf(x->text, sizeof x->text, fmt, ap);
    va_end(ap);
  }
  w->n++;
}

static int ascii_ieq(const char *a, size_t a_len, const char *b) {
  size_t b_len = strlen(b);
  if (a_len != b_len)
    return 0;
  for (size_t i = 0; i < a_len; i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z')
      x = (char)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (char)(y + 32);
    if (x != y)
      return 0;
  }
  return 1;
}

int mc_x509_cert_warnings(const mc_x509_cert *cert, mc_pgp_warning *out, size_t out_cap,
                          size_t *out_len, const mc_x509_trust *trust,
                          const mc_x509_certs *intermediates, int64_t now,
                          const char *const *addresses, size_t num_addresses) {
  if (cert == NULL || out_len == NULL || (out == NULL && out_cap != 0) ||
      (addresses == NULL && num_addresses != 0))
    return MC_ERR_INVALID_ARGUMENT;
  wlist w = {out, out_cap, 0};
  char date[32];
  const char *key = mc_x509_cert_key_name(cert, NULL);
  mc_x509_result res;
  memset(&res, 0, sizeof res);
  if (trust != NULL) {
    int r = mc_x509_cert_verify(trust, &res, cert, intermediates, now);
    if (r != 0)
      return r;
  }
  if (now > cert->not_after) {
    fmt_date(date, sizeof date, cert->not_after);
    warn(&w, MC_PGP_WARN_EXPIRED, "the certificate expired on %s", date);
  } else if (cert->not_after - now <= X509_SOON_SECONDS) {
    fmt_date(date, sizeof date, cert->not_after);
    warn(&w, MC_PGP_WARN_EXPIRES_SOON, "the certificate expires on %s", date);
  }
  if (now < cert->not_before) {
    fmt_date(date, sizeof date, cert->not_before);
    warn(&w, MC_X509_WARN_NOT_YET_VALID, "the certificate is valid only from %s", date);
  }
  if (trust != NULL && (res.problems & (1u << MC_X509_REVOKED)))
    warn(&w, MC_PGP_WARN_REVOKED, "the certificate or one of its issuers is revoked by a CRL");
  if (cert->key.alg == X509_KEY_RSA && cert->key.bits < 3072)
    warn(&w, MC_PGP_WARN_RSA_SHORT, "the key is %s; 3072 bits or more are recommended", key);
  if ((cert->key.alg == X509_KEY_RSA && cert->key.bits < 2048) ||
      (cert->sigalg.hash == MC_HASH_SHA1 && cert->sigalg.kind != X509_SIG_UNKNOWN &&
       cert->sigalg.kind != X509_SIG_ED25519 && cert->sigalg.kind != X509_SIG_ED448) ||
      res.weak_signature)
    warn(&w, MC_PGP_WARN_WEAK_ALGORITHM, "%s",
         cert->key.alg == X509_KEY_RSA && cert->key.bits < 2048
             ? "the RSA key is shorter than 2048 bits"
             : "a signature on the certificate's path uses SHA-1");
  if (num_addresses > 0) {
    int match = 0;
    for (size_t i = 0; i < cert->num_addresses && !match; i++)
      for (size_t j = 0; j < num_addresses && !match; j++)
        match = addresses[j] != NULL &&
                ascii_ieq((const char *)cert->addresses[i].p, cert->addresses[i].len, addresses[j]);
    if (!match)
      warn(&w, MC_PGP_WARN_NO_ADDRESS, "the certificate holds none of the addresses asked for");
  }
  cms_recipient rcp;
  if (x509_cert_recipient(&rcp, cert) != 0)
    warn(&w, MC_PGP_WARN_NO_ENCRYPTION, "a %s key cannot receive encrypted mail", key);
  else if (cert->key.alg >= X509_KEY_MLKEM512 || cert->key.alg == X509_KEY_X25519 ||
           cert->key.alg == X509_KEY_X448)
    warn(&w, MC_PGP_WARN_LIMITED_SUPPORT, "few mail clients can decrypt to %s keys today", key);
  // The leaf's own permissions count with or without a trust store.
  unsigned ku_bad = 0;
  if (x509_cert_recipient(&rcp, cert) == 0) {
    unsigned need = (cert->key.alg == X509_KEY_RSA || cert->key.alg >= X509_KEY_MLKEM512)
                        ? MC_X509_KU_KEY_ENCIPHERMENT
                        : MC_X509_KU_KEY_AGREEMENT;
    if (cert->has_ku && !(cert->ku & need))
      ku_bad = 1;
    if (cert->has_eku && !(cert->eku & (MC_X509_EKU_EMAIL_PROTECTION | MC_X509_EKU_ANY)))
      ku_bad = 1;
  }
  if (ku_bad)
    warn(&w, MC_X509_WARN_KEY_USAGE, "key usage or extended key usage forbids mail encryption");
  if (trust != NULL) {
    if (res.problems & (1u << MC_X509_SELF_SIGNED))
      warn(&w, MC_X509_WARN_SELF_SIGNED, "the certificate is self-signed and not trusted");
    unsigned chain_bad = (1u << MC_X509_UNTRUSTED) | (1u << MC_X509_BAD_SIGNATURE) |
                         (1u << MC_X509_BAD_CA) | (1u << MC_X509_PATH_TOO_LONG) |
                         (1u << MC_X509_CRITICAL_EXT);
    if (res.chain_len > 1 &&
        (res.problems & ((1u << MC_X509_EXPIRED) | (1u << MC_X509_NOT_YET_VALID))) &&
        now <= cert->not_after && now >= cert->not_before)
      chain_bad |= (1u << MC_X509_EXPIRED) | (1u << MC_X509_NOT_YET_VALID);
    if (res.problems & chain_bad)
      warn(&w, MC_X509_WARN_UNTRUSTED, "no valid chain to a trusted root (%s)",
           mc_x509_verdict_name(x509_verdict_of(res.problems & chain_bad)));
    else if (!res.crl_checked && res.chain_len > 1)
      warn(&w, MC_X509_WARN_NO_REVOCATION, "no CRL covered the certificate's path");
  } else if (cert->self_signed) {
    warn(&w, MC_X509_WARN_SELF_SIGNED, "the certificate is self-signed");
  }
  *out_len = w.n;
  return w.n > out_cap ? MC_ERR_BUFFER_TOO_SMALL : 0;
}
