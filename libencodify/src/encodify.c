// encodify.c: libencodify's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "encodify.h"

#include "corvid_errtext.h"

unsigned enc_version(void) {
  return ENC_VERSION_NUMBER;
}

const char *enc_strerror(int code) {
  // Own codes count down from ENC_ERR_INVALID_ARGUMENT; anything else is generic.
  static const char *const own[] = {
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_INVALID_ARGUMENT] = "invalid argument",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_UNSUPPORTED] =
          "operation not supported by the selected implementation",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_BUFFER_TOO_SMALL] = "output buffer too small",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_INVALID_CHAR] = "invalid character in the input",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_BAD_PADDING] = "missing, misplaced or excess padding",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_TRAILING_BITS] =
          "non-zero bits after the last encoded byte",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_TRUNCATED] = "input ends inside an encoded unit",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_NON_CANONICAL] = "non-canonical encoding",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_INVALID_UTF8] = "invalid UTF-8",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_INVALID_UTF16] =
          "invalid UTF-16 in a modified UTF-7 shift sequence",
  };
  long index = (long)ENC_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *enc_version_string(void) {
  return ENC_VERSION_STRING;
}
