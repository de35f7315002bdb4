// pgp_format.c: chooses the symmetric side of an OpenPGP message from what
// the recipients' keys announce (RFC 9580 §5.2.3.25 Features, §5.2.3.14 and
// §5.2.3.15 preferences; RFC 9980 §9.1 for post-quantum keys): SEIPDv2 only
// when every key supports it, OCB unless every key ranks GCM above it,
// AES-256 when every key accepts it and otherwise the strongest AES all of
// them accept (AES-128 being implicitly accepted by all), and always AES-256
// when any recipient is post-quantum.
#include <string.h>

#include "pgp_encrypt_internal.h"

size_t mc_pgp_sym_key_len(uint8_t sym) {
  switch (sym) {
  case MC_PGP_SYM_AES128:
    return 16;
  case MC_PGP_SYM_AES192:
    return 24;
  case MC_PGP_SYM_AES256:
    return 32;
  default:
    return 0;
  }
}

static int is_pq(const pgp_recipient *r) {
  return r->algo == PGP_PK_MLKEM768_X25519 || r->algo == PGP_PK_MLKEM1024_X448;
}

// accepts_sym says whether `r` lists `sym` for the format in question: the
// AEAD ciphersuites for SEIPDv2 (falling back to the plain list when a v2
// key lists no ciphersuites), the symmetric preferences for SEIPDv1.
static int accepts_sym(const pgp_recipient *r, uint8_t sym, int v2) {
  if (sym == MC_PGP_SYM_AES128)
    return 1;
  if (v2 && r->num_pref_aead > 0) {
    for (size_t i = 0; i < r->num_pref_aead && i < PGP_MAX_PREFS; i++)
      if (r->pref_aead[2 * i] == sym)
        return 1;
    return 0;
  }
  for (size_t i = 0; i < r->num_pref_sym && i < PGP_MAX_PREFS; i++)
    if (r->pref_sym[i] == sym)
      return 1;
  return 0;
}

// prefers_gcm says whether `r`'s AEAD ciphersuites name GCM before OCB.
static int prefers_gcm(const pgp_recipient *r) {
  for (size_t i = 0; i < r->num_pref_aead && i < PGP_MAX_PREFS; i++) {
    if (r->pref_aead[2 * i + 1] == MC_PGP_AEAD_OCB)
      return 0;
    if (r->pref_aead[2 * i + 1] == MC_PGP_AEAD_GCM)
      return 1;
  }
  return 0;
}

int mc_pgp_format_select(mc_pgp_format *out, const pgp_recipient *rcpts, size_t num_rcpts) {
  MC_FAIL_IF(out == NULL || rcpts == NULL || num_rcpts == 0, MC_ERR_INVALID_ARGUMENT);
  int v2 = 1, gcm = 1, pq = 0;
  for (size_t i = 0; i < num_rcpts; i++) {
    v2 &= (rcpts[i].features & PGP_FEATURE_SEIPDV2) != 0;
    gcm &= prefers_gcm(&rcpts[i]);
    pq |= is_pq(&rcpts[i]);
  }
  uint8_t sym = MC_PGP_SYM_AES128;
  if (pq) {
    sym = MC_PGP_SYM_AES256;
  } else {
    static const uint8_t strongest_first[] = {MC_PGP_SYM_AES256, MC_PGP_SYM_AES192};
    for (size_t s = 0; s < sizeof strongest_first && sym == MC_PGP_SYM_AES128; s++) {
      int all = 1;
      for (size_t i = 0; i < num_rcpts; i++)
        all &= accepts_sym(&rcpts[i], strongest_first[s], v2);
      if (all)
        sym = strongest_first[s];
    }
  }
  memset(out, 0, sizeof *out);
  out->seipd_version = v2 ? 2 : 1;
  out->sym = sym;
  if (v2) {
    out->aead = gcm ? MC_PGP_AEAD_GCM : MC_PGP_AEAD_OCB;
    out->chunk_octet = MC_PGP_DEFAULT_CHUNK_OCTET;
  }
  return 0;
}
