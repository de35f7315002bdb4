// fuzz_pgp_packet.c: OpenPGP packet framing (pgp_packet_next) and MPIs on
// any bytes. Every packet found lies inside the input, in order, with its
// header (1 to 6 bytes) and body covering exactly what the cursor consumed; a failure
// leaves the cursor where it was; writing a found packet again with
// pgp_buf_put_header and reading it back gives the same type and body; and
// every MPI read from a body lies inside that body.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pgp_cur c;
  pgp_cur_init(&c, data, size);
  size_t limit = size > 0 ? data[0] * 64u : 0;
  for (;;) {
    pgp_cur before = c;
    pgp_packet p;
    int r = pgp_packet_next(&c, &p, limit == 0 ? SIZE_MAX : limit);
    if (r == 0) {
      if (c.len != 0)
        abort();
      break;
    }
    if (r < 0) {
      if (r != MC_ERR_BAD_KEY || c.p != before.p || c.len != before.len)
        abort();
      break;
    }
    if (p.tag == 0 || p.tag > 63 || p.body < before.p || p.body + p.body_len != c.p ||
        before.len - c.len < p.body_len + 1 || before.len - c.len > p.body_len + 6 ||
        (limit != 0 && p.body_len > limit))
      abort();

    // Round trip through the writer.
    pgp_buf b;
    pgp_buf_init_growable(&b);
    pgp_buf_put_header(&b, p.tag, p.body_len);
    pgp_buf_put_bytes(&b, p.body, p.body_len);
    if (b.err != 0)
      abort();
    pgp_cur rc;
    pgp_cur_init(&rc, b.p, b.len);
    pgp_packet q;
    if (pgp_packet_next(&rc, &q, SIZE_MAX) != 1 || q.tag != p.tag || q.body_len != p.body_len ||
        memcmp(q.body, p.body, p.body_len) != 0 || rc.len != 0)
      abort();
    pgp_buf_cleanup(&b);

    // MPIs inside the body.
    pgp_cur m;
    pgp_cur_init(&m, p.body, p.body_len);
    const uint8_t *v;
    size_t v_len, bits;
    while (pgp_cur_get_mpi(&m, &v, &v_len, &bits)) {
      if (v < p.body || v + v_len > p.body + p.body_len || v_len > (bits + 7) / 8 ||
          (v_len > 0 && v[0] == 0))
        abort();
    }
  }
  return 0;
}
