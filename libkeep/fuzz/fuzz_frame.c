// fuzz_frame.c: libFuzzer harness for the keep/1 frame decoder. It decodes
// arbitrary bytes as a pipelined stream and checks, for every frame that
// decodes, that encoding it again gives back exactly the bytes it came from,
// and that the decoder never claims more bytes than it was given.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "keep_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static keep_frame f;
  static uint8_t out[KEEP_MAX_BODY + KEEP_HEADER_LEN];
  // The first byte picks a value limit, so the lowered limits get covered.
  size_t max_value = 0;
  if (size > 0) {
    max_value = data[0] < 128 ? 0 : (size_t)(data[0] - 127) * 64;
    data++;
    size--;
  }
  size_t pos = 0;
  while (pos < size) {
    size_t used = 0;
    int rc = keep_frame_decode(&f, &used, data + pos, size - pos, max_value);
    if (rc != 1) {
      FUZZ_CHECK(rc == 0 || rc == KEEP_ERR_PROTOCOL || rc == KEEP_ERR_TOO_LARGE);
      break;
    }
    FUZZ_CHECK(used >= KEEP_HEADER_LEN && used <= size - pos);
    size_t len = 0;
    FUZZ_CHECK(keep_frame_encoded_len(&f) == used);
    FUZZ_CHECK(keep_frame_encode(out, sizeof out, &len, &f) == 0);
    FUZZ_CHECK(len == used && memcmp(out, data + pos, used) == 0);
    pos += used;
  }
  return 0;
}
