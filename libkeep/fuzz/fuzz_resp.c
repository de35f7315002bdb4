// fuzz_resp.c: libFuzzer harness for the RESP back end's reply parser, which
// reads what a Redis or Valkey server sends. It parses arbitrary bytes as a
// stream of replies and checks, for every reply that parses, that it claims
// no more bytes than it was given, that the same bytes alone parse to the
// same length, and that every shorter prefix asks for more bytes instead of
// parsing differently: the parser must not depend on how reads split a
// reply.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "keep_resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t pos = 0;
  while (pos < size) {
    size_t used = 0;
    int rc = keep_resp_parse_check(data + pos, size - pos, &used);
    if (rc != 1) {
      FUZZ_CHECK(rc == 0 || rc == KEEP_ERR_PROTOCOL || rc == KEEP_ERR_TOO_LARGE);
      break;
    }
    FUZZ_CHECK(used >= 3 && used <= size - pos); // at least a type and CRLF
    // A copy of exactly the reply, so that any read past it is caught.
    uint8_t *copy = malloc(used);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data + pos, used);
    size_t again = 0;
    FUZZ_CHECK(keep_resp_parse_check(copy, used, &again) == 1 && again == used);
    // Prefixes: a few lengths, so that long replies stay cheap.
    size_t step = used / 16 + 1;
    for (size_t n = 0; n < used; n += step) {
      size_t u = 0;
      FUZZ_CHECK(keep_resp_parse_check(copy, n, &u) == 0);
    }
    FUZZ_CHECK(keep_resp_parse_check(copy, used - 1, &again) == 0);
    free(copy);
    pos += used;
  }
  return 0;
}
