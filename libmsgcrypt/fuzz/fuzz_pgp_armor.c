// fuzz_pgp_armor.c: ASCII armor (pgp_armor.c) on any text. Decoding never
// fails with anything but MC_ERR_BAD_KEY; when it finds blocks, armoring
// their data again (with and without CRC-24) and decoding that gives back
// the same bytes in one block. The input taken as binary data also makes
// that round trip.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_internal.h"

static void round_trip(const uint8_t *data, size_t size, int with_crc) {
  pgp_buf armored, back;
  pgp_buf_init_growable(&armored);
  pgp_buf_init_growable(&back);
  pgp_armor_encode(&armored, "PUBLIC KEY BLOCK", data, size, with_crc);
  size_t off;
  if (armored.err != 0 ||
      pgp_armor_decode(&back, &off, armored.p, armored.len, "PUBLIC KEY BLOCK", 76) != 1 ||
      back.len != size || (size > 0 && memcmp(back.p, data, size) != 0))
    abort();
  pgp_buf_cleanup(&armored);
  pgp_buf_cleanup(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pgp_buf out;
  pgp_buf_init_growable(&out);
  size_t off = 0;
  int r = pgp_armor_decode(&out, &off, data, size, "PUBLIC KEY BLOCK", 1024);
  if (r < 0 && (r != MC_ERR_BAD_KEY || off > size))
    abort();
  if (r > 0) {
    round_trip(out.p, out.len, 1);
    round_trip(out.p, out.len, 0);
  }
  pgp_buf_cleanup(&out);
  if (size < 4096)
    round_trip(data, size, size & 1);
  (void)pgp_armor_looks_armored(data, size);
  return 0;
}
