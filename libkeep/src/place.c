// place.c: rendezvous placement of slots on cluster members. Every slot
// belongs to the live member with the highest keyed score, SipHash-2-4 under
// the cluster secret of the slot and the member id; clients and servers
// compute the same owner from the same member list, secret and live set, and
// when a member dies only its own slots move (each to the member that ranked
// second for it).
#include "keep_internal.h"

uint64_t keep_member_score(const uint8_t secret[KEEP_SECRET_LEN], uint32_t slot, uint16_t id) {
  uint8_t in[4];
  keep_put_le(in, 2, slot);
  keep_put_le(in + 2, 2, id);
  return keep_siphash24(secret, in, sizeof in);
}

int keep_slot_owner(const uint8_t *secret, uint32_t slot, const uint16_t *ids, size_t num_ids,
                    uint64_t alive_mask) {
  static const uint8_t zero[KEEP_SECRET_LEN];
  if (ids == NULL || num_ids == 0 || num_ids > KEEP_MAX_MEMBERS || slot >= KEEP_NUM_SLOTS)
    return KEEP_ERR_INVALID_ARGUMENT;
  int best = KEEP_ERR_INVALID_ARGUMENT;
  uint64_t best_score = 0;
  for (size_t i = 0; i < num_ids; i++) {
    if (!(alive_mask >> i & 1))
      continue;
    uint64_t sc = keep_member_score(secret ? secret : zero, slot, ids[i]);
    // Equal scores are all but impossible; the lower id wins them so that
    // every party still agrees.
    if (best < 0 || sc > best_score || (sc == best_score && ids[i] < ids[best])) {
      best = (int)i;
      best_score = sc;
    }
  }
  return best;
}
