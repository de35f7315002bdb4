// pgp_crc24.c: the CRC-24 of OpenPGP's ASCII armor (RFC 9580 §6.1) in
// portable C, and the dispatch to the implementation table's kernel. The
// register is kept in the top 24 bits of a 32-bit word so that a byte
// enters by XOR at the top and the tables of pgp_crc24_table.c advance it
// eight bytes at a time (slice-by-8), about eight times fewer dependent
// steps than the bit-by-bit definition the tests keep as the reference.
#include "pgp_crc24_internal.h"

#include "impl_internal.h"

// load_be32 reads four bytes as a big-endian word.
static inline uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t mc_pgp_crc24_bytewise(uint32_t crc, const uint8_t *in, size_t in_len) {
  uint32_t r = (crc & 0xffffffu) << 8;
  for (size_t i = 0; i < in_len; i++)
    r = (r << 8) ^ mc_pgp_crc24_table[0][(r >> 24) ^ in[i]];
  return r >> 8;
}

uint32_t mc_pgp_crc24_scalar(uint32_t crc, const uint8_t *in, size_t in_len) {
  const uint32_t(*t)[256] = mc_pgp_crc24_table;
  uint32_t r = (crc & 0xffffffu) << 8;
  size_t i = 0;
  for (; in_len - i >= 8; i += 8) {
    uint32_t a = load_be32(in + i) ^ r, b = load_be32(in + i + 4);
    r = t[7][a >> 24] ^ t[6][(a >> 16) & 0xff] ^ t[5][(a >> 8) & 0xff] ^ t[4][a & 0xff] ^
        t[3][b >> 24] ^ t[2][(b >> 16) & 0xff] ^ t[1][(b >> 8) & 0xff] ^ t[0][b & 0xff];
  }
  for (; i < in_len; i++)
    r = (r << 8) ^ t[0][(r >> 24) ^ in[i]];
  return r >> 8;
}

uint32_t mc_pgp_crc24_update(uint32_t crc, const uint8_t *in, size_t in_len) {
  if (in_len == 0)
    return crc & 0xffffffu;
  return mc_impl_current()->crc24(crc, in, in_len);
}
