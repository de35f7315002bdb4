// encodify.c: libencodify's version and error descriptions, the part of the
// library every other file and every user relies on.
#include "encodify.h"

#include "corvid_errtext.h"

unsigned enc_version(void) {
  return ENC_VERSION_NUMBER;
}

const char *enc_strerror(int code) {
  static const char *const own[] = {
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_INVALID_ARGUMENT] = "invalid argument",
      [ENC_ERR_INVALID_ARGUMENT - ENC_ERR_UNSUPPORTED] =
          "operation not supported by the selected implementation",
  };
  // Own codes count down from ENC_ERR_INVALID_ARGUMENT; anything else is generic.
  long index = (long)ENC_ERR_INVALID_ARGUMENT - code;
  if (index >= 0 && (size_t)index < sizeof own / sizeof own[0])
    return own[index];
  return corvid_errtext_generic(code);
}

const char *enc_version_string(void) {
  return ENC_VERSION_STRING;
}
