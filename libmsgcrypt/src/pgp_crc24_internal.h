// pgp_crc24_internal.h: the CRC-24 of OpenPGP's ASCII armor (RFC 9580 §6.1:
// generator 0x864CFB, initial value 0xB704CE, most significant bit first,
// no final XOR); private, never installed. The armor writer (pgp_write.c)
// and reader (pgp_armor.c) both go through mc_pgp_crc24_update, which runs
// the implementation table's kernel (impl_internal.h): slice-by-8 tables in
// the scalar entry, carry-less multiplication on x86-64.
#ifndef MC_PGP_CRC24_INTERNAL_H
#define MC_PGP_CRC24_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

// MC_PGP_CRC24_INIT is the register before the first byte.
#define MC_PGP_CRC24_INIT 0xb704ceu

// mc_pgp_crc24_update returns the CRC-24 register after feeding the
// `in_len` bytes at `in` (NULL when `in_len` is 0) into the register `crc`
// (24 bits; MC_PGP_CRC24_INIT to start). Streaming: the CRC of a || b is
// update(update(INIT, a), b). Thread-safe; allocates nothing.
uint32_t mc_pgp_crc24_update(uint32_t crc, const uint8_t *in, size_t in_len);

// The kernels behind it, with the same contract: the specification, byte
// at a time through table 0 (for the tests), the scalar table's slice-by-8,
// and the x86-64 carry-less multiplication kernel (src/x86/crc24_clmul.c,
// in the "avx2" and "adxsha" entries).
uint32_t mc_pgp_crc24_bytewise(uint32_t crc, const uint8_t *in, size_t in_len);
uint32_t mc_pgp_crc24_scalar(uint32_t crc, const uint8_t *in, size_t in_len);
uint32_t mc_pgp_crc24_clmul(uint32_t crc, const uint8_t *in, size_t in_len);

// mc_pgp_crc24_table[k][b] is the 32-bit register (CRC in its top 24 bits)
// after byte b followed by k zero bytes, from a zero register
// (pgp_crc24_table.c).
extern const uint32_t mc_pgp_crc24_table[8][256];

#endif // MC_PGP_CRC24_INTERNAL_H
