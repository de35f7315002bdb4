// pem.c: turns the textual encoding of RFC 7468 into DER for the X.509
// readers. It finds "-----BEGIN label-----" ... "-----END label-----"
// blocks with the labels the caller accepts, strips the line breaks and
// white space RFC 7468 allows, decodes the Base64 strictly (padding and
// alphabet checked) and concatenates the results; input without any
// "-----BEGIN " line is taken to be DER already.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <encodify.h>

#include "x509_internal.h"

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *s) {
  size_t n = strlen(s);
  while ((size_t)(end - p) >= n) {
    const uint8_t *q = memchr(p, s[0], (size_t)(end - p) - n + 1);
    if (q == NULL)
      return NULL;
    if (memcmp(q, s, n) == 0)
      return q;
    p = q + 1;
  }
  return NULL;
}

int x509_pem_or_der(uint8_t **out, size_t *out_len, const uint8_t *in, size_t in_len,
                    const char *const *labels) {
  const uint8_t *end = in + in_len;
  *out = NULL;
  *out_len = 0;
  if (find(in, end, "-----BEGIN ") == NULL) {
    uint8_t *copy = malloc(in_len ? in_len : 1);
    if (copy == NULL)
      return -ENOMEM;
    memcpy(copy, in, in_len);
    *out = copy;
    *out_len = in_len;
    return 0;
  }
  // Decoded Base64 is never longer than its text, so one buffer of the
  // input's size holds every block; a second holds one block's stripped text.
  uint8_t *buf = malloc(in_len), *text = malloc(in_len);
  if (buf == NULL || text == NULL) {
    free(buf);
    free(text);
    return -ENOMEM;
  }
  size_t used = 0;
  int ret = MC_ERR_BAD_KEY, blocks = 0;
  const uint8_t *p = in;
  for (;;) {
    const uint8_t *b = find(p, end, "-----BEGIN ");
    if (b == NULL)
      break;
    const uint8_t *lab = b + 11;
    const uint8_t *lab_end = find(lab, end, "-----");
    if (lab_end == NULL || memchr(lab, '\n', (size_t)(lab_end - lab)) != NULL)
      goto done;
    size_t lab_len = (size_t)(lab_end - lab);
    int wanted = 0;
    for (size_t i = 0; labels[i] != NULL; i++)
      if (strlen(labels[i]) == lab_len && memcmp(labels[i], lab, lab_len) == 0)
        wanted = 1;
    const uint8_t *body = lab_end + 5;
    const uint8_t *e = find(body, end, "-----END ");
    if (e == NULL)
      goto done;
    // The END label must repeat the BEGIN label.
    if ((size_t)(end - e) < 9 + lab_len + 5 || memcmp(e + 9, lab, lab_len) != 0 ||
        memcmp(e + 9 + lab_len, "-----", 5) != 0)
      goto done;
    p = e + 9 + lab_len + 5;
    if (!wanted)
      continue;
    size_t tl = 0;
    for (const uint8_t *q = body; q < e; q++) {
      if (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
        continue;
      // RFC 1421 headers ("Proc-Type:") mean an encrypted legacy block.
      if (*q == ':')
        goto done;
      text[tl++] = *q;
    }
    size_t n = 0, err_off = 0;
    if (enc_base64_decode(0, buf + used, in_len - used, &n, (const char *)text, tl, &err_off) != 0)
      goto done;
    if (n == 0)
      goto done;
    used += n;
    blocks++;
  }
  if (blocks == 0)
    goto done;
  *out = buf;
  *out_len = used;
  buf = NULL;
  ret = 0;
done:
  free(buf);
  free(text);
  return ret;
}
