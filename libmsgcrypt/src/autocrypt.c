// autocrypt.c: reads the value of an Autocrypt header (Autocrypt Level 1,
// "The Autocrypt Header"): `;`-separated attributes, addr and keydata
// mandatory, prefer-encrypt optional, other names starting with `_` skipped
// and any other name making the whole header invalid; keydata is Base64
// (folding white space allowed) of an OpenPGP certificate, decoded through
// libencodify into the caller's buffer. A second call hands the bytes to
// the OpenPGP key reader and accepts them only as one certificate with an
// encryption key and a valid user ID for the header's address, which is
// what the store that learns keys from mail needs.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "encodify.h"
#include "msgcrypt_internal.h"

static int is_wsp(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void trim(const char **p, size_t *len) {
  while (*len > 0 && is_wsp(**p)) {
    (*p)++;
    (*len)--;
  }
  while (*len > 0 && is_wsp((*p)[*len - 1]))
    (*len)--;
}

static int name_eq(const char *p, size_t len, const char *name) {
  return len == strlen(name) && strncasecmp(p, name, len) == 0;
}

// addr_ok accepts a bare addr-spec as Autocrypt uses it: one `@` with text
// on both sides, printable ASCII or UTF-8 without white space, quotes,
// angle brackets or separators.
static int addr_ok(const char *p, size_t len) {
  if (len == 0 || len > MC_AUTOCRYPT_MAX_ADDR_LEN)
    return 0;
  size_t at = len, num_at = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c <= 0x20 || c == 0x7f || c == '<' || c == '>' || c == '"' || c == ',' || c == ';' ||
        c == '(' || c == ')')
      return 0;
    if (c == '@') {
      at = i;
      num_at++;
    }
  }
  return num_at == 1 && at > 0 && at + 1 < len;
}

int mc_autocrypt_parse(mc_autocrypt_header *out, uint8_t *key, size_t key_cap,
                       const mc_autocrypt_settings *settings, const char *in, size_t in_len) {
  MC_FAIL_IF(out == NULL || (key == NULL && key_cap > 0) || (in == NULL && in_len > 0),
             MC_ERR_INVALID_ARGUMENT);
  memset(out, 0, sizeof *out);
  size_t max_header = MC_AUTOCRYPT_DEFAULT_MAX_HEADER_LEN;
  size_t max_key = MC_AUTOCRYPT_DEFAULT_MAX_KEYDATA_LEN;
  if (settings != NULL) {
    MC_FAIL_IF(settings->version != 1, MC_ERR_INVALID_ARGUMENT);
    if (settings->max_header_len != 0)
      max_header = settings->max_header_len;
    if (settings->max_keydata_len != 0)
      max_key = settings->max_keydata_len;
  }
  MC_FAIL_IF(in_len > max_header, MC_ERR_INVALID_ARGUMENT);

  const char *addr = NULL, *keydata = NULL;
  size_t addr_len = 0, keydata_len = 0;
  int have_prefer = 0, prefer = MC_AUTOCRYPT_PREFER_NOPREFERENCE;
  size_t pos = 0;
  while (pos < in_len) {
    const char *semi = memchr(in + pos, ';', in_len - pos);
    size_t end = semi != NULL ? (size_t)(semi - in) : in_len;
    const char *item = in + pos;
    size_t item_len = end - pos;
    pos = semi != NULL ? end + 1 : in_len;
    trim(&item, &item_len);
    if (item_len == 0)
      continue; // "a=b;" ends with an empty item
    const char *eq = memchr(item, '=', item_len);
    MC_FAIL_IF(eq == NULL, MC_ERR_INVALID_ARGUMENT);
    const char *name = item;
    size_t name_len = (size_t)(eq - item);
    const char *value = eq + 1;
    size_t value_len = item_len - name_len - 1;
    trim(&name, &name_len);
    trim(&value, &value_len);
    MC_FAIL_IF(name_len == 0, MC_ERR_INVALID_ARGUMENT);
    if (name_eq(name, name_len, "addr")) {
      MC_FAIL_IF(addr != NULL, MC_ERR_INVALID_ARGUMENT);
      addr = value;
      addr_len = value_len;
    } else if (name_eq(name, name_len, "keydata")) {
      MC_FAIL_IF(keydata != NULL, MC_ERR_INVALID_ARGUMENT);
      keydata = value;
      keydata_len = value_len;
    } else if (name_eq(name, name_len, "prefer-encrypt")) {
      MC_FAIL_IF(have_prefer, MC_ERR_INVALID_ARGUMENT);
      have_prefer = 1;
      // Level 1: "mutual" is the only value; any other means no preference.
      prefer = name_eq(value, value_len, "mutual") ? MC_AUTOCRYPT_PREFER_MUTUAL
                                                   : MC_AUTOCRYPT_PREFER_NOPREFERENCE;
    } else if (name[0] != '_') {
      // An unknown critical attribute: the header must be ignored whole.
      return MC_ERR_UNSUPPORTED;
    }
  }
  MC_FAIL_IF(addr == NULL || keydata == NULL || !addr_ok(addr, addr_len), MC_ERR_INVALID_ARGUMENT);

  // Folding white space may sit anywhere in keydata; the strict decoder
  // sees the Base64 characters only.
  char *b64 = malloc(keydata_len + 1);
  if (b64 == NULL)
    return -ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < keydata_len; i++)
    if (!is_wsp(keydata[i]))
      b64[n++] = keydata[i];
  int ret = 0;
  size_t dec_len = 0, err_off = 0;
  if (n == 0 || enc_base64_decode_max_len(n) > max_key + 2) {
    // Base64 of more than max_key bytes (the bound may overshoot by two).
    ret = n == 0 ? MC_ERR_BAD_KEY : MC_ERR_INVALID_ARGUMENT;
  } else {
    size_t need = enc_base64_decode_max_len(n);
    uint8_t *tmp = malloc(need > 0 ? need : 1);
    if (tmp == NULL) {
      ret = -ENOMEM;
    } else {
      if (enc_base64_decode(0, tmp, need, &dec_len, b64, n, &err_off) != 0)
        ret = MC_ERR_BAD_KEY;
      else if (dec_len > max_key)
        ret = MC_ERR_INVALID_ARGUMENT;
      else if (dec_len > key_cap)
        ret = MC_ERR_BUFFER_TOO_SMALL;
      else
        memcpy(key, tmp, dec_len);
      free(tmp);
    }
  }
  free(b64);
  if (ret != 0)
    return ret;
  memcpy(out->addr, addr, addr_len);
  out->addr[addr_len] = 0;
  out->addr_len = addr_len;
  out->prefer_encrypt = prefer;
  out->keydata_len = dec_len;
  return 0;
}

