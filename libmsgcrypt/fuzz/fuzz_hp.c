// fuzz_hp.c: any bytes as the message mc_hp_protect splits, in both modes.
// Properties: the call returns 0 or MC_ERR_INVALID_ARGUMENT (never a
// buffer error with mc_hp_max_len-sized buffers); both outputs fit the
// bound; the outer header section read by libmailparse has no Content-*
// or MIME-Version field, and in gateway mode its only Subject is "[...]";
// the Cryptographic Payload read by libmailparse has exactly one HP-Outer
// field per outer field and a Content-Type that ends with the hp parameter.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "corvid_fuzz.h"
#include "mailparse.h"
#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_is(const uint8_t *d, const mp_header *h, const char *name) {
  size_t n = strlen(name);
  return h->name.len == n && strncasecmp((const char *)d + h->name.off, name, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t cap = mc_hp_max_len(size);
  uint8_t *outer = malloc(cap + 2), *inner = malloc(cap);
  FUZZ_CHECK(outer != NULL && inner != NULL);
  for (uint32_t mode = MC_HP_AT_REST; mode <= MC_HP_GATEWAY; mode++) {
    size_t ol = 0, il = 0;
    int ret = mc_hp_protect(outer, cap, &ol, inner, cap, &il, mode, data, size);
    FUZZ_CHECK(ret == 0 || ret == MC_ERR_INVALID_ARGUMENT);
    if (ret != 0) {
      FUZZ_CHECK(ol == 0 && il == 0);
      continue;
    }
    FUZZ_CHECK(ol <= cap && il <= cap);
    // The outer fields followed by an empty line form a header section.
    size_t num_outer = 0;
    if (ol > 0) {
      memcpy(outer + ol, "\n\n", 2);
      mp_message *m = NULL;
      FUZZ_CHECK(mp_message_parse(&m, NULL, outer, ol + 1, NULL) == 0);
      size_t dl = 0;
      const uint8_t *d = mp_message_data(m, &dl);
      const mp_part *root = mp_message_part(m, 0);
      num_outer = root->num_headers;
      for (uint32_t i = 0; i < root->num_headers; i++) {
        const mp_header *h = mp_message_header(m, root->first_header + i);
        FUZZ_CHECK(h->name.len < 8 || strncasecmp((const char *)d + h->name.off, "Content-", 8));
        FUZZ_CHECK(!name_is(d, h, "MIME-Version"));
        if (mode == MC_HP_GATEWAY && name_is(d, h, "Subject"))
          FUZZ_CHECK(h->value.len >= 5 &&
                     memcmp(d + h->value.off + h->value.len - 5, "[...]", 5) == 0);
      }
      mp_message_free(m);
    }
    mp_message *m = NULL;
    FUZZ_CHECK(mp_message_parse(&m, NULL, inner, il, NULL) == 0);
    size_t dl = 0;
    const uint8_t *d = mp_message_data(m, &dl);
    const mp_part *root = mp_message_part(m, 0);
    size_t num_hp_outer = 0, num_type = 0;
    for (uint32_t i = 0; i < root->num_headers; i++) {
      const mp_header *h = mp_message_header(m, root->first_header + i);
      num_hp_outer += name_is(d, h, "HP-Outer");
      if (name_is(d, h, "Content-Type") && num_type++ == 0) {
        size_t end = h->value.off + h->value.len;
        while (end > h->value.off && (d[end - 1] == '\r' || d[end - 1] == '\n'))
          end--;
        FUZZ_CHECK(end - h->value.off >= 11 && memcmp(d + end - 11, "hp=\"cipher\"", 11) == 0);
      }
    }
    FUZZ_CHECK(num_type >= 1);
    FUZZ_CHECK(num_hp_outer >= num_outer);
    mp_message_free(m);
  }
  free(outer);
  free(inner);
  return 0;
}
