// heartbeat.c: the codec of keepd's cluster heartbeat datagrams
// (docs/keep-protocol.md, "Cluster"): it lays out the fields, seals the
// datagram with HMAC-SHA256 under the cluster's heartbeat key, and opens a
// received one: length and MAC first, in constant time, then the fields
// through the bounded cursor. What a heartbeat means is cluster.c's job.
#include <errno.h>
#include <string.h>

#include <openssl/digest.h>
#include <openssl/hmac.h>
#include <openssl/mem.h>

#include "keepd_cluster.h"

#define HB_MAGIC 0x3142484bu // "KHB1" little-endian
#define HB_FIXED 32u

size_t keepd_hb_len(unsigned n) {
  return HB_FIXED + 16u * n + KEEPD_HB_MAC_LEN;
}

int keepd_hb_seal(uint8_t *out, size_t out_cap, size_t *out_len,
                  const uint8_t key[KEEPD_HB_KEY_LEN], const struct keepd_hb *hb) {
  if (hb->n == 0 || hb->n > KEEP_MAX_MEMBERS)
    return -EINVAL;
  size_t len = keepd_hb_len(hb->n);
  if (out_cap < len)
    return -ENOBUFS;
  keep_put_le(out, 4, HB_MAGIC);
  keep_put_le(out + 4, 2, hb->id);
  out[6] = hb->flags;
  out[7] = hb->n;
  keep_put_le(out + 8, 8, hb->inc);
  keep_put_le(out + 16, 8, hb->ctr);
  keep_put_le(out + 24, 8, hb->live);
  for (unsigned j = 0; j < hb->n; j++) {
    keep_put_le(out + HB_FIXED + 16 * j, 8, hb->echo_inc[j]);
    keep_put_le(out + HB_FIXED + 16 * j + 8, 8, hb->echo_ctr[j]);
  }
  unsigned mac_len;
  if (HMAC(EVP_sha256(), key, KEEPD_HB_KEY_LEN, out, len - KEEPD_HB_MAC_LEN,
           out + len - KEEPD_HB_MAC_LEN, &mac_len) == NULL)
    return -EINVAL;
  *out_len = len;
  return 0;
}

int keepd_hb_open(struct keepd_hb *out, const uint8_t key[KEEPD_HB_KEY_LEN], const uint8_t *in,
                  size_t in_len, unsigned n) {
  uint8_t mac[KEEPD_HB_MAC_LEN];
  unsigned mac_len;
  if (n == 0 || n > KEEP_MAX_MEMBERS || in_len != keepd_hb_len(n) ||
      HMAC(EVP_sha256(), key, KEEPD_HB_KEY_LEN, in, in_len - KEEPD_HB_MAC_LEN, mac, &mac_len) ==
          NULL ||
      CRYPTO_memcmp(mac, in + in_len - KEEPD_HB_MAC_LEN, KEEPD_HB_MAC_LEN) != 0)
    return -EBADMSG;
  struct keep_cur c = {in, in_len - KEEPD_HB_MAC_LEN};
  uint64_t magic, id;
  memset(out, 0, sizeof *out);
  if (!keep_cur_get_le(&c, 4, &magic) || magic != HB_MAGIC || !keep_cur_get_le(&c, 2, &id) ||
      !keep_cur_get_u8(&c, &out->flags) || !keep_cur_get_u8(&c, &out->n) || out->n != n ||
      !keep_cur_get_le(&c, 8, &out->inc) || !keep_cur_get_le(&c, 8, &out->ctr) ||
      !keep_cur_get_le(&c, 8, &out->live))
    return -EBADMSG;
  out->id = (uint16_t)id;
  for (unsigned j = 0; j < n; j++)
    if (!keep_cur_get_le(&c, 8, &out->echo_inc[j]) || !keep_cur_get_le(&c, 8, &out->echo_ctr[j]))
      return -EBADMSG;
  return c.len == 0 ? 0 : -EBADMSG;
}
