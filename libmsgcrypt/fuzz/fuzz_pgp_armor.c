// fuzz_pgp_armor.c: ASCII armor (pgp_armor.c) on any text. Decoding never
// fails with anything but MC_ERR_BAD_KEY; when it finds blocks, armoring
// their data again (with and without CRC-24) and decoding that gives back
// the same bytes in one block. The input taken as binary data also makes
// that round trip, through the key encoder and through the message
// writer (pgp_write.c, fed in pieces the input chooses), and its CRC-24
// is the same from every kernel (pgp_crc24.c and the implementation
// table's) as from the byte-at-a-time specification.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_encrypt_internal.h"
#include "pgp_internal.h"

static int buf_sink(void *opaque, const uint8_t *data, size_t len) {
  pgp_buf_put_bytes(opaque, data, len);
  return 0;
}

// writer_round_trip armors `data` with the streaming writer, in pieces
// whose sizes come from the data itself, and reads it back.
static void writer_round_trip(const uint8_t *data, size_t size) {
  int with_crc = size > 0 && (data[0] & 1);
  mc_pgp_armor *a = malloc(sizeof *a);
  pgp_buf text, back;
  if (a == NULL)
    return;
  pgp_buf_init_growable(&text);
  pgp_buf_init_growable(&back);
  mc_pgp_armor_init(a, with_crc, buf_sink, &text);
  uint32_t x = (uint32_t)size * 2654435761u;
  for (size_t pos = 0; pos < size;) {
    x = x * 1103515245u + 12345u;
    size_t n = (x >> 8) % (size > 8 && (data[size / 2] & 2) ? 7000 : 100);
    if (n > size - pos)
      n = size - pos;
    if (mc_pgp_armor_write(a, n > 0 ? data + pos : NULL, n) != 0)
      abort();
    pos += n;
  }
  size_t off;
  if (mc_pgp_armor_finish(a) != 0 || text.err != 0 ||
      text.len != mc_pgp_armor_len(size, with_crc) ||
      pgp_armor_decode(&back, &off, text.p, text.len, "MESSAGE", 76) != 1 || back.len != size ||
      (size > 0 && memcmp(back.p, data, size) != 0))
    abort();
  pgp_buf_cleanup(&text);
  pgp_buf_cleanup(&back);
  free(a);
}

static void crc_kernels(const uint8_t *data, size_t size) {
  uint32_t want = mc_pgp_crc24_bytewise(MC_PGP_CRC24_INIT, data, size);
  if (mc_pgp_crc24_scalar(MC_PGP_CRC24_INIT, data, size) != want ||
      mc_pgp_crc24_update(MC_PGP_CRC24_INIT, data, size) != want)
    abort();
}

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
  writer_round_trip(data, size);
  crc_kernels(data, size);
  (void)pgp_armor_looks_armored(data, size);
  return 0;
}
