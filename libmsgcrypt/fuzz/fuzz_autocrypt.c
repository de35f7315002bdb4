// fuzz_autocrypt.c: any bytes as the value of an Autocrypt header.
// Properties: mc_autocrypt_parse returns 0 or one of its documented codes
// and leaves `*out` zeroed on error; an accepted header has an address
// with exactly one '@' and no white space, keydata within the limit, and
// survives a round trip: the canonical header rebuilt from the result
// (addr, prefer-encrypt when mutual, keydata re-encoded with libencodify,
// a non-critical attribute added) parses to the same address, preference
// and key bytes, while an added unknown critical attribute makes it
// MC_ERR_UNSUPPORTED. The key check returns 0 only with one certificate.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "encodify.h"
#include "msgcrypt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t key[MC_AUTOCRYPT_DEFAULT_MAX_KEYDATA_LEN];
static uint8_t key2[MC_AUTOCRYPT_DEFAULT_MAX_KEYDATA_LEN];

static int documented(int ret) {
  return ret == 0 || ret == MC_ERR_UNSUPPORTED || ret == MC_ERR_INVALID_ARGUMENT ||
         ret == MC_ERR_BAD_KEY || ret == MC_ERR_BUFFER_TOO_SMALL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mc_autocrypt_header h;
  int ret = mc_autocrypt_parse(&h, key, sizeof key, NULL, (const char *)data, size);
  FUZZ_CHECK(documented(ret));
  if (ret != 0) {
    FUZZ_CHECK(h.addr_len == 0 && h.keydata_len == 0 && h.addr[0] == 0);
    return 0;
  }
  FUZZ_CHECK(h.addr_len == strlen(h.addr) && h.addr_len <= MC_AUTOCRYPT_MAX_ADDR_LEN);
  FUZZ_CHECK(h.keydata_len > 0 && h.keydata_len <= sizeof key);
  size_t ats = 0;
  for (size_t i = 0; i < h.addr_len; i++) {
    ats += h.addr[i] == '@';
    FUZZ_CHECK((unsigned char)h.addr[i] > 0x20);
  }
  FUZZ_CHECK(ats == 1);
  FUZZ_CHECK(h.prefer_encrypt == MC_AUTOCRYPT_PREFER_MUTUAL ||
             h.prefer_encrypt == MC_AUTOCRYPT_PREFER_NOPREFERENCE);

  size_t b64_len = enc_base64_encode_len(0, 0, h.keydata_len);
  size_t cap = b64_len + h.addr_len + 128;
  char *canon = malloc(cap);
  FUZZ_CHECK(canon != NULL);
  for (int critical = 0; critical < 2; critical++) {
    size_t n = 0;
    memcpy(canon + n, "addr=", 5);
    n += 5;
    memcpy(canon + n, h.addr, h.addr_len);
    n += h.addr_len;
    const char *mid = h.prefer_encrypt == MC_AUTOCRYPT_PREFER_MUTUAL
                          ? "; prefer-encrypt=mutual; _extra=x; "
                          : "; _extra=x; ";
    memcpy(canon + n, mid, strlen(mid));
    n += strlen(mid);
    if (critical) {
      memcpy(canon + n, "zz-new=1; ", 10);
      n += 10;
    }
    memcpy(canon + n, "keydata=", 8);
    n += 8;
    size_t enc_len = 0;
    FUZZ_CHECK(enc_base64_encode(0, 0, canon + n, cap - n, &enc_len, key, h.keydata_len) == 0);
    n += enc_len;
    mc_autocrypt_header h2;
    int r2 = mc_autocrypt_parse(&h2, key2, sizeof key2, NULL, canon, n);
    if (critical) {
      FUZZ_CHECK(r2 == MC_ERR_UNSUPPORTED);
    } else {
      FUZZ_CHECK(r2 == 0);
      FUZZ_CHECK(h2.addr_len == h.addr_len && memcmp(h2.addr, h.addr, h.addr_len) == 0);
      FUZZ_CHECK(h2.prefer_encrypt == h.prefer_encrypt);
      FUZZ_CHECK(h2.keydata_len == h.keydata_len && memcmp(key2, key, h.keydata_len) == 0);
    }
  }
  free(canon);

  mc_pgp_certs *certs = NULL;
  ret = mc_autocrypt_key_check(&certs, &h, key, h.keydata_len, 1800000000);
  if (ret == 0)
    FUZZ_CHECK(certs != NULL && mc_pgp_certs_count(certs) == 1);
  else
    FUZZ_CHECK(certs == NULL);
  mc_pgp_certs_free(certs);
  return 0;
}
