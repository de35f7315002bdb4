// fuzz_pgp_key.c: certificate import (mc_pgp_certs_parse) on any bytes, at
// a time taken from the input. Either it fails with a documented code and a
// NUL-terminated message, or every certificate it returns is consistent:
// fingerprint lengths fit the key version, the recipients handed to the
// encryption engine are exactly the keys marked as recipients (post-quantum
// ones only when there are any), user IDs lie inside the set, and the
// description and warnings are produced within their documented bounds.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"
#include "pgp_internal.h"

static void check_cert(const mc_pgp_cert *cert) {
  int v = mc_pgp_cert_version(cert);
  size_t fl;
  const uint8_t *fpr = mc_pgp_cert_fingerprint(cert, &fl);
  if ((v != 4 && v != 6) || fl != (v == 4 ? 20u : 32u) || fpr == NULL)
    abort();
  char hex[MC_PGP_FPR_HEX_LEN];
  if (mc_pgp_cert_fingerprint_hex(cert, hex, sizeof hex) != 0 || strlen(hex) != 2 * fl)
    abort();
  for (size_t i = 0; i < mc_pgp_cert_num_user_ids(cert); i++) {
    size_t n;
    if (mc_pgp_cert_user_id(cert, i, &n) == NULL)
      abort();
  }
  const pgp_recipient *rc;
  size_t nr = pgp_cert_recipients(cert, &rc);
  if (nr != mc_pgp_cert_num_recipients(cert))
    abort();
  size_t marked = 0;
  int pq = 0;
  for (size_t i = 0; i < mc_pgp_cert_num_keys(cert); i++) {
    mc_pgp_key_info ki;
    if (mc_pgp_cert_key_info(cert, i, &ki) != 0)
      abort();
    if (!ki.recipient)
      continue;
    marked++;
    if (!ki.valid || ki.revoked || ki.unusable != NULL)
      abort();
    pq |= ki.algorithm == PGP_PK_MLKEM768_X25519 || ki.algorithm == PGP_PK_MLKEM1024_X448;
    int found = 0;
    for (size_t j = 0; j < nr; j++)
      found |= rc[j].fpr_len == ki.fingerprint_len &&
               memcmp(rc[j].fpr, ki.fingerprint, ki.fingerprint_len) == 0;
    if (!found)
      abort();
  }
  if (marked != nr)
    abort();
  for (size_t j = 0; j < nr; j++) {
    int is_pq = rc[j].algo == PGP_PK_MLKEM768_X25519 || rc[j].algo == PGP_PK_MLKEM1024_X448;
    if (pq && !is_pq)
      abort();
    if (is_pq && (rc[j].mlkem_pub == NULL || rc[j].ecc_pub == NULL))
      abort();
  }
  char desc[512];
  size_t desc_len;
  if (mc_pgp_cert_describe(cert, desc, sizeof desc, &desc_len) != 0 || strlen(desc) != desc_len ||
      strncmp(desc, "OpenPGP v", 9) != 0)
    abort();
  mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
  size_t nw;
  const char *addr[1] = {"a@example.org"};
  if (mc_pgp_cert_warnings(cert, w, MC_PGP_MAX_WARNINGS, &nw, addr, 1) != 0)
    abort();
  for (size_t i = 0; i < nw; i++)
    if (strcmp(w[i].name, mc_pgp_warn_name(w[i].code)) != 0 || memchr(w[i].text, 0, 200) == NULL)
      abort();
  int no_enc = 0;
  for (size_t i = 0; i < nw; i++)
    no_enc |= w[i].code == MC_PGP_WARN_NO_ENCRYPTION;
  if ((nr == 0) != no_enc)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  // The first byte picks "now": before, during or long after the samples.
  static const int64_t times[4] = {0, 1700000000, 1767225600, 4000000000};
  int64_t now = times[data[0] & 3];
  mc_pgp_settings s = MC_PGP_SETTINGS_INIT;
  if (data[0] & 4)
    s.max_packets = 16;
  mc_pgp_certs *certs = NULL;
  mc_pgp_diag diag;
  int r = mc_pgp_certs_parse(&certs, &s, &diag, data + 1, size - 1, now);
  if (r != 0) {
    if ((r != MC_ERR_BAD_KEY && r != MC_ERR_UNSUPPORTED && r != -ENOMEM) || certs != NULL ||
        memchr(diag.message, 0, sizeof diag.message) == NULL || diag.message[0] == 0)
      abort();
    return 0;
  }
  if (mc_pgp_certs_count(certs) == 0)
    abort();
  for (size_t i = 0; i < mc_pgp_certs_count(certs); i++)
    check_cert(mc_pgp_certs_get(certs, i));
  mc_pgp_certs_free(certs);
  return 0;
}
