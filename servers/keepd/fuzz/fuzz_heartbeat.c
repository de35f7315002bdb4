// fuzz_heartbeat.c: libFuzzer harness for keepd's heartbeat codec. The first
// input byte picks the member count and the mode. Raw mode opens the rest
// as a received datagram: it must be refused unless it is a sealed
// heartbeat, and anything opened must seal back to the same bytes. Sealed
// mode treats the rest as a heartbeat body, appends the right MAC, and
// checks that opening accepts exactly the well-formed bodies, that their
// fields seal back to the input, and that flipping any one byte (the MAC
// included) makes the datagram fail to open.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/digest.h>
#include <openssl/hmac.h>

#include "corvid_fuzz.h"
#include "keepd_cluster.h"

static const uint8_t key[KEEPD_HB_KEY_LEN] = "fuzz heartbeat key, 32 bytes...";

static void check_roundtrip(const struct keepd_hb *hb, const uint8_t *pkt, size_t len) {
  uint8_t again[1024];
  size_t again_len;
  if (keepd_hb_seal(again, sizeof again, &again_len, key, hb) != 0 || again_len != len ||
      memcmp(again, pkt, len) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned n = (unsigned)(data[0] % KEEP_MAX_MEMBERS) + 1;
  bool sealed = data[0] & 0x80;
  data++;
  size--;
  struct keepd_hb hb;
  if (!sealed) {
    if (keepd_hb_open(&hb, key, data, size, n) == 0)
      check_roundtrip(&hb, data, size);
    return 0;
  }
  size_t len = keepd_hb_len(n);
  uint8_t pkt[1024];
  if (len > sizeof pkt)
    abort();
  memset(pkt, 0, len);
  memcpy(pkt, data, size < len - KEEPD_HB_MAC_LEN ? size : len - KEEPD_HB_MAC_LEN);
  unsigned mac_len;
  HMAC(EVP_sha256(), key, sizeof key, pkt, len - KEEPD_HB_MAC_LEN, pkt + len - KEEPD_HB_MAC_LEN,
       &mac_len);
  bool well_formed =
      pkt[0] == 'K' && pkt[1] == 'H' && pkt[2] == 'B' && pkt[3] == '1' && pkt[7] == n;
  int rc = keepd_hb_open(&hb, key, pkt, len, n);
  if ((rc == 0) != well_formed)
    abort();
  if (rc != 0)
    return 0;
  check_roundtrip(&hb, pkt, len);
  // Authentication: any single changed byte is refused.
  size_t at = (size_t)((size > 0 ? data[size - 1] : 0) * 7919u) % len;
  pkt[at] ^= 0x01;
  if (keepd_hb_open(&hb, key, pkt, len, n) == 0)
    abort();
  // A datagram for another list size never opens.
  if (keepd_hb_open(&hb, key, pkt, len, n % KEEP_MAX_MEMBERS + 1) == 0)
    abort();
  return 0;
}