// uid_has_addr says whether the user ID is the address or carries it in
// angle brackets ("Name <addr>"), comparing without regard to ASCII case.
static int uid_has_addr(const char *uid, size_t len, const char *addr, size_t addr_len) {
  if (len == addr_len && strncasecmp(uid, addr, len) == 0)
    return 1;
  const char *lt = len > 0 ? memchr(uid, '<', len) : NULL;
  if (lt == NULL)
    return 0;
  size_t start = (size_t)(lt - uid) + 1;
  return start + addr_len < len && uid[start + addr_len] == '>' &&
         strncasecmp(uid + start, addr, addr_len) == 0;
}

int mc_autocrypt_key_check(mc_pgp_certs **out, const mc_autocrypt_header *header,
                           const uint8_t *key, size_t key_len, int64_t now) {
  MC_FAIL_IF(out == NULL, MC_ERR_INVALID_ARGUMENT);
  *out = NULL;
  MC_FAIL_IF(header == NULL || key == NULL || key_len == 0, MC_ERR_INVALID_ARGUMENT);
  // keydata is binary (Autocrypt Level 1); armor is not accepted here.
  MC_FAIL_IF((key[0] & 0x80) == 0, MC_ERR_BAD_KEY);
  mc_pgp_certs *certs = NULL;
  int ret = mc_pgp_certs_parse(&certs, NULL, NULL, key, key_len, now);
  if (ret != 0)
    return ret;
  const mc_pgp_cert *c = mc_pgp_certs_get(certs, 0);
  int good = mc_pgp_certs_count(certs) == 1 && mc_pgp_cert_num_recipients(c) > 0;
  int match = 0;
  for (size_t i = 0; good && !match && i < mc_pgp_cert_num_user_ids(c); i++) {
    size_t len = 0;
    const char *uid = mc_pgp_cert_user_id(c, i, &len);
    match = uid != NULL && uid_has_addr(uid, len, header->addr, header->addr_len);
  }
  if (!good || !match) {
    mc_pgp_certs_free(certs);
    return MC_ERR_BAD_KEY;
  }
  *out = certs;
  return 0;
}
