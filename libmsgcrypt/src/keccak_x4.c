// keccak_x4.c: four SHAKE sponges driven together over the table's
// four-way Keccak-f[1600] (impl_internal.h), for samplers that hash many
// short seeds of equal length. Inputs are shorter than one block, so
// absorbing is one padded block per state; squeezing moves whole blocks. The
// scalar permutation here runs the single-state mc_keccak_f1600 four times.
// Nothing branches on the data, only on lengths.
#include <string.h>

#include "impl_internal.h"

void mc_keccak_f1600_x4_scalar(mc_keccak_x4 *st) {
  uint64_t one[25];
  for (unsigned j = 0; j < 4; j++) {
    for (unsigned i = 0; i < 25; i++)
      one[i] = st->s[4 * i + j];
    mc_keccak_f1600(one);
    for (unsigned i = 0; i < 25; i++)
      st->s[4 * i + j] = one[i];
  }
  mc_wipe(one, sizeof one);
}

void mc_shake_x4_absorb(mc_keccak_x4 *st, unsigned rate, const uint8_t *const in[4], size_t len) {
  uint8_t block[168];
  memset(st, 0, sizeof *st);
  for (unsigned j = 0; j < 4; j++) {
    memset(block, 0, rate);
    memcpy(block, in[j], len);
    // SHAKE's domain bits 1111 and pad10*1 (FIPS 202 §6.2 and §5.1).
    block[len] ^= 0x1f;
    block[rate - 1] ^= 0x80;
    for (unsigned i = 0; i < rate / 8; i++)
      st->s[4 * i + j] = mc_load_le64(block + 8 * i);
  }
  mc_wipe(block, sizeof block);
}

// store_lane writes lane `v` little-endian: one store on little-endian hosts.
static inline void store_lane(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, sizeof v);
#else
  mc_store_le64(p, v);
#endif
}

void mc_shake_x4_squeeze_blocks(mc_keccak_x4 *st, unsigned rate, uint8_t *const out[4],
                                size_t num_blocks) {
  void (*permute)(mc_keccak_x4 *) = mc_impl_current()->keccak_f1600_x4;
  for (size_t b = 0; b < num_blocks; b++) {
    permute(st);
    for (unsigned i = 0; i < rate / 8; i++)
      for (unsigned j = 0; j < 4; j++)
        store_lane(out[j] + b * rate + 8 * i, st->s[4 * i + j]);
  }
}
