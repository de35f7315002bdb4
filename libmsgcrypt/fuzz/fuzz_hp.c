// fuzz_hp.c: any bytes as the message mc_hp_protect splits, in the three
// policies (hcp_no_confidentiality, hcp_shy, hcp_baseline). Properties: the
// call returns 0, MC_ERR_INVALID_ARGUMENT or MC_ERR_UNSUPPORTED (never a
// buffer error with mc_hp_max_len-sized buffers), and MC_ERR_UNSUPPORTED
// in every mode or none; both outputs fit the bound; if the input's header
// lines are all within 998 octets, so are both outputs' header lines; the
// outer header section read by libmailparse has no Content-* or
// MIME-Version field, no Comments or Keywords outside at-rest, and its
// Subject is "[...]" outside at-rest; the Cryptographic Payload read by
// libmailparse has at least one HP-Outer field per outer field, a
// Content-Type that ends with the hp parameter, which appears once, and in
// at-rest mode no added hp-legacy-display marker.
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

// header_max_line returns the longest line, without its break, of the
// header section at the start of `s` (up to the first empty line).
static size_t header_max_line(const uint8_t *s, size_t len, size_t *header_len) {
  size_t best = 0, pos = 0;
  while (pos < len) {
    const uint8_t *lf = memchr(s + pos, '\n', len - pos);
    size_t end = lf == NULL ? len : (size_t)(lf - s);
    size_t n = end - pos;
    if (n > 0 && s[end - 1] == '\r')
      n--;
    if (n == 0)
      break;
    best = n > best ? n : best;
    pos = end + 1;
  }
  if (header_len != NULL)
    *header_len = pos < len ? pos : len;
  return best;
}

static size_t count_str(const uint8_t *s, size_t len, const char *needle) {
  size_t n = strlen(needle), count = 0;
  for (size_t i = 0; i + n <= len; i++)
    count += memcmp(s + i, needle, n) == 0;
  return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t cap = mc_hp_max_len(size);
  uint8_t *outer = malloc(cap + 2), *inner = malloc(cap);
  FUZZ_CHECK(outer != NULL && inner != NULL);
  int short_lines = header_max_line(data, size, NULL) <= 998;
  int unsupported = -1;
  for (uint32_t mode = MC_HP_AT_REST; mode <= MC_HP_BASELINE; mode++) {
    size_t ol = 0, il = 0;
    int ret = mc_hp_protect(outer, cap, &ol, inner, cap, &il, mode, data, size);
    FUZZ_CHECK(ret == 0 || ret == MC_ERR_INVALID_ARGUMENT || ret == MC_ERR_UNSUPPORTED);
    // An existing hp parameter is refused whatever the mode.
    if (unsupported < 0)
      unsupported = ret == MC_ERR_UNSUPPORTED;
    FUZZ_CHECK(unsupported == (ret == MC_ERR_UNSUPPORTED));
    if (ret != 0) {
      FUZZ_CHECK(ol == 0 && il == 0);
      continue;
    }
    FUZZ_CHECK(ol <= cap && il <= cap);
    size_t inner_header = 0;
    FUZZ_CHECK(header_max_line(outer, ol, NULL) <= 998 || !short_lines);
    FUZZ_CHECK(header_max_line(inner, il, &inner_header) <= 998 || !short_lines);
    // At rest nothing is hidden, so no marker is added (the input's own,
    // copied into protected and HP-Outer fields, may appear three times).
    if (mode == MC_HP_AT_REST)
      FUZZ_CHECK(count_str(inner, il, "hp-legacy-display=\"1\"") <=
                 3 * count_str(data, size, "hp-legacy-display=\"1\""));
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
        if (mode != MC_HP_AT_REST && name_is(d, h, "Subject"))
          FUZZ_CHECK(h->value.len >= 5 &&
                     memcmp(d + h->value.off + h->value.len - 5, "[...]", 5) == 0);
        if (mode != MC_HP_AT_REST)
          FUZZ_CHECK(!name_is(d, h, "Comments") && !name_is(d, h, "Keywords"));
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
        FUZZ_CHECK(count_str(d + h->value.off, end - h->value.off, "hp=") == 1 ||
                   count_str(data, size, "hp=") > 0);
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
