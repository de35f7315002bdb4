// charset_sbcs.c: byte-to-UTF-8 tables for the single-byte charsets that go
// through iconv (ISO-8859-x, KOI8, the windows-125x without combining
// marks, DOS and Mac code pages). Each table is read once out of glibc's own
// decoder, byte by byte, so the mapping stays glibc's; the converter then
// decodes such text by table lookup instead of a round trip through iconv
// and UCS-4 for every piece of every part.
#include <errno.h>
#include <iconv.h>
#include <string.h>

#include "charset_internal.h"

// one_byte converts byte `b` alone with `cd` (reset first) and reports its
// code point in *cp. Returns 1 for one character, 0 for a byte the charset
// does not map (EILSEQ), -1 for anything a single-byte table cannot hold: a
// byte that starts a longer sequence, a character held back to combine with
// the next one, or more than one character.
static int one_byte(iconv_t cd, uint8_t b, uint32_t *cp) {
  (void)iconv(cd, NULL, NULL, NULL, NULL);
  char in = (char)b, *ip = &in;
  uint8_t out[16];
  char *op = (char *)out;
  size_t il = 1, ol = sizeof out;
  size_t r = iconv(cd, &ip, &il, &op, &ol);
  if (r == (size_t)-1)
    return errno == EILSEQ && il == 1 && ol == sizeof out ? 0 : -1;
  // One character out before the flush, nothing from the flush: a decoder
  // that releases the byte's character only at the flush held it back.
  if (il != 0 || sizeof out - ol != 4)
    return -1;
  if (iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1 || sizeof out - ol != 4)
    return -1;
  *cp = (uint32_t)out[0] | (uint32_t)out[1] << 8 | (uint32_t)out[2] << 16 | (uint32_t)out[3] << 24;
  return 1;
}

bool mp_sbcs_build(struct mp_sbcs *t, const char *iconv_name) {
  memset(t, 0, sizeof *t);
  iconv_t cd = iconv_open("UCS-4LE", iconv_name);
  if (cd == (iconv_t)-1)
    return false;
  bool ok = true, ascii = true;
  for (unsigned b = 0; b < 256 && ok; b++) {
    uint32_t cp = 0;
    int r = one_byte(cd, (uint8_t)b, &cp);
    if (r < 0 || (r == 1 && (cp > 0xFFFF || (cp >= 0xD800 && cp <= 0xDFFF)))) {
      ok = false; // not a single-byte charset after all, or a code point
                  // outside the BMP, left to iconv (which checks it)
      break;
    }
    mp_sbcs_set(t, b, r == 1, cp);
    if (b < 0x80 && (r != 1 || cp != b))
      ascii = false;
  }
  iconv_close(cd);
  t->ascii = ascii;
  return ok;
}
