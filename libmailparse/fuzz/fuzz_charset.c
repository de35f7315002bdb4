// fuzz_charset.c: charset conversion of any bytes in any charset, checking
// mp_charset_to_utf8()'s promises: it succeeds with a buffer of
// mp_charset_utf8_max_len() bytes, the output is valid UTF-8 within that
// bound, the same input gives the same output (by name and by id), a buffer
// of exactly the output's length is enough, one byte less fails without
// touching the buffer, text labelled UTF-8 decodes as mp_utf8_decode_one()
// does character by character (valid UTF-8 comes out unchanged), the
// name's lookup agrees with the general lookup (mp_charset_lookup_general),
// a charset that goes to iconv gives what iconv alone gives (its single-
// and double-byte tables checked against decode_iconv), and every kernel's
// block loop of the single-byte table decoder gives what the portable loop
// gives.
// Input: a selector byte, then the charset name (selector >= 0x80: the next
// selector & 0x3f bytes) or an alias from the table (selector < 0x80), then
// the text.
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "charset_internal.h"
#include "core_internal.h"
#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  data++;
  size--;
  const char *name;
  size_t name_len;
  if (sel >= 0x80) {
    name_len = sel & 0x3f;
    if (name_len > size)
      name_len = size;
    name = (const char *)data;
    data += name_len;
    size -= name_len;
  } else {
    int id;
    name = mp_charset_alias_get(sel % mp_charset_alias_count(), &id);
    name_len = strlen(name);
  }
  // The lookup's first step (common spellings) gives what the general
  // lookup gives.
  FUZZ_CHECK(mp_charset_lookup(name, name_len) == mp_charset_lookup_general(name, name_len));
  size_t cap = mp_charset_utf8_max_len(size);
  char *out = malloc(cap), *again = malloc(cap + 1);
  FUZZ_CHECK(out != NULL && again != NULL);
  size_t len, len2;
  unsigned flags, flags2;
  FUZZ_CHECK(mp_charset_to_utf8(out, cap, &len, &flags, name, name_len, data, size) == 0);
  FUZZ_CHECK(len <= cap);
  FUZZ_CHECK(corvid_utf8_valid((const uint8_t *)out, len));
  FUZZ_CHECK((flags & ~(MP_CHARSET_REPLACED | MP_CHARSET_UNKNOWN)) == 0);
  // By id, into a buffer of exactly the output's length (the measuring path).
  int id = mp_charset_lookup(name, name_len);
  FUZZ_CHECK(mp_charset_to_utf8_id(again, len, &len2, &flags2, id, data, size) == 0);
  FUZZ_CHECK(len2 == len && flags2 == flags && memcmp(again, out, len) == 0);
  FUZZ_CHECK((id == MP_CHARSET_ID_UNKNOWN) == ((flags & MP_CHARSET_UNKNOWN) != 0) ||
             id != MP_CHARSET_ID_UNKNOWN);
  if (len > 0) {
    memset(again, 0x5a, len);
    len2 = 1;
    FUZZ_CHECK(mp_charset_to_utf8(again, len - 1, &len2, &flags2, name, name_len, data, size) ==
               MP_ERR_BUFFER_TOO_SMALL);
    FUZZ_CHECK(len2 == 0);
    for (size_t i = 0; i < len; i++)
      FUZZ_CHECK((uint8_t)again[i] == 0x5a);
  }
  // The tables against iconv itself.
  size_t rl;
  unsigned rf;
  if (mp_charset_iconv_ref(again, cap, &rl, &rf, id, data, size) == 0) {
    // Printable ASCII in a charset that is ASCII there converts to itself
    // without iconv, so where iconv cannot open the charset (a C library
    // without its modules) it is not flagged unknown (mailparse.h).
    bool ascii_itself =
        (rf & MP_CHARSET_UNKNOWN) && flags == 0 && len == size && memcmp(out, data, size) == 0;
    FUZZ_CHECK(ascii_itself || (rl == len && rf == flags && memcmp(again, out, len) == 0));
  }
  // A single-byte table's decoding by every kernel with a block loop of its
  // own (x86/sbcs_avx512.h) against the portable loop, into blocks of
  // exactly the bound each may write.
  const struct mp_sbcs *t = mp_sbcs_table(id);
  bool sup;
  const mp_scanner *sc;
  for (size_t si = 0; t != NULL && (sc = mp_scanner_at(si, &sup)) != NULL; si++) {
    if (!sup || sc->sbcs_blocks == NULL)
      continue;
    uint8_t *ref = malloc(3 * size + 1), *got = malloc(3 * size + 1);
    FUZZ_CHECK(ref != NULL && got != NULL);
    unsigned ref_flags = 0, got_flags = 0;
    size_t ref_len = mp_sbcs_run_with(ref, &ref_flags, t, data, size, NULL);
    size_t got_len = mp_sbcs_run_with(got, &got_flags, t, data, size, sc);
    FUZZ_CHECK(ref_len == got_len && ref_flags == got_flags && memcmp(ref, got, ref_len) == 0);
    free(ref);
    free(got);
  }
  // Text labelled UTF-8 decodes as the specification says: a leading BOM
  // dropped, then mp_utf8_decode_one() character by character, each
  // ill-formed piece U+FFFD (the block decoder's masks against it).
  if (id == mp_charset_lookup("utf-8", 5)) {
    uint8_t *ref = malloc(cap);
    FUZZ_CHECK(ref != NULL);
    size_t i = size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0, b = 0;
    unsigned ref_flags = 0;
    while (i < size) {
      uint32_t cp;
      int bad = 0;
      size_t k = mp_utf8_decode_one(data + i, size - i, &cp, &bad);
      memcpy(ref + b, bad ? (const uint8_t *)"\xef\xbf\xbd" : data + i, bad ? 3 : k);
      b += bad ? 3 : k;
      ref_flags |= bad ? MP_CHARSET_REPLACED : 0;
      i += k;
    }
    FUZZ_CHECK(b == len && ref_flags == flags && memcmp(ref, out, len) == 0);
    free(ref);
  }
  // Valid UTF-8 labelled UTF-8 is kept as it is (but for a leading BOM).
  if (id == mp_charset_lookup("utf-8", 5) && corvid_utf8_valid(data, size) &&
      !(size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF))
    FUZZ_CHECK(flags == 0 && len == size && (size == 0 || memcmp(out, data, size) == 0));
  free(out);
  free(again);
  return 0;
}
