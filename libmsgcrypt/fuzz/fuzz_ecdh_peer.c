// fuzz_ecdh_peer.c: the recipient's public point that ECDH parses (SEC 1,
// compressed or uncompressed, on P-256/384/521). Whatever the bytes, the call
// either refuses them as a bad key or computes a secret; an accepted point
// gives the same secret twice and in its other encoding; the ephemeral public
// point never depends on the peer's.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msgcrypt.h"

enum { MAX_FIELD = 66, MAX_POINT = 1 + 2 * MAX_FIELD };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  static const mc_ec_curve curves[] = {MC_EC_P256, MC_EC_P384, MC_EC_P521};
  mc_ec_curve curve = curves[data[0] % 3];
  const uint8_t *peer = data + 1;
  size_t peer_len = size - 1;
  size_t field_len = mc_ec_field_len(curve), point_len = mc_ec_point_len(curve);

  // A fixed, valid ephemeral scalar (7) keeps the run deterministic.
  uint8_t scalar[MAX_FIELD] = {0};
  scalar[field_len - 1] = 7;
  uint8_t pub[MAX_POINT], shared[MAX_FIELD], pub2[MAX_POINT], shared2[MAX_FIELD];
  int rc = mc_ecdh_ephemeral_derand(curve, pub, sizeof pub, shared, sizeof shared, scalar,
                                    field_len, peer, peer_len);
  if (rc == MC_ERR_BAD_KEY)
    return 0;
  if (rc != 0)
    abort(); // no other outcome is documented for these arguments
  int rc2 = mc_ecdh_ephemeral_derand(curve, pub2, sizeof pub2, shared2, sizeof shared2, scalar,
                                     field_len, peer, peer_len);
  if (rc2 != 0 || memcmp(pub, pub2, point_len) != 0 || memcmp(shared, shared2, field_len) != 0)
    abort();
  if (pub[0] != 0x04)
    abort();

  // The same point in the other SEC 1 form must give the same secret.
  uint8_t other[MAX_POINT];
  size_t other_len;
  if (peer_len == point_len && peer[0] == 0x04) {
    other[0] = (uint8_t)(0x02 | (peer[point_len - 1] & 1));
    memcpy(other + 1, peer + 1, field_len);
    other_len = 1 + field_len;
  } else if (peer_len == 1 + field_len && (peer[0] == 0x02 || peer[0] == 0x03)) {
    return 0; // decompressing needs a square root; the other direction covers it
  } else {
    abort(); // an accepted point has one of the two lengths
  }
  rc2 = mc_ecdh_ephemeral_derand(curve, pub2, sizeof pub2, shared2, sizeof shared2, scalar,
                                 field_len, other, other_len);
  if (rc2 != 0 || memcmp(shared, shared2, field_len) != 0)
    abort();
  return 0;
}
